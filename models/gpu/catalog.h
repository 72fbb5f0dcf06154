/* SPDX-License-Identifier: Apache-2.0 */
/* catalog.h — built-in GPU SKUs: peak throughput, memory and power. Every
 * number carries its public source (docs/models.md, ../shared/REFERENCES.md).
 * Per-GPU dynamic state (health, clock) belongs to the cluster, not here. */
#ifndef WK_GPU_CATALOG_H
#define WK_GPU_CATALOG_H

#include <stddef.h>

typedef struct WkGpuSku {
    const char *name;          /* catalog key, e.g. "H100-SXM-80G" */
    double bf16_flops;         /* dense BF16 peak, FLOP/s */
    double fp8_flops;          /* dense FP8 peak, FLOP/s; 0 = unsupported */
    double hbm_bytes;          /* HBM capacity, bytes */
    double hbm_bw_bytes_per_s; /* HBM bandwidth, bytes/s */
    double link_bw_bytes_per_s;/* intra-node link bandwidth per GPU, bytes/s */
    double tdp_w;              /* board power limit, W */
    double idle_w;             /* idle power, W */
    const char *source;        /* where the numbers come from */
} WkGpuSku;

/** The built-in SKU called `name` (exact, case-sensitive), or NULL. */
const WkGpuSku *wk_catalog_find(const char *name);

/** Number of built-in SKUs. */
size_t wk_catalog_count(void);

/** Built-in SKU i (< wk_catalog_count()), borrowed, static storage. */
const WkGpuSku *wk_catalog_at(size_t i);

/** Comma-separated list of built-in SKU names into buf (for error messages). */
const char *wk_catalog_names(char *buf, size_t n);

#endif
