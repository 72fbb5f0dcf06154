/* SPDX-License-Identifier: Apache-2.0 */
/* bad_brokers.c — broken broker plugins for the tests of
 * tests/plugin/test_broker_plugin.sh: one shared module per variant, chosen
 * by the macro BAD_<variant>. Built against the public header only.
 * Variants: abi (a table of ABI 99), nosym (exports a misspelt symbol),
 * nochoose (no choose), clash (a built-in's name), initerr (init returns an
 * error), infeasible (loads, then always chooses site 0, whether or not it
 * can run the job: fails conformance), crash (choose dereferences NULL),
 * loop (choose never returns at job 3), minus7 (choose returns -7, neither
 * a site nor -1), escname (a name holding an escape sequence), recurse
 * (choose recurses without end at job 3: a stack overflow). */
#include <stddef.h>

#include <wanka/broker.h>

static int bad_init(void *priv, const WkNode *params, const WkBrokerCtx *ctx, WkError *err)
{
    (void)priv;
    (void)params;
    (void)ctx;
#if defined(BAD_initerr)
    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "this broker refuses to start (test)");
#else
    (void)err;
    return 0;
#endif
}

#if defined(BAD_recurse)
/* Not a tail call: each level keeps 4 KiB of stack; never stops (stop
 * stays 0, but the compiler cannot know). */
static volatile int stop;
static int depth(int n)
{
    volatile char b[4096];
    b[0] = (char)n;
    if (stop)
        return 0;
    /* the frame is read after the call, so no optimisation level turns
     * the recursion into a loop (an accumulator would at -O2) */
    b[1] = (char)depth(n + 1);
    return b[0] ^ b[1];
}
#endif

#if !defined(BAD_nochoose)
#if defined(BAD_crash) && defined(__GNUC__)
__attribute__((no_sanitize("undefined")))
#endif
static int32_t bad_choose(void *priv, const WkBrokerCtx *ctx, uint32_t job)
{
    (void)priv;
#if defined(BAD_crash)
    if (job >= 3) {
        volatile int *volatile nowhere = NULL;
        return *nowhere;
    }
#elif defined(BAD_infeasible)
    (void)ctx;
    (void)job;
    return 0;
#elif defined(BAD_loop)
    if (job >= 3)
        for (volatile int spin = 1; spin;)
            ;
#elif defined(BAD_recurse)
    if (job >= 3)
        return depth(1);
#elif defined(BAD_minus7)
    (void)ctx;
    (void)job;
    return -7;
#endif
    for (uint32_t s = 0; s < wk_broker_sites(ctx); s++)
        if (wk_broker_feasible(ctx, job, s))
            return (int32_t)s;
    return -1;
}
#endif

static const WkBrokerOps ops = {
#if defined(BAD_abi)
    .abi = 99,
#else
    .abi = WK_BROKER_ABI,
#endif
#if defined(BAD_clash)
    .name = "least-loaded",
#elif defined(BAD_escname)
    .name = "bad\x1b[31mname",
#else
    .name = "bad-" BAD,
#endif
    .description = "a broken broker for tests",
    .init = bad_init,
#if !defined(BAD_nochoose)
    .choose = bad_choose,
#endif
};

#if !defined(BAD_nosym)
const WkBrokerOps *wk_broker_plugin(void);
const WkBrokerOps *wk_broker_plugin(void) { return &ops; }
#else
const WkBrokerOps *wk_broker_plugin_misspelt(void);
const WkBrokerOps *wk_broker_plugin_misspelt(void) { return &ops; }
#endif
