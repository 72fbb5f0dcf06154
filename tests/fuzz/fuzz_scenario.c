/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_scenario.c — libFuzzer target for the scenario loader: arbitrary bytes
 * are split at lines "%%%" into a top scenario and up to three files a.yaml,
 * b.yaml, c.yaml beside it (so `include:` and its merge, cycles and budgets
 * are reached), parsed as a YAML scenario (wk_doc_load_string), composed
 * (wk_compose_resolve) and, when that works, read and checked as `wanka
 * validate` does (wk_sim_prepare: `models:`, `base:` chains, every section); a small valid
 * scenario is then simulated for at most EVENT_BUDGET events (stopped through
 * the interrupt flag, as Ctrl-C would) and summarized. Any input must end in
 * 0 or a WK_E_* error with a message — never a crash or a hang. */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memmem */
#endif
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <string.h>

#include "sim/scenario/compose.h"
#include "sim/scenario/node.h"
#include "models/network/sim.h"
#include "sim/trace/summary.h"
#include "tests/fuzz/fuzz.h"

#define EVENT_BUDGET (UINT64_C(1) << 17) /* events simulated per input at most */
#define RUN_MAX_GPUS 4096                /* larger clusters are only prepared */
#define RUN_MAX_JOBS 5000

__extension__ typedef unsigned __int128 U128; /* GPU-ns totals */

/* The progress hook (every 2^16 events) raises the interrupt past the budget. */
static void budget(void *user, WkTime now, uint64_t events)
{
    (void)now;
    if (events >= EVENT_BUDGET)
        *(volatile sig_atomic_t *)user = SIGINT;
}

static void check(int rc, const WkError *err)
{
    /* the error convention: a failure is negative and carries a message */
    if (rc > 0 || (rc < 0 && (err->code != rc || !err->msg[0])))
        abort();
}

#define SEP "\n%%%\n" /* separates the top file from a.yaml, b.yaml, c.yaml */

/* Write the parts after the first separator as a.yaml, b.yaml, c.yaml (a
 * missing part: an empty file) and return the length of the top part. */
static size_t split_files(const uint8_t *data, size_t size)
{
    static const char *names[] = {"a.yaml", "b.yaml", "c.yaml"};
    const size_t sl = strlen(SEP);
    size_t top = size, at = size;
    const uint8_t *p = memmem(data, size, SEP, sl);
    if (p) {
        top = (size_t)(p - data);
        at = top + sl;
    }
    for (int i = 0; i < 3; i++) {
        size_t end = size;
        if (at < size) {
            const uint8_t *q = memmem(data + at, size - at, SEP, sl);
            if (q)
                end = (size_t)(q - data);
        }
        size_t len = at < size ? end - at : 0;
        if (wk_fuzz_dir_file(names[i], data + (at < size ? at : 0), len) != 0)
            abort();
        at = end < size ? end + sl : size;
    }
    return top;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkSim *run = NULL;
    volatile sig_atomic_t stop = 0;
    WkRunOpts opts = {.progress = budget, .progress_user = (void *)&stop, .interrupt = &stop};
    size_t top = split_files(data, size);
    int rc = wk_doc_load_string(&doc, "fuzz.yaml", (const char *)data, top, &err);
    if (rc == 0) {
        char *dir = strdup(wk_fuzz_dir());
        if (!dir)
            abort();
        free(doc->dir);
        doc->dir = dir;
        rc = wk_compose_resolve(doc, &err);
    }
    if (rc == 0)
        rc = wk_sim_prepare(&run, doc, &opts, &err);
    check(rc, &err);
    if (rc == 0 && wk_sim_gpus(run) <= RUN_MAX_GPUS && wk_sim_jobs(run) <= RUN_MAX_JOBS) {
        rc = wk_sim_execute(run, &err);
        check(rc, &err);
        WkSummary sum;
        if (rc == 0) {
            rc = wk_sim_summary(run, &sum, &err);
            check(rc, &err);
        }
        if (rc == 0) {
            /* conservation: allocated + idle + down GPU-time is GPUs x the run's length */
            WkRunAccount a;
            wk_sim_account(run, &a);
            U128 alloc = ((U128)a.alloc_hi << 64) | a.alloc_lo;
            U128 idle = ((U128)a.idle_hi << 64) | a.idle_lo;
            U128 down = ((U128)a.down_hi << 64) | a.down_lo;
            if (a.end_ns < 0 || alloc + idle + down != (U128)wk_sim_gpus(run) * (uint64_t)a.end_ns)
                abort();
            free(wk_summary_json(&sum));
        }
    }
    wk_sim_free(run);
    wk_doc_free(doc);
    return 0;
}
