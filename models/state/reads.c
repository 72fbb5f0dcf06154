/* SPDX-License-Identifier: Apache-2.0 */
/* reads.c — a model job's training-data reads (docs/models.md, "Dataset
 * reads"): with cluster.storage.dataset_reads, a transfer from the storage
 * nodes to the job's NICs for as long as it runs, capped at its demand R,
 * the bytes per sample times the samples per second of its iteration on
 * its placement with the fabric to itself. The input pipeline prefetches,
 * so the read overlaps the computation: an allocation a < R stretches the
 * iteration to max(T, bytes per iteration / a), T its iteration without
 * the read; a >= R costs nothing. A job stalled on a blocking transfer of
 * its own consumes no input: its read is paused meanwhile. */
#include "models/state/state.h"

#include <math.h>

/* Job's read transfer of `bytes` per iteration at demand `need` B/s, on its
 * current GPUs; counted in r->reading. Returns 0 or a negative WK_E_*. */
static int add_read(WkRun *r, uint32_t job, double bytes, double need, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    int rc = wk_share_xfer_add(&r->share, &r->cluster, job, rt->gpus, r->wl.jobs[job].gpus, 1, need, &rt->read_tid,
                               err);
    if (rc < 0)
        return rc;
    rt->read_bytes = bytes;
    rt->read_need = need;
    rt->read_paused = 0;
    r->reading++;
    return 0;
}

int wk_reads_start(WkRun *r, uint32_t job, double samples_per_iter, double iter_s, WkError *err)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    wk_reads_stop(r, job);
    if (!r->cluster.storage.nodes || !r->cluster.storage.reads || !r->share.net || !js->model)
        return 0;
    double b = wk_model_read_bytes(&r->wl.models[js->model - 1]);
    if (!(b > 0) || !(samples_per_iter > 0) || !(iter_s > 0) || !isfinite(iter_s))
        return 0;
    double bytes = b * samples_per_iter;
    return add_read(r, job, bytes, bytes / iter_s, err);
}

void wk_reads_stop(WkRun *r, uint32_t job)
{
    WkJobRt *rt = &r->rt[job];
    if (!(rt->read_bytes > 0))
        return;
    if (!rt->read_paused)
        wk_share_xfer_remove(&r->share, rt->read_tid);
    rt->read_paused = 0;
    rt->read_bytes = 0;
    rt->read_need = 0;
    r->reading--;
}

int wk_reads_again(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    if (!(rt->read_bytes > 0) || rt->read_paused) /* paused: it comes back on the paths of its resume */
        return 0;
    double bytes = rt->read_bytes, need = rt->read_need;
    wk_reads_stop(r, job);
    return add_read(r, job, bytes, need, err);
}

int wk_reads_pause(WkRun *r, uint32_t job, int on, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    if (!(rt->read_bytes > 0) || !!rt->read_paused == !!on)
        return 0;
    if (on) {
        wk_share_xfer_remove(&r->share, rt->read_tid);
        rt->read_paused = 1;
        return 0;
    }
    double bytes = rt->read_bytes, need = rt->read_need;
    rt->read_bytes = 0; /* not in the share: nothing for add_read to replace */
    rt->read_paused = 0;
    r->reading--;
    return add_read(r, job, bytes, need, err);
}

double wk_reads_iter(const WkRun *r, uint32_t job, double iter_s)
{
    const WkJobRt *rt = &r->rt[job];
    if (!(rt->read_bytes > 0) || rt->read_paused) /* paused: its job does not iterate */
        return iter_s;
    double a = wk_share_xfer_rate(&r->share, rt->read_tid);
    if (isnan(a)) /* not rated yet (`priority`: the next storage solve, at this instant) */
        return iter_s;
    a = a > 1 ? a : 1; /* cut off by failed links: it crawls, it does not divide by 0 */
    double need = rt->read_bytes / a;
    return need > iter_s ? need : iter_s;
}

double wk_reads_rate(const WkRun *r, uint32_t job)
{
    const WkJobRt *rt = &r->rt[job];
    return rt->read_bytes > 0 && !rt->read_paused ? wk_share_xfer_rate(&r->share, rt->read_tid) : 0;
}
