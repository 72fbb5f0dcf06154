/* SPDX-License-Identifier: Apache-2.0 */
/* network_wan.c — the WAN links as shared resources. Two kinds of flow
 * cross a directed WAN link: a dataset transfer (a job's data sent from its
 * home site, one at a time per link in order of sending, network_plan.c)
 * and the gradient ring of a job spanning sites (one flow over each of its
 * k ring links, backlogged while the gang runs: the spanning job's WAN
 * all-reduce is exposed, so it sends whenever it communicates and two rings
 * on one link slow each other as in a fluid model). Rates are max-min fair
 * over all WAN links (progressive filling), as the fabric's are
 * (models/net/flow.h). A transfer's rate is fixed when it starts (its share
 * then); the gangs' shares are solved again at every span sync, and a
 * gang whose share changed has its parts' time to go scaled by the ratio of
 * its iteration times (the performance model's, at the shared bandwidth).
 * What each link carried is kept as intervals of constant traffic
 * (wk_net_wan_rows gives timeseries/wan). docs/models.md, "Jobs across
 * sites". */
#include "models/network/network_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One flow of the max-min problem: up to WK_NET_SPAN_MAX directed links. */
typedef struct WkNetWanFlow {
    uint32_t nl;
    uint32_t l[WK_NET_SPAN_MAX];
    double rate;
    int fixed;
} WanFlow;

static int scratch(WkNet *n, WkError *err)
{
    size_t nl = (size_t)n->n * n->n;
    if (!n->wan_left && (!(n->wan_left = malloc(nl * sizeof *n->wan_left)) ||
                         !(n->wan_users = malloc(nl * sizeof *n->wan_users))))
        return wk_error_nomem(err, "wan");
    size_t want = n->ngang + nl + 1;
    if (n->capwflow < want) {
        void *p = realloc(n->wflow, want * sizeof(WanFlow));
        if (!p)
            return wk_error_nomem(err, "wan");
        n->wflow = p;
        n->capwflow = want;
    }
    return 0;
}

/* Max-min fair rates of f[0..nf) by progressive filling: the link whose
 * equal share of its capacity left is smallest fixes its flows at that
 * share, until every flow is fixed. */
static void maxmin(WkNet *n, WanFlow *f, size_t nf)
{
    size_t nl = (size_t)n->n * n->n;
    for (size_t l = 0; l < nl; l++) {
        n->wan_left[l] = n->link[l].bytes_per_s;
        n->wan_users[l] = 0;
    }
    for (size_t i = 0; i < nf; i++) {
        f[i].fixed = 0;
        f[i].rate = 0;
        for (uint32_t q = 0; q < f[i].nl; q++)
            n->wan_users[f[i].l[q]]++;
    }
    for (size_t left = nf; left > 0;) {
        double best = INFINITY;
        for (size_t i = 0; i < nf; i++)
            for (uint32_t q = 0; q < f[i].nl && !f[i].fixed; q++) {
                uint32_t l = f[i].l[q];
                double s = n->wan_left[l] / n->wan_users[l];
                best = s < best ? s : best;
            }
        if (!isfinite(best))
            best = 0;
        size_t fixed = 0;
        for (size_t i = 0; i < nf; i++) {
            if (f[i].fixed)
                continue;
            int bottleneck = 0;
            for (uint32_t q = 0; q < f[i].nl; q++) {
                uint32_t l = f[i].l[q];
                bottleneck |= n->wan_left[l] / n->wan_users[l] <= best * (1 + 1e-12);
            }
            if (!bottleneck)
                continue;
            f[i].fixed = 1;
            f[i].rate = best > 0 ? best : 0;
            fixed++;
        }
        for (size_t i = 0; i < nf; i++) /* take the newly fixed flows off their links */
            if (f[i].fixed == 1) {
                f[i].fixed = 2;
                for (uint32_t q = 0; q < f[i].nl; q++) {
                    uint32_t l = f[i].l[q];
                    n->wan_left[l] = n->wan_left[l] > f[i].rate ? n->wan_left[l] - f[i].rate : 0;
                    n->wan_users[l]--;
                }
            }
        left -= fixed ? fixed : left; /* fixed is never 0 while flows are left; guard a loop anyway */
    }
}

/* The flows crossing the WAN at time t: every running gang's ring, and the
 * transfer in flight on each link (except `skip`, a link whose transfer in
 * flight will be over when the caller's starts). */
static size_t flows_now(WkNet *n, WkTime t, int64_t skip, size_t *ngang_flows)
{
    WanFlow *f = n->wflow;
    size_t nf = 0;
    for (size_t i = 0; i < n->ngang; i++) {
        const WkNetGang *g = &n->gang[i];
        if (!g->live || g->done)
            continue;
        f[nf].nl = g->k;
        for (uint32_t q = 0; q < g->k; q++)
            f[nf].l[q] = g->site[q] * n->n + g->site[(q + 1) % g->k];
        nf++;
    }
    *ngang_flows = nf;
    size_t nl = (size_t)n->n * n->n;
    for (size_t l = 0; l < nl; l++)
        if ((int64_t)l != skip && n->link_free[l] > t && n->link_from[l] <= t)
            f[nf++] = (WanFlow){.nl = 1, .l = {(uint32_t)l}};
    return nf;
}

int wk_net_wan_segment(WkNet *n, uint32_t link, WkTime t0, WkTime t1, double bytes_per_s, WkError *err)
{
    if (t1 <= t0 || !(bytes_per_s > 0))
        return 0;
    if (n->nwseg == n->capwseg) {
        size_t cap = n->capwseg ? 2 * n->capwseg : 64;
        WkNetWanSeg *p = realloc(n->wseg, cap * sizeof *p);
        if (!p)
            return wk_error_nomem(err, "wan");
        n->wseg = p;
        n->capwseg = cap;
    }
    n->wseg[n->nwseg++] = (WkNetWanSeg){.link = link, .t0 = t0, .t1 = t1, .bytes_per_s = bytes_per_s};
    return 0;
}

double wk_net_wan_rate(WkNet *n, uint32_t from, uint32_t to, WkTime t)
{
    const WkNetLink *lk = wk_net_link(n, from, to);
    if (!n->gangs_open || scratch(n, NULL) < 0)
        return lk->bytes_per_s;
    uint32_t l = from * n->n + to;
    size_t ng, nf = flows_now(n, t, l, &ng);
    n->wflow[nf++] = (WanFlow){.nl = 1, .l = {l}};
    maxmin(n, n->wflow, nf);
    double r = n->wflow[nf - 1].rate;
    return r > 0 ? r : lk->bytes_per_s * 1e-9; /* never 0: a link always moves something */
}

double wk_net_wan_ring_rate(WkNet *n, const uint32_t *site, uint32_t k, WkTime t)
{
    double full = INFINITY;
    for (uint32_t q = 0; q < k; q++) {
        double b = wk_net_link(n, site[q], site[(q + 1) % k])->bytes_per_s;
        full = b < full ? b : full;
    }
    if (!n->gangs_open || scratch(n, NULL) < 0)
        return full; /* nothing else crosses the WAN for long: the slowest link's bandwidth */
    size_t ng, nf = flows_now(n, t, -1, &ng);
    WanFlow *f = &n->wflow[nf++];
    f->nl = k;
    for (uint32_t q = 0; q < k; q++)
        f->l[q] = site[q] * n->n + site[(q + 1) % k];
    maxmin(n, n->wflow, nf);
    double r = n->wflow[nf - 1].rate;
    return r > 0 ? r : full * 1e-9;
}

/* Close gang g's traffic interval at t (its ring links carried its mean
 * gradient rate since seg_t0). */
static int close_seg(WkNet *n, WkNetGang *g, WkTime t, WkError *err)
{
    int rc = 0;
    if (!g->in_seg)
        return 0;
    for (uint32_t q = 0; q < g->k && rc == 0; q++)
        rc = wk_net_wan_segment(n, g->site[q] * n->n + g->site[(q + 1) % g->k], g->seg_t0, t, g->seg_rate, err);
    g->in_seg = 0;
    return rc;
}

int wk_net_wan_update(WkNet *n, WkTime t, WkError *err)
{
    int rc = scratch(n, err);
    if (rc < 0)
        return rc;
    size_t ng, nf = flows_now(n, t, -1, &ng);
    maxmin(n, n->wflow, nf);
    size_t fi = 0;
    for (size_t i = 0; i < n->ngang && rc == 0; i++) {
        WkNetGang *g = &n->gang[i];
        if (!g->live || g->done) {
            rc = close_seg(n, g, g->done && g->end >= 0 && g->end < t ? g->end : t, err);
            continue;
        }
        double share = n->wflow[fi++].rate, lat = 0;
        for (uint32_t q = 0; q < g->k; q++) {
            const WkNetLink *l = wk_net_link(n, g->site[q], g->site[(q + 1) % g->k]);
            lat = l->latency_s > lat ? l->latency_s : lat;
        }
        if (share != g->share) {
            const WkModelSpec *m = g->model;
            WkPerfWan wan = {.sites = g->k, .bw_bits_per_s = (share > 0 ? share : 1e-3) * 8, .lat_s = lat};
            double iter = 0;
            for (uint32_t q = 0; q < g->k; q++) {
                double it = 0;
                if (wk_run_site_part_iter_s(n->s[g->site[q]].run, m, g->part, &wan, &it) == 0)
                    iter = it > iter ? it : iter;
            }
            if (iter > 0 && isfinite(iter) && fabs(iter - g->iter_s) > 1e-12 * g->iter_s) {
                /* the parts' time to go, scaled to the new iteration time */
                WkTime left = 0;
                for (uint32_t q = 0; q < g->k && rc == 0; q++) { /* settled to t first */
                    WkRun *sr = n->s[g->site[q]].run;
                    rc = wk_run_site_gate(sr, g->job, 0, -1, t, err);
                    WkTime l = wk_run_site_job(sr, g->job).left_ns;
                    left = l > left ? l : left;
                }
                double scaled = (double)left * (iter / g->iter_s);
                WkTime nl = scaled >= (double)WK_RUN_MAX_TIME ? WK_RUN_MAX_TIME : (WkTime)ceil(scaled);
                for (uint32_t q = 0; q < g->k && rc == 0; q++)
                    rc = wk_run_site_gate(n->s[g->site[q]].run, g->job, 0, nl, t, err);
                g->iter_s = iter;
            }
            g->share = share;
            n->wan_rescales++;
        }
        double rate = g->iter_s > 0 ? g->bytes_iter / g->iter_s : 0;
        if (rc == 0 && (!g->in_seg || rate != g->seg_rate)) {
            rc = close_seg(n, g, t, err);
            g->in_seg = 1;
            g->seg_t0 = t;
            g->seg_rate = rate;
        }
    }
    return rc;
}

int wk_net_wan_finish(WkNet *n, WkTime t_end, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; i < n->ngang && rc == 0; i++) {
        WkNetGang *g = &n->gang[i];
        rc = close_seg(n, g, g->done && g->end >= 0 && g->end < t_end ? g->end : t_end, err);
    }
    return rc;
}

void wk_net_wan_free(WkNet *n)
{
    free(n->wan_left);
    free(n->wan_users);
    free(n->wflow);
    free(n->wseg);
    free(n->link_from);
}

/* ---- timeseries/wan ---- */

static int cmp_seg_t0(const void *a, const void *b)
{
    const WkNetWanSeg *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return (x->link > y->link) - (x->link < y->link);
}

int wk_net_wan_rows(WkNet *n, WkTime t_end, WkNetWanRow **out, size_t *nrows, WkError *err)
{
    *out = NULL;
    *nrows = 0;
    if (!n->nwseg)
        return 0;
    qsort(n->wseg, n->nwseg, sizeof *n->wseg, cmp_seg_t0);
    WkTime first = n->wseg[0].t0, last = 0;
    for (size_t i = 0; i < n->nwseg; i++) {
        if (n->wseg[i].t1 > t_end)
            n->wseg[i].t1 = t_end;
        last = n->wseg[i].t1 > last ? n->wseg[i].t1 : last;
    }
    /* bins of the sample interval, widened to at most WK_NET_WAN_BINS */
    WkTime w = n->sample_interval > 0 ? n->sample_interval : WK_NS_PER_MIN;
    WkTime b0 = first / w;
    if ((last - b0 * w) / w + 1 > WK_NET_WAN_BINS)
        w = (last - b0 * w) / WK_NET_WAN_BINS + 1;
    b0 = first / w;
    size_t nbins = (size_t)((last - b0 * w) / w + 2); /* and one after: its rows of 0 end the series */
    size_t nl = (size_t)n->n * n->n;
    double *bytes = calloc(nl, sizeof *bytes);
    uint8_t *any = calloc(nl, 1);
    size_t cap = 64, k = 0, next = 0;
    WkNetWanRow *rows = malloc(cap * sizeof *rows);
    size_t *open = malloc(n->nwseg * sizeof *open), nopen = 0;
    int rc = 0;
    if (!bytes || !any || !rows || !open)
        rc = wk_error_nomem(err, "timeseries/wan");
    for (size_t b = 0; b < nbins && rc == 0; b++) {
        WkTime lo = (b0 + (WkTime)b) * w, hi = lo + w;
        while (next < n->nwseg && n->wseg[next].t0 < hi)
            open[nopen++] = next++;
        for (size_t i = 0; i < nopen;) {
            const WkNetWanSeg *s = &n->wseg[open[i]];
            WkTime a = s->t0 > lo ? s->t0 : lo, z = s->t1 < hi ? s->t1 : hi;
            if (z > a) {
                bytes[s->link] += s->bytes_per_s * wk_time_to_s(z - a);
                any[s->link] = 1;
            }
            if (s->t1 <= hi)
                open[i] = open[--nopen];
            else
                i++;
        }
        for (size_t l = 0; l < nl && rc == 0; l++) {
            if (!any[l])
                continue;
            if (k == cap) {
                void *p = realloc(rows, 2 * cap * sizeof *rows);
                if (!p) {
                    rc = wk_error_nomem(err, "timeseries/wan");
                    break;
                }
                rows = p;
                cap *= 2;
            }
            /* a link that carried nothing in this bin, after one that did,
             * gets a row of 0: the series steps down instead of holding */
            rows[k++] = (WkNetWanRow){.time_ns = lo, .from = (int32_t)(l / n->n), .to = (int32_t)(l % n->n),
                                      .bytes_per_s = bytes[l] / wk_time_to_s(w),
                                      .capacity = n->link[l].bytes_per_s};
            any[l] = bytes[l] > 0;
            bytes[l] = 0;
        }
    }
    free(bytes);
    free(any);
    free(open);
    if (rc < 0) {
        free(rows);
        return rc;
    }
    *out = rows;
    *nrows = k;
    return 0;
}
