/* SPDX-License-Identifier: Apache-2.0 */
/* priority.c — strict priority classes: the waiting job with the highest
 * `priority` (FIFO within a class) starts first and, like fifo's head, blocks
 * the jobs behind it until it fits. With `preempt: true` a blocked head
 * preempts running jobs of strictly lower priority when that makes it fit. */
#include "models/sched/queue.h"

#include <stdlib.h>

typedef struct {
    WkQueuePolicy base; /* first: the shared callbacks see a WkQueuePolicy */
    int preempt;        /* `preempt:` option */
} Prio;
WK_QUEUE_POLICY_FIRST(Prio);

static double key(const void *priv, const WkSchedCtx *ctx, uint32_t job);
static int make_room(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err);

static const char *const known[] = {WK_SCHED_COMMON_KEYS, "preempt", NULL};
static const WkQueueRules rules = {
    .name = "priority", .keys = known, .key = key, .make_room = make_room, .track = 1};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    Prio *p = priv;
    (void)ctx;
    int rc = wk_queue_policy_init(&p->base, &rules, params, err);
    if (rc == 0 && params)
        rc = wk_node_bool(params, "preempt", 0, &p->preempt, err);
    return rc;
}

/* Higher priority first. */
static double key(const void *priv, const WkSchedCtx *ctx, uint32_t job)
{
    (void)priv;
    return -(double)wk_sched_job_priority(ctx, job);
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
 * all of them together would make room. On a cluster of several SKUs only
 * GPUs that hold `job` (memory) count, and a job none of whose GPUs would
 * is never a victim. Returns 1 when it now fits, 0 when nothing was
 * preempted (or preemption is off), or a negative code. */
static int make_room(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Prio *p = priv;
    WkRunSet *run = &p->base.run;
    if (!p->preempt)
        return 0;
    uint32_t need = wk_sched_job_gpus(ctx, job);
    int prio = wk_sched_job_priority(ctx, job);
    wk_queue_running_sweep(run, ctx);
    uint64_t room = wk_queue_free_fit(ctx, job);
    size_t nv = 0;
    for (size_t i = 0; i < run->n; i++)
        if (wk_sched_job_priority(ctx, run->job[i]) < prio) {
            uint32_t k = wk_queue_victim_fit(ctx, job, run->job[i]);
            room += k;
            nv += k > 0;
        }
    if (room < need || nv == 0)
        return 0;
    Victim *v = malloc(nv * sizeof *v);
    if (!v)
        return wk_error_nomem(err, "priority");
    nv = 0;
    for (size_t i = 0; i < run->n; i++) {
        uint32_t j = run->job[i];
        int pj = wk_sched_job_priority(ctx, j);
        if (pj < prio && wk_queue_victim_fit(ctx, job, j) > 0)
            v[nv++] = (Victim){.prio = pj, .since = run->since[i], .job = j};
    }
    qsort(v, nv, sizeof *v, cmp_victim);
    int rc = 0;
    for (size_t i = 0; i < nv && wk_queue_free_fit(ctx, job) < need; i++) {
        if ((rc = wk_queue_preempt(ctx, v[i].job, run, err)) < 0)
            break;
        if (rc == 1 && (rc = wk_queue_enqueue(&p->base, ctx, v[i].job, err)) < 0)
            break;
    }
    free(v);
    return rc < 0 ? rc : wk_queue_free_fit(ctx, job) >= need;
}

const WkSchedOps wk_sched_priority = {
    .abi = WK_SCHED_ABI,
    .name = "priority",
    .description = "strict priority classes (higher `priority` first, FIFO within a class); "
                   "option preempt: true preempts lower classes for a blocked head",
    .priv_size = sizeof(Prio),
    .init = init,
    .on_submit = wk_queue_on_submit,
    .fini = wk_queue_policy_fini,
    WK_QUEUE_POLICY_OPS,
};
