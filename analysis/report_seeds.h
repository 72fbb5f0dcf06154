/* SPDX-License-Identifier: Apache-2.0 */
/* report_seeds.h — the seed paper's tables over several seeds: each row of
 * n reports (one per seed, same scenario) as mean ± the 95 % confidence
 * half-width (Student's t, n − 1 degrees of freedom) beside the published
 * value. Nothing is adjusted; a seed whose row is missing (NaN) is left out
 * of that row and the row says over how many seeds it stands. */
#ifndef WK_REPORT_SEEDS_H
#define WK_REPORT_SEEDS_H

#include <stddef.h>

#include "analysis/report.h"

/* Mean and 95 % half-width of the finite values among v[0..n). */
typedef struct WkSeedStat {
    double mean;  /* NaN when no value is finite */
    double ci95;  /* NaN with fewer than 2 finite values */
    size_t n;     /* finite values */
} WkSeedStat;

/** Mean and 95 % confidence half-width (t quantile, n − 1 dof) of v. */
WkSeedStat wk_seed_stat(const double *v, size_t n);

/** Render the rows of reps[0..n) (reports of the same name, one per seed,
 * rows in the same order) as text, Markdown, LaTeX (one booktabs tabular,
 * `what`, the citation and the footnote as % comments) or CSV (RFC 4180:
 * per simulated column its mean, ci95 and n, numbers in the row's units);
 * `what` is a heading line naming the runs (borrowed). malloc'd, caller
 * frees; NULL when out of memory, n == 0 or fmt is WK_REPORT_JSON (not
 * offered here). */
char *wk_report_seeds_render(WkReport *const *reps, size_t n, const char *what, WkReportFormat fmt);

#endif
