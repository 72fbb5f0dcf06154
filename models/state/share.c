/* SPDX-License-Identifier: Apache-2.0 */
/* share.c — the fabric share of a run (see share.h). */
#include "models/state/share.h"

#include <stdlib.h>

#include "models/state/eval.h"

int wk_share_init(WkShare *s, const WkCluster *c, size_t njobs, WkError *err)
{
    *s = (WkShare){0};
    const WkFabric *f = &c->fabric;
    if (f->spec.kind == WK_FABRIC_NONE)
        return 0;
    int rc = wk_flownet_new(&s->net, 2 * wk_fabric_link_ids(f), f->spec.link_bytes_per_s, err);
    if (rc < 0)
        return rc;
    s->dirty = calloc((njobs + 63) / 64 + 1, sizeof *s->dirty);
    return s->dirty ? 0 : wk_error_nomem(err, "fabric share");
}

void wk_share_fini(WkShare *s)
{
    wk_flownet_free(s->net);
    free(s->dirty);
    free(s->link_down);
    *s = (WkShare){0};
}

/* Route a→b, around links down where another ECMP choice avoids them. */
static int route(const WkShare *s, const WkCluster *c, uint32_t a, uint32_t b, WkLinkId *links)
{
    int nl = wk_cluster_path(c, a, b, links);
    if (!s->link_down)
        return nl;
    for (uint64_t salt = 1; salt <= 16; salt++) {
        int bad = 0;
        for (int x = 0; x < nl && !bad; x++)
            bad = s->link_down[wk_fabric_physical(links[x])] != 0;
        if (!bad)
            break;
        nl = wk_cluster_path_salted(c, a, b, salt, links);
    }
    return nl;
}

int wk_share_add(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *gpus, uint32_t n, uint32_t **flows,
                 uint32_t *nflows, uint8_t *path_class, WkError *err)
{
    uint32_t *edges = NULL, nedges = 0;
    *flows = NULL;
    *nflows = 0;
    int rc = wk_eval_rings(c, gpus, n, &edges, &nedges, path_class, err);
    if (rc == 0 && nedges && !(*flows = malloc((size_t)nedges * sizeof **flows)))
        rc = wk_error_nomem(err, "job flows");
    for (uint32_t i = 0; rc == 0 && i < nedges; i++) {
        WkLinkId links[WK_FABRIC_MAX_HOPS];
        int nl = route(s, c, edges[2 * i], edges[2 * i + 1], links);
        uint32_t id;
        rc = wk_flownet_add(s->net, links, (size_t)nl, c->fabric.spec.link_bytes_per_s, job, &id, err);
        if (rc == 0)
            (*flows)[(*nflows)++] = id;
    }
    free(edges);
    return rc;
}

void wk_share_remove(WkShare *s, const uint32_t *flows, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        wk_flownet_remove(s->net, flows[i]);
}

double wk_share_min_rate(const WkShare *s, const uint32_t *flows, uint32_t n, double bw)
{
    for (uint32_t i = 0; i < n; i++) {
        double f = wk_flownet_rate(s->net, flows[i]);
        if (f < bw)
            bw = f;
    }
    return bw;
}

int wk_share_solve(WkShare *s, uint32_t except, int (*wants)(uint32_t job, void *user), void *user,
                   uint32_t **jobs, size_t *njobs, WkError *err)
{
    *jobs = NULL;
    *njobs = 0;
    if (!s->net)
        return 0;
    int rc = wk_flownet_solve(s->net, err);
    if (rc < 0)
        return rc;
    const uint32_t *ids;
    size_t n = wk_flownet_changed(s->net, &ids);
    if (!n)
        return 0;
    uint32_t *out = malloc(n * sizeof *out);
    if (!out)
        return wk_error_nomem(err, "fabric share");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t job = wk_flownet_owner(s->net, ids[i]);
        uint64_t bit = UINT64_C(1) << (job & 63);
        if (job == except || (s->dirty[job >> 6] & bit) || !wants(job, user))
            continue;
        s->dirty[job >> 6] |= bit;
        out[k++] = job;
    }
    for (size_t i = 0; i < k; i++)
        s->dirty[out[i] >> 6] &= ~(UINT64_C(1) << (out[i] & 63));
    *jobs = out;
    *njobs = k;
    return 0;
}
