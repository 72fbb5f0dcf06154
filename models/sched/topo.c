/* SPDX-License-Identifier: Apache-2.0 */
/* topo.c — topology-aware packing in FIFO order (the head blocks, as in
 * fifo, so a comparison with fifo isolates placement): a job goes into one
 * node if it can, else under one leaf switch, else into one pod, else across
 * the fewest pods, choosing the tightest fit at each level. Its own placement
 * replaces the scenario's `placement:`. */
#include "models/sched/queue.h"

#include <stdlib.h>

/* A candidate node and its sort keys. */
typedef struct {
    uint32_t bfree, block, nfree, node;
} Cand;

typedef struct {
    WkQueuePolicy base; /* first: the shared callbacks see a WkQueuePolicy */
    /* leaf blocks: the nodes whose NICs hang off the same leaf switches (a
     * rail-optimized leaf group, or one leaf of a plain fat-tree) */
    uint32_t *node_block; /* [nodes] block id, built at the first placement */
    uint32_t nblocks;
    uint32_t *block_free; /* [nblocks] scratch */
    uint32_t *order;      /* [nodes] scratch: candidate nodes */
    uint32_t *key;        /* [nodes] scratch: free GPUs per node */
    Cand *cand;           /* [nodes] scratch: candidates with their sort keys */
} Topo;
WK_QUEUE_POLICY_FIRST(Topo);

static int place_job(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t n, uint32_t *out);

static const WkQueueRules rules = {.name = "topo", .place = place_job};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)ctx;
    return wk_queue_policy_init(priv, &rules, params, err);
}

/* Block of a node: the leaf of its first GPU's NIC. In a rail-optimized
 * fabric nodes that share the rail-0 leaf share every rail's leaf; without a
 * fabric every node is its own block. */
static int build_blocks(Topo *t, const WkCluster *c)
{
    t->node_block = malloc((size_t)c->nodes * sizeof *t->node_block);
    t->order = malloc((size_t)c->nodes * sizeof *t->order);
    t->key = malloc((size_t)c->nodes * sizeof *t->key);
    t->cand = malloc((size_t)c->nodes * sizeof *t->cand);
    if (!t->node_block || !t->order || !t->key || !t->cand)
        return WK_E_NOMEM;
    int fabric = c->fabric.spec.kind != WK_FABRIC_NONE;
    t->nblocks = fabric ? c->fabric.leaves : c->nodes;
    for (uint32_t nd = 0; nd < c->nodes; nd++) {
        uint32_t b = fabric ? wk_cluster_leaf_of(c, c->node_first_gpu[nd]) : nd;
        t->node_block[nd] = b < t->nblocks ? b : t->nblocks - 1;
    }
    t->block_free = calloc(t->nblocks ? t->nblocks : 1, sizeof *t->block_free);
    return t->block_free ? 0 : WK_E_NOMEM;
}

/* Take free GPUs from nodes order[0..m) in that order until n are taken. */
static uint32_t take(const WkSchedCtx *ctx, const WkCluster *c, const uint32_t *order, uint32_t m, uint32_t n,
                     uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < m && k < n; i++)
        for (uint32_t g = c->node_first_gpu[order[i]]; g < c->node_first_gpu[order[i] + 1] && k < n; g++)
            if (wk_sched_gpu_is_free(ctx, g))
                out[k++] = g;
    return k;
}

/* Fullest blocks first (fewest leaves), blocks kept together, then the
 * fullest nodes (fewest nodes), then node id. */
static int cmp_cand(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->bfree != y->bfree)
        return x->bfree > y->bfree ? -1 : 1;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    if (x->nfree != y->nfree)
        return x->nfree > y->nfree ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

/* Place n GPUs: one node (pack's tightest node), else the tightest leaf
 * block, else the tightest pod with its fullest blocks and nodes first, else
 * pack across pods. Returns 0 or WK_E_NOROOM / WK_E_NOMEM. */
static int place(Topo *t, const WkSchedCtx *ctx, uint32_t n, uint32_t *out)
{
    const WkCluster *c = wk_sched_cluster(ctx);
    if (n > wk_sched_free_gpus(ctx))
        return WK_E_NOROOM;
    if (!t->node_block && build_blocks(t, c) < 0)
        return WK_E_NOMEM;
    uint32_t maxnode = 0;
    for (uint32_t nd = 0; nd < c->nodes; nd++) {
        uint32_t f = wk_sched_node_free(ctx, nd);
        if (f > maxnode)
            maxnode = f;
    }
    if (n <= maxnode)
        return wk_sched_place_with(ctx, WK_PLACE_PACK, n, out, NULL, NULL);
    /* per-block free GPUs (t->key holds per-node free counts for sorting) */
    for (uint32_t b = 0; b < t->nblocks; b++)
        t->block_free[b] = 0;
    for (uint32_t nd = 0; nd < c->nodes; nd++) {
        t->key[nd] = wk_sched_node_free(ctx, nd);
        t->block_free[t->node_block[nd]] += t->key[nd];
    }
    uint32_t best = UINT32_MAX;
    for (uint32_t b = 0; b < t->nblocks; b++)
        if (t->block_free[b] >= n && (best == UINT32_MAX || t->block_free[b] < t->block_free[best]))
            best = b;
    uint32_t m = 0;
    if (best != UINT32_MAX) {
        for (uint32_t nd = 0; nd < c->nodes; nd++)
            if (t->node_block[nd] == best && t->key[nd])
                t->order[m++] = nd;
    } else {
        uint32_t pod = UINT32_MAX, podfree = 0;
        for (uint32_t p = 0; p < c->pods; p++) {
            uint32_t f = wk_sched_pod_free(ctx, p);
            if (f >= n && (pod == UINT32_MAX || f < podfree)) {
                pod = p;
                podfree = f;
            }
        }
        if (pod == UINT32_MAX)
            return wk_sched_place_with(ctx, WK_PLACE_PACK, n, out, NULL, NULL);
        for (uint32_t nd = 0; nd < c->nodes; nd++)
            if (c->node_pod[nd] == pod && t->key[nd])
                t->order[m++] = nd;
    }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t nd = t->order[i], b = t->node_block[nd];
        t->cand[i] = (Cand){.bfree = t->block_free[b], .block = b, .nfree = t->key[nd], .node = nd};
    }
    qsort(t->cand, m, sizeof *t->cand, cmp_cand);
    for (uint32_t i = 0; i < m; i++)
        t->order[i] = t->cand[i].node;
    return take(ctx, c, t->order, m, n, out) == n ? 0 : WK_E_NOROOM;
}

static int place_job(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t n, uint32_t *out)
{
    (void)job;
    return place(priv, ctx, n, out);
}

/* A newcomer joins the tail: the queue is only tried when it is alone. */
static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    WkQueuePolicy *p = priv;
    int rc = wk_queue_admit(p, ctx, job, err);
    return rc <= 0 ? rc : p->q.n == 1 ? wk_queue_drain(p, ctx, err) : 0;
}

static void fini(void *priv)
{
    Topo *t = priv;
    wk_queue_policy_fini(&t->base);
    free(t->node_block);
    free(t->block_free);
    free(t->order);
    free(t->key);
    free(t->cand);
}

const WkSchedOps wk_sched_topo = {
    .abi = WK_SCHED_ABI,
    .name = "topo",
    .description = "topology-aware packing in FIFO order: one node, else one leaf, else one pod, "
                   "else fewest pods; tightest fit first",
    .priv_size = sizeof(Topo),
    .init = init,
    .on_submit = on_submit,
    .fini = fini,
    WK_QUEUE_POLICY_OPS,
};
