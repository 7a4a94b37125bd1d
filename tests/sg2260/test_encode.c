/* test_encode.c - descriptor layout: golden words, encode/decode and text
 * round trips, decode errors, program images. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sg2260.h"

static Sg2260Shape rnd_shape(void) {
    Sg2260Shape s;
    s.n = 1 + (uint32_t)(rnd() % 65535);
    s.c = 1 + (uint32_t)(rnd() % 65535);
    s.h = 1 + (uint32_t)(rnd() % 65535);
    s.w = 1 + (uint32_t)(rnd() % 65535);
    s.sn = (uint32_t)rnd();
    s.sc = (uint32_t)rnd();
    s.sh = (uint32_t)rnd();
    s.sw = (uint32_t)(rnd() % 65536);
    return s;
}

static Sg2260Desc rnd_desc(void) {
    static const Sg2260Cmd cmds[] = {SG2260_CMD_SEND, SG2260_CMD_RECV, SG2260_CMD_WRITE,
                                     SG2260_CMD_READ, SG2260_CMD_GENERAL, SG2260_CMD_SYS};
    Sg2260Desc d;
    memset(&d, 0, sizeof d);
    d.cmd = cmds[rnd() % 6];
    uint64_t a40 = (UINT64_C(1) << 40) - 1;
    switch (d.cmd) {
    case SG2260_CMD_SYS:
        d.sys = (Sg2260Sys)(rnd() % 7);
        d.msg_id = (uint32_t)(rnd() % 512);
        d.count = (uint32_t)(rnd() % 128);
        d.imm = (uint32_t)rnd();
        d.dst = rnd() & a40;
        break;
    case SG2260_CMD_SEND:
        d.dtype = (Sg2260Dtype)(rnd() % 7);
        d.psum = (Sg2260Psum)(rnd() % 2);
        d.src = rnd() & a40;
        d.shape = rnd_shape();
        break;
    case SG2260_CMD_RECV:
        d.dtype = (Sg2260Dtype)(rnd() % 7);
        d.op = (Sg2260Op)(rnd() % 5);
        d.dst = rnd() & a40;
        d.shape = rnd_shape();
        break;
    default:
        d.dtype = (Sg2260Dtype)(rnd() % 7);
        d.op = (Sg2260Op)(rnd() % 5);
        d.src_chip = (int)(rnd() % 16);
        d.dst_chip = (int)(rnd() % 16);
        d.src = rnd() & a40;
        d.dst = rnd() & a40;
        d.shape = rnd_shape();
        d.dshape = rnd_shape();
        break;
    }
    return d;
}

static int same_words(const uint64_t *a, const uint64_t *b, int words) {
    return memcmp(a, b, (size_t)words * 16) == 0;
}

int main(void) {
    Sg2260Error err;
    uint64_t w[8], w2[8];
    /* Golden words: pin the documented layout (docs/sg2260.md). */
    Sg2260Desc d;
    CHECK(sg2260_asm_line("SEND dtype=fp32 psum=wr src=0x1000 elems=8", &d, &err) == 0);
    CHECK(sg2260_encode(&d, w, &err) == 2);
    CHECK(w[0] == 0x10008220ull);
    CHECK(w[1] == 0x0008000100010001ull);
    CHECK(w[2] == 0x0000000800000008ull);
    CHECK(w[3] == 0x0000000100000008ull);
    CHECK(sg2260_asm_line("SYS TX_WAIT_MSG id=5 count=3", &d, &err) == 0);
    CHECK(sg2260_encode(&d, w, &err) == 1);
    CHECK(w[0] == 0x605417ull && w[1] == 0);
    CHECK(sg2260_asm_line("RECV dtype=bf16 op=max dst=0xff00000080 shape=2,3,4,5 stride=60,20,5,1", &d, &err) == 0);
    CHECK(sg2260_encode(&d, w, &err) == 2);
    CHECK(w[0] == ((0x4ull << 0) | (2ull << 4) | (5ull << 8) | (2ull << 12) | (0xff00000080ull << 16)));
    CHECK(w[1] == (2ull | (3ull << 16) | (4ull << 32) | (5ull << 48)));
    CHECK(w[2] == (60ull | (20ull << 32)));
    CHECK(w[3] == (5ull | (1ull << 32)));
    CHECK(sg2260_asm_line("WRITE dtype=int32 op=add src=3:0x100 dst=12:0x200 elems=16 dshape=1,1,4,4 dstride=64,64,16,1",
                          &d, &err) == 0);
    CHECK(sg2260_encode(&d, w, &err) == 4);
    CHECK(w[0] == (2ull | (4ull << 4) | (4ull << 8) | (4ull << 12) | (3ull << 16) | (12ull << 20) | (0x100ull << 24)));
    CHECK(w[1] == 0x200ull);
    CHECK(w[2] == (1ull | (1ull << 16) | (1ull << 32) | (16ull << 48))); /* src shape */
    CHECK(w[3] == (16ull | (16ull << 32)));                             /* src sN, sC */
    CHECK(w[4] == (16ull | (1ull << 32)));                              /* src sH, sW */
    CHECK(w[5] == (1ull | (1ull << 16) | (4ull << 32) | (4ull << 48))); /* dst shape */
    CHECK(w[6] == (64ull | (64ull << 32)));
    CHECK(w[7] == (16ull | (1ull << 32)));

    /* Random round trips: encode -> decode -> encode and text -> desc. */
    for (int i = 0; i < 20000; i++) {
        Sg2260Desc a = rnd_desc(), b, c;
        int k = sg2260_encode(&a, w, &err);
        CHECK_MSG(k == sg2260_desc_words(a.cmd), "encode: %s", err.msg);
        CHECK(sg2260_decode(w, 4, &b, &err) == k);
        CHECK(sg2260_encode(&b, w2, &err) == k && same_words(w, w2, k));
        char txt[512], txt2[512];
        sg2260_disasm(&a, txt, sizeof txt);
        sg2260_disasm(&b, txt2, sizeof txt2);
        CHECK_MSG(!strcmp(txt, txt2), "%s vs %s", txt, txt2);
        CHECK_MSG(sg2260_asm_line(txt, &c, &err) == 0, "%s: %s", txt, err.msg);
        CHECK(sg2260_encode(&c, w2, &err) == k && same_words(w, w2, k));
    }

    /* Field limits. */
    CHECK(sg2260_asm_line("SEND dtype=fp32 src=0 shape=1,1,1,65536", &d, &err) == 0);
    CHECK(sg2260_encode(&d, w, &err) == -1 && !strcmp(err.code, "field-range"));
    CHECK(sg2260_desc_check(&d, &err) == -1 && !strcmp(err.code, "shape"));
    CHECK(sg2260_asm_line("SEND dtype=fp32 src=0x10000000000 elems=1", &d, &err) == -1);
    CHECK(sg2260_asm_line("SYS TX_SEND_MSG id=512", &d, &err) == -1);
    CHECK(sg2260_asm_line("SYS TX_WAIT_MSG id=1 count=128", &d, &err) == -1);
    CHECK(sg2260_asm_line("LOSSY_COMPRESS", &d, &err) == -1 && !strcmp(err.code, "unsupported-cmd"));

    /* Decode errors. */
    memset(w, 0, sizeof w);
    w[0] = 5 | (2 << 4);
    CHECK(sg2260_decode(w, 4, &d, &err) == -1 && !strcmp(err.code, "unsupported-cmd"));
    w[0] = 0 | (4 << 4); /* SEND with length 4 */
    CHECK(sg2260_decode(w, 4, &d, &err) == -1 && !strcmp(err.code, "bad-length"));
    w[0] = 7 | (1 << 4) | (1u << 30); /* SYS reserved bit 30 */
    CHECK(sg2260_decode(w, 4, &d, &err) == -1 && !strcmp(err.code, "reserved-bits"));
    w[0] = 2 | (4 << 4);
    CHECK(sg2260_decode(w, 2, &d, &err) == -1 && !strcmp(err.code, "truncated"));

    /* Program images: 128-byte aligned, stop at SYS END. */
    Sg2260Program p = {0};
    const char *lines[] = {"RECV dtype=fp32 op=add dst=0x80 elems=32", "SYS RX_SEND_MSG id=1 count=0",
                           "GENERAL dtype=fp16 src=0:0x0 dst=0:0x1000 elems=64", "SYS END"};
    for (int i = 0; i < 4; i++) {
        CHECK(sg2260_asm_line(lines[i], &d, &err) == 0);
        sg2260_program_push(&p, &d);
    }
    uint8_t *img;
    long n = sg2260_program_encode(&p, &img, &err);
    CHECK(n == 128); /* 2 + 1 + 4 + 1 = 8 words = 128 bytes */
    Sg2260Program q;
    CHECK(sg2260_program_decode(img, (size_t)n, &q, &err) == 0 && q.ndescs == 4);
    for (int i = 0; i < 4 && i < q.ndescs; i++) {
        char a[512], b[512];
        sg2260_disasm(&p.descs[i], a, sizeof a);
        sg2260_disasm(&q.descs[i], b, sizeof b);
        CHECK_MSG(!strcmp(a, b), "%s vs %s", a, b);
    }
    free(img);
    sg2260_program_free(&q);
    sg2260_program_push(&p, &d); /* SYS END twice: image still decodes to the first */
    n = sg2260_program_encode(&p, &img, &err);
    CHECK(n == 256);
    free(img);
    p.ndescs = 3; /* no END */
    n = sg2260_program_encode(&p, &img, &err);
    CHECK(sg2260_program_decode(img, (size_t)n, &q, &err) == -1);
    free(img);
    sg2260_program_free(&p);

    /* Bundle images: text -> image -> bundle gives the same text. */
    {
        Sg2260Machine m;
        sg2260_machine_default(&m);
        Sg2260Bundle b1, b2;
        const char *txt = ".program chip=0 peer=2 tx\nSEND dtype=fp32 src=0x80 elems=8\nSYS END\n"
                          ".program chip=2 peer=0 rx\nRECV dtype=fp32 dst=0x80 elems=8\nSYS END\n";
        CHECK(sg2260_bundle_parse(txt, "t", &m, &b1, &err) == 0);
        uint8_t *bimg;
        long bn = sg2260_bundle_encode(&b1, &bimg, &err);
        CHECK(bn == 128 + 128 + 128 && sg2260_bundle_is_binary(bimg, (size_t)bn));
        CHECK(sg2260_bundle_decode(bimg, (size_t)bn, &b2, &err) == 0 && b2.nslots == 2);
        char t1[4096], t2[4096];
        FILE *f1 = fmemopen(t1, sizeof t1, "w"), *f2 = fmemopen(t2, sizeof t2, "w");
        sg2260_bundle_write(f1, &b1);
        sg2260_bundle_write(f2, &b2);
        fclose(f1);
        fclose(f2);
        CHECK(!strcmp(t1, t2));
        sg2260_bundle_free(&b2);
        char csrc[8192];
        FILE *fc = fmemopen(csrc, sizeof csrc, "w");
        CHECK(sg2260_bundle_write_c(fc, &b1, "ring_prog", &err) == 0);
        fclose(fc);
        CHECK(strstr(csrc, "const unsigned char ring_prog[384] __attribute__((aligned(128))) = {\n    0x53, 0x47,") != NULL);
        CHECK(strstr(csrc, "const unsigned long ring_prog_size = 384ul;") != NULL);
        CHECK(sg2260_bundle_write_c(stdout, &b1, "1bad", &err) == -1 && !strcmp(err.code, "bad-name"));
        bimg[16 + 8] = 3; /* misaligned program offset */
        CHECK(sg2260_bundle_decode(bimg, (size_t)bn, &b2, &err) == -1 && !strcmp(err.code, "bad-image"));
        bimg[0] = 'X';
        CHECK(!sg2260_bundle_is_binary(bimg, (size_t)bn));
        free(bimg);
        sg2260_bundle_free(&b1);
        sg2260_bundle_free(&b2);
    }

    /* Decoder fuzz: random words either fail to decode or re-encode to
     * exactly the same bits (every non-reserved bit is a field). */
    {
        static const int lens[] = {2, 4, 4, 4, 2, 0, 0, 1};
        int decoded = 0;
        for (int i = 0; i < 200000; i++) {
            uint64_t r[8];
            for (int k = 0; k < 8; k++) r[k] = rnd();
            if (i % 2) { /* valid header, few reserved bits set */
                int cmd = (int)(rnd() % 8);
                r[0] = (r[0] & ~0xffull) | (uint64_t)cmd | ((uint64_t)lens[cmd] << 4);
                if (i % 4 == 1)
                    for (int k = 0; k < 8; k++) r[k] &= rnd() & rnd() & rnd();
                r[0] = (r[0] & ~0xffull) | (uint64_t)cmd | ((uint64_t)lens[cmd] << 4);
            }
            Sg2260Desc fd;
            int k = sg2260_decode(r, 4, &fd, &err);
            if (k < 0) continue;
            decoded++;
            CHECK(sg2260_encode(&fd, w, &err) == k && same_words(w, r, k));
        }
        CHECK(decoded > 1000);
        /* program and bundle decoders on random bytes: no crash */
        uint8_t junk[1024];
        for (int i = 0; i < 2000; i++) {
            for (size_t k = 0; k < sizeof junk; k++) junk[k] = (uint8_t)rnd();
            if (i % 2) memcpy(junk, "SG2260CDMA\0\0\1\0\3\0", 16);
            Sg2260Program fp;
            if (sg2260_program_decode(junk, sizeof junk, &fp, &err) == 0) sg2260_program_free(&fp);
            Sg2260Bundle fb;
            if (sg2260_bundle_decode(junk, sizeof junk, &fb, &err) == 0) sg2260_bundle_free(&fb);
        }
        /* assembler on shuffled tokens: no crash */
        static const char *toks[] = {"SEND", "RECV", "WRITE", "SYS", "END", "NOP", "dtype=fp32", "op=add", "psum=wr",
                                     "src=0x80", "dst=1:0x100", "shape=1,1,1,", "stride=1,1,1,1", "elems=99999999",
                                     "id=3", "count=", "=", ",", "0x", "dshape=0,0,0,0", ";", "TRWR", "imm=-1"};
        for (int i = 0; i < 20000; i++) {
            char line[256] = "";
            int nt = 1 + (int)(rnd() % 6);
            for (int k = 0; k < nt; k++) {
                strcat(line, toks[rnd() % (sizeof toks / sizeof *toks)]);
                strcat(line, " ");
            }
            Sg2260Desc fd;
            if (sg2260_asm_line(line, &fd, &err) == 0) {
                char back[512];
                sg2260_disasm(&fd, back, sizeof back);
            }
        }
    }

    /* Packed shapes. */
    Sg2260Shape s;
    CHECK(sg2260_shape_packed(1u << 20, &s) == 0 && sg2260_shape_elems(&s) == (1u << 20) && s.sw == 1);
    CHECK(sg2260_shape_packed(65537ull * 65537ull, &s) == -1 || sg2260_shape_elems(&s) == 65537ull * 65537ull);
    CHECK(sg2260_shape_packed(65537, &s) == -1); /* prime > 65535 */
    TEST_DONE();
}
