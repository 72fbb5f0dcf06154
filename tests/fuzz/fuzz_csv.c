/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_csv.c — libFuzzer target for the CSV readers: arbitrary bytes become
 * the trace file of a two-node scenario with `source: philly`, with
 * `source: csv` under two mappings (dates, quotes, skips; '|', ms, hms,
 * end - start, kind, priority) and with `workload.quotas`, and the price
 * and carbon series of a scenario's `facility: {prices: FILE}`, which
 * wk_run_prepare reads and checks. Any input must end in 0 or a WK_E_*
 * error with a message — never a crash, a hang or unbounded memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/node.h"
#include "models/run/run.h"
#include "tests/fuzz/fuzz.h"

/* Prepare the scenario yaml (len bytes); abort on a result that is not 0
 * or a WK_E_* code with a message. */
static void prepare(const char *yaml, int len)
{
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    int rc = wk_doc_load_string(&doc, "fuzz.yaml", yaml, (size_t)len, &err);
    if (rc != 0)
        abort();
    rc = wk_run_prepare(&run, doc, NULL, &err);
    if (rc > 0 || (rc < 0 && (err.code != rc || !err.msg[0])))
        abort();
    wk_run_free(run);
    wk_doc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = wk_fuzz_file(data, size, ".csv");
    if (!path)
        abort(); /* the harness itself failed: not a finding in wanka */
    char yaml[768];
    int len = snprintf(yaml, sizeof yaml,
                       "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload: {source: philly, trace: \"%s\"}\n", path);
    prepare(yaml, len);
    /* the generic mapping over the same columns */
    static const char *const maps[] = {
        "{source: csv, trace: \"%s\", submit: {column: timestamp, unit: datetime}, duration: duration,"
        " gpus: num_gpus, user: cluster, skip: [no_gpus, missing], quotas: gpu_time}",
        "{source: csv, trace: \"%s\", delimiter: '|', submit: {column: gpu_time, unit: ms},"
        " start: {column: timestamp, unit: datetime, format: '%%Y-%%m-%%dT%%H:%%M:%%S.%%f'},"
        " end: {column: duration, unit: datetime, format: '%%Y-%%m-%%dT%%H:%%M:%%S'}, gpus: num_gpus,"
        " kind: cluster, priority: num_gpus}",
        "{source: csv, trace: \"%s\", submit: timestamp, duration: {column: duration, unit: hms}, gpus: num_gpus}",
    };
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        char wl[512];
        snprintf(wl, sizeof wl, maps[i], path);
        len = snprintf(yaml, sizeof yaml, "cluster: {nodes: 2, gpus_per_node: 8}\nworkload: %s\n", wl);
        prepare(yaml, len);
    }
    /* the series: covering a run end, repeated, and checked only at the end */
    static const char *const facility[] = {
        "sim: {end: 2d}\nfacility: {prices: \"%s\"}\n",
        "facility: {prices: \"%s\", prices_repeat: true}\n",
        "facility: {prices: \"%s\"}\n",
    };
    for (size_t i = 0; i < sizeof facility / sizeof facility[0]; i++) {
        char tail[512];
        snprintf(tail, sizeof tail, facility[i], path);
        len = snprintf(yaml, sizeof yaml,
                       "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}\n%s", tail);
        prepare(yaml, len);
    }
    return 0;
}
