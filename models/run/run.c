/* SPDX-License-Identifier: Apache-2.0 */
/* run.c — the run driver: scenario → cluster, workload, scheduler; the job
 * lifecycle on the engine; the accounting layer every allocation change goes
 * through; the scheduler context. Reporting (summary, trace) is in
 * run_report.c. */
#include "models/run/run_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EV_SUBMIT = WK_EV_SUBMIT, EV_END = WK_EV_END, EV_SAMPLE = WK_EV_SAMPLE };

/* ---- accounting (models/run/account.c): every change passes here first ---- */

static void account(WkRun *r, WkTime now) { wk_account_to(&r->acct, &r->pool, now); }

void wk_run_account_to(WkRun *r, WkTime now) { account(r, now); }

static double gpu_draw(const WkRun *r, uint32_t gpu, int busy)
{
    return wk_account_gpu_draw(&r->cluster, gpu, busy);
}

static int sample(WkRun *r, WkTime now)
{
    return wk_account_sample(&r->acct, &r->cluster, now, r->pool.alloc, r->running, r->queued);
}

/* Keep "a row is the state after every event at its instant": an event at
 * the time of the last row rewrites that row. */
static void resample(WkRun *r, WkTime now)
{
    if (wk_account_sampled_at(&r->acct, now))
        sample(r, now);
}

static int finish_if_done(WkRun *r, WkTime now)
{
    if (r->completed + r->rejected < r->wl.n)
        return 0;
    r->finished = 1;
    r->end_t = now;
    wk_engine_cancel(r->eng, r->sample_tok);
    wk_engine_cancel(r->eng, r->tick_tok);
    wk_engine_stop(r->eng);
    return sample(r, now);
}

/* ---- scheduler context ---- */

#define RUN(h) ((WkRun *)(uintptr_t)(h))

static const WkCluster *host_cluster(const void *host) { return &RUN(host)->cluster; }
static WkTime host_now(const void *host) { return RUN(host)->eng ? wk_engine_now(RUN(host)->eng) : 0; }
static uint64_t host_seed(const void *host) { return RUN(host)->seed; }
static uint32_t host_free_gpus(const void *host) { return RUN(host)->pool.nfree; }
static uint32_t host_usable_gpus(const void *host) { return RUN(host)->cluster.gpus - RUN(host)->pool.ndown; }
static uint32_t host_job_gpus(const void *host, uint32_t job) { return RUN(host)->wl.jobs[job].gpus; }
static WkTime host_job_submit(const void *host, uint32_t job) { return RUN(host)->wl.jobs[job].submit; }
static int host_job_priority(const void *host, uint32_t job) { return RUN(host)->wl.jobs[job].priority; }
static int host_job_running(const void *host, uint32_t job) { return RUN(host)->rt[job].state == WK_JOB_RUNNING; }
static int host_job_preemptible(const void *host, uint32_t job)
{
    const WkJobRt *rt = &RUN(host)->rt[job];
    return rt->state == WK_JOB_RUNNING && !rt->hung && !rt->waiting;
}
static uint32_t host_node_free(const void *host, uint32_t node) { return RUN(host)->pool.node_free[node]; }
static uint32_t host_pod_free(const void *host, uint32_t pod) { return RUN(host)->pool.pod_free[pod]; }
static int host_gpu_health(const void *host, uint32_t gpu) { return RUN(host)->cluster.health[gpu]; }

static int host_gpu_is_free(const void *host, uint32_t gpu)
{
    const WkRun *r = RUN(host);
    return wk_pool_is_free(&r->pool, gpu);
}

static const uint32_t *host_job_placement(const void *host, uint32_t job, uint32_t *n)
{
    const WkRun *r = RUN(host);
    *n = r->rt[job].state == WK_JOB_RUNNING ? r->wl.jobs[job].gpus : 0;
    return r->rt[job].state == WK_JOB_RUNNING ? r->rt[job].gpus : NULL;
}

static double host_job_iter_s_on(const void *host, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    return wk_runjob_iter_on(RUN(host), job, gpus, n);
}

static double host_job_estimate_s(const void *host, uint32_t job)
{
    WkRun *r = RUN(host);
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    if (!js->model)
        return wk_time_to_s(js->duration);
    if (rt->est_s == 0) {
        /* nominal: iterations x iteration time on the first GPUs of the cluster */
        uint32_t n = js->gpus <= r->cluster.gpus ? js->gpus : r->cluster.gpus;
        uint32_t *g = malloc((size_t)n * sizeof *g);
        double it = NAN;
        if (g) {
            for (uint32_t i = 0; i < n; i++)
                g[i] = i;
            it = wk_runjob_iter_on(r, job, g, n);
            free(g);
        }
        const WkModelSpec *m = &r->wl.models[js->model - 1];
        double iters = js->iterations;
        if (iters <= 0) {
            double per = m->kind == WK_MODEL_LLM ? (double)m->global_batch * m->seq_len
                                                 : (double)m->batch_per_gpu * js->gpus;
            iters = per > 0 ? ceil(js->tokens / per) : 0;
        }
        rt->est_s = isnan(it) ? INFINITY : iters * it;
    }
    return rt->est_s;
}

static double host_job_remaining_s(const void *host, uint32_t job)
{
    WkRun *r = RUN(host);
    WkJobRt *rt = &r->rt[job];
    if (rt->state == WK_JOB_RUNNING)
        wk_runjob_settle(r, job, wk_engine_now(r->eng));
    if (!r->wl.jobs[job].model)
        return wk_time_to_s(rt->left_ns);
    double est = host_job_estimate_s(host, job);
    if (rt->work <= 0)
        return est;
    return est * (1 - rt->done / rt->work);
}

static double host_job_attained_gpu_s(const void *host, uint32_t job)
{
    const WkRun *r = RUN(host);
    const WkJobRt *rt = &r->rt[job];
    double a = rt->attained_gpu_s;
    if (rt->state == WK_JOB_RUNNING) {
        WkTime now = wk_engine_now(r->eng);
        if (now > rt->seg_start)
            a += (double)r->wl.jobs[job].gpus * wk_time_to_s(now - rt->seg_start);
    }
    return a;
}

static int host_start(void *host, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    WkRun *r = RUN(host);
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    if (rt->state != WK_JOB_QUEUED || n != js->gpus)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                            "scheduler %s: start of job %u that is not waiting or with %u GPUs instead of %u",
                            r->si.ops->name, job, n, js->gpus);
    if (!rt->gpus && !(rt->gpus = malloc(((size_t)n + 1) * sizeof *rt->gpus)))
        return wk_error_nomem(err, "job placement");
    WkTime now = wk_engine_now(r->eng);
    account(r, now); /* up to now at the old allocation */
    uint32_t bad;
    if (wk_pool_hold(&r->pool, job, gpus, n, &bad) < 0)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                            "scheduler %s: job %u placed on GPU %u which is busy, down or out of range",
                            r->si.ops->name, job, bad);
    memcpy(rt->gpus, gpus, (size_t)n * sizeof *gpus);
    for (uint32_t i = 0; i < n; i++)
        r->acct.gpu_power_w += gpu_draw(r, gpus[i], 1) - gpu_draw(r, gpus[i], 0);
    r->running++;
    r->queued--;
    rt->state = WK_JOB_RUNNING;
    rt->alloc_t = now;
    if (rt->start < 0)
        rt->start = now;
    rt->seg_start = now + rt->pending_cost;
    rt->pending_cost = 0;
    if (!rt->token) {
        int rc = wk_engine_token_new(r->eng, &rt->token, err);
        if (rc < 0)
            return rc;
    }
    int rc = wk_runjob_start(r, job, err);
    return rc < 0 ? rc : wk_runfail_job_started(r, job, err);
}

/* Remember an allocation [alloc_t, now) of a job's GPUs (per-GPU statistics). */
static int record_segment(WkRun *r, uint32_t job, WkTime now, WkError *err)
{
    const WkJobRt *rt = &r->rt[job];
    return wk_account_segment(&r->acct, rt->alloc_t, now, rt->gpus, r->wl.jobs[job].gpus, err);
}

int wk_run_record_open_segments(WkRun *r, WkError *err)
{
    int rc = 0;
    for (size_t j = 0; j < r->wl.n && rc == 0; j++)
        if (r->rt && r->rt[j].state == WK_JOB_RUNNING)
            rc = record_segment(r, (uint32_t)j, r->end_t, err);
    return rc;
}

/* Give a stopped job's GPUs back (running → not running). */
static int release(WkRun *r, uint32_t job, WkTime now, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    uint32_t n = r->wl.jobs[job].gpus;
    int rc = record_segment(r, job, now, err);
    if (rc < 0)
        return rc;
    account(r, now);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = rt->gpus[i];
        r->acct.gpu_power_w += gpu_draw(r, g, 0) - gpu_draw(r, g, 1);
        wk_pool_release(&r->pool, g);
    }
    r->running--;
    return 0;
}

int wk_run_requeue(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(r->eng);
    wk_runjob_settle(r, job, now);
    wk_engine_cancel(r->eng, rt->token);
    wk_runfail_job_stopped(r, job);
    rt->state = WK_JOB_QUEUED; /* before stop: its own flows are not re-rated */
    int rc = wk_runjob_stop(r, job, err);
    if (rc < 0)
        return rc;
    if ((rc = release(r, job, now, err)) < 0)
        return rc;
    r->queued++;
    resample(r, now);
    return 0;
}

static int host_preempt(void *host, uint32_t job, WkError *err)
{
    WkRun *r = RUN(host);
    WkJobRt *rt = &r->rt[job];
    if (rt->state != WK_JOB_RUNNING || rt->hung || rt->waiting)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                            "scheduler %s: preempt of job %u that is not preemptible (see wk_sched_job_preemptible)",
                            r->si.ops->name, job);
    int rc = wk_run_requeue(r, job, err);
    if (rc < 0)
        return rc;
    rt->preemptions++;
    r->preemptions++;
    rt->pending_cost = r->preempt_cost;
    return 0;
}

static int host_reject(void *host, uint32_t job, const char *reason, WkError *err)
{
    WkRun *r = RUN(host);
    if (r->rt[job].state != WK_JOB_QUEUED)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "scheduler %s: reject of job %u that is not waiting",
                            r->si.ops->name, job);
    r->rt[job].state = WK_JOB_REJECTED;
    r->rt[job].reject_reason = reason;
    r->queued--;
    r->rejected++;
    return 0;
}

static WkPlacement host_placement(const void *host) { return RUN(host)->placement; }

static int host_place_with(const void *host, WkPlacement how, uint32_t n, uint32_t *out,
                           int (*allowed)(uint32_t gpu, void *user), void *user)
{
    return wk_pool_place(&RUN(host)->pool, how, n, out, allowed, user);
}

/* The run as a scheduler host (models/sched/host.h). */
const WkSchedHostOps wk_run_sched_host = {
    .cluster = host_cluster,
    .now = host_now,
    .seed = host_seed,
    .free_gpus = host_free_gpus,
    .usable_gpus = host_usable_gpus,
    .gpu_is_free = host_gpu_is_free,
    .gpu_health = host_gpu_health,
    .node_free = host_node_free,
    .pod_free = host_pod_free,
    .job_gpus = host_job_gpus,
    .job_submit = host_job_submit,
    .job_priority = host_job_priority,
    .job_estimate_s = host_job_estimate_s,
    .job_remaining_s = host_job_remaining_s,
    .job_attained_gpu_s = host_job_attained_gpu_s,
    .job_running = host_job_running,
    .job_preemptible = host_job_preemptible,
    .job_placement = host_job_placement,
    .job_iter_s_on = host_job_iter_s_on,
    .placement = host_placement,
    .place_with = host_place_with,
    .start = host_start,
    .preempt = host_preempt,
    .reject = host_reject,
};

/* ---- event handlers ---- */

static int on_submit(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    uint32_t job = r->order[ev->target];
    r->rt[job].state = WK_JOB_QUEUED;
    r->queued++;
    int rc = 0;
    if (ev->target + 1 < r->wl.n) {
        uint32_t next = r->order[ev->target + 1];
        if ((rc = wk_engine_post_e(e, r->wl.jobs[next].submit, EV_SUBMIT, ev->target + 1, 0, 0, 0, err)) < 0)
            return rc;
    }
    rc = wk_sched_host_submit(&r->si, job, err);
    if (rc < 0)
        return rc;
    resample(r, wk_engine_now(e));
    return finish_if_done(r, wk_engine_now(e));
}

static int on_end(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    WkJobRt *rt = &r->rt[ev->target];
    WkTime now = wk_engine_now(e);
    wk_runjob_settle(r, ev->target, now);
    wk_runfail_job_stopped(r, ev->target);
    rt->state = WK_JOB_COMPLETED;
    rt->end = now;
    int rc = wk_runjob_stop(r, ev->target, err);
    if (rc < 0)
        return rc;
    if ((rc = release(r, ev->target, now, err)) < 0)
        return rc;
    r->completed++;
    rc = wk_sched_host_release(&r->si, err);
    if (rc < 0)
        return rc;
    resample(r, now);
    return finish_if_done(r, now);
}

static int on_tick(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRun *r = ctx;
    (void)ev;
    int rc = wk_sched_host_tick(&r->si, err);
    if (rc < 0)
        return rc;
    WkTime now = wk_engine_now(e);
    resample(r, now);
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
    if (sample(r, now) < 0)
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
        static const char *const places[] = {"first-fit", "pack", "spread", "round-robin", NULL};
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
    return wk_sched_host_lookup(NULL, name, where, &r->sched, err);
}

int wk_run_prepare(WkRun **out, const WkDoc *doc, const WkRunOpts *o, WkError *err)
{
    static const char *const simk[] = {"end", "sample_interval", NULL};
    const WkNode *root = doc->root;
    if (!root)
        return wk_error_set(err, WK_E_INVAL, doc->file, 0, 0, "empty scenario: expected a mapping with cluster and workload");
    int rc = wk_section_check(root, WK_DOC_SCENARIO, err);
    if (rc < 0)
        return rc;

    WkRun *r = calloc(1, sizeof *r);
    if (!r)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory");
    r->doc = doc;
    r->name = "unnamed";
    r->horizon = WK_TIME_NEVER;
    r->sample_interval = WK_NS_PER_H;
    r->preempt_cost = 10 * WK_NS_PER_MIN; /* restart overhead 5–20 min (Meta RSC, REFERENCES.md) */
    int64_t seed = 1;
    const WkNode *simn = wk_node_get(root, "sim");
    if ((rc = wk_node_str(root, "name", 0, &r->name, err)) < 0 ||
        (rc = wk_node_int(root, "seed", 0, 0, INT64_MAX, &seed, err)) < 0)
        goto fail;
    const char *desc = NULL;
    if ((rc = wk_node_str(root, "description", 0, &desc, err)) < 0)
        goto fail;
    if (simn && simn->type != WK_NODE_NULL) {
        if ((rc = wk_node_expect_keys(simn, simk, err)) < 0 ||
            (rc = wk_node_duration(simn, "end", 0, 1, WK_RUN_MAX_TIME, &r->horizon, err)) < 0 ||
            (rc = wk_node_duration(simn, "sample_interval", 0, WK_NS_PER_MS, WK_TIME_NEVER / 2,
                                   &r->sample_interval, err)) < 0)
            goto fail;
    }
    r->seed = (o && o->has_seed) ? o->seed : (uint64_t)seed;
    if (o)
        r->opts = *o;

    if ((rc = wk_cluster_parse(wk_node_get(root, "cluster"), &r->cluster, err)) < 0 ||
        (rc = wk_runfail_parse(r, root, err)) < 0)
        goto fail;
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
    if ((rc = wk_runjob_check(r, err)) < 0)
        goto fail;
    if (r->wl.n > UINT32_MAX - 1) {
        rc = wk_error_set(err, WK_E_RANGE, doc->file, 0, 0, "workload: more than 2^32-2 jobs");
        goto fail;
    }
    if ((rc = parse_sched(r, root, o, err)) < 0)
        goto fail;
    if ((rc = wk_sched_host_open(&r->si, r->sched, r->sched_params, &wk_run_sched_host, r, err)) < 0)
        goto fail;
    *out = r;
    return 0;
fail:
    wk_run_free(r);
    return rc;
}

int wk_run_execute(WkRun *r, WkError *err)
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
    if ((rc = wk_pool_init(&r->pool, &r->cluster, err)) < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        r->rt[i] = (WkJobRt){.start = -1, .end = -1, .state = WK_JOB_PENDING, .path_class = WK_JOB_NO_PATH,
                             .left_ns = r->wl.jobs[i].duration, .ckpt_left = r->wl.jobs[i].duration};
    r->acct.gpu_power_w = 0;
    for (uint32_t g = 0; g < r->cluster.gpus; g++)
        r->acct.gpu_power_w += gpu_draw(r, g, 0);
    r->acct.net_power_w = wk_cluster_network_w(&r->cluster);

    if ((rc = wk_engine_new(&r->eng, r->seed, err)) < 0 || (rc = wk_share_init(&r->share, &r->cluster, r->wl.n, err)) < 0)
        return rc;
    if (r->opts.progress)
        wk_engine_set_progress(r->eng, r->opts.progress, r->opts.progress_user);
    wk_engine_set_interrupt(r->eng, r->opts.interrupt);
    if ((rc = wk_engine_on(r->eng, EV_SUBMIT, on_submit, r, err)) < 0 ||
        (rc = wk_engine_on(r->eng, EV_END, on_end, r, err)) < 0 ||
        (rc = wk_engine_on(r->eng, EV_SAMPLE, on_sample, r, err)) < 0 ||
        (rc = wk_engine_on(r->eng, WK_EV_TICK, on_tick, r, err)) < 0 ||
        (rc = wk_engine_token_new(r->eng, &r->sample_tok, err)) < 0 ||
        (rc = wk_engine_token_new(r->eng, &r->tick_tok, err)) < 0)
        return rc;
    if (r->tick_ns > 0 && (rc = wk_engine_post_e(r->eng, r->tick_ns, WK_EV_TICK, 0, 0, 0, r->tick_tok, err)) < 0)
        return rc;
    if ((rc = wk_runfail_start(r, err)) < 0)
        return rc;
    if ((rc = wk_engine_post_e(r->eng, 0, EV_SAMPLE, 0, 0, 0, r->sample_tok, err)) < 0 ||
        (n && (rc = wk_engine_post_e(r->eng, r->wl.jobs[r->order[0]].submit, EV_SUBMIT, 0, 0, 0, 0, err)) < 0))
        return rc;
    if (n == 0) {
        r->finished = 1;
        r->end_t = 0;
        return sample(r, 0) < 0 ? wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "run: out of memory") : 0;
    }
    /* Without sim.end the run stops at WK_RUN_MAX_TIME (2^62 ns, 146 years):
     * every time then stays below it plus a duration, which fits in 64 bits. */
    WkTime until = r->horizon != WK_TIME_NEVER ? r->horizon : WK_RUN_MAX_TIME;
    if ((rc = wk_engine_run(r->eng, until, err)) < 0)
        return rc;
    r->interrupted = wk_engine_interrupted(r->eng);
    if (!r->finished && !r->interrupted && r->horizon == WK_TIME_NEVER && wk_engine_now(r->eng) >= until)
        return wk_error_set(err, WK_E_RANGE, r->doc->file, 0, 0,
                            "the run reached %.0f years of simulated time, the limit (docs/limits.md), with jobs "
                            "unfinished: set sim.end to stop it earlier",
                            wk_time_to_s(WK_RUN_MAX_TIME) / (365.25 * 86400));
    if (!r->finished) {
        /* The horizon was reached, or nothing is left to happen while jobs
         * still wait (a policy that never starts them), or an interrupt
         * stopped the run now. */
        r->end_t = r->horizon != WK_TIME_NEVER && !r->interrupted ? r->horizon : wk_engine_now(r->eng);
        if (sample(r, r->end_t) < 0)
            return wk_error_nomem(err, "timeseries/cluster");
    }
    account(r, r->end_t);
    return wk_run_record_open_segments(r, err);
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
    wk_sched_host_close(&r->si);
    if (r->rt)
        for (size_t i = 0; i < r->wl.n; i++) {
            free(r->rt[i].gpus);
            free(r->rt[i].flows);
        }
    wk_share_fini(&r->share);
    free(r->rt);
    free(r->order);
    wk_pool_fini(&r->pool);
    free(r->incidents);
    wk_account_fini(&r->acct);
    free(r->waitlist);
    free(r->proc_rng);
    wk_fail_fini(&r->fail);
    wk_cluster_fini(&r->cluster);
    wk_engine_free(r->eng);
    wk_workload_fini(&r->wl);
    free(r);
}
