/* engine_report.c - what a run of the SG2260 model reports: the result
 * summary, and the trace as Chrome trace-event JSON or an SVG timeline. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_state.h"

void sg2260_result_print(FILE *out, const Sg2260Sim *s, const Sg2260Result *r) {
    fprintf(out, "machine: %s, %d chips, %d links, link %.4g GB/s per direction, CDMA engine %.4g GB/s\n", s->m.name,
            s->m.nchips, s->m.nlinks, s->m.link_bw_GBps, s->m.cdma_bw_GBps);
    fprintf(out, "status: %s\n", r->ok ? "ok" : "failed");
    fprintf(out, "simulated time: %.6f us\n", r->time_us);
    fprintf(out, "commands: %llu, link bytes: %.0f\n", (unsigned long long)r->commands, r->bytes);
    fprintf(out, "%-14s %14s %12s %8s %8s\n", "link", "bytes", "busy_us", "busy%", "util%");
    for (int i = 0; i < r->nlinkstats; i++) {
        const Sg2260LinkStats *ls = &r->linkstats[i];
        if (ls->bytes == 0) continue;
        char name[32];
        snprintf(name, sizeof name, "%d->%d", ls->from, ls->to);
        if (sg2260_machine_links_between(&s->m, ls->from, ls->to, (int[2]){0, 0}, 2) > 1)
            snprintf(name, sizeof name, "%d->%d/%d", ls->from, ls->to, ls->link);
        fprintf(out, "%-14s %14.0f %12.6f %8.2f %8.2f\n", name, ls->bytes, ls->busy_us,
                r->time_us > 0 ? 100.0 * ls->busy_us / r->time_us : 0.0, 100.0 * ls->util);
    }
    for (int c = 0; c < s->m.nchips; c++) {
        if (r->local_bytes[c] == 0) continue;
        char name[32];
        snprintf(name, sizeof name, "chip %d local", c);
        fprintf(out, "%-14s %14.0f %12.6f %8.2f %8.2f\n", name, r->local_bytes[c], r->local_busy_us[c],
                r->time_us > 0 ? 100.0 * r->local_busy_us[c] / r->time_us : 0.0,
                r->time_us > 0 ? 100.0 * r->local_bytes[c] / (s->m.ddr_l2_GBps * 1e3 * r->time_us) : 0.0);
    }
}

/* ---- trace writers ----------------------------------------------------- */

/* JSON-escaped copy of s into buf. */
static const char *jesc(const char *s, char *buf, size_t cap) {
    size_t n = 0;
    for (; *s && n + 2 < cap; s++) {
        if (*s == '"' || *s == '\\') buf[n++] = '\\';
        buf[n++] = *s;
    }
    buf[n] = 0;
    return buf;
}

/* The tracks: a process per chip with a thread per engine channel at its
 * index within the chip; a "links" process after the chips with a thread
 * per link direction or local path that carried data. */
static void json_tracks(const Sg2260Sim *s, FILE *out, int links_pid) {
    char label[64];
    for (int c = 0; c < s->m.nchips; c++) {
        fprintf(out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"chip %d\"}}",
                c ? ",\n" : "", c, c);
        for (int k = 0; k < CH_PER_CHIP; k++) {
            const Channel *h = &s->ch[c * CH_PER_CHIP + k];
            if (h->state == CH_ABSENT) continue;
            sg_chan_label(s, h, label, sizeof label);
            /* "chip 0 port 1 (->2) TX" is "port 1 (->2) TX" on chip 0's track */
            const char *name = strchr(strchr(label, ' ') + 1, ' ') + 1;
            fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", c,
                    k, name);
        }
    }
    fprintf(out, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"links\"}}", links_pid);
    uint8_t used[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS] = {0};
    for (int i = 0; i < s->nlk; i++) used[s->lk[i].res] = 1;
    for (int r = 0; r < s->nres; r++) {
        if (!used[r]) continue; /* a track per link direction or local path that carried data */
        if (r < 2 * s->m.nlinks) {
            const Sg2260Link *l = &s->m.links[r / 2];
            fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"link %d->%d (port %d)\"}}",
                    links_pid, r, r % 2 ? l->b : l->a, r % 2 ? l->a : l->b, r % 2 ? l->port_b : l->port_a);
        } else {
            fprintf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"chip %d DDR<->L2\"}}",
                    links_pid, r, r - 2 * s->m.nlinks);
        }
    }
}

/* The commands, waits, syncs and marks of the channels, and the flows from a
 * SEND to its data landing at the RECV. */
static void json_events(const Sg2260Sim *s, FILE *out) {
    char esc[640];
    static const char *const cat[] = {"cmd", "wait", "sync", "mark"};
    for (int i = 0; i < s->ntr; i++) {
        const TraceEv *e = &s->tr[i];
        const Channel *h = &s->ch[e->ch];
        char dis[320] = "";
        if (e->index >= 0 && e->index < h->prog->n) sg2260_disasm(&h->prog->descs[e->index], dis, sizeof dis);
        int tid = e->ch % CH_PER_CHIP;
        if (e->t1 > e->t0)
            fprintf(out, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,", e->name, cat[e->kind],
                    e->t0, e->t1 - e->t0);
        else
            fprintf(out, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.6f,", e->name,
                    cat[e->kind], e->t0);
        fprintf(out, "\"pid\":%d,\"tid\":%d,\"args\":{\"index\":%d,\"desc\":\"%s\"", h->chip, tid, e->index,
                jesc(dis, esc, sizeof esc));
        const Sg2260Note *nt = h->prog->notes && e->index >= 0 ? &h->prog->notes[e->index] : NULL;
        if (nt && nt->step) fprintf(out, ",\"step\":%d", nt->step);
        if (nt && nt->line) fprintf(out, ",\"line\":%d", nt->line);
        if (nt && nt->what) fprintf(out, ",\"what\":\"%s\"", jesc(nt->what, esc, sizeof esc));
        fputs("}}", out);
        if (e->flow)
            fprintf(out, ",\n{\"name\":\"data\",\"cat\":\"flow\",\"ph\":\"%s\",%s\"id\":%d,\"ts\":%.6f,\"pid\":%d,\"tid\":%d}",
                    e->flow_end ? "f" : "s", e->flow_end ? "\"bp\":\"e\"," : "", e->flow, e->t0, h->chip, tid);
    }
}

/* The transfers streaming on each link direction or local path. */
static void json_links(const Sg2260Sim *s, FILE *out, int links_pid) {
    char label[64];
    for (int i = 0; i < s->nlk; i++) {
        const LinkEv *l = &s->lk[i];
        if (l->t1 <= l->t0) continue;
        const Channel *h = &s->ch[l->ch];
        sg_chan_label(s, h, label, sizeof label);
        fprintf(out, ",\n{\"name\":\"%.0f B\",\"cat\":\"link\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,\"pid\":%d,\"tid\":%d,"
                     "\"args\":{\"by\":\"%s #%d\",\"GBps\":%.3f}}",
                l->bytes, l->t0, l->t1 - l->t0, links_pid, l->res, label, l->index, l->bytes / ((l->t1 - l->t0) * 1e3));
    }
}

/* Step markers: the first command of each schedule step (from the notes). */
static void json_steps(const Sg2260Sim *s, FILE *out) {
    int maxstep = 0;
    for (int i = 0; i < s->ntr; i++) {
        const Channel *h = &s->ch[s->tr[i].ch];
        if (s->tr[i].kind == TR_CMD && h->prog->notes && s->tr[i].index >= 0 &&
            h->prog->notes[s->tr[i].index].step > maxstep)
            maxstep = h->prog->notes[s->tr[i].index].step;
    }
    for (int st = 1; st <= maxstep; st++) {
        double t = INFINITY;
        for (int i = 0; i < s->ntr; i++) {
            const TraceEv *e = &s->tr[i];
            const Channel *h = &s->ch[e->ch];
            if (e->kind == TR_CMD && h->prog->notes && e->index >= 0 && h->prog->notes[e->index].step == st &&
                e->t0 < t)
                t = e->t0;
        }
        if (t < INFINITY)
            fprintf(out, ",\n{\"name\":\"step %d\",\"cat\":\"step\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.6f,\"pid\":0,\"tid\":0}",
                    st, t);
    }
}

int sg2260_trace_write_json(const Sg2260Sim *s, FILE *out) {
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
    const int links_pid = s->m.nchips;
    json_tracks(s, out, links_pid);
    json_events(s, out);
    json_links(s, out, links_pid);
    json_steps(s, out);
    fputs("\n]}\n", out);
    return ferror(out) ? -1 : 0;
}

/* Colours of the SVG timeline, one per kind of bar (the legend lists them). */
#define SVG_KINDS(X)                                     \
    X(SEND, "#4a7fd4", "SEND / link transfer")           \
    X(WRITE, "#4caf50", "WRITE")                         \
    X(READ, "#ff9800", "READ")                           \
    X(GENERAL, "#00897b", "GENERAL (chip to chip)")      \
    X(LOCAL, "#888888", "COPY / REDUCE (GDMA, VSDMA)")   \
    X(SYNC, "#9b6fd1", "message wait (sync)")            \
    X(WAIT, "#f3c6c6", "blocked")

enum {
#define X(id, color, label) SVG_##id,
    SVG_KINDS(X)
#undef X
    SVG_NKINDS
};
static const char *const svg_color[] = {
#define X(id, color, label) color,
    SVG_KINDS(X)
#undef X
};
static const char *const svg_label[] = {
#define X(id, color, label) label,
    SVG_KINDS(X)
#undef X
};

/* s as SVG (XML) character data: & < > and " as entities. */
static void svg_puts(FILE *out, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: putc(*s, out);
        }
    }
}

/* A "nice" axis step for a span of T: 1, 2 or 5 times a power of ten. */
static double axis_step(double T) {
    double raw = T / 8, p = pow(10, floor(log10(raw)));
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

int sg2260_trace_write_svg(const Sg2260Sim *s, FILE *out) {
    int rows[NCH + 2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS], nrows = 0;
    int row_of[NCH];
    for (int i = 0; i < NCH; i++) {
        row_of[i] = -1;
        if (s->ch[i].state != CH_ABSENT) row_of[i] = nrows, rows[nrows++] = i;
    }
    int link_row[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS];
    int nchrows = nrows;
    for (int r = 0; r < s->nres; r++) {
        link_row[r] = -1;
        for (int i = 0; i < s->nlk; i++)
            if (s->lk[i].res == r) {
                link_row[r] = nrows;
                rows[nrows++] = NCH + r;
                break;
            }
    }
    const double left = 200, width = 900, rowh = 18, top = 30;
    double T = s->end_time > 0 ? s->end_time : 1;
    double axis_y = top + nrows * rowh + 6, legend_y = axis_y + 36;
    double H = legend_y + 18 * ((SVG_NKINDS + 2) / 3) + 10;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" font-size=\"11\">\n",
            left + width + 30, H);
    fputs("<text x=\"4\" y=\"16\">", out);
    svg_puts(out, s->m.name);
    fprintf(out, ": %.3f us</text>\n", T);
    char label[64];
    for (int r = 0; r < nrows; r++) {
        double y = top + r * rowh;
        if (rows[r] < NCH) {
            sg_chan_label(s, &s->ch[rows[r]], label, sizeof label);
        } else {
            int res = rows[r] - NCH;
            if (res < 2 * s->m.nlinks) {
                const Sg2260Link *l = &s->m.links[res / 2];
                snprintf(label, sizeof label, "link %d->%d", res % 2 ? l->b : l->a, res % 2 ? l->a : l->b);
            } else {
                snprintf(label, sizeof label, "chip %d DDR<->L2", res - 2 * s->m.nlinks);
            }
        }
        fprintf(out, "<text x=\"4\" y=\"%.1f\">", y + 12);
        svg_puts(out, label);
        fputs("</text>\n", out);
        fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%s\"/>\n", left, y + rowh - 1,
                left + width, y + rowh - 1, r == nchrows ? "#999" : "#ddd");
    }
    for (int i = 0; i < s->ntr; i++) {
        const TraceEv *e = &s->tr[i];
        if (row_of[e->ch] < 0 || e->t1 <= e->t0) continue;
        const Channel *h = &s->ch[e->ch];
        const Sg2260Desc *d = &h->prog->descs[e->index];
        int kind = SVG_SEND;
        if (e->kind == TR_WAIT) kind = SVG_WAIT;
        else if (e->kind == TR_SYNC) kind = SVG_SYNC;
        else if (d->cmd == SG2260_CMD_WRITE) kind = SVG_WRITE;
        else if (d->cmd == SG2260_CMD_READ) kind = SVG_READ;
        else if (d->cmd == SG2260_CMD_GENERAL) kind = SVG_GENERAL;
        else if (d->cmd == SG2260_CMD_COPY || d->cmd == SG2260_CMD_REDUCE) kind = SVG_LOCAL;
        double x = left + width * e->t0 / T, w = width * (e->t1 - e->t0) / T;
        double y = top + row_of[e->ch] * rowh + (e->kind == TR_WAIT ? 6 : 2);
        fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>", x, y,
                w < 0.5 ? 0.5 : w, e->kind == TR_WAIT ? 4.0 : rowh - 5, svg_color[kind]);
        svg_puts(out, e->name);
        fprintf(out, " [%.3f, %.3f] us</title></rect>\n", e->t0, e->t1);
    }
    for (int i = 0; i < s->nlk; i++) {
        const LinkEv *l = &s->lk[i];
        if (link_row[l->res] < 0 || l->t1 <= l->t0) continue;
        double x = left + width * l->t0 / T, w = width * (l->t1 - l->t0) / T;
        double y = top + link_row[l->res] * rowh + 2;
        fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.6\"><title>%.0f B [%.3f, %.3f] us</title></rect>\n",
                x, y, w < 0.5 ? 0.5 : w, rowh - 5, svg_color[l->res < 2 * s->m.nlinks ? SVG_SEND : SVG_LOCAL], l->bytes,
                l->t0, l->t1);
    }
    /* time axis with ticks at a round step */
    fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#000\"/>\n", left, axis_y, left + width,
            axis_y);
    double st = axis_step(T);
    for (double t = 0; t <= T * (1 + 1e-9); t += st) {
        double x = left + width * t / T;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", x, axis_y, x, axis_y + 4);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, axis_y + 16, t);
    }
    fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">time (us)</text>\n", left - 6, axis_y + 16);
    for (int k = 0; k < SVG_NKINDS; k++) {
        double x = 4 + (k % 3) * 330, y = legend_y + (k / 3) * 18;
        fprintf(out, "<rect x=\"%.0f\" y=\"%.1f\" width=\"14\" height=\"11\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.1f\">",
                x, y, svg_color[k], x + 20, y + 10);
        svg_puts(out, svg_label[k]);
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
