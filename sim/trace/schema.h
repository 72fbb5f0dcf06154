/* SPDX-License-Identifier: Apache-2.0 */
/* schema.h — the one owner of a run trace's vocabulary (docs/trace-format.md):
 * the schema version, the names of the root attributes, tables, columns and
 * summary metrics, and the enum values stored in the tables with their names.
 * The writer (models/run/run_report.c), the reader and analysis/ use these;
 * none of them spells a name or an enum value of its own. No HDF5 here. */
#ifndef WK_SCHEMA_H
#define WK_SCHEMA_H

#include <stddef.h>

/* ---- version: "MAJOR.MINOR"; a reader refuses another major, a minor only adds */

#define WK_SCHEMA_MAJOR 1
#define WK_SCHEMA_MINOR 6
#define WK_SCHEMA_VERSION "1.6" /* WK_SCHEMA_MAJOR "." WK_SCHEMA_MINOR; 1.1 added jobs.gpus_final,
                                   1.2 timeseries/pods, 1.3 fixed-length string attributes
                                   (the reader refuses variable-length ones: docs/trace-format.md)
                                   and timeseries/facility, 1.4 jobs.kind and networks of sites:
                                   the site columns, timeseries/sites and the attribute `sites`,
                                   1.5 the incidents' restart steps (drain ... warmup) and
                                   timeseries/wan, 1.6 the placement and nodes tables */

/* The sweep index (sweep.h5, sim/trace/sweep_index.c) carries its own
 * version in the same root attribute: its layout is docs/batch.md's. */
#define WK_SCHEMA_SWEEP_INDEX_VERSION "1.1" /* 1.1: fixed-length string attributes */

/* ---- root attributes ---------------------------------------------------------- */

#define WK_SCHEMA_ATTR_SCHEMA_VERSION "schema_version"   /* string, WK_SCHEMA_VERSION */
#define WK_SCHEMA_ATTR_WANKA_VERSION "wanka_version"     /* string */
#define WK_SCHEMA_ATTR_SEED "seed"                       /* int64 */
#define WK_SCHEMA_ATTR_SCENARIO_NAME "scenario_name"     /* string */
#define WK_SCHEMA_ATTR_SCENARIO_FILE "scenario_file"     /* string */
#define WK_SCHEMA_ATTR_SCENARIO "scenario"               /* string: the scenario's text */
#define WK_SCHEMA_ATTR_OVERRIDES "overrides"             /* string: one --set per line */
#define WK_SCHEMA_ATTR_SCHEDULER "scheduler"             /* string */
#define WK_SCHEMA_ATTR_GPU_SKU "gpu_sku"                 /* string, comma-separated */
#define WK_SCHEMA_ATTR_GPUS "gpus"                       /* int64 */
#define WK_SCHEMA_ATTR_SAMPLE_INTERVAL "sample_interval_ns" /* int64 */
#define WK_SCHEMA_ATTR_COMPLETE "complete"               /* int64: 1 whole run, 0 interrupted */

/* Attributes of every table: "description" and "<column>_units" (trace.c). */
#define WK_SCHEMA_ATTR_DESCRIPTION "description"
#define WK_SCHEMA_UNITS_SUFFIX "_units"

/* ---- tables and groups ----------------------------------------------------------- */

#define WK_SCHEMA_JOBS "jobs"
#define WK_SCHEMA_CLUSTER "timeseries/cluster"
#define WK_SCHEMA_PODS "timeseries/pods" /* 1.2 */
#define WK_SCHEMA_FACILITY "timeseries/facility" /* 1.3, only with a `facility:` section */
#define WK_SCHEMA_INCIDENTS "incidents"
#define WK_SCHEMA_SITES_SERIES "timeseries/sites" /* 1.4, networks only: each site's rows, with a site column */
#define WK_SCHEMA_WAN_SERIES "timeseries/wan" /* 1.5, networks whose WAN carried traffic: each directed link's mean traffic per bin */
#define WK_SCHEMA_WAN_TIME "time"             /* bin start, ns */
#define WK_SCHEMA_WAN_FROM "from"             /* int32: sending site, index into `sites` */
#define WK_SCHEMA_WAN_TO "to"                 /* int32: receiving site */
#define WK_SCHEMA_WAN_BYTES "bytes_per_s"     /* float64: mean traffic over the bin */
#define WK_SCHEMA_WAN_CAPACITY "capacity"     /* float64: the link's bandwidth, bytes/s */
#define WK_SCHEMA_SITE "site" /* 1.4, networks only: column of jobs, incidents, timeseries/sites and /facility: index into the root attribute `sites` (-1: none) */
#define WK_SCHEMA_ATTR_SITES "sites" /* 1.4, networks only: the site names, comma-separated, in `sites:` order */
#define WK_SCHEMA_PLACEMENT "placement" /* 1.6, single-site runs: which nodes and GPUs each job segment held */
#define WK_SCHEMA_NODES "nodes"         /* 1.6, single-site runs: each node's pod, rack and GPUs */
#define WK_SCHEMA_SUMMARY "summary" /* group of float64 attributes, WK_SCHEMA_M_* */

/* jobs: one row per job, in workload order */
#define WK_SCHEMA_JOB_ID "id"
#define WK_SCHEMA_JOB_SUBMIT "submit"
#define WK_SCHEMA_JOB_START "start"
#define WK_SCHEMA_JOB_END "end"
#define WK_SCHEMA_JOB_DURATION "duration"
#define WK_SCHEMA_JOB_GPUS "gpus"             /* GPUs requested */
#define WK_SCHEMA_JOB_STATUS "status"         /* WkSchemaJobStatus */
#define WK_SCHEMA_JOB_ITERATIONS "iterations"
#define WK_SCHEMA_JOB_ITERATION_TIME "iteration_time"
#define WK_SCHEMA_JOB_TFLOPS "tflops_per_gpu"
#define WK_SCHEMA_JOB_PATH_CLASS "path_class" /* WkSchemaPathClass */
#define WK_SCHEMA_JOB_INTERRUPTIONS "interruptions"
#define WK_SCHEMA_JOB_PREEMPTIONS "preemptions"
#define WK_SCHEMA_JOB_ETTR "ettr"
#define WK_SCHEMA_JOB_GPUS_FINAL "gpus_final" /* 1.1: GPUs held at the end or when last stopped */
#define WK_SCHEMA_JOB_KIND "kind"             /* 1.4: WkSchemaJobKind */

/* timeseries/cluster: the cluster's state, sampled */
#define WK_SCHEMA_CLUSTER_TIME "time"
#define WK_SCHEMA_CLUSTER_ALLOCATED "allocated_gpus"
#define WK_SCHEMA_CLUSTER_RUNNING "running_jobs"
#define WK_SCHEMA_CLUSTER_QUEUED "queued_jobs"
#define WK_SCHEMA_CLUSTER_POWER "power"

/* timeseries/pods (1.2): each pod's mean allocation per time bin */
#define WK_SCHEMA_PODS_TIME "time" /* bin start */
#define WK_SCHEMA_PODS_SPAN "span" /* bin length */
#define WK_SCHEMA_PODS_POD "pod"
#define WK_SCHEMA_PODS_GPUS "gpus"           /* GPUs in the pod */
#define WK_SCHEMA_PODS_ALLOCATED "allocated" /* GPUs held by jobs, mean over the bin */

/* placement (1.6): one row per job segment and run of nodes where it held
 * the same GPUs of each node; rows by job, segment, node */
#define WK_SCHEMA_PL_JOB "job"         /* uint32: jobs.id */
#define WK_SCHEMA_PL_SEGMENT "segment" /* uint32: the job's allocations in time order, from 0 */
#define WK_SCHEMA_PL_START "start"     /* int64 ns: the allocation began */
#define WK_SCHEMA_PL_END "end"         /* int64 ns: it ended (the end of the run if still held) */
#define WK_SCHEMA_PL_NODE "node"       /* uint32: first node of the run */
#define WK_SCHEMA_PL_NODES "nodes"     /* uint32: nodes in the run (>= 1) */
#define WK_SCHEMA_PL_GPU "gpu"         /* uint32: first GPU held on each node, index within the node */
#define WK_SCHEMA_PL_GPUS "gpus"       /* uint32: GPUs held on each node: gpu .. gpu + gpus - 1 */

/* nodes (1.6): one row per node, in node order */
#define WK_SCHEMA_NODE_NODE "node"         /* uint32: row index */
#define WK_SCHEMA_NODE_POD "pod"           /* uint32 */
#define WK_SCHEMA_NODE_RACK "rack"         /* uint32: node / failures.nodes_per_rack */
#define WK_SCHEMA_NODE_GPUS "gpus"         /* uint32: GPUs of the node */
#define WK_SCHEMA_NODE_FIRST_GPU "first_gpu" /* uint32: cluster index of its first GPU */

/* timeseries/facility (1.3): the facility's draw, budget, site clock, price and carbon */
#define WK_SCHEMA_FAC_TIME "time"
#define WK_SCHEMA_FAC_POWER "power"   /* facility draw, W */
#define WK_SCHEMA_FAC_BUDGET "budget" /* W, NaN without a budget */
#define WK_SCHEMA_FAC_CLOCK "clock"   /* site clock factor busy GPUs may run at */
#define WK_SCHEMA_FAC_PRICE "price"   /* per MWh, NaN without a price series */
#define WK_SCHEMA_FAC_CARBON "carbon" /* g CO2 per kWh, NaN without a price series */

/* incidents: failures, slowdowns and scripted events, in time order */
#define WK_SCHEMA_INC_ID "id"
#define WK_SCHEMA_INC_CLASS "class" /* WkSchemaFailClass */
#define WK_SCHEMA_INC_KIND "kind"   /* WkSchemaIncidentKind */
#define WK_SCHEMA_INC_COMPONENT "component"
#define WK_SCHEMA_INC_START "start"
#define WK_SCHEMA_INC_END "end"
#define WK_SCHEMA_INC_JOBS_HIT "jobs_hit"
#define WK_SCHEMA_INC_GPUS_LOST "gpus_lost"
#define WK_SCHEMA_INC_DETECTION "detection"
#define WK_SCHEMA_INC_WAIT "wait"
#define WK_SCHEMA_INC_RESTART "restart"
#define WK_SCHEMA_INC_RECOVERY "recovery"
#define WK_SCHEMA_INC_LOST_WORK "lost_work"
#define WK_SCHEMA_INC_CLOCK "clock"
/* 1.5: restart_s of the last job restarted, by step (NaN: none) */
#define WK_SCHEMA_INC_DRAIN "drain"
#define WK_SCHEMA_INC_LAUNCH "launch"
#define WK_SCHEMA_INC_INIT "init"
#define WK_SCHEMA_INC_LOAD "load"
#define WK_SCHEMA_INC_WARMUP "warmup"

/* ---- summary metrics (attributes of WK_SCHEMA_SUMMARY; docs/metrics.md) ---------- */

#define WK_SCHEMA_M_GPUS "gpus"
#define WK_SCHEMA_M_JOBS_SUBMITTED "jobs_submitted"
#define WK_SCHEMA_M_JOBS_COMPLETED "jobs_completed"
#define WK_SCHEMA_M_JOBS_REJECTED "jobs_rejected"
#define WK_SCHEMA_M_JOBS_UNFINISHED "jobs_unfinished"
#define WK_SCHEMA_M_UTILIZATION "utilization"
#define WK_SCHEMA_M_UTIL_EFFECTIVE "util_effective"
#define WK_SCHEMA_M_UTIL_GPU_STD "util_gpu_std"
#define WK_SCHEMA_M_UTIL_GPU_STD_PEAK "util_gpu_std_peak"
#define WK_SCHEMA_M_JCT_MEAN "jct_mean_s"
#define WK_SCHEMA_M_JCT_P50 "jct_p50_s"
#define WK_SCHEMA_M_JCT_P99 "jct_p99_s"
#define WK_SCHEMA_M_WAIT_MEAN "wait_mean_s"
#define WK_SCHEMA_M_WAIT_P99 "wait_p99_s"
#define WK_SCHEMA_M_ENERGY "energy_kwh"
#define WK_SCHEMA_M_MEAN_POWER "mean_power_mw"
#define WK_SCHEMA_M_ENERGY_PER_JOB "energy_per_job_kwh"
#define WK_SCHEMA_M_ENERGY_COST "energy_cost"
#define WK_SCHEMA_M_CO2 "co2_t"
#define WK_SCHEMA_M_POWER_CAPPED "power_capped_h"
#define WK_SCHEMA_M_BUDGET_REFUSALS "budget_refusals"
#define WK_SCHEMA_M_SLEEP_SAVED "sleep_saved_kwh"
#define WK_SCHEMA_M_WAKE_DELAYS "wake_delays"
#define WK_SCHEMA_M_WAKE_DELAY "wake_delay_h"
#define WK_SCHEMA_M_MODEL_JOBS_STARTED "model_jobs_started"
#define WK_SCHEMA_M_TOKENS_TRAINED "tokens_trained"
#define WK_SCHEMA_M_TFLOPS_PER_GPU "tflops_per_gpu"
#define WK_SCHEMA_M_TOKENS_PER_JOULE "tokens_per_joule"
#define WK_SCHEMA_M_FLOW_RESHARES "flow_reshares"
#define WK_SCHEMA_M_INCIDENTS "incidents"
#define WK_SCHEMA_M_INTERRUPTIONS "interruptions"
#define WK_SCHEMA_M_PREEMPTIONS "preemptions"
#define WK_SCHEMA_M_ELASTIC_SHRINKS "elastic_shrinks"
#define WK_SCHEMA_M_RECOVERY_MEAN "recovery_mean_s"
#define WK_SCHEMA_M_RECOVERY_P50 "recovery_p50_s"
#define WK_SCHEMA_M_RECOVERY_P99 "recovery_p99_s"
/* Mean of each recovery step over restarts after an incident (runs with failures only). */
#define WK_SCHEMA_M_REC_DETECT_MEAN "recovery_detect_mean_s"
#define WK_SCHEMA_M_REC_DRAIN_MEAN "recovery_drain_mean_s"
#define WK_SCHEMA_M_REC_LAUNCH_MEAN "recovery_launch_mean_s"
#define WK_SCHEMA_M_REC_INIT_MEAN "recovery_init_mean_s"
#define WK_SCHEMA_M_REC_LOAD_MEAN "recovery_load_mean_s"
#define WK_SCHEMA_M_REC_WARMUP_MEAN "recovery_warmup_mean_s"
#define WK_SCHEMA_M_LOST_GPU_HOURS "lost_gpu_hours"
#define WK_SCHEMA_M_ETTR "ettr"
#define WK_SCHEMA_M_GOODPUT "goodput"
#define WK_SCHEMA_M_MAKESPAN "makespan_s"
#define WK_SCHEMA_M_SIMULATED "simulated_s"
#define WK_SCHEMA_M_EVENTS "events"
/* only with mechanisms.outsourcing */
#define WK_SCHEMA_M_OUTSOURCE_LENDS "outsourcing_lends"
#define WK_SCHEMA_M_OUTSOURCE_RETURNS "outsourcing_returns"
#define WK_SCHEMA_M_OUTSOURCE_GPU_HOURS "outsourcing_borrowed_gpu_hours"
/* only when the workload has hpc jobs */
#define WK_SCHEMA_M_HPC_JOBS "hpc_jobs"
#define WK_SCHEMA_M_HPC_WAIT_MEAN "hpc_wait_mean_s"
#define WK_SCHEMA_M_HPC_JCT_MEAN "hpc_jct_mean_s"
#define WK_SCHEMA_M_HPC_GPU_HOURS "hpc_gpu_hours"
#define WK_SCHEMA_M_AI_GPU_HOURS "ai_gpu_hours"
#define WK_SCHEMA_M_AI_PREEMPTIONS "ai_preemptions"
/* only when a scheduler chose a job's clock (or on_budget: policy) */
#define WK_SCHEMA_M_CLOCKED_JOBS "clocked_jobs"
#define WK_SCHEMA_M_CLOCK_SAVED_KWH "clock_saved_kwh"
#define WK_SCHEMA_M_CLOCK_SAVED_COST "clock_saved_cost"
#define WK_SCHEMA_M_CLOCK_SAVED_CO2 "clock_saved_co2_t"
#define WK_SCHEMA_M_CLOCK_LOST_GPU_H "clock_lost_gpu_hours"
/* every run, last (docs/metrics.md, "Slowdown and fairness") */
#define WK_SCHEMA_M_BSLD_MEAN "bsld_mean"
#define WK_SCHEMA_M_BSLD_P99 "bsld_p99"
#define WK_SCHEMA_M_BSLD_TAU "bsld_tau_s"
/* ... then only when jobs carry a user; per-user rows are "user.NAME.jobs" etc. */
#define WK_SCHEMA_M_USERS "users"
#define WK_SCHEMA_M_JAIN_USERS "jain_users"
#define WK_SCHEMA_M_FTF_MEAN "ftf_mean"
#define WK_SCHEMA_M_FTF_MAX "ftf_max"

/* ---- enum columns: stored as uint8 HDF5 enums, value i named names[i] ------------- */

/* jobs.status */
typedef enum WkSchemaJobStatus {
    WK_SCHEMA_STATUS_COMPLETED = 0,
    WK_SCHEMA_STATUS_REJECTED,      /* can never fit the cluster */
    WK_SCHEMA_STATUS_QUEUED,        /* waiting at the end */
    WK_SCHEMA_STATUS_RUNNING,       /* running at the end */
    WK_SCHEMA_STATUS_NOT_SUBMITTED, /* submit after the end */
    WK_SCHEMA_STATUS_N
} WkSchemaJobStatus;

/* jobs.path_class: the widest path a job's traffic takes (models/topo/fabric.h
 * WkPathClass, in its order), or none before it starts */
typedef enum WkSchemaPathClass {
    WK_SCHEMA_PATH_LOCAL = 0, /* one NVLink domain */
    WK_SCHEMA_PATH_LEAF,
    WK_SCHEMA_PATH_POD,
    WK_SCHEMA_PATH_CROSS_POD,
    WK_SCHEMA_PATH_NONE,      /* never started */
    WK_SCHEMA_PATH_N
} WkSchemaPathClass;

/* incidents.class: the failure classes (models/fail/fail.h WkFailClass, in
 * its order; the scenario's `failures.classes` keys), then `event` for a
 * random process or a scripted incident */
typedef enum WkSchemaFailClass {
    WK_SCHEMA_CLASS_GPU = 0,
    WK_SCHEMA_CLASS_HBM,
    WK_SCHEMA_CLASS_NVSWITCH,
    WK_SCHEMA_CLASS_NIC,
    WK_SCHEMA_CLASS_NODE,
    WK_SCHEMA_CLASS_LINK,
    WK_SCHEMA_CLASS_SWITCH,
    WK_SCHEMA_CLASS_SOFTWARE,
    WK_SCHEMA_CLASS_SDC,
    WK_SCHEMA_CLASS_MAINTENANCE,
    WK_SCHEMA_CLASS_EVENT,
    WK_SCHEMA_CLASS_N
} WkSchemaFailClass;

/* incidents.kind (models/fail/fail.h WkIncidentKind, in its order) */
typedef enum WkSchemaIncidentKind {
    WK_SCHEMA_KIND_DOWN = 0,
    WK_SCHEMA_KIND_THROTTLE,
    WK_SCHEMA_KIND_STRAGGLER,
    WK_SCHEMA_KIND_SOFTWARE,
    WK_SCHEMA_KIND_N
} WkSchemaIncidentKind;

/* jobs.kind (1.4): the workload's `kind:` */
typedef enum WkSchemaJobKind {
    WK_SCHEMA_JOBKIND_AI = 0,
    WK_SCHEMA_JOBKIND_HPC,
    WK_SCHEMA_JOBKIND_N
} WkSchemaJobKind;

/* The names of each enum's values, NULL-terminated (a WkTraceField's
 * enum_names): wk_schema_job_status_names[WK_SCHEMA_STATUS_QUEUED] is "queued". */
extern const char *const wk_schema_job_status_names[WK_SCHEMA_STATUS_N + 1];
extern const char *const wk_schema_path_class_names[WK_SCHEMA_PATH_N + 1];
extern const char *const wk_schema_fail_class_names[WK_SCHEMA_CLASS_N + 1];
extern const char *const wk_schema_incident_kind_names[WK_SCHEMA_KIND_N + 1];
extern const char *const wk_schema_job_kind_names[WK_SCHEMA_JOBKIND_N + 1];

/* ---- the sweep index (sweep.h5; docs/batch.md) ------------------------------------ */

#define WK_SCHEMA_ATTR_FORMAT "format"                 /* string: WK_SCHEMA_SWEEP_FORMAT */
#define WK_SCHEMA_SWEEP_FORMAT "wanka-sweep-index"
#define WK_SCHEMA_SWEEP_POINTS "points"                /* the table of the sweep's points */
#define WK_SCHEMA_SWEEP_NPOINTS "npoints"              /* int64: points in the whole sweep */
#define WK_SCHEMA_SWEEP_POINTS_MAX 1000000             /* the most points a sweep has (sim/batch/sweep.h) */
#define WK_SCHEMA_SWEEP_AXIS_LEN 256                   /* an axis column: char[256] */
extern const char *const wk_schema_sweep_status_names[4]; /* ok, failed, not_run, NULL */

/* ---- what a reader checks at open (sim/trace/trace_read.c) -------------------------- */

/* The type of a column or attribute as the schema fixes it. */
typedef enum WkSchemaType {
    WK_SCHEMA_T_I64 = 0, /* int64, little- or big-endian */
    WK_SCHEMA_T_I32,     /* int32 */
    WK_SCHEMA_T_U32,     /* uint32 */
    WK_SCHEMA_T_F64,     /* IEEE float64 */
    WK_SCHEMA_T_ENUM8,   /* enum over uint8, value i named enum_names[i] */
    WK_SCHEMA_T_STR,     /* fixed-length string of str_len bytes (a column) / any string (an attribute) */
    WK_SCHEMA_T_INT,     /* an attribute: any integer */
    WK_SCHEMA_T_NUM,     /* an attribute: any integer or float */
} WkSchemaType;

typedef struct WkSchemaColumn {
    const char *name;
    WkSchemaType type;
    unsigned str_len;              /* WK_SCHEMA_T_STR: bytes */
    const char *const *enum_names; /* WK_SCHEMA_T_ENUM8: NULL-terminated */
    int since_minor;               /* the minor version that added it */
} WkSchemaColumn;

typedef struct WkSchemaAttr {
    const char *name;
    WkSchemaType type; /* WK_SCHEMA_T_STR or WK_SCHEMA_T_INT; a scalar */
} WkSchemaAttr;

/* A table: a 1-D compound dataset at `path`. Each listed column, when
 * present, has exactly its type (a table may lack a column: readers say so).
 * A column not listed must have the type `other` (with other_len for a
 * string), or, when `other` is -1, is refused unless the file's minor
 * version is newer than the reader's (a later minor only adds). */
typedef struct WkSchemaTable {
    const char *path;
    const WkSchemaColumn *cols;
    size_t ncols;
    int other[2];       /* up to two WkSchemaType allowed for other columns, -1 = none */
    unsigned other_len; /* their string length */
} WkSchemaTable;

/* A file kind: its root attributes, tables and groups of numeric attributes. */
typedef struct WkSchemaFile {
    const char *what;           /* "trace", "sweep index" */
    int minor;                  /* the minor version this wanka writes */
    const WkSchemaAttr *attrs;  /* root attributes, when present */
    size_t nattrs;
    const WkSchemaTable *tables;
    size_t ntables;
    const char *metric_group;   /* a group whose every attribute is a scalar number, or NULL */
    const char *const *groups;  /* groups the tables sit in (each must be a group), NULL-terminated */
} WkSchemaFile;

extern const WkSchemaFile wk_schema_trace;       /* a run trace */
extern const WkSchemaFile wk_schema_sweep_index; /* a sweep index */

/* The most rows a file of `bytes` bytes may hold in a table of rows of
 * `row` bytes: deflate compresses at most 1032:1 (zlib technical details,
 * https://zlib.net/zlib_tech.html), so rows * row <= 1032 * bytes, plus one
 * 64 KiB chunk of slack. */
#define WK_SCHEMA_DEFLATE_MAX 1032u
#define WK_SCHEMA_ROW_SLACK 65536u

#endif
