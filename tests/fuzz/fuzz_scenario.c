/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_scenario.c — libFuzzer target for the scenario loader: arbitrary bytes
 * are parsed as a YAML scenario (wk_doc_load_string) and, when they parse,
 * read and checked as `wanka validate` does (wk_run_prepare); a small valid
 * scenario is then simulated for at most EVENT_BUDGET events (stopped through
 * the interrupt flag, as Ctrl-C would) and summarized. Any input must end in
 * 0 or a WK_E_* error with a message — never a crash or a hang. */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim/scenario/node.h"
#include "models/run/run.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    volatile sig_atomic_t stop = 0;
    WkRunOpts opts = {.progress = budget, .progress_user = (void *)&stop, .interrupt = &stop};
    int rc = wk_doc_load_string(&doc, "fuzz.yaml", (const char *)data, size, &err);
    if (rc == 0)
        rc = wk_run_prepare(&run, doc, &opts, &err);
    check(rc, &err);
    if (rc == 0 && wk_run_gpus(run) <= RUN_MAX_GPUS && wk_run_jobs(run) <= RUN_MAX_JOBS) {
        rc = wk_run_execute(run, &err);
        check(rc, &err);
        WkSummary sum;
        if (rc == 0) {
            rc = wk_run_summary(run, &sum, &err);
            check(rc, &err);
        }
        if (rc == 0) {
            /* conservation: allocated + idle + down GPU-time is GPUs x the run's length */
            WkRunAccount a;
            wk_run_account(run, &a);
            U128 alloc = ((U128)a.alloc_hi << 64) | a.alloc_lo;
            U128 idle = ((U128)a.idle_hi << 64) | a.idle_lo;
            U128 down = ((U128)a.down_hi << 64) | a.down_lo;
            if (a.end_ns < 0 || alloc + idle + down != (U128)wk_run_gpus(run) * (uint64_t)a.end_ns)
                abort();
            free(wk_summary_json(&sum));
        }
    }
    wk_run_free(run);
    wk_doc_free(doc);
    return 0;
}
