/* SPDX-License-Identifier: Apache-2.0 */
/* workload.h — the jobs of a run and the sources that produce them: an inline
 * YAML list, a synthetic generator, and trace importers. Sources are plugins
 * (a const ops struct each, a NULL-terminated registry) chosen by
 * `workload.source`. A job here is its request: submit time, GPUs, duration. */
#ifndef WK_WORKLOAD_H
#define WK_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "models/workload/model.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/core/rng.h"
#include "sim/core/time.h"

#define WK_JOB_MAX_GPUS UINT32_C(4000000)
/* Limits of a workload (docs/limits.md): at most this many jobs (a run needs
 * about 400 bytes per job, so about 2 GiB), and submit times and durations of
 * at most WK_WORKLOAD_MAX_TIME (2^61 ns, about 73 years), so that a time plus
 * a duration never overflows the 64-bit clock. */
#define WK_WORKLOAD_MAX_JOBS 5000000
#define WK_WORKLOAD_MAX_TIME (WK_TIME_NEVER / 4)

typedef struct WkJobSpec {
    WkTime submit;     /* ns from the start of the run */
    WkTime duration;   /* ns of work at full speed on its GPUs (jobs without a model) */
    uint32_t gpus;     /* GPUs it needs, all at once (gang) */
    uint32_t model;    /* 0: a plain job of fixed duration; k: WkWorkload.models[k - 1] */
    double iterations; /* model jobs: iterations to train (0: from tokens) */
    double tokens;     /* model jobs: tokens (or samples) to train, when iterations is 0 */
    int32_t priority;  /* `priority:` (higher first in priority policies), default 0 */
    int deferrable;    /* `deferrable:` 1 = may wait for cheap energy (the energy policy), default 0 */
} WkJobSpec;

typedef struct WkWorkload {
    WkJobSpec *jobs;     /* owned, in source order; job id = index */
    size_t n, cap;
    WkModelSpec *models; /* owned: the distinct model specs jobs refer to */
    size_t nmodels, capmodels;
} WkWorkload;

/* What a source may use besides its own section. */
typedef struct WkWorkloadCtx {
    const char *base_dir;     /* directory relative paths are resolved against */
    uint64_t seed;            /* scenario seed: sources derive named RNG streams */
    const WkNode *models_lib; /* the scenario's `models:` map, or NULL */
} WkWorkloadCtx;

#define WK_WORKLOAD_ABI 1
typedef struct WkWorkloadSource {
    int abi;                 /* WK_WORKLOAD_ABI; fields are only appended */
    const char *name;        /* `workload.source` value */
    const char *description; /* shown by `wanka list sources` */
    /* Fill out (empty on entry) from the section; 0 or negative WK_E_*. */
    int (*load)(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err);
} WkWorkloadSource;

extern const WkWorkloadSource wk_workload_inline;
extern const WkWorkloadSource wk_workload_synthetic;
extern const WkWorkloadSource wk_workload_philly;

/** NULL-terminated table of the built-in sources. */
const WkWorkloadSource *const *wk_workload_sources(void);

/** Load the `workload:` section: look up `source` in the registry (unknown →
 * "unknown workload source 'x' (known: inline, synthetic, philly)") and run it.
 * On failure *out is left empty. The caller owns out (wk_workload_fini). */
int wk_workload_load(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err);

/** Append a job. Returns 0, WK_E_RANGE when the workload already holds
 * WK_WORKLOAD_MAX_JOBS jobs, or WK_E_NOMEM. */
int wk_workload_push(WkWorkload *w, const WkJobSpec *job);

/** Read a job's training work from map (keys model, iterations, tokens) into
 * js: `model` (a preset, a key of `models:`, or an inline map) is parsed and
 * stored once per distinct node in w->models; exactly one of `iterations` or
 * `tokens` must accompany it. Without `model`, nothing is read (returns 0).
 * Positioned errors. */
int wk_workload_read_model(WkWorkload *w, const WkNode *map, const WkWorkloadCtx *ctx, WkJobSpec *js,
                           WkError *err);

/** Release the job array. */
void wk_workload_fini(WkWorkload *w);

/** Resolve `path` against base_dir (absolute paths are kept) into buf.
 * Returns buf, or NULL when it does not fit. */
const char *wk_workload_resolve(const char *base_dir, const char *path, char *buf, size_t n);

#endif
