/* SPDX-License-Identifier: Apache-2.0 */
/* time.h — simulated time: int64 nanoseconds (2^63 ns is 292 years). Never a
 * float for the clock; doubles only for rates and reporting. */
#ifndef WK_TIME_H
#define WK_TIME_H

#include <stdint.h>

typedef int64_t WkTime; /* ns since the start of the run */

#define WK_NS_PER_US INT64_C(1000)
#define WK_NS_PER_MS INT64_C(1000000)
#define WK_NS_PER_S INT64_C(1000000000)
#define WK_NS_PER_MIN (INT64_C(60) * WK_NS_PER_S)
#define WK_NS_PER_H (INT64_C(3600) * WK_NS_PER_S)
#define WK_NS_PER_DAY (INT64_C(86400) * WK_NS_PER_S)
#define WK_TIME_NEVER INT64_MAX

/** Seconds (double) from ns. */
static inline double wk_time_to_s(WkTime t) { return (double)t / 1e9; }

/** ns from seconds, rounded to nearest; saturates at WK_TIME_NEVER and at 0
 * for negative input is NOT done: the caller validates ranges first. */
static inline WkTime wk_time_from_s(double s)
{
    double ns = s * 1e9;
    if (ns >= 9.2e18)
        return WK_TIME_NEVER;
    if (ns <= -9.2e18)
        return -WK_TIME_NEVER;
    return (WkTime)(ns < 0 ? ns - 0.5 : ns + 0.5);
}

#endif
