/* source.c - loaded source files and line/column lookup; see source.h.
 *
 * Files are read whole into a NUL-terminated malloc'ed copy (the lexer wants
 * a terminator, and diagnostics print lines long after the lexer is done).
 * The line table is built only when the first diagnostic of a file needs a
 * line number: most successful compilations never pay for it. */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "support/source.h"
#include "support/util.h"

#include <sys/stat.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Refuse inputs over 1 GiB: spans are 32-bit offsets and nothing sensible
 * is that large. */
#define SOURCE_MAX_BYTES ((size_t)1 << 30)

void source_init(SourceManager *sm) {
    sm->files = NULL;
    sm->nfiles = 0;
    sm->cap = 0;
}

void source_free(SourceManager *sm) {
    for (size_t i = 0; i < sm->nfiles; i++) {
        free((void *)sm->files[i].path);
        if (sm->files[i].real == i) free(sm->files[i].text); /* an expansion borrows it */
        free(sm->files[i].line_starts);
        free(sm->files[i].note);
    }
    free(sm->files);
    source_init(sm);
}

/* Takes ownership of `text` (malloc'ed, len bytes + NUL). */
static int add_owned(SourceManager *sm, const char *name, char *text, size_t len) {
    if (sm->nfiles == sm->cap) {
        sm->cap = sm->cap ? sm->cap * 2 : 8;
        sm->files = xrealloc(sm->files, sm->cap * sizeof *sm->files);
    }
    size_t nlen = strlen(name);
    char *path = xmalloc(nlen + 1);
    memcpy(path, name, nlen + 1);
    SourceFile *f = &sm->files[sm->nfiles];
    f->path = path;
    f->text = text;
    f->len = len;
    f->line_starts = NULL;
    f->nlines = 0;
    f->real = (uint32_t)sm->nfiles;
    f->site = span_none();
    f->note = NULL;
    return (int)sm->nfiles++;
}

/* Reads a whole stream; returns the buffer or NULL with errno set. */
static char *read_stream(FILE *fp, size_t *len_out) {
    size_t cap = 64 * 1024, len = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) {
            if (cap >= SOURCE_MAX_BYTES + 1) {
                free(buf);
                errno = EFBIG;
                return NULL;
            }
            cap *= 2;
            if (cap > SOURCE_MAX_BYTES + 1) cap = SOURCE_MAX_BYTES + 1;
            buf = xrealloc(buf, cap + 1);
        }
        size_t n = fread(buf + len, 1, cap - len, fp);
        len += n;
        if (n == 0) {
            if (ferror(fp)) {
                int e = errno ? errno : EIO;
                free(buf);
                errno = e;
                return NULL;
            }
            break;
        }
    }
    if (len > SOURCE_MAX_BYTES) {
        free(buf);
        errno = EFBIG;
        return NULL;
    }
    buf[len] = '\0';
    *len_out = len;
    return buf;
}

int source_load(SourceManager *sm, const char *path) {
    if (strcmp(path, "-") == 0) {
        size_t len = 0;
        errno = 0;
        char *text = read_stream(stdin, &len);
        if (!text) return -1;
        return add_owned(sm, "-", text, len);
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    /* Refuse a big regular file before reading a byte of it. */
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size > SOURCE_MAX_BYTES) {
        fclose(fp);
        errno = EFBIG;
        return -1;
    }
    /* A directory opens fine on Linux but fails to read with EISDIR; say so
     * before reading rather than reporting an empty file. */
    errno = 0;
    int c = fgetc(fp);
    if (c == EOF && ferror(fp)) {
        int e = errno ? errno : EIO;
        fclose(fp);
        errno = e;
        return -1;
    }
    if (c != EOF) ungetc(c, fp);
    size_t len = 0;
    char *text = read_stream(fp, &len);
    int e = errno;
    fclose(fp);
    if (!text) {
        errno = e;
        return -1;
    }
    return add_owned(sm, path, text, len);
}

int source_add(SourceManager *sm, const char *name, const char *text, size_t len) {
    COLLC_ASSERT(len <= SOURCE_MAX_BYTES);
    char *copy = xmalloc(len + 1);
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    return add_owned(sm, name, copy, len);
}

const SourceFile *source_file(const SourceManager *sm, uint32_t id) {
    if (id >= sm->nfiles) return NULL;
    return &sm->files[id];
}

const char *source_file_base(const SourceManager *sm, uint32_t id) {
    const char *path = source_file(sm, id)->path;
    const char *base = strrchr(path, '/');
    return base ? base + 1 : path;
}

uint32_t source_add_expansion(SourceManager *sm, uint32_t of, Span site, const char *note) {
    COLLC_ASSERT(of < sm->nfiles);
    uint32_t real = sm->files[of].real;
    const char *path = sm->files[real].path;
    char *text = sm->files[real].text;
    size_t len = sm->files[real].len;
    int id = add_owned(sm, path, text, len);
    SourceFile *f = &sm->files[id];
    f->real = real;
    f->site = site;
    size_t n = strlen(note);
    f->note = xmalloc(n + 1);
    memcpy(f->note, note, n + 1);
    return (uint32_t)id;
}

static void build_lines(SourceFile *f) {
    if (f->line_starts) return;
    size_t n = 1;
    for (size_t i = 0; i < f->len; i++)
        if (f->text[i] == '\n') n++;
    f->line_starts = xmalloc(n * sizeof *f->line_starts);
    size_t k = 0;
    f->line_starts[k++] = 0;
    for (size_t i = 0; i < f->len; i++)
        if (f->text[i] == '\n') f->line_starts[k++] = (uint32_t)(i + 1);
    f->nlines = n;
}

void source_line_col(SourceManager *sm, uint32_t file, uint32_t off,
                     unsigned *line, unsigned *col) {
    if (file >= sm->nfiles) {
        *line = 0;
        *col = 0;
        return;
    }
    SourceFile *f = &sm->files[file];
    build_lines(f);
    if (off > f->len) off = (uint32_t)f->len;
    /* Last line start <= off. */
    size_t lo = 0, hi = f->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->line_starts[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    *line = (unsigned)(lo + 1);
    *col = (unsigned)(off - f->line_starts[lo] + 1);
}

const char *source_line_text(SourceManager *sm, uint32_t file, unsigned line,
                             size_t *len) {
    *len = 0;
    if (file >= sm->nfiles) return NULL;
    SourceFile *f = &sm->files[file];
    build_lines(f);
    if (line == 0 || line > f->nlines) return NULL;
    size_t start = f->line_starts[line - 1];
    size_t end = line < f->nlines ? f->line_starts[line] - 1 : f->len;
    /* Do not show the \r of CRLF files. */
    if (end > start && f->text[end - 1] == '\r') end--;
    *len = end - start;
    return f->text + start;
}
