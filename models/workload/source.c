/* SPDX-License-Identifier: Apache-2.0 */
/* source.c — the registry of built-in workload sources and the loader that
 * looks `workload.source` up and runs it. Sits above the sources, which use
 * only the job-array helpers of workload.c. */
#include "models/workload/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const WkWorkloadSource *const sources[] = {
    &wk_workload_inline,
    &wk_workload_synthetic,
    &wk_workload_philly,
    &wk_workload_swf,
    &wk_workload_alibaba,
    &wk_workload_csv,
    NULL,
};

const WkWorkloadSource *const *wk_workload_sources(void) { return sources; }

/* `comm: {allreduce_gb: G, compute: T}`: every plain job all-reduces G GB per
 * GPU after T of compute, each iteration. */
static int read_comm(const WkNode *sec, WkWorkload *w, WkError *err)
{
    static const char *const known[] = {"allreduce_gb", "compute", NULL};
    const WkNode *cn = wk_node_get(sec, "comm");
    if (!cn || cn->type == WK_NODE_NULL)
        return 0;
    double gb = 0;
    WkTime t = 0;
    int rc;
    if ((rc = wk_node_expect_keys(cn, known, err)) < 0 ||
        (rc = wk_node_double(cn, "allreduce_gb", 1, 1e-6, 1e6, &gb, err)) < 0 ||
        (rc = wk_node_duration(cn, "compute", 1, 1000, WK_NS_PER_DAY, &t, err)) < 0)
        return rc;
    w->comm_bytes = gb * 1e9;
    w->comm_compute_s = wk_time_to_s(t);
    return 0;
}

/* `quotas:` gpu_time, or {user: GPUs, ...} (docs/scenarios.md, "Quotas"). */
static int read_quotas(const WkNode *sec, WkWorkload *w, WkError *err)
{
    const WkNode *qn = wk_node_get(sec, "quotas");
    if (!qn || qn->type == WK_NODE_NULL)
        return 0;
    if (qn->type == WK_NODE_SCALAR && strcmp(qn->str, "none") == 0)
        return 0;
    if (!w->nusers)
        return wk_node_error(qn, WK_E_INVAL, err,
                             "no job of this workload has a user, so there is nothing to give a quota to");
    if (qn->type == WK_NODE_SCALAR && strcmp(qn->str, "gpu_time") == 0) {
        w->quota_share = 1;
        return 0;
    }
    if (qn->type != WK_NODE_MAP)
        return wk_node_error(qn, WK_E_INVAL, err, "expected none, gpu_time or a map of user name to GPUs, got '%s'",
                             qn->type == WK_NODE_SCALAR ? qn->str : "a list");
    if (!(w->quota = calloc(w->nusers, sizeof *w->quota)))
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "workload: out of memory");
    for (size_t i = 0; i < qn->nkids; i++) {
        const WkNode *kid = qn->kids[i];
        size_t u = 0;
        while (u < w->nusers && strcmp(w->users[u], kid->key) != 0)
            u++;
        if (u == w->nusers)
            return wk_node_error(kid, WK_E_INVAL, err, "no job of this workload has user '%s'", kid->key);
        int64_t g = 0;
        int rc = wk_node_as_int(kid, 1, WK_JOB_MAX_GPUS, &g, err);
        if (rc < 0)
            return rc;
        w->quota[u] = (uint32_t)g;
    }
    return 0;
}

int wk_workload_load(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err)
{
    memset(out, 0, sizeof *out);
    if (!sec)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "workload: missing required section");
    const char *name = NULL;
    int rc = wk_node_str(sec, "source", 1, &name, err);
    if (rc < 0)
        return rc;
    for (size_t i = 0; sources[i]; i++) {
        if (strcmp(sources[i]->name, name) == 0) {
            rc = sources[i]->load(sec, ctx, out, err);
            if (rc == 0)
                rc = read_comm(sec, out, err);
            if (rc == 0)
                rc = read_quotas(sec, out, err);
            if (rc == 0)
                rc = wk_node_bool(sec, "gpu_sharing", 0, &out->gpu_sharing, err);
            if (rc == 0) {
                int sku_speed = 1;
                rc = wk_node_bool(sec, "sku_speed", 0, &sku_speed, err);
                out->same_speed = !sku_speed;
            }
            if (rc < 0)
                wk_workload_fini(out);
            return rc;
        }
    }
    char known[256] = "";
    size_t used = 0;
    for (size_t i = 0; sources[i] && used < sizeof known; i++)
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", sources[i]->name);
    return wk_node_error(wk_node_get(sec, "source"), WK_E_NOTFOUND, err,
                         "unknown workload source '%s' (known: %s)", name, known);
}
