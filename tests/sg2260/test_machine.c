/* test_machine.c - machine files: defaults, the shipped profiles, overrides,
 * line-numbered errors, the built-in board as the shipped file's bytes,
 * default placement, write/parse round trip. */
#include <string.h>

#include "check.h"
#include "sg2260.h"

static int parse_err(const char *text, const char *code, int line) {
    Sg2260Machine m;
    Sg2260Error e;
    if (sg2260_machine_parse(text, "t.machine", &m, &e) == 0) {
        fprintf(stderr, "accepted: %s\n", text);
        return 0;
    }
    if (strcmp(e.code, code) || e.line != line) {
        fprintf(stderr, "got [%s] line %d: %s (want [%s] line %d)\n", e.code, e.line, e.msg, code, line);
        return 0;
    }
    return 1;
}

int main(void) {
    Sg2260Machine d, m, m32;
    Sg2260Error e;
    sg2260_machine_default(&d);
    CHECK(d.nchips == 8 && d.nlinks == 10 && d.credit_depth == 2);
    CHECK(d.link_bw_GBps == 64 && d.sum_bw_GBps == 512 && d.startup_us == 0.25 && d.sync_us == 0.3 &&
          d.ddr_l2_GBps == 128);
    /* board edges and chords */
    static const int edges[][2] = {{0, 2}, {2, 6}, {6, 7}, {7, 3}, {3, 1}, {1, 5}, {5, 4}, {4, 0}, {0, 1}, {2, 3}};
    for (int i = 0; i < 10; i++) {
        CHECK(sg2260_machine_port_to(&d, edges[i][0], edges[i][1]) >= 0);
        CHECK(sg2260_machine_port_to(&d, edges[i][1], edges[i][0]) >= 0);
    }
    CHECK(sg2260_machine_port_to(&d, 0, 3) == -1);
    CHECK(sg2260_machine_port_to(&d, 0, 2) == 0 && sg2260_machine_port_to(&d, 0, 4) == 1 &&
          sg2260_machine_port_to(&d, 0, 1) == 2);
    CHECK(d.nrings == 4 && d.rings[0].len == 8 && d.rings[1].len == 4);
    static const int ring8[] = {0, 2, 6, 7, 3, 1, 5, 4};
    CHECK(!memcmp(d.rings[0].chips, ring8, sizeof ring8));
    for (int r = 0; r < d.nrings; r++)
        for (int k = 0; k < d.rings[r].len; k++)
            CHECK(sg2260_machine_port_to(&d, d.rings[r].chips[k], d.rings[r].chips[(k + 1) % d.rings[r].len]) >= 0);

    /* Shipped files. */
    CHECK_MSG(sg2260_machine_load(SG2260_MACHINES "/sg2260-board.machine", &m, &e) == 0, "%s", e.msg);
    CHECK(!memcmp(&m, &d, sizeof m)); /* the file spells out the defaults */
    CHECK_MSG(sg2260_machine_load(SG2260_MACHINES "/sg2260-board-32g.machine", &m32, &e) == 0, "%s", e.msg);
    CHECK(m32.link_bw_GBps == 32 && !strcmp(m32.name, "sg2260-board-32g"));
    m32.link_bw_GBps = 64;
    memcpy(m32.name, d.name, sizeof d.name);
    CHECK(!memcmp(&m32, &d, sizeof d));

    /* Empty file = defaults; overrides; per-link bandwidth. */
    CHECK(sg2260_machine_parse("", "t", &m, &e) == 0 && !memcmp(&m, &d, sizeof m));
    CHECK(sg2260_machine_parse("sync_latency = 0\ncredit_depth=4\nstartup_latency = 1.5 # us\n", "t", &m, &e) == 0);
    CHECK(m.sync_us == 0 && m.credit_depth == 4 && m.startup_us == 1.5 && m.nlinks == 10);
    CHECK(sg2260_machine_parse("chips = 2\nlink 0 1 bandwidth=16\nlink 0 1\nring 0 1\nmemory = 64M\n", "t", &m, &e) == 0);
    CHECK(m.nchips == 2 && m.nlinks == 2 && m.nports[0] == 2 && sg2260_machine_link_bw(&m, 0) == 16 &&
          sg2260_machine_link_bw(&m, 1) == 64 && m.mem_bytes == (64u << 20) && m.nrings == 1);

    /* Errors carry the line. */
    CHECK(parse_err("chips = 8\n\nfoo = 1\n", "unknown-key", 3));
    CHECK(parse_err("link_bandwidth = fast\n", "bad-value", 1));
    CHECK(parse_err("link_bandwidth = -1\n", "bad-value", 1));
    CHECK(parse_err("# c\nchips = 17\n", "bad-value", 2));
    CHECK(parse_err("credit_depth = 0\n", "bad-value", 1));
    CHECK(parse_err("chips = 4\n", "no-links", 1));
    CHECK(parse_err("chips = 4\nlink 0 1\nlink 1 1\n", "bad-link", 3));
    CHECK(parse_err("chips = 4\nlink 0 1\nlink 1 4\n", "bad-link", 3));
    CHECK(parse_err("link 0\n", "syntax", 1));
    CHECK(parse_err("ring 0 2 3\n", "bad-ring", 1)); /* 3 -> 0 has no link */
    CHECK(parse_err("\nring 0 2 0 2\n", "bad-ring", 2));
    CHECK(parse_err("link 0 1 speed=3\n", "bad-value", 1));
    CHECK(parse_err("hello world\n", "syntax", 1));
    CHECK(sg2260_machine_load("/nonexistent/x.machine", &m, &e) == -1 && !strcmp(e.code, "io"));

    /* One board: the built-in default is the bytes of the shipped file. */
    FILE *bf = fopen(SG2260_MACHINES "/sg2260-board.machine", "rb");
    CHECK(bf != NULL);
    if (bf) {
        static char text[16384];
        size_t n = fread(text, 1, sizeof text - 1, bf);
        fclose(bf);
        text[n] = 0;
        CHECK(strcmp(text, sg2260_board_machine_text) == 0);
    }
    /* A file that leaves a key out keeps the board's value. */
    CHECK(sg2260_machine_parse("name = x\nsync_latency = 1\n", "t", &m, &e) == 0);
    CHECK(m.startup_us == d.startup_us && m.sync_us == 1 && m.link_bw_GBps == d.link_bw_GBps && m.nlinks == 10);

    /* Default placement of ranks on chips. */
    int chips[SG2260_MAX_CHIPS];
    static const int ring4[] = {7, 6, 2, 3};
    CHECK(sg2260_machine_place(&d, 8, chips) == 0 && !memcmp(chips, ring8, sizeof ring8));
    CHECK(sg2260_machine_place(&d, 4, chips) == 0 && !memcmp(chips, ring4, sizeof ring4));
    CHECK(sg2260_machine_place(&d, 2, chips) == 0 && chips[0] == 0 && chips[1] == 2);
    CHECK(sg2260_machine_place(&d, 1, chips) == 0 && chips[0] == 0);
    CHECK(sg2260_machine_place(&d, 3, chips) == -1 && sg2260_machine_place(&d, 9, chips) == -1);
    CHECK(sg2260_machine_parse("chips = 3\nlink 2 1\nlink 1 0\n", "t", &m, &e) == 0);
    CHECK(sg2260_machine_place(&m, 2, chips) == 0 && chips[0] == 2 && chips[1] == 1);
    CHECK(sg2260_machine_place(&m, 3, chips) == 0 && chips[0] == 0 && chips[1] == 1 && chips[2] == 2);

    /* write -> parse round trip */
    char buf[8192];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    sg2260_machine_write(f, &d);
    fclose(f);
    CHECK(sg2260_machine_parse(buf, "w", &m, &e) == 0 && !memcmp(&m, &d, sizeof m));
    TEST_DONE();
}
