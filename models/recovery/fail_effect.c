/* SPDX-License-Identifier: Apache-2.0 */
/* fail_effect.c — incidents that are not component failures of a class:
 * random processes and scripted incidents (outages, soft failures,
 * throttles over a GPU, node, rack or pod), the end of a throttle, and the
 * cluster-wide time-of-day clock; each re-rates the running jobs it slows. */
#include <math.h>
#include <stdlib.h>

#include "models/recovery/fail_impl.h"

#define NONE WK_RUNFAIL_NONE

/* Re-rate the running jobs that use GPUs in [lo, hi) after a clock change,
 * each once, in the order of their first GPU in the range. Linear in the
 * range and the number of jobs. */
static int rerate_range(WkRun *r, uint32_t lo, uint32_t hi, WkError *err)
{
    uint64_t *seen = calloc((r->wl.n + 63) / 64 + 1, sizeof *seen);
    if (!seen)
        return wk_error_nomem(err, "re-rate");
    int rc = 0;
    for (uint32_t g = lo; g < hi && rc == 0; g++)
        for (uint32_t job = r->pool.owner[g]; job != NONE && rc == 0; job = wk_pool_tenant_next(&r->pool, g, job)) {
            if (r->rt[job].hung || r->rt[job].state != WK_JOB_RUNNING)
                continue; /* every tenant of a shared GPU is slowed with it */
            uint64_t bit = UINT64_C(1) << (job & 63);
            if (seen[job >> 6] & bit)
                continue;
            seen[job >> 6] |= bit;
            rc = wk_progress_refresh(r, job, 1, err);
        }
    free(seen);
    return rc;
}

/* Apply a slowdown, outage or soft failure to GPUs [lo, hi). */
static int apply_effect(WkRun *r, WkRunFail *f, WkIncidentKind kind, uint32_t lo, uint32_t hi, double clock, WkTime dur,
                        uint32_t inc, WkError *err)
{
    WkTime now = wk_engine_now(r->eng);
    uint32_t *gl = malloc((size_t)(hi - lo + 1) * sizeof *gl);
    if (!gl)
        return wk_error_nomem(err, "incident GPUs");
    for (uint32_t g = lo; g < hi; g++)
        gl[g - lo] = g;
    int rc = 0;
    f->incidents[inc].clock = clock;
    if (kind == WK_INC_DOWN) {
        rc = wk_runfail_down_gpus(r, f, gl, hi - lo, inc, WK_DETECT_HEALTH_CHECK, err);
        if (rc == 0)
            rc = wk_engine_post_e(r->eng, now + dur, WK_EV_REPAIR, inc, 0, 0, 0, err);
    } else if (kind == WK_INC_SOFT) {
        rc = wk_runfail_hit_soft(r, f, gl, hi - lo, inc, WK_DETECT_TIMEOUT, err);
        f->incidents[inc].end_ns = now;
    } else {
        wk_runfail_account_now(r);
        for (uint32_t g = lo; g < hi; g++)
            if (r->cluster.health[g] != WK_GPU_DOWN) {
                wk_runfail_set_health(r, g, WK_GPU_THROTTLED, (float)clock);
                f->incidents[inc].gpus_lost++;
            }
        rc = rerate_range(r, lo, hi, err);
        if (rc == 0)
            rc = wk_engine_post_e(r->eng, now + dur, WK_EV_EFFECT_END, inc, 0, 0, 0, err);
    }
    free(gl);
    return rc;
}

/* A throttle is over: its GPUs back to full clock. */
int wk_runfail_on_effect_end(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    WkIncidentRow *row = &f->incidents[ev->target];
    row->end_ns = wk_engine_now(e);
    uint32_t lo, hi;
    wk_runfail_unit_range(r, (WkScope)row->scope, row->component, &lo, &hi);
    if (row->gpus_lost && hi - lo > row->gpus_lost)
        hi = lo + row->gpus_lost;
    wk_runfail_account_now(r);
    for (uint32_t g = lo; g < hi; g++)
        if (r->cluster.health[g] == WK_GPU_THROTTLED)
            wk_runfail_set_health(r, g, WK_GPU_UP, 1);
    return rerate_range(r, lo, hi, err);
}

/* A random process fires on a unit: draw the next event, apply the effect. */
int wk_runfail_on_proc(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    const WkFailProcess *p = &r->fail.procs[ev->target];
    WkRng *g = f->proc_rng[ev->target];
    WkTime now = wk_engine_now(e);
    uint64_t nu = wk_runfail_units(r, p->scope);
    uint64_t unit = ev->payload;
    WkTime next = now;
    if (p->ttf.kind == WK_DIST_EXPONENTIAL) {
        unit = wk_rng_uint(g, nu);
        next = now + wk_time_from_s(wk_rng_exponential(g, p->ttf.a / (double)nu));
    }
    WkTime dur = wk_dist_draw(&p->duration, g);
    if (p->ttf.kind != WK_DIST_EXPONENTIAL) /* renewal per unit: the next event after this one ends */
        next = now + dur + wk_dist_draw(&p->ttf, g);
    int prc = wk_engine_post_e(e, next > now ? next : now + 1, WK_EV_PROC, ev->target,
                               p->ttf.kind == WK_DIST_EXPONENTIAL ? NONE : (uint32_t)unit, 0, 0, err);
    if (prc < 0)
        return prc;
    uint32_t inc;
    prc = wk_runfail_new_incident(f, WK_FC_N, (uint8_t)p->kind, (uint8_t)p->scope, (uint32_t)unit, now, &inc, err);
    if (prc < 0)
        return prc;
    uint32_t lo, hi;
    wk_runfail_unit_range(r, p->scope, (uint32_t)unit, &lo, &hi);
    return apply_effect(r, f, p->kind, lo, hi, p->clock, dur, inc, err);
}

/* A scripted incident fires. */
int wk_runfail_on_script(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    const WkScripted *s = &r->fail.scripted[ev->target];
    uint32_t inc;
    int rc = wk_runfail_new_incident(f, WK_FC_N, (uint8_t)s->kind, (uint8_t)s->scope, s->index, wk_engine_now(e), &inc, err);
    if (rc < 0)
        return rc;
    uint32_t lo, hi;
    wk_runfail_unit_range(r, s->scope, s->index, &lo, &hi);
    if (s->gpus && hi - lo > s->gpus)
        hi = lo + s->gpus;
    return apply_effect(r, f, s->kind, lo, hi, s->clock, s->duration, inc, err);
}

/* The hourly time-of-day clock factor; every running job re-rated. */
int wk_runfail_on_diurnal(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    (void)ev;
    WkTime now = wk_engine_now(e);
    double day = wk_time_to_s(now % WK_NS_PER_DAY) / 86400.0;
    /* clock loss peaks at mid-day: 1 - A (1 - cos 2 pi t) / 2 */
    r->diurnal = 1 - r->fail.diurnal_amplitude * (1 - cos(6.283185307179586 * day)) / 2;
    int rc = rerate_range(r, 0, r->cluster.gpus, err);
    if (rc == 0)
        rc = wk_engine_post_e(e, now + WK_NS_PER_H, WK_EV_DIURNAL, 0, 0, 0, 0, err);
    return rc;
}
