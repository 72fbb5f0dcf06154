/* SPDX-License-Identifier: Apache-2.0 */
/* run_impl.h — the run's internal state, shared by the files of models/run
 * (driver, lifecycle, progress, failures, scheduler host, report). Private
 * to models/run: tests use models/run/hooks.h, everyone else run.h. */
#ifndef WK_RUN_IMPL_H
#define WK_RUN_IMPL_H

#include "models/run/eval.h"
#include "models/run/account.h"
#include "models/run/budget.h"
#include "models/run/sleep.h"
#include "models/run/hooks.h"
#include "models/run/pool.h"
#include "models/run/share.h"
#include "models/run/run.h"
#include "sim/scenario/section.h"
#include "models/sched/host.h"
#include "models/sched/plugin.h"
#include "models/fail/fail.h"
#include "models/net/flow.h"
#include "models/topo/cluster.h"
#include "models/workload/perf.h"
#include "models/workload/workload.h"



typedef struct WkJobRt {
    WkTime start, end;         /* ns; -1 until it happens */
    uint32_t *gpus;            /* owned while running */
    uint32_t token;            /* cancellation token of its end event */
    uint8_t state;             /* WkJobState */
    uint8_t path_class;        /* WkPathClass of its widest flow; WK_JOB_NO_PATH before it starts */
    uint8_t on_shrunk;         /* 1: listed in WkRunFail.shrunk */
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
    /* failures and checkpoints (models/run/run_fail.c, fail_*.c) */
    uint32_t interruptions;    /* times hit by a failure */
    uint32_t ckpt_tok;         /* token of its checkpoint events */
    int in_ckpt;               /* a checkpoint write is in flight */
    int hung;                  /* hit: no progress until detection (and, waiting, until repair) */
    int waiting;               /* recovery `wait`: holds its GPUs until the failed ones are repaired */
    double prog_s;             /* time spent making progress (kept or not yet lost) */
    double ckpt_done, snap_done;      /* model jobs: iterations at the last checkpoint / snapshot */
    WkTime ckpt_left, snap_left;      /* plain jobs: run time left at the last checkpoint / snapshot */
    double ckpt_prog_s, snap_prog_s;  /* prog_s at the last checkpoint / snapshot */
    double tau_s;              /* checkpoint interval of this job, s (0 = none) */
    uint32_t incident;         /* 1 + the incident that stopped it last, 0 = none pending */
    WkTime fail_t, detect_t;   /* of the pending incident */
    /* model jobs: progress settled lazily at every rate change */
    double work;               /* iterations to train */
    double done;               /* iterations done at time `last` */
    double iter_s;             /* current iteration time, s (progress settled up to seg_start) */
    double activity;           /* its GPUs' activity from the last evaluation's operator split */
    WkPerfEnv env;             /* placement-derived inputs of the perf model */
    uint32_t *flows;           /* owned: its flows in the flow network */
    uint32_t nflows;
    double flops_per_iter;     /* model FLOPs of one iteration, whole job */
    double samples_per_iter;   /* tokens or samples per iteration */
} WkJobRt;

/* Limits of a run's tables (docs/limits.md): rows of timeseries/cluster (32
 * bytes each) and incidents; past them the run fails with WK_E_RANGE rather
 * than grow without bound. */
#define WK_RUN_MAX_INCIDENTS 10000000

/* One row of the incidents table. */
typedef struct WkIncidentRow {
    uint32_t id;
    uint8_t cls;        /* WkFailClass, or WK_FC_N for a process/scripted event */
    uint8_t kind;       /* WkIncidentKind */
    uint8_t scope;      /* WkScope of the component, or 255 for a link/switch */
    uint32_t component; /* its index in that class or scope */
    int64_t start_ns, end_ns; /* failure; repair or effect end (-1 none) */
    uint32_t jobs_hit, gpus_lost;
    double detect_s, wait_s, restart_s, recovery_s, lost_gpu_h;
    double clock;       /* throttles */
} WkIncidentRow;

/* The failure state of a run: streams, incidents, checkpoint writers,
 * recovery counters and the jobs waiting for repairs. Owned by
 * models/run/run_fail.c and fail_*.c; others read it. */
typedef struct WkRunFail {
    WkRng *fail_rng[WK_FC_N];/* one stream per failure class ("fail.gpu", ...) */
    WkRng *detect_rng;      /* detection delays ("fail.detect") */
    WkRng **proc_rng;       /* owned: one stream per random process ("fail.process.N") */
    WkIncidentRow *incidents; /* owned: the incidents table */
    size_t nincidents, capincidents;
    uint32_t ckpt_active;   /* jobs writing a checkpoint to shared storage now */
    double diurnal;         /* cluster-wide clock factor of the time of day */
    uint64_t interruptions; /* job interruptions by failures */
    uint64_t shrinks;       /* elastic restarts on fewer GPUs */
    double lost_gpu_s;      /* GPU-seconds of work rolled back */
    uint32_t *waitlist;     /* owned: jobs waiting in place for repairs (room for every job) */
    size_t nwait;
    uint32_t *shrunk;       /* owned: elastic jobs that shrank and may grow back (room for every job) */
    size_t nshrunk;
} WkRunFail;

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
    WkRunFail fl;           /* their state during the run */
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
    WkRunBudget bud;           /* the budget during the run, the facility series (budget.h) */
    WkRunSleep slp;            /* idle power-down (sleep.h) */
    uint32_t sample_tok;
    int is_site;               /* 1: one site of a network; `site` holds the network's view */
    WkRunSite site;
    size_t elsewhere;          /* site runs: jobs the network sent to other sites (or nowhere) */
};

/* Shared between run.c and progress.c. */
enum {
    WK_EV_SUBMIT = 0, WK_EV_END = 1, WK_EV_SAMPLE = 2, WK_EV_TICK = 3,
    WK_EV_FAIL = 4,      /* target: class; payload: component, or UINT32_MAX for the class's Poisson stream */
    WK_EV_REPAIR = 5,    /* target: incident */
    WK_EV_DETECT = 6,    /* target: job */
    WK_EV_CKPT = 7,      /* target: job */
    WK_EV_CKPT_DONE = 8, /* target: job */
    WK_EV_EFFECT_END = 9,/* target: incident (throttle over) */
    WK_EV_PROC = 10,     /* target: process; payload: unit */
    WK_EV_SCRIPT = 11,   /* target: scripted incident */
    WK_EV_DIURNAL = 12,
    WK_EV_BUDGET = 13,   /* target: budget step */
    WK_EV_SLEEP = 14,    /* target: node; payload: its generation when posted */
    WK_EV_ARRIVE = 15,   /* target: job (a site run: its dataset has crossed the WAN) */
};

/* Column lists of the jobs, timeseries/cluster, incidents and
 * timeseries/facility tables (run_report.c), offsets into WkRunJobRow,
 * WkSampleRow, WkIncidentRow and WkFacilityRow. */
extern const WkTraceField wk_report_job_fields[];
extern const size_t wk_report_njob_fields;
extern const WkTraceField wk_report_sample_fields[];
extern const size_t wk_report_nsample_fields;
extern const WkTraceField wk_report_incident_fields[];
extern const size_t wk_report_nincident_fields;
extern const WkTraceField wk_report_facility_fields[];
extern const size_t wk_report_nfacility_fields;

/** Jobs' allocation lifecycle (models/run/lifecycle.c). begin: a waiting job gets
 * gpus[0..n) (a policy bug, wrong state or count or a busy GPU, gives
 * WK_E_INTERNAL naming the scheduler). release: a stopped job's GPUs go back
 * (its allocation recorded). preempt: a running job back to the queue paying
 * preemption_cost at its next start. reject: a waiting job refused for good.
 * Each accounts up to now first. */
int wk_lifecycle_begin(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);
int wk_lifecycle_release(WkRun *r, uint32_t job, WkTime now, WkError *err);
int wk_lifecycle_preempt(WkRun *r, uint32_t job, WkError *err);
int wk_lifecycle_reject(WkRun *r, uint32_t job, const char *reason, WkError *err);

/** Append the time-series row of now (WK_E_NOMEM on failure); rewrite the
 * row of now if there is one (a row is the state after every event at its
 * instant). */
int wk_run_sample(WkRun *r, WkTime now);
void wk_run_resample(WkRun *r, WkTime now);

/** At the end of a run: record the allocations still open (running jobs).
 * Returns 0 or WK_E_NOMEM. */
int wk_lifecycle_record_open(WkRun *r, WkError *err);

/** Integrate accounting (GPU-time, energy) up to now before a change. */
void wk_run_account_to(WkRun *r, WkTime now);

/** Stop a running (or hung) job and put it back to QUEUED: progress
 * settled, events cancelled, flows removed, GPUs released (down ones stay
 * out of the pool). The caller tells the scheduler. */
int wk_lifecycle_requeue(WkRun *r, uint32_t job, WkError *err);

/** A running job's speed inputs changed: settle, optionally recompute its
 * placement environment (clocks, SKUs), re-post its end. */
int wk_progress_refresh(WkRun *r, uint32_t job, int new_env, WkError *err);

/** A part of a job spanning sites (a plain job of a site run): settle its
 * progress to now (>= the engine's clock), set its run time still to go to
 * left_ns (< 0: keep it), hold it (no progress; WK_NET_HELD in
 * r->site.part) or let it go at its speed, and re-post its end. 0 or a
 * negative code. */
int wk_progress_gate(WkRun *r, uint32_t job, int held, WkTime left_ns, WkTime now, WkError *err);

/** Rebuild a running job's flows (paths avoid failed links) and re-share. */
int wk_progress_reflow(WkRun *r, uint32_t job, WkError *err);

/** Failures: read the sections (after the cluster), set up streams, spares
 * and the first events (models/run/run_fail.c). */
int wk_runfail_parse(WkRun *r, const WkNode *root, WkError *err);
int wk_runfail_start(WkRun *r, WkError *err);
/** A job (re)starts or ends: arm or drop its checkpoint events; a restart
 * after an incident records the recovery time (models/run/fail_ckpt.c). */
int wk_runfail_job_started(WkRun *r, uint32_t job, WkError *err);
void wk_runfail_job_stopped(WkRun *r, uint32_t job);
/** Effective clock factor of a GPU (its clock x the time-of-day factor). */
double wk_runfail_clock(const WkRun *r, uint32_t gpu);
/** Capacity came back (repair or job end): elastic jobs below their request
 * grow onto free GPUs, before the scheduler sees them. O(shrunk jobs): a no-op
 * when none has shrunk (models/run/fail_grow.c). */
int wk_runfail_grow_elastic(WkRun *r, WkError *err);

/** Facility budget (models/run/budget.c). init: at prepare, after the
 * cluster and `facility:` (every step checked against the idle cluster and,
 * after the first, the cluster busy at its floor clocks; positioned
 * errors). start: register and post the budget steps. admit: 0 when job
 * on gpus[0..n) fits the budget (cap, policy: at floor clocks; hold: at
 * full clock or the clock its scheduler chose), else WK_E_NOROOM. hold: count gpus busy (held 1) or free (0).
 * enforce: after any change of allocation or budget, set the site clock to
 * the largest that fits (with the clocks schedulers chose), re-rate
 * running jobs if it moved, and write the facility row of now. headroom:
 * budget minus the draw bound at full clock, chosen clocks ignored
 * (INFINITY without a budget). sample: the facility row at a sample. */
int wk_budget_init(WkRun *r, WkError *err);
int wk_budget_start(WkRun *r, WkError *err);
int wk_budget_admit(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n);
void wk_budget_hold(WkRun *r, const uint32_t *gpus, uint32_t n, int held);
int wk_budget_enforce(WkRun *r, WkError *err);
double wk_budget_headroom_w(const WkRun *r);
int wk_budget_sample(WkRun *r, WkTime now, WkError *err);
void wk_budget_finish(WkRun *r, WkTime end);
void wk_budget_fini(WkRunBudget *b);

/** Idle power-down (models/run/sleep.c; no-ops when cluster.power.sleep_after
 * is 0). start: every node may sleep after sleep_after from 0. wake: a job
 * takes gpus[0..n) now: their sleeping nodes wake; returns the wake latency
 * when one slept, else 0. delayed: count a start delayed by `extra` ns.
 * released: nodes of gpus[0..n) left without a job may sleep after
 * sleep_after. finish: the saving of nodes still asleep at the end. */
int wk_sleep_start(WkRun *r, WkError *err);
WkTime wk_sleep_wake(WkRun *r, const uint32_t *gpus, uint32_t n, WkTime now);
void wk_sleep_delayed(WkRun *r, WkTime extra);
int wk_sleep_released(WkRun *r, const uint32_t *gpus, uint32_t n, WkTime now, WkError *err);
void wk_sleep_finish(WkRun *r, WkTime end);
void wk_sleep_fini(WkRunSleep *s);

/** The run as a scheduler host: the table behind every WkSchedCtx of a run. */
extern const WkSchedHostOps wk_run_sched_host;

/** Nominal iteration time (s) of model job `job` on gpus[0..n) with the full
 * link rate, or NaN if it does not fit there. */
double wk_progress_iter_on(const WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n);

/** Nominal iteration time of model job `job`: alone on the cluster's first
 * GPUs at full clock and link rate (what a policy may know in advance; the
 * yardstick of util_effective). Cached; NaN when it does not fit there or
 * for a plain job. */
double wk_progress_nominal_iter_s(WkRun *r, uint32_t job);

/** Settle a running job's progress to now (plain and model jobs). */
void wk_progress_settle(WkRun *r, uint32_t job, WkTime now);

/** A model job got its GPUs (rt->gpus set): derive its perf env from the
 * placement, add its flows, re-share the fabric, and post its end. Plain
 * jobs: post end at start + duration. */
int wk_progress_start(WkRun *r, uint32_t job, WkError *err);

/** A job ends or stops: settle its progress, remove its flows and re-rate the
 * jobs whose share changed. */
int wk_progress_stop(WkRun *r, uint32_t job, WkError *err);

/** Resolve the workload's `nodes:` into GPUs on this cluster
 * (wk_workload_resolve_nodes), refuse model jobs on a cluster with CPU
 * nodes, then check every distinct (model, GPU count) of the workload on the
 * cluster's first SKU, so a job that can never fit in memory is refused
 * before the run. Positioned at the scenario file, naming the job. */
int wk_progress_check(WkRun *r, WkError *err);


#endif
