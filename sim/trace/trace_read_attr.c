/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read_attr.c — what the HDF5 trace reader's files share, and the
 * attributes: HDF5 errors as WkError, paths checked to be hard links, the
 * bound on a table's rows, root attributes (strings, integers) and the
 * summary metrics read at open. Calls nothing in the other trace_read*.c
 * files, which build on it. */
#include "sim/trace/trace_read_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REASON_MAX 256

/* ---- HDF5 error handling ------------------------------------------------ */

/* The most specific HDF5 error's description, up to its first ':' ',' or newline. */
static herr_t reason_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    char *text = data;
    (void)n;
    if (text[0] || !e || !e->desc || !e->desc[0])
        return 0;
    snprintf(text, REASON_MAX, "%.*s", (int)strcspn(e->desc, ":,\n"), e->desc);
    return 0;
}

int wk_trace_read_io_fail(const WkTraceRead *r, WkError *err, const char *fmt, ...)
{
    char reason[REASON_MAX] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, reason_walk, reason);
    char op[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(op, sizeof op, fmt, ap);
    va_end(ap);
    return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: %s: %s", r->path, op,
                        reason[0] ? reason : "HDF5 error");
}

/* ---- objects and attributes -------------------------------------------------- */

/* The type of the link `path` (its parents already checked), or -1. */
static int link_type(hid_t file, const char *path)
{
#if H5_VERSION_GE(1, 12, 0)
    H5L_info2_t li;
    if (H5Lget_info2(file, path, &li, H5P_DEFAULT) < 0)
        return -1;
#else
    H5L_info_t li;
    if (H5Lget_info(file, path, &li, H5P_DEFAULT) < 0)
        return -1;
#endif
    return (int)li.type;
}

/* 1 when every component of path exists as a hard link, 0 when one is
 * missing (H5Lexists needs the parents to exist), -1 when one is a soft or
 * external link (never followed: a soft link can loop and an external one
 * opens another file) or cannot be read. Each component is checked before
 * anything below it is looked up, so no soft link is ever traversed. */
int wk_trace_read_path_exists(hid_t file, const char *path)
{
    char buf[512];
    if (!path || !path[0] || strlen(path) >= sizeof buf)
        return 0;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (buf[0] != '\0') {
            htri_t ex = H5Lexists(file, buf, H5P_DEFAULT);
            if (ex < 0) {
                *p = saved;
                return -1;
            }
            if (ex == 0) {
                *p = saved;
                return 0;
            }
            if (link_type(file, buf) != H5L_TYPE_HARD) {
                *p = saved;
                return -1;
            }
        }
        *p = saved;
        if (saved == '\0')
            return 1;
    }
}

/* Record WK_E_INVAL "<path>: <object>: a soft or external link ...". */
int wk_trace_read_link_fail(const WkTraceRead *r, const char *object, WkError *err)
{
    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                        "%s: %s: is (or lies below) a soft or external link, or its link cannot be read "
                        "(a wanka %s holds only its own objects, by hard links)",
                        r->path, object, r->schema ? r->schema->what : "trace");
}

/* Open the root attribute `name`: 0 and *attr, or WK_E_NOTFOUND. */
static int open_root_attr(WkTraceRead *r, const char *name, hid_t *attr, WkError *err)
{
    *attr = H5I_INVALID_HID;
    htri_t ex = H5Aexists_by_name(r->file, "/", name, H5P_DEFAULT);
    if (ex < 0)
        return wk_trace_read_io_fail(r, err, "cannot read attribute '%s'", name);
    if (ex == 0)
        return wk_error_set(err, WK_E_NOTFOUND, NULL, 0, 0, "%s: no root attribute '%s'", r->path, name);
    *attr = H5Aopen_by_name(r->file, "/", name, H5P_DEFAULT, H5P_DEFAULT);
    if (*attr < 0)
        return wk_trace_read_io_fail(r, err, "cannot open attribute '%s'", name);
    return 0;
}

/* Elements in the attribute's dataspace (-1 on error). */
static hssize_t attr_points(hid_t attr)
{
    hid_t space = H5Aget_space(attr);
    if (space < 0)
        return -1;
    hssize_t n = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    return n;
}

/* Variable-length strings are read only when the user says the file is
 * trusted (WANKA_TRACE_VLEN=1): to read one, HDF5 follows a global-heap
 * reference stored in the file, and HDF5 1.10.8 writes past its buffer on a
 * crafted one (H5HG_read; tests/fuzz/hdf5-h5hg-read-overflow.h5). wanka
 * writes fixed-length strings since trace schema 1.3 (sweep index 1.1). */
int wk_trace_read_vlen_trusted(void)
{
    const char *env = getenv("WANKA_TRACE_VLEN");
    return env && strcmp(env, "1") == 0;
}

int wk_trace_read_vlen_refused(const WkTraceRead *r, const char *object, const char *name, WkError *err)
{
    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                        "%s: %s%s%s: attribute is a variable-length string, which wanka reads only from a trusted "
                        "file (files before trace schema 1.3 have them: write it again, or set WANKA_TRACE_VLEN=1 "
                        "if you trust it)",
                        r->path, object, object[0] ? "/" : "", name);
}

/* Read a one-element string attribute into a malloc'd copy. */
static int read_str_attr(WkTraceRead *r, hid_t attr, const char *name, char **out, WkError *err)
{
    *out = NULL;
    hid_t ftype = H5Aget_type(attr), mtype = H5I_INVALID_HID;
    int rc = 0;
    if (ftype < 0) {
        rc = wk_trace_read_io_fail(r, err, "cannot read attribute '%s'", name);
        goto done;
    }
    if (H5Tget_class(ftype) != H5T_STRING || attr_points(attr) != 1) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: attribute '%s' is not a single string",
                          r->path, name);
        goto done;
    }
    /* HDF5 converts no character sets: read in the file's (ASCII or UTF-8). */
    mtype = H5Tcopy(H5T_C_S1);
    H5T_cset_t cset = H5Tget_cset(ftype);
    if (mtype >= 0 && cset >= 0 && H5Tset_cset(mtype, cset) < 0) {
        rc = wk_trace_read_io_fail(r, err, "cannot read attribute '%s'", name);
        goto done;
    }
    if (H5Tis_variable_str(ftype) > 0) {
        char *s = NULL;
        if (!wk_trace_read_vlen_trusted()) {
            rc = wk_trace_read_vlen_refused(r, "", name, err);
            goto done;
        }
        if (mtype < 0 || H5Tset_size(mtype, H5T_VARIABLE) < 0 || H5Aread(attr, mtype, &s) < 0) {
            rc = wk_trace_read_io_fail(r, err, "cannot read attribute '%s'", name);
            goto done;
        }
        size_t len = s ? strlen(s) : 0;
        *out = malloc(len + 1);
        if (*out) {
            if (len)
                memcpy(*out, s, len);
            (*out)[len] = '\0';
        }
        if (s)
            H5free_memory(s);
        if (!*out)
            rc = wk_error_nomem(err, "trace");
    } else {
        size_t size = H5Tget_size(ftype);
        if (size == 0 || size > r->bytes) { /* an attribute's value is stored in the file */
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                              "%s: %s: attribute is a string of %zu bytes in a file of %llu bytes", r->path, name,
                              size, (unsigned long long)r->bytes);
            goto done;
        }
        char *s = calloc(1, size + 1);
        if (!s) {
            rc = wk_error_nomem(err, "trace");
            goto done;
        }
        if (mtype < 0 || H5Tset_size(mtype, size + 1) < 0 || H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0 ||
            H5Aread(attr, mtype, s) < 0) {
            free(s);
            rc = wk_trace_read_io_fail(r, err, "cannot read attribute '%s'", name);
            goto done;
        }
        *out = s;
    }
done:
    if (mtype >= 0)
        H5Tclose(mtype);
    if (ftype >= 0)
        H5Tclose(ftype);
    return rc;
}

int wk_trace_read_root_str(WkTraceRead *r, const char *name, char **out, WkError *err)
{
    hid_t attr;
    int rc = open_root_attr(r, name, &attr, err);
    if (rc == 0) {
        rc = read_str_attr(r, attr, name, out, err);
        H5Aclose(attr);
    }
    return rc;
}

/* ---- the bound on a table's rows ---------------------------------------------- */

/* The most rows a table of rows of row_size bytes may have in this file. */
uint64_t wk_trace_read_max_rows(const WkTraceRead *r, size_t row_size)
{
    if (row_size == 0)
        return 0;
    uint64_t bytes = r->bytes > UINT64_MAX / WK_SCHEMA_DEFLATE_MAX ? UINT64_MAX / WK_SCHEMA_DEFLATE_MAX : r->bytes;
    return (bytes * WK_SCHEMA_DEFLATE_MAX + WK_SCHEMA_ROW_SLACK) / row_size;
}

/* ---- root attributes ------------------------------------------------------------ */

int wk_trace_read_attr_str(WkTraceRead *r, const char *name, char **out, WkError *err)
{
    if (!r || !name || !out)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: attribute read without a trace or name");
    Quiet q = quiet_begin();
    int rc = wk_trace_read_root_str(r, name, out, err);
    quiet_end(q);
    return rc;
}

int wk_trace_read_attr_str_opt(WkTraceRead *r, const char *name, char **out, WkError *err)
{
    if (!r || !name || !out)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: attribute read without a trace or name");
    Quiet q = quiet_begin();
    int rc = 0;
    htri_t ex = H5Aexists_by_name(r->file, "/", name, H5P_DEFAULT);
    if (ex < 0) {
        rc = wk_trace_read_io_fail(r, err, "cannot read attribute '%s'", name);
    } else if (ex == 0) {
        *out = malloc(1);
        if (*out)
            (*out)[0] = '\0';
        else
            rc = wk_error_nomem(err, "trace");
    } else {
        rc = wk_trace_read_root_str(r, name, out, err);
    }
    quiet_end(q);
    return rc;
}

int wk_trace_read_attr_i64(WkTraceRead *r, const char *name, int64_t *out, WkError *err)
{
    if (!r || !name || !out)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: attribute read without a trace or name");
    Quiet q = quiet_begin();
    hid_t attr, ftype = H5I_INVALID_HID;
    int rc = open_root_attr(r, name, &attr, err);
    if (rc == 0) {
        ftype = H5Aget_type(attr);
        if (ftype < 0)
            rc = wk_trace_read_io_fail(r, err, "cannot read attribute '%s'", name);
        else if (H5Tget_class(ftype) != H5T_INTEGER || attr_points(attr) != 1)
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: attribute '%s' is not a single integer",
                              r->path, name);
        else if (H5Aread(attr, H5T_NATIVE_INT64, out) < 0)
            rc = wk_trace_read_io_fail(r, err, "cannot read attribute '%s'", name);
        if (ftype >= 0)
            H5Tclose(ftype);
        H5Aclose(attr);
    }
    quiet_end(q);
    return rc;
}

/* ---- summary ----------------------------------------------------------------------- */

static int cmp_metric(const void *pa, const void *pb)
{
    const WkTraceMetric *a = pa, *b = pb;
    return strcmp(a->name, b->name);
}

int wk_trace_read_summary(WkTraceRead *r, WkTraceMetric **out, size_t *n, WkError *err)
{
    if (!r || !out || !n)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: summary read without a trace");
    *out = NULL;
    *n = 0;
    if (r->nmetrics == 0) /* no summary group, or an empty one */
        return 0;
    WkTraceMetric *m = malloc(r->nmetrics * sizeof *m);
    if (!m)
        return wk_error_nomem(err, "trace");
    memcpy(m, r->metrics, r->nmetrics * sizeof *m);
    *out = m;
    *n = r->nmetrics;
    return 0;
}

void wk_trace_read_metrics_sort(WkTraceMetric *m, size_t n)
{
    if (m && n > 1)
        qsort(m, n, sizeof *m, cmp_metric);
}

const WkTraceMetric *wk_trace_read_metric(const WkTraceMetric *m, size_t n, const char *name)
{
    if (!m || !name || n == 0)
        return NULL;
    WkTraceMetric key = {0};
    if (strlen(name) >= sizeof key.name)
        return NULL; /* longer than any stored name */
    snprintf(key.name, sizeof key.name, "%s", name);
    return bsearch(&key, m, n, sizeof *m, cmp_metric);
}
