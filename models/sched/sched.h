/* SPDX-License-Identifier: Apache-2.0 */
/* sched.h — the scheduler plugin interface and the calls a policy may make.
 * A policy is a const WkSchedOps with a private state block the framework
 * allocates; it sees a read-only view of the cluster and jobs through a
 * WkSchedCtx and acts only through wk_sched_start / wk_sched_preempt /
 * wk_sched_reject, so every policy is a drop-in replacement. Policy API
 * only: the host side (the context's table, instances) is in host.h, and the
 * run driver (models/run) implements it. Registry: models/sched/registry.c. */
#ifndef WK_SCHED_H
#define WK_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "models/topo/cluster.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/core/time.h"

#define WK_SCHED_ABI 1

/* Keys every policy accepts in its `scheduler:` map (the run reads them):
 * name, placement (exclusive | first-fit | pack | spread | round-robin), preemption_cost
 * (a duration: checkpoint + restart paid by a preempted job when it resumes),
 * tick (period of on_tick calls). Put this first in a policy's known-keys list. */
#define WK_SCHED_COMMON_KEYS "name", "placement", "preemption_cost", "tick"

typedef struct WkSchedCtx WkSchedCtx;

typedef enum WkPlacement {
    WK_PLACE_EXCLUSIVE = 0, /* the default: whole idle nodes (node order) for a job of a
                               node's GPUs or more, the remainder and smaller jobs best fit
                               in one node; tightest leaf block, then pod */
    WK_PLACE_FIRST_FIT,     /* GPU-granular: the lowest-numbered free GPUs */
    WK_PLACE_PACK,          /* GPU-granular: fewest nodes, then leaves and pods: tightest fit first */
    WK_PLACE_SPREAD,        /* GPU-granular: across as many pods and nodes as possible */
    WK_PLACE_ROUND_ROBIN,   /* GPU-granular: next fit: first fit starting after the last placement */
} WkPlacement;

typedef struct WkSchedOps {
    int abi;                 /* WK_SCHED_ABI; fields are only appended */
    const char *name;        /* `scheduler:` value in a scenario */
    const char *description; /* shown by `wanka list schedulers` */
    size_t priv_size;        /* bytes of private state, zeroed by the framework */
    /* Read parameters (params: the `scheduler:` map, or NULL when the
     * scenario gives only a name; unknown keys are the policy's to refuse). */
    int (*init)(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err);
    /* A job arrived: queue it, start it, or reject it. */
    int (*on_submit)(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err);
    /* GPUs were freed (a job ended): start what now fits. */
    int (*on_release)(void *priv, WkSchedCtx *ctx, WkError *err);
    /* Jobs waiting in the policy's queue. */
    size_t (*queued)(const void *priv);
    void (*fini)(void *priv); /* optional */
    /* Optional: called every `tick` of simulated time while jobs remain. */
    int (*on_tick)(void *priv, WkSchedCtx *ctx, WkError *err);
    /* Optional: GPUs changed health (failure, repair, throttling). Jobs that
     * were hit are already stopped and back in QUEUED state; the policy
     * decides where and when they restart (it receives no on_submit for them:
     * it must queue them here). jobs[0..njobs) lists them. */
    int (*on_incident)(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err);
} WkSchedOps;

/* --- registry (models/sched/registry.c) --- */

/** NULL-terminated table of the built-in policies (static). Look a name up
 * with wk_sched_host_lookup (host.h), which also checks the ABI. */
const WkSchedOps *const *wk_sched_registry(void);

/* --- read-only view (implemented by the run driver) --- */

/** The cluster's shape (borrowed). */
const WkCluster *wk_sched_cluster(const WkSchedCtx *ctx);
/** Current simulated time. */
WkTime wk_sched_now(const WkSchedCtx *ctx);
/** The run's scenario seed (valid from init on): a policy that draws random
 * numbers creates its own named stream, wk_rng_new(seed, "sched.NAME"). */
uint64_t wk_sched_seed(const WkSchedCtx *ctx);
/** GPUs not allocated to any job. */
uint32_t wk_sched_free_gpus(const WkSchedCtx *ctx);
/** 1 when gpu is free. */
int wk_sched_gpu_is_free(const WkSchedCtx *ctx, uint32_t gpu);
/** GPUs job asks for. */
uint32_t wk_sched_job_gpus(const WkSchedCtx *ctx, uint32_t job);
/** Submit time of job. */
WkTime wk_sched_job_submit(const WkSchedCtx *ctx, uint32_t job);
/** `priority` of the job (higher runs first in priority policies; default 0). */
int wk_sched_job_priority(const WkSchedCtx *ctx, uint32_t job);
/** Expected run time at nominal speed on the cluster's first SKU, s: the
 * duration of a plain job; iterations x nominal iteration time of a model
 * job. What a policy may know in advance (SJF, backfill). */
double wk_sched_job_estimate_s(const WkSchedCtx *ctx, uint32_t job);
/** Remaining expected run time, s (estimate minus the work already done). */
double wk_sched_job_remaining_s(const WkSchedCtx *ctx, uint32_t job);
/** GPU-seconds of service the job has received so far (LAS). */
double wk_sched_job_attained_gpu_s(const WkSchedCtx *ctx, uint32_t job);
/** 1 while the job runs (holds GPUs). */
int wk_sched_job_running(const WkSchedCtx *ctx, uint32_t job);
/** 1 when wk_sched_preempt would accept the job now: running, not hung by
 * a failure awaiting detection, not waiting in place for a repair. */
int wk_sched_job_preemptible(const WkSchedCtx *ctx, uint32_t job);
/** The GPUs a running job holds (borrowed until it stops); *n = count. */
const uint32_t *wk_sched_job_placement(const WkSchedCtx *ctx, uint32_t job, uint32_t *n);
/** Iteration time (s) the job would have on gpus[0..n) alone, for model
 * jobs (heterogeneity-aware placement); NaN for plain jobs or when it does
 * not fit there. */
double wk_sched_job_iter_s_on(const WkSchedCtx *ctx, uint32_t job, const uint32_t *gpus, uint32_t n);
/** Free GPUs on a node / in a pod; GPU health (WkGpuHealth). */
uint32_t wk_sched_node_free(const WkSchedCtx *ctx, uint32_t node);
uint32_t wk_sched_pod_free(const WkSchedCtx *ctx, uint32_t pod);
int wk_sched_gpu_health(const WkSchedCtx *ctx, uint32_t gpu);
/** Usable GPUs (not down). */
uint32_t wk_sched_usable_gpus(const WkSchedCtx *ctx);

/* Placement: the calls below only choose GPUs (nothing is allocated until
 * wk_sched_start). "No room" is not an error: they return WK_E_NOROOM when
 * fewer than n (allowed) GPUs are free and usable, with out[0..n) then
 * unspecified; a policy waits or tries elsewhere, and never passes
 * WK_E_NOROOM on as a failure. Any other negative code (WK_E_NOMEM) is a
 * real error. n = 0 returns 0. */

/** First-fit placement: the n lowest-numbered free GPUs into out[0..n).
 * Returns 0 or WK_E_NOROOM. */
int wk_sched_first_fit(const WkSchedCtx *ctx, uint32_t n, uint32_t *out);

/** Place n GPUs by the scenario's `placement:` option into out[0..n).
 * Returns 0, WK_E_NOROOM, or WK_E_NOMEM (pack and spread use scratch). */
int wk_sched_place(const WkSchedCtx *ctx, uint32_t n, uint32_t *out);

/** Place n GPUs with an explicit strategy, optionally restricted to free
 * GPUs g with allowed(g, user) != 0 (allowed NULL = any free GPU).
 * Returns 0, WK_E_NOROOM, or WK_E_NOMEM. */
int wk_sched_place_with(const WkSchedCtx *ctx, WkPlacement how, uint32_t n, uint32_t *out,
                        int (*allowed)(uint32_t gpu, void *user), void *user);

/* --- actions --- */

/** Start job now on gpus[0..n) (borrowed; n must equal the job's request,
 * every GPU free and distinct). Returns 0, or WK_E_INTERNAL for a policy bug
 * (wrong count, busy GPU, job not waiting), or WK_E_NOMEM. */
int wk_sched_start(WkSchedCtx *ctx, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);

/** Stop a running job and put it back to QUEUED (the policy re-queues it):
 * progress is kept (checkpointed at preemption); it pays `preemption_cost`
 * when it next starts. Returns 0 or WK_E_INTERNAL (not running). */
int wk_sched_preempt(WkSchedCtx *ctx, uint32_t job, WkError *err);

/** Refuse job for good (it can never run here), with a short reason that is
 * counted in the summary. Returns 0 or WK_E_INTERNAL (job not waiting). */
int wk_sched_reject(WkSchedCtx *ctx, uint32_t job, const char *reason, WkError *err);

extern const WkSchedOps wk_sched_fifo;
extern const WkSchedOps wk_sched_priority;
extern const WkSchedOps wk_sched_sjf;
extern const WkSchedOps wk_sched_backfill;
extern const WkSchedOps wk_sched_las;
extern const WkSchedOps wk_sched_topo;
extern const WkSchedOps wk_sched_hetero;
extern const WkSchedOps wk_sched_slurm;
extern const WkSchedOps wk_sched_sci;

#endif
