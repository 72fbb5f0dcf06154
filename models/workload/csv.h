/* SPDX-License-Identifier: Apache-2.0 */
/* csv.h — the pieces the CSV trace importers share (philly.c, alibaba.c,
 * csvmap.c): splitting a row into fields that point into the row, finding a
 * header column, a field's column for error positions, and civil dates.
 * Private to models/workload. */
#ifndef WK_WORKLOAD_CSV_H
#define WK_WORKLOAD_CSV_H

#include <stddef.h>
#include <stdint.h>

/* A field of a row: borrowed bytes [p, p + len) of the row's text. */
typedef struct WkCsvField {
    const char *p;
    size_t len;
} WkCsvField;

/** Split the row [s, end) at each delim into fields f[0..max) and return
 * how many fields the row has (it may be more than max: only the first max
 * are stored; always >= 1). With quotes != 0 a field that starts with a
 * double quote runs to the matching closing quote (a doubled quote inside
 * stays two bytes of the field; a delimiter inside does not split), and the
 * field is its text between the quotes; a closing quote not followed by the
 * delimiter or the row's end, or a quote never closed, returns 0. With
 * quotes == 0 a quote is an ordinary byte. */
size_t wk_csv_split(const char *s, const char *end, char delim, int quotes, WkCsvField *f, size_t max);

/** Index among f[0..nf) of the first field equal to name, or -1. */
int wk_csv_find(const WkCsvField *f, size_t nf, const char *name);

/** 1 when field f is exactly the text name. */
int wk_csv_is(const WkCsvField *f, const char *name);

/** The column (1-based, in bytes from row, the row's first byte) of field
 * fd: its first byte, or the one after its opening quote. */
long wk_csv_column(const char *row, const WkCsvField *fd);

/** Days from 1970-01-01 of the proleptic Gregorian date y-m-d (Hinnant's
 * algorithm; any y, m in 1..12, d in 1..31). */
int64_t wk_csv_days_from_civil(int64_t y, int64_t m, int64_t d);

/** Days in month m (1..12) of year y (Gregorian leap years). */
int wk_csv_month_days(int64_t y, int64_t m);

#endif
