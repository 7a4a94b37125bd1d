/* test_ring_allreduce.c - the 4-chip ring AllReduce program
 * (Inputs/ring_allreduce4.s) with real data, checked bit-exactly against a
 * reference that reduces in the ring's order, and the simulated time compared
 * with the analytic ring formula 2(N-1)(t_startup + (M/N)/bw) plus the terms
 * the model adds (L2 staging of every reduce step, message syncs).
 *
 * sg2260_ref_ring_allreduce() builds the same programs for any ring, chunk
 * size, dtype and op; for the file's case its text must equal the file's,
 * which ties the sweep below (2/4/8 chips, several dtypes and ops) to the
 * file. The ring AllGather generator is checked as well. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sg2260.h"

enum { BASE = 0x10000 };
#define L2BUF SG2260_L2(0)

/* The library's reference ring generator (targets/sg2260/ref.c). */
static void gen_ring(Sg2260Bundle *b, const Sg2260Machine *m, const int *ring, int n, uint32_t elems,
                     Sg2260Dtype t, Sg2260Op op) {
    Sg2260Error e;
    memset(b, 0, sizeof *b);
    if (sg2260_ref_ring_allreduce(b, m, ring, n, elems, t, op, BASE, L2BUF, &e)) {
        fprintf(stderr, "generator: %s\n", e.msg);
        exit(2);
    }
}

/* Independent reference of dst = dst (op) src, element by element. */
static float ref_f(Sg2260Op op, float a, float b) {
    volatile float r;
    switch (op) {
    case SG2260_OP_ADD: r = a + b; break;
    case SG2260_OP_MUL: r = a * b; break;
    case SG2260_OP_MAX: r = a > b ? a : b; break;
    case SG2260_OP_MIN: r = a < b ? a : b; break;
    default: r = b; break;
    }
    return r;
}

static void ref_elem(Sg2260Dtype t, Sg2260Op op, uint8_t *dst, const uint8_t *src) {
    switch (t) {
    case SG2260_FP32: {
        float a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        a = ref_f(op, a, b);
        memcpy(dst, &a, 4);
        break;
    }
    case SG2260_FP16: case SG2260_BF16: {
        uint16_t a, b;
        memcpy(&a, dst, 2);
        memcpy(&b, src, 2);
        if (t == SG2260_FP16) a = sg2260_float_to_fp16(ref_f(op, sg2260_fp16_to_float(a), sg2260_fp16_to_float(b)));
        else a = sg2260_float_to_bf16(ref_f(op, sg2260_bf16_to_float(a), sg2260_bf16_to_float(b)));
        memcpy(dst, &a, 2);
        break;
    }
    case SG2260_FP20: {
        uint32_t a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        a = sg2260_float_to_fp20(ref_f(op, sg2260_fp20_to_float(a), sg2260_fp20_to_float(b)));
        memcpy(dst, &a, 4);
        break;
    }
    case SG2260_INT32: {
        int32_t a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        if (op == SG2260_OP_ADD) a = (int32_t)((uint32_t)a + (uint32_t)b);
        else if (op == SG2260_OP_MAX) a = a > b ? a : b;
        else a = a < b ? a : b;
        memcpy(dst, &a, 4);
        break;
    }
    default: break;
    }
}

static void rnd_elem(Sg2260Dtype t, Sg2260Op op, uint8_t *p) {
    /* values near 1 for MUL so products stay finite */
    float f = op == SG2260_OP_MUL ? 0.5f + (float)(rnd() % 1000000) / 1000000.0f
                                  : (float)((double)(rnd() % 2000001) / 1000000.0 - 1.0);
    switch (t) {
    case SG2260_FP32: memcpy(p, &f, 4); break;
    case SG2260_FP16: { uint16_t v = sg2260_float_to_fp16(f); memcpy(p, &v, 2); break; }
    case SG2260_BF16: { uint16_t v = sg2260_float_to_bf16(f); memcpy(p, &v, 2); break; }
    case SG2260_FP20: { uint32_t v = sg2260_float_to_fp20(f); memcpy(p, &v, 4); break; }
    default: { uint32_t v = (uint32_t)rnd(); memcpy(p, &v, 4); break; }
    }
}

/* Runs the bundle with random data; checks every chip ends with the ring-order
 * reduction; returns simulated time (or -1). */
static double run_check(const Sg2260Machine *m, const Sg2260Bundle *b, const int *ring, int n, uint32_t elems,
                        Sg2260Dtype t, Sg2260Op op, int fill) {
    size_t es = sg2260_dtype_size(t), bytes = (size_t)n * elems * es;
    uint8_t *x = malloc(bytes * (size_t)n), *want = malloc(bytes), *got = malloc(bytes);
    Sg2260Sim *s = sg2260_sim_new(m);
    Sg2260Error e;
    CHECK_MSG(sg2260_sim_load(s, b, &e) == 0, "%s", e.msg);
    if (fill) {
        for (size_t i = 0; i < bytes * (size_t)n; i += es) rnd_elem(t, op, x + i);
        for (int r = 0; r < n; r++) sg2260_mem_write(s, ring[r], BASE, x + (size_t)r * bytes, bytes);
    } else {
        for (int r = 0; r < n; r++) sg2260_mem_read(s, ring[r], BASE, x + (size_t)r * bytes, bytes);
    }
    Sg2260Result res;
    int rc = sg2260_sim_run(s, &res);
    CHECK_MSG(rc == 0, "%s", res.err.msg);
    /* chunk k: v = x_k; v = x_{k+j} (op) v for j = 1..n-1 (positions mod n) */
    for (int k = 0; k < n; k++)
        for (uint32_t i = 0; i < elems; i++) {
            size_t off = ((size_t)k * elems + i) * es;
            uint8_t v[8];
            memcpy(v, x + (size_t)k * bytes + off, es);
            for (int j = 1; j < n; j++) {
                uint8_t d[8];
                memcpy(d, x + (size_t)((k + j) % n) * bytes + off, es);
                ref_elem(t, op, d, v);
                memcpy(v, d, es);
            }
            memcpy(want + off, v, es);
        }
    int bad = 0;
    for (int r = 0; r < n; r++) {
        sg2260_mem_read(s, ring[r], BASE, got, bytes);
        if (memcmp(got, want, bytes)) bad++;
    }
    CHECK_MSG(bad == 0, "%d chip(s) differ: n=%d elems=%u %s %s", bad, n, elems, sg2260_dtype_name(t),
              sg2260_op_name(op));
    sg2260_sim_free(s);
    free(x), free(want), free(got);
    return rc ? -1 : res.time_us;
}

static char *bundle_text(const Sg2260Bundle *b, const Sg2260Machine *m) {
    static char buf[1 << 16];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    sg2260_bundle_write(f, b, m);
    fclose(f);
    return buf;
}

int main(void) {
    Sg2260Machine m, m64;
    Sg2260Error e;
    if (sg2260_machine_load(SG2260_MACHINES "/sg2260-board.machine", &m, &e) ||
        sg2260_machine_load(SG2260_MACHINES "/sg2260-board-64g.machine", &m64, &e)) {
        sg2260_error_print(stderr, &e);
        return 1;
    }
    /* 1. The program of the file, its .fill data and a bit-exact check. */
    char *text = NULL;
    {
        FILE *f = fopen(SG2260_TESTDIR "/Inputs/ring_allreduce4.s", "rb");
        CHECK(f != NULL);
        if (!f) TEST_DONE();
        text = calloc(1, 1 << 16);
        size_t k = fread(text, 1, (1 << 16) - 1, f);
        text[k] = 0;
        fclose(f);
    }
    Sg2260Bundle hand, gen;
    CHECK_MSG(sg2260_bundle_parse(text, "ring_allreduce4.s", &m, &hand, &e) == 0, "%s", e.msg);
    free(text);
    static const int ring4[] = {1, 0, 2, 3};
    gen_ring(&gen, &m, ring4, 4, 64, SG2260_FP32, SG2260_OP_ADD);
    sg2260_bundle_sort(&gen);
    sg2260_bundle_sort(&hand);
    char *ht = strdup(bundle_text(&hand, &m));
    CHECK_MSG(!strcmp(ht, bundle_text(&gen, &m)), "generator differs from ring_allreduce4.s:\n%s", bundle_text(&gen, &m));
    free(ht);
    double t_hand = run_check(&m, &hand, ring4, 4, 64, SG2260_FP32, SG2260_OP_ADD, 0);  /* .fill data */
    double t_rand = run_check(&m, &hand, ring4, 4, 64, SG2260_FP32, SG2260_OP_ADD, 1);  /* random data */
    CHECK(t_hand > 0 && t_hand == t_rand);
    sg2260_bundle_free(&hand);
    sg2260_bundle_free(&gen);

    /* 2. Sweep: every ring of the board, 2 chips, dtypes and ops. */
    struct { Sg2260Dtype t; Sg2260Op op; } cases[] = {
        {SG2260_FP32, SG2260_OP_ADD}, {SG2260_FP32, SG2260_OP_MAX}, {SG2260_FP32, SG2260_OP_MUL},
        {SG2260_BF16, SG2260_OP_ADD}, {SG2260_FP16, SG2260_OP_ADD}, {SG2260_FP16, SG2260_OP_MIN},
        {SG2260_INT32, SG2260_OP_ADD}, {SG2260_INT32, SG2260_OP_MAX}, {SG2260_FP20, SG2260_OP_ADD}};
    static const int ring2[] = {0, 1};
    for (int rr = -1; rr < m.nrings; rr++) {
        const int *ring = rr < 0 ? ring2 : m.rings[rr].chips;
        int n = rr < 0 ? 2 : m.rings[rr].len;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            uint32_t elems = 64 * (1 + (uint32_t)(rnd() % 8)); /* keeps chunks 128-byte aligned */
            Sg2260Bundle b;
            gen_ring(&b, &m, ring, n, elems, cases[c].t, cases[c].op);
            run_check(&m, &b, ring, n, elems, cases[c].t, cases[c].op, 1);
            sg2260_bundle_free(&b);
        }
    }

    /* 2b. Ring AllGather: every chip ends with every chip's chunk. */
    for (int rr = 0; rr < m.nrings; rr++) {
        const Sg2260Ring *rg = &m.rings[rr];
        Sg2260Bundle b = {0};
        CHECK(sg2260_ref_ring_allgather(&b, &m, rg->chips, rg->len, 96, SG2260_BF16, BASE, &e) == 0);
        Sg2260Sim *s = sg2260_sim_new(&m);
        CHECK(sg2260_sim_load(s, &b, &e) == 0);
        uint16_t own[96 * 8], got[96 * 8];
        for (int r = 0; r < rg->len; r++) {
            for (int i = 0; i < 96; i++) own[i] = (uint16_t)(r * 1000 + i);
            sg2260_mem_write(s, rg->chips[r], BASE + (uint64_t)r * 96 * 2, own, 96 * 2);
        }
        Sg2260Result res;
        CHECK_MSG(sg2260_sim_run(s, &res) == 0, "%s", res.err.msg);
        double want_t = (rg->len - 1) * (m.startup_us + 96 * 2 / (sg2260_machine_link_rate(&m, 0) * 1e3)) +
                        (rg->len - 2) * m.sync_us;
        CHECK_MSG(fabs(res.time_us - want_t) < 1e-9, "allgather time %.9f vs %.9f", res.time_us, want_t);
        for (int r = 0; r < rg->len; r++) {
            sg2260_mem_read(s, rg->chips[r], BASE, got, (size_t)rg->len * 96 * 2);
            int ok = 1;
            for (int k = 0; k < rg->len; k++)
                for (int i = 0; i < 96; i++) ok &= got[k * 96 + i] == (uint16_t)(k * 1000 + i);
            CHECK_MSG(ok, "allgather ring %d chip %d", rr, rg->chips[r]);
        }
        sg2260_sim_free(s);
        sg2260_bundle_free(&b);
    }
    /* The generator adds to a bundle that already has programs (slots move). */
    {
        Sg2260Bundle b = {0};
        Sg2260Desc end;
        CHECK(sg2260_asm_line("SYS END", &end, &e) == 0);
        sg2260_program_push(sg2260_bundle_program(&b, 0, SG2260_CDMA, 2), &end);
        CHECK(sg2260_ref_ring_allreduce(&b, &m, m.rings[0].chips, 8, 64, SG2260_FP32, SG2260_OP_ADD, BASE, L2BUF, &e) == 0);
        CHECK(b.nslots == 25); /* two ports and a GDMA per chip, and chip 0's port 2 */
        run_check(&m, &b, m.rings[0].chips, 8, 64, SG2260_FP32, SG2260_OP_ADD, 1);
        sg2260_bundle_free(&b);
    }
    /* Generator argument checks. */
    {
        Sg2260Bundle b = {0};
        static const int bad[] = {0, 3};
        CHECK(sg2260_ref_ring_allreduce(&b, &m, bad, 2, 64, SG2260_FP32, SG2260_OP_ADD, BASE, L2BUF, &e) == -1 &&
              !strcmp(e.code, "bad-ring"));
        CHECK(sg2260_ref_ring_allreduce(&b, &m, ring4, 4, 64, SG2260_INT8, SG2260_OP_ADD, BASE, L2BUF, &e) == -1 &&
              !strcmp(e.code, "dtype-op"));
        CHECK(sg2260_ref_ring_allreduce(&b, &m, ring4, 4, 3, SG2260_FP32, SG2260_OP_ADD, BASE, L2BUF, &e) == -1 &&
              !strcmp(e.code, "align"));
        CHECK(sg2260_ref_ring_allreduce(&b, &m, ring4, 4, 64, SG2260_FP32, SG2260_OP_ADD, BASE, 0x100, &e) == -1 &&
              !strcmp(e.code, "reduce-l2"));
        sg2260_bundle_free(&b);
    }

    /* 3. Simulated time vs 2(N-1)(t_s + (M/N)/bw). A reduce-scatter step
     * also stages its chunk d through L2 (DDR -> L2 before the RECV, L2 ->
     * DDR after it: 2d/v_ddr2l2) and waits twice (the staged chunk, the
     * reduced chunk: 2 t_sync); an all-gather step waits once for the chunk
     * it forwards (t_sync). The model's time is exactly
     *   analytic + (N-1)(2d/v_ddr2l2 + 3 t_sync). */
    printf("%-18s %3s %10s %12s %12s %12s %8s\n", "machine", "N", "M(bytes)", "sim_us", "analytic_us",
           "+model_us", "ratio");
    const Sg2260Machine *ms[] = {&m, &m64};
    for (int mi = 0; mi < 2; mi++)
        for (int rr = 0; rr < 2; rr++) {
            const Sg2260Ring *rg = &ms[mi]->rings[rr == 0 ? 2 : 0]; /* 4-ring 1,0,2,3 and the 8-ring */
            int n = rg->len;
            static const uint32_t sizes[] = {64, 4096, 1u << 20};
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                uint32_t elems = sizes[si];
                Sg2260Bundle b;
                gen_ring(&b, ms[mi], rg->chips, n, elems, SG2260_FP32, SG2260_OP_ADD);
                double t = run_check(ms[mi], &b, rg->chips, n, elems, SG2260_FP32, SG2260_OP_ADD, 1);
                sg2260_bundle_free(&b);
                double M = (double)n * elems * 4, d = M / n;
                double bw = sg2260_machine_link_rate(ms[mi], 0) * 1e3, g = ms[mi]->ddr_l2_GBps * 1e3;
                double ana = 2.0 * (n - 1) * (ms[mi]->startup_us + d / bw);
                double model = ana + (n - 1) * (2 * d / g + 3 * ms[mi]->sync_us);
                printf("%-18s %3d %10.0f %12.4f %12.4f %12.4f %8.4f\n", ms[mi]->name, n, M, t, ana, model, t / ana);
                CHECK_MSG(fabs(t - model) <= 1e-9 * model, "sim %.9f vs %.9f", t, model);
            }
        }
    TEST_DONE();
}
