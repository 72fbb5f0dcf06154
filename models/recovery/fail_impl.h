/* SPDX-License-Identifier: Apache-2.0 */
/* fail_impl.h — what the files of a run's failure model share: fail_hit.c
 * (component failures, hits, GPUs and links), fail_effect.c (processes, scripted
 * incidents, throttles, the diurnal clock), fail_ckpt.c (checkpoints),
 * fail_recover.c (detection and restart) and fail_grow.c (elastic jobs grow
 * back), recovery.c (set-up, repairs, the subsystem's slots). Private to
 * models/recovery. */
#ifndef WK_RECOVERY_FAIL_IMPL_H
#define WK_RECOVERY_FAIL_IMPL_H

#include "models/recovery/recovery.h"
#include "models/state/elastic.h"

/* No job, no incident; as a FAIL or PROC payload: the class's (process's)
 * aggregated Poisson stream rather than one component (unit). */
#define WK_RUNFAIL_NONE UINT32_MAX

/** GPU range [*lo, *hi) of unit idx of scope s (racks of
 * failures.nodes_per_rack nodes, pods as contiguous runs of nodes). */
void wk_runfail_unit_range(const WkRun *r, WkScope s, uint32_t idx, uint32_t *lo, uint32_t *hi);

/** Number of units of scope s in the cluster. */
uint64_t wk_runfail_units(const WkRun *r, WkScope s);

/** Open an incidents row at time t and set *id to it. WK_E_RANGE past
 * WK_RUN_MAX_INCIDENTS, WK_E_NOMEM; the table is unchanged on failure. */
int wk_runfail_new_incident(WkRunFail *f, uint8_t cls, uint8_t kind, uint8_t scope, uint32_t comp, WkTime t,
                            uint32_t *id, WkError *err);

/** Integrate accounting (GPU-time, energy) up to now before a health or
 * power change. */
void wk_runfail_account_now(WkRun *r);

/** Set GPU g's health and clock in the pool and move the cluster's power
 * draw by the change. The caller has accounted up to now. */
void wk_runfail_set_health(WkRun *r, uint32_t g, WkGpuHealth h, float clock);

/** Take g[0..n) down for incident inc (already down ones are skipped):
 * every job holding one is hit and detects it by path det. */
int wk_runfail_down_gpus(WkRun *r, WkRunFail *f, const uint32_t *g, uint32_t n, uint32_t inc, WkFailDetect det, WkError *err);

/** A software failure on g[0..n): every job holding one is hit (rolled
 * back, hung until detection by path det); no GPU goes down. */
int wk_runfail_hit_soft(WkRun *r, WkRunFail *f, const uint32_t *g, uint32_t n, uint32_t inc, WkFailDetect det, WkError *err);

/** Put an elastic job that just shrank on the list of jobs that may grow
 * back (once). 0 or WK_E_NOMEM. */
int wk_runfail_note_shrunk(WkRun *r, WkRunFail *f, uint32_t job, WkError *err);


/** Hot spares: hold the last failures.spare_nodes nodes out of scheduling
 * (at set-up); give a repaired, idle node back to the spare pool when it
 * is short (after a repair). */
void wk_runfail_spares_reserve(WkRun *r);
void wk_runfail_spares_refill(WkRun *r, uint32_t node);

/** After a repair: restart in place the waiting jobs (recovery `wait`)
 * none of whose GPUs is down any more. */
int wk_runfail_wake_waiting(WkRun *r, WkRunFail *f, WkError *err);

/** Event handlers (ctx is the WkRunFail), registered by wk_runfail_start.
 * DETECT: recovery of a hit job (fail_recover.c); CKPT, CKPT_DONE: a
 * checkpoint begins, is complete (fail_ckpt.c); EFFECT_END, PROC, SCRIPT,
 * DIURNAL: a throttle ends, a random process or scripted incident fires,
 * the time-of-day clock moves (fail_effect.c). */
int wk_runfail_on_detect(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err);
int wk_runfail_on_ckpt(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err);
int wk_runfail_on_ckpt_done(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err);
int wk_runfail_on_effect_end(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err);
int wk_runfail_on_proc(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err);
int wk_runfail_on_script(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err);
int wk_runfail_on_diurnal(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err);

/** Failures of class c: components in the cluster; the next failure of
 * component comp (renewal) or of any (comp WK_RUNFAIL_NONE: the Poisson
 * superposition) after from; a component fails (FAIL handler). */
uint64_t wk_runfail_class_count(const WkRun *r, WkFailClass c);
int wk_runfail_next_class_event(WkRun *r, WkRunFail *f, WkFailClass c, uint32_t comp, WkTime from, WkError *err);
int wk_runfail_on_fail(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err);

/** g[0..n) come back up (health and power; the caller has accounted). */
void wk_runfail_up_gpus(WkRun *r, const uint32_t *g, uint32_t n);

/** Take a failure's links out of service (delta +1) or give them back
 * (-1), then re-route every running job. */
int wk_runfail_set_links(WkRun *r, WkRunFail *f, const WkFailDown *d, int delta, WkError *err);

/** A job (re)starts or stops: arm or drop its checkpoint events; a restart
 * after an incident records the recovery time (fail_ckpt.c). */
/** A checkpoint write of `bytes` by job to the storage nodes begins: its
 * flows (wk_share_add_storage) join the fabric share, which is re-solved;
 * then every write in flight is re-timed (wk_runfail_store_retime). Bytes
 * move from `from` on (now, or after an async snapshot). 0 or a negative
 * code. */
int wk_runfail_store_begin(WkRun *r, WkRunFail *f, uint32_t job, double bytes, WkTime from, WkError *err);

/** As wk_runfail_store_begin; load non-NULL: the transfer is a restart's
 * checkpoint load from the storage nodes (its read, inc, est_s and tail
 * copied): the job makes no progress until it is done plus tail, and its
 * completion (CKPT_DONE with payload 1) arms the job's checkpoints. */
int wk_runfail_store_xfer(WkRun *r, WkRunFail *f, uint32_t job, double bytes, WkTime from, const WkStoreXfer *load,
                          WkError *err);

/** When a transfer with `left` bytes (>= 0) at `rate` bytes/s (> 0) from
 * `start` (ns, <= WK_RUN_MAX_TIME) completes: start plus the duration
 * rounded up to a whole ns, the sum in integer ns (past 2^53 ns, 104 days,
 * a double cannot hold every ns: start as a double could round below now).
 * Never before start; WK_RUN_MAX_TIME + 1 when past the largest time. */
WkTime wk_runfail_store_done(WkTime start, double left, double rate);

/** Job's write ends (complete, resolve = 1: the share is re-solved and the
 * other writes re-timed) or is dropped (resolve = 0: a stopped job; the next
 * solve settles the rates). No-op when job has none. 0 or a negative code. */
int wk_runfail_store_end(WkRun *r, WkRunFail *f, uint32_t job, int resolve, WkError *err);

/** Under `sharing: priority`, after the rings changed (a job started or
 * stopped, links re-routed): re-solve the storage flows on what the rings
 * leave and, when a rate moved, re-time every transfer in flight. No-op
 * under `fair` (the writes feel the rings at the next begin or end) or with
 * no transfer in flight. 0 or a negative code. */
int wk_runfail_store_settle(WkRun *r, WkRunFail *f, WkError *err);

int wk_runfail_job_started(WkRun *r, WkRunFail *f, uint32_t job, WkError *err);
void wk_runfail_job_stopped(WkRun *r, WkRunFail *f, uint32_t job);

/** Capacity came back (repair or job end): elastic jobs below their request
 * grow onto free GPUs, before the scheduler sees them (fail_grow.c). */
int wk_runfail_grow_elastic(WkRun *r, WkRunFail *f, WkError *err);

/** Effective clock factor of a GPU (its clock x the time-of-day factor). */
double wk_runfail_clock(const WkRun *r, uint32_t gpu);

#endif
