/* SPDX-License-Identifier: Apache-2.0 */
/* outsource.c — the §3.1 work outsourcing as a mechanism of a run (see
 * outsource.h). Every allocation change and every job joining the queue
 * posts one check at the same instant, after the event that caused it (so
 * after the policy's pass): it first hands borrowed GPUs back to waiting
 * jobs that would then fit, wakes the policy, and, when no job waits, lends
 * idle whole nodes to the running job that gains most. */
#include "models/mech/outsource.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/state/elastic.h"

typedef struct Outsource {
    WkRun *r;
    WkOutsourceSpec s;
    uint32_t *run;     /* running model jobs, unordered */
    uint32_t nrun;
    uint32_t *run_at;  /* [jobs] index in run + 1; 0: not in it */
    uint32_t *wait;    /* jobs that joined the queue, in that order (pruned at each check) */
    uint32_t nwait, capwait;
    uint8_t *in_wait;  /* [jobs] 1 while on wait */
    uint32_t *buf;     /* [GPUs] a job's GPUs, then those of the nodes it borrows */
    uint32_t *idle;    /* [nodes] idle nodes of one SKU group */
    int pending;       /* a check is posted for now */
    uint32_t ready_tok;/* token of the check posted for when a job's restart ends */
    size_t nsub;       /* jobs that joined the queue by submission so far (r->order's prefix) */
    int busy;          /* inside a resize of ours: its requeue is not a wait */
    WkOutsourceStats st;
} Outsource;

void wk_outsource_defaults(WkOutsourceSpec *s) { *s = (WkOutsourceSpec){.max_nodes = 0, .elastic_only = 0}; }

int wk_outsource_parse(const WkNode *root, const WkCluster *c, WkOutsourceSpec *out, int *on, WkError *err)
{
    static const char *const mkeys[] = {"cascade", "division", "outsourcing", NULL};
    static const char *const okeys[] = {"max_nodes", "elastic_only", NULL};
    wk_outsource_defaults(out);
    *on = 0;
    const WkNode *m = root ? wk_node_get(root, "mechanisms") : NULL;
    if (!m)
        return 0;
    int rc = wk_node_expect_keys(m, mkeys, err);
    const WkNode *k = rc == 0 ? wk_node_get(m, "outsourcing") : NULL;
    if (rc < 0 || !k)
        return rc;
    if ((rc = wk_node_expect_keys(k, okeys, err)) < 0)
        return rc;
    int64_t mx = 0;
    if ((rc = wk_node_int(k, "max_nodes", 0, 0, (int64_t)c->nodes, &mx, err)) < 0 ||
        (rc = wk_node_bool(k, "elastic_only", 0, &out->elastic_only, err)) < 0)
        return rc;
    out->max_nodes = (uint32_t)mx;
    *on = 1;
    return 0;
}

double wk_outsource_net_gain_s(double left, double t0_s, double t1_s, double grow_s, double back_s)
{
    return left * (t0_s - t1_s) - grow_s - back_s;
}

/* ---- checks ---- */

static int post_check(Outsource *o, WkError *err)
{
    if (o->pending)
        return 0;
    o->pending = 1;
    WkRun *r = o->r;
    return wk_engine_post_e(r->eng, wk_engine_now(r->eng), WK_EV_OUTSOURCE, 0, 0, 0, 0, err);
}

/* Restart cost (s) of job at n GPUs: the elastic restart's steps for the
 * communicator of n GPUs. */
static double cost_at(WkRun *r, uint32_t job, uint32_t n)
{
    WkJobSpec *js = &r->wl.jobs[job];
    uint32_t was = js->gpus;
    double steps[WK_RSTEP_N];
    js->gpus = n;
    double c = wk_time_to_s(wk_run_restart_cost(r, job, 0, steps));
    js->gpus = was;
    return c;
}

/* Restart job on gpus[0..n) paying the restart cost at n. A subsystem's
 * veto (WK_E_NOROOM, e.g. a facility budget) leaves the job waiting: it
 * is handed to the policy as a submission. */
static int resize(Outsource *o, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    WkRun *r = o->r;
    r->rt[job].pending_cost = wk_time_from_s(cost_at(r, job, n));
    o->busy = 1;
    int rc = wk_elastic_restart(r, job, gpus, n, err);
    o->busy = 0;
    if (rc == WK_E_NOROOM) {
        wk_error_clear(err);
        r->rt[job].pending_cost = 0;
        rc = wk_sched_host_submit(&r->si, job, err);
    }
    return rc;
}

/* 0 when the performance model would refuse job on n GPUs because its
 * fixed global batch does not split into n / (TP x PP x CP) replicas (no
 * evaluation needed); 1 otherwise (the evaluation decides). */
static int may_split(const WkRun *r, uint32_t job, uint32_t n)
{
    const WkModelSpec *m = &r->wl.models[r->wl.jobs[job].model - 1];
    if (m->kind != WK_MODEL_LLM || !m->global_batch)
        return 1;
    uint32_t per = m->tp * m->pp * m->cp;
    return n % per == 0 && m->global_batch % (n / per * m->micro_batch) == 0;
}

/* GPUs job holds beyond its request. */
static uint32_t lent_of(const WkRun *r, uint32_t job)
{
    uint32_t n = r->wl.jobs[job].gpus, req = r->rt[job].gpus_req;
    return n > req ? n - req : 0;
}

/* The GPU count job shrinks to so that `give` GPUs go back: the largest
 * count at most n - give, n - k whole nodes, at which the batch splits and
 * memory fits, and not below its request (its request when none fits). */
static uint32_t shrink_to(Outsource *o, uint32_t job, uint32_t give)
{
    WkRun *r = o->r;
    uint32_t n = r->wl.jobs[job].gpus, req = r->rt[job].gpus_req;
    uint32_t gpn = r->cluster.gpus_per_node ? r->cluster.gpus_per_node : 1;
    uint32_t k = (give + gpn - 1) / gpn;
    for (uint32_t m = n > (uint64_t)k * gpn ? n - k * gpn : 0; m > req; m = m > gpn ? m - gpn : 0)
        if (may_split(r, job, m) && !isnan(wk_elastic_iter_s(r, job, r->rt[job].gpus, m)))
            return m;
    return req;
}

/* Hand borrowed GPUs back, newest allocation first, until `need` GPUs are
 * free. */
static int give_back(Outsource *o, uint32_t need, WkError *err)
{
    WkRun *r = o->r;
    while (r->pool.nfree < need) {
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < o->nrun; i++) {
            uint32_t j = o->run[i];
            if (!lent_of(r, j) || r->rt[j].state != WK_JOB_RUNNING || r->rt[j].hung || r->rt[j].waiting)
                continue;
            if (best == UINT32_MAX) {
                best = j;
                continue;
            }
            const WkJobRt *b = &r->rt[best];
            if (r->rt[j].alloc_t > b->alloc_t || (r->rt[j].alloc_t == b->alloc_t && j > best))
                best = j;
        }
        if (best == UINT32_MAX)
            return 0;
        uint32_t m = shrink_to(o, best, need - r->pool.nfree);
        memcpy(o->buf, r->rt[best].gpus, (size_t)m * sizeof *o->buf); /* its first ranks stay */
        o->st.returns++;
        int rc = resize(o, best, o->buf, m, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Waiting jobs, in the order they joined the queue: one that does not fit
 * the free GPUs but would with the lent ones gets them back. Returns 1 when
 * GPUs were handed back (the policy is to be woken), 0, or a negative code. */
static int take_back(Outsource *o, WkError *err)
{
    WkRun *r = o->r;
    uint32_t k = 0, lent = 0;
    for (uint32_t i = 0; i < o->nwait; i++) {
        uint32_t j = o->wait[i];
        if (r->rt[j].state == WK_JOB_QUEUED)
            o->wait[k++] = j;
        else
            o->in_wait[j] = 0;
    }
    o->nwait = k;
    for (uint32_t i = 0; i < o->nrun; i++)
        if (r->rt[o->run[i]].state == WK_JOB_RUNNING && !r->rt[o->run[i]].hung && !r->rt[o->run[i]].waiting)
            lent += lent_of(r, o->run[i]);
    if (!lent || !o->nwait)
        return 0;
    uint64_t avail = r->pool.nfree, gave = 0;
    for (uint32_t i = 0; i < o->nwait && lent; i++) {
        uint32_t need = r->wl.jobs[o->wait[i]].gpus;
        if (need <= avail) { /* it fits already: the policy's choice */
            avail -= need;
            continue;
        }
        if (need > avail + lent)
            continue;
        uint32_t before = r->pool.nfree;
        int rc = give_back(o, (uint32_t)(need + (r->pool.nfree - avail)), err);
        if (rc < 0)
            return rc;
        uint32_t back = r->pool.nfree - before;
        lent = back < lent ? lent - back : 0;
        avail = avail + back >= need ? avail + back - need : 0;
        gave = 1;
    }
    return gave ? 1 : 0;
}

/* May job borrow now? A running model job at (or above) its request, not
 * hung, not waiting, past its restart. */
static int may_borrow(const Outsource *o, uint32_t job, WkTime now)
{
    const WkRun *r = o->r;
    const WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    if (rt->state != WK_JOB_RUNNING || rt->hung || rt->waiting || !js->model || js->kind == WK_JOB_HPC ||
        js->gpus < rt->gpus_req || now < rt->seg_start)
        return 0;
    return !o->s.elastic_only || r->wl.models[js->model - 1].elastic;
}

/* The best grow of job onto idle nodes of its own SKU group: fills o->buf
 * with its GPUs and the borrowed ones, sets *n, returns the net gain (s;
 * -INFINITY when none). */
static double best_grow(Outsource *o, uint32_t job, WkTime now, uint32_t *n)
{
    WkRun *r = o->r;
    const WkCluster *c = &r->cluster;
    WkJobRt *rt = &r->rt[job];
    uint32_t cur = r->wl.jobs[job].gpus, grp = c->node_group[c->gpu_node[rt->gpus[0]]], ni = 0;
    uint32_t gpn = r->cluster.gpus_per_node ? r->cluster.gpus_per_node : 1;
    uint32_t have = lent_of(r, job) / gpn, cap = UINT32_MAX;
    if (o->s.max_nodes)
        cap = o->s.max_nodes > have ? o->s.max_nodes - have : 0;
    for (uint32_t nd = 0; nd < c->nodes && ni < cap; nd++) {
        uint32_t lo = c->node_first_gpu[nd], hi = c->node_first_gpu[nd + 1];
        if (c->node_group[nd] == grp && hi > lo && r->pool.node_free[nd] == hi - lo && !r->pool.reserved[nd])
            o->idle[ni++] = nd;
    }
    if (!ni)
        return -INFINITY;
    memcpy(o->buf, rt->gpus, (size_t)cur * sizeof *o->buf); /* its GPUs keep their ranks */
    uint32_t k = cur;
    for (uint32_t i = 0; i < ni; i++)
        for (uint32_t g = c->node_first_gpu[o->idle[i]]; g < c->node_first_gpu[o->idle[i] + 1]; g++)
            o->buf[k++] = g;
    uint32_t per_node = c->node_first_gpu[o->idle[0] + 1] - c->node_first_gpu[o->idle[0]]; /* one group: one size */
    wk_progress_settle(r, job, now);
    double left = rt->work - rt->done, back = cost_at(r, job, rt->gpus_req);
    double least = cost_at(r, job, cur + per_node) + back, most = 1 - (double)cur / (cur + ni * per_node);
    /* screen: at most perfect scaling (t1 >= t0 cur / n1), so no count saves
     * more than left t0 (1 - cur / n1max) nor costs less than one node more;
     * first with its iteration time now (>= t0: the same placement at a
     * fabric share; not with compressed gradients), then with t0 */
    if (!(rt->env.grad_ratio > 1) && rt->iter_s > 0 && left * rt->iter_s * most <= least)
        return -INFINITY;
    double t0 = wk_elastic_iter_s(r, job, rt->gpus, cur), t1 = NAN;
    if (isnan(t0) || left * t0 * most <= least)
        return -INFINITY;
    uint32_t pick = 0;
    for (uint32_t i = ni; i > 0 && isnan(t1); i--) { /* the most whole nodes at which it fits */
        pick = cur + i * per_node;
        if (may_split(r, job, pick))
            t1 = wk_elastic_iter_s(r, job, o->buf, pick);
    }
    if (isnan(t1))
        return -INFINITY;
    *n = pick;
    return wk_outsource_net_gain_s(left, t0, t1, cost_at(r, job, pick), back);
}

/* Lend idle whole nodes to the running job whose net gain is the largest
 * (one job per check: the change posts the next). Not while a job waits,
 * nor while another submission is due at this instant (it would take them
 * back at once); a job still paying a restart is looked at again when that
 * ends. */
static int lend(Outsource *o, WkTime now, WkError *err)
{
    WkRun *r = o->r;
    if (r->queued || !r->pool.idle_gpus ||
        (o->nsub < r->wl.n && r->wl.jobs[r->order[o->nsub]].submit <= now))
        return 0;
    uint32_t best = UINT32_MAX, bn = 0;
    double bg = 0;
    WkTime ready = WK_TIME_NEVER;
    for (uint32_t i = 0; i < o->nrun; i++) {
        uint32_t j = o->run[i], n = 0;
        const WkJobRt *rt = &r->rt[j];
        if (rt->state == WK_JOB_RUNNING && now < rt->seg_start && rt->seg_start < ready)
            ready = rt->seg_start;
        if (!may_borrow(o, j, now))
            continue;
        double g = best_grow(o, j, now, &n);
        if (g > bg || (g == bg && g > 0 && j < best)) { /* ties: the lower job id */
            bg = g;
            best = j;
            bn = n;
        }
    }
    if (best == UINT32_MAX) {
        if (ready == WK_TIME_NEVER)
            return 0;
        return wk_engine_post_e(r->eng, ready, WK_EV_OUTSOURCE, 1, 0, 0, o->ready_tok, err);
    }
    best_grow(o, best, now, &bn); /* o->buf: its GPUs and the nodes it borrows */
    o->st.lends++;
    return resize(o, best, o->buf, bn, err);
}

static int on_check(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    Outsource *o = ctx;
    WkRun *r = o->r;
    WkTime now = wk_engine_now(e);
    if (ev->target == 0)
        o->pending = 0; /* target 1: the check at a restart's end */
    int rc = take_back(o, err);
    if (rc > 0)
        rc = wk_sched_host_release(&r->si, err); /* the policy sees the GPUs handed back */
    if (rc == 0)
        rc = lend(o, now, err);
    if (rc == 0)
        wk_run_resample(r, now);
    return rc;
}

/* ---- slots ---- */

static int out_init(WkRun *r, const WkNode *root, void **st, WkError *err)
{
    WkOutsourceSpec s;
    int on = 0;
    int rc = wk_outsource_parse(root, &r->cluster, &s, &on, err);
    if (rc < 0 || !on)
        return rc;
    Outsource *o = calloc(1, sizeof *o);
    if (!o)
        return wk_error_nomem(err, "mechanisms.outsourcing");
    o->r = r;
    o->s = s;
    *st = o;
    return 0;
}

static int out_start(WkRun *r, void *st, WkError *err)
{
    Outsource *o = st;
    if (!o)
        return 0;
    size_t n = r->wl.n + 1;
    o->run = calloc(n, sizeof *o->run);
    o->run_at = calloc(n, sizeof *o->run_at);
    o->in_wait = calloc(n, 1);
    o->buf = calloc((size_t)r->cluster.gpus + 1, sizeof *o->buf);
    o->idle = calloc((size_t)r->cluster.nodes + 1, sizeof *o->idle);
    if (!o->run || !o->run_at || !o->in_wait || !o->buf || !o->idle)
        return wk_error_nomem(err, "mechanisms.outsourcing");
    int rc = wk_engine_on(r->eng, WK_EV_OUTSOURCE, on_check, o, err);
    return rc < 0 ? rc : wk_engine_token_new(r->eng, &o->ready_tok, err);
}

static int note_wait(Outsource *o, uint32_t job, WkError *err)
{
    if (o->in_wait[job])
        return 0;
    if (o->nwait == o->capwait) {
        uint32_t cap = o->capwait ? 2 * o->capwait : 64;
        uint32_t *w = realloc(o->wait, (size_t)cap * sizeof *w);
        if (!w)
            return wk_error_nomem(err, "mechanisms.outsourcing");
        o->wait = w;
        o->capwait = cap;
    }
    o->wait[o->nwait++] = job;
    o->in_wait[job] = 1;
    return 0;
}

static int out_queued(WkRun *r, void *st, uint32_t job, WkError *err)
{
    Outsource *o = st;
    if (!o)
        return 0;
    o->nsub++;
    if (r->rt[job].state != WK_JOB_QUEUED)
        return 0;
    int rc = note_wait(o, job, err);
    return rc < 0 ? rc : post_check(o, err);
}

static int out_started(WkRun *r, void *st, uint32_t job, WkError *err)
{
    (void)err;
    Outsource *o = st;
    if (!o || !r->wl.jobs[job].model || o->run_at[job])
        return 0;
    o->run[o->nrun++] = job;
    o->run_at[job] = o->nrun;
    return 0;
}

/* A job that stops leaves the running set; one requeued by another cause
 * (preemption, failure) waits again. */
static void out_stopping(WkRun *r, void *st, uint32_t job, WkStopWhy why)
{
    Outsource *o = st;
    if (!o)
        return;
    if (o->run_at[job]) {
        uint32_t i = o->run_at[job] - 1, last = o->run[--o->nrun];
        o->run[i] = last;
        o->run_at[last] = i + 1;
        o->run_at[job] = 0;
    }
    if (why == WK_STOP_REQUEUE && !o->busy)
        (void)note_wait(o, job, &(WkError){0}); /* out of memory: it is only not handed GPUs back */
    (void)r;
}

static int out_released(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now,
                        WkError *err)
{
    (void)gpus;
    (void)err;
    Outsource *o = st;
    uint32_t req = r->rt[job].gpus_req;
    if (o && n > req)
        o->st.borrowed_gpu_s += (double)(n - req) * wk_time_to_s(now - r->rt[job].alloc_t);
    return 0;
}

static int out_changed(WkRun *r, void *st, WkError *err)
{
    (void)r;
    return st ? post_check(st, err) : 0;
}

static void out_finish(WkRun *r, void *st, WkTime end)
{
    Outsource *o = st;
    if (!o)
        return;
    o->st.lent_now = 0;
    for (uint32_t i = 0; i < o->nrun; i++) {
        uint32_t j = o->run[i], l = lent_of(r, j);
        if (r->rt[j].state == WK_JOB_RUNNING && l) {
            o->st.borrowed_gpu_s += (double)l * wk_time_to_s(end - r->rt[j].alloc_t);
            o->st.lent_now += l;
        }
    }
}

static void out_fini(void *st)
{
    Outsource *o = st;
    if (o) {
        free(o->run);
        free(o->run_at);
        free(o->wait);
        free(o->in_wait);
        free(o->buf);
        free(o->idle);
    }
    free(o);
}

WkOutsourceStats wk_outsource_stats(const WkRun *r, int *on)
{
    const Outsource *o = wk_run_sub(r, &wk_mech_outsource);
    *on = o != NULL;
    return o ? o->st : (WkOutsourceStats){0};
}

const WkRunSubsysOps wk_mech_outsource = {
    .name = "outsourcing",
    .init = out_init,
    .start = out_start,
    .started = out_started,
    .stopping = out_stopping,
    .released = out_released,
    .changed = out_changed,
    .queued = out_queued,
    .finish = out_finish,
    .fini = out_fini,
};
