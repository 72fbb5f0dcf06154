/* SPDX-License-Identifier: Apache-2.0 */
/* lifecycle.c — a job's allocation lifecycle on a run: it gets its GPUs (from the
 * pool, with power and accounting), loses them (completion, preemption,
 * failure), is rejected; every change is accounted up to now first, and the
 * time series row of the instant is rewritten. The policy-facing checks
 * (right state, right count) live here so every path shares them. The
 * subsystems (recovery, energy) hear of each step through their slots
 * (models/state/state.h), in the order of models/run/subsys.c. */
#include "models/run/run_impl.h"

#include <stdlib.h>
#include <string.h>

static void account(WkRun *r, WkTime now) { wk_account_to(&r->acct, &r->pool, now); }

static double gpu_draw(const WkRun *r, uint32_t gpu, int busy)
{
    return wk_account_gpu_draw(&r->cluster, gpu, busy);
}

/* The subsystems' slots, each with its combining rule (state.h). */
static int admit(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    int rc = 0;
    for (size_t i = 0; r->subsys[i]; i++)
        if (r->subsys[i]->admit && r->subsys[i]->admit(r, r->sub_st[i], job, gpus, n) < 0)
            rc = WK_E_NOROOM; /* any veto wins; every subsystem hears the ask */
    return rc;
}

static WkTime placing(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now)
{
    WkTime delay = 0;
    for (size_t i = 0; r->subsys[i]; i++)
        if (r->subsys[i]->placing) {
            WkTime d = r->subsys[i]->placing(r, r->sub_st[i], job, gpus, n, now);
            delay = d > delay ? d : delay;
        }
    return delay;
}

static int held(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; r->subsys[i] && rc == 0; i++)
        if (r->subsys[i]->held)
            rc = r->subsys[i]->held(r, r->sub_st[i], job, gpus, n, err);
    return rc;
}

static int started(WkRun *r, uint32_t job, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; r->subsys[i] && rc == 0; i++)
        if (r->subsys[i]->started)
            rc = r->subsys[i]->started(r, r->sub_st[i], job, err);
    return rc;
}

static int released(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; r->subsys[i] && rc == 0; i++)
        if (r->subsys[i]->released)
            rc = r->subsys[i]->released(r, r->sub_st[i], job, gpus, n, now, err);
    return rc;
}

static int changed(WkRun *r, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; r->subsys[i] && rc == 0; i++)
        if (r->subsys[i]->changed)
            rc = r->subsys[i]->changed(r, r->sub_st[i], err);
    return rc;
}

void wk_lifecycle_stopping(WkRun *r, uint32_t job, WkStopWhy why)
{
    for (size_t i = 0; r->subsys[i]; i++)
        if (r->subsys[i]->stopping)
            r->subsys[i]->stopping(r, r->sub_st[i], job, why);
}

int wk_lifecycle_freed(WkRun *r, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; r->subsys[i] && rc == 0; i++)
        if (r->subsys[i]->freed)
            rc = r->subsys[i]->freed(r, r->sub_st[i], err);
    return rc;
}

/* A model job placed on a GPU whose memory cannot hold it (a cluster of
 * several SKUs): the policy's bug, named with the GPU and its group, before
 * anything changes. Free on a cluster of one memory size. */
static int misfit(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    double need = wk_progress_mem_need(r, job);
    for (uint32_t i = 0; need > 0 && i < n; i++) {
        if (gpus[i] >= r->cluster.gpus) /* the pool's check names it */
            continue;
        const WkNodeGroup *g = wk_cluster_group_of(&r->cluster, gpus[i]);
        const char *model = r->wl.models[r->wl.jobs[job].model - 1].name;
        if (g->sku->hbm_bytes < need)
            return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                                "scheduler %s: job %u (model %s, %.1f GiB per GPU) placed on GPU %u of node group "
                                "'%s' (%s, %.1f GiB), where it does not fit; place it with wk_sched_place_job, or "
                                "check wk_sched_job_fits_gpu",
                                r->si.ops->name, job, model ? model : "inline",
                                need / (1024.0 * 1024 * 1024), gpus[i], g->name, g->sku->name,
                                g->sku->hbm_bytes / (1024.0 * 1024 * 1024));
    }
    return 0;
}

/* A waiting job gets gpus[0..n): held from the pool, or with join set
 * (GPU sharing) as a tenant of shared GPU gpus[0], which stays held once. */
static int start(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, int join, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    static const char *const state_name[] = {[WK_JOB_PENDING] = "not yet submitted", [WK_JOB_QUEUED] = "waiting",
                                             [WK_JOB_RUNNING] = "already running", [WK_JOB_COMPLETED] = "completed",
                                             [WK_JOB_REJECTED] = "rejected"};
    if (rt->state != WK_JOB_QUEUED) {
        const char *st = (size_t)rt->state < sizeof state_name / sizeof state_name[0] && state_name[rt->state]
                             ? state_name[rt->state]
                             : "not waiting";
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                            "scheduler %s: start of job %u, which is %s (only a waiting job can be started)",
                            r->si.ops->name, job, st);
    }
    if (n != js->gpus)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                            "scheduler %s: start of job %u with %u GPUs, but it asks for %u", r->si.ops->name, job,
                            n, js->gpus);
    if (!rt->gpus && !(rt->gpus = malloc(((size_t)n + 1) * sizeof *rt->gpus)))
        return wk_error_nomem(err, "job placement");
    int rc = misfit(r, job, gpus, n, err);
    if (rc < 0)
        return rc;
    rc = admit(r, job, gpus, n);
    if (rc < 0) /* e.g. the facility budget has no room for it now: it waits */
        return rc;
    WkTime now = wk_engine_now(r->eng);
    account(r, now); /* up to now at the old allocation */
    WkTime wake = placing(r, job, gpus, n, now); /* e.g. a sleeping node boots first */
    uint32_t bad, milli = wk_run_job_milli(r, job);
    if (join) {
        wk_pool_share_join(&r->pool, gpus[0], job, milli);
    } else {
        if (wk_pool_hold(&r->pool, job, gpus, n, &bad) < 0)
            return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                                "scheduler %s: job %u placed on GPU %u which is busy, down or out of range",
                                r->si.ops->name, job, bad);
        if (milli) /* its GPU becomes a shared one, with 1000 - milli free */
            wk_pool_share_open(&r->pool, gpus[0], milli, now);
    }
    memcpy(rt->gpus, gpus, (size_t)n * sizeof *gpus);
    if (r->cluster.power.model_activity && !join) /* a model job's own activity follows when it is rated */
        for (uint32_t i = 0; i < n; i++)
            r->cluster.gpu_act[gpus[i]] = r->cluster.power.busy_activity;
    if ((rc = held(r, job, gpus, n, err)) < 0) /* e.g. the clock its scheduler chose */
        return rc;
    for (uint32_t i = 0; i < n && !join; i++) /* a shared GPU draws as busy once */
        r->acct.gpu_power_w += gpu_draw(r, gpus[i], 1) - gpu_draw(r, gpus[i], 0);
    r->running++;
    r->queued--;
    rt->state = WK_JOB_RUNNING;
    rt->alloc_t = now;
    if (rt->start < 0)
        rt->start = now;
    if (wake > rt->pending_cost)
        rt->pending_cost = wake;
    rt->seg_start = now + rt->pending_cost;
    rt->pending_cost = 0;
    if (!rt->token) {
        if ((rc = wk_engine_token_new(r->eng, &rt->token, err)) < 0)
            return rc;
    }
    if ((rc = wk_progress_start(r, job, err)) < 0 || (rc = started(r, job, err)) < 0)
        return rc;
    return changed(r, err);
}

int wk_lifecycle_begin(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    return start(r, job, gpus, n, 0, err);
}

int wk_lifecycle_join(WkRun *r, uint32_t job, WkError *err)
{
    uint32_t milli = wk_run_job_milli(r, job);
    uint32_t g = milli ? wk_pool_share_fit(&r->pool, milli) : WK_POOL_NONE;
    if (g == WK_POOL_NONE)
        return 0;
    int rc = start(r, job, &g, 1, 1, err);
    return rc == WK_E_NOROOM ? 0 : rc < 0 ? rc : 1; /* a subsystem's veto: it goes to the policy */
}

/* Remember an allocation [alloc_t, now) of a job's GPUs (per-GPU statistics,
 * the trace's placement table): a tenant's stay on a shared GPU places it. */
static int record_segment(WkRun *r, uint32_t job, WkTime now, WkError *err)
{
    const WkJobRt *rt = &r->rt[job];
    return wk_account_segment_kind(&r->acct, wk_run_job_milli(r, job) ? WK_SEG_TENANT : WK_SEG_JOB, job,
                                   rt->alloc_t, now, rt->gpus, r->wl.jobs[job].gpus, err);
}

int wk_lifecycle_record_open(WkRun *r, WkError *err)
{
    int rc = 0;
    for (size_t j = 0; j < r->wl.n && rc == 0; j++)
        if (r->rt && r->rt[j].state == WK_JOB_RUNNING)
            rc = record_segment(r, (uint32_t)j, r->end_t, err);
    for (uint32_t i = 0; i < r->pool.nshared && rc == 0; i++) { /* shared GPUs still held */
        uint32_t g = r->pool.shared[i];
        rc = wk_account_segment_kind(&r->acct, WK_SEG_SHARED, 0, r->pool.share_since[g], r->end_t, &g, 1, err);
    }
    return rc;
}

/* Give a stopped job's GPUs back (running → not running). */
int wk_lifecycle_release(WkRun *r, uint32_t job, WkTime now, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    uint32_t n = r->wl.jobs[job].gpus;
    int rc = record_segment(r, job, now, err);
    if (rc < 0)
        return rc;
    account(r, now);
    int kept = 0; /* a shared GPU (a 1-GPU job's) held on until its last tenant leaves */
    for (uint32_t i = 0; i < n; i++) { /* the draws read the cluster, not the pool */
        uint32_t g = rt->gpus[i];
        WkTime since;
        if (wk_pool_is_shared(&r->pool, g)) {
            if (!wk_pool_share_leave(&r->pool, g, job, wk_run_job_milli(r, job), &since)) {
                kept = 1;
                continue;
            }
            if ((rc = wk_account_segment_kind(&r->acct, WK_SEG_SHARED, job, since, now, &g, 1, err)) < 0)
                return rc;
        }
        r->acct.gpu_power_w += gpu_draw(r, g, 0) - gpu_draw(r, g, 1);
    }
    if (!kept)
        wk_pool_release_all(&r->pool, rt->gpus, n);
    r->running--;
    if ((rc = released(r, job, rt->gpus, n, now, err)) < 0)
        return rc;
    return changed(r, err);
}

int wk_lifecycle_requeue(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(r->eng);
    wk_progress_settle(r, job, now);
    wk_engine_cancel(r->eng, rt->token);
    wk_lifecycle_stopping(r, job, WK_STOP_REQUEUE);
    rt->state = WK_JOB_QUEUED; /* before stop: its own flows are not re-rated */
    int rc = wk_progress_stop(r, job, err);
    if (rc < 0)
        return rc;
    if ((rc = wk_lifecycle_release(r, job, now, err)) < 0)
        return rc;
    r->queued++;
    wk_run_resample(r, now);
    return 0;
}

int wk_lifecycle_preempt(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    if (rt->state != WK_JOB_RUNNING || rt->hung || rt->waiting)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                            "scheduler %s: preempt of job %u that is not preemptible (see wk_sched_job_preemptible)",
                            r->si.ops->name, job);
    int rc = wk_lifecycle_requeue(r, job, err);
    if (rc < 0)
        return rc;
    rt->preemptions++;
    r->preemptions++;
    rt->pending_cost = r->preempt_cost;
    return 0;
}

int wk_lifecycle_reject(WkRun *r, uint32_t job, const char *reason, WkError *err)
{
    if (r->rt[job].state != WK_JOB_QUEUED)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "scheduler %s: reject of job %u that is not waiting",
                            r->si.ops->name, job);
    r->rt[job].state = WK_JOB_REJECTED;
    r->rt[job].reject_reason = reason;
    r->queued--;
    r->rejected++;
    wk_quota_done(r, job); /* its user's quota: the held jobs it frees go on at the event's end */
    return 0;
}

