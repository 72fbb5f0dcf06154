/* SPDX-License-Identifier: Apache-2.0 */
/* energy.c — first in, first out, except that a deferrable job (`deferrable:
 * true`) waits while electricity is dear: it is skipped, without blocking the
 * jobs behind it, while the price now (facility.prices) is above
 * `defer_above` x the series' mean price, for at most `max_defer` after its
 * submission. Every other job keeps FIFO order and the first that does not
 * fit blocks the rest. Without a price series it is fifo. Give `tick` (e.g.
 * 15min) so deferred jobs start when the price falls even when no job
 * arrives or ends then.
 * Clocks (docs/schedulers.md, "energy"): with `cap: auto` each job runs at
 * the SM clock that minimises energy x time^time_weight for its work (the
 * generalised energy-delay product); under `on_budget: policy` the policy
 * also lowers clocks to keep the facility under its budget, where they cost
 * the least throughput per watt saved. Both read each job's power and run
 * time at a grid of clocks from the run (wk_sched_job_power_at_w,
 * wk_sched_job_time_factor). */
#include "models/sched/queue.h"

#include <math.h>
#include <stdlib.h>

#define NCLOCK 21 /* grid of clocks from the floor to 1 */

/* A job's power and run time on the clock grid. */
typedef struct {
    double f[NCLOCK];   /* clock factor, ascending; f[NCLOCK - 1] = 1 */
    double add[NCLOCK]; /* facility W the job adds over its GPUs idle */
    double t[NCLOCK];   /* run time relative to full clock */
    int top;            /* highest index allowed: the energy-delay optimum with cap: auto, else NCLOCK - 1 */
    int cur;            /* index chosen now (NCLOCK - 1: no chosen clock) */
    int pick;           /* scratch of the budget fit */
} Grid;

typedef struct {
    WkQueuePolicy base;  /* first: the shared callbacks see a WkQueuePolicy */
    double defer_above;  /* `defer_above:` share of the mean price above which deferrable jobs wait */
    WkTime max_defer;    /* `max_defer:` longest wait for cheap energy after submission */
    int cap_auto;        /* `cap: auto`: each job at its energy-delay optimum */
    double time_weight;  /* `time_weight:` w of energy x time^w */
    Grid **grid;         /* [ngrid] by job id, NULL until needed (owned) */
    size_t ngrid;
    uint32_t *set;       /* scratch: the jobs of one budget fit */
    size_t capset;
    double last_headroom; /* headroom when clocks were last fitted */
    int dirty;           /* clocks changed without a start: fit again */
} Energy;
WK_QUEUE_POLICY_FIRST(Energy);

static int pass(void *priv, WkSchedCtx *ctx, WkError *err);

static const char *const known[] = {WK_SCHED_COMMON_KEYS, "defer_above", "max_defer", "cap", "time_weight", NULL};
static const WkQueueRules rules = {
    .name = "energy", .keys = known, .pass = pass, .front = 1, .track = 1};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    static const char *const caps[] = {"none", "auto", NULL};
    Energy *e = priv;
    (void)ctx;
    e->defer_above = 1.0;                 /* dearer than the mean: wait */
    e->max_defer = 24 * WK_NS_PER_H;      /* a day: every cheap hour of a daily curve comes within it */
    e->time_weight = 1.0;                 /* the energy-delay product (Horowitz et al. 1994) */
    e->last_headroom = NAN;
    int rc = wk_queue_policy_init(&e->base, &rules, params, err);
    if (rc == 0 && params && (rc = wk_node_double(params, "defer_above", 0, 0, 1e6, &e->defer_above, err)) == 0 &&
        (rc = wk_node_duration(params, "max_defer", 0, 0, 365 * WK_NS_PER_DAY, &e->max_defer, err)) == 0 &&
        (rc = wk_node_enum(params, "cap", 0, caps, &e->cap_auto, err)) == 0)
        rc = wk_node_double(params, "time_weight", 0, 0, 100, &e->time_weight, err);
    return rc;
}

static void fini(void *priv)
{
    Energy *e = priv;
    for (size_t i = 0; i < e->ngrid; i++)
        free(e->grid[i]);
    free(e->grid);
    free(e->set);
    wk_queue_policy_fini(priv);
}

static int fitting(const WkSchedCtx *ctx) { return wk_sched_budget_mode(ctx) == WK_SCHED_BUDGET_POLICY; }

/* The clock grid of job: power and run time at each clock, and its top: the
 * clock minimising P x T^(1 + w) (energy x time^w per unit of work; P the
 * job's whole draw, idle included; ties go to the higher clock). NULL on
 * allocation failure. */
static Grid *grid_of(Energy *e, const WkSchedCtx *ctx, uint32_t job)
{
    if (job >= e->ngrid) {
        size_t n = e->ngrid ? e->ngrid : 64;
        while (n <= job)
            n *= 2;
        Grid **g = realloc(e->grid, n * sizeof *g);
        if (!g)
            return NULL;
        for (size_t i = e->ngrid; i < n; i++)
            g[i] = NULL;
        e->grid = g;
        e->ngrid = n;
    }
    if (e->grid[job])
        return e->grid[job];
    Grid *g = malloc(sizeof *g);
    if (!g)
        return NULL;
    double lo = wk_sched_job_clock_floor(ctx, job), best = INFINITY;
    g->top = g->cur = NCLOCK - 1;
    for (int i = NCLOCK - 1; i >= 0; i--) {
        double idle;
        g->f[i] = i == NCLOCK - 1 ? 1.0 : lo + (1 - lo) * i / (NCLOCK - 1);
        double p = wk_sched_job_power_at_w(ctx, job, g->f[i], &idle);
        g->add[i] = p - idle;
        g->t[i] = wk_sched_job_time_factor(ctx, job, g->f[i]);
        if (!isfinite(g->t[i]) || !(g->t[i] > 0)) { /* unknown slowdown: never capped */
            g->t[i] = INFINITY;
            continue;
        }
        double obj = p * pow(g->t[i], 1 + e->time_weight);
        if (e->cap_auto && obj < best * (1 - 1e-12)) {
            best = obj;
            g->top = i;
        }
    }
    e->grid[job] = g;
    return g;
}

/* Each job's pick at price lam (throughput n/T minus lam x W added; the
 * highest clock on ties) and the W they add. */
static double picks(Energy *e, const WkSchedCtx *ctx, size_t n, double lam)
{
    double w = 0;
    for (size_t k = 0; k < n; k++) {
        Grid *g = e->grid[e->set[k]];
        double gpus = wk_sched_job_gpus(ctx, e->set[k]);
        double best = gpus / g->t[g->top] - lam * g->add[g->top];
        g->pick = g->top;
        for (int i = g->top - 1; i >= 0; i--) {
            double v = gpus / g->t[i] - lam * g->add[i];
            if (v > best + 1e-12 * fabs(best)) {
                best = v;
                g->pick = i;
            }
        }
        w += g->add[g->pick];
    }
    return w;
}

/* Fit the jobs of e->set[0..n) under avail W added: each job's clock
 * maximises the jobs' total throughput (GPUs / run-time factor) under the
 * power they add (a Lagrangian price per watt, bisected: memory-bound jobs,
 * whose run time grows least as their clock falls, are lowered first).
 * Returns 1 when the picks fit, 0 when even the floors do not. */
static int fit(Energy *e, const WkSchedCtx *ctx, size_t n, double avail)
{
    if (picks(e, ctx, n, 0) <= avail)
        return 1;
    double hi = 1e-6;
    while (picks(e, ctx, n, hi) > avail)
        if ((hi *= 4) > 1e6)
            return 0; /* even the floors do not fit */
    double lo = 0;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (picks(e, ctx, n, mid) <= avail)
            hi = mid;
        else
            lo = mid;
    }
    double w = picks(e, ctx, n, hi);
    /* Jobs alike switch clocks at the same price, so the picks may leave a
     * grid step of power unused: spend it one step at a time, best gain in
     * throughput per watt first. */
    for (;;) {
        size_t best = n;
        double gain = 0;
        for (size_t k = 0; k < n; k++) {
            const Grid *g = e->grid[e->set[k]];
            int i = g->pick;
            if (i >= g->top || w + g->add[i + 1] - g->add[i] > avail)
                continue;
            double gpus = wk_sched_job_gpus(ctx, e->set[k]);
            double d = (gpus / g->t[i + 1] - gpus / g->t[i]) / (g->add[i + 1] - g->add[i] + 1e-9);
            if (best == n || d > gain) {
                best = k;
                gain = d;
            }
        }
        if (best == n)
            return 1;
        Grid *g = e->grid[e->set[best]];
        w += g->add[g->pick + 1] - g->add[g->pick];
        g->pick++;
    }
}

/* Set job's clock to its grid index i. */
static int set_clock(Grid *g, WkSchedCtx *ctx, uint32_t job, int i, WkError *err)
{
    if (g->cur == i)
        return 0;
    g->cur = i;
    return wk_sched_set_job_clock(ctx, job, g->f[i], err);
}

/* Collect the running jobs with a grid into e->set (plus `extra` when not
 * UINT32_MAX) and the W they add at their full clocks. */
static int collect(Energy *e, const WkSchedCtx *ctx, uint32_t extra, size_t *n, double *full)
{
    WkRunSet *run = &e->base.run;
    if (run->n + 1 > e->capset) {
        size_t nc = 2 * (run->n + 1);
        uint32_t *s = realloc(e->set, nc * sizeof *s);
        if (!s)
            return WK_E_NOMEM;
        e->set = s;
        e->capset = nc;
    }
    *n = 0;
    *full = 0;
    for (size_t i = 0; i < run->n; i++) {
        uint32_t j = run->job[i];
        if (j < e->ngrid && e->grid[j] && wk_sched_job_running(ctx, j)) {
            e->set[(*n)++] = j;
            *full += e->grid[j]->add[NCLOCK - 1];
        }
    }
    if (extra != UINT32_MAX)
        e->set[(*n)++] = extra;
    return 0;
}

/* Apply the picks: lowered clocks first, so the draw never rises above the
 * budget on the way; then raised ones. */
static int apply(Energy *e, WkSchedCtx *ctx, size_t n, WkError *err)
{
    int rc = 0;
    for (int up = 0; up < 2 && rc == 0; up++)
        for (size_t k = 0; k < n && rc == 0; k++) {
            Grid *g = e->grid[e->set[k]];
            if ((g->pick > g->cur) == up && g->pick != g->cur)
                rc = set_clock(g, ctx, e->set[k], g->pick, err);
        }
    return rc;
}

/* The W the jobs of the set may add under the budget now: the headroom
 * (at full clocks) plus what the running ones add at full clock, less a
 * margin for rounding. */
static double avail_w(const WkSchedCtx *ctx, double full)
{
    double h = wk_sched_power_headroom_w(ctx) + full;
    return h - 1e-9 * fabs(h) - 1e-6;
}

/* Choose the clock of job, about to start (and, fitting a budget, lower
 * the running jobs' to make room for it). Returns 0, WK_E_NOROOM when it
 * does not fit even at the floors, or a negative code with err filled. */
static int choose(Energy *e, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Grid *g = grid_of(e, ctx, job);
    if (!g)
        return wk_error_nomem(err, "energy");
    g->cur = -1; /* set it in any case: a job back from a preemption may carry another clock */
    if (!fitting(ctx))
        return set_clock(g, ctx, job, g->top, err);
    size_t m;
    double full;
    if (collect(e, ctx, job, &m, &full) < 0)
        return wk_error_nomem(err, "energy");
    if (!fit(e, ctx, m, avail_w(ctx, full)))
        return WK_E_NOROOM; /* even at the floors it does not fit: it waits */
    e->dirty = 1; /* until the start happens */
    return apply(e, ctx, m, err);
}

/* Start job: placed by the scenario's rule, at the clock chosen for it. */
static int start(Energy *e, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    WkQueuePolicy *p = &e->base;
    if (!(e->cap_auto || fitting(ctx)))
        return wk_queue_policy_start(p, ctx, job, err);
    uint32_t n = wk_sched_job_gpus(ctx, job);
    if (n > wk_sched_free_gpus(ctx))
        return WK_E_NOROOM;
    if (wk_queue_place_reserve(&p->buf, n) < 0)
        return wk_error_nomem(err, "energy");
    int rc = wk_sched_place_job(ctx, job, wk_sched_placement(ctx), p->buf.gpus, NULL, NULL);
    if (rc == WK_E_NOROOM)
        return rc;
    if (rc < 0)
        return wk_error_set(err, rc, NULL, 0, 0, "energy: placement of job %u failed", job);
    if ((rc = choose(e, ctx, job, err)) != 0)
        return rc;
    return wk_queue_start_on(ctx, job, p->buf.gpus, n, &p->run, err);
}

/* Fitting a budget: re-fit the running jobs when the headroom moved (a job
 * ended, a budget step) or clocks were set for a start that did not happen. */
static int refit(Energy *e, WkSchedCtx *ctx, WkError *err)
{
    double h = wk_sched_power_headroom_w(ctx);
    if (!fitting(ctx) || (h == e->last_headroom && !e->dirty))
        return 0;
    size_t m;
    double full;
    if (collect(e, ctx, UINT32_MAX, &m, &full) < 0)
        return wk_error_nomem(err, "energy");
    e->last_headroom = h;
    e->dirty = 0;
    if (!fit(e, ctx, m, avail_w(ctx, full))) /* the run's uniform caps take over */
        for (size_t k = 0; k < m; k++)
            e->grid[e->set[k]]->pick = 0;
    return apply(e, ctx, m, err);
}

/* 1 when job waits for cheaper energy now. */
static int deferred(const Energy *e, const WkSchedCtx *ctx, uint32_t job, int dear)
{
    return dear && wk_sched_job_deferrable(ctx, job) &&
           wk_sched_now(ctx) - wk_sched_job_submit(ctx, job) < e->max_defer;
}

static int pass(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Energy *e = priv;
    WkQueuePolicy *p = &e->base;
    double now = wk_sched_price_now(ctx);
    int dear = now > e->defer_above * wk_sched_price_mean(ctx); /* NaN (no prices): never dear */
    wk_queue_running_sweep(&p->run, ctx);
    size_t i = 0;
    while (i < p->q.n) {
        uint32_t job = wk_queue_at(&p->q, i)->job;
        if (deferred(e, ctx, job, dear)) {
            i++;
            continue;
        }
        int rc = start(e, ctx, job, err);
        if (rc == WK_E_NOROOM)
            break;
        if (rc < 0)
            return rc;
        wk_queue_dequeue(p, ctx, i);
        if (fitting(ctx)) { /* the start moved the headroom by what the fit expected */
            e->last_headroom = wk_sched_power_headroom_w(ctx);
            e->dirty = 0;
        }
    }
    return refit(e, ctx, err);
}

const WkSchedOps wk_sched_energy = {
    .abi = WK_SCHED_ABI,
    .name = "energy",
    .description = "fifo, but deferrable jobs wait while the price is above defer_above x its mean "
                   "(at most max_defer); give tick so they start when it falls; cap: auto runs each job "
                   "at its energy-delay optimum clock; under on_budget: policy it fits the budget by per-job clocks",
    .priv_size = sizeof(Energy),
    .init = init,
    .on_submit = wk_queue_on_submit,
    .on_tick = pass,
    .fini = fini,
    WK_QUEUE_POLICY_OPS,
};
