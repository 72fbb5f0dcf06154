/* SPDX-License-Identifier: Apache-2.0 */
/* export.h — `wanka export`: a trace's tables in formats other tools open.
 * Chrome trace-event JSON (Perfetto, chrome://tracing) for a timeline, and
 * one RFC 4180 CSV file per table for spreadsheets and data frames. Reads
 * traces through sim/trace/trace_read.h; writes each output file under a
 * temporary name and renames it when complete, so no partial file is left
 * under the final name. The library writes files; only main prints. */
#ifndef WK_EXPORT_H
#define WK_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/trace/schema.h"

/* Hardware tracks of a Chrome export before incidents are gathered into one
 * group of tracks per failure class (docs/analysis.md). */
#define WK_EXPORT_MAX_TRACKS_DEFAULT 256

/* How an incidents.class names its component (WkExportLayout.class_scope). */
typedef enum WkExportScope {
    WK_EXPORT_SCOPE_OTHER = 0, /* a fabric link or switch, or an event of unknown scope */
    WK_EXPORT_SCOPE_GPU,       /* component = a GPU index */
    WK_EXPORT_SCOPE_NODE,      /* component = a node index */
} WkExportScope;

/* Where the cluster's hardware sits, for hardware tracks per node or per pod.
 * A trace names the component an incident hit, not the cluster's layout: the
 * caller rebuilds it (sim/cli from the scenario the trace holds). Borrowed. */
typedef struct WkExportLayout {
    uint32_t gpus, nodes;
    const uint32_t *gpu_node;                   /* [gpus] node of each GPU */
    const uint32_t *node_pod;                   /* [nodes] pod of each node */
    uint8_t class_scope[WK_SCHEMA_CLASS_N];     /* WkExportScope per incidents.class */
} WkExportLayout;

typedef struct WkExportOpts {
    size_t max_tracks;             /* Chrome: hardware tracks (nodes, pods, other components) at
                                      most before the next coarser level; 0 = the default */
    const WkExportLayout *layout;  /* Chrome: NULL = unknown (tracks per component) */
} WkExportOpts;

/* The level of the Chrome export's hardware tracks (WkExportStats.level). */
typedef enum WkExportLevel {
    WK_EXPORT_LEVEL_NODE = 0,  /* a track per node (per component where no node applies) */
    WK_EXPORT_LEVEL_POD,       /* a track per pod, links, switches and events per class: more
                                  tracks than max_tracks at the node level */
    WK_EXPORT_LEVEL_CLASS,     /* a track group per failure class: more pods than max_tracks */
} WkExportLevel;

/* What an export wrote (for the command's closing line and the tests). */
typedef struct WkExportStats {
    size_t events;     /* Chrome: trace events written, metadata included */
    size_t tracks;     /* Chrome: threads (tracks) named */
    WkExportLevel level; /* Chrome: the hardware tracks' level */
    size_t files;      /* CSV: files written */
    size_t rows;       /* CSV: data rows written, all files */
} WkExportStats;

/** Write the trace at `trace` as Chrome trace-event JSON (the JSON Object
 * Format: {"traceEvents": [...], "displayTimeUnit", "otherData"}) to `out`.
 * Timestamps are microseconds from the start of the run. Tracks: process
 * "jobs" (each started job one complete "X" slice named "job ID" with its
 * GPUs, status, model figures in args, packed into lanes so slices on a lane
 * never overlap); "hardware" (each incident one slice from failure to repair
 * on the track of the node it hit, "node 17", given a layout, else of its
 * component, "gpu 1234"; links, switches and events of unknown scope on
 * their component's track; when that needs more than max_tracks tracks,
 * per pod (and those others per class), then all per failure class; an
 * instant "i" at detection);
 * "recovery" (per incident that hit jobs: a "recovery" slice with its
 * detection, wait and restart phases nested inside); "cluster" (counter "C"
 * events for utilization, power and queue length from timeseries/cluster).
 * Every process and thread is named by "M" metadata events. o may be NULL
 * (defaults); st may be NULL. Returns 0, or the trace's error naming its file
 * (WK_E_IO, WK_E_INVAL, WK_E_NOTFOUND for a missing table), WK_E_INVAL for an
 * enum value the schema does not name, WK_E_IO naming `out` when it cannot be
 * written (then no file is left at `out` and an older one is untouched). */
int wk_export_chrome(const char *trace, const char *out, const WkExportOpts *o, WkExportStats *st,
                     WkError *err);

/** Write the trace at `trace` as CSV files in the directory `dir` (created
 * when missing, with mode 0777 less the umask): jobs.csv, incidents.csv,
 * timeseries.csv (one row per table row), summary.csv (metric,value) and
 * run.csv (the root attributes: attribute,value). Each file has a header row;
 * columns carry their units in the name (submit_ns, power_w, recovery_s,
 * lost_work_gpu_h); enums are written as their names (docs/trace-format.md);
 * a missing value (NaN) is an empty field; lines end in CRLF and fields with
 * a comma, quote or line break are quoted (RFC 4180). A table a trace lacks
 * (incidents of an old trace) gives no file. Each file is written under a
 * temporary name and all are renamed only when every one is complete. A
 * dir this call created is removed again on an error, and by
 * wk_file_tmp_remove_on_signal's handler on a signal while it writes (a
 * dir that was there before is never removed).
 * Returns 0, or errors as wk_export_chrome (WK_E_IO naming dir or the file). */
int wk_export_csv(const char *trace, const char *dir, WkExportStats *st, WkError *err);

#endif
