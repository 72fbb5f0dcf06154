/* SPDX-License-Identifier: Apache-2.0 */
/* progress.c — how a started job progresses: its speed comes from the
 * performance model on its placement (SKU, clocks, NVLink domains) and its
 * current share of the fabric. A job's flows are the edges of one ring per
 * rail across its NVLink domains; the flow network shares links max-min
 * fairly; whenever the shares change, the affected jobs settle their
 * progress and re-post their end (DESIGN.md, "Modelling resolution"). */
#include "models/state/state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The job's speed was set: the subsystems with a `rated` slot hear of it. */
static void rated(WkRun *r, uint32_t job)
{
    for (size_t k = 0; r->on_rated[k]; k++)
        r->on_rated[k]->rated(r, r->rated_st[k], job);
}

static double link_bw(const WkRun *r) { return wk_eval_link_bw(&r->cluster); }

/* Nominal environment of a job on `gpus` GPUs of node group g, contiguous,
 * with the full link rate: for up-front checks. */
static WkPerfEnv group_env(const WkRun *r, const WkNodeGroup *g, uint32_t gpus)
{
    return (WkPerfEnv){
        .sku = g->sku,
        .speed = 1.0,
        .gpus = gpus,
        .nvlink_gpus = g->nvlink_gpus,
        .nvlink_bw = g->sku->link_bw_bytes_per_s / 2,
        .net_bw = link_bw(r),
        .tp_cross = 0,
        .multi_domain = gpus > g->nvlink_gpus,
    };
}

/* The same on the cluster's first group. */
static WkPerfEnv nominal_env(const WkRun *r, uint32_t gpus) { return group_env(r, &r->cluster.groups[0], gpus); }

/* The GPU group of the largest memory (the first of equals), setting
 * r->hbm_min and r->hbm_max on the first call; NULL without GPU groups. */
static const WkNodeGroup *largest_memory(WkRun *r)
{
    const WkCluster *c = &r->cluster;
    const WkNodeGroup *big = NULL;
    double lo = 0;
    for (uint32_t k = 0; k < c->ngroups; k++) {
        const WkGpuSku *s = c->groups[k].sku;
        if (s->cpu)
            continue;
        if (!big || s->hbm_bytes > big->sku->hbm_bytes)
            big = &c->groups[k];
        if (lo == 0 || s->hbm_bytes < lo)
            lo = s->hbm_bytes;
    }
    r->hbm_min = lo;
    r->hbm_max = big ? big->sku->hbm_bytes : 0;
    return big;
}

double wk_progress_mem_need(WkRun *r, uint32_t job)
{
    if (r->hbm_max == 0)
        largest_memory(r);
    const WkJobSpec *js = &r->wl.jobs[job];
    if (r->hbm_min >= r->hbm_max || !js->model) /* one memory size: every GPU or none */
        return 0;
    WkJobRt *rt = &r->rt[job];
    if (rt->mem_need_gpus != js->gpus) {
        /* the memory a job needs does not depend on the SKU: evaluate it
         * against one of unbounded memory */
        WkPerfEnv env = nominal_env(r, js->gpus);
        WkGpuSku roomy = *env.sku;
        roomy.hbm_bytes = INFINITY;
        env.mem_sku = &roomy;
        WkPerfResult res;
        WkError e;
        wk_error_clear(&e);
        int ok = js->gpus > 0 && wk_perf_eval(&r->wl.models[js->model - 1], &env, &r->perf, &res, &e) == 0;
        rt->mem_need = ok && res.mem_bytes > r->hbm_min ? res.mem_bytes : 0;
        rt->mem_need_gpus = js->gpus;
    }
    return rt->mem_need;
}

/* GPUs per node shared by every node group, or 0 when they differ. */
static uint32_t common_gpus_per_node(const WkCluster *c)
{
    for (uint32_t g = 1; g < c->ngroups; g++)
        if (c->groups[g].gpus_per_node != c->groups[0].gpus_per_node)
            return 0;
    return c->groups[0].gpus_per_node;
}

/* The first node group of CPU nodes, or NULL. */
static const WkNodeGroup *cpu_group(const WkCluster *c)
{
    for (uint32_t g = 0; g < c->ngroups; g++)
        if (c->groups[g].sku->cpu)
            return &c->groups[g];
    return NULL;
}

int wk_progress_check(WkRun *r, WkError *err)
{
    enum { MAXSEEN = 256 };
    uint64_t seen[MAXSEEN];
    uint8_t seen_ok[MAXSEEN];
    size_t nseen = 0;
    int rc = wk_workload_resolve_nodes(&r->wl, common_gpus_per_node(&r->cluster), r->doc->file, err);
    if (rc < 0)
        return rc;
    const WkNodeGroup *cpu = cpu_group(&r->cluster);
    if (r->is_site && !(r->site.ok = malloc(r->wl.n ? r->wl.n : 1)))
        return wk_error_nomem(err, "site: feasibility");
    for (size_t i = 0; i < r->wl.n; i++) {
        const WkJobSpec *js = &r->wl.jobs[i];
        if (r->is_site) /* a site that cannot run a job: the broker sends it elsewhere */
            r->site.ok[i] = js->gpus <= r->cluster.gpus && !(js->model && cpu);
        else if (js->model && cpu)
            return wk_error_set(err, WK_E_INVAL, r->doc->file, 0, 0,
                                "workload: job %zu (model %s): model jobs need accelerators, and node group '%s' "
                                "is of CPU nodes (SKU %s); run model jobs on a GPU cluster, or give plain or hpc "
                                "jobs",
                                i, r->wl.models[js->model - 1].name ? r->wl.models[js->model - 1].name : "inline",
                                cpu->name, cpu->sku->name);
        if (!js->model || js->gpus > r->cluster.gpus || cpu)
            continue;
        uint64_t key = ((uint64_t)js->model << 32) | js->gpus;
        size_t dup = nseen;
        for (size_t k = 0; k < nseen; k++)
            if (seen[k] == key)
                dup = k;
        if (dup < nseen) {
            if (r->is_site)
                r->site.ok[i] = seen_ok[dup];
            continue;
        }
        const WkModelSpec *m = &r->wl.models[js->model - 1];
        WkPerfEnv env = nominal_env(r, js->gpus);
        WkPerfResult res;
        WkError e;
        wk_error_clear(&e);
        int bad = wk_perf_eval(m, &env, &r->perf, &res, &e) < 0;
        const WkNodeGroup *big = bad && e.code == WK_E_RANGE ? largest_memory(r) : NULL;
        if (big && big->sku->hbm_bytes > env.sku->hbm_bytes) {
            /* too large for the first group's memory: some group may hold it */
            env = group_env(r, big, js->gpus);
            wk_error_clear(&e);
            if (!(bad = wk_perf_eval(m, &env, &r->perf, &res, &e) < 0))
                wk_error_clear(&e);
            else if (e.code == WK_E_RANGE && !r->is_site)
                return wk_error_set(err, e.code, r->doc->file, 0, 0,
                                    "workload: job %zu (model %s on %u GPUs): no node group holds it: %s "
                                    "(the largest GPU memory of the cluster, group '%s')",
                                    i, m->name, js->gpus, e.msg, big->name);
        }
        if (nseen < MAXSEEN) {
            seen_ok[nseen] = (uint8_t)!bad;
            seen[nseen++] = key;
        }
        if (r->is_site) /* a site that cannot run it: the broker sends it elsewhere */
            r->site.ok[i] = (uint8_t)!bad;
        else if (bad)
            return wk_error_set(err, e.code, r->doc->file, 0, 0, "workload: job %zu (model %s on %u GPUs): %s", i,
                                m->name, js->gpus, e.msg);
    }
    return 0;
}

/* Environment from the actual placement, at the GPUs' clocks now. */
static void placement_env(const WkRun *r, const WkModelSpec *m, const uint32_t *gpus, uint32_t n, WkPerfEnv *env)
{
    wk_eval_env(&r->cluster, m, gpus, n, r->diurnal > 0 ? r->diurnal : 1.0, env);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A plain job's all-reduce time per iteration on the fabric at the full link
 * rate L: the inter-domain step of a hierarchical all-reduce of S bytes per
 * GPU, one ring per rail over its D NVLink domains, each ring carrying S /
 * rings: 2 (D-1)/D x S / (rings x L) (docs/models.md, "Plain jobs on the
 * fabric"). nflows = rings x D. */
static double plain_comm_s(const WkRun *r, const uint32_t *gpus, uint32_t n, uint32_t nflows)
{
    uint32_t *dom = malloc(((size_t)n + 1) * sizeof *dom);
    if (!dom || !nflows) {
        free(dom);
        return 0;
    }
    for (uint32_t i = 0; i < n; i++)
        dom[i] = wk_cluster_nvlink_domain(&r->cluster, gpus[i]);
    qsort(dom, n, sizeof *dom, cmp_u32);
    uint32_t d = 0;
    for (uint32_t i = 0; i < n; i++)
        d += i == 0 || dom[i] != dom[i - 1];
    free(dom);
    double rings = d ? (double)nflows / d : 1;
    return d > 1 ? 2.0 * (d - 1) / d * r->wl.comm_bytes / (rings * link_bw(r)) : 0;
}

/* The job's ring flows on the fabric share; sets its widest path class (and
 * a plain job's all-reduce time at the full link rate). Its rings are
 * computed on a new placement (reuse 0) and kept: a re-route (reuse 1)
 * moves paths, never the placement, so it routes the same edges. */
static int add_flows(WkRun *r, uint32_t job, int reuse, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    uint32_t n = r->wl.jobs[job].gpus;
    int rc = 0;
    if (!reuse || !rt->rings) {
        free(rt->rings);
        rt->rings = NULL;
        rt->nrings = 0;
        rc = wk_eval_rings(&r->cluster, rt->gpus, n, &rt->rings, &rt->nrings, &rt->path_class, err);
        reuse = 0;
    }
    rt->moved = 0;
    rt->flows = NULL;
    rt->nflows = 0;
    if (rc == 0)
        rc = wk_share_add(&r->share, &r->cluster, job, rt->rings, rt->nrings, &rt->flows, &rt->nflows, &rt->moved,
                          err);
    rt->na2a = 0;
    if (rc == 0 && !reuse && !r->wl.jobs[job].model)
        rt->comm_s = plain_comm_s(r, rt->gpus, n, rt->nflows);
    const WkModelSpec *m = r->wl.jobs[job].model ? &r->wl.models[r->wl.jobs[job].model - 1] : NULL;
    if (rc == 0 && m && wk_eval_ep_spans(m, &rt->env)) { /* its expert groups span NVLink domains */
        uint32_t rings = rt->nflows, etp = m->etp ? m->etp : m->tp;
        rc = wk_share_add_a2a(&r->share, &r->cluster, job, rt->gpus, n, m->tp * m->cp, m->tp * m->pp * m->cp, m->ep,
                              etp, &rt->flows, &rt->nflows, &rt->moved, err);
        rt->na2a = rt->nflows - rings;
    }
    wk_share_flowing(&r->share, job, rt->nflows > 0);
    return rc;
}

static void drop_flows(WkRun *r, uint32_t job)
{
    WkJobRt *rt = &r->rt[job];
    wk_share_remove(&r->share, rt->flows, rt->nflows - rt->na2a);
    wk_share_remove_a2a(&r->share, rt->flows + (rt->nflows - rt->na2a), rt->na2a);
    free(rt->flows);
    rt->flows = NULL;
    rt->nflows = 0;
    rt->na2a = 0;
    wk_share_flowing(&r->share, job, 0);
}

/* Speed of a plain job on its GPUs: its duration is run time on the
 * cluster's reference SKU (the first node group's) at full clock; a
 * synchronous job runs at its slowest GPU, so the speed is the smallest
 * (SKU BF16 peak / reference peak) x effective clock over its GPUs
 * (docs/models.md, "Plain jobs"). 1 on a homogeneous cluster at full clock.
 * With workload.sku_speed false the peak ratio is 1 on every SKU (the
 * duration is wall time on whatever GPU the trace's job ran). */
static double plain_speed(const WkRun *r, const uint32_t *gpus, uint32_t n)
{
    const WkCluster *c = &r->cluster;
    int capped = c->capped | c->site_capped;
    if ((c->ngroups == 1 || r->wl.same_speed) && r->pool.nslow == 0 && !(r->diurnal > 0 && r->diurnal != 1.0) && !capped)
        return 1.0; /* one SKU, every clock nominal */
    double ref = c->groups[0].sku->bf16_flops, factor = r->diurnal > 0 ? r->diurnal : 1.0, speed = INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double v = (r->wl.same_speed ? 1.0 : wk_cluster_sku_of(c, gpus[i])->bf16_flops / ref) *
                   (c->clock[gpus[i]] * factor);
        if (capped) /* only the clock-bound share of its run time stretches (docs/models.md) */
            v /= wk_dvfs_time_factor(wk_cluster_cap_clock(c, gpus[i]), c->power.compute_share);
        speed = v < speed ? v : speed;
    }
    return n && speed > 0 && isfinite(speed) ? speed : 1.0;
}

/* A held part of a job spanning sites makes no progress (models/network/network_span.c). */
static int held(const WkRun *r, uint32_t job)
{
    return r->is_site && r->site.part && (r->site.part[job] & WK_NET_HELD);
}

/* Speed of a plain job now: plain_speed, 0 while held, and with a `comm:`
 * profile on flows its iteration stretched from T + A to T + A x L / bw, T
 * the compute per iteration, A the all-reduce time at the full link rate L,
 * bw its slowest flow's rate now (docs/models.md, "Plain jobs on the
 * fabric"). */
static double plain_rate(const WkRun *r, uint32_t job)
{
    const WkJobRt *rt = &r->rt[job];
    if (held(r, job))
        return 0;
    double s = plain_speed(r, rt->gpus, r->wl.jobs[job].gpus);
    if (rt->comm_s > 0 && rt->nflows) {
        double full = link_bw(r), bw = wk_share_min_rate(&r->share, rt->flows, rt->nflows, full);
        double t = r->wl.comm_compute_s;
        bw = bw > 1 ? bw : 1; /* cut off by failed links: it crawls */
        if (bw < full)
            s *= (t + rt->comm_s) / (t + rt->comm_s * full / bw);
    }
    return s;
}

/* Wall time a plain job needs for left_ns of reference run time. */
static WkTime plain_wall(const WkJobRt *rt)
{
    if (rt->speed == 1.0)
        return rt->left_ns;
    if (rt->speed <= 0) /* held: its end is never reached until it is let go */
        return WK_RUN_MAX_TIME + 1;
    double w = ceil((double)rt->left_ns / rt->speed);
    /* Past the limit of a run: the end is never reached, and the run stops
     * at WK_RUN_MAX_TIME with the job unfinished (never completed early). */
    return w <= (double)WK_RUN_MAX_TIME ? (WkTime)w : WK_RUN_MAX_TIME + 1;
}

void wk_progress_settle(WkRun *r, uint32_t job, WkTime now)
{
    WkJobRt *rt = &r->rt[job];
    if (now <= rt->seg_start) /* still paying its restart cost */
        return;
    WkTime dt = now - rt->seg_start;
    rt->attained_gpu_s += (double)r->wl.jobs[job].gpus * wk_time_to_s(dt);
    rt->prog_s += wk_time_to_s(dt);
    if (!r->wl.jobs[job].model) {
        WkTime done = rt->speed == 1.0 ? dt : (WkTime)floor((double)dt * rt->speed);
        done = done < rt->left_ns ? done : rt->left_ns;
        rt->left_ns -= done;
        rt->work_gpu_s += wk_time_to_s(done) * r->wl.jobs[job].gpus;
    } else if (rt->iter_s > 0) {
        double iters = wk_time_to_s(dt) / rt->iter_s;
        if (iters > rt->work - rt->done)
            iters = rt->work - rt->done;
        rt->done += iters;
        if (isfinite(rt->nominal_iter_s))
            rt->work_gpu_s += iters * rt->nominal_iter_s * rt->gpus_req;
    }
    for (size_t k = 0; r->on_settled[k]; k++) /* e.g. what a chosen clock saved and cost */
        r->on_settled[k]->settled(r, r->settled_st[k], job, rt->seg_start, now);
    rt->seg_start = now;
}

double wk_progress_nominal_iter_s(WkRun *r, uint32_t job)
{
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    if (!js->model)
        return NAN;
    if (rt->nominal_iter_s == 0) { /* the same for every job of its model and size: kept */
        uint32_t kept = r->nnominal < WK_RUN_NOMINAL_MEMO ? r->nnominal : WK_RUN_NOMINAL_MEMO;
        for (uint32_t k = 0; k < kept; k++)
            if (r->nominal[k].model == js->model && r->nominal[k].gpus == js->gpus)
                return rt->nominal_iter_s = r->nominal[k].iter_s;
    }
    if (rt->nominal_iter_s == 0) {
        uint32_t n = js->gpus <= r->cluster.gpus ? js->gpus : r->cluster.gpus;
        uint32_t *g = malloc(((size_t)n + 1) * sizeof *g);
        double it = NAN;
        int asked = g != NULL; /* out of memory: NaN for this job, not kept */
        if (g) {
            for (uint32_t i = 0; i < n; i++)
                g[i] = i;
            /* nominal: every clock at 1 (no throttle, no time of day), so the
             * reference does not depend on when it is first asked for */
            const WkModelSpec *m = &r->wl.models[js->model - 1];
            WkPerfEnv env;
            wk_eval_env(&r->cluster, m, g, n, 1.0, &env);
            env.speed = 1.0;
            env.cap_clock = 1.0;
            WkPerfResult res;
            WkError e;
            wk_error_clear(&e);
            it = n == js->gpus && wk_perf_eval(m, &env, &r->perf, &res, &e) == 0 ? res.iter_s : NAN;
            free(g);
        }
        rt->nominal_iter_s = it;
        if (asked && it != 0) { /* 0 would read as "not yet" */
            uint32_t at = r->nnominal++ % WK_RUN_NOMINAL_MEMO;
            r->nominal[at].model = js->model;
            r->nominal[at].gpus = js->gpus;
            r->nominal[at].iter_s = it;
        }
    }
    return rt->nominal_iter_s;
}

double wk_progress_iter_on(const WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    if (!js->model || n != js->gpus)
        return NAN;
    const WkModelSpec *m = &r->wl.models[js->model - 1];
    WkPerfEnv env;
    placement_env(r, m, gpus, n, &env);
    WkPerfResult res;
    WkError e;
    wk_error_clear(&e);
    return wk_perf_eval(m, &env, &r->perf, &res, &e) < 0 ? NAN : res.iter_s;
}

/* The activity of a model job's GPUs from its iteration split (compute-
 * and memory-bound operator time, the rest). */
static double split_activity(const WkRun *r, const WkPerfResult *res)
{
    const WkCluster *c = &r->cluster;
    double cs = 0, ms = 0;
    for (int k = 0; k < WK_OP_NKIND; k++) {
        cs += res->ops[k].compute_s;
        ms += res->ops[k].memory_s;
    }
    return wk_power_split_activity(c->power.busy_activity, cs, ms, res->iter_s, c->power.memory_activity,
                                   c->power.other_activity);
}

/* With power.model_activity, set the activity a of a model job's GPUs,
 * accounting the energy up to now at the old draw first. */
static void set_activity(WkRun *r, uint32_t job, double a, WkTime now)
{
    WkCluster *c = &r->cluster;
    const uint32_t *gpus = r->rt[job].gpus;
    uint32_t n = r->wl.jobs[job].gpus;
    wk_account_to(&r->acct, &r->pool, now);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i];
        if (c->gpu_act[g] == a)
            continue;
        r->acct.gpu_power_w -= wk_account_gpu_draw(c, g, 1);
        c->gpu_act[g] = a;
        r->acct.gpu_power_w += wk_account_gpu_draw(c, g, 1);
    }
}

/* Re-evaluate a running model job's iteration time with its current
 * bandwidth share and re-post its end. Unless `env_changed`, a share equal
 * to the one of the last evaluation reuses its result: the performance
 * model is a function of the environment alone, so it would return the
 * same figures (most re-shares leave a job's share as it was). */
static int rerate_plain(WkRun *r, uint32_t job, WkTime now, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    wk_progress_settle(r, job, now);
    rt->speed = plain_rate(r, job);
    rated(r, job);
    r->share.reflows++;
    if (rt->hung)
        return 0;
    WkTime from = rt->seg_start > now ? rt->seg_start : now;
    return wk_engine_post_e(r->eng, from + plain_wall(rt), WK_EV_END, job, 0, 0, rt->token, err);
}

/* known: its flows' rates are those of its last re-rate (a re-route left
 * its paths as they were), so its bandwidth is not looked up again. */
static int rerate(WkRun *r, uint32_t job, WkTime now, int env_changed, int known, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    if (!r->wl.jobs[job].model) /* a plain job on flows (`comm:`) */
        return rerate_plain(r, job, now, err);
    const WkModelSpec *m = &r->wl.models[r->wl.jobs[job].model - 1];
    wk_progress_settle(r, job, now);
    uint32_t nring = rt->nflows - rt->na2a;
    double was = rt->env.net_bw, was_ep = rt->env.ep_bw;
    if (!known) {
        double bw = wk_share_min_rate(&r->share, rt->flows, nring, link_bw(r));
        rt->env.net_bw = bw > 1 ? bw : 1; /* a job cut off by failed links crawls, it does not divide by 0 */
        if (rt->na2a) { /* a GPU's all-to-all: ep - 1 flows, each at most the link rate / (ep - 1) (share.h) */
            double a = (m->ep - 1) * wk_share_min_rate_a2a(&r->share, rt->flows + nring, rt->na2a, INFINITY);
            rt->env.ep_bw = a > 1 ? a : 1;
        }
    }
    if (env_changed || !(rt->iter_c > 0) || rt->env.net_bw != was || rt->env.ep_bw != was_ep) {
        WkPerfResult res;
        WkError e;
        wk_error_clear(&e);
        if (wk_perf_eval(m, &rt->env, &r->perf, &res, &e) < 0)
            return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "job %u: %s", job, e.msg);
        rt->iter_c = res.iter_s;
        rt->activity = split_activity(r, &res);
        rt->flops_per_iter = res.model_flops_per_iter;
        rt->samples_per_iter = res.samples_per_iter;
    }
    rt->iter_s = wk_reads_iter(r, job, rt->iter_c); /* a data stall stretches it */
    if (r->cluster.power.model_activity)
        set_activity(r, job, rt->activity, now);
    rated(r, job);
    double left_s = (rt->work - rt->done) * rt->iter_s;
    WkTime from = rt->seg_start > now ? rt->seg_start : now;
    r->share.reflows++;
    if (rt->hung) /* hit by a failure: it ends only after a restart */
        return 0;
    /* An end past the limit of a run is posted just past it: never reached,
     * the job is unfinished when the run stops there (not completed at it). */
    return wk_engine_post_e(r->eng, wk_run_time_after(from, left_s), WK_EV_END, job, 0, 0, rt->token, err);
}

static int rerated(uint32_t job, void *user)
{
    const WkRun *r = user;
    return r->rt[job].state == WK_JOB_RUNNING && !r->rt[job].hung;
}

/* Solve the fabric shares and re-rate every running job whose flows changed. */
static int reshare(WkRun *r, uint32_t except, WkTime now, WkError *err)
{
    uint32_t *jobs;
    size_t n;
    int rc = wk_share_solve(&r->share, except, rerated, r, &jobs, &n, err);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = rerate(r, jobs[i], now, 0, 0, err);
    free(jobs);
    return rc;
}

int wk_progress_reshare(WkRun *r, WkError *err)
{
    return reshare(r, UINT32_MAX, wk_engine_now(r->eng), err);
}

int wk_progress_start(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    WkTime now = wk_engine_now(r->eng);
    if (!js->model) {
        rt->comm_s = 0;
        if (r->wl.comm_bytes > 0 && r->share.net) { /* `comm:`: its rings share the fabric */
            int rc = add_flows(r, job, 0, err);
            if (rc == 0 && rt->nflows)
                rc = reshare(r, job, now, err);
            if (rc < 0)
                return rc;
        }
        rt->speed = plain_rate(r, job);
        rated(r, job);
        return wk_engine_post_e(r->eng, rt->seg_start + plain_wall(rt), WK_EV_END, job, 0, 0, rt->token, err);
    }
    const WkModelSpec *m = &r->wl.models[js->model - 1];
    placement_env(r, m, rt->gpus, js->gpus, &rt->env);
    WkPerfResult res;
    WkError e;
    wk_error_clear(&e);
    if (wk_perf_eval(m, &rt->env, &r->perf, &res, &e) < 0) {
        int code = e.code == WK_E_RANGE ? WK_E_RANGE : WK_E_INVAL;
        if (!r->doc) /* `wanka perf`: no workload to name */
            return wk_error_set(err, code, NULL, 0, 0, "%s", e.msg);
        return wk_error_set(err, code, r->doc->file, 0, 0, "workload: job %u (model %s on %u GPUs as placed): %s", job,
                            m->name, js->gpus, e.msg);
    }
    if (rt->work <= 0) { /* first start; a resumed job keeps its progress */
        rt->work = js->iterations > 0 ? js->iterations : ceil(js->tokens / res.samples_per_iter);
        wk_progress_nominal_iter_s(r, job);
    }
    rt->iter_s = rt->iter_c = 0;
    int rc = wk_reads_start(r, job, res.samples_per_iter, res.iter_s, err);
    if (rc < 0)
        return rc;
    if (r->share.net && rt->env.multi_domain)
        rc = add_flows(r, job, 0, err);
    else
        rt->path_class = WK_PATH_LOCAL;
    if (rc == 0)
        rc = reshare(r, job, now, err);
    if (rc == 0)
        rc = rerate(r, job, now, 1, 0, err);
    return rc;
}

int wk_progress_stop(WkRun *r, uint32_t job, WkError *err)
{
    if (!r->wl.jobs[job].model && !r->rt[job].nflows)
        return 0;
    WkTime now = wk_engine_now(r->eng);
    wk_progress_settle(r, job, now);
    drop_flows(r, job);
    wk_reads_stop(r, job);
    free(r->rt[job].rings); /* the placement ends here */
    r->rt[job].rings = NULL;
    r->rt[job].nrings = 0;
    return reshare(r, job, now, err);
}

int wk_progress_store_solve(WkRun *r, int *moved, WkError *err)
{
    int rc = wk_share_store_solve(&r->share, moved, err);
    WkTime now = wk_engine_now(r->eng);
    for (uint32_t j = 0; rc == 0 && *moved && r->reading && j < r->wl.n; j++) {
        const WkJobRt *rt = &r->rt[j];
        if (rt->read_bytes > 0 && rt->state == WK_JOB_RUNNING && !rt->hung &&
            wk_reads_iter(r, j, rt->iter_c) != rt->iter_s)
            rc = rerate(r, j, now, 0, 0, err);
    }
    return rc;
}

int wk_progress_refresh(WkRun *r, uint32_t job, int new_env, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    WkTime now = wk_engine_now(r->eng);
    if (!js->model) {
        wk_progress_settle(r, job, now);
        if (new_env) {
            rt->speed = plain_rate(r, job);
            rated(r, job);
        }
        WkTime from = rt->seg_start > now ? rt->seg_start : now;
        return wk_engine_post_e(r->eng, from + plain_wall(rt), WK_EV_END, job, 0, 0, rt->token, err);
    }
    if (new_env) {
        double bw = rt->env.net_bw, gr = rt->env.grad_ratio;
        WkPerfStage *st = rt->env.stages;
        const WkModelSpec *m = &r->wl.models[js->model - 1];
        placement_env(r, m, rt->gpus, js->gpus, &rt->env);
        rt->env.net_bw = bw;
        rt->env.grad_ratio = gr; /* not placement-derived (models/mech) */
        rt->env.stages = st;     /* the division's split, at the stages' clocks now */
        if (st)
            wk_eval_stages(&r->cluster, m, rt->gpus, js->gpus, r->diurnal > 0 ? r->diurnal : 1.0, st);
    }
    /* Its placement unchanged, a running job's rates are those of its last
     * re-rate: every solve re-rates each job whose flows it moved (reshare),
     * but a hung one, which is rated afresh at its restart. */
    return rerate(r, job, now, new_env, !new_env && !rt->hung && rt->iter_s > 0, err);
}

int wk_progress_gate(WkRun *r, uint32_t job, int hold, WkTime left_ns, WkTime now, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    if (js->model || !r->site.part)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "job %u is not a part of a job spanning sites", job);
    if (rt->state == WK_JOB_RUNNING)
        wk_progress_settle(r, job, now);
    if (left_ns >= 0)
        rt->left_ns = left_ns;
    r->site.part[job] = (uint8_t)(hold ? r->site.part[job] | WK_NET_HELD : r->site.part[job] & ~WK_NET_HELD);
    if (rt->state != WK_JOB_RUNNING)
        return 0;
    rt->speed = hold ? 0 : plain_rate(r, job);
    rated(r, job); /* as wk_progress_refresh after a speed change */
    if (rt->hung)
        return 0;
    WkTime from = rt->seg_start > now ? rt->seg_start : now;
    return wk_engine_post_e(r->eng, from + plain_wall(rt), WK_EV_END, job, 0, 0, rt->token, err);
}

int wk_progress_reflow(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(r->eng);
    drop_flows(r, job);
    int rc = add_flows(r, job, 1, err);
    if (rc == 0) /* its read, too, around the links down now */
        rc = wk_reads_again(r, job, err);
    if (rc == 0)
        rc = reshare(r, UINT32_MAX, now, err);
    if (rc == 0 && !rt->hung)
        rc = rerate(r, job, now, 0, 0, err);
    return rc;
}

/* Whether one of the job's flows carries anything. */
static int carries(const WkRun *r, const WkJobRt *rt)
{
    uint32_t nring = rt->nflows - rt->na2a;
    for (uint32_t i = 0; i < nring; i++)
        if (wk_flownet_rate(r->share.net, rt->flows[i]) > 0)
            return 1;
    for (uint32_t i = nring; i < rt->nflows; i++)
        if (wk_flownet_rate(r->share.a2a, rt->flows[i]) > 0)
            return 1;
    return 0;
}

/* A running job whose paths a re-route leaves as they were: what
 * wk_progress_reflow does to it, without taking its flows out and back.
 * Re-added, its flows would get their rates again (the solver's rates do
 * not depend on flow ids or order, flow_impl.h), so no other job moves;
 * the re-share would list it once where its flows carry anything (their
 * rate was 0 as new), and it is re-rated, at the rates it has. */
static int touch(WkRun *r, uint32_t job, WkTime now, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    if (rt->hung)
        return 0;
    if (carries(r, rt))
        r->share.reflows++;
    return rerate(r, job, now, 0, 1, err);
}

int wk_progress_reroute(WkRun *r, const uint64_t *links, uint32_t n, int repair, WkError *err)
{
    WkShare *s = &r->share;
    if (!s->net)
        return 0;
    double bw = r->cluster.fabric.spec.link_bytes_per_s;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t l = links[i];
        double cap = s->link_down && s->link_down[l] ? 0 : bw;
        if (wk_flownet_capacity(s->net, wk_fabric_directed(l, 0)) != cap)
            wk_share_set_link(s, l, cap);
        wk_share_link_jobs(s, l);
    }
    /* In job order, as re-routing every running job would: the first one
     * re-routed whole (its re-share solves the links whose capacity moved),
     * then those whose paths may move; the rest are touched. */
    WkTime now = wk_engine_now(r->eng);
    int rc = 0, first = 1;
    for (uint32_t j = wk_share_next_flowing(s, 0); j != UINT32_MAX; j = wk_share_next_flowing(s, j + 1)) {
        WkJobRt *rt = &r->rt[j];
        int hit = wk_share_hit(s, j);
        wk_share_hit_clear(s, j);
        if (rc < 0 || rt->state != WK_JOB_RUNNING || !rt->nflows)
            continue;
        if (first || hit || (repair && rt->moved))
            rc = wk_progress_reflow(r, j, err);
        else
            rc = touch(r, j, now, err);
        first = 0;
    }
    return rc;
}
