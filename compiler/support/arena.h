/* arena.h - one bump allocator per compilation, freed once.
 *
 * Every AST node, symbol and string of a compilation is allocated from one
 * Arena and released by a single arena_free(); nothing in the compiler calls
 * free() on an individual node. Large arrays that grow and die early (the
 * Schedule IR, simulator state) are malloc'ed instead, so that they can be
 * freed as soon as their N is done. */
#ifndef COLLC_ARENA_H
#define COLLC_ARENA_H

#include <stddef.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
    ArenaBlock *head;     /* newest block first */
    size_t total;         /* bytes obtained from malloc, for --stats */
} Arena;

void  arena_init(Arena *a);
void  arena_free(Arena *a);
/* Zero-filled, 16-byte aligned. Aborts (internal error) on out-of-memory. */
void *arena_alloc(Arena *a, size_t size);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

#endif
