/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_trace.c — libFuzzer target for the trace reader behind every command
 * that opens traces in C: arbitrary bytes become a .h5 file that
 * `wanka compare` (wk_compare_load, every format rendered; a sweep index
 * too), `wanka report paper-sci` (wk_report_load with the file in every
 * role, every format rendered), `wanka sweep-merge` (wk_sweep_index_read,
 * wk_sweep_index_merge into a scratch file) and `wanka export` (both
 * formats, written then removed) read, and whose tables
 * wk_trace_read_column and wk_trace_read_column_str read. The file is opened
 * and checked once first; only a file that open accepts goes on to the
 * readers (each opens it again). Any input must end in 0 or a WK_E_* error
 * with a message. Crashes inside HDF5 itself are
 * HDF5's (docs/limits.md says what a malformed trace can do). The target
 * opens in-process (WANKA_TRACE_PROBE=0 unless set): the product first
 * opens a trace in a forked child and turns a crash there into an error,
 * which would hide from the fuzzer exactly the library crashes the byte
 * checks (trace_read_ohdr.c) exist to refuse, and forking the sanitized
 * process costs five times the execution. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/report.h"
#include "sim/trace/sweep_index.h"
#include "analysis/export.h"
#include "sim/trace/schema.h"
#include "sim/trace/trace_read.h"
#include "tests/fuzz/fuzz.h"

static void check(int rc, const WkError *err)
{
    if (rc > 0 || (rc < 0 && (err->code != rc || !err->msg[0])))
        abort();
}

/* Every column a compare or plot reads, through the column reader of the
 * open trace r (closed here). */
static void read_columns(WkTraceRead *r)
{
    static const char *const cols[][2] = {
        {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_SUBMIT},       {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_GPUS},
        {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_STATUS},       {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_ETTR},
        {WK_SCHEMA_CLUSTER, WK_SCHEMA_CLUSTER_TIME},  {WK_SCHEMA_CLUSTER, WK_SCHEMA_CLUSTER_ALLOCATED},
        {WK_SCHEMA_INCIDENTS, WK_SCHEMA_INC_CLASS},   {WK_SCHEMA_INCIDENTS, WK_SCHEMA_INC_RECOVERY},
        {WK_SCHEMA_INCIDENTS, WK_SCHEMA_INC_KIND},    {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_PATH_CLASS},
        {WK_SCHEMA_SWEEP_POINTS, "status"},          {WK_SCHEMA_SWEEP_POINTS, "id"},
        {"nope", "x"},
    };
    WkError err;
    int rc;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        double *v = NULL;
        size_t n = 0;
        wk_error_clear(&err);
        (void)wk_trace_read_has(r, cols[i][0]);
        rc = wk_trace_read_column(r, cols[i][0], cols[i][1], &v, &n, &err);
        check(rc, &err);
        free(v);
    }
    static const char *const strs[] = {"scheduler", "trace", "error", "overrides"};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        char **v = NULL;
        size_t n = 0;
        wk_error_clear(&err);
        rc = wk_trace_read_column_str(r, WK_SCHEMA_SWEEP_POINTS, strs[i], &v, &n, &err);
        check(rc, &err);
        free(v);
    }
    char *s = NULL;
    wk_error_clear(&err);
    rc = wk_trace_read_attr_str(r, WK_SCHEMA_ATTR_SCENARIO, &s, &err);
    check(rc, &err);
    free(s);
    int64_t i64 = 0;
    wk_error_clear(&err);
    rc = wk_trace_read_attr_i64(r, WK_SCHEMA_ATTR_SEED, &i64, &err);
    check(rc, &err);
    wk_trace_read_close(r);
}

/* `wanka report paper-sci` with the file in every role. */
static void report(const char *path)
{
    WkReportInputs in = {.baseline = path, .sci = path, .throttle = path, .throttle_naive = path,
                         .throttle_baseline = path};
    WkError err;
    wk_error_clear(&err);
    WkReport *rep = NULL;
    int rc = wk_report_load(&rep, "paper-sci", &in, &err);
    check(rc, &err);
    if (rc == 0)
        for (int f = WK_REPORT_TEXT; f <= WK_REPORT_CSV; f++)
            free(wk_report_render(rep, (WkReportFormat)f));
    wk_report_free(rep);
}

/* `wanka sweep-merge` of the file as the one shard, into a scratch file. */
static void sweep_merge(const char *path)
{
    WkError err;
    wk_error_clear(&err);
    WkSweepIndex *ix = NULL;
    int rc = wk_sweep_index_read(&ix, path, &err);
    check(rc, &err);
    wk_sweep_index_free(ix);
    if (rc < 0)
        return;
    char out[300];
    snprintf(out, sizeof out, "%s.merged.h5", path);
    size_t missing = 0, failed = 0;
    wk_error_clear(&err);
    const char *paths[1] = {path};
    rc = wk_sweep_index_merge(paths, 1, out, &missing, &failed, &err);
    check(rc, &err);
    unlink(out);
}

/* Both exports of the trace at path: 0 or an error with a message, and
 * nothing left behind. */
static void exports(const char *path)
{
    static const char *const files[] = {"jobs.csv", "incidents.csv", "timeseries.csv", "summary.csv", "run.csv"};
    char out[4096], f[4200];
    WkError err;
    snprintf(out, sizeof out, "%s.json", path);
    wk_error_clear(&err);
    check(wk_export_chrome(path, out, &(WkExportOpts){.max_tracks = 4}, NULL, &err), &err);
    unlink(out);
    snprintf(out, sizeof out, "%s.csv", path);
    wk_error_clear(&err);
    check(wk_export_csv(path, out, NULL, &err), &err);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(f, sizeof f, "%s/%s", out, files[i]);
        unlink(f);
    }
    rmdir(out);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("WANKA_TRACE_PROBE", "0", 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = wk_fuzz_file(data, size, ".h5");
    if (!path)
        abort();
    /* Every reader below starts with this open and its checks of the whole
     * file (wk_trace_read_open): an input it refuses is refused the same way
     * by each of them, so it is opened once, not a dozen times (most
     * mutations of an HDF5 file end here). */
    WkError err;
    wk_error_clear(&err);
    WkTraceRead *r = NULL;
    int rc = wk_trace_read_open(&r, path, &err);
    check(rc, &err);
    if (rc < 0)
        return 0;
    read_columns(r);
    WkCompare *c = NULL;
    const char *paths[2] = {path, path};
    wk_error_clear(&err);
    rc = wk_compare_load(&c, paths, 2, 1, &err);
    check(rc, &err);
    if (rc == 0) {
        for (int f = WK_COMPARE_TEXT; f <= WK_COMPARE_LATEX; f++)
            free(wk_compare_render(c, (WkCompareFormat)f));
        exports(path);
    }
    wk_compare_free(c);
    report(path);
    sweep_merge(path);
    return 0;
}
