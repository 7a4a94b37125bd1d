/* front.h - entry points of the front end: parse and check.
 *
 * Typical use (the driver does exactly this):
 *   Arena arena; arena_init(&arena);
 *   SourceManager sm; source_init(&sm);
 *   DiagEngine *dx = diag_new(&sm, stderr, DIAG_FMT_TEXT);
 *   Program prog = {0};
 *   for each file: id = source_load(&sm, path); parse_source(&arena, dx, id, &prog);
 *   if (!diag_error_count(dx)) sema_check(&arena, dx, &prog);
 */
#ifndef COLLC_FRONT_H
#define COLLC_FRONT_H

#include "front/ast.h"
#include "support/arena.h"
#include "support/diag.h"

/* Parses source file `file_id` and appends its algorithms and topologies to
 * *prog. Reports syntax errors (with recovery, several per run) through dx.
 * Returns the number of errors reported by this call. */
int parse_source(Arena *arena, DiagEngine *dx, uint32_t file_id, Program *prog);

/* Resolves names, checks scopes, collectives, buffers, statement placement
 * and range lengths that are known statically, folds constants, assigns frame
 * slots. Returns the number of errors reported. Must only run on a program
 * that parsed without errors. */
int sema_check(Arena *arena, DiagEngine *dx, Program *prog);

/* Expands every `call` (compose.c): the callee's statements in place of the
 * call, on the group's ranks and through the views, so that the algorithm
 * is one of plain steps again; called by sema_check when it found no error.
 * Returns the number of errors reported. */
int compose_program(Arena *arena, DiagEngine *dx, Program *prog);

/* Lookup helpers for the driver. NULL when absent. */
Algorithm *program_find_algorithm(const Program *prog, const char *name);

/* Edit distance for "did you mean" suggestions (bounded, case-sensitive). */
int front_edit_distance(const char *a, const char *b);

#endif
