/* ast.h - the .coll abstract syntax tree.
 *
 * The parser builds these nodes in the compilation's Arena; sema fills in the
 * fields marked "sema:". Every node carries a Span. Lists of statements are
 * intrusive singly linked lists through Stmt.next, in source order.
 *
 * Language summary (docs/language.md is the reference):
 *   file      = { algorithm | topology } ;
 *   algorithm = "algorithm" IDENT ":" COLLECTIVE "{" { stmt } "}" ;
 *   topology  = "topology" IDENT "{" { stmt } "}" ;      (nodes/link/let/for/if)
 *   stmt      = "step" "{" { stmt } "}"
 *             | "for" IDENT "in" ( "ranks" | expr ".." expr ) "{" { stmt } "}"
 *             | "if" expr "{" { stmt } "}" [ "else" ( "{" { stmt } "}" | if ) ]
 *             | "let" IDENT "=" expr ";"
 *             | "param" IDENT "=" expr ";"
 *             | "require" expr [ "," STRING ] ";"
 *             | "scratch" IDENT "[" expr "]" ";"
 *             | "split" expr ";"
 *             | ( "copy" | "reduce" ) bufref "->" bufref ";"
 *             | "nodes" expr ";"
 *             | "link" expr ( "->" | "<->" ) expr [ "[" attr { "," attr } "]" ] ";"
 *             | call
 *   bufref    = ( IDENT | "in" ) "[" expr "]" [ "[" expr [ ".." expr ] "]" ] ;
 *   expr      = cond ;  cond = lor [ "?" expr ":" cond ] ;  (then C's binary
 *               and unary operators, docs/language.md section 2)
 *   attr      = ( "alpha" | "beta" ) "=" QUANTITY ;    (2, 0.5, 2us, 32GB/s)
 *   import    = "import" STRING ";" ;                   (top level of a file)
 *   call      = "call" IDENT [ "(" [ bind { "," bind } ] ")" ]
 *               [ "on" IDENT "(" [ expr { "," expr } ] ")" [ "as" "(" IDENT "," IDENT ")" ] ] ";"
 *   bind      = ( IDENT | "in" ) "=" ( expr | view ) ;
 *   view      = ( IDENT | "in" ) [ "[" expr [ ".." expr ] "]" ] { "." "part" "(" expr "," expr ")" } ;
 */
#ifndef COLLC_AST_H
#define COLLC_AST_H

#include <stdint.h>
#include <stdio.h>
#include "support/source.h"

/* ---- collectives and built-in functions (X-macro tables) ---- */

/* The collectives are the rows of the runtime's coll_collectives.def (the
 * ABI contract, installed with coll.h): a Collective's value is the ABI
 * value of coll.h's COLL_<ID>. */
typedef enum BlockCount {
    BLOCKS_ONE, /* one block per holding rank */
    BLOCKS_N    /* N blocks (one per rank) per holding rank */
} BlockCount;
typedef enum HeldBy {
    HELD_ALL, /* every rank holds the buffer */
    HELD_ROOT /* the root only; the other ranks' buffer has zero chunks */
} HeldBy;

typedef enum Collective {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) COLLECTIVE_##id = abi,
#include <coll_collectives.def>
#undef X
    /* how many (the values above are 0 .. COLLECTIVE__COUNT-1) */
    COLLECTIVE__COUNT = 0
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) +1
#include <coll_collectives.def>
#undef X
} Collective;

typedef struct CollectiveInfo {
    const char *keyword;
    int rooted;
    BlockCount in_blocks;
    HeldBy in_where;
    BlockCount out_blocks;
    HeldBy out_where;
    int reducing;
    const char *mpi;          /* the MPI function without MPI_ ("Allreduce") */
    const char *mpi_params;   /* its C parameter list, in parentheses */
} CollectiveInfo;

extern const CollectiveInfo collective_info[COLLECTIVE__COUNT];
/* Returns COLLECTIVE__COUNT when `name` is not a collective keyword. */
Collective collective_lookup(const char *name);

/* A row of builtins.def or groups.def: a name written name(arguments),
 * with `arity` arguments (-1: one or more). */
typedef struct CallableInfo { const char *name; int arity; const char *desc; } CallableInfo;

typedef enum Builtin {
#define X(id, name, arity, desc) BUILTIN_##id,
#include "front/builtins.def"
#undef X
    BUILTIN__COUNT
} Builtin;

extern const CallableInfo builtin_info[BUILTIN__COUNT];

/* The groups of ranks a `call` runs on (groups.def). */
typedef enum GroupKind {
#define X(id, name, arity, desc) GROUP_##id,
#include "front/groups.def"
#undef X
    GROUP__COUNT
} GroupKind;

extern const CallableInfo group_info[GROUP__COUNT];

/* ---- symbols (sema) ---- */
typedef enum SymKind {
    SYM_N,      /* the built-in rank count N */
    SYM_ROOT,   /* the built-in root (rooted collectives only) */
    SYM_PARAM,  /* param P = default;  overridable with -D P=v */
    SYM_LET,    /* let x = expr; */
    SYM_LOOP,   /* for v in ... */
    SYM_SPLIT,  /* the split P of an algorithm that calls others (compose.c):
                   set when its `split` is evaluated */
} SymKind;

typedef struct Expr Expr;
typedef struct Stmt Stmt;

typedef struct Symbol {
    SymKind kind;
    const char *name;
    Span span;            /* the declaring identifier (none for built-ins) */
    int slot;             /* index in the evaluation frame (int64_t[nslots]) */
    Stmt *decl;           /* declaring statement (let/param/for), NULL for built-ins */
    int used;             /* sema: referenced at least once */
} Symbol;

/* ---- expressions ---- */
typedef enum ExprKind {
    EXPR_INT,    /* integer literal (also the result of constant folding) */
    EXPR_NAME,   /* identifier; sema sets .sym */
    EXPR_UNARY,  /* op in {UOP_*} */
    EXPR_BINARY, /* op in {BOP_*} */
    EXPR_CALL,   /* built-in function call; sema sets .builtin */
    EXPR_COND,   /* c ? a : b (only the chosen branch is evaluated) */
} ExprKind;

typedef enum UnaryOp {
    UOP_NEG,  /* -a */
    UOP_BNOT, /* ~a */
    UOP_LNOT, /* !a */
} UnaryOp;

typedef enum BinaryOp {
    BOP_ADD, BOP_SUB, BOP_MUL,
    BOP_DIV,  /* floor division (pairs with BOP_MOD: a == (a/b)*b + a%b);
                 error on division by zero */
    BOP_MOD,  /* mathematical modulo: result has the sign of the divisor, so
                 (r - 1) % N is in [0, N) for N > 0; error on zero */
    BOP_SHL, BOP_SHR, /* error on a negative or >= 63 shift count */
    BOP_BAND, BOP_BOR, BOP_BXOR,
    BOP_EQ, BOP_NE, BOP_LT, BOP_LE, BOP_GT, BOP_GE,
    BOP_LAND, BOP_LOR, /* short-circuit, result 0 or 1 */
} BinaryOp;

struct Expr {
    ExprKind kind;
    Span span;
    int paren;   /* written in parentheses (the precedence warning skips it) */
    union {
        int64_t ival;                                   /* EXPR_INT */
        struct { const char *name; Symbol *sym; } name; /* EXPR_NAME */
        struct { UnaryOp op; Expr *operand; } unary;    /* EXPR_UNARY */
        struct { BinaryOp op; Expr *lhs, *rhs; } binary;/* EXPR_BINARY */
        struct {                                        /* EXPR_CALL */
            const char *name;
            Span name_span;
            Expr **args;
            int nargs;
            Builtin builtin;                            /* sema */
        } call;
        struct { Expr *cond, *then_, *else_; } cond;    /* EXPR_COND */
    } u;
};

/* ---- buffer references ---- */

/* A reference as the called algorithm wrote it, inside a `call` (compose.c):
 * the ranks and chunks of the callee, checked against the callee's N and
 * buffer before the reference is mapped to the caller's. One level per
 * call, innermost first. */
typedef struct RefCheck {
    const struct RefCheck *outer;
    const char *name;     /* the callee's buffer */
    Expr *rank;           /* the callee's rank: 0 <= rank < nranks */
    Expr *nranks;         /* the callee's N (the group size) */
    Expr *lo, *hi;        /* its chunks (NULL: the whole buffer; hi NULL: lo) */
    Expr *chunks;         /* the callee buffer's chunks on that rank */
} RefCheck;

typedef struct BufRef {
    Span span;            /* whole reference */
    const char *name;     /* "in", "out" or a scratch name */
    Span name_span;
    Expr *rank;
    Expr *lo;             /* NULL: the whole buffer of that rank */
    Expr *hi;             /* NULL: single chunk `lo`; else half-open lo .. hi */
    int buffer;           /* sema: index in Algorithm.buffers */
    const RefCheck *check;/* compose: the reference as a called algorithm
                             wrote it (NULL: the algorithm's own) */
    int viewed;           /* compose: mapped through a `call`'s view (a copy
                             onto itself is then no transfer) */
} BufRef;

/* A part of the caller's `in` or `out` that a called algorithm sees as its
 * own buffer: `out`, `out[lo .. hi]` (blocks), `out[j]`, and any of them
 * `.part(p, Q)`: part p of Q equal parts. */
typedef struct View {
    Span span;
    const char *buf;      /* "in" or "out" */
    Span buf_span;
    int buffer;           /* sema: BUF_IN or BUF_OUT */
    Expr *lo, *hi;        /* blocks [lo, hi); lo NULL: all; hi NULL: lo + 1 */
    Expr *part, *parts;   /* part `part` of `parts` (NULL: the whole range) */
} View;

/* `NAME = value` in a call: a param or `root` of the callee (value), or
 * its `in` / `out` (view). */
typedef struct Binding {
    Span span;
    const char *name;
    Span name_span;
    Expr *value;          /* params and root */
    View *view;           /* in and out */
} Binding;

/* ---- quantities in topology link attributes ---- */
typedef enum QuantityUnit {
    QUANT_SCALE,     /* plain number: multiple of the global alpha/beta */
    QUANT_SECONDS,   /* ns/us/ms/s, stored in seconds */
    QUANT_BYTES_PER_S, /* B/s, KB/s, MB/s, GB/s (decimal), KiB/s.. (binary) */
} QuantityUnit;

typedef struct Quantity { double value; QuantityUnit unit; Span span; } Quantity;

/* ---- statements ---- */
typedef enum StmtKind {
    STMT_STEP,     /* step { body } : one communication round */
    STMT_FOR,      /* for var in lo .. hi { body } (or over ranks) */
    STMT_IF,       /* if cond { then } else { els } */
    STMT_LET,      /* let var = value; */
    STMT_PARAM,    /* param var = value; (top level of an algorithm) */
    STMT_REQUIRE,  /* require cond, "why"; */
    STMT_SCRATCH,  /* scratch name[chunks]; (top level of an algorithm) */
    STMT_SPLIT,    /* split chunks; (top level, at most once) */
    STMT_XFER,     /* copy/reduce src -> dst; */
    STMT_NODES,    /* nodes count; (topology) */
    STMT_LINK,     /* link a -> b / a <-> b [attrs]; (topology) */
    STMT_CALL,     /* call alg(bindings) on group(args) as (g, i); (top level
                      of an algorithm; compose.c replaces it by the callee) */
} StmtKind;

typedef enum XferOp {
    XFER_COPY,    /* dst := src */
    XFER_REDUCE,  /* dst := dst (+) src */
} XferOp;

struct Stmt {
    StmtKind kind;
    Span span;
    Stmt *next;
    union {
        struct { Stmt *body; int phase; } step; /* phase: see Algorithm.lives */
        struct {
            const char *var; Span var_span;
            int over_ranks;             /* for v in ranks  (lo = 0, hi = N) */
            Expr *lo, *hi;              /* NULL when over_ranks */
            Stmt *body;
            Symbol *sym;                /* sema */
        } for_;
        struct { Expr *cond; Stmt *then_, *else_; } if_;
        struct {                        /* STMT_LET and STMT_PARAM */
            const char *var; Span var_span;
            Expr *value;
            Symbol *sym;                /* sema */
        } let;
        struct {
            Expr *cond; const char *why; Span why_span;
            const char *error;          /* NULL: a `require` (false: the algorithm does
                                           not apply); else a check compose made of a
                                           call (views that do not fit): false is an
                                           error of this code at the span, message `why` */
        } require;
        struct { const char *name; Span name_span; Expr *chunks; int buffer; } scratch;
        struct { Expr *chunks; } split;
        struct { XferOp op; BufRef src, dst; } xfer;
        struct { Expr *count; } nodes;
        struct {
            Expr *from, *to;
            int bidirectional;          /* <-> */
            int has_alpha, has_beta;
            Quantity alpha, beta;
        } link;
        struct {
            const char *callee; Span callee_span;
            Binding *binds; int nbinds;
            const char *group; Span group_span; /* NULL: all ranks, one group */
            Expr **gargs; int ngargs;
            GroupKind kind;             /* sema */
            const char *gname, *iname;  /* `as (g, i)`: the group's index and
                                           the rank's index in it (NULL: none) */
            Span gname_span, iname_span;
            Symbol *gsym, *isym;        /* sema: their symbols (always set) */
        } call;
    } u;
};

/* ---- top level ---- */
typedef struct Buffer {
    const char *name;
    Span span;             /* declaration (none for in/out) */
    int is_scratch;
    Expr *chunks;          /* scratch: chunks per rank; NULL for in/out */
} Buffer;

enum { BUF_IN = 0, BUF_OUT = 1, BUF_FIRST_SCRATCH = 2 };

typedef struct Algorithm {
    Span span;
    const char *name;
    Span name_span;
    Collective coll;
    Span coll_span;
    Stmt *body;
    /* sema: */
    Buffer *buffers;       /* [0] = in, [1] = out, then scratch in order */
    int nbuffers;
    Stmt *split;           /* the split statement, NULL = 1 chunk per block */
    Symbol *sym_N, *sym_root; /* sym_root NULL when not rooted */
    Symbol **params;       /* in declaration order */
    int nparams;
    int nslots;            /* size of the evaluation frame */
    Symbol *sym_split;     /* compose: the split P, when the algorithm calls
                              others (chunk maps use it); else NULL */
    int ncalls;            /* sema: its `call` statements (0: nothing to compose) */
    int uniform_chunks;    /* every chunk has one size, whatever its position
                              (an imported schedule whose format says so):
                              transfers may move a chunk to another position */
    /* compose: the phases of an algorithm that calls others. Every step has
     * a phase (Stmt.step.phase): 0 the caller's own steps, then a range of
     * phases per call, the callee's own phases shifted into it (nphases
     * counts them; 0 means 1). The calls' scratch buffers are shared by
     * the calls (a call's steps never meet another's), so each lives only
     * in the phases of its ranges: at the first step of a run of steps in
     * one of them its contents are undefined (verify checks that nothing
     * reads what an earlier phase left there). */
    int nphases;
    struct ScratchLife { int buffer, lo, hi; } *lives; /* phases [lo, hi) */
    int nlives;
} Algorithm;

/* A -D name=value override of an algorithm's `param name`. */
typedef struct Define { const char *name; int64_t value; } Define;

typedef struct Topology {
    Span span;
    const char *name;
    Span name_span;
    Stmt *body;
    /* sema: */
    Symbol *sym_N;
    int nslots;
} Topology;

/* `import "file.coll";`: the file's algorithms can be called. */
typedef struct Import { const char *path; Span span; } Import;

typedef struct Program {
    Algorithm **algorithms;
    int nalgorithms;
    Topology **topologies;
    int ntopologies;
    Import *imports;       /* every import of every file parsed, in order */
    int nimports;
    Algorithm **library;   /* the algorithms of imported files: callable, not
                              selected (the driver moves them here) */
    int nlibrary;
} Program;

/* The algorithm of the files given (not the library) named `name`, or NULL. */
Algorithm *program_find_algorithm(const Program *prog, const char *name);

/* ast.c: constructors used by the parser, and a debugging printer. */
struct Arena;
Expr *ast_int(struct Arena *a, Span sp, int64_t v);
Expr *ast_name(struct Arena *a, Span sp, const char *name);
Expr *ast_unary(struct Arena *a, Span sp, UnaryOp op, Expr *e);
Expr *ast_binary(struct Arena *a, Span sp, BinaryOp op, Expr *l, Expr *r);
Expr *ast_cond(struct Arena *a, Span sp, Expr *c, Expr *t, Expr *e);
Stmt *ast_stmt(struct Arena *a, StmtKind k, Span sp);
const char *ast_binary_op_text(BinaryOp op);
const char *ast_unary_op_text(UnaryOp op);
/* Structural equality: same tree, same resolved symbols (NULL == NULL). */
int ast_expr_equal(const Expr *a, const Expr *b);
/* Whether the resolved symbol of some name in `e` satisfies pred(sym, ctx)
 * (a NULL `e` has none). */
int ast_expr_any_name(const Expr *e, int (*pred)(const Symbol *sym, const void *ctx), const void *ctx);
/* Whether `e` (or NULL) uses `sym`. */
int ast_expr_uses(const Expr *e, const Symbol *sym);
/* Whether `e` uses only N, root, params and the split, so that it can be
 * evaluated in an algorithm's header. */
int ast_expr_header_only(const Expr *e);
/* Whether one statement is a step or has one inside (a for, an if). */
int ast_stmt_has_step(const Stmt *s);
/* Whether a list of statements has a step, also inside its for and if. */
int ast_contains_step(const Stmt *list);
/* The one N an algorithm is for, when a top-level `require` says
 * `N == K` (alone or in a conjunction): a synthesized or imported schedule.
 * -1 when none does. */
int64_t ast_fixed_n(const Algorithm *a);
/* Writes an expression in source syntax (fully parenthesised where needed). */
void ast_print_expr(FILE *out, const Expr *e);

#endif
