/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded re-solves of the flow network (wk_flownet_set_bounded) against
 * the default per-component solve, which equals a solve from scratch bit
 * for bit: random jobs (rings of NICs, capped at the link rate as the runs
 * add them), checkpoint writes (flows from a job's NICs to a few storage
 * NICs, uncapped), link failures and repairs on fat-trees and rail fabrics;
 * after every change both nets are solved and every rate must agree to
 * 1e-9 relative, and every flow whose rate moved must be listed as changed. */
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
#include "models/topo/fabric.h"

#define BW 50e9
#define MAXJ 24    /* jobs alive at most */
#define MAXN 32    /* NICs of a job */

typedef struct {
    int live, writing;
    uint32_t n;                  /* NICs */
    uint32_t ring[MAXN][2];      /* ring flows (a in net a, b in net b) */
    uint32_t write[MAXN][2];     /* write flows */
    uint32_t nic[MAXN];
} Job;

typedef struct {
    WkFlowNet *a, *b;            /* bounded, per component */
    WkFabric fab;
    uint64_t nlinks;
    uint32_t sinks;              /* the last `sinks` NICs are storage nodes */
    double *prev;                /* rates of net a before the solve, by id */
    uint32_t prev_cap;
    uint64_t rerated_a, rerated_b;
    double worst;                /* largest relative difference seen */
} Bench;

static uint64_t rnd(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static double unif(uint64_t *s)
{
    return (double)(rnd(s) >> 11) * 0x1.0p-53;
}

/* Add the flow a -> b (capped or not) to both nets. */
static void add_both(Bench *x, uint32_t from, uint32_t to, double cap, uint32_t owner, uint32_t id[2])
{
    WkLinkId links[WK_FABRIC_MAX_HOPS];
    int nl = wk_fabric_path(&x->fab, from, to, links);
    assert_true(nl >= 0);
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_flownet_add(x->a, links, (size_t)nl, cap, owner, &id[0], &err), 0);
    assert_int_equal(wk_flownet_add(x->b, links, (size_t)nl, cap, owner, &id[1], &err), 0);
}

static void remove_both(Bench *x, const uint32_t id[2])
{
    wk_flownet_remove(x->a, id[0]);
    wk_flownet_remove(x->b, id[1]);
}

static int listed(const WkFlowNet *n, uint32_t id)
{
    const uint32_t *ids;
    size_t k = wk_flownet_changed(n, &ids);
    for (size_t i = 0; i < k; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

static void compare(Bench *x, const Job *jobs, int step, const char *what)
{
    WkError err;
    wk_error_clear(&err);
    uint64_t ra = wk_flownet_rerated(x->a), rb = wk_flownet_rerated(x->b);
    assert_int_equal(wk_flownet_solve(x->a, &err), 0);
    assert_int_equal(wk_flownet_solve(x->b, &err), 0);
    x->rerated_a += wk_flownet_rerated(x->a) - ra;
    x->rerated_b += wk_flownet_rerated(x->b) - rb;
    assert_int_equal(wk_flownet_count(x->a), wk_flownet_count(x->b));
    for (int j = 0; j < MAXJ; j++) {
        if (!jobs[j].live)
            continue;
        for (uint32_t i = 0; i < 2 * jobs[j].n; i++) {
            const uint32_t *id = i < jobs[j].n ? jobs[j].ring[i] : jobs[j].write[i - jobs[j].n];
            if (i >= jobs[j].n && !jobs[j].writing)
                break;
            double p = wk_flownet_rate(x->a, id[0]), q = wk_flownet_rate(x->b, id[1]);
            double d = p == q ? 0.0 : fabs(p - q) / fmax(fabs(p), fabs(q));
            if (!(d <= 1e-9))
                fail_msg("step %d (%s), job %d flow %u: bounded %.17g, whole component %.17g", step, what, j,
                         i, p, q);
            if (d > x->worst)
                x->worst = d;
            if (id[0] < x->prev_cap && p != x->prev[id[0]] && !listed(x->a, id[0]))
                fail_msg("step %d (%s): flow %u moved %.17g -> %.17g, not listed as changed", step, what, id[0],
                         x->prev[id[0]], p);
        }
    }
    for (uint32_t f = 0; f < x->prev_cap; f++)
        x->prev[f] = wk_flownet_rate(x->a, f);
}

/* A run of `steps` random changes on the fabric of spec. */
static void bench(const WkFabricSpec *spec0, uint32_t sinks, int steps, uint64_t seed, double *worst,
                  double *work)
{
    WkFabricSpec spec = *spec0;
    spec.link_bytes_per_s = BW;
    spec.link_latency_s = 1e-6;
    if (spec.kind == WK_FABRIC_RAIL)
        spec.nics = spec.nics_per_pod * spec.nics; /* nics holds the pods here */
    spec.nics_present = spec.nics;
    Bench x = {.sinks = sinks};
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_fabric_build(&spec, &x.fab, &err), 0);
    x.nlinks = 2 * wk_fabric_link_ids(&x.fab);
    assert_int_equal(wk_flownet_new(&x.a, x.nlinks, BW, &err), 0);
    assert_int_equal(wk_flownet_new(&x.b, x.nlinks, BW, &err), 0);
    wk_flownet_set_bounded(x.a, 1);
    x.prev_cap = 2 * MAXJ * MAXN + 64;
    x.prev = calloc(x.prev_cap, sizeof *x.prev);
    assert_non_null(x.prev);
    uint32_t nics = spec.nics - sinks;
    uint64_t s = seed;
    /* the storage nodes' NIC links run at 2x a link (their own capacity) */
    for (uint32_t k = 0; k < sinks; k++) {
        WkLinkId up[WK_FABRIC_MAX_HOPS], down[WK_FABRIC_MAX_HOPS];
        assert_true(wk_fabric_path(&x.fab, nics + k, 0, up) > 0);
        int nl = wk_fabric_path(&x.fab, 0, nics + k, down);
        assert_true(nl > 0);
        wk_flownet_set_capacity(x.a, up[0], 2 * BW);
        wk_flownet_set_capacity(x.b, up[0], 2 * BW);
        wk_flownet_set_capacity(x.a, down[nl - 1], 2 * BW);
        wk_flownet_set_capacity(x.b, down[nl - 1], 2 * BW);
    }
    Job jobs[MAXJ];
    memset(jobs, 0, sizeof jobs);
    for (int step = 0; step < steps; step++) {
        uint64_t op = rnd(&s) % 16;
        int j = (int)(rnd(&s) % MAXJ);
        const char *what;
        if (op < 2) { /* a link degrades, fails or comes back */
            WkLinkId l = rnd(&s) % x.nlinks;
            double c = op == 0 ? BW * (0.1 + 0.9 * unif(&s)) : (rnd(&s) % 2 ? 0.0 : BW);
            wk_flownet_set_capacity(x.a, l, c);
            wk_flownet_set_capacity(x.b, l, c);
            what = "capacity";
        } else if (!jobs[j].live && op < 9) { /* a job starts: a ring over a block of NICs */
            Job *J = &jobs[j];
            J->n = 2 + (uint32_t)(rnd(&s) % (MAXN - 1));
            uint32_t at = (uint32_t)(rnd(&s) % nics), stride = rnd(&s) % 4 ? 1 : 1 + (uint32_t)(rnd(&s) % 7);
            for (uint32_t i = 0; i < J->n; i++)
                J->nic[i] = (at + i * stride) % nics;
            for (uint32_t i = 0; i < J->n; i++) {
                uint32_t to = J->nic[(i + 1) % J->n];
                if (to == J->nic[i])
                    to = (to + 1) % nics;
                add_both(&x, J->nic[i], to, rnd(&s) % 4 ? BW : BW * (0.2 + 0.8 * unif(&s)), (uint32_t)j,
                         J->ring[i]);
            }
            J->live = 1;
            what = "job starts";
        } else if (jobs[j].live && !jobs[j].writing && op < 13 && sinks) { /* a checkpoint write */
            Job *J = &jobs[j];
            for (uint32_t i = 0; i < J->n; i++)
                add_both(&x, J->nic[i], nics + (i + (uint32_t)j) % sinks, 0.0, (uint32_t)j, J->write[i]);
            J->writing = 1;
            what = "write begins";
        } else if (jobs[j].live && jobs[j].writing && op < 15) {
            for (uint32_t i = 0; i < jobs[j].n; i++)
                remove_both(&x, jobs[j].write[i]);
            jobs[j].writing = 0;
            what = "write ends";
        } else if (jobs[j].live) { /* a job ends */
            for (uint32_t i = 0; i < jobs[j].n; i++)
                remove_both(&x, jobs[j].ring[i]);
            for (uint32_t i = 0; jobs[j].writing && i < jobs[j].n; i++)
                remove_both(&x, jobs[j].write[i]);
            jobs[j].live = jobs[j].writing = 0;
            what = "job ends";
        } else
            continue;
        compare(&x, jobs, step, what);
    }
    *worst = x.worst;
    *work = (double)x.rerated_a / (double)x.rerated_b;
    wk_flownet_free(x.a);
    wk_flownet_free(x.b);
    free(x.prev);
}

static void test_bounded_solves_equal_whole_component_solves(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        WkFabricSpec spec; /* rail: .nics = pods */
        uint32_t sinks;
    } topo[] = {
        {"fat-tree, 2 tiers, k 8", {.kind = WK_FABRIC_FATTREE, .tiers = 2, .radix = 8, .nics = 32,
                                    .rails = 1, .oversub = {1, 1}}, 2},
        {"fat-tree, 2 tiers, k 16, 3:1", {.kind = WK_FABRIC_FATTREE, .tiers = 2, .radix = 16, .nics = 96,
                                          .rails = 1, .oversub = {3, 1}}, 4},
        {"fat-tree, 3 tiers, k 8", {.kind = WK_FABRIC_FATTREE, .tiers = 3, .radix = 8, .nics = 128,
                                    .rails = 1, .oversub = {1, 1}}, 4},
        {"fat-tree, 3 tiers, k 8, 2:1 and 3:1", {.kind = WK_FABRIC_FATTREE, .tiers = 3, .radix = 8,
                                                 .nics = 96, .rails = 1, .oversub = {2, 3}}, 3},
        {"rail, 2 tiers, 8 rails", {.kind = WK_FABRIC_RAIL, .tiers = 2, .radix = 32, .rails = 8,
                                    .nics_per_pod = 128, .nics = 2, .oversub = {1, 1}}, 8},
        {"rail, 3 tiers, 4 rails, 4:1", {.kind = WK_FABRIC_RAIL, .tiers = 3, .radix = 16, .rails = 4,
                                         .nics_per_pod = 32, .nics = 6, .oversub = {4, 1}}, 4},
        {"fat-tree, 3 tiers, k 8, no storage", {.kind = WK_FABRIC_FATTREE, .tiers = 3, .radix = 8,
                                                .nics = 128, .rails = 1, .oversub = {1, 1}}, 0},
    };
    for (size_t t = 0; t < sizeof topo / sizeof topo[0]; t++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            double worst, work;
            bench(&topo[t].spec, topo[t].sinks, 300, seed * UINT64_C(0x9e3779b97f4a7c15) + t, &worst, &work);
            printf("%s, seed %llu: largest relative difference %.3g, flows re-rated %.3f of the whole "
                   "component's\n", topo[t].name, (unsigned long long)seed, worst, work);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounded_solves_equal_whole_component_solves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
