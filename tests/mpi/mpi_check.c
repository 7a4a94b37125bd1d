/* mpi_check.c - every example compiled with `collc compile --target=mpi`
 * (C path: NAME, LLVM path: llvm_NAME) against the MPI library's own
 * collective on the same random data: several dtypes and ops (predefined,
 * MPI_LAND and a user op through MPI_Reduce_local), uneven counts, in-place,
 * roots 0 and N-1, a derived contiguous type, a split communicator. Each
 * small case runs twice, the checked call on fresh buffers after one on a
 * decoy (it replays the flat plan the decoy recorded). Results
 * are compared byte for byte (float inputs are small integers, so every
 * summation order gives the same bits).
 *
 *   mpirun -n N mpi_check [--quick | --tiny]
 * Exit status 0 when every case matches; not-applicable algorithms (their
 * `require` fails for this N) are counted, and are a failure for N = 2, 4, 8
 * (every example supports powers of two). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <collmpi.h>

#include "mpi_test_util.h"

typedef enum { K_BCAST, K_SCATTER, K_GATHER, K_REDUCE, K_ALLGATHER, K_RS, K_ALLREDUCE, K_ALLTOALL } kind;

typedef struct alg {
    const char *name;
    kind k;
    void (*fn)(void);
} alg;

/* The algorithms of dsl-examples, both paths (mpi_algs.h is generated). */
#define ALG(name, K) COLLMPI_DECLARE_##K(name); COLLMPI_DECLARE_##K(llvm_##name);
#include "mpi_algs.h"
#include "mpi_variants.h" /* some examples again with other parameter values */
#undef ALG

static const alg algs[] = {
#define KIND_BROADCAST K_BCAST
#define KIND_SCATTER K_SCATTER
#define KIND_GATHER K_GATHER
#define KIND_REDUCE K_REDUCE
#define KIND_ALLGATHER K_ALLGATHER
#define KIND_REDUCE_SCATTER K_RS
#define KIND_ALLREDUCE K_ALLREDUCE
#define KIND_ALLTOALL K_ALLTOALL
#define ALG(name, K) {#name, KIND_##K, (void (*)(void))name}, {"llvm_" #name, KIND_##K, (void (*)(void))llvm_##name},
#include "mpi_algs.h"
#include "mpi_variants.h"
#undef ALG
};

/* The algorithms made for one N (mpi_fixed_n.h is generated): not applying
 * at another N is expected of them. */
static const struct {
    const char *name;
    int n;
} fixed_n[] = {
#define FIXED_N(name, n) {#name, n}, {"llvm_" #name, n},
#include "mpi_fixed_n.h"
#undef FIXED_N
    {NULL, 0}};

static int made_for_other_n(const char *name, int n) {
    for (size_t i = 0; fixed_n[i].name; i++)
        if (strcmp(fixed_n[i].name, name) == 0) return fixed_n[i].n != n;
    return 0;
}

typedef int (*fn_bcast)(void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*fn_rooted_gs)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*fn_reduce)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
typedef int (*fn_ag)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
typedef int (*fn_ar)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);

static int is_reducing(kind k) { return k == K_REDUCE || k == K_RS || k == K_ALLREDUCE; }
static int is_rooted(kind k) { return k <= K_REDUCE; }

/* Calls the collective: fn == NULL means the MPI library's own. */
static int call(kind k, void (*fn)(void), const void *sb, void *rb, int count, MPI_Datatype dt,
                MPI_Op op, int root, MPI_Comm comm) {
    switch (k) {
    case K_BCAST: return fn ? ((fn_bcast)fn)(rb, count, dt, root, comm) : MPI_Bcast(rb, count, dt, root, comm);
    case K_SCATTER:
        return fn ? ((fn_rooted_gs)fn)(sb, count, dt, rb, count, dt, root, comm)
                  : MPI_Scatter(sb, count, dt, rb, count, dt, root, comm);
    case K_GATHER:
        return fn ? ((fn_rooted_gs)fn)(sb, count, dt, rb, count, dt, root, comm)
                  : MPI_Gather(sb, count, dt, rb, count, dt, root, comm);
    case K_REDUCE:
        return fn ? ((fn_reduce)fn)(sb, rb, count, dt, op, root, comm)
                  : MPI_Reduce(sb, rb, count, dt, op, root, comm);
    case K_ALLGATHER:
        return fn ? ((fn_ag)fn)(sb, count, dt, rb, count, dt, comm)
                  : MPI_Allgather(sb, count, dt, rb, count, dt, comm);
    case K_ALLTOALL:
        return fn ? ((fn_ag)fn)(sb, count, dt, rb, count, dt, comm)
                  : MPI_Alltoall(sb, count, dt, rb, count, dt, comm);
    case K_RS:
        return fn ? ((fn_ar)fn)(sb, rb, count, dt, op, comm)
                  : MPI_Reduce_scatter_block(sb, rb, count, dt, op, comm);
    case K_ALLREDUCE:
        return fn ? ((fn_ar)fn)(sb, rb, count, dt, op, comm) : MPI_Allreduce(sb, rb, count, dt, op, comm);
    }
    return MPI_ERR_OTHER;
}

/* ---- data ---- */

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

typedef enum { T_F32, T_F64, T_I32, T_I8, T_U64, T_CONTIG3 } tkind;

/* Fills n elements of type t with small values (exact float sums and
 * products); `small` restricts to {1, 2, -1} for products. */
static void fill(void *p, tkind t, size_t n, uint64_t seed, int small) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = mix(seed * 0x9e3779b97f4a7c15ULL + i);
        int v = small ? (int)(r % 3) - 1 : (int)(r % 9) - 4;
        if (small && v == 0) v = 2;
        switch (t) {
        case T_F32: ((float *)p)[i] = (float)v; break;
        case T_F64: ((double *)p)[i] = (double)v; break;
        case T_I32: ((int32_t *)p)[i] = small ? v : (int32_t)(r >> 7); break;
        case T_I8: ((int8_t *)p)[i] = (int8_t)(r >> 11); break;
        /* Below 2^63: MPICH 4.0.2 and Open MPI 4.1.4 (MPI_UNSIGNED_LONG)
         * get MPI_MIN wrong on larger unsigned 64-bit values (docs/mpi.md). */
        case T_U64: ((uint64_t *)p)[i] = small ? (uint64_t)v : r >> 1; break;
        case T_CONTIG3:
            for (int j = 0; j < 3; j++) ((int32_t *)p)[3 * i + j] = (int32_t)mix(r + (uint64_t)j);
            break;
        }
    }
}

static size_t tsize(tkind t) {
    switch (t) {
    case T_F32: return 4;
    case T_F64: return 8;
    case T_I32: return 4;
    case T_I8: return 1;
    case T_U64: return 8;
    case T_CONTIG3: return 12;
    }
    return 0;
}

static MPI_Datatype contig3;
static MPI_Op user_sum, user_noncommute;

static MPI_Datatype mpi_type(tkind t) {
    switch (t) {
    case T_F32: return MPI_FLOAT;
    case T_F64: return MPI_DOUBLE;
    case T_I32: return MPI_INT;
    case T_I8: return MPI_INT8_T;
    case T_U64: return MPI_UINT64_T;
    case T_CONTIG3: return contig3;
    }
    return MPI_DATATYPE_NULL;
}

/* ---- one case ---- */

typedef struct tcase {
    tkind t;
    MPI_Op op;
    int small;     /* values for products */
} tcase;

static int N, me, quick, tiny;
static long ncases, nfail, nskip;

static int run_case(const alg *a, MPI_Comm comm, tcase tc, int count, int in_place, int root,
                    uint64_t seed) {
    int n, r;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &r);
    kind k = a->k;
    size_t es = tsize(tc.t), c = (size_t)count;
    size_t in_elems = (k == K_SCATTER || k == K_RS || k == K_ALLTOALL) ? (size_t)n * c : c;
    size_t out_elems = (k == K_GATHER || k == K_ALLGATHER || k == K_ALLTOALL) ? (size_t)n * c : c;
    if (k == K_RS && in_place) out_elems = (size_t)n * c;
    size_t in_b = in_elems * es + 16, out_b = out_elems * es + 16;
    char *in = malloc(in_b), *o1 = malloc(out_b), *o2 = malloc(out_b), *i2 = malloc(in_b);
    fill(in, tc.t, in_elems, seed * 131 + (uint64_t)r, tc.small);
    memset(o1, 0x5a, out_b);
    MPI_Datatype dt = mpi_type(tc.t);
    const void *sb = in;
    /* In-place layouts (MPI's): the input sits in recvbuf. */
    int ip = in_place && (!is_rooted(k) || r == root || k == K_BCAST);
    if (ip) {
        switch (k) {
        case K_ALLREDUCE:
        case K_REDUCE:
        case K_RS:
        case K_ALLTOALL:
            memcpy(o1, in, in_elems * es);
            sb = MPI_IN_PLACE;
            break;
        case K_ALLGATHER:
            memcpy(o1 + (size_t)r * c * es, in, c * es);
            sb = MPI_IN_PLACE;
            break;
        case K_GATHER:
            memcpy(o1 + (size_t)root * c * es, in, c * es);
            sb = MPI_IN_PLACE;
            break;
        default: break;
        }
    }
    if (k == K_BCAST && r == root) memcpy(o1, in, c * es);
    memcpy(o2, o1, out_b);
    memcpy(i2, in, in_b);
    void *rb1 = o1, *rb2 = o2;
    if (k == K_SCATTER && ip) rb1 = rb2 = MPI_IN_PLACE;
    if (k == K_BCAST) memcpy(o2, o1, out_b);
    /* The reference call is out of place (same result; MPICH 4.0.2 crashes
     * in MPI_Reduce with MPI_IN_PLACE at a root other than 0), except
     * scatter, whose in-place root leaves its own block where it is. */
    const void *sb2 = i2;
    if (ip) memset(o2, 0x5a, out_b);

    if (getenv("MPI_CHECK_TRACE"))
        fprintf(stderr, "[%d] %s type %d count %d in_place %d root %d\n", r, a->name, (int)tc.t, count,
                in_place, root);
    /* A call of the same kind on other buffers first (small counts): the
     * checked call then replays the flat plan that one recorded, and must
     * read and write only its own buffers (the decoy is scribbled over
     * before it and freed after it). */
    /* The decoy's own result (the recording call's) is checked too: kept
     * in d_res, compared with the reference below. */
    char *d_in = NULL, *d_out = NULL, *d_res = NULL;
    int d_rc = MPI_SUCCESS;
    if (count <= 1001) {
        d_in = malloc(in_b), d_out = malloc(out_b), d_res = malloc(out_b);
        memcpy(d_in, in, in_b);
        memcpy(d_out, o1, out_b);
        d_rc = call(k, a->fn, sb == MPI_IN_PLACE ? sb : d_in, rb1 == MPI_IN_PLACE ? rb1 : d_out, count,
                    dt, tc.op, root, comm);
        memcpy(d_res, d_out, out_b);
        memset(d_in, 0xa5, in_b);
        memset(d_out, 0xa5, out_b);
    }
    int rc = call(k, a->fn, sb, rb1, count, dt, tc.op, root, comm);
    int status = collmpi_last_status();
    free(d_in), free(d_out);
    int rc2 = MPI_SUCCESS;
    int bad = 0;
    if (err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION && status == COLL_ERR_NOT_APPLICABLE) {
        nskip++;
        free(in), free(o1), free(o2), free(i2), free(d_res);
        return 1;    /* same answer on every rank: skip the algorithm */
    }
    rc2 = call(k, NULL, sb2, rb2, count, dt, tc.op, root, comm);
    size_t cmp = out_b;
    if (k == K_RS && in_place) cmp = c * es;   /* the rest is undefined */
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS) {
        bad = 1;
    } else if (memcmp(o1, o2, cmp) != 0) {
        bad = 2;
    } else if (k == K_SCATTER && ip && memcmp(in, i2, in_elems * es) != 0) {
        bad = 3;
    } else if (d_res && (d_rc != rc || (rb1 != MPI_IN_PLACE && memcmp(d_res, o2, cmp) != 0))) {
        bad = 4;   /* the recording call (the decoy) went wrong */
    }
    ncases++;
    if (bad) {
        nfail++;
        if (nfail < 20) {
            size_t first = 0;
            while (bad == 2 && first < cmp && o1[first] == o2[first]) first++;
            fprintf(stderr,
                    "FAIL N=%d rank %d %s: type %d op %s count %d in_place %d root %d: rc %d/%d "
                    "(coll %d) %s at byte %zu\n",
                    n, r, a->name, (int)tc.t, tc.op == MPI_SUM ? "sum" : "other", count, in_place, root,
                    rc, rc2, status, bad == 1 ? "error" : bad == 4 ? "recording call mismatch" : "mismatch",
                    first);
        }
    }
    free(in), free(o1), free(o2), free(i2), free(d_res);
    return 0;
}

static int counts_for(int *cs, int big) {
    int n = 0;
    if (tiny) {     /* MPICH oversubscribed: a few cases per algorithm */
        cs[n++] = 1;
        cs[n++] = N + 1;
        cs[n++] = 1001;
        return n;
    }
    cs[n++] = 0;
    cs[n++] = 1;
    if (N > 1) cs[n++] = N - 1;
    cs[n++] = N + 1;
    cs[n++] = 1001;
    if (!quick) cs[n++] = big;
    return n;
}

static void run_alg(const alg *a, MPI_Comm comm, int idx) {
    int cs[8];
    int nc;
    int roots[2] = {0, N - 1};
    int nroots = is_rooted(a->k) && N > 1 ? 2 : 1;
    uint64_t seed = (uint64_t)idx * 7919;
    if (is_reducing(a->k)) {
        tcase tcs[] = {
            {T_F32, MPI_SUM, 0}, {T_F64, MPI_SUM, 0}, {T_I32, MPI_SUM, 0}, {T_I8, MPI_SUM, 0},
            {T_F32, MPI_MAX, 0}, {T_U64, MPI_MIN, 0}, {T_F64, MPI_PROD, 1}, {T_I32, MPI_BXOR, 0},
            {T_I32, MPI_LAND, 0}, {T_I32, user_sum, 0},
        };
        int ntc = tiny ? 3 : (int)(sizeof tcs / sizeof *tcs);
        if (tiny) tcs[1] = tcs[8], tcs[2] = tcs[9];   /* f32 sum, MPI_LAND, user op */
        for (int t = 0; t < ntc; t++) {
            nc = counts_for(cs, t == 0 ? 300001 : 20011);
            for (int ci = 0; ci < nc; ci++)
                for (int ip = 0; ip < 2; ip++)
                    for (int ri = 0; ri < nroots; ri++) {
                        if ((t > 1 && ci < nc - 2 && ip) || (ri && ci != nc - 1 && ci != 2)) continue;
                        if (run_case(a, comm, tcs[t], cs[ci], ip, roots[ri], seed++)) return;
                    }
        }
        /* A non-commutative op is refused (MPI_ERR_OP), on every rank. */
        int x = 1, y = 0;
        int rc = call(a->k, a->fn, &x, a->k == K_RS ? (void *)&y : &y, 1, MPI_INT, user_noncommute, 0, comm);
        if (a->k == K_RS) {
            int *xs = calloc((size_t)N, sizeof *xs);
            rc = call(a->k, a->fn, xs, &y, 1, MPI_INT, user_noncommute, 0, comm);
            free(xs);
        }
        ncases++;
        if (err_class(rc) != MPI_ERR_OP && !(err_class(rc) == MPI_ERR_UNSUPPORTED_OPERATION)) {
            nfail++;
            fprintf(stderr, "FAIL %s: non-commutative op gave %d, expected MPI_ERR_OP\n", a->name, rc);
        }
    } else {
        tcase tcs[] = {{T_I32, MPI_OP_NULL, 0}, {T_I8, MPI_OP_NULL, 0}, {T_F64, MPI_OP_NULL, 0},
                       {T_CONTIG3, MPI_OP_NULL, 0}};
        int ntc = tiny ? 2 : (int)(sizeof tcs / sizeof *tcs);
        if (tiny) tcs[1] = tcs[3];    /* int, the contiguous derived type */
        for (int t = 0; t < ntc; t++) {
            nc = counts_for(cs, a->k == K_BCAST || a->k == K_SCATTER ? 200003 : 70001);
            for (int ci = 0; ci < nc; ci++)
                for (int ip = 0; ip < 2; ip++)
                    for (int ri = 0; ri < nroots; ri++) {
                        if (ip && a->k == K_BCAST) continue;
                        if ((t > 0 && ci < nc - 2 && ip) || (ri && ci != nc - 1 && ci != 2)) continue;
                        if (run_case(a, comm, tcs[t], cs[ci], ip, roots[ri], seed++)) return;
                    }
        }
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--tiny") == 0) quick = tiny = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Type_contiguous(3, MPI_INT, &contig3);
    MPI_Type_commit(&contig3);
    MPI_Op_create(isum, 1, &user_sum);
    MPI_Op_create(first_wins, 0, &user_noncommute);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    int nalgs = (int)(sizeof algs / sizeof *algs);
    long skipped_pow2 = 0;
    for (int i = 0; i < nalgs; i++) {
        long before = nskip;
        double t0 = MPI_Wtime();
        run_alg(&algs[i], comm, i);
        if (me == 0 && getenv("MPI_CHECK_VERBOSE"))
            fprintf(stderr, "%s: %.3f s\n", algs[i].name, MPI_Wtime() - t0);
        if (nskip != before && N >= 2 && (N & (N - 1)) == 0 && !made_for_other_n(algs[i].name, N)) {
            skipped_pow2++;
            if (me == 0) fprintf(stderr, "FAIL %s: not applicable at N=%d\n", algs[i].name, N);
        }
        if (nskip != before && me == 0 && getenv("MPI_CHECK_VERBOSE"))
            fprintf(stderr, "%s: not applicable at N=%d\n", algs[i].name, N);
    }
    /* A second communicator (halves of the world): its own cached state. */
    if (N >= 2) {
        MPI_Comm half;
        MPI_Comm_split(comm, me % 2, me, &half);
        MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
        int saveN = N;
        MPI_Comm_size(half, &N);
        for (int i = 0; i < nalgs; i++)
            if (algs[i].k == K_ALLREDUCE || algs[i].k == K_ALLGATHER) {
                tcase tc = {T_I32, algs[i].k == K_ALLREDUCE ? MPI_SUM : MPI_OP_NULL, 0};
                run_case(&algs[i], half, tc, 4099, 0, 0, 99 + (uint64_t)i);
            }
        N = saveN;
        MPI_Comm_free(&half);
    }
    long tot[3] = {ncases, nfail, nskip}, sum[3];
    MPI_Reduce(tot, sum, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long sp = skipped_pow2;
    if (me == 0) {
        printf("mpi_check: N=%d: %ld cases (%d algorithm objects), %ld failures, %ld not applicable\n", N,
               sum[0] / N, nalgs, sum[1], sum[2] / N);
    }
    int fail = (nfail > 0 || sp > 0);
    int anyfail = 0;
    MPI_Allreduce(&fail, &anyfail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&comm);
    MPI_Op_free(&user_sum);
    MPI_Op_free(&user_noncommute);
    MPI_Type_free(&contig3);
    MPI_Finalize();
    return anyfail ? 1 : 0;
}
