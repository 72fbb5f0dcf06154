/* SPDX-License-Identifier: Apache-2.0 */
/* backfill.c — EASY backfilling (Lifka 1995): a FIFO queue whose head, when
 * it cannot start, gets a reservation at the shadow time (the earliest time
 * enough GPUs free up, from the running jobs' expected remaining times);
 * later jobs start now if they fit and either end by the shadow time or use
 * only the GPUs the head will not need then. Non-preemptive. */
#include "models/sched/queue.h"

typedef struct {
    WkQueuePolicy base; /* first: the shared callbacks see a WkQueuePolicy */
    WkEasy easy;        /* scratch for the shadow computation */
} Backfill;
WK_QUEUE_POLICY_FIRST(Backfill);

static int pass(void *priv, WkSchedCtx *ctx, WkError *err);

static const WkQueueRules rules = {.name = "backfill", .pass = pass, .track = 1, .easy = 1};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)ctx;
    return wk_queue_policy_init(priv, &rules, params, err);
}

static int pass(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Backfill *b = priv;
    return wk_queue_easy_pass(&b->base, &b->easy, ctx, err);
}

static void fini(void *priv)
{
    Backfill *b = priv;
    wk_queue_policy_fini(&b->base);
    wk_queue_easy_fini(&b->easy);
}

const WkSchedOps wk_sched_backfill = {
    .abi = WK_SCHED_ABI,
    .name = "backfill",
    .description = "EASY backfill (Lifka 1995): FIFO; the blocked head holds a reservation, later jobs "
                   "start if they do not delay it",
    .priv_size = sizeof(Backfill),
    .init = init,
    .on_submit = wk_queue_on_submit_if_fits,
    .fini = fini,
    WK_QUEUE_POLICY_OPS,
};
