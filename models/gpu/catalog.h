/* SPDX-License-Identifier: Apache-2.0 */
/* catalog.h — GPU SKUs: peak throughput, memory and power. The built-in
 * table carries its public sources (docs/models.md, ../shared/REFERENCES.md);
 * a run's catalog starts from it and a scenario may add SKUs or override
 * fields of built-in ones (`cluster.skus`). Per-GPU dynamic state (health,
 * clock) belongs to the cluster, not here. */
#ifndef WK_GPU_CATALOG_H
#define WK_GPU_CATALOG_H

#include <stddef.h>

#include "models/gpu/eff.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"

typedef struct WkGpuSku {
    const char *name;          /* catalog key, e.g. "H100-SXM-80G" */
    double bf16_flops;         /* dense BF16 peak, FLOP/s */
    double fp8_flops;          /* dense FP8 peak, FLOP/s; 0 = unsupported */
    double hbm_bytes;          /* device memory, bytes: for the built-in SKUs the total the driver reports
                                  (nvidia-smi, rocminfo), a YAML hbm_gb is 1e9 bytes (docs/models.md) */
    double hbm_bw_bytes_per_s; /* HBM bandwidth, bytes/s */
    double link_bw_bytes_per_s;/* intra-node link bandwidth per GPU, bytes/s */
    double tdp_w;              /* board power limit, W */
    double idle_w;             /* idle power, W */
    const char *source;        /* where the numbers come from */
    const WkGpuEff *eff;       /* measured efficiency curves (eff.c); NULL = by name, else nearest */
    double fp64_flops;         /* dense FP64 peak, FLOP/s; 0 = not given */
    const struct WkGpuCalib *calib; /* the calibration file laid over it (calib.h), or NULL */
    int cpu;                   /* 1: a CPU node, not an accelerator: one device per node (gpus_per_node 1),
                                  plain and hpc jobs only (model jobs are refused: docs/models.md) */
    int fp16_only;             /* 1: no BF16 tensor cores (Volta): bf16_flops holds the FP16 tensor peak and
                                  model jobs must say `precision: fp16` (others are refused) */
} WkGpuSku;

/* A CPU "SKU" stands for a whole CPU node: its device is the node (all its
 * sockets), so a cluster of them has one device per node, and the fields
 * read as node figures: bf16_flops and fp64_flops the node's FP64 vector
 * peak (its working precision; what a plain job's speed ratio uses),
 * hbm_* its DRAM, link_bw the socket-to-socket links, tdp_w the sockets'
 * TDP. */

/* Idle power as a fraction of TDP when no figure is given: the middle of the
 * 10–15 % range in ../shared/REFERENCES.md. */
#define WK_GPU_IDLE_FRACTION 0.125

/** The built-in SKU called `name` (exact, case-sensitive), or NULL. */
const WkGpuSku *wk_catalog_find(const char *name);

/** Number of built-in SKUs. */
size_t wk_catalog_count(void);

/** Built-in SKU i (< wk_catalog_count()), borrowed, static storage. */
const WkGpuSku *wk_catalog_at(size_t i);

/* A run's catalog: the built-ins plus the scenario's SKUs. */
typedef struct WkGpuCatalog {
    WkGpuSku *skus; /* owned array; names borrowed from static storage or the scenario document */
    size_t n, cap;
    size_t *slot;   /* owned: open-addressing hash of names, index + 1 into skus (0 = empty),
                       so a lookup is O(1) and tens of thousands of SKUs load in linear time */
    size_t nslot;   /* a power of two, more than twice n */
    struct WkGpuCalib *calib; /* owned: the calibration files applied (calib.h) */
} WkGpuCatalog;

/** Fill c with copies of the built-in SKUs. Returns 0 or WK_E_NOMEM. */
int wk_catalog_init(WkGpuCatalog *c, WkError *err);

/** Apply `cluster.skus` (a sequence; NULL = nothing): an entry whose name is
 * already in c overrides the fields it gives; a new name defines a SKU, from
 * `base:` (another SKU) or from scratch, when bf16_tflops, hbm_gb,
 * hbm_tb_per_s, link_gb_per_s and tdp_w are all required; fp64_tflops and
 * cpu (a bool: a CPU node, one device per node) are optional; `calibration:
 * FILE` lays a calibration file over the entry (wk_calib_apply), whatever
 * SKU the file names. idle_w defaults to
 * WK_GPU_IDLE_FRACTION x tdp_w whenever tdp_w is given without idle_w.
 * Strings are borrowed from the document. Errors are positioned. */
int wk_catalog_apply(WkGpuCatalog *c, const WkNode *skus, WkError *err);

/** `cluster.calibration`: a path or a list of paths (NULL or null: nothing).
 * Each file's `sku:` names the SKU of c it is laid over (wk_calib_apply; an
 * unknown name is WK_E_NOTFOUND listing the SKUs, at the path). Applied
 * after `cluster.skus`. */
int wk_catalog_calibrate(WkGpuCatalog *c, const WkNode *val, WkError *err);

/** The SKU called name in c, or NULL. Borrowed (valid while c lives). */
const WkGpuSku *wk_catalog_lookup(const WkGpuCatalog *c, const char *name);

/** Comma-separated names of c into buf (for error messages). */
const char *wk_catalog_list(const WkGpuCatalog *c, char *buf, size_t n);

/** The efficiency curves of sku: its own, else the built-in ones of the
 * same name, else those of the nearest measured generation. Never NULL. */
const WkGpuEff *wk_catalog_eff(const WkGpuSku *sku);

/** Release c's array. */
void wk_catalog_fini(WkGpuCatalog *c);

#endif
