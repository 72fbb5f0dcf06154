/* SPDX-License-Identifier: Apache-2.0 */
/* account.c — GPU-time and energy integrals, the cluster time series and
 * the allocation record of a run (see account.h). */
#include "models/state/account.h"

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
    double w = (a->gpu_power_w + a->net_power_w) * p->c->power.pue;
    a->energy_j += w * wk_time_to_s(dt);
    if (a->fac && a->fac->ntariff) /* past the series' end: checked by the run at its end */
        (void)wk_facility_charge(a->fac, a->last_t, now, w, &a->cost, &a->co2_kg);
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

int wk_account_segment(WkAccount *a, uint32_t job, WkTime from, WkTime to, const uint32_t *gpus, uint32_t n,
                       WkError *err)
{
    return wk_account_segment_kind(a, WK_SEG_JOB, job, from, to, gpus, n, err);
}

int wk_account_segment_kind(WkAccount *a, int kind, uint32_t job, WkTime from, WkTime to, const uint32_t *gpus,
                            uint32_t n, WkError *err)
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
    a->segs[a->nsegs++] = (WkAllocSeg){.from = from, .to = to, .gpus = g, .n = n,
                                       .job = kind == WK_SEG_SHARED ? UINT32_MAX : job, .kind = (uint8_t)kind};
    return 0;
}

/* Add `gpus` GPUs held over [from, to) to one pod's bins (acc: GPU-ns per
 * bin; diff: whole-bin counts, a difference array over bins). */
static void pod_add(double *acc, double *diff, size_t nb, WkTime bin, WkTime from, WkTime to, double gpus)
{
    size_t b0 = (size_t)(from / bin), b1 = (size_t)((to - 1) / bin);
    if (b1 >= nb)
        b1 = nb - 1;
    if (b0 == b1) {
        acc[b0] += gpus * (double)(to - from);
        return;
    }
    acc[b0] += gpus * (double)((WkTime)(b0 + 1) * bin - from);
    acc[b1] += gpus * (double)(to - (WkTime)b1 * bin);
    diff[b0 + 1] += gpus; /* bins b0+1 .. b1-1 are covered whole */
    diff[b1] -= gpus;
}

int wk_account_pod_series(const WkAccount *a, const WkCluster *c, WkTime end, WkTime interval, WkPodRow **out,
                          size_t *n, WkError *err)
{
    *out = NULL;
    *n = 0;
    uint32_t P = c->pods;
    if (end <= 0 || P == 0)
        return 0;
    WkTime bin = interval > 0 ? interval : end;
    size_t maxb = WK_RUN_POD_ROWS / P < WK_RUN_POD_BINS ? WK_RUN_POD_ROWS / P : WK_RUN_POD_BINS;
    if (maxb == 0)
        maxb = 1;
    if ((end + bin - 1) / bin > (WkTime)maxb)
        bin = (end + (WkTime)maxb - 1) / (WkTime)maxb;
    size_t nb = (size_t)((end + bin - 1) / bin);
    double *acc = calloc((size_t)P * nb, sizeof *acc), *diff = calloc((size_t)P * (nb + 1), sizeof *diff);
    uint32_t *pod_gpus = calloc(P, sizeof *pod_gpus), *cnt = calloc(P, sizeof *cnt);
    WkPodRow *rows = malloc((size_t)P * nb * sizeof *rows);
    if (!acc || !diff || !pod_gpus || !cnt || !rows) {
        free(acc), free(diff), free(pod_gpus), free(cnt), free(rows);
        return wk_error_nomem(err, "timeseries/pods");
    }
    for (uint32_t g = 0; g < c->gpus; g++)
        pod_gpus[wk_cluster_pod_of(c, g)]++;
    for (size_t i = 0; i < a->nsegs; i++) {
        const WkAllocSeg *sg = &a->segs[i];
        WkTime from = sg->from < 0 ? 0 : sg->from, to = sg->to > end ? end : sg->to;
        if (to <= from || !wk_seg_allocated(sg))
            continue;
        for (uint32_t k = 0; k < sg->n; k++)
            cnt[wk_cluster_pod_of(c, sg->gpus[k])]++;
        for (uint32_t k = 0; k < sg->n; k++) {
            uint32_t p = wk_cluster_pod_of(c, sg->gpus[k]);
            if (cnt[p]) {
                pod_add(acc + (size_t)p * nb, diff + (size_t)p * (nb + 1), nb, bin, from, to, cnt[p]);
                cnt[p] = 0;
            }
        }
    }
    for (uint32_t p = 0; p < P; p++) {
        double whole = 0;
        for (size_t b = 0; b < nb; b++) {
            whole += diff[(size_t)p * (nb + 1) + b];
            WkTime t0 = (WkTime)b * bin, t1 = t0 + bin < end ? t0 + bin : end;
            double ns = acc[(size_t)p * nb + b] + whole * (double)bin;
            rows[b * P + p] = (WkPodRow){.time_ns = t0, .span_ns = t1 - t0, .allocated = ns / (double)(t1 - t0),
                                         .pod = p, .gpus = pod_gpus[p]};
        }
    }
    free(acc), free(diff), free(pod_gpus), free(cnt);
    *out = rows;
    *n = (size_t)P * nb;
    return 0;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Segments by job, then start (the record is in order of their ends). */
static int cmp_seg(const void *x, const void *y)
{
    const WkAllocSeg *a = *(const WkAllocSeg *const *)x, *b = *(const WkAllocSeg *const *)y;
    if (a->job != b->job)
        return (a->job > b->job) - (a->job < b->job);
    return (a->from > b->from) - (a->from < b->from);
}

/* Append the rows of one segment (its GPUs sorted in g[0..n)) to rows. */
static size_t place_rows(const WkCluster *c, const WkAllocSeg *sg, uint32_t segment, uint32_t *g, WkPlaceRow *rows)
{
    size_t nr = 0;
    memcpy(g, sg->gpus, (size_t)sg->n * sizeof *g);
    qsort(g, sg->n, sizeof *g, cmp_u32);
    for (uint32_t k = 0; k < sg->n;) {
        uint32_t node = c->gpu_node[g[k]], lo = g[k] - c->node_first_gpu[node], len = 1;
        while (k + len < sg->n && g[k + len] == g[k] + len && c->gpu_node[g[k + len]] == node)
            len++;
        k += len;
        WkPlaceRow *last = nr ? &rows[nr - 1] : NULL;
        if (last && last->node + last->nodes == node && last->gpu == lo && last->gpus == len) {
            last->nodes++;
            continue;
        }
        rows[nr++] = (WkPlaceRow){.start_ns = sg->from, .end_ns = sg->to, .job = sg->job, .segment = segment,
                                  .node = node, .nodes = 1, .gpu = lo, .gpus = len};
    }
    return nr;
}

int wk_account_placement(const WkAccount *a, const WkCluster *c, WkPlaceRow **out, size_t *n, WkError *err)
{
    *out = NULL;
    *n = 0;
    if (a->nsegs == 0)
        return 0;
    size_t total = 0;
    uint32_t maxn = 0;
    for (size_t i = 0; i < a->nsegs; i++) {
        total += a->segs[i].n;
        maxn = a->segs[i].n > maxn ? a->segs[i].n : maxn;
    }
    const WkAllocSeg **order = malloc(a->nsegs * sizeof *order);
    uint32_t *g = malloc(((size_t)maxn + 1) * sizeof *g);
    WkPlaceRow *rows = malloc((total + 1) * sizeof *rows); /* a row holds at least one GPU */
    if (!order || !g || !rows) {
        free(order), free(g), free(rows);
        return wk_error_nomem(err, "placement");
    }
    size_t ns = 0;
    for (size_t i = 0; i < a->nsegs; i++)
        if (a->segs[i].kind != WK_SEG_SHARED) /* a shared GPU's tenants place it */
            order[ns++] = &a->segs[i];
    qsort(order, ns, sizeof *order, cmp_seg);
    size_t nr = 0;
    uint32_t segment = 0;
    for (size_t i = 0; i < ns; i++) {
        segment = i && order[i - 1]->job == order[i]->job ? segment + 1 : 0;
        nr += place_rows(c, order[i], segment, g, rows + nr);
    }
    free(order);
    free(g);
    WkPlaceRow *shrunk = realloc(rows, (nr ? nr : 1) * sizeof *rows);
    *out = shrunk ? shrunk : rows;
    *n = nr;
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
