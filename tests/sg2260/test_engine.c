/* test_engine.c - engine model semantics through the API: strided views,
 * one-sided WRITE/READ, GENERAL, TRWR, messages, NOP, and the timing rules
 * (start-up + bytes/bw, fair sharing per direction, full duplex, SUM-unit cap,
 * sync latency). Times are simulated model outputs, not wall-clock. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sg2260.h"

static Sg2260Sim *g_sim;
static Sg2260Result g_res;

/* Parses machine overrides + program, runs; returns sg2260_sim_run's code. */
static int run(const char *machine_text, const char *prog) {
    Sg2260Machine m;
    Sg2260Error e;
    if (sg2260_machine_parse(machine_text, "m", &m, &e)) {
        fprintf(stderr, "machine: %s\n", e.msg);
        exit(2);
    }
    Sg2260Bundle b;
    if (sg2260_bundle_parse(prog, "p", &m, &b, &e)) {
        fprintf(stderr, "program line %d: %s\n", e.line, e.msg);
        exit(2);
    }
    sg2260_sim_free(g_sim);
    g_sim = sg2260_sim_new(&m);
    if (sg2260_sim_load(g_sim, &b, &e)) {
        fprintf(stderr, "load: %s\n", e.msg);
        exit(2);
    }
    sg2260_bundle_free(&b);
    sg2260_sim_enable_trace(g_sim, 1);
    return sg2260_sim_run(g_sim, &g_res);
}

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) + 1); }

static void rd_i32(int chip, uint64_t addr, int32_t *out, int n) {
    sg2260_mem_read(g_sim, chip, addr, out, (size_t)n * 4);
}

int main(void) {
    int32_t v[64];
    /* Strided source (2 x 3 rows of 4, padded) into a transposed-order
     * destination with another shape of the same element count. */
    CHECK(run("", ".fill chip=0 addr=0x1000 dtype=int32 count=64 start=0 step=1\n"
                  ".program chip=0 peer=2 tx\n"
                  "SEND dtype=int32 src=0x1000 shape=2,1,3,4 stride=32,32,8,1\n"
                  "SYS END\n"
                  ".program chip=2 peer=0 rx\n"
                  "RECV dtype=int32 dst=0x2000 shape=1,1,4,6 stride=24,24,1,4\n"
                  "SYS END\n") == 0);
    rd_i32(2, 0x2000, v, 24);
    /* logical sequence: 0..3, 8..11, 16..19, 32..35, 40..43, 48..51; element
     * j goes to (h = j / 6, w = j % 6) at h + 4w */
    static const int seq[24] = {0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 32, 33, 34, 35, 40, 41, 42, 43, 48, 49, 50, 51};
    int ok = 1;
    for (int j = 0; j < 24; j++) ok &= v[(j / 6) + 4 * (j % 6)] == seq[j];
    CHECK(ok);

    /* WRITE with reduce, READ, GENERAL (strided), TRWR. */
    CHECK(run("", ".data chip=0 addr=0x100 dtype=int32 1 2 3 4\n"
                  ".data chip=2 addr=0x200 dtype=int32 10 20 30 40\n"
                  ".data chip=2 addr=0x300 dtype=int32 7 8\n"
                  ".program chip=0 peer=2 tx\n"
                  "WRITE dtype=int32 op=add src=0:0x100 dst=2:0x200 elems=4\n"
                  "READ dtype=int32 src=2:0x300 dst=0:0x400 elems=2\n"
                  "GENERAL dtype=int32 src=0:0x100 dst=0:0x500 elems=4 dshape=1,1,2,2 dstride=8,8,4,1\n"
                  "SYS TRWR dst=0x600 imm=0xdeadbeef\n"
                  "SYS END\n") == 0);
    rd_i32(2, 0x200, v, 4);
    CHECK(v[0] == 11 && v[1] == 22 && v[2] == 33 && v[3] == 44);
    rd_i32(0, 0x400, v, 2);
    CHECK(v[0] == 7 && v[1] == 8);
    rd_i32(0, 0x500, v, 6);
    CHECK(v[0] == 1 && v[1] == 2 && v[4] == 3 && v[5] == 4 && v[2] == 0);
    rd_i32(0, 0x600, v, 1);
    CHECK((uint32_t)v[0] == 0xdeadbeefu);

    /* Timing: one SEND of 64000 B at 64 GB/s = 0.25 + 1.0 us. */
    const char *send1 = ".program chip=0 peer=2 tx\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                        ".program chip=2 peer=0 rx\nRECV dtype=int8 dst=0 elems=64000\nSYS END\n";
    CHECK(run("", send1) == 0 && near(g_res.time_us, 1.25));
    CHECK(g_res.nlinkstats == 20 && near(g_res.linkstats[0].busy_us, 1.0) && g_res.linkstats[0].bytes == 64000);
    CHECK(near(g_res.linkstats[0].util, 1.0 / 1.25));
    CHECK(run("link_bandwidth = 32", send1) == 0 && near(g_res.time_us, 2.25));
    CHECK(run("startup_latency = 0", send1) == 0 && near(g_res.time_us, 1.0));

    /* Same direction shared fairly: SEND 0->2 (64000 B) and chip 2 READ from
     * chip 0 (32000 B) stream at 32 GB/s each until the READ ends at 1.25,
     * then the SEND finishes its last 32000 B alone: 1.75. */
    CHECK(run("", ".program chip=0 peer=2 tx\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                  ".program chip=2 peer=0 rx\nRECV dtype=int8 dst=0 elems=64000\nSYS END\n"
                  ".program chip=2 peer=0 tx\nREAD dtype=int8 src=0:0x100000 dst=2:0x100000 elems=32000\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 1.75) && near(g_res.linkstats[0].busy_us, 1.5));
    /* Full duplex: opposite directions do not share. */
    CHECK(run("", ".program chip=0 peer=2 tx\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                  ".program chip=2 peer=0 rx\nRECV dtype=int8 dst=0x200000 elems=64000\nSYS END\n"
                  ".program chip=2 peer=0 tx\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                  ".program chip=0 peer=2 rx\nRECV dtype=int8 dst=0x100000 elems=64000\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 1.25));
    /* Reduction capped by the SUM unit. */
    const char *red = ".program chip=0 peer=2 tx\nSEND dtype=fp32 psum=wr src=0 elems=16000\nSYS END\n"
                      ".program chip=2 peer=0 rx\nRECV dtype=fp32 op=add dst=0 elems=16000\nSYS END\n";
    CHECK(run("", red) == 0 && near(g_res.time_us, 1.25));
    CHECK(run("sum_bandwidth = 16", red) == 0 && near(g_res.time_us, 4.25));
    /* GENERAL at DDR<->L2 bandwidth. */
    CHECK(run("", ".program chip=1 peer=3 tx\nGENERAL dtype=int8 src=1:0 dst=1:0x100000 elems=128000\nSYS END\n") == 0 &&
          near(g_res.time_us, 1.25));

    /* Messages: a wait needs `count` sends (from any engine of the chip),
     * consumes them, then costs the sync latency. */
    CHECK(run("", ".program chip=0 peer=2 tx\nSYS TX_WAIT_MSG id=3 count=2\nSYS TX_WAIT_MSG id=3 count=1\nSYS END\n"
                  ".program chip=0 peer=4 tx\nSYS TX_SEND_MSG id=3\nSYS TX_SEND_MSG id=3\nSYS TX_SEND_MSG id=3\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 0.6));
    /* NOP joins TX and RX of one port: the SEND after the TX NOP starts only
     * when the RX NOP is reached, i.e. after the received data landed. */
    CHECK(run("", ".program chip=2 peer=0 tx\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                  ".program chip=0 peer=2 rx\nRECV dtype=int8 dst=0 elems=64000\nSYS NOP\nSYS END\n"
                  ".program chip=0 peer=2 tx\nSYS NOP\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                  ".program chip=2 peer=0 rx\nRECV dtype=int8 dst=0x100000 elems=64000\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 2.5));
    /* Credit depth: the 3rd RECV posts only after the 1st SEND consumed and
     * filled a credit; with three SENDs back to back the time is unchanged. */
    const char *three = ".program chip=0 peer=2 tx\nSEND dtype=int8 src=0 elems=64000\nSEND dtype=int8 src=0 elems=64000\n"
                        "SEND dtype=int8 src=0 elems=64000\nSYS END\n"
                        ".program chip=2 peer=0 rx\nRECV dtype=int8 dst=0 elems=64000\nRECV dtype=int8 dst=0 elems=64000\n"
                        "RECV dtype=int8 dst=0 elems=64000\nSYS END\n";
    CHECK(run("", three) == 0 && near(g_res.time_us, 3.75));
    CHECK(run("credit_depth = 1", three) == 0 && near(g_res.time_us, 3.75));

    /* Deadlock: both chips wait for a message nobody sends. */
    CHECK(run("", ".program chip=0 peer=2 tx\nSYS TX_WAIT_MSG id=1 count=1\nSYS END\n"
                  ".program chip=2 peer=0 rx\nRECV dtype=int8 dst=0 elems=64\nSYS END\n") == -1);
    CHECK(!g_res.ok && !strcmp(g_res.err.code, "deadlock"));
    CHECK(strstr(g_res.err.msg, "2 channel(s) blocked") != NULL);
    CHECK(strstr(g_res.err.msg, "chip 0 port 0 (->2) TX #0 (line 2): SYS TX_WAIT_MSG id=1 count=1") != NULL);
    CHECK(strstr(g_res.err.msg, "chip 2 port 0 (->0) RX #1 (line 6): SYS END") != NULL);

    /* Race check: chip 2 sends from the buffer chip 0 is writing into. */
    const char *racy = ".program chip=0 peer=2 tx\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                       ".program chip=2 peer=0 rx\nRECV dtype=int8 dst=0x1000 elems=64000\nSYS END\n"
                       ".program chip=2 peer=0 tx\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                       ".program chip=0 peer=2 rx\nRECV dtype=int8 dst=0x100000 elems=64000\nSYS END\n";
    CHECK(run("", racy) == -1 && !strcmp(g_res.err.code, "race"));
    CHECK(strstr(g_res.err.msg, "this command writes what it reads") != NULL);
    /* Trace writers produce something for every channel. */
    CHECK(run("", send1) == 0);
    char buf[1 << 14];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    CHECK(sg2260_trace_write_json(g_sim, f) == 0);
    fclose(f);
    CHECK(strstr(buf, "\"name\":\"SEND 64000B\",\"cat\":\"cmd\",\"ph\":\"X\",\"ts\":0.000000,\"dur\":1.250000") != NULL);
    CHECK(strstr(buf, "port 0 (->0) RX") != NULL);
    f = fmemopen(buf, sizeof buf, "w");
    CHECK(sg2260_trace_write_svg(g_sim, f) == 0);
    fclose(f);
    CHECK(strncmp(buf, "<svg", 4) == 0 && strstr(buf, "</svg>") != NULL);
    sg2260_sim_free(g_sim);
    TEST_DONE();
}
