/* test_generated.c - what generated objects tell the runtime. Every example
 * is compiled by both backends (c_NAME from --emit=c, llvm_NAME from the
 * LLVM object) and linked against the stand-in runtime below instead of a
 * real one: its coll_begin records its arguments and refuses the call, so
 * each algorithm returns at once. The coll_alg_info it received must name
 * coll.h's COLL_<ID> of the example's collective (algs.h, from the
 * collective table via CMake), COLL_ABI_VERSION and the algorithm, and the
 * call's arguments - the root of rooted collectives - must arrive intact.
 * Each NAME_start (NAME_init) must hand coll_start (coll_init) the same
 * coll_alg_info, NAME itself and the caller's arguments (and request
 * pointer) unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <coll.h>

/* ---- the stand-in runtime ---- */

enum { REFUSED = 1000 }; /* no coll_status has this value */

static struct {
    int calls;
    const coll_alg_info *info;
    coll_comm *comm;
    const void *sendbuf;
    void *recvbuf;
    size_t count;
    coll_dtype dtype;
    coll_op op;
    int root;
} seen;

int coll_begin(coll_comm *comm, const coll_alg_info *info, const void *sendbuf, void *recvbuf,
               size_t count, coll_dtype dtype, coll_op op, int root, coll_call **call) {
    seen.calls++;
    seen.info = info;
    seen.comm = comm;
    seen.sendbuf = sendbuf;
    seen.recvbuf = recvbuf;
    seen.count = count;
    seen.dtype = dtype;
    seen.op = op;
    seen.root = root;
    *call = NULL;
    return REFUSED;
}

enum { STARTED = 1001, INITED = 1002 };

static struct {
    int calls, inits;
    coll_comm *comm;
    const coll_alg_info *info;
    void (*fn)(void);
    const void *sendbuf;
    void *recvbuf;
    size_t count;
    coll_dtype dtype;
    coll_op op;
    int root;
    coll_request **req;
} started;

int coll_start(coll_comm *comm, const coll_alg_info *info, void (*fn)(void), const void *sendbuf,
               void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
               coll_request **req) {
    started.calls++;
    started.comm = comm;
    started.info = info;
    started.fn = fn;
    started.sendbuf = sendbuf;
    started.recvbuf = recvbuf;
    started.count = count;
    started.dtype = dtype;
    started.op = op;
    started.root = root;
    started.req = req;
    return STARTED;
}

int coll_init(coll_comm *comm, const coll_alg_info *info, void (*fn)(void), const void *sendbuf,
              void *recvbuf, size_t count, coll_dtype dtype, coll_op op, int root,
              coll_request **req) {
    coll_start(comm, info, fn, sendbuf, recvbuf, count, dtype, op, root, req);
    started.calls--;
    started.inits++;
    return INITED;
}

/* Never reached: a program returns as soon as coll_begin fails. */
static _Noreturn void unreachable(const char *fn) {
    fprintf(stderr, "abi.generated: %s called after a failed coll_begin\n", fn);
    abort();
}
int coll_setup(coll_call *c, int64_t split, int nscratch, const int64_t *chunks) {
    (void)c, (void)split, (void)nscratch, (void)chunks;
    unreachable("coll_setup");
}
void coll_send(coll_call *c, int64_t peer, int buf, int64_t lo, int64_t hi) {
    (void)c, (void)peer, (void)buf, (void)lo, (void)hi;
    unreachable("coll_send");
}
void coll_recv(coll_call *c, int64_t peer, int buf, int64_t lo, int64_t hi) {
    (void)c, (void)peer, (void)buf, (void)lo, (void)hi;
    unreachable("coll_recv");
}
void coll_recv_reduce(coll_call *c, int64_t peer, int buf, int64_t lo, int64_t hi) {
    (void)c, (void)peer, (void)buf, (void)lo, (void)hi;
    unreachable("coll_recv_reduce");
}
void coll_recv_reduce_copy(coll_call *c, int64_t peer, int sb, int64_t slo, int db, int64_t dlo,
                           int64_t n) {
    (void)c, (void)peer, (void)sb, (void)slo, (void)db, (void)dlo, (void)n;
    unreachable("coll_recv_reduce_copy");
}
void coll_copy(coll_call *c, int sb, int64_t slo, int db, int64_t dlo, int64_t n) {
    (void)c, (void)sb, (void)slo, (void)db, (void)dlo, (void)n;
    unreachable("coll_copy");
}
void coll_reduce(coll_call *c, int sb, int64_t slo, int db, int64_t dlo, int64_t n) {
    (void)c, (void)sb, (void)slo, (void)db, (void)dlo, (void)n;
    unreachable("coll_reduce");
}
int coll_step_end(coll_call *c) {
    (void)c;
    unreachable("coll_step_end");
}
int coll_finish(coll_call *c, int status) {
    (void)c, (void)status;
    unreachable("coll_finish");
}
int coll_comm_size(const coll_comm *c) {
    (void)c;
    unreachable("coll_comm_size");
}
int coll_comm_rank(const coll_comm *c) {
    (void)c;
    unreachable("coll_comm_rank");
}

/* ---- the generated programs ---- */

typedef int (*Fn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
typedef int (*RootedFn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);
#define DECL_0(f) int f(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op);
#define DECL_1(f) int f(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int);
#define ALG(name, id, rooted) DECL_##rooted(c_##name) DECL_##rooted(llvm_##name)
#include "algs.h"
#undef ALG
typedef int (*StartFn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op,
                       coll_request **);
typedef int (*RootedStartFn)(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, int,
                             coll_request **);
#define SDECL_0(f) int f##_start(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, \
                                 coll_request **);
#define SDECL_1(f) int f##_start(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, \
                                 int, coll_request **);
#define IDECL_0(f) int f##_init(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, \
                                coll_request **);
#define IDECL_1(f) int f##_init(coll_comm *, const void *, void *, size_t, coll_dtype, coll_op, \
                                int, coll_request **);
#define ALG(name, id, rooted) SDECL_##rooted(c_##name) SDECL_##rooted(llvm_##name) \
    IDECL_##rooted(c_##name) IDECL_##rooted(llvm_##name)
#include "algs.h"
#undef ALG

static const struct Alg {
    const char *name;
    coll_collective coll;
    int rooted;
    void (*c)(void), (*llvm)(void);
    void (*c_start)(void), (*llvm_start)(void), (*c_init)(void), (*llvm_init)(void);
} algs[] = {
#define ALG(name, id, rooted) {#name, COLL_##id, rooted, (void (*)(void))c_##name, \
    (void (*)(void))llvm_##name, (void (*)(void))c_##name##_start, (void (*)(void))llvm_##name##_start, \
    (void (*)(void))c_##name##_init, (void (*)(void))llvm_##name##_init},
#include "algs.h"
#undef ALG
};

static int failures;

static void check(const struct Alg *a, const char *backend, void (*fn)(void)) {
    static char sendbuf[8], recvbuf[8];
    coll_comm *comm = (coll_comm *)(void *)&seen; /* any non-NULL address */
    const int root = 3;
    memset(&seen, 0, sizeof seen);
    int rc = a->rooted ? ((RootedFn)fn)(comm, sendbuf, recvbuf, 12345, COLL_BF16, COLL_MAX, root)
                       : ((Fn)fn)(comm, sendbuf, recvbuf, 12345, COLL_BF16, COLL_MAX);
    const coll_alg_info *info = seen.info;
    const char *what = NULL;
    if (rc != REFUSED || seen.calls != 1 || !info) what = "does not return coll_begin's status";
    else if (info->abi_version != COLL_ABI_VERSION) what = "abi_version is not COLL_ABI_VERSION";
    else if (info->collective != a->coll) what = "collective is not COLL_<ID> of its collective";
    else if (!info->name || strcmp(info->name, a->name) != 0) what = "name is not the algorithm's";
    else if (!(info->flags & COLL_ALG_CHUNK_CALLS_ONLY) ||
             (info->flags & ~(COLL_ALG_CHUNK_CALLS_ONLY | COLL_ALG_INPLACE_SAFE | COLL_ALG_VBLOCKS)))
        what = "flags are not COLL_ALG_CHUNK_CALLS_ONLY [| COLL_ALG_INPLACE_SAFE] [| COLL_ALG_VBLOCKS]";
    else if (seen.comm != comm || seen.sendbuf != sendbuf || seen.recvbuf != recvbuf ||
             seen.count != 12345 || seen.dtype != COLL_BF16 || seen.op != COLL_MAX)
        what = "arguments do not reach coll_begin";
    else if (seen.root != (a->rooted ? root : 0))
        what = "root is not the caller's (rooted) or 0 (unrooted)";
    if (what) {
        printf("FAIL %s (%s): %s (collective %d, want %d)\n", a->name, backend, what,
               info ? (int)info->collective : -1, (int)a->coll);
        failures++;
    }
}

/* NAME_start passes everything to coll_start (NAME_init to coll_init),
 * with NAME's own info. */
static void check_start(const struct Alg *a, const char *backend, void (*fn)(void),
                        void (*start)(void), int init) {
    static char sendbuf[8], recvbuf[8];
    coll_comm *comm = (coll_comm *)(void *)&started;
    coll_request *r;
    const int root = 5;
    memset(&seen, 0, sizeof seen);
    if (a->rooted) ((RootedFn)fn)(comm, sendbuf, recvbuf, 777, COLL_F16, COLL_MIN, root);
    else ((Fn)fn)(comm, sendbuf, recvbuf, 777, COLL_F16, COLL_MIN);
    memset(&started, 0, sizeof started);
    int rc = a->rooted
                 ? ((RootedStartFn)start)(comm, sendbuf, recvbuf, 777, COLL_F16, COLL_MIN, root, &r)
                 : ((StartFn)start)(comm, sendbuf, recvbuf, 777, COLL_F16, COLL_MIN, &r);
    const char *what = NULL;
    if (rc != (init ? INITED : STARTED) || started.calls != !init || started.inits != init)
        what = init ? "does not return coll_init's status" : "does not return coll_start's status";
    else if (started.info != seen.info) what = "passes another coll_alg_info than NAME's";
    else if (started.fn != fn) what = "does not pass NAME itself";
    else if (started.comm != comm || started.sendbuf != sendbuf || started.recvbuf != recvbuf ||
             started.count != 777 || started.dtype != COLL_F16 || started.op != COLL_MIN ||
             started.req != &r)
        what = "arguments do not reach coll_start";
    else if (started.root != (a->rooted ? root : 0))
        what = "root is not the caller's (rooted) or 0 (unrooted)";
    if (what) {
        printf("FAIL %s_%s (%s): %s\n", a->name, init ? "init" : "start", backend, what);
        failures++;
    }
}

int main(void) {
    int n = (int)(sizeof algs / sizeof *algs);
    for (int i = 0; i < n; i++) {
        check(&algs[i], "C", algs[i].c);
        check(&algs[i], "LLVM", algs[i].llvm);
        check_start(&algs[i], "C", algs[i].c, algs[i].c_start, 0);
        check_start(&algs[i], "LLVM", algs[i].llvm, algs[i].llvm_start, 0);
        check_start(&algs[i], "C", algs[i].c, algs[i].c_init, 1);
        check_start(&algs[i], "LLVM", algs[i].llvm, algs[i].llvm_init, 1);
    }
    if (failures) {
        printf("abi.generated: %d of %d checks wrong\n", failures, 6 * n);
        return 1;
    }
    printf("abi.generated: %d programs and their _start and _init forms OK\n", 2 * n);
    return 0;
}
