/* SPDX-License-Identifier: Apache-2.0 */
/* test_workload.c — workload sources: the Philly CSV importer (parsing,
 * rebasing, every error class with file:line and column), the synthetic
 * generator (stream independence, arrival rate), inline lists. */
#include "tests/unit/testutil.h"

#include <math.h>
#include <unistd.h>

#include "models/workload/workload.h"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    return test_tmpdir_make(tmpdir, sizeof tmpdir, "wl");
}

static int teardown(void **state)
{
    (void)state;
    return test_tmpdir_remove(tmpdir);
}

static const char *write_csv(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Load a workload section given as YAML. Returns the code; fills w and err. */
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

static void test_philly_rows_become_jobs_rebased_to_first_submit(void **state)
{
    (void)state;
    write_csv("ok.csv", "timestamp,duration,num_gpus,gpu_time,cluster\r\n"
                        "2017-10-09 07:01:55,66.0,1,66.0,11cb48\r\n"
                        "2017-10-09 06:13:03,2951.5,8,23612.0,6214e9\r\n"
                        "\r\n"
                        "2017-12-31 23:59:59,10,2,20,x\r\n"
                        "\n");
    WkWorkload w;
    WkError err;
    assert_int_equal(load_section("workload: {source: philly, trace: ok.csv}\n", &w, &err), 0);
    assert_int_equal(w.n, 3);
    /* the earliest submit (row 2) is time 0 */
    assert_int_equal(w.jobs[1].submit, 0);
    assert_int_equal(w.jobs[0].submit, (INT64_C(48) * 60 + 52) * WK_NS_PER_S);
    /* 2017-10-09 06:13:03 → 2017-12-31 23:59:59: 83 days 17:46:56 */
    assert_int_equal(w.jobs[2].submit, ((INT64_C(83) * 86400) + 17 * 3600 + 46 * 60 + 56) * WK_NS_PER_S);
    assert_int_equal(w.jobs[1].gpus, 8);
    assert_int_equal(w.jobs[1].duration, INT64_C(2951500000000));
    wk_workload_fini(&w);
}

static void test_philly_columns_are_found_by_header_name(void **state)
{
    (void)state;
    write_csv("reordered.csv", "cluster,num_gpus,duration,timestamp\n"
                               "a,4,100,2017-10-01 00:00:00\n");
    WkWorkload w;
    WkError err;
    assert_int_equal(load_section("workload: {source: philly, trace: reordered.csv}\n", &w, &err), 0);
    assert_int_equal(w.n, 1);
    assert_int_equal(w.jobs[0].gpus, 4);
    assert_int_equal(w.jobs[0].duration, 100 * WK_NS_PER_S);
    /* the virtual cluster is the job's user (docs/metrics.md, "Users") */
    assert_int_equal(w.nusers, 1);
    assert_string_equal(w.users[0], "a");
    assert_int_equal(w.jobs[0].user, 1);
    wk_workload_fini(&w);
    /* a `user` column wins over `cluster`; an empty field is no user */
    write_csv("users.csv", "cluster,user,num_gpus,duration,timestamp\n"
                           "vc1,alice,4,100,2017-10-01 00:00:00\n"
                           "vc1,,4,100,2017-10-01 00:00:00\n"
                           "vc2,bob,4,100,2017-10-01 00:00:00\n"
                           "vc2,alice,4,100,2017-10-01 00:00:00\n");
    assert_int_equal(load_section("workload: {source: philly, trace: users.csv}\n", &w, &err), 0);
    assert_int_equal(w.nusers, 2);
    assert_string_equal(w.users[1], "bob");
    assert_int_equal(w.jobs[0].user, 1);
    assert_int_equal(w.jobs[1].user, 0);
    assert_int_equal(w.jobs[2].user, 2);
    assert_int_equal(w.jobs[3].user, 1);
    wk_workload_fini(&w);
}

static void expect_csv_error(const char *body, long line, const char *fragment)
{
    const char *path = write_csv("bad.csv", body);
    WkWorkload w;
    WkError err;
    int rc = load_section("workload: {source: philly, trace: bad.csv}\n", &w, &err);
    assert_int_equal(rc, WK_E_INVAL);
    char where[256];
    snprintf(where, sizeof where, "%s:%ld", path, line);
    size_t wl = strlen(where); /* "file:line", and ":col" for a bad field */
    if (strncmp(err.where, where, wl) != 0 || (err.where[wl] != '\0' && err.where[wl] != ':') || !strstr(err.msg, fragment))
        fail_msg("got '%s: %s', want '%s: ...%s...'", err.where, err.msg, where, fragment);
    assert_int_equal(w.n, 0);
}

static void test_philly_malformed_rows_name_file_line_and_column(void **state)
{
    (void)state;
    const char *hdr = "timestamp,duration,num_gpus,gpu_time,cluster\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%s2017-10-09 07:01:55,66.0,1,66.0,a\n2017-13-09 07:01:55,66.0,1,66.0,a\n", hdr);
    expect_csv_error(buf, 3, "timestamp: expected 'YYYY-MM-DD HH:MM:SS'");
    snprintf(buf, sizeof buf, "%s2017-10-09 07:01:55,sixty,1,66.0,a\n", hdr);
    expect_csv_error(buf, 2, "duration:");
    snprintf(buf, sizeof buf, "%s2017-10-09 07:01:55,66.0,1,66.0,a.b\n", hdr);
    expect_csv_error(buf, 2, "cluster: a user name is 1-30 letters");
    snprintf(buf, sizeof buf, "%s2017-10-09 07:01:55,-5,1,66.0,a\n", hdr);
    expect_csv_error(buf, 2, "duration:");
    snprintf(buf, sizeof buf, "%s2017-10-09 07:01:55,5,0,66.0,a\n", hdr);
    expect_csv_error(buf, 2, "num_gpus:");
    snprintf(buf, sizeof buf, "%s2017-10-09 07:01:55,5,2.5,66.0,a\n", hdr);
    expect_csv_error(buf, 2, "num_gpus:");
    snprintf(buf, sizeof buf, "%s\n\n2017-10-09 07:01:55,5,1\n", hdr);
    expect_csv_error(buf, 4, "expected 5 fields, got 3");
    expect_csv_error("time,duration,num_gpus\n", 1, "timestamp: missing column");
}

static void test_philly_missing_file_is_an_io_error_naming_it(void **state)
{
    (void)state;
    WkWorkload w;
    WkError err;
    assert_int_equal(load_section("workload: {source: philly, trace: nope.csv}\n", &w, &err), WK_E_IO);
    assert_non_null(strstr(err.where, "nope.csv"));
    assert_non_null(strstr(err.msg, "No such file"));
}

static void test_synthetic_size_mix_does_not_move_arrivals(void **state)
{
    (void)state;
    WkWorkload a, b;
    WkError err;
    assert_int_equal(load_section("workload: {source: synthetic, jobs: 500, gpus: 1}\n", &a, &err), 0);
    assert_int_equal(load_section("workload: {source: synthetic, jobs: 500,"
                                  " gpus: [{gpus: 1, weight: 1}, {gpus: 8, weight: 1}]}\n",
                                  &b, &err),
                     0);
    int differ = 0;
    for (size_t i = 0; i < 500; i++) {
        assert_int_equal(a.jobs[i].submit, b.jobs[i].submit);
        assert_int_equal(a.jobs[i].duration, b.jobs[i].duration);
        differ |= a.jobs[i].gpus != b.jobs[i].gpus;
    }
    assert_true(differ);
    wk_workload_fini(&a);
    wk_workload_fini(&b);
}

static void test_synthetic_poisson_rate_and_mix_weights(void **state)
{
    (void)state;
    WkWorkload w;
    WkError err;
    const size_t n = 200000;
    assert_int_equal(load_section("workload: {source: synthetic, jobs: 200000,"
                                  " interarrival: {dist: exponential, mean: 2m},"
                                  " duration: {dist: lognormal, mean: 1h, sigma: 1},"
                                  " gpus: [{gpus: 1, weight: 3}, {gpus: 8, weight: 1}]}\n",
                                  &w, &err),
                     0);
    assert_int_equal(w.n, n);
    double mean_gap = wk_time_to_s(w.jobs[n - 1].submit) / (double)(n - 1);
    double dur = 0, eights = 0;
    for (size_t i = 0; i < n; i++) {
        dur += wk_time_to_s(w.jobs[i].duration);
        eights += w.jobs[i].gpus == 8;
    }
    /* exponential gaps: sd of the mean = 120/sqrt(n) = 0.27 s */
    assert_float_equal(mean_gap, 120.0, 1.5);
    /* lognormal with mean 1 h, sigma 1: sd/mean = sqrt(e-1) = 1.31, sd of mean = 0.3 % */
    assert_float_equal(dur / (double)n, 3600.0, 3600 * 0.015);
    /* binomial p = 0.25: sd = 0.001 */
    assert_float_equal(eights / (double)n, 0.25, 0.005);
    wk_workload_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philly_rows_become_jobs_rebased_to_first_submit),
        cmocka_unit_test(test_philly_columns_are_found_by_header_name),
        cmocka_unit_test(test_philly_malformed_rows_name_file_line_and_column),
        cmocka_unit_test(test_philly_missing_file_is_an_io_error_naming_it),
        cmocka_unit_test(test_synthetic_size_mix_does_not_move_arrivals),
        cmocka_unit_test(test_synthetic_poisson_rate_and_mix_weights),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
