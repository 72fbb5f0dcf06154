/* SPDX-License-Identifier: Apache-2.0 */
/* test_run.c — the run driver against independent expectations: Erlang-C
 * queue wait for M/M/c under FIFO, exact GPU-second conservation,
 * determinism, FIFO's order and placement, rejection, scenario errors. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/run/hooks.h"
#include "models/state/state.h"
#include "models/state/types.h"

/* M/M/c: probability of waiting (Erlang C) and mean wait W_q = C/(c mu - lambda). */
static double erlang_c_wait(int c, double lambda, double mu)
{
    double a = lambda / mu, rho = a / c;
    double term = 1, sum = 0; /* a^k / k! */
    for (int k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term / (1 - rho); /* term is now a^c / c! */
    double pw = top / (sum + top);
    return pw / (c * mu - lambda);
}

static void test_fifo_mmc_wait_matches_erlang_c(void **state)
{
    (void)state;
    /* c = 8 single-GPU servers, mean service 1 h, rho = 0.7, 2 M jobs: the
     * standard error of the mean wait is about 1.5 % here (measured over
     * seeds), so the 5 % band is more than 3 standard errors wide. */
    const int c = 8;
    const double mu = 1.0 / 3600.0, lambda = 0.7 * c * mu;
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "seed: 2024\n"
             "cluster: {sku: A100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
             "workload:\n"
             "  source: synthetic\n"
             "  jobs: 2000000\n"
             "  interarrival: {dist: exponential, mean: %.6fs}\n"
             "  duration: {dist: exponential, mean: 1h}\n"
             "  gpus: 1\n"
             "sim: {sample_interval: 30d}\n"
             "scheduler: fifo\n",
             1.0 / lambda);
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    double want = erlang_c_wait(c, lambda, mu);
    double got = test_metric(&t, "wait_mean_s");
    print_message("M/M/8 rho=0.7: Erlang-C Wq = %.2f s, simulated %.2f s (%+.2f %%)\n", want, got,
                  100 * (got - want) / want);
    assert_true(fabs(got - want) / want < 0.05);
    test_run_free(&t);
}

static const char *const quick =
    "name: q\n"
    "seed: 7\n"
    "cluster: {nodes: 6, gpus_per_node: 8}\n"
    "workload:\n"
    "  source: synthetic\n"
    "  jobs: 2000\n"
    "  interarrival: {dist: exponential, mean: 60s}\n"
    "  duration: {dist: lognormal, median: 20m, sigma: 1.4}\n"
    "  gpus: [{gpus: 1, weight: 5}, {gpus: 4, weight: 2}, {gpus: 8, weight: 2}, {gpus: 24, weight: 1}]\n"
    "sim: {sample_interval: 5m}\n";

static void test_gpu_seconds_are_conserved_exactly(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t, quick, NULL);
    WkRunAccount a;
    wk_run_account(t.run, &a);
    wk_u128 alloc = ((wk_u128)a.alloc_hi << 64) | a.alloc_lo;
    wk_u128 idle = ((wk_u128)a.idle_hi << 64) | a.idle_lo;
    wk_u128 down = ((wk_u128)a.down_hi << 64) | a.down_lo;
    wk_u128 total = (wk_u128)wk_run_gpus(t.run) * (wk_u128)a.end_ns;
    assert_true(a.end_ns > 0);
    assert_true(alloc > 0 && idle > 0);
    assert_true(down == 0); /* no failures in this scenario */
    assert_true(alloc + idle + down == total);
    /* and the allocated part equals the GPU-time of the completed jobs */
    wk_u128 work = 0;
    for (size_t i = 0; i < wk_run_hooks_workload(t.run)->n; i++)
        work += (wk_u128)wk_run_hooks_workload(t.run)->jobs[i].gpus * (wk_u128)wk_run_hooks_workload(t.run)->jobs[i].duration;
    assert_true(alloc == work);
    test_run_free(&t);
}

/* With GPUs going down and coming back (a node down while idle, a node down
 * under a job), allocated + idle + down GPU-time is still GPUs x the run's
 * length exactly, and the down part is the closed form: 8 GPUs x 2 h for the
 * idle node (never allocated meanwhile), plus the failed node's time down
 * while no job held it. */
static void test_gpu_seconds_with_down_gpus_are_conserved_exactly(void **state)
{
    (void)state;
    const char *yaml = "cluster: {nodes: 4, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 16, duration: 10h}\n"
                       "failures:\n"
                       "  enabled: false\n"
                       "  incidents:\n"
                       "    - {at: 1h, kind: down, node: 3, duration: 2h}\n"
                       "checkpoint: {interval: none}\n"
                       "recovery: {mode: reschedule}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    WkRunAccount a;
    wk_run_account(t.run, &a);
    wk_u128 alloc = ((wk_u128)a.alloc_hi << 64) | a.alloc_lo;
    wk_u128 idle = ((wk_u128)a.idle_hi << 64) | a.idle_lo;
    wk_u128 down = ((wk_u128)a.down_hi << 64) | a.down_lo;
    assert_true(a.end_ns > 0);
    assert_true(alloc + idle + down == (wk_u128)wk_run_gpus(t.run) * (wk_u128)a.end_ns);
    /* node 3 was free (first fit holds nodes 0-1): 8 GPUs down for 2 h */
    assert_true(down == (wk_u128)8 * (wk_u128)(2 * WK_NS_PER_H));
    test_run_free(&t);

    /* node 0 fails under the job: its GPUs count as allocated while the hung
     * job holds them and as down after it lets go, never as idle */
    char hit[1024];
    snprintf(hit, sizeof hit, "%s", yaml);
    char *node = strstr(hit, "node: 3");
    assert_non_null(node);
    node[6] = '0';
    test_run_yaml(&t, hit, NULL);
    wk_run_account(t.run, &a);
    alloc = ((wk_u128)a.alloc_hi << 64) | a.alloc_lo;
    idle = ((wk_u128)a.idle_hi << 64) | a.idle_lo;
    down = ((wk_u128)a.down_hi << 64) | a.down_lo;
    assert_true(alloc + idle + down == (wk_u128)wk_run_gpus(t.run) * (wk_u128)a.end_ns);
    assert_true(down > 0 && down < (wk_u128)8 * (wk_u128)(2 * WK_NS_PER_H));
    test_run_free(&t);
}

/* A 2 h job on every GPU, throttled to half clock for its whole run: it
 * holds all GPUs for 4 h (allocated utilization 1) but does 2 h of work at
 * nominal speed (useful-work utilization and goodput 1/2). A slower run no
 * longer looks like a busier one. */
static void test_useful_work_counts_speed_not_time_held(void **state)
{
    (void)state;
    const char *yaml = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 8, duration: 2h}\n"
                       "failures:\n"
                       "  enabled: false\n"
                       "  incidents:\n"
                       "    - {at: 0s, kind: throttle, node: 0, clock: 0.5, duration: 30d}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_float_equal(test_metric(&t, "makespan_s"), 4 * 3600.0, 1e-6);
    assert_float_equal(test_metric(&t, "utilization"), 1.0, 1e-12);
    assert_float_equal(test_metric(&t, "util_effective"), 0.5, 1e-9);
    assert_float_equal(test_metric(&t, "goodput"), 0.5, 1e-9);
    test_run_free(&t);
}

/* A plain job's `duration` is run time on the reference SKU (the first node
 * group's) at full clock: on A100s of a cluster whose first group is H100 it
 * runs at 312/989 of the reference speed (docs/models.md "Job execution"). */
static void test_plain_job_on_a_slower_sku_runs_at_its_peak_ratio(void **state)
{
    (void)state;
    const char *yaml = "cluster:\n"
                       "  groups:\n"
                       "    - {name: h, sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
                       "    - {name: a, sku: A100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 8, duration: 1h}\n"
                       "    - {submit: 0, gpus: 8, duration: 1h}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    /* the first job takes the H100 node (1 h), the second the A100 node */
    assert_float_equal(test_metric(&t, "makespan_s"), 3600.0 * 989.0 / 312.0, 1e-6);
    test_run_free(&t);
}

/* tflops_per_gpu is model FLOPs over GPU-time actually running: a model job
 * that waits 10 h behind another job shows the same figure as when it runs
 * alone (queue time used to be counted in the denominator). */
static void test_tflops_per_gpu_does_not_count_queue_time(void **state)
{
    (void)state;
    const char *fmt = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                      "checkpoint: {interval: none}\n"
                      "workload:\n"
                      "  source: inline\n"
                      "  jobs:\n"
                      "%s"
                      "    - {submit: 0, gpus: 8, iterations: 200, model: {base: llama3-8b, tp: 2, global_batch: 256}}\n";
    char alone[1024], behind[1024];
    snprintf(alone, sizeof alone, fmt, "");
    snprintf(behind, sizeof behind, fmt, "    - {submit: 0, gpus: 8, duration: 10h}\n");
    TestRun a, b;
    test_run_yaml(&a, alone, NULL);
    test_run_yaml(&b, behind, NULL);
    double ta = test_metric(&a, "tflops_per_gpu"), tb = test_metric(&b, "tflops_per_gpu");
    assert_true(ta > 10.0 && ta < 989.0);
    assert_float_equal(tb, ta, 1e-9 * ta);
    assert_true(test_metric(&b, "makespan_s") > 36000.0);
    test_run_free(&a);
    test_run_free(&b);
}

/* A model job's nominal iteration time (alone on the first GPUs at nominal
 * clocks) is a function of its model and size, so the run keeps the last
 * WK_RUN_NOMINAL_MEMO of them: with 48 pairs (each submitted twice, more
 * than are kept) every job's kept value equals one computed afresh, bit
 * for bit. */
static void test_nominal_iteration_kept_by_model_and_size(void **state)
{
    (void)state;
    char yaml[16384];
    const unsigned tps[] = {4, 8}, gbs[] = {256, 512, 1024, 2048, 4096, 8192}, dps[] = {1, 2, 4, 8};
    int at = snprintf(yaml, sizeof yaml, "cluster: {nodes: 8, gpus_per_node: 8}\n"
                                         "checkpoint: {interval: none}\n"
                                         "models:\n");
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 6; b++)
            at += snprintf(yaml + at, sizeof yaml - (size_t)at, "  m%d%d: {base: llama3-8b, tp: %u, global_batch: %u}\n",
                           a, b, tps[a], gbs[b]);
    at += snprintf(yaml + at, sizeof yaml - (size_t)at, "workload:\n  source: inline\n  jobs:\n");
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 6; b++)
            for (int d = 0; d < 4; d++)
                for (int twice = 0; twice < 2; twice++)
                    at += snprintf(yaml + at, sizeof yaml - (size_t)at,
                                   "    - {submit: 0, gpus: %u, iterations: 3, model: m%d%d}\n", tps[a] * dps[d], a, b);
    assert_true(at > 0 && (size_t)at < sizeof yaml);
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    WkRun *r = t.run;
    assert_int_equal(r->wl.n, 96);
    assert_int_equal(r->nnominal, 48); /* one computed per pair, past the 32 kept */
    for (uint32_t j = 0; j < r->wl.n; j++) {
        double kept = r->rt[j].nominal_iter_s;
        assert_true(isfinite(kept) && kept > 0);
        r->rt[j].nominal_iter_s = 0;
        r->nnominal = 0;
        double fresh = wk_progress_nominal_iter_s(r, j);
        assert_memory_equal(&kept, &fresh, sizeof kept);
    }
    test_run_free(&t);
}

static void test_same_seed_gives_identical_summary_bytes(void **state)
{
    (void)state;
    TestRun a, b, c;
    test_run_yaml(&a, quick, NULL);
    test_run_yaml(&b, quick, NULL);
    WkRunOpts o = {.has_seed = 1, .seed = 8};
    test_run_yaml(&c, quick, &o);
    char *ja = wk_summary_json(&a.sum), *jb = wk_summary_json(&b.sum), *jc = wk_summary_json(&c.sum);
    assert_non_null(ja);
    assert_string_equal(ja, jb);
    assert_string_not_equal(ja, jc);
    free(ja);
    free(jb);
    free(jc);
    test_run_free(&a);
    test_run_free(&b);
    test_run_free(&c);
}

static void test_fifo_head_blocks_and_first_fit_places_lowest_gpus(void **state)
{
    (void)state;
    /* 16 GPUs. Job0 takes 12 for 10 s; job1 needs 8 and must wait until 10 s;
     * job2 (1 GPU, submitted after job1) must wait behind job1 although 4 GPUs are free. */
    const char *yaml = "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 12, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 8, duration: 5s}\n"
                       "    - {submit: 2s, gpus: 1, duration: 1s}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    WkRunJobView j0 = wk_run_hooks_job(t.run, 0), j1 = wk_run_hooks_job(t.run, 1), j2 = wk_run_hooks_job(t.run, 2);
    assert_int_equal(j0.start, 0);
    assert_int_equal(j1.start, 10 * WK_NS_PER_S);
    assert_int_equal(j2.start, 10 * WK_NS_PER_S);
    assert_int_equal(j1.end, 15 * WK_NS_PER_S);
    assert_int_equal(j2.end, 11 * WK_NS_PER_S);
    assert_float_equal(test_metric(&t, "makespan_s"), 15.0, 1e-12);
    /* waits: 0, 9, 8 → mean 17/3 */
    assert_float_equal(test_metric(&t, "wait_mean_s"), 17.0 / 3.0, 1e-9);
    /* utilization = (12*10 + 8*5 + 1*1) / (16 * 15) */
    assert_float_equal(test_metric(&t, "utilization"), 161.0 / 240.0, 1e-12);
    test_run_free(&t);

    /* Placement: stop at 10.5 s, while job1 and job2 run on the lowest free GPUs. */
    char cut[1024];
    snprintf(cut, sizeof cut, "sim: {end: 10500ms}\n%s", yaml);
    test_run_yaml(&t, cut, NULL);
    j1 = wk_run_hooks_job(t.run, 1);
    j2 = wk_run_hooks_job(t.run, 2);
    assert_non_null(j1.gpus);
    assert_non_null(j2.gpus);
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(j1.gpus[i], i);
    assert_int_equal(j2.gpus[0], 8);
    test_run_free(&t);
}

static void test_job_larger_than_cluster_is_rejected_not_blocking(void **state)
{
    (void)state;
    const char *yaml = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 16, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 8, duration: 5s}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal((int)test_metric(&t, "jobs_rejected"), 1);
    assert_int_equal((int)test_metric(&t, "jobs_completed"), 1);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 1 * WK_NS_PER_S);
    test_run_free(&t);
}

static void test_per_gpu_utilization_spread_is_closed_form(void **state)
{
    (void)state;
    /* 16 GPUs, one 8-GPU job for the whole 10 s: half the GPUs at 1, half at 0
     * → population std dev 0.5; then a second 4-GPU job over 5 of 10 s
     * would give GPU utilizations {1 x 8, 0.5 x 4, 0 x 4}. */
    TestRun t;
    test_run_yaml(&t, "cluster: {nodes: 2}\nworkload: {source: inline, jobs: [{submit: 0, gpus: 8, duration: 10s}]}\n",
                  NULL);
    assert_float_equal(test_metric(&t, "util_gpu_std"), 0.5, 1e-9);
    test_run_free(&t);
    test_run_yaml(&t,
                  "cluster: {nodes: 2}\nworkload: {source: inline, jobs: [{submit: 0, gpus: 8, duration: 10s},"
                  " {submit: 0, gpus: 4, duration: 5s}]}\n",
                  NULL);
    double u[16] = {1, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 0}, m = 0, v = 0;
    for (int i = 0; i < 16; i++)
        m += u[i] / 16;
    for (int i = 0; i < 16; i++)
        v += (u[i] - m) * (u[i] - m) / 16;
    assert_float_equal(test_metric(&t, "util_gpu_std"), sqrt(v), 1e-9);
    assert_float_equal(test_metric(&t, "utilization"), m, 1e-12);
    test_run_free(&t);
}

static void test_horizon_leaves_jobs_unfinished(void **state)
{
    (void)state;
    const char *yaml = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                       "sim: {end: 100s}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 8, duration: 60s}\n"
                       "    - {submit: 0, gpus: 8, duration: 60s}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal((int)test_metric(&t, "jobs_completed"), 1);
    assert_int_equal((int)test_metric(&t, "jobs_unfinished"), 1);
    assert_true(isnan(test_metric(&t, "makespan_s")));
    assert_float_equal(test_metric(&t, "simulated_s"), 100.0, 1e-12);
    assert_float_equal(test_metric(&t, "utilization"), 1.0, 1e-12);
    test_run_free(&t);
}

static void expect_error(const char *yaml, const char *where, const char *fragment)
{
    WkError err;
    int rc = test_prepare_yaml(yaml, &err);
    assert_true(rc < 0);
    assert_int_equal(wk_error_exit_status(rc), 2);
    if (strcmp(err.where, where) != 0 || !strstr(err.msg, fragment))
        fail_msg("got '%s: %s', want '%s: ...%s...'", err.where, err.msg, where, fragment);
}

static void test_scenario_errors_name_position_and_key(void **state)
{
    (void)state;
    expect_error("cluster: {nodes: 2}\nworkload: {source: inline, jobs: []}\nbogus: 1\n", "bad.yaml:3:1",
                 "bogus");
    expect_error("cluster:\n  nodes: 0\nworkload: {source: inline, jobs: []}\n", "bad.yaml:2:10",
                 "cluster.nodes");
    expect_error("cluster:\n  nodes: -4\nworkload: {source: inline, jobs: []}\n", "bad.yaml:2:10",
                 "cluster.nodes");
    expect_error("cluster:\n  nodes: many\nworkload: {source: inline, jobs: []}\n", "bad.yaml:2:10",
                 "cluster.nodes");
    expect_error("cluster: {nodes: 2, sku: Z80}\nworkload: {source: inline, jobs: []}\n", "bad.yaml:1:26",
                 "H100-SXM-80G");
    expect_error("cluster: {nodes: 2}\nworkload: {source: inline, jobs: []}\nscheduler: lottery\n",
                 "bad.yaml:3:12", "unknown scheduler 'lottery' (known: fifo");
    expect_error("cluster: {nodes: 2}\nworkload: {source: magic}\n", "bad.yaml:2:20", "known: inline, synthetic, philly, swf, alibaba");
    expect_error("cluster: {nodes: 2}\nworkload:\n  source: inline\n  jobs:\n    - {gpus: 0, duration: 1h}\n",
                 "bad.yaml:5:14", "workload.jobs[0].gpus");
    expect_error("cluster: {nodes: 2}\nworkload: {source: synthetic, jobs: 10, duration: -3s}\n", "bad.yaml:2:51",
                 "workload.duration");
    expect_error("cluster: {nodes: 2}\nworkload: {source: philly, trace: /nonexistent/philly.csv}\n",
                 "/nonexistent/philly.csv", "No such file");
    expect_error("cluster: {nodes: 4000000, gpus_per_node: 8}\nworkload: {source: inline, jobs: []}\n", "bad.yaml:1:18",
                 "4000000");
}

/* A job's end is its segment start plus the time left, in integer ns: past
 * 2^53 ns (about 104 days) a double holds only even ns, and a double sum
 * posted an end 1 ns before `from` (in the past) when nothing was left. */
static void test_end_time_past_day_104_is_exact(void **state)
{
    (void)state;
    WkTime from = (INT64_C(1) << 53) + 1; /* odd: no double holds it */
    assert_int_equal(wk_run_time_after(from, 0.0), from);
    assert_int_equal(wk_run_time_after(from, 1e-9), from + 1);
    assert_int_equal(wk_run_time_after(from, 2.5e-9), from + 3); /* rounded up */
    WkTime later = from + 180 * WK_NS_PER_DAY + 7;
    assert_int_equal(wk_run_time_after(later, 3600.0), later + WK_NS_PER_H);
    /* past the limit of a run: just past it, never reached */
    assert_int_equal(wk_run_time_after(WK_RUN_MAX_TIME - 5, 1e-8), WK_RUN_MAX_TIME + 1);
    assert_int_equal(wk_run_time_after(WK_RUN_MAX_TIME - 5, 5e-9), WK_RUN_MAX_TIME);
    assert_int_equal(wk_run_time_after(0, INFINITY), WK_RUN_MAX_TIME + 1);
    assert_int_equal(wk_run_time_after(0, NAN), WK_RUN_MAX_TIME + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_mmc_wait_matches_erlang_c),
        cmocka_unit_test(test_gpu_seconds_are_conserved_exactly),
        cmocka_unit_test(test_gpu_seconds_with_down_gpus_are_conserved_exactly),
        cmocka_unit_test(test_useful_work_counts_speed_not_time_held),
        cmocka_unit_test(test_plain_job_on_a_slower_sku_runs_at_its_peak_ratio),
        cmocka_unit_test(test_tflops_per_gpu_does_not_count_queue_time),
        cmocka_unit_test(test_same_seed_gives_identical_summary_bytes),
        cmocka_unit_test(test_fifo_head_blocks_and_first_fit_places_lowest_gpus),
        cmocka_unit_test(test_job_larger_than_cluster_is_rejected_not_blocking),
        cmocka_unit_test(test_per_gpu_utilization_spread_is_closed_form),
        cmocka_unit_test(test_horizon_leaves_jobs_unfinished),
        cmocka_unit_test(test_scenario_errors_name_position_and_key),
        cmocka_unit_test(test_end_time_past_day_104_is_exact),
        cmocka_unit_test(test_nominal_iteration_kept_by_model_and_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
