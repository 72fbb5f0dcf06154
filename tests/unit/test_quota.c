/* SPDX-License-Identifier: Apache-2.0 */
/* test_quota.c — per-user GPU quotas (`workload.quotas`, Philly's virtual
 * clusters): a job waits while its user is at quota, in its user's line,
 * without blocking other users; a job larger than its quota runs alone;
 * `gpu_time` shares the cluster by the users' GPU-time. */
#include "tests/unit/testutil.h"

#include "models/run/hooks.h"

static void test_stated_quota_holds_a_user_not_the_others(void **state)
{
    (void)state;
    /* 16 GPUs, user a limited to 4. a1 holds 4 until 10 s; a2 (2 GPUs) waits
     * for it although 12 GPUs are free; b1 passes a2 under FIFO; a3 (8 GPUs,
     * more than a's quota) waits behind a2 and runs once a has nothing left. */
    const char *yaml = "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  quotas: {a: 4}\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 4, duration: 10s, user: a}\n"
                       "    - {submit: 1s, gpus: 2, duration: 5s, user: a}\n"
                       "    - {submit: 2s, gpus: 8, duration: 3s, user: b}\n"
                       "    - {submit: 3s, gpus: 8, duration: 1s, user: a}\n"
                       "    - {submit: 4s, gpus: 1, duration: 1s}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 0).start, 0);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 10 * WK_NS_PER_S);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 2 * WK_NS_PER_S);
    assert_int_equal(wk_run_hooks_job(t.run, 3).start, 15 * WK_NS_PER_S);
    assert_int_equal(wk_run_hooks_job(t.run, 4).start, 4 * WK_NS_PER_S); /* no user: no quota */
    assert_int_equal((int)test_metric(&t, "jobs_completed"), 5);
    /* waits 0, 9, 0, 12, 0 */
    assert_float_equal(test_metric(&t, "wait_mean_s"), 21.0 / 5.0, 1e-9);
    test_run_free(&t);

    /* without quotas only FIFO holds: a3 waits for b1's 8 GPUs (2 s), the
     * last job behind it (1 s) */
    char off[1024];
    snprintf(off, sizeof off, "%s", yaml);
    memcpy(strstr(off, "quotas: {a: 4}"), "quotas: none  ", 14);
    test_run_yaml(&t, off, NULL);
    assert_float_equal(test_metric(&t, "wait_mean_s"), 3.0 / 5.0, 1e-9);
    test_run_free(&t);
}

static void test_gpu_time_quota_is_the_users_share_of_the_cluster(void **state)
{
    (void)state;
    /* GPU-time: a 2 x 4 GPUs x 30 s + 1 x 120 = 360, b 4 x 30 = 120: on 16
     * GPUs a gets 12, b 4. b's second job (submitted with its first) waits
     * for it; a's three jobs (4 + 4 + 1 <= 12) run at once. */
    const char *yaml = "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  quotas: gpu_time\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 4, duration: 30s, user: a}\n"
                       "    - {submit: 0, gpus: 4, duration: 30s, user: a}\n"
                       "    - {submit: 0, gpus: 1, duration: 120s, user: a}\n"
                       "    - {submit: 0, gpus: 2, duration: 30s, user: b}\n"
                       "    - {submit: 0, gpus: 2, duration: 30s, user: b}\n"
                       "    - {submit: 0, gpus: 1, duration: 1s, user: b}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    for (uint32_t j = 0; j < 5; j++)
        assert_int_equal(wk_run_hooks_job(t.run, j).start, 0);
    assert_int_equal(wk_run_hooks_job(t.run, 5).start, 30 * WK_NS_PER_S); /* b at 4 of 4 */
    test_run_free(&t);
}

static void test_quota_errors_name_the_key(void **state)
{
    (void)state;
    WkError err;
    const char *base = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs: [{submit: 0, gpus: 1, duration: 1s, user: a}]\n";
    char y[512];
    snprintf(y, sizeof y, "%s  quotas: {z: 2}\n", base);
    assert_int_equal(test_prepare_yaml(y, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "workload.quotas.z: no job of this workload has user 'z'"));
    snprintf(y, sizeof y, "%s  quotas: {a: 0}\n", base);
    assert_int_equal(test_prepare_yaml(y, &err), WK_E_RANGE);
    snprintf(y, sizeof y, "%s  quotas: fair\n", base);
    assert_int_equal(test_prepare_yaml(y, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "expected none, gpu_time or a map"));
    assert_int_equal(test_prepare_yaml("cluster: {nodes: 1, gpus_per_node: 8}\n"
                                       "workload: {source: inline, quotas: gpu_time, jobs: [{submit: 0, gpus: 1, duration: 1s}]}\n",
                                       &err),
                     WK_E_INVAL);
    assert_non_null(strstr(err.msg, "no job of this workload has a user"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stated_quota_holds_a_user_not_the_others),
        cmocka_unit_test(test_gpu_time_quota_is_the_users_share_of_the_cluster),
        cmocka_unit_test(test_quota_errors_name_the_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
