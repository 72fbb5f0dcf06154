/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_trace.c — libFuzzer target for the trace reader behind `wanka compare`
 * and `wanka export`: arbitrary bytes become a .h5 file that wk_compare_load
 * reads and every format renders, whose tables wk_trace_read_column reads,
 * and which both exports write (then removed). Any input must
 * end in 0 or a WK_E_* error with a message. Crashes inside HDF5 itself are
 * HDF5's (docs/limits.md says what a malformed trace can do). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/export.h"
#include "sim/trace/schema.h"
#include "sim/trace/trace_read.h"
#include "tests/fuzz/fuzz.h"

static void check(int rc, const WkError *err)
{
    if (rc > 0 || (rc < 0 && (err->code != rc || !err->msg[0])))
        abort();
}

/* Every column a compare or plot reads, through the column reader. */
static void read_columns(const char *path)
{
    static const char *const cols[][2] = {
        {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_SUBMIT},       {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_GPUS},
        {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_STATUS},       {WK_SCHEMA_JOBS, WK_SCHEMA_JOB_ETTR},
        {WK_SCHEMA_CLUSTER, WK_SCHEMA_CLUSTER_TIME},  {WK_SCHEMA_CLUSTER, WK_SCHEMA_CLUSTER_ALLOCATED},
        {WK_SCHEMA_INCIDENTS, WK_SCHEMA_INC_CLASS},   {WK_SCHEMA_INCIDENTS, WK_SCHEMA_INC_RECOVERY},
        {"nope", "x"},
    };
    WkError err;
    wk_error_clear(&err);
    WkTraceRead *r = NULL;
    int rc = wk_trace_read_open(&r, path, &err);
    check(rc, &err);
    if (rc < 0)
        return;
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        double *v = NULL;
        size_t n = 0;
        wk_error_clear(&err);
        (void)wk_trace_read_has(r, cols[i][0]);
        rc = wk_trace_read_column(r, cols[i][0], cols[i][1], &v, &n, &err);
        check(rc, &err);
        free(v);
    }
    char *s = NULL;
    wk_error_clear(&err);
    rc = wk_trace_read_attr_str(r, WK_SCHEMA_ATTR_SCENARIO, &s, &err);
    check(rc, &err);
    free(s);
    wk_trace_read_close(r);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = wk_fuzz_file(data, size, ".h5");
    if (!path)
        abort();
    WkError err;
    wk_error_clear(&err);
    WkCompare *c = NULL;
    const char *paths[2] = {path, path};
    int rc = wk_compare_load(&c, paths, 2, 1, &err);
    check(rc, &err);
    if (rc == 0) {
        for (int f = WK_COMPARE_TEXT; f <= WK_COMPARE_LATEX; f++)
            free(wk_compare_render(c, (WkCompareFormat)f));
        read_columns(path);
        exports(path);
    }
    wk_compare_free(c);
    return 0;
}
