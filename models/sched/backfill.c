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
    WkJobQueue q;
    WkRunSet run;
    WkPlaceBuf buf;
    Ending *end; /* scratch for the shadow computation */
    size_t end_cap;
} Backfill;

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    static const char *const known[] = {WK_SCHED_COMMON_KEYS, NULL};
    (void)priv;
    (void)ctx;
    return params ? wk_node_expect_keys(params, known, err) : 0;
}

static int enqueue(Backfill *b, const WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    if (wk_queue_push(&b->q, 0, wk_sched_job_submit(ctx, job), job) < 0)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "backfill: out of memory");
    return 0;
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
    wk_queue_running_sweep(&b->run, ctx);
    if (b->run.n > b->end_cap) {
        Ending *ne = realloc(b->end, b->run.n * sizeof *ne);
        if (!ne)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "backfill: out of memory");
        b->end = ne;
        b->end_cap = b->run.n;
    }
    for (size_t i = 0; i < b->run.n; i++) {
        uint32_t j = b->run.job[i];
        double left = wk_sched_job_remaining_s(ctx, j);
        b->end[i] = (Ending){.end_s = left > 0 ? left : 0, .gpus = wk_sched_job_gpus(ctx, j), .job = j};
    }
    qsort(b->end, b->run.n, sizeof *b->end, cmp_end);
    uint64_t avail = wk_sched_free_gpus(ctx);
    *shadow_s = INFINITY;
    *extra = 0;
    for (size_t i = 0; i < b->run.n; i++) {
        avail += b->end[i].gpus;
        if (avail >= need) {
            *shadow_s = b->end[i].end_s;
            *extra = avail - need;
            break;
        }
    }
    return 0;
}

static int pass(Backfill *b, WkSchedCtx *ctx, WkError *err)
{
    int rc;
    /* the head and the jobs after it, in order, while they fit */
    while (b->q.n) {
        rc = wk_queue_start(ctx, wk_queue_at(&b->q, 0)->job, &b->buf, &b->run, err);
        if (rc == WK_E_NOROOM)
            break;
        if (rc < 0)
            return rc;
        wk_queue_remove(&b->q, 0);
    }
    if (b->q.n < 2 || wk_sched_free_gpus(ctx) == 0)
        return 0;
    double shadow_s;
    uint64_t extra;
    if ((rc = reservation(b, ctx, wk_sched_job_gpus(ctx, wk_queue_at(&b->q, 0)->job), &shadow_s, &extra, err)) < 0)
        return rc;
    for (size_t i = 1; i < b->q.n && wk_sched_free_gpus(ctx) > 0;) {
        uint32_t job = wk_queue_at(&b->q, i)->job, need = wk_sched_job_gpus(ctx, job);
        int ends_before = 0;
        if (need <= wk_sched_free_gpus(ctx))
            ends_before = wk_sched_job_remaining_s(ctx, job) <= shadow_s;
        if (need > wk_sched_free_gpus(ctx) || (!ends_before && need > extra)) {
            i++;
            continue;
        }
        rc = wk_queue_start(ctx, job, &b->buf, &b->run, err);
        if (rc == WK_E_NOROOM) {
            i++;
            continue;
        }
        if (rc < 0)
            return rc;
        if (!ends_before)
            extra -= need;
        wk_queue_remove(&b->q, i);
    }
    return 0;
}

static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Backfill *b = priv;
    const char *why = wk_queue_never_fits(ctx, job);
    if (why)
        return wk_sched_reject(ctx, job, why, err);
    int rc = enqueue(b, ctx, job, err);
    if (rc < 0)
        return rc;
    /* a newcomer joins the tail: nothing changes unless it could start now */
    if (b->q.n > 1 && wk_sched_job_gpus(ctx, job) > wk_sched_free_gpus(ctx))
        return 0;
    return pass(b, ctx, err);
}

static int on_release(void *priv, WkSchedCtx *ctx, WkError *err)
{
    return pass(priv, ctx, err);
}

static int on_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err)
{
    Backfill *b = priv;
    for (size_t i = 0; i < njobs; i++) {
        wk_queue_running_remove(&b->run, jobs[i]);
        int rc = enqueue(b, ctx, jobs[i], err);
        if (rc < 0)
            return rc;
    }
    return pass(b, ctx, err);
}

static size_t queued(const void *priv)
{
    return ((const Backfill *)priv)->q.n;
}

static void fini(void *priv)
{
    Backfill *b = priv;
    wk_queue_fini(&b->q);
    wk_queue_running_fini(&b->run);
    wk_queue_place_fini(&b->buf);
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
    .on_release = on_release,
    .queued = queued,
    .fini = fini,
    .on_incident = on_incident,
};
