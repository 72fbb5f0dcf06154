/* SPDX-License-Identifier: Apache-2.0 */
/* test_fair.c — bounded slowdown, Jain's index and finish-time fairness
 * (sim/trace/fair.h, docs/metrics.md "Slowdown and fairness") against values
 * computed by hand, and the same rows from a whole run's summary. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/workload/workload.h"
#include "sim/trace/fair.h"

/* Three jobs of two users on 8 GPUs (N = 2 users, so a fair share is 4 GPUs):
 *   j0 a: submit 0, start 0, end 100, 4 GPUs: bsld 100/100 = 1; ρ = 100 / (100 · max(1, 4·2/8)) = 1
 *   j1 a: submit 0, start 100, end 150, 8 GPUs: bsld 150/50 = 3; ρ = 150 / (50 · 2) = 1.5
 *   j2 b: submit 10, start 10, end 15, 2 GPUs: bsld max(1, 5/max(5, τ=10)) = 1; ρ = 5 / 5 = 1
 * bsld mean 5/3; p99 of (1, 1, 3): h = 2 · 0.99, 1 + 0.98 · 2 = 2.96.
 * users: a bsld 2, ρ 1.25; b bsld 1, ρ 1. Jain (2 + 1)² / (2 · (4 + 1)) = 0.9;
 * ftf mean 1.125, max 1.25. */
static const WkFairJob three[] = {
    {.submit_s = 0, .start_s = 0, .end_s = 100, .gpu_s = 400, .gpus = 4, .user = 1, .completed = 1},
    {.submit_s = 0, .start_s = 100, .end_s = 150, .gpu_s = 400, .gpus = 8, .user = 1, .completed = 1},
    {.submit_s = 10, .start_s = 10, .end_s = 15, .gpu_s = 10, .gpus = 2, .user = 2, .completed = 1},
};

static void test_three_jobs_two_users_by_hand(void **state)
{
    (void)state;
    WkFairUser u[2];
    WkFairResult res;
    assert_int_equal(wk_fair_compute(three, 3, 2, 8, WK_BSLD_TAU_S, u, &res), 0);
    assert_float_equal(res.bsld_mean, 5.0 / 3, 1e-12);
    assert_float_equal(res.bsld_p99, 2.96, 1e-12);
    assert_float_equal(res.jain, 0.9, 1e-12);
    assert_float_equal(res.ftf_mean, 1.125, 1e-12);
    assert_float_equal(res.ftf_max, 1.25, 1e-12);
    assert_int_equal(u[0].jobs, 2);
    assert_int_equal(u[0].completed, 2);
    assert_float_equal(u[0].gpu_h, 800.0 / 3600, 1e-12);
    assert_float_equal(u[0].wait_mean_s, 50, 1e-12);
    assert_float_equal(u[0].bsld_mean, 2, 1e-12);
    assert_float_equal(u[0].ftf, 1.25, 1e-12);
    assert_float_equal(u[1].wait_mean_s, 0, 1e-12);
    assert_float_equal(u[1].bsld_mean, 1, 1e-12);
    assert_float_equal(u[1].ftf, 1, 1e-12);
}

static void test_bounded_slowdown_threshold(void **state)
{
    (void)state;
    /* a 1 s job that waited 9 s: slowdown 10, bounded by τ = 10 s: 1 */
    assert_float_equal(wk_fair_bsld(0, 9, 10, 10), 1, 0);
    /* ... that waited 99 s: 100 / 10 = 10 (its plain slowdown is 100) */
    assert_float_equal(wk_fair_bsld(0, 99, 100, 10), 10, 1e-12);
    /* a long job never goes below 1 */
    assert_float_equal(wk_fair_bsld(0, 0, 1000, 10), 1, 0);
}

static void test_equal_users_are_perfectly_fair_and_no_users_give_nan(void **state)
{
    (void)state;
    WkFairJob j[2] = {
        {.submit_s = 0, .start_s = 20, .end_s = 40, .gpus = 1, .user = 1, .completed = 1},
        {.submit_s = 0, .start_s = 20, .end_s = 40, .gpus = 1, .user = 2, .completed = 1},
    };
    WkFairUser u[2];
    WkFairResult res;
    assert_int_equal(wk_fair_compute(j, 2, 2, 8, WK_BSLD_TAU_S, u, &res), 0);
    assert_float_equal(res.jain, 1, 1e-12);
    assert_float_equal(res.ftf_max, 2, 1e-12);
    /* no users: slowdown only */
    j[0].user = j[1].user = 0;
    assert_int_equal(wk_fair_compute(j, 2, 0, 8, WK_BSLD_TAU_S, NULL, &res), 0);
    assert_float_equal(res.bsld_mean, 2, 1e-12);
    assert_true(isnan(res.jain) && isnan(res.ftf_mean) && isnan(res.ftf_max));
    /* a job not completed counts for its user's jobs and wait, not its slowdown */
    j[0].user = 1;
    j[1].completed = 0;
    j[1].user = 1;
    assert_int_equal(wk_fair_compute(j, 2, 1, 8, WK_BSLD_TAU_S, u, &res), 0);
    assert_int_equal(u[0].jobs, 2);
    assert_int_equal(u[0].completed, 1);
    assert_float_equal(res.bsld_mean, 2, 1e-12);
}

/* The same three jobs as a scenario under FIFO: j2 arrives while j0 runs on
 * 4 of the 8 GPUs, but FIFO keeps it behind j1 (the head blocks). */
static void test_summary_rows_of_a_run(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "name: users3\n"
                  "cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
                  "workload:\n"
                  "  source: inline\n"
                  "  jobs:\n"
                  "    - {submit: 0, gpus: 4, duration: 100s, user: a}\n"
                  "    - {submit: 0, gpus: 8, duration: 50s, user: a}\n"
                  "    - {submit: 10s, gpus: 2, duration: 5s, user: b}\n"
                  "scheduler: fifo\n",
                  NULL);
    /* j2 starts at 150 after j1: bsld 145 / 10 = 14.5, ρ 145 / 5 = 29 */
    assert_float_equal(test_metric(&t, "bsld_mean"), (1 + 3 + 14.5) / 3, 1e-9);
    assert_float_equal(test_metric(&t, "bsld_tau_s"), 10, 0);
    assert_float_equal(test_metric(&t, "users"), 2, 0);
    assert_float_equal(test_metric(&t, "jain_users"), (2 + 14.5) * (2 + 14.5) / (2 * (4 + 14.5 * 14.5)), 1e-9);
    assert_float_equal(test_metric(&t, "ftf_max"), 29, 1e-9);
    assert_float_equal(test_metric(&t, "user.a.ftf"), 1.25, 1e-9);
    assert_float_equal(test_metric(&t, "user.b.wait_mean_s"), 140, 1e-9);
    assert_float_equal(test_metric(&t, "user.a.jobs"), 2, 0);
    test_run_free(&t);
}

static void test_bad_user_names_are_refused_with_position(void **state)
{
    (void)state;
    WkError err;
    wk_error_clear(&err);
    int rc = test_prepare_yaml("name: u\n"
                               "cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
                               "workload: {source: inline, jobs: [{gpus: 1, duration: 1s, user: 'a.b'}]}\n",
                               &err);
    assert_int_equal(rc, WK_E_INVAL);
    if (!strstr(err.where, ":3:") || !strstr(err.msg, "user name"))
        fail_msg("got '%s: %s'", err.where, err.msg);
}

static void test_user_table_limits(void **state)
{
    (void)state;
    WkWorkload w = {0};
    char name[40];
    for (int i = 0; i < WK_WORKLOAD_MAX_USERS; i++) {
        int k = snprintf(name, sizeof name, "u%d", i);
        assert_int_equal(wk_workload_user(&w, name, (size_t)k), i + 1);
    }
    assert_int_equal(wk_workload_user(&w, "u17", 3), 18); /* found again, not added */
    assert_int_equal(wk_workload_user(&w, "new", 3), WK_E_RANGE);
    assert_int_equal(wk_workload_user(&w, "", 0), WK_E_INVAL);
    assert_int_equal(wk_workload_user(&w, "abcdefghijklmnopqrstuvwxyz01234", 31), WK_E_INVAL); /* 31 bytes */
    assert_int_equal(wk_workload_user(&w, "a b", 3), WK_E_INVAL);
    wk_workload_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_jobs_two_users_by_hand),
        cmocka_unit_test(test_bounded_slowdown_threshold),
        cmocka_unit_test(test_equal_users_are_perfectly_fair_and_no_users_give_nan),
        cmocka_unit_test(test_summary_rows_of_a_run),
        cmocka_unit_test(test_bad_user_names_are_refused_with_position),
        cmocka_unit_test(test_user_table_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
