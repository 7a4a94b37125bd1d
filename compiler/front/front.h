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

/* What reads one input file of a format into *prog (parse_source for .coll;
 * the rows of driver/formats.def): the file's text is that of `file_id` in
 * diag_sources(dx); errors go through dx. Returns the number of errors. */
typedef int InputReadFn(Arena *arena, DiagEngine *dx, uint32_t file_id, Program *prog);
/* How surely `text` is a file of a format: 0 not at all, 1 it may be (any
 * text may be .coll), 2 it is (its own signature, such as an XML root
 * element). */
typedef int InputSniffFn(const char *text, size_t len);
/* What checks the files given that were read in one format, together
 * (the XML of GPU executors: the size ranges of the algorithms an executor
 * chooses from):
 * `files` are the ids of those that read without an error, in the order
 * given. */
typedef void InputGroupFn(DiagEngine *dx, const uint32_t *files, int nfiles);
/* The .coll sniffer: 1 for any text (the format of last resort). */
int parse_sniff(const char *text, size_t len);
/* The .coll group check: none beyond sema's over the whole program. */
void parse_group(DiagEngine *dx, const uint32_t *files, int nfiles);

/* 1 when `s` is a name the language accepts for an algorithm, a buffer or
 * a variable: one identifier, not a keyword (such as `step`). */
int parse_is_name(Arena *arena, const char *s);

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

#endif
