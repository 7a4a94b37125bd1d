/* dump.c - the stable text form of a Schedule (docs/schedule-format.md).
 * `collc expand` prints it and the tests diff it, so any change here is a
 * format change: update the document and the tests together. */
#include <inttypes.h>
#include "schedule/schedule.h"

static void dump_range(FILE *out, const Schedule *s, const SlotRange *r) {
    const char *name = s->alg->buffers[r->buffer].name;
    if (r->hi - r->lo == 1)
        fprintf(out, "%s[%d][%d]", name, r->rank, r->lo);
    else
        fprintf(out, "%s[%d][%d..%d]", name, r->rank, r->lo, r->hi);
}

void schedule_dump(FILE *out, const Schedule *s, SourceManager *sm) {
    const Algorithm *alg = s->alg;
    fprintf(out, "schedule %s : %s N=%" PRId64, alg->name, collective_info[alg->coll].keyword,
            s->N);
    if (s->root >= 0) fprintf(out, " root=%" PRId64, s->root);
    fprintf(out, " split=%" PRId64 "\n", s->split);
    if (alg->nparams) {
        fprintf(out, "params");
        for (int i = 0; i < alg->nparams; i++)
            fprintf(out, " %s=%" PRId64, alg->params[i]->name, s->param_values[i]);
        fprintf(out, "\n");
    }
    for (int b = 0; b < s->nbuffers; b++) {
        if (s->chunks_at_root[b] == s->chunks_other[b])
            fprintf(out, "buffer %s %" PRId64 "\n", alg->buffers[b].name, s->chunks_other[b]);
        else
            fprintf(out, "buffer %s root=%" PRId64 " other=%" PRId64 "\n", alg->buffers[b].name,
                    s->chunks_at_root[b], s->chunks_other[b]);
    }
    for (size_t i = 0; i < s->nsteps; i++) {
        const Step *st = &s->steps[i];
        fprintf(out, "step %zu", i + 1);
        if (sm && span_valid(st->span)) {
            unsigned line, col;
            source_line_col(sm, st->span.file, st->span.lo, &line, &col);
            fprintf(out, " line %u", line);
        }
        fprintf(out, ": %zu transfer%s\n", st->count, st->count == 1 ? "" : "s");
        for (size_t k = st->first; k < st->first + st->count; k++) {
            const Transfer *t = &s->xfers[k];
            fputs(t->op == XFER_COPY ? "  copy   " : "  reduce ", out);
            dump_range(out, s, &t->src);
            fputs(" -> ", out);
            dump_range(out, s, &t->dst);
            fputc('\n', out);
        }
    }
    fprintf(out, "total %zu step%s, %zu transfer%s\n", s->nsteps, s->nsteps == 1 ? "" : "s",
            s->nxfers, s->nxfers == 1 ? "" : "s");
}
