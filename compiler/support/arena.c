/* arena.c - bump allocator; see arena.h. */
#include "support/arena.h"
#include "support/util.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

struct ArenaBlock {
    ArenaBlock *next;
    size_t cap;        /* usable bytes in data[] */
    size_t used;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_MIN_BLOCK = 64 * 1024 };

void arena_init(Arena *a) { a->head = NULL; a->total = 0; }

void arena_free(Arena *a) {
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

void *arena_alloc(Arena *a, size_t size) {
    size = align16(size ? size : 1);
    ArenaBlock *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > ARENA_MIN_BLOCK ? size : ARENA_MIN_BLOCK;
        if (b && cap < b->cap * 2 && b->cap * 2 <= (size_t)64 << 20) cap = b->cap * 2;
        b = xmalloc(sizeof(ArenaBlock) + cap);
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
        a->total += cap;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *d = arena_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) COLLC_UNREACHABLE("vsnprintf failed");
    char *d = arena_alloc(a, (size_t)n + 1);
    vsnprintf(d, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return d;
}
