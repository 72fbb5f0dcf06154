/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read_column.c — the HDF5 trace reader's tables: whether an object
 * exists, and one column of a compound table as doubles, exact int64 values
 * or fixed-length strings, each table bounded by the file's size as at
 * open. Builds on trace_read_attr.c. */
#include "sim/trace/trace_read_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tables -------------------------------------------------------------------------- */

int wk_trace_read_has(WkTraceRead *r, const char *path)
{
    if (!r || !path)
        return 0;
    Quiet q = quiet_begin();
    int ex = wk_trace_read_path_exists(r->file, path);
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
        rc = wk_trace_read_io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
        goto done;
    }
    if (!(buf = malloc(n * size))) {
        rc = wk_error_nomem(err, "trace");
        goto done;
    }
    if (H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        rc = wk_trace_read_io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
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
    int ex = wk_trace_read_path_exists(r->file, table);
    if (ex < 0) {
        rc = wk_trace_read_link_fail(r, table, err);
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
        rc = wk_trace_read_io_fail(r, err, "cannot open table '%s'", table);
        goto fail;
    }
    if (info.type != H5O_TYPE_DATASET) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: '%s' is not a table", r->path, table);
        goto fail;
    }
    if ((dset = H5Dopen2(r->file, table, H5P_DEFAULT)) < 0 || (ftype = H5Dget_type(dset)) < 0 ||
        (space = H5Dget_space(dset)) < 0) {
        rc = wk_trace_read_io_fail(r, err, "cannot open table '%s'", table);
        goto fail;
    }
    hsize_t dims[1] = {0};
    if (H5Tget_class(ftype) != H5T_COMPOUND || H5Sget_simple_extent_type(space) != H5S_SIMPLE ||
        H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, dims, NULL) != 1) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: '%s' is not a table (a 1-D compound dataset)",
                          r->path, table);
        goto fail;
    }
    /* as at open: no allocation beyond the file's size */
    if (dims[0] > wk_trace_read_max_rows(r, H5Tget_size(ftype))) {
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
        rc = wk_trace_read_io_fail(r, err, "cannot read column '%s' of table '%s'", column, table);
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
        return wk_trace_read_io_fail(r, err, "cannot read table '%s'", table);
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
        rc = wk_trace_read_io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
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
        rc = wk_trace_read_io_fail(r, err, "cannot read table '%s'", table);
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
        rc = wk_trace_read_io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
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
        rc = wk_trace_read_io_fail(r, err, "table '%s': cannot read column '%s'", table, column);
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
