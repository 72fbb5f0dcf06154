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
} WkPerfParams;

/** Defaults: gemm_eff 0 (the SKU's measured curve), dp_overlap 1, intra 0
 * (the SKU's measured step latencies, models/gpu/eff.c), 8 us inter (a
 * choice, docs/models.md). */
WkPerfParams wk_perf_defaults(void);

/** Read the `perf:` section (NULL = defaults). Positioned errors. */
int wk_perf_parse(const WkNode *sec, WkPerfParams *out, WkError *err);

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
    int tp_cross;          /* 1: a tensor-parallel group spans NVLink domains */
    int multi_domain;      /* 1: the job spans several NVLink domains */
} WkPerfEnv;

typedef struct WkPerfResult {
    double iter_s;                       /* one iteration */
    double compute_s, bubble_s;          /* busy compute of the bounding stage; pipeline bubble */
    double tp_s, pp_s, dp_s, ep_s;       /* exposed communication */
    double cp_s;                         /* exposed context-parallel K/V all-gather and gradient reduce-scatter */
    double optim_s;                      /* optimizer step and gradient norm */
    double interference_s;               /* compute slowed by overlapped communication kernels */
    WkOpStat ops[WK_OP_NKIND];           /* per operator kind, per iteration, bounding stage */
    double samples_per_iter;             /* tokens (LLM) or samples per iteration */
    double model_flops_per_iter;         /* whole job, no recomputation counted */
    double tflops_per_gpu;               /* achieved model TFLOP/s per GPU */
    double mfu;                          /* model FLOPs utilization vs nominal peak */
    double mem_bytes, mem_state_bytes, mem_act_bytes; /* per GPU */
    uint32_t dp, micro_batches;
} WkPerfResult;

/** Evaluate the model m on env. Returns 0, or WK_E_RANGE/WK_E_INVAL with a
 * message (not positioned) when the parallelism does not divide the GPUs,
 * the batch does not split, or the memory per GPU exceeds the SKU's HBM
 * ("needs 97.3 GiB per GPU (weights+optimizer 61.0, activations 36.3) but
 * H100-SXM-80G has 74.5 GiB: 22.8 GiB short"). */
int wk_perf_eval(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, WkPerfResult *out,
                 WkError *err);

/** Append the operator breakdown of r to b (`wanka perf --ops`): per kind,
 * time per iteration, share, kernels and the dominating bound. Returns 0 or
 * WK_E_NOMEM. */
int wk_perf_ops_text(const WkPerfResult *r, WkStrBuf *b);

#endif
