/* SPDX-License-Identifier: Apache-2.0 */
/* run_impl.h — the run's internal state, shared by the files of models/run
 * (the driver: events, lifecycle, scheduler host, report, the subsystem
 * table). The run's state itself is models/state/state.h. Private to
 * models/run: tests use models/run/hooks.h, everyone else run.h. */
#ifndef WK_RUN_IMPL_H
#define WK_RUN_IMPL_H

#include "models/energy/energy.h"
#include "models/mech/cascade.h"
#include "models/mech/division.h"
#include "models/mech/outsource.h"
#include "models/recovery/recovery.h"
#include "models/run/hooks.h"
#include "models/run/run.h"
#include "models/state/state.h"
#include "sim/scenario/section.h"

struct WkTrace;

/* The subsystems a run carries, in the order their slots run
 * (models/run/subsys.c; docs/architecture.md, "Subsystems"). */
extern const WkRunSubsysOps *const wk_run_subsys[];

/** The state blocks of the subsystems the driver reads (NULL before
 * prepare attached them). */
static inline WkRunFail *wk_run_fail(const WkRun *r) { return wk_run_sub(r, &wk_recovery); }
static inline WkRunBudget *wk_run_budget(const WkRun *r) { return wk_run_sub(r, &wk_energy_budget); }
static inline WkRunSleep *wk_run_sleep(const WkRun *r) { return wk_run_sub(r, &wk_energy_sleep); }

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

/** The trace's nodes and placement tables of a single-site run
 * (run_place.c; docs/trace-format.md, schema 1.6), from the allocation
 * record with its open segments. Returns 0 or the first error. */
int wk_run_write_placement(const WkRun *r, WkTrace *t, WkError *err);

/** Jobs' allocation lifecycle (models/run/lifecycle.c). begin: a waiting job gets
 * gpus[0..n) (a policy bug, wrong state or count or a busy GPU, gives
 * WK_E_INTERNAL naming the scheduler). release: a stopped job's GPUs go back
 * (its allocation recorded). preempt: a running job back to the queue paying
 * preemption_cost at its next start. reject: a waiting job refused for good.
 * Each accounts up to now first. */
int wk_lifecycle_begin(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);

/** GPU sharing (workload.gpu_sharing; docs/models.md, "GPU sharing"): a
 * waiting job with a share of a GPU starts at once as a tenant of the shared
 * GPU it best fits (wk_pool_share_fit), outside the policy. Returns 1 when
 * it started, 0 when it did not (no sharing, no share, no room, or a
 * subsystem's veto: it goes to the policy), or a negative code. */
int wk_lifecycle_join(WkRun *r, uint32_t job, WkError *err);

/** The share in thousandths (1 to 999) job takes of its GPU when GPUs are
 * shared in this run; 0 for a job of whole GPUs or a run without sharing. */
static inline uint32_t wk_run_job_milli(const WkRun *r, uint32_t job)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    return r->pool.share_free && js->gpus == 1 && js->gpu_milli < 1000 ? js->gpu_milli : 0;
}
int wk_lifecycle_release(WkRun *r, uint32_t job, WkTime now, WkError *err);
int wk_lifecycle_preempt(WkRun *r, uint32_t job, WkError *err);
int wk_lifecycle_reject(WkRun *r, uint32_t job, const char *reason, WkError *err);

/** Tell the subsystems a job is about to stop (slot `stopping`), and that
 * capacity came back (slot `freed`; 0 or the first negative code). */
void wk_lifecycle_stopping(WkRun *r, uint32_t job, WkStopWhy why);
int wk_lifecycle_freed(WkRun *r, WkError *err);

/** At the end of a run: record the allocations still open (running jobs).
 * Returns 0 or WK_E_NOMEM. */
int wk_lifecycle_record_open(WkRun *r, WkError *err);

/** Stop a running (or hung) job and put it back to QUEUED: progress
 * settled, events cancelled, flows removed, GPUs released (down ones stay
 * out of the pool). The caller tells the scheduler. */
int wk_lifecycle_requeue(WkRun *r, uint32_t job, WkError *err);

/** Per-user GPU quotas (quota.c; `workload.quotas`, docs/scenarios.md
 * "Quotas"). prepare: r->quota from the workload's quotas (stated, or each
 * user's share of the workload's GPU-time of the cluster's GPUs, rounded,
 * at least 1), NULL without quotas; 0 or WK_E_NOMEM. hold: 1 when job must
 * wait for its user's quota (it joins its user's line), 0 when it may go to
 * the policy now (its GPUs then count against its user). done: a job that
 * went to the policy finished or was rejected: its GPUs leave the count.
 * next: a held job that now fits (taken from its line and counted), or
 * UINT32_MAX. limit: user's quota in GPUs (1-based user), 0 for none.
 * Every call is O(1) but next, amortised O(1) per job; all accept a run
 * without quotas (no-ops). */
int wk_quota_prepare(WkRun *r, WkError *err);
int wk_quota_hold(WkRun *r, uint32_t job);
void wk_quota_done(WkRun *r, uint32_t job);
uint32_t wk_quota_next(WkRun *r);
uint32_t wk_quota_limit(const WkRun *r, uint32_t user);
void wk_quota_free(WkRunQuota *q);

/** The run as a scheduler host: the table behind every WkSchedCtx of a run. */
extern const WkSchedHostOps wk_run_sched_host;

#endif
