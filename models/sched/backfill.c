/* SPDX-License-Identifier: Apache-2.0 */
/* backfill.c — EASY backfilling (Lifka 1995): a FIFO queue whose head, when
 * it cannot start, gets a reservation at the shadow time (the earliest time
 * enough GPUs free up, from the running jobs' expected remaining times);
 * later jobs start now if they fit and either end by the shadow time or use
 * only the GPUs the head will not need then. Non-preemptive. */
#include "models/sched/queue.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    double end_s; /* expected seconds from now until it ends */
    uint32_t gpus;
    uint32_t job;
} Ending;

typedef struct {
    WkQueuePolicy base; /* first: the shared callbacks see a WkQueuePolicy */
    Ending *end;        /* scratch for the shadow computation */
    size_t end_cap;
} Backfill;
WK_QUEUE_POLICY_FIRST(Backfill);

static int pass(void *priv, WkSchedCtx *ctx, WkError *err);

static const WkQueueRules rules = {.name = "backfill", .pass = pass, .track = 1};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)ctx;
    return wk_queue_policy_init(priv, &rules, params, err);
}

static int cmp_end(const void *a, const void *b)
{
    const Ending *x = a, *y = b;
    if (x->end_s != y->end_s)
        return x->end_s < y->end_s ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

/* The head's reservation: *shadow_s (seconds from now; INFINITY when the
 * running jobs never free enough GPUs, e.g. with GPUs down) and *extra, the
 * GPUs free at that time beyond the head's need. */
static int reservation(Backfill *b, const WkSchedCtx *ctx, uint32_t need, double *shadow_s, uint64_t *extra,
                       WkError *err)
{
    const WkRunSet *run = &b->base.run;
    wk_queue_running_sweep(&b->base.run, ctx);
    if (run->n > b->end_cap) {
        Ending *ne = realloc(b->end, run->n * sizeof *ne);
        if (!ne)
            return wk_error_nomem(err, "backfill");
        b->end = ne;
        b->end_cap = run->n;
    }
    for (size_t i = 0; i < run->n; i++) {
        uint32_t j = run->job[i];
        double left = wk_sched_job_remaining_s(ctx, j);
        b->end[i] = (Ending){.end_s = left > 0 ? left : 0, .gpus = wk_sched_job_gpus(ctx, j), .job = j};
    }
    qsort(b->end, run->n, sizeof *b->end, cmp_end);
    uint64_t avail = wk_sched_free_gpus(ctx);
    *shadow_s = INFINITY;
    *extra = 0;
    for (size_t i = 0; i < run->n; i++) {
        avail += b->end[i].gpus;
        if (avail >= need) {
            *shadow_s = b->end[i].end_s;
            *extra = avail - need;
            break;
        }
    }
    return 0;
}

static int pass(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Backfill *b = priv;
    WkJobQueue *q = &b->base.q;
    /* the head and the jobs after it, in order, while they fit */
    int rc = wk_queue_drain(&b->base, ctx, err);
    if (rc < 0 || q->n < 2 || wk_sched_free_gpus(ctx) == 0)
        return rc;
    double shadow_s;
    uint64_t extra;
    if ((rc = reservation(b, ctx, wk_sched_job_gpus(ctx, wk_queue_at(q, 0)->job), &shadow_s, &extra, err)) < 0)
        return rc;
    for (size_t i = 1; i < q->n && wk_sched_free_gpus(ctx) > 0;) {
        uint32_t job = wk_queue_at(q, i)->job, need = wk_sched_job_gpus(ctx, job);
        int ends_before = 0;
        if (need <= wk_sched_free_gpus(ctx))
            ends_before = wk_sched_job_remaining_s(ctx, job) <= shadow_s;
        if (need > wk_sched_free_gpus(ctx) || (!ends_before && need > extra)) {
            i++;
            continue;
        }
        rc = wk_queue_policy_start(&b->base, ctx, job, err);
        if (rc == WK_E_NOROOM) {
            i++;
            continue;
        }
        if (rc < 0)
            return rc;
        if (!ends_before)
            extra -= need;
        wk_queue_dequeue(&b->base, ctx, i);
    }
    return 0;
}

/* A newcomer joins the tail: nothing changes unless it could start now. */
static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Backfill *b = priv;
    int rc = wk_queue_admit(&b->base, ctx, job, err);
    if (rc <= 0)
        return rc;
    if (b->base.q.n > 1 && wk_sched_job_gpus(ctx, job) > wk_sched_free_gpus(ctx))
        return 0;
    return pass(b, ctx, err);
}

static void fini(void *priv)
{
    Backfill *b = priv;
    wk_queue_policy_fini(&b->base);
    free(b->end);
}

const WkSchedOps wk_sched_backfill = {
    .abi = WK_SCHED_ABI,
    .name = "backfill",
    .description = "EASY backfill (Lifka 1995): FIFO; the blocked head holds a reservation, later jobs "
                   "start if they do not delay it",
    .priv_size = sizeof(Backfill),
    .init = init,
    .on_submit = on_submit,
    .fini = fini,
    WK_QUEUE_POLICY_OPS,
};
