/* SPDX-License-Identifier: Apache-2.0 */
/* sci_anneal.c — the annealer behind the `sci` policy: the state (jobs and
 * their blocks), the Ising-like energy of docs/sci.md with incremental
 * deltas, the moves and the Metropolis loop. sci.c holds the policy that
 * drives it (when rounds run, parameters, the cascade model). */
#include "models/sched/sci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/sched/sched.h"

/* ====================== the annealer ====================== */

typedef struct {
    uint32_t n;            /* GPUs */
    double wait_term;      /* energy while unplaced: c_wait n wait_h */
    double rho;            /* placement-quality weight */
    const uint32_t *real;  /* running placement, NULL when queued */
    uint32_t *blk;         /* current block (capacity n) */
    double e;              /* energy of the current block while placed */
    uint32_t plpos, uppos; /* positions in placed[] / unplaced[], or NONE */
    uint32_t size_lo, size_hi; /* range of same-size items in bysize[] */
    uint8_t placed, pinned, moved;
    uint8_t fenced;        /* would outlast the blocked head's shadow time */
} Item;

#define NONE UINT32_MAX
#define CLAIMED 3 /* GPU state while loading: a real placement holds it */
#define SWEEP_MIN 16 /* moves per temperature at least; 2 per job in play otherwise */

struct WkSciState {
    const WkCluster *c;
    WkSciParams p;
    uint32_t G, nodes, pods, max_node;
    uint32_t *dom;       /* [G] NVLink domain of each GPU */
    uint32_t *leaf;      /* [G] leaf switch of each GPU's NIC; NULL without a fabric */
    uint32_t *want;      /* [nodes] scratch: GPUs to take per node, 0 outside emit */
    uint32_t *pod_first; /* [pods + 1] first node of each pod */
    uint8_t *gs;         /* [G] WK_SCI_FREE / USED / DOWN */
    uint32_t *node_used, *node_free, *pod_used, *pod_free;
    /* nodes by free GPUs: bucket k = bn[k * nodes .. k * nodes + blen[k]),
     * unordered; bpos[nd] = index of nd in its bucket */
    uint32_t *bn, *bpos, *blen;
    double *hot_cap;     /* [pods] hot_threshold x GPUs of the pod */
    uint32_t free_total;
    uint32_t spare;      /* GPUs fenced jobs may still take (the head's extra), UINT32_MAX = no reservation */
    Item *it;
    uint32_t nit, capit;
    uint32_t *pool;      /* block storage of the items */
    size_t poolcap;
    uint32_t *placed, nplaced;     /* movable placed items */
    uint32_t *unplaced, nunplaced; /* queued items not placed */
    uint32_t *bysize;              /* item ids sorted by size, then id */
    uint32_t *sizecnt, sizecap;    /* scratch of the counting sort into bysize: [largest job + 2] */
    uint32_t *cand, candcap;       /* candidate block */
    uint32_t *sel, *cnt, nsel;     /* chosen nodes and GPUs taken from each */
    uint64_t *key;                 /* scratch: node << 32 | count, for sorting */
    uint32_t *order;               /* scratch, max(nodes, pods) */
    uint32_t *nodebuf;             /* scratch, max_node */
    double e;                      /* tracked energy */
    /* the best configuration seen at a sweep's end (rounds with migration) */
    struct {
        uint32_t *pool;
        size_t poolcap;
        uint8_t *gs;
        uint32_t *counts;  /* node_used, node_free, pod_used, pod_free */
        Item *it;
        uint32_t capit;
        uint32_t free_total, spare;
        double e;
    } best;
};

void wk_sci_defaults(WkSciParams *p)
{
    *p = (WkSciParams){
        .j = {1.0, 0.5, 0.25, 0.0},
        .h_load = 1.0,
        .h_throttle = 4.0,
        .h_hot = 0.25,
        .hot_threshold = 0.9,
        .c_wait = 1.0,
        .c_node = 0.5,
        .c_pod = 1.0,
        .c_migrate = 1.0,
        .migrate_cost_s = 600,
        .tau_s = 3600,
        .t0 = 0.1,
        .alpha = 0.8,
        .t_min = 0.001,
        .moves = 2000,
        .window = 1024,
        .budget_us = 0,
        .migrate = 0,
        .reserve = 1,
        .local_rules = 0,
        .order_short = 0,
        .starve_s = 86400,
        .cascade = {.proc_s = 20e-6, .lat_nvlink_s = 2e-6, .lat_fabric_s = 8e-6, .switch_s = 0.3e-6, .period_s = 0},
    };
}

/* --- occupancy and the fragmentation / hot-spot terms --- */

static double node_phi(const WkSciState *s, uint32_t nd)
{
    return s->node_used[nd] && s->node_free[nd] ? s->p.c_node : 0;
}

static double pod_phi(const WkSciState *s, uint32_t p)
{
    double e = s->pod_used[p] && s->pod_free[p] ? s->p.c_pod : 0;
    double over = (double)s->pod_used[p] - s->hot_cap[p];
    return over > 0 ? e + s->p.h_hot * over : e;
}

/* Node nd's free count changes from node_free[nd] to k: it leaves its
 * bucket (the last member takes its slot) and joins bucket k. */
static void bucket_move(WkSciState *s, uint32_t nd, uint32_t k)
{
    uint32_t *from = s->bn + (size_t)s->node_free[nd] * s->nodes;
    uint32_t last = from[--s->blen[s->node_free[nd]]];
    from[s->bpos[nd]] = last, s->bpos[last] = s->bpos[nd];
    s->bpos[nd] = s->blen[k];
    s->bn[(size_t)k * s->nodes + s->blen[k]++] = nd;
    s->node_free[nd] = k;
}

/* Rebuild the buckets from node_free (nodes by id inside each). */
static void bucket_build(WkSciState *s)
{
    memset(s->blen, 0, ((size_t)s->max_node + 1) * sizeof *s->blen);
    for (uint32_t nd = 0; nd < s->nodes; nd++) {
        uint32_t k = s->node_free[nd];
        s->bpos[nd] = s->blen[k];
        s->bn[(size_t)k * s->nodes + s->blen[k]++] = nd;
    }
}

/* GPUs b[0..n) change state to `to` (FREE or USED; each must be in the other
 * state); returns the change of the occupancy terms. Counts move once per run
 * of GPUs of one node, so a block costs O(GPUs) memory writes and O(nodes)
 * term evaluations. */
static double flip(WkSciState *s, const uint32_t *b, uint32_t n, uint8_t to)
{
    const WkCluster *c = s->c;
    int up = to == WK_SCI_FREE; /* node free counts go up */
    double d = 0;
    for (uint32_t k = 0, j; k < n; k = j) {
        uint32_t nd = c->gpu_node[b[k]], p = c->node_pod[nd];
        for (j = k; j < n && c->gpu_node[b[j]] == nd; j++)
            s->gs[b[j]] = to;
        uint32_t m = j - k;
        d -= node_phi(s, nd) + pod_phi(s, p);
        bucket_move(s, nd, up ? s->node_free[nd] + m : s->node_free[nd] - m);
        if (up)
            s->node_used[nd] -= m, s->pod_used[p] -= m, s->pod_free[p] += m, s->free_total += m;
        else
            s->node_used[nd] += m, s->pod_used[p] += m, s->pod_free[p] -= m, s->free_total -= m;
        d += node_phi(s, nd) + pod_phi(s, p);
    }
    return d;
}

static double take_all(WkSciState *s, const uint32_t *b, uint32_t n)
{
    return flip(s, b, n, WK_SCI_USED);
}

static double give_all(WkSciState *s, const uint32_t *b, uint32_t n)
{
    return flip(s, b, n, WK_SCI_FREE);
}

/* --- the per-job terms --- */

/* Class between consecutive ranks a, b: local inside an NVLink domain, else
 * the fabric class between a and b's node's GPU on a's rail (the per-rail
 * rings of the performance model join the k-th GPUs of consecutive domains). */
static int pair_class(const WkSciState *s, uint32_t a, uint32_t b)
{
    if (s->dom[a] == s->dom[b])
        return WK_PATH_LOCAL;
    const WkCluster *c = s->c;
    uint32_t na = c->gpu_node[a], nb = c->gpu_node[b];
    uint32_t szb = c->node_first_gpu[nb + 1] - c->node_first_gpu[nb];
    uint32_t b2 = c->node_first_gpu[nb] + (a - c->node_first_gpu[na]) % szb;
    if (!s->leaf) /* no fabric: wk_cluster_path_class's rule */
        return c->node_pod[na] == c->node_pod[nb] ? WK_PATH_POD : WK_PATH_CROSS_POD;
    return wk_fabric_leaf_class(&c->fabric, s->leaf[a], s->leaf[b2]);
}

static int differs(const Item *it, const uint32_t *b)
{
    return it->real && memcmp(b, it->real, (size_t)it->n * sizeof *b) != 0;
}

/* E_j(B) = -rho C(B) - h_load n + h_throttle rho n (1 - c_min) + migration. */
static double block_energy(const WkSciState *s, const Item *it, const uint32_t *b)
{
    const WkSciParams *p = &s->p;
    double cpl = 0;
    float cmin = s->c->clock[b[0]];
    for (uint32_t r = 1; r < it->n; r++) {
        cpl += p->j[pair_class(s, b[r - 1], b[r])];
        if (s->c->clock[b[r]] < cmin)
            cmin = s->c->clock[b[r]];
    }
    double n = it->n;
    double e = -it->rho * cpl - p->h_load * n + p->h_throttle * it->rho * n * (1.0 - cmin);
    if (differs(it, b))
        e += p->c_migrate * n * p->migrate_cost_s / 3600.0;
    return e;
}

int wk_sci_block_scope(const WkSciState *s, const uint32_t *gpus, uint32_t n)
{
    int w = WK_PATH_LOCAL;
    for (uint32_t r = 1; r < n; r++) {
        int k = pair_class(s, gpus[r - 1], gpus[r]);
        if (k > w)
            w = k;
    }
    return w;
}

double wk_sci_energy(const WkSciState *s)
{
    double e = 0;
    for (uint32_t i = 0; i < s->nit; i++)
        e += s->it[i].placed ? block_energy(s, &s->it[i], s->it[i].blk) : s->it[i].wait_term;
    for (uint32_t nd = 0; nd < s->nodes; nd++)
        e += node_phi(s, nd);
    for (uint32_t p = 0; p < s->pods; p++)
        e += pod_phi(s, p);
    return e;
}

/* --- lists of placed (movable) and unplaced items --- */

static void list_add(uint32_t *list, uint32_t *n, uint32_t *pos, uint32_t i)
{
    *pos = *n;
    list[(*n)++] = i;
}

static void list_del(WkSciState *s, uint32_t *list, uint32_t *n, int placed, uint32_t i)
{
    uint32_t *pos = placed ? &s->it[i].plpos : &s->it[i].uppos;
    uint32_t last = list[--*n];
    list[*pos] = last;
    if (placed)
        s->it[last].plpos = *pos;
    else
        s->it[last].uppos = *pos;
    *pos = NONE;
}

static int movable(const WkSciState *s, const Item *it)
{
    return !it->real || s->p.migrate;
}

/* Item i becomes placed / unplaced (lists only). */
static void mark_placed(WkSciState *s, uint32_t i)
{
    Item *it = &s->it[i];
    if (it->uppos != NONE)
        list_del(s, s->unplaced, &s->nunplaced, 0, i);
    if (movable(s, it) && it->plpos == NONE)
        list_add(s->placed, &s->nplaced, &it->plpos, i);
    it->placed = 1;
}

static void mark_unplaced(WkSciState *s, uint32_t i)
{
    Item *it = &s->it[i];
    if (it->plpos != NONE)
        list_del(s, s->placed, &s->nplaced, 1, i);
    if (it->uppos == NONE)
        list_add(s->unplaced, &s->nunplaced, &it->uppos, i);
    it->placed = 0;
}

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

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
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
    } else if ((uint64_t)s->nsel * 16 < s->nodes) { /* no node twice: sort */
        for (uint32_t i = 0; i < s->nsel; i++)
            s->key[i] = (uint64_t)s->sel[i] << 32 | s->cnt[i];
        qsort(s->key, s->nsel, sizeof *s->key, cmp_u64);
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
        uint32_t nd = (uint32_t)(s->key[i] >> 32), m = 0, slow = 0;
        for (uint32_t g = c->node_first_gpu[nd]; g < c->node_first_gpu[nd + 1]; g++)
            if (s->gs[g] == WK_SCI_FREE) {
                s->nodebuf[m++] = g;
                slow |= c->clock[g] < 1.0f;
            }
        uint32_t want = (uint32_t)s->key[i];
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

enum { PROP_PACK, PROP_POD, PROP_NODE, PROP_GROW };

static uint32_t node_size(const WkSciState *s, uint32_t nd)
{
    return s->c->node_first_gpu[nd + 1] - s->c->node_first_gpu[nd];
}

/* Idle nodes (every GPU free) of pods order[0..m) in turn, taken whole
 * while at least a node's worth is still needed; node order inside each
 * pod, starting at node `from` (cyclically) in the first pod. */
static uint32_t take_idle(WkSciState *s, const uint32_t *order, uint32_t m, uint32_t whole, uint32_t from)
{
    uint32_t got = 0;
    for (uint32_t i = 0; i < m && got < whole; i++) {
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
 * models/run/place.c): a job smaller than the largest node goes into one
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
        uint32_t *cap = s->want; /* idle GPUs per pod, borrowed and zeroed again below */
        for (uint32_t nd = 0; nd < s->nodes; nd++)
            if (s->node_free[nd] == node_size(s, nd))
                cap[s->c->node_pod[nd]] += s->node_free[nd];
        uint32_t best = NONE;
        for (uint32_t p = 0; p < s->pods; p++)
            if (cap[p] >= whole && (best == NONE || cap[p] < cap[best]))
                best = p;
        if (best != NONE)
            po[m++] = best;
        for (uint32_t p = 0; p < s->pods; p++) {
            if (best == NONE && cap[p])
                po[m++] = p;
            cap[p] = 0;
        }
    } else {
        uint32_t idle = 0;
        for (uint32_t nd = 0; nd < s->nodes; nd++)
            idle += s->node_free[nd] == node_size(s, nd);
        if (!idle)
            return WK_E_NOROOM;
        uint32_t r = (uint32_t)wk_rng_uint(rng, idle);
        for (from = 0; s->node_free[from] != node_size(s, from) || r-- > 0; from++)
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
static int propose(WkSciState *s, WkRng *rng, int how, uint32_t n)
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

static int random_how(const WkSciState *s, WkRng *rng)
{
    return s->p.local_rules ? PROP_GROW : (int)wk_rng_uint(rng, 3);
}

/* --- state lifecycle --- */

void wk_sci_state_free(WkSciState *s)
{
    if (!s)
        return;
    free(s->dom);
    free(s->leaf);
    free(s->want);
    free(s->bn);
    free(s->bpos);
    free(s->blen);
    free(s->pod_first);
    free(s->gs);
    free(s->node_used);
    free(s->node_free);
    free(s->pod_used);
    free(s->pod_free);
    free(s->hot_cap);
    free(s->it);
    free(s->pool);
    free(s->placed);
    free(s->unplaced);
    free(s->bysize);
    free(s->sizecnt);
    free(s->cand);
    free(s->sel);
    free(s->cnt);
    free(s->key);
    free(s->order);
    free(s->nodebuf);
    free(s->best.pool);
    free(s->best.gs);
    free(s->best.counts);
    free(s->best.it);
    free(s);
}

void wk_sci_state_params(WkSciState *s, const WkSciParams *p)
{
    s->p = *p;
    for (uint32_t q = 0; q < s->pods; q++) {
        uint32_t gpus = s->c->node_first_gpu[s->pod_first[q + 1]] - s->c->node_first_gpu[s->pod_first[q]];
        s->hot_cap[q] = p->hot_threshold * gpus;
    }
}

int wk_sci_state_new(WkSciState **out, const WkCluster *c, const WkSciParams *p, WkError *err)
{
    WkSciState *s = calloc(1, sizeof *s);
    if (!s)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "sci: out of memory");
    s->c = c;
    s->G = c->gpus, s->nodes = c->nodes, s->pods = c->pods;
    for (uint32_t nd = 0; nd < c->nodes; nd++) {
        uint32_t sz = c->node_first_gpu[nd + 1] - c->node_first_gpu[nd];
        if (sz > s->max_node)
            s->max_node = sz;
    }
    s->dom = malloc((size_t)s->G * sizeof *s->dom);
    s->pod_first = calloc((size_t)s->pods + 1, sizeof *s->pod_first);
    s->gs = malloc(s->G);
    s->node_used = malloc((size_t)s->nodes * sizeof *s->node_used);
    s->node_free = malloc((size_t)s->nodes * sizeof *s->node_free);
    s->pod_used = malloc((size_t)s->pods * sizeof *s->pod_used);
    s->pod_free = malloc((size_t)s->pods * sizeof *s->pod_free);
    s->hot_cap = malloc((size_t)s->pods * sizeof *s->hot_cap);
    s->sel = malloc((size_t)s->nodes * sizeof *s->sel);
    s->cnt = malloc((size_t)s->nodes * sizeof *s->cnt);
    s->key = malloc((size_t)s->nodes * sizeof *s->key);
    s->want = calloc(s->nodes, sizeof *s->want);
    s->bn = malloc(((size_t)s->max_node + 1) * s->nodes * sizeof *s->bn);
    s->bpos = malloc((size_t)s->nodes * sizeof *s->bpos);
    s->blen = malloc(((size_t)s->max_node + 1) * sizeof *s->blen);
    s->order = malloc(((size_t)s->nodes + s->pods) * sizeof *s->order);
    s->nodebuf = malloc((size_t)s->max_node * sizeof *s->nodebuf);
    if (!s->dom || !s->pod_first || !s->gs || !s->node_used || !s->node_free || !s->pod_used || !s->pod_free ||
        !s->hot_cap || !s->sel || !s->cnt || !s->key || !s->want || !s->bn || !s->bpos || !s->blen || !s->order || !s->nodebuf) {
        wk_sci_state_free(s);
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "sci: out of memory");
    }
    for (uint32_t g = 0; g < s->G; g++)
        s->dom[g] = wk_cluster_nvlink_domain(c, g);
    if (c->fabric.spec.kind != WK_FABRIC_NONE) { /* wk_fabric_class's inputs, cached */
        if (!(s->leaf = malloc((size_t)s->G * sizeof *s->leaf))) {
            wk_sci_state_free(s);
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "sci: out of memory");
        }
        for (uint32_t g = 0; g < s->G; g++)
            s->leaf[g] = wk_cluster_leaf_of(c, g);
    }
    /* pods are runs of consecutive nodes (a group starts a new pod) */
    for (uint32_t nd = 0; nd < s->nodes; nd++)
        s->pod_first[c->node_pod[nd] + 1] = nd + 1;
    for (uint32_t q = 0; q < s->pods; q++)
        if (s->pod_first[q + 1] < s->pod_first[q])
            s->pod_first[q + 1] = s->pod_first[q];
    wk_sci_state_params(s, p);
    *out = s;
    return 0;
}

/* bysize[] = the items by size, then id (a counting sort over sizes
 * 0 .. maxn), and each item's range of same-size items in it. */
static void sort_by_size(WkSciState *s, uint32_t maxn)
{
    uint32_t *at = s->sizecnt; /* at[n + 1] counts size n, then at[n] is where size n starts */
    memset(at, 0, ((size_t)maxn + 2) * sizeof *at);
    for (uint32_t i = 0; i < s->nit; i++)
        at[s->it[i].n + 1]++;
    for (uint32_t n = 1; n <= maxn + 1; n++)
        at[n] += at[n - 1];
    for (uint32_t i = 0; i < s->nit; i++) {
        Item *it = &s->it[i];
        it->size_lo = at[it->n];
        it->size_hi = at[it->n + 1];
    }
    for (uint32_t i = 0; i < s->nit; i++)
        s->bysize[at[s->it[i].n]++] = i;
}

int wk_sci_state_load(WkSciState *s, const uint8_t *gpu, const WkSciJob *jobs, uint32_t njobs, WkError *err)
{
    size_t need = 0;
    uint32_t maxn = 1;
    for (uint32_t i = 0; i < njobs; i++) {
        need += jobs[i].gpus;
        if (jobs[i].gpus > maxn)
            maxn = jobs[i].gpus;
    }
    if (njobs > s->capit) {
        Item *ni = realloc(s->it, (size_t)njobs * sizeof *ni);
        uint32_t *a = ni ? realloc(s->placed, (size_t)njobs * sizeof *a) : NULL;
        if (a)
            s->placed = a;
        uint32_t *b = a ? realloc(s->unplaced, (size_t)njobs * sizeof *b) : NULL;
        if (b)
            s->unplaced = b;
        uint32_t *c = b ? realloc(s->bysize, (size_t)njobs * sizeof *c) : NULL;
        if (c)
            s->bysize = c;
        if (ni)
            s->it = ni;
        if (!c)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "sci: out of memory");
        s->capit = njobs;
    }
    if (need > s->poolcap) {
        uint32_t *np = realloc(s->pool, need * sizeof *np);
        if (!np)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "sci: out of memory");
        s->pool = np, s->poolcap = need;
    }
    if (maxn + 2 > s->sizecap) {
        uint32_t *nz = realloc(s->sizecnt, ((size_t)maxn + 2) * sizeof *nz);
        if (!nz)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "sci: out of memory");
        s->sizecnt = nz, s->sizecap = maxn + 2;
    }
    if (maxn > s->candcap) {
        uint32_t *nc = realloc(s->cand, (size_t)maxn * sizeof *nc);
        if (!nc)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "sci: out of memory");
        s->cand = nc, s->candcap = maxn;
    }
    memcpy(s->gs, gpu, s->G);
    memset(s->node_used, 0, (size_t)s->nodes * sizeof *s->node_used);
    memset(s->node_free, 0, (size_t)s->nodes * sizeof *s->node_free);
    memset(s->pod_used, 0, (size_t)s->pods * sizeof *s->pod_used);
    memset(s->pod_free, 0, (size_t)s->pods * sizeof *s->pod_free);
    s->free_total = 0;
    for (uint32_t g = 0; g < s->G; g++) {
        uint32_t nd = s->c->gpu_node[g], p = s->c->node_pod[nd];
        if (gpu[g] == WK_SCI_FREE)
            s->node_free[nd]++, s->pod_free[p]++, s->free_total++;
        else if (gpu[g] == WK_SCI_USED)
            s->node_used[nd]++, s->pod_used[p]++;
    }
    bucket_build(s);
    s->nit = njobs, s->nplaced = 0, s->nunplaced = 0, s->spare = UINT32_MAX;
    size_t off = 0;
    for (uint32_t i = 0; i < njobs; i++) {
        Item *it = &s->it[i];
        *it = (Item){.n = jobs[i].gpus, .rho = jobs[i].rho, .real = jobs[i].real, .blk = s->pool + off,
                     .plpos = NONE, .uppos = NONE,
                     .wait_term = s->p.c_wait * jobs[i].gpus * jobs[i].wait_s / 3600.0};
        off += it->n;
        if (it->real) {
            for (uint32_t k = 0; k < it->n; k++) {
                if (it->real[k] >= s->G || s->gs[it->real[k]] != WK_SCI_USED) {
                    memcpy(s->gs, gpu, s->G);
                    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                                        "sci: job %u placed on GPU %u that is not in use or is another job's", i,
                                        it->real[k]);
                }
                s->gs[it->real[k]] = CLAIMED;
            }
            memcpy(it->blk, it->real, (size_t)it->n * sizeof *it->blk);
            it->e = block_energy(s, it, it->blk);
            mark_placed(s, i);
        } else {
            mark_unplaced(s, i);
        }
    }
    memcpy(s->gs, gpu, s->G); /* CLAIMED back to USED */
    sort_by_size(s, maxn);
    s->e = wk_sci_energy(s);
    return 0;
}

int wk_sci_set_block(WkSciState *s, uint32_t i, const uint32_t *gpus)
{
    Item *it = &s->it[i];
    if (!gpus && it->real)
        return WK_E_INVAL;
    if (it->placed) {
        give_all(s, it->blk, it->n);
        mark_unplaced(s, i);
    }
    if (gpus) {
        for (uint32_t k = 0; k < it->n; k++) {
            if (gpus[k] >= s->G || s->gs[gpus[k]] != WK_SCI_FREE) {
                give_all(s, gpus, k);
                if (it->real) { /* back where it was */
                    take_all(s, it->blk, it->n);
                    mark_placed(s, i);
                }
                s->e = wk_sci_energy(s);
                return WK_E_INVAL;
            }
            take_all(s, gpus + k, 1);
        }
        memcpy(it->blk, gpus, (size_t)it->n * sizeof *gpus);
        it->moved = (uint8_t)differs(it, it->blk);
        it->e = block_energy(s, it, it->blk);
        mark_placed(s, i);
    }
    s->e = wk_sci_energy(s);
    return 0;
}

int wk_sci_pin(WkSciState *s, uint32_t i)
{
    Item *it = &s->it[i];
    if (it->placed)
        return 0;
    if (propose(s, NULL, PROP_PACK, it->n) < 0)
        return WK_E_NOROOM;
    double d = take_all(s, s->cand, it->n);
    memcpy(it->blk, s->cand, (size_t)it->n * sizeof *it->blk);
    it->e = block_energy(s, it, it->blk);
    it->pinned = 1;
    mark_placed(s, i);
    s->e += it->e - it->wait_term + d;
    return 0;
}

const uint32_t *wk_sci_block(const WkSciState *s, uint32_t i)
{
    return s->it[i].placed ? s->it[i].blk : NULL;
}

int wk_sci_moved(const WkSciState *s, uint32_t i)
{
    return s->it[i].placed && s->it[i].moved;
}

void wk_sci_reserve(WkSciState *s, uint32_t spare)
{
    s->spare = spare;
}

void wk_sci_fence(WkSciState *s, uint32_t i)
{
    s->it[i].fenced = 1;
}

uint32_t wk_sci_free(const WkSciState *s)
{
    return s->free_total;
}

/* --- moves --- */

/* Metropolis at temperature t per GPU the move touches (gpus): a move of a
 * large job is judged by its energy change per GPU, so one schedule serves
 * jobs of 1 and of 4,096 GPUs. */
static int metropolis(WkRng *rng, double de, double t, uint32_t gpus)
{
    return de <= 0 || wk_rng_uniform(rng) < exp(-de / (t * gpus));
}

static int move_place(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *it = &s->it[i];
    if ((it->fenced && it->n > s->spare) || propose(s, rng, random_how(s, rng), it->n) < 0)
        return 0;
    double d = take_all(s, s->cand, it->n);
    double e = block_energy(s, it, s->cand), de = e - it->wait_term + d;
    if (!metropolis(rng, de, t, it->n)) {
        give_all(s, s->cand, it->n);
        return 0;
    }
    memcpy(it->blk, s->cand, (size_t)it->n * sizeof *it->blk);
    it->e = e;
    it->moved = (uint8_t)differs(it, it->blk);
    mark_placed(s, i);
    if (it->fenced)
        s->spare -= it->n;
    s->e += de;
    return 1;
}

static int move_unplace(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *it = &s->it[i];
    double d = give_all(s, it->blk, it->n), de = it->wait_term - it->e + d;
    if (!metropolis(rng, de, t, it->n)) {
        take_all(s, it->blk, it->n);
        return 0;
    }
    mark_unplaced(s, i);
    if (it->fenced)
        s->spare += it->n;
    s->e += de;
    return 1;
}

/* 1 when every GPU of job it's real placement is free (it may go home). */
static int home_free(const WkSciState *s, const Item *it)
{
    for (uint32_t k = 0; k < it->n; k++)
        if (s->gs[it->real[k]] != WK_SCI_FREE)
            return 0;
    return 1;
}

/* Move job i to another block: a proposal, or — for a running job already
 * moved in this round, half of the time — back to where it runs, so a
 * migration tried while hot can be undone. t = 0: only the way home, only
 * downhill (the final quench). */
static int move_block(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *it = &s->it[i];
    double d = give_all(s, it->blk, it->n);
    int home = it->moved && (t == 0 || wk_rng_uniform(rng) < 0.5) && home_free(s, it);
    if (home) {
        memcpy(s->cand, it->real, (size_t)it->n * sizeof *s->cand);
    } else if (t == 0 || propose(s, rng, random_how(s, rng), it->n) < 0) {
        take_all(s, it->blk, it->n);
        return 0;
    }
    d += take_all(s, s->cand, it->n);
    double e = block_energy(s, it, s->cand), de = e - it->e + d;
    if (t == 0 ? de >= 0 : !metropolis(rng, de, t, it->n)) {
        give_all(s, s->cand, it->n);
        take_all(s, it->blk, it->n);
        return 0;
    }
    memcpy(it->blk, s->cand, (size_t)it->n * sizeof *it->blk);
    it->e = e;
    it->moved = (uint8_t)differs(it, it->blk);
    s->e += de;
    return 1;
}

/* Swap the blocks of i and a placed movable job of the same size (ranks keep
 * the block's order). Occupancy does not change, so only the job terms do. */
static int move_swap(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *a = &s->it[i];
    uint32_t span = a->size_hi - a->size_lo, k = NONE;
    for (int tries = 0; span > 1 && tries < 4 && k == NONE; tries++) {
        uint32_t c = s->bysize[a->size_lo + wk_rng_uint(rng, span)];
        if (c != i && s->it[c].plpos != NONE)
            k = c;
    }
    if (k == NONE)
        return move_block(s, rng, i, t);
    Item *b = &s->it[k];
    double ea = block_energy(s, a, b->blk), eb = block_energy(s, b, a->blk);
    double de = ea + eb - a->e - b->e;
    if (!metropolis(rng, de, t, a->n + b->n))
        return 0;
    uint32_t *tmp = a->blk;
    a->blk = b->blk, b->blk = tmp;
    a->e = ea, b->e = eb;
    a->moved = (uint8_t)differs(a, a->blk);
    b->moved = (uint8_t)differs(b, b->blk);
    s->e += de;
    return 1;
}

static int placeable(const WkSciState *s, const Item *it)
{
    return it->n <= s->free_total && (!it->fenced || it->n <= s->spare);
}

/* Exchange: waiting job i takes the place of v, a job placed in this round
 * (not pinned), which goes back to waiting — one move for what would
 * otherwise need an uphill unplace first. */
static int move_exchange(WkSciState *s, WkRng *rng, uint32_t i, double t)
{
    Item *q = &s->it[i], *v = NULL;
    for (int tries = 0; tries < 4 && !v; tries++) {
        Item *c = &s->it[s->placed[wk_rng_uint(rng, s->nplaced)]];
        if (!c->real && !c->pinned)
            v = c;
    }
    if (!v)
        return 0;
    uint32_t spare = s->spare == NONE ? NONE : s->spare + (v->fenced ? v->n : 0);
    if (q->n > s->free_total + v->n || (q->fenced && q->n > spare))
        return 0;
    double d = give_all(s, v->blk, v->n);
    if (propose(s, rng, random_how(s, rng), q->n) < 0) {
        take_all(s, v->blk, v->n);
        return 0;
    }
    d += take_all(s, s->cand, q->n);
    double e = block_energy(s, q, s->cand);
    double de = (e - q->wait_term) + (v->wait_term - v->e) + d;
    if (!metropolis(rng, de, t, q->n + v->n)) {
        give_all(s, s->cand, q->n);
        take_all(s, v->blk, v->n);
        return 0;
    }
    mark_unplaced(s, (uint32_t)(v - s->it));
    memcpy(q->blk, s->cand, (size_t)q->n * sizeof *q->blk);
    q->e = e;
    q->moved = 0;
    mark_placed(s, i);
    if (s->spare != NONE)
        s->spare = spare - (q->fenced ? q->n : 0);
    s->e += de;
    return 1;
}

static int one_move(WkSciState *s, WkRng *rng, double t)
{
    if (s->nunplaced && (!s->nplaced || wk_rng_uniform(rng) < 0.5)) {
        uint32_t i = s->unplaced[wk_rng_uint(rng, s->nunplaced)];
        for (int tries = 1; tries < 4 && !placeable(s, &s->it[i]); tries++)
            i = s->unplaced[wk_rng_uint(rng, s->nunplaced)];
        if (s->nplaced && (!placeable(s, &s->it[i]) || wk_rng_uniform(rng) < 0.25))
            return move_exchange(s, rng, i, t);
        return move_place(s, rng, i, t);
    }
    if (!s->nplaced)
        return 0;
    uint32_t i = s->placed[wk_rng_uint(rng, s->nplaced)];
    double u = wk_rng_uniform(rng);
    if (u < 0.2 && !s->it[i].real && !s->it[i].pinned)
        return move_unplace(s, rng, i, t);
    if (u < 0.6)
        return move_block(s, rng, i, t);
    return move_swap(s, rng, i, t);
}

/* Save the configuration as the best so far. Returns 0 or WK_E_NOMEM. */
static int save_best(WkSciState *s)
{
    size_t pool = 0;
    for (uint32_t i = 0; i < s->nit; i++)
        pool += s->it[i].n;
    size_t nc = 2 * ((size_t)s->nodes + s->pods);
    if (!s->best.gs && (!(s->best.gs = malloc(s->G)) || !(s->best.counts = malloc(nc * sizeof *s->best.counts))))
        return WK_E_NOMEM;
    if (pool > s->best.poolcap) {
        uint32_t *np = realloc(s->best.pool, pool * sizeof *np);
        if (!np)
            return WK_E_NOMEM;
        s->best.pool = np, s->best.poolcap = pool;
    }
    if (s->nit > s->best.capit) {
        Item *ni = realloc(s->best.it, (size_t)s->nit * sizeof *ni);
        if (!ni)
            return WK_E_NOMEM;
        s->best.it = ni, s->best.capit = s->nit;
    }
    memcpy(s->best.pool, s->pool, pool * sizeof *s->pool);
    memcpy(s->best.it, s->it, (size_t)s->nit * sizeof *s->it);
    memcpy(s->best.gs, s->gs, s->G);
    uint32_t *c = s->best.counts;
    memcpy(c, s->node_used, s->nodes * sizeof *c), c += s->nodes;
    memcpy(c, s->node_free, s->nodes * sizeof *c), c += s->nodes;
    memcpy(c, s->pod_used, s->pods * sizeof *c), c += s->pods;
    memcpy(c, s->pod_free, s->pods * sizeof *c);
    s->best.free_total = s->free_total, s->best.spare = s->spare, s->best.e = s->e;
    return 0;
}

static void restore_best(WkSciState *s)
{
    size_t pool = 0;
    for (uint32_t i = 0; i < s->nit; i++)
        pool += s->it[i].n;
    memcpy(s->pool, s->best.pool, pool * sizeof *s->pool);
    memcpy(s->it, s->best.it, (size_t)s->nit * sizeof *s->it);
    memcpy(s->gs, s->best.gs, s->G);
    const uint32_t *c = s->best.counts;
    memcpy(s->node_used, c, s->nodes * sizeof *c), c += s->nodes;
    memcpy(s->node_free, c, s->nodes * sizeof *c), c += s->nodes;
    memcpy(s->pod_used, c, s->pods * sizeof *c), c += s->pods;
    memcpy(s->pod_free, c, s->pods * sizeof *c);
    bucket_build(s);
    s->free_total = s->best.free_total, s->spare = s->best.spare, s->e = s->best.e;
    s->nplaced = s->nunplaced = 0; /* the lists, rebuilt in item order */
    for (uint32_t i = 0; i < s->nit; i++) {
        s->it[i].plpos = s->it[i].uppos = NONE;
        if (s->it[i].placed)
            mark_placed(s, i);
        else
            mark_unplaced(s, i);
    }
}

static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int wk_sci_anneal(WkSciState *s, WkRng *rng, WkSciAnnealStats *st)
{
    const WkSciParams *p = &s->p;
    *st = (WkSciAnnealStats){.e_before = s->e, .e_after = s->e};
    uint32_t active = s->nplaced;
    for (uint32_t k = 0; k < s->nunplaced; k++)
        active += placeable(s, &s->it[s->unplaced[k]]);
    if (!active || !p->moves)
        return 0;
    /* S sweeps of L moves at T = t0 alpha^k, k < S, with t0 alpha^(S-1) >= t_min */
    uint32_t sweeps = 1;
    if (p->t0 > p->t_min)
        sweeps = (uint32_t)floor(log(p->t_min / p->t0) / log(p->alpha)) + 1;
    uint32_t len = p->moves / sweeps, want = 2 * active < SWEEP_MIN ? SWEEP_MIN : 2 * active;
    if (len > want)
        len = want;
    if (len < 1)
        len = 1;
    uint64_t total = (uint64_t)sweeps * len;
    if (total > p->moves)
        total = p->moves;
    double t = p->t0, start = p->budget_us > 0 ? cpu_us() : 0;
    /* with running jobs in play a hot start can scatter them further than
     * the budget undoes: keep the best sweep end (the start included) */
    int keep = 0;
    for (uint32_t k = 0; k < s->nplaced && !keep; k++)
        keep = s->it[s->placed[k]].real != NULL;
    if (keep && save_best(s) < 0)
        keep = 0; /* out of memory: anneal without the safety net */
    for (uint64_t k = 0; k < total; k++) {
        if (k && k % len == 0) {
            t *= p->alpha;
            if (keep && s->e < s->best.e - 1e-9 && save_best(s) < 0)
                keep = 0;
        }
        if (p->budget_us > 0 && (k & 31) == 31 && cpu_us() - start > (double)p->budget_us)
            break;
        st->accepted += (uint32_t)one_move(s, rng, t);
        st->moves++;
    }
    /* quench: a moved job whose old GPUs are free goes home if that is lower */
    for (uint32_t k = 0; k < s->nplaced && st->moves < p->moves; k++)
        if (s->it[s->placed[k]].moved) {
            st->accepted += (uint32_t)move_block(s, rng, s->placed[k], 0);
            st->moves++;
        }
    if (keep && s->best.e < s->e - 1e-9)
        restore_best(s);
    st->e_after = s->e;
    return 0;
}
