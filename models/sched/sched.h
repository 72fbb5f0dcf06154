/* SPDX-License-Identifier: Apache-2.0 */
/* sched.h — the scheduler plugin interface and the calls a policy may make.
 * A policy is a const WkSchedOps with a private state block the framework
 * allocates; it sees a read-only view of the cluster and jobs through a
 * WkSchedCtx and acts only through wk_sched_start / wk_sched_reject, so every
 * policy is a drop-in replacement. The run driver (models/run.c) implements
 * the context. Registry: models/sched/registry.c. */
#ifndef WK_SCHED_H
#define WK_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "models/topo/cluster.h"
#include "sim/error.h"
#include "sim/node.h"
#include "sim/time.h"

#define WK_SCHED_ABI 1

typedef struct WkSchedCtx WkSchedCtx;

typedef struct WkSchedOps {
    int abi;                 /* WK_SCHED_ABI; fields are only appended */
    const char *name;        /* `scheduler:` value in a scenario */
    const char *description; /* shown by `wanka list schedulers` */
    size_t priv_size;        /* bytes of private state, zeroed by the framework */
    /* Read parameters (params: the `scheduler:` map, or NULL when the
     * scenario gives only a name; unknown keys are the policy's to refuse). */
    int (*init)(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err);
    /* A job arrived: queue it, start it, or reject it. */
    int (*on_submit)(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err);
    /* GPUs were freed (a job ended): start what now fits. */
    int (*on_release)(void *priv, WkSchedCtx *ctx, WkError *err);
    /* Jobs waiting in the policy's queue. */
    size_t (*queued)(const void *priv);
    void (*fini)(void *priv); /* optional */
} WkSchedOps;

/* --- registry (models/sched/registry.c) --- */

/** NULL-terminated table of the built-in policies. */
const WkSchedOps *const *wk_sched_registry(void);

/** The policy called name, or NULL. */
const WkSchedOps *wk_sched_find(const char *name);

/** Comma-separated policy names into buf ("fifo, ..."), for error messages. */
const char *wk_sched_names(char *buf, size_t n);

/* --- read-only view (implemented by the run driver) --- */

/** The cluster's shape (borrowed). */
const WkCluster *wk_sched_cluster(const WkSchedCtx *ctx);
/** Current simulated time. */
WkTime wk_sched_now(const WkSchedCtx *ctx);
/** GPUs not allocated to any job. */
uint32_t wk_sched_free_gpus(const WkSchedCtx *ctx);
/** 1 when gpu is free. */
int wk_sched_gpu_is_free(const WkSchedCtx *ctx, uint32_t gpu);
/** GPUs job asks for. */
uint32_t wk_sched_job_gpus(const WkSchedCtx *ctx, uint32_t job);
/** Submit time of job. */
WkTime wk_sched_job_submit(const WkSchedCtx *ctx, uint32_t job);

/** First-fit placement: the n lowest-numbered free GPUs into out[0..n).
 * Returns 0, or WK_E_RANGE when fewer than n are free (out untouched). */
int wk_sched_first_fit(const WkSchedCtx *ctx, uint32_t n, uint32_t *out);

/* --- actions --- */

/** Start job now on gpus[0..n) (borrowed; n must equal the job's request,
 * every GPU free and distinct). Returns 0, or WK_E_INTERNAL for a policy bug
 * (wrong count, busy GPU, job not waiting), or WK_E_NOMEM. */
int wk_sched_start(WkSchedCtx *ctx, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);

/** Refuse job for good (it can never run here), with a short reason that is
 * counted in the summary. Returns 0 or WK_E_INTERNAL (job not waiting). */
int wk_sched_reject(WkSchedCtx *ctx, uint32_t job, const char *reason, WkError *err);

extern const WkSchedOps wk_sched_fifo;

#endif
