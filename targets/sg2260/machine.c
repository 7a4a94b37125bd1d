/* machine.c - the SG2260 machine model and its `key = value` file format.
 *
 * Format (docs/sg2260.md): one item per line, `#` starts a comment.
 *   name = TEXT | chips = N | link_bandwidth = GB/s | sum_bandwidth = GB/s
 *   startup_latency = us | sync_latency = us | ddr_l2_bandwidth = GB/s
 *   credit_depth = N | memory = BYTES (K/M/G/T suffixes)
 *   link A B [bandwidth=GB/s]       (ports numbered per chip in file order)
 *   ring C0 C1 ... Ck               (consecutive chips must share a link)
 * Everything not given keeps the documented default. */
#include <ctype.h>
#include <string.h>

#include "internal.h"

/* SC11 board (docs/references.md [SG-pub]): the 8-ring plus chords 0-1 and 2-3. */
static const int board_links[][2] = {{0, 2}, {2, 6}, {6, 7}, {7, 3}, {3, 1},
                                     {1, 5}, {5, 4}, {4, 0}, {0, 1}, {2, 3}};
static const int board_ring8[] = {0, 2, 6, 7, 3, 1, 5, 4};
static const int board_ring4[3][4] = {{7, 6, 2, 3}, {1, 0, 2, 3}, {1, 0, 4, 5}};

static void set_scalars_default(Sg2260Machine *m) {
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "sg2260-board");
    m->nchips = 8;
    m->link_bw_GBps = 64.0;
    m->sum_bw_GBps = 512.0;
    m->startup_us = 0.25;
    m->sync_us = 0.3;
    m->ddr_l2_GBps = 128.0;
    m->credit_depth = 2;
    m->mem_bytes = UINT64_C(1) << SG2260_ADDR_BITS;
}

/* Adds a link, assigning the next port on each end. */
static int add_link(Sg2260Machine *m, int a, int b, double bw, Sg2260Error *err,
                    const char *file, int line) {
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

void sg2260_machine_default(Sg2260Machine *m) {
    set_scalars_default(m);
    for (size_t i = 0; i < sizeof board_links / sizeof board_links[0]; i++)
        add_link(m, board_links[i][0], board_links[i][1], 0.0, NULL, "", 0);
    m->nrings = 4;
    m->rings[0].len = 8;
    memcpy(m->rings[0].chips, board_ring8, sizeof board_ring8);
    for (int r = 0; r < 3; r++) {
        m->rings[r + 1].len = 4;
        memcpy(m->rings[r + 1].chips, board_ring4[r], sizeof board_ring4[r]);
    }
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

/* Splits a line into whitespace-separated words (in place). */
static int split_words(char *s, char **w, int max) {
    int n = 0;
    while (*s) {
        while (isspace((unsigned char)*s)) s++;
        if (!*s) break;
        if (n == max) return -1;
        w[n++] = s;
        while (*s && !isspace((unsigned char)*s)) s++;
        if (*s) *s++ = 0;
    }
    return n;
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

int sg2260_machine_parse(const char *text, const char *file, Sg2260Machine *m,
                         Sg2260Error *err) {
    set_scalars_default(m);
    PendingLink links[SG2260_MAX_LINKS];
    int nlinks = 0;
    PendingRing rings[SG2260_MAX_RINGS];
    int nrings = 0;
    int chips_line = 0;
    int lineno = 0;
    const char *p = text;
    while (*p) {
        lineno++;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char buf[1024];
        if (len >= sizeof buf)
            return sg_err(err, "syntax", file, lineno, "line too long");
        memcpy(buf, p, len);
        buf[len] = 0;
        p = eol ? eol + 1 : p + len;
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
            int nk = split_words(buf, w, 2);
            if (nk != 1) return sg_err(err, "syntax", file, lineno, "expected 'key = value'");
            char *key = w[0];
            char *vw[2];
            int nv = split_words(eq + 1, vw, 2);
            if (nv != 1)
                return sg_err(err, "syntax", file, lineno, "expected one value for '%s'", key);
            const char *val = vw[0];
            double d;
            uint64_t u;
            if (!strcmp(key, "name")) {
                snprintf(m->name, sizeof m->name, "%s", val);
            } else if (!strcmp(key, "chips")) {
                if (sg_parse_u64(val, &u) || u < 1 || u > SG2260_MAX_CHIPS)
                    return sg_err(err, "bad-value", file, lineno,
                                  "chips must be 1..%d, got '%s'", SG2260_MAX_CHIPS, val);
                m->nchips = (int)u;
                chips_line = lineno;
            } else if (!strcmp(key, "credit_depth")) {
                if (sg_parse_u64(val, &u) || u < 1 || u > 64)
                    return sg_err(err, "bad-value", file, lineno,
                                  "credit_depth must be 1..64, got '%s'", val);
                m->credit_depth = (int)u;
            } else if (!strcmp(key, "memory")) {
                if (sg_parse_u64(val, &u) || u == 0 || u > (UINT64_C(1) << SG2260_ADDR_BITS))
                    return sg_err(err, "bad-value", file, lineno,
                                  "memory must be 1..2^40 bytes, got '%s'", val);
                m->mem_bytes = u;
            } else {
                double *dst = NULL;
                int latency = 0;
                if (!strcmp(key, "link_bandwidth")) dst = &m->link_bw_GBps;
                else if (!strcmp(key, "sum_bandwidth")) dst = &m->sum_bw_GBps;
                else if (!strcmp(key, "ddr_l2_bandwidth")) dst = &m->ddr_l2_GBps;
                else if (!strcmp(key, "startup_latency")) dst = &m->startup_us, latency = 1;
                else if (!strcmp(key, "sync_latency")) dst = &m->sync_us, latency = 1;
                else
                    return sg_err(err, "unknown-key", file, lineno, "unknown key '%s'", key);
                if (sg_parse_double(val, &d) || (latency ? d < 0 : d <= 0) || d != d)
                    return sg_err(err, "bad-value", file, lineno,
                                  "%s must be a %s number, got '%s'", key,
                                  latency ? "non-negative" : "positive", val);
                *dst = d;
            }
            continue;
        }
        int n = split_words(buf, w, 40);
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
    /* Topology: given links, or the board's. */
    if (nlinks == 0) {
        if (m->nchips == 8) {
            for (size_t i = 0; i < sizeof board_links / sizeof board_links[0]; i++)
                add_link(m, board_links[i][0], board_links[i][1], 0.0, NULL, "", 0);
            if (nrings == 0) {
                Sg2260Machine d;
                sg2260_machine_default(&d);
                m->nrings = d.nrings;
                memcpy(m->rings, d.rings, sizeof d.rings);
            }
        } else if (m->nchips > 1) {
            return sg_err(err, "no-links", file, chips_line,
                          "%d chips but no 'link' lines (the default board has 8)", m->nchips);
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

int sg2260_machine_load(const char *path, Sg2260Machine *m, Sg2260Error *err) {
    char *text = sg_read_file(path, NULL);
    if (!text) return sg_err(err, "io", path, 0, "cannot read machine file");
    int rc = sg2260_machine_parse(text, path, m, err);
    free(text);
    return rc;
}

void sg2260_machine_write(FILE *out, const Sg2260Machine *m) {
    fprintf(out, "name = %s\n", m->name);
    fprintf(out, "chips = %d\n", m->nchips);
    fprintf(out, "link_bandwidth = %.17g     # GB/s per direction\n", m->link_bw_GBps);
    fprintf(out, "sum_bandwidth = %.17g      # GB/s\n", m->sum_bw_GBps);
    fprintf(out, "startup_latency = %.17g   # us\n", m->startup_us);
    fprintf(out, "sync_latency = %.17g      # us\n", m->sync_us);
    fprintf(out, "ddr_l2_bandwidth = %.17g   # GB/s\n", m->ddr_l2_GBps);
    fprintf(out, "credit_depth = %d\n", m->credit_depth);
    fprintf(out, "memory = %llu\n", (unsigned long long)m->mem_bytes);
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
