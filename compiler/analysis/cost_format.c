/* cost_format.c - human units and coefficient terms for the cost reports. */
#include "analysis/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* %.4g without a trailing ".0" style noise: 64, 1.5, 917.5, 0.1234 */
static void num4(double v, char *buf, size_t size) { snprintf(buf, size, "%.4g", v); }

void cost_fmt_bytes(double bytes, char *buf, size_t size) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = bytes;
    while (fabs(v) >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    char n[32];
    num4(v, n, sizeof n);
    snprintf(buf, size, "%s %s", n, units[u]);
}

void cost_fmt_time(double s, char *buf, size_t size) {
    char n[32];
    double a = fabs(s);
    if (s == 0) snprintf(buf, size, "0 s");
    else if (a < 1e-6) { num4(s * 1e9, n, sizeof n); snprintf(buf, size, "%s ns", n); }
    else if (a < 1e-3) { num4(s * 1e6, n, sizeof n); snprintf(buf, size, "%s us", n); }
    else if (a < 1) { num4(s * 1e3, n, sizeof n); snprintf(buf, size, "%s ms", n); }
    else { num4(s, n, sizeof n); snprintf(buf, size, "%s s", n); }
}

void cost_fmt_bw(double Bps, char *buf, size_t size) {
    static const char *const units[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
    int u = 0;
    double v = Bps;
    while (fabs(v) >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    char n[32];
    num4(v, n, sizeof n);
    snprintf(buf, size, "%s %s", n, units[u]);
}

void cost_fmt_term(Rat k, const char *unit, char *buf, size_t size) {
    char r[48];
    if (rat_is_zero(k)) snprintf(buf, size, "0");
    else if (rat_eq(k, rat_int(1))) snprintf(buf, size, "%s", unit);
    else snprintf(buf, size, "%s·%s", rat_format(k, r, sizeof r), unit);
}
