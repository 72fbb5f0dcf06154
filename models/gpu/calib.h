/* SPDX-License-Identifier: Apache-2.0 */
/* calib.h — calibration files: kernel- and collective-level measurements of
 * one GPU, written by tools/calibrate on the user's own machine, that
 * override the efficiency curves (eff.h) and the power figures of a catalog
 * SKU. Format and which field each value sets: docs/models.md
 * "Calibration files". */
#ifndef WK_GPU_CALIB_H
#define WK_GPU_CALIB_H

#include "models/gpu/catalog.h"

/* The values a calibration file may give (`values:` keys), as bits of
 * WkGpuCalib.used. The last ones are recorded but not read by the model. */
enum {
    WK_CALIB_GEMM_BF16_TFLOPS,
    WK_CALIB_GEMM_BF16_TAIL_US,
    WK_CALIB_GEMM_FP8_TFLOPS,
    WK_CALIB_GEMM_FP8_TAIL_US,
    WK_CALIB_ATTN_FWD_TFLOPS,
    WK_CALIB_ATTN_BWD_TFLOPS,
    WK_CALIB_MEMORY_TB_PER_S,
    WK_CALIB_KERNEL_US,
    WK_CALIB_ALLREDUCE_BUSBW,
    WK_CALIB_ALLREDUCE_STEP_US,
    WK_CALIB_POWER_LIMIT_W,
    WK_CALIB_IDLE_W,
    WK_CALIB_DISPATCH_US,
    WK_CALIB_SUSTAINED_CLOCK_MHZ,
    WK_CALIB_SUSTAINED_POWER_W,
    WK_CALIB_ALLREDUCE_SMALL_US,
    WK_CALIB_NUSED, /* the ones above change the model; the ones below are recorded only */
    WK_CALIB_GEMM_BF16_SUSTAINED_TFLOPS = WK_CALIB_NUSED,
    WK_CALIB_NVALUES
};

/** The `values:` key of value v (< WK_CALIB_NVALUES), static storage. */
const char *wk_calib_key(int v);

/* One calibration file as applied to one SKU (owned by the catalog, in
 * its list, so a SKU's pointers to it stay valid while the catalog lives). */
typedef struct WkGpuCalib {
    struct WkGpuCalib *next;
    char *file;      /* the path as opened */
    char *sku;       /* the SKU it was applied to (the catalog's name) */
    char *gpu, *date, *driver, *cuda, *torch, *device; /* from the file ("" = not given) */
    unsigned used;   /* bit v set: value v was given */
    double value[WK_CALIB_NVALUES]; /* in the file's units */
    WkGpuEff eff;    /* the SKU's curves with the file's values over them */
} WkGpuCalib;

/** Read the calibration file named by the scalar `path` (relative to the
 * directory of the file `path` was written in, unless absolute) and apply
 * it to `sku` (a SKU of a catalog or one about to be added): sku->eff
 * becomes the record's copy of its curves with the file's values over them,
 * tdp_w and idle_w take power_limit_w and idle_w, sku->calib points to the
 * record, which is pushed on *list (the catalog's, which frees it).
 * Errors (exit status 2): a missing or unreadable file (WK_E_IO, naming it
 * and positioned at `path`), not YAML/JSON, a wrong `format:`, unknown keys,
 * a value out of range (positioned in the calibration file; a throughput
 * above 1.25x the SKU's peak names the SKU). On error sku is unchanged. */
int wk_calib_apply(WkGpuCalib **list, WkGpuSku *sku, const WkNode *path, WkError *err);

/** The `sku:` the calibration file named by `path` gives, into out (n
 * bytes, truncated). Errors as wk_calib_apply's for the file and a missing
 * `sku:`. */
int wk_calib_file_sku(const WkNode *path, char *out, size_t n, WkError *err);

/** One line saying where sku's numbers come from, into buf (NUL-terminated,
 * truncated at n): "" when sku has no calibration. */
const char *wk_calib_describe(const WkGpuSku *sku, char *buf, size_t n);

/** Free a list of records. */
void wk_calib_free(WkGpuCalib *list);

#endif
