/* SPDX-License-Identifier: Apache-2.0 */
/* sched_host.c — the run as a scheduler host: the table of context
 * operations (models/sched/host.h) every WkSchedCtx of a run points at.
 * Queries read the run; actions go through lifecycle.c. */
#include "models/run/run_impl.h"

#include <math.h>
#include <stdlib.h>

#define RUN(h) ((WkRun *)(uintptr_t)(h))

static const WkCluster *host_cluster(const void *host) { return &RUN(host)->cluster; }
static WkTime host_now(const void *host) { return RUN(host)->eng ? wk_engine_now(RUN(host)->eng) : 0; }
static uint64_t host_seed(const void *host) { return RUN(host)->seed; }
static uint32_t host_free_gpus(const void *host) { return RUN(host)->pool.nfree; }
static uint32_t host_usable_gpus(const void *host) { return RUN(host)->cluster.gpus - RUN(host)->pool.ndown; }
static uint32_t host_job_gpus(const void *host, uint32_t job) { return RUN(host)->wl.jobs[job].gpus; }
static WkTime host_job_submit(const void *host, uint32_t job) { return RUN(host)->wl.jobs[job].submit; }
static int host_job_priority(const void *host, uint32_t job) { return RUN(host)->wl.jobs[job].priority; }
static int host_job_running(const void *host, uint32_t job) { return RUN(host)->rt[job].state == WK_JOB_RUNNING; }
static int host_job_preemptible(const void *host, uint32_t job)
{
    const WkJobRt *rt = &RUN(host)->rt[job];
    return rt->state == WK_JOB_RUNNING && !rt->hung && !rt->waiting && RUN(host)->wl.jobs[job].kind != WK_JOB_HPC;
}
static uint32_t host_node_free(const void *host, uint32_t node) { return RUN(host)->pool.node_free[node]; }
static uint32_t host_pod_free(const void *host, uint32_t pod) { return RUN(host)->pool.pod_free[pod]; }
static int host_gpu_health(const void *host, uint32_t gpu) { return RUN(host)->cluster.health[gpu]; }

static int host_gpu_is_free(const void *host, uint32_t gpu)
{
    const WkRun *r = RUN(host);
    return wk_pool_is_free(&r->pool, gpu);
}

static const uint32_t *host_job_placement(const void *host, uint32_t job, uint32_t *n)
{
    const WkRun *r = RUN(host);
    *n = r->rt[job].state == WK_JOB_RUNNING ? r->wl.jobs[job].gpus : 0;
    return r->rt[job].state == WK_JOB_RUNNING ? r->rt[job].gpus : NULL;
}

static double host_job_iter_s_on(const void *host, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    return wk_progress_iter_on(RUN(host), job, gpus, n);
}

static double host_job_estimate_s(const void *host, uint32_t job)
{
    WkRun *r = RUN(host);
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    if (!js->model)
        return wk_time_to_s(js->duration);
    if (rt->est_s == 0) {
        /* nominal: iterations x iteration time on the first GPUs of the cluster */
        double it = wk_progress_nominal_iter_s(r, job);
        const WkModelSpec *m = &r->wl.models[js->model - 1];
        double iters = js->iterations;
        if (iters <= 0) {
            double per = m->kind == WK_MODEL_LLM ? (double)m->global_batch * m->seq_len
                                                 : (double)m->batch_per_gpu * js->gpus;
            iters = per > 0 ? ceil(js->tokens / per) : 0;
        }
        rt->est_s = isnan(it) ? INFINITY : iters * it;
    }
    return rt->est_s;
}

double wk_run_job_estimate_s(WkRun *r, uint32_t job) { return host_job_estimate_s(r, job); }

static double host_job_remaining_s(const void *host, uint32_t job)
{
    WkRun *r = RUN(host);
    WkJobRt *rt = &r->rt[job];
    if (rt->state == WK_JOB_RUNNING)
        wk_progress_settle(r, job, wk_engine_now(r->eng));
    if (!r->wl.jobs[job].model)
        return wk_time_to_s(rt->left_ns);
    double est = host_job_estimate_s(host, job);
    if (rt->work <= 0)
        return est;
    return est * (1 - rt->done / rt->work);
}

static double host_job_attained_gpu_s(const void *host, uint32_t job)
{
    const WkRun *r = RUN(host);
    const WkJobRt *rt = &r->rt[job];
    double a = rt->attained_gpu_s;
    if (rt->state == WK_JOB_RUNNING) {
        WkTime now = wk_engine_now(r->eng);
        if (now > rt->seg_start)
            a += (double)r->wl.jobs[job].gpus * wk_time_to_s(now - rt->seg_start);
    }
    return a;
}

static int host_start(void *host, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    return wk_lifecycle_begin(RUN(host), job, gpus, n, err);
}

static int host_preempt(void *host, uint32_t job, WkError *err)
{
    if (RUN(host)->wl.jobs[job].kind == WK_JOB_HPC)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "scheduler: job %u is an hpc job, never preempted", job);
    return wk_lifecycle_preempt(RUN(host), job, err);
}

static int host_reject(void *host, uint32_t job, const char *reason, WkError *err)
{
    return wk_lifecycle_reject(RUN(host), job, reason, err);
}

static double host_power_headroom_w(const void *host) { return wk_budget_headroom_w(RUN(host), wk_run_budget(RUN(host))); }

static double host_job_power_w(const void *host, uint32_t job)
{
    const WkRun *r = RUN(host);
    const WkCluster *c = &r->cluster;
    const WkNodeGroup *g = &c->groups[0];
    double gk = g->cap_clock < 1 ? wk_dvfs_power_frac(g->dvfs, g->cap_clock) : 1.0;
    return r->wl.jobs[job].gpus * (g->sku->tdp_w - g->sku->idle_w) * c->power.busy_activity * gk * c->power.pue;
}

static int host_job_deferrable(const void *host, uint32_t job) { return RUN(host)->wl.jobs[job].deferrable; }
static int host_job_kind(const void *host, uint32_t job) { return RUN(host)->wl.jobs[job].kind; }

static double host_price_now(const void *host)
{
    const WkRun *r = RUN(host);
    const WkTariffRow *t = wk_facility_tariff_at(&r->fac, host_now(host));
    return t ? t->price_per_mwh : NAN;
}

static double host_price_mean(const void *host) { return wk_facility_price_mean(&RUN(host)->fac); }

static int host_budget_mode(const void *host)
{
    const WkRun *r = RUN(host);
    if (!r->fac.nbudget)
        return WK_SCHED_BUDGET_NONE;
    return r->fac.mode == WK_BUDGET_HOLD     ? WK_SCHED_BUDGET_HOLD
           : r->fac.mode == WK_BUDGET_POLICY ? WK_SCHED_BUDGET_POLICY
                                             : WK_SCHED_BUDGET_CAP;
}

static double host_job_clock_floor(const void *host, uint32_t job)
{
    return wk_budget_job_clock_floor(RUN(host), job);
}

static double host_job_power_at_w(const void *host, uint32_t job, double clock, double *idle_w)
{
    return wk_budget_job_power_at_w(RUN(host), job, clock, idle_w);
}

static double host_job_time_factor(const void *host, uint32_t job, double clock)
{
    return wk_budget_job_time_factor(RUN(host), job, clock);
}

static int host_set_job_clock(void *host, uint32_t job, double clock, WkError *err)
{
    return wk_budget_set_job_clock(RUN(host), wk_run_budget(RUN(host)), job, clock, err);
}

static double host_job_mem_need(const void *host, uint32_t job) { return wk_progress_mem_need(RUN(host), job); }
static const uint64_t *host_node_gens(const void *host, uint64_t *gen)
{
    *gen = RUN(host)->pool.gen;
    return RUN(host)->pool.node_gen;
}

static WkPlacement host_placement(const void *host) { return RUN(host)->placement; }

static int host_place_with(const void *host, WkPlacement how, uint32_t n, uint32_t *out,
                           int (*allowed)(uint32_t gpu, void *user), void *user)
{
    return wk_pool_place(&RUN(host)->pool, how, n, out, allowed, user);
}

/* The run as a scheduler host (models/sched/host.h). */
const WkSchedHostOps wk_run_sched_host = {
    .cluster = host_cluster,
    .now = host_now,
    .seed = host_seed,
    .free_gpus = host_free_gpus,
    .usable_gpus = host_usable_gpus,
    .gpu_is_free = host_gpu_is_free,
    .gpu_health = host_gpu_health,
    .node_free = host_node_free,
    .pod_free = host_pod_free,
    .job_gpus = host_job_gpus,
    .job_submit = host_job_submit,
    .job_priority = host_job_priority,
    .job_estimate_s = host_job_estimate_s,
    .job_remaining_s = host_job_remaining_s,
    .job_attained_gpu_s = host_job_attained_gpu_s,
    .job_running = host_job_running,
    .job_preemptible = host_job_preemptible,
    .job_placement = host_job_placement,
    .job_iter_s_on = host_job_iter_s_on,
    .placement = host_placement,
    .place_with = host_place_with,
    .start = host_start,
    .preempt = host_preempt,
    .reject = host_reject,
    .power_headroom_w = host_power_headroom_w,
    .job_power_w = host_job_power_w,
    .job_deferrable = host_job_deferrable,
    .price_now = host_price_now,
    .price_mean = host_price_mean,
    .job_kind = host_job_kind,
    .budget_mode = host_budget_mode,
    .job_clock_floor = host_job_clock_floor,
    .job_power_at_w = host_job_power_at_w,
    .job_time_factor = host_job_time_factor,
    .set_job_clock = host_set_job_clock,
    .job_mem_need = host_job_mem_need,
    .node_gens = host_node_gens,
};

