/* SPDX-License-Identifier: Apache-2.0 */
/* opts.h — what a caller hands a run: its options (seed, scheduler, plugins,
 * progress and interrupt hooks) and the longest simulated time. Shared by the
 * run's state (models/state) and its public face (models/run/run.h). */
#ifndef WK_STATE_OPTS_H
#define WK_STATE_OPTS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/engine.h"

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

#endif
