/* SPDX-License-Identifier: Apache-2.0 */
/* host.c — the scheduler host: the wk_sched_* context calls forwarded to the
 * run's table, and instance wrappers that own the optional-method checks.
 * Not a policy, not the run; lookup by name is in registry.c. */
#include "models/sched/host.h"
#include "models/workload/workload.h"
#include "sim/core/text.h"

#include <assert.h>
#include <stdlib.h>

/* the public health values (wanka/sched.h) are the model's */
static_assert(WK_SCHED_GPU_UP == (int)WK_GPU_UP && WK_SCHED_GPU_DOWN == (int)WK_GPU_DOWN &&
                  WK_SCHED_GPU_THROTTLED == (int)WK_GPU_THROTTLED,
              "WkSchedHealth differs from WkGpuHealth");
/* the public job kinds are the workload's */
static_assert(WK_SCHED_JOB_AI == (int)WK_JOB_AI && WK_SCHED_JOB_HPC == (int)WK_JOB_HPC,
              "WkSchedJobKind differs from WkJobKind");

/* ---- the context calls of sched.h ---- */

const WkCluster *wk_sched_cluster(const WkSchedCtx *c) { return c->ops->cluster(c->host); }
uint32_t wk_sched_gpus(const WkSchedCtx *c) { return c->ops->cluster(c->host)->gpus; }
uint32_t wk_sched_nodes(const WkSchedCtx *c) { return c->ops->cluster(c->host)->nodes; }
uint32_t wk_sched_pods(const WkSchedCtx *c) { return c->ops->cluster(c->host)->pods; }
uint32_t wk_sched_gpu_node(const WkSchedCtx *c, uint32_t gpu) { return c->ops->cluster(c->host)->gpu_node[gpu]; }
uint32_t wk_sched_node_pod(const WkSchedCtx *c, uint32_t node) { return c->ops->cluster(c->host)->node_pod[node]; }
uint32_t wk_sched_node_first_gpu(const WkSchedCtx *c, uint32_t node)
{
    return c->ops->cluster(c->host)->node_first_gpu[node];
}
uint32_t wk_sched_node_gpus(const WkSchedCtx *c, uint32_t node)
{
    const WkCluster *cl = c->ops->cluster(c->host);
    return cl->node_first_gpu[node + 1] - cl->node_first_gpu[node];
}
WkTime wk_sched_now(const WkSchedCtx *c) { return c->ops->now(c->host); }
uint64_t wk_sched_seed(const WkSchedCtx *c) { return c->ops->seed(c->host); }
uint32_t wk_sched_free_gpus(const WkSchedCtx *c) { return c->ops->free_gpus(c->host); }
uint32_t wk_sched_usable_gpus(const WkSchedCtx *c) { return c->ops->usable_gpus(c->host); }
double wk_sched_power_headroom_w(const WkSchedCtx *c) { return c->ops->power_headroom_w(c->host); }
double wk_sched_job_power_w(const WkSchedCtx *c, uint32_t job) { return c->ops->job_power_w(c->host, job); }
int wk_sched_job_deferrable(const WkSchedCtx *c, uint32_t job) { return c->ops->job_deferrable(c->host, job); }
int wk_sched_job_kind(const WkSchedCtx *c, uint32_t job) { return c->ops->job_kind(c->host, job); }
double wk_sched_price_now(const WkSchedCtx *c) { return c->ops->price_now(c->host); }
double wk_sched_price_mean(const WkSchedCtx *c) { return c->ops->price_mean(c->host); }
int wk_sched_budget_mode(const WkSchedCtx *c) { return c->ops->budget_mode(c->host); }
double wk_sched_job_clock_floor(const WkSchedCtx *c, uint32_t job) { return c->ops->job_clock_floor(c->host, job); }
double wk_sched_job_power_at_w(const WkSchedCtx *c, uint32_t job, double clock, double *idle_w)
{
    return c->ops->job_power_at_w(c->host, job, clock, idle_w);
}
double wk_sched_job_time_factor(const WkSchedCtx *c, uint32_t job, double clock)
{
    return c->ops->job_time_factor(c->host, job, clock);
}
int wk_sched_set_job_clock(WkSchedCtx *c, uint32_t job, double clock, WkError *err)
{
    return c->ops->set_job_clock(c->host, job, clock, err);
}
int wk_sched_gpu_is_free(const WkSchedCtx *c, uint32_t gpu) { return c->ops->gpu_is_free(c->host, gpu); }
int wk_sched_gpu_health(const WkSchedCtx *c, uint32_t gpu) { return c->ops->gpu_health(c->host, gpu); }
uint32_t wk_sched_node_free(const WkSchedCtx *c, uint32_t node) { return c->ops->node_free(c->host, node); }
uint32_t wk_sched_pod_free(const WkSchedCtx *c, uint32_t pod) { return c->ops->pod_free(c->host, pod); }
uint32_t wk_sched_job_gpus(const WkSchedCtx *c, uint32_t job) { return c->ops->job_gpus(c->host, job); }
WkTime wk_sched_job_submit(const WkSchedCtx *c, uint32_t job) { return c->ops->job_submit(c->host, job); }
int wk_sched_job_priority(const WkSchedCtx *c, uint32_t job) { return c->ops->job_priority(c->host, job); }
double wk_sched_job_estimate_s(const WkSchedCtx *c, uint32_t job) { return c->ops->job_estimate_s(c->host, job); }
double wk_sched_job_remaining_s(const WkSchedCtx *c, uint32_t job) { return c->ops->job_remaining_s(c->host, job); }
double wk_sched_job_attained_gpu_s(const WkSchedCtx *c, uint32_t job)
{
    return c->ops->job_attained_gpu_s(c->host, job);
}
int wk_sched_job_running(const WkSchedCtx *c, uint32_t job) { return c->ops->job_running(c->host, job); }
int wk_sched_job_preemptible(const WkSchedCtx *c, uint32_t job) { return c->ops->job_preemptible(c->host, job); }
const uint32_t *wk_sched_job_placement(const WkSchedCtx *c, uint32_t job, uint32_t *n)
{
    return c->ops->job_placement(c->host, job, n);
}
double wk_sched_job_iter_s_on(const WkSchedCtx *c, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    return c->ops->job_iter_s_on(c->host, job, gpus, n);
}
int wk_sched_place_with(const WkSchedCtx *c, WkPlacement how, uint32_t n, uint32_t *out,
                        int (*allowed)(uint32_t gpu, void *user), void *user)
{
    return c->ops->place_with(c->host, how, n, out, allowed, user);
}
double wk_sched_job_mem_need(const WkSchedCtx *c, uint32_t job) { return c->ops->job_mem_need(c->host, job); }
const uint64_t *wk_sched_node_gens(const WkSchedCtx *c, uint64_t *gen) { return c->ops->node_gens(c->host, gen); }

int wk_sched_job_fits_gpu(const WkSchedCtx *c, uint32_t job, uint32_t gpu)
{
    double need = c->ops->job_mem_need(c->host, job);
    return need <= 0 || wk_cluster_sku_of(c->ops->cluster(c->host), gpu)->hbm_bytes >= need;
}

/* wk_sched_place_job's filter: the job's memory, then the caller's own. */
typedef struct {
    const WkCluster *cl;
    double need;
    int (*allowed)(uint32_t gpu, void *user);
    void *user;
} FitFilter;

static int fits_filter(uint32_t gpu, void *user)
{
    const FitFilter *f = user;
    return wk_cluster_sku_of(f->cl, gpu)->hbm_bytes >= f->need && (!f->allowed || f->allowed(gpu, f->user));
}

int wk_sched_place_job(const WkSchedCtx *c, uint32_t job, WkPlacement how, uint32_t *out,
                       int (*allowed)(uint32_t gpu, void *user), void *user)
{
    uint32_t n = c->ops->job_gpus(c->host, job);
    double need = c->ops->job_mem_need(c->host, job);
    if (need <= 0) /* fits every GPU: no filter of its own */
        return c->ops->place_with(c->host, how, n, out, allowed, user);
    FitFilter f = {c->ops->cluster(c->host), need, allowed, user};
    return c->ops->place_with(c->host, how, n, out, fits_filter, &f);
}

int wk_sched_first_fit(const WkSchedCtx *c, uint32_t n, uint32_t *out)
{
    return c->ops->place_with(c->host, WK_PLACE_FIRST_FIT, n, out, NULL, NULL);
}
WkPlacement wk_sched_placement(const WkSchedCtx *c) { return c->ops->placement(c->host); }

int wk_sched_place(const WkSchedCtx *c, uint32_t n, uint32_t *out)
{
    return c->ops->place_with(c->host, c->ops->placement(c->host), n, out, NULL, NULL);
}
int wk_sched_start(WkSchedCtx *c, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    return c->ops->start(c->host, job, gpus, n, err);
}
int wk_sched_preempt(WkSchedCtx *c, uint32_t job, WkError *err) { return c->ops->preempt(c->host, job, err); }
int wk_sched_reject(WkSchedCtx *c, uint32_t job, const char *reason, WkError *err)
{
    return c->ops->reject(c->host, job, reason, err);
}

/* ---- instances ---- */

int wk_sched_host_open(WkSchedInst *si, const WkSchedOps *ops, const WkNode *params,
                       const WkSchedHostOps *host_ops, void *host, WkError *err)
{
    *si = (WkSchedInst){.ops = ops, .ctx = {.ops = host_ops, .host = host}};
    si->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
    if (!si->priv)
        return wk_error_nomem(err, "scheduler state");
    const char *prev = wk_text_callback_enter("init");
    int rc = ops->init(si->priv, params, &si->ctx, err);
    wk_text_callback_leave(prev);
    if (rc < 0) {
        free(si->priv);
        si->priv = NULL;
        return rc;
    }
    si->ready = 1;
    return 0;
}

void wk_sched_host_close(WkSchedInst *si)
{
    if (si->ready && si->ops->fini) {
        const char *prev = wk_text_callback_enter("fini");
        si->ops->fini(si->priv);
        wk_text_callback_leave(prev);
    }
    si->ready = 0;
    free(si->priv);
    si->priv = NULL;
}

/* The callbacks below name themselves in wk_text_callback while they run
 * (sim/core/text.h), so a time limit can say where a policy looped. */
int wk_sched_host_submit(WkSchedInst *si, uint32_t job, WkError *err)
{
    const char *prev = wk_text_callback_enter("on_submit");
    int rc = si->ops->on_submit(si->priv, &si->ctx, job, err);
    wk_text_callback_leave(prev);
    return rc;
}

int wk_sched_host_release(WkSchedInst *si, WkError *err)
{
    const char *prev = wk_text_callback_enter("on_release");
    int rc = si->ops->on_release(si->priv, &si->ctx, err);
    wk_text_callback_leave(prev);
    return rc;
}

int wk_sched_host_tick(WkSchedInst *si, WkError *err)
{
    if (!si->ops->on_tick)
        return 0;
    const char *prev = wk_text_callback_enter("on_tick");
    int rc = si->ops->on_tick(si->priv, &si->ctx, err);
    wk_text_callback_leave(prev);
    return rc;
}

int wk_sched_host_incident(WkSchedInst *si, const uint32_t *jobs, size_t njobs, WkError *err)
{
    int rc = 0;
    const char *prev = wk_text_callback_enter("on_incident");
    if (si->ops->on_incident)
        rc = si->ops->on_incident(si->priv, &si->ctx, jobs, njobs, err);
    else
        for (size_t i = 0; i < njobs && rc == 0; i++) {
            wk_text_callback_enter("on_submit");
            rc = si->ops->on_submit(si->priv, &si->ctx, jobs[i], err);
        }
    wk_text_callback_leave(prev);
    if (rc == 0)
        rc = wk_sched_host_release(si, err);
    return rc;
}

size_t wk_sched_host_queued(const WkSchedInst *si)
{
    const char *prev = wk_text_callback_enter("queued");
    size_t q = si->ops->queued(si->priv);
    wk_text_callback_leave(prev);
    return q;
}
