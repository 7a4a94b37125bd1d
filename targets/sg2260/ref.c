/* ref.c - reference descriptor programs for ring collectives.
 *
 * These are what a lowering of the ring algorithm should produce, written
 * directly against the descriptor API: tests compare them with the program
 * in tests/sg2260/Inputs/ring_allreduce4.s and the benchmark uses them to
 * compare the model with the analytic ring formula.
 *
 * Layout: each chip's buffer at `base` holds n chunks of `elems` elements;
 * chunk k at base + k * elems * sizeof(dtype). Ring position r = ring[r]
 * sends on its port to ring[r+1] and receives on its port from ring[r-1].
 * A reduce-scatter step stages the received chunk through L2 as SCCL does:
 * GDMA copies the receiver's chunk to L2 at `l2`, the RECV reduces into it,
 * GDMA copies it back. Messages (ids below, each sent for one waiter):
 *   REF_MSG_STAGED  GDMA -> RX: the chunk is in L2, post the RECV
 *   REF_MSG_REDUCED RX -> GDMA: the reduced chunk has landed in L2
 *   REF_MSG_BACK    GDMA -> TX: the chunk is back in DDR, send it on
 *   REF_MSG_LANDED  RX -> TX:   an all-gather chunk has landed, send it on */
#include <string.h>

#include "internal.h"

enum { REF_MSG_LANDED = 0, REF_MSG_STAGED = 1, REF_MSG_REDUCED = 2, REF_MSG_BACK = 3 };

static uint64_t chunk(uint64_t base, int k, int n, uint32_t elems, size_t es) {
    return base + (uint64_t)(((k % n) + n) % n) * elems * es;
}

static int check_ring(const Sg2260Machine *m, const int *ring, int n, uint32_t elems, Sg2260Dtype t,
                      int reduce, Sg2260Shape *sh, Sg2260Error *err) {
    if (n < 2 || n > m->nchips) return sg_err(err, "bad-ring", NULL, 0, "ring of %d chips", n);
    for (int r = 0; r < n; r++)
        if (sg2260_machine_port_to(m, ring[r], ring[(r + 1) % n]) < 0)
            return sg_err(err, "bad-ring", NULL, 0, "ring step %d -> %d has no link", ring[r], ring[(r + 1) % n]);
    if (sg2260_shape_packed(elems, sh))
        return sg_err(err, "shape", NULL, 0, "%u elements do not fit a packed N,C,H,W view", elems);
    /* reducing writes and FP20 need 128-byte aligned chunks */
    if ((reduce || t == SG2260_FP20) && (size_t)elems * sg2260_dtype_size(t) % SG2260_ALIGN)
        return sg_err(err, "align", NULL, 0, "chunks of %u %s elements are not 128-byte multiples", elems,
                      sg2260_dtype_name(t));
    return 0;
}

static void push_sys(Sg2260Bundle *b, int chip, Sg2260Engine e, int index, Sg2260Sys sys, uint32_t id,
                     uint32_t count) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = SG2260_CMD_SYS;
    d.sys = sys;
    d.msg_id = id;
    d.count = count;
    sg2260_program_push(sg2260_bundle_program(b, chip, e, index), &d);
}

static void push_xfer(Sg2260Bundle *b, int chip, int port, Sg2260Cmd cmd, Sg2260Dtype t, uint64_t addr,
                      const Sg2260Shape *sh, Sg2260Op op, Sg2260Psum psum) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = cmd;
    d.dtype = t;
    d.shape = *sh;
    if (cmd == SG2260_CMD_SEND) d.src = addr, d.psum = psum;
    else d.dst = addr, d.op = op;
    sg2260_program_push(sg2260_bundle_program(b, chip, SG2260_CDMA, port), &d);
}

static void push_copy(Sg2260Bundle *b, int chip, Sg2260Dtype t, uint64_t src, uint64_t dst, const Sg2260Shape *sh) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = SG2260_CMD_COPY;
    d.dtype = t;
    d.src = src, d.dst = dst;
    d.shape = d.dshape = *sh;
    sg2260_program_push(sg2260_bundle_program(b, chip, SG2260_GDMA, 0), &d);
}

/* Steps: reduce-scatter (n-1 steps when reducing) then all-gather (n-1).
 * Each chip's TX sends the chunk it last completed; its RX receives the
 * next one. */
static int gen(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems, Sg2260Dtype t,
               Sg2260Op op, uint64_t base, uint64_t l2, int reduce, Sg2260Error *err) {
    Sg2260Shape sh;
    if (reduce && (op == SG2260_OP_NONE || !sg2260_dtype_op_ok(t, op)))
        return sg_err(err, "dtype-op", NULL, 0, "reduce op %s is not allowed on dtype %s", sg2260_op_name(op),
                      sg2260_dtype_name(t));
    if (check_ring(m, ring, n, elems, t, reduce, &sh, err)) return -1;
    if (reduce && (SG2260_ADDR_TAG(l2) != SG2260_TAG_L2 || l2 % SG2260_ALIGN))
        return sg_err(err, "reduce-l2", NULL, 0, "the staging address must be a 128-byte aligned L2 address");
    size_t es = sg2260_dtype_size(t);
    int rs_steps = reduce ? n - 1 : 0, steps = rs_steps + n - 1;
    for (int r = 0; r < n; r++) {
        int c = ring[r], nx = ring[(r + 1) % n], pv = ring[(r + n - 1) % n];
        int ptx = sg2260_machine_port_to(m, c, nx), prx = sg2260_machine_recv_port(m, c, pv);
        for (int i = 0; i < steps; i++) {
            int rs = i < rs_steps, g = i - rs_steps;
            /* all-gather starts from the chunk reduce-scatter completed here
             * (r+1), or from the chip's own chunk r without reduce-scatter */
            int send_k = rs ? r - i : (reduce ? r + 1 - g : r - g);
            int recv_k = rs ? r - 1 - i : (reduce ? r - g : r - 1 - g);
            uint64_t send_a = chunk(base, send_k, n, elems, es), recv_a = chunk(base, recv_k, n, elems, es);
            /* TX: wait until the chunk to send is complete here */
            if (i > 0)
                push_sys(b, c, SG2260_CDMA, ptx, SG2260_SYS_TX_WAIT_MSG, i <= rs_steps ? REF_MSG_BACK : REF_MSG_LANDED,
                         1);
            push_xfer(b, c, ptx, SG2260_CMD_SEND, t, send_a, &sh, SG2260_OP_NONE, rs ? SG2260_PSUM_WR : SG2260_PSUM_WO);
            int tx_needs = i < steps - 1; /* the next step sends what arrives now */
            if (rs) {
                /* stage: DDR -> L2, reduce into L2, L2 -> DDR */
                push_copy(b, c, t, recv_a, l2, &sh);
                push_sys(b, c, SG2260_GDMA, 0, SG2260_SYS_SEND_MSG, REF_MSG_STAGED, 1);
                push_sys(b, c, SG2260_CDMA, prx, SG2260_SYS_RX_WAIT_MSG, REF_MSG_STAGED, 1);
                push_xfer(b, c, prx, SG2260_CMD_RECV, t, l2, &sh, op, SG2260_PSUM_WO);
                push_sys(b, c, SG2260_CDMA, prx, SG2260_SYS_NOP, 0, 0); /* the fence: the data landed */
                push_sys(b, c, SG2260_CDMA, prx, SG2260_SYS_RX_SEND_MSG, REF_MSG_REDUCED, 1);
                push_sys(b, c, SG2260_GDMA, 0, SG2260_SYS_WAIT_MSG, REF_MSG_REDUCED, 1);
                push_copy(b, c, t, l2, recv_a, &sh);
                if (tx_needs) push_sys(b, c, SG2260_GDMA, 0, SG2260_SYS_SEND_MSG, REF_MSG_BACK, 1);
            } else {
                push_xfer(b, c, prx, SG2260_CMD_RECV, t, recv_a, &sh, SG2260_OP_NONE, SG2260_PSUM_WO);
                if (tx_needs) {
                    push_sys(b, c, SG2260_CDMA, prx, SG2260_SYS_NOP, 0, 0);
                    push_sys(b, c, SG2260_CDMA, prx, SG2260_SYS_RX_SEND_MSG, REF_MSG_LANDED, 1);
                }
            }
        }
        push_sys(b, c, SG2260_CDMA, ptx, SG2260_SYS_END, 0, 0);
        if (prx != ptx) push_sys(b, c, SG2260_CDMA, prx, SG2260_SYS_END, 0, 0);
        if (reduce) push_sys(b, c, SG2260_GDMA, 0, SG2260_SYS_END, 0, 0);
    }
    return 0;
}

int sg2260_ref_ring_allreduce(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems,
                              Sg2260Dtype t, Sg2260Op op, uint64_t base, uint64_t l2, Sg2260Error *err) {
    return gen(b, m, ring, n, elems, t, op, base, l2, 1, err);
}

int sg2260_ref_ring_allgather(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems,
                              Sg2260Dtype t, uint64_t base, Sg2260Error *err) {
    return gen(b, m, ring, n, elems, t, SG2260_OP_NONE, base, 0, 0, err);
}
