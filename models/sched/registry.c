/* SPDX-License-Identifier: Apache-2.0 */
/* registry.c — the table of built-in scheduling policies, in the order
 * `wanka list schedulers` shows them. Lookup by name: wk_sched_host_lookup. */
#include "models/sched/sched.h"

static const WkSchedOps *const table[] = {
    &wk_sched_fifo,
    &wk_sched_priority,
    &wk_sched_sjf,
    &wk_sched_backfill,
    &wk_sched_las,
    &wk_sched_topo,
    &wk_sched_hetero,
    &wk_sched_slurm,
    &wk_sched_sci,
    &wk_sched_energy,
    &wk_sched_lend,
    NULL,
};

const WkSchedOps *const *wk_sched_registry(void) { return table; }
