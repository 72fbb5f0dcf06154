/* SPDX-License-Identifier: Apache-2.0 */
/* budget.h — the facility's power budget during a run: the bound on the
 * facility draw for a given site clock (kept per node group from busy
 * counts, O(groups)), admission of a start (cap: the GPUs at their floor
 * clocks must fit; hold: at full clock), the uniform site clock that keeps
 * the draw under the budget, budget steps as events, and the facility time
 * series (power, budget, clock, price, carbon). Private to models/run. */
#ifndef WK_RUN_BUDGET_H
#define WK_RUN_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "models/gpu/facility.h"
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

typedef struct WkRunBudget {
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
} WkRunBudget;

#endif
