/* rational.h - exact rational numbers for the cost model.
 *
 * Cost coefficients (T = a*alpha + b*M/beta + c*M/gamma) are kept exact so
 * that `collc cost` can print 7/8 rather than 0.875 and decide "optimal" by
 * equality, never by a tolerance. A Rat is num/den with den > 0 and
 * gcd(|num|, den) == 1; intermediate products use __int128.
 *
 * Overflow is sticky: every operation takes `int *ovf` and sets it to 1 when
 * a result does not fit int64 (the result is then 0/1 and meaningless). The
 * caller checks the flag once after a batch of operations and reports a
 * diagnostic ("cost-overflow"); nothing aborts. */
#ifndef COLLC_RATIONAL_H
#define COLLC_RATIONAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct Rat {
    int64_t num;
    int64_t den; /* > 0 */
} Rat;

static inline Rat rat_int(int64_t v) { Rat r = {v, 1}; return r; }
static inline Rat rat_zero(void) { return rat_int(0); }
static inline int rat_is_zero(Rat a) { return a.num == 0; }
static inline int rat_is_int(Rat a) { return a.den == 1; }

/* num/den reduced (den != 0; sign moved to the numerator). */
Rat rat_make(int64_t num, int64_t den, int *ovf);
Rat rat_add(Rat a, Rat b, int *ovf);
Rat rat_sub(Rat a, Rat b, int *ovf);
Rat rat_mul(Rat a, Rat b, int *ovf);
/* a / b; b must be non-zero (division by zero sets *ovf). */
Rat rat_div(Rat a, Rat b, int *ovf);
Rat rat_neg(Rat a, int *ovf);
/* -1, 0, 1 (exact, no overflow possible: compares with __int128). */
int rat_cmp(Rat a, Rat b);
static inline int rat_eq(Rat a, Rat b) { return a.num == b.num && a.den == b.den; }
static inline Rat rat_max(Rat a, Rat b) { return rat_cmp(a, b) >= 0 ? a : b; }
double rat_to_double(Rat a);
/* Best rational approximation of a finite double with denominator <= maxden
 * (continued fractions); exact for values such as 0.5, 0.25, 2. */
Rat rat_from_double(double v, int64_t maxden, int *ovf);
/* "7/8", "-3", "0" into buf (size >= 48); returns buf. */
char *rat_format(Rat a, char *buf, size_t size);

#endif
