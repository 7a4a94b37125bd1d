/* machine.c - the SG2260 machine model and its `key = value` file format.
 *
 * Format (docs/sg2260.md section 1): one item per line, `#` starts a comment.
 *   name = TEXT | chips = N | link_bandwidth = GB/s | cdma_bandwidth = GB/s
 *   sum_bandwidth = GB/s | startup_latency = us | sync_latency = us
 *   ddr_l2_bandwidth = GB/s | credit_depth = N | cores = N
 *   write_reduce = 0|1 | reduce_to_ddr = 0|1 | memory = BYTES | l2_memory = BYTES
 *   link A[:PA] B[:PB] [bandwidth=GB/s]   (physical ports; default: the
 *                                          chip's lowest free port)
 *   send A B port=P                      (A sends to B on its port P)
 *   ring C0 C1 ... Ck                    (consecutive chips must share a link)
 *
 * The board exists once: machines/sg2260-board.machine, compiled in as
 * sg2260_board_machine_text. The default machine is that text parsed; it
 * must give every key. Any other file starts from the board: keys it leaves
 * out keep the board's values, and without `link` lines (and with the
 * board's chip count) it gets the board's links, send ports and rings. */
#include <stddef.h>
#include <string.h>

#include "internal.h"

/* How a key's value is read and written. */
typedef enum KeyKind {
    KEY_TEXT,    /* char[64] */
    KEY_COUNT,   /* int in lo..hi */
    KEY_BYTES,   /* uint64_t in 1..2^40, K/M/G/T suffixes */
    KEY_RATE,    /* double > 0, GB/s */
    KEY_LATENCY, /* double >= 0, us */
    KEY_FLAG,    /* int 0 or 1 */
} KeyKind;

/* The keys: X(id, key, field of Sg2260Machine, kind, lo, hi, unit). */
#define MACHINE_KEYS(X)                                                     \
    X(NAME, "name", name, KEY_TEXT, 0, 0, "")                               \
    X(CHIPS, "chips", nchips, KEY_COUNT, 1, SG2260_MAX_CHIPS, "")           \
    X(LINK_BW, "link_bandwidth", link_bw_GBps, KEY_RATE, 0, 0, "GB/s per direction") \
    X(CDMA_BW, "cdma_bandwidth", cdma_bw_GBps, KEY_RATE, 0, 0, "GB/s, one CDMA engine") \
    X(SUM_BW, "sum_bandwidth", sum_bw_GBps, KEY_RATE, 0, 0, "GB/s")         \
    X(STARTUP, "startup_latency", startup_us, KEY_LATENCY, 0, 0, "us")      \
    X(SYNC, "sync_latency", sync_us, KEY_LATENCY, 0, 0, "us")               \
    X(DDR_L2_BW, "ddr_l2_bandwidth", ddr_l2_GBps, KEY_RATE, 0, 0, "GB/s")   \
    X(CREDIT_DEPTH, "credit_depth", credit_depth, KEY_COUNT, 1, 64, "")     \
    X(CORES, "cores", cores, KEY_COUNT, 1, SG2260_MAX_CORES, "TPU cores (VSDMA engines)") \
    X(WRITE_REDUCE, "write_reduce", write_reduce, KEY_FLAG, 0, 1, "WRITE/READ may reduce") \
    X(REDUCE_TO_DDR, "reduce_to_ddr", reduce_to_ddr, KEY_FLAG, 0, 1, "CDMA reductions may target DDR") \
    X(MEMORY, "memory", mem_bytes, KEY_BYTES, 0, 0, "bytes of DDR")         \
    X(L2_MEMORY, "l2_memory", l2_bytes, KEY_BYTES, 0, 0, "bytes of L2 SRAM")

enum {
#define X(id, key, field, kind, lo, hi, unit) KEY_##id,
    MACHINE_KEYS(X)
#undef X
    NKEYS
};

static const struct MachineKey {
    const char *key;
    size_t off;  /* of the field in Sg2260Machine */
    KeyKind kind;
    int lo, hi;  /* KEY_COUNT */
    const char *unit;
} machine_keys[NKEYS] = {
#define X(id, key, field, kind, lo, hi, unit) {key, offsetof(Sg2260Machine, field), kind, lo, hi, unit},
    MACHINE_KEYS(X)
#undef X
};

const char *sg2260_machine_key(int k) { return k >= 0 && k < NKEYS ? machine_keys[k].key : NULL; }

static void *key_field(Sg2260Machine *m, const struct MachineKey *k) { return (char *)m + k->off; }
static const void *key_cfield(const Sg2260Machine *m, const struct MachineKey *k) {
    return (const char *)m + k->off;
}

/* Reads `val` into key k's field of m; -1 with *err on a bad value. */
static int set_key(Sg2260Machine *m, const struct MachineKey *k, const char *val, Sg2260Error *err,
                   const char *file, int line) {
    uint64_t u;
    double d;
    switch (k->kind) {
    case KEY_TEXT:
        snprintf((char *)key_field(m, k), sizeof m->name, "%s", val);
        return 0;
    case KEY_COUNT:
    case KEY_FLAG:
        if (sg_parse_u64(val, &u) || u < (uint64_t)k->lo || u > (uint64_t)k->hi)
            return sg_err(err, "bad-value", file, line, "%s must be %d..%d, got '%s'", k->key, k->lo, k->hi, val);
        *(int *)key_field(m, k) = (int)u;
        return 0;
    case KEY_BYTES:
        if (sg_parse_u64(val, &u) || u == 0 || u > (UINT64_C(1) << SG2260_ADDR_BITS))
            return sg_err(err, "bad-value", file, line, "%s must be 1..2^%d bytes, got '%s'", k->key,
                          SG2260_ADDR_BITS, val);
        *(uint64_t *)key_field(m, k) = u;
        return 0;
    case KEY_RATE:
    case KEY_LATENCY: {
        int latency = k->kind == KEY_LATENCY;
        if (sg_parse_double(val, &d) || (latency ? d < 0 : d <= 0) || d != d)
            return sg_err(err, "bad-value", file, line, "%s must be a %s number, got '%s'", k->key,
                          latency ? "non-negative" : "positive", val);
        *(double *)key_field(m, k) = d;
        return 0;
    }
    }
    return sg_err(err, "machine", file, line, "key '%s' of an unknown kind", k->key);
}

/* Clears the topology (links, ports, send ports, rings) of m. */
static void clear_topology(Sg2260Machine *m) {
    m->nlinks = 0;
    memset(m->links, 0, sizeof m->links);
    memset(m->port_link, 0xff, sizeof m->port_link); /* -1 */
    memset(m->send_port, 0xff, sizeof m->send_port);
    m->nrings = 0;
    memset(m->rings, 0, sizeof m->rings);
}

/* The lowest port of chip c without a link, or -1. */
static int free_port(const Sg2260Machine *m, int c) {
    for (int p = 0; p < SG2260_MAX_PORTS; p++)
        if (m->port_link[c][p] < 0) return p;
    return -1;
}

/* Adds a link between chip a's port pa and chip b's port pb (-1: the
 * chip's lowest free port). */
static int add_link(Sg2260Machine *m, int a, int pa, int b, int pb, double bw, Sg2260Error *err, const char *file,
                    int line) {
    if (m->nlinks >= SG2260_MAX_LINKS)
        return sg_err(err, "machine", file, line, "too many links (max %d)", SG2260_MAX_LINKS);
    if (pa < 0) pa = free_port(m, a);
    if (pa < 0) return sg_err(err, "machine", file, line, "chip %d has no free port (it has %d)", a, SG2260_MAX_PORTS);
    if (m->port_link[a][pa] >= 0)
        return sg_err(err, "bad-link", file, line, "port %d of chip %d already has a link", pa, a);
    m->port_link[a][pa] = m->nlinks; /* before b's port: a link from a chip to itself is rejected earlier */
    if (pb < 0) pb = free_port(m, b);
    if (pb < 0 || m->port_link[b][pb] >= 0) {
        m->port_link[a][pa] = -1;
        if (pb < 0)
            return sg_err(err, "machine", file, line, "chip %d has no free port (it has %d)", b, SG2260_MAX_PORTS);
        return sg_err(err, "bad-link", file, line, "port %d of chip %d already has a link", pb, b);
    }
    m->port_link[b][pb] = m->nlinks;
    m->links[m->nlinks++] = (Sg2260Link){a, b, pa, pb, bw};
    /* the first link between two chips carries their messages by default */
    if (m->send_port[a][b] < 0) m->send_port[a][b] = pa;
    if (m->send_port[b][a] < 0) m->send_port[b][a] = pb;
    return 0;
}

int sg2260_machine_port_to(const Sg2260Machine *m, int chip, int peer) {
    if (chip < 0 || chip >= m->nchips || peer < 0 || peer >= m->nchips) return -1;
    return m->send_port[chip][peer];
}

int sg2260_machine_port_peer(const Sg2260Machine *m, int chip, int port) {
    if (chip < 0 || chip >= m->nchips || port < 0 || port >= SG2260_MAX_PORTS || m->port_link[chip][port] < 0)
        return -1;
    const Sg2260Link *l = &m->links[m->port_link[chip][port]];
    return l->a == chip && l->port_a == port ? l->b : l->a;
}

int sg2260_machine_recv_port(const Sg2260Machine *m, int chip, int peer) {
    int p = sg2260_machine_port_to(m, peer, chip);
    if (p < 0) return -1;
    const Sg2260Link *l = &m->links[m->port_link[peer][p]];
    return l->a == peer && l->port_a == p ? l->port_b : l->port_a;
}

int sg2260_machine_links_between(const Sg2260Machine *m, int a, int b, int *links, int max) {
    int n = 0;
    for (int l = 0; l < m->nlinks && n < max; l++)
        if ((m->links[l].a == a && m->links[l].b == b) || (m->links[l].a == b && m->links[l].b == a)) links[n++] = l;
    return n;
}

double sg2260_machine_link_bw(const Sg2260Machine *m, int l) {
    return m->links[l].bw_GBps > 0 ? m->links[l].bw_GBps : m->link_bw_GBps;
}

double sg2260_machine_link_rate(const Sg2260Machine *m, int l) {
    double bw = sg2260_machine_link_bw(m, l);
    return bw < m->cdma_bw_GBps ? bw : m->cdma_bw_GBps;
}

int sg2260_machine_place(const Sg2260Machine *m, int N, int *chips) {
    if (N < 1 || N > m->nchips) return -1;
    for (int k = 0; k < m->nrings; k++)
        if (m->rings[k].len == N) {
            memcpy(chips, m->rings[k].chips, (size_t)N * sizeof *chips);
            return 0;
        }
    if (N <= 2 && m->nrings > 0 && m->rings[0].len >= 2) { /* an adjacent pair (or one chip) */
        memcpy(chips, m->rings[0].chips, (size_t)N * sizeof *chips);
        return 0;
    }
    if (N <= 2 && m->nlinks > 0) {
        chips[0] = m->links[0].a;
        chips[1] = m->links[0].b;
        return 0;
    }
    if (N == m->nchips) {
        for (int r = 0; r < N; r++) chips[r] = r;
        return 0;
    }
    return -1;
}

static int parse_chip(const char *s, uint64_t *v) {
    return sg_parse_u64(s, v) == 0 && *v < SG2260_MAX_CHIPS ? 0 : -1;
}

/* "C" or "C:P" */
static int parse_chip_port(const char *s, int *chip, int *port) {
    char buf[32];
    snprintf(buf, sizeof buf, "%s", s);
    char *colon = strchr(buf, ':');
    uint64_t c, p;
    *port = -1;
    if (colon) {
        *colon = 0;
        if (sg_parse_u64(colon + 1, &p) || p >= SG2260_MAX_PORTS) return -1;
        *port = (int)p;
    }
    if (parse_chip(buf, &c)) return -1;
    *chip = (int)c;
    return 0;
}

typedef struct PendingLink {
    int a, pa, b, pb, line;
    double bw;
} PendingLink;

typedef struct PendingSend {
    int a, b, port, line;
} PendingSend;

typedef struct PendingRing {
    int line;
    Sg2260Ring r;
} PendingRing;

/* Parses text into *m, starting from `base` (NULL: from nothing, and then
 * every key and the links must be given). */
static int parse(const char *text, const char *file, const Sg2260Machine *base, Sg2260Machine *m,
                 Sg2260Error *err) {
    if (base) *m = *base; /* the base's keys; its topology is added below if the file has none */
    else memset(m, 0, sizeof *m);
    clear_topology(m);
    unsigned given = 0; /* bit per key */
    PendingLink links[SG2260_MAX_LINKS];
    int nlinks = 0;
    PendingSend sends[SG2260_MAX_CHIPS * SG2260_MAX_CHIPS];
    int nsends = 0;
    PendingRing rings[SG2260_MAX_RINGS];
    int nrings = 0;
    int chips_line = 0;
    int lineno = 0;
    const char *p = text, *line;
    size_t len;
    while (sg_next_line(&p, &line, &len)) {
        lineno++;
        char buf[1024];
        if (len >= sizeof buf) return sg_err(err, "syntax", file, lineno, "line too long");
        memcpy(buf, line, len);
        buf[len] = 0;
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        char *eq = strchr(buf, '=');
        char *w[40];
        const char *first = buf + strspn(buf, " \t");
        size_t flen = strcspn(first, " \t=");
        int is_directive = (flen == 4 && (!strncmp(first, "link", 4) || !strncmp(first, "ring", 4) ||
                                          !strncmp(first, "send", 4)));
        if (eq && !is_directive) {
            /* key = value */
            *eq = 0;
            int nk = sg_split_words(buf, w, 2);
            if (nk != 1) return sg_err(err, "syntax", file, lineno, "expected 'key = value'");
            char *key = w[0];
            char *vw[2];
            int nv = sg_split_words(eq + 1, vw, 2);
            if (nv != 1)
                return sg_err(err, "syntax", file, lineno, "expected one value for '%s'", key);
            int k = 0;
            while (k < NKEYS && strcmp(key, machine_keys[k].key)) k++;
            if (k == NKEYS) {
                sg_err(err, "unknown-key", file, lineno, "unknown key '%s'", key);
                if (err) snprintf(err->word, sizeof err->word, "%s", key);
                return -1;
            }
            if (set_key(m, &machine_keys[k], vw[0], err, file, lineno)) return -1;
            given |= 1u << k;
            if (k == KEY_CHIPS) chips_line = lineno;
            continue;
        }
        int n = sg_split_words(buf, w, 40);
        if (n < 0) return sg_err(err, "syntax", file, lineno, "too many words");
        if (n == 0) continue;
        if (!strcmp(w[0], "link")) {
            int a, pa, b, pb;
            if (n < 3 || n > 4 || parse_chip_port(w[1], &a, &pa) || parse_chip_port(w[2], &b, &pb))
                return sg_err(err, "syntax", file, lineno,
                              "expected 'link A[:PORT] B[:PORT] [bandwidth=GB/s]' with chips 0..%d and ports 0..%d",
                              SG2260_MAX_CHIPS - 1, SG2260_MAX_PORTS - 1);
            double bw = 0;
            if (n == 4 && (strncmp(w[3], "bandwidth=", 10) || sg_parse_double(w[3] + 10, &bw) ||
                           !(bw > 0)))
                return sg_err(err, "bad-value", file, lineno, "bad link attribute '%s'", w[3]);
            if (a == b) return sg_err(err, "bad-link", file, lineno, "link from chip %d to itself", a);
            if (nlinks == SG2260_MAX_LINKS)
                return sg_err(err, "machine", file, lineno, "too many links (max %d)", SG2260_MAX_LINKS);
            links[nlinks++] = (PendingLink){a, pa, b, pb, lineno, bw};
        } else if (!strcmp(w[0], "send")) {
            uint64_t a, b, port;
            if (n != 4 || parse_chip(w[1], &a) || parse_chip(w[2], &b) || strncmp(w[3], "port=", 5) ||
                sg_parse_u64(w[3] + 5, &port) || port >= SG2260_MAX_PORTS)
                return sg_err(err, "syntax", file, lineno, "expected 'send A B port=P'");
            sends[nsends++] = (PendingSend){(int)a, (int)b, (int)port, lineno};
        } else if (!strcmp(w[0], "ring")) {
            if (n < 3 || n - 1 > SG2260_MAX_CHIPS)
                return sg_err(err, "syntax", file, lineno, "expected 'ring C0 C1 ...' (2..%d chips)",
                              SG2260_MAX_CHIPS);
            if (nrings == SG2260_MAX_RINGS)
                return sg_err(err, "machine", file, lineno, "too many rings (max %d)", SG2260_MAX_RINGS);
            PendingRing *r = &rings[nrings++];
            memset(r, 0, sizeof *r);
            r->line = lineno;
            r->r.len = n - 1;
            for (int i = 1; i < n; i++) {
                uint64_t c;
                if (parse_chip(w[i], &c))
                    return sg_err(err, "syntax", file, lineno, "bad chip id '%s'", w[i]);
                r->r.chips[i - 1] = (int)c;
            }
        } else {
            return sg_err(err, "syntax", file, lineno,
                          "expected 'key = value', 'link A B', 'send A B port=P' or 'ring ...', got '%s'", w[0]);
        }
    }
    if (!base)
        for (int k = 0; k < NKEYS; k++)
            if (!(given & (1u << k)))
                return sg_err(err, "machine", file, 0, "the board description gives no '%s'", machine_keys[k].key);
    /* Topology: given links, or the board's. */
    if (nlinks == 0) {
        if (base && m->nchips == base->nchips) {
            m->nlinks = base->nlinks;
            memcpy(m->links, base->links, sizeof m->links);
            memcpy(m->port_link, base->port_link, sizeof m->port_link);
            memcpy(m->send_port, base->send_port, sizeof m->send_port);
            if (nrings == 0) {
                m->nrings = base->nrings;
                memcpy(m->rings, base->rings, sizeof base->rings);
            }
        } else if (m->nchips > 1) {
            if (base)
                return sg_err(err, "no-links", file, chips_line,
                              "%d chips but no 'link' lines (the default board has %d)", m->nchips, base->nchips);
            return sg_err(err, "no-links", file, chips_line, "%d chips but no 'link' lines", m->nchips);
        }
    }
    for (int i = 0; i < nlinks; i++) {
        if (links[i].a >= m->nchips || links[i].b >= m->nchips)
            return sg_err(err, "bad-link", file, links[i].line, "link %d-%d names a chip >= chips (%d)",
                          links[i].a, links[i].b, m->nchips);
        if (add_link(m, links[i].a, links[i].pa, links[i].b, links[i].pb, links[i].bw, err, file, links[i].line))
            return -1;
    }
    for (int i = 0; i < nsends; i++) {
        const PendingSend *sd = &sends[i];
        if (sd->a >= m->nchips || sd->b >= m->nchips || sg2260_machine_port_peer(m, sd->a, sd->port) != sd->b)
            return sg_err(err, "bad-link", file, sd->line, "chip %d has no link to chip %d on port %d", sd->a, sd->b,
                          sd->port);
        m->send_port[sd->a][sd->b] = sd->port;
    }
    for (int i = 0; i < nrings; i++) {
        Sg2260Ring *r = &rings[i].r;
        unsigned seen = 0;
        for (int k = 0; k < r->len; k++) {
            int c = r->chips[k], nx = r->chips[(k + 1) % r->len];
            if (c >= m->nchips)
                return sg_err(err, "bad-ring", file, rings[i].line, "ring names chip %d >= chips (%d)",
                              c, m->nchips);
            if (seen & (1u << c))
                return sg_err(err, "bad-ring", file, rings[i].line, "ring visits chip %d twice", c);
            seen |= 1u << c;
            if (nx < m->nchips && sg2260_machine_port_to(m, c, nx) < 0)
                return sg_err(err, "bad-ring", file, rings[i].line,
                              "ring step %d -> %d has no link", c, nx);
        }
        m->rings[m->nrings++] = *r;
    }
    return 0;
}

void sg2260_machine_default(Sg2260Machine *m) {
    Sg2260Error err;
    if (parse(sg2260_board_machine_text, "sg2260-board.machine", NULL, m, &err)) {
        /* the shipped board file is part of the build: a broken one is a bug */
        fputs("sg2260: the built-in board does not parse: ", stderr);
        sg2260_error_print(stderr, &err);
        abort();
    }
}

int sg2260_machine_parse(const char *text, const char *file, Sg2260Machine *m, Sg2260Error *err) {
    Sg2260Machine board;
    sg2260_machine_default(&board);
    return parse(text, file, &board, m, err);
}

int sg2260_machine_load(const char *name_or_path, Sg2260Machine *m, Sg2260Error *err) {
    char path[4096];
    if (sg2260_machine_find(name_or_path, path, sizeof path, err)) return -1;
    char *text = sg_read_file(path, NULL);
    if (!text) return sg_err(err, "io", path, 0, "cannot read machine file");
    int rc = sg2260_machine_parse(text, path, m, err);
    free(text);
    return rc;
}

/* The shortest %g form of v that reads back as v (22.4, not 22.399999999999999). */
static void format_number(char *buf, size_t n, double v) {
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

void sg2260_machine_write(FILE *out, const Sg2260Machine *m) {
    for (int k = 0; k < NKEYS; k++) {
        const struct MachineKey *key = &machine_keys[k];
        const void *v = key_cfield(m, key);
        char val[80];
        switch (key->kind) {
        case KEY_TEXT: snprintf(val, sizeof val, "%s", (const char *)v); break;
        case KEY_COUNT:
        case KEY_FLAG: snprintf(val, sizeof val, "%d", *(const int *)v); break;
        case KEY_BYTES: snprintf(val, sizeof val, "%llu", (unsigned long long)*(const uint64_t *)v); break;
        case KEY_RATE:
        case KEY_LATENCY: format_number(val, sizeof val, *(const double *)v); break;
        }
        int len = fprintf(out, "%s = %s", key->key, val);
        if (*key->unit) fprintf(out, "%*s# %s", len < 40 ? 40 - len : 1, "", key->unit);
        fputc('\n', out);
    }
    for (int i = 0; i < m->nlinks; i++) {
        const Sg2260Link *l = &m->links[i];
        fprintf(out, "link %d:%d %d:%d", l->a, l->port_a, l->b, l->port_b);
        if (l->bw_GBps > 0) {
            char bw[40];
            format_number(bw, sizeof bw, l->bw_GBps);
            fprintf(out, " bandwidth=%s", bw);
        }
        fputc('\n', out);
    }
    /* send ports that are not the first link's */
    for (int a = 0; a < m->nchips; a++)
        for (int b = 0; b < m->nchips; b++) {
            int ls[SG2260_MAX_LINKS];
            if (m->send_port[a][b] < 0 || sg2260_machine_links_between(m, a, b, ls, SG2260_MAX_LINKS) < 2) continue;
            const Sg2260Link *l = &m->links[ls[0]];
            int first = l->a == a ? l->port_a : l->port_b;
            if (m->send_port[a][b] != first) fprintf(out, "send %d %d port=%d\n", a, b, m->send_port[a][b]);
        }
    for (int i = 0; i < m->nrings; i++) {
        fputs("ring", out);
        for (int k = 0; k < m->rings[i].len; k++) fprintf(out, " %d", m->rings[i].chips[k]);
        fputc('\n', out);
    }
}
