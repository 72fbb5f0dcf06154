/* SPDX-License-Identifier: Apache-2.0 */
/* sci_state.c — the `sci` annealer's state: occupancy, the energy of
 * docs/sci.md with its incremental terms, the lists of placed and waiting
 * jobs, loading and pinning. Proposals: sci_propose.c; moves: sci_anneal.c. */
#include "models/sched/sci_impl.h"

#include <stdlib.h>
#include <string.h>

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
        .h_lend = 0.05,
        .compression = 2.0,
        .feedback_max = 8.0,
        .feedback_weight = 0.05,
    };
}

double wk_sci_coupling(const WkSciParams *p, int cls)
{
    if (!p->use_cascade || cls == WK_PATH_LOCAL || !(p->compression > 1))
        return p->j[cls];
    return p->j[WK_PATH_LOCAL] - (p->j[WK_PATH_LOCAL] - p->j[cls]) / p->compression;
}

double wk_sci_clock_loss(const WkSciParams *p, const float *clock, const uint32_t *gpus, uint32_t n)
{
    float cmin = clock[gpus[0]];
    double sum = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (clock[gpus[r]] < cmin)
            cmin = clock[gpus[r]];
        sum += clock[gpus[r]];
    }
    return p->use_division ? 1.0 - sum / n : 1.0 - cmin;
}

double wk_sci_feedback_scale(const WkSciParams *p, double avg)
{
    if (!p->feedback || !(avg > 0))
        return 1.0;
    return avg < 1 ? 1.0 : avg > p->feedback_max ? p->feedback_max : avg;
}

/* --- occupancy and the fragmentation / hot-spot terms --- */

static double node_phi(const WkSciState *s, uint32_t nd)
{
    double e = s->node_used[nd] && s->node_free[nd] ? s->p.c_node : 0;
    if (s->p.use_outsourcing && !s->node_used[nd] && s->node_free[nd] == wk_sci_node_size(s, nd))
        e -= s->p.h_lend * s->node_free[nd]; /* an idle node: what outsourcing can lend */
    return e;
}

static double pod_phi(const WkSciState *s, uint32_t p)
{
    double e = s->pod_used[p] && s->pod_free[p] ? s->p.c_pod : 0;
    double over = (double)s->pod_used[p] - s->hot_cap[p];
    return over > 0 ? e + s->p.h_hot * over : e;
}

/* Node nd leaves bucket `from`'s bitset for bucket `to`'s. */
static inline void bits_move(WkSciState *s, uint32_t nd, uint32_t from, uint32_t to)
{
    uint64_t bit = (uint64_t)1 << (nd & 63);
    s->bbits[(size_t)from * s->bwords + (nd >> 6)] &= ~bit;
    s->bbits[(size_t)to * s->bwords + (nd >> 6)] |= bit;
    s->btouch[from] = s->btouch[to] = 1;
}

/* Node nd's free count changes from `from` to `to`: the idle counts. */
static inline void idle_move(WkSciState *s, uint32_t nd, uint32_t from, uint32_t to)
{
    uint32_t sz = wk_sci_node_size(s, nd);
    if ((from == sz) != (to == sz)) { /* becomes idle, or stops being idle */
        uint32_t p = s->c->node_pod[nd];
        if (to == sz)
            s->pod_idle_n[p]++, s->pod_idle_g[p] += sz, s->idle_nodes++;
        else
            s->pod_idle_n[p]--, s->pod_idle_g[p] -= sz, s->idle_nodes--;
    }
}

/* Node nd's free count changes from node_free[nd] to k: it leaves its
 * bucket (the last member takes its slot) and joins bucket k. Bucket 0
 * (no free GPU) has its bitset but no list: no proposal reads it, and a
 * busy cluster keeps most nodes there. */
static inline void bucket_move(WkSciState *s, uint32_t nd, uint32_t k)
{
    uint32_t f = s->node_free[nd];
    idle_move(s, nd, f, k);
    bits_move(s, nd, f, k);
    if (f) {
        uint32_t *from = s->bn + (size_t)f * s->nodes;
        uint32_t last = from[--s->blen[f]];
        from[s->bpos[nd]] = last, s->bpos[last] = s->bpos[nd];
    }
    if (k) {
        s->bpos[nd] = s->blen[k];
        s->bn[(size_t)k * s->nodes + s->blen[k]++] = nd;
    }
    s->node_free[nd] = k;
}

/* Rebuild the buckets (nodes by id inside each), their bitsets and the idle
 * counts from node_free. */
void wk_sci_bucket_build(WkSciState *s)
{
    memset(s->blen, 0, ((size_t)s->max_node + 1) * sizeof *s->blen);
    memset(s->bbits, 0, ((size_t)s->max_node + 1) * s->bwords * sizeof *s->bbits);
    memset(s->btouch, 0, (size_t)s->max_node + 1);
    memset(s->pod_idle_n, 0, (size_t)s->pods * sizeof *s->pod_idle_n);
    memset(s->pod_idle_g, 0, (size_t)s->pods * sizeof *s->pod_idle_g);
    s->idle_nodes = 0;
    for (uint32_t nd = 0; nd < s->nodes; nd++) {
        uint32_t k = s->node_free[nd], sz = wk_sci_node_size(s, nd);
        if (k) { /* bucket 0 has no list (bucket_move) */
            s->bpos[nd] = s->blen[k];
            s->bn[(size_t)k * s->nodes + s->blen[k]++] = nd;
        }
        s->bbits[(size_t)k * s->bwords + (nd >> 6)] |= (uint64_t)1 << (nd & 63);
        if (k == sz) {
            uint32_t p = s->c->node_pod[nd];
            s->pod_idle_n[p]++, s->pod_idle_g[p] += sz, s->idle_nodes++;
        }
    }
}

void wk_sci_bucket_sort(WkSciState *s)
{
    s->btouch[0] = 0; /* bucket 0 has no list (bucket_move) */
    for (uint32_t k = 1; k <= s->max_node; k++) {
        if (!s->btouch[k])
            continue;
        s->btouch[k] = 0;
        const uint64_t *w = s->bbits + (size_t)k * s->bwords;
        uint32_t *out = s->bn + (size_t)k * s->nodes, len = 0;
        for (uint32_t i = 0; i < s->bwords; i++)
            for (uint64_t v = w[i]; v; v &= v - 1) {
                uint32_t nd = i << 6 | (uint32_t)__builtin_ctzll(v);
                s->bpos[nd] = len;
                out[len++] = nd;
            }
        s->blen[k] = len;
    }
}

/* 1 when b[0..8) is first, first + 1, ..., first + 7: an 8-GPU node taken
 * whole in rank order, the common run of node-granular blocks. */
#if defined(__GNUC__)
typedef uint32_t WkSciU32x4 __attribute__((vector_size(16)));
static inline int whole8(const uint32_t *b, uint32_t first)
{
    WkSciU32x4 lo, hi, e = {first, first + 1, first + 2, first + 3};
    memcpy(&lo, b, sizeof lo);
    memcpy(&hi, b + 4, sizeof hi);
    WkSciU32x4 x = (lo ^ e) | (hi ^ (e + 4));
    uint64_t w[2];
    memcpy(w, &x, sizeof w);
    return (w[0] | w[1]) == 0;
}
#else
static inline int whole8(const uint32_t *b, uint32_t first)
{
    uint32_t bad = 0;
    for (uint32_t u = 0; u < 8; u++)
        bad |= b[u] ^ (first + u);
    return bad == 0;
}
#endif

/* GPUs b[0..n) change state to `to` (FREE or USED; each must be in the other
 * state); returns the change of the occupancy terms when with_d, else 0.
 * Counts move once per run of GPUs of one node, so a block costs O(GPUs)
 * memory writes and O(nodes) term evaluations. The buckets move the same way
 * with or without the terms (their order decides later proposals). */
static inline double flip(WkSciState *s, const uint32_t *b, uint32_t n, uint8_t to, int with_d)
{
    const WkCluster *c = s->c;
    int up = to == WK_SCI_FREE; /* node free counts go up */
    double d = 0;
    for (uint32_t k = 0, j; k < n; k = j) {
        uint32_t nd = c->gpu_node[b[k]], p = c->node_pod[nd];
        uint32_t first = c->node_first_gpu[nd], sz = c->node_first_gpu[nd + 1] - first;
        if (!s->dirty[nd])
            s->dirty[nd] = 1, s->dlist[s->ndirty++] = nd;
        if (sz == 8 && n - k >= 8 && whole8(b + k, first)) { /* the whole node, in order */
            memset(s->gs + first, to, 8);
            j = k + 8;
        } else {
            s->gs[b[k]] = to;
            for (j = k + 1; j < n && b[j] - first < sz; j++) /* the run of node nd's GPUs */
                s->gs[b[j]] = to;
        }
        uint32_t m = j - k;
        if (with_d)
            d -= node_phi(s, nd) + pod_phi(s, p);
        bucket_move(s, nd, up ? s->node_free[nd] + m : s->node_free[nd] - m);
        if (up)
            s->node_used[nd] -= m, s->pod_used[p] -= m, s->pod_free[p] += m, s->free_total += m;
        else
            s->node_used[nd] += m, s->pod_used[p] += m, s->pod_free[p] -= m, s->free_total -= m;
        if (with_d)
            d += node_phi(s, nd) + pod_phi(s, p);
    }
    return d;
}

double wk_sci_take_all(WkSciState *s, const uint32_t *b, uint32_t n)
{
    return flip(s, b, n, WK_SCI_USED, 1);
}

double wk_sci_give_all(WkSciState *s, const uint32_t *b, uint32_t n)
{
    return flip(s, b, n, WK_SCI_FREE, 1);
}

void wk_sci_take_quiet(WkSciState *s, const uint32_t *b, uint32_t n)
{
    flip(s, b, n, WK_SCI_USED, 0);
}

void wk_sci_give_quiet(WkSciState *s, const uint32_t *b, uint32_t n)
{
    flip(s, b, n, WK_SCI_FREE, 0);
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

int wk_sci_differs(const Item *it, const uint32_t *b)
{
    return it->real && memcmp(b, it->real, (size_t)it->n * sizeof *b) != 0;
}

/* E_j(B) = -rho C(B) - h_load n + h_throttle rho n (1 - c_min) + migration
 * (with use_division 1 - the mean clock; with use_cascade the couplings of
 * wk_sci_coupling). */
double wk_sci_block_energy(const WkSciState *s, const Item *it, const uint32_t *b)
{
    const WkSciParams *p = &s->p;
    double cpl = 0;
    float cmin = s->c->clock[b[0]];
    for (uint32_t r = 1; r < it->n; r++) {
        cpl += s->jeff[pair_class(s, b[r - 1], b[r])];
        if (s->c->clock[b[r]] < cmin)
            cmin = s->c->clock[b[r]];
    }
    double n = it->n;
    double loss = p->use_division ? wk_sci_clock_loss(p, s->c->clock, b, it->n) : 1.0 - cmin;
    if (it->speed) { /* use_roles: the block runs at its slowest SKU's relative speed */
        float smin = 1;
        for (uint32_t r = 0; r < it->n; r++) {
            float v = it->speed[s->c->node_group[s->c->gpu_node[b[r]]]];
            smin = v < smin ? v : smin;
        }
        loss = 1.0 - (1.0 - loss) * smin;
    }
    double e = -it->rho * cpl - p->h_load * n + p->h_throttle * it->rho * n * loss;
    if (wk_sci_differs(it, b))
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
        e += s->it[i].placed ? wk_sci_block_energy(s, &s->it[i], s->it[i].blk) : s->it[i].wait_term;
    /* node terms in node order, only where one may be non-zero: a node
     * with no free GPU has none, and an idle node only under outsourcing
     * (adding the skipped zeros would not change e: e is never -0) */
    uint32_t top = s->p.use_outsourcing ? s->max_node : s->max_node - 1;
    for (uint32_t i = 0; i < s->bwords; i++) {
        uint64_t v = 0;
        for (uint32_t k = 1; k <= top; k++)
            v |= s->bbits[(size_t)k * s->bwords + i];
        for (; v; v &= v - 1)
            e += node_phi(s, i << 6 | (uint32_t)__builtin_ctzll(v));
    }
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
void wk_sci_mark_placed(WkSciState *s, uint32_t i)
{
    Item *it = &s->it[i];
    if (it->uppos != NONE)
        list_del(s, s->unplaced, &s->nunplaced, 0, i);
    if (movable(s, it) && it->plpos == NONE)
        list_add(s->placed, &s->nplaced, &it->plpos, i);
    it->placed = 1;
}

void wk_sci_mark_unplaced(WkSciState *s, uint32_t i)
{
    Item *it = &s->it[i];
    if (it->plpos != NONE)
        list_del(s, s->placed, &s->nplaced, 1, i);
    if (it->uppos == NONE)
        list_add(s->unplaced, &s->nunplaced, &it->uppos, i);
    it->placed = 0;
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
    free(s->bbits);
    free(s->btouch);
    free(s->pod_idle_n);
    free(s->pod_idle_g);
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
    free(s->dirty);
    free(s->dlist);
    free(s->best.pool);
    free(s->best.gs);
    free(s->best.counts);
    free(s->best.it);
    free(s);
}

void wk_sci_state_params(WkSciState *s, const WkSciParams *p)
{
    s->p = *p;
    for (int k = 0; k < 4; k++)
        s->jeff[k] = wk_sci_coupling(p, k);
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
    s->bwords = (s->nodes + 63) / 64;
    s->bbits = calloc(((size_t)s->max_node + 1) * s->bwords, sizeof *s->bbits);
    s->btouch = calloc((size_t)s->max_node + 1, 1);
    s->order = malloc(((size_t)s->nodes + s->pods) * sizeof *s->order);
    s->nodebuf = malloc((size_t)s->max_node * sizeof *s->nodebuf);
    s->pod_idle_n = malloc((size_t)s->pods * sizeof *s->pod_idle_n);
    s->pod_idle_g = malloc((size_t)s->pods * sizeof *s->pod_idle_g);
    s->dirty = calloc(s->nodes, 1);
    s->dlist = malloc((size_t)s->nodes * sizeof *s->dlist);
    s->stale = 1;
    if (!s->bbits || !s->btouch || !s->dirty || !s->dlist || !s->pod_idle_n || !s->pod_idle_g || !s->dom || !s->pod_first || !s->gs || !s->node_used || !s->node_free || !s->pod_used || !s->pod_free ||
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

/* Node nd's GPU states from gpu[], its counts and its pod's and the
 * cluster's moved by the difference (unsigned wrap-around adds it back). */
static void node_reload(WkSciState *s, const uint8_t *gpu, uint32_t nd)
{
    const WkCluster *c = s->c;
    uint32_t first = c->node_first_gpu[nd], sz = c->node_first_gpu[nd + 1] - first;
    /* the counts always agree with gs: a node whose GPU states did not
     * change (a move's node the pool now matches) has nothing to re-read */
    if (memcmp(s->gs + first, gpu + first, sz) == 0)
        return;
    uint32_t p = c->node_pod[nd], fr = 0, us = 0;
    for (uint32_t g = first; g < first + sz; g++) {
        s->gs[g] = gpu[g];
        fr += gpu[g] == WK_SCI_FREE;
        us += gpu[g] == WK_SCI_USED;
    }
    s->pod_free[p] += fr - s->node_free[nd], s->free_total += fr - s->node_free[nd];
    s->pod_used[p] += us - s->node_used[nd];
    if (fr != s->node_free[nd]) { /* the bucket's bits and the idle counts; the order: wk_sci_bucket_sort */
        idle_move(s, nd, s->node_free[nd], fr);
        bits_move(s, nd, s->node_free[nd], fr);
    }
    s->node_free[nd] = fr, s->node_used[nd] = us;
}

/* The GPU states and counts from gpu[]: every node when stale or changed is
 * NULL (returns 1: the buckets need a rebuild), else the dirty nodes and
 * changed[0..nchanged) (returns 0: the bitsets are current). */
static int sync_gpus(WkSciState *s, const uint8_t *gpu, const uint32_t *changed, uint32_t nchanged)
{
    int full = s->stale || !changed;
    if (full) {
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
    } else {
        for (uint32_t k = 0; k < s->ndirty; k++)
            node_reload(s, gpu, s->dlist[k]);
        for (uint32_t k = 0; k < nchanged; k++)
            node_reload(s, gpu, changed[k]);
    }
    for (uint32_t k = 0; k < s->ndirty; k++)
        s->dirty[s->dlist[k]] = 0;
    s->ndirty = 0;
    s->stale = 0;
    return full;
}

int wk_sci_state_load(WkSciState *s, const uint8_t *gpu, const WkSciJob *jobs, uint32_t njobs, WkError *err)
{
    return wk_sci_state_reload(s, gpu, NULL, 0, jobs, njobs, err);
}

int wk_sci_state_reload(WkSciState *s, const uint8_t *gpu, const uint32_t *changed, uint32_t nchanged,
                        const WkSciJob *jobs, uint32_t njobs, WkError *err)
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
    if (sync_gpus(s, gpu, changed, nchanged))
        wk_sci_bucket_build(s);
    else
        wk_sci_bucket_sort(s);
    s->nit = njobs, s->nplaced = 0, s->nunplaced = 0, s->spare = UINT32_MAX;
    size_t off = 0;
    for (uint32_t i = 0; i < njobs; i++) {
        Item *it = &s->it[i];
        *it = (Item){.n = jobs[i].gpus, .rho = jobs[i].rho, .real = jobs[i].real, .blk = s->pool + off,
                     .mem = jobs[i].mem, .speed = s->p.use_roles ? jobs[i].speed : NULL,
                     .plpos = NONE, .uppos = NONE,
                     .wait_term = s->p.c_wait * jobs[i].gpus * jobs[i].wait_s / 3600.0};
        off += it->n;
        if (it->real) {
            for (uint32_t k = 0; k < it->n; k++) {
                if (it->real[k] >= s->G || s->gs[it->real[k]] != WK_SCI_USED) {
                    memcpy(s->gs, gpu, s->G);
                    s->stale = 1;
                    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                                        "sci: job %u placed on GPU %u that is not in use or is another job's", i,
                                        it->real[k]);
                }
                s->gs[it->real[k]] = CLAIMED;
            }
            memcpy(it->blk, it->real, (size_t)it->n * sizeof *it->blk);
            it->e = wk_sci_block_energy(s, it, it->blk);
            wk_sci_mark_placed(s, i);
        } else {
            wk_sci_mark_unplaced(s, i);
        }
    }
    for (uint32_t i = 0; i < njobs; i++) /* CLAIMED back to USED */
        for (uint32_t k = 0; s->it[i].real && k < s->it[i].n; k++)
            s->gs[s->it[i].real[k]] = WK_SCI_USED;
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
        wk_sci_give_all(s, it->blk, it->n);
        wk_sci_mark_unplaced(s, i);
    }
    if (gpus) {
        for (uint32_t k = 0; k < it->n; k++) {
            if (gpus[k] >= s->G || s->gs[gpus[k]] != WK_SCI_FREE) {
                wk_sci_give_all(s, gpus, k);
                if (it->real) { /* back where it was */
                    wk_sci_take_all(s, it->blk, it->n);
                    wk_sci_mark_placed(s, i);
                }
                s->e = wk_sci_energy(s);
                return WK_E_INVAL;
            }
            wk_sci_take_all(s, gpus + k, 1);
        }
        memcpy(it->blk, gpus, (size_t)it->n * sizeof *gpus);
        it->moved = (uint8_t)wk_sci_differs(it, it->blk);
        it->e = wk_sci_block_energy(s, it, it->blk);
        wk_sci_mark_placed(s, i);
    }
    s->e = wk_sci_energy(s);
    return 0;
}

int wk_sci_fits(const WkSciState *s, const Item *it, const uint32_t *b)
{
    for (uint32_t k = 0; it->mem > 0 && k < it->n; k++)
        if (wk_cluster_sku_of(s->c, b[k])->hbm_bytes < it->mem)
            return 0;
    return 1;
}

int wk_sci_pin(WkSciState *s, uint32_t i)
{
    Item *it = &s->it[i];
    if (it->placed)
        return 0;
    if (wk_sci_propose(s, NULL, PROP_PACK, it->n) < 0 || !wk_sci_fits(s, it, s->cand))
        return WK_E_NOROOM;
    double d = wk_sci_take_all(s, s->cand, it->n);
    memcpy(it->blk, s->cand, (size_t)it->n * sizeof *it->blk);
    it->e = wk_sci_block_energy(s, it, it->blk);
    it->pinned = 1;
    wk_sci_mark_placed(s, i);
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

double wk_sci_state_energy(const WkSciState *s)
{
    return s->e;
}

uint32_t wk_sci_free(const WkSciState *s)
{
    return s->free_total;
}
