/* progress.h - one status line on the terminal for work that takes a while
 * (verify over many N, the simulation of a large message, a long
 * compile or run):
 *
 *   collc verify: ring_allreduce: N = 128 (21 of 23), 3 s
 *
 * Shown on standard error, only when standard error is a terminal, once the
 * command has been at work for PROGRESS_DELAY_MS (or COLLC_PROGRESS_DELAY
 * seconds, like git's GIT_PROGRESS_DELAY; 0 shows it at once, which is how
 * the tests see it without depending on the machine's speed), redrawn by a
 * thread a few times a second and at once when the step changes; erased before a diagnostic is written (the session's
 * diagnostics go through progress_stream()) and when the work ends or
 * pauses. Output that is captured (a pipe, a file, the tests) never holds
 * it. The commands call it; nothing below the driver knows of it. */
#ifndef COLLC_PROGRESS_H
#define COLLC_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How long a command works before the line appears, and how often it is
 * redrawn. */
#define PROGRESS_DELAY_MS 1000
#define PROGRESS_TICK_MS 250

/* Starts a piece of work: "verify", "ring_allreduce". The line says
 * "collc CMD: WHAT[: STEP], T s". */
void progress_begin(const char *cmd, const char *what);
/* What the work is doing now ("N = 64 (12 of 30)", "simulating"); printf
 * format. Shows the line again after progress_pause. */
void progress_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Erases the line until the next progress_step: the caller writes to
 * standard output next. */
void progress_pause(void);
/* Ends the piece of work: the line is erased. Does nothing without one. */
void progress_end(void);

/* The stream the session's diagnostics write to: stderr, or, when the line
 * can be shown, a stream that erases it before passing their text on to
 * standard error. */
FILE *progress_stream(void);

/* A VerifyOptions.progress: "N = 64 (12 of 30)" before each N, a pause
 * after the last (the summary line follows on standard output). */
void progress_verify(void *ctx, size_t done, size_t total, int64_t N);

#endif
