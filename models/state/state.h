/* SPDX-License-Identifier: Apache-2.0 */
/* state.h — the state of one run that every layer above shares: the cluster,
 * workload, pool, fabric share, accounting, per-job progress and the
 * scheduler instance, plus the table of subsystems attached to it (recovery,
 * energy) and the driver's requests. The run driver (models/run) owns the
 * run's life; subsystems (models/recovery, models/energy) read and change
 * this state only through these types and the calls of models/state. Nothing
 * here names a subsystem or the driver. */
#ifndef WK_STATE_STATE_H
#define WK_STATE_STATE_H

#include "models/state/account.h"
#include "models/state/eval.h"
#include "models/state/types.h"
#include "models/state/pool.h"
#include "models/state/share.h"
#include "models/fail/fail.h"
#include "models/facility/facility.h"
#include "models/net/flow.h"
#include "models/sched/host.h"
#include "models/sched/plugin.h"
#include "models/topo/cluster.h"
#include "models/workload/perf.h"
#include "models/workload/workload.h"
#include "sim/scenario/node.h"

/* A job in the run: allocation and progress. What a subsystem keeps per job
 * (checkpoints, incidents, chosen clocks) lives in the subsystem's own table
 * keyed by job, not here. */
typedef struct WkJobRt {
    WkTime start, end;         /* ns; -1 until it happens */
    uint32_t *gpus;            /* owned while running */
    uint32_t token;            /* cancellation token of its end event */
    uint8_t state;             /* WkJobState */
    uint8_t path_class;        /* WkPathClass of its widest flow; WK_JOB_NO_PATH before it starts */
    uint8_t hung;              /* stalled by a failure: no progress, not preemptible, ends only after a restart */
    uint8_t waiting;           /* holds its GPUs in place until a repair: not preemptible */
    const char *reject_reason; /* static string from the policy */
    /* progress of every job across preemptions and restarts */
    WkTime left_ns;            /* plain jobs: run time still to go on the reference SKU at full clock */
    double nominal_iter_s;     /* model jobs: iteration time alone on the cluster's first GPUs (0 = not yet) */
    double work_gpu_s;         /* useful work done, GPU-s at nominal speed (docs/metrics.md util_effective) */
    uint32_t gpus_req;         /* GPUs the workload asked for (the spec's count may shrink: elastic) */
    double speed;              /* plain jobs: reference run time per wall time on its GPUs now (1 = nominal) */
    WkTime seg_start;          /* when the current run segment makes progress (after restart cost) */
    WkTime pending_cost;       /* restart cost to pay at the next start */
    double attained_gpu_s;     /* GPU-seconds of service in finished segments */
    double est_s;              /* nominal expected run time (0 = not yet computed) */
    uint32_t preemptions;      /* times stopped by the scheduler */
    WkTime alloc_t;            /* when it last got its GPUs */
    double prog_s;             /* time spent making progress (kept or not yet rolled back) */
    /* model jobs: progress settled lazily at every rate change */
    double work;               /* iterations to train */
    double done;               /* iterations done at time `last` */
    double iter_s;             /* current iteration time, s (progress settled up to seg_start) */
    double iter_c;             /* its iteration time without a data stall (wk_reads_iter), s */
    double activity;           /* its GPUs' activity from the last evaluation's operator split */
    WkPerfEnv env;             /* placement-derived inputs of the perf model */
    uint32_t *flows;           /* owned: its flows in the flow network: rings, then expert all-to-all */
    uint32_t nflows;
    uint32_t na2a;             /* the last na2a of flows: its expert all-to-all (share.h) */
    uint32_t moved;            /* of its flows, those whose plain path crosses a link down (share.h) */
    uint32_t *rings;           /* owned: its ring edges on this placement (pairs of GPUs, wk_eval_rings), kept
                                  from its start to its stop and reused by every re-route */
    uint32_t nrings;           /* edges in rings */
    double comm_s;             /* plain jobs with `comm:` on flows: the all-reduce's fabric time per iteration
                                  at the full link rate, s (0: none) */
    double flops_per_iter;     /* model FLOPs of one iteration, whole job */
    double samples_per_iter;   /* tokens or samples per iteration */
    double mem_need;           /* model jobs on a cluster of several GPU memory sizes: GPU memory it needs
                                  per GPU at mem_need_gpus GPUs, bytes (wk_progress_mem_need; 0 = fits all) */
    uint32_t mem_need_gpus;    /* the GPU count mem_need was computed for (0 = not yet) */
    /* its dataset read from the storage nodes (reads.c) while it runs */
    double read_bytes;         /* bytes read per iteration (0: no read in flight) */
    double read_need;          /* the read's demand R, bytes/s */
    uint32_t read_tid;         /* its transfer in the fabric share (share.h), while read_bytes > 0 */
    uint32_t read_paused;      /* 1: its job stalled on a blocking transfer, the read out of the share */
} WkJobRt;

/* Engine event kinds of a run (one table, so that two owners never clash). */
enum {
    WK_EV_SUBMIT = 0, WK_EV_END = 1, WK_EV_SAMPLE = 2, WK_EV_TICK = 3,
    WK_EV_FAIL = 4,      /* recovery; target: class; payload: component, or UINT32_MAX for the class's Poisson stream */
    WK_EV_REPAIR = 5,    /* recovery; target: incident */
    WK_EV_DETECT = 6,    /* recovery; target: job */
    WK_EV_CKPT = 7,      /* recovery; target: job */
    WK_EV_CKPT_DONE = 8, /* recovery; target: job */
    WK_EV_EFFECT_END = 9,/* recovery; target: incident (throttle over) */
    WK_EV_PROC = 10,     /* recovery; target: process; payload: unit */
    WK_EV_SCRIPT = 11,   /* recovery; target: scripted incident */
    WK_EV_DIURNAL = 12,  /* recovery */
    WK_EV_BUDGET = 13,   /* energy; target: budget step */
    WK_EV_SLEEP = 14,    /* energy; target: node; payload: its generation when posted */
    WK_EV_ARRIVE = 15,   /* driver; target: job (a site run: its dataset has crossed the WAN) */
    WK_EV_CASCADE = 16,  /* mechanisms (cascade); target: job, or UINT32_MAX for the discovery; payload: generation */
    WK_EV_DIVISION = 17, /* mechanisms (division); target: job; payload: its generation when posted */
    WK_EV_OUTSOURCE = 18,/* mechanisms (outsourcing): lend or take back idle nodes, after the event that posted it */
};

typedef struct WkRun WkRun;
typedef struct WkRunQuota WkRunQuota;

/* Why a job stops (WkRunSubsysOps.stopping). */
typedef enum WkStopWhy {
    WK_STOP_END = 0,     /* completed */
    WK_STOP_REQUEUE = 1, /* back to the queue: preempted, failed, evicted */
} WkStopWhy;

/* A subsystem attached to a run: one static, ordered table of these (the
 * driver's models/run/subsys.c) is the whole registration. Every slot is
 * optional (NULL). Slots run in table order; the combining rule is per
 * slot: `admit` — any veto (WK_E_NOROOM) wins; `placing` — the largest
 * delay wins; the others — the first negative code stops. `st` is the
 * block the subsystem's `init` returned. A subsystem calls only down, into
 * models/state (and the domain below), never the driver or another
 * subsystem; to restart a job it asks the driver (wk_run_request_requeue). */
typedef struct WkRunSubsysOps {
    const char *name;
    /* prepare, after the cluster and `facility:` are read: parse its
     * sections, allocate its state (*st, freed by fini). */
    int (*init)(WkRun *r, const WkNode *root, void **st, WkError *err);
    /* the run begins (engine and pool exist): register its event kinds, post its first events */
    int (*start)(WkRun *r, void *st, WkError *err);
    /* a job asks for gpus[0..n): 0, or WK_E_NOROOM to keep it waiting */
    int (*admit)(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n);
    /* before the job holds gpus: its start delay (ns, 0 = none) */
    WkTime (*placing)(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now);
    /* the job holds gpus (pool), before its power is counted */
    int (*held)(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);
    /* the job makes progress (its end is posted) */
    int (*started)(WkRun *r, void *st, uint32_t job, WkError *err);
    /* the job is about to stop (progress settled, before its flows go) */
    void (*stopping)(WkRun *r, void *st, uint32_t job, WkStopWhy why);
    /* the job's GPUs went back to the pool */
    int (*released)(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now, WkError *err);
    /* after any change of allocation (a start or a release) */
    int (*changed)(WkRun *r, void *st, WkError *err);
    /* capacity came back (a job ended): before the scheduler hears of it */
    int (*freed)(WkRun *r, void *st, WkError *err);
    /* a job joined the queue (submitted, or arrived at a site) and the
     * policy has heard of it (it may have started it already) */
    int (*queued)(WkRun *r, void *st, uint32_t job, WkError *err);
    /* a running job's progress was settled over [t0, t1) at its old speed */
    void (*settled)(WkRun *r, void *st, uint32_t job, WkTime t0, WkTime t1);
    /* a running job's speed was set (started, re-rated, held) */
    void (*rated)(WkRun *r, void *st, uint32_t job);
    /* a row of the time series is written at now */
    int (*sampled)(WkRun *r, void *st, WkTime now, WkError *err);
    /* the run's books close at end (accounted up to end) */
    void (*finish)(WkRun *r, void *st, WkTime end);
    void (*fini)(void *st);
} WkRunSubsysOps;

/* The most subsystems a run carries. */
#define WK_RUN_MAX_SUBSYS 8
#define WK_RUN_NOMINAL_MEMO 32 /* nominal iteration times kept by (model, GPUs) */

/* What a subsystem may ask of the driver (filled by the driver at prepare). */
typedef struct WkRunRequests {
    /* stop a running (or hung) job and put it back to QUEUED: progress
     * settled, events cancelled, flows removed, GPUs released (down ones
     * stay out of the pool); the caller tells the scheduler */
    int (*requeue)(WkRun *r, uint32_t job, WkError *err);
    /* GPU sharing: start a waiting job with a GPU share on the shared GPU it
     * best fits; 1 = started, 0 = not (the caller tells the scheduler) */
    int (*join)(WkRun *r, uint32_t job, WkError *err);
} WkRunRequests;

struct WkRun {
    const WkDoc *doc;
    const char *name;
    uint64_t seed;
    WkRunOpts opts;
    WkCluster cluster;
    WkShare share;          /* flows on the fabric, links down (share.h) */
    WkPool pool;            /* GPUs: owners, free bitmap and counts, spares (pool.h) */
    WkWorkload wl;
    WkSchedPlugins plugins;    /* policies loaded from shared objects (closed last) */
    const WkSchedOps *sched;   /* the policy (looked up, ABI checked) */
    const WkNode *sched_params;
    WkSchedInst si;            /* its instance; si.ctx is the context it sees */
    WkPerfParams perf;      /* global perf-model choices (`perf:`) */
    WkFailSpec fail;        /* failures, checkpoints, recovery (as parsed) */
    double diurnal;         /* cluster-wide clock factor of the time of day (0: none) */
    WkTime horizon;         /* sim.end, or WK_TIME_NEVER (then the run stops at WK_RUN_MAX_TIME) */
    WkTime sample_interval; /* ns between time-series rows */

    WkEngine *eng;
    WkJobRt *rt;        /* per job */
    uint32_t *order;    /* job ids by (submit, id) */
    WkPlacement placement;
    WkTime preempt_cost;/* restart cost of a preempted job (scheduler `preemption_cost`) */
    WkTime tick_ns;     /* scheduler tick period, 0 = none */
    uint32_t tick_tok;
    size_t preemptions;
    uint32_t running;   /* jobs running now */
    size_t queued, completed, rejected;
    int executed, finished;
    int interrupted;           /* execute stopped early on opts.interrupt */

    WkTime end_t;
    WkAccount acct;            /* GPU-time, energy, time series, allocation record (account.h) */
    WkFacilitySpec fac;        /* `facility:` as parsed: budget steps, mode, price series */
    uint32_t sample_tok;
    int is_site;               /* 1: one site of a network; `site` holds the network's view */
    WkRunSite site;
    size_t elsewhere;          /* site runs: jobs the network sent to other sites (or nowhere) */

    /* subsystems attached by the driver, in its table's order */
    const WkRunSubsysOps *const *subsys; /* NULL-terminated (borrowed, static) */
    void *sub_st[WK_RUN_MAX_SUBSYS];     /* their state blocks (owned by each: fini) */
    const WkRunSubsysOps *on_settled[WK_RUN_MAX_SUBSYS + 1]; /* those with a `settled` slot, NULL-terminated */
    const WkRunSubsysOps *on_rated[WK_RUN_MAX_SUBSYS + 1];   /* those with a `rated` slot, NULL-terminated */
    void *settled_st[WK_RUN_MAX_SUBSYS], *rated_st[WK_RUN_MAX_SUBSYS];
    WkRunRequests req;         /* the driver's answers to subsystems' requests */
    struct WkRunQuota *quota;  /* per-user GPU quotas (models/run/quota.c), NULL: none */
    double hbm_min, hbm_max;   /* smallest and largest GPU memory of the cluster's GPU groups, bytes
                                  (0 until wk_progress_mem_need first computes them) */
    struct {                   /* wk_progress_nominal_iter_s of the last model and GPU counts asked */
        uint32_t model, gpus;  /* (a function of the two: the first GPUs at nominal clocks) */
        double iter_s;
    } nominal[WK_RUN_NOMINAL_MEMO];
    uint32_t nnominal;         /* entries of nominal in use; the next goes at nnominal % WK_RUN_NOMINAL_MEMO */
    uint32_t reading;          /* jobs with a dataset read in flight (reads.c) */
};

/* ---- the run's state (models/state/state.c) ---- */

/** The state block of subsystem ops attached to r (wk_run_attach), or NULL
 * when it is not attached. O(subsystems). */
void *wk_run_sub(const WkRun *r, const WkRunSubsysOps *ops);

/** Attach the subsystems of the NULL-terminated table (at most
 * WK_RUN_MAX_SUBSYS), calling each `init` in order with the scenario root;
 * the first error stops (those attached stay, for wk_run_detach). */
int wk_run_attach(WkRun *r, const WkRunSubsysOps *const *table, const WkNode *root, WkError *err);

/** Call every attached subsystem's `fini` (reverse order). */
void wk_run_detach(WkRun *r);

/** Ask the driver to requeue job (see WkRunRequests.requeue). */
int wk_run_request_requeue(WkRun *r, uint32_t job, WkError *err);

/** Ask the driver to start waiting job on a shared GPU (see
 * WkRunRequests.join): 1 started, 0 not (also without a driver), or < 0. */
int wk_run_request_join(WkRun *r, uint32_t job, WkError *err);

/** Integrate accounting (GPU-time, energy) up to now before a change. */
void wk_run_account_to(WkRun *r, WkTime now);

/** Append the time-series row of now and tell the subsystems (`sampled`);
 * rewrite the row of now if there is one (a row is the state after every
 * event at its instant). Returns 0 or WK_E_NOMEM. */
int wk_run_sample(WkRun *r, WkTime now);
void wk_run_resample(WkRun *r, WkTime now);

/* ---- a job's progress (models/state/progress.c) ---- */

/** A running job's speed inputs changed: settle, optionally recompute its
 * placement environment (clocks, SKUs), re-post its end. Without new_env a
 * model job is O(1) (its fabric share is the one of its last re-rate; with
 * power.model_activity O(its GPUs)). */
int wk_progress_refresh(WkRun *r, uint32_t job, int new_env, WkError *err);

/** A part of a job spanning sites (a plain job of a site run): settle its
 * progress to now (>= the engine's clock), set its run time still to go to
 * left_ns (< 0: keep it), hold it (no progress; WK_NET_HELD in
 * r->site.part) or let it go at its speed, and re-post its end. 0 or a
 * negative code. */
int wk_progress_gate(WkRun *r, uint32_t job, int held, WkTime left_ns, WkTime now, WkError *err);

/** Re-solve the fabric share (flows added or removed by a subsystem, e.g.
 * checkpoint writes to storage nodes) and re-rate every running job whose
 * flows changed rate. 0 or a negative code. */
int wk_progress_reshare(WkRun *r, WkError *err);

/** Rebuild a running job's flows (paths avoid failed links) and re-share. */
int wk_progress_reflow(WkRun *r, uint32_t job, WkError *err);

/** Physical fabric links links[0..n) went down (repair 0) or came back up
 * (repair != 0; r->share.link_down already updated): set their capacity in
 * the share, then re-route the running jobs whose paths may move (a flow on
 * one of the links; on a repair also a job with a flow routed around a link
 * down) and re-share. The other running jobs keep their flows and only
 * settle and re-post their end, as a re-route leaving their paths as they
 * were would: the results equal re-routing every running job, at a cost of
 * the affected jobs' flows plus O(running jobs). 0 or a negative code. */
int wk_progress_reroute(WkRun *r, const uint64_t *links, uint32_t n, int repair, WkError *err);

/** GPU memory model job `job` needs per GPU (bytes) where it does not fit
 * every GPU of the cluster, or 0 when it fits every one: a plain job, a
 * cluster whose GPU groups all have the same memory, a job within the
 * smallest memory, or one the performance model refuses for another reason
 * (its start reports that). O(1) on a cluster of one memory size; else one
 * performance evaluation per job and GPU count, cached in its WkJobRt. A
 * GPU g holds the job when its SKU's hbm_bytes >= the result. */
double wk_progress_mem_need(WkRun *r, uint32_t job);

/** Nominal iteration time (s) of model job `job` on gpus[0..n) with the full
 * link rate, or NaN if it does not fit there. */
double wk_progress_iter_on(const WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n);

/** Nominal iteration time of model job `job`: alone on the cluster's first
 * GPUs at full clock and link rate (what a policy may know in advance; the
 * yardstick of util_effective). Cached; NaN when it does not fit there or
 * for a plain job. */
double wk_progress_nominal_iter_s(WkRun *r, uint32_t job);

/** Settle a running job's progress to now (plain and model jobs); the
 * subsystems with a `settled` slot hear of the interval. */
void wk_progress_settle(WkRun *r, uint32_t job, WkTime now);

/** A model job got its GPUs (rt->gpus set): derive its perf env from the
 * placement, add its flows, re-share the fabric, and post its end. Plain
 * jobs: post end at start + duration. */
int wk_progress_start(WkRun *r, uint32_t job, WkError *err);

/** A job ends or stops: settle its progress, remove its flows and re-rate the
 * jobs whose share changed. */
int wk_progress_stop(WkRun *r, uint32_t job, WkError *err);

/** Under `cluster.storage.sharing: priority`: re-rate the storage transfers
 * (share.h, wk_share_store_solve, *moved as there), then re-rate each
 * running job whose dataset read's rate moved. 0 or a negative code. */
int wk_progress_store_solve(WkRun *r, int *moved, WkError *err);

/* ---- a job's dataset reads (models/state/reads.c) ---- */

/** Start job's dataset read (any read of it in flight ends first) when the
 * cluster has storage nodes with `dataset_reads` and the job is a model job
 * whose model reads (wk_model_read_bytes > 0): a transfer from the storage
 * nodes to its GPUs' NICs (share.h, wk_share_xfer_add, read) capped at
 * R = bytes per sample x samples_per_iter / iter_s, iter_s its iteration
 * on its placement with the fabric to itself. Else nothing. 0 or
 * WK_E_NOMEM. */
int wk_reads_start(WkRun *r, uint32_t job, double samples_per_iter, double iter_s, WkError *err);

/** End job's dataset read, if any. */
void wk_reads_stop(WkRun *r, uint32_t job);

/** Job's dataset read, if any, afresh on its GPUs (paths around the links
 * down now), at the same demand. 0 or WK_E_NOMEM. */
int wk_reads_again(WkRun *r, uint32_t job, WkError *err);

/** Pause (on) or resume (off) job's dataset read, if any: a job stalled
 * on a blocking transfer of its own (a `remote` checkpoint write, a
 * restart's load) consumes no input, so its read leaves the fabric share
 * until the stall ends, and comes back on its GPUs as they are then, at
 * the same demand. The caller re-solves the share. 0 or WK_E_NOMEM. */
int wk_reads_pause(WkRun *r, uint32_t job, int on, WkError *err);

/** Job's iteration time with its data stall: max(iter_s, bytes per
 * iteration / a), a its read's rate as last solved (at least 1 B/s);
 * iter_s without a read, or before its first rating. */
double wk_reads_iter(const WkRun *r, uint32_t job, double iter_s);

/** The rate of job's dataset read as last solved, bytes/s (0: none). */
double wk_reads_rate(const WkRun *r, uint32_t job);

/** Resolve the workload's `nodes:` into GPUs on this cluster
 * (wk_workload_resolve_nodes), refuse model jobs on a cluster with CPU
 * nodes, then check every distinct (model, GPU count) of the workload on the
 * cluster's first SKU and, when it does not fit that SKU's memory, on the
 * SKU of the cluster's largest GPU memory, so a job that no node group can
 * hold is refused before the run (the message names the job and that
 * largest memory) and one that fits some group runs. Positioned at the
 * scenario file, naming the job. */
int wk_progress_check(WkRun *r, WkError *err);

#endif
