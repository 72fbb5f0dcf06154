/* SPDX-License-Identifier: Apache-2.0 */
/* network_plan.c — what the network knows of each site's queue and of the
 * WAN: the backlog and the plan of a site's queue (FIFO reservations over
 * its jobs' nominal estimates), and the datasets' transfers on their links.
 * The broker's host (network_exec.c) and jobs across sites (network_span.c)
 * ask it; it decides nothing. */
#include "models/network/network_impl.h"

#include <math.h>
#include <stdlib.h>

/* Nominal time left of a job sent to a site: all of it until it starts,
 * then its estimate less the time since its first start. */
static double left_s(WkRun *r, uint32_t job, WkTime now)
{
    double est = wk_run_job_estimate_s(r, job);
    WkTime start = wk_run_site_job(r, job).start;
    if (start < 0)
        return est;
    double left = est - wk_time_to_s(now - start);
    return left > 0 ? left : 0;
}

/* ---- a binary min-heap of expected ends ---- */

static void heap_push(WkNetEnd *h, size_t *n, WkNetEnd e)
{
    size_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].t > e.t) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static WkNetEnd heap_pop(WkNetEnd *h, size_t *n)
{
    WkNetEnd top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].t < h[c].t)
            c++;
        if (h[c].t >= last.t)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

/* Drop the finished jobs from the site's list, total the GPU-seconds left
 * of the others, and plan its queue: running jobs end at their nominal
 * estimates; the waiting ones (queued, or still crossing the WAN) start in
 * the order they were sent, each as soon as enough GPUs are free (FIFO
 * reservations, no backfill). Kept until the next instant or assignment. */
static int refresh(WkNet *n, uint32_t s)
{
    NetSite *st = &n->s[s];
    if (st->refreshed == n->now)
        return 0;
    WkRun *r = st->run;
    if (st->capplan < st->nout + 1) {
        size_t cap = st->nout + 64;
        WkNetEnd *p = realloc(st->plan, cap * sizeof *p);
        if (!p)
            return -1;
        st->plan = p;
        st->capplan = cap;
    }
    double sum = 0;
    size_t k = 0, nh = 0;
    for (size_t i = 0; i < st->nout; i++) {
        uint32_t j = st->out[i];
        WkRunSiteJob v = wk_run_site_job(r, j);
        if (v.state == WK_JOB_COMPLETED || v.state == WK_JOB_REJECTED)
            continue;
        st->out[k++] = j;
        double left = left_s(r, j, n->now);
        sum += (double)v.gpus * left;
        if (v.state == WK_JOB_RUNNING)
            heap_push(st->plan, &nh, (WkNetEnd){n->now + wk_time_from_s(left), v.placed ? v.gpus : 0});
    }
    st->nout = k;
    st->queued_gpu_s = sum;
    WkTime t = n->now;
    int64_t avail = wk_run_free_gpus(r);
    for (size_t i = 0; i < st->nout; i++) {
        uint32_t j = st->out[i];
        WkRunSiteJob v = wk_run_site_job(r, j);
        if (v.state == WK_JOB_RUNNING)
            continue;
        int64_t need = v.gpus;
        while (avail < need && nh > 0) {
            WkNetEnd e = heap_pop(st->plan, &nh);
            if (e.t > t)
                t = e.t;
            avail += e.gpus;
        }
        if (avail < need) /* more than the usable GPUs: it waits for repairs; plan without it */
            continue;
        avail -= need;
        double est = wk_run_job_estimate_s(r, j);
        heap_push(st->plan, &nh, (WkNetEnd){t + wk_time_from_s(isfinite(est) ? est : 0), (uint32_t)need});
    }
    /* the heap, emptied in order, is the plan by time */
    size_t m = nh;
    WkNetEnd *sorted = st->plan + 0;
    for (size_t i = 0; i < m; i++) {
        WkNetEnd e = heap_pop(st->plan, &nh);
        sorted[m - 1 - i] = e; /* heap_pop frees the slot at the end */
    }
    for (size_t i = 0; i < m / 2; i++) { /* ascending */
        WkNetEnd x = sorted[i];
        sorted[i] = sorted[m - 1 - i];
        sorted[m - 1 - i] = x;
    }
    st->nplan = m;
    st->plan_t = t;
    st->plan_free = avail;
    st->refreshed = n->now;
    return 0;
}

double wk_net_plan_backlog_s(WkNet *n, uint32_t s)
{
    if (refresh(n, s) < 0)
        return INFINITY;
    return n->s[s].queued_gpu_s / (double)n->s[s].gpus;
}

double wk_net_plan_wait(WkNet *n, uint32_t s, int64_t need)
{
    NetSite *st = &n->s[s];
    if (refresh(n, s) < 0)
        return wk_net_plan_backlog_s(n, s);
    int64_t avail = st->plan_free;
    WkTime t = st->plan_t;
    for (size_t i = 0; i < st->nplan && avail < need; i++) {
        avail += st->plan[i].gpus;
        if (st->plan[i].t > t)
            t = st->plan[i].t;
    }
    if (avail < need)
        return INFINITY;
    return wk_time_to_s(t - n->now);
}

double wk_net_transfer_s(const WkNet *n, uint32_t home, uint32_t s, double bytes)
{
    if (home == s || bytes <= 0)
        return 0;
    const WkNetLink *l = wk_net_link(n, home, s);
    if (!l->set)
        return INFINITY;
    WkTime busy = n->link_free[home * n->n + s];
    double queue = busy > n->now ? wk_time_to_s(busy - n->now) : 0;
    return queue + bytes / l->bytes_per_s + l->latency_s;
}

/* a + b (both >= 0), or just past the limit of simulated time when the
 * sum would pass it. */
static WkTime cap_add(WkTime a, WkTime b)
{
    const WkTime cap = WK_RUN_MAX_TIME + 1;
    return a >= cap || b >= cap - a ? cap : a + b;
}

WkTime wk_net_send_data(WkNet *n, uint32_t j, uint32_t s, double bytes)
{
    uint32_t home = n->home[j];
    if (home == s || bytes <= 0)
        return 0;
    const WkNetLink *l = wk_net_link(n, home, s);
    uint32_t li = home * n->n + s;
    WkTime *busy = &n->link_free[li];
    WkTime start = *busy > n->now ? *busy : n->now;
    if (*busy <= n->now)
        n->link_from[li] = n->now; /* the link was idle: a new run of transfers */
    double rate = wk_net_wan_rate(n, home, s, start); /* its share beside the gangs' rings */
    /* a thin link (1 kbit/s) and a large dataset may end past the limit of
     * simulated time: each sum is capped just past it (the data then arrive
     * there, and the run reports the job unfinished), never wrapped */
    WkTime xfer = wk_time_from_s(bytes / rate), lat = wk_time_from_s(l->latency_s);
    *busy = cap_add(start, xfer);
    if (wk_net_wan_segment(n, li, start, *busy, rate, NULL) < 0)
        n->wan_nomem = 1;
    WkTime delay = cap_add(*busy, lat) - n->now;
    n->wan_bytes += bytes;
    n->wan_cost += bytes / 1e12 * l->cost_per_tb;
    n->transfers++;
    n->s[s].transfer_s += wk_time_to_s(delay);
    return delay;
}

int wk_net_site_take(WkNet *n, uint32_t s, uint32_t j, WkError *err)
{
    NetSite *st = &n->s[s];
    st->assigned++;
    if (st->nout == st->capout) {
        size_t cap = st->capout ? 2 * st->capout : 64;
        uint32_t *p = realloc(st->out, cap * sizeof *p);
        if (!p)
            return wk_error_nomem(err, "network: jobs per site");
        st->out = p;
        st->capout = cap;
    }
    st->out[st->nout++] = j;
    st->refreshed = -1; /* its backlog and plan change */
    return 0;
}

