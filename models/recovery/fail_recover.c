/* SPDX-License-Identifier: Apache-2.0 */
/* fail_recover.c — what happens to a job hit by a failure once it is
 * detected, by `recovery.mode`: requeue (the policy decides), hot spares
 * (a spare node steps in), wait (keep the GPUs until the repair), and the
 * elastic shrink onto the surviving GPUs. Not the failures themselves
 * (fail_hit.c) nor checkpoints (fail_ckpt.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/recovery/fail_impl.h"

#define NONE WK_RUNFAIL_NONE

/* ---- hot spares ---- */

void wk_runfail_spares_reserve(WkRun *r)
{
    const WkCluster *c = &r->cluster;
    /* hot spares: the last nodes of the cluster, held out of scheduling */
    for (uint32_t k = 0; k < r->fail.spare_nodes; k++) {
        uint32_t nd = c->nodes - 1 - k;
        r->pool.reserved[nd] = 1;
        for (uint32_t g = c->node_first_gpu[nd]; g < c->node_first_gpu[nd + 1]; g++)
            wk_pool_take(&r->pool, g);
        r->pool.spares_free++;
    }
}

void wk_runfail_spares_refill(WkRun *r, uint32_t node)
{
    const WkCluster *c = &r->cluster;
    if (r->fail.recovery != WK_RECOVER_SPARES || r->pool.spares_free >= r->fail.spare_nodes || r->pool.reserved[node])
        return;
    for (uint32_t g = c->node_first_gpu[node]; g < c->node_first_gpu[node + 1]; g++)
        if (r->pool.owner[g] != NONE || c->health[g] == WK_GPU_DOWN)
            return;
    for (uint32_t g = c->node_first_gpu[node]; g < c->node_first_gpu[node + 1]; g++)
        wk_pool_take(&r->pool, g);
    r->pool.reserved[node] = 1;
    r->pool.spares_free++;
}

/* ---- detection and restart ---- */


static int is_free(const WkPool *pl, uint32_t g)
{
    return (pl->freebits[g >> 6] >> (g & 63)) & 1;
}

/* Take the next hot spare node out of reserve, from the last node down
 * (*from: where the search goes on): its healthy GPUs join the pool.
 * Returns the node, or NONE when no spare is left. */
static uint32_t open_spare(WkRun *r, uint32_t *from)
{
    const WkCluster *c = &r->cluster;
    while (*from > 0) {
        uint32_t nd = --*from;
        if (!r->pool.reserved[nd])
            continue;
        r->pool.reserved[nd] = 0;
        r->pool.spares_free--;
        for (uint32_t g = c->node_first_gpu[nd]; g < c->node_first_gpu[nd + 1]; g++)
            if (c->health[g] != WK_GPU_DOWN && r->pool.owner[g] == NONE)
                wk_pool_give(&r->pool, g);
        return nd;
    }
    return NONE;
}

/* Where try_spares is in the spare nodes it has opened. */
typedef struct SpareCursor {
    uint32_t from; /* open_spare's search position */
    uint32_t node; /* the spare node in use, or NONE */
    uint32_t g;    /* its next GPU to look at */
} SpareCursor;

/* The next free GPU of the spare node in use; a new spare node is opened
 * when that one has none left or `fresh` asks for a node of its own. NONE
 * when the spares are used up. */
static uint32_t spare_gpu(WkRun *r, SpareCursor *s, int fresh)
{
    const WkCluster *c = &r->cluster;
    for (;;) {
        if (!fresh && s->node != NONE)
            for (; s->g < c->node_first_gpu[s->node + 1]; s->g++)
                if (is_free(&r->pool, s->g))
                    return s->g++;
        fresh = 0;
        if ((s->node = open_spare(r, &s->from)) == NONE)
            return NONE;
        s->g = c->node_first_gpu[s->node];
    }
}

/* Restart on hot spares. Every node where one of the job's GPUs is down is
 * replaced by a whole spare node, whose GPUs take that node's rank slots in
 * the job's rank-ordered list, so TP groups stay inside a node and every
 * other GPU keeps its rank; the failed node's surviving GPUs go back to the
 * pool. The job skips the queue and the placement: its launch step is the
 * spare's (spare_launch), not the relaunch through the scheduler. Returns 0
 * when restarted, 1 when the spares do not suffice (the spare nodes opened
 * stay in the pool, the job goes through the scheduler). */
static int try_spares(WkRun *r, WkRunFail *f, uint32_t job, WkError *err)
{
    const WkJobRt *rt = &r->rt[job];
    const WkCluster *c = &r->cluster;
    uint32_t n = r->wl.jobs[job].gpus;
    uint32_t *list = malloc((size_t)n * sizeof *list);
    if (!list)
        return wk_error_nomem(err, "job placement");
    memcpy(list, rt->gpus, (size_t)n * sizeof *list);
    SpareCursor s = {.from = c->nodes, .node = NONE};
    int ok = 1;
    for (uint32_t i = 0; i < n && ok; i++) {
        if (list[i] != rt->gpus[i] || is_free(&r->pool, list[i]))
            continue; /* its node was replaced already, or it is up */
        uint32_t failed = c->gpu_node[rt->gpus[i]];
        int fresh = 1;
        for (uint32_t j = 0; j < n && ok; j++)
            if (c->gpu_node[rt->gpus[j]] == failed) {
                list[j] = spare_gpu(r, &s, fresh);
                ok = list[j] != NONE;
                fresh = 0;
            }
    }
    int rc = 1; /* not restarted */
    if (ok) {
        r->rt[job].pending_cost = wk_run_restart_cost(r, job, 1, f->job[job].steps);
        rc = wk_sched_start(&r->si.ctx, job, list, n, err);
    }
    free(list);
    return rc;
}

/* Elastic shrink: restart at once on the surviving GPUs with as many whole
 * DP replicas as still fit the batch and memory. Returns 0 when restarted,
 * 1 when it could not shrink. */
static int try_shrink(WkRun *r, WkRunFail *f, uint32_t job, WkError *err)
{
    const WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    if (js->kind == WK_JOB_HPC || !js->model || !r->wl.models[js->model - 1].elastic)
        return 1; /* only elastic model jobs shrink; an hpc job (no model) never does */
    uint32_t n = js->gpus, k = 0;
    uint32_t *surv = malloc((size_t)n * sizeof *surv);
    if (!surv)
        return wk_error_nomem(err, "job placement");
    for (uint32_t i = 0; i < n; i++)
        if (r->cluster.health[rt->gpus[i]] != WK_GPU_DOWN)
            surv[k++] = rt->gpus[i];
    uint32_t pick = wk_elastic_fit(r, job, surv, k < n ? k : n - 1, 0);
    int rc = 1;
    if (pick) {
        f->shrinks++;
        rc = wk_elastic_restart(r, job, surv, pick, err);
        if (rc == 0)
            rc = wk_runfail_note_shrunk(r, f, job, err);
    }
    free(surv);
    return rc;
}

/* Restart a hung job on the GPUs it holds once none of them is down. After
 * a software failure its ring flows are still on the fabric: they leave
 * (and the others re-share) before the restart adds them afresh. */
static int restart_in_place(WkRun *r, WkRunFail *f, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkTime now = wk_engine_now(r->eng);
    if (rt->nflows) {
        int rc = wk_progress_stop(r, job, err);
        if (rc < 0)
            return rc;
    }
    rt->waiting = 0;
    rt->hung = 0;
    rt->seg_start = now + rt->pending_cost;
    rt->pending_cost = 0;
    int rc = wk_progress_start(r, job, err);
    return rc < 0 ? rc : wk_runfail_job_started(r, f, job, err);
}

/* Recovery `wait`: keep the GPUs, drop the traffic and wait on the
 * waitlist for the repair. */
static int wait_for_repair(WkRun *r, WkRunFail *f, uint32_t job, WkError *err)
{
    int rc = wk_progress_stop(r, job, err);
    if (rc < 0)
        return rc;
    r->rt[job].waiting = 1;
    /* a job waits at most once at a time: room for every job */
    if (!f->waitlist && !(f->waitlist = malloc(r->wl.n * sizeof *f->waitlist)))
        return wk_error_nomem(err, "recovery waitlist");
    f->waitlist[f->nwait++] = job;
    return 0;
}

/* A hit job notices its failure: record the detection delay, charge the
 * restart cost (its steps through the scheduler; a hot spare replaces the
 * launch step with its own), then shrink (elastic jobs), wait in place, restart on
 * spares or requeue, by recovery mode. */
int wk_runfail_on_detect(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    uint32_t job = ev->target, inc = ev->payload;
    WkJobRt *rt = &r->rt[job];
    WkFailJob *fj = &f->job[job];
    WkTime now = wk_engine_now(e);
    WkIncidentRow *row = &f->incidents[inc];
    double det = wk_time_to_s(now - fj->fail_t);
    if (isnan(row->detect_s) || det > row->detect_s)
        row->detect_s = det;
    fj->detect_t = now;
    fj->interruptions++;
    f->interruptions++;
    rt->pending_cost = wk_run_restart_cost(r, job, 0, fj->steps);
    int rc = try_shrink(r, f, job, err);
    if (rc <= 0)
        return rc;
    if (r->fail.recovery == WK_RECOVER_WAIT) {
        int any_down = 0;
        for (uint32_t i = 0; i < r->wl.jobs[job].gpus; i++)
            any_down |= r->cluster.health[rt->gpus[i]] == WK_GPU_DOWN;
        if (!any_down) /* a software failure: restart where it is */
            return restart_in_place(r, f, job, err);
        return wait_for_repair(r, f, job, err);
    }
    if ((rc = wk_run_request_requeue(r, job, err)) < 0)
        return rc;
    rt->hung = 0;
    if (r->fail.recovery == WK_RECOVER_SPARES && (rc = try_spares(r, f, job, err)) <= 0)
        return rc;
    if ((rc = wk_run_request_join(r, job, err)) != 0) /* a GPU share with room on a shared GPU */
        return rc < 0 ? rc : 0;
    return wk_sched_host_incident(&r->si, &job, 1, err);
}

/* After a repair: restart the waiting jobs whose GPUs are all up again. */
int wk_runfail_wake_waiting(WkRun *r, WkRunFail *f, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; i < f->nwait && rc == 0;) {
        uint32_t job = f->waitlist[i];
        int down = 0;
        for (uint32_t k = 0; k < r->wl.jobs[job].gpus && !down; k++)
            down = r->cluster.health[r->rt[job].gpus[k]] == WK_GPU_DOWN;
        if (down) {
            i++;
            continue;
        }
        f->waitlist[i] = f->waitlist[--f->nwait];
        rc = restart_in_place(r, f, job, err);
    }
    return rc;
}

int wk_runfail_note_shrunk(WkRun *r, WkRunFail *f, uint32_t job, WkError *err)
{
    if (f->job[job].on_shrunk)
        return 0;
    if (!f->shrunk && !(f->shrunk = malloc(r->wl.n * sizeof *f->shrunk)))
        return wk_error_nomem(err, "elastic job list");
    f->shrunk[f->nshrunk++] = job;
    f->job[job].on_shrunk = 1;
    return 0;
}
