/* SPDX-License-Identifier: Apache-2.0 */
/* test_compare_select.c — what a `wanka compare` table shows: float noise
 * as no change, the --baseline column, the --metrics rows and the narrow
 * default, and LaTeX names with units and scientific notation. Traces are
 * hand-written (trace_fixture.h). */
#include "tests/unit/testutil.h"
#include "tests/unit/trace_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "sim/trace/schema.h"

/* Write n fake traces t0.h5 .. (scheduler sched[i], seed i + 1) whose
 * metrics names[0..nm) have the values v[i][0..nm). */
static void fakes(TraceDir *d, const char **paths, size_t n, const char *const *sched, const char *const *names,
                  const double (*v)[4], size_t nm)
{
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%zu.h5", i);
        paths[i] = trace_fixture_file(d, name);
        trace_fixture_write(paths[i], &(FakeTrace){.scenario = "fake", .scheduler = sched[i], .seed = (int64_t)i + 1,
                                                   .names = names, .values = v[i], .nm = nm});
    }
}

static WkCompare *load(const char *const *paths, size_t n)
{
    WkError err;
    wk_error_clear(&err);
    WkCompare *c = NULL;
    if (wk_compare_load(&c, paths, n, 1, &err) != 0)
        fail_msg("compare: %s", err.msg);
    return c;
}

static void test_a_difference_below_float_noise_is_no_change(void **state)
{
    static const char *const m[] = {WK_SCHEMA_M_JCT_MEAN, WK_SCHEMA_M_WAIT_MEAN};
    static const char *const s[] = {"a", "b"};
    static const double v[2][4] = {{1234.5, 1.0}, {1234.5 * (1 + 4.4e-16 * 100), 1.0 + 1e-9}};
    const char *paths[2];
    fakes(*state, paths, 2, s, m, v, 2);
    WkCompare *c = load(paths, 2);
    const WkCompareRow *jct = wk_compare_row(c, WK_SCHEMA_M_JCT_MEAN);
    assert_true(jct->cells[1].mean != jct->cells[0].mean); /* the values differ, in the last bits */
    assert_true(jct->cells[1].change == 0.0);
    const WkCompareRow *wait = wk_compare_row(c, WK_SCHEMA_M_WAIT_MEAN);
    assert_true(fabs(wait->cells[1].change - 1e-9) < 1e-12); /* above the noise: kept */
    char *text = wk_compare_render(c, WK_COMPARE_TEXT);
    assert_null(strstr(text, "e-14"));
    assert_non_null(strstr(text, "0.0 %"));
    free(text);
    wk_compare_free(c);
}

static void test_baseline_moves_its_column_first_and_changes_are_against_it(void **state)
{
    static const char *const m[] = {WK_SCHEMA_M_JCT_MEAN};
    static const char *const s[] = {"fifo", "sjf", "sci"};
    static const double v[3][4] = {{100}, {50}, {200}};
    const char *paths[3];
    fakes(*state, paths, 3, s, m, v, 1);
    WkCompare *c = load(paths, 3);
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_compare_baseline(c, paths[2], &err), 0);
    assert_string_equal(c->cols[0].scheduler, "sci");
    assert_string_equal(c->cols[1].scheduler, "fifo");
    assert_string_equal(c->cols[2].scheduler, "sjf");
    const WkCompareRow *r = wk_compare_row(c, WK_SCHEMA_M_JCT_MEAN);
    assert_true(isnan(r->cells[0].change));
    assert_true(fabs(r->cells[1].change - (-0.5)) < 1e-15);
    assert_true(fabs(r->cells[2].change - (-0.75)) < 1e-15);
    assert_true(r->cells[0].mean == 200);
    /* a trace not compared is refused, naming it */
    assert_int_equal(wk_compare_baseline(c, "nope.h5", &err), WK_E_INVAL);
    assert_non_null(strstr(err.where, "nope.h5"));
    wk_compare_free(c);
}

static void test_metrics_select_rows_in_order_and_the_default_is_narrow(void **state)
{
    static const char *const m[] = {WK_SCHEMA_M_JCT_MEAN, WK_SCHEMA_M_EVENTS, WK_SCHEMA_M_UTILIZATION,
                                    WK_SCHEMA_M_GPUS};
    static const char *const s[] = {"a"};
    static const double v[1][4] = {{1, 2, 0.5, 8}};
    const char *paths[1];
    fakes(*state, paths, 1, s, m, v, 4);
    WkError err;
    wk_error_clear(&err);
    WkCompare *c = load(paths, 1);
    assert_int_equal(wk_compare_select(c, "gpus,jct_mean_s,gpus", 1, &err), 0);
    assert_int_equal(c->nrows, 2);
    assert_string_equal(c->rows[0].name, "gpus");
    assert_string_equal(c->rows[1].name, "jct_mean_s");
    /* strict: a metric no trace has is an error, and c is as it was */
    assert_int_equal(wk_compare_select(c, "gpus,jct_p42_s", 1, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "'jct_p42_s'"));
    assert_int_equal(c->nrows, 2);
    assert_int_equal(wk_compare_select(c, "gpus,,x", 0, &err), WK_E_INVAL);
    wk_compare_free(c);
    /* the default: the metrics of the narrow list the trace has */
    c = load(paths, 1);
    assert_int_equal(wk_compare_select(c, wk_compare_default_metrics, 0, &err), 0);
    assert_int_equal(c->nrows, 2);
    assert_string_equal(c->rows[0].name, "utilization");
    assert_string_equal(c->rows[1].name, "jct_mean_s");
    wk_compare_free(c);
}

static void test_latex_names_metrics_with_units_and_writes_exponents_as_powers_of_ten(void **state)
{
    static const char *const m[] = {WK_SCHEMA_M_JCT_P99, WK_SCHEMA_M_REC_DRAIN_MEAN, WK_SCHEMA_M_ENERGY,
                                    WK_SCHEMA_M_TOKENS_TRAINED};
    static const char *const s[] = {"fifo_x", "sci"};
    static const double v[2][4] = {{1.546e7, 12.5, 3.0e-5, 2.0e18}, {1.546e7 * (1 + 2e-8), 12.5, 6.0e-5, 2.5e18}};
    const char *paths[2];
    fakes(*state, paths, 2, s, m, v, 4);
    WkCompare *c = load(paths, 2);
    char *tex = wk_compare_render(c, WK_COMPARE_LATEX);
    assert_non_null(tex);
    assert_non_null(strstr(tex, "metric & fifo\\_x/1 & sci/2 & change \\\\\n"));
    assert_non_null(strstr(tex, "JCT p99 (s) & 15460000 & $1.546 \\times 10^{7}$ & $+2 \\times 10^{-6}$ \\% \\\\\n"));
    assert_non_null(strstr(tex, "recovery drain mean (s) & 12.5000 & 12.5000 & 0.0 \\% \\\\\n"));
    assert_non_null(strstr(tex, "Energy (kWh) & $3 \\times 10^{-5}$ & $6 \\times 10^{-5}$ & +100.0 \\% \\\\\n"));
    assert_non_null(strstr(tex, "tokens trained & $2 \\times 10^{18}$"));
    assert_null(strstr(tex, "e+"));
    assert_null(strstr(tex, "jct_p99_s"));
    free(tex);
    wk_compare_free(c);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, trace_fixture_setup, trace_fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_a_difference_below_float_noise_is_no_change),
        TEST(test_baseline_moves_its_column_first_and_changes_are_against_it),
        TEST(test_metrics_select_rows_in_order_and_the_default_is_narrow),
        TEST(test_latex_names_metrics_with_units_and_writes_exponents_as_powers_of_ten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
