/* SPDX-License-Identifier: Apache-2.0 */
/* queue.h — building blocks the scheduling policies share: a queue of waiting
 * jobs kept sorted by (key, submit time, job id), a set of running jobs with
 * their start times, and a growable placement buffer. Plain data structures:
 * they never call the scheduler context except where a ctx is passed. */
#ifndef WK_SCHED_QUEUE_H
#define WK_SCHED_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "models/sched/sched.h"
#include "sim/core/time.h"

typedef struct WkQueueItem {
    double key;    /* policy's order: smaller first (priority: -priority; sjf: GPU-s) */
    WkTime submit; /* tie-break 1: arrival time, ns */
    uint32_t job;  /* tie-break 2: job id (the run's arrival order for equal submits) */
} WkQueueItem;

/* Waiting jobs in ascending (key, submit, job) order. With a constant key it
 * is the arrival order, and a job put back (preempted, hit by a failure)
 * returns to its arrival position: the front, unless older jobs still wait. */
typedef struct WkJobQueue {
    WkQueueItem *it; /* owned; live items are it[lo .. lo + n) */
    size_t lo, n, cap;
} WkJobQueue;

/** Insert job in order. Returns 0 or WK_E_NOMEM (queue unchanged). */
int wk_queue_push(WkJobQueue *q, double key, WkTime submit, uint32_t job);

/** The i-th waiting item (0 = head); i < q->n. */
static inline const WkQueueItem *wk_queue_at(const WkJobQueue *q, size_t i) { return &q->it[q->lo + i]; }

/** Remove the i-th item (i < q->n), keeping the order. O(1) at the head. */
void wk_queue_remove(WkJobQueue *q, size_t i);

/** Release the storage; the queue is empty and reusable after. */
void wk_queue_fini(WkJobQueue *q);

/* Running jobs as the policy started them, in no particular order. The run
 * does not say which job ended on a release, so wk_queue_running_sweep drops
 * the jobs that no longer run. */
typedef struct WkRunSet {
    uint32_t *job;  /* owned */
    WkTime *since;  /* owned: when the policy last started it, ns */
    size_t n, cap;
} WkRunSet;

/** Add a job started at `since`. Returns 0 or WK_E_NOMEM. */
int wk_queue_running_add(WkRunSet *s, uint32_t job, WkTime since);

/** Drop job if present (it was preempted or stopped by an incident). */
void wk_queue_running_remove(WkRunSet *s, uint32_t job);

/** Drop every job that is no longer running (ctx borrowed). */
void wk_queue_running_sweep(WkRunSet *s, const WkSchedCtx *ctx);

/** Release the storage. */
void wk_queue_running_fini(WkRunSet *s);

/* A scratch buffer for placements. */
typedef struct WkPlaceBuf {
    uint32_t *gpus; /* owned */
    uint32_t cap;
} WkPlaceBuf;

/** Make room for n GPUs. Returns 0 or WK_E_NOMEM. */
int wk_queue_place_reserve(WkPlaceBuf *b, uint32_t n);

/** Release the storage. */
void wk_queue_place_fini(WkPlaceBuf *b);

/** Start job on gpus[0..n) (borrowed) and add it to run (may be NULL) at
 * the current time. Returns 0 or the negative code of wk_sched_start /
 * WK_E_NOMEM, with err filled. */
int wk_queue_start_on(WkSchedCtx *ctx, uint32_t job, const uint32_t *gpus, uint32_t n, WkRunSet *run,
                      WkError *err);

/** Place job by the scenario's `placement:` (wk_sched_place) into buf and
 * start it as wk_queue_start_on. Returns 0; WK_E_NOROOM when it does not fit
 * now (nothing changed, err untouched); or another negative code with err
 * filled. */
int wk_queue_start(WkSchedCtx *ctx, uint32_t job, WkPlaceBuf *buf, WkRunSet *run, WkError *err);

/** Preempt a running job (wk_sched_preempt) and drop it from run. Returns 1
 * when preempted, 0 when the job cannot be stopped now
 * (wk_sched_job_preemptible: a job hung by a failure, awaiting detection,
 * still looks running to policies), or a negative code with err filled. */
int wk_queue_preempt(WkSchedCtx *ctx, uint32_t job, WkRunSet *run, WkError *err);

/** Reason text and check every policy applies at submit: a job asking for
 * more GPUs than the cluster has, or than are usable now, can never start.
 * Returns that reason (static), or NULL when the job may fit. */
const char *wk_queue_never_fits(const WkSchedCtx *ctx, uint32_t job);

/** Read the options the run also reads but does not expose to policies:
 * `placement` (into *how; WK_PLACE_FIRST_FIT when absent) and
 * `preemption_cost` (into *cost_ns; 10 min when absent, the run's default).
 * params may be NULL. Either out pointer may be NULL. Returns 0 or the
 * reader's positioned error. */
int wk_queue_common_opts(const WkNode *params, WkPlacement *how, WkTime *cost_ns, WkError *err);

#endif
