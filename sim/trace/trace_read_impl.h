/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read_impl.h — private to the HDF5 trace reader (trace_read.c,
 * trace_read_attr.c, trace_read_check.c, trace_read_column.c): the reader's
 * structure and the helpers the files share. Not a public interface:
 * nothing outside sim/trace includes it. */
#ifndef WK_TRACE_READ_IMPL_H
#define WK_TRACE_READ_IMPL_H

#include "sim/trace/h5util.h"
#include "sim/trace/trace_read.h"

struct WkTraceRead {
    hid_t file;
    char *path;
    int major, minor;           /* schema_version */
    uint64_t bytes;             /* the file's size on disk at open */
    const WkSchemaFile *schema; /* the trace's or the sweep index's (root attribute format) */
    WkTraceMetric *metrics;     /* the summary group's attributes, read at open, sorted by name */
    size_t nmetrics;
};

/** Record WK_E_IO "<path>: <op>: <HDF5 reason>" (r borrowed). Call right
 * after the failing call. Returns WK_E_IO. */
int wk_trace_read_io_fail(const WkTraceRead *r, WkError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** 1 when every component of path exists as a hard link, 0 when one is
 * missing, -1 when one is a soft or external link (never followed) or
 * cannot be read. */
int wk_trace_read_path_exists(hid_t file, const char *path);

/** Record WK_E_INVAL "<path>: <object>: a soft or external link ...".
 * Returns WK_E_INVAL. */
int wk_trace_read_link_fail(const WkTraceRead *r, const char *object, WkError *err);

/** The most rows a table of rows of row_size bytes may have in r's file
 * (0 for row_size 0). */
uint64_t wk_trace_read_max_rows(const WkTraceRead *r, size_t row_size);

/** 1 when the environment has WANKA_TRACE_VLEN=1 (the user trusts the file
 * with variable-length strings), else 0. */
int wk_trace_read_vlen_trusted(void);

/** Record WK_E_INVAL for the variable-length string attribute `name` of
 * `object` ("" for the root) of an untrusted file. Returns WK_E_INVAL. */
int wk_trace_read_vlen_refused(const WkTraceRead *r, const char *object, const char *name, WkError *err);

/** Root string attribute `name` as wk_trace_read_attr_str gives it, for a
 * caller that has switched HDF5's error printing off already: 0 and a
 * malloc'd *out (caller frees), WK_E_NOTFOUND or another error. */
int wk_trace_read_root_str(WkTraceRead *r, const char *name, char **out, WkError *err);

/** The check at open (trace_read_check.c): the root schema_version, then
 * the whole file against its schema; fills r's schema, version and
 * metrics. Returns 0 or the error that wk_trace_read_open reports. */
int wk_trace_read_check(WkTraceRead *r, WkError *err);

/** The placement and nodes tables' values (trace_read_place.c), when the
 * trace has a placement table: node and GPU ranges inside the nodes table,
 * spans and job ids in range. Returns 0 or WK_E_INVAL naming the table,
 * column and row. */
int wk_trace_read_check_placement(WkTraceRead *r, WkError *err);

/** Check, in the bytes of r's file, the attribute messages of the object
 * header of obj (an open object of r->file) before the HDF5 library decodes
 * any (trace_read_ohdr.c): every attribute's name NUL-terminated within its
 * stored length (HDF5 1.10.8 reads past the header's buffer otherwise), no
 * attribute stored as a shared message, every chunk inside the file.
 * Attributes in dense storage are not checked. 0, or WK_E_INVAL
 * "<path>: <what>: <why> (a corrupt or crafted file)" (WK_E_IO when HDF5
 * cannot say where the header is). */
int wk_trace_read_attr_names_check(WkTraceRead *r, hid_t obj, const char *what, WkError *err);

#endif
