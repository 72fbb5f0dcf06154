/* SPDX-License-Identifier: Apache-2.0 */
/* cli_eval.h — the evaluations behind `wanka topo` (topo_eval.c) and
 * `wanka perf` (perf_eval.c): a scenario's cluster or one training job
 * described without running a simulation. They print nothing; the commands
 * in cli_run.c print what they return. Only the executable includes this. */
#ifndef WK_CLI_EVAL_H
#define WK_CLI_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/trace/summary.h"

/** Describe the cluster of a scenario (doc borrowed) without running it:
 * GPUs by SKU, nodes, pods, NVLink domains, switches per tier, links, optics,
 * bisection bandwidth, peak and idle power, as summary rows. Only the
 * `cluster` section is read (and the top-level keys checked). Returns 0 or a
 * positioned error. */
int wk_cli_topology(const WkDoc *doc, WkSummary *out, WkError *err);

/** `wanka perf`: evaluate one training job on a cluster without simulating.
 * doc holds `model:` (a preset name or a map), `gpus:`, and optionally
 * `cluster:` (default: H100 nodes with a 400G rail-optimized fabric sized to
 * the job), `perf:` and `models:`. The job is placed on the first GPUs, its
 * ring flows share the fabric with each other. With scale[0..nscale) (GPU
 * counts), prints a scaling curve instead: DP grows at fixed TP/PP/CP with
 * the micro-batches per replica held fixed (weak scaling). flags:
 * WK_CLI_PERF_JSON (one JSON object or array), WK_CLI_PERF_OPS (the text
 * report of one job gains the operator breakdown of its bounding stage).
 * *text receives a malloc'd table or JSON (caller frees). Positioned errors. */
enum { WK_CLI_PERF_JSON = 1, WK_CLI_PERF_OPS = 2 };

int wk_cli_perf(const WkDoc *doc, const uint32_t *scale, size_t nscale, unsigned flags, char **text, WkError *err);

#endif
