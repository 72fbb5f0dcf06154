/* SPDX-License-Identifier: Apache-2.0 */
/* test_flow.c — max-min fair flow rates: hand-solved small networks (shared
 * link, parking lot, caps, failed links, removal), incremental solves against
 * solves from scratch and against the max-min bottleneck characterisation on
 * random flow sets, and re-rating confined to the touched component. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "models/net/flow.h"

/* ---- helpers ------------------------------------------------------------ */

static WkFlowNet *net_new(uint64_t nlinks, double bw)
{
    WkFlowNet *n = NULL;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_flownet_new(&n, nlinks, bw, &err);
    if (rc != 0)
        fail_msg("wk_flownet_new: %s", err.msg);
    return n;
}

/* Add a flow over the count links given; fails the test on error. */
static uint32_t add(WkFlowNet *n, double cap, uint32_t owner, size_t count, ...)
{
    WkLinkId links[16];
    va_list ap;
    va_start(ap, count);
    for (size_t i = 0; i < count; i++)
        links[i] = va_arg(ap, int);
    va_end(ap);
    WkError err;
    wk_error_clear(&err);
    uint32_t id = UINT32_MAX;
    int rc = wk_flownet_add(n, links, count, cap, owner, &id, &err);
    if (rc != 0)
        fail_msg("wk_flownet_add: %s", err.msg);
    return id;
}

static void solve(WkFlowNet *n)
{
    WkError err;
    wk_error_clear(&err);
    int rc = wk_flownet_solve(n, &err);
    if (rc != 0)
        fail_msg("wk_flownet_solve: %s", err.msg);
}

#define assert_rate(n, id, want)                                                                 \
    do {                                                                                         \
        double g_ = wk_flownet_rate((n), (id)), w_ = (want);                                     \
        if (!(fabs(g_ - w_) <= 1e-12 * fabs(w_)))                                                \
            fail_msg("rate of flow %u = %.17g, want %.17g", (unsigned)(id), g_, w_);             \
    } while (0)

static int in_changed(const WkFlowNet *n, uint32_t id)
{
    const uint32_t *ids;
    size_t k = wk_flownet_changed(n, &ids);
    for (size_t i = 0; i < k; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* ---- hand-solved networks ----------------------------------------------- */

static void test_two_flows_on_one_link_get_half_each(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(4, 10.0);
    uint32_t a = add(n, 0, 7, 1, 2);
    uint32_t b = add(n, 0, 8, 1, 2);
    assert_rate(n, a, 0.0); /* nothing before the solve */
    solve(n);
    assert_rate(n, a, 5.0);
    assert_rate(n, b, 5.0);
    assert_int_equal(wk_flownet_owner(n, a), 7);
    assert_int_equal(wk_flownet_owner(n, b), 8);
    assert_int_equal(wk_flownet_count(n), 2);
    assert_int_equal(wk_flownet_solves(n), 1);
    wk_flownet_free(n);
}

/* Parking lot: long flow L over links 0,1,2 (capacities 1, 10, 6) and one
 * short flow per link. Link 0 is the bottleneck (1/2): L = S0 = 0.5; then
 * link 2 (5.5 left for S2) before link 1 (9.5 left for S1). */
static void test_bottleneck_elsewhere_frees_capacity_for_others(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(3, 10.0);
    wk_flownet_set_capacity(n, 0, 1.0);
    wk_flownet_set_capacity(n, 2, 6.0);
    uint32_t L = add(n, 0, 0, 3, 0, 1, 2);
    uint32_t s0 = add(n, 0, 0, 1, 0);
    uint32_t s1 = add(n, 0, 0, 1, 1);
    uint32_t s2 = add(n, 0, 0, 1, 2);
    solve(n);
    assert_rate(n, L, 0.5);
    assert_rate(n, s0, 0.5);
    assert_rate(n, s1, 9.5);
    assert_rate(n, s2, 5.5);
    assert_true(wk_flownet_capacity(n, 0) == 1.0);
    assert_true(wk_flownet_capacity(n, 1) == 10.0);
    wk_flownet_free(n);
}

static void test_caps_are_respected_and_leftover_redistributed(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(2, 10.0);
    /* Link 0: caps 2 and 5 and an uncapped flow: 2, then 8 / 2 = 4 each
     * (the cap of 5 does not bind). */
    uint32_t a = add(n, 2.0, 0, 1, 0);
    uint32_t b = add(n, 0.0, 0, 1, 0);
    uint32_t c = add(n, 5.0, 0, 1, 0);
    /* Link 1: caps 2 and 3 bind, the uncapped flow takes the 5 left. */
    uint32_t d = add(n, 2.0, 0, 1, 1);
    uint32_t e = add(n, -1.0, 0, 1, 1); /* <= 0: no cap */
    uint32_t f = add(n, 3.0, 0, 1, 1);
    solve(n);
    assert_rate(n, a, 2.0);
    assert_rate(n, b, 4.0);
    assert_rate(n, c, 4.0);
    assert_rate(n, d, 2.0);
    assert_rate(n, e, 5.0);
    assert_rate(n, f, 3.0);
    wk_flownet_free(n);
}

static void test_failed_link_stops_its_flows_and_spares_others(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(8, 10.0);
    uint32_t a = add(n, 0, 0, 2, 0, 1); /* crosses the link that fails */
    uint32_t b = add(n, 0, 0, 1, 1);    /* shares link 1 with a */
    uint32_t c = add(n, 0, 0, 1, 5);    /* elsewhere */
    uint32_t d = add(n, 0, 0, 1, 5);
    solve(n);
    assert_rate(n, a, 5.0);
    assert_rate(n, b, 5.0);
    assert_rate(n, c, 5.0);
    uint64_t before = wk_flownet_rerated(n);

    wk_flownet_set_capacity(n, 0, 0.0);
    solve(n);
    assert_rate(n, a, 0.0);
    assert_rate(n, b, 10.0); /* takes all of link 1 */
    assert_rate(n, c, 5.0);
    assert_rate(n, d, 5.0);
    assert_true(in_changed(n, a) && in_changed(n, b));
    assert_false(in_changed(n, c) || in_changed(n, d));
    assert_int_equal(wk_flownet_rerated(n) - before, 2);

    wk_flownet_set_capacity(n, 0, 10.0); /* repaired */
    solve(n);
    assert_rate(n, a, 5.0);
    assert_rate(n, b, 5.0);
    wk_flownet_free(n);
}

static void test_removing_a_flow_restores_rates(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(3, 10.0);
    wk_flownet_set_capacity(n, 0, 1.0);
    wk_flownet_set_capacity(n, 2, 6.0);
    uint32_t L = add(n, 0, 0, 3, 0, 1, 2);
    uint32_t s0 = add(n, 0, 0, 1, 0);
    uint32_t s1 = add(n, 0, 0, 1, 1);
    uint32_t s2 = add(n, 0, 0, 1, 2);
    solve(n);
    wk_flownet_remove(n, L);
    assert_int_equal(wk_flownet_count(n), 3);
    solve(n);
    assert_rate(n, s0, 1.0);
    assert_rate(n, s1, 10.0);
    assert_rate(n, s2, 6.0);
    assert_rate(n, L, 0.0); /* gone */
    wk_flownet_free(n);
}

static void test_changed_lists_exactly_the_flows_whose_rate_moved(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(2, 12.0);
    uint32_t a = add(n, 0, 0, 1, 0);
    uint32_t b = add(n, 0, 0, 1, 0);
    uint32_t c = add(n, 0, 0, 1, 1);
    solve(n);
    const uint32_t *ids;
    assert_int_equal(wk_flownet_changed(n, &ids), 3);

    uint32_t d = add(n, 0, 0, 1, 0);
    solve(n);
    assert_int_equal(wk_flownet_changed(n, &ids), 3);
    assert_true(in_changed(n, a) && in_changed(n, b) && in_changed(n, d));
    assert_false(in_changed(n, c));
    assert_rate(n, d, 4.0);

    /* Dirty but unchanged: re-rated, not reported. */
    uint64_t before = wk_flownet_rerated(n);
    wk_flownet_set_capacity(n, 0, 12.0);
    solve(n);
    assert_int_equal(wk_flownet_changed(n, &ids), 0);
    assert_int_equal(wk_flownet_rerated(n) - before, 3);
    wk_flownet_free(n);
}

static void test_untouched_components_are_not_rerated(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(100, 10.0);
    /* Component A: links 0, 1. Component B: links 50, 51 chained by b2. */
    uint32_t a1 = add(n, 0, 1, 2, 0, 1);
    uint32_t a2 = add(n, 0, 1, 1, 0);
    uint32_t b1 = add(n, 0, 2, 1, 50);
    uint32_t b2 = add(n, 0, 2, 2, 50, 51);
    uint32_t b3 = add(n, 0, 2, 1, 51);
    solve(n);
    assert_int_equal(wk_flownet_rerated(n), 5);
    double rb[3] = {wk_flownet_rate(n, b1), wk_flownet_rate(n, b2), wk_flownet_rate(n, b3)};

    uint32_t a3 = add(n, 0, 1, 1, 1);
    solve(n);
    assert_int_equal(wk_flownet_rerated(n), 5 + 3); /* a1, a2, a3 only */
    assert_rate(n, a1, 5.0);
    assert_rate(n, a2, 5.0);
    assert_rate(n, a3, 5.0);
    assert_true(wk_flownet_rate(n, b1) == rb[0]);
    assert_true(wk_flownet_rate(n, b2) == rb[1]);
    assert_true(wk_flownet_rate(n, b3) == rb[2]);

    /* Touching link 51 reaches link 50 through b2: all of B, none of A. */
    wk_flownet_set_capacity(n, 51, 4.0);
    solve(n);
    assert_int_equal(wk_flownet_rerated(n), 8 + 3);
    assert_rate(n, b2, 2.0);
    assert_rate(n, b3, 2.0);
    assert_rate(n, b1, 8.0);

    /* A solve with nothing touched re-rates nothing. */
    solve(n);
    assert_int_equal(wk_flownet_rerated(n), 11);
    const uint32_t *ids;
    assert_int_equal(wk_flownet_changed(n, &ids), 0);
    assert_int_equal(wk_flownet_solves(n), 4);
    wk_flownet_free(n);
}

static void test_flow_without_links_gets_its_cap(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(2, 10.0);
    uint32_t a = add(n, 7.0, 3, 0);
    uint32_t b = add(n, 0.0, 4, 0);
    solve(n);
    assert_rate(n, a, 7.0);
    assert_true(isinf(wk_flownet_rate(n, b)) && wk_flownet_rate(n, b) > 0);
    assert_true(in_changed(n, a) && in_changed(n, b));
    assert_int_equal(wk_flownet_rerated(n), 2);
    assert_int_equal(wk_flownet_owner(n, a), 3);
    wk_flownet_free(n);
}

static void test_unlimited_links_give_unlimited_rates(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(3, 10.0);
    wk_flownet_set_capacity(n, 0, INFINITY);
    wk_flownet_set_capacity(n, 2, INFINITY);
    uint32_t a = add(n, 0, 0, 2, 0, 1); /* limited by link 1 */
    uint32_t c = add(n, 0, 0, 1, 1);
    uint32_t b = add(n, 0, 0, 2, 0, 2); /* only unlimited links */
    uint32_t d = add(n, 0, 0, 1, 2);
    uint32_t e = add(n, 3.0, 0, 1, 2); /* its cap binds */
    solve(n);
    assert_rate(n, a, 5.0);
    assert_rate(n, c, 5.0);
    assert_true(isinf(wk_flownet_rate(n, b)) && wk_flownet_rate(n, b) > 0);
    assert_true(isinf(wk_flownet_rate(n, d)) && wk_flownet_rate(n, d) > 0);
    assert_rate(n, e, 3.0);
    wk_flownet_free(n);
}

/* Links 0 and 1 (capacity 1) tie at a share of 1/3 and share flow s; which
 * one freezes first decides who gets fl(1/3) and who gets fl((1 - fl(1/3)) / 2),
 * so the rule (share, then link id) must not depend on history. */
static void test_rates_do_not_depend_on_insertion_order(void **state)
{
    (void)state;
    WkFlowNet *n[2] = {net_new(2, 1.0), net_new(2, 1.0)};
    uint32_t id[2][5]; /* s, p, q on link 0, r, t on link 1 */
    id[0][0] = add(n[0], 0, 0, 2, 0, 1);
    id[0][1] = add(n[0], 0, 0, 1, 0);
    id[0][2] = add(n[0], 0, 0, 1, 0);
    id[0][3] = add(n[0], 0, 0, 1, 1);
    id[0][4] = add(n[0], 0, 0, 1, 1);
    id[1][3] = add(n[1], 0, 0, 1, 1);
    id[1][4] = add(n[1], 0, 0, 1, 1);
    id[1][1] = add(n[1], 0, 0, 1, 0);
    id[1][2] = add(n[1], 0, 0, 1, 0);
    id[1][0] = add(n[1], 0, 0, 2, 1, 0);
    solve(n[0]);
    solve(n[1]);
    for (int i = 0; i < 5; i++) {
        double a = wk_flownet_rate(n[0], id[0][i]), b = wk_flownet_rate(n[1], id[1][i]);
        if (a != b)
            fail_msg("flow %d: %.17g in one order, %.17g in the other", i, a, b);
        assert_true(fabs(a - 1.0 / 3.0) < 1e-15);
    }
    wk_flownet_free(n[0]);
    wk_flownet_free(n[1]);
}

static void test_out_of_range_link_is_rejected(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(4, 10.0);
    WkLinkId links[2] = {1, 4};
    uint32_t id = 12345;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_flownet_add(n, links, 2, 0.0, 0, &id, &err), WK_E_RANGE);
    assert_int_equal(err.code, WK_E_RANGE);
    assert_int_equal(id, 12345);
    assert_int_equal(wk_flownet_count(n), 0);
    uint32_t a = add(n, 0, 0, 1, 1); /* link 1 was not left half-attached */
    solve(n);
    assert_rate(n, a, 10.0);
    wk_flownet_free(n);
}

static void test_removed_ids_are_reused(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(4, 10.0);
    uint32_t a = add(n, 0, 1, 1, 0);
    uint32_t b = add(n, 0, 2, 1, 0);
    wk_flownet_remove(n, a);
    wk_flownet_remove(n, a); /* twice: no-op */
    assert_int_equal(wk_flownet_count(n), 1);
    uint32_t c = add(n, 0, 3, 2, 0, 3);
    assert_int_equal(c, a);
    assert_int_equal(wk_flownet_owner(n, c), 3);
    solve(n);
    assert_rate(n, b, 5.0);
    assert_rate(n, c, 5.0);
    wk_flownet_free(n);
}

/* A net emptied by wk_flownet_clear (after solves, removals and a flow
 * without links) hands out ids 0, 1, ... again and rates the refill as a
 * new net does, bit for bit; wk_flownet_reserve changes nothing it holds. */
static void fill_parking_lot(WkFlowNet *n, uint32_t id[5])
{
    id[0] = add(n, 0, 1, 3, 0, 1, 2);
    id[1] = add(n, 0, 2, 1, 0);
    id[2] = add(n, 4.0, 3, 2, 1, 2);
    id[3] = add(n, 0, 4, 1, 2);
    id[4] = add(n, 7.0, 5, 0);
}

static void test_cleared_net_solves_as_a_new_one(void **state)
{
    (void)state;
    WkError err;
    wk_error_clear(&err);
    WkFlowNet *fresh = net_new(6, 10.0), *n = net_new(6, 10.0);
    uint32_t want[5], got[5];
    fill_parking_lot(fresh, want);
    solve(fresh);
    /* n: other flows, a solve, a removal left in the dirty stack, then clear */
    for (int i = 0; i < 9; i++)
        add(n, 0, 9, 2, i % 6, (i + 1) % 6);
    add(n, 3.0, 9, 0);
    solve(n);
    wk_flownet_remove(n, 4);
    assert_int_equal(wk_flownet_reserve(n, 5, 7, &err), 0);
    assert_int_equal(wk_flownet_count(n), 9);
    wk_flownet_clear(n);
    assert_int_equal(wk_flownet_count(n), 0);
    assert_int_equal(wk_flownet_reserve(n, 5, 7, &err), 0);
    fill_parking_lot(n, got);
    solve(n);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(got[i], want[i]);
        assert_int_equal(got[i], (uint32_t)i);
        assert_true(wk_flownet_rate(n, got[i]) == wk_flownet_rate(fresh, want[i]));
        assert_int_equal(wk_flownet_owner(n, got[i]), (uint32_t)i + 1);
    }
    assert_rate(n, got[4], 7.0);
    /* cleared twice and empty: a solve rates nothing */
    wk_flownet_clear(n);
    wk_flownet_clear(n);
    solve(n);
    assert_int_equal(wk_flownet_count(n), 0);
    assert_int_equal(wk_flownet_reserve(n, (size_t)UINT32_MAX, 1, &err), WK_E_RANGE);
    wk_flownet_free(fresh);
    wk_flownet_free(n);
}

/* ---- random flow sets ---------------------------------------------------- */

#define RL 50       /* links */
#define RMAXF 80    /* flows alive at most */
#define RSTEPS 200

typedef struct {
    int live;
    uint32_t id;
    size_t len;
    WkLinkId links[6];
    double cap;
} RFlow;

static uint64_t rnd(uint64_t *s) /* xorshift64*, fixed seed */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* Uniform in [lo, hi), with a full 53-bit fraction so rounding shows. */
static double uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(rnd(s) >> 11) * 0x1p-53;
}

static void random_flow(RFlow *f, uint64_t *s)
{
    f->len = 1 + rnd(s) % 5;
    /* Three flows in four stay in a group of 5 links, so components vary. */
    uint64_t base = rnd(s) % 4 ? (rnd(s) % 10) * 5 : 0;
    uint64_t span = base ? 5 : RL;
    if (f->len > span)
        f->len = span;
    for (size_t i = 0; i < f->len; i++) {
        WkLinkId l;
        int dup;
        do {
            l = base + rnd(s) % span;
            dup = 0;
            for (size_t j = 0; j < i; j++)
                dup |= f->links[j] == l;
        } while (dup);
        f->links[i] = l;
    }
    f->cap = rnd(s) % 3 == 0 ? uniform(s, 1.0, 40.0) : 0.0;
}

/* Max-min fairness, independently: every link carries at most its capacity,
 * and every flow is at its cap or crosses a saturated link on which no flow
 * gets more than it does. */
static void check_max_min(const WkFlowNet *n, const RFlow *fl, size_t nf, const double *capacity)
{
    double load[RL] = {0}, top[RL] = {0};
    for (size_t i = 0; i < nf; i++) {
        if (!fl[i].live)
            continue;
        double r = wk_flownet_rate(n, fl[i].id);
        assert_true(r >= 0);
        if (fl[i].cap > 0)
            assert_true(r <= fl[i].cap * (1 + 1e-12));
        for (size_t j = 0; j < fl[i].len; j++) {
            load[fl[i].links[j]] += r;
            if (r > top[fl[i].links[j]])
                top[fl[i].links[j]] = r;
        }
    }
    for (int l = 0; l < RL; l++)
        if (load[l] > capacity[l] * (1 + 1e-9) + 1e-9)
            fail_msg("link %d carries %.17g > capacity %.17g", l, load[l], capacity[l]);
    for (size_t i = 0; i < nf; i++) {
        if (!fl[i].live)
            continue;
        double r = wk_flownet_rate(n, fl[i].id);
        int ok = fl[i].cap > 0 && r >= fl[i].cap * (1 - 1e-12);
        for (size_t j = 0; j < fl[i].len && !ok; j++) {
            WkLinkId l = fl[i].links[j];
            ok = load[l] >= capacity[l] * (1 - 1e-9) - 1e-9 && r >= top[l] * (1 - 1e-9);
        }
        if (!ok)
            fail_msg("flow %u (rate %.17g) has no bottleneck", (unsigned)fl[i].id, r);
    }
}

static void test_incremental_solve_equals_solve_from_scratch(void **state)
{
    (void)state;
    uint64_t s = 0x9e3779b97f4a7c15u;
    double capacity[RL];
    WkFlowNet *n = net_new(RL, 0.0);
    for (int l = 0; l < RL; l++) {
        capacity[l] = uniform(&s, 10.0, 100.0);
        wk_flownet_set_capacity(n, (WkLinkId)l, capacity[l]);
    }
    RFlow fl[RMAXF];
    memset(fl, 0, sizeof fl);
    size_t live = 0;
    uint64_t rerated_total = 0, live_total = 0;
    for (int step = 0; step < RSTEPS; step++) {
        uint64_t op = rnd(&s) % 10;
        if (op == 0) { /* a link fails, recovers or is re-rated */
            int l = (int)(rnd(&s) % RL);
            capacity[l] = rnd(&s) % 3 == 0 ? 0.0 : uniform(&s, 10.0, 100.0);
            wk_flownet_set_capacity(n, (WkLinkId)l, capacity[l]);
        } else if ((op < 6 && live < RMAXF) || live < 5) {
            size_t k = 0;
            while (fl[k].live)
                k++;
            random_flow(&fl[k], &s);
            WkError err;
            assert_int_equal(wk_flownet_add(n, fl[k].links, fl[k].len, fl[k].cap, (uint32_t)k,
                                            &fl[k].id, &err), 0);
            fl[k].live = 1;
            live++;
        } else {
            size_t k;
            do
                k = rnd(&s) % RMAXF;
            while (!fl[k].live);
            wk_flownet_remove(n, fl[k].id);
            fl[k].live = 0;
            live--;
        }
        uint64_t r0 = wk_flownet_rerated(n);
        solve(n);
        rerated_total += wk_flownet_rerated(n) - r0;
        live_total += live;
        assert_int_equal(wk_flownet_count(n), live);

        /* From scratch, flows added in reverse order (other ids, other list order). */
        WkFlowNet *m = net_new(RL, 0.0);
        for (int l = 0; l < RL; l++)
            wk_flownet_set_capacity(m, (WkLinkId)l, capacity[l]);
        uint32_t mid[RMAXF];
        for (size_t k = RMAXF; k-- > 0;) {
            if (!fl[k].live)
                continue;
            WkError err;
            assert_int_equal(wk_flownet_add(m, fl[k].links, fl[k].len, fl[k].cap, (uint32_t)k,
                                            &mid[k], &err), 0);
        }
        solve(m);
        for (size_t k = 0; k < RMAXF; k++) {
            if (!fl[k].live)
                continue;
            double a = wk_flownet_rate(n, fl[k].id), b = wk_flownet_rate(m, mid[k]);
            if (a != b)
                fail_msg("step %d flow %zu: incremental %.17g, from scratch %.17g", step, k, a, b);
            assert_int_equal(wk_flownet_owner(n, fl[k].id), k);
        }
        check_max_min(n, fl, RMAXF, capacity);
        wk_flownet_free(m);
    }
    /* Incremental solves did less than re-rating every flow every step. */
    assert_true(rerated_total > 0 && rerated_total < live_total);
    wk_flownet_free(n);
}

/* A flow alone on its links (the runs' rings): the smaller of its cap and
 * its slowest link, counted once as re-rated and listed as changed only
 * when its rate moved; a path that crosses one link twice is two flows'
 * worth on it (half its capacity), not a lone flow; once a second flow
 * joins, both are solved together. */
static void test_lone_flow_gets_min_of_cap_and_links(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(12, 10.0);
    wk_flownet_set_capacity(n, 1, 4.0);
    uint32_t a = add(n, 0, 0, 3, 0, 1, 2);   /* uncapped: its slowest link, 4 */
    uint32_t b = add(n, 3.0, 0, 2, 3, 4);    /* its cap binds: 3 */
    uint32_t c = add(n, 20.0, 0, 2, 5, 6);   /* the links bind: 10 */
    uint32_t d = add(n, 0, 0, 3, 7, 8, 7);   /* link 7 twice: 10 / 2 */
    uint32_t e = add(n, 0, 0, 0);            /* no links: its cap, unlimited */
    wk_flownet_set_capacity(n, 9, 0.0);
    uint32_t f = add(n, 5.0, 0, 2, 10, 9);   /* a failed link: 0 */
    uint64_t r0 = wk_flownet_rerated(n);
    solve(n);
    assert_rate(n, a, 4.0);
    assert_rate(n, b, 3.0);
    assert_rate(n, c, 10.0);
    assert_rate(n, d, 5.0);
    assert_true(wk_flownet_rate(n, e) == HUGE_VAL);
    assert_true(wk_flownet_rate(n, f) == 0.0);
    assert_int_equal(wk_flownet_rerated(n) - r0, 6);
    assert_true(in_changed(n, a) && in_changed(n, b) && in_changed(n, c) && in_changed(n, d));
    assert_false(in_changed(n, f)); /* 0 before, 0 now */

    wk_flownet_set_capacity(n, 2, 2.0); /* a's slowest link now */
    r0 = wk_flownet_rerated(n);
    solve(n);
    assert_rate(n, a, 2.0);
    assert_int_equal(wk_flownet_rerated(n) - r0, 1);
    assert_true(in_changed(n, a) && !in_changed(n, b));

    uint32_t g = add(n, 0, 0, 1, 2); /* a shares link 2 now: 1 each */
    solve(n);
    assert_rate(n, a, 1.0);
    assert_rate(n, g, 1.0);
    wk_flownet_remove(n, g);
    solve(n);
    assert_rate(n, a, 2.0);
    wk_flownet_free(n);
}

/* A link event finds the jobs on the link through its flow list
 * (models/state/progress.c, wk_progress_reroute): exactly the owners of the
 * flows crossing it, removed flows gone. */
static void collect_owner(uint32_t owner, void *user)
{
    uint32_t *seen = user;
    seen[owner]++;
}

static void test_link_owners_are_the_flows_on_the_link(void **state)
{
    (void)state;
    WkFlowNet *n = net_new(4, 100.0);
    add(n, 0, 1, 2, 0, 1);
    uint32_t gone = add(n, 0, 2, 1, 1);
    add(n, 0, 3, 2, 2, 1);
    add(n, 0, 4, 1, 3);
    wk_flownet_remove(n, gone);
    uint32_t seen[8] = {0};
    wk_flownet_link_owners(n, 1, collect_owner, seen);
    assert_int_equal(seen[1], 1);
    assert_int_equal(seen[2], 0);
    assert_int_equal(seen[3], 1);
    assert_int_equal(seen[4], 0);
    memset(seen, 0, sizeof seen);
    wk_flownet_link_owners(n, 99, collect_owner, seen); /* out of range: none */
    for (int i = 0; i < 8; i++)
        assert_int_equal(seen[i], 0);
    wk_flownet_free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_flows_on_one_link_get_half_each),
        cmocka_unit_test(test_bottleneck_elsewhere_frees_capacity_for_others),
        cmocka_unit_test(test_caps_are_respected_and_leftover_redistributed),
        cmocka_unit_test(test_failed_link_stops_its_flows_and_spares_others),
        cmocka_unit_test(test_removing_a_flow_restores_rates),
        cmocka_unit_test(test_changed_lists_exactly_the_flows_whose_rate_moved),
        cmocka_unit_test(test_untouched_components_are_not_rerated),
        cmocka_unit_test(test_flow_without_links_gets_its_cap),
        cmocka_unit_test(test_unlimited_links_give_unlimited_rates),
        cmocka_unit_test(test_rates_do_not_depend_on_insertion_order),
        cmocka_unit_test(test_out_of_range_link_is_rejected),
        cmocka_unit_test(test_removed_ids_are_reused),
        cmocka_unit_test(test_cleared_net_solves_as_a_new_one),
        cmocka_unit_test(test_incremental_solve_equals_solve_from_scratch),
        cmocka_unit_test(test_link_owners_are_the_flows_on_the_link),
        cmocka_unit_test(test_lone_flow_gets_min_of_cap_and_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
