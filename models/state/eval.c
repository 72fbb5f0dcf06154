/* SPDX-License-Identifier: Apache-2.0 */
/* eval.c — a job on a placement without a run (see eval.h): environment,
 * rings, and a one-job evaluation on its own flow network. */
#include "models/state/eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/flow.h"
#include "models/state/a2a.h"

double wk_eval_link_bw(const WkCluster *c)
{
    const WkFabric *f = &c->fabric;
    return f->spec.kind == WK_FABRIC_NONE ? 50e9 : f->spec.link_bytes_per_s;
}

/* Each DP replica runs at its slowest GPU; micro-batches are dealt in
 * proportion to replica speed, so the job runs at the mean replica speed
 * (relative to the slowest SKU's nominal peak). */
static double rebalanced_speed(const WkCluster *c, const WkModelSpec *m, const uint32_t *gpus, uint32_t n,
                               double clock_factor, const WkGpuSku *slow, double speed)
{
    uint32_t per = m->kind == WK_MODEL_LLM ? m->tp * m->pp * m->cp : 1;
    double sum = 0;
    uint32_t reps = 0;
    for (uint32_t i = 0; i + per <= n; i += per, reps++) {
        double rs = INFINITY;
        for (uint32_t k = 0; k < per; k++) {
            double v = wk_cluster_sku_of(c, gpus[i + k])->bf16_flops * (c->clock[gpus[i + k]] * clock_factor);
            rs = v < rs ? v : rs;
        }
        sum += rs / slow->bf16_flops;
    }
    return reps ? sum / reps : speed;
}

void wk_eval_env(const WkCluster *c, const WkModelSpec *m, const uint32_t *gpus, uint32_t n, double clock_factor,
                 WkPerfEnv *env)
{
    const WkGpuSku *slow = wk_cluster_sku_of(c, gpus[0]), *small = slow;
    double speed = 1.0;
    uint32_t nvl = UINT32_MAX;
    uint32_t d0 = wk_cluster_nvlink_domain(c, gpus[0]);
    int multi = 0;
    for (uint32_t i = 0; c->ngroups == 1 && i < n; i++) { /* one SKU: only the clocks and domains vary */
        double ck = c->clock[gpus[i]] * clock_factor;
        if (ck < speed)
            speed = ck;
        multi |= wk_cluster_nvlink_domain(c, gpus[i]) != d0;
    }
    if (c->ngroups == 1 && n)
        nvl = c->groups[0].nvlink_gpus;
    for (uint32_t i = 0; c->ngroups != 1 && i < n; i++) {
        const WkGpuSku *s = wk_cluster_sku_of(c, gpus[i]);
        if (s->bf16_flops < slow->bf16_flops)
            slow = s;
        if (s->hbm_bytes < small->hbm_bytes)
            small = s;
        double ck = c->clock[gpus[i]] * clock_factor;
        if (ck < speed)
            speed = ck;
        uint32_t g = wk_cluster_group_of(c, gpus[i])->nvlink_gpus;
        nvl = g < nvl ? g : nvl;
        multi |= wk_cluster_nvlink_domain(c, gpus[i]) != d0;
    }
    if (m->rebalance)
        speed = rebalanced_speed(c, m, gpus, n, clock_factor, slow, speed);
    int tp_cross = 0;
    uint32_t tp = m->kind == WK_MODEL_LLM ? m->tp : 1;
    for (uint32_t i = 0; tp > 1 && i + tp <= n && !tp_cross; i += tp) {
        uint32_t d = wk_cluster_nvlink_domain(c, gpus[i]);
        for (uint32_t k = 1; k < tp; k++)
            tp_cross |= wk_cluster_nvlink_domain(c, gpus[i + k]) != d;
    }
    double cap = 1.0; /* a synchronous job runs at its slowest capped rank */
    for (uint32_t i = 0; (c->capped | c->site_capped) && i < n; i++) {
        double f = wk_cluster_cap_clock(c, gpus[i]);
        cap = f < cap ? f : cap;
    }
    *env = (WkPerfEnv){
        .sku = slow,
        .mem_sku = small,
        .speed = speed,
        .cap_clock = cap,
        .gpus = n,
        .nvlink_gpus = nvl,
        .nvlink_bw = slow->link_bw_bytes_per_s / 2,
        .net_bw = wk_eval_link_bw(c),
        .tp_cross = tp_cross,
        .multi_domain = multi,
    };
}

void wk_eval_stages(const WkCluster *c, const WkModelSpec *m, const uint32_t *gpus, uint32_t n, double clock_factor,
                    WkPerfStage *stages)
{
    uint32_t pp = m->pp ? m->pp : 1, per = m->tp * m->cp, rep = per * pp;
    for (uint32_t k = 0; k < pp; k++) {
        stages[k].sku = NULL;
        stages[k].speed = 1.0;
    }
    for (uint32_t i = 0; per && i < n; i++) {
        WkPerfStage *st = &stages[(i % rep) / per];
        const WkGpuSku *s = wk_cluster_sku_of(c, gpus[i]);
        double ck = c->clock[gpus[i]] * clock_factor;
        if (!st->sku || s->bf16_flops < st->sku->bf16_flops)
            st->sku = s;
        st->speed = ck < st->speed ? ck : st->speed;
    }
}

typedef struct {
    uint32_t domain, rank, gpu;
} DomGpu;

static int cmp_domain(const void *a, const void *b)
{
    const DomGpu *x = a, *y = b;
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_rank(const void *a, const void *b)
{
    const DomGpu *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Whether a[0..n) is in strictly increasing order by cmp: the orders here
 * are total (ranks are distinct), so a sorted array is what qsort makes. */
static int sorted(const DomGpu *a, uint32_t n, int (*cmp)(const void *, const void *))
{
    for (uint32_t i = 1; i < n; i++)
        if (cmp(&a[i - 1], &a[i]) >= 0)
            return 0;
    return 1;
}

/* Scratch of the ring construction, kept across the jobs of a sweep. */
typedef struct {
    DomGpu *dg, *heads;   /* [cap], [cap + 1] */
    uint32_t *start, cap; /* [cap + 1] */
    uint32_t *ed;         /* edges, [ed_cap] */
    size_t ed_cap;
} RingBuf;

static void ringbuf_fini(RingBuf *rb)
{
    free(rb->dg);
    free(rb->heads);
    free(rb->start);
    free(rb->ed);
    *rb = (RingBuf){0};
}

/* wk_eval_rings into rb: rb->ed holds the 2 x *nedges GPU ids (none when
 * the job sits in one domain). */
static int rings_into(const WkCluster *c, const uint32_t *gpus, uint32_t n, RingBuf *rb, uint32_t *nedges,
                      uint8_t *path_class, WkError *err)
{
    *nedges = 0;
    *path_class = WK_PATH_LOCAL;
    if (n > rb->cap || !rb->dg) {
        DomGpu *dg = realloc(rb->dg, ((size_t)n + 1) * sizeof *dg);
        if (dg)
            rb->dg = dg;
        DomGpu *heads = realloc(rb->heads, ((size_t)n + 1) * sizeof *heads); /* per domain: first rank, start */
        if (heads)
            rb->heads = heads;
        uint32_t *start = realloc(rb->start, ((size_t)n + 1) * sizeof *start);
        if (start)
            rb->start = start;
        if (!dg || !heads || !start)
            return wk_error_nomem(err, "job rings");
        rb->cap = n;
    }
    DomGpu *dg = rb->dg, *heads = rb->heads;
    uint32_t *start = rb->start;
    int in_order = 1; /* by (domain, rank): a placement is mostly node after node already */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = wk_cluster_nvlink_domain(c, gpus[i]);
        in_order &= i == 0 || dg[i - 1].domain <= d; /* ranks rise with i: equal domains are in order */
        dg[i] = (DomGpu){d, i, gpus[i]};
    }
    if (!in_order)
        qsort(dg, n, sizeof *dg, cmp_domain);
    uint32_t nd = 0, rings = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (i == 0 || dg[i].domain != dg[i - 1].domain) {
            if (nd && i - heads[nd - 1].gpu < rings) /* the GPUs of the domain before: a run of dg */
                rings = i - heads[nd - 1].gpu;
            heads[nd++] = (DomGpu){dg[i].domain, dg[i].rank, i}; /* gpu field: start index */
        }
    if (nd && n - heads[nd - 1].gpu < rings)
        rings = n - heads[nd - 1].gpu;
    if (!sorted(heads, nd, cmp_rank))
        qsort(heads, nd, sizeof *heads, cmp_rank);
    for (uint32_t d = 0; d < nd; d++)
        start[d] = heads[d].gpu;
    if (rings > c->rails)
        rings = c->rails;
    if (nd <= 1)
        return 0;
    size_t need = (size_t)rings * nd * 2;
    if (need > rb->ed_cap) {
        uint32_t *ed = realloc(rb->ed, need * sizeof *ed);
        if (!ed)
            return wk_error_nomem(err, "job rings");
        rb->ed = ed;
        rb->ed_cap = need;
    }
    uint32_t *ed = rb->ed, k2 = 0;
    for (uint32_t k = 0; k < rings; k++) {
        for (uint32_t d = 0; d < nd; d++) {
            uint32_t a = dg[start[d] + k].gpu, b = dg[start[d + 1 < nd ? d + 1 : 0] + k].gpu;
            if (*path_class < WK_PATH_CROSS_POD) { /* the widest class: no edge can widen it */
                WkPathClass pc = wk_cluster_path_class(c, a, b);
                if (pc > *path_class)
                    *path_class = (uint8_t)pc;
            }
            ed[k2++] = a;
            ed[k2++] = b;
        }
    }
    *nedges = k2 / 2;
    return 0;
}

int wk_eval_rings(const WkCluster *c, const uint32_t *gpus, uint32_t n, uint32_t **edges, uint32_t *nedges,
                  uint8_t *path_class, WkError *err)
{
    RingBuf rb = {0};
    *edges = NULL;
    int rc = rings_into(c, gpus, n, &rb, nedges, path_class, err);
    if (rc == 0 && *nedges) {
        *edges = rb.ed; /* handed over */
        rb.ed = NULL;
    }
    ringbuf_fini(&rb);
    return rc;
}

/* The network outcome of a job on the first GPUs. */
typedef struct {
    uint32_t key[10];     /* n and the model fields the environment and the flows read */
    WkPerfEnv env0;       /* wk_eval_env's environment */
    double bw, ep_bw;     /* slowest ring flow; the all-to-all's per-NIC rate */
    int ep_set;           /* whether the all-to-all went on the fabric */
    uint8_t pc;
} Memo;

#define SWEEP_MEMOS 64 /* outcomes kept (the most points of --scale); then the oldest goes */

/* The state kept across the jobs of a sweep (eval.h). */
struct WkEvalSweep {
    const WkCluster *c;
    uint32_t *ident;      /* 0, 1, 2, ...: the first GPUs, [nident] */
    uint32_t nident;
    RingBuf rb;
    WkFlowNet *net;       /* emptied after each job; NULL until needed */
    uint32_t *ids;        /* the ring flows' ids, [ids_cap] */
    size_t ids_cap;
    Memo *memo;           /* [nmemo], filled round robin at next_memo */
    uint32_t nmemo, next_memo;
    int keep;             /* 1: a sweep (memos kept); 0: one job alone */
};

static void sweep_fini(WkEvalSweep *s)
{
    free(s->ident);
    ringbuf_fini(&s->rb);
    wk_flownet_free(s->net);
    free(s->ids);
    free(s->memo);
}

/* The sweep's flow network, made on first use. */
static int sweep_net(WkEvalSweep *s, WkError *err)
{
    const WkCluster *c = s->c;
    return s->net ? 0
                  : wk_flownet_new(&s->net, 2 * wk_fabric_link_ids(&c->fabric), c->fabric.spec.link_bytes_per_s, err);
}

/* Add the rings' flows to the sweep's net; the slowest flow's rate, or the
 * link rate. The net is empty again on return. */
static int share_alone(WkEvalSweep *s, const uint32_t *edges, uint32_t nedges, double *bw, WkError *err)
{
    const WkCluster *c = s->c;
    int rc = sweep_net(s, err);
    if (rc == 0 && (size_t)nedges + 1 > s->ids_cap) {
        uint32_t *ids = realloc(s->ids, ((size_t)nedges + 1) * sizeof *ids);
        if (!ids)
            return wk_error_nomem(err, "perf flows");
        s->ids = ids;
        s->ids_cap = (size_t)nedges + 1;
    }
    if (rc == 0)
        rc = wk_flownet_reserve(s->net, nedges, (size_t)nedges * WK_FABRIC_MAX_HOPS, err);
    for (uint32_t i = 0; i < nedges && rc == 0; i++) {
        WkLinkId links[WK_FABRIC_MAX_HOPS];
        int nl = wk_cluster_path(c, edges[2 * i], edges[2 * i + 1], links);
        rc = wk_flownet_add(s->net, links, (size_t)nl, c->fabric.spec.link_bytes_per_s, 0, &s->ids[i], err);
    }
    if (rc == 0)
        rc = wk_flownet_solve(s->net, err);
    for (uint32_t k = 0; k < nedges && rc == 0; k++) {
        double f = wk_flownet_rate(s->net, s->ids[k]);
        if (f < *bw)
            *bw = f;
    }
    if (s->net)
        wk_flownet_clear(s->net);
    return rc;
}

int wk_eval_ep_spans(const WkModelSpec *m, const WkPerfEnv *env)
{
    uint32_t etp = m->etp ? m->etp : m->tp;
    return m->kind == WK_MODEL_LLM && m->ep > 1 && m->experts && env->multi_domain &&
           (uint64_t)m->ep * etp > env->nvlink_gpus;
}

/* The per-NIC rate of m's all-to-all on gpus[0..n) alone on c's fabric
 * (the sweep's net, empty again on return) into *ep_bw (unchanged when it
 * has no flows). */
static int a2a_alone(WkEvalSweep *s, const WkModelSpec *m, const uint32_t *gpus, uint32_t n, double *ep_bw,
                     WkError *err)
{
    uint32_t *ids = NULL, nids = 0, etp = m->etp ? m->etp : m->tp;
    int rc = sweep_net(s, err);
    WkError e;
    wk_error_clear(&e);
    if (rc == 0)
        rc = wk_a2a_add(s->net, s->c, NULL, 0, gpus, n, m->tp * m->cp, m->tp * m->pp * m->cp, m->ep, etp, &ids,
                        &nids, NULL, &e);
    if (rc == WK_E_INVAL) /* no whole expert groups here (the perf model says why) */
        rc = 0;
    else if (rc < 0)
        wk_error_set(err, rc, NULL, 0, 0, "%s", e.msg);
    if (rc == 0 && nids && (rc = wk_flownet_solve(s->net, err)) == 0) {
        double lo = INFINITY;
        for (uint32_t i = 0; i < nids; i++) {
            double f = wk_flownet_rate(s->net, ids[i]);
            lo = f < lo ? f : lo;
        }
        *ep_bw = (m->ep - 1) * lo;
    }
    if (s->net)
        wk_flownet_clear(s->net);
    free(ids);
    return rc;
}

/* The memo key of a job on the first n GPUs: what wk_eval_env, the rings
 * and the all-to-all read of the model (the cluster is the sweep's). */
static void memo_key(const WkModelSpec *m, uint32_t n, uint32_t key[10])
{
    uint32_t k[10] = {n, (uint32_t)m->kind, m->tp, m->pp, m->cp, m->ep, m->etp, m->experts, (uint32_t)m->rebalance,
                      1};
    memcpy(key, k, sizeof k);
}

/* gpus[0..n): list, or the first n GPUs (the sweep's identity list). */
static int sweep_gpus(WkEvalSweep *s, const uint32_t *list, uint32_t n, const uint32_t **gpus, WkError *err)
{
    if (list) {
        *gpus = list;
        return 0;
    }
    if (n > s->nident || !s->ident) {
        uint32_t *g = realloc(s->ident, ((size_t)n + 1) * sizeof *g);
        if (!g)
            return wk_error_nomem(err, "perf");
        for (uint32_t i = s->nident; i < n; i++)
            g[i] = i;
        s->ident = g;
        s->nident = n;
    }
    *gpus = s->ident;
    return 0;
}

/* Model m on gpus list[0..n) (NULL: the first n) of the sweep's cluster as
 * one site's part of a job of n x sites GPUs (wan NULL: one site, n GPUs);
 * *one (optional) receives the same job in one site with that environment.
 * A job on the first GPUs with a memo's key takes that memo's environment
 * and network outcome: the same numbers, without the rings and flows. */
static int eval_placed(WkEvalSweep *s, const WkModelSpec *m, const uint32_t *list, uint32_t n,
                       const WkPerfParams *pp, const WkPerfWan *wan, WkPerfResult *res, WkPerfResult *one,
                       uint8_t *path_class, WkError *err)
{
    const WkCluster *c = s->c;
    if (wan && wan->sites > 1 && (uint64_t)n * wan->sites > UINT32_MAX)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "%u GPUs x %u sites is too many", n, wan->sites);
    uint32_t key[10];
    memo_key(m, n, key);
    const Memo *hit = NULL;
    for (uint32_t i = 0; !list && i < s->nmemo && !hit; i++)
        if (memcmp(key, s->memo[i].key, sizeof key) == 0)
            hit = &s->memo[i];
    const uint32_t *gpus = NULL;
    WkPerfEnv env;
    int rc;
    if (hit) {
        env = hit->env0;
    } else {
        if ((rc = sweep_gpus(s, list, n, &gpus, err)) < 0)
            return rc;
        wk_eval_env(c, m, gpus, n, 1.0, &env);
    }
    WkPerfEnv env0 = env;
    if (wan && wan->sites > 1)
        env.gpus = n * wan->sites;
    WkPerfResult first;
    WkError e;
    wk_error_clear(&e);
    if ((rc = wk_perf_eval_wan(m, &env, pp, wan, &first, &e)) < 0)
        return wk_error_set(err, e.code == WK_E_RANGE ? WK_E_RANGE : WK_E_INVAL, NULL, 0, 0, "%s", e.msg);
    double bw = wk_eval_link_bw(c);
    *path_class = WK_PATH_LOCAL;
    if (hit) {
        bw = hit->bw;
        *path_class = hit->pc;
        if (hit->ep_set)
            env.ep_bw = hit->ep_bw;
    } else {
        int ep_set = 0;
        if (c->fabric.spec.kind != WK_FABRIC_NONE && env.multi_domain) {
            uint32_t nedges = 0;
            rc = rings_into(c, gpus, n, &s->rb, &nedges, path_class, err);
            if (rc == 0)
                rc = share_alone(s, s->rb.ed, nedges, &bw, err);
            if (rc == 0 && wk_eval_ep_spans(m, &env)) {
                double ep = 0;
                rc = a2a_alone(s, m, gpus, n, &ep, err);
                env.ep_bw = ep > 1 ? ep : ep > 0 ? 1 : 0;
                ep_set = 1;
            }
        }
        if (rc < 0)
            return rc;
        if (!list && s->keep && !s->memo)
            s->memo = malloc(SWEEP_MEMOS * sizeof *s->memo); /* none: no memo, the same results */
        if (!list && s->memo) {
            Memo *mo = &s->memo[s->next_memo];
            *mo = (Memo){.env0 = env0, .bw = bw, .ep_bw = env.ep_bw, .ep_set = ep_set, .pc = *path_class};
            memcpy(mo->key, key, sizeof key);
            s->next_memo = (s->next_memo + 1) % SWEEP_MEMOS;
            s->nmemo += s->nmemo < SWEEP_MEMOS;
        }
    }
    env.net_bw = bw > 1 ? bw : 1;
    wk_error_clear(&e);
    rc = wk_perf_eval_wan(m, &env, pp, wan, res, &e);
    if (rc == 0 && one)
        rc = wk_perf_eval(m, &env, pp, one, &e);
    if (rc < 0)
        wk_error_set(err, rc, NULL, 0, 0, "%s", e.msg);
    return rc;
}

int wk_eval_sweep_new(WkEvalSweep **out, const WkCluster *c, WkError *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return wk_error_nomem(err, "perf sweep");
    (*out)->c = c;
    (*out)->keep = 1;
    return 0;
}

void wk_eval_sweep_free(WkEvalSweep *s)
{
    if (!s)
        return;
    sweep_fini(s);
    free(s);
}

int wk_eval_sweep_job(WkEvalSweep *s, const WkModelSpec *m, const uint32_t *list, uint32_t n,
                      const WkPerfParams *pp, const WkPerfWan *wan, WkPerfResult *res, WkPerfResult *one,
                      uint8_t *path_class, WkError *err)
{
    return eval_placed(s, m, list, n, pp, wan, res, one, path_class, err);
}

int wk_eval_job(const WkCluster *c, const WkModelSpec *m, const uint32_t *list, uint32_t n, const WkPerfParams *pp,
                WkPerfResult *res, uint8_t *path_class, WkError *err)
{
    WkEvalSweep s = {.c = c};
    int rc = eval_placed(&s, m, list, n, pp, NULL, res, NULL, path_class, err);
    sweep_fini(&s);
    return rc;
}

int wk_eval_job_wan(const WkCluster *c, const WkModelSpec *m, const uint32_t *list, uint32_t n,
                    const WkPerfParams *pp, const WkPerfWan *wan, WkPerfResult *span, WkPerfResult *one,
                    uint8_t *path_class, WkError *err)
{
    WkEvalSweep s = {.c = c};
    int rc = eval_placed(&s, m, list, n, pp, wan, span, one, path_class, err);
    sweep_fini(&s);
    return rc;
}
