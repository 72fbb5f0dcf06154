/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_impl.h — what the pieces of the sweep module share: the run helpers
 * of sweep_run.c that the MPI path (sweep_mpi.c) uses too. Not a public
 * interface: only sim/batch/sweep*.c include it. */
#ifndef WK_SWEEP_IMPL_H
#define WK_SWEEP_IMPL_H

#include "sim/batch/sweep.h"

/** Ids of the points in o's shard (id % shard_n == shard_i), in id order,
 * into a new array (*out, owned by the caller) of *nout entries. Returns 0
 * or WK_E_NOMEM. */
int wk_sweep_run_select(const WkSweep *s, const WkSweepRunOpts *o, size_t **out, size_t *nout, WkError *err);

/** Fill one batch job for point p (pp: room for s->naxes puts; *trace: the
 * trace path, owned by the caller, NULL when none). Returns 0 or
 * WK_E_NOMEM. */
int wk_sweep_run_prepare(const WkSweep *s, const WkSweepRunOpts *o, const WkSweepPoint *p, WkBatchJob *j,
                         WkBatchPut *pp, char **trace, WkError *err);

/** Record a finished job's outcome (status, error, summary) in p. */
void wk_sweep_run_take(WkSweepPoint *p, const WkBatchJob *j);

/** Set p's outcome: status, a copy of error (NULL or "": none) and, for
 * WK_SWEEP_OK, a copy of sum (NULL: none, as for a dry run). Out of memory
 * makes an OK point FAILED ("out of memory" when even that can be kept). */
void wk_sweep_point_set(WkSweepPoint *p, int status, const char *error, const WkSummary *sum);

/** Write the index of the points sel[0 .. nsel) (in id order) into o->dir.
 * Returns 0, WK_E_IO or WK_E_NOMEM. */
int wk_sweep_run_index(const WkSweep *s, const WkSweepRunOpts *o, const size_t *sel, size_t nsel, WkError *err);

#endif
