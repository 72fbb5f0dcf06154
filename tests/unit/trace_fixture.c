/* SPDX-License-Identifier: Apache-2.0 */
/* trace_fixture.c — the temporary trace directory, in-process runs written
 * as traces and hand-written traces the trace, compare and report tests
 * share (trace_fixture.h). Test code: failures end the test through cmocka. */
#include "tests/unit/trace_fixture.h"

#include "tests/unit/testutil.h"

#include <unistd.h>

#include "sim/trace/schema.h"
#include "sim/trace/trace.h"

int trace_fixture_setup(void **state)
{
    TraceDir *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    snprintf(d->path, sizeof d->path, "/tmp/wk_test_XXXXXX");
    if (!mkdtemp(d->path)) {
        free(d);
        return -1;
    }
    *state = d;
    return 0;
}

int trace_fixture_teardown(void **state)
{
    TraceDir *d = *state;
    for (size_t i = 0; i < d->n; i++)
        unlink(d->files[i]);
    int rc = rmdir(d->path);
    free(d);
    return rc;
}

const char *trace_fixture_file(TraceDir *d, const char *name)
{
    assert_true(d->n < TRACE_FIXTURE_FILES);
    char buf[sizeof d->files[0]];
    snprintf(buf, sizeof buf, "%s/%s", d->path, name);
    memcpy(d->files[d->n], buf, sizeof buf);
    return d->files[d->n++];
}

void trace_fixture_run(const char *yaml, const WkRunOpts *opts, const char *path, WkSummary *sum)
{
    TestRun t;
    test_run_yaml(&t, yaml, opts);
    WkError err;
    wk_error_clear(&err);
    if (wk_run_write_trace(t.run, path, &err) != 0)
        fail_msg("trace %s: %s", path, err.msg);
    if (sum)
        *sum = t.sum;
    test_run_free(&t);
}

static const WkTraceField job_fields[] = {
    {WK_SCHEMA_JOB_ID, WK_FT_U32, offsetof(FakeJob, id), "", NULL},
    {WK_SCHEMA_JOB_SUBMIT, WK_FT_I64, offsetof(FakeJob, submit), "ns", NULL},
    {WK_SCHEMA_JOB_START, WK_FT_I64, offsetof(FakeJob, start), "ns", NULL},
    {WK_SCHEMA_JOB_END, WK_FT_I64, offsetof(FakeJob, end), "ns", NULL},
    {WK_SCHEMA_JOB_GPUS, WK_FT_U32, offsetof(FakeJob, gpus), "GPUs", NULL},
    {WK_SCHEMA_JOB_STATUS, WK_FT_ENUM8, offsetof(FakeJob, status), "", wk_schema_job_status_names},
    {WK_SCHEMA_JOB_ITERATIONS, WK_FT_F64, offsetof(FakeJob, iterations), "", NULL},
    {WK_SCHEMA_JOB_ITERATION_TIME, WK_FT_F64, offsetof(FakeJob, iteration_time), "s", NULL},
};

static const WkTraceField inc_fields[] = {
    {WK_SCHEMA_INC_ID, WK_FT_U32, offsetof(FakeIncident, id), "", NULL},
    {WK_SCHEMA_INC_KIND, WK_FT_ENUM8, offsetof(FakeIncident, kind), "", wk_schema_incident_kind_names},
    {WK_SCHEMA_INC_START, WK_FT_I64, offsetof(FakeIncident, start), "ns", NULL},
    {WK_SCHEMA_INC_END, WK_FT_I64, offsetof(FakeIncident, end), "ns", NULL},
    {WK_SCHEMA_INC_RECOVERY, WK_FT_F64, offsetof(FakeIncident, recovery), "s", NULL},
    {WK_SCHEMA_INC_CLOCK, WK_FT_F64, offsetof(FakeIncident, clock), "", NULL},
};

void trace_fixture_write(const char *path, const FakeTrace *f)
{
    WkError err;
    wk_error_clear(&err);
    WkTrace *t = NULL;
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    const char *schema = f->schema ? f->schema : WK_SCHEMA_VERSION;
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCHEMA_VERSION, schema, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCENARIO_NAME, f->scenario, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCHEDULER, f->scheduler, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_OVERRIDES, "", &err), 0);
    assert_int_equal(wk_trace_attr_i64(t, NULL, WK_SCHEMA_ATTR_SEED, f->seed, &err), 0);
    if (f->interrupted)
        assert_int_equal(wk_trace_attr_i64(t, NULL, WK_SCHEMA_ATTR_COMPLETE, 0, &err), 0);
    for (size_t i = 0; i < f->nm; i++)
        assert_int_equal(wk_trace_attr_f64(t, WK_SCHEMA_SUMMARY, f->names[i], f->values[i], &err), 0);
    size_t njf = sizeof job_fields / sizeof job_fields[0], nif = sizeof inc_fields / sizeof inc_fields[0];
    if (f->jobs)
        assert_int_equal(wk_trace_table(t, WK_SCHEMA_JOBS, job_fields, njf, sizeof(FakeJob), f->jobs, f->nj,
                                        "jobs", &err),
                         0);
    if (f->inc)
        assert_int_equal(wk_trace_table(t, WK_SCHEMA_INCIDENTS, inc_fields, nif, sizeof(FakeIncident), f->inc,
                                        f->ni, "incidents", &err),
                         0);
    assert_int_equal(wk_trace_close(t, &err), 0);
}

const char *trace_fixture_line(const char *text, const char *label, char *buf, size_t n)
{
    size_t l = strlen(label);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, label, l) == 0 && p[l] == ' ') {
            size_t k = strcspn(p, "\n");
            snprintf(buf, n, "%.*s", (int)k, p);
            return buf;
        }
    }
    fail_msg("no line for %s in:\n%s", label, text);
    return NULL;
}
