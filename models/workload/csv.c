/* SPDX-License-Identifier: Apache-2.0 */
/* csv.c — row splitting, header lookup and civil dates for the CSV trace
 * importers (csv.h). */
#include "models/workload/csv.h"

#include <string.h>

size_t wk_csv_split(const char *s, const char *end, char delim, int quotes, WkCsvField *f, size_t max)
{
    size_t n = 0;
    const char *p = s;
    for (;;) {
        const char *start = p, *stop;
        if (quotes && p < end && *p == '"') {
            const char *q = p + 1;
            for (;;) { /* to the closing quote; "" is a quote inside */
                while (q < end && *q != '"')
                    q++;
                if (q == end)
                    return 0; /* never closed */
                if (q + 1 < end && q[1] == '"') {
                    q += 2;
                    continue;
                }
                break;
            }
            start = p + 1;
            stop = q;
            p = q + 1;
            if (p < end && *p != delim)
                return 0; /* text after the closing quote */
        } else {
            while (p < end && *p != delim)
                p++;
            stop = p;
        }
        if (n < max)
            f[n] = (WkCsvField){start, (size_t)(stop - start)};
        n++;
        if (p == end)
            return n;
        p++; /* past the delimiter: a field follows, maybe empty */
    }
}

int wk_csv_is(const WkCsvField *f, const char *name)
{
    size_t l = strlen(name);
    return f->len == l && memcmp(f->p, name, l) == 0;
}

int wk_csv_find(const WkCsvField *f, size_t nf, const char *name)
{
    for (size_t i = 0; i < nf; i++)
        if (wk_csv_is(&f[i], name))
            return (int)i;
    return -1;
}

long wk_csv_column(const char *row, const WkCsvField *fd) { return (long)(fd->p - row) + 1; }

int64_t wk_csv_days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int wk_csv_month_days(int64_t y, int64_t m)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return mdays[m >= 1 && m <= 12 ? m - 1 : 0] + (m == 2 && leap);
}
