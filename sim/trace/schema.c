/* SPDX-License-Identifier: Apache-2.0 */
/* schema.c — the names of the enum values a trace stores (schema.h): the
 * tables the writer hands to HDF5 as enum types. Names only; no I/O. */
#include "sim/trace/schema.h"

#include <stddef.h>

const char *const wk_schema_job_status_names[WK_SCHEMA_STATUS_N + 1] = {
    [WK_SCHEMA_STATUS_COMPLETED] = "completed",
    [WK_SCHEMA_STATUS_REJECTED] = "rejected",
    [WK_SCHEMA_STATUS_QUEUED] = "queued",
    [WK_SCHEMA_STATUS_RUNNING] = "running",
    [WK_SCHEMA_STATUS_NOT_SUBMITTED] = "not_submitted",
    [WK_SCHEMA_STATUS_N] = NULL,
};

const char *const wk_schema_path_class_names[WK_SCHEMA_PATH_N + 1] = {
    [WK_SCHEMA_PATH_LOCAL] = "local",
    [WK_SCHEMA_PATH_LEAF] = "leaf",
    [WK_SCHEMA_PATH_POD] = "pod",
    [WK_SCHEMA_PATH_CROSS_POD] = "cross-pod",
    [WK_SCHEMA_PATH_NONE] = "none",
    [WK_SCHEMA_PATH_N] = NULL,
};

const char *const wk_schema_fail_class_names[WK_SCHEMA_CLASS_N + 1] = {
    [WK_SCHEMA_CLASS_GPU] = "gpu",
    [WK_SCHEMA_CLASS_HBM] = "hbm",
    [WK_SCHEMA_CLASS_NVSWITCH] = "nvswitch",
    [WK_SCHEMA_CLASS_NIC] = "nic",
    [WK_SCHEMA_CLASS_NODE] = "node",
    [WK_SCHEMA_CLASS_LINK] = "link",
    [WK_SCHEMA_CLASS_SWITCH] = "switch",
    [WK_SCHEMA_CLASS_SOFTWARE] = "software",
    [WK_SCHEMA_CLASS_SDC] = "sdc",
    [WK_SCHEMA_CLASS_MAINTENANCE] = "maintenance",
    [WK_SCHEMA_CLASS_EVENT] = "event",
    [WK_SCHEMA_CLASS_N] = NULL,
};

const char *const wk_schema_incident_kind_names[WK_SCHEMA_KIND_N + 1] = {
    [WK_SCHEMA_KIND_DOWN] = "down",
    [WK_SCHEMA_KIND_THROTTLE] = "throttle",
    [WK_SCHEMA_KIND_STRAGGLER] = "straggler",
    [WK_SCHEMA_KIND_SOFTWARE] = "software",
    [WK_SCHEMA_KIND_N] = NULL,
};

const char *const wk_schema_job_kind_names[WK_SCHEMA_JOBKIND_N + 1] = {
    [WK_SCHEMA_JOBKIND_AI] = "ai",
    [WK_SCHEMA_JOBKIND_HPC] = "hpc",
    [WK_SCHEMA_JOBKIND_N] = NULL,
};

const char *const wk_schema_sweep_status_names[4] = {"ok", "failed", "not_run", NULL};

/* ---- what a reader checks at open ------------------------------------------------ */

#define COLS(a) a, sizeof a / sizeof a[0]
#define NUM(n, t) {n, t, 0, NULL, 0}

static const WkSchemaColumn job_cols[] = {
    NUM(WK_SCHEMA_JOB_ID, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_JOB_SUBMIT, WK_SCHEMA_T_I64),
    NUM(WK_SCHEMA_JOB_START, WK_SCHEMA_T_I64),
    NUM(WK_SCHEMA_JOB_END, WK_SCHEMA_T_I64),
    NUM(WK_SCHEMA_JOB_DURATION, WK_SCHEMA_T_I64),
    NUM(WK_SCHEMA_JOB_GPUS, WK_SCHEMA_T_U32),
    {WK_SCHEMA_JOB_STATUS, WK_SCHEMA_T_ENUM8, 0, wk_schema_job_status_names, 0},
    NUM(WK_SCHEMA_JOB_ITERATIONS, WK_SCHEMA_T_F64),
    NUM(WK_SCHEMA_JOB_ITERATION_TIME, WK_SCHEMA_T_F64),
    NUM(WK_SCHEMA_JOB_TFLOPS, WK_SCHEMA_T_F64),
    {WK_SCHEMA_JOB_PATH_CLASS, WK_SCHEMA_T_ENUM8, 0, wk_schema_path_class_names, 0},
    NUM(WK_SCHEMA_JOB_INTERRUPTIONS, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_JOB_PREEMPTIONS, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_JOB_ETTR, WK_SCHEMA_T_F64),
    {WK_SCHEMA_JOB_GPUS_FINAL, WK_SCHEMA_T_U32, 0, NULL, 1},
    {WK_SCHEMA_SITE, WK_SCHEMA_T_I32, 0, NULL, 4},
    {WK_SCHEMA_JOB_KIND, WK_SCHEMA_T_ENUM8, 0, wk_schema_job_kind_names, 4},
};

static const WkSchemaColumn cluster_cols[] = {
    NUM(WK_SCHEMA_CLUSTER_TIME, WK_SCHEMA_T_I64),
    NUM(WK_SCHEMA_CLUSTER_ALLOCATED, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_CLUSTER_RUNNING, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_CLUSTER_QUEUED, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_CLUSTER_POWER, WK_SCHEMA_T_F64),
};

static const WkSchemaColumn incident_cols[] = {
    NUM(WK_SCHEMA_INC_ID, WK_SCHEMA_T_U32),
    {WK_SCHEMA_INC_CLASS, WK_SCHEMA_T_ENUM8, 0, wk_schema_fail_class_names, 0},
    {WK_SCHEMA_INC_KIND, WK_SCHEMA_T_ENUM8, 0, wk_schema_incident_kind_names, 0},
    NUM(WK_SCHEMA_INC_COMPONENT, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_INC_START, WK_SCHEMA_T_I64),
    NUM(WK_SCHEMA_INC_END, WK_SCHEMA_T_I64),
    NUM(WK_SCHEMA_INC_JOBS_HIT, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_INC_GPUS_LOST, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_INC_DETECTION, WK_SCHEMA_T_F64),
    NUM(WK_SCHEMA_INC_WAIT, WK_SCHEMA_T_F64),
    NUM(WK_SCHEMA_INC_RESTART, WK_SCHEMA_T_F64),
    NUM(WK_SCHEMA_INC_RECOVERY, WK_SCHEMA_T_F64),
    NUM(WK_SCHEMA_INC_LOST_WORK, WK_SCHEMA_T_F64),
    NUM(WK_SCHEMA_INC_CLOCK, WK_SCHEMA_T_F64),
    {WK_SCHEMA_SITE, WK_SCHEMA_T_I32, 0, NULL, 4},
    {WK_SCHEMA_INC_DRAIN, WK_SCHEMA_T_F64, 0, NULL, 5},
    {WK_SCHEMA_INC_LAUNCH, WK_SCHEMA_T_F64, 0, NULL, 5},
    {WK_SCHEMA_INC_INIT, WK_SCHEMA_T_F64, 0, NULL, 5},
    {WK_SCHEMA_INC_LOAD, WK_SCHEMA_T_F64, 0, NULL, 5},
    {WK_SCHEMA_INC_WARMUP, WK_SCHEMA_T_F64, 0, NULL, 5},
};

static const WkSchemaColumn site_series_cols[] = {
    NUM(WK_SCHEMA_CLUSTER_TIME, WK_SCHEMA_T_I64),
    NUM(WK_SCHEMA_CLUSTER_ALLOCATED, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_CLUSTER_RUNNING, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_CLUSTER_QUEUED, WK_SCHEMA_T_U32),
    NUM(WK_SCHEMA_CLUSTER_POWER, WK_SCHEMA_T_F64),
    {WK_SCHEMA_SITE, WK_SCHEMA_T_I32, 0, NULL, 4},
};

static const WkSchemaColumn wan_series_cols[] = {
    {WK_SCHEMA_WAN_TIME, WK_SCHEMA_T_I64, 0, NULL, 5},
    {WK_SCHEMA_WAN_FROM, WK_SCHEMA_T_I32, 0, NULL, 5},
    {WK_SCHEMA_WAN_TO, WK_SCHEMA_T_I32, 0, NULL, 5},
    {WK_SCHEMA_WAN_BYTES, WK_SCHEMA_T_F64, 0, NULL, 5},
    {WK_SCHEMA_WAN_CAPACITY, WK_SCHEMA_T_F64, 0, NULL, 5},
};

static const WkSchemaColumn placement_cols[] = {
    {WK_SCHEMA_PL_JOB, WK_SCHEMA_T_U32, 0, NULL, 6},   {WK_SCHEMA_PL_SEGMENT, WK_SCHEMA_T_U32, 0, NULL, 6},
    {WK_SCHEMA_PL_START, WK_SCHEMA_T_I64, 0, NULL, 6}, {WK_SCHEMA_PL_END, WK_SCHEMA_T_I64, 0, NULL, 6},
    {WK_SCHEMA_PL_NODE, WK_SCHEMA_T_U32, 0, NULL, 6},  {WK_SCHEMA_PL_NODES, WK_SCHEMA_T_U32, 0, NULL, 6},
    {WK_SCHEMA_PL_GPU, WK_SCHEMA_T_U32, 0, NULL, 6},   {WK_SCHEMA_PL_GPUS, WK_SCHEMA_T_U32, 0, NULL, 6},
};

static const WkSchemaColumn node_cols[] = {
    {WK_SCHEMA_NODE_NODE, WK_SCHEMA_T_U32, 0, NULL, 6}, {WK_SCHEMA_NODE_POD, WK_SCHEMA_T_U32, 0, NULL, 6},
    {WK_SCHEMA_NODE_RACK, WK_SCHEMA_T_U32, 0, NULL, 6}, {WK_SCHEMA_NODE_GPUS, WK_SCHEMA_T_U32, 0, NULL, 6},
    {WK_SCHEMA_NODE_FIRST_GPU, WK_SCHEMA_T_U32, 0, NULL, 6},
};

static const WkSchemaTable trace_tables[] = {
    {WK_SCHEMA_JOBS, COLS(job_cols), {-1, -1}, 0},
    {WK_SCHEMA_CLUSTER, COLS(cluster_cols), {-1, -1}, 0},
    {WK_SCHEMA_INCIDENTS, COLS(incident_cols), {-1, -1}, 0},
    {WK_SCHEMA_SITES_SERIES, COLS(site_series_cols), {-1, -1}, 0},
    {WK_SCHEMA_WAN_SERIES, COLS(wan_series_cols), {-1, -1}, 0},
    {WK_SCHEMA_PLACEMENT, COLS(placement_cols), {-1, -1}, 0},
    {WK_SCHEMA_NODES, COLS(node_cols), {-1, -1}, 0},
};

static const WkSchemaAttr trace_attrs[] = {
    {WK_SCHEMA_ATTR_SCHEMA_VERSION, WK_SCHEMA_T_STR}, {WK_SCHEMA_ATTR_WANKA_VERSION, WK_SCHEMA_T_STR},
    {WK_SCHEMA_ATTR_SEED, WK_SCHEMA_T_INT},           {WK_SCHEMA_ATTR_SCENARIO_NAME, WK_SCHEMA_T_STR},
    {WK_SCHEMA_ATTR_SCENARIO_FILE, WK_SCHEMA_T_STR},  {WK_SCHEMA_ATTR_SCENARIO, WK_SCHEMA_T_STR},
    {WK_SCHEMA_ATTR_OVERRIDES, WK_SCHEMA_T_STR},      {WK_SCHEMA_ATTR_SCHEDULER, WK_SCHEMA_T_STR},
    {WK_SCHEMA_ATTR_GPU_SKU, WK_SCHEMA_T_STR},        {WK_SCHEMA_ATTR_GPUS, WK_SCHEMA_T_INT},
    {WK_SCHEMA_ATTR_SAMPLE_INTERVAL, WK_SCHEMA_T_INT}, {WK_SCHEMA_ATTR_COMPLETE, WK_SCHEMA_T_INT},
    {WK_SCHEMA_ATTR_FORMAT, WK_SCHEMA_T_STR},         {WK_SCHEMA_ATTR_SITES, WK_SCHEMA_T_STR},
};

static const char *const trace_groups[] = {"timeseries", NULL};

const WkSchemaFile wk_schema_trace = {
    .what = "trace",
    .minor = WK_SCHEMA_MINOR,
    .attrs = trace_attrs,
    .nattrs = sizeof trace_attrs / sizeof trace_attrs[0],
    .tables = trace_tables,
    .ntables = sizeof trace_tables / sizeof trace_tables[0],
    .metric_group = WK_SCHEMA_SUMMARY,
    .groups = trace_groups,
};

static const WkSchemaColumn point_cols[] = {
    NUM("id", WK_SCHEMA_T_I64),
    {"status", WK_SCHEMA_T_ENUM8, 0, wk_schema_sweep_status_names, 0},
    NUM("seed", WK_SCHEMA_T_I64),
    {"scheduler", WK_SCHEMA_T_STR, 64, NULL, 0},
    {"overrides", WK_SCHEMA_T_STR, 1024, NULL, 0},
    {"trace", WK_SCHEMA_T_STR, 256, NULL, 0},
    {"error", WK_SCHEMA_T_STR, 1024, NULL, 0},
};

/* axis columns are char[256] strings, metric columns float64 */
static const WkSchemaTable sweep_tables[] = {
    {WK_SCHEMA_SWEEP_POINTS, COLS(point_cols), {WK_SCHEMA_T_STR, WK_SCHEMA_T_F64}, WK_SCHEMA_SWEEP_AXIS_LEN},
};

static const WkSchemaAttr sweep_attrs[] = {
    {WK_SCHEMA_ATTR_SCHEMA_VERSION, WK_SCHEMA_T_STR}, {WK_SCHEMA_ATTR_FORMAT, WK_SCHEMA_T_STR},
    {WK_SCHEMA_ATTR_WANKA_VERSION, WK_SCHEMA_T_STR},  {"sweep_name", WK_SCHEMA_T_STR},
    {"sweep_file", WK_SCHEMA_T_STR},                  {"sweep", WK_SCHEMA_T_STR},
    {"sweep_id", WK_SCHEMA_T_STR},                    {"scenario_name", WK_SCHEMA_T_STR},
    {"shard", WK_SCHEMA_T_STR},                       {WK_SCHEMA_SWEEP_NPOINTS, WK_SCHEMA_T_INT},
    {"axes", WK_SCHEMA_T_STR},                        {"metrics", WK_SCHEMA_T_STR},
    {"metric_units", WK_SCHEMA_T_STR},
};

static const char *const no_groups[] = {NULL};

const WkSchemaFile wk_schema_sweep_index = {
    .what = "sweep index",
    .minor = 1, /* WK_SCHEMA_SWEEP_INDEX_VERSION */
    .attrs = sweep_attrs,
    .nattrs = sizeof sweep_attrs / sizeof sweep_attrs[0],
    .tables = sweep_tables,
    .ntables = sizeof sweep_tables / sizeof sweep_tables[0],
    .metric_group = NULL,
    .groups = no_groups,
};
