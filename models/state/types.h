/* SPDX-License-Identifier: Apache-2.0 */
/* types.h — what a run's callers and its state share: the run's options and
 * time limit, a job's state, the network's view handed to a site run, a
 * row of the cluster time series. Included by models/run/run.h (the public
 * face) and models/state/state.h (the state every layer of a run shares). */
#ifndef WK_STATE_TYPES_H
#define WK_STATE_TYPES_H

#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/engine.h"

/* The longest simulated time of a run (2^62 ns, about 146 years; docs/limits.md):
 * `sim.end` is at most this, and a run without it that is still going then
 * fails with WK_E_RANGE. Any time plus any duration then fits in 64 bits. */
#define WK_RUN_MAX_TIME (WK_TIME_NEVER / 2)

/** The time dur_s seconds (>= 0, may be +inf) after `from` (in [0,
 * WK_RUN_MAX_TIME]), the duration rounded up to the ns and added in integer
 * ns (never through a double sum: past 2^53 ns, about 104 days, a double
 * holds only even ns and `from` itself would round); WK_RUN_MAX_TIME + 1
 * (never reached: the run stops first) when it would land past the limit. */
static inline WkTime wk_run_time_after(WkTime from, double dur_s)
{
    double d = ceil(dur_s * 1e9);
    if (!(d < 9.2e18)) /* also NaN */
        return WK_RUN_MAX_TIME + 1;
    WkTime di = d > 0 ? (WkTime)d : 0;
    return di <= WK_RUN_MAX_TIME - from ? from + di : WK_RUN_MAX_TIME + 1;
}

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
    const char *broker;        /* a network (`sites:`, models/network): overrides `broker:` when non-NULL */
    const char *const *broker_plugins; /* shared objects of brokers to load (paths as given:
                                          relative to the working directory), besides
                                          the scenario's `broker: {plugin: ...}` */
    size_t nbroker_plugins;
} WkRunOpts;

/* A job's state in a run. */
typedef enum WkJobState {
    WK_JOB_PENDING = 0, /* not yet submitted (only before the run ends early) */
    WK_JOB_QUEUED,      /* submitted, waiting for GPUs */
    WK_JOB_RUNNING,
    WK_JOB_COMPLETED,
    WK_JOB_REJECTED,    /* can never run on this cluster */
} WkJobState;

/* Bits of a site's part flags (WkRunSite.part), per job. */
#define WK_NET_PART 1u /* this site runs a part of a job spanning sites */
#define WK_NET_HELD 2u /* the part holds its GPUs without progress: its gang is not all running */

/* The network's view handed to a site: which jobs come here and when. */
typedef struct WkRunSite {
    uint32_t index;        /* this site's position in `sites:` */
    const int32_t *assign; /* borrowed, per job: its site (-1: none); set before the job's submission */
    const WkTime *delay;   /* borrowed, per job: WAN transfer time before it reaches its site */
    uint64_t salt;         /* mixed into the engine's seed: the site's own failure streams */
    uint8_t *ok;           /* owned, per job: 1 when this site can run it (wk_progress_check) */
    uint8_t *part;         /* borrowed, per job: WK_NET_PART (a part of a job spanning sites runs here)
                            * | WK_NET_HELD (it makes no progress); NULL when no job spans sites */
} WkRunSite;

/* One row of timeseries/cluster. */
typedef struct WkSampleRow {
    int64_t time_ns;
    uint32_t allocated_gpus;
    uint32_t running_jobs;
    uint32_t queued_jobs;
    double power_w; /* facility power (PUE included) */
} WkSampleRow;

#endif
