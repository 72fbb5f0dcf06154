/* SPDX-License-Identifier: Apache-2.0 */
/* test_sci_mech.c — the paper's mechanisms in sci's objective (docs/sci.md,
 * "The mechanisms in the objective"): each switch's term against its closed
 * form, every switch off leaves the energy as it was, the incremental energy
 * stays exact with every switch on, and the feedback loop changes decisions
 * only when it is on. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/run/hooks.h"
#include "models/sched/sci.h"

typedef struct {
    WkDoc *doc;
    WkCluster c;
} TestCluster;

static void cluster_yaml(TestCluster *t, const char *yaml)
{
    WkError err;
    wk_error_clear(&err);
    memset(t, 0, sizeof *t);
    if (wk_doc_load_string(&t->doc, "c.yaml", yaml, strlen(yaml), &err) < 0 ||
        wk_cluster_parse(wk_node_get(t->doc->root, "cluster"), &t->c, &err) < 0)
        fail_msg("cluster: %s: %s", err.where, err.msg);
}

static void cluster_free(TestCluster *t)
{
    wk_cluster_fini(&t->c);
    wk_doc_free(t->doc);
}

static void test_sci_mech_closed_forms_of_coupling_clock_loss_and_feedback_scale(void **state)
{
    (void)state;
    WkSciParams p;
    wk_sci_defaults(&p);
    /* off: the plain couplings */
    for (int k = 0; k < 4; k++)
        assert_true(wk_sci_coupling(&p, k) == p.j[k]);
    /* on, ratio 2: J' = 1 - (1 - J) / 2 for the fabric classes */
    p.use_cascade = 1;
    assert_float_equal(wk_sci_coupling(&p, WK_PATH_LOCAL), 1.0, 1e-12);
    assert_float_equal(wk_sci_coupling(&p, WK_PATH_LEAF), 0.75, 1e-12);
    assert_float_equal(wk_sci_coupling(&p, WK_PATH_POD), 0.625, 1e-12);
    assert_float_equal(wk_sci_coupling(&p, WK_PATH_CROSS_POD), 0.5, 1e-12);
    p.compression = 4;
    assert_float_equal(wk_sci_coupling(&p, WK_PATH_CROSS_POD), 0.75, 1e-12);
    /* clock loss: four GPUs at 1, 1, 0.5, 1 */
    float clock[4] = {1, 1, 0.5f, 1};
    uint32_t g[4] = {0, 1, 2, 3};
    assert_float_equal(wk_sci_clock_loss(&p, clock, g, 4), 0.5, 1e-12);
    p.use_division = 1;
    assert_float_equal(wk_sci_clock_loss(&p, clock, g, 4), 0.125, 1e-12);
    /* feedback scale: 1 while off, the average clamped to [1, max] when on */
    assert_float_equal(wk_sci_feedback_scale(&p, 3.0), 1.0, 0);
    p.feedback = 1;
    assert_float_equal(wk_sci_feedback_scale(&p, 3.0), 3.0, 0);
    assert_float_equal(wk_sci_feedback_scale(&p, 0.5), 1.0, 0);
    assert_float_equal(wk_sci_feedback_scale(&p, 100.0), p.feedback_max, 0);
    assert_float_equal(wk_sci_feedback_scale(&p, 0.0), 1.0, 0);
    assert_float_equal(wk_sci_feedback_scale(&p, NAN), 1.0, 0);
}

/* The energy of one fixed configuration under params p: 2 pods x 2 nodes x
 * 4 GPUs on a rail fabric, GPU 2 at clock 0.5; a 6-GPU running job on GPUs
 * 0-3 and 4-5 (node 0 and half of node 1); nodes 2 and 3 idle. */
static double fixed_energy(const WkSciParams *p, double *recomputed_after_anneal)
{
    TestCluster tc;
    cluster_yaml(&tc, "cluster: {nodes: 4, gpus_per_node: 4, nodes_per_pod: 2,\n"
                      "          fabric: {kind: rail, tiers: 3, radix: 16, link_gbps: 200}}\n");
    tc.c.clock[2] = 0.5f;
    WkSciState *st;
    WkError err;
    assert_int_equal(wk_sci_state_new(&st, &tc.c, p, &err), 0);
    uint8_t gs[16] = {0};
    uint32_t run[6] = {0, 1, 2, 3, 4, 5};
    for (int k = 0; k < 6; k++)
        gs[run[k]] = WK_SCI_USED;
    WkSciJob jobs[] = {{.gpus = 6, .rho = 1, .real = run}, {.gpus = 4, .rho = 1, .wait_s = 600},
                       {.gpus = 1, .rho = 0.5, .wait_s = 60}};
    assert_int_equal(wk_sci_state_load(st, gs, jobs, 3, &err), 0);
    double e = wk_sci_energy(st);
    if (recomputed_after_anneal) {
        WkRng *rng;
        assert_int_equal(wk_rng_new(&rng, 5, "test.sci", &err), 0);
        WkSciAnnealStats as;
        assert_int_equal(wk_sci_anneal(st, rng, &as), 0);
        assert_float_equal(as.e_after, wk_sci_energy(st), 1e-6);
        *recomputed_after_anneal = as.e_after;
        wk_rng_free(rng);
    }
    wk_sci_state_free(st);
    cluster_free(&tc);
    return e;
}

static void test_sci_mech_each_switch_changes_the_energy_by_its_term_only(void **state)
{
    (void)state;
    WkSciParams p;
    wk_sci_defaults(&p);
    p.migrate = 1;
    double e0 = fixed_energy(&p, NULL);
    /* the waiting jobs' terms: c_wait n wait_h */
    double waits = 4 * 600 / 3600.0 + 1 * 60 / 3600.0;
    /* outsourcing: nodes 2 and 3 are idle, 4 GPUs each */
    WkSciParams q = p;
    q.use_outsourcing = 1;
    assert_float_equal(fixed_energy(&q, NULL) - e0, -q.h_lend * 8, 1e-9);
    /* division: the running job loses 1 - mean clock = 0.5 / 6 instead of
     * 1 - min = 0.5, times h_throttle rho n */
    q = p;
    q.use_division = 1;
    assert_float_equal(fixed_energy(&q, NULL) - e0, p.h_throttle * 6 * (0.5 / 6 - 0.5), 1e-6);
    /* cascade: the 6-GPU job's one boundary between node 0 and node 1
     * (same pod: class leaf or pod) gains J' - J = (1 - J) / 2 */
    q = p;
    q.use_cascade = 1;
    double d = fixed_energy(&q, NULL) - e0;
    assert_true(d < 0);
    assert_true(fabs(d + (1 - p.j[WK_PATH_LEAF]) / 2) < 1e-9 || fabs(d + (1 - p.j[WK_PATH_POD]) / 2) < 1e-9);
    /* feedback does not enter the state's energy: the policy scales c_wait */
    q = p;
    q.feedback = 1;
    assert_true(fixed_energy(&q, NULL) == e0);
    q.c_wait = 2;
    assert_float_equal(fixed_energy(&q, NULL) - e0, waits, 1e-6);
    /* every switch on: the tracked energy still equals a recomputation */
    q = p;
    q.use_outsourcing = q.use_cascade = q.use_division = 1;
    double after;
    fixed_energy(&q, &after);
    assert_true(isfinite(after));
}

/* Two pods of one 8-GPU node. Job 0 (8 GPUs, 2 h) and job 1 (8 GPUs, 1 h)
 * start at once; job 2 (8 GPUs, 10 min) waits for job 1 and completes at
 * 1 h 10 min, 7x its run time after its submission. Job 3 (16 GPUs) is a
 * blocked head from 1 h 5 min; job 4 (1 GPU, 5 min) arrives behind it and
 * would open the idle node of an empty pod: +c_node + c_pod - h_load = +0.5,
 * so it waits until its waiting term c_wait x wait_h pays for that, unless
 * feedback scaled c_wait up. The scheduler ticks every minute. */
static WkTime start_of_small_job(const char *extra, double *scale)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "cluster: {nodes: 2, gpus_per_node: 8, nodes_per_pod: 1}\n"
             "failures: {enabled: false}\n"
             "workload:\n"
             "  source: inline\n"
             "  jobs:\n"
             "    - {submit: 0, gpus: 8, duration: 2h}\n"
             "    - {submit: 0, gpus: 8, duration: 1h}\n"
             "    - {submit: 0, gpus: 8, duration: 10m}\n"
             "    - {submit: 65m, gpus: 16, duration: 1h}\n"
             "    - {submit: 66m, gpus: 1, duration: 5m}\n"
             "scheduler: {name: sci, tick: 1m%s}\n",
             extra);
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 3600 * WK_NS_PER_S);
    WkTime st = wk_run_hooks_job(t.run, 4).start;
    *scale = wk_sci_stats(wk_run_hooks_sched(t.run)->priv)->wait_scale;
    test_run_free(&t);
    return st;
}

static void test_sci_mech_feedback_changes_decisions_only_when_on(void **state)
{
    (void)state;
    double s_def, s_off, s_on;
    WkTime def = start_of_small_job("", &s_def);
    WkTime off = start_of_small_job(", feedback: false, feedback_weight: 1", &s_off);
    WkTime on = start_of_small_job(", feedback: true, feedback_weight: 1", &s_on);
    print_message("small job starts at %.1f min (default), %.1f (off), %.1f (on, scale %.2f)\n",
                  wk_time_to_s(def) / 60, wk_time_to_s(off) / 60, wk_time_to_s(on) / 60, s_on);
    assert_int_equal(def, off);
    assert_float_equal(s_def, 1.0, 0);
    assert_float_equal(s_off, 1.0, 0);
    /* without feedback job 4 waits 0.5 / c_wait h = 30 min from 66 min (to
     * the next tick after) */
    assert_true(wk_time_to_s(off) > 96 * 60 && wk_time_to_s(off) <= 97 * 60);
    /* with it (weight 1: the last completion's stretch) the scale before
     * job 4's start is job 2's stretch, 70 min / 10 min = 7: waiting weighs
     * 7x, so it waits 30 / 7 = 4.3 min, to the tick at 71 min */
    assert_true(wk_time_to_s(on) > 70 * 60 && wk_time_to_s(on) <= 71 * 60);
    /* the scale moved on with later completions, and stayed in [1, max] */
    assert_true(s_on > 1 && s_on <= 8);
}

static void test_sci_mech_switches_are_checked_with_a_position(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"compression: 0.5", "compression"}, {"feedback: 2", "feedback"}, {"use_cascade: maybe", "use_cascade"},
        {"feedback_weight: 0", "feedback_weight"}, {"feedback_max: 0.5", "feedback_max"}, {"lend_weight: -1", "lend_weight"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "cluster: {nodes: 2, gpus_per_node: 8}\n"
                 "workload: {source: inline, jobs: [{submit: 0, gpus: 1, duration: 1s}]}\n"
                 "scheduler: {name: sci, %s}\n", bad[i][0]);
        WkError err;
        assert_true(test_prepare_yaml(yaml, &err) < 0);
        assert_non_null(strstr(err.where, "bad.yaml:3:"));
        print_message("%s -> %s: %s\n", bad[i][0], err.where, err.msg);
    }
    /* the run's cascade ratio is the default compression, checked as well */
    WkError err;
    assert_int_equal(test_prepare_yaml("cluster: {nodes: 2, gpus_per_node: 8}\n"
                                       "workload: {source: inline, jobs: [{submit: 0, gpus: 1, duration: 1s}]}\n"
                                       "mechanisms: {cascade: {ratio: 4}}\n"
                                       "scheduler: {name: sci, use_cascade: true}\n",
                                       &err),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sci_mech_closed_forms_of_coupling_clock_loss_and_feedback_scale),
        cmocka_unit_test(test_sci_mech_each_switch_changes_the_energy_by_its_term_only),
        cmocka_unit_test(test_sci_mech_feedback_changes_decisions_only_when_on),
        cmocka_unit_test(test_sci_mech_switches_are_checked_with_a_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
