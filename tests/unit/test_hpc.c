/* SPDX-License-Identifier: Apache-2.0 */
/* test_hpc.c — HPC jobs beside AI jobs: `kind:` and `nodes:` in the inline
 * and synthetic sources and their positioned errors, nodes resolved on the
 * cluster, the CPU node SKU, HPC jobs never preempted or shrunk, and the
 * lend policy taking lent nodes back for an HPC job. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/run/hooks.h"
#include "models/sched/sched.h"
#include "models/workload/workload.h"

/* Load a workload section given as YAML, keeping the document (the
 * workload borrows its nodes) in *doc. Returns the code; fills w and err. */
static int load_wl(const char *yaml, WkDoc **doc, WkWorkload *w, WkError *err)
{
    wk_error_clear(err);
    int rc = wk_doc_load_string(doc, "wl.yaml", yaml, strlen(yaml), err);
    assert_int_equal(rc, 0);
    WkWorkloadCtx ctx = {.base_dir = ".", .seed = 5};
    return wk_workload_load(wk_node_get((*doc)->root, "workload"), &ctx, w, err);
}

/* The error of a workload that must not load. */
static WkError load_error(const char *yaml)
{
    WkDoc *doc = NULL;
    WkWorkload w;
    WkError err;
    assert_true(load_wl(yaml, &doc, &w, &err) < 0);
    wk_doc_free(doc);
    return err;
}

static void test_inline_hpc_job_reads_kind_and_nodes_and_resolves_them(void **state)
{
    (void)state;
    WkDoc *doc = NULL;
    WkWorkload w;
    WkError err;
    assert_int_equal(load_wl("workload:\n  source: inline\n  jobs:\n"
                             "    - {submit: 0, kind: hpc, nodes: 4, duration: 2h}\n"
                             "    - {submit: 0, gpus: 8, duration: 1h}\n"
                             "    - {submit: 0, kind: ai, nodes: 2, duration: 1h}\n",
                             &doc, &w, &err),
                     0);
    assert_int_equal(w.n, 3);
    assert_int_equal(w.nhpc, 1);
    assert_int_equal(w.jobs[0].kind, WK_JOB_HPC);
    assert_int_equal(w.jobs[0].nodes, 4);
    assert_int_equal(w.jobs[0].gpus, 0);
    assert_int_equal(w.jobs[1].kind, WK_JOB_AI);
    assert_int_equal(w.jobs[2].kind, WK_JOB_AI);
    assert_int_equal(wk_workload_resolve_nodes(&w, 8, "wl.yaml", &err), 0);
    assert_int_equal(w.jobs[0].gpus, 32);
    assert_int_equal(w.jobs[1].gpus, 8);
    assert_int_equal(w.jobs[2].gpus, 16);
    /* node groups that differ: the first nodes: key is named */
    assert_int_equal(wk_workload_resolve_nodes(&w, 0, "wl.yaml", &err), WK_E_INVAL);
    assert_string_equal(err.where, "wl.yaml:4:37");
    assert_non_null(strstr(err.msg, "nodes"));
    assert_non_null(strstr(err.msg, "differ in GPUs per node"));
    wk_workload_fini(&w);
    wk_doc_free(doc);
}

static void test_bad_kind_and_nodes_values_are_positioned_errors(void **state)
{
    (void)state;
    static const struct {
        const char *job, *where, *text;
    } cases[] = {
        {"{kind: hpc, nodes: 0, duration: 1h}", "wl.yaml:3:29", "nodes: must be between 1"},
        {"{kind: hpc, nodes: -2, duration: 1h}", "wl.yaml:3:29", "nodes: must be between 1"},
        {"{kind: batch, gpus: 8, duration: 1h}", "wl.yaml:3:17", "kind: unknown job kind 'batch' (known: ai, hpc)"},
        {"{kind: hpc, gpus: 8, model: llama3-8b, iterations: 10}", "wl.yaml:3:38", "model: an hpc job has a fixed duration"},
        {"{kind: hpc, gpus: 8, duration: 1h, tokens: 100}", "wl.yaml:3:53", "tokens: an hpc job"},
        {"{kind: hpc, nodes: 2, gpus: 16, duration: 1h}", "wl.yaml:3:29", "nodes: give either 'nodes' or 'gpus'"},
        {"{kind: hpc, nodes: 2}", "wl.yaml:3:10", "duration: missing required key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[256];
        snprintf(yaml, sizeof yaml, "workload:\n  source: inline\n  jobs: [%s]\n", cases[i].job);
        WkError err = load_error(yaml);
        assert_true(err.code < 0);
        if (strcmp(err.where, cases[i].where) != 0 || !strstr(err.msg, cases[i].text))
            fail_msg("case %zu: got '%s: %s', want '%s: ...%s...'", i, err.where, err.msg, cases[i].where,
                     cases[i].text);
    }
}

static void test_synthetic_hpc_entry_draws_default_node_counts_and_run_times(void **state)
{
    (void)state;
    WkDoc *doc = NULL, *doc2 = NULL;
    WkWorkload w, ai;
    WkError err;
    assert_int_equal(load_wl("workload:\n  source: synthetic\n  jobs: 4000\n"
                             "  gpus: [{kind: hpc, weight: 1}, {gpus: 8, weight: 1}]\n",
                             &doc, &w, &err),
                     0);
    assert_int_equal(load_wl("workload:\n  source: synthetic\n  jobs: 4000\n"
                             "  gpus: [{gpus: 16, weight: 1}, {gpus: 8, weight: 1}]\n",
                             &doc2, &ai, &err),
                     0);
    size_t nh = 0, ones = 0, below_1h = 0;
    for (size_t i = 0; i < w.n; i++) {
        const WkJobSpec *js = &w.jobs[i];
        /* the arrival stream and the mix choice are those of an AI-only mix */
        assert_int_equal(js->submit, ai.jobs[i].submit);
        assert_int_equal(js->kind == WK_JOB_HPC, ai.jobs[i].gpus == 16);
        if (js->kind != WK_JOB_HPC) {
            assert_int_equal(js->duration, ai.jobs[i].duration);
            continue;
        }
        nh++;
        assert_int_equal(js->gpus, 0);
        assert_true(js->nodes >= 1 && js->nodes <= 256 && (js->nodes & (js->nodes - 1)) == 0);
        ones += js->nodes == 1;
        below_1h += js->duration < 3600 * WK_NS_PER_S;
    }
    assert_int_equal(w.nhpc, nh);
    assert_true(nh > 1800 && nh < 2200);
    /* 30 % of the table's weight is on 1 node; the median run time is 1 h */
    assert_true(fabs((double)ones / nh - 0.30) < 0.04);
    assert_true(fabs((double)below_1h / nh - 0.5) < 0.04);
    wk_workload_fini(&w);
    wk_workload_fini(&ai);
    wk_doc_free(doc);
    wk_doc_free(doc2);
}

static void test_nodes_on_a_cluster_of_mixed_node_sizes_is_refused(void **state)
{
    (void)state;
    WkError err;
    const char *y = "cluster:\n  groups:\n    - {sku: H100-SXM-80G, nodes: 2, gpus_per_node: 8}\n"
                    "    - {sku: A100-SXM-80G, nodes: 2, gpus_per_node: 4}\n"
                    "workload:\n  source: inline\n  jobs: [{kind: hpc, nodes: 1, duration: 1h}]\n";
    assert_int_equal(test_prepare_yaml(y, &err), WK_E_INVAL);
    assert_string_equal(err.where, "bad.yaml:7:29");
    assert_non_null(strstr(err.msg, "give 'gpus' instead"));
}

static void test_cpu_node_sku_is_one_device_per_node_and_refuses_model_jobs(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {sku: EPYC-9654-2S, nodes: 16}\n"
                  "workload:\n  source: inline\n  jobs: [{kind: hpc, nodes: 4, duration: 1h}]\n",
                  NULL);
    assert_int_equal((int)test_metric(&t, "gpus"), 16);
    assert_int_equal(wk_run_hooks_workload(t.run)->jobs[0].gpus, 4);
    assert_float_equal(test_metric(&t, "hpc_jct_mean_s"), 3600, 1e-6);
    assert_true(wk_run_hooks_cluster(t.run)->sku->cpu);
    test_run_free(&t);
    WkError err;
    assert_int_equal(test_prepare_yaml("cluster: {sku: EPYC-9654-2S, nodes: 4, gpus_per_node: 2}\n"
                                       "workload: {source: inline, jobs: [{gpus: 1, duration: 1h}]}\n",
                                       &err),
                     WK_E_RANGE);
    assert_string_equal(err.where, "bad.yaml:1:55");
    assert_int_equal(test_prepare_yaml("cluster: {sku: EPYC-9654-2S, nodes: 64}\n"
                                       "workload: {source: inline, jobs: [{gpus: 8, model: llama3-8b, iterations: 10}]}\n",
                                       &err),
                     WK_E_INVAL);
    assert_non_null(strstr(err.msg, "model jobs need accelerators"));
}

/* Two 8-GPU nodes: AI jobs A (0 h) and B (1 h) of one node and 10 h each,
 * an HPC job of one node and 1 h at 2 h. */
static const char *lend_yaml = "cluster: {sku: H100-SXM-80G, nodes: 2}\n"
                               "scheduler: {name: lend, tick: 1min%s}\n"
                               "workload:\n  source: inline\n  jobs:\n"
                               "    - {submit: 0, gpus: 8, duration: 10h}\n"
                               "    - {submit: 1h, gpus: 8, duration: 10h}\n"
                               "    - {submit: 2h, kind: hpc, nodes: 1, duration: 1h}\n";

/* Run lend_yaml with extra scheduler options opts (", key: value"). */
static void run_lend(TestRun *t, const char *opts)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, lend_yaml, opts);
    test_run_yaml(t, yaml, NULL);
}

static void test_lend_preempts_the_newest_ai_job_for_an_hpc_job(void **state)
{
    (void)state;
    TestRun t;
    run_lend(&t, "");
    WkRunJobView a = wk_run_hooks_job(t.run, 0), b = wk_run_hooks_job(t.run, 1), h = wk_run_hooks_job(t.run, 2);
    assert_int_equal(a.preemptions, 0);
    assert_int_equal(b.preemptions, 1);
    assert_int_equal(h.start, 2 * WK_NS_PER_H);
    assert_int_equal(h.state, WK_JOB_COMPLETED);
    assert_float_equal(test_metric(&t, "hpc_wait_mean_s"), 0, 1e-9);
    assert_int_equal((int)test_metric(&t, "ai_preemptions"), 1);
    assert_float_equal(test_metric(&t, "ai_gpu_hours"), 2 * 8 * 10, 1e-6);
    assert_float_equal(test_metric(&t, "hpc_gpu_hours"), 8, 1e-6);
    /* B resumes when the HPC job ends, paying the default 10 min preemption cost */
    assert_int_equal(b.end, 3 * WK_NS_PER_H + 10 * WK_NS_PER_MIN + 9 * WK_NS_PER_H);
    test_run_free(&t);
    /* with 30 min of notice the HPC job takes the node at 2 h 30 */
    run_lend(&t, ", reclaim: 30min");
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 2 * WK_NS_PER_H + 30 * WK_NS_PER_MIN);
    assert_int_equal(wk_run_hooks_job(t.run, 1).preemptions, 1);
    assert_int_equal(wk_run_hooks_job(t.run, 0).preemptions, 0);
    test_run_free(&t);
}

static void test_lend_false_rejects_ai_jobs_and_serves_hpc_alone(void **state)
{
    (void)state;
    TestRun t;
    run_lend(&t, ", lend: false");
    assert_int_equal(wk_run_hooks_job(t.run, 0).state, WK_JOB_REJECTED);
    assert_int_equal(wk_run_hooks_job(t.run, 1).state, WK_JOB_REJECTED);
    assert_non_null(strstr(wk_run_hooks_job(t.run, 0).reject_reason, "lend: false"));
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 2 * WK_NS_PER_H);
    assert_float_equal(test_metric(&t, "ai_gpu_hours"), 0, 1e-9);
    test_run_free(&t);
}

static void test_lend_accepts_ai_is_false_only_for_lend_false(void **state)
{
    (void)state;
    static const struct {
        const char *yaml;
        int accepts;
    } cases[] = {
        {"x: 1\n", 1},
        {"scheduler: lend\n", 1},
        {"scheduler: {name: lend}\n", 1},
        {"scheduler: {name: lend, lend: false}\n", 0},
        {"scheduler: {name: fifo, lend: false}\n", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        WkDoc *doc = NULL;
        WkError err;
        int out = -1;
        assert_int_equal(wk_doc_load_string(&doc, "s.yaml", cases[i].yaml, strlen(cases[i].yaml), &err), 0);
        assert_int_equal(wk_sched_lend_accepts_ai(wk_node_get(doc->root, "scheduler"), &out, &err), 0);
        assert_int_equal(out, cases[i].accepts);
        wk_doc_free(doc);
    }
    WkDoc *doc = NULL;
    WkError err;
    int out = -1;
    const char *bad = "scheduler: {name: lend, lend: maybe}\n";
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&doc, "s.yaml", bad, strlen(bad), &err), 0);
    assert_true(wk_sched_lend_accepts_ai(wk_node_get(doc->root, "scheduler"), &out, &err) < 0);
    assert_string_equal(err.where, "s.yaml:1:31");
    wk_doc_free(doc);
}

static void test_hpc_job_is_never_preempted_by_a_preempting_policy(void **state)
{
    (void)state;
    /* a low-priority HPC job holds both nodes; a high-priority AI job that
     * would preempt any lower class waits for it instead */
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {sku: H100-SXM-80G, nodes: 2}\n"
                  "scheduler: {name: priority, preempt: true}\n"
                  "workload:\n  source: inline\n  jobs:\n"
                  "    - {submit: 0, kind: hpc, nodes: 2, duration: 4h, priority: 0}\n"
                  "    - {submit: 1h, gpus: 8, duration: 1h, priority: 5}\n",
                  NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 0).preemptions, 0);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 4 * WK_NS_PER_H);
    assert_int_equal((int)test_metric(&t, "preemptions"), 0);
    test_run_free(&t);
}

static void test_hpc_job_restarts_whole_where_an_elastic_job_shrinks(void **state)
{
    (void)state;
    /* at 1 h node 2 dies under the elastic model job (nodes 0-7), which
     * shrinks, and node 9 under the HPC job (nodes 8-11), which restarts
     * from its checkpoint on 32 GPUs again */
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {nodes: 16}\n"
                  "failures:\n  enabled: false\n  health_check: 0s\n"
                  "  incidents: [{at: 1h, kind: down, node: 2, duration: 30d},"
                  " {at: 1h, kind: down, node: 9, duration: 2h}]\n"
                  "checkpoint: {interval: 30m, launch: 60s}\n"
                  "workload:\n  source: inline\n  jobs:\n"
                  "    - {submit: 0, gpus: 64, model: {base: llama3-8b, global_batch: 512, elastic: true},"
                  " iterations: 2000}\n"
                  "    - {submit: 0, kind: hpc, nodes: 4, duration: 3h}\n",
                  NULL);
    assert_int_equal((int)test_metric(&t, "elastic_shrinks"), 1);
    assert_int_equal(wk_run_hooks_workload(t.run)->jobs[1].gpus, 32);
    assert_int_equal(wk_run_hooks_job(t.run, 1).interruptions, 1);
    assert_int_equal(wk_run_hooks_job(t.run, 1).state, WK_JOB_COMPLETED);
    test_run_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inline_hpc_job_reads_kind_and_nodes_and_resolves_them),
        cmocka_unit_test(test_bad_kind_and_nodes_values_are_positioned_errors),
        cmocka_unit_test(test_synthetic_hpc_entry_draws_default_node_counts_and_run_times),
        cmocka_unit_test(test_nodes_on_a_cluster_of_mixed_node_sizes_is_refused),
        cmocka_unit_test(test_cpu_node_sku_is_one_device_per_node_and_refuses_model_jobs),
        cmocka_unit_test(test_lend_preempts_the_newest_ai_job_for_an_hpc_job),
        cmocka_unit_test(test_lend_false_rejects_ai_jobs_and_serves_hpc_alone),
        cmocka_unit_test(test_lend_accepts_ai_is_false_only_for_lend_false),
        cmocka_unit_test(test_hpc_job_is_never_preempted_by_a_preempting_policy),
        cmocka_unit_test(test_hpc_job_restarts_whole_where_an_elastic_job_shrinks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
