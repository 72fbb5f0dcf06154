/* SPDX-License-Identifier: Apache-2.0 */
/* run_impl.h — the run's internal state, shared by run.c (driver) and
 * run_report.c (summary, trace). Not a public header. */
#ifndef WK_RUN_IMPL_H
#define WK_RUN_IMPL_H

#include "sim/run.h"
#include "models/sched/sched.h"
#include "models/net/flow.h"
#include "models/topo/cluster.h"
#include "models/workload/perf.h"
#include "models/workload/workload.h"

__extension__ typedef unsigned __int128 wk_u128;

typedef enum WkJobState {
    WK_JOB_PENDING = 0, /* not yet submitted (only before the run ends early) */
    WK_JOB_QUEUED,      /* submitted, waiting for GPUs */
    WK_JOB_RUNNING,
    WK_JOB_COMPLETED,
    WK_JOB_REJECTED,    /* can never run on this cluster */
} WkJobState;

typedef struct WkJobRt {
    WkTime start, end;         /* ns; -1 until it happens */
    uint32_t *gpus;            /* owned while running */
    uint32_t token;            /* cancellation token of its end event */
    uint8_t state;             /* WkJobState */
    uint8_t path_class;        /* WkPathClass of its widest flow; WK_JOB_NO_PATH before it starts */
    const char *reject_reason; /* static string from the policy */
    /* progress of every job across preemptions and restarts */
    WkTime left_ns;            /* plain jobs: run time still to go at full speed */
    WkTime seg_start;          /* when the current run segment makes progress (after restart cost) */
    WkTime pending_cost;       /* restart cost to pay at the next start */
    double attained_gpu_s;     /* GPU-seconds of service in finished segments */
    double est_s;              /* nominal expected run time (0 = not yet computed) */
    uint32_t preemptions;      /* times stopped by the scheduler */
    /* model jobs: progress settled lazily at every rate change */
    double work;               /* iterations to train */
    double done;               /* iterations done at time `last` */
    double iter_s;             /* current iteration time, s (progress settled up to seg_start) */
    WkPerfEnv env;             /* placement-derived inputs of the perf model */
    uint32_t *flows;           /* owned: its flows in the flow network */
    uint32_t nflows;
    double flops_per_iter;     /* model FLOPs of one iteration, whole job */
    double samples_per_iter;   /* tokens or samples per iteration */
} WkJobRt;

#define WK_JOB_NO_PATH 255

typedef struct WkSampleRow {
    int64_t time_ns;
    uint32_t allocated_gpus;
    uint32_t running_jobs;
    uint32_t queued_jobs;
    double power_w; /* facility power (PUE included) */
} WkSampleRow;

struct WkSchedCtx {
    WkRun *run;
};

struct WkRun {
    const WkDoc *doc;
    const char *name;
    uint64_t seed;
    WkRunOpts opts;
    WkCluster cluster;
    WkWorkload wl;
    const WkSchedOps *sched;
    void *sched_priv;
    const WkNode *sched_params;
    int sched_ready;
    WkSchedCtx ctx;
    WkPerfParams perf;      /* global perf-model choices (`perf:`) */
    WkFlowNet *net;         /* flow-level fabric sharing, NULL without a fabric */
    uint64_t *dirty_jobs;   /* scratch bitmap: jobs whose flows changed rate */
    uint64_t reflows;       /* rate recomputations of running jobs */
    WkTime horizon;         /* sim.end, or WK_TIME_NEVER */
    WkTime sample_interval; /* ns between time-series rows */

    WkEngine *eng;
    WkJobRt *rt;        /* per job */
    uint32_t *order;    /* job ids by (submit, id) */
    uint64_t *freebits; /* bit g set = GPU g free and usable */
    size_t free_hint;   /* no free GPU in words below this index */
    uint32_t nfree;     /* GPUs free and usable */
    uint32_t ndown;     /* GPUs down */
    uint32_t *node_free;/* [nodes] free usable GPUs per node */
    uint32_t *pod_free; /* [pods] free usable GPUs per pod */
    uint32_t rr_next;   /* round-robin placement: where the next search starts */
    WkPlacement placement;
    WkTime preempt_cost;/* restart cost of a preempted job (scheduler `preemption_cost`) */
    WkTime tick_ns;     /* scheduler tick period, 0 = none */
    uint32_t tick_tok;
    size_t preemptions;
    uint32_t alloc;     /* GPUs allocated now */
    uint32_t running;   /* jobs running now */
    size_t queued, completed, rejected;
    int executed, finished;

    wk_u128 alloc_ns, idle_ns; /* GPU-ns integrals over [0, last_t] */
    double gpu_power_w;        /* sum of the GPUs' draw now, W */
    double net_power_w;        /* switches and optics, W (constant) */
    double energy_j;           /* facility energy over [0, last_t], J (PUE included) */
    WkTime last_t, end_t;
    uint32_t sample_tok;
    WkSampleRow *samples;
    size_t nsamples, capsamples;
};

/* Shared between run.c and run_exec.c. */
enum { WK_EV_SUBMIT = 0, WK_EV_END = 1, WK_EV_SAMPLE = 2, WK_EV_TICK = 3 };

/** Take GPU g out of the free pool / put it back (keeps nfree, node_free,
 * pod_free and the bitmap consistent). */
void wk_run_take_gpu(WkRun *r, uint32_t g);
void wk_run_free_gpu(WkRun *r, uint32_t g);

/** Nominal iteration time (s) of model job `job` on gpus[0..n) with the full
 * link rate, or NaN if it does not fit there. */
double wk_runjob_iter_on(const WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n);

/** Settle a running job's progress to now (plain and model jobs). */
void wk_runjob_settle(WkRun *r, uint32_t job, WkTime now);

/** A model job got its GPUs (rt->gpus set): derive its perf env from the
 * placement, add its flows, re-share the fabric, and post its end. Plain
 * jobs: post end at start + duration. */
int wk_runjob_start(WkRun *r, uint32_t job, WkError *err);

/** A job ends or stops: settle its progress, remove its flows and re-rate the
 * jobs whose share changed. */
int wk_runjob_stop(WkRun *r, uint32_t job, WkError *err);

/** Check every distinct (model, GPU count) of the workload on the cluster's
 * first SKU, so a job that can never fit in memory is refused before the
 * run. Positioned at the scenario file, naming the job. */
int wk_runjob_check(const WkRun *r, WkError *err);

/** Evaluate model m alone on the GPUs list[0..n) of c (list NULL = the first
 * n GPUs), in rank order, its ring flows sharing the fabric among
 * themselves: the perf result and the widest path class. For `wanka perf`
 * and tests. */
int wk_runjob_eval(const WkCluster *c, const WkModelSpec *m, const uint32_t *list, uint32_t n,
                   const WkPerfParams *pp, WkPerfResult *res, uint8_t *path_class, WkError *err);

/** Create the flow network for the cluster's fabric (none without one). */
int wk_runjob_net_init(WkRun *r, WkError *err);

#endif
