/* test_engine.c - engine model semantics through the API: strided views,
 * one-sided WRITE/READ, GENERAL between chips, WRITE fill, GDMA/VSDMA copies
 * and reductions into L2, messages with the firmware's counts, NOP, the data
 * modes, and the timing rules (start-up + bytes/rate, engine vs link rate,
 * fair sharing per direction, full duplex, SUM-unit cap, the DDR<->L2 path,
 * sync latency). Times are simulated model outputs, not wall-clock. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sg2260.h"

static Sg2260Sim *g_sim;
static Sg2260Result g_res;

/* Parses machine overrides + program, loads in `mode`; returns the load
 * error code or NULL. */
static const char *load(const char *machine_text, const char *prog, Sg2260DataMode mode, Sg2260Error *e) {
    Sg2260Machine m;
    if (sg2260_machine_parse(machine_text, "m", &m, e)) {
        fprintf(stderr, "machine: %s\n", e->msg);
        exit(2);
    }
    Sg2260Bundle b;
    if (sg2260_bundle_parse(prog, "p", &m, &b, e)) {
        fprintf(stderr, "program line %d: %s\n", e->line, e->msg);
        exit(2);
    }
    sg2260_sim_free(g_sim);
    g_sim = sg2260_sim_new(&m);
    if (mode == SG2260_DATA_SAMPLED) sg2260_sim_set_data(g_sim, mode, 4096, 256);
    else sg2260_sim_set_data(g_sim, mode, 0, 0);
    int rc = sg2260_sim_load(g_sim, &b, e);
    sg2260_bundle_free(&b);
    sg2260_sim_enable_trace(g_sim, 1);
    return rc ? e->code : NULL;
}

/* Loads and runs; returns sg2260_sim_run's code. */
static int run_mode(const char *machine_text, const char *prog, Sg2260DataMode mode) {
    Sg2260Error e;
    if (load(machine_text, prog, mode, &e)) {
        fprintf(stderr, "load: %s\n", e.msg);
        exit(2);
    }
    return sg2260_sim_run(g_sim, &g_res);
}

static int run(const char *machine_text, const char *prog) { return run_mode(machine_text, prog, SG2260_DATA_FULL); }

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) + 1); }

static void rd_i32(int chip, uint64_t addr, int32_t *out, int n) {
    sg2260_mem_read(g_sim, chip, addr, out, (size_t)n * 4);
}

int main(void) {
    int32_t v[64];
    Sg2260Error e;
    /* Strided source (2 x 3 rows of 4, padded) into a destination with
     * another shape of the same element count (W contiguous). */
    CHECK(run("", ".fill chip=0 addr=0x1000 dtype=int32 count=64 start=0 step=1\n"
                  ".program chip=0 peer=2\n"
                  "SEND dtype=int32 src=0x1000 shape=2,1,3,4 stride=32,32,8\n"
                  "SYS END\n"
                  ".program chip=2 peer=0\n"
                  "RECV dtype=int32 dst=0x2000 shape=1,1,4,6 stride=40,40,10\n"
                  "SYS END\n") == 0);
    rd_i32(2, 0x2000, v, 40);
    /* logical sequence: 0..3, 8..11, 16..19, 32..35, 40..43, 48..51; element
     * j goes to (h = j / 6, w = j % 6) at 10h + w */
    static const int seq[24] = {0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 32, 33, 34, 35, 40, 41, 42, 43, 48, 49, 50, 51};
    int ok = 1;
    for (int j = 0; j < 24; j++) ok &= v[10 * (j / 6) + j % 6] == seq[j];
    CHECK(ok);

    /* WRITE, READ, GENERAL both ways (push and pull), WRITE fill, TRWR. */
    CHECK(run("", ".data chip=0 addr=0x100 dtype=int32 1 2 3 4\n"
                  ".data chip=2 addr=0x200 dtype=int32 10 20 30 40\n"
                  ".data chip=2 addr=0x300 dtype=int32 7 8\n"
                  ".program chip=0 peer=2\n"
                  "WRITE dtype=int32 src=0:0x100 dst=2:0x200 elems=4 dshape=1,1,2,2 dstride=8,8,4\n"
                  "READ dtype=int32 src=2:0x300 dst=0:0x400 elems=2\n"
                  "GENERAL src=0:0x100 dst=2:0x500 len=8\n"
                  "GENERAL src=2:0x300 dst=0:0x600 len=4\n"
                  "WRITE dtype=int32 fill=0xffffffff src=0:0 dst=2:0x700 elems=3\n"
                  "SYS TRWR imm=0xdeadbeef\n"
                  "SYS END\n") == 0);
    rd_i32(2, 0x200, v, 6);
    CHECK(v[0] == 1 && v[1] == 2 && v[4] == 3 && v[5] == 4 && v[2] == 30);
    rd_i32(0, 0x400, v, 2);
    CHECK(v[0] == 7 && v[1] == 8);
    rd_i32(2, 0x500, v, 2);
    CHECK(v[0] == 1 && v[1] == 2);
    rd_i32(0, 0x600, v, 2);
    CHECK(v[0] == 7 && v[1] == 0);
    rd_i32(2, 0x700, v, 4);
    CHECK(v[0] == -1 && v[2] == -1 && v[3] == 0);

    /* GDMA reduces into L2 only; VSDMA copies. */
    CHECK(run("", ".data chip=1 addr=0x100 dtype=fp32 1 2 3 4\n"
                  ".data chip=1 addr=0x200 dtype=fp32 10 20 30 40\n"
                  ".program chip=1 gdma\n"
                  "COPY dtype=fp32 src=0x200 dst=l2:0x80 elems=4\n"
                  "REDUCE dtype=fp32 op=max src=0x100 dst=l2:0x80 elems=4\n"
                  "REDUCE dtype=fp32 op=add src=0x100 dst=l2:0x80 elems=4\n"
                  "SYS SEND_MSG id=9 count=1\n"
                  "SYS END\n"
                  ".program chip=1 vsdma=5\n"
                  "SYS WAIT_MSG id=9 count=1\n"
                  "COPY dtype=fp32 src=l2:0x80 dst=0x300 elems=4\n"
                  "SYS END\n") == 0);
    float f[4];
    sg2260_mem_read(g_sim, 1, 0x300, f, sizeof f);
    CHECK(f[0] == 11 && f[1] == 22 && f[2] == 33 && f[3] == 44);
    sg2260_mem_read(g_sim, 1, SG2260_L2(0x80), f, sizeof f);
    CHECK(f[0] == 11);

    /* Timing: one SEND of 64000 B, link 32 GB/s: 0.25 + 2.0 us. A transfer
     * moves at the slower of link and CDMA engine (64 GB/s). */
    const char *send1 = ".program chip=0 peer=2\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                        ".program chip=2 peer=0\nRECV dtype=int8 dst=0 elems=64000\nSYS END\n";
    CHECK(run("", send1) == 0 && near(g_res.time_us, 2.25));
    CHECK(g_res.nlinkstats == 20 && near(g_res.linkstats[0].busy_us, 2.0) && g_res.linkstats[0].bytes == 64000);
    CHECK(near(g_res.linkstats[0].util, 2.0 / 2.25));
    CHECK(run("link_bandwidth = 64", send1) == 0 && near(g_res.time_us, 1.25));
    CHECK(run("link_bandwidth = 128", send1) == 0 && near(g_res.time_us, 1.25));    /* the engine's 64 */
    CHECK(run("link_bandwidth = 128\ncdma_bandwidth = 128", send1) == 0 && near(g_res.time_us, 0.75));
    CHECK(run("startup_latency = 0", send1) == 0 && near(g_res.time_us, 2.0));
    /* a per-link bandwidth slows that link only */
    CHECK(run("chips = 3\nlink 0 1 bandwidth=8\nlink 1 2\n",
              ".program chip=0 peer=1\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
              ".program chip=1 peer=0\nRECV dtype=int8 dst=0 elems=64000\nSYS END\n") == 0 &&
          near(g_res.time_us, 8.25));

    /* Same direction shared fairly: SEND 0->2 (64000 B) and chip 2's READ
     * from chip 0 (32000 B) stream at 16 GB/s each until the READ ends at
     * 2.25, then the SEND finishes its last 32000 B alone: 3.25. */
    CHECK(run("", ".program chip=0 peer=2\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                  ".program chip=2 peer=0\nRECV dtype=int8 dst=0 elems=64000\n"
                  "READ dtype=int8 src=0:0x100000 dst=2:0x100000 elems=32000\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 3.25) && near(g_res.linkstats[0].busy_us, 3.0));
    /* Full duplex: opposite directions do not share. */
    CHECK(run("", ".program chip=0 peer=2\nSEND dtype=int8 src=0 elems=64000\n"
                  "RECV dtype=int8 dst=0x100000 elems=64000\nSYS END\n"
                  ".program chip=2 peer=0\nRECV dtype=int8 dst=0x200000 elems=64000\n"
                  "SEND dtype=int8 src=0 elems=64000\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 2.25));
    /* Reduction into L2, capped by the SUM unit. */
    const char *red = ".program chip=0 peer=2\nSEND dtype=fp32 psum=wr src=0 elems=16000\nSYS END\n"
                      ".program chip=2 peer=0\nRECV dtype=fp32 op=add dst=l2:0 elems=16000\nSYS END\n";
    CHECK(run("", red) == 0 && near(g_res.time_us, 2.25));
    CHECK(run("sum_bandwidth = 16", red) == 0 && near(g_res.time_us, 4.25));
    /* GDMA and VSDMA copies share the chip's DDR<->L2 path (128 GB/s), with
     * no start-up latency. */
    CHECK(run("", ".program chip=1 gdma\nCOPY dtype=int8 src=0 dst=l2:0 elems=128000\nSYS END\n") == 0 &&
          near(g_res.time_us, 1.0) && near(g_res.local_bytes[1], 128000));
    CHECK(run("", ".program chip=1 gdma\nCOPY dtype=int8 src=0 dst=l2:0 elems=128000\nSYS END\n"
                  ".program chip=1 vsdma=0\nCOPY dtype=int8 src=0x100000 dst=0x200000 elems=128000\nSYS END\n"
                  ".program chip=3 vsdma=0\nCOPY dtype=int8 src=0x100000 dst=0x200000 elems=128000\nSYS END\n") == 0 &&
          near(g_res.time_us, 2.0));
    /* GENERAL streams over the link like a SEND. */
    CHECK(run("", ".program chip=1 peer=3\nGENERAL src=1:0 dst=3:0x100000 len=64000\nSYS END\n") == 0 &&
          near(g_res.time_us, 2.25) && g_res.bytes == 64000);

    /* Messages: a send names how many waiters take it, a wait how many sends
     * it needs; then it costs the sync latency. One send for two waiters
     * releases both. */
    CHECK(run("", ".program chip=0 peer=2\nSYS TX_WAIT_MSG id=3 count=1\nSYS END\n"
                  ".program chip=0 gdma\nSYS WAIT_MSG id=3 count=1\nSYS END\n"
                  ".program chip=0 peer=4\nSYS TX_SEND_MSG id=3 count=2\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 0.3));
    /* A wait for two sends: the firmware's barrier, every engine sends for
     * every waiter. */
    CHECK(run("", ".program chip=0 gdma\nSYS SEND_MSG id=7 count=2\nSYS WAIT_MSG id=7 count=2\nSYS END\n"
                  ".program chip=0 vsdma=1\nSYS SEND_MSG id=7 count=2\nSYS WAIT_MSG id=7 count=2\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 0.3));
    /* A send whose waiters do not all come is an error at the end. */
    CHECK(run("", ".program chip=0 gdma\nSYS SEND_MSG id=3 count=2\nSYS END\n"
                  ".program chip=0 vsdma=0\nSYS WAIT_MSG id=3 count=1\nSYS END\n") == -1);
    CHECK(!strcmp(g_res.err.code, "msg-unconsumed") && strstr(g_res.err.msg, "a send for 2 waiter(s) was taken by 1"));
    /* A waiter that takes the same send twice reuses an id too early. */
    CHECK(run("", ".program chip=0 gdma\nSYS SEND_MSG id=3 count=2\nSYS END\n"
                  ".program chip=0 vsdma=0\nSYS WAIT_MSG id=3 count=1\nSYS WAIT_MSG id=3 count=1\nSYS END\n") == -1);
    CHECK(!strcmp(g_res.err.code, "msg-reuse"));
    /* A CDMA port's sides run apart: RX waits for a message while TX sends. */
    CHECK(run("", ".program chip=0 peer=2\nSYS RX_WAIT_MSG id=1 count=1\nSEND dtype=int8 src=0 elems=64000\nSYS END\n"
                  ".program chip=2 peer=0\nRECV dtype=int8 dst=0 elems=64000\nSYS END\n"
                  ".program chip=0 gdma\nSYS SEND_MSG id=1 count=1\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 2.25));
    /* NOP joins the port's TX and RX: the SEND after the NOP starts only once
     * the RECV before it landed. */
    CHECK(run("", ".program chip=2 peer=0\nSEND dtype=int8 src=0 elems=64000\nRECV dtype=int8 dst=0x100000 elems=64000\nSYS END\n"
                  ".program chip=0 peer=2\nRECV dtype=int8 dst=0 elems=64000\nSYS NOP\n"
                  "SEND dtype=int8 src=0 elems=64000\nSYS END\n") == 0);
    CHECK(near(g_res.time_us, 4.5));
    /* Credit depth: the 3rd RECV posts only after the 1st SEND filled a
     * credit; with three SENDs back to back the time is unchanged. */
    const char *three = ".program chip=0 peer=2\nSEND dtype=int8 src=0 elems=64000\nSEND dtype=int8 src=0 elems=64000\n"
                        "SEND dtype=int8 src=0 elems=64000\nSYS END\n"
                        ".program chip=2 peer=0\nRECV dtype=int8 dst=0 elems=64000\nRECV dtype=int8 dst=0 elems=64000\n"
                        "RECV dtype=int8 dst=0 elems=64000\nSYS END\n";
    CHECK(run("", three) == 0 && near(g_res.time_us, 6.75));
    CHECK(run("credit_depth = 1", three) == 0 && near(g_res.time_us, 6.75));
    /* Parallel links: a split link is two links, each with its own ports. */
    CHECK(run("chips = 2\nlink 0 1 bandwidth=16\nlink 0 1 bandwidth=16\n",
              ".program chip=0 port=0\nSEND dtype=int8 src=0 elems=32000\nSYS END\n"
              ".program chip=0 port=1\nSEND dtype=int8 src=0x10000 elems=32000\nSYS END\n"
              ".program chip=1 port=0\nRECV dtype=int8 dst=0 elems=32000\nSYS END\n"
              ".program chip=1 port=1\nRECV dtype=int8 dst=0x10000 elems=32000\nSYS END\n") == 0 &&
          near(g_res.time_us, 2.25));

    /* Data modes: timing only keeps no memory and takes the same time;
     * sampled keeps bytes [k*4096, k*4096+256). */
    CHECK(run_mode("", send1, SG2260_DATA_NONE) == 0 && near(g_res.time_us, 2.25));
    CHECK(run_mode("", ".fill chip=0 addr=0 dtype=int32 count=4096 start=1 step=1\n"
                       ".program chip=0 peer=2\nSEND dtype=int32 src=0 elems=4096\nSYS END\n"
                       ".program chip=2 peer=0\nRECV dtype=int32 dst=0x8000 elems=4096\nSYS END\n",
                   SG2260_DATA_SAMPLED) == 0);
    rd_i32(2, 0x8000, v, 64);
    CHECK(v[0] == 1 && v[63] == 64);
    rd_i32(2, 0x8000 + 4096, v, 2);
    CHECK(v[0] == 1025 && v[1] == 1026);
    rd_i32(2, 0x8000 + 256, v, 1); /* outside the window: not kept */
    CHECK(v[0] == 0 && sg2260_mem_kept(g_sim, 0x8000) && !sg2260_mem_kept(g_sim, 0x8100));
    CHECK(run_mode("", ".program chip=0 peer=2\nSEND dtype=int32 src=0x80 elems=64\nSYS END\n"
                       ".program chip=2 peer=0\nRECV dtype=int32 dst=0x8000 elems=64\nSYS END\n",
                   SG2260_DATA_SAMPLED) == -1 &&
          !strcmp(g_res.err.code, "sample-align"));

    /* Rules checked at load. */
    CHECK(!strcmp(load("", ".program chip=0 gdma\nSEND dtype=int8 src=0 elems=4\nSYS END\n", SG2260_DATA_FULL, &e),
                  "wrong-engine"));
    CHECK(!strcmp(load("", ".program chip=0 vsdma=0\nREDUCE dtype=fp32 op=add src=0 dst=l2:0 elems=32\nSYS END\n",
                       SG2260_DATA_FULL, &e), "wrong-engine"));
    CHECK(!strcmp(load("", ".program chip=0 peer=2\nRECV dtype=fp32 op=add dst=0x100 elems=32\nSYS END\n",
                       SG2260_DATA_FULL, &e), "reduce-l2"));
    CHECK(load("reduce_to_ddr = 1", ".program chip=0 peer=2\nRECV dtype=fp32 op=add dst=0x100 elems=32\nSYS END\n",
               SG2260_DATA_FULL, &e) == NULL);
    CHECK(!strcmp(load("", ".program chip=0 peer=2\nWRITE dtype=fp32 op=add src=0:0 dst=2:0x100 elems=32\nSYS END\n",
                       SG2260_DATA_FULL, &e), "bad-op"));
    CHECK(!strcmp(load("", ".program chip=0 peer=2\nGENERAL src=0:0 dst=4:0x100 len=32\nSYS END\n", SG2260_DATA_FULL, &e),
                  "chip-mismatch"));
    /* write_reduce models a later chip's WRITE with a reduce op. */
    CHECK(run("write_reduce = 1", ".data chip=0 addr=0x100 dtype=int32 1 2\n.data chip=2 addr=0x200 dtype=int32 5 6\n"
                                  ".program chip=0 peer=2\nWRITE dtype=int32 op=add src=0:0x100 dst=2:0x200 elems=2\nSYS END\n") == 0);
    rd_i32(2, 0x200, v, 2);
    CHECK(v[0] == 6 && v[1] == 8);

    /* Deadlock: both chips wait for a message nobody sends. */
    CHECK(run("", ".program chip=0 peer=2\nSYS TX_WAIT_MSG id=1 count=1\nSYS END\n"
                  ".program chip=2 peer=0\nRECV dtype=int8 dst=0 elems=64\nSYS END\n") == -1);
    CHECK(!g_res.ok && !strcmp(g_res.err.code, "deadlock"));
    CHECK(strstr(g_res.err.msg, "2 channel(s) blocked") != NULL);
    CHECK(strstr(g_res.err.msg, "chip 0 port 0 (->2) TX #0 (line 2): SYS TX_WAIT_MSG id=1 count=1") != NULL);
    CHECK(strstr(g_res.err.msg, "chip 2 port 0 (->0) RX #1 (line 6): SYS END") != NULL);

    /* Race check: chip 2 sends from the buffer chip 0 is writing into. */
    const char *racy = ".program chip=0 peer=2\nSEND dtype=int8 src=0 elems=64000\nRECV dtype=int8 dst=0x100000 elems=64000\nSYS END\n"
                       ".program chip=2 peer=0\nRECV dtype=int8 dst=0x1000 elems=64000\nSEND dtype=int8 src=0 elems=64000\nSYS END\n";
    CHECK(run("", racy) == -1 && !strcmp(g_res.err.code, "race"));
    CHECK(strstr(g_res.err.msg, "this command writes what it reads") != NULL);
    /* Trace writers: engine tracks, link tracks, flow arrows; the SVG has a
     * legend and a time axis. */
    CHECK(run("", send1) == 0);
    static char buf[1 << 15];
    FILE *fp = fmemopen(buf, sizeof buf, "w");
    CHECK(sg2260_trace_write_json(g_sim, fp) == 0);
    fclose(fp);
    CHECK(strstr(buf, "\"name\":\"SEND 64000B\",\"cat\":\"cmd\",\"ph\":\"X\",\"ts\":0.000000,\"dur\":2.250000") != NULL);
    CHECK(strstr(buf, "\"name\":\"port 0 (->0) RX\"") != NULL);
    CHECK(strstr(buf, "\"name\":\"link 0->2 (port 0)\"") != NULL);
    CHECK(strstr(buf, "\"name\":\"64000 B\",\"cat\":\"link\",\"ph\":\"X\",\"ts\":0.250000,\"dur\":2.000000") != NULL);
    CHECK(strstr(buf, "\"cat\":\"flow\",\"ph\":\"s\"") != NULL && strstr(buf, "\"cat\":\"flow\",\"ph\":\"f\"") != NULL);
    fp = fmemopen(buf, sizeof buf, "w");
    CHECK(sg2260_trace_write_svg(g_sim, fp) == 0);
    fclose(fp);
    CHECK(strncmp(buf, "<svg", 4) == 0 && strstr(buf, "</svg>") != NULL);
    CHECK(strstr(buf, ">time (us)</text>") != NULL && strstr(buf, ">SEND / link transfer</text>") != NULL);
    CHECK(strstr(buf, ">link 0-&gt;2</text>") != NULL);
    sg2260_sim_free(g_sim);
    TEST_DONE();
}
