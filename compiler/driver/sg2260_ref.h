/* sg2260_ref.h - the naive reference for `collc sim` (sg2260_ref.c), behind
 * plain ints: coll.h and the compiler's AST both name the collectives
 * COLL_*, so no file can include both. dtype is an Sg2260Dtype, op an
 * Sg2260Op, coll a Collective (same order as coll_collective). */
#ifndef COLLC_SG2260_REF_H
#define COLLC_SG2260_REF_H

#include <stddef.h>

/* 1 if the reference has the dtype (not int16, fp20). */
int sg2260_ref_dtype_ok(int dtype);
/* Blocks of `count` elements in rank r's in / out buffer. */
size_t sg2260_ref_in_blocks(int coll, int N, int root, int r);
size_t sg2260_ref_out_blocks(int coll, int N, int root, int r);
/* Rank r's input. */
void sg2260_ref_fill(int coll, int dtype, int op, int N, int root, int r, size_t count, void *in);
/* Element e of rank r's input (for a sampled fill), at out. */
void sg2260_ref_value(int coll, int dtype, int op, int N, int root, int r, size_t count, size_t e, void *out);
/* The expected element e of rank r's output, at out. */
void sg2260_ref_expected(int coll, int dtype, int op, int N, int root, size_t count, int r, size_t e, void *out);
/* The first element of rank r's output that differs from the reference, or
 * (size_t)-1 when all agree. */
size_t sg2260_ref_check(int coll, int dtype, int op, int N, int root, size_t count, int r, const void *out);

#endif
