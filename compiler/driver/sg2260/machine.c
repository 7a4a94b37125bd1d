/* machine.c - the SG2260 machine model as the cost model's alpha, beta,
 * gamma and topology (see machine.h). */
#include "driver/sg2260/machine.h"
#include "driver/sg2260/sg2260_cli.h"
#include "driver/driver.h"
#include "support/suggest.h"
#include "support/util.h"

#include <stdlib.h>

#include <stdio.h>
#include <string.h>

/* The machine names offered for an unknown --machine NAME (copied: the
 * folder listing's names do not outlive the call). */
typedef struct NameSuggest {
    Suggest sg;
    char best[256];
} NameSuggest;

static void offer_machine(const char *name, void *ctx) {
    NameSuggest *n = ctx;
    suggest_offer(&n->sg, name, NULL);
    if (n->sg.best == name) {
        snprintf(n->best, sizeof n->best, "%s", name);
        n->sg.best = n->best;
    }
}

/* "; did you mean 'X'?" for the unknown word of err (a machine name or a
 * machine-file key), or "". */
static const char *machine_hint(const char *arg, const Sg2260Error *err, char *buf, size_t size) {
    NameSuggest n;
    buf[0] = 0;
    if (strcmp(err->code, "unknown-machine") == 0 && !strchr(arg, '/')) {
        suggest_init(&n.sg, arg, SUGGEST_NAME);
        sg2260_machine_names(offer_machine, &n);
    } else if (strcmp(err->code, "unknown-key") == 0) {
        suggest_init(&n.sg, err->word, SUGGEST_NAME);
        for (int k = 0; sg2260_machine_key(k); k++) suggest_offer(&n.sg, sg2260_machine_key(k), NULL);
    } else {
        return buf;
    }
    if (n.sg.best) snprintf(buf, size, "; did you mean '%s'?", n.sg.best);
    return buf;
}

int cost_machine_load(const char *cmd, const char *path, Sg2260Machine *m) {
    Sg2260Error err;
    if (sg2260_machine_load(path, m, &err) == 0) return 0;
    if (strcmp(err.code, "io") == 0) return usage_error(cmd, "cannot open machine file '%s'", path);
    char hint[320];
    machine_hint(path, &err, hint, sizeof hint);
    if (strcmp(err.code, "unknown-machine") == 0)
        return usage_error(cmd, "machine '%s': %s%s", path, err.msg, hint);
    size_t len = strlen(err.msg);
    snprintf(err.msg + len, sizeof err.msg - len, "%s", hint);
    fprintf(stderr, "collc %s: ", cmd);
    sg2260_error_print(stderr, &err);
    return EXIT_USAGE;
}

void cost_machine_params(const Sg2260Machine *m, CostMachine *out) {
    out->alpha = (m->startup_us + m->sync_us) * 1e-6;
    /* a transfer streams at the slower of link and CDMA engine */
    double link = m->link_bw_GBps < m->cdma_bw_GBps ? m->link_bw_GBps : m->cdma_bw_GBps;
    out->beta = link * 1e9;
    /* The engine reduces inside the stream (at min(link, SUM)); what a
     * reduction costs besides its link time is the L2 staging, when the CDMA
     * may not reduce into DDR: the reduced bytes cross the chip's DDR<->L2
     * path twice (in before the RECV, out after it). */
    out->gamma = m->reduce_to_ddr ? m->sum_bw_GBps * 1e9 : m->ddr_l2_GBps / 2 * 1e9;
}

/* The graph of m with rank r on chip chips[r]; with ranks_only the other
 * chips and their links are left out, else they are nodes N, N+1, ... */
static TopoStatus graph(const Sg2260Machine *m, const char *name, const int *chips, int64_t N, int ranks_only,
                        int64_t ports, TopoModel **out, char *err, size_t errsz) {
    int64_t node[SG2260_MAX_CHIPS];
    for (int c = 0; c < SG2260_MAX_CHIPS; c++) node[c] = -1;
    for (int64_t r = 0; r < N; r++) node[chips[r]] = r;
    int64_t nnodes = N;
    for (int c = 0; c < m->nchips && !ranks_only; c++)
        if (node[c] < 0) node[c] = nnodes++;
    TopoLink links[2 * SG2260_MAX_LINKS];
    size_t n = 0;
    double beta = (m->link_bw_GBps < m->cdma_bw_GBps ? m->link_bw_GBps : m->cdma_bw_GBps);
    for (int l = 0; l < m->nlinks; l++) {
        int64_t a = node[m->links[l].a], b = node[m->links[l].b];
        if (a < 0 || b < 0) continue;
        /* parallel links carry one message together (the backend spreads it
         * over them by rate): one topology link of their summed rate */
        int first = 1;
        double rate = 0;
        for (int k = 0; k < m->nlinks; k++) {
            int same = (m->links[k].a == m->links[l].a && m->links[k].b == m->links[l].b) ||
                       (m->links[k].a == m->links[l].b && m->links[k].b == m->links[l].a);
            if (!same) continue;
            if (k < l) first = 0;
            rate += sg2260_machine_link_rate(m, k);
        }
        if (!first) continue;
        int ovf = 0;
        Rat tpb = rat_from_double(beta / rate, 1000000, &ovf);
        if (ovf) {
            snprintf(err, errsz, "machine '%s': link %d-%d is too slow or too fast against link_bandwidth", m->name,
                     m->links[l].a, m->links[l].b);
            return TOPO_USAGE;
        }
        links[n++] = (TopoLink){(int32_t)a, (int32_t)b, rat_int(1), tpb};
        links[n++] = (TopoLink){(int32_t)b, (int32_t)a, rat_int(1), tpb};
    }
    *out = topo_graph_new(name, N, nnodes, links, n, ports);
    return TOPO_OK;
}

TopoStatus cost_machine_topology(const Sg2260Machine *m, int64_t N, int64_t ports, TopoModel **out, char *err,
                                 size_t errsz) {
    *out = NULL;
    int chips[SG2260_MAX_CHIPS];
    if (N > m->nchips || sg2260_machine_place(m, (int)N, chips)) {
        snprintf(err, errsz, "machine '%s' has %d chips and no ring of %lld; N = %lld", m->name, m->nchips,
                 (long long)N, (long long)N);
        return TOPO_NOT_APPLICABLE;
    }
    TopoStatus st = graph(m, m->name, chips, N, 0, ports, out, err, errsz);
    if (st != TOPO_OK || m->reduce_to_ddr) return st;
    /* A local copy crosses the DDR<->L2 path once, a staged reduction
     * twice (gamma = ddr_l2_bandwidth / 2): a copied chunk is half a
     * reduced one. */
    CostMachine p;
    cost_machine_params(m, &p);
    int ovf = 0;
    (*out)->local_copy = rat_from_double(p.gamma / (m->ddr_l2_GBps * 1e9), 1000000, &ovf);
    COLLC_ASSERT(!ovf);
    /* the crossing's time against the link's: beta / ddr_l2_bandwidth */
    (*out)->stage_tpb = rat_from_double(p.beta / (m->ddr_l2_GBps * 1e9), 1000000, &ovf);
    COLLC_ASSERT(!ovf);
    return st;
}

/* --topo sg2260: the built-in board's first ring of N chips. */
static TopoStatus board(int64_t N, int64_t ports, TopoModel **out, char *err, size_t errsz) {
    *out = NULL;
    Sg2260Machine m;
    sg2260_machine_default(&m);
    for (int k = 0; k < m.nrings; k++)
        if (m.rings[k].len == N) return graph(&m, "sg2260", m.rings[k].chips, N, 1, ports, out, err, errsz);
    /* "has 8 chips (or the 4-chip ring 7,6,2,3)": the first ring of every
     * other length */
    char others[256] = "";
    size_t len = 0;
    for (int k = 0; k < m.nrings && len < sizeof others; k++) {
        int first = m.rings[k].len != m.nchips;
        for (int j = 0; j < k && first; j++) first = m.rings[j].len != m.rings[k].len;
        if (!first) continue;
        len += (size_t)snprintf(others + len, sizeof others - len, "%s the %d-chip ring", len ? " or" : " (or",
                                m.rings[k].len);
        for (int c = 0; c < m.rings[k].len && len < sizeof others; c++)
            len += (size_t)snprintf(others + len, sizeof others - len, "%s%d", c ? "," : " ", m.rings[k].chips[c]);
    }
    if (len && len < sizeof others) snprintf(others + len, sizeof others - len, ")");
    snprintf(err, errsz, "topology sg2260 has %d chips%s; N = %lld", m.nchips, others, (long long)N);
    return TOPO_NOT_APPLICABLE;
}

const TopoExtra cost_machine_boards[] = {{"sg2260", board}};

/* ---- the target's machine files (TargetMachine) ---- */

static void *machine_load(const char *cmd, const char *path) {
    Sg2260Machine *m = xmalloc(sizeof *m);
    if (cost_machine_load(cmd, path, m) == 0) return m;
    free(m);
    return NULL;
}

static void machine_params(const void *m, CostMachine *out) { cost_machine_params(m, out); }

static TopoStatus machine_topology(const void *m, int64_t N, int64_t ports, TopoModel **out, char *err,
                                   size_t errsz) {
    return cost_machine_topology(m, N, ports, out, err, errsz);
}

const TargetMachine sg_machine = {
    .load = machine_load,
    .free = free,
    .cost_params = machine_params,
    .topology = machine_topology,
    .boards = cost_machine_boards,
    .nboards = ARRAY_LEN(cost_machine_boards),
};
