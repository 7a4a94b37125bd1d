/* collectives.c - the collective table (coll_collectives.def) in the
 * runtime's terms, and the block layout of a collective on one rank. */
#include <string.h>
#include "collrt_internal.h"

/* Indexed by value: the rows may come in any order. */
const collrt_collective collrt_collectives[COLL_COLLECTIVE_COUNT] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params)                        \
    [COLL_##id] = {rooted, red, COLLRT_BLOCKS_##ib, COLLRT_HELD_##iw, COLLRT_BLOCKS_##ob,          \
                   COLLRT_HELD_##ow, COLLRT_INPLACE_##inplace},
#include "coll_collectives.def"
#undef X
};
_Static_assert((0
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) | 1ull << (abi)
#include "coll_collectives.def"
#undef X
               ) == (1ull << COLL_COLLECTIVE_COUNT) - 1,
               "the ABI values in coll_collectives.def are not 0 .. count-1, each once");

const char *coll_collective_name(coll_collective coll) {
    static const char *const names[COLL_COLLECTIVE_COUNT] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params) [COLL_##id] = kw,
#include "coll_collectives.def"
#undef X
    };
    return (unsigned)coll < COLL_COLLECTIVE_COUNT ? names[coll] : "?";
}

void collrt_layout_for(coll_collective coll, int nranks, int me, int root,
                       collrt_layout *out) {
    memset(out, 0, sizeof *out);
    if ((unsigned)coll >= COLL_COLLECTIVE_COUNT) return;
    const collrt_collective *ci = &collrt_collectives[coll];
    out->rooted = ci->rooted;
    out->reducing = ci->reducing;
    int is_root = !out->rooted || me == root;
    if (ci->in_where == COLLRT_HELD_ALL || is_root)
        out->in_blocks = ci->in_blocks == COLLRT_BLOCKS_N ? nranks : 1;
    if (ci->out_where == COLLRT_HELD_ALL || is_root)
        out->out_blocks = ci->out_blocks == COLLRT_BLOCKS_N ? nranks : 1;
}
