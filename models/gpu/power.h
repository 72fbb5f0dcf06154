/* SPDX-License-Identifier: Apache-2.0 */
/* power.h — the power model: a GPU draws idle + (TDP − idle) × activity ×
 * clock factor (0 when down); switches draw a fixed power per port and optical
 * modules a fixed power each; the facility multiplies IT power by its PUE.
 * Equations and sources: docs/models.md. */
#ifndef WK_GPU_POWER_H
#define WK_GPU_POWER_H

#include "models/gpu/catalog.h"
#include "sim/core/error.h"
#include "sim/core/time.h"
#include "sim/scenario/node.h"

typedef enum WkGpuHealth {
    WK_GPU_UP = 0,        /* healthy, nominal clock */
    WK_GPU_DOWN = 1,      /* failed or powered off: unusable, draws nothing */
    WK_GPU_THROTTLED = 2, /* usable at clock factor < 1 */
} WkGpuHealth;

typedef struct WkPowerSpec {
    double pue;            /* facility power / IT power, >= 1 */
    double switch_port_w;  /* W per switch port (ASIC, fans; optics excluded) */
    double optic_w;        /* W per optical module */
    double busy_activity;  /* activity of a GPU allocated to a running job, in (0, 1] */
    double cap_w;          /* power limit of every GPU, W (a group's `power_cap_w` overrides); 0 = none */
    double clock_mhz;      /* locked SM clock of every GPU, MHz (a group's `clock_mhz` overrides); 0 = none */
    double compute_share;  /* plain jobs: share of run time that scales with the SM clock, [0, 1] */
    WkTime sleep_after;    /* a node with no job for this long powers down; 0 = never */
    WkTime wake_latency;   /* a job starting on a sleeping node waits this long */
    double sleep_w;        /* draw of a GPU of a sleeping node, W */
    int model_activity;    /* 1: a model job's activity follows its compute/memory/other time split */
    double memory_activity; /* activity of memory-bound operator time, relative to compute-bound, [0, 1] */
    double other_activity;  /* activity of the rest of an iteration (communication, bubble, launch gaps), [0, 1] */
} WkPowerSpec;

/** Defaults: PUE 1.2, 12 W per switch port, 10 W per optical module,
 * busy activity 1.0, no cap, no clock lock, compute share 1, no sleep
 * (wake latency 5 min, 0 W asleep when enabled) (sources and caveats in
 * docs/models.md). */
WkPowerSpec wk_power_defaults(void);

/** Read `cluster.power` (NULL = defaults) into *out. Positioned errors. */
int wk_power_parse(const WkNode *sec, WkPowerSpec *out, WkError *err);

/** Activity of a model job's GPU from its iteration split: busy x (compute_s
 * + memory_s x mem_act + (iter_s - compute_s - memory_s) x other_act) /
 * iter_s, the time-weighted mean of compute-bound time at `busy`, memory-
 * bound operator time at busy x mem_act and the rest at busy x other_act.
 * busy when iter_s <= 0 or no operator time is known (compute_s + memory_s
 * <= 0). Never above busy (mem_act, other_act in [0, 1]). */
double wk_power_split_activity(double busy, double compute_s, double memory_s, double iter_s, double mem_act,
                               double other_act);

/** Power of one GPU, W: idle + (tdp − idle) × activity × clock for an UP or
 * THROTTLED GPU (activity in [0,1], clock in (0,1]); 0 when DOWN. */
double wk_power_gpu_w(const WkGpuSku *sku, WkGpuHealth health, double clock, double activity);

#endif
