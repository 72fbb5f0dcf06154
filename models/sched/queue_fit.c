/* SPDX-License-Identifier: Apache-2.0 */
/* queue_fit.c — one GPU count's waiting jobs (WkFitList): a sorted array in
 * queue order whose removed items stay behind as tombstones until they
 * outnumber the live ones, under a min-tree of the jobs' remaining-time
 * estimates, so "the first job after x expected to end within s" takes
 * O(log n) instead of a scan. queue.c builds the size index and the EASY
 * pass on it. */
#include "models/sched/queue.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tree leaf of a live job: its estimate, kept below INFINITY (which marks a
 * tombstone or an unused leaf); NaN counts as unknown, i.e. large. */
static double leaf_of(double rem_s)
{
    return rem_s <= DBL_MAX ? rem_s : DBL_MAX;
}

#define before wk_queue_before

/* Recompute every inner node from the leaves. */
static double min2(double a, double b)
{
    return a < b ? a : b;
}

static void tree_build(WkFitList *l)
{
    for (size_t i = l->n; i < l->width; i++)
        l->tree[l->width + i] = INFINITY;
    for (size_t v = l->width; v-- > 1;)
        l->tree[v] = min2(l->tree[2 * v], l->tree[2 * v + 1]);
}

static void tree_set(WkFitList *l, size_t i, double v)
{
    size_t x = l->width + i;
    l->tree[x] = v;
    for (x >>= 1; x >= 1; x >>= 1)
        l->tree[x] = min2(l->tree[2 * x], l->tree[2 * x + 1]);
}

/* Room for want slots: items and a tree of a power-of-two width; leaves
 * are kept. Returns 0 or WK_E_NOMEM (list unchanged). */
static int reserve(WkFitList *l, size_t want)
{
    if (want <= l->cap)
        return 0;
    size_t nc = l->cap ? 2 * l->cap : 16;
    while (nc < want)
        nc *= 2;
    WkQueueItem *ni = realloc(l->it, nc * sizeof *ni);
    if (!ni)
        return WK_E_NOMEM;
    l->it = ni;
    double *nt = malloc(2 * nc * sizeof *nt);
    if (!nt)
        return WK_E_NOMEM;
    for (size_t i = 0; i < l->n; i++)
        nt[nc + i] = l->tree[l->width + i];
    free(l->tree);
    l->tree = nt;
    l->cap = l->width = nc;
    tree_build(l);
    return 0;
}

/* First slot (0 .. n) whose item does not come before x (tombstones keep
 * their place in the order, so the slots stay sorted). */
static size_t lower(const WkFitList *l, const WkQueueItem *x)
{
    size_t a = 0, b = l->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (before(&l->it[m], x))
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* First slot whose item comes after x. */
static size_t upper(const WkFitList *l, const WkQueueItem *x)
{
    size_t a = 0, b = l->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (before(x, &l->it[m]))
            b = m;
        else
            a = m + 1;
    }
    return a;
}

/* Drop the tombstones, keeping the order. */
static void compact(WkFitList *l)
{
    if (l->live == l->n)
        return;
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!l->it[i].gone) {
            l->it[k] = l->it[i];
            l->tree[l->width + k] = l->tree[l->width + i];
            k++;
        }
    l->n = k;
    tree_build(l);
}

int wk_fit_push(WkFitList *l, const WkQueueItem *x, double rem_s)
{
    if (reserve(l, l->n + 1) < 0)
        return WK_E_NOMEM;
    size_t at = upper(l, x);
    if (at == l->n) { /* the usual case: behind every waiting job */
        l->it[l->n++] = *x;
        l->it[at].gone = 0;
        tree_set(l, at, leaf_of(rem_s));
    } else { /* in the middle (a job back after an incident): shift, rebuild */
        memmove(l->it + at + 1, l->it + at, (l->n - at) * sizeof *l->it);
        memmove(l->tree + l->width + at + 1, l->tree + l->width + at, (l->n - at) * sizeof *l->tree);
        l->it[at] = *x;
        l->it[at].gone = 0;
        l->tree[l->width + at] = leaf_of(rem_s);
        l->n++;
        tree_build(l);
    }
    l->live++;
    return 0;
}

int wk_fit_del(WkFitList *l, const WkQueueItem *x)
{
    size_t i = lower(l, x);
    while (i < l->n && l->it[i].gone && !before(x, &l->it[i]))
        i++; /* an earlier stay of the same job, already gone */
    if (i == l->n || before(x, &l->it[i]))
        return 0;
    l->it[i].gone = 1;
    tree_set(l, i, INFINITY);
    l->live--;
    if (l->n > 32 && 2 * l->live < l->n)
        compact(l);
    return 1;
}

const WkQueueItem *wk_fit_next(const WkFitList *l, const WkQueueItem *after, double within_s)
{
    size_t i = after ? upper(l, after) : 0;
    double s = within_s <= DBL_MAX ? within_s : DBL_MAX;
    if (i >= l->n || !(s >= -DBL_MAX) || l->tree[1] > s)
        return NULL;
    size_t v = l->width + i;
    if (l->tree[v] > s) {
        /* climb while v is a right child or its right sibling holds nothing
         * within s; everything from slot i in v's subtree is known to fail */
        while (v > 1 && ((v & 1) || l->tree[v + 1] > s))
            v >>= 1;
        if (v == 1)
            return NULL;
        v++;
        while (v < l->width) /* descend to the leftmost leaf within s */
            v = l->tree[2 * v] <= s ? 2 * v : 2 * v + 1;
    }
    return &l->it[v - l->width];
}

/* Slots in queue order (the item comes first in struct Slot). */
static int cmp_slot(const void *a, const void *b)
{
    const WkQueueItem *x = a, *y = b;
    return before(x, y) ? -1 : before(y, x) ? 1 : 0;
}

int wk_fit_rekey(WkFitList *l, const WkFitKey *k, const void *priv, const WkSchedCtx *ctx, uint32_t gpus)
{
    /* from the back (tombstones too: they keep their place in the order),
     * down to the first job whose key is settled and already set */
    size_t i = l->n;
    for (; i > 0; i--) {
        WkQueueItem *x = &l->it[i - 1];
        double v = k->key(priv, ctx, x, gpus);
        if (k->settled && v == x->key && k->settled(priv, ctx, x))
            break;
        x->key = v;
    }
    int sorted = 1; /* keys that shift together keep the order */
    for (size_t j = i ? i : 1; j < l->n && sorted; j++)
        sorted = !before(&l->it[j], &l->it[j - 1]);
    if (sorted)
        return 0;
    struct Slot {
        WkQueueItem it;
        double leaf;
    } *t = malloc(l->n * sizeof *t);
    if (!t)
        return WK_E_NOMEM;
    for (size_t j = 0; j < l->n; j++)
        t[j] = (struct Slot){l->it[j], l->tree[l->width + j]};
    qsort(t, l->n, sizeof *t, cmp_slot);
    for (size_t j = 0; j < l->n; j++)
        l->it[j] = t[j].it, l->tree[l->width + j] = t[j].leaf;
    free(t);
    tree_build(l);
    return 0;
}

void wk_fit_fini(WkFitList *l)
{
    free(l->it);
    free(l->tree);
    memset(l, 0, sizeof *l);
}
