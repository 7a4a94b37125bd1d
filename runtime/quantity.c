/* quantity.c - numbers with units (quantity.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "quantity.h"

int collrt_parse_quantity(const char *s, const collrt_unit *units, size_t nunits, int fold_case,
                          double *out) {
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    /* strtod accepts "inf"/"nan"/hex floats; insist on a decimal start. */
    if (!(isdigit((unsigned char)s[0]) || s[0] == '.')) return -1;
    if (strpbrk(s, "xXpP")) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v) || v < 0) return -1;
    if (*end == 0) {
        *out = v;
        return 0;
    }
    for (size_t i = 0; i < nunits; i++) {
        if ((fold_case ? strcasecmp(end, units[i].name) : strcmp(end, units[i].name)) == 0) {
            *out = v * units[i].factor;
            return isfinite(*out) ? 0 : -1;
        }
    }
    return -1;
}

int collrt_parse_size(const char *s, double *bytes) {
    static const collrt_unit units[] = {
        {"B", 1},           {"kB", 1e3},
        {"KB", 1e3},        {"MB", 1e6},           {"GB", 1e9},              {"TB", 1e12},
        {"KiB", 1024.0},    {"MiB", 1048576.0},    {"GiB", 1073741824.0},    {"TiB", 1099511627776.0},
        {"K", 1024.0},      {"M", 1048576.0},      {"G", 1073741824.0},      {"T", 1099511627776.0},
    };
    return collrt_parse_quantity(s, units, sizeof units / sizeof *units, 0, bytes);
}
