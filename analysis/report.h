/* SPDX-License-Identifier: Apache-2.0 */
/* report.h — `wanka report paper-sci`: the seed paper's tables (Table 5.2,
 * §3.1, §3.4) with the published value (analysis/paper_sci.h), the value
 * computed from traces, and their difference. Reads traces through
 * sim/trace_read.h; nothing is adjusted; the library formats, main prints. */
#ifndef WK_REPORT_H
#define WK_REPORT_H

#include <stddef.h>

#include "analysis/paper_sci.h"
#include "sim/core/error.h"

typedef enum WkReportFormat {
    WK_REPORT_TEXT = 0, /* aligned tables for a terminal */
    WK_REPORT_MARKDOWN, /* GitHub-flavoured Markdown tables */
    WK_REPORT_JSON,     /* one JSON object */
    WK_REPORT_LATEX,    /* LaTeX tabulars with booktabs rules; titles and notes as % comments */
    WK_REPORT_CSV,      /* RFC 4180 CSV: one row per published row, numbers in its units */
} WkReportFormat;

/* The traces a report reads (paths borrowed; they must outlive the report). */
typedef struct WkReportInputs {
    const char *baseline;          /* traditional scheduler (required) */
    const char *sci;               /* SCI scheduler, same scenario (required) */
    const char *throttle;          /* §3.4: the throttle run with the cluster's response
                                      (e.g. rebalancing); NULL = not given */
    const char *throttle_naive;    /* §3.4: the same throttle without a response, set beside
                                      the paper's prediction; NULL = not given */
    const char *throttle_baseline; /* §3.4: the same scenario without the throttle; NULL = not
                                      given (then no slowdown can be computed) */
    const char *sci_no_outsourcing; /* §3.1: the SCI run with outsourcing off (in the run and in
                                       sci's objective), the spread without the exchange set
                                       beside the paper's 15 % predicted; NULL = not given (the
                                       row is NaN with a note naming the option) */
} WkReportInputs;

/* One trace the report read. */
typedef struct WkReportTrace {
    const char *role;   /* "baseline", "sci", "throttle", "throttle_naive", "throttle_baseline",
                           "sci_no_outsourcing" */
    const char *path;   /* borrowed from the inputs */
    char label[192];    /* "fifo/2026 [fifo.h5]": scheduler/seed [file name] */
    char *scenario;     /* root attribute scenario_name ("" when absent; owned) */
    char *scheduler;    /* root attribute scheduler (owned) */
    char *overrides;    /* root attribute overrides (owned) */
} WkReportTrace;

/* One row: the published numbers and the simulated ones, in the units of the
 * row's kind (paper_sci.h); NaN = missing ("—"). */
typedef struct WkReportRow {
    const WkPaperSciRow *paper; /* published (static table) */
    double sim_baseline; /* Table 5.2: the baseline trace (UTIL %, REL 100, DURATION s) */
    double sim_value;    /* the SCI trace (Table 5.2), or the row's one value (§3.1, §3.4) */
    double sim_change;   /* Table 5.2: UTIL points, REL and DURATION %; NaN for one-value rows */
    double raw_baseline; /* Table 5.2 REL rows: the metric itself (s, kWh, J/token); else NaN */
    double raw_value;    /* the same for the SCI trace */
    double difference;   /* simulated − published: the change (Table 5.2) or the value, in
                            percentage points; NaN when either side is missing */
    char source[256];    /* the trace(s) the value comes from: "SCI sci/2026 [sci.h5]" */
} WkReportRow;

typedef struct WkReport {
    WkReportTrace traces[6]; /* the traces read, in the order of WkReportInputs */
    size_t ntraces;
    WkReportRow *rows;       /* one per published row, in the paper table's order (owned) */
    size_t nrows;
    char **notes;            /* caveats on how to read the numbers, in order (owned) */
    size_t nnotes;
} WkReport;

/** Build the report `name` ("paper-sci", the only one so far): read the
 * traces of in (borrowed) and compute every row. Each trace must be a wanka
 * trace of schema major WK_TRACE_READ_MAJOR. A value a trace cannot give (a
 * metric it lacks, NaN, no throttle incident, no unthrottled run) is NaN, with
 * a note saying what is missing. Returns 0 and a report the caller owns
 * (wk_report_free), or: WK_E_NOTFOUND for an unknown name ("unknown report
 * 'x' (known: paper-sci)"); WK_E_INVAL when baseline or sci is NULL; the first
 * trace's error naming the file: WK_E_IO (missing file), WK_E_INVAL (not a
 * trace, unknown schema major); WK_E_NOMEM. */
int wk_report_load(WkReport **out, const char *name, const WkReportInputs *in, WkError *err);

/** The row with this paper key ("utilization", "throttle", ...), or NULL. */
const WkReportRow *wk_report_row(const WkReport *r, const char *key);

/** Render r (malloc'd, caller frees), or NULL when out of memory. Missing
 * values print "—" (text, Markdown; LaTeX "---"), null (JSON) or nothing
 * (CSV), never 0. */
char *wk_report_render(const WkReport *r, WkReportFormat fmt);

/** Release r. NULL is a no-op. */
void wk_report_free(WkReport *r);

#endif
