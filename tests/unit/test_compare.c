/* SPDX-License-Identifier: Apache-2.0 */
/* test_compare.c — `wanka compare` and the trace reader: traces of small
 * in-process runs (sim/run.h) and hand-written ones compared against the
 * runs' own summaries, an independent mean / sample sd / Student-t interval,
 * the "—" of a missing metric, the overlap flag, and schema-version refusal. */
#include "tests/unit/testutil.h"
#include "tests/unit/trace_fixture.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <hdf5.h>

#include "analysis/compare.h"
#include "sim/core/strbuf.h"
#include "sim/trace/schema.h"
#include "sim/trace/trace_read.h"

static const char *const quick =
    "name: %s\n"
    "seed: 7\n"
    "cluster: {nodes: %d, gpus_per_node: 8}\n"
    "workload:\n"
    "  source: synthetic\n"
    "  jobs: 300\n"
    "  interarrival: {dist: exponential, mean: 60s}\n"
    "  duration: {dist: lognormal, median: 20m, sigma: 1.4}\n"
    "  gpus: [{gpus: 1, weight: 5}, {gpus: 4, weight: 2}, {gpus: 8, weight: 2}]\n"
    "sim: {sample_interval: 5m}\n"
    "scheduler: fifo\n";

/* Run the quick scenario (name, nodes, seed) in process, write its trace to
 * path and keep its summary in *sum. */
static void run_to_trace(const char *name, int nodes, uint64_t seed, const char *path, WkSummary *sum)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, quick, name, nodes);
    trace_fixture_run(yaml, &(WkRunOpts){.has_seed = 1, .seed = seed}, path, sum);
}

/* A hand-made trace: root attributes as wanka writes them and the given
 * summary metrics (names[i] = values[i]). */
static void write_fake(const char *path, const char *schema, const char *scenario, const char *sched,
                       int64_t seed, const char *const *names, const double *values, size_t n)
{
    trace_fixture_write(path, &(FakeTrace){.schema = schema, .scenario = scenario, .scheduler = sched,
                                           .seed = seed, .names = names, .values = values, .nm = n});
}

/* Remove a summary attribute (as an older wanka version without the metric
 * would have written the trace). */
static void drop_summary_attr(const char *path, const char *name)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t g = H5Gopen2(f, "summary", H5P_DEFAULT);
    assert_true(g >= 0);
    if (H5Aexists(g, name) > 0)
        assert_true(H5Adelete(g, name) >= 0);
    H5Gclose(g);
    assert_true(H5Fclose(f) >= 0);
}

/* Add (or replace) a float attribute in the summary group of an existing
 * trace, with the HDF5 C API (as a later wanka version with one more metric
 * would). */
static void add_summary_attr(const char *path, const char *name, double value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t g = H5Gopen2(f, "summary", H5P_DEFAULT);
    assert_true(g >= 0);
    if (H5Aexists(g, name) > 0)
        assert_true(H5Adelete(g, name) >= 0);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, H5T_NATIVE_DOUBLE, &value) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Gclose(g);
    assert_true(H5Fclose(f) >= 0);
}

static WkCompare *load(const char *const *paths, size_t n, int group)
{
    WkError err;
    wk_error_clear(&err);
    WkCompare *c = NULL;
    if (wk_compare_load(&c, paths, n, group, &err) != 0)
        fail_msg("compare: %s", err.msg);
    return c;
}

static const WkCompareRow *row_of(const WkCompare *c, const char *name)
{
    const WkCompareRow *r = wk_compare_row(c, name);
    if (!r)
        fail_msg("no row %s", name);
    return r;
}

static size_t row_index(const WkCompare *c, const char *name)
{
    return (size_t)(row_of(c, name) - c->rows);
}

/* ---- two in-process runs ----------------------------------------------------- */

static void test_two_runs_show_their_summaries_and_relative_change(void **state)
{
    TraceDir *d = *state;
    WkSummary sa, sb;
    const char *pa = trace_fixture_file(d, "a.h5"), *pb = trace_fixture_file(d, "b.h5");
    run_to_trace("small", 4, 7, pa, &sa);
    run_to_trace("large", 6, 8, pb, &sb);
    const char *paths[] = {pa, pb};
    WkCompare *c = load(paths, 2, 1);

    assert_int_equal(c->ncols, 2);
    assert_int_equal(c->grouped, 0);
    assert_string_equal(c->cols[0].label, "fifo/7");
    assert_string_equal(c->cols[1].label, "fifo/8");
    /* every summary metric is a row, with the run's own value */
    assert_int_equal(c->nrows, sa.n);
    for (size_t i = 0; i < sa.n; i++) {
        const WkCompareRow *r = row_of(c, sa.m[i].name);
        double va = sa.m[i].value, vb = wk_summary_get(&sb, sa.m[i].name)->value;
        if (isnan(va)) {
            assert_true(isnan(r->cells[0].mean));
            continue;
        }
        assert_true(r->cells[0].mean == va);
        assert_true(r->cells[1].mean == vb);
        assert_int_equal(r->cells[0].n, 1);
        assert_true(isnan(r->cells[0].half));
        assert_true(isnan(r->cells[0].change));
        assert_int_equal(r->cells[1].overlap, -1);
        if (va != 0)
            assert_true(fabs(r->cells[1].change - (vb - va) / fabs(va)) < 1e-12);
    }
    /* the preferred order leads */
    assert_string_equal(c->rows[0].name, "utilization");
    assert_true(row_index(c, "jct_mean_s") < row_index(c, "jct_p99_s"));
    assert_true(row_index(c, "energy_kwh") < row_index(c, "events"));
    assert_true(row_index(c, "events") < row_index(c, "gpus"));

    /* the text table prints the change as "+x.y %" */
    double ua = wk_summary_get(&sa, "utilization")->value, ub = wk_summary_get(&sb, "utilization")->value;
    char want[32], line[512];
    snprintf(want, sizeof want, "%+.1f %%", 100 * (ub - ua) / ua);
    char *text = wk_compare_render(c, WK_COMPARE_TEXT);
    assert_non_null(text);
    trace_fixture_line(text, "utilization", line, sizeof line);
    assert_non_null(strstr(line, want));
    char va[32];
    snprintf(va, sizeof va, "%.4f", ua);
    assert_non_null(strstr(line, va));
    assert_non_null(strstr(text, "fifo/7"));
    /* gpus: 32 -> 48 is +50 % */
    trace_fixture_line(text, "gpus", line, sizeof line);
    assert_non_null(strstr(line, "+50.0 %"));
    free(text);
    wk_compare_free(c);
}

static void test_same_label_is_told_apart_by_file_name(void **state)
{
    TraceDir *d = *state;
    const char *pa = trace_fixture_file(d, "first.h5"), *pb = trace_fixture_file(d, "second.h5");
    run_to_trace("one", 4, 7, pa, NULL);
    run_to_trace("two", 6, 7, pb, NULL);
    const char *paths[] = {pa, pb};
    WkCompare *c = load(paths, 2, 1);
    assert_int_equal(c->ncols, 2);
    assert_string_equal(c->cols[0].label, "fifo/7 [first.h5]");
    assert_string_equal(c->cols[1].label, "fifo/7 [second.h5]");
    wk_compare_free(c);
}

/* ---- a metric only one trace has ----------------------------------------------- */

static void test_metric_one_trace_lacks_prints_dash_never_zero(void **state)
{
    TraceDir *d = *state;
    const char *pa = trace_fixture_file(d, "a.h5"), *pb = trace_fixture_file(d, "b.h5");
    run_to_trace("small", 4, 7, pa, NULL);
    run_to_trace("large", 6, 8, pb, NULL);
    drop_summary_attr(pa, "ettr"); /* a trace without the metric */
    add_summary_attr(pb, "ettr", 0.875);
    add_summary_attr(pa, "lost_gpu_hours", NAN); /* present but undefined */
    const char *paths[] = {pa, pb};
    WkCompare *c = load(paths, 2, 1);

    const WkCompareRow *r = row_of(c, "ettr");
    assert_true(isnan(r->cells[0].mean));
    assert_int_equal(r->cells[0].n, 0);
    assert_true(r->cells[1].mean == 0.875);
    assert_true(isnan(r->cells[1].change));
    const WkCompareRow *l = row_of(c, "lost_gpu_hours");
    assert_true(isnan(l->cells[0].mean) && isnan(l->cells[1].mean));
    /* preferred order: ... mean_power_mw, ..., lost_gpu_hours, ettr, then the others */
    assert_true(row_index(c, "mean_power_mw") < row_index(c, "lost_gpu_hours"));
    assert_true(row_index(c, "lost_gpu_hours") < row_index(c, "ettr"));
    assert_true(row_index(c, "ettr") < row_index(c, "energy_per_job_kwh"));

    char line[512];
    char *text = wk_compare_render(c, WK_COMPARE_TEXT);
    trace_fixture_line(text, "ettr", line, sizeof line);
    assert_non_null(strstr(line, "—"));
    assert_non_null(strstr(line, "0.8750"));
    assert_null(strstr(line, " 0 "));
    trace_fixture_line(text, "lost_gpu_hours", line, sizeof line);
    assert_non_null(strstr(line, "—"));
    free(text);

    char *json = wk_compare_render(c, WK_COMPARE_JSON);
    assert_non_null(strstr(json, "{\"name\":\"ettr\",\"values\":[null,0.875],"));
    free(json);
    char *csv = wk_compare_render(c, WK_COMPARE_CSV);
    assert_non_null(strstr(csv, "\r\nettr,,0.875,\r\n"));
    free(csv);
    char *md = wk_compare_render(c, WK_COMPARE_MARKDOWN);
    assert_non_null(strstr(md, "| ettr | — | 0.8750 | — |"));
    free(md);
    wk_compare_free(c);
}

/* ---- several seeds: confidence intervals --------------------------------------- */

/* t(0.975, 2) in closed form: for 2 degrees of freedom the quantile of p is
 * (2p − 1) / sqrt(2 p (1 − p)). */
static double t975_df2(void)
{
    double p = 0.975;
    return (2 * p - 1) / sqrt(2 * p * (1 - p));
}

static void test_three_seeds_give_mean_and_student_t_half_width(void **state)
{
    TraceDir *d = *state;
    const char *paths[4];
    WkSummary s[3];
    static const char *const names[] = {"s1.h5", "s2.h5", "s3.h5"};
    for (int i = 0; i < 3; i++) {
        paths[i] = trace_fixture_file(d, names[i]);
        run_to_trace("seeds", 4, (uint64_t)(11 + i), paths[i], &s[i]);
    }
    paths[3] = trace_fixture_file(d, "other.h5");
    run_to_trace("other", 6, 11, paths[3], NULL);
    WkCompare *c = load(paths, 4, 1);

    assert_int_equal(c->ncols, 2);
    assert_int_equal(c->grouped, 1);
    assert_string_equal(c->cols[0].label, "fifo (3 seeds)");
    assert_string_equal(c->cols[1].label, "fifo/11");
    assert_int_equal(c->cols[0].nruns, 3);
    static const char *const metrics[] = {"utilization", "jct_mean_s", "jct_p99_s", "energy_kwh"};
    for (size_t k = 0; k < sizeof metrics / sizeof *metrics; k++) {
        double x[3], mean = 0, ss = 0;
        for (int i = 0; i < 3; i++)
            mean += (x[i] = wk_summary_get(&s[i], metrics[k])->value) / 3;
        for (int i = 0; i < 3; i++)
            ss += (x[i] - mean) * (x[i] - mean);
        double sd = sqrt(ss / 2), half = t975_df2() * sd / sqrt(3.0);
        const WkCompareRow *r = row_of(c, metrics[k]);
        assert_int_equal(r->cells[0].n, 3);
        assert_true(fabs(r->cells[0].mean - mean) <= 1e-12 * fabs(mean));
        assert_true(half > 0);
        assert_true(fabs(r->cells[0].half - half) <= 1e-9 * half);
        assert_int_equal(r->cells[1].n, 1);
        assert_true(isnan(r->cells[1].half));
        assert_int_equal(r->cells[1].overlap, -1); /* one run has no interval */
    }
    char *text = wk_compare_render(c, WK_COMPARE_TEXT);
    assert_non_null(strstr(text, "fifo (3 seeds)"));
    assert_non_null(strstr(text, " ± "));
    assert_non_null(strstr(text, "seeds 11, 12, 13"));
    free(text);
    wk_compare_free(c);

    /* --no-group: one column per trace */
    c = load(paths, 4, 0);
    assert_int_equal(c->ncols, 4);
    assert_int_equal(c->grouped, 0);
    assert_string_equal(c->cols[0].label, "fifo/11 [s1.h5]");
    assert_string_equal(c->cols[1].label, "fifo/12");
    wk_compare_free(c);
}

static void test_overlap_flag_marks_overlapping_intervals(void **state)
{
    TraceDir *d = *state;
    /* A = {1,2,3}: mean 2, half t·1/√3 = 2.484; B = {10,11,12}: |11 − 2| = 9 > 4.97,
     * apart; C = {5,6,7}: |6 − 2| = 4 < 2.484 + 2.484, overlapping (though
     * each mean lies outside the other's interval). */
    static const char *const m[] = {"utilization"};
    const char *paths[9];
    static const char *const sched[] = {"aaa", "bbb", "ccc"};
    static const double base[] = {1, 10, 5};
    char name[32];
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < 3; i++) {
            snprintf(name, sizeof name, "%s%d.h5", sched[g], i);
            paths[3 * g + i] = trace_fixture_file(d, name);
            double v = base[g] + i;
            write_fake(paths[3 * g + i], NULL, "fake", sched[g], i + 1, m, &v, 1);
        }
    WkCompare *c = load(paths, 9, 1);
    assert_int_equal(c->ncols, 3);
    const WkCompareRow *r = row_of(c, "utilization");
    double half = t975_df2() / sqrt(3.0);
    assert_true(fabs(r->cells[0].half - half) < 1e-12);
    assert_true(r->cells[0].mean == 2.0);
    assert_int_equal(r->cells[0].overlap, -1);
    assert_int_equal(r->cells[1].overlap, 0);
    assert_int_equal(r->cells[2].overlap, 1);
    assert_true(fabs(r->cells[1].change - 4.5) < 1e-12); /* (11 − 2) / 2 */

    char *text = wk_compare_render(c, WK_COMPARE_TEXT);
    char line[512];
    trace_fixture_line(text, "utilization", line, sizeof line);
    assert_non_null(strstr(line, "+450.0 %  "));   /* B: no flag */
    assert_non_null(strstr(line, "+200.0 % ~"));  /* C: overlaps */
    assert_non_null(strstr(line, "2.0000 ± 2.4841"));
    assert_non_null(strstr(text, "aaa (3 seeds)"));
    free(text);
    char *csv = wk_compare_render(c, WK_COMPARE_CSV);
    assert_non_null(strstr(csv, "bbb (3 seeds) overlap"));
    assert_non_null(strstr(csv, ",4.5,no,"));
    assert_non_null(strstr(csv, ",2,yes\r\n"));
    free(csv);
    char *json = wk_compare_render(c, WK_COMPARE_JSON);
    assert_non_null(strstr(json, "\"overlap\":[null,false,true]"));
    free(json);
    wk_compare_free(c);
}

/* The paper formats: LaTeX (booktabs, _ % & # $ escaped), Markdown ('|'
 * escaped) and CSV (a label with a comma quoted), from the same comparison. */
static void test_latex_markdown_and_csv_tables_escape_what_their_format_needs(void **state)
{
    TraceDir *d = *state;
    static const char *const m[] = {WK_SCHEMA_M_UTILIZATION};
    static const char *const sched[] = {"p_1", "q&r#%$", "a,b|c"};
    const char *paths[3];
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d.h5", i);
        paths[i] = trace_fixture_file(d, name);
        double v = 0.5 + 0.25 * i;
        write_fake(paths[i], NULL, "fake", sched[i], i + 1, m, &v, 1);
    }
    WkCompare *c = load(paths, 3, 1);
    char *tex = wk_compare_render(c, WK_COMPARE_LATEX);
    assert_non_null(tex);
    assert_string_equal(tex, "\\begin{tabular}{lrrrrr}\n"
                             "\\toprule\n"
                             "metric & p\\_1/1 & q\\&r\\#\\%\\$/2 & change & a,b|c/3 & change \\\\\n"
                             "\\midrule\n"
                             "Utilization & 0.5000 & 0.7500 & +50.0 \\% & 1 & +100.0 \\% \\\\\n"
                             "\\bottomrule\n"
                             "\\end{tabular}\n"
                             "% change: relative to the first column, p_1/1\n");
    free(tex);
    char *md = wk_compare_render(c, WK_COMPARE_MARKDOWN);
    assert_non_null(strstr(md, "| metric | p_1/1 | q&r#%$/2 | change | a,b\\|c/3 | change |\n"));
    assert_non_null(strstr(md, "| utilization | 0.5000 | 0.7500 | +50.0 % | 1 | +100.0 % |\n"));
    free(md);
    char *csv = wk_compare_render(c, WK_COMPARE_CSV);
    assert_non_null(strstr(csv, "metric,p_1/1,q&r#%$/2,q&r#%$/2 rel_change,\"a,b|c/3\",\"a,b|c/3 rel_change\"\r\n"));
    assert_non_null(strstr(csv, "utilization,0.5,0.75,0.5,1,1\r\n"));
    free(csv);
    /* text, the default, is what it was: no LaTeX in it */
    char *text = wk_compare_render(c, WK_COMPARE_TEXT);
    assert_null(strstr(text, "\\\\"));
    assert_non_null(strstr(text, "q&r#%$/2"));
    free(text);
    wk_compare_free(c);
}

/* The text helpers the tables share: every LaTeX special character and
 * sign, and RFC 4180 quoting. */
static void test_strbuf_latex_and_csv_escape_every_special_character(void **state)
{
    (void)state;
    WkStrBuf b = {0};
    wk_strbuf_latex(&b, "a_b%c&d#e$f{g}h~i^j\\k — ± − § · → ↓ … τ 下");
    char *t = wk_strbuf_take(&b);
    assert_string_equal(t, "a\\_b\\%c\\&d\\#e\\$f\\{g\\}h\\textasciitilde{}i\\textasciicircum{}j\\textbackslash{}k "
                           "--- $\\pm$ $-$ \\S{} $\\cdot$ $\\to$ $\\downarrow$ \\ldots{} $\\tau$ 下");
    free(t);
    wk_strbuf_csv_field(&b, "plain");
    wk_strbuf_printf(&b, "|");
    wk_strbuf_csv_field(&b, "a,b");
    wk_strbuf_printf(&b, "|");
    wk_strbuf_csv_field(&b, "say \"hi\"");
    wk_strbuf_printf(&b, "|");
    wk_strbuf_csv_field(&b, "two\nlines");
    t = wk_strbuf_take(&b);
    assert_string_equal(t, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"");
    free(t);
}

static void test_json_escapes_quotes_backslashes_and_control_characters(void **state)
{
    TraceDir *d = *state;
    static const char *const m[] = {WK_SCHEMA_M_UTILIZATION};
    double v = 0.5;
    const char *p = trace_fixture_file(d, "odd.h5");
    write_fake(p, NULL, "say \"hi\"\n\tnow", "a\\b", 1, m, &v, 1);
    WkCompare *c = load(&p, 1, 1);
    char *json = wk_compare_render(c, WK_COMPARE_JSON);
    assert_non_null(strstr(json, "\"scenario\":\"say \\\"hi\\\"\\n\\u0009now\","));
    assert_non_null(strstr(json, "\"scheduler\":\"a\\\\b\","));
    free(json);
    wk_compare_free(c);
}

/* ---- the reader --------------------------------------------------------------- */

static void test_schema_major_2_is_refused_with_a_clear_message(void **state)
{
    TraceDir *d = *state;
    static const char *const m[] = {"utilization"};
    double v = 0.5;
    const char *p2 = trace_fixture_file(d, "future.h5"), *p17 = trace_fixture_file(d, "minor.h5");
    write_fake(p2, "2.0", "fake", "fifo", 1, m, &v, 1);
    write_fake(p17, "1.7", "fake", "fifo", 2, m, &v, 1);

    WkError err;
    wk_error_clear(&err);
    WkTraceRead *r = NULL;
    assert_int_equal(wk_trace_read_open(&r, p2, &err), WK_E_INVAL);
    assert_null(r);
    assert_non_null(strstr(err.msg, p2));
    assert_non_null(strstr(err.msg, "schema version 2.0 is not supported"));
    assert_non_null(strstr(err.msg, "1.x"));

    /* a newer minor version is read */
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_open(&r, p17, &err), 0);
    int major, minor;
    wk_trace_read_version(r, &major, &minor);
    assert_int_equal(major, 1);
    assert_int_equal(minor, 7);
    wk_trace_read_close(r);

    /* compare stops at the refused trace, naming it */
    const char *paths[] = {p17, p2};
    WkCompare *c = NULL;
    wk_error_clear(&err);
    assert_int_equal(wk_compare_load(&c, paths, 2, 1, &err), WK_E_INVAL);
    assert_null(c);
    assert_non_null(strstr(err.msg, "future.h5: trace schema version 2.0"));

    /* a missing file and a file that is not HDF5 */
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_open(&r, "/nonexistent/x.h5", &err), WK_E_IO);
    assert_non_null(strstr(err.msg, "/nonexistent/x.h5: cannot open"));
    const char *txt = trace_fixture_file(d, "notes.h5");
    FILE *f = fopen(txt, "w");
    assert_non_null(f);
    fputs("not hdf5\n", f);
    fclose(f);
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_open(&r, txt, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "not an HDF5 file"));
}

static void test_reader_gives_attributes_and_columns(void **state)
{
    TraceDir *d = *state;
    WkSummary s;
    const char *p = trace_fixture_file(d, "cols.h5");
    run_to_trace("cols", 4, 5, p, &s);
    WkError err;
    wk_error_clear(&err);
    WkTraceRead *r = NULL;
    assert_int_equal(wk_trace_read_open(&r, p, &err), 0);
    assert_string_equal(wk_trace_read_path(r), p);

    char *str = NULL;
    assert_int_equal(wk_trace_read_attr_str(r, "scheduler", &str, &err), 0);
    assert_string_equal(str, "fifo");
    free(str);
    int64_t seed = 0, gpus = 0;
    assert_int_equal(wk_trace_read_attr_i64(r, "seed", &seed, &err), 0);
    assert_int_equal(seed, 5);
    assert_int_equal(wk_trace_read_attr_i64(r, "gpus", &gpus, &err), 0);
    assert_int_equal(gpus, 32);
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_attr_str(r, "no_such", &str, &err), WK_E_NOTFOUND);
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_attr_i64(r, "scheduler", &seed, &err), WK_E_INVAL);
    /* an attribute a trace may lack: "" when absent, the value when present */
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_attr_str_opt(r, "no_such", &str, &err), 0);
    assert_string_equal(str, "");
    free(str);
    assert_int_equal(wk_trace_read_attr_str_opt(r, "scheduler", &str, &err), 0);
    assert_string_equal(str, "fifo");
    free(str);
    assert_int_equal(wk_trace_read_attr_str_opt(r, "seed", &str, &err), WK_E_INVAL); /* not a string */

    WkTraceMetric *m = NULL;
    size_t nm = 0;
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_summary(r, &m, &nm, &err), 0);
    assert_int_equal(nm, s.n);
    for (size_t i = 0; i < nm; i++) {
        const WkMetric *w = wk_summary_get(&s, m[i].name);
        assert_non_null(w);
        assert_true(w->value == m[i].value || (isnan(w->value) && isnan(m[i].value)));
        assert_ptr_equal(wk_trace_read_metric(m, nm, m[i].name), &m[i]);
    }
    assert_null(wk_trace_read_metric(m, nm, "no_such_metric"));
    free(m);

    double *col = NULL, *st = NULL;
    size_t n = 0, ns = 0;
    assert_int_equal(wk_trace_read_column(r, "jobs", "submit", &col, &n, &err), 0);
    assert_int_equal(n, 300);
    for (size_t i = 1; i < n; i++)
        assert_true(col[i] >= col[i - 1]); /* synthetic arrivals in order */
    free(col);
    assert_int_equal(wk_trace_read_column(r, "jobs", "status", &st, &ns, &err), 0);
    assert_int_equal(ns, 300);
    for (size_t i = 0; i < ns; i++)
        assert_true(st[i] == 0.0); /* every job completed */
    free(st);
    assert_int_equal(wk_trace_read_column(r, "timeseries/cluster", "allocated_gpus", &col, &n, &err), 0);
    assert_true(n > 2);
    for (size_t i = 0; i < n; i++)
        assert_true(col[i] >= 0 && col[i] <= 32);
    free(col);
    assert_int_equal(wk_trace_read_has(r, "timeseries/cluster"), 1);
    assert_int_equal(wk_trace_read_has(r, "incidents"), 1);
    assert_int_equal(wk_trace_read_has(r, "nope/deeper"), 0);

    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_column(r, "jobs", "colour", &col, &n, &err), WK_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "has no column 'colour' (columns: id, submit, start"));
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_column(r, "racks", "time", &col, &n, &err), WK_E_NOTFOUND);
    assert_non_null(strstr(err.msg, "no table 'racks'"));
    wk_trace_read_close(r);
}

static void test_jobs_table_gpus_final_is_the_count_held_at_the_end(void **state)
{
    TraceDir *d = *state;
    /* A DP-only 8B job on all 32 GPUs, batch 256; node 1 dies at 30 min for
     * good: of the 24 survivors it restarts on 16, the largest DP degree that
     * splits 256 sequences. The 8-GPU job waits, then runs, never shrunk. */
    const char *y = "cluster:\n  nodes: 4\n"
                    "failures:\n  enabled: false\n  health_check: 0s\n"
                    "  incidents:\n    - {at: 30m, kind: down, node: 1, duration: 60d}\n"
                    "checkpoint:\n  interval: 20m\n  launch: 30s\n"
                    "models:\n  dp8b: {base: llama3-8b, global_batch: 256, elastic: true}\n"
                    "workload:\n  source: inline\n  jobs:\n"
                    "    - {submit: 0, gpus: 32, model: dp8b, iterations: 1000}\n"
                    "    - {submit: 0, gpus: 8, duration: 1h}\n";
    const char *p = trace_fixture_file(d, "elastic.h5");
    WkSummary sum;
    trace_fixture_run(y, NULL, p, &sum);
    assert_int_equal((int)wk_summary_get(&sum, WK_SCHEMA_M_ELASTIC_SHRINKS)->value, 1);
    WkError err;
    wk_error_clear(&err);
    WkTraceRead *r = NULL;
    assert_int_equal(wk_trace_read_open(&r, p, &err), 0);
    double *final = NULL, *status = NULL, *req = NULL;
    size_t n = 0, ns = 0, nr = 0;
    assert_int_equal(wk_trace_read_column(r, WK_SCHEMA_JOBS, WK_SCHEMA_JOB_GPUS_FINAL, &final, &n, &err), 0);
    assert_int_equal(wk_trace_read_column(r, WK_SCHEMA_JOBS, WK_SCHEMA_JOB_GPUS, &req, &nr, &err), 0);
    assert_int_equal(nr, 2);
    assert_true(req[0] == 32 && req[1] == 8); /* requested, not shrunk */
    free(req);
    assert_int_equal(wk_trace_read_column(r, WK_SCHEMA_JOBS, WK_SCHEMA_JOB_STATUS, &status, &ns, &err), 0);
    assert_int_equal(n, 2);
    assert_true(status[0] == WK_SCHEMA_STATUS_COMPLETED && status[1] == WK_SCHEMA_STATUS_COMPLETED);
    assert_true(final[0] == 16);
    assert_true(final[1] == 8);
    free(final);
    free(status);
    wk_trace_read_close(r);
}

/* The summary comes sorted by name whatever order the file holds, so a
 * lookup (a binary search) finds every metric; a hand-built array is
 * sorted by wk_trace_read_metrics_sort. */
static void test_summary_is_sorted_and_lookup_is_a_binary_search(void **state)
{
    TraceDir *d = *state;
    const char *path = trace_fixture_file(d, "sorted.h5");
    const char *const names[] = {"zeta", "alpha", "mid", "beta_2", "beta"};
    const double values[] = {5, 1, 3, 4, 2};
    write_fake(path, NULL, "s", "fifo", 1, names, values, 5);
    WkTraceRead *r = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_open(&r, path, &err), 0);
    WkTraceMetric *m = NULL;
    size_t nm = 0;
    assert_int_equal(wk_trace_read_summary(r, &m, &nm, &err), 0);
    wk_trace_read_close(r);
    assert_int_equal(nm, 5);
    for (size_t i = 1; i < nm; i++)
        assert_true(strcmp(m[i - 1].name, m[i].name) < 0);
    for (size_t i = 0; i < 5; i++)
        assert_true(wk_trace_read_metric(m, nm, names[i])->value == values[i]);
    assert_null(wk_trace_read_metric(m, nm, "gamma"));
    WkTraceMetric by_hand[3] = {{"c", 3}, {"a", 1}, {"b", 2}};
    wk_trace_read_metrics_sort(by_hand, 3);
    assert_true(wk_trace_read_metric(by_hand, 3, "a")->value == 1);
    assert_true(wk_trace_read_metric(by_hand, 3, "c")->value == 3);
    free(m);
}

static volatile sig_atomic_t alarms;

static void count_alarm(int sig)
{
    (void)sig;
    alarms++;
}

/* SIGALRM and its interval timer stay the caller's across open (libFuzzer
 * times each input with one): an alarm arriving during an open is the
 * caller's, not a "did not finish opening" exit, and the timer still runs. */
static void test_open_leaves_sigalrm_and_its_timer_to_the_caller(void **state)
{
    TraceDir *d = *state;
    const char *path = trace_fixture_file(d, "alarm.h5");
    const char *const names[] = {"utilization"};
    const double values[] = {0.5};
    write_fake(path, NULL, "s", "fifo", 1, names, values, 1);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_alarm;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
    struct itimerval t = {.it_interval = {0, 1000}, .it_value = {0, 1000}}, now;
    assert_int_equal(setitimer(ITIMER_REAL, &t, NULL), 0);
    alarms = 0;
    for (int i = 0; i < 200 && alarms < 20; i++) {
        WkTraceRead *r = NULL;
        WkError err;
        wk_error_clear(&err);
        assert_int_equal(wk_trace_read_open(&r, path, &err), 0);
        wk_trace_read_close(r);
    }
    assert_int_equal(getitimer(ITIMER_REAL, &now), 0);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &old, NULL);
    assert_true(alarms > 0);
    assert_int_equal(now.it_interval.tv_usec, 1000); /* the caller's timer is still armed */
}

/* Every test gets its own temporary directory of traces. */
#define TEST(f) cmocka_unit_test_setup_teardown(f, trace_fixture_setup, trace_fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_two_runs_show_their_summaries_and_relative_change),
        TEST(test_same_label_is_told_apart_by_file_name),
        TEST(test_metric_one_trace_lacks_prints_dash_never_zero),
        TEST(test_three_seeds_give_mean_and_student_t_half_width),
        TEST(test_overlap_flag_marks_overlapping_intervals),
        TEST(test_latex_markdown_and_csv_tables_escape_what_their_format_needs),
        TEST(test_strbuf_latex_and_csv_escape_every_special_character),
        TEST(test_json_escapes_quotes_backslashes_and_control_characters),
        TEST(test_schema_major_2_is_refused_with_a_clear_message),
        TEST(test_reader_gives_attributes_and_columns),
        TEST(test_jobs_table_gpus_final_is_the_count_held_at_the_end),
        TEST(test_summary_is_sorted_and_lookup_is_a_binary_search),
        TEST(test_open_leaves_sigalrm_and_its_timer_to_the_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
