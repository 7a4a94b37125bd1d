/* engine_xfer.c - data movement of the SG2260 model: a transfer's views
 * walked row by row, copied or reduced at its completion; and the checks
 * of a transfer before it starts (its views in memory, no race with one in
 * flight). */
#include <string.h>

#include "engine_state.h"

static uint64_t view_extent(const Sg2260Shape *v, size_t es) {
    uint64_t last = (uint64_t)(v->n - 1) * v->sn + (uint64_t)(v->c - 1) * v->sc + (uint64_t)(v->h - 1) * v->sh +
                    (uint64_t)(v->w - 1);
    return (last + 1) * es;
}

/* A position in a view walked in logical (n, c, h, w) order. */
typedef struct ViewPos {
    const Sg2260Shape *v;
    uint64_t base;
    size_t es;
    uint32_t n, c, h, w;
} ViewPos;

static uint64_t vp_addr(const ViewPos *p) {
    return p->base + ((uint64_t)p->n * p->v->sn + (uint64_t)p->c * p->v->sc + (uint64_t)p->h * p->v->sh + p->w) * p->es;
}

/* Elements left in the current row. */
static uint64_t vp_row(const ViewPos *p) { return (uint64_t)p->v->w - p->w; }

static void vp_advance(ViewPos *p, uint64_t k) {
    p->w += (uint32_t)k;
    if (p->w < p->v->w) return;
    p->w = 0;
    if (++p->h < p->v->h) return;
    p->h = 0;
    if (++p->c < p->v->c) return;
    p->c = 0;
    p->n++;
}

/* One run: n bytes from src to dst (op NONE: write; else reduce). Data of
 * the source was snapshot into `snap` (when not NULL) at offset sofs. */
static void move_run(Sg2260Sim *s, const Xfer *x, uint64_t src, uint64_t dst, uint64_t n, const uint8_t *snap,
                     uint64_t sofs) {
    size_t es = sg2260_dtype_size(x->dtype);
    if (!s->tmp[0]) s->tmp[0] = sg_xmalloc(TMP_BYTES), s->tmp[1] = sg_xmalloc(TMP_BYTES);
    uint64_t done = 0;
    while (done < n) {
        /* a piece within the scratch and, when sampling, one kept window */
        uint64_t k = n - done < TMP_BYTES ? n - done : TMP_BYTES;
        uint64_t d = dst + done;
        if (s->data == SG2260_DATA_SAMPLED) {
            uint64_t in = d & (s->sample_stride - 1);
            if (in >= s->sample_window) {
                uint64_t skip = s->sample_stride - in;
                done += skip < n - done ? skip : n - done;
                continue;
            }
            if (s->sample_window - in < k) k = s->sample_window - in;
        }
        uint8_t *a = s->tmp[0], *b = s->tmp[1];
        if (x->fill) {
            for (uint64_t i = 0; i < k; i += es) memcpy(a + i, &x->imm, es);
        } else if (snap) {
            memcpy(a, snap + sofs + done, (size_t)k);
        } else {
            sg2260_mem_read(s, x->src_chip, src + done, a, (size_t)k);
        }
        if (x->op == SG2260_OP_NONE) {
            sg2260_mem_write(s, x->dst_chip, d, a, (size_t)k);
        } else {
            sg2260_mem_read(s, x->dst_chip, d, b, (size_t)k);
            sg_reduce_row(x->dtype, x->op, b, a, (size_t)(k / es));
            sg2260_mem_write(s, x->dst_chip, d, b, (size_t)k);
        }
        done += k;
    }
}

/* A completed transfer's data moves; the sampled data mode cannot follow
 * one whose source and destination are not the same distance from a
 * sampling window. */
int sg_apply_xfer(Sg2260Sim *s, const Xfer *x, Sg2260Error *e) {
    if (s->data == SG2260_DATA_NONE) return 0;
    size_t es = sg2260_dtype_size(x->dtype);
    ViewPos sp = {&x->sshape, x->src, es, 0, 0, 0, 0}, dp = {&x->dshape, x->dst, es, 0, 0, 0, 0};
    uint64_t total = sg2260_shape_elems(&x->dshape);
    /* a source that overlaps the destination is read whole first */
    uint8_t *snap = NULL;
    uint64_t sbase = x->src, sext = view_extent(&x->sshape, es);
    if (!x->fill && x->src_chip == x->dst_chip && x->src < x->dst + view_extent(&x->dshape, es) &&
        x->dst < x->src + sext && s->data == SG2260_DATA_FULL) {
        snap = sg_xmalloc((size_t)sext);
        sg2260_mem_read(s, x->src_chip, sbase, snap, (size_t)sext);
    }
    for (uint64_t done = 0; done < total;) {
        uint64_t k = vp_row(&dp);
        if (!x->fill && vp_row(&sp) < k) k = vp_row(&sp);
        if (k > total - done) k = total - done;
        uint64_t sa = vp_addr(&sp), da = vp_addr(&dp);
        if (s->data == SG2260_DATA_SAMPLED && !x->fill &&
            (((da - sa) & (s->sample_stride - 1)) || (da & (es - 1)) || (sa & (es - 1)))) {
            free(snap);
            return sg_err(e, "sample-align", NULL, 0,
                          "sampled data mode: a transfer moves chip %d 0x%llx to chip %d 0x%llx, whose distance is "
                          "not a multiple of the %llu-byte sampling stride",
                          x->src_chip, (unsigned long long)sa, x->dst_chip, (unsigned long long)da,
                          (unsigned long long)s->sample_stride);
        }
        move_run(s, x, sa, da, k * es, snap, sa - sbase);
        if (!x->fill) vp_advance(&sp, k);
        vp_advance(&dp, k);
        done += k;
    }
    free(snap);
    return 0;
}

int sg_check_view(Sg2260Sim *s, Sg2260Error *e, Channel *h, const char *what, int chip, uint64_t addr,
                  const Sg2260Shape *v, Sg2260Dtype t) {
    uint64_t ext = view_extent(v, sg2260_dtype_size(t)), limit = 0;
    int sp = sg_space_of(s, addr, &limit);
    uint64_t off = SG2260_ADDR_OFFSET(addr);
    if (sp < 0)
        return sg_run_err(s, e, h, "addr-range", "%s view at 0x%llx on chip %d is in no memory of the chip", what,
                          (unsigned long long)addr, chip);
    if (off > limit || ext > limit - off)
        return sg_run_err(s, e, h, "addr-range", "%s view [%s0x%llx, 0x%llx) on chip %d is outside its %s (0x%llx bytes)",
                       what, sp ? "l2:" : "", (unsigned long long)off, (unsigned long long)(off + ext), chip,
                       sp ? "L2 SRAM" : "memory", (unsigned long long)limit);
    return 0;
}

/* Two in-flight transfers conflict when one writes bytes the other reads or
 * writes on the same chip; the model moves data at completion, the hardware
 * streams, so such a program has no defined result. The check compares the
 * views' address ranges [base, base + extent), so interleaved strided views
 * are reported conservatively. */
static int overlaps(int ca, uint64_t a, const Sg2260Shape *va, int cb, uint64_t b, const Sg2260Shape *vb, size_t es) {
    if (ca != cb) return 0;
    uint64_t ea = a + view_extent(va, es), eb = b + view_extent(vb, es);
    return a < eb && b < ea;
}

int sg_check_race(Sg2260Sim *s, Sg2260Error *e, Channel *h, const Xfer *x) {
    if (!s->race_check) return 0;
    size_t es = sg2260_dtype_size(x->dtype);
    for (int i = 0; i < s->nxf; i++) {
        const Xfer *y = &s->xf[i];
        if (y == x) continue;
        size_t ey = sg2260_dtype_size(y->dtype);
        const char *what = NULL;
        /* compare with the larger element size: extents are in bytes */
        size_t eb = es > ey ? es : ey;
        if (overlaps(x->dst_chip, x->dst, &x->dshape, y->dst_chip, y->dst, &y->dshape, eb)) what = "writes what it writes";
        else if (!y->fill && overlaps(x->dst_chip, x->dst, &x->dshape, y->src_chip, y->src, &y->sshape, eb))
            what = "writes what it reads";
        else if (!x->fill && overlaps(x->src_chip, x->src, &x->sshape, y->dst_chip, y->dst, &y->dshape, eb))
            what = "reads what it writes";
        if (!what) continue;
        char other[512];
        sg_where_desc(s, &s->ch[y->ch], y->index, other, sizeof other);
        return sg_run_err(s, e, h, "race", "transfer overlaps one in flight: this command %s\n  other: %s", what, other);
    }
    return 0;
}
