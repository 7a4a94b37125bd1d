/* synth_bench.c - the time `collc synth` takes, by topology and size.
 *
 *   synth_bench [--max-n N] [--only COLLECTIVE] [--collc PATH]
 *
 * For every row of a fixed list (the four rows of docs/synth.md section 5,
 * other built-in topologies at N <= 16, torus(8,8) at N = 64 and
 * torus(16,16) at N = 256) it runs `collc synth COLLECTIVE --topo T -N n`
 * with the default options, as a user would: synthesis, printing, and the
 * check collc synth makes before it writes (the text parsed back, compared,
 * verified and priced). Reported: wall and CPU seconds of the process
 * (wait4's rusage: on a shared machine the CPU time is the work), its peak
 * memory, and from the written header the split and the bandwidth term
 * against collc's bound. Never a pass/fail: numbers only
 * (bench/RESULTS.md). */
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

#ifndef COLLC_EXE
#define COLLC_EXE "collc"
#endif

typedef struct Case {
    const char *coll, *topo;
    long N;
} Case;

static const Case cases[] = {
    {"allgather", "sg2260", 8},           {"allreduce", "sg2260", 8},
    {"allgather", "hypercube", 8},        {"allgather", "torus(4,4)", 16},
    {"reduce_scatter", "sg2260", 8},      {"reduce_scatter", "torus(4,4)", 16},
    {"allreduce", "torus(4,4)", 16},      {"allreduce", "hypercube", 8},
    {"broadcast", "sg2260", 8},           {"reduce", "sg2260", 8},
    {"allgather", "ring", 16},            {"allreduce", "biring", 16},
    {"allreduce", "full(2)", 16},         {"broadcast", "torus(4,4)", 16},
    {"allgather", "torus(8,8)", 64},      {"reduce_scatter", "torus(8,8)", 64},
    {"allreduce", "torus(8,8)", 64},      {"broadcast", "torus(8,8)", 64},
    {"allgather", "torus(16,16)", 256},   {"allreduce", "torus(16,16)", 256},
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The text after `key` on its line of the header, or "?". */
static void field(const char *text, const char *key, char *buf, size_t size) {
    const char *p = strstr(text, key);
    snprintf(buf, size, "?");
    if (!p) return;
    p += strlen(key);
    size_t n = strcspn(p, "\n");
    if (n >= size) n = size - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
}

/* "4·α + 7/16·M/β + ..." -> "7/16" */
static void beta_of(const char *terms, char *buf, size_t size) {
    const char *e = strstr(terms, "·M/β");
    snprintf(buf, size, "?");
    if (!e) return;
    const char *s = e;
    while (s > terms && s[-1] != ' ') s--;
    size_t n = (size_t)(e - s);
    if (n == 0) snprintf(buf, size, "1");
    else if (n < size) {
        memcpy(buf, s, n);
        buf[n] = 0;
    }
}

int main(int argc, char **argv) {
    long max_n = 1L << 30;
    const char *only = NULL, *collc = COLLC_EXE;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-n") == 0 && i + 1 < argc) max_n = atol(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--collc") == 0 && i + 1 < argc) collc = argv[++i];
        else {
            fprintf(stderr, "usage: synth_bench [--max-n N] [--only COLLECTIVE] [--collc PATH]\n");
            return 2;
        }
    }
    const char *dir = getenv("TMPDIR");
    char out[4096];
    snprintf(out, sizeof out, "%s/synth_bench_XXXXXX", dir && *dir ? dir : P_tmpdir);
    int ofd = mkstemp(out);
    if (ofd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(ofd);
    printf("| collective | topology | N | split | bandwidth | bound | wall s | CPU s | peak MiB |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const Case *c = &cases[k];
        if (c->N > max_n || (only && strcmp(only, c->coll) != 0)) continue;
        char n[32];
        snprintf(n, sizeof n, "%ld", c->N);
        double t0 = now();
        pid_t pid = fork();
        if (pid == 0) {
            execl(collc, collc, "synth", c->coll, "--topo", c->topo, "-N", n, "-o", out, (char *)NULL);
            _exit(127);
        }
        int status;
        struct rusage ru;
        wait4(pid, &status, 0, &ru);
        double wall = now() - t0;
        double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("| %s | %s | %ld | failed (status %d) | | | | | |\n", c->coll, c->topo, c->N, status);
            continue;
        }
        /* the header: split, cost and bound */
        FILE *f = fopen(out, "r");
        char head[4096] = "";
        size_t got = f ? fread(head, 1, sizeof head - 1, f) : 0;
        head[got] = 0;
        if (f) fclose(f);
        char split[128], cost[256], bound[256], b[48], lb[48];
        field(head, "// Split: ", split, sizeof split);
        field(head, ": T = ", cost, sizeof cost);
        field(head, "// Lower bound (collc cost): ", bound, sizeof bound);
        beta_of(cost, b, sizeof b);
        beta_of(bound, lb, sizeof lb);
        split[strcspn(split, " ")] = 0;
        printf("| %s | %s | %ld | %s | %s | %s | %.3f | %.3f | %.0f |\n", c->coll, c->topo, c->N, split, b, lb, wall,
               cpu, (double)ru.ru_maxrss / 1024);
        fflush(stdout);
    }
    unlink(out);
    return 0;
}
