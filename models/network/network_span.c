/* SPDX-License-Identifier: Apache-2.0 */
/* network_span.c — jobs across sites (`span:`): a language-model job may
 * run data-parallel over the WAN, one part per site, when no single site
 * can run it (or, with `when: faster`, when that finishes sooner than the
 * broker's site). Its run time is the performance model's for the spanning
 * job (wk_eval_job_wan: hierarchical all-reduce, the WAN ring exposed as it
 * is). Each part is a fixed-duration job of its site; the network keeps
 * them a gang: a part that starts holds its GPUs without progress until
 * every part runs, a part that stops (failure, preemption) holds the others
 * and rolls them back to the least advanced one, and a gang not all running
 * after span.hold gives its GPUs back and queues again. docs/brokers.md
 * "Jobs across sites" has the model and its limits. */
#include "models/network/network_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- `span:` ---- */

int wk_net_span_parse(WkNet *n, const WkNode *root, WkError *err)
{
    static const char *const keys[] = {"sites", "when", "sync", "hold", NULL};
    n->span_max = 1;
    n->span_sync = 60 * WK_NS_PER_S; /* a stated choice: a minute between checks of a gang's parts */
    n->span_hold = 30 * WK_NS_PER_MIN; /* a stated choice: a gang may hold its GPUs half an hour waiting */
    const WkNode *sp = wk_node_get(root, "span");
    if (!sp || sp->type == WK_NODE_NULL)
        return 0;
    if (sp->type != WK_NODE_MAP)
        return wk_node_error(sp, WK_E_INVAL, err, "expected a map with sites, when, sync, hold");
    int64_t k = 2;
    const char *when = "too-big";
    int rc;
    if ((rc = wk_node_expect_keys(sp, keys, err)) < 0 ||
        (rc = wk_node_int(sp, "sites", 0, 1, WK_NET_SPAN_MAX, &k, err)) < 0 ||
        (rc = wk_node_str(sp, "when", 0, &when, err)) < 0 ||
        (rc = wk_node_duration(sp, "sync", 0, WK_NS_PER_S, WK_NS_PER_H * 24, &n->span_sync, err)) < 0 ||
        (rc = wk_node_duration(sp, "hold", 0, 0, WK_NS_PER_H * 24 * 30, &n->span_hold, err)) < 0)
        return rc;
    if (strcmp(when, "too-big") == 0)
        n->span_faster = 0;
    else if (strcmp(when, "faster") == 0)
        n->span_faster = 1;
    else
        return wk_node_error(wk_node_get(sp, "when"), WK_E_INVAL, err,
                             "'%s', expected too-big (only jobs no site can run) or faster", when);
    if ((uint32_t)k > n->n)
        return wk_node_error(wk_node_get(sp, "sites"), WK_E_INVAL, err,
                             "%lld, but the network has %u sites", (long long)k, n->n);
    n->span_max = (uint32_t)k;
    if (n->span_max < 2)
        return 0;
    size_t nj = n->njobs ? n->njobs : 1;
    if (!(n->gang_of = malloc(nj * sizeof *n->gang_of)))
        return wk_error_nomem(err, "span");
    for (size_t j = 0; j < n->njobs; j++)
        n->gang_of[j] = -1;
    for (uint32_t s = 0; s < n->n; s++) {
        if (!(n->s[s].part = calloc(nj, 1)))
            return wk_error_nomem(err, "span");
        wk_run_site_set_parts(n->s[s].run, n->s[s].part);
    }
    return 0;
}

void wk_net_span_free(WkNet *n)
{
    free(n->gang);
    free(n->gang_of);
    for (uint32_t s = 0; n->s && s < n->n; s++)
        free(n->s[s].part);
}

/* ---- choosing the sites ---- */

typedef struct {
    uint32_t s;
    double start; /* s from now: the later of its planned start and its data */
} Cand;

static int cmp_cand(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

typedef struct {
    uint32_t k, part;
    uint32_t site[WK_NET_SPAN_MAX];
    double start, run_s, iters;
} Plan;

static int cpu_site(const WkRun *r)
{
    const WkCluster *c = wk_run_cluster(r);
    for (uint32_t g = 0; g < c->ngroups; g++)
        if (c->groups[g].sku->cpu)
            return 1;
    return 0;
}

/* The iterations job j trains. */
static double job_iters(const WkJobSpec *js, const WkModelSpec *m)
{
    if (js->iterations > 0)
        return js->iterations;
    double per = (double)m->global_batch * m->seq_len;
    return per > 0 ? ceil(js->tokens / per) : 0;
}

/* The best way to run job j over k sites now: the k linked sites whose
 * parts could start soonest, its run time the slowest part's; p->start +
 * p->run_s is INFINITY when there is none. */
static void plan_k(WkNet *n, uint32_t j, uint32_t k, Plan *p)
{
    const WkWorkload *wl = wk_run_workload(n->s[0].run);
    const WkJobSpec *js = &wl->jobs[j];
    const WkModelSpec *m = &wl->models[js->model - 1];
    p->k = k;
    p->part = js->gpus / k;
    p->start = p->run_s = INFINITY;
    uint32_t home = n->home[j];
    double bytes = n->bytes[j] / k;
    Cand c[WK_NET_MAX_SITES] = {{0, 0}};
    uint32_t nc = 0;
    for (uint32_t s = 0; s < n->n; s++) {
        const NetSite *st = &n->s[s];
        if (!st->accepts_ai || p->part > st->gpus || cpu_site(st->run))
            continue;
        if (home != s && bytes > 0 && !wk_net_link(n, home, s)->set)
            continue;
        double w = wk_net_plan_wait(n, s, p->part), x = wk_net_transfer_s(n, home, s, bytes);
        if (isfinite(w) && isfinite(x))
            c[nc++] = (Cand){s, w > x ? w : x};
    }
    qsort(c, nc, sizeof *c, cmp_cand);
    uint32_t got = 0;
    double start = 0;
    for (uint32_t i = 0; i < nc && got < k; i++) {
        int linked = 1;
        for (uint32_t q = 0; q < got && linked; q++)
            linked = wk_net_link(n, c[i].s, p->site[q])->set;
        if (!linked)
            continue;
        p->site[got++] = c[i].s;
        start = c[i].start > start ? c[i].start : start;
    }
    if (got < k)
        return;
    /* the WAN ring: the share it would get now beside the rings already
     * running (the slowest link's bandwidth on an idle WAN), and its
     * longest latency */
    double bw = wk_net_wan_ring_rate(n, p->site, k, n->now), lat = 0;
    for (uint32_t q = 0; q < k; q++) {
        const WkNetLink *l = wk_net_link(n, p->site[q], p->site[(q + 1) % k]);
        lat = l->latency_s > lat ? l->latency_s : lat;
    }
    WkPerfWan wan = {.sites = k, .bw_bits_per_s = bw * 8, .lat_s = lat};
    double iter = 0;
    for (uint32_t q = 0; q < k; q++) {
        double it = 0;
        if (wk_run_site_part_iter_s(n->s[p->site[q]].run, m, p->part, &wan, &it) < 0)
            return; /* the parts do not split or fit: not this k */
        iter = it > iter ? it : iter;
    }
    p->iters = job_iters(js, m);
    p->start = start;
    p->run_s = p->iters * iter;
    /* a gang that would end past the limit of simulated time (a thin WAN
     * ring) is no plan: its times would not fit a WkTime */
    if (!(wk_time_to_s(n->now) + p->start + p->run_s < wk_time_to_s(WK_RUN_MAX_TIME)))
        p->start = p->run_s = INFINITY;
}

/* Make job j's copy at site s a part: a fixed-duration job of `part` GPUs
 * that runs run_s, held until its gang runs. */
static void make_part(WkNet *n, uint32_t s, uint32_t j, uint32_t part, double run_s)
{
    double ns = ceil(run_s * 1e9); /* plan_k keeps a gang's end within the limit of simulated time */
    wk_run_site_make_part(n->s[s].run, j, part, ns < (double)WK_RUN_MAX_TIME ? (WkTime)ns : WK_RUN_MAX_TIME);
    n->s[s].part[j] = WK_NET_PART | WK_NET_HELD;
}

int wk_net_span_consider(WkNet *n, uint32_t j, int32_t chosen, int *spanned, WkError *err)
{
    *spanned = 0;
    if (n->span_max < 2 || (chosen >= 0 && !n->span_faster))
        return 0;
    const WkWorkload *wl = wk_run_workload(n->s[0].run);
    const WkJobSpec *js = &wl->jobs[j];
    if (js->kind == WK_JOB_HPC || !js->model || wl->models[js->model - 1].kind != WK_MODEL_LLM)
        return 0;
    n->span_considered++;
    double single = INFINITY;
    if (chosen >= 0) {
        uint32_t s = (uint32_t)chosen;
        double w = wk_net_plan_wait(n, s, wk_run_workload(n->s[s].run)->jobs[j].gpus);
        double x = wk_net_transfer_s(n, n->home[j], s, n->bytes[j]);
        single = (w > x ? w : x) + wk_run_job_estimate_s(n->s[s].run, j);
    }
    Plan best = {.start = INFINITY, .run_s = INFINITY};
    for (uint32_t k = 2; k <= n->span_max; k++) {
        if (js->gpus % k)
            continue;
        Plan p;
        plan_k(n, j, k, &p);
        if (p.start + p.run_s < best.start + best.run_s)
            best = p;
    }
    if (!(best.start + best.run_s < single))
        return 0;
    /* commit: the gang, each part's data, its copy at each site (site 0's
     * copy, the network's view, may become a part: read the model first) */
    const WkModelSpec *m = &wl->models[js->model - 1];
    if (n->ngang == n->capgang) {
        size_t cap = n->capgang ? 2 * n->capgang : 16;
        WkNetGang *g = realloc(n->gang, cap * sizeof *g);
        if (!g)
            return wk_error_nomem(err, "span");
        n->gang = g;
        n->capgang = cap;
    }
    WkNetGang *g = &n->gang[n->ngang];
    *g = (WkNetGang){.job = j, .k = best.k, .part = best.part, .run_s = best.run_s, .first_go = -1,
                     .hold_since = -1, .end = -1};
    memcpy(g->site, best.site, sizeof g->site);
    n->gang_of[j] = (int32_t)n->ngang++;
    n->gangs_open++;
    WkTime arrive = 0;
    int rc = 0;
    for (uint32_t q = 0; q < best.k && rc == 0; q++) {
        uint32_t s = best.site[q];
        WkTime d = wk_net_send_data(n, j, s, n->bytes[j] / best.k);
        arrive = d > arrive ? d : arrive;
        make_part(n, s, j, best.part, best.run_s);
        rc = wk_net_site_take(n, s, j, err);
    }
    /* the gradients' ring: every site sends its neighbour this much per iteration */
    g->model = m;
    g->bytes_iter = wk_perf_wan_bytes(m, best.k);
    g->iter_s = best.iters > 0 ? best.run_s / best.iters : 0; /* at the ring's full bandwidth */
    double per = g->bytes_iter * best.iters;
    for (uint32_t q = 0; q < best.k; q++) {
        const WkNetLink *l = wk_net_link(n, best.site[q], best.site[(q + 1) % best.k]);
        g->wan_bytes += per;
        n->wan_cost += per / 1e12 * l->cost_per_tb;
    }
    n->span_wan_bytes += g->wan_bytes;
    /* every part reaches its site at the planned common start (an advance
     * reservation, as Slurm's --begin), or when the last part's data do */
    WkTime planned = wk_time_from_s(best.start);
    n->delay[j] = planned > arrive ? planned : arrive;
    n->assign[j] = (int32_t)best.site[0];
    *spanned = 1;
    return rc;
}

/* ---- keeping the gangs ---- */

static int part_runs(const WkRunSiteJob *v) { return v->state == WK_JOB_RUNNING && !v->stalled; }

static int sync_gang(WkNet *n, WkNetGang *g, WkTime t, WkError *err)
{
    uint32_t j = g->job, running = 0, completed = 0, rejected = 0;
    WkTime go = 0, end = 0, left = 0;
    for (uint32_t q = 0; q < g->k; q++) {
        WkRun *sr = n->s[g->site[q]].run;
        wk_run_site_clock(sr, t);
        WkRunSiteJob v = wk_run_site_job(sr, j);
        if (part_runs(&v)) {
            running++;
            go = v.seg_start > go ? v.seg_start : go;
        } else if (v.state == WK_JOB_COMPLETED) {
            completed++;
            end = v.end > end ? v.end : end;
        } else if (v.state == WK_JOB_REJECTED) {
            rejected++;
        }
    }
    int rc = 0;
    if (completed == g->k) {
        g->done = 1;
        g->end = end;
        n->gangs_open--;
        return 0;
    }
    if (rejected) { /* a site refused its part for good: the job is given up, the other parts end now
                     * (a queued one as soon as it starts: nothing is left to run) */
        for (uint32_t q = 0; q < g->k && rc == 0; q++) {
            WkRun *sr = n->s[g->site[q]].run;
            int st = wk_run_site_job(sr, j).state;
            if (st != WK_JOB_COMPLETED && st != WK_JOB_REJECTED)
                rc = wk_run_site_gate(sr, j, 0, 0, t, err);
        }
        g->done = g->given_up = 1;
        n->gangs_open--;
        return rc;
    }
    if (completed) { /* some parts ended, the others run on to their own end */
        for (uint32_t q = 0; q < g->k && rc == 0; q++) {
            WkRun *sr = n->s[g->site[q]].run;
            if (wk_run_site_job(sr, j).state == WK_JOB_RUNNING && (n->s[g->site[q]].part[j] & WK_NET_HELD))
                rc = wk_run_site_gate(sr, j, 0, -1, t, err);
        }
        return rc;
    }
    if (g->live) {
        if (running == g->k)
            return 0;
        /* a part stopped: every part holds, rolled back to the least advanced one */
        for (uint32_t q = 0; q < g->k && rc == 0; q++) {
            WkRun *sr = n->s[g->site[q]].run;
            rc = wk_run_site_gate(sr, j, 1, -1, t, err);
            WkTime l = wk_run_site_job(sr, j).left_ns;
            left = l > left ? l : left;
        }
        for (uint32_t q = 0; q < g->k && rc == 0; q++)
            rc = wk_run_site_gate(n->s[g->site[q]].run, j, 1, left, t, err);
        g->live = 0;
        g->hold_since = running ? t : -1;
        return rc;
    }
    if (running == g->k && go <= t) {
        /* every part runs since `go`: let them go from then (they held, so
         * nothing was done before), each as far along as the least advanced */
        for (uint32_t q = 0; q < g->k; q++) {
            WkRunSiteJob v = wk_run_site_job(n->s[g->site[q]].run, j);
            left = v.left_ns > left ? v.left_ns : left;
            g->hold_gpu_s += (double)g->part * wk_time_to_s(go - v.seg_start);
        }
        WkTime credit = t - go;
        left = left > credit ? left - credit : 0;
        for (uint32_t q = 0; q < g->k && rc == 0; q++)
            rc = wk_run_site_gate(n->s[g->site[q]].run, j, 0, left, t, err);
        g->live = 1;
        g->hold_since = -1;
        if (g->first_go < 0)
            g->first_go = go;
        return rc;
    }
    if (!running)
        return 0;
    if (g->hold_since < 0)
        g->hold_since = t;
    if (n->span_hold > 0 && t - g->hold_since >= n->span_hold) {
        /* held too long (the other sites are busy): give the GPUs back and queue again */
        for (uint32_t q = 0; q < g->k && rc == 0; q++) {
            WkRun *sr = n->s[g->site[q]].run;
            WkRunSiteJob v = wk_run_site_job(sr, j);
            if (!part_runs(&v))
                continue;
            g->hold_gpu_s += (double)g->part * wk_time_to_s(t - v.seg_start);
            rc = wk_run_site_evict(sr, j, t, err); /* its GPUs back: to its site's queue again */
        }
        n->span_retries++;
        g->hold_since = -1;
    }
    return rc;
}

int wk_net_span_sync(WkNet *n, WkTime t, WkError *err)
{
    int rc = 0;
    n->span_running = 0;
    for (size_t i = 0; i < n->ngang && rc == 0; i++)
        if (!n->gang[i].done)
            rc = sync_gang(n, &n->gang[i], t, err);
    if (rc == 0) /* the WAN's shares after this sync's changes */
        rc = wk_net_wan_update(n, t, err);
    for (size_t i = 0; i < n->ngang; i++) { /* parts running now, after this sync's changes */
        const WkNetGang *g = &n->gang[i];
        for (uint32_t q = 0; q < g->k && !g->done; q++)
            n->span_running += wk_run_site_job(n->s[g->site[q]].run, g->job).state == WK_JOB_RUNNING;
    }
    n->span_idle = n->span_running ? 0 : n->span_idle + 1;
    return rc;
}

WkTime wk_net_span_step(const WkNet *n)
{
    if (n->span_running || n->span_idle == 0)
        return n->span_sync;
    WkTime cap = 24 * WK_NS_PER_H;
    for (size_t i = 0; i < n->ngang; i++)
        if (!n->gang[i].done) {
            WkTime half = (WkTime)(n->gang[i].run_s * 0.5e9);
            cap = half < cap ? half : cap;
        }
    if (cap < n->span_sync)
        return n->span_sync;
    WkTime step = n->span_sync;
    for (uint32_t i = 0; i < n->span_idle && step < cap; i++)
        step *= 2;
    return step < cap ? step : cap;
}

void wk_net_job_times(const WkNet *n, uint32_t j, WkTime *start, WkTime *end, uint8_t *state)
{
    if (n->gang_of && n->gang_of[j] >= 0) {
        const WkNetGang *g = &n->gang[n->gang_of[j]];
        *start = g->first_go;
        *end = g->done && !g->given_up ? g->end : -1;
        *state = g->done ? (g->given_up ? WK_JOB_REJECTED : WK_JOB_COMPLETED)
                         : (g->first_go >= 0 ? WK_JOB_RUNNING : WK_JOB_QUEUED);
        return;
    }
    WkRunSiteJob v = wk_run_site_job(n->s[n->assign[j] < 0 ? 0 : n->assign[j]].run, j);
    *start = v.start;
    *end = v.end;
    *state = (uint8_t)v.state;
}
