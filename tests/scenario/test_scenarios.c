/* SPDX-License-Identifier: Apache-2.0 */
/* test_scenarios.c — the shipped scenarios end to end: quickstart and the
 * Philly trace run to completion, and the HDF5 trace read back with the HDF5
 * library matches the run row by row. argv[1] is the source root. */
#include "tests/unit/testutil.h"

#include <hdf5.h>
#include <math.h>
#include <unistd.h>

#include "models/run/hooks.h"

static const char *srcroot = ".";

typedef struct {
    uint32_t id, gpus;
    int64_t submit, start, end;
    uint8_t status;
} ReadJob;

typedef struct {
    int64_t time;
    uint32_t alloc, running, queued;
    double power;
} ReadSample;

static TestRun run_file(const char *rel, const char *const *sets, size_t nsets)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", srcroot, rel);
    TestRun t;
    memset(&t, 0, sizeof t);
    WkError err;
    wk_error_clear(&err);
    int rc = wk_doc_load_file(&t.doc, path, &err);
    for (size_t i = 0; rc == 0 && i < nsets; i++)
        rc = wk_doc_set(t.doc, sets[i], (long)i + 1, &err);
    WkRunOpts o = {.sets = sets, .nsets = nsets};
    if (rc == 0)
        rc = wk_sim_prepare(&t.sim, t.doc, &o, &err);
    if (rc == 0) {
        t.run = wk_sim_run(t.sim);
        rc = wk_sim_execute(t.sim, &err);
    }
    if (rc == 0)
        rc = wk_sim_summary(t.sim, &t.sum, &err);
    if (rc != 0)
        fail_msg("%s: %s: %s", rel, err.where, err.msg);
    return t;
}

static double attr_f64(hid_t f, const char *group, const char *name)
{
    double v = NAN;
    hid_t a = H5Aopen_by_name(f, group, name, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0);
    H5Aclose(a);
    return v;
}

/* Read the trace back and compare it with the run's own state. */
static void check_trace(const TestRun *t, const char *path)
{
    const WkRun *r = t->run;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);

    hid_t d = H5Dopen2(f, "jobs", H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t sp = H5Dget_space(d);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(sp, &n, NULL);
    assert_int_equal(n, wk_run_hooks_workload(r)->n);
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(ReadJob));
    H5Tinsert(mt, "id", HOFFSET(ReadJob, id), H5T_NATIVE_UINT32);
    H5Tinsert(mt, "gpus", HOFFSET(ReadJob, gpus), H5T_NATIVE_UINT32);
    H5Tinsert(mt, "submit", HOFFSET(ReadJob, submit), H5T_NATIVE_INT64);
    H5Tinsert(mt, "start", HOFFSET(ReadJob, start), H5T_NATIVE_INT64);
    H5Tinsert(mt, "end", HOFFSET(ReadJob, end), H5T_NATIVE_INT64);
    /* the status enum is read as its integer value */
    H5Tinsert(mt, "status", HOFFSET(ReadJob, status), H5T_NATIVE_UINT8);
    ReadJob *rows = malloc((n ? n : 1) * sizeof *rows);
    assert_non_null(rows);
    hid_t ft = H5Dget_type(d);
    hid_t st = H5Tget_member_type(ft, (unsigned)H5Tget_member_index(ft, "status"));
    assert_int_equal(H5Tget_class(st), H5T_ENUM);
    char ename[32];
    uint8_t zero = 0;
    assert_true(H5Tenum_nameof(st, &zero, ename, sizeof ename) >= 0);
    assert_string_equal(ename, "completed");
    /* read status as the enum itself, then the rest by member name */
    hid_t mt_enum = H5Tcreate(H5T_COMPOUND, sizeof(ReadJob));
    H5Tinsert(mt_enum, "status", HOFFSET(ReadJob, status), st);
    if (n) {
        assert_true(H5Dread(d, mt_enum, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
        uint8_t *status = malloc(n);
        for (hsize_t i = 0; i < n; i++)
            status[i] = rows[i].status;
        H5Tclose(mt);
        mt = H5Tcreate(H5T_COMPOUND, sizeof(ReadJob));
        H5Tinsert(mt, "id", HOFFSET(ReadJob, id), H5T_NATIVE_UINT32);
        H5Tinsert(mt, "gpus", HOFFSET(ReadJob, gpus), H5T_NATIVE_UINT32);
        H5Tinsert(mt, "submit", HOFFSET(ReadJob, submit), H5T_NATIVE_INT64);
        H5Tinsert(mt, "start", HOFFSET(ReadJob, start), H5T_NATIVE_INT64);
        H5Tinsert(mt, "end", HOFFSET(ReadJob, end), H5T_NATIVE_INT64);
        assert_true(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
        size_t completed = 0;
        double jct = 0;
        for (hsize_t i = 0; i < n; i++) {
            assert_int_equal(rows[i].id, i);
            assert_int_equal(rows[i].gpus, wk_run_hooks_workload(r)->jobs[i].gpus);
            assert_int_equal(rows[i].submit, wk_run_hooks_workload(r)->jobs[i].submit);
            assert_int_equal(rows[i].start, wk_run_hooks_job(r, i).start);
            assert_int_equal(rows[i].end, wk_run_hooks_job(r, i).end);
            if (status[i] == 0) {
                completed++;
                jct += wk_time_to_s(rows[i].end - rows[i].submit);
            }
        }
        assert_int_equal(completed, (size_t)test_metric(t, "jobs_completed"));
        assert_float_equal(jct / (double)completed, test_metric(t, "jct_mean_s"), 1e-6);
        free(status);
    }
    H5Tclose(mt_enum);
    H5Tclose(st);
    H5Tclose(ft);
    H5Tclose(mt);
    H5Sclose(sp);
    H5Dclose(d);
    free(rows);

    d = H5Dopen2(f, "timeseries/cluster", H5P_DEFAULT);
    assert_true(d >= 0);
    sp = H5Dget_space(d);
    H5Sget_simple_extent_dims(sp, &n, NULL);
    assert_int_equal(n, wk_run_hooks_account(r)->nsamples);
    /* rows at 0, every interval, and the end: end/interval + 1 or + 2 */
    hsize_t expect = (hsize_t)(wk_run_hooks_end(r) / wk_run_hooks_sample_interval(r)) + 1 + (wk_run_hooks_end(r) % wk_run_hooks_sample_interval(r) != 0);
    assert_int_equal(n, expect);
    ReadSample *s = malloc(n * sizeof *s);
    mt = H5Tcreate(H5T_COMPOUND, sizeof(ReadSample));
    H5Tinsert(mt, "time", HOFFSET(ReadSample, time), H5T_NATIVE_INT64);
    H5Tinsert(mt, "allocated_gpus", HOFFSET(ReadSample, alloc), H5T_NATIVE_UINT32);
    H5Tinsert(mt, "running_jobs", HOFFSET(ReadSample, running), H5T_NATIVE_UINT32);
    H5Tinsert(mt, "queued_jobs", HOFFSET(ReadSample, queued), H5T_NATIVE_UINT32);
    H5Tinsert(mt, "power", HOFFSET(ReadSample, power), H5T_NATIVE_DOUBLE);
    assert_true(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) >= 0);
    assert_int_equal(s[0].time, 0);
    assert_int_equal(s[n - 1].time, wk_run_hooks_end(r));
    assert_int_equal(s[n - 1].alloc, 0);
    for (hsize_t i = 0; i < n; i++) {
        assert_true(s[i].alloc <= wk_run_hooks_cluster(r)->gpus);
        assert_int_equal(s[i].time, wk_run_hooks_account(r)->samples[i].time_ns);
        assert_int_equal(s[i].alloc, wk_run_hooks_account(r)->samples[i].allocated_gpus);
        assert_int_equal(s[i].queued, wk_run_hooks_account(r)->samples[i].queued_jobs);
        assert_float_equal(s[i].power, wk_run_hooks_account(r)->samples[i].power_w, 0);
    }
    /* the last row is an idle cluster: the closed form of the power model */
    assert_float_equal(s[n - 1].power, wk_cluster_power_at(wk_run_hooks_cluster(r), 0), 1e-6 * s[n - 1].power);
    free(s);
    H5Tclose(mt);
    H5Sclose(sp);
    H5Dclose(d);

    assert_float_equal(attr_f64(f, "summary", "utilization"), test_metric(t, "utilization"), 0);
    assert_float_equal(attr_f64(f, "summary", "jobs_completed"), test_metric(t, "jobs_completed"), 0);
    assert_float_equal(attr_f64(f, "summary", "energy_kwh"), test_metric(t, "energy_kwh"), 0);
    H5Fclose(f);
}

static void test_quickstart_trace_reads_back_equal_to_the_run(void **state)
{
    (void)state;
    TestRun t = run_file("scenarios/quickstart.yaml", NULL, 0);
    /* the quickstart shows what wanka is for: every job ends, most are
     * training runs timed by the performance model, and failures interrupt
     * some of them, which checkpoints and rescheduling recover */
    assert_int_equal((int)test_metric(&t, "jobs_completed"), 1000);
    assert_true(test_metric(&t, "model_jobs_started") >= 500);
    assert_true(test_metric(&t, "tflops_per_gpu") > 0);
    assert_true(test_metric(&t, "interruptions") >= 1);
    assert_true(test_metric(&t, "lost_gpu_hours") > 0);
    assert_true(test_metric(&t, "recovery_mean_s") > 0);
    char path[128];
    snprintf(path, sizeof path, "/tmp/wk-test-quick-%ld.h5", (long)getpid());
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_run_write_trace(t.run, path, &err), 0);
    check_trace(&t, path);
    unlink(path);
    test_run_free(&t);
}

/* Data rows of a CSV counted independently: non-blank lines after the header. */
static long count_csv_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long rows = -1;
    char line[4096];
    while (fgets(line, sizeof line, f))
        if (line[0] != '\n' && line[0] != '\r')
            rows++;
    fclose(f);
    return rows;
}

static void test_philly_scenario_completes_every_trace_job(void **state)
{
    (void)state;
    char csv[1024];
    snprintf(csv, sizeof csv, "%s/../shared/traces/philly.csv", srcroot);
    if (access(csv, R_OK) != 0) {
        print_message("SKIP: %s is absent: the Philly trace lives in ../shared/traces beside the project\n", csv);
        skip();
    }
    long rows = count_csv_rows(csv);
    char set[1100];
    snprintf(set, sizeof set, "workload.trace=%s", csv);
    const char *sets[] = {set};
    TestRun t = run_file("scenarios/philly.yaml", sets, 1);
    print_message("philly: %ld CSV rows, %.0f jobs completed, utilization %.4f\n", rows,
                  test_metric(&t, "jobs_completed"), test_metric(&t, "utilization"));
    assert_int_equal((long)test_metric(&t, "jobs_submitted"), rows);
    assert_int_equal((long)test_metric(&t, "jobs_completed"), rows);
    char path[128];
    snprintf(path, sizeof path, "/tmp/wk-test-philly-%ld.h5", (long)getpid());
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_run_write_trace(t.run, path, &err), 0);
    check_trace(&t, path);
    unlink(path);
    test_run_free(&t);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        srcroot = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quickstart_trace_reads_back_equal_to_the_run),
        cmocka_unit_test(test_philly_scenario_completes_every_trace_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
