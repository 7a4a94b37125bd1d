/* collmpi_config.c - COLLMPI_CONFIG rules: the one parser (see
 * collmpi_config.h). */
#include "collmpi_config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "quantity.h"

/* The collectives' keywords and MPI names, for the rules' first field. */
static const struct {
    const char *keyword, *mpi;
    coll_collective c;
} coll_names[] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) {kw, #mpi, COLL_##id},
#include <coll_collectives.def>
#undef X
};
enum { NCOLL_NAMES = sizeof coll_names / sizeof *coll_names };

/* A collective's keyword or its MPI function's name (any case, MPI_
 * prefix optional): "allreduce", "bcast", "MPI_Reduce_scatter_block". */
static int parse_coll(const char *s, coll_collective *out) {
    if (strncasecmp(s, "MPI_", 4) == 0) s += 4;
    for (int i = 0; i < NCOLL_NAMES; i++)
        if (strcasecmp(s, coll_names[i].keyword) == 0 || strcasecmp(s, coll_names[i].mpi) == 0) {
            *out = coll_names[i].c;
            return 0;
        }
    return -1;
}

static const char *mpi_name(coll_collective c) {
    for (int i = 0; i < NCOLL_NAMES; i++)
        if (coll_names[i].c == c) return coll_names[i].mpi;
    return "?";
}

/* Edit distance of a and b (any case), at most 64 bytes each; else large. */
static int distance(const char *a, const char *b) {
    size_t m = strlen(a), n = strlen(b);
    if (m > 64 || n > 64) return 1 << 20;
    int row[65];
    for (size_t j = 0; j <= n; j++) row[j] = (int)j;
    for (size_t i = 1; i <= m; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= n; j++) {
            int up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = diag + !same;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[n];
}

/* The keyword closest to s (within a third of its length), or NULL. */
static const char *closest_coll(const char *s) {
    if (strncasecmp(s, "MPI_", 4) == 0) s += 4;
    const char *best = NULL;
    int bd = (int)strlen(s) / 3 + 1;
    for (int i = 0; i < NCOLL_NAMES; i++) {
        int d = distance(s, coll_names[i].keyword);
        if (d < bd) {
            bd = d;
            best = coll_names[i].keyword;
        }
    }
    return best;
}

/* A size as collc's options read them (runtime/quantity.h: "4096",
 * "64KiB", "4KB", "2G"), or "-", "*", "inf" for no bound. */
static int parse_size(const char *s, size_t *out, int is_max) {
    if (strcmp(s, "-") == 0 || strcmp(s, "*") == 0 || strcasecmp(s, "inf") == 0) {
        *out = is_max ? SIZE_MAX : 0;
        return 0;
    }
    double v;
    if (collrt_parse_size(s, &v) || v >= 18446744073709551616.0 /* 2^64 */) return -1;
    *out = (size_t)v;
    return 0;
}

/* "4", "2..16", "2.." (no upper bound) into [*lo, *hi]; else the reason in
 * why. */
static int parse_range(const char *s, long *lo, long *hi, char *why, size_t cap) {
    char *end;
    long a = strtol(s, &end, 10);
    long b = a;
    int ok = end != s && a >= 1;
    if (ok && strncmp(end, "..", 2) == 0) {
        const char *t = end + 2;
        b = *t ? strtol(t, &end, 10) : 1L << 30;
        if (*t && end == t) ok = 0;
        if (!*t) end = (char *)t;
    }
    if (!ok || *end) {
        snprintf(why, cap, "expected A, A..B or A.. with A >= 1");
        return -1;
    }
    if (b < a) {
        snprintf(why, cap, "the range %ld..%ld is empty", a, b);
        return -1;
    }
    *lo = a;
    *hi = b;
    return 0;
}

/* "n=4", "n=2..16", "n=pow2", "ppn=4", "nodes=2..": a condition of r; else
 * the reason in why. */
static int parse_cond(const char *s, collmpi_rule *r, char *why, size_t cap) {
    if (strncasecmp(s, "n=", 2) == 0) {
        if (strcasecmp(s + 2, "pow2") == 0) {
            r->npow2 = 1;
            return 0;
        }
        return parse_range(s + 2, &r->nlo, &r->nhi, why, cap);
    }
    if (strncasecmp(s, "ppn=", 4) == 0) {
        r->shaped = 1;
        return parse_range(s + 4, &r->plo, &r->phi, why, cap);
    }
    if (strncasecmp(s, "nodes=", 6) == 0) {
        r->shaped = 1;
        return parse_range(s + 6, &r->klo, &r->khi, why, cap);
    }
    snprintf(why, cap, "not a condition (n=A..B, n=pow2, ppn=A..B, nodes=A..B)");
    return -1;
}

/* The fields of a rule, as its errors name them. */
static const char *const field_names[5] = {"collective", "min-size", "max-size", "object", "algorithm"};

/* The first field of r in error: its index, the reason in why; -1: none. */
static int check_fields(char **tok, int nt, collmpi_rule *r, char *why, size_t cap) {
    if (nt < 5) {
        snprintf(why, cap, "missing field '%s' (a rule is 'COLLECTIVE MIN MAX OBJECT ALGORITHM "
                 "[n=A..B|n=pow2] [ppn=A..B] [nodes=A..B]')", field_names[nt]);
        return nt - 1;
    }
    if (nt > 8) {
        snprintf(why, cap, "more than three conditions after the algorithm");
        return 8;
    }
    if (parse_coll(tok[0], &r->coll)) {
        const char *near = closest_coll(tok[0]);
        snprintf(why, cap, "unknown collective '%s'%s%s%s", tok[0], near ? " (did you mean '" : "",
                 near ? near : "", near ? "'?)" : "");
        return 0;
    }
    for (int k = 1; k <= 2; k++)
        if (parse_size(tok[k], k == 1 ? &r->lo : &r->hi, k == 2)) {
            snprintf(why, cap, "%s '%s' is not a size (4096, 64KiB, 4KB, 2G, or - for no bound)",
                     field_names[k], tok[k]);
            return k;
        }
    if (r->lo >= r->hi) {
        snprintf(why, cap, "max-size %s is not above min-size %s: the rule serves no size", tok[2],
                 tok[1]);
        return 2;
    }
    for (int k = 5; k < nt; k++) {
        char reason[120];
        if (parse_cond(tok[k], r, reason, sizeof reason)) {
            snprintf(why, cap, "condition '%s': %s", tok[k], reason);
            return k;
        }
    }
    return -1;
}

int collmpi_config_line(char *line, collmpi_rule *r, int *col, int *len, char *why, size_t cap) {
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *tok[9], *save = NULL;
    int nt = 0;
    for (char *t = strtok_r(line, " \t\r", &save); t && nt < 9; t = strtok_r(NULL, " \t\r", &save))
        tok[nt++] = t;
    if (nt == 0) return 0;
    int keep = r->line;
    memset(r, 0, sizeof *r);
    r->line = keep;
    r->nlo = 1;
    r->nhi = 1L << 30;
    r->plo = r->klo = 1;
    r->phi = r->khi = 1L << 30;
    int bad = check_fields(tok, nt, r, why, cap);
    if (bad >= 0) {
        const char *at = tok[bad < nt ? bad : nt - 1];
        *col = (int)(at - line) + 1;
        *len = (int)strlen(at);
        return -1;
    }
    r->object = tok[3];
    r->alg = tok[4];
    r->object_col = (int)(tok[3] - line) + 1;
    r->alg_col = (int)(tok[4] - line) + 1;
    return 1;
}

int collmpi_config_load(collmpi_rule *r, int dlflags, int *field, char *why, size_t cap) {
    void *h = dlopen(r->object, dlflags);
    if (!h) {
        const char *e = dlerror();
        *field = 3;
        snprintf(why, cap, "%s", e ? e : "the object does not load");
        return -1;
    }
    char sym[512];
    snprintf(sym, sizeof sym, "collc_%s", r->alg);
    void *fn = dlsym(h, sym);
    snprintf(sym, sizeof sym, "collc_%s_alg", r->alg);
    const coll_alg_info *const *info = dlsym(h, sym);
    *field = 4;
    if (!fn || !info || !*info) {
        snprintf(why, cap, "%s has no algorithm '%s' (compile it with `collc compile --target=mpi`)",
                 r->object, r->alg);
        return -1;
    }
    if ((*info)->abi_version != COLL_ABI_VERSION || (*info)->collective != r->coll) {
        snprintf(why, cap, "'%s' is not an MPI_%s algorithm of this runtime's ABI", r->alg,
                 mpi_name(r->coll));
        return -1;
    }
    *(void **)&r->fn = fn;
    return 0;
}
