/* collref.h - deterministic test data and a naive reference for the eight
 * collectives. Used by `collc run` and the end-to-end tests to check results
 * bit for bit. Internal (not installed, not part of the ABI).
 *
 * The data make every reduction order give the same bits: sums use small
 * integers, products +-1, 2 and 1/2 patterns (exact in every float type for
 * N <= 64), max/min anything. So a check never depends on the order in
 * which an algorithm reduces. */
#ifndef COLLREF_H
#define COLLREF_H

#include <stddef.h>
#include <coll.h>

/* Blocks of `in` / `out` on rank r (0 where the rank has no such buffer). */
int collref_in_blocks(coll_collective c, int N, int root, int r);
int collref_out_blocks(coll_collective c, int N, int root, int r);
int collref_reducing(coll_collective c);
int collref_rooted(coll_collective c);
/* nccl-tests' bus bandwidth factor (busbw = algbw * factor): 2(N-1)/N for
 * allreduce, (N-1)/N for a collective with an N-block buffer, else 1. */
double collref_bus_factor(coll_collective c, int N);

/* Element i of rank r's input, as a double (exact in every dtype). */
double collref_value(coll_dtype dt, coll_op op, int r, size_t i);
/* Stores v as one element of dtype at p. */
void collref_store(coll_dtype dt, void *p, double v);
/* Fills rank r's input buffer (in_blocks * count elements). */
void collref_fill(coll_collective c, coll_dtype dt, coll_op op, int N, int root, int r,
                  size_t count, void *in);
/* The expected bytes of element e of rank r's output (esz bytes at out). */
void collref_expected(coll_collective c, coll_dtype dt, coll_op op, int N, int root,
                      size_t count, int r, size_t e, void *out);
/* Compares rank r's output with the reference; returns the index of the first
 * wrong element, or (size_t)-1 when all are right. */
size_t collref_check(coll_collective c, coll_dtype dt, coll_op op, int N, int root,
                     size_t count, int r, const void *out);
/* The same check in two halves, for a caller that checks many ranks: the
 * expected output of rank r, whole (out_blocks * count elements), and the
 * index of the first element where out differs from it ((size_t)-1: none).
 * Where collref_output_shared(c), one expected output serves every rank
 * that has an output. */
int collref_output_shared(coll_collective c);
void collref_expect(coll_collective c, coll_dtype dt, coll_op op, int N, int root, size_t count,
                    int r, void *out);
size_t collref_compare(coll_dtype dt, const void *want, const void *out, size_t n);

#endif
