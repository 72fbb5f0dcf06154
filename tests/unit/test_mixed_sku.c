/* SPDX-License-Identifier: Apache-2.0 */
/* test_mixed_sku.c — placement on a cluster of two GPU memory sizes (issue
 * #29): every built-in policy runs a model job that fits only the larger
 * group on that group, small group listed first; the host's fit check and
 * wk_sched_place_job; the pre-run check refuses a job only when no group
 * can hold it; a placement where the job does not fit is refused by name;
 * priority's preemption counts only the GPUs that hold the head. */
#include "tests/unit/testutil.h"

#include "models/run/hooks.h"
#include "models/sched/host.h"

/* A100 with 40 GB (37.3 GiB) first, H200 (141 GB) second; llama3-8b on 8
 * GPUs needs 75.2 GiB per GPU: only the H200 group holds job 1. Job 0 is a
 * plain job on one node, so that the first free whole node is a small one
 * when job 1 arrives; job 2 (plain) fits anywhere. */
#define MIXED_CLUSTER                                                                          \
    "cluster:\n"                                                                               \
    "  skus:\n"                                                                                \
    "    - {name: A100-SXM-40G, base: A100-SXM-80G, hbm_gb: 40}\n"                             \
    "  groups:\n"                                                                              \
    "    - {name: small, sku: A100-SXM-40G, nodes: 2, gpus_per_node: 8}\n"                     \
    "    - {name: big, sku: H200-SXM, nodes: 2, gpus_per_node: 8}\n"

static const char *const mixed = MIXED_CLUSTER
    "workload:\n"
    "  source: inline\n"
    "  jobs:\n"
    "    - {submit: 0, gpus: 8, duration: 10m}\n"
    "    - {submit: 1m, gpus: 8, model: llama3-8b, iterations: 20}\n"
    "    - {submit: 2m, gpus: 4, duration: 5m}\n"
    "    - {submit: 3m, gpus: 16, model: llama3-8b, iterations: 10}\n";

#define SMALL_GPUS 16u

static void run_policy(TestRun *t, const char *name)
{
    char y[2048];
    snprintf(y, sizeof y, "%sscheduler: %s\n", mixed, name);
    test_run_yaml(t, y, NULL);
}

/* Job j completed and every GPU it last held is in the big group. */
static void expect_on_big(const TestRun *t, uint32_t j, const char *name)
{
    WkRunJobView v = wk_run_hooks_job(t->run, j);
    if (v.state != WK_JOB_COMPLETED)
        fail_msg("%s: job %u did not complete (state %d)", name, j, v.state);
    assert_non_null(v.gpus);
    for (uint32_t k = 0; k < v.ngpus; k++)
        if (v.gpus[k] < SMALL_GPUS)
            fail_msg("%s: job %u ran on GPU %u of the small group", name, j, v.gpus[k]);
}

static void test_every_policy_runs_the_big_job_on_the_big_group(void **state)
{
    (void)state;
    for (const WkSchedOps *const *o = wk_sched_registry(); *o; o++) {
        TestRun t;
        run_policy(&t, (*o)->name);
        expect_on_big(&t, 1, (*o)->name);
        expect_on_big(&t, 3, (*o)->name);
        if (test_metric(&t, "jobs_completed") != 4)
            fail_msg("%s: %g of 4 jobs completed", (*o)->name, test_metric(&t, "jobs_completed"));
        test_run_free(&t);
    }
}

static void test_fit_check_and_place_job(void **state)
{
    (void)state;
    TestRun t;
    run_policy(&t, "fifo"); /* finished: every GPU free */
    const WkSchedCtx *ctx = &wk_run_hooks_sched(t.run)->ctx;
    assert_true(wk_sched_job_mem_need(ctx, 1) > 40e9);
    assert_true(wk_sched_job_mem_need(ctx, 0) == 0); /* plain */
    assert_false(wk_sched_job_fits_gpu(ctx, 1, 0));
    assert_false(wk_sched_job_fits_gpu(ctx, 1, SMALL_GPUS - 1));
    assert_true(wk_sched_job_fits_gpu(ctx, 1, SMALL_GPUS));
    assert_true(wk_sched_job_fits_gpu(ctx, 0, 0));
    uint32_t out[16];
    const WkPlacement how[] = {WK_PLACE_EXCLUSIVE, WK_PLACE_FIRST_FIT, WK_PLACE_PACK, WK_PLACE_SPREAD,
                               WK_PLACE_ROUND_ROBIN};
    for (size_t i = 0; i < sizeof how / sizeof *how; i++) {
        assert_int_equal(wk_sched_place_job(ctx, 1, how[i], out, NULL, NULL), 0);
        for (uint32_t k = 0; k < 8; k++)
            assert_true(out[k] >= SMALL_GPUS);
        assert_int_equal(wk_sched_place_job(ctx, 3, how[i], out, NULL, NULL), 0); /* the whole big group */
        assert_int_equal(wk_sched_place_job(ctx, 0, WK_PLACE_FIRST_FIT, out, NULL, NULL), 0);
        assert_int_equal(out[0], 0); /* a plain job anywhere: the first GPUs */
    }
    test_run_free(&t);
}

/* A policy that places every job first-fit, whatever it needs. */
static int naive_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    (void)priv;
    uint32_t out[16], n = wk_sched_job_gpus(ctx, job);
    if (wk_sched_first_fit(ctx, n, out) < 0)
        return 0;
    return wk_sched_start(ctx, job, out, n, err);
}
static int naive_release(void *priv, WkSchedCtx *ctx, WkError *err)
{
    (void)priv;
    (void)ctx;
    (void)err;
    return 0;
}
static size_t naive_queued(const void *priv)
{
    (void)priv;
    return 0;
}
static int naive_init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)priv;
    (void)params;
    (void)ctx;
    (void)err;
    return 0;
}

static void test_a_placement_that_does_not_fit_is_refused_by_name(void **state)
{
    (void)state;
    static const WkSchedOps naive = {.abi = WK_SCHED_ABI, .name = "naive", .init = naive_init,
                                     .on_submit = naive_submit, .on_release = naive_release,
                                     .queued = naive_queued};
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    WkError err;
    wk_error_clear(&err);
    const char *y = MIXED_CLUSTER "workload:\n  source: inline\n  jobs:\n"
                                  "    - {submit: 0, gpus: 8, model: llama3-8b, iterations: 5}\n"
                                  "scheduler: fifo\n";
    assert_int_equal(wk_doc_load_string(&doc, "t.yaml", y, strlen(y), &err), 0);
    assert_int_equal(wk_run_prepare(&run, doc, NULL, &err), 0);
    WkSchedInst *si = wk_run_hooks_sched(run);
    void *keep = si->priv;
    const WkSchedOps *keep_ops = si->ops;
    si->ops = &naive;
    int rc = wk_run_execute(run, &err);
    si->ops = keep_ops;
    si->priv = keep;
    assert_int_equal(rc, WK_E_INTERNAL);
    assert_non_null(strstr(err.msg, "scheduler naive: job 0"));
    assert_non_null(strstr(err.msg, "node group 'small'"));
    assert_non_null(strstr(err.msg, "does not fit"));
    assert_int_equal(wk_run_hooks_job(run, 0).state, WK_JOB_QUEUED); /* nothing changed */
    assert_int_equal(wk_run_hooks_pool(run)->nfree, 32);
    wk_run_free(run);
    wk_doc_free(doc);
}

static void test_prerun_check_refuses_only_what_no_group_holds(void **state)
{
    (void)state;
    WkError err;
    /* fits the big group only: accepted (the small group first) */
    assert_int_equal(test_prepare_yaml(MIXED_CLUSTER "workload:\n  source: inline\n  jobs:\n"
                                                     "    - {submit: 0, gpus: 8, model: llama3-8b, iterations: 5}\n",
                                       &err),
                     0);
    /* llama3-70b on 8 GPUs (tp 8) fits no group: refused, naming the job and the largest memory */
    assert_int_equal(test_prepare_yaml(MIXED_CLUSTER "workload:\n  source: inline\n  jobs:\n"
                                                     "    - {submit: 0, gpus: 4, duration: 1m}\n"
                                                     "    - {submit: 0, gpus: 8, model: {base: llama3-70b, tp: 8, pp: 1}, "
                                                     "iterations: 5}\n",
                                       &err),
                     WK_E_RANGE);
    assert_non_null(strstr(err.msg, "job 1 (model llama3-70b on 8 GPUs): no node group holds it"));
    assert_non_null(strstr(err.msg, "H200-SXM"));
    assert_non_null(strstr(err.msg, "largest GPU memory of the cluster, group 'big'"));
}

/* priority with preempt: a blocked high-priority job that fits only the big
 * group preempts a job there, never one on the small group (its GPUs
 * would not hold it). Job 0 (model, low priority) runs on the big group,
 * job 1 (plain, low priority, started later: the first victim by age) on
 * the small one; job 2 (model, high priority) must preempt job 0. */
static void test_priority_preempts_only_where_the_head_fits(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  MIXED_CLUSTER "workload:\n  source: inline\n  jobs:\n"
                                "    - {submit: 0, gpus: 16, model: llama3-8b, iterations: 2000}\n"
                                "    - {submit: 10s, gpus: 16, duration: 2h}\n"
                                "    - {submit: 1m, gpus: 8, model: llama3-8b, iterations: 10, priority: 5}\n"
                                "scheduler: {name: priority, preempt: true, preemption_cost: 1m}\n",
                  NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 1).preemptions, 0);
    assert_int_equal(wk_run_hooks_job(t.run, 0).preemptions, 1);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 60 * WK_NS_PER_S);
    expect_on_big(&t, 2, "priority");
    test_run_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_policy_runs_the_big_job_on_the_big_group),
        cmocka_unit_test(test_fit_check_and_place_job),
        cmocka_unit_test(test_a_placement_that_does_not_fit_is_refused_by_name),
        cmocka_unit_test(test_prerun_check_refuses_only_what_no_group_holds),
        cmocka_unit_test(test_priority_preempts_only_where_the_head_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
