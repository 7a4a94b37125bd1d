/* json.h - the one JSON writer of the compiler: diagnostics (JSON Lines and
 * SARIF), `collc cost --format=json` and `collc compare --format=json`.
 *
 * Compact output (no spaces, no newlines: JSON Lines writers add the '\n'
 * after the top-level value), with the commas between members and elements
 * placed by the writer. Every string is escaped fully, so the output is
 * valid JSON whatever the bytes: '"' and '\' escaped, \n \r \t by name,
 * other control characters and DEL as \u00XX, bytes that are not part of a
 * well-formed UTF-8 sequence as \u00XX (the byte's Latin-1 reading). Numbers
 * that are not finite are written as null. */
#ifndef COLLC_JSON_H
#define COLLC_JSON_H

#include <stdint.h>
#include <stdio.h>

/* Nesting deeper than this is an internal error. */
#define JSON_MAX_DEPTH 64

typedef struct JsonWriter {
    FILE *out;
    int depth;            /* open objects and arrays */
    uint64_t has_member;  /* bit d: the container at depth d has a member */
    int after_key;        /* a key was written: the value follows, no comma */
} JsonWriter;

void json_init(JsonWriter *w, FILE *out);

void json_object_begin(JsonWriter *w);
void json_object_end(JsonWriter *w);
void json_array_begin(JsonWriter *w);
void json_array_end(JsonWriter *w);

/* The key of the next member of the open object; its value follows. */
void json_key(JsonWriter *w, const char *key);

/* Values: an array element, the value after json_key, or the top level. */
void json_string(JsonWriter *w, const char *s);
void json_int(JsonWriter *w, int64_t v);
void json_uint(JsonWriter *w, uint64_t v);
void json_number(JsonWriter *w, double v); /* %.17g: round-trips exactly */
void json_bool(JsonWriter *w, int v);
void json_null(JsonWriter *w);

/* Key and value in one call. */
void json_field_string(JsonWriter *w, const char *key, const char *s);
void json_field_int(JsonWriter *w, const char *key, int64_t v);
void json_field_uint(JsonWriter *w, const char *key, uint64_t v);
void json_field_number(JsonWriter *w, const char *key, double v);
void json_field_bool(JsonWriter *w, const char *key, int v);
void json_field_null(JsonWriter *w, const char *key);

#endif
