/* SPDX-License-Identifier: Apache-2.0 */
/* cluster.c — parsing the cluster section. */
#include "models/topo/cluster.h"

#include <string.h>

int wk_cluster_parse(const WkNode *sec, WkCluster *out, WkError *err)
{
    static const char *const known[] = {"sku", "nodes", "gpus_per_node", "nodes_per_pod", NULL};
    if (!sec)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "cluster: missing required section");
    int rc = wk_node_expect_keys(sec, known, err);
    if (rc < 0)
        return rc;

    const char *sku = "H100-SXM-80G";
    int64_t nodes = 0, gpn = 8, npp = 32; /* 32 nodes per SU: DGX SuperPOD reference */
    if ((rc = wk_node_str(sec, "sku", 0, &sku, err)) < 0 ||
        (rc = wk_node_int(sec, "nodes", 1, 1, WK_CLUSTER_MAX_GPUS, &nodes, err)) < 0 ||
        (rc = wk_node_int(sec, "gpus_per_node", 0, 1, 1024, &gpn, err)) < 0 ||
        (rc = wk_node_int(sec, "nodes_per_pod", 0, 1, WK_CLUSTER_MAX_GPUS, &npp, err)) < 0)
        return rc;

    const WkGpuSku *s = wk_catalog_find(sku);
    if (!s) {
        char names[512];
        const WkNode *n = wk_node_get(sec, "sku");
        return wk_node_error(n ? n : sec, WK_E_NOTFOUND, err, "unknown GPU SKU '%s' (known: %s)", sku,
                             wk_catalog_names(names, sizeof names));
    }
    if ((uint64_t)nodes * (uint64_t)gpn > WK_CLUSTER_MAX_GPUS)
        return wk_node_error(wk_node_get(sec, "nodes"), WK_E_RANGE, err,
                             "%lld nodes x %lld GPUs is more than %u GPUs", (long long)nodes,
                             (long long)gpn, (unsigned)WK_CLUSTER_MAX_GPUS);
    memset(out, 0, sizeof *out);
    out->sku = s;
    out->nodes = (uint32_t)nodes;
    out->gpus_per_node = (uint32_t)gpn;
    out->nodes_per_pod = (uint32_t)npp;
    out->gpus = (uint32_t)(nodes * gpn);
    out->pods = (uint32_t)((nodes + npp - 1) / npp);
    return 0;
}
