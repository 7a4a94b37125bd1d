/* verify.h - `collc verify`: symbolic execution of the Schedule IR.
 *
 * Every chunk slot (rank, buffer, chunk) holds a value: undefined, or a set
 * of contributions (origin rank, origin chunk). `in` starts as {(r, c)},
 * everything else undefined; `copy` moves a value, `reduce` unions two. A
 * set is stored as one origin chunk plus a sorted list of disjoint half-open
 * rank intervals (a slot that mixes origin chunks is already an error), and
 * values are immutable and shared, so a copy is O(1) and a reduce is an
 * interval merge. Memory is O(slots + reduces), far below N^3 bits.
 *
 * Checks (stable diagnostic codes, docs/verify.md):
 *   undefined-read, write-to-in, double-count, mixed-chunks, race,
 *   postcondition, rank-consistency (warning), verify-too-large.
 * The `require` outcome of each N is reported in the summary ("skipped"). */
#ifndef COLLC_VERIFY_H
#define COLLC_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "schedule/schedule.h"

/* Default number of errors reported for one failing (N, root) instance. */
#define VERIFY_DEFAULT_MAX_ERRORS 3u

/* What verify_schedule found. */
typedef struct VerifyStats {
    unsigned errors;     /* violations found (execution stops at max_errors) */
    int consistent;      /* 1: every rank holding the same reduced output
                            chunk got it from the same reduction tree (up to
                            commutativity); 0: some did not; -1: not
                            applicable (no reduced chunk is held by two ranks,
                            or the schedule had errors) */
    size_t slots;        /* chunk slots simulated */
    size_t values;       /* contribution-set values created by reduces */
    size_t intervals;    /* rank intervals stored for those values */
    int too_large;       /* 1: a resource limit stopped it (verify-too-large,
                            counted as one error): not known to be wrong */
    int method;          /* the checker that decided (VerifyMethod) */
} VerifyStats;

/* Which checker decided an instance (docs/verify.md, "Scale"). */
typedef enum VerifyMethod {
    VERIFY_BY_EXPLICIT, /* the simulator, one slot per chunk of every rank */
    VERIFY_BY_RUNS,     /* the run-length pass (verify_runs.c) */
    VERIFY_BY_ORBIT,    /* the symmetry pass (verify_orbit.c): one rank */
} VerifyMethod;

/* Verifies one instantiated schedule. Reports at most `max_errors` errors
 * (0 = VERIFY_DEFAULT_MAX_ERRORS) and, when the schedule is correct but
 * ranks disagree on a reduction tree, one "rank-consistency" warning, through
 * dx; with dx == NULL nothing is reported and execution stops at the first
 * error. Notes and counterexample text are allocated in `arena`. Returns the
 * number of errors found (== st->errors). */
unsigned verify_schedule(const Schedule *s, DiagEngine *dx, Arena *arena,
                         unsigned max_errors, VerifyStats *st);

/* Same, with the errors and the rank-consistency warning going to separate
 * engines (either may be NULL): verify_algorithm reports the errors of the
 * first failing instance and the warning of the first inconsistent one. */
unsigned verify_schedule_ex(const Schedule *s, DiagEngine *dx, DiagEngine *dxw, Arena *arena,
                            unsigned max_errors, VerifyStats *st);

/* verify_schedule_ex with a memory budget for the state (max_memory bytes;
 * 0 = verify_default_memory()): beyond it, verify-too-large. */
unsigned verify_schedule_limited(const Schedule *s, DiagEngine *dx, DiagEngine *dxw, Arena *arena,
                                 unsigned max_errors, size_t max_memory, VerifyStats *st);

/* instantiate + verify_schedule_ex of one instance, without keeping the
 * schedule's transfers: they are streamed step by step into the simulator
 * (instantiate_stream), so memory holds the slots and values, not the
 * transfers. Whenever there is something to report (an error, the
 * rank-consistency warning for dxw, a limit), the instance is instantiated
 * and verified again whole, so the diagnostics are exactly those of
 * instantiate (through dxi) and verify_schedule_ex (dx, dxw). Returns
 * instantiate's status; on INST_OK, *st is verify_schedule_ex's. */
InstStatus verify_instance(const Algorithm *alg, const SchedParams *p, DiagEngine *dxi,
                           DiagEngine *dx, DiagEngine *dxw, Arena *arena, unsigned max_errors,
                           VerifyStats *st, const Stmt **failed_require);

/* The default memory budget of one instance's state (the slots, values and
 * intervals; beyond it the instance is verify-too-large): 7/8 of the
 * smaller of the physical memory and the address-space and data limits
 * (ulimit -v, -d). */
size_t verify_default_memory(void);

/* Options of verify_algorithm (the `collc verify` command line). */
typedef struct VerifyOptions {
    const int64_t *ns;        /* rank counts, ascending; NULL = the default set */
    size_t nns;
    int64_t root;             /* >= 0: only this root; -1: every root for
                                 N <= 16, a spread of roots above */
    const Define *defines;    /* -D overrides */
    int ndefines;
    size_t max_transfers;     /* 0 = instantiate's default */
    size_t max_memory;        /* bytes the state of one instance may take;
                                 0 = verify_default_memory() */
    unsigned max_errors;      /* per failing instance; 0 = default */
    /* NULL, or called before each N (done = the N done so far) and once
     * after the last (done == total, N = 0) before the diagnostics are
     * flushed and the summary is written: the driver's progress line. */
    void (*progress)(void *ctx, size_t done, size_t total, int64_t N);
    void *progress_ctx;
    const char *label;        /* the summary's name (a sweep point: "alg [K = 3]");
                                 NULL = the algorithm's name */
    int quick;                /* ns == NULL: the quick N set (verify_quick_ns),
                                 not the default one */
    int skip_inapplicable;    /* a point of the default param sweep: applying
                                 to no N is no error and prints nothing
                                 (returns VERIFY_NOTHING) */
    const int64_t *vcounts;   /* --vcounts: block r holds vcounts[r] elements, for the
                                 one N of ns (NULL: blocks of one size) */
    int show_methods;         /* --methods: the summary says which checker proved
                                 each N (by symmetry, by runs, explicitly) */
    int vpattern;             /* --vcounts zeros / random: VCOUNTS_* (0: none),
                                 the counts of every N made by verify_vcounts */
    uint64_t vseed;           /* its seed (random) */
    int correctness_only;     /* compile, run, sim: no rank-consistency warning
                                 (a property `collc verify` reports, not an
                                 error to stop for) */
} VerifyOptions;

/* --vcounts patterns: the block sizes of N blocks for every N verified.
 * ZEROS: block r holds r % 3 elements (0, 1, 2, 0, ...); RANDOM: each a
 * count in 0..7 drawn from (seed, N, r), so one seed gives one list per N. */
enum { VCOUNTS_ZEROS = 1, VCOUNTS_RANDOM = 2 };
void verify_vcounts(int pattern, uint64_t seed, int64_t N, int64_t *out);

/* The default N set: 1..18, 24, 30..33, 36, 42, 48, 60, 64, 72, 96, 128,
 * 256, 257 (the quick set and multiples of 6, 12 and 24). */
size_t verify_default_ns(int64_t *out, size_t cap);
/* The quick N set (--quick): 1..17, 24, 31..33, 64, 128, 256, 257. */
size_t verify_quick_ns(int64_t *out, size_t cap);
/* The values the default sweep gives each param not set by -D, one param
 * at a time (the others at their defaults): 1..6, 8. */
size_t verify_param_values(int64_t *out, size_t cap);

/* The roots verified for N (root = -1: all for N <= 16, else a spread:
 * 0, 1, 2, N/3, N/2-1, N/2, N-2, N-1). Returns the count (<= cap). */
size_t verify_roots(int64_t N, int64_t root, int64_t *out, size_t cap);

/* Verifies `alg` for every N (and root) of `o`. The first failing instance
 * is reported in full through dx (instantiate errors included); later ones
 * are checked silently so that the summary can list them. Writes one summary
 * line to `summary` (may be NULL):
 *   name: verified for N = 2..16, 32; FAILED for N = 64; skipped N = 3 (why)
 * An algorithm that applies to none of the N (every one skipped) is an
 * error too ("nothing-verified", with the reasons as notes): a check that
 * checked nothing must not pass.
 * An N that a resource limit stops (schedule-too-large, verify-too-large)
 * is neither verified nor failed but "too large": one "too-large" error
 * lists those N and the summary says "too large for N = ...".
 * Returns 0 when no instance failed, none was too large and some N
 * verified; else VERIFY_FAILED (some N failed, or nothing was verified)
 * and/or VERIFY_TOO_LARGE (some N was too large). */
enum {
    VERIFY_FAILED = 1,    /* some instance failed, or nothing verified */
    VERIFY_TOO_LARGE = 2, /* some N was stopped by a resource limit */
    VERIFY_NOTHING = 4,   /* skip_inapplicable: no N applied, nothing printed */
};
int verify_algorithm(const Algorithm *alg, const VerifyOptions *o, DiagEngine *dx,
                     Arena *arena, FILE *summary);

#endif
