/* SPDX-License-Identifier: Apache-2.0 */
/* network_exec.c — running a network: the broker's host (what a broker may
 * ask of the sites, models/broker/broker.h, answered from the sites' runs
 * and network_plan.c), each job's dataset home, and the lockstep that
 * advances every site to a submission instant before the broker decides
 * (docs/brokers.md). */
#include "models/network/network_impl.h"
#include "sim/core/dl.h"
#include "sim/core/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NET(h) ((WkNet *)(uintptr_t)(h))

/* ---- the sites' state as the broker sees it ---- */

static uint32_t h_sites(const void *h) { return NET(h)->n; }
static const char *h_site_name(const void *h, uint32_t s) { return NET(h)->s[s].name; }
static WkTime h_now(const void *h) { return NET(h)->now; }
static uint64_t h_seed(const void *h) { return NET(h)->seed; }
static uint32_t h_site_gpus(const void *h, uint32_t s) { return NET(h)->s[s].gpus; }
static uint32_t h_site_free(const void *h, uint32_t s) { return wk_run_free_gpus(NET(h)->s[s].run); }
static uint32_t h_job_gpus(const void *h, uint32_t j, uint32_t s)
{
    return wk_run_workload(NET(h)->s[s].run)->jobs[j].gpus;
}
static int h_job_kind(const void *h, uint32_t j) { return wk_run_workload(NET(h)->s[0].run)->jobs[j].kind; }
static uint32_t h_job_home(const void *h, uint32_t j) { return NET(h)->home[j]; }

static double h_backlog(const void *h, uint32_t s) { return wk_net_plan_backlog_s(NET(h), s); }

/* When the job would start behind the site's queue (refresh's plan). */
static double h_wait(const void *h, uint32_t j, uint32_t s)
{
    WkNet *n = NET(h);
    return wk_net_plan_wait(n, s, wk_run_workload(n->s[s].run)->jobs[j].gpus);
}

static int h_feasible(const void *h, uint32_t j, uint32_t s)
{
    const WkNet *n = NET(h);
    const NetSite *st = &n->s[s];
    int hpc = wk_run_workload(st->run)->jobs[j].kind == WK_JOB_HPC;
    if (!wk_run_site_can_run(st->run, j) || !(hpc ? st->accepts_hpc : st->accepts_ai))
        return 0;
    return n->home[j] == s || n->bytes[j] <= 0 || wk_net_link(n, n->home[j], s)->set;
}

static double h_run_s(const void *h, uint32_t j, uint32_t s)
{
    WkNet *n = NET(h);
    if (!wk_run_site_can_run(n->s[s].run, j))
        return INFINITY;
    return wk_run_job_estimate_s(n->s[s].run, j);
}

/* The transfer's duration if it were queued now on the link (s). */
static double transfer_s(const WkNet *n, uint32_t j, uint32_t s)
{
    return wk_net_transfer_s(n, n->home[j], s, n->bytes[j]);
}

static double h_transfer(const void *h, uint32_t j, uint32_t s) { return transfer_s(NET(h), j, s); }

/* Cost and CO2 of the job's added draw over [now + start_s, + run_s). */
static int charge(WkNet *n, uint32_t j, uint32_t s, double start_s, double *cost, double *co2)
{
    const WkRun *r = n->s[s].run;
    const WkFacilitySpec *f = wk_run_facility(r);
    *cost = *co2 = NAN;
    if (!f->ntariff)
        return -1;
    double run = h_run_s(n, j, s);
    double w = (double)wk_run_workload(r)->jobs[j].gpus * n->s[s].job_w_per_gpu;
    if (!isfinite(run) || !isfinite(start_s)) {
        *cost = *co2 = INFINITY;
        return 0;
    }
    WkTime t0 = n->now + wk_time_from_s(start_s);
    WkTime t1 = t0 + wk_time_from_s(run);
    *cost = *co2 = 0; /* wk_facility_charge adds to them */
    if (wk_facility_charge(f, t0, t1, w, cost, co2) < 0) {
        /* past the end of a series that does not repeat: its mean price */
        *cost = wk_facility_price_mean(f) * w * run / 3.6e9;
        *co2 = NAN;
    }
    return 0;
}

static double h_cost(const void *h, uint32_t j, uint32_t s, double start_s)
{
    double cost, co2;
    charge(NET(h), j, s, start_s, &cost, &co2);
    return cost;
}

static double h_co2(const void *h, uint32_t j, uint32_t s, double start_s)
{
    double cost, co2;
    charge(NET(h), j, s, start_s, &cost, &co2);
    return co2;
}

static const WkBrokerHostOps host_ops = {
    .sites = h_sites,
    .site_name = h_site_name,
    .now = h_now,
    .seed = h_seed,
    .site_gpus = h_site_gpus,
    .site_free_gpus = h_site_free,
    .site_backlog_s = h_backlog,
    .wait_s = h_wait,
    .job_gpus = h_job_gpus,
    .feasible = h_feasible,
    .run_s = h_run_s,
    .transfer_s = h_transfer,
    .energy_cost = h_cost,
    .energy_co2_kg = h_co2,
    .job_home = h_job_home,
    .job_kind = h_job_kind,
};

/* ---- datasets ---- */

static double job_bytes(const WkNet *n, const WkWorkload *wl, size_t j)
{
    const WkJobSpec *js = &wl->jobs[j];
    if (!js->model)
        return n->job_bytes;
    const WkModelSpec *m = &wl->models[js->model - 1];
    if (m->kind != WK_MODEL_LLM)
        return n->job_bytes;
    double tokens = js->tokens > 0 ? js->tokens : js->iterations * (double)m->global_batch * m->seq_len;
    return tokens * n->bytes_per_token;
}

/* The broker's init failed: when it is a plugin's, say which file it came
 * from (an error positioned in the scenario stays there). */
static int init_failed(WkNet *n, int rc, WkError *err)
{
    const char *path = wk_broker_plugins_path(&n->plugins, n->broker);
    if (!path)
        return rc;
    char what[128];
    snprintf(what, sizeof what, "broker '%s'", n->broker->name);
    return wk_dl_init_failed(err, rc, path, "broker plugin", what);
}

int wk_net_broker_open(WkNet *n, WkError *err)
{
    n->ctx = (WkBrokerCtx){.ops = &host_ops, .host = n};
    const WkWorkload *wl = wk_run_workload(n->s[0].run);
    n->njobs = wl->n;
    WkRng *rng = NULL;
    int rc = wk_rng_new(&rng, n->seed, "network.data", err);
    if (rc < 0)
        return rc;
    double total = 0;
    for (uint32_t s = 0; s < n->n; s++)
        total += n->s[s].data_share;
    for (size_t j = 0; j < wl->n; j++) {
        double u = wk_rng_uniform(rng) * total, acc = 0;
        uint32_t s = 0;
        while (s + 1 < n->n && (acc += n->s[s].data_share) <= u)
            s++;
        n->home[j] = s;
        n->bytes[j] = job_bytes(n, wl, j);
    }
    wk_rng_free(rng);
    if (n->broker->priv_size && !(n->bpriv = calloc(1, n->broker->priv_size)))
        return wk_error_nomem(err, "broker");
    static const char *const common[] = {WK_BROKER_COMMON_KEYS, NULL};
    const char *prev = wk_text_callback_enter("init");
    rc = n->broker->init ? n->broker->init(n->bpriv, n->bparams, &n->ctx, err) : 0;
    wk_text_callback_leave(prev);
    if (rc < 0)
        return init_failed(n, rc, err);
    if (!n->broker->init && n->bparams && (rc = wk_node_expect_keys(n->bparams, common, err)) < 0)
        return rc;
    return 0;
}

/* ---- the lockstep ---- */


typedef struct {
    WkTime t;
    uint32_t id;
} Arrival;

static int cmp_arrival(const void *a, const void *b)
{
    const Arrival *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The broker chooses job j's site now; the WAN transfer is queued. */
static int assign(WkNet *n, uint32_t j, WkError *err)
{
    const char *prev = wk_text_callback_enter("choose");
    int32_t s = n->broker->choose(n->bpriv, &n->ctx, j);
    wk_text_callback_leave(prev);
    if (s < -1) { /* -1 is "no site"; any other negative is a broken broker */
        const char *path = wk_broker_plugins_path(&n->plugins, n->broker);
        return wk_error_set(err, WK_E_INTERNAL, path, 0, 0,
                            "%sbroker '%s': choose returned %d for job %u, neither a site (0..%u) nor -1 (no site)",
                            path ? "broker plugin: " : "", n->broker->name, s, j, n->n - 1);
    }
    if (s >= 0 && ((uint32_t)s >= n->n || !h_feasible(n, j, (uint32_t)s))) {
        const char *path = wk_broker_plugins_path(&n->plugins, n->broker);
        return wk_error_set(err, WK_E_INTERNAL, path, 0, 0,
                            "%sbroker '%s' chose site %d for job %u, which cannot run it there",
                            path ? "broker plugin: " : "", n->broker->name, s, j);
    }
    int spanned = 0, rc = wk_net_span_consider(n, j, s, &spanned, err);
    if (rc < 0 || spanned)
        return rc;
    if (s < 0) {
        n->unplaced++;
        return 0;
    }
    n->delay[j] = wk_net_send_data(n, j, (uint32_t)s, n->bytes[j]);
    n->assign[j] = s;
    return wk_net_site_take(n, (uint32_t)s, j, err);
}

/* Every site to `to` (events at times <= to); while jobs span sites, in
 * steps with the gangs kept after each (wk_net_span_step). */
static int advance_all(WkNet *n, WkTime *synced, WkTime to, WkError *err)
{
    int rc = 0;
    while (rc == 0) {
        WkTime t = to;
        if (n->gangs_open) {
            WkTime step = wk_net_span_step(n);
            if (to - *synced > step)
                t = *synced + step;
        }
        for (uint32_t s = 0; s < n->n && rc == 0; s++)
            rc = wk_run_site_advance(n->s[s].run, t, err);
        if (rc == 0 && n->gangs_open)
            rc = wk_net_span_sync(n, t, err);
        if (t > *synced)
            *synced = t;
        if (t >= to)
            break;
    }
    return rc;
}

int wk_net_execute(WkNet *n, WkError *err)
{
    if (n->executed)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "run: executed twice");
    n->executed = 1;
    int rc = 0;
    for (uint32_t s = 0; s < n->n; s++) {
        NetSite *st = &n->s[s];
        if ((rc = wk_run_site_begin(st->run, err)) < 0)
            return rc;
        st->refreshed = -1;
        st->job_w_per_gpu = wk_run_site_job_w_per_gpu(st->run);
    }
    const WkWorkload *wl = wk_run_workload(n->s[0].run);
    size_t nj = wl->n;
    Arrival *arr = malloc((nj ? nj : 1) * sizeof *arr);
    if (!arr)
        return wk_error_nomem(err, "network");
    for (size_t j = 0; j < nj; j++)
        arr[j] = (Arrival){wl->jobs[j].submit, (uint32_t)j};
    qsort(arr, nj, sizeof *arr, cmp_arrival);
    WkTime until = n->horizon != WK_TIME_NEVER ? n->horizon : WK_RUN_MAX_TIME;
    WkTime synced = 0;
    for (size_t i = 0; i < nj && rc == 0;) {
        WkTime t = arr[i].t;
        if (t > until || (n->opts.interrupt && *n->opts.interrupt)) /* past the horizon, or SIGINT/SIGTERM */
            break;
        if (t > 0)
            rc = advance_all(n, &synced, t - 1, err);
        n->now = t;
        for (; i < nj && arr[i].t == t && rc == 0; i++)
            rc = assign(n, arr[i].id, err);
    }
    free(arr);
    /* after the last submission: keep the gangs in step until they end */
    while (rc == 0 && n->gangs_open && synced < until && !(n->opts.interrupt && *n->opts.interrupt)) {
        WkTime step = wk_net_span_step(n);
        rc = advance_all(n, &synced, until - synced > step ? synced + step : until, err);
    }
    if (rc < 0)
        return rc;
    WkTime t_end = 0;
    for (uint32_t s = 0; s < n->n; s++) {
        WkRun *sr = n->s[s].run;
        if ((rc = wk_run_site_advance(sr, until, err)) < 0)
            return rc;
        WkRunSiteState ss = wk_run_site_state(sr);
        if (!ss.finished && n->horizon == WK_TIME_NEVER && ss.now >= until)
            return wk_error_set(err, WK_E_RANGE, n->doc->file, 0, 0,
                                "site '%s' reached the longest simulated time (docs/limits.md) with jobs unfinished: "
                                "set sim.end", n->s[s].name);
        WkTime e = ss.finished ? ss.end_t : (n->horizon != WK_TIME_NEVER ? n->horizon : ss.now);
        if (e > t_end)
            t_end = e;
        n->interrupted |= ss.interrupted;
    }
    for (uint32_t s = 0; s < n->n; s++) {
        free(n->s[s].plan);
        n->s[s].plan = NULL;
        n->s[s].nplan = n->s[s].capplan = 0;
    }
    for (uint32_t s = 0; s < n->n; s++)
        if ((rc = wk_run_site_end(n->s[s].run, t_end, err)) < 0)
            return rc;
    if ((rc = wk_net_wan_finish(n, t_end, err)) < 0)
        return rc;
    n->end_t = t_end;
    n->finished = 1;
    for (uint32_t s = 0; s < n->n; s++)
        n->finished &= wk_run_site_state(n->s[s].run).finished;
    return 0;
}
