/* SPDX-License-Identifier: Apache-2.0 */
/* run_fail.c — component failures during a run: one process per failure
 * class (models/fail's table) takes GPUs or fabric links down, hits the jobs
 * there (rolled back to their last checkpoint, hung until detection) and
 * repairs them later; the incidents table; set-up of streams, spares and the
 * first events. Recovery is in fail_recover.c, checkpoints in fail_ckpt.c,
 * processes, scripted incidents and the diurnal clock in fail_effect.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/run/fail_impl.h"

#define NONE WK_RUNFAIL_NONE

/* ---- counting and naming components ---- */

static uint64_t class_count(const WkRun *r, WkFailClass c)
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

int wk_runfail_new_incident(WkRun *r, uint8_t cls, uint8_t kind, uint8_t scope, uint32_t comp, WkTime t,
                            uint32_t *id, WkError *err)
{
    if (r->fl.nincidents >= WK_RUN_MAX_INCIDENTS)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                            "run: more than %d incidents, the limit (docs/limits.md): check the MTBFs under failures",
                            WK_RUN_MAX_INCIDENTS);
    if (r->fl.nincidents == r->fl.capincidents) {
        size_t nc = r->fl.capincidents ? r->fl.capincidents * 2 : 256;
        WkIncidentRow *n = realloc(r->fl.incidents, nc * sizeof *n);
        if (!n)
            return wk_error_nomem(err, "incidents table");
        r->fl.incidents = n;
        r->fl.capincidents = nc;
    }
    *id = (uint32_t)r->fl.nincidents++;
    r->fl.incidents[*id] = (WkIncidentRow){.id = *id, .cls = cls, .kind = kind, .scope = scope, .component = comp,
                                           .start_ns = t, .end_ns = -1, .detect_s = NAN, .wait_s = NAN,
                                           .restart_s = NAN, .recovery_s = NAN, .clock = 1};
    return 0;
}

double wk_runfail_clock(const WkRun *r, uint32_t gpu)
{
    return r->cluster.clock[gpu] * (r->fl.diurnal > 0 ? r->fl.diurnal : 1.0);
}

/* A job is hit at time t: progress frozen and rolled back to its last
 * checkpoint; it stays on its GPUs, hung, until the failure is detected. */
static int hit(WkRun *r, uint32_t job, uint32_t inc, WkTime detect_delay, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(r->eng);
    if (rt->state != WK_JOB_RUNNING || rt->hung)
        return 0;
    wk_progress_settle(r, job, now);
    const WkJobSpec *js = &r->wl.jobs[job];
    double lost_s = rt->prog_s - rt->ckpt_prog_s;
    if (lost_s < 0)
        lost_s = 0;
    r->fl.lost_gpu_s += lost_s * js->gpus;
    r->fl.incidents[inc].lost_gpu_h += lost_s * js->gpus / 3600;
    rt->prog_s = rt->ckpt_prog_s;
    if (js->model)
        rt->done = rt->ckpt_done;
    else
        rt->left_ns = rt->ckpt_left;
    wk_engine_cancel(r->eng, rt->token);
    wk_engine_cancel(r->eng, rt->ckpt_tok);
    if (rt->in_ckpt) {
        rt->in_ckpt = 0;
        if (r->fl.ckpt_active)
            r->fl.ckpt_active--;
    }
    rt->hung = 1;
    rt->seg_start = WK_TIME_NEVER / 2; /* no progress while hung */
    rt->incident = inc + 1;
    rt->fail_t = now;
    r->fl.incidents[inc].jobs_hit++;
    return wk_engine_post_e(r->eng, now + detect_delay, WK_EV_DETECT, job, inc, 0, rt->ckpt_tok, err);
}

static WkTime hw_detect(WkRun *r)
{
    return (WkTime)(wk_rng_uniform(r->fl.detect_rng) * (double)r->fail.health_check);
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
static WkTime detect_delay(WkRun *r, WkFailDetect d)
{
    return d == WK_DETECT_TIMEOUT ? r->fail.nccl_timeout : hw_detect(r);
}

int wk_runfail_down_gpus(WkRun *r, const uint32_t *g, uint32_t n, uint32_t inc, WkFailDetect det, WkError *err)
{
    wk_runfail_account_now(r);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (r->cluster.health[g[i]] == WK_GPU_DOWN)
            continue;
        r->fl.incidents[inc].gpus_lost++;
        wk_runfail_set_health(r, g[i], WK_GPU_DOWN, 0);
        if (r->pool.owner[g[i]] != NONE)
            rc = hit(r, r->pool.owner[g[i]], inc, detect_delay(r, det), err);
    }
    return rc;
}

/* Repaired: g[0..n) that are down come back up. */
static void up_gpus(WkRun *r, const uint32_t *g, uint32_t n)
{
    wk_runfail_account_now(r);
    for (uint32_t i = 0; i < n; i++)
        if (r->cluster.health[g[i]] == WK_GPU_DOWN)
            wk_runfail_set_health(r, g[i], WK_GPU_UP, 1);
}

int wk_runfail_hit_soft(WkRun *r, const uint32_t *g, uint32_t n, uint32_t inc, WkFailDetect det, WkError *err)
{
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++)
        if (r->pool.owner[g[i]] != NONE)
            rc = hit(r, r->pool.owner[g[i]], inc, detect_delay(r, det), err);
    return rc;
}

void wk_runfail_account_now(WkRun *r)
{
    /* power changes must be integrated up to now first: the run's accounting
     * integrates lazily at its next change */
    wk_run_account_to(r, wk_engine_now(r->eng));
}

/* ---- links of a class failure ---- */

/* Links out of service: rebuild every running job's flows so paths avoid
 * them where the fabric offers another way. */
static int reroute_all(WkRun *r, WkError *err)
{
    int rc = 0;
    for (size_t j = 0; j < r->wl.n && rc == 0; j++)
        if (r->rt[j].state == WK_JOB_RUNNING && r->rt[j].nflows)
            rc = wk_progress_reflow(r, (uint32_t)j, err);
    return rc;
}

static void apply_link_capacity(WkRun *r)
{
    const WkFabric *f = &r->cluster.fabric;
    double bw = f->spec.link_bytes_per_s;
    for (uint64_t i = 0; i < wk_fabric_uplinks(f); i++) {
        uint64_t l = wk_fabric_uplink(f, i);
        double cap = r->share.link_down[l] ? 0 : bw;
        if (wk_flownet_capacity(r->share.net, wk_fabric_directed(l, 0)) != cap) {
            wk_flownet_set_capacity(r->share.net, wk_fabric_directed(l, 0), cap);
            wk_flownet_set_capacity(r->share.net, wk_fabric_directed(l, 1), cap);
        }
    }
}

/* Take a failure's links out of service (delta +1) or give them back (-1),
 * then re-route every running job. Past 255 failures in force on a link the
 * run stops rather than wrap the count. */
static int set_links(WkRun *r, const WkFailDown *d, int delta, WkError *err)
{
    wk_runfail_account_now(r);
    int rc = wk_fail_class_mark_links(d, r->share.link_down, delta, err);
    if (rc < 0 || !r->share.net)
        return rc;
    apply_link_capacity(r);
    return reroute_all(r, err);
}

/* ---- class failures and repairs ---- */

/* The next failure of class c: of component comp (renewal), or of any of
 * them (comp NONE: Poisson superposition of identical components). */
static int next_class_event(WkRun *r, WkFailClass c, uint32_t comp, WkTime from, WkError *err)
{
    const WkFailClassSpec *s = &r->fail.cls[c];
    WkTime dt;
    if (comp == NONE) { /* Poisson superposition of identical exponential components */
        double mean = wk_dist_mean_s(&s->ttf) / (double)class_count(r, c);
        dt = wk_time_from_s(wk_rng_exponential(r->fl.fail_rng[c], mean));
    } else {
        dt = wk_dist_draw(&s->ttf, r->fl.fail_rng[c]);
    }
    return wk_engine_post_e(r->eng, from + (dt > 0 ? dt : 1), WK_EV_FAIL, c, comp, 0, 0, err);
}

/* A component of class c fails (payload: the component, or NONE for the
 * class's Poisson stream): its GPUs or links go down, or, for a soft
 * failure, the jobs there restart; its repair is posted. */
static int on_fail(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    WkFailClass c = (WkFailClass)ev->target;
    const WkFailClassInfo *ci = wk_fail_class_get(c);
    WkTime now = wk_engine_now(e);
    uint64_t comp = ev->payload;
    int aggregated = ev->payload == NONE;
    if (aggregated) {
        comp = wk_rng_uint(r->fl.fail_rng[c], class_count(r, c));
        int rc = next_class_event(r, c, NONE, now, err);
        if (rc < 0)
            return rc;
    }
    uint32_t inc;
    int rc = wk_runfail_new_incident(r, (uint8_t)c, (uint8_t)ci->kind, (uint8_t)wk_fail_class_scope(ci),
                                     (uint32_t)comp, now, &inc, err);
    if (rc < 0)
        return rc;
    WkFailDown d = {0};
    rc = wk_fail_class_down(ci, &r->cluster, comp, &d, err);
    if (rc == 0 && ci->kind == WK_INC_SOFT) {
        /* software bug / NCCL hang on a node, SDC on a GPU: the job there restarts */
        rc = wk_runfail_hit_soft(r, d.gpus, d.ngpus, inc, ci->detect, err);
        r->fl.incidents[inc].end_ns = now;
        if (rc == 0 && !aggregated)
            rc = next_class_event(r, c, (uint32_t)comp, now, err);
    } else if (rc == 0) {
        rc = d.nlinks ? set_links(r, &d, +1, err) : wk_runfail_down_gpus(r, d.gpus, d.ngpus, inc, ci->detect, err);
        WkTime rep = wk_dist_draw(&r->fail.cls[c].repair, r->fl.fail_rng[c]);
        if (rc == 0)
            rc = wk_engine_post_e(e, now + (rep > 0 ? rep : 1), WK_EV_REPAIR, inc, aggregated ? 0 : 1, 0, 0, err);
    }
    wk_fail_class_down_fini(&d);
    return rc;
}

/* An incident is repaired: its GPUs or links come back, the spare pool
 * refills, waiting jobs restart, shrunk elastic jobs grow back, then the
 * policy sees the freed GPUs. */
static int on_repair(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    WkIncidentRow *row = &r->fl.incidents[ev->target];
    WkTime now = wk_engine_now(e);
    row->end_ns = now;
    int rc = 0;
    if (row->cls < WK_FC_N) {
        WkFailClass c = (WkFailClass)row->cls;
        WkFailDown d = {0};
        rc = wk_fail_class_down(wk_fail_class_get(c), &r->cluster, row->component, &d, err);
        if (rc == 0 && d.nlinks) {
            rc = set_links(r, &d, -1, err);
        } else if (rc == 0) {
            up_gpus(r, d.gpus, d.ngpus);
            if (d.ngpus)
                wk_runfail_spares_refill(r, r->cluster.gpu_node[d.gpus[0]]);
        }
        wk_fail_class_down_fini(&d);
        if (rc == 0 && ev->payload)
            rc = next_class_event(r, c, row->component, now, err); /* renewal: the next failure of this component */
    } else {
        uint32_t lo, hi;
        wk_runfail_unit_range(r, (WkScope)row->scope, row->component, &lo, &hi);
        uint32_t *gl = malloc((size_t)(hi - lo) * sizeof *gl);
        if (!gl)
            return wk_error_nomem(err, "repaired GPUs");
        for (uint32_t g = lo; g < hi; g++)
            gl[g - lo] = g;
        up_gpus(r, gl, hi - lo);
        free(gl);
    }
    if (rc == 0)
        rc = wk_runfail_wake_waiting(r, err);
    if (rc == 0)
        rc = wk_runfail_grow_elastic(r, err);
    if (rc == 0)
        rc = wk_sched_host_release(&r->si, err);
    return rc;
}

/* ---- set-up ---- */

int wk_runfail_parse(WkRun *r, const WkNode *root, WkError *err)
{
    return wk_fail_parse(wk_node_get(root, "failures"), wk_node_get(root, "checkpoint"), wk_node_get(root, "recovery"),
                         r->cluster.gpus, r->cluster.nodes, r->cluster.pods, &r->fail, err);
}

/* The failure model's event handlers, by event kind. */
static const struct {
    uint16_t kind;
    WkHandler fn;
} handlers[] = {
    {WK_EV_FAIL, on_fail},
    {WK_EV_REPAIR, on_repair},
    {WK_EV_DETECT, wk_runfail_on_detect},
    {WK_EV_CKPT, wk_runfail_on_ckpt},
    {WK_EV_CKPT_DONE, wk_runfail_on_ckpt_done},
    {WK_EV_EFFECT_END, wk_runfail_on_effect_end},
    {WK_EV_PROC, wk_runfail_on_proc},
    {WK_EV_SCRIPT, wk_runfail_on_script},
    {WK_EV_DIURNAL, wk_runfail_on_diurnal},
};

/* Handlers and named random streams: "fail.detect", "fail.<class>",
 * "fail.process.<n>". */
static int open_streams(WkRun *r, WkError *err)
{
    WkEngine *e = r->eng;
    int rc;
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
        if ((rc = wk_engine_on(e, handlers[i].kind, handlers[i].fn, r, err)) < 0)
            return rc;
    if ((rc = wk_engine_rng(e, "fail.detect", &r->fl.detect_rng, err)) < 0)
        return rc;
    for (int cl = 0; cl < WK_FC_N; cl++) {
        char name[48];
        snprintf(name, sizeof name, "fail.%s", wk_fail_class_name((WkFailClass)cl));
        if ((rc = wk_engine_rng(e, name, &r->fl.fail_rng[cl], err)) < 0)
            return rc;
    }
    if (r->fail.nprocs && !(r->fl.proc_rng = calloc(r->fail.nprocs, sizeof *r->fl.proc_rng)))
        return wk_error_nomem(err, "failure process streams");
    for (uint32_t p = 0; p < r->fail.nprocs; p++) {
        char name[48];
        snprintf(name, sizeof name, "fail.process.%u", p);
        if ((rc = wk_engine_rng(e, name, &r->fl.proc_rng[p], err)) < 0)
            return rc;
    }
    return 0;
}

/* The first failure of every class that is on: one aggregated Poisson
 * stream, or one renewal process per component. */
static int first_class_events(WkRun *r, WkError *err)
{
    int rc;
    for (int cl = 0; cl < WK_FC_N; cl++) {
        const WkFailClassSpec *s = &r->fail.cls[cl];
        uint64_t n = class_count(r, (WkFailClass)cl);
        if (!s->on || n == 0)
            continue;
        if (s->ttf.kind == WK_DIST_EXPONENTIAL) {
            if ((rc = next_class_event(r, (WkFailClass)cl, NONE, 0, err)) < 0)
                return rc;
        } else {
            for (uint64_t k = 0; k < n; k++) /* a renewal process per component */
                if ((rc = next_class_event(r, (WkFailClass)cl, (uint32_t)k, 0, err)) < 0)
                    return rc;
        }
    }
    return 0;
}

/* The first event of every random process: aggregated, or per unit. */
static int first_process_events(WkRun *r, WkError *err)
{
    WkEngine *e = r->eng;
    int rc;
    for (uint32_t p = 0; p < r->fail.nprocs; p++) {
        const WkFailProcess *pr = &r->fail.procs[p];
        WkRng *g = r->fl.proc_rng[p];
        uint64_t nu = wk_runfail_units(r, pr->scope);
        if (pr->ttf.kind == WK_DIST_EXPONENTIAL) {
            WkTime at = wk_time_from_s(wk_rng_exponential(g, pr->ttf.a / (double)nu));
            if ((rc = wk_engine_post_e(e, at, WK_EV_PROC, p, NONE, 0, 0, err)) < 0)
                return rc;
        } else {
            for (uint64_t u = 0; u < nu; u++)
                if ((rc = wk_engine_post_e(e, wk_dist_draw(&pr->ttf, g), WK_EV_PROC, p, (uint32_t)u, 0, 0, err)) < 0)
                    return rc;
        }
    }
    return 0;
}

int wk_runfail_start(WkRun *r, WkError *err)
{
    uint64_t nl = wk_fabric_link_ids(&r->cluster.fabric);
    if (nl && !(r->share.link_down = calloc(nl, 1)))
        return wk_error_nomem(err, "links down");
    wk_runfail_spares_reserve(r);
    int rc = open_streams(r, err);
    if (rc < 0)
        return rc;
    r->fl.diurnal = 1;
    /* scripted incidents run even when the random processes are off */
    for (uint32_t i = 0; i < r->fail.nscripted; i++)
        if ((rc = wk_engine_post_e(r->eng, r->fail.scripted[i].at, WK_EV_SCRIPT, i, 0, 0, 0, err)) < 0)
            return rc;
    if (!r->fail.enabled)
        return 0;
    if ((rc = first_class_events(r, err)) < 0 || (rc = first_process_events(r, err)) < 0)
        return rc;
    if (r->fail.diurnal_amplitude > 0)
        return wk_engine_post_e(r->eng, 0, WK_EV_DIURNAL, 0, 0, 0, 0, err);
    return 0;
}
