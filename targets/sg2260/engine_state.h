/* engine_state.h - the state of the SG2260 engine model, shared by its
 * files (not installed):
 *   engine.c         execution: commands, messages, rates, the event loop
 *   engine_load.c    the simulator's creation, settings, program loading
 *   engine_mem.c     the chips' sparse memory
 *   engine_xfer.c    data movement and the checks of a transfer's views
 *   engine_diag.c    where a descriptor is, errors and warnings at it
 *   engine_report.c  the result summary and the trace writers */
#ifndef COLLC_SG2260_ENGINE_STATE_H
#define COLLC_SG2260_ENGINE_STATE_H

#include <stdint.h>

#include "internal.h"

typedef struct ChipMem ChipMem; /* engine_mem.c */

typedef enum ChanState {
    CH_ABSENT,  /* no program */
    CH_READY,   /* may try its current command */
    CH_BUSY,    /* a transfer or timed wait is in flight */
    CH_DONE,    /* reached SYS END */
} ChanState;

/* Channels of one chip: the TX and RX side of each CDMA port, the GDMA,
 * one VSDMA per core. */
enum {
    CH_GDMA = 2 * SG2260_MAX_PORTS,
    CH_VSDMA0 = CH_GDMA + 1,
    CH_PER_CHIP = CH_VSDMA0 + SG2260_MAX_CORES,
    NCH = SG2260_MAX_CHIPS * CH_PER_CHIP,
};

typedef struct Prog {
    Sg2260Desc *descs;
    int *lines;
    Sg2260Note *notes;
    int n;
    int msg_base;           /* the engine's base message id register */
} Prog;

typedef struct Channel {
    int chip, index, side;  /* side: SG2260_TX/RX on a CDMA port, 0 elsewhere */
    Sg2260Engine engine;
    ChanState state;
    const Prog *prog;
    int *order;             /* descriptor indices this channel runs, in order */
    int n, pc;              /* order[pc] is the current one */
    int outstanding;        /* RX: credits posted whose data has not landed */
    int joins;              /* NOP/TRWR reached */
    int at_join;            /* arrival at the current join counted */
    int checked;            /* pc + 1 of the message descriptor last checked for warnings */
    double busy_until;      /* timed wait (sync latency) end, when state BUSY */
    int timed;              /* BUSY because of a timed wait (not a transfer) */
    double block_since;     /* <0: not blocked */
    double started;         /* start of the command in flight */
    char why[192];          /* reason of the current block */
} Channel;

typedef struct Credit {
    uint64_t dst;
    Sg2260Shape shape;
    Sg2260Dtype dtype;
    Sg2260Op op;
    int rx;        /* channel of the RX side that posted it */
    int rx_index;  /* descriptor index of the RECV */
} Credit;

enum { MAX_CREDITS = 64 };
typedef struct CreditQ {
    Credit q[MAX_CREDITS];
    int head, count;
} CreditQ;

/* One pending SEND_MSG of a message id. */
typedef struct MsgEntry {
    int remaining;      /* waiters still to take it */
    int waiters;        /* its count */
    uint64_t takers[2]; /* bit per channel of the chip that took it */
    int ch, index;      /* the sender */
} MsgEntry;

typedef struct MsgQ {
    MsgEntry *e;
    int n, cap;
} MsgQ;

typedef struct Xfer {
    int ch;              /* owning channel */
    int res;             /* resource index */
    int index;           /* descriptor index */
    double t0, stream_at;
    double remaining, bytes, cap, rate;
    int src_chip, dst_chip;
    uint64_t src, dst;
    Sg2260Shape sshape, dshape;
    Sg2260Dtype dtype;
    Sg2260Op op;
    int fill;
    uint32_t imm;
    int credit_rx;       /* RX channel whose credit this consumes, or -1 */
    int credit_index;    /* the RECV's descriptor index */
} Xfer;

typedef enum TraceKind {
    TR_CMD,   /* a command from start to completion */
    TR_WAIT,  /* blocked */
    TR_SYNC,  /* message-wait sync latency */
    TR_MARK,  /* an instant: RECV posted, SEND_MSG, data landed */
} TraceKind;

typedef struct TraceEv {
    int ch, index;
    double t0, t1;
    TraceKind kind;
    int flow;            /* >0: flow id (SEND start -> data landed at the RECV) */
    int flow_end;        /* 1: this event ends the flow */
    char name[48];
} TraceEv;

/* A transfer streaming on a link direction or a chip's local path. */
typedef struct LinkEv {
    int res;
    double t0, t1, bytes;
    int ch, index;
} LinkEv;

struct Sg2260Sim {
    Sg2260Machine m;
    ChipMem *mem[SG2260_MAX_CHIPS][2];  /* DDR, L2 */
    Channel ch[NCH];
    Prog *progs;
    int nprogs;
    CreditQ credits[SG2260_MAX_CHIPS * SG2260_MAX_PORTS]; /* at the sending port */
    MsgQ msgs[SG2260_MAX_CHIPS][SG2260_MSG_IDS];
    uint32_t trwr[NCH];                 /* id register of each engine */
    Xfer *xf;
    int nxf, capxf;
    int nres;
    double res_bw[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS]; /* bytes per us */
    double res_busy[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS];
    double res_bytes[2 * SG2260_MAX_LINKS + SG2260_MAX_CHIPS];
    double t;
    uint64_t commands, total_descs;
    Sg2260DataMode data;
    uint64_t sample_stride, sample_window;
    int trace_on;
    Sg2260Result *res;      /* of the run in progress (warnings) */
    int race_check;
    void (*progress)(void *, double, double, int);
    void *progress_ctx;
    TraceEv *tr;
    int ntr, captr;
    LinkEv *lk;
    int nlk, caplk;
    int nflows;
    double end_time;
    uint8_t *tmp[2];     /* data scratch, TMP_BYTES each */
};

enum { TMP_BYTES = 1 << 20 };

/* The channel of engine e (index: port, core) of chip; side on a CDMA port. */
static inline int chan_index(int chip, Sg2260Engine e, int index, int side) {
    int local = e == SG2260_CDMA ? 2 * index + side : e == SG2260_GDMA ? CH_GDMA : CH_VSDMA0 + index;
    return chip * CH_PER_CHIP + local;
}

/* The descriptor index at position pos of h's order, -1 past its ends. */
static inline int desc_at(const Channel *h, int pos) { return pos >= 0 && pos < h->n ? h->order[pos] : -1; }

/* engine_mem.c */
void sg_chipmem_free(ChipMem *m);
/* The memory space of a tagged address (0 DDR, 1 L2) and its size; -1 for
 * a tag the model does not have. */
int sg_space_of(const Sg2260Sim *s, uint64_t addr, uint64_t *limit);

/* engine_diag.c */
const char *sg_side_name(int side);
/* "chip 0 port 1 (->2) TX", "chip 0 gdma", "chip 0 vsdma 1" */
void sg_chan_label(const Sg2260Sim *s, const Channel *h, char *buf, size_t cap);
/* "chip 0 port 1 (->2) TX #3 (line 12): SEND ..." for descriptor idx. */
void sg_where_desc(const Sg2260Sim *s, const Channel *h, int idx, char *buf, size_t cap);
/* An error at the descriptor h is on (its source line kept); returns -1. */
int sg_run_err(Sg2260Sim *s, Sg2260Error *e, const Channel *h, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A warning: the hardware does not check it, the run goes on; the first
 * one is kept in the result. */
void sg_run_warn(Sg2260Sim *s, const Channel *h, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* engine_load.c */
/* 1 for a SEND_MSG or WAIT_MSG of any engine. */
int sg_desc_is_msg(const Sg2260Desc *d);

/* engine_xfer.c */
/* Applies a completed transfer's data; -1 with *e when the sampled data
 * mode cannot follow it. */
int sg_apply_xfer(Sg2260Sim *s, const Xfer *x, Sg2260Error *e);
/* Checks a view lies in the chip's memory; 0 or -1 (reported). */
int sg_check_view(Sg2260Sim *s, Sg2260Error *e, Channel *h, const char *what, int chip, uint64_t addr,
                  const Sg2260Shape *v, Sg2260Dtype t);
/* A transfer about to start that overlaps one in flight; 0 or -1 (reported). */
int sg_check_race(Sg2260Sim *s, Sg2260Error *e, Channel *h, const Xfer *x);

#endif
