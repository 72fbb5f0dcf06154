/* SPDX-License-Identifier: Apache-2.0 */
/* queue.h — what the scheduling policies share: a queue of waiting jobs kept
 * sorted by (key, submit time, job id) — or, for policies that look for jobs
 * by GPU count, one list per count with remaining estimates (WkFitList,
 * queue_fit.c) —, a set of running jobs with their start times, a growable
 * placement buffer, and the common shape of a queue policy (WkQueuePolicy
 * with its WkQueueRules) whose callbacks serve in a policy's WkSchedOps, so a
 * policy file holds only its own rule. */
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
    uint32_t gone; /* 1: a tombstone in a WkFitList (the job left); 0 when pushed */
} WkQueueItem;

/** 1 when a comes before b in queue order (key, submit, job). */
static inline int wk_queue_before(const WkQueueItem *a, const WkQueueItem *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    if (a->submit != b->submit)
        return a->submit < b->submit;
    return a->job < b->job;
}

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

/** Position of the item equal to x (key, submit, job) in q, or q->n when
 * absent. O(log n). */
size_t wk_queue_find(const WkJobQueue *q, const WkQueueItem *x);

/* One GPU count's waiting jobs in queue order with their remaining-time
 * estimates (queue_fit.c): a sorted array in which a job that leaves stays
 * as a tombstone (item.gone) until tombstones outnumber the live jobs, over
 * a min-tree of the estimates. Push at the back, delete and "the first job
 * after x expected to end within s" are O(log n) (amortized: compaction);
 * a push into the middle (a job back after an incident) is O(n). */
typedef struct WkFitList {
    WkQueueItem *it; /* owned: [n] slots in queue order, tombstones included */
    double *tree;    /* owned: [2 width] min of the live estimates; leaf width + i is slot i's
                        (INFINITY: tombstone or unused) */
    size_t n, live, cap, width; /* slots, live jobs, capacity (= width, a power of two) */
} WkFitList;

/** Add x (copied, gone cleared) at its place in the order with estimate
 * rem_s (seconds; NaN and INFINITY count as the largest finite value).
 * Returns 0 or WK_E_NOMEM (list unchanged). */
int wk_fit_push(WkFitList *l, const WkQueueItem *x, double rem_s);

/** Remove the live job equal to x (key, submit, job). Returns 1, or 0 when
 * absent. */
int wk_fit_del(WkFitList *l, const WkQueueItem *x);

/** The first live job after `after` in queue order (NULL: from the front)
 * whose estimate is at most within_s (INFINITY: any), or NULL. Valid until
 * the list changes. O(log n). */
const WkQueueItem *wk_fit_next(const WkFitList *l, const WkQueueItem *after, double within_s);

/* A key that changes with time, for wk_fit_rekey. */
typedef struct WkFitKey {
    /* the key now of a job of `gpus` GPUs (the queue item gives its submit time) */
    double (*key)(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x, uint32_t gpus);
    /* 1 when x's key no longer changes with time; settled jobs must come
     * first in their list (slurm: an age factor at its cap). NULL = never. */
    int (*settled)(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x);
} WkFitKey;

/** Set every job's key to k->key(priv, ctx, item, gpus) now and restore the
 * order (no sort when it holds). Keys are recomputed from the back and stop
 * at the first job that is settled with its key already set, so a
 * recalculation costs O(jobs not settled) when the order holds. Returns 0
 * or WK_E_NOMEM (keys set, order not restored). */
int wk_fit_rekey(WkFitList *l, const WkFitKey *k, const void *priv, const WkSchedCtx *ctx, uint32_t gpus);

/** Release the storage; the list is empty and reusable after. */
void wk_fit_fini(WkFitList *l);

/* Waiting jobs by GPU count: one WkFitList per distinct count, each in the
 * queue's order, so "the next waiting job that fits in k GPUs" (and "...
 * that ends within s") costs one O(log n) search per count <= k instead of
 * a scan of the whole queue. */
typedef struct WkSizeIndex {
    uint32_t *gpus;  /* owned: the distinct counts, ascending */
    WkFitList *by;   /* owned: [n] the waiting jobs asking for gpus[i] */
    uint8_t *full;   /* owned: [n] EASY pass scratch: placement of gpus[i] failed since the last start */
    size_t n, cap;
    size_t live;     /* waiting jobs in all lists */
} WkSizeIndex;

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

/** Free GPUs that hold job (wk_sched_job_fits_gpu): wk_sched_free_gpus,
 * O(1), when the job fits every GPU; else a scan of the cluster's GPUs. */
uint32_t wk_queue_free_fit(const WkSchedCtx *ctx, uint32_t job);

/** How many of running job victim's GPUs would hold job once freed: all of
 * them when job fits every GPU (O(1)); else a test per GPU. */
uint32_t wk_queue_victim_fit(const WkSchedCtx *ctx, uint32_t job, uint32_t victim);

/** Reason text and check every policy applies at submit: a job asking for
 * more GPUs than the cluster has, or than are usable now, can never start.
 * Returns that reason (static), or NULL when the job may fit. */
const char *wk_queue_never_fits(const WkSchedCtx *ctx, uint32_t job);

/** Read the options the run also reads but does not expose to policies:
 * `placement` (into *how; WK_PLACE_EXCLUSIVE when absent) and
 * `preemption_cost` (into *cost_ns; 10 min when absent, the run's default).
 * params may be NULL. Either out pointer may be NULL. Returns 0 or the
 * reader's positioned error. */
int wk_queue_common_opts(const WkNode *params, WkPlacement *how, WkTime *cost_ns, WkError *err);

/* ---- the common shape of a queue policy ---- */

/* What makes one queue policy differ from another: static in the policy. */
typedef struct WkQueueRules {
    const char *name;        /* the policy's name, for messages */
    const char *const *keys; /* its known `scheduler:` keys, WK_SCHED_COMMON_KEYS first,
                                NULL-terminated; NULL = the common keys only */
    /* Queue order of job, smaller first, ties by (submit time, job id).
     * NULL = 0 for every job: arrival order. */
    double (*key)(const void *priv, const WkSchedCtx *ctx, uint32_t job);
    /* With a size index: the same key from a waiting job's item and GPU
     * count, and when it stops changing, for wk_queue_rekey (no look-up per
     * job; only the jobs not settled). NULL = key, never settled. */
    WkFitKey rekey;
    /* Place job's n GPUs into out[0..n): 0, WK_E_NOROOM, or another negative
     * code. NULL = the scenario's `placement:` (wk_sched_place). */
    int (*place)(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t n, uint32_t *out);
    /* The queue head job does not fit: make room for it (preempt). Returns 1
     * when it now fits, 0 when it waits, or a negative code with err filled.
     * NULL = it waits. */
    int (*make_room)(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err);
    /* Start what may start now, after a submit, release, incident or tick.
     * NULL = wk_queue_drain. */
    int (*pass)(void *priv, WkSchedCtx *ctx, WkError *err);
    int track; /* 1: the jobs it starts are kept in `run` with their start times */
    int front; /* 1: jobs hit by an incident go to the very front, in the given order
                  (else back by key, to their arrival position) */
    int by_size; /* 1: keep the waiting jobs also by GPU count (wk_queue_next_fit) */
    int easy;    /* 1: the pass calls wk_queue_easy_pass: the jobs are kept by GPU count with
                    their remaining estimates, and `place` (NULL or not) must depend only on
                    the GPU count and the free GPUs */
} WkQueueRules;

/* The first member of a queue policy's private state, so that the
 * wk_queue_* callbacks below can serve in its WkSchedOps (priv is then a
 * WkQueuePolicy). */
typedef struct WkQueuePolicy {
    const WkQueueRules *rules; /* borrowed (static) */
    WkJobQueue q;              /* waiting jobs in the rules' order (unused with a size index) */
    WkRunSet run;              /* jobs it started (rules->track) */
    WkPlaceBuf buf;            /* placement of the job being started */
    WkSizeIndex fit;           /* with rules->by_size or easy: the waiting jobs by GPU count, which
                                  is then the queue (q stays empty) */
    uint64_t waiting_gpus;     /* GPUs the waiting jobs ask for */
    double front_key;          /* key of the last job put at the very front (rules->front) */
} WkQueuePolicy;

/* In a policy whose state T extends WkQueuePolicy: check that its member
 * `base` comes first. */
#define WK_QUEUE_POLICY_FIRST(T) \
    _Static_assert(offsetof(T, base) == 0, #T ": the WkQueuePolicy must be the first member")

/** Set p's rules (borrowed) and check params (borrowed, NULL when the
 * scenario gives only a name) against rules->keys. Returns 0 or the
 * positioned "unknown key" error. */
int wk_queue_policy_init(WkQueuePolicy *p, const WkQueueRules *rules, const WkNode *params, WkError *err);

/** Release p's queue, run set and buffer (priv: a WkQueuePolicy); serves as
 * WkSchedOps.fini of a policy with no other storage. */
void wk_queue_policy_fini(void *priv);

/** Jobs waiting (priv: a WkQueuePolicy); serves as WkSchedOps.queued. */
size_t wk_queue_queued(const void *priv);

/** Queue job by rules->key. Returns 0 or WK_E_NOMEM with err filled. */
int wk_queue_enqueue(WkQueuePolicy *p, const WkSchedCtx *ctx, uint32_t job, WkError *err);

/** The first waiting job in queue order (valid until the queue changes), or
 * NULL. O(1); O(counts x log n) with a size index. */
const WkQueueItem *wk_queue_head(const WkQueuePolicy *p);

/** Remove the i-th waiting job (i < wk_queue_queued(p)), keeping the order
 * (with a size index O(i x counts x log n): meant for the head). */
void wk_queue_dequeue(WkQueuePolicy *p, const WkSchedCtx *ctx, size_t i);

/** With a size index (rules->by_size or easy): the first waiting job after `after` in queue order
 * (NULL: from the head) that asks for at most cap GPUs, or NULL; the pointer is valid until
 * the queue changes (copy the item to go on from it). O(counts x log n). */
const WkQueueItem *wk_queue_next_fit(const WkQueuePolicy *p, const WkQueueItem *after, uint64_t cap);

/** Remove the waiting job equal to x (a copy of its item); no-op when absent. */
void wk_queue_dequeue_item(WkQueuePolicy *p, const WkSchedCtx *ctx, const WkQueueItem *x);

/** A job arrives: reject it when it can never fit (wk_queue_never_fits),
 * else queue it. Returns 1 when queued, 0 when rejected, or a negative code
 * with err filled. */
int wk_queue_admit(WkQueuePolicy *p, WkSchedCtx *ctx, uint32_t job, WkError *err);

/** Place job by rules->place into p->buf and start it (kept in p->run when
 * rules->track). Returns 0; WK_E_NOROOM when it does not fit now (nothing
 * changed, err untouched); or another negative code with err filled. */
int wk_queue_policy_start(WkQueuePolicy *p, WkSchedCtx *ctx, uint32_t job, WkError *err);

/** Start the queue head while it fits, asking rules->make_room when it does
 * not; a head that still does not fit blocks the rest. Returns 0 or a
 * negative code with err filled (never WK_E_NOROOM). */
int wk_queue_drain(WkQueuePolicy *p, WkSchedCtx *ctx, WkError *err);

/** Callbacks for a policy's WkSchedOps (priv: a WkQueuePolicy), each
 * returning 0 or a negative code with err filled. on_submit: admit, then
 * pass. pass (on_release, on_tick): rules->pass. on_incident: the jobs leave
 * `run` and are queued again (by key, or at the very front), then pass. */
int wk_queue_on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err);
int wk_queue_pass(void *priv, WkSchedCtx *ctx, WkError *err);
/* on_submit of a policy whose pass only starts what fits now (backfill,
 * slurm): admit, then pass only when the newcomer is alone or could start
 * now (a job that cannot start changes nothing that could). */
int wk_queue_on_submit_if_fits(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err);
int wk_queue_on_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err);

/* ---- EASY backfilling (backfill, slurm) ---- */

/* Scratch of the shadow computation (owned storage; zero-initialised). */
typedef struct WkEasy {
    struct WkEasyEnd *end; /* running jobs by expected end */
    size_t cap;
} WkEasy;

/** EASY backfilling over p's queue (p->rules->track must be set: the
 * running set gives the expected ends). Start the head and the jobs after
 * it while they fit (wk_queue_drain); when the head does not fit it gets a
 * reservation at the shadow time (the earliest expected end at which the
 * free GPUs reach its request, from wk_sched_job_remaining_s), and every
 * later job that fits now starts if it is expected to end by then or needs
 * no more than the GPUs the head will not need then (which it uses up).
 * Returns 0 or a negative code with err filled. */
int wk_queue_easy_pass(WkQueuePolicy *p, WkEasy *e, WkSchedCtx *ctx, WkError *err);

/** Release e's storage. */
void wk_queue_easy_fini(WkEasy *e);

/** Recompute every waiting job's key (rules->key, now) and restore the
 * queue order: for keys that change with time (slurm's age factor). With a
 * size index the keys are set there, per GPU count, and the queue is their
 * merge. Returns 0 or WK_E_NOMEM with err filled. */
int wk_queue_rekey(WkQueuePolicy *p, const WkSchedCtx *ctx, WkError *err);

/* The WkSchedOps members every queue policy takes from here, in its table
 * after its own: const WkSchedOps x = {..., .fini = fini, WK_QUEUE_POLICY_OPS}; */
#define WK_QUEUE_POLICY_OPS .on_release = wk_queue_pass, .queued = wk_queue_queued, .on_incident = wk_queue_on_incident

#endif
