/* SPDX-License-Identifier: Apache-2.0 */
/* perf_clock.h — the SM clock a job's GPUs run at under the board power
 * limit, remembered per input (a run re-evaluates the same few models at
 * every re-rate). Internal to perf.c; equations in docs/models.md,
 * "Sustained clocks". */
#ifndef WK_WORKLOAD_PERF_CLOCK_H
#define WK_WORKLOAD_PERF_CLOCK_H

#include "models/gpu/catalog.h"
#include "models/workload/ops.h"

/** wk_ops_sustain_of(c, mix, arg, sku, cap_clock), remembered in a small per-thread cache keyed
 * on `tag` (which mix function), the id_len bytes at id (everything mix
 * reads through arg; at most 320 bytes, else not remembered) and every
 * input of c and sku the answer reads; c's op_bytes, op_kernels and norm_eff
 * are not in the key and must be unset (NULL, 0). Sets c's clock factors and returns the run
 * clock factor. */
double wk_perf_sustain_mix(WkOpsCtx *c, int tag, const void *id, size_t id_len, WkSustainMix mix, const void *arg,
                           const WkGpuSku *sku, double cap_clock);

/** wk_ops_sustain(c, sh, sku, cap_clock), remembered in a small per-thread
 * cache keyed on every input it reads: sets c's clock factors and returns
 * the run clock factor exactly as wk_ops_sustain would. */
double wk_perf_sustain(WkOpsCtx *c, const WkOpsShape *sh, const WkGpuSku *sku, double cap_clock);

/** The SM clock in MHz of run clock factor `run` (of the top clock) on
 * sku; 0 for a SKU the DVFS table does not list (its fallback row is not
 * that SKU's clock). */
double wk_perf_run_mhz(const WkGpuSku *sku, double run);

#endif
