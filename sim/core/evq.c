/* SPDX-License-Identifier: Apache-2.0 */
/* evq.c — the pending-event set as a ladder queue (Tang, Goh & Thng 2005):
 * O(1) amortized push and pop in strict (time, seq) order, adapting its
 * bucket widths to the population and time spread without tuning.
 *
 * Structure. Events live by value in a pool of 32-byte slots; a parallel
 * array of 32-bit links threads them into lists (kept apart from the events
 * so that walking a list stays in cache). Three tiers hold disjoint,
 * increasing time ranges:
 *
 *   bottom  a sorted array of slot indices: the next events to pop. It holds
 *           every event with time < lo of the deepest rung (or <= top_floor
 *           when there is no rung). Pop takes its head: O(1).
 *   rungs   rung[0..nr): each an array of buckets (unsorted lists) of width
 *           2^shift ns. rung[k] covers [lo, max]; lo is the lower edge of its
 *           next unprocessed bucket. rung[k+1] was spawned from one bucket
 *           of rung[k], so deeper rungs are finer and cover earlier times.
 *   top     an unsorted array of every event with time > top_floor, in
 *           arrival order; its min and max are tracked on insert.
 *
 * Push routes an event by comparing its time with top_floor and the rungs'
 * lo, then appends it to the top or links it into a bucket (O(1)), or
 * inserts it into the bottom (binary search; the bottom stays small). When the bottom runs empty, the
 * deepest rung hands down its next non-empty bucket: a bucket with few
 * events (or all at one time) is sorted into the bottom; a crowded one
 * becomes a new, finer rung. When every rung is spent, the top becomes
 * rung 0 with about two buckets per event, their width a power of two (a
 * shift, no division) chosen from the events' time spread: this is where the
 * queue re-adapts to the population and spread, once per "epoch". A bottom
 * that grows too large from inserts is spilled back into a rung. Each event
 * is thus moved O(1) times amortized; pop is allocation-free and never fails,
 * and it walks the next buckets' lists ahead of time (aim_prefetch) to hide
 * cache misses in large queues, whose arrays ask for huge pages (grow_array)
 * to spare the TLB. Memory: the pool (32 B event + 4 B link + 4 B bottom +
 * 4 B top per slot) and the bucket heads (4 B, two to four per event); the pool
 * is compacted below 1/8 full, so memory follows the population down too. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#endif
#include "sim/core/evq.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define NIL UINT32_MAX
#define MAX_RUNGS 16        /* deeper rungs are not needed: each is ~n x finer */
#define THRES 48            /* a bucket with more events is split into a rung */
#define BOT_SPILL 512       /* minimum bottom size that triggers a spill */
#define POOL_MIN 1024u      /* the pool never shrinks below this many slots */
#define BUCKETS_PER_EVENT 2 /* rung size relative to the events it receives */
#define PF_WAYS 4           /* lists walked ahead at once (see aim_prefetch) */
#define PF_LOOK 64          /* buckets scanned ahead for lists to walk */
#define PF_MIN_EVENTS 32768 /* fewer (~1.3 MiB of queue) stay cached: no cursors */
#define LINK_LAG 8          /* pushes a bucket link waits for its head to arrive */

/* Keep the slower paths out of push and pop, so these stay small. */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#define COLD __attribute__((noinline, cold))
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define NOINLINE
#define COLD
#define PREFETCH(p) ((void)(p))
#endif

/* Number of significant bits of x (0 for 0). */
static inline unsigned bit_length(uint64_t x)
{
#if defined(__GNUC__)
    return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
#else
    unsigned n = 0;
    for (; x; x >>= 1)
        n++;
    return n;
#endif
}

/* Bottom size that triggers a spill, for a bottom of n events. */
static inline uint32_t spill_limit(uint32_t n)
{
    uint64_t lim = 2 * (uint64_t)n;
    return lim < BOT_SPILL ? BOT_SPILL : lim > UINT32_MAX ? UINT32_MAX : (uint32_t)lim;
}

typedef struct {
    WkTime start;   /* lower edge of bucket 0, ns */
    WkTime lo;      /* lower edge of bucket cur: the rung holds [lo, max] */
    WkTime max;     /* inclusive upper edge; the last bucket ends here */
    uint32_t *head; /* head[b]: first slot of bucket b's list, NIL when empty */
    uint32_t nb;    /* buckets in use */
    uint32_t cap;   /* allocated length of head */
    uint32_t cur;   /* next bucket to hand down; buckets < cur are empty */
    unsigned shift; /* bucket width = 2^shift ns */
} Rung;

struct WkEvq {
    WkEvent *ev;        /* slot storage, `cap` slots */
    uint32_t *next;     /* next[i]: the slot after i in its list, or NIL */
    uint32_t *bot;      /* bottom: sorted slots in [bhead, btail); `cap` long */
    uint32_t cap;       /* slots in ev, next, bot and top */
    uint32_t used;      /* slots ever handed out since the last compaction */
    uint32_t free_head; /* free slots, linked through next */
    uint32_t bhead, btail;
    uint32_t spill_at;  /* bottom size that triggers a spill into a rung */
    uint32_t pf[PF_WAYS];  /* prefetch cursors (aim_prefetch), NIL when idle */
    uint32_t pfb[PF_WAYS]; /* pf[w] walks bucket pfb[w] of the deepest rung */
    uint32_t pf_next;      /* first bucket no cursor has been aimed at yet */
    int pf_on;             /* cursors and lagged links: the queue outgrows the caches */
    uint32_t *lag_at[LINK_LAG]; /* pushes not yet linked (link_lagged): bucket head */
    uint32_t lag_slot[LINK_LAG]; /* ... and the slot to link into it */
    unsigned nlag, lag_pos;      /* entries in the ring; next ring position */
    uint64_t pf_shape;     /* `shape` when the cursors were aimed */
    uint64_t shape;        /* bumped whenever the deepest rung changes */
    size_t n;           /* events queued */
    uint32_t *top;      /* top: its slots in arrival order, [0, ntop); `cap` long */
    uint32_t ntop;
    WkTime top_min, top_max; /* times in the top list, valid when ntop > 0 */
    WkTime top_floor;        /* top holds exactly the events with time > top_floor */
    unsigned nr;             /* rungs in use */
    Rung rung[MAX_RUNGS];
};

/* (time, seq) order of two slots. */
static inline int before(const WkEvent *e, uint32_t a, uint32_t b)
{
    return e[a].time < e[b].time || (e[a].time == e[b].time && e[a].seq < e[b].seq);
}

/* ---- sorting slot indices (by their events) ---- */

static void insertion_sort(const WkEvent *e, uint32_t *a, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = a[i], j = i;
        while (j > 0 && before(e, x, a[j - 1])) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static void sift_down(const WkEvent *e, uint32_t *a, uint32_t i, uint32_t n)
{
    uint32_t x = a[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(e, a[c], a[c + 1]))
            c++;
        if (!before(e, x, a[c]))
            break;
        a[i] = a[c];
        i = c;
    }
    a[i] = x;
}

/* In place and allocation-free, so a pop never fails. Runs already in
 * order or in reverse (a burst of one timestamp) cost O(n). */
static void sort_slots(const WkEvent *e, uint32_t *a, uint32_t n)
{
    if (n <= 32) {
        insertion_sort(e, a, n);
        return;
    }
    uint32_t up = 0, down = 0;
    for (uint32_t i = 1; i < n; i++) {
        up += before(e, a[i - 1], a[i]);
        down += before(e, a[i], a[i - 1]);
    }
    if (up == n - 1)
        return;
    if (down == n - 1) {
        for (uint32_t i = 0, j = n - 1; i < j; i++, j--) {
            uint32_t t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return;
    }
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(e, a, i, n);
    for (uint32_t end = n - 1; end > 0; end--) {
        uint32_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(e, a, 0, end);
    }
}

/* ---- rungs ---- */

/* Bucket of time t in rung r (t >= r->lo); the last bucket takes the rest. */
static inline uint32_t bucket_of(const Rung *r, WkTime t)
{
    uint64_t b = ((uint64_t)t - (uint64_t)r->start) >> r->shift;
    return b < r->nb ? (uint32_t)b : r->nb - 1;
}

/* Make rung[nr] from slots a[0..n) (times in [min, max], min < max), covering
 * [min, range_max]. Returns 0, or -1 when its bucket array cannot be
 * allocated (nothing changed). */
static int make_rung(WkEvq *q, const uint32_t *a, uint32_t n, WkTime min, WkTime max,
                     WkTime range_max)
{
    uint64_t target = (uint64_t)n * BUCKETS_PER_EVENT;
    if (target > (UINT32_MAX >> 2))
        target = UINT32_MAX >> 2;
    uint64_t span = (uint64_t)max - (uint64_t)min;
    unsigned shift = bit_length(span / target); /* least with span >> shift < target */
    /* Buckets up to range_max; past 2 x target the last one catches the rest. */
    uint64_t nb = ((uint64_t)range_max - (uint64_t)min) >> shift;
    nb = nb < 2 * target ? nb + 1 : 2 * target;
    Rung *r = &q->rung[q->nr];
    if (nb > r->cap || (r->cap > 4 * nb && r->cap > 4096)) {
        uint32_t *h = realloc(r->head, nb * sizeof *h);
        if (!h)
            return -1;
        r->head = h;
        r->cap = (uint32_t)nb;
    }
    r->nb = (uint32_t)nb;
    r->cur = 0;
    r->shift = shift;
    r->start = r->lo = min;
    r->max = range_max;
    memset(r->head, 0xff, nb * sizeof *r->head); /* all NIL */
    for (uint32_t k = 0; k < n; k++) {
        if (k + 16 < n) /* random reads, independent: keep several in flight */
            PREFETCH(&q->ev[a[k + 16]]);
        uint32_t i = a[k], b = bucket_of(r, q->ev[i].time);
        q->next[i] = r->head[b];
        r->head[b] = i;
    }
    q->nr++;
    q->shape++;
    return 0;
}

/* Inclusive upper edge of the bottom's time range. */
static WkTime bottom_max(const WkEvq *q)
{
    return q->nr ? q->rung[q->nr - 1].lo - 1 : q->top_floor;
}

/* Hand down the slots gathered at bot[0..n), all at times <= range_max, while
 * the bottom is empty: a crowded, spread-out set becomes a new rung, anything
 * else is sorted and becomes the bottom. */
static void hand_down(WkEvq *q, uint32_t n, WkTime range_max)
{
    uint32_t *a = q->bot;
    if (n > THRES && q->nr < MAX_RUNGS) {
        WkTime min = q->ev[a[0]].time, max = min;
        for (uint32_t k = 1; k < n; k++) {
            WkTime t = q->ev[a[k]].time;
            min = t < min ? t : min;
            max = t > max ? t : max;
        }
        if (min < max && make_rung(q, a, n, min, max, range_max) == 0)
            return;
    }
    sort_slots(q->ev, a, n);
    q->bhead = 0;
    q->btail = n;
    q->spill_at = spill_limit(n);
}

/* Gather list `i` into bot[0..), returning its length. */
static uint32_t gather(WkEvq *q, uint32_t i)
{
    uint32_t n = 0;
    for (; i != NIL; i = q->next[i])
        q->bot[n++] = i;
    return n;
}

/* Turn an oversized bottom back into a rung: bursts of inserts below the
 * deepest rung would otherwise make each insert O(bottom size). */
static void spill(WkEvq *q)
{
    uint32_t n = q->btail - q->bhead, *a = q->bot + q->bhead;
    WkTime min = q->ev[a[0]].time, max = q->ev[a[n - 1]].time;
    if (min == max || q->nr == MAX_RUNGS ||
        make_rung(q, a, n, min, max, bottom_max(q)) < 0) {
        q->spill_at = spill_limit(n); /* cannot split: let the bottom grow */
        return;
    }
    q->bhead = q->btail = 0;
}

/* Insert slot i into the bottom at its sorted place, moving the shorter side. */
NOINLINE static void bottom_insert(WkEvq *q, uint32_t i)
{
    uint32_t *a = q->bot, lo = q->bhead, hi = q->btail;
    if (lo == hi || before(q->ev, a[hi - 1], i)) {
        if (hi == q->cap) { /* room exists at the front: n < cap */
            memmove(a, a + lo, (hi - lo) * sizeof *a);
            hi -= lo;
            q->bhead = 0;
        }
        a[hi] = i;
        q->btail = hi + 1;
    } else {
        while (lo < hi) { /* first element after i */
            uint32_t mid = lo + (hi - lo) / 2;
            if (before(q->ev, i, a[mid]))
                hi = mid;
            else
                lo = mid + 1;
        }
        uint32_t pos = lo;
        if (q->bhead > 0 && (pos - q->bhead < q->btail - pos || q->btail == q->cap)) {
            memmove(a + q->bhead - 1, a + q->bhead, (pos - q->bhead) * sizeof *a);
            q->bhead--;
            a[pos - 1] = i;
        } else {
            memmove(a + pos + 1, a + pos, (q->btail - pos) * sizeof *a);
            q->btail++;
            a[pos] = i;
        }
    }
    if (q->btail - q->bhead > q->spill_at)
        spill(q);
}

/* Drop every prefetch cursor. */
static void pf_reset(WkEvq *q)
{
    for (unsigned w = 0; w < PF_WAYS; w++)
        q->pf[w] = NIL;
}

/* Aim the prefetch cursors at the lists of the next PF_WAYS non-empty
 * buckets of the deepest rung: the buckets that refill the bottom next. Pop
 * then advances every cursor one link, so those buckets' events are in cache
 * by their turn; without this, walking a list is a chain of cache misses once
 * the queue outgrows L2. One cursor per list keeps each step a load that the
 * step before fetched (no stall inside a pop), and several lists at once
 * keep several of those loads in flight: a single cursor advances only one
 * link per memory latency, which bounded a 262k-event queue (PHOLD B) to
 * about one event per latency. Cursors whose bucket was handed down are
 * re-aimed further on; the others keep their progress. They are only hints:
 * a stale cursor follows valid links and merely fetches useless lines. */
static void aim_prefetch(WkEvq *q)
{
    q->pf_on = q->n >= PF_MIN_EVENTS;
    if (q->nr == 0 || !q->pf_on) {
        pf_reset(q);
        return;
    }
    const Rung *r = &q->rung[q->nr - 1];
    if (q->pf_shape != q->shape) {
        pf_reset(q);
        q->pf_shape = q->shape;
        q->pf_next = r->cur;
    }
    uint32_t c = q->pf_next > r->cur ? q->pf_next : r->cur;
    uint32_t lim = r->nb - r->cur > PF_LOOK ? r->cur + PF_LOOK : r->nb;
    for (unsigned w = 0; w < PF_WAYS; w++) {
        if (q->pf[w] != NIL && q->pfb[w] >= r->cur)
            continue; /* still ahead: keep walking */
        q->pf[w] = NIL;
        while (c < lim && r->head[c] == NIL)
            c++;
        if (c < lim) {
            q->pf[w] = r->head[c];
            q->pfb[w] = c++;
        }
    }
    q->pf_next = c;
}

/* Link every lagged push into its bucket (see link_lagged). */
static void flush_lag(WkEvq *q)
{
    for (unsigned j = 0; j < q->nlag; j++) {
        unsigned k = (q->lag_pos - q->nlag + j) & (LINK_LAG - 1);
        uint32_t *at = q->lag_at[k], i = q->lag_slot[k];
        q->next[i] = *at;
        *at = i;
    }
    q->nlag = 0;
    q->lag_pos = 0;
}

/* Link slot i into the bucket list whose head is *at, LINK_LAG pushes later.
 * In a large queue the head is a cache miss that push would otherwise wait
 * for; here push only prefetches it and links the push made LINK_LAG pushes
 * before, whose head has arrived by then. Nothing reads a bucket before
 * refill, and refill (and compact) first link what is lagging; the lagged
 * events are counted in n, and they cannot be due before the bottom is spent
 * (they belong to a rung), so the pop order is unchanged. */
static inline void link_lagged(WkEvq *q, uint32_t *at, uint32_t i)
{
    PREFETCH(at);
    unsigned k = q->lag_pos;
    if (q->nlag == LINK_LAG) {
        uint32_t *o = q->lag_at[k], j = q->lag_slot[k];
        q->next[j] = *o;
        *o = j;
    } else {
        q->nlag++;
    }
    q->lag_at[k] = at;
    q->lag_slot[k] = i;
    q->lag_pos = (k + 1) & (LINK_LAG - 1);
}

/* Refill the empty bottom from the deepest rung, or from the top when every
 * rung is spent. Returns 0 when the queue is empty. */
NOINLINE static int refill(WkEvq *q)
{
    flush_lag(q);
    while (q->bhead == q->btail) {
        if (q->nr == 0) {
            if (q->ntop == 0)
                return 0;
            /* The top becomes the bottom's array (swapped, not copied) and
             * is handed down; its min and max are known, so a crowded top
             * goes straight to a rung without a pass over its events. */
            uint32_t n = q->ntop, *a = q->top;
            q->top = q->bot;
            q->bot = a;
            q->ntop = 0;
            q->top_floor = q->top_max;
            if (n > THRES && q->top_min < q->top_max && q->nr < MAX_RUNGS &&
                make_rung(q, a, n, q->top_min, q->top_max, q->top_max) == 0)
                continue;
            hand_down(q, n, q->top_max);
            continue;
        }
        Rung *r = &q->rung[q->nr - 1];
        uint32_t b = r->cur;
        while (b < r->nb && r->head[b] == NIL)
            b++;
        if (b == r->nb) {
            q->nr--;
            q->shape++;
            continue;
        }
        uint32_t list = r->head[b];
        r->head[b] = NIL;
        uint64_t width = (uint64_t)1 << r->shift;
        WkTime blo = (WkTime)((uint64_t)r->start + (uint64_t)b * width);
        WkTime bmax = b + 1 == r->nb ? r->max : (WkTime)((uint64_t)blo + width - 1);
        r->cur = b + 1;
        if (r->cur == r->nb) {
            q->nr--; /* spent: its parent's lo is already past bmax */
            q->shape++;
        } else
            r->lo = (WkTime)((uint64_t)blo + width);
        hand_down(q, gather(q, list), bmax);
    }
    aim_prefetch(q);
    return 1;
}

/* Route slot i (its event, at time t, already written) to the tier owning t. */
static void route(WkEvq *q, uint32_t i, WkTime t)
{
    if (t > q->top_floor) {
        if (q->ntop == 0 || t < q->top_min)
            q->top_min = t;
        if (q->ntop == 0 || t > q->top_max)
            q->top_max = t;
        q->top[q->ntop++] = i;
        return;
    }
    for (unsigned k = 0; k < q->nr; k++) {
        Rung *r = &q->rung[k];
        if (t >= r->lo) {
            uint32_t b = bucket_of(r, t);
            if (q->pf_on) {
                link_lagged(q, &r->head[b], i);
                return;
            }
            q->next[i] = r->head[b];
            r->head[b] = i;
            return;
        }
    }
    bottom_insert(q, i);
}

/* ---- the pool ---- */

/* Resize array p (old bytes in use) to len bytes, like realloc. Arrays of
 * 4 MiB or more get fresh 2 MiB-aligned memory marked for transparent huge
 * pages: a large queue is read at random, and with 4 KiB pages most of
 * those reads would also miss the TLB. Returns NULL on failure, p
 * unchanged. */
static void *grow_array(void *p, size_t old, size_t len)
{
#if defined(MADV_HUGEPAGE)
    const size_t page = (size_t)1 << 21;
    if (len >= 2 * page) {
        void *n = aligned_alloc(page, (len + page - 1) & ~(page - 1));
        if (!n)
            return NULL;
        (void)madvise(n, (len + page - 1) & ~(page - 1), MADV_HUGEPAGE);
        if (old)
            memcpy(n, p, old);
        free(p);
        return n;
    }
#endif
    (void)old;
    return realloc(p, len);
}

/* Grow the pool to ncap slots. Returns 0, or -1 with the queue unchanged
 * (arrays already grown keep their larger size, which is harmless). */
COLD static int grow(WkEvq *q, uint32_t ncap)
{
    WkEvent *e = grow_array(q->ev, (size_t)q->cap * sizeof *e, (size_t)ncap * sizeof *e);
    if (!e)
        return -1;
    q->ev = e;
    uint32_t *nx = grow_array(q->next, (size_t)q->cap * sizeof *nx, (size_t)ncap * sizeof *nx);
    if (!nx)
        return -1;
    q->next = nx;
    uint32_t *b = grow_array(q->bot, (size_t)q->cap * sizeof *b, (size_t)ncap * sizeof *b);
    if (!b)
        return -1;
    q->bot = b;
    uint32_t *t = grow_array(q->top, (size_t)q->cap * sizeof *t, (size_t)ncap * sizeof *t);
    if (!t)
        return -1;
    q->top = t;
    q->cap = ncap;
    return 0;
}

/* Copy list i into the new arrays from slot *k on, keeping its order. */
static uint32_t copy_list(const WkEvq *q, WkEvent *ne, uint32_t *nn, uint32_t *k, uint32_t i)
{
    uint32_t head = NIL, *link = &head;
    for (; i != NIL; i = q->next[i]) {
        ne[*k] = q->ev[i];
        *link = *k;
        link = &nn[*k];
        ++*k;
    }
    *link = NIL;
    return head;
}

/* Move every queued event to the front of a smaller pool, so memory follows
 * the population down. Skipped silently when allocation fails. */
COLD static void compact(WkEvq *q)
{
    flush_lag(q);
    uint32_t ncap = (uint32_t)(4 * q->n > POOL_MIN ? 4 * q->n : POOL_MIN);
    WkEvent *ne = grow_array(NULL, 0, (size_t)ncap * sizeof *ne);
    uint32_t *nn = grow_array(NULL, 0, (size_t)ncap * sizeof *nn);
    uint32_t *nb = grow_array(NULL, 0, (size_t)ncap * sizeof *nb);
    uint32_t *nt = grow_array(NULL, 0, (size_t)ncap * sizeof *nt);
    if (!ne || !nn || !nb || !nt) {
        free(ne);
        free(nn);
        free(nb);
        free(nt);
        return;
    }
    uint32_t k = 0, nbot = q->btail - q->bhead;
    for (uint32_t j = 0; j < nbot; j++) {
        ne[k] = q->ev[q->bot[q->bhead + j]];
        nn[k] = NIL;
        nb[j] = k++;
    }
    for (uint32_t j = 0; j < q->ntop; j++) {
        ne[k] = q->ev[q->top[j]];
        nn[k] = NIL;
        nt[j] = k++;
    }
    for (unsigned r = 0; r < q->nr; r++)
        for (uint32_t b = q->rung[r].cur; b < q->rung[r].nb; b++)
            q->rung[r].head[b] = copy_list(q, ne, nn, &k, q->rung[r].head[b]);
    for (unsigned r = q->nr; r < MAX_RUNGS; r++) { /* idle rungs' buckets */
        free(q->rung[r].head);
        q->rung[r].head = NULL;
        q->rung[r].cap = 0;
    }
    free(q->ev);
    free(q->next);
    free(q->bot);
    free(q->top);
    q->ev = ne;
    q->next = nn;
    q->bot = nb;
    q->top = nt;
    q->cap = ncap;
    q->bhead = 0;
    q->btail = nbot;
    q->used = k;
    q->free_head = NIL;
    pf_reset(q);
    q->shape++;
}

/* ---- API ---- */

int wk_evq_new(WkEvq **out, WkError *err)
{
    WkEvq *q = calloc(1, sizeof *q);
    if (!q || grow(q, POOL_MIN) < 0) {
        wk_evq_free(q);
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "event queue: out of memory");
    }
    q->free_head = NIL;
    pf_reset(q);
    q->top_floor = INT64_MIN;
    q->spill_at = BOT_SPILL;
    *out = q;
    return 0;
}

void wk_evq_free(WkEvq *q)
{
    if (!q)
        return;
    for (unsigned r = 0; r < MAX_RUNGS; r++)
        free(q->rung[r].head);
    free(q->ev);
    free(q->next);
    free(q->bot);
    free(q->top);
    free(q);
}

int wk_evq_push(WkEvq *q, const WkEvent *ev)
{
    uint32_t i = q->free_head;
    if (i != NIL) {
        q->free_head = q->next[i];
    } else {
        if (q->used == q->cap &&
            (q->cap > (UINT32_MAX - 1) / 2 || grow(q, 2 * q->cap) < 0))
            return WK_E_NOMEM;
        i = q->used++;
    }
    /* Field by field: callers build *ev just before the call, and one wide
     * load spanning several narrow stores would stall store forwarding. */
    WkEvent *d = &q->ev[i];
    d->time = ev->time;
    d->seq = ev->seq;
    d->target = ev->target;
    d->kind = ev->kind;
    d->aux = ev->aux;
    d->token = ev->token;
    d->payload = ev->payload;
    route(q, i, ev->time);
    q->n++;
    return 0;
}

int wk_evq_pop(WkEvq *q, WkEvent *out)
{
    if (q->bhead == q->btail && !refill(q))
        return 0;
    uint32_t i = q->bot[q->bhead++];
    if (q->pf_on) {
        for (unsigned w = 0; w < PF_WAYS; w++) { /* one link each: see aim_prefetch */
            uint32_t p = q->pf[w];
            if (p != NIL) {
                PREFETCH(&q->ev[p]);
                q->pf[w] = q->next[p];
            }
        }
    }
    *out = q->ev[i];
    q->next[i] = q->free_head;
    q->free_head = i;
    q->n--;
    if (q->n < q->cap / 8 && q->cap > POOL_MIN)
        compact(q);
    return 1;
}

WkTime wk_evq_peek_time(WkEvq *q)
{
    if (q->bhead == q->btail && !refill(q))
        return WK_TIME_NEVER;
    return q->ev[q->bot[q->bhead]].time;
}

size_t wk_evq_size(const WkEvq *q)
{
    return q->n;
}
