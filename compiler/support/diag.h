/* diag.h - the one diagnostics module.
 *
 * All errors, warnings and notes of every phase go through here. Three sinks:
 *   text  : GNU "file:line:col: error: message [code]" + source line + caret
 *   json  : one JSON object per diagnostic per line (JSON Lines) on stderr:
 *           {"file","line","column","end":{"line","column"},"severity",
 *            "code","message","notes":[{"file","line","column","end",
 *            "message"[,"fixit"]}]}
 *   sarif : one SARIF 2.1.0 log for the whole run, written by diag_finish().
 * A diagnostic is reported with diag_report(); notes attach to the most
 * recent one with diag_note(). Output of a diagnostic is completed when the
 * next one starts or at diag_flush()/diag_finish().
 *
 * Codes are stable identifiers (e.g. "syntax", "unknown-name",
 * "chunk-out-of-range", "undefined-read"); docs/diagnostics.md lists them.
 * A warning whose code is named by -Werror=CODE (or all, with -Werror) is
 * promoted to an error; -Wno-CODE silences it. */
#ifndef COLLC_DIAG_H
#define COLLC_DIAG_H

#include <stdarg.h>
#include <stdio.h>
#include "support/source.h"

typedef enum DiagSeverity {
    DIAG_ERROR,   /* input is wrong: exit status 1 */
    DIAG_WARNING, /* suspicious; an error under -Werror[=code] */
    DIAG_NOTE,    /* extra context attached to the previous diagnostic */
} DiagSeverity;

typedef enum DiagFormat {
    DIAG_FMT_TEXT,  /* GNU style with caret */
    DIAG_FMT_JSON,  /* JSON Lines, one object per diagnostic */
    DIAG_FMT_SARIF, /* one SARIF 2.1.0 document at diag_finish() */
} DiagFormat;

typedef struct DiagEngine DiagEngine;

DiagEngine *diag_new(SourceManager *sm, FILE *out, DiagFormat fmt);
/* An engine that counts what is reported and writes nothing: for passes
 * that run the front end again where a later one reports. */
DiagEngine *diag_new_silent(SourceManager *sm);
void diag_delete(DiagEngine *d);
/* Writes to `out` from now on. The colour decided for the stream given to
 * diag_new stays: a stream that passes everything on to the terminal (the
 * driver's, which erases its progress line first) keeps the terminal's
 * colours. */
void diag_set_stream(DiagEngine *d, FILE *out);
/* The call that span s is inside of (a span in a called algorithm's
 * expansion: the innermost `call` statement), or span_none(). */
Span diag_call_site(const DiagEngine *d, Span s);
/* Colour the text sink (default: only when out is a terminal). */
void diag_set_color(DiagEngine *d, int on);
/* Stop reporting after this many errors (0 = unlimited; default 20). Further
 * errors are still counted. */
void diag_set_error_limit(DiagEngine *d, unsigned limit);
/* -Werror (code NULL = all warnings) / -Werror=code / -Wno-code. */
void diag_set_werror(DiagEngine *d, const char *code);
void diag_disable(DiagEngine *d, const char *code);

/* Report a diagnostic at `span` (may be span_none() for file-less ones).
 * `code` is the stable identifier. Returns the effective severity (a warning
 * may have been promoted, or -1 if it was silenced). */
int diag_report(DiagEngine *d, DiagSeverity sev, Span span, const char *code,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int diag_vreport(DiagEngine *d, DiagSeverity sev, Span span, const char *code,
                 const char *fmt, va_list ap);
/* Attach a note to the last reported diagnostic (dropped if that one was
 * silenced or past the error limit). A note given span_none() is placed at
 * its diagnostic's location: a note has a location whenever its diagnostic
 * has one. */
void diag_note(DiagEngine *d, Span span, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_vnote(DiagEngine *d, Span span, const char *fmt, va_list ap);
/* A note with a fix-it: `replacement` is the text that should replace
 * `span` (an empty span: an insertion). Text shows it under the caret,
 * JSON as the note's "fixit", SARIF as a result's "fixes". */
void diag_note_fixit(DiagEngine *d, Span span, const char *replacement, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Convenience wrappers. */
#define diag_error(d, span, code, ...) diag_report((d), DIAG_ERROR, (span), (code), __VA_ARGS__)
#define diag_warning(d, span, code, ...) diag_report((d), DIAG_WARNING, (span), (code), __VA_ARGS__)

unsigned diag_error_count(const DiagEngine *d);
unsigned diag_warning_count(const DiagEngine *d);
/* Complete pending output (text/json). */
void diag_flush(DiagEngine *d);
/* Flush, write the SARIF document if that is the format, and print
 * "N errors generated." in text mode when N > 0. */
void diag_finish(DiagEngine *d);
SourceManager *diag_sources(DiagEngine *d);

#endif
