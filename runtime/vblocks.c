/* vblocks.c - per-block counts (the v-collectives): which rank block every
 * chunk of a program holds, and the geometry of one call whose blocks
 * have counts of their own.
 *
 * A compiled program is written for blocks of one size. It serves blocks
 * of different sizes exactly when every chunk slot of every rank holds one
 * piece (position k of block b) for the whole call and every transfer
 * moves a range onto a range of the same pieces: the program then runs
 * piece by piece as it does on equal blocks, only the lengths change.
 * collrt_vmap_build checks that by following the plans of all N ranks
 * (which depend on N, the rank and the root only) step by step, messages
 * matched as the transports match them (FIFO per ordered pair and step),
 * and gives this rank's piece per slot. With `split P`, block b of
 * counts[b] elements is cut as a block of one size is (coll_piece_len,
 * shared with chunk.c and collc's `verify --vcounts`). */
#include <stdlib.h>
#include <string.h>
#include "collrt_internal.h"
#include "coll_vblocks.h"

/* The piece a slot of `buf`'s block `blk` holds at rank r before the call
 * (in) or after it (out): its block id (coll_vblocks.h). */
static int64_t natural(coll_collective coll, int N, int r, int buf, int64_t blk) {
    return coll_vblock_natural(coll, N, r, buf == COLL_BUF_IN, blk);
}

typedef struct slot {
    int64_t blk, pos;        /* the piece (blk < 0: none yet) */
    bool valid;              /* holds its piece now */
} slot;

/* One rank of the simulation. */
typedef struct vrank {
    const collrt_recording *plan;
    size_t next;             /* next op of the plan */
    int nbufs;
    int64_t chunks[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
    slot *s[COLL_BUF_SCRATCH0 + COLL_MAX_SCRATCH];
} vrank;

typedef struct msg {
    int src, dst;
    size_t first, n;         /* pieces[first, first + n) */
    int next;                /* the next message of the pair, -1 none */
    bool taken;
} msg;

typedef struct sim {
    int N;
    vrank *rk;
    msg *m;
    size_t nm, capm;
    slot *pieces;
    size_t np, capp;
    int *head, *tail;        /* per (src, dst) pair: first / last unreceived */
    const char *why;
} sim;

static bool fail(sim *s, const char *why) {
    if (!s->why) s->why = why;
    return false;
}

static slot *range(sim *s, vrank *r, int buf, int64_t lo, int64_t n) {
    if (buf < 0 || buf >= r->nbufs || lo < 0 || n < 0 || lo > r->chunks[buf] - n) {
        fail(s, "a chunk range outside its buffer");
        return NULL;
    }
    return r->s[buf] + lo;
}

static bool readable(sim *s, const slot *p, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (!p[i].valid) return fail(s, "reads a chunk before it holds data");
    return true;
}

/* dst := the pieces src, by the rule of coll_vblocks.h: a slot keeps the
 * one piece it first held. */
static bool write(sim *s, slot *dst, const slot *src, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        const char *why = coll_vblock_write(false, &dst[i].blk, &dst[i].pos, src[i].blk, src[i].pos);
        if (why) return fail(s, why);
        dst[i].valid = true;
    }
    return true;
}

/* A reduce of src into dst (both holding data, so pieces), by the same
 * rule: the pieces agree. */
static bool same(sim *s, const slot *dst, const slot *src, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        int64_t blk = dst[i].blk, pos = dst[i].pos;
        const char *why = coll_vblock_write(true, &blk, &pos, src[i].blk, src[i].pos);
        if (why) return fail(s, why);
    }
    return true;
}

static bool send(sim *s, int src, int dst, const slot *p, int64_t n) {
    if (n == 0) return true;   /* skipped by both sides */
    if (!readable(s, p, n)) return false;
    if (!collrt_grow((void **)&s->pieces, &s->capp, s->np + (size_t)n, sizeof *s->pieces) ||
        !collrt_grow((void **)&s->m, &s->capm, s->nm + 1, sizeof *s->m))
        return fail(s, "out of memory");
    memcpy(s->pieces + s->np, p, sizeof *p * (size_t)n);
    int k = (int)s->nm++;
    s->m[k] = (msg){src, dst, s->np, (size_t)n, -1, false};
    s->np += (size_t)n;
    size_t pair = (size_t)src * (size_t)s->N + (size_t)dst;
    if (s->head[pair] < 0) s->head[pair] = k;
    else s->m[s->tail[pair]].next = k;
    s->tail[pair] = k;
    return true;
}

/* The next message from src to dst of the step, of n chunks. */
static const slot *recv(sim *s, int src, int dst, int64_t n) {
    size_t pair = (size_t)src * (size_t)s->N + (size_t)dst;
    int k = s->head[pair];
    if (k < 0) {
        fail(s, "a receive without its send");
        return NULL;
    }
    if (s->m[k].n != (size_t)n) {
        fail(s, "a receive of another length than its send");
        return NULL;
    }
    s->head[pair] = s->m[k].next;
    s->m[k].taken = true;
    return s->pieces + s->m[k].first;
}

static bool peer_ok(sim *s, int64_t peer) {
    return peer >= 0 && peer < s->N ? true : fail(s, "a peer outside the communicator");
}

/* Phase 1 of a step on rank r: its sends (they see the state before the
 * step). Phase 2: everything else. The plan's step ends are the same on
 * all ranks (their step counters agree). */
static bool run_step(sim *s, int me, vrank *r, int phase) {
    const collrt_recording *p = r->plan;
    for (size_t i = r->next; i < p->n; i++) {
        const collrt_rec *o = &p->ops[i];
        if (o->kind == COLLRT_REC_STEP) {
            if (phase == 2) r->next = i + 1;
            return true;
        }
        if (o->kind == COLLRT_REC_SETUP) continue;
        if ((o->kind == COLLRT_REC_SEND) != (phase == 1)) continue;
        slot *a, *b;
        const slot *in;
        int64_t n;
        switch (o->kind) {
        case COLLRT_REC_SEND:
            n = o->y - o->x;
            if (!peer_ok(s, o->peer) || !(a = range(s, r, o->a, o->x, n))) return false;
            if (!send(s, me, (int)o->peer, a, n)) return false;
            break;
        case COLLRT_REC_RECV:
        case COLLRT_REC_RECV_REDUCE:
            n = o->y - o->x;
            if (!peer_ok(s, o->peer) || !(a = range(s, r, o->a, o->x, n))) return false;
            if (n == 0) break;
            if (!(in = recv(s, (int)o->peer, me, n))) return false;
            if (o->kind == COLLRT_REC_RECV ? !write(s, a, in, n)
                                           : !readable(s, a, n) || !same(s, a, in, n))
                return false;
            break;
        case COLLRT_REC_RECV_REDUCE_COPY:
            n = o->n;
            if (!peer_ok(s, o->peer) || !(a = range(s, r, o->a, o->x, n)) ||
                !(b = range(s, r, o->b, o->y, n)))
                return false;
            if (n == 0) break;
            if (!(in = recv(s, (int)o->peer, me, n))) return false;
            if (!readable(s, a, n) || !same(s, a, in, n) || !write(s, b, a, n)) return false;
            break;
        case COLLRT_REC_COPY:
        case COLLRT_REC_REDUCE:
            n = o->n;
            if (!(a = range(s, r, o->a, o->x, n)) || !(b = range(s, r, o->b, o->y, n)))
                return false;
            if (!readable(s, a, n)) return false;
            if (o->kind == COLLRT_REC_COPY ? !write(s, b, a, n)
                                           : !readable(s, b, n) || !same(s, b, a, n))
                return false;
            break;
        default: return fail(s, "an unknown operation");
        }
    }
    if (phase == 2) r->next = p->n;
    return true;
}

static bool rank_init(sim *s, coll_collective coll, int root, int me, vrank *r,
                      const collrt_recording *plan, int64_t split) {
    r->plan = plan;
    r->next = 0;
    collrt_layout lay;
    collrt_layout_for(coll, s->N, me, root, &lay);
    r->nbufs = COLL_BUF_SCRATCH0 + plan->nscratch;
    r->chunks[COLL_BUF_IN] = lay.in_blocks * split;
    r->chunks[COLL_BUF_OUT] = lay.out_blocks * split;
    for (int k = 0; k < plan->nscratch; k++) r->chunks[COLL_BUF_SCRATCH0 + k] = plan->chunks[k];
    for (int b = 0; b < r->nbufs; b++) {
        r->s[b] = calloc((size_t)r->chunks[b] + 1, sizeof *r->s[b]);
        if (!r->s[b]) return fail(s, "out of memory");
        for (int64_t i = 0; i < r->chunks[b]; i++) {
            slot *t = &r->s[b][i];
            t->blk = b < COLL_BUF_SCRATCH0 ? natural(coll, s->N, me, b, i / split) : -1;
            t->pos = b < COLL_BUF_SCRATCH0 ? i % split : 0;
            t->valid = b == COLL_BUF_IN;
        }
    }
    return true;
}

int collrt_vmap_build(coll_collective coll, int N, int me, int root,
                      const collrt_recording *plans, collrt_vmap *out, const char **why) {
    memset(out, 0, sizeof *out);
    *why = NULL;
    /* N * N pair queues (8 bytes each): bounded so that they stay small */
    if (N < 1 || N > 1024 || me < 0 || me >= N) {
        *why = "the communicator is too large to follow every rank's plan";
        return COLL_ERR_NOT_APPLICABLE;
    }
    if (natural(coll, N, 0, COLL_BUF_IN, 0) < 0) {
        *why = "the collective has no v-form";
        return COLL_ERR_NOT_APPLICABLE;
    }
    int64_t split = 0;
    for (int r = 0; r < N; r++) {
        const collrt_recording *p = &plans[r];
        if (!p->began || p->nomem || p->status != COLL_OK || !p->finished) {
            *why = "its plan could not be recorded";
            return COLL_ERR_NOT_APPLICABLE;
        }
        if (p->n == 0) continue;   /* nothing to do on this rank (count 0) */
        if (split && p->split != split) {
            *why = "its ranks split blocks differently";
            return COLL_ERR_NOT_APPLICABLE;
        }
        split = p->split;
    }
    if (split < 1) split = 1;
    sim s = {.N = N};
    s.rk = calloc((size_t)N, sizeof *s.rk);
    s.head = malloc(sizeof *s.head * (size_t)N * (size_t)N);
    s.tail = malloc(sizeof *s.tail * (size_t)N * (size_t)N);
    bool ok = s.rk && s.head && s.tail;
    if (!ok) fail(&s, "out of memory");
    for (int r = 0; ok && r < N; r++) ok = rank_init(&s, coll, root, r, &s.rk[r], &plans[r], split);
    for (size_t i = 0; ok && i < (size_t)N * (size_t)N; i++) s.head[i] = s.tail[i] = -1;
    for (bool more = ok; ok && more;) {
        s.nm = s.np = 0;
        for (int r = 0; ok && r < N; r++) ok = run_step(&s, r, &s.rk[r], 1);
        for (int r = 0; ok && r < N; r++) ok = run_step(&s, r, &s.rk[r], 2);
        for (size_t k = 0; ok && k < s.nm; k++)
            if (!s.m[k].taken) ok = fail(&s, "a send without its receive");
        more = false;
        for (int r = 0; ok && r < N; r++) more |= s.rk[r].next < s.rk[r].plan->n;
    }
    /* every output chunk was written, with its own piece (write checked) */
    for (int r = 0; ok && r < N; r++)
        for (int64_t i = 0; ok && i < s.rk[r].chunks[COLL_BUF_OUT]; i++)
            if (!s.rk[r].s[COLL_BUF_OUT][i].valid) ok = fail(&s, "leaves an output chunk unwritten");
    if (ok) {
        vrank *r = &s.rk[me];
        out->split = split;
        out->nbufs = r->nbufs;
        size_t total = 0;
        for (int b = 0; b < r->nbufs; b++) total += (size_t)r->chunks[b];
        out->mem = malloc(sizeof *out->mem * (total + 1));
        if (!out->mem) ok = fail(&s, "out of memory");
        size_t at = 0;
        for (int b = 0; ok && b < r->nbufs; b++) {
            out->chunks[b] = r->chunks[b];
            out->piece[b] = out->mem + at;
            for (int64_t i = 0; i < r->chunks[b]; i++)
                out->piece[b][i] = (collrt_vpiece){r->s[b][i].blk, r->s[b][i].pos};
            at += (size_t)r->chunks[b];
        }
    }
    for (int r = 0; s.rk && r < N; r++)
        for (int b = 0; b < s.rk[r].nbufs; b++) free(s.rk[r].s[b]);
    free(s.rk);
    free(s.head);
    free(s.tail);
    free(s.m);
    free(s.pieces);
    if (ok) return COLL_OK;
    *why = s.why;
    collrt_vmap_free(out);
    return COLL_ERR_NOT_APPLICABLE;
}

void collrt_vmap_free(collrt_vmap *m) {
    free(m->mem);
    memset(m, 0, sizeof *m);
}

collrt_vgeom *collrt_vgeom_build(const collrt_vmap *m, const size_t *counts, size_t ncounts) {
    size_t total = 0;
    for (int b = 0; b < m->nbufs; b++) total += (size_t)m->chunks[b] + 1;
    collrt_vgeom *g = malloc(sizeof *g + sizeof(size_t) * total);
    if (!g) return NULL;
    g->nbufs = m->nbufs;
    size_t *at = (size_t *)(g + 1);
    size_t P = (size_t)m->split;
    for (int b = 0; b < m->nbufs; b++) {
        g->chunks[b] = m->chunks[b];
        g->off[b] = at;
        at[0] = 0;
        for (int64_t i = 0; i < m->chunks[b]; i++) {
            const collrt_vpiece *p = &m->piece[b][i];
            size_t len = 0;
            if (p->blk >= 0) {
                if ((size_t)p->blk >= ncounts) {
                    free(g);
                    return NULL;
                }
                len = coll_piece_len(counts[p->blk], P, (size_t)p->pos);
            }
            if (__builtin_add_overflow(at[i], len, &at[i + 1])) {
                free(g);
                return NULL;
            }
        }
        at += m->chunks[b] + 1;
    }
    return g;
}
