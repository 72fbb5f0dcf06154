/* SPDX-License-Identifier: Apache-2.0 */
/* cluster.h — the cluster's shape for the skeleton: N nodes x G GPUs of one
 * SKU, grouped in pods of P nodes. GPU g lives on node g / G, node n in pod
 * n / P. The fabric, SKU mixes and per-GPU state arrive with the hardware
 * model; this module only parses and describes the shape. */
#ifndef WK_TOPO_CLUSTER_H
#define WK_TOPO_CLUSTER_H

#include <stdint.h>

#include "models/gpu/catalog.h"
#include "sim/error.h"
#include "sim/node.h"

#define WK_CLUSTER_MAX_GPUS UINT32_C(4000000)

typedef struct WkCluster {
    const WkGpuSku *sku;     /* borrowed from the catalog */
    uint32_t nodes;          /* compute nodes */
    uint32_t gpus_per_node;  /* GPUs per node (one NVSwitch domain) */
    uint32_t nodes_per_pod;  /* nodes per pod / scalable unit */
    uint32_t gpus;           /* nodes * gpus_per_node */
    uint32_t pods;           /* ceil(nodes / nodes_per_pod) */
} WkCluster;

/** Read the `cluster:` section (a map: sku, nodes, gpus_per_node,
 * nodes_per_pod) into *out. Errors name file:line:col and the key: unknown
 * keys, unknown SKU (listing the known ones), sizes < 1 or absurd (more than
 * WK_CLUSTER_MAX_GPUS GPUs). Returns 0 or WK_E_INVAL / WK_E_RANGE. */
int wk_cluster_parse(const WkNode *section, WkCluster *out, WkError *err);

/** Node of a GPU. */
static inline uint32_t wk_cluster_node_of(const WkCluster *c, uint32_t gpu)
{
    return gpu / c->gpus_per_node;
}

/** Pod of a GPU. */
static inline uint32_t wk_cluster_pod_of(const WkCluster *c, uint32_t gpu)
{
    return gpu / c->gpus_per_node / c->nodes_per_pod;
}

#endif
