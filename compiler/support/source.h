/* source.h - loaded source files and source spans.
 *
 * A Span is a half-open byte range [lo, hi) in one loaded file. Line and
 * column are computed only when a diagnostic is printed (source_line_col),
 * so spans stay 12 bytes and cost nothing to carry on every node/transfer. */
#ifndef COLLC_SOURCE_H
#define COLLC_SOURCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct Span {
    uint32_t file;   /* index in SourceManager.files; SPAN_NO_FILE if none */
    uint32_t lo, hi; /* byte offsets, hi >= lo */
} Span;

#define SPAN_NO_FILE UINT32_MAX
static inline Span span_none(void) { Span s = {SPAN_NO_FILE, 0, 0}; return s; }
static inline int span_valid(Span s) { return s.file != SPAN_NO_FILE; }
/* The smallest span covering a and b (same file). */
static inline Span span_join(Span a, Span b) {
    if (!span_valid(a)) return b;
    if (!span_valid(b)) return a;
    Span s = a;
    if (b.lo < s.lo) s.lo = b.lo;
    if (b.hi > s.hi) s.hi = b.hi;
    return s;
}

typedef struct SourceFile {
    const char *path;      /* as given on the command line ("-" = stdin) */
    char *text;            /* NUL-terminated copy of the contents */
    size_t len;            /* bytes, excluding the terminator */
    uint32_t *line_starts; /* byte offset of each line start, computed lazily */
    size_t nlines;
    /* An expansion (source_add_expansion): the text of file `real`, reached
     * through the call at `site`; diagnostics in it add the note `note`
     * there, and so on up the chain of calls (like an include stack). */
    uint32_t real;         /* the file whose text this is (itself if real) */
    Span site;             /* span_none() for a real file */
    char *note;            /* NULL for a real file */
} SourceFile;

typedef struct SourceManager {
    SourceFile *files;
    size_t nfiles, cap;
} SourceManager;

void source_init(SourceManager *sm);
void source_free(SourceManager *sm);
/* Loads a file (or stdin for "-"). Returns the file id, or -1 with errno set
 * (the caller reports "cannot open"). Files over 1 GiB are refused (EFBIG). */
int  source_load(SourceManager *sm, const char *path);
/* Adds an in-memory buffer (tests, -e). Returns the file id. */
int  source_add(SourceManager *sm, const char *name, const char *text, size_t len);
const SourceFile *source_file(const SourceManager *sm, uint32_t id);
/* The name of file id without its folders ("ring.coll" for
 * "dsl-examples/ring.coll"): how a FILE:LINE reference names a file. */
const char *source_file_base(const SourceManager *sm, uint32_t id);
/* A new file id for the text of file `of` as reached through a call at
 * `site` (of may itself be an expansion: the text is then its real file's).
 * Spans into it show that text; `note` ("in 'x', called by 'y' here") is
 * what diagnostics say at `site`. Returns the id. */
uint32_t source_add_expansion(SourceManager *sm, uint32_t of, Span site, const char *note);
/* 1-based line and column (column counts bytes, as GCC does by default). */
void source_line_col(SourceManager *sm, uint32_t file, uint32_t off,
                     unsigned *line, unsigned *col);
/* The text of the given 1-based line, without the newline. */
const char *source_line_text(SourceManager *sm, uint32_t file, unsigned line,
                             size_t *len);

#endif
