/* msccl_write.c - a schedule written as MSCCL-IR for the executor.
 *
 * Each transfer between two ranks is a send (`s`) of the source rank and a
 * receive of the destination rank (`r` for a copy, `rrc` onto itself for a
 * reduce), in the thread block of that peer and channel on each side (one
 * thread block per (peer, channel), sending to and receiving from that
 * peer); a transfer inside a rank is a `cpy` or `re` of the rank's local
 * thread block. The steps of a thread block keep the schedule's order
 * (within a step, sends first), and so do the sends of a connection and
 * their receives (FIFO). Across thread
 * blocks of a rank, a step waits (depid/deps, and `nop` steps before it for
 * more than one) for the last step that wrote each chunk it touches and,
 * when it writes, for the steps that read it since, and a step the
 * executor would run before its schedule step waits for one of the step
 * before (keep_step). Scratch buffers are laid out one after the other in
 * `s`. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "msccl/msccl.h"
#include "msccl/msccl_write.h"
#include "support/util.h"

enum { ENC = 1 << 20 }; /* a step as tb * ENC + s */

typedef struct WStep {
    MsType type;
    MsBuf srcbuf, dstbuf;
    int srcoff, dstoff, cnt;
    int depid, deps, hasdep;
    int step;           /* the schedule's step it is of (0-based) */
    Span span;          /* the transfer's statement */
} WStep;

typedef struct WTb {
    int send, recv, chan;
    WStep *steps;
    int n, cap;
} WTb;

typedef struct WRank {
    WTb *tbs;
    int ntbs, cap;
    int local;          /* its local thread block (-1: none yet) */
    /* per chunk of i, o, s: the last step writing it, and the last step of
     * each thread block reading it since (tb * ENC + s; -1 none) */
    int *last_write[MS_BUF__COUNT];
    int **readers[MS_BUF__COUNT];
    int chunks[MS_BUF__COUNT];
} WRank;

typedef struct W {
    const Schedule *s;
    const MsWriteOptions *o;
    WRank *ranks;
    int *scratch_base; /* [nbuffers]: offset of each scratch buffer in `s` */
    int *moving_index; /* [nsteps]: a step's index among those that move data */
    int nscratch;
    int channels;      /* the file's nchannels */
} W;

static int tb_for(WRank *r, int send, int recv, int chan) {
    for (int t = 0; t < r->ntbs; t++)
        if (r->tbs[t].send == send && r->tbs[t].recv == recv && r->tbs[t].chan == chan) return t;
    if (r->ntbs == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 8;
        r->tbs = xrealloc(r->tbs, sizeof(WTb) * (size_t)r->cap);
    }
    WTb *t = &r->tbs[r->ntbs];
    memset(t, 0, sizeof *t);
    t->send = send, t->recv = recv, t->chan = chan;
    return r->ntbs++;
}

static WStep *push_step(WTb *t) {
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->steps = xrealloc(t->steps, sizeof(WStep) * (size_t)t->cap);
    }
    WStep *s = &t->steps[t->n++];
    memset(s, 0, sizeof *s);
    s->depid = s->deps = -1;
    return s;
}

/* collc's (buffer, chunk) as MSCCL's. */
static void ms_loc(const W *w, int buf, int chunk, MsBuf *b, int *off) {
    if (buf == BUF_IN) *b = MS_BUF_I, *off = chunk;
    else if (buf == BUF_OUT) *b = MS_BUF_O, *off = chunk;
    else *b = MS_BUF_S, *off = w->scratch_base[buf] + chunk;
}

typedef struct Deps { int tb[MS_MAX_TB]; int n; int s[MS_MAX_TB]; } Deps;

static void dep_add(Deps *d, int self_tb, int code) {
    if (code < 0) return;
    int tb = code / ENC, s = code % ENC;
    if (tb == self_tb) return;
    for (int i = 0; i < d->n; i++)
        if (d->tb[i] == tb) {
            if (s > d->s[i]) d->s[i] = s;
            return;
        }
    d->tb[d->n] = tb;
    d->s[d->n++] = s;
}

/* The dependencies of an access by thread block tb of rank r to chunks
 * [off, off + cnt) of buffer b, reading or writing. */
static void hazards(WRank *r, int tb, MsBuf b, int off, int cnt, int write, Deps *d) {
    for (int c = off; c < off + cnt; c++) {
        dep_add(d, tb, r->last_write[b][c]);
        if (write)
            for (int t = 0; t < r->ntbs; t++) dep_add(d, tb, r->readers[b][c] ? r->readers[b][c][t] : -1);
    }
}

static void record(WRank *r, int tb, int s, MsBuf b, int off, int cnt, int write) {
    for (int c = off; c < off + cnt; c++) {
        if (!r->readers[b][c]) {
            r->readers[b][c] = xmalloc(sizeof(int) * MS_MAX_TB);
            for (int t = 0; t < MS_MAX_TB; t++) r->readers[b][c][t] = -1;
        }
        if (write) {
            r->last_write[b][c] = tb * ENC + s;
            for (int t = 0; t < MS_MAX_TB; t++) r->readers[b][c][t] = -1;
        } else {
            r->readers[b][c][tb] = tb * ENC + s;
        }
    }
}

/* The last step of thread block t before index `end` that moves data. */
static const WStep *last_moving(const WTb *t, int end, int *at) {
    for (int k = end - 1; k >= 0; k--)
        if (t->steps[k].type != MS_NOP) {
            *at = k;
            return &t->steps[k];
        }
    return NULL;
}

/* A step of schedule step k that nothing keeps out of step k - 1 (the
 * executor would run it as soon as its data is there, earlier than the
 * schedule says) waits for a step of k - 1 of another thread block of its
 * rank: the reader's rounds (msccl_sched.c) are then the schedule's steps,
 * and so are its cost and contention. Kept out already: a step waiting for
 * one of k - 1, a receive (its send is of step k), a send after a receive
 * of k - 1 in its thread block (which it waits for). */
static void keep_step(const WRank *r, int tb, const WStep *st, Deps *d) {
    int k = st->step, at;
    if (k == 0 || st->type == MS_R || st->type == MS_RRC) return;
    for (int i = 0; i < d->n; i++)
        if (r->tbs[d->tb[i]].steps[d->s[i]].step == k - 1) return;
    const WStep *prev = last_moving(&r->tbs[tb], r->tbs[tb].n, &at);
    if (st->type == MS_S && prev && prev->step == k - 1 && prev->type != MS_S) return;
    for (int t = 0; t < r->ntbs; t++) {
        if (t == tb) continue;
        for (int end = r->tbs[t].n; (prev = last_moving(&r->tbs[t], end, &at)) && prev->step >= k - 1; end = at)
            if (prev->step == k - 1) {
                dep_add(d, tb, t * ENC + at);
                return;
            }
    }
}

/* Appends a step to thread block tb of rank r, after the nops that carry all
 * but one of its dependencies; marks the steps it waits for. */
static void add_step(W *w, int rank, int tb, WStep st, int reads, int writes) {
    WRank *r = &w->ranks[rank];
    Deps d;
    d.n = 0;
    if (reads) hazards(r, tb, st.srcbuf, st.srcoff, st.cnt, 0, &d);
    if (writes) hazards(r, tb, st.dstbuf, st.dstoff, st.cnt, 1, &d);
    keep_step(r, tb, &st, &d);
    for (int i = 0; i < d.n; i++) {
        r->tbs[d.tb[i]].steps[d.s[i]].hasdep = 1;
        WStep *x = push_step(&r->tbs[tb]);
        if (i + 1 < d.n) {
            x->type = MS_NOP;
            x->step = st.step;
            x->depid = d.tb[i], x->deps = d.s[i];
        } else {
            *x = st;
            x->depid = d.tb[i], x->deps = d.s[i];
        }
    }
    if (!d.n) *push_step(&r->tbs[tb]) = st;
    int s = r->tbs[tb].n - 1;
    if (reads) record(r, tb, s, st.srcbuf, st.srcoff, st.cnt, 0);
    if (writes) record(r, tb, s, st.dstbuf, st.dstoff, st.cnt, 1);
}

/* Half `half` of transfer t: 0 the send of a message, 1 its receive or a
 * transfer inside a rank. */
static void one_transfer(W *w, const Transfer *t, int step, int chan, int half) {
    WStep st;
    memset(&st, 0, sizeof st);
    st.depid = st.deps = -1;
    st.step = step;
    st.span = t->span;
    st.cnt = t->src.hi - t->src.lo;
    MsBuf sb, db;
    int so, dof;
    ms_loc(w, t->src.buffer, t->src.lo, &sb, &so);
    ms_loc(w, t->dst.buffer, t->dst.lo, &db, &dof);
    if (t->src.rank == t->dst.rank) {
        if (!half) return;
        WRank *r = &w->ranks[t->src.rank];
        if (r->local < 0) r->local = tb_for(r, -1, -1, 0);
        st.type = t->op == XFER_REDUCE ? MS_RE : MS_CPY;
        st.srcbuf = sb, st.srcoff = so, st.dstbuf = db, st.dstoff = dof;
        add_step(w, t->src.rank, r->local, st, 1, 1);
        return;
    }
    int a = t->src.rank, b = t->dst.rank;
    if (!half) {
        WStep snd = st;
        snd.type = MS_S;
        snd.srcbuf = sb, snd.srcoff = so, snd.dstbuf = db, snd.dstoff = dof;
        add_step(w, a, tb_for(&w->ranks[a], b, b, chan), snd, 1, 0);
        return;
    }
    WStep rcv = st;
    rcv.type = t->op == XFER_REDUCE ? MS_RRC : MS_R;
    rcv.srcbuf = db, rcv.srcoff = dof, rcv.dstbuf = db, rcv.dstoff = dof;
    add_step(w, b, tb_for(&w->ranks[b], a, a, chan), rcv, 0, 1);
}

static const char *coll_name(Collective c) {
    switch (c) {
    case COLLECTIVE_ALLREDUCE: return "allreduce";
    case COLLECTIVE_ALLGATHER: return "allgather";
    case COLLECTIVE_REDUCE_SCATTER: return "reducescatter";
    case COLLECTIVE_ALLTOALL: return "alltoall";
    case COLLECTIVE_BROADCAST: return "broadcast";
    case COLLECTIVE_REDUCE: return "reduce";
    case COLLECTIVE_SCATTER:
    case COLLECTIVE_GATHER:
    case COLLECTIVE__COUNT: return NULL;
    }
    return NULL;
}

/* Notes where step x of the file is (map may be NULL). */
static void note_origin(MsStepMap *map, FILE *f, const W *w, const WStep *x) {
    if (!map || x->type == MS_NOP || x->cnt == 0) return;
    if (map->n == map->cap) {
        map->cap = map->cap ? 2 * map->cap : 256;
        map->v = xrealloc(map->v, map->cap * sizeof *map->v);
    }
    map->v[map->n++] = (MsStepOrigin){ftell(f), w->moving_index[x->step], x->span};
}

static void print_xml(FILE *f, const W *w, const char *name, int nchunks, MsStepMap *map) {
    const Schedule *s = w->s;
    const MsWriteOptions *o = w->o;
    fprintf(f,
            "<algo name=\"%s\" proto=\"%s\" nchannels=\"%d\" nchunksperloop=\"%d\" ngpus=\"%" PRId64
            "\" coll=\"%s\" inplace=\"%d\" outofplace=\"%d\" minBytes=\"%" PRId64
            "\" maxBytes=\"%" PRId64 "\">\n",
            name, o->proto, w->channels, nchunks, s->N, coll_name(s->alg->coll), o->inplace,
            !o->inplace, o->min_bytes, o->max_bytes);
    for (int r = 0; r < s->N; r++) {
        const WRank *wr = &w->ranks[r];
        fprintf(f, "  <gpu id=\"%d\" i_chunks=\"%d\" o_chunks=\"%d\" s_chunks=\"%d\">\n", r,
                wr->chunks[MS_BUF_I], wr->chunks[MS_BUF_O], wr->chunks[MS_BUF_S]);
        for (int t = 0; t < wr->ntbs; t++) {
            const WTb *tb = &wr->tbs[t];
            fprintf(f, "    <tb id=\"%d\" send=\"%d\" recv=\"%d\" chan=\"%d\">\n", t, tb->send,
                    tb->recv, tb->chan);
            for (int k = 0; k < tb->n; k++) {
                const WStep *x = &tb->steps[k];
                fputs("      ", f);
                note_origin(map, f, w, x);
                fprintf(f,
                        "<step s=\"%d\" type=\"%s\" srcbuf=\"%c\" srcoff=\"%d\" dstbuf=\"%c\" "
                        "dstoff=\"%d\" cnt=\"%d\" depid=\"%d\" deps=\"%d\" hasdep=\"%d\"/>\n",
                        k, ms_type_info[x->type].name, ms_buf_name[x->srcbuf], x->srcoff,
                        ms_buf_name[x->dstbuf], x->dstoff, x->cnt, x->depid, x->deps, x->hasdep);
            }
            fputs("    </tb>\n", f);
        }
        fputs("  </gpu>\n", f);
    }
    fputs("</algo>\n", f);
}

/* nth[i]: how many messages of transfer i's step go from its source rank to
 * its destination before it (0 for a transfer inside a rank); returns the
 * most messages of one step between one ordered pair of ranks (at least 1):
 * the channels that let every step's messages to a peer run side by side. */
static int nth_to_peer(const Schedule *s, int *nth) {
    int most = 1;
    for (size_t k = 0; k < s->nsteps; k++) {
        const Step *st = &s->steps[k];
        for (size_t i = 0; i < st->count; i++) {
            const Transfer *t = &s->xfers[st->first + i];
            nth[st->first + i] = 0;
            if (t->src.rank == t->dst.rank) continue;
            for (size_t j = 0; j < i; j++) {
                const Transfer *u = &s->xfers[st->first + j];
                if (u->src.rank == t->src.rank && u->dst.rank == t->dst.rank) {
                    nth[st->first + i] = nth[st->first + j] + 1;
                }
            }
            if (nth[st->first + i] + 1 > most) most = nth[st->first + i] + 1;
        }
    }
    return most;
}

/* The executor's limits, as an error naming the first one not met. */
static int check_limits(const W *w, DiagEngine *dx) {
    for (int r = 0; r < w->s->N; r++) {
        const WRank *wr = &w->ranks[r];
        if (wr->ntbs > MS_MAX_TB) {
            diag_error(dx, w->s->alg->name_span, "msccl-limit",
                       "rank %d needs %d thread blocks; the executor has at most %d", r, wr->ntbs,
                       MS_MAX_TB);
            return 1;
        }
        for (int t = 0; t < wr->ntbs; t++) {
            if (wr->tbs[t].n > MS_MAX_STEPS) {
                diag_error(dx, w->s->alg->name_span, "msccl-limit",
                           "thread block %d of rank %d needs %d steps; the executor runs at most %d "
                           "(more --channels spread them)",
                           t, r, wr->tbs[t].n, MS_MAX_STEPS);
                return 1;
            }
            for (int k = 0; k < wr->tbs[t].n; k++)
                if (wr->tbs[t].steps[k].cnt >= MS_MAX_COUNT) {
                    diag_error(dx, w->s->alg->name_span, "msccl-limit",
                               "a transfer of %d chunks; the executor's cnt is below %d",
                               wr->tbs[t].steps[k].cnt, MS_MAX_COUNT);
                    return 1;
                }
        }
    }
    return 0;
}

int msccl_write(FILE *f, const Schedule *s, const MsWriteOptions *o, DiagEngine *dx, MsStepMap *map) {
    const char *coll = coll_name(s->alg->coll);
    if (!coll) {
        diag_error(dx, s->alg->coll_span, "msccl-unsupported-collective",
                   "the MSCCL executor runs no %s written by collc (it writes allreduce, "
                   "allgather, reduce_scatter, alltoall, broadcast and reduce)",
                   collective_info[s->alg->coll].keyword);
        return 1;
    }
    const CollectiveInfo *ci = &collective_info[s->alg->coll];
    int per_rank = ci->in_blocks == BLOCKS_N || ci->out_blocks == BLOCKS_N;
    int64_t nchunks = s->split * (per_rank ? s->N : 1);
    if (nchunks > INT16_MAX) {
        diag_error(dx, s->alg->name_span, "msccl-limit",
                   "%" PRId64 " chunks per loop; the executor's offsets are 16-bit", nchunks);
        return 1;
    }
    W w;
    memset(&w, 0, sizeof w);
    w.s = s;
    w.o = o;
    w.scratch_base = xcalloc((size_t)s->nbuffers, sizeof(int));
    w.ranks = xcalloc((size_t)s->N, sizeof(WRank));
    w.moving_index = xcalloc(s->nsteps + 1, sizeof(int));
    size_t moving = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        w.moving_index[k] = (int)moving;
        moving += s->steps[k].count > 0;
    }
    if (map) map->steps = moving;
    for (int r = 0; r < s->N; r++) {
        WRank *wr = &w.ranks[r];
        wr->local = -1;
        int base = 0;
        for (int b = BUF_FIRST_SCRATCH; b < s->nbuffers; b++) {
            w.scratch_base[b] = base;
            base += (int)schedule_chunks(s, b, r);
        }
        wr->chunks[MS_BUF_I] = (int)schedule_chunks(s, BUF_IN, r);
        wr->chunks[MS_BUF_O] = (int)schedule_chunks(s, BUF_OUT, r);
        wr->chunks[MS_BUF_S] = base;
        for (int b = 0; b < MS_BUF__COUNT; b++) {
            wr->last_write[b] = xmalloc(sizeof(int) * (size_t)(wr->chunks[b] + 1));
            for (int c = 0; c <= wr->chunks[b]; c++) wr->last_write[b][c] = -1;
            wr->readers[b] = xcalloc((size_t)wr->chunks[b] + 1, sizeof(int *));
        }
    }
    int *nth = xmalloc(sizeof(int) * (s->nxfers + 1));
    int most = nth_to_peer(s, nth);
    w.channels = o->channels > 0 ? o->channels : most < MS_MAXCHANNELS ? most : MS_MAXCHANNELS;
    /* in each step every send before every receive: a thread block runs
     * its steps in order and a receive waits for its data, so a thread
     * block that received first would send a step late (an exchange would
     * take two); a step's reads see the state before it either way. The
     * n-th message of a step from one rank to one peer goes one channel
     * further, so with enough channels a step's messages to a peer run side
     * by side in their own thread blocks instead of one after the other. */
    for (size_t k = 0; k < s->nsteps; k++) {
        const Step *st = &s->steps[k];
        for (int half = 0; half < 2; half++)
            for (size_t i = 0; i < st->count; i++) {
                const Transfer *t = &s->xfers[st->first + i];
                size_t chan = (size_t)(t->src.rank + t->dst.rank + (int)k) + (size_t)nth[st->first + i];
                one_transfer(&w, t, (int)k, (int)(chan % (size_t)w.channels), half);
            }
    }
    free(nth);
    int failed = check_limits(&w, dx);
    if (!failed) print_xml(f, &w, s->alg->name, (int)nchunks, map);
    for (int r = 0; r < s->N; r++) {
        WRank *wr = &w.ranks[r];
        for (int t = 0; t < wr->ntbs; t++) free(wr->tbs[t].steps);
        free(wr->tbs);
        for (int b = 0; b < MS_BUF__COUNT; b++) {
            for (int c = 0; c < wr->chunks[b]; c++) free(wr->readers[b][c]);
            free(wr->readers[b]);
            free(wr->last_write[b]);
        }
    }
    free(w.ranks);
    free(w.scratch_base);
    free(w.moving_index);
    return failed;
}
