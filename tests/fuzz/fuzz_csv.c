/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_csv.c — libFuzzer target for the Philly CSV importer: arbitrary bytes
 * become the trace file of a two-node scenario with `source: philly`, which
 * wk_run_prepare reads and checks. Any input must end in 0 or a WK_E_* error
 * with a message — never a crash, a hang or unbounded memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/node.h"
#include "models/run/run.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = wk_fuzz_file(data, size, ".csv");
    if (!path)
        abort(); /* the harness itself failed: not a finding in wanka */
    char yaml[512];
    int len = snprintf(yaml, sizeof yaml,
                       "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload: {source: philly, trace: \"%s\"}\n", path);
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
    return 0;
}
