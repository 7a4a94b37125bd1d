/* verify_internal.h - what the explicit checker (verify.c), the
 * run-length one (verify_runs.c) and the symmetry one (verify_orbit.c)
 * share, so that they reach the same verdict: the postcondition, the
 * reduction-tree hash of the rank-consistency check, the race rule and
 * the rank sets of a value.
 *
 * A leaf of a tree hashes its rank only: the trees compared are those of one origin
 * chunk (a value never mixes chunks), so the chunk adds nothing, and
 * leaving it out lets every chunk of a run share one hash. */
#ifndef COLLC_VERIFY_INTERNAL_H
#define COLLC_VERIFY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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

/* Grows *p (*cap elements of elem bytes; from `first` when empty, then
 * doubling) to hold need, *bytes counting what the pass holds: -1 when
 * that would pass budget or the system refuses. */
static inline int verify_grow(size_t *bytes, size_t budget, void **p, size_t *cap, size_t need, size_t elem,
                              size_t first) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : first;
    while (c < need) c *= 2;
    if (*bytes + (c - *cap) * elem > budget) return -1;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *bytes += (c - *cap) * elem;
    *p = q;
    *cap = c;
    return 0;
}

/* Ranks [lo, hi): a rank set is a sorted list of them, disjoint and not
 * touching. */
typedef struct RankIvl { int32_t lo, hi; } RankIvl;

/* The union of rank sets x[0 .. nx) and y[0 .. ny) into out (room for
 * nx + ny; out may be x when ny is 0). x may also be merely sorted by lo,
 * its intervals touching: they are merged. The length of the union, or
 * SIZE_MAX when two intervals share a rank (a double count). */
static inline size_t rank_union(const RankIvl *x, size_t nx, const RankIvl *y, size_t ny, RankIvl *out) {
    size_t i = 0, j = 0, n = 0;
    while (i < nx || j < ny) {
        RankIvl v = (j >= ny || (i < nx && x[i].lo < y[j].lo)) ? x[i++] : y[j++];
        if (n && v.lo < out[n - 1].hi) return SIZE_MAX;
        if (n && v.lo == out[n - 1].hi) out[n - 1].hi = v.hi;
        else out[n++] = v;
    }
    return n;
}

/* One access of a step to chunks [key & 0xffffffff, hi) of one place
 * (a buffer of a rank: key >> 32), for the race check. */
typedef struct VAccess {
    uint64_t key;   /* place << 32 | lo */
    int32_t hi;
    int32_t kind;   /* VACC_READ, VACC_REDUCE, VACC_COPY */
} VAccess;
enum { VACC_READ, VACC_REDUCE, VACC_COPY };

/* The simulator's race rule on the accesses acc[0 .. n) of one step
 * (sorted here): a slot written by two accesses unless both reduce, or
 * written by one and read by any (itself included). 1 when there is a
 * race. */
int verify_step_races(VAccess *acc, size_t n);

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
