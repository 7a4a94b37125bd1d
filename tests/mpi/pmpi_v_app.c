/* pmpi_v_app.c - a plain MPI program (it knows nothing about collc) that
 * calls the v-collectives (MPI_Allgatherv, MPI_Gatherv, MPI_Scatterv,
 * MPI_Alltoallv, MPI_Reduce_scatter) in their blocking, nonblocking (with
 * computation between the start and MPI_Test polling) and persistent forms
 * (Open MPI 4.1: MPIX_*_init; restarted on new data), with blocks of one
 * size side by side, blocks of one size at scattered displacements (gaps,
 * in reverse order; also of a strided datatype), uneven and zero counts,
 * and in place. It checks every
 * result, and that the gaps are left untouched, against values it computes
 * itself and prints one line. Used to test libcollmpi.so under LD_PRELOAD
 * (tests/mpi/pmpi_v_test.sh). */
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
enum { GAP = -7 };   /* what the elements between blocks hold */

static void expect(int ok, const char *what, const char *layout, int form, int count) {
    static const char *const forms[] = {"blocking", "nonblocking", "persistent"};
    checks++;
    if (!ok) {
        errors++;
        if (errors < 10)
            fprintf(stderr, "rank %d: wrong result: %s, %s, %s (count %d)\n", me, what, layout,
                    forms[form], count);
    }
}

/* element i of the block that rank `from` sends to rank `to` in round `round` */
static int val(int from, int to, int i, int round) {
    return (from * 7 + to * 131 + i * 13 + round * 11) % 1000 - 500;
}

static void compute(void) {
    for (int i = 0; i < 5000; i++) sink += i * 0.5;
}

/* The layouts of the N-block side. */
enum { L_PACKED, L_GAPS, L_UNEVEN, L_ZERO, L_COUNT };
static const char *const layout_names[L_COUNT] = {"one size, side by side",
                                                  "one size, gaps, reversed", "uneven with zeros",
                                                  "all zero"};

/* counts[r], displs[r] for block size c; returns the elements the buffer
 * must hold. */
static int layout(int kind, int c, int *counts, int *displs) {
    int total = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = kind == L_ZERO ? 0 : kind == L_UNEVEN ? (r % 3 == 1 ? 0 : c + r) : c;
        int slot = kind == L_GAPS ? N - 1 - r : r;   /* reversed */
        displs[r] = kind == L_GAPS ? slot * (c + 3) + 1 : total;
        total = kind == L_GAPS ? N * (c + 3) + 1 : total + counts[r];
    }
    return total;
}

static int *ints(int n) { return malloc(sizeof(int) * ((size_t)n + 1)); }
static void fill(int *p, int n, int v) {
    for (int i = 0; i < n; i++) p[i] = v;
}

/* Completes q by the form's means (nonblocking: compute and MPI_Test). */
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

/* The elements of an N-block buffer outside every block still hold GAP. */
static int gaps_ok(const int *buf, int total, const int *counts, const int *displs) {
    for (int k = 0; k < total; k++) {
        int inside = 0;
        for (int r = 0; r < N && !inside; r++) inside = k >= displs[r] && k < displs[r] + counts[r];
        if (!inside && buf[k] != GAP) return 0;
    }
    return 1;
}

static void t_allgatherv(int kind, int c, int in_place, int form) {
    int *counts = ints(N), *displs = ints(N);
    int total = layout(kind, c, counts, displs);
    int *s = ints(counts[me]), *r = ints(total);
    MPI_Request q = MPI_REQUEST_NULL;
    int ok = 1;
    const void *sb = in_place ? MPI_IN_PLACE : s;
    for (int round = 0; round < rounds(form); round++) {
        fill(r, total, GAP);
        for (int i = 0; i < counts[me]; i++) {
            s[i] = val(me, 0, i, round);
            if (in_place) r[displs[me] + i] = s[i];
        }
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
        for (int j = 0; j < N && ok; j++)
            for (int i = 0; i < counts[j] && ok; i++) ok = r[displs[j] + i] == val(j, 0, i, round);
        ok = ok && gaps_ok(r, total, counts, displs);
    }
    if (form == 2) MPI_Request_free(&q);
    expect(ok, in_place ? "MPI_Allgatherv in place" : "MPI_Allgatherv", layout_names[kind], form, c);
    free(counts), free(displs), free(s), free(r);
}

/* MPI_Allgatherv into a strided receive type (every second int) at the
 * layout's displacements, which count in its extent (two ints). */
static void t_allgatherv_strided(int kind, int c) {
    MPI_Datatype v, every2;
    MPI_Type_vector(1, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &every2);
    MPI_Type_commit(&every2);
    MPI_Type_free(&v);
    int *counts = ints(N), *displs = ints(N);
    int total = layout(kind, c, counts, displs);
    int *s = ints(counts[me]), *r = ints(2 * total);
    fill(r, 2 * total, GAP);
    for (int i = 0; i < counts[me]; i++) s[i] = val(me, 0, i, 0);
    MPI_Allgatherv(s, counts[me], MPI_INT, r, counts, displs, every2, MPI_COMM_WORLD);
    int ok = 1;
    for (int k = 0; k < 2 * total && ok; k++) {
        int want = GAP;
        for (int j = 0; j < N; j++)
            if (k % 2 == 0 && k / 2 >= displs[j] && k / 2 < displs[j] + counts[j])
                want = val(j, 0, k / 2 - displs[j], 0);
        ok = r[k] == want;
    }
    expect(ok, "MPI_Allgatherv, strided receive type", layout_names[kind], 0, c);
    MPI_Type_free(&every2);
    free(counts), free(displs), free(s), free(r);
}

static void t_gatherv(int kind, int c, int root, int in_place, int form) {
    int *counts = ints(N), *displs = ints(N);
    int total = layout(kind, c, counts, displs);
    int *s = ints(counts[me]), *r = ints(total);
    MPI_Request q = MPI_REQUEST_NULL;
    int ok = 1;
    in_place = in_place && me == root;
    const void *sb = in_place ? MPI_IN_PLACE : s;
    for (int round = 0; round < rounds(form); round++) {
        fill(r, total, GAP);
        for (int i = 0; i < counts[me]; i++) {
            s[i] = val(me, root, i, round);
            if (in_place) r[displs[me] + i] = s[i];
        }
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
        if (me == root) {
            for (int j = 0; j < N && ok; j++)
                for (int i = 0; i < counts[j] && ok; i++)
                    ok = r[displs[j] + i] == val(j, root, i, round);
            ok = ok && gaps_ok(r, total, counts, displs);
        }
    }
    if (form == 2) MPI_Request_free(&q);
    expect(ok, in_place ? "MPI_Gatherv in place" : "MPI_Gatherv", layout_names[kind], form, c);
    free(counts), free(displs), free(s), free(r);
}

static void t_scatterv(int kind, int c, int root, int in_place, int form) {
    int *counts = ints(N), *displs = ints(N);
    int total = layout(kind, c, counts, displs);
    int *s = ints(total), *r = ints(counts[me]);
    MPI_Request q = MPI_REQUEST_NULL;
    int ok = 1;
    in_place = in_place && me == root;
    void *rb = in_place ? MPI_IN_PLACE : r;
    for (int round = 0; round < rounds(form); round++) {
        fill(s, total, GAP);
        fill(r, counts[me], GAP);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < counts[j]; i++) s[displs[j] + i] = val(root, j, i, round);
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
        const int *got = in_place ? s + displs[me] : r;
        for (int i = 0; i < counts[me] && ok; i++) ok = got[i] == val(root, me, i, round);
        if (me == root) ok = ok && gaps_ok(s, total, counts, displs);
    }
    if (form == 2) MPI_Request_free(&q);
    expect(ok, in_place ? "MPI_Scatterv in place" : "MPI_Scatterv", layout_names[kind], form, c);
    free(counts), free(displs), free(s), free(r);
}

static void t_alltoallv(int kind, int c, int in_place, int form) {
    /* The receive side has the layout's blocks (block j from rank j:
     * counts[j] elements), the same on every rank; so rank j sends
     * counts[j] elements to everyone, at displacements of its own (gaps of
     * another width, reversed, in L_GAPS). In place, recvcounts describe
     * both sides: only the layouts of one size run in place. */
    int *counts = ints(N), *displs = ints(N), *scounts = ints(N), *sdispls = ints(N);
    int total = layout(kind, c, counts, displs);
    int stotal = 0;
    for (int to = 0; to < N; to++) {
        scounts[to] = counts[me];
        int slot = kind == L_GAPS ? N - 1 - to : to;
        sdispls[to] = kind == L_GAPS ? slot * (counts[me] + 2) + 2 : stotal;
        stotal = kind == L_GAPS ? N * (counts[me] + 2) + 2 : stotal + scounts[to];
    }
    int *s = ints(stotal), *r = ints(total);
    MPI_Request q = MPI_REQUEST_NULL;
    int ok = 1;
    const void *sb = in_place ? MPI_IN_PLACE : s;
    for (int round = 0; round < rounds(form); round++) {
        fill(s, stotal, GAP);
        fill(r, total, GAP);
        for (int to = 0; to < N; to++)
            for (int i = 0; i < scounts[to]; i++) s[sdispls[to] + i] = val(me, to, i, round);
        if (in_place)   /* the input is in recvbuf */
            for (int j = 0; j < N; j++)
                for (int i = 0; i < counts[j]; i++) r[displs[j] + i] = val(me, j, i, round);
        if (form == 0) {
            MPI_Alltoallv(sb, scounts, sdispls, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
        } else {
            if (form == 1)
                MPI_Ialltoallv(sb, scounts, sdispls, MPI_INT, r, counts, displs, MPI_INT,
                               MPI_COMM_WORLD, &q);
#ifdef PINIT
            else if (round == 0)
                PINIT(Alltoallv)(sb, scounts, sdispls, MPI_INT, r, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD, MPI_INFO_NULL, &q);
            if (form == 2) MPI_Start(&q);
#endif
            complete(&q, form);
        }
        for (int j = 0; j < N && ok; j++)
            for (int i = 0; i < counts[j] && ok; i++) ok = r[displs[j] + i] == val(j, me, i, round);
        ok = ok && gaps_ok(r, total, counts, displs);
    }
    if (form == 2) MPI_Request_free(&q);
    expect(ok, in_place ? "MPI_Alltoallv in place" : "MPI_Alltoallv", layout_names[kind], form, c);
    free(counts), free(displs), free(scounts), free(sdispls), free(s), free(r);
}

static void t_reduce_scatter(int kind, int c, int in_place, int form) {
    int *counts = ints(N), *displs = ints(N);
    layout(kind == L_GAPS ? L_PACKED : kind, c, counts, displs);   /* no displacements */
    int total = 0;
    for (int j = 0; j < N; j++) total += counts[j];
    int *s = ints(total), *r = ints(total);
    MPI_Request q = MPI_REQUEST_NULL;
    int ok = 1;
    const void *sb = in_place ? MPI_IN_PLACE : s;
    for (int round = 0; round < rounds(form); round++) {
        for (int k = 0; k < total; k++) s[k] = val(me, 0, k, round);
        if (in_place) memcpy(r, s, sizeof(int) * (size_t)total);
        else fill(r, total, GAP);
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
        for (int i = 0; i < counts[me] && ok; i++) {
            int want = 0;
            for (int j = 0; j < N; j++) want += val(j, 0, displs[me] + i, round);
            ok = r[i] == want;
        }
    }
    if (form == 2) MPI_Request_free(&q);
    expect(ok, in_place ? "MPI_Reduce_scatter in place" : "MPI_Reduce_scatter",
           layout_names[kind], form, c);
    free(counts), free(displs), free(s), free(r);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const int sizes[] = {3, 2000};
#ifdef PINIT
    const int nforms = 3;
#else
    const int nforms = 2;
#endif
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int kind = 0; kind < L_COUNT; kind++)
            for (int form = 0; form < nforms; form++)
                for (int in_place = 0; in_place < 2; in_place++) {
                    int c = sizes[k];
                    t_allgatherv(kind, c, in_place, form);
                    t_gatherv(kind, c, 0, in_place, form);
                    t_gatherv(kind, c, N - 1, in_place, form);
                    t_scatterv(kind, c, N / 2, in_place, form);
                    if (!in_place || kind != L_UNEVEN) t_alltoallv(kind, c, in_place, form);
                    t_reduce_scatter(kind, c, in_place, form);
                    if (form == 0 && !in_place) t_allgatherv_strided(kind, c);
                }
    int tot[2] = {checks, errors}, all[2];
    MPI_Allreduce(tot, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("pmpi_v_app: N=%d: %d checks, %d wrong\n", N, all[0], all[1]);
    MPI_Finalize();
    return all[1] != 0;
}
