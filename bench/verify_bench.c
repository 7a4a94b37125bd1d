/* verify_bench.c - time and peak memory of `collc verify` vs N.
 *
 *   verify_bench [--max-n N] [FILE.coll ...]
 *
 * Default inputs: dsl-examples/ring_allreduce.coll and
 * dsl-examples/rabenseifner_allreduce.coll, at N = 64, 256, 1024, 4096.
 * Every (algorithm, N) runs in a forked child so that its peak resident
 * memory (wait4's ru_maxrss) is its own. The child parses, instantiates and
 * verifies through the collc_core API and sends its timings through a pipe.
 * Printed: instantiate and verify wall seconds, verify CPU seconds, the
 * ratio of verify CPU time to the previous N (N^2 chunk operations predict
 * 16x for each 4x in N), and peak memory. Never a pass/fail: numbers only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include "front/front.h"
#include "schedule/schedule.h"
#include "analysis/verify.h"

#ifndef COLLC_SOURCE_DIR
#define COLLC_SOURCE_DIR "."
#endif

typedef struct Row {
    int ok;
    double t_inst, t_verify, cpu_verify;
    unsigned long long nxfers, values, intervals, slots;
    unsigned errors;
    int consistent;
} Row;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU time of this process: on a loaded machine (other builds, 2 cores)
 * wall time mostly measures waiting; CPU time measures the work. */
static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Child: everything for one (file, algorithm index, N). */
static Row run_one(const char *path, int alg_index, long N) {
    Row row = {0};
    Arena arena;
    arena_init(&arena);
    SourceManager sm;
    source_init(&sm);
    DiagEngine *dx = diag_new(&sm, stderr, DIAG_FMT_TEXT);
    Program prog = {0};
    int id = source_load(&sm, path);
    if (id < 0) { perror(path); return row; }
    if (parse_source(&arena, dx, (uint32_t)id, &prog) || sema_check(&arena, dx, &prog))
        return row;
    if (alg_index >= prog.nalgorithms) return row;
    SchedParams p = {0};
    p.N = N;
    Schedule s;
    const Stmt *req = NULL;
    double t0 = now();
    InstStatus st = instantiate(prog.algorithms[alg_index], &p, dx, &s, &req);
    double t1 = now();
    if (st != INST_OK) return row;
    VerifyStats vs;
    double c1 = cpu_now();
    unsigned e = verify_schedule(&s, dx, &arena, 0, &vs);
    double t2 = now();
    row.cpu_verify = cpu_now() - c1;
    diag_finish(dx);
    row.ok = 1;
    row.t_inst = t1 - t0;
    row.t_verify = t2 - t1;
    row.nxfers = s.nxfers;
    row.values = vs.values;
    row.intervals = vs.intervals;
    row.slots = vs.slots;
    row.errors = e;
    row.consistent = vs.consistent;
    return row;
}

static int count_algorithms(const char *path, char names[][64], int cap) {
    Arena arena;
    arena_init(&arena);
    SourceManager sm;
    source_init(&sm);
    DiagEngine *dx = diag_new(&sm, stderr, DIAG_FMT_TEXT);
    Program prog = {0};
    int id = source_load(&sm, path);
    if (id < 0) { perror(path); return 0; }
    if (parse_source(&arena, dx, (uint32_t)id, &prog) || sema_check(&arena, dx, &prog)) return 0;
    int n = prog.nalgorithms < cap ? prog.nalgorithms : cap;
    for (int i = 0; i < n; i++) snprintf(names[i], 64, "%s", prog.algorithms[i]->name);
    diag_delete(dx);
    source_free(&sm);
    arena_free(&arena);
    return n;
}

int main(int argc, char **argv) {
    long max_n = 4096;
    const char *files[16];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-n") && i + 1 < argc) max_n = atol(argv[++i]);
        else if (nfiles < 16) files[nfiles++] = argv[i];
    }
    if (!nfiles) {
        files[nfiles++] = COLLC_SOURCE_DIR "/dsl-examples/ring_allreduce.coll";
        files[nfiles++] = COLLC_SOURCE_DIR "/dsl-examples/rabenseifner_allreduce.coll";
    }
    const long ns[] = {64, 256, 1024, 4096};
    printf("%-24s %6s %10s %8s %9s %9s %7s %10s %10s %9s  %s\n", "algorithm", "N", "transfers",
           "inst s", "verify s", "cpu s", "x prev", "values", "intervals", "peak MiB", "result");
    for (int f = 0; f < nfiles; f++) {
        char names[16][64];
        int nalg = count_algorithms(files[f], names, 16);
        for (int a = 0; a < nalg; a++) {
            double prev = 0;
            for (size_t k = 0; k < sizeof ns / sizeof ns[0] && ns[k] <= max_n; k++) {
                int fd[2];
                if (pipe(fd)) { perror("pipe"); return 1; }
                fflush(stdout);
                pid_t pid = fork();
                if (pid == 0) {
                    close(fd[0]);
                    Row r = run_one(files[f], a, ns[k]);
                    if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
                    _exit(0);
                }
                close(fd[1]);
                Row r = {0};
                ssize_t got = read(fd[0], &r, sizeof r);
                close(fd[0]);
                int status = 0;
                struct rusage ru;
                wait4(pid, &status, 0, &ru);
                if (got != (ssize_t)sizeof r || !r.ok) {
                    printf("%-24s %6ld  (failed: status %d)\n", names[a], ns[k], status);
                    continue;
                }
                char ratio[16] = "-";
                if (prev > 0) snprintf(ratio, sizeof ratio, "%.1f", r.cpu_verify / prev);
                prev = r.cpu_verify;
                printf("%-24s %6ld %10llu %8.3f %9.3f %9.3f %7s %10llu %10llu %9.0f  %s%s\n", names[a], ns[k],
                       r.nxfers, r.t_inst, r.t_verify, r.cpu_verify, ratio, r.values, r.intervals,
                       (double)ru.ru_maxrss / 1024.0, r.errors ? "FAILED" : "verified",
                       r.consistent == 1 ? ", rank-consistent" : r.consistent == 0 ? ", NOT rank-consistent" : "");
            }
        }
    }
    return 0;
}
