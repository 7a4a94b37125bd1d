/* test_quantity.c - the byte-size parser that collc's options and the MPI
 * target's COLLMPI_CONFIG share (runtime/quantity.h): every unit, the
 * decimal / binary / dd-style letters, and what must be refused. */
#include "quantity.h"
#include "rt_ref.h"

static double size_of(const char *s) {
    double v = -1;
    if (collrt_parse_size(s, &v) != 0) {
        fprintf(stderr, "collrt_parse_size(\"%s\") refused\n", s);
        exit(1);
    }
    return v;
}

static void refused(const char *s) {
    double v = 42;
    if (collrt_parse_size(s, &v) == 0) {
        fprintf(stderr, "collrt_parse_size(\"%s\") accepted: %g\n", s, v);
        exit(1);
    }
    CHECK(v == 42); /* untouched */
}

int main(void) {
    CHECK(size_of("0") == 0);
    CHECK(size_of("4096") == 4096);
    CHECK(size_of("8B") == 8);
    CHECK(size_of("1.5") == 1.5);
    /* decimal */
    CHECK(size_of("4KB") == 4000);
    CHECK(size_of("4kB") == 4000);
    CHECK(size_of("2MB") == 2e6);
    CHECK(size_of("3GB") == 3e9);
    CHECK(size_of("1TB") == 1e12);
    /* binary */
    CHECK(size_of("64KiB") == 65536);
    CHECK(size_of("1.5MiB") == 1572864);
    CHECK(size_of("2GiB") == 2147483648.0);
    CHECK(size_of("1TiB") == 1099511627776.0);
    /* dd's letters: binary */
    CHECK(size_of("64K") == 65536);
    CHECK(size_of("1M") == 1048576);
    CHECK(size_of("2G") == 2147483648.0);
    CHECK(size_of("1T") == 1099511627776.0);
    /* refused: other spellings (case matters), signs, spaces, words, hex */
    refused("64kib");
    refused("1MIB");
    refused("16k");
    refused("8b");
    refused("4kb");
    refused("");
    refused("KiB");
    refused("-1");
    refused(" 5");
    refused("5 ");
    refused("5 KiB");
    refused("64XB");
    refused("64Kb/s");
    refused("inf");
    refused("nan");
    refused("0x10");
    refused("1e999");
    refused("+5");
    /* times and bandwidths: the caller's units, case folded on request */
    static const collrt_unit time_units[] = {{"us", 1e-6}, {"ms", 1e-3}};
    double t;
    CHECK(collrt_parse_quantity("2us", time_units, 2, 0, &t) == 0 && t == 2e-6);
    CHECK(collrt_parse_quantity("2US", time_units, 2, 0, &t) != 0);
    CHECK(collrt_parse_quantity("2US", time_units, 2, 1, &t) == 0 && t == 2e-6);
    printf("test_quantity: OK\n");
    return 0;
}
