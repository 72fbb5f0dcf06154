/* SPDX-License-Identifier: Apache-2.0 */
/* storage.c — storage nodes on the fabric (see cluster.h, WkStorage): the
 * `cluster.storage` section, their links after the fabric's, and the path
 * of a flow between a compute NIC and a storage node. */
#include "models/topo/cluster.h"

int wk_storage_parse(const WkNode *sec, WkCluster *c, WkError *err)
{
    static const char *const known[] = {"nodes", "nic_gbps", "nodes_per_leaf", "sharing", "dataset_reads", NULL};
    static const char *const sharing[] = {"fair", "priority", NULL};
    WkStorage *s = &c->storage;
    s->nodes = 0;
    s->priority = 0;
    s->reads = 0;
    if (!sec || sec->type == WK_NODE_NULL)
        return 0;
    if (sec->type != WK_NODE_MAP)
        return wk_node_error(sec, WK_E_INVAL, err, "expected a mapping {nodes: N, nic_gbps: G, nodes_per_leaf: K}");
    int64_t nodes = 0, per_leaf = 8;
    int prio = 0, reads = 0;
    double gbps = 800; /* 2 x 400 Gb/s ports: an AI storage appliance serves ~100 GB/s (docs/models.md) */
    int rc = wk_node_expect_keys(sec, known, err);
    if (rc < 0 || (rc = wk_node_int(sec, "nodes", 1, 1, WK_STORAGE_MAX_NODES, &nodes, err)) < 0 ||
        (rc = wk_node_double(sec, "nic_gbps", 0, 1e-3, 1e6, &gbps, err)) < 0 ||
        (rc = wk_node_enum(sec, "sharing", 0, sharing, &prio, err)) < 0 ||
        (rc = wk_node_bool(sec, "dataset_reads", 0, &reads, err)) < 0)
        return rc;
    if (c->fabric.spec.kind == WK_FABRIC_NONE)
        return wk_node_error(sec, WK_E_INVAL, err, "storage nodes need a fabric (cluster.fabric)");
    if ((rc = wk_node_int(sec, "nodes_per_leaf", 0, 1, c->fabric.spec.radix / 2, &per_leaf, err)) < 0)
        return rc;
    s->nodes = (uint32_t)nodes;
    s->per_leaf = (uint32_t)per_leaf;
    s->priority = (uint32_t)prio;
    s->reads = (uint32_t)reads;
    s->leaves = (s->nodes + s->per_leaf - 1) / s->per_leaf;
    s->nic_bytes_per_s = gbps * 1e9 / 8;
    s->first_link = wk_fabric_link_ids(&c->fabric);
    return 0;
}

uint64_t wk_cluster_flow_links(const WkCluster *c)
{
    uint64_t n = wk_fabric_link_ids(&c->fabric);
    if (c->storage.nodes)
        n += (uint64_t)c->storage.nodes + c->storage.leaves;
    return 2 * n;
}

double wk_storage_capacity(const WkCluster *c, uint64_t phys)
{
    const WkStorage *s = &c->storage;
    if (!s->nodes || phys < s->first_link)
        return 0;
    uint64_t i = phys - s->first_link;
    if (i < s->nodes)
        return s->nic_bytes_per_s;
    if (i < (uint64_t)s->nodes + s->leaves) {
        uint64_t l = i - s->nodes, on = s->nodes - l * s->per_leaf; /* nodes on leaf l */
        return (double)(on < s->per_leaf ? on : s->per_leaf) * s->nic_bytes_per_s;
    }
    return 0;
}

int wk_storage_path(const WkCluster *c, uint32_t nic, uint32_t s, uint64_t key, int read, WkLinkId *out)
{
    const WkStorage *st = &c->storage;
    int n = wk_fabric_path_top(&c->fabric, nic, key, out);
    out[n++] = wk_fabric_directed(st->first_link + st->nodes + s / st->per_leaf, 1);
    out[n++] = wk_fabric_directed(st->first_link + s, 1);
    if (read)
        for (int i = 0; i < n; i++)
            out[i] ^= 1;
    return n;
}
