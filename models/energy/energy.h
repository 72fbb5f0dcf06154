/* SPDX-License-Identifier: Apache-2.0 */
/* energy.h — the energy subsystems of a run, as the driver attaches them:
 * the facility power budget with the clocks schedulers choose per job
 * (budget.h) and idle power-down (sleep.h). Each is a WkRunSubsysOps; its
 * state block is a WkRunBudget / WkRunSleep (wk_run_sub). They call only
 * down into models/state, never the driver nor each other. */
#ifndef WK_ENERGY_H
#define WK_ENERGY_H

#include "models/energy/budget.h"
#include "models/energy/sleep.h"
#include "models/state/state.h"

/** The facility budget: admit (veto), held/released (busy counts and chosen
 * clocks), changed (enforce: the site clock, the facility row), settled and
 * rated (the chosen clocks' trade-off), sampled, finish. */
extern const WkRunSubsysOps wk_energy_budget;

/** Idle power-down: placing (a sleeping node wakes: the start delay),
 * released (idle nodes may sleep), finish (the saving of nodes asleep). */
extern const WkRunSubsysOps wk_energy_sleep;

#endif
