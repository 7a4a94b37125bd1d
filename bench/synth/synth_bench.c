/* synth_bench.c - the time `collc synth` takes, by topology and size.
 *
 *   synth_bench [--max-n N] [--only COLLECTIVE] [--collc PATH]
 *   synth_bench --random COUNT [--seed S] [--only COLLECTIVE] [--collc PATH] [--rows]
 *               [--check [--examples DIR]]
 *   synth_bench --random COUNT [--seed S] --write DIR
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
 * (bench/RESULTS.md).
 *
 * --random COUNT: a seeded family of COUNT random connected topologies
 * instead (seeds S .. S+COUNT-1, default S = 1): 4 to 16 ranks on a random
 * spanning tree whose links go both ways, plus up to N extra links (some one
 * way), bandwidths drawn from 0.25 to 3 beta, a link doubled by a parallel
 * one of another bandwidth now and then, and in a third of them a switch
 * node that some tree links pass through. Every collective synth makes runs
 * on every topology (a run is stopped after 60 s of CPU); printed: the
 * distribution of the CPU seconds per collective (median, 90th percentile,
 * maximum, runs over 0.5 s), how many runs failed, and how many reached the
 * bandwidth bound, with the worst ratio to it. --rows also prints one row
 * per run. --write DIR only writes the topologies, DIR/randSEED.coll (each
 * with its `topology rand` block), and runs nothing.
 *
 * --check (with --random): every output is also run with `collc run` on
 * cpu threads (verified for its N, compiled, every rank's result compared
 * bit for bit with the reference), and priced by `collc compare` next to
 * every shipped algorithm (the .coll files of dsl-examples/, --examples DIR)
 * on its topology: an output whose β term is above the smallest β term of a
 * shipped algorithm that applies there is "worse than shipped". The table
 * then counts the runs that failed on threads and the runs worse than
 * shipped (both must be 0). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
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
#ifndef COLLC_EXAMPLES_DIR
#define COLLC_EXAMPLES_DIR "dsl-examples"
#endif
#include <fcntl.h>

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

/* "4·α + 7/16·M/β + ..." -> "7/16"; "4·α + M/β" -> "1" */
static void beta_of(const char *terms, char *buf, size_t size) {
    const char *e = strstr(terms, "·M/β");
    snprintf(buf, size, "?");
    if (!e) {
        e = strstr(terms, "M/β");
        if (e && (e == terms || e[-1] == ' ')) snprintf(buf, size, "1");
        return;
    }
    const char *s = e;
    while (s > terms && s[-1] != ' ') s--;
    size_t n = (size_t)(e - s);
    if (n == 0) snprintf(buf, size, "1");
    else if (n < size) {
        memcpy(buf, s, n);
        buf[n] = 0;
    }
}

/* One run of `collc ARGS...`, stopped after cpu_limit seconds of CPU: 0,
 * or the wait status when it failed. quiet: its standard output into file
 * `out` (NULL: discarded) and its standard error discarded. Its CPU
 * seconds, wall seconds and peak MiB into *cpu, *wall, *mib. */
static int run_collc(const char *collc, char *const *args, int quiet, const char *out, int cpu_limit, double *cpu,
                     double *wall, double *mib) {
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) {
        if (quiet) {
            int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
            int nul = open("/dev/null", O_WRONLY);
            if (fd < 0 || nul < 0) _exit(127);
            dup2(fd, 1);
            dup2(nul, 2);
        }
        struct rlimit rl = {(rlim_t)cpu_limit, (rlim_t)cpu_limit + 1};
        setrlimit(RLIMIT_CPU, &rl);
        execv(collc, args);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    *wall = now() - t0;
    *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
    *mib = (double)ru.ru_maxrss / 1024;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : (status ? status : -1);
}

/* One timed run of `collc synth ARGS... -o out` (60 s of CPU at most). */
static int run_synth(const char *collc, char *const *args, double *cpu, double *wall, double *mib) {
    return run_collc(collc, args, 0, NULL, 60, cpu, wall, mib);
}

/* An untimed run of a check (120 s of CPU at most), its standard output
 * into `out` (NULL: none); 1 when it exits 0. */
static int run_quiet(const char *collc, char *const *args, const char *out) {
    double cpu, wall, mib;
    return run_collc(collc, args, 1, out, 120, &cpu, &wall, &mib) == 0;
}

/* splitmix64: the family depends on the seed only. */
static uint64_t rnd_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static long rnd(uint64_t *s, long n) { return (long)(rnd_next(s) % (uint64_t)n); }

static const char *const bandwidths[] = {"0.25", "0.3", "0.5", "0.75", "1", "1", "1.25", "1.5", "2", "3"};
#define NBW (sizeof bandwidths / sizeof *bandwidths)

/* The topology `rand` of seed `seed` into file `path`; returns its N. */
static long random_topology(unsigned long seed, const char *path) {
    uint64_t st = seed * 0x2545F4914F6CDD1Dull + 1;
    long n = 4 + rnd(&st, 13);
    int sw = rnd(&st, 3) == 0;
    long order[16];
    for (long i = 0; i < n; i++) order[i] = i;
    for (long i = n - 1; i > 0; i--) {
        long j = rnd(&st, i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "topology rand {\n    nodes %ld;\n", n + (sw ? 1 : 0));
    for (long i = 1; i < n; i++) {
        long a = order[i], b = order[rnd(&st, i)];
        if (sw && rnd(&st, 2)) {
            fprintf(f, "    link %ld <-> %ld [beta = %s];\n", a, n, bandwidths[rnd(&st, NBW)]);
            fprintf(f, "    link %ld <-> %ld [beta = %s];\n", b, n, bandwidths[rnd(&st, NBW)]);
        } else {
            fprintf(f, "    link %ld <-> %ld [beta = %s];\n", a, b, bandwidths[rnd(&st, NBW)]);
            if (rnd(&st, 5) == 0) fprintf(f, "    link %ld <-> %ld [beta = %s];\n", a, b, bandwidths[rnd(&st, NBW)]);
        }
    }
    for (long k = rnd(&st, n); k > 0; k--) {
        long a = rnd(&st, n), b = (a + 1 + rnd(&st, n - 1)) % n;
        fprintf(f, "    link %ld %s %ld [beta = %s];\n", a, rnd(&st, 3) == 0 ? "->" : "<->", b,
                bandwidths[rnd(&st, NBW)]);
    }
    fprintf(f, "}\n");
    fclose(f);
    return n;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* "7/16" -> 0.4375 */
static double frac_value(const char *s) {
    double num = atof(s);
    const char *sl = strchr(s, '/');
    return sl ? num / atof(sl + 1) : num;
}

/* The string value of "key" in JSON object text [p, end) into buf ("" when
 * absent); collc's values here hold no escapes. Returns what follows it. */
static const char *json_string_field(const char *p, const char *end, const char *key, char *buf, size_t size) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    buf[0] = 0;
    const char *k = strstr(p, pat);
    if (!k || k >= end) return end;
    k += strlen(pat);
    const char *q = strchr(k, '"');
    if (!q || q > end) return end;
    snprintf(buf, size, "%.*s", (int)(q - k), k);
    return q + 1;
}

/* Of `collc compare --format json`'s report `text` (one object per line
 * and collective), the object of collective `coll`: the β coefficient of
 * algorithm `name` into *mine, and the smallest of the others into *best
 * (-1 when there is none). 1 when `name` was found. */
static int compare_betas(const char *text, const char *coll, const char *name, double *mine, double *best) {
    char head[128];
    snprintf(head, sizeof head, "{\"collective\":\"%s\"", coll);
    const char *p = strstr(text, head);
    int found = 0;
    *best = -1;
    if (!p) return 0;
    const char *end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    const char *algs = strstr(p, "\"algorithms\":["), *stop = strstr(p, "\"fastest\":");
    if (!algs || algs > end) return 0;
    if (!stop || stop > end) stop = end;
    for (const char *q = algs; q < stop;) {
        char alg[256], beta[64];
        q = json_string_field(q, stop, "algorithm", alg, sizeof alg);
        if (q >= stop) break;
        q = json_string_field(q, stop, "beta", beta, sizeof beta);
        double v = frac_value(beta);
        if (strcmp(alg, name) == 0) {
            *mine = v;
            found = 1;
        } else if (*best < 0 || v < *best) {
            *best = v;
        }
    }
    return found;
}

/* The checks of --check on one output (`out`, of algorithm `name`): 1 when
 * it runs bit-exactly on cpu threads (*ran), 1 when it is no worse than the
 * best shipped algorithm (*ok_vs_shipped); `report` is scratch. */
static void check_output(const char *collc, const char *examples, const char *topo, const char *out,
                         const char *report, const char *coll, const char *name, char *ns, char *root, int *ran,
                         int *ok_vs_shipped) {
    /* one untimed call without optimisation: the check, not the time */
    char *run_args[] = {(char *)collc, "run", (char *)out, "-N", ns, "--size", "16KiB", "--root", root,
                        "--iters", "1", "--warmup", "0", "-O", "0", NULL};
    *ran = run_quiet(collc, run_args, NULL);
    char *cmp_args[] = {(char *)collc, "compare", (char *)examples, (char *)out, (char *)topo, "--topo", "rand",
                        "-N", ns, "--root", root, "--format", "json", NULL};
    double mine = 0, best = -1;
    *ok_vs_shipped = 0;
    if (!run_quiet(collc, cmp_args, report)) return;
    FILE *f = fopen(report, "r");
    if (!f) return;
    static char text[1 << 16];
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = 0;
    fclose(f);
    *ok_vs_shipped = compare_betas(text, coll, name, &mine, &best) && (best < 0 || mine <= best * (1 + 1e-12));
}

static const char *const random_colls[] = {"allgather", "reduce_scatter", "allreduce", "broadcast", "reduce"};
#define NRC (sizeof random_colls / sizeof *random_colls)

static int random_family(const char *collc, unsigned long seed0, long count, const char *only, int rows,
                         const char *dir, const char *examples) {
    double *cpu[NRC];
    long nrun[NRC] = {0}, nfail[NRC] = {0}, nslow[NRC] = {0}, natb[NRC] = {0}, nbadrun[NRC] = {0},
         nworse[NRC] = {0};
    double worst[NRC];
    for (size_t c = 0; c < NRC; c++) {
        cpu[c] = calloc((size_t)count + 1, sizeof *cpu[c]);
        worst[c] = 1;
    }
    char topo[4200], out[4200], report[4200];
    snprintf(topo, sizeof topo, "%s/rand.coll", dir);
    snprintf(out, sizeof out, "%s/out.coll", dir);
    snprintf(report, sizeof report, "%s/compare.txt", dir);
    if (rows && examples) {
        printf("| seed | N | collective | bandwidth | bound | ratio | CPU s | threads | vs shipped |\n"
               "|---|---|---|---|---|---|---|---|---|\n");
    } else if (rows) {
        printf("| seed | N | collective | bandwidth | bound | ratio | CPU s |\n|---|---|---|---|---|---|---|\n");
    }
    for (long i = 0; i < count; i++) {
        unsigned long seed = seed0 + (unsigned long)i;
        long n = random_topology(seed, topo);
        if (n < 0) {
            perror(topo);
            return 1;
        }
        char ns[32], root[32];
        snprintf(ns, sizeof ns, "%ld", n);
        snprintf(root, sizeof root, "%lu", seed % (unsigned long)n);
        for (size_t c = 0; c < NRC; c++) {
            if (only && strcmp(only, random_colls[c]) != 0) continue;
            char *args[16] = {(char *)collc, "synth", (char *)random_colls[c], topo, "--topo", "rand", "-N", ns,
                              "-o", out, "--root", root, NULL};
            double t, wall, mib;
            int st = run_synth(collc, args, &t, &wall, &mib);
            cpu[c][nrun[c]++] = t;
            nslow[c] += t > 0.5;
            if (st) {
                nfail[c]++;
                if (rows) printf("| %lu | %ld | %s | failed (status %d) | | | %.3f |\n", seed, n, random_colls[c], st, t);
                continue;
            }
            FILE *f = fopen(out, "r");
            char head[8192] = "";
            size_t got = f ? fread(head, 1, sizeof head - 1, f) : 0;
            head[got] = 0;
            if (f) fclose(f);
            char cost[256], bound[256], b[48], lb[48];
            field(head, ": T = ", cost, sizeof cost);
            field(head, "// Lower bound (collc cost): ", bound, sizeof bound);
            beta_of(cost, b, sizeof b);
            beta_of(bound, lb, sizeof lb);
            double ratio = frac_value(lb) > 0 ? frac_value(b) / frac_value(lb) : 0;
            if (strcmp(b, lb) == 0) natb[c]++;
            if (ratio > worst[c]) worst[c] = ratio;
            int ran = 1, ok = 1;
            if (examples) {
                char name[128];
                field(head, "\nalgorithm ", name, sizeof name);
                name[strcspn(name, " :")] = 0;
                check_output(collc, examples, topo, out, report, random_colls[c], name, ns, root, &ran, &ok);
                nbadrun[c] += !ran;
                nworse[c] += !ok;
            }
            if (rows && examples)
                printf("| %lu | %ld | %s | %s | %s | %.3f | %.3f | %s | %s |\n", seed, n, random_colls[c], b, lb, ratio,
                       t, ran ? "bit-exact" : "FAILED", ok ? "no worse" : "WORSE");
            else if (rows)
                printf("| %lu | %ld | %s | %s | %s | %.3f | %.3f |\n", seed, n, random_colls[c], b, lb, ratio, t);
        }
        fflush(stdout);
    }
    printf("\n%ld random topologies, seeds %lu .. %lu (4 to 16 ranks)\n\n", count, seed0,
           seed0 + (unsigned long)count - 1);
    printf("| collective | runs | failed | CPU s median | 90th pct | max | over 0.5 s | at the bandwidth bound | worst ratio |%s\n",
           examples ? " failed on threads | worse than shipped |" : "");
    printf("|---|---|---|---|---|---|---|---|---|%s\n", examples ? "---|---|" : "");
    for (size_t c = 0; c < NRC; c++) {
        if (!nrun[c]) continue;
        qsort(cpu[c], (size_t)nrun[c], sizeof *cpu[c], cmp_double);
        double med = cpu[c][nrun[c] / 2], p90 = cpu[c][(nrun[c] * 9) / 10 < nrun[c] ? (nrun[c] * 9) / 10 : nrun[c] - 1];
        printf("| %s | %ld | %ld | %.3f | %.3f | %.3f | %ld | %ld | %.3f |", random_colls[c], nrun[c], nfail[c], med,
               p90, cpu[c][nrun[c] - 1], nslow[c], natb[c], worst[c]);
        if (examples) printf(" %ld | %ld |", nbadrun[c], nworse[c]);
        printf("\n");
    }
    for (size_t c = 0; c < NRC; c++) free(cpu[c]);
    unlink(topo);
    unlink(out);
    unlink(report);
    return 0;
}

int main(int argc, char **argv) {
    long max_n = 1L << 30;
    const char *only = NULL, *collc = COLLC_EXE;
    long random = 0;
    unsigned long seed = 1;
    int rows = 0, check = 0;
    const char *write_dir = NULL, *examples = COLLC_EXAMPLES_DIR;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-n") == 0 && i + 1 < argc) max_n = atol(argv[++i]);
        else if (strcmp(argv[i], "--random") == 0 && i + 1 < argc) random = atol(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--rows") == 0) rows = 1;
        else if (strcmp(argv[i], "--check") == 0) check = 1;
        else if (strcmp(argv[i], "--examples") == 0 && i + 1 < argc) examples = argv[++i];
        else if (strcmp(argv[i], "--write") == 0 && i + 1 < argc) write_dir = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--collc") == 0 && i + 1 < argc) collc = argv[++i];
        else {
            fprintf(stderr, "usage: synth_bench [--max-n N] [--only COLLECTIVE] [--collc PATH]\n"
                            "       synth_bench --random COUNT [--seed S] [--only COLLECTIVE] [--collc PATH] [--rows]\n"
                            "                   [--check [--examples DIR]]\n"
                            "       synth_bench --random COUNT [--seed S] --write DIR\n");
            return 2;
        }
    }
    const char *dir = getenv("TMPDIR");
    if (random > 0 && write_dir) {
        for (long i = 0; i < random; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/rand%lu.coll", write_dir, seed + (unsigned long)i);
            long n = random_topology(seed + (unsigned long)i, path);
            if (n < 0) {
                perror(path);
                return 1;
            }
            printf("%lu %ld\n", seed + (unsigned long)i, n);
        }
        return 0;
    }
    if (random > 0) {
        char tdir[4096];
        snprintf(tdir, sizeof tdir, "%s/synth_bench_XXXXXX", dir && *dir ? dir : P_tmpdir);
        if (!mkdtemp(tdir)) {
            perror("mkdtemp");
            return 1;
        }
        int rc = random_family(collc, seed, random, only, rows, tdir, check ? examples : NULL);
        rmdir(tdir);
        return rc;
    }
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
