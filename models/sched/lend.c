/* SPDX-License-Identifier: Apache-2.0 */
/* lend.c — a supercomputing site that lends its idle nodes to AI jobs.
 * HPC jobs (`kind: hpc`) are served first, in arrival order, and the first
 * that does not fit blocks the HPC jobs behind it. AI jobs run only on what
 * the HPC jobs leave idle, started in arrival order wherever they fit (a job
 * that does not fit does not block the AI jobs behind it), and they are
 * preemptible capacity: when the HPC head could start if AI jobs gave their
 * nodes back, the newest AI jobs are preempted (whole jobs, newest start
 * first) until it fits, after `reclaim` of notice. With `lend: false` the
 * site serves HPC only and rejects AI jobs at submission. HPC jobs are never
 * preempted. */
#include "models/sched/queue.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    WkJobQueue hpc;    /* waiting HPC jobs, arrival order */
    WkQueuePolicy ai;  /* waiting AI jobs, arrival order, kept by GPU count (wk_queue_next_fit) */
    WkRunSet run;      /* jobs it started, with their start times */
    WkPlaceBuf buf;    /* placement of the job being started */
    WkPlacement how;   /* the scenario's `placement:` */
    int lend;          /* `lend:` 1 = AI jobs may use idle nodes */
    WkTime reclaim;    /* `reclaim:` notice before an HPC job takes AI jobs' nodes, ns */
    uint32_t noticed;  /* the HPC job a notice runs for (UINT32_MAX: none) */
    WkTime notice_end; /* when that notice ends */
    uint32_t *scratch; /* per-node GPUs that are free or held by preemptible AI jobs */
    uint32_t nscratch;
} Lend;

#define NONE UINT32_MAX

/* The AI queue: arrival order, indexed by GPU count, so the pass finds
 * the next AI job that fits the free GPUs without scanning the queue. */
static const WkQueueRules ai_rules = {.name = "lend", .by_size = 1};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    static const char *const known[] = {WK_SCHED_COMMON_KEYS, "lend", "reclaim", NULL};
    Lend *l = priv;
    (void)ctx;
    l->lend = 1;
    l->noticed = NONE;
    int rc = 0;
    if (params && (rc = wk_node_expect_keys(params, known, err)) < 0)
        return rc;
    if ((rc = wk_queue_policy_init(&l->ai, &ai_rules, NULL, err)) < 0)
        return rc;
    if ((rc = wk_queue_common_opts(params, &l->how, NULL, err)) < 0)
        return rc;
    if (params && ((rc = wk_node_bool(params, "lend", 0, &l->lend, err)) < 0 ||
                   (rc = wk_node_duration(params, "reclaim", 0, 0, 30 * WK_NS_PER_DAY, &l->reclaim, err)) < 0))
        return rc;
    return 0;
}

static void fini(void *priv)
{
    Lend *l = priv;
    wk_queue_fini(&l->hpc);
    wk_queue_policy_fini(&l->ai);
    wk_queue_running_fini(&l->run);
    wk_queue_place_fini(&l->buf);
    free(l->scratch);
}

static size_t queued(const void *priv)
{
    const Lend *l = priv;
    return l->hpc.n + wk_queue_queued(&l->ai);
}

static int is_hpc(const WkSchedCtx *ctx, uint32_t job) { return wk_sched_job_kind(ctx, job) == WK_SCHED_JOB_HPC; }

/* Queue job in its kind's queue at its arrival position. */
static int enqueue(Lend *l, const WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    if (!is_hpc(ctx, job))
        return wk_queue_enqueue(&l->ai, ctx, job, err);
    if (wk_queue_push(&l->hpc, 0, wk_sched_job_submit(ctx, job), job) < 0)
        return wk_error_nomem(err, "lend");
    return 0;
}

/* 1 when the running job is an AI job the policy may take back now. */
static int lent(const WkSchedCtx *ctx, uint32_t job) { return !is_hpc(ctx, job) && wk_sched_job_preemptible(ctx, job); }

/* 1 when `need` GPUs could be placed if every lent AI job gave its GPUs
 * back: enough GPUs in all, and under whole-node placement enough GPUs in
 * nodes that would be wholly idle for the job's whole nodes. -1 when out of
 * memory. */
static int could_fit(Lend *l, const WkSchedCtx *ctx, uint32_t need)
{
    uint32_t nodes = wk_sched_nodes(ctx);
    if (l->nscratch < nodes) {
        uint32_t *s = realloc(l->scratch, (size_t)nodes * sizeof *s);
        if (!s)
            return -1;
        l->scratch = s;
        l->nscratch = nodes;
    }
    for (uint32_t n = 0; n < nodes; n++)
        l->scratch[n] = wk_sched_node_free(ctx, n);
    for (size_t i = 0; i < l->run.n; i++) {
        uint32_t k = 0;
        const uint32_t *g = lent(ctx, l->run.job[i]) ? wk_sched_job_placement(ctx, l->run.job[i], &k) : NULL;
        for (uint32_t j = 0; j < k; j++)
            l->scratch[wk_sched_gpu_node(ctx, g[j])]++;
    }
    uint64_t room = 0, whole = 0;
    for (uint32_t n = 0; n < nodes; n++) {
        room += l->scratch[n];
        whole += l->scratch[n] == wk_sched_node_gpus(ctx, n) ? l->scratch[n] : 0;
    }
    uint32_t per = wk_sched_node_gpus(ctx, 0);
    uint64_t in_whole = l->how == WK_PLACE_EXCLUSIVE ? (uint64_t)(need / per) * per : 0;
    return room >= need && whole >= in_whole;
}

typedef struct {
    WkTime since;
    uint32_t job;
} Victim;

/* Newest start first, then the higher job id. */
static int cmp_victim(const void *a, const void *b)
{
    const Victim *x = a, *y = b;
    if (x->since != y->since)
        return x->since > y->since ? -1 : 1;
    return (x->job < y->job) - (x->job > y->job);
}

/* Preempt lent AI jobs, newest first, until `job` can be placed. Returns 1
 * when it now fits, 0 when it waits, or a negative code with err filled. */
static int reclaim(Lend *l, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    uint32_t need = wk_sched_job_gpus(ctx, job);
    size_t nv = 0;
    Victim *v = malloc((l->run.n ? l->run.n : 1) * sizeof *v);
    if (!v)
        return wk_error_nomem(err, "lend");
    for (size_t i = 0; i < l->run.n; i++)
        if (lent(ctx, l->run.job[i]))
            v[nv++] = (Victim){.since = l->run.since[i], .job = l->run.job[i]};
    qsort(v, nv, sizeof *v, cmp_victim);
    int rc = 0, fits = 0;
    if (wk_queue_place_reserve(&l->buf, need) < 0) {
        free(v);
        return wk_error_nomem(err, "lend");
    }
    for (size_t i = 0; i < nv && !fits; i++) {
        if ((rc = wk_queue_preempt(ctx, v[i].job, &l->run, err)) < 0 ||
            (rc == 1 && (rc = enqueue(l, ctx, v[i].job, err)) < 0))
            break;
        if (wk_sched_free_gpus(ctx) >= need) {
            int p = wk_sched_place_job(ctx, job, wk_sched_placement(ctx), l->buf.gpus, NULL, NULL);
            if (p < 0 && p != WK_E_NOROOM) {
                rc = wk_error_set(err, p, NULL, 0, 0, "lend: placement failed");
                break;
            }
            fits = p == 0;
        }
    }
    free(v);
    return rc < 0 ? rc : fits;
}

/* The HPC head does not fit: take lent nodes back when that makes it fit,
 * once its notice has run out. Returns 1 when it now fits, 0 when it waits,
 * or a negative code. */
static int make_room(Lend *l, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    int ok = could_fit(l, ctx, wk_sched_job_gpus(ctx, job));
    if (ok < 0)
        return wk_error_nomem(err, "lend");
    if (!ok) {
        if (l->noticed == job)
            l->noticed = NONE; /* it no longer could: the lent nodes stay lent */
        return 0;
    }
    WkTime now = wk_sched_now(ctx);
    if (l->reclaim > 0 && l->noticed != job) {
        l->noticed = job;
        l->notice_end = now + l->reclaim;
    }
    if (l->reclaim > 0 && now < l->notice_end)
        return 0;
    return reclaim(l, ctx, job, err);
}

/* HPC jobs in order while they fit, reclaiming lent nodes for the head. */
static int pass_hpc(Lend *l, WkSchedCtx *ctx, WkError *err)
{
    while (l->hpc.n) {
        uint32_t job = wk_queue_at(&l->hpc, 0)->job;
        int rc = wk_queue_start(ctx, job, &l->buf, &l->run, err);
        if (rc == WK_E_NOROOM) {
            if ((rc = make_room(l, ctx, job, err)) <= 0)
                return rc; /* waits (0) or an error */
            if ((rc = wk_queue_start(ctx, job, &l->buf, &l->run, err)) == WK_E_NOROOM)
                return 0;
        }
        if (rc < 0)
            return rc;
        wk_queue_remove(&l->hpc, 0);
        if (l->noticed == job)
            l->noticed = NONE;
    }
    return 0;
}

/* AI jobs in order wherever they fit, unless a notice runs (its nodes are
 * about to be taken back): each waiting job asking for no more GPUs than
 * are free is tried, in arrival order. */
static int pass_ai(Lend *l, WkSchedCtx *ctx, WkError *err)
{
    if (l->noticed != NONE)
        return 0;
    const WkQueueItem *x = wk_queue_next_fit(&l->ai, NULL, wk_sched_free_gpus(ctx));
    while (x) {
        WkQueueItem cur = *x;
        int rc = wk_queue_start(ctx, cur.job, &l->buf, &l->run, err);
        if (rc < 0 && rc != WK_E_NOROOM)
            return rc;
        if (rc == 0)
            wk_queue_dequeue_item(&l->ai, ctx, &cur);
        x = wk_queue_next_fit(&l->ai, &cur, wk_sched_free_gpus(ctx));
    }
    return 0;
}

static int pass(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Lend *l = priv;
    wk_queue_running_sweep(&l->run, ctx);
    int rc = pass_hpc(l, ctx, err);
    return rc < 0 ? rc : pass_ai(l, ctx, err);
}

static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Lend *l = priv;
    const char *why = wk_queue_never_fits(ctx, job);
    if (!why && !l->lend && !is_hpc(ctx, job))
        why = "an AI job at a site that does not lend (lend: false)";
    if (why)
        return wk_sched_reject(ctx, job, why, err);
    int rc = enqueue(l, ctx, job, err);
    return rc < 0 ? rc : pass(priv, ctx, err);
}

static int on_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err)
{
    Lend *l = priv;
    for (size_t i = 0; i < njobs; i++) {
        wk_queue_running_remove(&l->run, jobs[i]);
        int rc = enqueue(l, ctx, jobs[i], err);
        if (rc < 0)
            return rc;
    }
    return pass(priv, ctx, err);
}

const WkSchedOps wk_sched_lend = {
    .abi = WK_SCHED_ABI,
    .name = "lend",
    .description = "a supercomputing site: hpc jobs first (FIFO); AI jobs borrow idle nodes and are preempted "
                   "(newest first, after `reclaim` notice) when an hpc job needs them; lend: false rejects AI jobs",
    .priv_size = sizeof(Lend),
    .init = init,
    .on_submit = on_submit,
    .on_release = pass,
    .on_tick = pass,
    .queued = queued,
    .fini = fini,
    .on_incident = on_incident,
};

int wk_sched_lend_accepts_ai(const WkNode *sched, int *out, WkError *err)
{
    *out = 1;
    if (!sched || sched->type != WK_NODE_MAP)
        return 0; /* a name alone: lend's default lends, other policies take AI jobs */
    const char *name = NULL;
    int rc = wk_node_str(sched, "name", 0, &name, err);
    if (rc < 0 || !name || strcmp(name, "lend") != 0)
        return rc < 0 ? rc : 0;
    return wk_node_bool(sched, "lend", 0, out, err);
}
