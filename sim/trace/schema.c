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
