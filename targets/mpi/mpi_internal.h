/* mpi_internal.h - what the pieces of the MPI target share (not installed):
 * the transport (mpi_transport.c), the MPI-signature entry points
 * (collmpi.c) and the PMPI interposition library (pmpi.c). */
#ifndef COLLMPI_INTERNAL_H
#define COLLMPI_INTERNAL_H

#include <stddef.h>
#include "collmpi.h"
#include "collrt_internal.h"

/* ---- transport (mpi_transport.c) ---- */

/* Reductions of the next call on `c` go through MPI_Reduce_local(op, dt)
 * instead of the runtime's kernels (user ops, MPI_LAND ...); the call's
 * coll dtype is then a placeholder of the same element size. */
void collmpi_comm_set_user_op(coll_comm *c, int on, MPI_Op op, MPI_Datatype dt);
/* The MPI error code behind the last COLL_ERR_TRANSPORT on `c`. */
int collmpi_comm_mpi_error(const coll_comm *c);
/* collmpi_invoke's agreement with coll_begin: while `on`, a blocking call
 * on c that replays its flat plan (docs/runtime.md) ends inside coll_begin,
 * which returns COLLMPI_REPLAYED (no status of coll.h) so that the
 * program returns at once without running its calls;
 * collmpi_replayed_status(c) is then the call's status. */
#define COLLMPI_REPLAYED (-1)
void collmpi_comm_end_early(coll_comm *c, int on);
int collmpi_replayed_status(const coll_comm *c);
/* MPI error code of the last failed coll_comm_from_mpi (this thread). */
int collmpi_from_mpi_error(void);
/* The coll_comm cached on `comm` by an earlier coll_comm_from_mpi, or NULL
 * (makes none: no communication). */
coll_comm *collmpi_comm_cached(MPI_Comm comm);
/* Changes whenever a cached coll_comm is freed: what is remembered about a
 * communicator handle (collmpi_comm_cached's last lookup, collmpi.c's
 * decisions) holds only while it stays the same. */
unsigned long collmpi_comm_epoch(void);
/* The calling thread's communicator of size 1 without MPI (messages to self
 * go through a local queue): calls on any MPI communicator of size 1 run on
 * it, so those never get a duplicate, an attribute or a step counter. NULL
 * when out of memory. */
coll_comm *collmpi_solo_comm(void);
/* The calling thread's probe: a communicator of nranks ranks without MPI on
 * which a compiled program called with count 0 (NULL buffers) returns
 * COLL_ERR_NOT_APPLICABLE exactly when one of its `require`s fails for
 * (nranks, root), and COLL_OK otherwise, touching nothing else.
 * collmpi_probed() then gives the program's coll_alg_info. */
coll_comm *collmpi_probe_comm(int nranks, int rank);
const coll_alg_info *collmpi_probed(const coll_comm *c);
/* The plan of `fn` (rooted or not) for rank `rank` of nranks with root,
 * count 1 of dtype, recorded on the probe (coll_start's recording; nothing
 * moves): COLL_OK with *out (free out->ops), or COLL_ERR_NOT_APPLICABLE. */
int collmpi_record_rank(int nranks, int rank, void (*fn)(void), int rooted, coll_dtype dtype,
                        coll_op op, int root, collrt_recording *out);

/* ---- argument mapping (collmpi.c) ---- */

/* One MPI collective call, as the application made it. For the reducing
 * collectives and bcast, count/type are in sendcount/sendtype.
 * A v-form (MPI_Allgatherv, MPI_Gatherv, MPI_Scatterv, MPI_Alltoallv,
 * MPI_Reduce_scatter) whose blocks all have one size is this regular call
 * with `vform` set and that size as the counts; the side with N blocks
 * (a scatter's or alltoall's input, a gather's, allgather's or alltoall's
 * output) may then lie at displacements sdispls / rdispls (in extents of
 * its datatype, as MPI counts them; NULL: block r at r * count).
 * A v-form whose blocks differ in size (`vpad`, see collmpi_vpad) runs
 * with per-block counts (collmpi_call.vblocks) or as the regular call on
 * blocks padded to the largest. */
typedef struct collmpi_vpad collmpi_vpad;
typedef struct collmpi_args {
    coll_collective coll;
    const void *sendbuf;
    void *recvbuf;
    int sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
    int vform;               /* called as the v-form (COLLMPI_DEBUG names it) */
    const int *sdispls, *rdispls;
    const collmpi_vpad *vpad;     /* NULL: the blocks have one size */
} collmpi_args;

/* A v-form whose blocks differ (or, `deferred`, may differ). Run per
 * block, the algorithm moves each block at its own size (`bbytes`); run
 * padded, it moves N blocks of `pad`
 * bytes each (the largest block of the call, the same on every rank);
 * block r holds counts[r] elements of the side's datatype, at displs[r]
 * of the application's buffer, followed by zero bytes. The N-block sides
 * are sdispls/scounts and rdispls/rcounts (in place, the input is in the
 * receive buffer with rcounts); a side of one block (an allgather's,
 * gather's input, a scatter's output) is the call's own sendcount or
 * recvcount. MPI_Reduce_scatter's input has its N blocks (rcounts) side by
 * side; its output is this rank's block. collmpi_decide takes `pad` as the
 * block's bytes (the call's counts of the N-block sides are not read) and
 * `total` as the call's size. */
struct collmpi_vpad {
    size_t pad;              /* bytes of a padded block */
    size_t total;            /* bytes of the blocks themselves */
    size_t padded;           /* bytes moved padded (N or N * N blocks of `pad`) */
    const int *scounts, *rcounts;
    /* The bytes of every block, the same on every rank (the ranks agreed
     * on them where each knows only some): block r, or for MPI_Alltoallv
     * the block from s to d at s * N + d; nbb of them. An algorithm whose
     * chunks keep to their blocks (collmpi_vblocks) runs on the blocks
     * side by side at these sizes instead of padded. */
    const long long *bbytes;
    size_t nbb;
    /* A nonblocking MPI_Igatherv, MPI_Iscatterv or MPI_Ialltoallv: the
     * ranks learn each other's block sizes in the background (an
     * MPI_Iallgather of `own`, nown entries per rank: the bytes of this
     * rank's block, or its row of the alltoall matrix), so nothing that is
     * decided at the call may depend on them (pad, total: this rank's
     * share; bbytes come with the exchange). */
    int deferred;
    const long long *own;
    size_t nown;
};

/* A buffer of the call that the application describes with a datatype that
 * is not contiguous: the algorithm works on a contiguous copy (`stage`),
 * packed from `user` before the call when it holds input, unpacked into it
 * after a successful call when it receives output. */
typedef struct collmpi_stage {
    void *user;
    MPI_Datatype type;
    int owned;               /* `type` is the call's duplicate of the user's: freed with it */
    size_t count;            /* elements of `type` to pack */
    size_t unpack_count;     /* elements to unpack (0: none) */
    char *stage;             /* NULL: nothing staged */
    int vn;                  /* padded blocks to unpack (0: none; else instead of unpack_count) */
    int *vcounts, *vdispls;  /* ... block r: vcounts[r] elements to vdispls[r] extents of user */
    size_t vstride;          /* ... from r * vstride bytes of the stage (0: the
                                blocks side by side, vsize bytes per element) */
    size_t vsize;
    size_t vcap;             /* the stage's bytes: it is kept for a later call
                                when freed (collmpi.c) */
} collmpi_stage;

/* The same call in the runtime's terms. collmpi_decide fills what every
 * rank of the communicator knows alike; collmpi_prepare the buffers. */
typedef struct collmpi_call {
    /* decided (the same on every rank) */
    size_t count;            /* per block, in `dtype` elements */
    coll_dtype dtype;
    coll_op op;
    int root, nranks, rank;
    size_t total_bytes;      /* nccl-tests "size" of the call (selection) */
    int plain;               /* non-reducing: both datatypes are named types
                                the runtime knows (nothing to stage) */
    int user_op;             /* reduce with MPI_Reduce_local(uop, udt) */
    MPI_Op uop;
    MPI_Datatype udt;
    MPI_Datatype red_type;   /* reductions: the application's datatype */
    int red_contig;          /* ... which is contiguous (no staging) */
    size_t red_per;          /* ... elements of `dtype` per element of it */
    coll_comm *cc;           /* the cached coll_comm of the communicator, or NULL */
    int form;                /* COLLMPI_FORM_*: COLLMPI_DEBUG names it */
    int vform;               /* the v-form of the collective (collmpi_args.vform) */
    /* prepared (this rank's buffers) */
    const void *sendbuf;
    void *recvbuf;
    collmpi_stage in, out;   /* staged input / output (in place: `out` only) */
    int staged;              /* some buffer is staged */
    /* A v-form of uneven blocks run with per-block counts (collmpi_vblocks):
     * the algorithm's map of blocks (valid until the call has started) and
     * the blocks' bytes (a.vpad's); prepare puts the blocks side by side. */
    int vblocks;
    const coll_alg_info *vinfo;  /* the algorithm's (a request needs it) */
    const collrt_vmap *vmap;
    const long long *bbytes;
    size_t nbb;
} collmpi_call;

/* What every rank of the communicator knows alike (MPI requires it): the
 * collective, N, the root, the type signature's byte count of a block, and
 * for reductions the datatype and op. Decides whether a compiled algorithm
 * can serve the call: COLL_OK, or the status of the reason (*why). Never
 * looks at buffers, MPI_IN_PLACE, or a side of the call that MPI leaves
 * insignificant on this rank. No communication, no side effect. */
int collmpi_decide(const collmpi_args *a, collmpi_call *m, const char **why);
/* This rank's buffers for a call that collmpi_decide accepted: resolves
 * MPI_IN_PLACE and stages buffers of non-contiguous datatypes (packing the
 * input), and a v-form's blocks at displacements (the algorithm works on
 * them side by side). A failure is an error of this rank's arguments (an erroneous MPI
 * call), reported as such: never a reason to let the MPI library serve the
 * call, which the other ranks run with collc. */
int collmpi_prepare(const collmpi_args *a, collmpi_call *m, const char **why);
/* Unpacks the staged output after a successful call (status COLL_OK) and
 * frees the staging; returns the status, or the error of unpacking. */
int collmpi_unstage(collmpi_call *m, int status, int *mpi_err);
/* Whether the algorithm `fn` applies to the decided call: a probe run
 * (collmpi_probe_comm). COLL_OK, COLL_ERR_NOT_APPLICABLE, or another status
 * of the program; *info gets its coll_alg_info (NULL if unknown). */
int collmpi_applies(coll_collective coll, const collmpi_call *m, void (*fn)(void),
                    const coll_alg_info **info);
/* Whether `fn` serves m's v-form of uneven blocks with per-block counts
 * (collrt_vmap_build over all ranks' plans, kept per thread for the next
 * calls): COLL_OK with m->vblocks and m->vmap set, or
 * COLL_ERR_NOT_APPLICABLE with *why. The same on every rank. */
int collmpi_vblocks(coll_collective coll, void (*fn)(void), collmpi_call *m, const char **why);
/* Shared by collmpi.c and collmpi_vforms.c (the v-forms' preparation). */
/* 1 if `dt` describes contiguous bytes per element, in order, with extent
 * == size (so count elements are count * size contiguous bytes). */
int collmpi_contiguous_type(MPI_Datatype dt, int depth);
/* The runtime's dtype of a named type its kernels reduce: 1 and *out. */
int collmpi_named_dtype(MPI_Datatype dt, coll_dtype *out);
/* Byte size of `count` elements of `dt`; -1 if it cannot be known. */
long long collmpi_type_bytes(int count, MPI_Datatype dt);
int collmpi_is_root_coll(coll_collective c);
/* Packs (unpack = 0) `count` elements of `dt` at `user` into the
 * contiguous `buf`, or unpacks them back. */
int collmpi_pack_all(void *user, MPI_Datatype dt, size_t count, char *buf, int unpack);
/* Opens stage s of `bytes` for the user buffer `user` of type dt. */
int collmpi_stage_open(collmpi_call *m, collmpi_stage *s, void *user, MPI_Datatype dt, size_t bytes,
                       const char *nomem, const char **why);
/* Stages `count` elements of `dt` at `user` into s (copying them in when
 * `pack`); `unpack` elements are copied back by collmpi_unstage. */
int collmpi_stage_buffer(collmpi_call *m, collmpi_stage *s, void *user, MPI_Datatype dt, size_t count,
                         int pack, size_t unpack, const char **why);
/* Whether a side of `count` elements of `dt` has to be staged. */
int collmpi_needs_stage(const collmpi_call *m, MPI_Datatype dt, size_t count);
/* Packs (unpack = 0) the `count` elements of dt at `displ` extents of
 * user into buf, or unpacks them back. */
int collmpi_pack_block(void *user, MPI_Datatype dt, int displ, int count, char *buf, int unpack);
/* collmpi_prepare of a v-form: padded to the largest block
 * (collmpi_vpad), or with per-block counts (m->vblocks). */
int collmpi_prepare_padded(const collmpi_args *a, collmpi_call *m, const char **why);
int collmpi_prepare_blocks(const collmpi_args *a, collmpi_call *m, const char **why);
/* The request of a prepared call (per-block counts included): coll_start
 * (persistent = 0) or coll_init (1) of fn on cc. */
int collmpi_request(coll_comm *cc, const coll_alg_info *info, void (*fn)(void), coll_collective coll,
                    const collmpi_call *m, int persistent, coll_request **req);
/* A deferred request of fn for m (collrt_start_deferred on the call's
 * communicator: its tags taken now), and its launch once m is prepared
 * (the geometry from m->vmap and m->bbytes). */
int collmpi_deferred(coll_collective coll, const collmpi_call *m, MPI_Comm comm, void (*fn)(void),
                     const coll_alg_info *info, coll_request **req, int *mpi_err);
int collmpi_launch(coll_request *q, const collmpi_call *m);
/* Runs the compiled algorithm `fn` (rooted or not per m's collective) on
 * the prepared call: on the solo communicator for N = 1, else on the
 * communicator's coll_comm (made on the first call: collective). Returns a
 * coll_status; *mpi_err gets the MPI code of a transport failure. */
int collmpi_invoke(coll_collective coll, const collmpi_call *m, MPI_Comm comm, void (*fn)(void),
                   int *mpi_err);
/* The nonblocking form of collmpi_invoke: starts `fn` (with its
 * coll_alg_info) on the prepared call and returns its request (coll.h
 * §3); collmpi_unstage once it is done. */
int collmpi_start(coll_collective coll, const collmpi_call *m, MPI_Comm comm, void (*fn)(void),
                  const coll_alg_info *info, coll_request **req, int *mpi_err);
/* Steps 3 and 4 of a call that collmpi_decide and collmpi_applies
 * accepted: collmpi_prepare, collmpi_invoke of `fn`, collmpi_unstage.
 * Returns the coll_status with *why its reason and *mpi_err the MPI code of
 * a transport failure; *staged (if not NULL) tells whether a buffer was
 * packed. */
int collmpi_execute(const collmpi_args *a, collmpi_call *m, void (*fn)(void), int *mpi_err,
                    const char **why, int *staged);
/* The decision of an earlier call with the same arguments (all but the
 * buffers) and the same `tag` on this thread, with the coll_alg_info and
 * `chosen` stored with it, or NULL. collmpi_memo_store keeps a decision
 * that collmpi_decide and collmpi_applies accepted, when its datatypes and
 * op are named ones (handles that are never freed) and the communicator has
 * its coll_comm; collmpi_comm_epoch guards the communicator. The decided
 * part only: collmpi_prepare runs on every call. */
const collmpi_call *collmpi_memo_find(const collmpi_args *a, void (*tag)(void),
                                      const coll_alg_info **info, const void **chosen);
void collmpi_memo_store(const collmpi_args *a, void (*tag)(void), const collmpi_call *m,
                        const coll_alg_info *info, const void *chosen);
/* Why collmpi_applies refused m (status rc), the same on every rank:
 * "does not apply for N = n[, root r] (a `require` fails)" (in buf) or the
 * status's text. */
const char *collmpi_refusal(coll_collective coll, const collmpi_call *m, int rc, char *buf,
                            size_t len);
/* The end of a call of status rc: MPI_SUCCESS, or the MPI code of
 * collmpi_error with the reason "alg: why", logged (COLLMPI_DEBUG; `local`:
 * a fact of this rank only) and passed to the communicator's error handler
 * as an MPI collective does. No formatting on success. */
int collmpi_end(const collmpi_args *a, const collmpi_call *m, int rc, int mpi_err,
                const char *alg, const char *why, int local);
/* coll_status -> MPI error code: for COLL_ERR_TRANSPORT the MPI code
 * itself, else a code of the status's error class (MPI_ERR_OP ...) whose
 * MPI_Error_string is "collc: " + reason (the class itself where the MPI
 * library cannot keep such strings). Records the status and the reason
 * (coll_strerror's text without one) for collmpi_last_status() and
 * collmpi_last_error(). */
int collmpi_error(int status, int mpi_err, const char *reason);
/* "MPI_Allreduce" ... */
const char *collmpi_mpi_name(coll_collective coll);
/* The forms of a collective (collmpi_call.form). */
enum {
    COLLMPI_FORM_BLOCKING = 0,   /* MPI_Allreduce */
    COLLMPI_FORM_NONBLOCKING,    /* MPI_Iallreduce */
    COLLMPI_FORM_PERSISTENT      /* MPI_Allreduce_init */
};
/* The name of the form of m: "MPI_Iallreduce", "MPI_Allreduce_init",
 * "MPI_Iallgatherv", "MPI_Reduce_scatter_init". */
const char *collmpi_form_name(coll_collective coll, const collmpi_call *m);

/* ---- v-forms of the PMPI library (pmpi_v.c) ---- */

/* A v-call as its regular collective: `a`, whose vpad (if set) is &pad. */
typedef struct collmpi_vcall {
    collmpi_args a;
    collmpi_vpad pad;
} collmpi_vcall;
/* How the ranks know a v-call's counts. */
enum {
    COLLMPI_V_LOCAL,         /* every rank knows every count */
    COLLMPI_V_AGREE,         /* the ranks agree on the sizes (one MPI_Allgather) */
    COLLMPI_V_NO_AGREE       /* they would have to, and cannot (a nonblocking call) */
};
/* Each maps the v-call in its form (COLLMPI_FORM_*) to v->a: 1, or 0 for
 * "use the MPI library" with the reason logged (COLLMPI_DEBUG). Collective
 * with COLLMPI_V_AGREE. */
int collmpi_v_allgatherv(collmpi_vcall *v, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int displs[], MPI_Datatype recvtype, MPI_Comm comm, int form);
int collmpi_v_gatherv(collmpi_vcall *v, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm, int form, int agree);
int collmpi_v_scatterv(collmpi_vcall *v, const void *sendbuf, const int sendcounts[],
                       const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, int form, int agree);
int collmpi_v_alltoallv(collmpi_vcall *v, const void *sendbuf, const int sendcounts[],
                        const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, int form, int agree);
int collmpi_v_reduce_scatter(collmpi_vcall *v, const void *sendbuf, void *recvbuf,
                             const int recvcounts[], MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                             int form);
/* A copy of v with its counts (n of each), in one malloc'ed block (NULL:
 * out of memory). */
collmpi_vpad *collmpi_vpad_copy(const collmpi_vpad *v, int n);
/* Once a rule chose `fn` for a (m decided): how a v-form of uneven blocks
 * runs. Per block when the algorithm keeps its chunks to their blocks
 * (collmpi_vblocks: m->vblocks), else padded to the largest when that
 * moves at most COLLMPI_VPAD times the bytes; 1, or 0 with the reason
 * logged (the MPI library serves it). 1 for every other call. */
int collmpi_v_serve(const collmpi_args *a, collmpi_call *m, void (*fn)(void), const char *alg);
/* pmpi.c: whether some rule may serve a's collective (1), or 0 with the
 * reason logged; collmpi_pmpi_library logs why the MPI library serves a
 * and returns 0. */
int collmpi_pmpi_gate(const collmpi_args *a, int form);
int collmpi_pmpi_library(const collmpi_args *a, int form);
/* pmpi.c: the rule that serves a in its form (COLLMPI_FORM_*; NULL: the
 * MPI library, with the reason logged), m decided and *info its algorithm's
 * description; and COLLMPI_DEBUG's line of a call collc serves. */
struct collmpi_rule;
const struct collmpi_rule *collmpi_pmpi_choose(const collmpi_args *a, int form, collmpi_call *m,
                                               const coll_alg_info **info);
void collmpi_pmpi_log_served(const collmpi_args *a, const collmpi_call *m,
                             const struct collmpi_rule *r, int staged);
/* pmpi_requests.c: starts a nonblocking call with a compiled algorithm if
 * a rule serves it (1, *request and *code set), else 0 (the MPI library). */
int collmpi_pmpi_try_start(const collmpi_args *a, MPI_Request *request, int *code);

/* ---- COLLMPI_DEBUG (collmpi.c) ---- */

/* The level of COLLMPI_DEBUG (0: off; 1: decisions on rank 0 of the
 * communicator; 2: on every rank). */
int collmpi_debug(void);
/* Prints "collmpi[rank]: MPI_Xxx (size B, N=n) -> what detail" once per
 * (collective, what, detail), on rank 0 of the communicator (every rank at
 * level 2 or when `local`: a fact of this rank only). */
void collmpi_log(coll_collective coll, const collmpi_call *m, int local, const char *what,
                 const char *detail);

#endif
