/* SPDX-License-Identifier: Apache-2.0 */
/* run_impl.h — the run's internal state, shared by run.c (driver) and
 * run_report.c (summary, trace). Not a public header. */
#ifndef WK_RUN_IMPL_H
#define WK_RUN_IMPL_H

#include "sim/run.h"
#include "models/sched/sched.h"
#include "models/topo/cluster.h"
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
    const char *reject_reason; /* static string from the policy */
} WkJobRt;

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
    WkTime horizon;         /* sim.end, or WK_TIME_NEVER */
    WkTime sample_interval; /* ns between time-series rows */

    WkEngine *eng;
    WkJobRt *rt;        /* per job */
    uint32_t *order;    /* job ids by (submit, id) */
    uint64_t *freebits; /* bit g set = GPU g free */
    size_t free_hint;   /* no free GPU in words below this index */
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

#endif
