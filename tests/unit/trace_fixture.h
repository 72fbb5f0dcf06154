/* SPDX-License-Identifier: Apache-2.0 */
/* trace_fixture.h — what the trace, compare and report tests share: a
 * temporary directory of traces (a cmocka setup/teardown pair), a scenario
 * run in process and written as a trace, hand-written traces with wanka's
 * root attributes, summary metrics and small jobs/incidents tables, and the
 * line of a rendered table that starts with a label. */
#ifndef WK_TRACE_FIXTURE_H
#define WK_TRACE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "models/run/run.h"
#include "sim/trace/summary.h"

#define TRACE_FIXTURE_FILES 16

/* A temporary directory; the files named through trace_fixture_file are
 * removed by the teardown, which fails on anything else left behind. */
typedef struct TraceDir {
    char path[64];                         /* "/tmp/wk_test_XXXXXX" */
    char files[TRACE_FIXTURE_FILES][128];  /* paths the teardown removes */
    size_t n;
} TraceDir;

/** cmocka setup: a new TraceDir in *state. Returns 0, or -1 on failure. */
int trace_fixture_setup(void **state);

/** cmocka teardown: remove the registered files and the directory; -1 when
 * the directory is not empty then (a test left a file behind). */
int trace_fixture_teardown(void **state);

/** The path of a new file `name` in d, registered for removal (owned by d). */
const char *trace_fixture_file(TraceDir *d, const char *name);

/** Run the scenario text in process (opts may be NULL), write its trace to
 * path and, when sum is not NULL, keep its summary. Fails the test on error. */
void trace_fixture_run(const char *yaml, const WkRunOpts *opts, const char *path, WkSummary *sum);

/* A jobs row of a hand-written trace: the columns analysis/ reads. */
typedef struct FakeJob {
    uint32_t id;
    int64_t submit, start, end; /* ns */
    uint32_t gpus;
    uint8_t status;             /* WkSchemaJobStatus */
    double iterations, iteration_time;
} FakeJob;

/* An incidents row of a hand-written trace. */
typedef struct FakeIncident {
    uint32_t id;
    uint8_t kind;               /* WkSchemaIncidentKind */
    int64_t start, end;         /* ns */
    double recovery;            /* s */
    double clock;
} FakeIncident;

typedef struct FakeTrace {
    const char *schema;               /* NULL = WK_SCHEMA_VERSION */
    const char *scenario, *scheduler;
    int64_t seed;
    const char *const *names;         /* summary metrics names[i] = values[i] */
    const double *values;
    size_t nm;
    const FakeJob *jobs;              /* NULL = no jobs table */
    size_t nj;
    const FakeIncident *inc;          /* NULL = no incidents table */
    size_t ni;
    int interrupted;                  /* write the root attribute complete = 0 */
} FakeTrace;

/** Write the hand-made trace f to path. Fails the test on error. */
void trace_fixture_write(const char *path, const FakeTrace *f);

/** The line of text that starts with label followed by a space, copied to
 * buf (n bytes). Fails the test when there is none. */
const char *trace_fixture_line(const char *text, const char *label, char *buf, size_t n);

#endif
