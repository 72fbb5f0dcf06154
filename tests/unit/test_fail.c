/* SPDX-License-Identifier: Apache-2.0 */
/* test_fail.c — failures and recovery against closed forms: a job on N
 * nodes is interrupted at N x the node failure rate; the simulated ETTR of
 * one long job matches 1 - delta/tau - (tau/2 + R)/M; the Young interval
 * beats shorter and longer ones; a throttled rack bounds a synchronous job;
 * spares restart a job at once, a spare node in the failed node's ranks;
 * an elastic job shrinks onto the survivors and grows back after the repair;
 * waiting in place leaves exactly the running jobs' flows on the fabric;
 * bad input is refused with a position; the
 * class table: names, defaults, component counts on a k-ary fat-tree, what
 * one failure takes down; a link counts at most 255 failures in force. */
#include "tests/unit/testutil.h"

#include <math.h>
#include <stdarg.h>

#include "models/fail/fail.h"
#include "models/fail/fail_class.h"
#include "sim/trace/schema.h"
#include "models/run/hooks.h"

/* All classes off but nodes: exponential node failures, MTBF `node_days`. */
static const char *only_nodes =
    "failures:\n"
    "  health_check: 0s\n"
    "  classes:\n"
    "    gpu: {enabled: false}\n    hbm: {enabled: false}\n    nic: {enabled: false}\n"
    "    link: {enabled: false}\n    software: {enabled: false}\n    sdc: {enabled: false}\n"
    "    maintenance: {enabled: false}\n"
    "    node: {mtbf: {dist: exponential, mean: %s}, repair: {dist: exponential, mean: 1h}}\n";

static void test_job_on_n_nodes_fails_at_n_times_node_rate(void **state)
{
    (void)state;
    char y[2048], f[1024];
    snprintf(f, sizeof f, only_nodes, "10d");
    snprintf(y, sizeof y,
             "cluster: {nodes: 32}\n%s"
             "checkpoint: {interval: none, launch: 0s}\n"
             "sim: {end: 5000d, sample_interval: 1000d}\n"
             "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 128, duration: 20000d}]\n",
             f);
    TestRun t;
    test_run_yaml(&t, y, NULL);
    double n = test_metric(&t, "interruptions");
    double mttf_days = 5000.0 / n, want = 10.0 / 16;
    print_message("16 nodes at MTBF 10 d: %.0f interruptions in 5000 d, MTTF %.4f d (closed form %.4f d)\n", n,
                  mttf_days, want);
    assert_true(fabs(mttf_days - want) / want < 0.05);
    test_run_free(&t);
}

/* One long job on 16 of 32 nodes, checkpoint every tau, cost delta, restart R. */
static double ettr_run(double tau_s, double *mttf_s, double *delta_s, double *restart_s)
{
    char y[2048], f[1024];
    snprintf(f, sizeof f, only_nodes, "16d"); /* job MTTF = 16 d / 16 = 1 d */
    /* delta: 60 GB at 1 GB/s = 60 s; R = launch 540 s + restore 60 s = 600 s */
    snprintf(y, sizeof y,
             "cluster: {nodes: 32}\n%s"
             "checkpoint: {interval: %.3fs, plain_gb: 60, storage_gb_per_s: 1, launch: 540s}\n"
             "sim: {sample_interval: 1000d}\n"
             "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 128, duration: 3000d}]\n",
             f, tau_s);
    TestRun t;
    test_run_yaml(&t, y, NULL);
    double e = test_metric(&t, "ettr");
    test_run_free(&t);
    *mttf_s = 86400;
    *delta_s = 60;
    *restart_s = 600;
    return e;
}

static void test_ettr_matches_first_order_expression(void **state)
{
    (void)state;
    double m, d, r;
    double sim = ettr_run(3600, &m, &d, &r);
    double want = wk_ckpt_ettr_first_order(3600, d, r, m);
    print_message("tau 1 h, delta 60 s, R 600 s, M 1 d: ETTR simulated %.4f, first order %.4f\n", sim, want);
    assert_true(fabs(sim - want) < 0.01);
}

static void test_young_interval_beats_shorter_and_longer(void **state)
{
    (void)state;
    double m, d, r;
    double ty = wk_ckpt_young_s(60, 86400); /* sqrt(2 * 60 * 86400) = 3220 s */
    double e_short = ettr_run(ty / 4, &m, &d, &r), e_y = ettr_run(ty, &m, &d, &r), e_long = ettr_run(ty * 4, &m, &d, &r);
    print_message("ETTR at tau/4 %.4f, Young %.4f (tau %.0f s), 4 tau %.4f\n", e_short, e_y, ty, e_long);
    assert_true(e_y > e_short);
    assert_true(e_y > e_long);
    /* Daly is Young refined for large delta/M; here they nearly agree */
    assert_true(fabs(wk_ckpt_daly_s(60, 86400) - ty) / ty < 0.05);
}

static void test_throttled_rack_bounds_a_synchronous_job(void **state)
{
    (void)state;
    /* rack 3 = nodes 12..15 = GPUs 96..127, throttled to 0.5 for 10 days from day 0 */
    const char *base = "cluster: {nodes: 32, fabric: {kind: rail, radix: 64}}\n"
                       "failures:\n  enabled: false\n"
                       "  incidents: [{at: 0s, kind: throttle, rack: 3, clock: 0.5, duration: 10d}]\n"
                       "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 256, model: %s, iterations: 20}]\n";
    char y[1024];
    TestRun slow, fast, reb;
    snprintf(y, sizeof y, base, "{base: llama3-8b, global_batch: 256}");
    test_run_yaml(&slow, y, NULL);
    snprintf(y, sizeof y, base, "{base: llama3-8b, global_batch: 256, rebalance: true}");
    test_run_yaml(&reb, y, NULL);
    test_run_yaml(&fast, "cluster: {nodes: 32, fabric: {kind: rail, radix: 64}}\n"
                         "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 256, model: {base: llama3-8b, "
                         "global_batch: 256}, iterations: 20}]\n",
                  NULL);
    double ts = wk_run_hooks_job(slow.run, 0).iter_s, tf = wk_run_hooks_job(fast.run, 0).iter_s,
           tr = wk_run_hooks_job(reb.run, 0).iter_s;
    print_message("iteration: nominal %.4f s, 32 GPUs at half clock %.4f s (%+.1f %%), rebalanced %.4f s (%+.1f %%)\n", tf,
                  ts, 100 * (ts / tf - 1), tr, 100 * (tr / tf - 1));
    assert_true(ts > 1.8 * tf);
    assert_true(tr < 1.1 * tf && tr > tf);
    assert_int_equal((int)test_metric(&slow, "incidents"), 1);
    test_run_free(&slow);
    test_run_free(&fast);
    test_run_free(&reb);
}

/* Useful work is counted at nominal speed: a job that starts on throttled
 * GPUs does the same useful work as one on full-clock GPUs (the reference
 * iteration time is taken at clock 1, not at the clocks of the moment). */
static void test_useful_work_reference_ignores_throttles_at_start(void **state)
{
    (void)state;
    const char *base = "cluster: {nodes: 4}\nsim: {end: 10d}\n"
                       "failures:\n  enabled: false\n"
                       "  incidents: [{at: 0s, kind: throttle, node: 0, clock: %s, duration: 10d}]\n"
                       "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 8, model: {base: llama3-8b, tp: 2,"
                       " global_batch: 64}, iterations: 50}]\n";
    char y[1024];
    TestRun slow, full;
    snprintf(y, sizeof y, base, "0.5");
    test_run_yaml(&slow, y, NULL);
    snprintf(y, sizeof y, base, "1.0");
    test_run_yaml(&full, y, NULL);
    assert_true(wk_run_hooks_job(slow.run, 0).iter_s > 1.8 * wk_run_hooks_job(full.run, 0).iter_s);
    /* the run ends with the job: the same useful GPU-seconds over a longer T */
    double us = test_metric(&slow, "util_effective") * test_metric(&slow, "simulated_s");
    double uf = test_metric(&full, "util_effective") * test_metric(&full, "simulated_s");
    print_message("useful work / GPUs: throttled %.6g s, full clock %.6g s\n", us, uf);
    assert_float_equal(us, uf, uf * 1e-6);
    test_run_free(&slow);
    test_run_free(&full);
}

static void test_spares_restart_a_job_without_waiting_for_repair(void **state)
{
    (void)state;
    /* 17 nodes, 1 spare: the job holds the other 16; a node dies at day 1 and
     * takes a week to repair. With the spare the job is back after detection
     * + restart; without, it waits for the repair. */
    const char *y = "cluster: {nodes: 17}\n"
                    "failures:\n  enabled: false\n  health_check: 0s\n"
                    "  incidents: [{at: 1d, kind: down, node: 3, duration: 7d}]\n"
                    "checkpoint: {interval: none, launch: 600s}\n"
                    "recovery: {mode: spares, spare_nodes: 1}\n"
                    "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 128, duration: 3d}]\n";
    TestRun t;
    test_run_yaml(&t, y, NULL);
    assert_int_equal((int)test_metric(&t, "interruptions"), 1);
    WkRunIncidentView row = wk_run_hooks_incident(t.run, 0);
    print_message("recovery with a spare: %.1f s (restart %.1f s)\n", row.recovery_s, row.restart_s);
    assert_true(row.recovery_s >= 600 && row.recovery_s < 700);
    /* no checkpoint: all of day 1 is lost, the job ends 1 d + 600 s + 3 d after start */
    assert_float_equal(test_metric(&t, "makespan_s"), 86400 + row.recovery_s + 3 * 86400, 0.5);
    test_run_free(&t);
}

/* A 128-GPU job with TP 8 on nodes 0..15 of 17, node 16 a hot spare; `%s`
 * is its incidents list. */
static const char *spare_tp8 = "cluster: {nodes: 17}\n"
                               "failures: {enabled: false, health_check: 0s, incidents: %s}\n"
                               "checkpoint: {interval: none, launch: 60s}\n"
                               "recovery: {mode: spares, spare_nodes: 1}\nsim: {end: 1d}\n"
                               "workload: {source: inline, jobs: [{submit: 0, gpus: 128, iterations: 1000000,\n"
                               "                                   model: {base: llama3-8b, tp: 8, global_batch: 256}}]}\n";

/* Run the scenario that fmt and the arguments print. */
static void run_format(TestRun *t, const char *fmt, ...)
{
    char y[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(y, sizeof y, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof y);
    test_run_yaml(t, y, NULL);
}

/* A software failure at 80 h of a 5-day job with failures otherwise off
 * (the form scripted incidents use): a fixed checkpoint interval holds, so
 * the job loses at most one interval of work; with `interval: none` it
 * loses all 80 h. */
static const char *scripted_80h = "cluster: {nodes: 16}\n"
                                  "failures: {enabled: false, incidents: [{at: 80h, kind: software, node: 0}]}\n"
                                  "checkpoint: {interval: %s}\n"
                                  "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 128, duration: 5d}]\n";

static void test_fixed_interval_checkpoints_without_random_failures(void **state)
{
    (void)state;
    TestRun hourly, none;
    run_format(&hourly, scripted_80h, "1h");
    run_format(&none, scripted_80h, "none");
    assert_int_equal((int)test_metric(&hourly, "interruptions"), 1);
    assert_int_equal((int)test_metric(&none, "interruptions"), 1);
    double lost = test_metric(&hourly, "lost_gpu_hours"), all = test_metric(&none, "lost_gpu_hours");
    print_message("lost GPU-h: hourly checkpoints %.1f, none %.1f\n", lost, all);
    assert_true(lost > 0 && lost <= 128 * 1.0 + 1e-6);
    assert_float_equal(all, 128 * 80.0, 1e-6);
    test_run_free(&hourly);
    test_run_free(&none);
}

/* Young and Daly derive the interval from the random failures' rates: with
 * none running, naming them is a positioned error; the default rule then
 * writes no checkpoints (docs/scenarios.md). */
static void test_young_without_failure_rates_is_a_positioned_error(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"failures: {enabled: false}\ncheckpoint: {interval: young}\n", "failures.enabled is false"},
        {"checkpoint: {interval: daly}\n", "no failures section"},
        {"failures: {classes: {gpu: {enabled: false}, hbm: {enabled: false}, nvswitch: {enabled: false},"
         " nic: {enabled: false}, node: {enabled: false}, link: {enabled: false}, switch: {enabled: false},"
         " software: {enabled: false}, sdc: {enabled: false}, maintenance: {enabled: false}}}\n"
         "checkpoint: {interval: young}\n",
         "every failure class is disabled"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char y[1024];
        snprintf(y, sizeof y, "cluster: {nodes: 2}\n%sworkload: {source: inline, jobs: [{submit: 0, gpus: 8, duration: 1h}]}\n",
                 cases[i][0]);
        WkError err;
        assert_int_equal(test_prepare_yaml(y, &err), WK_E_INVAL);
        assert_non_null(strstr(err.msg, cases[i][1]));
        assert_non_null(strstr(err.msg, "give the interval as a duration"));
        assert_non_null(strstr(err.where, "bad.yaml:"));
    }
    /* the default rule without random failures: no checkpoint, no error */
    TestRun t;
    run_format(&t, "cluster: {nodes: 16}\nfailures: {enabled: false, incidents: [{at: 80h, kind: software, node: 0}]}\n"
                   "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 128, duration: 5d}]\n");
    assert_float_equal(test_metric(&t, "lost_gpu_hours"), 128 * 80.0, 1e-6);
    test_run_free(&t);
}

/* Per-job and summary TFLOP/s agree under every recovery mode: both count
 * the FLOPs of the iterations kept over the GPU-seconds making progress,
 * so a repair the job waits for (mode wait) is in neither. */
static void test_job_and_summary_tflops_agree_under_every_recovery_mode(void **state)
{
    (void)state;
    static const char *const modes[] = {"{mode: reschedule}", "{mode: spares, spare_nodes: 1}", "{mode: wait}"};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        TestRun t;
        run_format(&t,
                   "cluster: {nodes: 9}\n"
                   "failures: {enabled: false, incidents: [{at: 1h, kind: down, node: 0, duration: 6h}]}\n"
                   "checkpoint: {interval: 30m}\nrecovery: %s\n"
                   "workload: {source: inline, jobs: [{submit: 0, gpus: 64, iterations: 20000, model: llama3-8b}]}\n",
                   modes[i]);
        assert_int_equal((int)test_metric(&t, "interruptions"), 1);
        double job = wk_run_job_row(t.run, 0).tflops, sum = test_metric(&t, "tflops_per_gpu");
        print_message("%s: job %.2f, summary %.2f TFLOP/s per GPU\n", modes[i], job, sum);
        assert_true(sum > 0);
        assert_float_equal(job, sum, sum * 1e-9);
        test_run_free(&t);
    }
}

static void test_a_spare_node_takes_the_failed_nodes_ranks(void **state)
{
    (void)state;
    TestRun hit, calm;
    /* one GPU of node 3 (ranks 24..31) fails: the spare node replaces node 3 */
    run_format(&hit, spare_tp8, "[{at: 1h, kind: down, gpu: 27, duration: 7d}]");
    run_format(&calm, spare_tp8, "[]");
    WkRunJobView v = wk_run_hooks_job(hit.run, 0), w = wk_run_hooks_job(calm.run, 0);
    assert_int_equal(v.interruptions, 1);
    assert_int_equal(v.state, WK_JOB_RUNNING);
    for (uint32_t i = 0; i < 128; i++)
        assert_int_equal(v.gpus[i], i / 8 == 3 ? 128 + i % 8 : i);
    print_message("iteration before the failure %.4f s, after the spare stepped in %.4f s\n", w.iter_s, v.iter_s);
    assert_float_equal(v.iter_s, w.iter_s, 1e-12);
    test_run_free(&hit);
    test_run_free(&calm);
}

static void test_wait_mode_holds_the_gpus_until_the_repair(void **state)
{
    (void)state;
    /* 32 nodes, the job on 16; node 3 is down from day 1 for 2 h. Waiting in
     * place, the job restarts on the same GPUs after the repair + launch. */
    const char *y = "cluster: {nodes: 32}\n"
                    "failures:\n  enabled: false\n  health_check: 0s\n"
                    "  incidents: [{at: 1d, kind: down, node: 3, duration: 2h}]\n"
                    "checkpoint: {interval: none, launch: 600s}\n"
                    "recovery: {mode: wait}\n"
                    "workload:\n  source: inline\n  jobs: [{submit: 0, gpus: 128, duration: 3d}]\n";
    TestRun t;
    test_run_yaml(&t, y, NULL);
    WkRunIncidentView row = wk_run_hooks_incident(t.run, 0);
    print_message("wait in place: recovery %.1f s (repair 7200 s + launch 600 s)\n", row.recovery_s);
    assert_float_equal(row.recovery_s, 7200 + 600, 0.05);
    /* it restarted on its own GPUs: 0..127 */
    for (uint32_t i = 0; i < 128; i++)
        assert_int_equal(wk_run_hooks_job(t.run, 0).gpus[i], i);
    assert_float_equal(test_metric(&t, "makespan_s"), 86400 + 7800 + 3 * 86400, 0.5);
    test_run_free(&t);
}

/* The fabric holds exactly the flows of the jobs running now. */
static void assert_fabric_holds_running_flows(const TestRun *t)
{
    size_t sum = 0;
    for (size_t j = 0; j < wk_run_hooks_workload(t->run)->n; j++) {
        WkRunJobView v = wk_run_hooks_job(t->run, (uint32_t)j);
        if (v.state == WK_JOB_RUNNING)
            sum += v.nflows;
    }
    assert_int_equal(wk_run_hooks_fabric_flows(t->run), sum);
}

static void test_wait_mode_restart_in_place_replaces_the_flows(void **state)
{
    (void)state;
    TestRun t;
    /* a 16-GPU job spans two NVLink domains, so its rings cross the fabric;
     * a software failure leaves every GPU up, so waiting in place restarts
     * it at once on the same GPUs: its old flows must leave the fabric */
    const char *y = "cluster: {nodes: 8, fabric: {kind: rail, radix: 64}}\n"
                    "failures: {enabled: false, health_check: 0s, incidents: [{at: 1h, kind: software, node: 0}]}\n"
                    "recovery: {mode: wait}\ncheckpoint: {interval: none, launch: 60s}\nsim: {end: 1d}\n"
                    "workload: {source: inline, jobs: [{submit: 0, gpus: 16, iterations: 1000000,\n"
                    "                                   model: {base: llama3-8b, global_batch: 256}}]}\n";
    test_run_yaml(&t, y, NULL);
    WkRunJobView v = wk_run_hooks_job(t.run, 0);
    assert_int_equal(v.interruptions, 1);
    assert_int_equal(v.state, WK_JOB_RUNNING);
    assert_false(v.hung);
    print_message("after the restart: job flows %u, fabric flows %zu\n", v.nflows, wk_run_hooks_fabric_flows(t.run));
    assert_true(v.nflows > 0);
    assert_fabric_holds_running_flows(&t);
    test_run_free(&t);
}

/* A small paper-sci-10k: rail fat-tree, LLM and vision jobs, software
 * failures (restart in place) and node failures (wait for the repair). */
static const char *small_sci_waiting =
    "seed: 7\n"
    "cluster: {nodes: 64, nodes_per_pod: 16, fabric: {kind: rail, tiers: 3, radix: 32}}\n"
    "failures:\n  health_check: 5m\n"
    "  classes: {software: {mtbf: 2d}, node: {mtbf: 10d}}\n"
    "recovery: {mode: wait}\n"
    "checkpoint: {interval: young}\n"
    "sim: {sample_interval: 1d}\n"
    "workload:\n  source: synthetic\n  jobs: 40\n"
    "  interarrival: {dist: exponential, mean: 2h}\n"
    "  gpus:\n"
    "    - {gpus: 16, weight: 0.4, model: {base: llama3-8b, global_batch: 256}, tokens: 2.0e10}\n"
    "    - {gpus: 64, weight: 0.3, model: {base: llama3-8b, global_batch: 512}, tokens: 5.0e10}\n"
    "    - {gpus: 8, weight: 0.3, model: resnet50, iterations: 200000}\n";

static void test_wait_mode_with_software_and_node_failures_runs_to_the_end(void **state)
{
    TestRun t;
    (void)state;
    test_run_yaml(&t, small_sci_waiting, NULL);
    double hits = test_metric(&t, "interruptions");
    print_message("%.0f interruptions, %zu jobs completed, fabric flows left %zu\n", hits,
                  wk_run_hooks_counts(t.run).completed, wk_run_hooks_fabric_flows(t.run));
    assert_true(hits >= 5);
    assert_int_equal(wk_run_hooks_counts(t.run).completed, 40);
    /* every job ended: none may leave a flow behind */
    assert_int_equal(wk_run_hooks_fabric_flows(t.run), 0);
    test_run_free(&t);
}

static void test_elastic_job_shrinks_onto_the_surviving_gpus(void **state)
{
    (void)state;
    /* DP-only 8B job on 64 GPUs, batch 512: after a node dies, 56 GPUs survive
     * and the largest DP degree that splits 512 sequences is 32. */
    const char *y = "cluster: {nodes: 8}\n"
                    "failures:\n  enabled: false\n  health_check: 0s\n"
                    "  incidents: [{at: 1h, kind: down, node: 2, duration: 30d}]\n"
                    "checkpoint: {interval: 30m, launch: 60s}\n"
                    "workload:\n  source: inline\n"
                    "  jobs: [{submit: 0, gpus: 64, model: {base: llama3-8b, global_batch: 512, elastic: true},"
                    " iterations: 2000}]\n";
    TestRun t;
    test_run_yaml(&t, y, NULL);
    assert_int_equal((int)test_metric(&t, "elastic_shrinks"), 1);
    assert_int_equal(wk_run_hooks_workload(t.run)->jobs[0].gpus, 32);
    assert_int_equal(wk_run_hooks_job(t.run, 0).state, WK_JOB_COMPLETED);
    for (uint32_t i = 0; i < 32; i++) /* none of node 2's GPUs (16..23) */
        assert_true(wk_run_hooks_job(t.run, 0).gpus[i] < 16 || wk_run_hooks_job(t.run, 0).gpus[i] >= 24);
    test_run_free(&t);
}

/* Two model jobs for 12 h under a diurnal clock of amplitude `amp`. */
static void run_diurnal(TestRun *t, const char *amp)
{
    char f[1024];
    snprintf(f, sizeof f, only_nodes, "10000d");
    run_format(t,
               "cluster: {nodes: 4}\n%s  diurnal_amplitude: %s\ncheckpoint: {interval: none}\nsim: {end: 12h}\n"
               "workload: {source: inline, jobs: [{submit: 0, gpus: 16, iterations: 1000000, model: %s},\n"
               "                                  {submit: 0, gpus: 8, iterations: 1000000, model: %s}]}\n",
               f, amp, "{base: llama3-8b, tp: 2, global_batch: 256}", "{base: llama3-8b, tp: 2, global_batch: 256}");
}

static void test_diurnal_clock_re_rates_each_running_job_once_an_hour(void **state)
{
    (void)state;
    TestRun day, flat;
    run_diurnal(&day, "0.02");
    run_diurnal(&flat, "0");
    /* each job is rated at its start, then once at each hourly step 0 h .. 11 h */
    assert_int_equal((int)test_metric(&day, "flow_reshares"), 2 + 2 * 12);
    assert_int_equal((int)test_metric(&flat, "flow_reshares"), 2);
    /* at 11 h the clock factor is 1 - 0.01 (1 - cos(2 pi 11/24)) = 0.980 */
    double slow = wk_run_hooks_job(day.run, 0).iter_s, nominal = wk_run_hooks_job(flat.run, 0).iter_s;
    print_message("iteration at 11 h: %.4f s, without the diurnal clock %.4f s\n", slow, nominal);
    assert_true(slow > nominal && slow < nominal / 0.98);
    test_run_free(&day);
    test_run_free(&flat);
}

static void test_elastic_job_grows_back_after_the_repair(void **state)
{
    (void)state;
    /* the job of the shrink test, but node 2 is back after 2 h: the job
     * returns to the 64 GPUs it asked for, its 32 survivors at their ranks */
    TestRun t;
    run_format(&t, "cluster: {nodes: 8}\n"
                   "failures: {enabled: false, health_check: 0s, incidents: [{at: 1h, kind: down, node: %d, duration: 2h}]}\n"
                   "checkpoint: {interval: 30m, launch: 60s}\n"
                   "workload: {source: inline, jobs: [{submit: 0, gpus: 64, iterations: 2000,\n"
                   "                                   model: {base: llama3-8b, global_batch: 512, elastic: true}}]}\n",
               2);
    WkRunJobView v = wk_run_hooks_job(t.run, 0);
    assert_int_equal((int)test_metric(&t, "elastic_shrinks"), 1);
    assert_int_equal(v.state, WK_JOB_COMPLETED);
    assert_int_equal(wk_run_hooks_workload(t.run)->jobs[0].gpus, 64); /* the trace's gpus_final */
    for (uint32_t i = 0; i < 32; i++) /* nodes 0, 1, 3, 4 kept their ranks */
        assert_int_equal(v.gpus[i], i < 16 ? i : i + 8);
    for (uint32_t i = 32; i < 64; i++) /* the repaired node and the idle ones after them */
        assert_true(v.gpus[i] >= 16 && (v.gpus[i] < 24 || v.gpus[i] >= 40));
    test_run_free(&t);
}

static void test_elastic_job_grows_back_when_another_job_ends(void **state)
{
    (void)state;
    /* node 2 stays down for 30 days; the elastic job shrinks to 32 GPUs (24
     * survivors left idle do not make another replica of 32); when the
     * 16-GPU job ends at 3 h, 40 free GPUs let it return to 64 */
    TestRun t;
    run_format(&t, "cluster: {nodes: 10}\n"
                   "failures: {enabled: false, health_check: 0s, incidents: [{at: 1h, kind: down, node: %d, duration: 30d}]}\n"
                   "checkpoint: {interval: 30m, launch: 60s}\n"
                   "workload: {source: inline, jobs: [{submit: 0, gpus: 64, iterations: 5000,\n"
                   "                                   model: {base: llama3-8b, global_batch: 512, elastic: true}},\n"
                   "                                  {submit: 0, gpus: 16, duration: 3h}]}\n",
               2);
    WkRunJobView v = wk_run_hooks_job(t.run, 0);
    assert_int_equal((int)test_metric(&t, "elastic_shrinks"), 1);
    assert_int_equal(wk_run_hooks_job(t.run, 1).state, WK_JOB_COMPLETED);
    assert_true(v.end > wk_run_hooks_job(t.run, 1).end);
    assert_int_equal(v.state, WK_JOB_COMPLETED);
    assert_int_equal(wk_run_hooks_workload(t.run)->jobs[0].gpus, 64);
    for (uint32_t i = 0; i < 64; i++) /* never on the dead node */
        assert_true(v.gpus[i] < 16 || v.gpus[i] >= 24);
    test_run_free(&t);
}

static void test_failure_classes_draw_from_independent_streams(void **state)
{
    (void)state;
    /* turning the software class off must not move a single GPU failure */
    const char *base = "cluster: {nodes: 64}\nsim: {end: 200d}\nfailures:\n  classes: {software: {enabled: %s}}\n"
                       "workload: {source: inline, jobs: [{submit: 0, gpus: 256, duration: 1000d}]}\n";
    char y[512];
    TestRun a, b;
    snprintf(y, sizeof y, base, "true");
    test_run_yaml(&a, y, NULL);
    snprintf(y, sizeof y, base, "false");
    test_run_yaml(&b, y, NULL);
    size_t ka = 0, kb = 0, n = 0;
    while (1) {
        while (ka < wk_run_hooks_incidents(a.run) && wk_run_hooks_incident(a.run, ka).cls != WK_FC_GPU)
            ka++;
        while (kb < wk_run_hooks_incidents(b.run) && wk_run_hooks_incident(b.run, kb).cls != WK_FC_GPU)
            kb++;
        if (ka == wk_run_hooks_incidents(a.run) || kb == wk_run_hooks_incidents(b.run))
            break;
        assert_int_equal(wk_run_hooks_incident(a.run, ka).start_ns, wk_run_hooks_incident(b.run, kb).start_ns);
        assert_int_equal(wk_run_hooks_incident(a.run, ka).component, wk_run_hooks_incident(b.run, kb).component);
        ka++, kb++, n++;
    }
    assert_true(n > 10);
    assert_true(wk_run_hooks_incidents(a.run) > wk_run_hooks_incidents(b.run));
    test_run_free(&a);
    test_run_free(&b);
}

/* ---- the class table ---- */

/* A cluster from `cluster:` YAML; the caller frees both. */
static void cluster_of(const char *yaml, WkDoc **doc, WkCluster *c)
{
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(doc, "c.yaml", yaml, strlen(yaml), &err), 0);
    if (wk_cluster_parse(wk_node_get((*doc)->root, "cluster"), c, &err) < 0)
        fail_msg("cluster: %s", err.msg);
}

static const WkFailClassInfo *row(WkFailClass c)
{
    return wk_fail_class_get(c);
}

static void test_every_class_has_one_name_and_a_consistent_row(void **state)
{
    (void)state;
    for (int c = 0; c < WK_FC_N; c++) {
        const WkFailClassInfo *ci = row((WkFailClass)c);
        assert_non_null(wk_fail_class_names[c]);
        assert_string_equal(wk_fail_class_name((WkFailClass)c), wk_fail_class_names[c]);
        for (int d = 0; d < c; d++)
            assert_string_not_equal(wk_fail_class_names[c], wk_fail_class_names[d]);
        assert_true(ci->component < WK_COMP_N);
        /* a soft failure restarts the job and has nothing to repair */
        assert_true(ci->kind == WK_INC_DOWN || ci->kind == WK_INC_SOFT);
        assert_int_equal(ci->kind == WK_INC_SOFT, ci->repair_median_h == 0);
    }
    assert_string_equal(wk_fail_class_names[WK_FC_N], "event");
    assert_null(wk_fail_class_names[WK_FC_N + 1]);
    assert_string_equal(wk_fail_class_name(WK_FC_N), "?");
}

static void test_defaults_come_from_the_table_rows(void **state)
{
    (void)state;
    WkFailSpec f;
    wk_fail_defaults(&f);
    /* Llama 3: 35 cable failures over 49,152 cables in 54 days; 52 host failures over 2,048 nodes */
    assert_true(fabs(wk_dist_mean_s(&f.cls[WK_FC_LINK].ttf) - 49152.0 * 54 / 35 * 86400) < 1e-3);
    assert_true(fabs(wk_dist_mean_s(&f.cls[WK_FC_NODE].ttf) - 2048.0 * 54 / 52 * 86400) < 1e-3);
    assert_true(fabs(f.cls[WK_FC_NODE].repair.a - log(4 * 3600.0)) < 1e-12);
    assert_false(f.cls[WK_FC_SWITCH].on);
    assert_false(f.cls[WK_FC_NVSWITCH].on);
    assert_true(f.cls[WK_FC_SDC].on);
    assert_int_equal(f.cls[WK_FC_SDC].repair.kind, WK_DIST_CONSTANT);
    assert_int_equal(row(WK_FC_SDC)->detect, WK_DETECT_TIMEOUT);
    assert_int_equal(row(WK_FC_HBM)->detect, WK_DETECT_HEALTH_CHECK);
    wk_fail_fini(&f);
}

/* k = 8 fat-tree under 16 nodes of 8 GPUs: k^3/4 = 128 NICs, k^2/2 = 32 edge
 * and 32 aggregation switches of k/2 uplinks each, k^2/4 = 16 cores. */
static const char *kary8 = "cluster: {nodes: 16, fabric: {kind: fat-tree, tiers: 3, radix: 8}}\n";

static void test_class_counts_match_the_cluster_and_the_fat_tree(void **state)
{
    (void)state;
    WkDoc *doc = NULL;
    WkCluster c;
    cluster_of(kary8, &doc, &c);
    assert_int_equal(wk_fail_class_count(row(WK_FC_GPU), &c), 128);
    assert_int_equal(wk_fail_class_count(row(WK_FC_NIC), &c), 128);
    assert_int_equal(wk_fail_class_count(row(WK_FC_NODE), &c), 16);
    assert_int_equal(wk_fail_class_count(row(WK_FC_SOFTWARE), &c), 16);
    assert_int_equal(wk_fail_class_count(row(WK_FC_LINK), &c), 128 + 32 * 4 + 32 * 4);
    assert_int_equal(wk_fail_class_count(row(WK_FC_SWITCH), &c), 32 + 32 + 16);
    /* a job on 16 GPUs over 2 nodes depends on 16 GPUs, NICs and NIC cables, 2 hosts, no switch */
    assert_true(wk_fail_class_exposure(row(WK_FC_HBM), 16, 2) == 16);
    assert_true(wk_fail_class_exposure(row(WK_FC_LINK), 16, 2) == 16);
    assert_true(wk_fail_class_exposure(row(WK_FC_MAINT), 16, 2) == 2);
    assert_true(wk_fail_class_exposure(row(WK_FC_SWITCH), 16, 2) == 0);
    assert_int_equal(wk_fail_class_scope(row(WK_FC_SDC)), WK_SCOPE_GPU);
    assert_int_equal(wk_fail_class_scope(row(WK_FC_NVSWITCH)), WK_SCOPE_NODE);
    assert_int_equal(wk_fail_class_scope(row(WK_FC_SWITCH)), WK_SCOPE_FABRIC);
    wk_cluster_fini(&c);
    wk_doc_free(doc);
    cluster_of("cluster: {nodes: 3}\n", &doc, &c); /* no fabric: no cables, no switches */
    assert_int_equal(wk_fail_class_count(row(WK_FC_LINK), &c), 0);
    assert_int_equal(wk_fail_class_count(row(WK_FC_SWITCH), &c), 0);
    assert_int_equal(wk_fail_class_count(row(WK_FC_NIC), &c), 24);
    wk_cluster_fini(&c);
    wk_doc_free(doc);
}

static void test_a_component_failure_takes_down_what_it_reaches(void **state)
{
    (void)state;
    WkDoc *doc = NULL;
    WkCluster c;
    WkFailDown d = {0};
    WkError err;
    cluster_of(kary8, &doc, &c);
    assert_int_equal(wk_fail_class_down(row(WK_FC_MAINT), &c, 2, &d, &err), 0);
    assert_int_equal(d.ngpus, 8);
    assert_int_equal(d.gpus[0], 16);
    assert_int_equal(d.nlinks, 0);
    assert_int_equal(wk_fail_class_down(row(WK_FC_LINK), &c, 127, &d, &err), 0); /* GPU 127's NIC cable */
    assert_int_equal(d.ngpus, 1);
    assert_int_equal(d.gpus[0], 127);
    assert_int_equal(wk_fail_class_down(row(WK_FC_LINK), &c, 128 + 5, &d, &err), 0); /* uplink 5 */
    assert_int_equal(d.ngpus, 0);
    assert_int_equal(d.nlinks, 1);
    assert_int_equal(d.links[0], wk_fabric_uplink(&c.fabric, 5));
    assert_int_equal(wk_fail_class_down(row(WK_FC_SWITCH), &c, 1, &d, &err), 0); /* edge switch 1: NICs 4..7 */
    assert_int_equal(d.ngpus, 4);
    assert_int_equal(d.gpus[0], 4);
    assert_int_equal(d.gpus[3], 7);
    /* an aggregation and a core switch each end k = 8 cables */
    assert_int_equal(wk_fail_class_down(row(WK_FC_SWITCH), &c, 32, &d, &err), 0);
    assert_int_equal(d.nlinks, 8);
    assert_int_equal(wk_fail_class_down(row(WK_FC_SWITCH), &c, 32 + 32 + 15, &d, &err), 0);
    assert_int_equal(d.nlinks, 8);
    assert_int_equal(d.ngpus, 0);
    wk_cluster_fini(&c);
    wk_doc_free(doc);
    /* 4 rails on 8-GPU nodes: GPUs 1 and 5 share a NIC */
    cluster_of("cluster: {nodes: 2, fabric: {kind: fat-tree, radix: 8, rails: 4}}\n", &doc, &c);
    assert_int_equal(wk_fail_class_down(row(WK_FC_NIC), &c, 13, &d, &err), 0);
    assert_int_equal(d.ngpus, 2);
    assert_int_equal(d.gpus[0], 9);
    assert_int_equal(d.gpus[1], 13);
    wk_fail_class_down_fini(&d);
    wk_cluster_fini(&c);
    wk_doc_free(doc);
}

static void test_links_count_failures_in_force_up_to_255(void **state)
{
    (void)state;
    uint64_t links[] = {3, 5};
    WkFailDown d = {.links = links, .nlinks = 2, .caplinks = 2};
    uint8_t in_force[8] = {0};
    WkError err;
    in_force[5] = 254;
    assert_int_equal(wk_fail_class_mark_links(&d, in_force, +1, &err), 0);
    assert_int_equal(in_force[3], 1);
    assert_int_equal(in_force[5], 255);
    /* a 256th failure on link 5 is refused, not wrapped to 0 (link up), and
     * changes no count */
    wk_error_clear(&err);
    assert_int_equal(wk_fail_class_mark_links(&d, in_force, +1, &err), WK_E_RANGE);
    assert_non_null(strstr(err.msg, "fabric link 5 has 255 failures in force"));
    assert_int_equal(in_force[3], 1);
    assert_int_equal(in_force[5], 255);
    assert_int_equal(wk_fail_class_mark_links(&d, in_force, -1, &err), 0);
    assert_int_equal(in_force[3], 0);
    assert_int_equal(in_force[5], 254);
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

static void test_bad_failure_input_is_refused_with_position(void **state)
{
    (void)state;
    const char *wl = "workload: {source: inline, jobs: []}\n";
    char y[512];
    snprintf(y, sizeof y, "cluster: {nodes: 2}\n%sfailures:\n  classes:\n    gpu: {mtbf: -5d}\n", wl);
    expect_error(y, "bad.yaml:5:17", "failures.classes.gpu.mtbf");
    snprintf(y, sizeof y, "cluster: {nodes: 2}\n%sfailures:\n  classes:\n    node: {mtbf: {dist: weibull, scale: 10d, shape: 0}}\n", wl);
    expect_error(y, "bad.yaml:5:53", "shape");
    snprintf(y, sizeof y, "cluster: {nodes: 2}\n%sfailures:\n  incidents: [{at: 1h, kind: down, node: 7, duration: 1h}]\n", wl);
    expect_error(y, "bad.yaml:4:42", "node 7 does not exist");
    snprintf(y, sizeof y, "cluster: {nodes: 2}\n%sfailures:\n  classes: {cpu: {enabled: false}}\n", wl);
    expect_error(y, "bad.yaml:4:13", "unknown key 'cpu'");
    snprintf(y, sizeof y, "cluster: {nodes: 2}\n%srecovery: {mode: spares}\n", wl);
    expect_error(y, "bad.yaml:3:18", "spare_nodes");
}

/* The scenario's class names (models/fail) and the trace's (sim/trace/schema)
 * live in two layers that may not see each other: they must spell the same. */
static void test_class_names_match_the_trace_schema(void **state)
{
    (void)state;
    for (int c = 0; c <= WK_FC_N; c++) {
        assert_non_null(wk_fail_class_names[c]);
        assert_non_null(wk_schema_fail_class_names[c]);
        assert_string_equal(wk_fail_class_names[c], wk_schema_fail_class_names[c]);
    }
    assert_null(wk_fail_class_names[WK_FC_N + 1]);
    assert_null(wk_schema_fail_class_names[WK_FC_N + 1]);
    for (int k = 0; k <= WK_INC_SOFT; k++)
        assert_string_equal(wk_incident_kind_name((WkIncidentKind)k), wk_schema_incident_kind_names[k]);
    assert_null(wk_schema_incident_kind_names[WK_INC_SOFT + 1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_on_n_nodes_fails_at_n_times_node_rate),
        cmocka_unit_test(test_ettr_matches_first_order_expression),
        cmocka_unit_test(test_young_interval_beats_shorter_and_longer),
        cmocka_unit_test(test_throttled_rack_bounds_a_synchronous_job),
        cmocka_unit_test(test_useful_work_reference_ignores_throttles_at_start),
        cmocka_unit_test(test_spares_restart_a_job_without_waiting_for_repair),
        cmocka_unit_test(test_a_spare_node_takes_the_failed_nodes_ranks),
        cmocka_unit_test(test_wait_mode_holds_the_gpus_until_the_repair),
        cmocka_unit_test(test_wait_mode_restart_in_place_replaces_the_flows),
        cmocka_unit_test(test_wait_mode_with_software_and_node_failures_runs_to_the_end),
        cmocka_unit_test(test_elastic_job_shrinks_onto_the_surviving_gpus),
        cmocka_unit_test(test_diurnal_clock_re_rates_each_running_job_once_an_hour),
        cmocka_unit_test(test_elastic_job_grows_back_after_the_repair),
        cmocka_unit_test(test_elastic_job_grows_back_when_another_job_ends),
        cmocka_unit_test(test_failure_classes_draw_from_independent_streams),
        cmocka_unit_test(test_bad_failure_input_is_refused_with_position),
        cmocka_unit_test(test_every_class_has_one_name_and_a_consistent_row),
        cmocka_unit_test(test_defaults_come_from_the_table_rows),
        cmocka_unit_test(test_class_counts_match_the_cluster_and_the_fat_tree),
        cmocka_unit_test(test_a_component_failure_takes_down_what_it_reaches),
        cmocka_unit_test(test_links_count_failures_in_force_up_to_255),
        cmocka_unit_test(test_class_names_match_the_trace_schema),
        cmocka_unit_test(test_fixed_interval_checkpoints_without_random_failures),
        cmocka_unit_test(test_young_without_failure_rates_is_a_positioned_error),
        cmocka_unit_test(test_job_and_summary_tflops_agree_under_every_recovery_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
