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

/* Storage nodes (`cluster.storage`): `nodes` servers of a parallel file
 * system, `per_leaf` to a storage leaf of their own, each leaf cabled to the
 * fabric's top tier (the spines with 2 tiers, the cores with 3) by a
 * non-blocking bundle of per_leaf x the node's bandwidth. Their physical link
 * ids follow the fabric's: node s's cable to its leaf at first_link + s, leaf
 * l's bundle at first_link + nodes + l. nodes = 0: none (then nothing of the
 * run differs from a cluster without the section). */
typedef struct WkStorage {
    uint32_t nodes;            /* storage nodes; 0 = none */
    uint32_t per_leaf;         /* storage nodes per storage leaf */
    uint32_t leaves;           /* ceil(nodes / per_leaf) */
    double nic_bytes_per_s;    /* one storage node, all its ports, per direction */
    uint64_t first_link;       /* wk_fabric_link_ids of the fabric */
    uint32_t priority;         /* `sharing`: 0 fair (one max-min network with
                                * the rings), 1 priority (the rings first,
                                * storage on what they leave) */
    uint32_t reads;            /* `dataset_reads`: 1 = a model job reads its
                                * training data from the storage nodes while
                                * it computes (docs/models.md), 0 = not */
} WkStorage;

#define WK_STORAGE_MAX_NODES 65536

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
    uint32_t *gpu_domain;    /* [gpus] NVLink domain of each GPU (wk_cluster_nvlink_domain) */
    uint32_t *gpu_nic;       /* [gpus] fabric NIC of each GPU (wk_cluster_nic_of) */
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
    WkStorage storage;       /* nodes 0 when absent */
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
 * consecutive runs of nvlink_gpus GPUs). A table look-up. */
static inline uint32_t wk_cluster_nvlink_domain(const WkCluster *c, uint32_t gpu) { return c->gpu_domain[gpu]; }

/** The fabric NIC a GPU sends through: on a rail fabric the pod-aligned
 * slot pod * nodes_per_pod * rails + node_in_pod * rails + local_gpu %
 * rails, otherwise node * rails + local_gpu % rails. A table look-up. */
static inline uint32_t wk_cluster_nic_of(const WkCluster *c, uint32_t gpu) { return c->gpu_nic[gpu]; }

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

/** Read `cluster.storage` (sec NULL or null: none) into c->storage; the
 * fabric must be parsed first (storage needs one). Keys: nodes (1 ..
 * WK_STORAGE_MAX_NODES, required), nic_gbps (per storage node, default 800),
 * dataset_reads (bool, default false),
 * sharing (fair, the default, or priority),
 * nodes_per_leaf (1 .. the fabric's radix / 2, default 8). Errors name the
 * key's position. Returns 0 or a negative WK_E_*. */
int wk_storage_parse(const WkNode *sec, WkCluster *c, WkError *err);

/** Directed link ids of the cluster's flow networks: 2 x (the fabric's
 * physical link ids + the storage links). */
uint64_t wk_cluster_flow_links(const WkCluster *c);

/** Capacity (bytes/s, per direction) of a storage link: phys in
 * [first_link, first_link + nodes + leaves); 0 for any other id. */
double wk_storage_capacity(const WkCluster *c, uint64_t phys);

/** The directed links of a flow from fabric NIC nic to storage node s
 * (write: up the fabric to its top tier, down the storage leaf's bundle and
 * the node's cable), ECMP choices by hash of (nic, key); read = 1 reverses
 * every link (storage to NIC). out has room for WK_FABRIC_MAX_HOPS; returns
 * the count. Needs a fabric and s < c->storage.nodes. */
int wk_storage_path(const WkCluster *c, uint32_t nic, uint32_t s, uint64_t key, int read, WkLinkId *out);

/** Set a GPU's health and clock factor (clock in (0, 1]; forced to 1 for UP). */
void wk_cluster_set_state(WkCluster *c, uint32_t gpu, WkGpuHealth health, float clock);

/** Power of the network: switch ports x switch_port_w + optics x optic_w, W. */
double wk_cluster_network_w(const WkCluster *c);

/** Facility power (W, PUE included) with every GPU at the given activity and
 * its current health/clock. activity 0 = idle cluster, 1 = all busy. */
double wk_cluster_power_at(const WkCluster *c, double activity);

#endif
