/* SPDX-License-Identifier: Apache-2.0 */
/* report_impl.h — the trace rows and column lists of run_report.c that the
 * network's report (network_report.c) reuses with a site column. Private to
 * models/run. */
#ifndef WK_REPORT_IMPL_H
#define WK_REPORT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "models/run/run_impl.h"
#include "sim/trace/trace.h"

/* One row of the jobs table. */
typedef struct JobRow {
    uint32_t id;
    uint32_t gpus;       /* requested */
    uint32_t gpus_final; /* held at the end or when last stopped */
    int64_t submit_ns;
    int64_t start_ns;
    int64_t end_ns;
    int64_t duration_ns;
    double iterations;  /* model jobs: iterations to train; NaN otherwise */
    double iter_time_s; /* model jobs: mean iteration time over the run; NaN otherwise */
    double tflops;      /* model jobs: achieved model TFLOP/s per GPU; NaN otherwise */
    double ettr;        /* time making kept progress / time since first start */
    uint32_t interruptions;
    uint32_t preemptions;
    uint8_t status;     /* WkSchemaJobStatus */
    uint8_t path_class; /* WkSchemaPathClass */
    uint8_t kind;       /* WkSchemaJobKind */
} JobRow;

/** The jobs-table row of job i of run r (after execute). */
JobRow wk_report_job_row(const WkRun *r, size_t i);

/* Column lists of the jobs, timeseries/cluster, incidents and
 * timeseries/facility tables, offsets into JobRow, WkSampleRow,
 * WkIncidentRow and WkFacilityRow. */
extern const WkTraceField wk_report_job_fields[];
extern const size_t wk_report_njob_fields;
extern const WkTraceField wk_report_sample_fields[];
extern const size_t wk_report_nsample_fields;
extern const WkTraceField wk_report_incident_fields[];
extern const size_t wk_report_nincident_fields;
extern const WkTraceField wk_report_facility_fields[];
extern const size_t wk_report_nfacility_fields;

#endif
