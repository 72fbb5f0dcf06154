/* SPDX-License-Identifier: Apache-2.0 */
/* wanka/sched.h — the scheduler interface, as installed for policies built
 * outside wanka's tree (pkg-config wanka-sched) and used by the built-ins.
 * A policy is a const WkSchedOps with a private state block the framework
 * allocates; it sees a read-only view of the cluster and jobs through a
 * WkSchedCtx and acts only through wk_sched_start / wk_sched_preempt /
 * wk_sched_reject. A shared object that carries one exports
 *     const WkSchedOps *wk_sched_plugin(void);
 * (WK_SCHED_PLUGIN_SYMBOL) and is loaded with `wanka run --plugin FILE.so`.
 * The functions declared here are exported by the wanka executable.
 * Self-contained: standard headers, wanka/error.h and wanka/node.h only.
 * Guide: docs/writing-a-scheduler.md. */
#ifndef WANKA_SCHED_H
#define WANKA_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "node.h"

/* ABI of WkSchedOps. Fields are only ever appended to WkSchedOps; the
 * number goes up when a field is added, removed or changes meaning, or a
 * function below changes its signature or meaning; a function added below
 * (as wk_sched_job_kind was) leaves it unchanged, since policies built
 * before it never call it. wanka refuses a policy whose abi differs from
 * the number it was built with. */
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

/* Health of a GPU (wk_sched_gpu_health). */
typedef enum WkSchedHealth {
    WK_SCHED_GPU_UP = 0,        /* healthy, nominal clock */
    WK_SCHED_GPU_DOWN = 1,      /* failed or powered off: unusable */
    WK_SCHED_GPU_THROTTLED = 2, /* usable at a reduced clock */
} WkSchedHealth;

/* The symbol a plugin exports: a function returning its table (static
 * storage, alive while the shared object is loaded). */
#define WK_SCHED_PLUGIN_SYMBOL "wk_sched_plugin"
typedef const WkSchedOps *(*WkSchedPluginFn)(void);

/* --- read-only view (the wanka executable implements these) --- */

/** The cluster's shape: GPUs, nodes and pods are numbered from 0; a node's
 * GPUs are consecutive (wk_sched_node_first_gpu .. + wk_sched_node_gpus),
 * and a pod's nodes are consecutive (wk_sched_node_pod). */
uint32_t wk_sched_gpus(const WkSchedCtx *ctx);
uint32_t wk_sched_nodes(const WkSchedCtx *ctx);
uint32_t wk_sched_pods(const WkSchedCtx *ctx);
/** Node of a GPU (gpu < wk_sched_gpus). */
uint32_t wk_sched_gpu_node(const WkSchedCtx *ctx, uint32_t gpu);
/** Pod of a node, its first GPU and its GPU count (node < wk_sched_nodes). */
uint32_t wk_sched_node_pod(const WkSchedCtx *ctx, uint32_t node);
uint32_t wk_sched_node_first_gpu(const WkSchedCtx *ctx, uint32_t node);
uint32_t wk_sched_node_gpus(const WkSchedCtx *ctx, uint32_t node);
/** Current simulated time. */
WkTime wk_sched_now(const WkSchedCtx *ctx);
/** The run's scenario seed (valid from init on): a policy that draws random
 * numbers seeds its own generator from it, so that runs stay reproducible
 * (built-ins create the named stream wk_rng_new(seed, "sched.NAME")). */
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
 * a failure awaiting detection, not waiting in place for a repair, and not
 * an HPC job (wk_sched_job_kind: those are never preempted). */
int wk_sched_job_preemptible(const WkSchedCtx *ctx, uint32_t job);
/** The GPUs a running job holds (borrowed until it stops); *n = count. */
const uint32_t *wk_sched_job_placement(const WkSchedCtx *ctx, uint32_t job, uint32_t *n);
/** Iteration time (s) the job would have on gpus[0..n) alone, for model
 * jobs (heterogeneity-aware placement); NaN for plain jobs or when it does
 * not fit there. */
double wk_sched_job_iter_s_on(const WkSchedCtx *ctx, uint32_t job, const uint32_t *gpus, uint32_t n);
/** Free GPUs on a node / in a pod; GPU health (WkSchedHealth). */
uint32_t wk_sched_node_free(const WkSchedCtx *ctx, uint32_t node);
uint32_t wk_sched_pod_free(const WkSchedCtx *ctx, uint32_t pod);
int wk_sched_gpu_health(const WkSchedCtx *ctx, uint32_t gpu);
/** Usable GPUs (not down). */
uint32_t wk_sched_usable_gpus(const WkSchedCtx *ctx);
/** Facility power headroom now, W: the site budget (`facility:`) minus the
 * bound on the facility draw with every busy GPU at full clock (idle GPUs,
 * network and PUE included); negative while the budget caps clocks;
 * INFINITY without a budget. */
double wk_sched_power_headroom_w(const WkSchedCtx *ctx);
/** Facility power job would add at full clock, W: its GPUs x (TDP - idle)
 * x busy activity x PUE on the cluster's first SKU, under that group's cap.
 * With a budget, a start that does not fit is refused by wk_sched_start
 * with WK_E_NOROOM (`on_budget: hold`, or `cap` at the floor clocks). */
double wk_sched_job_power_w(const WkSchedCtx *ctx, uint32_t job);
/** 1 when job may wait for cheap energy (`deferrable: true` in the workload). */
int wk_sched_job_deferrable(const WkSchedCtx *ctx, uint32_t job);
/* Kind of a job (wk_sched_job_kind): the workload's `kind:`. */
typedef enum WkSchedJobKind {
    WK_SCHED_JOB_AI = 0,  /* training or a plain job: preemptible, elastic under elastic recovery */
    WK_SCHED_JOB_HPC = 1, /* a tightly coupled simulation: fixed size and duration, never preempted
                             (wk_sched_preempt refuses it), never shrunk */
} WkSchedJobKind;
/** WkSchedJobKind of job. */
int wk_sched_job_kind(const WkSchedCtx *ctx, uint32_t job);
/** Electricity price now, per MWh (facility.prices), and the series'
 * time-weighted mean over its span; NaN without a price series. */
double wk_sched_price_now(const WkSchedCtx *ctx);
double wk_sched_price_mean(const WkSchedCtx *ctx);

/* --- clocks a policy chooses per job (per-job power caps) --- */

/* What the run does when the facility budget (`facility.on_budget`) is hit
 * (wk_sched_budget_mode). */
typedef enum WkSchedBudgetMode {
    WK_SCHED_BUDGET_NONE = 0,   /* no budget */
    WK_SCHED_BUDGET_CAP = 1,    /* the run lowers every busy GPU's clock uniformly */
    WK_SCHED_BUDGET_HOLD = 2,   /* a start that does not fit at full clock waits */
    WK_SCHED_BUDGET_POLICY = 3, /* the policy chooses each job's clock to fit (wk_sched_set_job_clock);
                                   the run's uniform caps are only the backstop */
} WkSchedBudgetMode;
/** WkSchedBudgetMode of the run. */
int wk_sched_budget_mode(const WkSchedCtx *ctx);
/** Lowest SM clock factor job's GPUs may run at (the DVFS floor: the
 * lowest driver clock or the lowest settable power limit); on its
 * placement while it runs, else on the cluster's first SKU. */
double wk_sched_job_clock_floor(const WkSchedCtx *ctx, uint32_t job);
/** Facility power, W (PUE included), job's GPUs draw while it runs at SM
 * clock factor clock (clamped to [floor, its group's own cap]): idle +
 * (TDP - idle) x busy activity x g(clock), the DVFS curve of
 * docs/models.md; *idle_w (may be NULL) receives the part they draw idle,
 * so the return minus *idle_w is what the job adds to the facility. The
 * same bound the budget enforces. On its placement while it runs, else on
 * the cluster's first SKU. */
double wk_sched_job_power_at_w(const WkSchedCtx *ctx, uint32_t job, double clock, double *idle_w);
/** Run time of job at SM clock factor clock relative to full clock (>= 1):
 * the operator model for model jobs (compute-bound operators stretch by
 * 1/clock, memory-bound ones and communication do not), compute_share for
 * plain jobs; in its current environment while it runs, else alone on the
 * cluster's first GPUs. NaN when the model cannot be evaluated. */
double wk_sched_job_time_factor(const WkSchedCtx *ctx, uint32_t job, double clock);
/** Choose job's SM clock factor, in (0, 1] (1 = no chosen clock; a clock
 * below its floor runs at the floor). A running job is re-rated now; a
 * waiting one gets it when it starts (and keeps it across preemption).
 * Its GPUs run at the lowest of this clock, their group's cap and the
 * run's uniform site clock (the budget's backstop). Returns 0, or
 * WK_E_INTERNAL for a clock outside (0, 1] or a job that neither waits nor
 * runs, or WK_E_NOMEM. */
int wk_sched_set_job_clock(WkSchedCtx *ctx, uint32_t job, double clock, WkError *err);

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

/** 1 when job fits on gpu: the memory it needs per GPU (model jobs, by the
 * performance model) is within the memory of gpu's SKU; always 1 for plain
 * jobs and on a cluster whose node groups all have the same GPU memory. On
 * a cluster of several SKUs (`cluster.groups`) a model job may fit some
 * groups only: wk_sched_start refuses a placement on a GPU where it does
 * not fit (a policy bug, see there). O(1). */
int wk_sched_job_fits_gpu(const WkSchedCtx *ctx, uint32_t job, uint32_t gpu);

/** The scenario's `placement:` option (WK_PLACE_EXCLUSIVE when absent):
 * the strategy wk_sched_place uses, for wk_sched_place_job. */
WkPlacement wk_sched_placement(const WkSchedCtx *ctx);

/** Place job's wk_sched_job_gpus GPUs with strategy how into out, only on
 * free GPUs where it fits (wk_sched_job_fits_gpu) and, when allowed is not
 * NULL, allowed(g, user) != 0: what a policy calls to place a job on a
 * cluster of several SKUs. When the job fits every GPU it is exactly
 * wk_sched_place_with(ctx, how, n, out, allowed, user). Returns 0,
 * WK_E_NOROOM (not enough such GPUs free now: the job waits), or
 * WK_E_NOMEM. */
int wk_sched_place_job(const WkSchedCtx *ctx, uint32_t job, WkPlacement how, uint32_t *out,
                       int (*allowed)(uint32_t gpu, void *user), void *user);

/* --- actions --- */

/** Start job now on gpus[0..n) (borrowed; n must equal the job's request,
 * every GPU free and distinct). Returns 0, WK_E_NOROOM when the facility
 * power budget has no room for it now (the job stays waiting: treat it as
 * "does not fit"), or WK_E_INTERNAL for a policy bug (wrong count, busy
 * GPU, job not waiting, or a GPU where the job does not fit in memory:
 * wk_sched_job_fits_gpu; the run then stops with an error naming the
 * policy, the job and the GPU), or WK_E_NOMEM. */
int wk_sched_start(WkSchedCtx *ctx, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);

/** Stop a running job and put it back to QUEUED (the policy re-queues it):
 * progress is kept (checkpointed at preemption); it pays `preemption_cost`
 * when it next starts. Returns 0 or WK_E_INTERNAL (not running, or an HPC
 * job). */
int wk_sched_preempt(WkSchedCtx *ctx, uint32_t job, WkError *err);

/** Refuse job for good (it can never run here), with a short reason that is
 * counted in the summary (borrowed, not copied: it must live as long as the
 * run, as a string literal does). Returns 0 or WK_E_INTERNAL (job not waiting). */
int wk_sched_reject(WkSchedCtx *ctx, uint32_t job, const char *reason, WkError *err);

/* --- reading parameters: the wk_node_* readers of wanka/node.h --- */

#endif
