/* layout.c - SG2260 lowering, stage 1: where the buffers live. Every chip
 * gets the same DDR layout, so an address names the same buffer on every
 * chip: `in`, `out`, the scratch buffers in declaration order, each as large
 * as on the rank that needs the most, then the staging area of routed
 * transfers (sized by messages.c), from SG2260_LAYOUT_BASE up, every region
 * aligned (128 bytes, or a sampled simulation's stride). */
#include "sg2260/lower_internal.h"
#include "support/util.h"

uint64_t sg2260_chunk_elem_offset(const Schedule *s, uint64_t count, int64_t c) {
    uint64_t P = (uint64_t)s->split, block = (uint64_t)c / P, pos = (uint64_t)c % P;
    uint64_t rem = count % P;
    return block * count + pos * (count / P) + (pos < rem ? pos : rem);
}

uint64_t sg2260_align_up(const Lowering *L, uint64_t x) {
    return (x + L->align - 1) / L->align * L->align;
}

void sg2260_layout_buffers(Lowering *L) {
    const Schedule *s = L->s;
    Sg2260Layout *lay = L->lay;
    COLLC_ASSERT(s->nbuffers <= (int)ARRAY_LEN(lay->base));
    uint64_t at = sg2260_align_up(L, SG2260_LAYOUT_BASE);
    lay->nbuffers = s->nbuffers;
    for (int k = 0; k < s->nbuffers; k++) {
        uint64_t mx = 0;
        for (int64_t r = 0; r < s->N; r++) {
            uint64_t e = sg2260_chunk_elem_offset(s, L->o->count, schedule_chunks(s, k, r)) * L->es;
            if (e > mx) mx = e;
        }
        lay->base[k] = at;
        lay->bytes[k] = mx;
        at = sg2260_align_up(L, at + mx);
    }
    lay->staging = at;
}
