/* collmpi.c - MPI-signature entry points: maps MPI handles (communicator,
 * datatype, op, MPI_IN_PLACE) to the runtime's and runs a compiled
 * algorithm. Compiled once per MPI library (handle types differ); the
 * forwarders that `collc compile --target=mpi` emits call these.
 *
 * Mapping rules (docs/mpi.md):
 *  - Non-reducing collectives move bytes: any contiguous datatype (named
 *    types without holes, and MPI_Type_contiguous / dup of those) is mapped
 *    to COLL_U8 with count * size bytes; send and receive sides must agree
 *    on the byte count of a block.
 *  - Reducing collectives: named integer and floating types with
 *    MPI_SUM/PROD/MAX/MIN (and BAND/BOR/BXOR on integers) use the runtime's
 *    kernels; other commutative ops (user ops, MPI_LAND ...) on named
 *    contiguous types of 1, 2, 4 or 8 bytes reduce with MPI_Reduce_local.
 *  - Anything else is COLL_ERR_BAD_DTYPE / COLL_ERR_BAD_OP (the PMPI library
 *    falls back to the MPI library's own collective). */
#include <string.h>

#include "mpi_internal.h"

static _Thread_local int last_status = COLL_OK;

int collmpi_last_status(void) { return last_status; }

/* The collective table's MPI columns must be <mpi.h>'s functions, and
 * collmpi.h's COLLMPI_DECLARE_<ID> the same signatures: redeclaring each
 * MPI function both ways does not compile otherwise. */
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) \
    int MPI_##mpi params;                                                 \
    COLLMPI_DECLARE_##id(MPI_##mpi);
#include <coll_collectives.def>
#undef X

const char *collmpi_mpi_name(coll_collective coll) {
    static const char *const names[COLL_COLLECTIVE_COUNT] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) [COLL_##id] = "MPI_" #mpi,
#include <coll_collectives.def>
#undef X
    };
    return (unsigned)coll < COLL_COLLECTIVE_COUNT ? names[coll] : "?";
}

int collmpi_to_mpi_error(int status, int mpi_err) {
    last_status = status;
    switch (status) {
    case COLL_OK: return MPI_SUCCESS;
    case COLL_ERR_NULL_COMM: return MPI_ERR_COMM;
    case COLL_ERR_NULL_BUFFER: return MPI_ERR_BUFFER;
    case COLL_ERR_BAD_DTYPE: return MPI_ERR_TYPE;
    case COLL_ERR_BAD_OP:
    case COLL_ERR_OP_DTYPE: return MPI_ERR_OP;
    case COLL_ERR_BAD_COUNT: return MPI_ERR_COUNT;
    case COLL_ERR_NOT_APPLICABLE: return MPI_ERR_UNSUPPORTED_OPERATION;
    case COLL_ERR_BAD_ROOT: return MPI_ERR_ROOT;
    case COLL_ERR_OVERLAP:
    case COLL_ERR_IN_PLACE: return MPI_ERR_BUFFER;
    case COLL_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case COLL_ERR_TRANSPORT: return mpi_err != MPI_SUCCESS ? mpi_err : MPI_ERR_OTHER;
    case COLL_ERR_INTERNAL: return MPI_ERR_INTERN;
    default: return MPI_ERR_OTHER;
    }
}

/* ---- datatypes ---- */

static int named_dtype(MPI_Datatype dt, coll_dtype *out);

/* 1 if `dt` describes `size` contiguous bytes per element, in order, with
 * extent == size (so count elements are count * size contiguous bytes). */
static int contiguous_type(MPI_Datatype dt, int depth) {
    coll_dtype named;
    if (named_dtype(dt, &named)) return 1; /* the common case, without 4 MPI calls */
    int size;
    MPI_Aint lb, extent, tlb, textent;
    if (dt == MPI_DATATYPE_NULL || depth > 16) return 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS)
        return 0;
    if (size <= 0 || lb != 0 || tlb != 0 || extent != size || textent != size) return 0;
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 0;
    if (comb == MPI_COMBINER_NAMED) return 1;
    if ((comb != MPI_COMBINER_CONTIGUOUS && comb != MPI_COMBINER_DUP) || nd != 1 || ni > 1 ||
        na != 0)
        return 0;
    int ints[1];
    MPI_Aint addrs[1];
    MPI_Datatype old;
    if (PMPI_Type_get_contents(dt, 1, 0, 1, ints, addrs, &old) != MPI_SUCCESS) return 0;
    int ok = contiguous_type(old, depth + 1);
    int oni, ona, ond, ocomb;
    if (PMPI_Type_get_envelope(old, &oni, &ona, &ond, &ocomb) == MPI_SUCCESS &&
        ocomb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&old);
    return ok;
}

/* Named types the runtime's kernels reduce. */
static int named_dtype(MPI_Datatype dt, coll_dtype *out) {
#define MAP(mpi, coll)          \
    if (dt == (mpi)) {          \
        *out = (coll);          \
        return 1;               \
    }
    MAP(MPI_FLOAT, COLL_F32)
    MAP(MPI_DOUBLE, COLL_F64)
    MAP(MPI_INT8_T, COLL_I8)
    MAP(MPI_SIGNED_CHAR, COLL_I8)
    MAP(MPI_UINT8_T, COLL_U8)
    MAP(MPI_UNSIGNED_CHAR, COLL_U8)
    MAP(MPI_BYTE, COLL_U8)
    MAP(MPI_INT32_T, COLL_I32)
    MAP(MPI_UINT32_T, COLL_U32)
    MAP(MPI_INT64_T, COLL_I64)
    MAP(MPI_UINT64_T, COLL_U64)
    MAP(MPI_LONG_LONG, COLL_I64)
    MAP(MPI_UNSIGNED_LONG_LONG, COLL_U64)
    if (sizeof(int) == 4) {
        MAP(MPI_INT, COLL_I32)
        MAP(MPI_UNSIGNED, COLL_U32)
    }
    if (sizeof(long) == 8) {
        MAP(MPI_LONG, COLL_I64)
        MAP(MPI_UNSIGNED_LONG, COLL_U64)
    } else if (sizeof(long) == 4) {
        MAP(MPI_LONG, COLL_I32)
        MAP(MPI_UNSIGNED_LONG, COLL_U32)
    }
#undef MAP
    return 0;
}

static int named_op(MPI_Op op, coll_op *out) {
    if (op == MPI_SUM) *out = COLL_SUM;
    else if (op == MPI_PROD) *out = COLL_PROD;
    else if (op == MPI_MAX) *out = COLL_MAX;
    else if (op == MPI_MIN) *out = COLL_MIN;
    else if (op == MPI_BAND) *out = COLL_BAND;
    else if (op == MPI_BOR) *out = COLL_BOR;
    else if (op == MPI_BXOR) *out = COLL_BXOR;
    else return 0;
    return 1;
}

/* Byte size of `count` elements of a contiguous type; -1 if not. */
static long long block_bytes(int count, MPI_Datatype dt) {
    if (count < 0 || !contiguous_type(dt, 0)) return -1;
    int size;
    PMPI_Type_size(dt, &size);
    return (long long)count * size;
}

static int is_root_coll(coll_collective c) {
    return (unsigned)c < COLL_COLLECTIVE_COUNT && collrt_collectives[c].rooted;
}

int collmpi_map(const collmpi_args *a, collmpi_call *m, const char **why) {
    static const char *dummy;
    if (!why) why = &dummy;
    *why = "";
    memset(m, 0, sizeof *m);
    if (a->comm == MPI_COMM_NULL) {
        *why = "null communicator";
        return COLL_ERR_NULL_COMM;
    }
    /* An intracommunicator collc ran on before: size and rank are cached. */
    if ((m->cc = collmpi_comm_cached(a->comm))) {
        m->nranks = coll_comm_size(m->cc);
        m->rank = coll_comm_rank(m->cc);
    } else {
        int inter = 0;
        if (PMPI_Comm_test_inter(a->comm, &inter) != MPI_SUCCESS || inter) {
            *why = "intercommunicator";
            return COLL_ERR_NULL_COMM;
        }
        PMPI_Comm_size(a->comm, &m->nranks);
        PMPI_Comm_rank(a->comm, &m->rank);
    }
    int N = m->nranks, me = m->rank;
    m->root = a->root;
    if (is_root_coll(a->coll) && (a->root < 0 || a->root >= N)) {
        *why = "bad root";
        return COLL_ERR_BAD_ROOT;
    }
    int is_root = m->rank == a->root;
    const void *sb = a->sendbuf;
    void *rb = a->recvbuf;
    switch (a->coll) {
    case COLL_ALLREDUCE:
    case COLL_REDUCE:
    case COLL_REDUCE_SCATTER: {
        if (a->sendcount < 0) {
            *why = "negative count";
            return COLL_ERR_BAD_COUNT;
        }
        MPI_Datatype dt = a->sendtype;
        coll_op cop;
        int have_op = named_op(a->op, &cop);
        if (have_op && named_dtype(dt, &m->dtype) && coll_op_supported(m->dtype, cop) == COLL_OK) {
            m->op = cop;
        } else {
            /* MPI_Reduce_local on a named contiguous type. */
            int commute = 0, size = 0, ni, na, nd, comb;
            if (dt == MPI_DATATYPE_NULL || PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
                comb != MPI_COMBINER_NAMED || !contiguous_type(dt, 0)) {
                *why = "datatype not supported for reductions";
                return COLL_ERR_BAD_DTYPE;
            }
            if (a->op == MPI_OP_NULL || PMPI_Op_commutative(a->op, &commute) != MPI_SUCCESS) {
                *why = "bad op";
                return COLL_ERR_BAD_OP;
            }
            if (!commute) {
                *why = "non-commutative op";
                return COLL_ERR_BAD_OP;
            }
            PMPI_Type_size(dt, &size);
            /* Placeholder (dtype, op) of the element size; the transport
             * reduces with MPI_Reduce_local instead. */
            if (size == 1) m->dtype = COLL_U8, m->op = COLL_BOR;
            else if (size == 2) m->dtype = COLL_F16, m->op = COLL_SUM;
            else if (size == 4) m->dtype = COLL_U32, m->op = COLL_BOR;
            else if (size == 8) m->dtype = COLL_U64, m->op = COLL_BOR;
            else {
                *why = "element size not 1, 2, 4 or 8 bytes";
                return COLL_ERR_BAD_DTYPE;
            }
            m->user_op = 1;
            m->uop = a->op;
            m->udt = dt;
        }
        m->count = (size_t)a->sendcount;
        size_t esz = coll_dtype_size(m->dtype);
        m->total_bytes = m->count * esz * (a->coll == COLL_REDUCE_SCATTER ? (size_t)N : 1);
        if (a->coll == COLL_REDUCE && !is_root) rb = NULL;   /* insignificant */
        if (sb == MPI_IN_PLACE) {
            if (a->coll == COLL_REDUCE && !is_root) {
                *why = "MPI_IN_PLACE at a non-root";
                return COLL_ERR_IN_PLACE;
            }
            sb = COLL_IN_PLACE;
        }
        break;
    }
    case COLL_BROADCAST: {
        long long b = block_bytes(a->sendcount, a->sendtype);
        if (b < 0) {
            *why = "non-contiguous datatype";
            return COLL_ERR_BAD_DTYPE;
        }
        m->dtype = COLL_U8;
        m->count = (size_t)b;
        m->total_bytes = (size_t)b;
        sb = is_root ? rb : NULL;    /* the root's buffer is in and out */
        break;
    }
    case COLL_ALLGATHER:
    case COLL_ALLTOALL:
    case COLL_GATHER:
    case COLL_SCATTER: {
        /* Which side's count is significant on this rank. */
        int send_sig, recv_sig;
        if (a->coll == COLL_GATHER) {
            send_sig = sb != MPI_IN_PLACE;
            recv_sig = is_root;
        } else if (a->coll == COLL_SCATTER) {
            send_sig = is_root;
            recv_sig = rb != MPI_IN_PLACE;
        } else {
            send_sig = sb != MPI_IN_PLACE;
            recv_sig = 1;
        }
        long long sbytes = -2, rbytes = -2;
        if (send_sig) sbytes = block_bytes(a->sendcount, a->sendtype);
        if (recv_sig) rbytes = block_bytes(a->recvcount, a->recvtype);
        if (sbytes == -1 || rbytes == -1) {
            *why = "non-contiguous datatype";
            return COLL_ERR_BAD_DTYPE;
        }
        if (sbytes >= 0 && rbytes >= 0 && sbytes != rbytes) {
            *why = "send and receive block sizes differ";
            return COLL_ERR_BAD_COUNT;
        }
        long long b = sbytes >= 0 ? sbytes : rbytes;
        if (b < 0) {
            *why = "no significant count";
            return COLL_ERR_BAD_COUNT;
        }
        m->dtype = COLL_U8;
        m->count = (size_t)b;
        m->total_bytes = (size_t)b * (size_t)N;
        if (a->coll == COLL_GATHER && !is_root) rb = NULL;
        if (a->coll == COLL_SCATTER && !is_root) sb = NULL;
        if (sb == MPI_IN_PLACE) sb = COLL_IN_PLACE;
        if (rb == MPI_IN_PLACE) rb = COLL_IN_PLACE;
        break;
    }
    default:
        *why = "unknown collective";
        return COLL_ERR_INTERNAL;
    }
    (void)me;
    m->sendbuf = sb;
    m->recvbuf = rb;
    return COLL_OK;
}

int collmpi_invoke(coll_collective coll, const collmpi_call *m, MPI_Comm comm, void (*fn)(void),
                   int *mpi_err) {
    *mpi_err = MPI_SUCCESS;
    coll_comm *cc = m->cc;
    int rc = cc ? COLL_OK : coll_comm_from_mpi(comm, &cc);
    if (rc != COLL_OK) {
        *mpi_err = collmpi_from_mpi_error();
        return rc;
    }
    collmpi_comm_set_user_op(cc, m->user_op, m->uop, m->udt);
    if (is_root_coll(coll))
        rc = ((collmpi_rooted_fn)fn)(cc, m->sendbuf, m->recvbuf, m->count, m->dtype, m->op, m->root);
    else
        rc = ((collmpi_fn)fn)(cc, m->sendbuf, m->recvbuf, m->count, m->dtype, m->op);
    collmpi_comm_set_user_op(cc, 0, MPI_OP_NULL, MPI_DATATYPE_NULL);
    if (rc == COLL_ERR_TRANSPORT) *mpi_err = collmpi_comm_mpi_error(cc);
    return rc;
}

/* ---- the entry points ---- */

static int run(const collmpi_args *a, void (*fn)(void)) {
    collmpi_call m;
    int mpi_err = MPI_SUCCESS;
    int rc = collmpi_map(a, &m, NULL);
    if (rc == COLL_OK) rc = collmpi_invoke(a->coll, &m, a->comm, fn, &mpi_err);
    int code = collmpi_to_mpi_error(rc, mpi_err);
    /* As an MPI collective: errors go through the communicator's handler. */
    if (code != MPI_SUCCESS && a->comm != MPI_COMM_NULL) PMPI_Comm_call_errhandler(a->comm, code);
    return code;
}

#define FN(f) ((void (*)(void))(f))

int collmpi_bcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                  collmpi_rooted_fn fn) {
    collmpi_args a = {COLL_BROADCAST, buffer, buffer, count, 0, dt, MPI_DATATYPE_NULL,
                      MPI_OP_NULL, root, comm};
    return run(&a, FN(fn));
}

int collmpi_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm, collmpi_rooted_fn fn) {
    collmpi_args a = {COLL_REDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, root, comm};
    return run(&a, FN(fn));
}

int collmpi_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   collmpi_rooted_fn fn) {
    collmpi_args a = {COLL_GATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm};
    return run(&a, FN(fn));
}

int collmpi_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    collmpi_rooted_fn fn) {
    collmpi_args a = {COLL_SCATTER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm};
    return run(&a, FN(fn));
}

int collmpi_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, collmpi_fn fn) {
    collmpi_args a = {COLL_ALLGATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm};
    return run(&a, FN(fn));
}

int collmpi_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm, collmpi_fn fn) {
    collmpi_args a = {COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, 0, dt, MPI_DATATYPE_NULL,
                      op, 0, comm};
    return run(&a, FN(fn));
}

int collmpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm, collmpi_fn fn) {
    collmpi_args a = {COLL_ALLREDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, 0, comm};
    return run(&a, FN(fn));
}

int collmpi_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, collmpi_fn fn) {
    collmpi_args a = {COLL_ALLTOALL, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm};
    return run(&a, FN(fn));
}
