/* SPDX-License-Identifier: Apache-2.0 */
/* place.c — placement strategies any policy can use: exclusive (the
 * default: whole nodes for jobs of a node or more, best fit in one node for
 * smaller ones), and the GPU-granular what-if strategies first-fit, pack
 * (fewest nodes, then leaves and pods, tightest fit first), spread (across
 * as many pods and nodes as possible) and round-robin (next fit). They only
 * read the free-GPU pool; the policy then calls wk_sched_start. */
#include <stdlib.h>

#include "models/state/pool.h"

static int ok(const WkPool *pl, uint32_t g, int (*allowed)(uint32_t, void *), void *user)
{
    return ((pl->freebits[g >> 6] >> (g & 63)) & 1) && (!allowed || allowed(g, user));
}

/* First fit from GPU `from`, wrapping around. */
static int first_fit(const WkPool *pl, uint32_t from, uint32_t n, uint32_t *out,
                     int (*allowed)(uint32_t, void *), void *user)
{
    uint32_t k = 0, G = pl->c->gpus;
    if (!allowed && from == 0) { /* the common case: scan words of the bitmap */
        size_t words = ((size_t)G + 63) / 64;
        for (size_t w = pl->free_hint; w < words && k < n; w++) {
            uint64_t bits = pl->freebits[w];
            while (bits && k < n) {
                out[k++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
                bits &= bits - 1;
            }
        }
        return k == n ? 0 : WK_E_NOROOM;
    }
    for (uint32_t i = 0; i < G && k < n; i++) {
        uint32_t g = (from + i) % G;
        if (ok(pl, g, allowed, user))
            out[k++] = g;
    }
    return k == n ? 0 : WK_E_NOROOM;
}

/* Free allowed GPUs of a node into out (at most max); returns the count. */
static uint32_t node_take(const WkPool *pl, uint32_t node, uint32_t max, uint32_t *out,
                          int (*allowed)(uint32_t, void *), void *user)
{
    uint32_t k = 0;
    for (uint32_t g = pl->c->node_first_gpu[node]; g < pl->c->node_first_gpu[node + 1] && k < max; g++)
        if (ok(pl, g, allowed, user))
            out[k++] = g;
    return k;
}

static uint32_t node_count(const WkPool *pl, uint32_t node, int (*allowed)(uint32_t, void *), void *user)
{
    if (!allowed)
        return pl->node_free[node];
    uint32_t k = 0;
    for (uint32_t g = pl->c->node_first_gpu[node]; g < pl->c->node_first_gpu[node + 1]; g++)
        k += ok(pl, g, allowed, user);
    return k;
}

/* Pack: one node if any can hold the job (the one with the fewest free GPUs
 * that suffice); else one pod (the pod with the fewest free GPUs that
 * suffice), filling its fullest-free nodes first; else pods by free GPUs,
 * most first. */
static int pack(const WkPool *pl, uint32_t n, uint32_t *out, int (*allowed)(uint32_t, void *), void *user)
{
    const WkCluster *c = pl->c;
    uint32_t best = UINT32_MAX, bestfree = UINT32_MAX;
    uint32_t *cnt = malloc((size_t)c->nodes * sizeof *cnt);
    uint32_t *podcnt = calloc(c->pods, sizeof *podcnt);
    if (!cnt || !podcnt) {
        free(cnt);
        free(podcnt);
        return WK_E_NOMEM;
    }
    for (uint32_t nd = 0; nd < c->nodes; nd++) {
        cnt[nd] = node_count(pl, nd, allowed, user);
        podcnt[c->node_pod[nd]] += cnt[nd];
        if (cnt[nd] >= n && cnt[nd] < bestfree) {
            best = nd;
            bestfree = cnt[nd];
        }
    }
    int rc = WK_E_NOROOM;
    if (best != UINT32_MAX) {
        node_take(pl, best, n, out, allowed, user);
        rc = 0;
        goto done;
    }
    uint32_t bestpod = UINT32_MAX;
    bestfree = UINT32_MAX;
    for (uint32_t p = 0; p < c->pods; p++)
        if (podcnt[p] >= n && podcnt[p] < bestfree) {
            bestpod = p;
            bestfree = podcnt[p];
        }
    /* order candidate nodes: within the chosen pod, or everywhere by pod free
     * count; then by free GPUs descending (fewest nodes) */
    uint32_t k = 0;
    for (;;) {
        uint32_t pick = UINT32_MAX;
        for (uint32_t nd = 0; nd < c->nodes; nd++) {
            if (!cnt[nd] || (bestpod != UINT32_MAX && c->node_pod[nd] != bestpod))
                continue;
            if (pick == UINT32_MAX)
                pick = nd;
            else {
                uint32_t pp = c->node_pod[pick], pn = c->node_pod[nd];
                int better = bestpod == UINT32_MAX && podcnt[pn] != podcnt[pp] ? podcnt[pn] > podcnt[pp]
                             : bestpod == UINT32_MAX && pn != pp                ? pn < pp
                                                                                : cnt[nd] > cnt[pick];
                if (better)
                    pick = nd;
            }
        }
        if (pick == UINT32_MAX)
            break;
        k += node_take(pl, pick, n - k, out + k, allowed, user);
        cnt[pick] = 0;
        if (k == n) {
            rc = 0;
            break;
        }
    }
done:
    free(cnt);
    free(podcnt);
    return rc;
}

/* Spread: one GPU at a time, cycling over pods, and within a pod over its
 * nodes, so the job touches as many pods and nodes as it can. */
static int spread(const WkPool *pl, uint32_t n, uint32_t *out, int (*allowed)(uint32_t, void *), void *user)
{
    const WkCluster *c = pl->c;
    uint32_t *first = malloc((size_t)c->pods * sizeof *first); /* first node of each pod */
    uint32_t *count = malloc((size_t)c->pods * sizeof *count); /* nodes in each pod */
    uint32_t *cursor = calloc(c->pods, sizeof *cursor);        /* next node to try, per pod */
    uint32_t *taken = calloc(c->nodes, sizeof *taken);         /* GPUs scanned past, per node */
    if (!first || !count || !cursor || !taken) {
        free(first);
        free(count);
        free(cursor);
        free(taken);
        return WK_E_NOMEM;
    }
    for (uint32_t g = 0; g < c->ngroups; g++) {
        const WkNodeGroup *grp = &c->groups[g];
        for (uint32_t p = 0; p < grp->pods; p++) {
            first[grp->first_pod + p] = grp->first_node + p * c->nodes_per_pod;
            uint32_t left = grp->nodes - p * c->nodes_per_pod;
            count[grp->first_pod + p] = left < c->nodes_per_pod ? left : c->nodes_per_pod;
        }
    }
    uint32_t k = 0;
    int progress = 1;
    while (k < n && progress) {
        progress = 0;
        for (uint32_t p = 0; p < c->pods && k < n; p++) {
            /* the pod's next node, in turn, that still has a free GPU for us */
            for (uint32_t tries = 0; tries < count[p]; tries++) {
                uint32_t nd = first[p] + cursor[p] % count[p];
                cursor[p]++;
                uint32_t g = c->node_first_gpu[nd] + taken[nd], end = c->node_first_gpu[nd + 1];
                while (g < end && !ok(pl, g, allowed, user))
                    g++;
                taken[nd] = g - c->node_first_gpu[nd] + (g < end);
                if (g < end) {
                    out[k++] = g;
                    progress = 1;
                    break;
                }
            }
        }
    }
    free(first);
    free(count);
    free(cursor);
    free(taken);
    return k == n ? 0 : WK_E_NOROOM;
}

/* Best fit in one node: the node with the fewest free allowed GPUs that
 * hold n (lowest id on ties), skipping nodes with used[nd] set (used may be
 * NULL). cnt: per-node counts when allowed is set (else node_free). */
static uint32_t best_node(const WkPool *pl, uint32_t n, const uint32_t *cnt, const uint8_t *used)
{
    const uint32_t *f = cnt ? cnt : pl->node_free;
    uint32_t best = UINT32_MAX, bestfree = UINT32_MAX, tight = n;
    if (!cnt && !used) { /* the tightest count that holds n, off the histogram; its first node */
        while (tight <= pl->max_node && !pl->by_free[tight])
            tight++;
        return tight > pl->max_node ? UINT32_MAX : wk_pool_first_node_with(pl, tight);
    }
    if (!cnt && pl->nodes_at) { /* the same, rows of the histogram in turn, past used nodes */
        for (uint32_t t = n; t <= pl->max_node; t++) {
            const uint64_t *row = pl->nodes_at + (size_t)t * pl->node_words;
            for (size_t w = 0; pl->by_free[t] && w < pl->node_words; w++)
                for (uint64_t x = row[w]; x; x &= x - 1) {
                    uint32_t nd = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
                    if (!used[nd])
                        return nd;
                }
        }
        return UINT32_MAX;
    }
    for (uint32_t nd = 0; nd < pl->c->nodes; nd++)
        if (f[nd] >= n && f[nd] < bestfree && !(used && used[nd])) {
            best = nd;
            bestfree = f[nd];
            if (bestfree == tight) /* nothing tighter exists */
                break;
        }
    return best;
}

/* Groups (leaf blocks or pods) ordered for whole-node allocation: the
 * tightest group whose idle capacity cap[] holds `want` GPUs alone, else
 * (unless single: then none) every group by capacity, most first (ties by
 * id). The groups are ids[0..nids), ascending: those with nodes (the others
 * have no capacity). Returns the count in order[]. */
static uint32_t group_order(const uint32_t *cap, const uint32_t *ids, uint32_t nids, uint64_t want, int single,
                            uint32_t *order)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < nids; i++) {
        uint32_t b = ids[i];
        if (cap[b] >= want && (best == UINT32_MAX || cap[b] < cap[best]))
            best = b;
    }
    if (best != UINT32_MAX) {
        order[0] = best;
        return 1;
    }
    if (single)
        return 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < nids; i++) {
        uint32_t b = ids[i];
        if (!cap[b])
            continue;
        uint32_t j = k++; /* insertion: groups are at most a few thousand and this path is rare */
        while (j > 0 && (cap[order[j - 1]] < cap[b]))
            j--;
        for (uint32_t m = k - 1; m > j; m--)
            order[m] = order[m - 1];
        order[j] = b;
    }
    return k;
}

/* Exclusive (node-granular) placement, the default. A job of at least the
 * largest node's GPUs takes idle nodes (every GPU free and allowed) whole,
 * in node order inside the tightest leaf block that holds its whole nodes,
 * else the tightest pod, else pods with the most idle GPUs first; the
 * remainder that is not a whole node goes best fit into one more node. A
 * smaller job goes best fit into one node. */
static int exclusive(WkPool *pl, uint32_t n, uint32_t *out, int (*allowed)(uint32_t, void *), void *user)
{
    const WkCluster *c = pl->c;
    uint32_t S = pl->max_node;
    uint32_t *cnt = NULL;
    if (allowed) {
        cnt = pl->scratch;
        for (uint32_t nd = 0; nd < c->nodes; nd++)
            cnt[nd] = node_count(pl, nd, allowed, user);
    }
    if (n < S) {
        uint32_t nd = best_node(pl, n, cnt, NULL);
        if (nd == UINT32_MAX)
            return WK_E_NOROOM;
        node_take(pl, nd, n, out, allowed, user);
        return 0;
    }
    uint32_t rem = n % S;
    uint64_t whole = (uint64_t)n - rem;
    if (!allowed && pl->idle_gpus < whole)
        return WK_E_NOROOM;
    const uint32_t *f = cnt ? cnt : pl->node_free;
    size_t ng = pl->nblocks > c->pods ? pl->nblocks : c->pods;
    uint32_t *cap = pl->scratch + c->nodes, *gorder = cap + ng, *picked = gorder + ng;
    /* level 1: leaf blocks; level 2: pods (also when no block suffices) */
    for (int level = 0; level < 2; level++) {
        const uint32_t *grp = level == 0 ? pl->node_block : c->node_pod;
        uint32_t ngroups = level == 0 ? pl->nblocks : c->pods;
        const uint32_t *gcap = pl->idle_in[level]; /* without `allowed`: kept by take and give */
        if (cnt) {
            for (uint32_t b = 0; b < ngroups; b++)
                cap[b] = 0;
            for (uint32_t nd = 0; nd < c->nodes; nd++)
                if (f[nd] && f[nd] == wk_pool_node_gpus(pl, nd))
                    cap[grp[nd]] += f[nd];
            gcap = cap;
        }
        uint32_t m = group_order(gcap, pl->grp_ids[level], pl->ngrp_ids[level], whole, level == 0, gorder);
        if (level == 0 && m != 1)
            continue; /* no single leaf block holds it: choose by pods */
        uint32_t npick = 0, k = 0;
        for (uint32_t i = 0; i < m && k < whole; i++)
            for (uint32_t x = pl->grp_first[level][gorder[i]]; x < pl->grp_first[level][gorder[i] + 1] && k < whole;
                 x++) { /* the group's nodes, in node order */
                uint32_t nd = pl->grp_nodes[level][x], sz = wk_pool_node_gpus(pl, nd);
                if (grp[nd] != gorder[i] || f[nd] != sz || !sz || whole - k < sz)
                    continue;
                k += node_take(pl, nd, sz, out + k, allowed, user);
                picked[npick++] = nd;
            }
        if (n - k >= S)
            continue; /* mixed node sizes left a whole node's worth: try the pods */
        if (k < n) { /* the remainder: best fit in one node not taken whole */
            uint8_t *used = pl->node_mark; /* all 0 between calls */
            for (uint32_t i = 0; i < npick; i++)
                used[picked[i]] = 1;
            uint32_t nd = best_node(pl, n - k, cnt, used);
            for (uint32_t i = 0; i < npick; i++)
                used[picked[i]] = 0;
            if (nd == UINT32_MAX)
                return WK_E_NOROOM;
            node_take(pl, nd, n - k, out + k, allowed, user);
        }
        return 0;
    }
    return WK_E_NOROOM;
}

int wk_pool_place(WkPool *pl, WkPlacement how, uint32_t n, uint32_t *out,
                      int (*allowed)(uint32_t gpu, void *user), void *user)
{
    if (n == 0)
        return 0;
    if (n > pl->nfree)
        return WK_E_NOROOM;
    int rc;
    switch (how) {
    case WK_PLACE_EXCLUSIVE: rc = exclusive(pl, n, out, allowed, user); break;
    case WK_PLACE_PACK: rc = pack(pl, n, out, allowed, user); break;
    case WK_PLACE_SPREAD: rc = spread(pl, n, out, allowed, user); break;
    case WK_PLACE_ROUND_ROBIN:
        rc = first_fit(pl, pl->rr_next, n, out, allowed, user);
        if (rc == 0)
            pl->rr_next = (out[n - 1] + 1) % pl->c->gpus;
        break;
    default: rc = first_fit(pl, 0, n, out, allowed, user); break;
    }
    return rc;
}
