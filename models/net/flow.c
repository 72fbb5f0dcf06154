/* SPDX-License-Identifier: Apache-2.0 */
/* flow.c — max-min fair rates of flows on directed links by progressive
 * filling, re-solved per connected component of the links touched since the
 * last solve. Flow-level only: no packets, no queues, no latency. */
#include "models/net/flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- data structures --------------------------------------------------------
 *
 * Links are dense (ids 0 .. nlinks-1). Each (flow, link) incidence is a node
 * in one pool; a node is on two intrusive lists: its link's doubly linked list
 * of flows (lnext/lprev, O(1) unlink on remove) and its flow's singly linked
 * path (fnext). Free nodes and free flow ids are recycled through free lists,
 * and the solver's scratch arrays are grown by add, so solve never allocates
 * and the steady state allocates nothing.
 *
 * Dirty links form an intrusive stack through Link.dnext. solve() takes each
 * dirty link not yet visited, collects its connected component by BFS over
 * link -> flows -> links, and water-fills that component alone:
 *
 *   - every link of the component gets rem = capacity and cnt = number of its
 *     unfrozen flows; its fair share is rem / cnt;
 *   - an indexed binary heap orders links by (share, link id); capped flows
 *     are sorted by (cap, flow id);
 *   - repeatedly take the smaller of the next cap and the smallest share: a
 *     cap freezes its flow at the cap, a link freezes all its unfrozen flows
 *     at its share; a frozen flow subtracts its rate from every link it
 *     crosses (rem -= x, cnt -= 1) and those links' shares are re-keyed.
 *
 * Shares never fall below the current water level (clamped: the exact value
 * can only rise, rounding may not take it down). The values depend only on
 * the component's links, capacities, paths and caps, not on flow ids, the
 * order flows were added or which other components exist: links freeze in
 * (share, link id) order, and flows frozen in one step subtract the same x,
 * so an incremental solve is bit-identical to a solve from scratch. */

#define NONE UINT32_MAX
#define DEAD UINT32_MAX /* Flow.len of a free flow id */

typedef struct {
    double cap;     /* bytes/s, >= 0 (may be +inf) */
    uint32_t head;  /* first incidence node of its flow list, or NONE */
    uint32_t seen;  /* solve stamp when visited by the current solve */
    uint32_t loc;   /* index in the component scratch when seen */
    uint32_t dnext; /* next dirty link (nlinks = end of stack), NONE = clean */
} Link;

typedef struct {
    uint32_t link;  /* directed link id */
    uint32_t flow;  /* flow id */
    uint32_t lnext; /* next node on the link's list, or NONE */
    uint32_t lprev; /* previous node on the link's list, or NONE */
    uint32_t fnext; /* next node of the flow's path (or of the free list) */
    uint32_t loc;   /* the link's component index, set by the BFS */
} Inc;

typedef struct {
    double cap;     /* rate cap, bytes/s; +inf = none */
    double rate;    /* last solved rate, bytes/s */
    uint32_t owner; /* caller's tag */
    uint32_t first; /* first path node; next free id when free */
    uint32_t len;   /* path length; DEAD when the id is free */
    uint32_t seen;  /* solve stamp when in the current component */
    uint32_t frozen; /* solve stamp when frozen in the current solve */
} Flow;

typedef struct {
    double rem;    /* capacity not yet taken by frozen flows, bytes/s */
    double key;    /* fair share rem / cnt, clamped to the water level */
    uint32_t link; /* directed link id (heap tie-break) */
    uint32_t cnt;  /* unfrozen flows (incidences) crossing it */
    uint32_t pos;  /* heap position, NONE when not in the heap */
} CompLink;

struct WkFlowNet {
    uint32_t nlinks;
    Link *links;         /* [nlinks] */
    uint32_t dirty;      /* top of the dirty stack, nlinks = empty */

    Flow *flows;         /* [flow_cap] */
    uint32_t flow_cap;   /* slots allocated */
    uint32_t flow_hw;    /* ids ever handed out: [0, flow_hw) */
    uint32_t flow_free;  /* free-list head, NONE = empty */
    size_t live;         /* flows in the network */

    Inc *inc;            /* [inc_cap] */
    uint32_t inc_cap;
    uint32_t inc_hw;     /* nodes ever used */
    uint32_t inc_free;   /* free-list head */
    size_t inc_live;     /* nodes on paths */

    uint32_t *pending;   /* flows without links to rate at the next solve */
    size_t npending, pending_cap;

    /* solver scratch, sized by add: flows side [flow_cap], links side [comp_cap] */
    uint32_t *cflow;     /* component flows */
    uint32_t *ccapped;   /* component flows with a cap, sorted by (cap, id) */
    uint32_t *changed;   /* flows whose rate changed in the last solve */
    size_t nchanged;
    CompLink *cl;        /* component links */
    uint32_t *heap;      /* component link indices, min-heap by (key, link) */
    uint32_t comp_cap;
    uint32_t stamp;      /* current solve stamp, never 0 */

    uint64_t solves, rerated;
};

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

/* Make room for one more flow (and its scratch slots). */
static int reserve_flow(WkFlowNet *n)
{
    if (n->flow_free != NONE || n->flow_hw < n->flow_cap)
        return 0;
    uint32_t cap = n->flow_cap;
    int rc = grow((void **)&n->flows, &cap, (size_t)n->flow_hw + 1, sizeof *n->flows);
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

/* Make room for k more path nodes, and component scratch for every link they
 * might bring into one component. */
static int reserve_inc(WkFlowNet *n, size_t k)
{
    size_t recycled = 0; /* free-list nodes, counted up to k */
    for (uint32_t i = n->inc_free; i != NONE && recycled < k; i = n->inc[i].fnext)
        recycled++;
    if (recycled < k) {
        int rc = grow((void **)&n->inc, &n->inc_cap, (size_t)n->inc_hw + (k - recycled),
                      sizeof *n->inc);
        if (rc)
            return rc;
    }
    size_t need = n->inc_live + k;
    if (need > n->nlinks)
        need = n->nlinks;
    if (need < 1)
        need = 1;
    if (need > n->comp_cap) {
        uint32_t cap = n->comp_cap;
        int rc = grow((void **)&n->cl, &cap, need, sizeof *n->cl);
        if (rc)
            return rc;
        uint32_t *h = realloc(n->heap, (size_t)cap * sizeof *h);
        if (!h)
            return WK_E_NOMEM;
        n->heap = h;
        n->comp_cap = cap;
    }
    return 0;
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

static int live_id(const WkFlowNet *n, uint32_t id)
{
    return id < n->flow_hw && n->flows[id].len != DEAD;
}

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

/* ---- the heap of component links ---------------------------------------- */

static int cl_less(const CompLink *cl, uint32_t a, uint32_t b)
{
    if (cl[a].key != cl[b].key)
        return cl[a].key < cl[b].key;
    return cl[a].link < cl[b].link;
}

static void heap_place(WkFlowNet *n, uint32_t pos, uint32_t c)
{
    n->heap[pos] = c;
    n->cl[c].pos = pos;
}

static void sift_up(WkFlowNet *n, uint32_t pos)
{
    uint32_t c = n->heap[pos];
    while (pos > 0) {
        uint32_t up = (pos - 1) / 2;
        if (!cl_less(n->cl, c, n->heap[up]))
            break;
        heap_place(n, pos, n->heap[up]);
        pos = up;
    }
    heap_place(n, pos, c);
}

static void sift_down(WkFlowNet *n, uint32_t pos, uint32_t size)
{
    uint32_t c = n->heap[pos];
    for (;;) {
        uint32_t kid = 2 * pos + 1;
        if (kid >= size)
            break;
        if (kid + 1 < size && cl_less(n->cl, n->heap[kid + 1], n->heap[kid]))
            kid++;
        if (!cl_less(n->cl, n->heap[kid], c))
            break;
        heap_place(n, pos, n->heap[kid]);
        pos = kid;
    }
    heap_place(n, pos, c);
}

/* Remove the entry at pos from a heap of *size entries. */
static void heap_delete(WkFlowNet *n, uint32_t pos, uint32_t *size)
{
    uint32_t gone = n->heap[pos];
    n->cl[gone].pos = NONE;
    uint32_t last = --*size;
    if (pos == last)
        return;
    heap_place(n, pos, n->heap[last]);
    sift_down(n, pos, *size);
    sift_up(n, pos);
}

/* ---- water-filling ------------------------------------------------------ */

static int cmp_cap(const void *a, const void *b, const Flow *flows)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (flows[x].cap != flows[y].cap)
        return flows[x].cap < flows[y].cap ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Insertion-sorts small runs, merges otherwise: qsort has no context
 * argument in C11, and the solver keeps no globals. */
static void sort_capped(uint32_t *a, uint32_t *tmp, size_t m, const Flow *flows)
{
    if (m < 24) {
        for (size_t i = 1; i < m; i++) {
            uint32_t v = a[i];
            size_t j = i;
            while (j > 0 && cmp_cap(&v, &a[j - 1], flows) < 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    size_t h = m / 2;
    sort_capped(a, tmp, h, flows);
    sort_capped(a + h, tmp, m - h, flows);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < m)
        tmp[k++] = cmp_cap(&a[j], &a[i], flows) < 0 ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < m)
        tmp[k++] = a[j++];
    memcpy(a, tmp, m * sizeof *a);
}

/* Freeze flow f at rate x: record a change, take x from every link it
 * crosses and re-key those links (level = the current water level). */
static void freeze(WkFlowNet *n, uint32_t f, double x, double level, uint32_t *hsize)
{
    Flow *fl = &n->flows[f];
    fl->frozen = n->stamp;
    if (fl->rate != x) {
        n->changed[n->nchanged++] = f;
        fl->rate = x;
    }
    for (uint32_t k = fl->first; k != NONE; k = n->inc[k].fnext) {
        CompLink *c = &n->cl[n->inc[k].loc];
        if (c->rem != HUGE_VAL)
            c->rem -= x;
        c->cnt--;
        if (c->pos == NONE)
            continue;
        if (c->cnt == 0) {
            heap_delete(n, c->pos, hsize);
            continue;
        }
        double share = c->rem / c->cnt;
        c->key = share > level ? share : level;
        sift_down(n, c->pos, *hsize);
        sift_up(n, c->pos);
    }
}

/* Collect the component of link l0 into cl[0..nl) and cflow[0..nf). */
static void collect(WkFlowNet *n, uint32_t l0, uint32_t *nl_out, uint32_t *nf_out)
{
    uint32_t nl = 0, nf = 0, stamp = n->stamp;
    n->links[l0].seen = stamp;
    n->links[l0].loc = 0;
    n->cl[nl++] = (CompLink){.rem = n->links[l0].cap, .link = l0, .cnt = 0, .pos = NONE};
    for (uint32_t q = 0; q < nl; q++) {
        for (uint32_t k = n->links[n->cl[q].link].head; k != NONE; k = n->inc[k].lnext) {
            uint32_t f = n->inc[k].flow;
            if (n->flows[f].seen == stamp)
                continue;
            n->flows[f].seen = stamp;
            n->cflow[nf++] = f;
            for (uint32_t j = n->flows[f].first; j != NONE; j = n->inc[j].fnext) {
                Link *L = &n->links[n->inc[j].link];
                if (L->seen != stamp) {
                    L->seen = stamp;
                    L->loc = nl;
                    n->cl[nl++] = (CompLink){.rem = L->cap, .link = n->inc[j].link, .pos = NONE};
                }
                n->inc[j].loc = L->loc;
                n->cl[L->loc].cnt++;
            }
        }
    }
    *nl_out = nl;
    *nf_out = nf;
}

/* Progressive filling of the component in cl[0..nl), cflow[0..nf). */
static void fill(WkFlowNet *n, uint32_t nl, uint32_t nf)
{
    uint32_t hsize = 0;
    for (uint32_t c = 0; c < nl; c++) {
        if (n->cl[c].cnt == 0)
            continue;
        n->cl[c].key = n->cl[c].rem / n->cl[c].cnt;
        heap_place(n, hsize++, c);
    }
    for (uint32_t i = hsize / 2; i-- > 0;)
        sift_down(n, i, hsize);

    uint32_t ncap = 0;
    for (uint32_t i = 0; i < nf; i++)
        if (n->flows[n->cflow[i]].cap != HUGE_VAL)
            n->ccapped[ncap++] = n->cflow[i];
    /* cflow is no longer needed: it is the merge buffer. */
    sort_capped(n->ccapped, n->cflow, ncap, n->flows);

    double level = 0.0;
    uint32_t ci = 0;
    for (;;) {
        while (ci < ncap && n->flows[n->ccapped[ci]].frozen == n->stamp)
            ci++;
        if (ci < ncap && (hsize == 0 || n->flows[n->ccapped[ci]].cap <= n->cl[n->heap[0]].key)) {
            uint32_t f = n->ccapped[ci++];
            double x = n->flows[f].cap;
            if (x > level)
                level = x;
            freeze(n, f, x, level, &hsize);
            continue;
        }
        if (hsize == 0)
            break;
        uint32_t c = n->heap[0];
        double x = n->cl[c].key;
        if (x > level)
            level = x;
        heap_delete(n, 0, &hsize);
        for (uint32_t k = n->links[n->cl[c].link].head; k != NONE; k = n->inc[k].lnext) {
            uint32_t f = n->inc[k].flow;
            if (n->flows[f].frozen != n->stamp)
                freeze(n, f, x, level, &hsize);
        }
    }
}

static void next_stamp(WkFlowNet *n)
{
    if (++n->stamp != 0)
        return;
    for (uint32_t l = 0; l < n->nlinks; l++)
        n->links[l].seen = 0;
    for (uint32_t f = 0; f < n->flow_hw; f++)
        n->flows[f].seen = n->flows[f].frozen = 0;
    n->stamp = 1;
}

int wk_flownet_solve(WkFlowNet *n, WkError *err)
{
    (void)err; /* add reserved every buffer this needs */
    next_stamp(n);
    n->nchanged = 0;
    n->solves++;

    for (size_t i = 0; i < n->npending; i++) {
        uint32_t f = n->pending[i];
        Flow *fl = &n->flows[f];
        if (!live_id(n, f) || fl->len != 0 || fl->seen == n->stamp)
            continue; /* removed, or the id now names a flow with links */
        fl->seen = n->stamp;
        if (fl->rate != fl->cap) {
            fl->rate = fl->cap;
            n->changed[n->nchanged++] = f;
        }
        n->rerated++;
    }
    n->npending = 0;

    while (n->dirty != n->nlinks) {
        uint32_t l = n->dirty;
        n->dirty = n->links[l].dnext;
        n->links[l].dnext = NONE;
        if (n->links[l].seen == n->stamp || n->links[l].head == NONE)
            continue; /* already solved, or no flow to rate */
        uint32_t nl, nf;
        collect(n, l, &nl, &nf);
        n->rerated += nf;
        if (nf > 0)
            fill(n, nl, nf);
    }
    return 0;
}
