/* SPDX-License-Identifier: Apache-2.0 */
/* test_import.c — trace importers on small hand-written inputs: the Standard
 * Workload Format (all 18 fields, header comments, skipped jobs, processors
 * per GPU, every error class with file:line:column) and Alibaba's GPU pod
 * list (skipped pods, fractional GPUs rounded up, errors). */
#include "tests/unit/testutil.h"

#include <unistd.h>

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
    assert_int_equal(w.jobs[0].gpus, 1); /* 460 thousandths: one whole GPU */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swf_jobs_fields_users_and_skipped_records),
        cmocka_unit_test(test_swf_procs_per_gpu_rounds_up),
        cmocka_unit_test(test_swf_bad_rows_name_file_line_and_column),
        cmocka_unit_test(test_swf_missing_file_is_an_io_error_naming_it),
        cmocka_unit_test(test_alibaba_pods_become_jobs_fractions_take_a_whole_gpu),
        cmocka_unit_test(test_alibaba_bad_rows_name_file_line_and_column),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
