/* SPDX-License-Identifier: Apache-2.0 */
/* host.h — the side of the scheduler interface that hosts a policy: the
 * table of context operations a run driver implements (WkSchedHostOps), the
 * context itself, and a policy instance whose wrappers own the checks of
 * optional methods and of the ABI. Policies never include this header; the
 * run driver (models/run) and tests do. The wk_sched_* calls of sched.h
 * forward to the host table, so models/sched knows nothing of the run. */
#ifndef WK_SCHED_HOST_H
#define WK_SCHED_HOST_H

#include "models/sched/sched.h"

/* What a host provides; every member is required. `host` is the pointer
 * given in WkSchedCtx. The meaning of each is that of the wk_sched_* call of
 * the same name in sched.h. */
typedef struct WkSchedHostOps {
    const WkCluster *(*cluster)(const void *host);
    WkTime (*now)(const void *host);
    uint64_t (*seed)(const void *host);
    uint32_t (*free_gpus)(const void *host);
    uint32_t (*usable_gpus)(const void *host);
    int (*gpu_is_free)(const void *host, uint32_t gpu);
    int (*gpu_health)(const void *host, uint32_t gpu);
    uint32_t (*node_free)(const void *host, uint32_t node);
    uint32_t (*pod_free)(const void *host, uint32_t pod);
    uint32_t (*job_gpus)(const void *host, uint32_t job);
    WkTime (*job_submit)(const void *host, uint32_t job);
    int (*job_priority)(const void *host, uint32_t job);
    double (*job_estimate_s)(const void *host, uint32_t job);
    double (*job_remaining_s)(const void *host, uint32_t job);
    double (*job_attained_gpu_s)(const void *host, uint32_t job);
    int (*job_running)(const void *host, uint32_t job);
    int (*job_preemptible)(const void *host, uint32_t job);
    const uint32_t *(*job_placement)(const void *host, uint32_t job, uint32_t *n);
    double (*job_iter_s_on)(const void *host, uint32_t job, const uint32_t *gpus, uint32_t n);
    WkPlacement (*placement)(const void *host);
    int (*place_with)(const void *host, WkPlacement how, uint32_t n, uint32_t *out,
                      int (*allowed)(uint32_t gpu, void *user), void *user);
    int (*start)(void *host, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);
    int (*preempt)(void *host, uint32_t job, WkError *err);
    int (*reject)(void *host, uint32_t job, const char *reason, WkError *err);
    double (*power_headroom_w)(const void *host);
    double (*job_power_w)(const void *host, uint32_t job);
    int (*job_deferrable)(const void *host, uint32_t job);
    double (*price_now)(const void *host);
    double (*price_mean)(const void *host);
    int (*job_kind)(const void *host, uint32_t job);
    int (*budget_mode)(const void *host);
    double (*job_clock_floor)(const void *host, uint32_t job);
    double (*job_power_at_w)(const void *host, uint32_t job, double clock, double *idle_w);
    double (*job_time_factor)(const void *host, uint32_t job, double clock);
    int (*set_job_clock)(void *host, uint32_t job, double clock, WkError *err);
    double (*job_mem_need)(const void *host, uint32_t job);
    const uint64_t *(*node_gens)(const void *host, uint64_t *gen);
} WkSchedHostOps;

struct WkSchedCtx {
    const WkSchedHostOps *ops; /* borrowed, static in the host */
    void *host;                /* the host's state (a run) */
};

/* One policy instance: its ops, its private state, its context. */
typedef struct WkSchedInst {
    const WkSchedOps *ops; /* borrowed (static) */
    void *priv;            /* owned: ops->priv_size bytes, zeroed */
    int ready;             /* init succeeded: fini is due */
    WkSchedCtx ctx;
} WkSchedInst;

/** The policy called name in table (a NULL-terminated list; NULL = the
 * built-in registry), checked for the ABI this build speaks. Returns 0 and
 * *out, WK_E_NOTFOUND with "unknown scheduler 'x' (known: ...)" positioned
 * at where (NULL: at `--scheduler`), or WK_E_INVAL for an ABI mismatch. */
int wk_sched_host_lookup(const WkSchedOps *const *table, const char *name, const WkNode *where,
                         const WkSchedOps **out, WkError *err);

/** Open ops on the host: allocate its private state, point its context at
 * (host_ops, host), call init with params (borrowed, may be NULL). On
 * failure nothing is left to close. */
int wk_sched_host_open(WkSchedInst *si, const WkSchedOps *ops, const WkNode *params,
                       const WkSchedHostOps *host_ops, void *host, WkError *err);

/** Call fini (when init succeeded) and free the private state. Idempotent. */
void wk_sched_host_close(WkSchedInst *si);

/** The policy's callbacks. tick is a no-op for a policy without on_tick;
 * incident hands jobs to on_incident, or to on_submit one by one for a
 * policy without it, then calls on_release (the survivors' GPUs are free). */
int wk_sched_host_submit(WkSchedInst *si, uint32_t job, WkError *err);
int wk_sched_host_release(WkSchedInst *si, WkError *err);
int wk_sched_host_tick(WkSchedInst *si, WkError *err);
int wk_sched_host_incident(WkSchedInst *si, const uint32_t *jobs, size_t njobs, WkError *err);
size_t wk_sched_host_queued(const WkSchedInst *si);

#endif
