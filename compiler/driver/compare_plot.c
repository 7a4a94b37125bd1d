/* compare_plot.c - `collc compare --plot FILE`: an SVG of every contender's
 * time against message size, both axes logarithmic, one panel per
 * collective, the points where the fastest algorithm changes marked.
 *
 * The SVG names its parts for a reader and a test: each panel is a
 * <g class="panel" data-collective="...">, each algorithm a
 * <polyline class="series" data-algorithm="NAME"> with a <text
 * class="legend">NAME</text>, each change of the fastest algorithm a
 * <circle class="crossover"> whose <title> says who overtakes whom where. */
#include "analysis/draw.h"
#include "driver/compare.h"
#include "support/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum {
    PLOT_W = 760, PANEL_H = 380, LEFT = 80, RIGHT = 230, TOP = 44, BOTTOM = 48, SAMPLES = 64,
};

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
enum { NCOLOURS = sizeof colours / sizeof *colours };

/* The axes of one panel: log10 of bytes and of seconds onto pixels. */
typedef struct Axes {
    double x0, x1, y0, y1; /* log10 ranges */
    double top;            /* the panel's first pixel row */
} Axes;

static double px(const Axes *a, double M) {
    return LEFT + (log10(M) - a->x0) / (a->x1 - a->x0) * (PLOT_W - LEFT - RIGHT);
}

static double py(const Axes *a, double T) {
    double h = PANEL_H - TOP - BOTTOM;
    return a->top + TOP + h - (log10(T) - a->y0) / (a->y1 - a->y0) * h;
}

static double time_at(const CompareLine *l, double M) { return l->A + l->B * M; }

/* The frame, the grid at powers of 1024 bytes and of 10 seconds, labels. */
static void axes(FILE *f, const Axes *a, double lo, double hi) {
    double bottom = a->top + PANEL_H - BOTTOM, right = PLOT_W - RIGHT;
    fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n",
            LEFT, a->top + TOP, PLOT_W - LEFT - RIGHT, PANEL_H - TOP - BOTTOM);
    for (double M = 1; M <= hi * 1.0000001; M *= 1024) {
        if (M < lo * 0.9999999) continue;
        char b[32];
        cost_fmt_bytes(M, b, sizeof b);
        double x = px(a, M);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x,
                a->top + TOP, x, bottom);
        fprintf(f, "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, bottom + 16, b);
    }
    for (int e = (int)ceil(a->y0 - 1e-9); e <= (int)floor(a->y1 + 1e-9); e++) {
        char t[32];
        cost_fmt_time(pow(10, e), t, sizeof t);
        double y = py(a, pow(10, e));
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT, y,
                right, y);
        fprintf(f, "<text class=\"ytick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT - 6, y + 4, t);
    }
    fprintf(f, "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">message size (bytes)</text>\n",
            (LEFT + right) / 2.0, bottom + 36);
    fprintf(f, "<text class=\"ylabel\" transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">time</text>\n",
            a->top + TOP + (PANEL_H - TOP - BOTTOM) / 2.0);
}

/* One collective's panel at row `row`. */
static void panel(FILE *f, const char *coll, int64_t N, const char *topo, double lo, double hi,
                  const CompareLine *lines, int nl, int row) {
    Axes a = {log10(lo), log10(hi), INFINITY, -INFINITY, (double)row * PANEL_H};
    for (int k = 0; k < nl; k++) {
        double t0 = time_at(&lines[k], lo), t1 = time_at(&lines[k], hi);
        if (t0 > 0 && log10(t0) < a.y0) a.y0 = log10(t0);
        if (t1 > 0 && log10(t1) > a.y1) a.y1 = log10(t1);
    }
    if (!(a.y0 < a.y1)) { /* all flat (or zero): one decade around them */
        double mid = isfinite(a.y0) ? a.y0 : -6;
        a.y0 = mid - 0.5;
        a.y1 = mid + 0.5;
    }
    if (a.x1 <= a.x0) a.x1 = a.x0 + 1;
    fprintf(f, "<g class=\"panel\" data-collective=\"%s\">\n", coll);
    fprintf(f, "<text class=\"title\" x=\"%d\" y=\"%.1f\">%s at N = %lld, topology ", LEFT, a.top + 26, coll,
            (long long)N);
    xml_text(f, topo);
    fputs("</text>\n", f);
    axes(f, &a, lo, hi);
    for (int k = 0; k < nl; k++) {
        fprintf(f, "<polyline class=\"series\" data-algorithm=\"");
        xml_text(f, lines[k].name);
        fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colours[k % NCOLOURS]);
        for (int i = 0; i <= SAMPLES; i++) {
            double M = pow(10, a.x0 + (a.x1 - a.x0) * i / SAMPLES);
            double T = time_at(&lines[k], M);
            if (T > 0) fprintf(f, "%s%.1f,%.1f", i ? " " : "", px(&a, M), py(&a, T));
        }
        fputs("\"/>\n", f);
        double ly = a.top + TOP + 14 + 18.0 * k;
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                PLOT_W - RIGHT + 12, ly - 4, PLOT_W - RIGHT + 32, ly - 4, colours[k % NCOLOURS]);
        fprintf(f, "<text class=\"legend\" x=\"%d\" y=\"%.1f\">", PLOT_W - RIGHT + 38, ly);
        xml_text(f, lines[k].name);
        fputs("</text>\n", f);
    }
    int seg_alg[COMPARE_MAX_SEGMENTS];
    double seg_lo[COMPARE_MAX_SEGMENTS];
    int nseg = compare_envelope(lines, nl, lo, hi, seg_alg, seg_lo);
    for (int k = 1; k < nseg; k++) {
        double M = seg_lo[k];
        char b[32];
        cost_fmt_bytes(M, b, sizeof b);
        fprintf(f, "<circle class=\"crossover\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"none\" stroke=\"#000\"><title>",
                px(&a, M), py(&a, time_at(&lines[seg_alg[k]], M)));
        xml_text(f, lines[seg_alg[k]].name);
        fputs(" overtakes ", f);
        xml_text(f, lines[seg_alg[k - 1]].name);
        fprintf(f, " at M = %s (%.0f bytes)</title></circle>\n", b, M);
    }
    fputs("</g>\n", f);
}

Status compare_plot(Session *s, const char *path, int64_t N, const char *topo, double lo, double hi,
                    const CompareLine *lines, int nl) {
    FILE *f = session_output(s, path, "w");
    if (!f) return EXIT_INPUT;
    if (lo < 1) lo = 1; /* a log axis starts at a byte */
    if (hi <= lo) hi = lo * 1024;
    CompareLine *sub = xcalloc((size_t)(nl > 0 ? nl : 1), sizeof *sub);
    int panels = compare_collectives(lines, nl);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
            "font-size=\"12\">\n", PLOT_W, panels * PANEL_H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
    int row = 0;
    for (int coll = 0; coll < COLLECTIVE__COUNT; coll++) {
        int n = compare_lines_of(lines, nl, (Collective)coll, sub);
        if (n) panel(f, collective_info[coll].keyword, N, topo, lo, hi, sub, n, row++);
    }
    fputs("</svg>\n", f);
    free(sub);
    return session_output_close(s, f, path) == 0 ? EXIT_GO_ON : EXIT_INPUT;
}
