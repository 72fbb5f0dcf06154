/* SPDX-License-Identifier: Apache-2.0 */
/* division.h — the seed paper's §3.3 division of labour, for the pipeline
 * stages of a model job, with §3.4's response time as its delay (section
 * `mechanisms.division`, docs/models.md, "Division of labour"): a
 * pipeline-parallel LLM job on GPUs of unequal speed (mixed SKUs, throttled
 * GPUs) splits its layers over its stages by each stage's measured time per
 * layer, so that its slowest stage (the pipeline's bottleneck) is as fast
 * as it can be; when a stage's clock or SKU changes (a GPU throttles or
 * recovers) the job runs its old split at the new clocks until the delay
 * has passed, then splits anew. Without it a pipeline splits its layers
 * evenly and every stage runs at the job's slowest GPU. Jobs whose model
 * has `rebalance: true` (micro-batches dealt by replica speed) are left to
 * that model. A subsystem of a
 * run (WkRunSubsysOps): it calls only down into models/state. */
#ifndef WK_MECH_DIVISION_H
#define WK_MECH_DIVISION_H

#include <stdint.h>

#include "models/state/state.h"

typedef struct WkDivisionSpec {
    double delay_s; /* from a change of a stage's speed to the new split, s */
} WkDivisionSpec;

/** Defaults of docs/models.md: delay 1 s, the end of the seed paper's §3.4
 * response (detection 0-50 ms, re-routing 50-200 ms, batch re-balancing
 * 200-1000 ms after the throttle). */
void wk_division_defaults(WkDivisionSpec *s);

/** Read `mechanisms:` of the scenario root (NULL or without `division:`:
 * *on = 0). Positioned errors for unknown keys and a delay outside
 * [0, 1 d]. */
int wk_division_parse(const WkNode *root, WkDivisionSpec *out, int *on, WkError *err);

/** The split of `layers` transformer layers over `pp` stages (1 <= pp <=
 * layers) that minimises the slowest stage's time per micro-batch,
 * stage k taking n_k x layer_s[k] (+ head_s on the last stage), n_k >= 1,
 * no stage above cap[k] layers (cap NULL: none; a cap below 1 counts as 1):
 * layers dealt one at a time to the stage whose time after it is least
 * (the lowest index of equals), which is optimal for a bottleneck of
 * increasing per-stage costs. Writes n[0..pp) and returns the slowest
 * stage's time; NAN (n untouched) when the arguments admit no split
 * (pp = 0, pp > layers, the caps too small, a cost not positive). */
double wk_division_split(uint32_t layers, uint32_t pp, const double *layer_s, double head_s, const uint32_t *cap,
                         uint32_t *n);

/* The subsystem (registered in models/run/subsys.c). */
extern const WkRunSubsysOps wk_mech_division;

/** Splits applied so far (at a start and after each change); 0 when off. */
uint64_t wk_division_splits(const WkRun *r);

#endif
