/* verify_api_test.c - the parts of verify that .coll sources cannot reach
 * (ctest "verify.api"; not a lit test: no RUN line).
 *
 * Schedules built or altered through the API: a transfer into `in` (the
 * front end rejects that in sources) must be reported as write-to-in, a
 * schedule beyond the 32-bit slot state as verify-too-large; silent mode
 * (dx == NULL) must still count; the N and root sets must be as documented. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/verify.h"
#include "front/front.h"

static int failures;
#define EXPECT(c)                                                            \
    do {                                                                     \
        if (!(c)) { fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #c); failures++; } \
    } while (0)

static const char ring_src[] =
    "algorithm ring : allreduce {\n"
    "    split N;\n"
    "    step { for r in ranks { copy in[r] -> out[r]; } }\n"
    "    for s in 0 .. N - 1 {\n"
    "        step { for r in ranks { let c = (r - 1 - s) % N; reduce out[r][c] -> out[(r + 1) % N][c]; } }\n"
    "    }\n"
    "    for s in 0 .. N - 1 {\n"
    "        step { for r in ranks { let c = (r - s) % N; copy out[r][c] -> out[(r + 1) % N][c]; } }\n"
    "    }\n"
    "}\n";

/* Runs verify_schedule with diagnostics captured as text; returns them. */
static char *run(SourceManager *sm, Arena *arena, const Schedule *s, unsigned *errors, VerifyStats *st) {
    FILE *f = tmpfile();
    DiagEngine *dx = diag_new(sm, f, DIAG_FMT_TEXT);
    *errors = verify_schedule(s, dx, arena, 0, st);
    diag_finish(dx);
    diag_delete(dx);
    long n = ftell(f);
    char *text = calloc(1, (size_t)n + 1);
    rewind(f);
    if (fread(text, 1, (size_t)n, f) != (size_t)n) text[0] = 0;
    fclose(f);
    return text;
}

int main(void) {
    Arena arena;
    arena_init(&arena);
    SourceManager sm;
    source_init(&sm);
    DiagEngine *dx = diag_new(&sm, stderr, DIAG_FMT_TEXT);
    Program prog = {0};
    int id = source_add(&sm, "ring.coll", ring_src, sizeof ring_src - 1);
    EXPECT(parse_source(&arena, dx, (uint32_t)id, &prog) == 0);
    EXPECT(sema_check(&arena, dx, &prog) == 0);
    EXPECT(prog.nalgorithms == 1);
    if (failures) return 1;

    SchedParams p = {0};
    p.N = 4;
    Schedule s;
    const Stmt *req = NULL;
    EXPECT(instantiate(prog.algorithms[0], &p, dx, &s, &req) == INST_OK);
    if (failures) return 1;

    /* The unaltered ring verifies and is rank-consistent. */
    unsigned errors;
    VerifyStats st;
    char *text = run(&sm, &arena, &s, &errors, &st);
    EXPECT(errors == 0);
    EXPECT(st.consistent == 1);
    EXPECT(st.slots == 2 * 4 * 4);
    EXPECT(text[0] == 0);
    free(text);

    /* A transfer of the last step redirected into `in`. */
    Transfer *t = &s.xfers[s.nxfers - 1];
    uint16_t saved = t->dst.buffer;
    t->dst.buffer = BUF_IN;
    text = run(&sm, &arena, &s, &errors, &st);
    EXPECT(errors >= 1);
    EXPECT(strstr(text, "error: step 7 writes to read-only in[r0][c1] (N = 4, s = 2, r = 3, c = 1)") != NULL);
    if (failures) fputs(text, stderr);
    EXPECT(strstr(text, "[write-to-in]") != NULL);
    free(text);
    /* Silent mode: nothing reported, still counted, stops at the first. */
    EXPECT(verify_schedule(&s, NULL, &arena, 0, &st) == 1);
    t->dst.buffer = saved;

    /* Slot state is 32-bit: 2^31 input chunks are refused, not allocated. */
    int64_t saved_in = s.chunks_other[BUF_IN], saved_root = s.chunks_at_root[BUF_IN];
    s.chunks_other[BUF_IN] = s.chunks_at_root[BUF_IN] = (int64_t)1 << 29;
    text = run(&sm, &arena, &s, &errors, &st);
    EXPECT(errors == 1);
    EXPECT(strstr(text, "is too large to verify") != NULL);
    EXPECT(strstr(text, "[verify-too-large]") != NULL);
    EXPECT(st.too_large == 1); /* a resource limit, not a wrong schedule */
    free(text);
    s.chunks_other[BUF_IN] = saved_in;
    s.chunks_at_root[BUF_IN] = saved_root;

    /* The documented N and root sets: the quick one (--quick), the default
     * one (the quick one with the multiples of 6, 12 and 24), the params'. */
    int64_t ns[64];
    size_t nn = verify_quick_ns(ns, 32);
    EXPECT(nn == 25 && ns[0] == 1 && ns[16] == 17 && ns[17] == 24 && ns[18] == 31 &&
           ns[20] == 33 && ns[21] == 64 && ns[23] == 256 && ns[24] == 257);
    static const int64_t dflt[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                   18, 24, 30, 31, 32, 33, 36, 42, 48, 60, 64, 72, 96, 128, 256, 257};
    nn = verify_default_ns(ns, 64);
    EXPECT(nn == sizeof dflt / sizeof *dflt && !memcmp(ns, dflt, sizeof dflt));
    EXPECT(verify_param_values(ns, 64) == 7 && ns[0] == 1 && ns[5] == 6 && ns[6] == 8);
    int64_t roots[16];
    EXPECT(verify_roots(5, -1, roots, 16) == 5 && roots[4] == 4);
    EXPECT(verify_roots(64, -1, roots, 16) == 8 && roots[3] == 21 && roots[4] == 31 && roots[7] == 63);
    EXPECT(verify_roots(17, -1, roots, 16) == 8);
    EXPECT(verify_roots(4, 3, roots, 16) == 1 && roots[0] == 3);
    EXPECT(verify_roots(3, 3, roots, 16) == 0);

    schedule_free(&s);
    diag_delete(dx);
    source_free(&sm);
    arena_free(&arena);
    if (failures) return 1;
    puts("verify_api_test: ok");
    return 0;
}
