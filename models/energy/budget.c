/* SPDX-License-Identifier: Apache-2.0 */
/* budget.c — enforcing the facility's power budget in a run (see budget.h;
 * the model in docs/models.md, "Facility power budget"). */
#include "models/energy/energy_impl.h"

#include <math.h>
#include <stdlib.h>

/* Facility draw bound with busy[k] GPUs busy in group k at site clock f:
 * every GPU's idle draw, plus each busy GPU's dynamic draw at its cap clock
 * clamped by f (throttles only lower it) and, with `chosen`, by the clock
 * the scheduler chose for its job, plus the network, times PUE. */
static double bound_at(const WkRun *r, const WkRunBudget *b, const uint32_t *busy, double f, int chosen)
{
    const WkCluster *c = &r->cluster;
    double w = b->idle_w + b->net_w;
    chosen = chosen && b->nck;
    for (uint32_t k = 0; k < c->ngroups; k++) {
        const WkNodeGroup *g = &c->groups[k];
        uint32_t n = busy[k] - (chosen ? b->ck_busy[k] : 0);
        if (!n)
            continue;
        double gk = wk_budget_gpu_frac(g, f, 1.0);
        w += n * (g->sku->tdp_w - g->sku->idle_w) * c->power.busy_activity * gk;
    }
    for (size_t i = 0; chosen && i < b->nck; i++)
        for (uint32_t k = 0; k < c->ngroups; k++) {
            const WkNodeGroup *g = &c->groups[k];
            if (b->ck[i].count[k])
                w += b->ck[i].count[k] * (g->sku->tdp_w - g->sku->idle_w) * c->power.busy_activity *
                     wk_budget_gpu_frac(g, f, b->ck[i].clock);
        }
    return w * c->power.pue;
}

/* The bound the run enforces: chosen clocks included. */
static double bound_w(const WkRun *r, const WkRunBudget *b, const uint32_t *busy, double f) { return bound_at(r, b, busy, f, 1); }

/* The largest site clock in [0, 1] whose bound fits the limit (0 when even
 * the floors do not). */
static double fit_clock(const WkRun *r, const WkRunBudget *b, const uint32_t *busy)
{
    double lim = b->limit_w;
    if (bound_w(r, b, busy, 1.0) <= lim)
        return 1.0;
    double lo = 0, hi = 1;
    while (hi - lo > 1e-9) {
        double m = 0.5 * (lo + hi);
        if (bound_w(r, b, busy, m) <= lim)
            lo = m;
        else
            hi = m;
    }
    return lo;
}

int wk_budget_init(WkRun *r, WkRunBudget *b, WkError *err)
{
    const WkCluster *c = &r->cluster;
    b->limit_w = INFINITY;
    b->capped_since = -1;
    if (!r->fac.nbudget)
        return 0;
    if (!(b->busy = calloc(c->ngroups, sizeof *b->busy)))
        return wk_error_nomem(err, "facility budget");
    for (uint32_t k = 0; k < c->ngroups; k++)
        b->idle_w += (double)c->groups[k].nodes * c->groups[k].gpus_per_node * c->groups[k].sku->idle_w;
    b->limit_w = r->fac.budget[0].w;
    b->net_w = wk_cluster_network_w(c);
    /* An idle cluster must fit every step, and so must a busy one at its
     * floor clocks once the budget changes under running jobs. */
    uint32_t *all = malloc(c->ngroups * sizeof *all);
    if (!all)
        return wk_error_nomem(err, "facility budget");
    uint32_t *none = b->busy;
    for (uint32_t k = 0; k < c->ngroups; k++)
        all[k] = c->groups[k].nodes * c->groups[k].gpus_per_node;
    int rc = 0;
    for (size_t i = 0; i < r->fac.nbudget && rc == 0; i++) {
        const WkBudgetStep *s = &r->fac.budget[i];
        double idle = bound_w(r, b, none, 1.0), floor = bound_w(r, b, all, 0.0);
        if (s->w < idle)
            rc = wk_node_error(s->where, WK_E_RANGE, err,
                               "a budget of %.4g MW is below the idle cluster's %.4g MW (PUE and network included)",
                               s->w / 1e6, idle / 1e6);
        else if (i > 0 && s->w < floor)
            rc = wk_node_error(s->where, WK_E_RANGE, err,
                               "a later budget step of %.4g MW is below the %.4g MW the whole cluster draws busy at "
                               "its lowest clocks, so running jobs could not be capped under it",
                               s->w / 1e6, floor / 1e6);
    }
    free(all);
    return rc;
}

/* GPUs of gpus[0..n) per group, added to busy (sign +1) or taken (-1). */
static void count(const WkRun *r, uint32_t *busy, const uint32_t *gpus, uint32_t n, int sign)
{
    const WkCluster *c = &r->cluster;
    for (uint32_t i = 0; i < n; i++)
        busy[c->node_group[c->gpu_node[gpus[i]]]] += (uint32_t)sign;
}

int wk_budget_admit(WkRun *r, WkRunBudget *b, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    if (!b->busy)
        return 0;
    const WkCluster *c = &r->cluster;
    int hold = r->fac.mode == WK_BUDGET_HOLD;
    double jc = hold && b->job_clock ? b->job_clock[job] : 1.0, w;
    if (jc < 1) { /* hold: the job at the clock its scheduler chose */
        double dyn = 0;
        for (uint32_t i = 0; i < n; i++) {
            const WkNodeGroup *g = wk_cluster_group_of(c, gpus[i]);
            dyn += (g->sku->tdp_w - g->sku->idle_w) * wk_budget_gpu_frac(g, 1.0, jc);
        }
        w = bound_w(r, b, b->busy, 1.0) + dyn * c->power.busy_activity * c->power.pue;
    } else {
        count(r, b->busy, gpus, n, +1);
        w = bound_w(r, b, b->busy, hold ? 1.0 : 0.0);
        count(r, b->busy, gpus, n, -1);
    }
    int fits = w <= b->limit_w;
    if (!fits)
        b->held++;
    return fits ? 0 : WK_E_NOROOM;
}

void wk_budget_hold(WkRun *r, WkRunBudget *b, const uint32_t *gpus, uint32_t n, int held)
{
    if (b->busy)
        count(r, b->busy, gpus, n, held ? +1 : -1);
}

double wk_budget_headroom_w(const WkRun *r, const WkRunBudget *b)
{
    if (!b->busy)
        return INFINITY;
    return b->limit_w - bound_at(r, b, b->busy, 1.0, 0);
}

/* Append (or rewrite, at the same instant) the facility row of now. */
static int facility_row(WkRun *r, WkRunBudget *b, WkTime now, WkError *err)
{
    if (b->nrows && b->rows[b->nrows - 1].time_ns == now)
        b->nrows--;
    if (b->nrows == WK_RUN_MAX_FACILITY_ROWS)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "timeseries/facility: more than %d rows (docs/limits.md)",
                            WK_RUN_MAX_FACILITY_ROWS);
    if (b->nrows == b->caprows) {
        size_t nc = b->caprows ? b->caprows * 2 : 256;
        WkFacilityRow *nr = realloc(b->rows, nc * sizeof *nr);
        if (!nr)
            return wk_error_nomem(err, "timeseries/facility");
        b->rows = nr;
        b->caprows = nc;
    }
    const WkTariffRow *t = wk_facility_tariff_at(&r->fac, now);
    b->rows[b->nrows++] = (WkFacilityRow){
        .time_ns = now,
        .power_w = wk_account_power_w(&r->acct, &r->cluster),
        .budget_w = b->busy ? b->limit_w : NAN,
        .clock = r->cluster.site_clock,
        .price_per_mwh = t ? t->price_per_mwh : NAN,
        .gco2_per_kwh = t ? t->gco2_per_kwh : NAN,
    };
    return 0;
}

int wk_budget_sample(WkRun *r, WkRunBudget *b, WkTime now, WkError *err)
{
    return r->fac.nbudget || r->fac.ntariff ? facility_row(r, b, now, err) : 0;
}

/* The site clock becomes f: integrate up to now at the old draw, recompute
 * every GPU's draw, re-rate every running job. */
static int set_clock(WkRun *r, WkRunBudget *b, double f, WkTime now, WkError *err)
{
    WkCluster *c = &r->cluster;
    wk_run_account_to(r, now);
    if (f < 1 && b->capped_since < 0)
        b->capped_since = now;
    if (f >= 1 && b->capped_since >= 0) {
        b->capped_s += wk_time_to_s(now - b->capped_since);
        b->capped_since = -1;
    }
    c->site_clock = f;
    c->site_capped = f < 1 || b->nck;
    double w = 0;
    for (uint32_t g = 0; g < c->gpus; g++)
        w += wk_account_gpu_draw(c, g, r->pool.owner[g] != WK_POOL_NONE);
    r->acct.gpu_power_w = w;
    int rc = 0;
    for (size_t j = 0; j < r->wl.n && rc == 0; j++) {
        const WkJobRt *rt = &r->rt[j];
        if (rt->state == WK_JOB_RUNNING && !rt->hung && !rt->waiting)
            rc = wk_progress_refresh(r, (uint32_t)j, 1, err);
    }
    return rc;
}

int wk_budget_enforce(WkRun *r, WkRunBudget *b, WkError *err)
{
    if (!b->busy)
        return 0;
    WkTime now = wk_engine_now(r->eng);
    double f = fit_clock(r, b, b->busy);
    int rc = 0;
    if (f != r->cluster.site_clock)
        rc = set_clock(r, b, f, now, err);
    return rc < 0 ? rc : facility_row(r, b, now, err);
}

static int on_step(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunBudget *b = ctx;
    WkRun *r = b->r;
    b->step = ev->target;
    b->limit_w = r->fac.budget[b->step].w;
    int rc = wk_budget_enforce(r, b, err);
    if (rc == 0 && b->step + 1 < r->fac.nbudget)
        rc = wk_engine_post_e(e, r->fac.budget[b->step + 1].at, WK_EV_BUDGET, (uint32_t)b->step + 1, 0, 0, b->tok, err);
    if (rc == 0) /* a higher budget may let held jobs start */
        rc = wk_sched_host_release(&r->si, err);
    return rc;
}

int wk_budget_start(WkRun *r, WkRunBudget *b, WkError *err)
{
    int rc = wk_engine_on(r->eng, WK_EV_BUDGET, on_step, b, err);
    if (rc < 0 || !b->busy || r->fac.nbudget < 2)
        return rc;
    if ((rc = wk_engine_token_new(r->eng, &b->tok, err)) < 0)
        return rc;
    return wk_engine_post_e(r->eng, r->fac.budget[1].at, WK_EV_BUDGET, 1, 0, 0, b->tok, err);
}

void wk_budget_finish(WkRunBudget *b, WkTime end)
{
    if (b->capped_since >= 0 && end > b->capped_since)
        b->capped_s += wk_time_to_s(end - b->capped_since);
    b->capped_since = -1;
}

void wk_budget_fini(WkRunBudget *b)
{
    free(b->busy);
    free(b->rows);
}
