/* SPDX-License-Identifier: Apache-2.0 */
/* trace_attr.c — what the HDF5 trace writer's files share, and attributes:
 * HDF5 errors as WkError (marking the trace failed), paths and groups,
 * attribute writes (wk_trace_attr_*), and the sink a failed trace is closed
 * into. Calls nothing in trace.c or trace_table.c, which build on it. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memfd_create */
#endif
#include "sim/trace/trace_impl.h"
#include "sim/core/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define REASON_MAX 384

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

int wk_trace_io_fail(WkTrace *t, WkError *err, const char *fmt, ...)
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
int wk_trace_failed_earlier(const WkTrace *t, WkError *err, const char *what, const char *name)
{
    return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: %s '%s': an earlier write to the trace failed",
                        t->path, what, name);
}
/* ---- paths and groups ----------------------------------------------------- */

/* A copy of path with empty components dropped ("/a//b/" -> "a/b"; NULL or
 * "" -> ""). NULL when out of memory. */
char *wk_trace_normalize(const char *path)
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
int wk_trace_make_groups(WkTrace *t, char *norm, size_t len, WkError *err)
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
            rc = wk_trace_io_fail(t, err, "cannot open group '%s'", norm);
        } else if (ex == 0) {
            g = H5Gcreate2(t->file, norm, H5P_DEFAULT, t->gcpl, H5P_DEFAULT);
            if (g < 0)
                rc = wk_trace_io_fail(t, err, "cannot create group '%s'", norm);
        } else {
            g = H5Gopen2(t->file, norm, H5P_DEFAULT);
            if (g < 0)
                rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: '%s' exists and is not a group",
                                  t->path, norm);
        }
        if (g >= 0 && H5Gclose(g) < 0)
            rc = wk_trace_io_fail(t, err, "cannot close group '%s'", norm);
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
        return *out < 0 ? wk_trace_io_fail(t, err, "cannot open '/'") : 0;
    }
    const char *slash = strrchr(norm, '/');
    int rc = wk_trace_make_groups(t, norm, slash ? (size_t)(slash - norm) : 0, err);
    if (rc < 0)
        return rc;
    htri_t ex = H5Lexists(t->file, norm, H5P_DEFAULT);
    if (ex < 0)
        return wk_trace_io_fail(t, err, "cannot open '%s'", norm);
    if (ex > 0)
        *out = H5Oopen(t->file, norm, H5P_DEFAULT);
    else
        *out = H5Gcreate2(t->file, norm, H5P_DEFAULT, t->gcpl, H5P_DEFAULT);
    if (*out < 0)
        return wk_trace_io_fail(t, err, "cannot %s '%s'", ex > 0 ? "open" : "create group", norm);
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
        rc = wk_trace_io_fail(t, err, "cannot write attribute '%s' of '%s'", name, objpath[0] ? objpath : "/");
    if (attr >= 0 && H5Aclose(attr) < 0 && rc == 0)
        rc = wk_trace_io_fail(t, err, "cannot write attribute '%s' of '%s'", name, objpath[0] ? objpath : "/");
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

int wk_trace_put_attr_str(WkTrace *t, hid_t obj, const char *objpath, const char *name,
                          const char *value, WkError *err)
{
    size_t len = strlen(value);
    char *fixed = NULL;
    if (!wk_text_utf8_valid(value, len)) { /* the type says UTF-8: invalid bytes become U+FFFD */
        if (!(fixed = malloc(3 * len + 1)))
            return wk_error_nomem(err, "trace");
        value = wk_text_utf8_fix(value, fixed, 3 * len + 1);
        len = strlen(value);
    }
    hid_t st = fixed_utf8(len);
    if (st < 0) {
        free(fixed);
        return wk_trace_io_fail(t, err, "cannot make a string type");
    }
    int rc = put_attr(t, obj, objpath, name, st, st, len ? value : "", err);
    H5Tclose(st);
    free(fixed);
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
        return wk_trace_failed_earlier(t, err, "cannot write attribute", name);
    char *norm = wk_trace_normalize(group);
    if (!norm)
        return wk_error_nomem(err, "trace");
    Quiet q = quiet_begin();
    hid_t obj;
    int rc = open_object(t, norm, &obj, err);
    if (rc == 0) {
        switch (kind) {
        case ATTR_STR:
            rc = wk_trace_put_attr_str(t, obj, norm, name, *(const char *const *)value, err);
            break;
        case ATTR_I64:
            rc = put_attr(t, obj, norm, name, H5T_STD_I64LE, H5T_NATIVE_INT64, value, err);
            break;
        case ATTR_F64:
            rc = put_attr(t, obj, norm, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, value, err);
            break;
        }
        if (H5Oclose(obj) < 0 && rc == 0)
            rc = wk_trace_io_fail(t, err, "cannot close '%s'", norm[0] ? norm : "/");
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
/* ---- the sink of a failed trace ------------------------------------------------ */

/* Point HDF5's file descriptor at a sink before closing a trace that failed
 * or is aborted: closing then has nothing that can fail. (HDF5 1.10 leaves a
 * file whose H5Fclose failed half-destroyed and crashes at exit, HDFFV-11052;
 * the data is thrown away anyway.) */
void wk_trace_divert(WkTrace *t)
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
