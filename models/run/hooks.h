/* SPDX-License-Identifier: Apache-2.0 */
/* hooks.h — the one door tests use into a run's private state: read-only
 * views of jobs, counts, the pool, the time series and the incidents, and
 * the policy instance (the conformance checks, conform.c, put a guard in
 * front of it). Tests and conform.c include this header, never run_impl.h,
 * so the run's internals can change without touching them. Not for the CLI
 * or batch code (they reach the checks through conform.h). */
#ifndef WK_RUN_HOOKS_H
#define WK_RUN_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "models/energy/budget.h"
#include "models/run/run.h"
#include "models/state/state.h"

/* What a test may see of one job. */
typedef struct WkRunJobView {
    int state;                 /* WkJobState */
    WkTime start, end;         /* ns; -1 until it happens */
    const uint32_t *gpus;      /* its placement while running or last placement (borrowed), or NULL */
    uint32_t ngpus;            /* GPUs it asks for */
    uint32_t preemptions;      /* times stopped by the scheduler */
    uint32_t interruptions;    /* times hit by a failure */
    int hung;                  /* hit by a failure, not yet detected */
    double iter_s;             /* current iteration time, s (model jobs) */
    uint32_t nflows;           /* its flows on the fabric now: rings, and an all-to-all across domains */
    const char *reject_reason; /* the policy's reason, or NULL */
} WkRunJobView;

/* Counts of jobs by state now. */
typedef struct WkRunCounts {
    size_t queued, running, completed, rejected;
} WkRunCounts;

/** View of job (job < number of jobs). */
WkRunJobView wk_run_hooks_job(const WkRun *r, uint32_t job);

/** Jobs by state now. */
WkRunCounts wk_run_hooks_counts(const WkRun *r);

/** The run's cluster, workload, pool and accounting (borrowed). */
const WkCluster *wk_run_hooks_cluster(const WkRun *r);
const WkWorkload *wk_run_hooks_workload(const WkRun *r);
const WkPool *wk_run_hooks_pool(const WkRun *r);
const WkAccount *wk_run_hooks_account(const WkRun *r);

/** The facility series and budget state (borrowed; no rows without `facility:`). */
const WkRunBudget *wk_run_hooks_budget(const WkRun *r);

/** Simulated time now (0 before the run starts). */
WkTime wk_run_hooks_now(const WkRun *r);

/** Simulated end of the run and the time-series sample interval, ns. */
WkTime wk_run_hooks_end(const WkRun *r);
WkTime wk_run_hooks_sample_interval(const WkRun *r);

/** Flows on the run's fabric now, of every job (0 without a fabric). */
size_t wk_run_hooks_fabric_flows(const WkRun *r);

/** The incidents table so far: *n rows of the trace's `incidents` columns. */
typedef struct WkRunIncidentView {
    uint32_t id;
    int cls;            /* failure class, or the class count for a process/scripted event */
    int kind;           /* incident kind */
    uint32_t component; /* its index in its class or scope */
    int64_t start_ns, end_ns;
    uint32_t jobs_hit, gpus_lost;
    double restart_s;   /* restart cost of the last job restarted, s (NaN: none yet) */
    double recovery_s;
} WkRunIncidentView;
size_t wk_run_hooks_incidents(const WkRun *r);
WkRunIncidentView wk_run_hooks_incident(const WkRun *r, size_t i);

/** The policy instance (a test may replace its ops and private state, as
 * the conformance guard does; the run then calls through them). */
WkSchedInst *wk_run_hooks_sched(WkRun *r);

#endif
