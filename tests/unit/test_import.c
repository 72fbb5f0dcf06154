/* SPDX-License-Identifier: Apache-2.0 */
/* test_import.c — trace importers on small hand-written inputs: the Standard
 * Workload Format (all 18 fields, header comments, skipped jobs, processors
 * per GPU, every error class with file:line:column) and Alibaba's GPU pod
 * list (skipped pods, fractional GPUs as a share of one GPU, errors), and the generic
 * CSV mapping (units, dates, Slurm durations, quotes, skipped rows, every
 * error with file:line:column and the mapped key). */
#include "tests/unit/testutil.h"

#include <unistd.h>

#include "models/workload/csv.h"
#include "models/workload/workload.h"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir_make(tmpdir, sizeof tmpdir, "imp");
}

static int teardown(void **state)
{
    (void)state;
    return test_tmpdir_remove(tmpdir);
}

static const char *write_file(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int load_section(const char *yaml, WkWorkload *w, WkError *err)
{
    WkDoc *doc = NULL;
    wk_error_clear(err);
    int rc = wk_doc_load_string(&doc, "wl.yaml", yaml, strlen(yaml), err);
    assert_int_equal(rc, 0);
    WkWorkloadCtx ctx = {.base_dir = tmpdir, .seed = 11};
    rc = wk_workload_load(wk_node_get(doc->root, "workload"), &ctx, w, err);
    wk_doc_free(doc);
    return rc;
}

#define SWF_HDR "; Version: 2.2\n; MaxNodes: 4\n; MaxProcs: 32\n; UnixStartTime: 1514764800\n;\n"

static void test_swf_jobs_fields_users_and_skipped_records(void **state)
{
    (void)state;
    write_file("ok.swf", "\xEF\xBB\xBF" SWF_HDR
                         "1 100 5 60 8 50.5 -1 8 120 -1 1 3 1 1 1 1 -1 -1\r\n"
                         "\n"
                         "  2\t40  0 3600.5 -1 -1 -1 3 7200 -1 0 7 2 2 1 1 -1 -1\n"
                         "; a comment between jobs\n"
                         "3 50 -1 -1 -1 -1 -1 16 600 -1 5 3 1 1 1 1 -1 -1\n"
                         "4 40 0 0 32 -1 -1 32 60 -1 1 -1 -1 -1 -1 -1 2 30");
    WkWorkload w;
    WkError err;
    int rc = load_section("workload: {source: swf, trace: ok.swf}\n", &w, &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.msg);
    assert_int_equal(w.n, 3); /* job 3 never ran (run time -1) */
    assert_int_equal(w.jobs[0].submit, 60 * WK_NS_PER_S); /* from the earliest submit, 40 */
    assert_int_equal(w.jobs[0].gpus, 8);
    assert_int_equal(w.jobs[0].duration, 60 * WK_NS_PER_S);
    assert_int_equal(w.jobs[1].submit, 0);
    assert_int_equal(w.jobs[1].gpus, 3); /* requested, as allocated is -1 */
    assert_int_equal(w.jobs[1].duration, 3600 * WK_NS_PER_S + WK_NS_PER_S / 2);
    assert_int_equal(w.jobs[2].duration, 1); /* run time 0: the clock's smallest step */
    assert_int_equal(w.jobs[2].gpus, 32);
    assert_int_equal(w.nusers, 2);
    assert_string_equal(w.users[w.jobs[0].user - 1], "u3");
    assert_string_equal(w.users[w.jobs[1].user - 1], "u7");
    assert_int_equal(w.jobs[2].user, 0); /* user ID -1: no user */
    wk_workload_fini(&w);
}

static void test_swf_procs_per_gpu_rounds_up(void **state)
{
    (void)state;
    write_file("ppg.swf", "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n"
                          "2 0 0 10 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1\n"
                          "3 0 0 10 5 -1 -1 5 -1 -1 1 1 1 1 1 1 -1 -1\n");
    WkWorkload w;
    WkError err;
    assert_int_equal(load_section("workload: {source: swf, trace: ppg.swf, procs_per_gpu: 4}\n", &w, &err), 0);
    assert_int_equal(w.jobs[0].gpus, 1);
    assert_int_equal(w.jobs[1].gpus, 1);
    assert_int_equal(w.jobs[2].gpus, 2);
    wk_workload_fini(&w);
    assert_int_equal(load_section("workload: {source: swf, trace: ppg.swf, procs_per_gpu: 0}\n", &w, &err), WK_E_RANGE);
    assert_non_null(strstr(err.where, "wl.yaml:1:"));
}

static void expect_swf_error(const char *body, long line, long col, const char *fragment)
{
    const char *path = write_file("bad.swf", body);
    WkWorkload w;
    WkError err;
    int rc = load_section("workload: {source: swf, trace: bad.swf}\n", &w, &err);
    assert_int_equal(rc, WK_E_INVAL);
    char where[256];
    if (col)
        snprintf(where, sizeof where, "%s:%ld:%ld", path, line, col);
    else if (line)
        snprintf(where, sizeof where, "%s:%ld", path, line);
    else
        snprintf(where, sizeof where, "%s", path);
    if (strcmp(err.where, where) != 0 || !strstr(err.msg, fragment))
        fail_msg("got '%s: %s', want '%s: ...%s...'", err.where, err.msg, where, fragment);
    assert_int_equal(w.n, 0);
}

static void test_swf_bad_rows_name_file_line_and_column(void **state)
{
    (void)state;
    const char *ok = "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%s2 0 0 10 x -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n", ok);
    expect_swf_error(buf, 2, 10, "field 5 (allocated processors): expected an integer");
    snprintf(buf, sizeof buf, "%s2 0 0 nan 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n", ok);
    expect_swf_error(buf, 2, 7, "field 4 (run time): expected a decimal number");
    snprintf(buf, sizeof buf, "%s2 0 0 -5 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n", ok);
    expect_swf_error(buf, 2, 7, "field 4 (run time)");
    snprintf(buf, sizeof buf, "%s2 0 0 10 1 -1 -1 1 -1 -1 9 1 1 1 1 1 -1 -1\n", ok);
    expect_swf_error(buf, 2, 26, "field 11 (status): expected -1 or 0 to 5");
    snprintf(buf, sizeof buf, "%s2 0 0 10 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1 7\n", ok);
    expect_swf_error(buf, 2, 0, "row: expected 18 fields, got 19");
    snprintf(buf, sizeof buf, "%s2 -1 0 10 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n", ok);
    expect_swf_error(buf, 2, 3, "field 2 (submit time)");
    snprintf(buf, sizeof buf, "; MaxProcs: 8\n%s2 0 0 10 9 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n", ok);
    expect_swf_error(buf, 3, 10, "more than the header's MaxProcs 8 (line 1)");
    expect_swf_error("; MaxProcs: lots\n", 1, 13, "header MaxProcs: expected an integer");
    expect_swf_error("; UnixStartTime: 12 34\n", 1, 18, "header UnixStartTime");
    expect_swf_error("; only comments\n\n", 0, 0, "no job that ran (0 records");
    expect_swf_error("1 0 0 -1 1 -1 -1 1 -1 -1 5 1 1 1 1 1 -1 -1\n", 0, 0, "no job that ran (1 records, 1 skipped");
}

static void test_swf_missing_file_is_an_io_error_naming_it(void **state)
{
    (void)state;
    WkWorkload w;
    WkError err;
    assert_int_equal(load_section("workload: {source: swf, trace: nope.swf}\n", &w, &err), WK_E_IO);
    assert_non_null(strstr(err.where, "nope.swf"));
}

static void test_alibaba_pods_become_jobs_fractions_take_a_whole_gpu(void **state)
{
    (void)state;
    write_file("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                           "deletion_time,scheduled_time\r\n"
                           "p0,12000,16384,1,460,,LS,Running,100,1100,150\r\n"
                           "p1,8000,1024,0,0,,BE,Succeeded,50,60,50\r\n"    /* no GPU: skipped */
                           "p2,8000,1024,8,1000,V100M32,LS,Failed,70,90,80\r\n"
                           "p3,8000,1024,2,1000,,LS,Pending,60,99,\r\n"     /* never scheduled: skipped */
                           "p4,8000,1024,4,1000,,BE,Succeeded,80,80,80\r\n");
    WkWorkload w;
    WkError err;
    int rc = load_section("workload: {source: alibaba, trace: pods.csv}\n", &w, &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.msg);
    assert_int_equal(w.n, 3);
    assert_int_equal(w.jobs[0].gpus, 1); /* 460 thousandths: one GPU, its share kept for GPU sharing */
    assert_int_equal(w.jobs[0].gpu_milli, 460);
    assert_int_equal(w.jobs[1].gpu_milli, 0); /* whole GPUs */
    assert_int_equal(w.gpu_sharing, 0);      /* off unless asked */
    assert_int_equal(w.jobs[0].submit, 30 * WK_NS_PER_S); /* from the earliest creation of a kept pod, 70 */
    assert_int_equal(w.jobs[0].duration, 950 * WK_NS_PER_S); /* scheduled to deleted */
    assert_int_equal(w.jobs[1].gpus, 8);
    assert_int_equal(w.jobs[1].submit, 0);
    assert_int_equal(w.jobs[1].duration, 10 * WK_NS_PER_S);
    assert_int_equal(w.jobs[2].gpus, 4);
    assert_int_equal(w.jobs[2].duration, 1);
    wk_workload_fini(&w);
}

static void expect_pods_error(const char *body, long line, long col, const char *fragment)
{
    const char *path = write_file("bad.csv", body);
    WkWorkload w;
    WkError err;
    assert_int_equal(load_section("workload: {source: alibaba, trace: bad.csv}\n", &w, &err), WK_E_INVAL);
    char where[256];
    if (col)
        snprintf(where, sizeof where, "%s:%ld:%ld", path, line, col);
    else
        snprintf(where, sizeof where, "%s:%ld", path, line);
    if (strcmp(err.where, where) != 0 || !strstr(err.msg, fragment))
        fail_msg("got '%s: %s', want '%s: ...%s...'", err.where, err.msg, where, fragment);
    assert_int_equal(w.n, 0);
}

static void test_alibaba_bad_rows_name_file_line_and_column(void **state)
{
    (void)state;
    const char *h = "name,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%sp0,1,1000,0,10,0\np1,1.5,1000,0,10,0\n", h);
    expect_pods_error(buf, 3, 4, "num_gpu: expected an integer >= 0");
    snprintf(buf, sizeof buf, "%sp0,1,1500,0,10,0\n", h);
    expect_pods_error(buf, 2, 6, "gpu_milli: expected thousandths of a GPU");
    snprintf(buf, sizeof buf, "%sp0,1,1000,20,30,10\n", h);
    expect_pods_error(buf, 2, 17, "scheduled_time: before creation_time");
    snprintf(buf, sizeof buf, "%sp0,1,1000,0,-1,0\n", h);
    expect_pods_error(buf, 2, 13, "deletion_time: expected an integer");
    snprintf(buf, sizeof buf, "%sp0,1,1000,0,10\n", h);
    expect_pods_error(buf, 2, 0, "row: expected 6 fields, got 5");
    expect_pods_error("name,num_gpu,creation_time,deletion_time,scheduled_time\n", 1, 0, "gpu_milli: missing column");
}


static void test_csv_mapping_units_dates_quotes_and_skips(void **state)
{
    (void)state;
    write_file("jobs.csv", "\xEF\xBB\xBFid;who;name;g;sub;st;en\r\n"
                           "a;alice;\"x;y\";4;2020-02-28T23:59:30.5;2020-02-29T00:00:00;2020-02-29T01:00:00\r\n"
                           "b;bob;cpu;0;2020-02-28T23:00:00.0;2020-02-28T23:00:00;2020-02-28T23:00:10\r\n" /* no GPU */
                           "c;;\"q\"\"d\";2;2020-02-28T23:00:00;;2020-02-28T23:10:00\r\n" /* never started */
                           "\r\n"
                           "d;bob;z;8;2020-02-28T23:59:00.0;2020-03-01T00:00:00;2020-03-02T00:00:00\r\n");
    WkWorkload w;
    WkError err;
    int rc = load_section("workload:\n"
                          "  source: csv\n  trace: jobs.csv\n  delimiter: ';'\n"
                          "  submit: {column: sub, unit: datetime, format: '%Y-%m-%dT%H:%M:%S.%f'}\n"
                          "  start: {column: st, unit: datetime, format: '%Y-%m-%dT%H:%M:%S'}\n"
                          "  end: {column: en, unit: datetime, format: '%Y-%m-%dT%H:%M:%S'}\n"
                          "  gpus: g\n  user: who\n  skip: [no_gpus, missing]\n",
                          &w, &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.msg);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.jobs[0].gpus, 4);
    assert_int_equal(w.jobs[0].duration, 3600 * WK_NS_PER_S); /* end - start */
    assert_int_equal(w.jobs[0].submit, 30500 * WK_NS_PER_MS); /* from the earliest submit, d's */
    assert_int_equal(w.jobs[1].submit, 0);
    assert_int_equal(w.jobs[1].duration, 86400 * WK_NS_PER_S); /* 2020 is a leap year: Feb 29 exists */
    assert_int_equal(w.nusers, 2);
    assert_string_equal(w.users[w.jobs[0].user - 1], "alice");
    assert_string_equal(w.users[w.jobs[1].user - 1], "bob");
    wk_workload_fini(&w);

    /* Slurm-like: '|', elapsed [D-]HH:MM:SS, times in ms, kind and priority */
    write_file("sacct.txt", "JobID|Submit|Elapsed|NGPU|Kind|Prio\n"
                            "1|1000|1-02:03:04|8|hpc|5\n"
                            "2|1500|03:04|1||\n"
                            "3|500|7|2|ai|-3\n");
    rc = load_section("workload: {source: csv, trace: sacct.txt, delimiter: '|', submit: {column: Submit, unit: ms},"
                      " duration: {column: Elapsed, unit: hms}, gpus: NGPU, kind: Kind, priority: Prio}\n",
                      &w, &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.msg);
    assert_int_equal(w.n, 3);
    assert_int_equal(w.jobs[0].duration, (86400 + 2 * 3600 + 3 * 60 + 4) * WK_NS_PER_S);
    assert_int_equal(w.jobs[0].submit, 500 * WK_NS_PER_MS);
    assert_int_equal(w.jobs[0].kind, WK_JOB_HPC);
    assert_int_equal(w.jobs[0].priority, 5);
    assert_int_equal(w.jobs[1].duration, 184 * WK_NS_PER_S);
    assert_int_equal(w.jobs[1].kind, WK_JOB_AI);
    assert_int_equal(w.jobs[2].duration, 7 * WK_NS_PER_S);
    assert_int_equal(w.jobs[2].priority, -3);
    assert_int_equal(w.jobs[2].submit, 0);
    wk_workload_fini(&w);

    /* end without start: the time from submit to end; minutes */
    write_file("min.csv", "s,e,g\n0,90,1\n30,31.5,2\n");
    rc = load_section("workload: {source: csv, trace: min.csv, submit: {column: s, unit: min},"
                      " end: {column: e, unit: min}, gpus: g}\n", &w, &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.msg);
    assert_int_equal(w.jobs[0].duration, 90 * WK_NS_PER_MIN);
    assert_int_equal(w.jobs[1].duration, 90 * WK_NS_PER_S);
    assert_int_equal(w.jobs[1].submit, 30 * WK_NS_PER_MIN);
    wk_workload_fini(&w);
}

#define CSV_MAP "workload: {source: csv, trace: bad.csv, submit: {column: t, unit: datetime}, duration: d, gpus: g, user: u}\n"

static void expect_csv_error(const char *body, long line, long col, const char *fragment)
{
    const char *path = write_file("bad.csv", body);
    WkWorkload w;
    WkError err;
    assert_true(load_section(CSV_MAP, &w, &err) < 0);
    char where[256];
    if (col)
        snprintf(where, sizeof where, "%s:%ld:%ld", path, line, col);
    else if (line)
        snprintf(where, sizeof where, "%s:%ld", path, line);
    else
        snprintf(where, sizeof where, "%s", path);
    if (strcmp(err.where, where) != 0 || !strstr(err.msg, fragment))
        fail_msg("got '%s: %s', want '%s: ...%s...'", err.where, err.msg, where, fragment);
    assert_int_equal(w.n, 0);
}

static void expect_map_error(const char *yaml, const char *where, const char *fragment)
{
    write_file("ok.csv", "t,d,g\n1,2,3\n");
    WkWorkload w;
    WkError err;
    assert_int_equal(load_section(yaml, &w, &err), WK_E_INVAL);
    if (strcmp(err.where, where) != 0 || !strstr(err.msg, fragment))
        fail_msg("got '%s: %s', want '%s: ...%s...'", err.where, err.msg, where, fragment);
}

static void test_csv_bad_rows_and_mappings_name_position_and_key(void **state)
{
    (void)state;
    const char *h = "u,t,d,g\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%sx,2020-01-01 00:00:00,5,1\nx,2020-02-30 00:00:00,5,1\n", h);
    expect_csv_error(buf, 3, 3, "column 't' (submit): expected a date and time as '%Y-%m-%d %H:%M:%S'");
    snprintf(buf, sizeof buf, "%sx,2020-01-01 00:00:00,0x10,1\n", h);
    expect_csv_error(buf, 2, 23, "column 'd' (duration): expected a decimal number of s");
    snprintf(buf, sizeof buf, "%sx,2020-01-01 00:00:00,-5,1\n", h);
    expect_csv_error(buf, 2, 23, "column 'd' (duration): a negative duration");
    snprintf(buf, sizeof buf, "%sx,2020-01-01 00:00:00,5,1.5\n", h);
    expect_csv_error(buf, 2, 25, "column 'g' (gpus): expected an integer");
    snprintf(buf, sizeof buf, "%sx,2020-01-01 00:00:00,5,0\n", h);
    expect_csv_error(buf, 2, 25, "add 'skip: [no_gpus]'");
    snprintf(buf, sizeof buf, "%sx,2020-01-01 00:00:00,,1\n", h);
    expect_csv_error(buf, 2, 23, "column 'd' (duration): empty (add 'skip: [missing]'");
    snprintf(buf, sizeof buf, "%sa b,2020-01-01 00:00:00,5,1\n", h);
    expect_csv_error(buf, 2, 1, "column 'u' (user): a user name is 1-30 letters");
    snprintf(buf, sizeof buf, "%sx,2020-01-01 00:00:00,5\n", h);
    expect_csv_error(buf, 2, 0, "row: expected 4 fields, got 3");
    snprintf(buf, sizeof buf, "%s\"x,2020-01-01 00:00:00,5,1\n", h);
    expect_csv_error(buf, 2, 0, "row: a quoted field is not closed");
    snprintf(buf, sizeof buf, "%s\"x\",\"2020-01-01 00:00:0x\",5,1\n", h);
    expect_csv_error(buf, 2, 6, "column 't' (submit)"); /* inside the quotes */
    expect_csv_error("u,t,gpus\n", 1, 0, "duration: column 'd' is not in the header (columns: u, t, gpus)");
    expect_csv_error("\n\n", 0, 0, "empty trace file");
    expect_csv_error("u,t,d,g\n", 0, 0, "no job in the trace");
    snprintf(buf, sizeof buf, "%sx,1900-01-01 00:00:00,5,1\nx,2000-01-01 00:00:00,5,1\n", h);
    expect_csv_error(buf, 0, 0, "t: submit times span more than 73 years");

    expect_map_error("workload: {source: csv, trace: ok.csv, duration: d, gpus: g}\n", "wl.yaml:1:11",
                     "missing required key 'submit'");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: t, gpus: g}\n", "wl.yaml:1:11",
                     "give either 'duration' or 'end'");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: t, duration: d, end: d, gpus: g}\n",
                     "wl.yaml:1:69", "not both");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: t, duration: d, start: t, gpus: g}\n",
                     "wl.yaml:1:71", "'start' goes with 'end'");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: {column: t, unit: hms}, duration: d, gpus: g}\n",
                     "wl.yaml:1:66", "hms is for durations");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: t, duration: {column: d, unit: datetime}, gpus: g}\n",
                     "wl.yaml:1:79", "a duration has no date");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: {column: t, unit: datetime, format: '%Y%j'}, duration: d, gpus: g}\n",
                     "wl.yaml:1:84", "unknown conversion '%j'");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: t, duration: d, gpus: {column: g, unit: s}}\n",
                     "wl.yaml:1:88", "only submit, duration, start and end have a unit");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: t, duration: d, gpus: g, delimiter: ';;'}\n",
                     "wl.yaml:1:84", "expected one character");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: t, duration: d, gpus: g, skip: [cpu]}\n",
                     "wl.yaml:1:80", "expected no_gpus or missing");
    expect_map_error("workload: {source: csv, trace: ok.csv, submit: t, duration: d, gpus: g, colour: 1}\n",
                     "wl.yaml:1:73", "unknown key 'colour'");
}

static void test_csv_splitter_quotes_and_plain(void **state)
{
    (void)state;
    WkCsvField f[4];
    const char *row = "\"a,b\",,\"c\"\"d\"";
    assert_int_equal(wk_csv_split(row, row + strlen(row), ',', 1, f, 4), 3);
    assert_int_equal(f[0].len, 3);
    assert_memory_equal(f[0].p, "a,b", 3);
    assert_int_equal(f[1].len, 0);
    assert_int_equal(f[2].len, 4); /* a doubled quote stays two bytes */
    assert_int_equal(wk_csv_column(row, &f[2]), 9);
    assert_int_equal(wk_csv_split(row, row + strlen(row), ',', 0, f, 4), 4); /* quotes as plain bytes */
    const char *bad1 = "\"open", *bad2 = "\"x\"y,1";
    assert_int_equal(wk_csv_split(bad1, bad1 + strlen(bad1), ',', 1, f, 4), 0);
    assert_int_equal(wk_csv_split(bad2, bad2 + strlen(bad2), ',', 1, f, 4), 0);
    const char *many = "1,2,3,4,5,6";
    assert_int_equal(wk_csv_split(many, many + strlen(many), ',', 0, f, 4), 6); /* counted past max */
    assert_int_equal(wk_csv_days_from_civil(2000, 3, 1), 11017);
    assert_int_equal(wk_csv_month_days(1900, 2), 28);
    assert_int_equal(wk_csv_month_days(2000, 2), 29);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swf_jobs_fields_users_and_skipped_records),
        cmocka_unit_test(test_swf_procs_per_gpu_rounds_up),
        cmocka_unit_test(test_swf_bad_rows_name_file_line_and_column),
        cmocka_unit_test(test_swf_missing_file_is_an_io_error_naming_it),
        cmocka_unit_test(test_alibaba_pods_become_jobs_fractions_take_a_whole_gpu),
        cmocka_unit_test(test_alibaba_bad_rows_name_file_line_and_column),
        cmocka_unit_test(test_csv_mapping_units_dates_quotes_and_skips),
        cmocka_unit_test(test_csv_bad_rows_and_mappings_name_position_and_key),
        cmocka_unit_test(test_csv_splitter_quotes_and_plain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
