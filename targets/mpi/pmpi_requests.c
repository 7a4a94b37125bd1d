/* pmpi_requests.c - libcollmpi.so's requests: the nonblocking collectives
 * (a generalized request per call, advanced by the application's own
 * MPI_Test* and MPI_Wait*, or a progress thread), the persistent ones
 * (MPI_*_init, MPI_Start, MPI_Startall, MPI_Request_free) and the
 * completion calls they intercept. The rules and the decision are pmpi.c's
 * (collmpi_pmpi_choose). */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collmpi_config.h"
#include "mpi_internal.h"
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>   /* MPIX_*_init (pcollreq) */
#endif

/* ---- nonblocking collectives ----
 * MPI_Iallreduce and the like are decided by the same rules as their
 * blocking form; the call runs as a collc request (coll.h §3) behind a
 * generalized request (MPI_Grequest_start), which is what the application
 * holds: any MPI call that takes a request works on it. The requests in
 * flight advance inside the application's MPI_Test*, MPI_Wait* and
 * MPI_Request_get_status (intercepted below); one that completes is
 * unstaged and then marked complete (MPI_Grequest_complete), after which
 * the MPI library's own completion takes over (its status: no source, no
 * tag, 0 elements, the call's error code). Progress is made by the thread
 * that calls these functions and, with COLLMPI_PROGRESS=thread under
 * MPI_THREAD_MULTIPLE, by a progress thread of ours (below); the registry
 * of requests in flight is under reg_lock. */
typedef struct preq preq;
typedef struct nbreq {
    coll_request *q;
    preq *p;                 /* a start of this persistent request (NULL: an I-form) */
    collmpi_call m;          /* the call's buffers (unstaged when done) */
    collmpi_args a;
    const collmpi_rule *r;
    MPI_Request greq;
    int code;                /* the MPI code of its end */
    int done;                /* completed (no more in `active`) */
    int freed;               /* the MPI library freed the generalized request */
    /* A v-form whose ranks exchange their block sizes first
     * (collmpi_vpad.deferred): q waits (collrt_start_deferred) until the
     * exchange xreq completes, then is launched on the prepared buffers. */
    int waiting;
    MPI_Request xreq;
    long long *xsend, *xrecv;
    collmpi_vpad vp;
} nbreq;

static nbreq **active;       /* the requests in flight, in start order */
static size_t cap_active;
static _Atomic size_t nactive;   /* read without the lock: "anything to do?" */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;   /* active, nactive */

static void nb_free(nbreq *nb) {
    if (nb->p) return;   /* a persistent request's start, kept with it */
    free(nb->xsend);
    free(nb->xrecv);
    free(nb);
}

static int nb_query(void *extra, MPI_Status *status) {
    nbreq *nb = extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = nb->code;
    return nb->code;
}

static int nb_release(void *extra) {
    nbreq *nb = extra;
    __atomic_store_n(&nb->freed, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&nb->done, __ATOMIC_SEQ_CST)) nb_free(nb);
    return MPI_SUCCESS;
}

/* Marks nb complete for the MPI library: nb may be freed from then on (by
 * the application's thread, in nb_release), so its handle is read first. */
static void nb_complete(nbreq *nb) {
    MPI_Request g = nb->greq;
    __atomic_store_n(&nb->done, 1, __ATOMIC_SEQ_CST);
    PMPI_Grequest_complete(g);
}

static int nb_cancel(void *extra, int complete) {
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;   /* a collective cannot be cancelled */
}

/* Launches a waiting request whose exchange of block sizes completed:
 * the sizes, this rank's buffers, the geometry. A failure is this rank's
 * (an erroneous call): the request ends with it. */
static int nb_launch(nbreq *nb, int *mpi_err) {
    const char *why = "";
    collmpi_vpad *v = &nb->vp;
    v->bbytes = nb->xrecv;
    v->deferred = 0;
    long long total = 0;
    for (size_t k = 0; k < v->nbb; k++) {
        if (v->bbytes[k] < 0) return COLL_ERR_BAD_COUNT;
        total += v->bbytes[k];
    }
    v->total = (size_t)total;
    nb->a.vpad = v;
    int rc = collmpi_vblocks(nb->a.coll, nb->r->fn, &nb->m, &why);
    if (rc == COLL_OK) rc = collmpi_prepare(&nb->a, &nb->m, &why);
    if (rc == COLL_OK) rc = collmpi_launch(nb->q, &nb->m);
    if (rc != COLL_OK) rc = collmpi_unstage(&nb->m, rc, mpi_err);
    return rc;
}

/* Advances every request in flight; completes those that are done. */
static void progress_all(void) {
    size_t keep = 0;
    for (size_t i = 0; i < nactive; i++) {
        nbreq *nb = active[i];
        int done = 0, rc = COLL_OK;
        if (nb->waiting) {
            int flag = 0, mpi_err = MPI_SUCCESS;
            int e = PMPI_Test(&nb->xreq, &flag, MPI_STATUS_IGNORE);
            if (e == MPI_SUCCESS && !flag) {
                active[keep++] = nb;
                continue;
            }
            nb->waiting = 0;
            rc = e != MPI_SUCCESS ? COLL_ERR_TRANSPORT : nb_launch(nb, &mpi_err);
            if (rc != COLL_OK) {   /* ends here, with that error */
                coll_request_free(nb->q);
                nb->q = NULL;
                nb->code = collmpi_end(&nb->a, &nb->m, rc, e != MPI_SUCCESS ? e : mpi_err,
                                       nb->r->alg, coll_strerror(rc), 1);
                nb_complete(nb);
                continue;
            }
        }
        rc = coll_test(nb->q, &done);
        if (!done) {
            active[keep++] = nb;
            continue;
        }
        if (!nb->p) coll_request_free(nb->q);   /* a persistent one keeps its plan */
        nb->q = NULL;
        int mpi_err = MPI_SUCCESS;
        if (rc == COLL_ERR_TRANSPORT) mpi_err = collmpi_comm_mpi_error(nb->m.cc);
        rc = collmpi_unstage(&nb->m, rc, &mpi_err);
        nb->code = collmpi_end(&nb->a, &nb->m, rc, mpi_err, nb->r->alg, coll_strerror(rc), 1);
        nb_complete(nb);   /* last use: it may free nb (nb_release) */
    }
    nactive = keep;
}

/* progress_all by the application's thread, if anything is in flight. */
static void progress_some(void) {
    if (!nactive) return;
    pthread_mutex_lock(&reg_lock);
    progress_all();
    pthread_mutex_unlock(&reg_lock);
}

/* ---- the progress thread ----
 * Without one, a request advances only when the application calls a test
 * or wait: a step whose messages complete in the middle of a compute
 * slice waits for the slice to end before the next step is posted, and
 * over TCP the library moves a large message only as far as its socket
 * takes it per call. With COLLMPI_PROGRESS=thread, under
 * MPI_THREAD_MULTIPLE, a thread of ours runs progress_all every
 * PROGRESS_POLL_NS while requests are in flight (sleeping between rounds,
 * so that it takes little from the application's cores) and waits on
 * reg_wake when none are; MPI_Finalize stops it before the library ends.
 * The application's own tests and waits keep advancing requests too. */
enum { PROGRESS_POLL_NS = 50000 };   /* 6 KB of a 1 Gbit/s link: less than a socket holds */
static pthread_cond_t reg_wake = PTHREAD_COND_INITIALIZER;
static pthread_t progress_tid;
static int progress_state;   /* 0: not decided yet; 1: the thread runs; -1: none */
static int progress_stop;    /* under reg_lock */

static void *progress_main(void *arg) {
    (void)arg;
    const struct timespec poll = {0, PROGRESS_POLL_NS};
    pthread_mutex_lock(&reg_lock);
    while (!progress_stop) {
        if (!nactive) {
            pthread_cond_wait(&reg_wake, &reg_lock);
            continue;
        }
        progress_all();
        pthread_mutex_unlock(&reg_lock);
        nanosleep(&poll, NULL);
        pthread_mutex_lock(&reg_lock);
    }
    pthread_mutex_unlock(&reg_lock);
    return NULL;
}

/* Decides, at the first request of ours, whether a progress thread runs
 * (COLLMPI_PROGRESS), and starts it; called under reg_lock. */
static void progress_thread_decide(void) {
    if (progress_state) return;
    progress_state = -1;
    const char *e = getenv("COLLMPI_PROGRESS");
    if (!e || !*e || strcmp(e, "test") == 0) return;
    if (strcmp(e, "thread") != 0) {
        fprintf(stderr, "collmpi: COLLMPI_PROGRESS='%s' is neither 'thread' nor 'test'; "
                        "requests advance in tests and waits only\n", e);
        return;
    }
    int level = MPI_THREAD_SINGLE;
    if (PMPI_Query_thread(&level) != MPI_SUCCESS || level != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "collmpi: COLLMPI_PROGRESS=thread needs MPI_THREAD_MULTIPLE "
                        "(MPI_Init_thread); requests advance in tests and waits only\n");
        return;
    }
    if (pthread_create(&progress_tid, NULL, progress_main, NULL) != 0) {
        fprintf(stderr, "collmpi: cannot start the progress thread; requests advance in "
                        "tests and waits only\n");
        return;
    }
    progress_state = 1;
    if (collmpi_debug()) fprintf(stderr, "collmpi: progress thread started\n");
}

/* Registers nb as in flight (room for it was grown); under reg_lock. */
static void register_active(nbreq *nb) {
    active[nactive++] = nb;
    progress_thread_decide();
    if (progress_state > 0) pthread_cond_signal(&reg_wake);
}

int MPI_Finalize(void) {
    pthread_mutex_lock(&reg_lock);
    int running = progress_state > 0;
    progress_stop = 1;
    pthread_cond_signal(&reg_wake);
    pthread_mutex_unlock(&reg_lock);
    if (running) pthread_join(progress_tid, NULL);
    progress_state = -1;
    return PMPI_Finalize();
}

/* Starts the I-form of a with collc if a rule serves it: returns 1 with
 * *request and *code, or 0 for "use the MPI library". */
static int try_start(const collmpi_args *a, MPI_Request *request, int *code) {
    collmpi_call m;
    const coll_alg_info *info = NULL;
    const collmpi_rule *r = collmpi_pmpi_choose(a, COLLMPI_FORM_NONBLOCKING, &m, &info);
    if (!r || !collmpi_v_serve(a, &m, r->fn, r->alg)) return 0;
    nbreq *nb = calloc(1, sizeof *nb);
    int rc = nb && collrt_grow((void **)&active, &cap_active, nactive + 1, sizeof *active)
                 ? COLL_OK
                 : COLL_ERR_NOMEM;
    int mpi_err = MPI_SUCCESS;
    if (rc == COLL_OK && a->vpad && a->vpad->deferred) {
        /* the block sizes first, in the background; the request's tags
         * now, in the order of the calls */
        const collmpi_vpad *v = a->vpad;
        nb->m = m;
        nb->a = *a;
        nb->r = r;
        nb->vp = *v;
        size_t N = (size_t)m.nranks;
        nb->xsend = malloc(sizeof *nb->xsend * v->nown);
        nb->xrecv = malloc(sizeof *nb->xrecv * v->nown * N);
        nb->vp.own = NULL;
        nb->vp.nbb = v->nown * N;
        collmpi_pmpi_log_served(a, &m, r, 0);
        rc = !nb->xsend || !nb->xrecv ? COLL_ERR_NOMEM : COLL_OK;
        if (rc == COLL_OK) {
            memcpy(nb->xsend, v->own, sizeof *nb->xsend * v->nown);
            int e = PMPI_Iallgather(nb->xsend, (int)v->nown, MPI_LONG_LONG, nb->xrecv,
                                    (int)v->nown, MPI_LONG_LONG, a->comm, &nb->xreq);
            if (e != MPI_SUCCESS) {
                rc = COLL_ERR_TRANSPORT;
                mpi_err = e;
            }
        }
        if (rc == COLL_OK) rc = collmpi_deferred(a->coll, &nb->m, a->comm, r->fn, info, &nb->q,
                                                 &mpi_err);
        if (rc == COLL_OK) {
            int g = PMPI_Grequest_start(nb_query, nb_release, nb_cancel, nb, &nb->greq);
            if (g != MPI_SUCCESS) {
                PMPI_Wait(&nb->xreq, MPI_STATUS_IGNORE);
                rc = COLL_ERR_TRANSPORT;
                mpi_err = g;
            }
        }
        if (rc != COLL_OK) {
            coll_request_free(nb->q);
            nb->q = NULL;
            nb_free(nb);
            *request = MPI_REQUEST_NULL;
            *code = collmpi_end(a, &m, rc, mpi_err, r->alg, coll_strerror(rc), 1);
            return 1;
        }
        nb->waiting = 1;
        register_active(nb);
        *request = nb->greq;
        *code = MPI_SUCCESS;
        return 1;
    }
    if (rc == COLL_OK) {
        const char *why;
        nb->m = m;
        nb->a = *a;
        nb->a.vpad = NULL;   /* the caller's; the stages keep what the completion needs */
        nb->r = r;
        rc = collmpi_prepare(a, &nb->m, &why);
        collmpi_pmpi_log_served(a, &nb->m, r, nb->m.staged);
        if (rc == COLL_OK) {
            rc = collmpi_start(a->coll, &nb->m, a->comm, r->fn, info, &nb->q, &mpi_err);
            if (rc != COLL_OK) rc = collmpi_unstage(&nb->m, rc, &mpi_err);
        }
        if (rc == COLL_OK) {
            int g = PMPI_Grequest_start(nb_query, nb_release, nb_cancel, nb, &nb->greq);
            if (g != MPI_SUCCESS) {   /* no request to return: finish the call here */
                coll_wait(nb->q);
                coll_request_free(nb->q);
                collmpi_unstage(&nb->m, COLL_OK, &mpi_err);
                rc = COLL_ERR_TRANSPORT;
                mpi_err = g;
            }
        }
    }
    if (rc != COLL_OK) {
        if (nb) m = nb->m;
        if (nb) nb_free(nb);
        *request = MPI_REQUEST_NULL;
        *code = collmpi_end(a, &m, rc, mpi_err, r->alg, coll_strerror(rc), 1);
        return 1;
    }
    register_active(nb);
    *request = nb->greq;
    *code = MPI_SUCCESS;
    return 1;
}

int collmpi_pmpi_try_start(const collmpi_args *a, MPI_Request *request, int *code) {
    pthread_mutex_lock(&reg_lock);
    int served = try_start(a, request, code);
    pthread_mutex_unlock(&reg_lock);
    return served;
}

/* Completion: with collc requests in flight, every test advances them
 * first, and every wait becomes a loop of tests (the MPI library cannot
 * advance them); without, the library's own call, untouched. */

static int impl_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    progress_some();
    return PMPI_Test(request, flag, status);
}

static int impl_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    progress_some();
    return PMPI_Testall(count, requests, flag, statuses);
}

static int impl_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    progress_some();
    return PMPI_Testany(count, requests, index, flag, status);
}

static int impl_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    progress_some();
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
    progress_some();
    return PMPI_Request_get_status(request, flag, status);
}

static int impl_Wait(MPI_Request *request, MPI_Status *status) {
    for (;;) {
        progress_some();
        if (!nactive) return PMPI_Wait(request, status);
        int flag = 0, rc = PMPI_Test(request, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
}

static int impl_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    for (;;) {
        progress_some();
        if (!nactive) return PMPI_Waitall(count, requests, statuses);
        int flag = 0, rc = PMPI_Testall(count, requests, &flag, statuses);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
}

static int impl_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    for (;;) {
        progress_some();
        if (!nactive) return PMPI_Waitany(count, requests, index, status);
        int flag = 0, rc = PMPI_Testany(count, requests, index, &flag, status);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
}

static int impl_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    for (;;) {
        progress_some();
        if (!nactive) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
        int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
        if (rc != MPI_SUCCESS || *outcount != 0) return rc;
    }
}

/* ---- persistent collectives ----
 * MPI_Allreduce_init (MPI-4; Open MPI 4.1: MPIX_Allreduce_init of
 * <mpi-ext.h>) and the others are decided at init by the blocking form's
 * rules; the algorithm's plan is recorded once (coll_init), its scratch
 * kept by the request. While inactive, the application holds a real
 * persistent request of the MPI library that does nothing (a receive from
 * MPI_PROC_NULL), so every call on an inactive persistent request behaves
 * as MPI says. MPI_Start puts a generalized request in its place (as the
 * I-forms), and the completion that frees it (MPI_Wait, a successful
 * MPI_Test ...) puts the inactive handle back. */
struct preq {
    MPI_Request handle;      /* the inactive handle */
    MPI_Request greq;        /* the active start's generalized request */
    int active;              /* started and its greq not yet completed by the application */
    coll_request *q;         /* the persistent collc request */
    collmpi_call m;          /* decided at init; prepared again at every start */
    collmpi_args a;          /* its displacements (a v-form's) are copies, dcopy */
    const collmpi_rule *r;
    int *dcopy[2];
    collmpi_vpad *vcopy;     /* a.vpad's copy (padded v-form) */
    nbreq start;             /* the state of its start (one at a time): no
                                allocation per MPI_Start */
};

/* The inactive handles: receives from MPI_PROC_NULL on MPI_COMM_SELF,
 * which do nothing when started. A freed persistent request's handle is
 * kept for the next init instead of being freed: with MPICH 4.0.2, an
 * MPI_Request_free of an inactive persistent point-to-point request makes
 * the next persistent collective of the MPI library (MPI_Allgatherv_init
 * + MPI_Start + MPI_Wait) hang, in a program without libcollmpi.so too. */
static MPI_Request *spares;
static size_t nspares, cap_spares;

static int inactive_handle(MPI_Request *h) {
    if (nspares) {
        *h = spares[--nspares];
        return MPI_SUCCESS;
    }
    return PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, h);
}

static int spare_handle(MPI_Request h) {
    if (collrt_grow((void **)&spares, &cap_spares, nspares + 1, sizeof *spares)) {
        spares[nspares++] = h;
        return MPI_SUCCESS;
    }
    return PMPI_Request_free(&h);
}

/* A copy of n displacements (NULL: none, or out of memory: *fail set). */
static int *copy_displs(const int *d, int n, int *fail) {
    if (!d) return NULL;
    int *c = malloc(sizeof *c * (size_t)n);
    if (c) memcpy(c, d, sizeof *c * (size_t)n);
    else *fail = 1;
    return c;
}

static void pers_free(preq *p) {
    if (!p) return;
    free(p->dcopy[0]);
    free(p->dcopy[1]);
    free(p->vcopy);
    free(p);
}

static preq **pers;          /* every persistent request not freed */
static size_t npers, cap_pers, npers_active;

static preq *pers_of(MPI_Request h, int active) {
    if (h == MPI_REQUEST_NULL) return NULL;
    for (size_t i = 0; i < npers; i++)
        if (active ? pers[i]->active && pers[i]->greq == h : pers[i]->handle == h) return pers[i];
    return NULL;
}

/* Inits the persistent form of a with collc if a rule serves it. */
static int try_collc_init(const collmpi_args *a, MPI_Request *request, int *code) {
    collmpi_call m;
    const coll_alg_info *info = NULL;
    const collmpi_rule *r = collmpi_pmpi_choose(a, COLLMPI_FORM_PERSISTENT, &m, &info);
    if (!r || !collmpi_v_serve(a, &m, r->fn, r->alg)) return 0;
    preq *p = calloc(1, sizeof *p);
    int rc = p && collrt_grow((void **)&pers, &cap_pers, npers + 1, sizeof *pers) ? COLL_OK
                                                                                 : COLL_ERR_NOMEM;
    int mpi_err = MPI_SUCCESS;
    const char *why = "";
    if (rc == COLL_OK) {
        p->m = m;
        p->a = *a;
        p->r = r;
        int fail = 0;
        p->a.sdispls = p->dcopy[0] = copy_displs(a->sdispls, m.nranks, &fail);
        p->a.rdispls = p->dcopy[1] = copy_displs(a->rdispls, m.nranks, &fail);
        if (a->vpad && !(p->a.vpad = p->vcopy = collmpi_vpad_copy(a->vpad, m.nranks))) fail = 1;
        if (fail) rc = COLL_ERR_NOMEM;
    }
    if (rc == COLL_OK) {
        collmpi_call prep = m;
        rc = collmpi_prepare(a, &prep, &why);
        collmpi_pmpi_log_served(a, &prep, r, prep.staged);
        coll_comm *cc = prep.cc;
        if (rc == COLL_OK && prep.nranks == 1) cc = collmpi_solo_comm();
        else if (rc == COLL_OK && !cc && coll_comm_from_mpi(a->comm, &cc) != COLL_OK) {
            rc = COLL_ERR_TRANSPORT;
            mpi_err = collmpi_from_mpi_error();
        }
        if (rc == COLL_OK && !cc) rc = COLL_ERR_NOMEM;
        if (rc == COLL_OK) {
            collmpi_comm_set_user_op(cc, prep.user_op, prep.uop, prep.udt);
            rc = collmpi_request(cc, info, r->fn, a->coll, &prep, 1, &p->q);
            collmpi_comm_set_user_op(cc, 0, MPI_OP_NULL, MPI_DATATYPE_NULL);
            p->m.cc = cc;
        }
        int e2;
        collmpi_unstage(&prep, COLL_ERR_INTERNAL, &e2);   /* frees, unpacks nothing */
        if (rc == COLL_OK) {
            int g = inactive_handle(&p->handle);
            if (g != MPI_SUCCESS) {
                rc = COLL_ERR_TRANSPORT;
                mpi_err = g;
            }
        }
    }
    if (rc != COLL_OK) {
        if (p) coll_request_free(p->q);
        pers_free(p);
        *request = MPI_REQUEST_NULL;
        *code = collmpi_end(a, &m, rc, mpi_err, r->alg, coll_strerror(rc), 1);
        return 1;
    }
    pers[npers++] = p;
    *request = p->handle;
    *code = MPI_SUCCESS;
    return 1;
}

/* MPI_Start of a persistent request of ours: prepares the buffers again
 * (packing staged input), starts the plan, hands out a generalized
 * request. */
static int pers_start_locked(preq *p, MPI_Request *request) {
    if (p->active) return MPI_ERR_REQUEST;   /* started twice (erroneous) */
    nbreq *nb = &p->start;
    memset(nb, 0, sizeof *nb);
    int rc = collrt_grow((void **)&active, &cap_active, nactive + 1, sizeof *active)
                 ? COLL_OK
                 : COLL_ERR_NOMEM;
    int mpi_err = MPI_SUCCESS;
    const char *why = "";
    if (rc == COLL_OK) {
        nb->m = p->m;
        nb->a = p->a;
        nb->r = p->r;
        nb->p = p;
        nb->q = p->q;
        rc = collmpi_prepare(&p->a, &nb->m, &why);
        if (rc == COLL_OK) rc = collrt_request_restart(p->q, nb->m.sendbuf, nb->m.recvbuf);
        if (rc != COLL_OK) rc = collmpi_unstage(&nb->m, rc, &mpi_err);
    }
    if (rc == COLL_OK) {
        int g = PMPI_Grequest_start(nb_query, nb_release, nb_cancel, nb, &nb->greq);
        if (g != MPI_SUCCESS) {
            coll_wait(p->q);
            collmpi_unstage(&nb->m, COLL_OK, &mpi_err);
            rc = COLL_ERR_TRANSPORT;
            mpi_err = g;
        }
    }
    if (rc != COLL_OK)
        return collmpi_end(&p->a, &p->m, rc, mpi_err, p->r->alg, coll_strerror(rc), 1);
    register_active(nb);
    p->greq = nb->greq;
    p->active = 1;
    npers_active++;
    *request = nb->greq;
    return MPI_SUCCESS;
}

static int pers_start(preq *p, MPI_Request *request) {
    pthread_mutex_lock(&reg_lock);
    int rc = pers_start_locked(p, request);
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

int MPI_Start(MPI_Request *request) {
    preq *p = npers && request ? pers_of(*request, 0) : NULL;
    return p ? pers_start(p, request) : PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request requests[]) {
    for (int i = 0; i < count; i++) {
        int rc = MPI_Start(&requests[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request) {
    preq *p = npers && request ? pers_of(*request, 1) : NULL;
    if (p) {   /* active: complete it first, then free it as inactive */
        MPI_Request g = *request;
        impl_Wait(&g, MPI_STATUS_IGNORE);
        p->active = 0;
        npers_active--;
        *request = p->handle;
    }
    p = npers && request ? pers_of(*request, 0) : NULL;
    if (!p) return PMPI_Request_free(request);
    for (size_t i = 0; i < npers; i++)
        if (pers[i] == p) pers[i] = pers[--npers];
    coll_request_free(p->q);
    int rc = spare_handle(p->handle);
    pers_free(p);
    *request = MPI_REQUEST_NULL;
    return rc;
}

/* Before a completion call: which entries are active persistent starts of
 * ours; after it: those the call completed (now MPI_REQUEST_NULL) get
 * their inactive handle back. */
enum { MARKS = 16 };
static preq **marks_before(MPI_Request *reqs, int n, preq **small) {
    if (!npers_active || n <= 0) return NULL;
    preq **mk = n <= MARKS ? small : malloc(sizeof *mk * (size_t)n);
    if (!mk) return NULL;
    for (int i = 0; i < n; i++) mk[i] = pers_of(reqs[i], 1);
    return mk;
}
static void marks_after(MPI_Request *reqs, int n, preq **mk, preq **small) {
    if (!mk) return;
    for (int i = 0; i < n; i++)
        if (mk[i] && reqs[i] == MPI_REQUEST_NULL) {
            reqs[i] = mk[i]->handle;
            mk[i]->active = 0;
            npers_active--;
        }
    if (mk != small) free(mk);
}

#define WITH_MARKS(reqs, n, call)                          \
    do {                                                   \
        preq *small_[MARKS];                               \
        preq **mk_ = marks_before((reqs), (n), small_);    \
        int rc_ = (call);                                  \
        marks_after((reqs), (n), mk_, small_);             \
        return rc_;                                        \
    } while (0)

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    WITH_MARKS(request, 1, impl_Test(request, flag, status));
}
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    WITH_MARKS(requests, count, impl_Testall(count, requests, flag, statuses));
}
int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    WITH_MARKS(requests, count, impl_Testany(count, requests, index, flag, status));
}
int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    WITH_MARKS(requests, incount, impl_Testsome(incount, requests, outcount, indices, statuses));
}
int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    WITH_MARKS(request, 1, impl_Wait(request, status));
}
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    WITH_MARKS(requests, count, impl_Waitall(count, requests, statuses));
}
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    WITH_MARKS(requests, count, impl_Waitany(count, requests, index, status));
}
int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    WITH_MARKS(requests, incount, impl_Waitsome(incount, requests, outcount, indices, statuses));
}

/* The persistent inits: MPI-4's names, or Open MPI 4.1's MPIX_ ones. */
#if MPI_VERSION >= 4
#define PINIT(name) MPI_##name##_init
#define PPINIT(name) PMPI_##name##_init
#define COLLMPI_PERSISTENT 1
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PINIT(name) MPIX_##name##_init
#define PPINIT(name) PMPIX_##name##_init
#define COLLMPI_PERSISTENT 1
#endif

#ifdef COLLMPI_PERSISTENT
int PINIT(Allreduce)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    collmpi_args a = {COLL_ALLREDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, 0,
                      comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc_init(&a, request, &code)) return code;
    return PPINIT(Allreduce)(sendbuf, recvbuf, count, dt, op, comm, info, request);
}

int PINIT(Reduce)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                  int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    collmpi_args a = {COLL_REDUCE, sendbuf, recvbuf, count, 0, dt, MPI_DATATYPE_NULL, op, root,
                      comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc_init(&a, request, &code)) return code;
    return PPINIT(Reduce)(sendbuf, recvbuf, count, dt, op, root, comm, info, request);
}

int PINIT(Reduce_scatter_block)(const void *sendbuf, void *recvbuf, int recvcount,
                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request) {
    collmpi_args a = {COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, 0, dt, MPI_DATATYPE_NULL,
                      op, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc_init(&a, request, &code)) return code;
    return PPINIT(Reduce_scatter_block)(sendbuf, recvbuf, recvcount, dt, op, comm, info, request);
}

int PINIT(Bcast)(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Info info,
                 MPI_Request *request) {
    collmpi_args a = {COLL_BROADCAST, buffer, buffer, count, 0, dt, MPI_DATATYPE_NULL, MPI_OP_NULL,
                      root, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc_init(&a, request, &code)) return code;
    return PPINIT(Bcast)(buffer, count, dt, root, comm, info, request);
}

int PINIT(Allgather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request) {
    collmpi_args a = {COLL_ALLGATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc_init(&a, request, &code)) return code;
    return PPINIT(Allgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                             request);
}

int PINIT(Alltoall)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request) {
    collmpi_args a = {COLL_ALLTOALL, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, 0, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc_init(&a, request, &code)) return code;
    return PPINIT(Alltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                            request);
}

int PINIT(Gather)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                  MPI_Request *request) {
    collmpi_args a = {COLL_GATHER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc_init(&a, request, &code)) return code;
    return PPINIT(Gather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                          info, request);
}

int PINIT(Scatter)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *request) {
    collmpi_args a = {COLL_SCATTER, sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype,
                      MPI_OP_NULL, root, comm, 0, NULL, NULL, NULL};
    int code;
    if (try_collc_init(&a, request, &code)) return code;
    return PPINIT(Scatter)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                           info, request);
}

/* The v-forms' persistent inits (the ranks agree on the counts at init). */
int PINIT(Allgatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_allgatherv(&v, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype, comm, COLLMPI_FORM_PERSISTENT) &&
        try_collc_init(&v.a, request, &code))
        return code;
    return PPINIT(Allgatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              comm, info, request);
}

int PINIT(Gatherv)(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_gatherv(&v, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          root, comm, COLLMPI_FORM_PERSISTENT, COLLMPI_V_AGREE) &&
        try_collc_init(&v.a, request, &code))
        return code;
    return PPINIT(Gatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           root, comm, info, request);
}

int PINIT(Scatterv)(const void *sendbuf, const int sendcounts[], const int displs[],
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_scatterv(&v, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm, COLLMPI_FORM_PERSISTENT, COLLMPI_V_AGREE) &&
        try_collc_init(&v.a, request, &code))
        return code;
    return PPINIT(Scatterv)(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                            root, comm, info, request);
}

int PINIT(Alltoallv)(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_alltoallv(&v, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm, COLLMPI_FORM_PERSISTENT, COLLMPI_V_AGREE) &&
        try_collc_init(&v.a, request, &code))
        return code;
    return PPINIT(Alltoallv)(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                             recvtype, comm, info, request);
}

int PINIT(Reduce_scatter)(const void *sendbuf, void *recvbuf, const int recvcounts[],
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request) {
    collmpi_vcall v;
    int code;
    if (collmpi_v_reduce_scatter(&v, sendbuf, recvbuf, recvcounts, dt, op, comm,
                                 COLLMPI_FORM_PERSISTENT) &&
        try_collc_init(&v.a, request, &code))
        return code;
    return PPINIT(Reduce_scatter)(sendbuf, recvbuf, recvcounts, dt, op, comm, info, request);
}
#endif
