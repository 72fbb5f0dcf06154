/* SPDX-License-Identifier: Apache-2.0 */
/* test_outsource.c — the §3.1 work outsourcing (models/mech/outsource.h):
 * its keys and their positioned errors, the borrowing rule's closed form,
 * and a run worked by hand: a model job borrows the nodes a plain job
 * leaves idle, hands two of them back the instant a new job arrives that
 * fits only with them, and finishes when its iteration times at 8, 32 and
 * 16 GPUs and the documented restart steps say it must. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/mech/outsource.h"
#include "models/topo/cluster.h"

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

static void test_keys_defaults_and_positioned_errors(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    wk_error_clear(&err);
    if (wk_cluster_parse(wk_node_get(yaml_root("cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8}\n"),
                                     "cluster"), &c, &err) < 0)
        fail_msg("%s", err.msg);
    WkOutsourceSpec s;
    int on = 1;
    assert_int_equal(wk_outsource_parse(yaml_root("name: x\n"), &c, &s, &on, &err), 0);
    assert_int_equal(on, 0);
    assert_int_equal(wk_outsource_parse(yaml_root("mechanisms: {cascade: {}}\n"), &c, &s, &on, &err), 0);
    assert_int_equal(on, 0);
    assert_int_equal(wk_outsource_parse(yaml_root("mechanisms: {outsourcing: {}}\n"), &c, &s, &on, &err), 0);
    assert_true(on == 1 && s.max_nodes == 0 && s.elastic_only == 0);
    assert_int_equal(wk_outsource_parse(yaml_root("mechanisms: {outsourcing: {max_nodes: 4, elastic_only: true}}\n"),
                                        &c, &s, &on, &err), 0);
    assert_true(s.max_nodes == 4 && s.elastic_only == 1);
    static const char *const bad[][2] = {
        {"mechanisms: {outsourcing: {max_nodes: 5}}\n", "max_nodes"},
        {"mechanisms: {outsourcing: {max_nodes: -1}}\n", "max_nodes"},
        {"mechanisms: {outsourcing: {elastic_only: 2}}\n", "elastic_only"},
        {"mechanisms: {outsourcing: {share: 1}}\n", "share"},
        {"mechanisms: {outsource: {}}\n", "outsource"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wk_error_clear(&err);
        assert_true(wk_outsource_parse(yaml_root(bad[i][0]), &c, &s, &on, &err) < 0);
        if (!strstr(err.msg, bad[i][1]) && !strstr(err.where, bad[i][1]))
            fail_msg("%s: error lacks '%s': %s: %s", bad[i][0], bad[i][1], err.where, err.msg);
        assert_non_null(strstr(err.where, "t.yaml:1:"));
    }
    wk_cluster_fini(&c);
}

/* left x (t0 - t1) - grow - back: 1000 iterations from 10 s to 6 s save
 * 4000 s; costs of 650 s and 650 s leave 2700 s. */
static void test_borrowing_rule_closed_form(void **state)
{
    (void)state;
    assert_true(fabs(wk_outsource_net_gain_s(1000, 10, 6, 650, 650) - 2700) < 1e-9);
    assert_true(wk_outsource_net_gain_s(100, 10, 6, 650, 650) < 0); /* 400 s saved: not worth 1,300 s */
    assert_true(wk_outsource_net_gain_s(1e6, 10, 10.5, 0, 0) < 0);  /* slower with more replicas */
}

/* 4 nodes of 8 H100; llama3-8b with TP 8 (one replica per node) and a
 * global batch of 384 (it splits into 1 to 4 replicas). Job 0: the model
 * job on 1 node, N iterations. Job 1: a plain job on 3 nodes for 2 h.
 * Job 2: a plain job of 16 GPUs submitted at 5 h, for 1,000 h. */
#define N_ITER 20000.0
static const char *const base_yaml =
    "name: outsourcing\nseed: 1\n"
    "cluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8, fabric: {kind: fat-tree}}\n"
    "models: {m: {base: llama3-8b, tp: 8, global_batch: 384}}\n";

static void run(TestRun *t, const char *jobs, const char *mech)
{
    char y[4096];
    snprintf(y, sizeof y, "%sworkload: {source: inline, jobs: [%s]}\n%s", base_yaml, jobs, mech);
    test_run_yaml(t, y, NULL);
}

/* Iteration time of job 0 alone on n GPUs (no mechanism). */
static double tau(uint32_t n)
{
    char j[256];
    snprintf(j, sizeof j, "{submit: 0, gpus: %u, model: m, iterations: %.0f}", n, N_ITER);
    TestRun t;
    run(&t, j, "");
    double v = test_metric(&t, "jct_mean_s") / N_ITER;
    test_run_free(&t);
    return v;
}

/* The elastic restart of docs/models.md with the defaults: drain 30 s,
 * relaunch 600 s, communicator init 2.5 ms per GPU, checkpoint load of
 * params x 14 B at 1 TB/s, warm-up 20 s. */
static double restart_s(double params, uint32_t n) { return 30 + 600 + 2.5e-3 * n + params * 14 / 1e12 + 20; }

static void test_borrow_and_hand_back_worked_by_hand(void **state)
{
    (void)state;
    const double tb = 2 * 3600.0, tc = 5 * 3600.0;
    double t8 = tau(8), t16 = tau(16), t32 = tau(32);
    assert_true(t32 < t16 && t16 < t8);
    const char *jobs = "{submit: 0, gpus: 8, model: m, iterations: 20000},"
                       " {submit: 0, gpus: 24, duration: 2h}, {submit: 5h, gpus: 16, duration: 1000h}";
    TestRun off, on;
    run(&off, jobs, "");
    run(&on, jobs, "mechanisms: {outsourcing: {}}\n");
    double params = on.run->wl.models[on.run->wl.jobs[0].model - 1].params;
    /* off: job 0 runs at t8 throughout, job 2 starts on the free nodes */
    double jct_off = wk_time_to_s(off.run->rt[0].end);
    assert_true(fabs(jct_off - N_ITER * t8) < 1e-6 * jct_off);
    /* on: at 2 h it grows to 32 GPUs (restart at 32), at 5 h it hands two
     * nodes back (restart at 16) and job 2 starts at once */
    double done_tc = tb / t8 + (tc - tb - restart_s(params, 32)) / t32;
    double want = tc + restart_s(params, 16) + (N_ITER - done_tc) * t16;
    double jct_on = wk_time_to_s(on.run->rt[0].end);
    if (fabs(jct_on - want) > 1e-6 * want)
        fail_msg("job 0: JCT %.6f s, worked by hand %.6f s (off: %.6f s)", jct_on, want, jct_off);
    assert_true(jct_on < jct_off);
    assert_true(wk_time_to_s(on.run->rt[2].start) == tc); /* no wait: the nodes came back for it */
    assert_int_equal(on.run->wl.jobs[0].gpus, 16);
    int mech = 0;
    WkOutsourceStats st = wk_outsource_stats(on.run, &mech);
    assert_true(mech == 1 && st.lends == 1 && st.returns == 1);
    double lent_h = (24 * (tc - tb) + 8 * (jct_on - tc)) / 3600;
    assert_true(fabs(test_metric(&on, "outsourcing_borrowed_gpu_hours") - lent_h) < 1e-6 * lent_h);
    assert_true(test_metric(&on, "outsourcing_lends") == 1 && test_metric(&on, "outsourcing_returns") == 1);
    /* off: no outsourcing rows at all */
    assert_null(wk_summary_get(&off.sum, "outsourcing_lends"));
    wk_outsource_stats(off.run, &mech);
    assert_int_equal(mech, 0);
    test_run_free(&off);
    test_run_free(&on);
}

/* Borrowing is refused when the time saved on what is left does not pay
 * for growing and handing back: about 17 iterations (of 50 s) to go at 2 h
 * save some 600 s, less than the two restarts (1,300 s). */
static void test_short_remainder_does_not_borrow(void **state)
{
    (void)state;
    TestRun t;
    run(&t, "{submit: 0, gpus: 8, model: m, iterations: 160}, {submit: 0, gpus: 24, duration: 2h}",
        "mechanisms: {outsourcing: {}}\n");
    assert_true(test_metric(&t, "outsourcing_lends") == 0);
    test_run_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_keys_defaults_and_positioned_errors, teardown),
        cmocka_unit_test_teardown(test_borrowing_rule_closed_form, teardown),
        cmocka_unit_test_teardown(test_borrow_and_hand_back_worked_by_hand, teardown),
        cmocka_unit_test_teardown(test_short_remainder_does_not_borrow, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
