/* diag.c - the diagnostics engine and its three sinks; see diag.h and
 * docs/diagnostics.md.
 *
 * Text is written as soon as a diagnostic (or note) is reported, so a crash
 * later still leaves the messages on the terminal. JSON needs the notes of a
 * diagnostic inside its object, so the latest diagnostic is kept pending
 * until the next one starts or diag_flush(). SARIF is one document per run:
 * every result is kept until diag_finish(). */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty */
#include "support/diag.h"
#include "support/json.h"
#include "support/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef COLLC_VERSION
#define COLLC_VERSION "unknown"
#endif

/* Caret lines wider than this are cut to a window around the caret. */
enum { DIAG_MAX_SHOWN_COLUMNS = 160, DIAG_WINDOW_BEFORE = 60, DIAG_TAB_STOP = 8,
       DIAG_HUGE_LINE = 4096 };

typedef struct DiagNote {
    Span span;
    char *msg;
    char *fixit;        /* replacement text for span; NULL: no fix-it */
} DiagNote;

typedef struct DiagRec {
    DiagSeverity sev;   /* effective (after -Werror promotion) */
    int promoted;       /* a warning turned into an error by -Werror */
    Span span;
    char *code;
    char *msg;
    DiagNote *notes;
    size_t nnotes, capnotes;
} DiagRec;

struct DiagEngine {
    SourceManager *sm;
    FILE *out;
    FILE *owned_out; /* diag_new_silent's /dev/null, closed by diag_delete */
    DiagFormat fmt;
    int color;
    unsigned error_limit;
    unsigned nerrors, nwarnings;
    int limit_hit;          /* the "too many errors" line was printed */
    int werror_all;
    char **werror; size_t nwerror;
    char **wno; size_t nwno;
    int last_dropped;       /* notes go nowhere */
    int has_last;           /* there is a diagnostic notes can attach to */
    Span last_span;         /* its location: notes without one get it */
    DiagRec pending;        /* JSON: not yet written; text: last one (for notes) */
    int pending_live;       /* JSON: pending must still be written */
    DiagRec *results;       /* SARIF: everything, in order */
    size_t nresults, capresults;
    int finished;
};

/* ---- small helpers ---- */

static char *xstrdup(const char *s) {
    size_t n = strlen(s);
    char *d = xmalloc(n + 1);
    memcpy(d, s, n + 1);
    return d;
}

static char *xvasprintf(const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0) COLLC_UNREACHABLE("vsnprintf failed");
    char *s = xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return s;
}

static void rec_free(DiagRec *r) {
    free(r->code);
    free(r->msg);
    for (size_t i = 0; i < r->nnotes; i++) {
        free(r->notes[i].msg);
        free(r->notes[i].fixit);
    }
    free(r->notes);
    memset(r, 0, sizeof *r);
}

static int in_list(char **list, size_t n, const char *code) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], code) == 0) return 1;
    return 0;
}

static const char *display_path(const SourceFile *f) {
    return strcmp(f->path, "-") == 0 ? "<stdin>" : f->path;
}

/* ---- engine set-up ---- */

DiagEngine *diag_new(SourceManager *sm, FILE *out, DiagFormat fmt) {
    DiagEngine *d = xcalloc(1, sizeof *d);
    d->sm = sm;
    d->out = out ? out : stderr;
    d->fmt = fmt;
    const char *term = getenv("TERM");
    d->color = fmt == DIAG_FMT_TEXT && isatty(fileno(d->out)) &&
               !(term && strcmp(term, "dumb") == 0) && !getenv("NO_COLOR");
    d->error_limit = 20;
    return d;
}

DiagEngine *diag_new_silent(SourceManager *sm) {
    FILE *devnull = fopen("/dev/null", "w");
    COLLC_ASSERT(devnull);
    DiagEngine *d = diag_new(sm, devnull, DIAG_FMT_TEXT);
    d->owned_out = devnull;
    return d;
}

void diag_delete(DiagEngine *d) {
    if (!d) return;
    if (d->owned_out) fclose(d->owned_out);
    rec_free(&d->pending);
    for (size_t i = 0; i < d->nresults; i++) rec_free(&d->results[i]);
    free(d->results);
    for (size_t i = 0; i < d->nwerror; i++) free(d->werror[i]);
    free(d->werror);
    for (size_t i = 0; i < d->nwno; i++) free(d->wno[i]);
    free(d->wno);
    free(d);
}

void diag_set_stream(DiagEngine *d, FILE *out) {
    fflush(d->out);
    d->out = out;
}

void diag_set_color(DiagEngine *d, int on) { d->color = on && d->fmt == DIAG_FMT_TEXT; }
void diag_set_error_limit(DiagEngine *d, unsigned limit) { d->error_limit = limit; }

void diag_set_werror(DiagEngine *d, const char *code) {
    if (!code) {
        d->werror_all = 1;
        return;
    }
    d->werror = xrealloc(d->werror, (d->nwerror + 1) * sizeof *d->werror);
    d->werror[d->nwerror++] = xstrdup(code);
}

void diag_disable(DiagEngine *d, const char *code) {
    d->wno = xrealloc(d->wno, (d->nwno + 1) * sizeof *d->wno);
    d->wno[d->nwno++] = xstrdup(code);
}

unsigned diag_error_count(const DiagEngine *d) { return d->nerrors; }
unsigned diag_warning_count(const DiagEngine *d) { return d->nwarnings; }
SourceManager *diag_sources(DiagEngine *d) { return d->sm; }

/* ---- text sink ---- */

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_ERROR "\033[1;31m"
#define C_WARNING "\033[1;35m"
#define C_NOTE "\033[1;30m"
#define C_CARET "\033[1;32m"

static const char *sev_name(DiagSeverity s) {
    switch (s) {
    case DIAG_ERROR: return "error";
    case DIAG_WARNING: return "warning";
    case DIAG_NOTE: return "note";
    }
    return "error";
}

static const char *sev_color(DiagSeverity s) {
    switch (s) {
    case DIAG_ERROR: return C_ERROR;
    case DIAG_WARNING: return C_WARNING;
    case DIAG_NOTE: return C_NOTE;
    }
    return C_ERROR;
}

/* A growable char buffer for building the shown line and the caret line. */
typedef struct StrBuf { char *p; size_t len, cap; } StrBuf;

static void sb_putn(StrBuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}
static void sb_putc(StrBuf *b, char c) { sb_putn(b, &c, 1); }

/* Prints the source line of `span` and a caret line under it, then the
 * replacement text of a fix-it (if any) starting under the caret, as clang
 * does. Tabs are expanded, bytes that are not printable UTF-8 are shown as
 * <XX>, a span reaching past the line is underlined to its end, and very
 * long lines are cut to a window around the caret. */
static void put_message(FILE *o, const char *msg);
static void print_snippet(DiagEngine *d, Span span, const char *fixit) {
    const SourceFile *f = source_file(d->sm, span.file);
    if (!f) return;
    unsigned line, col;
    source_line_col(d->sm, span.file, span.lo, &line, &col);
    size_t len;
    const char *text = source_line_text(d->sm, span.file, line, &len);
    /* An empty line (an empty file) gives nothing to point at. */
    if (!text || len == 0) return;
    size_t start_byte = col - 1;                 /* offset of lo in the line */
    size_t end_byte = start_byte + (span.hi - span.lo);
    if (end_byte > len) end_byte = len;          /* multi-line: first line only */

    /* On a huge line (minified or hostile input) look only at the bytes
     * around the span, so that many errors on one line stay linear. */
    int cut_left = 0, cut_right = 0;
    if (len > DIAG_HUGE_LINE) {
        size_t lo = start_byte > DIAG_HUGE_LINE / 4 ? start_byte - DIAG_HUGE_LINE / 4 : 0;
        while (lo > 0 && lo < start_byte && ((unsigned char)text[lo] & 0xC0) == 0x80) lo++;
        size_t hi = len - start_byte > DIAG_HUGE_LINE / 4 ? start_byte + DIAG_HUGE_LINE / 4 : len;
        cut_left = lo > 0;
        cut_right = hi < len;
        text += lo;
        len = hi - lo;
        start_byte -= lo;
        end_byte = end_byte - lo > len ? len : end_byte - lo;
    }

    /* Build display columns: shown[i] text, and the display column at which
     * each byte starts (colmap[len] = width of the whole line). */
    StrBuf shown = {0};
    size_t *colmap = xmalloc((len + 1) * sizeof *colmap);
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)text[i];
        size_t n;
        colmap[i] = w;
        if (c == '\t') {
            size_t to = (w / DIAG_TAB_STOP + 1) * DIAG_TAB_STOP;
            while (w < to) { sb_putc(&shown, ' '); w++; }
            i++;
        } else if (c >= 0x20 && c < 0x7F) {
            sb_putc(&shown, (char)c);
            w++;
            i++;
        } else if (c >= 0x80 && (n = utf8_seq((const unsigned char *)text + i, len - i)) > 0) {
            sb_putn(&shown, text + i, n);
            for (size_t k = 1; k < n; k++) colmap[i + k] = w;
            w++;
            i += n;
        } else {
            char hex[8];
            snprintf(hex, sizeof hex, "<%02X>", c);
            sb_putn(&shown, hex, 4);
            w += 4;
            i++;
        }
    }
    colmap[len] = w;
    if (!shown.p) sb_putn(&shown, "", 0);

    size_t cstart = colmap[start_byte];
    size_t cend = colmap[end_byte];
    if (cend <= cstart) cend = cstart + 1; /* at least the caret */

    /* Window: which display columns [wlo, whi) are shown. Columns map 1:1 to
     * bytes of `shown` except inside UTF-8 sequences; cut only at byte
     * boundaries that start a column. */
    size_t wlo = 0, whi = w;
    if (w > DIAG_MAX_SHOWN_COLUMNS) {
        wlo = cstart > DIAG_WINDOW_BEFORE ? cstart - DIAG_WINDOW_BEFORE : 0;
        whi = wlo + DIAG_MAX_SHOWN_COLUMNS - DIAG_WINDOW_BEFORE / 2;
        if (whi > w) whi = w;
        if (cend > whi) cend = whi > cstart ? whi : cstart + 1;
    }
    /* Map display columns back to byte offsets in `shown`. */
    size_t blo = 0, bhi = shown.len;
    if (wlo > 0 || whi < w) {
        size_t col2 = 0;
        blo = SIZE_MAX;
        bhi = shown.len;
        for (size_t b = 0; b < shown.len;) {
            if (col2 == wlo && blo == SIZE_MAX) blo = b;
            if (col2 == whi) { bhi = b; break; }
            unsigned char c = (unsigned char)shown.p[b];
            size_t n = c >= 0x80 ? utf8_seq((const unsigned char *)shown.p + b, shown.len - b) : 1;
            if (n == 0) n = 1;
            b += n;
            col2++;
        }
        if (blo == SIZE_MAX) blo = shown.len;
    }
    const char *prefix = wlo > 0 || cut_left ? "..." : "";
    const char *suffix = whi < w || cut_right ? "..." : "";
    fprintf(d->out, "%s%.*s%s\n", prefix, (int)(bhi - blo), shown.p + blo, suffix);

    StrBuf caret = {0};
    for (size_t i = 0; i < strlen(prefix); i++) sb_putc(&caret, ' ');
    for (size_t c = wlo; c < cstart; c++) sb_putc(&caret, ' ');
    sb_putc(&caret, '^');
    for (size_t c = cstart + 1; c < cend; c++) sb_putc(&caret, '~');
    if (d->color) fputs(C_CARET, d->out);
    fputs(caret.p, d->out);
    if (d->color) fputs(C_RESET, d->out);
    fputc('\n', d->out);
    if (fixit && *fixit) {
        /* The caret line up to the caret is all spaces: reuse it. */
        fprintf(d->out, "%.*s", (int)(strlen(prefix) + cstart - wlo), caret.p);
        if (d->color) fputs(C_CARET, d->out);
        put_message(d->out, fixit);
        if (d->color) fputs(C_RESET, d->out);
        fputc('\n', d->out);
    }
    free(caret.p);
    free(shown.p);
    free(colmap);
}

/* An error "at end of input" of a file that ends with a newline would sit
 * on an empty line after the last one; show it just after the last
 * character instead, as GCC does. */
static Span shown_span(DiagEngine *d, Span s) {
    const SourceFile *f = span_valid(s) ? source_file(d->sm, s.file) : NULL;
    if (!f) return s;
    if (s.hi > f->len) s.hi = (uint32_t)f->len;
    if (s.lo > s.hi) s.lo = s.hi;
    if (f->len > 0 && f->text[f->len - 1] == '\n') {
        uint32_t last = (uint32_t)f->len - 1;
        if (s.lo == f->len) s.lo = last;
        if (s.hi == f->len) s.hi = last;
    }
    return s;
}

/* Writes a message; control characters and bytes that are not UTF-8 are
 * shown as <XX> so that no input can drive the terminal. */
static void put_message(FILE *o, const char *msg) {
    const unsigned char *p = (const unsigned char *)msg;
    size_t n = strlen(msg);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t k;
        if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7F)) {
            fputc(c, o);
            i++;
        } else if (c >= 0x80 && (k = utf8_seq(p + i, n - i)) > 0) {
            fwrite(p + i, 1, k, o);
            i += k;
        } else {
            fprintf(o, "<%02X>", c);
            i++;
        }
    }
}

/* Writes one diagnostic or note; `snippet`: show the source line. */
static void text_emit(DiagEngine *d, DiagSeverity sev, Span span, const char *code,
                      const char *msg, const char *fixit, int snippet) {
    const SourceFile *f = span_valid(span) ? source_file(d->sm, span.file) : NULL;
    span = shown_span(d, span);
    if (d->color) fputs(C_BOLD, d->out);
    if (f) {
        unsigned line, col;
        source_line_col(d->sm, span.file, span.lo, &line, &col);
        fprintf(d->out, "%s:%u:%u: ", display_path(f), line, col);
    } else {
        fputs("collc: ", d->out);
    }
    if (d->color) fputs(sev_color(sev), d->out);
    fprintf(d->out, "%s: ", sev_name(sev));
    if (d->color) fputs(sev == DIAG_NOTE ? C_RESET : C_RESET C_BOLD, d->out);
    put_message(d->out, msg);
    if (code && *code) fprintf(d->out, " [%s]", code);
    if (d->color) fputs(C_RESET, d->out);
    fputc('\n', d->out);
    if (f && snippet) print_snippet(d, span, fixit);
}

/* ---- JSON helpers (shared by JSON Lines and SARIF) ---- */

/* Line/column of both ends of a span; the end is exclusive (the position
 * just after the last byte), as in SARIF and LSP. */
static void span_pos(DiagEngine *d, Span s, unsigned *l1, unsigned *c1,
                     unsigned *l2, unsigned *c2) {
    s = shown_span(d, s);
    source_line_col(d->sm, s.file, s.lo, l1, c1);
    source_line_col(d->sm, s.file, s.hi, l2, c2);
}

/* The members "file", "line", "column" and "end" of a location. */
static void json_location(DiagEngine *d, JsonWriter *w, Span s) {
    const SourceFile *f = span_valid(s) ? source_file(d->sm, s.file) : NULL;
    if (!f) {
        json_field_null(w, "file");
        json_field_null(w, "line");
        json_field_null(w, "column");
        json_field_null(w, "end");
        return;
    }
    unsigned l1, c1, l2, c2;
    span_pos(d, s, &l1, &c1, &l2, &c2);
    json_field_string(w, "file", display_path(f));
    json_field_uint(w, "line", l1);
    json_field_uint(w, "column", c1);
    json_key(w, "end");
    json_object_begin(w);
    json_field_uint(w, "line", l2);
    json_field_uint(w, "column", c2);
    json_object_end(w);
}

static void json_emit(DiagEngine *d, const DiagRec *r) {
    JsonWriter w;
    json_init(&w, d->out);
    json_object_begin(&w);
    json_location(d, &w, r->span);
    json_field_string(&w, "severity", sev_name(r->sev));
    json_field_string(&w, "code", r->code ? r->code : "");
    json_field_string(&w, "message", r->msg);
    json_key(&w, "notes");
    json_array_begin(&w);
    for (size_t i = 0; i < r->nnotes; i++) {
        json_object_begin(&w);
        json_location(d, &w, r->notes[i].span);
        json_field_string(&w, "message", r->notes[i].msg);
        /* The text that replaces the note's span (from "line"/"column" to
         * "end"); an empty span is an insertion. */
        if (r->notes[i].fixit) json_field_string(&w, "fixit", r->notes[i].fixit);
        json_object_end(&w);
    }
    json_array_end(&w);
    json_object_end(&w);
    fputc('\n', d->out);
}

/* ---- reporting ---- */

/* Writes out the pending JSON diagnostic, if any. */
static void complete_pending(DiagEngine *d) {
    if (d->fmt == DIAG_FMT_JSON && d->pending_live) {
        json_emit(d, &d->pending);
        fflush(d->out);
    }
    d->pending_live = 0;
    rec_free(&d->pending);
}

static DiagRec *start_record(DiagEngine *d, DiagSeverity sev, int promoted, Span span,
                             const char *code, char *msg) {
    DiagRec *r;
    if (d->fmt == DIAG_FMT_SARIF) {
        if (d->nresults == d->capresults) {
            d->capresults = d->capresults ? d->capresults * 2 : 16;
            d->results = xrealloc(d->results, d->capresults * sizeof *d->results);
        }
        r = &d->results[d->nresults++];
    } else {
        r = &d->pending;
        d->pending_live = 1;
    }
    memset(r, 0, sizeof *r);
    r->sev = sev;
    r->promoted = promoted;
    r->span = span;
    r->code = xstrdup(code ? code : "");
    r->msg = msg;
    return r;
}

static DiagRec *last_record(DiagEngine *d) {
    if (d->fmt == DIAG_FMT_SARIF) return d->nresults ? &d->results[d->nresults - 1] : NULL;
    return &d->pending;
}

int diag_vreport(DiagEngine *d, DiagSeverity sev, Span span, const char *code,
                 const char *fmt, va_list ap) {
    COLLC_ASSERT(sev != DIAG_NOTE);
    complete_pending(d);
    int promoted = 0;
    if (sev == DIAG_WARNING) {
        if (code && in_list(d->wno, d->nwno, code)) {
            d->last_dropped = 1;
            return -1;
        }
        if (d->werror_all || (code && in_list(d->werror, d->nwerror, code))) {
            sev = DIAG_ERROR;
            promoted = 1;
        }
    }
    if (sev == DIAG_ERROR) d->nerrors++;

    /* Past the limit: count errors, but show nothing more (warnings are
     * neither shown nor counted). */
    if (d->error_limit && (d->limit_hit || (sev == DIAG_ERROR && d->nerrors > d->error_limit))) {
        d->last_dropped = 1;
        if (sev == DIAG_WARNING) return -1;
        if (!d->limit_hit) {
            d->limit_hit = 1;
            char buf[128];
            snprintf(buf, sizeof buf,
                     "too many errors emitted, stopping now; use -ferror-limit=0 to see all");
            if (d->fmt == DIAG_FMT_TEXT) {
                text_emit(d, DIAG_ERROR, span_none(), "error-limit", buf, NULL, 0);
            } else {
                start_record(d, DIAG_ERROR, 0, span_none(), "error-limit", xstrdup(buf));
                complete_pending(d);
            }
        }
        return DIAG_ERROR;
    }

    if (sev == DIAG_WARNING) d->nwarnings++;
    char *msg = xvasprintf(fmt, ap);
    d->last_dropped = 0;
    d->has_last = 1;
    d->last_span = span;
    if (d->fmt == DIAG_FMT_TEXT) {
        text_emit(d, sev, span, code, msg, NULL, 1);
        /* Keep nothing: notes of text diagnostics print immediately too. */
        free(msg);
        fflush(d->out);
    } else {
        start_record(d, sev, promoted, span, code, msg);
    }
    /* Inside a called algorithm: the chain of calls, innermost first (like
     * an include stack). */
    const SourceFile *f = span_valid(span) ? source_file(d->sm, span.file) : NULL;
    for (int depth = 0; f && f->note && depth < 64; depth++) {
        Span site = f->site;
        diag_note(d, site, "%s", f->note);
        f = span_valid(site) ? source_file(d->sm, site.file) : NULL;
    }
    return (int)sev;
}

Span diag_call_site(const DiagEngine *d, Span s) {
    const SourceFile *f = span_valid(s) ? source_file(d->sm, s.file) : NULL;
    return f && f->note ? f->site : span_none();
}

int diag_report(DiagEngine *d, DiagSeverity sev, Span span, const char *code,
                const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int r = diag_vreport(d, sev, span, code, fmt, ap);
    va_end(ap);
    return r;
}

static int has_file(DiagEngine *d, Span s) {
    return span_valid(s) && source_file(d->sm, s.file) != NULL;
}

/* Attaches a note (msg and fixit malloc'ed, taken over) to the last
 * diagnostic. A note without a location gets its diagnostic's, so that
 * every note of a located diagnostic is located in every format; in text
 * it then does not show that source line a second time. */
static void add_note(DiagEngine *d, Span span, char *fixit, char *msg) {
    int inherited = !has_file(d, span);
    if (inherited) {
        span = d->last_span;
        /* A replacement needs a place to go. */
        if (!has_file(d, span)) {
            free(fixit);
            fixit = NULL;
        }
    }
    if (d->fmt == DIAG_FMT_TEXT) {
        text_emit(d, DIAG_NOTE, span, NULL, msg, fixit, !inherited || fixit);
        free(msg);
        free(fixit);
        return;
    }
    DiagRec *r = last_record(d);
    if (!r || !r->msg) {
        free(msg);
        free(fixit);
        return;
    }
    if (r->nnotes == r->capnotes) {
        r->capnotes = r->capnotes ? r->capnotes * 2 : 4;
        r->notes = xrealloc(r->notes, r->capnotes * sizeof *r->notes);
    }
    r->notes[r->nnotes].span = span;
    r->notes[r->nnotes].msg = msg;
    r->notes[r->nnotes].fixit = fixit;
    r->nnotes++;
}

void diag_vnote(DiagEngine *d, Span span, const char *fmt, va_list ap) {
    if (d->last_dropped || !d->has_last) return;
    add_note(d, span, NULL, xvasprintf(fmt, ap));
}

void diag_note(DiagEngine *d, Span span, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vnote(d, span, fmt, ap);
    va_end(ap);
}

void diag_note_fixit(DiagEngine *d, Span span, const char *replacement, const char *fmt, ...) {
    if (d->last_dropped || !d->has_last) return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    add_note(d, span, xstrdup(replacement), msg);
}

void diag_flush(DiagEngine *d) {
    complete_pending(d);
    /* A note after a flush would land on a diagnostic already written. */
    if (d->fmt == DIAG_FMT_JSON) d->has_last = 0;
    fflush(d->out);
}

/* ---- SARIF ---- */

/* Relative paths stay relative URIs (resolved against the working
 * directory); absolute ones become file:// URIs. Reserved bytes are
 * percent-encoded. Malloc'ed. */
static char *sarif_uri(const SourceFile *f) {
    const char *p = strcmp(f->path, "-") == 0 ? "stdin" : f->path;
    char *uri = xmalloc(3 * strlen(p) + sizeof "file://");
    size_t n = 0;
    if (p[0] == '/') {
        memcpy(uri, "file://", 7);
        n = 7;
    }
    for (const unsigned char *s = (const unsigned char *)p; *s; s++) {
        unsigned c = *s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            strchr("-._~/!$&'()*+,;=:@", (int)c))
            uri[n++] = (char)c;
        else
            n += (size_t)sprintf(uri + n, "%%%02X", c);
    }
    uri[n] = 0;
    return uri;
}

/* The member "artifactLocation" of span s's file. */
static void sarif_artifact(DiagEngine *d, JsonWriter *w, Span s) {
    char *uri = sarif_uri(source_file(d->sm, s.file));
    json_key(w, "artifactLocation");
    json_object_begin(w);
    json_field_string(w, "uri", uri);
    json_object_end(w);
    free(uri);
}

/* The member `key` ("region", "deletedRegion") for span s, end exclusive. */
static void sarif_region(DiagEngine *d, JsonWriter *w, const char *key, Span s) {
    unsigned l1, c1, l2, c2;
    span_pos(d, s, &l1, &c1, &l2, &c2);
    json_key(w, key);
    json_object_begin(w);
    json_field_uint(w, "startLine", l1);
    json_field_uint(w, "startColumn", c1);
    json_field_uint(w, "endLine", l2);
    json_field_uint(w, "endColumn", c2);
    json_object_end(w);
}

static void sarif_physical(DiagEngine *d, JsonWriter *w, Span s) {
    json_object_begin(w);
    sarif_artifact(d, w, s);
    sarif_region(d, w, "region", s);
    json_object_end(w);
}

/* The fix-its of a result's notes as SARIF "fixes": one fix per note, its
 * description the note's message, one replacement of the note's span. */
static void sarif_fixes(DiagEngine *d, JsonWriter *w, const DiagRec *r) {
    size_t n = 0;
    for (size_t k = 0; k < r->nnotes; k++) n += r->notes[k].fixit != NULL;
    if (!n) return;
    json_key(w, "fixes");
    json_array_begin(w);
    for (size_t k = 0; k < r->nnotes; k++) {
        const DiagNote *nt = &r->notes[k];
        if (!nt->fixit) continue;
        json_object_begin(w);
        json_key(w, "description");
        json_object_begin(w);
        json_field_string(w, "text", nt->msg);
        json_object_end(w);
        json_key(w, "artifactChanges");
        json_array_begin(w);
        json_object_begin(w);
        sarif_artifact(d, w, nt->span);
        json_key(w, "replacements");
        json_array_begin(w);
        json_object_begin(w);
        sarif_region(d, w, "deletedRegion", nt->span);
        json_key(w, "insertedContent");
        json_object_begin(w);
        json_field_string(w, "text", nt->fixit);
        json_object_end(w);
        json_object_end(w);
        json_array_end(w); /* replacements */
        json_object_end(w);
        json_array_end(w); /* artifactChanges */
        json_object_end(w);
    }
    json_array_end(w);
}

static void sarif_write(DiagEngine *d) {
    /* Rules: one per distinct code, in order of first appearance. */
    const char **rules = xmalloc((d->nresults + 1) * sizeof *rules);
    size_t nrules = 0;
    size_t *rule_of = xmalloc((d->nresults + 1) * sizeof *rule_of);
    for (size_t i = 0; i < d->nresults; i++) {
        const char *code = d->results[i].code;
        size_t k;
        for (k = 0; k < nrules; k++)
            if (strcmp(rules[k], code) == 0) break;
        if (k == nrules) rules[nrules++] = code;
        rule_of[i] = k;
    }
    JsonWriter w;
    json_init(&w, d->out);
    json_object_begin(&w);
    json_field_string(&w, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    json_field_string(&w, "version", "2.1.0");
    json_key(&w, "runs");
    json_array_begin(&w);
    json_object_begin(&w);
    json_key(&w, "tool");
    json_object_begin(&w);
    json_key(&w, "driver");
    json_object_begin(&w);
    json_field_string(&w, "name", "collc");
    json_field_string(&w, "version", COLLC_VERSION);
    json_key(&w, "rules");
    json_array_begin(&w);
    for (size_t k = 0; k < nrules; k++) {
        /* Codes are explained in docs/diagnostics.md under their own name. */
        json_object_begin(&w);
        json_field_string(&w, "id", rules[k]);
        json_object_end(&w);
    }
    json_array_end(&w);
    json_object_end(&w); /* driver */
    json_object_end(&w); /* tool */
    json_key(&w, "results");
    json_array_begin(&w);
    for (size_t i = 0; i < d->nresults; i++) {
        const DiagRec *r = &d->results[i];
        json_object_begin(&w);
        json_field_string(&w, "ruleId", r->code);
        json_field_uint(&w, "ruleIndex", rule_of[i]);
        json_field_string(&w, "level", r->sev == DIAG_ERROR ? "error" : "warning");
        json_key(&w, "message");
        json_object_begin(&w);
        json_field_string(&w, "text", r->msg);
        json_object_end(&w);
        if (has_file(d, r->span)) {
            json_key(&w, "locations");
            json_array_begin(&w);
            json_object_begin(&w);
            json_key(&w, "physicalLocation");
            sarif_physical(d, &w, r->span);
            json_object_end(&w);
            json_array_end(&w);
        }
        if (r->nnotes) {
            json_key(&w, "relatedLocations");
            json_array_begin(&w);
            for (size_t k = 0; k < r->nnotes; k++) {
                json_object_begin(&w);
                json_field_uint(&w, "id", k);
                if (has_file(d, r->notes[k].span)) {
                    json_key(&w, "physicalLocation");
                    sarif_physical(d, &w, r->notes[k].span);
                }
                json_key(&w, "message");
                json_object_begin(&w);
                json_field_string(&w, "text", r->notes[k].msg);
                json_object_end(&w);
                json_object_end(&w);
            }
            json_array_end(&w);
        }
        sarif_fixes(d, &w, r);
        if (r->promoted) {
            json_key(&w, "properties");
            json_object_begin(&w);
            json_field_bool(&w, "promotedByWerror", 1);
            json_object_end(&w);
        }
        json_object_end(&w);
    }
    json_array_end(&w);  /* results */
    json_object_end(&w); /* the run */
    json_array_end(&w);  /* runs */
    json_object_end(&w);
    fputc('\n', d->out);
    free(rules);
    free(rule_of);
}

void diag_finish(DiagEngine *d) {
    if (d->finished) {
        fflush(d->out);
        return;
    }
    d->finished = 1;
    diag_flush(d);
    if (d->fmt == DIAG_FMT_SARIF) {
        sarif_write(d);
    } else if (d->fmt == DIAG_FMT_TEXT && (d->nerrors || d->nwarnings)) {
        /* clang's summary line. */
        if (d->nwarnings && d->nerrors)
            fprintf(d->out, "%u warning%s and %u error%s generated.\n", d->nwarnings,
                    d->nwarnings == 1 ? "" : "s", d->nerrors, d->nerrors == 1 ? "" : "s");
        else if (d->nerrors)
            fprintf(d->out, "%u error%s generated.\n", d->nerrors, d->nerrors == 1 ? "" : "s");
        else
            fprintf(d->out, "%u warning%s generated.\n", d->nwarnings,
                    d->nwarnings == 1 ? "" : "s");
    }
    fflush(d->out);
}
