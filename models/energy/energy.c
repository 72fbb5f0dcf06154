/* SPDX-License-Identifier: Apache-2.0 */
/* energy.c — the energy subsystems as a run's driver attaches them: each
 * slot of WkRunSubsysOps forwarded to the budget (budget.c, budget_clock.c)
 * or to idle power-down (sleep.c). The order of calls inside a slot is the
 * order the model needs (docs/architecture.md, "Subsystems"). */
#include "models/energy/energy_impl.h"

#include <stdlib.h>

/* ---- the facility budget ---- */

static int budget_init(WkRun *r, const WkNode *root, void **st, WkError *err)
{
    (void)root;
    WkRunBudget *b = calloc(1, sizeof *b);
    if (!b)
        return wk_error_nomem(err, "facility budget");
    b->r = r;
    *st = b;
    return wk_budget_init(r, b, err);
}

static int budget_start(WkRun *r, void *st, WkError *err) { return wk_budget_start(r, st, err); }

static int budget_admit(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    return wk_budget_admit(r, st, job, gpus, n);
}

/* The clock its scheduler chose, then the busy counts (before the job's
 * power is counted: the draw depends on the chosen clock). */
static int budget_held(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err)
{
    int rc = wk_budget_clock_on(r, st, job, gpus, n, err);
    if (rc == 0)
        wk_budget_hold(r, st, gpus, n, 1);
    return rc;
}

static int budget_released(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now,
                           WkError *err)
{
    (void)now;
    (void)err;
    wk_budget_hold(r, st, gpus, n, 0);
    wk_budget_clock_off(r, st, job);
    return 0;
}

static int budget_changed(WkRun *r, void *st, WkError *err) { return wk_budget_enforce(r, st, err); }

static void budget_settled(WkRun *r, void *st, uint32_t job, WkTime t0, WkTime t1)
{
    WkRunBudget *b = st;
    if (b->rate) /* what its scheduler-chosen clock saved and cost */
        wk_budget_clock_settle(r, b, job, t0, t1);
}

static void budget_rated(WkRun *r, void *st, uint32_t job) { wk_budget_clock_rate(r, st, job); }

static int budget_sampled(WkRun *r, void *st, WkTime now, WkError *err) { return wk_budget_sample(r, st, now, err); }

static void budget_finish(WkRun *r, void *st, WkTime end)
{
    (void)r;
    wk_budget_finish(st, end);
}

static void budget_fini(void *st)
{
    if (st) {
        wk_budget_fini(st);
        wk_budget_clock_fini(st);
    }
    free(st);
}

const WkRunSubsysOps wk_energy_budget = {
    .name = "budget",
    .init = budget_init,
    .start = budget_start,
    .admit = budget_admit,
    .held = budget_held,
    .released = budget_released,
    .changed = budget_changed,
    .settled = budget_settled,
    .rated = budget_rated,
    .sampled = budget_sampled,
    .finish = budget_finish,
    .fini = budget_fini,
};

/* ---- idle power-down ---- */

static int sleep_init(WkRun *r, const WkNode *root, void **st, WkError *err)
{
    (void)root;
    WkRunSleep *sl = calloc(1, sizeof *sl);
    if (!sl)
        return wk_error_nomem(err, "idle power-down");
    sl->r = r;
    *st = sl;
    return 0;
}

static int sleep_start(WkRun *r, void *st, WkError *err) { return wk_sleep_start(r, st, err); }

/* Its sleeping nodes wake; a wake longer than the restart cost the job
 * pays anyway delays its start (counted). */
static WkTime sleep_placing(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now)
{
    WkTime wake = wk_sleep_wake(r, st, gpus, n, now);
    if (wake > r->rt[job].pending_cost)
        wk_sleep_delayed(st, wake - r->rt[job].pending_cost);
    return wake;
}

static int sleep_released(WkRun *r, void *st, uint32_t job, const uint32_t *gpus, uint32_t n, WkTime now,
                          WkError *err)
{
    (void)job;
    return wk_sleep_released(r, st, gpus, n, now, err);
}

static void sleep_finish(WkRun *r, void *st, WkTime end) { wk_sleep_finish(r, st, end); }

static void sleep_fini(void *st)
{
    if (st)
        wk_sleep_fini(st);
    free(st);
}

const WkRunSubsysOps wk_energy_sleep = {
    .name = "sleep",
    .init = sleep_init,
    .start = sleep_start,
    .placing = sleep_placing,
    .released = sleep_released,
    .finish = sleep_finish,
    .fini = sleep_fini,
};
