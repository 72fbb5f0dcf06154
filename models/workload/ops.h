/* SPDX-License-Identifier: Apache-2.0 */
/* ops.h — the operator list of a transformer layer, its output layer and its
 * optimizer step: every GEMM with its (M, N, K), the attention core, and the
 * memory-bound operators with the bytes they move, each timed as
 * max(compute, memory) + kernel overhead on a SKU's measured curves
 * (models/gpu/eff.h). Sums per operator kind say which bound dominates.
 * Communication is not here (perf.c). Sources: docs/models.md. */
#ifndef WK_WORKLOAD_OPS_H
#define WK_WORKLOAD_OPS_H

#include <stdint.h>

#include "models/gpu/catalog.h"
#include "models/gpu/eff.h"

typedef enum WkOpKind {
    WK_OP_GEMM = 0,  /* linear layers (tensor cores) */
    WK_OP_ATTN,      /* attention core: flash kernel, or the unfused batched GEMMs */
    WK_OP_SOFTMAX,   /* unfused attention: scale-mask-softmax over the scores */
    WK_OP_NORM,      /* LayerNorm / RMSNorm */
    WK_OP_ACT,       /* GeLU / SwiGLU */
    WK_OP_DROPOUT,
    WK_OP_RESIDUAL,
    WK_OP_ROTARY,
    WK_OP_MOE,       /* router, token permute / unpermute */
    WK_OP_XENT,      /* output-layer cross-entropy */
    WK_OP_EMBED,     /* input embedding lookup and its gradient */
    WK_OP_CAST,      /* FP8 casts and scaling */
    WK_OP_OPTIM,     /* Adam step, gradient norm and clipping */
    WK_OP_BATCHNORM, /* convolutional nets: batch normalisation (two passes) */
    WK_OP_POOL,      /* convolutional nets: max / average pooling */
    WK_OP_NKIND
} WkOpKind;

typedef struct WkOpStat {
    double s;                               /* time per iteration on the bounding stage */
    double compute_s, memory_s, overhead_s; /* the part each bound contributes */
    double kernels;                         /* kernel launches per iteration */
} WkOpStat;

/* The shape a layer runs at on one rank, for one micro-batch. */
typedef struct WkOpsShape {
    double T;         /* tokens of the micro-batch on this rank: b * s / cp */
    double s;         /* keys each query attends: seq_len */
    double b;         /* sequences per micro-batch */
    double h, heads, kv_heads, ffn, vocab;
    double t;         /* tensor-parallel degree */
    int gated;        /* SwiGLU (3 matrices) rather than GeLU (2) */
    int rotary;       /* rotary position embedding on q and k */
    int dropout;      /* dropout after attention and MLP (and on probabilities if unfused) */
    int flash;        /* 1: flash attention; 0: materialised scores */
    int flash1;       /* with flash: a FlashAttention-1-class kernel at its measured rate (eff.h fa1) */
    int sp;           /* sequence parallelism: norms, dropout, residual on T/t tokens */
    int fp8;          /* FP8 GEMMs with casts */
    double experts, top_k, ep; /* MoE (experts 0 = dense) */
    double etp;       /* expert tensor parallelism (divides t; t = experts split like the dense MLP) */
    double imbalance; /* tokens of the busiest expert / mean (>= 1) */
    int noncausal;    /* 1: every query attends every key (encoders: ViT); 0: causal */
    int parallel;     /* 1: parallel attention and MLP block (one norm, fused GEMMs) */
    double cp_ring;   /* > 1: causal flash attention runs as PyTorch's context_parallel ring over this
                         many ranks (stack.h, cp_ring); else one kernel */
} WkOpsShape;

/* Where the operators run and where their times are summed. */
typedef struct WkOpsCtx {
    const WkGpuEff *e;
    double peak, peak_fp8; /* matrix peaks x clock factor, FLOP/s */
    double hbm;            /* HBM bandwidth x clock factor, bytes/s */
    double speed;          /* clock factor (vector peak) */
    int fp8_current;       /* FP8 current scaling: an amax read of each cast input (docs/models.md) */
    int shapes;            /* 1: GEMM time at its (M, N, K) with wave quantization (wk_eff_gemm_mnk_s on
                              e's shape-aware fit, perf.gemm_shapes); 0: the flat curve (wk_eff_gemm_s) */
    double gemm_clk, fp8_clk, attn_clk; /* time factors of BF16 GEMMs, FP8 GEMMs and attention for the SM
                                           clock they run at against the one their curves were measured at
                                           (wk_ops_sustain); 0 = 1 */
    double mult;           /* how many times per iteration the next operators run */
    WkOpStat *acc;         /* WK_OP_NKIND sums, or NULL */
    const double *op_bytes;   /* NULL, or per kind: memory-bound operators move op_bytes[k] x the bytes */
    const double *op_kernels; /* with op_bytes: and launch op_kernels[k] kernels (unfused operators, stack.h) */
    double norm_eff;          /* 0 = 1: norms move their bytes at norm_eff of the triad rate (stack.h native_norm) */
} WkOpsCtx;

/** The sustained-clock correction (docs/models.md, "Sustained clocks"):
 * times one forward and backward layer of sh on c's curves to get the
 * activity of its operator mix (compute-bound time 1, memory-bound and
 * launch-overhead time at wk_power_defaults' memory_activity), takes the
 * SM clock f = wk_dvfs_sustained_clock(sku, activity) the TDP allows
 * (capped by cap_clock when in (0, 1), which c's peaks already carry), and
 * sets c's gemm_clk, fp8_clk and attn_clk to the measured clock over the
 * run clock, at / f (x cap_clock: c's peaks carry the cap), for curves
 * whose clock is known (eff.h gemm_at, fp8_at, attn_at), else 1. Returns
 * the run clock factor (of the top clock). c->acc and c->mult are kept. */
double wk_ops_sustain(WkOpsCtx *c, const WkOpsShape *sh, const WkGpuSku *sku, double cap_clock);

/* Books one mix of operators into t->acc (t's clock factors 1). */
typedef void (*WkSustainMix)(WkOpsCtx *t, const void *arg);

/** The mix wk_ops_sustain times: one forward and one backward layer of the
 * WkOpsShape at sh. */
void wk_ops_layer_mix(WkOpsCtx *t, const void *sh);

/** wk_ops_sustain for any mix: books mix(t, arg) on a copy t of c with its
 * clock factors 1, mult 1 and its own sums, then wk_ops_sustain_mix on
 * them. Sets c's clock factors; returns the run clock factor. */
double wk_ops_sustain_of(WkOpsCtx *c, WkSustainMix mix, const void *arg, const WkGpuSku *sku, double cap_clock);

/** wk_ops_sustain's second half for any operator mix: acc holds the
 * operators' times at the curves' own clocks (gemm_clk, fp8_clk, attn_clk
 * 1), e.g. one data-parallel step of a vision job; sets c's clock factors
 * from the mix's activity as wk_ops_sustain does and returns the run clock
 * factor. */
double wk_ops_sustain_mix(WkOpsCtx *c, const WkOpStat acc[WK_OP_NKIND], const WkGpuSku *sku, double cap_clock);

/** A compute-bound operator of kind k doing `flops` at `peak` FLOP/s (a
 * fraction of the tensor peak already applied), times c's gemm_clk, with no
 * launch or memory term; booked into c->acc. Returns its time. */
double wk_ops_compute(WkOpsCtx *c, WkOpKind k, double flops, double peak);

/** Forward time of one layer for one micro-batch; `attn_only` times only the
 * attention core (selective recomputation). Adds mult x each operator to acc. */
double wk_ops_layer_fwd(WkOpsCtx *c, const WkOpsShape *sh, int attn_only);

/** Backward time of one layer for one micro-batch (data and weight gradients). */
double wk_ops_layer_bwd(WkOpsCtx *c, const WkOpsShape *sh);

/** Output layer, final norm and cross-entropy, forward and backward. */
double wk_ops_head(WkOpsCtx *c, const WkOpsShape *sh);

/** Input embedding lookup, forward and backward. */
double wk_ops_embed(WkOpsCtx *c, const WkOpsShape *sh);

/** Optimizer step over `params` parameters updated on this rank: Adam
 * (34 bytes per parameter) and the gradient norm. */
double wk_ops_optimizer(WkOpsCtx *c, double params);

/** A GEMM (M x K) . (K x N), n of them in one kernel, forward (bwd 0) or its
 * data- and weight-gradient GEMMs (bwd 1), booked as WK_OP_GEMM. Returns its time. */
double wk_ops_gemm(WkOpsCtx *c, double M, double K, double N, double n, int bwd);

/** A convolution as the implicit GEMM cuDNN runs (M = images x output
 * positions, K = in-channels x kernel area, N = out-channels), forward or its
 * two gradient GEMMs, booked as WK_OP_GEMM. Unlike wk_ops_gemm its memory
 * term reads the input tensor (`in` elements, not the M x K unfolded
 * matrix), the weights and the output once. Returns its time. */
double wk_ops_conv(WkOpsCtx *c, double M, double K, double N, double in, int bwd);

/* Megatron-Core's MoE layer outside the expert GEMMs (router, auxiliary
 * loss, all-to-all token dispatcher, unfused permute / unpermute): torch
 * operators launched per layer and micro-batch, counted from its
 * core_v0.11.0 source (docs/models.md, "MoE layer"); the sort by local
 * expert (more than one expert per rank) adds its own. */
#define WK_MOE_KERNELS_FWD 43
#define WK_MOE_KERNELS_BWD 21
#define WK_MOE_SORT_KERNELS_FWD 3
#define WK_MOE_SORT_KERNELS_BWD 2

/* Its host synchronisations per layer forward (dropless, unfused): the
 * blocking copy of the per-local-expert token counts (more than one local
 * expert), the two masked_selects (nonzero), the explicit synchronize
 * before the expert all-to-all. */
#define WK_MOE_SYNCS 3
#define WK_MOE_SORT_SYNCS 1

/** Host synchronisations of that layer per forward for `local` experts per
 * rank: WK_MOE_SYNCS plus WK_MOE_SORT_SYNCS when local > 1. */
double wk_ops_moe_syncs(double local);

/** Kernels Megatron-Core's MoE layer launches outside its expert GEMMs, per
 * layer and micro-batch, forward (bwd 0) or backward (bwd 1), for `local`
 * experts per rank: WK_MOE_KERNELS_* plus WK_MOE_SORT_KERNELS_* when
 * local > 1. */
double wk_ops_moe_kernels(int bwd, double local);

/** Rows of h elements (2 bytes each) that layer's memory-bound operators
 * move on a rank routing Ts tokens (X = Ts x top_k routed copies) to
 * experts that receive R rows on it: forward 7X + Ts, backward 11X + Ts,
 * each plus 4R when local > 1 (the sort by local expert and its undo). */
double wk_ops_moe_rows(int bwd, double Ts, double X, double R, double local);

/** A memory-bound operator of kind k moving `bytes` on HBM with `vflops`
 * vector FLOPs, booked with one kernel launch. Returns its time. */
double wk_ops_mem(WkOpsCtx *c, WkOpKind k, double bytes, double vflops);

/** Adds k x src to dst, kind by kind (WK_OP_NKIND entries each: time,
 * compute, memory and overhead seconds, kernels); dst may be src. */
void wk_ops_add(WkOpStat *dst, const WkOpStat *src, double k);

/** Short name of an operator kind ("gemm", "attention", ...). */
const char *wk_ops_name(WkOpKind k);

#endif
