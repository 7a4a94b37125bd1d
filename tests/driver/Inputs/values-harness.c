/* values-harness.c - the value parsers of driver.c and the option parser
 * of options.c, linked with stubs for the front end and the table of
 * targets (they are not called here).
 * usage: values-harness int|ranks|size|time|bw VALUE...
 *        values-harness opts ARG...   (prints the common options of `check`) */
#include "driver/options.h"
#include "driver/target.h"

#include <stdlib.h>
#include <string.h>

/* every reader, sniffer and group check of the table of input formats */
#define INPUT_FORMAT(id, name, read, sniff, group, help)                                     \
    int read(Arena *a, DiagEngine *d, uint32_t f, Program *p) {                              \
        (void)a; (void)d; (void)f; (void)p;                                                  \
        return 0;                                                                            \
    }                                                                                        \
    int sniff(const char *t, size_t n) { (void)t; (void)n; return 1; }                       \
    void group(DiagEngine *d, const uint32_t *f, int n) { (void)d; (void)f; (void)n; }
#include "driver/formats.def"
int sema_check(Arena *a, DiagEngine *d, Program *p) { (void)a; (void)d; (void)p; return 0; }
Algorithm *program_find_algorithm(const Program *p, const char *n) { (void)p; (void)n; return NULL; }
size_t target_option_note(OptionId id, CommandId cmd, char *buf, size_t size) {
    (void)id; (void)cmd; (void)size;
    buf[0] = 0;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *kind = argv[1];
    if (strcmp(kind, "opts") == 0) {
        /* Parse the options as `collc check` would. */
        DriverOptions d;
        argv[1] = "check";
        if (options_parse(&d, CMD_check, argc - 1, argv + 1) >= 0) {
            printf("usage error\n");
            return 0;
        }
        const CommonOptions o = d.common;
        for (int k = 0; k < d.nfiles; k++) printf("not common: %s\n", d.files[k]);
        printf("format=%d color=%d limit=%u max=%zu alg=%s\n", (int)o.diag_format, o.color,
               o.error_limit, o.max_transfers, o.algorithm ? o.algorithm : "-");
        for (int k = 0; k < o.ndefines; k++) {
            const DefineSpec *d = &o.defines[k];
            printf("define %s%s%s=", d->alg ? d->alg : "", d->alg ? "." : "", d->name);
            for (size_t j = 0; j < d->nvalues; j++)
                printf("%s%lld", j ? "," : "", (long long)d->values[j]);
            printf("\n");
        }
        for (int k = 0; k < o.nwerror; k++) printf("werror %s\n", o.werror[k] ? o.werror[k] : "(all)");
        for (int k = 0; k < o.nwno; k++) printf("wno %s\n", o.wno[k]);
        options_free(&d);
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        const char *v = argv[i];
        if (strcmp(kind, "int") == 0) {
            int64_t x;
            if (parse_int64(v, &x)) printf("%s: bad\n", v);
            else printf("%s: %lld\n", v, (long long)x);
        } else if (strcmp(kind, "ranks") == 0) {
            int64_t *xs;
            size_t n;
            if (parse_rank_list(v, &xs, &n)) { printf("%s: bad\n", v); continue; }
            printf("%s: %zu:", v, n);
            for (size_t k = 0; k < n && k < 12; k++) printf(" %lld", (long long)xs[k]);
            if (n > 12) printf(" ... %lld", (long long)xs[n - 1]);
            printf("\n");
            free(xs);
        } else {
            double d;
            int r = strcmp(kind, "size") == 0 ? parse_size(v, &d)
                    : strcmp(kind, "time") == 0 ? parse_time(v, &d)
                                                : parse_bandwidth(v, &d);
            if (r) printf("%s: bad\n", v);
            else printf("%s: %.9g\n", v, d);
        }
    }
    return 0;
}
