/* progress.c - the status line of long work on a terminal; see progress.h.
 *
 * One thread draws the line while a piece of work is under way; everything
 * that reaches the terminal through this file (the line, its erasing, the
 * diagnostics passed on by progress_stream) is written under one mutex, so
 * a diagnostic never lands in the middle of the line. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "driver/progress.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* "\r" back to the start of the line, ESC [ K clears it to its end */
#define ERASE_LINE "\r\033[K"

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* wakes the drawing thread early: end */
    int enabled;             /* -1 undecided, 0 no terminal, 1 show */
    pthread_t thread;
    int have_thread;         /* between progress_begin and progress_end */
    int stop;                /* the thread is to return */
    int paused;              /* erased until the next progress_step */
    int shown;               /* the line is on the terminal */
    struct timespec t0;      /* the first progress_begin: the command's start */
    int have_t0;
    double delay_ms;         /* PROGRESS_DELAY_MS or COLLC_PROGRESS_DELAY */
    char cmd[32], what[96], step[128];
    FILE *stream;            /* progress_stream's, made once */
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .enabled = -1};

/* Is standard error a terminal that understands ESC [ K? Decided once (the
 * condition variable's clock is set up with it). */
static int enabled(void) {
    if (P.enabled < 0) {
        const char *term = getenv("TERM");
        P.enabled = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
        /* seconds, as git reads GIT_PROGRESS_DELAY; anything else keeps the
         * default */
        const char *delay = getenv("COLLC_PROGRESS_DELAY");
        char *end;
        double s = delay && *delay ? strtod(delay, &end) : -1;
        P.delay_ms = delay && *delay && *end == 0 && s >= 0 && s <= 3600 ? s * 1000 : PROGRESS_DELAY_MS;
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&P.cv, &ca);
        pthread_condattr_destroy(&ca);
    }
    return P.enabled;
}

static double seconds_since(const struct timespec *t) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) * 1e-9;
}

/* write(2) all of it; a terminal that has gone away is not an error here. */
static void put(const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

/* The following two are called with P.mu held. */
static void erase(void) {
    if (!P.shown) return;
    put(ERASE_LINE, sizeof ERASE_LINE - 1);
    P.shown = 0;
}

static void draw(void) {
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    char line[400];
    int n = snprintf(line, sizeof line, ERASE_LINE "collc %s: %s%s%s, %.0f s", P.cmd, P.what,
                     P.step[0] ? ": " : "", P.step, seconds_since(&P.t0));
    if (n < 0) return;
    /* one column short of the width: a line that wraps cannot be erased */
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    size_t max = sizeof ERASE_LINE - 1 + (size_t)(cols > 1 ? cols - 1 : 1);
    put(line, len < max ? len : max);
    P.shown = 1;
}

static void *drawer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&P.mu);
    while (!P.stop) {
        double t = seconds_since(&P.t0);
        if (!P.paused && t * 1000 >= P.delay_ms) draw();
        /* the next tick, or the moment the delay is over */
        double wait_ms = t * 1000 < P.delay_ms ? P.delay_ms - t * 1000 : PROGRESS_TICK_MS;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        long long ns = (long long)until.tv_nsec + (long long)(wait_ms * 1e6);
        until.tv_sec += (time_t)(ns / 1000000000);
        until.tv_nsec = (long)(ns % 1000000000);
        pthread_cond_timedwait(&P.cv, &P.mu, &until);
    }
    erase();
    pthread_mutex_unlock(&P.mu);
    return NULL;
}

void progress_begin(const char *cmd, const char *what) {
    if (!enabled()) return;
    /* a running thread draws the new piece of work (a sweep begins one per
     * value: no thread per piece) */
    pthread_mutex_lock(&P.mu);
    snprintf(P.cmd, sizeof P.cmd, "%s", cmd);
    snprintf(P.what, sizeof P.what, "%s", what);
    P.step[0] = 0;
    P.paused = 0;
    P.stop = 0;
    if (!P.have_t0) {
        clock_gettime(CLOCK_MONOTONIC, &P.t0);
        P.have_t0 = 1;
    }
    pthread_mutex_unlock(&P.mu);
    /* Without a thread there is no line; the work goes on all the same. */
    if (!P.have_thread) P.have_thread = pthread_create(&P.thread, NULL, drawer, NULL) == 0;
}

/* Sets the step; a named phase ("simulating") is drawn at once once the
 * delay is over, so a phase shorter than a tick still shows, while the
 * frequent updates of a sweep (progress_verify) wait for the next tick. */
static void set_step(int draw_now, const char *fmt, va_list ap) {
    if (!P.have_thread) return;
    pthread_mutex_lock(&P.mu);
    vsnprintf(P.step, sizeof P.step, fmt, ap);
    P.paused = 0;
    if (draw_now && seconds_since(&P.t0) * 1000 >= P.delay_ms) draw();
    pthread_mutex_unlock(&P.mu);
}

void progress_step(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_step(1, fmt, ap);
    va_end(ap);
}

static void sweep_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sweep_step(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_step(0, fmt, ap);
    va_end(ap);
}

void progress_pause(void) {
    if (!P.have_thread) return;
    pthread_mutex_lock(&P.mu);
    P.paused = 1;
    erase();
    pthread_mutex_unlock(&P.mu);
}

void progress_end(void) {
    if (!P.have_thread) return;
    pthread_mutex_lock(&P.mu);
    P.stop = 1;
    pthread_cond_signal(&P.cv);
    pthread_mutex_unlock(&P.mu);
    pthread_join(P.thread, NULL);
    P.have_thread = 0;
}

/* progress_stream's write: erase the line, then pass the text on; the line
 * stays away until the work's next step, so that it never comes back
 * between a diagnostic and its notes or the error count. */
static ssize_t stream_write(void *cookie, const char *buf, size_t n) {
    (void)cookie;
    pthread_mutex_lock(&P.mu);
    erase();
    P.paused = 1;
    put(buf, n);
    pthread_mutex_unlock(&P.mu);
    return (ssize_t)n;
}

FILE *progress_stream(void) {
    if (!enabled()) return stderr;
    if (!P.stream) {
        fflush(stderr);
        P.stream = fopencookie(NULL, "w", (cookie_io_functions_t){.write = stream_write});
        if (!P.stream) return stderr;
        /* whole lines: the line is never redrawn inside a diagnostic */
        setvbuf(P.stream, NULL, _IOLBF, BUFSIZ);
    }
    return P.stream;
}

void progress_verify(void *ctx, size_t done, size_t total, int64_t N) {
    (void)ctx;
    if (done < total) sweep_step("N = %lld (%zu of %zu)", (long long)N, done + 1, total);
    else progress_pause();
}
