/* launch.c - what a bundle needs to be loaded: the launch of every rank
 * (the CDMA ports of the firmware's descriptor-mode launch) and the named
 * bases its descriptor addresses point into, which sg2260_bundle_relocate
 * moves (docs/sg2260.md "Bundle image"). */
#include <inttypes.h>
#include <string.h>

#include "internal.h"

/* Adds the ports tpu_sccl_init lists for `peer`: the receive port, then
 * the send port when it differs (two peers: at most SG2260_LAUNCH_PORTS).
 * A peer without a link makes the launch unusable (l->missing). */
static void add_peer_ports(Sg2260Launch *l, const Sg2260Machine *m, int peer) {
    int rx = sg2260_machine_recv_port(m, l->chip, peer), tx = sg2260_machine_port_to(m, l->chip, peer);
    if (rx < 0 || tx < 0) {
        if (l->missing < 0) l->missing = peer;
        return;
    }
    int want[2] = {rx, tx};
    for (int k = 0; k < (rx == tx ? 1 : 2) && l->nports < SG2260_LAUNCH_PORTS; k++) {
        l->peers[l->nports] = peer;
        l->ports[l->nports++] = want[k];
    }
}

int sg2260_bundle_set_launch(Sg2260Bundle *b, const Sg2260Machine *m, int nranks, const int *chips, Sg2260Error *err) {
    if (nranks < 1 || nranks > SG2260_MAX_CHIPS)
        return sg_err(err, "launch", NULL, 0, "a launch needs 1 to %d ranks, not %d", SG2260_MAX_CHIPS, nranks);
    for (int r = 0; r < nranks; r++) {
        if (chips[r] < 0 || chips[r] >= m->nchips)
            return sg_err(err, "launch", NULL, 0, "rank %d is on chip %d, which machine '%s' does not have", r,
                          chips[r], m->name);
        for (int q = 0; q < r; q++)
            if (chips[q] == chips[r])
                return sg_err(err, "launch", NULL, 0, "ranks %d and %d are both on chip %d", q, r, chips[r]);
    }
    for (int r = 0; r < nranks; r++) {
        Sg2260Launch *l = &b->launch[r];
        memset(l, 0, sizeof *l);
        l->chip = chips[r], l->rank = r, l->missing = -1;
        if (nranks == 1) continue;
        add_peer_ports(l, m, chips[(r + 1) % nranks]);
        if (nranks > 2) add_peer_ports(l, m, chips[(r + nranks - 1) % nranks]);
    }
    b->nranks = nranks;
    return 0;
}

/* A base name: letters, digits, '_' and '.' (a composed algorithm's
 * buffers are "inner.name"), not starting with a digit. */
static int is_name(const char *s) {
    if (!*s || (*s >= '0' && *s <= '9')) return 0;
    for (; *s; s++)
        if (!(*s == '_' || *s == '.' || ((*s | 32) >= 'a' && (*s | 32) <= 'z') || (*s >= '0' && *s <= '9'))) return 0;
    return 1;
}

int sg2260_bundle_add_base(Sg2260Bundle *b, const char *name, uint64_t addr, uint64_t bytes, Sg2260Error *err) {
    if (!is_name(name) || strlen(name) >= SG2260_BASE_NAME || !strcmp(name, "image"))
        return sg_err(err, "bad-base", NULL, 0,
                      "base name '%s' is not 1 to %d letters, digits, '_' and '.' (not 'image')", name,
                      SG2260_BASE_NAME - 1);
    if (b->nbases == SG2260_MAX_BASES)
        return sg_err(err, "bad-base", NULL, 0, "more than %d bases", SG2260_MAX_BASES);
    for (int i = 0; i < b->nbases; i++)
        if (!strcmp(b->bases[i].name, name)) return sg_err(err, "bad-base", NULL, 0, "base '%s' twice", name);
    Sg2260Base *x = &b->bases[b->nbases++];
    memset(x, 0, sizeof *x);
    strcpy(x->name, name);
    x->addr = addr, x->bytes = bytes;
    return 0;
}

int sg2260_bundle_base_of(const Sg2260Bundle *b, uint64_t addr) {
    for (int i = 0; i < b->nbases; i++)
        if (addr >= b->bases[i].addr && addr - b->bases[i].addr < b->bases[i].bytes) return i;
    return -1;
}

/* [a, a + n) and [b, b + m) share a byte. */
static int overlap(uint64_t a, uint64_t n, uint64_t b, uint64_t m) { return n && m && a < b + m && b < a + n; }

/* Bytes of the image's programs (for the overlap of "image" with a base). */
static uint64_t image_bytes(const Sg2260Bundle *b) {
    uint8_t *img;
    long n = sg2260_bundle_encode(b, &img, NULL);
    if (n < 0) return 0;
    free(img);
    return (uint64_t)n;
}

static int relocate_image(Sg2260Bundle *b, uint64_t addr, Sg2260Error *err) {
    if (SG2260_ADDR_TAG(addr) != SG2260_TAG_DDR)
        return sg_err(err, "bad-base", NULL, 0, "the image is loaded into DDR, not at 0x%" PRIx64, addr);
    uint64_t n = image_bytes(b);
    if (addr + n > (UINT64_C(1) << SG2260_OFFSET_BITS))
        return sg_err(err, "bad-base", NULL, 0, "the image (%" PRIu64 " bytes) at 0x%" PRIx64 " passes the end of DDR", n,
                      addr);
    for (int i = 0; i < b->nbases; i++)
        if (overlap(addr, n, b->bases[i].addr, b->bases[i].bytes))
            return sg_err(err, "base-overlap", NULL, 0, "the image (%" PRIu64 " bytes) at 0x%" PRIx64 " overlaps base '%s'",
                          n, addr, b->bases[i].name);
    b->linked = 1, b->image_addr = addr;
    return 0;
}

int sg2260_bundle_relocate(Sg2260Bundle *b, const char *name, uint64_t addr, Sg2260Error *err) {
    if (addr % SG2260_ALIGN)
        return sg_err(err, "bad-base", NULL, 0, "'%s' at 0x%" PRIx64 " is not %d-byte aligned", name, addr, SG2260_ALIGN);
    if (!strcmp(name, "image")) return relocate_image(b, addr, err);
    int k = -1;
    for (int i = 0; i < b->nbases; i++)
        if (!strcmp(b->bases[i].name, name)) k = i;
    if (k < 0) {
        char names[SG2260_MAX_BASES * (SG2260_BASE_NAME + 2) + 8] = "image";
        for (int i = 0; i < b->nbases; i++) strcat(strcat(names, ", "), b->bases[i].name);
        return sg_err(err, "unknown-base", NULL, 0, "the bundle has no base '%s' (it has %s)", name, names);
    }
    Sg2260Base *x = &b->bases[k];
    uint64_t old = x->addr;
    if (SG2260_ADDR_TAG(addr) != SG2260_ADDR_TAG(old) || !SG2260_ADDR_OK(addr) ||
        SG2260_ADDR_OFFSET(addr) + x->bytes > (SG2260_ADDR_TAG(old) == SG2260_TAG_L2 ? SG2260_L2_MAX_OFFSET + 1
                                                                                     : UINT64_C(1) << SG2260_OFFSET_BITS))
        return sg_err(err, "bad-base", NULL, 0, "base '%s' is in %s; 0x%" PRIx64 " (%" PRIu64 " bytes) is not", name,
                      SG2260_ADDR_TAG(old) == SG2260_TAG_L2 ? "L2 SRAM" : "DDR", addr, x->bytes);
    for (int i = 0; i < b->nbases; i++)
        if (i != k && overlap(addr, x->bytes, b->bases[i].addr, b->bases[i].bytes))
            return sg_err(err, "base-overlap", NULL, 0, "base '%s' at 0x%" PRIx64 " overlaps base '%s'", name, addr,
                          b->bases[i].name);
    if (b->linked && overlap(addr, x->bytes, b->image_addr, image_bytes(b)))
        return sg_err(err, "base-overlap", NULL, 0, "base '%s' at 0x%" PRIx64 " overlaps the image", name, addr);
    for (int s = 0; s < b->nslots; s++) {
        Sg2260Program *p = &b->slots[s].prog;
        for (int i = 0; i < p->ndescs; i++) {
            uint64_t *f[2];
            int nf = sg2260_desc_addrs(&p->descs[i], f);
            for (int j = 0; j < nf; j++)
                if (*f[j] >= old && *f[j] - old < x->bytes) *f[j] = *f[j] - old + addr;
        }
    }
    x->addr = addr;
    return 0;
}

int sg2260_desc_addrs(Sg2260Desc *d, uint64_t **f) {
    int n = 0;
    switch (d->cmd) {
    case SG2260_CMD_SEND: f[n++] = &d->src; break;
    case SG2260_CMD_RECV: f[n++] = &d->dst; break;
    case SG2260_CMD_WRITE:
        if (!d->fill) f[n++] = &d->src;
        f[n++] = &d->dst;
        break;
    case SG2260_CMD_READ:
    case SG2260_CMD_GENERAL:
    case SG2260_CMD_COPY:
    case SG2260_CMD_REDUCE:
        f[n++] = &d->src;
        f[n++] = &d->dst;
        break;
    default: break;
    }
    return n;
}

int sg2260_launch_problem(const Sg2260Bundle *b, int r, char *buf, size_t cap) {
    const Sg2260Launch *l = &b->launch[r];
    if (l->missing >= 0) {
        snprintf(buf, cap, "its ring neighbour chip %d shares no link with it (the firmware's ring set-up needs one)",
                 l->missing);
        return 1;
    }
    if (l->nports > SG2260_LAUNCH_CDMA) {
        snprintf(buf, cap, "its ring neighbours need %d CDMA ports; the launch has %d slots", l->nports,
                 SG2260_LAUNCH_CDMA);
        return 1;
    }
    for (int s = 0; s < b->nslots; s++) {
        const Sg2260ProgramSlot *sl = &b->slots[s];
        if (sl->chip != l->chip || sl->engine != SG2260_CDMA) continue;
        int slot = -1;
        for (int i = 0; i < l->nports && i < SG2260_LAUNCH_CDMA; i++)
            if (l->ports[i] == sl->index) slot = i;
        if (slot < 0) {
            int k = snprintf(buf, cap, "its program on CDMA port %d has no launch slot (the slots are ports", sl->index);
            for (int i = 0; i < l->nports && i < SG2260_LAUNCH_CDMA && k >= 0 && (size_t)k < cap; i++)
                k += snprintf(buf + k, cap - (size_t)k, "%s%d", i ? ", " : " ", l->ports[i]);
            if (k >= 0 && (size_t)k < cap) snprintf(buf + k, cap - (size_t)k, ")");
            return 1;
        }
    }
    return 0;
}
