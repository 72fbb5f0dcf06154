/* SPDX-License-Identifier: Apache-2.0 */
/* export_impl.h — private to analysis/export*.c: the trace tables as the
 * exports read them (column lists with CSV names and units, loaded whole),
 * and output files written under a temporary name and renamed when done. */
#ifndef WK_EXPORT_IMPL_H
#define WK_EXPORT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/core/error.h"
#include "sim/trace/trace_read.h"

typedef enum ExKind {
    EX_INT,  /* integer column, read exactly (int64) */
    EX_F64,  /* float column; NaN = missing */
    EX_ENUM, /* enum column, value i named enums[i] */
} ExKind;

typedef struct ExColSpec {
    const char *name;          /* column in the trace (schema.h) */
    const char *csv;           /* header in CSV: the name with its unit ("submit_ns") */
    ExKind kind;
    const char *const *enums;  /* EX_ENUM: the schema's NULL-terminated names */
    int optional;              /* 1: added by a minor schema version; absent in older traces */
} ExColSpec;

typedef struct ExTableSpec {
    const char *path;          /* table in the trace ("jobs", "timeseries/cluster") */
    const char *file;          /* CSV file name ("jobs.csv") */
    const ExColSpec *cols;
    size_t ncols;
} ExTableSpec;

typedef struct ExCol {
    const ExColSpec *spec;
    int present;               /* 0: an optional column the trace lacks */
    int64_t *i;                /* EX_INT, EX_ENUM: n values (owned) */
    double *d;                 /* EX_F64: n values (owned) */
} ExCol;

typedef struct ExTable {
    const ExTableSpec *spec;
    int present;               /* 0: the trace has no such table */
    size_t n;                  /* rows */
    ExCol *cols;               /* spec->ncols (owned) */
} ExTable;

extern const ExTableSpec wk_ex_jobs, wk_ex_incidents, wk_ex_timeseries;
extern const ExTableSpec wk_ex_placement, wk_ex_nodes; /* schema 1.6, single-site runs */

/** Load every column of spec's table from r into *t (zeroed first; release
 * with wk_ex_table_free). A table the trace lacks gives present = 0 and
 * returns 0 when `optional`, else WK_E_NOTFOUND naming the trace. Errors:
 * the reader's, WK_E_INVAL for columns of unequal length or an enum value
 * the schema does not name ("trace: jobs.status value 9 is not one of
 * completed, ..."). */
int wk_ex_table_load(WkTraceRead *r, const ExTableSpec *spec, int optional, ExTable *t, WkError *err);

/** Release what wk_ex_table_load allocated. */
void wk_ex_table_free(ExTable *t);

/** The column called name of t, or NULL when the spec has none or the
 * trace lacks it. */
const ExCol *wk_ex_col(const ExTable *t, const char *name);

/* An output file under a temporary name beside its final path. */
typedef struct ExOut {
    FILE *f;
    char *path;  /* final path (owned) */
    char *tmp;   /* "<path>.tmp.<pid>" (owned) */
} ExOut;

/** Create the temporary file for `path` and open it for writing in *o;
 * `input` (the trace being read, or NULL) may not be that file: an
 * existing path that is the input (same device and inode) is refused
 * before anything is created. Returns 0 or WK_E_IO ("path: cannot create:
 * reason", "path: is the trace being exported; choose another -o"). */
int wk_ex_out_open(ExOut *o, const char *path, const char *input, WkError *err);

/** Close o's file. commit != 0: check every write, rename it to its final
 * path, return 0 or WK_E_IO ("path: cannot write: reason"; the temporary is
 * removed). commit == 0 (or after a failed commit): remove the temporary.
 * Frees o's names; a zeroed o is a no-op. */
int wk_ex_out_close(ExOut *o, int commit, WkError *err);

/** Close the file of o and leave it under its temporary name for a later
 * wk_ex_out_rename (several files renamed together). Returns 0 or WK_E_IO
 * (the temporary removed). */
int wk_ex_out_finish(ExOut *o, WkError *err);

/** Rename a finished o to its final path; 0 or WK_E_IO. Frees o's names. */
int wk_ex_out_rename(ExOut *o, WkError *err);

/** Remove o's temporary file (if any) and free its names. */
void wk_ex_out_discard(ExOut *o);

#endif
