/* SPDX-License-Identifier: Apache-2.0 */
/* sleep.h — idle power-down during a run (cluster.power.sleep_after): a
 * node no job has held for sleep_after powers down (its GPUs draw sleep_w);
 * a job placed on a sleeping node waits wake_latency before it makes
 * progress. Counts the energy saved and the start delays. The model and its
 * choices: docs/models.md, "Idle power-down". Private to models/energy and the driver. */
#ifndef WK_RUN_SLEEP_H
#define WK_RUN_SLEEP_H

#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/time.h"

typedef struct WkRunSleep {
    struct WkRun *r;   /* the run it belongs to (borrowed) */
    uint32_t *gen;     /* [nodes] bumped when a job takes the node: older sleep events are stale */
    WkTime *since;     /* [nodes] when it went to sleep */
    double saved_j;    /* facility energy not drawn by sleeping nodes (idle − sleep draw, PUE included), J */
    uint64_t delays;   /* job starts that waited for a node to wake */
    double delay_s;    /* start delay those waits added, s */
} WkRunSleep;

struct WkRun;

/** Idle power-down of a run (sleep.c; no-ops when cluster.power.sleep_after
 * is 0). start: every node may sleep after sleep_after from 0. wake: a job
 * takes gpus[0..n) now: their sleeping nodes wake; returns the wake latency
 * when one slept, else 0. delayed: count a start delayed by `extra` ns.
 * released: nodes of gpus[0..n) left without a job may sleep after
 * sleep_after. finish: the saving of nodes still asleep at the end. */
int wk_sleep_start(struct WkRun *r, WkRunSleep *sl, WkError *err);
WkTime wk_sleep_wake(struct WkRun *r, WkRunSleep *sl, const uint32_t *gpus, uint32_t n, WkTime now);
void wk_sleep_delayed(WkRunSleep *sl, WkTime extra);
int wk_sleep_released(struct WkRun *r, WkRunSleep *sl, const uint32_t *gpus, uint32_t n, WkTime now, WkError *err);
void wk_sleep_finish(struct WkRun *r, WkRunSleep *sl, WkTime end);
void wk_sleep_fini(WkRunSleep *sl);

#endif
