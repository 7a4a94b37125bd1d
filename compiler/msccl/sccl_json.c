/* sccl_json.c - SCCL's algorithms: the JSON that msccl-tools writes
 * (msccl/serialization.py, MSCCLEncoder) for a synthesized Algorithm,
 * read as a collc algorithm (docs/msccl.md §2).
 *
 *   {"msccl_type": "algorithm", "name", "instance": {"chunks", ...},
 *    "input_map": {rank: [addr]}, "output_map": {rank: [addr]},
 *    "steps": [{"msccl_type": "step", "rounds", "sends": [[addr, src, dst]]}],
 *    "collective": {"name", "nodes", "chunks": [{"pre", "post", "addr"}]},
 *    "topology": {...}}
 *
 * (older files say "sccl_type"). The algorithm is step-synchronous: in a
 * step every send copies address `addr` from rank `src`, which holds it
 * since an earlier step (Algorithm.check_implements), to rank `dst`. With
 * instance.chunks = P each chunk of the collective is P addresses
 * (collective.chunk_up: addr = chunk * P + i), collc's `split P`.
 *
 * A rank holds an address in `in` when the chunk starts there, else in
 * `out` when the chunk ends there, else in a scratch buffer `relay`
 * indexed by address; a rank where the chunk both starts and ends copies
 * it from `in` to `out` in the first step. The chunks of the file's
 * collective must be those of the one its name says.
 *
 * Combining collectives (Allreduce, ReduceScatter, Reduce: chunks that
 * share an address, collectives.py) hold at each (rank, address) a set of
 * contributions; a send unites the sender's set into the receiver's
 * (check_implements). As data that is a reduce when the two are disjoint
 * and a copy when the sender's contains the receiver's; anything else has
 * no meaning as data (sccl-overlap). Every rank starts with every address:
 * in `in`, copied first to `out` where it ends there or to `relay` where
 * the rank receives it; a receive into what its rank also sends in the
 * step goes through `recv` and is combined in a step of its own after it
 * (a step's reads see the state before it). */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "msccl/msccl.h"
#include "support/json_read.h"
#include "support/util.h"

/* The collectives SCCL names ("Allgather(n=4)"): collc's, and where chunk
 * c of n ranks starts and ends (root R). */
typedef struct SColl { const char *name; Collective coll; int nchunks_sq, combining; } SColl;
static const SColl scolls[] = {
    {"Allgather", COLLECTIVE_ALLGATHER, 0, 0},
    {"Alltoall", COLLECTIVE_ALLTOALL, 1, 0},
    {"Broadcast", COLLECTIVE_BROADCAST, 0, 0},
    {"Scatter", COLLECTIVE_SCATTER, 0, 0},
    {"Gather", COLLECTIVE_GATHER, 0, 0},
    {"Allreduce", COLLECTIVE_ALLREDUCE, 0, 1},
    {"ReduceScatter", COLLECTIVE_REDUCE_SCATTER, 1, 1},
    {"Reduce", COLLECTIVE_REDUCE, 0, 1},
};

typedef struct SR {
    Arena *arena;
    DiagEngine *dx;
    uint32_t file;
    int errors;
    Collective coll;
    int combining;
    int n, P, root, nchunks;
    int naddr;         /* addresses of the collective (before the split) */
} SR;

static void serr(SR *r, Span sp, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void serr(SR *r, Span sp, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(r->dx, DIAG_ERROR, sp, code, fmt, ap);
    va_end(ap);
    r->errors++;
}

/* Member `key` of `obj` of kind `k` (its error reported; NULL). */
static JsonValue *member(SR *r, const JsonValue *obj, const char *what, const char *key, JsonKind k) {
    JsonValue *v = json_get(obj, key);
    if (!v) {
        serr(r, obj->span, "sccl-format", "%s has no member '%s'", what, key);
        return NULL;
    }
    if (v->kind != k) {
        serr(r, v->span, "sccl-format", "'%s' of %s is %s; it must be %s", key, what,
             json_kind_name(v->kind), json_kind_name(k));
        return NULL;
    }
    return v;
}

/* An integer in lo .. hi (-1 after an error). */
static int64_t int_in(SR *r, const JsonValue *v, const char *what, int64_t lo, int64_t hi) {
    if (v->kind != JSON_NUMBER || !v->is_int) {
        serr(r, v->span, "sccl-format", "%s is %s; it must be an integer", what,
             v->kind == JSON_NUMBER ? "not an integer" : json_kind_name(v->kind));
        return -1;
    }
    if (v->ival < lo || v->ival > hi) {
        serr(r, v->span, "sccl-range", "%s is %" PRId64 "; it must be in %" PRId64 " .. %" PRId64,
             what, v->ival, lo, hi);
        return -1;
    }
    return v->ival;
}

static int int_member(SR *r, const JsonValue *obj, const char *what, const char *key, int64_t lo,
                      int64_t hi, int64_t *out) {
    JsonValue *v = member(r, obj, what, key, JSON_NUMBER);
    if (!v) return -1;
    const char *w = arena_printf(r->arena, "'%s' of %s", key, what);
    int64_t x = int_in(r, v, w, lo, hi);
    if (x < 0 && lo >= 0) return -1;
    *out = x;
    return 0;
}

/* Where chunk c starts (pre) and ends (post) in collc's collective, as a
 * rank or -1 for every rank; its block in `in` and in `out`; its address
 * (collectives.py: a chunk's own index, for a combining one c / n). */
static int chunk_shape(const SR *r, int c, int *pre, int *post, int *in_blk, int *out_blk) {
    int n = r->n;
    *in_blk = *out_blk = 0;
    switch (r->coll) {
    case COLLECTIVE_ALLGATHER: *pre = c, *post = -1, *out_blk = c; return c;
    case COLLECTIVE_ALLTOALL: *pre = c % n, *post = c / n, *in_blk = c / n, *out_blk = c % n; return c;
    case COLLECTIVE_BROADCAST: *pre = r->root, *post = -1; return c;
    case COLLECTIVE_SCATTER: *pre = r->root, *post = c, *in_blk = c; return c;
    case COLLECTIVE_GATHER: *pre = c, *post = r->root, *out_blk = c; return c;
    case COLLECTIVE_ALLREDUCE: *pre = c, *post = -1; return c / n;
    case COLLECTIVE_REDUCE: *pre = c, *post = r->root; return c / n;
    case COLLECTIVE_REDUCE_SCATTER: *pre = c % n, *post = c / n, *in_blk = c / n; return c / n;
    default: COLLC_UNREACHABLE("an SCCL collective collc does not read");
    }
}

static int rank_set_is(const JsonValue *set, int n, int rank) {
    /* rank -1: every rank once */
    char *seen = xcalloc((size_t)n, 1);
    int ok = 1;
    size_t count = 0;
    for (size_t k = 0; k < set->n && ok; k++) {
        const JsonValue *v = set->items[k];
        if (v->kind != JSON_NUMBER || !v->is_int || v->ival < 0 || v->ival >= n || seen[v->ival]) ok = 0;
        else seen[v->ival] = 1, count++;
    }
    if (ok) ok = rank < 0 ? count == (size_t)n : count == 1 && seen[rank];
    free(seen);
    return ok;
}

static const char *rank_text(Arena *a, int rank) {
    return rank < 0 ? "every rank" : arena_printf(a, "rank %d", rank);
}

/* The collective: its name, nodes, and chunks as collc's collective has
 * them. */
static int read_collective(SR *r, const JsonValue *c) {
    JsonValue *name = member(r, c, "the collective", "name", JSON_STRING);
    int64_t nodes = 0;
    if (int_member(r, c, "the collective", "nodes", 1, 1 << 16, &nodes)) return -1;
    JsonValue *chunks = member(r, c, "the collective", "chunks", JSON_ARRAY);
    if (!name || !chunks) return -1;
    size_t len = strcspn(name->str, "(,");
    const SColl *sc = NULL;
    for (size_t k = 0; k < ARRAY_LEN(scolls); k++)
        if (strlen(scolls[k].name) == len && !strncmp(scolls[k].name, name->str, len)) sc = &scolls[k];
    if (!sc) {
        serr(r, name->span, "sccl-unsupported-collective",
             "collc does not read SCCL algorithms of '%s' (it reads Allgather, Alltoall, "
             "Broadcast, Scatter, Gather, Allreduce, ReduceScatter and Reduce)",
             name->str);
        return -1;
    }
    r->coll = sc->coll;
    r->combining = sc->combining;
    r->n = (int)nodes;
    r->nchunks = sc->coll == COLLECTIVE_BROADCAST ? 1 : sc->nchunks_sq ? r->n * r->n : r->n;
    r->naddr = !sc->combining ? r->nchunks : sc->coll == COLLECTIVE_REDUCE_SCATTER ? r->n : 1;
    r->root = 0;
    if (collective_info[sc->coll].rooted && chunks->n > 0) {
        /* the root: where a broadcast's or scatter's chunks start, a
         * gather's or reduce's end */
        const JsonValue *ch = chunks->items[0];
        int at_end = sc->coll == COLLECTIVE_GATHER || sc->coll == COLLECTIVE_REDUCE;
        const JsonValue *set = json_get(ch, at_end ? "post" : "pre");
        if (set && set->kind == JSON_ARRAY && set->n == 1 && set->items[0]->kind == JSON_NUMBER &&
            set->items[0]->is_int && set->items[0]->ival >= 0 && set->items[0]->ival < r->n)
            r->root = (int)set->items[0]->ival;
    }
    if (chunks->n != (size_t)r->nchunks) {
        serr(r, chunks->span, "sccl-collective-mismatch",
             "'%s' has %zu chunks; a %s of %d ranks has %d", name->str, chunks->n,
             collective_info[r->coll].keyword, r->n, r->nchunks);
        return -1;
    }
    for (int k = 0; k < r->nchunks; k++) {
        const JsonValue *ch = chunks->items[k];
        if (ch->kind != JSON_OBJECT) {
            serr(r, ch->span, "sccl-format", "chunk %d of the collective is %s; it must be an object", k,
                 json_kind_name(ch->kind));
            return -1;
        }
        const char *what = arena_printf(r->arena, "chunk %d of the collective", k);
        JsonValue *pre = member(r, ch, what, "pre", JSON_ARRAY), *post = member(r, ch, what, "post", JSON_ARRAY);
        int64_t addr;
        if (!pre || !post || int_member(r, ch, what, "addr", 0, INT32_MAX, &addr)) return -1;
        int p0, p1, ib, ob;
        int want = chunk_shape(r, k, &p0, &p1, &ib, &ob);
        if (addr != want || !rank_set_is(pre, r->n, p0) || !rank_set_is(post, r->n, p1)) {
            serr(r, ch->span, "sccl-collective-mismatch",
                 "chunk %d is not that of %s: it must be at address %d, start on %s and end on %s",
                 k, name->str, want, rank_text(r->arena, p0), rank_text(r->arena, p1));
            return -1;
        }
    }
    return 0;
}

/* ---------- the AST ---------- */

enum { L_IN, L_OUT, L_RELAY, L_RECV };
static const char *const loc_names[] = {"in", "out", "relay", "recv"};

static Expr *num(SR *r, Span sp, int64_t v) { return ast_int(r->arena, sp, v); }

static void ref(SR *r, BufRef *b, Span sp, int rank, int buf, int chunk) {
    b->span = sp;
    b->name = loc_names[buf];
    b->name_span = sp;
    b->rank = num(r, sp, rank);
    b->lo = num(r, sp, chunk);
    b->hi = num(r, sp, (int64_t)chunk + 1);
}

/* Where `rank` holds address `a`: *buf, *chunk. */
static void where(const SR *r, int rank, int a, int *buf, int *chunk) {
    int c = a / r->P, i = a % r->P, pre, post, ib, ob;
    chunk_shape(r, c, &pre, &post, &ib, &ob);
    if (pre == rank || pre < 0) *buf = L_IN, *chunk = ib * r->P + i;
    else if (post == rank || post < 0) *buf = L_OUT, *chunk = ob * r->P + i;
    else *buf = L_RELAY, *chunk = a;
}

typedef struct List { Stmt *head, **tail; } List;
static void add(List *l, Stmt *s) { *l->tail = s; l->tail = &s->next; }

static Stmt *copy(SR *r, Span sp, int srank, int a, int drank, int dest_buf, int dest_chunk) {
    Stmt *s = ast_stmt(r->arena, STMT_XFER, sp);
    s->u.xfer.op = XFER_COPY;
    int b, ch;
    where(r, srank, a, &b, &ch);
    ref(r, &s->u.xfer.src, sp, srank, b, ch);
    ref(r, &s->u.xfer.dst, sp, drank, dest_buf, dest_chunk);
    return s;
}

static const char *algo_name(SR *r, const char *name) {
    const char *base = name;
    if (!base || !*base) {
        const char *path = source_file(diag_sources(r->dx), r->file)->path;
        const char *slash = strrchr(path, '/');
        base = slash ? slash + 1 : path;
        const char *dot = strrchr(base, '.');
        if (dot && strcmp(dot, ".json") == 0) base = arena_strndup(r->arena, base, (size_t)(dot - base));
    }
    char *s = arena_printf(r->arena, "%s%s", isdigit((unsigned char)base[0]) ? "_" : "", base);
    for (char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') *p = '_';
    return s;
}

/* Step k of the file: its sends (NULL after an error). */
static const JsonValue *step_sends(SR *r, const JsonValue *steps, size_t k) {
    const JsonValue *st = steps->items[k];
    const char *what = arena_printf(r->arena, "step %zu", k + 1);
    if (st->kind != JSON_OBJECT) {
        serr(r, st->span, "sccl-format", "%s is %s; it must be an object", what, json_kind_name(st->kind));
        return NULL;
    }
    int64_t rounds;
    JsonValue *sends = member(r, st, what, "sends", JSON_ARRAY);
    if (int_member(r, st, what, "rounds", 1, INT32_MAX, &rounds) || !sends) return NULL;
    return sends;
}

/* Send j of step k: [addr, src, dst] with addresses below A (-1 after an
 * error). */
static int read_send(SR *r, const JsonValue *s, size_t j, size_t k, int A, int *a, int *src, int *dst) {
    if (s->kind != JSON_ARRAY || s->n != 3) {
        serr(r, s->span, "sccl-format", "send %zu of step %zu is not [addr, src, dst]", j + 1, k + 1);
        return -1;
    }
    int e = r->errors;
    *a = (int)int_in(r, s->items[0], "the address of a send", 0, A - 1);
    *src = (int)int_in(r, s->items[1], "the source rank of a send", 0, r->n - 1);
    *dst = (int)int_in(r, s->items[2], "the destination rank of a send", 0, r->n - 1);
    if (r->errors > e) return -1;
    if (*src == *dst) {
        serr(r, s->span, "sccl-format", "a send from rank %d to itself", *src);
        return -1;
    }
    return 0;
}

static Stmt *xfer(SR *r, Span sp, XferOp op, int srank, int sbuf, int schunk, int drank, int dbuf, int dchunk) {
    Stmt *s = ast_stmt(r->arena, STMT_XFER, sp);
    s->u.xfer.op = op;
    ref(r, &s->u.xfer.src, sp, srank, sbuf, schunk);
    ref(r, &s->u.xfer.dst, sp, drank, dbuf, dchunk);
    return s;
}

static void add_scratch(SR *r, List *body, Span sp, int buf, int64_t chunks) {
    Stmt *s = ast_stmt(r->arena, STMT_SCRATCH, sp);
    s->u.scratch.name = loc_names[buf];
    s->u.scratch.name_span = sp;
    s->u.scratch.chunks = num(r, sp, chunks);
    add(body, s);
}

/* "ranks 0, 2" */
static const char *set_text(SR *r, const uint64_t *set) {
    const char *t = "";
    int count = 0;
    for (int q = 0; q < r->n; q++)
        if (set[q / 64] >> (q % 64) & 1) t = arena_printf(r->arena, "%s%s %d", t, count++ ? "," : "", q);
    return arena_printf(r->arena, "rank%s%s", count == 1 ? "" : "s", t);
}

typedef struct CSend { int a, src, dst, op, via_recv; const JsonValue *v; } CSend;

/* A combining collective being read: per (rank, address) slot, q * A + a. */
typedef struct Comb {
    int n, A, W;
    size_t slots;
    CSend **sends_of;   /* [step]: its sends, with their meaning */
    size_t *nsends;
    int *first_write;   /* the step (1-based) of its first receive */
    int *home_buf, *home_chunk; /* where its rank keeps it */
    int relay, step0;   /* whether `relay` and a first step are needed */
} Comb;

/* Reads whether send c of step k (the sets of contributions before the
 * step: set; after it: next) is a reduce or a copy. Returns 1 after
 * reporting a send that is neither. */
static int send_meaning(SR *r, Comb *cb, const uint64_t *set, uint64_t *next, CSend *c, size_t k) {
    int A = cb->A, W = cb->W;
    size_t si = (size_t)c->src * A + c->a, di = (size_t)c->dst * A + c->a;
    const uint64_t *S = &set[si * W];
    uint64_t *C = &next[di * W];
    int disjoint = 1, contains = 1;
    for (int w = 0; w < W; w++) {
        if (S[w] & C[w]) disjoint = 0;
        if (C[w] & ~S[w]) contains = 0;
    }
    if (!disjoint && !contains) {
        serr(r, c->v->span, "sccl-overlap",
             "rank %d sends address %d (chunk %d) to rank %d in step %zu with the contributions "
             "of %s, and rank %d holds those of %s: they overlap and the sent ones do not "
             "contain the held ones, so the send is neither a reduce (it would count a "
             "contribution twice) nor a copy (it would lose one)",
             c->src, c->a, c->a / r->P, c->dst, k + 1, set_text(r, S), c->dst, set_text(r, C));
        return 1;
    }
    c->op = disjoint ? XFER_REDUCE : XFER_COPY;
    for (int w = 0; w < W; w++) C[w] |= S[w];
    return 0;
}

/* The meaning of every send, step by step (cb->sends_of, first_write). */
static void combining_meaning(SR *r, Comb *cb, const JsonValue *steps) {
    int n = cb->n, A = cb->A, W = cb->W;
    size_t slots = cb->slots;
    uint64_t *set = xcalloc(slots * (size_t)W, sizeof(uint64_t)); /* [(q * A + a) * W]: contributions */
    uint64_t *next = xcalloc(slots * (size_t)W, sizeof(uint64_t));
    for (int q = 0; q < n; q++)
        for (int a = 0; a < A; a++) set[((size_t)q * A + a) * W + q / 64] |= 1ull << (q % 64);
    int *read_in = xcalloc(slots, sizeof(int));   /* the step (1-based) that last sent it */
    int *writes = xcalloc(slots, sizeof(int));    /* receives of it in the current step */
    int *stamp = xcalloc(slots, sizeof(int));     /* the step `writes` counts */
    CSend **sends_of = cb->sends_of;
    size_t *nsends = cb->nsends;
    int *first_write = cb->first_write;
    for (size_t k = 0; k < steps->n && !r->errors; k++) {
        const JsonValue *sends = step_sends(r, steps, k);
        if (!sends) break;
        CSend *cs = sends_of[k] = xcalloc(sends->n + 1, sizeof(CSend));
        memcpy(next, set, slots * (size_t)W * sizeof(uint64_t));
        for (size_t j = 0; j < sends->n && !r->errors; j++) {
            CSend *c = &cs[nsends[k]];
            if (read_send(r, sends->items[j], j, k, A, &c->a, &c->src, &c->dst)) break;
            c->v = sends->items[j];
            nsends[k]++;
            if (send_meaning(r, cb, set, next, c, k)) break;
            size_t si = (size_t)c->src * A + c->a, di = (size_t)c->dst * A + c->a;
            read_in[si] = (int)k + 1;
            if (stamp[di] != (int)k + 1) stamp[di] = (int)k + 1, writes[di] = 0;
            writes[di]++;
            if (!first_write[di]) first_write[di] = (int)k + 1;
        }
        for (size_t j = 0; j < nsends[k] && !r->errors; j++) {
            CSend *c = &cs[j];
            size_t di = (size_t)c->dst * A + c->a;
            if (c->op == XFER_COPY && writes[di] > 1) {
                serr(r, c->v->span, "sccl-mixed-receives",
                     "rank %d receives address %d (chunk %d) %d times in step %zu, and this one "
                     "replaces what it holds; collc reads the receives of one address in a step as "
                     "reduces only, or as one copy",
                     c->dst, c->a, c->a / r->P, writes[di], k + 1);
                break;
            }
            /* what its rank also sends in the step is read before the step ends */
            c->via_recv = read_in[di] == (int)k + 1;
        }
        memcpy(set, next, slots * (size_t)W * sizeof(uint64_t));
    }
    free(set);
    free(next);
    free(read_in);
    free(writes);
    free(stamp);
}

/* Where a rank keeps each address (cb->home_buf, home_chunk, relay, step0). */
static void combining_homes(SR *r, Comb *cb) {
    int n = cb->n, A = cb->A;
    int *first_write = cb->first_write, *home_buf = cb->home_buf, *home_chunk = cb->home_chunk;
    int relay = 0, step0 = 0;
    for (int q = 0; q < n; q++)
        for (int a = 0; a < A; a++) {
            size_t i = (size_t)q * A + a;
            /* the ranks where address a ends (collectives.py): every
             * rank, the root, or (reducescatter) rank a / P, at
             * position a % P of its one block of `out` */
            int post = r->coll == COLLECTIVE_ALLREDUCE ? q
                     : r->coll == COLLECTIVE_REDUCE    ? r->root
                                                       : a / r->P;
            if (post == q) {
                home_buf[i] = L_OUT;
                home_chunk[i] = a % r->P;
            } else if (first_write[i]) {
                home_buf[i] = L_RELAY, home_chunk[i] = a, relay = 1;
            } else {
                home_buf[i] = L_IN, home_chunk[i] = a;
            }
            /* a first copy received in step 1 needs a step before it */
            if (home_buf[i] != L_IN && first_write[i] == 1) step0 = 1;
        }
    cb->relay = relay, cb->step0 = step0;
}

/* The steps of the combining collective into `body`: the copies into the
 * homes first, then every step, with a step after it for the receives that
 * went through `recv`. */
static void combining_emit(SR *r, Comb *cb, List *body, Span sp, const JsonValue *steps) {
    int n = cb->n, A = cb->A;
    size_t slots = cb->slots;
    CSend **sends_of = cb->sends_of;
    size_t *nsends = cb->nsends;
    int *first_write = cb->first_write, *home_buf = cb->home_buf, *home_chunk = cb->home_chunk;
    int relay = cb->relay, step0 = cb->step0, nrecv = 0;
    List first = {NULL, NULL};
    Stmt *first_st = NULL;
    if (step0) {
        first_st = ast_stmt(r->arena, STMT_STEP, sp);
        first.tail = &first_st->u.step.body;
    }
    List *lists = xcalloc(steps->n + 1, sizeof(List));
    Stmt **st = xcalloc(steps->n + 1, sizeof(Stmt *)), **after = xcalloc(steps->n + 1, sizeof(Stmt *));
    List *after_l = xcalloc(steps->n + 1, sizeof(List));
    size_t nst = steps->n ? steps->n : 1;
    for (size_t k = 0; k < nst; k++) {
        st[k] = ast_stmt(r->arena, STMT_STEP, steps->n ? steps->items[k]->span : sp);
        lists[k].tail = &st[k]->u.step.body;
    }
    List *copies_to = step0 ? &first : &lists[0];
    for (int q = 0; q < n; q++)
        for (int a = 0; a < A; a++) {
            size_t i = (size_t)q * A + a;
            if (home_buf[i] != L_IN) add(copies_to, xfer(r, sp, XFER_COPY, q, L_IN, a, q, home_buf[i], home_chunk[i]));
        }
    memset(first_write, 0, sizeof(int) * slots);
    int *recv_used = xcalloc((size_t)n, sizeof(int));
    for (size_t k = 0; k < steps->n; k++) {
        memset(recv_used, 0, sizeof(int) * (size_t)n);
        for (size_t j = 0; j < nsends[k]; j++) {
            const CSend *c = &sends_of[k][j];
            size_t si = (size_t)c->src * A + c->a, di = (size_t)c->dst * A + c->a;
            int sb = first_write[si] ? home_buf[si] : L_IN, sc = first_write[si] ? home_chunk[si] : c->a;
            if (!c->via_recv) {
                add(&lists[k], xfer(r, c->v->span, (XferOp)c->op, c->src, sb, sc, c->dst, home_buf[di], home_chunk[di]));
                continue;
            }
            int t = recv_used[c->dst]++;
            if (t + 1 > nrecv) nrecv = t + 1;
            add(&lists[k], xfer(r, c->v->span, XFER_COPY, c->src, sb, sc, c->dst, L_RECV, t));
            if (!after[k]) {
                after[k] = ast_stmt(r->arena, STMT_STEP, c->v->span);
                after_l[k].tail = &after[k]->u.step.body;
            }
            add(&after_l[k], xfer(r, c->v->span, (XferOp)c->op, c->dst, L_RECV, t, c->dst, home_buf[di], home_chunk[di]));
        }
        for (size_t j = 0; j < nsends[k]; j++) {
            size_t di = (size_t)sends_of[k][j].dst * A + sends_of[k][j].a;
            if (!first_write[di]) first_write[di] = (int)k + 1;
        }
    }
    if (relay) add_scratch(r, body, sp, L_RELAY, A);
    if (nrecv) add_scratch(r, body, sp, L_RECV, nrecv);
    if (first_st) add(body, first_st);
    for (size_t k = 0; k < nst; k++) {
        if (st[k]->u.step.body) add(body, st[k]);
        if (after[k]) add(body, after[k]);
    }
    free(recv_used);
    free(lists);
    free(st);
    free(after);
    free(after_l);
}

/* The steps of a combining collective (see the top of the file). */
static void combining_body(SR *r, List *body, Span sp, const JsonValue *steps) {
    Comb cb;
    memset(&cb, 0, sizeof cb);
    cb.n = r->n, cb.A = r->naddr * r->P, cb.W = (r->n + 63) / 64;
    cb.slots = (size_t)cb.n * (size_t)cb.A;
    cb.sends_of = xcalloc(steps->n + 1, sizeof(CSend *));
    cb.nsends = xcalloc(steps->n + 1, sizeof(size_t));
    cb.first_write = xcalloc(cb.slots, sizeof(int));
    combining_meaning(r, &cb, steps);
    if (!r->errors) {
        cb.home_buf = xmalloc(sizeof(int) * cb.slots);
        cb.home_chunk = xmalloc(sizeof(int) * cb.slots);
        combining_homes(r, &cb);
        combining_emit(r, &cb, body, sp, steps);
        free(cb.home_buf);
        free(cb.home_chunk);
    }
    for (size_t k = 0; k <= steps->n; k++) free(cb.sends_of[k]);
    free(cb.sends_of);
    free(cb.nsends);
    free(cb.first_write);
}

static Algorithm *build(SR *r, const JsonValue *top, const JsonValue *steps, const char *name) {
    Algorithm *alg = ARENA_NEW(r->arena, Algorithm);
    Span sp = top->span;
    alg->span = sp;
    alg->name = algo_name(r, name);
    alg->name_span = sp;
    alg->coll = r->coll;
    alg->coll_span = sp;
    alg->uniform_chunks = 1;
    List body = {NULL, &alg->body};
    Stmt *req = ast_stmt(r->arena, STMT_REQUIRE, sp);
    req->u.require.cond = ast_binary(r->arena, sp, BOP_EQ, ast_name(r->arena, sp, "N"), num(r, sp, r->n));
    req->u.require.why = arena_printf(r->arena, "the file is for %d ranks", r->n);
    add(&body, req);
    if (collective_info[r->coll].rooted) {
        Stmt *rr = ast_stmt(r->arena, STMT_REQUIRE, sp);
        rr->u.require.cond = ast_binary(r->arena, sp, BOP_EQ, ast_name(r->arena, sp, "root"), num(r, sp, r->root));
        rr->u.require.why = arena_printf(r->arena, "the file's collective has root %d", r->root);
        add(&body, rr);
    }
    if (r->P > 1) {
        Stmt *s = ast_stmt(r->arena, STMT_SPLIT, sp);
        s->u.split.chunks = num(r, sp, r->P);
        add(&body, s);
    }
    if (r->combining) {
        combining_body(r, &body, sp, steps);
        return alg;
    }
    int A = r->nchunks * r->P, n = r->n;
    /* held[rank * A + a]: the step after which rank holds a (INT_MAX: not) */
    int *held = xmalloc(sizeof(int) * (size_t)n * (size_t)A);
    for (int k = 0; k < n * A; k++) held[k] = INT_MAX;
    for (int a = 0; a < A; a++)
        for (int q = 0; q < n; q++) {
            int pre, post, ib, ob;
            chunk_shape(r, a / r->P, &pre, &post, &ib, &ob);
            if (pre == q || pre < 0) held[q * A + a] = 0;
        }
    int relay = 0;
    size_t nst = steps->n ? steps->n : 1; /* no steps: one for the copies */
    List *steps_l = xcalloc(nst, sizeof(List));
    Stmt **step_st = xcalloc(nst, sizeof(Stmt *));
    for (size_t k = 0; k < nst; k++) {
        step_st[k] = ast_stmt(r->arena, STMT_STEP, steps->n ? steps->items[k]->span : sp);
        steps_l[k].tail = &step_st[k]->u.step.body;
    }
    /* the first step: where a chunk starts and ends, in -> out */
    for (int a = 0; a < A; a++)
        for (int q = 0; q < n; q++) {
            int pre, post, ib, ob;
            chunk_shape(r, a / r->P, &pre, &post, &ib, &ob);
            if ((pre == q || pre < 0) && (post == q || post < 0))
                add(&steps_l[0], copy(r, sp, q, a, q, L_OUT, ob * r->P + a % r->P));
        }
    int *arrive = xmalloc(sizeof(int) * (size_t)n * (size_t)A);
    for (size_t k = 0; k < steps->n && !r->errors; k++) {
        const JsonValue *sends = step_sends(r, steps, k);
        if (!sends) break;
        memcpy(arrive, held, sizeof(int) * (size_t)n * (size_t)A);
        for (size_t j = 0; j < sends->n && !r->errors; j++) {
            const JsonValue *s = sends->items[j];
            int a, src, dst;
            if (read_send(r, s, j, k, A, &a, &src, &dst)) break;
            if (held[src * A + a] > (int)k) {
                serr(r, s->span, "sccl-not-held",
                     "rank %d sends address %d (chunk %d) in step %zu, but it does not hold it "
                     "before that step",
                     src, a, a / r->P, k + 1);
                break;
            }
            int b, ch;
            where(r, (int)dst, (int)a, &b, &ch);
            if (b == L_IN) b = L_RELAY, ch = (int)a; /* a chunk back where it starts */
            relay |= b == L_RELAY;
            add(&steps_l[k], copy(r, s->span, (int)src, (int)a, (int)dst, b, ch));
            if (arrive[dst * A + a] > (int)k + 1) arrive[dst * A + a] = (int)k + 1;
        }
        memcpy(held, arrive, sizeof(int) * (size_t)n * (size_t)A);
    }
    free(arrive);
    free(held);
    if (relay) {
        Stmt *s = ast_stmt(r->arena, STMT_SCRATCH, sp);
        s->u.scratch.name = loc_names[L_RELAY];
        s->u.scratch.name_span = sp;
        s->u.scratch.chunks = num(r, sp, A);
        add(&body, s);
    }
    for (size_t k = 0; k < nst; k++)
        if (step_st[k]->u.step.body) add(&body, step_st[k]);
    free(steps_l);
    free(step_st);
    return alg;
}

int sccl_read(Arena *arena, DiagEngine *dx, uint32_t file_id, Program *prog) {
    const SourceFile *f = source_file(diag_sources(dx), file_id);
    SR r = {.arena = arena, .dx = dx, .file = file_id, .coll = COLLECTIVE__COUNT, .P = 1};
    uint32_t at;
    const char *why;
    JsonValue *top = json_parse(arena, file_id, f->text, f->len, &at, &why);
    if (!top) {
        serr(&r, (Span){file_id, at, at}, "sccl-json", "not valid JSON: %s", why);
        return r.errors;
    }
    if (top->kind != JSON_OBJECT) {
        serr(&r, top->span, "sccl-format", "the file is %s; an SCCL algorithm is an object",
             json_kind_name(top->kind));
        return r.errors;
    }
    JsonValue *type = json_get(top, "msccl_type");
    if (!type) type = json_get(top, "sccl_type");
    if (!type || type->kind != JSON_STRING || strcmp(type->str, "algorithm")) {
        serr(&r, type ? type->span : top->span, "sccl-format",
             "the file is not an SCCL algorithm: its top-level object needs \"msccl_type\": "
             "\"algorithm\"");
        return r.errors;
    }
    JsonValue *name = member(&r, top, "the algorithm", "name", JSON_STRING);
    JsonValue *inst = member(&r, top, "the algorithm", "instance", JSON_OBJECT);
    JsonValue *coll = member(&r, top, "the algorithm", "collective", JSON_OBJECT);
    JsonValue *steps = member(&r, top, "the algorithm", "steps", JSON_ARRAY);
    member(&r, top, "the algorithm", "input_map", JSON_OBJECT);
    member(&r, top, "the algorithm", "output_map", JSON_OBJECT);
    if (r.errors) return r.errors;
    int64_t P;
    if (int_member(&r, inst, "the instance", "chunks", 1, 1 << 16, &P)) return r.errors;
    r.P = (int)P;
    if (read_collective(&r, coll)) return r.errors;
    Algorithm *alg = build(&r, top, steps, name->str);
    if (r.errors) return r.errors;
    msccl_add_algorithm(arena, dx, prog, file_id, alg);
    return 0;
}

void sccl_group(DiagEngine *dx, const uint32_t *files, int nfiles) {
    /* an SCCL file states no conditions under which it is chosen */
    (void)dx, (void)files, (void)nfiles;
}

int sccl_sniff(const char *text, size_t len) {
    /* a JSON object that says "msccl_type" (or "sccl_type") "algorithm"
     * before its first nested value: the encoder writes it first */
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
    if (i >= len || text[i] != '{') return 0;
    size_t end = len - i < 512 ? len : i + 512;
    for (size_t k = i; k + 11 <= end; k++)
        if (!memcmp(text + k, "sccl_type\"", 10)) {
            size_t j = k + 10;
            while (j < end && (text[j] == ' ' || text[j] == ':' || text[j] == '\t' || text[j] == '\n')) j++;
            return j + 11 <= end && !memcmp(text + j, "\"algorithm\"", 11) ? 2 : 0;
        }
    return 0;
}
