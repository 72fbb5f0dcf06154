/* SPDX-License-Identifier: Apache-2.0 */
/* report.c — `wanka report paper-sci`: computes the simulated side of the
 * seed paper's tables from traces (summary metrics, the jobs and incidents
 * tables) beside the published numbers of paper_sci.c. Nothing is fitted or
 * adjusted. Rendering is in report_render.c. */
#include "analysis/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/trace/fair.h"
#include "sim/trace/schema.h"
#include "sim/trace/trace_read.h"

/* One opened trace. */
typedef struct Src {
    WkReportTrace *t;  /* its entry in the report */
    WkTraceRead *r;    /* open for table reads */
    WkTraceMetric *m;  /* summary metrics */
    size_t nm;
} Src;

/* ---- small helpers ---------------------------------------------------------------- */

static int copy_error(WkError *err, const WkError *sub)
{
    return wk_error_set(err, sub->code, sub->where[0] ? sub->where : NULL, 0, 0, "%s", sub->msg);
}

/* Append a note (printf-style). Returns 0 or WK_E_NOMEM. */
static int note(WkReport *R, WkError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int note(WkReport *R, WkError *err, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nn = realloc(R->notes, (R->nnotes + 1) * sizeof *nn);
    if (!nn)
        return wk_error_nomem(err, "report");
    R->notes = nn;
    if (!(R->notes[R->nnotes] = strdup(buf)))
        return wk_error_nomem(err, "report");
    R->nnotes++;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int src_open(Src *s, WkReportTrace *t, const char *role, const char *path, WkError *err)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    t->role = role;
    t->path = path;
    int rc = wk_trace_read_open(&s->r, path, err);
    if (rc == 0)
        rc = wk_trace_read_attr_str_opt(s->r, WK_SCHEMA_ATTR_SCENARIO_NAME, &t->scenario, err);
    if (rc == 0)
        rc = wk_trace_read_attr_str_opt(s->r, WK_SCHEMA_ATTR_SCHEDULER, &t->scheduler, err);
    if (rc == 0)
        rc = wk_trace_read_attr_str_opt(s->r, WK_SCHEMA_ATTR_OVERRIDES, &t->overrides, err);
    if (rc == 0)
        rc = wk_trace_read_summary(s->r, &s->m, &s->nm, err);
    if (rc < 0)
        return rc;
    WkError sub;
    wk_error_clear(&sub);
    int64_t seed = 0;
    int hs = wk_trace_read_attr_i64(s->r, WK_SCHEMA_ATTR_SEED, &seed, &sub) == 0;
    char seedtxt[32] = "?";
    if (hs)
        snprintf(seedtxt, sizeof seedtxt, "%lld", (long long)seed);
    snprintf(t->label, sizeof t->label, "%s/%s [%.*s]", t->scheduler[0] ? t->scheduler : "?", seedtxt,
             (int)(sizeof t->label - 100), base_name(path));
    return 0;
}

static void src_close(Src *s)
{
    wk_trace_read_close(s->r);
    free(s->m);
    s->r = NULL;
    s->m = NULL;
}

/* Summary metric `name`: its value (NaN = undefined), *present = 0 when the
 * trace has no such attribute. */
static double metric(const Src *s, const char *name, int *present)
{
    const WkTraceMetric *m = s ? wk_trace_read_metric(s->m, s->nm, name) : NULL;
    if (present)
        *present = m != NULL;
    return m ? m->value : NAN;
}

/* Read columns names[0..k) of table into cols (caller frees each). Returns 1
 * when all exist (n rows), 0 when the table or a column is missing (*why
 * says which; nothing allocated), or a negative error. */
static int read_cols(const Src *s, const char *table, const char *const *names, size_t k, double **cols,
                     size_t *n, char *why, size_t nwhy, WkError *err)
{
    for (size_t i = 0; i < k; i++)
        cols[i] = NULL;
    if (!wk_trace_read_has(s->r, table)) {
        snprintf(why, nwhy, "no '%s' table", table);
        return 0;
    }
    *n = 0;
    for (size_t i = 0; i < k; i++) {
        WkError sub;
        wk_error_clear(&sub);
        size_t m = 0;
        int rc = wk_trace_read_column(s->r, table, names[i], &cols[i], &m, &sub);
        if (rc == WK_E_NOTFOUND) { /* a bad column (WK_E_INVAL) is an error, not a gap */
            snprintf(why, nwhy, "no column '%s' in table '%s'", names[i], table);
            for (size_t j = 0; j <= i; j++) {
                free(cols[j]);
                cols[j] = NULL;
            }
            return 0;
        }
        if (rc < 0) {
            for (size_t j = 0; j <= i; j++) {
                free(cols[j]);
                cols[j] = NULL;
            }
            return copy_error(err, &sub);
        }
        if (i > 0 && m != *n) {
            for (size_t j = 0; j <= i; j++) {
                free(cols[j]);
                cols[j] = NULL;
            }
            return wk_error_set(err, WK_E_INVAL, s->t->path, 0, 0,
                                "table '%s': columns of different lengths", table);
        }
        *n = m;
    }
    return 1;
}

static void free_cols(double **cols, size_t k)
{
    for (size_t i = 0; i < k; i++)
        free(cols[i]);
}

/* ---- Table 5.2: recovery time ------------------------------------------------------- */

/* Recovery time (s) of a trace: the summary metric `name` when the trace has
 * it, otherwise the mean (q < 0) or the q-quantile (type 7) of the finite
 * values of the incidents table's `recovery` column. *from_table is set when
 * the table was used. NaN when neither is there. */
static int recovery(const Src *s, const char *name, double q, double *out, int *from_table, WkError *err)
{
    int present;
    *out = metric(s, name, &present);
    *from_table = 0;
    if (present)
        return 0;
    const char *cn[] = {WK_SCHEMA_INC_RECOVERY};
    double *col[1];
    size_t n = 0;
    char why[160];
    int rc = read_cols(s, WK_SCHEMA_INCIDENTS, cn, 1, col, &n, why, sizeof why, err);
    if (rc <= 0)
        return rc;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(col[0][i]))
            col[0][k++] = col[0][i];
    *from_table = 1;
    if (k > 0) {
        if (q < 0) {
            *out = gsl_stats_mean(col[0], 1, k);
        } else {
            gsl_sort(col[0], 1, k);
            *out = gsl_stats_quantile_from_sorted_data(col[0], 1, k, q);
        }
    }
    free(col[0]);
    return 0;
}

/* ---- §3.4: training speed while throttled ------------------------------------------- */

typedef struct Interval {
    double a, b; /* ns */
} Interval;

static int cmp_interval(const void *pa, const void *pb)
{
    const Interval *x = pa, *y = pb;
    return (x->a > y->a) - (x->a < y->a);
}

/* Length (ns) of the union of the throttle incidents' windows within [js, je]. */
static double throttled_ns(const double *kind, const double *start, const double *end, size_t n, double js,
                           double je, Interval *scratch)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (kind[i] != WK_SCHEMA_KIND_THROTTLE || start[i] < 0)
            continue;
        double a = start[i] > js ? start[i] : js;
        double b = end[i] < 0 || end[i] > je ? je : end[i];
        if (b > a)
            scratch[k++] = (Interval){a, b};
    }
    qsort(scratch, k, sizeof *scratch, cmp_interval);
    double total = 0, ca = 0, cb = -1;
    for (size_t i = 0; i < k; i++) {
        if (cb < 0 || scratch[i].a > cb) {
            if (cb >= 0)
                total += cb - ca;
            ca = scratch[i].a;
            cb = scratch[i].b;
        } else if (scratch[i].b > cb) {
            cb = scratch[i].b;
        }
    }
    if (cb >= 0)
        total += cb - ca;
    return total;
}

enum { J_ID, J_START, J_END, J_GPUS, J_STATUS, J_ITERS, J_ITIME, J_N };
static const char *const job_cols[J_N] = {
    [J_ID] = WK_SCHEMA_JOB_ID, [J_START] = WK_SCHEMA_JOB_START, [J_END] = WK_SCHEMA_JOB_END,
    [J_GPUS] = WK_SCHEMA_JOB_GPUS, [J_STATUS] = WK_SCHEMA_JOB_STATUS, [J_ITERS] = WK_SCHEMA_JOB_ITERATIONS,
    [J_ITIME] = WK_SCHEMA_JOB_ITERATION_TIME,
};
enum { I_KIND, I_START, I_END, I_N };
static const char *const inc_cols[I_N] = {
    [I_KIND] = WK_SCHEMA_INC_KIND, [I_START] = WK_SCHEMA_INC_START, [I_END] = WK_SCHEMA_INC_END,
};

/* The speed change (%) of the throttled job of trace t against the same job
 * in the unthrottled trace b (NULL: not given):
 *   slowdown = (N·τ_t − N·τ_b) / W,  speed change = −100·slowdown,
 * where N is the job's iterations, τ its mean iteration time (time running /
 * iterations) and W the time it ran throttled. The job's extra running time,
 * spread over the throttled window, is the fraction of speed it lost there.
 * The throttled job: the completed job overlapping a throttle incident with
 * the most GPUs (ties: the lowest id). NaN with a note when not computable. */
static int throttle_speed(WkReport *R, const Src *t, const Src *b, const char *what, double *out,
                          WkError *err)
{
    *out = NAN;
    double *jc[J_N], *ic[I_N];
    size_t nj = 0, ni = 0;
    char why[160];
    Interval *scratch = NULL;
    int rc = read_cols(t, WK_SCHEMA_INCIDENTS, inc_cols, I_N, ic, &ni, why, sizeof why, err);
    if (rc == 0)
        return note(R, err, "§3.4 %s: %s has %s: no throttle to measure", what, t->t->label, why);
    if (rc < 0)
        return rc;
    rc = read_cols(t, WK_SCHEMA_JOBS, job_cols, J_N, jc, &nj, why, sizeof why, err);
    if (rc <= 0) {
        free_cols(ic, I_N);
        if (rc == 0)
            return note(R, err, "§3.4 %s: %s has %s", what, t->t->label, why);
        return rc;
    }
    if (!(scratch = calloc(ni ? ni : 1, sizeof *scratch))) {
        rc = wk_error_nomem(err, "report");
        goto done;
    }
    size_t nthr = 0;
    for (size_t i = 0; i < ni; i++)
        nthr += ic[I_KIND][i] == WK_SCHEMA_KIND_THROTTLE;
    if (nthr == 0) {
        rc = note(R, err, "§3.4 %s: %s has no throttle incident", what, t->t->label);
        goto done;
    }
    size_t best = SIZE_MAX;
    double best_w = 0;
    for (size_t j = 0; j < nj; j++) {
        if (jc[J_STATUS][j] != WK_SCHEMA_STATUS_COMPLETED || !(jc[J_ITERS][j] > 0) || !isfinite(jc[J_ITIME][j]))
            continue;
        double w = throttled_ns(ic[I_KIND], ic[I_START], ic[I_END], ni, jc[J_START][j], jc[J_END][j], scratch);
        if (w <= 0)
            continue;
        if (best == SIZE_MAX || jc[J_GPUS][j] > jc[J_GPUS][best] ||
            (jc[J_GPUS][j] == jc[J_GPUS][best] && jc[J_ID][j] < jc[J_ID][best])) {
            best = j;
            best_w = w;
        }
    }
    if (best == SIZE_MAX) {
        rc = note(R, err, "§3.4 %s: no completed model job of %s ran during its throttle", what, t->t->label);
        goto done;
    }
    double id = jc[J_ID][best], gpus = jc[J_GPUS][best], iters = jc[J_ITERS][best], tau = jc[J_ITIME][best];
    double run_s = iters * tau, w_s = best_w / 1e9;
    if (!b) {
        rc = note(R, err,
                  "§3.4 %s: job %.0f (%.0f GPUs) of %s ran %.0f s, %.0f s of it throttled; its speed "
                  "outside the throttle is not in the trace (only its mean iteration time): give "
                  "--throttle-baseline, the same scenario without the incident",
                  what, id, gpus, t->t->label, run_s, w_s);
        goto done;
    }
    double *bc[J_N];
    size_t nb = 0;
    rc = read_cols(b, WK_SCHEMA_JOBS, job_cols, J_N, bc, &nb, why, sizeof why, err);
    if (rc <= 0) {
        if (rc == 0)
            rc = note(R, err, "§3.4 %s: the unthrottled trace %s has %s", what, b->t->label, why);
        goto done;
    }
    size_t k = SIZE_MAX;
    for (size_t j = 0; j < nb && k == SIZE_MAX; j++)
        if (bc[J_ID][j] == id)
            k = j;
    if (k == SIZE_MAX || bc[J_GPUS][k] != gpus || bc[J_STATUS][k] != WK_SCHEMA_STATUS_COMPLETED ||
        !isfinite(bc[J_ITIME][k])) {
        rc = note(R, err,
                  "§3.4 %s: job %.0f (%.0f GPUs) of %s has no completed counterpart with as many GPUs in "
                  "the unthrottled trace %s",
                  what, id, gpus, t->t->label, b->t->label);
    } else {
        double tau0 = bc[J_ITIME][k];
        double slowdown = iters * (tau - tau0) / w_s;
        *out = -100.0 * slowdown;
        rc = note(R, err,
                  "§3.4 %s: job %.0f (%.0f GPUs) of %s ran %.0f s, %.0f s of it throttled; mean iteration "
                  "%.4f s against %.4f s unthrottled (%s): %.0f s longer, %.1f %% of the speed lost while "
                  "throttled",
                  what, id, gpus, t->t->label, run_s, w_s, tau, tau0, b->t->label, iters * (tau - tau0),
                  100.0 * slowdown);
        /* the reference must itself be unthrottled while the job ran */
        double *bi[I_N];
        size_t nbi = 0;
        int has = rc == 0 ? read_cols(b, WK_SCHEMA_INCIDENTS, inc_cols, I_N, bi, &nbi, why, sizeof why, err) : 0;
        if (has > 0) {
            Interval *s2 = calloc(nbi ? nbi : 1, sizeof *s2);
            if (!s2)
                rc = wk_error_nomem(err, "report");
            else if (throttled_ns(bi[I_KIND], bi[I_START], bi[I_END], nbi, bc[J_START][k], bc[J_END][k], s2) > 0)
                rc = note(R, err, "§3.4 %s: the reference %s is throttled too while the job runs: the "
                                  "change is understated", what, b->t->label);
            free(s2);
            free_cols(bi, I_N);
        } else if (has < 0) {
            rc = has;
        }
    }
    free_cols(bc, J_N);
done:
    free(scratch);
    free_cols(jc, J_N);
    free_cols(ic, I_N);
    return rc;
}

/* ---- rows --------------------------------------------------------------------------- */

/* Table 5.2 row relative to the baseline = 100 %. */
static void rel_row(WkReportRow *row, double base, double sci)
{
    row->raw_baseline = base;
    row->raw_value = sci;
    if (!(isfinite(base) && base > 0))
        return;
    row->sim_baseline = 100.0;
    if (isfinite(sci)) {
        row->sim_value = 100.0 * sci / base;
        row->sim_change = row->sim_value - 100.0;
    }
}

static double per_token(double tokens_per_joule)
{
    return isfinite(tokens_per_joule) && tokens_per_joule > 0 ? 1.0 / tokens_per_joule : NAN;
}

/* Per-GPU utilization std dev (%) of a trace: util_gpu_std_peak, else
 * util_gpu_std (*whole = 1), else NaN. */
static double util_std(const Src *s, int *whole)
{
    int p;
    double v = metric(s, WK_SCHEMA_M_UTIL_GPU_STD_PEAK, &p);
    *whole = 0;
    if (!p) {
        v = metric(s, WK_SCHEMA_M_UTIL_GPU_STD, &p);
        *whole = p;
    }
    return 100.0 * v;
}

static int table52(WkReport *R, const Src *base, const Src *sci, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; i < R->nrows && rc == 0; i++) {
        WkReportRow *row = &R->rows[i];
        const char *key = row->paper->key;
        if (strcmp(row->paper->section, "Table 5.2") != 0)
            continue;
        snprintf(row->source, sizeof row->source, "%s", "baseline → SCI");
        if (strcmp(key, "utilization") == 0) {
            row->sim_baseline = 100.0 * metric(base, WK_SCHEMA_M_UTILIZATION, NULL);
            row->sim_value = 100.0 * metric(sci, WK_SCHEMA_M_UTILIZATION, NULL);
            row->sim_change = row->sim_value - row->sim_baseline;
        } else if (strcmp(key, "jct") == 0) {
            rel_row(row, metric(base, WK_SCHEMA_M_JCT_MEAN, NULL), metric(sci, WK_SCHEMA_M_JCT_MEAN, NULL));
        } else if (strcmp(key, "energy") == 0) {
            rel_row(row, metric(base, WK_SCHEMA_M_ENERGY, NULL), metric(sci, WK_SCHEMA_M_ENERGY, NULL));
        } else if (strcmp(key, "energy_per_token") == 0) {
            rel_row(row, per_token(metric(base, WK_SCHEMA_M_TOKENS_PER_JOULE, NULL)),
                    per_token(metric(sci, WK_SCHEMA_M_TOKENS_PER_JOULE, NULL)));
        } else if (strcmp(key, "recovery_mean") == 0 || strcmp(key, "recovery_p50") == 0) {
            int mean = strcmp(key, "recovery_mean") == 0, tb = 0, ts = 0;
            const char *name = mean ? WK_SCHEMA_M_RECOVERY_MEAN : WK_SCHEMA_M_RECOVERY_P50;
            double q = mean ? -1 : 0.5, vb = NAN, vs = NAN;
            rc = recovery(base, name, q, &vb, &tb, err);
            if (rc == 0)
                rc = recovery(sci, name, q, &vs, &ts, err);
            if (rc == 0 && (tb || ts))
                rc = note(R, err, "%s: the summary has no %s; computed from the incidents table's recovery "
                                  "column", row->paper->label, name);
            row->sim_baseline = vb;
            row->sim_value = vs;
            row->raw_baseline = vb;
            row->raw_value = vs;
            if (isfinite(vb) && vb > 0 && isfinite(vs))
                row->sim_change = 100.0 * (vs - vb) / vb;
        }
    }
    return rc;
}

static int table52_notes(WkReport *R, const Src *base, const Src *sci, WkError *err)
{
    int rc = 0;
    const WkReportTrace *tb = base->t, *ts = sci->t;
    if (strcmp(tb->scenario, ts->scenario) != 0)
        rc = note(R, err, "Table 5.2: the baseline and SCI traces are of different scenarios (%s, %s)",
                  tb->scenario, ts->scenario);
    if (rc == 0 && strcmp(tb->scheduler, ts->scheduler) == 0)
        rc = note(R, err, "Table 5.2: both traces ran the scheduler '%s'", tb->scheduler);
    double cb = metric(base, WK_SCHEMA_M_JOBS_COMPLETED, NULL), cs = metric(sci, WK_SCHEMA_M_JOBS_COMPLETED, NULL);
    double nb = metric(base, WK_SCHEMA_M_JOBS_SUBMITTED, NULL), ns = metric(sci, WK_SCHEMA_M_JOBS_SUBMITTED, NULL);
    double ub = metric(base, WK_SCHEMA_M_JOBS_UNFINISHED, NULL), us = metric(sci, WK_SCHEMA_M_JOBS_UNFINISHED, NULL);
    if (rc == 0 && (ub > 0 || us > 0 || cb != cs))
        rc = note(R, err,
                  "task completion time: mean over completed jobs only; the baseline completed %.0f of %.0f "
                  "jobs, SCI %.0f of %.0f; jobs still waiting or running at the end are not in the mean",
                  cb, nb, cs, ns);
    if (rc == 0 && (isnan(metric(base, WK_SCHEMA_M_MAKESPAN, NULL)) || isnan(metric(sci, WK_SCHEMA_M_MAKESPAN, NULL))))
        rc = note(R, err,
                  "energy: a run ended at the horizon with jobs unfinished, so the total covers the same "
                  "period, not the same work; the per-token row divides by the tokens (or samples) trained");
    /* beyond the paper: the scheduling metrics of docs/metrics.md, "Slowdown and fairness" */
    int pb = 0, ps = 0, qb = 0, qs = 0;
    double sb = metric(base, WK_SCHEMA_M_BSLD_MEAN, &pb), ss = metric(sci, WK_SCHEMA_M_BSLD_MEAN, &ps);
    if (rc == 0 && pb && ps)
        rc = note(R, err, "beyond the paper: bounded slowdown mean (tau %g s) %s %.4g, %s %.4g", WK_BSLD_TAU_S,
                  tb->label, sb, ts->label, ss);
    double jb = metric(base, WK_SCHEMA_M_JAIN_USERS, &qb), js = metric(sci, WK_SCHEMA_M_JAIN_USERS, &qs);
    if (rc == 0 && qb && qs)
        rc = note(R, err,
                  "beyond the paper: Jain's index over users %s %.4g, %s %.4g; finish-time fairness max %s %.4g, "
                  "%s %.4g",
                  tb->label, jb, ts->label, js, tb->label, metric(base, WK_SCHEMA_M_FTF_MAX, NULL), ts->label,
                  metric(sci, WK_SCHEMA_M_FTF_MAX, NULL));
    for (size_t i = 0; rc == 0 && i < R->nrows; i++) {
        const WkReportRow *row = &R->rows[i];
        if (strncmp(row->paper->key, "recovery", 8) != 0 || row->paper->key[8] != '_')
            continue;
        if (isnan(row->sim_baseline) || isnan(row->sim_value)) {
            rc = note(R, err, "fault recovery time: %s has none (no failure hit a job that restarted)",
                      isnan(row->sim_baseline) ? tb->label : ts->label);
            break;
        }
    }
    return rc;
}

/* §3.1: the SCI run's spread beside the paper's 4.2 %; the spread without
 * the exchange — the SCI run with outsourcing off, the ablation of that one
 * mechanism — beside its "15 % predicted by theory". The traditional
 * baseline is a different scheduler, not the mechanism's absence, so it
 * stands in no §3.1 row. */
static int section31(WkReport *R, const Src *sci, const Src *noout, WkError *err)
{
    WkReportRow *obs = NULL, *pred = NULL;
    for (size_t i = 0; i < R->nrows; i++) {
        if (strcmp(R->rows[i].paper->key, "util_std") == 0)
            obs = &R->rows[i];
        else if (strcmp(R->rows[i].paper->key, "util_std_predicted") == 0)
            pred = &R->rows[i];
    }
    int wn = 0, ws = 0;
    if (obs) {
        obs->sim_value = util_std(sci, &ws);
        snprintf(obs->source, sizeof obs->source, "SCI %s", sci->t->label);
    }
    int rc = 0;
    if (pred && noout) {
        pred->sim_value = util_std(noout, &wn);
        snprintf(pred->source, sizeof pred->source, "SCI, outsourcing off %s", noout->t->label);
    } else if (pred) {
        snprintf(pred->source, sizeof pred->source, "needs runs: give --sci-no-outsourcing NO.h5");
        rc = note(R, err, "§3.1 predicted: needs runs: give --sci-no-outsourcing NO.h5, the SCI run with "
                          "outsourcing off in the run and in sci's objective (the one-command form's "
                          "sci-no-outsourcing.h5; docs/reproducing-sci.md)");
    }
    const char *lack = obs && isnan(obs->sim_value) ? sci->t->label
                       : pred && noout && isnan(pred->sim_value) ? noout->t->label : NULL;
    if (rc == 0 && lack)
        rc = note(R, err,
                  "§3.1: no per-GPU utilization in %s — the summary has no util_gpu_std metric and the "
                  "jobs table records no placement, so the spread over GPUs cannot be computed", lack);
    if (rc == 0 && (wn || ws))
        rc = note(R, err, "§3.1: util_gpu_std is over the whole run; the traces have no peak-load "
                          "statistic (util_gpu_std_peak)");
    if (rc == 0 && pred)
        rc = note(R, err, "§3.1: the paper's 15 %% is a theoretical prediction of the spread without the "
                          "exchange; the SCI run with outsourcing off stands beside it");
    return rc;
}

static int section34(WkReport *R, const Src *thr, const Src *naive, const Src *ref, WkError *err)
{
    int rc = 0;
    for (size_t i = 0; i < R->nrows && rc == 0; i++) {
        WkReportRow *row = &R->rows[i];
        int obs = strcmp(row->paper->key, "throttle") == 0;
        int pred = strcmp(row->paper->key, "throttle_predicted") == 0;
        if (!obs && !pred)
            continue;
        const Src *t = obs ? thr : naive;
        if (!t) {
            rc = note(R, err, "§3.4: no %s given", obs ? "--throttle trace (the throttle with the "
                                                         "cluster's response)"
                                                       : "--throttle-naive trace (the throttle without a "
                                                         "response, beside the paper's prediction)");
            continue;
        }
        snprintf(row->source, sizeof row->source, "%s %s", obs ? "response" : "no response", t->t->label);
        rc = throttle_speed(R, t, ref, obs ? "with the response" : "without a response", &row->sim_value, err);
    }
    return rc;
}

static void differences(WkReport *R)
{
    for (size_t i = 0; i < R->nrows; i++) {
        WkReportRow *row = &R->rows[i];
        switch (row->paper->kind) {
        case WK_PAPER_SCI_UTIL:
        case WK_PAPER_SCI_REL:
        case WK_PAPER_SCI_DURATION: row->difference = row->sim_change - row->paper->change; break;
        case WK_PAPER_SCI_SPREAD:
        case WK_PAPER_SCI_SPEED: row->difference = row->sim_value - row->paper->value; break;
        }
        if (!isfinite(row->difference))
            row->difference = NAN;
    }
}

/* ---- public ------------------------------------------------------------------------- */

void wk_report_free(WkReport *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ntraces; i++) {
        free(r->traces[i].scenario);
        free(r->traces[i].scheduler);
        free(r->traces[i].overrides);
    }
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r->rows);
    free(r);
}

const WkReportRow *wk_report_row(const WkReport *r, const char *key)
{
    for (size_t i = 0; r && key && i < r->nrows; i++)
        if (strcmp(r->rows[i].paper->key, key) == 0)
            return &r->rows[i];
    return NULL;
}

int wk_report_load(WkReport **out, const char *name, const WkReportInputs *in, WkError *err)
{
    if (!out)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "report: no output");
    *out = NULL;
    if (!name || strcmp(name, "paper-sci") != 0)
        return wk_error_set(err, WK_E_NOTFOUND, NULL, 0, 0, "unknown report '%s' (known: paper-sci)",
                            name ? name : "");
    if (!in || !in->baseline || !in->sci)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                            "report paper-sci: needs a baseline trace and an SCI trace");
    WkReport *R = calloc(1, sizeof *R);
    Src src[6];
    size_t nsrc = 0;
    if (!R)
        return wk_error_nomem(err, "report");
    size_t np = 0;
    const WkPaperSciRow *paper = wk_paper_sci_rows(&np);
    int rc = 0;
    if (!(R->rows = calloc(np, sizeof *R->rows))) {
        rc = wk_error_nomem(err, "report");
        goto fail;
    }
    R->nrows = np;
    for (size_t i = 0; i < np; i++)
        R->rows[i] = (WkReportRow){.paper = &paper[i], .sim_baseline = NAN, .sim_value = NAN,
                                   .sim_change = NAN, .raw_baseline = NAN, .raw_value = NAN,
                                   .difference = NAN};
    const char *const paths[6] = {in->baseline, in->sci, in->throttle, in->throttle_naive,
                                  in->throttle_baseline, in->sci_no_outsourcing};
    static const char *const roles[6] = {"baseline", "sci", "throttle", "throttle_naive", "throttle_baseline",
                                         "sci_no_outsourcing"};
    const Src *by_role[6] = {NULL};
    for (size_t i = 0; i < 6; i++) {
        if (!paths[i])
            continue;
        WkReportTrace *t = &R->traces[R->ntraces++];
        Src *s = &src[nsrc++];
        if ((rc = src_open(s, t, roles[i], paths[i], err)) < 0)
            goto fail;
        by_role[i] = s;
        WkError sub;
        wk_error_clear(&sub);
        int64_t complete = 1;
        if (wk_trace_read_attr_i64(s->r, WK_SCHEMA_ATTR_COMPLETE, &complete, &sub) == 0 && complete == 0 &&
            (rc = note(R, err, "%s is the trace of an interrupted run (root attribute complete = 0)",
                       t->label)) < 0)
            goto fail;
    }
    rc = table52(R, by_role[0], by_role[1], err);
    if (rc == 0)
        rc = table52_notes(R, by_role[0], by_role[1], err);
    if (rc == 0)
        rc = section31(R, by_role[1], by_role[5], err);
    if (rc == 0)
        rc = section34(R, by_role[2], by_role[3], by_role[4], err);
    if (rc < 0)
        goto fail;
    differences(R);
    for (size_t i = 0; i < nsrc; i++)
        src_close(&src[i]);
    *out = R;
    return 0;
fail:
    for (size_t i = 0; i < nsrc; i++)
        src_close(&src[i]);
    wk_report_free(R);
    return rc;
}
