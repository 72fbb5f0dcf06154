/* SPDX-License-Identifier: Apache-2.0 */
/* elastic.h — a running model job changes its number of data-parallel
 * replicas: what the restart costs, whether a GPU count fits, and the
 * restart itself (requeue, then start on the new GPUs paying that cost).
 * Shared by the elastic shrink and grow of models/recovery and by the work
 * outsourcing of models/mech (docs/models.md, "Recovery pipeline" and "Work
 * outsourcing"). Calls only models/state and the domain below. */
#ifndef WK_STATE_ELASTIC_H
#define WK_STATE_ELASTIC_H

#include "models/state/state.h"

/** Checkpoint bytes of job: its model's parameters x
 * checkpoint.bytes_per_param, or checkpoint.plain_gb for a plain job. */
double wk_run_ckpt_bytes(const WkRun *r, uint32_t job);

/** Restart cost of job now at its current GPU count, by step into
 * out[WK_RSTEP_N] (s): drain, launch (on a hot spare when `spare`),
 * communicator init for its GPUs, checkpoint load from its tier, warm-up
 * (wk_fail_restart_steps). Returns the sum, ns. */
WkTime wk_run_restart_cost(const WkRun *r, uint32_t job, int spare, double *out);

/** Nominal iteration time (s) of model job `job` as it would run on
 * gpus[0..n) with n GPUs (another number of DP replicas, the global batch
 * fixed), full link rate; NaN when the batch does not split into n / (TP x
 * PP x CP) replicas, memory does not fit, or the job has no model. The
 * job's own GPU count is left as it was. */
double wk_elastic_iter_s(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n);

/** The largest GPU count above `above` and at most `max` that is a whole
 * number of DP replicas of job's model whose batch splits and memory fits
 * on gpus[0..count) (rank order); 0 if there is none. */
uint32_t wk_elastic_fit(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t max, uint32_t above);

/** Restart a running model job at once on gpus[0..n) (another number of
 * replicas; the caller has set rt->pending_cost): back to the queue
 * (wk_run_request_requeue), then started there through the scheduler's
 * context (wk_sched_start); above its request its GPU array grows to hold
 * n (gpus must not point into it then). 0, or the start's code: WK_E_NOROOM when a
 * subsystem vetoes it (the job then waits in QUEUED and the policy has not
 * heard of it), or another negative code. */
int wk_elastic_restart(WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);

#endif
