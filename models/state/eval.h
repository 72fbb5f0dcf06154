/* SPDX-License-Identifier: Apache-2.0 */
/* eval.h — one training job on a placement, without a run: its performance
 * environment (slowest SKU, clocks, NVLink domains, TP groups), its ring
 * edges across NVLink domains, and its iteration time with those rings
 * sharing the fabric alone. The run (models/state/progress.c) builds on the
 * same functions; `wanka perf` and the schedulers' iteration-time query use
 * them directly. Equations: docs/models.md. */
#ifndef WK_EVAL_H
#define WK_EVAL_H

#include <stdint.h>

#include "models/topo/cluster.h"
#include "models/workload/perf.h"
#include "sim/core/error.h"

/* path_class of a job before it has flows (or with none): no fabric path. */
#define WK_JOB_NO_PATH 255

/** Per-flow link rate a job sees at best: the fabric's link rate, or 50 GB/s
 * when the cluster has no fabric. */
double wk_eval_link_bw(const WkCluster *c);

/** Performance environment of model m on gpus[0..n) of c in rank order: the
 * slowest SKU, the slowest effective clock (c->clock x clock_factor; with
 * m->rebalance the mean replica speed), the smallest NVLink domain, whether
 * a TP group crosses domains, whether the job spans several, the full link
 * rate. clock_factor is the time-of-day factor (1 for none). */
void wk_eval_env(const WkCluster *c, const WkModelSpec *m, const uint32_t *gpus, uint32_t n, double clock_factor,
                 WkPerfEnv *env);

/** The SKU and clock of each pipeline stage of the LLM m on gpus[0..n) of c
 * in rank order (a data-parallel replica is tp x pp x cp consecutive ranks;
 * stage k of a replica its ranks [k tp cp, (k + 1) tp cp)): stages[k].sku
 * the slowest SKU (BF16 peak) and stages[k].speed the lowest effective clock
 * (c->clock x clock_factor) over the GPUs of stage k in every replica.
 * Writes stages[0..m->pp) but their `layers`. */
void wk_eval_stages(const WkCluster *c, const WkModelSpec *m, const uint32_t *gpus, uint32_t n, double clock_factor,
                    WkPerfStage *stages);

/** The edges of a job's rings: one ring per rail (at most c->rails, at most
 * the GPUs of its smallest domain) across its NVLink domains, visited in
 * rank order (the order of each domain's first rank, as NCCL orders nodes);
 * ring k links the k-th GPU of each domain to the k-th GPU of the next.
 * *edges receives 2 x *nedges GPU ids (a, b pairs, malloc'd, caller frees;
 * NULL when the job sits in one domain) and *path_class the widest path
 * class of an edge (WK_PATH_LOCAL for none). Returns 0 or WK_E_NOMEM. */
int wk_eval_rings(const WkCluster *c, const uint32_t *gpus, uint32_t n, uint32_t **edges, uint32_t *nedges,
                  uint8_t *path_class, WkError *err);

/** 1 when model m's expert groups (ep x etp ranks) span NVLink domains on
 * env (a job across several domains): its all-to-all then goes on the
 * fabric (share.h, wk_share_add_a2a); else 0. */
int wk_eval_ep_spans(const WkModelSpec *m, const WkPerfEnv *env);

/** Model m alone on the GPUs list[0..n) of c (list NULL = the first n GPUs),
 * in rank order, its ring flows sharing the fabric among themselves (and the
 * flows of an all-to-all across domains among themselves, wk_eval_ep_spans):
 * the perf result and the widest path class. A model that does not fit gives
 * WK_E_INVAL or WK_E_RANGE with the perf model's message. */
int wk_eval_job(const WkCluster *c, const WkModelSpec *m, const uint32_t *list, uint32_t n, const WkPerfParams *pp,
                WkPerfResult *res, uint8_t *path_class, WkError *err);

/** Model m spanning wan->sites sites, each built like c: n GPUs in each site
 * on list[0..n) of c (NULL = the first n), in rank order, its ring flows
 * sharing the site's fabric alone; the job has n x wan->sites GPUs. *span
 * receives the spanning job (wk_perf_eval_wan: iter_s with the exposed WAN
 * time wan_s), *one (optional, NULL to skip) the same n x sites GPUs in one
 * site with that site's environment and no WAN: the reference the WAN cost
 * is measured against. wan NULL or sites <= 1: wk_eval_job (and *one the
 * same). Errors as wk_eval_job and wk_perf_eval_wan (WK_E_INVAL, WK_E_RANGE,
 * WK_E_NOMEM), not positioned. */
int wk_eval_job_wan(const WkCluster *c, const WkModelSpec *m, const uint32_t *list, uint32_t n,
                    const WkPerfParams *pp, const WkPerfWan *wan, WkPerfResult *span, WkPerfResult *one,
                    uint8_t *path_class, WkError *err);

/** A sweep: several jobs evaluated one after another on one cluster (the
 * sizes of `wanka perf --scale`, or model variants on the same GPUs). It
 * keeps the storage of the rings and of one flow network from job to job
 * (grown to the largest job, never per job), and the network outcomes of
 * the last 64 jobs on the first GPUs (list NULL): a later job on the same
 * first n GPUs whose model agrees in kind, tp, pp, cp, ep, etp, experts and
 * rebalance takes the same environment, slowest ring rate, all-to-all rate
 * and path class without building rings or flows again. c must outlive the
 * sweep and not change while it lives. Returns 0 or WK_E_NOMEM; the caller
 * frees *out with wk_eval_sweep_free. */
typedef struct WkEvalSweep WkEvalSweep;
int wk_eval_sweep_new(WkEvalSweep **out, const WkCluster *c, WkError *err);

/** Release a sweep. NULL is a no-op. */
void wk_eval_sweep_free(WkEvalSweep *s);

/** wk_eval_job_wan on the sweep's cluster, reusing the sweep's storage and
 * network outcome: the same results, bit for bit, as wk_eval_job_wan (and
 * with wan NULL and one NULL, as wk_eval_job), in any order of jobs. */
int wk_eval_sweep_job(WkEvalSweep *s, const WkModelSpec *m, const uint32_t *list, uint32_t n,
                      const WkPerfParams *pp, const WkPerfWan *wan, WkPerfResult *res, WkPerfResult *one,
                      uint8_t *path_class, WkError *err);

#endif
