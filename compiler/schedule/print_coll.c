/* print_coll.c - a Schedule IR written back as a .coll algorithm (see
 * print_coll.h). Transfers are printed in schedule order, so the output
 * instantiates to the same schedule; a run of consecutive transfers of one
 * step that differ only by a pattern in a loop index becomes one `for`. */
#include "schedule/print_coll.h"

#include <inttypes.h>
#include <string.h>

#include "support/util.h"

/* How one integer field of a transfer depends on the loop index i. */
typedef enum PatKind {
    PAT_CONST,  /* c */
    PAT_AFFINE, /* c + d*i */
    PAT_XOR,    /* i ^ c */
    PAT_MOD,    /* (c + d*i) % m, 0 <= c < m, 0 < d < m */
    PAT__COUNT
} PatKind;

typedef struct Pat {
    int64_t c, d, m;
} Pat;

/* The four fields a loop may vary; op, buffers and length stay fixed. */
enum { F_SRC_RANK, F_SRC_LO, F_DST_RANK, F_DST_LO, F__COUNT };

/* Runs shorter than this are printed transfer by transfer. */
#define MIN_LOOP 3
/* Moduli tried per field (N and the chunk counts of the buffer). */
#define MAX_MODS 3

typedef struct FieldPats {
    Pat pat[PAT__COUNT][MAX_MODS];
    unsigned valid[PAT__COUNT]; /* bit k: pat[kind][k] still matches */
} FieldPats;

static int64_t field(const Transfer *t, int f) {
    switch (f) {
    case F_SRC_RANK: return t->src.rank;
    case F_SRC_LO: return t->src.lo;
    case F_DST_RANK: return t->dst.rank;
    default: return t->dst.lo;
    }
}

static int64_t imod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

static int pat_match(PatKind k, const Pat *p, int64_t i, int64_t v) {
    switch (k) {
    case PAT_CONST: return v == p->c;
    case PAT_AFFINE: return v == p->c + p->d * i;
    case PAT_XOR: return v == (i ^ p->c);
    default: return v == imod(p->c + p->d * i, p->m);
    }
}

/* The moduli a field may wrap at. */
static int field_mods(const Schedule *s, const Transfer *t, int f, int64_t mods[MAX_MODS]) {
    int n = 0;
    mods[n++] = s->N;
    if (f == F_SRC_LO || f == F_DST_LO) {
        int buf = f == F_SRC_LO ? t->src.buffer : t->dst.buffer;
        int64_t a = s->chunks_other[buf], b = s->chunks_at_root[buf];
        if (a > 0 && a != s->N) mods[n++] = a;
        if (b > 0 && b != s->N && b != a) mods[n++] = b;
    }
    return n;
}

static void pats_init(const Schedule *s, const Transfer *t0, const Transfer *t1, int f, FieldPats *fp) {
    memset(fp, 0, sizeof *fp);
    int64_t v0 = field(t0, f), v1 = field(t1, f);
    fp->pat[PAT_CONST][0].c = v0;
    fp->valid[PAT_CONST] = v0 == v1;
    fp->pat[PAT_AFFINE][0] = (Pat){v0, v1 - v0, 0};
    fp->valid[PAT_AFFINE] = v1 != v0;
    int64_t mods[MAX_MODS];
    int nm = field_mods(s, t0, f, mods);
    for (int k = 0; k < nm; k++) {
        int64_t m = mods[k];
        if (v0 < 0 || v0 >= m || v1 < 0 || v1 >= m || v0 == v1) continue;
        fp->pat[PAT_MOD][k] = (Pat){v0, imod(v1 - v0, m), m};
        fp->valid[PAT_MOD] |= 1u << k;
    }
    fp->pat[PAT_XOR][0].c = v0;
    fp->valid[PAT_XOR] = v0 >= 0 && v1 == (v0 ^ 1) && v1 != v0 + 1;
}

/* Drops the patterns that do not give v at index i (choose() prefers them
 * in the order of PatKind); 0 when none is left. */
static int pats_keep(FieldPats *fp, int64_t i, int64_t v) {
    int any = 0;
    for (int k = 0; k < PAT__COUNT; k++) {
        for (int j = 0; j < MAX_MODS; j++)
            if ((fp->valid[k] >> j & 1u) && !pat_match((PatKind)k, &fp->pat[k][j], i, v))
                fp->valid[k] &= ~(1u << j);
        any |= fp->valid[k] != 0;
    }
    return any;
}

static int same_shape(const Transfer *a, const Transfer *b) {
    return a->op == b->op && a->src.buffer == b->src.buffer && a->dst.buffer == b->dst.buffer &&
           a->src.hi - a->src.lo == b->src.hi - b->src.lo;
}

/* c + d*i in source syntax. */
static void print_affine(FILE *out, int64_t c, int64_t d) {
    if (d == 0) {
        fprintf(out, "%" PRId64, c);
    } else if (d > 0) {
        if (d == 1) fputs("i", out);
        else fprintf(out, "%" PRId64 " * i", d);
        if (c > 0) fprintf(out, " + %" PRId64, c);
        else if (c < 0) fprintf(out, " - %" PRId64, -c);
    } else {
        if (c) fprintf(out, "%" PRId64 " - ", c);
        else fputs("-", out);
        if (d == -1) fputs("i", out);
        else fprintf(out, "%" PRId64 " * i", -d);
    }
}

/* The field's expression, plus `add` (for the end of a range). */
static void print_pat(FILE *out, PatKind k, const Pat *p, int64_t add) {
    switch (k) {
    case PAT_CONST: fprintf(out, "%" PRId64, p->c + add); return;
    case PAT_AFFINE: print_affine(out, p->c + add, p->d); return;
    case PAT_XOR:
        if (p->c == 0) fputs("i", out);
        else if (add) fprintf(out, "(i ^ %" PRId64 ")", p->c);
        else fprintf(out, "i ^ %" PRId64, p->c);
        break;
    default:
        fputc('(', out);
        print_affine(out, p->c, p->d);
        fprintf(out, ") %% %" PRId64, p->m);
        break;
    }
    if (add) fprintf(out, " + %" PRId64, add);
}

typedef struct Chosen {
    PatKind kind;
    Pat pat;
} Chosen;

static Chosen choose(const FieldPats *fp) {
    for (int k = 0; k < PAT__COUNT; k++)
        for (int j = 0; j < MAX_MODS; j++)
            if (fp->valid[k] >> j & 1u) return (Chosen){(PatKind)k, fp->pat[k][j]};
    COLLC_UNREACHABLE("a loop field without a pattern");
}

/* A scratch buffer of a called algorithm is named `callee.buffer` in the
 * Schedule IR (`callee.buffer#k` from its k-th call); the language has no
 * such name, so it is written callee__buffer (callee__buffer__k). */
static void print_buffer_name(FILE *out, const char *name) {
    for (const char *c = name; *c; c++)
        if (*c == '.' || *c == '#') fputs("__", out);
        else fputc(*c, out);
}

static void print_ref(FILE *out, const Schedule *s, int buf, const Chosen *rank, const Chosen *lo,
                      int64_t len) {
    print_buffer_name(out, s->alg->buffers[buf].name);
    fputc('[', out);
    print_pat(out, rank->kind, &rank->pat, 0);
    fputs("][", out);
    print_pat(out, lo->kind, &lo->pat, 0);
    if (len != 1) {
        fputs(" .. ", out);
        print_pat(out, lo->kind, &lo->pat, len);
    }
    fputc(']', out);
}

static void print_xfer(FILE *out, const Schedule *s, const Transfer *t, const Chosen ch[F__COUNT],
                       const char *indent) {
    int64_t len = t->src.hi - t->src.lo;
    fprintf(out, "%s%s ", indent, t->op == XFER_COPY ? "copy" : "reduce");
    print_ref(out, s, t->src.buffer, &ch[F_SRC_RANK], &ch[F_SRC_LO], len);
    fputs(" -> ", out);
    print_ref(out, s, t->dst.buffer, &ch[F_DST_RANK], &ch[F_DST_LO], len);
    fputs(";\n", out);
}

static void print_step_body(FILE *out, const Schedule *s, const Step *st) {
    const Transfer *x = s->xfers + st->first;
    size_t n = st->count, k = 0;
    while (k < n) {
        size_t run = 1;
        FieldPats fp[F__COUNT];
        if (k + 1 < n && same_shape(&x[k], &x[k + 1])) {
            for (int f = 0; f < F__COUNT; f++) pats_init(s, &x[k], &x[k + 1], f, &fp[f]);
            run = 2;
            while (k + run < n && same_shape(&x[k], &x[k + run])) {
                FieldPats save[F__COUNT];
                memcpy(save, fp, sizeof fp);
                int ok = 1;
                for (int f = 0; f < F__COUNT && ok; f++)
                    ok = pats_keep(&fp[f], (int64_t)run, field(&x[k + run], f));
                if (!ok) {
                    memcpy(fp, save, sizeof fp);
                    break;
                }
                run++;
            }
        }
        Chosen ch[F__COUNT];
        if (run >= MIN_LOOP) {
            for (int f = 0; f < F__COUNT; f++) ch[f] = choose(&fp[f]);
            fprintf(out, "        for i in 0 .. %zu {\n", run);
            print_xfer(out, s, &x[k], ch, "            ");
            fputs("        }\n", out);
            k += run;
        } else {
            for (int f = 0; f < F__COUNT; f++) ch[f] = (Chosen){PAT_CONST, {field(&x[k], f), 0, 0}};
            print_xfer(out, s, &x[k], ch, "        ");
            k++;
        }
    }
}

/* Text from outside (a topology's or a machine's name, a command line) in a
 * comment (quoted = 0) or a string literal (1), so that the output always
 * scans: well-formed UTF-8 as it is, any other byte as U+FFFD; in a comment
 * a line break or control character becomes a space, in a string '"', '\\',
 * a line break and a tab are escaped and other control characters become
 * spaces. */
static void print_text(FILE *out, const char *text, int quoted) {
    const unsigned char *p = (const unsigned char *)text;
    size_t n = strlen(text);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t k = utf8_seq(p + i, n - i);
        if (k == 0) fputs("\xEF\xBF\xBD", out);
        else if (quoted && (c == '"' || c == '\\')) fprintf(out, "\\%c", c);
        else if (quoted && c == '\n') fputs("\\n", out);
        else if (quoted && c == '\t') fputs("\\t", out);
        else if (c < 0x20 || c == 0x7f) fputc(' ', out);
        else fwrite(p + i, 1, k, out);
        i += k ? k : 1;
    }
}

void schedule_print_coll(FILE *out, const Schedule *s, const CollPrintInfo *info) {
    const Algorithm *alg = s->alg;
    for (size_t k = 0; info && k < info->nheader; k++)
        if (info->header[k][0]) {
            fputs("// ", out);
            print_text(out, info->header[k], 0);
            fputc('\n', out);
        } else {
            fputs("//\n", out);
        }
    fprintf(out, "algorithm %s : %s {\n", info && info->name ? info->name : alg->name,
            collective_info[alg->coll].keyword);
    if (info && info->require_why) {
        fprintf(out, "    require N == %" PRId64 ", \"", s->N);
        print_text(out, info->require_why, 1);
        fputs("\";\n", out);
    } else {
        fprintf(out, "    require N == %" PRId64 ", \"schedule for N = %" PRId64 "\";\n", s->N, s->N);
    }
    if (s->root >= 0)
        fprintf(out, "    require root == %" PRId64 ", \"schedule for root %" PRId64 "\";\n", s->root,
                s->root);
    if (s->split != 1) fprintf(out, "    split %" PRId64 ";\n", s->split);
    for (int b = BUF_FIRST_SCRATCH; b < s->nbuffers; b++) {
        fputs("    scratch ", out);
        print_buffer_name(out, alg->buffers[b].name);
        fprintf(out, "[%" PRId64 "];\n", s->chunks_other[b]);
    }
    for (size_t i = 0; i < s->nsteps; i++) {
        const Step *st = &s->steps[i];
        const char *c = info && info->step_comment ? info->step_comment[i] : NULL;
        if (c) {
            fputs("\n    // ", out);
            print_text(out, c, 0);
            fputc('\n', out);
        }
        else if (i == 0) fputc('\n', out);
        if (st->count == 0) {
            fputs("    step { }\n", out);
            continue;
        }
        fputs("    step {\n", out);
        print_step_body(out, s, st);
        fputs("    }\n", out);
    }
    fputs("}\n", out);
}
