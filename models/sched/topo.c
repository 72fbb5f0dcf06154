/* SPDX-License-Identifier: Apache-2.0 */
/* topo.c — topology-aware node-granular packing in FIFO order (the head
 * blocks, as in fifo): a job smaller than a node goes into one node, a larger
 * one onto whole nodes under one leaf switch, else in one pod, else across
 * the fewest pods, tightest fit at each level. It always places this way
 * (the default `exclusive` placement), whatever the scenario's `placement:`. */
#include "models/sched/queue.h"

typedef struct {
    WkQueuePolicy base; /* first: the shared callbacks see a WkQueuePolicy */
} Topo;
WK_QUEUE_POLICY_FIRST(Topo);

static int place_job(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t n, uint32_t *out);

static const WkQueueRules rules = {.name = "topo", .place = place_job};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)ctx;
    return wk_queue_policy_init(priv, &rules, params, err);
}

/* Node-granular placement whatever the scenario's `placement:` says: one
 * node (the tightest that holds the job) for a job smaller than a node,
 * else whole idle nodes under the tightest leaf block, else in the tightest
 * pod, else across the pods with the most idle GPUs (WK_PLACE_EXCLUSIVE). */
static int place_job(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t n, uint32_t *out)
{
    (void)priv;
    (void)n;
    return wk_sched_place_job(ctx, job, WK_PLACE_EXCLUSIVE, out, NULL, NULL);
}

/* A newcomer joins the tail: the queue is only tried when it is alone. */
static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    WkQueuePolicy *p = priv;
    int rc = wk_queue_admit(p, ctx, job, err);
    return rc <= 0 ? rc : p->q.n == 1 ? wk_queue_drain(p, ctx, err) : 0;
}

const WkSchedOps wk_sched_topo = {
    .abi = WK_SCHED_ABI,
    .name = "topo",
    .description = "topology-aware node-granular packing in FIFO order: one node, else whole nodes "
                   "under one leaf, else one pod, else fewest pods; ignores placement:",
    .priv_size = sizeof(Topo),
    .init = init,
    .on_submit = on_submit,
    .fini = wk_queue_policy_fini,
    WK_QUEUE_POLICY_OPS,
};
