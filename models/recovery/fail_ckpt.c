/* SPDX-License-Identifier: Apache-2.0 */
/* fail_ckpt.c — checkpoints of running jobs: each job's interval (fixed,
 * Young, Daly from its exposure to the failure classes), the stall and
 * completion of a write sharing the storage bandwidth, the snapshot a
 * failure rolls back to, and the restore time a restart pays. */
#include <math.h>

#include "models/recovery/fail_impl.h"

/* Bytes of a job's checkpoint (models/state/elastic.h). */
static double ckpt_bytes(const WkRun *r, uint32_t job) { return wk_run_ckpt_bytes(r, job); }

/* Checkpoints are written as flows to the cluster's storage nodes
 * (fail_store.c) rather than at a share of storage_gb_per_s. */
static int on_storage(const WkRun *r)
{
    return r->fail.mode != WK_CKPT_MEMORY && r->cluster.storage.nodes && r->share.net;
}

/* Stall of a checkpoint now (writers share the storage), and when it is
 * complete (async keeps writing after the snapshot). */
static void ckpt_cost(const WkRun *r, const WkRunFail *f, uint32_t job, double *stall, double *complete)
{
    double size = ckpt_bytes(r, job);
    double share = r->fail.storage_bw / (f->ckpt_active + 1);
    double snap = size / ((double)r->wl.jobs[job].gpus * r->fail.host_bw);
    switch (r->fail.mode) {
    case WK_CKPT_ASYNC: *stall = snap; *complete = snap + size / share; break;
    case WK_CKPT_MEMORY: *stall = snap; *complete = snap; break;
    default: *stall = size / share; *complete = *stall; break;
    }
}

/* A restart's checkpoint load is a transfer from the storage nodes
 * (fail_store.c) where the checkpoint lives there (remote restore). */
static int loads_from_storage(const WkRun *r)
{
    return on_storage(r) && r->fail.restore == WK_RESTORE_REMOTE;
}

/* Expected time between failures hitting the job: 1 / sum of component rates. */
static double job_mttf_s(const WkRun *r, uint32_t job)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    uint32_t gpn = r->cluster.gpus_per_node ? r->cluster.gpus_per_node : 1;
    double gpus = js->gpus, nodes = ceil((double)js->gpus / gpn), rate = 0;
    for (int c = 0; c < WK_FC_N; c++) {
        if (!r->fail.cls[c].on)
            continue;
        double mean = wk_dist_mean_s(&r->fail.cls[c].ttf);
        double n = wk_fail_class_exposure(wk_fail_class_get((WkFailClass)c), gpus, nodes);
        if (mean > 0)
            rate += n / mean;
    }
    return rate > 0 ? 1 / rate : INFINITY;
}

/* Checkpoint interval of a job by the interval rule, s (0 = none). */
static double job_tau_s(const WkRun *r, uint32_t job)
{
    double size = ckpt_bytes(r, job);
    double sbw = r->fail.storage_bw; /* storage nodes: all their ports, the best a write can get */
    if (on_storage(r))
        sbw = r->cluster.storage.nodes * r->cluster.storage.nic_bytes_per_s;
    double delta = r->fail.mode == WK_CKPT_REMOTE ? size / sbw
                                                   : size / ((double)r->wl.jobs[job].gpus * r->fail.host_bw);
    double m = job_mttf_s(r, job);
    switch (r->fail.interval_rule) {
    case WK_CKPT_FIXED: return wk_time_to_s(r->fail.interval);
    case WK_CKPT_YOUNG: return isinf(m) ? 0 : wk_ckpt_young_s(delta, m);
    case WK_CKPT_DALY: return isinf(m) ? 0 : wk_ckpt_daly_s(delta, m);
    default: return 0;
    }
}

static int arm(WkRun *r, WkRunFail *f, uint32_t job, WkError *err);

int wk_runfail_job_started(WkRun *r, WkRunFail *f, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkFailJob *fj = &f->job[job];
    WkTime now = wk_engine_now(r->eng);
    WkStoreXfer load = {0};
    if (fj->incident && loads_from_storage(r) && fj->steps[WK_RSTEP_LOAD] > 0)
        load = (WkStoreXfer){.read = 1, .inc = fj->incident, .est_s = fj->steps[WK_RSTEP_LOAD],
                             .tail = wk_time_from_s(fj->steps[WK_RSTEP_WARMUP])};
    if (fj->incident) {
        WkIncidentRow *row = &f->incidents[fj->incident - 1];
        double rec = wk_time_to_s(rt->seg_start - fj->fail_t);
        row->wait_s = wk_time_to_s(now - fj->detect_t);
        row->restart_s = wk_time_to_s(rt->seg_start - now);
        if (isnan(row->recovery_s) || rec > row->recovery_s)
            row->recovery_s = rec;
        f->restarts++;
        f->detect_sum += wk_time_to_s(fj->detect_t - fj->fail_t);
        for (int k = 0; k < WK_RSTEP_N; k++) {
            row->step_s[k] = fj->steps[k];
            f->step_sum[k] += fj->steps[k];
        }
        fj->incident = 0;
    }
    if (load.read) { /* the load's flows start after the steps before it; its end arms the checkpoints */
        if (!fj->ckpt_tok && wk_engine_token_new(r->eng, &fj->ckpt_tok, err) < 0)
            return WK_E_NOMEM;
        WkTime from = rt->seg_start - wk_time_from_s(load.est_s) - load.tail;
        return wk_runfail_store_xfer(r, f, job, ckpt_bytes(r, job), from > now ? from : now, &load, err);
    }
    return arm(r, f, job, err);
}

/* Post a running job's next checkpoint, an interval after its progress
 * resumes (none without an interval). */
static int arm(WkRun *r, WkRunFail *f, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    WkFailJob *fj = &f->job[job];
    if (r->fail.interval_rule == WK_CKPT_NONE) /* a fixed interval holds whatever the failure settings */
        return 0;
    if (fj->tau_s == 0)
        fj->tau_s = job_tau_s(r, job);
    if (!(fj->tau_s > 0))
        return 0;
    if (!fj->ckpt_tok && wk_engine_token_new(r->eng, &fj->ckpt_tok, err) < 0)
        return WK_E_NOMEM;
    return wk_engine_post_e(r->eng, rt->seg_start + wk_time_from_s(fj->tau_s), WK_EV_CKPT, job, 0, 0, fj->ckpt_tok, err);
}

void wk_runfail_job_stopped(WkRun *r, WkRunFail *f, uint32_t job)
{
    WkJobRt *rt = &r->rt[job];
    WkFailJob *fj = &f->job[job];
    if (fj->ckpt_tok && !rt->hung)
        wk_engine_cancel(r->eng, fj->ckpt_tok);
    (void)wk_runfail_store_end(r, f, job, 0, NULL); /* a write in flight is dropped; no re-solve: cannot fail */
    if (fj->in_ckpt) {
        fj->in_ckpt = 0;
        if (r->fail.mode != WK_CKPT_MEMORY && f->ckpt_active)
            f->ckpt_active--;
    }
}

/* A checkpoint begins: snapshot the progress, stall while writing, post
 * its completion. */
int wk_runfail_on_ckpt(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    uint32_t job = ev->target;
    WkJobRt *rt = &r->rt[job];
    WkFailJob *fj = &f->job[job];
    WkTime now = wk_engine_now(e);
    wk_progress_settle(r, job, now);
    fj->snap_done = rt->done;
    fj->snap_left = rt->left_ns;
    fj->snap_prog_s = rt->prog_s;
    double stall, complete;
    ckpt_cost(r, f, job, &stall, &complete);
    fj->in_ckpt = 1;
    if (r->fail.mode != WK_CKPT_MEMORY)
        f->ckpt_active++;
    if (on_storage(r)) { /* an async write moves its bytes after the snapshot; a blocking one stalls until done */
        WkTime from = now + (r->fail.mode == WK_CKPT_ASYNC ? wk_time_from_s(stall) : 0);
        rt->seg_start = from;
        int rc = wk_progress_refresh(r, job, 0, err);
        return rc < 0 ? rc : wk_runfail_store_begin(r, f, job, ckpt_bytes(r, job), from, err);
    }
    rt->seg_start = now + wk_time_from_s(stall); /* no progress while writing */
    int rc = wk_progress_refresh(r, job, 0, err);
    if (rc < 0)
        return rc;
    return wk_engine_post_e(e, now + wk_time_from_s(complete), WK_EV_CKPT_DONE, job, 0, 0, fj->ckpt_tok, err);
}

/* A restart's checkpoint load from the storage nodes is done: its step
 * time and the incident's restart and recovery times become the ones it
 * took; the flows leave, the other transfers are re-timed, the job's
 * checkpoints are armed. */
static int load_done(WkRun *r, WkRunFail *f, uint32_t job, WkTime now, WkError *err)
{
    for (size_t i = 0; i < f->nxfer; i++) {
        WkStoreXfer *x = &f->xfer[i];
        if (x->job != job || !x->read)
            continue;
        double took = wk_time_to_s(now - x->from), d = took - x->est_s;
        f->step_sum[WK_RSTEP_LOAD] += d;
        if (x->inc) {
            WkIncidentRow *row = &f->incidents[x->inc - 1];
            row->step_s[WK_RSTEP_LOAD] = took;
            row->restart_s += d;
            row->recovery_s += d;
        }
        break;
    }
    int rc = wk_runfail_store_end(r, f, job, 1, err);
    return rc < 0 ? rc : arm(r, f, job, err);
}

/* A checkpoint is complete: the snapshot becomes what a failure rolls back
 * to; the next one is due an interval after progress resumed. */
int wk_runfail_on_ckpt_done(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    WkJobRt *rt = &r->rt[ev->target];
    WkFailJob *fj = &f->job[ev->target];
    WkTime now = wk_engine_now(e);
    if (ev->payload == 1) /* a restart's load is done */
        return load_done(r, f, ev->target, now, err);
    fj->in_ckpt = 0;
    if (r->fail.mode != WK_CKPT_MEMORY && f->ckpt_active)
        f->ckpt_active--;
    int rc = on_storage(r) ? wk_runfail_store_end(r, f, ev->target, 1, err) : 0;
    if (rc < 0)
        return rc;
    fj->ckpt_done = fj->snap_done;
    fj->ckpt_left = fj->snap_left;
    fj->ckpt_prog_s = fj->snap_prog_s;
    WkTime from = rt->seg_start > now ? rt->seg_start : now;
    return wk_engine_post_e(e, from + wk_time_from_s(fj->tau_s), WK_EV_CKPT, ev->target, 0, 0, fj->ckpt_tok, err);
}
