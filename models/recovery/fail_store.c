/* SPDX-License-Identifier: Apache-2.0 */
/* fail_store.c — checkpoint writes as flows to the storage nodes, and a
 * restart's checkpoint load as flows from them: a transfer
 * is the flows of wk_share_add_storage, sharing the fabric's links max-min
 * with every job's rings and with the other writes; it completes when its
 * bytes have moved at the rate of its slowest flow times its flow count
 * (each flow carries an equal part). Rates are re-read whenever a write
 * begins or ends. A load holds the job's progress until it is done and
 * the restart's warm-up has passed. Under `sharing: priority` the flows
 * are solved alone on what the rings leave (share.h, wk_share_store_solve),
 * and also re-timed when the rings move on their links; a job stalled on
 * its own transfer leaves its rings' share of the links to storage. */
#include <math.h>
#include <stdlib.h>

#include "models/recovery/fail_impl.h"

WkTime wk_runfail_store_done(WkTime start, double left, double rate)
{
    /* the duration in double, the sum in integers: past 2^53 ns (104 days)
     * a double cannot hold every ns, and start rounded down would post the
     * completion before now */
    double dur_ns = ceil(left / rate * 1e9);
    return dur_ns <= (double)(WK_RUN_MAX_TIME - start) ? start + (WkTime)dur_ns : WK_RUN_MAX_TIME + 1;
}

/* Count each write's bytes moved since its last re-timing at its old rate,
 * read the new rates, and re-post each completion (a blocking write also
 * moves the end of its stall). */
static int retime(WkRun *r, WkRunFail *f, WkTime now, WkError *err)
{
    int moved;
    int rc = wk_progress_store_solve(r, &moved, err);
    for (size_t i = 0; i < f->nxfer && rc == 0; i++) {
        WkStoreXfer *x = &f->xfer[i];
        WkTime t0 = x->t > x->from ? x->t : x->from;
        if (now > t0 && x->rate > 0)
            x->left -= x->rate * wk_time_to_s(now - t0);
        if (x->left < 0)
            x->left = 0;
        x->t = now;
        double rate = wk_share_xfer_rate(&r->share, x->tid);
        x->rate = rate > 1 ? rate : 1; /* cut off by failed links: it crawls, it does not divide by 0 */
        WkTime done = wk_runfail_store_done(x->from > now ? x->from : now, x->left, x->rate);
        rc = wk_engine_post_e(r->eng, done, WK_EV_CKPT_DONE, x->job, x->read, 0, f->job[x->job].ckpt_tok, err);
        if (rc == 0 && (x->read || r->fail.mode == WK_CKPT_REMOTE)) { /* no progress while writing or loading */
            r->rt[x->job].seg_start = done + x->tail;
            rc = wk_progress_refresh(r, x->job, 0, err);
        }
    }
    return rc;
}

/* A blocking transfer (a load, a `remote` write) stalls its job: under
 * `priority` its rings then leave their links to storage, and its dataset
 * read pauses (resumed only for a job that goes on: `resume`). */
static int idle(WkRun *r, const WkStoreXfer *x, int on, int resume, WkError *err)
{
    const WkJobRt *rt = &r->rt[x->job];
    if (!x->read && r->fail.mode != WK_CKPT_REMOTE)
        return 0;
    wk_share_idle(&r->share, x->job, rt->flows, rt->nflows - rt->na2a, on);
    return on || resume ? wk_reads_pause(r, x->job, on, err) : 0;
}

int wk_runfail_store_settle(WkRun *r, WkRunFail *f, WkError *err)
{
    if (!r->share.store || (!f->nxfer && !r->reading))
        return 0;
    int moved, rc = wk_progress_store_solve(r, &moved, err); /* dataset reads re-rated there */
    return rc < 0 || !moved || !f->nxfer ? rc : retime(r, f, wk_engine_now(r->eng), err);
}

int wk_runfail_store_begin(WkRun *r, WkRunFail *f, uint32_t job, double bytes, WkTime from, WkError *err)
{
    return wk_runfail_store_xfer(r, f, job, bytes, from, NULL, err);
}

int wk_runfail_store_xfer(WkRun *r, WkRunFail *f, uint32_t job, double bytes, WkTime from, const WkStoreXfer *load,
                          WkError *err)
{
    if (f->nxfer == f->capxfer) {
        size_t cap = f->capxfer ? 2 * f->capxfer : 8;
        WkStoreXfer *more = realloc(f->xfer, cap * sizeof *more);
        if (!more)
            return wk_error_nomem(err, "checkpoint writes");
        f->xfer = more;
        f->capxfer = cap;
    }
    WkTime now = wk_engine_now(r->eng);
    WkStoreXfer *x = &f->xfer[f->nxfer];
    *x = (WkStoreXfer){.job = job, .left = bytes, .from = from, .t = now};
    if (load) {
        x->read = 1;
        x->inc = load->inc;
        x->est_s = load->est_s;
        x->tail = load->tail;
    }
    int rc = wk_share_xfer_add(&r->share, &r->cluster, job, r->rt[job].gpus, r->wl.jobs[job].gpus, (int)x->read, 0,
                               &x->tid, err);
    if (rc < 0)
        return rc;
    f->nxfer++;
    if ((rc = idle(r, x, 1, 0, err)) < 0 || (rc = wk_progress_reshare(r, err)) < 0)
        return rc;
    return retime(r, f, now, err);
}

int wk_runfail_store_end(WkRun *r, WkRunFail *f, uint32_t job, int resolve, WkError *err)
{
    size_t i = 0;
    while (i < f->nxfer && f->xfer[i].job != job)
        i++;
    if (i == f->nxfer)
        return 0;
    wk_share_xfer_remove(&r->share, f->xfer[i].tid);
    WkStoreXfer x = f->xfer[i];
    f->xfer[i] = f->xfer[--f->nxfer];
    int rc = idle(r, &x, 0, resolve, err); /* a job stopping keeps its read paused until its stop ends it */
    if (!resolve || rc < 0)
        return rc;
    rc = wk_progress_reshare(r, err);
    return rc < 0 ? rc : retime(r, f, wk_engine_now(r->eng), err);
}
