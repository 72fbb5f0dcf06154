/* SPDX-License-Identifier: Apache-2.0 */
/* conform_mixed.c — the mixed-memory conformance check (conform_impl.h): a
 * cluster of two GPU memory sizes, the small group listed first, and model
 * jobs that fit only the large group among plain jobs that fit anywhere. The
 * policy runs behind the guard (stopping a running job every few releases,
 * so restarts are placed again); the run refuses any start on a GPU whose
 * memory cannot hold the job (wk_sched_start), so a run that completes never
 * placed one there. Then every job must have completed, and the large jobs'
 * last GPUs must all be in the large group. */
#include "models/sched/conform/conform_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A100 with 40 GB (37.3 GiB) first, H200 (141 GB) second. llama3-8b on 8 or
 * 16 GPUs needs 75.1 GiB per GPU: only the H200 group (GPUs 16..31) holds
 * it. Plain jobs keep the large group busy at times, so a large job must
 * wait for it while small GPUs are free. */
static const char *const mixed_mem =
    "name: mixed-memory\n"
    "seed: 7\n"
    "cluster:\n"
    "  skus:\n"
    "    - {name: A100-SXM-40G, base: A100-SXM-80G, hbm_gb: 40}\n"
    "  groups:\n"
    "    - {name: small, sku: A100-SXM-40G, nodes: 2, gpus_per_node: 8}\n"
    "    - {name: big, sku: H200-SXM, nodes: 2, gpus_per_node: 8}\n"
    "workload:\n"
    "  source: inline\n"
    "  jobs:\n"
    "    - {submit: 0, gpus: 8, duration: 20m}\n"
    "    - {submit: 0, gpus: 16, duration: 10m}\n"
    "    - {submit: 1m, gpus: 8, model: llama3-8b, iterations: 30}\n"
    "    - {submit: 2m, gpus: 4, duration: 15m}\n"
    "    - {submit: 3m, gpus: 16, model: llama3-8b, iterations: 20}\n"
    "    - {submit: 4m, gpus: 2, duration: 5m}\n"
    "    - {submit: 5m, gpus: 8, duration: 30m}\n"
    "    - {submit: 6m, gpus: 8, model: llama3-8b, iterations: 30}\n"
    "    - {submit: 7m, gpus: 1, duration: 1m}\n";

#define SMALL_GPUS 16u /* GPUs 0..15 are the small group's */

/* Record why the check failed (the first reason wins); returns 1. */
static int fail(char *msg, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(char *msg, size_t n, const char *fmt, ...)
{
    if (n && !msg[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, n, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* Every job completed; a model job's last GPUs are all in the big group. */
static int verdict(const char *name, WkRun *r, const Guard *g, char *msg, size_t n)
{
    if (g->bad)
        return fail(msg, n, "%s on mixed-memory: %s", name, g->msg);
    const WkWorkload *wl = wk_run_hooks_workload(r);
    for (uint32_t j = 0; j < wl->n; j++) {
        WkRunJobView v = wk_run_hooks_job(r, j);
        if (v.state != WK_JOB_COMPLETED)
            return fail(msg, n, "%s on mixed-memory: job %u ends %s", name, j,
                        v.state == WK_JOB_QUEUED     ? "waiting (never started)"
                        : v.state == WK_JOB_REJECTED ? "rejected, though the large group holds it"
                                                     : "unfinished");
        for (uint32_t k = 0; wl->jobs[j].model && v.gpus && k < v.ngpus; k++)
            if (v.gpus[k] < SMALL_GPUS)
                return fail(msg, n, "%s on mixed-memory: job %u (fits only the large group) ran on GPU %u of the "
                                    "small group",
                            name, j, v.gpus[k]);
    }
    return 0;
}

int wk_conform_check_mixed(const char *name, const char *const *plugins, size_t nplugins, char *msg, size_t n,
                           WkError *err)
{
    size_t len = strlen(mixed_mem) + strlen(name) + 32;
    char *y = malloc(len);
    if (!y)
        return wk_error_nomem(err, "conformance scenario");
    snprintf(y, len, "%sscheduler: \"%s\"\n", mixed_mem, name);
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    WkRunOpts o = {.plugins = plugins, .nplugins = nplugins};
    WkError e;
    wk_error_clear(&e);
    int rc = wk_doc_load_string(&doc, "conformance.yaml", y, strlen(y), &e);
    free(y);
    if (rc == WK_E_NOMEM) {
        rc = wk_error_nomem(err, "conformance scenario");
        goto out;
    }
    if (rc < 0 || (rc = wk_run_prepare(&run, doc, &o, &e)) < 0) {
        rc = fail(msg, n, "%s on mixed-memory: prepare failed: %s%s%s", name, e.where, e.where[0] ? ": " : "",
                  e.msg);
        goto out;
    }
    Guard *g = wk_conform_guard_new(run, 3);
    if (!g) {
        rc = wk_error_nomem(err, "conformance guard");
        goto out;
    }
    wk_conform_guard_install(g, run);
    if ((rc = wk_run_execute(run, &e)) != 0)
        rc = fail(msg, n, "%s on mixed-memory: run failed: %s%s%s%s%s", name, e.where, e.where[0] ? ": " : "", e.msg,
                  g->bad ? "; first violation: " : "", g->bad ? g->msg : "");
    else
        rc = verdict(name, run, g, msg, n);
out:
    wk_run_free(run);
    wk_doc_free(doc);
    return rc;
}
