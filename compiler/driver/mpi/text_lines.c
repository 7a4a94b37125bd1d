/* text_lines.c - the line-and-word reader of text_lines.h. */
#include "driver/mpi/text_lines.h"
#include <stdlib.h>
#include <string.h>
#include "support/util.h"

Line *line_reader(const char *text, uint32_t len, uint32_t file, int cap) {
    Line *l = xcalloc(1, sizeof *l);
    l->text = text, l->len = len, l->file = file, l->cap = cap;
    l->w = xmalloc(sizeof(Word) * (size_t)cap);
    return l;
}

void line_reader_free(Line *l) {
    if (!l) return;
    free(l->w);
    free(l);
}

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

int line_next(Line *l) {
    if (l->next >= l->len) return 0;
    const char *nl = memchr(l->text + l->next, '\n', l->len - l->next);
    l->lo = l->next;
    l->hi = nl ? (uint32_t)(nl - l->text) : l->len;
    l->next = l->hi + 1;
    l->n = 0;
    l->overflowed = 0;
    for (uint32_t k = l->lo; k < l->hi;) {
        while (k < l->hi && blank(l->text[k])) k++;
        if (k == l->hi) break;
        uint32_t lo = k;
        while (k < l->hi && !blank(l->text[k])) k++;
        if (l->n == l->cap) {
            if (!l->overflowed) l->over = (Span){l->file, lo, k};
            l->overflowed = 1;
            l->w[l->n - 1].hi = k;
            continue;
        }
        l->w[l->n++] = (Word){lo, k};
    }
    return 1;
}

Span word_span(const Line *l, int k) {
    if (k >= l->n) return (Span){l->file, l->hi, l->hi};
    return (Span){l->file, l->w[k].lo, l->w[k].hi};
}

int word_is(const Line *l, int k, const char *s) {
    size_t len = strlen(s);
    return k < l->n && l->w[k].hi - l->w[k].lo == len && memcmp(l->text + l->w[k].lo, s, len) == 0;
}

void word_copy(const Line *l, int k, char *buf, size_t size) {
    size_t len = k < l->n ? l->w[k].hi - l->w[k].lo : 0;
    if (len >= size) len = size - 1;
    if (len) memcpy(buf, l->text + l->w[k].lo, len);
    buf[len] = 0;
}
