/* emit_sg2260.h - the writers of SG2260 descriptor programs lowered by
 * compiler/sg2260/ (sg2260/lower.h): C source and object files holding each
 * algorithm's bundle image and layout. */
#ifndef COLLC_EMIT_SG2260_H
#define COLLC_EMIT_SG2260_H

#include <stdint.h>
#include <stdio.h>
#include "sg2260/lower.h"

/* Symbols of one compiled algorithm NAME (docs/sg2260.md "Object"):
 *   const unsigned char NAME[]          the bundle image (128-byte aligned)
 *   const unsigned long NAME_size       its size in bytes
 *   const unsigned long long NAME_layout[]
 *       {version 2, N, count, dtype, op, root, nbuffers, staging,
 *        staging_bytes, L2 bytes used for reductions (from L2 offset 0),
 *        then base and bytes of every buffer, then the chip of every rank} */
typedef struct Sg2260Compiled {
    const char *name;            /* C identifier */
    const Sg2260Bundle *bundle;
    const Sg2260Layout *layout;
    int64_t N, root;
    uint64_t count;
    Sg2260Dtype dtype;
    Sg2260Op op;
    const int *chips;
} Sg2260Compiled;

/* C source with the symbols above. 0 ok, -1 after reporting through dx. */
int sg2260_write_c(FILE *out, const Sg2260Compiled *c, int n, DiagEngine *dx);
/* An object file (LLVM, for `triple` or the host) with the same symbols. */
int sg2260_write_object(const char *path, const char *triple, const Sg2260Compiled *c, int n,
                        DiagEngine *dx);

#endif
