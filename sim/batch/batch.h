/* SPDX-License-Identifier: Apache-2.0 */
/* batch.h — many independent runs in one process, on OpenMP threads: each
 * job copies its scenario, applies its values, and owns its run (engine,
 * RNG streams); nothing mutable is shared, so results do not depend on the
 * thread count. Used by `wanka sweep` and `wanka check`. Never prints. */
#ifndef WK_BATCH_H
#define WK_BATCH_H

#include <stddef.h>

#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "models/run/run.h"
#include "sim/trace/summary.h"

/* A value put at a key path of the job's copy of the scenario. */
typedef struct WkBatchPut {
    const char *path;     /* dotted key path, as wk_compose_put */
    const WkNode *value;  /* borrowed */
} WkBatchPut;

typedef struct WkBatchJob {
    /* input, borrowed until wk_batch_run returns */
    const WkDoc *base;       /* the scenario (read only; each job runs on its own copy) */
    const WkBatchPut *puts;  /* applied to the copy in order */
    size_t nputs;
    WkRunOpts opts;          /* seed, scheduler, sets recorded in the trace; progress is ignored;
                                opts.interrupt (may be NULL) non-zero: the job stops at its next
                                event, or does not start, and writes no trace */
    const char *trace;       /* write the trace here (atomically); NULL: no trace */
    int prepare_only;        /* 1: read and check the scenario, do not simulate */
    /* output */
    int rc;                  /* 0, or the negative WK_E_* code of the job's first error */
    WkError err;             /* that error */
    WkSummary sum;           /* the summary when rc == 0 and !prepare_only */
    int interrupted;         /* 1: stopped or never started on opts.interrupt (rc 0, no
                                summary, no trace): neither done nor failed */
} WkBatchJob;

/** Called after each job, serialized (never two at once), from the thread
 * that ran it: done jobs so far, how many failed, and the total. */
typedef void (*WkBatchProgressFn)(void *user, size_t done, size_t failed, size_t total);

/** Run jobs[0..n) on `threads` threads (0: OpenMP's default; 1, or a build
 * without OpenMP: in order on the calling thread), handing jobs out one at a
 * time as threads free up (long jobs do not hold up the rest). A job's
 * failure is recorded in the job; the others go on. Traces are written one
 * at a time (the HDF5 library is not thread-safe). progress may be NULL.
 * Interrupted jobs (opts.interrupt) are not counted as failed.
 * Returns the number of failed jobs. */
size_t wk_batch_run(WkBatchJob *jobs, size_t n, int threads, WkBatchProgressFn progress, void *user);

/* Fill job i into *j (zeroed; its input borrowed until take) for
 * wk_batch_run_each. Returns 0, or a negative WK_E_* code with j->err
 * filled: the job then fails without running. */
typedef int (*WkBatchMakeFn)(void *user, size_t i, WkBatchJob *j);

/* Take job i's outcome from *j (and release what make allocated for it);
 * called from the thread that ran it, for each i once. */
typedef void (*WkBatchTakeFn)(void *user, size_t i, const WkBatchJob *j);

/** Like wk_batch_run over n jobs, but each is made just before it runs and
 * taken right after, on the thread that runs it: the jobs in memory at any
 * time are one per thread, whatever n is (a sweep of a million points
 * does not hold a million jobs). Returns the number of failed jobs. */
size_t wk_batch_run_each(size_t n, int threads, WkBatchMakeFn make, WkBatchTakeFn take, void *user,
                         WkBatchProgressFn progress, void *progress_user);

/** Threads wk_batch_run(…, 0, …) would use: OpenMP's default, 1 without OpenMP. */
int wk_batch_default_threads(void);

#endif
