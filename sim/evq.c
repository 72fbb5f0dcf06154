/* SPDX-License-Identifier: Apache-2.0 */
/* evq.c — pending-event set (placeholder binary heap; see evq.h). */
#include "sim/evq.h"

#include <stdlib.h>

struct WkEvq {
    WkEvent *a;
    size_t n, cap;
};

static int less(const WkEvent *x, const WkEvent *y)
{
    return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

int wk_evq_new(WkEvq **out, WkError *err)
{
    WkEvq *q = calloc(1, sizeof *q);
    if (!q)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "event queue: out of memory");
    *out = q;
    return 0;
}

void wk_evq_free(WkEvq *q)
{
    if (!q)
        return;
    free(q->a);
    free(q);
}

int wk_evq_push(WkEvq *q, const WkEvent *ev)
{
    if (q->n == q->cap) {
        size_t nc = q->cap ? q->cap * 2 : 1024;
        WkEvent *na = realloc(q->a, nc * sizeof *na);
        if (!na)
            return WK_E_NOMEM;
        q->a = na;
        q->cap = nc;
    }
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!less(ev, &q->a[p]))
            break;
        q->a[i] = q->a[p];
        i = p;
    }
    q->a[i] = *ev;
    return 0;
}

int wk_evq_pop(WkEvq *q, WkEvent *out)
{
    if (q->n == 0)
        return 0;
    *out = q->a[0];
    WkEvent last = q->a[--q->n];
    size_t i = 0, n = q->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && less(&q->a[c + 1], &q->a[c]))
            c++;
        if (!less(&q->a[c], &last))
            break;
        q->a[i] = q->a[c];
        i = c;
    }
    if (n)
        q->a[i] = last;
    return 1;
}

WkTime wk_evq_peek_time(WkEvq *q)
{
    return q->n ? q->a[0].time : WK_TIME_NEVER;
}

size_t wk_evq_size(const WkEvq *q)
{
    return q->n;
}
