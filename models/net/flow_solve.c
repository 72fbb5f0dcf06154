/* SPDX-License-Identifier: Apache-2.0 */
/* flow_solve.c — max-min fair rates of flows on directed links by
 * progressive filling, re-solved per connected component of the links
 * touched since the last solve (the method is described in flow_impl.h).
 * Never allocates: flow.c grows the scratch arrays when flows are added. */
#include "models/net/flow_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Sort ids a[0..m) ascending through tmp, 11 bits a pass. */
static void radix_ids(uint32_t *a, uint32_t *tmp, size_t m, uint32_t top)
{
    int passes = top < (1u << 11) ? 1 : top < (1u << 22) ? 2 : 3;
    uint32_t *src = a, *dst = tmp;
    for (int p = 0; p < passes; p++) {
        size_t count[2049] = {0};
        int sh = 11 * p;
        for (size_t i = 0; i < m; i++)
            count[(src[i] >> sh & 2047) + 1]++;
        for (size_t d = 1; d <= 2048; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < m; i++)
            dst[count[src[i] >> sh & 2047]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, m * sizeof *a);
}

/* Insertion-sorts small runs, merges otherwise: qsort has no context
 * argument in C11, and the solver keeps no globals. One cap for all (the
 * runs' rings, capped at the link rate): the ids by radix sort. */
static void sort_capped(uint32_t *a, uint32_t *tmp, size_t m, const Flow *flows)
{
    if (m >= 256) {
        size_t same = 1;
        uint32_t top = a[0];
        while (same < m && flows[a[same]].cap == flows[a[0]].cap) {
            if (a[same] > top)
                top = a[same];
            same++;
        }
        if (same == m) {
            radix_ids(a, tmp, m, top);
            return;
        }
    }
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
        double share = c->rem / c->cnt, key = share > level ? share : level;
        if (key == c->key)
            continue;
        int up = key < c->key; /* rounding only: a share frozen at the level rises */
        c->key = key;
        if (up)
            sift_up(n, c->pos);
        else
            sift_down(n, c->pos, *hsize);
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

/* The flow of l's component when that component is one flow: the only
 * flow on l and on every link of its path (no link twice); else NONE. *x
 * receives its rate: the smaller of its cap and its links' capacities. */
static uint32_t lone_flow(const WkFlowNet *n, uint32_t l, double *x)
{
    uint32_t k = n->links[l].head;
    if (n->inc[k].lnext != NONE)
        return NONE;
    uint32_t f = n->inc[k].flow;
    double r = n->flows[f].cap;
    for (uint32_t j = n->flows[f].first; j != NONE; j = n->inc[j].fnext) {
        const Link *L = &n->links[n->inc[j].link];
        if (L->head != j || n->inc[j].lnext != NONE)
            return NONE;
        r = L->cap < r ? L->cap : r;
    }
    *x = r;
    return f;
}

/* Rate the lone flow f of a component at x, what fill() gives it: each of
 * its links' share is its capacity (one flow: divided by 1, exact), and f
 * freezes at the smaller of its cap and the smallest share, the same value
 * whichever of the two fill() takes first. */
static void solve_lone(WkFlowNet *n, uint32_t f, double x)
{
    Flow *fl = &n->flows[f];
    for (uint32_t j = fl->first; j != NONE; j = n->inc[j].fnext)
        n->links[n->inc[j].link].seen = n->stamp;
    fl->seen = fl->frozen = n->stamp;
    if (fl->rate != x) {
        n->changed[n->nchanged++] = f;
        fl->rate = x;
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
        double x;
        uint32_t f = lone_flow(n, l, &x);
        if (f != NONE) { /* the rings' usual case: a flow alone on its links */
            solve_lone(n, f, x);
            n->rerated++;
            continue;
        }
        uint32_t nl, nf;
        collect(n, l, &nl, &nf);
        n->rerated += nf;
        if (nf > 0)
            fill(n, nl, nf);
    }
    return 0;
}
