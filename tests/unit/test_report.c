/* SPDX-License-Identifier: Apache-2.0 */
/* test_report.c — `wanka report paper-sci`: the simulated column against
 * the runs' own summaries and hand-computed values from hand-written traces,
 * the published column against the paper's numbers restated here, "—" for
 * what a trace lacks, and refusal of unknown schema versions and names. */
#include "tests/unit/testutil.h"
#include "tests/unit/trace_fixture.h"

#include <math.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/paper_claims.h"
#include "analysis/paper_sci.h"
#include "analysis/report.h"
#include "analysis/report_seeds.h"
#include "sim/trace/schema.h"

static WkReport *load(const WkReportInputs *in)
{
    WkError err;
    wk_error_clear(&err);
    WkReport *r = NULL;
    if (wk_report_load(&r, "paper-sci", in, &err) != 0)
        fail_msg("report: %s", err.msg);
    return r;
}

static const WkReportRow *row_of(const WkReport *r, const char *key)
{
    const WkReportRow *row = wk_report_row(r, key);
    if (!row)
        fail_msg("no row %s", key);
    return row;
}

static void assert_close(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.12g, want %.12g (tolerance %g)", got, want, tol);
}

static int dashes(const char *line)
{
    int n = 0;
    for (const char *p = line; (p = strstr(p, "—")); p++)
        n++;
    return n;
}

/* The first line of text that holds needle (fails when none does). */
static const char *line_with(const char *text, const char *needle, char *buf, size_t n)
{
    const char *p = strstr(text, needle);
    if (!p)
        fail_msg("no line with %s in:\n%s", needle, text);
    while (p > text && p[-1] != '\n')
        p--;
    snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
    return buf;
}

static int has_note(const WkReport *r, const char *needle)
{
    for (size_t i = 0; i < r->nnotes; i++)
        if (strstr(r->notes[i], needle))
            return 1;
    return 0;
}

/* Two summaries whose Table 5.2 rows are easy to compute by hand. */
static const char *const t52_names[] = {
    WK_SCHEMA_M_UTILIZATION,     WK_SCHEMA_M_JCT_MEAN,       WK_SCHEMA_M_ENERGY,
    WK_SCHEMA_M_TOKENS_PER_JOULE, WK_SCHEMA_M_RECOVERY_MEAN, WK_SCHEMA_M_RECOVERY_P50,
    WK_SCHEMA_M_JOBS_COMPLETED,  WK_SCHEMA_M_JOBS_SUBMITTED, WK_SCHEMA_M_JOBS_UNFINISHED,
    WK_SCHEMA_M_MAKESPAN,
};
static const double t52_base[] = {0.70, 1000, 500, 2.0, 600, 300, 10, 10, 0, 5000};
static const double t52_sci[] = {0.84, 800, 450, 2.5, 30, 20, 10, 10, 0, 4000};
#define NT52 (sizeof t52_names / sizeof t52_names[0])

static void write_pair(TraceDir *d, const char **pb, const char **ps)
{
    *pb = trace_fixture_file(d, "base.h5");
    *ps = trace_fixture_file(d, "sci.h5");
    trace_fixture_write(*pb, &(FakeTrace){.scenario = "paper-sci-10k", .scheduler = "fifo", .seed = 1,
                                          .names = t52_names, .values = t52_base, .nm = NT52});
    trace_fixture_write(*ps, &(FakeTrace){.scenario = "paper-sci-10k", .scheduler = "sci", .seed = 1,
                                          .names = t52_names, .values = t52_sci, .nm = NT52});
}

/* ---- Table 5.2 ------------------------------------------------------------------ */

static void test_table52_rows_are_computed_from_the_summaries_by_hand(void **state)
{
    TraceDir *d = *state;
    const char *pb, *ps;
    write_pair(d, &pb, &ps);
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps});

    const WkReportRow *u = row_of(r, "utilization");
    assert_close(u->sim_baseline, 70, 1e-9);
    assert_close(u->sim_value, 84, 1e-9);
    assert_close(u->sim_change, 14, 1e-9);   /* points */
    assert_close(u->difference, 14 - 19, 1e-9);
    const WkReportRow *j = row_of(r, "jct");
    assert_close(j->sim_baseline, 100, 0);
    assert_close(j->sim_value, 80, 1e-9);    /* 800 s / 1000 s */
    assert_close(j->sim_change, -20, 1e-9);
    assert_close(j->difference, -20 - (-26), 1e-9);
    assert_close(j->raw_baseline, 1000, 0);
    const WkReportRow *e = row_of(r, "energy");
    assert_close(e->sim_value, 90, 1e-9);    /* 450 / 500 kWh */
    assert_close(e->difference, -10 - (-15), 1e-9);
    const WkReportRow *et = row_of(r, "energy_per_token");
    assert_close(et->sim_value, 80, 1e-9);   /* (1/2.5) / (1/2) J per token */
    assert_close(et->difference, -20 - (-15), 1e-9);
    const WkReportRow *rm = row_of(r, "recovery_mean");
    assert_close(rm->sim_baseline, 600, 0);
    assert_close(rm->sim_value, 30, 0);
    assert_close(rm->sim_change, -95, 1e-9); /* (30 - 600) / 600 */
    assert_close(rm->difference, -95 - (-99), 1e-9);
    const WkReportRow *rp = row_of(r, "recovery_p50");
    assert_close(rp->sim_change, 100.0 * (20 - 300) / 300, 1e-9);

    char *text = wk_report_render(r, WK_REPORT_TEXT);
    assert_non_null(text);
    char line[1024];
    trace_fixture_line(text, "mean GPU utilization", line, sizeof line);
    assert_non_null(strstr(line, "70.0 %"));
    assert_non_null(strstr(line, "84.0 %"));
    assert_non_null(strstr(line, "+14.0 pts"));
    assert_non_null(strstr(line, "-5.0 pts"));
    trace_fixture_line(text, "fault recovery time (mean)", line, sizeof line);
    assert_non_null(strstr(line, "10.0 min"));   /* 600 s */
    assert_non_null(strstr(line, "30.0 s"));
    assert_non_null(strstr(line, "-95.0 %"));
    free(text);
    wk_report_free(r);
}

static const char *const quick =
    "name: quick\n"
    "seed: 7\n"
    "cluster: {nodes: 4, gpus_per_node: 8}\n"
    "workload:\n"
    "  source: synthetic\n"
    "  jobs: 200\n"
    "  interarrival: {dist: exponential, mean: 60s}\n"
    "  duration: {dist: lognormal, median: 20m, sigma: 1.4}\n"
    "  gpus: [{gpus: 1, weight: 5}, {gpus: 4, weight: 2}, {gpus: 8, weight: 2}]\n"
    "sim: {sample_interval: 5m}\n"
    "scheduler: %s\n";

/* Run the quick scenario with a scheduler, write its trace, keep its summary. */
static void run_to_trace(const char *sched, const char *path, WkSummary *sum)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, quick, sched);
    trace_fixture_run(yaml, NULL, path, sum);
}

static void test_table52_from_real_runs_matches_the_runs_own_summaries(void **state)
{
    TraceDir *d = *state;
    const char *pb = trace_fixture_file(d, "fifo.h5"), *ps = trace_fixture_file(d, "sjf.h5");
    WkSummary sb, ss;
    run_to_trace("fifo", pb, &sb);
    run_to_trace("sjf", ps, &ss);
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps});

    double ub = wk_summary_get(&sb, "utilization")->value, us = wk_summary_get(&ss, "utilization")->value;
    const WkReportRow *u = row_of(r, "utilization");
    assert_close(u->sim_baseline, 100 * ub, 1e-9);
    assert_close(u->sim_value, 100 * us, 1e-9);
    assert_close(u->difference, 100 * (us - ub) - 19, 1e-9);
    double jb = wk_summary_get(&sb, "jct_mean_s")->value, js = wk_summary_get(&ss, "jct_mean_s")->value;
    assert_close(row_of(r, "jct")->sim_value, 100 * js / jb, 1e-9);
    double eb = wk_summary_get(&sb, "energy_kwh")->value, es = wk_summary_get(&ss, "energy_kwh")->value;
    assert_close(row_of(r, "energy")->sim_change, 100 * (es - eb) / eb, 1e-9);
    /* no model jobs, no failures: per-token energy and recovery are undefined */
    assert_true(isnan(row_of(r, "energy_per_token")->sim_value));
    assert_true(isnan(row_of(r, "recovery_mean")->sim_value));
    assert_true(isnan(row_of(r, "recovery_mean")->difference));
    assert_string_equal(r->traces[0].label, "fifo/7 [fifo.h5]");
    assert_string_equal(r->traces[1].label, "sjf/7 [sjf.h5]");
    wk_report_free(r);
}

static void test_recovery_falls_back_to_the_incidents_table(void **state)
{
    TraceDir *d = *state;
    const char *pb = trace_fixture_file(d, "base.h5"), *ps = trace_fixture_file(d, "sci.h5");
    static const char *const names[] = {"utilization"};
    static const double v[] = {0.5};
    /* recovery of the incidents that hit a job; NaN for the one that did not */
    enum { DOWN = WK_SCHEMA_KIND_DOWN };
    const FakeIncident ib[] = {{0, DOWN, 0, 1, 100, 1}, {1, DOWN, 0, 1, NAN, 1}, {2, DOWN, 0, 1, 600, 1},
                               {3, DOWN, 0, 1, 200, 1}};
    const FakeIncident is[] = {{0, DOWN, 0, 1, 10, 1}, {1, DOWN, 0, 1, 30, 1}};
    trace_fixture_write(pb, &(FakeTrace){.scenario = "s", .scheduler = "fifo", .seed = 1, .names = names,
                                         .values = v, .nm = 1, .inc = ib, .ni = 4});
    trace_fixture_write(ps, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = 1, .names = names,
                                         .values = v, .nm = 1, .inc = is, .ni = 2});
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps});
    const WkReportRow *m = row_of(r, "recovery_mean"), *p = row_of(r, "recovery_p50");
    assert_close(m->sim_baseline, (100 + 600 + 200) / 3.0, 1e-9);
    assert_close(m->sim_value, 20, 1e-9);
    assert_close(p->sim_baseline, 200, 1e-9); /* median of 100, 200, 600 */
    assert_close(p->sim_value, 20, 1e-9);     /* type 7: halfway between 10 and 30 */
    assert_true(has_note(r, "incidents table"));
    wk_report_free(r);
}

/* ---- the published column ----------------------------------------------------------- */

static void test_published_column_is_the_paper_table(void **state)
{
    TraceDir *d = *state;
    /* the paper's numbers, restated from the text (Table 5.2, §3.1, §3.4) */
    struct {
        const char *key;
        double baseline, value, change;
    } want[] = {
        {"utilization", 72, 91, 19},       {"jct", 100, 74, -26},
        {"energy", 100, 85, -15},          {"energy_per_token", 100, 85, -15},
        {"recovery_mean", NAN, NAN, -99},  {"recovery_p50", NAN, NAN, -99},
        {"util_std", NAN, 4.2, NAN},       {"util_std_predicted", NAN, 15, NAN},
        {"throttle", NAN, -8, NAN},        {"throttle_predicted", NAN, -25, NAN},
    };
    size_t n = 0;
    wk_paper_sci_rows(&n);
    assert_int_equal(n, sizeof want / sizeof want[0]);
    const char *pb, *ps;
    write_pair(d, &pb, &ps);
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps});
    assert_int_equal(r->nrows, n);
    for (size_t i = 0; i < n; i++) {
        const WkPaperSciRow *p = wk_paper_sci_row(want[i].key);
        assert_non_null(p);
        assert_ptr_equal(row_of(r, want[i].key)->paper, p);
        assert_ptr_equal(r->rows[i].paper, p); /* in the paper table's order */
        if (isnan(want[i].baseline))
            assert_true(isnan(p->baseline));
        else
            assert_true(p->baseline == want[i].baseline);
        if (isnan(want[i].value))
            assert_true(isnan(p->value));
        else
            assert_true(p->value == want[i].value);
        if (isnan(want[i].change))
            assert_true(isnan(p->change));
        else
            assert_true(p->change == want[i].change);
    }
    char *text = wk_report_render(r, WK_REPORT_TEXT);
    char line[1024];
    trace_fixture_line(text, "mean GPU utilization", line, sizeof line);
    assert_non_null(strstr(line, "72 %"));
    assert_non_null(strstr(line, "91 %"));
    assert_non_null(strstr(line, "+19 pts"));
    trace_fixture_line(text, "fault recovery time (median)", line, sizeof line);
    assert_non_null(strstr(line, "minutes"));
    assert_non_null(strstr(line, "seconds"));
    assert_non_null(strstr(line, "-99 %"));
    assert_non_null(strstr(text, "SILICON 1(1)"));
    free(text);
    wk_report_free(r);
}

/* ---- "—" for missing data --------------------------------------------------------- */

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* LaTeX: one booktabs tabular per table, the group labels over their
 * columns, every % _ & # outside comments escaped; CSV: one row per
 * published row with the numbers, a label with a comma quoted. */
static void test_latex_and_csv_render_the_tables_for_a_paper(void **state)
{
    TraceDir *d = *state;
    const char *pb = trace_fixture_file(d, "base.h5"), *ps = trace_fixture_file(d, "sci.h5");
    trace_fixture_write(pb, &(FakeTrace){.scenario = "paper_sci#1", .scheduler = "fifo_x", .seed = 1,
                                         .names = t52_names, .values = t52_base, .nm = NT52});
    trace_fixture_write(ps, &(FakeTrace){.scenario = "paper_sci#1", .scheduler = "sci_x", .seed = 1,
                                         .names = t52_names, .values = t52_sci, .nm = NT52});
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps});
    char *tex = wk_report_render(r, WK_REPORT_LATEX);
    assert_non_null(tex);
    assert_int_equal(count(tex, "\\begin{tabular}"), 3);
    assert_int_equal(count(tex, "\\end{tabular}"), 3);
    assert_int_equal(count(tex, "\\toprule"), 3);
    assert_int_equal(count(tex, "\\midrule"), 3);
    assert_int_equal(count(tex, "\\bottomrule"), 3);
    assert_non_null(strstr(tex, "\\begin{tabular}{lrrrrrrr}\n\\toprule\n"
                                " & \\multicolumn{3}{c}{published} & \\multicolumn{3}{c}{simulated} & "
                                "\\multicolumn{1}{c}{difference} \\\\\n"
                                "\\cmidrule(lr){2-4}\\cmidrule(lr){5-7}\\cmidrule(lr){8-8}\n"
                                "metric & traditional & SCI & change & baseline & SCI & change & of the change \\\\\n"));
    assert_non_null(strstr(tex, "mean GPU utilization & 72 \\% & 91 \\% & +19 pts & 70.0 \\% & 84.0 \\% & "
                                "+14.0 pts & -5.0 pts \\\\\n"));
    assert_non_null(strstr(tex, "SCI sci\\_x/1 [sci.h5]"));
    /* outside comment lines, no bare % _ # and no UTF-8 dash or section sign */
    for (const char *line = tex; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (line[0] != '%')
            for (size_t i = 0; i < len; i++) {
                if (strchr("%_#$", line[i]) && (i == 0 || line[i - 1] != '\\'))
                    fail_msg("unescaped '%c' in: %.*s", line[i], (int)len, line);
                if ((unsigned char)line[i] == 0xE2 || (unsigned char)line[i] == 0xC2)
                    fail_msg("UTF-8 sign left in: %.*s", (int)len, line);
            }
        line += len + (end != NULL);
    }
    free(tex);
    char *csv = wk_report_render(r, WK_REPORT_CSV);
    assert_non_null(csv);
    assert_int_equal(count(csv, "\r\n"), r->nrows + 1);
    assert_true(strncmp(csv, "section,key,metric,kind,published_baseline,published_value,published_change,"
                             "published_baseline_text,published_value_text,simulated_baseline,simulated_value,"
                             "simulated_change,difference_pts,simulated_from\r\n", 200) == 0);
    assert_non_null(strstr(csv, "\r\nTable 5.2,utilization,mean GPU utilization,utilization,72,91,19,72 %,91 %,"));
    assert_non_null(strstr(csv, "\r\nTable 5.2,energy,\"energy (total, same period)\",relative,100,85,-15,"));
    /* a missing value is an empty field, never 0: §3.4 has no throttle trace */
    assert_non_null(strstr(csv, "\r\n§3.4,throttle,\"training speed, 32 GPUs of a rack throttled\",speed,,-8,,,"
                                "-8 %,,,,,\r\n"));
    free(csv);
    wk_report_free(r);
}

static void test_what_a_trace_lacks_prints_a_dash_never_zero(void **state)
{
    TraceDir *d = *state;
    const char *pb = trace_fixture_file(d, "base.h5"), *ps = trace_fixture_file(d, "sci.h5");
    static const char *const names[] = {"utilization", "energy_kwh"};
    static const double vb[] = {0.6, 100}, vs[] = {0.7, NAN};
    trace_fixture_write(pb, &(FakeTrace){.scenario = "s", .scheduler = "fifo", .seed = 1, .names = names,
                                         .values = vb, .nm = 2});
    trace_fixture_write(ps, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = 1, .names = names,
                                         .values = vs, .nm = 2});
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps});
    /* absent (jct, per-GPU spread, throttle) or NaN (energy): missing */
    static const char *const missing[] = {"jct", "energy", "energy_per_token", "recovery_mean", "util_std",
                                          "util_std_predicted", "throttle", "throttle_predicted"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        const WkReportRow *row = row_of(r, missing[i]);
        assert_true(isnan(row->sim_value));
        assert_true(isnan(row->difference));
    }
    assert_true(has_note(r, "util_gpu_std"));
    assert_true(has_note(r, "--throttle"));

    char *text = wk_report_render(r, WK_REPORT_TEXT), line[1024];
    trace_fixture_line(text, "per-GPU utilization std dev at peak load", line, sizeof line);
    assert_non_null(strstr(line, "4.2 %"));
    assert_int_equal(dashes(line), 2); /* simulated and difference */
    assert_null(strstr(line, "0.0 %"));
    trace_fixture_line(text, "energy (total, same period)", line, sizeof line);
    assert_non_null(strstr(line, "100.0 %"));
    assert_int_equal(dashes(line), 3); /* SCI, change, difference */
    free(text);
    char *md = wk_report_render(r, WK_REPORT_MARKDOWN);
    assert_non_null(strstr(md, "| per-GPU utilization std dev at peak load | SCI sci/1 [sci.h5] | 4.2 % | — | — |"));
    free(md);
    char *json = wk_report_render(r, WK_REPORT_JSON);
    assert_non_null(strstr(json, "{\"key\":\"util_std\","));
    assert_non_null(strstr(json, "\"simulated\":{\"baseline\":null,\"value\":null,"));
    free(json);
    wk_report_free(r);
}

static void test_spread_is_read_from_util_gpu_std_peak_before_the_whole_run(void **state)
{
    TraceDir *d = *state;
    const char *pb = trace_fixture_file(d, "base.h5"), *ps = trace_fixture_file(d, "sci.h5");
    static const char *const nb[] = {"util_gpu_std"};
    static const double vb[] = {0.12};
    static const char *const ns[] = {"util_gpu_std", "util_gpu_std_peak"};
    static const double vs[] = {0.09, 0.05};
    trace_fixture_write(pb, &(FakeTrace){.scenario = "s", .scheduler = "fifo", .seed = 1, .names = nb,
                                         .values = vb, .nm = 1});
    trace_fixture_write(ps, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = 1, .names = ns,
                                         .values = vs, .nm = 2});
    const char *pn = trace_fixture_file(d, "sci-no-outsourcing.h5");
    trace_fixture_write(pn, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = 1, .names = nb,
                                         .values = vb, .nm = 1});
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps, .sci_no_outsourcing = pn});
    assert_close(row_of(r, "util_std")->sim_value, 5, 1e-9);
    assert_close(row_of(r, "util_std")->difference, 5 - 4.2, 1e-9);
    assert_close(row_of(r, "util_std_predicted")->sim_value, 12, 1e-9);
    assert_close(row_of(r, "util_std_predicted")->difference, 12 - 15, 1e-9);
    assert_true(has_note(r, "whole run")); /* the run without outsourcing had no peak statistic */
    wk_report_free(r);
}

/* §3.1's "predicted by theory" is the SCI run with outsourcing off, the
 * ablation of the mechanism, never the traditional baseline: without that
 * trace the row is missing and says what to pass, in the first table and in
 * the claims table alike. */
static void test_spread_predicted_is_sci_without_outsourcing_not_the_baseline(void **state)
{
    TraceDir *d = *state;
    const char *pb = trace_fixture_file(d, "base.h5"), *ps = trace_fixture_file(d, "sci.h5"),
               *pn = trace_fixture_file(d, "sci-no-outsourcing.h5");
    static const char *const n1[] = {"util_gpu_std_peak"};
    static const double vb[] = {0.10}, vs[] = {0.06}, vn[] = {0.08};
    trace_fixture_write(pb, &(FakeTrace){.scenario = "s", .scheduler = "slurm", .seed = 1, .names = n1,
                                         .values = vb, .nm = 1});
    trace_fixture_write(ps, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = 1, .names = n1,
                                         .values = vs, .nm = 1});
    trace_fixture_write(pn, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = 1, .names = n1,
                                         .values = vn, .nm = 1});
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps});
    assert_true(isnan(row_of(r, "util_std_predicted")->sim_value)); /* not the baseline's 10 % */
    assert_non_null(strstr(row_of(r, "util_std_predicted")->source, "needs runs"));
    assert_true(has_note(r, "--sci-no-outsourcing"));
    char *text = wk_report_render(r, WK_REPORT_TEXT), line[1024];
    line_with(text, "the same, predicted by theory", line, sizeof line);
    assert_non_null(strstr(line, "needs runs: give --sci-no-outsourcing"));
    assert_null(strstr(line, "10.0 %"));
    free(text);
    char *claims = wk_claims_render_traces(r, 0);
    line_with(claims, "the same, theory (here: outsourcing off)", line, sizeof line);
    assert_non_null(strstr(line, "needs runs"));
    assert_non_null(strstr(claims, "--sci-no-outsourcing NO.h5"));
    free(claims);
    wk_report_free(r);

    r = load(&(WkReportInputs){.baseline = pb, .sci = ps, .sci_no_outsourcing = pn});
    assert_close(row_of(r, "util_std_predicted")->sim_value, 8, 1e-9);
    assert_non_null(strstr(row_of(r, "util_std_predicted")->source, "outsourcing off"));
    claims = wk_claims_render_traces(r, 0);
    line_with(claims, "the same, theory (here: outsourcing off)", line, sizeof line);
    assert_non_null(strstr(line, "8.0 %"));
    assert_null(strstr(line, "needs runs"));
    free(claims);
    wk_report_free(r);
}

/* The run form: over seeds, the first table's §3.1 predicted row and the
 * claims table's theory row stand on the same runs and print the same
 * mean ± CI (here 8, 9, 10 % from the runs without outsourcing; the
 * baselines' 30, 31, 32 % are in neither). */
static void test_spread_predicted_agrees_between_the_seeds_table_and_the_claims(void **state)
{
    TraceDir *d = *state;
    static const char *const n1[] = {"util_gpu_std_peak"};
    WkReport *all[3], *noout[3];
    WkClaimsSeed seeds[3];
    memset(seeds, 0, sizeof seeds);
    for (int k = 0; k < 3; k++) {
        char fb[32], fs[32], fn[32];
        snprintf(fb, sizeof fb, "base%d.h5", k);
        snprintf(fs, sizeof fs, "sci%d.h5", k);
        snprintf(fn, sizeof fn, "noout%d.h5", k);
        const char *pb = trace_fixture_file(d, fb), *ps = trace_fixture_file(d, fs), *pn = trace_fixture_file(d, fn);
        const double vb[] = {0.30 + 0.01 * k}, vs[] = {0.05}, vn[] = {0.08 + 0.01 * k};
        trace_fixture_write(pb, &(FakeTrace){.scenario = "s", .scheduler = "slurm", .seed = k + 1, .names = n1,
                                             .values = vb, .nm = 1});
        trace_fixture_write(ps, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = k + 1, .names = n1,
                                             .values = vs, .nm = 1});
        trace_fixture_write(pn, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = k + 1, .names = n1,
                                             .values = vn, .nm = 1});
        all[k] = load(&(WkReportInputs){.baseline = pb, .sci = ps, .sci_no_outsourcing = pn});
        noout[k] = load(&(WkReportInputs){.baseline = pb, .sci = pn, .sci_no_outsourcing = pn});
        for (int v = 0; v < WK_CLAIMS_NV; v++) {
            seeds[k].rep[v] = all[k];
            seeds[k].tflops[v] = NAN;
        }
        seeds[k].rep[WK_CLAIMS_NO_OUTSOURCING] = noout[k];
    }
    char *first = wk_report_seeds_render(all, 3, "t", WK_REPORT_TEXT), line[1024];
    char *claims = wk_claims_render(seeds, 3, 0);
    assert_non_null(first);
    assert_non_null(claims);
    line_with(first, "the same, predicted by theory", line, sizeof line);
    assert_non_null(strstr(line, "9.0 ± 2.5 %"));
    line_with(claims, "the same, theory (here: outsourcing off)", line, sizeof line);
    assert_non_null(strstr(line, "9.0 ± 2.5 %"));
    line_with(claims, "outsourcing off  ", line, sizeof line); /* the ablation's row */
    assert_non_null(strstr(line, "9.0 ± 2.5 %"));
    assert_null(strstr(first, "31.0"));
    free(first);
    free(claims);
    for (int k = 0; k < 3; k++) {
        wk_report_free(all[k]);
        wk_report_free(noout[k]);
    }
}

/* ---- §3.4 --------------------------------------------------------------------------- */

#define S_NS 1000000000LL

static void test_throttle_speed_is_extra_running_time_over_the_throttled_window(void **state)
{
    TraceDir *d = *state;
    const char *pt = trace_fixture_file(d, "thr.h5"), *p0 = trace_fixture_file(d, "ref.h5"), *pb, *ps;
    write_pair(d, &pb, &ps);
    /* job 1 (512 GPUs, 1000 iterations) ran 10,300 s at 10.3 s/iteration; a
     * throttle from 1,000 s to 4,000 s (3,000 s); unthrottled 10 s/iteration:
     * 300 s extra over 3,000 s throttled = 10 % of the speed lost. Job 0 is
     * smaller and job 2 did not overlap the throttle; the down incident and
     * the straggler do not count. */
    const FakeJob jt[] = {
        {0, 0, 0, 2000 * S_NS, 8, WK_SCHEMA_STATUS_COMPLETED, 100, 20},
        {1, 0, 0, 10300 * S_NS, 512, WK_SCHEMA_STATUS_COMPLETED, 1000, 10.3},
        {2, 0, 20000 * S_NS, 21000 * S_NS, 1024, WK_SCHEMA_STATUS_COMPLETED, 100, 10},
    };
    const FakeIncident it[] = {{0, WK_SCHEMA_KIND_DOWN, 0, 500 * S_NS, NAN, 1},
                               {1, WK_SCHEMA_KIND_THROTTLE, 1000 * S_NS, 4000 * S_NS, NAN, 0.75},
                               {2, WK_SCHEMA_KIND_STRAGGLER, 5000 * S_NS, 6000 * S_NS, NAN, 1}};
    const FakeJob j0[] = {
        {0, 0, 0, 1900 * S_NS, 8, WK_SCHEMA_STATUS_COMPLETED, 100, 19},
        {1, 0, 0, 10000 * S_NS, 512, WK_SCHEMA_STATUS_COMPLETED, 1000, 10.0},
        {2, 0, 20000 * S_NS, 21000 * S_NS, 1024, WK_SCHEMA_STATUS_COMPLETED, 100, 10},
    };
    trace_fixture_write(pt, &(FakeTrace){.scenario = "thr", .scheduler = "fifo", .seed = 3, .jobs = jt,
                                         .nj = 3, .inc = it, .ni = 3});
    trace_fixture_write(p0, &(FakeTrace){.scenario = "thr", .scheduler = "fifo", .seed = 3, .jobs = j0,
                                         .nj = 3, .inc = it, .ni = 0});
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps, .throttle = pt, .throttle_naive = pt,
                                         .throttle_baseline = p0});
    const WkReportRow *t = row_of(r, "throttle");
    assert_close(t->sim_value, -10, 1e-9);
    assert_close(t->difference, -10 - (-8), 1e-9);
    assert_close(row_of(r, "throttle_predicted")->difference, -10 - (-25), 1e-9);
    assert_true(has_note(r, "job 1 (512 GPUs)"));
    char *text = wk_report_render(r, WK_REPORT_TEXT), line[1024];
    trace_fixture_line(text, "training speed, 32 GPUs of a rack throttled", line, sizeof line);
    assert_non_null(strstr(line, "-10.0 %"));
    assert_non_null(strstr(line, "-2.0 pts"));
    free(text);
    wk_report_free(r);
}

static void test_throttle_without_an_unthrottled_run_is_a_dash_with_a_note(void **state)
{
    TraceDir *d = *state;
    const char *pt = trace_fixture_file(d, "thr.h5"), *pb, *ps;
    write_pair(d, &pb, &ps);
    const FakeJob jt[] = {{0, 0, 0, 10300 * S_NS, 512, WK_SCHEMA_STATUS_COMPLETED, 1000, 10.3}};
    const FakeIncident it[] = {{0, WK_SCHEMA_KIND_THROTTLE, 1000 * S_NS, 4000 * S_NS, NAN, 0.75}};
    trace_fixture_write(pt, &(FakeTrace){.scenario = "thr", .scheduler = "fifo", .seed = 3, .jobs = jt,
                                         .nj = 1, .inc = it, .ni = 1});
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps, .throttle = pt});
    assert_true(isnan(row_of(r, "throttle")->sim_value));
    assert_true(isnan(row_of(r, "throttle")->difference));
    assert_true(has_note(r, "--throttle-baseline"));
    wk_report_free(r);

    /* a throttle trace with no throttle incident: "—" too */
    const char *pn = trace_fixture_file(d, "none.h5");
    const FakeIncident down[] = {{0, WK_SCHEMA_KIND_DOWN, 1000 * S_NS, 4000 * S_NS, 60, 1}};
    trace_fixture_write(pn, &(FakeTrace){.scenario = "thr", .scheduler = "fifo", .seed = 3, .jobs = jt,
                                         .nj = 1, .inc = down, .ni = 1});
    r = load(&(WkReportInputs){.baseline = pb, .sci = ps, .throttle = pn, .throttle_baseline = pt});
    assert_true(isnan(row_of(r, "throttle")->sim_value));
    assert_true(has_note(r, "no throttle incident"));
    wk_report_free(r);
}

/* A small rack-throttle scenario, run in process with and without the incident. */
static const char *const throttle_yaml =
    "name: small-throttle\n"
    "seed: 5\n"
    "cluster: {sku: A100-SXM-80G, nodes: 16, gpus_per_node: 8, nodes_per_pod: 16,\n"
    "          fabric: {kind: rail, tiers: 2, radix: 32, link_gbps: 200}}\n"
    "failures:\n"
    "  enabled: false\n"
    "  nodes_per_rack: 4\n"
    "  incidents: %s\n"
    "models:\n"
    "  job: {base: llama3-8b, tp: 8, pp: 1, global_batch: 128, rebalance: %s}\n"
    "workload:\n"
    "  source: inline\n"
    "  jobs:\n"
    "    - {submit: 0, gpus: 128, model: job, iterations: 400}\n";

static double run_throttle(const char *incidents, const char *rebalance, const char *path)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, throttle_yaml, incidents, rebalance);
    WkSummary sum;
    trace_fixture_run(yaml, NULL, path, &sum);
    return wk_summary_get(&sum, WK_SCHEMA_M_JCT_MEAN)->value;
}

static void test_throttle_speed_of_real_runs_matches_their_completion_times(void **state)
{
    TraceDir *d = *state;
    const char *pb, *ps;
    write_pair(d, &pb, &ps);
    const char *pt = trace_fixture_file(d, "t.h5"), *pr = trace_fixture_file(d, "r.h5");
    const char *p0 = trace_fixture_file(d, "t0.h5");
    const char *inc = "[{at: 10m, kind: throttle, rack: 1, clock: 0.75, duration: 30m}]";
    double jt = run_throttle(inc, "false", pt);
    double jr = run_throttle(inc, "true", pr);
    double j0 = run_throttle("[]", "false", p0);
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps, .throttle = pr, .throttle_naive = pt,
                                         .throttle_baseline = p0});
    /* submitted and started at 0, never interrupted: the JCT is the running
     * time; the throttle runs from 600 s to 2,400 s or the job's end */
    double wt = fmin(jt, 2400) - 600, wr = fmin(jr, 2400) - 600;
    assert_true(wt > 0 && wr > 0);
    assert_close(row_of(r, "throttle_predicted")->sim_value, -100 * (jt - j0) / wt, 1e-6);
    assert_close(row_of(r, "throttle")->sim_value, -100 * (jr - j0) / wr, 1e-6);
    /* the slowest rank bounds the plain job: it loses more speed than the rebalanced one */
    assert_true(row_of(r, "throttle_predicted")->sim_value < row_of(r, "throttle")->sim_value);
    assert_true(row_of(r, "throttle")->sim_value < 0);
    wk_report_free(r);
}

static void test_an_interrupted_run_is_flagged_in_the_notes(void **state)
{
    TraceDir *d = *state;
    const char *pb = trace_fixture_file(d, "base.h5"), *ps = trace_fixture_file(d, "cut.h5");
    trace_fixture_write(pb, &(FakeTrace){.scenario = "s", .scheduler = "fifo", .seed = 1, .names = t52_names,
                                         .values = t52_base, .nm = NT52});
    trace_fixture_write(ps, &(FakeTrace){.scenario = "s", .scheduler = "sci", .seed = 1, .names = t52_names,
                                         .values = t52_sci, .nm = NT52, .interrupted = 1});
    WkReport *r = load(&(WkReportInputs){.baseline = pb, .sci = ps});
    assert_true(has_note(r, "sci/1 [cut.h5] is the trace of an interrupted run"));
    assert_false(has_note(r, "base.h5] is the trace of an interrupted run"));
    wk_report_free(r);
}

/* ---- refusals ------------------------------------------------------------------------ */

static void test_unknown_schema_major_is_refused_naming_the_file(void **state)
{
    TraceDir *d = *state;
    const char *pb, *ps, *p2 = trace_fixture_file(d, "future.h5");
    write_pair(d, &pb, &ps);
    static const char *const names[] = {"utilization"};
    static const double v[] = {0.5};
    trace_fixture_write(p2, &(FakeTrace){.schema = "2.0", .scenario = "s", .scheduler = "sci", .seed = 1,
                                         .names = names, .values = v, .nm = 1});
    WkError err;
    wk_error_clear(&err);
    WkReport *r = NULL;
    assert_int_equal(wk_report_load(&r, "paper-sci", &(WkReportInputs){.baseline = pb, .sci = p2}, &err),
                     WK_E_INVAL);
    assert_null(r);
    char buf[2048];
    wk_error_format(&err, buf, sizeof buf);
    assert_non_null(strstr(buf, "future.h5"));
    assert_non_null(strstr(buf, "2.0"));
    /* also as a throttle trace */
    wk_error_clear(&err);
    assert_int_equal(wk_report_load(&r, "paper-sci",
                                    &(WkReportInputs){.baseline = pb, .sci = ps, .throttle_baseline = p2}, &err),
                     WK_E_INVAL);
    assert_null(r);
}

static void test_missing_file_and_unknown_report_are_errors(void **state)
{
    TraceDir *d = *state;
    const char *pb, *ps;
    write_pair(d, &pb, &ps);
    WkError err;
    wk_error_clear(&err);
    WkReport *r = NULL;
    char missing[256];
    snprintf(missing, sizeof missing, "%s/missing.h5", d->path);
    assert_int_equal(wk_report_load(&r, "paper-sci", &(WkReportInputs){.baseline = pb, .sci = missing}, &err),
                     WK_E_IO);
    assert_non_null(strstr(err.msg, "missing.h5"));
    wk_error_clear(&err);
    assert_int_equal(wk_report_load(&r, "paper-x", &(WkReportInputs){.baseline = pb, .sci = ps}, &err),
                     WK_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "known: paper-sci"));
    wk_error_clear(&err);
    assert_int_equal(wk_report_load(&r, "paper-sci", &(WkReportInputs){.baseline = pb}, &err), WK_E_INVAL);
    assert_null(r);
}

/* Every test gets its own temporary directory of traces. */
#define TEST(f) cmocka_unit_test_setup_teardown(f, trace_fixture_setup, trace_fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_table52_rows_are_computed_from_the_summaries_by_hand),
        TEST(test_table52_from_real_runs_matches_the_runs_own_summaries),
        TEST(test_recovery_falls_back_to_the_incidents_table),
        TEST(test_published_column_is_the_paper_table),
        TEST(test_what_a_trace_lacks_prints_a_dash_never_zero),
        TEST(test_latex_and_csv_render_the_tables_for_a_paper),
        TEST(test_spread_is_read_from_util_gpu_std_peak_before_the_whole_run),
        TEST(test_spread_predicted_is_sci_without_outsourcing_not_the_baseline),
        TEST(test_spread_predicted_agrees_between_the_seeds_table_and_the_claims),
        TEST(test_throttle_speed_is_extra_running_time_over_the_throttled_window),
        TEST(test_throttle_without_an_unthrottled_run_is_a_dash_with_a_note),
        TEST(test_throttle_speed_of_real_runs_matches_their_completion_times),
        TEST(test_an_interrupted_run_is_flagged_in_the_notes),
        TEST(test_unknown_schema_major_is_refused_naming_the_file),
        TEST(test_missing_file_and_unknown_report_are_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
