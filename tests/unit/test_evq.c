/* SPDX-License-Identifier: Apache-2.0 */
/* test_evq.c — the pending-event set against a reference implementation:
 * strict (time, seq) order, copy by value, empty queue, peek, push-back after
 * pop, bursts of one timestamp, huge time spreads, growth and shrinkage.
 * The reference for interleavings is a textbook binary heap; bulk runs are
 * checked against qsort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/core/evq.h"

/* ---- helpers: a seeded PRNG and the reference ---- */

static uint64_t next_u64(uint64_t *s)
{
    uint64_t x = (*s += UINT64_C(0x9e3779b97f4a7c15));
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

static int ev_before(const WkEvent *x, const WkEvent *y)
{
    return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static int ev_cmp(const void *a, const void *b)
{
    const WkEvent *x = a, *y = b;
    return ev_before(x, y) ? -1 : ev_before(y, x) ? 1 : 0;
}

/* Reference queue: a textbook binary min-heap on (time, seq). */
typedef struct {
    WkEvent *a;
    size_t n, cap;
} Ref;

static void ref_push(Ref *r, const WkEvent *ev)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->a = realloc(r->a, r->cap * sizeof *r->a);
        assert_non_null(r->a);
    }
    size_t i = r->n++;
    for (; i > 0 && ev_before(ev, &r->a[(i - 1) / 2]); i = (i - 1) / 2)
        r->a[i] = r->a[(i - 1) / 2];
    r->a[i] = *ev;
}

static int ref_pop(Ref *r, WkEvent *out)
{
    if (r->n == 0)
        return 0;
    *out = r->a[0];
    WkEvent last = r->a[--r->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= r->n)
            break;
        if (c + 1 < r->n && ev_before(&r->a[c + 1], &r->a[c]))
            c++;
        if (!ev_before(&r->a[c], &last))
            break;
        r->a[i] = r->a[c];
        i = c;
    }
    r->a[i] = last;
    return 1;
}

/* An event whose every field derives from (time, seq), so a copy that loses
 * or mixes fields is caught by comparing whole records. */
static WkEvent make_ev(WkTime t, uint64_t seq)
{
    WkEvent ev = {
        .time = t,
        .seq = seq,
        .target = (uint32_t)(seq * 2654435761u),
        .kind = (uint16_t)(seq % 61),
        .aux = (uint16_t)(seq >> 3),
        .token = (uint32_t)(seq ^ 0x5a5a5a5au),
        .payload = (uint32_t)((uint64_t)t ^ (seq << 7)),
    };
    return ev;
}

static void assert_same_ev(const WkEvent *got, const WkEvent *want)
{
    assert_int_equal(got->time, want->time);
    assert_int_equal(got->seq, want->seq);
    assert_memory_equal(got, want, sizeof *got);
}

static WkEvq *new_q(void)
{
    WkEvq *q = NULL;
    assert_int_equal(wk_evq_new(&q, NULL), 0);
    assert_non_null(q);
    return q;
}

/* Pop both queues once and check they agree, peek_time included. */
static int pop_both(WkEvq *q, Ref *r, WkEvent *out)
{
    WkEvent want;
    int have = ref_pop(r, &want);
    WkTime peek = wk_evq_peek_time(q);
    assert_int_equal(peek, have ? want.time : WK_TIME_NEVER);
    int got = wk_evq_pop(q, out);
    assert_int_equal(got, have);
    if (have)
        assert_same_ev(out, &want);
    assert_int_equal(wk_evq_size(q), r->n);
    return got;
}

/* Delay drawn from one of several scales: 0 (push at now), a few ns, up to
 * ~2^k ns for a random k up to 52 (months), so spreads vary wildly. */
static WkTime draw_delay(uint64_t *s, int style)
{
    uint64_t u = next_u64(s);
    switch (style) {
    case 0:
        return 0;
    case 1:
        return (WkTime)(u % 8);
    case 2:
        return (WkTime)(u % 1000000);
    default: {
        unsigned k = (unsigned)(next_u64(s) % 53);
        return (WkTime)(u >> (63 - k));
    }
    }
}

/* ---- tests ---- */

static void test_empty_queue_pops_nothing_and_peeks_never(void **state)
{
    (void)state;
    WkEvq *q = new_q();
    WkEvent out = make_ev(77, 77), keep = out;
    assert_int_equal(wk_evq_size(q), 0);
    assert_int_equal(wk_evq_peek_time(q), WK_TIME_NEVER);
    assert_int_equal(wk_evq_pop(q, &out), 0);
    assert_memory_equal(&out, &keep, sizeof out); /* untouched */
    /* And again after it held events. */
    WkEvent ev = make_ev(5, 1);
    assert_int_equal(wk_evq_push(q, &ev), 0);
    assert_int_equal(wk_evq_pop(q, &out), 1);
    assert_int_equal(wk_evq_pop(q, &out), 0);
    assert_int_equal(wk_evq_peek_time(q), WK_TIME_NEVER);
    assert_int_equal(wk_evq_size(q), 0);
    wk_evq_free(q);
    wk_evq_free(NULL);
}

static void test_same_time_pops_in_seq_order_not_push_order(void **state)
{
    (void)state;
    WkEvq *q = new_q();
    uint64_t s = 11;
    enum { N = 5000 };
    uint64_t seqs[N];
    for (uint64_t i = 0; i < N; i++)
        seqs[i] = i + 1;
    for (size_t i = N - 1; i > 0; i--) { /* shuffle */
        size_t j = (size_t)(next_u64(&s) % (i + 1));
        uint64_t t = seqs[i];
        seqs[i] = seqs[j];
        seqs[j] = t;
    }
    for (size_t i = 0; i < N; i++) {
        WkEvent ev = make_ev(1000, seqs[i]);
        assert_int_equal(wk_evq_push(q, &ev), 0);
    }
    WkEvent later = make_ev(999, N + 1); /* earlier time beats smaller seq */
    assert_int_equal(wk_evq_push(q, &later), 0);
    WkEvent out;
    assert_int_equal(wk_evq_pop(q, &out), 1);
    assert_same_ev(&out, &later);
    for (uint64_t i = 1; i <= N; i++) {
        assert_int_equal(wk_evq_pop(q, &out), 1);
        WkEvent want = make_ev(1000, i);
        assert_same_ev(&out, &want);
    }
    assert_int_equal(wk_evq_size(q), 0);
    wk_evq_free(q);
}

static void test_pop_then_push_back_returns_the_same_event(void **state)
{
    (void)state;
    WkEvq *q = new_q();
    uint64_t s = 3, seq = 1;
    Ref r = {0};
    for (int i = 0; i < 20000; i++) {
        WkEvent ev = make_ev((WkTime)(next_u64(&s) % 1000000000), seq++);
        assert_int_equal(wk_evq_push(q, &ev), 0);
        ref_push(&r, &ev);
    }
    WkEvent out, again;
    for (int i = 0; i < 30000; i++) {
        assert_int_equal(pop_both(q, &r, &out), 1);
        /* The engine's run(until) pattern: pop, find it is too late, push it back. */
        assert_int_equal(wk_evq_push(q, &out), 0);
        assert_int_equal(wk_evq_peek_time(q), out.time);
        assert_int_equal(wk_evq_pop(q, &again), 1);
        assert_same_ev(&again, &out);
        /* The hold pattern: the popped event schedules one later event. */
        int style = (int)(seq % 4);
        WkEvent nx = make_ev(out.time + draw_delay(&s, style), seq++);
        assert_int_equal(wk_evq_push(q, &nx), 0);
        ref_push(&r, &nx);
    }
    while (pop_both(q, &r, &out))
        ;
    free(r.a);
    wk_evq_free(q);
}

static void test_random_interleavings_match_sorted_reference(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        WkEvq *q = new_q();
        Ref r = {0};
        uint64_t s = seed, seq = 1;
        WkTime now = (WkTime)(next_u64(&s) % 1000);
        WkEvent out;
        for (int phase = 0; phase < 40; phase++) {
            /* Alternate growing and draining phases with one delay style each. */
            int style = (int)(next_u64(&s) % 4);
            unsigned push_pct = phase % 2 ? 25 : 75;
            int ops = 200 + (int)(next_u64(&s) % 4000);
            for (int k = 0; k < ops; k++) {
                if (next_u64(&s) % 100 < push_pct) {
                    WkEvent ev = make_ev(now + draw_delay(&s, style), seq++);
                    assert_int_equal(wk_evq_push(q, &ev), 0);
                    ref_push(&r, &ev);
                } else if (pop_both(q, &r, &out)) {
                    assert_true(out.time >= now);
                    now = out.time;
                }
            }
        }
        while (pop_both(q, &r, &out))
            ;
        free(r.a);
        wk_evq_free(q);
    }
}

static void test_extreme_time_spread_keeps_order(void **state)
{
    (void)state;
    WkEvq *q = new_q();
    Ref r = {0};
    uint64_t s = 99, seq = 1;
    const WkTime fixed[] = {0, 1, 2, WK_NS_PER_S, 30 * WK_NS_PER_DAY, INT64_MAX / 2,
                            INT64_MAX - 1, WK_TIME_NEVER, WK_TIME_NEVER, 0};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        WkEvent ev = make_ev(fixed[i], seq++);
        assert_int_equal(wk_evq_push(q, &ev), 0);
        ref_push(&r, &ev);
    }
    for (int i = 0; i < 30000; i++) { /* log-uniform over ns .. 2^62 ns */
        unsigned k = (unsigned)(next_u64(&s) % 63);
        WkEvent ev = make_ev((WkTime)(next_u64(&s) >> (64 - k - 1) >> 1), seq++);
        assert_int_equal(wk_evq_push(q, &ev), 0);
        ref_push(&r, &ev);
    }
    WkEvent out;
    WkTime now = 0;
    for (int i = 0; i < 20000; i++) { /* hold at every scale */
        assert_int_equal(pop_both(q, &r, &out), 1);
        now = out.time;
        if (now < INT64_MAX / 4) {
            WkEvent ev = make_ev(now + draw_delay(&s, 3), seq++);
            assert_int_equal(wk_evq_push(q, &ev), 0);
            ref_push(&r, &ev);
        }
    }
    while (pop_both(q, &r, &out))
        ;
    free(r.a);
    wk_evq_free(q);
}

static void test_burst_of_one_timestamp_with_pushes_at_now(void **state)
{
    (void)state;
    WkEvq *q = new_q();
    Ref r = {0};
    uint64_t s = 5, seq = 1;
    /* A far-future event first, then a large same-time burst, then pushes at
     * exactly now and a few ns later while the burst drains. */
    WkEvent far = make_ev(90 * WK_NS_PER_DAY, seq++);
    assert_int_equal(wk_evq_push(q, &far), 0);
    ref_push(&r, &far);
    for (int i = 0; i < 100000; i++) {
        WkEvent ev = make_ev(WK_NS_PER_S, seq++);
        assert_int_equal(wk_evq_push(q, &ev), 0);
        ref_push(&r, &ev);
    }
    WkEvent out;
    for (int i = 0; i < 150000; i++) {
        assert_int_equal(pop_both(q, &r, &out), 1);
        if (i % 3 == 0) {
            WkEvent ev = make_ev(out.time + draw_delay(&s, (int)(i % 2)), seq++);
            assert_int_equal(wk_evq_push(q, &ev), 0);
            ref_push(&r, &ev);
        }
    }
    while (pop_both(q, &r, &out))
        ;
    free(r.a);
    wk_evq_free(q);
}

static void test_near_events_after_one_far_event_stay_ordered(void **state)
{
    (void)state;
    /* One lone far event makes the whole near future one range; many inserts
     * then land below the queue's first rung and must still come out sorted. */
    WkEvq *q = new_q();
    Ref r = {0};
    uint64_t s = 17, seq = 1;
    WkEvent far = make_ev(INT64_MAX / 3, seq++);
    WkEvent first = make_ev(10, seq++);
    WkEvent out;
    assert_int_equal(wk_evq_push(q, &far), 0);
    assert_int_equal(wk_evq_push(q, &first), 0);
    ref_push(&r, &far);
    ref_push(&r, &first);
    assert_int_equal(pop_both(q, &r, &out), 1);
    for (int i = 0; i < 50000; i++) {
        WkEvent ev = make_ev(10 + (WkTime)(next_u64(&s) % 1000000), seq++);
        assert_int_equal(wk_evq_push(q, &ev), 0);
        ref_push(&r, &ev);
        if (i % 4 == 0)
            assert_int_equal(pop_both(q, &r, &out), 1);
    }
    while (pop_both(q, &r, &out))
        ;
    free(r.a);
    wk_evq_free(q);
}

static void test_grows_to_a_million_and_shrinks_back_in_order(void **state)
{
    (void)state;
    enum { BIG = 1000000 };
    WkEvq *q = new_q();
    WkEvent *all = malloc(BIG * sizeof *all);
    assert_non_null(all);
    uint64_t s = 2024;
    for (int round = 0; round < 2; round++) {
        uint64_t base = (uint64_t)round * BIG;
        for (uint64_t i = 0; i < BIG; i++) {
            /* Round 1 follows round 0's last time: a million-event burst
             * over only 1000 distinct timestamps. */
            WkTime t = round ? 4000000000000 + (WkTime)(next_u64(&s) % 1000)
                             : (WkTime)(next_u64(&s) % 4000000000000);
            all[i] = make_ev(t, base + i + 1);
            assert_int_equal(wk_evq_push(q, &all[i]), 0);
        }
        assert_int_equal(wk_evq_size(q), BIG);
        qsort(all, BIG, sizeof *all, ev_cmp);
        WkEvent out;
        for (uint64_t i = 0; i < BIG; i++) {
            assert_int_equal(wk_evq_peek_time(q), all[i].time);
            assert_int_equal(wk_evq_pop(q, &out), 1);
            if (memcmp(&out, &all[i], sizeof out) != 0)
                assert_same_ev(&out, &all[i]);
        }
        assert_int_equal(wk_evq_size(q), 0);
        assert_int_equal(wk_evq_pop(q, &out), 0);
    }
    free(all);
    wk_evq_free(q);
}

/* A PHOLD-like hold model at 262,144 pending events (the large-queue path:
 * arrays of several MiB, buckets fetched ahead of the bottom): each pop pushes one
 * event a coarse-grained delay later, so most timestamps are shared by many
 * events and near-equal ones fall in the same buckets; seqs are unique but
 * scrambled, so ties must be broken by seq, not by push order. Every pop must
 * match the reference heap; then the queue drains (and compacts) in order. */
static void test_hold_at_262k_with_ties_matches_reference(void **state)
{
    (void)state;
    enum { POP = 262144, HOLDS = 1500000 };
    WkEvq *q = new_q();
    Ref r = {0};
    uint64_t s = 30, counter = 0;
    for (uint32_t i = 0; i < POP; i++) {
        WkEvent ev = make_ev((WkTime)(next_u64(&s) % 64) * 1000,
                             ++counter * UINT64_C(0x9e3779b97f4a7c15));
        assert_int_equal(wk_evq_push(q, &ev), 0);
        ref_push(&r, &ev);
    }
    WkEvent out;
    for (uint32_t k = 0; k < HOLDS; k++) {
        assert_int_equal(pop_both(q, &r, &out), 1);
        /* 0..63 us in 1 us steps, plus a rare near-equal offset of 1 ns. */
        uint64_t u = next_u64(&s);
        WkTime d = (WkTime)(u % 64) * 1000 + (WkTime)((u >> 20) % 16 == 0);
        WkEvent ev = make_ev(out.time + d, ++counter * UINT64_C(0x9e3779b97f4a7c15));
        assert_int_equal(wk_evq_push(q, &ev), 0);
        ref_push(&r, &ev);
    }
    while (pop_both(q, &r, &out))
        ;
    assert_int_equal(wk_evq_size(q), 0);
    free(r.a);
    wk_evq_free(q);
}

/* The pending count climbs from empty past the large-queue threshold (32k
 * events: coarser rung 0, buckets fetched ahead) to 300k, and falls back
 * to empty, with pushes between pops all the way: at now, a few ns on, up
 * to months on, and the event just popped pushed back. The arrays and the
 * chunk pool shrink on the way down while buckets are in use.
 * Every pop and peek must match the reference heap. */
static void test_pending_count_through_large_queue_mode_and_back(void **state)
{
    (void)state;
    enum { PEAK = 300000 };
    WkEvq *q = new_q();
    Ref r = {0};
    uint64_t s = 77, seq = 0;
    WkTime now = 0;
    WkEvent out;
    for (int down = 0; down < 2; down++) {
        while (down ? r.n > 0 : r.n < PEAK) {
            for (int k = 0; k < (down ? 1 : 2); k++) {
                uint64_t u = next_u64(&s);
                WkEvent ev = make_ev(now + draw_delay(&s, (int)(u % 8 < 5 ? 2 : u % 4)), ++seq);
                assert_int_equal(wk_evq_push(q, &ev), 0);
                ref_push(&r, &ev);
            }
            for (int k = 0; k < (down ? 2 : 1); k++) {
                if (!pop_both(q, &r, &out))
                    break;
                now = out.time;
                if (next_u64(&s) % 16 == 0) { /* push the popped event back */
                    assert_int_equal(wk_evq_push(q, &out), 0);
                    ref_push(&r, &out);
                }
            }
        }
    }
    assert_int_equal(wk_evq_size(q), 0);
    assert_int_equal(wk_evq_pop(q, &out), 0);
    free(r.a);
    wk_evq_free(q);
}

/* Crowded buckets whose events span only a few ns: rung 0 is coarse, so
 * its first bucket gathers thousands of events at four timestamps and is
 * split into a finer rung whose buckets each hold one timestamp (sorted by
 * seq in the bottom); the far events behind them keep their order too. */
static void test_crowded_bucket_of_few_timestamps_splits_in_order(void **state)
{
    (void)state;
    enum { NEAR = 5000, FAR = 5000 };
    WkEvq *q = new_q();
    WkEvent *all = malloc((NEAR + FAR) * sizeof *all);
    assert_non_null(all);
    uint64_t s = 99;
    for (uint32_t i = 0; i < NEAR + FAR; i++) {
        WkTime t = i < NEAR ? (WkTime)(next_u64(&s) % 4) : (WkTime)(next_u64(&s) % 1000000000);
        all[i] = make_ev(t, next_u64(&s) | 1);
        assert_int_equal(wk_evq_push(q, &all[i]), 0);
    }
    qsort(all, NEAR + FAR, sizeof *all, ev_cmp);
    WkEvent out;
    for (uint32_t i = 0; i < NEAR + FAR; i++) {
        assert_int_equal(wk_evq_pop(q, &out), 1);
        assert_same_ev(&out, &all[i]);
    }
    assert_int_equal(wk_evq_pop(q, &out), 0);
    free(all);
    wk_evq_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_queue_pops_nothing_and_peeks_never),
        cmocka_unit_test(test_same_time_pops_in_seq_order_not_push_order),
        cmocka_unit_test(test_pop_then_push_back_returns_the_same_event),
        cmocka_unit_test(test_random_interleavings_match_sorted_reference),
        cmocka_unit_test(test_extreme_time_spread_keeps_order),
        cmocka_unit_test(test_burst_of_one_timestamp_with_pushes_at_now),
        cmocka_unit_test(test_near_events_after_one_far_event_stay_ordered),
        cmocka_unit_test(test_grows_to_a_million_and_shrinks_back_in_order),
        cmocka_unit_test(test_hold_at_262k_with_ties_matches_reference),
        cmocka_unit_test(test_pending_count_through_large_queue_mode_and_back),
        cmocka_unit_test(test_crowded_bucket_of_few_timestamps_splits_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
