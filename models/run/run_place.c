/* SPDX-License-Identifier: Apache-2.0 */
/* run_place.c — the trace's placement and nodes tables (schema 1.6;
 * docs/trace-format.md): where each job segment ran, and the nodes' pods
 * and racks that locate it. */
#include "models/run/run_impl.h"

#include <stddef.h>
#include <stdlib.h>

#include "sim/trace/schema.h"
#include "sim/trace/trace.h"

#define NF(a) (sizeof(a) / sizeof((a)[0]))

static const WkTraceField place_fields[] = {
    {WK_SCHEMA_PL_JOB, WK_FT_U32, offsetof(WkPlaceRow, job), "", NULL},
    {WK_SCHEMA_PL_SEGMENT, WK_FT_U32, offsetof(WkPlaceRow, segment), "", NULL},
    {WK_SCHEMA_PL_START, WK_FT_I64, offsetof(WkPlaceRow, start_ns), "ns", NULL},
    {WK_SCHEMA_PL_END, WK_FT_I64, offsetof(WkPlaceRow, end_ns), "ns", NULL},
    {WK_SCHEMA_PL_NODE, WK_FT_U32, offsetof(WkPlaceRow, node), "", NULL},
    {WK_SCHEMA_PL_NODES, WK_FT_U32, offsetof(WkPlaceRow, nodes), "nodes", NULL},
    {WK_SCHEMA_PL_GPU, WK_FT_U32, offsetof(WkPlaceRow, gpu), "", NULL},
    {WK_SCHEMA_PL_GPUS, WK_FT_U32, offsetof(WkPlaceRow, gpus), "GPUs", NULL},
};

typedef struct NodeRow {
    uint32_t node, pod, rack, gpus, first_gpu;
} NodeRow;

static const WkTraceField node_fields[] = {
    {WK_SCHEMA_NODE_NODE, WK_FT_U32, offsetof(NodeRow, node), "", NULL},
    {WK_SCHEMA_NODE_POD, WK_FT_U32, offsetof(NodeRow, pod), "", NULL},
    {WK_SCHEMA_NODE_RACK, WK_FT_U32, offsetof(NodeRow, rack), "", NULL},
    {WK_SCHEMA_NODE_GPUS, WK_FT_U32, offsetof(NodeRow, gpus), "GPUs", NULL},
    {WK_SCHEMA_NODE_FIRST_GPU, WK_FT_U32, offsetof(NodeRow, first_gpu), "", NULL},
};

int wk_run_write_placement(const WkRun *r, WkTrace *t, WkError *err)
{
    const WkCluster *c = &r->cluster;
    uint32_t per_rack = r->fail.nodes_per_rack ? r->fail.nodes_per_rack : 1;
    NodeRow *nodes = malloc(((size_t)c->nodes + 1) * sizeof *nodes);
    if (!nodes)
        return wk_error_nomem(err, "nodes");
    for (uint32_t n = 0; n < c->nodes; n++)
        nodes[n] = (NodeRow){.node = n, .pod = c->node_pod[n], .rack = n / per_rack,
                             .gpus = c->node_first_gpu[n + 1] - c->node_first_gpu[n],
                             .first_gpu = c->node_first_gpu[n]};
    int rc = wk_trace_table(t, WK_SCHEMA_NODES, node_fields, NF(node_fields), sizeof *nodes, nodes, c->nodes,
                            "one row per node: its pod, rack (failures.nodes_per_rack consecutive nodes) and GPUs",
                            err);
    free(nodes);
    if (rc < 0)
        return rc;
    WkPlaceRow *rows = NULL;
    size_t n = 0;
    if ((rc = wk_account_placement(&r->acct, c, &rows, &n, err)) == 0)
        rc = wk_trace_table(t, WK_SCHEMA_PLACEMENT, place_fields, NF(place_fields), sizeof(WkPlaceRow), rows, n,
                            "job segments' GPUs: GPUs gpu .. gpu + gpus - 1 of each node node .. node + nodes - 1, "
                            "held over [start, end); by job, segment, node",
                            err);
    free(rows);
    return rc;
}
