/* json_read.c - a recursive-descent JSON reader that keeps spans (see
 * json_read.h). */
#include "support/json_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct JP {
    Arena *a;
    uint32_t file;
    const char *s;
    size_t len, i;
    const char *err;
    size_t err_at;
    int depth;
} JP;

static int fail(JP *p, size_t at, const char *msg) {
    if (!p->err) {
        p->err = msg;
        p->err_at = at;
    }
    return -1;
}

static void skip_ws(JP *p) {
    while (p->i < p->len &&
           (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static JsonValue *new_value(JP *p, JsonKind k, size_t lo) {
    JsonValue *v = ARENA_NEW(p->a, JsonValue);
    v->kind = k;
    v->span = (Span){p->file, (uint32_t)lo, (uint32_t)lo};
    return v;
}

static int hex4(JP *p, size_t at, unsigned *out) {
    if (at + 4 > p->len) return fail(p, at, "a \\u escape needs four hex digits");
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p->s[at + (size_t)k];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                          : 16u;
        if (d == 16) return fail(p, at + (size_t)k, "a \\u escape needs four hex digits");
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 63)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 63));
        o[2] = (char)(0x80 | (cp & 63));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 63));
    o[2] = (char)(0x80 | (cp >> 6 & 63));
    o[3] = (char)(0x80 | (cp & 63));
    return 4;
}

/* A string at p->i (the opening quote): its decoded text. */
static int parse_string(JP *p, const char **out, size_t *outlen) {
    size_t start = p->i++;
    /* the decoded text is never longer than the source */
    size_t end = start + 1;
    while (end < p->len && p->s[end] != '"') end += p->s[end] == '\\' ? 2 : 1;
    if (end >= p->len) return fail(p, start, "a string is not closed");
    char *o = arena_alloc(p->a, end - start + 1);
    size_t n = 0;
    while (p->s[p->i] != '"') {
        unsigned char c = (unsigned char)p->s[p->i];
        if (c < 0x20) return fail(p, p->i, "a control character in a string must be escaped");
        if (c != '\\') {
            o[n++] = (char)c;
            p->i++;
            continue;
        }
        char e = p->s[p->i + 1];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            o[n++] = to[k - from];
            p->i += 2;
            continue;
        }
        if (e != 'u') return fail(p, p->i, "an unknown escape in a string");
        unsigned cp;
        if (hex4(p, p->i + 2, &cp)) return -1;
        p->i += 6;
        if (cp >= 0xD800 && cp < 0xDC00) {
            unsigned lo;
            if (p->i + 1 >= p->len || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u' ||
                hex4(p, p->i + 2, &lo) || lo < 0xDC00 || lo >= 0xE000)
                return fail(p, p->i - 6, "a high surrogate \\u escape without its low one");
            p->i += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
            return fail(p, p->i - 6, "a low surrogate \\u escape without its high one");
        }
        n += put_utf8(o + n, cp);
    }
    p->i++;
    o[n] = 0;
    *out = o;
    *outlen = n;
    return 0;
}

static int parse_value(JP *p, JsonValue **out);

static int parse_number(JP *p, JsonValue *v) {
    size_t lo = p->i, i = p->i;
    int integer = 1;
    if (i < p->len && p->s[i] == '-') i++;
    if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') return fail(p, lo, "expected a value");
    if (p->s[i] == '0') i++;
    else while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    if (i < p->len && p->s[i] == '.') {
        integer = 0;
        if (++i >= p->len || p->s[i] < '0' || p->s[i] > '9')
            return fail(p, i, "a digit must follow the decimal point");
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        integer = 0;
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
        if (i >= p->len || p->s[i] < '0' || p->s[i] > '9')
            return fail(p, i, "a digit must follow the exponent");
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    char buf[64];
    size_t n = i - lo < sizeof buf - 1 ? i - lo : sizeof buf - 1;
    memcpy(buf, p->s + lo, n);
    buf[n] = 0;
    v->number = strtod(buf, NULL);
    if (integer && i - lo < sizeof buf - 1) {
        errno = 0;
        long long x = strtoll(buf, NULL, 10);
        if (!errno) v->is_int = 1, v->ival = x;
    }
    p->i = i;
    return 0;
}

static int parse_array(JP *p, JsonValue *v) {
    p->i++;
    JsonValue **items = NULL;
    size_t n = 0, cap = 0;
    skip_ws(p);
    if (p->i < p->len && p->s[p->i] == ']') {
        p->i++;
        return 0;
    }
    for (;;) {
        JsonValue *item;
        if (parse_value(p, &item)) return -1;
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            JsonValue **grown = ARENA_ARRAY(p->a, JsonValue *, cap);
            if (n) memcpy(grown, items, sizeof *items * n);
            items = grown;
        }
        items[n++] = item;
        skip_ws(p);
        if (p->i < p->len && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->len && p->s[p->i] == ']') break;
        return fail(p, p->i, "expected ',' or ']' in an array");
    }
    p->i++;
    v->items = items;
    v->n = n;
    return 0;
}

static int parse_object(JP *p, JsonValue *v) {
    p->i++;
    JsonMember *m = NULL;
    size_t n = 0, cap = 0;
    skip_ws(p);
    if (p->i < p->len && p->s[p->i] == '}') {
        p->i++;
        return 0;
    }
    for (;;) {
        skip_ws(p);
        if (p->i >= p->len || p->s[p->i] != '"') return fail(p, p->i, "expected a string as an object key");
        size_t klo = p->i;
        const char *key;
        size_t klen;
        if (parse_string(p, &key, &klen)) return -1;
        skip_ws(p);
        if (p->i >= p->len || p->s[p->i] != ':') return fail(p, p->i, "expected ':' after an object key");
        p->i++;
        JsonValue *val;
        if (parse_value(p, &val)) return -1;
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            JsonMember *grown = ARENA_ARRAY(p->a, JsonMember, cap);
            if (n) memcpy(grown, m, sizeof *m * n);
            m = grown;
        }
        m[n++] = (JsonMember){key, {p->file, (uint32_t)klo, (uint32_t)(klo + 2 + klen)}, val};
        skip_ws(p);
        if (p->i < p->len && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->len && p->s[p->i] == '}') break;
        return fail(p, p->i, "expected ',' or '}' in an object");
    }
    p->i++;
    v->members = m;
    v->n = n;
    return 0;
}

static int literal(JP *p, const char *word) {
    size_t n = strlen(word);
    if (p->i + n > p->len || memcmp(p->s + p->i, word, n) != 0) return fail(p, p->i, "expected a value");
    p->i += n;
    return 0;
}

static int parse_value(JP *p, JsonValue **out) {
    skip_ws(p);
    if (p->i >= p->len) return fail(p, p->i, "expected a value, found the end of the file");
    if (++p->depth > JSON_READ_MAX_DEPTH) return fail(p, p->i, "values nested too deeply");
    size_t lo = p->i;
    char c = p->s[p->i];
    JsonValue *v;
    int r;
    switch (c) {
    case '{': v = new_value(p, JSON_OBJECT, lo); r = parse_object(p, v); break;
    case '[': v = new_value(p, JSON_ARRAY, lo); r = parse_array(p, v); break;
    case '"': v = new_value(p, JSON_STRING, lo); r = parse_string(p, &v->str, &v->len); break;
    case 't': v = new_value(p, JSON_BOOL, lo); v->boolean = 1; r = literal(p, "true"); break;
    case 'f': v = new_value(p, JSON_BOOL, lo); r = literal(p, "false"); break;
    case 'n': v = new_value(p, JSON_NULL, lo); r = literal(p, "null"); break;
    default: v = new_value(p, JSON_NUMBER, lo); r = parse_number(p, v); break;
    }
    p->depth--;
    if (r) return -1;
    v->span.hi = (uint32_t)p->i;
    *out = v;
    return 0;
}

JsonValue *json_parse(Arena *a, uint32_t file, const char *text, size_t len, uint32_t *err_at,
                      const char **err) {
    JP p = {a, file, text, len, 0, NULL, 0, 0};
    JsonValue *v = NULL;
    if (len > UINT32_MAX) {
        *err_at = 0;
        *err = "the file is too large";
        return NULL;
    }
    if (parse_value(&p, &v) == 0) {
        skip_ws(&p);
        if (p.i < p.len) fail(&p, p.i, "text after the top-level value");
    }
    if (p.err) {
        *err_at = (uint32_t)p.err_at;
        *err = p.err;
        return NULL;
    }
    return v;
}

JsonValue *json_get(const JsonValue *obj, const char *key) {
    if (!obj || obj->kind != JSON_OBJECT) return NULL;
    for (size_t k = 0; k < obj->n; k++)
        if (strcmp(obj->members[k].key, key) == 0) return obj->members[k].value;
    return NULL;
}

const char *json_kind_name(JsonKind k) {
    static const char *const names[] = {"null", "a boolean", "a number", "a string", "an array",
                                        "an object"};
    return names[k];
}
