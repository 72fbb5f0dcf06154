/* SPDX-License-Identifier: Apache-2.0 */
/* test_perf_wan.c — data parallelism across sites against closed forms: one
 * site gives wk_perf_eval's result bit for bit, a fully exposed WAN leg is
 * the ring over the sites computed by hand (link- or NIC-bound), the last
 * bucket stays exposed behind a long backward pass, ZeRO-3 shards inside a
 * site, the slowdown grows as the link slows, and bad links or splits are
 * refused; plus the rate parser the `wan:` key uses. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/gpu/catalog.h"
#include "models/state/eval.h"
#include "models/workload/model.h"
#include "models/workload/perf.h"

static WkModelSpec model(const char *yaml)
{
    WkModelSpec m;
    WkError err;
    WkDoc *d = NULL;
    wk_error_clear(&err);
    if (wk_doc_load_string(&d, "t.yaml", yaml, strlen(yaml), &err) < 0 ||
        wk_model_parse(wk_node_get(d->root, "model"), NULL, &m, &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    wk_doc_free(d); /* a parsed spec keeps no pointer into the document but its name */
    m.name = "test";
    return m;
}

static WkPerfEnv env_h100(uint32_t gpus)
{
    return (WkPerfEnv){.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = gpus, .nvlink_gpus = 8,
                       .nvlink_bw = 450e9, .net_bw = 50e9, .multi_domain = gpus > 8};
}

static WkPerfResult eval_wan(const WkModelSpec *m, uint32_t gpus, const WkPerfParams *p, const WkPerfWan *w)
{
    WkPerfEnv env = env_h100(gpus);
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    if (wk_perf_eval_wan(m, &env, p, w, &r, &err) < 0)
        fail_msg("%s", err.msg);
    return r;
}

/* The ring over S sites by hand: an all-reduce (k = 2) or one pass (k = 1)
 * moves k (S-1)/S of the site's gradient bytes through each link, at the
 * link rate x efficiency, plus k (S-1) one-way latencies. */
static double ring_by_hand(double grad_bytes, double S, double link_bits, double eff, double lat, double k)
{
    return k * (S - 1) / S * grad_bytes / (link_bits / 8 * eff) + k * (S - 1) * lat;
}

static void test_one_site_is_wk_perf_eval_bit_for_bit(void **state)
{
    (void)state;
    const char *specs[] = {
        "model: {base: llama3-70b, global_batch: 256}\n",
        "model: {base: llama3-70b, zero: 1, global_batch: 256}\n",
        "model: {base: llama3-70b, zero: 3, tp: 8, pp: 1, global_batch: 256}\n",
        "model: {base: mixtral-8x7b, global_batch: 256}\n",
        "model: resnet50\n",
    };
    WkPerfParams p = wk_perf_defaults();
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        WkModelSpec m = model(specs[i]);
        WkPerfEnv env = env_h100(256);
        WkPerfResult a, b, c;
        WkError err;
        wk_error_clear(&err);
        int ra = wk_perf_eval(&m, &env, &p, &a, &err);
        int rb = wk_perf_eval_wan(&m, &env, &p, NULL, &b, &err);
        int rc = wk_perf_eval_wan(&m, &env, &p, &(WkPerfWan){.sites = 1, .bw_bits_per_s = 1e9, .lat_s = 1}, &c, &err);
        assert_int_equal(ra, rb);
        assert_int_equal(ra, rc);
        assert_memory_equal(&a, &b, sizeof a);
        assert_memory_equal(&a, &c, sizeof a);
        assert_true(a.wan_s == 0);
    }
}

static void test_exposed_wan_allreduce_matches_ring_over_sites(void **state)
{
    (void)state;
    /* no gradient overlap: the WAN leg is exposed in full */
    WkModelSpec m = model("model: {base: llama3-8b, tp: 8, pp: 1, global_batch: 64, overlap_grad_reduce: false}\n");
    WkPerfParams p = wk_perf_defaults();
    double gb = 2 * m.params;
    for (uint32_t S = 2; S <= 8; S *= 2) {
        WkPerfWan w = {.sites = S, .bw_bits_per_s = 100e9, .lat_s = 5e-3, .eff = 1};
        WkPerfResult r = eval_wan(&m, 64, &p, &w);
        double want = ring_by_hand(gb, S, 100e9, 1, 5e-3, 2);
        assert_float_equal(r.wan_s, want, 1e-9 * want);
        /* the same job in one site of 64 / S GPUs reduces inside the site alike */
        WkPerfResult site = eval_wan(&m, 64 / S, &p, NULL);
        assert_float_equal(r.dp_s, site.dp_s, 1e-12);
        assert_float_equal(r.iter_s, r.compute_s + r.bubble_s + r.tp_s + r.cp_s + r.pp_s + r.dp_s + r.ep_s +
                                         r.optim_s + r.interference_s + r.wan_s, 1e-12);
    }
    /* the default efficiency is the cited long-haul RDMA figure */
    WkPerfResult d = eval_wan(&m, 64, &p, &(WkPerfWan){.sites = 2, .bw_bits_per_s = 100e9, .lat_s = 5e-3});
    assert_float_equal(d.wan_s, ring_by_hand(gb, 2, 100e9, WK_PERF_WAN_EFF, 5e-3, 2), 1e-9 * d.wan_s);
    /* ZeRO-1: reduce-scatter and all-gather each cross the WAN once */
    WkModelSpec z = m;
    z.zero = 1;
    WkPerfResult rz = eval_wan(&z, 64, &p, &(WkPerfWan){.sites = 4, .bw_bits_per_s = 100e9, .lat_s = 5e-3, .eff = 1});
    double pass = ring_by_hand(gb, 4, 100e9, 1, 5e-3, 1);
    assert_float_equal(rz.wan_s, 2 * pass, 1e-9 * pass);
}

static void test_few_ranks_are_bound_by_their_nics(void **state)
{
    (void)state;
    /* 8 GPUs per site behind a 10 Tb/s link: each rank's NIC (50 GB/s at the
     * fabric's efficiency) carries its 1/8 of the gradients more slowly */
    WkModelSpec m = model("model: {base: llama3-8b, tp: 8, pp: 1, global_batch: 64, overlap_grad_reduce: false}\n");
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult r = eval_wan(&m, 16, &p, &(WkPerfWan){.sites = 2, .bw_bits_per_s = 10e12, .lat_s = 1e-3, .eff = 1});
    double nic = 50e9 * wk_catalog_eff(wk_catalog_find("H100-SXM-80G"))->net_eff;
    double want = 2 * 0.5 * 2 * m.params / 8 / nic + 2 * 1e-3;
    assert_float_equal(r.wan_s, want, 1e-9 * want);
}

static void test_last_bucket_stays_exposed_behind_long_backward(void **state)
{
    (void)state;
    /* a fast link and a long backward pass: all but the last 40 M-parameter
     * bucket's WAN leg hides */
    WkModelSpec m = model("model: {base: llama3-8b, tp: 8, pp: 1, global_batch: 64, micro_batch: 8}\n");
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult r = eval_wan(&m, 64, &p, &(WkPerfWan){.sites = 2, .bw_bits_per_s = 3.2e12, .lat_s = 1e-3, .eff = 1});
    double local = m.params / 8; /* tp 8, pp 1 */
    double bucket = 40e6 / local * 2 * m.params;
    double want = ring_by_hand(bucket, 2, 3.2e12, 1, 1e-3, 2);
    assert_float_equal(r.wan_s, want, 1e-9 * want);
    /* without overlap the whole reduction is exposed */
    p.dp_overlap = 0;
    WkPerfResult x = eval_wan(&m, 64, &p, &(WkPerfWan){.sites = 2, .bw_bits_per_s = 3.2e12, .lat_s = 1e-3, .eff = 1});
    assert_true(x.wan_s > 5 * r.wan_s);
}

static void test_slowdown_grows_as_bandwidth_falls_and_latency_rises(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: llama3-8b, global_batch: 256}\n");
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult one = eval_wan(&m, 256, &p, NULL);
    double prev = one.iter_s;
    const double bw[] = {12.8e12, 3.2e12, 800e9, 400e9, 100e9, 10e9};
    for (size_t i = 0; i < sizeof bw / sizeof bw[0]; i++) {
        WkPerfResult r = eval_wan(&m, 256, &p, &(WkPerfWan){.sites = 2, .bw_bits_per_s = bw[i], .lat_s = 5e-3});
        assert_true(r.iter_s > prev);
        assert_true(r.wan_s > 0);
        prev = r.iter_s;
    }
    prev = 0;
    const double lat[] = {0, 1e-3, 10e-3, 50e-3};
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        WkPerfResult r = eval_wan(&m, 256, &p, &(WkPerfWan){.sites = 4, .bw_bits_per_s = 400e9, .lat_s = lat[i]});
        assert_true(r.iter_s > prev);
        prev = r.iter_s;
    }
}

static void test_zero3_shards_inside_a_site(void **state)
{
    (void)state;
    /* hybrid sharding: the training state is sharded over the site's DP
     * ranks, as for the same job alone in one site of 64 / 2 GPUs */
    WkModelSpec m = model("model: {base: llama3-8b, zero: 3, tp: 8, pp: 1, global_batch: 64}\n");
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult span = eval_wan(&m, 64, &p, &(WkPerfWan){.sites = 2, .bw_bits_per_s = 400e9, .lat_s = 5e-3});
    WkPerfResult site = eval_wan(&m, 32, &p, NULL), all = eval_wan(&m, 64, &p, NULL);
    assert_float_equal(span.mem_state_bytes, site.mem_state_bytes, 1e-6);
    assert_true(span.mem_state_bytes > all.mem_state_bytes);
    assert_true(span.wan_s > 0);
}

static void test_vision_wan_allreduce_matches_ring_over_sites(void **state)
{
    (void)state;
    WkModelSpec m = model("model: resnet50\n");
    WkPerfParams p = wk_perf_defaults();
    p.dp_overlap = 0;
    WkPerfResult r = eval_wan(&m, 1024, &p, &(WkPerfWan){.sites = 4, .bw_bits_per_s = 100e9, .lat_s = 2e-3, .eff = 1});
    double want = ring_by_hand(2 * m.params, 4, 100e9, 1, 2e-3, 2);
    assert_float_equal(r.wan_s, want, 1e-9 * want);
    /* with overlap behind a long step only the last 25 MB bucket's share stays */
    p.dp_overlap = 1;
    m.batch_per_gpu = 256;
    WkPerfResult o = eval_wan(&m, 1024, &p, &(WkPerfWan){.sites = 4, .bw_bits_per_s = 800e9, .lat_s = 0, .eff = 1});
    double last = ring_by_hand(2 * m.params, 4, 800e9, 1, 0, 2) * 25e6 / (2 * m.params);
    assert_float_equal(o.wan_s, last, 1e-9 * last);
}

static void expect_refused(const WkModelSpec *m, uint32_t gpus, const WkPerfWan *w, const char *needle)
{
    WkPerfParams p = wk_perf_defaults();
    WkPerfEnv env = env_h100(gpus);
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_perf_eval_wan(m, &env, &p, w, &r, &err), WK_E_INVAL);
    if (!strstr(err.msg, needle))
        fail_msg("'%s' not in '%s'", needle, err.msg);
}

static void test_bad_links_and_splits_are_refused(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: llama3-8b, tp: 8, pp: 2, global_batch: 64}\n");
    WkPerfWan ok = {.sites = 2, .bw_bits_per_s = 400e9, .lat_s = 5e-3};
    WkPerfWan w = ok;
    w.bw_bits_per_s = 0;
    expect_refused(&m, 64, &w, "bandwidth must be > 0");
    w = ok;
    w.lat_s = -1;
    expect_refused(&m, 64, &w, "latency >= 0");
    w = ok;
    w.eff = 1.5;
    expect_refused(&m, 64, &w, "efficiency");
    w = ok;
    w.sites = 3; /* 64 GPUs, 16 per replica: 4 replicas do not split over 3 sites */
    expect_refused(&m, 64, &w, "need a multiple of sites x tp x pp x cp = 48");
    WkModelSpec rec = model("model: {kind: recsys, params: 1e9, flops_per_sample: 1e9, batch_per_gpu: 512,"
                            " embedding_gb: 100, a2a_bytes_per_sample: 4096}\n");
    expect_refused(&rec, 64, &ok, "recommendation");
    WkModelSpec moe = model("model: {base: mixtral-8x7b, tp: 1, pp: 1, ep: 8, global_batch: 64}\n");
    expect_refused(&moe, 8, &(WkPerfWan){.sites = 2, .bw_bits_per_s = 400e9}, "ep = 8");
}

static void test_placed_job_spans_sites_like_its_site(void **state)
{
    (void)state;
    const char *y = "cluster: {sku: H100-SXM-80G, nodes: 16, gpus_per_node: 8, nodes_per_pod: 8,"
                    " fabric: {kind: rail, radix: 16, link_gbps: 400}}\n";
    WkDoc *d = NULL;
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&d, "c.yaml", y, strlen(y), &err), 0);
    assert_int_equal(wk_cluster_parse(wk_node_get(d->root, "cluster"), &c, &err), 0);
    WkModelSpec m = model("model: {base: llama3-8b, tp: 8, pp: 1, global_batch: 128}\n");
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult a, b, span, one;
    uint8_t pa, pb;
    /* no WAN: exactly wk_eval_job */
    assert_int_equal(wk_eval_job(&c, &m, NULL, 64, &p, &a, &pa, &err), 0);
    assert_int_equal(wk_eval_job_wan(&c, &m, NULL, 64, &p, NULL, &b, NULL, &pb, &err), 0);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(pa, pb);
    /* 64 GPUs in each of 2 sites: a 128-GPU job whose reference is one site */
    WkPerfWan w = {.sites = 2, .bw_bits_per_s = 400e9, .lat_s = 5e-3};
    assert_int_equal(wk_eval_job_wan(&c, &m, NULL, 64, &p, &w, &span, &one, &pb, &err), 0);
    assert_int_equal(span.dp, 16);
    assert_int_equal(one.dp, 16);
    assert_true(span.wan_s > 0 && one.wan_s == 0);
    assert_true(span.iter_s > one.iter_s);
    /* three sites of 64: 24 replicas, and the 128 sequences do not split over them */
    w.sites = 3;
    assert_int_equal(wk_eval_job_wan(&c, &m, NULL, 64, &p, &w, &span, &one, &pb, &err), WK_E_INVAL);
    wk_cluster_fini(&c);
    wk_doc_free(d);
}

static void test_rates_parse_with_units(void **state)
{
    (void)state;
    double v = 0;
    assert_int_equal(wk_parse_rate("400Gbps", &v), 0);
    assert_float_equal(v, 400e9, 0);
    assert_int_equal(wk_parse_rate("12.5 GB/s", &v), 0);
    assert_float_equal(v, 100e9, 1e-3);
    assert_int_equal(wk_parse_rate("1_000", &v), 0);
    assert_float_equal(v, 1000, 0);
    assert_int_equal(wk_parse_rate("100 Mb/s", &v), 0);
    assert_float_equal(v, 100e6, 0);
    assert_int_equal(wk_parse_rate("400 parsecs", &v), WK_E_INVAL);
    assert_int_equal(wk_parse_rate("Gbps", &v), WK_E_INVAL);
    assert_int_equal(wk_parse_rate("1e400Gbps", &v), WK_E_RANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_site_is_wk_perf_eval_bit_for_bit),
        cmocka_unit_test(test_exposed_wan_allreduce_matches_ring_over_sites),
        cmocka_unit_test(test_few_ranks_are_bound_by_their_nics),
        cmocka_unit_test(test_last_bucket_stays_exposed_behind_long_backward),
        cmocka_unit_test(test_slowdown_grows_as_bandwidth_falls_and_latency_rises),
        cmocka_unit_test(test_zero3_shards_inside_a_site),
        cmocka_unit_test(test_vision_wan_allreduce_matches_ring_over_sites),
        cmocka_unit_test(test_bad_links_and_splits_are_refused),
        cmocka_unit_test(test_placed_job_spans_sites_like_its_site),
        cmocka_unit_test(test_rates_parse_with_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
