/* mpi_test_util.h - helpers the MPI test programs share (mpi_check.c,
 * direct_check.c, consist_app.c): test values, a strided datatype, user ops
 * and the class of a returned error code. Static inline, so that a program
 * that uses some of them compiles without unused-function warnings. */
#ifndef COLLC_TESTS_MPI_TEST_UTIL_H
#define COLLC_TESTS_MPI_TEST_UTIL_H

#include <mpi.h>
#include <string.h>

/* Values that every summation order adds exactly. */
static inline double val(int rank, long i) { return (double)((rank * 7 + i * 13) % 101 - 50); }

/* Every second double, resized so that element k of a sequence is double
 * 2k: a strided view of plain doubles. */
static inline MPI_Datatype strided(void) {
    MPI_Datatype v, r;
    MPI_Type_vector(1, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(double), &r);
    MPI_Type_commit(&r);
    MPI_Type_free(&v);
    return r;
}

/* The class of an MPI error code (the library returns codes whose
 * MPI_Error_string gives the reason). */
static inline int err_class(int rc) {
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls;
}

/* A commutative user op on int: sum that wraps (as MPI_SUM on int does in
 * practice), without signed overflow. */
static inline void isum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = (int)((unsigned)((int *)inout)[i] + (unsigned)((int *)in)[i]);
}

/* A non-commutative user op on int: the first operand wins. */
static inline void first_wins(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

#endif
