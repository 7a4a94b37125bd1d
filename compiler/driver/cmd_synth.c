/* cmd_synth.c - `collc synth COLLECTIVE --topo T -N n`: a schedule
 * synthesized for a topology (analysis/synth.h), written as an ordinary
 * .coll algorithm (schedule/print_coll.h) and checked before it is written:
 * the printed text is parsed, instantiated and compared with the
 * synthesized schedule, verified and priced again. docs/synth.md. */
#include "driver/cost_cli.h"
#include "driver/synth_cli.h"
#include "analysis/synth.h"
#include "analysis/verify.h"
#include "schedule/print_coll.h"
#include "front/front.h"
#include "support/suggest.h"
#include "support/util.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* "torus(4,4)" -> "torus4x4": an identifier part. */
static void ident_part(const char *s, char *buf, size_t size) {
    size_t n = 0;
    for (; *s && n + 1 < size; s++) {
        char ch = *s;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_')
            buf[n++] = ch;
        else if (ch == ',' || ch == '-')
            buf[n++] = ch == ',' ? 'x' : '_';
    }
    buf[n] = 0;
}

/* The synthesized schedule printed, parsed back and compared, verified and
 * priced: any difference is a bug of collc, not of the input. */
static void self_check(Session *s, const SynthResult *r, TopoModel *t, const char *text, size_t len) {
    int id = source_add(&s->sm, "<synthesized>", text, len);
    COLLC_ASSERT(id >= 0);
    Program prog = {0};
    unsigned before = diag_error_count(s->dx);
    parse_source(&s->arena, s->dx, (uint32_t)id, &prog);
    if (diag_error_count(s->dx) == before) sema_check(&s->arena, s->dx, &prog);
    COLLC_ASSERT(diag_error_count(s->dx) == before && prog.nalgorithms == 1);
    SchedParams p;
    memset(&p, 0, sizeof p);
    p.N = r->sched.N;
    p.root = r->sched.root >= 0 ? r->sched.root : 0;
    Schedule back;
    const Stmt *req = NULL;
    COLLC_ASSERT(instantiate(prog.algorithms[0], &p, s->dx, &back, &req) == INST_OK);
    COLLC_ASSERT(back.nxfers == r->sched.nxfers && back.nsteps == r->sched.nsteps && back.split == r->sched.split);
    for (size_t k = 0; k < back.nxfers; k++) {
        const Transfer *a = &back.xfers[k], *b = &r->sched.xfers[k];
        COLLC_ASSERT(a->op == b->op && memcmp(&a->src, &b->src, sizeof a->src) == 0 &&
                     memcmp(&a->dst, &b->dst, sizeof a->dst) == 0);
    }
    COLLC_ASSERT(verify_schedule(&back, NULL, &s->arena, 1, NULL) == 0);
    CostResult cr;
    COLLC_ASSERT(cost_schedule(&back, t, s->dx, 0, &cr) == 0);
    COLLC_ASSERT(rat_eq(cr.total.a, r->cost.a) && rat_eq(cr.total.b, r->cost.b) && rat_eq(cr.total.c, r->cost.c));
    cost_result_free(&cr);
    schedule_free(&back);
}

/* The best of the shipped algorithms (the .coll files of the shipped
 * examples) of a collective at N on t under the objective: each that
 * applies at N instantiated and priced as `collc compare` prices its
 * contenders (cost_cli_instantiate, cost_schedule). */
typedef struct Shipped {
    Session s;      /* the examples, open while `sched` is in use */
    int open, have;
    const char *name;
    Schedule sched;
    CostTerms cost;
    double time;
} Shipped;

static void shipped_best(Session *main, const CostCli *c, const SynthOptions *o, TopoModel *t, int64_t N,
                         Shipped *sh) {
    Collective coll = o->coll;
    memset(sh, 0, sizeof *sh);
    /* the folder itself: session_open reads its .coll files, sorted */
    char *dir = (char *)session_examples_dir(main);
    if (!dir) return;
    CommonOptions opts = main->opts;
    opts.nimport_dirs = 0;
    Status opened = session_open(&sh->s, &opts, &dir, 1);
    sh->open = 1; /* session_close after session_open, whatever it returned */
    if (opened == EXIT_GO_ON) {
        Algorithm **algs;
        int na = session_algorithms(&sh->s, &algs);
        for (int k = 0; k < na; k++) {
            if (algs[k]->coll != coll) continue;
            Schedule sch;
            const char *why = NULL;
            if (cost_cli_instantiate(&sh->s, c, algs[k], N, 0, &sch, &why) != EXIT_GO_ON) continue;
            if (why) continue;
            CostResult cr;
            if (cost_schedule(&sch, t, sh->s.dx, 0, &cr) != 0) {
                schedule_free(&sch);
                continue;
            }
            double time = cost_time(cr.total, &c->machine);
            if (!sh->have || synth_better(o, &cr.total, &sh->cost)) {
                if (sh->have) schedule_free(&sh->sched);
                sh->have = 1;
                sh->sched = sch;
                sh->cost = cr.total;
                sh->time = time;
                sh->name = algs[k]->name;
            } else {
                schedule_free(&sch);
            }
            cost_result_free(&cr);
        }
    }
}

static void shipped_free(Shipped *sh) {
    if (sh->have) schedule_free(&sh->sched);
    if (sh->open) session_close(&sh->s, EXIT_OK);
}

/* Schedule r as the text of a .coll algorithm named `name`: synth's header
 * (then `verdict` and `extra` when not NULL, and the command that makes it
 * again), checked by self_check. Returns the malloc'ed text, *tlen bytes. */
static char *render(Session *ss, const SynthOptions *o, TopoModel *t, const SynthResult *r, const char *verdict,
                    const char *extra, const char *name, int argc, char **argv, size_t *tlen) {
    SynthOptions on = *o;
    on.name = name;
    const char **hdr;
    size_t nh = synth_header(&on, t, r, &ss->arena, &hdr);
    /* the command that regenerates it, without -o */
    char cmdline[512];
    size_t len = (size_t)snprintf(cmdline, sizeof cmdline, "Regenerate: collc synth");
    char **kept = xmalloc((size_t)argc * sizeof *kept);
    int nkept = options_without(argc, argv, OPT_OUTPUT, kept);
    for (int i = 0; i < nkept && len < sizeof cmdline; i++) {
        /* quoted when the shell would read it otherwise */
        int plain = kept[i][0] != 0;
        for (const char *q = kept[i]; *q; q++)
            plain &= (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
                     strchr("_./=,:+-", *q) != NULL;
        len += (size_t)snprintf(cmdline + len, sizeof cmdline - len, plain ? " %s" : " '%s'", kept[i]);
    }
    free(kept);
    const char **lines = ARENA_ARRAY(&ss->arena, const char *, nh + 3);
    memcpy(lines, hdr, nh * sizeof *hdr);
    if (verdict) lines[nh++] = verdict;
    if (extra) lines[nh++] = extra;
    lines[nh] = cmdline;
    CollPrintInfo info = {0};
    info.name = name;
    info.header = lines;
    info.nheader = nh + 1;
    info.step_comment = r->step_comment;
    info.require_why = arena_printf(&ss->arena, "synthesized for %s, N = %lld", t->name, (long long)t->N);
    char *text = NULL;
    FILE *mem = open_memstream(&text, tlen);
    COLLC_ASSERT(mem);
    schedule_print_coll(mem, &r->sched, &info);
    fclose(mem);
    self_check(ss, r, t, text, *tlen);
    return text;
}

/* --objective's words are SynthObjective's values (options.def). */
_Static_assert(OBJECTIVE_BANDWIDTH == (int)SYNTH_BANDWIDTH && OBJECTIVE_LATENCY == (int)SYNTH_LATENCY &&
                   OBJECTIVE_BALANCED == (int)SYNTH_BALANCED && OBJECTIVE_PARETO == (int)SYNTH_PARETO,
               "CHOICES(OBJECTIVE) follows SynthObjective");

static const char *synth_code(SynthStatus ss) {
    return ss == SYNTH_UNSUPPORTED ? "synth-unsupported" : ss == SYNTH_DISCONNECTED ? "synth-disconnected" : "synth-too-large";
}

/* The steps of sch that send between ranks (the others are local copies and
 * folds, which cost no α). */
static size_t comm_steps(const Schedule *sch) {
    size_t n = 0;
    for (size_t k = 0; k < sch->nsteps; k++) {
        int remote = 0;
        for (size_t i = 0; i < sch->steps[k].count && !remote; i++) {
            const Transfer *x = &sch->xfers[sch->steps[k].first + i];
            remote = x->src.rank != x->dst.rank;
        }
        n += (size_t)remote;
    }
    return n;
}

/* The name of frontier point k of pts: PREFIX SEP sSTEPS, and _2, _3, ...
 * when an earlier point has as many steps. */
static const char *point_name(Arena *arena, const char *prefix, const char *sep, const SynthResult *pts, size_t k) {
    size_t steps = comm_steps(&pts[k].sched);
    int same = 0;
    for (size_t j = 0; j < k; j++) same += comm_steps(&pts[j].sched) == steps;
    return same ? arena_printf(arena, "%s%ss%zu_%d", prefix, sep, steps, same + 1)
                : arena_printf(arena, "%s%ss%zu", prefix, sep, steps);
}

/* --objective pareto: one line per point of the frontier on standard
 * output (STEPS: the steps that send between ranks), and with -o DIR every
 * point as DIR/NAME_sSTEPS.coll (checked as
 * every synthesized file is). */
static Status write_pareto(Session *ss, const SynthOptions *o, TopoModel *t, const char *dir, int argc,
                           char **argv) {
    SynthResult *pts;
    size_t n;
    char err[256];
    SynthStatus st = synth_pareto(o, t, &ss->arena, ss->dx, &pts, &n, err, sizeof err);
    if (st != SYNTH_OK) {
        diag_error(ss->dx, span_none(), synth_code(st), "%s", err);
        return EXIT_INPUT;
    }
    Status status = EXIT_OK;
    if (dir && strcmp(dir, "-") == 0) dir = NULL;
    if (dir && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        diag_error(ss->dx, span_none(), "cannot-open", "cannot create the directory '%s'", dir);
        status = EXIT_INPUT;
    }
    const CollectiveInfo *ci = &collective_info[o->coll];
    char topo[128], la[64], lb[64], lc[64];
    topo_describe(t, topo, sizeof topo);
    printf("Pareto frontier of %s on %s, N = %lld: %zu point%s (steps, α term, β term)\n", ci->keyword, topo,
           (long long)t->N, n, n == 1 ? "" : "s");
    if (n) {
        cost_fmt_term(pts[0].bounds.lb.a, "α", la, sizeof la);
        cost_fmt_term(pts[0].bounds.lb.b, "M/β", lb, sizeof lb);
        cost_fmt_term(pts[0].bounds.lb.c, "M/γ", lc, sizeof lc);
        printf("lower bound (collc cost): %s + %s%s%s\n", la, lb, ci->reducing ? " + " : "", ci->reducing ? lc : "");
    }
    for (size_t k = 0; k < n; k++) {
        SynthResult *r = &pts[k];
        size_t steps = comm_steps(&r->sched);
        char ta[64], tb[64], tc[64];
        cost_fmt_term(r->cost.a, "α", ta, sizeof ta);
        cost_fmt_term(r->cost.b, "M/β", tb, sizeof tb);
        cost_fmt_term(r->cost.c, "M/γ", tc, sizeof tc);
        const char *name = point_name(&ss->arena, o->name, "_", pts, k);
        const char *extra = arena_printf(&ss->arena, "Pareto point %zu of %zu (--objective pareto).", k + 1, n);
        size_t tlen = 0;
        char *text = render(ss, o, t, r, NULL, extra, name, argc, argv, &tlen);
        const char *path = NULL;
        if (dir && status == EXIT_OK) {
            path = arena_printf(&ss->arena, "%s/%s.coll", dir, name);
            FILE *f = fopen(path, "w");
            if (!f || fwrite(text, 1, tlen, f) != tlen || fclose(f) != 0) {
                if (f) fclose(f);
                diag_error(ss->dx, span_none(), "cannot-open", "cannot write '%s'", path);
                status = EXIT_INPUT;
                path = NULL;
            }
        }
        printf("%zu step%s: %s + %s%s%s; split %lld; %s%s%s\n", steps, steps == 1 ? "" : "s", ta, tb, ci->reducing ? " + " : "",
               ci->reducing ? tc : "", (long long)r->sched.split, r->method, path ? " -> " : "", path ? path : "");
        free(text);
    }
    if (n && pts[0].effort_bound)
        printf("The search stopped an engine at its effort bound: its finer splits were not tried.\n");
    for (size_t k = 0; k < n; k++) schedule_free(&pts[k].sched);
    free(pts);
    return status;
}

/* What synth keeps in its Cmd: the cost model (first: cost_cli.h) and the
 * collective. */
typedef struct SynthCli {
    CostCli c;
    Collective coll;
} SynthCli;

/* The collective (the first argument) and the cost model, before the files
 * (the other arguments, which may hold topology blocks) are read. */
static Status synth_options(Cmd *cmd) {
    SynthCli *sc = cmd->ctx;
    const char *word = cmd->o.files[0];
    sc->coll = collective_lookup(word);
    if (sc->coll == COLLECTIVE__COUNT) {
        Suggest sg;
        suggest_init(&sg, word, SUGGEST_NAME);
        for (int k = 0; k < COLLECTIVE__COUNT; k++) suggest_offer(&sg, collective_info[k].keyword, NULL);
        return sg.best ? usage_error("synth", "unknown collective '%s'; did you mean '%s'?", word, sg.best)
                       : usage_error("synth", "unknown collective '%s'", word);
    }
    cmd->nargs = 1;
    return cost_cli_check(cmd);
}

int cmd_synth(int argc, char **argv) {
    /* The collective is the first argument that is not an option; --help
     * needs none. */
    if (!options_given(argc, argv, OPT_HELP) && options_count_files(argc, argv) == 0)
        return usage_error("synth", "the first argument must be the collective (allgather, reduce_scatter, "
                                    "allreduce, broadcast or reduce)");
    SynthCli sc;
    Cmd cmd = {.ctx = &sc};
    Status st = cmd_begin(&cmd, CMD_synth, argc, argv, synth_options);
    if (st != EXIT_GO_ON) return cmd_end(&cmd, st);
    const CostCli c = sc.c;
    const DriverOptions d = cmd.o;
    int64_t N = cmd.N;
    SynthOptions o;
    memset(&o, 0, sizeof o);
    o.coll = sc.coll;
    Collective coll = sc.coll;
    o.objective = (SynthObjective)d.objective;
    o.max_split = d.max_split;
    const char *output = d.output, *name = d.synth_name;
    int status = EXIT_OK;
    TopoModel *t = NULL;
    char err[256];
    Status tr = cost_cli_topology_for(&cmd.s, &c, N, &t);
    if (tr != EXIT_GO_ON) status = tr;
    if (status == EXIT_OK && collective_info[coll].rooted && c.root >= N) {
        status = usage_error("synth", "--root %lld is not a rank of N = %lld", (long long)c.root, (long long)N);
    }
    if (status == EXIT_OK && name && !parse_is_name(&cmd.s.arena, name)) {
        int word = name[0] != 0;
        for (const char *q = name; *q; q++)
            word &= (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_';
        status = word && !(name[0] >= '0' && name[0] <= '9')
                     ? usage_error("synth", "--name '%s' is a keyword of the language, not a name for an algorithm",
                                   name)
                     : usage_error("synth",
                                   "--name expects an identifier (letters, digits and '_', not starting with a "
                                   "digit) for the algorithm");
    }
    if (status == EXIT_OK && N < 2) {
        diag_error(cmd.s.dx, span_none(), "synth-unsupported", "synth needs N >= 2 (N = %lld)", (long long)N);
        status = EXIT_INPUT;
    }
    if (status == EXIT_OK) {
        char topo_id[64];
        ident_part(t->name, topo_id, sizeof topo_id);
        o.root = c.root;
        o.machine = c.machine;
        o.name = name ? name
                      : arena_printf(&cmd.s.arena, "synth_%s_%s_n%lld", collective_info[coll].keyword, topo_id,
                                     (long long)N);
        SynthResult r;
        SynthStatus ss = SYNTH_OK;
        if (o.objective == SYNTH_PARETO) status = write_pareto(&cmd.s, &o, t, output, argc, argv);
        else ss = synth_run(&o, t, &cmd.s.arena, cmd.s.dx, &r, err, sizeof err);
        if (o.objective == SYNTH_PARETO) {
            /* written */
        } else if (ss != SYNTH_OK) {
            diag_error(cmd.s.dx, span_none(),
                       ss == SYNTH_UNSUPPORTED    ? "synth-unsupported"
                       : ss == SYNTH_DISCONNECTED ? "synth-disconnected"
                                                  : "synth-too-large",
                       "%s", err);
            status = EXIT_INPUT;
        } else {
            /* never worse than what ships: the best shipped algorithm under
             * the objective, written instead when it beats the synthesized
             * one; the header compares their times at --size */
            Shipped sh;
            shipped_best(&cmd.s, &c, &o, t, N, &sh);
            double ts = cost_time(r.cost, &o.machine);
            char size[32], tsyn[32], tship[32];
            const char *verdict = NULL;
            cost_fmt_bytes(o.machine.M, size, sizeof size);
            cost_fmt_time(ts, tsyn, sizeof tsyn);
            if (sh.have) cost_fmt_time(sh.time, tship, sizeof tship);
            if (sh.have && synth_better(&o, &sh.cost, &r.cost)) {
                verdict = arena_printf(&cmd.s.arena,
                                       "Never worse than what ships: at %s the shipped %s takes %s, synth's own "
                                       "schedule %s (%.4g times as long): %s is written.",
                                       size, sh.name, tship, tsyn, ts / sh.time, sh.name);
                schedule_free(&r.sched);
                r.sched = sh.sched;
                sh.have = 0; /* r owns it now */
                r.cost = sh.cost;
                r.step_comment = NULL;
                r.balanced = 1;
                r.effort_bound = 0;
                snprintf(r.method, sizeof r.method, "the shipped algorithm %s, for N = %lld", sh.name, (long long)N);
                snprintf(r.owners, sizeof r.owners, "as %s splits them", sh.name);
            } else if (sh.have && sh.time == ts) {
                verdict = arena_printf(&cmd.s.arena,
                                       "Never worse than what ships: at %s it takes %s, as long as the best "
                                       "shipped algorithm, %s.",
                                       size, tsyn, sh.name);
            } else if (sh.have) {
                verdict = arena_printf(&cmd.s.arena,
                                       "Never worse than what ships: at %s it takes %s; the best shipped "
                                       "algorithm, %s, takes %s (%.4g times as long).",
                                       size, tsyn, sh.name, tship, sh.time / ts);
            }
            size_t tlen = 0;
            char *text = render(&cmd.s, &o, t, &r, verdict, NULL, o.name, argc, argv, &tlen);
            FILE *f = output && strcmp(output, "-") != 0 ? fopen(output, "w") : stdout;
            if (!f) {
                diag_error(cmd.s.dx, span_none(), "cannot-open", "cannot write '%s'", output);
                status = EXIT_INPUT;
            } else {
                fwrite(text, 1, tlen, f);
                if (f != stdout && fclose(f) != 0) {
                    diag_error(cmd.s.dx, span_none(), "cannot-open", "cannot write '%s'", output);
                    status = EXIT_INPUT;
                }
            }
            free(text);
            schedule_free(&r.sched);
            shipped_free(&sh);
        }
    }
    topo_free(t);
    return cmd_end(&cmd, status);
}

/* The options synth_for_compare runs synth with. */
static SynthOptions compare_options(const CostCli *c, const TopoModel *t, Collective coll, SynthObjective obj,
                                    const char *name) {
    SynthOptions o;
    memset(&o, 0, sizeof o);
    o.coll = coll;
    o.root = c->root < t->N ? c->root : 0;
    o.objective = obj;
    o.machine = c->machine;
    o.max_split = 8;
    o.name = name;
    return o;
}

static int same_terms(const CostTerms *a, const CostTerms *b) {
    return rat_eq(a->a, b->a) && rat_eq(a->b, b->b) && rat_eq(a->c, b->c);
}

int synth_for_compare(Session *s, const CostCli *c, TopoModel *t, Collective coll, Schedule out[SYNTH_COMPARE_MAX],
                      const char *names[SYNTH_COMPARE_MAX]) {
    if (!synth_supports(coll) || t->N < 2) return 0;
    static const SynthObjective objs[2] = {SYNTH_BANDWIDTH, SYNTH_LATENCY};
    static const char *const named[2] = {"synth:bandwidth", "synth:latency"};
    CostTerms costs[2];
    char err[256];
    SynthStatus ss = SYNTH_OK;
    int n = 0;
    for (; n < 2 && ss == SYNTH_OK; n++) {
        SynthOptions o = compare_options(c, t, coll, objs[n], named[n]);
        SynthResult r;
        ss = synth_run(&o, t, &s->arena, s->dx, &r, err, sizeof err);
        if (ss != SYNTH_OK) break;
        out[n] = r.sched;
        names[n] = named[n];
        costs[n] = r.cost;
    }
    SynthResult *pts = NULL;
    size_t npts = 0;
    if (ss == SYNTH_OK) {
        SynthOptions o = compare_options(c, t, coll, SYNTH_PARETO, "synth");
        ss = synth_pareto(&o, t, &s->arena, s->dx, &pts, &npts, err, sizeof err);
    }
    if (ss != SYNTH_OK) {
        diag_error(s->dx, span_none(), synth_code(ss), "%s", err);
        for (int k = 0; k < n; k++) schedule_free(&out[k]);
        return -1;
    }
    /* the frontier's points that neither named schedule already shows */
    for (size_t k = 0; k < npts; k++) {
        int shown = same_terms(&pts[k].cost, &costs[0]) || same_terms(&pts[k].cost, &costs[1]);
        if (!shown && n < SYNTH_COMPARE_MAX) {
            names[n] = point_name(&s->arena, "synth", ":", pts, k);
            out[n++] = pts[k].sched;
        } else {
            schedule_free(&pts[k].sched);
        }
    }
    free(pts);
    return n;
}
