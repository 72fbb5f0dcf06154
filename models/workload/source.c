/* SPDX-License-Identifier: Apache-2.0 */
/* source.c — the registry of built-in workload sources and the loader that
 * looks `workload.source` up and runs it. Sits above the sources, which use
 * only the job-array helpers of workload.c. */
#include "models/workload/workload.h"

#include <stdio.h>
#include <string.h>

static const WkWorkloadSource *const sources[] = {
    &wk_workload_inline,
    &wk_workload_synthetic,
    &wk_workload_philly,
    NULL,
};

const WkWorkloadSource *const *wk_workload_sources(void) { return sources; }

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
