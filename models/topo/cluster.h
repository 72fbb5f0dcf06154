/* SPDX-License-Identifier: Apache-2.0 */
/* cluster.h — the physical cluster: node groups (each its own SKU, count and
 * GPUs per node, heterogeneous clusters mix them), pods (scalable units; a
 * group always starts a new pod, so a pod holds one SKU), NVLink domains
 * (a node, or a rack of several nodes such as NVL72), the inter-node fabric
 * (models/topo/fabric.h), per-GPU dynamic state (health, clock factor), and
 * the power spec. Every component has an id: GPU g, node n, NIC, link,
 * leaf/spine/core switch (fabric numbering). */
#ifndef WK_TOPO_CLUSTER_H
#define WK_TOPO_CLUSTER_H

#include <stdint.h>

#include "models/gpu/catalog.h"
#include "models/gpu/dvfs.h"
#include "models/gpu/power.h"
#include "models/topo/fabric.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"

#define WK_CLUSTER_MAX_GPUS UINT32_C(4000000)
#define WK_CLUSTER_MAX_GROUPS 256

typedef struct WkNodeGroup {
    const char *name;        /* `name:` or the SKU name (borrowed) */
    const WkGpuSku *sku;     /* into the cluster's catalog */
    uint32_t nodes;          /* nodes in the group */
    uint32_t gpus_per_node;  /* GPUs per node */
    uint32_t nvlink_gpus;    /* GPUs per NVLink domain (a multiple of gpus_per_node) */
    uint32_t first_node, first_gpu, first_pod, first_domain;
    uint32_t pods;           /* ceil(nodes / nodes_per_pod) */
    double cap_w;            /* `power_cap_w` (or cluster.power.cap_w), W; 0 = none */
    double clock_mhz;        /* `clock_mhz` (or cluster.power.clock_mhz); 0 = none */
    double cap_clock;        /* SM clock factor of a busy GPU under cap_w and clock_mhz, (0, 1] */
    double floor_clock;      /* lowest clock factor a cap may drive it to (wk_dvfs_floor) */
    const WkDvfs *dvfs;      /* its SKU's DVFS figures (static) */
} WkNodeGroup;

typedef struct WkCluster {
    WkGpuCatalog catalog;    /* built-ins + scenario SKUs (owned) */
    WkNodeGroup *groups;     /* owned */
    uint32_t ngroups;
    uint32_t nodes, gpus, pods;
    uint32_t nodes_per_pod;
    uint32_t rails;          /* NICs per node slot (fabric rails) */
    const WkGpuSku *sku;     /* the SKU of group 0 (single-SKU conveniences) */
    uint32_t gpus_per_node;  /* of group 0 */
    /* layout (owned arrays) */
    uint32_t *gpu_node;      /* [gpus] node of each GPU */
    uint32_t *node_first_gpu;/* [nodes + 1] */
    uint32_t *node_pod;      /* [nodes] pod of each node */
    uint16_t *node_group;    /* [nodes] group of each node */
    /* dynamic state (owned arrays) */
    uint8_t *health;         /* [gpus] WkGpuHealth */
    float *clock;            /* [gpus] clock factor, 1.0 nominal */
    double site_clock;       /* SM clock factor the facility budget allows busy GPUs, (0, 1]; 1 = no cap */
    int capped;              /* 1 when some group has cap_clock < 1 (then the run keeps clocks exact) */
    int site_capped;         /* 1 while site_clock < 1 or a running job has a policy clock < 1 (an int:
                                checked in hot loops that store doubles) */
    const double *policy_clock; /* [gpus] clock factor the scheduler chose for the job holding each GPU
                                   (1 = none); NULL until a policy chooses one; borrowed from the run */
    uint8_t *node_asleep;    /* [nodes] 1 = powered down (power.sleep_after); NULL when nodes never sleep */
    double *gpu_act;         /* [gpus] activity while busy: busy_activity, or a model job's (power.model_activity) */
    /* network and power */
    WkFabric fabric;         /* kind WK_FABRIC_NONE when absent */
    WkPowerSpec power;
} WkCluster;

/** Read the `cluster:` section into *out (zeroed first; the caller owns it
 * and calls wk_cluster_fini). Either the single-group shorthand (sku, nodes,
 * gpus_per_node, nvlink_domain) or `groups: [...]`, plus nodes_per_pod,
 * skus, fabric and power. Errors name file:line:col and the key: unknown
 * keys, unknown SKU (listing the known), sizes < 1 or absurd, a fabric that
 * cannot hold the cluster. Returns 0 or a negative WK_E_*. */
int wk_cluster_parse(const WkNode *section, WkCluster *out, WkError *err);

/** Release what wk_cluster_parse allocated. */
void wk_cluster_fini(WkCluster *c);

/** Node of a GPU. */
static inline uint32_t wk_cluster_node_of(const WkCluster *c, uint32_t gpu) { return c->gpu_node[gpu]; }

/** Pod of a GPU. */
static inline uint32_t wk_cluster_pod_of(const WkCluster *c, uint32_t gpu) { return c->node_pod[c->gpu_node[gpu]]; }

/** Node group of a GPU. */
static inline const WkNodeGroup *wk_cluster_group_of(const WkCluster *c, uint32_t gpu)
{
    return &c->groups[c->node_group[c->gpu_node[gpu]]];
}

/** SKU of a GPU. */
static inline const WkGpuSku *wk_cluster_sku_of(const WkCluster *c, uint32_t gpu)
{
    return wk_cluster_group_of(c, gpu)->sku;
}

/** SM clock factor of GPU gpu when busy: its group's cap clock, lowered to
 * the facility's site clock and to the clock the scheduler chose for its
 * job (never below the group's floor). 1 uncapped. */
static inline double wk_cluster_cap_clock(const WkCluster *c, uint32_t gpu)
{
    const WkNodeGroup *g = wk_cluster_group_of(c, gpu);
    double f = g->cap_clock < c->site_clock ? g->cap_clock : c->site_clock;
    if (c->policy_clock && c->policy_clock[gpu] < f)
        f = c->policy_clock[gpu];
    return f > g->floor_clock ? f : g->floor_clock;
}

/** Normalised dynamic power of a busy GPU at its cap clock (g(f) of
 * models/gpu/dvfs.h; exactly 1 uncapped). */
static inline double wk_cluster_cap_power(const WkCluster *c, uint32_t gpu)
{
    double f = wk_cluster_cap_clock(c, gpu);
    return f < 1 ? wk_dvfs_power_frac(wk_cluster_group_of(c, gpu)->dvfs, f) : 1.0;
}

/** NVLink domain of a GPU: a cluster-wide index (domains of a group are
 * consecutive runs of nvlink_gpus GPUs). */
uint32_t wk_cluster_nvlink_domain(const WkCluster *c, uint32_t gpu);

/** The fabric NIC a GPU sends through: pod-aligned slot
 * pod * nodes_per_pod * rails + node_in_pod * rails + local_gpu % rails. */
uint32_t wk_cluster_nic_of(const WkCluster *c, uint32_t gpu);

/** The GPUs of gpu's node that send through its NIC (gpu included), in
 * order, into out (room for the node's GPUs); returns their count. */
uint32_t wk_cluster_nic_gpus(const WkCluster *c, uint32_t gpu, uint32_t *out);

/** Leaf switch of a GPU's NIC (0 without a fabric). */
uint32_t wk_cluster_leaf_of(const WkCluster *c, uint32_t gpu);

/** Path class between two GPUs: WK_PATH_LOCAL when they share an NVLink
 * domain (no fabric links), else the fabric's class of their NICs. */
WkPathClass wk_cluster_path_class(const WkCluster *c, uint32_t a, uint32_t b);

/** Directed fabric links crossed by a flow from GPU a to GPU b (0 when they
 * share an NVLink domain); out has room for WK_FABRIC_MAX_HOPS. */
int wk_cluster_path(const WkCluster *c, uint32_t a, uint32_t b, WkLinkId *out);

/** wk_cluster_path with the fabric's equal-cost choices re-drawn by salt
 * (wk_fabric_path_salted; salt 0 = wk_cluster_path). */
int wk_cluster_path_salted(const WkCluster *c, uint32_t a, uint32_t b, uint64_t salt, WkLinkId *out);

/** Set a GPU's health and clock factor (clock in (0, 1]; forced to 1 for UP). */
void wk_cluster_set_state(WkCluster *c, uint32_t gpu, WkGpuHealth health, float clock);

/** Power of the network: switch ports x switch_port_w + optics x optic_w, W. */
double wk_cluster_network_w(const WkCluster *c);

/** Facility power (W, PUE included) with every GPU at the given activity and
 * its current health/clock. activity 0 = idle cluster, 1 = all busy. */
double wk_cluster_power_at(const WkCluster *c, double activity);

#endif
