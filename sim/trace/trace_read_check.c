/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read_check.c — the HDF5 trace reader's check at open: the schema
 * version, then the whole file against the schema (root attributes, groups,
 * tables and their column types, the summary metrics, read here once).
 * Builds on trace_read_attr.c; trace_read.c calls it. */
#include "sim/trace/trace_read_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the schema version --------------------------------------------------------- */

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
    int rc = wk_trace_read_root_str(r, WK_SCHEMA_ATTR_SCHEMA_VERSION, &v, &sub);
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

/* Check the attribute attr (`name` of `object`, "" for the root) against t:
 * one value of the right class. */
static int check_attr(WkTraceRead *r, hid_t attr, const char *object, const char *name, WkSchemaType t,
                      WkError *err)
{
    hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
    int rc = 0;
    if (type < 0 || space < 0) {
        rc = wk_trace_read_io_fail(r, err, "%s%s%s: cannot read the attribute", object, object[0] ? "/" : "", name);
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
    else if (t == WK_SCHEMA_T_STR && H5Tis_variable_str(type) > 0 && !wk_trace_read_vlen_trusted()) {
        rc = wk_trace_read_vlen_refused(r, object, name, err);
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
        w->rc = wk_trace_read_io_fail(w->r, w->err, "%s/%s: cannot open the attribute", w->group, name);
        return -1;
    }
    double v = NAN;
    if ((w->rc = check_attr(w->r, attr, w->group, name, WK_SCHEMA_T_NUM, w->err)) == 0 &&
        H5Aread(attr, H5T_NATIVE_DOUBLE, &v) < 0)
        w->rc = wk_trace_read_io_fail(w->r, w->err, "%s/%s: cannot read the attribute", w->group, name);
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
        return wk_trace_read_io_fail(r, err, "%s: cannot open the group", group);
    int hc = wk_trace_read_attr_names_check(r, g, group, err); /* before HDF5 decodes an attribute */
    if (hc < 0) {
        H5Oclose(g);
        return hc;
    }
    MetricWalk w = {.r = r, .err = err, .group = group};
    hsize_t idx = 0;
    if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, metric_one, &w) < 0 && w.rc == 0)
        w.rc = wk_trace_read_io_fail(r, err, "%s: cannot read the attributes", group);
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
    int ex = wk_trace_read_path_exists(r->file, t->path);
    if (ex < 0)
        return wk_trace_read_link_fail(r, t->path, err);
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
        rc = wk_trace_read_io_fail(r, err, "%s: cannot open the table", t->path);
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
    if (row == 0 || dims[0] > wk_trace_read_max_rows(r, row)) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                          "%s: %s: %llu rows of %zu bytes cannot be stored in a file of %llu bytes (at most %llu)",
                          r->path, t->path, (unsigned long long)dims[0], row, (unsigned long long)r->bytes,
                          (unsigned long long)wk_trace_read_max_rows(r, row));
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
        rc = wk_trace_read_io_fail(r, err, "%s: cannot read the columns", t->path);
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
    int ex = wk_trace_read_path_exists(r->file, path);
    *present = ex > 0;
    if (ex < 0)
        return wk_trace_read_link_fail(r, path, err);
    if (ex > 0 && object_type(r->file, path) != H5O_TYPE_GROUP)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s: not a group", r->path, path);
    return 0;
}

/* The whole check: which schema (root attribute format), the root
 * attributes' types, the groups, the tables, the metric group's attributes. */
static int check_file(WkTraceRead *r, WkError *err)
{
    r->schema = &wk_schema_trace;
    int hc = wk_trace_read_attr_names_check(r, r->file, "/", err); /* before HDF5 decodes an attribute */
    if (hc < 0)
        return hc;
    htri_t ex = H5Aexists_by_name(r->file, "/", WK_SCHEMA_ATTR_FORMAT, H5P_DEFAULT);
    if (ex < 0)
        return wk_trace_read_io_fail(r, err, "%s: cannot read the attribute", WK_SCHEMA_ATTR_FORMAT);
    if (ex > 0) {
        char *fmt = NULL;
        int rc = wk_trace_read_root_str(r, WK_SCHEMA_ATTR_FORMAT, &fmt, err);
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
            return wk_trace_read_io_fail(r, err, "%s: cannot read the attribute", name);
        if (ex == 0)
            continue;
        hid_t attr = H5Aopen_by_name(r->file, "/", name, H5P_DEFAULT, H5P_DEFAULT);
        if (attr < 0)
            return wk_trace_read_io_fail(r, err, "%s: cannot open the attribute", name);
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


int wk_trace_read_check(WkTraceRead *r, WkError *err)
{
    int rc = check_schema(r, err);
    if (rc == 0)
        rc = check_file(r, err);
    if (rc == 0)
        rc = wk_trace_read_check_placement(r, err);
    return rc;
}
