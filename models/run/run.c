/* SPDX-License-Identifier: Apache-2.0 */
/* run.c — the run driver: scenario → cluster, workload, scheduler instance
 * and failure processes; the events of a job's life (submit, end, tick,
 * sample) on the engine. A job's allocation lifecycle is in lifecycle.c, the
 * scheduler host in sched_host.c, progress in progress.c, failures in
 * models/recovery, power in models/energy (reached through the slots of
 * subsys.c), reporting in run_report.c (docs/architecture.md). */
#include "models/run/run_impl.h"
#include "sim/core/dl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EV_SUBMIT = WK_EV_SUBMIT, EV_END = WK_EV_END, EV_SAMPLE = WK_EV_SAMPLE };

static int finish_if_done(WkRun *r, WkTime now)
{
    if (r->completed + r->rejected + r->elsewhere < r->wl.n)
        return 0;
    r->finished = 1;
    r->end_t = now;
    wk_engine_cancel(r->eng, r->sample_tok);
    wk_engine_cancel(r->eng, r->tick_tok);
    wk_engine_stop(r->eng);
    return wk_run_sample(r, now);
}

/* ---- event handlers ---- */

/* The job (counted in r->queued) joins the queue and the policy hears of it. */
static int to_policy(WkRun *r, uint32_t job, WkError *err)
{
    r->rt[job].state = WK_JOB_QUEUED;
    int rc = wk_lifecycle_join(r, job, err); /* a GPU share with room on a shared GPU starts there */
    if (rc != 0)
        return rc < 0 ? rc : 0;
    rc = wk_sched_host_submit(&r->si, job, err);
    for (size_t i = 0; r->subsys[i] && rc == 0; i++) /* e.g. outsourced GPUs handed back for it */
        if (r->subsys[i]->queued)
            rc = r->subsys[i]->queued(r, r->sub_st[i], job, err);
    return rc;
}

/* Jobs held for their user's quota that fit now go to the policy. */
static int quota_release(WkRun *r, WkError *err)
{
    int rc = 0;
    for (uint32_t job; rc == 0 && (job = wk_quota_next(r)) != UINT32_MAX;)
        rc = to_policy(r, job, err);
    return rc;
}

/* The job waits: for its user's quota (workload.quotas), or in the policy's queue. */
static int enqueue(WkRun *r, uint32_t job, WkTime now, WkError *err)
{
    r->queued++;
    int rc = 0;
    if (!wk_quota_hold(r, job) && (rc = to_policy(r, job, err)) == 0)
        rc = quota_release(r, err); /* a reject may have freed its user's quota */
    if (rc < 0)
        return rc;
    wk_run_resample(r, now);
    return finish_if_done(r, now);
}

static int on_submit(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    uint32_t job = r->order[ev->target];
    int rc = 0;
    if (ev->target + 1 < r->wl.n) {
        uint32_t next = r->order[ev->target + 1];
        if ((rc = wk_engine_post_e(e, r->wl.jobs[next].submit, EV_SUBMIT, ev->target + 1, 0, 0, 0, err)) < 0)
            return rc;
    }
    WkTime now = wk_engine_now(e);
    if (r->is_site) {
        if (r->site.assign[job] != (int32_t)r->site.index && !(r->site.part && r->site.part[job])) {
            r->elsewhere++;
            return finish_if_done(r, now);
        }
        if (r->site.delay[job] > 0)
            return wk_engine_post_e(e, now + r->site.delay[job], WK_EV_ARRIVE, job, 0, 0, 0, err);
    }
    return enqueue(r, job, now, err);
}

/* A site run: the job's dataset has arrived over the WAN. */
static int on_arrive(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    return enqueue(ctx, ev->target, wk_engine_now(e), err);
}

static int on_end(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    WkJobRt *rt = &r->rt[ev->target];
    WkTime now = wk_engine_now(e);
    wk_progress_settle(r, ev->target, now);
    wk_lifecycle_stopping(r, ev->target, WK_STOP_END);
    rt->state = WK_JOB_COMPLETED;
    rt->end = now;
    int rc = wk_progress_stop(r, ev->target, err);
    if (rc < 0)
        return rc;
    if ((rc = wk_lifecycle_release(r, ev->target, now, err)) < 0)
        return rc;
    r->completed++;
    wk_quota_done(r, ev->target);
    if ((rc = wk_lifecycle_freed(r, err)) < 0) /* e.g. shrunk elastic jobs grow back */
        return rc;
    rc = wk_sched_host_release(&r->si, err);
    if (rc == 0)
        rc = quota_release(r, err);
    if (rc < 0)
        return rc;
    wk_run_resample(r, now);
    return finish_if_done(r, now);
}

static int on_tick(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    (void)ev;
    int rc = wk_sched_host_tick(&r->si, err);
    if (rc == 0)
        rc = quota_release(r, err); /* after a reject in the tick */
    if (rc < 0)
        return rc;
    WkTime now = wk_engine_now(e);
    wk_run_resample(r, now);
    if ((rc = wk_engine_post_e(e, now + r->tick_ns, WK_EV_TICK, 0, 0, 0, r->tick_tok, err)) < 0)
        return rc;
    return 0;
}

static int on_sample(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    (void)ev;
    WkTime now = wk_engine_now(e);
    if (r->acct.nsamples >= WK_RUN_MAX_SAMPLES)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                            "sim.sample_interval: more than %d rows of timeseries/cluster, the limit "
                            "(docs/limits.md): use a longer sample_interval or a sim.end",
                            WK_RUN_MAX_SAMPLES);
    if (wk_run_sample(r, now) < 0)
        return wk_error_nomem(err, "timeseries/cluster");
    return wk_engine_post_e(e, now + r->sample_interval, EV_SAMPLE, 0, 0, 0, r->sample_tok, err);
}

/* ---- prepare / execute ---- */

typedef struct {
    WkTime t;
    uint32_t id;
} SubmitKey;

static int cmp_submit(const void *a, const void *b)
{
    const SubmitKey *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int parse_sched(WkRun *r, const WkNode *root, const WkRunOpts *o, WkError *err)
{
    const WkNode *sn = wk_node_get(root, "scheduler");
    const char *name = "fifo";
    const WkNode *where = sn;
    if (sn && sn->type == WK_NODE_SCALAR) {
        name = sn->str;
    } else if (sn && sn->type == WK_NODE_MAP) {
        static const char *const places[] = {"exclusive", "first-fit", "pack", "spread", "round-robin", NULL};
        int place = 0;
        int rc = wk_node_str(sn, "name", 1, &name, err);
        if (rc < 0 || (rc = wk_node_enum(sn, "placement", 0, places, &place, err)) < 0 ||
            (rc = wk_node_duration(sn, "preemption_cost", 0, 0, 365 * WK_NS_PER_DAY, &r->preempt_cost, err)) < 0 ||
            (rc = wk_node_duration(sn, "tick", 0, WK_NS_PER_MS, 365 * WK_NS_PER_DAY, &r->tick_ns, err)) < 0)
            return rc;
        r->placement = (WkPlacement)place;
        r->sched_params = sn;
        where = wk_node_get(sn, "name");
    } else if (sn && sn->type != WK_NODE_NULL) {
        return wk_node_error(sn, WK_E_INVAL, err, "expected a scheduler name or a map with 'name'");
    }
    if (o && o->scheduler) {
        name = o->scheduler;
        where = NULL;
    }
    return wk_sched_host_lookup(wk_sched_plugins_table(&r->plugins), name, where, &r->sched, err);
}

/* Load the policies of opts->plugins (relative to the working directory)
 * and of the scenario's `plugins:` list (relative to the scenario's
 * directory, dir) into r->plugins. */
static int load_plugins(WkRun *r, const WkNode *root, const char *dir, const WkRunOpts *o, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; o && rc == 0 && i < o->nplugins; i++)
        rc = wk_sched_plugins_add(&r->plugins, o->plugins[i], NULL, err);
    return rc < 0 ? rc : wk_sched_plugins_add_list(&r->plugins, wk_node_get(root, "plugins"), dir, err);
}

/* The price series must cover [0, end) (end WK_TIME_NEVER: not known yet):
 * an error at the `prices` key otherwise. */
static int tariff_covers(const WkRun *r, WkTime end, WkError *err)
{
    const WkFacilitySpec *f = &r->fac;
    if (!f->ntariff || f->tariff_repeat || end == WK_TIME_NEVER || end <= f->tariff_end)
        return 0;
    return wk_node_error(f->prices, WK_E_RANGE, err,
                         "%s: the price series covers %.6g h but the run lasts %.6g h: extend it or set prices_repeat",
                         f->prices && f->prices->str ? f->prices->str : "the price file",
                         wk_time_to_s(f->tariff_end) / 3600, wk_time_to_s(end) / 3600);
}

/* The policy's init failed: when it is a plugin's, say which file it came
 * from (an error positioned in the scenario stays there). */
static int init_failed(const WkRun *r, int rc, WkError *err)
{
    for (size_t i = 0; i < r->plugins.n; i++)
        if (r->plugins.items[i].ops == r->sched) {
            char what[128];
            snprintf(what, sizeof what, "policy '%s'", r->sched->name);
            return wk_dl_init_failed(err, rc, r->plugins.items[i].path, "scheduler plugin", what);
        }
    return rc;
}

int wk_run_head_parse(const WkDoc *doc, const WkRunOpts *o, WkRunHead *h, WkError *err)
{
    static const char *const simk[] = {"end", "sample_interval", NULL};
    const WkNode *root = doc->root;
    if (!root)
        return wk_error_set(err, WK_E_INVAL, doc->file, 0, 0, "empty scenario: expected a mapping with cluster and workload");
    int rc = wk_section_check(root, WK_DOC_SCENARIO, err);
    if (rc < 0)
        return rc;
    *h = (WkRunHead){.name = "unnamed", .horizon = WK_TIME_NEVER, .sample_interval = WK_NS_PER_H};
    int64_t seed = 1;
    const char *desc = NULL;
    const WkNode *simn = wk_node_get(root, "sim");
    if ((rc = wk_node_str(root, "name", 0, &h->name, err)) < 0 ||
        (rc = wk_node_int(root, "seed", 0, 0, INT64_MAX, &seed, err)) < 0 ||
        (rc = wk_node_str(root, "description", 0, &desc, err)) < 0)
        return rc;
    if (simn && simn->type != WK_NODE_NULL) {
        if ((rc = wk_node_expect_keys(simn, simk, err)) < 0 ||
            (rc = wk_node_duration(simn, "end", 0, 1, WK_RUN_MAX_TIME, &h->horizon, err)) < 0 ||
            (rc = wk_node_duration(simn, "sample_interval", 0, WK_NS_PER_MS, WK_TIME_NEVER / 2,
                                   &h->sample_interval, err)) < 0)
            return rc;
    }
    h->seed = (o && o->has_seed) ? o->seed : (uint64_t)seed;
    return 0;
}

static int prepare(WkRun **out, const WkDoc *doc, const WkRunOpts *o, const WkRunSite *site, WkError *err)
{
    WkRunHead h;
    int rc = wk_run_head_parse(doc, o, &h, err);
    if (rc < 0)
        return rc;
    const WkNode *root = doc->root;
    WkRun *r = calloc(1, sizeof *r);
    if (!r)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
    r->doc = doc;
    r->name = h.name;
    r->seed = h.seed;
    r->horizon = h.horizon;
    r->sample_interval = h.sample_interval;
    r->req.requeue = wk_lifecycle_requeue;
    r->req.join = wk_lifecycle_join;
    r->preempt_cost = 10 * WK_NS_PER_MIN; /* restart overhead 5–20 min (Meta RSC, REFERENCES.md) */
    if (o)
        r->opts = *o;
    if (site) {
        r->is_site = 1;
        r->site = *site;
        r->site.ok = NULL;
    } else if (wk_node_get(root, "sites")) {
        rc = wk_node_error(wk_node_get(root, "sites"), WK_E_INVAL, err,
                           "'sites' makes the scenario a network of sites: prepare it with wk_sim_prepare "
                           "(models/network/sim.h), not wk_run_prepare");
        goto fail;
    } else if (wk_node_get(root, "span")) {
        rc = wk_node_error(wk_node_get(root, "span"), WK_E_INVAL, err,
                           "'span' spreads a job over the sites of a network: it needs 'sites'");
        goto fail;
    }

    if ((rc = wk_cluster_parse(wk_node_get(root, "cluster"), &r->cluster, err)) < 0 ||
        (rc = wk_facility_parse(wk_node_get(root, "facility"), doc->dir ? doc->dir : ".", &r->fac, err)) < 0 ||
        (rc = tariff_covers(r, r->horizon, err)) < 0 || (rc = wk_run_attach(r, wk_run_subsys, root, err)) < 0)
        goto fail;
    r->acct.fac = &r->fac;
    const WkNode *lib = wk_node_get(root, "models");
    if (lib && lib->type != WK_NODE_MAP && lib->type != WK_NODE_NULL) {
        rc = wk_node_error(lib, WK_E_INVAL, err, "expected a map of model name: spec");
        goto fail;
    }
    if ((rc = wk_perf_parse(wk_node_get(root, "perf"), &r->perf, err)) < 0)
        goto fail;
    WkWorkloadCtx wctx = {.base_dir = doc->dir, .seed = r->seed, .models_lib = lib};
    if ((rc = wk_workload_load(wk_node_get(root, "workload"), &wctx, &r->wl, err)) < 0)
        goto fail;
    if ((rc = wk_progress_check(r, err)) < 0 || (rc = wk_quota_prepare(r, err)) < 0)
        goto fail;
    if (r->wl.n > UINT32_MAX - 1) {
        rc = wk_error_set(err, WK_E_RANGE, doc->file, 0, 0, "workload: more than 2^32-2 jobs");
        goto fail;
    }
    if ((rc = load_plugins(r, root, doc->dir ? doc->dir : ".", o, err)) < 0 ||
        (rc = parse_sched(r, root, o, err)) < 0)
        goto fail;
    if ((rc = wk_sched_host_open(&r->si, r->sched, r->sched_params, &wk_run_sched_host, r, err)) < 0) {
        rc = init_failed(r, rc, err);
        goto fail;
    }
    *out = r;
    return 0;
fail:
    wk_run_free(r);
    return rc;
}

int wk_run_prepare(WkRun **out, const WkDoc *doc, const WkRunOpts *o, WkError *err)
{
    return prepare(out, doc, o, NULL, err);
}

int wk_run_prepare_site(WkRun **out, const WkDoc *doc, const WkRunOpts *o, const WkRunSite *site, WkError *err)
{
    return prepare(out, doc, o, site, err);
}

/* The run reached WK_RUN_MAX_TIME without sim.end and with jobs unfinished:
 * the range error of docs/limits.md, naming the first job still running (a
 * job needing more than the limit), else the first still waiting. */
static int limit_error(const WkRun *r, WkError *err)
{
    size_t n = r->wl.n, pick = n;
    for (size_t i = 0; i < n && pick == n; i++)
        if (r->rt[i].state == WK_JOB_RUNNING)
            pick = i;
    for (size_t i = 0; i < n && pick == n; i++)
        if (r->rt[i].state == WK_JOB_QUEUED)
            pick = i;
    double years = wk_time_to_s(WK_RUN_MAX_TIME) / (365.25 * 86400);
    if (pick == n)
        return wk_error_set(err, WK_E_RANGE, r->doc->file, 0, 0,
                            "the run reached %.0f years of simulated time, the limit (docs/limits.md), with jobs "
                            "unfinished: set sim.end to stop it earlier", years);
    const WkJobSpec *js = &r->wl.jobs[pick];
    const char *model = js->model ? r->wl.models[js->model - 1].name : NULL;
    return wk_error_set(err, WK_E_RANGE, r->doc->file, 0, 0,
                        "the run reached %.0f years of simulated time, the limit (docs/limits.md), with jobs "
                        "unfinished: job %zu (%s%s, %u GPUs) %s; set sim.end to stop it earlier",
                        years, pick, model ? "model " : "no model", model ? model : "", (unsigned)js->gpus,
                        r->rt[pick].state == WK_JOB_RUNNING ? "was still running (its end lies past the limit)"
                                                            : "was still waiting");
}

/* Everything before the first event: job order, pool, power, engine and
 * handlers, the first events. */
static int run_begin(WkRun *r, WkError *err)
{
    if (r->executed)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "run: executed twice");
    r->executed = 1;
    size_t n = r->wl.n;
    r->rt = calloc(n ? n : 1, sizeof *r->rt);
    r->order = malloc((n ? n : 1) * sizeof *r->order);
    SubmitKey *keys = malloc((n ? n : 1) * sizeof *keys);
    int rc = 0;
    if (!r->rt || !r->order || !keys) {
        free(keys);
        return wk_error_nomem(err, "run");
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = (SubmitKey){r->wl.jobs[i].submit, (uint32_t)i};
    qsort(keys, n, sizeof *keys, cmp_submit);
    for (size_t i = 0; i < n; i++)
        r->order[i] = keys[i].id;
    free(keys);
    if ((rc = wk_pool_init(&r->pool, &r->cluster, err)) < 0 ||
        (r->wl.gpu_sharing && (rc = wk_pool_share_init(&r->pool, n, err)) < 0))
        return rc;
    for (size_t i = 0; i < n; i++)
        r->rt[i] = (WkJobRt){.start = -1, .end = -1, .state = WK_JOB_PENDING, .path_class = WK_JOB_NO_PATH,
                             .left_ns = r->wl.jobs[i].duration, .gpus_req = r->wl.jobs[i].gpus, .speed = 1.0};
    r->acct.gpu_power_w = 0;
    for (uint32_t g = 0; g < r->cluster.gpus; g++)
        r->acct.gpu_power_w += wk_account_gpu_draw(&r->cluster, g, 0);
    r->acct.net_power_w = wk_cluster_network_w(&r->cluster);

    /* a site of a network draws its own failure streams (salt 0 elsewhere) */
    uint64_t eseed = r->seed ^ (r->site.salt * 0x9E3779B97F4A7C15ull);
    if ((rc = wk_engine_new(&r->eng, eseed, err)) < 0 || (rc = wk_share_init(&r->share, &r->cluster, r->wl.n, err)) < 0)
        return rc;
    if (r->opts.progress)
        wk_engine_set_progress(r->eng, r->opts.progress, r->opts.progress_user);
    wk_engine_set_interrupt(r->eng, r->opts.interrupt);
    if ((rc = wk_engine_on(r->eng, EV_SUBMIT, on_submit, r, err)) < 0 ||
        (rc = wk_engine_on(r->eng, EV_END, on_end, r, err)) < 0 ||
        (rc = wk_engine_on(r->eng, EV_SAMPLE, on_sample, r, err)) < 0 ||
        (rc = wk_engine_on(r->eng, WK_EV_TICK, on_tick, r, err)) < 0 ||
        (rc = wk_engine_on(r->eng, WK_EV_ARRIVE, on_arrive, r, err)) < 0 ||
        (rc = wk_engine_token_new(r->eng, &r->sample_tok, err)) < 0 ||
        (rc = wk_engine_token_new(r->eng, &r->tick_tok, err)) < 0)
        return rc;
    if (r->tick_ns > 0 && (rc = wk_engine_post_e(r->eng, r->tick_ns, WK_EV_TICK, 0, 0, 0, r->tick_tok, err)) < 0)
        return rc;
    for (size_t i = 0; r->subsys[i]; i++) /* their handlers and first events */
        if (r->subsys[i]->start && (rc = r->subsys[i]->start(r, r->sub_st[i], err)) < 0)
            return rc;
    if ((rc = wk_engine_post_e(r->eng, 0, EV_SAMPLE, 0, 0, 0, r->sample_tok, err)) < 0 ||
        (n && (rc = wk_engine_post_e(r->eng, r->wl.jobs[r->order[0]].submit, EV_SUBMIT, 0, 0, 0, 0, err)) < 0))
        return rc;
    if (n == 0) {
        r->finished = 1;
        r->end_t = 0;
        return wk_run_sample(r, 0) < 0 ? wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory") : 0;
    }
    return 0;
}

/* After the last event: the books closed at r->end_t. */
static int run_close(WkRun *r, WkError *err)
{
    wk_run_account_to(r, r->end_t);
    for (size_t i = 0; r->subsys[i]; i++)
        if (r->subsys[i]->finish)
            r->subsys[i]->finish(r, r->sub_st[i], r->end_t);
    int rc = tariff_covers(r, r->end_t, err);
    if (rc < 0)
        return rc;
    return wk_lifecycle_record_open(r, err);
}

int wk_run_execute(WkRun *r, WkError *err)
{
    int rc = run_begin(r, err);
    if (rc < 0 || r->wl.n == 0)
        return rc;
    /* Without sim.end the run stops at WK_RUN_MAX_TIME (2^62 ns, 146 years):
     * every time then stays below it plus a duration, which fits in 64 bits. */
    WkTime until = r->horizon != WK_TIME_NEVER ? r->horizon : WK_RUN_MAX_TIME;
    if ((rc = wk_engine_run(r->eng, until, err)) < 0)
        return rc;
    r->interrupted = wk_engine_interrupted(r->eng);
    if (!r->finished && !r->interrupted && r->horizon == WK_TIME_NEVER && wk_engine_now(r->eng) >= until)
        return limit_error(r, err);
    if (!r->finished) {
        /* The horizon was reached, or nothing is left to happen while jobs
         * still wait (a policy that never starts them), or an interrupt
         * stopped the run now. */
        r->end_t = r->horizon != WK_TIME_NEVER && !r->interrupted ? r->horizon : wk_engine_now(r->eng);
        if (wk_run_sample(r, r->end_t) < 0)
            return wk_error_nomem(err, "timeseries/cluster");
    }
    return run_close(r, err);
}

int wk_run_site_begin(WkRun *r, WkError *err) { return run_begin(r, err); }

int wk_run_site_advance(WkRun *r, WkTime until, WkError *err)
{
    if (r->finished)
        return 0;
    int rc = wk_engine_run(r->eng, until, err);
    if (rc < 0)
        return rc;
    r->interrupted = wk_engine_interrupted(r->eng);
    return 0;
}

int wk_run_site_end(WkRun *r, WkTime t_end, WkError *err)
{
    r->end_t = t_end;
    if (wk_run_sample(r, t_end) < 0)
        return wk_error_nomem(err, "timeseries/cluster");
    return run_close(r, err);
}

int wk_run_interrupted(const WkRun *r) { return r->interrupted; }
size_t wk_run_jobs(const WkRun *r) { return r->wl.n; }
uint32_t wk_run_gpus(const WkRun *r) { return r->cluster.gpus; }
const char *wk_run_scheduler(const WkRun *r) { return r->sched->name; }
const char *wk_run_name(const WkRun *r) { return r->name; }

void wk_run_account(const WkRun *r, WkRunAccount *a)
{
    a->alloc_hi = (uint64_t)(r->acct.alloc_ns >> 64);
    a->alloc_lo = (uint64_t)r->acct.alloc_ns;
    a->idle_hi = (uint64_t)(r->acct.idle_ns >> 64);
    a->idle_lo = (uint64_t)r->acct.idle_ns;
    a->down_hi = (uint64_t)(r->acct.down_ns >> 64);
    a->down_lo = (uint64_t)r->acct.down_ns;
    a->end_ns = r->end_t;
}

void wk_run_free(WkRun *r)
{
    if (!r)
        return;
    free(r->site.ok);
    wk_sched_host_close(&r->si);
    wk_sched_plugins_fini(&r->plugins); /* after the instance: its code lives there */
    if (r->rt)
        for (size_t i = 0; i < r->wl.n; i++) {
            free(r->rt[i].gpus);
            free(r->rt[i].flows);
            free(r->rt[i].rings);
        }
    wk_share_fini(&r->share);
    free(r->rt);
    free(r->order);
    wk_pool_fini(&r->pool);
    wk_run_detach(r);
    wk_account_fini(&r->acct);
    wk_facility_fini(&r->fac);
    wk_fail_fini(&r->fail);
    wk_cluster_fini(&r->cluster);
    wk_engine_free(r->eng);
    wk_quota_free(r->quota);
    wk_workload_fini(&r->wl);
    free(r);
}
