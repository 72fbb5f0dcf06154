/* SPDX-License-Identifier: Apache-2.0 */
/* eff.h — measured efficiency curves of a GPU SKU: the fraction of peak a
 * GEMM, an attention kernel or a memory-bound kernel reaches at its size, the
 * per-kernel overhead, and the collective efficiency per transport. Set only
 * from kernel- and collective-level measurements (each entry cites them);
 * never from end-to-end training throughput. Sources: docs/models.md. */
#ifndef WK_GPU_EFF_H
#define WK_GPU_EFF_H

#include <stdint.h>

/* A flash-attention kernel's measured forward + backward rate on one SKU
 * (FlashAttention's FLOP count: 4 T s d per head forward, halved by a causal
 * mask, 2.5x that backward), TFLOP/s, per head dimension (64, 128), mask
 * (none, causal) and key length (512, 1k, 2k, 4k, 8k, 16k). */
#define WK_ATTN_TAB_S 6
typedef struct WkAttnTable {
    double tflops[2][2][WK_ATTN_TAB_S]; /* [head dim 64, 128][non-causal, causal][key length] */
    double peak;                        /* dense 16-bit peak of the GPU measured, FLOP/s */
} WkAttnTable;

typedef struct WkGpuEff {
    const char *sku;        /* catalog name these curves were measured on */
    double mat_max;         /* BF16 GEMM: largest fraction of the dense peak reached (the curve in use) */
    double mat_half_flops;  /* FLOPs of a GEMM that reaches half of mat_max */
    double fp8_max;         /* FP8 GEMM: largest fraction of the FP8 peak (0 = no FP8) */
    double fp8_half_flops;  /* FLOPs of an FP8 GEMM that reaches half of fp8_max */
    double mat_max_q;       /* shape-aware fit (perf.gemm_shapes): fraction of the dense peak a full
                               wave of tiles reaches; 0 = none, the flat fit stands */
    double mat_half_q;      /* its F_half, FLOPs */
    double fp8_max_q;       /* the same for FP8 (0 = none) */
    double fp8_half_q;      /* its F_half, FLOPs */
    double attn_fwd, attn_bwd; /* flash attention, fraction of the BF16 peak, forward / backward */
    double attn_causal_s0;  /* causal flash attention: e(s) = attn x s / (s + s0), s the key length */
    const WkAttnTable *fa1; /* FlashAttention-1-class kernels (`attention: flash1`) measured on this SKU's
                               generation, at the attention clock (attn_at); NULL = no measurement */
    double vec_flops;       /* vector (non-tensor-core) FP32 peak, FLOP/s */
    double mem_max;         /* memory-bound kernels: fraction of HBM bandwidth streamed */
    double kernel_s;        /* per-kernel overhead (launch-to-launch gap in a stream), s */
    double overlap_slowdown; /* compute slowdown while a communication kernel overlaps it */
    double nvlink_eff;      /* ring collectives: busbw / NVLink line rate per direction */
    double nvls_algbw_eff;  /* NVLink SHARP all-reduce: algbw / line rate (0 = none) */
    double net_eff;         /* ring collectives over InfiniBand/RoCE: busbw / NIC rate */
    double ring_lat_s;      /* NCCL ring/tree step latency inside an NVLink domain, s */
    double nvls_lat_s;      /* NVLink SHARP all-reduce step latency (2 steps), s */
    double small_coll_s;    /* one latency-bound collective inside the node (a few KiB or less), s: the
                               smallest point of a measured in-node all-reduce curve; 0 = none measured */
    double sms;             /* streaming multiprocessors (compute units) a GEMM's tiles spread over */
    double gemm_at;         /* SM clock the BF16 GEMM sweep ran at, a fraction of the SKU's top clock
                               (models/gpu/dvfs.h); 0 = unknown: no clock correction */
    double fp8_at;          /* the same for the FP8 GEMM sweep */
    double attn_at;         /* the same for the attention measurements */
    double host_op_s;       /* host cost of one eager operator issued from Python, its launch included
                               (a calibration file's dispatch_us); 0 = the stack model's default,
                               WK_HOST_OP_PY_S + kernel_s (models/workload/stack.h) */
    int measured;           /* 1: curves measured on this SKU; 0: borrowed from `borrowed` */
    const char *borrowed;   /* the SKU whose measurements stand in, or NULL */
    const char *source;     /* the measurements */
} WkGpuEff;

/** The curves for the SKU called name, or NULL. Static storage. */
const WkGpuEff *wk_eff_find(const char *name);

/** The curves of the built-in SKU whose BF16 peak is nearest to bf16_flops
 * (for SKUs a scenario defines from scratch). Never NULL. */
const WkGpuEff *wk_eff_nearest(double bf16_flops);

/** Time of a GEMM of `flops` at `peak` FLOP/s: flops / (peak * e(flops)),
 * e(F) = e_max * F / (F + F_half) (saturating fit of a GEMM size sweep),
 * that is flops / (e_max * peak) + a fixed tail; fp8 uses fp8_max and
 * fp8_half_flops. Without the per-kernel overhead. */
double wk_eff_gemm_s(const WkGpuEff *e, double flops, double peak, int fp8);

/** Wave quantization of n grouped (M x K) . (K x N) GEMMs over e->sms
 * SMs: the best, over output tiles of 128 x 256, 256 x 128 and 128 x 128,
 * of n M N / (waves x sms x tile area), waves = ceil(n x ceil(M/tm) x
 * ceil(N/tn) / sms): the share of the tile slots the last (partly empty)
 * wave and the padded edge tiles leave doing useful work. In (0, 1]; 1
 * when e->sms is 0 or a dimension is not positive. */
double wk_eff_wave_q(const WkGpuEff *e, double M, double N, double n);

/** Time of n (M x K) . (K x N) GEMMs run as one kernel (a strided batch
 * or a grouped GEMM) at `peak` FLOP/s: (n F / q + F_half) / (e_max x peak),
 * F = 2 M N K, q = wk_eff_wave_q(e, M, N, n), the fixed tail once; e_max, F_half the BF16 or (fp8, when the SKU has it) FP8 curve.
 * Without the per-kernel overhead or any clock correction. */
double wk_eff_gemm_mnk_s(const WkGpuEff *e, double M, double N, double K, double n, double peak, int fp8);

/** A copy of *e with the shape-aware GEMM fits (mat_max_q, mat_half_q,
 * fp8_max_q, fp8_half_q; each where not 0) in place of the flat ones
 * (mat_max, mat_half_flops, fp8_max, fp8_half_flops): the curves
 * wk_eff_gemm_mnk_s is meant for (perf.gemm_shapes, docs/models.md). */
WkGpuEff wk_eff_shaped(const WkGpuEff *e);

/** Time of the flash-attention core of `flops` (the FLOPs the mask leaves)
 * at `peak` FLOP/s over keys of length s: flops / (peak x attn x c(s)), with
 * c(s) = s / (s + attn_causal_s0) when causal (the diagonal tiles computed
 * in full), else 1; attn is attn_bwd when bwd, else attn_fwd. Without the
 * per-kernel overhead. */
double wk_eff_attn_s(const WkGpuEff *e, double flops, double peak, double s, int causal, int bwd);

/** Time of a FlashAttention-1-class kernel (`attention: flash1`) doing
 * `flops` useful FLOPs (the same count as wk_eff_attn_s) over keys of
 * length s at head dimension hd on a GPU of `peak` FLOP/s, from the
 * measured table e->fa1: the rate of head dimension 64 (hd <= 64) or 128
 * interpolated linearly in log2 s between the measured key lengths (the end
 * values outside them), as a fraction of the measured GPU's peak, scaled by
 * hd / pad, pad the kernels' head block (the next power of two >= hd, at
 * least 16: the padded columns are computed too); one
 * rate for forward and backward. At the measurement's clock, without the
 * per-kernel overhead. Returns -1 when e->fa1 is NULL or hd is not in
 * (0, 128]. */
double wk_eff_attn_fa1_s(const WkGpuEff *e, double flops, double peak, double s, int causal, double hd);

/** Time of a memory-bound kernel moving `bytes` on HBM of bw bytes/s at
 * mem_max, or of its vector FLOPs at vec_flops x speed, whichever is longer.
 * Without the overhead. */
double wk_eff_mem_s(const WkGpuEff *e, double bytes, double vec_flops, double hbm_bw, double speed);

#endif
