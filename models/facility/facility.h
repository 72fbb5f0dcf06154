/* SPDX-License-Identifier: Apache-2.0 */
/* facility.h — the site around the cluster: its power budget (MW, constant
 * or a step series), what the run does when a start would exceed it (cap
 * clocks uniformly, hold the job in the queue, or let the scheduler choose
 * per-job clocks with uniform caps as a backstop), and its electricity
 * price and grid carbon intensity series (a CSV file). The `facility:`
 * section. Enforcement lives in the run (models/energy/budget.c); the file
 * format and keys are in docs/scenarios.md, the model in docs/models.md. */
#ifndef WK_FACILITY_H
#define WK_FACILITY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/time.h"
#include "sim/scenario/node.h"

/* Rows of a price file at most (docs/limits.md). */
#define WK_FACILITY_MAX_TARIFF 1000000
/* Bytes of a price file at most (docs/limits.md). */
#define WK_FACILITY_MAX_BYTES (INT64_C(64) << 20)
/* The latest time of a price row: 2^61 - 1 ns, about 73 years, as every
 * time of a scenario; the series' end (one more step) stays below 2^62. */
#define WK_FACILITY_MAX_AT ((WkTime)((INT64_C(1) << 61) - 1))

typedef enum WkBudgetMode {
    WK_BUDGET_CAP = 0,  /* cap busy GPUs' clocks uniformly; hold a start only when floors cannot fit it */
    WK_BUDGET_HOLD = 1, /* hold a start that would not fit at full clock (or the clock its policy chose) */
    WK_BUDGET_POLICY = 2, /* the scheduler chooses each job's clock to fit (wk_sched_set_job_clock);
                             admission and the uniform caps of `cap` are the backstop */
} WkBudgetMode;

/* From `at` on (until the next step) the facility may draw `w`. */
typedef struct WkBudgetStep {
    WkTime at;
    double w;            /* facility W (PUE included) */
    const WkNode *where; /* its value in the scenario, for errors */
} WkBudgetStep;

/* From `at` on (until the next row) energy costs price_per_mwh and the grid
 * emits gco2_per_kwh. */
typedef struct WkTariffRow {
    WkTime at;
    double price_per_mwh;
    double gco2_per_kwh;
} WkTariffRow;

typedef struct WkFacilitySpec {
    WkBudgetStep *budget;  /* owned, by time, first at 0; NULL = no budget */
    size_t nbudget;
    int mode;              /* WkBudgetMode */
    WkTariffRow *tariff;   /* owned, by time, first at 0; NULL = no prices */
    size_t ntariff;
    WkTime tariff_end;     /* the series covers [0, tariff_end) (one more step after its last row) */
    int tariff_repeat;     /* 1: the covered span repeats */
    const WkNode *prices;  /* the `prices` key's value, for errors */
} WkFacilitySpec;

/** Read `facility:` (NULL = none: no budget, no prices) into *out (zeroed
 * first; wk_facility_fini releases it). base_dir resolves a relative
 * `prices` path. Errors name file:line:col: a negative or absent budget, an
 * unknown `on_budget`, steps out of order; in the CSV a bad header, a value
 * that is not a plain decimal number (0x10, inf, nan), a negative price or
 * intensity, times not increasing or past WK_FACILITY_MAX_AT, fewer than
 * two rows, a NUL byte, a row over 4,095 bytes; a file over
 * WK_FACILITY_MAX_BYTES at the `prices` key. A UTF-8 byte-order mark is
 * skipped. Returns 0 or a negative WK_E_*. */
int wk_facility_parse(const WkNode *sec, const char *base_dir, WkFacilitySpec *out, WkError *err);

/** The step of the budget in force at t (index into f->budget). */
size_t wk_facility_budget_step(const WkFacilitySpec *f, WkTime t);

/** The tariff row in force at t (repeat applied), or NULL past its end. */
const WkTariffRow *wk_facility_tariff_at(const WkFacilitySpec *f, WkTime t);

/** Time-weighted mean price of the series over its span (NaN without one). */
double wk_facility_price_mean(const WkFacilitySpec *f);

/** Cost and CO2 of drawing power_w from t0 to t1 (exact over the series'
 * steps): *cost (price units) and *co2_kg. Returns 0, or WK_E_RANGE when
 * [t0, t1) leaves the series (no repeat). */
int wk_facility_charge(const WkFacilitySpec *f, WkTime t0, WkTime t1, double power_w, double *cost, double *co2_kg);

/** Release what wk_facility_parse allocated. Safe on a zeroed spec. */
void wk_facility_fini(WkFacilitySpec *f);

#endif
