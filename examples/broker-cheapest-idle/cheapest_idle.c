/* SPDX-License-Identifier: Apache-2.0 */
/* cheapest_idle.c — an out-of-tree wanka broker: among the sites where the
 * job would start at once (no queue ahead of it there, enough free GPUs,
 * and its dataset arrives within `max_transfer`), the one where its energy
 * costs least; when no site can start it now, the least-loaded site (the
 * smallest backlog per GPU). Sites without a price series rank after priced
 * ones. Ties go to the lower site index, so runs are reproducible. Built
 * against the installed <wanka/broker.h> only; loaded with
 * `wanka run --broker-plugin` or `broker: {plugin: ...}`. */
#include <math.h>

#include <wanka/broker.h>

typedef struct Broker {
    double max_transfer_s; /* a site whose dataset transfer is longer does not start the job now */
} Broker;

static int ci_init(void *priv, const WkNode *params, const WkBrokerCtx *ctx, WkError *err)
{
    static const char *const keys[] = {WK_BROKER_COMMON_KEYS, "max_transfer", NULL};
    Broker *b = priv;
    (void)ctx;
    /* a stated choice: a dataset an hour away still counts as "now" */
    WkTime max_transfer = (WkTime)3600 * 1000000000;
    int rc;
    if (params && ((rc = wk_node_expect_keys(params, keys, err)) < 0 ||
                   (rc = wk_node_duration(params, "max_transfer", 0, 0, (WkTime)86400 * 365 * 1000000000,
                                          &max_transfer, err)) < 0))
        return rc;
    b->max_transfer_s = (double)max_transfer / 1e9;
    return 0;
}

/* The job starts at once at site s: nothing waits before it, and its data
 * is there soon enough. */
static int starts_now(const Broker *b, const WkBrokerCtx *ctx, uint32_t job, uint32_t s)
{
    return wk_broker_wait_s(ctx, job, s) <= 0 && wk_broker_transfer_s(ctx, job, s) <= b->max_transfer_s &&
           wk_broker_job_gpus(ctx, job, s) <= wk_broker_site_free_gpus(ctx, s);
}

static int32_t ci_choose(void *priv, const WkBrokerCtx *ctx, uint32_t job)
{
    const Broker *b = priv;
    int32_t now_best = -1, load_best = -1;
    double now_cost = INFINITY, load = INFINITY;
    int now_priced = 0;
    for (uint32_t s = 0; s < wk_broker_sites(ctx); s++) {
        if (!wk_broker_feasible(ctx, job, s))
            continue;
        double backlog = wk_broker_site_backlog_s(ctx, s);
        if (load_best < 0 || backlog < load) {
            load_best = (int32_t)s;
            load = backlog;
        }
        if (!starts_now(b, ctx, job, s))
            continue;
        double cost = wk_broker_energy_cost(ctx, job, s, wk_broker_transfer_s(ctx, job, s));
        int priced = !isnan(cost);
        /* a priced site beats an unpriced one; among priced, the cheaper */
        if (now_best < 0 || (priced && !now_priced) || (priced && cost < now_cost)) {
            now_best = (int32_t)s;
            now_cost = priced ? cost : INFINITY;
            now_priced = priced;
        }
    }
    return now_best >= 0 ? now_best : load_best;
}

static const WkBrokerOps cheapest_idle = {
    .abi = WK_BROKER_ABI,
    .name = "cheapest-idle",
    .description = "the cheapest energy among the sites where the job starts now, else the least-loaded site",
    .priv_size = sizeof(Broker),
    .init = ci_init,
    .choose = ci_choose,
};

const WkBrokerOps *wk_broker_plugin(void);
const WkBrokerOps *wk_broker_plugin(void) { return &cheapest_idle; }
