/* SPDX-License-Identifier: Apache-2.0 */
/* cascade.h — the seed paper's §3.2 information cascade as a mechanism of a
 * run (section `mechanisms.cascade`, docs/models.md, "The information
 * cascade"): at a set time one GPU finds a better gradient-compression
 * method; the news reaches the GPUs of its NVLink domain, its rack and the
 * rest of the cluster after per-level delays, and each data-parallel model
 * job switches to the method once every one of its GPUs knows it; its DP
 * gradients then travel compressed (WkPerfEnv.grad_ratio) and its speed
 * comes from the performance model. A subsystem of a run
 * (WkRunSubsysOps): it calls only down into models/state. */
#ifndef WK_MECH_CASCADE_H
#define WK_MECH_CASCADE_H

#include <stdint.h>

#include "models/state/state.h"

/* Where and how the news spreads; units in the names. */
typedef struct WkCascadeSpec {
    WkTime at;             /* when the method is found, ns */
    uint32_t origin_gpu;   /* the GPU that finds it */
    uint32_t rack_nodes;   /* nodes per rack (consecutive nodes) */
    double nvlink_s;       /* delay to the GPUs of its NVLink domain */
    double rack_s;         /* delay to the GPUs of its rack */
    double cluster_s;      /* delay to every other GPU */
    double ratio;          /* gradient compression ratio, > 1 */
} WkCascadeSpec;

/** Defaults of docs/models.md: found at 0 by GPU 0; racks of 4 nodes (the
 * seed paper's §3.4 "rack 3" holds 32 GPUs, 4 nodes of 8); delays 1 ms,
 * 10 ms and 100 ms (the paper's §3.2); ratio 2 (BF16 gradients sent as FP8,
 * as FP8-LM's FP8 gradient all-reduce does, Peng et al. 2023). */
void wk_cascade_defaults(WkCascadeSpec *s);

/** Read `mechanisms:` of the scenario root (NULL or without `cascade:`:
 * *on = 0). Positioned errors for unknown keys and out-of-range values
 * (ratio in (1, 1000], delays in [0, 1 d], origin_gpu below the cluster's
 * GPUs, rack_nodes >= 1). */
int wk_cascade_parse(const WkNode *root, const WkCluster *c, WkCascadeSpec *out, int *on, WkError *err);

/** Delay after s->at at which GPU g knows the method (0 for the origin):
 * nvlink_s inside the origin's NVLink domain, rack_s inside its rack (the
 * nodes n with n / rack_nodes equal to the origin's), cluster_s elsewhere. */
double wk_cascade_delay_s(const WkCluster *c, const WkCascadeSpec *s, uint32_t g);

/** Delay after s->at at which every one of gpus[0..n) knows it: the largest
 * wk_cascade_delay_s over them (0 for n = 0). */
double wk_cascade_job_delay_s(const WkCluster *c, const WkCascadeSpec *s, const uint32_t *gpus, uint32_t n);

/* The subsystem (registered in models/run/subsys.c). */
extern const WkRunSubsysOps wk_mech_cascade;

/** Jobs that switched to the method so far (a switch after a restart counts
 * again); 0 when the mechanism is off. */
uint64_t wk_cascade_adopted(const WkRun *r);

#endif
