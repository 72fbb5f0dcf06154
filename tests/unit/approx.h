/* SPDX-License-Identifier: Apache-2.0 */
/* approx.h — cmocka's assert_float_equal casts its first two arguments to
 * float without parentheses, so `assert_float_equal(x - y, z, e)` compares
 * (float)x - y, and every comparison runs in single precision. This
 * replaces it with a double-precision check of the whole expressions:
 * |a - b| <= epsilon, both values printed in full on failure. Include
 * after <cmocka.h>. */
#ifndef WK_TEST_APPROX_H
#define WK_TEST_APPROX_H

#include <math.h>

/* Fails the running test at file:line unless |a - b| <= eps. */
static inline void wk_test_close(double a, double b, double eps, const char *file, int line)
{
    if (fabs(a - b) <= eps)
        return;
    print_error("%.17g != %.17g (|difference| %.3g > %.3g)\n", a, b, fabs(a - b), eps);
    _fail(file, line);
}

#undef assert_float_equal
#define assert_float_equal(a, b, epsilon) wk_test_close((double)(a), (double)(b), (double)(epsilon), __FILE__, __LINE__)

#endif
