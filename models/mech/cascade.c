/* SPDX-License-Identifier: Apache-2.0 */
/* cascade.c — the §3.2 information cascade as a mechanism of a run (see
 * cascade.h). */
#include "models/mech/cascade.h"

#include <math.h>
#include <stdlib.h>

typedef struct Cascade {
    WkRun *r;
    WkCascadeSpec s;
    uint32_t *gen;    /* [jobs] bumped when a job stops: a pending switch of an old segment is void */
    uint8_t *on;      /* [jobs] 1 while the running segment uses the method */
    uint64_t adopted;
} Cascade;

/* Payload of the discovery event (targets are jobs otherwise). */
#define FOUND UINT32_MAX

void wk_cascade_defaults(WkCascadeSpec *s)
{
    *s = (WkCascadeSpec){.at = 0, .origin_gpu = 0, .rack_nodes = 4, .nvlink_s = 1e-3, .rack_s = 10e-3,
                         .cluster_s = 100e-3, .ratio = 2};
}

int wk_cascade_parse(const WkNode *root, const WkCluster *c, WkCascadeSpec *out, int *on, WkError *err)
{
    static const char *const mkeys[] = {"cascade", "division", "outsourcing", NULL};
    static const char *const ckeys[] = {"at", "origin_gpu", "rack_nodes", "nvlink_delay", "rack_delay",
                                        "cluster_delay", "ratio", NULL};
    wk_cascade_defaults(out);
    *on = 0;
    const WkNode *m = root ? wk_node_get(root, "mechanisms") : NULL;
    if (!m)
        return 0;
    int rc = wk_node_expect_keys(m, mkeys, err);
    const WkNode *k = rc == 0 ? wk_node_get(m, "cascade") : NULL;
    if (rc < 0 || !k)
        return rc;
    if ((rc = wk_node_expect_keys(k, ckeys, err)) < 0)
        return rc;
    int64_t g = 0, rn = out->rack_nodes;
    WkTime dn = wk_time_from_s(out->nvlink_s), dr = wk_time_from_s(out->rack_s), dc = wk_time_from_s(out->cluster_s);
    const WkTime day = WK_NS_PER_DAY;
    if ((rc = wk_node_duration(k, "at", 0, 0, WK_TIME_NEVER / 4, &out->at, err)) < 0 ||
        (rc = wk_node_int(k, "origin_gpu", 0, 0, (int64_t)c->gpus - 1, &g, err)) < 0 ||
        (rc = wk_node_int(k, "rack_nodes", 0, 1, (int64_t)c->nodes, &rn, err)) < 0 ||
        (rc = wk_node_duration(k, "nvlink_delay", 0, 0, day, &dn, err)) < 0 ||
        (rc = wk_node_duration(k, "rack_delay", 0, 0, day, &dr, err)) < 0 ||
        (rc = wk_node_duration(k, "cluster_delay", 0, 0, day, &dc, err)) < 0 ||
        (rc = wk_node_double(k, "ratio", 0, 1, 1000, &out->ratio, err)) < 0)
        return rc;
    if (!(out->ratio > 1))
        return wk_node_error(wk_node_get(k, "ratio"), WK_E_RANGE, err,
                             "must be above 1 (1 is no compression; got %g)", out->ratio);
    out->origin_gpu = (uint32_t)g;
    out->rack_nodes = (uint32_t)rn;
    out->nvlink_s = wk_time_to_s(dn);
    out->rack_s = wk_time_to_s(dr);
    out->cluster_s = wk_time_to_s(dc);
    *on = 1;
    return 0;
}

double wk_cascade_delay_s(const WkCluster *c, const WkCascadeSpec *s, uint32_t g)
{
    uint32_t o = s->origin_gpu;
    if (g == o)
        return 0;
    if (wk_cluster_nvlink_domain(c, g) == wk_cluster_nvlink_domain(c, o))
        return s->nvlink_s;
    if (wk_cluster_node_of(c, g) / s->rack_nodes == wk_cluster_node_of(c, o) / s->rack_nodes)
        return s->rack_s;
    return s->cluster_s;
}

double wk_cascade_job_delay_s(const WkCluster *c, const WkCascadeSpec *s, const uint32_t *gpus, uint32_t n)
{
    double d = 0;
    for (uint32_t i = 0; i < n; i++) {
        double x = wk_cascade_delay_s(c, s, gpus[i]);
        d = x > d ? x : d;
    }
    return d;
}

/* A model job whose gradients a compression method can carry: ZeRO 0-2 (the
 * sharded reduce of ZeRO-3 is not modelled compressed). */
static int eligible(const WkRun *r, uint32_t job)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    return js->model && r->wl.models[js->model - 1].zero <= 2;
}

/* Switch a running job to the method: re-rate it through the perf model. */
static int adopt(Cascade *cs, uint32_t job, WkError *err)
{
    WkRun *r = cs->r;
    WkJobRt *rt = &r->rt[job];
    if (cs->on[job] || rt->state != WK_JOB_RUNNING)
        return 0;
    cs->on[job] = 1;
    cs->adopted++;
    rt->env.grad_ratio = cs->s.ratio;
    return wk_progress_refresh(r, job, 1, err);
}

/* The job learns of the method at `at` (>= now): now, or by an event. */
static int schedule(Cascade *cs, uint32_t job, WkTime now, WkError *err)
{
    WkRun *r = cs->r;
    if (!eligible(r, job))
        return 0;
    double d = wk_cascade_job_delay_s(&r->cluster, &cs->s, r->rt[job].gpus, r->wl.jobs[job].gpus);
    WkTime at = cs->s.at + wk_time_from_s(d);
    if (at <= now)
        return adopt(cs, job, err);
    return wk_engine_post_e(r->eng, at, WK_EV_CASCADE, job, cs->gen[job], 0, 0, err);
}

static int on_cascade(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    Cascade *cs = ctx;
    WkRun *r = cs->r;
    WkTime now = wk_engine_now(e);
    int rc = 0;
    if (ev->target == FOUND) {
        for (uint32_t j = 0; j < r->wl.n && rc == 0; j++)
            if (r->rt[j].state == WK_JOB_RUNNING)
                rc = schedule(cs, j, now, err);
    } else if (ev->payload == cs->gen[ev->target]) {
        rc = adopt(cs, ev->target, err);
    }
    if (rc == 0)
        wk_run_resample(r, now);
    return rc;
}

static int cascade_init(WkRun *r, const WkNode *root, void **st, WkError *err)
{
    WkCascadeSpec s;
    int on = 0;
    int rc = wk_cascade_parse(root, &r->cluster, &s, &on, err);
    if (rc < 0 || !on)
        return rc;
    Cascade *cs = calloc(1, sizeof *cs);
    if (!cs)
        return wk_error_nomem(err, "mechanisms.cascade");
    cs->r = r;
    cs->s = s;
    *st = cs;
    return 0;
}

static int cascade_start(WkRun *r, void *st, WkError *err)
{
    Cascade *cs = st;
    if (!cs)
        return 0;
    cs->gen = calloc(r->wl.n + 1, sizeof *cs->gen);
    cs->on = calloc(r->wl.n + 1, 1);
    if (!cs->gen || !cs->on)
        return wk_error_nomem(err, "mechanisms.cascade");
    int rc = wk_engine_on(r->eng, WK_EV_CASCADE, on_cascade, cs, err);
    return rc < 0 ? rc : wk_engine_post_e(r->eng, cs->s.at, WK_EV_CASCADE, FOUND, 0, 0, 0, err);
}

/* A job that starts after the discovery switches once all its GPUs know. */
static int cascade_started(WkRun *r, void *st, uint32_t job, WkError *err)
{
    Cascade *cs = st;
    WkTime now = wk_engine_now(r->eng);
    if (!cs || now < cs->s.at)
        return 0;
    return schedule(cs, job, now, err);
}

/* A stopped job's next segment starts uncompressed (its env is derived
 * anew) and learns again where it lands. */
static void cascade_stopping(WkRun *r, void *st, uint32_t job, WkStopWhy why)
{
    (void)r;
    (void)why;
    Cascade *cs = st;
    if (!cs)
        return;
    cs->gen[job]++;
    cs->on[job] = 0;
}

static void cascade_fini(void *st)
{
    Cascade *cs = st;
    if (cs) {
        free(cs->gen);
        free(cs->on);
    }
    free(cs);
}

uint64_t wk_cascade_adopted(const WkRun *r)
{
    const Cascade *cs = wk_run_sub(r, &wk_mech_cascade);
    return cs ? cs->adopted : 0;
}

const WkRunSubsysOps wk_mech_cascade = {
    .name = "cascade",
    .init = cascade_init,
    .start = cascade_start,
    .started = cascade_started,
    .stopping = cascade_stopping,
    .fini = cascade_fini,
};
