/* SPDX-License-Identifier: Apache-2.0 */
/* check.h — `wanka check`: regression gates. A baseline file lists scenarios
 * (each with a scheduler, seeds and overrides) and, per summary metric, the
 * expected value and a tolerance; the runs go in parallel (sim/batch/batch.h), the
 * mean over the seeds is compared, and `--update` rewrites the expected
 * values in the file's own text (comments and layout kept). Never prints. */
#ifndef WK_CHECK_H
#define WK_CHECK_H

#include <stddef.h>

#include "sim/batch/batch.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"

typedef struct WkCheckMetric {
    const char *name;      /* summary metric name (borrowed from the baseline) */
    const WkNode *value;   /* the expected value's node: rewritten by --update */
    double expected;       /* NaN: expected to be undefined (written ~) */
    double abs_tol, rel_tol; /* NaN when not given (then the file's `tolerance:`, else 0) */
    double tol;            /* the tolerance applied: max(abs, rel·|expected|) */
    double got;            /* mean over the seeds; NaN when undefined or not run */
    int pass;              /* 1 PASS, 0 FAIL */
    char why[160];         /* why it failed when it did not run or has no such metric */
} WkCheckMetric;

typedef struct WkCheckEntry {
    char *label;           /* `name:`, else "scenario-name/scheduler" */
    WkDoc *doc;            /* the scenario (owned), `set:` applied */
    const char *scheduler; /* NULL: the scenario's own */
    uint64_t *seeds;       /* owned; nseeds 0: the scenario's seed */
    size_t nseeds;
    char **sets;           /* `set:` as "key.path=value" (owned) */
    size_t nsets;
    WkCheckMetric *metrics;
    size_t nmetrics;
    char error[WK_ERROR_WHERE_MAX + WK_ERROR_MSG_MAX + 4]; /* first failed run's error, "" */
} WkCheckEntry;

typedef struct WkCheck {
    char *file;            /* the baseline as given (owned) */
    WkDoc *spec;           /* its document (owned) */
    double abs_tol, rel_tol; /* `tolerance:` defaults, NaN when not given */
    WkCheckEntry *e;
    size_t n;
    size_t nfail;          /* metrics that failed, after wk_check_run */
    size_t nerror;         /* entries with a failed run */
} WkCheck;

/** Read a baseline file (format in docs/batch.md); scenario paths are
 * relative to it. Nothing runs. Returns 0 and a check the caller owns
 * (wk_check_free), or a positioned WK_E_INVAL / WK_E_IO / WK_E_NOTFOUND. */
int wk_check_load(WkCheck **out, const char *path, WkError *err);

/** Run every entry's seeds on `threads` threads (0: OpenMP's default) and
 * judge each metric. progress may be NULL. Returns 0 or WK_E_NOMEM; failed
 * metrics and runs are counted in c->nfail and c->nerror. */
int wk_check_run(WkCheck *c, int threads, WkBatchProgressFn progress, void *user, WkError *err);

/** The result table (scenario, metric, expected, got, tolerance, PASS|FAIL)
 * and a last line with the counts, malloc'd (caller frees); NULL on OOM. */
char *wk_check_table(const WkCheck *c);

/** Rewrite the baseline's expected values with the values got (entries whose
 * runs failed are left alone), editing only those numbers in the file's
 * text, atomically (temp file + rename). *changed receives how many values
 * changed. Returns 0, WK_E_INVAL when an expected value is not a plain
 * scalar ("write it as a number or ~"), or WK_E_IO. */
int wk_check_update(const WkCheck *c, size_t *changed, WkError *err);

/** Release c. NULL is a no-op. */
void wk_check_free(WkCheck *c);

#endif
