/* SPDX-License-Identifier: Apache-2.0 */
/* dvfs.c — the per-SKU clock and power-limit table and the DVFS power
 * curve (see dvfs.h; sources in docs/models.md). */
#include "models/gpu/dvfs.h"

#include "models/gpu/calib.h"

#include <string.h>

/* v0 = 0.5: supply voltage taken linear in clock with half the top-clock
 * voltage at the origin, so P_dyn ∝ f·V² falls about 2.2× faster than the
 * clock near the top (the CMOS relation P_dyn = α·C·V²·f; Mei, Wang & Chu,
 * "A survey and measurement study of GPU DVFS on energy conservation",
 * Digital Communications and Networks 3(2), 2017). A modelling choice, not
 * fitted: the studies that measure power and throughput against clock or
 * cap (H100: arXiv 2604.11391; A100: arXiv 2510.06902, 2607.00819) give
 * their per-point results in figures only, so no fit and no residual yet
 * (docs/models.md, "Calibration status of v0"). */
#define V0 0.5

/* spec_mhz: the clock the datasheet's dense tensor peak assumes, peak = SMs
 * x dense FLOP per SM per clock x clock: A100 108 x 2048 x 1410 MHz = 312
 * TFLOP/s (its top clock); H100/H200 SXM 132 x 4096 x 1830 MHz = 989
 * TFLOP/s (the SXM5's 1830 MHz boost clock of the NVIDIA H100 Tensor Core
 * GPU Architecture whitepaper's per-SM rates, below the 1980 MHz top
 * clock); MI300X 304 CUs x 2048 x 2100 MHz = 1307 TFLOP/s (its peak engine
 * clock). gemm_mhz: the clock a random-input GEMM loop sustains at the
 * TDP (docs/models.md, "Sustained clocks"): A100 1410 x 257 / 295 = 1228
 * MHz (H. He, thonking.ai 2024: cuBLAS 8192^3 zeros 295 and randn 257
 * TFLOP/s, the zeros run taken at the top clock); H100 1980 x 719.7 /
 * 818.4 = 1741 MHz (../shared/calibration/torch_matmul_sweep_zzc0721.tsv:
 * the 10240^3 run, the only one long enough for the limiter, against the
 * curve fitted to the shorter 2048-8192 runs, eff.c); H200 the H100's
 * (same die and 700 W; TileOPs issue #1587 reports an H200 at 700 W that
 * cannot hold 1830 MHz under full load). MI300X and Ascend-910B: no
 * measurement (0: no sustained-clock correction). */

static const WkDvfs table[] = {
    {.sku = "A100-SXM-80G", .max_mhz = 1410, .min_mhz = 210, .cap_min_w = 100, .v0 = V0, .spec_mhz = 1410,
     .gemm_mhz = 1228,
     .source = "nvidia-smi -q of A100-SXM4-80GB: Max Clocks SM 1410 MHz, idle SM 210 MHz, "
               "Min/Max Power Limit 100/400 W"},
    {.sku = "H100-SXM-80G", .max_mhz = 1980, .min_mhz = 345, .cap_min_w = 200, .v0 = V0, .spec_mhz = 1830,
     .gemm_mhz = 1741,
     .source = "nvidia-smi -q of H100 80GB HBM3 (SXM5): Applications Clocks 1980 MHz, idle SM 345 MHz, "
               "Min/Max Power Limit 200/700 W"},
    {.sku = "H200-SXM", .max_mhz = 1980, .min_mhz = 345, .cap_min_w = 200, .v0 = V0, .spec_mhz = 1830,
     .gemm_mhz = 1741,
     .source = "taken from H100-SXM-80G (same GH100 die and 700 W limit; no H200 figures cited)"},
    {.sku = "MI300X", .max_mhz = 2100, .min_mhz = 500, .cap_min_w = 200, .v0 = V0, .spec_mhz = 2100,
     .source = "AMD MI300X datasheet peak engine clock 2100 MHz; lowest clock and power limit are "
               "the H100's fractions (no cited figure)"},
    {.sku = "Ascend-910B", .max_mhz = 1410, .min_mhz = 210, .cap_min_w = 100, .v0 = V0, .spec_mhz = 1410,
     .source = "taken from A100-SXM-80G (400 W class; no cited figure)"},
    {.sku = "V100-SXM2-32G", .max_mhz = 1530, .min_mhz = 1530.0 * 210 / 1410, .cap_min_w = 300.0 * 100 / 400,
     .v0 = V0, .spec_mhz = 1530,
     .source = "NVIDIA V100 whitepaper: SXM2 boost clock 1530 MHz, at which the 125 TFLOP/s tensor peak is "
               "specified; lowest clock and power limit are the A100's fractions (no cited figure); no "
               "sustained-GEMM clock measured"},
    {.sku = "V100-SXM2-16G", .max_mhz = 1530, .min_mhz = 1530.0 * 210 / 1410, .cap_min_w = 300.0 * 100 / 400,
     .v0 = V0, .spec_mhz = 1530, .source = "taken from V100-SXM2-32G (the same GPU; no cited figure)"},
    /* P100, T4, A10: the clock the datasheet's 16-bit peak implies, peak /
     * (SMs x FLOP per SM per clock): P100 PCIe 18.7 TFLOP/s / (56 x 256) =
     * 1304 MHz, T4 65 / (40 x 1024) = 1587 MHz, A10 125 / (72 x 1024) = 1695
     * MHz; lowest clock and power limit the A100's fractions (no cited
     * figure); no sustained-GEMM clock measured. */
    {.sku = "P100-PCIe-16G", .max_mhz = 18.7e12 / (56 * 256.0) / 1e6, .min_mhz = 18.7e12 / (56 * 256.0) / 1e6 * 210 / 1410,
     .cap_min_w = 250.0 * 100 / 400, .v0 = V0, .spec_mhz = 18.7e12 / (56 * 256.0) / 1e6,
     .source = "clock of the P100 PCIe datasheet's 18.7 TFLOP/s FP16 peak on 56 SMs; lowest clock and power "
               "limit are the A100's fractions (no cited figure)"},
    {.sku = "T4-16G", .max_mhz = 65e12 / (40 * 1024.0) / 1e6, .min_mhz = 65e12 / (40 * 1024.0) / 1e6 * 210 / 1410,
     .cap_min_w = 70.0 * 100 / 400, .v0 = V0, .spec_mhz = 65e12 / (40 * 1024.0) / 1e6,
     .source = "clock of the T4 datasheet's 65 TFLOP/s FP16 tensor peak on 40 SMs; lowest clock and power limit "
               "are the A100's fractions (no cited figure)"},
    {.sku = "A10-24G", .max_mhz = 125e12 / (72 * 1024.0) / 1e6, .min_mhz = 125e12 / (72 * 1024.0) / 1e6 * 210 / 1410,
     .cap_min_w = 150.0 * 100 / 400, .v0 = V0, .spec_mhz = 125e12 / (72 * 1024.0) / 1e6,
     .source = "clock of the A10 datasheet's 125 TFLOP/s BF16 dense peak on 72 SMs; lowest clock and power limit "
               "are the A100's fractions (no cited figure)"},
};

#define NDVFS (sizeof table / sizeof table[0])

const WkDvfs *wk_dvfs_of(const WkGpuSku *sku)
{
    for (size_t i = 0; sku && sku->name && i < NDVFS; i++)
        if (strcmp(table[i].sku, sku->name) == 0)
            return &table[i];
    return &table[1];
}

double wk_dvfs_power_frac(const WkDvfs *d, double f)
{
    double v = d->v0 + (1 - d->v0) * f;
    return f * v * v;
}

double wk_dvfs_clock_for(const WkDvfs *d, double frac, double lo)
{
    if (frac >= 1)
        return 1;
    if (frac <= wk_dvfs_power_frac(d, lo))
        return lo;
    double a = lo, b = 1;
    while (b - a > 1e-12) {
        double m = 0.5 * (a + b);
        if (wk_dvfs_power_frac(d, m) > frac)
            b = m;
        else
            a = m;
    }
    return a;
}

double wk_dvfs_floor(const WkGpuSku *sku)
{
    const WkDvfs *d = wk_dvfs_of(sku);
    double lo = d->min_mhz / d->max_mhz, span = sku->tdp_w - sku->idle_w;
    if (!(span > 0))
        return lo;
    return wk_dvfs_clock_for(d, (d->cap_min_w - sku->idle_w) / span, lo);
}

double wk_dvfs_cap_clock(const WkGpuSku *sku, double cap_w, double activity)
{
    double span = (sku->tdp_w - sku->idle_w) * activity;
    if (!(span > 0) || cap_w >= sku->idle_w + span)
        return 1;
    return wk_dvfs_clock_for(wk_dvfs_of(sku), (cap_w - sku->idle_w) / span, wk_dvfs_floor(sku));
}

double wk_dvfs_gemm_activity(const WkDvfs *d)
{
    if (!(d->gemm_mhz > 0) || d->gemm_mhz >= d->max_mhz)
        return 1;
    return 1 / wk_dvfs_power_frac(d, d->gemm_mhz / d->max_mhz);
}

/* The activity of a random-input GEMM loop on sku: the DVFS row's, or
 * from the SKU's calibration file where it gives the loop's sustained clock
 * f (the row's gemm_mhz when not) or its power P (the TDP when not):
 * idle + (tdp - idle) a g(f / max_mhz) = P (docs/models.md, "Calibration
 * files"). */
static double gemm_activity(const WkGpuSku *sku, const WkDvfs *d)
{
    const WkGpuCalib *r = sku->calib;
    unsigned clk = r ? r->used & (1u << WK_CALIB_SUSTAINED_CLOCK_MHZ) : 0;
    unsigned pw = r ? r->used & (1u << WK_CALIB_SUSTAINED_POWER_W) : 0;
    if (!clk && !pw)
        return wk_dvfs_gemm_activity(d);
    double mhz = clk ? r->value[WK_CALIB_SUSTAINED_CLOCK_MHZ] : d->gemm_mhz;
    double f = mhz > 0 && mhz < d->max_mhz ? mhz / d->max_mhz : 1, span = sku->tdp_w - sku->idle_w;
    double p = pw ? r->value[WK_CALIB_SUSTAINED_POWER_W] : sku->tdp_w;
    if (!(span > 0) || !(p > sku->idle_w))
        return 1;
    return (p - sku->idle_w) / (span * wk_dvfs_power_frac(d, f));
}

double wk_dvfs_sustained_clock(const WkGpuSku *sku, double activity)
{
    const WkDvfs *d = wk_dvfs_of(sku);
    double a = gemm_activity(sku, d) * activity;
    if (!(a > 1))
        return 1;
    return wk_dvfs_clock_for(d, 1 / a, wk_dvfs_floor(sku));
}

double wk_dvfs_time_factor(double f, double compute)
{
    return compute / f + (1 - compute);
}
