/* SPDX-License-Identifier: Apache-2.0 */
/* cli_analysis.c — the commands that read traces: compare (summaries side
 * by side) and report (the seed paper's tables; `report paper-sci` without
 * traces is cli_paper.c). They run no simulation; analysis/ does the
 * reading, cli_python.c draws plots and writes the HTML page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/paper_claims.h"
#include "analysis/report.h"
#include "sim/core/strbuf.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"

const char wk_cli_analysis_usage_compare[] =
    "usage: wanka compare TRACE.h5... [--format text|markdown|latex|csv|json] [--no-group]\n"
    "                     [--metrics NAME,...|all] [--baseline TRACE.h5]\n"
    "\n"
    "Print the summary metrics of several traces side by side: one row per\n"
    "metric, one column per run labelled scheduler/seed, and the change of each\n"
    "run against the first, or the --baseline (\"+3.2 %\"). A difference below\n"
    "float noise (1e-12 relative) shows as 0. A metric a trace lacks, or that is\n"
    "undefined for it, shows \"—\" (JSON null, CSV empty), never 0.\n"
    "The text, Markdown and LaTeX tables show utilization, jct_mean_s, jct_p99_s,\n"
    "wait_mean_s, wait_p99_s, makespan_s, energy_kwh and goodput (those the\n"
    "traces have); JSON and CSV every summary attribute any trace has.\n"
    "\n"
    "Traces of one configuration (same scenario_name, scheduler and --set\n"
    "overrides) with different seeds are pooled into one column \"scheduler (n seeds)\"\n"
    "showing mean ± 95 % confidence half-width (Student t, n-1 degrees of freedom);\n"
    "\"~\" after a change marks an interval that overlaps the first column's.\n"
    "Labels two columns share get the trace's file name in brackets.\n"
    "A sweep index (DIR/sweep.h5 of wanka sweep) stands for every point of the\n"
    "sweep that ran: wanka compare DIR/sweep.h5 pools each configuration's seeds.\n"
    "\n"
    "options:\n"
    "      --format F          text (the default: an aligned table), markdown (a\n"
    "                          GitHub table), latex (a booktabs tabular; notes as\n"
    "                          % comments; needs \\usepackage{booktabs}), csv\n"
    "                          (RFC 4180, one row per metric) or json (one object:\n"
    "                          values, ci95, n, rel_change, overlap)\n"
    "      --json, --csv, --markdown\n"
    "                          short for --format json, csv, markdown\n"
    "      --no-group          one column per trace, even for seeds of one configuration\n"
    "      --metrics LIST      the rows, in this order: metric names separated by\n"
    "                          commas (a name no trace has is an error), or all\n"
    "      --baseline TRACE    the column every change is against (the one holding\n"
    "                          this trace; added to the traces when not among them)\n"
    "\n"
    "exit status: 0 success, 2 missing file, not a trace or unknown schema version.\n"
    "\n"
    "example:\n"
    "  wanka run scenarios/quickstart.yaml -q -o fifo.h5\n"
    "  wanka run scenarios/quickstart.yaml -q -o big.h5 --set cluster.nodes=64\n"
    "  wanka compare fifo.h5 big.h5\n"
    "  for s in 1 2 3; do wanka run scenarios/quickstart.yaml -q --seed $s -o a$s.h5; done\n"
    "  wanka compare a1.h5 a2.h5 a3.h5 b1.h5 b2.h5 b3.h5 --markdown\n"
    "  wanka compare a1.h5 a2.h5 a3.h5 b1.h5 b2.h5 b3.h5 --format latex > table.tex\n"
    "\n"
    "More in docs/analysis.md.\n";

const char wk_cli_analysis_usage_report[] =
    "usage: wanka report paper-sci [SCENARIO.yaml] [--seeds N] [--baseline POLICY]\n"
    "         [--throttle-scenario T.yaml] [-o DIR] [-j N]\n"
    "         [--format text|markdown|latex|csv] [--html FILE] [-q]\n"
    "       wanka report paper-sci BASELINE.h5 SCI.h5 [--throttle T.h5]\n"
    "         [--throttle-naive N.h5] [--throttle-baseline T0.h5]\n"
    "         [--sci-no-outsourcing NO.h5] [--format text|markdown|latex|csv|json] [--html FILE]\n"
    "\n"
    "Print the seed paper's tables (\"Emergence of Collective Intelligence in GPU\n"
    "Clusters\", SILICON 2026) in its layout with three columns: the published\n"
    "value, the value simulated from the traces, and their difference in\n"
    "percentage points. Nothing is adjusted; \"—\" marks what the traces lack.\n"
    "\n"
    "  Table 5.2  mean GPU utilization, task completion time, energy, fault\n"
    "             recovery time: SCI.h5 against BASELINE.h5 (a traditional scheduler)\n"
    "  §3.1       std dev of per-GPU utilization (summary util_gpu_std)\n"
    "  §3.4       training speed while a rack throttles, from throttle traces\n"
    "\n"
    "options:\n"
    "      --throttle T.h5           the throttle run with the cluster's response\n"
    "                                (e.g. models.X.rebalance=true); set beside the -8 %\n"
    "      --throttle-naive N.h5     the same throttle without a response; set beside\n"
    "                                the paper's predicted -25 %\n"
    "      --throttle-baseline T0.h5 the same scenario without the throttle: the\n"
    "                                reference speed (needed for §3.4)\n"
    "      --sci-no-outsourcing NO.h5 SCI with outsourcing off (in the run and in\n"
    "                                sci's objective): the §3.1 spread set beside\n"
    "                                the paper's predicted 15 % (else \"needs runs\")\n"
    "      --format F                text (the default), markdown (GitHub tables),\n"
    "                                latex (booktabs tabulars; titles and notes as\n"
    "                                % comments), csv (RFC 4180: one row per\n"
    "                                published row, numbers in the row's units) or\n"
    "                                json (one object)\n"
    "      --markdown, --json        short for --format markdown, json\n"
    "      --html FILE               also write the report page: one self-contained\n"
    "                                HTML file with the runs, the tables, wanka\n"
    "                                compare of the baseline and SCI runs, eight\n"
    "                                figures and each scenario's text\n"
    "                                (docs/analysis.md); needs python3 with h5py\n"
    "                                and matplotlib\n"
    "      --force                   replace an existing --html page (else refused)\n"
    "\n"
    "exit status: 0 success, 2 bad arguments, missing file, not a trace or unknown\n"
    "schema version, 1 internal error (or python3 or its packages missing for --html).\n"
    "\n"
    "example (docs/reproducing-sci.md):\n"
    "  wanka run scenarios/paper-sci-10k.yaml -q --scheduler slurm -o slurm.h5\n"
    "  wanka run scenarios/paper-sci-10k.yaml -q --scheduler sci -o sci.h5\n"
    "  wanka report paper-sci slurm.h5 sci.h5\n"
    "  wanka report paper-sci slurm.h5 sci.h5 --format latex > table52.tex\n"
    "\n"
    "Without traces, report runs the experiments itself: SCENARIO (default: the\n"
    "shipped scenarios/paper-sci-10k.yaml) under --baseline (default slurm, else\n"
    "backfill) and sci, and --throttle-scenario (default\n"
    "scenarios/throttle-rack3.yaml) without the throttle, as is and with\n"
    "rebalancing, for seeds 1..N (default 5) on -j threads (OpenMP); the traces\n"
    "go to DIR/seedK/ (default paper-sci-runs/), a figure of seed 1 to\n"
    "DIR/utilization.png, and every row prints as mean ±\n"
    "95 % confidence half-width over the seeds beside the published value.\n"
    "  wanka report paper-sci                    # the whole table, 5 seeds\n"
    "  wanka report paper-sci --seeds 10 --baseline backfill --markdown\n"
    "  wanka report paper-sci --seeds 3 --html report.html\n"
    "The run form takes --format text|markdown|latex|csv (CSV: each simulated\n"
    "column as mean, ci95 and n over the seeds); for JSON, report the traces it\n"
    "wrote:\n"
    "  wanka report paper-sci DIR/seed1/baseline.h5 DIR/seed1/sci.h5 --json\n";

/* ---- compare ---- */

static const WkCliFormat compare_formats[] = {
    {"--json", WK_COMPARE_JSON},
    {"--csv", WK_COMPARE_CSV},
    {"--markdown", WK_COMPARE_MARKDOWN},
};
#define NCOMPARE_FORMATS (sizeof compare_formats / sizeof compare_formats[0])

/* --format NAME (the flags above stay as short forms) */
static const WkCliFormat compare_format_names[] = {
    {"text", WK_COMPARE_TEXT},       {"markdown", WK_COMPARE_MARKDOWN}, {"latex", WK_COMPARE_LATEX},
    {"csv", WK_COMPARE_CSV},         {"json", WK_COMPARE_JSON},
};
#define NCOMPARE_FORMAT_NAMES (sizeof compare_format_names / sizeof compare_format_names[0])

/* compare's arguments: the traces, grouping, the format. */
typedef struct {
    const char **paths; /* argv's trace paths (owned array, borrowed strings) */
    size_t n;
    int group, fmt, nfmt;
    const char *metrics;  /* --metrics a,b,c or "all"; NULL: the default */
    const char *baseline; /* --baseline FILE, or NULL: the first column */
} CompareArgs;

/* Parse compare's argv into *c. Returns 0 or a usage error's exit status. */
static int compare_args(int argc, char **argv, CompareArgs *c)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (wk_cli_common_format(s, compare_formats, NCOMPARE_FORMATS, &c->fmt, &c->nfmt))
            continue;
        int st = wk_cli_common_format_opt("compare", argc, argv, &i, compare_format_names, NCOMPARE_FORMAT_NAMES,
                                          &c->fmt, &c->nfmt);
        if (st > 0)
            return st;
        if (st == 0)
            continue;
        if (strcmp(s, "--no-group") == 0)
            c->group = 0;
        else if (wk_cli_common_is_opt(s, "--metrics", NULL)) {
            if (!(c->metrics = wk_cli_common_opt_value(argc, argv, &i, "--metrics", NULL)) || !c->metrics[0])
                return wk_cli_common_usage_error("compare", "--metrics needs names, e.g. --metrics jct_mean_s,wait_p99_s");
        } else if (wk_cli_common_is_opt(s, "--baseline", NULL)) {
            if (!(c->baseline = wk_cli_common_opt_value(argc, argv, &i, "--baseline", NULL)) || !c->baseline[0])
                return wk_cli_common_usage_error("compare", "--baseline needs a trace, e.g. --baseline fifo.h5");
        } else if (wk_cli_common_is_dash(s))
            return wk_cli_common_usage_error("compare", "unknown option '%s'", s);
        else
            c->paths[c->n++] = s;
    }
    if (c->baseline) { /* the baseline is one of the traces: named once is enough */
        size_t k = 0;
        while (k < c->n && strcmp(c->paths[k], c->baseline) != 0)
            k++;
        if (k == c->n)
            c->paths[c->n++] = c->baseline;
    }
    if (c->nfmt > 1)
        return wk_cli_common_format_error("compare", compare_formats, NCOMPARE_FORMATS);
    if (c->n == 0)
        return wk_cli_common_usage_error("compare", "missing TRACE.h5 (give one or more traces)");
    return 0;
}

/* Load, render and print the traces. Returns the exit status. */
static int compare_traces(const CompareArgs *a)
{
    WkError err;
    wk_error_clear(&err);
    WkCompare *c = NULL;
    int rc = wk_compare_load(&c, a->paths, a->n, a->group, &err);
    if (rc == 0 && a->baseline)
        rc = wk_compare_baseline(c, a->baseline, &err);
    /* tables for reading show a few metrics; json and csv every one */
    int table = a->fmt == WK_COMPARE_TEXT || a->fmt == WK_COMPARE_MARKDOWN || a->fmt == WK_COMPARE_LATEX;
    if (rc == 0 && a->metrics && strcmp(a->metrics, "all") != 0)
        rc = wk_compare_select(c, a->metrics, 1, &err);
    else if (rc == 0 && !a->metrics && table)
        rc = wk_compare_select(c, wk_compare_default_metrics, 0, &err);
    int status = wk_cli_common_emit(rc, &err, rc == 0 ? wk_compare_render(c, (WkCompareFormat)a->fmt) : NULL);
    wk_compare_free(c);
    return status;
}

int wk_cli_analysis_compare(int argc, char **argv)
{
    CompareArgs c = {.group = 1, .fmt = WK_COMPARE_TEXT};
    if (!(c.paths = calloc((size_t)argc + 1, sizeof *c.paths)))
        return wk_cli_common_nomem();
    int status = compare_args(argc, argv, &c);
    if (status == 0)
        status = compare_traces(&c);
    free(c.paths);
    return status;
}

/* ---- report ---- */

static const WkCliFormat report_formats[] = {
    {"--json", WK_REPORT_JSON},
    {"--markdown", WK_REPORT_MARKDOWN},
};
#define NREPORT_FORMATS (sizeof report_formats / sizeof report_formats[0])

static const WkCliFormat report_format_names[] = {
    {"text", WK_REPORT_TEXT}, {"markdown", WK_REPORT_MARKDOWN}, {"latex", WK_REPORT_LATEX},
    {"csv", WK_REPORT_CSV},   {"json", WK_REPORT_JSON},
};
#define NREPORT_FORMAT_NAMES (sizeof report_format_names / sizeof report_format_names[0])

/* report's arguments: the report name, the traces, the format. */
typedef struct {
    const char *name;
    WkReportInputs in;
    const char *html; /* --html FILE, or NULL */
    int force;        /* --force: replace an existing --html page */
    int fmt, nfmt;
} ReportArgs;

/* The trace option at argv[*i] (--throttle, --throttle-naive,
 * --throttle-baseline, --sci-no-outsourcing) into its slot of *r: 0, -1 when argv[*i] is none of
 * them, or a usage error's exit status. */
static int report_trace_opt(int argc, char **argv, int *i, ReportArgs *r)
{
    const char *s = argv[*i], *v, *opt = NULL;
    const char **slot = NULL;
    if (wk_cli_common_is_opt(s, "--throttle", NULL))
        opt = "--throttle", slot = &r->in.throttle;
    else if (wk_cli_common_is_opt(s, "--throttle-naive", NULL))
        opt = "--throttle-naive", slot = &r->in.throttle_naive;
    else if (wk_cli_common_is_opt(s, "--throttle-baseline", NULL))
        opt = "--throttle-baseline", slot = &r->in.throttle_baseline;
    else if (wk_cli_common_is_opt(s, "--sci-no-outsourcing", NULL))
        opt = "--sci-no-outsourcing", slot = &r->in.sci_no_outsourcing;
    if (!slot)
        return -1;
    if (!(v = wk_cli_common_opt_value(argc, argv, i, opt, NULL)))
        return wk_cli_common_usage_error("report", "%s needs a trace file", s);
    *slot = v;
    return 0;
}

/* Parse report's argv into *r. Returns 0 or a usage error's exit status. */
static int report_args(int argc, char **argv, ReportArgs *r)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        int st = report_trace_opt(argc, argv, &i, r);
        if (st > 0)
            return st;
        if (st < 0 && (st = wk_cli_common_format_opt("report", argc, argv, &i, report_format_names,
                                                     NREPORT_FORMAT_NAMES, &r->fmt, &r->nfmt)) > 0)
            return st;
        if (st == 0 || wk_cli_common_format(s, report_formats, NREPORT_FORMATS, &r->fmt, &r->nfmt))
            continue;
        if (wk_cli_common_is_opt(s, "--html", NULL)) {
            if (!(r->html = wk_cli_common_opt_value(argc, argv, &i, "--html", NULL)) || !r->html[0])
                return wk_cli_common_usage_error("report", "--html needs a file name, e.g. --html report.html");
        } else if (strcmp(s, "--force") == 0) {
            r->force = 1;
        } else if (wk_cli_common_is_dash(s)) {
            return wk_cli_common_usage_error("report", "unknown option '%s'", s);
        } else if (!r->name) {
            r->name = s;
        } else if (!r->in.baseline) {
            r->in.baseline = s;
        } else if (!r->in.sci) {
            r->in.sci = s;
        } else {
            return wk_cli_common_usage_error("report", "unexpected argument '%s'", s);
        }
    }
    if (r->nfmt > 1)
        return wk_cli_common_format_error("report", report_formats, NREPORT_FORMATS);
    if (!r->name)
        return wk_cli_common_usage_error("report", "missing the report name (known: paper-sci)");
    if (strcmp(r->name, "paper-sci") != 0)
        return wk_cli_common_usage_error("report", "unknown report '%s' (known: paper-sci)", r->name);
    if (!r->in.sci)
        return wk_cli_common_usage_error("report", "missing BASELINE.h5 SCI.h5 (two traces)");
    return r->html ? wk_cli_python_html_check(r->html, r->force) : 0;
}

/* The run form: `report paper-sci` whose arguments name no trace (.h5). */
static int run_form(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "paper-sci") != 0)
        return 0;
    for (int i = 1; i < argc; i++) {
        size_t l = strlen(argv[i]);
        if (l > 3 && strcmp(argv[i] + l - 3, ".h5") == 0)
            return 0;
        if (strncmp(argv[i], "--sci-no-outsourcing", 20) == 0)
            return 0;
        if (strcmp(argv[i], "--json") == 0 || strncmp(argv[i], "--throttle", 10) == 0)
            return strcmp(argv[i], "--throttle-scenario") == 0;
    }
    return 1;
}

/* The report as format fmt; text and Markdown with the claims table of
 * the trace form after it (analysis/paper_claims.h). NULL when out of memory. */
static char *render_with_claims(const WkReport *rep, int fmt)
{
    char *t = wk_report_render(rep, (WkReportFormat)fmt);
    if (!t || (fmt != WK_REPORT_TEXT && fmt != WK_REPORT_MARKDOWN))
        return t;
    char *c = wk_claims_render_traces(rep, fmt == WK_REPORT_MARKDOWN);
    WkStrBuf b = {0};
    if (c)
        wk_strbuf_printf(&b, "%s\n%s", t, c);
    free(t);
    free(c);
    return c ? wk_strbuf_take(&b) : NULL;
}

/* --html of the trace form: the report's tables (with the claims) and the
 * compare table of the baseline and SCI traces, the figures of those two. */
static int report_html(const ReportArgs *r, const WkReport *rep)
{
    WkError err;
    wk_error_clear(&err);
    const char *runs[6], *figs[2] = {r->in.baseline, r->in.sci};
    const char *given[6] = {r->in.baseline, r->in.sci, r->in.throttle, r->in.throttle_naive,
                            r->in.throttle_baseline, r->in.sci_no_outsourcing};
    size_t nruns = 0;
    for (size_t i = 0; i < 6; i++)
        if (given[i])
            runs[nruns++] = given[i];
    char *md = render_with_claims(rep, WK_REPORT_MARKDOWN);
    char *cmp = md ? wk_cli_common_compare_markdown(figs, 2, &err) : NULL;
    if (!md || !cmp) {
        free(md);
        return md ? wk_cli_common_report(&err) : wk_cli_common_nomem();
    }
    WkStrBuf b = {0};
    wk_strbuf_printf(&b, "%s\n## The baseline and SCI runs side by side (wanka compare)\n\n%s", md, cmp);
    free(md);
    free(cmp);
    char *tables = wk_strbuf_take(&b);
    if (!tables)
        return wk_cli_common_nomem();
    int status = wk_cli_python_html(r->html, "wanka report paper-sci", tables, figs, 2, runs, nruns);
    free(tables);
    if (status == 0 && r->fmt != WK_REPORT_JSON)
        printf("html: %s\n", r->html);
    return status;
}

int wk_cli_analysis_report(int argc, char **argv)
{
    if (run_form(argc, argv))
        return wk_cli_paper_run(argc - 1, argv + 1);
    ReportArgs r = {.fmt = WK_REPORT_TEXT};
    int status = report_args(argc, argv, &r);
    if (status)
        return status;
    WkError err;
    wk_error_clear(&err);
    WkReport *rep = NULL;
    int rc = wk_report_load(&rep, r.name, &r.in, &err);
    status = wk_cli_common_emit(rc, &err, rc == 0 ? render_with_claims(rep, r.fmt) : NULL);
    if (status == 0 && r.html)
        status = report_html(&r, rep);
    wk_report_free(rep);
    return status;
}
