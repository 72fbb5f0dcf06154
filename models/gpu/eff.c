/* SPDX-License-Identifier: Apache-2.0 */
/* eff.c — the per-SKU efficiency table (kernel- and collective-level
 * measurements only, each cited) and the size curves built on it. A SKU
 * without public measurements borrows the nearest generation's, marked. */
#include "models/gpu/eff.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Calibration sources (kernel- and collective-level only; docs/models.md):
 * [AZ]   Azure/AI-benchmarking-guide, Azure_Results/ND_A100_v4_results.md
 *        (A100-SXM4-80GB) and "Azure Results/NDv5 Results.md" (H100 80GB HBM3,
 *        H200 141GB): cuBLASLt GEMM sweep with random inputs and 10,000
 *        warm-up iterations (superbench cublaslt_gemm; FP16 on A100, FP8 on
 *        H100), BabelStream HBM bandwidth, nccl-tests all-reduce busbw per
 *        message size (8 GPUs, in place).
 * [XLA]  XLA's measured cuBLAS BF16 sweep for sm_90,
 *        xla/service/gpu/model/matmul_interpolator_data.h.
 * [GB]   te42kyfo/gpu-benches, gpu-small-kernels/{a100_80,h200}.txt: 10,000
 *        back-to-back launches of a streaming kernel per size in one stream.
 * [OV]   "Characterizing Compute-Communication Overlap in GPU-Accelerated
 *        Distributed Deep Learning", arXiv:2507.03114 (2025), abstract:
 *        overlapped compute runs 18.9 % slower on average (max 40 %) over
 *        GPT and LLaMA on 4 A100, H100, MI250 and MI210.
 * [FA]   liangan1/GPU_travel, performance/flash-attn/README.md:
 *        FlashAttention-2 (Dao-AILab main) forward TFLOP/s on A100 (SM80)
 *        per batch, sequence length, KV heads and causal mask.
 * [ZZ]   zzc0721/torch-performance-test-data issue #79 (script test.py at
 *        commit 9d82827): square torch.matmul BF16, randn inputs, H100 80GB
 *        HBM3 SXM, PyTorch 2.7.0 (../shared/calibration/
 *        torch_matmul_sweep_zzc0721.tsv).
 * [F1]   Dao-AILab/flash-attention at 4f285b3 (FlashAttention-2 release),
 *        assets/flash2_a100_fwd_bwd_benchmark.png and
 *        flash2_h100_fwd_bwd_benchmark.png: forward + backward TFLOP/s of
 *        FlashAttention-1 and -2 per head dimension, mask and key length.
 * [HE]   H. He, "Strangely, Matrix Multiplications on GPUs Run Faster When
 *        Given 'Predictable' Data!", thonking.ai (2024): A100 cuBLAS
 *        8192^3, zeros 295 TFLOP/s, randn 257 TFLOP/s (power-limited).
 *
 * Flat GEMM fit (the default): t = F / (e_max peak) + tau, least squares on
 * relative time over the sweep. A100 [AZ] FP16 (m=n=k 1024..16384,
 * 1024x2145x1024, 6144x12288x12288; 119.4 ... 256.5 TFLOP/s): 248.0
 * TFLOP/s and tau 10.7 us, rms 7 %, max 15 % (the 4096^3 wave-quantised
 * point and the 1024x2145x1024 shape). H100 BF16 [XLA]: 802 TFLOP/s, tau
 * 4.6 us, within 3 % from 17 to 275 GFLOP. H100 FP8 [AZ] (m=n=k
 * 1024..32768, 274.1 ... 1382.2 TFLOP/s): 1363.5 TFLOP/s, tau 6.5 us, rms
 * 6 %, max 12 %. tau includes the launch gap (KERNEL_*), so the tail is tau
 * minus it, and F_half = tail x e_max x peak. The best-shape MAMF figures
 * (Bekman, ml-engineering: A100 267.9-271.2, H100 792-794.5, H100 FP8
 * 1402.6 TFLOP/s) are ceilings over a shape search, not used.
 *
 * Shape-aware GEMM fit (perf.gemm_shapes, opt-in; wk_eff_shaped): t = (F /
 * q + F_half) / (e_max peak) + launch gap, q the wave quantization of the
 * shape (wk_eff_wave_q: output tiles 128 x 256, 256 x 128 or 128 x 128 over
 * the SMs, the last wave partly empty), e_max the fraction of the peak a
 * full wave reaches. Least squares on relative time over random-input
 * sweeps only, t = F / (q E) + tau with E = e_max peak and tau the fixed
 * tail including the launch gap (KERNEL_*), so F_half = (tau - gap) E:
 * A100 [AZ] FP16 (the eight shapes, m=n=k 1024..16384, 1024x2145x1024,
 * 6144x12288x12288, 802816x192x768; 119.4 ... 256.5 TFLOP/s): E 251.7
 * TFLOP/s, tau 3.43 us, rms 8 %, max 16 % (2048^3, q 0.79 where cuBLAS
 * found a better tiling, and 802816x192x768, K = 768 too short for the
 * tile pipeline); 4096^3 (q 0.948) within 4 %. H100 BF16 [ZZ] (random
 * inputs, 10 warm-up and 30 timed calls; 2048, 4096, 8192: 676.6, 788.7,
 * 797.5 TFLOP/s; 1024 (176.6) is bound by eager dispatch, 10240 by the
 * power limit, see "Sustained clocks"): E 828.3 TFLOP/s, tau 3.99 us,
 * within 0.5 %, in place of XLA's best-shape table. H100 FP8 [AZ] (m=n=k
 * 1024..32768, 1024x2145x1024, 6144x12288x12288; 274.1 ... 1382.2): E
 * 1361.8 TFLOP/s, tau 4.48 us, rms 2 %, max 4 % (flat: rms 6 %, max 12 %).
 * MI300X has no SM count or shape-aware fit here: its flat curve stands.
 *
 * Clocks the sweeps ran at (what each curve includes; used only under
 * perf.sustained_clock, docs/models.md, "Sustained clocks"): [AZ] ran
 * 10,000 warm-up iterations, so its GEMMs ran at the board power limit's
 * sustained clock: A100 1228 MHz (1410 x 257 / 295, [HE]), H100 FP8 taken
 * at the BF16 sustained clock 1741 MHz (no FP8 clock measurement). [ZZ]'s
 * 2048-8192 runs last 1-60 ms, before the limiter settles: the 1980 MHz
 * boost clock; [XLA]'s table does not state its run length and is taken
 * at the boost clock too (a choice). Attention benchmarks ([FA],
 * FlashAttention-2/3 papers) are short runs: the boost clock. */
/* flat fit (default) */
#define A100_GEMM_FLOPS 248.0e12
#define A100_GEMM_TAU_S 10.7e-6
#define H100_GEMM_FLOPS 802.0e12
#define H100_GEMM_TAU_S 4.6e-6
#define H100_FP8_FLOPS 1363.5e12
#define H100_FP8_TAU_S 6.5e-6
/* shape-aware fit (perf.gemm_shapes) */
#define A100_GEMM_Q_FLOPS 251.7e12
#define A100_GEMM_Q_TAU_S 3.43e-6
#define H100_GEMM_Q_FLOPS 828.3e12
#define H100_GEMM_Q_TAU_S 3.99e-6
#define H100_FP8_Q_FLOPS 1361.8e12
#define H100_FP8_Q_TAU_S 4.48e-6
/* Launch-to-launch gap [GB]: the smallest (64 kB) streaming kernel runs every
 * 2.6 us on A100-80GB and every 2.4 us on H200 (GH100, as the H100). */
#define A100_SMS 108
#define H100_SMS 132
#define A100_GEMM_AT (1228.0 / 1410)
#define H100_GEMM_AT 1.0
#define H100_FP8_AT (1741.0 / 1980)
#define ATTN_AT 1.0
#define A100_KERNEL_S 2.6e-6
#define H100_KERNEL_S 2.4e-6
/* HBM [AZ] BabelStream triad: A100 1.70 of 2.0 TB/s, H100 2.97 of 3.35,
 * H200 4.15 of 4.8 ([GB]: A100-80GB triad 1.76 TB/s at full occupancy). */
#define A100_MEM (1.70 / 2.0)
#define H100_MEM (2.97 / 3.35)
#define H200_MEM (4.15 / 4.8)
/* nccl-tests all-reduce on 8 GPUs [AZ], fitted from 16 MB to 8 GB: A100 ring
 * busbw 232 GB/s and 11.7 us per ring step (rms 5 %, max 13 %: 109.2 GB/s
 * at 16 MB, 132.8 at 32 MB, 213.9 at 256 MB, 231.6 at 8 GB); H100 NVLink
 * SHARP algbw 275 GB/s (busbw 480, NVIDIA/nccl-tests#212) and 35.3 us per
 * step (rms 4 %, max 6 %: 234.5 at 16 MB, 295.5 at 32 MB, 423.4 at 256 MB,
 * 478.9 at 8 GB). Below 16 MB NCCL switches protocol and the fitted step is
 * too slow (A100 4 MB: 37 GB/s modelled, 71 measured). No public H100 ring
 * curve was found: its ring step is the A100's (marked in `source`). */
#define A100_RING_LAT_S 11.7e-6

/* A latency-bound collective inside a node (a few KiB or less: an FP8
 * amax, per-expert token counts): one call takes what the smallest size of
 * a measured in-node all-reduce curve takes, where NCCL runs its low-latency
 * protocol and the time hardly depends on the size (43.83 us at 32 KiB,
 * 46.80 at 64 KiB). A100: nccl-tests all_reduce_perf on 8 x A100, 32 KiB,
 * 43.83 us (stas00/ml-engineering network/README.md at 744d01e;
 * ../shared/calibration/allreduce_8xA100_nccltests_stas00.tsv). GH100
 * (H100, H200; NVLink 4, NVSwitch): torch.distributed all_reduce on 8 x
 * H200, 32 KiB at 0.82 GB/s algbw, 40.0 us (stas00/ml-engineering
 * network/benchmarks/results/all-reduce-8xH200.md at c53741b;
 * allreduce_8xH200_nvls_torch_bench.tsv; Ring + LL up to 1 MiB). */
#define A100_SMALL_COLL_S 43.83e-6
#define H100_SMALL_COLL_S (32768 / 0.82e9)
#define H100_NVLS_LAT_S 35.3e-6
/* Causal flash attention against key length s [FA]: FlashAttention-2
 * forward, A100 SXM, 32 query heads (32 and 8 KV heads), 16k tokens per call:
 * causal 143.7 / 140.6 TFLOP/s at s = 1024 and 156.3 / 159.4 at s = 4096,
 * non-causal 177.7-187.1 (flat within 4 %). The diagonal tiles are computed
 * in full, so e(s) = e x s / (s + s0): the two means fit s0 = 157 tokens
 * (about one 128-wide tile), residual within 1.1 % of each point. The level
 * stays the published one (attn_fwd/bwd); the backward and the H100 (FA3
 * also tiles keys by 128 at head dim 128) borrow this shape, unmeasured. */
#define ATTN_CAUSAL_S0 157.0
/* FlashAttention-1 (flash-attn 1.x, CUDA) forward + backward [F1]: the
 * "FlashAttention" bars of the FlashAttention-2 release's benchmark figures
 * (Dao-AILab/flash-attention 4f285b3, 2023-07-17,
 * assets/flash2_{a100,h100}_fwd_bwd_benchmark.png; FlashAttention-2 paper,
 * arXiv:2307.08691, figs. 4 and 7): FP16, 16k tokens per call (batch x key
 * length), hidden 2048 (32 heads of 64 or 16 of 128), no dropout, 30
 * repeats (short runs: the boost clock, like the other attention figures).
 * A100 80GB SXM4 and H100 80GB SXM5; the H200 (the same GH100 compute)
 * takes the H100's. The same figures put FlashAttention-2 at 99-189
 * (A100) and 163-328 (H100) TFLOP/s causal at head dim 128. The 2022
 * Triton FlashAttention (flash_attn_triton.py, which llm-foundry's
 * `attn_impl: triton` runs) is, by its own docstring, "slightly slower"
 * than this kernel forward + backward; it is timed here (an upper bound). */
static const WkAttnTable FA1_A100 = {{
    {{91, 92, 104, 108, 110, 110}, {58, 70, 77, 87, 92, 97}},  /* head dim 64: non-causal, causal */
    {{76, 72, 76, 80, 82, 83}, {55, 62, 69, 76, 80, 83}},      /* head dim 128 */
}, 312e12};
static const WkAttnTable FA1_H100 = {{
    {{157, 159, 161, 161, 166, 168}, {104, 123, 136, 138, 149, 156}},
    {{127, 127, 128, 131, 137, 139}, {98, 109, 108, 126, 135, 137}},
}, 989e12};
/* V100 (SXM2, 125 TFLOP/s FP16 tensor peak): [MK] S. Markidis et al., "NVIDIA
 * Tensor Core Programmability, Performance & Precision", IPDPSW 2018
 * (arXiv:1803.04014), abstract and section IV: cuBLAS GEMM on the tensor
 * cores of a Tesla V100 reaches up to 83 TFLOP/s in mixed precision (its
 * best size, CUDA 9): e_max = 83/125; no V100 size sweep was found, so the
 * fixed tail tau is the A100 fit's 10.7 us (the generic rule: the nearest
 * measured generation's). HBM [GB] gpu-stream/v100.txt: triad 814 GB/s at
 * full occupancy of 900; launch gap [GB] gpu-small-kernels/v100.txt: the
 * smallest (64 kB) streaming kernel at 30 GB/s, 2.1 us. Attention,
 * collectives (no V100 nccl-tests figure used) and the overlap slowdown:
 * the A100's ratios (marked in `source`). */
#define V100_GEMM_FLOPS 83.0e12
#define V100_KERNEL_S 2.1e-6
#define V100_MEM (814.0 / 900)

/* [OV]: average compute slowdown while communication overlaps it. */
#define OVERLAP_SLOWDOWN 0.189

/* The V100 entry; V100-SXM2-16G is the same GPU (one datasheet) and takes it whole. */
#define V100_EFF(name) \
    { \
        .sku = (name), .mat_max = V100_GEMM_FLOPS / 125e12, \
        .mat_half_flops = (A100_GEMM_TAU_S - V100_KERNEL_S) * V100_GEMM_FLOPS, .fp8_max = 0, .fp8_half_flops = 0, \
        .attn_fwd = 0.62, .attn_bwd = 0.55, .attn_causal_s0 = ATTN_CAUSAL_S0, \
        .vec_flops = 15.7e12, .mem_max = V100_MEM, .kernel_s = V100_KERNEL_S, \
        .overlap_slowdown = OVERLAP_SLOWDOWN, .nvlink_eff = 232.0 / 300, .nvls_algbw_eff = 0, .net_eff = 0.94, \
        .ring_lat_s = A100_RING_LAT_S, .nvls_lat_s = 0, .measured = 1, \
        .source = "GEMM: cuBLAS tensor-core GEMM up to 83 TFLOP/s (Markidis et al., IPDPSW 2018), with the A100 " \
                  "fit's 10.7 us tail (no V100 sweep); HBM: triad 814 GB/s, launch gap 2.1 us " \
                  "(te42kyfo/gpu-benches v100); FP32 vector 15.7 TFLOP/s (datasheet); attention, collectives " \
                  "(NVLink busbw 232/300 of line rate, ring step 11.7 us) and overlap slowdown: the A100's " \
                  "(no V100 kernel or nccl-tests figure used)", \
    }

/* P100, T4 and A10 (the Alibaba trace's PCIe cards): no public kernel-level
 * GEMM, stream or collective figures used, so the generic rule: the A100's
 * ratios (GEMM fraction of the peak and its 10.7 us tail, HBM fraction,
 * launch gap, attention, collectives, overlap), with each card's own
 * datasheet 16-bit peak (`peak`, for the GEMM tail) and FP32 vector peak
 * (`vec`); no shape-aware fit, no sustained-clock correction. Marked
 * borrowed. */
#define A100_RATIOS(name, peak, vec) \
    { \
        .sku = (name), .mat_max = A100_GEMM_FLOPS / 312e12, \
        .mat_half_flops = (A100_GEMM_TAU_S - A100_KERNEL_S) * A100_GEMM_FLOPS / 312e12 * (peak), .fp8_max = 0, \
        .fp8_half_flops = 0, .attn_fwd = 0.62, .attn_bwd = 0.55, .attn_causal_s0 = ATTN_CAUSAL_S0, \
        .vec_flops = (vec), .mem_max = A100_MEM, .kernel_s = A100_KERNEL_S, .overlap_slowdown = OVERLAP_SLOWDOWN, \
        .nvlink_eff = 232.0 / 300, .nvls_algbw_eff = 0, .net_eff = 0.94, .ring_lat_s = A100_RING_LAT_S, \
        .nvls_lat_s = 0, .measured = 0, .borrowed = "A100-SXM-80G", \
        .source = "no public kernel or collective measurements used: the A100's ratios (the generic rule); " \
                  "FP32 vector peak from the datasheet", \
    }

static const WkGpuEff table[] = {
    {
        .sku = "A100-SXM-80G", .mat_max = A100_GEMM_FLOPS / 312e12,
        .mat_half_flops = (A100_GEMM_TAU_S - A100_KERNEL_S) * A100_GEMM_FLOPS, .fp8_max = 0, .fp8_half_flops = 0,
        .attn_fwd = 0.62, .attn_bwd = 0.55, .attn_causal_s0 = ATTN_CAUSAL_S0, .fa1 = &FA1_A100,
        .vec_flops = 19.5e12, .mem_max = A100_MEM, .kernel_s = A100_KERNEL_S,
        .overlap_slowdown = OVERLAP_SLOWDOWN, .nvlink_eff = 232.0 / 300, .nvls_algbw_eff = 0, .net_eff = 0.94,
        .ring_lat_s = A100_RING_LAT_S, .nvls_lat_s = 0, .small_coll_s = A100_SMALL_COLL_S, .sms = A100_SMS,
        .gemm_at = A100_GEMM_AT,
        .attn_at = ATTN_AT, .mat_max_q = A100_GEMM_Q_FLOPS / 312e12,
        .mat_half_q = (A100_GEMM_Q_TAU_S - A100_KERNEL_S) * A100_GEMM_Q_FLOPS, .measured = 1,
        .source = "GEMM: Azure ND A100 v4 cuBLASLt sweep (random inputs), fit 248.0 TFLOP/s + 10.7 us (with wave "
                  "quantization, perf.gemm_shapes: 251.7 TFLOP/s + 3.43 us), at its sustained 1228 MHz; "
                  "HBM: BabelStream triad 1.70 TB/s (same); launch gap 2.6 us (te42kyfo/gpu-benches); "
                  "attention: FlashAttention-2 (Dao, ICLR'24) causal hd128 fwd ~195, bwd ~170 TFLOP/s, "
                  "causal shape s/(s+157) (FA2 forward sweep, liangan1/GPU_travel); FlashAttention-1 (flash1): "
                  "the FlashAttention-2 release's fwd+bwd figure; "
                  "all-reduce: nccl-tests busbw 232 GB/s, 11.7 us per ring step (Azure ND A100 v4), 43.8 us "
                  "for a small one (nccl-tests 8 x A100 at 32 KiB, stas00/ml-engineering); "
                  "IB ring 47 of 50 GB/s (REFERENCES.md); overlap slowdown 18.9 % (arXiv:2507.03114)",
    },
    {
        .sku = "H100-SXM-80G", .mat_max = H100_GEMM_FLOPS / 989e12,
        .mat_half_flops = (H100_GEMM_TAU_S - H100_KERNEL_S) * H100_GEMM_FLOPS, .fp8_max = H100_FP8_FLOPS / 1979e12,
        .fp8_half_flops = (H100_FP8_TAU_S - H100_KERNEL_S) * H100_FP8_FLOPS, .attn_fwd = 0.60, .attn_bwd = 0.45,
        .attn_causal_s0 = ATTN_CAUSAL_S0, .fa1 = &FA1_H100, .vec_flops = 67e12, .mem_max = H100_MEM,
        .kernel_s = H100_KERNEL_S,
        .overlap_slowdown = OVERLAP_SLOWDOWN,
        .nvlink_eff = 370.0 / 450, .nvls_algbw_eff = 275.0 / 450, .net_eff = 0.94, .ring_lat_s = A100_RING_LAT_S,
        .nvls_lat_s = H100_NVLS_LAT_S, .small_coll_s = H100_SMALL_COLL_S, .sms = H100_SMS, .gemm_at = H100_GEMM_AT,
        .fp8_at = H100_FP8_AT,
        .attn_at = ATTN_AT, .mat_max_q = H100_GEMM_Q_FLOPS / 989e12,
        .mat_half_q = (H100_GEMM_Q_TAU_S - H100_KERNEL_S) * H100_GEMM_Q_FLOPS, .fp8_max_q = H100_FP8_Q_FLOPS / 1979e12,
        .fp8_half_q = (H100_FP8_Q_TAU_S - H100_KERNEL_S) * H100_FP8_Q_FLOPS, .measured = 1,
        .source = "GEMM: XLA cuBLAS sweep sm_90, 802 TFLOP/s + 4.6 us (with wave quantization, perf.gemm_shapes: "
                  "torch.matmul random-input sweep (zzc0721 #79), 828.3 TFLOP/s + 3.99 us), at the 1980 MHz boost "
                  "clock; FP8: Azure ND H100 v5 cuBLASLt sweep, fit 1363.5 TFLOP/s + 6.5 us (shapes: 1361.8 "
                  "TFLOP/s + 4.48 us), at the sustained 1741 MHz; HBM: BabelStream triad 2.97 TB/s (Azure); "
                  "launch gap: the "
                  "H200's 2.4 us (GH100); attention: FlashAttention-3 (Shah et al., 2024) causal hd128 BF16, "
                  "causal shape: the A100's; FlashAttention-1 (flash1): the FlashAttention-2 release's fwd+bwd figure; "
                  "ring busbw 370 and NVLS busbw 480 (algbw 275) GB/s on 8 GPUs (NVIDIA/nccl-tests#212), "
                  "NVLS 35.3 us per step (Azure ND H100 v5); ring step: the A100's (no H100 ring curve used); "
                  "a small all-reduce 40.0 us (8 x H200 at 32 KiB, stas00/ml-engineering; same NVLink 4); "
                  "NDR ring 46-48 of 50 GB/s (REFERENCES.md); overlap slowdown 18.9 % (arXiv:2507.03114)",
    },
    {
        .sku = "H200-SXM", .mat_max = H100_GEMM_FLOPS / 989e12,
        .mat_half_flops = (H100_GEMM_TAU_S - H100_KERNEL_S) * H100_GEMM_FLOPS, .fp8_max = H100_FP8_FLOPS / 1979e12,
        .fp8_half_flops = (H100_FP8_TAU_S - H100_KERNEL_S) * H100_FP8_FLOPS, .attn_fwd = 0.60, .attn_bwd = 0.45,
        .attn_causal_s0 = ATTN_CAUSAL_S0, .fa1 = &FA1_H100, .vec_flops = 67e12, .mem_max = H200_MEM,
        .kernel_s = H100_KERNEL_S,
        .overlap_slowdown = OVERLAP_SLOWDOWN,
        .nvlink_eff = 370.0 / 450, .nvls_algbw_eff = 275.0 / 450, .net_eff = 0.94, .ring_lat_s = A100_RING_LAT_S,
        .nvls_lat_s = H100_NVLS_LAT_S, .small_coll_s = H100_SMALL_COLL_S, .sms = H100_SMS, .gemm_at = H100_GEMM_AT,
        .fp8_at = H100_FP8_AT,
        .attn_at = ATTN_AT, .mat_max_q = H100_GEMM_Q_FLOPS / 989e12,
        .mat_half_q = (H100_GEMM_Q_TAU_S - H100_KERNEL_S) * H100_GEMM_Q_FLOPS, .fp8_max_q = H100_FP8_Q_FLOPS / 1979e12,
        .fp8_half_q = (H100_FP8_Q_TAU_S - H100_KERNEL_S) * H100_FP8_Q_FLOPS, .measured = 0, .borrowed = "H100-SXM-80G",
        .source = "HBM: BabelStream triad 4.15 of 4.8 TB/s and launch gap 2.4 us measured on H200 (Azure ND "
                  "H200 v5; te42kyfo/gpu-benches); GEMM, attention and collectives: the H100's (same GH100 "
                  "compute die and NVLink4; Azure's H200 FP8 sweep from 2048^3 up and NVLS curve from 16 MiB up "
                  "are within 3 % of the H100's)",
    },
    {
        .sku = "MI300X", .mat_max = 758.3 / 1307, .mat_half_flops = (H100_GEMM_TAU_S - H100_KERNEL_S) * 758.3e12,
        .fp8_max = 758.3 / 1307 * (H100_FP8_FLOPS / 1979e12) / (H100_GEMM_FLOPS / 989e12),
        .fp8_half_flops = (H100_FP8_TAU_S - H100_KERNEL_S) * 758.3e12 * 2615 / 1307 * (H100_FP8_FLOPS / 1979e12) /
                          (H100_GEMM_FLOPS / 989e12),
        .attn_fwd = 0.60 * (758.3 / 1307) / (802.0 / 989), .attn_bwd = 0.45 * (758.3 / 1307) / (802.0 / 989),
        .attn_causal_s0 = ATTN_CAUSAL_S0,
        .vec_flops = 163.4e12, .mem_max = H100_MEM, .kernel_s = H100_KERNEL_S, .overlap_slowdown = OVERLAP_SLOWDOWN,
        .nvlink_eff = 370.0 / 450, .nvls_algbw_eff = 0, .net_eff = 0.94, .ring_lat_s = A100_RING_LAT_S,
        .nvls_lat_s = 0, .measured = 0, .borrowed = "H100-SXM-80G",
        .source = "GEMM: MAMF 758.3 TFLOP/s (mag-/gpu_benchmark); FP8, attention, memory, launch gap and "
                  "collectives: the H100's ratios (no public RCCL or attention sweep used)",
    },
    {
        .sku = "Ascend-910B", .mat_max = A100_GEMM_FLOPS / 312e12,
        .mat_half_flops = (A100_GEMM_TAU_S - A100_KERNEL_S) * A100_GEMM_FLOPS, .fp8_max = 0, .fp8_half_flops = 0,
        .attn_fwd = 0.62, .attn_bwd = 0.55, .attn_causal_s0 = ATTN_CAUSAL_S0,
        .vec_flops = 19.5e12, .mem_max = A100_MEM, .kernel_s = A100_KERNEL_S,
        .overlap_slowdown = OVERLAP_SLOWDOWN, .nvlink_eff = 232.0 / 300, .nvls_algbw_eff = 0, .net_eff = 0.94,
        .ring_lat_s = A100_RING_LAT_S, .nvls_lat_s = 0, .sms = A100_SMS,
        .mat_max_q = A100_GEMM_Q_FLOPS / 312e12,
        .mat_half_q = (A100_GEMM_Q_TAU_S - A100_KERNEL_S) * A100_GEMM_Q_FLOPS, .measured = 0, .borrowed = "A100-SXM-80G",
        .source = "no public kernel or HCCL measurements used: the A100's (nearest peak and generation)",
    },
    V100_EFF("V100-SXM2-32G"),
    V100_EFF("V100-SXM2-16G"), /* the same GPU with 16 GB */
    A100_RATIOS("P100-PCIe-16G", 18.7e12, 9.3e12),
    A100_RATIOS("T4-16G", 65e12, 8.1e12),
    A100_RATIOS("A10-24G", 125e12, 31.2e12),
};
#define NEFF (sizeof table / sizeof table[0])

const WkGpuEff *wk_eff_find(const char *name)
{
    for (size_t i = 0; name && i < NEFF; i++)
        if (strcmp(table[i].sku, name) == 0)
            return &table[i];
    return NULL;
}

const WkGpuEff *wk_eff_nearest(double bf16_flops)
{
    /* A100 and H100 are the measured generations; choose by BF16 peak */
    return fabs(bf16_flops - 312e12) < fabs(bf16_flops - 989e12) ? &table[0] : &table[1];
}

double wk_eff_gemm_s(const WkGpuEff *e, double flops, double peak, int fp8)
{
    if (!(flops > 0))
        return 0;
    int f8 = fp8 && e->fp8_max > 0;
    double emax = f8 ? e->fp8_max : e->mat_max, half = f8 ? e->fp8_half_flops : e->mat_half_flops;
    return (flops + half) / (emax * peak);
}

WkGpuEff wk_eff_shaped(const WkGpuEff *e)
{
    WkGpuEff s = *e;
    if (e->mat_max_q > 0) {
        s.mat_max = e->mat_max_q;
        s.mat_half_flops = e->mat_half_q;
    }
    if (e->fp8_max_q > 0) {
        s.fp8_max = e->fp8_max_q;
        s.fp8_half_flops = e->fp8_half_q;
    }
    return s;
}

double wk_eff_wave_q(const WkGpuEff *e, double M, double N, double n)
{
    static const double tile[][2] = {{128, 256}, {256, 128}, {128, 128}};
    if (!(e->sms > 0) || !(M > 0) || !(N > 0) || !(n > 0))
        return 1;
    double best = 0;
    for (size_t i = 0; i < sizeof tile / sizeof tile[0]; i++) {
        double tiles = n * ceil(M / tile[i][0]) * ceil(N / tile[i][1]);
        double q = n * M * N / (ceil(tiles / e->sms) * e->sms * tile[i][0] * tile[i][1]);
        best = q > best ? q : best;
    }
    return best;
}

double wk_eff_gemm_mnk_s(const WkGpuEff *e, double M, double N, double K, double n, double peak, int fp8)
{
    double f = 2 * M * N * K;
    if (!(f > 0) || !(n > 0))
        return 0;
    int f8 = fp8 && e->fp8_max > 0;
    double emax = f8 ? e->fp8_max : e->mat_max, half = f8 ? e->fp8_half_flops : e->mat_half_flops;
    return (n * f / wk_eff_wave_q(e, M, N, n) + half) / (emax * peak); /* one kernel: one fixed tail */
}

double wk_eff_attn_s(const WkGpuEff *e, double flops, double peak, double s, int causal, int bwd)
{
    if (!(flops > 0))
        return 0;
    double eff = bwd ? e->attn_bwd : e->attn_fwd;
    if (causal && s > 0)
        eff *= s / (s + e->attn_causal_s0);
    return flops / (peak * eff);
}

double wk_eff_attn_fa1_s(const WkGpuEff *e, double flops, double peak, double s, int causal, double hd)
{
    if (!e->fa1 || !(hd > 0) || hd > 128)
        return -1;
    if (!(flops > 0))
        return 0;
    double pad = 16; /* the kernels' head block: the next power of two, at least 16 */
    while (pad < hd)
        pad *= 2;
    const double *r = e->fa1->tflops[pad > 64][causal != 0];
    double x = s > 512 ? log2(s / 512) : 0; /* 0 .. 5 over 512 .. 16k */
    int i = x < WK_ATTN_TAB_S - 1 ? (int)x : WK_ATTN_TAB_S - 2;
    double u = x - i < 1 ? x - i : 1;
    double tflops = r[i] + (r[i + 1] - r[i]) * u;
    return flops / (peak * tflops * 1e12 / e->fa1->peak * hd / pad);
}

double wk_eff_mem_s(const WkGpuEff *e, double bytes, double vec_flops, double hbm_bw, double speed)
{
    double tm = bytes > 0 ? bytes / (hbm_bw * e->mem_max) : 0;
    double tv = vec_flops > 0 ? vec_flops / (e->vec_flops * speed) : 0;
    return tm > tv ? tm : tv;
}
