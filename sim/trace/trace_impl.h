/* SPDX-License-Identifier: Apache-2.0 */
/* trace_impl.h — private to the HDF5 trace writer (trace.c, trace_attr.c,
 * trace_table.c): the trace and table structures and the helpers the three
 * share. Not a public interface: nothing outside sim/trace includes it. */
#ifndef WK_TRACE_IMPL_H
#define WK_TRACE_IMPL_H

#include <stdbool.h>

#include "sim/trace/h5util.h"
#include "sim/trace/trace.h"

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
    int tmp_fd;          /* the descriptor that created tmp_path exclusively, kept
                          * open: HDF5 opens that same file, never the name */
    WkTraceTable *tables; /* open tables */
    bool failed;         /* a write failed or abort: close must not publish */
    bool diverted;       /* HDF5 now writes to a sink (wk_trace_divert) */
};

/** Record WK_E_IO "<path>: <op>: <most specific HDF5 error>" and mark the
 * trace failed. Call right after the failing HDF5 call, before any other.
 * Returns WK_E_IO. */
int wk_trace_io_fail(WkTrace *t, WkError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** The error for any write to a trace after one failed: WK_E_IO "<path>:
 * <what> '<name>': an earlier write to the trace failed". */
int wk_trace_failed_earlier(const WkTrace *t, WkError *err, const char *what, const char *name);

/** A copy of path with empty components dropped ("/a//b/" -> "a/b"; NULL or
 * "" -> ""), malloc'd (caller frees). NULL when out of memory. */
char *wk_trace_normalize(const char *path);

/** Create the missing groups among the first len chars of norm (a
 * normalized path, borrowed; norm[len] is '\0' or '/', and is put back).
 * An existing component that is not a group is the caller's mistake:
 * WK_E_INVAL; HDF5 failures are WK_E_IO. Returns 0 or the error. */
int wk_trace_make_groups(WkTrace *t, char *norm, size_t len, WkError *err);

/** (Re)write the scalar string attribute `name` of obj (objpath names obj
 * in messages) as a fixed-length UTF-8 string. Returns 0 or WK_E_IO. */
int wk_trace_put_attr_str(WkTrace *t, hid_t obj, const char *objpath, const char *name,
                          const char *value, WkError *err);

/** Point HDF5's file descriptor at a sink before closing a trace that
 * failed or is aborted: closing then has nothing that can fail. Once per
 * trace; later calls do nothing. */
void wk_trace_divert(WkTrace *t);

/** Write out tab's rows (unless the trace failed), close and free it, and
 * unlink it from its trace (trace_table.c; trace.c calls it at close and
 * abort). Returns 0 or the first error. */
int wk_trace_table_finish(WkTraceTable *tab, WkError *err);

#endif
