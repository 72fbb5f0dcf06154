/* SPDX-License-Identifier: Apache-2.0 */
/* test_perf.c — the training performance model against closed forms: 6N FLOPs
 * plus the attention term, parameter counts from the shape, the pipeline
 * bubble fraction (1F1B and interleaved), the memory check, the slowest rank
 * bounding a synchronous job, placement across an oversubscribed spine, and
 * a model job's duration in a run = iterations x iteration time. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/gpu/catalog.h"
#include "models/gpu/dvfs.h"
#include "models/gpu/eff.h"
#include "models/net/collective.h"
#include "models/state/a2a.h"
#include "models/state/eval.h"
#include "models/run/hooks.h"
#include "models/workload/model.h"
#include "models/workload/perf.h"
#include "models/workload/perf_comm.h"
#include "models/workload/ops.h"
#include "models/workload/stack.h"

static WkDoc *keep[32];
static size_t nkeep;

static const WkNode *yaml_node(const char *text, const char *key)
{
    WkError err;
    WkDoc *d = NULL;
    wk_error_clear(&err);
    if (wk_doc_load_string(&d, "t.yaml", text, strlen(text), &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    keep[nkeep++] = d;
    return wk_node_get(d->root, key);
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < nkeep; i++)
        wk_doc_free(keep[i]);
    nkeep = 0;
    return 0;
}

static WkModelSpec model(const char *yaml)
{
    WkModelSpec m;
    WkError err;
    wk_error_clear(&err);
    if (wk_model_parse(yaml_node(yaml, "model"), NULL, &m, &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    return m;
}

static WkPerfEnv env_h100(uint32_t gpus)
{
    return (WkPerfEnv){.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = gpus, .nvlink_gpus = 8,
                       .nvlink_bw = 450e9, .net_bw = 50e9, .multi_domain = gpus > 8};
}

static void test_flops_are_6n_plus_attention_term(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {layers: 4, hidden: 1024, heads: 16, kv_heads: 4, ffn: 4096, vocab: 32000,"
                          " seq_len: 2048, mlp: swiglu}\n");
    /* by hand: attention q,o 2h^2 + k,v 2*h*(h*4/16); MLP 3*h*ffn; embeddings 2*V*h */
    double h = 1024, attn = 2 * h * h + 2 * h * (h * 4 / 16), mlp = 3 * h * 4096, emb = 2 * 32000 * h;
    double n = 4 * (attn + mlp) + emb;
    assert_float_equal(m.params, n, 0);
    assert_float_equal(wk_model_train_flops_per_token(&m), 6 * (n - 32000 * h) + 12 * 4 * h * 2048, 1e-3);
    /* MoE: only top_k of the experts are active */
    WkModelSpec e = model("model: {layers: 2, hidden: 512, heads: 8, ffn: 1024, vocab: 1000, seq_len: 128,"
                          " experts: 8, top_k: 2, mlp: gelu}\n");
    double hh = 512, a2 = 4 * hh * hh, m2 = 2 * hh * 1024, router = hh * 8;
    assert_float_equal(e.params, 2 * (a2 + 8 * m2 + router) + 2 * 1000 * hh, 0);
    assert_float_equal(e.active_params, 2 * (a2 + 2 * m2 + router) + 2 * 1000 * hh, 0);
}

static void test_llama3_405b_preset_has_405b_parameters(void **state)
{
    (void)state;
    const WkModelSpec *p = wk_model_preset("llama3-405b");
    WkModelSpec m = model("model: llama3-405b\n");
    assert_non_null(p);
    assert_true(m.params > 400e9 && m.params < 410e9);
}

static void test_pipeline_bubble_fraction_is_closed_form(void **state)
{
    (void)state;
    WkPerfParams pp = wk_perf_defaults();
    /* 8 stages, 1 replica, 24 micro-batches: bubble / (compute + bubble) = (p-1)/(m+p-1) */
    WkModelSpec m = model("model: {base: llama3-8b, tp: 1, pp: 8, global_batch: 24, micro_batch: 1}\n");
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_perf_eval(&m, &(WkPerfEnv){.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = 8,
                                                    .nvlink_gpus = 8, .nvlink_bw = 450e9, .net_bw = 50e9},
                                  &pp, &r, &err),
                     0);
    assert_int_equal(r.micro_batches, 24);
    assert_float_equal(r.bubble_s / (r.compute_s + r.bubble_s), 7.0 / (24 + 7), 1e-12);
    /* interleaved with v = 2 divides the bubble by 2 */
    WkModelSpec mi = model("model: {base: llama3-8b, tp: 1, pp: 8, global_batch: 24, schedule: interleaved, vp: 2}\n");
    WkPerfResult ri;
    assert_int_equal(wk_perf_eval(&mi, &(WkPerfEnv){.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = 8,
                                                     .nvlink_gpus = 8, .nvlink_bw = 450e9, .net_bw = 50e9},
                                  &pp, &ri, &err),
                     0);
    assert_float_equal(ri.bubble_s, r.bubble_s / 2, 1e-12);
}

static void test_memory_shortfall_is_refused_with_numbers(void **state)
{
    (void)state;
    WkPerfParams pp = wk_perf_defaults();
    WkModelSpec m = model("model: {base: llama3-70b, tp: 1, pp: 1, zero: 0, global_batch: 64}\n");
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    WkPerfEnv env = env_h100(64);
    assert_int_equal(wk_perf_eval(&m, &env, &pp, &r, &err), WK_E_RANGE);
    assert_non_null(strstr(err.msg, "GiB per GPU"));
    assert_non_null(strstr(err.msg, "H100-SXM-80G has 79.6 GiB"));
    assert_non_null(strstr(err.msg, "short"));
    /* 70B x 16 bytes of training state alone is > 1 TB per GPU */
    assert_true(r.mem_state_bytes > 70e9 * 16 * 0.99);
}

static void test_slowest_rank_bounds_compute(void **state)
{
    (void)state;
    WkPerfParams pp = wk_perf_defaults();
    WkModelSpec m = model("model: {base: llama3-8b, global_batch: 64}\n");
    WkPerfResult fast, slow;
    WkError err;
    wk_error_clear(&err);
    WkPerfEnv env = env_h100(64);
    assert_int_equal(wk_perf_eval(&m, &env, &pp, &fast, &err), 0);
    env.speed = 0.5; /* one throttled GPU at half clock bounds everyone */
    assert_int_equal(wk_perf_eval(&m, &env, &pp, &slow, &err), 0);
    assert_float_equal(slow.compute_s, 2 * fast.compute_s, 1e-9 * fast.compute_s);
    /* an A100 is 989/312 times slower on compute-bound GEMMs than an H100 */
    env.speed = 1;
    env.sku = wk_catalog_find("A100-SXM-80G");
    env.nvlink_bw = 300e9;
    WkPerfResult a100;
    assert_int_equal(wk_perf_eval(&m, &env, &pp, &a100, &err), 0);
    assert_true(a100.compute_s > 2.5 * fast.compute_s);
}

static void test_mixed_sku_memory_check_uses_the_smallest_hbm(void **state)
{
    (void)state;
    /* 71.6 GiB per GPU on 16 GPUs: fits an A100 (80.0 GiB), not an Ascend
     * 910B (59.6 GiB), although the A100 is the slower of the two (312 vs
     * 320 TFLOP/s), whose peak bounds the compute */
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_cluster_parse(yaml_node("cluster: {groups: [{sku: A100-SXM-80G, nodes: 2}, "
                                                "{sku: Ascend-910B, nodes: 1}]}\n",
                                                "cluster"),
                                      &c, &err),
                     0);
    WkModelSpec m = model("model: {base: llama3-8b, tp: 2, global_batch: 96, micro_batch: 3}\n");
    uint32_t mixed[16];
    for (uint32_t i = 0; i < 16; i++)
        mixed[i] = 8 + i; /* the second A100 node and the Ascend node */
    WkPerfParams pp = wk_perf_defaults();
    WkPerfResult res;
    uint8_t pc;
    if (wk_eval_job(&c, &m, NULL, 16, &pp, &res, &pc, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(res.mem_bytes > 64e9 && res.mem_bytes <= 80e9);
    wk_error_clear(&err);
    assert_int_equal(wk_eval_job(&c, &m, mixed, 16, &pp, &res, &pc, &err), WK_E_RANGE);
    assert_non_null(strstr(err.msg, "Ascend-910B"));
    wk_cluster_fini(&c);
}

static void test_rebalancing_lets_fast_replicas_carry_more(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_cluster_parse(yaml_node("cluster: {nodes: 8}\n", "cluster"), &c, &err), 0);
    WkModelSpec m = model("model: {base: llama3-8b, global_batch: 64}\n");
    WkModelSpec mr = model("model: {base: llama3-8b, global_batch: 64, rebalance: true}\n");
    WkPerfParams pp = wk_perf_defaults();
    WkPerfResult base, bound, reb;
    uint8_t pc;
    assert_int_equal(wk_eval_job(&c, &m, NULL, 64, &pp, &base, &pc, &err), 0);
    wk_cluster_set_state(&c, 5, WK_GPU_THROTTLED, 0.5f); /* one GPU at half clock */
    assert_int_equal(wk_eval_job(&c, &m, NULL, 64, &pp, &bound, &pc, &err), 0);
    assert_int_equal(wk_eval_job(&c, &mr, NULL, 64, &pp, &reb, &pc, &err), 0);
    /* bound by the slow rank: compute doubles; rebalanced over 64 replicas:
     * mean speed (63 + 0.5) / 64 */
    assert_float_equal(bound.compute_s, 2 * base.compute_s, 1e-9 * base.compute_s);
    assert_float_equal(reb.compute_s, base.compute_s * 64 / 63.5, 1e-9 * base.compute_s);
    wk_cluster_fini(&c);
}

static void test_spread_across_oversubscribed_spine_is_slower(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    /* 2 pods of 32 nodes, spine 4:1 oversubscribed towards the core */
    const WkNode *cn = yaml_node("cluster:\n  nodes: 64\n  fabric: {kind: rail, tiers: 3, radix: 64,"
                                 " oversubscription: {leaf: 1, spine: 4}}\n",
                                 "cluster");
    assert_int_equal(wk_cluster_parse(cn, &c, &err), 0);
    WkModelSpec m = model("model: {base: llama3-8b, global_batch: 256}\n");
    WkPerfParams pp = wk_perf_defaults();
    pp.dp_overlap = 0; /* expose the gradient all-reduce fully */
    uint32_t pod[256], spread[256];
    for (uint32_t i = 0; i < 256; i++)
        pod[i] = i; /* 32 nodes of pod 0 */
    for (uint32_t n = 0; n < 32; n++) /* nodes alternate pod 0, pod 1 */
        for (uint32_t g = 0; g < 8; g++)
            spread[n * 8 + g] = ((n % 2) * 32 + n / 2) * 8 + g;
    WkPerfResult a, b;
    uint8_t pa, pb;
    assert_int_equal(wk_eval_job(&c, &m, pod, 256, &pp, &a, &pa, &err), 0);
    assert_int_equal(wk_eval_job(&c, &m, spread, 256, &pp, &b, &pb, &err), 0);
    assert_int_equal(pa, WK_PATH_LEAF); /* rail k of every node in a pod: one leaf */
    assert_int_equal(pb, WK_PATH_CROSS_POD);
    print_message("one pod: %.4f s, spread over 2 pods: %.4f s per iteration\n", a.iter_s, b.iter_s);
    assert_true(b.dp_s > 1.2 * a.dp_s);
    assert_true(b.iter_s > a.iter_s);
    wk_cluster_fini(&c);
}

/* The rings of a job are those of its definition (eval.h: domains in the
 * order of their first rank, the k-th GPU of each in rank order to the k-th
 * of the next) whether the placement comes node after node (the sort is
 * skipped) or in any other order. */
static void check_rings(const WkCluster *c, const uint32_t *gpus, uint32_t n)
{
    uint32_t dom[8][8], len[8] = {0}, id[8], nd = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = wk_cluster_nvlink_domain(c, gpus[i]), x = 0;
        while (x < nd && id[x] != d)
            x++;
        if (x == nd)
            id[nd++] = d;
        dom[x][len[x]++] = gpus[i];
    }
    uint32_t rings = c->rails;
    for (uint32_t x = 0; x < nd; x++)
        rings = len[x] < rings ? len[x] : rings;
    uint32_t *ed = NULL, ne = 0;
    uint8_t pc;
    WkError err;
    assert_int_equal(wk_eval_rings(c, gpus, n, &ed, &ne, &pc, &err), 0);
    assert_int_equal(ne, rings * nd);
    for (uint32_t k = 0, e = 0; k < rings; k++)
        for (uint32_t x = 0; x < nd; x++, e++) {
            assert_int_equal(ed[2 * e], dom[x][k]);
            assert_int_equal(ed[2 * e + 1], dom[(x + 1) % nd][k]);
        }
    free(ed);
}

static void test_rings_follow_rank_order_sorted_or_not(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    const WkNode *cn = yaml_node("cluster:\n  nodes: 8\n  fabric: {kind: rail, radix: 64}\n", "cluster");
    assert_int_equal(wk_cluster_parse(cn, &c, &err), 0);
    uint32_t g[32];
    for (uint32_t i = 0; i < 32; i++) /* nodes 0-3, node after node */
        g[i] = i;
    check_rings(&c, g, 32);
    for (uint32_t i = 0; i < 32; i++) /* nodes 5, 2, 7, 0, each GPU list reversed */
        g[i] = (uint32_t[]){5, 2, 7, 0}[i / 8] * 8 + 7 - i % 8;
    check_rings(&c, g, 32);
    for (uint32_t i = 0; i < 24; i++) /* nodes 3, 1, 6 interleaved GPU by GPU */
        g[i] = (uint32_t[]){3, 1, 6}[i % 3] * 8 + i / 3;
    check_rings(&c, g, 24);
    for (uint32_t i = 0; i < 20; i++) /* nodes 4, 6 whole, then half of node 1 (4 rings) */
        g[i] = i < 16 ? (i < 8 ? 32 : 40) + i % 8 : 8 + i - 16;
    check_rings(&c, g, 20);
    wk_cluster_fini(&c);
}

/* A sweep (wk_eval_sweep_job) gives what one job alone (wk_eval_job) does,
 * bit for bit, in any order of sizes, with repeated sizes (the memo), a
 * model that changes what the network sees at the same size, a job on a
 * GPU list and a job the model refuses between them; with an all-to-all across nodes and without. */
static void test_sweep_equals_jobs_alone(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    const WkNode *cn = yaml_node("cluster:\n  nodes: 16\n  nodes_per_pod: 4\n"
                                 "  fabric: {kind: rail, radix: 16, oversubscription: 2}\n",
                                 "cluster");
    assert_int_equal(wk_cluster_parse(cn, &c, &err), 0);
    WkModelSpec moe = model("model: mixtral-8x7b\n");
    WkModelSpec moe4 = model("model: {base: mixtral-8x7b, tp: 4, global_batch: 512}\n");
    WkModelSpec dense = model("model: {base: llama3-8b, tp: 2, global_batch: 256}\n");
    WkPerfParams pp = wk_perf_defaults();
    uint32_t list[64];
    for (uint32_t i = 0; i < 64; i++)
        list[i] = 127 - 2 * i; /* every second GPU of the last 16 nodes, backwards */
    struct {
        const WkModelSpec *m;
        uint32_t n;
        const uint32_t *list;
    } jobs[] = {{&moe, 64, NULL},  {&moe, 128, NULL}, {&moe, 128, NULL}, {&moe4, 128, NULL}, {&moe, 128, NULL},
                {&moe, 16, NULL},  {&moe, 64, list},  {&moe, 16, NULL},  {&dense, 16, NULL}, {&dense, 128, NULL},
                {&dense, 64, list}, {&dense, 128, NULL}, {&moe, 8, NULL},  {&moe, 128, NULL}};
    WkEvalSweep *sw = NULL;
    assert_int_equal(wk_eval_sweep_new(&sw, &c, &err), 0);
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        WkPerfResult a, b;
        uint8_t pa, pb;
        wk_error_clear(&err);
        int ra = wk_eval_job(&c, jobs[j].m, jobs[j].list, jobs[j].n, &pp, &a, &pa, &err);
        int rb = wk_eval_sweep_job(sw, jobs[j].m, jobs[j].list, jobs[j].n, &pp, NULL, &b, NULL, &pb, &err);
        assert_int_equal(ra, rb);
        if (jobs[j].m == &moe && jobs[j].n == 8) { /* an error between the points: the sweep goes on */
            assert_int_equal(ra, WK_E_INVAL);
            continue;
        }
        if (ra != 0)
            fail_msg("job %zu: %s", j, err.msg);
        assert_int_equal(pa, pb);
        assert_true(a.iter_s == b.iter_s && a.dp_s == b.dp_s && a.ep_s == b.ep_s && a.tp_s == b.tp_s &&
                    a.pp_s == b.pp_s && a.compute_s == b.compute_s && a.mem_bytes == b.mem_bytes && a.dp == b.dp);
        if (jobs[j].m == &moe && jobs[j].n == 128)
            assert_true(a.ep_s > 0); /* the all-to-all crosses nodes */
    }
    wk_eval_sweep_free(sw);
    wk_eval_sweep_free(NULL);
    wk_cluster_fini(&c);
}

/* Mixtral 8x7B at tp 2, ep 8: an expert group is 8 replicas of 2 GPUs, two
 * nodes; each GPU sends to the 4 of its 7 peers (same tp index) on the other
 * node. Through the destination rail's NIC (PXN) every pair stays on one rail
 * leaf, and each flow gets link / 7: the all-to-all fills a NIC exactly. */
static void test_expert_all_to_all_flows_pair_the_groups_across_nodes(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    const WkNode *cn = yaml_node("cluster:\n  nodes: 16\n  fabric: {kind: rail, radix: 64}\n", "cluster");
    assert_int_equal(wk_cluster_parse(cn, &c, &err), 0);
    uint32_t gpus[128];
    for (uint32_t i = 0; i < 128; i++)
        gpus[i] = i;
    WkFlowNet *net;
    assert_int_equal(wk_flownet_new(&net, 2 * wk_fabric_link_ids(&c.fabric), c.fabric.spec.link_bytes_per_s, &err),
                     0);
    uint32_t *ids = NULL, n = 0;
    assert_int_equal(wk_a2a_add(net, &c, NULL, 0, gpus, 128, 2, 2, 8, 2, &ids, &n, NULL, &err), 0);
    assert_int_equal(n, 128 * 4);
    assert_int_equal(wk_flownet_solve(net, &err), 0);
    double link = c.fabric.spec.link_bytes_per_s;
    for (uint32_t i = 0; i < n; i++)
        assert_true(fabs(wk_flownet_rate(net, ids[i]) - link / 7) < 1e-6 * link);
    /* tp 2 x cp 2 (per = width = 4), etp 2 on 4 nodes: a stage's 16 expert
     * slots are 8 replicas x 2 cp ranks, so an EP group of 8 spans 4
     * replicas and both cp ranks (16 GPUs, 2 nodes): 4 peers in the other
     * node per rank. Folded over dp alone (width tp = 2) it would span all
     * 8 replicas, 6 peers off-node. */
    uint32_t *cpf = NULL, ncp = 0;
    assert_int_equal(wk_a2a_add(net, &c, NULL, 0, gpus, 32, 4, 4, 8, 2, &cpf, &ncp, NULL, &err), 0);
    assert_int_equal(ncp, 32 * 4);
    free(cpf);
    /* ep 8 does not divide 12 slots: refused */
    uint32_t *none = NULL, k = 0;
    assert_int_equal(wk_a2a_add(net, &c, NULL, 0, gpus, 24, 2, 2, 8, 2, &none, &k, NULL, &err), WK_E_INVAL);
    free(none);
    free(ids);
    wk_flownet_free(net);
    wk_cluster_fini(&c);
}

static void test_model_job_duration_is_iterations_times_iteration_time(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {nodes: 8, fabric: {kind: rail, radix: 64}}\n"
                  "workload:\n  source: inline\n  jobs:\n"
                  "    - {submit: 0, gpus: 64, model: llama3-8b, iterations: 50}\n",
                  NULL);
    WkRunJobView j = wk_run_hooks_job(t.run, 0);
    assert_int_equal(j.state, WK_JOB_COMPLETED);
    WkTime want = (WkTime)ceil(50 * j.iter_s * 1e9);
    assert_int_equal(j.end - j.start, want);
    assert_float_equal(test_metric(&t, "tokens_trained"), 50.0 * 512 * 8192, 1);
    test_run_free(&t);
}

static void test_model_job_too_big_for_memory_is_refused_at_prepare(void **state)
{
    (void)state;
    WkError err;
    int rc = test_prepare_yaml("cluster: {nodes: 8}\n"
                               "workload:\n  source: inline\n  jobs:\n"
                               "    - {submit: 0, gpus: 8, model: {base: llama3-70b, tp: 1, pp: 1, global_batch: 8}, "
                               "iterations: 5}\n",
                               &err);
    assert_int_equal(rc, WK_E_RANGE);
    assert_int_equal(wk_error_exit_status(rc), 2);
    assert_non_null(strstr(err.msg, "job 0 (model llama3-70b on 8 GPUs)"));
    assert_non_null(strstr(err.msg, "short"));
}

/* base: chains resolve through the library; a cycle or a chain too deep is
 * a positioned error naming the path, never a stack overflow. */
static void test_model_base_cycles_and_deep_chains_are_refused(void **state)
{
    (void)state;
    const WkNode *lib = yaml_node("models:\n  a: {base: b}\n  b: {base: c}\n  c: {base: a}\n", "models");
    WkModelSpec m;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_model_parse(wk_node_get(lib, "a"), lib, &m, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "base cycle a -> b -> c -> a"));
    assert_non_null(strstr(err.where, "t.yaml:4:"));
    /* a job naming the model (a scalar) meets the same cycle */
    const WkNode *job = yaml_node("model: b\n", "model");
    wk_error_clear(&err);
    assert_int_equal(wk_model_parse(job, lib, &m, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "base cycle b -> c -> a -> b"));
    /* a chain of 40 distinct models is deeper than the limit; one of 20 is fine */
    char y[4096];
    size_t k = (size_t)snprintf(y, sizeof y, "models:\n");
    for (int i = 0; i < 40; i++) {
        char next[16];
        snprintf(next, sizeof next, "m%d", i + 1);
        k += (size_t)snprintf(y + k, sizeof y - k, "  m%d: {base: %s}\n", i, i == 39 ? "llama3-8b" : next);
    }
    const WkNode *deep = yaml_node(y, "models");
    wk_error_clear(&err);
    assert_int_equal(wk_model_parse(wk_node_get(deep, "m0"), deep, &m, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "deeper than"));
    wk_error_clear(&err);
    assert_int_equal(wk_model_parse(wk_node_get(deep, "m20"), deep, &m, &err), 0);
    assert_int_equal(m.layers, 32); /* llama3-8b at the end of the chain */
}

static WkPerfResult eval_ok(const WkModelSpec *m, WkPerfEnv env)
{
    WkPerfParams pp = wk_perf_defaults();
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    if (wk_perf_eval(m, &env, &pp, &r, &err) < 0)
        fail_msg("%s", err.msg);
    return r;
}

/* m on env under the defaults is refused (WK_E_INVAL) with a message
 * holding `want`. */
static void eval_refused(const WkModelSpec *m, WkPerfEnv env, const char *want)
{
    WkPerfParams pp = wk_perf_defaults();
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_perf_eval(m, &env, &pp, &r, &err), WK_E_INVAL);
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, want));
}

/* A layer's saved activations, with sequence parallelism over t: for a GPT
 * layer (MHA, 4h GeLU MLP, dropout, flash attention) 34*s*b*h/t bytes,
 * Korthikanti et al.'s count (norm inputs and outputs 8, Q K V 6, attention
 * output 2, masks 2, fc1 and GeLU outputs 16), plus flash attention's FP32
 * log-sum-exp 4*s*b*a/t; a Llama layer (SwiGLU f wide, GQA, no dropout)
 * keeps its own tensors; without sequence parallelism the norms' tensors
 * and the masks are whole on every rank. */
static void test_activation_bytes_per_layer_by_architecture(void **state)
{
    (void)state;
    const double s = 2048, b = 2, t = 4, h = 2048, a = 16, L = 8;
    WkModelSpec g = model("model: {layers: 8, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000, mlp: gelu,"
                          " dropout: true, seq_len: 2048, micro_batch: 2, tp: 4, global_batch: 4}\n");
    WkPerfResult r = eval_ok(&g, env_h100(4));
    assert_float_equal(r.mem_act_bytes, L * (34 * s * b * h / t + 4 * s * b * a / t), 1);
    /* no dropout: the two 1-byte masks go */
    g.dropout = 0;
    assert_float_equal(eval_ok(&g, env_h100(4)).mem_act_bytes, L * (32 * s * b * h / t + 4 * s * b * a / t), 1);
    /* no sequence parallelism: norm inputs and outputs (8 s b h) stay whole */
    g.no_seq_parallel = 1;
    assert_float_equal(eval_ok(&g, env_h100(4)).mem_act_bytes,
                       L * (8 * s * b * h + 24 * s * b * h / t + 4 * s * b * a / t), 1);
    /* SwiGLU of f = 3.5 h, 4 KV heads of 16: norms 8, Q 2, K+V 4 x 4/16, O 2,
     * fc1 out 4 f/h, activation out 2 f/h */
    WkModelSpec l = model("model: {layers: 8, hidden: 2048, heads: 16, kv_heads: 4, ffn: 7168, vocab: 32000,"
                          " mlp: swiglu, seq_len: 2048, micro_batch: 2, tp: 4, global_batch: 4}\n");
    double coef = 8 + 2 + 4 * 4.0 / 16 + 2 + 6 * 3.5;
    assert_float_equal(eval_ok(&l, env_h100(4)).mem_act_bytes, L * (coef * s * b * h / t + 4 * s * b * a / t), 1);
    /* unfused attention keeps the s x s scores without recomputation: the
     * softmax output, dropout mask and output, 5 a s^2 b / t (Korthikanti et
     * al.), and no log-sum-exp; selective recomputation recomputes them */
    WkModelSpec u = model("model: {layers: 8, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000, mlp: gelu,"
                          " dropout: true, seq_len: 2048, micro_batch: 2, tp: 4, global_batch: 4,"
                          " attention: unfused}\n");
    assert_float_equal(eval_ok(&u, env_h100(4)).mem_act_bytes, L * (34 * s * b * h / t + 5 * a * s * s * b / t), 1);
    u.recompute = WK_RECOMPUTE_SELECTIVE;
    assert_float_equal(eval_ok(&u, env_h100(4)).mem_act_bytes, L * 34 * s * b * h / t, 1);
    /* MoE, top 2 of 8 experts (ep 4 with etp 1, ep 1 with etp 4): a rank's experts receive its s b / t
     * tokens' 2 copies gathered over etp ranks and keep, per row, the
     * dispatched input (h) and fc1's and the activation's outputs at f/etp
     * (3 f/etp gated): 2 (s b / t) 2 etp (h + 3 f / etp) bytes where the
     * dense MLP kept 6 s b f / t */
    WkModelSpec e = l;
    e.experts = 8, e.top_k = 2;
    double f = 7168, dense = 6 * s * b * f / t;
    for (uint32_t etp = 1; etp <= 4; etp *= 4) {
        e.etp = etp, e.ep = 4 / etp;
        double moe = 2 * (s * b / t) * 2 * etp * (h + 3 * f / etp);
        assert_float_equal(eval_ok(&e, env_h100(4)).mem_act_bytes,
                           L * (coef * s * b * h / t - dense + moe + 4 * s * b * a / t), 1);
    }
}

/* Micro-batches in flight under Megatron-Core's interleaved schedule: rank r
 * runs 2 (pp - r - 1) + (vp - 1) pp warm-up forwards of one model chunk and
 * one more before its first backward, unless that reaches all mb x vp
 * (then every forward runs first); the rank holding the most layers x
 * micro-batches bounds the activations. */
static void test_interleaved_inflight_follows_megatron_warmup(void **state)
{
    (void)state;
    const char *base = "model: {layers: 32, hidden: 2048, heads: 16, ffn: 8192, vocab: 32000, mlp: gelu,"
                       " seq_len: 2048, micro_batch: 1, tp: 1, pp: 4, schedule: interleaved, vp: 2,";
    char y[512];
    double per_layer = 34 * 2048.0 * 2048 + 4 * 2048.0 * 16 - 2 * 2048.0 * 2048; /* no dropout */
    /* mb = 8 > pp: rank 0 holds (2*3 + 1*4 + 1)/2 = 5.5 stage-micro-batches of 8 layers */
    snprintf(y, sizeof y, "%s global_batch: 8}\n", base);
    WkModelSpec m = model(y);
    assert_float_equal(eval_ok(&m, env_h100(4)).mem_act_bytes, 8 * 5.5 * per_layer, 1);
    /* mb = pp = 4: 11 warm-up chunks reach mb x vp = 8: all forwards first, 4 held */
    snprintf(y, sizeof y, "%s global_batch: 4}\n", base);
    m = model(y);
    assert_float_equal(eval_ok(&m, env_h100(4)).mem_act_bytes, 8 * 4 * per_layer, 1);
    /* uneven split 6 | 10 | 10 | 6 at mb = 8: rank 1 (10 layers x (2*2 + 4 + 1)/2
     * = 4.5) holds more than rank 0 (6 x 5.5) */
    snprintf(y, sizeof y, "%s global_batch: 8, first_stage_layers: 6, last_stage_layers: 6}\n", base);
    m = model(y);
    assert_float_equal(eval_ok(&m, env_h100(4)).mem_act_bytes, 10 * 4.5 * per_layer, 1);
}

/* Llama 3 405B as Dubey et al. (2024) ran it at 8K: TP 8, PP 16, V 8, 7
 * layers on the first and last stage, 64-way data parallelism, no
 * activation checkpointing (§3.3.2), and FSDP sharding the optimizer states
 * and the gradients (ZeRO-2, §3.3.2). It fits the 80 GB H100; with only the
 * optimizer sharded (ZeRO-1) the unsharded bf16 gradients (2 bytes per
 * local parameter, 5.9 GiB) push it over. */
static void test_llama3_405b_8k_without_checkpointing_fits_with_zero2(void **state)
{
    (void)state;
    const char *y = "model: {base: llama3-405b, tp: 8, pp: 16, vp: 8, schedule: interleaved, first_stage_layers: 7,"
                    " last_stage_layers: 7, micro_batch: 1, global_batch: 2048, recompute: none, zero: %d}\n";
    char buf[256];
    snprintf(buf, sizeof buf, y, 2);
    WkModelSpec m = model(buf);
    WkPerfEnv env = env_h100(8192);
    WkPerfResult r = eval_ok(&m, env);
    double hbm = wk_catalog_find("H100-SXM-80G")->hbm_bytes;
    assert_true(r.mem_state_bytes + r.mem_act_bytes < hbm);
    snprintf(buf, sizeof buf, y, 1);
    m = model(buf);
    WkPerfParams pp = wk_perf_defaults();
    WkPerfResult r1;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_perf_eval(&m, &env, &pp, &r1, &err), WK_E_RANGE);
    /* the difference is the gradients: 2 bytes per local parameter, less its 1/64 shard */
    double local = r1.mem_state_bytes / (2 + 2 + 12.0 / 64);
    assert_float_equal(r1.mem_state_bytes - r.mem_state_bytes, 2 * local * (1 - 1.0 / 64), 1e-6 * r1.mem_state_bytes);
}

/* ZeRO-2 keeps only its gradient shard, so each of the mb micro-batches
 * reduce-scatters its gradients (DeepSpeed's engine: "ZeRO stage >= 2
 * communicates during non gradient accumulation boundaries as well"); ZeRO-1
 * reduce-scatters once per step and all-gathers the parameters once. With
 * nothing overlapped (dp_overlap 0) ZeRO-1 exposes rs + ag = 2 rs and ZeRO-2
 * (mb + 1) rs; at one micro-batch they are the same. */
static void test_zero2_reduce_scatters_every_micro_batch(void **state)
{
    (void)state;
    WkPerfParams pp = wk_perf_defaults();
    pp.dp_overlap = 0;
    WkPerfEnv env = env_h100(64);
    const char *y = "model: {base: llama3-8b, tp: 1, pp: 1, micro_batch: 1, global_batch: %d, zero: %d}\n";
    char buf[160];
    WkPerfResult r[2][2];
    WkError err;
    wk_error_clear(&err);
    for (int z = 0; z < 2; z++)
        for (int k = 0; k < 2; k++) {
            snprintf(buf, sizeof buf, y, k ? 256 : 64, z + 1);
            WkModelSpec m = model(buf);
            assert_int_equal(wk_perf_eval(&m, &env, &pp, &r[z][k], &err), 0);
        }
    assert_int_equal(r[0][1].micro_batches, 4);
    assert_float_equal(r[1][0].dp_s, r[0][0].dp_s, 1e-12);
    assert_float_equal(r[1][1].dp_s, r[0][1].dp_s * (4 + 1) / 2.0, 1e-9 * r[1][1].dp_s);
    /* compressed gradients (the cascade's grad_ratio): each earlier
     * micro-batch also encodes and reduces; nothing changes at one */
    env.grad_ratio = 4;
    WkPerfResult c[2][2];
    for (int z = 0; z < 2; z++)
        for (int k = 0; k < 2; k++) {
            snprintf(buf, sizeof buf, y, k ? 256 : 64, z + 1);
            WkModelSpec m = model(buf);
            assert_int_equal(wk_perf_eval(&m, &env, &pp, &c[z][k], &err), 0);
        }
    assert_float_equal(c[1][0].dp_s, c[0][0].dp_s, 1e-12);
    assert_true(c[1][1].dp_s - c[0][1].dp_s > 0.5 * (r[1][1].dp_s - r[0][1].dp_s) / 4);
    env.grad_ratio = 0;
    /* overlapped as modelled, ZeRO-2 still costs more: hidden traffic slows compute */
    pp = wk_perf_defaults();
    WkPerfResult a, b;
    snprintf(buf, sizeof buf, y, 256, 1);
    WkModelSpec m1 = model(buf);
    snprintf(buf, sizeof buf, y, 256, 2);
    WkModelSpec m2 = model(buf);
    assert_int_equal(wk_perf_eval(&m1, &env, &pp, &a, &err), 0);
    assert_int_equal(wk_perf_eval(&m2, &env, &pp, &b, &err), 0);
    assert_true(b.dp_s + b.interference_s > a.dp_s + a.interference_s);
}

/* The built-in SKUs' memory is the total the driver reports (MiB), not the
 * datasheet's decimal gigabytes; a YAML hbm_gb stays 1e9 bytes. */
static void test_device_memory_is_the_drivers_total(void **state)
{
    (void)state;
    const double mib = 1024.0 * 1024.0;
    assert_float_equal(wk_catalog_find("H100-SXM-80G")->hbm_bytes, 81559 * mib, 0);
    assert_float_equal(wk_catalog_find("A100-SXM-80G")->hbm_bytes, 81920 * mib, 0);
    assert_float_equal(wk_catalog_find("H200-SXM")->hbm_bytes, 143771 * mib, 0);
    assert_float_equal(wk_catalog_find("MI300X")->hbm_bytes, 196592 * mib, 0);
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_cluster_parse(yaml_node("cluster: {skus: [{name: H100-40, base: H100-SXM-80G, hbm_gb: 40}],"
                                                " groups: [{sku: H100-40, nodes: 1}]}\n",
                                                "cluster"),
                                      &c, &err),
                     0);
    assert_float_equal(wk_cluster_sku_of(&c, 0)->hbm_bytes, 40e9, 0);
    wk_cluster_fini(&c);
}

static void test_resnet50_shape_gives_the_papers_parameters_and_flops(void **state)
{
    (void)state;
    WkModelSpec m = model("model: resnet50\n");
    /* He et al. (CVPR'16) Table 1: 25.6 M parameters (25,557,032 counted
     * layer by layer), 4.1 G multiply-adds per 224x224 image */
    assert_float_equal(m.params, 25557032, 1);
    assert_true(fabs(m.flops_per_sample / 8.2e9 - 1) < 0.03);
}

static void test_vit_l16_shape_gives_the_papers_parameters_and_flops(void **state)
{
    (void)state;
    WkModelSpec m = model("model: vit-l16\n");
    /* Dosovitskiy et al. (ICLR'21): 307 M parameters, 61.6 G multiply-adds */
    assert_true(fabs(m.params / 307e6 - 1) < 0.02);
    assert_true(fabs(m.flops_per_sample / 123.2e9 - 1) < 0.01);
}

static void test_vision_shape_errors_are_positioned(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "model: {kind: vision, arch: resnet, blocks: [3, 4, 6], batch_per_gpu: 8}\n",
        "model: {kind: vision, arch: resnet, blocks: [3, 4, 6, 3], params: 1e6}\n",
        "model: {kind: vision, arch: vit, hidden: 64, heads: 4, ffn: 256}\n",
        "model: {kind: vision, arch: vit, layers: 2, hidden: 64, heads: 4, ffn: 256, image: 100, patch: 16}\n",
        "model: {kind: llm, arch: vit, layers: 2, hidden: 64, heads: 4, ffn: 256, vocab: 10, seq_len: 8}\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        WkModelSpec m;
        WkError err;
        wk_error_clear(&err);
        assert_int_equal(wk_model_parse(yaml_node(bad[i], "model"), NULL, &m, &err), WK_E_INVAL);
        assert_non_null(strstr(err.where, "t.yaml:1:"));
    }
}

/* NeMo's ViT (nemo/collections/vision/modules/vit/vit_backbone.py: 8 class
 * tokens by default): class_tokens adds (tokens - 1) h class-token and as
 * many position parameters, and its tokens run through every layer. */
static void test_vit_class_tokens_lengthen_the_sequence(void **state)
{
    (void)state;
    WkModelSpec one = model("model: vit-l16\n");
    WkModelSpec eight = model("model: {base: vit-l16, class_tokens: 8}\n");
    double h = 1024, L = 24, s1 = 197, s8 = 204;
    assert_true(fabs((eight.params - one.params) - 2 * 7 * h) < 1e-6);
    assert_true(fabs((eight.flops_per_sample - one.flops_per_sample) -
                     L * (24 * (s8 - s1) * h * h + 4 * (s8 * s8 - s1 * s1) * h)) < 1);
    WkModelSpec m;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_model_parse(yaml_node("model: {base: resnet50, class_tokens: 8}\n", "model"), NULL, &m, &err),
                     WK_E_INVAL);
}

/* The ViT layer's kernels outside the flash/fused transformer list (NeMo's
 * megatron ViT: hidden_dropout 0.1 with bias_dropout_add fusion,
 * bias_activation_fusion false, use_flash_attention false), each at HBM
 * bandwidth: the bandwidth is read off the residual adds (9 x T h x 2 bytes
 * forward and backward, twice per layer) and every other operator's memory
 * time must equal its bytes over it. */
static void test_vit_dropout_bias_and_unfused_attention_move_their_bytes(void **state)
{
    (void)state;
    WkPerfEnv env = {.sku = wk_catalog_find("A100-SXM-80G"), .speed = 1, .gpus = 1, .nvlink_gpus = 8,
                     .nvlink_bw = 300e9, .net_bw = 25e9};
    const char *shape = "layers: 4, hidden: 1408, heads: 16, ffn: 6144, patch: 14, class_tokens: 8, batch_per_gpu: 64";
    char y[4][320];
    snprintf(y[0], sizeof y[0], "model: {base: vit-l16, %s}\n", shape);
    snprintf(y[1], sizeof y[1], "model: {base: vit-l16, %s, dropout: true}\n", shape);
    snprintf(y[2], sizeof y[2], "model: {base: vit-l16, %s, bias_fusion: false}\n", shape);
    snprintf(y[3], sizeof y[3], "model: {base: vit-l16, %s, attention: unfused}\n", shape);
    WkModelSpec m[4];
    WkPerfResult r[4];
    for (int i = 0; i < 4; i++) {
        m[i] = model(y[i]);
        r[i] = eval_ok(&m[i], env);
    }
    double L = 4, h = 1408, f = 6144, a = 16, s = 264, B = 64, T = B * s;
    double bw = L * 2 * 9 * T * h * 2 / r[0].ops[WK_OP_RESIDUAL].memory_s;
    assert_true(bw > 1e12 && bw < env.sku->hbm_bw_bytes_per_s);
    /* dropout: per layer two masks forward (T h bytes each), two dropped
     * gradients backward (read gradient and mask, write: 5 T h); the
     * embedding dropout reads, writes and masks both ways (10 T h) */
    assert_float_equal(r[0].ops[WK_OP_DROPOUT].s, 0, 0);
    assert_float_equal(r[1].ops[WK_OP_DROPOUT].kernels, 4 * L + 2, 0);
    assert_true(fabs(r[1].ops[WK_OP_DROPOUT].memory_s * bw / ((12 * L + 10) * T * h) - 1) < 1e-6);
    /* biases: forward q/k/v and MLP-up adds (read, write), backward one
     * reduction per linear layer */
    double bias = L * (2 * T * (3 * h + f) + T * (5 * h + f)) * 2;
    assert_true(fabs((r[2].ops[WK_OP_GEMM].kernels - r[0].ops[WK_OP_GEMM].kernels) - 2 * L) < 1e-9);
    assert_true(fabs((r[2].ops[WK_OP_GEMM].memory_s - r[0].ops[WK_OP_GEMM].memory_s) * bw / bias - 1) < 1e-6);
    /* unfused attention: the softmax reads and writes the B a s^2 BF16
     * scores forward (2 x) and backward (3 x); it keeps the probabilities */
    double scores = B * a * s * s * 2;
    assert_true(fabs(r[3].ops[WK_OP_SOFTMAX].memory_s * bw / (L * 5 * scores) - 1) < 1e-6);
    assert_true(fabs((r[3].mem_act_bytes - r[0].mem_act_bytes) / (L * scores) - 1) < 1e-9);
    assert_true(r[3].iter_s > r[0].iter_s);
}

/* Batch normalisation, ReLU and residual adds are memory-bound: a ResNet step
 * takes longer than its convolutions at the GEMM peak, and it keeps
 * activations that grow with the batch. */
static void test_resnet_step_pays_memory_bound_operators_and_keeps_activations(void **state)
{
    (void)state;
    WkModelSpec m = model("model: resnet50\n");
    WkPerfEnv env = {.sku = wk_catalog_find("A100-SXM-80G"), .speed = 1, .gpus = 1, .nvlink_gpus = 8,
                     .nvlink_bw = 300e9, .net_bw = 25e9};
    WkPerfResult r = eval_ok(&m, env);
    const WkGpuEff *e = wk_catalog_eff(env.sku);
    double gemm_bound = 3 * m.flops_per_sample * m.batch_per_gpu / (env.sku->bf16_flops * e->mat_max);
    assert_true(r.compute_s > 1.5 * gemm_bound);
    assert_true(r.ops[WK_OP_BATCHNORM].s > 0 && r.ops[WK_OP_BATCHNORM].memory_s > 0.9 * r.ops[WK_OP_BATCHNORM].s);
    /* activations: at least the BF16 output of every convolution (~11 M
     * elements per image), linear in the batch */
    assert_true(r.mem_act_bytes > 256 * 11e6 * 2);
    m.batch_per_gpu = 128;
    WkPerfResult h = eval_ok(&m, env);
    assert_float_equal(h.mem_act_bytes * 2, r.mem_act_bytes, r.mem_act_bytes * 1e-12);
    assert_true(h.iter_s < r.iter_s);
}

/* A recommendation model moves its pooled embedding rows through HBM and
 * keeps the exchanged vectors. */
static void test_recsys_embedding_lookups_cost_memory_time(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {kind: recsys, params: 2.5e7, flops_per_sample: 1e8, batch_per_gpu: 4096,"
                          " embedding_gb: 100, a2a_bytes_per_sample: 6656}\n");
    WkPerfResult r = eval_ok(&m, env_h100(64));
    assert_true(r.ops[WK_OP_EMBED].s > 0);
    assert_float_equal(r.mem_act_bytes, 2.0 * 4096 * 6656, 1);
    assert_true(r.ep_s > 0);
}

/* Data-parallel jobs run at the clock the power limit leaves for their
 * step's operator mix, as language models do (docs/models.md, "Sustained
 * clocks"): a generic model is one GEMM (activity 1), so it sits at the
 * sweep's sustained clock: on the A100, whose sweep ran there, its time is
 * unchanged; on the H100, whose sweep ran at 1980 MHz, it is 1980 / 1741
 * slower. A ResNet-50 step, lighter (batch norm and ReLU are memory-bound),
 * holds a higher A100 clock and its convolutions take the measured clock
 * over that one; `sustained_clock: false` keeps the curves' own clocks. */
static void test_data_parallel_steps_run_at_the_sustained_clock(void **state)
{
    (void)state;
    WkPerfParams on = wk_perf_defaults(), off = on;
    off.sustained_clock = 0;
    WkError err;
    wk_error_clear(&err);
    WkModelSpec g = model("model: {kind: vision, params: 1e8, flops_per_sample: 1e10, batch_per_gpu: 64}\n");
    const char *skus[2] = {"A100-SXM-80G", "H100-SXM-80G"};
    double fg[2] = {1228.0 / 1410, 1741.0 / 1980}, at[2] = {1228.0 / 1410, 1};
    for (int i = 0; i < 2; i++) {
        WkPerfEnv env = {.sku = wk_catalog_find(skus[i]), .speed = 1, .gpus = 8, .nvlink_gpus = 8,
                         .nvlink_bw = 300e9, .net_bw = 25e9};
        WkPerfResult a, b;
        assert_int_equal(wk_perf_eval(&g, &env, &on, &a, &err), 0);
        assert_int_equal(wk_perf_eval(&g, &env, &off, &b, &err), 0);
        assert_float_equal(a.sm_clock_mhz, fg[i] * wk_dvfs_of(env.sku)->max_mhz, 1e-6);
        assert_float_equal(b.sm_clock_mhz, 0, 0);
        assert_float_equal(a.compute_s / b.compute_s, at[i] / fg[i], 1e-9);
        assert_float_equal(a.ops[WK_OP_GEMM].compute_s, a.compute_s, 1e-12);
    }
    WkModelSpec m = model("model: resnet50\n");
    WkPerfEnv env = {.sku = wk_catalog_find("A100-SXM-80G"), .speed = 1, .gpus = 8, .nvlink_gpus = 8,
                     .nvlink_bw = 300e9, .net_bw = 25e9};
    WkPerfResult a, b;
    assert_int_equal(wk_perf_eval(&m, &env, &on, &a, &err), 0);
    assert_int_equal(wk_perf_eval(&m, &env, &off, &b, &err), 0);
    double run = a.sm_clock_mhz / 1410;
    print_message("ResNet-50 on A100: %.0f MHz, convolutions x %.3f\n", a.sm_clock_mhz, fg[0] / run);
    assert_true(run > fg[0] && run <= 1);
    assert_float_equal(a.ops[WK_OP_GEMM].compute_s / b.ops[WK_OP_GEMM].compute_s, fg[0] / run, 1e-9);
    assert_float_equal(a.ops[WK_OP_BATCHNORM].memory_s, b.ops[WK_OP_BATCHNORM].memory_s, 1e-15);
}

/* Context parallelism splits the sequence over cp ranks, which must then
 * exchange keys and values (ring attention's all-gather): cp > 1 costs
 * communication, more for longer sequences, and none at cp = 1. */
static void test_context_parallel_costs_kv_exchange(void **state)
{
    (void)state;
    WkModelSpec m1 = model("model: {base: llama3-8b, tp: 1, pp: 1, cp: 1, seq_len: 16384, global_batch: 16, recompute: full}\n");
    WkModelSpec m4 = model("model: {base: llama3-8b, tp: 1, pp: 1, cp: 4, seq_len: 16384, global_batch: 16, recompute: full}\n");
    WkModelSpec l4 = model("model: {base: llama3-8b, tp: 1, pp: 1, cp: 4, seq_len: 32768, global_batch: 16, recompute: full}\n");
    WkPerfResult r1 = eval_ok(&m1, env_h100(16)), r4 = eval_ok(&m4, env_h100(16)), rl = eval_ok(&l4, env_h100(16));
    assert_float_equal(r1.cp_s, 0, 0);
    assert_true(r4.cp_s > 0);
    assert_true(rl.cp_s > 1.5 * r4.cp_s);
    /* splitting the sequence does not make the job faster per GPU for free:
     * the same global batch on the same GPUs, same model FLOPs */
    assert_true(r4.mfu < r1.mfu * 1.10);
}

/* Overlapped communication slows the compute it hides behind by the
 * slowdown measured over NVLink (arXiv:2507.03114: 18.9 %), weighted by the
 * bytes/s the collective moves against NVLink's: inside one node the
 * interference is 0.189 x the hidden DP time, nothing without overlap;
 * across nodes the hierarchical reduction's fabric phase counts at
 * net/NVLink bus bandwidth, so the interference is 0.189 x hidden x
 * (intra + x r) / (intra + x). An explicit latency_intra replaces the SKU's
 * fitted step latency. */
static void test_overlap_costs_the_measured_slowdown_of_hidden_time(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: llama3-8b, tp: 1, pp: 1, global_batch: 64, recompute: full}\n");
    WkPerfParams p = wk_perf_defaults(), none = p;
    none.dp_overlap = 0;
    WkError err;
    wk_error_clear(&err);
    for (int gpus = 8; gpus <= 64; gpus *= 8) {
        WkPerfEnv env = env_h100((uint32_t)gpus);
        WkPerfResult r, x;
        assert_int_equal(wk_perf_eval(&m, &env, &p, &r, &err), 0);
        assert_int_equal(wk_perf_eval(&m, &env, &none, &x, &err), 0);
        double hidden = x.dp_s - r.dp_s;
        assert_true(hidden > 0);
        assert_float_equal(x.interference_s, 0, 0);
        const WkGpuEff *e = wk_eff_find("H100-SXM-80G");
        double w = 1;
        if (gpus > 8) { /* 8 ranks in the node, 8 nodes; the whole gradient's reduction */
            double bytes = 2 * m.params, bwi = env.nvlink_bw * e->nvlink_eff, bwx = env.net_bw * e->net_eff;
            double intra = wk_coll_reduce_scatter_s(bytes, 8, bwi, e->ring_lat_s), xs;
            if (m.zero >= 1) {
                xs = wk_coll_reduce_scatter_s(bytes / 8, 8, bwx, p.lat_inter_s);
            } else {
                intra *= 2;
                xs = fmin(wk_coll_allreduce_tree_s(bytes / 8, 8, bwx, p.lat_inter_s),
                          wk_coll_allreduce_ring_s(bytes / 8, 8, bwx, p.lat_inter_s));
            }
            w = (intra + xs * bwx / bwi) / (intra + xs);
            assert_true(w < 0.9);
        }
        assert_float_equal(r.interference_s, 0.189 * hidden * w, 1e-12);
    }
    /* latency_intra: 1 ms per step makes a single-node all-reduce slower */
    WkPerfEnv one = env_h100(8);
    WkModelSpec m8 = model("model: {base: llama3-8b, tp: 1, pp: 1, global_batch: 8, recompute: full,"
                           " overlap_grad_reduce: false}\n");
    WkPerfParams slow = wk_perf_defaults();
    slow.lat_intra_s = 1e-3;
    WkPerfResult a, b;
    assert_int_equal(wk_perf_eval(&m8, &one, &p, &a, &err), 0);
    assert_int_equal(wk_perf_eval(&m8, &one, &slow, &b, &err), 0);
    assert_true(b.dp_s > a.dp_s + 1e-3);
}

/* The interference weight of a collective is its bytes/s over the SKU's
 * NVLink bus bandwidth, never above 1: the compute a GEMM loses to an
 * overlapped all-reduce goes with the bytes moved, not with the time
 * overlapped (docs/models.md, "SM interference"). */
static void test_interference_ratio_is_bandwidth_over_nvlink(void **state)
{
    (void)state;
    const WkGpuEff *e = wk_eff_find("H100-SXM-80G");
    WkPerfEnv env = env_h100(64);
    double ref = env.nvlink_bw * e->nvlink_eff, net = env.net_bw * e->net_eff;
    assert_float_equal(wk_perf_interf_ratio(e, &env, net), net / ref, 1e-15);
    assert_true(wk_perf_interf_ratio(e, &env, net) < 0.2);
    assert_float_equal(wk_perf_interf_ratio(e, &env, ref), 1, 0);
    assert_float_equal(wk_perf_interf_ratio(e, &env, 2 * ref), 1, 0);
    assert_float_equal(wk_perf_interf_ratio(e, &env, 0), 0, 0);
    WkPerfEnv flat = env;
    flat.nvlink_bw = 0; /* no NVLink figure: the measured slowdown as it stands */
    assert_float_equal(wk_perf_interf_ratio(e, &flat, net), 1, 0);
}

/* MoE parallel folding (Liu et al. 2025): experts without tensor
 * parallelism (etp 1) under tp 2 keep the expert FLOPs per rank, hold whole
 * experts (more state per rank), skip the MLP's tensor-parallel exchange and
 * keep the ep x etp = 8 all-to-all inside the node; etp must divide tp. */
static void test_expert_folding_moves_the_all_to_all_into_the_node(void **state)
{
    (void)state;
    const char *base = "model: {base: mixtral-8x7b, tp: 2, pp: 4, ep: 8, global_batch: 256, seq_len: 4096";
    char y[256];
    snprintf(y, sizeof y, "%s}\n", base);
    WkModelSpec m = model(y);
    snprintf(y, sizeof y, "%s, etp: 1}\n", base);
    WkModelSpec f = model(y);
    WkPerfResult r = eval_ok(&m, env_h100(64)), x = eval_ok(&f, env_h100(64));
    double flops_r = r.ops[WK_OP_GEMM].compute_s, flops_x = x.ops[WK_OP_GEMM].compute_s;
    assert_true(fabs(flops_x / flops_r - 1) < 0.15);
    assert_true(x.ep_s < r.ep_s / 4);
    assert_true(x.tp_s < r.tp_s);
    assert_true(x.mem_state_bytes > r.mem_state_bytes);
    WkModelSpec bad;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_model_parse(yaml_node("model: {base: mixtral-8x7b, tp: 2, ep: 8, etp: 3}\n", "model"), NULL,
                                    &bad, &err),
                     WK_E_INVAL);
    assert_non_null(strstr(err.msg, "etp = 3"));
}

/* The distributed optimizer shards dense parameters over dp x cp and expert
 * parameters over the expert-data-parallel ranks, tp x cp x dp / (etp x
 * ep) of a stage (Megatron-Core's MoE parameter groups): Mixtral 8x7B TP2
 * PP4 EP4 on 64 GPUs, dp 8, expert dp 2. */
static void test_expert_state_shards_over_the_expert_data_parallel_ranks(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: mixtral-8x7b, tp: 2, pp: 4, ep: 4, zero: 1, global_batch: 64, seq_len: 4096}\n");
    WkPerfResult r = eval_ok(&m, env_h100(64));
    double E = (double)m.layers * m.experts * 3 * m.hidden * m.ffn;
    double ld = (m.params - E) / (2 * 4), le = E / (2 * 4 * 4);
    assert_float_equal(r.mem_state_bytes, 4 * (ld + le) + 12 * ld / 8 + 12 * le / 2, 1e-6 * (ld + le));
}

/* Experts fold over the tp x cp x dp ranks of a stage (Megatron-Core builds
 * its expert groups etp-ep-edp over them): Mixtral 8x7B TP1 CP2 PP4 EP8 on
 * 32 GPUs has dp 4 but 8 ranks per stage to place its 8 EP ranks on, one
 * expert each and no expert-data-parallel peer (its expert state is
 * unsharded). On 24 GPUs (dp 3, 6 ranks) EP 8 has no room and is refused,
 * the message naming cp. */
static void test_experts_fold_over_the_context_parallel_ranks(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: mixtral-8x7b, tp: 1, cp: 2, pp: 4, ep: 8, zero: 1, global_batch: 64, "
                          "seq_len: 8192}\n");
    WkPerfResult r = eval_ok(&m, env_h100(32));
    double E = (double)m.layers * m.experts * 3 * m.hidden * m.ffn, ld = (m.params - E) / 4, le = E / 32;
    assert_float_equal(r.mem_state_bytes, 4 * (ld + le) + 12 * ld / 8 + 12 * le, 1e-6 * (ld + le));
    assert_true(r.ep_s > 0);
    eval_refused(&m, env_h100(24), "(dp 3 x cp 2 x tp/etp 1)");
}

/* Expert gradients are reduced over the expert-data-parallel ranks, not
 * dp x cp (Megatron-Core's get_expert_data_parallel_group): Mixtral 8x7B
 * TP2 PP4 on 64 GPUs (dp 8), ZeRO 0, nothing overlapped. With EP 8 a stage's
 * 16 expert slots form one EP group: no expert-DP peer, so only the dense
 * gradients are all-reduced (over 8 ranks 2 apart: 4 in a node, 2 nodes).
 * With EP 4 each expert has one peer 8 slots (a node) away: its gradients
 * add an all-reduce over 2 ranks on the fabric. */
static void test_expert_gradients_reduce_over_the_expert_data_parallel_ranks(void **state)
{
    (void)state;
    WkPerfParams pp = wk_perf_defaults();
    pp.dp_overlap = 0;
    WkPerfEnv env = env_h100(64);
    const WkGpuEff *e = wk_catalog_eff(env.sku);
    double bwi = env.nvlink_bw * e->nvlink_eff, bwx = env.net_bw * e->net_eff, li = e->ring_lat_s;
    double lx = pp.lat_inter_s;
    for (int ep = 4; ep <= 8; ep += 4) {
        char y[200];
        snprintf(y, sizeof y, "model: {base: mixtral-8x7b, tp: 2, pp: 4, ep: %d, zero: 0, global_batch: 64, "
                 "seq_len: 4096}\n", ep);
        WkModelSpec m = model(y);
        WkPerfResult r;
        WkError err;
        wk_error_clear(&err);
        assert_int_equal(wk_perf_eval(&m, &env, &pp, &r, &err), 0);
        double E = (double)m.layers * m.experts * 3 * m.hidden * m.ffn;
        double bd = 2 * (m.params - E) / 8, be = 2 * E / (2 * 4 * ep);
        double dense = 2 * wk_coll_reduce_scatter_s(bd, 4, bwi, li) +
                       fmin(wk_coll_allreduce_tree_s(bd / 4, 2, bwx, lx), wk_coll_allreduce_ring_s(bd / 4, 2, bwx, lx));
        double expert =
            ep == 8 ? 0 : fmin(wk_coll_allreduce_tree_s(be, 2, bwx, lx), wk_coll_allreduce_ring_s(be, 2, bwx, lx));
        assert_float_equal(r.dp_s, dense + expert, 1e-9 * r.dp_s);
    }
}

/* Tied embeddings (GPT-2, MPT): one vocab x hidden table is both the input
 * embedding and the output layer. The model has vh fewer parameters, the
 * same training FLOPs per token (the output GEMM stays), and on one stage
 * a rank stores (and ZeRO-0 keeps 16 B of state for) vh/tp fewer; under
 * pp > 1 the last stage holds a copy, so the state is the untied one. */
static void test_tied_embeddings_store_one_table(void **state)
{
    (void)state;
    const char *y = "model: {base: gpt3-175b, layers: 8, hidden: 2048, heads: 16, ffn: 8192, tp: 2, pp: %d, zero: 0, "
                    "global_batch: 64%s}\n";
    char buf[200];
    WkModelSpec m[2][2];
    WkPerfResult r[2][2];
    for (int pp = 0; pp < 2; pp++)
        for (int t = 0; t < 2; t++) {
            snprintf(buf, sizeof buf, y, pp + 1, t ? ", tied_embeddings: true" : "");
            m[pp][t] = model(buf);
            r[pp][t] = eval_ok(&m[pp][t], env_h100(16));
        }
    double vh = 50257.0 * 2048;
    assert_float_equal(m[0][0].params - m[0][1].params, vh, 0);
    assert_float_equal(wk_model_train_flops_per_token(&m[0][1]), wk_model_train_flops_per_token(&m[0][0]), 1);
    assert_float_equal(r[0][0].mem_state_bytes - r[0][1].mem_state_bytes, 16 * vh / 2, 1e-6 * vh);
    assert_float_equal(wk_model_stored_params(&m[1][1]), m[1][0].params, 0);
    assert_float_equal(r[1][1].mem_state_bytes, r[1][0].mem_state_bytes, 1e-9 * r[1][0].mem_state_bytes);
}

/* attention: flash1 times the attention core from FlashAttention-1's
 * measured forward + backward table (eff.c FA1_*, docs/models.md): at a
 * measured key length its rate, between two the log2 interpolation, beyond
 * the ends the end value; a head dimension below the kernel's block (80 in
 * a 128 block) computes the padding too; no table (MI300X) or a head
 * dimension above 128 is refused. In a whole layer (sustained clock off)
 * the attention is the table's time; memory and flops are flash's. */
static void test_flash1_attention_runs_at_the_measured_flashattention1_rate(void **state)
{
    (void)state;
    const WkGpuEff *h = wk_catalog_eff(wk_catalog_find("H100-SXM-80G"));
    const WkGpuEff *a = wk_catalog_eff(wk_catalog_find("A100-SXM-80G"));
    double P = 989e12;
    assert_float_equal(wk_eff_attn_fa1_s(h, 108e12, P, 2048, 1, 128), 1, 1e-12);
    assert_float_equal(wk_eff_attn_fa1_s(h, 117e12, P, 2048 * sqrt(2.0), 1, 128), 1, 1e-12); /* (108 + 126) / 2 */
    assert_float_equal(wk_eff_attn_fa1_s(h, 98e12, P, 100, 1, 128), 1, 1e-12);
    assert_float_equal(wk_eff_attn_fa1_s(h, 139e12, P, 65536, 0, 128), 1, 1e-12);
    assert_float_equal(wk_eff_attn_fa1_s(h, 104e12 * 48 / 64, P, 512, 1, 48), 1, 1e-12);
    assert_float_equal(wk_eff_attn_fa1_s(h, 104e12 * 24 / 32, P, 512, 1, 24), 1, 1e-12);
    assert_float_equal(wk_eff_attn_fa1_s(h, 108e12 * 80 / 128, P, 2048, 1, 80), 1, 1e-12);
    assert_float_equal(wk_eff_attn_fa1_s(a, 69e12, 312e12, 2048, 1, 128), 1, 1e-12);
    assert_float_equal(wk_eff_attn_fa1_s(a, 69e12 / 2, 312e12 / 2, 2048, 1, 128), 1, 1e-12); /* a slower clock */
    assert_float_equal(wk_eff_attn_fa1_s(h, 1, P, 2048, 1, 129), -1, 0);
    assert_null(wk_catalog_eff(wk_catalog_find("MI300X"))->fa1);

    const char *y = "model: {base: llama3-8b, layers: 2, heads: 32, kv_heads: 8, seq_len: 2048, global_batch: 8, "
                    "attention: %s}\n";
    char buf[200];
    WkPerfParams off = wk_perf_defaults();
    off.sustained_clock = 0;
    WkPerfResult r[2];
    WkModelSpec m[2];
    for (int k = 0; k < 2; k++) {
        snprintf(buf, sizeof buf, y, k ? "flash1" : "flash");
        m[k] = model(buf);
        WkPerfEnv env = env_h100(8);
        WkError err;
        wk_error_clear(&err);
        if (wk_perf_eval(&m[k], &env, &off, &r[k], &err) < 0)
            fail_msg("%s", err.msg);
    }
    /* a rank: 8 sequences of 2048 tokens (dp 8, micro-batch 1), 2 layers;
     * causal forward 4 T s h / 2, backward 2.5x, at 108 TFLOP/s */
    double f = 4.0 * 8 * 2048 * 2048 * 4096 / 2 * 3.5 * 2 / 8;
    assert_float_equal(r[1].ops[WK_OP_ATTN].compute_s, f / 108e12, 1e-9 * f / 108e12);
    assert_true(r[0].ops[WK_OP_ATTN].compute_s < r[1].ops[WK_OP_ATTN].compute_s / 2);
    assert_float_equal(r[1].mem_bytes, r[0].mem_bytes, 0);
    assert_true(r[1].iter_s > r[0].iter_s);

    WkPerfEnv mi = env_h100(8);
    mi.sku = wk_catalog_find("MI300X");
    eval_refused(&m[1], mi, "attention: flash1 has no measurement on MI300X");
    WkError err;
    wk_error_clear(&err);
    WkModelSpec wide;
    assert_int_equal(wk_model_parse(yaml_node("model: {base: llama3-8b, heads: 16, attention: flash1}\n", "model"),
                                    NULL, &wide, &err),
                     WK_E_INVAL);
    assert_non_null(strstr(err.msg, "flash1 kernels run head dimensions up to 128 (hidden 4096 / heads 16)"));
}

/* A host-bound layer idles the GPU between kernels, and its exposed
 * collectives run in that time (docs/models.md, "Host dispatch"): the layer
 * takes max(host, compute + exposed communication), so the host wait plus
 * the exposed tensor-parallel time is the same whatever the NVLink speed,
 * as long as the host stays the slower (before: the two were added, and a
 * faster link only removed communication). */
static void test_exposed_layer_collectives_absorb_the_host_wait(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {layers: 4, hidden: 512, heads: 8, ffn: 2048, vocab: 32000, seq_len: 1024, tp: 2, "
                          "global_batch: 64, micro_batch: 1, stack: torchtitan, zero: 1}\n");
    WkPerfEnv slow = env_h100(16), fast = slow;
    fast.nvlink_bw *= 2;
    WkPerfResult a = eval_ok(&m, slow), b = eval_ok(&m, fast);
    assert_true(a.host_s > 0 && b.host_s > a.host_s && a.tp_s > b.tp_s && b.tp_s > 0);
    assert_float_equal(a.compute_s, b.compute_s, 1e-12);
    double di = a.iter_s - b.iter_s, dc = a.dp_s - b.dp_s + a.interference_s - b.interference_s;
    double ha = a.host_s + a.tp_s, hb = b.host_s + b.tp_s;
    assert_float_equal(ha, hb, 1e-9 * ha);
    assert_float_equal(di, dc, 1e-9 * a.iter_s);
}

/* Megatron-Core's all-to-all dispatcher synchronises the host with the GPU
 * (docs/models.md, "MoE layer"): each sync idles the GPU while the host
 * issues one operator from Python, WK_MOE_SYNCS per layer forward (one
 * more with two local experts), again in a full recomputation. The host
 * keeps ahead of these large layers otherwise: host_s is the syncs alone. */
static void test_moe_dispatcher_syncs_idle_the_gpu_one_host_operator_each(void **state)
{
    (void)state;
    const WkGpuSku *h = wk_catalog_find("H100-SXM-80G");
    double py = wk_stack_py_op_s(wk_catalog_eff(h));
    for (int k = 0; k < 3; k++) {
        char y[200];
        snprintf(y, sizeof y,
                 "model: {base: mixtral-8x7b, tp: 2, pp: 4, ep: %d, global_batch: 64, seq_len: 4096%s}\n",
                 k == 1 ? 4 : 8, k == 2 ? ", recompute: full" : "");
        WkModelSpec m = model(y);
        WkPerfResult r = eval_ok(&m, env_h100(64));
        double syncs = k == 1 ? 4 : 3, passes = k == 2 ? 2 : 1;
        assert_float_equal(wk_ops_moe_syncs(k == 1 ? 2 : 1), syncs, 0);
        assert_float_equal(r.host_s, r.micro_batches * 8.0 * passes * syncs * py, 1e-12);
    }
    WkModelSpec d = model("model: {base: llama3-8b, tp: 2, pp: 4, global_batch: 64}\n");
    assert_float_equal(eval_ok(&d, env_h100(64)).host_s, 0, 0);
}

/* Megatron-Core's all-to-all dispatcher (docs/models.md, "MoE layer"): a
 * rank all-to-alls the top_k copies of its T / tp sequence-parallel tokens
 * over EP, then all-gathers the received rows over the etp expert-TP ranks
 * (reduce-scatter and all-to-all back in the combine; both again backward):
 * Mixtral 8x7B TP2 EP4 (etp = tp = 2, the 8-rank EP group in one node). */
static void test_moe_dispatch_is_an_all_to_all_then_an_expert_tp_all_gather(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: mixtral-8x7b, tp: 2, pp: 4, ep: 4, global_batch: 64, seq_len: 4096}\n");
    WkPerfEnv env = env_h100(64);
    WkPerfResult r = eval_ok(&m, env);
    const WkGpuEff *e = wk_catalog_eff(env.sku);
    double bw = env.nvlink_bw * e->nvlink_eff, rows = 4096 / 2 * 2.0, row = 4096 * 2.0;
    double a2a = wk_coll_all_to_all_s(rows * row, 4, bw, e->ring_lat_s);
    double ag = wk_coll_all_gather_s(rows * 2 * row, 2, bw, e->ring_lat_s);
    assert_float_equal(r.ep_s, r.micro_batches * 8.0 * 4 * (a2a + ag), 1e-12);
}

/* ZeRO-3 (FSDP) re-gathers the weights for every micro-batch's forward and
 * backward and reduce-scatters every micro-batch's gradients: its data-parallel
 * traffic grows with the micro-batches, the distributed optimizer's (ZeRO-1)
 * does not. Exposed in full with dp_overlap 0. */
static void test_zero3_communicates_per_micro_batch(void **state)
{
    (void)state;
    WkPerfParams p = wk_perf_defaults();
    p.dp_overlap = 0;
    double dp[2][2];
    for (int z = 0; z < 2; z++)
        for (int k = 0; k < 2; k++) {
            char y[160];
            snprintf(y, sizeof y, "model: {base: llama3-8b, tp: 1, pp: 1, zero: %d, global_batch: %d, recompute: full}\n",
                     z ? 3 : 1, k ? 32 : 16);
            WkModelSpec m = model(y);
            WkPerfEnv env = env_h100(8);
            WkPerfResult r;
            WkError err;
            wk_error_clear(&err);
            assert_int_equal(wk_perf_eval(&m, &env, &p, &r, &err), 0);
            dp[z][k] = r.dp_s;
        }
    assert_float_equal(dp[0][1], dp[0][0], dp[0][0] * 1e-9);
    assert_float_equal(dp[1][1], 2 * dp[1][0], dp[1][0] * 1e-9);
    /* per micro-batch: two all-gathers and one reduce-scatter of the weights */
    assert_float_equal(dp[1][0] / 2, 1.5 * dp[0][0], dp[0][0] * 1e-9);
}

/* The parallel block (MegaScale §3.1) runs attention and MLP on one norm:
 * half the norm kernels, one tensor-parallel all-gather/reduce-scatter pair
 * per pass instead of two, the same GEMM FLOPs in fewer, larger kernels. */
static void test_parallel_block_halves_norms_and_tensor_parallel_traffic(void **state)
{
    (void)state;
    const char *base = "model: {base: gpt3-175b, tp: 8, pp: 8, global_batch: 64, tp_overlap: none";
    char y[200];
    snprintf(y, sizeof y, "%s}\n", base);
    WkModelSpec m = model(y);
    snprintf(y, sizeof y, "%s, parallel_block: true}\n", base);
    WkModelSpec b = model(y);
    WkPerfResult r = eval_ok(&m, env_h100(512)), x = eval_ok(&b, env_h100(512));
    assert_float_equal(x.tp_s, r.tp_s / 2, r.tp_s * 1e-9);
    assert_true(x.ops[WK_OP_NORM].kernels < 0.6 * r.ops[WK_OP_NORM].kernels);
    assert_true(x.ops[WK_OP_GEMM].kernels < r.ops[WK_OP_GEMM].kernels);
    assert_true(x.ops[WK_OP_GEMM].s <= r.ops[WK_OP_GEMM].s && x.ops[WK_OP_GEMM].s > 0.95 * r.ops[WK_OP_GEMM].s);
    assert_true(x.iter_s < r.iter_s);
}

/* FP8 current scaling reads each cast input once more (for its amax):
 * the casts' bytes grow from 4 to 6 per element, nothing else moves. */
static void test_fp8_current_scaling_reads_each_cast_twice(void **state)
{
    (void)state;
    WkModelSpec d = model("model: {base: llama3-8b, precision: fp8, tp: 8, global_batch: 64}\n");
    WkModelSpec c = model("model: {base: llama3-8b, precision: fp8, fp8_scaling: current, tp: 8, global_batch: 64}\n");
    WkPerfResult rd = eval_ok(&d, env_h100(8)), rc = eval_ok(&c, env_h100(8));
    assert_true(rd.ops[WK_OP_CAST].memory_s > 0);
    assert_float_equal(rc.ops[WK_OP_CAST].memory_s / rd.ops[WK_OP_CAST].memory_s, 1.5, 1e-12);
    assert_true(rc.iter_s > rd.iter_s);
    /* at the default sustained clock the heavier cast traffic lowers the
     * layer's activity, so the GEMMs run at a slightly higher clock; at a
     * fixed clock nothing but the casts moves */
    assert_true(rc.sm_clock_mhz > rd.sm_clock_mhz && rc.ops[WK_OP_GEMM].s < rd.ops[WK_OP_GEMM].s);
    WkError err;
    wk_error_clear(&err);
    WkPerfParams fixed;
    assert_int_equal(wk_perf_parse(yaml_node("perf: {sustained_clock: false}\n", "perf"), &fixed, &err), 0);
    WkPerfEnv env = env_h100(8);
    assert_int_equal(wk_perf_eval(&d, &env, &fixed, &rd, &err), 0);
    assert_int_equal(wk_perf_eval(&c, &env, &fixed, &rc, &err), 0);
    assert_float_equal(rc.ops[WK_OP_GEMM].s, rd.ops[WK_OP_GEMM].s, 0);
    assert_float_equal(rc.sm_clock_mhz, 0, 0);
    WkModelSpec m;
    assert_int_equal(wk_model_parse(yaml_node("model: {base: llama3-8b, fp8_scaling: current}\n", "model"), NULL, &m,
                                    &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "precision: fp8"));
}

/* perf.gemm_shapes (docs/models.md): off by default; on, GEMM time
 * follows the shape-aware fit with wave quantization. perf.sustained_clock:
 * on by default; off, the H100's GEMMs and attention run at the clocks their
 * curves were measured at (1980 MHz boost for BF16), so on they are slower
 * and the memory-bound kernels are not; the clock used is reported (between
 * the 1741 MHz of a GEMM loop and the 1980 MHz top clock for a layer's
 * lighter mix) and is 0 when off. A data-parallel model's convolutions take
 * the shape-aware fit too; a value that is not a boolean is refused at its
 * position. */
static void test_gemm_shapes_opt_in_and_sustained_clock_by_default(void **state)
{
    (void)state;
    WkPerfParams d = wk_perf_defaults(), on, sh, off;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(d.gemm_shapes, 0);
    assert_int_equal(d.sustained_clock, 1);
    assert_int_equal(wk_perf_parse(yaml_node("perf: {gemm_shapes: true, sustained_clock: true}\n", "perf"), &on, &err), 0);
    assert_int_equal(on.gemm_shapes, 1);
    assert_int_equal(on.sustained_clock, 1);
    assert_int_equal(wk_perf_parse(yaml_node("perf: {gemm_shapes: true, sustained_clock: false}\n", "perf"), &sh, &err),
                     0);
    assert_int_equal(wk_perf_parse(yaml_node("perf: {sustained_clock: false}\n", "perf"), &off, &err), 0);
    assert_int_equal(sh.sustained_clock, 0);
    assert_int_equal(off.gemm_shapes, 0);
    assert_int_equal(off.sustained_clock, 0);
    WkModelSpec m = model("model: {base: llama3-8b, tp: 8, global_batch: 64}\n");
    WkPerfEnv env = env_h100(8);
    WkPerfResult r0, rs, rc;
    assert_int_equal(wk_perf_eval(&m, &env, &off, &r0, &err), 0);
    assert_int_equal(wk_perf_eval(&m, &env, &sh, &rs, &err), 0);
    assert_int_equal(wk_perf_eval(&m, &env, &d, &rc, &err), 0);
    assert_true(rs.ops[WK_OP_GEMM].s != r0.ops[WK_OP_GEMM].s);
    assert_float_equal(rs.ops[WK_OP_ATTN].s, r0.ops[WK_OP_ATTN].s, 0);
    assert_true(rc.ops[WK_OP_GEMM].s > r0.ops[WK_OP_GEMM].s && rc.ops[WK_OP_ATTN].s > r0.ops[WK_OP_ATTN].s);
    assert_float_equal(rc.ops[WK_OP_NORM].s, r0.ops[WK_OP_NORM].s, 0);
    assert_true(rc.sm_clock_mhz > 1741 && rc.sm_clock_mhz < 1980);
    assert_float_equal(r0.sm_clock_mhz, 0, 0);
    WkModelSpec v = model("model: resnet50\n");
    assert_int_equal(wk_perf_eval(&v, &env, &off, &r0, &err), 0);
    assert_int_equal(wk_perf_eval(&v, &env, &sh, &rs, &err), 0);
    assert_true(rs.ops[WK_OP_GEMM].s > 0 && rs.ops[WK_OP_GEMM].s != r0.ops[WK_OP_GEMM].s);
    assert_int_equal(wk_perf_parse(yaml_node("perf: {dp_overlap: 1,\n  sustained_clock: fast}\n", "perf"), &on, &err),
                     WK_E_INVAL);
    print_message("%s: %s\n", err.where, err.msg);
    assert_non_null(strstr(err.where, "t.yaml:2:"));
    assert_non_null(strstr(err.msg, "sustained_clock"));
}

static WkPerfResult eval_layers(const char *layers_and_split)
{
    char y[256];
    snprintf(y, sizeof y, "model: {base: llama3-8b, tp: 2, pp: 4, global_batch: 64, recompute: full, %s}\n",
             layers_and_split);
    WkModelSpec m = model(y);
    return eval_ok(&m, env_h100(64));
}

/* An uneven pipeline split is bounded by its slowest stage. One layer's
 * time per micro-batch is the difference of 10 and 9 layers per stage
 * (even splits of 40 and 36 layers over pp 4, each with the output layer);
 * 32 layers as 6 + 10 + 10 + 6 are bounded by a middle stage of 10 layers
 * and no output layer; 10 + 10 + 10 + 10 given explicitly is the even split
 * bit for bit; impossible splits are refused. */
static void test_uneven_pipeline_stages_are_bounded_by_the_slowest(void **state)
{
    (void)state;
    WkPerfResult r40 = eval_layers("layers: 40"), r36 = eval_layers("layers: 36");
    WkPerfResult u = eval_layers("layers: 32, first_stage_layers: 6, last_stage_layers: 6");
    WkPerfResult x = eval_layers("layers: 40, first_stage_layers: 10");
    double mb = r40.micro_batches, per = (r40.compute_s - r36.compute_s) / mb;
    double head = r40.compute_s / mb - 10 * per;
    assert_true(per > 0 && head > 0 && 6 * per + head < 10 * per); /* the middle stage bounds */
    assert_float_equal(u.compute_s, mb * 10 * per, 1e-9 * u.compute_s);
    assert_float_equal(x.iter_s, r40.iter_s, 0);
    assert_float_equal(x.compute_s, r40.compute_s, 0);
    WkError err;
    WkModelSpec m;
    const char *bad[] = {"model: {base: llama3-8b, first_stage_layers: 4}\n",
                         "model: {base: llama3-8b, pp: 4, first_stage_layers: 16, last_stage_layers: 16}\n",
                         "model: {base: llama3-8b, pp: 2, first_stage_layers: 10}\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wk_error_clear(&err);
        assert_int_equal(wk_model_parse(yaml_node(bad[i], "model"), NULL, &m, &err), WK_E_INVAL);
        assert_non_null(strstr(err.msg, "stage"));
    }
}

/* precision: fp16 runs the GEMMs at the 16-bit tensor peak as bf16 and adds
 * dynamic loss scaling's unscale-and-check pass over the FP32 main
 * gradients: 8 B per parameter of the rank's shard, one kernel. A SKU
 * without BF16 (V100) takes fp16 only; one without FP8 (A100) refuses fp8
 * (Transformer Engine does), where it once ran it silently as bf16. */
static void test_fp16_adds_the_loss_scaling_pass_and_v100_needs_it(void **state)
{
    (void)state;
    WkModelSpec b = model("model: {base: llama3-8b, seq_len: 2048, tp: 2, global_batch: 64, zero: 1}\n");
    WkModelSpec f = model("model: {base: llama3-8b, seq_len: 2048, tp: 2, global_batch: 64, zero: 1, precision: fp16}\n");
    assert_int_equal(f.fp16, 1);
    assert_int_equal(f.fp8, 0);
    WkPerfEnv env = env_h100(16);
    env.sku = wk_catalog_find("A100-SXM-80G");
    WkPerfResult rb = eval_ok(&b, env), rf = eval_ok(&f, env);
    const WkGpuEff *e = wk_catalog_eff(env.sku);
    double shard = b.params / 2 / 8; /* local parameters over dp 8 (distributed optimizer) */
    assert_float_equal(rf.compute_s, rb.compute_s, 0);
    assert_float_equal(rf.optim_s - rb.optim_s, 8 * shard / (env.sku->hbm_bw_bytes_per_s * e->mem_max) + e->kernel_s,
                       1e-6 * rb.optim_s);
    WkModelSpec f8 = model("model: {base: llama3-8b, seq_len: 2048, tp: 2, global_batch: 64, precision: fp8}\n");
    eval_refused(&f8, env, "A100-SXM-80G has no FP8 tensor cores: the model needs precision: bf16");
    /* the V100 refuses bf16, with its name; fp16 runs at its 125 TFLOP/s */
    env.sku = wk_catalog_find("V100-SXM2-32G");
    assert_non_null(env.sku);
    WkModelSpec small = model("model: {base: llama3-8b, layers: 4, seq_len: 1024, tp: 8, global_batch: 16, zero: 1}\n");
    eval_refused(&small, env, "V100-SXM2-32G has no BF16 or FP8 tensor cores: the model needs precision: fp16");
    small.fp16 = 1;
    WkPerfResult rv = eval_ok(&small, env);
    assert_true(rv.iter_s > 0);
    assert_float_equal(rv.mfu * 125e12, rv.tflops_per_gpu * 1e12, 1e-3 * 125e12 * rv.mfu);
}

/* The sustained clock is remembered per input (perf.c, `sustain`): a model
 * evaluated again after others gives the same result to the bit, and a
 * change to what the clock depends on (the SKU's power cap here) is not
 * answered from the cache. */
static void test_sustained_clock_cache_answers_only_equal_inputs(void **state)
{
    (void)state;
    WkModelSpec a = model("model: {base: llama3-8b, tp: 8, global_batch: 64}\n");
    WkModelSpec b = model("model: {base: llama3-70b, tp: 8, pp: 4, global_batch: 64}\n");
    WkPerfResult a1 = eval_ok(&a, env_h100(8)), b1 = eval_ok(&b, env_h100(32)), a2 = eval_ok(&a, env_h100(8));
    assert_float_equal(a1.iter_s, a2.iter_s, 0);
    assert_float_equal(a1.ops[WK_OP_GEMM].s, a2.ops[WK_OP_GEMM].s, 0);
    assert_float_equal(a1.sm_clock_mhz, a2.sm_clock_mhz, 0);
    assert_true(b1.sm_clock_mhz > 0);
    WkPerfEnv capped = env_h100(8);
    capped.cap_clock = 0.8;
    WkPerfResult c1 = eval_ok(&a, capped);
    assert_true(c1.sm_clock_mhz < a1.sm_clock_mhz && c1.iter_s > a1.iter_s);
    assert_float_equal(c1.sm_clock_mhz, 0.8 * 1980, 1e-9); /* the cap binds below the sustained clock */
    WkPerfResult a3 = eval_ok(&a, env_h100(8));
    assert_float_equal(a1.iter_s, a3.iter_s, 0);
    assert_float_equal(a1.sm_clock_mhz, a3.sm_clock_mhz, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_flops_are_6n_plus_attention_term, teardown),
        cmocka_unit_test_teardown(test_llama3_405b_preset_has_405b_parameters, teardown),
        cmocka_unit_test_teardown(test_llama3_405b_8k_without_checkpointing_fits_with_zero2, teardown),
        cmocka_unit_test_teardown(test_zero2_reduce_scatters_every_micro_batch, teardown),
        cmocka_unit_test_teardown(test_pipeline_bubble_fraction_is_closed_form, teardown),
        cmocka_unit_test_teardown(test_memory_shortfall_is_refused_with_numbers, teardown),
        cmocka_unit_test_teardown(test_slowest_rank_bounds_compute, teardown),
        cmocka_unit_test_teardown(test_rebalancing_lets_fast_replicas_carry_more, teardown),
        cmocka_unit_test_teardown(test_activation_bytes_per_layer_by_architecture, teardown),
        cmocka_unit_test_teardown(test_interleaved_inflight_follows_megatron_warmup, teardown),
        cmocka_unit_test_teardown(test_device_memory_is_the_drivers_total, teardown),
        cmocka_unit_test_teardown(test_mixed_sku_memory_check_uses_the_smallest_hbm, teardown),
        cmocka_unit_test_teardown(test_spread_across_oversubscribed_spine_is_slower, teardown),
        cmocka_unit_test_teardown(test_rings_follow_rank_order_sorted_or_not, teardown),
        cmocka_unit_test_teardown(test_expert_all_to_all_flows_pair_the_groups_across_nodes, teardown),
        cmocka_unit_test_teardown(test_model_job_duration_is_iterations_times_iteration_time, teardown),
        cmocka_unit_test_teardown(test_model_job_too_big_for_memory_is_refused_at_prepare, teardown),
        cmocka_unit_test_teardown(test_model_base_cycles_and_deep_chains_are_refused, teardown),
        cmocka_unit_test_teardown(test_resnet50_shape_gives_the_papers_parameters_and_flops, teardown),
        cmocka_unit_test_teardown(test_vit_l16_shape_gives_the_papers_parameters_and_flops, teardown),
        cmocka_unit_test_teardown(test_vision_shape_errors_are_positioned, teardown),
        cmocka_unit_test_teardown(test_resnet_step_pays_memory_bound_operators_and_keeps_activations, teardown),
        cmocka_unit_test_teardown(test_vit_class_tokens_lengthen_the_sequence, teardown),
        cmocka_unit_test_teardown(test_vit_dropout_bias_and_unfused_attention_move_their_bytes, teardown),
        cmocka_unit_test_teardown(test_recsys_embedding_lookups_cost_memory_time, teardown),
        cmocka_unit_test_teardown(test_data_parallel_steps_run_at_the_sustained_clock, teardown),
        cmocka_unit_test_teardown(test_context_parallel_costs_kv_exchange, teardown),
        cmocka_unit_test_teardown(test_overlap_costs_the_measured_slowdown_of_hidden_time, teardown),
        cmocka_unit_test_teardown(test_interference_ratio_is_bandwidth_over_nvlink, teardown),
        cmocka_unit_test_teardown(test_expert_folding_moves_the_all_to_all_into_the_node, teardown),
        cmocka_unit_test_teardown(test_expert_state_shards_over_the_expert_data_parallel_ranks, teardown),
        cmocka_unit_test_teardown(test_experts_fold_over_the_context_parallel_ranks, teardown),
        cmocka_unit_test_teardown(test_expert_gradients_reduce_over_the_expert_data_parallel_ranks, teardown),
        cmocka_unit_test_teardown(test_tied_embeddings_store_one_table, teardown),
        cmocka_unit_test_teardown(test_flash1_attention_runs_at_the_measured_flashattention1_rate, teardown),
        cmocka_unit_test_teardown(test_exposed_layer_collectives_absorb_the_host_wait, teardown),
        cmocka_unit_test_teardown(test_moe_dispatcher_syncs_idle_the_gpu_one_host_operator_each, teardown),
        cmocka_unit_test_teardown(test_moe_dispatch_is_an_all_to_all_then_an_expert_tp_all_gather, teardown),
        cmocka_unit_test_teardown(test_zero3_communicates_per_micro_batch, teardown),
        cmocka_unit_test_teardown(test_sweep_equals_jobs_alone, teardown),
        cmocka_unit_test_teardown(test_parallel_block_halves_norms_and_tensor_parallel_traffic, teardown),
        cmocka_unit_test_teardown(test_fp8_current_scaling_reads_each_cast_twice, teardown),
        cmocka_unit_test_teardown(test_uneven_pipeline_stages_are_bounded_by_the_slowest, teardown),
        cmocka_unit_test_teardown(test_gemm_shapes_opt_in_and_sustained_clock_by_default, teardown),
        cmocka_unit_test_teardown(test_sustained_clock_cache_answers_only_equal_inputs, teardown),
        cmocka_unit_test_teardown(test_fp16_adds_the_loss_scaling_pass_and_v100_needs_it, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
