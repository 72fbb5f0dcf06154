/* SPDX-License-Identifier: Apache-2.0 */
/* sci.c — the seed paper's "Silicon Collective Intelligence" scheduler as a
 * simulated annealer: an Ising-like energy over the placement of queued and
 * running jobs (docs/sci.md), lowered by Metropolis moves under a geometric
 * temperature schedule on submit, release, incident and tick. The paper gives
 * no algorithm beyond "global objective, local coordination, annealing,
 * feedback"; every concrete term here is ours and documented as such. */
#include "models/sched/sci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/sched/queue.h"

/* ====================== the cascade model ====================== */

static double rounds(uint32_t f)
{
    return f <= 1 ? 0 : ceil(log2((double)f));
}

int wk_sci_cascade(const WkCluster *c, const WkSciCascadeParams *p, WkSciCascade *out, WkError *err)
{
    const double v[] = {p->proc_s, p->lat_nvlink_s, p->lat_fabric_s, p->switch_s, p->period_s};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!(v[i] >= 0) || !isfinite(v[i]))
            return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "sci: cascade times must be finite and >= 0");
    memset(out, 0, sizeof *out);
    /* from GPU 0: its domain, the domains whose rail-0 NIC shares its leaf,
     * the domains of its pod, the pods */
    uint32_t pod0 = c->node_pod[0], in_leaf = 0, last = UINT32_MAX, nd_end = 0;
    for (uint32_t nd = 0; nd < c->nodes && c->node_pod[nd] == pod0; nd++) {
        nd_end = nd + 1;
        uint32_t g = c->node_first_gpu[nd];
        if (wk_cluster_path_class(c, 0, g) > WK_PATH_LEAF)
            continue;
        for (uint32_t h = g; h < c->node_first_gpu[nd + 1]; h++) {
            uint32_t d = wk_cluster_nvlink_domain(c, h);
            if (d != last)
                in_leaf++, last = d;
        }
    }
    uint32_t in_pod = wk_cluster_nvlink_domain(c, c->node_first_gpu[nd_end] - 1) - wk_cluster_nvlink_domain(c, 0) + 1;
    out->fan[0] = c->groups[0].nvlink_gpus;
    out->fan[1] = in_leaf ? in_leaf : 1;
    out->fan[2] = (in_pod + out->fan[1] - 1) / out->fan[1];
    out->fan[3] = c->pods;
    int tiers = c->fabric.spec.kind == WK_FABRIC_NONE ? 0 : c->fabric.spec.tiers;
    double wait = p->period_s / 2, sw = p->switch_s;
    double hop_nv = p->proc_s + p->lat_nvlink_s + wait;
    double hop_leaf = p->proc_s + p->lat_fabric_s + wait;
    double hop_pod = hop_leaf + (tiers ? 2 * sw : 0);
    double hop_x = hop_leaf + (tiers == 3 ? 4 * sw : tiers ? 2 * sw : 0);
    out->nvlink_s = rounds(out->fan[0]) * hop_nv;
    out->leaf_s = out->nvlink_s + rounds(out->fan[1]) * hop_leaf;
    out->pod_s = out->leaf_s + rounds(out->fan[2]) * hop_pod;
    out->cluster_s = out->pod_s + rounds(out->fan[3]) * hop_x;
    return 0;
}

/* ====================== the policy ====================== */

typedef struct {
    double t_s;   /* expected end, s from now */
    uint32_t gpus;
} End;

typedef struct {
    WkSciParams p;
    WkRng *rng;
    WkSciState *st;
    uint32_t *q;          /* queue in order; q[0] is the head (= qbuf + qlo) */
    uint32_t *qbuf;       /* the queue's storage, room kept before the head and after the tail */
    size_t nq, qlo, capq;
    uint32_t *nbits;      /* [GPUs + 2] Fenwick tree: queued jobs by GPU count (count g at g + 1) */
    uint32_t *run;        /* jobs sci started that may still run */
    size_t nrun, caprun;
    WkTime *since;        /* [job] when it (re)entered the queue */
    size_t capj;
    uint8_t *gstate;      /* [gpus] the GPU states as of the last round that read them */
    uint64_t gen;         /* the host's change count then (wk_sched_node_gens) */
    int gread;            /* gstate has been read once */
    uint32_t *changed;    /* [nodes] scratch: nodes whose GPU states changed since */
    WkSciJob *jobs;       /* per call */
    uint32_t *jid;        /* [item] job id */
    uint8_t *stop;        /* [item] preempted for a migration in this round */
    double *rem;          /* [item] remaining run time estimate, s */
    size_t capjobs, capjid, capstop, caprem;
    End *ends;            /* scratch for the head's shadow time */
    size_t capends;
    WkPlaceBuf place;     /* fallback placement */
    WkSciRoles roles;     /* use_roles: per-job speeds by node group */
    WkSciStats stats;
} Sci;

/* a, grown to hold want elements (capacity doubled); NULL when out of
 * memory (a is then still valid and *cap unchanged). */
static void *grow(void *a, size_t *cap, size_t want, size_t elem)
{
    if (want <= *cap)
        return a;
    size_t nc = *cap ? *cap : 64;
    while (nc < want)
        nc *= 2;
    void *n = realloc(a, nc * elem);
    if (n)
        *cap = nc;
    return n;
}

static int dur_s(const WkNode *m, const char *key, double *out, WkError *err)
{
    WkTime t = (WkTime)llround(*out * 1e9);
    int rc = wk_node_duration(m, key, 0, 0, 365 * WK_NS_PER_DAY, &t, err);
    if (rc == 0)
        *out = wk_time_to_s(t);
    return rc;
}

static int read_params(WkSciParams *p, const WkNode *m, WkError *err)
{
    static const char *const known[] = {
        WK_SCHED_COMMON_KEYS, "j_nvlink", "j_leaf", "j_pod", "j_cross_pod", "h_load", "h_throttle", "h_hot",
        "hot_threshold", "wait", "frag_node", "frag_pod", "migrate", "reserve", "migrate_weight", "remaining_scale", "t0",
        "alpha", "t_min", "moves", "budget_us", "local_rules", "msg_proc", "latency_nvlink", "latency_fabric",
        "hop_switch", "gossip_period", "order", "starve", "window", "use_outsourcing", "use_cascade", "use_division",
        "feedback", "use_roles", "lend_weight", "compression", "feedback_max", "feedback_weight", NULL};
    /* the perf model's message latencies are the cascade's defaults */
    const WkNode *root = m;
    while (root->parent)
        root = root->parent;
    const WkNode *perf = wk_node_get(root, "perf");
    static const char *const orders[] = {"arrival", "short", NULL};
    int64_t moves = p->moves, budget = p->budget_us, window = p->window;
    int order = p->order_short, rc;
    if (perf && perf->type == WK_NODE_MAP &&
        ((rc = dur_s(perf, "latency_intra", &p->cascade.lat_nvlink_s, err)) < 0 ||
         (rc = dur_s(perf, "latency_inter", &p->cascade.lat_fabric_s, err)) < 0))
        return rc;
    /* the run's cascade ratio (mechanisms.cascade.ratio, checked there) is
     * the default of `compression` */
    const WkNode *mc = wk_node_get(wk_node_get(root, "mechanisms"), "cascade");
    const WkNode *ratio = mc && mc->type == WK_NODE_MAP ? wk_node_get(mc, "ratio") : NULL;
    if (ratio && (rc = wk_node_double(mc, "ratio", 0, 1, 1000, &p->compression, err)) < 0)
        return rc;
    if ((rc = wk_node_bool(m, "use_outsourcing", 0, &p->use_outsourcing, err)) < 0 ||
        (rc = wk_node_bool(m, "use_cascade", 0, &p->use_cascade, err)) < 0 ||
        (rc = wk_node_bool(m, "use_division", 0, &p->use_division, err)) < 0 ||
        (rc = wk_node_bool(m, "feedback", 0, &p->feedback, err)) < 0 ||
        (rc = wk_node_bool(m, "use_roles", 0, &p->use_roles, err)) < 0 ||
        (rc = wk_node_double(m, "lend_weight", 0, 0, 1e6, &p->h_lend, err)) < 0 ||
        (rc = wk_node_double(m, "compression", 0, 1, 1000, &p->compression, err)) < 0 ||
        (rc = wk_node_double(m, "feedback_max", 0, 1, 1e6, &p->feedback_max, err)) < 0 ||
        (rc = wk_node_double(m, "feedback_weight", 0, 1e-6, 1, &p->feedback_weight, err)) < 0)
        return rc;
    if ((rc = wk_node_expect_keys(m, known, err)) < 0 ||
        (rc = wk_node_double(m, "j_nvlink", 0, -1e6, 1e6, &p->j[WK_PATH_LOCAL], err)) < 0 ||
        (rc = wk_node_double(m, "j_leaf", 0, -1e6, 1e6, &p->j[WK_PATH_LEAF], err)) < 0 ||
        (rc = wk_node_double(m, "j_pod", 0, -1e6, 1e6, &p->j[WK_PATH_POD], err)) < 0 ||
        (rc = wk_node_double(m, "j_cross_pod", 0, -1e6, 1e6, &p->j[WK_PATH_CROSS_POD], err)) < 0 ||
        (rc = wk_node_double(m, "h_load", 0, 0, 1e6, &p->h_load, err)) < 0 ||
        (rc = wk_node_double(m, "h_throttle", 0, 0, 1e6, &p->h_throttle, err)) < 0 ||
        (rc = wk_node_double(m, "h_hot", 0, 0, 1e6, &p->h_hot, err)) < 0 ||
        (rc = wk_node_double(m, "hot_threshold", 0, 0, 1, &p->hot_threshold, err)) < 0 ||
        (rc = wk_node_double(m, "wait", 0, 0, 1e6, &p->c_wait, err)) < 0 ||
        (rc = wk_node_double(m, "frag_node", 0, 0, 1e6, &p->c_node, err)) < 0 ||
        (rc = wk_node_double(m, "frag_pod", 0, 0, 1e6, &p->c_pod, err)) < 0 ||
        (rc = wk_node_bool(m, "migrate", 0, &p->migrate, err)) < 0 ||
        (rc = wk_node_bool(m, "reserve", 0, &p->reserve, err)) < 0 ||
        (rc = wk_node_enum(m, "order", 0, orders, &order, err)) < 0 || (rc = dur_s(m, "starve", &p->starve_s, err)) < 0 ||
        (rc = wk_node_double(m, "migrate_weight", 0, 0, 1e6, &p->c_migrate, err)) < 0 ||
        (rc = dur_s(m, "preemption_cost", &p->migrate_cost_s, err)) < 0 ||
        (rc = dur_s(m, "remaining_scale", &p->tau_s, err)) < 0 ||
        (rc = wk_node_double(m, "t0", 0, 1e-9, 1e9, &p->t0, err)) < 0 ||
        (rc = wk_node_double(m, "alpha", 0, 1e-6, 0.999999, &p->alpha, err)) < 0 ||
        (rc = wk_node_double(m, "t_min", 0, 1e-12, 1e9, &p->t_min, err)) < 0 ||
        (rc = wk_node_int(m, "moves", 0, 0, 100000000, &moves, err)) < 0 ||
        (rc = wk_node_int(m, "window", 0, 0, 100000000, &window, err)) < 0 ||
        (rc = wk_node_int(m, "budget_us", 0, 0, INT64_C(1000000000), &budget, err)) < 0 ||
        (rc = wk_node_bool(m, "local_rules", 0, &p->local_rules, err)) < 0 ||
        (rc = dur_s(m, "msg_proc", &p->cascade.proc_s, err)) < 0 ||
        (rc = dur_s(m, "latency_nvlink", &p->cascade.lat_nvlink_s, err)) < 0 ||
        (rc = dur_s(m, "latency_fabric", &p->cascade.lat_fabric_s, err)) < 0 ||
        (rc = dur_s(m, "hop_switch", &p->cascade.switch_s, err)) < 0 ||
        (rc = dur_s(m, "gossip_period", &p->cascade.period_s, err)) < 0)
        return rc;
    p->moves = (uint32_t)moves;
    p->window = (uint32_t)window;
    p->budget_us = budget;
    p->order_short = order;
    return 0;
}

static void fini(void *priv)
{
    Sci *s = priv;
    wk_rng_free(s->rng);
    wk_sci_state_free(s->st);
    free(s->qbuf);
    free(s->nbits);
    free(s->run);
    free(s->since);
    free(s->gstate);
    free(s->changed);
    free(s->jobs);
    free(s->jid);
    free(s->stop);
    free(s->rem);
    free(s->ends);
    wk_queue_place_fini(&s->place);
    wk_sci_roles_free(&s->roles);
    memset(s, 0, sizeof *s);
}

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    Sci *s = priv;
    const WkCluster *c = wk_sched_cluster(ctx);
    wk_sci_defaults(&s->p);
    int rc = params ? read_params(&s->p, params, err) : 0;
    WkPlacement how;
    if (rc < 0 || (rc = wk_queue_common_opts(params, &how, NULL, err)) < 0)
        return rc;
    s->p.whole_nodes = how == WK_PLACE_EXCLUSIVE;
    s->stats.wait_scale = 1;
    if ((rc = wk_sci_cascade(c, &s->p.cascade, &s->stats.cascade, err)) < 0 ||
        (rc = wk_rng_new(&s->rng, wk_sched_seed(ctx), "sched.sci", err)) < 0 ||
        (rc = wk_sci_state_new(&s->st, c, &s->p, err)) < 0)
        goto fail;
    if (!(s->gstate = malloc(c->gpus)) || !(s->nbits = calloc((size_t)c->gpus + 2, sizeof *s->nbits)) ||
        !(s->changed = malloc(((size_t)c->nodes + 1) * sizeof *s->changed))) {
        rc = wk_error_nomem(err, "sci");
        goto fail;
    }
    return 0;
fail:
    fini(s); /* the framework calls fini only after a successful init */
    return rc;
}

/* Remember a job sci started (once: a job restarted within one round is
 * still listed from before). */
static int track_running(Sci *s, uint32_t job)
{
    for (size_t i = s->nrun; i-- > 0;)
        if (s->run[i] == job)
            return 0;
    uint32_t *r = grow(s->run, &s->caprun, s->nrun + 1, sizeof *r);
    if (!r)
        return WK_E_NOMEM;
    s->run = r;
    s->run[s->nrun++] = job;
    return 0;
}

/* The queued jobs by GPU count: add d to count g's (Fenwick tree). */
static void count_add(Sci *s, const WkSchedCtx *ctx, uint32_t g, int d)
{
    size_t top = (size_t)wk_sched_cluster(ctx)->gpus + 1;
    for (size_t i = (size_t)g + 1; i <= top; i += i & (~i + 1))
        s->nbits[i] += (uint32_t)d;
}

/* Queued jobs asking for at most g GPUs. O(log GPUs). */
static size_t count_upto(const Sci *s, const WkSchedCtx *ctx, uint32_t g)
{
    size_t top = (size_t)wk_sched_cluster(ctx)->gpus + 1, n = 0;
    for (size_t i = ((size_t)g + 1 < top ? (size_t)g + 1 : top); i > 0; i -= i & (~i + 1))
        n += s->nbits[i];
    return n;
}

/* The head moves k places up (the caller took those jobs off the counts). */
static void queue_advance(Sci *s, size_t k)
{
    s->q += k, s->qlo += k, s->nq -= k;
    if (!s->nq)
        s->q = s->qbuf, s->qlo = 0;
}

/* Room for one more job at the front (front = 1) or the back of the queue:
 * the queue is slid, or moved into twice the storage, with half the free
 * room before the head when the front needs it. Returns 0 or WK_E_NOMEM. */
static int queue_room(Sci *s, int front)
{
    if (front ? s->qlo > 0 : s->qlo + s->nq < s->capq)
        return 0;
    size_t cap = s->capq;
    uint32_t *b = s->qbuf;
    if (2 * (s->nq + 1) > cap) {
        cap = cap ? 2 * cap : 64;
        while (2 * (s->nq + 1) > cap)
            cap *= 2;
        if (!(b = malloc(cap * sizeof *b)))
            return WK_E_NOMEM;
    }
    size_t at = front ? (cap - s->nq) / 2 : 0;
    if (s->nq)
        memmove(b + at, s->q, s->nq * sizeof *b);
    if (b != s->qbuf) {
        free(s->qbuf);
        s->qbuf = b, s->capq = cap;
    }
    s->qlo = at, s->q = b + at;
    return 0;
}

/* Start the queue head while it fits (the scenario's `placement`): the
 * baseline guarantee when the annealer left it (never, by construction). */
static int fallback(Sci *s, WkSchedCtx *ctx, WkError *err)
{
    while (s->nq) {
        uint32_t job = s->q[0];
        int rc = wk_queue_start(ctx, job, &s->place, NULL, err);
        if (rc == WK_E_NOROOM)
            return 0;
        if (rc < 0)
            return rc;
        if (track_running(s, job) < 0)
            return wk_error_nomem(err, "sci");
        count_add(s, ctx, wk_sched_job_gpus(ctx, job), -1);
        queue_advance(s, 1);
        s->stats.safety_starts++;
        s->stats.starts++;
    }
    return 0;
}

/* rho = R / (R + tau) for a job with R seconds left (1 when R is unknown). */
static double rho_of(const Sci *s, double rem)
{
    if (!isfinite(rem) || s->p.tau_s <= 0)
        return 1;
    return rem <= 0 ? 0 : rem / (rem + s->p.tau_s);
}

static int cmp_end(const void *a, const void *b)
{
    const End *x = a, *y = b;
    return (x->t_s > y->t_s) - (x->t_s < y->t_s);
}

/* The blocked head needs `need` GPUs: when enough running (and just pinned)
 * jobs will have ended (EASY's shadow time, from their estimates), jobs that
 * would still run then may only use the GPUs the head leaves spare. */
static int reserve(Sci *s, WkSchedCtx *ctx, uint32_t need, uint32_t first_queued, uint32_t nit)
{
    size_t ne = 0;
    End *e = grow(s->ends, &s->capends, s->nrun + nit, sizeof *e);
    if (!e)
        return WK_E_NOMEM;
    s->ends = e;
    for (size_t i = 0; i < s->nrun; i++)
        e[ne++] = (End){wk_sched_job_remaining_s(ctx, s->run[i]), wk_sched_job_gpus(ctx, s->run[i])};
    for (uint32_t i = first_queued; i < nit; i++)
        if (wk_sci_block(s->st, i))
            e[ne++] = (End){s->rem[i], s->jobs[i].gpus};
    qsort(e, ne, sizeof *e, cmp_end);
    uint64_t avail = wk_sci_free(s->st);
    for (size_t i = 0; i < ne && avail < need; i++) {
        avail += e[i].gpus;
        if (avail >= need) {
            wk_sci_reserve(s->st, (uint32_t)(avail - need));
            for (uint32_t k = first_queued; k < nit; k++)
                if (!wk_sci_block(s->st, k) && !(s->rem[k] <= e[i].t_s))
                    wk_sci_fence(s->st, k);
        }
    }
    return 0;
}

static double scope_latency(const WkSciCascade *c, int cls)
{
    return cls == WK_PATH_LOCAL ? c->nvlink_s : cls == WK_PATH_LEAF ? c->leaf_s : cls == WK_PATH_POD ? c->pod_s
                                                                                                     : c->cluster_s;
}

static int enqueue(Sci *s, WkSchedCtx *ctx, uint32_t job, int front);

/* 1 when every GPU of b is free now. */
static int all_free(const WkSchedCtx *ctx, const uint32_t *b, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (!wk_sched_gpu_is_free(ctx, b[k]))
            return 0;
    return 1;
}

/* Apply the annealed configuration: stop the jobs that move, then start
 * every job placed in it that is not running there. A job that cannot be
 * stopped now (wk_sched_job_preemptible: hit by a failure, not yet detected)
 * stays put, and a start whose GPUs it still holds is skipped; a migrated
 * job that cannot start goes back to the queue's front. */
static int commit(Sci *s, WkSchedCtx *ctx, uint32_t first_queued, uint32_t nit, size_t upto, WkError *err)
{
    int rc;
    size_t nq0 = s->nq;
    for (uint32_t i = 0; i < nit; i++) {
        s->stop[i] = 0;
        if (!s->jobs[i].real || !wk_sci_moved(s->st, i))
            continue;
        if (!wk_sched_job_preemptible(ctx, s->jid[i])) {
            s->stats.refused++;
            continue;
        }
        if ((rc = wk_sched_preempt(ctx, s->jid[i], err)) < 0)
            return rc;
        s->stop[i] = 1;
        s->stats.migrations++;
    }
    for (uint32_t i = 0; i < nit; i++) {
        const uint32_t *b = wk_sci_block(s->st, i);
        uint32_t n = s->jobs[i].gpus;
        if (!b || (s->jobs[i].real && !s->stop[i]))
            continue;
        if (!all_free(ctx, b, n)) {
            s->stats.blocked++;
            if (s->stop[i] && (rc = enqueue(s, ctx, s->jid[i], 1)) < 0)
                return wk_error_nomem(err, "sci");
            continue;
        }
        if ((rc = wk_sched_start(ctx, s->jid[i], b, n, err)) == WK_E_NOROOM) {
            /* the facility power budget has no room for it now: it stays queued */
            if (s->stop[i] && (rc = enqueue(s, ctx, s->jid[i], 1)) < 0)
                return wk_error_nomem(err, "sci");
            continue;
        }
        if (rc < 0)
            return rc;
        s->stop[i] |= 2; /* started */
        if (!s->jobs[i].real && track_running(s, s->jid[i]) < 0)
            return wk_error_nomem(err, "sci");
        s->stats.starts++;
        if (s->p.local_rules) {
            double l = scope_latency(&s->stats.cascade, wk_sci_block_scope(s->st, b, n));
            s->stats.latency_sum_s += l;
            s->stats.latency_n++;
            if (l > s->stats.latency_max_s)
                s->stats.latency_max_s = l;
        }
    }
    /* drop the started jobs from the queue, keeping its order: the queued
     * items are, in order, among its first `upto` jobs (behind the migrated
     * jobs just put back at the front), so the jobs kept there shift back
     * and the head moves up */
    size_t front = s->nq - nq0, k = upto + front;
    uint32_t it = nit;
    for (size_t i = upto + front; i-- > front;) {
        uint32_t job = s->q[i];
        int item = it > first_queued && s->jid[it - 1] == job;
        it -= (uint32_t)item;
        if (item && (s->stop[it] & 2))
            count_add(s, ctx, s->jobs[it].gpus, -1);
        else
            s->q[--k] = job;
    }
    for (size_t i = front; i-- > 0;)
        s->q[--k] = s->q[i];
    queue_advance(s, k);
    return 0;
}

/* A queued job's rank under `order: short`: starved jobs (waited at least
 * `starve`) first by arrival, then the others by estimated GPU-time
 * (remaining run time x GPUs), ties by arrival. */
typedef struct {
    int starved;
    double key;     /* since (starved) or GPU-seconds */
    WkTime since;
    uint32_t job;
} Rank;

static int rank_cmp(const void *a, const void *b)
{
    const Rank *x = a, *y = b;
    if (x->starved != y->starved)
        return y->starved - x->starved;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->since != y->since)
        return x->since < y->since ? -1 : 1;
    return x->job < y->job ? -1 : x->job > y->job;
}

/* order: short — reorder the queue (O(queue log queue) per round, like the
 * scan of the queue every round already is). Returns 0 or WK_E_NOMEM. */
static int order_short(Sci *s, WkSchedCtx *ctx)
{
    if (s->nq < 2)
        return 0;
    Rank *r = malloc(s->nq * sizeof *r);
    if (!r)
        return WK_E_NOMEM;
    WkTime now = wk_sched_now(ctx);
    for (size_t i = 0; i < s->nq; i++) {
        uint32_t job = s->q[i];
        double rem = wk_sched_job_remaining_s(ctx, job);
        int st = wk_time_to_s(now - s->since[job]) >= s->p.starve_s;
        r[i] = (Rank){.starved = st, .key = st ? (double)s->since[job] : (isfinite(rem) ? rem : 1e30) * wk_sched_job_gpus(ctx, job),
                      .since = s->since[job], .job = job};
    }
    qsort(r, s->nq, sizeof *r, rank_cmp);
    for (size_t i = 0; i < s->nq; i++)
        s->q[i] = r[i].job;
    free(r);
    return 0;
}

/* GPU g's state as the annealer sees it. */
static uint8_t gpu_state(const WkSchedCtx *ctx, uint32_t g)
{
    return wk_sched_gpu_is_free(ctx, g) ? WK_SCI_FREE
           : wk_sched_gpu_health(ctx, g) == WK_GPU_DOWN ? WK_SCI_DOWN
                                                        : WK_SCI_USED;
}

/* Bring gstate up to date: every GPU the first time, then only the GPUs of
 * nodes the host changed since (their ids into s->changed). Returns how many
 * nodes changed, or UINT32_MAX when every GPU was read. O(nodes + changed
 * GPUs) after the first call. */
static uint32_t read_gpus(Sci *s, const WkSchedCtx *ctx)
{
    const WkCluster *c = wk_sched_cluster(ctx);
    uint64_t gen;
    const uint64_t *ng = wk_sched_node_gens(ctx, &gen);
    if (!s->gread) {
        for (uint32_t g = 0; g < c->gpus; g++)
            s->gstate[g] = gpu_state(ctx, g);
        s->gread = 1, s->gen = gen;
        return UINT32_MAX;
    }
    uint32_t k = 0, nodes = gen != s->gen ? c->nodes : 0;
    uint64_t last = s->gen; /* locals: the byte stores below may alias s */
    for (uint32_t nd = 0; nd < nodes; nd++)
        if (ng[nd] > last) {
            for (uint32_t g = c->node_first_gpu[nd]; g < c->node_first_gpu[nd + 1]; g++)
                s->gstate[g] = gpu_state(ctx, g);
            s->changed[k++] = nd;
        }
    s->gen = gen;
    return k;
}

/* The feedback loop (docs/sci.md, "The mechanisms in the objective"): a
 * job sci started that completed took stretch = JCT / estimated run time;
 * their moving average scales the weight of waiting. */
static void observe(Sci *s, const WkSchedCtx *ctx, uint32_t job)
{
    double est = wk_sched_job_estimate_s(ctx, job), rem = wk_sched_job_remaining_s(ctx, job);
    if (rem > 1e-6 || !(est > 0) || !isfinite(est)) /* not completed (killed, or stopped elsewhere) */
        return;
    double x = wk_time_to_s(wk_sched_now(ctx) - wk_sched_job_submit(ctx, job)) / est;
    WkSciStats *st = &s->stats;
    st->stretch_avg = st->observed++ ? st->stretch_avg + s->p.feedback_weight * (x - st->stretch_avg) : x;
    st->wait_scale = wk_sci_feedback_scale(&s->p, st->stretch_avg);
}

/* use_roles: the job's relative speed per node group (NULL: 1 everywhere). */
static const float *speed_of(Sci *s, const WkSchedCtx *ctx, uint32_t job)
{
    return s->p.use_roles ? wk_sci_roles_of(&s->roles, ctx, job, &s->stats) : NULL;
}

/* One scheduling round. mig: running jobs may move (tick, incident). */
static int invoke(Sci *s, WkSchedCtx *ctx, int mig, WkError *err)
{
    s->stats.invocations++;
    if (s->nq > s->stats.max_queue)
        s->stats.max_queue = s->nq;
    size_t k = 0; /* forget jobs that ended; feedback observes those that completed */
    for (size_t i = 0; i < s->nrun; i++)
        if (wk_sched_job_running(ctx, s->run[i]))
            s->run[k++] = s->run[i];
        else if (s->p.feedback)
            observe(s, ctx, s->run[i]);
    s->nrun = k;
    mig = mig && s->p.migrate && s->nrun;
    if (s->p.order_short && order_short(s, ctx) < 0)
        return wk_error_nomem(err, "sci");
    uint32_t free_gpus = wk_sched_free_gpus(ctx);
    size_t fits = count_upto(s, ctx, free_gpus);
    if (!fits && !mig)
        return 0;
    if (s->p.window && fits > s->p.window) { /* only the first `window` that fit are in play */
        fits = s->p.window;
        s->stats.windowed++;
    }
    if (fits > s->stats.max_in_play)
        s->stats.max_in_play = fits;
    size_t nit = fits + (mig ? s->nrun : 0);
    WkSciJob *jb = grow(s->jobs, &s->capjobs, nit, sizeof *jb);
    if (!jb)
        return wk_error_nomem(err, "sci");
    s->jobs = jb;
    uint32_t *ji = grow(s->jid, &s->capjid, nit, sizeof *ji);
    if (!ji)
        return wk_error_nomem(err, "sci");
    s->jid = ji;
    uint8_t *sp = grow(s->stop, &s->capstop, nit, sizeof *sp);
    if (!sp)
        return wk_error_nomem(err, "sci");
    s->stop = sp;
    double *rm = grow(s->rem, &s->caprem, nit, sizeof *rm);
    if (!rm)
        return wk_error_nomem(err, "sci");
    s->rem = rm;
    uint32_t nchanged = read_gpus(s, ctx);
    WkTime now = wk_sched_now(ctx);
    uint32_t n = 0;
    for (size_t i = 0; mig && i < s->nrun; i++) {
        uint32_t job = s->run[i], cnt, up = 0;
        const uint32_t *pl = wk_sched_job_placement(ctx, job, &cnt);
        while (up < cnt && s->gstate[pl[up]] == WK_SCI_USED)
            up++;
        if (!pl || up < cnt) /* on a GPU that went down: hit, it does not move */
            continue;
        s->jid[n] = job;
        s->rem[n] = wk_sched_job_remaining_s(ctx, job);
        s->jobs[n] = (WkSciJob){.gpus = cnt, .rho = rho_of(s, s->rem[n]), .real = pl,
                                .mem = wk_sched_job_mem_need(ctx, job), .speed = speed_of(s, ctx, job)};
        n++;
    }
    uint32_t first_queued = n;
    size_t upto = 0; /* queue positions looked at: up to the last job in play */
    for (; upto < s->nq && n - first_queued < fits; upto++) {
        uint32_t job = s->q[upto], g = wk_sched_job_gpus(ctx, job);
        if (g > free_gpus)
            continue;
        s->jid[n] = job;
        s->rem[n] = wk_sched_job_remaining_s(ctx, job);
        s->jobs[n] = (WkSciJob){.gpus = g, .rho = rho_of(s, s->rem[n]), .wait_s = wk_time_to_s(now - s->since[job]),
                                .mem = wk_sched_job_mem_need(ctx, job), .speed = speed_of(s, ctx, job)};
        n++;
    }
    WkSciParams pp = s->p;
    pp.migrate = mig;
    if (s->p.feedback)
        pp.c_wait *= s->stats.wait_scale;
    wk_sci_state_params(s->st, &pp);
    int rc = wk_sci_state_reload(s->st, s->gstate, nchanged == UINT32_MAX ? NULL : s->changed,
                                 nchanged == UINT32_MAX ? 0 : nchanged, s->jobs, n, err);
    if (rc < 0)
        return rc;
    double e0 = wk_sci_state_energy(s->st); /* the load's from-scratch energy */
    /* the head, and each next head, starts now if it fits */
    int pinned = 0;
    size_t qi = 0;
    for (uint32_t i = first_queued; i < n && qi < s->nq && s->jid[i] == s->q[qi]; i++, qi++) {
        if (wk_sci_pin(s->st, i) == WK_E_NOROOM)
            break;
        pinned = 1;
    }
    if (s->p.reserve && qi < s->nq && reserve(s, ctx, wk_sched_job_gpus(ctx, s->q[qi]), first_queued, n) < 0)
        return wk_error_nomem(err, "sci");
    if (!first_queued && qi == s->nq && n == qi) {
        /* nothing waits and nothing may move: every job in play has its
         * pinned block and no running job is in play. Only the new jobs'
         * blocks are in question, warm-started at the pin: one sweep at the
         * final temperature instead of the whole schedule (docs/sci.md,
         * "Rounds") */
        WkSciParams quick = pp;
        quick.t0 = quick.t_min;
        wk_sci_state_params(s->st, &quick);
        s->stats.settled++;
    }
    WkSciAnnealStats as;
    wk_sci_anneal(s->st, s->rng, &as);
    s->stats.annealed++;
    s->stats.moves += as.moves;
    s->stats.accepted += as.accepted;
    if (as.moves > s->stats.max_moves)
        s->stats.max_moves = as.moves;
    if (as.e_after < e0 - 1e-9 || pinned) {
        s->stats.commits++;
        s->stats.energy_drop += e0 - as.e_after;
        if ((rc = commit(s, ctx, first_queued, n, upto, err)) < 0)
            return rc;
    } else if (as.e_after > e0 + 1e-9) {
        s->stats.uphill++;
    }
    return fallback(s, ctx, err);
}

static int enqueue(Sci *s, WkSchedCtx *ctx, uint32_t job, int front)
{
    if (queue_room(s, front) < 0)
        return WK_E_NOMEM;
    WkTime *since = grow(s->since, &s->capj, (size_t)job + 1, sizeof *since);
    if (!since)
        return WK_E_NOMEM;
    s->since = since;
    if (front) {
        s->q--, s->qlo--;
        s->q[0] = job;
    } else {
        s->q[s->nq] = job;
    }
    s->nq++;
    count_add(s, ctx, wk_sched_job_gpus(ctx, job), 1);
    s->since[job] = wk_sched_now(ctx);
    return 0;
}

static int on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    Sci *s = priv;
    if (wk_sched_job_gpus(ctx, job) > wk_sched_cluster(ctx)->gpus)
        return wk_sched_reject(ctx, job, "needs more GPUs than the cluster has", err);
    if (enqueue(s, ctx, job, 0) < 0)
        return wk_error_nomem(err, "sci");
    return invoke(s, ctx, 0, err);
}

static int on_release(void *priv, WkSchedCtx *ctx, WkError *err)
{
    return invoke(priv, ctx, 0, err);
}

static int on_tick(void *priv, WkSchedCtx *ctx, WkError *err)
{
    return invoke(priv, ctx, 1, err);
}

/* Jobs hit are QUEUED again: they go to the front of the queue, in the given
 * order, and the round may move running jobs (feedback). */
static int on_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err)
{
    Sci *s = priv;
    for (size_t i = njobs; i-- > 0;) {
        for (size_t k = 0; k < s->nrun; k++)
            if (s->run[k] == jobs[i]) {
                memmove(s->run + k, s->run + k + 1, (s->nrun - k - 1) * sizeof *s->run);
                s->nrun--;
                break;
            }
        if (enqueue(s, ctx, jobs[i], 1) < 0)
            return wk_error_nomem(err, "sci");
    }
    return invoke(s, ctx, 1, err);
}

static size_t queued(const void *priv)
{
    return ((const Sci *)priv)->nq;
}

const WkSciStats *wk_sci_stats(const void *priv)
{
    return &((const Sci *)priv)->stats;
}

const WkSchedOps wk_sched_sci = {
    .abi = WK_SCHED_ABI,
    .name = "sci",
    .description = "simulated annealing on an Ising-like placement energy (seed paper's SCI; docs/sci.md)",
    .priv_size = sizeof(Sci),
    .init = init,
    .on_submit = on_submit,
    .on_release = on_release,
    .queued = queued,
    .fini = fini,
    .on_tick = on_tick,
    .on_incident = on_incident,
};
