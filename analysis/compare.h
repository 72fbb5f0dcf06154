/* SPDX-License-Identifier: Apache-2.0 */
/* compare.h — `wanka compare`: the summary metrics of several traces side by
 * side, runs of one configuration over several seeds pooled into mean ± 95 %
 * confidence half-width, rendered as text, JSON, CSV, Markdown or LaTeX. Reads
 * traces through sim/trace_read.h; the library formats, only main prints. */
#ifndef WK_COMPARE_H
#define WK_COMPARE_H

#include <stddef.h>

#include "sim/core/error.h"

typedef enum WkCompareFormat {
    WK_COMPARE_TEXT = 0, /* aligned table for a terminal */
    WK_COMPARE_JSON,     /* one JSON object */
    WK_COMPARE_CSV,      /* RFC 4180 CSV, one header line */
    WK_COMPARE_MARKDOWN, /* a GitHub-flavoured Markdown table */
    WK_COMPARE_LATEX,    /* a LaTeX tabular with booktabs rules; notes as % comments */
} WkCompareFormat;

/* One configuration: a single trace, or several seeds of the same
 * (scenario_name, scheduler, overrides). */
typedef struct WkCompareColumn {
    char label[192];     /* "fifo/1", "fifo (3 seeds)"; "[file]" appended to tell duplicates apart */
    char *scenario;      /* root attribute scenario_name (owned) */
    char *scheduler;     /* root attribute scheduler (owned) */
    char *overrides;     /* root attribute overrides (owned) */
    long long *seeds;    /* seed of each run, in argument order (owned) */
    const char **paths;  /* trace of each run (borrowed from the caller's paths) */
    size_t nruns;
} WkCompareColumn;

/* One metric of one column. */
typedef struct WkCompareCell {
    double mean;   /* the value (one run) or the mean over the runs that have it; NaN = missing */
    double half;   /* 95 % confidence half-width t(0.975, n-1)·s/√n when n >= 2, else NaN */
    size_t n;      /* runs of the column with a (non-NaN) value */
    double change; /* (mean − first column's mean) / |first's mean|; NaN for column 0, a missing
                      value or a first mean of 0; 0 when the difference is float noise
                      (WK_COMPARE_NOISE relative, both 0 included) */
    int overlap;   /* 1: this column's interval overlaps column 0's, 0: it does not, -1: not
                      applicable (column 0, or either side has fewer than 2 values) */
} WkCompareCell;

typedef struct WkCompareRow {
    char name[64];         /* summary attribute name, e.g. "jct_p99_s" */
    WkCompareCell *cells;  /* ncols cells (owned) */
} WkCompareRow;

typedef struct WkCompare {
    WkCompareColumn *cols; /* configurations in order of first appearance */
    size_t ncols;
    WkCompareRow *rows;    /* metrics: the preferred order, then the others alphabetically */
    size_t nrows;
    int grouped;           /* 1 when some column pools two or more seeds */
    char **owned;          /* run paths made for the points of sweep indexes (owned) */
    size_t nowned;
} WkCompare;

/** Read the traces paths[0..n) (borrowed; must outlive the result) and build
 * the comparison. With group != 0, runs with equal scenario_name, scheduler
 * and overrides and distinct seeds form one column (a repeated seed starts
 * another column); with group == 0 every trace is a column. Every summary
 * metric any trace has is a row. A sweep index (sweep.h5, sim/sweep_index.h)
 * among the paths stands for each of its points that ran, in id order, with
 * the point's scheduler, overrides, seed and metrics; such a run's path is its
 * trace ("DIR/p0007.h5") or "INDEX#7" when it has none. Returns 0 and a comparison the caller owns (wk_compare_free), or the
 * first trace's error (WK_E_IO missing file, WK_E_INVAL not a trace or an
 * unknown schema major version), naming the file. n must be >= 1. */
int wk_compare_load(WkCompare **out, const char *const *paths, size_t n, int group, WkError *err);

/** Render c (malloc'd, caller frees), or NULL when out of memory. Missing
 * values print "—" (text, Markdown; LaTeX "---"), null (JSON) or nothing (CSV),
 * never 0. LaTeX escapes _ % & # $ { } ~ ^ \\ in labels and metric names. */
char *wk_compare_render(const WkCompare *c, WkCompareFormat fmt);

/* Differences smaller than this, relative to the larger of the two values,
 * are float noise: the change is 0. */
#define WK_COMPARE_NOISE 1e-12

/** The metrics a table shows by default (`wanka compare` text, Markdown and
 * LaTeX): comma-separated names for wk_compare_select. */
extern const char wk_compare_default_metrics[];

/** Make the column holding the trace path (compared as a string, then by
 * device and inode) the first: the one every change is against. The other
 * columns keep their order; change and overlap are recomputed. Returns 0,
 * or WK_E_INVAL naming path when no column holds it. */
int wk_compare_baseline(WkCompare *c, const char *path, WkError *err);

/** Keep only the rows named in names ("a,b,c"), in that order (a name given
 * twice once). With strict, a name no trace has is WK_E_INVAL naming it;
 * without, it is skipped. An empty name is WK_E_INVAL. On error c is
 * unchanged. Returns 0 or a negative WK_E_* code. */
int wk_compare_select(WkCompare *c, const char *names, int strict, WkError *err);

/** The row for metric name, or NULL. */
const WkCompareRow *wk_compare_row(const WkCompare *c, const char *name);

/** Release c. NULL is a no-op. */
void wk_compare_free(WkCompare *c);

#endif
