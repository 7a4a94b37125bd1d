/* verify_internal.h - what the explicit checker (verify.c) and the
 * run-length one (verify_runs.c) share, so that they reach the same
 * verdict: the postcondition and the reduction-tree hash of the
 * rank-consistency check.
 *
 * A leaf of a tree hashes its rank only: the trees compared are those of one origin
 * chunk (a value never mixes chunks), so the chunk adds nothing, and
 * leaving it out lets every chunk of a run share one hash. */
#ifndef COLLC_VERIFY_INTERNAL_H
#define COLLC_VERIFY_INTERNAL_H

#include <stdint.h>
#include "analysis/verify.h"

static inline uint64_t vtree_mix64(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static inline uint64_t vtree_leaf(int64_t rank) {
    return vtree_mix64(((uint64_t)rank << 32) ^ 0x5851f42d4c957f2dull);
}

/* Commutative (operands sorted) but not associative: ((a+b)+c) and
 * (a+(b+c)) get different hashes, which is exactly "same tree up to
 * commutativity", the condition for bit-identical floating-point sums. */
static inline uint64_t vtree_node(uint64_t a, uint64_t b) {
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    return vtree_mix64(vtree_mix64(lo + 0x9e3779b97f4a7c15ull) ^ (hi * 0xd6e8feb86659fd93ull));
}

/* Expected contents of out[r][c]: origin chunk, and ranks [lo, hi)
 * (docs/verify.md, postcondition). */
typedef struct Expect { int64_t chunk; int32_t lo, hi; } Expect;
Expect verify_expected_out(const Schedule *s, int64_t r, int64_t c);

/* The run-length pass (verify_runs.c): instantiates the algorithm as
 * instantiate_stream does (its diagnostics through dxi, its statuses) and
 * proves the schedule correct in memory proportional to its runs of equal
 * values. INST_OK: proven, *st holds the verdict (errors 0, consistent);
 * INST_STOPPED: it found something, or met what it does not model, or its
 * memory budget: the explicit checker must decide and report. */
InstStatus verify_runs(const Algorithm *alg, const SchedParams *p, DiagEngine *dxi, size_t budget,
                       VerifyStats *st, const Stmt **failed_require);

/* The symmetry pass (verify_orbit.c): proves an AllReduce whose steps
 * are invariant under a group of rank rotations (checked on the program)
 * by simulating rank 0, without making its transfers. INST_OK: proven,
 * *st holds the verdict; INST_STOPPED: anything else (the symmetry does
 * not hold or is not recognised, a finding, an instantiation error, a
 * limit): the other checkers decide and report. Reports nothing. */
InstStatus verify_orbit(const Algorithm *alg, const SchedParams *p, DiagEngine *dxi, size_t budget,
                        VerifyStats *st);

#endif
