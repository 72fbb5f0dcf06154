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

/* ---- §3.3 roles ---- */

static void test_sci_mech_role_of_a_job_from_how_its_time_follows_the_skus(void **state)
{
    (void)state;
    /* H100 over A100 (catalog.c: 989 / 312 TFLOP/s BF16, 3.35 / 2.0 TB/s HBM) */
    double F = 989.0 / 312.0, M = 3.35 / 2.0;
    assert_int_equal(wk_sci_role(3.0, F, M), WK_SCI_ROLE_COMPUTE);
    assert_int_equal(wk_sci_role(1.7, F, M), WK_SCI_ROLE_MEMORY);
    assert_int_equal(wk_sci_role(1.05, F, M), WK_SCI_ROLE_COMM);
    /* the boundaries are the geometric means: sqrt(F M) between compute and
     * memory, sqrt(M) between memory and communication */
    assert_int_equal(wk_sci_role(sqrt(F * M) * 1.001, F, M), WK_SCI_ROLE_COMPUTE);
    assert_int_equal(wk_sci_role(sqrt(F * M) * 0.999, F, M), WK_SCI_ROLE_MEMORY);
    assert_int_equal(wk_sci_role(sqrt(M) * 1.001, F, M), WK_SCI_ROLE_MEMORY);
    assert_int_equal(wk_sci_role(sqrt(M) * 0.999, F, M), WK_SCI_ROLE_COMM);
    assert_int_equal(wk_sci_role(NAN, F, M), WK_SCI_ROLE_NONE);
    assert_string_equal(wk_sci_role_name(WK_SCI_ROLE_COMM), "communication");
    /* speeds relative to the fastest known group; unknown groups at 1 */
    double t[3] = {2.0, 4.0, NAN};
    float sp[3];
    uint32_t f, sl;
    assert_float_equal(wk_sci_speeds(t, 3, sp, &f, &sl), 2.0, 1e-12);
    assert_int_equal(f, 0);
    assert_int_equal(sl, 1);
    assert_float_equal(sp[0], 1.0, 1e-7);
    assert_float_equal(sp[1], 0.5, 1e-7);
    assert_float_equal(sp[2], 1.0, 1e-7);
    double one[2] = {3.0, NAN};
    assert_float_equal(wk_sci_speeds(one, 2, sp, &f, &sl), 1.0, 0);
    assert_int_equal(f, 0);
    assert_int_equal(sl, 0);
}

/* Two SKUs, one 8-GPU node each (group 0: A100, group 1: H100). Job A is
 * compute-bound: at 0.3 of its H100 speed on the A100; job B is
 * communication-bound: at 0.8. Both are fastest on the H100, but only one
 * fits there. The closed form: A on the H100 and B on the A100 costs
 * h_throttle x rho x 8 x (1 - 0.8), the other way h_throttle x rho x 8 x
 * (1 - 0.3); the difference 8 h_throttle (0.7 - 0.2) = 16 with the
 * defaults. With use_roles off both assignments have the same energy. */
static void test_sci_mech_roles_on_two_skus_give_each_job_its_comparative_advantage(void **state)
{
    (void)state;
    TestCluster tc;
    cluster_yaml(&tc, "cluster:\n  groups:\n"
                      "    - {sku: A100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
                      "    - {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n");
    static const float sa[2] = {0.3f, 1.0f}, sb[2] = {0.8f, 1.0f};
    uint32_t g0[8], g1[8];
    for (uint32_t k = 0; k < 8; k++)
        g0[k] = k, g1[k] = 8 + k;
    for (int on = 0; on <= 1; on++) {
        WkSciParams p;
        wk_sci_defaults(&p);
        p.use_roles = on;
        WkSciState *st;
        WkError err;
        assert_int_equal(wk_sci_state_new(&st, &tc.c, &p, &err), 0);
        uint8_t gs[16] = {0};
        WkSciJob jobs[] = {{.gpus = 8, .rho = 1, .wait_s = 60, .speed = sa},
                           {.gpus = 8, .rho = 1, .wait_s = 60, .speed = sb}};
        assert_int_equal(wk_sci_state_load(st, gs, jobs, 2, &err), 0);
        assert_int_equal(wk_sci_set_block(st, 0, g1), 0);
        assert_int_equal(wk_sci_set_block(st, 1, g0), 0);
        double right = wk_sci_energy(st);
        assert_int_equal(wk_sci_set_block(st, 0, NULL), 0);
        assert_int_equal(wk_sci_set_block(st, 1, NULL), 0);
        assert_int_equal(wk_sci_set_block(st, 0, g0), 0);
        assert_int_equal(wk_sci_set_block(st, 1, g1), 0);
        double wrong = wk_sci_energy(st);
        if (!on) {
            assert_float_equal(wrong, right, 1e-9);
        } else {
            assert_float_equal(wrong - right, 8 * p.h_throttle * ((1 - 0.3) - (1 - 0.8)), 1e-5);
            /* the annealer, from nothing placed, finds the assignment */
            assert_int_equal(wk_sci_state_load(st, gs, jobs, 2, &err), 0);
            WkRng *rng;
            assert_int_equal(wk_rng_new(&rng, 3, "test.sci", &err), 0);
            WkSciAnnealStats as;
            assert_int_equal(wk_sci_anneal(st, rng, &as), 0);
            assert_non_null(wk_sci_block(st, 0));
            assert_non_null(wk_sci_block(st, 1));
            assert_int_equal(wk_sci_block(st, 0)[0], 8);
            assert_int_equal(wk_sci_block(st, 1)[0], 0);
            assert_float_equal(as.e_after, right, 1e-6);
            wk_rng_free(rng);
        }
        wk_sci_state_free(st);
    }
    cluster_free(&tc);
}

/* An A100 node and an H100 node, both held by a plain job for 10 min; two
 * 8-GPU model jobs wait for them and start in the same round: a long run
 * of llama3-8b (7 h), then a short one of the recommendation model of
 * paper-sci-10k (11 s of work). Both are compute-bound (the performance model
 * gives them 2.83x and 2.92x their H100 time on the A100, against 3.17x the
 * FLOP/s), and the long one has the most to lose on the A100 (rho x (1 -
 * speed)), so with roles it gets the H100. Returns the group (0 A100, 1
 * H100) the LLM ran on and the roles counted. */
static uint32_t group_of_llm(const char *extra, uint64_t roles[WK_SCI_ROLE_N])
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "cluster:\n  groups:\n"
             "    - {sku: A100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
             "    - {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
             "failures: {enabled: false}\n"
             /* the curves at their measured clocks: without roles the two
              * nodes' energies tie, which is the case this test needs */
             "perf: {sustained_clock: false}\n"
             "models:\n"
             "  dlrm-like: {kind: recsys, params: 2.5e7, flops_per_sample: 1.0e8, batch_per_gpu: 4096,\n"
             "              embedding_gb: 100, a2a_bytes_per_sample: 6656}\n"
             "  llm: {base: llama3-8b, tp: 2, pp: 1, global_batch: 512}\n"
             "workload:\n"
             "  source: inline\n"
             "  jobs:\n"
             "    - {submit: 0, gpus: 16, duration: 10m}\n"
             "    - {submit: 1m, gpus: 8, model: llm, iterations: 200}\n"
             "    - {submit: 2m, gpus: 8, model: dlrm-like, iterations: 2000}\n"
             "scheduler: {name: sci%s}\n",
             extra);
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    WkRunJobView v = wk_run_hooks_job(t.run, 1);
    assert_int_equal(v.state, WK_JOB_COMPLETED);
    uint32_t g = v.gpus[0] >= 8;
    const WkSciStats *st = wk_sci_stats(wk_run_hooks_sched(t.run)->priv);
    memcpy(roles, st->roles, sizeof st->roles);
    test_run_free(&t);
    return g;
}

static void test_sci_mech_roles_put_the_compute_bound_job_on_the_faster_sku(void **state)
{
    (void)state;
    uint64_t off[WK_SCI_ROLE_N], on[WK_SCI_ROLE_N];
    uint32_t g_off = group_of_llm("", off), g_on = group_of_llm(", use_roles: true", on);
    print_message("llama3-8b on group %u (roles off), %u (on); roles: compute %llu, memory %llu, comm %llu, none %llu\n",
                  g_off, g_on, (unsigned long long)on[WK_SCI_ROLE_COMPUTE], (unsigned long long)on[WK_SCI_ROLE_MEMORY],
                  (unsigned long long)on[WK_SCI_ROLE_COMM], (unsigned long long)on[WK_SCI_ROLE_NONE]);
    for (int k = 0; k < WK_SCI_ROLE_N; k++)
        assert_int_equal(off[k], 0);
    assert_int_equal(on[WK_SCI_ROLE_COMPUTE], 2);
    assert_int_equal(on[WK_SCI_ROLE_NONE], 1); /* the plain job: no model to ask */
    /* off: the LLM, the queue head, keeps the pack proposal's node (the
     * A100: equal energies); on: it gets the H100 */
    assert_int_equal(g_off, 0);
    assert_int_equal(g_on, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sci_mech_closed_forms_of_coupling_clock_loss_and_feedback_scale),
        cmocka_unit_test(test_sci_mech_each_switch_changes_the_energy_by_its_term_only),
        cmocka_unit_test(test_sci_mech_feedback_changes_decisions_only_when_on),
        cmocka_unit_test(test_sci_mech_switches_are_checked_with_a_position),
        cmocka_unit_test(test_sci_mech_role_of_a_job_from_how_its_time_follows_the_skus),
        cmocka_unit_test(test_sci_mech_roles_on_two_skus_give_each_job_its_comparative_advantage),
        cmocka_unit_test(test_sci_mech_roles_put_the_compute_bound_job_on_the_faster_sku),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
