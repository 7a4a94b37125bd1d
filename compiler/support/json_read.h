/* json_read.h - the one JSON reader of the compiler (RFC 8259), for input
 * files in JSON (SCCL's algorithm files): a tree of values in an
 * arena, each with its span in the source file, so that a reader of a
 * format points its diagnostics at the value it refuses.
 *
 * Strings are decoded (escapes, \uXXXX with surrogate pairs, to UTF-8; a
 * \u0000 ends the C string early, the length is kept). Numbers keep their
 * text and, when they are integers that fit, their int64 value. Nesting
 * deeper than JSON_READ_MAX_DEPTH is an error, as is anything after the
 * top-level value. */
#ifndef COLLC_JSON_READ_H
#define COLLC_JSON_READ_H

#include <stddef.h>
#include <stdint.h>
#include "support/arena.h"
#include "support/source.h"

#define JSON_READ_MAX_DEPTH 256

typedef enum JsonKind {
    JSON_NULL,   /* null */
    JSON_BOOL,   /* true, false */
    JSON_NUMBER, /* a number */
    JSON_STRING, /* a string */
    JSON_ARRAY,  /* [ ... ] */
    JSON_OBJECT, /* { ... } */
} JsonKind;

typedef struct JsonValue JsonValue;
typedef struct JsonMember { const char *key; Span key_span; JsonValue *value; } JsonMember;

struct JsonValue {
    JsonKind kind;
    Span span;               /* the whole value */
    int boolean;             /* JSON_BOOL */
    int is_int;              /* JSON_NUMBER: an integer in int64 range */
    int64_t ival;            /* JSON_NUMBER when is_int */
    double number;           /* JSON_NUMBER */
    const char *str;         /* JSON_STRING: decoded, NUL-terminated */
    size_t len;              /* JSON_STRING: its length */
    JsonValue **items;       /* JSON_ARRAY */
    JsonMember *members;     /* JSON_OBJECT, in the order written */
    size_t n;                /* items or members */
};

/* Parses text[0 .. len) of file `file`. On success returns the top-level
 * value; on an error returns NULL with *err_at (the byte where the text
 * goes wrong) and *err (a message, static). */
JsonValue *json_parse(Arena *a, uint32_t file, const char *text, size_t len, uint32_t *err_at,
                      const char **err);

/* The member `key` of an object, or NULL (the first one of that key). */
JsonValue *json_get(const JsonValue *obj, const char *key);

/* "an object", "a string", ...: for messages. */
const char *json_kind_name(JsonKind k);

#endif
