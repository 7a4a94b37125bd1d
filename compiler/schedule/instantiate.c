/* instantiate.c - Schedule IR from a checked algorithm and concrete N, root,
 * params: a tree-walking interpreter over the AST with an int64 frame.
 *
 * Two phases, both in source order:
 *   1. header: the top-level `param` (or its -D override), `split`, `scratch`
 *      statements and those top-level `require`s that use only N, root and
 *      params; this fixes the chunk counts of every buffer;
 *   2. body: everything else (let/for/if/step/copy/reduce and the remaining
 *      requires), appending transfers to malloc'ed growable arrays.
 * The statements are walked by the interpreter of interp.h; this file gives
 * it the leaves (step, copy/reduce, require). The first error stops the run
 * (a loop would otherwise report thousands). The same walk, in "describe"
 * mode, replays a schedule silently up to one transfer/step to name the
 * variable values there (schedule_describe_*). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "schedule/schedule.h"
#include "schedule/interp.h"
#include "front/front.h"
#include "support/suggest.h"
#include "support/util.h"

typedef struct Inst {
    Interp in;                  /* the walk: frame, dx (NULL: silent), loop
                                   work, variables in scope */
    const Algorithm *alg;
    int64_t N, root, split;
    int64_t *param_values;      /* [nparams] */
    int nparams_done;           /* params evaluated so far (for the note) */
    int64_t *chunks_root, *chunks_other;
    /* output */
    Transfer *xfers;            /* transfers xbase .. nxfers-1 */
    size_t nxfers, capxfers;
    size_t xbase;               /* streaming: the transfers before it are gone */
    SchedStepFn on_step;        /* streaming (NULL: keep every transfer) */
    SchedStmtFn on_step_stmt;   /* symbolic: a step's body goes here, unwalked */
    void *on_step_user;
    Schedule hdr;               /* streaming: what on_step sees */
    int stopped;                /* streaming: on_step stopped the walk */
    Step *steps;
    size_t nsteps, capsteps;
    size_t max_xfers;
    int too_large;              /* a resource limit stopped it (schedule-too-large) */
    Step *cur_step;             /* NULL outside a step */
    size_t step_nocopies;       /* copies of a view onto itself dropped in
                                   the current step (a step left with only
                                   those is no step) */
    const Stmt *failed_require;
    /* describe mode */
    int describe;               /* 1: do not store transfers, stop at target */
    size_t target_xfer, target_step;  /* SIZE_MAX = none */
    char *desc;                 /* malloc'ed result */
    char **step_descs;          /* record mode: one description per step */
    size_t nstep_descs;
} Inst;

/* ---------- variable description ("N = 6, r = 5, s = 2") ---------- */

typedef struct StrBuf { char *s; size_t len, cap; } StrBuf;

static void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(StrBuf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        COLLC_ASSERT(n >= 0);
        if (b->s && b->len + (size_t)n < b->cap) { b->len += (size_t)n; return; }
        size_t ncap = b->cap ? b->cap * 2 : 128;
        while (ncap < b->len + (size_t)n + 1) ncap *= 2;
        b->s = xrealloc(b->s, ncap);
        b->cap = ncap;
    }
}

static char *describe_vars(const Inst *I) {
    StrBuf b = {0};
    sb_printf(&b, "N = %" PRId64, I->N);
    if (I->alg->sym_root) sb_printf(&b, ", root = %" PRId64, I->root);
    for (int i = 0; i < I->nparams_done; i++)
        sb_printf(&b, ", %s = %" PRId64, I->alg->params[i]->name, I->param_values[i]);
    for (int i = 0; i < I->in.nvars; i++)
        sb_printf(&b, ", %s = %" PRId64, I->in.vars[i]->name, I->in.frame[I->in.vars[i]->slot]);
    return b.s;
}

/* The note that follows every instantiation error. */
static void note_values(Inst *I) {
    if (!I->in.dx) return;
    char *d = describe_vars(I);
    diag_note(I->in.dx, span_none(), "with %s", d);
    free(d);
}

static void note_values_cb(Interp *in) { note_values(in->user); }

static void over_work(Interp *in, const Stmt *loop) {
    Inst *I = in->user;
    I->too_large = 1;
    if (I->in.dx)
        diag_error(I->in.dx, loop->span, "schedule-too-large",
                   "instantiation runs more than %" PRIu64 " loop iterations "
                   "(the limit is 4 x --max-transfers + 10^7)", in->max_work);
    note_values(I);
}

/* ---------- evaluation ---------- */

static inline int eval(Inst *I, const Expr *e, int64_t *v) { return interp_eval(&I->in, e, v); }

/* ---------- transfers ---------- */

static const char *chunk_word(int64_t n) { return n == 1 ? "chunk" : "chunks"; }

/* After a chunk out of range: what rank `rank` holds of buffer `name`
 * (this algorithm's buffer `buf`, or -1 for a called algorithm's). */
static void note_chunks(Inst *I, int buf, const char *name, int64_t rank, int64_t have) {
    if (I->in.dx) {
        if (buf >= 0 && have == 0 && rank != I->root && I->chunks_root[buf] > 0)
            diag_note(I->in.dx, span_none(), "'%s' has 0 chunks on rank %" PRId64
                      " (only the root, rank %" PRId64 ", holds it)", name, rank, I->root);
        else
            diag_note(I->in.dx, span_none(), "'%s' has %" PRId64 " %s on rank %" PRId64, name, have,
                      chunk_word(have), rank);
    }
    note_values(I);
}

/* Evaluates and checks a reference's chunks [lo, hi) on a rank that holds
 * `have` chunks of buffer `name` (buffer `buf`, or -1 for a called
 * algorithm's buffer). */
static int eval_chunks(Inst *I, const Expr *elo, const Expr *ehi, int64_t have, const char *name,
                       int buf, int64_t rank, int64_t *lo_out, int64_t *hi_out) {
    int64_t lo = 0, hi = 0;
    if (!elo) {
        *lo_out = 0;
        *hi_out = have;
        return 0;
    }
    if (eval(I, elo, &lo)) return -1;
    if (!ehi) {
        if (lo < 0 || lo >= have) {
            if (I->in.dx)
                diag_error(I->in.dx, elo->span, "chunk-out-of-range",
                           "chunk %" PRId64 " of '%s' is out of range on rank %" PRId64, lo, name,
                           rank);
            note_chunks(I, buf, name, rank, have);
            return -1;
        }
        hi = lo + 1;
    } else {
        if (eval(I, ehi, &hi)) return -1;
        if (lo > hi) {
            if (I->in.dx)
                diag_error(I->in.dx, span_join(elo->span, ehi->span), "empty-range",
                           "chunk range %" PRId64 " .. %" PRId64 " is reversed (lo > hi)", lo, hi);
            note_values(I);
            return -1;
        }
        if (lo < 0 || hi > have) {
            if (I->in.dx)
                diag_error(I->in.dx, span_join(elo->span, ehi->span), "chunk-out-of-range",
                           "chunk range %" PRId64 " .. %" PRId64 " of '%s' is out of range on rank %" PRId64,
                           lo, hi, name, rank);
            note_chunks(I, buf, name, rank, have);
            return -1;
        }
    }
    *lo_out = lo;
    *hi_out = hi;
    return 0;
}

/* A reference of a called algorithm, checked in its own terms (its N, its
 * buffer) before it is mapped to the caller's: innermost call first. */
static int check_called(Inst *I, const RefCheck *k) {
    for (; k; k = k->outer) {
        int64_t rank = 0, n = 0, have = 0, lo, hi;
        if (eval(I, k->rank, &rank) || eval(I, k->nranks, &n)) return -1;
        if (rank < 0 || rank >= n) {
            if (I->in.dx)
                diag_error(I->in.dx, k->rank->span, "rank-out-of-range",
                           "rank %" PRId64 " is out of range (N = %" PRId64 ")", rank, n);
            note_values(I);
            return -1;
        }
        if (eval(I, k->chunks, &have)) return -1;
        if (eval_chunks(I, k->lo, k->hi, have, k->name, -1, rank, &lo, &hi)) return -1;
    }
    return 0;
}

/* Evaluates and checks one side of a transfer. */
static int eval_ref(Inst *I, const BufRef *b, SlotRange *out) {
    int64_t rank = 0, lo = 0, hi = 0; /* zeros: gcc -O3 cannot see eval set them */
    if (b->check && check_called(I, b->check)) return -1;
    if (eval(I, b->rank, &rank)) return -1;
    if (rank < 0 || rank >= I->N) {
        if (I->in.dx)
            diag_error(I->in.dx, b->rank->span, "rank-out-of-range",
                       "rank %" PRId64 " is out of range (N = %" PRId64 ")", rank, I->N);
        note_values(I);
        return -1;
    }
    int buf = b->buffer;
    int64_t have = rank == I->root ? I->chunks_root[buf] : I->chunks_other[buf];
    if (eval_chunks(I, b->lo, b->hi, have, I->alg->buffers[buf].name, buf, rank, &lo, &hi))
        return -1;
    out->rank = (int32_t)rank;
    out->buffer = (uint16_t)buf;
    out->lo = (int32_t)lo;
    out->hi = (int32_t)hi;
    return 0;
}

static InterpFlow exec_xfer(Inst *I, const Stmt *st) {
    Transfer t;
    memset(&t, 0, sizeof t);   /* no stray padding bytes in the IR */
    if (eval_ref(I, &st->u.xfer.src, &t.src)) return INTERP_ERROR;
    if (eval_ref(I, &st->u.xfer.dst, &t.dst)) return INTERP_ERROR;
    int64_t ls = t.src.hi - t.src.lo, ld = t.dst.hi - t.dst.lo;
    if (ls != ld) {
        if (I->in.dx)
            diag_error(I->in.dx, st->span, "range-length",
                       "source has %" PRId64 " %s but destination has %" PRId64, ls,
                       chunk_word(ls), ld);
        note_values(I);
        return INTERP_ERROR;
    }
    if (ls == 0) return INTERP_OK;   /* empty range: no transfer */
    /* a called algorithm's copy between two views of the same chunks (its
     * `in` and `out` are one part of the caller's buffer): nothing moves */
    if ((st->u.xfer.src.viewed || st->u.xfer.dst.viewed) && st->u.xfer.op == XFER_COPY &&
        t.src.rank == t.dst.rank && t.src.buffer == t.dst.buffer && t.src.lo == t.dst.lo) {
        I->step_nocopies++;
        return INTERP_OK;
    }
    if (I->split > 1 && !I->alg->uniform_chunks && t.src.lo % I->split != t.dst.lo % I->split) {
        /* a called algorithm's transfer (checked in its own terms already)
         * misplaced by the call's views: the call is the mistake */
        Span site = I->in.dx && (st->u.xfer.src.viewed || st->u.xfer.dst.viewed)
                        ? diag_call_site(I->in.dx, st->span)
                        : span_none();
        if (I->in.dx)
            diag_error(I->in.dx, span_valid(site) ? site : st->span, "chunk-position",
                       "%ssource chunk %d and destination chunk %d %s different positions of their blocks "
                       "(%" PRId64 " and %" PRId64 ")",
                       span_valid(site) ? "the views of this call put " : "", t.src.lo, t.dst.lo,
                       span_valid(site) ? "at" : "are at", t.src.lo % I->split, t.dst.lo % I->split);
        if (I->in.dx)
            diag_note(I->in.dx, span_none(), "with 'split %" PRId64
                      "', chunk c is position c %% %" PRId64 " of block c / %" PRId64
                      "; chunks at different positions can differ in size",
                      I->split, I->split, I->split);
        if (span_valid(site)) {
            char *d = describe_vars(I);
            diag_note(I->in.dx, st->span, "in this transfer of the called algorithm, with %s", d);
            free(d);
        } else {
            note_values(I);
        }
        return INTERP_ERROR;
    }
    if (I->nxfers >= I->max_xfers) {
        I->too_large = 1;
        if (I->in.dx)
            diag_error(I->in.dx, st->span, "schedule-too-large",
                       "the schedule has more than %zu transfers (raise --max-transfers)",
                       I->max_xfers);
        note_values(I);
        return INTERP_ERROR;
    }
    if (I->describe) {
        if (I->nxfers == I->target_xfer) {
            I->desc = describe_vars(I);
            return INTERP_STOP;
        }
        I->nxfers++;
        return INTERP_OK;
    }
    if (I->nxfers - I->xbase == I->capxfers) {
        I->capxfers = I->capxfers ? I->capxfers * 2 : 1024;
        I->xfers = xrealloc(I->xfers, sizeof(Transfer) * I->capxfers);
    }
    t.op = (uint8_t)st->u.xfer.op;
    t.span = st->span;
    I->xfers[I->nxfers++ - I->xbase] = t;
    return INTERP_OK;
}

/* ---------- statements ---------- */

static InterpFlow exec_require(Inst *I, const Stmt *st) {
    int64_t v = 0; /* set by eval on success (GCC -O2 cannot see it) */
    if (eval(I, st->u.require.cond, &v)) return INTERP_ERROR;
    if (v) return INTERP_OK;
    if (st->u.require.error) {
        /* a call whose views do not fit the callee: wrong, not "does not apply" */
        if (I->in.dx) diag_error(I->in.dx, st->span, st->u.require.error, "%s", st->u.require.why);
        note_values(I);
        return INTERP_ERROR;
    }
    I->failed_require = st;
    return INTERP_NA;
}

static InterpFlow exec_step(Inst *I, const Stmt *st) {
    COLLC_ASSERT(!I->cur_step);
    if (I->describe && I->nsteps == I->target_step) {
        I->desc = describe_vars(I);
        return INTERP_STOP;
    }
    if (I->step_descs && I->nsteps < I->nstep_descs)
        I->step_descs[I->nsteps] = describe_vars(I);
    if (I->nsteps >= I->max_xfers) {
        I->too_large = 1;
        if (I->in.dx)
            diag_error(I->in.dx, st->span, "schedule-too-large",
                       "the schedule has more than %zu steps (raise --max-transfers)",
                       I->max_xfers);
        note_values(I);
        return INTERP_ERROR;
    }
    if (!I->describe && I->nsteps == I->capsteps) {
        I->capsteps = I->capsteps ? I->capsteps * 2 : 64;
        I->steps = xrealloc(I->steps, sizeof(Step) * I->capsteps);
    }
    Step local;
    Step *s = I->describe ? &local : &I->steps[I->nsteps];
    s->first = I->nxfers;
    s->count = 0;
    s->span = st->span;
    s->phase = (uint32_t)st->u.step.phase;
    I->nsteps++;
    if (I->on_step_stmt) {
        Schedule *h = &I->hdr;
        h->split = I->split;
        h->steps = I->steps;
        h->nsteps = I->nsteps;
        h->nxfers = I->nxfers;
        int r = I->on_step_stmt(I->on_step_user, h, st, I->in.frame);
        if (r < 0) {
            I->stopped = 1;
            return INTERP_STOP;
        }
        if (r > 0) I->nsteps--; /* the step moves nothing: no step, as below */
        return INTERP_OK;
    }
    I->cur_step = s;
    I->step_nocopies = 0;
    size_t first = I->nxfers;
    InterpFlow f = interp_block(&I->in, st->u.step.body);
    I->cur_step = NULL;
    if (f == INTERP_OK && I->nxfers == first && I->step_nocopies) {
        /* a called algorithm's step whose copies all went onto themselves
         * (its in and out are one view): no step */
        I->nsteps--;
        if (I->step_descs && I->nsteps < I->nstep_descs) {
            free(I->step_descs[I->nsteps]);
            I->step_descs[I->nsteps] = NULL;
        }
        return f;
    }
    if (!I->describe) I->steps[I->nsteps - 1].count = I->nxfers - I->steps[I->nsteps - 1].first;
    if (f == INTERP_OK && I->on_step) {
        Schedule *h = &I->hdr;
        h->split = I->split;
        h->steps = I->steps;
        h->nsteps = I->nsteps;
        h->nxfers = I->nxfers;
        if (I->on_step(I->on_step_user, h, I->xfers)) {
            I->stopped = 1;
            return INTERP_STOP;
        }
        I->xbase = I->nxfers;
    }
    return f;
}

/* The statements of an algorithm other than let/for/if. */
static InterpFlow exec_leaf(Interp *in, const Stmt *st) {
    Inst *I = in->user;
    switch (st->kind) {
    case STMT_STEP:
        return exec_step(I, st);
    case STMT_XFER:
        COLLC_ASSERT(I->cur_step);
        return exec_xfer(I, st);
    case STMT_REQUIRE:
        /* header-only requires already ran in phase 1 */
        return ast_expr_header_only(st->u.require.cond) ? INTERP_OK : exec_require(I, st);
    case STMT_PARAM:
    case STMT_SCRATCH:
    case STMT_SPLIT:
        return INTERP_OK;     /* phase 1 */
    default:
        break;
    }
    COLLC_UNREACHABLE("statement not allowed in an algorithm after sema");
}

/* ---------- header phase ---------- */

static const Define *find_define(const SchedParams *p, const char *name) {
    for (int i = p->ndefines - 1; i >= 0; i--)
        if (strcmp(p->defines[i].name, name) == 0) return &p->defines[i];
    return NULL;
}

static int param_index(const Algorithm *alg, const Symbol *sym) {
    for (int i = 0; i < alg->nparams; i++)
        if (alg->params[i] == sym) return i;
    COLLC_UNREACHABLE("param symbol not in Algorithm.params");
}

/* `fixed_params`: replaying an existing schedule (describe mode). */
static InterpFlow run_header(Inst *I, const SchedParams *p, const int64_t *fixed_params) {
    const Algorithm *alg = I->alg;
    Stmt *split_stmt = NULL;
    for (const Stmt *st = alg->body; st; st = st->next) {
        switch (st->kind) {
        case STMT_PARAM: {
            int i = param_index(alg, st->u.let.sym);
            int64_t v;
            const Define *d = fixed_params ? NULL : find_define(p, st->u.let.var);
            if (fixed_params) v = fixed_params[i];
            else if (d) v = d->value;
            else if (eval(I, st->u.let.value, &v)) return INTERP_ERROR;
            I->param_values[i] = v;
            I->in.frame[st->u.let.sym->slot] = v;
            I->nparams_done = i + 1;
            break;
        }
        case STMT_REQUIRE:
            if (ast_expr_header_only(st->u.require.cond)) {
                InterpFlow f = exec_require(I, st);
                if (f != INTERP_OK) return f;
            }
            break;
        case STMT_SPLIT: {
            int64_t v;
            if (eval(I, st->u.split.chunks, &v)) return INTERP_ERROR;
            if (v < 1 || v > INT32_MAX) {
                if (I->in.dx)
                    diag_error(I->in.dx, st->u.split.chunks->span, "bad-split",
                               v < 1 ? "split must be at least 1, got %" PRId64
                                     : "split %" PRId64 " is too large", v);
                note_values(I);
                return INTERP_ERROR;
            }
            I->split = v;
            if (alg->sym_split) I->in.frame[alg->sym_split->slot] = v;
            split_stmt = (Stmt *)st;
            break;
        }
        case STMT_SCRATCH: {
            int64_t v;
            if (eval(I, st->u.scratch.chunks, &v)) return INTERP_ERROR;
            if (v < 0 || v > INT32_MAX) {
                if (I->in.dx)
                    diag_error(I->in.dx, st->u.scratch.chunks->span, "bad-scratch",
                               v < 0 ? "scratch size %" PRId64 " is negative"
                                     : "scratch size %" PRId64 " is too large", v);
                note_values(I);
                return INTERP_ERROR;
            }
            I->chunks_root[st->u.scratch.buffer] = v;
            I->chunks_other[st->u.scratch.buffer] = v;
            break;
        }
        default:
            break;
        }
    }
    /* in/out from the collective table times the split */
    const CollectiveInfo *ci = &collective_info[alg->coll];
    for (int b = BUF_IN; b <= BUF_OUT; b++) {
        BlockCount bc = b == BUF_IN ? ci->in_blocks : ci->out_blocks;
        HeldBy where = b == BUF_IN ? ci->in_where : ci->out_where;
        int64_t blocks = bc == BLOCKS_N ? I->N : 1, n;
        if (__builtin_mul_overflow(blocks, I->split, &n) || n > INT32_MAX) {
            if (I->in.dx) {
                diag_error(I->in.dx, split_stmt ? split_stmt->u.split.chunks->span : alg->name_span,
                           "bad-split", "'%s' would have %" PRId64 " x %" PRId64
                           " chunks, more than a schedule can address",
                           alg->buffers[b].name, blocks, I->split);
                note_values(I);
            }
            return INTERP_ERROR;
        }
        I->chunks_root[b] = n;
        I->chunks_other[b] = where == HELD_ROOT ? 0 : n;
    }
    if (!ci->rooted)
        for (int b = 0; b < alg->nbuffers; b++) I->chunks_other[b] = I->chunks_root[b];
    return INTERP_OK;
}

/* ---------- driver of one run ---------- */

static void inst_init(Inst *I, const Algorithm *alg, DiagEngine *dx, int64_t N, int64_t root) {
    memset(I, 0, sizeof *I);
    I->alg = alg;
    I->in.dx = dx;
    I->N = N;
    I->root = collective_info[alg->coll].rooted ? root : -1;
    I->split = 1;
    I->in.frame = xcalloc((size_t)(alg->nslots > 0 ? alg->nslots : 1), sizeof(int64_t));
    I->in.leaf = exec_leaf;
    I->in.note = note_values_cb;
    I->in.over_work = over_work;
    I->in.user = I;
    I->in.N = N;
    I->param_values = xcalloc((size_t)(alg->nparams > 0 ? alg->nparams : 1), sizeof(int64_t));
    I->chunks_root = xcalloc((size_t)alg->nbuffers, sizeof(int64_t));
    I->chunks_other = xcalloc((size_t)alg->nbuffers, sizeof(int64_t));
    I->in.frame[alg->sym_N->slot] = N;
    if (alg->sym_root) I->in.frame[alg->sym_root->slot] = I->root;
    I->target_xfer = I->target_step = SIZE_MAX;
    I->max_xfers = SCHED_DEFAULT_MAX_TRANSFERS;
}

static void inst_discard(Inst *I) {
    free(I->in.frame);
    free(I->param_values);
    free(I->chunks_root);
    free(I->chunks_other);
    free(I->xfers);
    free(I->steps);
    interp_free(&I->in);
    free(I->desc);
}

static InterpFlow inst_run(Inst *I, const SchedParams *p, const int64_t *fixed_params) {
    if (!I->in.max_work)
        I->in.max_work = I->max_xfers > (SIZE_MAX - 10000000u) / 4
                             ? UINT64_MAX
                             : (uint64_t)I->max_xfers * 4 + 10000000u;
    InterpFlow f = run_header(I, p, fixed_params);
    if (f != INTERP_OK) return f;
    return interp_block(&I->in, I->alg->body);
}

static InstStatus inst_main(const Algorithm *alg, const SchedParams *params, DiagEngine *dx,
                            Schedule *out, const Stmt **failed_require, SchedStepFn on_step,
                            SchedStmtFn on_step_stmt, void *user) {
    memset(out, 0, sizeof *out);
    if (failed_require) *failed_require = NULL;
    int64_t max_N = params->max_N ? params->max_N : SCHED_DEFAULT_MAX_N;
    int rooted = collective_info[alg->coll].rooted;
    if (params->N < 1 || params->N > max_N) {
        diag_error(dx, span_none(), "bad-N",
                   "N = %" PRId64 " is out of range (1 .. %" PRId64 ")", params->N, max_N);
        return INST_ERROR;
    }
    if (rooted && (params->root < 0 || params->root >= params->N)) {
        diag_error(dx, span_none(), "bad-root",
                   "root = %" PRId64 " is out of range for N = %" PRId64 " (0 .. %" PRId64 ")",
                   params->root, params->N, params->N - 1);
        return INST_ERROR;
    }
    for (int i = 0; i < params->ndefines; i++) {
        const char *name = params->defines[i].name;
        int found = 0;
        for (int j = 0; j < alg->nparams && !found; j++)
            found = strcmp(alg->params[j]->name, name) == 0;
        if (found) continue;
        diag_error(dx, span_none(), "unknown-define", "-D %s: '%s' has no param named '%s'",
                   name, alg->name, name);
        Suggest sg;
        suggest_init(&sg, name, SUGGEST_NAME);
        for (int j = 0; j < alg->nparams; j++) suggest_offer(&sg, alg->params[j]->name, alg->params[j]);
        const Symbol *best = sg.item;
        /* The error is the command line's; the notes point into the file. */
        if (best) diag_note(dx, best->span, "did you mean '%s'?", best->name);
        else if (alg->nparams == 0) diag_note(dx, alg->name_span, "'%s' has no params", alg->name);
        return INST_ERROR;
    }

    Inst I;
    inst_init(&I, alg, dx, params->N, params->root);
    if (params->max_transfers) I.max_xfers = params->max_transfers;
    I.on_step = on_step;
    I.on_step_stmt = on_step_stmt;
    I.on_step_user = user;
    I.hdr.alg = alg;
    I.hdr.N = I.N;
    I.hdr.root = I.root;
    I.hdr.param_values = I.param_values;
    I.hdr.nbuffers = alg->nbuffers;
    I.hdr.chunks_at_root = I.chunks_root;
    I.hdr.chunks_other = I.chunks_other;
    InterpFlow f = inst_run(&I, params, NULL);
    if (f == INTERP_NA) {
        if (failed_require) *failed_require = I.failed_require;
        inst_discard(&I);
        return INST_NOT_APPLICABLE;
    }
    if (f != INTERP_OK) {
        int too_large = I.too_large, stopped = I.stopped;
        inst_discard(&I);
        return stopped ? INST_STOPPED : too_large ? INST_TOO_LARGE : INST_ERROR;
    }
    out->alg = alg;
    out->N = I.N;
    out->root = I.root;
    out->split = I.split;
    out->param_values = I.param_values;
    out->nbuffers = alg->nbuffers;
    out->chunks_at_root = I.chunks_root;
    out->chunks_other = I.chunks_other;
    /* give back the doubling slack: schedules can be gigabytes */
    if (on_step || on_step_stmt) {
        free(I.xfers);
        out->xfers = NULL;
    } else {
        out->xfers = I.nxfers ? xrealloc(I.xfers, sizeof(Transfer) * I.nxfers) : (free(I.xfers), NULL);
    }
    out->nxfers = I.nxfers;
    out->steps = I.nsteps ? xrealloc(I.steps, sizeof(Step) * I.nsteps) : (free(I.steps), NULL);
    out->nsteps = I.nsteps;
    free(I.in.frame);
    interp_free(&I.in);
    return INST_OK;
}

InstStatus instantiate(const Algorithm *alg, const SchedParams *params, DiagEngine *dx,
                       Schedule *out, const Stmt **failed_require) {
    return inst_main(alg, params, dx, out, failed_require, NULL, NULL, NULL);
}

InstStatus instantiate_stream(const Algorithm *alg, const SchedParams *params,
                              DiagEngine *dx, Schedule *out, const Stmt **failed_require,
                              SchedStepFn on_step, void *user) {
    COLLC_ASSERT(on_step);
    return inst_main(alg, params, dx, out, failed_require, on_step, NULL, user);
}

InstStatus instantiate_steps(const Algorithm *alg, const SchedParams *params, DiagEngine *dx,
                             Schedule *out, const Stmt **failed_require, SchedStmtFn on_step,
                             void *user) {
    COLLC_ASSERT(on_step);
    return inst_main(alg, params, dx, out, failed_require, NULL, on_step, user);
}

void schedule_free(Schedule *s) {
    if (!s) return;
    free(s->param_values);
    free(s->chunks_at_root);
    free(s->chunks_other);
    free(s->xfers);
    free(s->steps);
    memset(s, 0, sizeof *s);
}

/* Replays the schedule's instantiation silently up to transfer `xfer` or the
 * entry of step `step` (SIZE_MAX: neither) and describes the variables
 * there; with `record`, the entry of every step is described into it too. */
static const char *describe(const Schedule *s, size_t xfer, size_t step, Arena *arena,
                            char **record) {
    Inst I;
    inst_init(&I, s->alg, NULL, s->N, s->root);
    I.step_descs = record;
    I.nstep_descs = record ? s->nsteps : 0;
    I.describe = 1;
    I.target_xfer = xfer;
    I.target_step = step;
    I.max_xfers = SIZE_MAX;
    I.in.max_work = UINT64_MAX;
    SchedParams p;
    memset(&p, 0, sizeof p);
    p.N = s->N;
    p.root = s->root;
    InterpFlow f = inst_run(&I, &p, s->param_values);
    const char *r;
    if (f == INTERP_STOP && I.desc) {
        r = arena_strdup(arena, I.desc);
    } else {
        /* index past the end: describe the top level */
        char *d = describe_vars(&I);
        r = arena_strdup(arena, d);
        free(d);
    }
    inst_discard(&I);
    return r;
}

const char *schedule_describe_transfer(const Schedule *s, size_t xfer_index, Arena *arena) {
    return describe(s, xfer_index, SIZE_MAX, arena, NULL);
}

const char *schedule_describe_step(const Schedule *s, size_t step_index, Arena *arena) {
    return describe(s, SIZE_MAX, step_index, arena, NULL);
}

const char **schedule_describe_steps(const Schedule *s, Arena *arena) {
    const char **out = ARENA_ARRAY(arena, const char *, s->nsteps ? s->nsteps : 1);
    char **rec = xcalloc(s->nsteps ? s->nsteps : 1, sizeof *rec);
    describe(s, SIZE_MAX, SIZE_MAX, arena, rec);
    for (size_t k = 0; k < s->nsteps; k++) {
        out[k] = arena_strdup(arena, rec[k] ? rec[k] : "");
        free(rec[k]);
    }
    free(rec);
    return out;
}
