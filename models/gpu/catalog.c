/* SPDX-License-Identifier: Apache-2.0 */
/* catalog.c — the built-in GPU SKU table. Idle power is taken as 12.5 % of
 * TDP, the middle of the 10–15 % range in ../shared/REFERENCES.md, for every
 * SKU (a modelling choice, documented in docs/models.md). */
#include "models/gpu/catalog.h"

#include <stdio.h>
#include <string.h>

#define T 1e12
#define GB 1e9
#define IDLE_FRACTION 0.125

static const WkGpuSku skus[] = {
    {
        .name = "A100-SXM-80G",
        .bf16_flops = 312 * T, .fp8_flops = 0,
        .hbm_bytes = 80 * GB, .hbm_bw_bytes_per_s = 2.0e12,
        .link_bw_bytes_per_s = 600 * GB, /* NVLink3, bidirectional */
        .tdp_w = 400, .idle_w = 400 * IDLE_FRACTION,
        .source = "NVIDIA A100 datasheet (2021): 312 TFLOP/s BF16 dense, 80 GB HBM2e 2.0 TB/s, NVLink 600 GB/s, 400 W",
    },
    {
        .name = "H100-SXM-80G",
        .bf16_flops = 989 * T, .fp8_flops = 1979 * T,
        .hbm_bytes = 80 * GB, .hbm_bw_bytes_per_s = 3.35e12,
        .link_bw_bytes_per_s = 900 * GB, /* NVLink4, bidirectional */
        .tdp_w = 700, .idle_w = 700 * IDLE_FRACTION,
        .source = "NVIDIA H100 datasheet (2023): 989 TFLOP/s BF16 dense, 1979 FP8, 80 GB HBM3 3.35 TB/s, NVLink 900 GB/s, 700 W",
    },
    {
        .name = "H200-SXM",
        .bf16_flops = 989 * T, .fp8_flops = 1979 * T,
        .hbm_bytes = 141 * GB, .hbm_bw_bytes_per_s = 4.8e12,
        .link_bw_bytes_per_s = 900 * GB,
        .tdp_w = 700, .idle_w = 700 * IDLE_FRACTION,
        .source = "NVIDIA H200 datasheet (2024): 989 TFLOP/s BF16 dense, 141 GB HBM3e 4.8 TB/s, 700 W",
    },
    {
        .name = "MI300X",
        .bf16_flops = 1307 * T, .fp8_flops = 2615 * T,
        .hbm_bytes = 192 * GB, .hbm_bw_bytes_per_s = 5.3e12,
        .link_bw_bytes_per_s = 896 * GB, /* 7 Infinity Fabric links x 128 GB/s */
        .tdp_w = 750, .idle_w = 750 * IDLE_FRACTION,
        .source = "AMD Instinct MI300X datasheet (2023): 1307 TFLOP/s BF16 dense, 2615 FP8, 192 GB HBM3 5.3 TB/s, 750 W",
    },
    {
        .name = "Ascend-910B",
        .bf16_flops = 320 * T, .fp8_flops = 0,
        .hbm_bytes = 64 * GB, .hbm_bw_bytes_per_s = 1.6e12,
        .link_bw_bytes_per_s = 392 * GB, /* HCCS */
        .tdp_w = 400, .idle_w = 400 * IDLE_FRACTION,
        .source = "Huawei Ascend 910B vendor figures: ~320 TFLOP/s FP16, 64 GB HBM2e ~1.6 TB/s, HCCS 392 GB/s, ~400 W",
    },
};

#define NSKU (sizeof skus / sizeof skus[0])

const WkGpuSku *wk_catalog_find(const char *name)
{
    for (size_t i = 0; i < NSKU; i++)
        if (strcmp(skus[i].name, name) == 0)
            return &skus[i];
    return NULL;
}

size_t wk_catalog_count(void) { return NSKU; }

const WkGpuSku *wk_catalog_at(size_t i) { return i < NSKU ? &skus[i] : NULL; }

const char *wk_catalog_names(char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < NSKU && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", skus[i].name);
    return buf;
}
