/* parser.y - the .coll grammar (pure bison parser; the scanner is lexer.l).
 *
 * The grammar follows the EBNF in ast.h and docs/language-decisions.md. The
 * parser builds AST nodes in the compilation Arena; every node gets the Span
 * of the source it came from (Span is the parser's location type, so bison
 * computes it for us through YYLLOC_DEFAULT).
 *
 * Syntax errors use `parse.error custom` with LAC, so the set of expected
 * tokens is exact and the messages read like clang's ("expected ';' after
 * statement" with the caret just after the previous token, "expected ')'"
 * with a note at the matching '('). Recovery uses `error` at statement and
 * item level so that one run reports several independent errors.
 *
 * Depth limits keep every later (recursive) phase safe on hostile input:
 * brackets nest at most PARSE_MAX_BRACKETS deep (checked by the scanner
 * wrapper), expression trees at most PARSE_MAX_EXPR_DEPTH deep, and the
 * bison stack is bounded by YYMAXDEPTH ("nesting too deep" instead of a
 * crash). */

%define api.pure full
%define api.prefix {coll_yy}
%define parse.error custom
%define parse.lac full
%locations
%parse-param {ParseState *ps}
%lex-param {ParseState *ps}
%expect 0
%initial-action { @$.file = ps->file; @$.lo = @$.hi = 0; }

%code requires {
#include <stdint.h>
#include "front/front.h"

/* The location type is the AST's Span (byte offsets). */
#define COLL_YYLTYPE Span
#define COLL_YYLTYPE_IS_DECLARED 1

/* Brackets deeper than this are an error (clang uses the same limit). */
enum { PARSE_MAX_BRACKETS = 256 };
/* Expression trees deeper than this are an error: sema and instantiate walk
 * them recursively (a 1,000,000-term sum would otherwise exhaust the stack). */
enum { PARSE_MAX_EXPR_DEPTH = 1000 };

/* An expression under construction and the depth of its tree. */
typedef struct ExprV { Expr *e; int depth; } ExprV;
/* A statement list under construction (head for the AST, tail to append). */
typedef struct StmtList { Stmt *head, *tail; } StmtList;
/* Call arguments under construction. */
typedef struct ArgList { Expr **v; int n, cap, depth; } ArgList;
/* The parts of a `call` under construction. */
typedef struct CallParts {
    Binding *binds; int nbinds, cap;
    const char *group; Span group_span;
    Expr **gargs; int ngargs;
    const char *gname, *iname; Span gname_span, iname_span;
} CallParts;
/* Link attributes `[alpha = Q, beta = Q]`. */
typedef struct LinkAttrs { int has_alpha, has_beta; Quantity alpha, beta; } LinkAttrs;
/* An open bracket seen by the scanner and not closed yet. */
typedef struct OpenBracket { char ch; Span span; } OpenBracket;

/* All state of one parse_source call; shared by the scanner (as its extra
 * data) and the parser (as %parse-param). No globals anywhere. */
typedef struct ParseState {
    Arena *arena;
    DiagEngine *dx;
    uint32_t file;
    Program *prog;
    void *scanner;            /* yyscan_t */
    const char *text;         /* the source text (NUL-terminated) */
    uint32_t len;
    uint32_t eof_pos;         /* where "end of input" diagnostics point */
    uint32_t pos;             /* scanner: byte offset of the next token */
    uint32_t comment_lo;      /* scanner: start of the open block comment */
    uint32_t prev_end;        /* end of the token before the lookahead */
    uint32_t in_end;          /* end of the last 'in' (a 'for' range follows) */
    uint32_t last_end;        /* end of the most recent token */
    int last_tok;             /* kind of the most recent token (lookahead) */
    OpenBracket brackets[PARSE_MAX_BRACKETS];
    int nbrackets;
    int la_pushed;            /* the lookahead pushed brackets[nbrackets-1] */
    int la_popped;            /* the lookahead popped `popped` */
    OpenBracket popped;
    unsigned ntok;            /* tokens returned so far */
    unsigned lex_error_tok;   /* ntok of the token a lexical error was in */
    char synthetic[PARSE_MAX_BRACKETS]; /* closers still to return before */
    int nsynthetic_left;      /*   the misplaced 'algorithm'/'topology' */
    int synthetic_active;     /* the lookahead is synthetic or that keyword */
    int synthetic_tok;        /* the keyword to return after the closers */
    Span synthetic_span;
    uint32_t error_block_end; /* end of the last block skipped by recovery */
    int eof_reported;         /* a syntax error at end of input was reported */
    int at_eof;               /* the scanner has returned end of input */
    int fatal;                /* stop: the scanner returns end of input and
                                 further syntax errors are not reported */
} ParseState;
}

%code provides {
int coll_yylex(COLL_YYSTYPE *lval, Span *lloc, ParseState *ps);
/* Scanner helpers (lexer.l). */
int coll_scan(COLL_YYSTYPE *lval, Span *lloc, void *scanner);
/* Reports a diagnostic from the scanner or parser (code given). */
void parse_error_at(ParseState *ps, Span sp, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for lexical errors: a syntax error at the next token is then
 * taken as a consequence and not reported. */
void parse_lex_error_at(ParseState *ps, Span sp, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Adds "to match this '('" at the innermost unclosed opener of `close`. */
void parse_note_match(ParseState *ps, char close);
}

%code {
#include <stdarg.h>
#include <string.h>
#include "support/suggest.h"
#include "support/util.h"

#define YYMAXDEPTH 10000
#define YYINITDEPTH 256

/* A node spans from its first to its last symbol; an empty rule gets the
 * empty span at the end of the previous symbol. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                          \
    do {                                                                     \
        if (N) {                                                             \
            (Cur).file = YYRHSLOC(Rhs, 1).file;                              \
            (Cur).lo = YYRHSLOC(Rhs, 1).lo;                                  \
            (Cur).hi = YYRHSLOC(Rhs, N).hi;                                  \
        } else {                                                             \
            (Cur).file = YYRHSLOC(Rhs, 0).file;                              \
            (Cur).lo = (Cur).hi = YYRHSLOC(Rhs, 0).hi;                       \
        }                                                                    \
    } while (0)
#define YYLOCATION_PRINT(File, Loc) ((void)0)

static void coll_yyerror(Span *loc, ParseState *ps, const char *msg);

static ExprV mk_unary(ParseState *ps, Span sp, UnaryOp op, ExprV a);
static ExprV mk_binary(ParseState *ps, Span sp, Span op_sp, BinaryOp op, ExprV a, ExprV b);
static ExprV mk_cond(ParseState *ps, Span sp, ExprV c, ExprV a, ExprV b);
static ExprV mk_call(ParseState *ps, Span sp, const char *name, Span name_sp, ArgList args);
static ArgList args_push(ParseState *ps, ArgList l, ExprV e);
static StmtList list_append(StmtList l, Stmt *s);
static Stmt *mk_xfer(ParseState *ps, Span sp, XferOp op, BufRef src, BufRef dst);
static BufRef mk_bufref(Span sp, const char *name, Span name_sp, ExprV rank, Expr *lo, Expr *hi);
static LinkAttrs attr_add(ParseState *ps, LinkAttrs l, const char *name, Span name_sp, Quantity q);
static Stmt *mk_link(ParseState *ps, Span sp, ExprV from, ExprV to, int bidi, LinkAttrs la);
static void add_algorithm(ParseState *ps, Algorithm *a);
static void add_topology(ParseState *ps, Topology *t);
static void add_import(ParseState *ps, const char *path, Span sp);
static CallParts bind_add(ParseState *ps, CallParts c, Binding b);
static Stmt *mk_call_stmt(ParseState *ps, Span sp, const char *callee, Span callee_sp,
                          CallParts args, CallParts on);
static View *mk_view(ParseState *ps, Span sp, const char *buf, Span buf_sp, Expr *lo, Expr *hi);
static View *view_part(ParseState *ps, View *v, Span sp, const char *what, Span what_sp, ArgList args);
}

%union {
    int64_t ival;
    const char *str;
    Quantity q;
    ExprV ex;
    ArgList args;
    Stmt *stmt;
    StmtList list;
    BufRef bref;
    LinkAttrs attrs;
    CallParts call;
    Binding bind;
    View *view;
}

/* Keywords. The alias is how a token is named in messages. */
%token ALGORITHM "'algorithm'" TOPOLOGY "'topology'" STEP "'step'" FOR "'for'"
%token IN "'in'" RANKS "'ranks'" IF "'if'" ELSE "'else'" LET "'let'"
%token PARAM "'param'" REQUIRE "'require'" SCRATCH "'scratch'" SPLIT "'split'"
%token COPY "'copy'" REDUCE "'reduce'" NODES "'nodes'" LINK "'link'"
%token CALL "'call'" ON "'on'" AS "'as'" IMPORT "'import'"
%token <str> IDENT "identifier"
%token <ival> INT "integer"
%token <str> STRING "string"
%token <q> QUANTITY "number with unit"
%token DOTDOT "'..'" ARROW "'->'" BIARROW "'<->'"
%token SHL "'<<'" SHR "'>>'" LE "'<='" GE "'>='" EQ "'=='" NE "'!='"
%token ANDAND "'&&'" OROR "'||'"

%type <ex> expr
%type <args> args
%type <str> coll_name buf_name
%type <stmt> stmt if_stmt
%type <list> stmt_list block
%type <bref> bufref
%type <attrs> link_attrs attr_list
%type <q> quantity
%type <call> call_args bind_list call_on call_as
%type <bind> bind
%type <view> view view_base

/* C's precedence, loosest first. */
%right '?'
%left OROR
%left ANDAND
%left '|'
%left '^'
%left '&'
%left EQ NE
%left '<' LE '>' GE
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%%

/* file = { algorithm | topology } ; */
file
    : %empty
    | file item
    ;

/* item = algorithm | topology | import ;  (error: skip to the next item) */
item
    : algorithm
    | topology
    | IMPORT STRING semi { add_import(ps, $2, @2); }
    | error
    ;

/* algorithm = "algorithm" IDENT ":" COLLECTIVE "{" { stmt } "}" ; */
algorithm
    : ALGORITHM IDENT ':' coll_name block {
        Algorithm *a = ARENA_NEW(ps->arena, Algorithm);
        a->span = @$;
        a->name = $2;
        a->name_span = @2;
        a->coll = collective_lookup($4);
        a->coll_span = @4;
        a->body = $5.head;
        add_algorithm(ps, a);
    }
    ;

/* COLLECTIVE = IDENT ;  ("reduce" is also a statement keyword) */
coll_name
    : IDENT { $$ = $1; }
    | REDUCE { $$ = "reduce"; }
    ;

/* topology = "topology" IDENT "{" { stmt } "}" ; */
topology
    : TOPOLOGY IDENT block {
        Topology *t = ARENA_NEW(ps->arena, Topology);
        t->span = @$;
        t->name = $2;
        t->name_span = @2;
        t->body = $3.head;
        add_topology(ps, t);
    }
    ;

/* block = "{" { stmt } "}" ; */
block
    : '{' stmt_list '}' { $$ = $2; }
    | '{' stmt_list error '}' { $$ = $2; yyerrok; }
    ;

/* stmt_list = { stmt } ; */
stmt_list
    : %empty { $$.head = $$.tail = NULL; }
    | stmt_list stmt { $$ = list_append($1, $2); }
    ;

/* stmt = "step" block
 *      | "for" IDENT "in" ( "ranks" | expr ".." expr ) block
 *      | if_stmt
 *      | "let" IDENT "=" expr ";" | "param" IDENT "=" expr ";"
 *      | "require" expr [ "," STRING ] ";"
 *      | "scratch" IDENT "[" expr "]" ";" | "split" expr ";"
 *      | ( "copy" | "reduce" ) bufref "->" bufref ";"
 *      | "nodes" expr ";"
 *      | "link" expr ( "->" | "<->" ) expr [ link_attrs ] ";" ;
 * (error: skip to the next ';' or over a whole block) */
stmt
    : STEP block {
        $$ = ast_stmt(ps->arena, STMT_STEP, @$);
        $$->u.step.body = $2.head;
    }
    | FOR IDENT IN RANKS block {
        $$ = ast_stmt(ps->arena, STMT_FOR, @$);
        $$->u.for_.var = $2;
        $$->u.for_.var_span = @2;
        $$->u.for_.over_ranks = 1;
        $$->u.for_.body = $5.head;
    }
    | FOR IDENT IN expr DOTDOT expr block {
        $$ = ast_stmt(ps->arena, STMT_FOR, @$);
        $$->u.for_.var = $2;
        $$->u.for_.var_span = @2;
        $$->u.for_.lo = $4.e;
        $$->u.for_.hi = $6.e;
        $$->u.for_.body = $7.head;
    }
    | if_stmt { $$ = $1; }
    | LET IDENT '=' expr semi {
        $$ = ast_stmt(ps->arena, STMT_LET, @$);
        $$->u.let.var = $2;
        $$->u.let.var_span = @2;
        $$->u.let.value = $4.e;
    }
    | PARAM IDENT '=' expr semi {
        $$ = ast_stmt(ps->arena, STMT_PARAM, @$);
        $$->u.let.var = $2;
        $$->u.let.var_span = @2;
        $$->u.let.value = $4.e;
    }
    | REQUIRE expr semi {
        $$ = ast_stmt(ps->arena, STMT_REQUIRE, @$);
        $$->u.require.cond = $2.e;
        $$->u.require.why_span = span_none();
    }
    | REQUIRE expr ',' STRING semi {
        $$ = ast_stmt(ps->arena, STMT_REQUIRE, @$);
        $$->u.require.cond = $2.e;
        $$->u.require.why = $4;
        $$->u.require.why_span = @4;
    }
    | SCRATCH IDENT '[' expr ']' semi {
        $$ = ast_stmt(ps->arena, STMT_SCRATCH, @$);
        $$->u.scratch.name = $2;
        $$->u.scratch.name_span = @2;
        $$->u.scratch.chunks = $4.e;
        $$->u.scratch.buffer = -1;
    }
    | SPLIT expr semi {
        $$ = ast_stmt(ps->arena, STMT_SPLIT, @$);
        $$->u.split.chunks = $2.e;
    }
    | COPY bufref ARROW bufref semi { $$ = mk_xfer(ps, @$, XFER_COPY, $2, $4); }
    | REDUCE bufref ARROW bufref semi { $$ = mk_xfer(ps, @$, XFER_REDUCE, $2, $4); }
    | NODES expr semi {
        $$ = ast_stmt(ps->arena, STMT_NODES, @$);
        $$->u.nodes.count = $2.e;
    }
    | LINK expr ARROW expr link_attrs semi { $$ = mk_link(ps, @$, $2, $4, 0, $5); }
    | LINK expr BIARROW expr link_attrs semi { $$ = mk_link(ps, @$, $2, $4, 1, $5); }
    | CALL IDENT call_args call_on semi { $$ = mk_call_stmt(ps, @$, $2, @2, $3, $4); }
    | error ';' { $$ = NULL; yyerrok; }
    | error block { $$ = NULL; yyerrok; ps->error_block_end = @2.hi; }
    ;

/* semi = ";" ;  (error: a missing ';' ends the statement, so the next
 * statement still parses; after a resynchronising ';' or block, errors are
 * reported again at once: yyerrok) */
semi
    : ';'
    | error
    | error ';' { yyerrok; }
    ;

/* if_stmt = "if" expr block [ "else" ( block | if_stmt ) ] ; */
if_stmt
    : IF expr block {
        $$ = ast_stmt(ps->arena, STMT_IF, @$);
        $$->u.if_.cond = $2.e;
        $$->u.if_.then_ = $3.head;
    }
    | IF expr block ELSE block {
        $$ = ast_stmt(ps->arena, STMT_IF, @$);
        $$->u.if_.cond = $2.e;
        $$->u.if_.then_ = $3.head;
        $$->u.if_.else_ = $5.head;
    }
    | IF expr block ELSE if_stmt {
        $$ = ast_stmt(ps->arena, STMT_IF, @$);
        $$->u.if_.cond = $2.e;
        $$->u.if_.then_ = $3.head;
        $$->u.if_.else_ = $5;
    }
    ;

/* call_args = [ "(" [ bind { "," bind } ] ")" ] ; */
call_args
    : %empty { memset(&$$, 0, sizeof $$); }
    | '(' ')' { memset(&$$, 0, sizeof $$); }
    | '(' bind_list ')' { $$ = $2; }
    ;

bind_list
    : bind {
        CallParts none;
        memset(&none, 0, sizeof none);
        $$ = bind_add(ps, none, $1);
    }
    | bind_list ',' bind { $$ = bind_add(ps, $1, $3); }
    ;

/* bind = ( IDENT | "in" ) "=" ( expr | view ) ;  (a bare name is an expr;
 * sema reads `out` as the whole view when the binding is in or out) */
bind
    : IDENT '=' expr {
        memset(&$$, 0, sizeof $$);
        $$.span = @$; $$.name = $1; $$.name_span = @1; $$.value = $3.e;
    }
    | IDENT '=' view {
        memset(&$$, 0, sizeof $$);
        $$.span = @$; $$.name = $1; $$.name_span = @1; $$.view = $3;
    }
    | IN '=' expr {
        memset(&$$, 0, sizeof $$);
        $$.span = @$; $$.name = "in"; $$.name_span = @1; $$.value = $3.e;
    }
    | IN '=' view {
        memset(&$$, 0, sizeof $$);
        $$.span = @$; $$.name = "in"; $$.name_span = @1; $$.view = $3;
    }
    ;

/* view = ( IDENT | "in" ) [ "[" expr [ ".." expr ] "]" ] { "." IDENT "(" args ")" } ;
 * (a bare IDENT is an expr above) */
view
    : view_base { $$ = $1; }
    | IN { $$ = mk_view(ps, @$, "in", @1, NULL, NULL); }
    | view '.' IDENT '(' args ')' { $$ = view_part(ps, $1, @$, $3, @3, $5); }
    | IDENT '.' IDENT '(' args ')' {
        $$ = view_part(ps, mk_view(ps, @1, $1, @1, NULL, NULL), @$, $3, @3, $5);
    }
    ;

view_base
    : IDENT '[' expr ']' { $$ = mk_view(ps, @$, $1, @1, $3.e, NULL); }
    | IDENT '[' expr DOTDOT expr ']' { $$ = mk_view(ps, @$, $1, @1, $3.e, $5.e); }
    | IN '[' expr ']' { $$ = mk_view(ps, @$, "in", @1, $3.e, NULL); }
    | IN '[' expr DOTDOT expr ']' { $$ = mk_view(ps, @$, "in", @1, $3.e, $5.e); }
    ;

/* call_on = [ "on" IDENT "(" [ args ] ")" [ call_as ] ] ; */
call_on
    : %empty { memset(&$$, 0, sizeof $$); }
    | ON IDENT '(' ')' call_as {
        $$ = $5; $$.group = $2; $$.group_span = @2;
    }
    | ON IDENT '(' args ')' call_as {
        $$ = $6; $$.group = $2; $$.group_span = @2; $$.gargs = $4.v; $$.ngargs = $4.n;
    }
    ;

/* call_as = [ "as" "(" IDENT "," IDENT ")" ] ; */
call_as
    : %empty { memset(&$$, 0, sizeof $$); }
    | AS '(' IDENT ',' IDENT ')' {
        memset(&$$, 0, sizeof $$);
        $$.gname = $3; $$.gname_span = @3; $$.iname = $5; $$.iname_span = @5;
    }
    ;

/* bufref = ( IDENT | "in" ) "[" expr "]" [ "[" expr [ ".." expr ] "]" ] ; */
bufref
    : buf_name '[' expr ']' { $$ = mk_bufref(@$, $1, @1, $3, NULL, NULL); }
    | buf_name '[' expr ']' '[' expr ']' { $$ = mk_bufref(@$, $1, @1, $3, $6.e, NULL); }
    | buf_name '[' expr ']' '[' expr DOTDOT expr ']' {
        $$ = mk_bufref(@$, $1, @1, $3, $6.e, $8.e);
    }
    ;

/* buf_name = IDENT | "in" ; */
buf_name
    : IDENT { $$ = $1; }
    | IN { $$ = "in"; }
    ;

/* link_attrs = [ "[" attr { "," attr } "]" ] ; */
link_attrs
    : %empty { memset(&$$, 0, sizeof $$); }
    | '[' attr_list ']' { $$ = $2; }
    ;

/* attr_list = attr { "," attr } ;   attr = ( "alpha" | "beta" ) "=" quantity ; */
attr_list
    : IDENT '=' quantity {
        LinkAttrs none;
        memset(&none, 0, sizeof none);
        $$ = attr_add(ps, none, $1, @1, $3);
    }
    | attr_list ',' IDENT '=' quantity { $$ = attr_add(ps, $1, $3, @3, $5); }
    ;

/* quantity = QUANTITY | INTEGER ;   (2, 0.5, 2us, 32GB/s) */
quantity
    : QUANTITY { $$ = $1; }
    | INT { $$.value = (double)$1; $$.unit = QUANT_SCALE; $$.span = @1; }
    ;

/* expr = expr "?" expr ":" expr | expr binop expr | unop expr | primary ;
 *        (C precedence; ?: is the loosest and right-associative)
 * primary = INTEGER | IDENT | IDENT "(" [ expr { "," expr } ] ")" | "(" expr ")" ; */
expr
    : INT { $$.e = ast_int(ps->arena, @1, $1); $$.depth = 1; }
    | IDENT { $$.e = ast_name(ps->arena, @1, $1); $$.depth = 1; }
    | IDENT '(' ')' {
        ArgList none = {NULL, 0, 0, 0};
        $$ = mk_call(ps, @$, $1, @1, none);
    }
    | IDENT '(' args ')' { $$ = mk_call(ps, @$, $1, @1, $3); }
    | '(' expr ')' { $$ = $2; $$.e->paren = 1; }
    | '-' expr %prec UNARY { $$ = mk_unary(ps, @$, UOP_NEG, $2); }
    | '~' expr %prec UNARY { $$ = mk_unary(ps, @$, UOP_BNOT, $2); }
    | '!' expr %prec UNARY { $$ = mk_unary(ps, @$, UOP_LNOT, $2); }
    | expr '*' expr { $$ = mk_binary(ps, @$, @2, BOP_MUL, $1, $3); }
    | expr '/' expr { $$ = mk_binary(ps, @$, @2, BOP_DIV, $1, $3); }
    | expr '%' expr { $$ = mk_binary(ps, @$, @2, BOP_MOD, $1, $3); }
    | expr '+' expr { $$ = mk_binary(ps, @$, @2, BOP_ADD, $1, $3); }
    | expr '-' expr { $$ = mk_binary(ps, @$, @2, BOP_SUB, $1, $3); }
    | expr SHL expr { $$ = mk_binary(ps, @$, @2, BOP_SHL, $1, $3); }
    | expr SHR expr { $$ = mk_binary(ps, @$, @2, BOP_SHR, $1, $3); }
    | expr '<' expr { $$ = mk_binary(ps, @$, @2, BOP_LT, $1, $3); }
    | expr LE expr { $$ = mk_binary(ps, @$, @2, BOP_LE, $1, $3); }
    | expr '>' expr { $$ = mk_binary(ps, @$, @2, BOP_GT, $1, $3); }
    | expr GE expr { $$ = mk_binary(ps, @$, @2, BOP_GE, $1, $3); }
    | expr EQ expr { $$ = mk_binary(ps, @$, @2, BOP_EQ, $1, $3); }
    | expr NE expr { $$ = mk_binary(ps, @$, @2, BOP_NE, $1, $3); }
    | expr '&' expr { $$ = mk_binary(ps, @$, @2, BOP_BAND, $1, $3); }
    | expr '^' expr { $$ = mk_binary(ps, @$, @2, BOP_BXOR, $1, $3); }
    | expr '|' expr { $$ = mk_binary(ps, @$, @2, BOP_BOR, $1, $3); }
    | expr ANDAND expr { $$ = mk_binary(ps, @$, @2, BOP_LAND, $1, $3); }
    | expr OROR expr { $$ = mk_binary(ps, @$, @2, BOP_LOR, $1, $3); }
    | expr '?' expr ':' expr %prec '?' { $$ = mk_cond(ps, @$, $1, $3, $5); }
    ;

/* args = expr { "," expr } ; */
args
    : expr { ArgList none = {NULL, 0, 0, 0}; $$ = args_push(ps, none, $1); }
    | args ',' expr { $$ = args_push(ps, $1, $3); }
    ;

%%

/* ---- AST helpers ---- */

static void check_depth(ParseState *ps, Span sp, int depth) {
    /* Report once per deep chain: only the node that crosses the limit. */
    if (depth == PARSE_MAX_EXPR_DEPTH + 1)
        parse_error_at(ps, sp, "nesting-too-deep",
                       "expression nested too deeply (more than %d levels)",
                       PARSE_MAX_EXPR_DEPTH);
}

static ExprV mk_unary(ParseState *ps, Span sp, UnaryOp op, ExprV a) {
    ExprV r = {ast_unary(ps->arena, sp, op, a.e), a.depth + 1};
    check_depth(ps, sp, r.depth);
    return r;
}

static int is_comparison(BinaryOp op) { return op >= BOP_EQ && op <= BOP_GE; }

/* C's precedence traps, warned about as C compilers do: a comparison as an
 * operand of & | ^ (`a & b == c` is `a & (b == c)`), and + or - as an
 * operand of << >> (`1 << s + 1` is `1 << (s + 1)`). An operand written in
 * parentheses says what the author meant. */
static void warn_precedence(ParseState *ps, Span op_sp, BinaryOp op, const Expr *x) {
    if (x->paren || x->kind != EXPR_BINARY) return;
    BinaryOp inner = x->u.binary.op;
    int bitwise = op == BOP_BAND || op == BOP_BOR || op == BOP_BXOR;
    int shift = op == BOP_SHL || op == BOP_SHR;
    const char *o = ast_binary_op_text(op), *i = ast_binary_op_text(inner);
    if (bitwise && is_comparison(inner))
        diag_warning(ps->dx, op_sp, "precedence",
                     "'%s' has lower precedence than '%s'; '%s' will be evaluated first", o, i, i);
    else if (shift && (inner == BOP_ADD || inner == BOP_SUB))
        diag_warning(ps->dx, op_sp, "precedence",
                     "'%s' has lower precedence than '%s'; '%s' will be evaluated first", o, i, i);
    else
        return;
    diag_note(ps->dx, x->span, "place parentheses around the '%s' expression to silence this "
              "warning", i);
}

static ExprV mk_binary(ParseState *ps, Span sp, Span op_sp, BinaryOp op, ExprV a, ExprV b) {
    ExprV r = {ast_binary(ps->arena, sp, op, a.e, b.e),
               (a.depth > b.depth ? a.depth : b.depth) + 1};
    check_depth(ps, sp, r.depth);
    warn_precedence(ps, op_sp, op, a.e);
    warn_precedence(ps, op_sp, op, b.e);
    return r;
}

static ExprV mk_cond(ParseState *ps, Span sp, ExprV c, ExprV a, ExprV b) {
    int d = c.depth > a.depth ? c.depth : a.depth;
    ExprV r = {ast_cond(ps->arena, sp, c.e, a.e, b.e), (d > b.depth ? d : b.depth) + 1};
    check_depth(ps, sp, r.depth);
    return r;
}

static ExprV mk_call(ParseState *ps, Span sp, const char *name, Span name_sp, ArgList args) {
    Expr *e = ARENA_NEW(ps->arena, Expr);
    e->kind = EXPR_CALL;
    e->span = sp;
    e->u.call.name = name;
    e->u.call.name_span = name_sp;
    e->u.call.args = args.v;
    e->u.call.nargs = args.n;
    e->u.call.builtin = BUILTIN__COUNT;
    ExprV r = {e, args.depth + 1};
    check_depth(ps, sp, r.depth);
    return r;
}

static ArgList args_push(ParseState *ps, ArgList l, ExprV x) {
    Expr *e = x.e;
    if (x.depth > l.depth) l.depth = x.depth;
    if (l.n == l.cap) {
        int cap = l.cap ? l.cap * 2 : 4;
        Expr **v = ARENA_ARRAY(ps->arena, Expr *, cap);
        if (l.n) memcpy(v, l.v, sizeof(Expr *) * (size_t)l.n);
        l.v = v;
        l.cap = cap;
    }
    l.v[l.n++] = e;
    return l;
}

static StmtList list_append(StmtList l, Stmt *s) {
    if (!s) return l;  /* a statement that failed to parse */
    if (l.tail) l.tail->next = s;
    else l.head = s;
    l.tail = s;
    return l;
}

static BufRef mk_bufref(Span sp, const char *name, Span name_sp, ExprV rank, Expr *lo, Expr *hi) {
    BufRef b;
    memset(&b, 0, sizeof b);
    b.span = sp;
    b.name = name;
    b.name_span = name_sp;
    b.rank = rank.e;
    b.lo = lo;
    b.hi = hi;
    b.buffer = -1;
    return b;
}

static Stmt *mk_xfer(ParseState *ps, Span sp, XferOp op, BufRef src, BufRef dst) {
    Stmt *s = ast_stmt(ps->arena, STMT_XFER, sp);
    s->u.xfer.op = op;
    s->u.xfer.src = src;
    s->u.xfer.dst = dst;
    return s;
}

static LinkAttrs attr_add(ParseState *ps, LinkAttrs l, const char *name, Span name_sp, Quantity q) {
    if (strcmp(name, "alpha") == 0) {
        if (l.has_alpha) {
            parse_error_at(ps, name_sp, "syntax", "duplicate link attribute 'alpha'");
            diag_note(ps->dx, l.alpha.span, "previous value is here");
        } else if (q.unit == QUANT_BYTES_PER_S) {
            parse_error_at(ps, q.span, "bad-unit",
                           "'alpha' is a latency: expected a time (ns, us, ms, s) or a plain multiplier");
        }
        l.has_alpha = 1;
        l.alpha = q;
    } else if (strcmp(name, "beta") == 0) {
        if (l.has_beta) {
            parse_error_at(ps, name_sp, "syntax", "duplicate link attribute 'beta'");
            diag_note(ps->dx, l.beta.span, "previous value is here");
        } else if (q.unit == QUANT_SECONDS) {
            parse_error_at(ps, q.span, "bad-unit",
                           "'beta' is a bandwidth: expected bytes per second (B/s .. TB/s, KiB/s .. GiB/s) or a plain multiplier");
        }
        l.has_beta = 1;
        l.beta = q;
    } else {
        parse_error_at(ps, name_sp, "syntax",
                       "unknown link attribute '%s' (expected 'alpha' or 'beta')", name);
    }
    return l;
}

static Stmt *mk_link(ParseState *ps, Span sp, ExprV from, ExprV to, int bidi, LinkAttrs la) {
    Stmt *s = ast_stmt(ps->arena, STMT_LINK, sp);
    s->u.link.from = from.e;
    s->u.link.to = to.e;
    s->u.link.bidirectional = bidi;
    s->u.link.has_alpha = la.has_alpha;
    s->u.link.has_beta = la.has_beta;
    s->u.link.alpha = la.alpha;
    s->u.link.beta = la.beta;
    return s;
}

/* Program arrays live in the arena with an implicit capacity: the next power
 * of two >= max(count, 4). Only the parser appends to them. */
static void *grow_ptr_array(ParseState *ps, void *old, int n) {
    int cap;
    if (n == 0) cap = 4;
    else if (n >= 4 && (n & (n - 1)) == 0) cap = n * 2;
    else return old;  /* room left */
    void **v = ARENA_ARRAY(ps->arena, void *, cap);
    if (n) memcpy(v, old, sizeof(void *) * (size_t)n);
    return v;
}

static void add_algorithm(ParseState *ps, Algorithm *a) {
    Program *p = ps->prog;
    p->algorithms = grow_ptr_array(ps, p->algorithms, p->nalgorithms);
    p->algorithms[p->nalgorithms++] = a;
}

static void add_topology(ParseState *ps, Topology *t) {
    Program *p = ps->prog;
    p->topologies = grow_ptr_array(ps, p->topologies, p->ntopologies);
    p->topologies[p->ntopologies++] = t;
}

static void add_import(ParseState *ps, const char *path, Span sp) {
    Program *p = ps->prog;
    if (!path) return;  /* an unterminated string, reported */
    Import *v = ARENA_ARRAY(ps->arena, Import, (size_t)p->nimports + 1);
    if (p->nimports) memcpy(v, p->imports, sizeof *v * (size_t)p->nimports);
    v[p->nimports].path = path;
    v[p->nimports].span = sp;
    p->imports = v;
    p->nimports++;
}

static CallParts bind_add(ParseState *ps, CallParts c, Binding b) {
    if (c.nbinds == c.cap) {
        int cap = c.cap ? c.cap * 2 : 4;
        Binding *v = ARENA_ARRAY(ps->arena, Binding, (size_t)cap);
        if (c.nbinds) memcpy(v, c.binds, sizeof *v * (size_t)c.nbinds);
        c.binds = v;
        c.cap = cap;
    }
    c.binds[c.nbinds++] = b;
    return c;
}

static Stmt *mk_call_stmt(ParseState *ps, Span sp, const char *callee, Span callee_sp,
                          CallParts args, CallParts on) {
    Stmt *s = ast_stmt(ps->arena, STMT_CALL, sp);
    s->u.call.callee = callee;
    s->u.call.callee_span = callee_sp;
    s->u.call.binds = args.binds;
    s->u.call.nbinds = args.nbinds;
    s->u.call.group = on.group;
    s->u.call.group_span = on.group ? on.group_span : callee_sp;
    s->u.call.gargs = on.gargs;
    s->u.call.ngargs = on.ngargs;
    s->u.call.kind = GROUP__COUNT;
    s->u.call.gname = on.gname;
    s->u.call.iname = on.iname;
    s->u.call.gname_span = on.gname_span;
    s->u.call.iname_span = on.iname_span;
    return s;
}

static View *mk_view(ParseState *ps, Span sp, const char *buf, Span buf_sp, Expr *lo, Expr *hi) {
    View *v = ARENA_NEW(ps->arena, View);
    v->span = sp;
    v->buf = buf;
    v->buf_span = buf_sp;
    v->buffer = -1;
    v->lo = lo;
    v->hi = hi;
    return v;
}

/* view.part(p, Q); a part of a part is one part: .part(a, Q).part(b, R) is
 * .part(a * R + b, Q * R). */
static View *view_part(ParseState *ps, View *v, Span sp, const char *what, Span what_sp,
                       ArgList args) {
    v->span = sp;
    if (strcmp(what, "part") != 0) {
        parse_error_at(ps, what_sp, "syntax", "unknown view '.%s' (a view takes '.part(p, Q)')",
                       what);
        return v;
    }
    if (args.n != 2) {
        parse_error_at(ps, what_sp, "arity", "'part' takes 2 arguments (p, Q), got %d", args.n);
        return v;
    }
    Expr *p = args.v[0], *q = args.v[1];
    if (!v->part) {
        v->part = p;
        v->parts = q;
    } else {
        v->part = ast_binary(ps->arena, sp, BOP_ADD, ast_binary(ps->arena, sp, BOP_MUL, v->part, q), p);
        v->parts = ast_binary(ps->arena, sp, BOP_MUL, v->parts, q);
    }
    return v;
}

/* ---- diagnostics ---- */

void parse_lex_error_at(ParseState *ps, Span sp, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(ps->dx, DIAG_ERROR, sp, code, fmt, ap);
    va_end(ap);
    ps->lex_error_tok = ps->ntok + 1;  /* the token being scanned */
}

void parse_error_at(ParseState *ps, Span sp, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(ps->dx, DIAG_ERROR, sp, code, fmt, ap);
    va_end(ap);
}

/* Bison calls this only when its stack is exhausted (YYMAXDEPTH). */
static void coll_yyerror(Span *loc, ParseState *ps, const char *msg) {
    (void)msg;
    if (ps->fatal) return;
    parse_error_at(ps, *loc, "nesting-too-deep", "program nested too deeply");
    ps->fatal = 1;
}


/* ---- syntax error messages ---- */

/* How a token kind is written in messages: "';'", "'let'", "identifier". */
static const char *tok_text(yysymbol_kind_t k) {
    static char buf[64];
    if (k == YYSYMBOL_YYEOF) return "end of input";
    const char *n = yysymbol_name(k);
    size_t len = strlen(n);
    if (len >= 2 && n[0] == '"' && n[len - 1] == '"' && len - 2 < sizeof buf) {
        memcpy(buf, n + 1, len - 2);
        buf[len - 2] = 0;
        return buf;
    }
    return n;
}

static int tok_is(yysymbol_kind_t k, const char *text) {
    return strcmp(tok_text(k), text) == 0;
}

/* Binary operators and '(' (call) continue an expression; they are left
 * out of "expected ..." lists so the structural token is named. */
static int tok_continues_expr(yysymbol_kind_t k) {
    static const char *const ops[] = {
        "'||'", "'&&'", "'|'", "'^'", "'&'", "'=='", "'!='", "'<'", "'<='",
        "'>'", "'>='", "'<<'", "'>>'", "'+'", "'-'", "'*'", "'/'", "'%'", "'('", "'?'",
    };
    const char *t = tok_text(k);
    for (size_t i = 0; i < ARRAY_LEN(ops); i++)
        if (strcmp(t, ops[i]) == 0) return 1;
    return 0;
}

static int tok_is_keyword(yysymbol_kind_t k) {
    return k >= YYSYMBOL_ALGORITHM && k <= YYSYMBOL_IMPORT;
}

/* The source text of the lookahead, shortened, for "unexpected 'x'". */
static const char *la_text(ParseState *ps, Span at, char *buf, size_t cap) {
    size_t n = at.hi > at.lo ? at.hi - at.lo : 0;
    if (n == 0) return "end of input";
    size_t i = 0, o = 0;
    buf[o++] = '\'';
    for (; i < n && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)ps->text[at.lo + i];
        if (c == '\n' || c == '\r' || c == '\t' || c < 0x20 || c == 0x7f) break;
        buf[o++] = (char)c;
    }
    if (i < n) { buf[o++] = '.'; buf[o++] = '.'; buf[o++] = '.'; }
    buf[o++] = '\'';
    buf[o] = 0;
    return buf;
}

/* The innermost unclosed bracket `ch` before the lookahead, or NULL. */
static const OpenBracket *open_bracket(const ParseState *ps, char ch) {
    if (ps->la_popped && ps->popped.ch == ch) return &ps->popped;
    int top = ps->nbrackets - (ps->la_pushed ? 1 : 0);
    for (int i = top - 1; i >= 0; i--)
        if (ps->brackets[i].ch == ch) return &ps->brackets[i];
    return NULL;
}

void parse_note_match(ParseState *ps, char close) {
    char open = close == ')' ? '(' : close == ']' ? '[' : '{';
    const OpenBracket *b = open_bracket(ps, open);
    if (b) diag_note(ps->dx, b->span, "to match this '%c'", open);
}

/* Suggests a keyword for a misspelled identifier ("cpy" -> "copy"). */
static void note_keyword(ParseState *ps, Span at, yysymbol_kind_t la,
                         const yysymbol_kind_t *exp, int nexp) {
    if (la != YYSYMBOL_IDENT || at.hi <= at.lo || at.hi - at.lo > 32) return;
    char word[40];
    memcpy(word, ps->text + at.lo, at.hi - at.lo);
    word[at.hi - at.lo] = 0;
    Suggest sg;
    suggest_init(&sg, word, SUGGEST_KEYWORD);
    for (int i = 0; i < nexp; i++) {
        if (!tok_is_keyword(exp[i])) continue;
        char kw[32];
        const char *t = tok_text(exp[i]);  /* 'copy' */
        size_t len = strlen(t);
        if (len < 3 || len - 2 >= sizeof kw) continue;
        memcpy(kw, t + 1, len - 2);
        kw[len - 2] = 0;
        suggest_offer(&sg, kw, t); /* the note shows the quoted token, sg.item */
    }
    if (sg.item) diag_note(ps->dx, at, "did you mean %s?", (const char *)sg.item);
}

/* `x = ...` at the start of a statement (the text after the identifier). */
static int looks_like_assignment(const ParseState *ps, Span at) {
    if (at.hi - at.lo > 64) return 0;
    uint32_t i = at.hi;
    while (i < ps->len && (ps->text[i] == ' ' || ps->text[i] == '\t')) i++;
    return i + 1 < ps->len && ps->text[i] == '=' && ps->text[i + 1] != '=';
}

/* `for VAR in X {` where X is one expression: "expected '..'" alone does
 * not say what is wrong. A misspelt 'ranks' (`for r in rank`) gets that
 * word as a fix-it, any other value (`for i in N`) the range from 0. */
static void report_for_range(ParseState *ps, Span at) {
    uint32_t lo = ps->in_end, hi = ps->prev_end;
    while (lo < hi && (ps->text[lo] == ' ' || ps->text[lo] == '\t' || ps->text[lo] == '\n' || ps->text[lo] == '\r'))
        lo++;
    Span x = {at.file, lo, hi};
    size_t n = hi - lo;
    int ident = n > 0 && n < 32 && !(ps->text[lo] >= '0' && ps->text[lo] <= '9');
    for (size_t i = 0; i < n && ident; i++) {
        char c = ps->text[lo + i];
        ident = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
    char word[32] = "";
    if (ident) memcpy(word, ps->text + lo, n);
    if (ident && n >= 3 && edit_distance(word, "ranks") <= 2) {
        parse_error_at(ps, x, "syntax",
                       "'%s' is not a range: a 'for' loop runs over 'ranks' or over 'A .. B'", word);
        diag_note_fixit(ps->dx, x, "ranks", "did you mean 'ranks'?");
        return;
    }
    parse_error_at(ps, x, "syntax",
                   "a 'for' loop runs over 'ranks' or over a range 'A .. B', not over one value");
    Span before = {at.file, lo, lo};
    int one_line = n <= 40 && !memchr(ps->text + lo, '\n', n);
    if (one_line)
        diag_note_fixit(ps->dx, before, "0 .. ", "did you mean '0 .. %.*s'?", (int)n, ps->text + lo);
    else
        diag_note_fixit(ps->dx, before, "0 .. ", "did you mean a range from 0?");
}

static int yyreport_syntax_error(const yypcontext_t *ctx, ParseState *ps) {
    if (ps->fatal) return 0;
    yysymbol_kind_t la = yypcontext_token(ctx);
    if (la == YYSYMBOL_YYEOF) ps->eof_reported = 1;
    Span at = *yypcontext_location(ctx);
    if (la == YYSYMBOL_YYerror || la == YYSYMBOL_YYUNDEF) return 0;  /* scanner reported */
    /* A syntax error right after a lexical error is almost always its
     * consequence (the stray character was dropped, the unterminated string
     * ate the ';'): do not report it twice. Likewise for the closers the
     * scanner inserted before a misplaced 'algorithm'. */
    if (ps->lex_error_tok && ps->lex_error_tok + 1 >= ps->ntok) return 0;
    if (ps->nsynthetic_left || ps->synthetic_active) return 0;
    enum { MAXEXP = 64 };
    yysymbol_kind_t exp[MAXEXP];
    int nexp = yypcontext_expected_tokens(ctx, exp, MAXEXP);
    if (nexp < 0) nexp = 0;
    int has_semi = 0, has_comma = 0, has_expr = 0, has_stmt = 0, has_item = 0, has_rbrace = 0, has_ranks = 0;
    yysymbol_kind_t rest[MAXEXP];
    int nrest = 0;  /* expected tokens that do not continue an expression */
    for (int i = 0; i < nexp; i++) {
        yysymbol_kind_t k = exp[i];
        if (tok_is(k, "';'")) has_semi = 1;
        if (tok_is(k, "','")) has_comma = 1;
        if (k == YYSYMBOL_INT) has_expr = 1;    /* only where an expression may start */
        if (k == YYSYMBOL_LET) has_stmt = 1;    /* only where a statement may start */
        if (k == YYSYMBOL_ALGORITHM || k == YYSYMBOL_TOPOLOGY) has_item = 1;
        if (tok_is(k, "'}'")) has_rbrace = 1;
        if (k == YYSYMBOL_RANKS) has_ranks = 1;
        if (!tok_continues_expr(k)) rest[nrest++] = k;
    }
    char tb[48];
    Span after = {at.file, ps->prev_end, ps->prev_end};
    int la_close = tok_is(la, "')'") || tok_is(la, "']'");

    if (has_stmt && tok_is(la, "';'")) {
        parse_error_at(ps, at, "syntax", "extra ';' (empty statements are not allowed)");
    } else if (has_stmt && la == YYSYMBOL_YYEOF && has_rbrace) {
        parse_error_at(ps, at, "syntax", "expected '}' at end of input");
        parse_note_match(ps, '}');
        ps->eof_reported = 1;
    } else if (has_stmt) {
        if (la == YYSYMBOL_ELSE && ps->error_block_end == ps->prev_end && ps->prev_end)
            return 0;  /* the 'if' it belongs to had a syntax error */
        if (la == YYSYMBOL_ELSE)
            parse_error_at(ps, at, "syntax", "'else' without a preceding 'if'");
        else if (la == YYSYMBOL_IDENT && looks_like_assignment(ps, at)) {
            parse_error_at(ps, at, "syntax", "unknown statement %s", la_text(ps, at, tb, sizeof tb));
            diag_note(ps->dx, at, "there is no assignment statement; names are bound once, with 'let'");
            return 0;
        } else if (la == YYSYMBOL_IDENT)
            parse_error_at(ps, at, "syntax", "unknown statement %s", la_text(ps, at, tb, sizeof tb));
        else
            parse_error_at(ps, at, "syntax", "expected statement, found %s",
                           la_text(ps, at, tb, sizeof tb));
        note_keyword(ps, at, la, exp, nexp);
    } else if (has_item && !has_expr) {
        if (tok_is(la, "'}'"))
            parse_error_at(ps, at, "syntax", "extraneous closing brace ('}')");
        else
            parse_error_at(ps, at, "syntax", "expected 'algorithm' or 'topology', found %s",
                           la_text(ps, at, tb, sizeof tb));
        note_keyword(ps, at, la, exp, nexp);
    } else if (la == YYSYMBOL_QUANTITY && has_expr) {
        parse_error_at(ps, at, "syntax",
                       "expected integer expression; numbers with a fraction, exponent or unit "
                       "are only allowed as link attribute values");
    } else if (la == YYSYMBOL_RANKS && has_expr && !has_ranks) {
        parse_error_at(ps, at, "syntax", "'ranks' can only be used as 'for VAR in ranks'");
    } else if (has_semi && la_close && !open_bracket(ps, tok_is(la, "')'") ? '(' : '[')) {
        parse_error_at(ps, at, "syntax", "unmatched %s", tok_text(la));
    } else if (has_semi && la == YYSYMBOL_STRING && has_comma) {
        parse_error_at(ps, after, "syntax", "expected ',' before the reason of 'require'");
    } else if (has_semi) {
        parse_error_at(ps, after, "syntax", "expected ';' after statement");
    } else if (has_expr) {  /* also "f(" + ')' and similar: clang's wording */
        parse_error_at(ps, at, "syntax", has_ranks ? "expected 'ranks' or expression"
                                                   : "expected expression");
    } else if (nrest == 1 && rest[0] == YYSYMBOL_IDENT) {
        if (tok_is_keyword(la))
            parse_error_at(ps, at, "syntax", "expected identifier; %s is a keyword", tok_text(la));
        else
            parse_error_at(ps, at, "syntax", "expected identifier");
    } else if (nrest == 2 && rest[0] == YYSYMBOL_REDUCE && rest[1] == YYSYMBOL_IDENT) {
        parse_error_at(ps, at, "syntax", "expected collective name (e.g. 'allreduce')");
    } else if (nrest == 2 && rest[0] == YYSYMBOL_IN && rest[1] == YYSYMBOL_IDENT) {
        parse_error_at(ps, at, "syntax", "expected buffer name");
    } else if (nrest == 1 && rest[0] == YYSYMBOL_DOTDOT && tok_is(la, "'{'") &&
               ps->prev_end > ps->in_end) {
        report_for_range(ps, at);
    } else if (nrest >= 1 && nrest <= 4) {
        char msg[160] = "expected ";
        for (int i = 0; i < nrest; i++) {
            if (i > 0) strcat(msg, i == nrest - 1 ? " or " : ", ");
            strcat(msg, tok_text(rest[i]));
        }
        parse_error_at(ps, at, "syntax", "%s", msg);
        if (nrest == 1 && (tok_is(rest[0], "')'") || tok_is(rest[0], "']'") ||
                           tok_is(rest[0], "'}'")))
            parse_note_match(ps, tok_text(rest[0])[1]);
    } else {
        parse_error_at(ps, at, "syntax", "unexpected %s", la_text(ps, at, tb, sizeof tb));
    }
    return 0;
}

/* ---- the scanner as the parser sees it ---- */

/* Wraps the flex scanner: remembers where the previous token ended (the
 * caret position for "expected ';'"), tracks open brackets for "to match
 * this '('" notes and enforces the bracket nesting limit. */
int coll_yylex(COLL_YYSTYPE *lval, Span *lloc, ParseState *ps) {
    int tok;
    ps->synthetic_active = 0;
    if (ps->fatal || ps->at_eof) {
        tok = 0;
        lloc->file = ps->file;
        lloc->lo = lloc->hi = ps->eof_pos;
    } else if (ps->nsynthetic_left > 0) {
        /* A closer the scanner inserted (zero width, at the keyword). */
        tok = ps->synthetic[--ps->nsynthetic_left];
        *lloc = ps->synthetic_span;
        lloc->hi = lloc->lo;
        ps->synthetic_active = 1;
        if (ps->nsynthetic_left == 0) ps->synthetic_tok = -ps->synthetic_tok;
    } else if (ps->synthetic_tok < 0) {
        tok = -ps->synthetic_tok;
        *lloc = ps->synthetic_span;
        ps->synthetic_tok = 0;
        ps->synthetic_active = 1;
    } else {
        tok = coll_scan(lval, lloc, ps->scanner);
        ps->ntok++;
        if (tok == 0) ps->at_eof = 1;  /* never call the scanner after its end */
        /* 'algorithm' and 'topology' only start items: seen inside brackets,
         * the item before is missing its closers. Report that once and
         * insert them, so that this item still parses. */
        if ((tok == ALGORITHM || tok == TOPOLOGY) && ps->nbrackets > 0) {
            const OpenBracket *ob = &ps->brackets[ps->nbrackets - 1];
            char close = ob->ch == '(' ? ')' : ob->ch == '[' ? ']' : '}';
            parse_error_at(ps, *lloc, "syntax", "expected '%c' before '%s'", close,
                           tok == ALGORITHM ? "algorithm" : "topology");
            diag_note(ps->dx, ob->span, "to match this '%c'", ob->ch);
            for (int i = 0; i < ps->nbrackets; i++) {
                char c = ps->brackets[i].ch;
                ps->synthetic[i] = c == '(' ? ')' : c == '[' ? ']' : '}';
            }
            ps->nsynthetic_left = ps->nbrackets;
            ps->synthetic_tok = tok;
            ps->synthetic_span = *lloc;
            tok = ps->synthetic[--ps->nsynthetic_left];
            lloc->hi = lloc->lo;
            ps->synthetic_active = 1;
            if (ps->nsynthetic_left == 0) ps->synthetic_tok = -ps->synthetic_tok;
        }
    }
    ps->prev_end = ps->last_end;
    ps->last_end = lloc->hi;
    if (tok == IN) ps->in_end = lloc->hi;
    /* ';', '{' and '}' never occur inside '(' or '[' in this grammar: once
     * one of them has been consumed, drop the '(' and '[' a syntax error
     * left unclosed, so that later notes and "unmatched ')'" stay right.
     * (Not before: the message about that token may still need them.) */
    if (ps->last_tok == ';' || ps->last_tok == '{' || ps->last_tok == '}') {
        int n = 0;
        for (int i = 0; i < ps->nbrackets; i++)
            if (ps->brackets[i].ch == '{') ps->brackets[n++] = ps->brackets[i];
        ps->nbrackets = n;
    }
    ps->last_tok = tok;
    ps->la_pushed = ps->la_popped = 0;
    if (tok == '(' || tok == '[' || tok == '{') {
        if (ps->nbrackets == PARSE_MAX_BRACKETS) {
            parse_error_at(ps, *lloc, "nesting-too-deep",
                           "brackets nested too deeply (more than %d levels)",
                           PARSE_MAX_BRACKETS);
            ps->fatal = 1;
            lloc->lo = lloc->hi = ps->eof_pos;
            return 0;
        }
        ps->brackets[ps->nbrackets].ch = (char)tok;
        ps->brackets[ps->nbrackets].span = *lloc;
        ps->nbrackets++;
        ps->la_pushed = 1;
    } else if (tok == ')' || tok == ']' || tok == '}') {
        char open = tok == ')' ? '(' : tok == ']' ? '[' : '{';
        /* Pop to the innermost matching opener, so that a stray or missing
         * closer does not leave the stack out of step for good. */
        int i = ps->nbrackets - 1;
        while (i >= 0 && ps->brackets[i].ch != open) i--;
        if (i >= 0) {
            ps->popped = ps->brackets[i];
            ps->nbrackets = i;
            ps->la_popped = 1;
        }
    }
    return tok;
}
