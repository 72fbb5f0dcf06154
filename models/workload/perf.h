/* SPDX-License-Identifier: Apache-2.0 */
/* perf.h — the training performance model: iteration time of a job from its
 * model (model.h), its parallelism, the GPUs it runs on and the bandwidth its
 * placement gets, broken down into compute, pipeline bubble and the exposed
 * part of each communication (TP, PP, DP, EP); plus memory per GPU.
 * Analytic, microseconds per evaluation. Equations and sources: docs/models.md. */
#ifndef WK_WORKLOAD_PERF_H
#define WK_WORKLOAD_PERF_H

#include <stdint.h>

#include "models/gpu/catalog.h"
#include "models/workload/ops.h"
#include "models/workload/model.h"
#include "sim/core/error.h"
#include "sim/core/strbuf.h"
#include "sim/scenario/node.h"

/* Global modelling choices, stated once (scenario section `perf:`). */
typedef struct WkPerfParams {
    double gemm_eff;    /* > 0: overrides the SKU's measured largest GEMM efficiency; 0: measured */
    double dp_overlap;  /* share of the modelled DP overlap applied: 1 as modelled, 0 fully exposed */
    double lat_intra_s; /* > 0: per-step collective latency inside an NVLink domain; 0: the SKU's measured */
    double lat_inter_s; /* per-step latency of a collective across the fabric */
    int gemm_shapes;    /* 1: GEMM time at its shape (wave quantization, shape-aware fit); 0: flat fit */
    int sustained_clock; /* 1: GEMM and attention at the clock the TDP sustains (wk_ops_sustain); 0: not */
} WkPerfParams;

/** Defaults: gemm_eff 0 (the SKU's measured curve), dp_overlap 1, intra 0
 * (the SKU's measured step latencies, models/gpu/eff.c), 8 us inter (a
 * choice, docs/models.md). */
WkPerfParams wk_perf_defaults(void);

/** Read the `perf:` section (NULL = defaults). Positioned errors. */
int wk_perf_parse(const WkNode *sec, WkPerfParams *out, WkError *err);

/* One pipeline stage of a job whose stages are not alike (the division
 * mechanism, models/mech/division.h): the slowest SKU and the lowest clock
 * factor over the stage's GPUs in every data-parallel replica, and the
 * transformer layers it runs (the last stage also runs the output layer). */
typedef struct WkPerfStage {
    const WkGpuSku *sku;
    double speed;    /* clock factor, (0, 1] */
    uint32_t layers; /* >= 1 */
} WkPerfStage;

/* Where a job runs, as its placement determines it. */
typedef struct WkPerfEnv {
    const WkGpuSku *sku;   /* the SKU that bounds the job (slowest peak among its GPUs) */
    const WkGpuSku *mem_sku; /* the SKU with the smallest HBM among its GPUs (NULL: sku) */
    double speed;          /* clock factor of the bounding rank, (0, 1]; the mean if rebalanced */
    double cap_clock;      /* SM clock factor under a power cap or clock lock (HBM keeps its clock); 0 = 1 */
    uint32_t gpus;         /* GPUs of the job */
    uint32_t nvlink_gpus;  /* GPUs per NVLink domain where it runs */
    double nvlink_bw;      /* per GPU, per direction, bytes/s */
    double net_bw;         /* per NIC, the job's share of the fabric, bytes/s */
    double ep_bw;          /* per NIC, the expert all-to-all's share when its flows are on the fabric
                              (models/state/progress.c), bytes/s; 0 = net_bw */
    int tp_cross;          /* 1: a tensor-parallel group spans NVLink domains */
    int multi_domain;      /* 1: the job spans several NVLink domains */
    double grad_ratio;     /* > 1: DP gradients travel compressed by this ratio, at the cost of
                              encoding and decoding them (ZeRO 0-2; docs/models.md, "Gradient
                              compression"); 0 or 1: uncompressed. Not placement-derived: set by
                              the cascade mechanism (models/mech) */
    WkPerfStage *stages;   /* NULL: every pipeline stage as the bounding rank (sku, speed) with an
                              even split; else m->pp stages, each at its own SKU and clock with its
                              own layers (docs/models.md, "Division of labour"). Not placement-
                              derived: set by the division mechanism (models/mech), borrowed */
} WkPerfEnv;

typedef struct WkPerfResult {
    double iter_s;                       /* one iteration */
    double compute_s, bubble_s;          /* busy compute of the bounding stage; pipeline bubble */
    double tp_s, pp_s, dp_s, ep_s;       /* exposed communication */
    double cp_s;                         /* exposed context-parallel K/V all-gather and gradient reduce-scatter */
    double optim_s;                      /* optimizer step and gradient norm */
    double host_s;                       /* GPU waiting for the host to issue kernels (eager dispatch) */
    double interference_s;               /* compute slowed by overlapped communication kernels */
    double wan_s;                        /* exposed WAN part of the DP reduction across sites (0 in one site) */
    WkOpStat ops[WK_OP_NKIND];           /* per operator kind, per iteration, bounding stage */
    double samples_per_iter;             /* tokens (LLM) or samples per iteration */
    double model_flops_per_iter;         /* whole job, no recomputation counted */
    double tflops_per_gpu;               /* achieved model TFLOP/s per GPU */
    double mfu;                          /* model FLOPs utilization vs nominal peak */
    double mem_bytes, mem_state_bytes, mem_act_bytes; /* per GPU */
    double mem_cap_bytes; /* the HBM per GPU the memory check compared mem_bytes with (the placement's smallest) */
    double sm_clock_mhz;                 /* SM clock the GEMMs and attention ran at under the board power limit
                                            (perf.sustained_clock; the lower of it and a cap or lock); 0 where
                                            no correction applied (switch off, no measured GEMM clock, or a
                                            data-parallel model) */
    uint32_t dp, micro_batches;
} WkPerfResult;

/** Evaluate the model m on env. Returns 0, or WK_E_RANGE/WK_E_INVAL with a
 * message (not positioned) when the parallelism does not divide the GPUs,
 * the batch does not split, or the memory per GPU exceeds the SKU's HBM
 * ("needs 97.3 GiB per GPU (weights+optimizer 61.0, activations 36.3) but
 * H100-SXM-80G has 74.5 GiB: 22.8 GiB short"). */
int wk_perf_eval(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, WkPerfResult *out,
                 WkError *err);

/** Per micro-batch compute of one pipeline stage of the LLM m on st->sku at
 * clock factor st->speed (env gives the cap clock and the sequence shape's
 * context): one transformer layer forward, backward and recomputed, in
 * *layer_s, and the output layer, in *head_s (the embedding too when pp =
 * 1), from the same operator model as wk_perf_eval. 0 for non-LLM models. */
void wk_perf_stage_costs(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, const WkPerfStage *st,
                         double *layer_s, double *head_s);

/* Data parallelism across sites (docs/models.md, "Data parallelism across
 * sites"): the job's GPUs split evenly over `sites` sites built alike, each
 * running gpus/sites GPUs with the same TP/PP/CP/EP; the DP gradient
 * reduction is hierarchical (inside each site, across the sites over WAN
 * links, inside each site). */
typedef struct WkPerfWan {
    uint32_t sites;       /* sites the job spans; 0 or 1: one site, no WAN */
    double bw_bits_per_s; /* line rate of the link between two sites, per direction */
    double lat_s;         /* one-way latency of that link */
    double eff;           /* share of the line rate a long-haul transfer achieves, (0, 1]; 0: WK_PERF_WAN_EFF */
} WkPerfWan;

/* RDMA over InfiniBand across ~200 miles at 40 Gb/s moved data at up to 96 %
 * of the network's capacity (ESnet, Orange Silicon Valley and Bay
 * Microsystems demonstration, 2011; docs/models.md): a transfer-level
 * measurement, not an end-to-end training figure. */
#define WK_PERF_WAN_EFF 0.96

/** Evaluate model m spanning wan->sites sites (wan NULL or sites <= 1: exactly
 * wk_perf_eval, bit for bit). env describes the whole job as placed in one
 * site: env->gpus is the job's GPUs over all sites, every other field (SKU,
 * clocks, NVLink domains, the fabric share net_bw) is what each site's part
 * of the job gets. The result is the iteration time of the spanning job:
 * out->dp_s is the exposed DP communication inside the sites and out->wan_s
 * the exposed part that the WAN adds (its share of the last bucket and what
 * the backward pass cannot hide), both in out->iter_s. ZeRO-1/2 keep the
 * optimizer sharded over all DP ranks (reduce-scatter and all-gather each
 * cross the WAN); ZeRO-3 becomes hybrid sharding (sharded inside a site,
 * replicated across sites: memory is sharded over the site's DP ranks).
 * Returns 0, or WK_E_INVAL with a message (not positioned) when the link is
 * not usable (bandwidth <= 0, latency < 0, efficiency outside [0, 1]), the
 * GPUs or the DP replicas (gpus / (tp x pp x cp)) do not split evenly over
 * the sites, a site cannot hold a full set of experts, or the job is a
 * recommendation model (its embedding all-to-all would cross the WAN); and
 * every error of wk_perf_eval. Borrows everything; writes *out. */
int wk_perf_eval_wan(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, const WkPerfWan *wan,
                     WkPerfResult *out, WkError *err);

/** Bytes one WAN link carries per direction per iteration for model m across
 * `sites` sites: the ring over the sites moves 2 (sites - 1) / sites of
 * the gradients (2 B per parameter) through each link. 0 for sites <= 1. */
double wk_perf_wan_bytes(const WkModelSpec *m, uint32_t sites);

/** Append the operator breakdown of r to b (`wanka perf --ops`): per kind,
 * time per iteration, share, kernels and the dominating bound. Returns 0 or
 * WK_E_NOMEM. */
int wk_perf_ops_text(const WkPerfResult *r, WkStrBuf *b);

#endif
