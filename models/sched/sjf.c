/* SPDX-License-Identifier: Apache-2.0 */
/* sjf.c — shortest job first, non-preemptive: waiting jobs are ordered by
 * expected GPU-time (GPUs x expected remaining run time, ties by arrival) and
 * start in that order; like fifo's head, the shortest waiting job blocks the
 * others until it fits. A job larger than the cluster is rejected at submit. */
#include "models/sched/queue.h"

/* The key: expected GPU-seconds still to run (the estimate for a new job;
 * less for a job that ran before an incident stopped it). */
static double key(const void *priv, const WkSchedCtx *ctx, uint32_t job)
{
    (void)priv;
    return (double)wk_sched_job_gpus(ctx, job) * wk_sched_job_remaining_s(ctx, job);
}

static const WkQueueRules rules = {.name = "sjf", .key = key};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)ctx;
    return wk_queue_policy_init(priv, &rules, params, err);
}

const WkSchedOps wk_sched_sjf = {
    .abi = WK_SCHED_ABI,
    .name = "sjf",
    .description = "shortest expected GPU-time first (GPUs x estimated run time), non-preemptive; "
                   "the shortest waiting job blocks the rest",
    .priv_size = sizeof(WkQueuePolicy),
    .init = init,
    .on_submit = wk_queue_on_submit,
    .fini = wk_queue_policy_fini,
    WK_QUEUE_POLICY_OPS,
};
