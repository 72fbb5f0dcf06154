/* SPDX-License-Identifier: Apache-2.0 */
/* trace.h — writing a run's HDF5 trace (trace.c, trace_attr.c and
 * trace_table.c are the one writer that includes <hdf5.h>). Tables are
 * compound datasets described by field lists, chunked and
 * deflate-compressed; the file is written under a temporary name beside the
 * target and renamed only by wk_trace_close, so no half-written trace ever
 * sits under the final name. */
#ifndef WK_TRACE_H
#define WK_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"

typedef enum WkFieldType {
    WK_FT_I64 = 0, /* int64_t */
    WK_FT_I32,     /* int32_t */
    WK_FT_U32,     /* uint32_t */
    WK_FT_F64,     /* double */
    WK_FT_ENUM8,   /* uint8_t stored as an HDF5 enum with names `enum_names` */
    WK_FT_STR64,   /* char[64]: a fixed-length, NUL-padded UTF-8 string */
    WK_FT_STR256,  /* char[256], likewise */
    WK_FT_STR1024, /* char[1024], likewise */
} WkFieldType;

typedef struct WkTraceField {
    const char *name;               /* column name */
    WkFieldType type;
    size_t offset;                  /* offsetof(row struct, member) */
    const char *units;              /* "ns", "GPUs", "" ...: attribute <name>_units */
    const char *const *enum_names;  /* WK_FT_ENUM8 only: NULL-terminated, value i = names[i] */
} WkTraceField;

typedef struct WkTrace WkTrace;
typedef struct WkTraceTable WkTraceTable;

/** Create the trace that will be renamed to `path` on close. Writes to a
 * temporary file in the same directory ("<path>.tmp.<pid>"). The caller owns
 * *out and must end it with wk_trace_close or wk_trace_abort. Returns 0 or
 * WK_E_IO ("path: cannot create: reason"). */
int wk_trace_open(WkTrace **out, const char *path, WkError *err);

/** Attributes on a group (`group` NULL or "" = root; created if missing, with
 * intermediate groups). Strings are stored as variable-length UTF-8. */
int wk_trace_attr_str(WkTrace *t, const char *group, const char *name, const char *value, WkError *err);
int wk_trace_attr_i64(WkTrace *t, const char *group, const char *name, int64_t value, WkError *err);
int wk_trace_attr_f64(WkTrace *t, const char *group, const char *name, double value, WkError *err);

/** Start an extendible compound table at `path` ("jobs", "timeseries/cluster";
 * intermediate groups are created) with the given fields of rows of row_size
 * bytes; `description` becomes its "description" attribute and each field's
 * units the "<field>_units" attribute. Returns 0 and a table handle owned by
 * the trace (ended by wk_trace_table_end or by close/abort). */
int wk_trace_table_begin(WkTrace *t, const char *path, const WkTraceField *fields, size_t nfields,
                         size_t row_size, const char *description, WkTraceTable **out, WkError *err);

/** Append n rows (row_size bytes each, laid out as described) to the table. */
int wk_trace_table_append(WkTraceTable *tab, const void *rows, size_t n, WkError *err);

/** Finish a table (its handle is invalid afterwards). */
int wk_trace_table_end(WkTraceTable *tab, WkError *err);

/** begin + one append + end. */
int wk_trace_table(WkTrace *t, const char *path, const WkTraceField *fields, size_t nfields,
                   size_t row_size, const void *rows, size_t nrows, const char *description,
                   WkError *err);

/** Flush and close the file and rename it to its final path (replacing any old
 * file there only now). On any failure the temporary file is removed, the old
 * file is left intact, and WK_E_IO is returned. Frees t in all cases. */
int wk_trace_close(WkTrace *t, WkError *err);

/** Close and remove the temporary file; frees t. NULL is a no-op. */
void wk_trace_abort(WkTrace *t);

#endif
