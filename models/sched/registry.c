/* SPDX-License-Identifier: Apache-2.0 */
/* registry.c — the table of built-in scheduling policies, in the order
 * `wanka list schedulers` shows them, and lookup by name with the ABI check
 * (wk_sched_host_lookup). The only file that names every policy. */
#include "models/sched/host.h"

#include <stdio.h>
#include <string.h>

static const WkSchedOps *const builtins[] = {
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

const WkSchedOps *const *wk_sched_registry(void) { return builtins; }

int wk_sched_host_lookup(const WkSchedOps *const *table, const char *name, const WkNode *where,
                         const WkSchedOps **out, WkError *err)
{
    if (!table)
        table = wk_sched_registry();
    const WkSchedOps *ops = NULL;
    for (size_t i = 0; table[i] && !ops; i++)
        if (strcmp(table[i]->name, name) == 0)
            ops = table[i];
    if (!ops) {
        char known[512];
        size_t used = 0;
        known[0] = '\0';
        for (size_t i = 0; table[i] && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", table[i]->name);
        if (where)
            return wk_node_error(where, WK_E_NOTFOUND, err, "unknown scheduler '%s' (known: %s)", name, known);
        return wk_error_set(err, WK_E_NOTFOUND, "--scheduler", 0, 0, "unknown scheduler '%s' (known: %s)", name,
                            known);
    }
    if (ops->abi != WK_SCHED_ABI)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "scheduler %s: ABI %d, this wanka speaks %d", name, ops->abi,
                            WK_SCHED_ABI);
    *out = ops;
    return 0;
}
