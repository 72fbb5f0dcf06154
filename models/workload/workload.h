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

/* What a job is (`kind:`): an AI job (the default: training or a plain job,
 * preemptible, elastic under elastic recovery) or a tightly coupled HPC
 * simulation (fixed size and duration, no model, never shrunk, never
 * preempted by a policy). */
typedef enum WkJobKind {
    WK_JOB_AI = 0,
    WK_JOB_HPC = 1,
} WkJobKind;

/* Most nodes a job may ask for with `nodes:` (resolved to GPUs per node x
 * nodes, which must stay within WK_JOB_MAX_GPUS). */
#define WK_JOB_MAX_NODES UINT32_C(1000000)

typedef struct WkJobSpec {
    WkTime submit;     /* ns from the start of the run */
    WkTime duration;   /* ns of work at full speed on its GPUs (jobs without a model) */
    uint32_t gpus;     /* GPUs it needs, all at once (gang) */
    uint32_t model;    /* 0: a plain job of fixed duration; k: WkWorkload.models[k - 1] */
    double iterations; /* model jobs: iterations to train (0: from tokens) */
    double tokens;     /* model jobs: tokens (or samples) to train, when iterations is 0 */
    int32_t priority;  /* `priority:` (higher first in priority policies), default 0 */
    int deferrable;    /* `deferrable:` 1 = may wait for cheap energy (the energy policy), default 0 */
    uint32_t nodes;    /* `nodes:` whole nodes asked for (gpus is then 0 until wk_workload_resolve_nodes);
                          0 = the job gave `gpus:` */
    uint8_t kind;      /* WkJobKind (`kind:`), default WK_JOB_AI */
    uint32_t user;     /* 0: no user; k: WkWorkload.users[k - 1] (`user:`, Philly's virtual cluster) */
    uint16_t gpu_milli; /* a 1-GPU job's share of its GPU in thousandths, 1 to 999 (`gpu_milli:`, the Alibaba
                           pod list's gpu_milli); 0 = whole GPUs. Shares a GPU only with workload.gpu_sharing */
} WkJobSpec;

/* Users of a workload (docs/metrics.md, "Slowdown and fairness"): at most this many distinct
 * names, each 1..WK_USER_NAME_MAX bytes of letters, digits, '_' and '-'
 * (so that `user.NAME.metric` is a summary name; docs/limits.md). */
#define WK_WORKLOAD_MAX_USERS 4096
#define WK_USER_NAME_MAX 30

typedef struct WkWorkload {
    WkJobSpec *jobs;     /* owned, in source order; job id = index */
    size_t n, cap;
    WkModelSpec *models; /* owned: the distinct model specs jobs refer to */
    size_t nmodels, capmodels;
    const WkNode *nodes_at; /* borrowed: the first `nodes:` key of the workload (error position), or NULL */
    size_t nhpc;            /* jobs of kind hpc */
    char (*users)[WK_USER_NAME_MAX + 1]; /* owned: distinct user names in first-seen order */
    size_t nusers, capusers;
    size_t user_hint; /* index of the user last looked up (wk_workload_user) */
    /* `comm:` the communication profile of plain jobs (docs/models.md,
     * "Plain jobs on the fabric"): a data-parallel all-reduce of comm_bytes
     * per GPU after comm_compute_s of compute, each iteration; 0 = none */
    double comm_bytes;
    double comm_compute_s;
    /* `quotas:` GPUs each user may hold (docs/scenarios.md, "Quotas"):
     * quota_share 1 = each user's share of the cluster in proportion to its
     * GPU-time in the workload (the run computes it); else quota, when not
     * NULL, holds one entry per user (0: no limit) */
    int quota_share;
    uint32_t *quota; /* owned, nusers entries, or NULL */
    /* `gpu_sharing:` 1 = jobs with a gpu_milli share GPUs (docs/models.md,
     * "GPU sharing"); 0 = each takes a whole GPU */
    int gpu_sharing;
    /* `sku_speed: false` (alibaba source): 1 = a plain job runs at the same
     * speed on every SKU, its duration the trace's wall time on whatever GPU
     * it ran (docs/models.md, "Job execution"); 0 (default) = its duration is
     * run time on the reference SKU, scaled by the peak ratio */
    int same_speed;
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
extern const WkWorkloadSource wk_workload_swf;
extern const WkWorkloadSource wk_workload_alibaba;
extern const WkWorkloadSource wk_workload_csv;

/** NULL-terminated table of the built-in sources (source.c). */
const WkWorkloadSource *const *wk_workload_sources(void);

/** Load the `workload:` section: look up `source` in the registry (unknown →
 * "unknown workload source 'x' (known: inline, synthetic, philly, swf, alibaba, csv)") and run it,
 * then read the optional `comm:` map (allreduce_gb in [1e-6, 1e6], compute a
 * duration in [1us, 1d]; errors positioned at the value) and `quotas:`
 * (`gpu_time`, or a map of user name to GPUs; a name no job carries, or
 * quotas on a workload without users, is an error at its key). On failure *out is left empty. The caller owns out (wk_workload_fini). */
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

/** Read a job's `kind:` (ai | hpc) and `nodes:` from map into js, and check
 * what a kind allows: an hpc job has no model, iterations or tokens; `nodes:`
 * excludes `gpus:` (the caller reads `gpus:` when js->nodes stays 0).
 * Records the first `nodes:` node in w->nodes_at. Positioned errors naming
 * the key. */
int wk_workload_read_kind(WkWorkload *w, const WkNode *map, WkJobSpec *js, WkError *err);

/** Resolve `nodes:` of every job into GPUs: gpus = nodes x gpus_per_node.
 * gpus_per_node is the cluster's GPUs per node when all its node groups
 * agree, 0 when they differ: a job giving `nodes:` is then an error
 * positioned at the first `nodes:` of the workload (file is the scenario's
 * path, for a message without a position). A result above WK_JOB_MAX_GPUS
 * is WK_E_RANGE. Returns 0 or a negative WK_E_* code. */
int wk_workload_resolve_nodes(WkWorkload *w, uint32_t gpus_per_node, const char *file, WkError *err);

/** The user id (1-based index into w->users) of name[0..len), adding the
 * name when it is new. Returns the id (> 0), or a negative WK_E_*: WK_E_INVAL
 * for an empty or too long name or a character outside [A-Za-z0-9_-],
 * WK_E_RANGE beyond WK_WORKLOAD_MAX_USERS users, WK_E_NOMEM. Sets no error:
 * the caller positions it (wk_workload_user_error gives the text). */
int wk_workload_user(WkWorkload *w, const char *name, size_t len);

/** The message for a negative result of wk_workload_user. */
const char *wk_workload_user_error(int rc);

/** Name of a WkJobKind ("ai", "hpc"). */
const char *wk_workload_kind_name(int kind);

/** Release the job array. */
void wk_workload_fini(WkWorkload *w);

#endif
