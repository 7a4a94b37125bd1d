/* machine.c - the SG2260 machine model and its `key = value` file format.
 *
 * Format (docs/sg2260.md): one item per line, `#` starts a comment.
 *   name = TEXT | chips = N | link_bandwidth = GB/s | sum_bandwidth = GB/s
 *   startup_latency = us | sync_latency = us | ddr_l2_bandwidth = GB/s
 *   credit_depth = N | memory = BYTES (K/M/G/T suffixes)
 *   link A B [bandwidth=GB/s]       (ports numbered per chip in file order)
 *   ring C0 C1 ... Ck               (consecutive chips must share a link)
 *
 * The board exists once: machines/sg2260-board.machine, compiled in as
 * sg2260_board_machine_text. The default machine is that text parsed; it
 * must give every key. Any other file starts from the board: keys it leaves
 * out keep the board's values, and without `link` lines (and with the
 * board's chip count) it gets the board's links and rings. */
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
} KeyKind;

/* The keys: X(id, key, field of Sg2260Machine, kind, lo, hi, unit). */
#define MACHINE_KEYS(X)                                                     \
    X(NAME, "name", name, KEY_TEXT, 0, 0, "")                               \
    X(CHIPS, "chips", nchips, KEY_COUNT, 1, SG2260_MAX_CHIPS, "")           \
    X(LINK_BW, "link_bandwidth", link_bw_GBps, KEY_RATE, 0, 0, "GB/s per direction") \
    X(SUM_BW, "sum_bandwidth", sum_bw_GBps, KEY_RATE, 0, 0, "GB/s")         \
    X(STARTUP, "startup_latency", startup_us, KEY_LATENCY, 0, 0, "us")      \
    X(SYNC, "sync_latency", sync_us, KEY_LATENCY, 0, 0, "us")               \
    X(DDR_L2_BW, "ddr_l2_bandwidth", ddr_l2_GBps, KEY_RATE, 0, 0, "GB/s")   \
    X(CREDIT_DEPTH, "credit_depth", credit_depth, KEY_COUNT, 1, 64, "")     \
    X(MEMORY, "memory", mem_bytes, KEY_BYTES, 0, 0, "bytes")

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

/* Adds a link, assigning the next port on each end. */
static int add_link(Sg2260Machine *m, int a, int b, double bw, Sg2260Error *err, const char *file, int line) {
    if (m->nlinks >= SG2260_MAX_LINKS)
        return sg_err(err, "machine", file, line, "too many links (max %d)", SG2260_MAX_LINKS);
    if (m->nports[a] >= SG2260_MAX_PORTS || m->nports[b] >= SG2260_MAX_PORTS)
        return sg_err(err, "machine", file, line, "chip %d has more than %d ports",
                      m->nports[a] >= SG2260_MAX_PORTS ? a : b, SG2260_MAX_PORTS);
    Sg2260Link *l = &m->links[m->nlinks];
    l->a = a;
    l->b = b;
    l->bw_GBps = bw;
    l->port_a = m->nports[a]++;
    l->port_b = m->nports[b]++;
    m->port_link[a][l->port_a] = m->nlinks;
    m->port_peer[a][l->port_a] = b;
    m->port_link[b][l->port_b] = m->nlinks;
    m->port_peer[b][l->port_b] = a;
    m->nlinks++;
    return 0;
}

int sg2260_machine_port_to(const Sg2260Machine *m, int chip, int peer) {
    if (chip < 0 || chip >= m->nchips) return -1;
    for (int p = 0; p < m->nports[chip]; p++)
        if (m->port_peer[chip][p] == peer) return p;
    return -1;
}

double sg2260_machine_link_bw(const Sg2260Machine *m, int l) {
    return m->links[l].bw_GBps > 0 ? m->links[l].bw_GBps : m->link_bw_GBps;
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

typedef struct PendingLink {
    int a, b, line;
    double bw;
} PendingLink;

typedef struct PendingRing {
    int line;
    Sg2260Ring r;
} PendingRing;

/* Parses text into *m, starting from `base` (NULL: from nothing, and then
 * every key and the links must be given). */
static int parse(const char *text, const char *file, const Sg2260Machine *base, Sg2260Machine *m,
                 Sg2260Error *err) {
    if (base) {
        /* the base's keys, none of its links, ports or rings */
        *m = *base;
        m->nlinks = 0;
        memset(m->links, 0, sizeof m->links);
        memset(m->nports, 0, sizeof m->nports);
        memset(m->port_link, 0, sizeof m->port_link);
        memset(m->port_peer, 0, sizeof m->port_peer);
        m->nrings = 0;
        memset(m->rings, 0, sizeof m->rings);
    } else {
        memset(m, 0, sizeof *m);
    }
    unsigned given = 0; /* bit per key */
    PendingLink links[SG2260_MAX_LINKS];
    int nlinks = 0;
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
        int is_directive = (flen == 4 && (!strncmp(first, "link", 4) || !strncmp(first, "ring", 4)));
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
            if (k == NKEYS) return sg_err(err, "unknown-key", file, lineno, "unknown key '%s'", key);
            if (set_key(m, &machine_keys[k], vw[0], err, file, lineno)) return -1;
            given |= 1u << k;
            if (k == KEY_CHIPS) chips_line = lineno;
            continue;
        }
        int n = sg_split_words(buf, w, 40);
        if (n < 0) return sg_err(err, "syntax", file, lineno, "too many words");
        if (n == 0) continue;
        if (!strcmp(w[0], "link")) {
            uint64_t a, b;
            if (n < 3 || n > 4 || parse_chip(w[1], &a) || parse_chip(w[2], &b))
                return sg_err(err, "syntax", file, lineno,
                              "expected 'link A B [bandwidth=GB/s]' with chips 0..%d",
                              SG2260_MAX_CHIPS - 1);
            double bw = 0;
            if (n == 4 && (strncmp(w[3], "bandwidth=", 10) || sg_parse_double(w[3] + 10, &bw) ||
                           !(bw > 0)))
                return sg_err(err, "bad-value", file, lineno, "bad link attribute '%s'", w[3]);
            if (a == b) return sg_err(err, "bad-link", file, lineno, "link from chip %d to itself", (int)a);
            if (nlinks == SG2260_MAX_LINKS)
                return sg_err(err, "machine", file, lineno, "too many links (max %d)", SG2260_MAX_LINKS);
            links[nlinks++] = (PendingLink){(int)a, (int)b, lineno, bw};
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
                          "expected 'key = value', 'link A B' or 'ring ...', got '%s'", w[0]);
        }
    }
    if (!base)
        for (int k = 0; k < NKEYS; k++)
            if (!(given & (1u << k)))
                return sg_err(err, "machine", file, 0, "the board description gives no '%s'", machine_keys[k].key);
    /* Topology: given links, or the board's. */
    if (nlinks == 0) {
        if (base && m->nchips == base->nchips) {
            for (int i = 0; i < base->nlinks; i++)
                add_link(m, base->links[i].a, base->links[i].b, base->links[i].bw_GBps, NULL, "", 0);
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
        if (add_link(m, links[i].a, links[i].b, links[i].bw, err, file, links[i].line)) return -1;
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

void sg2260_machine_write(FILE *out, const Sg2260Machine *m) {
    for (int k = 0; k < NKEYS; k++) {
        const struct MachineKey *key = &machine_keys[k];
        const void *v = key_cfield(m, key);
        char val[80];
        switch (key->kind) {
        case KEY_TEXT: snprintf(val, sizeof val, "%s", (const char *)v); break;
        case KEY_COUNT: snprintf(val, sizeof val, "%d", *(const int *)v); break;
        case KEY_BYTES: snprintf(val, sizeof val, "%llu", (unsigned long long)*(const uint64_t *)v); break;
        case KEY_RATE:
        case KEY_LATENCY: snprintf(val, sizeof val, "%.17g", *(const double *)v); break;
        }
        int len = fprintf(out, "%s = %s", key->key, val);
        if (*key->unit) fprintf(out, "%*s# %s", len < 40 ? 40 - len : 1, "", key->unit);
        fputc('\n', out);
    }
    for (int i = 0; i < m->nlinks; i++) {
        fprintf(out, "link %d %d", m->links[i].a, m->links[i].b);
        if (m->links[i].bw_GBps > 0) fprintf(out, " bandwidth=%.17g", m->links[i].bw_GBps);
        fputc('\n', out);
    }
    for (int i = 0; i < m->nrings; i++) {
        fputs("ring", out);
        for (int k = 0; k < m->rings[i].len; k++) fprintf(out, " %d", m->rings[i].chips[k]);
        fputc('\n', out);
    }
}
