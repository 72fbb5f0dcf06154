/* SPDX-License-Identifier: Apache-2.0 */
/* budget.h — the facility's power budget during a run: the bound on the
 * facility draw for a given site clock (kept per node group from busy
 * counts, O(groups), plus the running jobs whose scheduler chose a lower
 * clock), admission of a start (cap, policy: the GPUs at their floor
 * clocks must fit; hold: at full clock or the job's chosen clock), the
 * uniform site clock that keeps the draw under the budget, budget steps as
 * events, and the facility time series (power, budget, clock, price,
 * carbon). Per-job clocks chosen by the scheduler and the trade-off they
 * make (energy saved, GPU-time lost) are in budget_clock.c. Private to
 * models/run. */
#ifndef WK_RUN_BUDGET_H
#define WK_RUN_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "models/facility/facility.h"
#include "models/topo/cluster.h"
#include "sim/core/error.h"
#include "sim/core/time.h"

/* Rows of timeseries/facility at most (docs/limits.md). */
#define WK_RUN_MAX_FACILITY_ROWS 10000000

/* One row of timeseries/facility: the facility after every change at its instant. */
typedef struct WkFacilityRow {
    int64_t time_ns;
    double power_w;       /* facility draw (PUE included) */
    double budget_w;      /* the budget in force (NaN: none) */
    double clock;         /* the site clock busy GPUs may run at (1 = uncapped) */
    double price_per_mwh; /* NaN without a price series */
    double gco2_per_kwh;  /* NaN without a price series */
} WkFacilityRow;

/* A running job whose scheduler chose a clock below 1 (for the bound). */
typedef struct WkClockedJob {
    uint32_t job;
    double clock;    /* the chosen clock factor, (0, 1) */
    uint32_t *count; /* [groups] its GPUs per node group (owned) */
} WkClockedJob;

/* The trade-off of a job's chosen clock now (rates between its re-ratings). */
typedef struct WkClockRate {
    double saved_w;   /* facility W saved for the same work: P_o x rho - P (PUE included) */
    double lost_gpus; /* GPUs' time lost per second: n x (1 - rho) */
    uint8_t on;       /* 1 while the chosen clock binds (rho < 1 or P < P_o) */
    uint8_t ever;     /* 1 once it ran under a binding chosen clock */
} WkClockRate;

typedef struct WkRunBudget {
    struct WkRun *r;       /* the run it belongs to (borrowed) */
    double limit_w;        /* facility W allowed now; INFINITY without a budget */
    size_t step;           /* the budget step in force */
    uint32_t *busy;        /* [groups] GPUs held by jobs */
    double idle_w;         /* every GPU at idle (down ones counted: they may come back), W */
    double net_w;          /* switches and optics, W */
    uint32_t tok;          /* token of budget-step events */
    double capped_s;       /* time the site clock was below 1 */
    WkTime capped_since;   /* when it last dropped below 1 (-1: not capped) */
    uint64_t held;         /* starts held back by the budget */
    WkFacilityRow *rows;   /* owned */
    size_t nrows, caprows;
    /* clocks chosen by the scheduler (budget_clock.c); all NULL until one is chosen */
    double *job_clock;     /* [jobs] chosen clock factor, (0, 1]; 1 = none */
    double *gpu_clock;     /* [gpus] the chosen clock of the job holding each GPU (cluster.policy_clock) */
    WkClockRate *rate;     /* [jobs] the trade-off of each job's chosen clock now */
    WkClockedJob *ck;      /* running jobs with a chosen clock < 1 */
    size_t nck, capck;
    uint32_t *ck_busy;     /* [groups] busy GPUs of those jobs */
    double pc_saved_j;     /* facility energy the chosen clocks saved for the same work, J */
    double pc_cost, pc_co2_kg; /* its price and grid CO2 (facility.prices) */
    double pc_lost_gpu_s;  /* GPU-time the chosen clocks added to the jobs' run, GPU-s */
} WkRunBudget;

struct WkRun;

/** Normalised dynamic power g(f_k) of a busy GPU of group g at site clock f
 * under a chosen clock `clock` (1 = none): f_k = max(floor, min(cap clock,
 * f, clock)); exactly 1 at f_k = 1. */
static inline double wk_budget_gpu_frac(const WkNodeGroup *g, double f, double clock)
{
    double fk = g->cap_clock < f ? g->cap_clock : f;
    fk = clock < fk ? clock : fk;
    fk = fk > g->floor_clock ? fk : g->floor_clock;
    return fk < 1 ? wk_dvfs_power_frac(g->dvfs, fk) : 1.0;
}

/** Per-job clocks (budget_clock.c). set: the scheduler chose clock factor
 * f in (0, 1] for job (1 = none); a running job is accounted up to now,
 * its GPUs' draw and rate change now and the budget is enforced; a waiting
 * job gets it when it starts. WK_E_INTERNAL for f outside (0, 1] or a job
 * that neither waits nor runs; WK_E_NOMEM. on/off: a job starts on gpus
 * (its chosen clock applies to them; call before their busy draw is
 * added) / stops (after its busy draw is taken). rate: recompute the
 * trade-off of a running job's chosen clock after it was re-rated. settle:
 * add that trade-off over [t0, t1). The queries answer for the scheduler:
 * its GPUs' facility draw at clock f (idle + dynamic at busy_activity,
 * PUE included; *idle_w the idle part), its run time at f relative to full
 * clock (the operator model for model jobs, compute_share for plain ones),
 * and the lowest clock it may run at. A waiting job is taken on the
 * cluster's first GPUs. */
/** The facility budget of a run (budget.c). init: at prepare, after the
 * cluster and `facility:` (every step checked against the idle cluster and,
 * after the first, the cluster busy at its floor clocks; positioned
 * errors). start: register and post the budget steps. admit: 0 when job
 * on gpus[0..n) fits the budget (cap, policy: at floor clocks; hold: at
 * full clock or the clock its scheduler chose), else WK_E_NOROOM. hold:
 * count gpus busy (held 1) or free (0). enforce: after any change of
 * allocation or budget, set the site clock to the largest that fits (with
 * the clocks schedulers chose), re-rate running jobs if it moved, and write
 * the facility row of now. headroom: budget minus the draw bound at full
 * clock, chosen clocks ignored (INFINITY without a budget). sample: the
 * facility row at a sample. finish: the capped time up to end. */
int wk_budget_init(struct WkRun *r, WkRunBudget *b, WkError *err);
int wk_budget_start(struct WkRun *r, WkRunBudget *b, WkError *err);
int wk_budget_admit(struct WkRun *r, WkRunBudget *b, uint32_t job, const uint32_t *gpus, uint32_t n);
void wk_budget_hold(struct WkRun *r, WkRunBudget *b, const uint32_t *gpus, uint32_t n, int held);
int wk_budget_enforce(struct WkRun *r, WkRunBudget *b, WkError *err);
double wk_budget_headroom_w(const struct WkRun *r, const WkRunBudget *b);
int wk_budget_sample(struct WkRun *r, WkRunBudget *b, WkTime now, WkError *err);
void wk_budget_finish(WkRunBudget *b, WkTime end);
void wk_budget_fini(WkRunBudget *b); /* the budget's tables (not the clocks': wk_budget_clock_fini) */

/** Clocks the scheduler chose per job (budget_clock.c). set_job_clock: job
 * (waiting or running) runs at clock factor f in (0, 1] (a running one is
 * settled and re-rated now). clock_on/off: a job with a chosen clock takes
 * gpus[0..n) / gives them back. clock_rate: its trade-off now (after a
 * speed change); clock_settle: the trade-off over [t0, t1). power_at_w: its
 * facility draw at clock f (*idle_w the idle part). time_factor: its run
 * time at f relative to full clock. clock_floor: the lowest clock its GPUs
 * allow. fini: free the clock tables. */
int wk_budget_set_job_clock(struct WkRun *r, WkRunBudget *b, uint32_t job, double f, WkError *err);
int wk_budget_clock_on(struct WkRun *r, WkRunBudget *b, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);
void wk_budget_clock_off(struct WkRun *r, WkRunBudget *b, uint32_t job);
void wk_budget_clock_rate(struct WkRun *r, WkRunBudget *b, uint32_t job);
void wk_budget_clock_settle(struct WkRun *r, WkRunBudget *b, uint32_t job, WkTime t0, WkTime t1);
double wk_budget_job_power_at_w(const struct WkRun *r, uint32_t job, double f, double *idle_w);
double wk_budget_job_time_factor(struct WkRun *r, uint32_t job, double f);
double wk_budget_job_clock_floor(const struct WkRun *r, uint32_t job);
void wk_budget_clock_fini(WkRunBudget *b);

#endif
