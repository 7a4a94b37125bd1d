/* diag-harness.c - drives the diagnostics engine directly (no parser), so
 * that caret placement, the three sinks, -Werror, -Wno and the error limit
 * are tested on exact spans.
 *
 * usage: diag-harness FORMAT SCENARIO [OPTION...]
 *   FORMAT   text | json | sarif
 *   SCENARIO caret | werror | limit | all | notes (not part of all)
 *   OPTION   -Werror  -Werror=CODE  -Wno-CODE  -limit=N  -color */
#include "support/diag.h"

#include <stdlib.h>
#include <string.h>

static SourceManager sm;
static DiagEngine *dx;

/* Span of the `nth` (0-based) occurrence of `needle` in file `id`. */
static Span find(int id, const char *needle, int nth) {
    const SourceFile *f = source_file(&sm, (uint32_t)id);
    const char *p = f->text;
    for (;;) {
        p = strstr(p, needle);
        if (!p) abort();
        if (nth-- == 0) break;
        p++;
    }
    Span s = {(uint32_t)id, (uint32_t)(p - f->text), (uint32_t)(p - f->text + strlen(needle))};
    return s;
}

static void scenario_caret(void) {
    static const char text[] =
        "algorithm ring : allgather {\n"
        "\tstep { copy in[r][0] -> out[r][r]; }\n"
        "    let c = (r - s) % N;\n"
        "}\n";
    int a = source_add(&sm, "ring.coll", text, sizeof text - 1);
    /* after a tab */
    diag_error(dx, find(a, "out[r][r]", 0), "write-to-in", "cannot write to 'in' here");
    diag_note(dx, find(a, "ring", 0), "in algorithm '%s'", "ring");
    /* one-character span, warning */
    Span c1 = find(a, "c =", 0);
    c1.hi = c1.lo + 1;
    diag_warning(dx, c1, "unused-variable", "unused variable 'c'");
    /* multi-line span: underlined to the end of its first line */
    Span ml = find(a, "step", 0);
    ml.hi = find(a, "N;", 0).hi;
    diag_error(dx, ml, "xfer-outside-step", "spans lines %d to %d", 2, 3);
    /* empty span at end of file */
    Span eof = {(uint32_t)a, (uint32_t)(sizeof text - 1), (uint32_t)(sizeof text - 1)};
    diag_error(dx, eof, "syntax", "expected '}' at end of input");

    /* a long line: the caret line shows a window around the error */
    char long_line[400];
    memset(long_line, 'x', sizeof long_line);
    memcpy(long_line + 300, "BAD", 3);
    long_line[sizeof long_line - 1] = '\n';
    int b = source_add(&sm, "long.coll", long_line, sizeof long_line);
    diag_error(dx, find(b, "BAD", 0), "syntax", "long line");

    /* a huge line: only the bytes around the span are looked at */
    {
        size_t n = 100000;
        char *huge = malloc(n + 1);
        for (size_t i = 0; i < n; i++) huge[i] = (char)('a' + i % 26);
        memcpy(huge + 50000, "HUGE", 4);
        memcpy(huge + 10, "\xc3\xa9", 2);
        huge[n] = '\n';
        int h = source_add(&sm, "huge.coll", huge, n + 1);
        free(huge);
        diag_error(dx, find(h, "HUGE", 0), "syntax", "huge line");
        Span early = {(uint32_t)h, 11, 12}; /* inside the UTF-8 sequence */
        diag_error(dx, early, "syntax", "early");
    }

    /* bytes that are not printable, then valid UTF-8, then the error */
    static const char odd[] = "// \x01\xff caf\xc3\xa9 \"\x7f\" ERR here\n";
    int c = source_add(&sm, "odd.coll", odd, sizeof odd - 1);
    diag_error(dx, find(c, "ERR", 0), "stray-char", "stray \"\\x01\" \xff in program");

    /* CRLF line endings: the \r is not shown */
    static const char crlf[] = "a\r\nbb cc\r\n";
    int e = source_add(&sm, "crlf.coll", crlf, sizeof crlf - 1);
    diag_error(dx, find(e, "cc", 0), "syntax", "crlf");

    /* standard input and file-less diagnostics */
    int f = source_add(&sm, "-", "x\n", 2);
    diag_error(dx, find(f, "x", 0), "syntax", "from stdin");
    diag_error(dx, span_none(), "cannot-open", "cannot open 'gone.coll': No such file or directory");
    diag_note(dx, span_none(), "a file-less note");
}

static void scenario_werror(void) {
    int a = source_add(&sm, "w.coll", "let x = 1;\nlet y = 2;\nlet z = 3;\n", 33);
    diag_warning(dx, find(a, "x", 0), "unused-variable", "unused variable 'x'");
    diag_note(dx, find(a, "let", 0), "declared here");
    diag_warning(dx, find(a, "y", 0), "shadow", "declaration shadows 'y'");
    diag_note(dx, find(a, "let", 1), "previous declaration is here");
    diag_warning(dx, find(a, "z", 0), "empty-file", "third warning");
}

static void scenario_limit(void) {
    int a = source_add(&sm, "l.coll", "a b c d e f\n", 12);
    const char *names[] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < 6; i++) {
        if (i == 4)
            diag_warning(dx, find(a, names[i], 0), "unused-variable", "warning %d", i);
        else
            diag_error(dx, find(a, names[i], 0), "syntax", "error %d", i);
        diag_note(dx, find(a, names[i], 0), "note %d", i);
    }
}

/* Notes without a location of their own, and fix-its. */
static void scenario_notes(void) {
    static const char text[] =
        "algorithm a : allgather {\n"
        "\tfor r in rank { step { } }\n"
        "}\n";
    int a = source_add(&sm, "n.coll", text, sizeof text - 1);
    Span rank = find(a, "rank", 0);
    diag_error(dx, rank, "syntax", "expected 'ranks' or a range 'A .. B' after 'in'");
    diag_note(dx, span_none(), "a note placed at its diagnostic");
    diag_note_fixit(dx, rank, "ranks", "did you mean 'ranks'?");
    Span before = {rank.file, rank.lo, rank.lo};
    diag_note_fixit(dx, before, "0 .. ", "an insertion");
    diag_note(dx, find(a, "algorithm", 0), "a note elsewhere");
    diag_note_fixit(dx, span_none(), "", "a deletion of the diagnostic's span");
    /* file-less: the note stays file-less and its fix-it has nowhere to go */
    diag_error(dx, span_none(), "cannot-open", "cannot open 'gone.coll'");
    diag_note_fixit(dx, span_none(), "x", "a file-less fix-it");
    /* a warning without notes after them */
    diag_warning(dx, find(a, "step", 0), "empty-file", "plain");
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    DiagFormat fmt = strcmp(argv[1], "json") == 0    ? DIAG_FMT_JSON
                     : strcmp(argv[1], "sarif") == 0 ? DIAG_FMT_SARIF
                                                     : DIAG_FMT_TEXT;
    source_init(&sm);
    dx = diag_new(&sm, stdout, fmt);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "-Werror") == 0) diag_set_werror(dx, NULL);
        else if (strncmp(argv[i], "-Werror=", 8) == 0) diag_set_werror(dx, argv[i] + 8);
        else if (strncmp(argv[i], "-Wno-", 5) == 0) diag_disable(dx, argv[i] + 5);
        else if (strncmp(argv[i], "-limit=", 7) == 0) diag_set_error_limit(dx, (unsigned)atoi(argv[i] + 7));
        else if (strcmp(argv[i], "-color") == 0) diag_set_color(dx, 1);
        else return 2;
    }
    const char *sc = argv[2];
    if (!strcmp(sc, "caret") || !strcmp(sc, "all")) scenario_caret();
    if (!strcmp(sc, "werror") || !strcmp(sc, "all")) scenario_werror();
    if (!strcmp(sc, "limit") || !strcmp(sc, "all")) scenario_limit();
    if (!strcmp(sc, "notes")) scenario_notes();
    diag_finish(dx);
    fprintf(stderr, "errors=%u warnings=%u\n", diag_error_count(dx), diag_warning_count(dx));
    diag_delete(dx);
    source_free(&sm);
    return 0;
}
