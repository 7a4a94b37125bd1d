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

/* Whether base k (or the image, k = -1) may sit at addr: aligned, in its
 * memory, inside it. */
static int placement_ok(const Sg2260Bundle *b, int k, uint64_t addr, uint64_t img_bytes, Sg2260Error *err) {
    const char *name = k < 0 ? "image" : b->bases[k].name;
    if (addr % SG2260_ALIGN)
        return sg_err(err, "bad-base", NULL, 0, "'%s' at 0x%" PRIx64 " is not %d-byte aligned", name, addr, SG2260_ALIGN);
    if (k < 0) {
        if (SG2260_ADDR_TAG(addr) != SG2260_TAG_DDR)
            return sg_err(err, "bad-base", NULL, 0, "the image is loaded into DDR, not at 0x%" PRIx64, addr);
        if (addr + img_bytes > (UINT64_C(1) << SG2260_OFFSET_BITS))
            return sg_err(err, "bad-base", NULL, 0, "the image (%" PRIu64 " bytes) at 0x%" PRIx64 " passes the end of DDR",
                          img_bytes, addr);
        return 0;
    }
    const Sg2260Base *x = &b->bases[k];
    int l2 = SG2260_ADDR_TAG(x->addr) == SG2260_TAG_L2;
    if (SG2260_ADDR_TAG(addr) != SG2260_ADDR_TAG(x->addr) || !SG2260_ADDR_OK(addr) ||
        SG2260_ADDR_OFFSET(addr) + x->bytes > (l2 ? SG2260_L2_MAX_OFFSET + 1 : UINT64_C(1) << SG2260_OFFSET_BITS))
        return sg_err(err, "bad-base", NULL, 0, "base '%s' is in %s; 0x%" PRIx64 " (%" PRIu64 " bytes) is not", name,
                      l2 ? "L2 SRAM" : "DDR", addr, x->bytes);
    return 0;
}

int sg2260_bundle_relocate_all(Sg2260Bundle *b, int n, const char *const *names, const uint64_t *addrs,
                               Sg2260Error *err) {
    /* the layout after the moves: to[k] for base k, image at img */
    uint64_t to[SG2260_MAX_BASES];
    int moved[SG2260_MAX_BASES] = {0}, img_moved = 0;
    for (int k = 0; k < b->nbases; k++) to[k] = b->bases[k].addr;
    uint64_t img = b->image_addr, img_bytes = image_bytes(b);
    for (int i = 0; i < n; i++) {
        int k = -1;
        if (strcmp(names[i], "image")) {
            for (int j = 0; j < b->nbases; j++)
                if (!strcmp(b->bases[j].name, names[i])) k = j;
            if (k < 0) {
                char all[SG2260_MAX_BASES * (SG2260_BASE_NAME + 2) + 8] = "image";
                for (int j = 0; j < b->nbases; j++) strcat(strcat(all, ", "), b->bases[j].name);
                return sg_err(err, "unknown-base", NULL, 0, "the bundle has no base '%s' (it has %s)", names[i], all);
            }
        }
        if (k < 0 ? img_moved : moved[k])
            return sg_err(err, "bad-base", NULL, 0, "'%s' is placed twice", names[i]);
        if (placement_ok(b, k, addrs[i], img_bytes, err)) return -1;
        if (k < 0) img = addrs[i], img_moved = 1;
        else to[k] = addrs[i], moved[k] = 1;
    }
    int linked = b->linked || img_moved;
    for (int k = 0; k < b->nbases; k++) {
        for (int j = 0; j < k; j++)
            if (overlap(to[k], b->bases[k].bytes, to[j], b->bases[j].bytes))
                return sg_err(err, "base-overlap", NULL, 0, "base '%s' at 0x%" PRIx64 " overlaps base '%s' at 0x%" PRIx64,
                              b->bases[j].name, to[j], b->bases[k].name, to[k]);
        if (linked && overlap(img, img_bytes, to[k], b->bases[k].bytes))
            return sg_err(err, "base-overlap", NULL, 0,
                          "the image (%" PRIu64 " bytes) at 0x%" PRIx64 " overlaps base '%s' at 0x%" PRIx64, img_bytes, img,
                          b->bases[k].name, to[k]);
    }
    /* every descriptor address moves with the base that holds it in the
     * old layout (once: a base moved where another was stays put) */
    for (int s = 0; s < b->nslots; s++) {
        Sg2260Program *p = &b->slots[s].prog;
        for (int i = 0; i < p->ndescs; i++) {
            uint64_t *f[2];
            int nf = sg2260_desc_addrs(&p->descs[i], f);
            for (int j = 0; j < nf; j++) {
                int k = sg2260_bundle_base_of(b, *f[j]);
                if (k >= 0) *f[j] = *f[j] - b->bases[k].addr + to[k];
            }
        }
    }
    for (int k = 0; k < b->nbases; k++) b->bases[k].addr = to[k];
    b->linked = linked, b->image_addr = linked ? img : 0;
    return 0;
}

int sg2260_bundle_relocate(Sg2260Bundle *b, const char *name, uint64_t addr, Sg2260Error *err) {
    return sg2260_bundle_relocate_all(b, 1, &name, &addr, err);
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
