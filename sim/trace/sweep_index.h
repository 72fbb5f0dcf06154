/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_index.h — a sweep's index file (sweep.h5): one row per point with its
 * parameters as strings, its trace, its status and error, and its summary
 * metrics as columns; written atomically through trace.h, read back through
 * trace_read.h, and merged from the shards of a sharded sweep. */
#ifndef WK_SWEEP_INDEX_H
#define WK_SWEEP_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"

#define WK_SWEEP_FORMAT WK_SCHEMA_SWEEP_FORMAT /* root attribute `format` (schema.h) */

typedef enum WkSweepStatus {
    WK_SWEEP_OK = 0,  /* ran to the end; metrics filled */
    WK_SWEEP_FAILED,  /* stopped on an error (`error`); metrics NaN */
    WK_SWEEP_NOT_RUN, /* in no shard that was merged */
} WkSweepStatus;

typedef struct WkSweepRow {
    int64_t id;          /* point id: index in the sweep's cross product */
    uint8_t status;      /* WkSweepStatus */
    int64_t seed;        /* seed of the run */
    char *scheduler;     /* scheduler name ("" = the scenario's) */
    char **axis;         /* value of each axis, flow YAML (naxes strings) */
    char *overrides;     /* the key.path=value overrides, one per line (as a trace's `overrides`) */
    char *trace;         /* trace path relative to the index's directory ("" = none) */
    char *error;         /* "FILE:LINE:COL: message" of a failed point, else "" */
    double *metric;      /* nmetrics values; NaN = missing or undefined */
} WkSweepRow;

typedef struct WkSweepIndex {
    char *sweep_name;    /* `name:` of the sweep */
    char *sweep_file;    /* path of the sweep file as given */
    char *sweep_text;    /* its text */
    char *sweep_id;      /* fingerprint of the sweep and its base scenario (hex) */
    char *scenario_name; /* the base scenario's name */
    char *shard;         /* "I/N" for a shard's index, "" for a whole sweep */
    int64_t npoints;     /* points in the whole sweep */
    char **axes;         /* axis key paths, in point-order (outermost first) */
    size_t naxes;
    char **metrics;      /* metric column names */
    char **units;        /* their units */
    size_t nmetrics;
    WkSweepRow *rows;    /* in id order */
    size_t nrows;
} WkSweepIndex;

/** Write ix (borrowed) to path, atomically (temp file + rename). String
 * values longer than their column (scheduler 63 bytes, axis values and
 * trace 255, overrides and error 1023) are cut at a UTF-8 boundary.
 * Returns 0 or WK_E_IO / WK_E_NOMEM. */
int wk_sweep_index_write(const WkSweepIndex *ix, const char *path, WkError *err);

/** Read an index written by wk_sweep_index_write. Returns 0 and a new index
 * the caller owns (wk_sweep_index_free), or WK_E_IO (cannot open), WK_E_INVAL
 * (not an HDF5 file, or not a sweep index: "path: not a sweep index"; a file
 * failing the schema check of wk_trace_read_open; `metric_units` with
 * another count of lines than `metrics`; `npoints` outside 0 to
 * WK_SCHEMA_SWEEP_POINTS_MAX), each naming the file and the attribute or
 * column. Nothing leaks on any error. */
int wk_sweep_index_read(WkSweepIndex **out, const char *path, WkError *err);

/** 1 when the file at path is a sweep index (root attribute format), else 0. */
int wk_sweep_index_is(const char *path);

/** Merge the shard indexes paths[0..n) (borrowed) into one index of the
 * whole sweep written to out_path: rows by id, points in no shard as
 * not_run, trace paths rewritten relative to out_path's directory. The
 * shards must come from the same sweep (sweep_id); a point in two shards is
 * an error. *missing and *failed receive the not_run and failed counts.
 * Returns 0 or WK_E_INVAL / WK_E_IO / WK_E_NOMEM naming the file. */
int wk_sweep_index_merge(const char *const *paths, size_t n, const char *out_path, size_t *missing,
                         size_t *failed, WkError *err);

/** Release ix. NULL is a no-op. */
void wk_sweep_index_free(WkSweepIndex *ix);

#endif
