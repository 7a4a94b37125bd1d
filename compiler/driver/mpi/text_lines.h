/* text_lines.h - the line-and-word reader of the plain-text files the MPI
 * programs write (collc-probe's for calibrate, collc-measure's for tune
 * --measure): a file's lines one by one, each split at blanks, every word
 * a span of the file so a diagnostic points at it. */
#ifndef COLLC_DRIVER_MPI_TEXT_LINES_H
#define COLLC_DRIVER_MPI_TEXT_LINES_H

#include <stddef.h>
#include <stdint.h>
#include "support/diag.h"

/* A word of a line: [lo, hi) offsets in the file's text. */
typedef struct Word {
    uint32_t lo, hi;
} Word;

typedef struct Line {
    const char *text;
    uint32_t file, len;  /* the file and its length */
    uint32_t lo, hi;     /* this line, without its newline */
    uint32_t next;       /* where the next line starts */
    Word *w;             /* the words, at most cap; past cap the rest of
                          * the line is the last word and `over` is the
                          * first word that did not fit */
    int n, cap;
    int overflowed;
    Span over;
} Line;

/* A reader of `len` bytes of `text` (file `file`) keeping up to `cap` words a line. */
Line *line_reader(const char *text, uint32_t len, uint32_t file, int cap);
void line_reader_free(Line *l);
/* The next line, split into words; 0 at the end of the text. */
int line_next(Line *l);

Span word_span(const Line *l, int k);          /* past the last word: the line's end */
int word_is(const Line *l, int k, const char *s);
void word_copy(const Line *l, int k, char *buf, size_t size); /* "" past the last word */

#endif
