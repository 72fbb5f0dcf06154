/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read.h — reading a wanka HDF5 trace (the trace_read*.c files are
 * the one reader that includes <hdf5.h>): schema check, root attributes,
 * the `summary` metrics and table columns as doubles. Not a general HDF5
 * browser. */
#ifndef WK_TRACE_READ_H
#define WK_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/trace/schema.h"

/* The trace schema major version this reader understands (docs/trace-format.md). */
#define WK_TRACE_READ_MAJOR WK_SCHEMA_MAJOR

typedef struct WkTraceRead WkTraceRead;

/* One metric of the `summary` group. */
typedef struct WkTraceMetric {
    char name[64]; /* attribute name, e.g. "jct_p99_s" */
    double value;  /* NaN = missing / undefined for the run */
} WkTraceMetric;

/** Open the trace or sweep index at path (borrowed; copied) read-only,
 * check its root `schema_version` attribute ("MAJOR.MINOR") and then the
 * whole file against the schema (schema.h's wk_schema_trace, or
 * wk_schema_sweep_index when the root attribute `format` says so) before
 * anything is read: the known root attributes are single strings or
 * integers; every object on the way to a table or group is a hard link (a
 * soft or external link is refused, never followed); each table is a 1-D
 * compound dataset whose rows fit the file's size (at most 1032 times it,
 * deflate's limit) and whose known columns have exactly the schema's type
 * (integer width and sign, float64, fixed string length, enum names and
 * values), a column the schema does not know refused unless the file's minor
 * version is newer; every `summary` attribute is a single number. Returns
 * 0 and a reader the caller owns (wk_trace_read_close), or: WK_E_IO when the
 * file cannot be opened ("path: cannot open: reason"), WK_E_INVAL when it
 * is not an HDF5 file, has no or a malformed schema_version, a major
 * version other than WK_TRACE_READ_MAJOR ("path: trace schema version 2.0
 * is not supported: this wanka reads schema 1.x"), or fails a check
 * ("path: jobs/status: column enum value 9 'x' is not the schema's (...)")
 * or has a variable-length string attribute the schema lists (refused
 * unless WANKA_TRACE_VLEN=1: HDF5 1.10 can overflow a buffer reading one).
 * HDF5 prints nothing; nothing leaks on any error. */
int wk_trace_read_open(WkTraceRead **out, const char *path, WkError *err);

/** Close the file and free r. NULL is a no-op. */
void wk_trace_read_close(WkTraceRead *r);

/** The path given to open (owned by r). */
const char *wk_trace_read_path(const WkTraceRead *r);

/** The schema version found at open. */
void wk_trace_read_version(const WkTraceRead *r, int *major, int *minor);

/** Root string attribute `name` (fixed-length; variable-length only when
 * the environment has WANKA_TRACE_VLEN=1, the user's word that the file is
 * trusted) as a malloc'd, NUL-terminated string in *out (caller frees).
 * WK_E_NOTFOUND when the attribute is absent, WK_E_INVAL when it is not a
 * scalar string or is an untrusted variable-length one ("path: name:
 * attribute is a variable-length string, ..."). */
int wk_trace_read_attr_str(WkTraceRead *r, const char *name, char **out, WkError *err);

/** Like wk_trace_read_attr_str, but an absent attribute gives *out a
 * malloc'd "" and returns 0 (for attributes a trace may lack). */
int wk_trace_read_attr_str_opt(WkTraceRead *r, const char *name, char **out, WkError *err);

/** Root integer attribute `name` into *out. WK_E_NOTFOUND when absent,
 * WK_E_INVAL when it is not a scalar integer. */
int wk_trace_read_attr_i64(WkTraceRead *r, const char *name, int64_t *out, WkError *err);

/** Every attribute of the `summary` group (each a single float or integer:
 * open refused any other), in strcmp order of the names, as a malloc'd
 * array in *out (caller frees) of *n entries. A trace without a `summary`
 * group gives *out = NULL, *n = 0 and returns 0. A name longer than 63
 * bytes is cut there. */
int wk_trace_read_summary(WkTraceRead *r, WkTraceMetric **out, size_t *n, WkError *err);

/** Sort m[0..n) by name (strcmp order), as wk_trace_read_metric needs
 * them: for metric arrays built by hand (a sweep index's point). */
void wk_trace_read_metrics_sort(WkTraceMetric *m, size_t n);

/** The metric called name among m[0..n) (borrowed; sorted by name as
 * wk_trace_read_summary gives them: a binary search, O(log n)), or NULL when
 * there is none. */
const WkTraceMetric *wk_trace_read_metric(const WkTraceMetric *m, size_t n, const char *name);

/** 1 when the object at path ("jobs", "timeseries/cluster", "incidents")
 * exists in the file, 0 when not. */
int wk_trace_read_has(WkTraceRead *r, const char *path);

/** Column `column` of the compound table at `table` converted to doubles
 * (integers, floats, and enums over uint8 by their integer value; a stored
 * enum byte that names none of the enum's values is WK_E_INVAL naming the
 * row), as a malloc'd array
 * in *out (caller frees; NULL when the table has no rows) of *n values.
 * WK_E_NOTFOUND when the table or the column does not exist ("path: table
 * 'x' has no column 'y' (columns: a, b, ...)"), WK_E_INVAL when the column
 * is not numeric, WK_E_IO on a read error. */
int wk_trace_read_column(WkTraceRead *r, const char *table, const char *column, double **out,
                         size_t *n, WkError *err);

/** Column `column` of the compound table at `table`, a fixed-length string
 * column (as trace.h's WK_FT_STR*), as *n NUL-terminated strings: *out is
 * one malloc'd block holding the pointer array and the text (caller frees
 * *out alone; NULL when the table has no rows). Errors as
 * wk_trace_read_column; WK_E_INVAL when the column is not such a string. */
int wk_trace_read_column_str(WkTraceRead *r, const char *table, const char *column, char ***out, size_t *n,
                             WkError *err);

/** Column `column` of the compound table at `table`, an integer column
 * (not an enum), as exact int64 values (times in ns beyond 2^53, which
 * wk_trace_read_column would round): a malloc'd array in *out (caller frees;
 * NULL when the table has no rows) of *n values. Errors as
 * wk_trace_read_column; WK_E_INVAL when the column is not an integer. */
int wk_trace_read_column_i64(WkTraceRead *r, const char *table, const char *column, int64_t **out, size_t *n,
                             WkError *err);

#endif
