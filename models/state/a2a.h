/* SPDX-License-Identifier: Apache-2.0 */
/* a2a.h — what the fabric share (share.h) and a one-job evaluation (eval.h)
 * both put on a flow network: a route around links down, and the flows of
 * a MoE job's expert all-to-all across NVLink domains. */
#ifndef WK_A2A_H
#define WK_A2A_H

#include <stdint.h>

#include "models/net/flow.h"
#include "models/topo/cluster.h"
#include "sim/core/error.h"

/** The directed links from GPU a to GPU b into links (room for
 * WK_FABRIC_MAX_HOPS), avoiding physical links with link_down[l] != 0 where
 * one of up to 16 salted ECMP choices does (link_down NULL: none down).
 * Returns the count. *moved (NULL: not counted) is incremented when the
 * plain ECMP path crosses a link down (the route is another, or no way
 * avoids them): only such a route can change when a link comes back.
 * Inline: the rings' hot path. */
static inline int wk_a2a_route(const WkCluster *c, const uint8_t *link_down, uint32_t a, uint32_t b, WkLinkId *links,
                               uint32_t *moved)
{
    int nl = wk_cluster_path(c, a, b, links);
    if (!link_down)
        return nl;
    for (uint64_t salt = 1; salt <= 16; salt++) {
        int bad = 0;
        for (int x = 0; x < nl && !bad; x++)
            bad = link_down[wk_fabric_physical(links[x])] != 0;
        if (!bad)
            break;
        if (salt == 1 && moved)
            ++*moved;
        nl = wk_cluster_path_salted(c, a, b, salt, links);
    }
    return nl;
}

/** Add to net the expert all-to-all flows of a job on gpus[0..n) in rank
 * order (tp fastest, then cp: a data-parallel replica of `per` = tp x pp x
 * cp consecutive ranks, each pipeline stage of it `width` = tp x cp
 * consecutive ranks): rank (replica d, stage k, index w < width in its
 * stage) is expert slot d x width/etp + w/etp of stage k and expert-TP
 * index w mod etp, so experts fold over the tp x cp x dp ranks of a stage
 * (Megatron-Core's expert rank order etp-ep-edp within a stage); blocks of
 * ep consecutive slots are the EP groups, and each rank sends to the other
 * ep - 1 ranks of its group with its stage and expert-TP index.
 * A send leaves through the NIC of the destination's rail (PXN: over NVLink
 * to the GPU of its node on that rail, as NCCL >= 2.12 does for
 * all-to-all). Each pair in different NVLink domains is a flow owned by job,
 * routed by wk_a2a_route, capped at the link rate / (ep - 1). The ids are
 * appended to *flows (realloc'd; its room is taken to be *nflows) after its
 * *nflows; *moved (NULL: not counted) counts as wk_a2a_route's. Returns 0,
 * WK_E_NOMEM, or WK_E_INVAL when n is not a multiple of per, per not of
 * width, width not of etp, or the slots of a stage are not a multiple of
 * ep (the perf model refuses such a job first). */
int wk_a2a_add(WkFlowNet *net, const WkCluster *c, const uint8_t *link_down, uint32_t job, const uint32_t *gpus,
               uint32_t n, uint32_t width, uint32_t per, uint32_t ep, uint32_t etp, uint32_t **flows, uint32_t *nflows,
               uint32_t *moved, WkError *err);

#endif
