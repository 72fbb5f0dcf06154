/* SPDX-License-Identifier: Apache-2.0 */
/* share.c — the fabric share of a run (see share.h). */
#include "models/state/share.h"

#include <stdlib.h>

#include "models/state/a2a.h"
#include "models/state/eval.h"
#include "models/state/share_impl.h"

int wk_share_init(WkShare *s, const WkCluster *c, size_t njobs, WkError *err)
{
    *s = (WkShare){0};
    const WkFabric *f = &c->fabric;
    if (f->spec.kind == WK_FABRIC_NONE)
        return 0;
    int rc = wk_flownet_new(&s->net, wk_cluster_flow_links(c), f->spec.link_bytes_per_s, err);
    if (rc < 0)
        return rc;
    for (uint64_t p = c->storage.first_link; c->storage.nodes && p < wk_cluster_flow_links(c) / 2; p++) {
        wk_flownet_set_capacity(s->net, wk_fabric_directed(p, 0), wk_storage_capacity(c, p));
        wk_flownet_set_capacity(s->net, wk_fabric_directed(p, 1), wk_storage_capacity(c, p));
    }
    s->njobs = njobs;
    s->fabric_dl = 2 * wk_fabric_link_ids(f);
    s->dirty = calloc((njobs + 63) / 64 + 1, sizeof *s->dirty);
    s->flowing = calloc((njobs + 63) / 64 + 1, sizeof *s->flowing);
    s->hit = calloc((njobs + 63) / 64 + 1, sizeof *s->hit);
    if (!s->dirty || !s->flowing || !s->hit)
        return wk_error_nomem(err, "fabric share");
    return c->storage.nodes && c->storage.priority ? wk_share_store_init(s, c, err) : 0;
}

void wk_share_fini(WkShare *s)
{
    wk_flownet_free(s->net);
    wk_flownet_free(s->a2a);
    wk_share_store_fini(s);
    free(s->dirty);
    free(s->flowing);
    free(s->hit);
    free(s->link_down);
    *s = (WkShare){0};
}

int wk_share_add(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *edges, uint32_t nedges,
                 uint32_t **flows, uint32_t *nflows, uint32_t *moved, WkError *err)
{
    *flows = NULL;
    *nflows = 0;
    int rc = 0;
    if (nedges && !(*flows = malloc((size_t)nedges * sizeof **flows)))
        rc = wk_error_nomem(err, "job flows");
    for (uint32_t i = 0; rc == 0 && i < nedges; i++) {
        WkLinkId links[WK_FABRIC_MAX_HOPS];
        int nl = wk_a2a_route(c, s->link_down, edges[2 * i], edges[2 * i + 1], links, moved);
        uint32_t id;
        rc = wk_flownet_add(s->net, links, (size_t)nl, c->fabric.spec.link_bytes_per_s, job, &id, err);
        if (rc == 0)
            (*flows)[(*nflows)++] = id;
    }
    return rc;
}

void wk_share_flowing(WkShare *s, uint32_t job, int on)
{
    if (!s->flowing || job >= s->njobs)
        return;
    uint64_t bit = UINT64_C(1) << (job & 63);
    s->flowing[job >> 6] = on ? s->flowing[job >> 6] | bit : s->flowing[job >> 6] & ~bit;
}

uint32_t wk_share_next_flowing(const WkShare *s, uint32_t from)
{
    if (!s->flowing)
        return UINT32_MAX;
    for (size_t w = from >> 6; (w << 6) < s->njobs; w++) {
        uint64_t x = s->flowing[w];
        if (w == from >> 6)
            x &= ~UINT64_C(0) << (from & 63);
        if (x)
            return (uint32_t)((w << 6) + (size_t)__builtin_ctzll(x));
    }
    return UINT32_MAX;
}

static void mark_hit(uint32_t job, void *user)
{
    WkShare *s = user;
    if (job < s->njobs)
        s->hit[job >> 6] |= UINT64_C(1) << (job & 63);
}

void wk_share_link_jobs(WkShare *s, uint64_t phys)
{
    for (int dir = 0; dir < 2 && s->hit; dir++) {
        if (s->net)
            wk_flownet_link_owners(s->net, wk_fabric_directed(phys, dir), mark_hit, s);
        if (s->a2a)
            wk_flownet_link_owners(s->a2a, wk_fabric_directed(phys, dir), mark_hit, s);
    }
}

int wk_share_hit(const WkShare *s, uint32_t job)
{
    return s->hit && job < s->njobs && (s->hit[job >> 6] >> (job & 63) & 1);
}

void wk_share_hit_clear(WkShare *s, uint32_t job)
{
    if (s->hit && job < s->njobs)
        s->hit[job >> 6] &= ~(UINT64_C(1) << (job & 63));
}

int wk_share_add_a2a(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *gpus, uint32_t n, uint32_t width,
                     uint32_t per, uint32_t ep, uint32_t etp, uint32_t **flows, uint32_t *nflows, uint32_t *moved,
                     WkError *err)
{
    if (!s->net)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "job %u: no fabric", job);
    if (!s->a2a) {
        int rc = wk_flownet_new(&s->a2a, 2 * wk_fabric_link_ids(&c->fabric), c->fabric.spec.link_bytes_per_s, err);
        if (rc < 0)
            return rc;
    }
    return wk_a2a_add(s->a2a, c, s->link_down, job, gpus, n, width, per, ep, etp, flows, nflows, moved, err);
}

void wk_share_remove(WkShare *s, const uint32_t *flows, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (s->store) /* its rate leaves the links: storage may take it */
            wk_share_store_ring_moved(s, flows[i]);
        wk_flownet_remove(s->net, flows[i]);
    }
}

void wk_share_remove_a2a(WkShare *s, const uint32_t *flows, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        wk_flownet_remove(s->a2a, flows[i]);
}

static double min_rate(const WkFlowNet *net, const uint32_t *flows, uint32_t n, double bw)
{
    for (uint32_t i = 0; i < n; i++) {
        double f = wk_flownet_rate(net, flows[i]);
        if (f < bw)
            bw = f;
    }
    return bw;
}

double wk_share_min_rate(const WkShare *s, const uint32_t *flows, uint32_t n, double bw)
{
    return min_rate(s->net, flows, n, bw);
}

double wk_share_min_rate_a2a(const WkShare *s, const uint32_t *flows, uint32_t n, double bw)
{
    return min_rate(s->a2a, flows, n, bw);
}

/* List in out[*k..) (grown as needed) each job whose flows of net changed
 * rate in its last solve, as wk_share_solve says. */
static int collect(WkShare *s, const WkFlowNet *net, uint32_t except, int (*wants)(uint32_t job, void *user),
                   void *user, uint32_t **out, size_t *k, WkError *err)
{
    const uint32_t *ids;
    size_t n = wk_flownet_changed(net, &ids);
    if (!n)
        return 0;
    uint32_t *more = realloc(*out, (*k + n) * sizeof *more);
    if (!more)
        return wk_error_nomem(err, "fabric share");
    *out = more;
    for (size_t i = 0; i < n; i++) {
        uint32_t job = wk_flownet_owner(net, ids[i]);
        uint64_t bit = UINT64_C(1) << (job & 63);
        if (job == except || (s->dirty[job >> 6] & bit) || !wants(job, user))
            continue;
        s->dirty[job >> 6] |= bit;
        more[(*k)++] = job;
    }
    return 0;
}

int wk_share_solve(WkShare *s, uint32_t except, int (*wants)(uint32_t job, void *user), void *user,
                   uint32_t **jobs, size_t *njobs, WkError *err)
{
    *jobs = NULL;
    *njobs = 0;
    if (!s->net)
        return 0;
    uint32_t *out = NULL;
    size_t k = 0;
    int rc = wk_flownet_solve(s->net, err);
    if (rc == 0 && s->store && s->nlive) { /* the rings moved: storage gets what they leave */
        const uint32_t *ids;
        size_t n = wk_flownet_changed(s->net, &ids);
        for (size_t i = 0; i < n; i++)
            wk_share_store_ring_moved(s, ids[i]);
    }
    if (rc == 0)
        rc = collect(s, s->net, except, wants, user, &out, &k, err);
    if (rc == 0 && s->a2a && (rc = wk_flownet_solve(s->a2a, err)) == 0)
        rc = collect(s, s->a2a, except, wants, user, &out, &k, err);
    for (size_t i = 0; i < k; i++)
        s->dirty[out[i] >> 6] &= ~(UINT64_C(1) << (out[i] & 63));
    if (rc < 0) {
        free(out);
        return rc;
    }
    *jobs = out;
    *njobs = k;
    return 0;
}
