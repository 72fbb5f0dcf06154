/* SPDX-License-Identifier: Apache-2.0 */
/* test_gpu_share.c — GPU sharing (workload.gpu_sharing; docs/models.md,
 * "GPU sharing") in closed form: jobs with a share of a GPU (gpu_milli)
 * run together on one GPU while their shares fit, a pair that does not fit
 * takes two GPUs, the GPU stays held until its last tenant leaves (its
 * ownership passing on), a failure of a shared GPU hits every tenant, the
 * pool's own functions keep their counts, every built-in policy keeps the
 * books with shared GPUs, and a share is refused where it cannot apply. */
#include "tests/unit/testutil.h"

#include "models/run/hooks.h"

static wk_u128 alloc_ns(const TestRun *t)
{
    WkRunAccount a;
    wk_run_account(t->run, &a);
    return ((wk_u128)a.alloc_hi << 64) | a.alloc_lo;
}

/* Four 250-thousandths jobs of 10 s on one GPU: with sharing all four run
 * over [0, 10 s) on GPU 0 (makespan 10 s, the GPU allocated once: 10 GPU-s);
 * without, one after another (makespan 40 s, 40 GPU-s). */
static void test_four_quarter_jobs_share_one_gpu(void **state)
{
    (void)state;
    const char *fmt = "cluster: {nodes: 1, gpus_per_node: 1}\n"
                      "workload:\n"
                      "  source: inline\n"
                      "  gpu_sharing: %s\n"
                      "  jobs:\n"
                      "    - {submit: 0, gpus: 1, gpu_milli: 250, duration: 10s}\n"
                      "    - {submit: 0, gpus: 1, gpu_milli: 250, duration: 10s}\n"
                      "    - {submit: 0, gpus: 1, gpu_milli: 250, duration: 10s}\n"
                      "    - {submit: 0, gpus: 1, gpu_milli: 250, duration: 10s}\n";
    char yaml[1024];
    TestRun t;
    snprintf(yaml, sizeof yaml, fmt, "true");
    test_run_yaml(&t, yaml, NULL);
    for (uint32_t j = 0; j < 4; j++) {
        WkRunJobView v = wk_run_hooks_job(t.run, j);
        assert_int_equal(v.start, 0);
        assert_int_equal(v.end, 10 * WK_NS_PER_S);
        assert_int_equal(v.gpus[0], 0);
    }
    assert_float_equal(test_metric(&t, "makespan_s"), 10.0, 1e-12);
    assert_float_equal(test_metric(&t, "utilization"), 1.0, 1e-12);
    assert_float_equal(test_metric(&t, "util_effective"), 1.0, 1e-12); /* 4 x 0.25 of the GPU's work */
    assert_float_equal(test_metric(&t, "wait_mean_s"), 0.0, 1e-12);
    assert_true(alloc_ns(&t) == (wk_u128)10 * WK_NS_PER_S);
    const WkPool *p = wk_run_hooks_pool(t.run);
    assert_int_equal(p->nshared, 0);
    assert_int_equal(p->tenants, 0);
    assert_int_equal(p->alloc, 0);
    assert_int_equal(p->nfree, 1);
    test_run_free(&t);

    snprintf(yaml, sizeof yaml, fmt, "false");
    test_run_yaml(&t, yaml, NULL);
    assert_float_equal(test_metric(&t, "makespan_s"), 40.0, 1e-12);
    assert_true(alloc_ns(&t) == (wk_u128)40 * WK_NS_PER_S);
    test_run_free(&t);
}

/* 600 + 500 thousandths do not fit one GPU: on two GPUs both start at 0 on
 * different GPUs; on one GPU the 500 waits for the 600 to leave (10 s).
 * A third job of 400 then fits beside the 600 at once (best fit: the GPU
 * with 400 free, not the one with 500). */
static void test_shares_over_1000_take_two_gpus(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {nodes: 1, gpus_per_node: 2}\n"
                  "workload:\n"
                  "  source: inline\n"
                  "  gpu_sharing: true\n"
                  "  jobs:\n"
                  "    - {submit: 0, gpus: 1, gpu_milli: 600, duration: 10s}\n"
                  "    - {submit: 0, gpus: 1, gpu_milli: 500, duration: 10s}\n"
                  "    - {submit: 1s, gpus: 1, gpu_milli: 400, duration: 10s}\n",
                  NULL);
    WkRunJobView a = wk_run_hooks_job(t.run, 0), b = wk_run_hooks_job(t.run, 1), c = wk_run_hooks_job(t.run, 2);
    assert_int_equal(a.start, 0);
    assert_int_equal(b.start, 0);
    assert_int_not_equal(a.gpus[0], b.gpus[0]);
    assert_int_equal(c.start, 1 * WK_NS_PER_S);
    assert_int_equal(c.gpus[0], a.gpus[0]);
    /* GPU of a: [0, 11 s); GPU of b: [0, 10 s) */
    assert_true(alloc_ns(&t) == (wk_u128)21 * WK_NS_PER_S);
    test_run_free(&t);

    test_run_yaml(&t,
                  "cluster: {nodes: 1, gpus_per_node: 1}\n"
                  "workload:\n"
                  "  source: inline\n"
                  "  gpu_sharing: true\n"
                  "  jobs:\n"
                  "    - {submit: 0, gpus: 1, gpu_milli: 600, duration: 10s}\n"
                  "    - {submit: 0, gpus: 1, gpu_milli: 500, duration: 10s}\n",
                  NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 10 * WK_NS_PER_S);
    assert_float_equal(test_metric(&t, "makespan_s"), 20.0, 1e-12);
    test_run_free(&t);
}

/* One GPU: a (250, 10 s) opens it, b (250, 30 s from 1 s) joins, c (the
 * whole GPU, 5 s from 2 s) waits. a leaving at 10 s does not free the GPU:
 * b owns it then; c starts only when b leaves at 31 s. GPU-time: the shared
 * GPU once over [0, 31 s), then c's 5 s. The placement records b on GPU 0. */
static void test_gpu_freed_only_after_last_tenant(void **state)
{
    (void)state;
    const char *body = "cluster: {nodes: 1, gpus_per_node: 1}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  gpu_sharing: true\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 1, gpu_milli: 250, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 1, gpu_milli: 250, duration: 30s}\n"
                       "    - {submit: 2s, gpus: 1, duration: 5s}\n";
    TestRun t;
    test_run_yaml(&t, body, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 1 * WK_NS_PER_S);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 31 * WK_NS_PER_S);
    assert_float_equal(test_metric(&t, "makespan_s"), 36.0, 1e-12);
    assert_true(alloc_ns(&t) == (wk_u128)36 * WK_NS_PER_S);
    const WkAccount *ac = wk_run_hooks_account(t.run);
    size_t shared = 0, tenant = 0;
    for (size_t i = 0; i < ac->nsegs; i++) {
        shared += ac->segs[i].kind == WK_SEG_SHARED;
        tenant += ac->segs[i].kind == WK_SEG_TENANT;
        if (ac->segs[i].kind == WK_SEG_SHARED) {
            assert_int_equal(ac->segs[i].from, 0);
            assert_int_equal(ac->segs[i].to, 31 * WK_NS_PER_S);
        }
    }
    assert_int_equal(shared, 1);
    assert_int_equal(tenant, 2);
    test_run_free(&t);

    /* stopped at 20 s: b holds the GPU (ownership passed from a), c waits */
    char cut[1024];
    snprintf(cut, sizeof cut, "sim: {end: 20s}\n%s", body);
    test_run_yaml(&t, cut, NULL);
    const WkPool *p = wk_run_hooks_pool(t.run);
    assert_int_equal(p->owner[0], 1);
    assert_true(wk_pool_is_shared(p, 0));
    assert_int_equal(p->share_free[0], 750);
    assert_int_equal(p->alloc, 1);
    assert_int_equal(p->nfree, 0);
    assert_int_equal(p->tenants, 1);
    assert_int_equal(wk_run_hooks_counts(t.run).queued, 1);
    test_run_free(&t);
}

/* Node 0 (one GPU, three tenants of 250) goes down at 5 s for an hour:
 * every tenant is hit once; after detection each restarts on node 1's GPU,
 * the first through the policy (it opens the shared GPU), the others
 * beside it. Nothing is left on the pool. */
static void test_failure_of_a_shared_gpu_hits_every_tenant(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {nodes: 2, gpus_per_node: 1}\n"
                  "workload:\n"
                  "  source: inline\n"
                  "  gpu_sharing: true\n"
                  "  jobs:\n"
                  "    - {submit: 0, gpus: 1, gpu_milli: 250, duration: 10m}\n"
                  "    - {submit: 0, gpus: 1, gpu_milli: 250, duration: 10m}\n"
                  "    - {submit: 0, gpus: 1, gpu_milli: 250, duration: 10m}\n"
                  "failures:\n"
                  "  enabled: false\n"
                  "  incidents:\n"
                  "    - {at: 5s, kind: down, node: 0, duration: 1h}\n"
                  "checkpoint: {interval: none}\n"
                  "recovery: {mode: reschedule}\n",
                  NULL);
    assert_int_equal(wk_run_hooks_incidents(t.run), 1);
    assert_int_equal(wk_run_hooks_incident(t.run, 0).jobs_hit, 3);
    for (uint32_t j = 0; j < 3; j++) {
        WkRunJobView v = wk_run_hooks_job(t.run, j);
        assert_int_equal(v.interruptions, 1);
        assert_int_equal(v.state, WK_JOB_COMPLETED);
        assert_int_equal(v.gpus[0], 1);
    }
    assert_float_equal(test_metric(&t, "jobs_completed"), 3, 0);
    const WkPool *p = wk_run_hooks_pool(t.run);
    assert_int_equal(p->nshared, 0);
    assert_int_equal(p->tenants, 0);
    assert_int_equal(p->alloc, 0);
    test_run_free(&t);
}

/* The pool's sharing functions on their own: best fit, ownership passing
 * and the last tenant's release; the counts move only at open and release. */
static void test_pool_share_functions_keep_counts(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    WkDoc *doc = NULL;
    const char *y = "cluster: {nodes: 1, gpus_per_node: 4}\n";
    assert_int_equal(wk_doc_load_string(&doc, "c.yaml", y, strlen(y), &err), 0);
    assert_int_equal(wk_cluster_parse(wk_node_get(doc->root, "cluster"), &c, &err), 0);
    WkPool p;
    assert_int_equal(wk_pool_init(&p, &c, &err), 0);
    assert_int_equal(wk_pool_share_fit(&p, 100), WK_POOL_NONE); /* sharing off */
    assert_int_equal(wk_pool_share_init(&p, 8, &err), 0);
    assert_int_equal(wk_pool_share_fit(&p, 100), WK_POOL_NONE); /* nothing shared yet */
    uint32_t g1 = 1, g2 = 2, bad;
    assert_int_equal(wk_pool_hold(&p, 0, &g1, 1, &bad), 0);
    wk_pool_share_open(&p, 1, 300, 5); /* job 0: 700 free on GPU 1 */
    assert_int_equal(wk_pool_hold(&p, 1, &g2, 1, &bad), 0);
    wk_pool_share_open(&p, 2, 500, 6); /* job 1: 500 free on GPU 2 */
    assert_int_equal(wk_pool_share_fit(&p, 400), 2); /* best fit: 500 free, not 700 */
    assert_int_equal(wk_pool_share_fit(&p, 600), 1);
    assert_int_equal(wk_pool_share_fit(&p, 800), WK_POOL_NONE);
    wk_pool_share_join(&p, 1, 2, 400); /* job 2 beside job 0 */
    wk_pool_share_join(&p, 1, 3, 300); /* job 3: GPU 1 full */
    assert_int_equal(p.share_free[1], 0);
    assert_int_equal(wk_pool_share_fit(&p, 1), 2);
    assert_int_equal(p.alloc, 2);
    assert_int_equal(p.nfree, 2);
    assert_int_equal(p.tenants, 4);
    uint32_t seen = 0;
    for (uint32_t j = p.owner[1]; j != WK_POOL_NONE; j = wk_pool_tenant_next(&p, 1, j))
        seen |= 1u << j;
    assert_int_equal(seen, 0xD); /* jobs 0, 2, 3 */
    int64_t since = -1;
    assert_int_equal(wk_pool_share_leave(&p, 1, 0, 300, &since), 0); /* the owner leaves: one of 2, 3 owns */
    assert_true(p.owner[1] == 2 || p.owner[1] == 3);
    assert_int_equal(wk_pool_share_leave(&p, 1, 3, 300, &since), 0);
    assert_int_equal(p.owner[1], 2);
    assert_int_equal(p.alloc, 2);
    assert_int_equal(wk_pool_share_leave(&p, 1, 2, 400, &since), 1); /* the last */
    assert_int_equal(since, 5);
    assert_false(wk_pool_is_shared(&p, 1));
    assert_int_equal(p.owner[1], 2);
    wk_pool_release(&p, 1);
    assert_int_equal(p.alloc, 1);
    assert_int_equal(p.nfree, 3);
    assert_int_equal(p.nshared, 1);
    assert_int_equal(wk_pool_share_fit(&p, 100), 2);
    wk_pool_fini(&p);
    wk_cluster_fini(&c);
    wk_doc_free(doc);
}

/* 60 jobs (shares of 100 to 900 thousandths and whole GPUs of 1 or 2) on
 * 8 GPUs, with a node down and a software failure, under every built-in
 * policy: every job completes, allocated + idle + down GPU-time is GPUs x
 * the run's length exactly, and the pool ends with nothing held or shared. */
static void test_every_policy_keeps_the_books_with_sharing(void **state)
{
    (void)state;
    static char yaml[16384];
    for (const WkSchedOps *const *p = wk_sched_registry(); *p; p++) {
        int n = snprintf(yaml, sizeof yaml,
                         "cluster: {nodes: 2, gpus_per_node: 4}\n"
                         "scheduler: {name: %s, tick: 20s}\n"
                         "failures:\n  enabled: false\n  incidents:\n"
                         "    - {at: 30s, kind: down, node: 0, duration: 100s}\n"
                         "    - {at: 50s, kind: software, gpu: 5}\n"
                         "workload:\n  source: inline\n  gpu_sharing: true\n  jobs:\n",
                         (*p)->name);
        for (int j = 0; j < 60; j++) {
            int milli = (j * 7) % 10 * 100, gpus = j % 11 == 0 ? 2 : 1;
            if (gpus == 1 && milli > 0)
                n += snprintf(yaml + n, sizeof yaml - (size_t)n,
                              "    - {submit: %ds, gpus: 1, gpu_milli: %d, duration: %ds}\n", j * 3, milli,
                              20 + (j * 13) % 70);
            else
                n += snprintf(yaml + n, sizeof yaml - (size_t)n, "    - {submit: %ds, gpus: %d, duration: %ds}\n",
                              j * 3, gpus, 20 + (j * 13) % 70);
        }
        TestRun t;
        test_run_yaml(&t, yaml, NULL);
        if (test_metric(&t, "jobs_completed") != 60)
            fail_msg("%s: %g jobs completed of 60", (*p)->name, test_metric(&t, "jobs_completed"));
        WkRunAccount a;
        wk_run_account(t.run, &a);
        wk_u128 alloc = ((wk_u128)a.alloc_hi << 64) | a.alloc_lo, idle = ((wk_u128)a.idle_hi << 64) | a.idle_lo,
                down = ((wk_u128)a.down_hi << 64) | a.down_lo;
        if (alloc + idle + down != (wk_u128)8 * (wk_u128)a.end_ns)
            fail_msg("%s: GPU-time not conserved", (*p)->name);
        const WkPool *pl = wk_run_hooks_pool(t.run);
        if (pl->alloc || pl->nshared || pl->tenants || pl->nfree != 8)
            fail_msg("%s: pool left alloc %u shared %u tenants %u free %u", (*p)->name, pl->alloc, pl->nshared,
                     pl->tenants, pl->nfree);
        assert_true(test_metric(&t, "util_effective") <= test_metric(&t, "utilization") + 1e-12);
        const WkAccount *ac = wk_run_hooks_account(t.run);
        size_t shared = 0, tenant = 0;
        for (size_t i = 0; i < ac->nsegs; i++) {
            shared += ac->segs[i].kind == WK_SEG_SHARED;
            tenant += ac->segs[i].kind == WK_SEG_TENANT;
        }
        if (!shared || tenant <= shared) /* some GPU had two tenants at once */
            fail_msg("%s: %zu shared GPU spells, %zu tenant stays", (*p)->name, shared, tenant);
        test_run_free(&t);
    }
}

static void expect_error(const char *yaml, const char *fragment)
{
    WkError err;
    int rc = test_prepare_yaml(yaml, &err);
    if (rc >= 0 || !strstr(err.msg, fragment))
        fail_msg("got %d '%s: %s', want ...%s...", rc, err.where, err.msg, fragment);
}

static void test_bad_shares_are_refused_with_their_position(void **state)
{
    (void)state;
    expect_error("cluster: {nodes: 1}\nworkload: {source: inline, gpu_sharing: maybe, jobs: []}\n", "gpu_sharing");
    expect_error("cluster: {nodes: 1}\nworkload: {source: inline, jobs: [{gpus: 2, gpu_milli: 500, duration: 1s}]}\n",
                 "a share of a GPU is for a plain job of gpus: 1");
    expect_error("cluster: {nodes: 1}\nworkload: {source: inline, jobs: [{gpus: 1, gpu_milli: 1001, duration: 1s}]}\n",
                 "gpu_milli");
    expect_error("cluster: {nodes: 1}\nworkload: {source: synthetic, gpu_sharing: true, jobs: 3}\n", "gpu_sharing");
    WkError err;
    assert_int_equal(test_prepare_yaml("cluster: {nodes: 1}\nworkload: {source: inline, gpu_sharing: true, jobs: "
                                       "[{gpus: 1, gpu_milli: 1000, duration: 1s}]}\n",
                                       &err),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_quarter_jobs_share_one_gpu),
        cmocka_unit_test(test_shares_over_1000_take_two_gpus),
        cmocka_unit_test(test_gpu_freed_only_after_last_tenant),
        cmocka_unit_test(test_failure_of_a_shared_gpu_hits_every_tenant),
        cmocka_unit_test(test_pool_share_functions_keep_counts),
        cmocka_unit_test(test_every_policy_keeps_the_books_with_sharing),
        cmocka_unit_test(test_bad_shares_are_refused_with_their_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
