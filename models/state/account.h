/* SPDX-License-Identifier: Apache-2.0 */
/* account.h — the accounting layer of a run: every change of allocation,
 * health or power passes through wk_account_to first, which integrates
 * GPU-time (allocated, idle, down: they sum to GPUs x time exactly) and
 * facility energy up to that moment; the cluster time series; and the
 * record of every finished allocation (per-GPU statistics). Owns that state;
 * the summary and the trace read it (models/run/run_report.c). */
#ifndef WK_ACCOUNT_H
#define WK_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "models/facility/facility.h"
#include "models/gpu/power.h"
#include "models/state/pool.h"
#include "models/state/types.h"
#include "sim/core/time.h"

__extension__ typedef unsigned __int128 wk_u128;

/* Rows of timeseries/cluster (32 bytes each) at most (docs/limits.md). */
#define WK_RUN_MAX_SAMPLES 10000000

/* What a segment records. A shared GPU (GPU sharing) is allocated once
 * over the time any tenant is on it (WK_SEG_SHARED), while each tenant's
 * own stay (WK_SEG_TENANT) only places it: per-GPU and per-pod statistics
 * and energy read JOB and SHARED segments, the placement table JOB and
 * TENANT ones. */
enum { WK_SEG_JOB, WK_SEG_TENANT, WK_SEG_SHARED };

/* One finished allocation of GPUs to a job (per-GPU statistics, and the
 * trace's placement table). */
typedef struct WkAllocSeg {
    WkTime from, to;
    uint32_t *gpus; /* owned copy */
    uint32_t n;
    uint32_t job;   /* the job that held them (workload index); UINT32_MAX for WK_SEG_SHARED */
    uint8_t kind;   /* WK_SEG_* */
} WkAllocSeg;

/** 1 when segment s counts as allocated GPU-time (per GPU, per pod, energy). */
static inline int wk_seg_allocated(const WkAllocSeg *s) { return s->kind != WK_SEG_TENANT; }

typedef struct WkAccount {
    wk_u128 alloc_ns;    /* GPU-ns held by jobs over [0, last_t] (down ones of hung jobs included) */
    wk_u128 idle_ns;     /* GPU-ns neither held nor down */
    wk_u128 down_ns;     /* GPU-ns down and not held */
    double gpu_power_w;  /* sum of the GPUs' draw now, W */
    double net_power_w;  /* switches and optics, W (constant) */
    double energy_j;     /* facility energy over [0, last_t], J (PUE included) */
    const WkFacilitySpec *fac; /* borrowed: its price series (NULL or none: no cost) */
    double cost;         /* energy cost over [0, last_t], in the price series' currency */
    double co2_kg;       /* grid CO2 over [0, last_t], kg */
    WkTime last_t;       /* integrals reach up to here */
    WkSampleRow *samples;
    size_t nsamples, capsamples;
    WkAllocSeg *segs;    /* every finished allocation: who held which GPUs when */
    size_t nsegs, capsegs;
} WkAccount;

/** Integrate up to now with the pool's current state (p borrowed): the
 * GPU-time integrals and the energy at the current power. now before
 * last_t is a no-op. */
void wk_account_to(WkAccount *a, const WkPool *p, WkTime now);

/** Draw of GPU g of c now, busy (held by a running job) or idle, W: a busy
 * GPU draws at its job's activity (c->gpu_act: busy_activity or, with
 * power.model_activity, its model job's) and its
 * dynamic power scales by g(f) at its cap clock (exactly 1 uncapped). */
static inline double wk_account_gpu_draw(const WkCluster *c, uint32_t g, int busy)
{
    if (!busy && c->node_asleep && c->node_asleep[c->gpu_node[g]] && c->health[g] != WK_GPU_DOWN)
        return c->power.sleep_w; /* its node is powered down */
    double act = busy ? c->gpu_act[g] : 0.0;
    if (busy && (c->capped | c->site_capped))
        act *= wk_cluster_cap_power(c, g);
    return wk_power_gpu_w(wk_cluster_sku_of(c, g), (WkGpuHealth)c->health[g], c->clock[g], act);
}

/** Facility power now, W (PUE included). */
double wk_account_power_w(const WkAccount *a, const WkCluster *c);

/** Append a time-series row for now (a row already at now is replaced: a
 * row is the state after every event at its instant). Returns 0 or
 * WK_E_NOMEM. */
int wk_account_sample(WkAccount *a, const WkCluster *c, WkTime now, uint32_t allocated, uint32_t running,
                      size_t queued);

/** 1 when the last row is at now (so a change at now must rewrite it). */
int wk_account_sampled_at(const WkAccount *a, WkTime now);

/** Record that job held gpus[0..n) (copied) over [from, to). An empty
 * interval is not recorded. Returns 0 or WK_E_NOMEM (with err filled). */
int wk_account_segment(WkAccount *a, uint32_t job, WkTime from, WkTime to, const uint32_t *gpus, uint32_t n,
                       WkError *err);

/** As wk_account_segment, of kind WK_SEG_* (wk_account_segment records
 * WK_SEG_JOB; a WK_SEG_SHARED segment's job is ignored). */
int wk_account_segment_kind(WkAccount *a, int kind, uint32_t job, WkTime from, WkTime to, const uint32_t *gpus,
                            uint32_t n, WkError *err);

/* Bins of timeseries/pods at most, and rows (bins x pods) at most. */
#define WK_RUN_POD_BINS 1000
#define WK_RUN_POD_ROWS 1000000

/* One row of timeseries/pods: a pod's mean allocation over one time bin. */
typedef struct WkPodRow {
    int64_t time_ns;  /* bin start */
    int64_t span_ns;  /* bin length (the last bin ends at the end of the run) */
    double allocated; /* GPU-time held by jobs in the pod over the bin / span, GPUs */
    uint32_t pod;
    uint32_t gpus;    /* GPUs in the pod */
} WkPodRow;

/** Per-pod utilization over time from the allocation record (a's segments,
 * which must include the open ones: wk_lifecycle_record_open): [0, end)
 * cut into bins of `interval` ns, widened so that there are at most
 * WK_RUN_POD_BINS bins and WK_RUN_POD_ROWS rows; one row per bin and pod,
 * bins in time order, pods in index order. *out (malloc'd, caller frees) and
 * *n; *out NULL and *n 0 when end <= 0 or the cluster has no pod. Returns 0
 * or WK_E_NOMEM (with err filled). */
int wk_account_pod_series(const WkAccount *a, const WkCluster *c, WkTime end, WkTime interval, WkPodRow **out,
                          size_t *n, WkError *err);

/* One row of the trace's placement table: job held GPUs gpu .. gpu + gpus - 1
 * (indices within the node) of each node node .. node + nodes - 1 over
 * [start_ns, end_ns), in its segment-th allocation. */
typedef struct WkPlaceRow {
    int64_t start_ns, end_ns;
    uint32_t job, segment;
    uint32_t node, nodes;
    uint32_t gpu, gpus;
} WkPlaceRow;

/** The placement table from the allocation record (a's segments, which must
 * include the open ones: wk_lifecycle_record_open) on cluster c: each
 * segment's GPUs as runs of consecutive nodes on which it held the same
 * consecutive GPUs (a GPU set a run cannot describe takes several rows).
 * Segments of a job are numbered from 0 in time order; rows are ordered by
 * job, segment, then node. *out (malloc'd, caller frees; NULL when there is
 * no segment) and *n. Returns 0 or WK_E_NOMEM (with err filled). */
int wk_account_placement(const WkAccount *a, const WkCluster *c, WkPlaceRow **out, size_t *n, WkError *err);

/** Release the tables. Safe on a zeroed account. */
void wk_account_fini(WkAccount *a);

#endif
