/* SPDX-License-Identifier: Apache-2.0 */
/* trace.c — the HDF5 trace writer (with trace_read.c, the only file including
 * <hdf5.h>, through h5util.h): compound tables buffered a chunk at a time,
 * written to "<path>.tmp.<pid>" and renamed by close. HDF5's automatic error
 * printing is off around every call. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memfd_create */
#endif
#include "sim/trace/trace.h"
#include "sim/trace/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "sim/trace/h5util.h"

#define CHUNK_ROWS_MAX 4096          /* rows per chunk at most */
#define CHUNK_BYTES_MAX (1u << 20)   /* bytes per (uncompressed) chunk at most */
#define DEFLATE_LEVEL 4
#define ENUM8_NAMES_MAX 256
#define REASON_MAX 384

struct WkTraceTable {
    WkTrace *trace;
    WkTraceTable *prev, *next; /* the trace's list of open tables */
    char *path;                /* normalized dataset path in the file */
    hid_t dset;
    hid_t mtype;               /* compound memory type of row_size bytes */
    size_t row_size;           /* bytes per caller row */
    hsize_t nrows;             /* rows already written to the dataset */
    unsigned char *buf;        /* up to chunk_rows rows not yet written */
    size_t chunk_rows;         /* rows per dataset chunk = buffer capacity */
    size_t nbuf;               /* rows in buf */
};

struct WkTrace {
    hid_t file;
    hid_t gcpl;          /* group creation properties (no timestamps) */
    char *path;          /* final path */
    char *tmp_path;      /* "<path>.tmp.<pid>", where the file is written */
    WkTraceTable *tables; /* open tables */
    bool failed;         /* a write failed or abort: close must not publish */
    bool diverted;       /* HDF5 now writes to a sink (divert_to_sink) */
};

/* ---- HDF5 error handling ------------------------------------------------ */

typedef struct Reason {
    char text[REASON_MAX];
} Reason;

/* The reason from the most specific HDF5 error (the walk starts there): its
 * description up to the first ':' ',' or newline, plus the system's message
 * when it carries one, e.g. "file write failed (No space left on device)". */
static herr_t reason_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    static const char sys_tag[] = "error message = '";
    Reason *r = data;
    (void)n;
    if (r->text[0] || !e)
        return 0;
    if (!e->desc || !e->desc[0]) {
        if (H5Eget_msg(e->min_num, NULL, r->text, sizeof r->text) < 0)
            r->text[0] = '\0';
        return 0;
    }
    int len = (int)strcspn(e->desc, ":,\n");
    const char *sys = strstr(e->desc, sys_tag);
    if (sys) {
        sys += sizeof sys_tag - 1;
        snprintf(r->text, sizeof r->text, "%.*s (%.*s)", len, e->desc, (int)strcspn(sys, "'"), sys);
    } else {
        snprintf(r->text, sizeof r->text, "%.*s", len, e->desc);
    }
    return 0;
}

/* Record WK_E_IO "<path>: <op>: <most specific HDF5 error>" and mark the
 * trace failed. Call right after the failing HDF5 call, before any other. */
static int io_fail(WkTrace *t, WkError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int io_fail(WkTrace *t, WkError *err, const char *fmt, ...)
{
    Reason r = {{0}};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, reason_walk, &r);
    if (r.text[0] == '\0')
        snprintf(r.text, sizeof r.text, "HDF5 error");
    char op[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(op, sizeof op, fmt, ap);
    va_end(ap);
    t->failed = true;
    return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: %s: %s", t->path, op, r.text);
}

/* The error for any write to a trace after one failed. */
static int failed_earlier(const WkTrace *t, WkError *err, const char *what, const char *name)
{
    return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: %s '%s': an earlier write to the trace failed",
                        t->path, what, name);
}

/* ---- paths and groups ----------------------------------------------------- */

/* A copy of path with empty components dropped ("/a//b/" -> "a/b"; NULL or
 * "" -> ""). NULL when out of memory. */
static char *normalize(const char *path)
{
    size_t len = path ? strlen(path) : 0;
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    size_t j = 0;
    for (size_t i = 0; i < len; i++) {
        if (path[i] == '/' && (j == 0 || s[j - 1] == '/'))
            continue;
        s[j++] = path[i];
    }
    if (j > 0 && s[j - 1] == '/')
        j--;
    s[j] = '\0';
    return s;
}

/* Create the missing groups among the first len chars of norm (a normalized
 * path; norm[len] is '\0' or '/'). An existing component that is not a
 * group is the caller's mistake: WK_E_INVAL. */
static int make_groups(WkTrace *t, char *norm, size_t len, WkError *err)
{
    for (size_t i = 1; i <= len; i++) {
        if (i < len && norm[i] != '/')
            continue;
        char saved = norm[i];
        norm[i] = '\0';
        int rc = 0;
        hid_t g = H5I_INVALID_HID;
        htri_t ex = H5Lexists(t->file, norm, H5P_DEFAULT);
        if (ex < 0) {
            rc = io_fail(t, err, "cannot open group '%s'", norm);
        } else if (ex == 0) {
            g = H5Gcreate2(t->file, norm, H5P_DEFAULT, t->gcpl, H5P_DEFAULT);
            if (g < 0)
                rc = io_fail(t, err, "cannot create group '%s'", norm);
        } else {
            g = H5Gopen2(t->file, norm, H5P_DEFAULT);
            if (g < 0)
                rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: '%s' exists and is not a group",
                                  t->path, norm);
        }
        if (g >= 0 && H5Gclose(g) < 0)
            rc = io_fail(t, err, "cannot close group '%s'", norm);
        norm[i] = saved;
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Open the object named by norm ("" = root) for its attributes: an existing
 * group or table, or a new group (missing parents are created too). */
static int open_object(WkTrace *t, char *norm, hid_t *out, WkError *err)
{
    *out = H5I_INVALID_HID;
    if (!norm[0]) {
        *out = H5Oopen(t->file, "/", H5P_DEFAULT);
        return *out < 0 ? io_fail(t, err, "cannot open '/'") : 0;
    }
    const char *slash = strrchr(norm, '/');
    int rc = make_groups(t, norm, slash ? (size_t)(slash - norm) : 0, err);
    if (rc < 0)
        return rc;
    htri_t ex = H5Lexists(t->file, norm, H5P_DEFAULT);
    if (ex < 0)
        return io_fail(t, err, "cannot open '%s'", norm);
    if (ex > 0)
        *out = H5Oopen(t->file, norm, H5P_DEFAULT);
    else
        *out = H5Gcreate2(t->file, norm, H5P_DEFAULT, t->gcpl, H5P_DEFAULT);
    if (*out < 0)
        return io_fail(t, err, "cannot %s '%s'", ex > 0 ? "open" : "create group", norm);
    return 0;
}

/* ---- attributes ------------------------------------------------------------ */

/* A fixed-length UTF-8 string type of `len` bytes, null-padded (caller
 * closes it). Strings are never written variable-length: reading one makes
 * HDF5 follow a global-heap reference taken from the file, and HDF5 1.10
 * overflows a buffer on a crafted one (docs/limits.md), so the reader
 * refuses them and the writer never makes them. HDF5 has no empty string
 * type: "" is one NUL byte. */
static hid_t fixed_utf8(size_t len)
{
    hid_t st = H5Tcopy(H5T_C_S1);
    if (st < 0)
        return st;
    if (H5Tset_size(st, len ? len : 1) < 0 || H5Tset_strpad(st, H5T_STR_NULLPAD) < 0 ||
        H5Tset_cset(st, H5T_CSET_UTF8) < 0) {
        H5Tclose(st);
        return H5I_INVALID_HID;
    }
    return st;
}

/* (Re)write the scalar attribute `name` of obj (objpath for messages). */
static int put_attr(WkTrace *t, hid_t obj, const char *objpath, const char *name, hid_t ftype,
                    hid_t mtype, const void *value, WkError *err)
{
    hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    int rc = 0;
    htri_t ex = H5Aexists(obj, name);
    if (ex < 0 || (ex > 0 && H5Adelete(obj, name) < 0) || (space = H5Screate(H5S_SCALAR)) < 0 ||
        (attr = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        H5Awrite(attr, mtype, value) < 0)
        rc = io_fail(t, err, "cannot write attribute '%s' of '%s'", name, objpath[0] ? objpath : "/");
    if (attr >= 0 && H5Aclose(attr) < 0 && rc == 0)
        rc = io_fail(t, err, "cannot write attribute '%s' of '%s'", name, objpath[0] ? objpath : "/");
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

static int put_attr_str(WkTrace *t, hid_t obj, const char *objpath, const char *name,
                        const char *value, WkError *err)
{
    size_t len = strlen(value);
    hid_t st = fixed_utf8(len);
    if (st < 0)
        return io_fail(t, err, "cannot make a string type");
    int rc = put_attr(t, obj, objpath, name, st, st, len ? value : "", err);
    H5Tclose(st);
    return rc;
}

typedef enum AttrKind { ATTR_STR, ATTR_I64, ATTR_F64 } AttrKind;

static int attr_common(WkTrace *t, const char *group, const char *name, AttrKind kind,
                       const void *value, WkError *err)
{
    if (!t || !name || !name[0])
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: attribute without a trace or a name");
    if (kind == ATTR_STR && !*(const char *const *)value)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: attribute '%s': NULL string", t->path,
                            name);
    if (t->failed)
        return failed_earlier(t, err, "cannot write attribute", name);
    char *norm = normalize(group);
    if (!norm)
        return wk_error_nomem(err, "trace");
    Quiet q = quiet_begin();
    hid_t obj;
    int rc = open_object(t, norm, &obj, err);
    if (rc == 0) {
        switch (kind) {
        case ATTR_STR:
            rc = put_attr_str(t, obj, norm, name, *(const char *const *)value, err);
            break;
        case ATTR_I64:
            rc = put_attr(t, obj, norm, name, H5T_STD_I64LE, H5T_NATIVE_INT64, value, err);
            break;
        case ATTR_F64:
            rc = put_attr(t, obj, norm, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, value, err);
            break;
        }
        if (H5Oclose(obj) < 0 && rc == 0)
            rc = io_fail(t, err, "cannot close '%s'", norm[0] ? norm : "/");
    }
    quiet_end(q);
    free(norm);
    return rc;
}

int wk_trace_attr_str(WkTrace *t, const char *group, const char *name, const char *value, WkError *err)
{
    return attr_common(t, group, name, ATTR_STR, &value, err);
}

int wk_trace_attr_i64(WkTrace *t, const char *group, const char *name, int64_t value, WkError *err)
{
    return attr_common(t, group, name, ATTR_I64, &value, err);
}

int wk_trace_attr_f64(WkTrace *t, const char *group, const char *name, double value, WkError *err)
{
    return attr_common(t, group, name, ATTR_F64, &value, err);
}

/* ---- open / close ------------------------------------------------------------ */

static void trace_free(WkTrace *t)
{
    free(t->path);
    free(t->tmp_path);
    free(t);
}

int wk_trace_open(WkTrace **out, const char *path, WkError *err)
{
    no_exit_cleanup();
    if (!out || !path || !path[0])
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: no output path");
    *out = NULL;
    WkTrace *t = calloc(1, sizeof *t);
    if (!t)
        return wk_error_nomem(err, "trace");
    t->file = H5I_INVALID_HID;
    t->gcpl = H5I_INVALID_HID;
    size_t len = strlen(path);
    size_t tmp_cap = len + 32;
    t->path = malloc(len + 1);
    t->tmp_path = malloc(tmp_cap);
    if (!t->path || !t->tmp_path) {
        trace_free(t);
        return wk_error_nomem(err, "trace");
    }
    memcpy(t->path, path, len + 1);
    snprintf(t->tmp_path, tmp_cap, "%s.tmp.%ld", path, (long)getpid());

    /* Create the file ourselves first: a clean errno for the message, and
     * O_EXCL so we never clobber (or later remove) a file we did not make. */
    int fd = open(t->tmp_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
        int e = errno;
        int rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot create: %s", path, strerror(e));
        trace_free(t);
        return rc;
    }
    close(fd);

    Quiet q = quiet_begin();
    int rc = 0;
    /* sec2 (divert_to_sink relies on it), strong close, and file locking
     * where the file system supports it without failing where it doesn't. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = H5Pcreate(H5P_FILE_CREATE);
    /* The 1.8 file format: an attribute (the scenario's text) may pass the
     * 64 KiB of an object-header message and go to dense storage. Its
     * object headers would carry times: none, so equal runs give equal bytes. */
    if (fapl < 0 || fcpl < 0 || H5Pset_fapl_sec2(fapl) < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 || H5Pset_obj_track_times(fcpl, 0) < 0 ||
#if HAVE_FILE_LOCKING_PROP
        H5Pset_file_locking(fapl, 1, 1) < 0 ||
#endif
        (t->file = H5Fcreate(t->tmp_path, H5F_ACC_TRUNC, fcpl, fapl)) < 0 ||
        (t->gcpl = H5Pcreate(H5P_GROUP_CREATE)) < 0 || H5Pset_obj_track_times(t->gcpl, 0) < 0)
        rc = io_fail(t, err, "cannot create");
    if (fapl >= 0)
        H5Pclose(fapl);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (rc < 0) {
        if (t->gcpl >= 0)
            H5Pclose(t->gcpl);
        if (t->file >= 0)
            H5Fclose(t->file);
        unlink(t->tmp_path);
        trace_free(t);
    } else {
        *out = t;
    }
    quiet_end(q);
    return rc;
}

/* Point HDF5's file descriptor at a sink before closing a trace that failed
 * or is aborted: closing then has nothing that can fail. (HDF5 1.10 leaves a
 * file whose H5Fclose failed half-destroyed and crashes at exit, HDFFV-11052;
 * the data is thrown away anyway.) */
static void divert_to_sink(WkTrace *t)
{
    if (t->diverted)
        return;
    t->diverted = true;
    void *handle = NULL;
    if (H5Fget_vfd_handle(t->file, H5P_DEFAULT, &handle) < 0 || !handle)
        return;
    int fd = *(int *)handle; /* the sec2 driver's handle is its descriptor */
    int sink = -1;
#if defined(__linux__) && defined(MFD_CLOEXEC)
    sink = memfd_create("wanka-trace-discard", MFD_CLOEXEC); /* RAM: no full disk */
#endif
    FILE *fp = NULL;
    if (sink < 0 && (fp = tmpfile()))
        sink = fileno(fp);
    if (sink >= 0)
        dup2(sink, fd);
    if (fp)
        fclose(fp);
    else if (sink >= 0)
        close(sink);
}

/* Write the file to disk before the rename makes it visible. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -errno;
    int rc = 0;
    if (fsync(fd) != 0)
        rc = -errno;
    close(fd);
    return rc;
}

static int table_finish(WkTraceTable *tab, WkError *err);

int wk_trace_close(WkTrace *t, WkError *err)
{
    if (!t)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: close without a trace");
    Quiet q = quiet_begin();
    int rc = 0;
    while (t->tables) {
        int r = table_finish(t->tables, err);
        if (r < 0 && rc == 0)
            rc = r;
    }
    if (rc == 0 && t->failed)
        rc = failed_earlier(t, err, "cannot close", t->tmp_path);
    if (rc == 0 && H5Fflush(t->file, H5F_SCOPE_LOCAL) < 0)
        rc = io_fail(t, err, "cannot flush");
    if (rc == 0) {
        ssize_t nopen = H5Fget_obj_count(t->file, H5F_OBJ_DATASET | H5F_OBJ_GROUP |
                                                      H5F_OBJ_DATATYPE | H5F_OBJ_ATTR);
        if (nopen != 0)
            rc = wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                              "%s: %zd HDF5 objects still open at close", t->path, nopen);
    }
    if (rc < 0)
        divert_to_sink(t);
    H5Pclose(t->gcpl);
    if (H5Fclose(t->file) < 0 && rc == 0)
        rc = io_fail(t, err, "cannot close");
    if (rc == 0) {
        int e = sync_file(t->tmp_path);
        if (e < 0)
            rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot sync %s: %s", t->path,
                              t->tmp_path, strerror(-e));
    }
    if (rc == 0 && rename(t->tmp_path, t->path) != 0) {
        int e = errno;
        rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot rename %s to it: %s", t->path,
                          t->tmp_path, strerror(e));
    }
    if (rc < 0)
        unlink(t->tmp_path);
    quiet_end(q);
    trace_free(t);
    return rc;
}

void wk_trace_abort(WkTrace *t)
{
    if (!t)
        return;
    Quiet q = quiet_begin();
    t->failed = true; /* nothing more is written: tables are dropped, not flushed */
    divert_to_sink(t);
    while (t->tables)
        table_finish(t->tables, NULL);
    H5Pclose(t->gcpl);
    H5Fclose(t->file);
    unlink(t->tmp_path);
    quiet_end(q);
    trace_free(t);
}

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
        rc = io_fail(t, err, "table '%s': cannot extend", tab->path);
        goto done;
    }
    fspace = H5Dget_space(tab->dset);
    if (fspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0) {
        rc = io_fail(t, err, "table '%s': cannot select rows", tab->path);
        goto done;
    }
    mspace = H5Screate_simple(1, &count, NULL);
    if (mspace < 0 || H5Dwrite(tab->dset, tab->mtype, mspace, fspace, H5P_DEFAULT, tab->buf) < 0) {
        rc = io_fail(t, err, "table '%s': cannot write rows", tab->path);
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
static int table_finish(WkTraceTable *tab, WkError *err)
{
    WkTrace *t = tab->trace;
    int rc = 0;
    if (t->failed) {
        rc = failed_earlier(t, err, "cannot finish table", tab->path);
    } else {
        rc = table_flush(tab, err);
        /* Flushing the chunk cache is a real write: do it where it can be checked. */
        if (rc == 0 && H5Dflush(tab->dset) < 0)
            rc = io_fail(t, err, "table '%s': cannot write rows", tab->path);
    }
    if (t->failed)
        divert_to_sink(t);
    if (H5Dclose(tab->dset) < 0 && rc == 0)
        rc = io_fail(t, err, "table '%s': cannot close", tab->path);
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
    int rc = make_groups(t, norm, leaf ? leaf - 1 : 0, err);
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
        rc = io_fail(t, err, "cannot create table '%s'", norm);
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
        rc = put_attr_str(t, dset, norm, WK_SCHEMA_ATTR_DESCRIPTION, description, err);
    for (size_t i = 0; rc == 0 && i < nfields; i++) {
        if (!fields[i].units || !fields[i].units[0])
            continue;
        size_t n = strlen(fields[i].name) + sizeof WK_SCHEMA_UNITS_SUFFIX;
        char *name = malloc(n);
        if (!name)
            return wk_error_nomem(err, "trace");
        snprintf(name, n, "%s%s", fields[i].name, WK_SCHEMA_UNITS_SUFFIX);
        rc = put_attr_str(t, dset, norm, name, fields[i].units, err);
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
    char *norm = normalize(path);
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
        rc = failed_earlier(t, err, "cannot create table", norm);
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
        rc = io_fail(t, err, "cannot create table '%s': cannot build its row type", norm);
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
        divert_to_sink(t);
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
        return failed_earlier(t, err, "cannot append to table", tab->path);
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
    int rc = table_finish(tab, err);
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
