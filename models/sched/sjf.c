/* SPDX-License-Identifier: Apache-2.0 */
/* sjf.c — shortest job first, non-preemptive: waiting jobs are ordered by
 * expected GPU-time (GPUs x expected remaining run time, ties by arrival) and
 * start in that order; like fifo's head, the shortest waiting job blocks the
 * others until it fits. A job larger than the cluster is rejected at submit. */
#include "models/sched/queue.h"

typedef struct {
    WkJobQueue q;
    WkPlaceBuf buf;
} Sjf;

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    static const char *const known[] = {WK_SCHED_COMMON_KEYS, NULL};
    (void)priv;
    (void)ctx;
    return params ? wk_node_expect_keys(params, known, err) : 0;
}

/* The key: expected GPU-seconds still to run (the estimate for a new job;
 * less for a job that ran before an incident stopped it). */
static int enqueue(Sjf *s, const WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    double key = (double)wk_sched_job_gpus(ctx, job) * wk_sched_job_remaining_s(ctx, job);
    if (wk_queue_push(&s->q, key, wk_sched_job_submit(ctx, job), job) < 0)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "sjf: out of memory");
    return 0;
}

static int drain(Sjf *s, WkSchedCtx *ctx, WkError *err)
{
    while (s->q.n) {
        int rc = wk_queue_start(ctx, wk_queue_at(&s->q, 0)->job, &s->buf, NULL, err);
        if (rc == WK_E_NOROOM)
            return 0;
        if (rc < 0)
            return rc;
        wk_queue_remove(&s->q, 0);
    }
    return 0;
}

static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    const char *why = wk_queue_never_fits(ctx, job);
    if (why)
        return wk_sched_reject(ctx, job, why, err);
    int rc = enqueue(priv, ctx, job, err);
    return rc < 0 ? rc : drain(priv, ctx, err);
}

static int on_release(void *priv, WkSchedCtx *ctx, WkError *err)
{
    return drain(priv, ctx, err);
}

static int on_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err)
{
    Sjf *s = priv;
    for (size_t i = 0; i < njobs; i++) {
        int rc = enqueue(s, ctx, jobs[i], err);
        if (rc < 0)
            return rc;
    }
    return drain(s, ctx, err);
}

static size_t queued(const void *priv)
{
    return ((const Sjf *)priv)->q.n;
}

static void fini(void *priv)
{
    Sjf *s = priv;
    wk_queue_fini(&s->q);
    wk_queue_place_fini(&s->buf);
}

const WkSchedOps wk_sched_sjf = {
    .abi = WK_SCHED_ABI,
    .name = "sjf",
    .description = "shortest expected GPU-time first (GPUs x estimated run time), non-preemptive; "
                   "the shortest waiting job blocks the rest",
    .priv_size = sizeof(Sjf),
    .init = init,
    .on_submit = on_submit,
    .on_release = on_release,
    .queued = queued,
    .fini = fini,
    .on_incident = on_incident,
};
