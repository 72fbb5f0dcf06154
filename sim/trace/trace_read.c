/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read.c — the HDF5 trace reader (with trace.c, the only file including
 * <hdf5.h>, through h5util.h): open + schema check, root attributes, summary
 * metrics, table columns as doubles. HDF5's automatic error printing is off
 * around every call. */
#include "sim/trace/trace_read.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "sim/trace/h5util.h"

#define REASON_MAX 256

struct WkTraceRead {
    hid_t file;
    char *path;
    int major, minor;           /* schema_version */
    uint64_t bytes;             /* the file's size on disk at open */
    const WkSchemaFile *schema; /* the trace's or the sweep index's (root attribute format) */
    WkTraceMetric *metrics;     /* the summary group's attributes, read at open, sorted by name */
    size_t nmetrics;
};

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

/* Record WK_E_IO "<path>: <op>: <HDF5 reason>". Call right after the failing call. */
static int io_fail(const WkTraceRead *r, WkError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int io_fail(const WkTraceRead *r, WkError *err, const char *fmt, ...)
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
static int path_exists(hid_t file, const char *path)
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
static int link_fail(const WkTraceRead *r, const char *object, WkError *err)
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
        return io_fail(r, err, "cannot read attribute '%s'", name);
    if (ex == 0)
        return wk_error_set(err, WK_E_NOTFOUND, NULL, 0, 0, "%s: no root attribute '%s'", r->path, name);
    *attr = H5Aopen_by_name(r->file, "/", name, H5P_DEFAULT, H5P_DEFAULT);
    if (*attr < 0)
        return io_fail(r, err, "cannot open attribute '%s'", name);
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
static int vlen_trusted(void)
{
    const char *env = getenv("WANKA_TRACE_VLEN");
    return env && strcmp(env, "1") == 0;
}

static int vlen_refused(const WkTraceRead *r, const char *object, const char *name, WkError *err)
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
        rc = io_fail(r, err, "cannot read attribute '%s'", name);
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
        rc = io_fail(r, err, "cannot read attribute '%s'", name);
        goto done;
    }
    if (H5Tis_variable_str(ftype) > 0) {
        char *s = NULL;
        if (!vlen_trusted()) {
            rc = vlen_refused(r, "", name, err);
            goto done;
        }
        if (mtype < 0 || H5Tset_size(mtype, H5T_VARIABLE) < 0 || H5Aread(attr, mtype, &s) < 0) {
            rc = io_fail(r, err, "cannot read attribute '%s'", name);
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
            rc = io_fail(r, err, "cannot read attribute '%s'", name);
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

static int attr_str(WkTraceRead *r, const char *name, char **out, WkError *err)
{
    hid_t attr;
    int rc = open_root_attr(r, name, &attr, err);
    if (rc == 0) {
        rc = read_str_attr(r, attr, name, out, err);
        H5Aclose(attr);
    }
    return rc;
}

/* ---- open / close -------------------------------------------------------------- */

/* Parse "MAJOR.MINOR" (both non-negative integers, nothing else). */
static int parse_version(const char *s, int *major, int *minor)
{
    int n = 0;
    if (sscanf(s, "%d.%d%n", major, minor, &n) != 2 || s[n] != '\0' || *major < 0 || *minor < 0)
        return -1;
    return 0;
}

static int check_schema(WkTraceRead *r, WkError *err)
{
    char *v = NULL;
    WkError sub;
    wk_error_clear(&sub);
    int rc = attr_str(r, WK_SCHEMA_ATTR_SCHEMA_VERSION, &v, &sub);
    if (rc == WK_E_NOTFOUND)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: not a wanka trace: no root attribute '%s'",
                            r->path, WK_SCHEMA_ATTR_SCHEMA_VERSION);
    if (rc < 0)
        return wk_error_set(err, rc, sub.where[0] ? sub.where : NULL, 0, 0, "%s", sub.msg);
    if (parse_version(v, &r->major, &r->minor) < 0)
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                          "%s: malformed %s '%s' (expected MAJOR.MINOR, e.g. \"%s\")", r->path,
                          WK_SCHEMA_ATTR_SCHEMA_VERSION, v, WK_SCHEMA_VERSION);
    else if (r->major != WK_TRACE_READ_MAJOR)
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                          "%s: trace schema version %s is not supported: this wanka reads schema %d.x "
                          "(major version %d is unknown)",
                          r->path, v, WK_TRACE_READ_MAJOR, r->major);
    free(v);
    return rc;
}

/* ---- the schema check at open ---------------------------------------------------- */

/* The object type at path (its links already checked hard), or H5O_TYPE_UNKNOWN. */
static H5O_type_t object_type(hid_t file, const char *path)
{
    H5O_info_t info;
#if H5_VERSION_GE(1, 12, 0)
    herr_t ok = H5Oget_info_by_name3(file, path, &info, H5O_INFO_BASIC, H5P_DEFAULT);
#elif H5_VERSION_GE(1, 10, 3)
    herr_t ok = H5Oget_info_by_name2(file, path, &info, H5O_INFO_BASIC, H5P_DEFAULT);
#else
    herr_t ok = H5Oget_info_by_name(file, path, &info, H5P_DEFAULT);
#endif
    return ok < 0 ? H5O_TYPE_UNKNOWN : info.type;
}

/* The most rows a table of rows of row_size bytes may have in this file. */
static uint64_t max_rows(const WkTraceRead *r, size_t row_size)
{
    if (row_size == 0)
        return 0;
    uint64_t bytes = r->bytes > UINT64_MAX / WK_SCHEMA_DEFLATE_MAX ? UINT64_MAX / WK_SCHEMA_DEFLATE_MAX : r->bytes;
    return (bytes * WK_SCHEMA_DEFLATE_MAX + WK_SCHEMA_ROW_SLACK) / row_size;
}

/* Check the attribute attr (`name` of `object`, "" for the root) against t:
 * one value of the right class. */
static int check_attr(WkTraceRead *r, hid_t attr, const char *object, const char *name, WkSchemaType t,
                      WkError *err)
{
    hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
    int rc = 0;
    if (type < 0 || space < 0) {
        rc = io_fail(r, err, "%s%s%s: cannot read the attribute", object, object[0] ? "/" : "", name);
        goto done;
    }
    H5S_class_t sc = H5Sget_simple_extent_type(space);
    hssize_t np = H5Sget_simple_extent_npoints(space);
    H5T_class_t cls = H5Tget_class(type);
    size_t size = H5Tget_size(type);
    const char *want = NULL;
    if (sc != H5S_SCALAR && !(sc == H5S_SIMPLE && np == 1))
        want = t == WK_SCHEMA_T_STR ? "a single string" : t == WK_SCHEMA_T_INT ? "a single integer" : "a single number";
    else if (t == WK_SCHEMA_T_STR && (cls != H5T_STRING || (H5Tis_variable_str(type) <= 0 && size > r->bytes)))
        want = "a single string";
    else if (t == WK_SCHEMA_T_STR && H5Tis_variable_str(type) > 0 && !vlen_trusted()) {
        rc = vlen_refused(r, object, name, err);
        goto done;
    }
    else if (t == WK_SCHEMA_T_INT && (cls != H5T_INTEGER || size > 8))
        want = "a single integer";
    else if (t == WK_SCHEMA_T_NUM && !((cls == H5T_INTEGER || cls == H5T_FLOAT) && size <= 8))
        want = "a single number";
    if (want)
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s%s%s: attribute is not %s", r->path, object,
                          object[0] ? "/" : "", name, want);
done:
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    return rc;
}

static int cmp_metric(const void *pa, const void *pb)
{
    const WkTraceMetric *a = pa, *b = pb;
    return strcmp(a->name, b->name);
}

typedef struct MetricWalk {
    WkTraceRead *r;
    WkError *err;
    const char *group;
    WkTraceMetric *m;
    size_t n, cap;
    int rc;
} MetricWalk;

/* One attribute of the metric group: checked (a single number), read as a double. */
static herr_t metric_one(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    MetricWalk *w = data;
    (void)info;
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    if (attr < 0) {
        w->rc = io_fail(w->r, w->err, "%s/%s: cannot open the attribute", w->group, name);
        return -1;
    }
    double v = NAN;
    if ((w->rc = check_attr(w->r, attr, w->group, name, WK_SCHEMA_T_NUM, w->err)) == 0 &&
        H5Aread(attr, H5T_NATIVE_DOUBLE, &v) < 0)
        w->rc = io_fail(w->r, w->err, "%s/%s: cannot read the attribute", w->group, name);
    H5Aclose(attr);
    if (w->rc < 0)
        return -1;
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 32;
        WkTraceMetric *m = realloc(w->m, cap * sizeof *m);
        if (!m) {
            w->rc = wk_error_nomem(w->err, "trace");
            return -1;
        }
        w->m = m;
        w->cap = cap;
    }
    WkTraceMetric *m = &w->m[w->n++];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->value = v;
    return 0;
}

/* Check and read every attribute of the metric group (present, a group)
 * once, at open, into r->metrics in name order: HDF5 finds an attribute by
 * name by scanning the object header of a file in the original format, so
 * each pass over n attributes costs n^2 / 2 name comparisons inside the
 * library; one pass is all a reader pays. */
static int read_metric_group(WkTraceRead *r, const char *group, WkError *err)
{
    hid_t g = H5Oopen(r->file, group, H5P_DEFAULT);
    if (g < 0)
        return io_fail(r, err, "%s: cannot open the group", group);
    MetricWalk w = {.r = r, .err = err, .group = group};
    hsize_t idx = 0;
    if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, metric_one, &w) < 0 && w.rc == 0)
        w.rc = io_fail(r, err, "%s: cannot read the attributes", group);
    H5Oclose(g);
    if (w.rc < 0) {
        free(w.m);
        return w.rc;
    }
    wk_trace_read_metrics_sort(w.m, w.n);
    r->metrics = w.m;
    r->nmetrics = w.n;
    return 0;
}

/* "completed=0, rejected=1, ...": an enum's names, into buf. */
static void enum_list(const char *const *names, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; names[i] && used < cap; i++) {
        int w = snprintf(buf + used, cap - used, "%s%s=%u", i ? ", " : "", names[i], i);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static int type_is(hid_t t, hid_t a, hid_t b)
{
    return H5Tequal(t, a) > 0 || H5Tequal(t, b) > 0;
}

/* NULL when the member type mt is the schema's (t, len, names), else what is wrong, in why. */
static const char *type_mismatch(hid_t mt, WkSchemaType t, unsigned len, const char *const *names, char *why,
                                 size_t nwhy)
{
    switch (t) {
    case WK_SCHEMA_T_I64: return type_is(mt, H5T_STD_I64LE, H5T_STD_I64BE) ? NULL : "is not an int64 column";
    case WK_SCHEMA_T_I32: return type_is(mt, H5T_STD_I32LE, H5T_STD_I32BE) ? NULL : "is not an int32 column";
    case WK_SCHEMA_T_U32: return type_is(mt, H5T_STD_U32LE, H5T_STD_U32BE) ? NULL : "is not a uint32 column";
    case WK_SCHEMA_T_F64: return type_is(mt, H5T_IEEE_F64LE, H5T_IEEE_F64BE) ? NULL : "is not a float64 column";
    case WK_SCHEMA_T_STR:
        if (H5Tget_class(mt) != H5T_STRING || H5Tis_variable_str(mt) != 0 || H5Tget_size(mt) != len) {
            snprintf(why, nwhy, "is not a fixed-length string column of %u bytes", len);
            return why;
        }
        return NULL;
    case WK_SCHEMA_T_ENUM8: {
        if (H5Tget_class(mt) != H5T_ENUM)
            return "is not an enum column";
        hid_t super = H5Tget_super(mt);
        int ok = super >= 0 && type_is(super, H5T_STD_U8LE, H5T_STD_U8BE);
        if (super >= 0)
            H5Tclose(super);
        if (!ok)
            return "is not an enum over uint8";
        unsigned count = 0;
        while (names[count])
            count++;
        int nm = H5Tget_nmembers(mt);
        if (nm < 0 || (unsigned)nm > count) {
            char list[512];
            enum_list(names, list, sizeof list);
            snprintf(why, nwhy, "enum has %d values, the schema %u (%s)", nm, count, list);
            return why;
        }
        for (int i = 0; i < nm; i++) {
            uint8_t v = 0;
            char *name = H5Tget_member_name(mt, (unsigned)i);
            int good = name && H5Tget_member_value(mt, (unsigned)i, &v) >= 0 && v < count &&
                       strcmp(names[v], name) == 0;
            if (!good) {
                char list[512];
                enum_list(names, list, sizeof list);
                snprintf(why, nwhy, "enum value %u '%.64s' is not the schema's (%s)", v, name ? name : "?", list);
            }
            if (name)
                H5free_memory(name);
            if (!good)
                return why;
        }
        return NULL;
    }
    default: return "has a type the schema does not know";
    }
}

/* Check the table t (when present): a 1-D compound dataset, rows bounded by
 * the file's size, every member as the schema says. */
static int check_table(WkTraceRead *r, const WkSchemaTable *t, WkError *err)
{
    int ex = path_exists(r->file, t->path);
    if (ex < 0)
        return link_fail(r, t->path, err);
    if (ex == 0)
        return 0;
    if (object_type(r->file, t->path) != H5O_TYPE_DATASET)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s: not a table (a 1-D compound dataset)", r->path,
                            t->path);
    hid_t dset = H5Dopen2(r->file, t->path, H5P_DEFAULT);
    hid_t ftype = dset >= 0 ? H5Dget_type(dset) : H5I_INVALID_HID;
    hid_t space = dset >= 0 ? H5Dget_space(dset) : H5I_INVALID_HID;
    int rc = 0;
    if (dset < 0 || ftype < 0 || space < 0) {
        rc = io_fail(r, err, "%s: cannot open the table", t->path);
        goto done;
    }
    hsize_t dims[1] = {0};
    if (H5Tget_class(ftype) != H5T_COMPOUND || H5Sget_simple_extent_type(space) != H5S_SIMPLE ||
        H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, dims, NULL) != 1) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s: not a table (a 1-D compound dataset)", r->path,
                          t->path);
        goto done;
    }
    size_t row = H5Tget_size(ftype);
    if (row == 0 || dims[0] > max_rows(r, row)) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                          "%s: %s: %llu rows of %zu bytes cannot be stored in a file of %llu bytes (at most %llu)",
                          r->path, t->path, (unsigned long long)dims[0], row, (unsigned long long)r->bytes,
                          (unsigned long long)max_rows(r, row));
        goto done;
    }
    int nm = H5Tget_nmembers(ftype);
    for (int i = 0; rc == 0 && i < nm; i++) {
        char *name = H5Tget_member_name(ftype, (unsigned)i);
        hid_t mt = H5Tget_member_type(ftype, (unsigned)i);
        char why[768];
        const char *bad = NULL;
        if (!name || mt < 0) {
            bad = "cannot be read";
        } else {
            const WkSchemaColumn *col = NULL;
            for (size_t c = 0; c < t->ncols && !col; c++)
                if (strcmp(t->cols[c].name, name) == 0)
                    col = &t->cols[c];
            if (col && col->since_minor > r->minor) {
                snprintf(why, sizeof why, "is not in %s schema %d.%d (added in %d.%d)", r->schema->what, r->major,
                         r->minor, r->major, col->since_minor);
                bad = why;
            } else if (col) {
                bad = type_mismatch(mt, col->type, col->str_len, col->enum_names, why, sizeof why);
            } else if (t->other[0] < 0) {
                if (r->minor <= r->schema->minor) {
                    snprintf(why, sizeof why, "is not a column of %s schema %d.%d", r->schema->what, r->major,
                             r->minor);
                    bad = why;
                }
            } else {
                bad = type_mismatch(mt, (WkSchemaType)t->other[0], t->other_len, NULL, why, sizeof why);
                if (bad && t->other[1] >= 0)
                    bad = type_mismatch(mt, (WkSchemaType)t->other[1], t->other_len, NULL, why, sizeof why);
                if (bad) {
                    snprintf(why, sizeof why, "is neither of the types an extra column may have");
                    bad = why;
                }
            }
        }
        if (bad)
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s/%.128s: column %s", r->path, t->path,
                              name ? name : "?", bad);
        if (name)
            H5free_memory(name);
        if (mt >= 0)
            H5Tclose(mt);
    }
    if (rc == 0 && nm < 0)
        rc = io_fail(r, err, "%s: cannot read the columns", t->path);
done:
    if (space >= 0)
        H5Sclose(space);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (dset >= 0)
        H5Dclose(dset);
    return rc;
}

/* Check a group (when present): a hard link to a group. *present says whether it is there. */
static int check_group(WkTraceRead *r, const char *path, int *present, WkError *err)
{
    int ex = path_exists(r->file, path);
    *present = ex > 0;
    if (ex < 0)
        return link_fail(r, path, err);
    if (ex > 0 && object_type(r->file, path) != H5O_TYPE_GROUP)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s: not a group", r->path, path);
    return 0;
}

/* The whole check: which schema (root attribute format), the root
 * attributes' types, the groups, the tables, the metric group's attributes. */
static int check_file(WkTraceRead *r, WkError *err)
{
    r->schema = &wk_schema_trace;
    htri_t ex = H5Aexists_by_name(r->file, "/", WK_SCHEMA_ATTR_FORMAT, H5P_DEFAULT);
    if (ex < 0)
        return io_fail(r, err, "%s: cannot read the attribute", WK_SCHEMA_ATTR_FORMAT);
    if (ex > 0) {
        char *fmt = NULL;
        int rc = attr_str(r, WK_SCHEMA_ATTR_FORMAT, &fmt, err);
        if (rc < 0)
            return rc;
        if (strcmp(fmt, WK_SCHEMA_SWEEP_FORMAT) == 0)
            r->schema = &wk_schema_sweep_index;
        else
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                              "%s: %s: '%.64s' is not a format this wanka reads (\"%s\", or none for a trace)",
                              r->path, WK_SCHEMA_ATTR_FORMAT, fmt, WK_SCHEMA_SWEEP_FORMAT);
        free(fmt);
        if (rc < 0)
            return rc;
    }
    const WkSchemaFile *sf = r->schema;
    for (size_t i = 0; i < sf->nattrs; i++) {
        const char *name = sf->attrs[i].name;
        ex = H5Aexists_by_name(r->file, "/", name, H5P_DEFAULT);
        if (ex < 0)
            return io_fail(r, err, "%s: cannot read the attribute", name);
        if (ex == 0)
            continue;
        hid_t attr = H5Aopen_by_name(r->file, "/", name, H5P_DEFAULT, H5P_DEFAULT);
        if (attr < 0)
            return io_fail(r, err, "%s: cannot open the attribute", name);
        int rc = check_attr(r, attr, "", name, sf->attrs[i].type, err);
        H5Aclose(attr);
        if (rc < 0)
            return rc;
    }
    int present = 0, rc = 0;
    for (size_t i = 0; sf->groups[i]; i++)
        if ((rc = check_group(r, sf->groups[i], &present, err)) < 0)
            return rc;
    for (size_t i = 0; i < sf->ntables; i++)
        if ((rc = check_table(r, &sf->tables[i], err)) < 0)
            return rc;
    if (sf->metric_group) {
        if ((rc = check_group(r, sf->metric_group, &present, err)) < 0)
            return rc;
        if (present && (rc = read_metric_group(r, sf->metric_group, err)) < 0)
            return rc;
    }
    return 0;
}

/* ---- a bound on what the HDF5 library may spend opening a file ----------------- */

/* A crafted file can make the HDF5 library loop (found by fuzzing: a global
 * heap collection that H5HG_read never leaves while reading a string
 * attribute). Opening and checking a genuine trace takes milliseconds of
 * CPU, so a process that has spent WK_TRACE_OPEN_LIMIT_S seconds of CPU
 * time (user + system) inside open prints which file and exits with status
 * 2: a message instead of a hang. CPU time, not wall time: a loaded machine
 * cannot make a genuine open look like a loop, and SIGALRM stays the
 * caller's (libFuzzer's per-input timer is a SIGALRM interval timer, which
 * a wall-clock watch here used to take over). The profiling timer
 * (ITIMER_PROF, SIGPROF) is saved and restored around open.
 * WANKA_TRACE_OPEN_LIMIT (whole seconds, 1 to 3600) overrides the limit.
 * The handler may only use async-signal-safe calls. */
#define WK_TRACE_OPEN_LIMIT_S 20
static char watch_msg[1024];
static size_t watch_len;

static void watch_fire(int sig)
{
    (void)sig;
    ssize_t w = write(2, watch_msg, watch_len);
    (void)w;
    _exit(2);
}

typedef struct Watch {
    struct sigaction old;
    struct itimerval old_timer;
    int armed;
} Watch;

static Watch watch_begin(const char *path)
{
    Watch w = {.armed = 0};
    unsigned limit = WK_TRACE_OPEN_LIMIT_S;
    const char *env = getenv("WANKA_TRACE_OPEN_LIMIT");
    if (env && env[0]) {
        char *end;
        long v = strtol(env, &end, 10);
        if (!*end && v >= 1 && v <= 3600)
            limit = (unsigned)v;
    }
    int n = snprintf(watch_msg, sizeof watch_msg,
                     "wanka: %s: the HDF5 library did not finish opening this file in %u s of CPU time; a damaged "
                     "or crafted trace can make it loop (not a wanka trace?)\n",
                     path, limit);
    watch_len = n < 0 ? 0 : (size_t)n < sizeof watch_msg ? (size_t)n : sizeof watch_msg - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = watch_fire;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, &w.old) == 0) {
        struct itimerval t = {.it_interval = {0, 0}, .it_value = {(time_t)limit, 0}};
        if (setitimer(ITIMER_PROF, &t, &w.old_timer) == 0)
            w.armed = 1;
        else
            sigaction(SIGPROF, &w.old, NULL);
    }
    return w;
}

static void watch_end(Watch *w)
{
    if (!w->armed)
        return;
    struct itimerval off = {.it_interval = {0, 0}, .it_value = {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    sigaction(SIGPROF, &w->old, NULL);
    if (w->old_timer.it_value.tv_sec || w->old_timer.it_value.tv_usec)
        setitimer(ITIMER_PROF, &w->old_timer, NULL);
}

int wk_trace_read_open(WkTraceRead **out, const char *path, WkError *err)
{
    no_exit_cleanup();
    if (!out || !path || !path[0])
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: no file name");
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot open: %s", path, strerror(EISDIR));
    if (!S_ISREG(st.st_mode)) /* a FIFO would block the open below forever */
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: not a regular file (a trace is an HDF5 file)", path);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot open: %s", path, strerror(errno));
    fclose(fp);

    WkTraceRead *r = calloc(1, sizeof *r);
    size_t len = strlen(path);
    if (!r || !(r->path = malloc(len + 1))) {
        free(r);
        return wk_error_nomem(err, "trace");
    }
    memcpy(r->path, path, len + 1);
    r->file = H5I_INVALID_HID;
    r->bytes = (uint64_t)st.st_size;

    Watch watch = watch_begin(path);
    Quiet q = quiet_begin();
    int rc = 0;
#if H5_VERSION_GE(1, 12, 0)
    htri_t is_h5 = H5Fis_accessible(path, H5P_DEFAULT);
#else
    htri_t is_h5 = H5Fis_hdf5(path);
#endif
    if (is_h5 <= 0) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: not an HDF5 file (a wanka trace is HDF5)", path);
    } else {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
#if HAVE_FILE_LOCKING_PROP
            H5Pset_file_locking(fapl, 0, 1) < 0 ||
#endif
            (r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0)
            rc = io_fail(r, err, "cannot open");
        if (fapl >= 0)
            H5Pclose(fapl);
    }
    if (rc == 0)
        rc = check_schema(r, err);
    if (rc == 0)
        rc = check_file(r, err);
    quiet_end(q);
    watch_end(&watch);
    if (rc < 0) {
        wk_trace_read_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

void wk_trace_read_close(WkTraceRead *r)
{
    if (!r)
        return;
    if (r->file >= 0) {
        Quiet q = quiet_begin();
        H5Fclose(r->file);
        quiet_end(q);
    }
    free(r->metrics);
    free(r->path);
    free(r);
}

const char *wk_trace_read_path(const WkTraceRead *r)
{
    return r->path;
}

void wk_trace_read_version(const WkTraceRead *r, int *major, int *minor)
{
    if (major)
        *major = r->major;
    if (minor)
        *minor = r->minor;
}

/* ---- root attributes ------------------------------------------------------------ */

int wk_trace_read_attr_str(WkTraceRead *r, const char *name, char **out, WkError *err)
{
    if (!r || !name || !out)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: attribute read without a trace or name");
    Quiet q = quiet_begin();
    int rc = attr_str(r, name, out, err);
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
        rc = io_fail(r, err, "cannot read attribute '%s'", name);
    } else if (ex == 0) {
        *out = malloc(1);
        if (*out)
            (*out)[0] = '\0';
        else
            rc = wk_error_nomem(err, "trace");
    } else {
        rc = attr_str(r, name, out, err);
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
            rc = io_fail(r, err, "cannot read attribute '%s'", name);
        else if (H5Tget_class(ftype) != H5T_INTEGER || attr_points(attr) != 1)
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: attribute '%s' is not a single integer",
                              r->path, name);
        else if (H5Aread(attr, H5T_NATIVE_INT64, out) < 0)
            rc = io_fail(r, err, "cannot read attribute '%s'", name);
        if (ftype >= 0)
            H5Tclose(ftype);
        H5Aclose(attr);
    }
    quiet_end(q);
    return rc;
}

/* ---- summary ----------------------------------------------------------------------- */

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

/* ---- tables -------------------------------------------------------------------------- */

int wk_trace_read_has(WkTraceRead *r, const char *path)
{
    if (!r || !path)
        return 0;
    Quiet q = quiet_begin();
    int ex = path_exists(r->file, path);
    quiet_end(q);
    return ex > 0;
}

/* "a, b, c": the member names of a compound type, into buf. */
static void member_list(hid_t type, char *buf, size_t cap)
{
    buf[0] = '\0';
    int nm = H5Tget_nmembers(type);
    size_t used = 0;
    for (int i = 0; i < nm && used < cap; i++) {
        char *name = H5Tget_member_name(type, (unsigned)i);
        if (!name)
            continue;
        int w = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", name);
        H5free_memory(name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* Read an enum column: into its native enum type, then by integer value. */
static int read_enum_column(WkTraceRead *r, hid_t dset, const char *table, const char *column,
                            hid_t member, double *vals, size_t n, WkError *err)
{
    hid_t menum = H5Tget_native_type(member, H5T_DIR_ASCEND);
    hid_t super = menum >= 0 ? H5Tget_super(menum) : H5I_INVALID_HID;
    hid_t mtype = H5I_INVALID_HID;
    unsigned char *buf = NULL;
    int rc = 0;
    size_t size = super >= 0 ? H5Tget_size(super) : 0;
    if (super >= 0 && (size != 1 || H5Tget_sign(super) != H5T_SGN_NONE)) { /* the schema's enums are uint8 */
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s/%s: column is not an enum over uint8", r->path,
                          table, column);
        goto done;
    }
    /* the values the enum names: a stored byte outside them is refused below */
    unsigned char known[256] = {0};
    int nm = H5Tget_nmembers(member);
    for (int i = 0; i < nm; i++) {
        uint8_t v = 0;
        if (H5Tget_member_value(member, (unsigned)i, &v) >= 0)
            known[v] = 1;
    }
    if (size == 0 || (mtype = H5Tcreate(H5T_COMPOUND, size)) < 0 || H5Tinsert(mtype, column, 0, menum) < 0) {
        rc = io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
        goto done;
    }
    if (!(buf = malloc(n * size))) {
        rc = wk_error_nomem(err, "trace");
        goto done;
    }
    if (H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        rc = io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (!known[buf[i]]) {
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s/%s: row %zu: value %u is none of the enum's values",
                              r->path, table, column, i, buf[i]);
            goto done;
        }
        vals[i] = buf[i];
    }
done:
    free(buf);
    if (mtype >= 0)
        H5Tclose(mtype);
    if (super >= 0)
        H5Tclose(super);
    if (menum >= 0)
        H5Tclose(menum);
    return rc;
}

/* Close what find_column opened (each id may be H5I_INVALID_HID). */
static void close_column(hid_t dset, hid_t ftype, hid_t space, hid_t member)
{
    if (member >= 0)
        H5Tclose(member);
    if (space >= 0)
        H5Sclose(space);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (dset >= 0)
        H5Dclose(dset);
}

/* Open `table` (a 1-D compound dataset) and find `column` in it: on success
 * the caller closes *dset, *ftype, *space and *member; on failure they are
 * closed here and err says what is missing or wrong. */
static int find_column(WkTraceRead *r, const char *table, const char *column, hid_t *dset_out, hid_t *ftype_out,
                       hid_t *space_out, hid_t *member_out, WkError *err)
{
    hid_t dset = H5I_INVALID_HID, ftype = H5I_INVALID_HID, space = H5I_INVALID_HID, member = H5I_INVALID_HID;
    int rc = 0;
    int ex = path_exists(r->file, table);
    if (ex < 0) {
        rc = link_fail(r, table, err);
        goto fail;
    }
    if (ex == 0) {
        rc = wk_error_set(err, WK_E_NOTFOUND, NULL, 0, 0, "%s: no table '%s'", r->path, table);
        goto fail;
    }
    H5O_info_t info;
#if H5_VERSION_GE(1, 12, 0)
    herr_t ok = H5Oget_info_by_name3(r->file, table, &info, H5O_INFO_BASIC, H5P_DEFAULT);
#elif H5_VERSION_GE(1, 10, 3)
    herr_t ok = H5Oget_info_by_name2(r->file, table, &info, H5O_INFO_BASIC, H5P_DEFAULT);
#else
    herr_t ok = H5Oget_info_by_name(r->file, table, &info, H5P_DEFAULT);
#endif
    if (ok < 0) {
        rc = io_fail(r, err, "cannot open table '%s'", table);
        goto fail;
    }
    if (info.type != H5O_TYPE_DATASET) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: '%s' is not a table", r->path, table);
        goto fail;
    }
    if ((dset = H5Dopen2(r->file, table, H5P_DEFAULT)) < 0 || (ftype = H5Dget_type(dset)) < 0 ||
        (space = H5Dget_space(dset)) < 0) {
        rc = io_fail(r, err, "cannot open table '%s'", table);
        goto fail;
    }
    hsize_t dims[1] = {0};
    if (H5Tget_class(ftype) != H5T_COMPOUND || H5Sget_simple_extent_type(space) != H5S_SIMPLE ||
        H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, dims, NULL) != 1) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: '%s' is not a table (a 1-D compound dataset)",
                          r->path, table);
        goto fail;
    }
    if (dims[0] > max_rows(r, H5Tget_size(ftype))) { /* as at open: no allocation beyond the file's size */
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s: %llu rows cannot be stored in a file of %llu bytes",
                          r->path, table, (unsigned long long)dims[0], (unsigned long long)r->bytes);
        goto fail;
    }
    int idx = H5Tget_member_index(ftype, column);
    if (idx < 0) {
        char names[512];
        member_list(ftype, names, sizeof names);
        rc = wk_error_set(err, WK_E_NOTFOUND, NULL, 0, 0, "%s: table '%s' has no column '%s' (columns: %s)",
                          r->path, table, column, names);
        goto fail;
    }
    member = H5Tget_member_type(ftype, (unsigned)idx);
    if (member < 0) {
        rc = io_fail(r, err, "cannot read column '%s' of table '%s'", column, table);
        goto fail;
    }
    *dset_out = dset;
    *ftype_out = ftype;
    *space_out = space;
    *member_out = member;
    return 0;
fail:
    close_column(dset, ftype, space, member);
    return rc;
}

/* The rows of a column's table (its dataspace `space`) and a buffer of
 * `elem` bytes per row: 0 with *buf NULL and *rows 0 for an empty table;
 * WK_E_IO or out of memory with err filled. */
static int column_buffer(WkTraceRead *r, hid_t space, const char *table, size_t elem, void **buf, size_t *rows,
                         WkError *err)
{
    *buf = NULL;
    *rows = 0;
    hssize_t np = H5Sget_simple_extent_npoints(space);
    if (np < 0)
        return io_fail(r, err, "cannot read table '%s'", table);
    if (np == 0)
        return 0;
    if (!(*buf = malloc((size_t)np * elem)))
        return wk_error_nomem(err, "trace");
    *rows = (size_t)np;
    return 0;
}

/* Read member `column` of every row of dset, converted to the native type t
 * of `size` bytes, into vals. Returns HDF5's status (< 0: failed). */
static herr_t read_member(hid_t dset, const char *column, hid_t t, size_t size, void *vals)
{
    hid_t m = H5Tcreate(H5T_COMPOUND, size);
    herr_t st = -1;
    if (m >= 0 && H5Tinsert(m, column, 0, t) >= 0)
        st = H5Dread(dset, m, H5S_ALL, H5S_ALL, H5P_DEFAULT, vals);
    if (m >= 0)
        H5Tclose(m);
    return st;
}

int wk_trace_read_column(WkTraceRead *r, const char *table, const char *column, double **out,
                         size_t *n, WkError *err)
{
    if (!r || !table || !column || !out || !n)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: column read without a trace or names");
    *out = NULL;
    *n = 0;
    Quiet q = quiet_begin();
    hid_t dset = H5I_INVALID_HID, ftype = H5I_INVALID_HID, member = H5I_INVALID_HID;
    hid_t space = H5I_INVALID_HID;
    double *vals = NULL;
    int rc = 0;
    if ((rc = find_column(r, table, column, &dset, &ftype, &space, &member, err)) < 0)
        goto done;
    H5T_class_t cls = member >= 0 ? H5Tget_class(member) : H5T_NO_CLASS;
    if (cls != H5T_INTEGER && cls != H5T_FLOAT && cls != H5T_ENUM) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: table '%s': column '%s' is not numeric", r->path,
                          table, column);
        goto done;
    }
    size_t rows = 0;
    if ((rc = column_buffer(r, space, table, sizeof *vals, (void **)&vals, &rows, err)) < 0 || rows == 0)
        goto done;
    if (cls == H5T_ENUM)
        rc = read_enum_column(r, dset, table, column, member, vals, rows, err);
    else if (read_member(dset, column, H5T_NATIVE_DOUBLE, sizeof *vals, vals) < 0)
        rc = io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
    if (rc == 0) {
        *out = vals;
        *n = rows;
        vals = NULL;
    }
done:
    free(vals);
    close_column(dset, ftype, space, member);
    quiet_end(q);
    return rc;
}

int wk_trace_read_column_str(WkTraceRead *r, const char *table, const char *column, char ***out, size_t *n,
                             WkError *err)
{
    if (!r || !table || !column || !out || !n)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: column read without a trace or names");
    *out = NULL;
    *n = 0;
    Quiet q = quiet_begin();
    hid_t dset = H5I_INVALID_HID, ftype = H5I_INVALID_HID, member = H5I_INVALID_HID;
    hid_t space = H5I_INVALID_HID, mtype = H5I_INVALID_HID, stype = H5I_INVALID_HID;
    char *raw = NULL, **strs = NULL;
    int rc = 0;
    if ((rc = find_column(r, table, column, &dset, &ftype, &space, &member, err)) < 0)
        goto done;
    if (member < 0 || H5Tget_class(member) != H5T_STRING || H5Tis_variable_str(member) > 0) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                          "%s: table '%s': column '%s' is not a fixed-length string", r->path, table, column);
        goto done;
    }
    hssize_t np = H5Sget_simple_extent_npoints(space);
    size_t width = H5Tget_size(member) + 1; /* room for a terminating NUL */
    if (np < 0 || width < 2) {
        rc = io_fail(r, err, "cannot read table '%s'", table);
        goto done;
    }
    if (np == 0)
        goto done;
    size_t rows = (size_t)np;
    if (!(raw = calloc(rows, width)) || !(strs = malloc(rows * sizeof *strs + rows * width))) {
        rc = wk_error_nomem(err, "trace");
        goto done;
    }
    if ((stype = H5Tcopy(H5T_C_S1)) < 0 || H5Tset_size(stype, width) < 0 ||
        H5Tset_strpad(stype, H5T_STR_NULLTERM) < 0 || H5Tset_cset(stype, H5Tget_cset(member)) < 0 ||
        (mtype = H5Tcreate(H5T_COMPOUND, width)) < 0 || H5Tinsert(mtype, column, 0, stype) < 0 ||
        H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) < 0) {
        rc = io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
        goto done;
    }
    char *text = (char *)(strs + rows);
    for (size_t i = 0; i < rows; i++) {
        memcpy(text + i * width, raw + i * width, width);
        text[i * width + width - 1] = '\0';
        strs[i] = text + i * width;
    }
    *out = strs;
    *n = rows;
    strs = NULL;
done:
    free(raw);
    free(strs);
    if (stype >= 0)
        H5Tclose(stype);
    if (mtype >= 0)
        H5Tclose(mtype);
    close_column(dset, ftype, space, member);
    quiet_end(q);
    return rc;
}

int wk_trace_read_column_i64(WkTraceRead *r, const char *table, const char *column, int64_t **out, size_t *n,
                             WkError *err)
{
    if (!r || !table || !column || !out || !n)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: column read without a trace or names");
    *out = NULL;
    *n = 0;
    Quiet q = quiet_begin();
    hid_t dset = H5I_INVALID_HID, ftype = H5I_INVALID_HID, member = H5I_INVALID_HID;
    hid_t space = H5I_INVALID_HID;
    int64_t *vals = NULL;
    int rc = 0;
    if ((rc = find_column(r, table, column, &dset, &ftype, &space, &member, err)) < 0)
        goto done;
    if (member < 0 || H5Tget_class(member) != H5T_INTEGER) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: table '%s': column '%s' is not an integer column",
                          r->path, table, column);
        goto done;
    }
    size_t rows = 0;
    if ((rc = column_buffer(r, space, table, sizeof *vals, (void **)&vals, &rows, err)) < 0 || rows == 0)
        goto done;
    if (read_member(dset, column, H5T_NATIVE_INT64, sizeof *vals, vals) < 0) {
        rc = io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
        goto done;
    }
    *out = vals;
    *n = rows;
    vals = NULL;
done:
    free(vals);
    close_column(dset, ftype, space, member);
    quiet_end(q);
    return rc;
}
