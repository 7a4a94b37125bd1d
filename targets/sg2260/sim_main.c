/* sim_main.c - sg2260-sim: assemble, check and run descriptor programs on the
 * engine model.
 *
 *   sg2260-sim PROG.s [--machine FILE] [--trace OUT.json] [--svg OUT.svg]
 *              [--dump CHIP:ADDR:DTYPE:COUNT]... [--disasm] [--encode OUT.bin]
 *              [--emit-c OUT.c [--c-name NAME]]
 *              [--print-machine] [--no-run] [--no-race-check] [--timing-only] [--quiet]
 * Exit status: 0 ok, 1 input error / rule violation / deadlock, 2 usage. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static void usage(FILE *out) {
    fputs("usage: sg2260-sim PROG.s [--machine FILE] [--trace OUT.json] [--svg OUT.svg]\n"
          "                  [--dump CHIP:ADDR:DTYPE:COUNT]... [--disasm] [--encode OUT.bin]\n"
          "                  [--emit-c OUT.c [--c-name NAME]]\n"
          "                  [--print-machine] [--no-run] [--no-race-check] [--timing-only] [--quiet]\n"
          "  --dump CHIP:ADDR:DTYPE:COUNT (ADDR a DDR offset or l2:OFFSET)\n",
          out);
}

static void print_elem(Sg2260Dtype t, const uint8_t *p) {
    switch (t) {
    case SG2260_INT8: printf("%d", (int8_t)p[0]); break;
    case SG2260_INT16: { int16_t v; memcpy(&v, p, 2); printf("%d", v); break; }
    case SG2260_INT32: { int32_t v; memcpy(&v, p, 4); printf("%d", v); break; }
    case SG2260_FP32: { float v; memcpy(&v, p, 4); printf("%.9g", (double)v); break; }
    case SG2260_FP16: { uint16_t v; memcpy(&v, p, 2); printf("%.9g", (double)sg2260_fp16_to_float(v)); break; }
    case SG2260_BF16: { uint16_t v; memcpy(&v, p, 2); printf("%.9g", (double)sg2260_bf16_to_float(v)); break; }
    case SG2260_FP20: { uint32_t v; memcpy(&v, p, 4); printf("%.9g", (double)sg2260_fp20_to_float(v)); break; }
    }
}

static void print_err(const char *file, Sg2260Error *e) {
    if (!e->file[0] && file) snprintf(e->file, sizeof e->file, "%s", file);
    sg2260_error_print(stderr, e);
}

/* --dump CHIP:ADDR:DTYPE:COUNT (or CHIP:l2:OFFSET:DTYPE:COUNT): print the
 * elements after the run. Returns 0, 1 (outside memory) or 2 (bad spec). */
static int dump_memory(Sg2260Sim *s, const char *spec) {
    char buf[128], *tok[5];
    snprintf(buf, sizeof buf, "%s", spec);
    int nt = 0;
    for (char *p = strtok(buf, ":"); p && nt < 5; p = strtok(NULL, ":")) tok[nt++] = p;
    /* CHIP:l2:OFFSET:DTYPE:COUNT names an L2 address */
    int l2 = nt == 5 && !strcasecmp(tok[1], "l2");
    if (l2) {
        tok[1] = tok[2], tok[2] = tok[3], tok[3] = tok[4];
        nt = 4;
    }
    uint64_t chip, addr, count;
    int t = nt == 4 ? sg2260_dtype_find(tok[2]) : -1;
    if (nt != 4 || sg_parse_u64(tok[0], &chip) || sg_parse_u64(tok[1], &addr) || t < 0 ||
        sg_parse_u64(tok[3], &count) || count > (1u << 24) || addr > (l2 ? SG2260_L2_MAX_OFFSET : SG2260_OFFSET_MASK)) {
        fprintf(stderr, "sg2260-sim: bad --dump '%s' (CHIP:ADDR:DTYPE:COUNT)\n", spec);
        return 2;
    }
    if (l2) addr = SG2260_L2(addr);
    size_t es = sg2260_dtype_size((Sg2260Dtype)t);
    uint8_t *data = sg_xmalloc(count * es + 1);
    if (sg2260_mem_read(s, (int)chip, addr, data, count * es)) {
        fprintf(stderr, "sg2260-sim: --dump '%s' is outside chip memory\n", spec);
        free(data);
        return 1;
    }
    printf("chip %d %s0x%llx %s:", (int)chip, l2 ? "l2:" : "", (unsigned long long)SG2260_ADDR_OFFSET(addr),
           sg2260_dtype_name((Sg2260Dtype)t));
    for (uint64_t k = 0; k < count; k++) {
        putchar(' ');
        print_elem((Sg2260Dtype)t, data + k * es);
    }
    putchar('\n');
    free(data);
    return 0;
}

/* --encode (the bundle image) and --emit-c (the image as C). Returns 1 on
 * an error, reported. */
static int write_bundle(const Sg2260Bundle *b, const char *prog, const char *encode, const char *emit_c,
                        const char *c_name) {
    Sg2260Error err;
    if (encode) {
        FILE *f = fopen(encode, "wb");
        if (!f) {
            fprintf(stderr, "sg2260-sim: cannot write '%s'\n", encode);
            return 1;
        }
        uint8_t *bytes;
        long n = sg2260_bundle_encode(b, &bytes, &err);
        if (n < 0) {
            print_err(prog, &err);
            fclose(f);
            return 1;
        }
        fwrite(bytes, 1, (size_t)n, f);
        free(bytes);
        fclose(f);
    }
    if (emit_c) {
        FILE *f = fopen(emit_c, "w");
        int bad = !f || sg2260_bundle_write_c(f, b, c_name, &err);
        if (f) fclose(f);
        if (bad) {
            if (f) print_err(prog, &err);
            else fprintf(stderr, "sg2260-sim: cannot write '%s'\n", emit_c);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *prog = NULL, *machine = NULL, *trace = NULL, *svg = NULL, *encode = NULL;
    const char *emit_c = NULL, *c_name = "sg2260_bundle";
    const char *dumps[64];
    int ndumps = 0, disasm = 0, quiet = 0, print_machine = 0, no_run = 0, races = 1, timing_only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--machine") && more) machine = argv[++i];
        else if (!strcmp(a, "--trace") && more) trace = argv[++i];
        else if (!strcmp(a, "--svg") && more) svg = argv[++i];
        else if (!strcmp(a, "--encode") && more) encode = argv[++i];
        else if (!strcmp(a, "--emit-c") && more) emit_c = argv[++i];
        else if (!strcmp(a, "--c-name") && more) c_name = argv[++i];
        else if (!strcmp(a, "--dump") && more && ndumps < 64) dumps[ndumps++] = argv[++i];
        else if (!strcmp(a, "--disasm")) disasm = 1;
        else if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--no-run")) no_run = 1;
        else if (!strcmp(a, "--no-race-check")) races = 0;
        else if (!strcmp(a, "--timing-only")) timing_only = 1;
        else if (!strcmp(a, "--print-machine")) print_machine = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "sg2260-sim: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!prog) prog = a;
        else {
            usage(stderr);
            return 2;
        }
    }
    Sg2260Machine m;
    Sg2260Error err;
    if (machine) {
        if (sg2260_machine_load(machine, &m, &err)) {
            print_err(machine, &err);
            return 1;
        }
    } else {
        sg2260_machine_default(&m);
    }
    if (print_machine) {
        sg2260_machine_write(stdout, &m);
        if (!prog) return 0;
    }
    if (!prog) {
        usage(stderr);
        return 2;
    }
    size_t len;
    char *text = sg_read_file(prog, &len);
    if (!text) {
        fprintf(stderr, "sg2260-sim: cannot read '%s'\n", prog);
        return 1;
    }
    Sg2260Bundle b;
    /* A bundle image (--encode output, backend output) or the text form. */
    int rc = sg2260_bundle_is_binary((const uint8_t *)text, len)
                 ? sg2260_bundle_decode((const uint8_t *)text, len, &b, &err)
                 : sg2260_bundle_parse(text, prog, &m, &b, &err);
    free(text);
    if (rc) {
        print_err(prog, &err);
        return 1;
    }
    if (disasm) sg2260_bundle_write(stdout, &b, &m);
    if (write_bundle(&b, prog, encode, emit_c, c_name)) {
        sg2260_bundle_free(&b);
        return 1;
    }
    Sg2260Sim *s = sg2260_sim_new(&m);
    if (timing_only) sg2260_sim_set_data(s, SG2260_DATA_NONE, 0, 0);
    if (sg2260_sim_load(s, &b, &err)) {
        print_err(prog, &err);
        sg2260_sim_free(s);
        sg2260_bundle_free(&b);
        return 1;
    }
    sg2260_bundle_free(&b);
    if (no_run) { /* assembled and statically checked only */
        sg2260_sim_free(s);
        return 0;
    }
    sg2260_sim_enable_trace(s, trace || svg);
    sg2260_sim_set_race_check(s, races);
    Sg2260Result r;
    rc = sg2260_sim_run(s, &r);
    if (!quiet) sg2260_result_print(stdout, s, &r);
    if (r.nwarnings) {
        if (!r.warning.file[0]) snprintf(r.warning.file, sizeof r.warning.file, "%s", prog);
        sg2260_warning_print(stderr, &r.warning);
        if (r.nwarnings > 1) fprintf(stderr, "  (%d warnings, the first shown)\n", r.nwarnings);
    }
    if (rc) print_err(prog, &r.err);
    for (int i = 0; i < ndumps; i++) {
        int bad = dump_memory(s, dumps[i]);
        if (bad) {
            sg2260_sim_free(s);
            return bad;
        }
    }
    int io = 0;
    if (trace) {
        FILE *f = fopen(trace, "w");
        if (!f || sg2260_trace_write_json(s, f)) io = 1;
        if (f) fclose(f);
    }
    if (svg) {
        FILE *f = fopen(svg, "w");
        if (!f || sg2260_trace_write_svg(s, f)) io = 1;
        if (f) fclose(f);
    }
    if (io) fprintf(stderr, "sg2260-sim: cannot write trace output\n");
    sg2260_sim_free(s);
    return rc || io ? 1 : 0;
}
