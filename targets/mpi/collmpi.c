/* collmpi.c - MPI-signature entry points: maps MPI handles (communicator,
 * datatype, op, MPI_IN_PLACE) to the runtime's and runs a compiled
 * algorithm. Compiled once per MPI library (handle types differ); the
 * forwarders that `collc compile --target=mpi` emits call these, and the
 * PMPI library (pmpi.c) uses the same steps.
 *
 * A call goes through four steps (docs/mpi.md, "Consistency"):
 *  1. collmpi_decide: from what every rank of the communicator holds alike
 *     (N, the collective, the root, the type signature's bytes per block,
 *     and for reductions the datatype and op): can a compiled algorithm
 *     serve it? No buffer, no MPI_IN_PLACE, no root-only side is looked at,
 *     so all ranks reach the same verdict.
 *  2. collmpi_applies: does the algorithm's `require` hold for (N, root)?
 *     A probe run without communication or any other side effect.
 *  3. collmpi_prepare: this rank's buffers. A buffer whose datatype is not
 *     contiguous is packed into a contiguous staging copy (and unpacked
 *     after), so a strided type at the root and plain doubles elsewhere run
 *     the same algorithm. A failure here is an erroneous argument of this
 *     rank, reported as an error (never "let the MPI library do it": the
 *     other ranks run the algorithm).
 *  4. collmpi_invoke: the algorithm, on the communicator's coll_comm (on a
 *     communicator of size 1, the thread's solo coll_comm without MPI).
 *
 * Mapping rules:
 *  - Non-reducing collectives move bytes: count * type size per block
 *    (COLL_U8).
 *  - Reductions: named integer and floating types with MPI_SUM/PROD/MAX/MIN
 *    (and BAND/BOR/BXOR on integers) use the runtime's kernels; other
 *    commutative ops (user ops, MPI_LAND, MPI_MAXLOC ...) on contiguous
 *    types of 1, 2, 4 or 8 bytes reduce with MPI_Reduce_local. A predefined
 *    op applies element by element, so a derived type made of one named
 *    type reduces as that type (staged when not contiguous). */
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

const char *collmpi_form_name(coll_collective coll, const collmpi_call *m) {
    const char *name = collmpi_mpi_name(coll);
    if (!m || (m->form == COLLMPI_FORM_BLOCKING && !m->vform) || strncmp(name, "MPI_", 4) != 0)
        return name;
    /* the v-form: MPI_Allgather -> MPI_Allgatherv, MPI_Reduce_scatter_block
     * -> MPI_Reduce_scatter */
    char base[48];
    size_t len = strlen(name);
    if (!m->vform) snprintf(base, sizeof base, "%s", name);
    else if (len > 6 && strcmp(name + len - 6, "_block") == 0)
        snprintf(base, sizeof base, "%.*s", (int)(len - 6), name);
    else snprintf(base, sizeof base, "%sv", name);
    static _Thread_local char buf[64];   /* MPI_Allreduce -> MPI_Iallreduce, MPI_Allreduce_init */
    if (m->form == COLLMPI_FORM_PERSISTENT) snprintf(buf, sizeof buf, "%s_init", base);
    else if (m->form == COLLMPI_FORM_NONBLOCKING)
        snprintf(buf, sizeof buf, "MPI_I%c%s", tolower((unsigned char)base[4]), base + 5);
    else snprintf(buf, sizeof buf, "%s", base);
    return buf;
}

/* ---- errors with reasons ---- */

static int error_class(int status) {
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
    case COLL_ERR_INTERNAL: return MPI_ERR_INTERN;
    case COLL_ERR_MISMATCH: return MPI_ERR_TRUNCATE;
    default: return MPI_ERR_OTHER;
    }
}

/* Error codes made with MPI_Add_error_code, one per (class, text): a
 * program (or MPI_ERRORS_ARE_FATAL's message) gets the reason from
 * MPI_Error_string, and MPI_Error_class still gives the class. Bounded:
 * past the table, the class itself. The first code made is checked to
 * read back (MPICH 4.0 gives added codes of predefined classes the text of
 * an internal message): where it does not, codes are the classes and the
 * reason is only collmpi_last_error()'s. */
enum { MAX_REASON_CODES = 64, REASON_LEN = 240 };
static struct {
    int cls, code;
    char text[REASON_LEN];
} reason_codes[MAX_REASON_CODES];
static int nreason_codes;
static int codes_work = -1;     /* -1 not known yet, 0 no, 1 yes */
static pthread_mutex_t reason_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local char last_error[REASON_LEN];

const char *collmpi_last_error(void) { return last_error; }

/* A new code of class cls reading back as text; cls when MPI cannot. */
static int add_code(int cls, const char *text) {
    int code;
    if (PMPI_Add_error_code(cls, &code) != MPI_SUCCESS ||
        PMPI_Add_error_string(code, text) != MPI_SUCCESS)
        return cls;
    if (codes_work < 0) {
        char back[MPI_MAX_ERROR_STRING + 1] = "";
        int len = 0, c2 = -1;
        codes_work = PMPI_Error_class(code, &c2) == MPI_SUCCESS && c2 == cls &&
                     PMPI_Error_string(code, back, &len) == MPI_SUCCESS && strcmp(back, text) == 0;
    }
    return codes_work ? code : cls;
}

static int reason_code(int cls, const char *text) {
    int init = 0, fin = 0;
    if (PMPI_Initialized(&init) != MPI_SUCCESS || !init || PMPI_Finalized(&fin) != MPI_SUCCESS ||
        fin)
        return cls;
    int code = cls;
    pthread_mutex_lock(&reason_lock);
    int i = 0;
    while (i < nreason_codes && (reason_codes[i].cls != cls || strcmp(reason_codes[i].text, text)))
        i++;
    if (i < nreason_codes) {
        code = reason_codes[i].code;
    } else if (codes_work != 0 && nreason_codes < MAX_REASON_CODES) {
        code = add_code(cls, text);
        if (code != cls) {
            reason_codes[nreason_codes].cls = cls;
            reason_codes[nreason_codes].code = code;
            snprintf(reason_codes[nreason_codes].text, REASON_LEN, "%s", text);
            nreason_codes++;
        }
    }
    pthread_mutex_unlock(&reason_lock);
    return code;
}

int collmpi_error(int status, int mpi_err, const char *reason) {
    last_status = status;
    last_error[0] = 0;
    if (status == COLL_OK) return MPI_SUCCESS;
    if (!reason || !*reason) reason = coll_strerror(status);
    /* a reason as long as the buffer loses its end (it is for people) */
    if (snprintf(last_error, sizeof last_error, "collc: %s", reason) >= (int)sizeof last_error)
        last_error[sizeof last_error - 1] = 0;
    if (status == COLL_ERR_TRANSPORT) return mpi_err != MPI_SUCCESS ? mpi_err : MPI_ERR_OTHER;
    return reason_code(error_class(status), last_error);
}

/* ---- COLLMPI_DEBUG ---- */

static int debug_level;
static pthread_once_t debug_once = PTHREAD_ONCE_INIT;

static void read_debug(void) {
    const char *d = getenv("COLLMPI_DEBUG");
    debug_level = d && *d ? atoi(d) : 0;
}

int collmpi_debug(void) {
    pthread_once(&debug_once, read_debug);
    return debug_level;
}

void collmpi_log(coll_collective coll, const collmpi_call *m, int local, const char *what,
                 const char *detail) {
    if (!collmpi_debug()) return;
    if (debug_level < 2 && !local && m->rank != 0) return;
    enum { MAX_SEEN = 256, KEY = 200 };
    static struct {
        coll_collective coll;
        char key[KEY];
    } seen[MAX_SEEN];
    static int nseen;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    char key[KEY];
    snprintf(key, sizeof key, "%d|%s|%s", m->form, what, detail);
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nseen; i++)
        if (seen[i].coll == coll && strcmp(seen[i].key, key) == 0) {
            pthread_mutex_unlock(&lock);
            return;
        }
    if (nseen < MAX_SEEN) {
        seen[nseen].coll = coll;
        memcpy(seen[nseen].key, key, sizeof key);
        nseen++;
    }
    pthread_mutex_unlock(&lock);
    fprintf(stderr, "collmpi[%d]: %s (%zu B, N=%d) -> %s%s%s\n", m->rank, collmpi_form_name(coll, m),
            m->total_bytes, m->nranks, what, *detail ? " " : "", detail);
}

/* ---- datatypes ---- */

/* 1 if `dt` describes `size` contiguous bytes per element, in order, with
 * extent == size (so count elements are count * size contiguous bytes). */
int collmpi_contiguous_type(MPI_Datatype dt, int depth) {
    coll_dtype named;
    if (collmpi_named_dtype(dt, &named)) return 1; /* the common case, without 4 MPI calls */
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
    int ok = collmpi_contiguous_type(old, depth + 1);
    int oni, ona, ond, ocomb;
    if (PMPI_Type_get_envelope(old, &oni, &ona, &ond, &ocomb) == MPI_SUCCESS &&
        ocomb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&old);
    return ok;
}

/* Named types the runtime's kernels reduce. */
int collmpi_named_dtype(MPI_Datatype dt, coll_dtype *out) {
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

/* The predefined ops of collective reductions: element by element on the
 * named types a datatype is made of. */
static int predefined_op(MPI_Op op) {
    coll_op c;
    return named_op(op, &c) || op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR ||
           op == MPI_MAXLOC || op == MPI_MINLOC;
}

static int is_named(MPI_Datatype dt) {
    int ni, na, nd, comb;
    return dt != MPI_DATATYPE_NULL && PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
           comb == MPI_COMBINER_NAMED;
}

/* The one named type `dt` is made of (its type signature is n copies of
 * it), or MPI_DATATYPE_NULL when it mixes types or cannot be decoded. */
static MPI_Datatype base_type(MPI_Datatype dt, int depth) {
    coll_dtype named;
    if (collmpi_named_dtype(dt, &named)) return dt; /* the common case, without an MPI call */
    int ni, na, nd, comb;
    if (dt == MPI_DATATYPE_NULL || depth > 16 ||
        PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    if (comb == MPI_COMBINER_NAMED) return dt;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
    case MPI_COMBINER_RESIZED: break;
    default: return MPI_DATATYPE_NULL;
    }
    if (nd < 1) return MPI_DATATYPE_NULL;
    int *ints = malloc(sizeof *ints * (size_t)(ni ? ni : 1));
    MPI_Aint *addrs = malloc(sizeof *addrs * (size_t)(na ? na : 1));
    MPI_Datatype *types = malloc(sizeof *types * (size_t)nd);
    MPI_Datatype base = MPI_DATATYPE_NULL;
    int ok = ints && addrs && types &&
             PMPI_Type_get_contents(dt, ni, na, nd, ints, addrs, types) == MPI_SUCCESS;
    for (int i = 0; ok && i < nd; i++) {
        /* a struct member of no elements adds nothing to the signature */
        int empty = comb == MPI_COMBINER_STRUCT && ni > i + 1 && ints[i + 1] == 0;
        MPI_Datatype b = empty ? MPI_DATATYPE_NULL : base_type(types[i], depth + 1);
        if (!empty && (b == MPI_DATATYPE_NULL || (base != MPI_DATATYPE_NULL && b != base)))
            ok = 0;
        else if (!empty)
            base = b;
    }
    for (int i = 0; ints && addrs && types && i < nd; i++)
        if (!is_named(types[i])) PMPI_Type_free(&types[i]);
    free(ints);
    free(addrs);
    free(types);
    return ok ? base : MPI_DATATYPE_NULL;
}

/* MPI_Type_size of `dt`; -1 if it cannot be known. Every call's decision
 * asks: the named types the kernels reduce answer without an MPI call. */
static int type_size(MPI_Datatype dt) {
    coll_dtype named;
    if (collmpi_named_dtype(dt, &named)) return (int)coll_dtype_size(named);
    int size;
    if (dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &size) != MPI_SUCCESS || size < 0) return -1;
    return size;
}

/* Byte size of `count` elements of `dt`; -1 if it cannot be known. */
long long collmpi_type_bytes(int count, MPI_Datatype dt) {
    int size = type_size(dt);
    if (count < 0 || size < 0) return -1;
    return (long long)count * size;
}

/* A named type the runtime knows, or no type at all: never staged, and a
 * handle that is never freed. */
static int plain_type(MPI_Datatype dt) {
    coll_dtype named;
    return dt == MPI_DATATYPE_NULL || collmpi_named_dtype(dt, &named);
}

int collmpi_is_root_coll(coll_collective c) {
    return (unsigned)c < COLL_COLLECTIVE_COUNT && collrt_collectives[c].rooted;
}

/* ---- 1. the decision ---- */

/* Reductions: (datatype, op) -> the runtime's (dtype, op), or the
 * MPI_Reduce_local placeholder of the element size. */
static int decide_reduction(const collmpi_args *a, collmpi_call *m, const char **why) {
    MPI_Datatype dt = a->sendtype;
    if (a->sendcount < 0) {
        *why = "negative count";
        return COLL_ERR_BAD_COUNT;
    }
    if (a->op == MPI_OP_NULL) {
        *why = "bad op";
        return COLL_ERR_BAD_OP;
    }
    int size = type_size(dt);
    if (size <= 0) {
        *why = "bad datatype";
        return COLL_ERR_BAD_DTYPE;
    }
    int predefined = predefined_op(a->op);
    /* The element the op applies to: the named type a derived type is made
     * of for predefined ops; the datatype itself for user ops (their
     * function is called with it). */
    MPI_Datatype elem = predefined ? base_type(dt, 0) : dt;
    int esize = type_size(elem);
    if (esize <= 0 || size % esize) {
        *why = "datatype mixes element types";
        return COLL_ERR_BAD_DTYPE;
    }
    m->red_type = dt;
    m->red_contig = collmpi_contiguous_type(dt, 0);
    m->red_per = (size_t)(size / esize);
    if (!predefined && !m->red_contig) {
        /* a staged copy would not have the layout the user function reads */
        *why = "user op on a non-contiguous datatype";
        return COLL_ERR_BAD_DTYPE;
    }
    coll_op cop;
    if (named_op(a->op, &cop) && collmpi_named_dtype(elem, &m->dtype) &&
        coll_op_supported(m->dtype, cop) == COLL_OK) {
        m->op = cop;
    } else {
        int commute = 0;
        if (PMPI_Op_commutative(a->op, &commute) != MPI_SUCCESS) {
            *why = "bad op";
            return COLL_ERR_BAD_OP;
        }
        if (!commute) {
            *why = "non-commutative op";
            return COLL_ERR_BAD_OP;
        }
        if (!collmpi_contiguous_type(elem, 0)) {
            *why = "datatype not supported for reductions";
            return COLL_ERR_BAD_DTYPE;
        }
        /* Placeholder (dtype, op) of the element size; the transport
         * reduces with MPI_Reduce_local instead. */
        if (esize == 1) m->dtype = COLL_U8, m->op = COLL_BOR;
        else if (esize == 2) m->dtype = COLL_F16, m->op = COLL_SUM;
        else if (esize == 4) m->dtype = COLL_U32, m->op = COLL_BOR;
        else if (esize == 8) m->dtype = COLL_U64, m->op = COLL_BOR;
        else {
            *why = "element size not 1, 2, 4 or 8 bytes";
            return COLL_ERR_BAD_DTYPE;
        }
        m->user_op = 1;
        m->uop = a->op;
        m->udt = elem;
    }
    m->count = (size_t)a->sendcount * m->red_per;
    m->total_bytes = m->count * coll_dtype_size(m->dtype) *
                     (a->coll == COLL_REDUCE_SCATTER ? (size_t)m->nranks : 1);
    if (a->vpad) m->total_bytes = a->vpad->total;
    return COLL_OK;
}

int collmpi_decide(const collmpi_args *a, collmpi_call *m, const char **why) {
    static const char *dummy;
    if (!why) why = &dummy;
    *why = "";
    memset(m, 0, sizeof *m);
    m->uop = MPI_OP_NULL;
    m->udt = m->red_type = MPI_DATATYPE_NULL;
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
        if (PMPI_Comm_test_inter(a->comm, &inter) != MPI_SUCCESS) {
            *why = "invalid communicator";
            return COLL_ERR_NULL_COMM;
        }
        PMPI_Comm_size(a->comm, &m->nranks);   /* of the local group */
        PMPI_Comm_rank(a->comm, &m->rank);
        if (inter) {
            *why = "intercommunicator";
            return COLL_ERR_NULL_COMM;
        }
    }
    int N = m->nranks;
    m->root = a->root;
    if (collmpi_is_root_coll(a->coll) && (a->root < 0 || a->root >= N)) {
        *why = "bad root";
        return COLL_ERR_BAD_ROOT;
    }
    int is_root = m->rank == a->root;
    long long b;
    switch (a->coll) {
    case COLL_ALLREDUCE:
    case COLL_REDUCE:
    case COLL_REDUCE_SCATTER: return decide_reduction(a, m, why);
    /* One block's bytes, from the side MPI makes significant on this rank
     * whatever the other arguments are (MPI_IN_PLACE leaves a send side
     * insignificant); the type signatures make it the same on every rank. */
    case COLL_BROADCAST: b = collmpi_type_bytes(a->sendcount, a->sendtype); break;
    case COLL_GATHER:
        b = is_root ? collmpi_type_bytes(a->recvcount, a->recvtype) : collmpi_type_bytes(a->sendcount, a->sendtype);
        break;
    case COLL_SCATTER:
        b = is_root ? collmpi_type_bytes(a->sendcount, a->sendtype) : collmpi_type_bytes(a->recvcount, a->recvtype);
        break;
    case COLL_ALLGATHER:
    case COLL_ALLTOALL: b = collmpi_type_bytes(a->recvcount, a->recvtype); break;
    default:
        *why = "unknown collective";
        return COLL_ERR_INTERNAL;
    }
    if (a->vpad) b = (long long)a->vpad->pad;   /* padded blocks: the agreed size */
    if (b < 0) {
        *why = "bad count or datatype";
        return COLL_ERR_BAD_COUNT;
    }
    m->dtype = COLL_U8;
    m->op = COLL_SUM;
    m->plain = plain_type(a->sendtype) && plain_type(a->recvtype);
    m->count = (size_t)b;
    m->total_bytes =
        a->vpad ? a->vpad->total : (size_t)b * (a->coll == COLL_BROADCAST ? 1 : (size_t)N);
    return COLL_OK;
}

/* ---- 2. applicability ---- */

/* The verdicts of recent probes: a probe's answer depends on its arguments
 * only, so a cache (per thread: no lock) answers the same, for a few
 * instructions instead of a call through coll_begin and coll_finish. */
enum { PROBE_CACHE = 16 };
typedef struct probe_verdict {
    void (*fn)(void);
    int nranks, root;
    coll_dtype dtype;
    coll_op op;
    int rc;
    const coll_alg_info *info;
} probe_verdict;
static _Thread_local probe_verdict probe_cache[PROBE_CACHE];

int collmpi_applies(coll_collective coll, const collmpi_call *m, void (*fn)(void),
                    const coll_alg_info **info) {
    int root = collmpi_is_root_coll(coll) ? m->root : 0;
    uintptr_t h = ((uintptr_t)fn >> 4) ^ (uintptr_t)m->nranks * 31u ^ (uintptr_t)root * 17u;
    probe_verdict *v = &probe_cache[h % PROBE_CACHE];
    if (v->fn == fn && v->nranks == m->nranks && v->root == root && v->dtype == m->dtype &&
        v->op == m->op) {
        *info = v->info;
        return v->rc;
    }
    coll_comm *pc = collmpi_probe_comm(m->nranks, m->rank);
    int rc;
    if (collmpi_is_root_coll(coll))
        rc = ((collmpi_rooted_fn)fn)(pc, NULL, NULL, 0, m->dtype, m->op, root);
    else
        rc = ((collmpi_fn)fn)(pc, NULL, NULL, 0, m->dtype, m->op);
    *info = collmpi_probed(pc);
    *v = (probe_verdict){fn, m->nranks, root, m->dtype, m->op, rc, *info};
    return rc;
}

/* ---- decisions remembered ---- */

/* The decision and the algorithm of a call, kept per thread for the next
 * call with the same arguments (what collmpi_decide reads, the communicator
 * and the caller's tag: the algorithm of a direct call, the rule set of the
 * PMPI library), so that a repeated call costs a lookup instead of the
 * mapping, the probe and the rule walk. Only calls whose datatypes are
 * named types and whose op is a named op are remembered: those handles are
 * never freed, so equal handles mean equal types (a derived type or user op
 * can be freed and its handle reused). The communicator is covered by the
 * epoch of collmpi_comm_epoch. */
enum { MEMO_WAYS = 8 };
typedef struct memo_entry {
    int valid;
    coll_collective coll;
    int sendcount, recvcount, root;
    MPI_Datatype sendtype, recvtype;
    MPI_Op op;
    MPI_Comm comm;
    void (*tag)(void);
    unsigned long epoch;
    collmpi_call m;          /* the decided part */
    const coll_alg_info *info;
    const void *chosen;      /* the caller's choice (a PMPI rule) */
} memo_entry;
static _Thread_local memo_entry memo[MEMO_WAYS];

static memo_entry *memo_slot(const collmpi_args *a, void (*tag)(void)) {
    uintptr_t h = (uintptr_t)a->coll * 7u ^ (uintptr_t)a->sendcount * 31u ^
                  (uintptr_t)a->recvcount * 131u ^ ((uintptr_t)tag >> 4);
    return &memo[h % MEMO_WAYS];
}

const collmpi_call *collmpi_memo_find(const collmpi_args *a, void (*tag)(void),
                                      const coll_alg_info **info, const void **chosen) {
    if (a->vpad) return NULL;   /* decided by the counts themselves */
    memo_entry *e = memo_slot(a, tag);
    if (!e->valid || e->coll != a->coll || e->sendcount != a->sendcount ||
        e->recvcount != a->recvcount || e->root != a->root || e->sendtype != a->sendtype ||
        e->recvtype != a->recvtype || e->op != a->op || e->comm != a->comm || e->tag != tag ||
        e->epoch != collmpi_comm_epoch())
        return NULL;
    *info = e->info;
    *chosen = e->chosen;
    return &e->m;
}

void collmpi_memo_store(const collmpi_args *a, void (*tag)(void), const collmpi_call *m,
                        const coll_alg_info *info, const void *chosen) {
    coll_op op;
    if (a->vpad || !m->cc || m->user_op || !plain_type(a->sendtype) || !plain_type(a->recvtype) ||
        (a->op != MPI_OP_NULL && !named_op(a->op, &op)))
        return;
    memo_entry *e = memo_slot(a, tag);
    *e = (memo_entry){1,        a->coll,     a->sendcount, a->recvcount, a->root, a->sendtype,
                      a->recvtype, a->op,     a->comm,      tag,          collmpi_comm_epoch(),
                      *m,       info,        chosen};
}

/* ---- 3. this rank's buffers ---- */

/* Packs (unpack = 0) `count` elements of `dt` at `user` into the contiguous
 * `buf`, or unpacks them back; in pieces of at most INT_MAX bytes (MPI_Pack
 * counts in int). MPI_Pack's layout on a homogeneous system is the native
 * one: the same bytes a contiguous receive of that signature gets. */
int collmpi_pack_all(void *user, MPI_Datatype dt, size_t count, char *buf, int unpack) {
    int size;
    MPI_Aint lb, extent;
    int rc = PMPI_Type_size(dt, &size);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_get_extent(dt, &lb, &extent);
    if (rc != MPI_SUCCESS) return rc;
    if (size <= 0 || count == 0) return MPI_SUCCESS;
    size_t per = (size_t)INT_MAX / (size_t)size;
    if (per == 0) return MPI_ERR_COUNT;
    for (size_t done = 0; done < count;) {
        size_t k = count - done < per ? count - done : per;
        /* integer arithmetic: user may be MPI_BOTTOM with absolute displacements */
        void *u = (void *)((uintptr_t)user + (uintptr_t)((MPI_Aint)done * extent));
        char *p = buf + done * (size_t)size;
        int pos = 0, bytes = (int)(k * (size_t)size);
        rc = unpack ? PMPI_Unpack(p, bytes, &pos, u, (int)k, dt, MPI_COMM_SELF)
                    : PMPI_Pack(u, (int)k, dt, p, bytes, &pos, MPI_COMM_SELF);
        if (rc != MPI_SUCCESS) return rc;
        if (pos != bytes) return MPI_ERR_INTERN;
        done += k;
    }
    return MPI_SUCCESS;
}

/* The stages of the last calls, kept (two per thread, the largest)
 * instead of freed: a new buffer every call costs its pages' first touch
 * and perhaps the MPI library's handling of new memory (a 1 MiB
 * MPI_Allgatherv padded took 5 ms with a new buffer per call, 1.3 ms with
 * the kept ones, with Open MPI at N = 2 on a loaded machine). */
static _Thread_local struct vkept {
    char *p;
    size_t cap;
} vkept[2];

static char *vstage_alloc(size_t need, size_t *cap) {
    int best = -1;
    for (int i = 0; i < 2; i++)
        if (vkept[i].p && vkept[i].cap >= need && (best < 0 || vkept[i].cap < vkept[best].cap))
            best = i;
    if (best >= 0) {
        char *p = vkept[best].p;
        *cap = vkept[best].cap;
        vkept[best].p = NULL;
        return p;
    }
    *cap = need;
    return malloc(need);
}

/* A thread's kept stages are freed when it ends. */
static pthread_key_t vkept_key;
static int vkept_keyed;   /* vkept_key exists */
static pthread_once_t vkept_once = PTHREAD_ONCE_INIT;

static void vkept_release(void *kept) {
    struct vkept *k = kept;
    for (int i = 0; i < 2; i++) {
        free(k[i].p);
        k[i].p = NULL;
    }
}

static void vkept_key_create(void) {
    vkept_keyed = pthread_key_create(&vkept_key, vkept_release) == 0;
}

static void vstage_free(char *p, size_t cap) {
    if (!p) return;
    static _Thread_local int registered;
    if (!registered) {
        pthread_once(&vkept_once, vkept_key_create);
        if (!vkept_keyed || pthread_setspecific(vkept_key, vkept) != 0) {
            free(p);   /* not kept: it could not be freed at the thread's end */
            return;
        }
        registered = 1;
    }
    int slot = vkept[0].p == NULL ? 0 : vkept[1].p == NULL ? 1 : vkept[0].cap < vkept[1].cap ? 0 : 1;
    if (vkept[slot].p && vkept[slot].cap >= cap) {
        free(p);
        return;
    }
    free(vkept[slot].p);
    vkept[slot].p = p;
    vkept[slot].cap = cap;
}

/* Opens stage s of `bytes` for the user buffer `user` of type dt: the
 * memory, and a duplicate of the type (the application may free its
 * datatype before a nonblocking call completes, as MPI allows, and the
 * unpack comes at the completion). */
int collmpi_stage_open(collmpi_call *m, collmpi_stage *s, void *user, MPI_Datatype dt, size_t bytes,
                       const char *nomem, const char **why) {
    s->stage = vstage_alloc(bytes, &s->vcap);
    if (!s->stage) {
        s->vcap = 0;
        *why = nomem;
        return COLL_ERR_NOMEM;
    }
    if (PMPI_Type_dup(dt, &s->type) != MPI_SUCCESS) {
        vstage_free(s->stage, s->vcap);
        s->stage = NULL;
        s->vcap = 0;
        *why = "cannot duplicate the datatype";
        return COLL_ERR_BAD_DTYPE;
    }
    s->owned = 1;
    s->user = user;
    m->staged = 1;
    return COLL_OK;
}

/* Stages `count` elements of `dt` at `user` into s (copying them in when
 * `pack`); `unpack` elements are copied back by collmpi_unstage. */
int collmpi_stage_buffer(collmpi_call *m, collmpi_stage *s, void *user, MPI_Datatype dt, size_t count,
                         int pack, size_t unpack, const char **why) {
    int size = 0;
    PMPI_Type_size(dt, &size);
    size_t bytes = count * (size_t)(size > 0 ? size : 0);
    int rc = collmpi_stage_open(m, s, user, dt, bytes ? bytes : 1,
                        "no memory for a contiguous copy of a non-contiguous datatype", why);
    if (rc != COLL_OK) return rc;
    s->count = count;
    s->unpack_count = unpack;
    if (pack && collmpi_pack_all(user, dt, count, s->stage, 0) != MPI_SUCCESS) {
        *why = "cannot pack the datatype";
        return COLL_ERR_BAD_DTYPE;
    }
    return COLL_OK;
}

/* Whether a side of `count` elements of `dt` has to be staged (never when
 * every type of the call is a named one). */
int collmpi_needs_stage(const collmpi_call *m, MPI_Datatype dt, size_t count) {
    return count && !m->plain && !collmpi_contiguous_type(dt, 0);
}

static void free_stages(collmpi_call *m) {
    if (m->in.vcap) vstage_free(m->in.stage, m->in.vcap);
    else free(m->in.stage);
    if (m->out.vcap) vstage_free(m->out.stage, m->out.vcap);
    else free(m->out.stage);
    m->in.vcap = m->out.vcap = 0;
    m->in.stage = m->out.stage = NULL;
    free(m->out.vcounts);
    free(m->out.vdispls);
    m->out.vcounts = m->out.vdispls = NULL;
    m->out.vn = 0;
    if (m->in.owned) PMPI_Type_free(&m->in.type);
    if (m->out.owned) PMPI_Type_free(&m->out.type);
    m->in.owned = m->out.owned = 0;
    m->staged = 0;
}

/* A v-form's side of N blocks of `count` elements of dt, block r at
 * displs[r] extents of dt: one element of an indexed type, which staging
 * packs side by side (block r at r * count) for the algorithm. */
static int v_blocks(const int *displs, int N, int count, MPI_Datatype dt, MPI_Datatype *out,
                    const char **why) {
    if (PMPI_Type_create_indexed_block(N, count, displs, dt, out) != MPI_SUCCESS ||
        PMPI_Type_commit(out) != MPI_SUCCESS) {
        *why = "cannot describe the blocks at their displacements";
        return COLL_ERR_BAD_DTYPE;
    }
    return COLL_OK;
}

/* Checks that this rank's other side of a gather, scatter, allgather or
 * alltoall has the block size the decision used. */
static int same_block(int count, MPI_Datatype dt, size_t block, const char **why) {
    long long b = collmpi_type_bytes(count, dt);
    if (b < 0 || (size_t)b != block) {
        *why = "send and receive block sizes differ";
        return COLL_ERR_BAD_COUNT;
    }
    return COLL_OK;
}

static int prepare_reduction(const collmpi_args *a, collmpi_call *m, const char **why) {
    int is_root = m->rank == a->root;
    size_t n = (size_t)a->sendcount;
    size_t in_elems = a->coll == COLL_REDUCE_SCATTER ? n * (size_t)m->nranks : n;
    int out_sig = a->coll != COLL_REDUCE || is_root;
    const void *sb = a->sendbuf;
    void *rb = out_sig ? a->recvbuf : NULL;
    int rc = COLL_OK;
    int staged = !m->red_contig && n;
    if (sb == MPI_IN_PLACE) {
        if (!out_sig) {
            *why = "MPI_IN_PLACE at a non-root";
            return COLL_ERR_IN_PLACE;
        }
        sb = COLL_IN_PLACE;
        if (staged) {
            rc = collmpi_stage_buffer(m, &m->out, rb, m->red_type, in_elems, 1, n, why);
            rb = m->out.stage;
        }
    } else if (staged) {
        rc = collmpi_stage_buffer(m, &m->in, (void *)sb, m->red_type, in_elems, 1, 0, why);
        sb = m->in.stage;
        if (rc == COLL_OK && out_sig) {
            rc = collmpi_stage_buffer(m, &m->out, rb, m->red_type, n, 0, n, why);
            rb = m->out.stage;
        }
    }
    m->sendbuf = sb;
    m->recvbuf = rb;
    return rc;
}

static int call_comm(const collmpi_call *m, MPI_Comm comm, coll_comm **cc, int *mpi_err);

/* The geometry of a prepared call with per-block counts, or NULL. */
static collrt_vgeom *vgeom_of(const collmpi_call *m) {
    /* the blocks' elements of the runtime's dtype */
    size_t esz = coll_dtype_size(m->dtype);
    size_t *counts = malloc(sizeof *counts * (m->nbb ? m->nbb : 1));
    if (!counts || !m->vmap || !esz) {
        free(counts);
        return NULL;
    }
    for (size_t k = 0; k < m->nbb; k++) counts[k] = (size_t)m->bbytes[k] / esz;
    collrt_vgeom *vg = collrt_vgeom_build(m->vmap, counts, m->nbb);
    free(counts);
    return vg;
}

int collmpi_launch(coll_request *q, const collmpi_call *m) {
    collrt_vgeom *vg = vgeom_of(m);
    if (!vg) return COLL_ERR_NOMEM;
    return collrt_request_launch(q, m->sendbuf, m->recvbuf, vg);
}

int collmpi_request(coll_comm *cc, const coll_alg_info *info, void (*fn)(void), coll_collective coll,
                    const collmpi_call *m, int persistent, coll_request **req) {
    int root = collmpi_is_root_coll(coll) ? m->root : 0;
    if (!m->vblocks)
        return persistent ? coll_init(cc, info, fn, m->sendbuf, m->recvbuf, m->count, m->dtype,
                                      m->op, root, req)
                          : coll_start(cc, info, fn, m->sendbuf, m->recvbuf, m->count, m->dtype,
                                       m->op, root, req);
    collrt_vgeom *vg = vgeom_of(m);
    if (!vg) return COLL_ERR_NOMEM;
    return collrt_start_v(cc, info, fn, m->sendbuf, m->recvbuf, 1, m->dtype, m->op, root, vg,
                          persistent, req);
}

int collmpi_deferred(coll_collective coll, const collmpi_call *m, MPI_Comm comm, void (*fn)(void),
                     const coll_alg_info *info, coll_request **req, int *mpi_err) {
    coll_comm *cc;
    int rc = call_comm(m, comm, &cc, mpi_err);
    if (rc != COLL_OK) return rc;
    rc = collrt_start_deferred(cc, info, fn, m->dtype, m->op, collmpi_is_root_coll(coll) ? m->root : 0,
                               req);
    if (rc == COLL_ERR_TRANSPORT) *mpi_err = collmpi_comm_mpi_error(cc);
    return rc;
}

int collmpi_prepare(const collmpi_args *a, collmpi_call *m, const char **why) {
    static const char *dummy;
    if (!why) why = &dummy;
    *why = "";
    m->in = m->out = (collmpi_stage){0};
    m->staged = 0;
    int rc;
    if (a->vpad) {
        rc = m->vblocks ? collmpi_prepare_blocks(a, m, why) : collmpi_prepare_padded(a, m, why);
        if (rc != COLL_OK) free_stages(m);
        return rc;
    }
    if (collrt_collectives[a->coll].reducing) {
        rc = prepare_reduction(a, m, why);
        if (rc != COLL_OK) free_stages(m);
        return rc;
    }
    size_t N = (size_t)m->nranks, B = m->count;
    int is_root = m->rank == a->root;
    const void *sb = a->sendbuf;
    void *rb = a->recvbuf;
    size_t sc = a->sendcount > 0 ? (size_t)a->sendcount : 0;
    size_t rc_ = a->recvcount > 0 ? (size_t)a->recvcount : 0;
    rc = COLL_OK;
    switch (a->coll) {
    case COLL_BROADCAST:
        /* the root's buffer is in and out */
        if (B && collmpi_needs_stage(m, a->sendtype, sc)) {
            rc = collmpi_stage_buffer(m, &m->out, rb, a->sendtype, sc, is_root, is_root ? 0 : sc, why);
            rb = m->out.stage;
        }
        sb = is_root ? rb : NULL;
        break;
    case COLL_GATHER:
    case COLL_SCATTER:
    case COLL_ALLGATHER:
    case COLL_ALLTOALL: {
        /* The sides this rank has (a gather's output and a scatter's input
         * are the root's only), how many elements of its type each holds,
         * and MPI_IN_PLACE: the input in recvbuf (sendbuf of gather at the
         * root, allgather, alltoall) or the root's block left in sendbuf
         * (recvbuf of scatter at the root). */
        int coll = a->coll;
        int has_in = coll != COLL_SCATTER || is_root;
        int has_out = coll != COLL_GATHER || is_root;
        size_t in_n = (coll == COLL_SCATTER || coll == COLL_ALLTOALL) ? N * sc : sc;
        size_t out_n = coll == COLL_SCATTER ? rc_ : N * rc_;
        if (!has_in) sb = NULL;
        if (!has_out) rb = NULL;
        int scatter_root_in_place = coll == COLL_SCATTER && is_root && rb == MPI_IN_PLACE;
        if ((sb == MPI_IN_PLACE && (coll == COLL_SCATTER || !has_out)) ||
            (rb == MPI_IN_PLACE && !scatter_root_in_place)) {
            *why = "MPI_IN_PLACE where MPI does not allow it";
            rc = COLL_ERR_IN_PLACE;
            break;
        }
        /* A v-form's blocks at displacements: the side is one element of
         * an indexed type, always staged (when anything moves). In place,
         * the input is in recvbuf at rdispls. */
        MPI_Datatype in_t = a->sendtype, out_t = a->recvtype;
        int in_v = 0, out_v = 0;
        int in_multi = coll == COLL_SCATTER || coll == COLL_ALLTOALL;
        if (B && has_in && in_multi && a->sdispls && sb != MPI_IN_PLACE) {
            rc = v_blocks(a->sdispls, (int)N, a->sendcount, a->sendtype, &in_t, why);
            if (rc != COLL_OK) break;
            in_n = 1;
            in_v = 1;
        }
        if (B && has_out && coll != COLL_SCATTER && a->rdispls) {
            rc = v_blocks(a->rdispls, (int)N, a->recvcount, a->recvtype, &out_t, why);
            if (rc != COLL_OK) {
                if (in_v) PMPI_Type_free(&in_t);
                break;
            }
            out_n = 1;
            out_v = 1;
        }
        if (sb == MPI_IN_PLACE) {
            /* the input is in recvbuf: stage all of it */
            sb = COLL_IN_PLACE;
            if (B && (out_v || collmpi_needs_stage(m, out_t, out_n))) {
                rc = collmpi_stage_buffer(m, &m->out, rb, out_t, out_n, 1, out_n, why);
                rb = m->out.stage;
            }
            if (out_v) PMPI_Type_free(&out_t);
            break;
        }
        if (has_in && has_out && !scatter_root_in_place) {
            /* both sides significant: the one the decision did not read
             * must have the same block size */
            rc = coll == COLL_SCATTER ? same_block(a->recvcount, a->recvtype, B, why)
                                      : same_block(a->sendcount, a->sendtype, B, why);
        }
        if (rc == COLL_OK && has_in && B && (in_v || collmpi_needs_stage(m, in_t, in_n))) {
            rc = collmpi_stage_buffer(m, &m->in, (void *)sb, in_t, in_n, 1, 0, why);
            sb = m->in.stage;
        }
        if (rc == COLL_OK && scatter_root_in_place) {
            rb = COLL_IN_PLACE;
        } else if (rc == COLL_OK && has_out && B && (out_v || collmpi_needs_stage(m, out_t, out_n))) {
            rc = collmpi_stage_buffer(m, &m->out, rb, out_t, out_n, 0, out_n, why);
            rb = m->out.stage;
        }
        if (in_v) PMPI_Type_free(&in_t);     /* the stages hold duplicates */
        if (out_v) PMPI_Type_free(&out_t);
        break;
    }
    default:
        *why = "unknown collective";
        rc = COLL_ERR_INTERNAL;
    }
    if (rc != COLL_OK) {
        free_stages(m);
        return rc;
    }
    if (sb == MPI_IN_PLACE) sb = COLL_IN_PLACE;
    if (rb == MPI_IN_PLACE) rb = COLL_IN_PLACE;
    m->sendbuf = sb;
    m->recvbuf = rb;
    return COLL_OK;
}

int collmpi_unstage(collmpi_call *m, int status, int *mpi_err) {
    if (!m->staged) return status;
    collmpi_stage *o = &m->out;
    size_t at = 0;   /* vstride 0: the blocks side by side */
    for (int r = 0; status == COLL_OK && o->stage && r < o->vn; r++) {
        int rc = collmpi_pack_block(o->user, o->type, o->vdispls[r], o->vcounts[r],
                            o->stage + (o->vstride ? (size_t)r * o->vstride : at), 1);
        at += (size_t)o->vcounts[r] * o->vsize;
        if (rc != MPI_SUCCESS) {
            *mpi_err = rc;
            status = COLL_ERR_TRANSPORT;
        }
    }
    if (status == COLL_OK && m->out.stage && m->out.unpack_count) {
        int rc = collmpi_pack_all(m->out.user, m->out.type, m->out.unpack_count, m->out.stage, 1);
        if (rc != MPI_SUCCESS) {
            *mpi_err = rc;
            status = COLL_ERR_TRANSPORT;
        }
    }
    free_stages(m);
    return status;
}

/* ---- 4. the run ---- */

/* The collc communicator a call of m runs on: the decision's, the one-rank
 * communicator, or comm's (made now); COLL_OK, or the failure with
 * *mpi_err the MPI error behind it. */
static int call_comm(const collmpi_call *m, MPI_Comm comm, coll_comm **cc, int *mpi_err) {
    *mpi_err = MPI_SUCCESS;
    *cc = m->cc;
    if (m->nranks == 1) {
        *cc = collmpi_solo_comm();
        return *cc ? COLL_OK : COLL_ERR_NOMEM;
    }
    if (*cc) return COLL_OK;
    int rc = coll_comm_from_mpi(comm, cc);
    if (rc != COLL_OK) *mpi_err = collmpi_from_mpi_error();
    return rc;
}

int collmpi_invoke(coll_collective coll, const collmpi_call *m, MPI_Comm comm, void (*fn)(void),
                   int *mpi_err) {
    coll_comm *cc;
    int rc = call_comm(m, comm, &cc, mpi_err);
    if (rc != COLL_OK) return rc;
    collmpi_comm_set_user_op(cc, m->user_op, m->uop, m->udt);
    if (m->vblocks) {
        /* per-block counts: the geometry is a request's (started, waited) */
        coll_request *q = NULL;
        rc = collmpi_request(cc, m->vinfo, fn, coll, m, 0, &q);
        if (rc == COLL_OK) rc = coll_wait(q);
        coll_request_free(q);
    } else {
        /* a replayed call ends in coll_begin: the program returns at once */
        collmpi_comm_end_early(cc, 1);
        if (collmpi_is_root_coll(coll))
            rc = ((collmpi_rooted_fn)fn)(cc, m->sendbuf, m->recvbuf, m->count, m->dtype, m->op,
                                         m->root);
        else
            rc = ((collmpi_fn)fn)(cc, m->sendbuf, m->recvbuf, m->count, m->dtype, m->op);
        collmpi_comm_end_early(cc, 0);
        if (rc == COLLMPI_REPLAYED) rc = collmpi_replayed_status(cc);
    }
    collmpi_comm_set_user_op(cc, 0, MPI_OP_NULL, MPI_DATATYPE_NULL);
    if (rc == COLL_ERR_TRANSPORT) *mpi_err = collmpi_comm_mpi_error(cc);
    return rc;
}

int collmpi_start(coll_collective coll, const collmpi_call *m, MPI_Comm comm, void (*fn)(void),
                  const coll_alg_info *info, coll_request **req, int *mpi_err) {
    coll_comm *cc;
    int rc = call_comm(m, comm, &cc, mpi_err);
    if (rc != COLL_OK) return rc;
    /* the request's call takes the user op over at its start */
    collmpi_comm_set_user_op(cc, m->user_op, m->uop, m->udt);
    rc = collmpi_request(cc, info, fn, coll, m, 0, req);
    collmpi_comm_set_user_op(cc, 0, MPI_OP_NULL, MPI_DATATYPE_NULL);
    if (rc == COLL_ERR_TRANSPORT) *mpi_err = collmpi_comm_mpi_error(cc);
    return rc;
}

/* ---- the entry points ---- */

const char *collmpi_refusal(coll_collective coll, const collmpi_call *m, int rc, char *buf,
                            size_t len) {
    if (rc != COLL_ERR_NOT_APPLICABLE) return coll_strerror(rc);
    if (collmpi_is_root_coll(coll))
        snprintf(buf, len, "does not apply for N = %d, root %d (a `require` fails)", m->nranks,
                 m->root);
    else
        snprintf(buf, len, "does not apply for N = %d (a `require` fails)", m->nranks);
    return buf;
}

int collmpi_execute(const collmpi_args *a, collmpi_call *m, void (*fn)(void), int *mpi_err,
                    const char **why, int *staged) {
    *mpi_err = MPI_SUCCESS;
    int rc = collmpi_prepare(a, m, why);
    if (staged) *staged = m->staged;
    if (rc != COLL_OK) return rc;
    rc = collmpi_invoke(a->coll, m, a->comm, fn, mpi_err);
    rc = collmpi_unstage(m, rc, mpi_err);
    *why = coll_strerror(rc);
    return rc;
}

/* MPI_ERRORS_ARE_FATAL aborts with the code's string, but that string may
 * never be seen: where the code is its class (MPI keeps no strings of added
 * codes: MPICH 4.0) it is the class's, which for a refusal reads
 * "Unsupported file operation", and Open MPI's message goes through mpirun,
 * which another process's abort can beat. collc's reason is printed first,
 * by every process. */
static void say_before_abort(MPI_Comm comm, const collmpi_call *m, coll_collective coll) {
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS) return;
    int fatal = eh == MPI_ERRORS_ARE_FATAL;
#ifdef MPI_ERRORS_ABORT
    fatal |= eh == MPI_ERRORS_ABORT;
#endif
    /* a user's handler is a reference to free; the predefined ones are kept */
    if (!fatal && eh != MPI_ERRORS_RETURN && eh != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&eh);
    if (!fatal) return;
    fprintf(stderr, "collmpi[%d]: %s: %s\n", m->rank, collmpi_form_name(coll, m), last_error);
    fflush(stderr);
}

int collmpi_end(const collmpi_args *a, const collmpi_call *m, int rc, int mpi_err,
                const char *alg, const char *why, int local) {
    if (rc == COLL_OK) return collmpi_error(COLL_OK, MPI_SUCCESS, NULL);
    char reason[REASON_LEN];
    snprintf(reason, sizeof reason, "%s: %s", alg, why);
    int code = collmpi_error(rc, mpi_err, reason);
    collmpi_log(a->coll, m, local, "error:", reason);
    /* As an MPI collective: errors go through the communicator's handler. */
    if (a->comm != MPI_COMM_NULL) {
        say_before_abort(a->comm, m, a->coll);
        PMPI_Comm_call_errhandler(a->comm, code);
    }
    return code;
}

/* A direct call never falls back to the MPI library: the algorithm runs or
 * the call fails, with the same refusal on every rank for everything
 * collmpi_decide and collmpi_applies look at. */
static int run(const collmpi_args *a, void (*fn)(void)) {
    collmpi_call m;
    const char *why = "";
    const coll_alg_info *info = NULL;
    char detail[160];
    int mpi_err = MPI_SUCCESS, local = 0;
    const void *chosen;
    const collmpi_call *known = collmpi_memo_find(a, fn, &info, &chosen);
    if (known) {
        m = *known;
        int rc = collmpi_execute(a, &m, fn, &mpi_err, &why, NULL);
        return collmpi_end(a, &m, rc, mpi_err, info && info->name ? info->name : "", why, 1);
    }
    int rc = collmpi_decide(a, &m, &why);
    if (rc != COLL_OK && m.nranks > 0) {
        /* only for the algorithm's name in the reason */
        collmpi_call probe = m;
        probe.dtype = COLL_U8;
        probe.op = COLL_SUM;
        (void)collmpi_applies(a->coll, &probe, fn, &info);
    }
    if (rc == COLL_OK) {
        rc = collmpi_applies(a->coll, &m, fn, &info);
        if (rc != COLL_OK) why = collmpi_refusal(a->coll, &m, rc, detail, sizeof detail);
    }
    if (rc == COLL_OK) {
        local = 1;
        collmpi_memo_store(a, fn, &m, info, NULL);
        rc = collmpi_execute(a, &m, fn, &mpi_err, &why, NULL);
    }
    return collmpi_end(a, &m, rc, mpi_err,
                       info && info->name ? info->name : collmpi_mpi_name(a->coll), why, local);
}

#define FN(f) ((void (*)(void))(f))

int collmpi_bcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                  collmpi_rooted_fn fn) {
    collmpi_args a = {COLL_BROADCAST, buffer, buffer, count, 0, dt, MPI_DATATYPE_NULL,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    return run(&a, FN(fn));
}

int collmpi_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm comm, collmpi_rooted_fn fn) {
    collmpi_args a = {COLL_REDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, root,
                      comm, 0, NULL, NULL, NULL};
    return run(&a, FN(fn));
}

int collmpi_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   collmpi_rooted_fn fn) {
    collmpi_args a = {COLL_GATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    return run(&a, FN(fn));
}

int collmpi_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    collmpi_rooted_fn fn) {
    collmpi_args a = {COLL_SCATTER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    return run(&a, FN(fn));
}

int collmpi_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, collmpi_fn fn) {
    collmpi_args a = {COLL_ALLGATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm, 0, NULL, NULL, NULL};
    return run(&a, FN(fn));
}

int collmpi_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm, collmpi_fn fn) {
    collmpi_args a = {COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, 0, dt, MPI_DATATYPE_NULL,
                      op, 0, comm, 0, NULL, NULL, NULL};
    return run(&a, FN(fn));
}

int collmpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm, collmpi_fn fn) {
    collmpi_args a = {COLL_ALLREDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, 0,
                      comm, 0, NULL, NULL, NULL};
    return run(&a, FN(fn));
}

int collmpi_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, collmpi_fn fn) {
    collmpi_args a = {COLL_ALLTOALL, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm, 0, NULL, NULL, NULL};
    return run(&a, FN(fn));
}
