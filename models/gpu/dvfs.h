/* SPDX-License-Identifier: Apache-2.0 */
/* dvfs.h — GPU clocks and power caps: per SKU the clock range and the
 * settable power-limit range (cited), the dynamic power as a function of
 * the SM clock (f·V(f)² with V linear in f), the clock a power cap leaves a
 * busy GPU, and the run time of work split into clock-bound and
 * clock-independent parts. Not the facility budget (models/gpu/site.h).
 * Equations and sources: docs/models.md, "Clocks and power caps". */
#ifndef WK_GPU_DVFS_H
#define WK_GPU_DVFS_H

#include "models/gpu/catalog.h"

typedef struct WkDvfs {
    const char *sku;      /* the SKU the figures are for */
    double max_mhz;       /* highest SM clock (clock factor 1) */
    double min_mhz;       /* lowest SM clock the driver offers */
    double cap_min_w;     /* lowest power limit `nvidia-smi -pl` accepts, W */
    double v0;            /* supply voltage at clock 0 / at the highest clock (linear V–f), in [0, 1] */
    double spec_mhz;      /* SM clock at which the catalog's tensor peaks are specified */
    double gemm_mhz;      /* SM clock a random-input GEMM loop sustains at the TDP (0 = not measured) */
    const char *source;   /* where the figures come from */
} WkDvfs;

/** The DVFS figures of sku: its own row when one is known by name (A100,
 * H100, H200, MI300X, Ascend-910B), otherwise the H100's (stated in
 * docs/models.md). Never NULL; static storage. */
const WkDvfs *wk_dvfs_of(const WkGpuSku *sku);

/** Normalised dynamic power at clock factor f in (0, 1]:
 * g(f) = f · (v0 + (1 − v0)·f)², so g(1) = 1 and g rises monotonically. */
double wk_dvfs_power_frac(const WkDvfs *d, double f);

/** The clock factor f in [lo, 1] with g(f) = frac (bisection to 1e-12;
 * lo when frac <= g(lo), 1 when frac >= 1). */
double wk_dvfs_clock_for(const WkDvfs *d, double frac, double lo);

/** Lowest clock factor a cap may drive sku to: the larger of min_mhz/max_mhz
 * and the clock at which a fully busy GPU (activity 1) draws cap_min_w. */
double wk_dvfs_floor(const WkGpuSku *sku);

/** Clock factor of a GPU of sku busy at `activity` (in (0, 1]) under a
 * power cap of cap_w W: 1 when its full-clock draw fits, else the f with
 * idle + (tdp − idle)·activity·g(f) = cap_w, never below wk_dvfs_floor. */
double wk_dvfs_cap_clock(const WkGpuSku *sku, double cap_w, double activity);

/** Activity of a random-input GEMM loop in the units of
 * wk_power_gpu_w (1 = TDP at max_mhz): 1 / g(gemm_mhz / max_mhz), so that
 * such a loop at the TDP sits at gemm_mhz. 1 when gemm_mhz is 0. */
double wk_dvfs_gemm_activity(const WkDvfs *d);

/** Sustained clock factor (of max_mhz) of a GPU of sku at its TDP whose
 * operator mix runs at `activity` (in (0, 1], 1 = a random-input GEMM
 * loop): the f with (tdp − idle) · a_gemm · activity · g(f) = tdp − idle,
 * a_gemm = wk_dvfs_gemm_activity, i.e. g(f) = 1 / (a_gemm · activity);
 * 1 when a_gemm · activity <= 1; never below wk_dvfs_floor. Where sku's
 * calibration file (calib.h) gives sustained_clock_mhz f_s and/or
 * sustained_power_w P (the row's gemm_mhz and the TDP standing for the one
 * not given), a_gemm = (P − idle) / ((tdp − idle) · g(f_s / max_mhz)). */
double wk_dvfs_sustained_clock(const WkGpuSku *sku, double activity);

/** Run time at clock factor f relative to full clock, for work of which a
 * share `compute` (in [0, 1]) scales with the clock and the rest (memory,
 * communication) does not: compute / f + (1 − compute). */
double wk_dvfs_time_factor(double f, double compute);

#endif
