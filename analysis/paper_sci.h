/* SPDX-License-Identifier: Apache-2.0 */
/* paper_sci.h — the seed paper's published numbers, the one place they live
 * (paper_sci.c holds the table and the citation). Data only: `wanka report
 * paper-sci` (report.c) computes the simulated side from traces. */
#ifndef WK_PAPER_SCI_H
#define WK_PAPER_SCI_H

#include <stddef.h>

/* How a row's numbers read. All percentages are in per cent (72 = 72 %). */
typedef enum WkPaperSciKind {
    WK_PAPER_SCI_UTIL = 0, /* Table 5.2: a utilization in %, the change in percentage points */
    WK_PAPER_SCI_REL,      /* Table 5.2: relative to the traditional scheduler = 100 %, change in % */
    WK_PAPER_SCI_DURATION, /* Table 5.2: a duration (published only as a magnitude), change in % */
    WK_PAPER_SCI_SPREAD,   /* one value: a std dev of per-GPU utilization, in % */
    WK_PAPER_SCI_SPEED,    /* one value: a change of training speed, in % (negative = slower) */
} WkPaperSciKind;

typedef struct WkPaperSciRow {
    const char *key;           /* stable id ("utilization", "jct", ...): JSON, tests */
    const char *section;       /* "Table 5.2", "§3.1", "§3.4" */
    const char *label;         /* the row as `wanka report` prints it */
    const char *original;      /* the paper's own words for the number */
    WkPaperSciKind kind;
    const char *baseline_text; /* Table 5.2: the traditional scheduler's value as published
                                  ("72 %", "minutes"); NULL for one-value rows */
    const char *value_text;    /* the SCI value (or the one value) as published ("91 %", "-8 %") */
    double baseline;           /* Table 5.2: the traditional value in %; NaN when only a magnitude
                                  is published or for one-value rows */
    double value;              /* the SCI value / the one value in %; NaN when only a magnitude */
    double change;             /* Table 5.2: the published improvement (+19 points, -26 %, -99 %);
                                  NaN for one-value rows */
} WkPaperSciRow;

/** The published rows, in the order `wanka report paper-sci` prints them;
 * *n gets their count. Static storage, never freed. */
const WkPaperSciRow *wk_paper_sci_rows(size_t *n);

/** The row with this key, or NULL. */
const WkPaperSciRow *wk_paper_sci_row(const char *key);

/** The paper: authors, title, venue, year (static string). */
const char *wk_paper_sci_citation(void);

#endif
