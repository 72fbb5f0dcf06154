/* SPDX-License-Identifier: Apache-2.0 */
/* evq.c — the pending-event set as a ladder queue (Tang, Goh & Thng 2005):
 * O(1) amortized push and pop in strict (time, seq) order, adapting its
 * bucket widths to the population and time spread without tuning.
 *
 * Structure. Events are kept by value, never behind a pointer or a slot
 * index: a record is copied from tier to tier instead of linked, so reading
 * a bucket reads contiguous memory. Three tiers hold disjoint, increasing
 * time ranges:
 *
 *   bottom  a sorted array of events: the next events to pop. It holds
 *           every event with time < lo of the deepest rung (or <= top_floor
 *           when there is no rung). Pop copies its head out: O(1).
 *   rungs   rung[0..nr): each an array of buckets of width 2^shift ns, a
 *           bucket being a chain of chunks of CHUNK events (1 KiB), in
 *           no order. rung[k] covers [lo, max]; lo is the lower edge of its
 *           next unprocessed bucket. rung[k+1] was spawned from one bucket
 *           of rung[k], so deeper rungs are finer and cover earlier times.
 *   top     an unsorted array of every event with time > top_floor, in
 *           arrival order; its min and max are tracked on insert.
 *
 * Push routes an event by comparing its time with top_floor and the rungs'
 * lo, then appends it to the top or to its bucket's last chunk (O(1)), or
 * inserts it into the bottom (binary search; the bottom stays small). When
 * the bottom runs empty, the deepest rung hands down its next non-empty
 * bucket, copied into the bottom array: a bucket with few events (or all at
 * one time) is sorted there; a crowded one becomes a new, finer rung of
 * about one bucket per SPLIT_PER_BUCKET events. When every rung is spent,
 * the top becomes rung 0 with one bucket per EPOCH_PER_BUCKET events (EPOCH_SMALL
 * in a queue small enough to stay cached: smaller hand-downs), their
 * width a power of two (a shift, no division) chosen from the events' time
 * spread: this is where the queue re-adapts to the population and spread,
 * once per "epoch". A bottom that grows too large from inserts is spilled
 * back into a rung. Each event is thus copied O(1) times amortized.
 *
 * Memory traffic. A large queue (PHOLD B: 262k events, 8 MiB of records)
 * does not fit the caches, so what counts is lines fetched per event. Rung
 * 0 is coarse on purpose: its buckets are long chains of full chunks, so a
 * push writes into a line that earlier pushes into the same bucket already
 * brought in (a few thousand buckets' last chunks stay cached), and a
 * hand-down reads whole lines of its own events, fetched ahead
 * (prefetch_ahead, gather) while the bottom is being popped. Its buckets
 * arrive crowded and are split into a fine rung that lives in cache. Fine
 * buckets in rung 0 (one or two events each) would leave most chunks
 * nearly empty: more memory touched, and each push a miss. Arrays of 4 MiB
 * or more ask for huge pages (alloc_array) to spare the TLB.
 *
 * Pop never fails and never allocates: the bottom and top arrays always
 * have room for every queued event (push grows them), so a hand-down or an
 * epoch whose new rung cannot get memory sorts its events into the bottom
 * instead. Memory: 64 bytes of bottom and top capacity per slot (only the
 * parts used are touched), 32 bytes per event in chunks plus the unused
 * tail of each bucket's last chunk, and 8 bytes per bucket; the arrays and
 * the chunk pool shrink below 1/8 use, so memory follows the population
 * down too. */
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
#define POOL_MIN 1024u      /* bottom and top never shrink below this many slots */
#define CHUNK 32            /* events per chunk: 1 KiB, sixteen cache lines */
#define CHUNK_MIN 64u       /* the chunk pool never shrinks below this */
#define EPOCH_PER_BUCKET 128 /* rung 0 from the top: one bucket per this many events */
#define EPOCH_SMALL 32      /* ... in a queue of fewer than PF_MIN_EVENTS events */
#define SPLIT_PER_BUCKET 8  /* a rung split from a bucket or the bottom: one per 8 */
#define PF_BUCKETS 4        /* non-empty buckets fetched ahead of the bottom */
#define PF_LOOK 64          /* buckets scanned ahead for those */
#define PF_MIN_EVENTS 32768 /* fewer (~1 MiB of queue) stay cached: no fetching ahead */

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
    WkEvent e[CHUNK];
} Chunk;

/* A bucket: n events in a chain of chunks from `last` back through
 * chain[]; every chunk but `last` is full, `last` holds the events past the
 * last multiple of CHUNK. `last` is meaningless while n == 0. */
typedef struct {
    uint32_t last;
    uint32_t n;
} Bucket;

typedef struct {
    WkTime start;   /* lower edge of bucket 0, ns */
    WkTime lo;      /* lower edge of bucket cur: the rung holds [lo, max] */
    WkTime max;     /* inclusive upper edge; the last bucket ends here */
    Bucket *b;      /* b[0..nb) */
    uint32_t nb;    /* buckets in use */
    uint32_t cap;   /* allocated length of b */
    uint32_t cur;   /* next bucket to hand down; buckets < cur are empty */
    unsigned shift; /* bucket width = 2^shift ns */
} Rung;

struct WkEvq {
    WkEvent *bot;       /* bottom: sorted events in [bhead, btail); `cap` long */
    WkEvent *top;       /* top: events in arrival order, [0, ntop); `cap` long */
    uint32_t cap;       /* length of bot and top: always > n */
    uint32_t bhead, btail;
    uint32_t ntop;
    uint32_t spill_at;  /* bottom size that triggers a spill into a rung */
    Chunk *ch;          /* chunk pool, `nch` chunks, 64-byte aligned */
    uint32_t *chain;    /* chain[c]: the chunk before c in its bucket, or NIL */
    uint32_t nch;       /* chunks allocated */
    uint32_t chused;    /* chunks ever handed out since the last compaction */
    uint32_t chfree;    /* free chunks, linked through chain */
    uint32_t chlive;    /* chunks in buckets */
    uint32_t pf_next;   /* first bucket of the deepest rung not yet fetched ahead */
    uint64_t pf_shape;  /* `shape` when pf_next was set */
    uint64_t shape;     /* bumped whenever the deepest rung changes */
    size_t n;           /* events queued */
    WkTime top_min, top_max; /* times in the top, valid when ntop > 0 */
    WkTime top_floor;        /* top holds exactly the events with time > top_floor */
    unsigned nr;             /* rungs in use */
    Rung rung[MAX_RUNGS];
};

/* (time, seq) order of two events. */
static inline int before(const WkEvent *a, const WkEvent *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* Copy *s into *d field by field: callers build *ev just before a push, and
 * one wide load spanning several narrow stores would stall store
 * forwarding. */
static inline void put(WkEvent *d, const WkEvent *s)
{
    d->time = s->time;
    d->seq = s->seq;
    d->target = s->target;
    d->kind = s->kind;
    d->aux = s->aux;
    d->token = s->token;
    d->payload = s->payload;
}

/* ---- sorting events by value ---- */

static void insertion_sort(WkEvent *a, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        if (!before(&a[i], &a[i - 1]))
            continue;
        WkEvent x = a[i];
        uint32_t j = i;
        do {
            a[j] = a[j - 1];
            j--;
        } while (j > 0 && before(&x, &a[j - 1]));
        a[j] = x;
    }
}

static void sift_down(WkEvent *a, uint32_t i, uint32_t n)
{
    WkEvent x = a[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&a[c], &a[c + 1]))
            c++;
        if (!before(&x, &a[c]))
            break;
        a[i] = a[c];
        i = c;
    }
    a[i] = x;
}

/* In place and allocation-free, so a pop never fails. Runs already in
 * order or in reverse (a burst of one timestamp) cost O(n). */
static void sort_events(WkEvent *a, uint32_t n)
{
    if (n <= 32) {
        insertion_sort(a, n);
        return;
    }
    uint32_t up = 0, down = 0;
    for (uint32_t i = 1; i < n; i++) {
        up += before(&a[i - 1], &a[i]);
        down += before(&a[i], &a[i - 1]);
    }
    if (up == n - 1)
        return;
    if (down == n - 1) {
        for (uint32_t i = 0, j = n - 1; i < j; i++, j--) {
            WkEvent t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return;
    }
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (uint32_t end = n - 1; end > 0; end--) {
        WkEvent t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

/* ---- memory ---- */

/* A fresh array of len bytes, 64-byte aligned; of 4 MiB or more, 2
 * MiB-aligned and marked for transparent huge pages: a large queue is
 * written at random, and with 4 KiB pages most of those writes would also
 * miss the TLB. Untouched parts cost no memory. NULL on failure. */
static void *alloc_array(size_t len)
{
    size_t align = 64;
#if defined(MADV_HUGEPAGE)
    if (len >= ((size_t)4 << 20))
        align = (size_t)2 << 20;
#endif
    size_t size = (len + align - 1) & ~(align - 1);
    void *p = aligned_alloc(align, size ? size : align);
#if defined(MADV_HUGEPAGE)
    if (p && align > 64)
        (void)madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

/* Give bot and top room for ncap events, keeping their contents (the bottom
 * moved to the front). Returns 0, or -1 with the queue unchanged. */
static int resize_slots(WkEvq *q, uint32_t ncap)
{
    WkEvent *b = alloc_array((size_t)ncap * sizeof *b);
    WkEvent *t = alloc_array((size_t)ncap * sizeof *t);
    if (!b || !t) {
        free(b);
        free(t);
        return -1;
    }
    uint32_t nbot = q->btail - q->bhead;
    if (nbot)
        memcpy(b, q->bot + q->bhead, (size_t)nbot * sizeof *b);
    if (q->ntop)
        memcpy(t, q->top, (size_t)q->ntop * sizeof *t);
    free(q->bot);
    free(q->top);
    q->bot = b;
    q->top = t;
    q->bhead = 0;
    q->btail = nbot;
    q->cap = ncap;
    return 0;
}

/* Grow the chunk pool so that at least k chunks are free. Returns 0, or -1
 * with the pool unchanged. */
static int reserve_chunks(WkEvq *q, uint64_t k)
{
    uint64_t avail = (uint64_t)(q->nch - q->chused) + (q->chused - q->chlive);
    if (avail >= k)
        return 0;
    uint64_t want = (uint64_t)q->nch + (k - avail);
    uint64_t ncap = 2 * (uint64_t)q->nch > want ? 2 * (uint64_t)q->nch : want;
    if (ncap < CHUNK_MIN)
        ncap = CHUNK_MIN;
    if (ncap > UINT32_MAX - 1)
        return -1;
    Chunk *c = alloc_array((size_t)ncap * sizeof *c);
    uint32_t *l = malloc((size_t)ncap * sizeof *l);
    if (!c || !l) {
        free(c);
        free(l);
        return -1;
    }
    if (q->chused) {
        memcpy(c, q->ch, (size_t)q->chused * sizeof *c);
        memcpy(l, q->chain, (size_t)q->chused * sizeof *l);
    }
    free(q->ch);
    free(q->chain);
    q->ch = c;
    q->chain = l;
    q->nch = (uint32_t)ncap;
    return 0;
}

/* A free chunk (one must be reserved). */
static inline uint32_t take_chunk(WkEvq *q)
{
    uint32_t c = q->chfree;
    if (c != NIL)
        q->chfree = q->chain[c];
    else
        c = q->chused++;
    q->chlive++;
    return c;
}

/* Append *ev to bucket bk (a chunk is reserved when bk->n % CHUNK == 0). */
static inline void bucket_add(WkEvq *q, Bucket *bk, const WkEvent *ev)
{
    uint32_t f = bk->n % CHUNK;
    if (f == 0) {
        uint32_t c = take_chunk(q);
        q->chain[c] = bk->n ? bk->last : NIL;
        bk->last = c;
    }
    put(&q->ch[bk->last].e[f], ev);
    bk->n++;
}

/* ---- rungs ---- */

/* Bucket of time t in rung r (t >= r->lo); the last bucket takes the rest. */
static inline uint32_t bucket_of(const Rung *r, WkTime t)
{
    uint64_t b = ((uint64_t)t - (uint64_t)r->start) >> r->shift;
    return b < r->nb ? (uint32_t)b : r->nb - 1;
}

/* Make rung[nr] from events a[0..n) (times in [min, max], min < max),
 * covering [min, range_max]. Returns 0, or -1 when its memory cannot be
 * had (nothing changed). */
static int make_rung(WkEvq *q, const WkEvent *a, uint32_t n, WkTime min, WkTime max,
                     WkTime range_max, unsigned den)
{
    uint64_t target = (uint64_t)n / den;
    if (target < 2)
        target = 2; /* so that min and max fall in different buckets */
    uint64_t span = (uint64_t)max - (uint64_t)min;
    unsigned shift = bit_length(span / target); /* least with span >> shift < target */
    /* Buckets up to range_max; past 2 x target the last one catches the rest. */
    uint64_t nb = ((uint64_t)range_max - (uint64_t)min) >> shift;
    nb = nb < 2 * target ? nb + 1 : 2 * target;
    /* Each bucket's chain ends in at most one partial chunk. */
    uint64_t worst = n / CHUNK + (nb < n ? nb : n);
    if (reserve_chunks(q, worst) < 0)
        return -1;
    Rung *r = &q->rung[q->nr];
    if (nb > r->cap || (r->cap > 4 * nb && r->cap > 4096)) {
        Bucket *h = realloc(r->b, nb * sizeof *h);
        if (!h)
            return -1;
        r->b = h;
        r->cap = (uint32_t)nb;
    }
    r->nb = (uint32_t)nb;
    r->cur = 0;
    r->shift = shift;
    r->start = r->lo = min;
    r->max = range_max;
    memset(r->b, 0, nb * sizeof *r->b);
    for (uint32_t k = 0; k < n; k++)
        bucket_add(q, &r->b[bucket_of(r, a[k].time)], &a[k]);
    q->nr++;
    q->shape++;
    return 0;
}

/* Inclusive upper edge of the bottom's time range. */
static WkTime bottom_max(const WkEvq *q)
{
    return q->nr ? q->rung[q->nr - 1].lo - 1 : q->top_floor;
}

/* Sort bot[0..n) and make it the bottom. */
static void set_bottom(WkEvq *q, uint32_t n)
{
    sort_events(q->bot, n);
    q->bhead = 0;
    q->btail = n;
    q->spill_at = spill_limit(n);
}

/* Hand down the events gathered at bot[0..n), all at times <= range_max,
 * while the bottom is empty: a crowded, spread-out set becomes a new rung,
 * anything else is sorted and becomes the bottom. */
static void hand_down(WkEvq *q, uint32_t n, WkTime range_max)
{
    const WkEvent *a = q->bot;
    if (n > THRES && q->nr < MAX_RUNGS) {
        WkTime min = a[0].time, max = min;
        for (uint32_t k = 1; k < n; k++) {
            WkTime t = a[k].time;
            min = t < min ? t : min;
            max = t > max ? t : max;
        }
        if (min < max && make_rung(q, a, n, min, max, range_max, SPLIT_PER_BUCKET) == 0)
            return;
    }
    set_bottom(q, n);
}

/* Move bucket bk's events into bot[0..) and free its chunks; returns their
 * number. */
static uint32_t gather(WkEvq *q, Bucket *bk)
{
    uint32_t n = bk->n, c = bk->last, k = n, f = n % CHUNK ? n % CHUNK : CHUNK;
    while (k) {
        uint32_t prev = q->chain[c];
        if (prev != NIL) /* the next chunk to copy: its lines are independent */
            for (size_t off = 0; off < sizeof(Chunk); off += 64)
                PREFETCH((const char *)&q->ch[prev] + off);
        k -= f;
        memcpy(q->bot + k, q->ch[c].e, (size_t)f * sizeof(WkEvent));
        q->chain[c] = q->chfree;
        q->chfree = c;
        q->chlive--;
        c = prev;
        f = CHUNK;
    }
    bk->n = 0;
    return n;
}

/* Turn an oversized bottom back into a rung: bursts of inserts below the
 * deepest rung would otherwise make each insert O(bottom size). */
static void spill(WkEvq *q)
{
    uint32_t n = q->btail - q->bhead;
    const WkEvent *a = q->bot + q->bhead;
    WkTime min = a[0].time, max = a[n - 1].time;
    if (min == max || q->nr == MAX_RUNGS ||
        make_rung(q, a, n, min, max, bottom_max(q), SPLIT_PER_BUCKET) < 0) {
        q->spill_at = spill_limit(n); /* cannot split: let the bottom grow */
        return;
    }
    q->bhead = q->btail = 0;
}

/* Insert *ev into the bottom at its sorted place, moving the shorter side
 * (there is room: cap > n). */
NOINLINE static void bottom_insert(WkEvq *q, const WkEvent *ev)
{
    WkEvent *a = q->bot;
    uint32_t lo = q->bhead, hi = q->btail;
    if (lo == hi || before(&a[hi - 1], ev)) {
        if (hi == q->cap) { /* room exists at the front */
            memmove(a, a + lo, (size_t)(hi - lo) * sizeof *a);
            hi -= lo;
            q->bhead = 0;
        }
        put(&a[hi], ev);
        q->btail = hi + 1;
    } else {
        while (lo < hi) { /* first element after ev */
            uint32_t mid = lo + (hi - lo) / 2;
            if (before(ev, &a[mid]))
                hi = mid;
            else
                lo = mid + 1;
        }
        uint32_t pos = lo;
        if (q->bhead > 0 && (pos - q->bhead < q->btail - pos || q->btail == q->cap)) {
            memmove(a + q->bhead - 1, a + q->bhead, (size_t)(pos - q->bhead) * sizeof *a);
            q->bhead--;
            put(&a[pos - 1], ev);
        } else {
            memmove(a + pos + 1, a + pos, (size_t)(q->btail - pos) * sizeof *a);
            q->btail++;
            put(&a[pos], ev);
        }
    }
    if (q->btail - q->bhead > q->spill_at)
        spill(q);
}

/* Fetch ahead the chunks of the next PF_BUCKETS non-empty buckets of the
 * deepest rung: the buckets that refill the bottom next, so their events
 * are in cache by their turn. A hand-down reads whole lines of its own
 * events, so the fetches of several buckets are independent and overlap.
 * Only hints: a fetched bucket may still be split or grow. */
static void prefetch_ahead(WkEvq *q)
{
    if (q->nr == 0 || q->n < PF_MIN_EVENTS)
        return;
    const Rung *r = &q->rung[q->nr - 1];
    if (q->pf_shape != q->shape) {
        q->pf_shape = q->shape;
        q->pf_next = r->cur;
    }
    uint32_t c = q->pf_next > r->cur ? q->pf_next : r->cur;
    uint32_t lim = r->nb - r->cur > PF_LOOK ? r->cur + PF_LOOK : r->nb;
    unsigned ahead = 0;
    for (uint32_t b = r->cur; b < c && ahead < PF_BUCKETS; b++)
        ahead += r->b[b].n != 0;
    for (; c < lim && ahead < PF_BUCKETS; c++) {
        const Bucket *bk = &r->b[c];
        if (bk->n == 0)
            continue;
        const char *p = (const char *)q->ch[bk->last].e;
        uint32_t f = bk->n % CHUNK ? bk->n % CHUNK : CHUNK;
        for (uint32_t off = 0; off < f * sizeof(WkEvent); off += 64)
            PREFETCH(p + off);
        ahead++;
    }
    q->pf_next = c;
}

/* Move every chunk in use to the front of a smaller pool, so memory follows
 * the population down. Skipped silently when allocation fails. */
COLD static void compact_chunks(WkEvq *q)
{
    uint32_t ncap = 4 * q->chlive > CHUNK_MIN ? 4 * q->chlive : CHUNK_MIN;
    Chunk *nc = alloc_array((size_t)ncap * sizeof *nc);
    uint32_t *nl = malloc((size_t)ncap * sizeof *nl);
    if (!nc || !nl) {
        free(nc);
        free(nl);
        return;
    }
    uint32_t k = 0;
    for (unsigned ri = 0; ri < q->nr; ri++) {
        Rung *r = &q->rung[ri];
        for (uint32_t b = r->cur; b < r->nb; b++) {
            Bucket *bk = &r->b[b];
            if (bk->n == 0)
                continue;
            /* Copy the chain from the last chunk back, relinking it. */
            uint32_t *link = &bk->last;
            for (uint32_t c = bk->last; c != NIL; c = q->chain[c]) {
                nc[k] = q->ch[c];
                *link = k;
                link = &nl[k];
                k++;
            }
            *link = NIL;
        }
    }
    for (unsigned ri = q->nr; ri < MAX_RUNGS; ri++) { /* idle rungs' buckets */
        free(q->rung[ri].b);
        q->rung[ri].b = NULL;
        q->rung[ri].cap = 0;
    }
    free(q->ch);
    free(q->chain);
    q->ch = nc;
    q->chain = nl;
    q->nch = ncap;
    q->chused = k;
    q->chlive = k;
    q->chfree = NIL;
    q->shape++;
}

/* Refill the empty bottom from the deepest rung, or from the top when every
 * rung is spent. Returns 0 when the queue is empty. */
NOINLINE static int refill(WkEvq *q)
{
    while (q->bhead == q->btail) {
        if (q->nr == 0) {
            if (q->ntop == 0)
                return 0;
            /* A crowded top becomes rung 0 straight from its array, its
             * min and max being known; anything else, or a top whose rung
             * cannot get memory, trades arrays with the empty bottom and is
             * sorted there. */
            uint32_t n = q->ntop;
            q->ntop = 0;
            q->top_floor = q->top_max;
            if (n > THRES && q->top_min < q->top_max && q->nr < MAX_RUNGS &&
                make_rung(q, q->top, n, q->top_min, q->top_max, q->top_max,
                          q->n < PF_MIN_EVENTS ? EPOCH_SMALL : EPOCH_PER_BUCKET) == 0)
                continue;
            WkEvent *a = q->top;
            q->top = q->bot;
            q->bot = a;
            set_bottom(q, n);
            continue;
        }
        Rung *r = &q->rung[q->nr - 1];
        uint32_t b = r->cur;
        while (b < r->nb && r->b[b].n == 0)
            b++;
        if (b == r->nb) {
            q->nr--;
            q->shape++;
            continue;
        }
        uint32_t n = gather(q, &r->b[b]);
        uint64_t width = (uint64_t)1 << r->shift;
        WkTime blo = (WkTime)((uint64_t)r->start + (uint64_t)b * width);
        WkTime bmax = b + 1 == r->nb ? r->max : (WkTime)((uint64_t)blo + width - 1);
        r->cur = b + 1;
        if (r->cur == r->nb) {
            q->nr--; /* spent: its parent's lo is already past bmax */
            q->shape++;
        } else
            r->lo = (WkTime)((uint64_t)blo + width);
        hand_down(q, n, bmax);
    }
    if (q->chlive < q->nch / 8 && q->nch > CHUNK_MIN)
        compact_chunks(q);
    prefetch_ahead(q);
    return 1;
}

/* Route *ev to the tier owning its time. Returns 0, or WK_E_NOMEM (nothing
 * changed) when its bucket needs a chunk that cannot be had. */
static int route(WkEvq *q, const WkEvent *ev)
{
    WkTime t = ev->time;
    if (t > q->top_floor) {
        if (q->ntop == 0 || t < q->top_min)
            q->top_min = t;
        if (q->ntop == 0 || t > q->top_max)
            q->top_max = t;
        put(&q->top[q->ntop++], ev);
        return 0;
    }
    for (unsigned k = 0; k < q->nr; k++) {
        Rung *r = &q->rung[k];
        if (t >= r->lo) {
            Bucket *bk = &r->b[bucket_of(r, t)];
            if (bk->n % CHUNK == 0 && q->chused == q->nch && q->chfree == NIL &&
                reserve_chunks(q, 1) < 0)
                return WK_E_NOMEM;
            bucket_add(q, bk, ev);
            return 0;
        }
    }
    bottom_insert(q, ev);
    return 0;
}

/* ---- API ---- */

int wk_evq_new(WkEvq **out, WkError *err)
{
    WkEvq *q = calloc(1, sizeof *q);
    if (q) {
        q->chfree = NIL;
        q->top_floor = INT64_MIN;
        q->spill_at = BOT_SPILL;
    }
    if (!q || resize_slots(q, POOL_MIN) < 0 || reserve_chunks(q, CHUNK_MIN) < 0) {
        wk_evq_free(q);
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "event queue: out of memory");
    }
    *out = q;
    return 0;
}

void wk_evq_free(WkEvq *q)
{
    if (!q)
        return;
    for (unsigned r = 0; r < MAX_RUNGS; r++)
        free(q->rung[r].b);
    free(q->bot);
    free(q->top);
    free(q->ch);
    free(q->chain);
    free(q);
}

int wk_evq_push(WkEvq *q, const WkEvent *ev)
{
    if (q->n + 1 >= q->cap &&
        (q->cap > (UINT32_MAX - 1) / 2 || resize_slots(q, 2 * q->cap) < 0))
        return WK_E_NOMEM;
    int rc = route(q, ev);
    if (rc < 0)
        return rc;
    q->n++;
    return 0;
}

int wk_evq_pop(WkEvq *q, WkEvent *out)
{
    if (q->bhead == q->btail && !refill(q))
        return 0;
    *out = q->bot[q->bhead++];
    q->n--;
    if (q->n < q->cap / 8 && q->cap > POOL_MIN) {
        uint32_t ncap = (uint32_t)(4 * q->n > POOL_MIN ? 4 * q->n : POOL_MIN);
        (void)resize_slots(q, ncap); /* kept as it is when allocation fails */
    }
    return 1;
}

WkTime wk_evq_peek_time(WkEvq *q)
{
    if (q->bhead == q->btail && !refill(q))
        return WK_TIME_NEVER;
    return q->bot[q->bhead].time;
}

size_t wk_evq_size(const WkEvq *q)
{
    return q->n;
}
