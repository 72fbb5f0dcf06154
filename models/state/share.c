/* SPDX-License-Identifier: Apache-2.0 */
/* share.c — the fabric share of a run (see share.h). */
#include "models/state/share.h"

#include <stdlib.h>

#include "models/state/a2a.h"
#include "models/state/eval.h"

/* ---- `sharing: priority`: storage on what the rings leave ---------------- */

/* Note link l for the next wk_share_store_solve when a storage flow crosses
 * it (a fabric link: the storage links carry no rings). */
static void store_mark(WkShare *s, WkLinkId l)
{
    if (l < s->fabric_dl && !s->rmark[l] && wk_flownet_link_used(s->store, l)) {
        s->rmark[l] = 1;
        s->rlinks[s->nrlinks++] = (uint32_t)l;
    }
}

static void store_mark_path(WkShare *s, const WkFlowNet *net, uint32_t id)
{
    WkLinkId links[WK_FABRIC_MAX_HOPS];
    size_t n = wk_flownet_path(net, id, links, WK_FABRIC_MAX_HOPS);
    for (size_t i = 0; i < n && i < WK_FABRIC_MAX_HOPS; i++)
        store_mark(s, links[i]);
}

static void store_mark_flow(WkShare *s, uint32_t ring)
{
    store_mark_path(s, s->net, ring);
}

/* The storage network: every flow link (a fabric link's capacity is set
 * when a storage flow first crosses it), the storage links at theirs. */
static int store_init(WkShare *s, const WkCluster *c, WkError *err)
{
    uint64_t nl = wk_cluster_flow_links(c);
    int rc = wk_flownet_new(&s->store, nl, c->fabric.spec.link_bytes_per_s, err);
    if (rc < 0)
        return rc;
    for (uint64_t p = c->storage.first_link; p < nl / 2; p++) {
        wk_flownet_set_capacity(s->store, wk_fabric_directed(p, 0), wk_storage_capacity(c, p));
        wk_flownet_set_capacity(s->store, wk_fabric_directed(p, 1), wk_storage_capacity(c, p));
    }
    s->idle = calloc((s->njobs + 63) / 64 + 1, sizeof *s->idle);
    s->rlinks = malloc((s->fabric_dl ? s->fabric_dl : 1) * sizeof *s->rlinks);
    s->rmark = calloc(s->fabric_dl ? s->fabric_dl : 1, sizeof *s->rmark);
    return s->idle && s->rlinks && s->rmark ? 0 : wk_error_nomem(err, "storage share");
}

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
    return c->storage.nodes && c->storage.priority ? store_init(s, c, err) : 0;
}

void wk_share_fini(WkShare *s)
{
    wk_flownet_free(s->net);
    wk_flownet_free(s->a2a);
    wk_flownet_free(s->store);
    free(s->idle);
    free(s->rlinks);
    free(s->rmark);
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

int wk_share_add_a2a(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *gpus, uint32_t n, uint32_t tp,
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
    return wk_a2a_add(s->a2a, c, s->link_down, job, gpus, n, tp, per, ep, etp, flows, nflows, moved, err);
}

void wk_share_remove(WkShare *s, const uint32_t *flows, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (s->store) /* its rate leaves the links: storage may take it */
            store_mark_flow(s, flows[i]);
        wk_flownet_remove(s->net, flows[i]);
    }
}

void wk_share_remove_a2a(WkShare *s, const uint32_t *flows, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        wk_flownet_remove(s->a2a, flows[i]);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int wk_share_add_storage(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *gpus, uint32_t n, int read,
                         uint32_t **flows, uint32_t *nflows, WkError *err)
{
    *flows = NULL;
    *nflows = 0;
    uint32_t ns = c->storage.nodes;
    if (!s->net || !ns || !n)
        return 0;
    uint32_t *nics = malloc((size_t)n * sizeof *nics), k = 0;
    if (!nics)
        return wk_error_nomem(err, "storage flows");
    int sorted = 1; /* a job's GPUs are mostly in order already: no sort then */
    for (uint32_t i = 0; i < n; i++) {
        nics[i] = wk_cluster_nic_of(c, gpus[i]);
        sorted &= i == 0 || nics[i - 1] <= nics[i];
    }
    if (!sorted)
        qsort(nics, n, sizeof *nics, cmp_u32);
    for (uint32_t i = 0; i < n; i++)
        if (!k || nics[i] != nics[k - 1])
            nics[k++] = nics[i];
    uint32_t nf = k > ns ? k : ns;
    int rc = 0;
    if (!(*flows = malloc((size_t)nf * sizeof **flows)))
        rc = wk_error_nomem(err, "storage flows");
    for (uint32_t i = 0; rc == 0 && i < nf; i++) {
        WkLinkId links[WK_FABRIC_MAX_HOPS];
        uint32_t nic = nics[i % k], sn = (uint32_t)(((uint64_t)i + job) % ns);
        int nl = wk_storage_path(c, nic, sn, i, read, links);
        for (uint64_t salt = 1; s->link_down && salt <= 16; salt++) { /* around links down, as the rings */
            int bad = 0;
            for (int x = 0; x < nl && !bad; x++)
                bad = wk_fabric_physical(links[x]) < c->storage.first_link &&
                      s->link_down[wk_fabric_physical(links[x])] != 0;
            if (!bad)
                break;
            nl = wk_storage_path(c, nic, sn, i + salt * nf, read, links);
        }
        uint32_t id;
        rc = wk_flownet_add(s->store ? s->store : s->net, links, (size_t)nl, 0, job, &id, err);
        if (rc == 0)
            (*flows)[(*nflows)++] = id;
        if (rc == 0 && s->store) /* a link new to storage: what do the rings leave there? */
            store_mark_path(s, s->store, id);
    }
    free(nics);
    return rc;
}

void wk_share_remove_storage(WkShare *s, const uint32_t *flows, uint32_t n)
{
    WkFlowNet *net = s->store ? s->store : s->net;
    for (uint32_t i = 0; i < n; i++)
        wk_flownet_remove(net, flows[i]);
}

void wk_share_set_link(WkShare *s, uint64_t phys, double bw)
{
    for (int dir = 0; dir < 2; dir++) {
        wk_flownet_set_capacity(s->net, wk_fabric_directed(phys, dir), bw);
        if (s->store)
            store_mark(s, wk_fabric_directed(phys, dir));
    }
}

void wk_share_idle(WkShare *s, uint32_t job, const uint32_t *rings, uint32_t n, int on)
{
    if (!s->store || job >= s->njobs)
        return;
    uint64_t bit = UINT64_C(1) << (job & 63);
    if (!!(s->idle[job >> 6] & bit) == !!on)
        return;
    s->idle[job >> 6] = on ? s->idle[job >> 6] | bit : s->idle[job >> 6] & ~bit;
    for (uint32_t i = 0; i < n; i++)
        store_mark_path(s, s->net, rings[i]);
}

/* Whether the rings of job move data (not stalled on a transfer of its own). */
static int moving(uint32_t job, const void *user)
{
    const WkShare *s = user;
    return job >= s->njobs || !(s->idle[job >> 6] >> (job & 63) & 1);
}

int wk_share_store_solve(WkShare *s, int *moved, WkError *err)
{
    *moved = 0;
    if (!s->store)
        return 0;
    for (size_t i = 0; i < s->nrlinks; i++) {
        WkLinkId l = s->rlinks[i];
        s->rmark[l] = 0;
        if (!wk_flownet_link_used(s->store, l))
            continue;
        double left = wk_flownet_capacity(s->net, l) - wk_flownet_link_load(s->net, l, moving, s);
        if (!(left > 0))
            left = 0;
        if (left != wk_flownet_capacity(s->store, l))
            wk_flownet_set_capacity(s->store, l, left);
    }
    s->nrlinks = 0;
    int rc = wk_flownet_solve(s->store, err);
    const uint32_t *ids;
    *moved = rc == 0 && wk_flownet_changed(s->store, &ids) > 0;
    return rc;
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

double wk_share_min_rate_storage(const WkShare *s, const uint32_t *flows, uint32_t n, double bw)
{
    return min_rate(s->store ? s->store : s->net, flows, n, bw);
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
    if (rc == 0 && s->store && wk_flownet_count(s->store)) { /* the rings moved: storage gets what they leave */
        const uint32_t *ids;
        size_t n = wk_flownet_changed(s->net, &ids);
        for (size_t i = 0; i < n; i++)
            store_mark_flow(s, ids[i]);
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
