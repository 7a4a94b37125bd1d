/* grow.c - the growing arrays of the runtime and the targets (the op
 * queue, the targets' send and request lists): one doubling realloc. */
#include <stdlib.h>
#include "collrt_internal.h"

bool collrt_grow(void **arr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need) ncap *= 2;
    size_t bytes;
    if (__builtin_mul_overflow(ncap, elem, &bytes)) return false;
    void *p = realloc(*arr, bytes);
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}
