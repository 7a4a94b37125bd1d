/* util.c - errors, allocation and number parsing for the sg2260 library. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int sg_err(Sg2260Error *e, const char *code, const char *file, int line, const char *fmt, ...) {
    if (!e) return -1;
    e->code = code;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    e->word[0] = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

void sg2260_error_print(FILE *out, const Sg2260Error *e) {
    if (e->file[0] && e->line > 0)
        fprintf(out, "%s:%d: ", e->file, e->line);
    else if (e->file[0])
        fprintf(out, "%s: ", e->file);
    /* The code ends the first line; detail lines (locations) follow. */
    const char *nl = strchr(e->msg, '\n');
    int first = nl ? (int)(nl - e->msg) : (int)strlen(e->msg);
    fprintf(out, "error: %.*s [%s]%s\n", first, e->msg, e->code ? e->code : "error", nl ? nl : "");
}

/* Out of memory is not an input error: abort like COLLC_ASSERT would. */
static void sg_oom(void) {
    fputs("sg2260: out of memory\n", stderr);
    abort();
}

void *sg_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) sg_oom();
    return p;
}

void *sg_xcalloc(size_t n, size_t m) {
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p) sg_oom();
    return p;
}

void *sg_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) sg_oom();
    return q;
}

int sg_split_words(char *s, char **w, int max) {
    int n = 0;
    while (*s) {
        while (isspace((unsigned char)*s)) s++;
        if (!*s) break;
        if (n == max) return -1;
        w[n++] = s;
        while (*s && !isspace((unsigned char)*s)) s++;
        if (*s) *s++ = 0;
    }
    return n;
}

int sg_next_line(const char **p, const char **line, size_t *len) {
    if (!**p) return 0;
    const char *eol = strchr(*p, '\n');
    *line = *p;
    *len = eol ? (size_t)(eol - *p) : strlen(*p);
    *p = eol ? eol + 1 : *p + *len;
    return 1;
}

char *sg_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = sg_xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) buf = sg_xrealloc(buf, cap *= 2);
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        if (k == 0) break;
        n += k;
    }
    fclose(f);
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

int sg_parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-' || *s == '+') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s) return -1;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k') mul = UINT64_C(1) << 10, end++;
    else if (*end == 'M') mul = UINT64_C(1) << 20, end++;
    else if (*end == 'G') mul = UINT64_C(1) << 30, end++;
    else if (*end == 'T') mul = UINT64_C(1) << 40, end++;
    if (*end) return -1;
    if (v > UINT64_MAX / mul) return -1;
    *out = (uint64_t)v * mul;
    return 0;
}

int sg_parse_double(const char *s, double *out) {
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}
