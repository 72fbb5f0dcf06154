/* SPDX-License-Identifier: Apache-2.0 */
/* account.c — GPU-time and energy integrals, the cluster time series and
 * the allocation record of a run (see account.h). */
#include "models/run/account.h"

#include <stdlib.h>
#include <string.h>

#include "models/gpu/power.h"

void wk_account_to(WkAccount *a, const WkPool *p, WkTime now)
{
    WkTime dt = now - a->last_t;
    if (dt <= 0)
        return;
    uint32_t down = p->ndown - p->down_held;
    a->alloc_ns += (wk_u128)p->alloc * (wk_u128)dt;
    a->idle_ns += (wk_u128)(p->c->gpus - p->alloc - down) * (wk_u128)dt;
    a->down_ns += (wk_u128)down * (wk_u128)dt;
    a->energy_j += (a->gpu_power_w + a->net_power_w) * p->c->power.pue * wk_time_to_s(dt);
    a->last_t = now;
}

double wk_account_power_w(const WkAccount *a, const WkCluster *c)
{
    return (a->gpu_power_w + a->net_power_w) * c->power.pue;
}

int wk_account_sampled_at(const WkAccount *a, WkTime now)
{
    return a->nsamples && a->samples[a->nsamples - 1].time_ns == now;
}

int wk_account_sample(WkAccount *a, const WkCluster *c, WkTime now, uint32_t allocated, uint32_t running,
                      size_t queued)
{
    if (wk_account_sampled_at(a, now))
        a->nsamples--; /* a later state at the same instant replaces it */
    if (a->nsamples == a->capsamples) {
        size_t nc = a->capsamples ? a->capsamples * 2 : 256;
        WkSampleRow *n = realloc(a->samples, nc * sizeof *n);
        if (!n)
            return WK_E_NOMEM;
        a->samples = n;
        a->capsamples = nc;
    }
    a->samples[a->nsamples++] = (WkSampleRow){
        .time_ns = now,
        .allocated_gpus = allocated,
        .running_jobs = running,
        .queued_jobs = (uint32_t)queued,
        .power_w = wk_account_power_w(a, c),
    };
    return 0;
}

int wk_account_segment(WkAccount *a, WkTime from, WkTime to, const uint32_t *gpus, uint32_t n, WkError *err)
{
    if (to <= from)
        return 0;
    if (a->nsegs == a->capsegs) {
        size_t nc = a->capsegs ? a->capsegs * 2 : 256;
        WkAllocSeg *ns = realloc(a->segs, nc * sizeof *ns);
        if (!ns)
            return wk_error_nomem(err, "allocation record");
        a->segs = ns;
        a->capsegs = nc;
    }
    uint32_t *g = malloc(((size_t)n + 1) * sizeof *g);
    if (!g)
        return wk_error_nomem(err, "allocation record");
    memcpy(g, gpus, (size_t)n * sizeof *g);
    a->segs[a->nsegs++] = (WkAllocSeg){.from = from, .to = to, .gpus = g, .n = n};
    return 0;
}

void wk_account_fini(WkAccount *a)
{
    for (size_t i = 0; i < a->nsegs; i++)
        free(a->segs[i].gpus);
    free(a->segs);
    free(a->samples);
    memset(a, 0, sizeof *a);
}
