/* SPDX-License-Identifier: Apache-2.0 */
/* queue.c — the waiting-job queue (a sorted array with an O(1) head), the
 * running-job set and the placement buffer the policies share, the
 * submit-time "can never fit" check, the common option readers, and the
 * callbacks of a queue policy (WkQueuePolicy) that its rules specialise. */
#include "models/sched/queue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define before wk_queue_before

int wk_queue_push(WkJobQueue *q, double key, WkTime submit, uint32_t job)
{
    WkQueueItem x = {.key = key, .submit = submit, .job = job};
    /* first live position whose item comes after x */
    size_t a = q->lo, b = q->lo + q->n;
    if (q->n && !before(&x, &q->it[b - 1])) {
        a = b;
    } else {
        while (a < b) {
            size_t m = a + (b - a) / 2;
            if (before(&x, &q->it[m]))
                b = m;
            else
                a = m + 1;
        }
    }
    if (a == q->lo && q->lo > 0) { /* room in front of the head */
        q->it[--q->lo] = x;
        q->n++;
        return 0;
    }
    if (q->lo + q->n == q->cap) {
        if (q->lo > q->cap / 4) { /* slide down rather than grow */
            memmove(q->it, q->it + q->lo, q->n * sizeof *q->it);
            a -= q->lo;
            q->lo = 0;
        } else {
            size_t nc = q->cap ? q->cap * 2 : 64;
            WkQueueItem *ni = realloc(q->it, nc * sizeof *ni);
            if (!ni)
                return WK_E_NOMEM;
            q->it = ni;
            q->cap = nc;
        }
    }
    memmove(q->it + a + 1, q->it + a, (q->lo + q->n - a) * sizeof *q->it);
    q->it[a] = x;
    q->n++;
    return 0;
}

void wk_queue_remove(WkJobQueue *q, size_t i)
{
    if (i == 0) {
        q->lo++;
    } else {
        size_t at = q->lo + i;
        memmove(q->it + at, q->it + at + 1, (q->lo + q->n - at - 1) * sizeof *q->it);
    }
    q->n--;
    if (q->n == 0)
        q->lo = 0;
}

void wk_queue_fini(WkJobQueue *q)
{
    free(q->it);
    memset(q, 0, sizeof *q);
}

/* First position (0 .. n) whose item does not come before x. */
static size_t lower_bound(const WkJobQueue *q, const WkQueueItem *x)
{
    size_t a = 0, b = q->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (before(wk_queue_at(q, m), x))
            a = m + 1;
        else
            b = m;
    }
    return a;
}

size_t wk_queue_find(const WkJobQueue *q, const WkQueueItem *x)
{
    size_t i = lower_bound(q, x);
    while (i < q->n && wk_queue_at(q, i)->gone && !before(x, wk_queue_at(q, i)))
        i++; /* an earlier stay of the same job, already gone */
    return i < q->n && !before(x, wk_queue_at(q, i)) ? i : q->n;
}

/* ---- waiting jobs by GPU count ---- */

/* The index of count g in ix (insert it when add; else ix->n when absent). */
static size_t size_slot(WkSizeIndex *ix, uint32_t g, int add)
{
    size_t a = 0, b = ix->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (ix->gpus[m] < g)
            a = m + 1;
        else
            b = m;
    }
    if (a < ix->n && ix->gpus[a] == g)
        return a;
    if (!add)
        return ix->n;
    if (ix->n == ix->cap) {
        size_t nc = ix->cap ? 2 * ix->cap : 16;
        uint32_t *ng = realloc(ix->gpus, nc * sizeof *ng);
        if (!ng)
            return SIZE_MAX;
        ix->gpus = ng;
        WkFitList *nb = realloc(ix->by, nc * sizeof *nb);
        if (!nb)
            return SIZE_MAX;
        ix->by = nb;
        uint8_t *nf = realloc(ix->full, nc);
        if (!nf)
            return SIZE_MAX;
        ix->full = nf;

        ix->cap = nc;
    }
    memmove(ix->gpus + a + 1, ix->gpus + a, (ix->n - a) * sizeof *ix->gpus);
    memmove(ix->by + a + 1, ix->by + a, (ix->n - a) * sizeof *ix->by);
    memmove(ix->full + a + 1, ix->full + a, ix->n - a);
    ix->gpus[a] = g;
    ix->by[a] = (WkFitList){0};
    ix->full[a] = 0;
    ix->n++;
    return a;
}

static void size_index_fini(WkSizeIndex *ix)
{
    for (size_t i = 0; i < ix->n; i++)
        wk_fit_fini(&ix->by[i]);
    free(ix->gpus);
    free(ix->by);
    free(ix->full);
    memset(ix, 0, sizeof *ix);
}

static int size_index_add(WkSizeIndex *ix, uint32_t g, const WkQueueItem *x, double rem_s)
{
    size_t s = size_slot(ix, g, 1);
    if (s == SIZE_MAX || wk_fit_push(&ix->by[s], x, rem_s) < 0)
        return WK_E_NOMEM;
    ix->live++;
    return 0;
}

/* Remove x of GPU count g; 1 when it was there. */
static int size_index_del(WkSizeIndex *ix, uint32_t g, const WkQueueItem *x)
{
    size_t s = size_slot(ix, g, 0);
    if (s == ix->n || !wk_fit_del(&ix->by[s], x))
        return 0;
    ix->live--;
    return 1;
}

int wk_queue_running_add(WkRunSet *s, uint32_t job, WkTime since)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        uint32_t *nj = realloc(s->job, nc * sizeof *nj);
        if (!nj)
            return WK_E_NOMEM;
        s->job = nj;
        WkTime *ns = realloc(s->since, nc * sizeof *ns);
        if (!ns)
            return WK_E_NOMEM;
        s->since = ns;
        s->cap = nc;
    }
    s->job[s->n] = job;
    s->since[s->n] = since;
    s->n++;
    return 0;
}

void wk_queue_running_remove(WkRunSet *s, uint32_t job)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->job[i] == job) {
            s->n--;
            s->job[i] = s->job[s->n];
            s->since[i] = s->since[s->n];
            return;
        }
}

void wk_queue_running_sweep(WkRunSet *s, const WkSchedCtx *ctx)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        if (wk_sched_job_running(ctx, s->job[i])) {
            s->job[k] = s->job[i];
            s->since[k] = s->since[i];
            k++;
        }
    s->n = k;
}

void wk_queue_running_fini(WkRunSet *s)
{
    free(s->job);
    free(s->since);
    memset(s, 0, sizeof *s);
}

int wk_queue_place_reserve(WkPlaceBuf *b, uint32_t n)
{
    if (n <= b->cap)
        return 0;
    uint32_t *ng = realloc(b->gpus, (size_t)n * sizeof *ng);
    if (!ng)
        return WK_E_NOMEM;
    b->gpus = ng;
    b->cap = n;
    return 0;
}

void wk_queue_place_fini(WkPlaceBuf *b)
{
    free(b->gpus);
    memset(b, 0, sizeof *b);
}

int wk_queue_start_on(WkSchedCtx *ctx, uint32_t job, const uint32_t *gpus, uint32_t n, WkRunSet *run,
                      WkError *err)
{
    int rc = wk_sched_start(ctx, job, gpus, n, err);
    if (rc < 0)
        return rc;
    if (run && wk_queue_running_add(run, job, wk_sched_now(ctx)) < 0)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "scheduler: out of memory");
    return 0;
}

/* Place job (by place, or the scenario's `placement:` when NULL) into buf
 * and start it; messages name the policy. As wk_queue_start. */
static int place_and_start(WkSchedCtx *ctx, uint32_t job, WkPlaceBuf *buf, WkRunSet *run, const char *name,
                           int (*place)(void *, const WkSchedCtx *, uint32_t, uint32_t, uint32_t *), void *priv,
                           WkError *err)
{
    uint32_t need = wk_sched_job_gpus(ctx, job);
    if (need > wk_sched_free_gpus(ctx))
        return WK_E_NOROOM;
    if (wk_queue_place_reserve(buf, need) < 0)
        return wk_error_nomem(err, name);
    int rc = place ? place(priv, ctx, job, need, buf->gpus)
                   : wk_sched_place_job(ctx, job, wk_sched_placement(ctx), buf->gpus, NULL, NULL);
    if (rc == WK_E_NOROOM)
        return rc;
    if (rc == WK_E_NOMEM)
        return wk_error_nomem(err, name);
    if (rc < 0)
        return wk_error_set(err, rc, NULL, 0, 0, "%s: placement of job %u failed", name, job);
    return wk_queue_start_on(ctx, job, buf->gpus, need, run, err);
}

int wk_queue_start(WkSchedCtx *ctx, uint32_t job, WkPlaceBuf *buf, WkRunSet *run, WkError *err)
{
    return place_and_start(ctx, job, buf, run, "scheduler", NULL, NULL, err);
}

int wk_queue_preempt(WkSchedCtx *ctx, uint32_t job, WkRunSet *run, WkError *err)
{
    if (!wk_sched_job_preemptible(ctx, job))
        return 0;
    int rc = wk_sched_preempt(ctx, job, err);
    if (rc < 0)
        return rc;
    if (run)
        wk_queue_running_remove(run, job);
    return 1;
}

uint32_t wk_queue_free_fit(const WkSchedCtx *ctx, uint32_t job)
{
    if (wk_sched_job_mem_need(ctx, job) <= 0)
        return wk_sched_free_gpus(ctx);
    uint32_t n = 0, G = wk_sched_gpus(ctx);
    for (uint32_t g = 0; g < G; g++)
        n += wk_sched_gpu_is_free(ctx, g) && wk_sched_job_fits_gpu(ctx, job, g);
    return n;
}

uint32_t wk_queue_victim_fit(const WkSchedCtx *ctx, uint32_t job, uint32_t victim)
{
    if (wk_sched_job_mem_need(ctx, job) <= 0)
        return wk_sched_job_gpus(ctx, victim);
    uint32_t n, k = 0;
    const uint32_t *gpus = wk_sched_job_placement(ctx, victim, &n);
    for (uint32_t i = 0; gpus && i < n; i++)
        k += wk_sched_job_fits_gpu(ctx, job, gpus[i]);
    return k;
}

const char *wk_queue_never_fits(const WkSchedCtx *ctx, uint32_t job)
{
    uint32_t need = wk_sched_job_gpus(ctx, job);
    if (need > wk_sched_cluster(ctx)->gpus)
        return "needs more GPUs than the cluster has";
    if (need > wk_sched_usable_gpus(ctx))
        return "needs more GPUs than are usable";
    return NULL;
}

int wk_queue_common_opts(const WkNode *params, WkPlacement *how, WkTime *cost_ns, WkError *err)
{
    static const char *const places[] = {"exclusive", "first-fit", "pack", "spread", "round-robin", NULL};
    int place = WK_PLACE_EXCLUSIVE;
    WkTime cost = 10 * WK_NS_PER_MIN; /* as models/run.c */
    int rc = 0;
    if (params && ((rc = wk_node_enum(params, "placement", 0, places, &place, err)) < 0 ||
                   (rc = wk_node_duration(params, "preemption_cost", 0, 0, 365 * WK_NS_PER_DAY, &cost, err)) < 0))
        return rc;
    if (how)
        *how = (WkPlacement)place;
    if (cost_ns)
        *cost_ns = cost;
    return 0;
}

/* ---- the common shape of a queue policy ---- */

int wk_queue_policy_init(WkQueuePolicy *p, const WkQueueRules *rules, const WkNode *params, WkError *err)
{
    static const char *const common[] = {WK_SCHED_COMMON_KEYS, NULL};
    p->rules = rules;
    return params ? wk_node_expect_keys(params, rules->keys ? rules->keys : common, err) : 0;
}

void wk_queue_policy_fini(void *priv)
{
    WkQueuePolicy *p = priv;
    wk_queue_fini(&p->q);
    size_index_fini(&p->fit);
    wk_queue_running_fini(&p->run);
    wk_queue_place_fini(&p->buf);
}

/* 1 when p keeps its waiting jobs by GPU count (the index is then the queue). */
static int indexed(const WkQueuePolicy *p)
{
    return p->rules->by_size || p->rules->easy;
}

size_t wk_queue_queued(const void *priv)
{
    const WkQueuePolicy *p = priv;
    return indexed(p) ? p->fit.live : p->q.n;
}

const WkQueueItem *wk_queue_head(const WkQueuePolicy *p)
{
    if (indexed(p))
        return wk_queue_next_fit(p, NULL, UINT64_MAX);
    return p->q.n ? wk_queue_at(&p->q, 0) : NULL;
}

static int push(WkQueuePolicy *p, const WkSchedCtx *ctx, uint32_t job, double key, WkError *err)
{
    WkQueueItem x = {.key = key, .submit = wk_sched_job_submit(ctx, job), .job = job};
    uint32_t g = wk_sched_job_gpus(ctx, job);
    /* the size index keeps a job's estimate when the EASY pass reads it (a
     * waiting job's estimate does not change while it waits) */
    int rc = indexed(p) ? size_index_add(&p->fit, g, &x, p->rules->easy ? wk_sched_job_remaining_s(ctx, job) : 0)
                        : wk_queue_push(&p->q, key, x.submit, job);
    if (rc < 0)
        return wk_error_nomem(err, p->rules->name);
    p->waiting_gpus += g;
    return 0;
}

int wk_queue_enqueue(WkQueuePolicy *p, const WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    return push(p, ctx, job, p->rules->key ? p->rules->key(p, ctx, job) : 0, err);
}

void wk_queue_dequeue(WkQueuePolicy *p, const WkSchedCtx *ctx, size_t i)
{
    if (indexed(p)) {
        const WkQueueItem *x = wk_queue_head(p);
        while (i-- > 0)
            x = wk_queue_next_fit(p, x, UINT64_MAX);
        WkQueueItem c = *x;
        wk_queue_dequeue_item(p, ctx, &c);
        return;
    }
    p->waiting_gpus -= wk_sched_job_gpus(ctx, wk_queue_at(&p->q, i)->job);
    wk_queue_remove(&p->q, i);
}

void wk_queue_dequeue_item(WkQueuePolicy *p, const WkSchedCtx *ctx, const WkQueueItem *x)
{
    uint32_t g = wk_sched_job_gpus(ctx, x->job);
    if (indexed(p)) {
        if (size_index_del(&p->fit, g, x))
            p->waiting_gpus -= g;
        return;
    }
    size_t i = wk_queue_find(&p->q, x);
    if (i < p->q.n)
        wk_queue_dequeue(p, ctx, i);
}

const WkQueueItem *wk_queue_next_fit(const WkQueuePolicy *p, const WkQueueItem *after, uint64_t cap)
{
    const WkQueueItem *best = NULL;
    for (size_t s = 0; s < p->fit.n && p->fit.gpus[s] <= cap; s++) {
        const WkQueueItem *x = wk_fit_next(&p->fit.by[s], after, INFINITY);
        if (x && (!best || before(x, best)))
            best = x;
    }
    return best;
}

int wk_queue_admit(WkQueuePolicy *p, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    const char *why = wk_queue_never_fits(ctx, job);
    if (why)
        return wk_sched_reject(ctx, job, why, err);
    int rc = wk_queue_enqueue(p, ctx, job, err);
    return rc < 0 ? rc : 1;
}

int wk_queue_policy_start(WkQueuePolicy *p, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    const WkQueueRules *r = p->rules;
    return place_and_start(ctx, job, &p->buf, r->track ? &p->run : NULL, r->name, r->place, p, err);
}

int wk_queue_drain(WkQueuePolicy *p, WkSchedCtx *ctx, WkError *err)
{
    const WkQueueItem *head;
    while ((head = wk_queue_head(p))) {
        WkQueueItem x = *head;
        int rc = wk_queue_policy_start(p, ctx, x.job, err);
        if (rc == WK_E_NOROOM && p->rules->make_room) {
            if ((rc = p->rules->make_room(p, ctx, x.job, err)) <= 0)
                return rc;
            rc = wk_queue_policy_start(p, ctx, x.job, err);
        }
        if (rc == WK_E_NOROOM)
            return 0;
        if (rc < 0)
            return rc;
        wk_queue_dequeue_item(p, ctx, &x);
    }
    return 0;
}

int wk_queue_pass(void *priv, WkSchedCtx *ctx, WkError *err)
{
    WkQueuePolicy *p = priv;
    return p->rules->pass ? p->rules->pass(p, ctx, err) : wk_queue_drain(p, ctx, err);
}

int wk_queue_on_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    int rc = wk_queue_admit(priv, ctx, job, err);
    return rc <= 0 ? rc : wk_queue_pass(priv, ctx, err);
}

int wk_queue_on_submit_if_fits(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    WkQueuePolicy *p = priv;
    int rc = wk_queue_admit(p, ctx, job, err);
    if (rc <= 0)
        return rc;
    if (wk_queue_queued(p) > 1 && wk_sched_job_gpus(ctx, job) > wk_sched_free_gpus(ctx))
        return 0;
    return wk_queue_pass(p, ctx, err);
}

int wk_queue_on_incident(void *priv, WkSchedCtx *ctx, const uint32_t *jobs, size_t njobs, WkError *err)
{
    WkQueuePolicy *p = priv;
    int front = p->rules->front;
    for (size_t i = 0; i < njobs; i++) {
        /* to the front the last job first, so that jobs[0] ends up at the head */
        uint32_t job = front ? jobs[njobs - 1 - i] : jobs[i];
        wk_queue_running_remove(&p->run, job);
        int rc = front ? push(p, ctx, job, --p->front_key, err) : wk_queue_enqueue(p, ctx, job, err);
        if (rc < 0)
            return rc;
    }
    return wk_queue_pass(p, ctx, err);
}

/* ---- EASY backfilling ---- */

struct WkEasyEnd {
    double end_s; /* expected seconds from now until it ends */
    uint32_t gpus;
    uint32_t job;
};

static int cmp_end(const void *a, const void *b)
{
    const struct WkEasyEnd *x = a, *y = b;
    if (x->end_s != y->end_s)
        return x->end_s < y->end_s ? -1 : 1;
    return (x->job > y->job) - (x->job < y->job);
}

/* The head's reservation: *shadow_s (seconds from now; INFINITY when the
 * running jobs never free enough GPUs, e.g. with GPUs down) and *extra, the
 * GPUs free at that time beyond the head's need. */
static int reservation(WkQueuePolicy *p, WkEasy *e, const WkSchedCtx *ctx, uint32_t need, double *shadow_s,
                       uint64_t *extra, WkError *err)
{
    const WkRunSet *run = &p->run;
    wk_queue_running_sweep(&p->run, ctx);
    if (run->n > e->cap) {
        struct WkEasyEnd *ne = realloc(e->end, run->n * sizeof *ne);
        if (!ne)
            return wk_error_nomem(err, p->rules->name);
        e->end = ne;
        e->cap = run->n;
    }
    for (size_t i = 0; i < run->n; i++) {
        uint32_t j = run->job[i];
        double left = wk_sched_job_remaining_s(ctx, j);
        e->end[i] = (struct WkEasyEnd){.end_s = left > 0 ? left : 0, .gpus = wk_sched_job_gpus(ctx, j), .job = j};
    }
    qsort(e->end, run->n, sizeof *e->end, cmp_end);
    uint64_t avail = wk_sched_free_gpus(ctx);
    *shadow_s = INFINITY;
    *extra = 0;
    for (size_t i = 0; i < run->n; i++) {
        avail += e->end[i].gpus;
        if (avail >= need) {
            *shadow_s = e->end[i].end_s;
            *extra = avail - need;
            break;
        }
    }
    return 0;
}

/* The next EASY candidate after `at` in queue order: a waiting job that
 * fits in free_now GPUs, of a GPU count whose placement has not failed
 * since the last start, expected to end within shadow_s unless it needs no
 * more than `extra` GPUs. *slot = its GPU count's index. One search per
 * GPU count. NULL when none. */
static const WkQueueItem *easy_next(const WkQueuePolicy *p, const WkQueueItem *at, uint32_t free_now,
                                    double shadow_s, uint64_t extra, size_t *slot)
{
    const WkSizeIndex *ix = &p->fit;
    const WkQueueItem *best = NULL;
    for (size_t s = 0; s < ix->n && ix->gpus[s] <= free_now; s++) {
        if (ix->full[s])
            continue;
        const WkQueueItem *x = wk_fit_next(&ix->by[s], at, ix->gpus[s] <= extra ? INFINITY : shadow_s);
        if (x && (!best || before(x, best)))
            best = x, *slot = s;
    }
    return best;
}

/* Job x (of the slot-th GPU count) started: it leaves the size index. */
static void easy_started(WkQueuePolicy *p, size_t slot, const WkQueueItem *x)
{
    if (wk_fit_del(&p->fit.by[slot], x)) {
        p->waiting_gpus -= p->fit.gpus[slot];
        p->fit.live--;
    }
}

int wk_queue_easy_pass(WkQueuePolicy *p, WkEasy *e, WkSchedCtx *ctx, WkError *err)
{
    /* the head and the jobs after it, in order, while they fit */
    int rc = wk_queue_drain(p, ctx, err);
    if (rc < 0 || wk_queue_queued(p) < 2 || wk_sched_free_gpus(ctx) == 0)
        return rc;
    double shadow_s;
    uint64_t extra;
    WkQueueItem at = *wk_queue_head(p);
    if ((rc = reservation(p, e, ctx, wk_sched_job_gpus(ctx, at.job), &shadow_s, &extra, err)) < 0)
        return rc;
    /* Later jobs in queue order, found through the size index: only those
     * that fit now and end by the shadow time or fit in the extra GPUs. A
     * GPU count whose placement failed is skipped until the next start
     * (placement depends only on the count and the free GPUs, for a job
     * that fits every GPU), as every job of that count would fail the same
     * way; a job that fits some GPUs only (memory) marks nothing. */
    memset(p->fit.full, 0, p->fit.n);
    uint32_t free_now = wk_sched_free_gpus(ctx);
    size_t slot = 0;
    const WkQueueItem *x;
    while (free_now > 0 && (x = easy_next(p, &at, free_now, shadow_s, extra, &slot))) {
        at = *x;
        uint32_t need = p->fit.gpus[slot];
        int ends_before = wk_sched_job_remaining_s(ctx, at.job) <= shadow_s;
        if (!ends_before && need > extra)
            continue; /* the index's estimate was NaN: not within the shadow time */
        rc = wk_queue_policy_start(p, ctx, at.job, err);
        if (rc == WK_E_NOROOM) {
            /* a job that fits only some GPUs (memory) says nothing of the others of its count */
            p->fit.full[slot] = wk_sched_job_mem_need(ctx, at.job) <= 0;
            continue;
        }
        if (rc < 0)
            return rc;
        if (!ends_before)
            extra -= need;
        easy_started(p, slot, &at);
        memset(p->fit.full, 0, p->fit.n);
        free_now = wk_sched_free_gpus(ctx);
    }
    return 0;
}

void wk_queue_easy_fini(WkEasy *e)
{
    free(e->end);
    memset(e, 0, sizeof *e);
}

static int cmp_item(const void *a, const void *b)
{
    const WkQueueItem *x = a, *y = b;
    return before(x, y) ? -1 : before(y, x) ? 1 : 0;
}

/* rules->key of a waiting job's item (wk_fit_rekey's form). */
static double key_of_item(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x, uint32_t gpus)
{
    const WkQueuePolicy *p = priv;
    (void)gpus;
    return p->rules->key(priv, ctx, x->job);
}

int wk_queue_rekey(WkQueuePolicy *p, const WkSchedCtx *ctx, WkError *err)
{
    WkJobQueue *q = &p->q;
    if (!p->rules->key)
        return 0;
    if (indexed(p)) { /* the keys per GPU count: its list is the queue */
        const WkFitKey plain = {.key = key_of_item}, *k = p->rules->rekey.key ? &p->rules->rekey : &plain;
        for (size_t s = 0; s < p->fit.n; s++)
            if (wk_fit_rekey(&p->fit.by[s], k, p, ctx, p->fit.gpus[s]) < 0)
                return wk_error_nomem(err, p->rules->name);
        return 0;
    }
    int sorted = 1;
    for (size_t i = 0; i < q->n; i++) {
        q->it[q->lo + i].key = p->rules->key(p, ctx, q->it[q->lo + i].job);
        sorted = sorted && (i == 0 || !before(&q->it[q->lo + i], &q->it[q->lo + i - 1]));
    }
    if (!sorted) /* a common shift of the keys keeps the order: no sort then */
        qsort(q->it + q->lo, q->n, sizeof *q->it, cmp_item);
    return 0;
}
