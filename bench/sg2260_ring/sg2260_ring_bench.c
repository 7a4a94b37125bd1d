/* sg2260_ring_bench - the SG2260 engine model against the analytic ring
 * formulas, for the board's 4- and 8-chip rings and both machine profiles:
 *   AllReduce: 2(N-1)(t_s + (M/N)/bw)      AllGather: (N-1)(t_s + (M/N)/bw)
 * (M = bytes per chip, bw the link rate: the slower of link and CDMA
 * engine). The model adds what the formulas leave out: the AllGather's
 * message wait per dependent step, (N-2) t_sync; the AllReduce's L2 staging
 * of every reduce-scatter step (the chunk d = M/N copied DDR -> L2 and back
 * at v_ddr2l2) and its waits, (N-1)(2d/v_ddr2l2 + 3 t_sync). "extra_us" is
 * sim - analytic and "model_us" that sum; data_GB/s is the model's own speed
 * (payload bytes moved per wall-clock second).
 *   usage: sg2260_ring_bench [MAX_MIB]   (default 64) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sg2260.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    double max_mib = argc > 1 ? atof(argv[1]) : 64;
    const char *files[] = {SG2260_MACHINES "/sg2260-board.machine", SG2260_MACHINES "/sg2260-board-22g.machine"};
    printf("%-10s %-17s %2s %11s %12s %12s %8s %10s %10s %10s\n", "collective", "machine", "N", "M(bytes)", "sim_us",
           "analytic_us", "ratio", "extra_us", "model_us", "data_GB/s");
    for (int f = 0; f < 2; f++) {
        Sg2260Machine m;
        Sg2260Error e;
        if (sg2260_machine_load(files[f], &m, &e)) {
            sg2260_error_print(stderr, &e);
            return 1;
        }
        for (int coll = 0; coll < 2; coll++)
            for (int ri = 0; ri < 2; ri++) {
                const Sg2260Ring *rg = &m.rings[ri == 0 ? 2 : 0]; /* 1,0,2,3 and the 8-ring */
                int n = rg->len;
                for (double mb = 1.0 / 1024; mb <= max_mib; mb *= 8) {
                    uint32_t elems = (uint32_t)(mb * 1048576 / 4 / n);
                    elems -= elems % 32; /* 128-byte chunks */
                    if (elems == 0) continue;
                    Sg2260Bundle b = {0};
                    int rc = coll == 0 ? sg2260_ref_ring_allreduce(&b, &m, rg->chips, n, elems, SG2260_FP32,
                                                                   SG2260_OP_ADD, 0x100000, SG2260_L2(0), &e)
                                       : sg2260_ref_ring_allgather(&b, &m, rg->chips, n, elems, SG2260_FP32,
                                                                   0x100000, &e);
                    if (rc) {
                        sg2260_error_print(stderr, &e);
                        return 1;
                    }
                    Sg2260Sim *s = sg2260_sim_new(&m);
                    Sg2260Result r;
                    double t0 = now();
                    if (sg2260_sim_load(s, &b, &e) || sg2260_sim_run(s, &r)) {
                        sg2260_error_print(stderr, r.err.code ? &r.err : &e);
                        return 1;
                    }
                    double wall = now() - t0;
                    double M = (double)elems * 4 * n, d = M / n, bw = sg2260_machine_link_rate(&m, 0) * 1e3;
                    int steps = coll == 0 ? 2 * (n - 1) : n - 1;
                    double ana = steps * (m.startup_us + d / bw);
                    double extra = coll == 0 ? (n - 1) * (2 * d / (m.ddr_l2_GBps * 1e3) + 3 * m.sync_us)
                                             : (n - 2) * m.sync_us;
                    printf("%-10s %-17s %2d %11.0f %12.3f %12.3f %8.4f %10.3f %10.3f %10.3f\n",
                           coll == 0 ? "allreduce" : "allgather", m.name, n, M, r.time_us, ana, r.time_us / ana,
                           r.time_us - ana, extra, r.bytes / wall / 1e9);
                    sg2260_sim_free(s);
                    sg2260_bundle_free(&b);
                }
            }
    }
    return 0;
}
