/* SPDX-License-Identifier: Apache-2.0 */
/* test_cascade.c — the §3.2 information cascade (models/mech/cascade.h) and
 * gradient compression in the performance model: arrival delays on a small
 * topology against their closed form, the compressed DP time's shape in
 * 1/ratio, the cases compression leaves alone, and a run whose job switches
 * mid-way finishing when its two iteration times say it must. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/mech/cascade.h"
#include "models/topo/cluster.h"
#include "models/workload/perf.h"
#include "models/workload/perf_comm.h"

static WkDoc *keep[16];
static size_t nkeep;

static const WkNode *yaml_root(const char *text)
{
    WkError err;
    WkDoc *d = NULL;
    wk_error_clear(&err);
    if (wk_doc_load_string(&d, "t.yaml", text, strlen(text), &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    keep[nkeep++] = d;
    return d->root;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < nkeep; i++)
        wk_doc_free(keep[i]);
    nkeep = 0;
    return 0;
}

static void cluster(WkCluster *c, const char *yaml)
{
    WkError err;
    wk_error_clear(&err);
    if (wk_cluster_parse(wk_node_get(yaml_root(yaml), "cluster"), c, &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
}

/* 8 nodes of 8 GPUs, NVLink domains of 2 nodes, racks of 4 nodes: from GPU
 * 3, the domain is GPUs 0-15, the rack 0-31, the rest 32-63. */
static void test_delays_follow_domain_rack_and_cluster(void **state)
{
    (void)state;
    WkCluster c;
    cluster(&c, "cluster: {sku: A100-SXM-80G, nodes: 8, gpus_per_node: 8, nvlink_domain: 16}\n");
    WkCascadeSpec s;
    int on = 0;
    WkError err;
    wk_error_clear(&err);
    const WkNode *root = yaml_root("mechanisms:\n  cascade: {origin_gpu: 3, rack_nodes: 4, nvlink_delay: 2ms,"
                                   " rack_delay: 20ms, cluster_delay: 0.5s}\n");
    assert_int_equal(wk_cascade_parse(root, &c, &s, &on, &err), 0);
    assert_int_equal(on, 1);
    assert_true(wk_cascade_delay_s(&c, &s, 3) == 0);
    assert_true(fabs(wk_cascade_delay_s(&c, &s, 0) - 2e-3) < 1e-12);
    assert_true(fabs(wk_cascade_delay_s(&c, &s, 15) - 2e-3) < 1e-12);  /* second node of the domain */
    assert_true(fabs(wk_cascade_delay_s(&c, &s, 16) - 20e-3) < 1e-12); /* next domain, same rack */
    assert_true(fabs(wk_cascade_delay_s(&c, &s, 31) - 20e-3) < 1e-12);
    assert_true(fabs(wk_cascade_delay_s(&c, &s, 32) - 0.5) < 1e-12);   /* next rack */
    uint32_t near[] = {1, 2, 8}, wide[] = {1, 20, 63};
    assert_true(fabs(wk_cascade_job_delay_s(&c, &s, near, 3) - 2e-3) < 1e-12);
    assert_true(fabs(wk_cascade_job_delay_s(&c, &s, wide, 3) - 0.5) < 1e-12); /* the last GPU to know */
    assert_true(wk_cascade_job_delay_s(&c, &s, NULL, 0) == 0);
    /* the defaults: the paper's 1 ms, 10 ms, 100 ms and racks of 4 nodes */
    assert_int_equal(wk_cascade_parse(yaml_root("mechanisms: {cascade: {}}\n"), &c, &s, &on, &err), 0);
    assert_true(s.nvlink_s == 1e-3 && s.rack_s == 10e-3 && s.cluster_s == 100e-3 && s.rack_nodes == 4);
    assert_true(s.ratio == 2 && s.at == 0 && s.origin_gpu == 0);
    /* off without the section */
    assert_int_equal(wk_cascade_parse(yaml_root("name: x\n"), &c, &s, &on, &err), 0);
    assert_int_equal(on, 0);
    wk_cluster_fini(&c);
}

static void test_bad_keys_are_positioned_errors(void **state)
{
    (void)state;
    WkCluster c;
    cluster(&c, "cluster: {sku: A100-SXM-80G, nodes: 2, gpus_per_node: 8}\n");
    static const char *const bad[][2] = {
        {"mechanisms: {cascade: {ratio: 1}}\n", "ratio"},
        {"mechanisms: {cascade: {origin_gpu: 16}}\n", "origin_gpu"},
        {"mechanisms: {cascade: {rack_nodes: 0}}\n", "rack_nodes"},
        {"mechanisms: {cascade: {nvlink_delay: -1ms}}\n", "nvlink_delay"},
        {"mechanisms: {cascade: {speed: 3}}\n", "speed"},
        {"mechanisms: {nonesuch: {}}\n", "nonesuch"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        WkCascadeSpec s;
        int on = 0;
        WkError err;
        wk_error_clear(&err);
        assert_true(wk_cascade_parse(yaml_root(bad[i][0]), &c, &s, &on, &err) < 0);
        if (!strstr(err.msg, bad[i][1]) && !strstr(err.where, bad[i][1]))
            fail_msg("%s: error lacks '%s': %s: %s", bad[i][0], bad[i][1], err.where, err.msg);
        assert_non_null(strstr(err.where, "t.yaml:1:"));
    }
    wk_cluster_fini(&c);
}

static WkModelSpec model(const char *yaml)
{
    WkModelSpec m;
    WkError err;
    wk_error_clear(&err);
    if (wk_model_parse(wk_node_get(yaml_root(yaml), "model"), NULL, &m, &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    return m;
}

static WkPerfResult eval(const WkModelSpec *m, WkPerfEnv env)
{
    WkPerfParams pp = wk_perf_defaults();
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    if (wk_perf_eval(m, &env, &pp, &r, &err) < 0)
        fail_msg("%s", err.msg);
    return r;
}

/* Exposed DP time with compression r: a + b / r for large buckets (the
 * collective's bandwidth term and half the codec's traffic scale with 1/r),
 * so equal steps in 1/r give equal steps in time; ratio 0 or 1 is the
 * uncompressed model bit for bit. */
static void test_compressed_dp_time_is_linear_in_one_over_ratio(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: llama3-8b, tp: 4, zero: 0, overlap_grad_reduce: false}\n");
    WkPerfEnv env = {.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = 64, .nvlink_gpus = 8,
                     .nvlink_bw = 450e9, .net_bw = 5e9, .multi_domain = 1};
    WkPerfResult none = eval(&m, env);
    env.grad_ratio = 1;
    WkPerfResult one = eval(&m, env);
    assert_memory_equal(&none, &one, sizeof none);
    double dp[4];
    const double ratio[4] = {2, 4, 8, 16};
    for (int i = 0; i < 4; i++) {
        env.grad_ratio = ratio[i];
        dp[i] = eval(&m, env).dp_s;
    }
    double d1 = dp[0] - dp[1], d2 = dp[1] - dp[2], d3 = dp[2] - dp[3];
    assert_true(d1 > 0 && fabs(d1 - 2 * d2) < 1e-6 * d1 && fabs(d2 - 2 * d3) < 1e-6 * d2);
    /* on a slow network compression pays: 16x is faster than none */
    assert_true(dp[3] < none.dp_s);
    /* the codec's cost alone: 2B + 2B/r bytes through HBM */
    env.grad_ratio = 4;
    double b = 1e9, h = env.sku->hbm_bw_bytes_per_s;
    assert_true(fabs(wk_perf_compress_s(&env, b) - (2 * b + 2 * b / 4) / h) < 1e-15);
    env.grad_ratio = 0;
    assert_true(wk_perf_compress_s(&env, b) == 0);
}

/* One replica (no DP reduction) and ZeRO-3 are left as they were. */
static void test_compression_leaves_single_replica_and_zero3_alone(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: llama3-8b, tp: 8, pp: 1}\n");
    WkPerfEnv env = {.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = 8, .nvlink_gpus = 8,
                     .nvlink_bw = 450e9, .net_bw = 50e9};
    WkPerfResult a = eval(&m, env);
    env.grad_ratio = 4;
    WkPerfResult b = eval(&m, env);
    assert_memory_equal(&a, &b, sizeof a);
    m = model("model: {base: llama3-8b, zero: 3}\n");
    env = (WkPerfEnv){.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = 64, .nvlink_gpus = 8,
                      .nvlink_bw = 450e9, .net_bw = 50e9, .multi_domain = 1};
    a = eval(&m, env);
    env.grad_ratio = 4;
    b = eval(&m, env);
    assert_memory_equal(&a, &b, sizeof a);
}

static const char *const job_yaml =
    "name: cascade\nseed: 1\nsim: {end: 30d}\n"
    "cluster: {sku: H100-SXM-80G, nodes: 8, gpus_per_node: 8, fabric: {kind: fat-tree}}\n"
    "models: {m: {base: llama3-8b, zero: 1, overlap_grad_reduce: false}}\n"
    "workload: {source: inline, jobs: [{submit: 0, gpus: 64, model: m, iterations: 3000}]}\n";

static double jct(const char *mech, uint64_t *adopted)
{
    char y[2048];
    snprintf(y, sizeof y, "%s%s", job_yaml, mech);
    TestRun t;
    test_run_yaml(&t, y, NULL);
    double v = test_metric(&t, "jct_mean_s");
    *adopted = wk_cascade_adopted(t.run);
    test_run_free(&t);
    return v;
}

/* A job alone: without the method it runs at tau0 per iteration, with it
 * from the start at tau1; found at t0 and known everywhere at once, it
 * finishes at t0 + (N - t0 / tau0) tau1; with the paper's delays its
 * switch comes 100 ms later (it spans two racks). */
static void test_a_job_switches_when_its_last_gpu_knows(void **state)
{
    (void)state;
    const double n = 3000, t0 = 3600;
    uint64_t k0, k1, k2, k3;
    double plain = jct("", &k0);
    double comp = jct("mechanisms: {cascade: {at: 0, ratio: 8, nvlink_delay: 0, rack_delay: 0, cluster_delay: 0}}\n", &k1);
    double mid = jct("mechanisms: {cascade: {at: 1h, ratio: 8, nvlink_delay: 0, rack_delay: 0, cluster_delay: 0}}\n", &k2);
    double late = jct("mechanisms: {cascade: {at: 1h, ratio: 8}}\n", &k3);
    assert_true(k0 == 0 && k1 == 1 && k2 == 1 && k3 == 1);
    double tau0 = plain / n, tau1 = comp / n;
    assert_true(tau1 < tau0);
    double want = t0 + (n - t0 / tau0) * tau1;
    if (fabs(mid - want) > 1e-6 * want)
        fail_msg("switch at 1 h: JCT %.9f s, closed form %.9f s", mid, want);
    double t1 = t0 + 0.1, want_late = t1 + (n - t1 / tau0) * tau1;
    if (fabs(late - want_late) > 1e-7 || !(late > mid))
        fail_msg("switch at 1 h + 100 ms: JCT %.9f s, closed form %.9f s", late, want_late);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_delays_follow_domain_rack_and_cluster, teardown),
        cmocka_unit_test_teardown(test_bad_keys_are_positioned_errors, teardown),
        cmocka_unit_test_teardown(test_compressed_dp_time_is_linear_in_one_over_ratio, teardown),
        cmocka_unit_test_teardown(test_compression_leaves_single_replica_and_zero3_alone, teardown),
        cmocka_unit_test_teardown(test_a_job_switches_when_its_last_gpu_knows, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
