/* tune_measure.c - `collc tune --measure FILE [--object LIB]`: the
 * COLLMPI_CONFIG rules from collc-measure's times (targets/mpi/measure.c,
 * run under the job's mpirun) instead of the cost model (docs/cluster.md
 * section 4).
 *
 * Per collective and measured size the winner is the fastest candidate by
 * median: an algorithm of the object, or the MPI library's own call, which
 * gets no rule (the call falls through to the library). An algorithm
 * replaces the library only when its slowest round is below the library's
 * median (it is faster by more than its own spread), unless --fastest.
 * Adjacent sizes with the same winner make one range; a range ends at the
 * geometric midpoint of its last size and the next measured size (rounded
 * up to a byte). The rules cover the measured sizes, [smallest, largest]
 * or, with --range LO..HI, [LO, HI): the smallest and the largest size's
 * winners are taken down to LO and up to HI. Every rule carries the job's
 * shape (n=, and ppn= nodes= where the nodes hold the same number of
 * ranks), as the model's rules do. */
#include "driver/mpi/text_lines.h"
#include "driver/tune.h"
#include "collmpi_config.h"
#include "support/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MEASURE_VERSION 1
#define MEASURE_LIBRARY "mpi-library"
#define MEASURE_MAX_WORDS 64

/* One `time` line. */
typedef struct Timing {
    Collective coll;
    unsigned long long bytes;
    char name[256];
    double median, lo, hi;
    Span span, name_span; /* the line's first word, the candidate */
} Timing;

typedef struct Measured {
    int have_version, have_end, have_shape;
    long long ranks, nodes, ppn_lo, ppn_hi;
    Span shape_span;
    char object[1024];
    Span object_span;
    Timing *t;
    int n, cap;
} Measured;

/* Word k as a number: a time (above 0) or, with `whole`, a byte count. */
static int number_word(Session *s, const Line *l, int k, const char *what, int whole, double *out) {
    char buf[64];
    if (k >= l->n) {
        diag_error(s->dx, word_span(l, k), "measure-syntax", "expected %s", what);
        return -1;
    }
    word_copy(l, k, buf, sizeof buf);
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end || errno || !isfinite(v) || !(v > 0) || (whole && (v != floor(v) || v > 1e18))) {
        diag_error(s->dx, word_span(l, k), "measure-syntax", "expected %s, got '%s'", what, buf);
        return -1;
    }
    *out = v;
    return 0;
}

/* `shape ranks=R nodes=K ppn=P` (or ppn=LO..HI: nodes of different sizes) */
static int read_shape(Session *s, const Line *l, Measured *m) {
    char ranks[64], nodes[64], ppn[64], tail;
    word_copy(l, 1, ranks, sizeof ranks);
    word_copy(l, 2, nodes, sizeof nodes);
    word_copy(l, 3, ppn, sizeof ppn);
    int ok = l->n == 4 && sscanf(ranks, "ranks=%lld%c", &m->ranks, &tail) == 1 &&
             sscanf(nodes, "nodes=%lld%c", &m->nodes, &tail) == 1;
    if (ok && sscanf(ppn, "ppn=%lld..%lld%c", &m->ppn_lo, &m->ppn_hi, &tail) != 2) {
        ok = sscanf(ppn, "ppn=%lld%c", &m->ppn_lo, &tail) == 1;
        m->ppn_hi = m->ppn_lo;
    }
    if (!ok || m->ranks < 1 || m->nodes < 1 || m->ppn_lo < 1 || m->ppn_hi < m->ppn_lo) {
        diag_error(s->dx, word_span(l, 0), "measure-syntax", "expected 'shape ranks=R nodes=K ppn=P'");
        return -1;
    }
    m->have_shape = 1;
    m->shape_span = word_span(l, 0);
    return 0;
}

/* `time COLLECTIVE BYTES CANDIDATE MEDIAN MIN MAX` */
static int read_time(Session *s, const Line *l, Measured *m) {
    char coll[64];
    word_copy(l, 1, coll, sizeof coll);
    Timing t = {.span = word_span(l, 0), .name_span = word_span(l, 3)};
    t.coll = collective_lookup(coll);
    if (l->n < 2 || t.coll == COLLECTIVE__COUNT) {
        diag_error(s->dx, word_span(l, 1), "measure-syntax", "expected a collective (allreduce, broadcast, ...)");
        return -1;
    }
    double bytes, v[3];
    if (number_word(s, l, 2, "a size in bytes (a whole number above 0)", 1, &bytes) != 0) return -1;
    if (l->n < 4) {
        diag_error(s->dx, word_span(l, 3), "measure-syntax", "expected a candidate (an algorithm, or " MEASURE_LIBRARY ")");
        return -1;
    }
    word_copy(l, 3, t.name, sizeof t.name);
    static const char *const what[] = {"the median time in seconds (a number above 0)",
                                       "the fastest round's time in seconds (a number above 0)",
                                       "the slowest round's time in seconds (a number above 0)"};
    for (int k = 0; k < 3; k++)
        if (number_word(s, l, 4 + k, what[k], 0, &v[k]) != 0) return -1;
    if (l->n > 7) {
        diag_error(s->dx, word_span(l, 7), "measure-syntax", "expected the end of the line after the slowest round's time");
        return -1;
    }
    if (!(v[1] <= v[0] && v[0] <= v[2])) {
        diag_error(s->dx, word_span(l, 4), "measure-syntax", "the times must be MEDIAN MIN MAX with MIN <= MEDIAN <= MAX");
        return -1;
    }
    t.bytes = (unsigned long long)bytes;
    t.median = v[0], t.lo = v[1], t.hi = v[2];
    for (int k = 0; k < m->n; k++)
        if (m->t[k].coll == t.coll && m->t[k].bytes == t.bytes && strcmp(m->t[k].name, t.name) == 0) {
            diag_error(s->dx, t.name_span, "measure-syntax", "'%s' is timed twice at %s %llu", t.name, coll, t.bytes);
            diag_note(s->dx, m->t[k].name_span, "the first time");
            return -1;
        }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->t = xrealloc(m->t, (size_t)m->cap * sizeof *m->t);
    }
    m->t[m->n++] = t;
    return 0;
}

static int read_line(Session *s, const Line *l, Measured *m) {
    if (!m->have_version) {
        char v[32];
        word_copy(l, 1, v, sizeof v);
        if (!word_is(l, 0, "collc-measure") || l->n != 2) {
            diag_error(s->dx, word_span(l, 0), "measure-syntax", "expected the line 'collc-measure %d' first",
                       MEASURE_VERSION);
            return -1;
        }
        if (strtol(v, NULL, 10) != MEASURE_VERSION) {
            diag_error(s->dx, word_span(l, 1), "measure-syntax",
                       "collc-measure output of version '%s' (this collc reads version %d)", v, MEASURE_VERSION);
            return -1;
        }
        m->have_version = 1;
        return 0;
    }
    if (word_is(l, 0, "shape")) return read_shape(s, l, m);
    if (word_is(l, 0, "time")) return read_time(s, l, m);
    if (word_is(l, 0, "skip")) return 0; /* a candidate whose `require`s fail: not one */
    if (word_is(l, 0, "object") && l->n == 2) {
        word_copy(l, 1, m->object, sizeof m->object);
        m->object_span = word_span(l, 1);
        return 0;
    }
    if (word_is(l, 0, "end") && l->n == 1) {
        m->have_end = 1;
        return 0;
    }
    diag_error(s->dx, word_span(l, 0), "measure-syntax", "expected a line of collc-measure (shape, object, time, skip, end)");
    return -1;
}

static int read_measured(Session *s, uint32_t file, Measured *m) {
    const SourceFile *f = source_file(&s->sm, file);
    /* the rest of a line past MEASURE_MAX_WORDS (a long `skip` reason) is one last word */
    Line *l = line_reader(f->text, (uint32_t)f->len, file, MEASURE_MAX_WORDS);
    int rc = 0;
    while (rc == 0 && !m->have_end && line_next(l)) {
        /* blank lines, comments, and the ranks' "collc-measure: done" */
        if (l->n == 0 || l->text[l->w[0].lo] == '#' || word_is(l, 0, "collc-measure:")) continue;
        rc = read_line(s, l, m);
    }
    line_reader_free(l);
    if (rc != 0) return -1;
    Span eof = {file, (uint32_t)f->len, (uint32_t)f->len};
    const char *missing = !m->have_version ? NULL : !m->have_shape ? "shape" : !m->object[0] ? "object"
                                                  : !m->have_end   ? "end" : "";
    if (!missing) diag_error(s->dx, eof, "measure-incomplete", "no collc-measure output in the file");
    else if (*missing) diag_error(s->dx, eof, "measure-incomplete", "collc-measure's output has no '%s' line", missing);
    else if (m->n == 0) diag_error(s->dx, eof, "measure-incomplete", "collc-measure's output has no 'time' line");
    return !missing || *missing || m->n == 0 ? -1 : 0;
}

/* Each algorithm timed is one that `object` exports for its collective,
 * loaded as libcollmpi.so loads a rule's. */
static int check_candidates(Session *s, const Measured *m, const char *object, int given) {
    int bad = 0;
    for (int k = 0; k < m->n; k++) {
        const Timing *t = &m->t[k];
        int first = strcmp(t->name, MEASURE_LIBRARY) != 0;
        for (int j = 0; j < k && first; j++) first = strcmp(m->t[j].name, t->name) != 0;
        if (!first) continue;
        collmpi_rule r = {.coll = (coll_collective)t->coll, .object = (char *)object, .alg = (char *)t->name};
        char why[600];
        int field;
        dlerror();
        if (collmpi_config_load(&r, RTLD_LAZY | RTLD_LOCAL, &field, why, sizeof why) == 0) continue;
        if (field == 3 && given) diag_error(s->dx, span_none(), "measure-candidate", "--object %s", why);
        else diag_error(s->dx, field == 3 ? m->object_span : t->name_span, "measure-candidate", "%s", why);
        bad = 1;
        if (field == 3) break;
    }
    return bad ? -1 : 0;
}

/* The winner at one size: the index of its time line, -1 for the library
 * (*lib its line); -2 when the size has no library time. */
static int winner(const Measured *m, const int *at, int n, int fastest, int *lib) {
    int best = -1;
    *lib = -1;
    for (int k = 0; k < n; k++) {
        const Timing *t = &m->t[at[k]];
        if (strcmp(t->name, MEASURE_LIBRARY) == 0) *lib = at[k];
        else if (best < 0 || t->median < m->t[best].median) best = at[k];
    }
    if (*lib < 0) return -2;
    if (best < 0) return -1;
    double beat = fastest ? m->t[best].median : m->t[best].hi;
    return beat < m->t[*lib].median ? best : -1;
}

/* The sizes measured of collective coll, ascending, and each one's
 * winner; the number of sizes, or -1 after an error. */
typedef struct SizeWin {
    unsigned long long bytes;
    int win, lib; /* time lines: the winner (-1: the library), the library's */
} SizeWin;

static int collective_winners(Session *s, const Measured *m, Collective coll, int fastest, SizeWin *out) {
    int ns = 0;
    int *at = xcalloc((size_t)m->n, sizeof *at);
    for (int k = 0; k < m->n;) {
        unsigned long long b = 0;
        int found = 0;
        /* the next larger size of coll */
        for (int j = 0; j < m->n; j++)
            if (m->t[j].coll == coll && (ns == 0 || m->t[j].bytes > out[ns - 1].bytes) && (!found || m->t[j].bytes < b))
                b = m->t[j].bytes, found = 1;
        if (!found) break;
        int na = 0;
        for (int j = 0; j < m->n; j++)
            if (m->t[j].coll == coll && m->t[j].bytes == b) at[na++] = j;
        SizeWin w = {b, 0, -1};
        w.win = winner(m, at, na, fastest, &w.lib);
        if (w.win == -2) {
            diag_error(s->dx, m->t[at[0]].span, "measure-incomplete",
                       "no " MEASURE_LIBRARY " time for %s at %llu bytes: the MPI library's own call is the baseline",
                       collective_info[coll].keyword, b);
            free(at);
            return -1;
        }
        out[ns++] = w;
        k += na;
    }
    free(at);
    return ns;
}

/* The geometric midpoint of two measured sizes, rounded up. */
static unsigned long long midpoint(unsigned long long a, unsigned long long b) {
    return tune_bound(sqrt((double)a * (double)b));
}

static void write_collective(FILE *f, const Measured *m, Collective coll, const SizeWin *w, int ns,
                             const char *object, const char *cond, unsigned long long lo, unsigned long long hi) {
    for (int i = 0; i < ns;) {
        int j = i;
        while (j + 1 < ns && (w[j + 1].win >= 0) == (w[i].win >= 0) &&
               (w[i].win < 0 || strcmp(m->t[w[j + 1].win].name, m->t[w[i].win].name) == 0))
            j++;
        unsigned long long a = i == 0 ? lo : midpoint(w[i - 1].bytes, w[i].bytes);
        unsigned long long b = j + 1 == ns ? hi : midpoint(w[j].bytes, w[j + 1].bytes);
        if (a < lo) a = lo;
        if (b > hi) b = hi;
        char from[32], to[32], tw[32], tl[32];
        cost_fmt_bytes((double)w[i].bytes, from, sizeof from);
        cost_fmt_bytes((double)w[j].bytes, to, sizeof to);
        cost_fmt_time(m->t[w[i].lib].median, tl, sizeof tl);
        if (w[i].win < 0 && b > a) {
            fprintf(f, "# %-14s %-12llu %-12llu the MPI library's own (no rule): measured %s%s%s, %s at %s\n",
                    collective_info[coll].keyword, a, b, from, i == j ? "" : " .. ", i == j ? "" : to, tl, from);
        } else if (b > a) {
            cost_fmt_time(m->t[w[i].win].median, tw, sizeof tw);
            fprintf(f, "%-16s %-12llu %-12llu %s %s %s  # measured %s%s%s: %s at %s, the MPI library %s\n",
                    collective_info[coll].keyword, a, b, object, m->t[w[i].win].name, cond, from,
                    i == j ? "" : " .. ", i == j ? "" : to, tw, from, tl);
        }
        i = j + 1;
    }
}

Status tune_measure(Cmd *cmd, FILE *f) {
    Session *s = &cmd->s;
    int id = session_load(s, cmd->o.files[0]);
    if (id < 0) return EXIT_INPUT;
    Measured *m = xcalloc(1, sizeof *m);
    SizeWin *w = NULL;
    Status st = EXIT_INPUT;
    if (read_measured(s, (uint32_t)id, m) != 0) goto out;
    if (cmd->o.given[OPT_N] && cmd->N != m->ranks) {
        diag_error(s->dx, m->shape_span, "measure-shape", "the measured job had %lld ranks; -N says %lld", m->ranks,
                   (long long)cmd->N);
        goto out;
    }
    if (m->ranks != m->nodes * m->ppn_hi && m->ppn_lo == m->ppn_hi) {
        diag_error(s->dx, m->shape_span, "measure-shape", "%lld nodes of %lld ranks are not %lld ranks", m->nodes,
                   m->ppn_lo, m->ranks);
        goto out;
    }
    const char *object = cmd->o.object ? cmd->o.object : m->object;
    if (check_candidates(s, m, object, cmd->o.object != NULL) != 0) goto out;
    w = xcalloc((size_t)m->n, sizeof *w);
    for (int coll = 0; coll < COLLECTIVE__COUNT; coll++)
        if (collective_winners(s, m, (Collective)coll, cmd->o.fastest, w) < 0) goto out;
    char cond[96];
    int len = snprintf(cond, sizeof cond, "n=%lld", m->ranks);
    if (m->ppn_lo == m->ppn_hi) snprintf(cond + len, sizeof cond - (size_t)len, " ppn=%lld nodes=%lld", m->ppn_lo, m->nodes);
    fprintf(f, "# COLLMPI_CONFIG rules of collc tune --measure (docs/cluster.md section 4): the\n"
               "# fastest candidate per size as collc-measure timed it, N = %lld, %lld node%s of %s%lld ranks;\n"
               "# %s.\n",
            m->ranks, m->nodes, m->nodes == 1 ? "" : "s", m->ppn_lo == m->ppn_hi ? "" : "up to ", m->ppn_hi,
            cmd->o.fastest ? "the fastest median wins"
                           : "an algorithm only where its slowest round beats the MPI library's median");
    fprintf(f, "# collective      min          max          object  algorithm  conditions  # measured\n");
    st = EXIT_GO_ON;
    for (int coll = 0; coll < COLLECTIVE__COUNT; coll++) {
        int ns = collective_winners(s, m, (Collective)coll, cmd->o.fastest, w);
        if (ns <= 0) continue;
        unsigned long long lo = cmd->o.given[OPT_RANGE] ? tune_bound(cmd->o.range.lo) : w[0].bytes;
        unsigned long long hi = cmd->o.given[OPT_RANGE] ? tune_bound(cmd->o.range.hi) : w[ns - 1].bytes + 1;
        write_collective(f, m, (Collective)coll, w, ns, object, cond, lo, hi);
    }
out:
    free(w);
    free(m->t);
    free(m);
    return st;
}
