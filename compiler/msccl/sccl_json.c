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
 * it from `in` to `out` in the first step. SCCL synthesizes the
 * collectives that do not combine (allgather, alltoall, broadcast, scatter,
 * gather); the chunks of the file's collective must be those of the one
 * its name says. */
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
typedef struct SColl { const char *name; Collective coll; int nchunks_sq; } SColl;
static const SColl scolls[] = {
    {"Allgather", COLLECTIVE_ALLGATHER, 0},
    {"Alltoall", COLLECTIVE_ALLTOALL, 1},
    {"Broadcast", COLLECTIVE_BROADCAST, 0},
    {"Scatter", COLLECTIVE_SCATTER, 0},
    {"Gather", COLLECTIVE_GATHER, 0},
};
static const char *const combining[] = {"Allreduce", "Reduce", "ReduceScatter", "Scan"};

typedef struct SR {
    Arena *arena;
    DiagEngine *dx;
    uint32_t file;
    int errors;
    Collective coll;
    int n, P, root, nchunks;
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
 * rank or -1 for every rank; its block in `in` and in `out`. */
static void chunk_shape(const SR *r, int c, int *pre, int *post, int *in_blk, int *out_blk) {
    int n = r->n;
    *in_blk = *out_blk = 0;
    switch (r->coll) {
    case COLLECTIVE_ALLGATHER: *pre = c, *post = -1, *out_blk = c; break;
    case COLLECTIVE_ALLTOALL: *pre = c % n, *post = c / n, *in_blk = c / n, *out_blk = c % n; break;
    case COLLECTIVE_BROADCAST: *pre = r->root, *post = -1; break;
    case COLLECTIVE_SCATTER: *pre = r->root, *post = c, *in_blk = c; break;
    case COLLECTIVE_GATHER: *pre = c, *post = r->root, *out_blk = c; break;
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
        int comb = 0;
        for (size_t k = 0; k < ARRAY_LEN(combining); k++)
            comb |= strlen(combining[k]) == len && !strncmp(combining[k], name->str, len);
        serr(r, name->span, "sccl-unsupported-collective",
             "collc does not read SCCL algorithms of '%s'%s (it reads Allgather, Alltoall, "
             "Broadcast, Scatter and Gather)",
             name->str, comb ? ", a combining collective" : "");
        return -1;
    }
    r->coll = sc->coll;
    r->n = (int)nodes;
    r->nchunks = sc->coll == COLLECTIVE_BROADCAST ? 1 : sc->nchunks_sq ? r->n * r->n : r->n;
    r->root = 0;
    if (collective_info[sc->coll].rooted && chunks->n > 0) {
        /* the root: where a broadcast's or scatter's chunks start, a gather's end */
        const JsonValue *ch = chunks->items[0];
        const JsonValue *set = json_get(ch, sc->coll == COLLECTIVE_GATHER ? "post" : "pre");
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
        chunk_shape(r, k, &p0, &p1, &ib, &ob);
        if (addr != k || !rank_set_is(pre, r->n, p0) || !rank_set_is(post, r->n, p1)) {
            serr(r, ch->span, "sccl-collective-mismatch",
                 "chunk %d is not that of %s: it must be at address %d, start on %s and end on %s",
                 k, name->str, k, rank_text(r->arena, p0), rank_text(r->arena, p1));
            return -1;
        }
    }
    return 0;
}

/* ---------- the AST ---------- */

enum { L_IN, L_OUT, L_RELAY };
static const char *const loc_names[] = {"in", "out", "relay"};

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
        const JsonValue *st = steps->items[k];
        const char *what = arena_printf(r->arena, "step %zu", k + 1);
        if (st->kind != JSON_OBJECT) {
            serr(r, st->span, "sccl-format", "%s is %s; it must be an object", what, json_kind_name(st->kind));
            break;
        }
        int64_t rounds;
        JsonValue *sends = member(r, st, what, "sends", JSON_ARRAY);
        if (int_member(r, st, what, "rounds", 1, INT32_MAX, &rounds) || !sends) break;
        memcpy(arrive, held, sizeof(int) * (size_t)n * (size_t)A);
        for (size_t j = 0; j < sends->n && !r->errors; j++) {
            const JsonValue *s = sends->items[j];
            if (s->kind != JSON_ARRAY || s->n != 3) {
                serr(r, s->span, "sccl-format", "send %zu of %s is not [addr, src, dst]", j + 1, what);
                break;
            }
            int64_t a = int_in(r, s->items[0], "the address of a send", 0, A - 1);
            int64_t src = int_in(r, s->items[1], "the source rank of a send", 0, n - 1);
            int64_t dst = int_in(r, s->items[2], "the destination rank of a send", 0, n - 1);
            if (r->errors) break;
            if (src == dst) {
                serr(r, s->span, "sccl-format", "a send from rank %" PRId64 " to itself", src);
                break;
            }
            if (held[src * A + a] > (int)k) {
                serr(r, s->span, "sccl-not-held",
                     "rank %" PRId64 " sends address %" PRId64 " (chunk %d) in step %zu, but it does "
                     "not hold it before that step",
                     src, a, (int)a / r->P, k + 1);
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
    SR r = {arena, dx, file_id, 0, COLLECTIVE__COUNT, 0, 1, 0, 0};
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
