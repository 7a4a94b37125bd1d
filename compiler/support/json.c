/* json.c - the JSON writer (see json.h). */
#include "support/json.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "support/util.h"

void json_init(JsonWriter *w, FILE *out) {
    memset(w, 0, sizeof *w);
    w->out = out;
}

/* Before any value or key: the comma after the previous member. */
static void separate(JsonWriter *w) {
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0) return;
    uint64_t bit = (uint64_t)1 << (w->depth - 1);
    if (w->has_member & bit) fputc(',', w->out);
    w->has_member |= bit;
}

static void open_container(JsonWriter *w, char c) {
    separate(w);
    COLLC_ASSERT(w->depth < JSON_MAX_DEPTH);
    fputc(c, w->out);
    w->depth++;
    w->has_member &= ~((uint64_t)1 << (w->depth - 1));
}

static void close_container(JsonWriter *w, char c) {
    COLLC_ASSERT(w->depth > 0 && !w->after_key);
    w->depth--;
    fputc(c, w->out);
}

void json_object_begin(JsonWriter *w) { open_container(w, '{'); }
void json_object_end(JsonWriter *w) { close_container(w, '}'); }
void json_array_begin(JsonWriter *w) { open_container(w, '['); }
void json_array_end(JsonWriter *w) { close_container(w, ']'); }

static void write_string(FILE *o, const char *s) {
    fputc('"', o);
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t k;
        if (c == '"') fputs("\\\"", o);
        else if (c == '\\') fputs("\\\\", o);
        else if (c == '\n') fputs("\\n", o);
        else if (c == '\t') fputs("\\t", o);
        else if (c == '\r') fputs("\\r", o);
        else if (c < 0x20 || c == 0x7F) fprintf(o, "\\u%04x", c);
        else if (c < 0x80) fputc(c, o);
        else if ((k = utf8_seq(p + i, n - i)) > 0) {
            fwrite(p + i, 1, k, o);
            i += k;
            continue;
        } else {
            fprintf(o, "\\u%04x", c);
        }
        i++;
    }
    fputc('"', o);
}

void json_key(JsonWriter *w, const char *key) {
    COLLC_ASSERT(w->depth > 0 && !w->after_key);
    separate(w);
    write_string(w->out, key);
    fputc(':', w->out);
    w->after_key = 1;
}

void json_string(JsonWriter *w, const char *s) {
    separate(w);
    write_string(w->out, s);
}

void json_int(JsonWriter *w, int64_t v) {
    separate(w);
    fprintf(w->out, "%" PRId64, v);
}

void json_uint(JsonWriter *w, uint64_t v) {
    separate(w);
    fprintf(w->out, "%" PRIu64, v);
}

void json_number(JsonWriter *w, double v) {
    separate(w);
    if (isfinite(v)) fprintf(w->out, "%.17g", v);
    else fputs("null", w->out);
}

void json_bool(JsonWriter *w, int v) {
    separate(w);
    fputs(v ? "true" : "false", w->out);
}

void json_null(JsonWriter *w) {
    separate(w);
    fputs("null", w->out);
}

/* json_field_T(w, key, v): json_key, then json_T(w, v). */
#define JSON_FIELD(T, ValueType)                                                 \
    void json_field_##T(JsonWriter *w, const char *key, ValueType v) {           \
        json_key(w, key);                                                        \
        json_##T(w, v);                                                          \
    }
JSON_FIELD(string, const char *)
JSON_FIELD(int, int64_t)
JSON_FIELD(uint, uint64_t)
JSON_FIELD(number, double)
JSON_FIELD(bool, int)
#undef JSON_FIELD

void json_field_null(JsonWriter *w, const char *key) {
    json_key(w, key);
    json_null(w);
}
