/* ref.c - reference descriptor programs for ring collectives.
 *
 * These are what a lowering of the ring algorithm should produce, written
 * directly against the descriptor API: tests compare them with the
 * hand-written program (tests/sg2260/Inputs/ring_allreduce4.s) and the
 * benchmark uses them to compare the model with the analytic ring formula.
 *
 * Layout: each chip's buffer at `base` holds n chunks of `elems` elements;
 * chunk k at base + k * elems * sizeof(dtype). Ring position r = ring[r]
 * sends on its port to ring[r+1] and receives on its port from ring[r-1]. */
#include <string.h>

#include "internal.h"

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

static void push_sys(Sg2260Program *p, Sg2260Sys sys, uint32_t id, uint32_t count) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = SG2260_CMD_SYS;
    d.sys = sys;
    d.msg_id = id;
    d.count = count;
    sg2260_program_push(p, &d);
}

static void push_xfer(Sg2260Program *p, Sg2260Cmd cmd, Sg2260Dtype t, uint64_t addr, const Sg2260Shape *sh,
                      Sg2260Op op, Sg2260Psum psum) {
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = cmd;
    d.dtype = t;
    d.shape = *sh;
    if (cmd == SG2260_CMD_SEND) d.src = addr, d.psum = psum;
    else d.dst = addr, d.op = op;
    sg2260_program_push(p, &d);
}

/* Steps: reduce-scatter (n-1 steps when reducing) then all-gather (n-1).
 * TX waits for message 0 before every send but the first; RX signals
 * message 0 after every landed chunk the TX still needs. */
static int gen(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems, Sg2260Dtype t,
               Sg2260Op op, uint64_t base, int reduce, Sg2260Error *err) {
    Sg2260Shape sh;
    if (reduce && (op == SG2260_OP_NONE || !sg2260_dtype_op_ok(t, op)))
        return sg_err(err, "dtype-op", NULL, 0, "reduce op %s is not allowed on dtype %s", sg2260_op_name(op),
                      sg2260_dtype_name(t));
    if (check_ring(m, ring, n, elems, t, reduce, &sh, err)) return -1;
    size_t es = sg2260_dtype_size(t);
    int rs_steps = reduce ? n - 1 : 0, steps = rs_steps + n - 1;
    for (int r = 0; r < n; r++) {
        int c = ring[r], nx = ring[(r + 1) % n], pv = ring[(r + n - 1) % n];
        int ptx = sg2260_machine_port_to(m, c, nx), prx = sg2260_machine_port_to(m, c, pv);
        /* creating a slot may move the others: take both pointers after */
        sg2260_bundle_program(b, c, ptx, SG2260_TX);
        Sg2260Program *rx = sg2260_bundle_program(b, c, prx, SG2260_RX);
        Sg2260Program *tx = sg2260_bundle_program(b, c, ptx, SG2260_TX);
        for (int i = 0; i < steps; i++) {
            int rs = i < rs_steps, g = i - rs_steps;
            /* all-gather starts from the chunk reduce-scatter completed here
             * (r+1), or from the chip's own chunk r without reduce-scatter */
            int send_k = rs ? r - i : (reduce ? r + 1 - g : r - g);
            int recv_k = rs ? r - 1 - i : (reduce ? r - g : r - 1 - g);
            if (i > 0) push_sys(tx, SG2260_SYS_TX_WAIT_MSG, 0, 1);
            push_xfer(tx, SG2260_CMD_SEND, t, chunk(base, send_k, n, elems, es), &sh, SG2260_OP_NONE,
                      rs ? SG2260_PSUM_WR : SG2260_PSUM_WO);
            push_xfer(rx, SG2260_CMD_RECV, t, chunk(base, recv_k, n, elems, es), &sh, rs ? op : SG2260_OP_NONE,
                      SG2260_PSUM_WO);
            if (i < steps - 1) push_sys(rx, SG2260_SYS_RX_SEND_MSG, 0, 0);
        }
        push_sys(tx, SG2260_SYS_END, 0, 0);
        push_sys(rx, SG2260_SYS_END, 0, 0);
    }
    return 0;
}

int sg2260_ref_ring_allreduce(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems,
                              Sg2260Dtype t, Sg2260Op op, uint64_t base, Sg2260Error *err) {
    return gen(b, m, ring, n, elems, t, op, base, 1, err);
}

int sg2260_ref_ring_allgather(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems,
                              Sg2260Dtype t, uint64_t base, Sg2260Error *err) {
    return gen(b, m, ring, n, elems, t, SG2260_OP_NONE, base, 0, err);
}
