/* internal.h - helpers shared by the sg2260 library's files (not installed). */
#ifndef COLLC_SG2260_INTERNAL_H
#define COLLC_SG2260_INTERNAL_H

#include <stdlib.h>

#include "sg2260.h"

/* Fill *e (if non-NULL) and return -1, so callers can `return sg_err(...)`. */
int sg_err(Sg2260Error *e, const char *code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

void *sg_xmalloc(size_t n);
void *sg_xcalloc(size_t n, size_t m);
void *sg_xrealloc(void *p, size_t n);
char *sg_read_file(const char *path, size_t *len);

/* Tokenising helpers for the text formats. sg_split_words splits s in place
 * at whitespace into at most max words (-1 if there are more). */
int sg_split_words(char *s, char **w, int max);
/* The next line of a text: *line and *len (without the newline), and *p
 * moves past it. 0 at the end of the text. */
int sg_next_line(const char **p, const char **line, size_t *len);
int sg_parse_u64(const char *s, uint64_t *out);   /* dec / 0x hex / suffix K M G */
int sg_parse_double(const char *s, double *out);

/* The address fields of d that point at data (a WRITE fill has no source):
 * pointers into d in f[0..return). */
int sg2260_desc_addrs(Sg2260Desc *d, uint64_t **f);

/* dst[i] = dst[i] (op) src[i] for count elements (fp.c). */
void sg_reduce_row(Sg2260Dtype t, Sg2260Op op, uint8_t *dst, const uint8_t *src, size_t count);

#endif
