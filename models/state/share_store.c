/* SPDX-License-Identifier: Apache-2.0 */
/* share_store.c — transfers between jobs and the storage nodes on the
 * fabric share (see share.h): under `sharing: fair` flows in the rings'
 * max-min network; under `priority` flows sharing max-min, among
 * themselves, what the rings leave. A transfer in flight alone (the usual
 * case: a write lasts seconds of an interval of minutes) is rated in closed
 * form, the first level of the water-filling, without a flow network; two
 * or more go into s->store and are solved there. */
#include <math.h>
#include <stdlib.h>

#include "models/state/share_impl.h"

struct WkShareXfer {
    uint32_t job;
    uint32_t live;       /* 1 while in flight */
    uint32_t nflows;
    uint32_t in_net;     /* priority: its flows are in s->store */
    uint32_t *off;       /* [nflows + 1]: flow i's links are links[off[i] .. off[i + 1]) */
    WkLinkId *links;     /* fair: always; priority: while in_net */
    uint32_t *flows;     /* ids in s->net (fair) or s->store (priority, in_net) */
    double rate;         /* priority: flows x the slowest rate, last solved (NaN: not yet) */
    double demand;       /* the most its flows take together, bytes/s (0: no cap); each flow demand / nflows */
    /* priority: */
    uint32_t read, n;
    uint32_t *gpus;      /* [n] a copy: the paths are made again to enter s->store */
    uint64_t epoch;      /* s->epoch when dl, dc were made */
    uint32_t nd;         /* its distinct links */
    uint32_t *dl, *dc;   /* [nd] those links and its flows crossing each */
};

/* Priority: a job's last transfer's links, kept while its placement (and
 * the links down) stay: a job writes every interval from the same NICs. */
struct WkShareJobLinks {
    uint32_t n, read, nflows, nd;
    uint64_t epoch;
    uint32_t *gpus, *dl, *dc;
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The paths of a transfer's flows (share.h, wk_share_xfer_add) into t. */
static int paths(const WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *gpus, uint32_t n, int read,
                 struct WkShareXfer *t, WkError *err)
{
    uint32_t ns = c->storage.nodes;
    if (!ns || !n)
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
    t->off = malloc(((size_t)nf + 1) * sizeof *t->off);
    t->links = malloc((size_t)nf * WK_FABRIC_MAX_HOPS * sizeof *t->links);
    if (!t->off || !t->links) {
        free(nics);
        return wk_error_nomem(err, "storage flows");
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < nf; i++) {
        WkLinkId *links = t->links + at;
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
        t->off[i] = at;
        at += (uint32_t)nl;
    }
    t->off[nf] = at;
    t->nflows = nf;
    free(nics);
    return 0;
}

/* The distinct links of paths t->off/links and its flows on each, into
 * *dl, *dc (malloc'd; *nd of them). */
static int aggregate(WkShare *s, const struct WkShareXfer *t, uint32_t **dl, uint32_t **dc, uint32_t *nd,
                     WkError *err)
{
    uint32_t nt = 0, end = t->nflows ? t->off[t->nflows] : 0;
    for (uint32_t k = 0; k < end; k++)
        if (s->cnt[t->links[k]]++ == 0)
            s->touched[nt++] = (uint32_t)t->links[k];
    *dl = malloc((nt ? nt : 1) * sizeof **dl);
    *dc = malloc((nt ? nt : 1) * sizeof **dc);
    for (uint32_t i = 0; i < nt; i++) {
        if (*dl && *dc) {
            (*dl)[i] = s->touched[i];
            (*dc)[i] = s->cnt[s->touched[i]];
        }
        s->cnt[s->touched[i]] = 0;
    }
    *nd = nt;
    if (!*dl || !*dc) {
        free(*dl);
        free(*dc);
        *dl = *dc = NULL;
        return wk_error_nomem(err, "storage flows");
    }
    return 0;
}

/* t's paths (made again from its GPUs), for s->store. */
static int remake_paths(WkShare *s, const WkCluster *c, struct WkShareXfer *t, WkError *err)
{
    free(t->off);
    free(t->links);
    t->off = NULL;
    t->links = NULL;
    uint32_t nf = t->nflows;
    int rc = paths(s, c, t->job, t->gpus, t->n, (int)t->read, t, err);
    if (rc == 0 && t->nflows != nf)
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "storage flows: %u paths, were %u", t->nflows, nf);
    return rc;
}

/* Fill t->dl, dc, nd from job's kept links, or make them (and keep them). */
static int job_links(WkShare *s, const WkCluster *c, struct WkShareXfer *t, WkError *err)
{
    struct WkShareJobLinks *j = &s->jl[t->job];
    int same = j->gpus && j->n == t->n && j->read == t->read && j->epoch == s->epoch;
    for (uint32_t i = 0; same && i < t->n; i++)
        same = j->gpus[i] == t->gpus[i];
    if (!same) {
        free(j->gpus);
        free(j->dl);
        free(j->dc);
        *j = (struct WkShareJobLinks){0};
        int rc = paths(s, c, t->job, t->gpus, t->n, (int)t->read, t, err);
        if (rc == 0)
            rc = aggregate(s, t, &j->dl, &j->dc, &j->nd, err);
        free(t->off);
        free(t->links);
        t->off = NULL;
        t->links = NULL;
        if (rc == 0 && !(j->gpus = malloc((t->n ? t->n : 1) * sizeof *j->gpus)))
            rc = wk_error_nomem(err, "storage flows");
        if (rc < 0) {
            free(j->dl);
            free(j->dc);
            *j = (struct WkShareJobLinks){0};
            return rc;
        }
        for (uint32_t i = 0; i < t->n; i++)
            j->gpus[i] = t->gpus[i];
        j->n = t->n;
        j->read = t->read;
        j->epoch = s->epoch;
        j->nflows = t->nflows;
    }
    t->nflows = j->nflows;
    t->nd = j->nd;
    t->epoch = j->epoch;
    t->dl = malloc((j->nd ? j->nd : 1) * sizeof *t->dl);
    t->dc = malloc((j->nd ? j->nd : 1) * sizeof *t->dc);
    if (!t->dl || !t->dc)
        return wk_error_nomem(err, "storage flows");
    for (uint32_t i = 0; i < j->nd; i++) {
        t->dl[i] = j->dl[i];
        t->dc[i] = j->dc[i];
    }
    return 0;
}

/* The rate cap of each of t's flows (0: none). */
static double flow_cap(const struct WkShareXfer *t)
{
    return t->demand > 0 && t->nflows ? t->demand / t->nflows : 0;
}

/* ---- `priority`: the capacity the rings leave ---------------------------- */

/* Note link l for the next wk_share_store_solve when a flow in s->store
 * crosses it (a fabric link: the storage links carry no rings). */
static void mark(WkShare *s, WkLinkId l)
{
    if (l < s->fabric_dl && !s->rmark[l] && wk_flownet_link_used(s->store, l)) {
        s->rmark[l] = 1;
        s->rlinks[s->nrlinks++] = (uint32_t)l;
    }
}

/* Whether the rings of job move data (not stalled on a transfer of its own). */
static int moving(uint32_t job, const void *user)
{
    const WkShare *s = user;
    return job >= s->njobs || !(s->idle[job >> 6] >> (job & 63) & 1);
}

/* R_l: what the rings leave of link l to storage. */
static double left(const WkShare *s, WkLinkId l)
{
    if (l >= s->fabric_dl)
        return wk_flownet_capacity(s->store, l);
    double x = wk_flownet_capacity(s->net, l) - wk_flownet_link_load(s->net, l, moving, s);
    return x > 0 ? x : 0;
}

void wk_share_store_ring_moved(WkShare *s, uint32_t ring)
{
    if (!s->store || !s->nlive)
        return;
    WkLinkId links[WK_FABRIC_MAX_HOPS];
    size_t n = wk_flownet_path(s->net, ring, links, WK_FABRIC_MAX_HOPS);
    for (size_t i = 0; i < n && i < WK_FABRIC_MAX_HOPS; i++)
        if (s->uses[links[i]]) {
            s->alone_stale = 1;
            mark(s, links[i]);
        }
}

/* Put t's flows into s->store (marking their links for a fresh R_l); its
 * paths are made again, and when the links down moved since its start, its
 * links counted again. */
static int enter(WkShare *s, const WkCluster *c, struct WkShareXfer *t, WkError *err)
{
    if (!t->nflows)
        return 0;
    int rc = remake_paths(s, c, t, err);
    if (rc < 0)
        return rc;
    if (t->epoch != s->epoch) {
        uint32_t *dl, *dc, nd;
        if ((rc = aggregate(s, t, &dl, &dc, &nd, err)) < 0)
            return rc;
        for (uint32_t i = 0; i < t->nd; i++)
            s->uses[t->dl[i]] -= t->dc[i];
        for (uint32_t i = 0; i < nd; i++)
            s->uses[dl[i]] += dc[i];
        free(t->dl);
        free(t->dc);
        t->dl = dl;
        t->dc = dc;
        t->nd = nd;
        t->epoch = s->epoch;
    }
    if (!t->flows && !(t->flows = malloc((size_t)t->nflows * sizeof *t->flows)))
        return wk_error_nomem(err, "storage flows");
    for (uint32_t i = 0; i < t->nflows; i++) {
        rc = wk_flownet_add(s->store, t->links + t->off[i], t->off[i + 1] - t->off[i], flow_cap(t), t->job,
                            &t->flows[i], err);
        if (rc < 0) {
            while (i-- > 0)
                wk_flownet_remove(s->store, t->flows[i]);
            return rc;
        }
        for (uint32_t k = t->off[i]; k < t->off[i + 1]; k++)
            mark(s, t->links[k]);
    }
    t->in_net = 1;
    return 0;
}

static void leave(WkShare *s, struct WkShareXfer *t)
{
    for (uint32_t i = 0; t->in_net && i < t->nflows; i++)
        wk_flownet_remove(s->store, t->flows[i]);
    t->in_net = 0;
}

/* The rate of t alone: flows x min over its links of R_l / n_l (and its
 * flows' cap). */
static double alone_rate(const WkShare *s, const struct WkShareXfer *t)
{
    double r = t->demand > 0 ? flow_cap(t) : INFINITY;
    for (uint32_t i = 0; i < t->nd; i++) {
        double q = left(s, t->dl[i]) / t->dc[i];
        if (q < r)
            r = q;
    }
    return t->nflows * r;
}

int wk_share_store_init(WkShare *s, const WkCluster *c, WkError *err)
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
    s->uses = calloc(nl, sizeof *s->uses);
    s->cnt = calloc(nl, sizeof *s->cnt);
    s->touched = malloc(nl * sizeof *s->touched);
    s->jl = calloc(s->njobs ? s->njobs : 1, sizeof *s->jl);
    return s->idle && s->rlinks && s->rmark && s->uses && s->cnt && s->touched && s->jl
               ? 0
               : wk_error_nomem(err, "storage share");
}

void wk_share_store_fini(WkShare *s)
{
    for (uint32_t i = 0; i < s->nxf; i++) {
        free(s->xf[i].off);
        free(s->xf[i].links);
        free(s->xf[i].flows);
        free(s->xf[i].gpus);
        free(s->xf[i].dl);
        free(s->xf[i].dc);
    }
    free(s->xf);
    for (size_t j = 0; s->jl && j < s->njobs; j++) {
        free(s->jl[j].gpus);
        free(s->jl[j].dl);
        free(s->jl[j].dc);
    }
    free(s->jl);
    wk_flownet_free(s->store);
    free(s->idle);
    free(s->rlinks);
    free(s->rmark);
    free(s->uses);
    free(s->cnt);
    free(s->touched);
}

/* ---- transfers ----------------------------------------------------------- */

int wk_share_xfer_add(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *gpus, uint32_t n, int read,
                      double demand, uint32_t *tid, WkError *err)
{
    uint32_t id = 0;
    while (id < s->nxf && s->xf[id].live)
        id++;
    if (id == s->nxf) {
        struct WkShareXfer *more = realloc(s->xf, ((size_t)s->nxf + 1) * sizeof *more);
        if (!more)
            return wk_error_nomem(err, "storage transfers");
        s->xf = more;
        s->xf[s->nxf++] = (struct WkShareXfer){0};
    }
    struct WkShareXfer *t = &s->xf[id];
    free(t->off);
    free(t->links);
    free(t->flows);
    free(t->gpus);
    free(t->dl);
    free(t->dc);
    *t = (struct WkShareXfer){.job = job, .read = (uint32_t)read, .n = n, .demand = demand > 0 ? demand : 0,
                              .rate = NAN};
    int rc = 0;
    if (!s->store) { /* fair: into the rings' network */
        rc = s->net ? paths(s, c, job, gpus, n, read, t, err) : 0;
        if (rc == 0 && t->nflows && !(t->flows = malloc((size_t)t->nflows * sizeof *t->flows)))
            rc = wk_error_nomem(err, "storage flows");
        for (uint32_t i = 0; rc == 0 && i < t->nflows; i++)
            rc = wk_flownet_add(s->net, t->links + t->off[i], t->off[i + 1] - t->off[i], flow_cap(t), job,
                                &t->flows[i], err);
        if (rc < 0)
            for (uint32_t i = 0; t->flows && i < t->nflows; i++)
                wk_flownet_remove(s->net, t->flows[i]); /* an id not handed out is a no-op */
    } else if (job < s->njobs && c->storage.nodes && n) {
        if (!(t->gpus = malloc((size_t)n * sizeof *t->gpus)))
            rc = wk_error_nomem(err, "storage flows");
        for (uint32_t i = 0; rc == 0 && i < n; i++)
            t->gpus[i] = gpus[i];
        if (rc == 0)
            rc = job_links(s, c, t, err);
    }
    t->live = 1;
    *tid = id;
    if (rc == 0 && s->store) {
        for (uint32_t i = 0; i < t->nd; i++)
            s->uses[t->dl[i]] += t->dc[i];
        s->nlive++;
        s->alone_stale = 1;
        if (s->nlive == 2) /* no longer alone: the other one joins the network */
            for (uint32_t i = 0; rc == 0 && i < s->nxf; i++)
                if (s->xf[i].live && i != id)
                    rc = enter(s, c, &s->xf[i], err);
        if (rc == 0 && s->nlive >= 2)
            rc = enter(s, c, t, err);
    } else if (rc < 0 && s->store) {
        t->nd = 0; /* nothing counted in uses yet */
        s->nlive++;
    }
    if (rc < 0) {
        wk_share_xfer_remove(s, id);
        return rc;
    }
    return 0;
}

void wk_share_xfer_remove(WkShare *s, uint32_t tid)
{
    if (tid >= s->nxf || !s->xf[tid].live)
        return;
    struct WkShareXfer *t = &s->xf[tid];
    if (!s->store) {
        for (uint32_t i = 0; t->flows && i < t->nflows; i++)
            wk_flownet_remove(s->net, t->flows[i]);
    } else {
        for (uint32_t i = 0; i < t->nd; i++)
            s->uses[t->dl[i]] -= t->dc[i];
        leave(s, t);
        s->nlive--;
        if (s->nlive == 1) /* the one left is alone again: out of the network */
            for (uint32_t i = 0; i < s->nxf; i++)
                if (s->xf[i].live && i != tid)
                    leave(s, &s->xf[i]);
        s->alone_stale = 1;
    }
    t->live = 0;
}

uint32_t wk_share_xfer_flows(const WkShare *s, uint32_t tid)
{
    return tid < s->nxf ? s->xf[tid].nflows : 0;
}

double wk_share_xfer_rate(const WkShare *s, uint32_t tid)
{
    if (tid >= s->nxf || !s->xf[tid].live || !s->xf[tid].nflows)
        return INFINITY;
    const struct WkShareXfer *t = &s->xf[tid];
    if (s->store)
        return t->rate;
    double r = INFINITY;
    for (uint32_t i = 0; i < t->nflows; i++) {
        double f = wk_flownet_rate(s->net, t->flows[i]);
        if (f < r)
            r = f;
    }
    return t->nflows * r;
}

void wk_share_idle(WkShare *s, uint32_t job, const uint32_t *rings, uint32_t n, int on)
{
    if (!s->store || job >= s->njobs)
        return;
    uint64_t bit = UINT64_C(1) << (job & 63);
    if (!!(s->idle[job >> 6] & bit) == !!on)
        return;
    s->idle[job >> 6] = on ? s->idle[job >> 6] | bit : s->idle[job >> 6] & ~bit;
    s->alone_stale = 1; /* a transfer alone reads every R_l again */
    for (uint32_t i = 0; wk_flownet_count(s->store) && i < n; i++)
        wk_share_store_ring_moved(s, rings[i]);
}

void wk_share_set_link(WkShare *s, uint64_t phys, double bw)
{
    for (int dir = 0; dir < 2; dir++) {
        WkLinkId l = wk_fabric_directed(phys, dir);
        wk_flownet_set_capacity(s->net, l, bw);
        s->epoch++; /* the paths around links down may move */
        if (s->store && s->nlive && s->uses[l]) {
            s->alone_stale = 1;
            mark(s, l);
        }
    }
}

int wk_share_store_solve(WkShare *s, int *moved, WkError *err)
{
    *moved = 0;
    if (!s->store)
        return 0;
    int rc = 0;
    if (s->nlive >= 2) {
        for (size_t i = 0; i < s->nrlinks; i++) {
            WkLinkId l = s->rlinks[i];
            if (!wk_flownet_link_used(s->store, l))
                continue;
            double x = left(s, l);
            if (x != wk_flownet_capacity(s->store, l))
                wk_flownet_set_capacity(s->store, l, x);
        }
        rc = wk_flownet_solve(s->store, err);
        const uint32_t *ids;
        if (rc == 0 && wk_flownet_changed(s->store, &ids) > 0)
            s->alone_stale = 1; /* some flow moved: re-read the transfers */
    }
    for (size_t i = 0; i < s->nrlinks; i++)
        s->rmark[s->rlinks[i]] = 0;
    s->nrlinks = 0;
    if (rc < 0 || !s->nlive || !s->alone_stale)
        return rc;
    for (uint32_t i = 0; i < s->nxf; i++) {
        struct WkShareXfer *t = &s->xf[i];
        if (!t->live || !t->nflows)
            continue;
        double r = INFINITY;
        if (!t->in_net) {
            r = alone_rate(s, t);
        } else {
            for (uint32_t k = 0; k < t->nflows; k++) {
                double f = wk_flownet_rate(s->store, t->flows[k]);
                if (f < r)
                    r = f;
            }
            r *= t->nflows;
        }
        if (r != t->rate)
            *moved = 1;
        t->rate = r;
    }
    s->alone_stale = 0;
    return 0;
}
