/* SPDX-License-Identifier: Apache-2.0 */
/* subsys.c — the subsystems every run carries, in the order their slots
 * run: the whole registration (as Lua's linit.c). Recovery first: a job's
 * checkpoints are armed before the budget sees the new allocation; the
 * budget before idle power-down: its busy counts and chosen clocks are
 * released before idle nodes are scheduled to sleep, and its enforce step
 * (slot `changed`) is the last word on every change. Reordering this table
 * changes results (tests/golden). The paper's mechanisms (models/mech) come
 * last: off unless the scenario's `mechanisms:` names them. */
#include "models/run/run_impl.h"

const WkRunSubsysOps *const wk_run_subsys[] = {
    &wk_recovery,
    &wk_energy_budget,
    &wk_energy_sleep,
    &wk_mech_cascade,
    &wk_mech_division,
    &wk_mech_outsource,
    NULL,
};
