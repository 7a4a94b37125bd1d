/* draw.c - SVG and dot pictures of a Schedule (see draw.h).
 *
 * To colour chunks by what they hold, the schedule runs on the simulator of
 * simulate.h with values (origin chunk, set of origin ranks). This is a
 * picture, not verification: double counting is drawn as it comes out (the
 * rank sets are unions), and what an error leaves indeterminate (a race, a
 * read of undefined data) is drawn like mixed chunks, grey with '?'; collc
 * verify is the judge. */
#include "analysis/draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/simulate.h"
#include "support/util.h"

typedef struct Val {
    int32_t chunk;   /* origin chunk in `in`; -1 nothing, -2 mixed chunks or
                        indeterminate */
    uint64_t mask;   /* origin ranks */
} Val;

typedef struct Picture {
    const Schedule *s;
    Sim sim;
    Val *vals;       /* the reduced values: id SIM_FIRST + k is vals[k] */
    size_t nvals, capvals;
    int reducing;
    int root_held;   /* `in` only on the root: key by chunk alone */
    int64_t in_chunks;
    int64_t K;       /* number of colour keys */
} Picture;

static int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static int lowbit(uint64_t x) { return x ? __builtin_ctzll(x) : 0; }

static Val val_of(const Picture *m, uint32_t id) {
    if (id == SIM_UNDEF) return (Val){-1, 0};
    if (id == SIM_POISON) return (Val){-2, 0};
    if (id & SIM_LEAF) {
        int64_t r, c;
        sim_leaf_origin(&m->sim, id, &r, &c);
        return (Val){(int32_t)c, (uint64_t)1 << r};
    }
    return m->vals[id - SIM_FIRST];
}

static Val merge(Val d, Val s) {
    return (Val){d.chunk == s.chunk ? d.chunk : -2, d.mask | s.mask};
}

static uint32_t on_reduce(void *user, size_t step, size_t xfer, int64_t i, uint32_t dst,
                          uint32_t src) {
    (void)step, (void)xfer, (void)i;
    Picture *m = user;
    if (m->nvals == m->capvals) {
        m->capvals = m->capvals ? 2 * m->capvals : 256;
        m->vals = xrealloc(m->vals, m->capvals * sizeof *m->vals);
    }
    m->vals[m->nvals] = merge(val_of(m, dst), val_of(m, src));
    return SIM_FIRST + (uint32_t)m->nvals++;
}

/* What transfer t of the current step writes at its chunk i: the value the
 * simulator will store (before the step runs). */
static Val written(const Picture *m, const Transfer *t, int32_t i) {
    uint32_t s = sim_value(&m->sim, t->src.buffer, t->src.rank, t->src.lo + i);
    if (t->op == XFER_COPY) return s == SIM_UNDEF ? val_of(m, SIM_POISON) : val_of(m, s);
    uint32_t d = sim_value(&m->sim, t->dst.buffer, t->dst.rank, t->dst.lo + i);
    if (s == SIM_UNDEF || d == SIM_UNDEF) return val_of(m, SIM_POISON);
    return merge(val_of(m, d), val_of(m, s));
}

static int pic_init(Picture *m, const Schedule *s, DiagEngine *dx) {
    memset(m, 0, sizeof *m);
    m->s = s;
    const CollectiveInfo *ci = &collective_info[s->alg->coll];
    if (s->N > DRAW_MAX_N) {
        diag_error(dx, s->alg->name_span, "draw-too-large",
                   "draw supports at most N = %d (N = %lld)", DRAW_MAX_N, (long long)s->N);
        return -1;
    }
    for (int b = 0; b < s->nbuffers; b++)
        for (int64_t r = 0; r < s->N; r++) {
            int64_t ch = schedule_chunks(s, b, r);
            if (ch > DRAW_MAX_CHUNKS) {
                diag_error(dx, s->alg->name_span, "draw-too-large",
                           "draw supports at most %d chunks per buffer ('%s' has %lld)",
                           DRAW_MAX_CHUNKS, s->alg->buffers[b].name, (long long)ch);
                return -1;
            }
        }
    SimHooks hooks = {on_reduce, NULL, m};
    /* N <= 64 ranks of <= 256 chunks: far below the simulator's limits */
    if (sim_init(&m->sim, s, &hooks)) COLLC_UNREACHABLE("draw limits exceed the simulator's");
    m->reducing = ci->reducing;
    m->root_held = ci->in_where == HELD_ROOT;
    for (int64_t r = 0; r < s->N; r++) {
        int64_t ch = schedule_chunks(s, BUF_IN, r);
        if (ch > m->in_chunks) m->in_chunks = ch;
    }
    m->K = (m->reducing || m->root_held) ? m->in_chunks : m->in_chunks * s->N;
    if (m->K < 1) m->K = 1;
    return 0;
}

static void pic_free(Picture *m) {
    sim_free(&m->sim);
    free(m->vals);
}

static Val cell_val(const Picture *m, int b, int64_t r, int64_t c) {
    return val_of(m, sim_value(&m->sim, b, r, c));
}

/* Colour key of a value; -1 for nothing, -2 for mixed. */
static int64_t key_of(const Picture *m, Val v) {
    if (v.chunk < 0) return v.chunk;
    if (m->reducing || m->root_held) return v.chunk;
    return (int64_t)lowbit(v.mask) * m->in_chunks + v.chunk;
}

static void hsl_rgb(double h, double s, double l, int *r, int *g, int *b) {
    double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(h, 360) / 60, x = c * (1 - fabs(fmod(hp, 2) - 1));
    double r1 = 0, g1 = 0, b1 = 0;
    if (hp < 1) r1 = c, g1 = x;
    else if (hp < 2) r1 = x, g1 = c;
    else if (hp < 3) g1 = c, b1 = x;
    else if (hp < 4) g1 = x, b1 = c;
    else if (hp < 5) r1 = x, b1 = c;
    else r1 = c, b1 = x;
    double mm = l - c / 2;
    *r = (int)lround((r1 + mm) * 255);
    *g = (int)lround((g1 + mm) * 255);
    *b = (int)lround((b1 + mm) * 255);
}

static void key_colour(const Picture *m, int64_t key, char *buf, size_t size) {
    if (key == -1) { snprintf(buf, size, "#ffffff"); return; }
    if (key == -2) { snprintf(buf, size, "#9e9e9e"); return; }
    int r, g, b;
    /* spread hues evenly; alternate lightness so neighbours differ more */
    hsl_rgb(360.0 * (double)key / (double)m->K, 0.68, (key % 2) ? 0.48 : 0.58, &r, &g, &b);
    snprintf(buf, size, "#%02x%02x%02x", r, g, b);
}

/* "A", "B", ..., "Z", "r26", ... */
static void rank_letter(int64_t r, char *buf, size_t size) {
    if (r < 26) snprintf(buf, size, "%c", (char)('A' + r));
    else snprintf(buf, size, "r%lld", (long long)r);
}

static void val_label(const Picture *m, Val v, char *buf, size_t size) {
    if (v.chunk == -1) { buf[0] = 0; return; }
    if (v.chunk == -2) { snprintf(buf, size, "?"); return; }
    int cnt = popcount64(v.mask);
    if (cnt > 1) { snprintf(buf, size, "Σ%d", cnt); return; }
    char l[16];
    rank_letter(lowbit(v.mask), l, sizeof l);
    if (m->in_chunks > 1) snprintf(buf, size, "%s%d", l, (int)v.chunk);
    else snprintf(buf, size, "%s", l);
}

void xml_text(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

/* ---- SVG ---- */

enum {
    LABEL_W = 34, CW = 26, CH = 18, RH = 26, BUF_GAP = 26, HEAD = 44, PAD = 14,
    GAP = 18, MARGIN = 20, TITLE_H = 56,
};

typedef struct Layout {
    int nb;            /* buffers drawn */
    int bufs[64];
    int bx[64];        /* x offset of each drawn buffer inside a panel */
    int64_t bmax[64];  /* widest chunk count */
    int pw, ph;        /* panel size */
    int cols;
} Layout;

static void layout(const Schedule *s, Layout *L, size_t npanels) {
    memset(L, 0, sizeof *L);
    int x = LABEL_W;
    for (int b = 0; b < s->nbuffers && L->nb < 64; b++) {
        int64_t mx = 0;
        for (int64_t r = 0; r < s->N; r++) {
            int64_t ch = schedule_chunks(s, b, r);
            if (ch > mx) mx = ch;
        }
        if (mx == 0) continue;
        L->bufs[L->nb] = b;
        L->bx[L->nb] = x;
        L->bmax[L->nb] = mx;
        L->nb++;
        x += (int)mx * CW + BUF_GAP;
    }
    L->pw = x - BUF_GAP + PAD + 26; /* room for arrow bulges on the right */
    L->ph = HEAD + (int)s->N * RH + PAD;
    int cols = (1600 + GAP) / (L->pw + GAP);
    if (cols < 1) cols = 1;
    if ((size_t)cols > npanels) cols = (int)npanels;
    L->cols = cols;
}

static int buf_slot(const Layout *L, int b) {
    for (int k = 0; k < L->nb; k++)
        if (L->bufs[k] == b) return k;
    return -1;
}

static void arrowhead(FILE *f, double x, double y, double dx, double dy, const char *col) {
    double len = sqrt(dx * dx + dy * dy);
    if (len < 1e-9) { dx = -1; dy = 0; len = 1; }
    dx /= len;
    dy /= len;
    double bx = x - dx * 7, by = y - dy * 7;
    fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n", x, y,
            bx - dy * 3.5, by + dx * 3.5, bx + dy * 3.5, by - dx * 3.5, col);
}

/* The title and subtitle of the picture. */
static void svg_title(FILE *f, const Schedule *s, int W, int H, const char *subtitle) {
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
            W, H, W, H);
    fprintf(f, "<title>");
    xml_text(f, s->alg->name);
    fprintf(f, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"18\" font-weight=\"bold\">", MARGIN, MARGIN + 12);
    xml_text(f, s->alg->name);
    fprintf(f, " : %s, N = %lld", collective_info[s->alg->coll].keyword, (long long)s->N);
    if (s->root >= 0) fprintf(f, ", root = %lld", (long long)s->root);
    if (s->split > 1) fprintf(f, ", split %lld", (long long)s->split);
    fprintf(f, "</text>\n");
    if (subtitle && *subtitle) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#333\">", MARGIN, MARGIN + 32);
        xml_text(f, subtitle);
        fprintf(f, "</text>\n");
    }
}

/* The frame and headers of panel p (0: before the first step) at (px, py),
 * with the step's cost when the steps were priced. */
static void svg_panel_head(FILE *f, const Schedule *s, const Layout *L, size_t p, int px, int py,
                           const CostResult *cost) {
    fprintf(f, "<g id=\"panel%zu\">\n", p);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"#f7f7f9\" "
               "stroke=\"#c8c8d0\"/>\n", px, py, L->pw, L->ph);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s",
            px + 8, py + 16, p == 0 ? "initial" : "step");
    if (p > 0) fprintf(f, " %zu", p);
    fprintf(f, "</text>\n");
    if (p > 0 && cost && cost->steps) {
        const CostTerms *t = &cost->steps[p - 1];
        char ta[64], tb[64], tc[64], lab[220];
        cost_fmt_term(t->a, "α", ta, sizeof ta);
        cost_fmt_term(t->b, "M/β", tb, sizeof tb);
        cost_fmt_term(t->c, "M/γ", tc, sizeof tc);
        if (rat_is_zero(t->a) && rat_is_zero(t->b) && rat_is_zero(t->c)) snprintf(lab, sizeof lab, "free (local)");
        else if (rat_is_zero(t->c)) snprintf(lab, sizeof lab, "%s + %s", ta, tb);
        else snprintf(lab, sizeof lab, "%s + %s + %s", ta, tb, tc);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\" text-anchor=\"end\">",
                px + L->pw - 8, py + 16);
        xml_text(f, lab);
        fprintf(f, "</text>\n");
    }
    /* buffer headers */
    for (int k = 0; k < L->nb; k++) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#444\">", px + L->bx[k],
                py + HEAD - 8);
        xml_text(f, s->alg->buffers[L->bufs[k]].name);
        fprintf(f, "</text>\n");
    }
}

/* The chunk cells of every rank in the panel, the ones step st wrote (NULL:
 * none) outlined. */
static void svg_panel_cells(FILE *f, Picture *m, const Layout *L, const Step *st, int px, int py) {
    const Schedule *s = m->s;
    for (int64_t r = 0; r < s->N; r++) {
        int ry = py + HEAD + (int)r * RH;
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#222\">r%lld</text>\n",
                px + 8, ry + 13, (long long)r);
        for (int k = 0; k < L->nb; k++) {
            int b = L->bufs[k];
            int64_t ch = schedule_chunks(s, b, r);
            for (int64_t c = 0; c < ch; c++) {
                Val v = cell_val(m, b, r, c);
                int64_t key = key_of(m, v);
                char col[16], lab[24];
                key_colour(m, key, col, sizeof col);
                val_label(m, v, lab, sizeof lab);
                double op = 1.0;
                if (m->reducing && v.chunk >= 0)
                    op = 0.35 + 0.65 * (double)popcount64(v.mask) / (double)s->N;
                size_t w = sim_last_writer(&m->sim, b, r, c);
                int written = st && w != SIZE_MAX && w >= st->first && w < st->first + st->count;
                int cx = px + L->bx[k] + (int)c * CW;
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                           "fill-opacity=\"%.2f\" stroke=\"%s\" stroke-width=\"%s\"/>\n",
                        cx, ry, CW - 2, CH, col, op, written ? "#111" : "#b0b0b8",
                        written ? "2" : "1");
                if (*lab) {
                    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" "
                               "fill=\"#111\">",
                            cx + (CW - 2) / 2, ry + 13);
                    xml_text(f, lab);
                    fprintf(f, "</text>\n");
                }
            }
        }
    }
}

/* One arrow per transfer of step st. */
static void svg_panel_arrows(FILE *f, Picture *m, const Layout *L, const Step *st, int px, int py) {
    const Schedule *s = m->s;
    for (size_t x = st->first; x < st->first + st->count; x++) {
        const Transfer *t = &s->xfers[x];
        int ks = buf_slot(L, t->src.buffer), kd = buf_slot(L, t->dst.buffer);
        if (ks < 0 || kd < 0) continue;
        Val v = cell_val(m, t->dst.buffer, t->dst.rank, t->dst.lo);
        char col[16];
        key_colour(m, key_of(m, v), col, sizeof col);
        double sxm = px + L->bx[ks] + ((t->src.lo + t->src.hi) / 2.0) * CW;
        double dxm = px + L->bx[kd] + ((t->dst.lo + t->dst.hi) / 2.0) * CW;
        double sy = py + HEAD + t->src.rank * RH, dy = py + HEAD + t->dst.rank * RH;
        const char *dash = t->op == XFER_REDUCE ? " stroke-dasharray=\"5,3\"" : "";
        if (t->src.rank == t->dst.rank) {
            /* local: a low arc over the row */
            double y = sy - 1;
            fprintf(f, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" "
                       "stroke=\"%s\" stroke-width=\"1.4\" stroke-opacity=\"0.9\"%s/>\n",
                    sxm - CW / 2.0 + 4, y, sxm, y - 9, dxm, y - 9, dxm - CW / 2.0 + 6, y,
                    col, dash);
            arrowhead(f, dxm - CW / 2.0 + 6, y, (dxm - CW / 2.0 + 6) - dxm, 9, col);
        } else {
            double shalf = (t->src.hi - t->src.lo) * CW / 2.0;
            double dhalf = (t->dst.hi - t->dst.lo) * CW / 2.0;
            double y1 = sy + CH / 2.0, y2 = dy + CH / 2.0;
            double x1, x2, c1x, c2x;
            if (dxm - dhalf >= sxm + shalf) {
                /* destination to the right: S-curve between facing edges */
                x1 = sxm + shalf - 2;
                x2 = dxm - dhalf - 1;
                double k = (x2 - x1) / 2 > 12 ? (x2 - x1) / 2 : 12;
                c1x = x1 + k;
                c2x = x2 - k;
            } else if (dxm + dhalf <= sxm - shalf) {
                /* destination to the left */
                x1 = sxm - shalf;
                x2 = dxm + dhalf - 1;
                double k = (x1 - x2) / 2 > 12 ? (x1 - x2) / 2 : 12;
                c1x = x1 - k;
                c2x = x2 + k;
            } else {
                /* same column: from the right edge, bulging right */
                double bulge = 10 + 0.22 * fabs(y2 - y1);
                x1 = sxm + shalf - 2;
                x2 = dxm + dhalf - 1;
                c1x = x1 + bulge;
                c2x = x2 + bulge;
            }
            fprintf(f, "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" "
                       "stroke=\"%s\" stroke-width=\"1.8\" stroke-opacity=\"0.9\"%s/>\n",
                    x1, y1, c1x, y1, c2x, y2, x2, y2, col, dash);
            arrowhead(f, x2, y2, x2 - c2x, 0, col);
        }
    }
}

/* The colour keys below the panels, from y = ly. */
static void svg_legend(FILE *f, const Picture *m, int ly, int64_t nkeys) {
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#333\">%s</text>\n", MARGIN, ly + 10,
            m->reducing ? "colour = chunk index (opacity = share of contributions, Σk = k "
                          "contributions); dashed arrow = reduce"
                        : "colour = origin chunk (letter = origin rank); arrow = copy");
    for (int64_t k = 0; k < nkeys; k++) {
        int lx = MARGIN + (int)(k % 12) * 84, yy = ly + 20 + (int)(k / 12) * 22;
        char col[16], lab[64]; /* a 15-letter rank name and a 20-digit index fit */
        key_colour(m, k, col, sizeof col);
        if (m->reducing || m->root_held) snprintf(lab, sizeof lab, "chunk %lld", (long long)k);
        else {
            char l[16];
            rank_letter(k / m->in_chunks, l, sizeof l);
            if (m->in_chunks > 1) snprintf(lab, sizeof lab, "%s%lld", l, (long long)(k % m->in_chunks));
            else snprintf(lab, sizeof lab, "%s = in[%lld]", l, (long long)(k / m->in_chunks));
        }
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#888\"/>\n",
                lx, yy, col);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#333\">%s</text>\n", lx + 18,
                yy + 11, lab);
    }
}

int draw_svg(FILE *f, const Schedule *s, const CostResult *cost, const char *subtitle,
             DiagEngine *dx) {
    Picture m;
    if (pic_init(&m, s, dx)) return -1;
    size_t np = s->nsteps + 1;
    Layout L;
    layout(s, &L, np);
    int rows = (int)((np + (size_t)L.cols - 1) / (size_t)L.cols);
    int W = 2 * MARGIN + L.cols * (L.pw + GAP) - GAP;
    int64_t nkeys = m.K > 64 ? 64 : m.K;
    int legend_rows = (int)((nkeys + 11) / 12);
    int H = TITLE_H + rows * (L.ph + GAP) + 30 + legend_rows * 22 + MARGIN;
    if (W < 420) W = 420;
    svg_title(f, s, W, H, subtitle);
    for (size_t p = 0; p < np; p++) {
        if (p > 0) sim_step(&m.sim);
        int px = MARGIN + (int)(p % (size_t)L.cols) * (L.pw + GAP);
        int py = TITLE_H + (int)(p / (size_t)L.cols) * (L.ph + GAP);
        svg_panel_head(f, s, &L, p, px, py, cost);
        const Step *st = p > 0 ? &s->steps[p - 1] : NULL;
        svg_panel_cells(f, &m, &L, st, px, py);
        if (st) svg_panel_arrows(f, &m, &L, st, px, py);
        fprintf(f, "</g>\n");
    }
    svg_legend(f, &m, TITLE_H + rows * (L.ph + GAP) + 8, nkeys);
    fprintf(f, "</svg>\n");
    pic_free(&m);
    return 0;
}

/* ---- dot ---- */

int draw_dot(FILE *f, const Schedule *s, DiagEngine *dx) {
    Picture m;
    if (pic_init(&m, s, dx)) return -1;
    fprintf(f, "digraph \"%s\" {\n", s->alg->name);
    fprintf(f, "  label=\"%s : %s, N = %lld\";\n  labelloc=t;\n  rankdir=TB;\n  newrank=true;\n",
            s->alg->name, collective_info[s->alg->coll].keyword, (long long)s->N);
    fprintf(f, "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f0f0f4\", fontsize=10];\n");
    fprintf(f, "  edge [fontsize=9];\n");
    for (size_t si = 0; si < s->nsteps; si++) {
        const Step *st = &s->steps[si];
        fprintf(f, "  subgraph cluster_step%zu {\n    label=\"step %zu\";\n", si + 1, si + 1);
        for (int64_t r = 0; r < s->N; r++)
            fprintf(f, "    s%zu_r%lld [label=\"r%lld\"];\n", si + 1, (long long)r, (long long)r);
        fprintf(f, "  }\n");
        for (size_t x = st->first; x < st->first + st->count; x++) {
            const Transfer *t = &s->xfers[x];
            Val v = written(&m, t, 0);
            char col[16];
            key_colour(&m, key_of(&m, v), col, sizeof col);
            const char *sb = s->alg->buffers[t->src.buffer].name, *db = s->alg->buffers[t->dst.buffer].name;
            fprintf(f, "  s%zu_r%d -> s%zu_r%d [color=\"%s\", penwidth=2%s, label=\"", si + 1,
                    (int)t->src.rank, si + 1, (int)t->dst.rank, col,
                    t->op == XFER_REDUCE ? ", style=dashed" : "");
            if (t->src.hi - t->src.lo == 1)
                fprintf(f, "%s %s[%d] -> %s[%d]", t->op == XFER_REDUCE ? "reduce" : "copy", sb,
                        (int)t->src.lo, db, (int)t->dst.lo);
            else
                fprintf(f, "%s %s[%d..%d] -> %s[%d..%d]", t->op == XFER_REDUCE ? "reduce" : "copy",
                        sb, (int)t->src.lo, (int)t->src.hi, db, (int)t->dst.lo, (int)t->dst.hi);
            fprintf(f, "\"];\n");
        }
        sim_step(&m.sim);
    }
    /* keep the steps in order, top to bottom */
    for (size_t si = 1; si < s->nsteps; si++)
        fprintf(f, "  s%zu_r0 -> s%zu_r0 [style=invis];\n", si, si + 1);
    fprintf(f, "}\n");
    pic_free(&m);
    return 0;
}
