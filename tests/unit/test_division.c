/* SPDX-License-Identifier: Apache-2.0 */
/* test_division.c — the §3.3 division of labour over pipeline stages
 * (models/mech/division.h): the bottleneck split against a hand-worked
 * case and against every split of small cases, two stages on an A100 and
 * an H100 against the closed form of the split and of the iteration time,
 * positioned errors, a run where a node throttles mid-way whose job
 * finishes when its three iteration times and the delay say it must, and
 * a run across the two SKUs. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/mech/division.h"
#include "models/workload/perf.h"

static WkDoc *keep[16];
static size_t nkeep;

static const WkNode *yaml_root(const char *text)
{
    WkError err;
    WkDoc *d = NULL;
    wk_error_clear(&err);
    if (wk_doc_load_string(&d, "t.yaml", text, strlen(text), &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    keep[nkeep++] = d;
    return d->root;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < nkeep; i++)
        wk_doc_free(keep[i]);
    nkeep = 0;
    return 0;
}

/* By hand: layers of 3 s and 1 s, an output layer of 0.5 s on the second
 * stage, 8 layers: n = 1 gives max(3, 7.5), n = 2 max(6, 6.5), n = 3
 * max(9, 5.5); so 2 + 6 and a bottleneck of 6.5 s. */
static void test_split_by_hand(void **state)
{
    (void)state;
    const double ls[2] = {3, 1};
    uint32_t n[2];
    assert_true(fabs(wk_division_split(8, 2, ls, 0.5, NULL, n) - 6.5) < 1e-12);
    assert_int_equal(n[0], 2);
    assert_int_equal(n[1], 6);
    const uint32_t cap[2] = {8, 5}; /* the second stage holds at most 5: 3 + 5, max(9, 5.5) */
    assert_true(fabs(wk_division_split(8, 2, ls, 0.5, cap, n) - 9) < 1e-12);
    assert_int_equal(n[0], 3);
    assert_int_equal(n[1], 5);
    const uint32_t tight[2] = {2, 5};
    assert_true(isnan(wk_division_split(8, 2, ls, 0.5, tight, n)));
    assert_true(isnan(wk_division_split(1, 2, ls, 0.5, NULL, n)));
    const double zero[2] = {0, 1};
    assert_true(isnan(wk_division_split(8, 2, zero, 0.5, NULL, n)));
}

/* Against every split of 3 stages: the greedy bottleneck is the least. */
static void test_split_is_the_least_bottleneck(void **state)
{
    (void)state;
    const double cases[][4] = {{1, 1, 1, 0}, {1, 2, 3, 0.7}, {2.5, 1, 1.3, 4}, {1, 1, 0.25, 1.9}, {0.9, 3.1, 1.7, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (uint32_t L = 3; L <= 20; L++) {
            uint32_t n[3];
            double got = wk_division_split(L, 3, cases[c], cases[c][3], NULL, n);
            assert_int_equal(n[0] + n[1] + n[2], L);
            double best = INFINITY;
            for (uint32_t a = 1; a + 2 <= L; a++)
                for (uint32_t b = 1; a + b + 1 <= L; b++) {
                    double t = fmax(fmax(a * cases[c][0], b * cases[c][1]), (L - a - b) * cases[c][2] + cases[c][3]);
                    best = fmin(best, t);
                }
            if (fabs(got - best) > 1e-12)
                fail_msg("case %zu, %u layers: greedy %.6f, best %.6f", c, L, got, best);
        }
}

static WkModelSpec model(const char *yaml)
{
    WkModelSpec m;
    WkError err;
    wk_error_clear(&err);
    if (wk_model_parse(wk_node_get(yaml_root(yaml), "model"), NULL, &m, &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    return m;
}

static WkPerfResult eval(const WkModelSpec *m, const WkPerfEnv *env)
{
    WkPerfParams pp = wk_perf_defaults();
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    if (wk_perf_eval(m, env, &pp, &r, &err) < 0)
        fail_msg("%s", err.msg);
    return r;
}

/* Two stages, the first on an A100 node, the second (with the output layer)
 * on an H100 node, L layers of a (A100) and h (H100) seconds per
 * micro-batch, output layer u on the H100: the bottleneck max(n a, (L - n)
 * h + u) is least where the two meet, n* = (L h + u) / (a + h), so at
 * floor(n*) or ceil(n*); the iteration is mb t_max + (t_A + t_H - t_max)
 * (the steady state at the slowest stage, fill and drain once through
 * each), against (mb + 1) (L/2 a + u_A) with both stages on the A100's
 * clock and an even split. */
static void test_two_skus_closed_form(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: llama3-8b, tp: 8, pp: 2, global_batch: 64}\n");
    const WkGpuSku *a100 = wk_catalog_find("A100-SXM-80G"), *h100 = wk_catalog_find("H100-SXM-80G");
    WkPerfEnv env = {.sku = a100, .speed = 1, .gpus = 16, .nvlink_gpus = 8, .nvlink_bw = 300e9, .net_bw = 25e9,
                     .multi_domain = 1};
    WkPerfParams pp = wk_perf_defaults();
    WkPerfStage st[2] = {{.sku = a100, .speed = 1}, {.sku = h100, .speed = 1}};
    double a, h, u, ua, x;
    wk_perf_stage_costs(&m, &env, &pp, &st[0], &a, &ua);
    wk_perf_stage_costs(&m, &env, &pp, &st[1], &h, &u);
    assert_true(h < a && u < ua);
    const uint32_t L = m.layers;
    double nstar = (L * h + u) / (a + h);
    uint32_t lo = (uint32_t)floor(nstar), hi = lo + 1;
    double tlo = fmax(lo * a, (L - lo) * h + u), thi = fmax(hi * a, (L - hi) * h + u);
    uint32_t want = tlo <= thi ? lo : hi;
    double ls[2] = {a, h};
    uint32_t n[2];
    double tmax = wk_division_split(L, 2, ls, u, NULL, n);
    assert_int_equal(n[0], want);
    assert_true(fabs(tmax - fmin(tlo, thi)) < 1e-15);

    WkPerfResult even = eval(&m, &env);
    st[0].layers = n[0];
    st[1].layers = n[1];
    env.stages = st;
    WkPerfResult div = eval(&m, &env);
    double ta = n[0] * a, th = n[1] * h + u, mb = div.micro_batches;
    x = mb * fmax(ta, th) + (ta + th - fmax(ta, th));
    if (fabs(div.compute_s + div.bubble_s - x) > 1e-12 * x)
        fail_msg("compute + bubble %.9f s, closed form %.9f s", div.compute_s + div.bubble_s, x);
    double xe = (mb + 1) * (L / 2 * a + ua);
    if (fabs(even.compute_s + even.bubble_s - xe) > 1e-12 * xe)
        fail_msg("even split: %.9f s, closed form %.9f s", even.compute_s + even.bubble_s, xe);
    assert_true(div.iter_s < even.iter_s);
    /* the even split on one SKU: the same steady state; the fill and drain
     * pass the output layer once, not on every stage as the even model's
     * bubble (pp - 1) t_mb has it */
    WkPerfStage same[2] = {{.sku = a100, .speed = 1, .layers = L / 2}, {.sku = a100, .speed = 1, .layers = L / 2}};
    env.stages = same;
    WkPerfResult e2 = eval(&m, &env);
    assert_true(fabs(e2.compute_s - even.compute_s) < 1e-12 * even.compute_s);
    assert_true(fabs(e2.bubble_s - L / 2 * a) < 1e-12 * e2.bubble_s);
    assert_true(e2.iter_s <= even.iter_s);
}

static void test_bad_keys_are_positioned_errors(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"mechanisms: {division: {delay: -1ms}}\n", "delay"},
        {"mechanisms: {division: {delay: 2d}}\n", "delay"},
        {"mechanisms: {division: {detect: 1ms}}\n", "detect"},
        {"mechanisms: {nonesuch: {}}\n", "nonesuch"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        WkDivisionSpec s;
        int on = 0;
        WkError err;
        wk_error_clear(&err);
        assert_true(wk_division_parse(yaml_root(bad[i][0]), &s, &on, &err) < 0);
        if (!strstr(err.msg, bad[i][1]) && !strstr(err.where, bad[i][1]))
            fail_msg("%s: error lacks '%s': %s: %s", bad[i][0], bad[i][1], err.where, err.msg);
        assert_non_null(strstr(err.where, "t.yaml:1:"));
    }
    WkDivisionSpec s;
    int on = 0;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_division_parse(yaml_root("mechanisms: {division: {}}\n"), &s, &on, &err), 0);
    assert_true(on == 1 && s.delay_s == 1.0);
}

/* 2 A100 nodes, a job of 2 stages (one a node); node 1 throttles to half
 * clock at t0 = 1 h. */
static double jct(const char *incident, const char *mech, const char *submit, uint64_t *splits)
{
    char y[2048];
    snprintf(y, sizeof y,
             "name: division\nseed: 1\nsim: {end: 30d}\n"
             "cluster: {sku: A100-SXM-80G, nodes: 2, gpus_per_node: 8, fabric: {kind: fat-tree}}\n"
             "failures:\n  enabled: false\n  incidents: [%s]\n"
             "models: {m: {base: llama3-8b, tp: 8, pp: 2, global_batch: 64}}\n"
             "workload: {source: inline, jobs: [{submit: %s, gpus: 16, model: m, iterations: 3000}]}\n%s",
             incident, submit, mech);
    TestRun t;
    test_run_yaml(&t, y, NULL);
    double v = test_metric(&t, "jct_mean_s");
    *splits = wk_division_splits(t.run);
    test_run_free(&t);
    return v;
}

/* tau0 unthrottled, tau_t on the throttled node with the old split, tau_r
 * split anew: throttled at t0 and split anew d later, the job finishes at
 * t0 + d + (N - t0 / tau0 - d / tau_t) tau_r; without the mechanism it runs
 * on at its slowest stage's speed and finishes later. */
static void test_a_throttled_job_recovers_after_the_delay(void **state)
{
    (void)state;
    const double n = 3000, t0 = 3600;
    const char *thr = "{at: 1h, kind: throttle, node: 1, clock: 0.5, duration: 20d}";
    const char *thr0 = "{at: 0s, kind: throttle, node: 1, clock: 0.5, duration: 20d}";
    uint64_t k0, k1, k2, k3, k4;
    double base = jct("", "mechanisms: {division: {}}\n", "0", &k0);
    double split0 = jct(thr0, "mechanisms: {division: {}}\n", "1s", &k1);
    double frozen = jct(thr, "mechanisms: {division: {delay: 1d}}\n", "0", &k2);
    double real = jct(thr, "mechanisms: {division: {}}\n", "0", &k3);
    double off = jct(thr, "", "0", &k4);
    assert_true(k0 == 1 && k1 == 1 && k2 == 1 && k3 == 2 && k4 == 0);
    double tau0 = base / n, taur = split0 / n;
    double taut = (frozen - t0) / (n - t0 / tau0);
    assert_true(taur < taut && tau0 < taur);
    double d = 1.0, want = t0 + d + (n - t0 / tau0 - d / taut) * taur;
    if (fabs(real - want) > 1e-6 * want)
        fail_msg("split anew 1 s after the throttle: JCT %.9f s, closed form %.9f s", real, want);
    assert_true(off > real);
}

/* A job across an A100 node and an H100 node (in rank order: stage 0 on
 * the A100s); its JCT, and the splits applied. */
static double mixed(const char *model_keys, const char *mech, uint64_t *splits)
{
    char y[1024];
    snprintf(y, sizeof y,
             "name: mix\nseed: 1\nsim: {end: 30d}\n"
             "cluster:\n  groups:\n"
             "    - {name: a, sku: A100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
             "    - {name: h, sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n"
             "  fabric: {kind: fat-tree}\n"
             "models: {m: {base: llama3-8b, tp: 8, pp: 2, global_batch: 64%s}}\n"
             "workload: {source: inline, jobs: [{submit: 0, gpus: 16, model: m, iterations: 100}]}\n%s",
             model_keys, mech);
    TestRun t;
    test_run_yaml(&t, y, NULL);
    double v = test_metric(&t, "jct_mean_s");
    *splits = wk_division_splits(t.run);
    test_run_free(&t);
    return v;
}

/* Split, the job runs well faster than with an even split at the A100's
 * speed (the H100 stage computes about 3x as fast); a model that
 * rebalances micro-batches keeps its own model. */
static void test_a_job_across_two_skus_runs_faster_split(void **state)
{
    (void)state;
    uint64_t k0, k1, k2, k3;
    double off_s = mixed("", "", &k0), on_s = mixed("", "mechanisms: {division: {}}\n", &k1);
    assert_true(k0 == 0 && k1 == 1);
    if (!(on_s < 0.75 * off_s))
        fail_msg("split across A100 and H100: JCT %.3f s, even at the A100's speed %.3f s", on_s, off_s);
    double rb = mixed(", rebalance: true", "", &k2), rb_on = mixed(", rebalance: true", "mechanisms: {division: {}}\n", &k3);
    assert_true(k2 == 0 && k3 == 0 && rb == rb_on);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_split_by_hand, teardown),
        cmocka_unit_test_teardown(test_split_is_the_least_bottleneck, teardown),
        cmocka_unit_test_teardown(test_two_skus_closed_form, teardown),
        cmocka_unit_test_teardown(test_bad_keys_are_positioned_errors, teardown),
        cmocka_unit_test_teardown(test_a_throttled_job_recovers_after_the_delay, teardown),
        cmocka_unit_test_teardown(test_a_job_across_two_skus_runs_faster_split, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
