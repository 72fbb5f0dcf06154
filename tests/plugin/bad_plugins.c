/* SPDX-License-Identifier: Apache-2.0 */
/* bad_plugins.c — broken scheduler plugins for the load-error tests
 * (tests/plugin/test_plugin.sh): one shared module per variant, chosen by
 * the macro BAD. Built against the public header only. Variants: abi (a
 * table of ABI 99), noname, nocallback (no on_release), nullops (the
 * function returns NULL), clash (a built-in's name), initerr (init returns
 * an error), crash (init dereferences NULL), crashrun (on_submit
 * dereferences NULL at job 3), nosym (exports a misspelt symbol), reject (loads and
 * inits, then rejects every job: fails conformance), loopinit (init never
 * returns), loopsubmit (on_submit never returns at job 3), dblstart
 * (on_submit starts job 0 on GPUs 0.. twice), exitinit (init calls
 * exit(0)), exitsubmit (on_submit calls exit(0) at job 3). */
#include <stddef.h>
#include <stdlib.h>

#include <wanka/sched.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* crash: a real null dereference, not UBSan's report of it (sanitizer builds) */
#if defined(BAD_crash) && defined(__GNUC__)
__attribute__((no_sanitize("undefined")))
#endif
static int bad_init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    (void)priv;
    (void)params;
    (void)ctx;
#if defined(BAD_initerr)
    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "this policy refuses to start (test)");
#elif defined(BAD_crash)
    (void)err;
    volatile int *volatile nowhere = NULL;
    return *nowhere;
#elif defined(BAD_exitinit)
    (void)err;
    exit(0);
#elif defined(BAD_loopinit)
    (void)err;
    for (volatile int spin = 1; spin;)
        ;
    return 0;
#else
    (void)err;
    return 0;
#endif
}

#if defined(BAD_crashrun) && defined(__GNUC__)
__attribute__((no_sanitize("undefined")))
#endif
static int bad_submit(void *priv, WkSchedCtx *ctx, uint32_t job, WkError *err)
{
    (void)priv;
#if defined(BAD_crashrun)
    if (job == 3) {
        volatile int *volatile nowhere = NULL;
        return *nowhere;
    }
#elif defined(BAD_exitsubmit)
    if (job == 3)
        exit(0);
#elif defined(BAD_loopsubmit)
    if (job == 3)
        for (volatile int spin = 1; spin;)
            ;
#elif defined(BAD_dblstart)
    if (job == 0) {
        uint32_t gpus[64], n = wk_sched_job_gpus(ctx, job);
        for (uint32_t g = 0; g < n && g < 64; g++)
            gpus[g] = g;
        int rc = wk_sched_start(ctx, job, gpus, n, err);
        return rc < 0 ? rc : wk_sched_start(ctx, job, gpus, n, err);
    }
#endif
    return wk_sched_reject(ctx, job, "test plugin", err);
}

#if !defined(BAD_nocallback)
static int bad_release(void *priv, WkSchedCtx *ctx, WkError *err)
{
    (void)priv;
    (void)ctx;
    (void)err;
    return 0;
}
#endif

static size_t bad_queued(const void *priv)
{
    (void)priv;
    return 0;
}

static const WkSchedOps ops = {
#if defined(BAD_abi)
    .abi = 99,
#else
    .abi = WK_SCHED_ABI,
#endif
#if defined(BAD_noname)
    .name = NULL,
#elif defined(BAD_escname)
    .name = "bad\x1b[31mname",
#elif defined(BAD_clash)
    .name = "fifo",
#else
    .name = "bad-" STR(BAD),
#endif
    .description = "a broken plugin for tests",
    .init = bad_init,
    .on_submit = bad_submit,
#if !defined(BAD_nocallback)
    .on_release = bad_release,
#endif
    .queued = bad_queued,
};

#if !defined(BAD_nosym)
const WkSchedOps *wk_sched_plugin(void);
const WkSchedOps *wk_sched_plugin(void)
{
#if defined(BAD_nullops)
    static const WkSchedOps *volatile none = NULL;
    (void)&ops;
    return none;
#else
    return &ops;
#endif
}
#else
const WkSchedOps *wk_sched_plugin_misspelt(void);
const WkSchedOps *wk_sched_plugin_misspelt(void) { return &ops; }
#endif
