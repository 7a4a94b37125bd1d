/* check.h - tiny assertion helpers for the sg2260 C tests. */
#ifndef SG2260_TEST_CHECK_H
#define SG2260_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int g_failures __attribute__((unused));
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            g_failures++;                                                            \
        }                                                                            \
    } while (0)
#define CHECK_MSG(cond, ...)                                                         \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            g_failures++;                                                            \
        }                                                                            \
    } while (0)
#define TEST_DONE()                                                                  \
    do {                                                                             \
        if (g_failures) fprintf(stderr, "%d check(s) failed\n", g_failures);         \
        return g_failures ? 1 : 0;                                                   \
    } while (0)

/* xorshift64*: deterministic data for tests. */
static unsigned long long g_rng = 0x9E3779B97F4A7C15ull;
static inline unsigned long long rnd(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}
#endif
