/* SPDX-License-Identifier: Apache-2.0 */
/* run_exec.c — how a started job progresses: its speed comes from the
 * performance model on its placement (SKU, clocks, NVLink domains) and its
 * current share of the fabric. A job's flows are the edges of one ring per
 * rail across its NVLink domains; the flow network shares links max-min
 * fairly; whenever the shares change, the affected jobs settle their
 * progress and re-post their end (DESIGN.md, "Modelling resolution"). */
#include "models/run/run_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double link_bw(const WkRun *r)
{
    const WkFabric *f = &r->cluster.fabric;
    return f->spec.kind == WK_FABRIC_NONE ? 50e9 : f->spec.link_bytes_per_s;
}

int wk_runjob_net_init(WkRun *r, WkError *err)
{
    const WkFabric *f = &r->cluster.fabric;
    if (f->spec.kind == WK_FABRIC_NONE)
        return 0;
    int rc = wk_flownet_new(&r->net, 2 * wk_fabric_link_ids(f), f->spec.link_bytes_per_s, err);
    if (rc < 0)
        return rc;
    r->dirty_jobs = calloc((r->wl.n + 63) / 64 + 1, sizeof *r->dirty_jobs);
    return r->dirty_jobs ? 0 : wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
}

/* Nominal environment of a job on `gpus` GPUs of the cluster's first group,
 * contiguous, with the full link rate: for up-front checks. */
static WkPerfEnv nominal_env(const WkRun *r, uint32_t gpus)
{
    const WkNodeGroup *g = &r->cluster.groups[0];
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

int wk_runjob_check(const WkRun *r, WkError *err)
{
    enum { MAXSEEN = 256 };
    uint64_t seen[MAXSEEN];
    size_t nseen = 0;
    for (size_t i = 0; i < r->wl.n; i++) {
        const WkJobSpec *js = &r->wl.jobs[i];
        if (!js->model || js->gpus > r->cluster.gpus)
            continue;
        uint64_t key = ((uint64_t)js->model << 32) | js->gpus;
        int dup = 0;
        for (size_t k = 0; k < nseen; k++)
            dup |= seen[k] == key;
        if (dup)
            continue;
        if (nseen < MAXSEEN)
            seen[nseen++] = key;
        const WkModelSpec *m = &r->wl.models[js->model - 1];
        WkPerfEnv env = nominal_env(r, js->gpus);
        WkPerfResult res;
        WkError e;
        wk_error_clear(&e);
        if (wk_perf_eval(m, &env, &r->perf, &res, &e) < 0)
            return wk_error_set(err, e.code, r->doc->file, 0, 0, "workload: job %zu (model %s on %u GPUs): %s", i,
                                m->name, js->gpus, e.msg);
    }
    return 0;
}

/* Environment from the actual placement. */
static void placement_env(const WkRun *r, const WkModelSpec *m, const uint32_t *gpus, uint32_t n, WkPerfEnv *env)
{
    const WkCluster *c = &r->cluster;
    const WkGpuSku *slow = wk_cluster_sku_of(c, gpus[0]);
    double speed = 1.0;
    uint32_t nvl = UINT32_MAX;
    uint32_t d0 = wk_cluster_nvlink_domain(c, gpus[0]);
    int multi = 0;
    for (uint32_t i = 0; i < n; i++) {
        const WkGpuSku *s = wk_cluster_sku_of(c, gpus[i]);
        if (s->bf16_flops < slow->bf16_flops)
            slow = s;
        double ck = r->owner ? wk_runfail_clock(r, gpus[i]) : c->clock[gpus[i]];
        if (ck < speed)
            speed = ck;
        uint32_t g = wk_cluster_group_of(c, gpus[i])->nvlink_gpus;
        nvl = g < nvl ? g : nvl;
        multi |= wk_cluster_nvlink_domain(c, gpus[i]) != d0;
    }
    if (m->rebalance) {
        /* each DP replica runs at its slowest GPU; micro-batches are dealt in
         * proportion to replica speed, so the job runs at the mean replica
         * speed (relative to the slowest SKU's nominal peak) */
        uint32_t per = m->kind == WK_MODEL_LLM ? m->tp * m->pp * m->cp : 1;
        double sum = 0;
        uint32_t reps = 0;
        for (uint32_t i = 0; i + per <= n; i += per, reps++) {
            double rs = INFINITY;
            for (uint32_t k = 0; k < per; k++) {
                double v = wk_cluster_sku_of(c, gpus[i + k])->bf16_flops *
                           (r->owner ? wk_runfail_clock(r, gpus[i + k]) : c->clock[gpus[i + k]]);
                rs = v < rs ? v : rs;
            }
            sum += rs / slow->bf16_flops;
        }
        if (reps)
            speed = sum / reps;
    }
    int tp_cross = 0;
    uint32_t tp = m->kind == WK_MODEL_LLM ? m->tp : 1;
    for (uint32_t i = 0; tp > 1 && i + tp <= n && !tp_cross; i += tp) {
        uint32_t d = wk_cluster_nvlink_domain(c, gpus[i]);
        for (uint32_t k = 1; k < tp; k++)
            tp_cross |= wk_cluster_nvlink_domain(c, gpus[i + k]) != d;
    }
    *env = (WkPerfEnv){
        .sku = slow,
        .speed = speed,
        .gpus = n,
        .nvlink_gpus = nvl,
        .nvlink_bw = slow->link_bw_bytes_per_s / 2,
        .net_bw = link_bw(r),
        .tp_cross = tp_cross,
        .multi_domain = multi,
    };
}

typedef struct {
    uint32_t domain, rank, gpu;
} DomGpu;

static int cmp_domain(const void *a, const void *b)
{
    const DomGpu *x = a, *y = b;
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_rank(const void *a, const void *b)
{
    const DomGpu *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* One ring per rail across the job's NVLink domains, visited in rank order
 * (the order of each domain's first rank, as NCCL orders nodes): ring k links
 * the k-th GPU of each domain to the k-th GPU of the next. So a placement
 * that alternates pods makes every ring edge cross pods. Adds the flows;
 * sets the job's widest path class. */
static int add_flows(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    uint32_t n = r->wl.jobs[job].gpus;
    DomGpu *dg = malloc((size_t)n * sizeof *dg);
    DomGpu *heads = malloc(((size_t)n + 1) * sizeof *heads); /* per domain: first rank, start index */
    uint32_t *start = malloc(((size_t)n + 1) * sizeof *start);
    if (!dg || !heads || !start) {
        free(dg);
        free(heads);
        free(start);
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        dg[i] = (DomGpu){wk_cluster_nvlink_domain(&r->cluster, rt->gpus[i]), i, rt->gpus[i]};
    qsort(dg, n, sizeof *dg, cmp_domain);
    uint32_t nd = 0, rings = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (i == 0 || dg[i].domain != dg[i - 1].domain)
            heads[nd++] = (DomGpu){dg[i].domain, dg[i].rank, i}; /* gpu field: start index */
    qsort(heads, nd, sizeof *heads, cmp_rank);
    for (uint32_t d = 0; d < nd; d++)
        start[d] = heads[d].gpu;
    for (uint32_t d = 0; d < nd; d++) {
        uint32_t s = start[d], e = s;
        while (e < n && dg[e].domain == dg[s].domain)
            e++;
        if (e - s < rings)
            rings = e - s;
    }
    if (rings > r->cluster.rails)
        rings = r->cluster.rails;
    int rc = 0;
    rt->path_class = WK_PATH_LOCAL;
    if (nd > 1) {
        rt->flows = malloc((size_t)rings * nd * sizeof *rt->flows);
        if (!rt->flows)
            rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
        for (uint32_t k = 0; rc == 0 && k < rings; k++) {
            for (uint32_t d = 0; rc == 0 && d < nd; d++) {
                uint32_t a = dg[start[d] + k].gpu, b = dg[start[(d + 1) % nd] + k].gpu;
                WkLinkId links[WK_FABRIC_MAX_HOPS];
                int nl = wk_cluster_path(&r->cluster, a, b, links);
                if (r->link_down) { /* re-route around failed links where another way exists */
                    for (uint64_t salt = 1; salt <= 16; salt++) {
                        int bad = 0;
                        for (int x = 0; x < nl && !bad; x++)
                            bad = r->link_down[wk_fabric_physical(links[x])] != 0;
                        if (!bad)
                            break;
                        nl = wk_cluster_path_salted(&r->cluster, a, b, salt, links);
                    }
                }
                WkPathClass pc = wk_cluster_path_class(&r->cluster, a, b);
                if (pc > rt->path_class)
                    rt->path_class = (uint8_t)pc;
                uint32_t id;
                rc = wk_flownet_add(r->net, links, (size_t)nl, r->cluster.fabric.spec.link_bytes_per_s, job, &id, err);
                if (rc == 0)
                    rt->flows[rt->nflows++] = id;
            }
        }
    }
    free(dg);
    free(heads);
    free(start);
    return rc;
}

void wk_runjob_settle(WkRun *r, uint32_t job, WkTime now)
{
    WkJobRt *rt = &r->rt[job];
    if (now <= rt->seg_start) /* still paying its restart cost */
        return;
    WkTime dt = now - rt->seg_start;
    rt->attained_gpu_s += (double)r->wl.jobs[job].gpus * wk_time_to_s(dt);
    rt->prog_s += wk_time_to_s(dt);
    if (!r->wl.jobs[job].model) {
        rt->left_ns = dt < rt->left_ns ? rt->left_ns - dt : 0;
    } else if (rt->iter_s > 0) {
        rt->done += wk_time_to_s(dt) / rt->iter_s;
        if (rt->done > rt->work)
            rt->done = rt->work;
    }
    rt->seg_start = now;
}

double wk_runjob_iter_on(const WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n)
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

/* Re-evaluate a running model job's iteration time with its current
 * bandwidth share and re-post its end. */
static int rerate(WkRun *r, uint32_t job, WkTime now, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkModelSpec *m = &r->wl.models[r->wl.jobs[job].model - 1];
    wk_runjob_settle(r, job, now);
    double bw = link_bw(r);
    for (uint32_t i = 0; i < rt->nflows; i++) {
        double f = wk_flownet_rate(r->net, rt->flows[i]);
        if (f < bw)
            bw = f;
    }
    rt->env.net_bw = bw > 1 ? bw : 1; /* a job cut off by failed links crawls, it does not divide by 0 */
    WkPerfResult res;
    WkError e;
    wk_error_clear(&e);
    if (wk_perf_eval(m, &rt->env, &r->perf, &res, &e) < 0)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "job %u: %s", job, e.msg);
    rt->iter_s = res.iter_s;
    rt->flops_per_iter = res.model_flops_per_iter;
    rt->samples_per_iter = res.samples_per_iter;
    double left_s = (rt->work - rt->done) * rt->iter_s;
    WkTime from = rt->seg_start > now ? rt->seg_start : now;
    r->reflows++;
    if (rt->hung) /* hit by a failure: it ends only after a restart */
        return 0;
    double end_ns = (double)from + ceil(left_s * 1e9);
    WkTime end = end_ns < 9e18 ? (WkTime)end_ns : WK_TIME_NEVER / 2;
    return wk_engine_post_e(r->eng, end, WK_EV_END, job, 0, 0, rt->token, err);
}

/* Solve the flow network and re-rate every running job with a changed flow. */
static int reshare(WkRun *r, uint32_t except, WkTime now, WkError *err)
{
    if (!r->net)
        return 0;
    int rc = wk_flownet_solve(r->net, err);
    if (rc < 0)
        return rc;
    const uint32_t *ids;
    size_t n = wk_flownet_changed(r->net, &ids);
    uint32_t *touched = NULL;
    size_t nt = 0;
    if (n) {
        touched = malloc(n * sizeof *touched);
        if (!touched)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t job = wk_flownet_owner(r->net, ids[i]);
        uint64_t bit = UINT64_C(1) << (job & 63);
        if (job == except || r->rt[job].state != WK_JOB_RUNNING || r->rt[job].hung || (r->dirty_jobs[job >> 6] & bit))
            continue;
        r->dirty_jobs[job >> 6] |= bit;
        touched[nt++] = job;
    }
    for (size_t i = 0; i < nt && rc == 0; i++)
        rc = rerate(r, touched[i], now, err);
    for (size_t i = 0; i < nt; i++)
        r->dirty_jobs[touched[i] >> 6] &= ~(UINT64_C(1) << (touched[i] & 63));
    free(touched);
    return rc;
}

int wk_runjob_start(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    WkTime now = wk_engine_now(r->eng);
    if (!js->model) {
        return wk_engine_post_e(r->eng, rt->seg_start + rt->left_ns, WK_EV_END, job, 0, 0, rt->token, err);
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
    if (rt->work <= 0) /* first start; a resumed job keeps its progress */
        rt->work = js->iterations > 0 ? js->iterations : ceil(js->tokens / res.samples_per_iter);
    rt->iter_s = 0;
    int rc = 0;
    if (r->net && rt->env.multi_domain)
        rc = add_flows(r, job, err);
    else
        rt->path_class = WK_PATH_LOCAL;
    if (rc == 0)
        rc = reshare(r, job, now, err);
    if (rc == 0)
        rc = rerate(r, job, now, err);
    return rc;
}

int wk_runjob_stop(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    if (!r->wl.jobs[job].model)
        return 0;
    WkTime now = wk_engine_now(r->eng);
    wk_runjob_settle(r, job, now);
    for (uint32_t i = 0; i < rt->nflows; i++)
        wk_flownet_remove(r->net, rt->flows[i]);
    free(rt->flows);
    rt->flows = NULL;
    rt->nflows = 0;
    return reshare(r, job, now, err);
}

int wk_runjob_refresh(WkRun *r, uint32_t job, int new_env, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    WkTime now = wk_engine_now(r->eng);
    if (!js->model) {
        wk_runjob_settle(r, job, now);
        WkTime from = rt->seg_start > now ? rt->seg_start : now;
        return wk_engine_post_e(r->eng, from + rt->left_ns, WK_EV_END, job, 0, 0, rt->token, err);
    }
    if (new_env) {
        double bw = rt->env.net_bw;
        placement_env(r, &r->wl.models[js->model - 1], rt->gpus, js->gpus, &rt->env);
        rt->env.net_bw = bw;
    }
    return rerate(r, job, now, err);
}

int wk_runjob_reflow(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(r->eng);
    for (uint32_t i = 0; i < rt->nflows; i++)
        wk_flownet_remove(r->net, rt->flows[i]);
    free(rt->flows);
    rt->flows = NULL;
    rt->nflows = 0;
    int rc = add_flows(r, job, err);
    if (rc == 0)
        rc = reshare(r, UINT32_MAX, now, err);
    if (rc == 0 && !rt->hung)
        rc = rerate(r, job, now, err);
    return rc;
}
