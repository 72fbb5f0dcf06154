/* SPDX-License-Identifier: Apache-2.0 */
/* division.c — the §3.3 division of labour over pipeline stages, with the
 * §3.4 response delay (see division.h). */
#include "models/mech/division.h"

#include <math.h>
#include <stdlib.h>

#include "models/state/eval.h"

/* A running job the mechanism splits. */
typedef struct DivJob {
    WkPerfStage *st;   /* [pp] the split in force, its stages at their clocks now (rt->env.stages) */
    WkPerfStage *seen; /* [pp] SKU and clock of each stage when last looked at */
} DivJob;

typedef struct Division {
    WkRun *r;
    WkDivisionSpec s;
    uint32_t njobs;
    DivJob *job;   /* [njobs] */
    uint32_t *gen; /* [jobs] bumped at a stop and at each change: a pending split of an older one is void */
    uint64_t splits;
} Division;

void wk_division_defaults(WkDivisionSpec *s) { *s = (WkDivisionSpec){.delay_s = 1.0}; }

int wk_division_parse(const WkNode *root, WkDivisionSpec *out, int *on, WkError *err)
{
    static const char *const mkeys[] = {"cascade", "division", "outsourcing", NULL};
    static const char *const dkeys[] = {"delay", NULL};
    wk_division_defaults(out);
    *on = 0;
    const WkNode *m = root ? wk_node_get(root, "mechanisms") : NULL;
    if (!m)
        return 0;
    int rc = wk_node_expect_keys(m, mkeys, err);
    const WkNode *k = rc == 0 ? wk_node_get(m, "division") : NULL;
    if (rc < 0 || !k)
        return rc;
    if ((rc = wk_node_expect_keys(k, dkeys, err)) < 0)
        return rc;
    WkTime d = wk_time_from_s(out->delay_s);
    if ((rc = wk_node_duration(k, "delay", 0, 0, WK_NS_PER_DAY, &d, err)) < 0)
        return rc;
    out->delay_s = wk_time_to_s(d);
    *on = 1;
    return 0;
}

double wk_division_split(uint32_t layers, uint32_t pp, const double *layer_s, double head_s, const uint32_t *cap,
                         uint32_t *n)
{
    if (pp == 0 || pp > layers || !(head_s >= 0))
        return NAN;
    uint32_t room = 0;
    for (uint32_t k = 0; k < pp; k++) {
        if (!(layer_s[k] > 0) || !isfinite(layer_s[k]))
            return NAN;
        room += cap && cap[k] > 1 ? cap[k] - 1 : cap ? 0 : layers;
        if (room >= layers)
            room = layers; /* no overflow; enough */
    }
    if (room < layers - pp)
        return NAN;
    double worst = 0;
    for (uint32_t k = 0; k < pp; k++)
        n[k] = 1;
    for (uint32_t left = layers - pp; left > 0; left--) {
        uint32_t best = pp;
        double bt = INFINITY;
        for (uint32_t k = 0; k < pp; k++) {
            if (cap && n[k] >= cap[k])
                continue;
            double t = (n[k] + 1) * layer_s[k] + (k + 1 == pp ? head_s : 0);
            if (t < bt) {
                bt = t;
                best = k;
            }
        }
        n[best]++;
    }
    for (uint32_t k = 0; k < pp; k++) {
        double t = n[k] * layer_s[k] + (k + 1 == pp ? head_s : 0);
        worst = t > worst ? t : worst;
    }
    return worst;
}

/* A pipeline-parallel LLM job with a layer for each stage, whose replicas
 * do not rebalance micro-batches (`rebalance: true` keeps its own model:
 * the stages' speeds here are the slowest replica's). */
static const WkModelSpec *eligible(const WkRun *r, uint32_t job)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    const WkModelSpec *m = js->model ? &r->wl.models[js->model - 1] : NULL;
    return m && m->kind == WK_MODEL_LLM && m->pp > 1 && m->layers >= m->pp && !m->rebalance ? m : NULL;
}

/* Whether the performance model accepts the job with st (its memory). */
static int fits(const WkRun *r, const WkModelSpec *m, const WkJobRt *rt, WkPerfStage *st)
{
    WkPerfEnv env = rt->env;
    env.stages = st;
    WkPerfResult res;
    WkError e;
    wk_error_clear(&e);
    return wk_perf_eval(m, &env, &r->perf, &res, &e) == 0;
}

/* Split the job's layers for its stages' SKUs and clocks now (dj->st):
 * the best split that the memory holds, else the even one, else none
 * (the job runs as without the mechanism). Returns 1 when a split is set. */
static int plan(Division *ds, uint32_t job, const WkModelSpec *m)
{
    WkRun *r = ds->r;
    WkJobRt *rt = &r->rt[job];
    DivJob *dj = &ds->job[job];
    uint32_t pp = m->pp, L = m->layers;
    double *ls = malloc(pp * sizeof *ls);
    uint32_t *n = malloc(pp * sizeof *n);
    int ok = 0;
    if (ls && n) {
        double hs = 0, h;
        for (uint32_t k = 0; k < pp; k++)
            wk_perf_stage_costs(m, &rt->env, &r->perf, &dj->st[k], &ls[k], k + 1 == pp ? &hs : &h);
        if (isfinite(wk_division_split(L, pp, ls, hs, NULL, n))) {
            for (uint32_t k = 0; k < pp; k++)
                dj->st[k].layers = n[k];
            ok = fits(r, m, rt, dj->st);
        }
        for (uint32_t k = 0; !ok && k < pp; k++) /* even: the first L mod pp stages one more */
            dj->st[k].layers = L / pp + (k < L % pp);
        ok = ok || fits(r, m, rt, dj->st);
    }
    free(ls);
    free(n);
    rt->env.stages = ok ? dj->st : NULL;
    ds->splits += (uint64_t)ok;
    return ok;
}

/* Remember the stages' SKUs and clocks; 1 when one of them changed. */
static int look(DivJob *dj, uint32_t pp)
{
    int moved = 0;
    for (uint32_t k = 0; k < pp; k++) {
        moved |= dj->seen[k].sku != dj->st[k].sku || dj->seen[k].speed != dj->st[k].speed;
        dj->seen[k] = dj->st[k];
    }
    return moved;
}

static int on_division(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    Division *ds = ctx;
    WkRun *r = ds->r;
    uint32_t job = ev->target;
    DivJob *dj = &ds->job[job];
    const WkModelSpec *m = eligible(r, job);
    if (ev->payload != ds->gen[job] || !dj->st || !m || r->rt[job].state != WK_JOB_RUNNING)
        return 0;
    plan(ds, job, m);
    int rc = wk_progress_refresh(r, job, 1, err);
    if (rc == 0)
        wk_run_resample(r, wk_engine_now(e));
    return rc;
}

static int division_init(WkRun *r, const WkNode *root, void **st, WkError *err)
{
    WkDivisionSpec s;
    int on = 0;
    int rc = wk_division_parse(root, &s, &on, err);
    if (rc < 0 || !on)
        return rc;
    Division *ds = calloc(1, sizeof *ds);
    if (!ds)
        return wk_error_nomem(err, "mechanisms.division");
    ds->r = r;
    ds->s = s;
    *st = ds;
    return 0;
}

static int division_start(WkRun *r, void *st, WkError *err)
{
    Division *ds = st;
    if (!ds)
        return 0;
    ds->njobs = (uint32_t)r->wl.n;
    ds->job = calloc(r->wl.n + 1, sizeof *ds->job);
    ds->gen = calloc(r->wl.n + 1, sizeof *ds->gen);
    if (!ds->job || !ds->gen)
        return wk_error_nomem(err, "mechanisms.division");
    return wk_engine_on(r->eng, WK_EV_DIVISION, on_division, ds, err);
}

/* A job that starts is split for its stages as placed: the launch knows the
 * GPUs it gets (no delay). */
static int division_started(WkRun *r, void *st, uint32_t job, WkError *err)
{
    Division *ds = st;
    const WkModelSpec *m = ds ? eligible(r, job) : NULL;
    if (!m)
        return 0;
    DivJob *dj = &ds->job[job];
    WkJobRt *rt = &r->rt[job];
    if (!dj->st) {
        dj->st = calloc(m->pp, sizeof *dj->st);
        dj->seen = calloc(m->pp, sizeof *dj->seen);
        if (!dj->st || !dj->seen)
            return wk_error_nomem(err, "mechanisms.division");
    }
    wk_eval_stages(&r->cluster, m, rt->gpus, r->wl.jobs[job].gpus, r->diurnal > 0 ? r->diurnal : 1.0, dj->st);
    look(dj, m->pp);
    if (!plan(ds, job, m))
        return 0;
    return wk_progress_refresh(r, job, 1, err);
}

/* A stage's SKU or clock moved (a throttle began or ended): the job runs
 * its split at the new clocks until the delay has passed. */
static void division_rated(WkRun *r, void *st, uint32_t job)
{
    Division *ds = st;
    DivJob *dj = ds ? &ds->job[job] : NULL;
    if (!dj || !dj->st || r->rt[job].env.stages != dj->st || !look(dj, r->wl.models[r->wl.jobs[job].model - 1].pp))
        return;
    WkTime at = wk_engine_now(r->eng) + wk_time_from_s(ds->s.delay_s);
    WkError e;
    wk_error_clear(&e);
    /* an event that cannot be posted (out of memory) leaves the split as it is */
    (void)wk_engine_post_e(r->eng, at, WK_EV_DIVISION, job, ++ds->gen[job], 0, 0, &e);
}

static void division_stopping(WkRun *r, void *st, uint32_t job, WkStopWhy why)
{
    (void)why;
    Division *ds = st;
    if (!ds)
        return;
    ds->gen[job]++;
    if (r->rt[job].env.stages == ds->job[job].st)
        r->rt[job].env.stages = NULL;
}

static void division_fini(void *st)
{
    Division *ds = st;
    if (ds && ds->job) {
        for (uint32_t j = 0; j < ds->njobs; j++) {
            free(ds->job[j].st);
            free(ds->job[j].seen);
        }
    }
    if (ds) {
        free(ds->job);
        free(ds->gen);
    }
    free(ds);
}

uint64_t wk_division_splits(const WkRun *r)
{
    const Division *ds = wk_run_sub(r, &wk_mech_division);
    return ds ? ds->splits : 0;
}

const WkRunSubsysOps wk_mech_division = {
    .name = "division",
    .init = division_init,
    .start = division_start,
    .started = division_started,
    .rated = division_rated,
    .stopping = division_stopping,
    .fini = division_fini,
};
