/* SPDX-License-Identifier: Apache-2.0 */
/* test_broker_conform.c — the broker conformance checks
 * (models/broker/conform.h): every built-in broker passes each of them, and
 * each check fails a broker that breaks the part of the contract it holds:
 * an infeasible or out-of-range site, -1 while a site can run the job, a
 * call about a site that does not exist, choices that depend on more than
 * the network's state, an init that refuses no parameters or the common
 * keys, a broker that breaks beyond a few sites. */
#include "tests/unit/testutil.h"

#include "models/broker/conform.h"

/* The verdict of the check called name on b; its message in msg. */
static int run_check(const char *name, const WkBrokerOps *b, char *msg, size_t n)
{
    for (size_t i = 0; i < wk_broker_conform_count(); i++)
        if (strcmp(wk_broker_conform_name(i), name) == 0) {
            WkError err;
            wk_error_clear(&err);
            int rc = wk_broker_conform_run(i, b, msg, n, &err);
            assert_true(rc >= 0);
            return rc;
        }
    fail_msg("no check '%s'", name);
    return -1;
}

static void expect_failure(const char *check, const WkBrokerOps *b, const char *says)
{
    char msg[512];
    assert_int_equal(run_check(check, b, msg, sizeof msg), 1);
    if (!strstr(msg, says))
        fail_msg("check %s of broker %s: expected '%s' in '%s'", check, b->name, says, msg);
    assert_non_null(strstr(msg, b->name));
}

static void test_broker_conform_passes_every_builtin(void **state)
{
    (void)state;
    size_t nb = 0;
    for (const WkBrokerOps *const *b = wk_broker_registry(); *b; b++, nb++)
        for (size_t i = 0; i < wk_broker_conform_count(); i++) {
            char msg[512];
            WkError err;
            wk_error_clear(&err);
            int rc = wk_broker_conform_run(i, *b, msg, sizeof msg, &err);
            if (rc != 0)
                fail_msg("broker %s, check %s: %s", (*b)->name, wk_broker_conform_name(i), msg);
        }
    assert_int_equal(nb, 6);
    assert_int_equal(wk_broker_conform_count(), 4);
}

/* ---- brokers that break the contract ---- */

static int32_t first_feasible(const WkBrokerCtx *c, uint32_t job)
{
    for (uint32_t s = 0; s < wk_broker_sites(c); s++)
        if (wk_broker_feasible(c, job, s))
            return (int32_t)s;
    return -1;
}

static int32_t always_zero(void *p, const WkBrokerCtx *c, uint32_t job)
{
    (void)p, (void)c, (void)job;
    return 0; /* whether or not site 0 can run it */
}

static int32_t always_none(void *p, const WkBrokerCtx *c, uint32_t job)
{
    (void)p, (void)c, (void)job;
    return -1;
}

static int32_t past_the_end(void *p, const WkBrokerCtx *c, uint32_t job)
{
    (void)p;
    return first_feasible(c, job) < 0 ? -1 : (int32_t)wk_broker_sites(c);
}

static int32_t asks_past_the_end(void *p, const WkBrokerCtx *c, uint32_t job)
{
    (void)p;
    (void)wk_broker_run_s(c, job, wk_broker_sites(c));
    return first_feasible(c, job);
}

static int32_t wrong_job(void *p, const WkBrokerCtx *c, uint32_t job)
{
    (void)p;
    (void)wk_broker_transfer_s(c, job + 1, 0);
    return first_feasible(c, job);
}

/* The k-th feasible site by a counter shared by every instance: depends
 * on who else called it, not on the network. */
static int32_t shared_counter(void *p, const WkBrokerCtx *c, uint32_t job)
{
    (void)p;
    static unsigned calls;
    uint32_t ok[WK_BROKER_MAX_SITES], n = 0;
    for (uint32_t s = 0; s < wk_broker_sites(c); s++)
        if (wk_broker_feasible(c, job, s))
            ok[n++] = s;
    return n ? (int32_t)ok[calls++ % n] : -1;
}

/* Written for at most 8 sites: beyond, it gives up. */
static int32_t eight_sites(void *p, const WkBrokerCtx *c, uint32_t job)
{
    (void)p;
    return wk_broker_sites(c) > 8 ? -1 : first_feasible(c, job);
}

static int32_t good_choose(void *p, const WkBrokerCtx *c, uint32_t job)
{
    (void)p;
    return first_feasible(c, job);
}

static int needs_params(void *p, const WkNode *params, const WkBrokerCtx *c, WkError *err)
{
    (void)p, (void)c;
    if (!params)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "needs a map");
    return 0;
}

static int name_only(void *p, const WkNode *params, const WkBrokerCtx *c, WkError *err)
{
    static const char *const keys[] = {"name", NULL}; /* forgets WK_BROKER_COMMON_KEYS */
    (void)p, (void)c;
    return params ? wk_node_expect_keys(params, keys, err) : 0;
}

#define BROKER(var, nm, ini, cho) static const WkBrokerOps var = {.abi = WK_BROKER_ABI, .name = nm, .init = ini, .choose = cho}
BROKER(b_zero, "always-zero", NULL, always_zero);
BROKER(b_none, "always-none", NULL, always_none);
BROKER(b_end, "past-the-end", NULL, past_the_end);
BROKER(b_ask, "asks-past-the-end", NULL, asks_past_the_end);
BROKER(b_job, "wrong-job", NULL, wrong_job);
BROKER(b_counter, "shared-counter", NULL, shared_counter);
BROKER(b_eight, "eight-sites", NULL, eight_sites);
BROKER(b_params, "needs-params", needs_params, good_choose);
BROKER(b_keys, "name-only", name_only, good_choose);

static void test_broker_conform_catches_infeasible_choice(void **state)
{
    (void)state;
    expect_failure("choice", &b_zero, "which cannot run it there");
    expect_failure("sizes", &b_zero, "none can: -1 was due");
}

static void test_broker_conform_catches_minus_one_while_feasible(void **state)
{
    (void)state;
    expect_failure("choice", &b_none, "returned -1 for job");
}

static void test_broker_conform_catches_out_of_range_site(void **state)
{
    (void)state;
    expect_failure("choice", &b_end, "not a site of");
}

static void test_broker_conform_catches_bad_call_arguments(void **state)
{
    (void)state;
    expect_failure("choice", &b_ask, "called wk_broker_run_s with site");
    expect_failure("choice", &b_job, "called wk_broker_transfer_s with site 0");
}

static void test_broker_conform_catches_nondeterminism(void **state)
{
    (void)state;
    expect_failure("determinism", &b_counter, "not deterministic");
    assert_int_equal(run_check("choice", &b_counter, (char[256]){0}, 256), 0); /* otherwise it keeps the contract */
}

static void test_broker_conform_catches_failure_at_many_sites(void **state)
{
    (void)state;
    expect_failure("sizes", &b_eight, "64 sites");
}

static void test_broker_conform_catches_init_refusing_defaults(void **state)
{
    (void)state;
    expect_failure("init", &b_params, "init with no parameters failed");
    expect_failure("init", &b_keys, "unknown key 'plugin'");
    assert_int_equal(run_check("choice", &b_keys, (char[256]){0}, 256), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broker_conform_passes_every_builtin),
        cmocka_unit_test(test_broker_conform_catches_infeasible_choice),
        cmocka_unit_test(test_broker_conform_catches_minus_one_while_feasible),
        cmocka_unit_test(test_broker_conform_catches_out_of_range_site),
        cmocka_unit_test(test_broker_conform_catches_bad_call_arguments),
        cmocka_unit_test(test_broker_conform_catches_nondeterminism),
        cmocka_unit_test(test_broker_conform_catches_failure_at_many_sites),
        cmocka_unit_test(test_broker_conform_catches_init_refusing_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
