/* SPDX-License-Identifier: Apache-2.0 */
/* run.h — one simulation run, as batch and the CLI see it: read a scenario
 * document into a cluster, a workload and a scheduler, drive the job
 * lifecycle on the engine, account every GPU-second, report a summary and an
 * HDF5 trace. The public face of models/run (layer wk_run); its parts are
 * mapped in docs/architecture.md. */
#ifndef WK_RUN_H
#define WK_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/engine.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/trace/summary.h"

/* The longest simulated time of a run (2^62 ns, about 146 years; docs/limits.md):
 * `sim.end` is at most this, and a run without it that is still going then
 * fails with WK_E_RANGE. Any time plus any duration then fits in 64 bits. */
#define WK_RUN_MAX_TIME (WK_TIME_NEVER / 2)

typedef struct WkRunOpts {
    int has_seed;              /* 1: seed overrides the scenario's */
    uint64_t seed;
    const char *scheduler;     /* overrides `scheduler:` when non-NULL */
    const char *const *plugins; /* shared objects of policies to load (paths as
                                   given: relative to the working directory),
                                   besides the scenario's `plugins:` */
    size_t nplugins;
    WkProgressFn progress;     /* optional progress hook */
    void *progress_user;
    const char *const *sets;   /* the --set overrides applied, for the trace */
    size_t nsets;
    const volatile sig_atomic_t *interrupt; /* optional: non-zero stops the run at the
                                               next event (wk_engine_set_interrupt) */
    const char *broker;        /* a network (`sites:`): overrides `broker:` when non-NULL */
    const char *const *broker_plugins; /* shared objects of brokers to load (paths as given:
                                          relative to the working directory), besides
                                          the scenario's `broker: {plugin: ...}` */
    size_t nbroker_plugins;
} WkRunOpts;

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

/* A plugin as `wanka list` shows it. */
typedef struct WkPluginInfo {
    const char *name;        /* static storage */
    const char *description; /* static storage */
} WkPluginInfo;

/** Plugins of a kind ("schedulers", "brokers", "sources", "skus") into out[0..max).
 * Returns how many exist (may exceed max), or -1 for an unknown kind. */
long wk_run_plugins(const char *kind, WkPluginInfo *out, size_t max);

#endif
