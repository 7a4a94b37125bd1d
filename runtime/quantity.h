/* quantity.h - numbers with units: "64MiB", "4KB", "1.5ms", "32GiB/s".
 * The one parser of byte sizes for the MPI target's COLLMPI_CONFIG rules
 * and for collc's command-line options (the compiler's driver calls it
 * too). Internal: not installed. */
#ifndef COLLRT_QUANTITY_H
#define COLLRT_QUANTITY_H

#include <stddef.h>

typedef struct collrt_unit {
    const char *name;
    double factor;
} collrt_unit;

/* A non-negative finite decimal number ("64", "1.5", "3e-6"; not "inf",
 * "nan" or hex), then nothing (factor 1) or one of `units`, compared
 * ignoring case when fold_case. Returns 0 and sets *out, or -1. */
int collrt_parse_quantity(const char *s, const collrt_unit *units, size_t nunits, int fold_case,
                          double *out);

/* Bytes: plain, or with a unit (case matters: "4kb" is refused):
 *   B
 *   KB MB GB TB      powers of 1000 (kB too)
 *   KiB MiB GiB TiB  powers of 1024
 *   K M G T          powers of 1024 (as KiB ...), as dd(1) reads them
 * Returns 0 and sets *bytes, or -1. */
int collrt_parse_size(const char *s, double *bytes);

#endif
