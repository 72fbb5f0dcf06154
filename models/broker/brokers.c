/* SPDX-License-Identifier: Apache-2.0 */
/* brokers.c — the wk_broker_* calls (forwarded to the host's table) and the
 * built-in broker policies: round-robin, least-loaded, fastest-finish,
 * energy-price, low-carbon and data-locality (docs/brokers.md). Each policy
 * considers only feasible sites and breaks ties by the lower site index, so
 * a run is reproducible. */
#include "models/broker/broker.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

uint32_t wk_broker_sites(const WkBrokerCtx *c) { return c->ops->sites(c->host); }
const char *wk_broker_site_name(const WkBrokerCtx *c, uint32_t s) { return c->ops->site_name(c->host, s); }
WkTime wk_broker_now(const WkBrokerCtx *c) { return c->ops->now(c->host); }
uint64_t wk_broker_seed(const WkBrokerCtx *c) { return c->ops->seed(c->host); }
uint32_t wk_broker_site_gpus(const WkBrokerCtx *c, uint32_t s) { return c->ops->site_gpus(c->host, s); }
uint32_t wk_broker_site_free_gpus(const WkBrokerCtx *c, uint32_t s) { return c->ops->site_free_gpus(c->host, s); }
double wk_broker_site_backlog_s(const WkBrokerCtx *c, uint32_t s) { return c->ops->site_backlog_s(c->host, s); }
double wk_broker_wait_s(const WkBrokerCtx *c, uint32_t j, uint32_t s) { return c->ops->wait_s(c->host, j, s); }
uint32_t wk_broker_job_gpus(const WkBrokerCtx *c, uint32_t j, uint32_t s) { return c->ops->job_gpus(c->host, j, s); }
int wk_broker_job_kind(const WkBrokerCtx *c, uint32_t j) { return c->ops->job_kind(c->host, j); }
int wk_broker_feasible(const WkBrokerCtx *c, uint32_t j, uint32_t s) { return c->ops->feasible(c->host, j, s); }
double wk_broker_run_s(const WkBrokerCtx *c, uint32_t j, uint32_t s) { return c->ops->run_s(c->host, j, s); }
double wk_broker_transfer_s(const WkBrokerCtx *c, uint32_t j, uint32_t s) { return c->ops->transfer_s(c->host, j, s); }
uint32_t wk_broker_job_home(const WkBrokerCtx *c, uint32_t j) { return c->ops->job_home(c->host, j); }

double wk_broker_energy_cost(const WkBrokerCtx *c, uint32_t j, uint32_t s, double start_s)
{
    return c->ops->energy_cost(c->host, j, s, start_s);
}

double wk_broker_energy_co2_kg(const WkBrokerCtx *c, uint32_t j, uint32_t s, double start_s)
{
    return c->ops->energy_co2_kg(c->host, j, s, start_s);
}

/* ---- a score per feasible site; the lowest wins ---- */

typedef double (*ScoreFn)(const WkBrokerCtx *c, uint32_t job, uint32_t site);

/* The feasible site of lowest score (NaN scores lose to numbers; ties go
 * to the lower index); -1 when none is feasible. */
static int32_t argmin(const WkBrokerCtx *c, uint32_t job, ScoreFn score)
{
    int32_t best = -1;
    double bs = INFINITY;
    int best_nan = 1;
    for (uint32_t s = 0; s < wk_broker_sites(c); s++) {
        if (!wk_broker_feasible(c, job, s))
            continue;
        double v = score(c, job, s);
        int nan = isnan(v);
        if (best < 0 || (best_nan && !nan) || (!nan && v < bs)) {
            best = (int32_t)s;
            bs = nan ? INFINITY : v;
            best_nan = nan;
        }
    }
    return best;
}

/* When the job would start there: once its dataset has arrived and the
 * site's queue lets it (the queue drains during the transfer). */
static double start_s(const WkBrokerCtx *c, uint32_t job, uint32_t site)
{
    return fmax(wk_broker_transfer_s(c, job, site), wk_broker_wait_s(c, job, site));
}

static double score_load(const WkBrokerCtx *c, uint32_t job, uint32_t site)
{
    /* the backlog first; among idle sites the one with the most free GPUs
     * (a free fraction below 1 adds less than a second of backlog) */
    (void)job;
    double free_frac = (double)wk_broker_site_free_gpus(c, site) / (double)wk_broker_site_gpus(c, site);
    return wk_broker_site_backlog_s(c, site) + (1.0 - free_frac) * 1e-3;
}

static double score_finish(const WkBrokerCtx *c, uint32_t job, uint32_t site)
{
    return start_s(c, job, site) + wk_broker_run_s(c, job, site);
}

static double score_cost(const WkBrokerCtx *c, uint32_t job, uint32_t site)
{
    return wk_broker_energy_cost(c, job, site, start_s(c, job, site));
}

static double score_co2(const WkBrokerCtx *c, uint32_t job, uint32_t site)
{
    return wk_broker_energy_co2_kg(c, job, site, start_s(c, job, site));
}

static double score_data(const WkBrokerCtx *c, uint32_t job, uint32_t site)
{
    return start_s(c, job, site);
}

/* ---- the policies ---- */

/* Smooth weighted round-robin (the interleaving of nginx's upstream
 * balancing): every site gains its weight (its GPUs) per pick, the feasible
 * site with the most credit is chosen and pays the total, so a site of
 * twice the GPUs gets twice the jobs, spread evenly. */
typedef struct {
    double credit[WK_BROKER_MAX_SITES];
} RoundRobin;

static int32_t rr_choose(void *priv, const WkBrokerCtx *c, uint32_t job)
{
    RoundRobin *p = priv;
    uint32_t n = wk_broker_sites(c);
    double total = 0;
    int32_t best = -1;
    for (uint32_t s = 0; s < n && s < WK_BROKER_MAX_SITES; s++) {
        if (!wk_broker_feasible(c, job, s))
            continue;
        double w = (double)wk_broker_site_gpus(c, s);
        p->credit[s] += w;
        total += w;
        if (best < 0 || p->credit[s] > p->credit[best])
            best = (int32_t)s;
    }
    if (best >= 0)
        p->credit[best] -= total;
    return best;
}

static int32_t load_choose(void *priv, const WkBrokerCtx *c, uint32_t job)
{
    (void)priv;
    return argmin(c, job, score_load);
}

static int32_t finish_choose(void *priv, const WkBrokerCtx *c, uint32_t job)
{
    (void)priv;
    return argmin(c, job, score_finish);
}

/* The energy brokers: among the feasible sites whose estimated finish is
 * within `slack` of the earliest, the one of lowest score (cost or CO2). */
typedef struct {
    double slack_s;
} Slack;

static int slack_init(void *priv, const WkNode *params, const WkBrokerCtx *c, WkError *err)
{
    static const char *const keys[] = {WK_BROKER_COMMON_KEYS, "slack", NULL};
    Slack *p = priv;
    (void)c;
    WkTime slack = 6 * WK_NS_PER_H; /* a stated choice: a job may finish up to 6 h later for cheaper energy */
    int rc;
    if (params && ((rc = wk_node_expect_keys(params, keys, err)) < 0 ||
                   (rc = wk_node_duration(params, "slack", 0, 0, 3650 * WK_NS_PER_DAY, &slack, err)) < 0))
        return rc;
    p->slack_s = wk_time_to_s(slack);
    return 0;
}

static int32_t within_slack(const Slack *p, const WkBrokerCtx *c, uint32_t job, ScoreFn score)
{
    double first = INFINITY;
    uint32_t n = wk_broker_sites(c);
    double fin[WK_BROKER_MAX_SITES];
    for (uint32_t s = 0; s < n && s < WK_BROKER_MAX_SITES; s++) {
        fin[s] = wk_broker_feasible(c, job, s) ? score_finish(c, job, s) : INFINITY;
        if (fin[s] < first)
            first = fin[s];
    }
    int32_t best = -1;
    double bs = INFINITY;
    for (uint32_t s = 0; s < n && s < WK_BROKER_MAX_SITES; s++) {
        if (!(fin[s] <= first + p->slack_s) || !isfinite(fin[s]))
            continue;
        double v = score(c, job, s);
        if (isnan(v))
            v = INFINITY;
        if (best < 0 || v < bs) {
            best = (int32_t)s;
            bs = v;
        }
    }
    if (best < 0) /* no finite finish anywhere: any feasible site */
        return argmin(c, job, score);
    return best;
}

static int32_t cost_choose(void *priv, const WkBrokerCtx *c, uint32_t job)
{
    return within_slack(priv, c, job, score_cost);
}

static int32_t co2_choose(void *priv, const WkBrokerCtx *c, uint32_t job)
{
    return within_slack(priv, c, job, score_co2);
}

static int32_t data_choose(void *priv, const WkBrokerCtx *c, uint32_t job)
{
    (void)priv;
    return argmin(c, job, score_data);
}

const WkBrokerOps wk_broker_round_robin = {
    WK_BROKER_ABI, "round-robin", "sites in turn, each as often as its share of the GPUs (smooth weighted round-robin)",
    sizeof(RoundRobin), NULL, rr_choose};
const WkBrokerOps wk_broker_least_loaded = {
    WK_BROKER_ABI, "least-loaded", "the site with the smallest backlog (queued and running work per GPU)", 0, NULL,
    load_choose};
const WkBrokerOps wk_broker_fastest = {
    WK_BROKER_ABI, "fastest-finish",
    "the site of the earliest estimated finish: data transfer, queue wait (its plan of the site's queue), run time by the site's performance model",
    0, NULL, finish_choose};
const WkBrokerOps wk_broker_cheapest = {
    WK_BROKER_ABI, "energy-price",
    "the site where the job's energy costs least (price series), among those finishing within `slack` of the earliest",
    sizeof(Slack), slack_init, cost_choose};
const WkBrokerOps wk_broker_greenest = {
    WK_BROKER_ABI, "low-carbon",
    "the site where the job's energy emits the least grid CO2, among those finishing within `slack` of the earliest",
    sizeof(Slack), slack_init, co2_choose};
const WkBrokerOps wk_broker_data = {
    WK_BROKER_ABI, "data-locality",
    "the site where the job starts first counting the WAN transfer of its dataset from its home site", 0, NULL,
    data_choose};

static const WkBrokerOps *const registry[] = {
    &wk_broker_round_robin, &wk_broker_least_loaded, &wk_broker_fastest, &wk_broker_cheapest,
    &wk_broker_greenest,    &wk_broker_data,         NULL,
};

const WkBrokerOps *const *wk_broker_registry(void) { return registry; }

int wk_broker_lookup(const char *name, const WkNode *where, const WkBrokerOps **out, WkError *err)
{
    char known[256] = "";
    size_t used = 0;
    for (size_t i = 0; registry[i]; i++) {
        if (strcmp(registry[i]->name, name) == 0) {
            *out = registry[i];
            return 0;
        }
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", registry[i]->name);
    }
    if (where)
        return wk_node_error(where, WK_E_INVAL, err, "unknown broker '%s' (known: %s)", name, known);
    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "unknown broker '%s' (known: %s)", name, known);
}
