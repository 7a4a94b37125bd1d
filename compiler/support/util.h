/* util.h - internal-error reporting and small helpers shared by all phases. */
#ifndef COLLC_UTIL_H
#define COLLC_UTIL_H

#include <stdio.h>
#include <stdlib.h>

/* An internal bug, never a user error: abort with file and line (exit code
 * from abort, so it can never be mistaken for exit 1 "errors in the input"). */
#define COLLC_UNREACHABLE(msg)                                               \
    collc_internal_error(__FILE__, __LINE__, (msg))
#define COLLC_ASSERT(cond)                                                   \
    do {                                                                     \
        if (!(cond)) collc_internal_error(__FILE__, __LINE__, #cond);        \
    } while (0)

_Noreturn void collc_internal_error(const char *file, int line, const char *msg);

/* malloc/realloc that abort with an internal error on exhaustion. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Length of the well-formed UTF-8 sequence at s (n >= 1 bytes available):
 * 1 for ASCII, 2..4 for a multi-byte sequence, 0 when the bytes there are
 * not one (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF, no cut sequence). */
size_t utf8_seq(const unsigned char *s, size_t n);

#endif
