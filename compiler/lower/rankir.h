/* rankir.h - the Rank IR: the per-rank (SPMD) program of one algorithm,
 * still generic in N, obtained by endpoint projection of the global chunk
 * flows (docs/design.md sec. 2). The C and LLVM emitters consume only this IR,
 * so they stay in step with each other.
 *
 * Expressions are AST Exprs whose names resolve to Symbols with frame slots;
 * the projection adds Symbols of its own (`me`, the split P and the scratch
 * sizes) in slots after the algorithm's. A generated function keeps one
 * int64 variable per slot.
 *
 * Semantics of a rank program (what an emitter must produce):
 *   - prologue (emitter): coll_begin; slot N := comm size, me := comm rank,
 *     root := root argument (rooted collectives);
 *   - RS_LET / RS_FOR / RS_IF as in the source (for is half-open, step 1);
 *   - RS_REQUIRE: if !cond, the algorithm does not apply: return
 *     COLL_ERR_NOT_APPLICABLE;
 *   - RS_SETUP: if count == 0 return OK; then coll_setup(split, scratch sizes);
 *   - RS_STEP: post the body's operations, then coll_step_end;
 *   - RS_SEND / RS_RECV / RS_LOCAL: one chunk-range operation of this rank.
 *   - any expression error at run time (division by zero, bad shift, bad
 *     log2, overflow) or a peer outside [0, N): the call fails with
 *     COLL_ERR_INTERNAL (the schedule is wrong for this N; collc verify
 *     reports the same for the N it checks).
 * Matching: within a step, the sends rank a posts to rank b appear in the
 * same order as the receives b posts from a, because both sides enumerate
 * the transfers of each source statement in source order and, within one
 * statement, in the lexicographic order of its loop variables (projection
 * keeps loop order). The runtime's FIFO-per-pair rule relies on this. */
#ifndef COLLC_RANKIR_H
#define COLLC_RANKIR_H

#include <stdio.h>
#include "front/ast.h"
#include "support/arena.h"
#include "support/diag.h"

typedef enum RStmtKind {
    RS_LET,     /* slot := value */
    RS_FOR,     /* for slot in lo .. hi { body } */
    RS_IF,      /* if cond { then } else { else } */
    RS_REQUIRE, /* if !cond: return COLL_ERR_NOT_APPLICABLE */
    RS_SETUP,   /* count == 0 -> return OK; coll_setup(split, scratch sizes) */
    RS_STEP,    /* one communication round */
    RS_SEND,    /* send my buf[lo, hi) to peer */
    RS_RECV,    /* receive from peer into my buf[lo, hi) (copy or reduce) */
    RS_LOCAL,   /* my dst[dlo, dlo+n) := src (copy) or dst (+) src (reduce) */
} RStmtKind;

typedef struct RStmt RStmt;
struct RStmt {
    RStmtKind kind;
    Span span;          /* the source statement this came from */
    RStmt *next;
    union {
        struct { const Symbol *sym; Expr *value; } let;
        struct { const Symbol *sym; Expr *lo, *hi; RStmt *body; } for_;
        struct { Expr *cond; RStmt *then_, *else_; } if_;
        struct { Expr *cond; const char *why; } require;
        struct { RStmt *body; int index; } step;  /* index: 0-based ordinal of
                                                     the source step statement */
        struct { Expr *peer; int buf; Expr *lo, *hi; } send;
        struct { Expr *peer; XferOp op; int buf; Expr *lo, *hi; } recv;
        struct {
            XferOp op;
            int src_buf; Expr *src_lo;
            int dst_buf; Expr *dst_lo;
            Expr *n;                              /* chunks */
        } local;
    } u;
};

typedef struct RankProgram {
    const Algorithm *alg;
    int nslots;               /* frame size: algorithm slots + projection's */
    Symbol *sym_me;           /* this rank */
    Symbol *sym_split;        /* P, assigned before RS_SETUP */
    Symbol **sym_scratch;     /* chunks of each scratch buffer, before RS_SETUP */
    int nscratch;             /* = alg->nbuffers - BUF_FIRST_SCRATCH */
    RStmt *body;
    /* statistics for tests and --stats */
    int inplace_safe;         /* COLL_ALG_INPLACE_SAFE: correct when in and out
                                 alias with MPI's in-place layout (see project.c) */
    int vblocks;              /* COLL_ALG_VBLOCKS: set by the driver from the
                                 schedules (analysis/vblocks.h), never by lower */
    const char *vblocks_why;  /* a v-form collective without it: why (NULL: no v-form) */
    int nsolved;              /* transfer sides projected by solving for a loop variable */
    int nguarded;             /* transfer sides that fell back to a guarded loop */
    int nmerged;              /* loops of single-chunk transfers merged into one range */
} RankProgram;

/* Projects `alg` (checked by sema) onto rank `me`. -D values fix params at
 * compile time. Returns 0, or the number of errors reported through dx
 * (e.g. split/scratch declared after the first step, an unknown -D name). */
int lower_algorithm(const Algorithm *alg, const Define *defines, int ndefines,
                    Arena *arena, DiagEngine *dx, RankProgram *out);

/* Readable dump (`collc compile --emit=rankir`); stable enough for FileCheck. */
void rankir_dump(FILE *out, const RankProgram *rp);

#endif
