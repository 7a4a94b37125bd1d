/* test_machine.c - machine files: defaults, the shipped profiles, overrides,
 * physical ports, send ports and parallel links, line-numbered errors, the
 * built-in board as the shipped file's bytes, default placement, write/parse
 * round trip. */
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
    Sg2260Machine d, m, m22, m64;
    Sg2260Error e;
    sg2260_machine_default(&d);
    CHECK(d.nchips == 8 && d.nlinks == 10 && d.credit_depth == 2);
    CHECK(d.link_bw_GBps == 32 && d.cdma_bw_GBps == 64 && d.sum_bw_GBps == 512 && d.startup_us == 0.25 &&
          d.sync_us == 0.3 && d.ddr_l2_GBps == 128);
    CHECK(d.cores == 8 && d.write_reduce == 0 && d.reduce_to_ddr == 0 && d.l2_bytes == (128u << 20));
    /* a transfer moves at the slower of link and engine */
    CHECK(sg2260_machine_link_rate(&d, 0) == 32);
    /* board edges and chords */
    static const int edges[][2] = {{0, 2}, {2, 6}, {6, 7}, {7, 3}, {3, 1}, {1, 5}, {5, 4}, {4, 0}, {0, 1}, {2, 3}};
    for (int i = 0; i < 10; i++) {
        CHECK(sg2260_machine_port_to(&d, edges[i][0], edges[i][1]) >= 0);
        CHECK(sg2260_machine_port_to(&d, edges[i][1], edges[i][0]) >= 0);
    }
    CHECK(sg2260_machine_port_to(&d, 0, 3) == -1);
    CHECK(sg2260_machine_port_to(&d, 0, 2) == 0 && sg2260_machine_port_to(&d, 0, 4) == 1 &&
          sg2260_machine_port_to(&d, 0, 1) == 2);
    /* one link per pair on the board: a chip receives from a peer on the
     * port it sends to it on */
    CHECK(sg2260_machine_recv_port(&d, 0, 2) == 0 && sg2260_machine_recv_port(&d, 2, 0) == 0);
    CHECK(sg2260_machine_port_peer(&d, 0, 1) == 4 && sg2260_machine_port_peer(&d, 0, 3) == -1);
    CHECK(d.nrings == 4 && d.rings[0].len == 8 && d.rings[1].len == 4);
    static const int ring8[] = {0, 2, 6, 7, 3, 1, 5, 4};
    CHECK(!memcmp(d.rings[0].chips, ring8, sizeof ring8));
    for (int r = 0; r < d.nrings; r++)
        for (int k = 0; k < d.rings[r].len; k++)
            CHECK(sg2260_machine_port_to(&d, d.rings[r].chips[k], d.rings[r].chips[(k + 1) % d.rings[r].len]) >= 0);

    /* Shipped files. */
    CHECK_MSG(sg2260_machine_load(SG2260_MACHINES "/sg2260-board.machine", &m, &e) == 0, "%s", e.msg);
    CHECK(!memcmp(&m, &d, sizeof m)); /* the file spells out the defaults */
    CHECK_MSG(sg2260_machine_load(SG2260_MACHINES "/sg2260-board-22g.machine", &m22, &e) == 0, "%s", e.msg);
    CHECK(m22.link_bw_GBps == 22.4 && !strcmp(m22.name, "sg2260-board-22g"));
    CHECK_MSG(sg2260_machine_load(SG2260_MACHINES "/sg2260-board-64g.machine", &m64, &e) == 0, "%s", e.msg);
    CHECK(m64.link_bw_GBps == 64 && sg2260_machine_link_rate(&m64, 3) == 64);
    /* the profiles change the link rate and the name only */
    m22.link_bw_GBps = m64.link_bw_GBps = 32;
    memcpy(m22.name, d.name, sizeof d.name);
    memcpy(m64.name, d.name, sizeof d.name);
    CHECK(!memcmp(&m22, &d, sizeof d) && !memcmp(&m64, &d, sizeof d));

    /* Empty file = defaults; overrides; per-link bandwidth. */
    CHECK(sg2260_machine_parse("", "t", &m, &e) == 0 && !memcmp(&m, &d, sizeof m));
    CHECK(sg2260_machine_parse("sync_latency = 0\ncredit_depth=4\nstartup_latency = 1.5 # us\n", "t", &m, &e) == 0);
    CHECK(m.sync_us == 0 && m.credit_depth == 4 && m.startup_us == 1.5 && m.nlinks == 10);
    CHECK(sg2260_machine_parse("chips = 2\nlink 0 1 bandwidth=16\nlink 0 1\nring 0 1\nmemory = 64M\n", "t", &m, &e) == 0);
    CHECK(m.nchips == 2 && m.nlinks == 2 && m.port_link[0][1] == 1 && m.port_link[0][2] == -1 &&
          sg2260_machine_link_bw(&m, 0) == 16 && sg2260_machine_link_bw(&m, 1) == 32 && m.mem_bytes == (64u << 20) &&
          m.nrings == 1);
    /* parallel links (a split x4+x4 link): both found, the first sends */
    int ls[4];
    CHECK(sg2260_machine_links_between(&m, 1, 0, ls, 4) == 2 && ls[0] == 0 && ls[1] == 1);
    CHECK(sg2260_machine_port_to(&m, 0, 1) == 0 && sg2260_machine_recv_port(&m, 0, 1) == 0);
    /* physical ports, and a send port per peer: chip 0 sends to 1 on port 5
     * and receives from it on port 4, where chip 1's send port 9 lands */
    CHECK_MSG(sg2260_machine_parse("chips = 2\nlink 0:4 1:9\nlink 0:5 1\nsend 0 1 port=5\nring 0 1\n", "t", &m, &e) == 0,
              "%s", e.msg);
    CHECK(m.links[0].port_a == 4 && m.links[0].port_b == 9 && m.links[1].port_a == 5 && m.links[1].port_b == 0);
    CHECK(sg2260_machine_port_to(&m, 0, 1) == 5 && sg2260_machine_port_to(&m, 1, 0) == 9);
    CHECK(sg2260_machine_recv_port(&m, 0, 1) == 4 && sg2260_machine_recv_port(&m, 1, 0) == 0);
    CHECK(sg2260_machine_port_peer(&m, 1, 9) == 0 && sg2260_machine_port_peer(&m, 1, 1) == -1);
    {
        char wbuf[4096];
        FILE *wf = fmemopen(wbuf, sizeof wbuf, "w");
        sg2260_machine_write(wf, &m);
        fclose(wf);
        CHECK(strstr(wbuf, "link 0:4 1:9\nlink 0:5 1:0\nsend 0 1 port=5\n") != NULL);
        Sg2260Machine back;
        CHECK(sg2260_machine_parse(wbuf, "w", &back, &e) == 0 && !memcmp(&back, &m, sizeof m));
    }
    CHECK(sg2260_machine_parse("cores = 2\nwrite_reduce = 1\nl2_memory = 16M\n", "t", &m, &e) == 0 && m.cores == 2 &&
          m.write_reduce == 1 && m.l2_bytes == (16u << 20));

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
    CHECK(parse_err("chips = 2\nlink 0:3 1\nlink 0:3 1\n", "bad-link", 3)); /* port 3 twice */
    CHECK(parse_err("chips = 2\nlink 0:11 1\n", "syntax", 2));
    CHECK(parse_err("chips = 3\nlink 0 1\nlink 1 2\nsend 0 1 port=1\n", "bad-link", 4));
    CHECK(parse_err("send 0 2\n", "syntax", 1));
    CHECK(parse_err("write_reduce = 2\n", "bad-value", 1));
    CHECK(parse_err("cores = 9\n", "bad-value", 1));
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
