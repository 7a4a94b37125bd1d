/* msccl_write.h - a schedule written as MSCCL-IR (msccl_write.c). */
#ifndef COLLC_MSCCL_WRITE_H
#define COLLC_MSCCL_WRITE_H

#include <stdio.h>
#include "schedule/schedule.h"

typedef struct MsWriteOptions {
    const char *proto;          /* Simple, LL or LL128 */
    int channels;               /* transfers spread over this many channels (0: as many
                                 * as a step's messages from one rank to one peer) */
    int inplace;                /* inplace="1" outofplace="0" (else the reverse) */
    int64_t min_bytes, max_bytes; /* the size range the executor selects it for (0: unbounded) */
} MsWriteOptions;

/* Where the file's steps come from: each <step> that moves data, by its
 * byte offset in the file, with the schedule step it is of (its index among
 * the steps that move data) and the transfer's statement; in file order. */
typedef struct MsStepOrigin {
    long offset;
    int step;
    Span span;
} MsStepOrigin;
typedef struct MsStepMap {
    MsStepOrigin *v;
    size_t n, cap;
    size_t steps;               /* the schedule's steps that move data */
} MsStepMap;

/* Writes the schedule (fixed N) to f; fills *map (when not NULL; free its
 * v) with the origin of each step written. Returns 0, or 1 after reporting what
 * the executor cannot run (a collective it has no MSCCL form for, a limit
 * of msccl_struct.h). */
int msccl_write(FILE *f, const Schedule *s, const MsWriteOptions *o, DiagEngine *dx, MsStepMap *map);

#endif
