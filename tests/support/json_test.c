/* json_test.c - the JSON writer (compiler/support/json.h): commas placed by
 * nesting, every escape, bytes that are not UTF-8, numbers that are not
 * finite (ctest "support.json"; not a lit test: no RUN line). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/json.h"

static int failures;

/* Runs `write` on a memory stream and compares the bytes with `want`. */
#define EXPECT_JSON(want, ...)                                                           \
    do {                                                                                 \
        char *buf_ = NULL;                                                               \
        size_t len_ = 0;                                                                 \
        FILE *f_ = open_memstream(&buf_, &len_);                                         \
        JsonWriter w;                                                                    \
        json_init(&w, f_);                                                               \
        __VA_ARGS__;                                                                     \
        fclose(f_);                                                                      \
        if (len_ != sizeof(want) - 1 || memcmp(buf_, want, len_) != 0) {                 \
            fprintf(stderr, "%s:%d: got '%.*s', expected '%s'\n", __FILE__, __LINE__,    \
                    (int)len_, buf_, want);                                              \
            failures++;                                                                  \
        }                                                                                \
        free(buf_);                                                                      \
    } while (0)

int main(void) {
    /* members and elements get commas, nested containers restart */
    EXPECT_JSON("{\"a\":1,\"b\":[true,false,null,[],{}],\"c\":{\"d\":\"x\",\"e\":-7}}", {
        json_object_begin(&w);
        json_field_int(&w, "a", 1);
        json_key(&w, "b");
        json_array_begin(&w);
        json_bool(&w, 1);
        json_bool(&w, 0);
        json_null(&w);
        json_array_begin(&w);
        json_array_end(&w);
        json_object_begin(&w);
        json_object_end(&w);
        json_array_end(&w);
        json_key(&w, "c");
        json_object_begin(&w);
        json_field_string(&w, "d", "x");
        json_field_int(&w, "e", -7);
        json_object_end(&w);
        json_object_end(&w);
    });
    /* top-level scalars */
    EXPECT_JSON("18446744073709551615", json_uint(&w, UINT64_MAX));
    EXPECT_JSON("-9223372036854775808", json_int(&w, INT64_MIN));
    /* %.17g round-trips; not finite is null */
    EXPECT_JSON("[0.10000000000000001,1e+22,null,null,null]", {
        json_array_begin(&w);
        json_number(&w, 0.1);
        json_number(&w, 1e22);
        json_number(&w, INFINITY);
        json_number(&w, -INFINITY);
        json_number(&w, NAN);
        json_array_end(&w);
    });
    /* escapes: quote, backslash, named controls, other controls, DEL */
    EXPECT_JSON("\"q\\\" b\\\\ n\\n r\\r t\\t \\u0001 \\u001f \\u007f /\"",
                json_string(&w, "q\" b\\ n\n r\r t\t \x01 \x1f \x7f /"));
    /* well-formed UTF-8 passes through; anything else is escaped bytewise */
    EXPECT_JSON("\"\xce\xb1\xe2\x82\xac\xf0\x9f\x98\x80\"", json_string(&w, "α€😀"));
    EXPECT_JSON("\"a\\u00ffb\"", json_string(&w, "a\xff" "b"));
    EXPECT_JSON("\"\\u00c0\\u0080\"", json_string(&w, "\xc0\x80"));       /* overlong */
    EXPECT_JSON("\"\\u00ed\\u00a0\\u0080\"", json_string(&w, "\xed\xa0\x80")); /* surrogate */
    EXPECT_JSON("\"x\\u00e2\\u0082\"", json_string(&w, "x\xe2\x82"));     /* cut */
    EXPECT_JSON("{\"k\\n\":\"\"}", {
        json_object_begin(&w);
        json_field_string(&w, "k\n", "");
        json_object_end(&w);
    });
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    else printf("json: all passed\n");
    return failures ? 1 : 0;
}
