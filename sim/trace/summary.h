/* SPDX-License-Identifier: Apache-2.0 */
/* summary.h — a run's summary: an ordered list of named metrics with units,
 * rendered as a text table or one JSON object. Metric definitions live in
 * docs/metrics.md. The library formats into strings; only main prints. */
#ifndef WK_SUMMARY_H
#define WK_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"

/* Metrics of one summary at most: a network's 64 sites (WK_NET_MAX_SITES)
 * with 8 rows each, beside its own rows and those of `span`, fit. */
#define WK_SUMMARY_MAX 768

typedef struct WkMetric {
    char name[48];   /* machine name, e.g. "jct_p99_s" */
    char label[64];  /* human label, e.g. "job completion time p99" */
    char units[16];  /* "s", "GPUs", "", ... */
    double value;    /* NaN = not defined for this run (shown as "—" / null) */
    int is_int;      /* print as an integer */
} WkMetric;

typedef struct WkSummary {
    char title[160];     /* when set: the table's first line instead of scenario/scheduler/seed */
    char scenario[128];  /* scenario name */
    char scheduler[32];  /* scheduler name */
    uint64_t seed;
    size_t n;            /* metrics in m (before m: wk_summary_dup_used keeps only m[0..n)) */
    WkMetric m[WK_SUMMARY_MAX];
} WkSummary;

/** Append a metric (name/label/units truncated to their field sizes).
 * Returns 0, or WK_E_RANGE when the summary is full. */
int wk_summary_add(WkSummary *s, const char *name, const char *label, const char *units, double value,
                   int is_int);

/** Bytes of s that hold its content: the header and its n metrics (a
 * summary's tail past m[n-1] is unused). */
size_t wk_summary_used_size(const WkSummary *s);

/** A copy of s in a block of wk_summary_used_size(s) bytes (malloc'd,
 * caller frees), or NULL on OOM. Only its n metrics may be read; never
 * add to it, nor copy it whole with '='. */
WkSummary *wk_summary_dup_used(const WkSummary *s);

/** The metric called name, or NULL. */
const WkMetric *wk_summary_get(const WkSummary *s, const char *name);

/** Render as an aligned text table (malloc'd, caller frees), or NULL on OOM. */
char *wk_summary_table(const WkSummary *s);

/** Render as one JSON object {"scenario":..,"scheduler":..,"seed":..,
 * "metrics":{name:value,...},"units":{name:units,...}} with a trailing newline
 * (malloc'd, caller frees), or NULL on OOM. Numbers print with 17 significant
 * digits, so equal summaries give identical bytes. */
char *wk_summary_json(const WkSummary *s);

/** Quantile q in [0,1] of sorted x[0..n) by linear interpolation between
 * closest ranks (Hyndman & Fan type 7, as GSL's
 * gsl_stats_quantile_from_sorted_data); NaN when n == 0. */
double wk_quantile_sorted(const double *x, size_t n, double q);

#endif
