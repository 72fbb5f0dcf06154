/* SPDX-License-Identifier: Apache-2.0 */
/* test_collective.c — collective cost models against hand-computed closed
 * forms: ring and tree all-reduce, reduce-scatter + all-gather = all-reduce,
 * hierarchical all-reduce, all-to-all, p2p, the nccl-tests busbw identity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <cmocka.h>

#include "models/gpu/catalog.h"
#include "models/net/collective.h"
#include "models/workload/perf_comm.h"

/* |got - want| <= rel * |want| (exact when rel = 0). */
#define assert_near(got, want, rel)                                                       \
    do {                                                                                  \
        double g_ = (got), w_ = (want);                                                   \
        if (!(fabs(g_ - w_) <= (rel)*fabs(w_)))                                           \
            fail_msg("%s = %.17g, want %.17g (rel %.1e)", #got, g_, w_, (double)(rel)); \
    } while (0)

#define REL 1e-12

static void test_ring_allreduce_matches_closed_form(void **state)
{
    (void)state;
    /* 2(n-1)/n * S/B + 2(n-1) * a, worked by hand. */
    assert_near(wk_coll_allreduce_ring_s(1e9, 8, 50e9, 5e-6), 0.035 + 0.00007, REL);
    assert_near(wk_coll_allreduce_ring_s(1073741824.0, 2, 17179869184.0, 1e-6), 0.0625 + 2e-6, REL);
    assert_near(wk_coll_allreduce_ring_s(4e6, 1024, 25e9, 1e-5), 3.196875e-4 + 0.02046, REL);
    assert_near(wk_coll_allreduce_ring_s(1e9, 3, 1e10, 0.0), 0.4 / 3.0, REL);
    /* Powers of two are exact: 2*7/8 * 2^30/2^35 = 0.0546875. */
    assert_near(wk_coll_allreduce_ring_s(1073741824.0, 8, 34359738368.0, 0.0), 0.0546875, 0.0);
}

static void test_allreduce_dispatches_on_algorithm(void **state)
{
    (void)state;
    assert_near(wk_coll_allreduce_s(WK_COLL_RING, 1e9, 8, 50e9, 5e-6),
                wk_coll_allreduce_ring_s(1e9, 8, 50e9, 5e-6), 0.0);
    assert_near(wk_coll_allreduce_s(WK_COLL_TREE, 1e9, 8, 50e9, 5e-6),
                wk_coll_allreduce_tree_s(1e9, 8, 50e9, 5e-6), 0.0);
    assert_true(wk_coll_allreduce_s(WK_COLL_RING, 1e9, 8, 50e9, 5e-6) !=
                wk_coll_allreduce_s(WK_COLL_TREE, 1e9, 8, 50e9, 5e-6));
}

static void test_one_rank_or_no_bytes_costs_nothing(void **state)
{
    (void)state;
    assert_true(wk_coll_allreduce_ring_s(1e9, 1, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_allreduce_ring_s(1e9, 0, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_allreduce_tree_s(1e9, 1, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_reduce_scatter_s(1e9, 1, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_all_gather_s(1e9, 1, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_all_to_all_s(1e9, 1, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_allreduce_hier_s(1e9, 1, 200e9, 1e-6, 1, 50e9, 5e-6) == 0.0);
    /* An empty collective is a no-op (NCCL returns at once for count 0). */
    assert_true(wk_coll_allreduce_ring_s(0.0, 8, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_allreduce_tree_s(0.0, 8, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_p2p_s(0.0, 50e9, 5e-6) == 0.0);
    assert_true(wk_coll_busbw_allreduce(1e9, 1, 0.01) == 0.0);
}

static void test_busbw_of_latency_free_ring_equals_link_bandwidth(void **state)
{
    (void)state;
    /* Exact with powers of two. */
    double S = 1073741824.0, B = 34359738368.0;
    for (uint32_t n = 2; n <= 1024; n *= 2) {
        double t = wk_coll_allreduce_ring_s(S, n, B, 0.0);
        assert_near(wk_coll_busbw_allreduce(S, n, t), B, 0.0);
    }
    /* And to rounding for any sizes. */
    uint32_t ns[] = {3, 7, 12, 1000, 10240};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        double t = wk_coll_allreduce_ring_s(1e9, ns[i], 48e9, 0.0);
        assert_near(wk_coll_busbw_allreduce(1e9, ns[i], t), 48e9, REL);
    }
}

static void test_busbw_is_algbw_times_ring_factor(void **state)
{
    (void)state;
    /* 1 GB in 10 ms over 8 ranks: algbw 100 GB/s, busbw 175 GB/s. */
    assert_near(wk_coll_busbw_allreduce(1e9, 8, 0.01), 175e9, REL);
    /* Latency lowers busbw below the link rate. */
    double t = wk_coll_allreduce_ring_s(1e9, 8, 50e9, 5e-6);
    assert_true(wk_coll_busbw_allreduce(1e9, 8, t) < 50e9);
}

static void test_reduce_scatter_plus_all_gather_is_ring_allreduce(void **state)
{
    (void)state;
    struct { double S; uint32_t n; double B, a; } c[] = {
        {1e9, 8, 50e9, 5e-6}, {3.3e7, 17, 25e9, 2e-6}, {1e6, 1024, 400e9, 1e-5}, {5e8, 2, 12.5e9, 0.0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double rs = wk_coll_reduce_scatter_s(c[i].S, c[i].n, c[i].B, c[i].a);
        double ag = wk_coll_all_gather_s(c[i].S, c[i].n, c[i].B, c[i].a);
        assert_near(rs, ag, 0.0);
        assert_near(rs + ag, wk_coll_allreduce_ring_s(c[i].S, c[i].n, c[i].B, c[i].a), REL);
    }
    /* (n-1)/n * S/B + (n-1) a by hand: 7/8 * 20 ms + 7 us. */
    assert_near(wk_coll_reduce_scatter_s(1e9, 8, 50e9, 1e-6), 0.0175 + 7e-6, REL);
}

static void test_all_to_all_and_p2p_match_closed_form(void **state)
{
    (void)state;
    assert_near(wk_coll_all_to_all_s(1e9, 8, 50e9, 1e-6), 0.0175 + 7e-6, REL);
    assert_near(wk_coll_all_to_all_s(1e9, 2, 50e9, 1e-6), 0.01 + 1e-6, REL);
    assert_near(wk_coll_p2p_s(1e9, 50e9, 1e-6), 0.020001, REL);
}

static void test_tree_allreduce_matches_closed_form(void **state)
{
    (void)state;
    /* 2 S/B + 2 ceil(log2 n) a: 40 ms + 20 * 5 us. */
    assert_near(wk_coll_allreduce_tree_s(1e9, 1024, 50e9, 5e-6), 0.0401, REL);
    /* ceil(log2 n) through the latency term alone (infinite bandwidth). */
    struct { uint32_t n; double steps; } c[] = {
        {2, 1}, {3, 2}, {4, 2}, {5, 3}, {1000, 10}, {1024, 10}, {1025, 11}, {100000, 17},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        assert_near(wk_coll_allreduce_tree_s(1.0, c[i].n, INFINITY, 1.0), 2.0 * c[i].steps, 0.0);
}

static void test_tree_beats_ring_on_latency_for_large_n(void **state)
{
    (void)state;
    /* Latency terms alone: tree 2*10*a vs ring 2*1023*a at n = 1024. */
    assert_near(wk_coll_allreduce_tree_s(1.0, 1024, INFINITY, 5e-6), 1e-4, REL);
    assert_near(wk_coll_allreduce_ring_s(1.0, 1024, INFINITY, 5e-6), 0.01023, REL);
    /* With a real message the tree still wins at 1024 ranks (40.1 ms vs
     * 50.19 ms) but loses at 8 ranks, where the ring moves 7/8 of 2S/B. */
    assert_near(wk_coll_allreduce_ring_s(1e9, 1024, 50e9, 5e-6), 0.0399609375 + 0.01023, REL);
    assert_true(wk_coll_allreduce_tree_s(1e9, 1024, 50e9, 5e-6) <
                wk_coll_allreduce_ring_s(1e9, 1024, 50e9, 5e-6));
    assert_true(wk_coll_allreduce_tree_s(1e9, 8, 50e9, 5e-6) >
                wk_coll_allreduce_ring_s(1e9, 8, 50e9, 5e-6));
}

static void test_ring_and_tree_bandwidth_terms_meet_at_2S_over_B(void **state)
{
    (void)state;
    double S = 1073741824.0, B = 34359738368.0; /* 2S/B = 1/16 exactly */
    for (uint32_t n = 2; n <= (1u << 20); n *= 4) {
        double tree = wk_coll_allreduce_tree_s(S, n, B, 0.0);
        double ring = wk_coll_allreduce_ring_s(S, n, B, 0.0);
        assert_near(tree, 0.0625, 0.0);
        /* ring / tree = (n-1)/n, -> 1 as n grows. */
        assert_near(ring, 0.0625 * (double)(n - 1) / (double)n, REL);
    }
    assert_true(0.0625 - wk_coll_allreduce_ring_s(S, 1u << 20, B, 0.0) < 1e-7);
}

static void test_hierarchical_allreduce_is_ring_with_one_rank_per_node(void **state)
{
    (void)state;
    uint32_t ns[] = {2, 16, 1280};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        assert_near(wk_coll_allreduce_hier_s(1e9, 1, 200e9, 1e-6, ns[i], 50e9, 5e-6),
                    wk_coll_allreduce_ring_s(1e9, ns[i], 50e9, 5e-6), 0.0);
}

static void test_hierarchical_allreduce_matches_closed_form(void **state)
{
    (void)state;
    /* 8 ranks per node at 200 GB/s, 1 us; 16 nodes at 50 GB/s, 5 us:
     * reduce-scatter 7/8*5 ms + 7 us = 4.382 ms, the same for all-gather;
     * inter ring of 125 MB: 2*15/16*2.5 ms + 30*5 us = 4.8375 ms. */
    assert_near(wk_coll_allreduce_hier_s(1e9, 8, 200e9, 1e-6, 16, 50e9, 5e-6),
                2 * 0.004382 + 0.0048375, REL);
    /* A single node: only the intra-node phases remain. */
    assert_near(wk_coll_allreduce_hier_s(1e9, 8, 200e9, 1e-6, 1, 50e9, 5e-6), 2 * 0.004382, REL);
}

/* nccl-tests all-reduce busbw at 8 GiB, REFERENCES.md: 8xH100 ~370 (ring)
 * and ~480 (NVLS), 8xA100 200-232, NDR 46-48 GB/s per NIC; HDR 200G ~24 GB/s
 * per NIC at 8 GB (NCCL maintainers, NVIDIA/nccl#412); within 5 %. */
static void test_allreduce_busbw_matches_nccl_tests(void **state)
{
    (void)state;
    double S = 8.0 * (1 << 30);
    const WkGpuSku *h = wk_catalog_find("H100-SXM-80G"), *a = wk_catalog_find("A100-SXM-80G");
    const WkGpuEff *eh = wk_catalog_eff(h), *ea = wk_catalog_eff(a);
    WkPerfEnv env = {.sku = h, .speed = 1, .gpus = 8, .nvlink_gpus = 8, .nvlink_bw = 450e9, .net_bw = 50e9};
    double nvls = wk_coll_busbw_allreduce(S, 8, wk_perf_allreduce_intra_s(eh, &env, S, 8));
    double ring_h =
        wk_coll_busbw_allreduce(S, 8, wk_coll_allreduce_ring_s(S, 8, 450e9 * eh->nvlink_eff, eh->ring_lat_s));
    env.sku = a;
    env.nvlink_bw = 300e9;
    double ring_a = wk_coll_busbw_allreduce(S, 8, wk_perf_allreduce_intra_s(ea, &env, S, 8));
    double lx = wk_perf_defaults().lat_inter_s;
    double ndr = wk_coll_busbw_allreduce(S, 64, wk_coll_allreduce_ring_s(S, 64, 50e9 * eh->net_eff, lx));
    double hdr = wk_coll_busbw_allreduce(S, 64, wk_coll_allreduce_ring_s(S, 64, 25e9 * ea->net_eff, lx));
    print_message("busbw GB/s: H100 NVLS %.0f, ring %.0f; A100 %.0f; NDR %.1f, HDR %.1f\n", nvls / 1e9,
                  ring_h / 1e9, ring_a / 1e9, ndr / 1e9, hdr / 1e9);
    assert_true(fabs(nvls / 480e9 - 1) < 0.05);
    assert_true(fabs(ring_h / 370e9 - 1) < 0.05);
    assert_true(ring_a > 200e9 * 0.95 && ring_a < 232e9 * 1.05);
    assert_true(ndr > 46e9 * 0.95 && ndr < 48e9 * 1.05);
    assert_true(fabs(hdr / 24e9 - 1) < 0.05);
}

/* The size dependence of the same curves: nccl-tests all-reduce busbw on 8
 * GPUs per message size as Azure published it (AI-benchmarking-guide, ND
 * A100 v4 and ND H100 v5, in place): the fitted step latencies (eff.c) keep
 * every point from 16 MiB to 8 GiB within 15 %, and a message of 4 MiB is
 * slower than measured (NCCL's low-latency protocols are not modelled). */
static void test_allreduce_busbw_follows_the_nccl_tests_size_curve(void **state)
{
    (void)state;
    static const double mib[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
    static const double a100[] = {109.22, 132.77, 166.63, 174.18, 213.87, 221.58, 228.10, 230.22, 230.48, 231.58};
    static const double h100[] = {234.45, 295.53, 361.78, 400.61, 423.38, 438.46, 466.35, 472.36, 475.54, 478.87};
    const WkGpuSku *h = wk_catalog_find("H100-SXM-80G"), *a = wk_catalog_find("A100-SXM-80G");
    WkPerfEnv eh = {.sku = h, .speed = 1, .gpus = 8, .nvlink_gpus = 8, .nvlink_bw = 450e9, .net_bw = 50e9};
    WkPerfEnv ea = {.sku = a, .speed = 1, .gpus = 8, .nvlink_gpus = 8, .nvlink_bw = 300e9, .net_bw = 25e9};
    for (size_t i = 0; i < sizeof mib / sizeof mib[0]; i++) {
        double S = mib[i] * (1 << 20);
        double bh = wk_coll_busbw_allreduce(S, 8, wk_perf_allreduce_intra_s(wk_catalog_eff(h), &eh, S, 8)) / 1e9;
        double ba = wk_coll_busbw_allreduce(S, 8, wk_perf_allreduce_intra_s(wk_catalog_eff(a), &ea, S, 8)) / 1e9;
        print_message("%6.0f MiB: H100 %.0f (nccl-tests %.0f), A100 %.0f (%.0f) GB/s\n", mib[i], bh, h100[i], ba,
                      a100[i]);
        assert_true(fabs(bh / h100[i] - 1) < 0.15);
        assert_true(fabs(ba / a100[i] - 1) < 0.15);
    }
    double S = 4.0 * (1 << 20);
    assert_true(wk_coll_busbw_allreduce(S, 8, wk_perf_allreduce_intra_s(wk_catalog_eff(a), &ea, S, 8)) < 71.43e9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_allreduce_matches_closed_form),
        cmocka_unit_test(test_allreduce_dispatches_on_algorithm),
        cmocka_unit_test(test_one_rank_or_no_bytes_costs_nothing),
        cmocka_unit_test(test_busbw_of_latency_free_ring_equals_link_bandwidth),
        cmocka_unit_test(test_busbw_is_algbw_times_ring_factor),
        cmocka_unit_test(test_reduce_scatter_plus_all_gather_is_ring_allreduce),
        cmocka_unit_test(test_all_to_all_and_p2p_match_closed_form),
        cmocka_unit_test(test_tree_allreduce_matches_closed_form),
        cmocka_unit_test(test_tree_beats_ring_on_latency_for_large_n),
        cmocka_unit_test(test_ring_and_tree_bandwidth_terms_meet_at_2S_over_B),
        cmocka_unit_test(test_hierarchical_allreduce_is_ring_with_one_rank_per_node),
        cmocka_unit_test(test_hierarchical_allreduce_matches_closed_form),
        cmocka_unit_test(test_allreduce_busbw_matches_nccl_tests),
        cmocka_unit_test(test_allreduce_busbw_follows_the_nccl_tests_size_curve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
