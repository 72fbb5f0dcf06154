/* SPDX-License-Identifier: Apache-2.0 */
/* fail_grow.c — elastic jobs grow back: when capacity returns (a repair or
 * a job's end), an elastic job running on fewer GPUs than it asked for
 * restarts on its GPUs plus free ones (whole free nodes first) with the
 * largest DP degree up to its request, paying the restart cost a shrink pays
 * (the restart steps: drain, relaunch, init, load, warm-up). Only jobs on the shrunk list are looked at.
 * Shrinking is in fail_recover.c; the fit, cost and restart are
 * models/state/elastic.h. */
#include <stdlib.h>
#include <string.h>

#include "models/recovery/fail_impl.h"

/* Append free GPUs to list[k..max): the GPUs of wholly free nodes first,
 * then those of partly free ones, each node in GPU order. Returns the new
 * length. */
static uint32_t add_free(const WkRun *r, uint32_t *list, uint32_t k, uint32_t max)
{
    const WkCluster *c = &r->cluster;
    for (int whole = 1; whole >= 0 && k < max; whole--)
        for (uint32_t nd = 0; nd < c->nodes && k < max; nd++) {
            uint32_t lo = c->node_first_gpu[nd], hi = c->node_first_gpu[nd + 1], nfree = r->pool.node_free[nd];
            if (nfree == 0 || (nfree == hi - lo) != whole)
                continue;
            for (uint32_t g = lo; g < hi && k < max; g++)
                if ((r->pool.freebits[g >> 6] >> (g & 63)) & 1)
                    list[k++] = g;
        }
    return k;
}

/* Grow one job if it is a running elastic job below its request and free
 * GPUs allow more whole replicas. 0 when restarted, 1 when not. */
static int try_grow(WkRun *r, uint32_t job, WkError *err)
{
    WkJobRt *rt = &r->rt[job];
    const WkJobSpec *js = &r->wl.jobs[job];
    if (rt->state != WK_JOB_RUNNING || rt->hung || rt->waiting || !js->model || js->gpus >= rt->gpus_req ||
        !r->wl.models[js->model - 1].elastic)
        return 1;
    uint32_t *list = malloc((size_t)rt->gpus_req * sizeof *list);
    if (!list)
        return wk_error_nomem(err, "job placement");
    memcpy(list, rt->gpus, (size_t)js->gpus * sizeof *list); /* its GPUs keep their ranks */
    uint32_t k = add_free(r, list, js->gpus, rt->gpus_req);
    uint32_t pick = wk_elastic_fit(r, job, list, k, js->gpus);
    int rc = 1;
    if (pick) {
        double steps[WK_RSTEP_N];
        rt->pending_cost = wk_run_restart_cost(r, job, 0, steps);
        rc = wk_elastic_restart(r, job, list, pick, err);
    }
    free(list);
    return rc;
}


int wk_runfail_grow_elastic(WkRun *r, WkRunFail *f, WkError *err)
{
    /* in list order (the order they shrank); a job leaves the list once it
     * is back at its request or no longer running */
    for (size_t i = 0; i < f->nshrunk;) {
        uint32_t job = f->shrunk[i];
        int rc = try_grow(r, job, err);
        if (rc < 0)
            return rc;
        const WkJobRt *rt = &r->rt[job];
        if (rt->state != WK_JOB_RUNNING || r->wl.jobs[job].gpus >= rt->gpus_req) {
            memmove(f->shrunk + i, f->shrunk + i + 1, (f->nshrunk - i - 1) * sizeof *f->shrunk);
            f->nshrunk--;
            f->job[job].on_shrunk = 0;
        } else {
            i++;
        }
    }
    return 0;
}
