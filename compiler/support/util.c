/* util.c - internal errors and checked allocation. */
#include "support/util.h"

_Noreturn void collc_internal_error(const char *file, int line, const char *msg) {
    fflush(stdout);
    fprintf(stderr, "%s:%d: internal compiler error: %s\n"
                    "please report this bug to the collc developers\n",
            file, line, msg);
    abort();
}

void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) collc_internal_error(__FILE__, __LINE__, "out of memory");
    return p;
}

void *xcalloc(size_t n, size_t m) {
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p) collc_internal_error(__FILE__, __LINE__, "out of memory");
    return p;
}

void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) collc_internal_error(__FILE__, __LINE__, "out of memory");
    return q;
}
