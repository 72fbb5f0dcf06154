/* SPDX-License-Identifier: Apache-2.0 */
/* hetero.c — heterogeneity-aware placement in FIFO order (the head blocks,
 * as in fifo): the head is placed, by the scenario's `placement:`, inside
 * each SKU node group that has enough free GPUs, and starts in the group
 * where its iteration time is shortest (model jobs; the same GPU count
 * everywhere, so also the fewest GPU-seconds per iteration) or, for plain
 * jobs, the group with the highest BF16 peak. A job larger than every group
 * spans groups; with `span: true`, so does one no single group has room for. */
#include "models/sched/queue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { KIND_UNKNOWN = 0, KIND_PLAIN, KIND_MODEL };

typedef struct {
    WkQueuePolicy base; /* first: the shared callbacks see a WkQueuePolicy */
    WkPlaceBuf cand;    /* scratch: a candidate placement in one group */
    WkPlacement how;  /* the scenario's `placement:` */
    int span;         /* `span:`: when no group has room, place across groups */
    uint8_t *kind;    /* [jobs seen] KIND_*: does the perf model know the job */
    size_t kind_cap;
    uint32_t *probe;  /* scratch: a GPU list for the submit-time probe */
    uint32_t probe_cap;
} Hetero;
WK_QUEUE_POLICY_FIRST(Hetero);

typedef struct {
    uint32_t lo, hi; /* GPU range [lo, hi) of a node group */
} Range;

static int in_range(uint32_t gpu, void *user)
{
    const Range *r = user;
    return gpu >= r->lo && gpu < r->hi;
}

static Range group_range(const WkNodeGroup *g)
{
    return (Range){g->first_gpu, g->first_gpu + g->nodes * g->gpus_per_node};
}

static int place(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t need, uint32_t *out);

static const char *const known[] = {WK_SCHED_COMMON_KEYS, "span", NULL};
static const WkQueueRules rules = {.name = "hetero", .keys = known, .place = place};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    Hetero *h = priv;
    (void)ctx;
    int rc = wk_queue_policy_init(&h->base, &rules, params, err);
    if (rc == 0 && params)
        rc = wk_node_bool(params, "span", 0, &h->span, err);
    return rc < 0 ? rc : wk_queue_common_opts(params, &h->how, NULL, err);
}

/* Model job or plain job, decided once at submit: a model job has a finite
 * iteration time on the first GPUs of some group that can hold it (or of the
 * cluster when no group can). */
static int probe_kind(Hetero *h, const WkSchedCtx *ctx, uint32_t job)
{
    const WkCluster *c = wk_sched_cluster(ctx);
    uint32_t need = wk_sched_job_gpus(ctx, job);
    if (need > h->probe_cap) {
        uint32_t *np = realloc(h->probe, (size_t)need * sizeof *np);
        if (!np)
            return WK_E_NOMEM;
        h->probe = np;
        h->probe_cap = need;
    }
    int any_group = 0;
    for (uint32_t k = 0; k < c->ngroups; k++) {
        Range r = group_range(&c->groups[k]);
        if (r.hi - r.lo < need)
            continue;
        any_group = 1;
        for (uint32_t i = 0; i < need; i++)
            h->probe[i] = r.lo + i;
        if (!isnan(wk_sched_job_iter_s_on(ctx, job, h->probe, need)))
            return KIND_MODEL;
    }
    if (!any_group) {
        for (uint32_t i = 0; i < need; i++)
            h->probe[i] = i;
        if (!isnan(wk_sched_job_iter_s_on(ctx, job, h->probe, need)))
            return KIND_MODEL;
    }
    return KIND_PLAIN;
}

/* Place the job's need GPUs into out: the best group by score; across
 * groups when it is larger than every group, or (with `span: true`) when no
 * group has room now. Returns 0 or WK_E_NOROOM / WK_E_NOMEM. */
static int place(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t need, uint32_t *out)
{
    Hetero *h = priv;
    const WkCluster *c = wk_sched_cluster(ctx);
    if (wk_queue_place_reserve(&h->cand, need) < 0)
        return WK_E_NOMEM;
    int model = h->kind[job] == KIND_MODEL, found = 0, any_group = 0;
    double best = INFINITY;
    for (uint32_t k = 0; k < c->ngroups; k++) {
        const WkNodeGroup *g = &c->groups[k];
        Range r = group_range(g);
        if (r.hi - r.lo < need)
            continue;
        any_group = 1;
        uint32_t nfree = 0;
        for (uint32_t nd = g->first_node; nd < g->first_node + g->nodes; nd++)
            nfree += wk_sched_node_free(ctx, nd);
        if (nfree < need)
            continue;
        int rc = wk_sched_place_job(ctx, job, h->how, h->cand.gpus, in_range, &r);
        if (rc == WK_E_NOROOM)
            continue;
        if (rc < 0)
            return rc;
        double score = model ? wk_sched_job_iter_s_on(ctx, job, h->cand.gpus, need) : -g->sku->bf16_flops;
        if (isnan(score) || (found && score >= best))
            continue;
        best = score;
        found = 1;
        memcpy(out, h->cand.gpus, (size_t)need * sizeof *h->cand.gpus);
    }
    if (found)
        return 0;
    if (any_group && !h->span)
        return WK_E_NOROOM;
    return wk_sched_place_job(ctx, job, h->how, out, NULL, NULL);
}

static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Hetero *h = priv;
    const char *why = wk_queue_never_fits(ctx, job);
    if (why)
        return wk_sched_reject(ctx, job, why, err);
    if (job >= h->kind_cap) {
        size_t nc = h->kind_cap ? h->kind_cap : 1024;
        while (nc <= job)
            nc *= 2;
        uint8_t *nk = realloc(h->kind, nc);
        if (!nk)
            return wk_error_nomem(err, "hetero");
        memset(nk + h->kind_cap, KIND_UNKNOWN, nc - h->kind_cap);
        h->kind = nk;
        h->kind_cap = nc;
    }
    int kind = probe_kind(h, ctx, job);
    if (kind < 0)
        return wk_error_nomem(err, "hetero");
    h->kind[job] = (uint8_t)kind;
    int rc = wk_queue_enqueue(&h->base, ctx, job, err);
    return rc < 0 ? rc : h->base.q.n == 1 ? wk_queue_drain(&h->base, ctx, err) : 0;
}

static void fini(void *priv)
{
    Hetero *h = priv;
    wk_queue_policy_fini(&h->base);
    wk_queue_place_fini(&h->cand);
    free(h->kind);
    free(h->probe);
}

const WkSchedOps wk_sched_hetero = {
    .abi = WK_SCHED_ABI,
    .name = "hetero",
    .description = "heterogeneity-aware, FIFO order: the SKU group where the job's iteration time is "
                   "shortest (plain jobs: highest BF16 peak)",
    .priv_size = sizeof(Hetero),
    .init = init,
    .on_submit = on_submit,
    .fini = fini,
    WK_QUEUE_POLICY_OPS,
};
