/* cmd_sim.c - `collc sim FILE -N n ...`: compiles for the SG2260 as
 * `collc compile --target=sg2260` does (driver/sg2260_cli.h), runs the
 * descriptor programs on the engine model with real data, checks every
 * rank bit-exactly against the naive reference and reports the time, the
 * link utilisation and, on request, a trace. */
#include "driver/sg2260_cli.h"
#include "analysis/cost.h"
#include "driver/progress.h"
#include "support/util.h"
#include "collref.h"

#include <stdlib.h>
#include <string.h>

/* Writes the trace of the run to path with `writer`; 1 after reporting. */
static int write_trace(DiagEngine *dx, const char *path, const Sg2260Sim *sim,
                       int (*writer)(const Sg2260Sim *, FILE *)) {
    FILE *f = fopen(path, "w");
    int bad = !f || writer(sim, f) != 0;
    if (f && fclose(f) != 0) bad = 1;
    if (bad) diag_error(dx, span_none(), "io", "cannot write '%s'", path);
    return bad;
}

/* Runs one lowered algorithm on the engine model with reference data. */
static int sim_one(Session *s, SgOptions *o, const Sg2260Machine *m, SgLowered *L) {
    DiagEngine *dx = s->dx;
    const Algorithm *alg = L->alg;
    /* a Collective's value is its ABI value (both from coll_collectives.def) */
    coll_collective cc = (coll_collective)alg->coll;
    coll_dtype dt = COLL_F32;
    if (sg_ref_dtype(o->dtype, &dt)) COLLC_UNREACHABLE("sim checked the element type");
    coll_op op = sg_ref_op(o->op);
    int N = (int)o->N, root = collective_info[alg->coll].rooted ? (int)o->root : 0;
    size_t es = sg2260_dtype_size(o->dtype), count = (size_t)L->count;
    double M = (double)count * (double)es * (double)cost_blocks(alg->coll, o->N);
    Sg2260Sim *sim = sg2260_sim_new(m);
    Sg2260Error err;
    if (sg2260_sim_load(sim, &L->bundle, &err)) {
        diag_error(dx, alg->name_span, err.code, "%s", err.msg);
        sg2260_sim_free(sim);
        return 1;
    }
    sg2260_sim_enable_trace(sim, o->trace || o->svg);
    sg2260_sim_set_race_check(sim, o->race_check);
    for (int r = 0; r < N; r++) {
        size_t nb = (size_t)collref_in_blocks(cc, N, root, r) * count * es;
        if (!nb) continue;
        void *buf = xmalloc(nb);
        collref_fill(cc, dt, op, N, root, r, count, buf);
        if (sg2260_mem_write(sim, o->chips[r], L->layout.base[BUF_IN], buf, nb))
            COLLC_UNREACHABLE("layout checked against the machine's memory");
        free(buf);
    }
    Sg2260Result res;
    progress_step("simulating");
    int rc = sg2260_sim_run(sim, &res);
    progress_end();
    char szbuf[32];
    cost_fmt_bytes(M, szbuf, sizeof szbuf);
    printf("%s (%s) on %s: N = %d, chips ", alg->name, collective_info[alg->coll].keyword, m->name, N);
    sg_print_chips(stdout, o);
    if (collective_info[alg->coll].rooted) printf(", root %d", root);
    printf(", %s %s", szbuf, sg2260_dtype_name(o->dtype));
    if (collective_info[alg->coll].reducing) printf(" %s", sg2260_op_name(o->op));
    printf(", count %zu\n", count);
    printf("  programs %d channels, %zu descriptors: %zu SEND/RECV, %zu GENERAL (%zu chunk copies sunk), %zu "
           "barriers, %zu routed\n",
           L->stats.channels, L->stats.descs, L->stats.link_msgs, L->stats.generals, L->stats.sunk,
           L->stats.barriers, L->stats.routed);
    printf("  steps    %zu (%zu local only, %zu with exposed local copies), at most %zu message%s per link and "
           "step, M = %.0f B\n",
           L->sched.nsteps, L->stats.local_steps, L->stats.local_exposed, L->stats.max_link_msgs,
           L->stats.max_link_msgs == 1 ? "" : "s", M);
    int status = 0;
    if (rc) {
        diag_error(dx, alg->name_span, res.err.code, "%s", res.err.msg);
        status = 1;
    } else {
        int bad = -1;
        size_t bad_e = 0;
        for (int r = 0; r < N && bad < 0; r++) {
            size_t nb = (size_t)collref_out_blocks(cc, N, root, r) * count * es;
            if (!nb) continue;
            void *buf = xmalloc(nb);
            sg2260_mem_read(sim, o->chips[r], L->layout.base[BUF_OUT], buf, nb);
            size_t e = collref_check(cc, dt, op, N, root, count, r, buf);
            if (e != (size_t)-1) bad = r, bad_e = e;
            free(buf);
        }
        printf("  time     %.3f us (simulated)\n", res.time_us);
        double bytes = M;
        printf("  algbw    %.3f GB/s\n", res.time_us > 0 ? bytes / (res.time_us * 1e3) : 0.0);
        if (bad >= 0) {
            diag_error(dx, alg->name_span, "wrong-result",
                       "rank %d (chip %d): element %zu of the output differs from the reference", bad,
                       o->chips[bad], bad_e);
            status = 1;
        } else {
            printf("  check    OK (every rank bit-exact against the naive reference)\n");
        }
        sg2260_result_print(stdout, sim, &res);
    }
    if (o->trace && write_trace(dx, o->trace, sim, sg2260_trace_write_json)) status = 1;
    if (o->svg && write_trace(dx, o->svg, sim, sg2260_trace_write_svg)) status = 1;
    sg2260_sim_free(sim);
    return status;
}

int cmd_sim(int argc, char **argv) {
    SgCommand c;
    int status = sg_open(&c, 1, argc, argv);
    if (status >= 0) return status;
    int failed = 0;
    for (int k = 0; k < c.nalgs; k++) {
        SgLowered L;
        progress_begin("sim", c.algs[k]->name);
        if (sg_lower_one(&c.s, &c.o, &c.m, c.algs[k], &L) || sim_one(&c.s, &c.o, &c.m, &L)) failed = 1;
        fflush(stdout);
        sg_lowered_free(&L);
    }
    return sg_close(&c, failed);
}
