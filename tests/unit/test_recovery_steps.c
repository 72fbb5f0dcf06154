/* SPDX-License-Identifier: Apache-2.0 */
/* test_recovery_steps.c — the restart breakdown (docs/models.md, "Recovery
 * time breakdown"): a hot spare skips the relaunch through the scheduler, so
 * `spares` recovers faster than `reschedule`; with in-memory checkpoints and
 * a hot spare a 1,024-GPU job is back in under a minute; every step's key
 * moves the recovery time by exactly its change; the summary reports the
 * mean of every step; the older checkpoint.launch is the whole cost in one
 * and cannot be mixed with the steps. */
#include "tests/unit/testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/fail/fail.h"
#include "models/run/hooks.h"
#include "models/recovery/fail_impl.h"

/* 129 nodes of 8 GPUs, one 1,024-GPU Llama 3 8B job on 128 of them; node 3
 * fails at 1 h (a week's repair); detection `det`; recovery mode `mode`
 * (spares: node 128 is the hot spare; reschedule: node 128 is free);
 * checkpoint mode `ck`; `extra`: more recovery keys. Returns the recovery
 * time of the incident, s; *steps (when not NULL) gets the summary means. */
static double recover(const char *mode, const char *ck, const char *det, const char *extra, double *steps)
{
    char y[4096];
    int n = snprintf(y, sizeof y,
                     "cluster: {nodes: 129, gpus_per_node: 8}\n"
                     "failures: {enabled: false, health_check: %s, incidents: [{at: 1h, kind: down, node: 3, duration: 7d}]}\n"
                     "checkpoint: {interval: 30m, mode: %s}\n"
                     "recovery: {mode: %s%s%s}\nsim: {end: 4h}\n"
                     "workload: {source: inline, jobs: [{submit: 0, gpus: 1024, iterations: 1000000,\n"
                     "                                   model: {base: llama3-8b, tp: 8, global_batch: 1024}}]}\n",
                     det, ck, mode, strcmp(mode, "spares") == 0 ? ", spare_nodes: 1" : "", extra);
    assert_true(n > 0 && (size_t)n < sizeof y);
    TestRun t;
    test_run_yaml(&t, y, NULL);
    assert_int_equal((int)test_metric(&t, "interruptions"), 1);
    WkRunIncidentView row = wk_run_hooks_incident(t.run, 0);
    if (steps) {
        static const char *const names[] = {"recovery_detect_mean_s", "recovery_drain_mean_s", "recovery_launch_mean_s",
                                            "recovery_init_mean_s", "recovery_load_mean_s", "recovery_warmup_mean_s"};
        for (int k = 0; k < 6; k++)
            steps[k] = test_metric(&t, names[k]);
    }
    double rec = row.recovery_s;
    test_run_free(&t);
    return rec;
}

static void test_spares_recover_faster_than_reschedule(void **state)
{
    (void)state;
    double sp = recover("spares", "remote", "0s", "", NULL), rs = recover("reschedule", "remote", "0s", "", NULL);
    print_message("1,024 GPUs, remote checkpoints: spares %.1f s, reschedule %.1f s\n", sp, rs);
    /* the hot spare skips the queue, the placement and the relaunch (10 min by
     * default) and the scheduler's kill (drain, 30 s), nothing else */
    assert_float_equal(rs - sp, 600 + 30, 0.01);
}

static void test_memory_and_hot_spare_back_within_a_minute(void **state)
{
    (void)state;
    double steps[6];
    /* detection in seconds (MegaScale-like heartbeats: health_check 10 s) */
    double rec = recover("spares", "memory", "10s", "", steps);
    print_message("1,024 GPUs, in-memory checkpoints, hot spare: %.1f s (detect %.1f drain %.1f launch %.1f init %.2f "
                  "load %.3f warmup %.1f)\n",
                  rec, steps[0], steps[1], steps[2], steps[3], steps[4], steps[5]);
    assert_true(rec < 60);
    assert_true(steps[2] == 0);                    /* no relaunch through the scheduler */
    assert_float_equal(steps[3], 1024 * 2.5e-3, 1e-9); /* init: 2.5 ms per GPU */
    /* 8.03e9 parameters x 14 B from peers' host memory at 25 GB/s per GPU */
    assert_true(steps[4] > 0 && steps[4] < 0.01);
    double sum = steps[0] + steps[1] + steps[2] + steps[3] + steps[4] + steps[5];
    assert_float_equal(rec, sum, 1e-3); /* the breakdown adds up to the recovery time */
}

static void test_every_step_moves_the_recovery_time(void **state)
{
    (void)state;
    struct {
        const char *extra, *mode, *ck;
        double delta; /* expected change, s */
    } c[] = {
        {", drain: 90s", "reschedule", "remote", 60},
        {", relaunch: 20m", "reschedule", "remote", 600},
        {", spare_launch: 45s", "spares", "remote", 45},
        {", init_per_gpu: 12.5ms", "reschedule", "remote", 1024 * 10e-3},
        {", warmup: 2m", "reschedule", "remote", 100},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double base = recover(c[i].mode, c[i].ck, "0s", "", NULL), moved = recover(c[i].mode, c[i].ck, "0s", c[i].extra, NULL);
        print_message("%-22s %s: %.2f -> %.2f s\n", c[i].extra + 2, c[i].mode, base, moved);
        assert_float_equal(moved - base, c[i].delta, 1e-3);
    }
    /* detection: the health-check period (uniform within it) */
    assert_true(recover("reschedule", "remote", "2m", "", NULL) > recover("reschedule", "remote", "0s", "", NULL));
}

static void test_load_follows_its_tier(void **state)
{
    (void)state;
    double remote[6], local[6], peer[6], slow[6];
    recover("reschedule", "remote", "0s", "", remote);
    recover("reschedule", "remote, restore: local", "0s", "", local);
    recover("reschedule", "remote, restore: peer", "0s", "", peer);
    recover("reschedule", "remote, storage_gb_per_s: 10", "0s", "", slow);
    double bytes = 8.03e9 * 14;
    print_message("load of %.0f GB: remote %.3f s, local %.3f s, peer %.4f s, remote at 10 GB/s %.2f s\n", bytes / 1e9,
                  remote[4], local[4], peer[4], slow[4]);
    assert_float_equal(slow[4] / remote[4], 100, 0.5);
    assert_true(peer[4] < local[4] && local[4] < remote[4]);
}

/* Parse `yaml`'s checkpoint and recovery sections into f. */
static int parse_sections(const char *yaml, WkFailSpec *f, WkError *err)
{
    WkDoc *doc = NULL;
    assert_int_equal(wk_doc_load_string(&doc, "t.yaml", yaml, strlen(yaml), err), 0);
    int rc = wk_fail_parse(NULL, wk_node_get(doc->root, "checkpoint"), wk_node_get(doc->root, "recovery"), 8, 1, 1, f, err);
    wk_doc_free(doc);
    return rc;
}

static void test_older_launch_key_is_the_whole_cost(void **state)
{
    (void)state;
    WkFailSpec f;
    WkError err = {0};
    assert_int_equal(parse_sections("checkpoint: {launch: 5m}\n", &f, &err), 0);
    double st[WK_RSTEP_N];
    assert_float_equal(wk_fail_restart_steps(&f, 0, 1024, 128, 1, st), 300, 1e-9); /* a hot spare pays it too */
    assert_float_equal(wk_fail_restart_steps(&f, 0, 1024, 128, 0, st), 300, 1e-9);
    wk_fail_fini(&f);
    /* the defaults: 30 s + 10 min + 2.5 ms x 1,024 + 0 + 20 s; a hot spare skips drain and relaunch */
    assert_int_equal(parse_sections("recovery: {mode: reschedule}\n", &f, &err), 0);
    assert_float_equal(wk_fail_restart_steps(&f, 0, 1024, 128, 0, st), 30 + 600 + 2.56 + 20, 1e-9);
    assert_float_equal(wk_fail_restart_steps(&f, 0, 1024, 128, 1, st), 2.56 + 20, 1e-9);
    wk_fail_fini(&f);
    int rc = parse_sections("checkpoint: {launch: 5m}\nrecovery: {warmup: 1m}\n", &f, &err);
    print_message("%s: %s\n", err.where, err.msg);
    assert_true(rc < 0);
    assert_non_null(strstr(err.msg, "checkpoint.launch"));
    assert_non_null(strstr(err.where, "t.yaml:2"));
    wk_fail_fini(&f);
}

/* A transfer's completion past 2^53 ns (104.2 days): every ns counts. With
 * the start summed as a double, a start of 2^53 + 1 ns rounded to 2^53 and
 * a transfer with nothing left completed 1 ns before it began (the engine
 * refused the event and the run stopped). */
static void test_store_completion_is_exact_past_day_104(void **state)
{
    (void)state;
    WkTime day = (WkTime)86400 * 1000000000;
    WkTime start = ((WkTime)1 << 53) + 1; /* 104.25 days */
    assert_true(start > 104 * day);
    assert_int_equal(wk_runfail_store_done(start, 0.0, 100e9), start);
    /* 1 GB at 100 GB/s: 10 ms to the ns, from an odd ns */
    assert_int_equal(wk_runfail_store_done(start, 1e9, 100e9), start + 10000000);
    assert_int_equal(wk_runfail_store_done(150 * day + 3, 1e9, 100e9), 150 * day + 3 + 10000000);
    /* a part of a ns rounds up */
    assert_int_equal(wk_runfail_store_done(start + 2, 1.0, 3e9), start + 3);
    /* past the largest time: one past it, never a wrapped time */
    assert_int_equal(wk_runfail_store_done(WK_RUN_MAX_TIME - 5, 1e9, 1.0), WK_RUN_MAX_TIME + 1);
    assert_int_equal(wk_runfail_store_done(WK_RUN_MAX_TIME, 0.0, 1.0), WK_RUN_MAX_TIME);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spares_recover_faster_than_reschedule),
        cmocka_unit_test(test_memory_and_hot_spare_back_within_a_minute),
        cmocka_unit_test(test_every_step_moves_the_recovery_time),
        cmocka_unit_test(test_load_follows_its_tier),
        cmocka_unit_test(test_older_launch_key_is_the_whole_cost),
        cmocka_unit_test(test_store_completion_is_exact_past_day_104),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
