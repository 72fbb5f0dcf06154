/* SPDX-License-Identifier: Apache-2.0 */
/* test_claims.c — the verdict of a claim against seeds (closed form of the
 * Student-t interval) and the claims table's rows from per-seed values. */
#include "tests/unit/testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/paper_claims.h"

/* 1, 2, 3: mean 2, sd 1, half-width t(0.975, 2) / sqrt(3) = 4.302653 / 1.732051 = 2.48414. */
static void test_verdict_is_the_published_number_inside_the_t_interval(void **state)
{
    (void)state;
    const double v[] = {1, 2, 3};
    char why[256];
    assert_int_equal(wk_claims_verdict(4.48, v, 3, why, sizeof why), WK_CLAIMS_SUPPORTED);
    assert_non_null(strstr(why, "inside the 95 % interval [-0.5, 4.5]"));
    assert_int_equal(wk_claims_verdict(4.49, v, 3, why, sizeof why), WK_CLAIMS_NOT_SUPPORTED);
    assert_non_null(strstr(why, "outside"));
    assert_int_equal(wk_claims_verdict(-0.48, v, 3, NULL, 0), WK_CLAIMS_SUPPORTED);
    assert_int_equal(wk_claims_verdict(-0.49, v, 3, NULL, 0), WK_CLAIMS_NOT_SUPPORTED);
    /* a NaN seed is left out: 1, 3 give mean 2, half-width 12.706 */
    const double w[] = {1, NAN, 3};
    assert_int_equal(wk_claims_verdict(14.7, w, 3, NULL, 0), WK_CLAIMS_SUPPORTED);
    assert_int_equal(wk_claims_verdict(14.8, w, 3, NULL, 0), WK_CLAIMS_NOT_SUPPORTED);
    /* equal seeds: the interval is the point; said in the reason */
    const double e[] = {5, 5};
    assert_int_equal(wk_claims_verdict(5.1, e, 2, why, sizeof why), WK_CLAIMS_NOT_SUPPORTED);
    assert_non_null(strstr(why, "every seed gives the same value"));
}

static void test_no_interval_or_no_number_is_not_testable(void **state)
{
    (void)state;
    const double one[] = {2}, none[] = {NAN, NAN}, v[] = {1, 2};
    char why[256];
    assert_int_equal(wk_claims_verdict(2, one, 1, why, sizeof why), WK_CLAIMS_NOT_TESTABLE);
    assert_non_null(strstr(why, "--seeds 2"));
    assert_int_equal(wk_claims_verdict(2, none, 2, why, sizeof why), WK_CLAIMS_NOT_TESTABLE);
    assert_non_null(strstr(why, "no seed gave a value"));
    assert_int_equal(wk_claims_verdict(NAN, v, 2, NULL, 0), WK_CLAIMS_NOT_TESTABLE);
    assert_string_equal(wk_claims_verdict_name(WK_CLAIMS_NOT_SUPPORTED), "not supported");
}

/* The line of the claims table that starts with `start` (NULL if none). */
static const char *line_of(const char *text, const char *start)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, start, strlen(start)) == 0)
            return p;
    return NULL;
}

/* §3.2 from TFLOP/s per GPU: 112/100, 111/100, 113/100 = +12 ± 2.5 %: the
 * published +12 % is inside; rows without traces are not testable, every
 * claim has a verdict and a reason. */
static void test_claims_table_gives_every_row_a_verdict(void **state)
{
    (void)state;
    WkClaimsSeed s[3];
    memset(s, 0, sizeof s);
    for (int i = 0; i < 3; i++) {
        for (int v = 0; v < WK_CLAIMS_NV; v++)
            s[i].tflops[v] = NAN;
        s[i].tflops[WK_CLAIMS_ALL] = 112 + (i == 1 ? -1 : i == 2 ? 1 : 0);
        s[i].tflops[WK_CLAIMS_NO_CASCADE] = 100;
    }
    char *t = wk_claims_render(s, 3, 0);
    assert_non_null(t);
    const char *l = line_of(t, "§3.2");
    assert_non_null(l);
    const char *end = strchr(l, '\n');
    assert_non_null(end);
    char row[512];
    snprintf(row, sizeof row, "%.*s", (int)(end - l), l);
    assert_non_null(strstr(row, "+12.0 ± 2.5 %"));
    assert_non_null(strstr(row, "  supported"));
    assert_null(strstr(row, "not supported"));
    int verdicts = 0, reasons = 0;
    for (const char *p = t; (p = strstr(p, "\n")) != NULL; p++) {
        verdicts += strncmp(p - 9, "supported", 9) == 0 || strncmp(p - 12, "not testable", 12) == 0;
        reasons += strncmp(p + 1, "            why: ", 17) == 0;
    }
    assert_int_equal(verdicts, 12);
    assert_int_equal(reasons, 12);
    assert_non_null(strstr(t, "division off"));
    free(t);
    char *md = wk_claims_render(s, 3, 1);
    assert_non_null(md);
    assert_non_null(strstr(md, "| §3.2 | communication efficiency, cascade on vs off | +12 % | +12.0 ± 2.5 % | 3 | "
                               "supported |"));
    free(md);
    assert_null(wk_claims_render(s, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict_is_the_published_number_inside_the_t_interval),
        cmocka_unit_test(test_no_interval_or_no_number_is_not_testable),
        cmocka_unit_test(test_claims_table_gives_every_row_a_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
