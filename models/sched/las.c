/* SPDX-License-Identifier: Apache-2.0 */
/* las.c — Tiresias-style discretized 2D least attained service (Gu et al.,
 * NSDI'19): K priority queues by attained GPU-seconds (GPUs x time served),
 * FIFO within a queue, jobs sink as their service crosses the thresholds.
 * Preemptive: the jobs that should run are chosen greedily in queue order,
 * and running jobs of lower queues make room for waiting ones of higher
 * queues; a job is never preempted within `preemption_cost` of its start. */
#include "models/sched/queue.h"

#include <stdlib.h>

#define LAS_MAX_QUEUES 16

/* A running job as one evaluation sees it. */
typedef struct {
    uint32_t q;       /* queue index, 0 = highest priority */
    uint8_t pinned;   /* 1: running, started less than the guard ago */
    uint8_t selected; /* 1: should run after this evaluation */
    WkTime submit;
    uint32_t job, gpus;
} Cand;

typedef struct {
    WkQueuePolicy base;                 /* first; waiting jobs keyed by queue index */
    uint32_t nq;                        /* `queues:` */
    double thr[LAS_MAX_QUEUES - 1];     /* `thresholds:`, attained GPU-s, increasing */
    WkTime guard_ns;                    /* `preemption_cost:`: no preemption this soon after a start */
    Cand *cand;                         /* scratch: the running jobs */
    size_t cand_cap;
    WkQueueItem *sel;                   /* scratch: selected waiting jobs, in queue order */
    size_t sel_cap;
} Las;
WK_QUEUE_POLICY_FIRST(Las);

static double key(const void *priv, const WkSchedCtx *ctx, uint32_t job);
static int eval(void *priv, WkSchedCtx *ctx, WkError *err);

static const char *const known[] = {WK_SCHED_COMMON_KEYS, "queues", "thresholds", NULL};
static const WkQueueRules rules = {.name = "las", .keys = known, .key = key, .pass = eval, .track = 1, .by_size = 1};

/* `thresholds:` into l->thr; l->nq = its length + 1. */
static int read_thresholds(Las *l, const WkNode *params, const WkNode *th, int64_t nq, WkError *err)
{
    if (th->type != WK_NODE_SEQ || th->nkids > LAS_MAX_QUEUES - 1)
        return wk_node_error(th, WK_E_INVAL, err, "expected a list of at most %d increasing GPU-second values",
                             LAS_MAX_QUEUES - 1);
    if (wk_node_get(params, "queues") && (size_t)nq != th->nkids + 1)
        return wk_node_error(th, WK_E_INVAL, err, "%zu thresholds for %lld queues: need queues - 1", th->nkids,
                             (long long)nq);
    for (size_t i = 0; i < th->nkids; i++) {
        int rc = wk_node_as_double(th->kids[i], 0, 1e300, &l->thr[i], err);
        if (rc < 0)
            return rc;
        if (l->thr[i] <= (i ? l->thr[i - 1] : 0))
            return wk_node_error(th->kids[i], WK_E_INVAL, err,
                                 "thresholds must be positive and increasing (GPU-seconds)");
    }
    l->nq = (uint32_t)th->nkids + 1;
    return 0;
}

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    Las *l = priv;
    (void)ctx;
    int64_t nq = 2;
    int rc = wk_queue_common_opts(params, NULL, &l->guard_ns, err);
    if (rc == 0)
        rc = wk_queue_policy_init(&l->base, &rules, params, err);
    if (rc == 0 && params)
        rc = wk_node_int(params, "queues", 0, 1, LAS_MAX_QUEUES, &nq, err);
    if (rc < 0)
        return rc;
    const WkNode *th = params ? wk_node_get(params, "thresholds") : NULL;
    if (th && th->type != WK_NODE_NULL)
        return read_thresholds(l, params, th, nq, err);
    l->nq = (uint32_t)nq;
    for (uint32_t i = 0; i + 1 < l->nq; i++)
        l->thr[i] = i ? l->thr[i - 1] * 10 : 3600; /* 1, 10, 100 ... GPU-hours */
    return 0;
}

static uint32_t queue_of(const Las *l, double attained_gpu_s)
{
    uint32_t k = 0;
    while (k + 1 < l->nq && attained_gpu_s >= l->thr[k])
        k++;
    return k;
}

/* The queue a job is in: its place in the waiting queue. */
static double key(const void *priv, const WkSchedCtx *ctx, uint32_t job)
{
    return queue_of(priv, wk_sched_job_attained_gpu_s(ctx, job));
}

/* Running jobs by (queue, submit, job). */
static int cmp_cand(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->q != y->q)
        return x->q < y->q ? -1 : 1;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

/* The running jobs into l->cand, sorted; *cap = the GPUs free plus those
 * of running jobs that may be preempted (not pinned). Returns their count,
 * or WK_E_NOMEM with err filled. */
static long running(Las *l, const WkSchedCtx *ctx, uint64_t *cap, WkError *err)
{
    WkRunSet *run = &l->base.run;
    wk_queue_running_sweep(run, ctx);
    size_t nr = run->n;
    if (nr > l->cand_cap) {
        Cand *nc = realloc(l->cand, nr * sizeof *nc);
        if (!nc)
            return wk_error_nomem(err, "las");
        l->cand = nc;
        l->cand_cap = nr;
    }
    WkTime now = wk_sched_now(ctx);
    *cap = wk_sched_free_gpus(ctx);
    for (size_t i = 0; i < nr; i++) {
        uint32_t j = run->job[i], g = wk_sched_job_gpus(ctx, j);
        int pinned = now - run->since[i] < l->guard_ns;
        l->cand[i] = (Cand){.q = queue_of(l, wk_sched_job_attained_gpu_s(ctx, j)),
                            .pinned = (uint8_t)pinned, .selected = (uint8_t)pinned,
                            .submit = wk_sched_job_submit(ctx, j), .job = j, .gpus = g};
        if (!pinned)
            *cap += g;
    }
    qsort(l->cand, nr, sizeof *l->cand, cmp_cand);
    return (long)nr;
}

/* Merge the nr sorted running jobs with the waiting queue and select
 * greedily within cap GPUs: running jobs get `selected`, waiting ones
 * their items in l->sel (*nsel); *nout = running jobs left out.
 * Returns 0 or WK_E_NOMEM with err filled. */
static int choose(Las *l, const WkSchedCtx *ctx, size_t nr, uint64_t cap, size_t *nsel, size_t *nout,
                  WkError *err)
{
    size_t i = 0;
    *nsel = *nout = 0;
    /* the waiting jobs are visited through the size index: only those that
     * fit in what is left (cap only shrinks, so a skipped job stays out) */
    const WkQueueItem *it = cap > 0 ? wk_queue_next_fit(&l->base, NULL, cap) : NULL;
    while (i < nr || it) {
        if (i < nr && (!it || l->cand[i].q <= (uint32_t)it->key)) {
            Cand *c = &l->cand[i++];
            if (!c->pinned && c->gpus <= cap) {
                c->selected = 1;
                cap -= c->gpus;
            }
            *nout += !c->selected;
            if (it && wk_sched_job_gpus(ctx, it->job) > cap) /* the next fit may no longer fit */
                it = cap > 0 ? wk_queue_next_fit(&l->base, it, cap) : NULL;
            continue;
        }
        uint32_t g = wk_sched_job_gpus(ctx, it->job);
        if (*nsel == l->sel_cap) {
            size_t nc = l->sel_cap ? 2 * l->sel_cap : 64;
            WkQueueItem *ns = realloc(l->sel, nc * sizeof *ns);
            if (!ns)
                return wk_error_nomem(err, "las");
            l->sel = ns;
            l->sel_cap = nc;
        }
        l->sel[(*nsel)++] = *it;
        cap -= g;
        it = cap > 0 ? wk_queue_next_fit(&l->base, it, cap) : NULL;
    }
    return 0;
}

/* Apply a choice: the selected waiting jobs leave the queue, running jobs
 * left out are preempted (and queued), then the selected ones start; one
 * that does not fit after all (a job could not be preempted, or its GPUs
 * went down) waits in the queue. */
static int apply(Las *l, WkSchedCtx *ctx, size_t nr, size_t nsel, WkError *err)
{
    WkQueuePolicy *b = &l->base;
    for (size_t k = 0; k < nsel; k++)
        wk_queue_dequeue_item(b, ctx, &l->sel[k]);
    int rc = 0;
    for (size_t k = 0; k < nr && rc == 0; k++) {
        const Cand *c = &l->cand[k];
        if (!c->selected) {
            rc = wk_queue_preempt(ctx, c->job, &b->run, err);
            if (rc == 1)
                rc = wk_queue_enqueue(b, ctx, c->job, err);
        }
    }
    for (size_t k = 0; k < nsel && rc == 0; k++) {
        uint32_t job = l->sel[k].job;
        rc = wk_queue_policy_start(b, ctx, job, err);
        if (rc == WK_E_NOROOM)
            rc = wk_queue_enqueue(b, ctx, job, err);
    }
    return rc;
}

/* Choose what runs: all jobs in order (queue, running before waiting,
 * submit, job), greedily while GPUs last, pinned jobs first. Running jobs
 * left out are preempted and selected waiting ones start. The waiting queue
 * is already in that order, so only the running jobs are sorted and the two
 * are merged; the scan of waiting jobs stops when no GPU is left. When every
 * waiting job fits in the free GPUs they all start, in queue order. */
static int eval(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Las *l = priv;
    if (wk_queue_queued(&l->base) == 0)
        return 0;
    if (l->base.waiting_gpus <= wk_sched_free_gpus(ctx))
        return wk_queue_drain(&l->base, ctx, err);
    uint64_t cap = 0;
    long nr = running(l, ctx, &cap, err);
    if (nr < 0)
        return (int)nr;
    size_t nsel, nout;
    int rc = choose(l, ctx, (size_t)nr, cap, &nsel, &nout, err);
    if (rc < 0 || (nsel == 0 && nout == 0))
        return rc;
    return apply(l, ctx, (size_t)nr, nsel, err);
}

static void fini(void *priv)
{
    Las *l = priv;
    wk_queue_policy_fini(&l->base);
    free(l->sel);
    free(l->cand);
}

const WkSchedOps wk_sched_las = {
    .abi = WK_SCHED_ABI,
    .name = "las",
    .description = "Tiresias 2D least attained service: queues by attained GPU-seconds, preemptive, "
                   "FIFO within a queue (set tick: for timely demotion)",
    .priv_size = sizeof(Las),
    .init = init,
    .on_submit = wk_queue_on_submit,
    .fini = fini,
    .on_tick = wk_queue_pass,
    WK_QUEUE_POLICY_OPS,
};
