/* SPDX-License-Identifier: Apache-2.0 */
/* test_sched.c — the scheduling policies against hand-computed schedules:
 * SJF order, EASY backfill's reservation and backfilling, LAS demotion and
 * preemption (with and without ticks, never within the restart cost),
 * topo's one-leaf packing, hetero's choice of the faster SKU, priority
 * classes and preemption; the job queue and queue-policy callbacks they
 * share; placement's "no room" status. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/run/hooks.h"
#include "models/sched/queue.h"

#define S(x) ((WkTime)(x) * WK_NS_PER_S)

static void test_queue_orders_by_key_then_arrival_and_requeues_in_place(void **state)
{
    (void)state;
    WkJobQueue q = {0};
    /* arrival order with one key, then a job put back at its arrival place */
    assert_int_equal(wk_queue_push(&q, 0, S(1), 1), 0);
    assert_int_equal(wk_queue_push(&q, 0, S(2), 2), 0);
    assert_int_equal(wk_queue_push(&q, 0, S(2), 3), 0);
    wk_queue_remove(&q, 0); /* 1 starts */
    assert_int_equal(wk_queue_push(&q, 0, S(1), 1), 0); /* 1 is back: the front */
    assert_int_equal(wk_queue_push(&q, -1, S(9), 9), 0); /* a smaller key goes first */
    assert_int_equal(wk_queue_push(&q, 5, S(0), 7), 0);  /* a larger key goes last */
    const uint32_t want[] = {9, 1, 2, 3, 7};
    assert_int_equal(q.n, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(wk_queue_at(&q, i)->job, want[i]);
    wk_queue_remove(&q, 2); /* from the middle */
    assert_int_equal(wk_queue_at(&q, 2)->job, 3);
    /* many pushes and head removals keep the order */
    for (uint32_t j = 100; j < 1100; j++) {
        assert_int_equal(wk_queue_push(&q, 1, S(j), j), 0);
        if (j % 3 == 0)
            wk_queue_remove(&q, 0);
    }
    for (size_t i = 1; i < q.n; i++) {
        const WkQueueItem *a = wk_queue_at(&q, i - 1), *b = wk_queue_at(&q, i);
        assert_true(a->key < b->key || (a->key == b->key && a->submit <= b->submit));
    }
    wk_queue_fini(&q);
}

static void test_sjf_starts_the_smallest_gpu_time_first(void **state)
{
    (void)state;
    /* 8 GPUs, busy until 10 s. Waiting at 10 s: job1 4x100 s (400 GPU-s),
     * job2 8x20 s (160), job3 2x30 s (60). SJF: job3 at 10 s; job2 (next
     * smallest) needs all 8 and blocks job1 until job3 ends at 40 s; job2
     * runs 40-60 s; job1 starts at 60 s. FIFO would start job1 at 10 s. */
    const char *yaml = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                       "scheduler: sjf\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 8, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 4, duration: 100s}\n"
                       "    - {submit: 2s, gpus: 8, duration: 20s}\n"
                       "    - {submit: 3s, gpus: 2, duration: 30s}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 3).start, S(10));
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, S(40));
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(60));
    assert_float_equal(test_metric(&t, "makespan_s"), 160.0, 1e-12);
    test_run_free(&t);
}

static void test_backfill_runs_a_short_job_without_delaying_the_head(void **state)
{
    (void)state;
    /* 8 GPUs. job0 6 GPUs until 100 s. Head job1 (8 GPUs) reserves at 100 s
     * with no extra GPUs. job2 (1 GPU, ends at 52 s) and job4 (1 GPU, ends
     * exactly at 100 s) backfill; job3 (1 GPU, 150 s) would end after the
     * shadow time with no extra GPUs, so it waits behind the head. */
    const char *yaml = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                       "scheduler: backfill\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 6, duration: 100s}\n"
                       "    - {submit: 1s, gpus: 8, duration: 50s}\n"
                       "    - {submit: 2s, gpus: 1, duration: 50s}\n"
                       "    - {submit: 3s, gpus: 1, duration: 150s}\n"
                       "    - {submit: 4s, gpus: 1, duration: 96s}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, S(2));   /* backfilled */
    assert_int_equal(wk_run_hooks_job(t.run, 4).start, S(4));   /* backfilled, ends at the shadow time */
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(100)); /* the head's reservation holds */
    assert_int_equal(wk_run_hooks_job(t.run, 3).start, S(150)); /* would have delayed the head */
    test_run_free(&t);
}

static void test_backfill_uses_only_the_gpus_the_head_will_not_need(void **state)
{
    (void)state;
    /* 16 GPUs. job0 10 GPUs until 100 s; head job1 needs 12: shadow 100 s,
     * 16 - 12 = 4 extra GPUs then. job2 (3 GPUs, 500 s) outlives the shadow
     * but fits in the extra GPUs: it starts now, leaving 1 extra. job3
     * (3 GPUs, 500 s) fits in the 3 free GPUs but would take the head's: it
     * waits until the head is done at 150 s. */
    const char *yaml = "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "scheduler: backfill\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 10, duration: 100s}\n"
                       "    - {submit: 1s, gpus: 12, duration: 50s}\n"
                       "    - {submit: 2s, gpus: 3, duration: 500s}\n"
                       "    - {submit: 3s, gpus: 3, duration: 500s}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, S(2));
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(100));
    assert_int_equal(wk_run_hooks_job(t.run, 3).start, S(150));
    test_run_free(&t);
}

/* LAS on 8 GPUs, default 2 queues split at 3600 GPU-s: job0 (8 GPUs, 2 h)
 * crosses the threshold at 450 s; job1 (8 GPUs, 100 s) arrives at `at`. */
static void las_run(TestRun *t, const char *sched, const char *at)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "cluster: {nodes: 1, gpus_per_node: 8}\n"
             "scheduler: %s\n"
             "workload:\n"
             "  source: inline\n"
             "  jobs:\n"
             "    - {submit: 0, gpus: 8, duration: 2h}\n"
             "    - {submit: %s, gpus: 8, duration: 100s}\n",
             sched, at);
    test_run_yaml(t, yaml, NULL);
}

static void test_las_demotes_a_long_job_and_a_new_short_job_preempts_it(void **state)
{
    (void)state;
    TestRun t;
    /* at 1000 s job0 has 8000 GPU-s: queue 1; job1 (queue 0) preempts it,
     * runs 1000-1100 s; job0 resumes at 1100 s, pays the 30 s restart and
     * its remaining 6200 s: ends at 7330 s */
    las_run(&t, "{name: las, preemption_cost: 30s}", "1000s");
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(1000));
    assert_int_equal(wk_run_hooks_job(t.run, 1).end, S(1100));
    assert_int_equal(wk_run_hooks_job(t.run, 0).preemptions, 1);
    assert_int_equal(wk_run_hooks_job(t.run, 0).end, S(7330));
    test_run_free(&t);

    /* job1 arrives at 400 s, while job0 (3200 GPU-s) is still in queue 0:
     * same queue, no preemption. With a 60 s tick, job0 is found demoted at
     * the first tick after 450 s (480 s) and job1 preempts it then; without
     * ticks nothing re-evaluates before job0 ends at 7200 s. */
    las_run(&t, "{name: las, preemption_cost: 30s, tick: 60s}", "400s");
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(480));
    test_run_free(&t);
    las_run(&t, "{name: las, preemption_cost: 30s}", "400s");
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(7200));
    assert_int_equal(wk_run_hooks_job(t.run, 0).preemptions, 0);
    test_run_free(&t);
}

static void test_las_never_preempts_within_the_restart_cost(void **state)
{
    (void)state;
    /* threshold 40 GPU-s: job0 is demoted at 5 s, job1 arrives at 10 s, but
     * job0 started less than the 30 s restart cost ago; the tick at 60 s
     * preempts it. With no restart cost, job1 preempts at once. */
    TestRun t;
    las_run(&t, "{name: las, thresholds: [40], preemption_cost: 30s, tick: 60s}", "10s");
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(60));
    test_run_free(&t);
    las_run(&t, "{name: las, thresholds: [40], preemption_cost: 0s, tick: 60s}", "10s");
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(10));
    test_run_free(&t);
}

static void test_las_refuses_bad_thresholds(void **state)
{
    (void)state;
    const char *base = "cluster: {nodes: 1}\nworkload: {source: inline, jobs: []}\n";
    char y[512];
    WkError err;
    snprintf(y, sizeof y, "%sscheduler: {name: las, queues: 3, thresholds: [100]}\n", base);
    assert_true(test_prepare_yaml(y, &err) < 0);
    assert_non_null(strstr(err.msg, "queues - 1"));
    snprintf(y, sizeof y, "%sscheduler: {name: las, thresholds: [100, 50]}\n", base);
    assert_true(test_prepare_yaml(y, &err) < 0);
    assert_non_null(strstr(err.msg, "increasing"));
    snprintf(y, sizeof y, "%sscheduler: {name: las, thresholds: [100, 500], queues: 3}\n", base);
    assert_int_equal(test_prepare_yaml(y, &err), 0);
}

static void test_topo_packs_a_64_gpu_job_into_one_leaf(void **state)
{
    (void)state;
    /* 32 nodes in one pod; radix-32 rail fabric: 2 leaves per rail, nodes
     * 0-15 and 16-31. 32 one-node jobs fill the nodes in order; those on
     * nodes 10-23 end at 10 s. At 20 s a 64-GPU job arrives: nodes 10-15
     * (48 GPUs, leaf 0) and 16-23 (64 GPUs, leaf 1) are free. Pack and
     * first fit would take nodes 10-17 across both leaves; topo must take
     * nodes 16-23, all under leaf 1. */
    char yaml[4096];
    int k = snprintf(yaml, sizeof yaml,
                     "sim: {end: 25s}\n"
                     "scheduler: topo\n"
                     "cluster:\n"
                     "  nodes: 32\n"
                     "  nodes_per_pod: 32\n"
                     "  fabric: {kind: rail, radix: 32, link_gbps: 400}\n"
                     "workload:\n"
                     "  source: inline\n"
                     "  jobs:\n");
    for (int n = 0; n < 32; n++)
        k += snprintf(yaml + k, sizeof yaml - (size_t)k, "    - {submit: 0, gpus: 8, duration: %s}\n",
                      n >= 10 && n < 24 ? "10s" : "1000s");
    snprintf(yaml + k, sizeof yaml - (size_t)k, "    - {submit: 20s, gpus: 64, duration: 10s}\n");
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    const WkRun *r = t.run;
    WkRunJobView rtv = wk_run_hooks_job(r, 32);
    const WkRunJobView *rt = &rtv;
    assert_int_equal(rt->start, S(20));
    assert_non_null(rt->gpus);
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t node = wk_cluster_node_of(wk_run_hooks_cluster(r), rt->gpus[i]);
        if (node < 16 || node > 23)
            fail_msg("GPU %u of the 64-GPU job is on node %u", rt->gpus[i], node);
        /* same-rail GPUs talk through one leaf */
        for (uint32_t j = 0; j < 64; j++)
            if (rt->gpus[i] % 8 == rt->gpus[j] % 8)
                assert_true(wk_cluster_path_class(wk_run_hooks_cluster(r), rt->gpus[i], rt->gpus[j]) <= WK_PATH_LEAF);
    }
    test_run_free(&t);
}

static void test_hetero_prefers_the_faster_sku_when_both_are_free(void **state)
{
    (void)state;
    /* A100 nodes are GPUs 0-31 (group 0), H100 nodes 32-63. Both idle at 0:
     * the model job and the plain job go to H100 GPUs; once H100s are taken,
     * the next model job goes to the A100s. First fit would start on GPU 0. */
    const char *yaml = "sim: {end: 1s}\n"
                       "scheduler: hetero\n"
                       "cluster:\n"
                       "  nodes_per_pod: 4\n"
                       "  groups:\n"
                       "    - {name: a100, sku: A100-SXM-80G, nodes: 4}\n"
                       "    - {name: h100, sku: H100-SXM-80G, nodes: 4}\n"
                       "  fabric: {kind: rail, radix: 16, link_gbps: 400}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 16, model: {base: llama3-8b, tp: 2, global_batch: 64}, "
                       "iterations: 1000}\n"
                       "    - {submit: 0, gpus: 8, duration: 1h}\n"
                       "    - {submit: 0, gpus: 16, model: {base: llama3-8b, tp: 2, global_batch: 64}, "
                       "iterations: 1000}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    for (uint32_t i = 0; i < 16; i++)
        assert_true(wk_run_hooks_job(t.run, 0).gpus[i] >= 32);
    for (uint32_t i = 0; i < 8; i++)
        assert_true(wk_run_hooks_job(t.run, 1).gpus[i] >= 32);
    for (uint32_t i = 0; i < 16; i++)
        assert_true(wk_run_hooks_job(t.run, 2).gpus[i] < 32); /* only 8 H100s left */
    /* and the H100 placement is the faster one, by the perf model */
    WkSchedCtx *ctx = &wk_run_hooks_sched(t.run)->ctx;
    uint32_t a100[16];
    for (uint32_t i = 0; i < 16; i++)
        a100[i] = i;
    assert_true(wk_sched_job_iter_s_on(ctx, 0, wk_run_hooks_job(t.run, 0).gpus, 16) < wk_sched_job_iter_s_on(ctx, 0, a100, 16));
    test_run_free(&t);
}

static void test_hetero_mixes_skus_only_with_span(void **state)
{
    (void)state;
    /* one A100 node (GPUs 0-7) and one H100 node (8-15): job0 (4 GPUs) takes
     * H100s, job1 (6) the A100s; job2 (6) finds 2 + 4 free GPUs, no group
     * with 6: it waits for a group — the H100 node, free when job0 ends
     * (100 s of A100 run time at 989/312 the speed) — unless span: true with
     * GPU-granular placement */
    const char *fmt = "scheduler: {name: hetero, span: %s}\n"
                      "cluster:\n"
                      "  groups:\n"
                      "    - {sku: A100-SXM-80G, nodes: 1}\n"
                      "    - {sku: H100-SXM-80G, nodes: 1}\n"
                      "workload:\n"
                      "  source: inline\n"
                      "  jobs:\n"
                      "    - {submit: 0, gpus: 4, duration: 100s}\n"
                      "    - {submit: 0, gpus: 6, duration: 100s}\n"
                      "    - {submit: 0, gpus: 6, duration: 100s}\n";
    char yaml[1024];
    TestRun t;
    snprintf(yaml, sizeof yaml, fmt, "false");
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 0).end, (WkTime)ceil(100e9 * 312.0 / 989.0));
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, wk_run_hooks_job(t.run, 0).end);
    test_run_free(&t);
    /* span places across groups, but a job smaller than a node stays in one
     * node under the default node-granular placement: job2 still waits */
    snprintf(yaml, sizeof yaml, fmt, "true");
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, wk_run_hooks_job(t.run, 0).end);
    test_run_free(&t);
    snprintf(yaml, sizeof yaml, fmt, "true, placement: first-fit");
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 0);
    test_run_free(&t);
}

/* Priority on 8 GPUs with a 5 s restart cost. */
static void prio_run(TestRun *t, const char *sched, const char *jobs)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "cluster: {nodes: 1, gpus_per_node: 8}\n"
             "scheduler: %s\n"
             "workload:\n"
             "  source: inline\n"
             "  jobs:\n%s",
             sched, jobs);
    test_run_yaml(t, yaml, NULL);
}

static void test_priority_with_preempt_lets_a_high_priority_job_in(void **state)
{
    (void)state;
    const char *jobs = "    - {submit: 0, gpus: 8, duration: 100s}\n"
                       "    - {submit: 10s, gpus: 4, duration: 20s, priority: 5}\n";
    /* job1 preempts job0 at 10 s and runs to 30 s; job0 (90 s left) restarts
     * at 30 s with the 5 s cost: ends at 125 s */
    TestRun t;
    prio_run(&t, "{name: priority, preempt: true, preemption_cost: 5s}", jobs);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(10));
    assert_int_equal(wk_run_hooks_job(t.run, 0).preemptions, 1);
    assert_int_equal(wk_run_hooks_job(t.run, 0).end, S(125));
    test_run_free(&t);
    /* without preempt job1 waits for job0 */
    prio_run(&t, "priority", jobs);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(100));
    test_run_free(&t);
}

static void test_priority_preempts_only_when_that_makes_room(void **state)
{
    (void)state;
    /* job2 (priority 5, 8 GPUs) finds job0 (priority 9) and job1 (priority 0)
     * on 4 GPUs each: preempting job1 alone cannot make room, so nothing is
     * preempted and job2 waits for both. */
    const char *jobs = "    - {submit: 0, gpus: 4, duration: 100s, priority: 9}\n"
                       "    - {submit: 0, gpus: 4, duration: 50s}\n"
                       "    - {submit: 10s, gpus: 8, duration: 10s, priority: 5}\n";
    TestRun t;
    prio_run(&t, "{name: priority, preempt: true, preemption_cost: 5s}", jobs);
    assert_int_equal(wk_run_hooks_job(t.run, 1).preemptions, 0);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, S(100));
    test_run_free(&t);
}

static void test_priority_runs_higher_classes_first_fifo_within(void **state)
{
    (void)state;
    /* 8 GPUs busy until 10 s; waiting: job1 (p0), job2 (p3), job3 (p3), all
     * 8 GPUs for 10 s: job2, job3, then job1 */
    const char *jobs = "    - {submit: 0, gpus: 8, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 8, duration: 10s}\n"
                       "    - {submit: 2s, gpus: 8, duration: 10s, priority: 3}\n"
                       "    - {submit: 3s, gpus: 8, duration: 10s, priority: 3}\n";
    TestRun t;
    prio_run(&t, "priority", jobs);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, S(10));
    assert_int_equal(wk_run_hooks_job(t.run, 3).start, S(20));
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(30));
    test_run_free(&t);
}

/* A finished run on 2 x 4 GPUs: every GPU free, its context to query. */
static void idle_run(TestRun *t)
{
    test_run_yaml(t,
                  "cluster: {nodes: 2, gpus_per_node: 4}\n"
                  "workload:\n"
                  "  source: inline\n"
                  "  jobs:\n"
                  "    - {submit: 0, gpus: 1, duration: 1s}\n"
                  "    - {submit: 1s, gpus: 2, duration: 1s}\n"
                  "    - {submit: 2s, gpus: 3, duration: 1s}\n"
                  "    - {submit: 3s, gpus: 4, duration: 1s}\n"
                  "    - {submit: 4s, gpus: 5, duration: 1s}\n",
                  NULL);
}

static int first_node_only(uint32_t gpu, void *user)
{
    (void)user;
    return gpu < 4;
}

static void test_placement_without_room_says_noroom_and_takes_nothing(void **state)
{
    (void)state;
    TestRun t;
    idle_run(&t);
    const WkSchedCtx *ctx = &wk_run_hooks_sched(t.run)->ctx;
    uint32_t out[9];
    assert_int_equal(wk_sched_free_gpus(ctx), 8);
    assert_int_equal(wk_sched_first_fit(ctx, 9, out), WK_E_NOROOM);
    assert_int_equal(wk_sched_place(ctx, 9, out), WK_E_NOROOM);
    const WkPlacement how[] = {WK_PLACE_EXCLUSIVE, WK_PLACE_FIRST_FIT, WK_PLACE_PACK, WK_PLACE_SPREAD,
                               WK_PLACE_ROUND_ROBIN};
    for (size_t i = 0; i < sizeof how / sizeof *how; i++) {
        assert_int_equal(wk_sched_place_with(ctx, how[i], 9, out, NULL, NULL), WK_E_NOROOM);
        assert_int_equal(wk_sched_place_with(ctx, how[i], 5, out, first_node_only, NULL), WK_E_NOROOM);
        assert_int_equal(wk_sched_place_with(ctx, how[i], 4, out, first_node_only, NULL), 0);
        for (uint32_t k = 0; k < 4; k++)
            assert_true(out[k] < 4);
    }
    assert_int_equal(wk_sched_free_gpus(ctx), 8); /* placement only chooses */
    test_run_free(&t);
}

static void expect_gpus(const uint32_t *out, const uint32_t *want, size_t n)
{
    for (size_t k = 0; k < n; k++)
        assert_int_equal(out[k], want[k]);
}

/* Node-granular placement on 4 nodes x 4 GPUs with node 0 holding 1 free
 * GPU, node 1 three, nodes 2 and 3 idle: small jobs go best fit into one
 * node, larger ones take idle nodes whole (node after node) with the
 * remainder best fit, and 12 GPUs do not fit although 12 are free. */
static void test_exclusive_placement_gives_whole_nodes_and_best_fit(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {nodes: 4, gpus_per_node: 4}\n"
                  "workload: {source: inline, jobs: [{submit: 0, gpus: 1, duration: 1s}]}\n",
                  NULL);
    const WkSchedCtx *ctx = &wk_run_hooks_sched(t.run)->ctx;
    WkPool *pl = (WkPool *)(uintptr_t)wk_run_hooks_pool(t.run); /* the test occupies GPUs by hand */
    const uint32_t busy[] = {0, 1, 2, 4};
    for (size_t i = 0; i < 4; i++)
        wk_pool_take(pl, busy[i]);
    uint32_t out[16];
    assert_int_equal(wk_sched_place(ctx, 1, out), 0);
    expect_gpus(out, (const uint32_t[]){3}, 1);
    assert_int_equal(wk_sched_place(ctx, 2, out), 0);
    expect_gpus(out, (const uint32_t[]){5, 6}, 2);
    assert_int_equal(wk_sched_place(ctx, 4, out), 0);
    expect_gpus(out, (const uint32_t[]){8, 9, 10, 11}, 4);
    assert_int_equal(wk_sched_place(ctx, 6, out), 0);
    expect_gpus(out, (const uint32_t[]){8, 9, 10, 11, 5, 6}, 6);
    assert_int_equal(wk_sched_place(ctx, 9, out), 0);
    expect_gpus(out, (const uint32_t[]){8, 9, 10, 11, 12, 13, 14, 15, 3}, 9);
    assert_int_equal(wk_sched_free_gpus(ctx), 12);
    assert_int_equal(wk_sched_place(ctx, 12, out), WK_E_NOROOM);
    assert_int_equal(wk_sched_place_with(ctx, WK_PLACE_FIRST_FIT, 12, out, NULL, NULL), 0);
    for (size_t i = 0; i < 4; i++)
        wk_pool_give(pl, busy[i]);
    assert_int_equal(wk_sched_place(ctx, 6, out), 0); /* the remainder's best fit passes the node taken whole */
    expect_gpus(out, (const uint32_t[]){0, 1, 2, 3, 4, 5}, 6);
    test_run_free(&t);
}

/* The idle GPUs per leaf block and per pod that exclusive placement reads
 * are kept by take and give: after every step of a random walk of takes
 * and gives they equal a recount over the nodes, and each group lists its
 * nodes in node order. */
static void test_pool_keeps_idle_gpus_per_block_and_pod(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {nodes: 32, gpus_per_node: 4, nodes_per_pod: 8,\n"
                  "          fabric: {kind: rail, radix: 16, link_gbps: 400}}\n"
                  "workload: {source: inline, jobs: [{submit: 0, gpus: 1, duration: 1s}]}\n",
                  NULL);
    WkPool *pl = (WkPool *)(uintptr_t)wk_run_hooks_pool(t.run); /* the test occupies GPUs by hand */
    const WkCluster *c = pl->c;
    uint8_t *mine = calloc(c->gpus, 1);
    assert_non_null(mine);
    assert_true(pl->nblocks > 1 && c->pods == 4);
    for (int level = 0; level < 2; level++) {
        const uint32_t *grp = level == 0 ? pl->node_block : c->node_pod;
        uint32_t ng = level == 0 ? pl->nblocks : c->pods;
        assert_int_equal(pl->grp_first[level][ng], c->nodes);
        uint32_t k = 0; /* the groups with nodes, ascending */
        for (uint32_t g = 0; g < ng; g++)
            if (pl->grp_first[level][g + 1] > pl->grp_first[level][g])
                assert_int_equal(pl->grp_ids[level][k++], g);
        assert_int_equal(pl->ngrp_ids[level], k);
        assert_true(level == 1 || k < ng); /* rail leaves past rail 0 hold no node's first NIC */
        for (uint32_t g = 0; g < ng; g++)
            for (uint32_t x = pl->grp_first[level][g]; x < pl->grp_first[level][g + 1]; x++) {
                assert_int_equal(grp[pl->grp_nodes[level][x]], g);
                assert_true(x == pl->grp_first[level][g] || pl->grp_nodes[level][x - 1] < pl->grp_nodes[level][x]);
            }
    }
    uint64_t seed = 12345;
    for (int step = 0; step < 2000; step++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t g = (uint32_t)(seed >> 33) % c->gpus;
        if (mine[g])
            wk_pool_give(pl, g), mine[g] = 0;
        else if (wk_pool_is_free(pl, g))
            wk_pool_take(pl, g), mine[g] = 1;
        for (int level = 0; level < 2; level++) {
            const uint32_t *grp = level == 0 ? pl->node_block : c->node_pod;
            uint32_t ng = level == 0 ? pl->nblocks : c->pods, want[64] = {0}, all = 0;
            assert_true(ng <= 64);
            for (uint32_t nd = 0; nd < c->nodes; nd++)
                if (pl->node_free[nd] == wk_pool_node_gpus(pl, nd))
                    want[grp[nd]] += pl->node_free[nd], all += pl->node_free[nd];
            for (uint32_t b = 0; b < ng; b++)
                assert_int_equal(pl->idle_in[level][b], want[b]);
            assert_int_equal(pl->idle_gpus, all);
        }
    }
    for (uint32_t g = 0; g < c->gpus; g++)
        if (mine[g])
            wk_pool_give(pl, g);
    free(mine);
    test_run_free(&t);
}

/* Pools a and b hold the same state: bitmaps, owners, counts, rows,
 * generations and the free hint. */
static void assert_pools_equal(const WkPool *a, const WkPool *b)
{
    const WkCluster *c = a->c;
    assert_int_equal(a->nfree, b->nfree);
    assert_int_equal(a->alloc, b->alloc);
    assert_int_equal(a->down_held, b->down_held);
    assert_int_equal(a->idle_gpus, b->idle_gpus);
    assert_int_equal(a->free_hint, b->free_hint);
    assert_int_equal(a->gen, b->gen);
    assert_memory_equal(a->freebits, b->freebits, ((c->gpus + 63) / 64) * sizeof *a->freebits);
    assert_memory_equal(a->owner, b->owner, c->gpus * sizeof *a->owner);
    assert_memory_equal(a->node_free, b->node_free, c->nodes * sizeof *a->node_free);
    assert_memory_equal(a->node_gen, b->node_gen, c->nodes * sizeof *a->node_gen);
    assert_memory_equal(a->pod_free, b->pod_free, c->pods * sizeof *a->pod_free);
    assert_memory_equal(a->by_free, b->by_free, (a->max_node + 1) * sizeof *a->by_free);
    assert_non_null(a->nodes_at);
    assert_memory_equal(a->nodes_at, b->nodes_at, (a->max_node + 1) * a->node_words * sizeof *a->nodes_at);
    assert_memory_equal(a->idle_in[0], b->idle_in[0], a->nblocks * sizeof *a->idle_in[0]);
    assert_memory_equal(a->idle_in[1], b->idle_in[1], c->pods * sizeof *a->idle_in[1]);
}

/* wk_pool_hold and wk_pool_release_all count each row of one node's GPUs
 * once: after random holds (GPUs of several nodes, in and out of order, a
 * hold refused midway) and releases (some GPUs down meanwhile) the pool
 * equals one moved one GPU at a time (wk_pool_take, wk_pool_release). */
static void test_pool_hold_and_release_all_equal_one_gpu_at_a_time(void **state)
{
    (void)state;
    const char *yaml = "cluster: {nodes: 32, gpus_per_node: 4, nodes_per_pod: 8,\n"
                       "          fabric: {kind: rail, radix: 16, link_gbps: 400}}\n"
                       "workload: {source: inline, jobs: [{submit: 0, gpus: 1, duration: 1s}]}\n";
    TestRun ta, tb;
    test_run_yaml(&ta, yaml, NULL);
    test_run_yaml(&tb, yaml, NULL);
    WkPool *a = (WkPool *)(uintptr_t)wk_run_hooks_pool(ta.run), *b = (WkPool *)(uintptr_t)wk_run_hooks_pool(tb.run);
    const uint32_t ngpus = a->c->gpus;
    enum { JOBS = 6 };
    uint32_t gpus[JOBS][24], n[JOBS] = {0};
    uint64_t seed = 777;
    for (int step = 0; step < 3000; step++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t j = (uint32_t)(seed >> 33) % JOBS, r = (uint32_t)(seed >> 20);
        if (n[j]) { /* release, a GPU of it down first now and then */
            if (r % 4 == 0) {
                uint32_t g = gpus[j][r % n[j]];
                wk_pool_set_health(a, g, WK_GPU_DOWN, 1.0f);
                wk_pool_set_health(b, g, WK_GPU_DOWN, 1.0f);
            }
            wk_pool_release_all(a, gpus[j], n[j]);
            for (uint32_t i = 0; i < n[j]; i++)
                wk_pool_release(b, gpus[j][i]);
            n[j] = 0;
        } else { /* hold a run from a random free GPU, or a shuffled set; now and then one busy GPU */
            uint32_t want = 1 + r % 23, g0 = (r >> 5) % ngpus, k = 0;
            for (uint32_t x = 0; x < ngpus && k < want; x++) {
                uint32_t g = (g0 + x) % ngpus;
                if (wk_pool_is_free(a, g))
                    gpus[j][k++] = g;
            }
            for (uint32_t i = 0; (r >> 9) % 3 == 0 && i + 1 < k; i++) {
                uint32_t o = i + (uint32_t)((seed >> (i % 30)) % (k - i)), t = gpus[j][i];
                gpus[j][i] = gpus[j][o];
                gpus[j][o] = t;
            }
            int refuse = k > 2 && (r >> 12) % 8 == 0;
            if (refuse)
                gpus[j][k - 2] = gpus[j][0]; /* held twice: refused at k - 2 */
            uint32_t bad_a = 0;
            int rc = wk_pool_hold(a, j, gpus[j], k, &bad_a);
            uint32_t i = 0;
            for (; i < k && wk_pool_is_free(b, gpus[j][i]); i++) {
                wk_pool_take(b, gpus[j][i]);
                b->owner[gpus[j][i]] = j;
            }
            if (i < k) {
                assert_int_equal(rc, WK_E_INTERNAL);
                assert_int_equal(bad_a, gpus[j][i]);
                for (uint32_t x = 0; x < i; x++) {
                    wk_pool_give(b, gpus[j][x]);
                    b->owner[gpus[j][x]] = WK_POOL_NONE;
                }
            } else {
                assert_int_equal(rc, 0);
                b->alloc += k;
                n[j] = k;
            }
            assert_true(!refuse || rc == WK_E_INTERNAL);
        }
        for (uint32_t g = 0; g < ngpus && step % 50 == 0; g++) /* repairs */
            if (a->c->health[g] == WK_GPU_DOWN && a->owner[g] == WK_POOL_NONE) {
                wk_pool_set_health(a, g, WK_GPU_UP, 1.0f);
                wk_pool_set_health(b, g, WK_GPU_UP, 1.0f);
            }
        assert_pools_equal(a, b);
    }
    test_run_free(&ta);
    test_run_free(&tb);
}

/* slurm on 8 GPUs: j0 (8 GPUs, 100 s) runs; j1 (2 GPUs) waits from 1 s,
 * j2 (8 GPUs) from 90 s. By job size j2 has the higher priority; with a
 * heavy age weight j1 has, but only once the priorities are recalculated
 * (calc_period 0: at every pass; the 5 min default: not before 100 s, so
 * the order of submission time stands). */
static WkTime slurm_j1_start(const char *opts)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "cluster: {nodes: 1, gpus_per_node: 8}\n"
             "scheduler: {name: slurm, max_age: 1000s, %s}\n"
             "workload:\n"
             "  source: inline\n"
             "  jobs:\n"
             "    - {submit: 0, gpus: 8, duration: 100s}\n"
             "    - {submit: 1s, gpus: 2, duration: 50s}\n"
             "    - {submit: 90s, gpus: 8, duration: 50s}\n",
             opts);
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    WkTime s1 = wk_run_hooks_job(t.run, 1).start, s2 = wk_run_hooks_job(t.run, 2).start;
    assert_true(s1 == S(100) ? s2 == S(150) : s1 == S(150) && s2 == S(100));
    test_run_free(&t);
    return s1;
}

static void test_slurm_orders_by_size_and_by_age_once_recalculated(void **state)
{
    (void)state;
    assert_int_equal(slurm_j1_start("weight_age: 100000"), S(150));                 /* size: j2 first */
    assert_int_equal(slurm_j1_start("weight_age: 100000, calc_period: 0"), S(100)); /* age: j1 first */
    assert_int_equal(slurm_j1_start("weight_age: 0, calc_period: 0"), S(150));
}

/* slurm's backfill on 2 nodes x 4 GPUs: j0 (4 GPUs, 100 s) runs; the head j1
 * (8 GPUs) reserves both nodes at 100 s; j2 (4 GPUs, 200 s) fits now but
 * would delay it, j3 (2 GPUs, 50 s) ends before 100 s and backfills. */
static void test_slurm_backfills_without_delaying_the_head_reservation(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {nodes: 2, gpus_per_node: 4}\n"
                  "scheduler: slurm\n"
                  "workload:\n"
                  "  source: inline\n"
                  "  jobs:\n"
                  "    - {submit: 0, gpus: 4, duration: 100s}\n"
                  "    - {submit: 1s, gpus: 8, duration: 100s}\n"
                  "    - {submit: 2s, gpus: 4, duration: 200s}\n"
                  "    - {submit: 3s, gpus: 2, duration: 50s}\n",
                  NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 3).start, S(3));
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, S(100));
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, S(200));
    test_run_free(&t);
}

static int no_pass(void *priv, WkSchedCtx *ctx, WkError *err)
{
    (void)priv;
    (void)ctx;
    (void)err;
    return 0;
}

static void test_queue_policy_puts_incident_jobs_at_the_front_in_order(void **state)
{
    (void)state;
    static const WkQueueRules front = {.name = "front", .pass = no_pass, .front = 1};
    TestRun t;
    idle_run(&t);
    WkSchedCtx *ctx = &wk_run_hooks_sched(t.run)->ctx;
    WkQueuePolicy p = {0};
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_queue_policy_init(&p, &front, NULL, &err), 0);
    assert_int_equal(wk_queue_enqueue(&p, ctx, 0, &err), 0);
    assert_int_equal(wk_queue_enqueue(&p, ctx, 1, &err), 0);
    const uint32_t hit[] = {3, 2};
    assert_int_equal(wk_queue_on_incident(&p, ctx, hit, 2, &err), 0);
    const uint32_t again[] = {4};
    assert_int_equal(wk_queue_on_incident(&p, ctx, again, 1, &err), 0);
    const uint32_t want[] = {4, 3, 2, 0, 1};
    assert_int_equal(wk_queue_queued(&p), 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(wk_queue_at(&p.q, i)->job, want[i]);
    assert_int_equal(p.waiting_gpus, 1 + 2 + 3 + 4 + 5);
    wk_queue_dequeue(&p, ctx, 1); /* job 3 */
    assert_int_equal(p.waiting_gpus, 1 + 2 + 3 + 5);
    wk_queue_policy_fini(&p);
    test_run_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_orders_by_key_then_arrival_and_requeues_in_place),
        cmocka_unit_test(test_sjf_starts_the_smallest_gpu_time_first),
        cmocka_unit_test(test_backfill_runs_a_short_job_without_delaying_the_head),
        cmocka_unit_test(test_backfill_uses_only_the_gpus_the_head_will_not_need),
        cmocka_unit_test(test_las_demotes_a_long_job_and_a_new_short_job_preempts_it),
        cmocka_unit_test(test_las_never_preempts_within_the_restart_cost),
        cmocka_unit_test(test_las_refuses_bad_thresholds),
        cmocka_unit_test(test_topo_packs_a_64_gpu_job_into_one_leaf),
        cmocka_unit_test(test_hetero_prefers_the_faster_sku_when_both_are_free),
        cmocka_unit_test(test_hetero_mixes_skus_only_with_span),
        cmocka_unit_test(test_priority_with_preempt_lets_a_high_priority_job_in),
        cmocka_unit_test(test_priority_preempts_only_when_that_makes_room),
        cmocka_unit_test(test_priority_runs_higher_classes_first_fifo_within),
        cmocka_unit_test(test_placement_without_room_says_noroom_and_takes_nothing),
        cmocka_unit_test(test_exclusive_placement_gives_whole_nodes_and_best_fit),
        cmocka_unit_test(test_pool_keeps_idle_gpus_per_block_and_pod),
        cmocka_unit_test(test_pool_hold_and_release_all_equal_one_gpu_at_a_time),
        cmocka_unit_test(test_slurm_orders_by_size_and_by_age_once_recalculated),
        cmocka_unit_test(test_slurm_backfills_without_delaying_the_head_reservation),
        cmocka_unit_test(test_queue_policy_puts_incident_jobs_at_the_front_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
