/* SPDX-License-Identifier: Apache-2.0 */
/* compare.c — `wanka compare`: load the summaries of several traces, pool the
 * seeds of one configuration (mean ± Student-t 95 % half-width) and compute
 * the change against the first column. Rendering is in compare_render.c. */
#include "analysis/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/trace/schema.h"
#include "sim/trace/sweep_index.h"
#include "sim/trace/trace_read.h"

/* The rows shown first, in this order; the other metrics follow
 * alphabetically. */
static const char *const preferred[] = {
    WK_SCHEMA_M_UTILIZATION, WK_SCHEMA_M_UTIL_EFFECTIVE, WK_SCHEMA_M_UTIL_GPU_STD, WK_SCHEMA_M_JCT_MEAN,
    WK_SCHEMA_M_JCT_P50, WK_SCHEMA_M_JCT_P99, WK_SCHEMA_M_WAIT_MEAN, WK_SCHEMA_M_WAIT_P99,
    WK_SCHEMA_M_MAKESPAN, WK_SCHEMA_M_ENERGY, WK_SCHEMA_M_MEAN_POWER, WK_SCHEMA_M_TOKENS_PER_JOULE,
    WK_SCHEMA_M_INTERRUPTIONS, WK_SCHEMA_M_RECOVERY_MEAN, WK_SCHEMA_M_RECOVERY_P99, WK_SCHEMA_M_LOST_GPU_HOURS,
    WK_SCHEMA_M_ETTR, WK_SCHEMA_M_GOODPUT, NULL,
};

/* One trace as read. */
typedef struct Run {
    const char *path;
    char *scenario, *scheduler, *overrides;
    long long seed;
    int has_seed;
    WkTraceMetric *m;
    size_t nm;
} Run;

/* ---- loading ------------------------------------------------------------------ */

static int copy_error(WkError *err, const WkError *sub)
{
    return wk_error_set(err, sub->code, sub->where[0] ? sub->where : NULL, 0, 0, "%s", sub->msg);
}

static void run_fini(Run *r)
{
    free(r->scenario);
    free(r->scheduler);
    free(r->overrides);
    free(r->m);
}

static int run_load(Run *run, const char *path, WkError *err)
{
    memset(run, 0, sizeof *run);
    run->path = path;
    WkTraceRead *r = NULL;
    int rc = wk_trace_read_open(&r, path, err);
    if (rc < 0)
        return rc;
    rc = wk_trace_read_attr_str_opt(r, WK_SCHEMA_ATTR_SCENARIO_NAME, &run->scenario, err);
    if (rc == 0)
        rc = wk_trace_read_attr_str_opt(r, WK_SCHEMA_ATTR_SCHEDULER, &run->scheduler, err);
    if (rc == 0)
        rc = wk_trace_read_attr_str_opt(r, WK_SCHEMA_ATTR_OVERRIDES, &run->overrides, err);
    if (rc == 0) {
        WkError sub;
        wk_error_clear(&sub);
        int64_t seed = 0;
        int s = wk_trace_read_attr_i64(r, WK_SCHEMA_ATTR_SEED, &seed, &sub);
        if (s == 0) {
            run->seed = (long long)seed;
            run->has_seed = 1;
        } else if (s != WK_E_NOTFOUND) {
            rc = copy_error(err, &sub);
        }
    }
    if (rc == 0)
        rc = wk_trace_read_summary(r, &run->m, &run->nm, err);
    wk_trace_read_close(r);
    return rc;
}

/* The run of point row of sweep index ix (read from path); its path string
 * is kept in c->owned. */
static int sweep_point_load(Run *run, const WkSweepIndex *ix, const WkSweepRow *row, const char *path,
                            WkCompare *c, WkError *err)
{
    memset(run, 0, sizeof *run);
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) : 0;
    size_t len = strlen(path) + strlen(row->trace) + 32;
    char *p = malloc(len);
    char **grown = realloc(c->owned, (c->nowned + 1) * sizeof *grown);
    if (grown)
        c->owned = grown;
    if (!p || !grown) {
        free(p);
        return wk_error_nomem(err, "compare");
    }
    if (!row->trace[0])
        snprintf(p, len, "%s#%lld", path, (long long)row->id);
    else if (row->trace[0] == '/' || !slash)
        snprintf(p, len, "%s", row->trace);
    else
        snprintf(p, len, "%.*s/%s", dirlen, path, row->trace);
    c->owned[c->nowned++] = p;
    run->path = p;
    run->scenario = strdup(ix->scenario_name);
    run->scheduler = strdup(row->scheduler);
    run->overrides = strdup(row->overrides);
    run->seed = (long long)row->seed;
    run->has_seed = row->seed >= 0;
    run->m = calloc(ix->nmetrics ? ix->nmetrics : 1, sizeof *run->m);
    if (!run->scenario || !run->scheduler || !run->overrides || !run->m)
        return wk_error_nomem(err, "compare");
    for (size_t m = 0; m < ix->nmetrics; m++) {
        snprintf(run->m[m].name, sizeof run->m[m].name, "%s", ix->metrics[m]);
        run->m[m].value = row->metric[m];
    }
    run->nm = ix->nmetrics;
    wk_trace_read_metrics_sort(run->m, run->nm);
    return 0;
}

/* ---- grouping -------------------------------------------------------------------- */

static int same_config(const Run *a, const Run *b)
{
    return strcmp(a->scenario, b->scenario) == 0 && strcmp(a->scheduler, b->scheduler) == 0 &&
           strcmp(a->overrides, b->overrides) == 0;
}

/* col[i] = column of run i; returns the number of columns. A run joins the
 * first column of its configuration that does not hold its seed yet. */
static size_t assign_columns(const Run *runs, size_t n, int group, size_t *col)
{
    size_t ncols = 0;
    for (size_t i = 0; i < n; i++) {
        col[i] = SIZE_MAX;
        for (size_t c = 0; group && c < ncols && col[i] == SIZE_MAX; c++) {
            size_t first = SIZE_MAX;
            int clash = 0;
            for (size_t j = 0; j < i; j++) {
                if (col[j] != c)
                    continue;
                if (first == SIZE_MAX)
                    first = j;
                if (!runs[j].has_seed || !runs[i].has_seed || runs[j].seed == runs[i].seed)
                    clash = 1;
            }
            if (first != SIZE_MAX && !clash && same_config(&runs[first], &runs[i]))
                col[i] = c;
        }
        if (col[i] == SIZE_MAX)
            col[i] = ncols++;
    }
    return ncols;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void base_label(const WkCompareColumn *c, char *buf, size_t n)
{
    const char *sched = c->scheduler[0] ? c->scheduler : "?";
    if (c->nruns > 1)
        snprintf(buf, n, "%s (%zu seeds)", sched, c->nruns);
    else if (c->seeds[0] >= 0)
        snprintf(buf, n, "%s/%lld", sched, c->seeds[0]);
    else
        snprintf(buf, n, "%s/?", sched);
}

/* "scheduler/seed" or "scheduler (n seeds)"; a label two columns share gets
 * the first trace's file name, or its path when those are equal too. */
static void make_labels(WkCompare *c)
{
    for (size_t i = 0; i < c->ncols; i++)
        base_label(&c->cols[i], c->cols[i].label, sizeof c->cols[i].label);
    for (int pass = 0; pass < 2; pass++) {
        int *dup = calloc(c->ncols ? c->ncols : 1, sizeof *dup);
        if (!dup)
            return; /* labels stay ambiguous, nothing worse */
        for (size_t i = 0; i < c->ncols; i++)
            for (size_t j = 0; j < c->ncols; j++)
                if (i != j && strcmp(c->cols[i].label, c->cols[j].label) == 0)
                    dup[i] = 1;
        for (size_t i = 0; i < c->ncols; i++) {
            if (!dup[i])
                continue;
            WkCompareColumn *col = &c->cols[i];
            char base[96];
            base_label(col, base, sizeof base);
            const char *file = pass == 0 ? base_name(col->paths[0]) : col->paths[0];
            snprintf(col->label, sizeof col->label, "%s [%.*s]", base, (int)(sizeof col->label - 100), file);
        }
        free(dup);
    }
}

/* ---- metrics ----------------------------------------------------------------------- */

static int preferred_rank(const char *name)
{
    for (int i = 0; preferred[i]; i++)
        if (strcmp(preferred[i], name) == 0)
            return i;
    return -1;
}

static int cmp_rows(const void *pa, const void *pb)
{
    const WkCompareRow *a = pa, *b = pb;
    int ra = preferred_rank(a->name), rb = preferred_rank(b->name);
    if (ra >= 0 && rb >= 0)
        return ra - rb;
    if (ra >= 0 || rb >= 0)
        return ra >= 0 ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_names(const void *pa, const void *pb)
{
    const WkCompareRow *a = pa, *b = pb;
    return strcmp(a->name, b->name);
}

/* The union of the runs' metric names as rows (cells not yet allocated):
 * every name, sorted, duplicates dropped, then in display order
 * (O(N log N) in the N names of all runs). */
static int collect_rows(WkCompare *c, const Run *runs, size_t n, WkError *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < n; i++)
        cap += runs[i].nm;
    c->rows = calloc(cap ? cap : 1, sizeof *c->rows);
    if (!c->rows)
        return wk_error_nomem(err, "compare");
    size_t all = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < runs[i].nm; k++)
            snprintf(c->rows[all++].name, sizeof c->rows[0].name, "%s", runs[i].m[k].name);
    qsort(c->rows, all, sizeof *c->rows, cmp_names);
    for (size_t k = 0; k < all; k++)
        if (c->nrows == 0 || strcmp(c->rows[c->nrows - 1].name, c->rows[k].name) != 0)
            memmove(c->rows[c->nrows++].name, c->rows[k].name, sizeof c->rows[0].name);
    qsort(c->rows, c->nrows, sizeof *c->rows, cmp_rows);
    return 0;
}

/* Mean, 95 % half-width and count of the runs of column col for metric name. */
static void fill_cell(WkCompareCell *cell, const Run *runs, size_t n, const size_t *colof, size_t col,
                      const char *name, double *scratch)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const WkTraceMetric *m = colof[i] == col ? wk_trace_read_metric(runs[i].m, runs[i].nm, name) : NULL;
        if (m && !isnan(m->value))
            scratch[k++] = m->value;
    }
    cell->n = k;
    cell->mean = k ? gsl_stats_mean(scratch, 1, k) : NAN;
    cell->half = NAN;
    if (k >= 2) {
        double sd = gsl_stats_sd(scratch, 1, k);
        cell->half = gsl_cdf_tdist_Pinv(0.975, (double)(k - 1)) * sd / sqrt((double)k);
    }
    cell->change = NAN;
    cell->overlap = -1;
}

static void fill_change(WkCompareCell *cell, const WkCompareCell *first)
{
    cell->change = NAN;
    cell->overlap = -1;
    if (isnan(cell->mean) || isnan(first->mean))
        return;
    double d = cell->mean - first->mean;
    if (fabs(d) <= WK_COMPARE_NOISE * fmax(fabs(cell->mean), fabs(first->mean)))
        cell->change = 0.0; /* float noise (both 0 included): no change */
    else if (first->mean == 0)
        cell->change = NAN;
    else
        cell->change = d / fabs(first->mean);
    if (cell->n >= 2 && first->n >= 2)
        cell->overlap = fabs(cell->mean - first->mean) <= cell->half + first->half;
}

/* ---- public: load / free -------------------------------------------------------------- */

void wk_compare_free(WkCompare *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ncols; i++) {
        free(c->cols[i].scenario);
        free(c->cols[i].scheduler);
        free(c->cols[i].overrides);
        free(c->cols[i].seeds);
        free(c->cols[i].paths);
    }
    for (size_t r = 0; r < c->nrows; r++)
        free(c->rows[r].cells);
    for (size_t i = 0; i < c->nowned; i++)
        free(c->owned[i]);
    free(c->owned);
    free(c->cols);
    free(c->rows);
    free(c);
}

static int build_columns(WkCompare *c, const Run *runs, size_t n, const size_t *colof, WkError *err)
{
    c->cols = calloc(c->ncols, sizeof *c->cols);
    if (!c->cols)
        return wk_error_nomem(err, "compare");
    for (size_t k = 0; k < c->ncols; k++) {
        WkCompareColumn *col = &c->cols[k];
        for (size_t i = 0; i < n; i++)
            col->nruns += colof[i] == k;
        col->seeds = calloc(col->nruns, sizeof *col->seeds);
        col->paths = calloc(col->nruns, sizeof *col->paths);
        if (!col->seeds || !col->paths)
            return wk_error_nomem(err, "compare");
        size_t j = 0;
        for (size_t i = 0; i < n; i++) {
            if (colof[i] != k)
                continue;
            if (j == 0) {
                col->scenario = strdup(runs[i].scenario);
                col->scheduler = strdup(runs[i].scheduler);
                col->overrides = strdup(runs[i].overrides);
                if (!col->scenario || !col->scheduler || !col->overrides)
                    return wk_error_nomem(err, "compare");
            }
            col->seeds[j] = runs[i].has_seed ? runs[i].seed : -1;
            col->paths[j] = runs[i].path;
            j++;
        }
        if (col->nruns > 1)
            c->grouped = 1;
    }
    make_labels(c);
    return 0;
}

int wk_compare_load(WkCompare **out, const char *const *paths, size_t n, int group, WkError *err)
{
    if (!out || !paths || n == 0)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "compare: no traces given");
    *out = NULL;
    /* a sweep index stands for the points it holds that ran */
    WkSweepIndex **ix = calloc(n, sizeof *ix);
    size_t total = 0, npaths = n;
    int rc = 0;
    if (!ix)
        return wk_error_nomem(err, "compare");
    for (size_t i = 0; i < npaths; i++) {
        if (!wk_sweep_index_is(paths[i])) {
            total++;
            continue;
        }
        if ((rc = wk_sweep_index_read(&ix[i], paths[i], err)) < 0) {
            for (size_t j = 0; j < i; j++)
                wk_sweep_index_free(ix[j]);
            free(ix);
            return rc;
        }
        for (size_t r = 0; r < ix[i]->nrows; r++)
            total += ix[i]->rows[r].status == WK_SWEEP_OK;
    }
    n = total;
    Run *runs = calloc(n ? n : 1, sizeof *runs);
    size_t *colof = calloc(n ? n : 1, sizeof *colof);
    double *scratch = calloc(n ? n : 1, sizeof *scratch);
    WkCompare *c = calloc(1, sizeof *c);
    size_t loaded = 0;
    if (!runs || !colof || !scratch || !c) {
        rc = wk_error_nomem(err, "compare");
        goto done;
    }
    if (n == 0) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: the sweep index holds no point that ran", paths[0]);
        goto done;
    }
    for (size_t i = 0; i < npaths; i++) {
        for (size_t r = 0; ix[i] && r < ix[i]->nrows; r++) {
            if (ix[i]->rows[r].status != WK_SWEEP_OK)
                continue;
            rc = sweep_point_load(&runs[loaded], ix[i], &ix[i]->rows[r], paths[i], c, err);
            loaded++;
            if (rc < 0)
                goto done;
        }
        if (ix[i])
            continue;
        rc = run_load(&runs[loaded], paths[i], err);
        loaded++;
        if (rc < 0)
            goto done;
    }
    c->ncols = assign_columns(runs, n, group, colof);
    rc = build_columns(c, runs, n, colof, err);
    if (rc == 0)
        rc = collect_rows(c, runs, n, err);
    if (rc < 0)
        goto done;
    for (size_t r = 0; r < c->nrows; r++) {
        WkCompareRow *row = &c->rows[r];
        if (!(row->cells = calloc(c->ncols, sizeof *row->cells))) {
            rc = wk_error_nomem(err, "compare");
            goto done;
        }
        for (size_t k = 0; k < c->ncols; k++)
            fill_cell(&row->cells[k], runs, n, colof, k, row->name, scratch);
        for (size_t k = 1; k < c->ncols; k++)
            fill_change(&row->cells[k], &row->cells[0]);
    }
    *out = c;
    c = NULL;
done: /* success or not: the runs and indexes are read; only c is kept */
    for (size_t i = 0; runs && i < loaded; i++)
        run_fini(&runs[i]);
    for (size_t i = 0; i < npaths; i++)
        wk_sweep_index_free(ix[i]);
    free(ix);
    free(runs);
    free(colof);
    free(scratch);
    wk_compare_free(c);
    return rc;
}

const WkCompareRow *wk_compare_row(const WkCompare *c, const char *name)
{
    for (size_t r = 0; c && r < c->nrows; r++)
        if (strcmp(c->rows[r].name, name) == 0)
            return &c->rows[r];
    return NULL;
}

/* ---- public: the baseline and the rows shown ----------------------------------------- */

const char wk_compare_default_metrics[] = WK_SCHEMA_M_UTILIZATION "," WK_SCHEMA_M_JCT_MEAN "," WK_SCHEMA_M_JCT_P99
    "," WK_SCHEMA_M_WAIT_MEAN "," WK_SCHEMA_M_WAIT_P99 "," WK_SCHEMA_M_MAKESPAN "," WK_SCHEMA_M_ENERGY
    "," WK_SCHEMA_M_GOODPUT;

/* 1 when a and b name the same file (by device and inode), or equal strings. */
static int same_path(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return 1;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int wk_compare_baseline(WkCompare *c, const char *path, WkError *err)
{
    size_t k = c->ncols;
    for (size_t i = 0; i < c->ncols && k == c->ncols; i++)
        for (size_t j = 0; j < c->cols[i].nruns && k == c->ncols; j++)
            if (same_path(c->cols[i].paths[j], path))
                k = i;
    if (k == c->ncols)
        return wk_error_set(err, WK_E_INVAL, path, 0, 0,
                            "--baseline: not one of the traces compared (give it among the traces too)");
    WkCompareColumn col = c->cols[k];
    memmove(&c->cols[1], &c->cols[0], k * sizeof *c->cols);
    c->cols[0] = col;
    for (size_t r = 0; r < c->nrows; r++) {
        WkCompareCell *cells = c->rows[r].cells, cell = cells[k];
        memmove(&cells[1], &cells[0], k * sizeof *cells);
        cells[0] = cell;
        cells[0].change = NAN;
        cells[0].overlap = -1;
        for (size_t i = 1; i < c->ncols; i++)
            fill_change(&cells[i], &cells[0]);
    }
    return 0;
}

int wk_compare_select(WkCompare *c, const char *names, int strict, WkError *err)
{
    WkCompareRow *rows = calloc(c->nrows ? c->nrows : 1, sizeof *rows);
    char *used = calloc(c->nrows ? c->nrows : 1, 1);
    if (!rows || !used) {
        free(rows);
        free(used);
        return wk_error_nomem(err, "compare");
    }
    size_t n = 0;
    int rc = 0;
    for (const char *p = names; rc == 0 && *p;) {
        size_t l = strcspn(p, ",");
        size_t r = 0;
        while (r < c->nrows && !(strlen(c->rows[r].name) == l && strncmp(c->rows[r].name, p, l) == 0))
            r++;
        if (l == 0 || l >= sizeof rows->name)
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "--metrics: expected names like jct_mean_s,wait_p99_s, got '%s'",
                              names);
        else if (r == c->nrows && strict)
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                              "--metrics: no trace has the metric '%.*s' (--metrics all shows every one)", (int)l, p);
        else if (r < c->nrows && !used[r]) {
            rows[n++] = c->rows[r];
            used[r] = 1;
        }
        p += l;
        if (*p == ',')
            p++;
    }
    if (rc == 0) {
        for (size_t r = 0; r < c->nrows; r++)
            if (!used[r])
                free(c->rows[r].cells);
        free(c->rows);
        c->rows = rows;
        c->nrows = n;
    } else {
        free(rows);
    }
    free(used);
    return rc;
}
