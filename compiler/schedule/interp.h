/* interp.h - the statement interpreter of the .coll language, shared by
 * instantiate (algorithms) and the topology reader (topology blocks).
 *
 * It walks `let`, `for` and `if` over an int64 frame (one slot per symbol,
 * Symbol.slot) and hands every other statement to its user's `leaf`
 * callback: instantiate's step, copy/reduce and require, the topology
 * reader's nodes and link. A leaf with a body (step) walks it with
 * interp_block. The first error stops the walk: every statement returns an
 * InterpFlow and anything but INTERP_OK unwinds to the caller. */
#ifndef COLLC_INTERP_H
#define COLLC_INTERP_H

#include <stdint.h>
#include "front/ast.h"
#include "front/eval.h"
#include "support/diag.h"

/* Outcome of running a statement. */
typedef enum InterpFlow {
    INTERP_OK,
    INTERP_ERROR, /* reported through dx (nothing when dx is NULL) */
    INTERP_NA,    /* a `require` was false (instantiate) */
    INTERP_STOP,  /* the user ended the walk early (instantiate's describe mode) */
} InterpFlow;

typedef struct Interp Interp;
struct Interp {
    /* Set by the user. */
    InterpFlow (*leaf)(Interp *in, const Stmt *st); /* every statement but let/for/if */
    void (*note)(Interp *in);    /* after an error: the note naming the values
                                    that led to it (NULL: none) */
    void (*over_work)(Interp *in, const Stmt *loop); /* reports that `loop`
                                    exceeded max_work (NULL: silent) */
    void *user;                  /* for the callbacks */
    DiagEngine *dx;              /* NULL: silent */
    int64_t *frame;              /* [nslots] */
    int64_t N;                   /* `for v in ranks` runs v = 0 .. N-1 */
    uint64_t max_work;           /* loop iterations allowed (0: no limit) */
    /* Kept by the interpreter. */
    uint64_t work;               /* loop iterations run */
    const Symbol **vars;         /* let and loop variables in scope, outermost
                                    first (for the notes) */
    int nvars, capvars;
};

/* Runs the statements of a block in order. Variables a `let` of the block
 * brings into scope leave it at its end. */
InterpFlow interp_block(Interp *in, const Stmt *body);

/* Frees what the interpreter allocated (not the frame). */
void interp_free(Interp *in);

/* interp_eval after the fast path failed: evaluates again with eval_expr,
 * which reports the error, then calls in->note. */
int interp_eval_slow(Interp *in, const Expr *e, int64_t *v);

/* Evaluates e in the frame: 0 and *v, or -1 after reporting the error. */
static inline int interp_eval(Interp *in, const Expr *e, int64_t *v) {
    if (__builtin_expect(eval_operand_fast(e, in->frame, v) == 0, 1)) return 0;
    return interp_eval_slow(in, e, v);
}

#endif
