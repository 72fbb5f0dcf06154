/* SPDX-License-Identifier: Apache-2.0 */
/* export.c — the tables as `wanka export` reads them (export_impl.h), the
 * output files written under a temporary name, and the CSV export: one file
 * per table, RFC 4180. The Chrome timeline is export_chrome.c. */
#include "analysis/export.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "analysis/export_impl.h"
#include "sim/core/file.h"
#include "sim/core/strbuf.h"
#include "sim/trace/schema.h"

/* ---- the tables: trace column, CSV header with its unit (docs/trace-format.md) ---------- */

static const ExColSpec job_cols[] = {
    {WK_SCHEMA_JOB_ID, "id", EX_INT, NULL, 0},
    {WK_SCHEMA_JOB_SUBMIT, "submit_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_JOB_START, "start_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_JOB_END, "end_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_JOB_DURATION, "duration_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_JOB_GPUS, "gpus", EX_INT, NULL, 0},
    {WK_SCHEMA_JOB_STATUS, "status", EX_ENUM, wk_schema_job_status_names, 0},
    {WK_SCHEMA_JOB_ITERATIONS, "iterations", EX_F64, NULL, 0},
    {WK_SCHEMA_JOB_ITERATION_TIME, "iteration_time_s", EX_F64, NULL, 0},
    {WK_SCHEMA_JOB_TFLOPS, "tflops_per_gpu", EX_F64, NULL, 0},
    {WK_SCHEMA_JOB_PATH_CLASS, "path_class", EX_ENUM, wk_schema_path_class_names, 0},
    {WK_SCHEMA_JOB_INTERRUPTIONS, "interruptions", EX_INT, NULL, 0},
    {WK_SCHEMA_JOB_PREEMPTIONS, "preemptions", EX_INT, NULL, 0},
    {WK_SCHEMA_JOB_ETTR, "ettr", EX_F64, NULL, 0},
    {WK_SCHEMA_JOB_GPUS_FINAL, "gpus_final", EX_INT, NULL, 1},
    {WK_SCHEMA_JOB_KIND, "kind", EX_ENUM, wk_schema_job_kind_names, 1},
    {WK_SCHEMA_SITE, "site", EX_INT, NULL, 1},
};

static const ExColSpec incident_cols[] = {
    {WK_SCHEMA_INC_ID, "id", EX_INT, NULL, 0},
    {WK_SCHEMA_INC_CLASS, "class", EX_ENUM, wk_schema_fail_class_names, 0},
    {WK_SCHEMA_INC_KIND, "kind", EX_ENUM, wk_schema_incident_kind_names, 0},
    {WK_SCHEMA_INC_COMPONENT, "component", EX_INT, NULL, 0},
    {WK_SCHEMA_INC_START, "start_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_INC_END, "end_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_INC_JOBS_HIT, "jobs_hit", EX_INT, NULL, 0},
    {WK_SCHEMA_INC_GPUS_LOST, "gpus_lost", EX_INT, NULL, 0},
    {WK_SCHEMA_INC_DETECTION, "detection_s", EX_F64, NULL, 0},
    {WK_SCHEMA_INC_WAIT, "wait_s", EX_F64, NULL, 0},
    {WK_SCHEMA_INC_RESTART, "restart_s", EX_F64, NULL, 0},
    {WK_SCHEMA_INC_RECOVERY, "recovery_s", EX_F64, NULL, 0},
    {WK_SCHEMA_INC_LOST_WORK, "lost_work_gpu_h", EX_F64, NULL, 0},
    {WK_SCHEMA_INC_CLOCK, "clock", EX_F64, NULL, 0},
    {WK_SCHEMA_SITE, "site", EX_INT, NULL, 1},
    {WK_SCHEMA_INC_DRAIN, "drain_s", EX_F64, NULL, 1},
    {WK_SCHEMA_INC_LAUNCH, "launch_s", EX_F64, NULL, 1},
    {WK_SCHEMA_INC_INIT, "init_s", EX_F64, NULL, 1},
    {WK_SCHEMA_INC_LOAD, "load_s", EX_F64, NULL, 1},
    {WK_SCHEMA_INC_WARMUP, "warmup_s", EX_F64, NULL, 1},
};

static const ExColSpec timeseries_cols[] = {
    {WK_SCHEMA_CLUSTER_TIME, "time_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_ALLOCATED, "allocated_gpus", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_RUNNING, "running_jobs", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_QUEUED, "queued_jobs", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_POWER, "power_w", EX_F64, NULL, 0},
};

static const ExColSpec site_series_cols[] = {
    {WK_SCHEMA_SITE, "site", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_TIME, "time_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_ALLOCATED, "allocated_gpus", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_RUNNING, "running_jobs", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_QUEUED, "queued_jobs", EX_INT, NULL, 0},
    {WK_SCHEMA_CLUSTER_POWER, "power_w", EX_F64, NULL, 0},
};

/* schema 1.6, single-site runs: each job segment's node ranges, and the nodes */
static const ExColSpec placement_cols[] = {
    {WK_SCHEMA_PL_JOB, "job", EX_INT, NULL, 0},        {WK_SCHEMA_PL_SEGMENT, "segment", EX_INT, NULL, 0},
    {WK_SCHEMA_PL_START, "start_ns", EX_INT, NULL, 0}, {WK_SCHEMA_PL_END, "end_ns", EX_INT, NULL, 0},
    {WK_SCHEMA_PL_NODE, "node", EX_INT, NULL, 0},      {WK_SCHEMA_PL_NODES, "nodes", EX_INT, NULL, 0},
    {WK_SCHEMA_PL_GPU, "gpu", EX_INT, NULL, 0},        {WK_SCHEMA_PL_GPUS, "gpus", EX_INT, NULL, 0},
};

static const ExColSpec node_cols[] = {
    {WK_SCHEMA_NODE_NODE, "node", EX_INT, NULL, 0},           {WK_SCHEMA_NODE_POD, "pod", EX_INT, NULL, 0},
    {WK_SCHEMA_NODE_RACK, "rack", EX_INT, NULL, 0},           {WK_SCHEMA_NODE_GPUS, "gpus", EX_INT, NULL, 0},
    {WK_SCHEMA_NODE_FIRST_GPU, "first_gpu", EX_INT, NULL, 0},
};

#define NCOLS(a) (sizeof(a) / sizeof(a)[0])

const ExTableSpec wk_ex_jobs = {WK_SCHEMA_JOBS, "jobs.csv", job_cols, NCOLS(job_cols)};
const ExTableSpec wk_ex_incidents = {WK_SCHEMA_INCIDENTS, "incidents.csv", incident_cols, NCOLS(incident_cols)};
const ExTableSpec wk_ex_timeseries = {WK_SCHEMA_CLUSTER, "timeseries.csv", timeseries_cols, NCOLS(timeseries_cols)};
/* a network's trace only (schema 1.4) */
static const ExTableSpec site_series = {WK_SCHEMA_SITES_SERIES, "timeseries_sites.csv", site_series_cols,
                                        NCOLS(site_series_cols)};
const ExTableSpec wk_ex_placement = {WK_SCHEMA_PLACEMENT, "placement.csv", placement_cols, NCOLS(placement_cols)};
const ExTableSpec wk_ex_nodes = {WK_SCHEMA_NODES, "nodes.csv", node_cols, NCOLS(node_cols)};

/* Check that every value of an enum column has a name. */
static int check_enum(WkTraceRead *r, const ExTableSpec *spec, const ExCol *c, size_t n, WkError *err)
{
    size_t names = 0;
    while (c->spec->enums[names])
        names++;
    for (size_t i = 0; i < n; i++)
        if (c->i[i] < 0 || (size_t)c->i[i] >= names) {
            char known[256] = "";
            for (size_t k = 0, l = 0; k < names && l < sizeof known; k++)
                l += (size_t)snprintf(known + l, sizeof known - l, "%s%s", k ? ", " : "", c->spec->enums[k]);
            return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s.%s row %zu: value %lld is not one of %s",
                                wk_trace_read_path(r), spec->path, c->spec->name, i, (long long)c->i[i], known);
        }
    return 0;
}

/* Read column c of spec's table: its length in *n. */
static int load_col(WkTraceRead *r, const ExTableSpec *spec, ExCol *c, size_t *n, WkError *err)
{
    int rc;
    if (c->spec->kind == EX_F64) {
        rc = wk_trace_read_column(r, spec->path, c->spec->name, &c->d, n, err);
    } else if (c->spec->kind == EX_INT) {
        rc = wk_trace_read_column_i64(r, spec->path, c->spec->name, &c->i, n, err);
    } else {
        double *d = NULL;
        rc = wk_trace_read_column(r, spec->path, c->spec->name, &d, n, err);
        if (rc == 0 && *n > 0 && !(c->i = malloc(*n * sizeof *c->i)))
            rc = wk_error_nomem(err, "export");
        for (size_t i = 0; rc == 0 && i < *n; i++)
            c->i[i] = isfinite(d[i]) ? (int64_t)d[i] : -1;
        free(d);
        if (rc == 0)
            rc = check_enum(r, spec, c, *n, err);
    }
    return rc;
}

int wk_ex_table_load(WkTraceRead *r, const ExTableSpec *spec, int optional, ExTable *t, WkError *err)
{
    memset(t, 0, sizeof *t);
    t->spec = spec;
    if (!wk_trace_read_has(r, spec->path)) {
        if (optional)
            return 0;
        return wk_error_set(err, WK_E_NOTFOUND, NULL, 0, 0, "%s: no table '%s'", wk_trace_read_path(r),
                            spec->path);
    }
    if (!(t->cols = calloc(spec->ncols, sizeof *t->cols)))
        return wk_error_nomem(err, "export");
    t->present = 1;
    for (size_t k = 0; k < spec->ncols; k++) {
        ExCol *c = &t->cols[k];
        c->spec = &spec->cols[k];
        size_t n = 0;
        WkError e2;
        wk_error_clear(&e2);
        int rc = load_col(r, spec, c, &n, &e2);
        if (rc == WK_E_NOTFOUND && c->spec->optional)
            continue;
        if (rc < 0) {
            *err = e2;
            return rc;
        }
        c->present = 1;
        if (k > 0 && n != t->n)
            return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                                "%s: table '%s': column '%s' has %zu rows, column '%s' %zu",
                                wk_trace_read_path(r), spec->path, c->spec->name, n, spec->cols[0].name, t->n);
        t->n = n;
    }
    return 0;
}

void wk_ex_table_free(ExTable *t)
{
    if (!t || !t->cols)
        return;
    for (size_t k = 0; k < t->spec->ncols; k++) {
        free(t->cols[k].i);
        free(t->cols[k].d);
    }
    free(t->cols);
    t->cols = NULL;
}

const ExCol *wk_ex_col(const ExTable *t, const char *name)
{
    if (!t->present)
        return NULL;
    for (size_t k = 0; k < t->spec->ncols; k++)
        if (strcmp(t->spec->cols[k].name, name) == 0)
            return t->cols[k].present ? &t->cols[k] : NULL;
    return NULL;
}

/* ---- output files: temporary name, then rename ------------------------------------------- */

int wk_ex_out_open(ExOut *o, const char *path, const char *input, WkError *err)
{
    memset(o, 0, sizeof *o);
    struct stat a, b;
    if (input && stat(path, &a) == 0 && stat(input, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: is the trace being exported (%s); choose another -o", path,
                            input);
    size_t l = strlen(path), cap = l + 32;
    o->path = malloc(l + 1);
    o->tmp = malloc(cap);
    if (!o->path || !o->tmp) {
        wk_ex_out_discard(o);
        return wk_error_nomem(err, "export");
    }
    memcpy(o->path, path, l + 1);
    int fd = wk_file_create_tmp(path, o->tmp, cap, err); /* never follows a planted link */
    if (fd >= 0 && !(o->f = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        fd = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot create: %s", path, strerror(e));
    }
    if (fd < 0) {
        free(o->path);
        free(o->tmp);
        memset(o, 0, sizeof *o);
        return fd;
    }
    return 0;
}

void wk_ex_out_discard(ExOut *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp) {
        unlink(o->tmp);
        wk_file_tmp_done(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int wk_ex_out_finish(ExOut *o, WkError *err)
{
    if (!o->f)
        return 0;
    int bad = ferror(o->f), e = 0;
    if (bad) { /* a write failed earlier: flushing what is left says why (ENOSPC on a full disk) */
        clearerr(o->f);
        if (fflush(o->f) != 0)
            e = errno;
    } else if (fflush(o->f) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad && !e) { /* nothing left to flush: is the file system full? */
        struct statvfs vfs;
        e = fstatvfs(fileno(o->f), &vfs) == 0 && vfs.f_bavail == 0 ? ENOSPC : EIO;
    }
    if (!bad && fsync(fileno(o->f)) != 0 && errno != EINVAL && errno != EROFS) { /* on disk before the rename */
        bad = 1;
        e = errno;
    }
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (bad) {
        if (e == ENOSPC || e == EDQUOT)
            wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot write: %s (nothing written)", o->path,
                         e == ENOSPC ? "no space left on device" : "disk quota exceeded");
        else
            wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot write: %s", o->path, strerror(e));
        wk_ex_out_discard(o);
        return WK_E_IO;
    }
    return 0;
}

int wk_ex_out_rename(ExOut *o, WkError *err)
{
    if (!o->tmp)
        return 0;
    if (rename(o->tmp, o->path) != 0) {
        int e = errno;
        wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot write: %s", o->path, strerror(e));
        wk_ex_out_discard(o);
        return WK_E_IO;
    }
    wk_file_tmp_done(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return 0;
}

int wk_ex_out_close(ExOut *o, int commit, WkError *err)
{
    if (!commit) {
        wk_ex_out_discard(o);
        return 0;
    }
    int rc = wk_ex_out_finish(o, err);
    return rc < 0 ? rc : wk_ex_out_rename(o, err);
}

/* ---- CSV ------------------------------------------------------------------------------------- */

/* A field as wk_strbuf_csv_field writes it: quoted when it holds a comma,
 * quote or line break (RFC 4180 §2), a formula neutralised by a leading
 * single quote, invalid UTF-8 replaced. */
static void csv_field(FILE *f, const char *s)
{
    WkStrBuf b = {0};
    wk_strbuf_csv_field(&b, s);
    char *t = wk_strbuf_take(&b);
    if (t)
        fputs(t, f);
    else
        fputs(s, f);
    free(t);
}

static void csv_double(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", f);
}

static void csv_table(FILE *f, const ExTable *t)
{
    size_t nc = 0;
    for (size_t k = 0; k < t->spec->ncols; k++)
        if (t->cols[k].present) {
            fputs(nc++ ? "," : "", f);
            csv_field(f, t->cols[k].spec->csv);
        }
    fputs("\r\n", f);
    for (size_t i = 0; i < t->n; i++) {
        nc = 0;
        for (size_t k = 0; k < t->spec->ncols; k++) {
            const ExCol *c = &t->cols[k];
            if (!c->present)
                continue;
            fputs(nc++ ? "," : "", f);
            if (c->spec->kind == EX_F64)
                csv_double(f, c->d[i]);
            else if (c->spec->kind == EX_INT)
                fprintf(f, "%lld", (long long)c->i[i]);
            else
                csv_field(f, c->spec->enums[c->i[i]]);
        }
        fputs("\r\n", f);
    }
}

/* summary.csv: metric,value in the reader's (name) order. */
static void csv_summary(const WkTraceMetric *m, size_t n, FILE *f, size_t *rows)
{
    fputs("metric,value\r\n", f);
    for (size_t i = 0; i < n; i++) {
        csv_field(f, m[i].name);
        fputc(',', f);
        csv_double(f, m[i].value);
        fputs("\r\n", f);
    }
    *rows += n;
}

/* The user of a summary name "user.NAME.metric": NAME's start and length, 0 if none. */
static size_t user_of(const char *name, const char **u)
{
    if (strncmp(name, "user.", 5) != 0)
        return 0;
    const char *dot = strrchr(name + 5, '.');
    *u = name + 5;
    return dot && dot > name + 5 ? (size_t)(dot - (name + 5)) : 0;
}

/* users.csv: the summary's per-user rows (docs/metrics.md, "Slowdown and
 * fairness") as a table, one row per user in name order. */
static void csv_users(const WkTraceMetric *m, size_t n, FILE *f, size_t *rows)
{
    static const char *const cols[] = {"jobs", "completed", "gpu_h", "wait_mean_s", "bsld_mean", "ftf"};
    fputs("user", f);
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        fprintf(f, ",%s", cols[c]);
    fputs("\r\n", f);
    const char *prev = NULL;
    size_t prevlen = 0;
    for (size_t i = 0; i < n; i++) {
        const char *u = NULL;
        size_t len = user_of(m[i].name, &u);
        if (!len || (prev && len == prevlen && strncmp(u, prev, len) == 0))
            continue;
        prev = u;
        prevlen = len;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(len < 100 ? len : 100), u);
        csv_field(f, name);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            char key[160];
            snprintf(key, sizeof key, "user.%s.%s", name, cols[c]);
            const WkTraceMetric *v = wk_trace_read_metric(m, n, key);
            fputc(',', f);
            csv_double(f, v ? v->value : NAN);
        }
        fputs("\r\n", f);
        ++*rows;
    }
}

/* run.csv: the root attributes, attribute,value (absent ones skipped). */
static int csv_run(WkTraceRead *r, FILE *f, size_t *rows, WkError *err)
{
    static const char *const strs[] = {
        WK_SCHEMA_ATTR_SCHEMA_VERSION, WK_SCHEMA_ATTR_WANKA_VERSION, WK_SCHEMA_ATTR_SCENARIO_NAME,
        WK_SCHEMA_ATTR_SCENARIO_FILE, WK_SCHEMA_ATTR_SCHEDULER, WK_SCHEMA_ATTR_GPU_SKU,
        WK_SCHEMA_ATTR_OVERRIDES, WK_SCHEMA_ATTR_SCENARIO,
    };
    static const char *const ints[] = {
        WK_SCHEMA_ATTR_SEED, WK_SCHEMA_ATTR_GPUS, WK_SCHEMA_ATTR_SAMPLE_INTERVAL, WK_SCHEMA_ATTR_COMPLETE,
    };
    fputs("attribute,value\r\n", f);
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        char *v = NULL;
        WkError e2;
        wk_error_clear(&e2);
        int rc = wk_trace_read_attr_str(r, strs[i], &v, &e2);
        if (rc == WK_E_NOTFOUND)
            continue;
        if (rc < 0) {
            *err = e2;
            return rc;
        }
        csv_field(f, strs[i]);
        fputc(',', f);
        csv_field(f, v);
        fputs("\r\n", f);
        free(v);
        ++*rows;
    }
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        int64_t v = 0;
        WkError e2;
        wk_error_clear(&e2);
        int rc = wk_trace_read_attr_i64(r, ints[i], &v, &e2);
        if (rc == WK_E_NOTFOUND)
            continue;
        if (rc < 0) {
            *err = e2;
            return rc;
        }
        fprintf(f, "%s,%lld\r\n", ints[i], (long long)v);
        ++*rows;
    }
    return 0;
}

/* Make dir unless it is already a directory; *made is 1 when this call
 * created it (then a signal or an error removes it again while empty: the
 * export leaves no folder it made behind; a folder that was there stays). */
static int ensure_dir(const char *dir, int *made, WkError *err)
{
    struct stat sb;
    *made = 0;
    if (stat(dir, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return 0;
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: not a directory", dir);
    }
    if (mkdir(dir, 0777) != 0) {
        int e = errno;
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot create directory: %s", dir, strerror(e));
    }
    *made = 1;
    wk_file_dir_track(dir);
    return 0;
}

enum {
    CSV_JOBS, CSV_INCIDENTS, CSV_TIMESERIES, CSV_SITES, CSV_PLACEMENT, CSV_NODES,
    CSV_SUMMARY, CSV_RUN, CSV_USERS, CSV_N, CSV_TABLES = CSV_SUMMARY
};

int wk_export_csv(const char *trace, const char *dir, WkExportStats *st, WkError *err)
{
    static const char *const names[CSV_N] = {"jobs.csv",      "incidents.csv", "timeseries.csv", "timeseries_sites.csv",
                                             "placement.csv", "nodes.csv",     "summary.csv",    "run.csv",
                                             "users.csv"};
    const ExTableSpec *specs[CSV_TABLES] = {&wk_ex_jobs, &wk_ex_incidents, &wk_ex_timeseries,
                                            &site_series, &wk_ex_placement, &wk_ex_nodes};
    WkExportStats s = {0};
    WkTraceRead *r = NULL;
    ExTable t[CSV_TABLES] = {{0}};
    ExOut out[CSV_N] = {{0}};
    WkTraceMetric *sm = NULL;
    size_t sn = 0;
    int rc = wk_trace_read_open(&r, trace, err);
    for (size_t k = 0; rc == 0 && k < CSV_TABLES; k++)
        rc = wk_ex_table_load(r, specs[k], k != CSV_JOBS && k != CSV_TIMESERIES, &t[k], err);
    if (rc == 0)
        rc = wk_trace_read_summary(r, &sm, &sn, err);
    int users = 0; /* users.csv only when the summary has per-user rows */
    for (size_t i = 0; i < sn && !users; i++) {
        const char *u;
        users = user_of(sm[i].name, &u) > 0;
    }
    int made = 0;
    if (rc == 0)
        rc = ensure_dir(dir, &made, err);
    for (size_t k = 0; rc == 0 && k < CSV_N; k++) {
        if ((k < CSV_TABLES && !t[k].present) || (k == CSV_USERS && !users))
            continue;
        size_t l = strlen(dir) + strlen(names[k]) + 2;
        char *path = malloc(l);
        if (!path) {
            rc = wk_error_nomem(err, "export");
            break;
        }
        snprintf(path, l, "%s/%s", dir, names[k]);
        rc = wk_ex_out_open(&out[k], path, trace, err);
        free(path);
        if (rc < 0)
            break;
        if (k < CSV_TABLES) {
            csv_table(out[k].f, &t[k]);
            s.rows += t[k].n;
        } else if (k == CSV_SUMMARY) {
            csv_summary(sm, sn, out[k].f, &s.rows);
        } else if (k == CSV_USERS) {
            csv_users(sm, sn, out[k].f, &s.rows);
        } else {
            rc = csv_run(r, out[k].f, &s.rows, err);
        }
        if (rc == 0)
            rc = wk_ex_out_finish(&out[k], err);
    }
    for (size_t k = 0; rc == 0 && k < CSV_N; k++)
        if (out[k].tmp) {
            rc = wk_ex_out_rename(&out[k], err);
            s.files += rc == 0;
        }
    for (size_t k = 0; k < CSV_N; k++)
        wk_ex_out_discard(&out[k]);
    if (made) {
        if (rc < 0)
            rmdir(dir); /* the folder this export made, emptied by the discards (kept if anything else is in it) */
        wk_file_dir_done(dir);
    }
    for (size_t k = 0; k < CSV_TABLES; k++)
        wk_ex_table_free(&t[k]);
    free(sm);
    wk_trace_read_close(r);
    if (st)
        *st = s;
    return rc;
}
