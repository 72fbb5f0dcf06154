/* SPDX-License-Identifier: Apache-2.0 */
/* sci_propose.c — candidate blocks for the `sci` annealer: pick nodes and
 * GPU counts (pack, random pod or node, growth, whole nodes), then emit the
 * block in rank order. Reads the state; writes only its scratch. */
#include "models/sched/sci_impl.h"

#include <stdlib.h>
#include <string.h>

/* --- proposals: choose nodes and counts into sel/cnt, then emit a block --- */

static void sel_add(WkSciState *s, uint32_t nd, uint32_t k)
{
    s->sel[s->nsel] = nd;
    s->cnt[s->nsel++] = k;
}

/* Take up to need GPUs from pod p, nodes with the most free first (ties by
 * id). Returns the GPUs taken. */
static uint32_t take_pod(WkSciState *s, uint32_t p, uint32_t need, uint32_t skip)
{
    uint32_t k = 0;
    for (uint32_t nd = s->pod_first[p]; nd < s->pod_first[p + 1]; nd++)
        if (s->node_free[nd] && nd != skip)
            s->order[k++] = nd;
    for (uint32_t i = 1; i < k; i++) { /* insertion sort: pods hold tens of nodes */
        uint32_t v = s->order[i], j = i;
        while (j > 0 && (s->node_free[s->order[j - 1]] < s->node_free[v] ||
                         (s->node_free[s->order[j - 1]] == s->node_free[v] && s->order[j - 1] > v))) {
            s->order[j] = s->order[j - 1];
            j--;
        }
        s->order[j] = v;
    }
    uint32_t got = 0;
    for (uint32_t i = 0; i < k && got < need; i++) {
        uint32_t nd = s->order[i], t = s->node_free[nd] < need - got ? s->node_free[nd] : need - got;
        sel_add(s, nd, t);
        got += t;
    }
    return got;
}

/* Pods by free GPUs, most first, each filled by take_pod. */
static void take_pods_desc(WkSciState *s, uint32_t need)
{
    uint32_t k = 0;
    uint32_t *po = s->order + s->nodes; /* take_pod sorts nodes in the first part */
    for (uint32_t p = 0; p < s->pods; p++)
        if (s->pod_free[p])
            po[k++] = p;
    for (uint32_t i = 1; i < k; i++) {
        uint32_t v = po[i], j = i;
        while (j > 0 && (s->pod_free[po[j - 1]] < s->pod_free[v] ||
                         (s->pod_free[po[j - 1]] == s->pod_free[v] && po[j - 1] > v))) {
            po[j] = po[j - 1];
            j--;
        }
        po[j] = v;
    }
    uint32_t got = 0;
    for (uint32_t i = 0; i < k && got < need; i++)
        got += take_pod(s, po[i], need - got, NONE);
}

/* Pack: the best-fitting node; else the best-fitting pod; else pods by free
 * GPUs, most first. */
static void prop_pack(WkSciState *s, uint32_t n)
{
    uint32_t best = NONE, bestf = UINT32_MAX;
    for (uint32_t k = n; k <= s->max_node && best == NONE; k++) /* a node of the fullest bucket that fits */
        if (s->blen[k])
            best = s->bn[(size_t)k * s->nodes];
    if (best != NONE) {
        sel_add(s, best, n);
        return;
    }
    bestf = UINT32_MAX;
    for (uint32_t p = 0; p < s->pods; p++)
        if (s->pod_free[p] >= n && s->pod_free[p] < bestf)
            best = p, bestf = s->pod_free[p];
    if (best != NONE)
        take_pod(s, best, n, NONE);
    else
        take_pods_desc(s, n);
}

/* A uniformly random node in [lo, hi) with at least `need` free GPUs, or
 * NONE: count them, draw one index, find it (one draw per call). The whole
 * cluster is read off the buckets. */
static uint32_t random_node(const WkSciState *s, WkRng *rng, uint32_t lo, uint32_t hi, uint32_t need)
{
    if (lo == 0 && hi == s->nodes) {
        uint32_t k = 0;
        for (uint32_t b = need; b <= s->max_node; b++)
            k += s->blen[b];
        if (!k)
            return NONE;
        uint32_t r = (uint32_t)wk_rng_uint(rng, k), b = need;
        for (; r >= s->blen[b]; b++)
            r -= s->blen[b];
        return s->bn[(size_t)b * s->nodes + r];
    }
    uint32_t k = 0;
    for (uint32_t nd = lo; nd < hi; nd++)
        k += s->node_free[nd] >= need;
    if (!k)
        return NONE;
    uint32_t r = (uint32_t)wk_rng_uint(rng, k);
    for (uint32_t nd = lo;; nd++)
        if (s->node_free[nd] >= need && r-- == 0)
            return nd;
}

/* A random pod that can hold the job (a random node in it when one node can),
 * else pods in turn from a random one. */
static void prop_pod(WkSciState *s, WkRng *rng, uint32_t n)
{
    uint32_t pick = NONE, k = 0;
    for (uint32_t p = 0; p < s->pods; p++)
        k += s->pod_free[p] >= n;
    if (k) {
        uint32_t r = (uint32_t)wk_rng_uint(rng, k);
        for (pick = 0; s->pod_free[pick] < n || r-- > 0; pick++)
            ;
    }
    if (pick == NONE) {
        uint32_t p0 = (uint32_t)wk_rng_uint(rng, s->pods), got = 0;
        for (uint32_t i = 0; i < s->pods && got < n; i++)
            got += take_pod(s, (p0 + i) % s->pods, n - got, NONE);
        return;
    }
    uint32_t nd_pick = n <= s->max_node ? random_node(s, rng, s->pod_first[pick], s->pod_first[pick + 1], n) : NONE;
    if (nd_pick != NONE)
        sel_add(s, nd_pick, n);
    else
        take_pod(s, pick, n, NONE);
}

/* A random node that can hold the job, else first fit from a random node. */
static void prop_node(WkSciState *s, WkRng *rng, uint32_t n)
{
    uint32_t pick = n <= s->max_node ? random_node(s, rng, 0, s->nodes, n) : NONE;
    if (pick != NONE) {
        sel_add(s, pick, n);
        return;
    }
    uint32_t nd0 = (uint32_t)wk_rng_uint(rng, s->nodes), got = 0;
    for (uint32_t i = 0; i < s->nodes && got < n; i++) {
        uint32_t nd = (nd0 + i) % s->nodes, t = s->node_free[nd] < n - got ? s->node_free[nd] : n - got;
        if (t)
            sel_add(s, nd, t);
        got += t;
    }
}

/* Local rules: grow from a random node with free GPUs through its pod, then
 * pods at increasing distance — no cluster-wide search. */
static void prop_grow(WkSciState *s, WkRng *rng, uint32_t n)
{
    uint32_t seed = random_node(s, rng, 0, s->nodes, 1);
    uint32_t t = s->node_free[seed] < n ? s->node_free[seed] : n, p0 = s->c->node_pod[seed];
    sel_add(s, seed, t);
    uint32_t got = t + take_pod(s, p0, n - t, seed);
    for (uint32_t d = 1; got < n && d < s->pods; d++) {
        if (p0 + d < s->pods)
            got += take_pod(s, p0 + d, n - got, NONE);
        if (got < n && p0 >= d)
            got += take_pod(s, p0 - d, n - got, NONE);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sort k[0..n) ascending by merging its ascending runs
 * pairwise, tmp[0..n) as scratch: O(n log runs), and a proposal's nodes
 * come in a few runs (a pod from a node on, the pods after it). */
static void sort_runs(uint64_t *k, uint64_t *tmp, uint32_t n)
{
    for (;;) {
        uint32_t i = 0, o = 0;
        while (i < n) {
            uint32_t m = i + 1, b;
            while (m < n && k[m - 1] <= k[m])
                m++;
            if (i == 0 && m == n)
                return; /* one run: sorted */
            for (b = m < n ? m + 1 : n; b < n && k[b - 1] <= k[b]; b++)
                ;
            uint32_t x = i, y = m;
            while (x < m && y < b)
                tmp[o++] = k[x] < k[y] ? k[x++] : k[y++];
            while (x < m)
                tmp[o++] = k[x++];
            while (y < b)
                tmp[o++] = k[y++];
            i = b;
        }
        memcpy(k, tmp, (size_t)n * sizeof *k);
    }
}

/* Emit the chosen nodes' GPUs into cand in ascending GPU order (the rank
 * order); inside a node the fastest free GPUs (highest clock, then lowest id). */
static void emit(WkSciState *s)
{
    const WkCluster *c = s->c;
    /* nodes in id order, each with its count: sort a short list, bucket a long one */
    uint32_t ns = 0;
    if (s->nsel <= 32) {
        for (uint32_t i = 0; i < s->nsel; i++)
            s->key[i] = (uint64_t)s->sel[i] << 32 | s->cnt[i];
        for (uint32_t i = 1; i < s->nsel; i++) {
            uint64_t v = s->key[i];
            uint32_t j = i;
            for (; j > 0 && s->key[j - 1] > v; j--)
                s->key[j] = s->key[j - 1];
            s->key[j] = v;
        }
        ns = s->nsel;
    } else if ((uint64_t)s->nsel * 16 < s->nodes) { /* no node twice: sort (key has room for nodes) */
        for (uint32_t i = 0; i < s->nsel; i++)
            s->key[i] = (uint64_t)s->sel[i] << 32 | s->cnt[i];
        sort_runs(s->key, s->key + s->nsel, s->nsel);
        ns = s->nsel;
    } else {
        for (uint32_t i = 0; i < s->nsel; i++)
            s->want[s->sel[i]] += s->cnt[i];
        for (uint32_t nd = 0; nd < s->nodes; nd++)
            if (s->want[nd]) {
                s->key[ns++] = (uint64_t)nd << 32 | s->want[nd];
                s->want[nd] = 0;
            }
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < ns; i++) {
        uint32_t nd = (uint32_t)(s->key[i] >> 32), m = 0, slow = 0, want = (uint32_t)s->key[i];
        uint32_t first = c->node_first_gpu[nd], end = c->node_first_gpu[nd + 1];
        if (want == s->node_free[nd]) { /* every free GPU: no choice by clock */
            if (want == end - first)
                for (uint32_t g = first; g < end; g++)
                    s->cand[k++] = g;
            else
                for (uint32_t g = first; g < end; g++)
                    if (s->gs[g] == WK_SCI_FREE)
                        s->cand[k++] = g;
            continue;
        }
        for (uint32_t g = first; g < end; g++)
            if (s->gs[g] == WK_SCI_FREE) {
                s->nodebuf[m++] = g;
                slow |= c->clock[g] < 1.0f;
            }
        if (slow && want < m) {
            for (uint32_t a = 0; a < want; a++) { /* selection: fastest first, stable */
                uint32_t b = a;
                for (uint32_t x = a + 1; x < m; x++)
                    if (c->clock[s->nodebuf[x]] > c->clock[s->nodebuf[b]])
                        b = x;
                uint32_t v = s->nodebuf[b];
                memmove(s->nodebuf + a + 1, s->nodebuf + a, (size_t)(b - a) * sizeof v);
                s->nodebuf[a] = v;
            }
            qsort(s->nodebuf, want, sizeof *s->nodebuf, cmp_u32);
        }
        memcpy(s->cand + k, s->nodebuf, (size_t)want * sizeof *s->cand);
        k += want;
    }
}

static uint32_t node_size(const WkSciState *s, uint32_t nd)
{
    return wk_sci_node_size(s, nd);
}

/* Idle nodes (every GPU free) of pods order[0..m) in turn, taken whole
 * while at least a node's worth is still needed; node order inside each
 * pod, starting at node `from` (cyclically) in the first pod. */
static uint32_t take_idle(WkSciState *s, const uint32_t *order, uint32_t m, uint32_t whole, uint32_t from)
{
    uint32_t got = 0;
    for (uint32_t i = 0; i < m && got < whole; i++) {
        if (!s->pod_idle_n[order[i]]) /* nothing to take there: skip its nodes */
            continue;
        uint32_t lo = s->pod_first[order[i]], len = s->pod_first[order[i] + 1] - lo;
        uint32_t off = i == 0 && from >= lo && from < lo + len ? from - lo : 0;
        for (uint32_t j = 0; j < len && got < whole; j++) {
            uint32_t nd = lo + (off + j) % len, sz = node_size(s, nd);
            if (s->node_free[nd] == sz && whole - got >= sz) {
                sel_add(s, nd, sz);
                got += sz;
            }
        }
    }
    return got;
}

/* Node-granular proposals (the scenario's default `exclusive` placement,
 * models/state/place.c): a job smaller than the largest node goes into one
 * node — the tightest (pack) or a random one that holds it; a larger job
 * takes idle nodes whole — in the tightest pod whose idle nodes hold it
 * (pack), or from a random idle node on through its pod and the pods after
 * it (the other proposals) — and its remainder goes into the tightest node
 * not taken whole. Returns 0 or WK_E_NOROOM. */
static int prop_whole(WkSciState *s, WkRng *rng, int how, uint32_t n)
{
    uint32_t S = s->max_node;
    int pack = how == PROP_PACK || !rng;
    if (n < S) {
        uint32_t pick = NONE;
        if (pack) {
            for (uint32_t k = n; k <= S && pick == NONE; k++)
                if (s->blen[k])
                    pick = s->bn[(size_t)k * s->nodes];
        } else {
            pick = random_node(s, rng, 0, s->nodes, n);
        }
        if (pick == NONE)
            return WK_E_NOROOM;
        sel_add(s, pick, n);
        return 0;
    }
    uint32_t whole = n - n % S, m = 0, from = NONE, *po = s->order + s->nodes;
    if (pack) {
        const uint32_t *cap = s->pod_idle_g; /* idle GPUs per pod */
        uint32_t best = NONE;
        for (uint32_t p = 0; p < s->pods; p++)
            if (cap[p] >= whole && (best == NONE || cap[p] < cap[best]))
                best = p;
        if (best != NONE)
            po[m++] = best;
        for (uint32_t p = 0; best == NONE && p < s->pods; p++)
            if (cap[p])
                po[m++] = p;
    } else {
        if (!s->idle_nodes)
            return WK_E_NOROOM;
        /* the r-th idle node in id order: its pod off the per-pod counts
         * (pods are runs of consecutive nodes), then the node in it */
        uint32_t r = (uint32_t)wk_rng_uint(rng, s->idle_nodes), p = 0;
        while (r >= s->pod_idle_n[p])
            r -= s->pod_idle_n[p++];
        for (from = s->pod_first[p]; s->node_free[from] != node_size(s, from) || r-- > 0; from++)
            ;
        uint32_t p0 = s->c->node_pod[from];
        for (uint32_t i = 0; i < s->pods; i++)
            po[m++] = (p0 + i) % s->pods;
    }
    uint32_t got = take_idle(s, po, m, whole, from);
    if (n - got >= S)
        return WK_E_NOROOM;
    if (got < n) { /* the remainder: a partly used node first, else an idle one not taken */
        uint32_t r = n - got, pick = NONE;
        for (uint32_t i = 0; i < s->nsel; i++)
            s->want[s->sel[i]] = 1;
        for (uint32_t k = r; k <= S && pick == NONE; k++) /* tightest bucket, nodes not taken */
            for (uint32_t i = 0; pick == NONE && i < s->blen[k]; i++)
                if (!s->want[s->bn[(size_t)k * s->nodes + i]])
                    pick = s->bn[(size_t)k * s->nodes + i];
        for (uint32_t i = 0; i < s->nsel; i++)
            s->want[s->sel[i]] = 0;
        if (pick == NONE)
            return WK_E_NOROOM;
        sel_add(s, pick, r);
    }
    return 0;
}

/* A candidate block of n GPUs from the free pool into cand. */
int wk_sci_propose(WkSciState *s, WkRng *rng, int how, uint32_t n)
{
    if (n > s->free_total || n == 0)
        return WK_E_NOROOM;
    s->nsel = 0;
    if (s->p.whole_nodes) {
        if (prop_whole(s, rng, how, n) < 0)
            return WK_E_NOROOM;
        emit(s);
        return 0;
    }
    switch (how) {
    case PROP_PACK: prop_pack(s, n); break;
    case PROP_POD: prop_pod(s, rng, n); break;
    case PROP_NODE: prop_node(s, rng, n); break;
    default: prop_grow(s, rng, n); break;
    }
    emit(s);
    return 0;
}

int wk_sci_random_how(const WkSciState *s, WkRng *rng)
{
    return s->p.local_rules ? PROP_GROW : (int)wk_rng_uint(rng, 3);
}
