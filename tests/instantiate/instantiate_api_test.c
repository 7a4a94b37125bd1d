/* instantiate_api_test.c - the parts of instantiate that the command line
 * does not show (ctest "instantiate.api"; not a lit test: no RUN line):
 * eval_expr's arithmetic (floor division, mathematical modulo, checked
 * errors, silent mode), INST_NOT_APPLICABLE without diagnostics,
 * schedule_describe_transfer/step/steps (one step at a time and all steps
 * from one replay), and -D overrides in Schedule.param_values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front/eval.h"
#include "front/front.h"
#include "schedule/schedule.h"

static int failures;
#define EXPECT(c)                                                                        \
    do {                                                                                 \
        if (!(c)) {                                                                      \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #c);             \
            failures++;                                                                  \
        }                                                                                \
    } while (0)
#define EXPECT_STR(a, b)                                                                 \
    do {                                                                                 \
        const char *a_ = (a), *b_ = (b);                                                 \
        if (!a_ || strcmp(a_, b_) != 0) {                                                \
            fprintf(stderr, "%s:%d: got \"%s\", expected \"%s\"\n", __FILE__, __LINE__,  \
                    a_ ? a_ : "(null)", b_);                                             \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

static const char src[] =
    "algorithm ring : allreduce {\n"
    "    param K = 1;\n"
    "    split N;\n"
    "    step { for r in ranks { copy in[r] -> out[r]; } }\n"
    "    for s in 0 .. N - 1 {\n"
    "        step { for r in ranks { let c = (r - 1 - s) % N; reduce out[r][c] -> out[(r + 1) % N][c]; } }\n"
    "    }\n"
    "    for s in 0 .. N - 1 {\n"
    "        step { for r in ranks { let c = (r - s) % N; copy out[r][c] -> out[(r + 1) % N][c]; } }\n"
    "    }\n"
    "}\n"
    "algorithm pow2 : allgather {\n"
    "    require is_pow2(N), \"power of two\";\n"
    "    step { for r in ranks { copy in[r][0] -> out[r][r]; } }\n"
    "}\n";

static int64_t ev(Arena *a, BinaryOp op, int64_t x, int64_t y, int *status) {
    Expr *e = ast_binary(a, span_none(), op, ast_int(a, span_none(), x), ast_int(a, span_none(), y));
    int64_t v = 0;
    *status = eval_expr(e, NULL, NULL, &v);   /* dx NULL: silent */
    return v;
}

int main(void) {
    Arena arena;
    arena_init(&arena);
    SourceManager sm;
    source_init(&sm);
    DiagEngine *dx = diag_new(&sm, stderr, DIAG_FMT_TEXT);
    Program prog = {0};
    int id = source_add(&sm, "ring.coll", src, sizeof src - 1);
    EXPECT(parse_source(&arena, dx, (uint32_t)id, &prog) == 0);
    EXPECT(sema_check(&arena, dx, &prog) == 0);
    EXPECT(prog.nalgorithms == 2);
    if (failures) return 1;

    /* ---- arithmetic ---- */
    int st;
    EXPECT(ev(&arena, BOP_DIV, -7, 2, &st) == -4 && st == 0);
    EXPECT(ev(&arena, BOP_MOD, -7, 2, &st) == 1 && st == 0);
    EXPECT(ev(&arena, BOP_DIV, 7, -2, &st) == -4 && st == 0);
    EXPECT(ev(&arena, BOP_MOD, 7, -2, &st) == -1 && st == 0);
    EXPECT(ev(&arena, BOP_MOD, -1, 8, &st) == 7 && st == 0);
    EXPECT(ev(&arena, BOP_DIV, -8, 2, &st) == -4 && st == 0);
    EXPECT(ev(&arena, BOP_SHR, -8, 1, &st) == -4 && st == 0);
    EXPECT(ev(&arena, BOP_SHL, -3, 2, &st) == -12 && st == 0);
    ev(&arena, BOP_DIV, 1, 0, &st);
    EXPECT(st == -1);
    ev(&arena, BOP_MOD, 1, 0, &st);
    EXPECT(st == -1);
    ev(&arena, BOP_DIV, INT64_MIN, -1, &st);
    EXPECT(st == -1);
    EXPECT(ev(&arena, BOP_MOD, INT64_MIN, -1, &st) == 0 && st == 0);
    ev(&arena, BOP_SHL, 1, 63, &st);
    EXPECT(st == -1);
    ev(&arena, BOP_SHL, 1LL << 62, 1, &st);
    EXPECT(st == -1);
    ev(&arena, BOP_MUL, INT64_MAX, 2, &st);
    EXPECT(st == -1);
    EXPECT(ev(&arena, BOP_LAND, 0, 5, &st) == 0 && st == 0);
    EXPECT(ev(&arena, BOP_LOR, 0, 5, &st) == 1 && st == 0);

    /* ---- a schedule, with a -D override ---- */
    Algorithm *ring = program_find_algorithm(&prog, "ring");
    Algorithm *pow2 = program_find_algorithm(&prog, "pow2");
    EXPECT(ring && pow2 && !program_find_algorithm(&prog, "nope"));
    EXPECT(ring->nparams == 1 && ring->nbuffers == 2);
    Define d = {"K", 7};
    SchedParams p = {0};
    p.N = 5;
    p.defines = &d;
    p.ndefines = 1;
    Schedule s;
    const Stmt *req = (const Stmt *)&p;
    EXPECT(instantiate(ring, &p, dx, &s, &req) == INST_OK);
    EXPECT(req == NULL);
    EXPECT(s.N == 5 && s.root == -1 && s.split == 5 && s.param_values[0] == 7);
    EXPECT(s.nsteps == 9 && s.nxfers == 5 + 8 * 5);
    EXPECT(schedule_chunks(&s, BUF_OUT, 3) == 5);
    /* transfer 5 is the first reduce: s = 0, r = 0, c = 4 */
    EXPECT(s.xfers[5].op == XFER_REDUCE && s.xfers[5].src.lo == 4 && s.xfers[5].dst.rank == 1);
    EXPECT_STR(schedule_describe_transfer(&s, 5, &arena), "N = 5, K = 7, s = 0, r = 0, c = 4");
    EXPECT_STR(schedule_describe_transfer(&s, 0, &arena), "N = 5, K = 7, r = 0");
    EXPECT_STR(schedule_describe_transfer(&s, s.nxfers - 1, &arena),
               "N = 5, K = 7, s = 3, r = 4, c = 1");
    /* steps: the entry of each step (enclosing loops only) */
    EXPECT_STR(schedule_describe_step(&s, 0, &arena), "N = 5, K = 7");
    EXPECT_STR(schedule_describe_step(&s, 1, &arena), "N = 5, K = 7, s = 0");
    EXPECT_STR(schedule_describe_step(&s, 8, &arena), "N = 5, K = 7, s = 3");
    EXPECT_STR(schedule_describe_step(&s, 4, &arena), "N = 5, K = 7, s = 3");
    EXPECT_STR(schedule_describe_step(&s, 5, &arena), "N = 5, K = 7, s = 0");
    /* all steps from one replay: the same as one at a time */
    const char **all = schedule_describe_steps(&s, &arena);
    for (size_t k = 0; k < s.nsteps; k++)
        EXPECT_STR(all[k], schedule_describe_step(&s, k, &arena));
    EXPECT_STR(all[8], "N = 5, K = 7, s = 3");
    schedule_free(&s);
    EXPECT(s.xfers == NULL && s.nxfers == 0);

    /* a second schedule at the same addresses must not reuse the cache */
    p.N = 3;
    p.ndefines = 0;
    EXPECT(instantiate(ring, &p, dx, &s, NULL) == INST_OK);
    EXPECT(s.param_values[0] == 1);
    EXPECT_STR(schedule_describe_step(&s, 2, &arena), "N = 3, K = 1, s = 1");
    schedule_free(&s);

    /* ---- require: not applicable, nothing reported ---- */
    unsigned errs = diag_error_count(dx);
    p.N = 6;
    EXPECT(instantiate(pow2, &p, dx, &s, &req) == INST_NOT_APPLICABLE);
    EXPECT(req && req->kind == STMT_REQUIRE && strcmp(req->u.require.why, "power of two") == 0);
    EXPECT(s.xfers == NULL && s.nxfers == 0);
    EXPECT(diag_error_count(dx) == errs);
    p.N = 8;
    EXPECT(instantiate(pow2, &p, dx, &s, &req) == INST_OK && req == NULL && s.nxfers == 8);
    schedule_free(&s);

    /* ---- errors are reported, and nothing is returned ---- */
    p.N = 0;
    EXPECT(instantiate(pow2, &p, dx, &s, NULL) == INST_ERROR);
    EXPECT(diag_error_count(dx) == errs + 1);
    schedule_free(&s);   /* harmless on the zeroed *out */

    diag_delete(dx);
    source_free(&sm);
    arena_free(&arena);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    else printf("instantiate.api: ok\n");
    return failures ? 1 : 0;
}
