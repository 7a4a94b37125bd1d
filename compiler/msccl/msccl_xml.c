/* msccl_xml.c - reads an MSCCL-IR file with expat into an MsAlgo and holds
 * it to the rules of the executor's parser (msccl-executor-nccl
 * src/misc/msccl/msccl_parser.cc, mscclGetAlgoFromXmlFile): the attributes
 * it requires, the values it accepts, the ids it wants dense, the limits of
 * msccl_struct.h. What the executor refuses is an error here; what it
 * accepts but cannot mean (an offset past the end of a buffer) too. */
#include <errno.h>
#include <expat.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "msccl/msccl.h"
#include "support/util.h"

const MsTypeInfo ms_type_info[MS__COUNT] = {
#define X(id, name, recv, send, src, dst, reduce) {name, recv, send, src, dst, reduce},
#include "msccl/msccl_steps.def"
};
const char ms_buf_name[MS_BUF__COUNT] = {'i', 'o', 's'};

/* The collectives of <algo coll=...>, the parser's list; collc's collective
 * for it, or COLLECTIVE__COUNT when collc has none. */
static const struct { const char *name; Collective coll; } ms_colls[] = {
    {"reduce", COLLECTIVE_REDUCE},
    {"broadcast", COLLECTIVE_BROADCAST},
    {"allreduce", COLLECTIVE_ALLREDUCE},
    {"reducescatter", COLLECTIVE_REDUCE_SCATTER},
    {"allgather", COLLECTIVE_ALLGATHER},
    {"send", COLLECTIVE__COUNT},
    {"recv", COLLECTIVE__COUNT},
    {"gather", COLLECTIVE__COUNT},
    {"scatter", COLLECTIVE__COUNT},
    {"alltoall", COLLECTIVE_ALLTOALL},
    {"alltoallv", COLLECTIVE__COUNT},
};

typedef struct Vec { void *p; int n, cap; } Vec;

static void *vec_push(Vec *v, size_t size) {
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8;
        v->p = xrealloc(v->p, size * (size_t)v->cap);
    }
    char *e = (char *)v->p + size * (size_t)v->n++;
    memset(e, 0, size);
    return e;
}

typedef struct XGpu { MsGpu g; Vec tbs; } XGpu;
typedef struct XTb { MsTb t; Vec steps; } XTb;

typedef struct XState {
    Arena *arena;
    DiagEngine *dx;
    XML_Parser p;
    uint32_t file;
    const char *text;
    size_t len;
    int depth;       /* of the current element: 1 = the root */
    int in_algo, in_gpu, in_tb; /* depth of the open <algo>, <gpu>, <tb> (0: none) */
    int algos;       /* <algo> elements seen */
    int header_only; /* stop after the attributes of <algo> */
    MsAlgo *a;
    Vec gpus;        /* XGpu */
    int errors;
} XState;

/* The span of the element whose start tag is being handled. */
static Span tag_span(XState *x) {
    Span s;
    s.file = x->file;
    s.lo = (uint32_t)XML_GetCurrentByteIndex(x->p);
    s.hi = s.lo + (uint32_t)XML_GetCurrentByteCount(x->p);
    if (s.hi > x->len) s.hi = (uint32_t)x->len;
    return s;
}

/* The span of attribute `name` inside the start tag at `tag`: expat does not
 * say where an attribute is, so it is found in the tag's text. */
static Span attr_span(const XState *x, Span tag, const char *name) {
    size_t n = strlen(name);
    for (uint32_t i = tag.lo + 1; i + n < tag.hi; i++) {
        if (memcmp(x->text + i, name, n) != 0) continue;
        char before = x->text[i - 1], after = x->text[i + n];
        if ((before == ' ' || before == '\t' || before == '\n' || before == '\r') &&
            (after == '=' || after == ' ' || after == '\t')) {
            Span s = {x->file, i, i + (uint32_t)n};
            uint32_t j = i + (uint32_t)n;
            while (j < tag.hi && x->text[j] != '"' && x->text[j] != '\'') j++;
            if (j < tag.hi) {
                char q = x->text[j++];
                while (j < tag.hi && x->text[j] != q) j++;
                s.hi = j < tag.hi ? j + 1 : j;
            }
            return s;
        }
    }
    return tag;
}

static const char *attr(const char **atts, const char *name) {
    for (int i = 0; atts[i]; i += 2)
        if (strcmp(atts[i], name) == 0) return atts[i + 1];
    return NULL;
}

/* A required attribute (mscclXmlGetAttr*: the executor refuses the file
 * without it). NULL after an error. */
static const char *need(XState *x, const char **atts, const char *elem, Span tag, const char *name) {
    const char *v = attr(atts, name);
    if (!v) {
        diag_error(x->dx, tag, "msccl-missing-attribute",
                   "<%s> has no attribute '%s', which the executor requires", elem, name);
        x->errors++;
    }
    return v;
}

static int parse_i64(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno) return -1;
    *out = v;
    return 0;
}

/* A required integer attribute into *out; -1 after an error. */
static int need_int(XState *x, const char **atts, const char *elem, Span tag, const char *name,
                    int64_t lo, int64_t hi, int64_t *out) {
    const char *v = need(x, atts, elem, tag, name);
    if (!v) return -1;
    int64_t n;
    if (parse_i64(v, &n)) {
        diag_error(x->dx, attr_span(x, tag, name), "msccl-bad-attribute",
                   "'%s' of <%s> is '%s', not an integer", name, elem, v);
        x->errors++;
        return -1;
    }
    if (n < lo || n > hi) {
        diag_error(x->dx, attr_span(x, tag, name), "msccl-bad-attribute",
                   "'%s' of <%s> is %" PRId64 "; it must be in %" PRId64 " .. %" PRId64, name, elem,
                   n, lo, hi);
        x->errors++;
        return -1;
    }
    *out = n;
    return 0;
}

#define NEED_INT(field, elem, name, lo, hi)                                          \
    do {                                                                             \
        int64_t v_;                                                                  \
        if (need_int(x, atts, elem, tag, name, lo, hi, &v_) == 0) (field) = (int)v_; \
    } while (0)

static void start_algo(XState *x, const char **atts, Span tag) {
    MsAlgo *a = x->a;
    a->span = tag;
    a->file = x->file;
    const char *name = attr(atts, "name");
    a->name = name ? arena_strdup(x->arena, name) : NULL;
    NEED_INT(a->nchunksperloop, "algo", "nchunksperloop", 1, INT32_MAX);
    NEED_INT(a->nchannels, "algo", "nchannels", 1, MS_MAXCHANNELS);
    NEED_INT(a->ngpus, "algo", "ngpus", 1, 1 << 20);
    a->ngpus_span = attr_span(x, tag, "ngpus");
    const char *proto = need(x, atts, "algo", tag, "proto");
    if (proto) {
        if (strcmp(proto, "Simple") && strcmp(proto, "LL") && strcmp(proto, "LL128")) {
            Span ps = attr_span(x, tag, "proto");
            diag_error(x->dx, ps, "msccl-bad-attribute",
                       "protocol '%s' is not one of Simple, LL, LL128", proto);
            x->errors++;
        }
        a->proto = arena_strdup(x->arena, proto);
    }
    const char *coll = need(x, atts, "algo", tag, "coll");
    a->collective = COLLECTIVE__COUNT;
    a->coll_span = attr_span(x, tag, "coll");
    if (coll) {
        size_t k = 0;
        while (k < ARRAY_LEN(ms_colls) && strcmp(ms_colls[k].name, coll)) k++;
        if (k == ARRAY_LEN(ms_colls)) {
            diag_error(x->dx, a->coll_span, "msccl-bad-attribute",
                       "'%s' is not a collective the executor knows", coll);
            x->errors++;
        } else if (ms_colls[k].coll == COLLECTIVE__COUNT) {
            diag_error(x->dx, a->coll_span, "msccl-unsupported-collective",
                       "collc does not read MSCCL '%s' algorithms (it reads allreduce, allgather, "
                       "reducescatter, alltoall, broadcast and reduce)", coll);
            x->errors++;
        } else {
            a->collective = ms_colls[k].coll;
        }
        a->coll = arena_strdup(x->arena, coll);
    }
    int64_t v;
    if (need_int(x, atts, "algo", tag, "minBytes", 0, INT64_MAX, &v) == 0) a->min_bytes = v;
    if (need_int(x, atts, "algo", tag, "maxBytes", 0, INT64_MAX, &v) == 0) a->max_bytes = v;
    NEED_INT(a->inplace, "algo", "inplace", 0, 1);
    NEED_INT(a->outofplace, "algo", "outofplace", 0, 1);
}

static void start_gpu(XState *x, const char **atts, Span tag) {
    XGpu *g = vec_push(&x->gpus, sizeof(XGpu));
    g->g.span = tag;
    g->g.id = -1;
    NEED_INT(g->g.id, "gpu", "id", 0, INT32_MAX);
    NEED_INT(g->g.i_chunks, "gpu", "i_chunks", 0, INT32_MAX);
    NEED_INT(g->g.o_chunks, "gpu", "o_chunks", 0, INT32_MAX);
    NEED_INT(g->g.s_chunks, "gpu", "s_chunks", 0, INT32_MAX);
}

static void start_tb(XState *x, const char **atts, Span tag) {
    XGpu *g = (XGpu *)x->gpus.p + x->gpus.n - 1;
    XTb *t = vec_push(&g->tbs, sizeof(XTb));
    t->t.span = tag;
    t->t.id = -1;
    t->t.send = t->t.recv = -1;
    NEED_INT(t->t.id, "tb", "id", 0, MS_MAX_TB - 1);
    NEED_INT(t->t.recv, "tb", "recv", -1, INT32_MAX);
    NEED_INT(t->t.send, "tb", "send", -1, INT32_MAX);
    NEED_INT(t->t.chan, "tb", "chan", 0, MS_MAXCHANNELS);
}

static int buf_of(XState *x, const char **atts, Span tag, const char *name, MsBuf *out) {
    const char *v = need(x, atts, "step", tag, name);
    if (!v) return -1;
    for (int b = 0; b < MS_BUF__COUNT; b++)
        if (v[0] == ms_buf_name[b] && !v[1]) {
            *out = (MsBuf)b;
            return 0;
        }
    diag_error(x->dx, attr_span(x, tag, name), "msccl-bad-attribute",
               "buffer '%s' is not one of i, o, s", v);
    x->errors++;
    return -1;
}

static void start_step(XState *x, const char **atts, Span tag) {
    XGpu *g = (XGpu *)x->gpus.p + x->gpus.n - 1;
    XTb *t = (XTb *)g->tbs.p + g->tbs.n - 1;
    MsStep *s = vec_push(&t->steps, sizeof(MsStep));
    s->span = tag;
    s->depid = -1;
    s->type = MS_NOP;
    NEED_INT(s->s, "step", "s", 0, MS_MAX_STEPS - 1);
    const char *type = need(x, atts, "step", tag, "type");
    if (type) {
        int k = 0;
        while (k < MS__COUNT && strcmp(ms_type_info[k].name, type)) k++;
        if (k == MS__COUNT) {
            Span ts = attr_span(x, tag, "type");
            diag_error(x->dx, ts, "msccl-bad-attribute",
                       "step type '%s' is not one of s, r, rcs, rrs, rrc, rrcs, cpy, re, nop", type);
            x->errors++;
        } else {
            s->type = (MsType)k;
        }
    }
    buf_of(x, atts, tag, "srcbuf", &s->srcbuf);
    buf_of(x, atts, tag, "dstbuf", &s->dstbuf);
    NEED_INT(s->srcoff, "step", "srcoff", -1, INT16_MAX);
    NEED_INT(s->dstoff, "step", "dstoff", -1, INT16_MAX);
    NEED_INT(s->cnt, "step", "cnt", s->type == MS_NOP ? INT32_MIN : 0,
             s->type == MS_NOP ? INT32_MAX : MS_MAX_COUNT - 1);
    NEED_INT(s->depid, "step", "depid", -1, MS_MAX_TB - 1);
    NEED_INT(s->deps, "step", "deps", -1, INT16_MAX);
    NEED_INT(s->hasdep, "step", "hasdep", 0, 1);
    s->depid_span = attr_span(x, tag, "depid");
}

/* mscclXmlGetNode, mscclXmlGetToken: the executor's parser keeps the
 * first MAX_ATTR_COUNT attributes of an element and refuses a name of
 * MAX_STR_LEN - 1 characters or more; a longer value overruns its buffer
 * of MAX_STR_LEN + 1. */
static void check_attr_limits(XState *x, const char **atts, Span tag) {
    for (int i = 0; atts[2 * i]; i++) {
        const char *key = atts[2 * i], *val = atts[2 * i + 1];
        if (i == MS_MAX_ATTR_COUNT) {
            diag_error(x->dx, attr_span(x, tag, key), "msccl-bad-attribute",
                       "attribute '%s' is attribute %d of its element; the executor's parser keeps "
                       "the first %d and ignores the others",
                       key, i + 1, MS_MAX_ATTR_COUNT);
            x->errors++;
        }
        if (strlen(key) >= MS_MAX_STR_LEN - 1) {
            diag_error(x->dx, attr_span(x, tag, key), "msccl-bad-attribute",
                       "an attribute name of %zu characters; the executor's parser refuses names of "
                       "%d or more",
                       strlen(key), MS_MAX_STR_LEN - 1);
            x->errors++;
        }
        if (strlen(val) > MS_MAX_STR_LEN) {
            diag_error(x->dx, attr_span(x, tag, key), "msccl-bad-attribute",
                       "the value of '%s' has %zu characters; the executor's parser holds at most %d",
                       key, strlen(val), MS_MAX_STR_LEN);
            x->errors++;
        }
    }
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts) {
    XState *x = ud;
    x->depth++;
    Span tag = tag_span(x);
    int parent = x->depth - 1;
    if (strcmp(name, "algo") == 0 || strcmp(name, "gpu") == 0 || strcmp(name, "tb") == 0 ||
        strcmp(name, "step") == 0)
        check_attr_limits(x, atts, tag);
    if (strcmp(name, "algo") == 0 && parent == 0) {
        if (x->algos++ == 0) {
            x->in_algo = x->depth;
            start_algo(x, atts, tag);
            if (x->header_only) XML_StopParser(x->p, XML_FALSE);
        }
        return;
    }
    if (x->in_algo && parent == x->in_algo && strcmp(name, "gpu") == 0) {
        x->in_gpu = x->depth;
        start_gpu(x, atts, tag);
        return;
    }
    if (x->in_gpu && parent == x->in_gpu && strcmp(name, "tb") == 0) {
        x->in_tb = x->depth;
        start_tb(x, atts, tag);
        return;
    }
    if (x->in_tb && parent == x->in_tb && strcmp(name, "step") == 0) {
        start_step(x, atts, tag);
        return;
    }
    /* mscclXmlLoadSub: "Ignoring element" */
    diag_warning(x->dx, tag, "msccl-unknown-element", "the executor ignores this <%s> element",
                 name);
}

static void XMLCALL on_end(void *ud, const XML_Char *name) {
    XState *x = ud;
    (void)name;
    if (x->depth == x->in_tb) x->in_tb = 0;
    else if (x->depth == x->in_gpu) x->in_gpu = 0;
    else if (x->depth == x->in_algo) x->in_algo = 0;
    x->depth--;
}

/* ---------- the executor's rules over the whole file ---------- */

static void err(XState *x, Span sp, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void err(XState *x, Span sp, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(x->dx, DIAG_ERROR, sp, code, fmt, ap);
    va_end(ap);
    x->errors++;
}

static int buf_chunks(const MsGpu *g, MsBuf b) {
    return b == MS_BUF_I ? g->i_chunks : b == MS_BUF_O ? g->o_chunks : g->s_chunks;
}

static void check_range(XState *x, const MsGpu *g, const MsStep *s, MsBuf b, int off,
                        const char *which) {
    int have = buf_chunks(g, b);
    if (off < 0 || off + s->cnt > have) {
        Span sp = attr_span(x, s->span, which[0] == 's' ? "srcoff" : "dstoff");
        err(x, sp, "msccl-offset-range",
            "rank %d: %s chunks %d .. %d of buffer '%c' are out of range (it has %d chunks)",
            g->id, which, off, off + s->cnt, ms_buf_name[b], have);
    }
}

static void check_step(XState *x, const MsGpu *g, const MsTb *t, int k) {
    const MsStep *s = &t->steps[k];
    const MsTypeInfo *ti = &ms_type_info[s->type];
    if (s->s != k)
        err(x, attr_span(x, s->span, "s"), "msccl-step-index",
            "step s=%d is step %d of thread block %d of rank %d; dependencies name steps by "
            "their position",
            s->s, k, t->id, g->id);
    if (ti->send && t->send < 0)
        err(x, s->span, "msccl-no-peer",
            "rank %d: a '%s' step sends in thread block %d, which has no send peer", g->id,
            ti->name, t->id);
    if (ti->recv && t->recv < 0)
        err(x, s->span, "msccl-no-peer",
            "rank %d: a '%s' step receives in thread block %d, which has no recv peer", g->id,
            ti->name, t->id);
    if (s->type != MS_NOP && s->cnt > 0) {
        if (ti->src) check_range(x, g, s, s->srcbuf, s->srcoff, "source");
        if (ti->dst) check_range(x, g, s, s->dstbuf, s->dstoff, "destination");
    }
    if (s->depid >= 0) {
        const MsTb *d = s->depid < g->ntbs ? &g->tbs[s->depid] : NULL;
        if (!d)
            err(x, s->depid_span, "msccl-dependency",
                "rank %d has no thread block %d for this step to wait for", g->id, s->depid);
        else if (s->deps < 0 || s->deps >= d->nsteps)
            err(x, s->depid_span, "msccl-dependency",
                "thread block %d of rank %d has no step %d for this step to wait for", s->depid,
                g->id, s->deps);
    }
}

static void check_tb(XState *x, const MsGpu *g, const MsTb *t) {
    int n = x->a->ngpus;
    if (t->send >= n || t->recv >= n || t->send == g->id || t->recv == g->id)
        err(x, t->span, "msccl-peer",
            "thread block %d of rank %d has peers send=%d recv=%d; a peer is another rank "
            "(0 .. %d) or -1",
            t->id, g->id, t->send, t->recv, n - 1);
    if (t->chan >= x->a->nchannels)
        err(x, attr_span(x, t->span, "chan"), "msccl-limit",
            "thread block %d of rank %d is on channel %d, but the algorithm has nchannels=%d",
            t->id, g->id, t->chan, x->a->nchannels);
    for (int k = 0; k < t->nsteps; k++) check_step(x, g, t, k);
}

/* What the executor makes of the dependencies of thread block t
 * (mscclGetAlgoFromXmlFile, msccl_kernel.cu): nop steps are no
 * transmissions of their own, their waits go to the next step, which must
 * wait itself ("the last reduction must be a part of the first immediate
 * instruction"); consecutive `re` steps into one chunk are fused into one;
 * a transmission with hasdep=1 signals its kernel step count, which a wait
 * for step d of the thread block takes once it is d or more. Sets each
 * step's signal: dep_done of the steps that wait for t is the last step of
 * the first transmission that signals at or after their deps (-1: none). */
static void check_chains(XState *x, const MsGpu *g, const MsTb *t, int *signal) {
    int pending = 0, chain = 0, cdo = 0, nred = 0, step = 0;
    MsBuf cdb = MS_BUF_I, csb = MS_BUF_I;
    int first = -1, last = -1; /* XML steps of the current transmission */
    for (int k = 0; k <= t->nsteps; k++) {
        const MsStep *s = k < t->nsteps ? &t->steps[k] : NULL;
        if (s && s->depid >= 0) pending++;
        if (s && s->type == MS_NOP) continue;
        int cont = s && s->type == MS_RE && chain && s->dstbuf == cdb && s->dstoff == cdo &&
                   s->srcbuf == csb && s->depid < 0;
        if (!cont && first >= 0) {
            /* the previous transmission is complete: it signals `step` */
            if (t->steps[last].hasdep)
                for (int j = 0; j <= step && j < t->nsteps; j++)
                    if (signal[j] < 0) signal[j] = last;
            step++;
            first = -1;
        }
        if (!s) break;
        if (!cont) {
            if (pending > 0 && s->depid < 0)
                err(x, s->span, "msccl-dependency",
                    "rank %d thread block %d: step %d waits for nothing itself after nop steps that "
                    "wait; the executor refuses the file (the step after a chain of waiting nop "
                    "steps must wait too)",
                    g->id, t->id, k);
            if (pending > 0) step += pending - 1;
            pending = 0;
            first = k;
        } else {
            step++; /* the kernel counts each fused reduction */
        }
        last = k;
        if (s->type != MS_RE) {
            chain = 0;
        } else {
            nred++;
            chain = !(s->hasdep || nred == MS_MAX_REDUCE_FUSION);
            cdb = s->dstbuf, cdo = s->dstoff, csb = s->srcbuf;
        }
    }
}

/* Thread block ids dense from 0 (the parser's blockExists), at most
 * MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL senders and receivers a channel. */
static void check_gpu(XState *x, MsGpu *g) {
    MsTb *byid = ARENA_ARRAY(x->arena, MsTb, g->ntbs > 0 ? g->ntbs : 1);
    int *seen = xcalloc((size_t)g->ntbs + 1, sizeof *seen);
    int ok = 1;
    for (int k = 0; k < g->ntbs; k++) {
        MsTb *t = &g->tbs[k];
        if (t->id < 0) { ok = 0; continue; }
        if (t->id >= g->ntbs) {
            err(x, attr_span(x, t->span, "id"), "msccl-tb-id",
                "rank %d has %d thread blocks but this one has id %d; ids must be 0 .. %d", g->id,
                g->ntbs, t->id, g->ntbs - 1);
            ok = 0;
        } else if (seen[t->id]++) {
            err(x, attr_span(x, t->span, "id"), "msccl-tb-id",
                "rank %d has two thread blocks with id %d", g->id, t->id);
            ok = 0;
        } else {
            byid[t->id] = *t;
        }
    }
    free(seen);
    if (!ok) return;
    g->tbs = byid;
    int sends[MS_MAXCHANNELS + 1] = {0}, recvs[MS_MAXCHANNELS + 1] = {0};
    for (int k = 0; k < g->ntbs; k++) {
        MsTb *t = &g->tbs[k];
        if (t->send >= 0 && ++sends[t->chan] == MS_MAX_TB_PER_CHANNEL + 1)
            err(x, t->span, "msccl-limit",
                "rank %d has more than %d sending thread blocks on channel %d", g->id,
                MS_MAX_TB_PER_CHANNEL, t->chan);
        if (t->recv >= 0 && ++recvs[t->chan] == MS_MAX_TB_PER_CHANNEL + 1)
            err(x, t->span, "msccl-limit",
                "rank %d has more than %d receiving thread blocks on channel %d", g->id,
                MS_MAX_TB_PER_CHANNEL, t->chan);
        check_tb(x, g, t);
    }
    if (x->errors) return;
    /* msccl_parser.h MAX_NODES: the parser keeps <algo>, every <gpu> and
     * this rank's thread blocks and steps, and stops at MAX_NODES before
     * the next element or closing tag */
    int64_t nodes = 1 + x->a->ngpu_elems + g->ntbs;
    for (int k = 0; k < g->ntbs; k++) nodes += g->tbs[k].nsteps;
    if (nodes >= MS_MAX_NODES)
        err(x, g->span, "msccl-limit",
            "rank %d: the executor's parser holds %d elements and this rank needs %" PRId64
            " (<algo>, %d <gpu>, its %d <tb> and their <step>); it stops with \"XML parser is "
            "limited to 1024 nodes\"",
            g->id, MS_MAX_NODES - 1, nodes, x->a->ngpu_elems, g->ntbs);
    int **signal = xcalloc((size_t)g->ntbs + 1, sizeof(int *));
    for (int k = 0; k < g->ntbs; k++) {
        signal[k] = xmalloc(sizeof(int) * (size_t)(g->tbs[k].nsteps + 1));
        for (int j = 0; j <= g->tbs[k].nsteps; j++) signal[k][j] = -1;
        check_chains(x, g, &g->tbs[k], signal[k]);
    }
    for (int k = 0; k < g->ntbs && !x->errors; k++)
        for (int j = 0; j < g->tbs[k].nsteps; j++) {
            MsStep *st = &g->tbs[k].steps[j];
            if (st->depid < 0) continue;
            const MsTb *d = &g->tbs[st->depid];
            st->dep_done = signal[st->depid][st->deps];
            if (st->dep_done < 0)
                err(x, st->depid_span, "msccl-dependency",
                    "rank %d: this step waits for step %d of thread block %d, but no step of it from "
                    "there on has hasdep=1: the executor never signals it, and the wait never ends",
                    g->id, st->deps, d->id);
            else if (st->dep_done != st->deps)
                diag_warning(x->dx, st->depid_span, "msccl-late-signal",
                             "rank %d: this step waits for step %d of thread block %d, which does not "
                             "signal (hasdep=0 or a nop); the executor ends the wait at step %d, the "
                             "first from there on that does",
                             g->id, st->deps, d->id, st->dep_done);
        }
    for (int k = 0; k < g->ntbs; k++) free(signal[k]);
    free(signal);
}

/* GPU ids 0 .. ngpus-1, each once; the arrays moved into the arena. */
static void finish(XState *x) {
    MsAlgo *a = x->a;
    a->ngpu_elems = x->gpus.n;
    a->gpus = ARENA_ARRAY(x->arena, MsGpu, a->ngpus > 0 ? a->ngpus : 1);
    int *seen = xcalloc((size_t)(a->ngpus > 0 ? a->ngpus : 1), sizeof *seen);
    for (int k = 0; k < x->gpus.n; k++) {
        XGpu *xg = (XGpu *)x->gpus.p + k;
        MsGpu g = xg->g;
        g.ntbs = xg->tbs.n;
        g.tbs = ARENA_ARRAY(x->arena, MsTb, g.ntbs > 0 ? g.ntbs : 1);
        for (int j = 0; j < g.ntbs; j++) {
            XTb *xt = (XTb *)xg->tbs.p + j;
            g.tbs[j] = xt->t;
            g.tbs[j].nsteps = xt->steps.n;
            g.tbs[j].steps = ARENA_ARRAY(x->arena, MsStep, xt->steps.n > 0 ? xt->steps.n : 1);
            if (xt->steps.n) memcpy(g.tbs[j].steps, xt->steps.p, sizeof(MsStep) * (size_t)xt->steps.n);
            free(xt->steps.p);
        }
        free(xg->tbs.p);
        if (g.id < 0) continue;
        if (g.id >= a->ngpus) {
            err(x, attr_span(x, g.span, "id"), "msccl-gpu-id",
                "<gpu id=%d> is out of range: the algorithm has ngpus=%d", g.id, a->ngpus);
        } else if (seen[g.id]++) {
            err(x, attr_span(x, g.span, "id"), "msccl-gpu-id", "a second <gpu id=%d>", g.id);
        } else {
            a->gpus[g.id] = g;
        }
    }
    free(x->gpus.p);
    x->gpus.p = NULL;
    for (int r = 0; r < a->ngpus && !x->errors; r++)
        if (!seen[r]) err(x, a->span, "msccl-gpu-id", "the algorithm has no <gpu id=%d>", r);
    free(seen);
    if (x->errors) return;
    for (int r = 0; r < a->ngpus; r++) check_gpu(x, &a->gpus[r]);
}

static int parse(Arena *arena, DiagEngine *dx, uint32_t file_id, MsAlgo *out, int header_only) {
    const SourceFile *f = source_file(diag_sources(dx), file_id);
    memset(out, 0, sizeof *out);
    XState x;
    memset(&x, 0, sizeof x);
    x.header_only = header_only;
    x.arena = arena;
    x.dx = dx;
    x.file = file_id;
    x.text = f->text;
    x.len = f->len;
    x.a = out;
    x.p = XML_ParserCreate(NULL);
    if (!x.p) COLLC_UNREACHABLE("expat: out of memory");
    XML_SetUserData(x.p, &x);
    XML_SetElementHandler(x.p, on_start, on_end);
    if (f->len > INT32_MAX || (XML_Parse(x.p, f->text, (int)f->len, 1) == XML_STATUS_ERROR &&
                               !(header_only && XML_GetErrorCode(x.p) == XML_ERROR_ABORTED))) {
        Span sp = {file_id, (uint32_t)XML_GetCurrentByteIndex(x.p), 0};
        if (sp.lo > f->len) sp.lo = (uint32_t)f->len;
        sp.hi = sp.lo;
        err(&x, sp, "msccl-xml", "not well-formed XML: %s",
            XML_ErrorString(XML_GetErrorCode(x.p)));
    } else if (!x.algos) {
        Span sp = {file_id, 0, 0};
        err(&x, sp, "msccl-xml", "the file has no <algo> element");
    } else if (x.algos > 1 && !header_only) {
        Span sp = {file_id, 0, 0};
        diag_warning(dx, sp, "msccl-unknown-element",
                     "the file has %d <algo> elements; the executor reads the first", x.algos);
    }
    XML_ParserFree(x.p);
    if (!x.errors && x.algos && !header_only) finish(&x); /* frees the vectors it moves */
    for (int k = 0; x.gpus.p && k < x.gpus.n; k++) {
        XGpu *xg = (XGpu *)x.gpus.p + k;
        for (int j = 0; j < xg->tbs.n; j++) free(((XTb *)xg->tbs.p)[j].steps.p);
        free(xg->tbs.p);
    }
    free(x.gpus.p);
    return x.errors;
}

int msccl_xml_parse(Arena *arena, DiagEngine *dx, uint32_t file_id, MsAlgo *out) {
    return parse(arena, dx, file_id, out, 0);
}

int msccl_xml_header(Arena *arena, DiagEngine *dx, uint32_t file_id, MsAlgo *out) {
    return parse(arena, dx, file_id, out, 1);
}

int msccl_sniff(const char *text, size_t len) {
    /* an XML file whose first element is <algo */
    size_t i = 0;
    while (i < len) {
        while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
            i++;
        if (i + 3 < len && memcmp(text + i, "<!--", 4) == 0) {
            size_t j = i + 4;
            while (j + 2 < len && memcmp(text + j, "-->", 3) != 0) j++;
            if (j + 2 >= len) return 0;
            i = j + 3;
            continue;
        }
        if (i + 1 < len && text[i] == '<' && (text[i + 1] == '?' || text[i + 1] == '!')) {
            const char *end = memchr(text + i, '>', len - i);
            if (!end) return 0;
            i = (size_t)(end - text) + 1;
            continue;
        }
        break;
    }
    return i + 5 <= len && memcmp(text + i, "<algo", 5) == 0 &&
                   (i + 5 == len || text[i + 5] == ' ' || text[i + 5] == '>' ||
                    text[i + 5] == '\n' || text[i + 5] == '\t' || text[i + 5] == '\r')
               ? 2
               : 0;
}
