/* SPDX-License-Identifier: Apache-2.0 */
/* energy.c — first in, first out, except that a deferrable job (`deferrable:
 * true`) waits while electricity is dear: it is skipped, without blocking the
 * jobs behind it, while the price now (facility.prices) is above
 * `defer_above` x the series' mean price, for at most `max_defer` after its
 * submission. Every other job keeps FIFO order and the first that does not
 * fit blocks the rest. Without a price series it is fifo. Give `tick` (e.g.
 * 15min) so deferred jobs start when the price falls even when no job
 * arrives or ends then. */
#include "models/sched/queue.h"

#include <math.h>

typedef struct {
    WkQueuePolicy base;  /* first: the shared callbacks see a WkQueuePolicy */
    double defer_above;  /* `defer_above:` share of the mean price above which deferrable jobs wait */
    WkTime max_defer;    /* `max_defer:` longest wait for cheap energy after submission */
} Energy;
WK_QUEUE_POLICY_FIRST(Energy);

static int pass(void *priv, WkSchedCtx *ctx, WkError *err);

static const char *const known[] = {WK_SCHED_COMMON_KEYS, "defer_above", "max_defer", NULL};
static const WkQueueRules rules = {.name = "energy", .keys = known, .pass = pass, .front = 1};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    Energy *e = priv;
    (void)ctx;
    e->defer_above = 1.0;                 /* dearer than the mean: wait */
    e->max_defer = 24 * WK_NS_PER_H;      /* a day: every cheap hour of a daily curve comes within it */
    int rc = wk_queue_policy_init(&e->base, &rules, params, err);
    if (rc == 0 && params && (rc = wk_node_double(params, "defer_above", 0, 0, 1e6, &e->defer_above, err)) == 0)
        rc = wk_node_duration(params, "max_defer", 0, 0, 365 * WK_NS_PER_DAY, &e->max_defer, err);
    return rc;
}

/* 1 when job waits for cheaper energy now. */
static int deferred(const Energy *e, const WkSchedCtx *ctx, uint32_t job, int dear)
{
    return dear && wk_sched_job_deferrable(ctx, job) &&
           wk_sched_now(ctx) - wk_sched_job_submit(ctx, job) < e->max_defer;
}

static int pass(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Energy *e = priv;
    WkQueuePolicy *p = &e->base;
    double now = wk_sched_price_now(ctx);
    int dear = now > e->defer_above * wk_sched_price_mean(ctx); /* NaN (no prices): never dear */
    size_t i = 0;
    while (i < p->q.n) {
        uint32_t job = wk_queue_at(&p->q, i)->job;
        if (deferred(e, ctx, job, dear)) {
            i++;
            continue;
        }
        int rc = wk_queue_policy_start(p, ctx, job, err);
        if (rc == WK_E_NOROOM)
            return 0;
        if (rc < 0)
            return rc;
        wk_queue_dequeue(p, ctx, i);
    }
    return 0;
}

const WkSchedOps wk_sched_energy = {
    .abi = WK_SCHED_ABI,
    .name = "energy",
    .description = "fifo, but deferrable jobs wait while the price is above defer_above x its mean "
                   "(at most max_defer); give tick so they start when it falls",
    .priv_size = sizeof(Energy),
    .init = init,
    .on_submit = wk_queue_on_submit,
    .on_tick = pass,
    .fini = wk_queue_policy_fini,
    WK_QUEUE_POLICY_OPS,
};
