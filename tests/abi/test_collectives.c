/* test_collectives.c - every row of the collective table
 * (coll_collectives.def) against every view derived from it: coll.h's
 * enum, the runtime's table and block layouts, the naive reference, the
 * compiler's Collective, collective_info and keyword lookup, the names
 * and bus factors of coll_collective_name and collref, the MPI
 * signatures the emitters write, and the rows CMake read at configure time
 * (cmake_rows.h). A view built by hand or mapped wrongly fails here. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <coll.h>
#include "collref.h"
#include "collrt_internal.h"
#include "emit/emit_mpi.h"
#include "front/ast.h"

static int failures;

#define CHECK(cond, row)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__, (row), #cond); \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

/* One row, as written in the table. */
typedef struct Row {
    const char *id, *keyword;
    int abi, rooted;
    const char *in_blocks, *in_where, *out_blocks, *out_where;
    int reducing;
    const char *in_place, *mpi, *mpi_params;
    int coll_value;        /* coll.h's COLL_<ID> */
    int compiler_value;    /* the compiler's COLLECTIVE_<ID> */
} Row;

static const Row rows[] = {
#define X(id, kw, abi, rooted, ib, iw, ob, ow, red, inplace, mpi, params)                       \
    {#id, kw, abi, rooted, #ib, #iw, #ob, #ow, red, #inplace, #mpi, #params, COLL_##id,          \
     COLLECTIVE_##id},
#include <coll_collectives.def>
#undef X
};
enum { NROWS = sizeof rows / sizeof *rows };

static int blocks(const char *token, int N) { return strcmp(token, "N") == 0 ? N : 1; }

static void check_row(const Row *r) {
    const char *id = r->id;
    /* the values: coll.h, the compiler, dense and in range */
    CHECK(r->coll_value == r->abi, id);
    CHECK(r->compiler_value == r->abi, id);
    CHECK(r->abi >= 0 && r->abi < COLL_COLLECTIVE_COUNT, id);
    for (int k = 0; k < NROWS; k++)
        if (&rows[k] != r) {
            CHECK(rows[k].abi != r->abi, id);
            CHECK(strcmp(rows[k].keyword, r->keyword) != 0, id);
        }
    CHECK(strcmp(r->in_blocks, "ONE") == 0 || strcmp(r->in_blocks, "N") == 0, id);
    CHECK(strcmp(r->out_blocks, "ONE") == 0 || strcmp(r->out_blocks, "N") == 0, id);
    CHECK(strcmp(r->in_where, "ALL") == 0 || strcmp(r->in_where, "ROOT") == 0, id);
    CHECK(strcmp(r->out_where, "ALL") == 0 || strcmp(r->out_where, "ROOT") == 0, id);
    /* a buffer held by the root only exists in rooted collectives */
    CHECK(r->rooted || (strcmp(r->in_where, "ALL") == 0 && strcmp(r->out_where, "ALL") == 0), id);

    /* the compiler */
    Collective c = (Collective)r->abi;
    const CollectiveInfo *ci = &collective_info[c];
    CHECK(strcmp(ci->keyword, r->keyword) == 0, id);
    CHECK(collective_lookup(r->keyword) == c, id);
    CHECK(ci->rooted == r->rooted, id);
    CHECK(ci->reducing == r->reducing, id);
    CHECK(ci->in_blocks == (strcmp(r->in_blocks, "N") == 0 ? BLOCKS_N : BLOCKS_ONE), id);
    CHECK(ci->out_blocks == (strcmp(r->out_blocks, "N") == 0 ? BLOCKS_N : BLOCKS_ONE), id);
    CHECK(ci->in_where == (strcmp(r->in_where, "ROOT") == 0 ? HELD_ROOT : HELD_ALL), id);
    CHECK(ci->out_where == (strcmp(r->out_where, "ROOT") == 0 ? HELD_ROOT : HELD_ALL), id);
    CHECK(strcmp(ci->mpi, r->mpi) == 0 && strcmp(ci->mpi_params, r->mpi_params) == 0, id);

    /* the runtime's table */
    const collrt_collective *rt = &collrt_collectives[r->abi];
    CHECK(rt->rooted == r->rooted && rt->reducing == r->reducing, id);
    static const char *const inplace_names[] = {
        [COLLRT_INPLACE_OUT_0] = "OUT_0", [COLLRT_INPLACE_OUT_ME] = "OUT_ME",
        [COLLRT_INPLACE_OUT_ROOT] = "OUT_ROOT", [COLLRT_INPLACE_IN_ME] = "IN_ME"};
    CHECK(rt->in_place >= 0 && rt->in_place <= COLLRT_INPLACE_IN_ME &&
              strcmp(inplace_names[rt->in_place], r->in_place) == 0,
          id);

    /* block layouts on every rank: the runtime and the reference */
    const int N = 5, root = 3;
    for (int me = 0; me < N; me++) {
        int holds_in = strcmp(r->in_where, "ALL") == 0 || me == root;
        int holds_out = strcmp(r->out_where, "ALL") == 0 || me == root;
        int in = holds_in ? blocks(r->in_blocks, N) : 0;
        int out = holds_out ? blocks(r->out_blocks, N) : 0;
        collrt_layout lay;
        collrt_layout_for((coll_collective)r->abi, N, me, root, &lay);
        CHECK(lay.in_blocks == in && lay.out_blocks == out, id);
        CHECK(lay.rooted == r->rooted && lay.reducing == r->reducing, id);
        CHECK(collref_in_blocks((coll_collective)r->abi, N, root, me) == in, id);
        CHECK(collref_out_blocks((coll_collective)r->abi, N, root, me) == out, id);
    }
    CHECK(collref_rooted((coll_collective)r->abi) == r->rooted, id);
    CHECK(strcmp(coll_collective_name((coll_collective)r->abi), r->keyword) == 0, id);
    /* nccl-tests' bus factors: 2(N-1)/N allreduce, (N-1)/N with N blocks, 1 */
    double bus = collref_bus_factor((coll_collective)r->abi, N);
    if (strcmp(r->in_blocks, "N") == 0 || strcmp(r->out_blocks, "N") == 0)
        CHECK(bus == (double)(N - 1) / N, id);
    else
        CHECK(bus == (strcmp(r->keyword, "allreduce") == 0 ? 2.0 * (N - 1) / N : 1.0), id);
    CHECK(collref_reducing((coll_collective)r->abi) == r->reducing, id);

    /* the MPI wrapper of the emitters: collmpi_<mpi in lower case>, the
     * parameters of the row, a root parameter exactly when rooted */
    EmitMpiSig sg;
    emit_mpi_sig(c, &sg);
    char entry[64];
    snprintf(entry, sizeof entry, "collmpi_%s", r->mpi);
    for (char *p = entry; *p; p++) *p = (char)tolower((unsigned char)*p);
    CHECK(strcmp(sg.entry, entry) == 0, id);
    char params[512] = "(";
    int has_root = 0;
    for (int k = 0; k < sg.nparams; k++) {
        strcat(params, k ? ", " : "");
        strcat(params, sg.type[k]);
        strcat(params, sg.name[k]);
        has_root |= strcmp(sg.name[k], "root") == 0 && sg.kind[k] == EMIT_MPI_INT;
    }
    strcat(params, ")");
    CHECK(strcmp(params, r->mpi_params) == 0, id);
    CHECK(has_root == r->rooted, id);
    CHECK(sg.nparams >= 1 && sg.kind[sg.nparams - 1] == EMIT_MPI_HANDLE &&
              strcmp(sg.name[sg.nparams - 1], "comm") == 0,
          id);
}

int main(void) {
    CHECK((int)NROWS == (int)COLL_COLLECTIVE_COUNT, "table");
    CHECK((int)NROWS == (int)COLLECTIVE__COUNT, "table");
    for (int k = 0; k < NROWS; k++) check_row(&rows[k]);
    CHECK(collective_lookup("allreduc") == COLLECTIVE__COUNT, "lookup");
    CHECK(strcmp(coll_collective_name((coll_collective)COLL_COLLECTIVE_COUNT), "?") == 0, "name");

    /* CMake's reading of the table (tests/abi/CMakeLists.txt) */
    int ncmake = 0;
#define CMAKE_ROW(kw_, id_, abi_, rooted_)                                               \
    do {                                                                                 \
        ncmake++;                                                                        \
        CHECK(COLL_##id_ == (abi_) && collective_lookup(kw_) == COLLECTIVE_##id_, #id_); \
        CHECK(collective_info[COLLECTIVE_##id_].rooted == (rooted_), #id_);              \
    } while (0);
#include "cmake_rows.h"
#undef CMAKE_ROW
    CHECK(ncmake == NROWS, "CMake's rows");

    if (failures) {
        printf("abi.collectives: %d failures\n", failures);
        return 1;
    }
    printf("abi.collectives: %d collectives OK\n", NROWS);
    return 0;
}
