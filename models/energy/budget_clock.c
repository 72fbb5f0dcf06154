/* SPDX-License-Identifier: Apache-2.0 */
/* budget_clock.c — clocks the scheduler chooses per job
 * (wk_sched_set_job_clock): the chosen clock of each job and of the GPUs it
 * holds, the running jobs under one (for the facility bound of budget.c),
 * what a job would draw and how long it would run at a clock (the
 * scheduler's queries), and the trade-off the chosen clocks make: the
 * energy they saved for the same work and the GPU-time they cost (see
 * budget.h; the model in docs/models.md, "Per-job clocks chosen by the
 * scheduler", the metrics in docs/metrics.md). */
#include "models/energy/energy_impl.h"

#include <math.h>
#include <stdlib.h>

/* Allocate the per-job clock state on the first chosen clock. */
static int ensure(WkRun *r, WkRunBudget *b, WkError *err)
{
    if (b->job_clock)
        return 0;
    size_t nj = r->wl.n ? r->wl.n : 1;
    b->job_clock = malloc(nj * sizeof *b->job_clock);
    b->gpu_clock = malloc((size_t)r->cluster.gpus * sizeof *b->gpu_clock);
    b->rate = calloc(nj, sizeof *b->rate);
    b->ck_busy = calloc(r->cluster.ngroups, sizeof *b->ck_busy);
    if (!b->job_clock || !b->gpu_clock || !b->rate || !b->ck_busy) {
        wk_budget_clock_fini(b);
        return wk_error_nomem(err, "scheduler clocks");
    }
    for (size_t j = 0; j < nj; j++)
        b->job_clock[j] = 1.0;
    for (uint32_t g = 0; g < r->cluster.gpus; g++)
        b->gpu_clock[g] = 1.0;
    r->cluster.policy_clock = b->gpu_clock;
    return 0;
}

static void update_flag(WkRun *r, WkRunBudget *b)
{
    r->cluster.site_capped = r->cluster.site_clock < 1 || b->nck;
}

int wk_budget_clock_on(WkRun *r, WkRunBudget *b, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    const WkCluster *c = &r->cluster;
    if (!b->job_clock || !(b->job_clock[job] < 1))
        return 0;
    if (b->nck == b->capck) {
        size_t nc = b->capck ? 2 * b->capck : 16;
        WkClockedJob *ck = realloc(b->ck, nc * sizeof *ck);
        if (!ck)
            return wk_error_nomem(err, "scheduler clocks");
        for (size_t i = b->capck; i < nc; i++)
            ck[i].count = NULL;
        b->ck = ck;
        b->capck = nc;
    }
    WkClockedJob *e = &b->ck[b->nck];
    if (!e->count && !(e->count = malloc(c->ngroups * sizeof *e->count)))
        return wk_error_nomem(err, "scheduler clocks");
    for (uint32_t k = 0; k < c->ngroups; k++)
        e->count[k] = 0;
    e->job = job;
    e->clock = b->job_clock[job];
    for (uint32_t i = 0; i < n; i++) {
        uint16_t k = c->node_group[c->gpu_node[gpus[i]]];
        e->count[k]++;
        b->ck_busy[k]++;
        b->gpu_clock[gpus[i]] = e->clock;
    }
    b->nck++;
    update_flag(r, b);
    return 0;
}

void wk_budget_clock_off(WkRun *r, WkRunBudget *b, uint32_t job)
{
    if (!b->job_clock)
        return;
    b->rate[job].on = 0;
    size_t i = 0;
    while (i < b->nck && b->ck[i].job != job)
        i++;
    if (i == b->nck)
        return;
    for (uint32_t k = 0; k < r->cluster.ngroups; k++)
        b->ck_busy[k] -= b->ck[i].count[k];
    const uint32_t *gpus = r->rt[job].gpus;
    for (uint32_t g = 0; g < r->wl.jobs[job].gpus; g++)
        b->gpu_clock[gpus[g]] = 1.0;
    WkClockedJob gone = b->ck[i]; /* swap with the last; its count array is reused */
    b->ck[i] = b->ck[b->nck - 1];
    b->ck[b->nck - 1] = gone;
    b->nck--;
    update_flag(r, b);
}

int wk_budget_set_job_clock(WkRun *r, WkRunBudget *b, uint32_t job, double f, WkError *err)
{
    const char *name = r->si.ops ? r->si.ops->name : "scheduler";
    if (!(f > 0 && f <= 1))
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "scheduler %s: clock %g for job %u is outside (0, 1]",
                            name, f, job);
    if (job >= r->wl.n || (r->rt[job].state != WK_JOB_QUEUED && r->rt[job].state != WK_JOB_RUNNING))
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                            "scheduler %s: clock for job %u, which neither waits nor runs", name, job);
    int rc = ensure(r, b, err);
    if (rc < 0 || b->job_clock[job] == f)
        return rc;
    WkJobRt *rt = &r->rt[job];
    if (rt->state != WK_JOB_RUNNING) { /* applies when it starts */
        b->job_clock[job] = f;
        return 0;
    }
    WkTime now = wk_engine_now(r->eng);
    wk_progress_settle(r, job, now); /* progress and the old clock's trade-off up to now */
    wk_run_account_to(r, now);       /* energy at the old draw */
    uint32_t n = r->wl.jobs[job].gpus;
    for (uint32_t i = 0; i < n; i++)
        r->acct.gpu_power_w -= wk_account_gpu_draw(&r->cluster, rt->gpus[i], 1);
    wk_budget_clock_off(r, b, job);
    b->job_clock[job] = f;
    if ((rc = wk_budget_clock_on(r, b, job, rt->gpus, n, err)) < 0)
        return rc;
    for (uint32_t i = 0; i < n; i++)
        r->acct.gpu_power_w += wk_account_gpu_draw(&r->cluster, rt->gpus[i], 1);
    if (!rt->hung && !rt->waiting)
        rc = wk_progress_refresh(r, job, 1, err);
    return rc < 0 ? rc : wk_budget_enforce(r, b, err);
}

/* Clock factor of a busy GPU of group g at clock f without the site clock. */
static double group_clamp(const WkNodeGroup *g, double f)
{
    double fk = g->cap_clock < f ? g->cap_clock : f;
    return fk > g->floor_clock ? fk : g->floor_clock;
}

/* The job's slowest GPU at clock f (a synchronous job runs at it): on its
 * placement when it runs, else on the cluster's first group. */
static double job_clamp(const WkRun *r, uint32_t job, double f)
{
    const WkCluster *c = &r->cluster;
    if (r->rt[job].state != WK_JOB_RUNNING)
        return group_clamp(&c->groups[0], f);
    double lo = 1.0;
    for (uint32_t i = 0; i < r->wl.jobs[job].gpus; i++) {
        double fk = group_clamp(wk_cluster_group_of(c, r->rt[job].gpus[i]), f);
        lo = fk < lo ? fk : lo;
    }
    return lo;
}

void wk_budget_clock_rate(WkRun *r, WkRunBudget *b, uint32_t job)
{
    if (!b->job_clock)
        return;
    WkClockRate *q = &b->rate[job];
    q->on = 0;
    q->saved_w = q->lost_gpus = 0;
    if (!(b->job_clock[job] < 1))
        return;
    const WkCluster *c = &r->cluster;
    const WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    double fa = 1.0, fo = 1.0, pa = 0, po = 0;
    for (uint32_t i = 0; i < js->gpus; i++) { /* as it runs, and as it would without its chosen clock */
        uint32_t g = rt->gpus[i];
        const WkNodeGroup *grp = wk_cluster_group_of(c, g);
        double a = wk_cluster_cap_clock(c, g), o = group_clamp(grp, c->site_clock);
        fa = a < fa ? a : fa;
        fo = o < fo ? o : fo;
        pa += wk_account_gpu_draw(c, g, 1);
        po += wk_power_gpu_w(grp->sku, (WkGpuHealth)c->health[g], c->clock[g],
                             c->gpu_act[g] * (o < 1 ? wk_dvfs_power_frac(grp->dvfs, o) : 1.0));
    }
    if (!(fa < fo) && !(pa < po))
        return; /* the chosen clock does not bind */
    double rho = 1.0; /* run time at fo / run time now, for the same work */
    if (js->model && rt->iter_s > 0) {
        WkPerfEnv env = rt->env;
        env.cap_clock = fo;
        WkPerfResult res;
        WkError e;
        wk_error_clear(&e);
        if (wk_perf_eval(&r->wl.models[js->model - 1], &env, &r->perf, &res, &e) == 0)
            rho = res.iter_s / rt->iter_s;
    } else if (!js->model) {
        double s = c->power.compute_share;
        rho = wk_dvfs_time_factor(fo, s) / wk_dvfs_time_factor(fa, s);
    }
    q->saved_w = (po * rho - pa) * c->power.pue;
    q->lost_gpus = js->gpus * (1 - rho);
    q->on = q->ever = 1;
}

void wk_budget_clock_settle(WkRun *r, WkRunBudget *b, uint32_t job, WkTime t0, WkTime t1)
{
    const WkClockRate *q = &b->rate[job];
    if (!q->on || t1 <= t0)
        return;
    double dt = wk_time_to_s(t1 - t0);
    b->pc_saved_j += q->saved_w * dt;
    b->pc_lost_gpu_s += q->lost_gpus * dt;
    if (r->fac.ntariff) /* the run's span is covered (checked at prepare) */
        (void)wk_facility_charge(&r->fac, t0, t1, q->saved_w, &b->pc_cost, &b->pc_co2_kg);
}

double wk_budget_job_power_at_w(const WkRun *r, uint32_t job, double f, double *idle_w)
{
    if (job >= r->wl.n)
        return NAN;
    const WkCluster *c = &r->cluster;
    const WkJobSpec *js = &r->wl.jobs[job];
    double idle = 0, dyn = 0;
    if (r->rt[job].state == WK_JOB_RUNNING) {
        for (uint32_t i = 0; i < js->gpus; i++) {
            const WkNodeGroup *g = wk_cluster_group_of(c, r->rt[job].gpus[i]);
            idle += g->sku->idle_w;
            dyn += (g->sku->tdp_w - g->sku->idle_w) * wk_budget_gpu_frac(g, f, 1.0);
        }
    } else {
        const WkNodeGroup *g = &c->groups[0];
        idle = js->gpus * g->sku->idle_w;
        dyn = js->gpus * (g->sku->tdp_w - g->sku->idle_w) * wk_budget_gpu_frac(g, f, 1.0);
    }
    if (idle_w)
        *idle_w = idle * c->power.pue;
    return (idle + dyn * c->power.busy_activity) * c->power.pue;
}

/* Iteration time of a model job with its slowest GPU at clock factor cap:
 * in its environment when it runs, else alone on the cluster's first GPUs
 * at full link rate (as its nominal iteration time). NaN when it cannot be
 * evaluated. */
static double iter_at(WkRun *r, uint32_t job, double cap)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    const WkModelSpec *m = &r->wl.models[js->model - 1];
    WkPerfEnv env;
    if (r->rt[job].state == WK_JOB_RUNNING) {
        env = r->rt[job].env;
    } else {
        if (js->gpus > r->cluster.gpus)
            return NAN;
        uint32_t *g = malloc(((size_t)js->gpus + 1) * sizeof *g);
        if (!g)
            return NAN;
        for (uint32_t i = 0; i < js->gpus; i++)
            g[i] = i;
        wk_eval_env(&r->cluster, m, g, js->gpus, 1.0, &env);
        free(g);
        env.speed = 1.0;
    }
    env.cap_clock = cap;
    WkPerfResult res;
    WkError e;
    wk_error_clear(&e);
    return wk_perf_eval(m, &env, &r->perf, &res, &e) < 0 ? NAN : res.iter_s;
}

double wk_budget_job_time_factor(WkRun *r, uint32_t job, double f)
{
    if (job >= r->wl.n)
        return NAN;
    double cf = job_clamp(r, job, f), c1 = job_clamp(r, job, 1.0);
    if (!r->wl.jobs[job].model) {
        double s = r->cluster.power.compute_share;
        return wk_dvfs_time_factor(cf, s) / wk_dvfs_time_factor(c1, s);
    }
    if (cf == c1)
        return 1.0;
    return iter_at(r, job, cf) / iter_at(r, job, c1);
}

double wk_budget_job_clock_floor(const WkRun *r, uint32_t job)
{
    if (job >= r->wl.n)
        return NAN;
    const WkCluster *c = &r->cluster;
    if (r->rt[job].state != WK_JOB_RUNNING)
        return c->groups[0].floor_clock;
    double lo = 1.0;
    for (uint32_t i = 0; i < r->wl.jobs[job].gpus; i++) {
        double f = wk_cluster_group_of(c, r->rt[job].gpus[i])->floor_clock;
        lo = f < lo ? f : lo;
    }
    return lo;
}

void wk_budget_clock_fini(WkRunBudget *b)
{
    for (size_t i = 0; i < b->capck; i++)
        free(b->ck[i].count);
    free(b->ck);
    free(b->job_clock);
    free(b->gpu_clock);
    free(b->rate);
    free(b->ck_busy);
    b->ck = NULL;
    b->capck = b->nck = 0;
    b->job_clock = b->gpu_clock = NULL;
    b->rate = NULL;
    b->ck_busy = NULL;
}
