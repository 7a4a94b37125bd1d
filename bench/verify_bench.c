/* verify_bench.c - CPU time and peak memory of `collc verify` vs N.
 *
 *   verify_bench [--min-n N] [--max-n N] [--mem-gib G] [--cpu-s S]
 *                [--collc PATH] [-- EXTRA-ARGS...] [FILE.coll[:PARAM=VALUE] ...]
 *   verify_bench --help
 *
 * Default inputs: dsl-examples/ring_allreduce.coll,
 * dsl-examples/rabenseifner_allreduce.coll and
 * dsl-examples/hierarchical_allreduce.coll with A = 128, at N = 1024, 4096,
 * 8192, 16384, 32768 and 65536, and 262144 and 1048576 when --max-n
 * asks for them (those from --min-n to --max-n). Every
 * (input, N) is one run of `collc verify -N n FILE [-D PARAM=VALUE]` with
 * collc's default options (EXTRA-ARGS after `--` are added, say
 * --max-transfers), in a child of its own, so that its CPU time (user +
 * system: the page faults of a large state are the kernel's) and its peak
 * resident memory (wait4's rusage) are its own. The child is limited to
 * --mem-gib of address space (default 4: the budget of a verification at
 * production N) and --cpu-s seconds of CPU (default 60), so that a run over
 * the budget ends as "over the memory limit" or "over the CPU limit"
 * instead of taking the machine. Printed per row: CPU seconds, the ratio to
 * the previous N of the same input (the growth: 4.0 per doubling of N is
 * N^2), peak MiB, the exit status and collc's summary line. Numbers only,
 * never a pass/fail. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#ifndef COLLC_SOURCE_DIR
#define COLLC_SOURCE_DIR "."
#endif
#ifndef COLLC_EXE
#define COLLC_EXE "collc"
#endif

typedef struct Run {
    double cpu;          /* user + system seconds of the child */
    double peak_mib;     /* its maximum resident set */
    int status;          /* wait4's status */
    char summary[512];   /* collc's first line of standard output */
} Run;

static Run run_collc(const char *collc, const char *file, const char *define, long N, char **extra, int nextra,
                     long mem_gib, long cpu_s) {
    Run r = {0};
    int fd[2];
    if (pipe(fd)) { perror("pipe"); exit(1); }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2);
        struct rlimit as = {(rlim_t)mem_gib << 30, (rlim_t)mem_gib << 30};
        struct rlimit cpu = {(rlim_t)cpu_s, (rlim_t)cpu_s + 1};
        struct rlimit core = {0, 0}; /* an out-of-memory abort is expected */
        setrlimit(RLIMIT_AS, &as);
        setrlimit(RLIMIT_CPU, &cpu);
        setrlimit(RLIMIT_CORE, &core);
        char nbuf[32];
        snprintf(nbuf, sizeof nbuf, "%ld", N);
        char *argv[48];
        int k = 0;
        argv[k++] = (char *)collc;
        argv[k++] = "verify";
        argv[k++] = "-N";
        argv[k++] = nbuf;
        if (define) { argv[k++] = "-D"; argv[k++] = (char *)define; }
        for (int i = 0; i < nextra && k < 46; i++) argv[k++] = extra[i];
        argv[k++] = (char *)file;
        argv[k] = NULL;
        execv(collc, argv);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t got;
    while ((got = read(fd[0], r.summary + len, sizeof r.summary - 1 - len)) > 0) {
        len += (size_t)got;
        if (len == sizeof r.summary - 1) {
            char sink[4096];
            while (read(fd[0], sink, sizeof sink) > 0) {}
            break;
        }
    }
    r.summary[len] = 0;
    char *nl = strchr(r.summary, '\n');
    if (nl) *nl = 0;
    close(fd[0]);
    struct rusage ru;
    wait4(pid, &r.status, 0, &ru);
    r.cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
            (double)ru.ru_stime.tv_usec * 1e-6;
    r.peak_mib = (double)ru.ru_maxrss / 1024.0;
    return r;
}

static const char *outcome(const Run *r, char *buf, size_t cap) {
    if (WIFSIGNALED(r->status)) {
        int sig = WTERMSIG(r->status);
        if (sig == SIGXCPU || sig == SIGKILL) return "over the CPU limit";
        return "over the memory limit (out of memory)";
    }
    snprintf(buf, cap, "exit %d", WEXITSTATUS(r->status));
    return buf;
}

static void usage(FILE *f) {
    fprintf(f, "usage: verify_bench [--min-n N] [--max-n N] [--mem-gib G] [--cpu-s S]\n"
               "                    [--collc PATH] [-- EXTRA-ARGS...] [FILE.coll[:PARAM=VALUE] ...]\n"
               "Runs `collc verify -N n FILE` for n = 1024, 4096, 8192, 16384, 32768, 65536,\n"
               "262144, 1048576 (those from --min-n to --max-n) and prints per run its CPU seconds,\n"
               "the growth against the previous n, its peak MiB, its exit status and summary.\n"
               "  --min-n N, --max-n N  the range of n (default 1024 .. 65536)\n"
               "  --mem-gib G           address space of each run, GiB (default 4)\n"
               "  --cpu-s S             CPU seconds of each run (default 60)\n"
               "  --collc PATH          the collc to run (default: this build's)\n"
               "  -- EXTRA-ARGS...      added to every collc command line\n"
               "  FILE[:PARAM=VALUE]    inputs (default: the ring, Rabenseifner and\n"
               "                        hierarchical (A=128) AllReduce examples)\n"
               "  -h, --help            this text\n");
}

/* The positive integer value of option argv[*i] (the next argument); exits
 * 2 (usage) when it is missing or not one. */
static long option_value(int argc, char **argv, int *i) {
    const char *opt = argv[*i];
    if (*i + 1 >= argc) {
        fprintf(stderr, "verify_bench: %s needs a value\n", opt);
        exit(2);
    }
    const char *s = argv[++*i];
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v <= 0 || v > (1L << 30)) {
        fprintf(stderr, "verify_bench: %s: '%s' is not a positive integer\n", opt, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    long min_n = 1024, max_n = 65536, mem_gib = 4, cpu_s = 60;
    const char *collc = COLLC_EXE;
    char *inputs[16], *extra[32];
    int ninputs = 0, nextra = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            while (++i < argc && nextra < 32) extra[nextra++] = argv[i];
            if (i < argc) { fprintf(stderr, "verify_bench: more than 32 arguments after --\n"); return 2; }
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!strcmp(a, "--max-n")) max_n = option_value(argc, argv, &i);
        else if (!strcmp(a, "--min-n")) min_n = option_value(argc, argv, &i);
        else if (!strcmp(a, "--mem-gib")) mem_gib = option_value(argc, argv, &i);
        else if (!strcmp(a, "--cpu-s")) cpu_s = option_value(argc, argv, &i);
        else if (!strcmp(a, "--collc")) {
            if (i + 1 >= argc) { fprintf(stderr, "verify_bench: --collc needs a value\n"); return 2; }
            collc = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "verify_bench: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (ninputs < 16) inputs[ninputs++] = argv[i];
        else { fprintf(stderr, "verify_bench: more than 16 inputs\n"); return 2; }
    }
    static char defaults[3][512];
    if (!ninputs) {
        snprintf(defaults[0], sizeof defaults[0], "%s", COLLC_SOURCE_DIR "/dsl-examples/ring_allreduce.coll");
        snprintf(defaults[1], sizeof defaults[1], "%s", COLLC_SOURCE_DIR "/dsl-examples/rabenseifner_allreduce.coll");
        snprintf(defaults[2], sizeof defaults[2], "%s", COLLC_SOURCE_DIR "/dsl-examples/hierarchical_allreduce.coll:A=128");
        for (int i = 0; i < 3; i++) inputs[ninputs++] = defaults[i];
    }
    static const long ns[] = {1024, 4096, 8192, 16384, 32768, 65536, 262144, 1048576};
    printf("collc verify -N n [-D PARAM=VALUE]");
    for (int i = 0; i < nextra; i++) printf(" %s", extra[i]);
    printf(" FILE; limits per run: %ld GiB of address space, %ld s of CPU\n", mem_gib, cpu_s);
    printf("%-34s %6s %9s %7s %9s  %-8s %s\n", "input", "N", "cpu s", "x prev", "peak MiB", "result", "summary");
    for (int f = 0; f < ninputs; f++) {
        char *file = inputs[f], *define = NULL;
        char *colon = strrchr(file, ':');
        if (colon && strchr(colon, '=')) {
            *colon = 0;
            define = colon + 1;
        }
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        char label[96];
        snprintf(label, sizeof label, "%s%s%s", base, define ? " " : "", define ? define : "");
        double prev = 0;
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            if (ns[k] < min_n || ns[k] > max_n) continue;
            Run r = run_collc(collc, file, define, ns[k], extra, nextra, mem_gib, cpu_s);
            char buf[32], ratio[16] = "-";
            int ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
            if (ok && prev > 0) snprintf(ratio, sizeof ratio, "%.1f", r.cpu / prev);
            prev = ok ? r.cpu : 0;
            const char *colon2 = strstr(r.summary, ": ");
            printf("%-34s %6ld %9.2f %7s %9.0f  %-8s %s\n", label, ns[k], r.cpu, ratio, r.peak_mib,
                   outcome(&r, buf, sizeof buf), colon2 ? colon2 + 2 : r.summary);
        }
    }
    return 0;
}
