/* SPDX-License-Identifier: Apache-2.0 */
/* priority.c — strict priority classes: the waiting job with the highest
 * `priority` (FIFO within a class) starts first and, like fifo's head, blocks
 * the jobs behind it until it fits. With `preempt: true` a blocked head
 * preempts running jobs of strictly lower priority when that makes it fit. */
#include "models/sched/queue.h"

#include <stdlib.h>

typedef struct {
    WkJobQueue q;
    WkRunSet run;
    WkPlaceBuf buf;
    int preempt; /* `preempt:` option */
} Prio;

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    static const char *const known[] = {WK_SCHED_COMMON_KEYS, "preempt", NULL};
    Prio *p = priv;
    (void)ctx;
    if (!params)
        return 0;
    int rc = wk_node_expect_keys(params, known, err);
    if (rc == 0)
        rc = wk_node_bool(params, "preempt", 0, &p->preempt, err);
    return rc;
}

static int enqueue(Prio *p, const WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    if (wk_queue_push(&p->q, -(double)wk_sched_job_priority(ctx, job), wk_sched_job_submit(ctx, job), job) < 0)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "priority: out of memory");
    return 0;
}

typedef struct {
    int prio;
    WkTime since;
    uint32_t job;
} Victim;

/* Victim order: lowest priority first, then the most recently started. */
static int cmp_victim(const void *a, const void *b)
{
    const Victim *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio < y->prio ? -1 : 1;
    if (x->since != y->since)
        return x->since > y->since ? -1 : 1;
    return (x->job < y->job) - (x->job > y->job);
}

/* Preempt running jobs of lower priority than `job` until it fits; only when
 * all of them together would make room. Returns 1 when it now fits, 0 when
 * nothing was preempted, or a negative code. */
static int make_room(Prio *p, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    uint32_t need = wk_sched_job_gpus(ctx, job);
    int prio = wk_sched_job_priority(ctx, job);
    wk_queue_running_sweep(&p->run, ctx);
    uint64_t room = wk_sched_free_gpus(ctx);
    size_t nv = 0;
    for (size_t i = 0; i < p->run.n; i++)
        if (wk_sched_job_priority(ctx, p->run.job[i]) < prio) {
            room += wk_sched_job_gpus(ctx, p->run.job[i]);
            nv++;
        }
    if (room < need || nv == 0)
        return 0;
    Victim *v = malloc(nv * sizeof *v);
    if (!v)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "priority: out of memory");
    nv = 0;
    for (size_t i = 0; i < p->run.n; i++) {
        uint32_t j = p->run.job[i];
        int pj = wk_sched_job_priority(ctx, j);
        if (pj < prio)
            v[nv++] = (Victim){.prio = pj, .since = p->run.since[i], .job = j};
    }
    qsort(v, nv, sizeof *v, cmp_victim);
    int rc = 0;
    for (size_t i = 0; i < nv && wk_sched_free_gpus(ctx) < need; i++) {
        if ((rc = wk_queue_preempt(ctx, v[i].job, &p->run, err)) < 0)
            break;
        if (rc == 1 && (rc = enqueue(p, ctx, v[i].job, err)) < 0)
            break;
    }
    free(v);
    return rc < 0 ? rc : wk_sched_free_gpus(ctx) >= need;
}

static int drain(Prio *p, WkSchedCtx *ctx, WkError *err)
{
    while (p->q.n) {
        uint32_t job = wk_queue_at(&p->q, 0)->job;
        int rc = wk_queue_start(ctx, job, &p->buf, &p->run, err);
        if (rc == WK_E_NOROOM && p->preempt) {
            if ((rc = make_room(p, ctx, job, err)) <= 0)
                return rc;
            rc = wk_queue_start(ctx, job, &p->buf, &p->run, err);
        }
        if (rc == WK_E_NOROOM)
            return 0;
        if (rc < 0)
            return rc;
        wk_queue_remove(&p->q, 0);
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
    Prio *p = priv;
    for (size_t i = 0; i < njobs; i++) {
        wk_queue_running_remove(&p->run, jobs[i]);
        int rc = enqueue(p, ctx, jobs[i], err);
        if (rc < 0)
            return rc;
    }
    return drain(p, ctx, err);
}

static size_t queued(const void *priv)
{
    return ((const Prio *)priv)->q.n;
}

static void fini(void *priv)
{
    Prio *p = priv;
    wk_queue_fini(&p->q);
    wk_queue_running_fini(&p->run);
    wk_queue_place_fini(&p->buf);
}

const WkSchedOps wk_sched_priority = {
    .abi = WK_SCHED_ABI,
    .name = "priority",
    .description = "strict priority classes (higher `priority` first, FIFO within a class); "
                   "option preempt: true preempts lower classes for a blocked head",
    .priv_size = sizeof(Prio),
    .init = init,
    .on_submit = on_submit,
    .on_release = on_release,
    .queued = queued,
    .fini = fini,
    .on_incident = on_incident,
};
