/* SPDX-License-Identifier: Apache-2.0 */
/* conform_guard.c — the conformance guard (conform_impl.h): forwarding
 * callbacks that check the whole allocation after each one, injected
 * incidents, and GPU-time books kept from the starts and preemptions it
 * sees in the host table. The method is described in conform.c. */
#include "models/sched/conform/conform_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/text.h"

#define NONE UINT32_MAX



static void violation(Guard *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void violation(Guard *g, const char *fmt, ...)
{
    if (g->bad)
        return;
    g->bad = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof g->msg, fmt, ap);
    va_end(ap);
}

/* Job stops holding its GPUs at now: each was allocated since its start. */
void wk_conform_guard_close_hold(Guard *g, uint32_t job, WkTime now)
{
    for (uint32_t i = 0; i < g->nheld[job]; i++) {
        uint32_t gpu = g->held[g->at[job] + i];
        g->busy_ns[gpu] += (wk_u128)(now - g->since[job]);
        g->holder[gpu] = NONE;
    }
    g->since[job] = -1;
}

/* Job got gpus[0..n) at now. */
static void open_hold(Guard *g, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now)
{
    if (n > g->at[job + 1] - g->at[job]) { /* a job restarts on at most its request */
        violation(g, "start of job %u on %u GPUs, more than it asks for", job, n);
        return;
    }
    memcpy(g->held + g->at[job], gpus, (size_t)n * sizeof *gpus);
    g->nheld[job] = n;
    g->since[job] = now;
    for (uint32_t i = 0; i < n; i++) {
        if (g->holder[gpus[i]] != NONE)
            violation(g, "start of job %u: GPU %u is held by job %u", job, gpus[i], g->holder[gpus[i]]);
        g->holder[gpus[i]] = job;
    }
}

/* Class every GPU no job holds as free, down or spare; each GPU must be in
 * exactly one class (held counts as one). */
static void classify(Guard *g, const char *where)
{
    const WkRun *r = g->run;
    const WkCluster *c = wk_run_hooks_cluster(r);
    const WkPool *pl = wk_run_hooks_pool(r);
    memset(g->nstate, 0, sizeof g->nstate);
    for (uint32_t gpu = 0; gpu < c->gpus; gpu++) {
        int held = g->holder[gpu] != NONE, free_ = (pl->freebits[gpu >> 6] >> (gpu & 63)) & 1;
        int down = c->health[gpu] == WK_GPU_DOWN, spare = pl->reserved[c->gpu_node[gpu]];
        if (held && free_)
            violation(g, "%s: GPU %u is held by job %u and free", where, gpu, g->holder[gpu]);
        else if (free_ && (down || spare))
            violation(g, "%s: GPU %u is free and %s", where, gpu, down ? "down" : "a spare");
        else if (held)
            continue;
        else if (free_ || down || spare)
            g->nstate[free_ ? ST_FREE : down ? ST_DOWN : ST_SPARE]++;
        else
            violation(g, "%s: GPU %u is neither held, free, down nor a spare", where, gpu);
    }
}

/* An observation at now: the classes since the last one, the allocations of
 * jobs that no longer run, the classes from now on. */
void wk_conform_guard_observe(Guard *g, WkTime now, const char *where)
{
    const WkRun *r = g->run;
    if (!g->observed) /* nothing is held before the first start */
        classify(g, where);
    g->observed = 1;
    if (now < g->last_t)
        violation(g, "%s: time went back from %lld to %lld ns", where, (long long)g->last_t, (long long)now);
    for (int k = 0; k < NSTATE; k++)
        g->state_ns[k] += (wk_u128)g->nstate[k] * (wk_u128)(now - g->last_t);
    g->last_t = now;
    for (uint32_t j = 0; j < wk_run_hooks_workload(r)->n; j++)
        if (g->since[j] >= 0 && wk_run_hooks_job(r, j).state != WK_JOB_RUNNING)
            wk_conform_guard_close_hold(g, j, now);
    classify(g, where);
}

/* The allocation rule of node-granular placement (the default, and the only
 * one `topo` and `slurm` use): a job smaller than the largest node sits in
 * one node; a larger one takes nodes whole, each node's GPUs consecutive in
 * rank order, with at most one node (the remainder) shared. */
static void check_shape(Guard *g, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    const WkRun *r = g->run;
    const WkCluster *c = wk_run_hooks_cluster(r);
    const WkPool *pl = wk_run_hooks_pool(r);
    if (g->base.placement(r) != WK_PLACE_EXCLUSIVE && strcmp(g->inner->name, "topo") != 0 &&
        strcmp(g->inner->name, "slurm") != 0)
        return;
    uint32_t partial = 0;
    for (uint32_t i = 0; i < n;) {
        if (gpus[i] >= c->gpus) {
            violation(g, "start: job %u given GPU %u of %u", job, gpus[i], c->gpus);
            return;
        }
        uint32_t nd = c->gpu_node[gpus[i]], k = i;
        while (k < n && gpus[k] < c->gpus && c->gpu_node[gpus[k]] == nd)
            k++;
        for (uint32_t m = k; m < n; m++)
            if (gpus[m] < c->gpus && c->gpu_node[gpus[m]] == nd)
                violation(g, "start: job %u has node %u's GPUs apart in its rank order", job, nd);
        uint32_t size = c->node_first_gpu[nd + 1] - c->node_first_gpu[nd];
        if (n < pl->max_node && k - i != n)
            violation(g, "start: job %u of %u GPUs (nodes of %u) spans nodes", job, n, pl->max_node);
        if (k - i < size && ++partial > 1)
            violation(g, "start: job %u of %u GPUs shares more than one node (not node-exclusive)", job, n);
        i = k == i ? i + 1 : k;
    }
}

static int host_start(void *host, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    WkRun *r = host;
    Guard *g = wk_run_hooks_sched(r)->priv;
    WkTime now = wk_run_hooks_now(r);
    wk_conform_guard_observe(g, now, "start");
    check_shape(g, job, gpus, n);
    int rc = g->base.start(host, job, gpus, n, err);
    if (rc == 0)
        open_hold(g, job, gpus, n, now);
    wk_conform_guard_observe(g, now, "start");
    return rc;
}

static int host_preempt(void *host, uint32_t job, WkError *err)
{
    WkRun *r = host;
    Guard *g = wk_run_hooks_sched(r)->priv;
    int rc = g->base.preempt(host, job, err);
    wk_conform_guard_observe(g, wk_run_hooks_now(r), "preempt");
    return rc;
}

/* The allocation state after a callback (see the file comment). */
static void check(Guard *g, const char *where)
{
    const WkRun *r = g->run;
    const WkPool *pl = wk_run_hooks_pool(r);
    uint32_t G = wk_run_hooks_cluster(r)->gpus;
    g->callbacks++;
    wk_conform_guard_observe(g, wk_run_hooks_now(r), where);
    for (uint32_t i = 0; i < G; i++)
        g->owner[i] = NONE;
    uint64_t alloc = 0;
    size_t waiting = 0;
    for (size_t j = 0; j < wk_run_hooks_workload(r)->n; j++) {
        WkRunJobView rt = wk_run_hooks_job(r, (uint32_t)j);
        const WkJobSpec *js = &wk_run_hooks_workload(r)->jobs[j];
        if (rt.state == WK_JOB_QUEUED)
            waiting++;
        if (rt.state == WK_JOB_REJECTED && (!rt.reject_reason || !rt.reject_reason[0]))
            violation(g, "%s: job %zu rejected without a reason", where, j);
        if (rt.state != WK_JOB_RUNNING)
            continue;
        if (!rt.gpus) {
            violation(g, "%s: running job %zu holds no GPU list", where, j);
            continue;
        }
        if (rt.start < js->submit)
            violation(g, "%s: job %zu started before its submit", where, j);
        for (uint32_t i = 0; i < js->gpus; i++) {
            uint32_t gpu = rt.gpus[i];
            if (gpu >= G) {
                violation(g, "%s: job %zu holds GPU %u of %u", where, j, gpu, G);
                continue;
            }
            if (g->owner[gpu] != NONE)
                violation(g, "%s: GPU %u held by jobs %u and %zu", where, gpu, g->owner[gpu], j);
            g->owner[gpu] = (uint32_t)j;
            if ((pl->freebits[gpu >> 6] >> (gpu & 63)) & 1)
                violation(g, "%s: GPU %u of running job %zu is in the free pool", where, gpu, j);
        }
        alloc += js->gpus;
    }
    uint64_t nfree = 0;
    for (size_t w = 0; w < ((size_t)G + 63) / 64; w++)
        nfree += (uint64_t)__builtin_popcountll(pl->freebits[w]);
    if (alloc != pl->alloc)
        violation(g, "%s: running jobs hold %llu GPUs, the run counts %u", where, (unsigned long long)alloc,
                  pl->alloc);
    if (nfree != pl->nfree)
        violation(g, "%s: %llu GPUs in the free bitmap, the run counts %u", where, (unsigned long long)nfree,
                  pl->nfree);
    if (waiting != wk_run_hooks_counts(r).queued)
        violation(g, "%s: %zu jobs waiting, the run counts %zu", where, waiting, wk_run_hooks_counts(r).queued);
    size_t q = g->inner->queued(g->inner_priv);
    if (q != waiting)
        violation(g, "%s: the policy queues %zu jobs, %zu are waiting", where, q, waiting);
    for (uint32_t i = 0; i < G; i++)
        if (g->owner[i] != g->holder[i])
            violation(g, "%s: GPU %u: the run has it held by job %u, the guard saw job %u", where, i, g->owner[i],
                      g->holder[i]);
}

static int guard_init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)priv;
    (void)params;
    (void)ctx;
    (void)err;
    return 0; /* the inner policy was initialised by wk_run_prepare */
}

static int guard_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Guard *g = priv;
    int rc = g->inner->on_submit(g->inner_priv, ctx, job, err);
    check(g, "on_submit");
    return rc;
}

/* Stop the lowest-numbered running job that may be stopped
 * (wk_sched_job_preemptible: not one already hung by a failure, nor an hpc
 * job, which wk_sched_preempt refuses) and report it as hit by an incident;
 * sometimes report an incident that hit no job (a repair). */
static int inject(Guard *g, WkSchedCtx *ctx, WkError *err)
{
    const WkRun *r = g->run;
    if (g->releases % (3 * (size_t)g->inject) == 0) {
        const char *prev = wk_text_callback_enter("on_incident");
        int rc = g->inner->on_incident(g->inner_priv, ctx, NULL, 0, err);
        wk_text_callback_leave(prev);
        check(g, "on_incident (no job)");
        if (rc < 0)
            return rc;
    }
    for (uint32_t j = 0; j < wk_run_hooks_workload(r)->n; j++)
        if (wk_sched_job_preemptible(ctx, j)) {
            int rc = wk_sched_preempt(ctx, j, err);
            if (rc < 0)
                return rc;
            g->incidents++;
            const char *prev = wk_text_callback_enter("on_incident");
            rc = g->inner->on_incident(g->inner_priv, ctx, &j, 1, err);
            wk_text_callback_leave(prev);
            check(g, "on_incident");
            return rc;
        }
    return 0;
}

static int guard_release(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Guard *g = priv;
    int rc = g->inner->on_release(g->inner_priv, ctx, err);
    check(g, "on_release");
    if (rc == 0 && g->inject && ++g->releases % g->inject == 0) {
        if (!g->inner->on_incident) {
            violation(g, "no on_incident: jobs hit by failures would be lost");
            return 0;
        }
        rc = inject(g, ctx, err);
    }
    return rc;
}

static int guard_tick(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Guard *g = priv;
    int rc = g->inner->on_tick(g->inner_priv, ctx, err);
    check(g, "on_tick");
    return rc;
}

static int guard_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err)
{
    Guard *g = priv;
    int rc = g->inner->on_incident(g->inner_priv, ctx, jobs, njobs, err);
    check(g, "on_incident");
    return rc;
}

static size_t guard_queued(const void *priv)
{
    const Guard *g = priv;
    return g->inner->queued(g->inner_priv);
}

static void guard_free(Guard *g)
{
    free(g->owner);
    free(g->held);
    free(g->at);
    free(g->nheld);
    free(g->since);
    free(g->holder);
    free(g->busy_ns);
}

static void guard_fini(void *priv)
{
    Guard *g = priv;
    if (g->inner->fini)
        g->inner->fini(g->inner_priv);
    free(g->inner_priv);
    guard_free(g);
}

/* A guard for prepared run r, its books sized for r's GPUs and jobs, or
 * NULL when out of memory. */
Guard *wk_conform_guard_new(WkRun *r, unsigned inject_every)
{
    Guard *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    const WkWorkload *wl = wk_run_hooks_workload(r);
    size_t G = wk_run_hooks_cluster(r)->gpus, n = wl->n ? wl->n : 1;
    g->owner = malloc(G * sizeof *g->owner);
    g->holder = malloc(G * sizeof *g->holder);
    g->busy_ns = calloc(G, sizeof *g->busy_ns);
    g->since = malloc(n * sizeof *g->since);
    g->at = calloc(n + 1, sizeof *g->at);
    g->nheld = calloc(n, sizeof *g->nheld);
    if (g->at)
        for (size_t j = 0; j < wl->n; j++) /* a job larger than the cluster never starts */
            g->at[j + 1] = g->at[j] + (wl->jobs[j].gpus <= G ? wl->jobs[j].gpus : 0);
    g->held = g->at ? malloc((g->at[wl->n] ? g->at[wl->n] : 1) * sizeof *g->held) : NULL;
    if (!g->owner || !g->holder || !g->busy_ns || !g->since || !g->at || !g->nheld || !g->held) {
        guard_free(g);
        free(g);
        return NULL;
    }
    for (size_t i = 0; i < G; i++)
        g->holder[i] = NONE;
    for (size_t j = 0; j < n; j++)
        g->since[j] = -1;
    g->run = r;
    g->inject = inject_every;
    return g;
}

/* Put g in front of r's policy (callbacks) and in its context (host table);
 * the run owns g from now on (guard_fini). */
void wk_conform_guard_install(Guard *g, WkRun *r)
{
    WkSchedInst *si = wk_run_hooks_sched(r);
    g->inner = si->ops;
    g->inner_priv = si->priv;
    g->ops = *si->ops;
    g->ops.priv_size = sizeof *g;
    g->ops.init = guard_init;
    g->ops.on_submit = guard_submit;
    g->ops.on_release = guard_release;
    g->ops.queued = guard_queued;
    g->ops.fini = guard_fini;
    g->ops.on_tick = g->inner->on_tick ? guard_tick : NULL;
    g->ops.on_incident = g->inner->on_incident ? guard_incident : NULL;
    g->base = *si->ctx.ops;
    g->host = g->base;
    g->host.start = host_start;
    g->host.preempt = host_preempt;
    si->ops = &g->ops;
    si->priv = g;
    si->ctx.ops = &g->host;
}
