/* SPDX-License-Identifier: Apache-2.0 */
/* hooks.c — read-only views of a run for tests (see hooks.h). */
#include "models/run/run_impl.h"

WkRunJobView wk_run_hooks_job(const WkRun *r, uint32_t job)
{
    const WkJobRt *rt = &r->rt[job];
    return (WkRunJobView){
        .state = rt->state,
        .start = rt->start,
        .end = rt->end,
        .gpus = rt->gpus,
        .ngpus = r->wl.jobs[job].gpus,
        .preemptions = rt->preemptions,
        .interruptions = wk_run_fail(r)->job ? wk_run_fail(r)->job[job].interruptions : 0,
        .hung = rt->hung,
        .iter_s = rt->iter_s,
        .nflows = rt->nflows,
        .reject_reason = rt->reject_reason,
    };
}

WkRunCounts wk_run_hooks_counts(const WkRun *r)
{
    return (WkRunCounts){.queued = r->queued, .running = r->running, .completed = r->completed,
                         .rejected = r->rejected};
}

const WkCluster *wk_run_hooks_cluster(const WkRun *r) { return &r->cluster; }
const WkWorkload *wk_run_hooks_workload(const WkRun *r) { return &r->wl; }
const WkPool *wk_run_hooks_pool(const WkRun *r) { return &r->pool; }
const WkAccount *wk_run_hooks_account(const WkRun *r) { return &r->acct; }
const WkRunBudget *wk_run_hooks_budget(const WkRun *r) { return wk_run_budget(r); }
WkTime wk_run_hooks_now(const WkRun *r) { return r->eng ? wk_engine_now(r->eng) : 0; }
WkTime wk_run_hooks_end(const WkRun *r) { return r->end_t; }
WkTime wk_run_hooks_sample_interval(const WkRun *r) { return r->sample_interval; }
size_t wk_run_hooks_fabric_flows(const WkRun *r) { return r->share.net ? wk_flownet_count(r->share.net) : 0; }
size_t wk_run_hooks_incidents(const WkRun *r) { return wk_run_fail(r)->nincidents; }

WkRunIncidentView wk_run_hooks_incident(const WkRun *r, size_t i)
{
    const WkIncidentRow *row = &wk_run_fail(r)->incidents[i];
    return (WkRunIncidentView){
        .id = row->id,
        .cls = row->cls,
        .kind = row->kind,
        .component = row->component,
        .start_ns = row->start_ns,
        .end_ns = row->end_ns,
        .jobs_hit = row->jobs_hit,
        .gpus_lost = row->gpus_lost,
        .restart_s = row->restart_s,
        .recovery_s = row->recovery_s,
    };
}

WkSchedInst *wk_run_hooks_sched(WkRun *r) { return &r->si; }
