/* pmpi_vpad_app.c - a plain MPI program (it knows nothing about collc) that
 * calls the v-collectives with blocks of different sizes: MPI_Allgatherv,
 * MPI_Gatherv, MPI_Scatterv, MPI_Alltoallv and MPI_Reduce_scatter in their
 * blocking, nonblocking (computation between the start and MPI_Test
 * polling) and persistent forms (restarted on new data), with blocks that
 * differ by one element ("slight") and with a zero block among equal ones
 * ("zero"), at displacements with gaps between blocks in reverse order,
 * and in place. Every result (the whole buffer, gaps included) is compared
 * bit for bit with the MPI library's own: the same call made as PMPI_*
 * on a copy of the inputs. Prints one line. Used to test libcollmpi.so
 * under LD_PRELOAD (tests/mpi/pmpi_vpad_test.sh). */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4
#define PINIT(name) MPI_##name##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PINIT(name) MPIX_##name##_init
#endif

static int N, me, errors, checks;
static volatile double sink;
enum { GAP = -7, FORMS = 3 };
static const char *const forms[FORMS] = {"blocking", "nonblocking", "persistent"};
enum { SLIGHT, ZERO, KINDS };
static const char *const kinds[KINDS] = {"slight", "zero"};

static void expect(const int *got, const int *want, int n, const char *what, int kind, int form,
                   int c, int round) {
    checks++;
    if (memcmp(got, want, sizeof(int) * (size_t)n) != 0) {
        errors++;
        if (errors < 10)
            fprintf(stderr, "rank %d: differs from the MPI library: %s, %s, %s (c %d, round %d)\n",
                    me, what, kinds[kind], forms[form], c, round);
    }
}

/* element i of what rank `from` sends to rank `to` in round `round` */
static int val(int from, int to, int i, int round) {
    return (from * 7 + to * 131 + i * 13 + round * 11) % 1000 - 500;
}

static void compute(void) {
    for (int i = 0; i < 5000; i++) sink += i * 0.5;
}

/* The elements rank `from` sends to rank `to` (alltoallv; symmetric), or
 * rank from's block (to < 0). */
static int count_of(int kind, int c, int from, int to) {
    if (kind == ZERO) return from == 1 || to == 1 ? 0 : c;
    return c + (from + (to < 0 ? 0 : to)) % 2;
}

/* counts[r] = count_of(r, col): rank r's block (col < 0), at
 * displacements with a gap of 2 before each block, in reverse order;
 * returns the elements the buffer holds. */
static int layout(int kind, int c, int col, int *counts, int *displs) {
    int hi = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = count_of(kind, c, r, col);
        if (counts[r] > hi) hi = counts[r];
    }
    for (int r = 0; r < N; r++) displs[r] = (N - 1 - r) * (hi + 2) + 2;
    return N * (hi + 2) + 2;
}

static int *ints(int n) { return malloc(sizeof(int) * ((size_t)n + 1)); }
static void fill(int *p, int n, int v) {
    for (int i = 0; i < n; i++) p[i] = v;
}

static void complete(MPI_Request *q, int form) {
    if (form == 1) {
        int flag = 0;
        while (!flag) {
            compute();
            MPI_Test(q, &flag, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Wait(q, MPI_STATUS_IGNORE);
    }
}

static int rounds(int form) { return form == 2 ? 3 : 1; }

static void t_allgatherv(int kind, int c, int in_place, int form) {
    int *counts = ints(N), *displs = ints(N);
    int total = layout(kind, c, -1, counts, displs);
    int *s = ints(counts[me]), *r = ints(total), *want = ints(total);
    MPI_Request q = MPI_REQUEST_NULL;
    const void *sb = in_place ? MPI_IN_PLACE : s;
    for (int round = 0; round < rounds(form); round++) {
        fill(r, total, GAP);
        for (int i = 0; i < counts[me]; i++) s[i] = r[displs[me] + i] = val(me, 0, i, round);
        memcpy(want, r, sizeof(int) * (size_t)total);
        PMPI_Allgatherv(in_place ? MPI_IN_PLACE : s, counts[me], MPI_INT, want, counts, displs,
                        MPI_INT, MPI_COMM_WORLD);
        if (form == 0) {
            MPI_Allgatherv(sb, counts[me], MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
        } else {
            if (form == 1)
                MPI_Iallgatherv(sb, counts[me], MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD,
                                &q);
#ifdef PINIT
            else if (round == 0)
                PINIT(Allgatherv)(sb, counts[me], MPI_INT, r, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, MPI_INFO_NULL, &q);
            if (form == 2) MPI_Start(&q);
#endif
            complete(&q, form);
        }
        expect(r, want, total, in_place ? "MPI_Allgatherv in place" : "MPI_Allgatherv", kind, form,
               c, round);
    }
    if (form == 2) MPI_Request_free(&q);
    free(counts), free(displs), free(s), free(r), free(want);
}

static void t_gatherv(int kind, int c, int root, int in_place, int form) {
    int *counts = ints(N), *displs = ints(N);
    int total = layout(kind, c, -1, counts, displs);
    int *s = ints(counts[me]), *r = ints(total), *want = ints(total);
    MPI_Request q = MPI_REQUEST_NULL;
    in_place = in_place && me == root;
    const void *sb = in_place ? MPI_IN_PLACE : s;
    for (int round = 0; round < rounds(form); round++) {
        fill(r, total, GAP);
        for (int i = 0; i < counts[me]; i++) s[i] = val(me, root, i, round);
        if (in_place) memcpy(r + displs[me], s, sizeof(int) * (size_t)counts[me]);
        memcpy(want, r, sizeof(int) * (size_t)total);
        PMPI_Gatherv(sb, counts[me], MPI_INT, want, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
        if (form == 0) {
            MPI_Gatherv(sb, counts[me], MPI_INT, r, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
        } else {
            if (form == 1)
                MPI_Igatherv(sb, counts[me], MPI_INT, r, counts, displs, MPI_INT, root,
                             MPI_COMM_WORLD, &q);
#ifdef PINIT
            else if (round == 0)
                PINIT(Gatherv)(sb, counts[me], MPI_INT, r, counts, displs, MPI_INT, root,
                               MPI_COMM_WORLD, MPI_INFO_NULL, &q);
            if (form == 2) MPI_Start(&q);
#endif
            complete(&q, form);
        }
        expect(r, want, total, in_place ? "MPI_Gatherv in place" : "MPI_Gatherv", kind, form, c,
               round);
    }
    if (form == 2) MPI_Request_free(&q);
    free(counts), free(displs), free(s), free(r), free(want);
}

static void t_scatterv(int kind, int c, int root, int in_place, int form) {
    int *counts = ints(N), *displs = ints(N);
    int total = layout(kind, c, -1, counts, displs);
    int *s = ints(total), *r = ints(counts[me]), *want = ints(counts[me]);
    MPI_Request q = MPI_REQUEST_NULL;
    in_place = in_place && me == root;
    void *rb = in_place ? MPI_IN_PLACE : r;
    for (int round = 0; round < rounds(form); round++) {
        fill(s, total, GAP);
        fill(r, counts[me], GAP);
        fill(want, counts[me], GAP);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < counts[j]; i++) s[displs[j] + i] = val(root, j, i, round);
        PMPI_Scatterv(s, counts, displs, MPI_INT, in_place ? MPI_IN_PLACE : want, counts[me],
                      MPI_INT, root, MPI_COMM_WORLD);
        if (form == 0) {
            MPI_Scatterv(s, counts, displs, MPI_INT, rb, counts[me], MPI_INT, root, MPI_COMM_WORLD);
        } else {
            if (form == 1)
                MPI_Iscatterv(s, counts, displs, MPI_INT, rb, counts[me], MPI_INT, root,
                              MPI_COMM_WORLD, &q);
#ifdef PINIT
            else if (round == 0)
                PINIT(Scatterv)(s, counts, displs, MPI_INT, rb, counts[me], MPI_INT, root,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &q);
            if (form == 2) MPI_Start(&q);
#endif
            complete(&q, form);
        }
        expect(r, want, counts[me], in_place ? "MPI_Scatterv in place" : "MPI_Scatterv", kind,
               form, c, round);
    }
    if (form == 2) MPI_Request_free(&q);
    free(counts), free(displs), free(s), free(r), free(want);
}

static void t_alltoallv(int kind, int c, int in_place, int form) {
    /* block from rank j: count_of(j, me) at rdispls; to rank j:
     * count_of(me, j) at sdispls (the same counts: symmetric) */
    int *rcounts = ints(N), *rdispls = ints(N), *scounts = ints(N), *sdispls = ints(N);
    int total = layout(kind, c, me, rcounts, rdispls);
    int stotal = layout(kind, c, me, scounts, sdispls);
    for (int j = 0; j < N; j++) sdispls[j] = 1 + j * (c + 2);   /* in order, a gap of 1 */
    int *s = ints(stotal), *r = ints(total), *want = ints(total);
    MPI_Request q = MPI_REQUEST_NULL;
    const void *sb = in_place ? MPI_IN_PLACE : s;
    for (int round = 0; round < rounds(form); round++) {
        fill(s, stotal, GAP);
        fill(r, total, GAP);
        for (int to = 0; to < N; to++)
            for (int i = 0; i < scounts[to]; i++) s[sdispls[to] + i] = val(me, to, i, round);
        if (in_place)   /* the input is in recvbuf, at its blocks */
            for (int j = 0; j < N; j++)
                for (int i = 0; i < rcounts[j]; i++) r[rdispls[j] + i] = val(me, j, i, round);
        memcpy(want, r, sizeof(int) * (size_t)total);
        PMPI_Alltoallv(sb, scounts, sdispls, MPI_INT, want, rcounts, rdispls, MPI_INT,
                       MPI_COMM_WORLD);
        if (form == 0) {
            MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, r, rcounts, rdispls, MPI_INT,
                          MPI_COMM_WORLD);
        } else {
            if (form == 1)
                MPI_Ialltoallv(sb, scounts, sdispls, MPI_INT, r, rcounts, rdispls, MPI_INT,
                               MPI_COMM_WORLD, &q);
#ifdef PINIT
            else if (round == 0)
                PINIT(Alltoallv)(sb, scounts, sdispls, MPI_INT, r, rcounts, rdispls, MPI_INT,
                                 MPI_COMM_WORLD, MPI_INFO_NULL, &q);
            if (form == 2) MPI_Start(&q);
#endif
            complete(&q, form);
        }
        expect(r, want, total, in_place ? "MPI_Alltoallv in place" : "MPI_Alltoallv", kind, form,
               c, round);
    }
    if (form == 2) MPI_Request_free(&q);
    free(rcounts), free(rdispls), free(scounts), free(sdispls), free(s), free(r), free(want);
}

static void t_reduce_scatter(int kind, int c, int in_place, int form) {
    int *counts = ints(N), *displs = ints(N);
    layout(kind, c, -1, counts, displs);
    int total = 0;
    for (int j = 0; j < N; j++) total += counts[j];
    int *s = ints(total), *r = ints(total), *want = ints(total);
    MPI_Request q = MPI_REQUEST_NULL;
    const void *sb = in_place ? MPI_IN_PLACE : s;
    for (int round = 0; round < rounds(form); round++) {
        for (int k = 0; k < total; k++) s[k] = val(me, 0, k, round);
        if (in_place) memcpy(r, s, sizeof(int) * (size_t)total);
        else fill(r, total, GAP);
        memcpy(want, r, sizeof(int) * (size_t)total);
        PMPI_Reduce_scatter(sb, want, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (form == 0) {
            MPI_Reduce_scatter(sb, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        } else {
            if (form == 1)
                MPI_Ireduce_scatter(sb, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
#ifdef PINIT
            else if (round == 0)
                PINIT(Reduce_scatter)(sb, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &q);
            if (form == 2) MPI_Start(&q);
#endif
            complete(&q, form);
        }
        /* this rank's block; the rest of recvbuf is not the call's */
        expect(r, want, counts[me], in_place ? "MPI_Reduce_scatter in place" : "MPI_Reduce_scatter",
               kind, form, c, round);
        if (!in_place) expect(r + counts[me], want + counts[me], total - counts[me],
                              "MPI_Reduce_scatter, beyond the block", kind, form, c, round);
    }
    if (form == 2) MPI_Request_free(&q);
    free(counts), free(displs), free(s), free(r), free(want);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const int sizes[] = {8, 1000};
#ifdef PINIT
    const int nforms = 3;
#else
    const int nforms = 2;
#endif
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int kind = 0; kind < KINDS; kind++)
            for (int form = 0; form < nforms; form++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    int c = sizes[k];
#if defined(OPEN_MPI) && OPEN_MPI
                    /* Open MPI 4.1's own MPIX_Allgatherv_init and
                     * MPI_Ireduce_scatter (in place) with a zero block
                     * never complete, without libcollmpi.so too: the
                     * reference cannot run */
                    if (kind == ZERO && form > 0) continue;
#endif
                    t_allgatherv(kind, c, in_place, form);
                    t_gatherv(kind, c, 0, in_place, form);
                    t_gatherv(kind, c, N - 1, in_place, form);
                    t_scatterv(kind, c, N / 2, in_place, form);
                    t_alltoallv(kind, c, in_place, form);
                    t_reduce_scatter(kind, c, in_place, form);
                }
    int tot[2] = {checks, errors}, all[2];
    MPI_Allreduce(tot, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("pmpi_vpad_app: N=%d: %d checks, %d differ\n", N, all[0], all[1]);
    MPI_Finalize();
    return all[1] != 0;
}
