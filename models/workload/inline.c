/* SPDX-License-Identifier: Apache-2.0 */
/* inline.c — jobs listed in the scenario itself:
 *   workload: {source: inline, jobs: [{submit: 0, gpus: 8, duration: 2h}, ...]}
 * A job may say `kind: hpc` and give `nodes:` instead of `gpus:`, and name its
 * `user:` (docs/metrics.md, "Slowdown and fairness"); a plain 1-GPU job may
 * ask for a share of its GPU (`gpu_milli:`, used with `gpu_sharing: true`). */
#include "models/workload/workload.h"

#include <string.h>

/* `gpu_milli:` a plain 1-GPU job's share of its GPU, 1 to 1000 thousandths
 * (1000: the whole GPU, as without the key). */
static int read_milli(const WkNode *j, WkJobSpec *js, WkError *err)
{
    int64_t m = 0;
    int rc = wk_node_int(j, "gpu_milli", 0, 1, 1000, &m, err);
    if (rc < 0 || m == 0 || m == 1000)
        return rc;
    if (js->gpus != 1 || js->model)
        return wk_node_error(wk_node_get(j, "gpu_milli"), WK_E_INVAL, err,
                             "a share of a GPU is for a plain job of gpus: 1 (this one has %s)",
                             js->model ? "a model" : "more GPUs or nodes");
    js->gpu_milli = (uint16_t)m;
    return 0;
}

static int load(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err)
{
    static const char *const known[] = {"source", "jobs", "comm", "quotas", "gpu_sharing", NULL};
    static const char *const job_keys[] = {"submit", "gpus", "duration", "model", "iterations", "tokens", "priority", "deferrable", "kind", "nodes", "user", "gpu_milli", NULL};
    int rc = wk_node_expect_keys(sec, known, err);
    if (rc < 0)
        return rc;
    const WkNode *jobs = wk_node_get(sec, "jobs");
    if (!jobs || jobs->type != WK_NODE_SEQ)
        return wk_node_error(jobs ? jobs : sec, WK_E_INVAL, err, "%s",
                             jobs ? "expected a sequence of jobs" : "missing required key 'jobs'");
    if (jobs->nkids > WK_WORKLOAD_MAX_JOBS)
        return wk_node_error(jobs, WK_E_RANGE, err, "%zu jobs: at most %d jobs in a workload (docs/limits.md)",
                             jobs->nkids, WK_WORKLOAD_MAX_JOBS);
    for (size_t i = 0; i < jobs->nkids; i++) {
        const WkNode *j = jobs->kids[i];
        WkTime submit = 0, dur = 0;
        int64_t gpus = 0;
        WkJobSpec js = {0};
        if ((rc = wk_node_expect_keys(j, job_keys, err)) < 0 ||
            (rc = wk_node_duration(j, "submit", 0, 0, WK_WORKLOAD_MAX_TIME, &submit, err)) < 0 ||
            (rc = wk_workload_read_kind(out, j, &js, err)) < 0 ||
            (!js.nodes && (rc = wk_node_int(j, "gpus", 1, 1, WK_JOB_MAX_GPUS, &gpus, err)) < 0))
            return rc;
        int64_t prio = 0;
        if ((rc = wk_node_int(j, "priority", 0, -1000000, 1000000, &prio, err)) < 0)
            return rc;
        js.submit = submit;
        js.gpus = (uint32_t)gpus;
        js.priority = (int32_t)prio;
        if ((rc = wk_node_bool(j, "deferrable", 0, &js.deferrable, err)) < 0)
            return rc;
        if ((rc = wk_workload_read_model(out, j, ctx, &js, err)) < 0)
            return rc;
        if (js.model && wk_node_get(j, "duration"))
            return wk_node_error(wk_node_get(j, "duration"), WK_E_INVAL, err,
                                 "a model job's duration follows from its iterations; drop 'duration'");
        if (!js.model && (rc = wk_node_duration(j, "duration", 1, 1, WK_WORKLOAD_MAX_TIME, &dur, err)) < 0)
            return rc;
        js.duration = dur;
        if ((rc = read_milli(j, &js, err)) < 0)
            return rc;
        const char *user = NULL;
        if ((rc = wk_node_str(j, "user", 0, &user, err)) < 0)
            return rc;
        if (user) {
            int u = wk_workload_user(out, user, strlen(user));
            if (u < 0)
                return wk_node_error(wk_node_get(j, "user"), u, err, "%s", wk_workload_user_error(u));
            js.user = (uint32_t)u;
        }
        if (wk_workload_push(out, &js) < 0)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "workload: out of memory");
    }
    return 0;
}

const WkWorkloadSource wk_workload_inline = {
    .abi = WK_WORKLOAD_ABI,
    .name = "inline",
    .description = "jobs listed in the scenario (submit, gpus or nodes, duration or model + iterations/tokens, kind, user)",
    .load = load,
};
