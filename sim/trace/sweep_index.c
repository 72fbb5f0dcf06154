/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_index.c — sweep.h5: a `points` table (fixed columns, one string
 * column per axis, one float column per metric) and root attributes naming
 * the sweep; written through trace.h, read through trace_read.h, merged
 * from shards. No HDF5 here. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sim/trace/sweep_index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/schema.h"
#include "sim/trace/trace.h"
#include "sim/trace/trace_read.h"
#include "wk_config.h"

#define W_SCHED 64
#define W_AXIS 256
#define W_OVER 1024
#define W_TRACE 256
#define W_ERROR 1024



static char *dup_s(const char *s)
{
    size_t n = strlen(s ? s : "");
    char *p = malloc(n + 1);
    if (p)
        memcpy(p, s ? s : "", n + 1);
    return p;
}

/* Copy s into a field of w bytes, cut at a UTF-8 character boundary. */
static void put_str(unsigned char *dst, size_t w, const char *s)
{
    size_t n = strlen(s ? s : "");
    if (n > w - 1) {
        n = w - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    memset(dst, 0, w);
    if (n)
        memcpy(dst, s, n);
}

/* Names joined with '\n' (malloc'd). */
static char *joined(char *const *v, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    char *s = calloc(1, len);
    for (size_t i = 0; s && i < n; i++) {
        if (i)
            strcat(s, "\n");
        strcat(s, v[i]);
    }
    return s;
}

/* ---- write ------------------------------------------------------------------------------ */

int wk_sweep_index_write(const WkSweepIndex *ix, const char *path, WkError *err)
{
    size_t nax = ix->naxes, nm = ix->nmetrics;
    size_t nf = 7 + nax + nm;
    /* memory layout: id, seed, metrics (8-byte aligned), status, strings */
    size_t off_seed = 8, off_m = 16, off_status = off_m + 8 * nm, off_sched = off_status + 1;
    size_t off_axis = off_sched + W_SCHED, off_over = off_axis + W_AXIS * nax;
    size_t off_trace = off_over + W_OVER, off_error = off_trace + W_TRACE;
    size_t row = off_error + W_ERROR;
    row = (row + 7) / 8 * 8;
    WkTraceField *f = calloc(nf, sizeof *f);
    unsigned char *buf = calloc(ix->nrows ? ix->nrows : 1, row);
    char *axes = joined(ix->axes, nax), *metrics = joined(ix->metrics, nm), *units = joined(ix->units, nm);
    WkTrace *t = NULL;
    int rc = 0;
    if (!f || !buf || !axes || !metrics || !units) {
        rc = wk_error_nomem(err, "sweep index");
        goto done;
    }
    size_t k = 0;
    f[k++] = (WkTraceField){.name = "id", .type = WK_FT_I64, .offset = 0, .units = ""};
    f[k++] = (WkTraceField){.name = "status", .type = WK_FT_ENUM8, .offset = off_status, .units = "",
                            .enum_names = wk_schema_sweep_status_names};
    f[k++] = (WkTraceField){.name = "seed", .type = WK_FT_I64, .offset = off_seed, .units = ""};
    f[k++] = (WkTraceField){.name = "scheduler", .type = WK_FT_STR64, .offset = off_sched, .units = ""};
    for (size_t a = 0; a < nax; a++)
        f[k++] = (WkTraceField){.name = ix->axes[a], .type = WK_FT_STR256, .offset = off_axis + W_AXIS * a,
                                .units = ""};
    f[k++] = (WkTraceField){.name = "overrides", .type = WK_FT_STR1024, .offset = off_over, .units = ""};
    f[k++] = (WkTraceField){.name = "trace", .type = WK_FT_STR256, .offset = off_trace, .units = ""};
    f[k++] = (WkTraceField){.name = "error", .type = WK_FT_STR1024, .offset = off_error, .units = ""};
    for (size_t m = 0; m < nm; m++)
        f[k++] = (WkTraceField){.name = ix->metrics[m], .type = WK_FT_F64, .offset = off_m + 8 * m,
                                .units = ix->units[m]};
    for (size_t i = 0; i < ix->nrows; i++) {
        const WkSweepRow *r = &ix->rows[i];
        unsigned char *p = buf + i * row;
        memcpy(p, &r->id, 8);
        memcpy(p + off_seed, &r->seed, 8);
        for (size_t m = 0; m < nm; m++)
            memcpy(p + off_m + 8 * m, &r->metric[m], 8);
        p[off_status] = r->status;
        put_str(p + off_sched, W_SCHED, r->scheduler);
        for (size_t a = 0; a < nax; a++)
            put_str(p + off_axis + W_AXIS * a, W_AXIS, r->axis[a]);
        put_str(p + off_over, W_OVER, r->overrides);
        put_str(p + off_trace, W_TRACE, r->trace);
        put_str(p + off_error, W_ERROR, r->error);
    }
    if ((rc = wk_trace_open(&t, path, err)) < 0)
        goto done;
    if ((rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCHEMA_VERSION, WK_SCHEMA_SWEEP_INDEX_VERSION, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "format", WK_SWEEP_FORMAT, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_WANKA_VERSION, WK_VERSION, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "sweep_name", ix->sweep_name, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "sweep_file", ix->sweep_file, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "sweep", ix->sweep_text, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "sweep_id", ix->sweep_id, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "scenario_name", ix->scenario_name, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "shard", ix->shard, err)) < 0 ||
        (rc = wk_trace_attr_i64(t, NULL, "npoints", ix->npoints, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "axes", axes, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "metrics", metrics, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, "metric_units", units, err)) < 0 ||
        (rc = wk_trace_table(t, "points", f, nf, row, buf, ix->nrows,
                             "one row per sweep point: parameters, trace, status, summary metrics", err)) < 0) {
        wk_trace_abort(t);
        goto done;
    }
    rc = wk_trace_close(t, err);
done:
    free(f);
    free(buf);
    free(axes);
    free(metrics);
    free(units);
    return rc;
}

/* ---- read ------------------------------------------------------------------------------- */

static void row_fini(WkSweepRow *r, size_t naxes)
{
    free(r->scheduler);
    for (size_t a = 0; r->axis && a < naxes; a++)
        free(r->axis[a]);
    free(r->axis);
    free(r->overrides);
    free(r->trace);
    free(r->error);
    free(r->metric);
}

void wk_sweep_index_free(WkSweepIndex *ix)
{
    if (!ix)
        return;
    for (size_t i = 0; i < ix->nrows; i++)
        row_fini(&ix->rows[i], ix->naxes);
    free(ix->rows);
    for (size_t a = 0; a < ix->naxes; a++)
        free(ix->axes[a]);
    for (size_t m = 0; m < ix->nmetrics; m++) {
        free(ix->metrics[m]);
        if (ix->units) /* NULL after a read refused for a units count other than the metrics' */
            free(ix->units[m]);
    }
    free(ix->axes);
    free(ix->metrics);
    free(ix->units);
    free(ix->sweep_name);
    free(ix->sweep_file);
    free(ix->sweep_text);
    free(ix->sweep_id);
    free(ix->scenario_name);
    free(ix->shard);
    free(ix);
}

/* Split s at '\n' into *out (n strings, each malloc'd); "" gives none. */
static int split(const char *s, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!s[0])
        return 0;
    size_t cnt = 1;
    for (const char *p = s; *p; p++)
        cnt += *p == '\n';
    char **v = calloc(cnt, sizeof *v);
    if (!v)
        return WK_E_NOMEM;
    const char *p = s;
    for (size_t i = 0; i < cnt; i++) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (!(v[i] = malloc(l + 1))) {
            for (size_t j = 0; j < i; j++)
                free(v[j]);
            free(v);
            return WK_E_NOMEM;
        }
        memcpy(v[i], p, l);
        v[i][l] = '\0';
        p = e ? e + 1 : p + l;
    }
    *out = v;
    *n = cnt;
    return 0;
}

static int str_col(WkTraceRead *r, const char *col, size_t nrows, char ***out, WkError *err)
{
    size_t n = 0;
    int rc = wk_trace_read_column_str(r, "points", col, out, &n, err);
    if (rc == 0 && n != nrows)
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: sweep index: column '%s' has %zu rows, expected %zu",
                          wk_trace_read_path(r), col, n, nrows);
    return rc;
}

static int num_col(WkTraceRead *r, const char *col, size_t *nrows, double **out, WkError *err)
{
    size_t n = 0;
    int rc = wk_trace_read_column(r, "points", col, out, &n, err);
    if (rc == 0 && *nrows != (size_t)-1 && n != *nrows)
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: sweep index: column '%s' has %zu rows, expected %zu",
                          wk_trace_read_path(r), col, n, *nrows);
    *nrows = n;
    return rc;
}

int wk_sweep_index_is(const char *path)
{
    WkTraceRead *r = NULL;
    WkError err;
    wk_error_clear(&err);
    if (wk_trace_read_open(&r, path, &err) < 0)
        return 0;
    char *fmt = NULL;
    int is = wk_trace_read_attr_str(r, "format", &fmt, &err) == 0 && strcmp(fmt, WK_SWEEP_FORMAT) == 0;
    free(fmt);
    wk_trace_read_close(r);
    return is;
}

int wk_sweep_index_read(WkSweepIndex **out, const char *path, WkError *err)
{
    *out = NULL;
    WkTraceRead *r = NULL;
    int rc = wk_trace_read_open(&r, path, err);
    if (rc < 0)
        return rc;
    WkSweepIndex *ix = calloc(1, sizeof *ix);
    char *fmt = NULL, *axes = NULL, *metrics = NULL, *units = NULL;
    double *id = NULL, *status = NULL, *seed = NULL;
    char **sched = NULL, **over = NULL, **trace = NULL, **error = NULL;
    if (!ix) {
        rc = wk_error_nomem(err, "sweep index");
        goto done;
    }
    WkError sub;
    wk_error_clear(&sub);
    if (wk_trace_read_attr_str(r, "format", &fmt, &sub) < 0 || strcmp(fmt, WK_SWEEP_FORMAT) != 0) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: not a sweep index (no format attribute '%s')", path,
                          WK_SWEEP_FORMAT);
        goto done;
    }
    if ((rc = wk_trace_read_attr_str(r, "sweep_name", &ix->sweep_name, err)) < 0 ||
        (rc = wk_trace_read_attr_str(r, "sweep_file", &ix->sweep_file, err)) < 0 ||
        (rc = wk_trace_read_attr_str(r, "sweep", &ix->sweep_text, err)) < 0 ||
        (rc = wk_trace_read_attr_str(r, "sweep_id", &ix->sweep_id, err)) < 0 ||
        (rc = wk_trace_read_attr_str(r, "scenario_name", &ix->scenario_name, err)) < 0 ||
        (rc = wk_trace_read_attr_str(r, "shard", &ix->shard, err)) < 0 ||
        (rc = wk_trace_read_attr_i64(r, "npoints", &ix->npoints, err)) < 0 ||
        (rc = wk_trace_read_attr_str(r, "axes", &axes, err)) < 0 ||
        (rc = wk_trace_read_attr_str(r, "metrics", &metrics, err)) < 0 ||
        (rc = wk_trace_read_attr_str(r, "metric_units", &units, err)) < 0)
        goto done;
    size_t nu = 0;
    if (split(axes, &ix->axes, &ix->naxes) < 0 || split(metrics, &ix->metrics, &ix->nmetrics) < 0 ||
        split(units, &ix->units, &nu) < 0) {
        rc = wk_error_nomem(err, "sweep index");
        goto done;
    }
    if (nu != ix->nmetrics) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: metric_units: %zu metric units for %zu metrics", path,
                          nu, ix->nmetrics);
        for (size_t u = 0; u < nu; u++) /* freed here: wk_sweep_index_free frees one per metric */
            free(ix->units[u]);
        free(ix->units);
        ix->units = NULL;
        goto done;
    }
    if (ix->npoints < 0 || ix->npoints > WK_SCHEMA_SWEEP_POINTS_MAX) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s: %lld points is outside 0..%d", path,
                          WK_SCHEMA_SWEEP_NPOINTS, (long long)ix->npoints, WK_SCHEMA_SWEEP_POINTS_MAX);
        goto done;
    }
    size_t n = (size_t)-1;
    if ((rc = num_col(r, "id", &n, &id, err)) < 0 || (rc = num_col(r, "status", &n, &status, err)) < 0 ||
        (rc = num_col(r, "seed", &n, &seed, err)) < 0 || (rc = str_col(r, "scheduler", n, &sched, err)) < 0 ||
        (rc = str_col(r, "overrides", n, &over, err)) < 0 || (rc = str_col(r, "trace", n, &trace, err)) < 0 ||
        (rc = str_col(r, "error", n, &error, err)) < 0)
        goto done;
    if (n && !(ix->rows = calloc(n, sizeof *ix->rows))) {
        rc = wk_error_nomem(err, "sweep index");
        goto done;
    }
    ix->nrows = n;
    for (size_t i = 0; i < n; i++) {
        WkSweepRow *row = &ix->rows[i];
        row->id = (int64_t)id[i];
        row->status = (uint8_t)status[i];
        row->seed = (int64_t)seed[i];
        row->scheduler = dup_s(sched[i]);
        row->overrides = dup_s(over[i]);
        row->trace = dup_s(trace[i]);
        row->error = dup_s(error[i]);
        row->axis = calloc(ix->naxes ? ix->naxes : 1, sizeof *row->axis);
        row->metric = calloc(ix->nmetrics ? ix->nmetrics : 1, sizeof *row->metric);
        if (!row->scheduler || !row->overrides || !row->trace || !row->error || !row->axis || !row->metric) {
            rc = wk_error_nomem(err, "sweep index");
            goto done;
        }
    }
    for (size_t a = 0; a < ix->naxes; a++) {
        char **col = NULL;
        if ((rc = str_col(r, ix->axes[a], n, &col, err)) < 0)
            goto done;
        for (size_t i = 0; i < n && rc == 0; i++)
            if (!(ix->rows[i].axis[a] = dup_s(col[i])))
                rc = wk_error_nomem(err, "sweep index");
        free(col);
        if (rc < 0)
            goto done;
    }
    for (size_t m = 0; m < ix->nmetrics; m++) {
        double *col = NULL;
        size_t nn = n;
        if ((rc = num_col(r, ix->metrics[m], &nn, &col, err)) < 0)
            goto done;
        for (size_t i = 0; i < n; i++)
            ix->rows[i].metric[m] = col[i];
        free(col);
    }
done:
    wk_trace_read_close(r);
    free(fmt);
    free(axes);
    free(metrics);
    free(units);
    free(id);
    free(status);
    free(seed);
    free(sched);
    free(over);
    free(trace);
    free(error);
    if (rc < 0) {
        wk_sweep_index_free(ix);
        return rc;
    }
    *out = ix;
    return 0;
}

/* ---- merge ------------------------------------------------------------------------------ */

static char *dir_real(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    return realpath(dir, NULL);
}

static int find_name(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return (int)i;
    return -1;
}

static int cmp_id(const void *a, const void *b)
{
    const WkSweepRow *x = *(const WkSweepRow *const *)a, *y = *(const WkSweepRow *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

int wk_sweep_index_merge(const char *const *paths, size_t n, const char *out_path, size_t *missing,
                         size_t *failed, WkError *err)
{
    *missing = *failed = 0;
    if (n == 0)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "sweep-merge: no shard indexes given");
    WkSweepIndex **in = calloc(n, sizeof *in);
    char **dirs = calloc(n, sizeof *dirs);
    WkSweepIndex *o = calloc(1, sizeof *o);
    const WkSweepRow **all = NULL;
    size_t *src = NULL;
    char *outdir = dir_real(out_path);
    int rc = 0;
    if (!in || !dirs || !o) {
        rc = wk_error_nomem(err, "sweep index");
        goto done;
    }
    if (!outdir) {
        rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: the directory does not exist", out_path);
        goto done;
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if ((rc = wk_sweep_index_read(&in[i], paths[i], err)) < 0)
            goto done;
        dirs[i] = dir_real(paths[i]);
        total += in[i]->nrows;
        const WkSweepIndex *a = in[0], *b = in[i];
        int same = strcmp(a->sweep_id, b->sweep_id) == 0 && a->npoints == b->npoints && a->naxes == b->naxes;
        for (size_t x = 0; same && x < a->naxes; x++)
            same = strcmp(a->axes[x], b->axes[x]) == 0;
        if (!same) {
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: from another sweep than %s (sweep_id %s, not %s)",
                              paths[i], paths[0], b->sweep_id, a->sweep_id);
            goto done;
        }
    }
    if (!(all = calloc(total ? total : 1, sizeof *all)) || !(src = calloc(total ? total : 1, sizeof *src))) {
        rc = wk_error_nomem(err, "sweep index");
        goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < in[i]->nrows; j++) {
            const WkSweepRow *r = &in[i]->rows[j];
            if (r->status == WK_SWEEP_NOT_RUN)
                continue;
            if (r->id < 0 || r->id >= in[0]->npoints) {
                rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: point id %lld outside the sweep's %lld points",
                                  paths[i], (long long)r->id, (long long)in[0]->npoints);
                goto done;
            }
            all[k++] = r;
        }
    /* remember each row's shard through its address */
    qsort(all, k, sizeof *all, cmp_id);
    for (size_t x = 0; x < k; x++) {
        for (size_t i = 0; i < n; i++)
            if (in[i]->nrows && all[x] >= in[i]->rows && all[x] < in[i]->rows + in[i]->nrows)
                src[x] = i;
        if (x && all[x]->id == all[x - 1]->id) {
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "point %lld is in both %s and %s", (long long)all[x]->id,
                              paths[src[x - 1]], paths[src[x]]);
            goto done;
        }
    }
    /* header from the first shard; metrics in point order */
    const WkSweepIndex *h = in[0];
    if (!(o->sweep_name = dup_s(h->sweep_name)) || !(o->sweep_file = dup_s(h->sweep_file)) ||
        !(o->sweep_text = dup_s(h->sweep_text)) || !(o->sweep_id = dup_s(h->sweep_id)) ||
        !(o->scenario_name = dup_s(h->scenario_name)) || !(o->shard = dup_s(""))) {
        rc = wk_error_nomem(err, "sweep index");
        goto done;
    }
    o->npoints = h->npoints;
    o->naxes = h->naxes;
    size_t mcap = 0;
    for (size_t i = 0; i < n; i++)
        mcap += in[i]->nmetrics;
    o->axes = calloc(h->naxes ? h->naxes : 1, sizeof *o->axes);
    o->metrics = calloc(mcap ? mcap : 1, sizeof *o->metrics);
    o->units = calloc(mcap ? mcap : 1, sizeof *o->units);
    o->rows = calloc(o->npoints ? (size_t)o->npoints : 1, sizeof *o->rows);
    if (!o->axes || !o->metrics || !o->units || !o->rows) {
        rc = wk_error_nomem(err, "sweep index");
        goto done;
    }
    for (size_t a = 0; a < h->naxes; a++)
        if (!(o->axes[a] = dup_s(h->axes[a]))) {
            rc = wk_error_nomem(err, "sweep index");
            goto done;
        }
    for (size_t x = 0; x < k; x++) {
        const WkSweepIndex *s = in[src[x]];
        if (all[x]->status != WK_SWEEP_OK)
            continue;
        for (size_t m = 0; m < s->nmetrics; m++) {
            if (find_name(o->metrics, o->nmetrics, s->metrics[m]) >= 0)
                continue;
            o->metrics[o->nmetrics] = dup_s(s->metrics[m]);
            o->units[o->nmetrics] = dup_s(s->units[m]);
            if (!o->metrics[o->nmetrics] || !o->units[o->nmetrics]) {
                rc = wk_error_nomem(err, "sweep index");
                goto done;
            }
            o->nmetrics++;
        }
    }
    size_t x = 0;
    for (int64_t id = 0; id < o->npoints; id++) {
        WkSweepRow *r = &o->rows[o->nrows++];
        const WkSweepRow *s = x < k && all[x]->id == id ? all[x] : NULL;
        const WkSweepIndex *si = s ? in[src[x]] : NULL;
        char tr[4352];
        if (s && s->trace[0] && strcmp(dirs[src[x]] ? dirs[src[x]] : "", outdir) != 0 && s->trace[0] != '/')
            snprintf(tr, sizeof tr, "%s/%s", dirs[src[x]] ? dirs[src[x]] : ".", s->trace);
        else
            snprintf(tr, sizeof tr, "%s", s ? s->trace : "");
        r->id = id;
        r->status = s ? s->status : WK_SWEEP_NOT_RUN;
        r->seed = s ? s->seed : -1;
        r->scheduler = dup_s(s ? s->scheduler : "");
        r->overrides = dup_s(s ? s->overrides : "");
        r->trace = dup_s(tr);
        r->error = dup_s(s ? s->error : "");
        r->axis = calloc(o->naxes ? o->naxes : 1, sizeof *r->axis);
        r->metric = calloc(o->nmetrics ? o->nmetrics : 1, sizeof *r->metric);
        if (!r->scheduler || !r->overrides || !r->trace || !r->error || !r->axis || !r->metric) {
            rc = wk_error_nomem(err, "sweep index");
            goto done;
        }
        for (size_t a = 0; a < o->naxes; a++)
            if (!(r->axis[a] = dup_s(s ? s->axis[a] : ""))) {
                rc = wk_error_nomem(err, "sweep index");
                goto done;
            }
        for (size_t m = 0; m < o->nmetrics; m++) {
            int j = si ? find_name(si->metrics, si->nmetrics, o->metrics[m]) : -1;
            r->metric[m] = j >= 0 ? s->metric[j] : NAN;
        }
        *missing += r->status == WK_SWEEP_NOT_RUN;
        *failed += r->status == WK_SWEEP_FAILED;
        if (s)
            x++;
    }
    rc = wk_sweep_index_write(o, out_path, err);
done:
    for (size_t i = 0; in && i < n; i++) {
        wk_sweep_index_free(in[i]);
        if (dirs)
            free(dirs[i]);
    }
    free(in);
    free(dirs);
    free(all);
    free(src);
    free(outdir);
    wk_sweep_index_free(o);
    return rc;
}
