/* SPDX-License-Identifier: Apache-2.0 */
/* test_power.c — clocks and power caps: the DVFS curve and the clock a cap
 * leaves a busy GPU against their closed forms, the scenario keys and their
 * range errors, capped throughput of compute- and memory-bound operators,
 * and a capped run's duration and energy against the closed form. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/gpu/dvfs.h"
#include "models/run/hooks.h"
#include "models/topo/cluster.h"
#include "models/sched/sched.h"
#include "models/workload/perf.h"

/* H100: idle 87.5 W (12.5 % of 700 W). At clock 0.8 the normalised dynamic
 * power is 0.8 x (0.5 + 0.5 x 0.8)^2 = 0.648, so a busy GPU draws
 * 87.5 + 612.5 x 0.648 = 484.4 W: a cap of 484.4 W leaves it clock 0.8. */
#define H100_CAP_08 484.4

static void test_dvfs_curve_matches_closed_form(void **state)
{
    (void)state;
    const WkGpuSku *h = wk_catalog_find("H100-SXM-80G");
    const WkDvfs *d = wk_dvfs_of(h);
    assert_float_equal(wk_dvfs_power_frac(d, 1.0), 1.0, 0);
    assert_float_equal(wk_dvfs_power_frac(d, 0.8), 0.648, 1e-12);
    assert_float_equal(wk_dvfs_power_frac(d, 0.5), 0.5 * 0.75 * 0.75, 1e-12);
    assert_float_equal(wk_dvfs_cap_clock(h, H100_CAP_08, 1.0), 0.8, 1e-9);
    assert_float_equal(wk_dvfs_cap_clock(h, 700, 1.0), 1.0, 0);
    /* at activity 0.5 a busy GPU draws 393.75 W at full clock: 484.4 W does
     * not bind, 300 W does (87.5 + 306.25 x g(f) = 300) */
    assert_float_equal(wk_dvfs_cap_clock(h, H100_CAP_08, 0.5), 1.0, 0);
    double f = wk_dvfs_cap_clock(h, 300, 0.5);
    assert_float_equal(87.5 + 612.5 * 0.5 * wk_dvfs_power_frac(d, f), 300, 1e-6);
    assert_true(f < 1.0);
    /* the floor: a busy GPU at it draws the lowest settable limit, 200 W */
    double lo = wk_dvfs_floor(h);
    assert_float_equal(87.5 + 612.5 * wk_dvfs_power_frac(d, lo), 200, 1e-6);
    /* A100: 1410 MHz top clock, limits 100-400 W */
    const WkDvfs *a = wk_dvfs_of(wk_catalog_find("A100-SXM-80G"));
    assert_float_equal(a->max_mhz, 1410, 0);
    assert_float_equal(a->cap_min_w, 100, 0);
    /* run time: a compute share s stretches by 1/f, the rest not at all */
    assert_float_equal(wk_dvfs_time_factor(0.8, 1.0), 1.25, 1e-12);
    assert_float_equal(wk_dvfs_time_factor(0.8, 0.5), 0.5 / 0.8 + 0.5, 1e-12);
    assert_float_equal(wk_dvfs_time_factor(0.8, 0.0), 1.0, 0);
}

/* The clock table of docs/models.md ("Calibration status of v0"): a fully
 * busy GPU under each cap runs at the documented f (3 decimals), and at that
 * f it draws the cap: idle + (TDP - idle) x g(f) = cap. */
static void test_dvfs_cap_clock_matches_documented_table(void **state)
{
    (void)state;
    static const struct {
        const char *sku;
        double cap_w, f;
    } rows[] = {
        {"A100-SXM-80G", 300, 0.842}, {"A100-SXM-80G", 250, 0.748}, {"A100-SXM-80G", 200, 0.639},
        {"H100-SXM-80G", 600, 0.914}, {"H100-SXM-80G", 500, 0.816}, {"H100-SXM-80G", 400, 0.703},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const WkGpuSku *s = wk_catalog_find(rows[i].sku);
        double f = wk_dvfs_cap_clock(s, rows[i].cap_w, 1.0);
        assert_float_equal(f, rows[i].f, 5e-4);
        double w = s->idle_w + (s->tdp_w - s->idle_w) * wk_dvfs_power_frac(wk_dvfs_of(s), f);
        assert_float_equal(w, rows[i].cap_w, 1e-6);
    }
}

static WkDoc *doc;

static int parse(const char *yaml, WkCluster *c, WkError *err)
{
    wk_doc_free(doc);
    doc = NULL;
    wk_error_clear(err);
    assert_int_equal(wk_doc_load_string(&doc, "c.yaml", yaml, strlen(yaml), err), 0);
    return wk_cluster_parse(wk_node_get(doc->root, "cluster"), c, err);
}

static int teardown(void **state)
{
    (void)state;
    wk_doc_free(doc);
    doc = NULL;
    return 0;
}

static void test_cap_keys_set_group_clocks_and_refuse_out_of_range(void **state)
{
    (void)state;
    WkCluster c;
    WkError err;
    assert_int_equal(parse("cluster:\n  power: {cap_w: 484.4}\n  groups:\n"
                           "    - {sku: H100-SXM-80G, nodes: 1}\n"
                           "    - {sku: H100-SXM-80G, nodes: 1, power_cap_w: 700}\n"
                           "    - {sku: A100-SXM-80G, nodes: 1, power_cap_w: 400, clock_mhz: 1128}\n",
                           &c, &err),
                     0);
    if (err.code)
        fail_msg("%s: %s", err.where, err.msg);
    assert_float_equal(c.groups[0].cap_clock, 0.8, 1e-9);
    assert_float_equal(c.groups[1].cap_clock, 1.0, 0);
    assert_float_equal(c.groups[2].cap_clock, 1128.0 / 1410, 1e-12); /* the lock; its own 400 W cap does not bind */
    assert_true(c.capped);
    /* a busy capped GPU's dynamic power scales by g(0.8) */
    assert_float_equal(wk_cluster_cap_power(&c, 0), 0.648, 1e-9);
    assert_float_equal(wk_cluster_cap_power(&c, 8), 1.0, 0);
    wk_cluster_fini(&c);
    /* below the settable range: nvidia-smi refuses 150 W on an H100 */
    assert_int_equal(parse("cluster:\n  groups:\n    - {sku: H100-SXM-80G, nodes: 1, power_cap_w: 150}\n", &c, &err),
                     WK_E_RANGE);
    assert_string_equal(err.where, "c.yaml:3:50");
    assert_non_null(strstr(err.msg, "200-700 W"));
    assert_int_equal(parse("cluster:\n  sku: A100-SXM-80G\n  nodes: 1\n  power: {clock_mhz: 2000}\n", &c, &err),
                     WK_E_RANGE);
    assert_non_null(strstr(err.where, "c.yaml:4:"));
    assert_non_null(strstr(err.msg, "210-1410 MHz"));
    assert_int_equal(parse("cluster:\n  sku: A100-SXM-80G\n  nodes: 1\n  power: {cap_w: -5}\n", &c, &err), WK_E_RANGE);
    assert_non_null(strstr(err.where, "c.yaml:4:"));
    /* activity keys: a share outside [0, 1], a flag that is not a boolean */
    assert_int_equal(parse("cluster:\n  sku: H100-SXM-80G\n  nodes: 1\n  power: {memory_activity: 1.5}\n", &c, &err),
                     WK_E_RANGE);
    assert_non_null(strstr(err.where, "c.yaml:4:"));
    assert_non_null(strstr(err.msg, "memory_activity"));
    assert_true(parse("cluster:\n  sku: H100-SXM-80G\n  nodes: 1\n  power: {model_activity: 3}\n", &c, &err) < 0);
    assert_non_null(strstr(err.where, "c.yaml:4:"));
}

/* A model job under a cap, with the curves at the clocks they were measured
 * at (perf.sustained_clock false; the default case is the test below):
 * compute-bound GEMMs slow by 1/f, memory-bound operators keep their HBM
 * time (the memory clock is not capped). */
static void test_cap_slows_compute_bound_not_memory_bound_operators(void **state)
{
    (void)state;
    const WkModelSpec *m = wk_model_preset("llama3-8b");
    assert_non_null(m);
    WkPerfParams p = wk_perf_defaults();
    p.sustained_clock = 0;
    WkPerfEnv env = {.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = 8, .nvlink_gpus = 8,
                     .nvlink_bw = 450e9, .net_bw = 50e9};
    WkPerfResult full, cap;
    WkError err;
    assert_int_equal(wk_perf_eval(m, &env, &p, &full, &err), 0);
    env.cap_clock = 0.8;
    assert_int_equal(wk_perf_eval(m, &env, &p, &cap, &err), 0);
    /* every operator's compute part stretches by exactly 1/0.8 and its
     * memory part not at all; the GEMMs are compute-bound */
    assert_float_equal(cap.ops[WK_OP_GEMM].s / full.ops[WK_OP_GEMM].s, 1.25, 0.01);
    assert_float_equal(cap.ops[WK_OP_NORM].memory_s, full.ops[WK_OP_NORM].memory_s, 1e-12);
    assert_true(full.ops[WK_OP_NORM].memory_s > 0);
    /* the iteration as a whole slows by less than 1/f: memory-bound work
     * and exposed communication do not stretch */
    assert_true(cap.iter_s > full.iter_s * 1.05);
    assert_true(cap.iter_s < full.iter_s * 1.25);
}

/* The same under perf.sustained_clock (docs/models.md, "Sustained
 * clocks"): uncapped, the GPU already runs at the clock its TDP sustains
 * (below the top clock), so a cap to 0.8 stretches the GEMMs by less than
 * 1/0.8; between two caps that both bind, the GEMMs stretch by exactly
 * their ratio and memory-bound time not at all. */
static void test_cap_under_sustained_clock_stretches_from_the_sustained_clock(void **state)
{
    (void)state;
    const WkModelSpec *m = wk_model_preset("llama3-8b");
    assert_non_null(m);
    WkPerfParams p = wk_perf_defaults();
    p.sustained_clock = 1;
    WkPerfEnv env = {.sku = wk_catalog_find("H100-SXM-80G"), .speed = 1, .gpus = 8, .nvlink_gpus = 8,
                     .nvlink_bw = 450e9, .net_bw = 50e9};
    WkPerfResult full, cap, cap7;
    WkError err;
    assert_int_equal(wk_perf_eval(m, &env, &p, &full, &err), 0);
    env.cap_clock = 0.8;
    assert_int_equal(wk_perf_eval(m, &env, &p, &cap, &err), 0);
    env.cap_clock = 0.7;
    assert_int_equal(wk_perf_eval(m, &env, &p, &cap7, &err), 0);
    assert_float_equal(cap7.ops[WK_OP_GEMM].s / cap.ops[WK_OP_GEMM].s, 0.8 / 0.7, 0.01);
    assert_true(cap.ops[WK_OP_GEMM].s > full.ops[WK_OP_GEMM].s && cap.ops[WK_OP_GEMM].s < 1.25 * full.ops[WK_OP_GEMM].s);
    assert_float_equal(cap.ops[WK_OP_NORM].memory_s, full.ops[WK_OP_NORM].memory_s, 1e-12);
}

/* One 8-GPU H100 node capped at 484.4 W (clock 0.8), a plain job of 1000 s
 * at full clock: compute share 1 runs 1250 s at 484.4 W per GPU; share 0.5
 * runs 1000 x (0.5/0.8 + 0.5) = 1125 s. PUE 1, no fabric. */
static void test_capped_plain_job_time_and_energy_match_closed_form(void **state)
{
    (void)state;
    const char *shares[] = {"1.0", "0.5"};
    const double secs[] = {1250, 1125};
    for (int i = 0; i < 2; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "cluster: {sku: H100-SXM-80G, nodes: 1, power: {pue: 1, cap_w: 484.4, compute_share: %s}}\n"
                 "workload:\n  source: inline\n  jobs:\n    - {submit: 0, gpus: 8, duration: 1000s}\n",
                 shares[i]);
        TestRun t;
        test_run_yaml(&t, yaml, NULL);
        assert_float_equal(test_metric(&t, "jct_mean_s"), secs[i], 1e-6);
        assert_float_equal(test_metric(&t, "energy_kwh"), 8 * H100_CAP_08 * secs[i] / 3.6e6, 1e-6);
        test_run_free(&t);
    }
}


/* The activity of a split iteration: 0.6 s compute-bound, 0.2 s memory-
 * bound, 0.2 s other, memory at 0.35 and other at 0.5 of compute-bound
 * draw: busy x (0.6 + 0.2 x 0.35 + 0.2 x 0.5) / 1.0 = 0.77 busy. */
static void test_split_activity_matches_closed_form(void **state)
{
    (void)state;
    assert_float_equal(wk_power_split_activity(1.0, 0.6, 0.2, 1.0, 0.35, 0.5), 0.77, 1e-12);
    assert_float_equal(wk_power_split_activity(0.8, 0.6, 0.2, 1.0, 0.35, 0.5), 0.8 * 0.77, 1e-12);
    /* all compute-bound: busy; no operator time known: busy */
    assert_float_equal(wk_power_split_activity(0.9, 2.0, 0.0, 2.0, 0.0, 0.0), 0.9, 1e-12);
    assert_float_equal(wk_power_split_activity(0.9, 0.0, 0.0, 2.0, 0.0, 0.0), 0.9, 0);
    assert_float_equal(wk_power_split_activity(0.9, 1.0, 0.0, 0.0, 0.0, 0.0), 0.9, 0);
}

/* One 8-GPU H100 node, PUE 1, no fabric, one llama3-8b job (TP 2) of 20
 * iterations. With model_activity its GPUs draw idle + span x a, a = c +
 * x (1 - c) for memory and other activity x (c the compute-bound share of
 * the iteration), so the dynamic energy D(x) is linear in x: D(1) is the
 * run without the option, D(0.5) = (D(0) + D(1)) / 2, and the run time
 * does not change. */
static double model_job_dynamic_kwh(const char *power, double *jct)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "cluster: {sku: H100-SXM-80G, nodes: 1, power: {pue: 1%s}}\n"
             "models: {m: {base: llama3-8b, tp: 2, pp: 1, global_batch: 512}}\n"
             "workload:\n  source: inline\n  jobs:\n"
             "    - {submit: 0, gpus: 8, model: m, iterations: 20}\n",
             power);
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    *jct = test_metric(&t, "jct_mean_s");
    double kwh = test_metric(&t, "energy_kwh") - 8 * 87.5 * *jct / 3.6e6; /* minus idle draw */
    test_run_free(&t);
    return kwh;
}

static void test_model_activity_scales_dynamic_energy_by_the_split(void **state)
{
    (void)state;
    double t_off, t0, th, t1;
    double off = model_job_dynamic_kwh("", &t_off);
    double d0 = model_job_dynamic_kwh(", model_activity: true, memory_activity: 0, other_activity: 0", &t0);
    double dh = model_job_dynamic_kwh(", model_activity: true, memory_activity: 0.5, other_activity: 0.5", &th);
    double d1 = model_job_dynamic_kwh(", model_activity: true, memory_activity: 1, other_activity: 1", &t1);
    assert_float_equal(t0, t_off, 0);
    assert_float_equal(th, t_off, 0);
    assert_float_equal(t1, t_off, 0);
    assert_float_equal(d1, off, 1e-9 * off);
    assert_float_equal(dh, 0.5 * (d0 + d1), 1e-6 * off);
    assert_true(d0 > 0.1 * off && d0 < 0.95 * off); /* part of the iteration is not compute-bound */
    assert_float_equal(off, 8 * 612.5 * t_off / 3.6e6, 1e-9 * off);
}

/* 4 nodes x 8 H100, PUE 1, no fabric: idle 2,800 W, busy 22,400 W. Four
 * 8-GPU plain jobs of 1000 s at t = 0 under a 15 kW budget. */
#define BUDGET_CLUSTER "cluster: {sku: H100-SXM-80G, nodes: 4, power: {pue: 1}}\n"
#define BUDGET_JOBS                                                                                    \
    "workload:\n  source: inline\n  jobs:\n"                                                            \
    "    - {submit: 0, gpus: 8, duration: 1000s}\n    - {submit: 0, gpus: 8, duration: 1000s}\n"        \
    "    - {submit: 0, gpus: 8, duration: 1000s}\n    - {submit: 0, gpus: 8, duration: 1000s}\n"

/* The clock f with 0.25 f (1 + f)^2 = y, by Newton from 1 (the v0 = 0.5 curve). */
static double clock_for(double y)
{
    double f = 1;
    for (int i = 0; i < 60; i++)
        f -= (0.25 * f * (1 + f) * (1 + f) - y) / (0.25 * (1 + f) * (1 + 3 * f));
    return f;
}

static void assert_series_under_budget(const WkRun *r)
{
    const WkRunBudget *b = wk_run_hooks_budget(r);
    assert_true(b->nrows >= 2);
    for (size_t i = 0; i < b->nrows; i++)
        if (b->rows[i].power_w > b->rows[i].budget_w * (1 + 1e-12))
            fail_msg("row %zu at %lld ns: %.3f W over the %.3f W budget", i, (long long)b->rows[i].time_ns,
                     b->rows[i].power_w, b->rows[i].budget_w);
    /* every cluster sample has its facility row at the same instant */
    const WkAccount *a = wk_run_hooks_account(r);
    for (size_t i = 0, k = 0; i < a->nsamples; i++) {
        while (k < b->nrows && b->rows[k].time_ns < a->samples[i].time_ns)
            k++;
        assert_true(k < b->nrows && b->rows[k].time_ns == a->samples[i].time_ns);
        assert_float_equal(b->rows[k].power_w, a->samples[i].power_w, 1e-9);
    }
}

/* cap: all four start, the site clock falls to the f with
 * 2800 + 32 x 612.5 x g(f) = 15000, and every job takes 1000 / f s. */
static void test_budget_cap_slows_every_job_uniformly_and_holds_power(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t, BUDGET_CLUSTER "facility: {budget_mw: 0.015, on_budget: cap}\n" BUDGET_JOBS, NULL);
    double f = clock_for((15000.0 - 2800) / (32 * 612.5));
    assert_float_equal(test_metric(&t, "jct_mean_s"), 1000 / f, 1e-3);
    assert_float_equal(test_metric(&t, "energy_kwh"), 15000.0 * 1000 / f / 3.6e6, 1e-6);
    assert_series_under_budget(t.run);
    test_run_free(&t);
}

/* hold: two jobs fit at full clock (2800 + 2 x 4900 <= 15000 < 2800 + 3 x
 * 4900); the other two wait 1000 s. */
static void test_budget_hold_queues_what_does_not_fit(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t, BUDGET_CLUSTER "facility: {budget_mw: 0.015, on_budget: hold}\n" BUDGET_JOBS, NULL);
    assert_float_equal(test_metric(&t, "jct_mean_s"), 1500, 1e-6);
    assert_float_equal(test_metric(&t, "wait_mean_s"), 500, 1e-6);
    assert_series_under_budget(t.run);
    test_run_free(&t);
}

/* A budget step at 500 s from full draw to 15 kW: the running jobs slow
 * then, ending at 500 + 500 / f. */
static void test_budget_step_caps_running_jobs(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t, BUDGET_CLUSTER "facility:\n  budget: [{at: 0, mw: 0.0224}, {at: 500s, mw: 0.015}]\n" BUDGET_JOBS,
                  NULL);
    double f = clock_for((15000.0 - 2800) / (32 * 612.5));
    assert_float_equal(test_metric(&t, "jct_mean_s"), 500 + 500 / f, 1e-3);
    assert_series_under_budget(t.run);
    test_run_free(&t);
}

static void test_bad_budgets_are_positioned_errors(void **state)
{
    (void)state;
    WkError err;
    assert_int_equal(test_prepare_yaml(BUDGET_CLUSTER "facility: {budget_mw: -1}\n" BUDGET_JOBS, &err), WK_E_RANGE);
    assert_string_equal(err.where, "bad.yaml:2:23");
    assert_int_equal(test_prepare_yaml(BUDGET_CLUSTER "facility: {budget_mw: 0.002}\n" BUDGET_JOBS, &err), WK_E_RANGE);
    assert_non_null(strstr(err.msg, "below the idle cluster"));
    assert_string_equal(err.where, "bad.yaml:2:23");
    assert_int_equal(test_prepare_yaml(BUDGET_CLUSTER "facility: {budget_mw: 0.02, on_budget: drop}\n" BUDGET_JOBS, &err),
                     WK_E_INVAL);
    assert_non_null(strstr(err.where, "bad.yaml:2:"));
    assert_int_equal(test_prepare_yaml(BUDGET_CLUSTER "facility:\n  budget: [{at: 0, mw: 0.02}, {at: 1h, mw: 0.005}]\n"
                                       BUDGET_JOBS, &err),
                     WK_E_RANGE);
    assert_non_null(strstr(err.msg, "lowest clocks"));
    /* the energy policy's clock keys */
    assert_int_equal(test_prepare_yaml(BUDGET_CLUSTER "scheduler: {name: energy, cap: always}\n" BUDGET_JOBS, &err),
                     WK_E_INVAL);
    assert_non_null(strstr(err.where, "bad.yaml:2:"));
    assert_int_equal(
        test_prepare_yaml(BUDGET_CLUSTER "scheduler: {name: energy, cap: auto, time_weight: -1}\n" BUDGET_JOBS, &err),
        WK_E_RANGE);
    assert_non_null(strstr(err.where, "bad.yaml:2:"));
    assert_non_null(strstr(err.msg, "time_weight"));
}

/* Write text to dir/name; the path into path. */
static void write_file(const char *dir, const char *name, const char *text, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* One 8-GPU H100 node busy for 2 h at 5.6 kW (PUE 1): 1 h at 100 per MWh
 * and 400 g/kWh, 1 h at 50 and 200. */
static void test_price_series_gives_cost_and_co2_of_closed_form(void **state)
{
    (void)state;
    char dir[64], csv[128], yaml[1024];
    assert_int_equal(test_tmpdir_make(dir, sizeof dir, "prices"), 0);
    write_file(dir, "p.csv", "# hourly\ntime,price_per_mwh,gco2_per_kwh\n0h,100,400\n1h,50,200\n", csv, sizeof csv);
    snprintf(yaml, sizeof yaml,
             "cluster: {sku: H100-SXM-80G, nodes: 1, power: {pue: 1}}\nfacility: {prices: %s}\n"
             "workload:\n  source: inline\n  jobs:\n    - {submit: 0, gpus: 8, duration: 2h}\n",
             csv);
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_float_equal(test_metric(&t, "energy_cost"), 5.6 * 0.1 + 5.6 * 0.05, 1e-9);
    assert_float_equal(test_metric(&t, "co2_t"), (5.6 * 400 + 5.6 * 200) / 1e6, 1e-12);
    assert_true(isnan(test_metric(&t, "power_capped_h")));
    const WkRunBudget *b = wk_run_hooks_budget(t.run);
    assert_true(b->nrows >= 2);
    assert_float_equal(b->rows[0].price_per_mwh, 100, 0);
    for (size_t i = 0; i < b->nrows; i++) /* the second hour's carbon; none at the series' end (2 h) */
        if (b->rows[i].time_ns >= 3600 * WK_NS_PER_S)
            assert_true(b->rows[i].time_ns < 7200 * WK_NS_PER_S ? b->rows[i].gco2_per_kwh == 200
                                                                 : isnan(b->rows[i].gco2_per_kwh));
    assert_true(b->rows[b->nrows - 1].time_ns >= 3600 * WK_NS_PER_S);
    test_run_free(&t);
    /* repeated, the 2 h series covers a 5 h run: 3 h at the first row, 2 h at the second */
    snprintf(yaml, sizeof yaml,
             "cluster: {sku: H100-SXM-80G, nodes: 1, power: {pue: 1}}\nfacility: {prices: %s, prices_repeat: true}\n"
             "workload:\n  source: inline\n  jobs:\n    - {submit: 0, gpus: 8, duration: 5h}\n",
             csv);
    test_run_yaml(&t, yaml, NULL);
    assert_float_equal(test_metric(&t, "energy_cost"), 3 * 5.6 * 0.1 + 2 * 5.6 * 0.05, 1e-9);
    test_run_free(&t);
    assert_int_equal(test_tmpdir_remove(dir), 0);
}

static void test_bad_price_series_are_positioned_errors(void **state)
{
    (void)state;
    char dir[64], csv[128], yaml[1024], want[192];
    WkError err;
    assert_int_equal(test_tmpdir_make(dir, sizeof dir, "prices"), 0);
    const char *job = "workload:\n  source: inline\n  jobs:\n    - {submit: 0, gpus: 8, duration: 3h}\n";
    write_file(dir, "neg.csv", "time,price_per_mwh,gco2_per_kwh\n0h,100,400\n1h,-5,200\n", csv, sizeof csv);
    snprintf(yaml, sizeof yaml, "cluster: {sku: H100-SXM-80G, nodes: 1}\nfacility: {prices: %s}\n%s", csv, job);
    assert_int_equal(test_prepare_yaml(yaml, &err), WK_E_RANGE);
    snprintf(want, sizeof want, "%s:3:4", csv);
    assert_string_equal(err.where, want);
    assert_non_null(strstr(err.msg, "price_per_mwh"));
    write_file(dir, "hdr.csv", "time,price\n0h,1\n", csv, sizeof csv);
    snprintf(yaml, sizeof yaml, "cluster: {sku: H100-SXM-80G, nodes: 1}\nfacility: {prices: %s}\n%s", csv, job);
    assert_int_equal(test_prepare_yaml(yaml, &err), WK_E_INVAL);
    snprintf(want, sizeof want, "%s:1:1", csv);
    assert_string_equal(err.where, want);
    /* a last row so late that the step after it passes the largest time
     * (found by tests/fuzz/fuzz_price: the end overflowed; rows are now
     * limited to 2^61 - 1 ns, as every time of a scenario) */
    write_file(dir, "late.csv", "time,price_per_mwh,gco2_per_kwh\n0h,1,1\n106751d,2,2\n", csv, sizeof csv);
    snprintf(yaml, sizeof yaml, "cluster: {sku: H100-SXM-80G, nodes: 1}\nfacility: {prices: %s}\n%s", csv, job);
    assert_int_equal(test_prepare_yaml(yaml, &err), WK_E_RANGE);
    snprintf(want, sizeof want, "%s:3:1", csv);
    assert_string_equal(err.where, want);
    assert_non_null(strstr(err.msg, "time: "));
    /* 2 h of prices for a run with sim.end 3h: refused before it runs, at the key */
    write_file(dir, "short.csv", "time,price_per_mwh,gco2_per_kwh\n0h,100,400\n1h,50,200\n", csv, sizeof csv);
    snprintf(yaml, sizeof yaml, "cluster: {sku: H100-SXM-80G, nodes: 1}\nsim: {end: 3h}\nfacility: {prices: %s}\n%s",
             csv, job);
    assert_int_equal(test_prepare_yaml(yaml, &err), WK_E_RANGE);
    assert_string_equal(err.where, "bad.yaml:3:20");
    assert_non_null(strstr(err.msg, "covers 2 h"));
    /* without sim.end: the run that outlasts it fails at its end, same message */
    snprintf(yaml, sizeof yaml, "cluster: {sku: H100-SXM-80G, nodes: 1}\nfacility: {prices: %s}\n%s", csv, job);
    WkDoc *d = NULL;
    WkRun *run = NULL;
    assert_int_equal(wk_doc_load_string(&d, "bad.yaml", yaml, strlen(yaml), &err), 0);
    assert_int_equal(wk_run_prepare(&run, d, NULL, &err), 0);
    wk_error_clear(&err);
    int rc = wk_run_execute(run, &err);
    if (rc != WK_E_RANGE)
        fail_msg("%d %s: %s", rc, err.where, err.msg);
    assert_string_equal(err.where, "bad.yaml:2:20");
    wk_run_free(run);
    wk_doc_free(d);
    assert_int_equal(test_tmpdir_remove(dir), 0);
}

/* One 8-GPU H100 node (idle 700 W, busy 5,600 W, PUE 1) sleeping after 1 h
 * idle, waking in 5 min: a 1 h job at 0, another at 3 h. Idle 1-2 h,
 * asleep 2-3 h (0 W), the second job waits 5 min for the node, runs 1 h. */
static void test_idle_nodes_sleep_and_wake_as_closed_form(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {sku: H100-SXM-80G, nodes: 1, power: {pue: 1, sleep_after: 1h, wake_latency: 5min}}\n"
                  "workload:\n  source: inline\n  jobs:\n"
                  "    - {submit: 0, gpus: 8, duration: 1h}\n    - {submit: 3h, gpus: 8, duration: 1h}\n",
                  NULL);
    assert_float_equal(test_metric(&t, "sleep_saved_kwh"), 0.7, 1e-9);
    assert_float_equal(test_metric(&t, "wake_delays"), 1, 0);
    assert_float_equal(test_metric(&t, "wake_delay_h"), 5.0 / 60, 1e-12);
    assert_float_equal(test_metric(&t, "jct_mean_s"), (3600 + 3900) / 2.0, 1e-6);
    assert_float_equal(test_metric(&t, "energy_kwh"), 5.6 + 0.7 + 0 + 5.6 * 65 / 60, 1e-9);
    test_run_free(&t);
    /* without sleep_after the node idles at 700 W and nothing waits */
    test_run_yaml(&t,
                  "cluster: {sku: H100-SXM-80G, nodes: 1, power: {pue: 1}}\n"
                  "workload:\n  source: inline\n  jobs:\n"
                  "    - {submit: 0, gpus: 8, duration: 1h}\n    - {submit: 3h, gpus: 8, duration: 1h}\n",
                  NULL);
    assert_true(isnan(test_metric(&t, "sleep_saved_kwh")));
    assert_float_equal(test_metric(&t, "energy_kwh"), 5.6 + 1.4 + 5.6, 1e-9);
    test_run_free(&t);
}

/* Every built-in policy treats a start the budget refuses as "does not fit
 * now": under hold the four jobs complete, two at a time (mean JCT 1500 s). */
static void test_every_policy_waits_when_the_budget_refuses_a_start(void **state)
{
    (void)state;
    const WkSchedOps *const *tab = wk_sched_registry();
    for (size_t i = 0; tab[i]; i++) {
        WkRunOpts o = {.scheduler = tab[i]->name};
        TestRun t;
        test_run_yaml(&t, BUDGET_CLUSTER "facility: {budget_mw: 0.015, on_budget: hold}\n" BUDGET_JOBS, &o);
        if (test_metric(&t, "jobs_completed") != 4 || fabs(test_metric(&t, "jct_mean_s") - 1500) > 1e-6)
            fail_msg("%s: %g jobs, mean JCT %g s", tab[i]->name, test_metric(&t, "jobs_completed"),
                     test_metric(&t, "jct_mean_s"));
        test_run_free(&t);
    }
}

/* The energy policy on 2 nodes: a deferrable and a plain 1 h job at 0;
 * prices 100 per MWh for the first hour and 10 for the second (mean 55).
 * The deferrable one waits for the cheap hour (a tick at 1 h), the other
 * starts at once; with max_defer 30min the deferrable one starts at 30 min. */
static void test_energy_policy_defers_deferrable_jobs_to_cheap_hours(void **state)
{
    (void)state;
    char dir[64], csv[128], yaml[1024];
    assert_int_equal(test_tmpdir_make(dir, sizeof dir, "energy"), 0);
    write_file(dir, "p.csv", "time,price_per_mwh,gco2_per_kwh\n0h,100,0\n1h,10,0\n", csv, sizeof csv);
    const char *fmt = "cluster: {sku: H100-SXM-80G, nodes: 2, power: {pue: 1}}\nfacility: {prices: %s}\n"
                      "scheduler: {name: %s, tick: 15min%s}\n"
                      "workload:\n  source: inline\n  jobs:\n"
                      "    - {submit: 0, gpus: 8, duration: 1h, deferrable: true}\n"
                      "    - {submit: 0, gpus: 8, duration: 1h}\n";
    TestRun t;
    snprintf(yaml, sizeof yaml, fmt, csv, "energy", "");
    test_run_yaml(&t, yaml, NULL);
    assert_float_equal(test_metric(&t, "jct_mean_s"), (7200 + 3600) / 2.0, 1e-6);
    /* hour 1: one node busy (5.6 kW), one idle (0.7 kW) at 100; hour 2 the same at 10 */
    assert_float_equal(test_metric(&t, "energy_cost"), 6.3 * 0.1 + 6.3 * 0.01, 1e-9);
    test_run_free(&t);
    snprintf(yaml, sizeof yaml, fmt, csv, "fifo", "");
    test_run_yaml(&t, yaml, NULL);
    assert_float_equal(test_metric(&t, "jct_mean_s"), 3600, 1e-6);
    assert_float_equal(test_metric(&t, "energy_cost"), 11.2 * 0.1, 1e-9);
    test_run_free(&t);
    snprintf(yaml, sizeof yaml, fmt, csv, "energy", ", max_defer: 30min");
    test_run_yaml(&t, yaml, NULL);
    assert_float_equal(test_metric(&t, "jct_mean_s"), (5400 + 3600) / 2.0, 1e-6);
    test_run_free(&t);
    assert_int_equal(test_tmpdir_remove(dir), 0);
}

/* The energy policy's clock rule (cap: auto, time_weight w = 1): a plain
 * job of 1000 s on one H100 node, PUE 1, with a compute share s runs at the
 * clock of the grid f_i = lo + (1 - lo) i / 20 (f_20 = 1, lo the floor)
 * minimising P(f) T(f)^2, with P = 8 (87.5 + 612.5 g(f)) and T = s/f + 1 - s.
 * Its JCT is 1000 T, its energy P x JCT; against full clock it saved
 * 8 x 700 x 1000 - P x JCT and lost 8 (JCT - 1000) GPU-s. s = 0 (nothing
 * clock-bound) runs at the floor, where a busy H100 draws its lowest
 * settable limit, 200 W; s = 1 never pays (the energy-delay product falls
 * all the way to full clock) and runs uncapped. */
static void test_energy_delay_clock_matches_closed_form(void **state)
{
    (void)state;
    const WkGpuSku *h = wk_catalog_find("H100-SXM-80G");
    const WkDvfs *d = wk_dvfs_of(h);
    double lo = wk_dvfs_floor(h);
    const double shares[] = {0.0, 0.5, 1.0};
    for (int k = 0; k < 3; k++) {
        double s = shares[k], best = INFINITY, f = 1;
        for (int i = 20; i >= 0; i--) {
            double fi = i == 20 ? 1.0 : lo + (1 - lo) * i / 20;
            double t = s / fi + 1 - s, obj = (87.5 + 612.5 * wk_dvfs_power_frac(d, fi)) * t * t;
            if (obj < best * (1 - 1e-12)) {
                best = obj;
                f = fi;
            }
        }
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "cluster: {sku: H100-SXM-80G, nodes: 1, power: {pue: 1, compute_share: %g}}\n"
                 "scheduler: {name: energy, cap: auto}\n"
                 "workload:\n  source: inline\n  jobs:\n    - {submit: 0, gpus: 8, duration: 1000s}\n",
                 s);
        TestRun t;
        test_run_yaml(&t, yaml, NULL);
        double jct = 1000 * (s / f + 1 - s), p = 8 * (87.5 + 612.5 * (f < 1 ? wk_dvfs_power_frac(d, f) : 1));
        assert_float_equal(test_metric(&t, "jct_mean_s"), jct, 1e-6);
        assert_float_equal(test_metric(&t, "energy_kwh"), p * jct / 3.6e6, 1e-9);
        assert_float_equal(test_metric(&t, "clocked_jobs"), f < 1, 0);
        assert_float_equal(test_metric(&t, "clock_saved_kwh"), f < 1 ? (5600 * 1000 - p * jct) / 3.6e6 : 0, 1e-9);
        assert_float_equal(test_metric(&t, "clock_lost_gpu_hours"), 8 * (jct - 1000) / 3600, 1e-9);
        if (s == 0) { /* the floor: 200 W a GPU, no time lost */
            assert_float_equal(f, lo, 0);
            assert_float_equal(p, 1600, 1e-6);
        }
        if (s == 0.5) { /* within a grid step of the continuous optimum (0.589) */
            double fc = 1, oc = INFINITY;
            for (double x = lo; x <= 1; x += 1e-5) {
                double tx = s / x + 1 - s, o = (87.5 + 612.5 * wk_dvfs_power_frac(d, x)) * tx * tx;
                if (o < oc) {
                    oc = o;
                    fc = x;
                }
            }
            assert_float_equal(fc, 0.589, 1e-3);
            assert_true(fabs(f - fc) <= (1 - lo) / 20);
        }
        if (s == 1)
            assert_float_equal(f, 1.0, 0);
        test_run_free(&t);
    }
}

/* on_budget: policy with a policy that chooses no clock: the run's uniform
 * caps apply, exactly as under `cap`. With energy, which fits the budget by
 * per-job clocks, the four alike jobs run on grid clocks: never over the
 * budget, the backstop never engaged, and no faster than the continuous
 * uniform clock f (the best for alike jobs), no slower than a grid step
 * below it. */
static void test_budget_policy_mode_fits_by_job_clocks_or_falls_back_to_uniform(void **state)
{
    (void)state;
    TestRun t;
    WkRunOpts o = {.scheduler = "fifo"};
    test_run_yaml(&t, BUDGET_CLUSTER "facility: {budget_mw: 0.015, on_budget: policy}\n" BUDGET_JOBS, &o);
    double f = clock_for((15000.0 - 2800) / (32 * 612.5));
    assert_float_equal(test_metric(&t, "jct_mean_s"), 1000 / f, 1e-3);
    assert_float_equal(test_metric(&t, "clocked_jobs"), 0, 0);
    assert_true(test_metric(&t, "power_capped_h") > 0);
    assert_series_under_budget(t.run);
    test_run_free(&t);
    test_run_yaml(&t, BUDGET_CLUSTER "facility: {budget_mw: 0.015, on_budget: policy}\nscheduler: energy\n" BUDGET_JOBS,
                  NULL);
    double step = (1 - wk_dvfs_floor(wk_catalog_find("H100-SXM-80G"))) / 20;
    assert_float_equal(test_metric(&t, "power_capped_h"), 0, 0);
    assert_float_equal(test_metric(&t, "clocked_jobs"), 4, 0);
    assert_true(test_metric(&t, "jct_mean_s") >= 1000 / f - 1e-3);
    assert_true(test_metric(&t, "jct_mean_s") <= 1000 / (f - step));
    assert_series_under_budget(t.run);
    test_run_free(&t);
}

/* Under on_budget: policy the energy policy lowers first the clock of the
 * job whose run time grows least: a Llama 3 8B job (memory-bound operators
 * and communication do not stretch) beside a fully clock-bound plain job,
 * on two H100 nodes under 8 kW (11.2 kW at full clock). */
static void test_budget_policy_caps_the_less_clock_bound_job_more(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t,
                  "cluster: {sku: H100-SXM-80G, nodes: 2, power: {pue: 1}}\n"
                  "facility: {budget_mw: 0.008, on_budget: policy}\nscheduler: energy\n"
                  "models:\n  m: {base: llama3-8b, tp: 2, pp: 1, global_batch: 64}\n"
                  "workload:\n  source: inline\n  jobs:\n"
                  "    - {submit: 0, gpus: 8, duration: 1000s}\n"
                  "    - {submit: 0, gpus: 8, model: m, iterations: 100}\n",
                  NULL);
    const WkRunBudget *b = wk_run_hooks_budget(t.run);
    assert_non_null(b->job_clock);
    assert_true(b->job_clock[1] < b->job_clock[0]);
    assert_float_equal(test_metric(&t, "power_capped_h"), 0, 0);
    assert_true(test_metric(&t, "clock_lost_gpu_hours") > 0);
    assert_series_under_budget(t.run);
    test_run_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dvfs_curve_matches_closed_form),
        cmocka_unit_test(test_dvfs_cap_clock_matches_documented_table),
        cmocka_unit_test_teardown(test_cap_keys_set_group_clocks_and_refuse_out_of_range, teardown),
        cmocka_unit_test(test_cap_slows_compute_bound_not_memory_bound_operators),
        cmocka_unit_test(test_cap_under_sustained_clock_stretches_from_the_sustained_clock),
        cmocka_unit_test(test_capped_plain_job_time_and_energy_match_closed_form),
        cmocka_unit_test(test_split_activity_matches_closed_form),
        cmocka_unit_test(test_model_activity_scales_dynamic_energy_by_the_split),
        cmocka_unit_test(test_budget_cap_slows_every_job_uniformly_and_holds_power),
        cmocka_unit_test(test_budget_hold_queues_what_does_not_fit),
        cmocka_unit_test(test_budget_step_caps_running_jobs),
        cmocka_unit_test(test_every_policy_waits_when_the_budget_refuses_a_start),
        cmocka_unit_test(test_bad_budgets_are_positioned_errors),
        cmocka_unit_test(test_price_series_gives_cost_and_co2_of_closed_form),
        cmocka_unit_test(test_bad_price_series_are_positioned_errors),
        cmocka_unit_test(test_idle_nodes_sleep_and_wake_as_closed_form),
        cmocka_unit_test(test_energy_policy_defers_deferrable_jobs_to_cheap_hours),
        cmocka_unit_test(test_energy_delay_clock_matches_closed_form),
        cmocka_unit_test(test_budget_policy_mode_fits_by_job_clocks_or_falls_back_to_uniform),
        cmocka_unit_test(test_budget_policy_caps_the_less_clock_bound_job_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
