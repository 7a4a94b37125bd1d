/* verify_runs.c - the run-length pass of verify_instance: proves a correct
 * schedule in memory proportional to its runs of equal values, not to its
 * chunk slots (docs/verify.md, "Scale").
 *
 * The state of one buffer of one rank is a sorted list of runs: chunks
 * [lo, next lo) that all hold "origin chunk c + dc, contributions of the
 * rank set S, reduction tree T" (or are all undefined). Rank sets are
 * hash-consed (equal sets, equal ids), so two runs are equal when their dc,
 * set id and tree hash are, and neighbours that become equal merge. A
 * range transfer (recursive halving, the parts of a hierarchical
 * algorithm) then costs one union per run it touches instead of one per
 * chunk, and the state of an AllReduce with `split N` is O(N) runs per
 * phase of equal values rather than N^2 slots.
 *
 * It decides only the correct case. The first finding of any check (a
 * race, a write to `in`, an undefined read, mixed chunks, a double count,
 * the postcondition), or running over its memory budget, stops the
 * instantiation (INST_STOPPED), and the explicit checker (verify.c, the
 * simulator) runs the instance again and reports exactly what it reports
 * without this pass. Its checks are those of the simulator on the same
 * transfers, step by step:
 *   - race: within a step, a slot written by two transfers unless both
 *     reduce, or written by one and read by any (itself included);
 *   - without a race every read sees the state before the step, so the
 *     transfers are applied in order, reduces into one slot combining;
 *   - undefined source, reduce into undefined destination, differing
 *     origin chunks, a rank in both operands: findings;
 *   - the postcondition after the last step, and the rank-consistency
 *     verdict with the tree hash of verify_internal.h. */
#include <stdlib.h>
#include <string.h>
#include "analysis/simulate.h"
#include "analysis/verify_internal.h"
#include "support/util.h"

/* A list of more runs than this and than a 16th of its chunks is
 * fragmented: the instance goes to the explicit checker (replace()). */
#define FRAGMENTED_RUNS 64u
/* A step's transfers sampled before its cuts are projected (runs_step()):
 * this many, or a 64th of the step when that is more. */
#define CUT_SAMPLE 64u


#define RSET_UNDEF 0u /* the set id of never-written chunks */

typedef struct VRun {
    int32_t lo;    /* first chunk; the run ends at the next run's lo */
    int32_t dc;    /* chunk c holds origin chunk c + dc */
    uint32_t set;  /* rank set id; RSET_UNDEF: undefined (dc, tree 0) */
    uint32_t pad;
    uint64_t tree; /* reduction-tree hash (vtree_*) */
} VRun;

typedef struct RunList {
    VRun *r;       /* &one, or cap runs on the heap */
    uint32_t n, cap;
    int32_t end;   /* chunks of this buffer on this rank */
    VRun one;      /* the first run: the initial state costs no allocation */
} RunList;

typedef struct RSet { uint64_t hash; uint32_t off, n; } RSet; /* pool[off .. off+n) */

/* A remembered union a ∪ b = r (r == RSET_UNDEF: an empty entry). */
typedef struct UnionMemo { uint32_t a, b, r; } UnionMemo;

typedef struct RState {
    int started;
    int64_t N;
    int nbuf;
    RunList *lists;          /* [nbuf * N]: buffer b of rank r at b * N + r */
    RSet *sets;
    size_t nsets, capsets;
    RankIvl *pool;
    size_t npool, cappool;
    uint32_t *ht;            /* hash-consing: set ids, RSET_UNDEF = empty */
    size_t htcap;
    RankIvl *tmp;
    size_t captmp;
    VRun *pc;                /* a transfer's pieces: source, destination, result */
    size_t cappc;
    VRun *mid;               /* replace(): the new runs of the range */
    size_t capmid;
    VAccess *acc;            /* a step's accesses, list index << 32 | lo */
    size_t capacc;
    UnionMemo *memo;         /* set_union's results, direct-mapped */
    size_t capmemo;          /* a power of two, or 0 */
    size_t bytes, budget;    /* the state's size, and the most it may take */
    uint64_t slots;          /* chunk slots of the schedule */
    uint64_t nlists;         /* lists with chunks */
    uint64_t cuts;           /* single-chunk writes into the middle of a run */
    int stop;                /* a finding or the budget: the explicit checker decides */
} RState;

/* ------------------------------------------------------------- memory */

/* Grows *p (cap elements of elem bytes) to hold need, within the budget;
 * -1 (and stop) when the budget or the system refuses. */
static int rgrow(RState *m, void **p, size_t *cap, size_t need, size_t elem) {
    if (!verify_grow(&m->bytes, m->budget, p, cap, need, elem, 16)) return 0;
    m->stop = 1;
    return -1;
}

static int list_reserve(RState *m, RunList *l, size_t need) {
    if (need <= l->cap || (need == 1 && l->r == &l->one)) return 0;
    size_t cap = l->cap;
    if (need > UINT32_MAX / 2) { m->stop = 1; return -1; }
    VRun *heap = l->cap ? l->r : NULL;
    if (rgrow(m, (void **)&heap, &cap, need, sizeof *heap)) return -1;
    if (!l->cap) memcpy(heap, &l->one, sizeof l->one);
    l->r = heap;
    l->cap = (uint32_t)cap;
    return 0;
}

/* ------------------------------------------------------------ rank sets */

static uint64_t ivl_hash(const RankIvl *iv, size_t n) {
    uint64_t h = 0x243f6a8885a308d3ull ^ n;
    for (size_t i = 0; i < n; i++)
        h = vtree_mix64(h ^ ((uint64_t)(uint32_t)iv[i].lo << 32 | (uint32_t)iv[i].hi));
    return h;
}

static void ht_put(RState *m, uint32_t id) {
    size_t mask = m->htcap - 1, i = (size_t)m->sets[id].hash & mask;
    while (m->ht[i] != RSET_UNDEF) i = (i + 1) & mask;
    m->ht[i] = id;
}

/* Room in the hash table for nsets sets (half full at most); -1 (and
 * stop) when the budget or the system refuses. */
static int ht_reserve(RState *m, size_t nsets) {
    if (2 * nsets <= m->htcap) return 0;
    size_t nc = m->htcap ? 2 * m->htcap : 1024;
    while (nc < 2 * nsets) nc *= 2;
    if (m->bytes + nc * sizeof *m->ht > m->budget) { m->stop = 1; return -1; }
    uint32_t *q = calloc(nc, sizeof *q);
    if (!q) { m->stop = 1; return -1; }
    m->bytes += nc * sizeof *q;
    m->bytes -= m->htcap * sizeof *m->ht;
    free(m->ht);
    m->ht = q;
    m->htcap = nc;
    for (uint32_t id = 1; id < m->nsets; id++) ht_put(m, id);
    return 0;
}

/* The id of the set iv[0..n) (sorted, disjoint, not touching), made when
 * new; RSET_UNDEF when the budget is exhausted. */
static uint32_t set_intern(RState *m, const RankIvl *iv, size_t n) {
    uint64_t h = ivl_hash(iv, n);
    if (m->htcap) {
        size_t mask = m->htcap - 1;
        for (size_t i = (size_t)h & mask; m->ht[i] != RSET_UNDEF; i = (i + 1) & mask) {
            const RSet *s = &m->sets[m->ht[i]];
            if (s->hash == h && s->n == n && (n == 0 || !memcmp(m->pool + s->off, iv, n * sizeof *iv)))
                return m->ht[i];
        }
    }
    if (m->nsets >= UINT32_MAX - 1 || m->npool + n >= UINT32_MAX) { m->stop = 1; return RSET_UNDEF; }
    if (rgrow(m, (void **)&m->sets, &m->capsets, m->nsets + 1, sizeof *m->sets) ||
        rgrow(m, (void **)&m->pool, &m->cappool, m->npool + n, sizeof *m->pool))
        return RSET_UNDEF;
    if (ht_reserve(m, m->nsets + 1)) return RSET_UNDEF;
    uint32_t id = (uint32_t)m->nsets++;
    m->sets[id] = (RSet){h, (uint32_t)m->npool, (uint32_t)n};
    if (n) memcpy(m->pool + m->npool, iv, n * sizeof *iv); /* the empty set: no pool yet */
    m->npool += n;
    ht_put(m, id);
    return id;
}

static uint32_t set_of(RState *m, int32_t lo, int32_t hi) {
    RankIvl x = {lo, hi};
    return set_intern(m, &x, 1);
}

/* The memo's entry for (a, b), the memo grown first to twice the sets (at
 * least 1024 entries) while the budget allows; NULL when there is none. */
static UnionMemo *memo_slot(RState *m, uint32_t a, uint32_t b) {
    if (m->capmemo < 2 * m->nsets) {
        size_t nc = m->capmemo ? 2 * m->capmemo : 1024;
        if (m->bytes + nc * sizeof *m->memo <= m->budget) {
            UnionMemo *q = calloc(nc, sizeof *q); /* r = 0: empty */
            if (q) {
                m->bytes += nc * sizeof *q;
                m->bytes -= m->capmemo * sizeof *m->memo;
                free(m->memo); /* dropped, not rehashed: it is only a cache */
                m->memo = q;
                m->capmemo = nc;
            }
        }
    }
    if (!m->capmemo) return NULL;
    return &m->memo[(size_t)vtree_mix64((uint64_t)a << 32 | b) & (m->capmemo - 1)];
}

/* a ∪ b, or RSET_UNDEF (and stop) when they share a rank (a double count)
 * or the budget is exhausted. Remembered: the ranks of one step reduce few
 * distinct pairs of sets (recursive halving: N / 2^k pairs of sets of 2^k
 * ranks at step k, each pair for 2^k ranks), so the merge is paid once per
 * pair, not once per rank, which would be N^2 in all. */
static uint32_t set_union(RState *m, uint32_t a, uint32_t b) {
    UnionMemo *e = memo_slot(m, a, b);
    if (e && e->r != RSET_UNDEF && e->a == a && e->b == b) return e->r;
    RSet sa = m->sets[a], sb = m->sets[b];
    if (rgrow(m, (void **)&m->tmp, &m->captmp, (size_t)sa.n + sb.n, sizeof *m->tmp)) return RSET_UNDEF;
    size_t n = rank_union(m->pool + sa.off, sa.n, m->pool + sb.off, sb.n, m->tmp);
    if (n == SIZE_MAX) { m->stop = 1; return RSET_UNDEF; }
    uint32_t r = set_intern(m, m->tmp, n);
    /* the intern may have grown the sets, and with them the memo */
    if (r != RSET_UNDEF && (e = memo_slot(m, a, b))) *e = (UnionMemo){a, b, r};
    return r;
}

/* ----------------------------------------------------------- run lists */

static int run_eq(const VRun *a, const VRun *b) {
    return a->set == b->set && a->dc == b->dc && a->tree == b->tree;
}

/* The index of the run holding chunk c (0 <= c < l->end). */
static uint32_t run_find(const RunList *l, int32_t c) {
    uint32_t lo = 0, hi = l->n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->r[mid].lo <= c) lo = mid;
        else hi = mid;
    }
    return lo;
}

static int32_t run_end(const RunList *l, uint32_t i) {
    return i + 1 < l->n ? l->r[i + 1].lo : l->end;
}

/* Appends the runs of l over [a, b), cut to it, to m->pc at *np. */
static int collect(RState *m, const RunList *l, int32_t a, int32_t b, size_t *np) {
    for (uint32_t i = run_find(l, a); i < l->n && l->r[i].lo < b; i++) {
        if (rgrow(m, (void **)&m->pc, &m->cappc, *np + 1, sizeof *m->pc)) return -1;
        VRun x = l->r[i];
        if (x.lo < a) x.lo = a;
        m->pc[(*np)++] = x;
    }
    return 0;
}

/* Replaces [a, b) of l by the runs pc[0..np) (sorted, pc[0].lo == a,
 * covering [a, b)), merging equal neighbours. */
static int replace(RState *m, RunList *l, int32_t a, int32_t b, const VRun *pc, size_t np) {
    uint32_t i = run_find(l, a), j = run_find(l, b - 1);
    size_t prefix = l->r[i].lo < a ? i + 1 : i; /* runs kept before a */
    size_t suffix = j + 1;                      /* the runs kept after b start here */
    VRun rest = l->r[j];                         /* the part of run j after b */
    int has_rest = run_end(l, j) > b;
    rest.lo = b;
    /* the new middle, pc then rest, without a run equal to the one before */
    if (rgrow(m, (void **)&m->mid, &m->capmid, np + 1, sizeof *m->mid)) return -1;
    size_t nm = 0;
    const VRun *last = prefix ? &l->r[prefix - 1] : NULL;
    for (size_t k = 0; k <= np; k++) {
        const VRun *x = k < np ? &pc[k] : has_rest ? &rest : NULL;
        if (!x || (last && run_eq(last, x))) continue;
        m->mid[nm++] = *x;
        last = &m->mid[nm - 1];
    }
    if (suffix < l->n && last && run_eq(last, &l->r[suffix])) suffix++;
    size_t nn = prefix + nm + (l->n - suffix);
    if (list_reserve(m, l, nn)) return -1;
    memmove(l->r + prefix + nm, l->r + suffix, (l->n - suffix) * sizeof *l->r);
    memcpy(l->r + prefix, m->mid, nm * sizeof *m->mid);
    /* Runs that are hardly longer than a chunk (a ring's single-chunk
     * partial sums, each different) save nothing and cost a list insert
     * each: the explicit checker, one slot a chunk, is then the better one.
     * Either sign stops the pass: a list of many short runs, or single
     * chunks cut out of the middle of runs in a quarter of the lists (a
     * ring's second step, at any N; runs_step() foresees it). */
    if (b - a == 1 && nn == l->n + 2) m->cuts++;
    l->n = (uint32_t)nn;
    if ((nn > FRAGMENTED_RUNS && nn > (size_t)l->end / 16) || 4 * m->cuts > m->nlists)
        return m->stop = 1, -1;
    return 0;
}

/* ------------------------------------------------------------ the steps */

static int acc_cmp(const void *a, const void *b) {
    uint64_t x = ((const VAccess *)a)->key, y = ((const VAccess *)b)->key;
    return (x > y) - (x < y);
}

int verify_step_races(VAccess *acc, size_t n) {
    qsort(acc, n, sizeof *acc, acc_cmp);
    int32_t maxw = 0, maxc = 0, maxr = 0;
    for (size_t i = 0; i < n; i++) {
        const VAccess *a = &acc[i];
        if (i == 0 || a->key >> 32 != acc[i - 1].key >> 32) maxw = maxc = maxr = 0;
        int32_t lo = (int32_t)(uint32_t)a->key;
        if (a->kind == VACC_READ) {
            if (lo < maxw) return 1;
            if (a->hi > maxr) maxr = a->hi;
        } else {
            if (lo < maxr || lo < maxc || (a->kind == VACC_COPY && lo < maxw)) return 1;
            if (a->hi > maxw) maxw = a->hi;
            if (a->kind == VACC_COPY && a->hi > maxc) maxc = a->hi;
        }
    }
    return 0;
}

static uint64_t list_index(const RState *m, const SlotRange *r) {
    return (uint64_t)r->buffer * (uint64_t)m->N + (uint64_t)r->rank;
}

/* The races of a step (the simulator's rule); 1 when there is one. */
static int step_races(RState *m, const Transfer *xs, size_t n) {
    if (n == 0) return 0; /* an empty step: nothing to sort (m->acc may be NULL) */
    if (rgrow(m, (void **)&m->acc, &m->capacc, 2 * n, sizeof *m->acc)) return 1;
    for (size_t i = 0; i < n; i++) {
        const Transfer *t = &xs[i];
        if (t->dst.buffer == BUF_IN) return 1;
        m->acc[2 * i] = (VAccess){list_index(m, &t->src) << 32 | (uint32_t)t->src.lo, t->src.hi, VACC_READ};
        m->acc[2 * i + 1] = (VAccess){list_index(m, &t->dst) << 32 | (uint32_t)t->dst.lo, t->dst.hi,
                                      t->op == XFER_REDUCE ? VACC_REDUCE : VACC_COPY};
    }
    return verify_step_races(m->acc, 2 * n);
}

/* One transfer, after the race check; 0, or -1 on a finding or a limit. */
static int apply(RState *m, const Transfer *t) {
    RunList *S = &m->lists[list_index(m, &t->src)], *D = &m->lists[list_index(m, &t->dst)];
    int32_t off = t->dst.lo - t->src.lo, len = t->dst.hi - t->dst.lo;
    size_t ns = 0;
    if (collect(m, S, t->src.lo, t->src.hi, &ns)) return -1;
    for (size_t k = 0; k < ns; k++) {
        VRun *x = &m->pc[k];
        if (x->set == RSET_UNDEF) return -1; /* undefined-read */
        x->lo += off;
        x->dc -= off;
    }
    if (t->op == XFER_COPY) return replace(m, D, t->dst.lo, t->dst.hi, m->pc, ns);
    size_t nd = ns;
    if (collect(m, D, t->dst.lo, t->dst.hi, &nd)) return -1;
    /* the union of the aligned pieces, after pc[0 .. nd) */
    size_t no = nd, i = 0, j = ns;
    int32_t c = t->dst.lo, end = t->dst.lo + len;
    while (c < end) {
        const VRun *x = &m->pc[i], *y = &m->pc[j];
        if (y->set == RSET_UNDEF) return -1; /* reduce into undefined */
        if (x->dc != y->dc) return -1;      /* mixed-chunks */
        uint32_t u = set_union(m, y->set, x->set);
        if (u == RSET_UNDEF) return -1;     /* double-count, or the budget */
        if (rgrow(m, (void **)&m->pc, &m->cappc, no + 1, sizeof *m->pc)) return -1;
        x = &m->pc[i]; y = &m->pc[j];
        VRun r = {c, y->dc, u, 0, vtree_node(y->tree, x->tree)};
        m->pc[no++] = r;
        int32_t xe = i + 1 < ns ? m->pc[i + 1].lo : end, ye = j + 1 < nd ? m->pc[j + 1].lo : end;
        int32_t e = xe < ye ? xe : ye;
        if (e == xe) i++;
        if (e == ye) j++;
        c = e;
    }
    return replace(m, D, t->dst.lo, t->dst.hi, m->pc + nd, no - nd);
}

static int rstart(RState *m, const Schedule *h) {
    m->started = 1;
    m->N = h->N;
    m->nbuf = h->nbuffers;
    size_t nl = (size_t)m->nbuf * (size_t)m->N;
    m->bytes = nl * sizeof *m->lists;
    if (m->bytes > m->budget || h->N > INT32_MAX) return m->stop = 1, -1;
    m->lists = xcalloc(nl, sizeof *m->lists);
    m->nsets = 1; /* id 0 is RSET_UNDEF */
    if (rgrow(m, (void **)&m->sets, &m->capsets, 1, sizeof *m->sets)) return -1;
    m->sets[0] = (RSet){0, 0, 0};
    if (ht_reserve(m, (size_t)m->N + 1)) return -1; /* the sets of `in`, at once */
    for (int b = 0; b < m->nbuf; b++)
        for (int64_t r = 0; r < m->N; r++) {
            RunList *l = &m->lists[(size_t)b * (size_t)m->N + (size_t)r];
            int64_t nc = schedule_chunks(h, b, r);
            if (nc > INT32_MAX) return m->stop = 1, -1;
            l->end = (int32_t)nc;
            m->slots += (uint64_t)nc;
            if (nc == 0) continue;
            m->nlists++;
            l->r = &l->one;
            l->n = 1;
            l->r[0] = (VRun){0, 0, RSET_UNDEF, 0, 0};
            if (b == BUF_IN) {
                uint32_t s = set_of(m, (int32_t)r, (int32_t)r + 1);
                if (s == RSET_UNDEF) return -1;
                l->r[0] = (VRun){0, 0, s, 0, vtree_leaf(r)};
            }
        }
    return 0;
}

/* Shared scratch whose call begins at step k is undefined again, as in the
 * simulator: a read of an earlier call's leftovers stops the pass. */
static void fresh_scratch(RState *m, const Schedule *h, size_t k) {
    for (int i = 0; i < h->alg->nlives; i++) {
        if (!sim_life_begins(h, k, i)) continue;
        for (int64_t r = 0; r < m->N; r++) {
            RunList *l = &m->lists[(size_t)h->alg->lives[i].buffer * (size_t)m->N + (size_t)r];
            if (l->end == 0) continue;
            l->n = 1;
            l->r[0] = (VRun){0, 0, RSET_UNDEF, 0, 0};
        }
    }
}

/* Whether replace()'s bar on cuts (a quarter of the lists) will be passed
 * in this step: its first `done` of `count` transfers nearly all cut (15
 * in 16), and the rest cutting as often pass the bar. Giving up on this
 * sample spares a state that does not compress (the ring at N = 2^20:
 * 2^20 cuts in its second step) all but a 64th of the step; one that
 * compresses cuts less (a tree: a quarter to a half of a step's
 * transfers) and goes on. */
static int cuts_foreseen(const RState *m, uint64_t cuts, size_t done, size_t count) {
    if (done >= count || 16 * cuts < 15 * (uint64_t)done) return 0;
    return 4 * (m->cuts + (uint64_t)(count - done) * 15 / 16) > m->nlists;
}

static int runs_step(void *user, const Schedule *hdr, const Transfer *xs) {
    RState *m = user;
    if (!m->started && rstart(m, hdr)) return 1;
    if (hdr->alg->nlives) fresh_scratch(m, hdr, hdr->nsteps - 1);
    const Step *st = &hdr->steps[hdr->nsteps - 1];
    if (step_races(m, xs, st->count)) return m->stop = 1;
    uint64_t cuts0 = m->cuts;
    size_t sample = st->count / 64 > CUT_SAMPLE ? st->count / 64 : CUT_SAMPLE;
    for (size_t i = 0; i < st->count; i++) {
        if (apply(m, &xs[i])) return m->stop = 1;
        if (i + 1 == sample && cuts_foreseen(m, m->cuts - cuts0, sample, st->count)) return m->stop = 1;
    }
    return 0;
}

/* ------------------------------------------------------ after the steps */

/* The postcondition; 0 when every slot of `out` holds what it must. */
static int rpost(RState *m, const Schedule *s) {
    Collective k = s->alg->coll;
    /* collectives whose out[r][c] is origin chunk c + f(r) from a fixed
     * rank set: one comparison a run */
    int by_run = k == COLLECTIVE_BROADCAST || k == COLLECTIVE_SCATTER || k == COLLECTIVE_REDUCE ||
                 k == COLLECTIVE_ALLREDUCE || k == COLLECTIVE_REDUCE_SCATTER;
    for (int64_t r = 0; r < m->N; r++) {
        const RunList *l = &m->lists[(size_t)BUF_OUT * (size_t)m->N + (size_t)r];
        for (uint32_t i = 0; i < l->n; i++) {
            const VRun *x = &l->r[i];
            if (x->set == RSET_UNDEF) return -1;
            int32_t e1 = run_end(l, i);
            for (int32_t c = x->lo; c < e1; c++) {
                Expect e = verify_expected_out(s, r, c);
                uint32_t want = set_of(m, e.lo, e.hi);
                if (want == RSET_UNDEF || want != x->set || e.chunk != (int64_t)c + x->dc) return -1;
                if (by_run) break;
            }
        }
    }
    return 0;
}

/* A run of `out` as the origin chunks [lo, hi) it holds, with its tree. */
typedef struct OriginRun { int64_t lo, hi; uint64_t tree; } OriginRun;

static int origin_cmp(const void *a, const void *b) {
    int64_t x = ((const OriginRun *)a)->lo, y = ((const OriginRun *)b)->lo;
    return (x > y) - (x < y);
}

/* The rank-consistency verdict (check_consistency's): -1 nothing to
 * compare, 1 every holder of a reduced chunk has the same tree, 0 not.
 * Per run, not per chunk (N^2 chunks for an AllReduce with `split N`):
 * the runs sorted by first origin chunk, each is compared with the one
 * reaching furthest among those before it. When that one does not reach
 * the run's first chunk none does; when it does, every earlier run that
 * overlaps this one holds that first chunk too, so all of them have one
 * tree (the sweep checked each against such a run before). */
static int rconsistent(RState *m, const Schedule *s) {
    if (!collective_info[s->alg->coll].reducing) return -1;
    size_t n = 0;
    for (int64_t r = 0; r < m->N; r++) n += m->lists[(size_t)BUF_OUT * (size_t)m->N + (size_t)r].n;
    OriginRun *o = xmalloc((n ? n : 1) * sizeof *o);
    n = 0;
    for (int64_t r = 0; r < m->N; r++) {
        const RunList *l = &m->lists[(size_t)BUF_OUT * (size_t)m->N + (size_t)r];
        for (uint32_t i = 0; i < l->n; i++)
            o[n++] = (OriginRun){(int64_t)l->r[i].lo + l->r[i].dc, (int64_t)run_end(l, i) + l->r[i].dc,
                                 l->r[i].tree};
    }
    if (n) qsort(o, n, sizeof *o, origin_cmp);
    int result = -1;
    size_t reach = 0; /* the run reaching furthest so far */
    for (size_t i = 1; i < n && result != 0; i++) {
        if (o[reach].hi > o[i].lo) result = o[reach].tree == o[i].tree;
        if (o[i].hi > o[reach].hi) reach = i;
    }
    free(o);
    return result;
}

static void rfree(RState *m) {
    if (m->lists)
        for (size_t i = 0; i < (size_t)m->nbuf * (size_t)m->N; i++)
            if (m->lists[i].cap) free(m->lists[i].r);
    free(m->lists); free(m->sets); free(m->pool); free(m->ht); free(m->tmp);
    free(m->pc); free(m->mid); free(m->acc); free(m->memo);
}

InstStatus verify_runs(const Algorithm *alg, const SchedParams *p, DiagEngine *dxi, size_t budget,
                       VerifyStats *st, const Stmt **failed_require) {
    memset(st, 0, sizeof *st);
    st->consistent = -1;
    RState m = {0};
    m.budget = budget;
    Schedule sch;
    InstStatus ist = instantiate_stream(alg, p, dxi, &sch, failed_require, runs_step, &m);
    if (ist == INST_OK) {
        if ((!m.started && rstart(&m, &sch)) || m.stop || rpost(&m, &sch) || m.stop) {
            ist = INST_STOPPED;
        } else {
            st->consistent = rconsistent(&m, &sch);
            st->slots = m.slots;
            st->values = m.nsets - 1;
            st->intervals = m.npool;
        }
        schedule_free(&sch);
    }
    rfree(&m);
    return ist;
}
