/* SPDX-License-Identifier: Apache-2.0 */
/* test_conformance.c — the contract every registered scheduling policy keeps,
 * one cmocka group per entry of wk_sched_registry(), one test per check of
 * models/sched/conform/conform.h (the same checks `wanka conformance` runs on a
 * plugin): no GPU double-allocated, whole gangs, every job completed or
 * rejected with a reason, determinism, exact GPU-second conservation,
 * incident-hit jobs restarted, keys. The method (a guard between the run and
 * the policy) is described in models/sched/conform/conform.c. */
#include "tests/unit/testutil.h"

#include "models/sched/conform/conform.h"

typedef struct {
    const WkSchedOps *ops;
    size_t check;
} Case;

static void test_policy_keeps_check(void **state)
{
    const Case *k = *state;
    char msg[1024];
    WkError err;
    wk_error_clear(&err);
    int rc = wk_conform_run(k->check, k->ops->name, NULL, 0, msg, sizeof msg, &err);
    if (rc < 0)
        fail_msg("%s: %s: could not check: %s", k->ops->name, wk_conform_name(k->check), err.msg);
    if (rc != 0)
        fail_msg("%s: %s", wk_conform_name(k->check), msg);
}

/* A policy that breaks the contract fails the checks: see the plugin
 * test (tests/plugin/test_plugin.sh, bad-reject). Here: the library's own
 * answers for a name it cannot run and a check that does not exist. */
static void test_checks_fail_a_broken_policy(void **state)
{
    (void)state;
    char msg[512];
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_conform_run(1, "no-such-policy", NULL, 0, msg, sizeof msg, &err), 1);
    assert_non_null(strstr(msg, "unknown scheduler"));
    assert_true(wk_conform_run(wk_conform_count(), "fifo", NULL, 0, msg, sizeof msg, &err) < 0);
}

int main(void)
{
    int failed = 0;
    size_t nc = wk_conform_count();
    for (const WkSchedOps *const *p = wk_sched_registry(); *p; p++) {
        Case cases[16];
        struct CMUnitTest tests[16];
        assert_true(nc <= 16);
        for (size_t i = 0; i < nc; i++) {
            cases[i] = (Case){*p, i};
            tests[i] = (struct CMUnitTest){.name = wk_conform_name(i), .test_func = test_policy_keeps_check,
                                           .initial_state = &cases[i]};
        }
        print_message("policy %s\n", (*p)->name);
        failed += _cmocka_run_group_tests((*p)->name, tests, nc, NULL, NULL);
    }
    const struct CMUnitTest own[] = {cmocka_unit_test(test_checks_fail_a_broken_policy)};
    failed += cmocka_run_group_tests_name("conformance-library", own, NULL, NULL);
    return failed;
}
