/* cmd_calibrate.c - `collc calibrate PROBE-OUTPUT [-o FILE]`: the
 * measurements of collc-probe (targets/mpi/probe.c, run under the job's
 * mpirun) fitted into a cluster machine file (machine.h), which the cost
 * commands read with --machine (docs/cluster.md section 3).
 *
 * The fit, per level (within a node, between nodes), on the median of each
 * size's samples:
 *   β  1 / the least-squares slope of time over size (a line with its
 *      own intercept), on the sizes from 1 MiB up (or the two largest,
 *      when the probe stopped below): the time each further byte costs,
 *      whatever the small messages took; its spread from the lowest and
 *      highest sample of the largest size (the slope from the fit's centre
 *      to that sample);
 *   α  the lowest, over the sizes up to 1 KiB, of the median one-way time
 *      less its bytes' time at β; its spread the same of that size's
 *      lowest and highest sample;
 *   γ  per reduce row, bytes / median time; spread bytes / highest and
 *      bytes / lowest sample. */
#include "driver/command.h"
#include "driver/mpi/machine.h"
#include "driver/mpi/text_lines.h"
#include "support/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_VERSION 1
#define PROBE_MAX_SIZES 64
#define PROBE_MAX_SAMPLES 1000
#define FIT_FROM_BYTES ((double)(1 << 20))
#define ALPHA_UP_TO_BYTES 1024.0

/* The samples of one size (or one reduction). */
typedef struct Series {
    double bytes;
    double t[PROBE_MAX_SAMPLES];
    int n;
    double median;
} Series;

typedef struct Level {
    Series s[PROBE_MAX_SIZES];
    int n;
    Span span; /* its first line */
} Level;

typedef struct Probe {
    int have_version, have_end, have_shape;
    int64_t ranks, nodes, ppn;
    Level intra, inter;
    Series reduce[CLUSTER_MAX_REDUCE];
    char rdtype[CLUSTER_MAX_REDUCE][16], rop[CLUSTER_MAX_REDUCE][16];
    int nreduce;
} Probe;

/* Word k as a number above 0 (a size or a time). */
static int word_number(Session *s, const Line *l, int k, const char *what, double *out) {
    char buf[64];
    if (k >= l->n) {
        diag_error(s->dx, word_span(l, k), "probe-syntax", "expected %s", what);
        return -1;
    }
    word_copy(l, k, buf, sizeof buf);
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end || errno || !isfinite(v) || !(v > 0)) {
        diag_error(s->dx, word_span(l, k), "probe-syntax", "expected %s (a number above 0), got '%s'", what, buf);
        return -1;
    }
    *out = v;
    return 0;
}

/* Words k.. as the samples of series out. */
static int read_samples(Session *s, const Line *l, int k, Series *out) {
    out->n = 0;
    if (k >= l->n) {
        diag_error(s->dx, word_span(l, k), "probe-syntax", "expected at least one time in seconds");
        return -1;
    }
    for (; k < l->n; k++)
        if (word_number(s, l, k, "a time in seconds", &out->t[out->n++]) != 0) return -1;
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the samples and sets the median. */
static void settle(Series *s) {
    qsort(s->t, (size_t)s->n, sizeof s->t[0], cmp_double);
    s->median = s->n % 2 ? s->t[s->n / 2] : (s->t[s->n / 2 - 1] + s->t[s->n / 2]) / 2;
}

/* `shape ranks=R nodes=K ppn=P` */
static int read_shape(Session *s, const Line *l, Probe *p) {
    static const char *const keys[] = {"ranks=", "nodes=", "ppn="};
    int64_t *vals[] = {&p->ranks, &p->nodes, &p->ppn};
    for (int k = 0; k < 3; k++) {
        char buf[64];
        if (k + 1 < l->n) word_copy(l, k + 1, buf, sizeof buf);
        size_t kl = strlen(keys[k]);
        char *end = NULL;
        long long v = k + 1 < l->n && strncmp(buf, keys[k], kl) == 0 ? strtoll(buf + kl, &end, 10) : 0;
        if (!end || *end || v < 1) {
            if (k == 2 && end && *end == '.')
                diag_error(s->dx, word_span(l, k + 1), "probe-shape",
                           "the nodes have different numbers of ranks; calibrate a job with the same number on every node");
            else
                diag_error(s->dx, word_span(l, k + 1), "probe-syntax", "expected '%sN'", keys[k]);
            return -1;
        }
        *vals[k] = v;
    }
    p->have_shape = 1;
    return 0;
}

static int read_line(Session *s, const Line *l, Probe *p) {
    if (word_is(l, 0, "collc-probe") && l->n == 2) {
        if (!word_is(l, 1, "1")) {
            diag_error(s->dx, word_span(l, 1), "probe-version",
                       "collc-probe output of an unknown version (this collc reads version %d)", PROBE_VERSION);
            return -1;
        }
        p->have_version = 1;
        return 0;
    }
    if (!p->have_version) {
        diag_error(s->dx, word_span(l, 0), "probe-syntax", "expected the line 'collc-probe %d' first", PROBE_VERSION);
        return -1;
    }
    if (word_is(l, 0, "shape")) return read_shape(s, l, p);
    if (word_is(l, 0, "end") && l->n == 1) {
        p->have_end = 1;
        return 0;
    }
    if (word_is(l, 0, "pingpong")) {
        Level *lv = word_is(l, 1, "intra") ? &p->intra : word_is(l, 1, "inter") ? &p->inter : NULL;
        if (!lv) {
            diag_error(s->dx, word_span(l, 1), "probe-syntax", "expected 'intra' or 'inter'");
            return -1;
        }
        if (lv->n == PROBE_MAX_SIZES) {
            diag_error(s->dx, word_span(l, 0), "probe-syntax", "more than %d sizes", PROBE_MAX_SIZES);
            return -1;
        }
        Series *se = &lv->s[lv->n];
        if (word_number(s, l, 2, "a message size in bytes", &se->bytes) != 0) return -1;
        if (lv->n > 0 && se->bytes <= lv->s[lv->n - 1].bytes) {
            diag_error(s->dx, word_span(l, 2), "probe-syntax", "message sizes must grow from line to line");
            return -1;
        }
        if (read_samples(s, l, 3, se) != 0) return -1;
        if (lv->n == 0) lv->span = word_span(l, 0);
        lv->n++;
        return 0;
    }
    if (word_is(l, 0, "reduce")) {
        if (p->nreduce == CLUSTER_MAX_REDUCE) {
            diag_error(s->dx, word_span(l, 0), "probe-syntax", "more than %d reduce lines", CLUSTER_MAX_REDUCE);
            return -1;
        }
        if (l->n < 3) {
            diag_error(s->dx, word_span(l, l->n), "probe-syntax", "expected 'reduce DTYPE OP BYTES TIME...'");
            return -1;
        }
        int k = p->nreduce;
        word_copy(l, 1, p->rdtype[k], sizeof p->rdtype[k]);
        word_copy(l, 2, p->rop[k], sizeof p->rop[k]);
        if (word_number(s, l, 3, "a size in bytes", &p->reduce[k].bytes) != 0) return -1;
        if (read_samples(s, l, 4, &p->reduce[k]) != 0) return -1;
        p->nreduce++;
        return 0;
    }
    diag_error(s->dx, word_span(l, 0), "probe-syntax", "expected a line of collc-probe (pingpong, reduce, shape, end)");
    return -1;
}

/* Splits a line into words; more than fit is an error. */
static int read_probe(Session *s, uint32_t file, Probe *p) {
    const SourceFile *f = source_file(&s->sm, file);
    Line *l = line_reader(f->text, (uint32_t)f->len, file, PROBE_MAX_SAMPLES + 8);
    int rc = 0;
    while (rc == 0 && !p->have_end && line_next(l)) {
        if (l->overflowed) {
            diag_error(s->dx, l->over, "probe-syntax", "more than %d samples on one line", PROBE_MAX_SAMPLES);
            rc = -1;
            break;
        }
        /* blank lines, and the ranks' "collc-probe: done" (for mpirun --done) */
        if (l->n == 0 || word_is(l, 0, "collc-probe:")) continue;
        rc = read_line(s, l, p);
    }
    line_reader_free(l);
    if (rc != 0) return -1;
    Span eof = {file, (uint32_t)f->len, (uint32_t)f->len};
    if (!p->have_version) {
        diag_error(s->dx, eof, "probe-incomplete", "no collc-probe output in the file");
        return -1;
    }
    if (!p->have_shape || !p->have_end) {
        diag_error(s->dx, eof, "probe-incomplete", "collc-probe's output ends before its %s line",
                   !p->have_shape ? "'shape'" : "'end'");
        return -1;
    }
    return 0;
}

/* α and β of one level into *alpha_us and *GBps. */
static int fit_level(Session *s, Level *lv, const char *what, ClusterValue *alpha_us, ClusterValue *GBps) {
    for (int k = 0; k < lv->n; k++) settle(&lv->s[k]);
    if (lv->n < 2) {
        diag_error(s->dx, lv->span, "probe-incomplete", "the ping-pong %s has %d message size%s; the fit needs two",
                   what, lv->n, lv->n == 1 ? "" : "s");
        return -1;
    }
    const Series *large = &lv->s[lv->n - 1];
    int from = 0;
    while (from < lv->n - 2 && lv->s[from].bytes < FIT_FROM_BYTES) from++;
    /* 1/β first: the least-squares slope of t over bytes on the large
     * sizes, a line with an intercept of its own. Not through α: a small
     * message's time that is off (a rank that waited for a core, a
     * protocol switch) would tilt the line, and a token bucket's burst
     * (the first bytes pass at the device's speed) puts the line of the
     * large sizes above the origin. Then α from the small sizes. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0, m = lv->n - from;
    for (int k = from; k < lv->n; k++) {
        double x = lv->s[k].bytes, y = lv->s[k].median;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
    if (!(slope > 0) || !isfinite(slope)) {
        diag_error(s->dx, lv->span, "probe-fit", "the ping-pong %s does not take longer for larger messages", what);
        return -1;
    }
    double beta = 1 / slope;
    /* α: the size up to 1 KiB whose median less its bytes' time is the
     * lowest (waiting for a core or a peer only ever adds time, so one
     * size the machine's load slowed does not set α; larger sizes may
     * still pass at the device's speed, in a token bucket's burst, not at
     * β), the smallest size when none is that small */
    const Series *small = &lv->s[0];
    for (int k = 1; k < lv->n && lv->s[k].bytes <= ALPHA_UP_TO_BYTES; k++)
        if (lv->s[k].median - lv->s[k].bytes / beta < small->median - small->bytes / beta) small = &lv->s[k];
    double own = small->bytes / beta; /* that message's own bytes */
    double alpha = small->median - own;
    if (!(alpha > 0)) alpha = small->t[0];
    *alpha_us = (ClusterValue){alpha * 1e6, fmin(small->t[0] - own, alpha) * 1e6,
                               fmax(small->t[small->n - 1] - own, alpha) * 1e6};
    /* the spread of β: the line through the fit's centre and the largest
     * size's slowest and fastest sample */
    double cx = sx / m, cy = sy / m;
    double lo = (large->bytes - cx) / (large->t[large->n - 1] - cy), hi = (large->bytes - cx) / (large->t[0] - cy);
    if (!(lo > 0) || !isfinite(lo)) lo = beta;
    if (!(hi > 0) || !isfinite(hi)) hi = beta;
    *GBps = (ClusterValue){beta / 1e9, fmin(lo, beta) / 1e9, fmax(hi, beta) / 1e9};
    return 0;
}

static Status calibrate_options(Cmd *c) {
    if (c->o.nfiles > 1)
        return usage_error(c->o.name, "one collc-probe output to read, got %d files", c->o.nfiles);
    c->nargs = c->o.nfiles; /* not a .coll file: read here */
    c->o.common.defines_unused = 1;
    return EXIT_GO_ON;
}

static Status calibrate(Cmd *c) {
    Session *s = &c->s;
    const char *path = c->o.files[0];
    int id = session_load(s, path);
    if (id < 0) return EXIT_INPUT;
    Probe *p = xcalloc(1, sizeof *p);
    ClusterMachine *m = xcalloc(1, sizeof *m);
    Status st = EXIT_INPUT;
    Span eof = {(uint32_t)id, (uint32_t)source_file(&s->sm, (uint32_t)id)->len,
                (uint32_t)source_file(&s->sm, (uint32_t)id)->len};
    if (read_probe(s, (uint32_t)id, p) != 0) goto out;
    if (p->nodes < 2 || p->ppn < 2) {
        diag_error(s->dx, eof, "probe-shape",
                   "the job had %lld node%s of %lld rank%s; calibrate needs at least 2 nodes of 2 ranks, to measure "
                   "both levels",
                   (long long)p->nodes, p->nodes == 1 ? "" : "s", (long long)p->ppn, p->ppn == 1 ? "" : "s");
        goto out;
    }
    if (p->intra.n == 0 || p->inter.n == 0) {
        diag_error(s->dx, eof, "probe-incomplete", "no ping-pong %s in collc-probe's output",
                   p->intra.n == 0 ? "within a node (intra)" : "between nodes (inter)");
        goto out;
    }
    if (p->nreduce == 0) {
        diag_error(s->dx, eof, "probe-incomplete", "no reduce line in collc-probe's output");
        goto out;
    }
    if (fit_level(s, &p->intra, "within a node", &m->intra_us, &m->intra_GBps) != 0 ||
        fit_level(s, &p->inter, "between nodes", &m->inter_us, &m->inter_GBps) != 0)
        goto out;
    snprintf(m->name, sizeof m->name, "cluster-%lldx%lld", (long long)p->nodes, (long long)p->ppn);
    m->nodes = p->nodes;
    m->ppn = p->ppn;
    for (int k = 0; k < p->nreduce; k++) {
        Series *se = &p->reduce[k];
        settle(se);
        ClusterReduce *r = &m->reduce[m->nreduce++];
        snprintf(r->dtype, sizeof r->dtype, "%s", p->rdtype[k]);
        snprintf(r->op, sizeof r->op, "%s", p->rop[k]);
        r->GBps = (ClusterValue){se->bytes / se->median / 1e9, se->bytes / se->t[se->n - 1] / 1e9,
                                 se->bytes / se->t[0] / 1e9};
    }
    const char *out = c->o.output;
    FILE *f = !out || strcmp(out, "-") == 0 ? stdout : fopen(out, "w");
    if (!f) {
        st = usage_error(c->o.name, "cannot write '%s': %s", out, strerror(errno));
        goto out;
    }
    cluster_machine_write(f, m);
    if (f != stdout && fclose(f) != 0) {
        st = usage_error(c->o.name, "cannot write '%s': %s", out, strerror(errno));
        goto out;
    }
    st = EXIT_GO_ON;
out:
    free(p);
    free(m);
    return st;
}

int cmd_calibrate(int argc, char **argv) {
    Cmd c = {0};
    Status st = cmd_begin(&c, CMD_calibrate, argc, argv, calibrate_options);
    if (st == EXIT_GO_ON) st = calibrate(&c);
    return cmd_end(&c, st);
}
