/* mpich_json.c - `collc tune --emit=mpich-json`: an MPICH 4.0 collective
 * selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), the JSON tree
 * that src/mpi/coll/src/csel.c reads (docs/cluster.md section 6). The file
 * replaces MPICH's whole tree, so it names an algorithm for every
 * collective of MPICH: the model's fastest per size where the input has
 * models of MPICH's algorithms, on intracommunicators of the job's N (and,
 * with a cluster machine, of its ranks per node: comm_avg_ppn);
 * everywhere else one that works for every call (mpich_json.def). */
#include "driver/tune.h"
#include "support/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
    NONE = 0,
    COMMUTATIVE = 1 << 0,
    BUILTIN_POF2 = 1 << 1,
    NOINPLACE = 1 << 2,
    POW2 = 1 << 3,
    NPOW2 = 1 << 4,
};

typedef struct MpichColl {
    const char *name, *inplace, *intra, *inter;
} MpichColl;
static const MpichColl mpich_colls[] = {
#define MPICH_COLL(name, inplace, intra, inter) {#name, inplace, intra, inter},
#define MPICH_TUNED(c, name, size)
#define MPICH_ALG(c, alg, restrict, model)
#include "driver/mpich_json.def"
#undef MPICH_COLL
#undef MPICH_TUNED
#undef MPICH_ALG
};

typedef struct MpichTuned {
    Collective coll;
    const char *name, *size;
} MpichTuned;
static const MpichTuned mpich_tuned[] = {
#define MPICH_COLL(name, inplace, intra, inter)
#define MPICH_TUNED(c, name, size) {COLLECTIVE_##c, #name, size},
#define MPICH_ALG(c, alg, restrict, model)
#include "driver/mpich_json.def"
#undef MPICH_COLL
#undef MPICH_TUNED
#undef MPICH_ALG
};

typedef struct MpichAlg {
    Collective coll;
    const char *name;
    int restrictions;
    const char *model;
} MpichAlg;
static const MpichAlg mpich_algs[] = {
#define MPICH_COLL(name, inplace, intra, inter)
#define MPICH_TUNED(c, name, size)
#define MPICH_ALG(c, alg, restrict, model) {COLLECTIVE_##c, alg, restrict, model},
#include "driver/mpich_json.def"
#undef MPICH_COLL
#undef MPICH_TUNED
#undef MPICH_ALG
};

static int is_pow2(int64_t N) { return N > 0 && (N & (N - 1)) == 0; }

static const MpichAlg *mpich_alg_entry(const Algorithm *a, int64_t N) {
    for (size_t k = 0; k < ARRAY_LEN(mpich_algs); k++) {
        const MpichAlg *m = &mpich_algs[k];
        if (m->coll != a->coll || strcmp(m->model, a->name) != 0) continue;
        if ((m->restrictions & POW2) && !is_pow2(N)) continue;
        if ((m->restrictions & NPOW2) && is_pow2(N)) continue;
        return m;
    }
    return NULL;
}

const char *mpich_alg_of(const Algorithm *a, int64_t N) {
    const MpichAlg *m = mpich_alg_entry(a, N);
    return m ? m->name : NULL;
}

static const MpichTuned *tuned_of(const char *name) {
    for (size_t k = 0; k < ARRAY_LEN(mpich_tuned); k++)
        if (strcmp(mpich_tuned[k].name, name) == 0) return &mpich_tuned[k];
    return NULL;
}

/* The JSON writer: one key a line, indented by depth. */
typedef struct Json {
    FILE *f;
    int depth;
} Json;

/* `"key": {` at the start of an object's member (a comma before it unless
 * first), or `"key": {}` for an algorithm (a leaf). */
static void json_open(Json *j, int first, const char *key) {
    fprintf(j->f, "%s\n%*s\"%s\": {", first ? "" : ",", 2 * j->depth, "", key);
    j->depth++;
}
static void json_close(Json *j) {
    j->depth--;
    fprintf(j->f, "\n%*s}", 2 * j->depth, "");
}
static void json_alg(Json *j, int first, const char *alg) {
    fprintf(j->f, "%s\n%*s\"algorithm=%s\": {}", first ? "" : ",", 2 * j->depth, "", alg);
}

/* The members of an object that send an intracommunicator's call to
 * collective c's algorithm for every call. */
static void general_intra(Json *j, const MpichColl *c) {
    if (!c->inplace) {
        json_alg(j, 1, c->intra);
        return;
    }
    json_open(j, 1, "is_sendbuf_inplace=yes");
    json_alg(j, 1, c->inplace);
    json_close(j);
    json_open(j, 0, "is_sendbuf_inplace=no");
    json_alg(j, 1, c->intra);
    json_close(j);
}

/* The members of an object that run m where the call meets its
 * restrictions, c's general algorithm elsewhere. */
static void guarded(Json *j, const MpichColl *c, const MpichAlg *m) {
    const char *yes = NULL, *no = NULL;
    if (m->restrictions & COMMUTATIVE) yes = "is_commutative=yes", no = "is_commutative=no";
    if (m->restrictions & NOINPLACE) yes = "is_sendbuf_inplace=no", no = "is_sendbuf_inplace=yes";
    if (m->restrictions & BUILTIN_POF2) yes = "is_op_built_in=yes", no = "is_op_built_in=no";
    if (!yes) {
        json_alg(j, 1, m->name);
        return;
    }
    json_open(j, 1, yes);
    if (m->restrictions & BUILTIN_POF2) {
        /* csel.c: count < pof2, the largest power of two <= N */
        json_open(j, 1, "count<pow2");
        general_intra(j, c);
        json_close(j);
        json_open(j, 0, "count=any");
        json_alg(j, 1, m->name);
        json_close(j);
    } else {
        json_alg(j, 1, m->name);
    }
    json_close(j);
    json_open(j, 0, no);
    /* MPI_IN_PLACE: the in-place algorithm itself */
    json_alg(j, 1, (m->restrictions & NOINPLACE) && c->inplace ? c->inplace : c->intra);
    json_close(j);
}

/* The comm_size=N member of collective c: the envelope's algorithms by
 * size (csel.c reads the bound with atoi: sizes from 2^31 up are the last
 * segment's). */
static void tuned_intra(Json *j, const MpichColl *c, const MpichTuned *t, const CompareLine *sub, int nseg,
                        const int *seg_alg, const double *seg_lo, int64_t N) {
    int first = 1;
    for (int k = 0; k < nseg; k++) {
        unsigned long long b = k + 1 < nseg ? tune_bound(seg_lo[k + 1]) : 0;
        const MpichAlg *m = mpich_alg_entry(sub[seg_alg[k]].alg, N);
        if (nseg == 1) {
            guarded(j, c, m);
            return;
        }
        int last = k + 1 == nseg || b > (unsigned long long)INT_MAX;
        if (!last && k > 0 && b <= tune_bound(seg_lo[k])) continue; /* a crossover within one byte */
        char key[64];
        if (last) snprintf(key, sizeof key, "%s=any", t->size);
        else snprintf(key, sizeof key, "%s<%llu", t->size, b);
        json_open(j, first, key);
        guarded(j, c, m);
        json_close(j);
        first = 0;
        if (last) return;
    }
}

/* The comm_size=N member, on a job of ppn ranks per node (0: any shape):
 * the envelope's algorithms for communicators whose ranks per node, on
 * average, are ppn, the general algorithm for other shapes. csel.c takes
 * comm_avg_ppn<=P for local_size <= P·node_count, so within N ranks
 * "<= ppn-1" then "<= ppn" leaves exactly the averages in (ppn-1, ppn]; a
 * comm_avg_ppn<= needs a member after it (validate_tree), comm_size=any. */
static void tuned_shape(Json *j, const MpichColl *c, const CompareLine *sub, int nseg, const int *seg_alg,
                        const double *seg_lo, int64_t N, int64_t ppn) {
    const MpichTuned *t = tuned_of(c->name);
    if (!ppn) {
        tuned_intra(j, c, t, sub, nseg, seg_alg, seg_lo, N);
        return;
    }
    char key[64];
    if (ppn > 1) {
        snprintf(key, sizeof key, "comm_avg_ppn<=%lld", (long long)ppn - 1);
        json_open(j, 1, key);
        general_intra(j, c);
        json_close(j);
    }
    snprintf(key, sizeof key, "comm_avg_ppn<=%lld", (long long)ppn);
    json_open(j, ppn == 1, key);
    tuned_intra(j, c, t, sub, nseg, seg_alg, seg_lo, N);
    json_close(j);
    json_open(j, 0, "comm_size=any");
    general_intra(j, c);
    json_close(j);
}

/* The tree of one MPICH collective. */
static void collective_tree(Json *j, int first, const MpichColl *c, const CompareLine *sub, int nseg,
                            const int *seg_alg, const double *seg_lo, int64_t N, int64_t ppn) {
    char key[64];
    snprintf(key, sizeof key, "collective=%s", c->name);
    json_open(j, first, key);
    if (!c->inter) {
        json_alg(j, 1, c->intra);
        json_close(j);
        return;
    }
    json_open(j, 1, "comm_type=intra");
    if (nseg) {
        /* comm_size<= only: csel.c's search reads comm_size<N as <= N */
        int lower = N > 1;
        if (lower) {
            snprintf(key, sizeof key, "comm_size<=%lld", (long long)N - 1);
            json_open(j, 1, key);
            general_intra(j, c);
            json_close(j);
        }
        snprintf(key, sizeof key, "comm_size<=%lld", (long long)N);
        json_open(j, !lower, key);
        tuned_shape(j, c, sub, nseg, seg_alg, seg_lo, N, ppn);
        json_close(j);
        json_open(j, 0, "comm_size=any");
        general_intra(j, c);
        json_close(j);
    } else {
        general_intra(j, c);
    }
    json_close(j);
    json_open(j, 0, "comm_type=inter");
    json_alg(j, 1, c->inter);
    json_close(j);
    json_close(j);
}

Status write_mpich_json(Cmd *cmd, TuneCli *tc, CompareLine *lines, int nl, FILE *f) {
    const CostCli *c = &tc->c;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) COLLC_UNREACHABLE("open_memstream");
    Json j = {mem, 1};
    CompareLine *sub = xcalloc((size_t)nl, sizeof *sub);
    fputc('{', mem);
    for (size_t k = 0; k < ARRAY_LEN(mpich_colls); k++) {
        const MpichColl *mc = &mpich_colls[k];
        int seg_alg[COMPARE_MAX_SEGMENTS], nseg = 0, one;
        double seg_lo[COMPARE_MAX_SEGMENTS];
        for (size_t t = 0; t < ARRAY_LEN(mpich_tuned); t++)
            if (strcmp(mpich_tuned[t].name, mc->name) == 0)
                nseg = collective_envelope(c, lines, nl, mpich_tuned[t].coll, sub, seg_alg, seg_lo, &one);
        collective_tree(&j, k == 0, mc, sub, nseg, seg_alg, seg_lo, cmd->N, tc->ppn);
    }
    fputs("\n}\n", mem);
    fclose(mem);
    fputs(text, f);
    /* MPICH maps the file and parses the mapping as a string: one whose
     * size is a multiple of the page size would have no NUL behind it */
    if (len % 4096 == 0) fputc('\n', f);
    free(text);
    free(sub);
    return EXIT_GO_ON;
}
