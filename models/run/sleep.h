/* SPDX-License-Identifier: Apache-2.0 */
/* sleep.h — idle power-down during a run (cluster.power.sleep_after): a
 * node no job has held for sleep_after powers down (its GPUs draw sleep_w);
 * a job placed on a sleeping node waits wake_latency before it makes
 * progress. Counts the energy saved and the start delays. The model and its
 * choices: docs/models.md, "Idle power-down". Private to models/run. */
#ifndef WK_RUN_SLEEP_H
#define WK_RUN_SLEEP_H

#include <stdint.h>

#include "sim/core/time.h"

typedef struct WkRunSleep {
    uint32_t *gen;     /* [nodes] bumped when a job takes the node: older sleep events are stale */
    WkTime *since;     /* [nodes] when it went to sleep */
    double saved_j;    /* facility energy not drawn by sleeping nodes (idle − sleep draw, PUE included), J */
    uint64_t delays;   /* job starts that waited for a node to wake */
    double delay_s;    /* start delay those waits added, s */
} WkRunSleep;

#endif
