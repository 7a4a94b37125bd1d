/* sg2260.h - SOPHGO SG2260 target: machine model, descriptor format, text
 * assembler/disassembler and a functional + timing model of the chip's DMA
 * engines (CDMA per chip-to-chip port, GDMA, per-core VSDMA).
 *
 * This library is self-contained (C17 + libm); it does not depend on the
 * compiler's support code so that the cost model, the backend and stand-alone
 * tools can all link it. Errors are returned as Sg2260Error values carrying a
 * stable code (see docs/sg2260.md "Diagnostics"); a caller inside the
 * compiler forwards them to diag.h with the same code.
 *
 * Descriptors use the bit layouts of SOPHGO's public TPU1686 firmware
 * (docs/references.md [SG-fw]): CDMA's, and the GDMA/VSDMA tensor
 * descriptor with its short SYS form. They are documented field by field in
 * docs/sg2260.md section 2. */
#ifndef COLLC_SG2260_H
#define COLLC_SG2260_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Limits                                                                    */

enum {
    SG2260_MAX_CHIPS = 16,       /* chip ids are 4 bits in WRITE/READ/GENERAL */
    SG2260_MAX_PORTS = 11,       /* physical CDMA ports 0-10 */
    SG2260_MAX_CORES = 8,        /* TPU cores, one VSDMA engine each */
    SG2260_MAX_LINKS = 64,
    SG2260_MAX_RINGS = 16,
    SG2260_MAX_DIM = 65535,      /* N, C, H, W: CDMA_MAX_N..W of the firmware; GDMA/SDMA fields are 16 bits */
    SG2260_MAX_GENERAL_LEN = 65535, /* GENERAL's byte length: CDMA_MAX_LEN of the firmware (the field is 32 bits) */
    SG2260_MSG_IDS = 512,        /* message ids are 9 bits */
    SG2260_MSG_RESERVED = 384,   /* ids 384-511: the runtime's barriers between tasks (the firmware's tpu_kernel) */
    SG2260_MAX_MSG_COUNT = 127,  /* counts are 7 bits */
    SG2260_ALIGN = 128,          /* program alignment; FP20 / reducing writes */
};
/* Addresses are 45 bits (13 high + 32 low in a descriptor): a 5-bit tag at
 * bits 40-44 and a 40-bit address. Tag 0 is the chip's DDR, from address 0;
 * tag 0x1e (L2M_TAG) its L2 SRAM, which starts at L2_SRAM_START_ADDR
 * 0x6980000000: the firmware forms an L2 address as L2_SRAM_START_ADDR |
 * (L2M_TAG << 40) plus the offset (docs/references.md [SG-fw], memmap.h). */
#define SG2260_ADDR_BITS 45
#define SG2260_ADDR_MASK ((UINT64_C(1) << SG2260_ADDR_BITS) - 1)
#define SG2260_OFFSET_BITS 40
#define SG2260_OFFSET_MASK ((UINT64_C(1) << SG2260_OFFSET_BITS) - 1)
#define SG2260_TAG_DDR UINT64_C(0)
#define SG2260_TAG_L2 UINT64_C(0x1e)
#define SG2260_L2_BASE UINT64_C(0x6980000000)
#define SG2260_L2(off) ((SG2260_TAG_L2 << SG2260_OFFSET_BITS) | (SG2260_L2_BASE + (uint64_t)(off)))
#define SG2260_ADDR_TAG(a) ((uint64_t)(a) >> SG2260_OFFSET_BITS)
/* The offset of an address in its memory: from DDR's start, or from L2
 * SRAM's (an L2-tagged address below SG2260_L2_BASE is in no memory:
 * sg2260_addr_ok). */
#define SG2260_ADDR_OFFSET(a)                                                                          \
    (((uint64_t)(a) & SG2260_OFFSET_MASK) - (SG2260_ADDR_TAG(a) == SG2260_TAG_L2 ? SG2260_L2_BASE : 0))
/* 1 if a is a DDR address or an L2 address at or above L2_SRAM_START_ADDR. */
#define SG2260_ADDR_OK(a)                                                                              \
    (SG2260_ADDR_TAG(a) == SG2260_TAG_DDR ||                                                           \
     (SG2260_ADDR_TAG(a) == SG2260_TAG_L2 && ((uint64_t)(a) & SG2260_OFFSET_MASK) >= SG2260_L2_BASE))
/* Largest L2 offset an address can hold. */
#define SG2260_L2_MAX_OFFSET (SG2260_OFFSET_MASK - SG2260_L2_BASE)

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

/* One error. `code` is a stable identifier (static string), e.g. "syntax",
 * "dtype-op", "align", "deadlock". line is 1-based or 0 when not tied to a
 * line of text. `file` is the name given by the caller (may be ""). */
typedef struct Sg2260Error {
    const char *code;
    char file[256];
    int line;
    char msg[8192];
    char word[64]; /* the unknown word of an "unknown-key" error, else "" */
} Sg2260Error;

/* "file:line: error: msg [code]" (file/line parts omitted when absent). */
void sg2260_error_print(FILE *out, const Sg2260Error *e);
/* The same as a warning: "file:line: warning: msg [code]". */
void sg2260_warning_print(FILE *out, const Sg2260Error *e);

/* ------------------------------------------------------------------------ */
/* Machine model                                                             */

typedef struct Sg2260Link {
    int a, b;           /* chip ids */
    int port_a, port_b; /* physical CDMA port on each end */
    double bw_GBps;     /* per direction; 0 = machine default */
} Sg2260Link;

typedef struct Sg2260Ring {
    int len;
    int chips[SG2260_MAX_CHIPS]; /* in ring order */
} Sg2260Ring;

typedef struct Sg2260Machine {
    char name[64];
    int nchips;
    int nlinks;
    Sg2260Link links[SG2260_MAX_LINKS];
    /* port_link[c][p]: the link on chip c's physical port p, or -1. */
    int port_link[SG2260_MAX_CHIPS][SG2260_MAX_PORTS];
    /* send_port[c][q]: the port chip c sends to chip q on (-1: no link). The
     * port chip c receives from q on is the far end of q's send port. */
    int send_port[SG2260_MAX_CHIPS][SG2260_MAX_CHIPS];
    int nrings;
    Sg2260Ring rings[SG2260_MAX_RINGS];
    /* Timing (GB/s are 1e9 bytes per second; latencies in microseconds). */
    double link_bw_GBps;  /* per direction per link (default 32: PCIe Gen5 x8) */
    double cdma_bw_GBps;  /* one CDMA engine's rate (64) */
    double sum_bw_GBps;   /* reduction (SUM unit) throughput (512) */
    double startup_us;    /* CDMA command start-up latency lt_fire (0.25) */
    double sync_us;       /* per message wait latency lt_sync (0.3) */
    double ddr_l2_GBps;   /* the chip's DDR<->L2 path, shared by GDMA and VSDMA (128) */
    int credit_depth;     /* outstanding RECV credits per port (2) */
    int cores;            /* TPU cores, each with a VSDMA engine (8) */
    int write_reduce;     /* 1: WRITE/READ may reduce at the destination (later chips) */
    int reduce_to_ddr;    /* 1: CDMA reductions may target DDR (else only L2) */
    uint64_t mem_bytes;   /* per-chip DDR size in bytes (default 2^40) */
    uint64_t l2_bytes;    /* per-chip L2 SRAM (default 128 MiB) */
} Sg2260Machine;

/* The built-in board, the 8-chip SC11 board: the text of
 * machines/sg2260-board.machine, compiled into the library, and that text
 * parsed. */
extern const char sg2260_board_machine_text[];
void sg2260_machine_default(Sg2260Machine *m);
/* Parse a machine file (text). Keys not given keep the built-in board's
 * values; a file without `link` lines gets the board's links and rings
 * (needs the board's chip count). Returns 0 on success, -1 with *err
 * filled (line-numbered). */
int sg2260_machine_parse(const char *text, const char *filename, Sg2260Machine *m,
                         Sg2260Error *err);
/* Load a machine file given by path, or by name (see sg2260_machine_find). */
int sg2260_machine_load(const char *name_or_path, Sg2260Machine *m, Sg2260Error *err);
/* The file `--machine ARG` means: ARG itself when it contains a '/' or is a
 * file; else the machine named ARG, ARG.machine (or ARG when it ends in
 * .machine) in the folders of $COLLC_MACHINE_PATH (':'-separated), then in
 * the machines/ folder shipped with the running program (share/collc/
 * machines of its installation, or of the build tree). 0 with the file's
 * path in path[size], or -1 with *err (code "unknown-machine", the folders
 * searched). */
int sg2260_machine_find(const char *arg, char *path, size_t size, Sg2260Error *err);
/* Calls fn with the name of each machine file those folders hold (NAME of
 * NAME.machine), folder by folder, in no order within a folder. */
void sg2260_machine_names(void (*fn)(const char *name, void *ctx), void *ctx);
/* The k-th key of the machine-file format (k from 0), or NULL past the last. */
const char *sg2260_machine_key(int k);
/* Write in the file format (parses back to the same machine). */
void sg2260_machine_write(FILE *out, const Sg2260Machine *m);
/* The port `chip` sends to `peer` on, or -1 (no link). */
int sg2260_machine_port_to(const Sg2260Machine *m, int chip, int peer);
/* The port `chip` receives from `peer` on (the far end of peer's send
 * port), or -1. */
int sg2260_machine_recv_port(const Sg2260Machine *m, int chip, int peer);
/* The chip at the other end of chip's port, or -1 if the port has no link. */
int sg2260_machine_port_peer(const Sg2260Machine *m, int chip, int port);
/* The links between chips a and b in file order (parallel links, e.g. the
 * two halves of a split x4+x4 link), at most max; returns how many. */
int sg2260_machine_links_between(const Sg2260Machine *m, int a, int b, int *links, int max);
/* Bandwidth of link `l` per direction in GB/s (per-link override or default). */
double sg2260_machine_link_bw(const Sg2260Machine *m, int l);
/* The rate a transfer on link l streams at when alone: the slower of the
 * link and the CDMA engine, in GB/s. */
double sg2260_machine_link_rate(const Sg2260Machine *m, int l);
/* The default chip of each of N ranks: the machine's first ring of N
 * chips; for N <= 2 without one, the first chips of its first ring (which
 * are adjacent) or the ends of its first link; for N = chips without a
 * ring, chip r for rank r. 0, or -1 when none of these applies. */
int sg2260_machine_place(const Sg2260Machine *m, int N, int *chips);

/* ------------------------------------------------------------------------ */
/* Descriptors                                                               */

/* The two sides of a CDMA port: its TX work and its RX work run apart. */
typedef enum Sg2260Side {
    SG2260_TX = 0, /* SEND, WRITE, READ, GENERAL, TX_*_MSG */
    SG2260_RX = 1, /* RECV, RX_*_MSG */
} Sg2260Side;

/* The engines that run descriptor programs. */
typedef enum Sg2260Engine {
    SG2260_CDMA = 0,  /* one per physical chip-to-chip port: TX and RX work */
    SG2260_GDMA = 1,  /* one per chip: local copies, reductions into L2 */
    SG2260_VSDMA = 2, /* one per TPU core: local copies */
} Sg2260Engine;

typedef enum Sg2260Cmd {
    /* CDMA: the values are the firmware's cmd_type */
    SG2260_CMD_SEND = 0,             /* stream to the peer using a RECV credit */
    SG2260_CMD_READ = 1,             /* one-sided: remote memory -> local */
    SG2260_CMD_WRITE = 2,            /* one-sided: local -> remote memory (or fill) */
    SG2260_CMD_GENERAL = 3,          /* p2p copy of a byte length between chips */
    SG2260_CMD_RECV = 4,             /* post a credit to the sending port */
    SG2260_CMD_LOSSY_COMPRESS = 5,   /* not modelled */
    SG2260_CMD_LOSSY_DECOMPRESS = 6, /* not modelled */
    SG2260_CMD_SYS = 7,              /* see Sg2260Sys; every engine */
    SG2260_CMD_TCP_SEND = 8,         /* not modelled */
    SG2260_CMD_TCP_RECV = 9,         /* not modelled */
    /* GDMA / VSDMA (collc's numbering) */
    SG2260_CMD_COPY = 16,            /* tensor copy on the chip (DDR, L2) */
    SG2260_CMD_REDUCE = 17,          /* GDMA: dst (L2) = dst op src */
} Sg2260Cmd;

typedef enum Sg2260Sys {
    /* CDMA: the values are the firmware's subtypes */
    SG2260_SYS_END = 0,         /* end of program (every engine) */
    SG2260_SYS_NOP = 1,         /* CDMA: joins the port's TX and RX work */
    SG2260_SYS_TRWR = 2,        /* write the engine's id register (imm) */
    SG2260_SYS_TX_SEND_MSG = 3, /* CDMA TX: send message id for `count` waiters */
    SG2260_SYS_TX_WAIT_MSG = 4, /* CDMA TX: wait for `count` sends of message id */
    SG2260_SYS_RX_SEND_MSG = 5, /* CDMA RX: send message id for `count` waiters */
    SG2260_SYS_RX_WAIT_MSG = 6, /* CDMA RX: wait for `count` sends of message id */
    /* GDMA / VSDMA */
    SG2260_SYS_SEND_MSG = 8,    /* send message id for `count` waiters */
    SG2260_SYS_WAIT_MSG = 9,    /* wait for `count` sends of message id */
} Sg2260Sys;

typedef enum Sg2260Dtype {
    SG2260_INT8 = 0,
    SG2260_FP16 = 1,
    SG2260_FP32 = 2,
    SG2260_INT16 = 3,
    SG2260_INT32 = 4,
    SG2260_BF16 = 5,
    SG2260_FP20 = 6, /* collc model: 1-8-11 float in a 4-byte container */
} Sg2260Dtype;

typedef enum Sg2260Op {
    SG2260_OP_NONE = 0,
    SG2260_OP_MUL = 1,
    SG2260_OP_MAX = 2,
    SG2260_OP_MIN = 3,
    SG2260_OP_ADD = 4,
} Sg2260Op;

typedef enum Sg2260Psum {
    SG2260_PSUM_WO = 0, /* write only */
    SG2260_PSUM_WR = 1, /* read-modify-write: reduce at the destination */
} Sg2260Psum;

/* A tensor view: shape (N,C,H,W) and the N, C, H strides in elements; W is
 * contiguous (the descriptors have no W stride). */
typedef struct Sg2260Shape {
    uint32_t n, c, h, w;
    uint32_t sn, sc, sh;
} Sg2260Shape;

/* Decoded descriptor. Fields irrelevant to `cmd` are ignored (and must be
 * zero for encode to round-trip). Addresses carry their tag (bits 40-44). */
typedef struct Sg2260Desc {
    Sg2260Cmd cmd;
    Sg2260Sys sys;     /* SYS only */
    Sg2260Dtype dtype;
    Sg2260Op op;       /* RECV, REDUCE: reduce at the destination; WRITE/READ
                          only on machines with write_reduce (not encodable) */
    Sg2260Psum psum;   /* SEND */
    uint64_t src;      /* SEND, WRITE, READ, GENERAL, COPY, REDUCE */
    uint64_t dst;      /* RECV, WRITE, READ, GENERAL, COPY, REDUCE */
    int src_chip;      /* WRITE, READ, GENERAL (4 bits) */
    int dst_chip;
    uint32_t length;   /* GENERAL: bytes */
    int fill;          /* WRITE: fill the destination with `imm` (no source) */
    Sg2260Shape shape;  /* SEND/RECV view; source view of WRITE/READ/COPY/REDUCE */
    Sg2260Shape dshape; /* destination view of WRITE/READ/COPY/REDUCE */
    uint32_t msg_id;    /* SYS messages, 9 bits */
    uint32_t count;     /* SYS messages, 7 bits: waiters of a send, sends of a wait */
    uint32_t imm;       /* TRWR value; WRITE fill constant (raw bits) */
} Sg2260Desc;

/* Size in 128-bit words of a command on an engine: CDMA SEND/RECV/GENERAL
 * 2, WRITE/READ 4, SYS 1; GDMA/VSDMA COPY/REDUCE 6 (the firmware's 96-byte
 * tensor descriptor), SYS 1 (its short form); 0 for command types collc
 * does not encode on that engine. */
int sg2260_desc_words(Sg2260Engine e, Sg2260Cmd cmd);
/* Encode into w[0..2*words) (64-bit halves: w[2k] is word k's low half,
 * w[2k+1] its high half). Returns the word count, or -1 if a field does not
 * fit or the command has no encoding on the engine. */
int sg2260_encode(Sg2260Engine e, const Sg2260Desc *d, uint64_t *w, Sg2260Error *err);
/* Decode one descriptor from `avail` 128-bit words; returns the number of
 * words consumed or -1 (unknown command, reserved bits set, truncated). */
int sg2260_decode(Sg2260Engine e, const uint64_t *w, size_t avail, Sg2260Desc *d, Sg2260Error *err);
/* Elements and bytes of a view. */
uint64_t sg2260_shape_elems(const Sg2260Shape *s);
size_t sg2260_dtype_size(Sg2260Dtype t);
/* A contiguous view of `count` elements: W is the largest divisor of count
 * that fits its field, then H, C, N likewise; strides contiguous. Returns -1
 * if count does not factor into the four fields. */
int sg2260_shape_packed(uint64_t count, Sg2260Shape *s);
/* Contiguous strides for s's dims; 1 if s's strides are already those. */
void sg2260_shape_contiguous(Sg2260Shape *s);
int sg2260_shape_is_contiguous(const Sg2260Shape *s);

/* Static rules checked on one descriptor without the machine (dtype x op,
 * alignment, shape limits, field ranges). 0 ok, -1 with *err. */
int sg2260_desc_check(const Sg2260Desc *d, Sg2260Error *err);
/* 1 if the command runs on engine e (CDMA: SEND, RECV, READ, WRITE, GENERAL and
 * the TX/RX messages; GDMA: COPY, REDUCE; VSDMA: COPY; both: SEND_MSG and
 * WAIT_MSG; every engine: END, NOP, TRWR). */
int sg2260_cmd_on_engine(const Sg2260Desc *d, Sg2260Engine e);

/* Names used by the text form. */
const char *sg2260_cmd_name(Sg2260Cmd c);
const char *sg2260_sys_name(Sg2260Sys s);
const char *sg2260_dtype_name(Sg2260Dtype t);
const char *sg2260_op_name(Sg2260Op o);
const char *sg2260_engine_name(Sg2260Engine e);
/* The value named `name` (case-insensitive), or -1. */
int sg2260_cmd_find(const char *name);
int sg2260_sys_find(const char *name);
int sg2260_dtype_find(const char *name);
int sg2260_op_find(const char *name);

/* One descriptor as one line of text (no newline); returns the length. */
int sg2260_disasm(const Sg2260Desc *d, char *buf, size_t cap);
/* Parse one line (a descriptor, without directives). 0 ok, -1 with *err. */
int sg2260_asm_line(const char *line, Sg2260Desc *d, Sg2260Error *err);

/* A program: the descriptors of one engine, ending with SYS END. */
typedef struct Sg2260Program {
    Sg2260Desc *descs;
    int ndescs;
    int cap;
} Sg2260Program;

void sg2260_program_push(Sg2260Program *p, const Sg2260Desc *d);
void sg2260_program_free(Sg2260Program *p);
/* Binary image: encoded words, zero-padded to a multiple of 128 bytes.
 * *out is malloc'd (free it); returns byte size or -1 on error. */
long sg2260_program_encode(Sg2260Engine e, const Sg2260Program *p, uint8_t **out, Sg2260Error *err);
/* Decode an image up to and including SYS END. */
int sg2260_program_decode(Sg2260Engine e, const uint8_t *bytes, size_t n, Sg2260Program *p, Sg2260Error *err);

/* ------------------------------------------------------------------------ */
/* Bundles: every program of a run plus initial memory contents.             */

/* Per-descriptor notes a writer prints beside the text form (e.g. the
 * schedule step and source line a backend lowered it from). */
typedef struct Sg2260Note {
    int step;           /* schedule step (1-based), 0 = none */
    int line;           /* source line, 0 = none */
    const char *file;   /* the line's file (static or bundle-owned), or NULL */
    int peer;           /* chip at the other end, -1 = none */
    const char *what;   /* short label (static or bundle-owned), or NULL */
} Sg2260Note;

typedef struct Sg2260ProgramSlot {
    int chip;
    Sg2260Engine engine;
    int index;          /* CDMA: physical port; VSDMA: core; GDMA: 0 */
    int msg_base;       /* the engine's base message id register: a descriptor's id i means id
                           msg_base + i of the chip (the firmware's atomic_set_base_msg_id) */
    Sg2260Program prog;
    int *lines;         /* source line of each descriptor (text input), or NULL */
    Sg2260Note *notes;  /* per descriptor (backend output), or NULL */
} Sg2260ProgramSlot;

/* `.data` / `.fill` directives: bytes to place in a chip's memory. */
typedef struct Sg2260Init {
    int chip;
    uint64_t addr;
    uint8_t *bytes;
    size_t n;
} Sg2260Init;

/* A named region the descriptors' addresses point into (a buffer of the
 * layout, the staging area, the L2 slots): the same address on every chip.
 * The image's relocation table lists every descriptor address inside one,
 * so that sg2260_bundle_relocate can move it. */
enum { SG2260_MAX_BASES = 80, SG2260_BASE_NAME = 32, SG2260_LAUNCH_CDMA = 3, SG2260_LAUNCH_PORTS = 4 };
typedef struct Sg2260Base {
    char name[SG2260_BASE_NAME]; /* letters, digits, '_', '.'; NUL-terminated */
    uint64_t addr;               /* tagged 45-bit address (sg2260.h's SG2260_L2 for L2) */
    uint64_t bytes;
} Sg2260Base;

/* The CDMA ports of one rank's launch, in the order of the firmware's ring
 * set-up (tpu_sccl_init with use_ring = 1, which descriptor mode runs):
 * for the right chip (rank + 1) its receive port, then its send port when
 * that differs; then the same for the left chip (rank - 1); N = 2 has the
 * one peer. Launch slot i programs port ports[i]; the firmware has three.
 * More ports than SG2260_LAUNCH_PORTS are not kept (the launch cannot run). */
typedef struct Sg2260Launch {
    int chip, rank;
    int nports;
    int ports[SG2260_LAUNCH_PORTS];
    int peers[SG2260_LAUNCH_PORTS]; /* the chip each port faces */
    int missing;                    /* a neighbour without a link (no launch), or -1 */
} Sg2260Launch;

typedef struct Sg2260Bundle {
    Sg2260ProgramSlot *slots;
    int nslots, capslots;
    Sg2260Init *inits;
    int ninits, capinits;
    /* The launch of every rank (sg2260_bundle_set_launch); 0: the bundle
     * names no ranks and its image holds no launch records. */
    int nranks;
    Sg2260Launch launch[SG2260_MAX_CHIPS];
    int nbases;
    Sg2260Base bases[SG2260_MAX_BASES];
    int linked;          /* 1: image_addr is where the image sits in every chip's memory */
    uint64_t image_addr; /* the launch records' command addresses are image_addr + offset */
} Sg2260Bundle;

/* Program of (chip, engine, index), created empty if absent. Creating a
 * program may move the others: pointers from earlier calls become invalid. */
Sg2260Program *sg2260_bundle_program(Sg2260Bundle *b, int chip, Sg2260Engine e, int index);
/* Its slot (same rules). */
Sg2260ProgramSlot *sg2260_bundle_slot(Sg2260Bundle *b, int chip, Sg2260Engine e, int index);
void sg2260_bundle_free(Sg2260Bundle *b);
/* Sorts the programs by chip, engine (CDMA, GDMA, VSDMA) and index. */
void sg2260_bundle_sort(Sg2260Bundle *b);
/* Parse the text form (see docs/sg2260.md): `.program chip=C port=P |
 * peer=Q | gdma | vsdma=K [msg_base=B]` sections of descriptor lines, `.data` and
 * `.fill` directives, `;` or `#` comments. The machine resolves `peer=`. 0
 * ok, -1 with *err. */
int sg2260_bundle_parse(const char *text, const char *filename, const Sg2260Machine *m,
                        Sg2260Bundle *b, Sg2260Error *err);
/* Write programs in the text form (no data directives); with a machine,
 * each CDMA program names its peer, and descriptors with notes get them
 * as comments. */
void sg2260_bundle_write(FILE *out, const Sg2260Bundle *b, const Sg2260Machine *m);
/* Binary bundle image (docs/sg2260.md "Bundle image"): a 128-byte header
 * block ("SG2260CDMA\0\0", version, count, directory with each program's
 * command count and base message id), then each program's
 * encoded image at a 128-byte aligned offset. Data directives are not kept.
 * *out is malloc'd; returns the size or -1. */
long sg2260_bundle_encode(const Sg2260Bundle *b, uint8_t **out, Sg2260Error *err);
/* The bundle image as C source: `const unsigned char NAME[]` (aligned to
 * 128 bytes) and `const unsigned long NAME_size`, for a C array object that
 * links into a program. `name` must be a C identifier. 0 ok, -1 with *err. */
int sg2260_bundle_write_c(FILE *out, const Sg2260Bundle *b, const char *name, Sg2260Error *err);
/* 1 if the bytes start with the bundle magic. */
int sg2260_bundle_is_binary(const uint8_t *bytes, size_t n);
int sg2260_bundle_decode(const uint8_t *bytes, size_t n, Sg2260Bundle *b, Sg2260Error *err);
/* The launch of each of nranks ranks, rank r on chips[r] (launch.c): its
 * CDMA ports from the machine's port table as Sg2260Launch describes. 0,
 * or -1 with *err (a chip twice or one the machine lacks). */
int sg2260_bundle_set_launch(Sg2260Bundle *b, const Sg2260Machine *m, int nranks, const int *chips, Sg2260Error *err);
/* Adds a base (a name of letters, digits, '_' and '.' below SG2260_BASE_NAME
 * bytes, distinct). 0 or -1. */
int sg2260_bundle_add_base(Sg2260Bundle *b, const char *name, uint64_t addr, uint64_t bytes, Sg2260Error *err);
/* The base that holds addr, or -1. */
int sg2260_bundle_base_of(const Sg2260Bundle *b, uint64_t addr);
/* Moves base `name` to addr: every descriptor address inside it keeps its
 * offset from the base. "image" names the image itself (the launch
 * records' command addresses). addr must be 128-byte aligned, in the same
 * memory as the base (DDR or L2) and the moved base must not overlap
 * another base, or the image a DDR base. 0, or -1 with *err. */
int sg2260_bundle_relocate(Sg2260Bundle *b, const char *name, uint64_t addr, Sg2260Error *err);
/* n moves at once (names[i] to addrs[i]): the checks apply to the layout
 * after all of them (two bases may trade places), each descriptor address
 * moves once, with the base that held it; a name given twice is an error.
 * 0, or -1 with *err and b unchanged. */
int sg2260_bundle_relocate_all(Sg2260Bundle *b, int n, const char *const *names, const uint64_t *addrs,
                               Sg2260Error *err);
/* Why rank r's launch cannot run this bundle's programs on its chip (a
 * ring neighbour without a link, more than three ports, a CDMA program on a
 * port no launch slot programs), in buf; 1 then, 0 when it can run them. */
int sg2260_launch_problem(const Sg2260Bundle *b, int r, char *buf, size_t cap);
/* The bundle image's header, bases and launch records as text
 * (`collc sg2260 dump`; docs/sg2260.md "Bundle image"). */
int sg2260_bundle_dump(FILE *out, const uint8_t *bytes, size_t n, Sg2260Error *err);

/* Reference ring programs (what a lowering of the ring algorithm produces):
 * each chip's buffer at `base` holds n chunks of `elems` elements; position
 * r sends to ring[r+1] and receives from ring[r-1]; all-gather steps move
 * chunks with psum=wo. A reduce-scatter step stages through L2 as SCCL does:
 * the GDMA copies the receiver's chunk into L2 at `l2` (DDR -> L2), the RECV
 * reduces into it, the GDMA copies it back (L2 -> DDR). Messages order each
 * chip's engines (docs/sg2260.md section 8). Programs are added to *b. Chunks
 * must be 128-byte multiples when reducing or FP20. 0 ok, -1 with *err. */
int sg2260_ref_ring_allreduce(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems,
                              Sg2260Dtype t, Sg2260Op op, uint64_t base, uint64_t l2, Sg2260Error *err);
int sg2260_ref_ring_allgather(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems,
                              Sg2260Dtype t, uint64_t base, Sg2260Error *err);

/* ------------------------------------------------------------------------ */
/* Engine model                                                              */

typedef struct Sg2260Sim Sg2260Sim;

typedef struct Sg2260LinkStats {
    int link, from, to;      /* direction from -> to */
    double busy_us;          /* time with at least one transfer streaming */
    double bytes;            /* payload moved */
    double util;             /* bytes / (bw * total time) */
} Sg2260LinkStats;

typedef struct Sg2260Result {
    int ok;                  /* 1: all programs reached SYS END */
    double time_us;          /* simulated completion time */
    int nlinkstats;          /* 2 per link */
    Sg2260LinkStats linkstats[2 * SG2260_MAX_LINKS];
    double local_busy_us[SG2260_MAX_CHIPS]; /* DDR<->L2 path busy time */
    double local_bytes[SG2260_MAX_CHIPS];   /* bytes moved by GDMA/VSDMA */
    uint64_t commands;       /* descriptors executed */
    double bytes;            /* total payload over links */
    Sg2260Error err;         /* when !ok: the first rule violation / deadlock */
    int nwarnings;           /* things the hardware does not check but that are likely mistakes */
    Sg2260Error warning;     /* the first of them */
} Sg2260Result;

/* How the model treats data. */
typedef enum Sg2260DataMode {
    SG2260_DATA_FULL = 0,    /* real memory, every byte moved */
    SG2260_DATA_NONE = 1,    /* timing only: transfers move sizes, memory is not kept */
    SG2260_DATA_SAMPLED = 2, /* only the sampled windows of memory are kept and moved */
} Sg2260DataMode;

Sg2260Sim *sg2260_sim_new(const Sg2260Machine *m);
void sg2260_sim_free(Sg2260Sim *s);
/* Data mode (before loading). SAMPLED keeps bytes [k*stride, k*stride +
 * window) of every memory (window <= stride, both powers of two >= 128);
 * transfers whose source and destination differ by a multiple of stride
 * move exactly those bytes (a backend that places data for sampling
 * guarantees that). */
void sg2260_sim_set_data(Sg2260Sim *s, Sg2260DataMode mode, uint64_t stride, uint64_t window);
/* Emulated memory (sparse, tagged 45-bit addresses). 0 ok, -1 out of range
 * (or, in sampled mode, a byte outside the sampled windows: reads give 0,
 * writes are dropped and return 0). */
int sg2260_mem_write(Sg2260Sim *s, int chip, uint64_t addr, const void *src, size_t n);
int sg2260_mem_read(Sg2260Sim *s, int chip, uint64_t addr, void *dst, size_t n);
/* 1 if, in the current data mode, the model keeps byte addr of a chip. */
int sg2260_mem_kept(const Sg2260Sim *s, uint64_t addr);
/* Copy the bundle's programs (checked statically) and apply its inits.
 * 0 ok, -1 with *err (bad port, missing END, static rule). */
int sg2260_sim_load(Sg2260Sim *s, const Sg2260Bundle *b, Sg2260Error *err);
/* Record a trace of every command and wait (for the writers below). */
void sg2260_sim_enable_trace(Sg2260Sim *s, int on);
/* Reject a transfer whose address ranges overlap an in-flight transfer's on
 * the same chip (write/write, write/read), code "race". Default on. */
void sg2260_sim_set_race_check(Sg2260Sim *s, int on);
/* Called about twice a second of host time during a run (final = 0) and
 * once when it ends (final = 1), with the simulated time and the share of
 * descriptors executed (0..1); NULL turns it off. */
void sg2260_sim_set_progress(Sg2260Sim *s, void (*fn)(void *ctx, double t_us, double done, int final), void *ctx);
/* Run to completion, a rule violation or deadlock (once per simulator).
 * Returns 0 if ok; r->err holds the error otherwise. Memory keeps the final
 * contents either way. */
int sg2260_sim_run(Sg2260Sim *s, Sg2260Result *r);
/* Human-readable summary: time, per-link busy/utilisation. */
void sg2260_result_print(FILE *out, const Sg2260Sim *s, const Sg2260Result *r);
/* Chrome trace event JSON (one track per engine program and link
 * direction, flow arrows from each SEND to its RECV, step markers from the
 * notes) and an SVG timeline with a legend and a time axis. */
int sg2260_trace_write_json(const Sg2260Sim *s, FILE *out);
int sg2260_trace_write_svg(const Sg2260Sim *s, FILE *out);

/* Element conversions used by the model (exposed for references in tests).
 * float -> 16/20-bit formats round to nearest even. */
float sg2260_fp16_to_float(uint16_t h);
uint16_t sg2260_float_to_fp16(float f);
float sg2260_bf16_to_float(uint16_t h);
uint16_t sg2260_float_to_bf16(float f);
float sg2260_fp20_to_float(uint32_t v);
uint32_t sg2260_float_to_fp20(float f);
/* dst = dst (op) src for one element of `t` (raw bytes); the reduction the
 * engine applies. Returns -1 if (t, op) is not allowed. */
int sg2260_reduce_elem(Sg2260Dtype t, Sg2260Op op, void *dst, const void *src);
/* 1 if (t, op) is a legal combination (op NONE is legal for all dtypes). */
int sg2260_dtype_op_ok(Sg2260Dtype t, Sg2260Op op);

#ifdef __cplusplus
}
#endif
#endif
