/* cmd_expand.c - `collc expand`: instantiate algorithms for one N and print
 * the schedule (docs/schedule-format.md), or the ownership table
 * of one buffer (--table BUF), or the communicating pairs of every step
 * (--pairs), or the schedule written back as a .coll algorithm
 * (--emit=coll). */
#include "driver/options.h"
#include "driver/pipeline.h"
#include "analysis/simulate.h"
#include "schedule/print_coll.h"
#include "support/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---------- growable string list ---------- */

typedef struct Strs { char **v; size_t n, cap; } Strs;

static void strs_push(Strs *s, char *str) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = str;
}

static void strs_free(Strs *s) {
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
}

typedef struct Buf { char *s; size_t len, cap; } Buf;

static void buf_add(Buf *b, const char *str) {
    size_t n = strlen(str);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, str, n + 1);
    b->len += n;
}

/* A step is a communication step when some transfer crosses ranks. */
static int step_communicates(const Schedule *s, const Step *st) {
    for (size_t k = st->first; k < st->first + st->count; k++)
        if (s->xfers[k].src.rank != s->xfers[k].dst.rank) return 1;
    return 0;
}

/* ---------- --table ---------- */

enum { TABLE_MAX_N = 64 };

/* The schedule runs on the simulator (analysis/simulate.h); a reduced value
 * is the sorted list of the origins it combines, an origin being chunk c of
 * `in` on rank r, numbered r * in_chunks + c. */
typedef struct Table {
    const Schedule *s;
    Sim sim;
    int32_t *pool;        /* the origin lists of reduced values */
    size_t npool, cappool;
    size_t *first;        /* value SIM_FIRST + k is pool[first[k] .. first[k + 1]) */
    size_t nvals, capvals;
    int64_t *arrival;     /* [sim.nslots]: when the slot first held data; -1 never */
    int64_t in_chunks;    /* chunks of `in` on the rank that has the most */
    /* During the first communication step's "init" row: the slots the step
     * writes from other ranks show their value before the step. */
    const int64_t *pidx;  /* slot -> pending index, or -1 */
    const uint32_t *pold;
    const char *plocal;
    int midstep;
} Table;

/* The *n origins of value `id` (neither SIM_UNDEF nor SIM_POISON): in *one
 * for an input leaf, else in the pool. */
static const int32_t *origins(const Table *t, uint32_t id, int32_t *one, size_t *n) {
    if (id & SIM_LEAF) {
        int64_t r, c;
        sim_leaf_origin(&t->sim, id, &r, &c);
        *one = (int32_t)(r * t->in_chunks + c);
        *n = 1;
        return one;
    }
    size_t k = id - SIM_FIRST;
    *n = t->first[k + 1] - t->first[k];
    return t->pool + t->first[k];
}

/* A reduce: the union of the two origin lists. */
static uint32_t table_reduce(void *user, size_t step, size_t xfer, int64_t i, uint32_t dst,
                             uint32_t src) {
    (void)step, (void)xfer, (void)i;
    Table *t = user;
    int32_t oa, ob;
    size_t na, nb;
    const int32_t *a = origins(t, dst, &oa, &na);
    const int32_t *b = origins(t, src, &ob, &nb);
    if (t->npool + na + nb > t->cappool) {
        size_t pa = a == &oa ? SIZE_MAX : (size_t)(a - t->pool);
        size_t pb = b == &ob ? SIZE_MAX : (size_t)(b - t->pool);
        t->cappool = 2 * (t->npool + na + nb);
        t->pool = xrealloc(t->pool, t->cappool * sizeof *t->pool);
        if (pa != SIZE_MAX) a = t->pool + pa;
        if (pb != SIZE_MAX) b = t->pool + pb;
    }
    if (t->nvals + 2 > t->capvals) {
        t->capvals = 2 * (t->nvals + 2);
        t->first = xrealloc(t->first, t->capvals * sizeof *t->first);
    }
    int32_t *out = t->pool + t->npool;
    size_t x = 0, y = 0, n = 0;
    while (x < na || y < nb) {
        if (y >= nb || (x < na && a[x] < b[y])) out[n++] = a[x++];
        else if (x >= na || b[y] < a[x]) out[n++] = b[y++];
        else { out[n++] = a[x++]; y++; }
    }
    t->npool += n;
    t->first[++t->nvals] = t->npool;
    return SIM_FIRST + (uint32_t)(t->nvals - 1);
}

static void origin_label(const Table *t, int32_t id, Buf *out) {
    int64_t rank = id / t->in_chunks, chunk = id % t->in_chunks;
    char tmp[64];
    int multi = schedule_chunks(t->s, BUF_IN, rank) > 1;
    if (t->s->N <= 26) {
        if (multi) snprintf(tmp, sizeof tmp, "%c%" PRId64, (char)('A' + rank), chunk);
        else snprintf(tmp, sizeof tmp, "%c", (char)('A' + rank));
    } else {
        if (multi) snprintf(tmp, sizeof tmp, "r%" PRId64 ".%" PRId64, rank, chunk);
        else snprintf(tmp, sizeof tmp, "r%" PRId64, rank);
    }
    buf_add(out, tmp);
}

typedef struct Held { int64_t arrival, chunk; } Held;

static int cmp_held(const void *a, const void *b) {
    const Held *x = a, *y = b;
    if (x->arrival != y->arrival) return x->arrival < y->arrival ? -1 : 1;
    return (x->chunk > y->chunk) - (x->chunk < y->chunk);
}

/* The value a cell shows for the slot (see Table.midstep). */
static uint32_t shown_value(const Table *t, uint64_t sl) {
    if (t->midstep && t->pidx[sl] >= 0 && !t->plocal[t->pidx[sl]]) return t->pold[t->pidx[sl]];
    return t->sim.sl[sl].val;
}

/* The cell of `rank`: "[A,D,C]" (a reduced chunk is "A0+B0"; what an error
 * left indeterminate is "?"). */
static char *table_cell(const Table *t, int buf, int64_t rank) {
    int64_t n = schedule_chunks(t->s, buf, rank);
    Held *h = xmalloc(sizeof(Held) * (size_t)(n + 1));
    int64_t k = 0;
    for (int64_t c = 0; c < n; c++) {
        uint64_t sl = sim_slot(&t->sim, buf, rank, c);
        if (t->arrival[sl] >= 0) h[k++] = (Held){t->arrival[sl], c};
    }
    qsort(h, (size_t)k, sizeof *h, cmp_held);
    Buf b = {0};
    buf_add(&b, "[");
    for (int64_t i = 0; i < k; i++) {
        if (i) buf_add(&b, ",");
        uint32_t id = shown_value(t, sim_slot(&t->sim, buf, rank, h[i].chunk));
        if (id == SIM_POISON) {
            buf_add(&b, "?");
            continue;
        }
        int32_t one;
        size_t no;
        const int32_t *o = origins(t, id, &one, &no);
        for (size_t j = 0; j < no; j++) {
            if (j) buf_add(&b, "+");
            origin_label(t, o[j], &b);
        }
    }
    buf_add(&b, "]");
    free(h);
    return b.s;
}

static void print_grid(const Strs *labels, const Strs *cells, int64_t ncols, const char *head0) {
    size_t nrows = labels->n;
    size_t w0 = strlen(head0);
    for (size_t r = 0; r < nrows; r++)
        if (strlen(labels->v[r]) > w0) w0 = strlen(labels->v[r]);
    size_t *w = xcalloc((size_t)ncols, sizeof *w);
    for (int64_t c = 0; c < ncols; c++) {
        char hdr[32];
        snprintf(hdr, sizeof hdr, "rank%" PRId64, c);
        w[c] = strlen(hdr);
        for (size_t r = 0; r < nrows; r++) {
            size_t l = strlen(cells->v[r * (size_t)ncols + (size_t)c]);
            if (l > w[c]) w[c] = l;
        }
    }
    printf("%-*s", (int)(w0 + 2), head0);
    for (int64_t c = 0; c < ncols; c++) {
        char hdr[32];
        snprintf(hdr, sizeof hdr, "rank%" PRId64, c);
        if (c + 1 < ncols) printf("%-*s", (int)(w[c] + 2), hdr);
        else printf("%s", hdr);
    }
    printf("\n");
    for (size_t r = 0; r < nrows; r++) {
        printf("%-*s", (int)(w0 + 2), labels->v[r]);
        for (int64_t c = 0; c < ncols; c++) {
            const char *cell = cells->v[r * (size_t)ncols + (size_t)c];
            if (c + 1 < ncols) printf("%-*s", (int)(w[c] + 2), cell);
            else printf("%s", cell);
        }
        printf("\n");
    }
    free(w);
}

static void table_row(const Table *t, int buf, const char *label, Strs *labels, Strs *cells) {
    Buf b = {0};
    buf_add(&b, label);
    strs_push(labels, b.s);
    for (int64_t r = 0; r < t->s->N; r++) strs_push(cells, table_cell(t, buf, r));
}

/* Returns 0, or -1 when the schedule is too large to simulate. */
static int print_table(const Schedule *s, int buf) {
    Table t;
    memset(&t, 0, sizeof t);
    t.s = s;
    SimHooks hooks = {table_reduce, NULL, &t};
    if (sim_init(&t.sim, s, &hooks)) return -1;
    t.first = xcalloc(1, sizeof *t.first);
    t.capvals = 1;
    t.arrival = xmalloc(sizeof(int64_t) * (t.sim.nslots + 1));
    for (size_t i = 0; i < t.sim.nslots; i++) t.arrival[i] = -1;
    t.in_chunks = s->chunks_at_root[BUF_IN] > s->chunks_other[BUF_IN] ? s->chunks_at_root[BUF_IN]
                                                                       : s->chunks_other[BUF_IN];
    if (t.in_chunks < 1) t.in_chunks = 1;
    int64_t clock = 0;
    for (int64_t r = 0; r < s->N; r++)
        for (int64_t c = 0; c < schedule_chunks(s, BUF_IN, r); c++)
            t.arrival[sim_slot(&t.sim, BUF_IN, r, c)] = clock++;

    Strs labels = {0}, cells = {0};
    int printed_init = 0;
    size_t commstep = 0;
    /* The slots a step writes, in the order of their first write, with their
     * value before the step. A slot written only by rank-local transfers
     * arrives first: its data never crossed ranks, so it arrives before what
     * the step receives, and in the first communication step it is part of
     * the "init" row (the step tables of docs/references.md start from each
     * rank holding its own data). */
    uint64_t *pslot = NULL;
    uint32_t *pold = NULL;
    char *plocal = NULL;
    size_t npend = 0, cappend = 0;
    int64_t *pidx = xmalloc(sizeof(int64_t) * (t.sim.nslots + 1));  /* slot -> pending index */
    for (size_t i = 0; i < t.sim.nslots; i++) pidx[i] = -1;
    t.pidx = pidx;
    for (size_t si = 0; si < s->nsteps; si++) {
        const Step *st = &s->steps[si];
        int comm = step_communicates(s, st);
        npend = 0;
        for (size_t k = st->first; k < st->first + st->count; k++) {
            const Transfer *x = &s->xfers[k];
            for (int32_t j = 0; j < x->dst.hi - x->dst.lo; j++) {
                uint64_t ds = sim_slot(&t.sim, x->dst.buffer, x->dst.rank, x->dst.lo + j);
                if (pidx[ds] < 0) {
                    if (npend == cappend) {
                        cappend = cappend ? cappend * 2 : 64;
                        pslot = xrealloc(pslot, sizeof *pslot * cappend);
                        pold = xrealloc(pold, sizeof *pold * cappend);
                        plocal = xrealloc(plocal, cappend);
                    }
                    pslot[npend] = ds;
                    pold[npend] = t.sim.sl[ds].val;
                    plocal[npend] = 1;
                    pidx[ds] = (int64_t)npend++;
                }
                if (x->src.rank != x->dst.rank) plocal[pidx[ds]] = 0;
            }
        }
        t.pold = pold;
        t.plocal = plocal;
        sim_step(&t.sim);
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1 && comm && !printed_init) {
                t.midstep = 1;
                table_row(&t, buf, "init", &labels, &cells);
                t.midstep = 0;
                printed_init = 1;
            }
            for (size_t i = 0; i < npend; i++) {
                if (plocal[i] != (pass == 0)) continue;
                uint64_t ds = pslot[i];
                if (t.arrival[ds] < 0 && t.sim.sl[ds].val != SIM_UNDEF) t.arrival[ds] = clock++;
            }
        }
        for (size_t i = 0; i < npend; i++) pidx[pslot[i]] = -1;
        if (comm) {
            char label[32];
            snprintf(label, sizeof label, "step %zu", ++commstep);
            table_row(&t, buf, label, &labels, &cells);
        } else if (printed_init) {
            table_row(&t, buf, "local", &labels, &cells);
        }
    }
    if (!printed_init) table_row(&t, buf, "init", &labels, &cells);
    print_grid(&labels, &cells, s->N, "step");
    strs_free(&labels);
    strs_free(&cells);
    sim_free(&t.sim);
    free(t.pool);
    free(t.first);
    free(t.arrival);
    free(pslot);
    free(pold);
    free(plocal);
    free(pidx);
    return 0;
}

/* ---------- --pairs ---------- */

static int cmp_pair(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static void print_pairs(const Schedule *s) {
    Strs labels = {0}, lines = {0};
    size_t commstep = 0;
    for (size_t si = 0; si < s->nsteps; si++) {
        const Step *st = &s->steps[si];
        if (!step_communicates(s, st)) continue;
        int64_t *p = xmalloc(sizeof(int64_t) * 2 * (st->count + 1));
        size_t n = 0;
        for (size_t k = st->first; k < st->first + st->count; k++) {
            int64_t a = s->xfers[k].src.rank, b = s->xfers[k].dst.rank;
            if (a == b) continue;
            p[2 * n] = a < b ? a : b;
            p[2 * n + 1] = a < b ? b : a;
            n++;
        }
        qsort(p, n, sizeof(int64_t) * 2, cmp_pair);
        Buf b = {0};
        buf_add(&b, "");
        for (size_t i = 0; i < n; i++) {
            if (i && p[2 * i] == p[2 * i - 2] && p[2 * i + 1] == p[2 * i - 1]) continue;
            char tmp[64];
            snprintf(tmp, sizeof tmp, "(%" PRId64 ",%" PRId64 ")", p[2 * i], p[2 * i + 1]);
            buf_add(&b, tmp);
        }
        free(p);
        char label[32];
        snprintf(label, sizeof label, "step %zu", ++commstep);
        Buf lb = {0};
        buf_add(&lb, label);
        strs_push(&labels, lb.s);
        strs_push(&lines, b.s);
    }
    size_t w0 = 0;
    for (size_t i = 0; i < labels.n; i++)
        if (strlen(labels.v[i]) > w0) w0 = strlen(labels.v[i]);
    for (size_t i = 0; i < labels.n; i++) printf("%-*s%s\n", (int)(w0 + 2), labels.v[i], lines.v[i]);
    strs_free(&labels);
    strs_free(&lines);
}

/* ---------- the command ---------- */

/* expand's options, before the files are read. */
static Status expand_options(Cmd *c) {
    const DriverOptions *o = &c->o;
    /* --emit=coll or dump: the one --emit row, with expand's own words */
    if (o->emit && strcmp(o->emit, "coll") != 0 && strcmp(o->emit, "dump") != 0)
        return usage_error("expand", "--emit expects coll or dump, got '%s'", o->emit);
    int emit_coll = o->emit && strcmp(o->emit, "coll") == 0;
    if (emit_coll && (o->table || o->pairs))
        return usage_error("expand", "--emit=coll cannot be combined with --table or --pairs");
    /* the table has N columns of up to N*chunks labels per row: keep it readable */
    if (o->table && c->N > TABLE_MAX_N)
        return usage_error("expand", "--table needs N <= %d (got %" PRId64 ")", TABLE_MAX_N, c->N);
    return EXIT_GO_ON;
}

/* One algorithm expanded at N as the options say. */
static Status expand_one(Cmd *c, int k) {
    const DriverOptions *o = &c->o;
    Session *s = &c->s;
    Algorithm *alg = c->algs[k];
    const char *table = o->table;
    int tbuf = -1;
    if (table) {
        for (int b = 0; b < alg->nbuffers; b++)
            if (strcmp(alg->buffers[b].name, table) == 0) tbuf = b;
        if (tbuf < 0) {
            diag_error(s->dx, alg->name_span, "unknown-buffer", "--table %s: algorithm '%s' has no buffer '%s'", table,
                       alg->name, table);
            return EXIT_INPUT;
        }
    }
    /* a -D applies to the algorithms that declare it (session_open
     * rejected one that reaches none) */
    SchedParams sp = pipeline_params(s, alg, 0, c->N, o->root);
    Schedule sched;
    Status ist = pipeline_instantiate(s, alg, &sp, &sched, NULL);
    if (ist != EXIT_GO_ON) return ist;
    if (k) printf("\n");
    if (c->nalgs > 1 && (table || o->pairs)) printf("algorithm %s\n", alg->name);
    Status st = EXIT_GO_ON;
    if (table && print_table(&sched, tbuf)) {
        diag_error(s->dx, alg->name_span, "schedule-too-large",
                   "--table: the schedule of '%s' for N = %" PRId64 " is too large to simulate", alg->name, c->N);
        st = EXIT_INPUT;
    } else if (o->pairs) {
        if (table) printf("\n");
        print_pairs(&sched);
    }
    if (st == EXIT_GO_ON && o->emit && strcmp(o->emit, "coll") == 0) {
        char why[96];
        snprintf(why, sizeof why, "'%s' expanded for N = %" PRId64, alg->name, c->N);
        CollPrintInfo info = {0};
        info.require_why = why;
        schedule_print_coll(stdout, &sched, &info);
    } else if (st == EXIT_GO_ON && !table && !o->pairs) {
        schedule_dump(stdout, &sched, &s->sm);
    }
    schedule_free(&sched);
    return st;
}

int cmd_expand(int argc, char **argv) {
    Cmd c = {0};
    Status st = cmd_begin(&c, CMD_expand, argc, argv, expand_options);
    for (int k = 0; st == EXIT_GO_ON && k < c.nalgs; k++) st = expand_one(&c, k);
    return cmd_end(&c, st);
}
