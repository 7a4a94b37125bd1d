/* engine_mem.c - the SG2260 model's memory: each chip's DDR and L2 SRAM as
 * sparse pages, allocated on first write (a read of an unwritten page is
 * zeros); in the sampled data mode only the kept windows are stored. */
#include <string.h>

#include "engine_state.h"

enum { PAGE_BITS = 12, L2_BITS = 14, L1_BITS = SG2260_OFFSET_BITS - PAGE_BITS - L2_BITS };
#define PAGE_SIZE ((uint64_t)1 << PAGE_BITS)

struct ChipMem {
    uint8_t **l1[1u << L1_BITS];
};

static uint8_t *page_of(ChipMem *m, uint64_t off, int create) {
    uint64_t pg = off >> PAGE_BITS;
    uint64_t i1 = pg >> L2_BITS, i2 = pg & ((1u << L2_BITS) - 1);
    if (!m->l1[i1]) {
        if (!create) return NULL;
        m->l1[i1] = sg_xcalloc((size_t)1 << L2_BITS, sizeof(uint8_t *));
    }
    if (!m->l1[i1][i2]) {
        if (!create) return NULL;
        m->l1[i1][i2] = sg_xcalloc(PAGE_SIZE, 1);
    }
    return m->l1[i1][i2];
}

void sg_chipmem_free(ChipMem *m) {
    if (!m) return;
    for (size_t i = 0; i < ((size_t)1 << L1_BITS); i++) {
        if (!m->l1[i]) continue;
        for (size_t j = 0; j < ((size_t)1 << L2_BITS); j++) free(m->l1[i][j]);
        free(m->l1[i]);
    }
    free(m);
}

int sg_space_of(const Sg2260Sim *s, uint64_t addr, uint64_t *limit) {
    uint64_t tag = SG2260_ADDR_TAG(addr);
    if (tag == SG2260_TAG_DDR) {
        *limit = s->m.mem_bytes;
        return 0;
    }
    if (tag == SG2260_TAG_L2 && SG2260_ADDR_OK(addr)) {
        *limit = s->m.l2_bytes;
        return 1;
    }
    return -1;
}

static int range_ok(const Sg2260Sim *s, int chip, uint64_t addr, uint64_t n) {
    uint64_t limit, off = SG2260_ADDR_OFFSET(addr);
    return chip >= 0 && chip < s->m.nchips && sg_space_of(s, addr, &limit) >= 0 && off <= limit && n <= limit - off;
}

int sg2260_mem_kept(const Sg2260Sim *s, uint64_t addr) {
    if (s->data == SG2260_DATA_NONE) return 0;
    if (s->data == SG2260_DATA_SAMPLED) return (addr & (s->sample_stride - 1)) < s->sample_window;
    return 1;
}

/* Raw page access for [off, off+n) of one space, n within one page. */
static void raw_write(Sg2260Sim *s, int chip, int sp, uint64_t off, const uint8_t *p, size_t n) {
    if (!s->mem[chip][sp]) s->mem[chip][sp] = sg_xcalloc(1, sizeof(ChipMem));
    memcpy(page_of(s->mem[chip][sp], off, 1) + (off & (PAGE_SIZE - 1)), p, n);
}

static void raw_read(Sg2260Sim *s, int chip, int sp, uint64_t off, uint8_t *p, size_t n) {
    uint8_t *pg = s->mem[chip][sp] ? page_of(s->mem[chip][sp], off, 0) : NULL;
    if (pg) memcpy(p, pg + (off & (PAGE_SIZE - 1)), n);
    else memset(p, 0, n);
}

/* Walks [addr, addr+n) in pieces within one page and, when sampling, within
 * the kept windows; calls fn for each kept piece. */
static void walk(Sg2260Sim *s, int chip, uint64_t addr, size_t n, uint8_t *buf, int wr) {
    uint64_t limit;
    int sp = sg_space_of(s, addr, &limit);
    uint64_t off = SG2260_ADDR_OFFSET(addr);
    while (n) {
        size_t k = (size_t)(PAGE_SIZE - (off & (PAGE_SIZE - 1)));
        int kept = 1;
        if (s->data == SG2260_DATA_SAMPLED) {
            uint64_t in = off & (s->sample_stride - 1);
            kept = in < s->sample_window;
            uint64_t edge = kept ? s->sample_window - in : s->sample_stride - in;
            if (edge < k) k = (size_t)edge;
        }
        if (k > n) k = n;
        if (kept) {
            if (wr) raw_write(s, chip, sp, off, buf, k);
            else raw_read(s, chip, sp, off, buf, k);
        } else if (!wr) {
            memset(buf, 0, k);
        }
        off += k, buf += k, n -= k;
    }
}

int sg2260_mem_write(Sg2260Sim *s, int chip, uint64_t addr, const void *src, size_t n) {
    if (!range_ok(s, chip, addr, n)) return -1;
    if (s->data != SG2260_DATA_NONE) walk(s, chip, addr, n, (uint8_t *)(uintptr_t)src, 1);
    return 0;
}

int sg2260_mem_read(Sg2260Sim *s, int chip, uint64_t addr, void *dst, size_t n) {
    if (!range_ok(s, chip, addr, n)) return -1;
    if (s->data == SG2260_DATA_NONE) memset(dst, 0, n);
    else walk(s, chip, addr, n, dst, 0);
    return 0;
}
