/* SPDX-License-Identifier: Apache-2.0 */
/* registry.c — the table of built-in scheduling policies. */
#include "models/sched/sched.h"

#include <stdio.h>
#include <string.h>

static const WkSchedOps *const table[] = {
    &wk_sched_fifo,
    &wk_sched_priority,
    &wk_sched_sjf,
    &wk_sched_backfill,
    &wk_sched_las,
    &wk_sched_topo,
    &wk_sched_hetero,
    &wk_sched_sci,
    NULL,
};

const WkSchedOps *const *wk_sched_registry(void) { return table; }

const WkSchedOps *wk_sched_find(const char *name)
{
    for (size_t i = 0; table[i]; i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

const char *wk_sched_names(char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; table[i] && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", table[i]->name);
    return buf;
}
