/* SPDX-License-Identifier: Apache-2.0 */
/* trace_table.c — the HDF5 trace writer's tables: compound datasets
 * described by field lists, checked, chunked and deflate-compressed, their
 * rows buffered a chunk at a time. Builds on trace_attr.c; trace.c finishes
 * the tables still open at close. */
#include "sim/trace/trace_impl.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/schema.h"

#define CHUNK_ROWS_MAX 4096          /* rows per chunk at most */
#define CHUNK_BYTES_MAX (1u << 20)   /* bytes per (uncompressed) chunk at most */
#define DEFLATE_LEVEL 4
#define ENUM8_NAMES_MAX 256

/* ---- tables ------------------------------------------------------------------ */

static size_t field_size(const WkTraceField *f)
{
    switch (f->type) {
    case WK_FT_I64: return sizeof(int64_t);
    case WK_FT_I32: return sizeof(int32_t);
    case WK_FT_U32: return sizeof(uint32_t);
    case WK_FT_F64: return sizeof(double);
    case WK_FT_ENUM8: return sizeof(uint8_t);
    case WK_FT_STR64: return 64;
    case WK_FT_STR256: return 256;
    case WK_FT_STR1024: return 1024;
    }
    return 0;
}

/* The HDF5 type of a field: little-endian standard in the file, native in
 * memory. Enums are created (caller closes); others are predefined copies. */
static hid_t field_type(const WkTraceField *f, bool file)
{
    switch (f->type) {
    case WK_FT_I64: return H5Tcopy(file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
    case WK_FT_I32: return H5Tcopy(file ? H5T_STD_I32LE : H5T_NATIVE_INT32);
    case WK_FT_U32: return H5Tcopy(file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
    case WK_FT_F64: return H5Tcopy(file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
    case WK_FT_ENUM8: {
        hid_t et = H5Tenum_create(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
        if (et < 0)
            return et;
        for (unsigned i = 0; f->enum_names[i]; i++) {
            uint8_t v = (uint8_t)i;
            if (H5Tenum_insert(et, f->enum_names[i], &v) < 0) {
                H5Tclose(et);
                return H5I_INVALID_HID;
            }
        }
        return et;
    }
    case WK_FT_STR64:
    case WK_FT_STR256:
    case WK_FT_STR1024: {
        hid_t st = H5Tcopy(H5T_C_S1);
        if (st >= 0 && (H5Tset_size(st, field_size(f)) < 0 || H5Tset_strpad(st, H5T_STR_NULLPAD) < 0 ||
                        H5Tset_cset(st, H5T_CSET_UTF8) < 0)) {
            H5Tclose(st);
            return H5I_INVALID_HID;
        }
        return st;
    }
    }
    return H5I_INVALID_HID;
}

/* The compound type of a row: packed in file order (file) or at the caller's
 * offsets within row_size bytes (memory). */
static hid_t row_type(const WkTraceField *fields, size_t nfields, size_t row_size, bool file)
{
    size_t size = 0;
    if (file) {
        for (size_t i = 0; i < nfields; i++)
            size += field_size(&fields[i]);
    } else {
        size = row_size;
    }
    hid_t ct = H5Tcreate(H5T_COMPOUND, size);
    if (ct < 0)
        return ct;
    size_t off = 0;
    for (size_t i = 0; i < nfields; i++) {
        hid_t mt = field_type(&fields[i], file);
        herr_t ok = mt < 0 ? -1 : H5Tinsert(ct, fields[i].name, file ? off : fields[i].offset, mt);
        if (mt >= 0)
            H5Tclose(mt);
        if (ok < 0) {
            H5Tclose(ct);
            return H5I_INVALID_HID;
        }
        off += field_size(&fields[i]);
    }
    return ct;
}

static bool overlaps(size_t a, size_t alen, size_t b, size_t blen)
{
    return a < b + blen && b < a + alen;
}

/* Record WK_E_INVAL "<path>: table '<table>': <what>". */
static int bad_table(const WkTrace *t, WkError *err, const char *table, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int bad_table(const WkTrace *t, WkError *err, const char *table, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: table '%s': %s", t->path, table, what);
}

/* Check the field list describes rows of row_size bytes. */
static int check_fields(const WkTrace *t, const char *table, const WkTraceField *fields,
                        size_t nfields, size_t row_size, WkError *err)
{
    if (!fields || nfields == 0 || row_size == 0)
        return bad_table(t, err, table, "no fields or zero row size");
    for (size_t i = 0; i < nfields; i++) {
        const WkTraceField *f = &fields[i];
        if (!f->name || !f->name[0])
            return bad_table(t, err, table, "field %zu has no name", i);
        size_t sz = field_size(f);
        if (sz == 0)
            return bad_table(t, err, table, "field '%s' has unknown type %d", f->name, (int)f->type);
        if (f->offset > row_size || sz > row_size - f->offset)
            return bad_table(t, err, table, "field '%s' (offset %zu, %zu bytes) ends past the %zu-byte row",
                             f->name, f->offset, sz, row_size);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(fields[j].name, f->name) == 0)
                return bad_table(t, err, table, "field '%s' appears twice", f->name);
            if (overlaps(fields[j].offset, field_size(&fields[j]), f->offset, sz))
                return bad_table(t, err, table, "fields '%s' and '%s' overlap", fields[j].name, f->name);
        }
        if (f->type != WK_FT_ENUM8)
            continue;
        size_t n = 0;
        for (; f->enum_names && f->enum_names[n]; n++) {
            if (n == ENUM8_NAMES_MAX || !f->enum_names[n][0])
                break;
            for (size_t k = 0; k < n; k++)
                if (strcmp(f->enum_names[k], f->enum_names[n]) == 0)
                    return bad_table(t, err, table, "enum field '%s' repeats the name '%s'", f->name,
                                     f->enum_names[n]);
        }
        if (n == 0 || f->enum_names[n]) /* no names, too many, or an empty one */
            return bad_table(t, err, table, "enum field '%s' needs 1 to %d non-empty names", f->name,
                             ENUM8_NAMES_MAX);
    }
    return 0;
}

/* Write the buffered rows at the end of the dataset. */
static int table_flush(WkTraceTable *tab, WkError *err)
{
    if (tab->nbuf == 0)
        return 0;
    WkTrace *t = tab->trace;
    hsize_t start = tab->nrows, count = tab->nbuf, size = start + count;
    hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
    int rc = 0;
    if (H5Dset_extent(tab->dset, &size) < 0) {
        rc = wk_trace_io_fail(t, err, "table '%s': cannot extend", tab->path);
        goto done;
    }
    fspace = H5Dget_space(tab->dset);
    if (fspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0) {
        rc = wk_trace_io_fail(t, err, "table '%s': cannot select rows", tab->path);
        goto done;
    }
    mspace = H5Screate_simple(1, &count, NULL);
    if (mspace < 0 || H5Dwrite(tab->dset, tab->mtype, mspace, fspace, H5P_DEFAULT, tab->buf) < 0) {
        rc = wk_trace_io_fail(t, err, "table '%s': cannot write rows", tab->path);
        goto done;
    }
    tab->nrows = size;
    tab->nbuf = 0;
done:
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    return rc;
}

/* Write out tab's rows (unless the trace failed), close and free it, and
 * unlink it from its trace. */
int wk_trace_table_finish(WkTraceTable *tab, WkError *err)
{
    WkTrace *t = tab->trace;
    int rc = 0;
    if (t->failed) {
        rc = wk_trace_failed_earlier(t, err, "cannot finish table", tab->path);
    } else {
        rc = table_flush(tab, err);
        /* Flushing the chunk cache is a real write: do it where it can be checked. */
        if (rc == 0 && H5Dflush(tab->dset) < 0)
            rc = wk_trace_io_fail(t, err, "table '%s': cannot write rows", tab->path);
    }
    if (t->failed)
        wk_trace_divert(t);
    if (H5Dclose(tab->dset) < 0 && rc == 0)
        rc = wk_trace_io_fail(t, err, "table '%s': cannot close", tab->path);
    H5Tclose(tab->mtype);
    if (tab->prev)
        tab->prev->next = tab->next;
    else
        t->tables = tab->next;
    if (tab->next)
        tab->next->prev = tab->prev;
    free(tab->path);
    free(tab->buf);
    free(tab);
    return rc;
}

/* Create the dataset of a new table at norm (its leaf name starts at
 * norm + leaf), creating missing parent groups. */
static int create_dataset(WkTrace *t, char *norm, size_t leaf, hid_t ftype, size_t chunk_rows,
                          hid_t *out, WkError *err)
{
    hid_t parent = H5I_INVALID_HID, space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    *out = H5I_INVALID_HID;
    int rc = wk_trace_make_groups(t, norm, leaf ? leaf - 1 : 0, err);
    if (rc < 0)
        return rc;
    if (leaf) {
        norm[leaf - 1] = '\0';
        parent = H5Gopen2(t->file, norm, H5P_DEFAULT);
        norm[leaf - 1] = '/';
    } else {
        parent = H5Gopen2(t->file, "/", H5P_DEFAULT);
    }
    htri_t ex = parent < 0 ? -1 : H5Lexists(parent, norm + leaf, H5P_DEFAULT);
    if (ex > 0) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                          "%s: cannot create table '%s': it already exists", t->path, norm);
        goto done;
    }
    /* Extendible, chunked; shuffle then deflate, each where this HDF5 has it. */
    hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = chunk_rows;
    unsigned cfg = 0;
    if (ex < 0 || (space = H5Screate_simple(1, &dims, &maxdims)) < 0 ||
        (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
        H5Pset_obj_track_times(dcpl, 0) < 0 ||
        (H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0 && H5Pset_shuffle(dcpl) < 0) ||
        (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zget_filter_info(H5Z_FILTER_DEFLATE, &cfg) >= 0 &&
         (cfg & H5Z_FILTER_CONFIG_ENCODE_ENABLED) && H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0) ||
        (*out = H5Dcreate2(parent, norm + leaf, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
        rc = wk_trace_io_fail(t, err, "cannot create table '%s'", norm);
done:
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (parent >= 0)
        H5Gclose(parent);
    return rc;
}

/* The description and "<field>_units" attributes of a new table. */
static int table_attrs(WkTrace *t, hid_t dset, const char *norm, const WkTraceField *fields,
                       size_t nfields, const char *description, WkError *err)
{
    int rc = 0;
    if (description)
        rc = wk_trace_put_attr_str(t, dset, norm, WK_SCHEMA_ATTR_DESCRIPTION, description, err);
    for (size_t i = 0; rc == 0 && i < nfields; i++) {
        if (!fields[i].units || !fields[i].units[0])
            continue;
        size_t n = strlen(fields[i].name) + sizeof WK_SCHEMA_UNITS_SUFFIX;
        char *name = malloc(n);
        if (!name)
            return wk_error_nomem(err, "trace");
        snprintf(name, n, "%s%s", fields[i].name, WK_SCHEMA_UNITS_SUFFIX);
        rc = wk_trace_put_attr_str(t, dset, norm, name, fields[i].units, err);
        free(name);
    }
    return rc;
}

int wk_trace_table_begin(WkTrace *t, const char *path, const WkTraceField *fields, size_t nfields,
                         size_t row_size, const char *description, WkTraceTable **out, WkError *err)
{
    if (out)
        *out = NULL;
    if (!t || !out)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: table without a trace or a handle");
    char *norm = wk_trace_normalize(path);
    if (!norm)
        return wk_error_nomem(err, "trace");
    if (!norm[0]) {
        free(norm);
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: table without a name", t->path);
    }
    int rc = check_fields(t, norm, fields, nfields, row_size, err);
    if (rc < 0) {
        free(norm);
        return rc;
    }
    if (t->failed) {
        rc = wk_trace_failed_earlier(t, err, "cannot create table", norm);
        free(norm);
        return rc;
    }
    /* Sized on the caller's row (>= the packed file row): both a chunk and
     * the row buffer stay within CHUNK_BYTES_MAX. */
    size_t chunk_rows = CHUNK_BYTES_MAX / row_size;
    if (chunk_rows > CHUNK_ROWS_MAX)
        chunk_rows = CHUNK_ROWS_MAX;
    if (chunk_rows == 0)
        chunk_rows = 1;

    WkTraceTable *tab = calloc(1, sizeof *tab);
    unsigned char *buf = tab ? malloc(chunk_rows * row_size) : NULL;
    if (!buf) {
        free(tab);
        free(norm);
        return wk_error_nomem(err, "trace");
    }
    tab->trace = t;
    tab->path = norm;
    tab->row_size = row_size;
    tab->chunk_rows = chunk_rows;
    tab->buf = buf;
    tab->dset = H5I_INVALID_HID;
    tab->mtype = H5I_INVALID_HID;

    Quiet q = quiet_begin();
    hid_t ftype = row_type(fields, nfields, row_size, true);
    tab->mtype = row_type(fields, nfields, row_size, false);
    if (ftype < 0 || tab->mtype < 0) {
        rc = wk_trace_io_fail(t, err, "cannot create table '%s': cannot build its row type", norm);
        goto fail;
    }
    const char *slash = strrchr(norm, '/');
    size_t leaf = slash ? (size_t)(slash - norm) + 1 : 0;
    rc = create_dataset(t, norm, leaf, ftype, chunk_rows, &tab->dset, err);
    if (rc < 0)
        goto fail;
    rc = table_attrs(t, tab->dset, norm, fields, nfields, description, err);
    if (rc < 0)
        goto fail;
    H5Tclose(ftype);
    quiet_end(q);
    tab->next = t->tables;
    if (t->tables)
        t->tables->prev = tab;
    t->tables = tab;
    *out = tab;
    return 0;
fail:
    if (t->failed)
        wk_trace_divert(t);
    if (tab->dset >= 0)
        H5Dclose(tab->dset);
    if (tab->mtype >= 0)
        H5Tclose(tab->mtype);
    if (ftype >= 0)
        H5Tclose(ftype);
    quiet_end(q);
    free(tab->buf);
    free(tab->path);
    free(tab);
    return rc;
}

int wk_trace_table_append(WkTraceTable *tab, const void *rows, size_t n, WkError *err)
{
    if (!tab)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: append without a table");
    if (n == 0)
        return 0;
    WkTrace *t = tab->trace;
    if (!rows)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: table '%s': append of %zu rows from NULL",
                            t->path, tab->path, n);
    if (t->failed)
        return wk_trace_failed_earlier(t, err, "cannot append to table", tab->path);
    /* Rows go to the buffer; HDF5 sees only whole chunks (and the last one). */
    const unsigned char *src = rows;
    while (n > 0) {
        size_t k = tab->chunk_rows - tab->nbuf;
        if (k > n)
            k = n;
        memcpy(tab->buf + tab->nbuf * tab->row_size, src, k * tab->row_size);
        tab->nbuf += k;
        src += k * tab->row_size;
        n -= k;
        if (tab->nbuf == tab->chunk_rows) {
            Quiet q = quiet_begin();
            int rc = table_flush(tab, err);
            quiet_end(q);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int wk_trace_table_end(WkTraceTable *tab, WkError *err)
{
    if (!tab)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: end without a table");
    Quiet q = quiet_begin();
    int rc = wk_trace_table_finish(tab, err);
    quiet_end(q);
    return rc;
}

int wk_trace_table(WkTrace *t, const char *path, const WkTraceField *fields, size_t nfields,
                   size_t row_size, const void *rows, size_t nrows, const char *description,
                   WkError *err)
{
    WkTraceTable *tab;
    int rc = wk_trace_table_begin(t, path, fields, nfields, row_size, description, &tab, err);
    if (rc < 0)
        return rc;
    rc = wk_trace_table_append(tab, rows, nrows, err);
    int end = wk_trace_table_end(tab, err);
    return rc < 0 ? rc : end;
}
