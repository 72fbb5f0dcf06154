/* SPDX-License-Identifier: Apache-2.0 */
/* sim.h — a scenario, whether one cluster or a network of sites, as batch,
 * the CLI and tests run it: a doc with top-level `sites:` becomes a network
 * (models/network), any other a single run (models/run/run.h). */
#ifndef WK_SIM_H
#define WK_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "models/run/run.h"

typedef struct WkSim WkSim;

/** Read and check the whole scenario (doc borrowed; must outlive the sim;
 * opts copied, its arrays borrowed): a network with `sites:`, else as
 * wk_run_prepare. Returns 0 and a sim the caller owns (wk_sim_free), or a
 * negative code with a positioned error. Nothing is written anywhere. */
int wk_sim_prepare(WkSim **out, const WkDoc *doc, const WkRunOpts *opts, WkError *err);

/** Simulate to the end, once (as wk_run_execute; a network runs its sites
 * in lockstep). Stopped early on opts->interrupt: 0 and wk_sim_interrupted
 * 1, summary and trace then describe the run up to that moment. */
int wk_sim_execute(WkSim *s, WkError *err);

/** 1 when wk_sim_execute stopped early on opts->interrupt, else 0. */
int wk_sim_interrupted(const WkSim *s);

/** Fill *out with the summary metrics (after execute). */
int wk_sim_summary(const WkSim *s, WkSummary *out, WkError *err);

/** Write the HDF5 trace to path (atomically: temp file + rename). */
int wk_sim_write_trace(const WkSim *s, const char *path, WkError *err);

/** Jobs in the workload. */
size_t wk_sim_jobs(const WkSim *s);

/** GPUs (of every site in a network). */
uint32_t wk_sim_gpus(const WkSim *s);

/** Sites of a network, 0 for a single cluster. */
uint32_t wk_sim_sites(const WkSim *s);

/** Scheduler name (a network's: its broker's) and scenario name (borrowed). */
const char *wk_sim_scheduler(const WkSim *s);
const char *wk_sim_name(const WkSim *s);

/** GPU-time allocated, idle and down over [0, end] (every site's summed),
 * as wk_run_account. */
void wk_sim_account(const WkSim *s, WkRunAccount *out);

/** The single run (borrowed), or NULL for a network: for tests that read a
 * run through models/run/hooks.h. */
WkRun *wk_sim_run(WkSim *s);

/** Release everything. NULL is a no-op. */
void wk_sim_free(WkSim *s);

#endif
