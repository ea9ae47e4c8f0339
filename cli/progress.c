/*
 * cli/progress.c — the progress line of long dispatches: "workgroups done of
 * total, rate, time left" on stderr, redrawn in place a few times a second,
 * once a dispatch has run for about a second and only when stderr is a
 * terminal (so logs, pipes and the tests' captured output never see it).
 * `--quiet` turns it off.  It reads the simulator's per-workgroup progress
 * hook and never changes what the run computes or prints on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

#define PROGRESS_AFTER_SECONDS 1.0   /* a shorter dispatch shows nothing */
#define PROGRESS_EVERY_SECONDS 0.25  /* redraw interval */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress_done(void *user, uint64_t done, uint64_t total)
{
    cli_progress *p = user;
    double t = now_seconds();
    if (!__atomic_load_n(&p->started, __ATOMIC_ACQUIRE)) {
        /* the clock starts at the first finished workgroup: compiling is not part of the dispatch */
        pthread_mutex_lock(&p->lock);
        if (!p->started) {
            p->start = t;
            p->start_done = done;
            __atomic_store_n(&p->started, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&p->lock);
        return;
    }
    if (t - p->start < p->after || t - p->last < PROGRESS_EVERY_SECONDS)
        return;
    /* called from several host threads at once: one draws, the others go on */
    if (pthread_mutex_trylock(&p->lock) != 0)
        return;
    if (t - p->last >= PROGRESS_EVERY_SECONDS) {
        p->last = t;
        double elapsed = t - p->start;
        double rate = elapsed > 0 && done > p->start_done ? (double)(done - p->start_done) / elapsed : 0;
        double left = rate > 0 ? (double)(total - done) / rate : 0;
        fprintf(stderr, "\r  workgroups %llu of %llu (%.0f%%), %.0f per second, about %.0f s left\033[K",
                (unsigned long long)done, (unsigned long long)total, total ? 100.0 * (double)done / (double)total : 0,
                rate, left);
        fflush(stderr);
        p->drawn = 1;
    }
    pthread_mutex_unlock(&p->lock);
}

const sim_progress *cli_progress_start(cli_progress *p, int quiet)
{
    p->start = 0;
    p->start_done = 0;
    p->started = 0;
    p->last = 0;
    p->drawn = 0;
    p->after = PROGRESS_AFTER_SECONDS;
    /* the tests force the line on a pseudo-terminal without waiting a second */
    const char *after = getenv("WAVELAB_PROGRESS_AFTER");
    if (after && *after)
        p->after = atof(after);
    p->hook.done = progress_done;
    p->hook.user = p;
    pthread_mutex_init(&p->lock, NULL);
    p->active = !quiet && isatty(STDERR_FILENO);
    return p->active ? &p->hook : NULL;
}

void cli_progress_end(cli_progress *p)
{
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pthread_mutex_destroy(&p->lock);
}
