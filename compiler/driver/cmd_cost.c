/* cmd_cost.c - `collc cost`: the alpha-beta-gamma cost of each algorithm,
 * beside its lower bounds, for one or more N, or as a closed form in N
 * (--closed-form). The model of the command line is cost_cli.h's; the
 * model itself is documented in docs/cost.md. */
#include "driver/cost_cli.h"
#include "support/json.h"
#include "support/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- text helpers ---- */

/* Prints s left-aligned in `width` columns (UTF-8 aware: α, β, · are one
 * column each). */
static void cell(FILE *f, const char *s, int width) {
    int cols = 0;
    for (const char *p = s; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) cols++;
    fputs(s, f);
    if (cols >= width) fputc(' ', f); /* never run into the next column */
    for (; cols < width; cols++) fputc(' ', f);
}

static const char *verdict(Rat v, Rat lb) {
    int k = rat_cmp(v, lb);
    return k == 0 ? "optimal" : k > 0 ? "not optimal" : "below bound (model bug)";
}

static void ratio_text(Rat v, Rat lb, char *buf, size_t size) {
    int ovf = 0;
    if (rat_is_zero(lb)) {
        snprintf(buf, size, rat_is_zero(v) ? "1" : "inf");
        return;
    }
    Rat r = rat_div(v, lb, &ovf);
    if (ovf) snprintf(buf, size, "%.4g", rat_to_double(v) / rat_to_double(lb));
    else if (r.den == 1) rat_format(r, buf, size);
    else {
        char q[48];
        snprintf(buf, size, "%s (%.3g)", rat_format(r, q, sizeof q), rat_to_double(r));
    }
}

static void json_rat_field(JsonWriter *w, const char *key, Rat v) {
    char r[48];
    json_field_string(w, key, rat_format(v, r, sizeof r));
}

/* The members "alpha":{"exact":..,"value":..,"time_s":..}, "beta" and
 * "gamma" of the open object. */
static void json_terms(JsonWriter *w, CostTerms t, const CostMachine *m) {
    const char *name[3] = {"alpha", "beta", "gamma"};
    Rat v[3] = {t.a, t.b, t.c};
    double time[3] = {cost_alpha_time(t, m), cost_beta_time(t, m), cost_gamma_time(t, m)};
    for (int k = 0; k < 3; k++) {
        json_key(w, name[k]);
        json_object_begin(w);
        json_rat_field(w, "exact", v[k]);
        json_field_number(w, "value", rat_to_double(v[k]));
        json_field_number(w, "time_s", time[k]);
        json_object_end(w);
    }
}

/* v / lb as an exact fraction; "1" for 0/0, null for x/0 or an overflow. */
static void json_ratio(JsonWriter *w, const char *key, Rat v, Rat lb) {
    int ovf = 0;
    json_key(w, key);
    if (rat_is_zero(lb)) {
        if (rat_is_zero(v)) json_string(w, "1");
        else json_null(w);
        return;
    }
    Rat r = rat_div(v, lb, &ovf);
    char q[48];
    if (ovf) json_null(w);
    else json_string(w, rat_format(r, q, sizeof q));
}

/* ---- one N ---- */

/* "FILE:LINE" of a step (the file's name without its folders), "-" for a
 * step without a place. */
static const char *step_source(Span span, SourceManager *sm, Arena *a) {
    if (!span_valid(span)) return "-";
    unsigned line = 0, col = 0;
    source_line_col(sm, span.file, span.lo, &line, &col);
    return arena_printf(a, "%s:%u", source_file_base(sm, span.file), line);
}

static void report_text(const CostCli *c, const Schedule *sch, const TopoModel *t,
                        const CostResult *r, const CostBounds *b, SourceManager *sm,
                        const char *label) {
    const CostMachine *m = &c->machine;
    const Algorithm *a = sch->alg;
    char sz[32], al[32], be[32], ga[32], topo[96];
    cost_fmt_bytes(m->M, sz, sizeof sz);
    cost_fmt_time(m->alpha, al, sizeof al);
    cost_fmt_bw(m->beta, be, sizeof be);
    cost_fmt_bw(m->gamma, ga, sizeof ga);
    topo_describe(t, topo, sizeof topo);
    printf("%s : %s, N = %lld", a->name, collective_info[a->coll].keyword, (long long)sch->N);
    if (sch->root >= 0) printf(", root = %lld", (long long)sch->root);
    if (*label) printf(", %s", label);
    printf(", M = %s, topology %s%s\n", sz, topo, t->cut_through ? ", cut-through" : "");
    printf("α = %s, β = %s, γ = %s\n", al, be, ga);
    printf("%zu step%s (%zu communicating)", r->nsteps, r->nsteps == 1 ? "" : "s", r->comm_steps);
    if (t->kind == TOPO_GRAPH) printf(", longest route %d link%s", r->max_hops, r->max_hops == 1 ? "" : "s");
    printf("\n\n");

    int reducing = collective_info[a->coll].reducing || !rat_is_zero(r->total.c);
    static const int W[] = {11, 14, 11, 14, 11, 12};
    cell(stdout, "term", W[0]);
    cell(stdout, "cost", W[1]);
    cell(stdout, "time", W[2]);
    cell(stdout, "lower bound", W[3]);
    cell(stdout, "time", W[4]);
    cell(stdout, "ratio", W[5]);
    printf("verdict\n");
    const char *names[3] = {"latency", "bandwidth", "compute"};
    const char *units[3] = {"α", "M/β", "M/γ"};
    Rat v[3] = {r->total.a, r->total.b, r->total.c};
    Rat l[3] = {b->lb.a, b->lb.b, b->lb.c};
    double tv[3] = {cost_alpha_time(r->total, m), cost_beta_time(r->total, m),
                    cost_gamma_time(r->total, m)};
    double tl[3] = {cost_alpha_time(b->lb, m), cost_beta_time(b->lb, m), cost_gamma_time(b->lb, m)};
    for (int k = 0; k < 3; k++) {
        if (k == 2 && !reducing) continue;
        char s1[64], s2[32], s3[64], s4[32], s5[64];
        cost_fmt_term(v[k], units[k], s1, sizeof s1);
        cost_fmt_time(tv[k], s2, sizeof s2);
        cost_fmt_term(l[k], units[k], s3, sizeof s3);
        cost_fmt_time(tl[k], s4, sizeof s4);
        ratio_text(v[k], l[k], s5, sizeof s5);
        cell(stdout, names[k], W[0]);
        cell(stdout, s1, W[1]);
        cell(stdout, s2, W[2]);
        cell(stdout, s3, W[3]);
        cell(stdout, s4, W[4]);
        cell(stdout, s5, W[5]);
        printf("%s\n", verdict(v[k], l[k]));
    }
    double T = cost_time(r->total, m), L = cost_time(b->lb, m);
    char s2[32], s4[32], s5[32];
    cost_fmt_time(T, s2, sizeof s2);
    cost_fmt_time(L, s4, sizeof s4);
    if (L > 0) snprintf(s5, sizeof s5, "%.4g", T / L);
    else snprintf(s5, sizeof s5, "%s", T > 0 ? "inf" : "1");
    cell(stdout, "total", W[0]);
    cell(stdout, "", W[1]);
    cell(stdout, s2, W[2]);
    cell(stdout, "", W[3]);
    cell(stdout, s4, W[4]);
    cell(stdout, s5, W[5]);
    int all = rat_eq(v[0], l[0]) && rat_eq(v[1], l[1]) && rat_eq(v[2], l[2]);
    printf("%s\n", all ? "optimal in every term" : "");
    printf("\nbounds: latency: %s\n", b->latency_why);
    printf("        bandwidth: %s\n", b->bandwidth_why);
    if (b->split > 0 && rat_cmp(b->b_split, b->lb.b) > 0) {
        char bs[64], q[64];
        cost_fmt_term(b->b_split, "M/β", bs, sizeof bs);
        ratio_text(r->total.b, b->b_split, q, sizeof q);
        const CollectiveInfo *ci = &collective_info[a->coll];
        int nblock = ci->in_blocks == BLOCKS_N || ci->out_blocks == BLOCKS_N;
        printf("        bandwidth at %lld chunk%s%s: %s, %s%s (%s)\n", (long long)b->split, b->split == 1 ? "" : "s",
               nblock ? " per block" : "", bs,
               rat_eq(r->total.b, b->b_split) ? "reached" : q, rat_eq(r->total.b, b->b_split) ? "" : " of it",
               b->split_why);
    }
    if (reducing) printf("        compute: %s\n", b->compute_why);
    if (r->steps) {
        printf("\n");
        /* "file:line" of each step: composed algorithms' steps come from
         * several files */
        Arena tmp;
        arena_init(&tmp);
        const char **where = ARENA_ARRAY(&tmp, const char *, r->nsteps ? r->nsteps : 1);
        int wsource = 8;
        for (size_t k = 0; k < r->nsteps; k++) {
            where[k] = step_source(sch->steps[k].span, sm, &tmp);
            if ((int)strlen(where[k]) + 2 > wsource) wsource = (int)strlen(where[k]) + 2;
        }
        cell(stdout, "step", 7);
        cell(stdout, "source", wsource);
        cell(stdout, "latency", 10);
        cell(stdout, "bandwidth", 15);
        if (reducing) cell(stdout, "compute", 15);
        cell(stdout, "time", 11);
        printf("variables\n");
        const char **vars = schedule_describe_steps(sch, &tmp);
        for (size_t k = 0; k < r->nsteps; k++) {
            char n[32], s1[64], s2[64], s3[64], tm[32];
            snprintf(n, sizeof n, "%zu", k + 1);
            cost_fmt_term(r->steps[k].a, "α", s1, sizeof s1);
            cost_fmt_term(r->steps[k].b, "M/β", s2, sizeof s2);
            cost_fmt_term(r->steps[k].c, "M/γ", s3, sizeof s3);
            cost_fmt_time(cost_time(r->steps[k], m), tm, sizeof tm);
            cell(stdout, n, 7);
            cell(stdout, where[k], wsource);
            cell(stdout, s1, 10);
            cell(stdout, s2, 15);
            if (reducing) cell(stdout, s3, 15);
            if (*vars[k]) {
                cell(stdout, tm, 11);
                printf("%s\n", vars[k]);
            } else {
                printf("%s\n", tm);
            }
        }
        arena_free(&tmp);
    }
}

static void report_json(const CostCli *c, const Schedule *sch, const TopoModel *t,
                        const CostResult *r, const CostBounds *b, SourceManager *sm) {
    const CostMachine *m = &c->machine;
    const Algorithm *a = sch->alg;
    JsonWriter w;
    json_init(&w, stdout);
    json_object_begin(&w);
    json_field_string(&w, "algorithm", a->name);
    json_field_string(&w, "collective", collective_info[a->coll].keyword);
    json_field_int(&w, "N", sch->N);
    if (sch->root >= 0) json_field_int(&w, "root", sch->root);
    else json_field_null(&w, "root");
    /* the value of every param (a -D, a sweep point or the default) */
    json_key(&w, "params");
    json_object_begin(&w);
    for (int p = 0; p < a->nparams; p++) json_field_int(&w, a->params[p]->name, sch->param_values[p]);
    json_object_end(&w);
    json_field_string(&w, "topology", t->name);
    json_field_string(&w, "routing", t->cut_through ? "cut-through" : "store-forward");
    json_field_number(&w, "size_bytes", m->M);
    json_field_number(&w, "alpha_s", m->alpha);
    json_field_number(&w, "beta_Bps", m->beta);
    json_field_number(&w, "gamma_Bps", m->gamma);
    json_field_uint(&w, "steps", r->nsteps);
    json_field_uint(&w, "comm_steps", r->comm_steps);
    json_field_int(&w, "split", sch->split);
    json_rat_field(&w, "chunk", r->chunk);
    json_key(&w, "terms");
    json_object_begin(&w);
    json_terms(&w, r->total, m);
    json_object_end(&w);
    json_field_number(&w, "time_s", cost_time(r->total, m));
    json_key(&w, "lower_bound");
    json_object_begin(&w);
    json_terms(&w, b->lb, m);
    json_field_number(&w, "time_s", cost_time(b->lb, m));
    json_key(&w, "sources");
    json_object_begin(&w);
    json_field_string(&w, "latency", b->latency_why);
    json_field_string(&w, "bandwidth", b->bandwidth_why);
    json_field_string(&w, "compute", b->compute_why);
    json_object_end(&w);
    json_object_end(&w);
    json_key(&w, "optimal");
    json_object_begin(&w);
    json_field_bool(&w, "latency", rat_eq(r->total.a, b->lb.a));
    json_field_bool(&w, "bandwidth", rat_eq(r->total.b, b->lb.b));
    json_field_bool(&w, "compute", rat_eq(r->total.c, b->lb.c));
    json_object_end(&w);
    json_key(&w, "ratio");
    json_object_begin(&w);
    json_ratio(&w, "latency", r->total.a, b->lb.a);
    json_ratio(&w, "bandwidth", r->total.b, b->lb.b);
    json_ratio(&w, "compute", r->total.c, b->lb.c);
    double T = cost_time(r->total, m), L = cost_time(b->lb, m);
    if (L > 0) json_field_number(&w, "total", T / L);
    else json_field_null(&w, "total");
    json_object_end(&w);
    if (r->steps) {
        json_key(&w, "per_step");
        json_array_begin(&w);
        for (size_t k = 0; k < r->nsteps; k++) {
            unsigned line = 0, col = 0;
            if (span_valid(sch->steps[k].span))
                source_line_col(sm, sch->steps[k].span.file, sch->steps[k].span.lo, &line, &col);
            json_object_begin(&w);
            json_field_uint(&w, "step", k + 1);
            if (span_valid(sch->steps[k].span))
                json_field_string(&w, "file", source_file(sm, sch->steps[k].span.file)->path);
            json_field_uint(&w, "line", line);
            json_rat_field(&w, "alpha", r->steps[k].a);
            json_rat_field(&w, "beta", r->steps[k].b);
            json_rat_field(&w, "gamma", r->steps[k].c);
            json_field_number(&w, "time_s", cost_time(r->steps[k], m));
            json_object_end(&w);
        }
        json_array_end(&w);
    }
    json_object_end(&w);
    fputc('\n', stdout);
}

static void not_applicable(Session *s, const Algorithm *a, int64_t N, const char *label,
                           const char *why) {
    diag_error(s->dx, a->name_span, "require-failed", "'%s' does not apply for N = %lld%s%s%s%s",
               a->name, (long long)N, *label ? " with " : "", label, *why ? ": " : "", why);
}

static Status cost_one(Session *s, const CostCli *c, const Algorithm *a, int64_t N, size_t point) {
    TopoModel *t = NULL;
    Status st = cost_cli_topology_for(s, c, N, &t);
    if (st != EXIT_GO_ON) return st;
    Schedule sch;
    const char *why;
    st = cost_cli_instantiate(s, c, a, N, point, &sch, &why);
    const char *label = session_sweep_label(s, a, point);
    if (st != EXIT_GO_ON || why) {
        if (why) not_applicable(s, a, N, label, why);
        topo_free(t);
        return EXIT_INPUT;
    }
    CostResult r;
    CostBounds b;
    Status status = EXIT_GO_ON;
    if (cost_schedule(&sch, t, s->dx, c->per_step, &r) == 0) {
        if (cost_bounds_at_split(a->coll, N, sch.root, t, sch.split, &b) != 0) {
            diag_error(s->dx, a->span, "cost-overflow", "lower bounds overflow 64-bit fractions");
            status = EXIT_INPUT;
        } else if (c->json) {
            report_json(c, &sch, t, &r, &b, &s->sm);
        } else {
            report_text(c, &sch, t, &r, &b, &s->sm, label);
        }
        cost_result_free(&r);
    } else {
        status = EXIT_INPUT;
    }
    schedule_free(&sch);
    topo_free(t);
    return status;
}

/* ---- closed form ---- */

/* "2..64", "2, 4, 8, 16" (runs of 3+ consecutive values collapse) */
static void fmt_nlist(const int64_t *v, size_t n, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && len + 32 < size;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1) j++;
        if (j - i >= 2)
            len += (size_t)snprintf(buf + len, size - len, "%s%lld..%lld", i ? ", " : "",
                                    (long long)v[i], (long long)v[j]);
        else
            j = i, len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
                                           (long long)v[i]);
        i = j + 1;
    }
}

/* The formula "(N-1)·α + (N-1)/N·M/β" from three fitted coefficients. */
static void formula(const char *fa, const char *fb, const char *fc, char *buf, size_t size) {
    const char *f[3] = {fa, fb, fc};
    const char *u[3] = {"α", "M/β", "M/γ"};
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < 3; k++) {
        if (strcmp(f[k], "0") == 0) continue;
        int depth = 0, compound = 0;
        for (const char *p = f[k]; *p; p++) {
            if (*p == '(') depth++;
            else if (*p == ')') depth--;
            else if (depth == 0 && (*p == '+' || *p == '-') && p != f[k]) compound = 1;
        }
        const char *sep = len ? " + " : "";
        if (strcmp(f[k], "1") == 0)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, u[k]);
        else if (compound)
            len += (size_t)snprintf(buf + len, size - len, "%s(%s)·%s", sep, f[k], u[k]);
        else
            len += (size_t)snprintf(buf + len, size - len, "%s%s·%s", sep, f[k], u[k]);
        if (len >= size) len = size - 1;
    }
    if (!len) snprintf(buf, size, "0");
}

static const char *over_n(const uint8_t *opt, size_t n, char *buf, size_t size,
                          const int64_t *Ns) {
    size_t yes = 0;
    for (size_t i = 0; i < n; i++) yes += opt[i];
    if (yes == n) return "optimal for every N";
    if (yes == 0) return "not optimal for any N";
    /* "odd N" reads better than 2, 3, 5, 7, 9, ... */
    int odd_only = 1, odd_all = 1, has2 = 0, nodd = 0;
    for (size_t i = 0; i < n; i++) {
        if (Ns[i] % 2) {
            nodd++;
            if (!opt[i]) odd_all = 0;
        } else if (Ns[i] == 2) {
            has2 = opt[i];
        } else if (opt[i]) {
            odd_only = 0;
        }
    }
    if (odd_only && odd_all && nodd >= 3) {
        snprintf(buf, size, "optimal only for odd N%s", has2 ? " and N = 2" : "");
        return buf;
    }
    int64_t *v = xmalloc(n * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (opt[i]) v[k++] = Ns[i];
    char list[256];
    fmt_nlist(v, k, list, sizeof list);
    free(v);
    snprintf(buf, size, "optimal only for N = %s", list);
    return buf;
}

/* The exact coefficients of one algorithm over the --n list, for one or
 * more sweep points: one row per (point, N) where it applies. */
typedef struct Closed {
    CostPoint *pt[6];     /* alpha, beta, gamma, then the bounds' */
    uint8_t *opt[3];      /* each term equals its bound */
    int64_t *Ns;          /* the row's N */
    size_t m, cap;
    int64_t *skipped;     /* N skipped (at some point) */
    size_t nskipped;
    char skipped_why[256];
    char topo_name[64];
} Closed;

static void closed_free(Closed *d) {
    for (int k = 0; k < 6; k++) free(d->pt[k]);
    for (int k = 0; k < 3; k++) free(d->opt[k]);
    free(d->Ns);
    free(d->skipped);
    memset(d, 0, sizeof *d);
}

/* Adds the rows of sweep point `point` (param value `pval` for cost_fit2). */
static Status closed_collect(Session *s, const CostCli *c, const Algorithm *a, size_t point,
                          int64_t pval, Closed *d) {
    size_t n = c->nclosed;
    if (d->m + n > d->cap) {
        d->cap = d->m + n;
        for (int k = 0; k < 6; k++) d->pt[k] = xrealloc(d->pt[k], d->cap * sizeof **d->pt);
        for (int k = 0; k < 3; k++) d->opt[k] = xrealloc(d->opt[k], d->cap);
        d->Ns = xrealloc(d->Ns, d->cap * sizeof *d->Ns);
        d->skipped = xrealloc(d->skipped, d->cap * sizeof *d->skipped);
    }
    for (size_t i = 0; i < n; i++) {
        int64_t N = c->closed[i];
        TopoModel *t = NULL;
        char err[256];
        Status st = cost_cli_topology(s, c, N, &t, err, sizeof err);
        if (st != EXIT_GO_ON) return st;
        int seen = 0;
        for (size_t j = 0; j < d->nskipped && !seen; j++) seen = d->skipped[j] == N;
        if (!t) {
            if (!seen) d->skipped[d->nskipped++] = N;
            /* the message names this N; the list already says which */
            char *tail = strstr(err, " (N = ");
            if (tail && tail[strlen(tail) - 1] == ')') *tail = 0;
            snprintf(d->skipped_why, sizeof d->skipped_why, "%s", err);
            continue;
        }
        snprintf(d->topo_name, sizeof d->topo_name, "%s", t->name);
        Schedule sch;
        const char *why;
        st = cost_cli_instantiate(s, c, a, N, point, &sch, &why);
        if (st != EXIT_GO_ON) { topo_free(t); return st; }
        if (why) {
            if (!seen) d->skipped[d->nskipped++] = N;
            snprintf(d->skipped_why, sizeof d->skipped_why, "%s", *why ? why : "a require failed");
            topo_free(t);
            continue;
        }
        CostResult r;
        CostBounds b;
        Status status = EXIT_GO_ON;
        if (cost_schedule(&sch, t, s->dx, 0, &r) != 0) status = EXIT_INPUT;
        else if (cost_bounds(a->coll, N, sch.root, t, &b) != 0) {
            diag_error(s->dx, a->span, "cost-overflow", "lower bounds overflow 64-bit fractions");
            status = EXIT_INPUT;
            cost_result_free(&r);
        } else {
            size_t m = d->m++;
            d->Ns[m] = N;
            Rat v[6] = {r.total.a, r.total.b, r.total.c, b.lb.a, b.lb.b, b.lb.c};
            for (int k = 0; k < 6; k++) d->pt[k][m] = (CostPoint){N, v[k], pval};
            for (int k = 0; k < 3; k++) d->opt[k][m] = rat_eq(v[k], v[3 + k]);
            cost_result_free(&r);
        }
        schedule_free(&sch);
        topo_free(t);
        if (status != EXIT_GO_ON) return status;
    }
    return EXIT_GO_ON;
}

/* The six fitted coefficients of a closed form (α, M/β, M/γ of the cost,
 * then of its lower bound) and the two formulas made of them. */
typedef struct {
    char fit[6][256];
    char T[800], L[800];
    int ok_fit, ok_lb; /* every coefficient of the cost / the bound fitted */
} ClosedFit;

static void closed_fit_formulas(ClosedFit *f) {
    formula(f->fit[0], f->fit[1], f->fit[2], f->T, sizeof f->T);
    formula(f->fit[3], f->fit[4], f->fit[5], f->L, sizeof f->L);
    f->ok_fit = f->ok_lb = 1;
    for (int k = 0; k < 6; k++)
        if (strcmp(f->fit[k], "?") == 0) *(k < 3 ? &f->ok_fit : &f->ok_lb) = 0;
}

static void closed_fit_json(JsonWriter *w, const ClosedFit *f) {
    static const char *const nm[3] = {"alpha", "beta", "gamma"};
    json_key(w, "closed_form");
    json_object_begin(w);
    for (int k = 0; k < 3; k++) json_field_string(w, nm[k], f->fit[k]);
    json_field_string(w, "formula", f->ok_fit ? f->T : "");
    json_object_end(w);
    json_key(w, "lower_bound_closed_form");
    json_object_begin(w);
    for (int k = 0; k < 3; k++) json_field_string(w, nm[k], f->fit[3 + k]);
    json_field_string(w, "formula", f->ok_lb ? f->L : "");
    json_object_end(w);
}

/* "T(N)  = ..." and "LB(N) = ..." ("T(N, K)" with args "N, K"). */
static void closed_fit_print(const ClosedFit *f, const char *args) {
    if (f->ok_fit) printf("T(%s)  = %s\n", args, f->T);
    else
        printf("T(%s)  : no closed form in the basis (α: %s, M/β: %s, M/γ: %s)\n", args, f->fit[0],
               f->fit[1], f->fit[2]);
    if (f->ok_lb) printf("LB(%s) = %s\n", args, f->L);
    else
        printf("LB(%s) : no closed form in the basis (α: %s, M/β: %s, M/γ: %s)\n", args, f->fit[3],
               f->fit[4], f->fit[5]);
}

/* "points": [{"N": .., (pname: ..,) "alpha": .., ... "lb_gamma": ..}]: the
 * exact coefficients the fit was made from. */
static void closed_points_json(JsonWriter *w, const Closed *d, const char *pname) {
    static const char *const pn[6] = {"alpha", "beta", "gamma", "lb_alpha", "lb_beta", "lb_gamma"};
    json_key(w, "points");
    json_array_begin(w);
    for (size_t i = 0; i < d->m; i++) {
        json_object_begin(w);
        json_field_int(w, "N", d->Ns[i]);
        if (pname) json_field_int(w, pname, d->pt[0][i].P);
        for (int k = 0; k < 6; k++) json_rat_field(w, pn[k], d->pt[k][i].v);
        json_object_end(w);
    }
    json_array_end(w);
}

/* One closed form in N: the report of Closed rows of a single point.
 * `label` names the point's swept params ("" without a sweep). */
static void closed_report(const CostCli *c, const Algorithm *a, const char *label, Closed *d) {
    size_t m = d->m;
    ClosedFit f;
    for (int k = 0; k < 6; k++) cost_fit(d->pt[k], m, f.fit[k], sizeof f.fit[k]);
    closed_fit_formulas(&f);
    char nl[512], sk[512];
    fmt_nlist(d->Ns, m, nl, sizeof nl);
    fmt_nlist(d->skipped, d->nskipped, sk, sizeof sk);
    char vb[3][300];
    const char *verd[3];
    for (int k = 0; k < 3; k++) verd[k] = over_n(d->opt[k], m, vb[k], sizeof vb[k], d->Ns);
    if (c->json) {
        JsonWriter w;
        json_init(&w, stdout);
        json_object_begin(&w);
        json_field_string(&w, "algorithm", a->name);
        if (*label) json_field_string(&w, "params", label);
        json_field_string(&w, "collective", collective_info[a->coll].keyword);
        json_field_string(&w, "topology", d->topo_name);
        json_key(&w, "N");
        json_array_begin(&w);
        for (size_t i = 0; i < m; i++) json_int(&w, d->Ns[i]);
        json_array_end(&w);
        json_key(&w, "skipped_N");
        json_array_begin(&w);
        for (size_t i = 0; i < d->nskipped; i++) json_int(&w, d->skipped[i]);
        json_array_end(&w);
        closed_fit_json(&w, &f);
        const char *what[3] = {"latency", "bandwidth", "compute"};
        json_key(&w, "optimal");
        json_object_begin(&w);
        for (int k = 0; k < 3; k++) json_field_string(&w, what[k], verd[k]);
        json_object_end(&w);
        closed_points_json(&w, d, NULL);
        json_object_end(&w);
        fputc('\n', stdout);
        return;
    }
    printf("%s : %s, topology %s%s, N = %s%s%s\n", a->name, collective_info[a->coll].keyword,
           d->topo_name, c->cut_through ? " (cut-through)" : "", nl, *label ? ", " : "", label);
    if (d->nskipped) printf("not applicable for N = %s: %s\n", sk, d->skipped_why);
    printf("\n");
    static const int W[] = {7, 14, 14, 14, 14, 14};
    const char *hd[] = {"N", "latency", "bandwidth", "compute", "LB latency", "LB bandwidth"};
    for (int k = 0; k < 6; k++) cell(stdout, hd[k], W[k]);
    printf("LB compute\n");
    for (size_t i = 0; i < m; i++) {
        char buf[48];
        snprintf(buf, sizeof buf, "%lld", (long long)d->Ns[i]);
        cell(stdout, buf, W[0]);
        for (int k = 0; k < 6; k++) {
            rat_format(d->pt[k][i].v, buf, sizeof buf);
            if (k < 5) cell(stdout, buf, W[k + 1]);
            else printf("%s\n", buf);
        }
    }
    printf("\n");
    closed_fit_print(&f, "N");
    printf("latency:   %s\n", verd[0]);
    printf("bandwidth: %s\n", verd[1]);
    if (collective_info[a->coll].reducing) printf("compute:   %s\n", verd[2]);
    printf("checked exactly at N = %s\n", nl);
}

/* "optimal for every N and K" / "... for none" / "for 3 of 24 (N, K)". */
static const char *over_np(const uint8_t *opt, size_t n, const char *pname, char *buf,
                           size_t size) {
    size_t yes = 0;
    for (size_t i = 0; i < n; i++) yes += opt[i];
    if (yes == n) snprintf(buf, size, "optimal for every N and %s", pname);
    else if (yes == 0) snprintf(buf, size, "not optimal for any N and %s", pname);
    else snprintf(buf, size, "optimal for %zu of the %zu (N, %s)", yes, n, pname);
    return buf;
}

/* The closed form in N and the one swept param `pname` (values vals). */
static void closed_report2(const CostCli *c, const Algorithm *a, const char *pname,
                           const int64_t *vals, size_t nvals, Closed *d) {
    size_t m = d->m;
    ClosedFit f;
    for (int k = 0; k < 6; k++) cost_fit2(d->pt[k], m, pname, f.fit[k], sizeof f.fit[k]);
    closed_fit_formulas(&f);
    char nl[512], pl[512], sk[512];
    fmt_nlist(c->closed, c->nclosed, nl, sizeof nl);
    fmt_nlist(vals, nvals, pl, sizeof pl);
    fmt_nlist(d->skipped, d->nskipped, sk, sizeof sk);
    char vb[3][128];
    const char *verd[3];
    for (int k = 0; k < 3; k++) verd[k] = over_np(d->opt[k], m, pname, vb[k], sizeof vb[k]);
    if (c->json) {
        JsonWriter w;
        json_init(&w, stdout);
        json_object_begin(&w);
        json_field_string(&w, "algorithm", a->name);
        json_field_string(&w, "param", pname);
        json_field_string(&w, "collective", collective_info[a->coll].keyword);
        json_field_string(&w, "topology", d->topo_name);
        closed_fit_json(&w, &f);
        closed_points_json(&w, d, pname);
        json_object_end(&w);
        fputc('\n', stdout);
        return;
    }
    printf("%s : %s, topology %s%s, N = %s, %s = %s\n", a->name, collective_info[a->coll].keyword,
           d->topo_name, c->cut_through ? " (cut-through)" : "", nl, pname, pl);
    if (d->nskipped) printf("not applicable for some %s at N = %s: %s\n", pname, sk, d->skipped_why);
    printf("\n");
    static const int W[] = {7, 7, 14, 14, 14, 14, 14};
    cell(stdout, pname, W[0]);
    const char *hd[] = {"N", "latency", "bandwidth", "compute", "LB latency", "LB bandwidth"};
    for (int k = 0; k < 6; k++) cell(stdout, hd[k], W[k + 1]);
    printf("LB compute\n");
    for (size_t i = 0; i < m; i++) {
        char buf[48];
        snprintf(buf, sizeof buf, "%lld", (long long)d->pt[0][i].P);
        cell(stdout, buf, W[0]);
        snprintf(buf, sizeof buf, "%lld", (long long)d->Ns[i]);
        cell(stdout, buf, W[1]);
        for (int k = 0; k < 6; k++) {
            rat_format(d->pt[k][i].v, buf, sizeof buf);
            if (k < 5) cell(stdout, buf, W[k + 2]);
            else printf("%s\n", buf);
        }
    }
    printf("\n");
    char args[300];
    snprintf(args, sizeof args, "N, %s", pname);
    closed_fit_print(&f, args);
    printf("latency:   %s\n", verd[0]);
    printf("bandwidth: %s\n", verd[1]);
    if (collective_info[a->coll].reducing) printf("compute:   %s\n", verd[2]);
    printf("checked exactly at %zu (N, %s) with N = %s, %s = %s\n", m, pname, nl, pname, pl);
}

/* --n: a closed form in N per sweep point; with exactly one swept param of
 * at least four values, a closed form in N and that param over every point. */
static Status cost_closed(Session *s, const CostCli *c, const Algorithm *a) {
    size_t points = session_sweep_points(s, a);
    const char *pname = NULL;
    const int64_t *vals = NULL;
    size_t nvals = 0;
    int nswept = session_swept_param(s, a, &pname, &vals, &nvals);
    Status status = EXIT_GO_ON;
    Closed d;
    /* Four values at least: with fewer, functions of the param coincide on
     * them (1 - 2/K and K - 2 agree at K = 1, 2) and the fit would guess. */
    if (nswept == 1 && nvals >= 4) {
        memset(&d, 0, sizeof d);
        for (size_t pt = 0; pt < points && status == EXIT_GO_ON; pt++) {
            const Define *defs;
            int nd = session_defines(s, a, pt, &defs);
            int64_t pval = 0;
            for (int k = 0; k < nd; k++)
                if (!strcmp(defs[k].name, pname)) pval = defs[k].value;
            status = closed_collect(s, c, a, pt, pval, &d);
        }
        if (status == EXIT_GO_ON && d.m == 0) {
            diag_error(s->dx, a->name_span, "require-failed",
                       "'%s' applies to none of the given N%s%s", a->name,
                       *d.skipped_why ? ": " : "", d.skipped_why);
            status = EXIT_INPUT;
        }
        if (status == EXIT_GO_ON) closed_report2(c, a, pname, vals, nvals, &d);
        closed_free(&d);
        return status;
    }
    for (size_t pt = 0; pt < points && status == EXIT_GO_ON; pt++) {
        if (pt && !c->json) printf("\n");
        memset(&d, 0, sizeof d);
        status = closed_collect(s, c, a, pt, 0, &d);
        const char *label = session_sweep_label(s, a, pt);
        if (status == EXIT_GO_ON && d.m == 0) {
            diag_error(s->dx, a->name_span, "require-failed",
                       "'%s' applies to none of the given N%s%s%s%s", a->name,
                       *label ? " with " : "", label, *d.skipped_why ? ": " : "", d.skipped_why);
            status = EXIT_INPUT;
        }
        if (status == EXIT_GO_ON) closed_report(c, a, label, &d);
        closed_free(&d);
    }
    return status;
}

/* ---- command ---- */

int cmd_cost(int argc, char **argv) {
    CostCli cc;
    Cmd c = {.ctx = &cc};
    Status st = cmd_begin(&c, CMD_cost, argc, argv, cost_cli_check);
    Status worst = EXIT_GO_ON; /* the worst outcome so far: input errors go on, usage errors stop */
    int first = 1;
    for (int k = 0; st == EXIT_GO_ON && k < c.nalgs; k++) {
        Algorithm *a = c.algs[k];
        if (cc.nclosed) {
            if (!first && !cc.json) printf("\n");
            first = 0;
            Status r = cost_closed(&c.s, &cc, a);
            if (r == EXIT_USAGE) st = r;
            else if (r != EXIT_GO_ON) worst = r;
            continue;
        }
        size_t points = session_sweep_points(&c.s, a);
        for (size_t pt = 0; pt < points && st == EXIT_GO_ON; pt++)
            for (size_t i = 0; i < cc.nN && st == EXIT_GO_ON; i++) {
                if (!first && !cc.json) printf("\n");
                first = 0;
                Status r = cost_one(&c.s, &cc, a, cc.Ns[i], pt);
                if (r == EXIT_USAGE) st = r;
                else if (r != EXIT_GO_ON) worst = r;
            }
    }
    return cmd_end(&c, st == EXIT_GO_ON ? worst : st);
}
