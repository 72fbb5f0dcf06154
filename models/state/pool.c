/* SPDX-License-Identifier: Apache-2.0 */
/* pool.c — the GPU pool of a run (see pool.h): ownership, the free bitmap
 * and its per-node and per-pod counts, spares, and health transitions. */
#include "models/state/pool.h"

#include <stdlib.h>
#include <string.h>

/* The histogram and bitmaps of nodes by free count: node nd enters or
 * leaves the row of its current node_free. */
static void by_free_add(WkPool *p, uint32_t nd)
{
    p->by_free[p->node_free[nd]]++;
    if (p->nodes_at)
        p->nodes_at[(size_t)p->node_free[nd] * p->node_words + (nd >> 6)] |= UINT64_C(1) << (nd & 63);
}

static void by_free_drop(WkPool *p, uint32_t nd)
{
    p->by_free[p->node_free[nd]]--;
    if (p->nodes_at)
        p->nodes_at[(size_t)p->node_free[nd] * p->node_words + (nd >> 6)] &= ~(UINT64_C(1) << (nd & 63));
}

uint32_t wk_pool_first_node_with(const WkPool *p, uint32_t k)
{
    if (k > p->max_node || !p->by_free[k])
        return UINT32_MAX;
    if (!p->nodes_at) {
        for (uint32_t nd = 0; nd < p->c->nodes; nd++)
            if (p->node_free[nd] == k)
                return nd;
        return UINT32_MAX;
    }
    const uint64_t *row = p->nodes_at + (size_t)k * p->node_words;
    for (size_t w = 0; w < p->node_words; w++)
        if (row[w])
            return (uint32_t)(w * 64 + (size_t)__builtin_ctzll(row[w]));
    return UINT32_MAX;
}

int wk_pool_init(WkPool *p, WkCluster *c, WkError *err)
{
    *p = (WkPool){.c = c};
    size_t words = ((size_t)c->gpus + 63) / 64;
    p->owner = malloc(((size_t)c->gpus + 1) * sizeof *p->owner);
    p->freebits = malloc((words + 1) * sizeof *p->freebits);
    p->node_free = malloc(((size_t)c->nodes + 1) * sizeof *p->node_free);
    p->pod_free = calloc((size_t)c->pods + 1, sizeof *p->pod_free);
    p->reserved = calloc((size_t)c->nodes + 1, 1);
    p->node_block = malloc(((size_t)c->nodes + 1) * sizeof *p->node_block);
    p->node_mark = calloc((size_t)c->nodes + 1, 1);
    p->node_gen = calloc((size_t)c->nodes + 1, sizeof *p->node_gen);
    for (uint32_t nd = 0; nd < c->nodes; nd++)
        if (wk_pool_node_gpus(p, nd) > p->max_node)
            p->max_node = wk_pool_node_gpus(p, nd);
    p->by_free = calloc((size_t)p->max_node + 1, sizeof *p->by_free);
    p->node_words = ((size_t)c->nodes + 63) / 64;
    if (((size_t)p->max_node + 1) * p->node_words <= ((size_t)32 << 20) / sizeof(uint64_t))
        p->nodes_at = calloc(((size_t)p->max_node + 1) * p->node_words + 1, sizeof *p->nodes_at);
    int fabric = c->fabric.spec.kind != WK_FABRIC_NONE;
    p->nblocks = fabric ? c->fabric.leaves : c->pods;
    size_t groups = p->nblocks > c->pods ? p->nblocks : c->pods;
    p->scratch = malloc((2 * (size_t)c->nodes + 2 * groups + 2) * sizeof *p->scratch);
    for (int k = 0; k < 2; k++) {
        size_t ng = k == 0 ? p->nblocks : c->pods;
        p->idle_in[k] = calloc(ng + 1, sizeof *p->idle_in[k]);
        p->grp_first[k] = calloc(ng + 2, sizeof *p->grp_first[k]);
        p->grp_nodes[k] = malloc(((size_t)c->nodes + 1) * sizeof *p->grp_nodes[k]);
        p->grp_ids[k] = malloc((ng + 1) * sizeof *p->grp_ids[k]);
        if (!p->idle_in[k] || !p->grp_first[k] || !p->grp_nodes[k] || !p->grp_ids[k])
            return wk_error_nomem(err, "GPU pool");
    }
    if (!p->owner || !p->freebits || !p->node_free || !p->pod_free || !p->reserved || !p->node_block ||
        !p->by_free || !p->scratch || !p->node_mark || !p->node_gen)
        return wk_error_nomem(err, "GPU pool");
    for (uint32_t g = 0; g < c->gpus; g++)
        p->owner[g] = WK_POOL_NONE;
    for (size_t w = 0; w < words; w++)
        p->freebits[w] = ~UINT64_C(0);
    if (c->gpus % 64)
        p->freebits[words - 1] = (UINT64_C(1) << (c->gpus % 64)) - 1;
    p->nfree = c->gpus;
    for (uint32_t nd = 0; nd < c->nodes; nd++) {
        p->node_free[nd] = c->node_first_gpu[nd + 1] - c->node_first_gpu[nd];
        p->pod_free[c->node_pod[nd]] += p->node_free[nd];
        by_free_add(p, nd);
        p->idle_gpus += p->node_free[nd];
        uint32_t b = fabric ? wk_cluster_leaf_of(c, c->node_first_gpu[nd]) : c->node_pod[nd];
        p->node_block[nd] = b < p->nblocks ? b : p->nblocks - 1;
        p->idle_in[0][p->node_block[nd]] += p->node_free[nd];
        p->idle_in[1][c->node_pod[nd]] += p->node_free[nd];
    }
    for (int k = 0; k < 2; k++) { /* counting sort of the nodes by group, node order kept */
        const uint32_t *grp = k == 0 ? p->node_block : c->node_pod;
        size_t ng = k == 0 ? p->nblocks : c->pods;
        uint32_t *first = p->grp_first[k];
        for (uint32_t nd = 0; nd < c->nodes; nd++)
            first[grp[nd] + 1]++;
        for (size_t g = 0; g < ng; g++)
            first[g + 1] += first[g];
        for (uint32_t nd = 0; nd < c->nodes; nd++)
            p->grp_nodes[k][first[grp[nd]]++] = nd;
        for (size_t g = ng; g > 0; g--)
            first[g] = first[g - 1];
        first[0] = 0;
        for (size_t g = 0; g < ng; g++)
            if (first[g + 1] > first[g])
                p->grp_ids[k][p->ngrp_ids[k]++] = (uint32_t)g;
    }
    return 0;
}

/* Node nd becomes idle (sign +1) or stops being idle (-1) with f GPUs. */
static void idle_moved(WkPool *p, uint32_t nd, uint32_t f, int sign)
{
    p->idle_gpus = sign > 0 ? p->idle_gpus + f : p->idle_gpus - f;
    uint32_t *b = &p->idle_in[0][p->node_block[nd]], *q = &p->idle_in[1][p->c->node_pod[nd]];
    *b = sign > 0 ? *b + f : *b - f;
    *q = sign > 0 ? *q + f : *q - f;
}

void wk_pool_fini(WkPool *p)
{
    free(p->owner);
    free(p->freebits);
    free(p->node_free);
    free(p->pod_free);
    free(p->reserved);
    free(p->by_free);
    free(p->nodes_at);
    free(p->node_block);
    free(p->scratch);
    free(p->node_mark);
    free(p->node_gen);
    free(p->share_free);
    free(p->share_since);
    free(p->share_next);
    free(p->shared);
    free(p->shared_at);
    for (int k = 0; k < 2; k++) {
        free(p->idle_in[k]);
        free(p->grp_first[k]);
        free(p->grp_nodes[k]);
        free(p->grp_ids[k]);
    }
    memset(p, 0, sizeof *p);
}

/* k GPUs of node nd left the free bitmap: its counts, rows and generation. */
static void node_taken(WkPool *p, uint32_t nd, uint32_t k)
{
    if (p->node_free[nd] == wk_pool_node_gpus(p, nd))
        idle_moved(p, nd, p->node_free[nd], -1);
    by_free_drop(p, nd);
    p->node_free[nd] -= k;
    by_free_add(p, nd);
    p->pod_free[p->c->node_pod[nd]] -= k;
    p->gen += k; /* one generation per GPU, as one take at a time */
    p->node_gen[nd] = p->gen;
}

/* k GPUs of node nd joined the free bitmap. */
static void node_given(WkPool *p, uint32_t nd, uint32_t k)
{
    by_free_drop(p, nd);
    p->node_free[nd] += k;
    by_free_add(p, nd);
    if (p->node_free[nd] == wk_pool_node_gpus(p, nd))
        idle_moved(p, nd, p->node_free[nd], +1);
    p->pod_free[p->c->node_pod[nd]] += k;
    p->gen += k;
    p->node_gen[nd] = p->gen;
}

/* Move free_hint past the words with no free GPU. */
static void skip_full(WkPool *p)
{
    size_t words = ((size_t)p->c->gpus + 63) / 64;
    while (p->free_hint < words && p->freebits[p->free_hint] == 0)
        p->free_hint++;
}

void wk_pool_take(WkPool *p, uint32_t g)
{
    p->freebits[g >> 6] &= ~(UINT64_C(1) << (g & 63));
    p->nfree--;
    node_taken(p, p->c->gpu_node[g], 1);
    skip_full(p);
}

void wk_pool_give(WkPool *p, uint32_t g)
{
    p->freebits[g >> 6] |= UINT64_C(1) << (g & 63);
    p->nfree++;
    node_given(p, p->c->gpu_node[g], 1);
    if (g >> 6 < p->free_hint)
        p->free_hint = g >> 6;
}

/* The GPUs of one node in a row of a placement have their node's counts
 * moved once (node_taken, node_given): the same counts, rows, generations
 * and hint as one GPU at a time. */
int wk_pool_hold(WkPool *p, uint32_t job, const uint32_t *gpus, uint32_t n, uint32_t *bad)
{
    uint32_t nd = UINT32_MAX, k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i];
        if (!wk_pool_is_free(p, g)) {
            if (k)
                node_taken(p, nd, k);
            skip_full(p);
            for (uint32_t j = 0; j < i; j++) { /* undo the GPUs already taken for this job */
                wk_pool_give(p, gpus[j]);
                p->owner[gpus[j]] = WK_POOL_NONE;
            }
            *bad = g;
            return WK_E_INTERNAL;
        }
        p->freebits[g >> 6] &= ~(UINT64_C(1) << (g & 63));
        p->nfree--;
        p->owner[g] = job;
        uint32_t at = p->c->gpu_node[g];
        if (at != nd) {
            if (k)
                node_taken(p, nd, k);
            nd = at;
            k = 0;
        }
        k++;
    }
    if (k)
        node_taken(p, nd, k);
    skip_full(p);
    p->alloc += n;
    return 0;
}

void wk_pool_release(WkPool *p, uint32_t g)
{
    p->owner[g] = WK_POOL_NONE;
    p->alloc--;
    if (p->c->health[g] != WK_GPU_DOWN)
        wk_pool_give(p, g);
    else
        p->down_held--;
}

void wk_pool_release_all(WkPool *p, const uint32_t *gpus, uint32_t n)
{
    uint32_t nd = UINT32_MAX, k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i];
        p->owner[g] = WK_POOL_NONE;
        p->alloc--;
        if (p->c->health[g] == WK_GPU_DOWN) {
            p->down_held--;
            continue;
        }
        p->freebits[g >> 6] |= UINT64_C(1) << (g & 63);
        p->nfree++;
        if (g >> 6 < p->free_hint)
            p->free_hint = g >> 6;
        uint32_t at = p->c->gpu_node[g];
        if (at != nd) {
            if (k)
                node_given(p, nd, k);
            nd = at;
            k = 0;
        }
        k++;
    }
    if (k)
        node_given(p, nd, k);
}

void wk_pool_set_health(WkPool *p, uint32_t g, WkGpuHealth h, float clock)
{
    WkCluster *c = p->c;
    int busy = p->owner[g] != WK_POOL_NONE;
    int was_down = c->health[g] == WK_GPU_DOWN, free_now = wk_pool_is_free(p, g);
    int was_slow = c->clock[g] < 1.0f;
    wk_cluster_set_state(c, g, h, clock);
    p->node_gen[c->gpu_node[g]] = ++p->gen;
    p->nslow = p->nslow - (uint32_t)was_slow + (uint32_t)(c->clock[g] < 1.0f);
    if (h == WK_GPU_DOWN && !was_down) {
        p->ndown++;
        p->down_held += busy;
        if (free_now)
            wk_pool_take(p, g);
    } else if (h != WK_GPU_DOWN && was_down) {
        p->ndown--;
        p->down_held -= busy;
        if (!busy && !p->reserved[c->gpu_node[g]])
            wk_pool_give(p, g);
    }
}

/* ---- GPU sharing ---- */

int wk_pool_share_init(WkPool *p, size_t jobs, WkError *err)
{
    size_t G = (size_t)p->c->gpus + 1;
    p->share_free = malloc(G * sizeof *p->share_free);
    p->share_since = calloc(G, sizeof *p->share_since);
    p->share_next = malloc((jobs + 1) * sizeof *p->share_next);
    p->shared = malloc(G * sizeof *p->shared);
    p->shared_at = malloc(G * sizeof *p->shared_at);
    if (!p->share_free || !p->share_since || !p->share_next || !p->shared || !p->shared_at)
        return wk_error_nomem(err, "GPU sharing");
    for (size_t g = 0; g < G; g++)
        p->share_free[g] = WK_POOL_UNSHARED;
    for (size_t j = 0; j <= jobs; j++)
        p->share_next[j] = WK_POOL_NONE;
    p->nshared = 0;
    p->tenants = 0;
    return 0;
}

uint32_t wk_pool_share_fit(const WkPool *p, uint32_t milli)
{
    uint32_t best = WK_POOL_NONE;
    for (uint32_t i = 0; p->share_free && i < p->nshared; i++) {
        uint32_t g = p->shared[i], f = p->share_free[g];
        if (f < milli || p->c->health[g] == WK_GPU_DOWN)
            continue;
        if (best == WK_POOL_NONE || f < p->share_free[best] || (f == p->share_free[best] && g < best))
            best = g;
    }
    return best;
}

void wk_pool_share_open(WkPool *p, uint32_t g, uint32_t milli, int64_t now)
{
    p->share_free[g] = (uint16_t)(1000 - milli);
    p->share_since[g] = now;
    p->share_next[p->owner[g]] = WK_POOL_NONE;
    p->shared_at[g] = p->nshared;
    p->shared[p->nshared++] = g;
    p->tenants++;
}

void wk_pool_share_join(WkPool *p, uint32_t g, uint32_t job, uint32_t milli)
{
    uint32_t head = p->owner[g];
    p->share_free[g] = (uint16_t)(p->share_free[g] - milli);
    p->share_next[job] = p->share_next[head];
    p->share_next[head] = job;
    p->tenants++;
}

int wk_pool_share_leave(WkPool *p, uint32_t g, uint32_t job, uint32_t milli, int64_t *since)
{
    p->tenants--;
    p->share_free[g] = (uint16_t)(p->share_free[g] + milli);
    uint32_t head = p->owner[g];
    if (head == job && p->share_next[job] == WK_POOL_NONE) { /* the last tenant */
        p->share_free[g] = WK_POOL_UNSHARED;
        *since = p->share_since[g];
        uint32_t i = p->shared_at[g], last = p->shared[--p->nshared];
        p->shared[i] = last;
        p->shared_at[last] = i;
        return 1;
    }
    if (head == job) {
        p->owner[g] = p->share_next[job]; /* ownership passes on; the pool's counts do not move */
    } else {
        uint32_t k = head;
        while (p->share_next[k] != job)
            k = p->share_next[k];
        p->share_next[k] = p->share_next[job];
    }
    p->share_next[job] = WK_POOL_NONE;
    return 0;
}
