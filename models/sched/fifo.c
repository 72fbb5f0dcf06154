/* SPDX-License-Identifier: Apache-2.0 */
/* fifo.c — first in, first out: jobs start in strict arrival order, placed
 * by the scenario's `placement:` (whole nodes by default); the queue head
 * blocks everything behind it until it fits. Jobs hit by an incident go to
 * the very front. Only a job larger than the cluster is rejected at submit. */
#include "models/sched/queue.h"

static const WkQueueRules rules = {.name = "fifo", .front = 1};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)ctx;
    return wk_queue_policy_init(priv, &rules, params, err);
}

/* A newcomer joins the tail: the queue is only tried when it is alone. */
static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    WkQueuePolicy *p = priv;
    if (wk_sched_job_gpus(ctx, job) > wk_sched_cluster(ctx)->gpus)
        return wk_sched_reject(ctx, job, "needs more GPUs than the cluster has", err);
    int rc = wk_queue_enqueue(p, ctx, job, err);
    return rc < 0 ? rc : p->q.n == 1 ? wk_queue_drain(p, ctx, err) : 0;
}

const WkSchedOps wk_sched_fifo = {
    .abi = WK_SCHED_ABI,
    .name = "fifo",
    .description = "first in, first out; gang placement by `placement:` (whole nodes by default); the queue head blocks the rest",
    .priv_size = sizeof(WkQueuePolicy),
    .init = init,
    .on_submit = on_submit,
    .fini = wk_queue_policy_fini,
    WK_QUEUE_POLICY_OPS,
};
