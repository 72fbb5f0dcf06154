/* SPDX-License-Identifier: Apache-2.0 */
/* flow.c — a network of directed links and the flows over them: adding,
 * removing, capacities and the rates last solved. The max-min fair solver
 * is flow_solve.c; the data structures are described in flow_impl.h.
 * Flow-level only: no packets, no queues, no latency. */
#include "models/net/flow_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ------------------------------------------------------------- */

/* Grow *p (elements of size elem, *cap of them) to hold at least need,
 * geometrically. 0 or WK_E_NOMEM; *p unchanged on failure. */
static int grow(void **p, uint32_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    if (n > UINT32_MAX - 1)
        n = UINT32_MAX - 1;
    if (n < need || n > SIZE_MAX / elem)
        return WK_E_NOMEM;
    void *q = realloc(*p, n * elem);
    if (!q)
        return WK_E_NOMEM;
    *p = q;
    *cap = (uint32_t)n;
    return 0;
}

static int grow_sz(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    if (n > SIZE_MAX / elem)
        return WK_E_NOMEM;
    void *q = realloc(*p, n * elem);
    if (!q)
        return WK_E_NOMEM;
    *p = q;
    *cap = n;
    return 0;
}

/* Make room for need flow slots (and their scratch slots). */
static int reserve_flows(WkFlowNet *n, size_t need)
{
    if (need <= n->flow_cap)
        return 0;
    uint32_t cap = n->flow_cap;
    int rc = grow((void **)&n->flows, &cap, need, sizeof *n->flows);
    if (rc)
        return rc;
    /* The scratch arrays follow the flow table; on failure the table keeps
     * its old logical capacity, so nothing is half-grown. */
    uint32_t *a = realloc(n->cflow, (size_t)cap * sizeof *a);
    if (!a)
        return WK_E_NOMEM;
    n->cflow = a;
    a = realloc(n->ccapped, (size_t)cap * sizeof *a);
    if (!a)
        return WK_E_NOMEM;
    n->ccapped = a;
    a = realloc(n->changed, (size_t)cap * sizeof *a);
    if (!a)
        return WK_E_NOMEM;
    n->changed = a;
    n->flow_cap = cap;
    return 0;
}

/* Make room for one more flow (and its scratch slots). */
static int reserve_flow(WkFlowNet *n)
{
    if (n->flow_free != NONE || n->flow_hw < n->flow_cap)
        return 0;
    return reserve_flows(n, (size_t)n->flow_hw + 1);
}

/* Component scratch for need links (at most all of them, at least one). */
static int reserve_comp(WkFlowNet *n, size_t need)
{
    if (need > n->nlinks)
        need = n->nlinks;
    if (need < 1)
        need = 1;
    if (need <= n->comp_cap)
        return 0;
    uint32_t cap = n->comp_cap;
    int rc = grow((void **)&n->cl, &cap, need, sizeof *n->cl);
    if (rc)
        return rc;
    uint32_t *h = realloc(n->heap, (size_t)cap * sizeof *h);
    if (!h)
        return WK_E_NOMEM;
    n->heap = h;
    n->comp_cap = cap;
    return 0;
}

/* Make room for k more path nodes, and component scratch for every link they
 * might bring into one component. */
static int reserve_inc(WkFlowNet *n, size_t k)
{
    size_t recycled = n->inc_hw - n->inc_live; /* nodes on the free list */
    if (recycled < k) {
        int rc = grow((void **)&n->inc, &n->inc_cap, (size_t)n->inc_hw + (k - recycled),
                      sizeof *n->inc);
        if (rc)
            return rc;
    }
    return reserve_comp(n, n->inc_live + k);
}

static uint32_t take_inc(WkFlowNet *n)
{
    uint32_t i = n->inc_free;
    if (i != NONE) {
        n->inc_free = n->inc[i].fnext;
        return i;
    }
    return n->inc_hw++;
}

/* ---- lifecycle ---------------------------------------------------------- */

int wk_flownet_new(WkFlowNet **out, uint64_t nlinks, double default_bw, WkError *err)
{
    *out = NULL;
    if (nlinks >= UINT32_MAX - 1)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                            "flow network: %llu links, at most %u", (unsigned long long)nlinks,
                            UINT32_MAX - 2);
    WkFlowNet *n = calloc(1, sizeof *n);
    if (!n)
        goto nomem;
    n->nlinks = (uint32_t)nlinks;
    n->links = malloc((nlinks ? (size_t)nlinks : 1) * sizeof *n->links);
    if (!n->links)
        goto nomem;
    double bw = default_bw > 0 ? default_bw : 0.0;
    for (uint32_t l = 0; l < n->nlinks; l++)
        n->links[l] = (Link){.cap = bw, .head = NONE, .seen = 0, .loc = 0, .dnext = NONE};
    n->dirty = n->nlinks;
    n->flow_free = NONE;
    n->inc_free = NONE;
    n->stamp = 1;
    *out = n;
    return 0;
nomem:
    wk_flownet_free(n);
    return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "flow network: out of memory for %llu links",
                        (unsigned long long)nlinks);
}

void wk_flownet_free(WkFlowNet *n)
{
    if (!n)
        return;
    free(n->links);
    free(n->flows);
    free(n->inc);
    free(n->pending);
    free(n->cflow);
    free(n->ccapped);
    free(n->changed);
    free(n->cl);
    free(n->heap);
    free(n);
}

int wk_flownet_reserve(WkFlowNet *n, size_t flows, size_t incs, WkError *err)
{
    if (flows > UINT32_MAX - 2 || incs > UINT32_MAX - 2)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "flow network: room for %zu flows and %zu path nodes "
                            "asked, at most %u", flows, incs, UINT32_MAX - 2);
    size_t live = n->live, nodes = n->inc_live; /* free ids and nodes are reused before new ones */
    if (reserve_flows(n, (size_t)n->flow_hw + (flows > n->flow_hw - live ? flows - (n->flow_hw - live) : 0)) ||
        grow((void **)&n->inc, &n->inc_cap,
             (size_t)n->inc_hw + (incs > n->inc_hw - nodes ? incs - (n->inc_hw - nodes) : 0), sizeof *n->inc) ||
        reserve_comp(n, nodes + incs))
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "flow network: out of memory for %zu flows", flows);
    return 0;
}

void wk_flownet_clear(WkFlowNet *n)
{
    for (uint32_t f = 0; f < n->flow_hw; f++)
        if (n->flows[f].len != DEAD)
            for (uint32_t k = n->flows[f].first; k != NONE; k = n->inc[k].fnext)
                n->links[n->inc[k].link].head = NONE;
    while (n->dirty != n->nlinks) { /* the links of removed flows may wait here */
        uint32_t l = n->dirty;
        n->dirty = n->links[l].dnext;
        n->links[l].dnext = NONE;
    }
    n->flow_hw = 0;
    n->flow_free = NONE;
    n->live = 0;
    n->inc_hw = 0;
    n->inc_free = NONE;
    n->inc_live = 0;
    n->npending = 0;
    n->nchanged = 0;
}

/* ---- links -------------------------------------------------------------- */

static void mark_dirty(WkFlowNet *n, uint32_t l)
{
    if (n->links[l].dnext != NONE)
        return;
    n->links[l].dnext = n->dirty;
    n->dirty = l;
}

void wk_flownet_set_capacity(WkFlowNet *n, WkLinkId link, double bw)
{
    if (link >= n->nlinks)
        return;
    n->links[link].cap = bw > 0 ? bw : 0.0; /* negative or NaN: a failed link */
    mark_dirty(n, (uint32_t)link);
}

double wk_flownet_capacity(const WkFlowNet *n, WkLinkId link)
{
    return link < n->nlinks ? n->links[link].cap : 0.0;
}

/* ---- flows -------------------------------------------------------------- */

int wk_flownet_add(WkFlowNet *n, const WkLinkId *links, size_t nlinks, double cap, uint32_t owner,
                   uint32_t *id, WkError *err)
{
    for (size_t i = 0; i < nlinks; i++)
        if (links[i] >= n->nlinks)
            return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                                "flow: link %llu out of range (network has %u links)",
                                (unsigned long long)links[i], n->nlinks);
    if (nlinks >= UINT32_MAX - n->inc_hw)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "flow: path of %zu links too long", nlinks);
    if (reserve_flow(n) || reserve_inc(n, nlinks) ||
        (nlinks == 0 && grow_sz((void **)&n->pending, &n->pending_cap, n->npending + 1,
                                sizeof *n->pending)))
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "flow: out of memory adding a flow");

    uint32_t f = n->flow_free;
    if (f != NONE)
        n->flow_free = n->flows[f].first;
    else
        f = n->flow_hw++;
    Flow *fl = &n->flows[f];
    *fl = (Flow){.cap = cap > 0 ? cap : HUGE_VAL, .rate = 0.0, .owner = owner, .first = NONE,
                 .len = (uint32_t)nlinks, .seen = 0, .frozen = 0};

    /* Append the path in order (tail pointer), each node at its link's head. */
    uint32_t *tail = &fl->first;
    for (size_t i = 0; i < nlinks; i++) {
        uint32_t l = (uint32_t)links[i];
        uint32_t k = take_inc(n);
        Inc *x = &n->inc[k];
        x->link = l;
        x->flow = f;
        x->lprev = NONE;
        x->lnext = n->links[l].head;
        if (x->lnext != NONE)
            n->inc[x->lnext].lprev = k;
        n->links[l].head = k;
        x->fnext = NONE;
        x->loc = 0;
        *tail = k;
        tail = &x->fnext;
        mark_dirty(n, l);
    }
    n->inc_live += nlinks;
    if (nlinks == 0)
        n->pending[n->npending++] = f;
    n->live++;
    *id = f;
    return 0;
}

void wk_flownet_remove(WkFlowNet *n, uint32_t id)
{
    if (!live_id(n, id))
        return;
    Flow *fl = &n->flows[id];
    uint32_t k = fl->first;
    while (k != NONE) {
        Inc *x = &n->inc[k];
        uint32_t next = x->fnext;
        if (x->lprev != NONE)
            n->inc[x->lprev].lnext = x->lnext;
        else
            n->links[x->link].head = x->lnext;
        if (x->lnext != NONE)
            n->inc[x->lnext].lprev = x->lprev;
        mark_dirty(n, x->link);
        x->fnext = n->inc_free;
        n->inc_free = k;
        k = next;
    }
    n->inc_live -= fl->len;
    fl->len = DEAD;
    fl->rate = 0.0;
    fl->first = n->flow_free;
    n->flow_free = id;
    n->live--;
}

double wk_flownet_rate(const WkFlowNet *n, uint32_t id)
{
    return live_id(n, id) ? n->flows[id].rate : 0.0;
}

uint32_t wk_flownet_owner(const WkFlowNet *n, uint32_t id)
{
    return live_id(n, id) ? n->flows[id].owner : UINT32_MAX;
}

void wk_flownet_link_owners(const WkFlowNet *n, WkLinkId link, void (*fn)(uint32_t owner, void *user), void *user)
{
    if (link >= n->nlinks)
        return;
    for (uint32_t k = n->links[link].head; k != NONE; k = n->inc[k].lnext)
        fn(n->flows[n->inc[k].flow].owner, user);
}

int wk_flownet_link_used(const WkFlowNet *n, WkLinkId link)
{
    return link < n->nlinks && n->links[link].head != NONE;
}

double wk_flownet_link_load(const WkFlowNet *n, WkLinkId link, int (*counts)(uint32_t owner, const void *user),
                            const void *user)
{
    double sum = 0.0;
    if (link >= n->nlinks)
        return 0.0;
    for (uint32_t k = n->links[link].head; k != NONE; k = n->inc[k].lnext) {
        const Flow *fl = &n->flows[n->inc[k].flow];
        if (!counts || counts(fl->owner, user))
            sum += fl->rate;
    }
    return sum;
}

size_t wk_flownet_path(const WkFlowNet *n, uint32_t id, WkLinkId *out, size_t max)
{
    if (!live_id(n, id))
        return 0;
    size_t i = 0;
    for (uint32_t k = n->flows[id].first; k != NONE; k = n->inc[k].fnext, i++)
        if (i < max)
            out[i] = n->inc[k].link;
    return i;
}

size_t wk_flownet_changed(const WkFlowNet *n, const uint32_t **ids)
{
    *ids = n->changed;
    return n->nchanged;
}

uint64_t wk_flownet_solves(const WkFlowNet *n)
{
    return n->solves;
}

uint64_t wk_flownet_rerated(const WkFlowNet *n)
{
    return n->rerated;
}

size_t wk_flownet_count(const WkFlowNet *n)
{
    return n->live;
}
