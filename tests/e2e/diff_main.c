/* diff_main.c - differential test: the C backend and the LLVM backend of one
 * algorithm (linked into one program as c_NAME and llvm_NAME) must give the
 * same bytes on the same inputs. Unlike e2e_main.c the data here are random
 * floats, so any difference in reduction order between the backends would
 * show up as different rounding. */
#include <coll_cpu.h>
#include "collref.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(x) #x
#define STR(x) STR2(x)
#define COLL ((coll_collective)E2E_COLL)

#if E2E_ROOTED
#define SIG coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int
#else
#define SIG coll_comm *, const void *, void *, size_t, coll_dtype, coll_op
#endif
int CAT(c_, E2E_ALG)(SIG);
int CAT(llvm_, E2E_ALG)(SIG);

typedef struct Job {
    int N, root, backend;
    size_t count;
    coll_dtype dt;
    coll_op op;
    unsigned char **in, **out;
    int *rc;
} Job;

static int rank_main(coll_comm *comm, void *arg) {
    Job *j = arg;
    int r = coll_comm_rank(comm);
#if E2E_ROOTED
    j->rc[r] = (j->backend ? CAT(llvm_, E2E_ALG) : CAT(c_, E2E_ALG))(comm, j->in[r], j->out[r], j->count,
                                                                     j->dt, j->op, j->root);
#else
    j->rc[r] = (j->backend ? CAT(llvm_, E2E_ALG) : CAT(c_, E2E_ALG))(comm, j->in[r], j->out[r], j->count,
                                                                     j->dt, j->op);
#endif
    return 0;
}

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void) {
    static const int Ns[] = {2, 3, 4, 5, 8};
    static const coll_dtype dts[] = {COLL_F32, COLL_F64, COLL_BF16, COLL_F16, COLL_I32};
    int failed = 0, passed = 0;
    for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
        for (size_t di = 0; di < sizeof dts / sizeof *dts; di++) {
            int N = Ns[ni];
            Job j[2];
            size_t count = 1000 + (size_t)N;
            size_t esz = coll_dtype_size(dts[di]);
            for (int b = 0; b < 2; b++) {
                j[b] = (Job){N, N - 1, b, count, dts[di], COLL_SUM, NULL, NULL, NULL};
                j[b].in = calloc((size_t)N, sizeof(void *));
                j[b].out = calloc((size_t)N, sizeof(void *));
                j[b].rc = calloc((size_t)N, sizeof(int));
            }
            rng = 0x243F6A8885A308D3ull ^ (uint64_t)(N * 131 + (int)di);
            for (int r = 0; r < N; r++) {
                size_t ib = (size_t)collref_in_blocks(COLL, N, N - 1, r) * count * esz;
                size_t ob = (size_t)collref_out_blocks(COLL, N, N - 1, r) * count * esz;
                for (int b = 0; b < 2; b++) {
                    j[b].in[r] = ib ? malloc(ib) : NULL;
                    j[b].out[r] = ob ? calloc(1, ob) : NULL;
                }
                for (size_t i = 0; ib && i < ib / esz; i++) {
                    /* random values with full mantissas: sums round */
                    double v = (double)(int64_t)(next() % 2000001 - 1000000) / 999983.0;
                    collref_store(dts[di], j[0].in[r] + i * esz, dts[di] == COLL_I32 ? v * 1e6 : v);
                }
                if (ib) memcpy(j[1].in[r], j[0].in[r], ib);
            }
            for (int b = 0; b < 2; b++) coll_cpu_run(N, rank_main, &j[b]);
            int bad = 0;
            for (int r = 0; r < N; r++) {
                size_t ob = (size_t)collref_out_blocks(COLL, N, N - 1, r) * count * esz;
                if (j[0].rc[r] != j[1].rc[r] || (ob && memcmp(j[0].out[r], j[1].out[r], ob) != 0)) bad = 1;
            }
            if (bad) {
                printf("DIFF %s N=%d dtype=%s: C and LLVM backends disagree\n", STR(E2E_ALG), N,
                       coll_dtype_name(dts[di]));
                failed++;
            } else {
                passed++;
            }
            for (int b = 0; b < 2; b++) {
                for (int r = 0; r < N; r++) { free(j[b].in[r]); free(j[b].out[r]); }
                free(j[b].in); free(j[b].out); free(j[b].rc);
            }
        }
    printf("%s C vs LLVM: %d passed, %d failed\n", STR(E2E_ALG), passed, failed);
    return failed != 0;
}
