/* msccl.h - MSCCL-IR, the XML that the MSCCL executor of NCCL and RCCL runs
 * (docs/msccl.md): the file as read (MsAlgo: <algo> -> <gpu> -> <tb> ->
 * <step>), its reading with the executor's own rules (msccl_xml.c), and its
 * meaning as a collc algorithm (msccl_sched.c: thread blocks as sequential
 * programs, sends paired first-in first-out with receives per (sender,
 * receiver, channel), depid/deps; the result is ordinary AST, layered into
 * steps, so every command reads it like a .coll).
 *
 * Limits are the executor's, from src/include/msccl/msccl_struct.h and
 * src/include/devcomm.h of msccl-executor-nccl. */
#ifndef COLLC_MSCCL_H
#define COLLC_MSCCL_H

#include <stdint.h>
#include "front/ast.h"
#include "support/arena.h"
#include "support/diag.h"

/* msccl_struct.h: MSCCL_MAX_NUM_STEPS, MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL,
 * MSCCL_MAX_NUM_THREAD_BLOCKS (= per channel * MAXCHANNELS), MSCCL_MAX_COUNT,
 * MSCCL_MAX_REDUCE_FUSION; devcomm.h: MAXCHANNELS. */
enum {
    MS_MAX_STEPS = 64,          /* steps of one thread block: s < 64 */
    MS_MAX_TB_PER_CHANNEL = 32, /* sending (receiving) thread blocks per channel */
    MS_MAXCHANNELS = 32,        /* channels: chan <= MAXCHANNELS */
    MS_MAX_TB = MS_MAX_TB_PER_CHANNEL * MS_MAXCHANNELS, /* thread block ids */
    MS_MAX_COUNT = 72,          /* cnt < 72 */
    MS_MAX_REDUCE_FUSION = 16,  /* consecutive `re` fused into one transmission */
    /* msccl_parser.h: the XML parser's own limits */
    MS_MAX_NODES = 4096,        /* elements it keeps: <algo>, every <gpu>, one rank's <tb>, <step> */
    MS_MAX_STR_LEN = 255,       /* characters of a name or an attribute value */
    MS_MAX_ATTR_COUNT = 16,     /* attributes of an element it keeps */
};

typedef enum MsType {
#define X(id, name, recv, send, src, dst, reduce) MS_##id,
#include "msccl/msccl_steps.def"
    MS__COUNT /* how many */
} MsType;

typedef struct MsTypeInfo { const char *name; int recv, send, src, dst, reduce; } MsTypeInfo;
extern const MsTypeInfo ms_type_info[MS__COUNT];

typedef enum MsBuf {
    MS_BUF_I, /* "i": the input buffer */
    MS_BUF_O, /* "o": the output buffer */
    MS_BUF_S, /* "s": the scratch buffer */
    MS_BUF__COUNT
} MsBuf;
extern const char ms_buf_name[MS_BUF__COUNT];

typedef struct MsStep {
    int s;                 /* its index in the thread block */
    MsType type;
    MsBuf srcbuf, dstbuf;
    int srcoff, dstoff, cnt;
    int depid, deps;       /* the step `deps` of thread block `depid` must be done first
                              (depid -1: none) */
    int dep_done;          /* the step of thread block `depid` whose signal ends the wait
                              on the GPU: the first at or after `deps` that signals */
    int hasdep;            /* another thread block waits for it */
    Span span;             /* the <step> element */
    Span depid_span;
} MsStep;

typedef struct MsTb {
    int id, send, recv, chan; /* peers -1: none */
    Span span;
    MsStep *steps;
    int nsteps;
} MsTb;

typedef struct MsGpu {
    int id, i_chunks, o_chunks, s_chunks;
    Span span;
    MsTb *tbs;             /* in id order after reading (ids are dense) */
    int ntbs;
} MsGpu;

typedef struct MsAlgo {
    const char *name;      /* name= (not read by the executor; may be NULL) */
    const char *proto;     /* Simple, LL or LL128 */
    const char *coll;      /* as written */
    Collective collective; /* collc's collective */
    int nchannels, nchunksperloop, ngpus, inplace, outofplace;
    int64_t min_bytes, max_bytes;
    Span span, ngpus_span, coll_span;
    MsGpu *gpus;           /* [ngpus], gpus[r].id == r after reading */
    int ngpu_elems;
    uint32_t file;
} MsAlgo;

/* Reads the MSCCL-IR file `file_id` with expat and the executor's rules
 * (required attributes, ids, peers, limits, bounds). Returns the number of
 * errors reported; *out (in `arena`) is complete when it is 0. */
int msccl_xml_parse(Arena *arena, DiagEngine *dx, uint32_t file_id, MsAlgo *out);
/* The same for the attributes of <algo> only (no gpus). */
int msccl_xml_header(Arena *arena, DiagEngine *dx, uint32_t file_id, MsAlgo *out);

/* The algorithms of a read file: one per mode it runs in (out of place;
 * in place, named NAME_inplace), appended to *prog. Reports deadlocks,
 * unmatched sends and receives. Returns the number of errors. */
int msccl_build(Arena *arena, DiagEngine *dx, const MsAlgo *a, Program *prog);

/* Appends `alg`, read from `file`, to *prog, renamed NAME_FILESTEM (then
 * a number) when an algorithm read before has its name. */
void msccl_add_algorithm(Arena *arena, DiagEngine *dx, Program *prog, uint32_t file, Algorithm *alg);

/* The rows of driver/formats.def. */
int msccl_read(Arena *arena, DiagEngine *dx, uint32_t file_id, Program *prog);
int msccl_sniff(const char *text, size_t len);
/* SCCL's JSON algorithms (sccl_json.c): the rows of driver/formats.def. */
int sccl_read(Arena *arena, DiagEngine *dx, uint32_t file_id, Program *prog);
int sccl_sniff(const char *text, size_t len);
void sccl_group(DiagEngine *dx, const uint32_t *files, int nfiles);
/* The size ranges of the files an executor chooses from (msccl_select.c):
 * per collective, ngpus and mode, the sizes that two algorithms claim
 * (msccl-size-overlap) and those between two that none claims
 * (msccl-size-gap). */
void msccl_group(DiagEngine *dx, const uint32_t *files, int nfiles);

#endif
