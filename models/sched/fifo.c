/* SPDX-License-Identifier: Apache-2.0 */
/* fifo.c — first in, first out: jobs start in strict arrival order with
 * first-fit gang placement; the queue head blocks everything behind it until
 * all its GPUs are free. A job larger than the cluster is rejected at submit. */
#include "models/sched/sched.h"

#include <stdlib.h>

typedef struct {
    uint32_t *q; /* ring buffer of job ids */
    size_t head, n, cap;
    uint32_t *place; /* scratch for placements */
    uint32_t place_cap;
} Fifo;

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    static const char *const known[] = {WK_SCHED_COMMON_KEYS, NULL};
    (void)priv;
    (void)ctx;
    return params ? wk_node_expect_keys(params, known, err) : 0;
}

static int push(Fifo *f, uint32_t job)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 256;
        uint32_t *nq = malloc(nc * sizeof *nq);
        if (!nq)
            return WK_E_NOMEM;
        for (size_t i = 0; i < f->n; i++)
            nq[i] = f->q[(f->head + i) % f->cap];
        free(f->q);
        f->q = nq;
        f->head = 0;
        f->cap = nc;
    }
    f->q[(f->head + f->n) % f->cap] = job;
    f->n++;
    return 0;
}

/* Put job back at the head (a job hit by an incident restarts first). */
static int push_front(Fifo *f, uint32_t job)
{
    if (push(f, job) < 0) /* grows the ring when full; job lands at the tail */
        return WK_E_NOMEM;
    f->n--;
    f->head = (f->head + f->cap - 1) % f->cap;
    f->q[f->head] = job;
    f->n++;
    return 0;
}

static int drain(Fifo *f, WkSchedCtx *ctx, WkError *err)
{
    while (f->n) {
        uint32_t job = f->q[f->head];
        uint32_t need = wk_sched_job_gpus(ctx, job);
        if (need > wk_sched_free_gpus(ctx))
            return 0;
        if (need > f->place_cap) {
            uint32_t *np = realloc(f->place, need * sizeof *np);
            if (!np)
                return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "fifo: out of memory");
            f->place = np;
            f->place_cap = need;
        }
        int rc = wk_sched_place(ctx, need, f->place);
        if (rc == WK_E_NOROOM)
            return 0;
        if (rc == 0)
            rc = wk_sched_start(ctx, job, f->place, need, err);
        if (rc < 0)
            return rc;
        f->head = (f->head + 1) % f->cap;
        f->n--;
    }
    return 0;
}

static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Fifo *f = priv;
    if (wk_sched_job_gpus(ctx, job) > wk_sched_cluster(ctx)->gpus)
        return wk_sched_reject(ctx, job, "needs more GPUs than the cluster has", err);
    if (push(f, job) < 0)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "fifo: out of memory");
    return f->n == 1 ? drain(f, ctx, err) : 0;
}

static int on_release(void *priv, WkSchedCtx *ctx, WkError *err)
{
    return drain(priv, ctx, err);
}

static int on_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err)
{
    Fifo *f = priv;
    for (size_t i = njobs; i-- > 0;) /* jobs[0] ends up at the head */
        if (push_front(f, jobs[i]) < 0)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "fifo: out of memory");
    return drain(f, ctx, err);
}

static size_t queued(const void *priv)
{
    return ((const Fifo *)priv)->n;
}

static void fini(void *priv)
{
    Fifo *f = priv;
    free(f->q);
    free(f->place);
}

const WkSchedOps wk_sched_fifo = {
    .abi = WK_SCHED_ABI,
    .name = "fifo",
    .description = "first in, first out; first-fit gang placement; the queue head blocks the rest",
    .priv_size = sizeof(Fifo),
    .init = init,
    .on_submit = on_submit,
    .on_release = on_release,
    .queued = queued,
    .fini = fini,
    .on_incident = on_incident,
};
