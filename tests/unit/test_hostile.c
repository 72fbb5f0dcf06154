/* SPDX-License-Identifier: Apache-2.0 */
/* test_hostile.c — hostile input: every malformed, oversized or absurd
 * scenario or trace CSV ends in a clear WK_E_* error (exit 2 from the CLI) or
 * a documented limit (docs/limits.md), never a crash, a hang or unbounded
 * memory; and a run stopped through its interrupt flag (SIGINT/SIGTERM in
 * the CLI) is summarized and traced as incomplete. Inputs found by the
 * fuzzers (tests/fuzz) are pinned here too. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#include "models/workload/workload.h"
#include "sim/trace/trace_read.h"

/* Load and prepare text of len bytes; returns the code, err filled. */
static int prepare_bytes(const char *text, size_t len, WkError *err)
{
    WkDoc *doc = NULL;
    WkSim *sim = NULL;
    wk_error_clear(err);
    int rc = wk_doc_load_string(&doc, "bad.yaml", text, len, err);
    if (rc == 0)
        rc = wk_sim_prepare(&sim, doc, NULL, err);
    wk_sim_free(sim);
    wk_doc_free(doc);
    return rc;
}

/* Expect the scenario text to be refused with code and a message holding needle. */
static void expect_refused(const char *yaml, int code, const char *needle)
{
    WkError err;
    int rc = test_prepare_yaml(yaml, &err);
    if (rc != code || err.code != code || !strstr(err.msg, needle))
        fail_msg("%s\n→ code %d (want %d): %s: %s (want '%s')", yaml, rc, code, err.where, err.msg, needle);
}

#define CLUSTER "cluster: {nodes: 2, gpus_per_node: 8}\n"
#define JOBS(x) "workload: {source: inline, jobs: [" x "]}\n"

/* ---- YAML structure ---- */

static void test_empty_file_is_refused_naming_what_is_missing(void **state)
{
    (void)state;
    expect_refused("", WK_E_INVAL, "empty scenario");
    expect_refused("# nothing but a comment\n\n", WK_E_INVAL, "empty scenario");
    expect_refused("~\n", WK_E_INVAL, "empty scenario");
}

static void test_non_utf8_bytes_are_refused_as_an_encoding_error(void **state)
{
    (void)state;
    WkError err;
    static const char bad_scalar[] = CLUSTER "name: \xc3\x28\n";   /* broken 2-byte sequence */
    static const char bad_key[] = CLUSTER "\x80\x81: 1\n";          /* a lone continuation byte */
    static const char overlong[] = CLUSTER "name: \xc0\xaf\n";      /* overlong '/' */
    const char *texts[] = {bad_scalar, bad_key, overlong};
    size_t lens[] = {sizeof bad_scalar - 1, sizeof bad_key - 1, sizeof overlong - 1};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(prepare_bytes(texts[i], lens[i], &err), WK_E_INVAL);
        assert_non_null(strstr(err.msg, "UTF-8"));
        assert_non_null(strstr(err.where, "bad.yaml:2:"));
    }
    /* NUL bytes in the middle of the text */
    static const char nul[] = CLUSTER "name: a\0b\n";
    assert_int_equal(prepare_bytes(nul, sizeof nul - 1, &err), WK_E_INVAL);
}

/* The classic "billion laughs": nine levels of ten aliases each would expand
 * to 10^9 nodes. Anchors are refused at the first one, before any expansion. */
static void test_billion_laughs_is_refused_at_the_first_anchor(void **state)
{
    (void)state;
    char yaml[4096];
    size_t n = (size_t)snprintf(yaml, sizeof yaml, "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (char c = 'b'; c <= 'i'; c++) {
        n += (size_t)snprintf(yaml + n, sizeof yaml - n, "%c: &%c [", c, c);
        for (int k = 0; k < 9; k++)
            n += (size_t)snprintf(yaml + n, sizeof yaml - n, "%s*%c", k ? "," : "", c - 1);
        n += (size_t)snprintf(yaml + n, sizeof yaml - n, "]\n");
    }
    expect_refused(yaml, WK_E_INVAL, "anchors and aliases are not supported (found anchor '&a')");
    /* a merge key with an alias is refused the same way */
    expect_refused("base: &b {nodes: 2}\ncluster: {<<: *b}\n", WK_E_INVAL, "anchors and aliases are not supported");
}

static void test_deep_nesting_is_refused_not_recursed(void **state)
{
    (void)state;
    enum { DEPTH = 100000 };
    /* flow sequences and flow mappings, 100,000 levels */
    char *flow = malloc(4 * DEPTH + 16);
    assert_non_null(flow);
    for (int k = 0; k < 2; k++) {
        size_t n = 0;
        n += (size_t)sprintf(flow, "a: ");
        for (int i = 0; i < DEPTH; i++)
            n += (size_t)sprintf(flow + n, "%s", k ? "{a: " : "[");
        flow[n] = '\0';
        WkError err;
        assert_int_equal(prepare_bytes(flow, n, &err), WK_E_INVAL);
        assert_non_null(strstr(err.msg, "nested too deeply"));
    }
    free(flow);
    /* block mappings, 300 levels: "k:\n  k:\n    k: ..." */
    enum { BLOCK = 300 };
    char *block = malloc((size_t)BLOCK * (2 * BLOCK + 4) + 1);
    assert_non_null(block);
    size_t n = 0;
    for (int i = 0; i < BLOCK; i++)
        n += (size_t)sprintf(block + n, "%*sk:\n", 2 * i, "");
    expect_refused(block, WK_E_INVAL, "nested too deeply");
    free(block);
}

static void test_duplicate_keys_are_refused_with_both_lines(void **state)
{
    (void)state;
    expect_refused(CLUSTER "cluster: {nodes: 3}\n", WK_E_INVAL, "duplicate key (first at line 1)");
    expect_refused("cluster: {nodes: 2, nodes: 3}\n", WK_E_INVAL, "duplicate key");
    expect_refused(CLUSTER JOBS("{gpus: 1, gpus: 2, duration: 1}"), WK_E_INVAL, "duplicate key");
}

/* ---- numbers out of range ---- */

static void test_gpu_counts_past_the_limit_are_range_errors(void **state)
{
    (void)state;
    expect_refused("cluster: {nodes: 1e30}\n" JOBS(""), WK_E_RANGE, "must be between 1 and 4000000 (got 1e30)");
    expect_refused("cluster: {nodes: 99999999999999999999999}\n" JOBS(""), WK_E_RANGE, "must be between");
    expect_refused("cluster: {nodes: 4000000, gpus_per_node: 8}\n" JOBS(""), WK_E_RANGE, "more than 4000000 GPUs");
    expect_refused(CLUSTER JOBS("{gpus: 1e30, duration: 1h}"), WK_E_RANGE, "workload.jobs[0].gpus: must be between");
    expect_refused(CLUSTER JOBS("{gpus: -1, duration: 1h}"), WK_E_RANGE, "must be between");
}

static void test_durations_near_2_63_ns_are_range_errors(void **state)
{
    (void)state;
    static const char *const big[] = {"9223372036854775807ns", "9223372036854775808ns", "106752d", "1e30",
                                      "1e300", "2305843009213693952ns", "18446744073709551616"};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        char yaml[256];
        snprintf(yaml, sizeof yaml, CLUSTER JOBS("{gpus: 1, duration: %s}"), big[i]);
        WkError err;
        int rc = test_prepare_yaml(yaml, &err);
        if (rc != WK_E_RANGE || !strstr(err.msg, "workload.jobs[0].duration"))
            fail_msg("duration %s: code %d: %s", big[i], rc, err.msg);
    }
    /* the largest accepted duration (2^61 - 1 ns, 73 years) is fine */
    WkError err;
    assert_int_equal(test_prepare_yaml(CLUSTER JOBS("{gpus: 1, duration: 2305843009213693951ns}"), &err), 0);
    expect_refused("sim: {end: 9223372036854775807ns}\n" CLUSTER JOBS(""), WK_E_RANGE, "sim.end");
    expect_refused(CLUSTER "workload: {source: synthetic, jobs: 10, interarrival: 1e12}\n", WK_E_RANGE,
                   "interarrival");
}

static void test_nan_and_inf_are_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {".nan", "nan", "NaN", ".inf", "-.inf", "inf", "infinity", "1e400", "-1e400"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char yaml[256];
        snprintf(yaml, sizeof yaml, "cluster: {nodes: 2, power: {pue: %s}}\n" JOBS(""), bad[i]);
        WkError err;
        int rc = test_prepare_yaml(yaml, &err);
        if (rc >= 0 || !strstr(err.msg, "cluster.power.pue"))
            fail_msg("pue %s: code %d: %s", bad[i], rc, err.msg);
        snprintf(yaml, sizeof yaml, CLUSTER JOBS("{gpus: 1, duration: %s}"), bad[i]);
        rc = test_prepare_yaml(yaml, &err);
        if (rc >= 0 || !strstr(err.msg, "duration"))
            fail_msg("duration %s: code %d: %s", bad[i], rc, err.msg);
        snprintf(yaml, sizeof yaml, CLUSTER "workload: {source: synthetic, jobs: 3, gpus: [{gpus: 1, weight: %s}]}\n",
                 bad[i]);
        rc = test_prepare_yaml(yaml, &err);
        if (rc >= 0 || !strstr(err.msg, "weight"))
            fail_msg("weight %s: code %d: %s", bad[i], rc, err.msg);
    }
}

static void test_negative_durations_are_refused(void **state)
{
    (void)state;
    expect_refused(CLUSTER JOBS("{gpus: 1, duration: -5s}"), WK_E_RANGE, "workload.jobs[0].duration");
    expect_refused(CLUSTER JOBS("{submit: -1h, gpus: 1, duration: 5s}"), WK_E_RANGE, "workload.jobs[0].submit");
    expect_refused("sim: {end: -1h}\n" CLUSTER JOBS(""), WK_E_RANGE, "sim.end");
    expect_refused(CLUSTER "workload: {source: synthetic, jobs: 5, interarrival: {dist: exponential, mean: -1s}}\n",
                   WK_E_RANGE, "mean");
    expect_refused(CLUSTER "workload: {source: synthetic, jobs: 5, duration: -3}\n", WK_E_RANGE, "duration");
}

/* ---- sizes: jobs, simulated time, table rows ---- */

static void test_jobs_past_the_workload_limit_are_refused(void **state)
{
    (void)state;
    char yaml[256];
    snprintf(yaml, sizeof yaml, CLUSTER "workload: {source: synthetic, jobs: %d}\n", WK_WORKLOAD_MAX_JOBS + 1);
    expect_refused(yaml, WK_E_RANGE, "must be between 1 and 5000000");
    /* submits past 73 years stop the generator at once, not after 5 M jobs */
    snprintf(yaml, sizeof yaml, CLUSTER "workload: {source: synthetic, jobs: %d, interarrival: 1e9}\n",
             WK_WORKLOAD_MAX_JOBS);
    expect_refused(yaml, WK_E_RANGE, "the limit of simulated time");
}

/* Twenty jobs of 73 years one after another on one GPU: the clock would pass
 * 2^63 ns. The run stops at 146 years with a range error instead. */
static void test_run_past_146_years_is_a_range_error(void **state)
{
    (void)state;
    char yaml[4096] = "cluster: {nodes: 1, gpus_per_node: 1}\nworkload: {source: inline, jobs: [";
    for (int i = 0; i < 20; i++)
        strcat(yaml, "{gpus: 1, duration: 2305843009213693951ns},");
    strcat(yaml, "]}\n");
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&doc, "long.yaml", yaml, strlen(yaml), &err), 0);
    assert_int_equal(wk_run_prepare(&run, doc, NULL, &err), 0);
    assert_int_equal(wk_run_execute(run, &err), WK_E_RANGE);
    assert_non_null(strstr(err.msg, "146 years"));
    wk_run_free(run);
    wk_doc_free(doc);
    /* with sim.end the same workload is a normal, cut-short run */
    TestRun t;
    char *cut = malloc(strlen(yaml) + 32);
    assert_non_null(cut);
    sprintf(cut, "sim: {end: 100d}\n%s", yaml);
    test_run_yaml(&t, cut, NULL);
    assert_true(test_metric(&t, "jobs_unfinished") == 20);
    test_run_free(&t);
    free(cut);
}

/* A 1 ms sample interval over a 4-hour job would write 14.4 M rows: the run
 * stops at the 10 M-row limit with a message naming the key. */
static void test_sample_rows_past_the_limit_are_a_range_error(void **state)
{
    (void)state;
    const char *yaml = "sim: {sample_interval: 1ms}\n" CLUSTER JOBS("{gpus: 1, duration: 4h}");
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&doc, "rows.yaml", yaml, strlen(yaml), &err), 0);
    assert_int_equal(wk_run_prepare(&run, doc, NULL, &err), 0);
    assert_int_equal(wk_run_execute(run, &err), WK_E_RANGE);
    assert_non_null(strstr(err.msg, "sim.sample_interval: more than 10000000 rows"));
    wk_run_free(run);
    wk_doc_free(doc);
}

/* ---- the Philly CSV importer ---- */

/* A model job whose iterations need more than 146 years: it is not reported
 * completed at the limit; the run ends with the limit's range error naming
 * the job (and with sim.end it is simply unfinished). */
static void test_model_job_past_146_years_is_a_range_error_naming_it(void **state)
{
    (void)state;
    static const char yaml[] = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                               "workload: {source: inline, jobs: [{gpus: 8, duration: 1h},\n"
                               "  {gpus: 8, model: {base: llama3-8b, tp: 8}, iterations: 1e15}]}\n";
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&doc, "long.yaml", yaml, strlen(yaml), &err), 0);
    assert_int_equal(wk_run_prepare(&run, doc, NULL, &err), 0);
    int rc = wk_run_execute(run, &err);
    if (rc != WK_E_RANGE || !strstr(err.msg, "146 years") || !strstr(err.msg, "job 1 (model llama3-8b, 8 GPUs)"))
        fail_msg("rc %d: %s", rc, err.msg);
    wk_run_free(run);
    wk_doc_free(doc);
    TestRun t;
    char cut[512];
    snprintf(cut, sizeof cut, "sim: {end: 100d}\n%s", yaml);
    test_run_yaml(&t, cut, NULL);
    assert_true(test_metric(&t, "jobs_completed") == 1);
    assert_true(test_metric(&t, "jobs_unfinished") == 1);
    test_run_free(&t);
}

/* UTF-16 and UTF-32 (with or without a byte-order mark) are refused as an
 * encoding error at 1:1; a UTF-8 byte-order mark is fine. */
static void test_utf16_and_utf32_scenarios_are_refused(void **state)
{
    (void)state;
    static const char u16be[] = "\xfe\xff\0c\0l\0u\0s";
    static const char u16le[] = "\xff\xfe" "c\0l\0u\0s\0";
    static const char u16nobom[] = "c\0l\0u\0s\0t\0";
    static const char u32le[] = "\xff\xfe\0\0" "c\0\0\0";
    static const char u32be[] = "\0\0\xfe\xff\0\0\0c";
    const struct { const char *t; size_t n; const char *what; } cases[] = {
        {u16be, sizeof u16be - 1, "UTF-16"}, {u16le, sizeof u16le - 1, "UTF-16"},
        {u16nobom, sizeof u16nobom - 1, "UTF-16 or UTF-32"}, {u32le, sizeof u32le - 1, "UTF-32"},
        {u32be, sizeof u32be - 1, "UTF-32"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        WkError err;
        int rc = prepare_bytes(cases[i].t, cases[i].n, &err);
        if (rc != WK_E_INVAL || !strstr(err.msg, cases[i].what) || !strstr(err.msg, "must be UTF-8") ||
            strcmp(err.where, "bad.yaml:1:1") != 0)
            fail_msg("case %zu: rc %d: %s: %s", i, rc, err.where, err.msg);
    }
    static const char bom8[] = "\xef\xbb\xbf" CLUSTER JOBS("");
    WkError err;
    assert_int_equal(prepare_bytes(bom8, sizeof bom8 - 1, &err), 0);
}

/* A FIFO (or any non-regular file) as a scenario is refused at once instead
 * of blocking until a writer comes (alarm: a hang fails the test). */
static void test_fifo_scenario_is_refused_without_blocking(void **state)
{
    (void)state;
    char dir[] = "/tmp/wk-fifo-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f.yaml", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(20);
    WkDoc *doc = NULL;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_doc_load_file(&doc, path, &err);
    alarm(0);
    unlink(path);
    rmdir(dir);
    if (rc != WK_E_IO || !strstr(err.msg, "not a regular file (a FIFO)"))
        fail_msg("rc %d: %s: %s", rc, err.where, err.msg);
    assert_null(doc);
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_file(&doc, "/tmp", &err), WK_E_IO);
    assert_non_null(strstr(err.msg, "a directory"));
}

typedef struct {
    char dir[64];
    char csv[128];
    char yaml[256];
} Tmp;

static int tmp_setup(void **state)
{
    Tmp *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    snprintf(t->dir, sizeof t->dir, "/tmp/wk-hostile-XXXXXX");
    if (!mkdtemp(t->dir))
        return -1;
    snprintf(t->csv, sizeof t->csv, "%s/t.csv", t->dir);
    snprintf(t->yaml, sizeof t->yaml, CLUSTER "workload: {source: philly, trace: \"%s\"}\n", t->csv);
    *state = t;
    return 0;
}

static int tmp_teardown(void **state)
{
    Tmp *t = *state;
    unlink(t->csv);
    char p[160];
    snprintf(p, sizeof p, "%s/t.h5", t->dir);
    unlink(p);
    rmdir(t->dir);
    free(t);
    return 0;
}

/* Write len bytes of CSV and prepare the scenario reading it. */
static int csv_prepare(const Tmp *t, const char *csv, size_t len, WkError *err)
{
    FILE *f = fopen(t->csv, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(csv, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return test_prepare_yaml(t->yaml, err);
}

static void expect_csv_refused(const Tmp *t, const char *csv, int code, const char *where, const char *needle)
{
    WkError err;
    int rc = csv_prepare(t, csv, strlen(csv), &err);
    if (rc != code || !strstr(err.where, where) || !strstr(err.msg, needle))
        fail_msg("%s\n→ code %d (want %d): %s: %s (want %s: %s)", csv, rc, code, err.where, err.msg, where, needle);
}

#define HDR "timestamp,duration,num_gpus,gpu_time,cluster\n"
#define ROW "2017-10-09 07:01:55,66.0,1,66.0,a\n"

static void test_csv_missing_columns_are_refused(void **state)
{
    const Tmp *t = *state;
    expect_csv_refused(t, "timestamp,num_gpus\n2017-10-09 07:01:55,1\n", WK_E_INVAL, "t.csv:1",
                       "duration: missing column");
    expect_csv_refused(t, "duration,num_gpus\n", WK_E_INVAL, "t.csv:1", "timestamp: missing column");
    expect_csv_refused(t, "", WK_E_INVAL, "t.csv", "empty trace file");
    expect_csv_refused(t, HDR ROW "2017-10-09 07:01:55,66.0,1\n", WK_E_INVAL, "t.csv:3", "expected 5 fields, got 3");
    expect_csv_refused(t, HDR ROW ROW "2017-10-09 07:01:55,66.0,1,66.0,a,extra\n", WK_E_INVAL, "t.csv:4",
                       "expected 5 fields, got 6");
}

static void test_csv_wrong_types_are_refused_with_the_line(void **state)
{
    const Tmp *t = *state;
    expect_csv_refused(t, HDR ROW "2017-10-09 07:01:55,66.0,eight,66.0,a\n", WK_E_INVAL, "t.csv:3", "num_gpus:");
    expect_csv_refused(t, HDR ROW "2017-10-09 07:01:55,66.0,1.5,66.0,a\n", WK_E_INVAL, "t.csv:3", "num_gpus:");
    expect_csv_refused(t, HDR ROW "2017-10-09 07:01:55,66.0,0,66.0,a\n", WK_E_INVAL, "t.csv:3", "num_gpus:");
    expect_csv_refused(t, HDR ROW "2017-10-09 07:01:55,66.0,99999999999,66.0,a\n", WK_E_INVAL, "t.csv:3", "num_gpus:");
    expect_csv_refused(t, HDR "2017-10-09 07:01:55,1h,1,66.0,a\n", WK_E_INVAL, "t.csv:2", "duration:");
    expect_csv_refused(t, HDR "2017-10-09 07:01:55,nan,1,66.0,a\n", WK_E_INVAL, "t.csv:2", "duration:");
    expect_csv_refused(t, HDR "2017-10-09 07:01:55,inf,1,66.0,a\n", WK_E_INVAL, "t.csv:2", "duration:");
    expect_csv_refused(t, HDR "2017-10-09 07:01:55,-5,1,66.0,a\n", WK_E_INVAL, "t.csv:2", "duration:");
    expect_csv_refused(t, HDR "2017-10-09 07:01:55,1e10,1,66.0,a\n", WK_E_INVAL, "t.csv:2", "(73 years)");
    expect_csv_refused(t, HDR "yesterday,66.0,1,66.0,a\n", WK_E_INVAL, "t.csv:2", "timestamp:");
    expect_csv_refused(t, HDR "2017-02-30 07:01:55,66.0,1,66.0,a\n", WK_E_INVAL, "t.csv:2", "timestamp:");
    /* binary bytes and NULs inside a row */
    WkError err;
    static const char bin[] = HDR "2017-10-09 07:01:55,6\0006,1,66.0,a\n\xff\xfe\n";
    assert_int_equal(csv_prepare(t, bin, sizeof bin - 1, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "duration:"));
}

/* Fuzz finding (fuzz_csv, UBSan): timestamps 2,000 years apart overflowed
 * the nanosecond submit times (signed overflow in philly.c). Now refused. */
/* The quirks of CSV files met in the wild: a UTF-8 byte-order mark and blank
 * lines before the header are skipped; dates that do not exist and durations
 * that are not plain decimal are refused with line and column; a FIFO as the
 * trace is refused without blocking. */
static void test_csv_quirks(void **state)
{
    const Tmp *t = *state;
    WkError err;
    static const char bom[] = "\xef\xbb\xbf" HDR ROW;
    assert_int_equal(csv_prepare(t, bom, sizeof bom - 1, &err), 0);
    static const char blank[] = "\n\r\n" HDR ROW;
    assert_int_equal(csv_prepare(t, blank, sizeof blank - 1, &err), 0);
    expect_csv_refused(t, "\n\nduration,num_gpus\n", WK_E_INVAL, "t.csv:3", "timestamp: missing column");
    expect_csv_refused(t, "\n\n", WK_E_INVAL, "t.csv", "empty trace file");
    expect_csv_refused(t, HDR "2017-02-29 07:01:55,66.0,1,66.0,a\n", WK_E_INVAL, "t.csv:2:1", "that exists");
    expect_csv_refused(t, HDR "1900-02-29 07:01:55,66.0,1,66.0,a\n", WK_E_INVAL, "t.csv:2:1", "that exists");
    expect_csv_refused(t, HDR "2017-04-31 07:01:55,66.0,1,66.0,a\n", WK_E_INVAL, "t.csv:2:1", "that exists");
    static const char leap[] = HDR "2016-02-29 07:01:55,66.0,1,66.0,a\n2000-02-29 07:01:55,66.0,1,66.0,a\n";
    assert_int_equal(csv_prepare(t, leap, sizeof leap - 1, &err), 0);
    expect_csv_refused(t, HDR "2017-10-09 07:01:55,0x10,1,66.0,a\n", WK_E_INVAL, "t.csv:2:21", "decimal seconds");
    expect_csv_refused(t, HDR "2017-10-09 07:01:55,0x1p4,1,66.0,a\n", WK_E_INVAL, "t.csv:2:21", "duration:");
    expect_csv_refused(t, HDR "2017-10-09 07:01:55,66.0,0x8,66.0,a\n", WK_E_INVAL, "t.csv:2:26", "num_gpus:");
    static const char expo[] = HDR "2017-10-09 07:01:55,1.5e2,1,66.0,a\n";
    assert_int_equal(csv_prepare(t, expo, sizeof expo - 1, &err), 0);
    unlink(t->csv);
    assert_int_equal(mkfifo(t->csv, 0600), 0);
    alarm(20);
    int rc = test_prepare_yaml(t->yaml, &err);
    alarm(0);
    if (rc != WK_E_IO || !strstr(err.msg, "not a regular file (a FIFO)"))
        fail_msg("FIFO trace: rc %d: %s: %s", rc, err.where, err.msg);
}

static void test_csv_timestamps_spanning_centuries_are_refused(void **state)
{
    const Tmp *t = *state;
    expect_csv_refused(t, HDR "0001-01-01 00:00:00,1,1,1,a\n" ROW, WK_E_RANGE, "t.csv:3",
                       "submit times span more than 73 years (line 2 to line 3");
    expect_csv_refused(t, HDR ROW "9999-12-31 23:59:59,1,1,1,a\n", WK_E_RANGE, "t.csv:3", "span more than 73 years");
    /* 70 years apart is within the limit */
    WkError err;
    const char *ok = HDR "1950-01-01 00:00:00,1,1,1,a\n2019-12-31 00:00:00,1,1,1,a\n";
    assert_int_equal(csv_prepare(t, ok, strlen(ok), &err), 0);
}

/* ---- interrupts (SIGINT/SIGTERM in the CLI) ---- */

static const char *const busy_yaml =
    "name: busy\nseed: 3\ncluster: {nodes: 8, gpus_per_node: 8}\n"
    "workload: {source: synthetic, jobs: 100000, interarrival: 10s, duration: {dist: exponential, mean: 1h},"
    " gpus: [{gpus: 1, weight: 3}, {gpus: 8, weight: 1}]}\n";

static void raise_at_65536(void *user, WkTime now, uint64_t events)
{
    (void)now;
    if (events == 65536)
        *(volatile sig_atomic_t *)user = SIGINT;
}

static void test_interrupt_stops_the_run_after_the_current_event(void **state)
{
    (void)state;
    volatile sig_atomic_t flag = 0;
    WkRunOpts o = {.progress = raise_at_65536, .progress_user = (void *)&flag, .interrupt = &flag};
    TestRun t;
    test_run_yaml(&t, busy_yaml, &o);
    assert_int_equal(wk_run_interrupted(t.run), 1);
    assert_true(test_metric(&t, "events") == 65536); /* not one event more */
    assert_true(test_metric(&t, "jobs_unfinished") > 0);
    double sim_s = test_metric(&t, "simulated_s");
    assert_true(sim_s > 0 && sim_s < 100000 * 10.0);
    /* conservation holds up to the stop */
    WkRunAccount a;
    wk_run_account(t.run, &a);
    assert_true(a.end_ns > 0);
    test_run_free(&t);

    /* a flag raised before the run: not a single event */
    flag = SIGTERM;
    TestRun u;
    test_run_yaml(&u, busy_yaml, &o);
    assert_int_equal(wk_run_interrupted(u.run), 1);
    assert_true(test_metric(&u, "events") == 0);
    test_run_free(&u);

    /* no flag: a complete run */
    TestRun v;
    test_run_yaml(&v, "cluster: {nodes: 1}\n" JOBS("{gpus: 1, duration: 1h}"), NULL);
    assert_int_equal(wk_run_interrupted(v.run), 0);
    test_run_free(&v);
}

static int64_t trace_complete(const char *path)
{
    WkTraceRead *r = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_open(&r, path, &err), 0);
    int64_t v = -1;
    assert_int_equal(wk_trace_read_attr_i64(r, "complete", &v, &err), 0);
    wk_trace_read_close(r);
    return v;
}

static void test_trace_of_an_interrupted_run_says_complete_0(void **state)
{
    const Tmp *tmp = *state;
    char path[160];
    snprintf(path, sizeof path, "%s/t.h5", tmp->dir);
    volatile sig_atomic_t flag = 0;
    WkRunOpts o = {.progress = raise_at_65536, .progress_user = (void *)&flag, .interrupt = &flag};
    TestRun t;
    test_run_yaml(&t, busy_yaml, &o);
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_run_write_trace(t.run, path, &err), 0);
    assert_int_equal(trace_complete(path), 0);
    test_run_free(&t);

    TestRun u;
    test_run_yaml(&u, "cluster: {nodes: 1}\n" JOBS("{gpus: 1, duration: 1h}"), NULL);
    assert_int_equal(wk_run_write_trace(u.run, path, &err), 0);
    assert_int_equal(trace_complete(path), 1);
    test_run_free(&u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_file_is_refused_naming_what_is_missing),
        cmocka_unit_test(test_non_utf8_bytes_are_refused_as_an_encoding_error),
        cmocka_unit_test(test_billion_laughs_is_refused_at_the_first_anchor),
        cmocka_unit_test(test_deep_nesting_is_refused_not_recursed),
        cmocka_unit_test(test_duplicate_keys_are_refused_with_both_lines),
        cmocka_unit_test(test_gpu_counts_past_the_limit_are_range_errors),
        cmocka_unit_test(test_durations_near_2_63_ns_are_range_errors),
        cmocka_unit_test(test_nan_and_inf_are_refused),
        cmocka_unit_test(test_negative_durations_are_refused),
        cmocka_unit_test(test_jobs_past_the_workload_limit_are_refused),
        cmocka_unit_test(test_run_past_146_years_is_a_range_error),
        cmocka_unit_test(test_model_job_past_146_years_is_a_range_error_naming_it),
        cmocka_unit_test(test_utf16_and_utf32_scenarios_are_refused),
        cmocka_unit_test(test_fifo_scenario_is_refused_without_blocking),
        cmocka_unit_test(test_sample_rows_past_the_limit_are_a_range_error),
        cmocka_unit_test_setup_teardown(test_csv_missing_columns_are_refused, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_csv_wrong_types_are_refused_with_the_line, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_csv_timestamps_spanning_centuries_are_refused, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_csv_quirks, tmp_setup, tmp_teardown),
        cmocka_unit_test(test_interrupt_stops_the_run_after_the_current_event),
        cmocka_unit_test_setup_teardown(test_trace_of_an_interrupted_run_says_complete_0, tmp_setup, tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
