/* SPDX-License-Identifier: Apache-2.0 */
/* fail_hit.c — component failures hitting a run: one process per failure
 * class (models/fail's table) takes GPUs or fabric links down and hits the
 * jobs there (rolled back to their last checkpoint, hung until detection);
 * the incidents table; GPUs and links down and up. Repairs and set-up are
 * in recovery.c, detection and restart in fail_recover.c, checkpoints in
 * fail_ckpt.c, processes, scripts and the diurnal clock in fail_effect.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/recovery/fail_impl.h"

#define NONE WK_RUNFAIL_NONE

/* ---- counting and naming components ---- */

uint64_t wk_runfail_class_count(const WkRun *r, WkFailClass c)
{
    return wk_fail_class_count(wk_fail_class_get(c), &r->cluster);
}

/* First node of pod p (pods are contiguous runs of nodes). */
static uint32_t pod_first_node(const WkCluster *c, uint32_t p)
{
    uint32_t lo = 0, hi = c->nodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->node_pod[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void wk_runfail_unit_range(const WkRun *r, WkScope s, uint32_t idx, uint32_t *lo, uint32_t *hi)
{
    const WkCluster *c = &r->cluster;
    uint32_t n0, n1;
    switch (s) {
    case WK_SCOPE_GPU: *lo = idx; *hi = idx + 1; return;
    case WK_SCOPE_NODE: n0 = idx; n1 = idx + 1; break;
    case WK_SCOPE_RACK:
        n0 = idx * r->fail.nodes_per_rack;
        n1 = n0 + r->fail.nodes_per_rack < c->nodes ? n0 + r->fail.nodes_per_rack : c->nodes;
        break;
    default:
        n0 = pod_first_node(c, idx);
        n1 = idx + 1 < c->pods ? pod_first_node(c, idx + 1) : c->nodes;
        break;
    }
    *lo = c->node_first_gpu[n0];
    *hi = c->node_first_gpu[n1];
}

uint64_t wk_runfail_units(const WkRun *r, WkScope s)
{
    const WkCluster *c = &r->cluster;
    return s == WK_SCOPE_GPU ? c->gpus : s == WK_SCOPE_NODE ? c->nodes
                                     : s == WK_SCOPE_RACK ? (c->nodes + r->fail.nodes_per_rack - 1) / r->fail.nodes_per_rack
                                                          : c->pods;
}

/* ---- incidents ---- */

int wk_runfail_new_incident(WkRunFail *f, uint8_t cls, uint8_t kind, uint8_t scope, uint32_t comp, WkTime t,
                            uint32_t *id, WkError *err)
{
    if (f->nincidents >= WK_RUN_MAX_INCIDENTS)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                            "run: more than %d incidents, the limit (docs/limits.md): check the MTBFs under failures",
                            WK_RUN_MAX_INCIDENTS);
    if (f->nincidents == f->capincidents) {
        size_t nc = f->capincidents ? f->capincidents * 2 : 256;
        WkIncidentRow *n = realloc(f->incidents, nc * sizeof *n);
        if (!n)
            return wk_error_nomem(err, "incidents table");
        f->incidents = n;
        f->capincidents = nc;
    }
    *id = (uint32_t)f->nincidents++;
    f->incidents[*id] = (WkIncidentRow){.id = *id, .cls = cls, .kind = kind, .scope = scope, .component = comp,
                                           .start_ns = t, .end_ns = -1, .detect_s = NAN, .wait_s = NAN,
                                           .restart_s = NAN, .recovery_s = NAN, .clock = 1};
    for (int k = 0; k < WK_RSTEP_N; k++)
        f->incidents[*id].step_s[k] = NAN;
    return 0;
}

double wk_runfail_clock(const WkRun *r, uint32_t gpu)
{
    return r->cluster.clock[gpu] * (r->diurnal > 0 ? r->diurnal : 1.0);
}

/* A job is hit at time t: progress frozen and rolled back to its last
 * checkpoint; it stays on its GPUs, hung, until the failure is detected. */
static int hit(WkRun *r, WkRunFail *f, uint32_t job, uint32_t inc, WkTime detect_delay, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkFailJob *fj = &f->job[job];
    WkTime now = wk_engine_now(r->eng);
    if (rt->state != WK_JOB_RUNNING || rt->hung)
        return 0;
    wk_progress_settle(r, job, now);
    const WkJobSpec *js = &r->wl.jobs[job];
    double lost_s = rt->prog_s - fj->ckpt_prog_s;
    if (lost_s < 0)
        lost_s = 0;
    f->lost_gpu_s += lost_s * js->gpus;
    f->incidents[inc].lost_gpu_h += lost_s * js->gpus / 3600;
    rt->prog_s = fj->ckpt_prog_s;
    if (js->model)
        rt->done = fj->ckpt_done;
    else
        rt->left_ns = fj->ckpt_left;
    wk_engine_cancel(r->eng, rt->token);
    wk_engine_cancel(r->eng, fj->ckpt_tok);
    (void)wk_runfail_store_end(r, f, job, 0, NULL); /* its write to storage nodes is dropped: cannot fail */
    if (fj->in_ckpt) {
        fj->in_ckpt = 0;
        if (f->ckpt_active)
            f->ckpt_active--;
    }
    rt->hung = 1;
    rt->seg_start = WK_TIME_NEVER / 2; /* no progress while hung */
    fj->incident = inc + 1;
    fj->fail_t = now;
    f->incidents[inc].jobs_hit++;
    return wk_engine_post_e(r->eng, now + detect_delay, WK_EV_DETECT, job, inc, 0, fj->ckpt_tok, err);
}

static WkTime hw_detect(WkRun *r, WkRunFail *f)
{
    return (WkTime)(wk_rng_uniform(f->detect_rng) * (double)r->fail.health_check);
}

void wk_runfail_set_health(WkRun *r, uint32_t g, WkGpuHealth h, float clock)
{
    WkCluster *c = &r->cluster;
    int busy = r->pool.owner[g] != NONE;
    double before = wk_account_gpu_draw(c, g, busy);
    wk_pool_set_health(&r->pool, g, h, clock);
    double after = wk_account_gpu_draw(c, g, busy);
    r->acct.gpu_power_w += after - before;
}

/* Delay until a job hit now notices, by the failure's detection path. */
static WkTime detect_delay(WkRun *r, WkRunFail *f, WkFailDetect d)
{
    return d == WK_DETECT_TIMEOUT ? r->fail.nccl_timeout : hw_detect(r, f);
}

/* Hit the job on GPU g, or every tenant of a shared GPU (GPU sharing). */
static int hit_tenants(WkRun *r, WkRunFail *f, uint32_t g, uint32_t inc, WkFailDetect det, WkError *err)
{
    int rc = 0;
    for (uint32_t job = r->pool.owner[g]; job != NONE && rc == 0; job = wk_pool_tenant_next(&r->pool, g, job))
        rc = hit(r, f, job, inc, detect_delay(r, f, det), err);
    return rc;
}

int wk_runfail_down_gpus(WkRun *r, WkRunFail *f, const uint32_t *g, uint32_t n, uint32_t inc, WkFailDetect det, WkError *err)
{
    wk_runfail_account_now(r);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (r->cluster.health[g[i]] == WK_GPU_DOWN)
            continue;
        f->incidents[inc].gpus_lost++;
        wk_runfail_set_health(r, g[i], WK_GPU_DOWN, 0);
        rc = hit_tenants(r, f, g[i], inc, det, err);
    }
    return rc;
}

/* Repaired: g[0..n) that are down come back up. */
void wk_runfail_up_gpus(WkRun *r, const uint32_t *g, uint32_t n)
{
    wk_runfail_account_now(r);
    for (uint32_t i = 0; i < n; i++)
        if (r->cluster.health[g[i]] == WK_GPU_DOWN)
            wk_runfail_set_health(r, g[i], WK_GPU_UP, 1);
}

int wk_runfail_hit_soft(WkRun *r, WkRunFail *f, const uint32_t *g, uint32_t n, uint32_t inc, WkFailDetect det, WkError *err)
{
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++)
        rc = hit_tenants(r, f, g[i], inc, det, err);
    return rc;
}

void wk_runfail_account_now(WkRun *r)
{
    /* power changes must be integrated up to now first: the run's accounting
     * integrates lazily at its next change */
    wk_run_account_to(r, wk_engine_now(r->eng));
}

/* ---- links of a class failure ---- */

/* Take a failure's links out of service (delta +1) or give them back (-1),
 * then re-route the running jobs whose paths may move (wk_progress_reroute:
 * as re-routing every running job would); under `priority` the transfers
 * in flight then feel the rings' new rates (wk_runfail_store_settle). Past 255 failures in force on a
 * link the run stops rather than wrap the count. */
int wk_runfail_set_links(WkRun *r, WkRunFail *f, const WkFailDown *d, int delta, WkError *err)
{
    wk_runfail_account_now(r);
    int rc = wk_fail_class_mark_links(d, r->share.link_down, delta, err);
    if (rc < 0 || !r->share.net)
        return rc;
    rc = wk_progress_reroute(r, d->links, d->nlinks, delta < 0, err);
    return rc < 0 ? rc : wk_runfail_store_settle(r, f, err);
}

/* ---- class failures and repairs ---- */

/* The next failure of class c: of component comp (renewal), or of any of
 * them (comp NONE: Poisson superposition of identical components). */
int wk_runfail_next_class_event(WkRun *r, WkRunFail *f, WkFailClass c, uint32_t comp, WkTime from, WkError *err)
{
    const WkFailClassSpec *s = &r->fail.cls[c];
    WkTime dt;
    if (comp == NONE) { /* Poisson superposition of identical exponential components */
        double mean = wk_dist_mean_s(&s->ttf) / (double)wk_runfail_class_count(r, c);
        dt = wk_time_from_s(wk_rng_exponential(f->fail_rng[c], mean));
    } else {
        dt = wk_dist_draw(&s->ttf, f->fail_rng[c]);
    }
    return wk_engine_post_e(r->eng, from + (dt > 0 ? dt : 1), WK_EV_FAIL, c, comp, 0, 0, err);
}

/* A component of class c fails (payload: the component, or NONE for the
 * class's Poisson stream): its GPUs or links go down, or, for a soft
 * failure, the jobs there restart; its repair is posted. */
int wk_runfail_on_fail(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    WkFailClass c = (WkFailClass)ev->target;
    const WkFailClassInfo *ci = wk_fail_class_get(c);
    WkTime now = wk_engine_now(e);
    uint64_t comp = ev->payload;
    int aggregated = ev->payload == NONE;
    if (aggregated) {
        comp = wk_rng_uint(f->fail_rng[c], wk_runfail_class_count(r, c));
        int rc = wk_runfail_next_class_event(r, f, c, NONE, now, err);
        if (rc < 0)
            return rc;
    }
    uint32_t inc;
    int rc = wk_runfail_new_incident(f, (uint8_t)c, (uint8_t)ci->kind, (uint8_t)wk_fail_class_scope(ci),
                                     (uint32_t)comp, now, &inc, err);
    if (rc < 0)
        return rc;
    WkFailDown d = {0};
    rc = wk_fail_class_down(ci, &r->cluster, comp, &d, err);
    if (rc == 0 && ci->kind == WK_INC_SOFT) {
        /* software bug / NCCL hang on a node, SDC on a GPU: the job there restarts */
        rc = wk_runfail_hit_soft(r, f, d.gpus, d.ngpus, inc, ci->detect, err);
        f->incidents[inc].end_ns = now;
        if (rc == 0 && !aggregated)
            rc = wk_runfail_next_class_event(r, f, c, (uint32_t)comp, now, err);
    } else if (rc == 0) {
        rc = d.nlinks ? wk_runfail_set_links(r, f, &d, +1, err) : wk_runfail_down_gpus(r, f, d.gpus, d.ngpus, inc, ci->detect, err);
        WkTime rep = wk_dist_draw(&r->fail.cls[c].repair, f->fail_rng[c]);
        if (rc == 0)
            rc = wk_engine_post_e(e, now + (rep > 0 ? rep : 1), WK_EV_REPAIR, inc, aggregated ? 0 : 1, 0, 0, err);
    }
    wk_fail_class_down_fini(&d);
    return rc;
}

