/* SPDX-License-Identifier: Apache-2.0 */
/* perf_clock.c — the SM clock a job's GPUs run at under the power limit
 * (see perf_clock.h; docs/models.md, "Sustained clocks"). */
#include "models/workload/perf_clock.h"

#include <string.h>

#include "models/gpu/calib.h"
#include "models/gpu/dvfs.h"

/* What a sustained clock depends on, byte for byte (copied into a zeroed
 * key, so equal keys mean equal inputs; unequal padding only costs a
 * miss): which mix (tag) and what it reads (id: a layer's shape, or a
 * data-parallel model and its batch), the context's peaks and switches,
 * the curves, and the SKU's DVFS inputs (name, power, cap, the
 * calibration file's sustained clock and power). */
#define SUSTAIN_ID_MAX 320
typedef struct SustainKey {
    unsigned char id[SUSTAIN_ID_MAX];
    size_t id_len;
    int tag;
    WkGpuEff e;
    double peak, peak_fp8, hbm, speed, tdp_w, idle_w, cap_clock, calib_mhz, calib_w;
    int fp8_current, shapes;
    unsigned calib_used;
    char sku[48];
} SustainKey;

#define SUSTAIN_CACHE 8
/* The last SUSTAIN_CACHE answers of this thread (a run re-evaluates the
 * same few models at every re-rate; the clock depends on none of what a
 * re-rate changes). */
static _Thread_local struct {
    SustainKey key[SUSTAIN_CACHE];
    double clk[SUSTAIN_CACHE][4]; /* gemm, fp8, attention time factors; run clock */
    int n, next;
} sustain_cache;

double wk_perf_sustain_mix(WkOpsCtx *c, int tag, const void *id, size_t id_len, WkSustainMix mix, const void *arg,
                           const WkGpuSku *sku, double cap_clock)
{
    SustainKey k;
    memset(&k, 0, sizeof k);
    int cacheable = sku->name && strlen(sku->name) < sizeof k.sku && id_len <= sizeof k.id;
    if (cacheable) {
        memcpy(k.id, id, id_len);
        k.id_len = id_len;
        k.tag = tag;
        memcpy(&k.e, c->e, sizeof *c->e);
        k.peak = c->peak, k.peak_fp8 = c->peak_fp8, k.hbm = c->hbm, k.speed = c->speed;
        k.tdp_w = sku->tdp_w, k.idle_w = sku->idle_w, k.cap_clock = cap_clock;
        k.fp8_current = c->fp8_current, k.shapes = c->shapes;
        if (sku->calib) {
            unsigned mask = (1u << WK_CALIB_SUSTAINED_CLOCK_MHZ) | (1u << WK_CALIB_SUSTAINED_POWER_W);
            k.calib_used = sku->calib->used & mask;
            k.calib_mhz = sku->calib->value[WK_CALIB_SUSTAINED_CLOCK_MHZ];
            k.calib_w = sku->calib->value[WK_CALIB_SUSTAINED_POWER_W];
        }
        memcpy(k.sku, sku->name, strlen(sku->name));
        for (int i = 0; i < sustain_cache.n; i++)
            if (memcmp(&sustain_cache.key[i], &k, sizeof k) == 0) {
                c->gemm_clk = sustain_cache.clk[i][0];
                c->fp8_clk = sustain_cache.clk[i][1];
                c->attn_clk = sustain_cache.clk[i][2];
                return sustain_cache.clk[i][3];
            }
    }
    double run = wk_ops_sustain_of(c, mix, arg, sku, cap_clock);
    if (cacheable) {
        int i = sustain_cache.next;
        sustain_cache.key[i] = k;
        sustain_cache.clk[i][0] = c->gemm_clk;
        sustain_cache.clk[i][1] = c->fp8_clk;
        sustain_cache.clk[i][2] = c->attn_clk;
        sustain_cache.clk[i][3] = run;
        sustain_cache.next = (i + 1) % SUSTAIN_CACHE;
        if (sustain_cache.n < SUSTAIN_CACHE)
            sustain_cache.n++;
    }
    return run;
}

double wk_perf_sustain(WkOpsCtx *c, const WkOpsShape *sh, const WkGpuSku *sku, double cap_clock)
{
    return wk_perf_sustain_mix(c, 0, sh, sizeof *sh, wk_ops_layer_mix, sh, sku, cap_clock);
}

double wk_perf_run_mhz(const WkGpuSku *sku, double run)
{
    const WkDvfs *d = wk_dvfs_of(sku);
    return d && strcmp(d->sku, sku->name) == 0 ? run * d->max_mhz : 0;
}

