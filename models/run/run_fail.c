/* SPDX-License-Identifier: Apache-2.0 */
/* run_fail.c — failures during a run: component failure processes, random
 * slowdowns and outages, scripted incidents, the recovery pipeline of a job
 * hit by one (detection → stop → scheduler decides or a spare node steps
 * in → restart overhead → progress rolled back to the last checkpoint →
 * running again), checkpoint intervals and stalls, link/switch failures
 * re-routed over surviving paths, and the incidents table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/run/run_impl.h"

#define NONE UINT32_MAX

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

/* GPU range [lo, hi) of a unit. */
static void unit_range(const WkRun *r, WkScope s, uint32_t idx, uint32_t *lo, uint32_t *hi)
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

static uint64_t units(const WkRun *r, WkScope s)
{
    const WkCluster *c = &r->cluster;
    return s == WK_SCOPE_GPU ? c->gpus : s == WK_SCOPE_NODE ? c->nodes
                                     : s == WK_SCOPE_RACK ? (c->nodes + r->fail.nodes_per_rack - 1) / r->fail.nodes_per_rack
                                                          : c->pods;
}

/* ---- incidents ---- */

static uint32_t new_incident(WkRun *r, uint8_t cls, uint8_t kind, uint8_t scope, uint32_t comp, WkTime t,
                             WkError *err)
{
    if (r->fl.nincidents >= WK_RUN_MAX_INCIDENTS) {
        wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                     "run: more than %d incidents, the limit (docs/limits.md): check the MTBFs under failures",
                     WK_RUN_MAX_INCIDENTS);
        return NONE;
    }
    if (r->fl.nincidents == r->fl.capincidents) {
        size_t nc = r->fl.capincidents ? r->fl.capincidents * 2 : 256;
        WkIncidentRow *n = realloc(r->fl.incidents, nc * sizeof *n);
        if (!n) {
            wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
            return NONE;
        }
        r->fl.incidents = n;
        r->fl.capincidents = nc;
    }
    uint32_t id = (uint32_t)r->fl.nincidents++;
    r->fl.incidents[id] = (WkIncidentRow){.id = id, .cls = cls, .kind = kind, .scope = scope, .component = comp,
                                       .start_ns = t, .end_ns = -1, .detect_s = NAN, .wait_s = NAN,
                                       .restart_s = NAN, .recovery_s = NAN, .clock = 1};
    return id;
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

/* Power and pool bookkeeping of a health change. */
static void set_health(WkRun *r, uint32_t g, WkGpuHealth h, float clock)
{
    WkCluster *c = &r->cluster;
    int busy = r->pool.owner[g] != NONE;
    double before = wk_power_gpu_w(wk_cluster_sku_of(c, g), (WkGpuHealth)c->health[g], c->clock[g],
                                   busy ? c->power.busy_activity : 0);
    wk_pool_set_health(&r->pool, g, h, clock);
    double after = wk_power_gpu_w(wk_cluster_sku_of(c, g), h, c->clock[g], busy ? c->power.busy_activity : 0);
    r->acct.gpu_power_w += after - before;
}

static int account_now(WkRun *r);

/* Delay until a job hit now notices, by the failure's detection path. */
static WkTime detect_delay(WkRun *r, WkFailDetect d)
{
    return d == WK_DETECT_TIMEOUT ? r->fail.nccl_timeout : hw_detect(r);
}

/* Down a list of GPUs for incident inc; hit the jobs on them. */
static int down_gpus(WkRun *r, const uint32_t *g, uint32_t n, uint32_t inc, WkFailDetect det, WkError *err)
{
    account_now(r);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (r->cluster.health[g[i]] == WK_GPU_DOWN)
            continue;
        r->fl.incidents[inc].gpus_lost++;
        set_health(r, g[i], WK_GPU_DOWN, 0);
        if (r->pool.owner[g[i]] != NONE)
            rc = hit(r, r->pool.owner[g[i]], inc, detect_delay(r, det), err);
    }
    return rc;
}

static int up_gpus(WkRun *r, const uint32_t *g, uint32_t n)
{
    account_now(r);
    for (uint32_t i = 0; i < n; i++)
        if (r->cluster.health[g[i]] == WK_GPU_DOWN)
            set_health(r, g[i], WK_GPU_UP, 1);
    return 0;
}

/* Re-rate running model jobs that use GPUs in [lo, hi) after a clock change. */
static int rerate_range(WkRun *r, uint32_t lo, uint32_t hi, WkError *err);

/* Links out of service: rebuild every running job's flows so paths avoid
 * them where the fabric offers another way. */
static int reroute_all(WkRun *r, WkError *err);

/* ---- links of a class failure ---- */

static void apply_link_capacity(WkRun *r);

/* Take a failure's links out of service (delta +1) or give them back (-1),
 * then re-route every running job. Past 255 failures in force on a link the
 * run stops rather than wrap the count. */
static int set_links(WkRun *r, const WkFailDown *d, int delta, WkError *err)
{
    account_now(r);
    int rc = wk_fail_class_mark_links(d, r->share.link_down, delta, err);
    if (rc < 0 || !r->share.net)
        return rc;
    apply_link_capacity(r);
    return reroute_all(r, err);
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

/* ---- checkpoints ---- */

static double ckpt_bytes(const WkRun *r, uint32_t job)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    return js->model ? r->fail.bytes_per_param * r->wl.models[js->model - 1].params : r->fail.plain_ckpt_bytes;
}

/* Stall of a checkpoint now (writers share the storage), and when it is
 * complete (async keeps writing after the snapshot). */
static void ckpt_cost(const WkRun *r, uint32_t job, double *stall, double *complete)
{
    double size = ckpt_bytes(r, job);
    double share = r->fail.storage_bw / (r->fl.ckpt_active + 1);
    double snap = size / ((double)r->wl.jobs[job].gpus * r->fail.host_bw);
    switch (r->fail.mode) {
    case WK_CKPT_ASYNC: *stall = snap; *complete = snap + size / share; break;
    case WK_CKPT_MEMORY: *stall = snap; *complete = snap; break;
    default: *stall = size / share; *complete = *stall; break;
    }
}

static double restore_s(const WkRun *r, uint32_t job)
{
    double t = ckpt_bytes(r, job) / r->fail.storage_bw;
    return r->fail.mode == WK_CKPT_MEMORY ? t / r->fail.memory_restore_speedup : t;
}

/* Expected time between failures hitting the job: 1 / sum of component rates. */
static double job_mttf_s(const WkRun *r, uint32_t job)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    uint32_t gpn = r->cluster.gpus_per_node ? r->cluster.gpus_per_node : 1;
    double gpus = js->gpus, nodes = ceil((double)js->gpus / gpn), rate = 0;
    for (int c = 0; c < WK_FC_N; c++) {
        if (!r->fail.cls[c].on)
            continue;
        double mean = wk_dist_mean_s(&r->fail.cls[c].ttf);
        double n = wk_fail_class_exposure(wk_fail_class_get((WkFailClass)c), gpus, nodes);
        if (mean > 0)
            rate += n / mean;
    }
    return rate > 0 ? 1 / rate : INFINITY;
}

static double job_tau_s(const WkRun *r, uint32_t job)
{
    double size = ckpt_bytes(r, job);
    double delta = r->fail.mode == WK_CKPT_REMOTE ? size / r->fail.storage_bw
                                                   : size / ((double)r->wl.jobs[job].gpus * r->fail.host_bw);
    double m = job_mttf_s(r, job);
    switch (r->fail.interval_rule) {
    case WK_CKPT_FIXED: return wk_time_to_s(r->fail.interval);
    case WK_CKPT_YOUNG: return isinf(m) ? 0 : wk_ckpt_young_s(delta, m);
    case WK_CKPT_DALY: return isinf(m) ? 0 : wk_ckpt_daly_s(delta, m);
    default: return 0;
    }
}

int wk_runfail_job_started(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(r->eng);
    if (rt->incident) {
        WkIncidentRow *row = &r->fl.incidents[rt->incident - 1];
        double rec = wk_time_to_s(rt->seg_start - rt->fail_t);
        row->wait_s = wk_time_to_s(now - rt->detect_t);
        row->restart_s = wk_time_to_s(rt->seg_start - now);
        if (isnan(row->recovery_s) || rec > row->recovery_s)
            row->recovery_s = rec;
        rt->incident = 0;
    }
    if (!r->fail.enabled || r->fail.interval_rule == WK_CKPT_NONE)
        return 0;
    if (rt->tau_s == 0)
        rt->tau_s = job_tau_s(r, job);
    if (!(rt->tau_s > 0))
        return 0;
    if (!rt->ckpt_tok && wk_engine_token_new(r->eng, &rt->ckpt_tok, err) < 0)
        return WK_E_NOMEM;
    return wk_engine_post_e(r->eng, rt->seg_start + wk_time_from_s(rt->tau_s), WK_EV_CKPT, job, 0, 0, rt->ckpt_tok, err);
}

void wk_runfail_job_stopped(WkRun *r, uint32_t job)
{
    WkJobRt *rt = &r->rt[job];
    if (rt->ckpt_tok && !rt->hung)
        wk_engine_cancel(r->eng, rt->ckpt_tok);
    if (rt->in_ckpt) {
        rt->in_ckpt = 0;
        if (r->fail.mode != WK_CKPT_MEMORY && r->fl.ckpt_active)
            r->fl.ckpt_active--;
    }
}

static int on_ckpt(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    uint32_t job = ev->target;
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(e);
    wk_progress_settle(r, job, now);
    rt->snap_done = rt->done;
    rt->snap_left = rt->left_ns;
    rt->snap_prog_s = rt->prog_s;
    double stall, complete;
    ckpt_cost(r, job, &stall, &complete);
    rt->in_ckpt = 1;
    if (r->fail.mode != WK_CKPT_MEMORY)
        r->fl.ckpt_active++;
    rt->seg_start = now + wk_time_from_s(stall); /* no progress while writing */
    int rc = wk_progress_refresh(r, job, 0, err);
    if (rc < 0)
        return rc;
    return wk_engine_post_e(e, now + wk_time_from_s(complete), WK_EV_CKPT_DONE, job, 0, 0, rt->ckpt_tok, err);
}

static int on_ckpt_done(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    WkJobRt *rt = &r->rt[ev->target];
    WkTime now = wk_engine_now(e);
    rt->in_ckpt = 0;
    if (r->fail.mode != WK_CKPT_MEMORY && r->fl.ckpt_active)
        r->fl.ckpt_active--;
    rt->ckpt_done = rt->snap_done;
    rt->ckpt_left = rt->snap_left;
    rt->ckpt_prog_s = rt->snap_prog_s;
    WkTime from = rt->seg_start > now ? rt->seg_start : now;
    return wk_engine_post_e(e, from + wk_time_from_s(rt->tau_s), WK_EV_CKPT, ev->target, 0, 0, rt->ckpt_tok, err);
}

/* ---- detection and restart ---- */

/* Restart on hot spares: the job's surviving GPUs plus whole spare nodes. */
static int try_spares(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkCluster *c = &r->cluster;
    uint32_t n = r->wl.jobs[job].gpus, k = 0;
    uint32_t *list = malloc((size_t)n * sizeof *list);
    if (!list)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
    for (uint32_t i = 0; i < n; i++)
        if ((r->pool.freebits[rt->gpus[i] >> 6] >> (rt->gpus[i] & 63)) & 1)
            list[k++] = rt->gpus[i];
    for (uint32_t nd = c->nodes; nd-- > 0 && k < n;) {
        if (!r->pool.reserved[nd])
            continue;
        r->pool.reserved[nd] = 0;
        r->pool.spares_free--;
        for (uint32_t g = c->node_first_gpu[nd]; g < c->node_first_gpu[nd + 1]; g++)
            if (c->health[g] != WK_GPU_DOWN && r->pool.owner[g] == NONE) {
                wk_pool_give(&r->pool, g);
                if (k < n)
                    list[k++] = g;
            }
    }
    int rc = 1; /* not restarted */
    if (k == n)
        rc = wk_sched_start(&r->si.ctx, job, list, n, err);
    free(list);
    return rc;
}

/* Elastic shrink: restart at once on the surviving GPUs with as many whole
 * DP replicas as still fit the batch and memory. Returns 0 when restarted,
 * 1 when it could not shrink. */
static int try_shrink(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkJobSpec *js = &r->wl.jobs[job];
    if (!js->model)
        return 1;
    const WkModelSpec *m = &r->wl.models[js->model - 1];
    if (!m->elastic)
        return 1;
    uint32_t n = js->gpus, k = 0;
    uint32_t *surv = malloc((size_t)n * sizeof *surv);
    if (!surv)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
    for (uint32_t i = 0; i < n; i++)
        if (r->cluster.health[rt->gpus[i]] != WK_GPU_DOWN)
            surv[k++] = rt->gpus[i];
    uint32_t per = m->kind == WK_MODEL_LLM ? m->tp * m->pp * m->cp : 1, pick = 0;
    for (uint32_t reps = k / per; reps >= 1 && !pick; reps--) {
        uint32_t g = reps * per;
        if (g >= n)
            continue;
        uint32_t was = js->gpus;
        js->gpus = g; /* evaluate the job as it would run on g GPUs */
        if (!isnan(wk_progress_iter_on(r, job, surv, g)))
            pick = g; /* the batch splits and memory fits */
        js->gpus = was;
    }
    int rc = 1;
    if (pick) {
        rc = wk_lifecycle_requeue(r, job, err);
        if (rc == 0) {
            rt->hung = 0;
            js->gpus = pick; /* the job continues with fewer replicas */
            r->fl.shrinks++;
            rc = wk_sched_start(&r->si.ctx, job, surv, pick, err);
        }
    }
    free(surv);
    return rc;
}

/* Restart a job that waited in place once none of its GPUs is down. */
static int restart_in_place(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(r->eng);
    rt->waiting = 0;
    rt->hung = 0;
    rt->seg_start = now + rt->pending_cost;
    rt->pending_cost = 0;
    int rc = wk_progress_start(r, job, err);
    return rc < 0 ? rc : wk_runfail_job_started(r, job, err);
}

static int on_detect(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    uint32_t job = ev->target, inc = ev->payload;
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(e);
    WkIncidentRow *row = &r->fl.incidents[inc];
    double det = wk_time_to_s(now - rt->fail_t);
    if (isnan(row->detect_s) || det > row->detect_s)
        row->detect_s = det;
    rt->detect_t = now;
    rt->interruptions++;
    r->fl.interruptions++;
    rt->pending_cost = r->fail.launch + wk_time_from_s(restore_s(r, job));
    int rc = try_shrink(r, job, err);
    if (rc <= 0)
        return rc;
    if (r->fail.recovery == WK_RECOVER_WAIT) {
        int any_down = 0;
        for (uint32_t i = 0; i < r->wl.jobs[job].gpus; i++)
            any_down |= r->cluster.health[rt->gpus[i]] == WK_GPU_DOWN;
        if (!any_down) /* a software failure: restart where it is */
            return restart_in_place(r, job, err);
        /* keep the GPUs, drop the traffic, wait for the repair */
        if ((rc = wk_progress_stop(r, job, err)) < 0)
            return rc;
        rt->waiting = 1;
        if (r->fl.nwait == r->fl.capwait) {
            size_t nc = r->fl.capwait ? r->fl.capwait * 2 : 16;
            uint32_t *n = realloc(r->fl.waitlist, nc * sizeof *n);
            if (!n)
                return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
            r->fl.waitlist = n;
            r->fl.capwait = nc;
        }
        r->fl.waitlist[r->fl.nwait++] = job;
        return 0;
    }
    if ((rc = wk_lifecycle_requeue(r, job, err)) < 0)
        return rc;
    rt->hung = 0;
    if (r->fail.recovery == WK_RECOVER_SPARES && (rc = try_spares(r, job, err)) <= 0)
        return rc;
    return wk_sched_host_incident(&r->si, &job, 1, err);
}

/* After a repair: restart the waiting jobs whose GPUs are all up again. */
static int wake_waiting(WkRun *r, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; i < r->fl.nwait && rc == 0;) {
        uint32_t job = r->fl.waitlist[i];
        int down = 0;
        for (uint32_t k = 0; k < r->wl.jobs[job].gpus && !down; k++)
            down = r->cluster.health[r->rt[job].gpus[k]] == WK_GPU_DOWN;
        if (down) {
            i++;
            continue;
        }
        r->fl.waitlist[i] = r->fl.waitlist[--r->fl.nwait];
        rc = restart_in_place(r, job, err);
    }
    return rc;
}

/* ---- failures, slowdowns, repairs ---- */

static int account_now(WkRun *r)
{
    /* power changes must be integrated up to now first: the run's accounting
     * integrates lazily at its next change; force it by a zero-effect resample */
    wk_run_account_to(r, wk_engine_now(r->eng));
    return 0;
}

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

static int hit_range_soft(WkRun *r, const uint32_t *g, uint32_t n, uint32_t inc, WkFailDetect det, WkError *err)
{
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++)
        if (r->pool.owner[g[i]] != NONE)
            rc = hit(r, r->pool.owner[g[i]], inc, detect_delay(r, det), err);
    return rc;
}

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
    uint32_t inc = new_incident(r, (uint8_t)c, (uint8_t)ci->kind, (uint8_t)wk_fail_class_scope(ci), (uint32_t)comp,
                                now, err);
    if (inc == NONE)
        return err && err->code ? err->code : WK_E_NOMEM;
    WkFailDown d = {0};
    int rc = wk_fail_class_down(ci, &r->cluster, comp, &d, err);
    if (rc == 0 && ci->kind == WK_INC_SOFT) {
        /* software bug / NCCL hang on a node, SDC on a GPU: the job there restarts */
        rc = hit_range_soft(r, d.gpus, d.ngpus, inc, ci->detect, err);
        r->fl.incidents[inc].end_ns = now;
        if (rc == 0 && !aggregated)
            rc = next_class_event(r, c, (uint32_t)comp, now, err);
    } else if (rc == 0) {
        rc = d.nlinks ? set_links(r, &d, +1, err) : down_gpus(r, d.gpus, d.ngpus, inc, ci->detect, err);
        WkTime rep = wk_dist_draw(&r->fail.cls[c].repair, r->fl.fail_rng[c]);
        if (rc == 0)
            rc = wk_engine_post_e(e, now + (rep > 0 ? rep : 1), WK_EV_REPAIR, inc, aggregated ? 0 : 1, 0, 0, err);
    }
    wk_fail_class_down_fini(&d);
    return rc;
}

/* Give a repaired node back to the spare pool when it is short. */
static void replenish_spares(WkRun *r, uint32_t node)
{
    const WkCluster *c = &r->cluster;
    if (r->fail.recovery != WK_RECOVER_SPARES || r->pool.spares_free >= r->fail.spare_nodes || r->pool.reserved[node])
        return;
    for (uint32_t g = c->node_first_gpu[node]; g < c->node_first_gpu[node + 1]; g++)
        if (r->pool.owner[g] != NONE || c->health[g] == WK_GPU_DOWN)
            return;
    for (uint32_t g = c->node_first_gpu[node]; g < c->node_first_gpu[node + 1]; g++)
        wk_pool_take(&r->pool, g);
    r->pool.reserved[node] = 1;
    r->pool.spares_free++;
}

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
                replenish_spares(r, r->cluster.gpu_node[d.gpus[0]]);
        }
        wk_fail_class_down_fini(&d);
        if (rc == 0 && ev->payload)
            rc = next_class_event(r, c, row->component, now, err); /* renewal: the next failure of this component */
    } else {
        uint32_t lo, hi;
        unit_range(r, (WkScope)row->scope, row->component, &lo, &hi);
        uint32_t *gl = malloc((size_t)(hi - lo) * sizeof *gl);
        if (!gl)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
        for (uint32_t g = lo; g < hi; g++)
            gl[g - lo] = g;
        up_gpus(r, gl, hi - lo);
        free(gl);
    }
    if (rc == 0)
        rc = wake_waiting(r, err);
    if (rc == 0)
        rc = wk_sched_host_release(&r->si, err);
    return rc;
}

/* Apply a slowdown, outage or soft failure to GPUs [lo, hi). */
static int apply_effect(WkRun *r, WkIncidentKind kind, uint32_t lo, uint32_t hi, double clock, WkTime dur,
                        uint32_t inc, WkError *err)
{
    WkTime now = wk_engine_now(r->eng);
    uint32_t *gl = malloc((size_t)(hi - lo + 1) * sizeof *gl);
    if (!gl)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
    for (uint32_t g = lo; g < hi; g++)
        gl[g - lo] = g;
    int rc = 0;
    r->fl.incidents[inc].clock = clock;
    if (kind == WK_INC_DOWN) {
        rc = down_gpus(r, gl, hi - lo, inc, WK_DETECT_HEALTH_CHECK, err);
        if (rc == 0)
            rc = wk_engine_post_e(r->eng, now + dur, WK_EV_REPAIR, inc, 0, 0, 0, err);
    } else if (kind == WK_INC_SOFT) {
        rc = hit_range_soft(r, gl, hi - lo, inc, WK_DETECT_TIMEOUT, err);
        r->fl.incidents[inc].end_ns = now;
    } else {
        account_now(r);
        for (uint32_t g = lo; g < hi; g++)
            if (r->cluster.health[g] != WK_GPU_DOWN) {
                set_health(r, g, WK_GPU_THROTTLED, (float)clock);
                r->fl.incidents[inc].gpus_lost++;
            }
        rc = rerate_range(r, lo, hi, err);
        if (rc == 0)
            rc = wk_engine_post_e(r->eng, now + dur, WK_EV_EFFECT_END, inc, 0, 0, 0, err);
    }
    free(gl);
    return rc == WK_E_NOMEM ? wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory") : rc;
}

static int on_effect_end(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    WkIncidentRow *row = &r->fl.incidents[ev->target];
    row->end_ns = wk_engine_now(e);
    uint32_t lo, hi;
    unit_range(r, (WkScope)row->scope, row->component, &lo, &hi);
    if (row->gpus_lost && hi - lo > row->gpus_lost)
        hi = lo + row->gpus_lost;
    account_now(r);
    for (uint32_t g = lo; g < hi; g++)
        if (r->cluster.health[g] == WK_GPU_THROTTLED)
            set_health(r, g, WK_GPU_UP, 1);
    return rerate_range(r, lo, hi, err);
}

static int on_proc(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    const WkFailProcess *p = &r->fail.procs[ev->target];
    WkRng *g = r->fl.proc_rng[ev->target];
    WkTime now = wk_engine_now(e);
    uint64_t nu = units(r, p->scope);
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
    uint32_t inc = new_incident(r, WK_FC_N, (uint8_t)p->kind, (uint8_t)p->scope, (uint32_t)unit, now, err);
    if (inc == NONE)
        return err && err->code ? err->code : WK_E_NOMEM;
    uint32_t lo, hi;
    unit_range(r, p->scope, (uint32_t)unit, &lo, &hi);
    return apply_effect(r, p->kind, lo, hi, p->clock, dur, inc, err);
}

static int on_script(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    const WkScripted *s = &r->fail.scripted[ev->target];
    uint32_t inc = new_incident(r, WK_FC_N, (uint8_t)s->kind, (uint8_t)s->scope, s->index, wk_engine_now(e), err);
    if (inc == NONE)
        return err && err->code ? err->code : WK_E_NOMEM;
    uint32_t lo, hi;
    unit_range(r, s->scope, s->index, &lo, &hi);
    if (s->gpus && hi - lo > s->gpus)
        hi = lo + s->gpus;
    return apply_effect(r, s->kind, lo, hi, s->clock, s->duration, inc, err);
}

static int on_diurnal(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    (void)ev;
    WkTime now = wk_engine_now(e);
    double day = wk_time_to_s(now % WK_NS_PER_DAY) / 86400.0;
    /* clock loss peaks at mid-day: 1 - A (1 - cos 2 pi t) / 2 */
    r->fl.diurnal = 1 - r->fail.diurnal_amplitude * (1 - cos(6.283185307179586 * day)) / 2;
    int rc = rerate_range(r, 0, r->cluster.gpus, err);
    if (rc == 0)
        rc = wk_engine_post_e(e, now + WK_NS_PER_H, WK_EV_DIURNAL, 0, 0, 0, 0, err);
    return rc;
}

static int rerate_range(WkRun *r, uint32_t lo, uint32_t hi, WkError *err)
{
    /* the distinct running jobs on [lo, hi) */
    int rc = 0;
    for (uint32_t g = lo; g < hi && rc == 0; g++) {
        uint32_t job = r->pool.owner[g];
        if (job == NONE || r->rt[job].hung || r->rt[job].state != WK_JOB_RUNNING)
            continue;
        /* refresh each job once: skip GPUs of a job already handled in this range */
        int seen = 0;
        for (uint32_t x = lo; x < g && !seen; x++)
            seen = r->pool.owner[x] == job;
        if (!seen)
            rc = wk_progress_refresh(r, job, 1, err);
    }
    return rc;
}

static int reroute_all(WkRun *r, WkError *err)
{
    int rc = 0;
    for (size_t j = 0; j < r->wl.n && rc == 0; j++)
        if (r->rt[j].state == WK_JOB_RUNNING && r->rt[j].nflows)
            rc = wk_progress_reflow(r, (uint32_t)j, err);
    return rc;
}

/* ---- set-up ---- */

int wk_runfail_parse(WkRun *r, const WkNode *root, WkError *err)
{
    return wk_fail_parse(wk_node_get(root, "failures"), wk_node_get(root, "checkpoint"), wk_node_get(root, "recovery"),
                         r->cluster.gpus, r->cluster.nodes, r->cluster.pods, &r->fail, err);
}

int wk_runfail_start(WkRun *r, WkError *err)
{
    const WkCluster *c = &r->cluster;
    uint64_t nl = wk_fabric_link_ids(&c->fabric);
    if (nl && !(r->share.link_down = calloc(nl, 1)))
        return wk_error_nomem(err, "links down");
    /* hot spares: the last nodes of the cluster, held out of scheduling */
    for (uint32_t k = 0; k < r->fail.spare_nodes; k++) {
        uint32_t nd = c->nodes - 1 - k;
        r->pool.reserved[nd] = 1;
        for (uint32_t g = c->node_first_gpu[nd]; g < c->node_first_gpu[nd + 1]; g++)
            wk_pool_take(&r->pool, g);
        r->pool.spares_free++;
    }
    int rc;
    WkEngine *e = r->eng;
    if ((rc = wk_engine_on(e, WK_EV_FAIL, on_fail, r, err)) < 0 || (rc = wk_engine_on(e, WK_EV_REPAIR, on_repair, r, err)) < 0 ||
        (rc = wk_engine_on(e, WK_EV_DETECT, on_detect, r, err)) < 0 || (rc = wk_engine_on(e, WK_EV_CKPT, on_ckpt, r, err)) < 0 ||
        (rc = wk_engine_on(e, WK_EV_CKPT_DONE, on_ckpt_done, r, err)) < 0 ||
        (rc = wk_engine_on(e, WK_EV_EFFECT_END, on_effect_end, r, err)) < 0 ||
        (rc = wk_engine_on(e, WK_EV_PROC, on_proc, r, err)) < 0 || (rc = wk_engine_on(e, WK_EV_SCRIPT, on_script, r, err)) < 0 ||
        (rc = wk_engine_on(e, WK_EV_DIURNAL, on_diurnal, r, err)) < 0 ||
        (rc = wk_engine_rng(e, "fail.detect", &r->fl.detect_rng, err)) < 0)
        return rc;
    for (int cl = 0; cl < WK_FC_N; cl++) {
        char name[48];
        snprintf(name, sizeof name, "fail.%s", wk_fail_class_name((WkFailClass)cl));
        if ((rc = wk_engine_rng(e, name, &r->fl.fail_rng[cl], err)) < 0)
            return rc;
    }
    if (r->fail.nprocs && !(r->fl.proc_rng = calloc(r->fail.nprocs, sizeof *r->fl.proc_rng)))
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
    for (uint32_t p = 0; p < r->fail.nprocs; p++) {
        char name[48];
        snprintf(name, sizeof name, "fail.process.%u", p);
        if ((rc = wk_engine_rng(e, name, &r->fl.proc_rng[p], err)) < 0)
            return rc;
    }
    r->fl.diurnal = 1;
    /* scripted incidents run even when the random processes are off */
    for (uint32_t i = 0; i < r->fail.nscripted; i++)
        if ((rc = wk_engine_post_e(e, r->fail.scripted[i].at, WK_EV_SCRIPT, i, 0, 0, 0, err)) < 0)
            return rc;
    if (!r->fail.enabled)
        return 0;
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
    for (uint32_t p = 0; p < r->fail.nprocs; p++) {
        const WkFailProcess *pr = &r->fail.procs[p];
        uint64_t nu = units(r, pr->scope);
        if (pr->ttf.kind == WK_DIST_EXPONENTIAL) {
            if ((rc = wk_engine_post_e(e, wk_time_from_s(wk_rng_exponential(r->fl.proc_rng[p], pr->ttf.a / (double)nu)), WK_EV_PROC, p,
                               NONE, 0, 0, err)) < 0)
                return rc;
        } else {
            for (uint64_t u = 0; u < nu; u++)
                if ((rc = wk_engine_post_e(e, wk_dist_draw(&pr->ttf, r->fl.proc_rng[p]), WK_EV_PROC, p, (uint32_t)u, 0, 0, err)) < 0)
                    return rc;
        }
    }
    if (r->fail.diurnal_amplitude > 0)
        return wk_engine_post_e(e, 0, WK_EV_DIURNAL, 0, 0, 0, 0, err);
    return 0;
}
