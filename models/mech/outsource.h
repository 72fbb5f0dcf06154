/* SPDX-License-Identifier: Apache-2.0 */
/* outsource.h — the seed paper's §3.1 work outsourcing as a mechanism of a
 * run (section `mechanisms.outsourcing`, docs/models.md, "Work
 * outsourcing"): while no job waits, a running data-parallel model job
 * borrows idle whole nodes as more DP replicas when the performance model
 * says the time saved on its remaining iterations exceeds what growing now
 * and handing them back later cost (the elastic restart of
 * models/state/elastic.h); when a waiting job would fit if borrowed GPUs
 * were returned, the newest borrowers shrink back until it does and the
 * policy is woken. A subsystem of a run (WkRunSubsysOps): it calls only
 * down into models/state and the domain. */
#ifndef WK_MECH_OUTSOURCE_H
#define WK_MECH_OUTSOURCE_H

#include <stdint.h>

#include "models/state/state.h"

/* Which jobs may borrow and how much. */
typedef struct WkOutsourceSpec {
    uint32_t max_nodes; /* the most nodes one job borrows at once (0: as many as its batch splits into) */
    int elastic_only;   /* 1: only jobs whose model says `elastic: true` */
} WkOutsourceSpec;

/** Defaults of docs/models.md: max_nodes 0 (no cap beyond the batch),
 * elastic_only 0 (switching the mechanism on declares every model job able
 * to change its DP degree). */
void wk_outsource_defaults(WkOutsourceSpec *s);

/** Read `mechanisms:` of the scenario root (NULL or without `outsourcing:`:
 * *on = 0). Positioned errors for unknown keys and out-of-range values
 * (max_nodes 0 to the cluster's nodes, elastic_only a boolean). */
int wk_outsource_parse(const WkNode *root, const WkCluster *c, WkOutsourceSpec *out, int *on, WkError *err);

/** The borrowing rule: growing a job with `left` iterations to go from an
 * iteration time of t0_s to t1_s saves left x (t0_s - t1_s) seconds; it is
 * worth it when that exceeds grow_s + back_s (the restart now at the larger
 * count, and the one that hands the nodes back). Returns the net gain, s
 * (> 0: borrow). */
double wk_outsource_net_gain_s(double left, double t0_s, double t1_s, double grow_s, double back_s);

/* The subsystem (registered in models/run/subsys.c). */
extern const WkRunSubsysOps wk_mech_outsource;

/* What a run's outsourcing did (all 0 when the mechanism is off). */
typedef struct WkOutsourceStats {
    uint64_t lends;       /* grows onto idle nodes */
    uint64_t returns;     /* shrinks to hand GPUs back to a waiting job */
    double borrowed_gpu_s;/* GPU-seconds held beyond jobs' requests (lent GPUs x time) */
    uint32_t lent_now;    /* GPUs lent at the run's end */
} WkOutsourceStats;

/** The run's outsourcing statistics; *on = 0 (and zeros) when off. Valid
 * after the run's books closed (finish) for borrowed_gpu_s of jobs still
 * running at the end. */
WkOutsourceStats wk_outsource_stats(const WkRun *r, int *on);

#endif
