/* engine_diag.c - where a descriptor of the SG2260 model is (chip, engine,
 * index, source line, disassembly) and the errors and warnings of a run,
 * located there. */
#include <stdarg.h>
#include <stdio.h>

#include "engine_state.h"

const char *sg_side_name(int side) { return side == SG2260_TX ? "TX" : "RX"; }

/* "chip 0 port 1 (->2) TX", "chip 0 gdma", "chip 0 vsdma 1" */
void sg_chan_label(const Sg2260Sim *s, const Channel *h, char *buf, size_t cap) {
    if (h->engine == SG2260_CDMA)
        snprintf(buf, cap, "chip %d port %d (->%d) %s", h->chip, h->index,
                 sg2260_machine_port_peer(&s->m, h->chip, h->index), sg_side_name(h->side));
    else if (h->engine == SG2260_GDMA)
        snprintf(buf, cap, "chip %d gdma", h->chip);
    else
        snprintf(buf, cap, "chip %d vsdma %d", h->chip, h->index);
}

/* "chip 0 port 1 (->2) TX #3 (line 12): SEND ..." for descriptor idx. */
void sg_where_desc(const Sg2260Sim *s, const Channel *h, int idx, char *buf, size_t cap) {
    char dis[320] = "", label[64], lbuf[32] = "";
    if (idx >= 0 && h->prog && idx < h->prog->n) sg2260_disasm(&h->prog->descs[idx], dis, sizeof dis);
    int line = (h->prog && h->prog->lines && idx >= 0 && idx < h->prog->n) ? h->prog->lines[idx] : 0;
    if (line) snprintf(lbuf, sizeof lbuf, " (line %d)", line);
    sg_chan_label(s, h, label, sizeof label);
    snprintf(buf, cap, "%s #%d%s: %s", label, idx, lbuf, dis);
}

/* Formats fmt into e, at the descriptor h is on (its source line kept). */
static int located_err(Sg2260Sim *s, Sg2260Error *e, const Channel *h, const char *code, const char *fmt,
                       va_list ap) {
    char what[1024], loc[512];
    vsnprintf(what, sizeof what, fmt, ap);
    int idx = desc_at(h, h->pc);
    sg_where_desc(s, h, idx, loc, sizeof loc);
    int line = h->prog && h->prog->lines && idx >= 0 ? h->prog->lines[idx] : 0;
    return sg_err(e, code, NULL, line, "%s\n  at %s", what, loc);
}

int sg_run_err(Sg2260Sim *s, Sg2260Error *e, const Channel *h, const char *code, const char *fmt,
               ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = located_err(s, e, h, code, fmt, ap);
    va_end(ap);
    return r;
}

/* A warning: the hardware does not check it, the run goes on; the first
 * one is kept in the result. */
void sg_run_warn(Sg2260Sim *s, const Channel *h, const char *code, const char *fmt, ...) {
    if (!s->res || s->res->nwarnings++) return;
    va_list ap;
    va_start(ap, fmt);
    located_err(s, &s->res->warning, h, code, fmt, ap);
    va_end(ap);
}
