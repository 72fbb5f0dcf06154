/* SPDX-License-Identifier: Apache-2.0 */
/* sched.h — the scheduler interface as the built-in policies see it: the
 * public interface (include/wanka/sched.h, installed for plugins: WkSchedOps,
 * the context calls) plus what only built-ins use (the whole WkCluster, the
 * registry). Including both here makes the compiler check that the public
 * declarations agree with the internal ones. The host side (the context's
 * table, instances) is in host.h; the run driver (models/run) implements it.
 * Registry and lookup: models/sched/registry.c; plugins: models/sched/plugin.c. */
#ifndef WK_SCHED_H
#define WK_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "models/gpu/power.h"
#include "models/topo/cluster.h"
#include "sim/core/error.h"
#include "sim/core/time.h"
#include "sim/scenario/node.h"
#include "wanka/sched.h"

/* --- registry (models/sched/registry.c) --- */

/** NULL-terminated table of the built-in policies (static). Look a name up
 * with wk_sched_host_lookup (host.h), which also checks the ABI. */
const WkSchedOps *const *wk_sched_registry(void);

/** The cluster's shape (borrowed): for built-in policies, which may read
 * the whole WkCluster; plugins use the accessors of wanka/sched.h. */
const WkCluster *wk_sched_cluster(const WkSchedCtx *ctx);

/** GPU memory job needs per GPU (bytes) where it does not fit every GPU of
 * the cluster, or 0 when it fits every one (a plain job, a cluster of one
 * GPU memory size, a job within the smallest memory). GPU g holds the job
 * when wk_sched_cluster's SKU of g has hbm_bytes >= the result
 * (wk_sched_job_fits_gpu). For built-ins that filter GPUs in bulk (sci). */
double wk_sched_job_mem_need(const WkSchedCtx *ctx, uint32_t job);

/** Change stamps of the GPU states (free or not, down or not) per node, so
 * that a policy keeping its own copy of them re-reads only what changed:
 * returns the host's array [nodes] (borrowed, read-only, valid while the
 * run is; it changes as the run goes on) where entry nd is the host's
 * change count just after the last change of one of nd's GPUs (0 = none
 * yet), and *gen = the change count now. A node whose entry is <= the *gen
 * of an earlier call has not changed since. O(1). */
const uint64_t *wk_sched_node_gens(const WkSchedCtx *ctx, uint64_t *gen);

/** Whether a site whose `scheduler:` section is sched (a policy name, a
 * map, or NULL for the default) accepts AI jobs (`kind: ai`): *out = 0 only
 * for `lend` with `lend: false`, which rejects them at submission; every
 * other policy runs both kinds. For a broker choosing sites. Returns 0, or
 * the positioned error of a bad `name`/`lend` value. sched is borrowed. */
int wk_sched_lend_accepts_ai(const WkNode *sched, int *out, WkError *err);

extern const WkSchedOps wk_sched_fifo;
extern const WkSchedOps wk_sched_priority;
extern const WkSchedOps wk_sched_sjf;
extern const WkSchedOps wk_sched_backfill;
extern const WkSchedOps wk_sched_las;
extern const WkSchedOps wk_sched_topo;
extern const WkSchedOps wk_sched_hetero;
extern const WkSchedOps wk_sched_slurm;
extern const WkSchedOps wk_sched_sci;
extern const WkSchedOps wk_sched_energy;
extern const WkSchedOps wk_sched_lend;

#endif
