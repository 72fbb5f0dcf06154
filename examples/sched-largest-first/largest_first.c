/* SPDX-License-Identifier: Apache-2.0 */
/* largest_first.c — an out-of-tree wanka scheduling policy: the waiting job
 * with the most GPUs starts first (ties: earlier submit, then lower job id),
 * placed by the scenario's `placement:` through wk_sched_place_job (on
 * GPUs whose memory holds it). By default
 * the head of that order blocks the jobs behind it until it fits (no job
 * overtakes a larger one); with `skip: true` smaller jobs that fit start
 * while it waits. A job larger than the cluster is rejected. Built against
 * the installed <wanka/sched.h> only; loaded with `wanka run --plugin`. */
#include <stdlib.h>
#include <string.h>

#include <wanka/sched.h>

typedef struct Policy {
    uint32_t *q;   /* waiting jobs, in start order (owned) */
    size_t n, cap;
    uint32_t *gpus; /* placement scratch (owned) */
    uint32_t ngpus;
    int skip;      /* `skip: true`: smaller jobs may pass a head that does not fit */
} Policy;

/* 1 when job a goes before job b. */
static int before(const WkSchedCtx *ctx, uint32_t a, uint32_t b)
{
    uint32_t ga = wk_sched_job_gpus(ctx, a), gb = wk_sched_job_gpus(ctx, b);
    if (ga != gb)
        return ga > gb;
    WkTime sa = wk_sched_job_submit(ctx, a), sb = wk_sched_job_submit(ctx, b);
    if (sa != sb)
        return sa < sb;
    return a < b;
}

static int enqueue(Policy *p, const WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        uint32_t *q = realloc(p->q, cap * sizeof *q);
        if (!q)
            return wk_error_nomem(err, "largest-first queue");
        p->q = q;
        p->cap = cap;
    }
    size_t i = p->n;
    while (i > 0 && before(ctx, job, p->q[i - 1])) {
        p->q[i] = p->q[i - 1];
        i--;
    }
    p->q[i] = job;
    p->n++;
    return 0;
}

/* Start waiting jobs in order while they fit. */
static int pass(Policy *p, WkSchedCtx *ctx, WkError *err)
{
    size_t i = 0;
    while (i < p->n) {
        uint32_t job = p->q[i], n = wk_sched_job_gpus(ctx, job);
        if (n > p->ngpus) {
            uint32_t *g = realloc(p->gpus, (size_t)n * sizeof *g);
            if (!g)
                return wk_error_nomem(err, "largest-first placement");
            p->gpus = g;
            p->ngpus = n;
        }
        /* only on GPUs where the job fits (memory, on a cluster of several SKUs) */
        int rc = n <= wk_sched_free_gpus(ctx)
                     ? wk_sched_place_job(ctx, job, wk_sched_placement(ctx), p->gpus, NULL, NULL)
                     : WK_E_NOROOM;
        if (rc == WK_E_NOROOM) {
            if (!p->skip)
                return 0;
            i++;
            continue;
        }
        if (rc < 0)
            return rc;
        /* out of the queue before the start: the host may call back */
        memmove(p->q + i, p->q + i + 1, (p->n - i - 1) * sizeof *p->q);
        p->n--;
        if ((rc = wk_sched_start(ctx, job, p->gpus, n, err)) == WK_E_NOROOM) {
            /* a facility power budget has no room for it now: back in its place */
            memmove(p->q + i + 1, p->q + i, (p->n - i) * sizeof *p->q);
            p->q[i] = job;
            p->n++;
            if (!p->skip)
                return 0;
            i++;
            continue;
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    static const char *const known[] = {WK_SCHED_COMMON_KEYS, "skip", NULL};
    Policy *p = priv;
    (void)ctx;
    if (!params)
        return 0;
    int rc = wk_node_expect_keys(params, known, err);
    return rc < 0 ? rc : wk_node_bool(params, "skip", 0, &p->skip, err);
}

static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Policy *p = priv;
    if (wk_sched_job_gpus(ctx, job) > wk_sched_gpus(ctx))
        return wk_sched_reject(ctx, job, "needs more GPUs than the cluster has", err);
    int rc = enqueue(p, ctx, job, err);
    return rc < 0 ? rc : pass(p, ctx, err);
}

static int on_release(void *priv, WkSchedCtx *ctx, WkError *err) { return pass(priv, ctx, err); }

/* Jobs stopped by a failure wait again in the same order as newcomers. */
static int on_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err)
{
    for (size_t i = 0; i < njobs; i++) {
        int rc = enqueue(priv, ctx, jobs[i], err);
        if (rc < 0)
            return rc;
    }
    return pass(priv, ctx, err);
}

static size_t queued(const void *priv) { return ((const Policy *)priv)->n; }

static void fini(void *priv)
{
    Policy *p = priv;
    free(p->q);
    free(p->gpus);
}

static const WkSchedOps ops = {
    .abi = WK_SCHED_ABI,
    .name = "largest-first",
    .description = "the waiting job with the most GPUs first; placement by `placement:`; skip: true lets smaller jobs pass",
    .priv_size = sizeof(Policy),
    .init = init,
    .on_submit = on_submit,
    .on_release = on_release,
    .queued = queued,
    .fini = fini,
    .on_incident = on_incident,
};

const WkSchedOps *wk_sched_plugin(void);
const WkSchedOps *wk_sched_plugin(void) { return &ops; }
