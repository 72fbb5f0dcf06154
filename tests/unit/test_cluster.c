/* SPDX-License-Identifier: Apache-2.0 */
/* test_cluster.c — the cluster layer: node groups laid out into pods and
 * NVLink domains, SKU overrides and new SKUs, GPU→NIC mapping and path
 * classes through the fabric, per-GPU state, the power model against
 * its closed form (idle cluster, busy cluster, one busy GPU over a run), and
 * the per-pod series binned from the allocation record, and the placement
 * table's node ranges. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/state/account.h"
#include "models/run/hooks.h"
#include "models/topo/cluster.h"

static WkDoc *docs[64];
static size_t ndocs;

/* Parse `cluster:` from YAML text; the document lives until teardown. */
static int parse(const char *yaml, WkCluster *c, WkError *err)
{
    WkDoc *doc = NULL;
    wk_error_clear(err);
    int rc = wk_doc_load_string(&doc, "c.yaml", yaml, strlen(yaml), err);
    assert_int_equal(rc, 0);
    docs[ndocs++] = doc;
    return wk_cluster_parse(wk_node_get(doc->root, "cluster"), c, err);
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < ndocs; i++)
        wk_doc_free(docs[i]);
    ndocs = 0;
    return 0;
}

static void test_groups_start_their_own_pods_and_map_gpus(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    assert_int_equal(parse("cluster:\n"
                           "  nodes_per_pod: 4\n"
                           "  groups:\n"
                           "    - {sku: H100-SXM-80G, nodes: 6, gpus_per_node: 8}\n"
                           "    - {name: old, sku: A100-SXM-80G, nodes: 3, gpus_per_node: 4}\n",
                           &c, &err),
                     0);
    assert_int_equal(c.gpus, 6 * 8 + 3 * 4);
    assert_int_equal(c.nodes, 9);
    assert_int_equal(c.pods, 2 + 1); /* 6 nodes → 2 pods; the A100 group starts pod 2 */
    assert_int_equal(c.groups[1].first_pod, 2);
    assert_string_equal(c.groups[1].name, "old");
    /* GPU 47 is the last H100 (node 5, pod 1); GPU 48 the first A100 (node 6, pod 2) */
    assert_int_equal(wk_cluster_node_of(&c, 47), 5);
    assert_int_equal(wk_cluster_pod_of(&c, 47), 1);
    assert_int_equal(wk_cluster_node_of(&c, 48), 6);
    assert_int_equal(wk_cluster_pod_of(&c, 48), 2);
    assert_string_equal(wk_cluster_sku_of(&c, 48)->name, "A100-SXM-80G");
    assert_string_equal(wk_cluster_sku_of(&c, 0)->name, "H100-SXM-80G");
    wk_cluster_fini(&c);
}

static void test_nvl72_domains_span_racks_of_nodes(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    /* GB200 NVL72-style: 4 GPUs per tray, 18 trays (72 GPUs) per NVLink domain */
    assert_int_equal(parse("cluster: {sku: H100-SXM-80G, nodes: 36, gpus_per_node: 4, nvlink_domain: 72}\n", &c,
                           &err),
                     0);
    assert_int_equal(wk_cluster_nvlink_domain(&c, 0), 0);
    assert_int_equal(wk_cluster_nvlink_domain(&c, 71), 0);
    assert_int_equal(wk_cluster_nvlink_domain(&c, 72), 1);
    assert_int_equal(wk_cluster_path_class(&c, 0, 71), WK_PATH_LOCAL); /* different nodes, one domain */
    assert_int_not_equal(wk_cluster_path_class(&c, 0, 72), WK_PATH_LOCAL);
    wk_cluster_fini(&c);
    assert_int_equal(parse("cluster: {nodes: 4, gpus_per_node: 8, nvlink_domain: 12}\n", &c, &err), WK_E_RANGE);
    assert_string_equal(err.where, "c.yaml:1:54");
}

static void test_scenario_overrides_and_defines_skus(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    assert_int_equal(parse("cluster:\n"
                           "  nodes: 2\n"
                           "  sku: B200-test\n"
                           "  skus:\n"
                           "    - {name: H100-SXM-80G, tdp_w: 600}\n"
                           "    - {name: B200-test, base: H100-SXM-80G, bf16_tflops: 2250, hbm_gb: 192, tdp_w: 1000}\n"
                           "    - {name: Tiny, bf16_tflops: 1, hbm_gb: 1, hbm_tb_per_s: 1, link_gb_per_s: 1, tdp_w: 100,"
                           " idle_w: 5}\n",
                           &c, &err),
                     0);
    const WkGpuSku *h = wk_catalog_lookup(&c.catalog, "H100-SXM-80G");
    assert_float_equal(h->tdp_w, 600, 0);
    assert_float_equal(h->idle_w, 600 * WK_GPU_IDLE_FRACTION, 1e-9); /* idle follows a new TDP */
    assert_float_equal(h->bf16_flops, 989e12, 0);                      /* untouched fields stay */
    assert_string_equal(c.sku->name, "B200-test");
    assert_float_equal(c.sku->bf16_flops, 2250e12, 0);
    assert_float_equal(c.sku->fp8_flops, 1979e12, 0); /* from its base, after the base was overridden */
    assert_float_equal(c.sku->tdp_w, 1000, 0);
    assert_float_equal(wk_catalog_lookup(&c.catalog, "Tiny")->idle_w, 5, 0);
    wk_cluster_fini(&c);
}

static void expect_error(const char *yaml, int code, const char *where, const char *fragment)
{
    WkCluster c;
    WkError err;
    int rc = parse(yaml, &c, &err);
    if (rc != code || strcmp(err.where, where) != 0 || !strstr(err.msg, fragment))
        fail_msg("rc %d, got '%s: %s', want %d '%s: ...%s...'", rc, err.where, err.msg, code, where, fragment);
}

static void test_cluster_errors_are_positioned(void **state)
{
    (void)state;
    expect_error("cluster: {nodes: 2, sku: V100}\n", WK_E_NOTFOUND, "c.yaml:1:26", "known: A100-SXM-80G");
    expect_error("cluster:\n  nodes: 2\n  skus:\n    - {name: X, tdp_w: 100}\n", WK_E_INVAL, "c.yaml:4:7",
                 "new SKU 'X' needs 'bf16_tflops'");
    expect_error("cluster:\n  nodes: 2\n  skus:\n    - {name: H100-SXM-80G, tdp_w: -1}\n", WK_E_RANGE, "c.yaml:4:35",
                 "tdp_w");
    expect_error("cluster:\n  nodes: 2\n  groups: [{nodes: 1}]\n", WK_E_INVAL, "c.yaml:2:10",
                 "either 'groups' or the single-group keys");
    /* 2 tiers of radix 8 hold 8 leaves x 4 NICs = 32 NICs; 8 nodes x 8 GPUs need 64 */
    expect_error("cluster:\n  nodes: 8\n  fabric: {kind: rail, tiers: 2, radix: 8}\n", WK_E_RANGE, "c.yaml:3:31", "tiers");
    /* radix 4: even 3 tiers cannot hold 4096 NICs */
    expect_error("cluster:\n  nodes: 512\n  fabric: {kind: fat-tree, radix: 4}\n", WK_E_RANGE, "c.yaml:3:35", "");
    expect_error("cluster:\n  nodes: 2\n  fabric: {kind: rail, radix: 63}\n", WK_E_RANGE, "c.yaml:3:31", "even");
    expect_error("cluster:\n  nodes: 2\n  fabric: {kind: torus}\n", WK_E_INVAL, "c.yaml:3:18", "known: none, rail, fat-tree");
}

static void test_gpu_pairs_get_the_fabric_class_of_their_nics(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    /* 2 pods of 4 nodes x 8 GPUs, radix 16 → leaf_down 8: one leaf per rail per pod,
     * 8 leaves per pod = the spine's 8 down ports */
    assert_int_equal(parse("cluster:\n  nodes: 8\n  nodes_per_pod: 4\n  fabric: {kind: rail, tiers: 3, radix: 16}\n",
                           &c, &err),
                     0);
    WkLinkId links[WK_FABRIC_MAX_HOPS];
    assert_int_equal(wk_cluster_path_class(&c, 0, 7), WK_PATH_LOCAL); /* same node */
    assert_int_equal(wk_cluster_path(&c, 0, 7, links), 0);
    assert_int_equal(wk_cluster_path_class(&c, 0, 8), WK_PATH_LEAF); /* node 0 rail 0 ↔ node 1 rail 0 */
    assert_int_equal(wk_cluster_path(&c, 0, 8, links), 2);
    assert_int_equal(wk_cluster_path_class(&c, 0, 9), WK_PATH_POD); /* rail 0 ↔ rail 1 */
    assert_int_equal(wk_cluster_path(&c, 0, 9, links), 4);
    assert_int_equal(wk_cluster_path_class(&c, 0, 32), WK_PATH_CROSS_POD); /* pod 0 ↔ pod 1 */
    assert_int_equal(wk_cluster_path(&c, 0, 32, links), 6);
    assert_int_equal(wk_cluster_nic_of(&c, 32), 32);
    wk_cluster_fini(&c);
}

static void test_partial_pods_keep_nics_pod_aligned(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    /* group A has 3 nodes in a 4-node pod; group B starts at pod 1 = NIC slot 4*8 */
    assert_int_equal(parse("cluster:\n  nodes_per_pod: 4\n  groups:\n"
                           "    - {sku: H100-SXM-80G, nodes: 3}\n    - {sku: A100-SXM-80G, nodes: 2}\n"
                           "  fabric: {kind: rail, tiers: 3, radix: 16}\n",
                           &c, &err),
                     0);
    assert_int_equal(wk_cluster_nic_of(&c, 24), 32); /* first GPU of group B */
    assert_int_equal(wk_cluster_nic_of(&c, 23), 23);
    assert_int_equal(c.fabric.spec.nics, 2 * 4 * 8);
    assert_int_equal(c.fabric.spec.nics_present, 5 * 8);
    assert_int_equal(c.fabric.links_nic_leaf, 5 * 8);
    wk_cluster_fini(&c);
}

static void test_cluster_power_matches_closed_form(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    assert_int_equal(parse("cluster:\n  nodes: 4\n  sku: A100-SXM-80G\n"
                           "  fabric: {kind: rail, radix: 64}\n"
                           "  power: {pue: 1.5, switch_port_w: 10, optic_w: 8}\n",
                           &c, &err),
                     0);
    /* 32 NICs, radix 64 → 1 leaf per rail = 8 leaves, 2 tiers, spines = ceil(8*32/64) = 4 */
    double ports = (double)(c.fabric.leaves + c.fabric.spines + c.fabric.cores) * 64;
    double net = ports * 10 + (double)c.fabric.optics * 8;
    assert_float_equal(wk_cluster_network_w(&c), net, 1e-9);
    assert_float_equal(wk_cluster_power_at(&c, 0), (32 * 50.0 + net) * 1.5, 1e-6);
    assert_float_equal(wk_cluster_power_at(&c, 1), (32 * 400.0 + net) * 1.5, 1e-6);
    /* a throttled GPU at clock 0.5 and a down GPU */
    wk_cluster_set_state(&c, 0, WK_GPU_THROTTLED, 0.5f);
    wk_cluster_set_state(&c, 1, WK_GPU_DOWN, 0);
    assert_float_equal(wk_cluster_power_at(&c, 1), (30 * 400.0 + (50 + 350 * 0.5) + 0 + net) * 1.5, 1e-6);
    wk_cluster_fini(&c);
}

static void test_run_energy_integrates_power_over_time(void **state)
{
    (void)state;
    /* 16 A100, PUE 1.25, no fabric: one 8-GPU job for 1 h, then all 16 for 30 min */
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {sku: A100-SXM-80G, nodes: 2, power: {pue: 1.25}}\n"
                  "workload:\n  source: inline\n  jobs:\n"
                  "    - {submit: 0, gpus: 8, duration: 1h}\n"
                  "    - {submit: 1h, gpus: 16, duration: 30m}\n",
                  NULL);
    double first = (8 * 400.0 + 8 * 50.0) * 3600, second = 16 * 400.0 * 1800;
    double kwh = (first + second) * 1.25 / 3.6e6;
    assert_float_equal(test_metric(&t, "energy_kwh"), kwh, 1e-9);
    assert_float_equal(test_metric(&t, "mean_power_mw"), kwh * 3.6e6 / 5400 / 1e6, 1e-12);
    assert_float_equal(test_metric(&t, "energy_per_job_kwh"), kwh / 2, 1e-9);
    /* the time series carries the facility power of each instant */
    const WkRun *r = t.run;
    assert_float_equal(wk_run_hooks_account(r)->samples[0].power_w, (8 * 400.0 + 8 * 50.0) * 1.25, 1e-9);
    assert_float_equal(wk_run_hooks_account(r)->samples[wk_run_hooks_account(r)->nsamples - 1].power_w, 16 * 50.0 * 1.25, 1e-9);
    test_run_free(&t);
}

/* timeseries/pods from the allocation record, against sums by hand: bins
 * cut segments at their edges, segments past the end are clipped, the last
 * bin is short, and a long run widens the bins to WK_RUN_POD_BINS. */
static void test_pod_series_bins_the_allocation_record(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    /* 4 nodes x 2 GPUs, 2 nodes per pod: GPUs 0-3 pod 0, 4-7 pod 1 */
    assert_int_equal(parse("cluster: {nodes: 4, gpus_per_node: 2, nodes_per_pod: 2}\n", &c, &err), 0);
    assert_int_equal(c.pods, 2);
    WkAccount a;
    memset(&a, 0, sizeof a);
    const uint32_t ga[] = {0, 1, 4}, gb[] = {2}, gc[] = {7};
    assert_int_equal(wk_account_segment(&a, 0, 5, 35, ga, 3, &err), 0);  /* pod 0: 2 GPUs, pod 1: 1 */
    assert_int_equal(wk_account_segment(&a, 1, 10, 20, gb, 1, &err), 0); /* pod 0, bin 1 whole */
    assert_int_equal(wk_account_segment(&a, 2, 38, 50, gc, 1, &err), 0); /* pod 1, clipped at 40 */
    WkPodRow *rows = NULL;
    size_t n = 0;
    assert_int_equal(wk_account_pod_series(&a, &c, 40, 10, &rows, &n, &err), 0);
    assert_int_equal(n, 4 * 2);
    const double want[4][2] = {{1.0, 0.5}, {3.0, 1.0}, {2.0, 1.0}, {1.0, 0.7}};
    for (size_t b = 0; b < 4; b++) {
        for (uint32_t p = 0; p < 2; p++) {
            const WkPodRow *r = &rows[b * 2 + p];
            assert_int_equal(r->time_ns, (int64_t)b * 10);
            assert_int_equal(r->span_ns, 10);
            assert_int_equal(r->pod, p);
            assert_int_equal(r->gpus, 4);
            assert_float_equal(r->allocated, want[b][p], 1e-12);
        }
    }
    free(rows);
    /* end 35: the last bin is [30, 35) */
    assert_int_equal(wk_account_pod_series(&a, &c, 35, 10, &rows, &n, &err), 0);
    assert_int_equal(n, 8);
    assert_int_equal(rows[6].span_ns, 5);
    assert_float_equal(rows[6].allocated, 2.0, 1e-12); /* segment A: 2 GPUs over all of [30, 35) */
    assert_float_equal(rows[7].allocated, 1.0, 1e-12);
    free(rows);
    /* 3,000,000 ns at 1 ns per bin: widened to 1,000 bins of 3,000 ns */
    assert_int_equal(wk_account_pod_series(&a, &c, 3000000, 1, &rows, &n, &err), 0);
    assert_int_equal(n, 2 * WK_RUN_POD_BINS);
    assert_int_equal(rows[2].time_ns, 3000);
    assert_int_equal(rows[n - 1].time_ns + rows[n - 1].span_ns, 3000000);
    double gpu_ns = 0;
    for (size_t i = 0; i < n; i++)
        gpu_ns += rows[i].allocated * (double)rows[i].span_ns;
    assert_float_equal(gpu_ns, 3 * 30 + 10 + 12, 1e-6); /* every segment's GPUs x length */
    free(rows);
    /* nothing to bin: an empty run */
    assert_int_equal(wk_account_pod_series(&a, &c, 0, 10, &rows, &n, &err), 0);
    assert_null(rows);
    assert_int_equal(n, 0);
    wk_account_fini(&a);
    wk_cluster_fini(&c);
}

/* The placement table from the allocation record, by hand on 4 nodes of 4
 * GPUs: a gang of whole consecutive nodes is one row; GPUs given out of
 * order are sorted; a part of a node is one row with its GPU range; GPUs
 * 0-1 and 3 of a node, and nodes far apart, take several rows; a job's
 * segments are numbered in time order although recorded by their ends. */
static void test_placement_rows_are_node_ranges(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    assert_int_equal(parse("cluster: {nodes: 4, gpus_per_node: 4, nodes_per_pod: 2}\n", &c, &err), 0);
    WkAccount a;
    memset(&a, 0, sizeof a);
    const uint32_t gang[] = {7, 6, 5, 4, 8, 9, 10, 11}, part[] = {1, 2}, odd[] = {0, 1, 3, 12, 13, 15};
    assert_int_equal(wk_account_segment(&a, 3, 50, 90, part, 2, &err), 0);  /* job 3, segment 1 */
    assert_int_equal(wk_account_segment(&a, 0, 0, 100, gang, 8, &err), 0);  /* nodes 1-2 whole */
    assert_int_equal(wk_account_segment(&a, 3, 10, 40, odd, 6, &err), 0);   /* job 3, segment 0 */
    WkPlaceRow *rows = NULL;
    size_t n = 0;
    assert_int_equal(wk_account_placement(&a, &c, &rows, &n, &err), 0);
    const WkPlaceRow want[] = {
        {0, 100, 0, 0, 1, 2, 0, 4},
        {10, 40, 3, 0, 0, 1, 0, 2}, {10, 40, 3, 0, 0, 1, 3, 1},
        {10, 40, 3, 0, 3, 1, 0, 2}, {10, 40, 3, 0, 3, 1, 3, 1},
        {50, 90, 3, 1, 0, 1, 1, 2},
    };
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].start_ns, want[i].start_ns);
        assert_int_equal(rows[i].end_ns, want[i].end_ns);
        assert_int_equal(rows[i].job, want[i].job);
        assert_int_equal(rows[i].segment, want[i].segment);
        assert_int_equal(rows[i].node, want[i].node);
        assert_int_equal(rows[i].nodes, want[i].nodes);
        assert_int_equal(rows[i].gpu, want[i].gpu);
        assert_int_equal(rows[i].gpus, want[i].gpus);
    }
    free(rows);
    wk_account_fini(&a);
    memset(&a, 0, sizeof a);
    assert_int_equal(wk_account_placement(&a, &c, &rows, &n, &err), 0); /* no segment: no rows */
    assert_null(rows);
    assert_int_equal(n, 0);
    wk_cluster_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_groups_start_their_own_pods_and_map_gpus, teardown),
        cmocka_unit_test_teardown(test_nvl72_domains_span_racks_of_nodes, teardown),
        cmocka_unit_test_teardown(test_scenario_overrides_and_defines_skus, teardown),
        cmocka_unit_test_teardown(test_cluster_errors_are_positioned, teardown),
        cmocka_unit_test_teardown(test_gpu_pairs_get_the_fabric_class_of_their_nics, teardown),
        cmocka_unit_test_teardown(test_partial_pods_keep_nics_pod_aligned, teardown),
        cmocka_unit_test_teardown(test_cluster_power_matches_closed_form, teardown),
        cmocka_unit_test_teardown(test_run_energy_integrates_power_over_time, teardown),
        cmocka_unit_test_teardown(test_pod_series_bins_the_allocation_record, teardown),
        cmocka_unit_test_teardown(test_placement_rows_are_node_ranges, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
