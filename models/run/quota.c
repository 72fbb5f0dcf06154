/* SPDX-License-Identifier: Apache-2.0 */
/* quota.c — per-user GPU quotas in front of the scheduler (`workload.quotas`,
 * docs/scenarios.md "Quotas"): Philly's virtual clusters. A job of a user
 * with a quota reaches the policy only while the GPUs of that user's jobs
 * already handed to it (waiting there or running, not yet finished) plus
 * its own stay within the quota, or when none of them is left; until then it
 * waits in its user's line, in submit order, behind the user's earlier
 * held jobs. Other users' jobs pass. A finished or rejected job gives its
 * GPUs back to its user's count, and the lines it unblocked are offered
 * again (wk_quota_next). */
#include "models/run/run_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct WkRunQuota {
    size_t nusers;
    uint32_t *limit;  /* per user: GPUs; 0 = no limit */
    uint64_t *used;   /* per user: GPUs of its jobs handed to the policy, not finished */
    uint32_t *head, *tail; /* per user: its first and last held job + 1 (0: none) */
    uint32_t *next;   /* per job: the next held job of its user + 1 */
    uint8_t *counted; /* per job: its GPUs are in its user's count */
    uint32_t *dirty;  /* users whose count fell while jobs of theirs are held (a stack) */
    uint8_t *is_dirty;
    size_t ndirty;
};

void wk_quota_free(WkRunQuota *q)
{
    if (!q)
        return;
    free(q->limit);
    free(q->used);
    free(q->head);
    free(q->tail);
    free(q->next);
    free(q->counted);
    free(q->dirty);
    free(q->is_dirty);
    free(q);
}

/* Each user's quota: stated, or its share of the workload's GPU-time. */
static void limits(const WkWorkload *w, uint32_t gpus, uint32_t *limit)
{
    if (!w->quota_share) {
        memcpy(limit, w->quota, w->nusers * sizeof *limit);
        return;
    }
    double *use = calloc(w->nusers, sizeof *use), total = 0;
    if (!use)
        return; /* the caller checks limit[] is filled */
    for (size_t j = 0; j < w->n; j++) {
        const WkJobSpec *js = &w->jobs[j];
        double s = js->model ? 1.0 : fmax(wk_time_to_s(js->duration), 1.0);
        if (js->user) {
            use[js->user - 1] += (double)js->gpus * s;
            total += (double)js->gpus * s;
        }
    }
    for (size_t u = 0; u < w->nusers; u++) {
        double g = total > 0 ? round((double)gpus * use[u] / total) : 0;
        limit[u] = g < 1 ? 1 : (uint32_t)g;
    }
    free(use);
}

int wk_quota_prepare(WkRun *r, WkError *err)
{
    const WkWorkload *w = &r->wl;
    if (!w->quota_share && !w->quota)
        return 0;
    WkRunQuota *q = calloc(1, sizeof *q);
    size_t nu = w->nusers ? w->nusers : 1, nj = w->n ? w->n : 1;
    if (!q || !(q->limit = calloc(nu, sizeof *q->limit)) || !(q->used = calloc(nu, sizeof *q->used)) ||
        !(q->head = calloc(nu, sizeof *q->head)) || !(q->tail = calloc(nu, sizeof *q->tail)) ||
        !(q->dirty = calloc(nu, sizeof *q->dirty)) || !(q->is_dirty = calloc(nu, 1)) ||
        !(q->next = calloc(nj, sizeof *q->next)) || !(q->counted = calloc(nj, 1))) {
        wk_quota_free(q);
        return wk_error_nomem(err, "workload.quotas");
    }
    q->nusers = w->nusers;
    limits(w, r->cluster.gpus, q->limit);
    for (size_t u = 0; w->quota_share && u < q->nusers; u++)
        if (!q->limit[u]) {
            wk_quota_free(q);
            return wk_error_nomem(err, "workload.quotas");
        }
    r->quota = q;
    return 0;
}

uint32_t wk_quota_limit(const WkRun *r, uint32_t user)
{
    return r->quota && user >= 1 && user <= r->quota->nusers ? r->quota->limit[user - 1] : 0;
}

/* Room for job in its user's quota now. */
static int fits(const WkRunQuota *q, size_t u, uint32_t gpus)
{
    return q->used[u] == 0 || q->used[u] + gpus <= q->limit[u];
}

int wk_quota_hold(WkRun *r, uint32_t job)
{
    WkRunQuota *q = r->quota;
    const WkJobSpec *js = &r->wl.jobs[job];
    if (!q || !js->user || !q->limit[js->user - 1])
        return 0;
    size_t u = js->user - 1;
    if (!q->head[u] && fits(q, u, js->gpus)) {
        q->used[u] += js->gpus;
        q->counted[job] = 1;
        return 0;
    }
    q->next[job] = 0;
    if (q->tail[u])
        q->next[q->tail[u] - 1] = job + 1;
    else
        q->head[u] = job + 1;
    q->tail[u] = job + 1;
    return 1;
}

void wk_quota_done(WkRun *r, uint32_t job)
{
    WkRunQuota *q = r->quota;
    if (!q || !q->counted[job])
        return;
    size_t u = r->wl.jobs[job].user - 1;
    q->counted[job] = 0;
    q->used[u] -= r->wl.jobs[job].gpus;
    if (q->head[u] && !q->is_dirty[u]) {
        q->is_dirty[u] = 1;
        q->dirty[q->ndirty++] = (uint32_t)u;
    }
}

uint32_t wk_quota_next(WkRun *r)
{
    WkRunQuota *q = r->quota;
    while (q && q->ndirty) {
        size_t u = q->dirty[q->ndirty - 1];
        uint32_t job = q->head[u] ? q->head[u] - 1 : UINT32_MAX;
        if (job != UINT32_MAX && fits(q, u, r->wl.jobs[job].gpus)) {
            q->head[u] = q->next[job];
            if (!q->head[u])
                q->tail[u] = 0;
            q->used[u] += r->wl.jobs[job].gpus;
            q->counted[job] = 1;
            return job;
        }
        q->is_dirty[u] = 0;
        q->ndirty--;
    }
    return UINT32_MAX;
}
