/* SPDX-License-Identifier: Apache-2.0 */
/* batch.c — independent runs in parallel with OpenMP (dynamic schedule, one
 * job at a time), each on its own copy of the scenario; trace writing and
 * progress callbacks in critical sections. The one file with OpenMP pragmas. */
#include "sim/batch/batch.h"

#include <stdlib.h>
#include <string.h>

#include "models/network/sim.h"
#include "sim/scenario/compose.h"
#include "wk_config.h"

#if WK_HAVE_OPENMP
#include <omp.h>
#endif

/* Copy, put, prepare, execute, summarize, write: the job's whole life. */
static void run_one(WkBatchJob *j)
{
    WkDoc *doc = NULL;
    WkSim *run = NULL;
    wk_error_clear(&j->err);
    memset(&j->sum, 0, sizeof j->sum);
    j->interrupted = 0;
    j->rc = 0;
    if (j->opts.interrupt && *j->opts.interrupt) { /* stopping: start nothing new */
        j->interrupted = 1;
        return;
    }
    WkRunOpts o = j->opts;
    o.progress = NULL;
    o.progress_user = NULL;
    int rc = wk_compose_copy(&doc, j->base, &j->err);
    for (size_t i = 0; rc == 0 && i < j->nputs; i++)
        rc = wk_compose_put(doc, j->puts[i].path, j->puts[i].value, &j->err);
    if (rc == 0)
        rc = wk_sim_prepare(&run, doc, &o, &j->err);
    if (rc == 0 && !j->prepare_only) {
        rc = wk_sim_execute(run, &j->err);
        if (rc == 0 && wk_sim_interrupted(run)) { /* no summary, no trace of a cut-short run */
            j->interrupted = 1;
            j->rc = 0;
            wk_sim_free(run);
            wk_doc_free(doc);
            return;
        }
        if (rc == 0)
            rc = wk_sim_summary(run, &j->sum, &j->err);
        if (rc == 0 && j->trace) {
#if WK_HAVE_OPENMP
#pragma omp critical(wk_hdf5)
#endif
            rc = wk_sim_write_trace(run, j->trace, &j->err);
        }
    }
    if (rc < 0 && j->err.code == 0)
        wk_error_set(&j->err, rc, NULL, 0, 0, "%s", wk_error_code_name(rc));
    j->rc = rc;
    wk_sim_free(run);
    wk_doc_free(doc);
}

int wk_batch_default_threads(void)
{
#if WK_HAVE_OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

size_t wk_batch_run(WkBatchJob *jobs, size_t n, int threads, WkBatchProgressFn progress, void *user)
{
    size_t done = 0, failed = 0;
    if (threads <= 0)
        threads = wk_batch_default_threads();
    long count = (long)n;
#if WK_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
#endif
    for (long i = 0; i < count; i++) {
        run_one(&jobs[i]);
#if WK_HAVE_OPENMP
#pragma omp critical(wk_batch_progress)
#endif
        {
            done++;
            failed += jobs[i].rc != 0;
            if (progress)
                progress(user, done, failed, n);
        }
    }
    (void)threads;
    return failed;
}

size_t wk_batch_run_each(size_t n, int threads, WkBatchMakeFn make, WkBatchTakeFn take, void *user,
                         WkBatchProgressFn progress, void *progress_user)
{
    size_t done = 0, failed = 0;
    if (threads <= 0)
        threads = wk_batch_default_threads();
    long count = (long)n;
#if WK_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
#endif
    for (long i = 0; i < count; i++) {
        WkBatchJob *j = calloc(1, sizeof *j); /* ~110 KB (its summary): on the heap, not a thread's stack */
        int bad;
        if (!j) {
            WkBatchJob oom;
            memset(&oom, 0, sizeof oom);
            oom.rc = wk_error_nomem(&oom.err, "batch");
            take(user, (size_t)i, &oom);
            bad = 1;
        } else {
            int rc = make(user, (size_t)i, j);
            if (rc < 0) {
                j->rc = rc;
                if (j->err.code == 0)
                    wk_error_set(&j->err, rc, NULL, 0, 0, "%s", wk_error_code_name(rc));
            } else {
                run_one(j);
            }
            bad = j->rc != 0;
            take(user, (size_t)i, j);
            free(j);
        }
#if WK_HAVE_OPENMP
#pragma omp critical(wk_batch_progress)
#endif
        {
            done++;
            failed += bad;
            if (progress)
                progress(progress_user, done, failed, n);
        }
    }
    (void)threads;
    return failed;
}
