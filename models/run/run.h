/* SPDX-License-Identifier: Apache-2.0 */
/* run.h — one simulation run, as batch and the CLI see it: read a scenario
 * document into a cluster, a workload and a scheduler, drive the job
 * lifecycle on the engine, account every GPU-second, report a summary and an
 * HDF5 trace; also `wanka topo` and `wanka perf`. The public face of
 * models/run (layer wk_run); its parts are mapped in docs/architecture.md. */
#ifndef WK_RUN_H
#define WK_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/engine.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/trace/summary.h"
#include "models/state/opts.h"

typedef struct WkRun WkRun;

/** Read and check the whole scenario (doc borrowed; must outlive the run):
 * cluster, workload (files are read, generators run), scheduler, sim section.
 * Returns 0 and a run the caller owns (wk_run_free), or a negative code with
 * a positioned error. Nothing is written anywhere. */
int wk_run_prepare(WkRun **out, const WkDoc *doc, const WkRunOpts *opts, WkError *err);

/** Simulate to the end (all jobs done or rejected, or `sim.end`). Once only.
 * When opts->interrupt turns non-zero the run stops before the next event and
 * returns 0 with wk_run_interrupted(r) == 1: summary and trace then describe
 * the run up to that moment (the trace's root attribute `complete` is 0). */
int wk_run_execute(WkRun *r, WkError *err);

/** 1 when wk_run_execute stopped early on opts->interrupt, else 0. */
int wk_run_interrupted(const WkRun *r);

/** Fill *s with the run's summary metrics (after execute). */
int wk_run_summary(const WkRun *r, WkSummary *s, WkError *err);

/** Write the HDF5 trace to path (atomically: temp file + rename). */
int wk_run_write_trace(const WkRun *r, const char *path, WkError *err);

/** Number of jobs in the workload. */
size_t wk_run_jobs(const WkRun *r);

/** Total GPUs (of every site in a network). */
uint32_t wk_run_gpus(const WkRun *r);

/** Sites of a network (`sites:`), 0 for a single-cluster run. */
uint32_t wk_run_sites(const WkRun *r);

/** Scheduler name (a network's: its broker's) and scenario name (borrowed). */
const char *wk_run_scheduler(const WkRun *r);
const char *wk_run_name(const WkRun *r);

/** GPU-ns accounted as allocated (held by jobs, down GPUs of hung jobs
 * included), idle (neither held nor down) and down (not held) over [0, end],
 * and the end (ns). allocated + idle + down == gpus * end holds exactly (the
 * conservation test). The 128-bit values are split into 64-bit halves. */
typedef struct WkRunAccount {
    uint64_t alloc_hi, alloc_lo, idle_hi, idle_lo;
    int64_t end_ns;
    uint64_t down_hi, down_lo;
} WkRunAccount;
void wk_run_account(const WkRun *r, WkRunAccount *out);

/** Release everything. NULL is a no-op. */
void wk_run_free(WkRun *r);

/** Describe the cluster of a scenario (doc borrowed) without running it:
 * GPUs by SKU, nodes, pods, NVLink domains, switches per tier, links, optics,
 * bisection bandwidth, peak and idle power, as summary rows. Only the
 * `cluster` section is read (and the top-level keys checked). Returns 0 or a
 * positioned error. */
int wk_run_topology(const WkDoc *doc, WkSummary *out, WkError *err);

/** `wanka perf`: evaluate one training job on a cluster without simulating.
 * doc holds `model:` (a preset name or a map), `gpus:`, and optionally
 * `cluster:` (default: H100 nodes with a 400G rail-optimized fabric sized to
 * the job), `perf:` and `models:`. The job is placed on the first GPUs, its
 * ring flows share the fabric with each other. With scale[0..nscale) (GPU
 * counts), prints a scaling curve instead: DP grows at fixed TP/PP/CP with
 * the micro-batches per replica held fixed (weak scaling). flags:
 * WK_RUN_PERF_JSON (one JSON object or array), WK_RUN_PERF_OPS (the text
 * report of one job gains the operator breakdown of its bounding stage).
 * *text receives a malloc'd table or JSON (caller frees). Positioned errors. */
enum { WK_RUN_PERF_JSON = 1, WK_RUN_PERF_OPS = 2 };

int wk_run_perf(const WkDoc *doc, const uint32_t *scale, size_t nscale, unsigned flags, char **text, WkError *err);

/* A plugin as `wanka list` shows it. */
typedef struct WkPluginInfo {
    const char *name;        /* static storage */
    const char *description; /* static storage */
} WkPluginInfo;

/** Plugins of a kind ("schedulers", "brokers", "sources", "skus") into out[0..max).
 * Returns how many exist (may exceed max), or -1 for an unknown kind. */
long wk_run_plugins(const char *kind, WkPluginInfo *out, size_t max);

#endif
