/* SPDX-License-Identifier: Apache-2.0 */
/* a2a.c — the flows of an expert all-to-all (see a2a.h). */
#include "models/state/a2a.h"

#include <stdlib.h>

/* PXN (NCCL 2.12): a send to another node's GPU leaves through the NIC of
 * the destination's rail, reached over NVLink: the GPU of a's node with b's
 * local index modulo the rails (a itself if a's node has no such GPU). */
static uint32_t pxn(const WkCluster *c, uint32_t a, uint32_t b)
{
    uint32_t na = c->gpu_node[a], nb = c->gpu_node[b];
    uint32_t p = c->node_first_gpu[na] + (b - c->node_first_gpu[nb]) % (c->rails ? c->rails : 1);
    return p < c->node_first_gpu[na + 1] ? p : a;
}

int wk_a2a_add(WkFlowNet *net, const WkCluster *c, const uint8_t *link_down, uint32_t job, const uint32_t *gpus,
               uint32_t n, uint32_t width, uint32_t per, uint32_t ep, uint32_t etp, uint32_t **flows, uint32_t *nflows,
               uint32_t *moved, WkError *err)
{
    if (ep <= 1 || !width || !etp || width % etp || !per || per % width || n % per)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "job %u: no expert groups on %u GPUs", job, n);
    uint32_t fold = width / etp, slots = n / per * fold; /* expert slots of one stage */
    if (slots % ep)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "job %u: ep %u does not divide %u slots", job, ep, slots);
    double cap = c->fabric.spec.link_bytes_per_s / (ep - 1);
    size_t room = *nflows;
    int rc = 0;
    for (uint32_t r = 0; r < n && rc == 0; r++) {
        uint32_t d = r / per, q = r % per, t = q % width, pos = q - t, u = t % etp;
        uint32_t e = d * fold + t / etp, first = e - e % ep;
        for (uint32_t e2 = first; e2 < first + ep && rc == 0; e2++) {
            uint32_t r2 = e2 / fold * per + pos + e2 % fold * etp + u;
            if (e2 == e || wk_cluster_nvlink_domain(c, gpus[r]) == wk_cluster_nvlink_domain(c, gpus[r2]))
                continue;
            WkLinkId links[WK_FABRIC_MAX_HOPS];
            int nl = wk_a2a_route(c, link_down, pxn(c, gpus[r], gpus[r2]), gpus[r2], links, moved);
            if (*nflows == room) {
                room = room ? 2 * room : 64;
                uint32_t *more = realloc(*flows, room * sizeof *more);
                if (!more)
                    return wk_error_nomem(err, "expert all-to-all flows");
                *flows = more;
            }
            uint32_t id;
            rc = wk_flownet_add(net, links, (size_t)nl, cap, job, &id, err);
            if (rc == 0)
                (*flows)[(*nflows)++] = id;
        }
    }
    return rc;
}
