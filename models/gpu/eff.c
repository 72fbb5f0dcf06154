/* SPDX-License-Identifier: Apache-2.0 */
/* eff.c — the per-SKU efficiency table (kernel- and collective-level
 * measurements only, each cited) and the size curves built on it. A SKU
 * without public measurements borrows the nearest generation's, marked. */
#include "models/gpu/eff.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* GEMM time constant: XLA's measured cuBLAS sweep on sm_90 (H100 SXM,
 * xla/service/gpu/model/matmul_interpolator_data.h) fits
 * t = F / (0.81 peak) + 4.6 us within 3 % from 17 GFLOP to 275 GFLOP (20 %
 * at 2 GFLOP); 1 us of it is the launch gap (KERNEL_S), the remaining 3.6 us
 * is the tile/wave tail, F_half = 3.6 us x e_max x peak. */
#define GEMM_TAIL_S 3.6e-6
/* Launch gap between back-to-back kernels in a stream: 3.8 us per 2.9 us
 * kernel in NVIDIA's CUDA Graphs measurement (Gray, NVIDIA blog 2019), ~1 us. */
#define KERNEL_S 1.0e-6

static const WkGpuEff table[] = {
    {
        .sku = "A100-SXM-80G", .mat_max = 267.9 / 312, .mat_half_flops = GEMM_TAIL_S * 267.9e12,
        .fp8_max = 0, .attn_fwd = 0.62, .attn_bwd = 0.55, .vec_flops = 19.5e12, .mem_max = 0.90,
        .kernel_s = KERNEL_S, .sms = 108, .coll_sms = 16, .nvlink_eff = 232.0 / 300, .nvls_algbw_eff = 0,
        .net_eff = 0.94, .measured = 1,
        .source = "GEMM: MAMF 267.9 TFLOP/s (Bekman, ml-engineering mamf-finder; mag-/gpu_benchmark); "
                  "attention: FlashAttention-2 (Dao, ICLR'24) causal hd128 fwd ~195, bwd ~170 TFLOP/s; "
                  "all-reduce busbw ~232 GB/s on 8 GPUs (nccl-tests, REFERENCES.md); IB ring 47 of 50 GB/s",
    },
    {
        .sku = "H100-SXM-80G", .mat_max = 802.0 / 989, .mat_half_flops = GEMM_TAIL_S * 802e12,
        .fp8_max = 1350.0 / 1979, .attn_fwd = 0.60, .attn_bwd = 0.45, .vec_flops = 67e12, .mem_max = 0.90,
        .kernel_s = KERNEL_S, .sms = 132, .coll_sms = 16, .nvlink_eff = 370.0 / 450,
        .nvls_algbw_eff = 275.0 / 450, .net_eff = 0.94, .measured = 1,
        .source = "GEMM: XLA cuBLAS sweep sm_90, 802 TFLOP/s at 4x2048x4096x4096, MAMF 792; FP8: DeepGEMM "
                  "1350+ TFLOP/s on Hopper; attention: FlashAttention-3 (Shah et al., 2024) causal hd128 BF16; "
                  "ring busbw 370 and NVLS busbw 480 (algbw 275) GB/s on 8 GPUs (NVIDIA/nccl-tests#212); "
                  "NDR ring 46-48 of 50 GB/s (REFERENCES.md)",
    },
    {
        .sku = "H200-SXM", .mat_max = 802.0 / 989, .mat_half_flops = GEMM_TAIL_S * 802e12,
        .fp8_max = 1350.0 / 1979, .attn_fwd = 0.60, .attn_bwd = 0.45, .vec_flops = 67e12, .mem_max = 0.90,
        .kernel_s = KERNEL_S, .sms = 132, .coll_sms = 16, .nvlink_eff = 370.0 / 450,
        .nvls_algbw_eff = 275.0 / 450, .net_eff = 0.94, .measured = 0, .borrowed = "H100-SXM-80G",
        .source = "no public kernel sweep used: the H100's (same GH100 compute die and NVLink4)",
    },
    {
        .sku = "MI300X", .mat_max = 758.3 / 1307, .mat_half_flops = GEMM_TAIL_S * 758.3e12,
        .fp8_max = 758.3 / 1307 * (1350.0 / 1979) / (802.0 / 989), .attn_fwd = 0.60 * (758.3 / 1307) / (802.0 / 989),
        .attn_bwd = 0.45 * (758.3 / 1307) / (802.0 / 989), .vec_flops = 163.4e12, .mem_max = 0.90,
        .kernel_s = KERNEL_S, .sms = 304, .coll_sms = 16, .nvlink_eff = 370.0 / 450, .nvls_algbw_eff = 0,
        .net_eff = 0.94, .measured = 0, .borrowed = "H100-SXM-80G",
        .source = "GEMM: MAMF 758.3 TFLOP/s (mag-/gpu_benchmark); FP8, attention, memory and collectives: "
                  "the H100's ratios (no public RCCL or attention sweep used)",
    },
    {
        .sku = "Ascend-910B", .mat_max = 267.9 / 312, .mat_half_flops = GEMM_TAIL_S * 267.9e12, .fp8_max = 0,
        .attn_fwd = 0.62, .attn_bwd = 0.55, .vec_flops = 19.5e12, .mem_max = 0.90, .kernel_s = KERNEL_S,
        .sms = 108, .coll_sms = 16, .nvlink_eff = 232.0 / 300, .nvls_algbw_eff = 0, .net_eff = 0.94,
        .measured = 0, .borrowed = "A100-SXM-80G",
        .source = "no public kernel or HCCL measurements used: the A100's (nearest peak and generation)",
    },
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
    double emax = fp8 && e->fp8_max > 0 ? e->fp8_max : e->mat_max;
    /* same time constant at either precision: F_half scales with the peak */
    double half = e->mat_half_flops * (fp8 && e->fp8_max > 0 ? e->fp8_max * 2 / e->mat_max : 1.0);
    return (flops + half) / (emax * peak);
}

double wk_eff_mem_s(const WkGpuEff *e, double bytes, double vec_flops, double hbm_bw, double speed)
{
    double tm = bytes > 0 ? bytes / (hbm_bw * e->mem_max) : 0;
    double tv = vec_flops > 0 ? vec_flops / (e->vec_flops * speed) : 0;
    return tm > tv ? tm : tv;
}
