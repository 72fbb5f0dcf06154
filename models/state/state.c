/* SPDX-License-Identifier: Apache-2.0 */
/* state.c — the run's shared state: the subsystems attached to it, the
 * driver's requests, accounting up to now and the time-series row of an
 * instant. Knows no subsystem by name: they come from the driver's table. */
#include "models/state/state.h"

void *wk_run_sub(const WkRun *r, const WkRunSubsysOps *ops)
{
    for (size_t i = 0; r->subsys && r->subsys[i]; i++)
        if (r->subsys[i] == ops)
            return r->sub_st[i];
    return NULL;
}

int wk_run_attach(WkRun *r, const WkRunSubsysOps *const *table, const WkNode *root, WkError *err)
{
    size_t n = 0;
    while (table[n])
        n++;
    if (n > WK_RUN_MAX_SUBSYS)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "run: %zu subsystems, at most %d", n, WK_RUN_MAX_SUBSYS);
    r->subsys = table;
    size_t ns = 0, nr = 0;
    for (size_t i = 0; i < n; i++) {
        const WkRunSubsysOps *o = table[i];
        if (o->init) {
            int rc = o->init(r, root, &r->sub_st[i], err);
            if (rc < 0)
                return rc;
        }
        if (o->settled) {
            r->on_settled[ns] = o;
            r->settled_st[ns++] = r->sub_st[i];
        }
        if (o->rated) {
            r->on_rated[nr] = o;
            r->rated_st[nr++] = r->sub_st[i];
        }
    }
    r->on_settled[ns] = NULL;
    r->on_rated[nr] = NULL;
    return 0;
}

void wk_run_detach(WkRun *r)
{
    size_t n = 0;
    while (r->subsys && r->subsys[n])
        n++;
    while (n-- > 0) {
        if (r->subsys[n]->fini)
            r->subsys[n]->fini(r->sub_st[n]);
        r->sub_st[n] = NULL;
    }
}

int wk_run_request_requeue(WkRun *r, uint32_t job, WkError *err)
{
    if (!r->req.requeue)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "run: no driver to requeue job %u", job);
    return r->req.requeue(r, job, err);
}

int wk_run_request_join(WkRun *r, uint32_t job, WkError *err)
{
    return r->req.join ? r->req.join(r, job, err) : 0;
}

void wk_run_account_to(WkRun *r, WkTime now) { wk_account_to(&r->acct, &r->pool, now); }

int wk_run_sample(WkRun *r, WkTime now)
{
    int rc = wk_account_sample(&r->acct, &r->cluster, now, r->pool.alloc, r->running, r->queued);
    for (size_t i = 0; rc == 0 && r->subsys && r->subsys[i]; i++)
        if (r->subsys[i]->sampled)
            rc = r->subsys[i]->sampled(r, r->sub_st[i], now, NULL);
    return rc;
}

/* Keep "a row is the state after every event at its instant": an event at
 * the time of the last row rewrites that row. */
void wk_run_resample(WkRun *r, WkTime now)
{
    if (wk_account_sampled_at(&r->acct, now))
        wk_run_sample(r, now);
}
