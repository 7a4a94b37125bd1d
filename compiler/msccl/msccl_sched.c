/* msccl_sched.c - the meaning of an MSCCL-IR file as a collc algorithm.
 *
 * The executor runs every thread block of a rank as a sequential program.
 * A step that sends goes to the thread block's send peer on its channel and
 * pairs, first in first out, with the receiving steps of the one thread
 * block of that peer that receives from this rank on that channel; a step
 * with depid/deps waits until step `deps` of thread block `depid` of its
 * rank is done. Each step becomes events (msccl_steps.def):
 *
 *   s     send src                 r     receive into dst
 *   rcs   receive into dst, send dst
 *   rrc   receive and reduce into dst (src != dst: copy src to dst first)
 *   rrcs  rrc, then send dst       rrs   src copied to a temporary, the
 *                                        receive reduced into it, sent on
 *   cpy   copy src -> dst          re    reduce src into dst
 *
 * and a send and its receive happen together as one transfer. The events
 * are placed as early as their thread block, their dependency and (for a
 * message) the partner allow: round k is collc step k. A thread block's
 * round holds at most one send, then its receives and copies, as the
 * executor runs them without waiting in between (joins()); one that moves nothing (a nop)
 * takes none, as on the GPU, where it only waits: were it a round, thread
 * blocks with more nops before the same transfer would send it later, and
 * one phase of the algorithm would be priced as several steps. When nothing can
 * run while events remain, the thread blocks wait for each other in a
 * cycle: a deadlock, printed as that cycle.
 *
 * Buffers: i, o and s are in, out and a scratch buffer; in place, i and o
 * are one buffer (the output, where the input is copied in a first step;
 * for reducescatter a scratch buffer `io` holding the input, whose part of
 * this rank is copied out in a last step). */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "msccl/msccl.h"
#include "support/util.h"

enum { B_IN, B_OUT, B_SCRATCH, B_TMP, B_IO, B_FIFO, B__COUNT };
static const char *const buf_names[B__COUNT] = {"in", "out", "scratch", "tmp", "io", "fifo"};

typedef enum EvKind {
    EV_LOCAL, /* a transfer inside the rank */
    EV_SEND,  /* the sending half of a message */
    EV_RECV,  /* the receiving half */
} EvKind;

typedef struct Loc { int buf, chunk; } Loc;

typedef struct Ev {
    uint8_t kind;      /* EvKind */
    uint8_t op;        /* XferOp of a local transfer or of a receive */
    uint8_t first;     /* the first event of its step (its dependency gates it) */
    uint8_t last;      /* the last one (the step is done with it) */
    int rank, tb, step;
    Loc src, dst;      /* send: src is the data; receive: dst */
    int cnt;
    int partner;       /* the other half of a message (-1 unmatched) */
    int fifo;          /* a send whose source changes before its receive: the
                          chunk of `fifo` holding what was sent (-1: none) */
    int round;         /* 0: not run yet */
} Ev;

typedef struct Build {
    Arena *arena;
    DiagEngine *dx;
    const MsAlgo *a;
    int inplace;       /* the mode being built */
    int P;             /* collc's split */
    int tmp_stride;    /* chunks of `tmp` per thread block */
    Ev *ev;
    int nev, cap;
    int *tb_first;     /* [global tb + 1]: its events */
    int *tb_base;      /* [rank + 1]: global index of thread block 0 of the rank */
    int *step_done;    /* [global step]: 1 + the round it finished (0: not yet) */
    int *step_base;    /* [global tb]: global index of its step 0 */
    int nfifo;         /* chunks of `fifo` */
    int errors;
} Build;

static int gtb(const Build *b, int rank, int tb) { return b->tb_base[rank] + tb; }

/* Where chunk `off` of MSCCL buffer `mb` of `rank` is in collc's buffers. */
static Loc loc_of(const Build *b, int rank, MsBuf mb, int off) {
    Loc l = {B_IN, off};
    if (mb == MS_BUF_S) return (Loc){B_SCRATCH, off};
    int out = mb == MS_BUF_O;
    if (!b->inplace) return (Loc){out ? B_OUT : B_IN, off};
    switch (b->a->collective) {
    case COLLECTIVE_ALLGATHER:
        return out ? (Loc){B_OUT, off} : (Loc){B_OUT, rank * b->P + off};
    case COLLECTIVE_REDUCE_SCATTER:
        return out ? (Loc){B_IO, rank * b->P + off} : (Loc){B_IO, off};
    case COLLECTIVE_ALLREDUCE:
    case COLLECTIVE_ALLTOALL:
    case COLLECTIVE_BROADCAST:
    case COLLECTIVE_REDUCE:
    case COLLECTIVE_SCATTER:
    case COLLECTIVE_GATHER:
    case COLLECTIVE__COUNT:
        return (Loc){B_OUT, off};
    }
    return l;
}

static Ev *push(Build *b, EvKind k, int rank, int tb, int step, int cnt) {
    if (b->nev == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        b->ev = xrealloc(b->ev, sizeof(Ev) * (size_t)b->cap);
    }
    Ev *e = &b->ev[b->nev++];
    memset(e, 0, sizeof *e);
    e->kind = (uint8_t)k;
    e->rank = rank;
    e->tb = tb;
    e->step = step;
    e->cnt = cnt;
    e->partner = -1;
    e->fifo = -1;
    return e;
}

/* The events of one step (see the top of the file). */
static void step_events(Build *b, int rank, int tbi, int k) {
    const MsStep *s = &b->a->gpus[rank].tbs[tbi].steps[k];
    int first = b->nev;
    Loc src = loc_of(b, rank, s->srcbuf, s->srcoff), dst = loc_of(b, rank, s->dstbuf, s->dstoff);
    int same = src.buf == dst.buf && src.chunk == dst.chunk;
    Ev *e;
    if (s->cnt > 0) switch (s->type) {
    case MS_S:
        push(b, EV_SEND, rank, tbi, k, s->cnt)->src = src;
        break;
    case MS_R:
    case MS_RCS:
        e = push(b, EV_RECV, rank, tbi, k, s->cnt);
        e->dst = dst;
        e->op = XFER_COPY;
        if (s->type == MS_RCS) push(b, EV_SEND, rank, tbi, k, s->cnt)->src = dst;
        break;
    case MS_RRC:
    case MS_RRCS:
        if (!same) {
            e = push(b, EV_LOCAL, rank, tbi, k, s->cnt);
            e->src = src, e->dst = dst, e->op = XFER_COPY;
        }
        e = push(b, EV_RECV, rank, tbi, k, s->cnt);
        e->dst = dst;
        e->op = XFER_REDUCE;
        if (s->type == MS_RRCS) push(b, EV_SEND, rank, tbi, k, s->cnt)->src = dst;
        break;
    case MS_RRS: {
        Loc t = {B_TMP, tbi * b->tmp_stride};
        e = push(b, EV_LOCAL, rank, tbi, k, s->cnt);
        e->src = src, e->dst = t, e->op = XFER_COPY;
        e = push(b, EV_RECV, rank, tbi, k, s->cnt);
        e->dst = t;
        e->op = XFER_REDUCE;
        push(b, EV_SEND, rank, tbi, k, s->cnt)->src = t;
        break;
    }
    case MS_CPY:
    case MS_RE:
        if (s->type == MS_CPY && same) break;
        e = push(b, EV_LOCAL, rank, tbi, k, s->cnt);
        e->src = src, e->dst = dst, e->op = s->type == MS_RE ? XFER_REDUCE : XFER_COPY;
        break;
    case MS_NOP:
    case MS__COUNT:
        break;
    }
    if (b->nev == first) {
        /* nothing moves: an event that only orders (a nop, a copy onto itself) */
        e = push(b, EV_LOCAL, rank, tbi, k, 0);
    }
    b->ev[first].first = 1;
    b->ev[b->nev - 1].last = 1;
}

/* The receiving thread block of `rank` for messages from `from` on `chan`,
 * or -1. */
static int receiver_tb(const Build *b, int rank, int from, int chan) {
    const MsGpu *g = &b->a->gpus[rank];
    for (int t = 0; t < g->ntbs; t++)
        if (g->tbs[t].recv == from && g->tbs[t].chan == chan) return t;
    return -1;
}

static void err_at(Build *b, Span sp, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void err_at(Build *b, Span sp, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(b->dx, DIAG_ERROR, sp, code, fmt, ap);
    va_end(ap);
    b->errors++;
}

static const MsStep *ev_step(const Build *b, const Ev *e) {
    return &b->a->gpus[e->rank].tbs[e->tb].steps[e->step];
}

/* One thread block per (peer, channel) in each direction (a connection has
 * one end), then the k-th send of a connection with its k-th receive. */
static void pair_messages(Build *b) {
    const MsAlgo *a = b->a;
    for (int r = 0; r < a->ngpus; r++) {
        const MsGpu *g = &a->gpus[r];
        for (int t = 0; t < g->ntbs; t++)
            for (int u = 0; u < t; u++) {
                const MsTb *x = &g->tbs[t], *y = &g->tbs[u];
                if (x->chan != y->chan) continue;
                if ((x->send >= 0 && x->send == y->send) || (x->recv >= 0 && x->recv == y->recv))
                    err_at(b, x->span, "msccl-shared-connection",
                           "thread blocks %d and %d of rank %d both %s rank %d on channel %d",
                           y->id, x->id, r, x->send == y->send ? "send to" : "receive from",
                           x->send == y->send ? x->send : x->recv, x->chan);
            }
    }
    if (b->errors) return;
    for (int r = 0; r < a->ngpus; r++) {
        const MsGpu *g = &a->gpus[r];
        for (int t = 0; t < g->ntbs; t++) {
            const MsTb *tb = &g->tbs[t];
            int e0 = b->tb_first[gtb(b, r, t)], e1 = b->tb_first[gtb(b, r, t) + 1];
            int q = tb->send >= 0 ? receiver_tb(b, tb->send, r, tb->chan) : -1;
            int f0 = 0, f1 = 0;
            if (q >= 0) f0 = b->tb_first[gtb(b, tb->send, q)], f1 = b->tb_first[gtb(b, tb->send, q) + 1];
            int j = f0;
            for (int i = e0; i < e1; i++) {
                Ev *s = &b->ev[i];
                if (s->kind != EV_SEND) continue;
                while (j < f1 && b->ev[j].kind != EV_RECV) j++;
                if (j >= f1) {
                    if (q < 0)
                        err_at(b, ev_step(b, s)->span, "msccl-unmatched-send",
                               "rank %d sends to rank %d on channel %d, but no thread block of "
                               "rank %d receives from rank %d on channel %d",
                               r, tb->send, tb->chan, tb->send, r, tb->chan);
                    else
                        err_at(b, ev_step(b, s)->span, "msccl-unmatched-send",
                               "this send from rank %d to rank %d on channel %d has no matching "
                               "receive: thread block %d of rank %d receives fewer times",
                               r, tb->send, tb->chan, q, tb->send);
                    return;
                }
                Ev *rv = &b->ev[j++];
                s->partner = (int)(rv - b->ev);
                rv->partner = i;
                if (s->cnt != rv->cnt)
                    err_at(b, ev_step(b, rv)->span, "msccl-count-mismatch",
                           "rank %d receives %d chunks from rank %d, which sends %d (line of the "
                           "send: step %d of its thread block %d)",
                           tb->send, rv->cnt, r, s->cnt, s->step, t);
            }
        }
    }
    for (int i = 0; i < b->nev && !b->errors; i++) {
        Ev *e = &b->ev[i];
        if (e->kind == EV_RECV && e->partner < 0) {
            const MsTb *tb = &a->gpus[e->rank].tbs[e->tb];
            err_at(b, ev_step(b, e)->span, "msccl-unmatched-receive",
                   "this receive of rank %d from rank %d on channel %d has no matching send",
                   e->rank, tb->recv, tb->chan);
        }
    }
}

/* The event at the head of thread block g (-1: finished) and the round its
 * dependency allows (*lb; -1: the dependency is not done). */
static int head(const Build *b, const int *pc, int g, int *lb) {
    if (pc[g] >= b->tb_first[g + 1]) return -1;
    const Ev *e = &b->ev[pc[g]];
    *lb = 0;
    if (e->first) {
        const MsStep *s = ev_step(b, e);
        if (s->depid >= 0) {
            int d = b->step_done[b->step_base[gtb(b, e->rank, s->depid)] + s->dep_done];
            *lb = d - 1;
        }
    }
    return pc[g];
}

static void finish_ev(Build *b, int *pc, int g, int round) {
    Ev *e = &b->ev[pc[g]];
    e->round = round;
    if (e->last) b->step_done[b->step_base[gtb(b, e->rank, e->tb)] + e->step] = round + 1;
    pc[g]++;
}

static void report_deadlock(Build *b, const int *pc, int ntb);

/* What a thread block has done in its current round: whether it sent in
 * it, and the chunks it read and wrote. */
typedef struct Acc { int buf, lo, hi, write; } Acc;
typedef struct TbRound {
    int round;      /* its current round (0: none yet) */
    int open;       /* 0: closed (a nop waited): its next event starts a round */
    Acc *acc;
    int nacc, cap;
} TbRound;

static int overlaps(const TbRound *t, int buf, int lo, int hi, int write) {
    for (int i = 0; i < t->nacc; i++) {
        const Acc *a = &t->acc[i];
        if (a->buf == buf && a->lo < hi && lo < a->hi && (write || a->write)) return 1;
    }
    return 0;
}

static void note_acc(TbRound *t, int buf, int lo, int hi, int write) {
    if (t->nacc == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 8;
        t->acc = xrealloc(t->acc, sizeof(Acc) * (size_t)t->cap);
    }
    t->acc[t->nacc++] = (Acc){buf, lo, hi, write};
}

/* Whether moving event e can go in its thread block's current round: it
 * is done with what it waits for (lb), it is not a send (a send opens its
 * round), and it touches no chunk that the round wrote (nor writes one it
 * read). A step's reads see the state before it, so a send and then
 * receives and copies are one step, as an exchange runs: the send is
 * buffered, it does not wait for its receive. Two sends are never one
 * round: the executor runs a thread block's steps one after the other,
 * each a primitive that returns when its data is out (the loop over
 * mscclTB.transmissions in mscclRunInterpreter, RCCL's
 * src/device/msccl_kernel_impl.h, and msccl-executor-nccl's), so a thread
 * block that sends blocks 0 .. k-1 to its peer sends them in k rounds, a
 * pipeline its peer forwards from while the next block is sent. */
static int joins(const TbRound *t, const Ev *e, int lb) {
    if (!t->round || !t->open || lb >= t->round) return 0;
    if (e->kind == EV_SEND) return 0;
    if (e->kind == EV_LOCAL && overlaps(t, e->src.buf, e->src.chunk, e->src.chunk + e->cnt, 0)) return 0;
    return !overlaps(t, e->dst.buf, e->dst.chunk, e->dst.chunk + e->cnt, 1);
}

/* The round of the event at the head of thread block t (lb: its
 * dependency's round), or 0 when it is a receive whose send is not done. */
static int place(const Build *b, TbRound *t, const Ev *e, int lb) {
    if (e->cnt == 0) {
        /* an event that moves nothing (a nop, a copy onto itself) takes no
         * round: it is done once what it waits for is */
        if (lb > t->round) t->round = lb, t->open = 0, t->nacc = 0;
        return t->round;
    }
    int partner = 0;
    if (e->kind == EV_RECV) {
        /* the send happened (it is buffered): the transfer is now */
        partner = b->ev[e->partner].round;
        if (!partner) return 0;
    }
    if (!joins(t, e, lb) || partner > t->round) {
        int round = (t->round > lb ? t->round : lb) + 1;
        if (partner > round) round = partner;
        t->round = round, t->open = 1, t->nacc = 0;
    }
    if (e->kind != EV_RECV) note_acc(t, e->src.buf, e->src.chunk, e->src.chunk + e->cnt, 0);
    if (e->kind != EV_SEND) note_acc(t, e->dst.buf, e->dst.chunk, e->dst.chunk + e->cnt, 1);
    return t->round;
}

/* Runs the thread blocks to the end, as early as each event can go. */
static void schedule_events(Build *b, int ntb) {
    int *pc = xmalloc(sizeof(int) * (size_t)ntb);
    TbRound *tr = xcalloc((size_t)ntb, sizeof(TbRound));
    for (int g = 0; g < ntb; g++) pc[g] = b->tb_first[g];
    int changed = 1, left = b->nev;
    while (changed && left) {
        changed = 0;
        for (int g = 0; g < ntb; g++) {
            for (;;) {
                int lb, i = head(b, pc, g, &lb);
                if (i < 0 || lb < 0) break;
                int round = place(b, &tr[g], &b->ev[i], lb);
                if (!round && b->ev[i].cnt > 0) break;
                finish_ev(b, pc, g, round);
                left--, changed = 1;
            }
        }
    }
    if (left) report_deadlock(b, pc, ntb);
    for (int g = 0; g < ntb; g++) free(tr[g].acc);
    free(tr);
    free(pc);
}

typedef struct Write { int rank, buf, chunk, round; } Write;

static int write_cmp(const void *x, const void *y) {
    const Write *a = x, *b = y;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->buf != b->buf) return a->buf < b->buf ? -1 : 1;
    if (a->chunk != b->chunk) return a->chunk < b->chunk ? -1 : 1;
    return (a->round > b->round) - (a->round < b->round);
}

/* Whether chunk (rank, buf, chunk) is written in rounds lo .. hi. */
static int written(const Write *w, size_t n, int rank, int buf, int chunk, int lo, int hi) {
    Write key = {rank, buf, chunk, lo};
    size_t a = 0, z = n;
    while (a < z) {
        size_t m = (a + z) / 2;
        if (write_cmp(&w[m], &key) < 0) a = m + 1;
        else z = m;
    }
    return a < n && w[a].rank == rank && w[a].buf == buf && w[a].chunk == chunk && w[a].round <= hi;
}

/* A send is buffered: what it sent is what its source held then. When the
 * source is written before the receive takes it (or in its round, a race
 * for a step), the send's data goes through a chunk of `fifo`, copied at
 * the send. */
static void protect_sends(Build *b) {
    size_t n = 0;
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].kind != EV_SEND) n += (size_t)b->ev[i].cnt;
    Write *w = xmalloc(sizeof(Write) * (n ? n : 1));
    n = 0;
    for (int i = 0; i < b->nev; i++) {
        const Ev *e = &b->ev[i];
        if (e->kind == EV_SEND) continue;
        int rank = e->rank;
        for (int c = 0; c < e->cnt; c++) w[n++] = (Write){rank, e->dst.buf, e->dst.chunk + c, e->round};
    }
    qsort(w, n, sizeof *w, write_cmp);
    for (int i = 0; i < b->nev; i++) {
        Ev *r = &b->ev[i];
        if (r->kind != EV_RECV) continue;
        Ev *s = &b->ev[r->partner];
        if (r->round == s->round) continue;
        for (int c = 0; c < s->cnt; c++)
            if (written(w, n, s->rank, s->src.buf, s->src.chunk + c, s->round, r->round)) {
                s->fifo = b->nfifo;
                b->nfifo += s->cnt;
                break;
            }
    }
    free(w);
}

/* What the thread block at the head of g waits for: a thread block, and
 * why (into *why). */
static int waits_for(const Build *b, const int *pc, int g, const char **why) {
    int lb = 0, i = head(b, pc, g, &lb); /* head sets lb when i >= 0 */
    const Ev *e = &b->ev[i];
    if (lb < 0) {
        *why = "its dependency (depid/deps)";
        return gtb(b, e->rank, ev_step(b, e)->depid);
    }
    const Ev *p = &b->ev[e->partner];
    *why = "the send of this receive";
    return gtb(b, p->rank, p->tb);
}

static void tb_of(const Build *b, int g, int *rank, int *tb) {
    int r = 0;
    while (b->tb_base[r + 1] <= g) r++;
    *rank = r;
    *tb = g - b->tb_base[r];
}

static void report_deadlock(Build *b, const int *pc, int ntb) {
    int *seen = xcalloc((size_t)ntb, sizeof(int)), g = 0, k = 1;
    while (pc[g] >= b->tb_first[g + 1]) g++;
    const char *why;
    while (!seen[g]) {
        seen[g] = k++;
        g = waits_for(b, pc, g, &why);
    }
    int start = g, len = k - seen[g];
    const Ev *e = &b->ev[pc[start]];
    err_at(b, ev_step(b, e)->span, "msccl-deadlock",
           "deadlock: %d thread block%s wait for each other in a cycle", len, len == 1 ? "" : "s");
    do {
        int r, t, r2, t2;
        int next = waits_for(b, pc, g, &why);
        e = &b->ev[pc[g]];
        tb_of(b, g, &r, &t);
        tb_of(b, next, &r2, &t2);
        const MsStep *s = ev_step(b, e);
        diag_note(b->dx, s->span,
                  "rank %d thread block %d waits at step %d ('%s') for rank %d thread block %d: %s",
                  r, t, s->s, ms_type_info[s->type].name, r2, t2, why);
        g = next;
    } while (g != start);
    free(seen);
}

/* ---------- the AST ---------- */

static Expr *num(Build *b, Span sp, int64_t v) { return ast_int(b->arena, sp, v); }

static void ref(Build *b, BufRef *r, Span sp, int rank, Loc l, int cnt) {
    r->span = sp;
    r->name = buf_names[l.buf];
    r->name_span = sp;
    r->rank = num(b, sp, rank);
    r->lo = num(b, sp, l.chunk);
    r->hi = num(b, sp, (int64_t)l.chunk + cnt);
}

static Stmt *xfer(Build *b, Span sp, int op, int srank, Loc src, int drank, Loc dst, int cnt) {
    Stmt *s = ast_stmt(b->arena, STMT_XFER, sp);
    s->u.xfer.op = (XferOp)op;
    ref(b, &s->u.xfer.src, sp, srank, src, cnt);
    ref(b, &s->u.xfer.dst, sp, drank, dst, cnt);
    return s;
}

typedef struct List { Stmt *head, **tail; } List;
static void add(List *l, Stmt *s) { *l->tail = s; l->tail = &s->next; }

static void add_scratch(Build *b, List *l, int buf, int64_t chunks) {
    Stmt *s = ast_stmt(b->arena, STMT_SCRATCH, b->a->span);
    s->u.scratch.name = buf_names[buf];
    s->u.scratch.name_span = b->a->span;
    s->u.scratch.chunks = num(b, b->a->span, chunks);
    add(l, s);
}

/* The chunks a buffer has on a rank, in collc's layout. */
static int64_t chunks_of(const Build *b, int buf, int rank) {
    const CollectiveInfo *ci = &collective_info[b->a->collective];
    int root = !ci->rooted || rank == 0;
    if (buf == B_IN)
        return ci->in_where == HELD_ROOT && !root ? 0 : (int64_t)b->P * (ci->in_blocks == BLOCKS_N ? b->a->ngpus : 1);
    return ci->out_where == HELD_ROOT && !root ? 0 : (int64_t)b->P * (ci->out_blocks == BLOCKS_N ? b->a->ngpus : 1);
}

/* In place: the first step (the input into the shared buffer) or the last
 * (reducescatter: this rank's part out of it). */
static Stmt *inplace_step(Build *b, int last) {
    const MsAlgo *a = b->a;
    Stmt *st = ast_stmt(b->arena, STMT_STEP, a->span);
    List body = {NULL, &st->u.step.body};
    for (int r = 0; r < a->ngpus; r++) {
        int64_t n = chunks_of(b, B_IN, r);
        if (a->collective == COLLECTIVE_REDUCE_SCATTER) {
            if (last)
                add(&body, xfer(b, a->span, XFER_COPY, r, (Loc){B_IO, r * b->P}, r, (Loc){B_OUT, 0}, b->P));
            else
                add(&body, xfer(b, a->span, XFER_COPY, r, (Loc){B_IN, 0}, r, (Loc){B_IO, 0}, (int)n));
        } else if (n > 0 && chunks_of(b, B_OUT, r) > 0) {
            add(&body, xfer(b, a->span, XFER_COPY, r, (Loc){B_IN, 0}, r, loc_of(b, r, MS_BUF_I, 0), (int)n));
        }
    }
    return st;
}

static const char *algo_name(Build *b) {
    const MsAlgo *a = b->a;
    const char *base = a->name;
    if (!base || !*base) {
        const char *path = source_file(diag_sources(b->dx), a->file)->path;
        const char *slash = strrchr(path, '/');
        base = slash ? slash + 1 : path;
    }
    char *s = arena_printf(b->arena, "%s%s%s", isdigit((unsigned char)base[0]) ? "_" : "", base,
                           b->inplace ? "_inplace" : "");
    char *dot = !a->name ? strrchr(s, '.') : NULL;
    if (dot && strcmp(dot, ".xml") == 0 && !b->inplace) *dot = 0;
    for (char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') *p = '_';
    return s;
}

static Algorithm *make_algorithm(Build *b, int maxround) {
    const MsAlgo *a = b->a;
    Algorithm *alg = ARENA_NEW(b->arena, Algorithm);
    alg->span = a->span;
    alg->name = algo_name(b);
    alg->name_span = a->span;
    alg->coll = a->collective;
    alg->coll_span = a->coll_span;
    alg->uniform_chunks = 1;
    List body = {NULL, &alg->body};
    Stmt *req = ast_stmt(b->arena, STMT_REQUIRE, a->ngpus_span);
    req->u.require.cond = ast_binary(b->arena, a->ngpus_span, BOP_EQ, ast_name(b->arena, a->ngpus_span, "N"),
                                     num(b, a->ngpus_span, a->ngpus));
    req->u.require.why = arena_printf(b->arena, "the file is for ngpus=%d", a->ngpus);
    add(&body, req);
    if (collective_info[a->collective].rooted) {
        Stmt *rr = ast_stmt(b->arena, STMT_REQUIRE, a->span);
        rr->u.require.cond = ast_binary(b->arena, a->span, BOP_EQ, ast_name(b->arena, a->span, "root"),
                                        num(b, a->span, 0));
        rr->u.require.why = "an MSCCL file has no root; collc reads it for root 0";
        add(&body, rr);
    }
    if (b->P > 1) {
        Stmt *sp = ast_stmt(b->arena, STMT_SPLIT, a->span);
        sp->u.split.chunks = num(b, a->span, b->P);
        add(&body, sp);
    }
    int64_t smax = 0;
    for (int r = 0; r < a->ngpus; r++)
        if (a->gpus[r].s_chunks > smax) smax = a->gpus[r].s_chunks;
    if (smax) add_scratch(b, &body, B_SCRATCH, smax);
    int maxtb = 0, rrs = 0;
    for (int i = 0; i < b->nev; i++) {
        if (b->ev[i].dst.buf == B_TMP) rrs = 1;
        if (b->ev[i].tb + 1 > maxtb) maxtb = b->ev[i].tb + 1;
    }
    if (rrs) add_scratch(b, &body, B_TMP, (int64_t)maxtb * b->tmp_stride);
    int io = b->inplace && a->collective == COLLECTIVE_REDUCE_SCATTER;
    if (io) add_scratch(b, &body, B_IO, chunks_of(b, B_IN, 0));
    if (b->inplace) add(&body, inplace_step(b, 0));
    /* the transfers of each round, in the order of the file */
    int *count = xcalloc((size_t)maxround + 2, sizeof(int));
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].cnt > 0 && b->ev[i].kind != EV_SEND) count[b->ev[i].round]++;
    Stmt **steps = xcalloc((size_t)maxround + 2, sizeof(Stmt *));
    List *lists = xcalloc((size_t)maxround + 2, sizeof(List));
    if (b->nfifo) add_scratch(b, &body, B_FIFO, b->nfifo);
    for (int i = 0; i < b->nev; i++) {
        const Ev *e = &b->ev[i];
        if (e->cnt == 0 || (e->kind == EV_SEND && e->fifo < 0)) continue;
        Span sp = ev_step(b, e)->span;
        if (!steps[e->round]) {
            steps[e->round] = ast_stmt(b->arena, STMT_STEP, sp);
            lists[e->round].tail = &steps[e->round]->u.step.body;
        }
        Stmt *x;
        if (e->kind == EV_LOCAL) {
            x = xfer(b, sp, e->op, e->rank, e->src, e->rank, e->dst, e->cnt);
        } else if (e->kind == EV_SEND) {
            x = xfer(b, sp, XFER_COPY, e->rank, e->src, e->rank, (Loc){B_FIFO, e->fifo}, e->cnt);
        } else {
            const Ev *s = &b->ev[e->partner];
            Loc from = s->fifo >= 0 ? (Loc){B_FIFO, s->fifo} : s->src;
            x = xfer(b, sp, e->op, s->rank, from, e->rank, e->dst, e->cnt);
        }
        add(&lists[e->round], x);
    }
    for (int k = 1; k <= maxround; k++)
        if (steps[k]) add(&body, steps[k]);
    if (io) add(&body, inplace_step(b, 1));
    free(count);
    free(steps);
    free(lists);
    return alg;
}

/* The name of an algorithm read from file `file`: `name`, or when an
 * algorithm of an earlier file has it (MSCCL files of one folder often
 * share their name= attribute, which the executor does not read), `name`
 * and the file's name without its suffix, then a number. */
static const char *unique_name(Arena *arena, DiagEngine *dx, const Program *prog, uint32_t file,
                               const char *name) {
    if (!program_find_algorithm(prog, name)) return name;
    const char *path = source_file(diag_sources(dx), file)->path;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    char *stem = arena_strndup(arena, base, dot ? (size_t)(dot - base) : strlen(base));
    for (char *p = stem; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') *p = '_';
    const char *s = arena_printf(arena, "%s_%s", name, stem);
    for (int k = 2; program_find_algorithm(prog, s); k++) s = arena_printf(arena, "%s_%s_%d", name, stem, k);
    return s;
}

void msccl_add_algorithm(Arena *arena, DiagEngine *dx, Program *prog, uint32_t file, Algorithm *alg) {
    alg->name = unique_name(arena, dx, prog, file, alg->name);
    Algorithm **v = ARENA_ARRAY(arena, Algorithm *, (size_t)prog->nalgorithms + 1);
    if (prog->nalgorithms) memcpy(v, prog->algorithms, sizeof *v * (size_t)prog->nalgorithms);
    v[prog->nalgorithms++] = alg;
    prog->algorithms = v;
}

/* The events of every thread block, paired and scheduled. */
static int build_events(Build *b) {
    const MsAlgo *a = b->a;
    b->tb_base = xcalloc((size_t)a->ngpus + 1, sizeof(int));
    for (int r = 0; r < a->ngpus; r++) b->tb_base[r + 1] = b->tb_base[r] + a->gpus[r].ntbs;
    int ntb = b->tb_base[a->ngpus];
    b->tb_first = xcalloc((size_t)ntb + 1, sizeof(int));
    b->step_base = xcalloc((size_t)ntb + 1, sizeof(int));
    int nsteps = 0;
    b->tmp_stride = 1;
    for (int r = 0; r < a->ngpus; r++)
        for (int t = 0; t < a->gpus[r].ntbs; t++) {
            const MsTb *tb = &a->gpus[r].tbs[t];
            b->step_base[gtb(b, r, t)] = nsteps;
            nsteps += tb->nsteps;
            for (int k = 0; k < tb->nsteps; k++)
                if (tb->steps[k].cnt > b->tmp_stride) b->tmp_stride = tb->steps[k].cnt;
        }
    b->step_done = xcalloc((size_t)nsteps + 1, sizeof(int));
    for (int r = 0; r < a->ngpus; r++)
        for (int t = 0; t < a->gpus[r].ntbs; t++) {
            b->tb_first[gtb(b, r, t)] = b->nev;
            for (int k = 0; k < a->gpus[r].tbs[t].nsteps; k++) step_events(b, r, t, k);
        }
    b->tb_first[ntb] = b->nev;
    pair_messages(b);
    if (b->errors) return -1;
    schedule_events(b, ntb);
    if (b->errors) return -1;
    protect_sends(b);
    int maxround = 0;
    for (int i = 0; i < b->nev; i++)
        if (b->ev[i].round > maxround) maxround = b->ev[i].round;
    return maxround;
}

static void build_free(Build *b) {
    free(b->ev);
    free(b->tb_first);
    free(b->tb_base);
    free(b->step_done);
    free(b->step_base);
}

int msccl_build(Arena *arena, DiagEngine *dx, const MsAlgo *a, Program *prog) {
    const CollectiveInfo *ci = &collective_info[a->collective];
    int per_rank = ci->in_blocks == BLOCKS_N || ci->out_blocks == BLOCKS_N;
    if (per_rank && a->nchunksperloop % a->ngpus) {
        diag_error(dx, a->span, "msccl-bad-attribute",
                   "nchunksperloop=%d is not a multiple of ngpus=%d, as a %s needs", a->nchunksperloop,
                   a->ngpus, a->coll);
        return 1;
    }
    int errors = 0;
    for (int mode = 0; mode < 2; mode++) {
        if (!(mode ? a->inplace : a->outofplace)) continue;
        Build b;
        memset(&b, 0, sizeof b);
        b.arena = arena;
        b.dx = dx;
        b.a = a;
        b.inplace = mode;
        b.P = per_rank ? a->nchunksperloop / a->ngpus : a->nchunksperloop;
        int maxround = build_events(&b);
        if (maxround >= 0) msccl_add_algorithm(arena, dx, prog, a->file, make_algorithm(&b, maxround));
        errors += b.errors;
        build_free(&b);
        if (errors) break;
    }
    if (!a->inplace && !a->outofplace)
        diag_warning(dx, a->span, "msccl-never-selected",
                     "inplace=0 and outofplace=0: the executor never selects this algorithm");
    return errors;
}

int msccl_read(Arena *arena, DiagEngine *dx, uint32_t file_id, Program *prog) {
    MsAlgo a;
    int errors = msccl_xml_parse(arena, dx, file_id, &a);
    if (errors) return errors;
    return msccl_build(arena, dx, &a, prog);
}
