/* SPDX-License-Identifier: Apache-2.0 */
/* elastic.c — a running model job changes its number of DP replicas (see
 * elastic.h). */
#include "models/state/elastic.h"

#include <math.h>
#include <stdlib.h>

double wk_run_ckpt_bytes(const WkRun *r, uint32_t job)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    return js->model ? r->fail.bytes_per_param * r->wl.models[js->model - 1].params : r->fail.plain_ckpt_bytes;
}

WkTime wk_run_restart_cost(const WkRun *r, uint32_t job, int spare, double *out)
{
    uint32_t gpus = r->wl.jobs[job].gpus, gpn = r->cluster.gpus_per_node ? r->cluster.gpus_per_node : 1;
    return wk_time_from_s(
        wk_fail_restart_steps(&r->fail, wk_run_ckpt_bytes(r, job), gpus, (gpus + gpn - 1) / gpn, spare, out));
}

double wk_elastic_iter_s(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    WkJobSpec *js = &r->wl.jobs[job];
    if (!js->model)
        return NAN;
    uint32_t was = js->gpus;
    js->gpus = n; /* evaluate the job as it would run on n GPUs */
    double t = wk_progress_iter_on(r, job, gpus, n);
    js->gpus = was;
    return t;
}

uint32_t wk_elastic_fit(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t max, uint32_t above)
{
    const WkJobSpec *js = &r->wl.jobs[job];
    const WkModelSpec *m = &r->wl.models[js->model - 1];
    uint32_t per = m->kind == WK_MODEL_LLM ? m->tp * m->pp * m->cp : 1, pick = 0;
    for (uint32_t g = max / per * per; g > above && !pick; g -= per)
        if (!isnan(wk_elastic_iter_s(r, job, gpus, g)))
            pick = g; /* the batch splits and memory fits */
    return pick;
}

int wk_elastic_restart(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    int rc = wk_run_request_requeue(r, job, err);
    if (rc < 0)
        return rc;
    WkJobRt *rt = &r->rt[job];
    rt->hung = 0;
    if (n > rt->gpus_req) { /* its GPU array holds its request: more (borrowed GPUs) need room */
        uint32_t *g = realloc(rt->gpus, ((size_t)n + 1) * sizeof *g);
        if (!g)
            return wk_error_nomem(err, "job placement");
        rt->gpus = g;
    }
    r->wl.jobs[job].gpus = n; /* the job continues with another number of replicas */
    return wk_sched_start(&r->si.ctx, job, gpus, n, err);
}
