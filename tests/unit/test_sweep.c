/* SPDX-License-Identifier: Apache-2.0 */
/* test_sweep.c — parameter sweeps: the cross product and its order, ranges,
 * 1 thread and 2 threads giving byte-identical traces and index (and equal
 * summaries read back), a failing point recorded while the rest run, shards
 * merged into the same index as one process, the index read by compare
 * (seeds pooled per configuration), and positioned errors in a sweep file.
 * argv[1] is the source root. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/testutil.h"

#include "analysis/compare.h"
#include "sim/batch/sweep.h"
#include "sim/trace/sweep_index.h"
#include "sim/trace/trace_read.h"

/* a sweep index may hold every point a sweep can have (sweep_index.c refuses more) */
_Static_assert(WK_SWEEP_MAX_POINTS <= WK_SCHEMA_SWEEP_POINTS_MAX, "the sweep index's point limit");

static const char *srcroot = ".";
static char tmpdir[64];

/* A tiny inline base scenario: 4 nodes of 8 GPUs, 60 synthetic jobs. */
#define BASE \
    "base:\n" \
    "  name: tiny\n" \
    "  cluster: {sku: H100-SXM-80G, nodes: 4, fabric: {kind: rail, radix: 64}}\n" \
    "  workload: {source: synthetic, jobs: 60, interarrival: {dist: exponential, mean: 60s},\n" \
    "             duration: {dist: lognormal, median: 30m, sigma: 1},\n" \
    "             gpus: [{gpus: 1, weight: 0.5}, {gpus: 8, weight: 0.5}]}\n"

static const char *tmp(const char *rel, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", tmpdir, rel);
    return buf;
}

static const char *write_sweep(const char *name, const char *text)
{
    static char path[512];
    tmp(name, path, sizeof path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static WkSweep *load(const char *path)
{
    WkSweep *s = NULL;
    WkError err;
    wk_error_clear(&err);
    if (wk_sweep_load(&s, path, &err) != 0)
        fail_msg("sweep load: %s: %s", err.where, err.msg);
    return s;
}

static size_t run(WkSweep *s, const char *dir, int threads, int shard_i, int shard_n)
{
    WkSweepRunOpts o = {.dir = dir, .threads = threads, .shard_i = shard_i, .shard_n = shard_n};
    WkError err;
    wk_error_clear(&err);
    size_t failed = 0;
    if (wk_sweep_run(s, &o, &failed, &err) != 0)
        fail_msg("sweep run: %s: %s", err.where, err.msg);
    return failed;
}

/* 1 when the two files hold the same bytes. */
static int same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        if (x != y)
            same = 0;
        if (x == EOF || y == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static const char *const small_sweep = BASE
    "schedulers: [fifo, sjf]\n"
    "seeds: [1, 2]\n"
    "axes:\n"
    "  cluster.nodes: [2, 4]\n";

static void test_cross_product_order_and_labels(void **state)
{
    (void)state;
    WkSweep *s = load(write_sweep("order.yaml", small_sweep));
    assert_int_equal(s->npoints, 8);
    /* axes outermost, then scheduler, then seed */
    assert_string_equal(s->points[0].label, "cluster.nodes=2 scheduler=fifo seed=1");
    assert_string_equal(s->points[1].label, "cluster.nodes=2 scheduler=fifo seed=2");
    assert_string_equal(s->points[2].label, "cluster.nodes=2 scheduler=sjf seed=1");
    assert_string_equal(s->points[7].label, "cluster.nodes=4 scheduler=sjf seed=2");
    assert_string_equal(s->points[7].sets[0], "cluster.nodes=4");
    assert_string_equal(s->points[7].trace, "p0007.h5");
    assert_string_equal(s->name, "order");
    wk_sweep_free(s);
}

static void test_ranges_expand_to_values(void **state)
{
    (void)state;
    WkSweep *s = load(write_sweep("ranges.yaml", BASE
                                  "axes:\n"
                                  "  workload.jobs: {from: 10, to: 30, step: 10}\n"
                                  "  perf.dp_overlap: {from: 0, to: 1, step: 0.25}\n"
                                  "  sim.end: {from: 1h, to: 90m, step: 30m}\n"
                                  "set: {sim.sample_interval: 10m}\n"));
    assert_int_equal(s->naxes, 3);
    assert_int_equal(s->axes[0].n, 3);
    assert_string_equal(s->axes[0].text[2], "30");
    assert_int_equal(s->axes[1].n, 5);
    assert_string_equal(s->axes[1].text[1], "0.25");
    assert_string_equal(s->axes[1].text[4], "1");
    assert_int_equal(s->axes[2].n, 2);
    assert_string_equal(s->axes[2].text[1], "5400s");
    assert_int_equal(s->npoints, 30);
    assert_string_equal(s->points[0].sets[0], "sim.sample_interval=10m"); /* fixed sets first */
    wk_sweep_free(s);
}

static void test_one_and_two_threads_give_identical_results(void **state)
{
    (void)state;
    char d1[256], d2[256], a[512], b[512];
    tmp("t1", d1, sizeof d1);
    tmp("t2", d2, sizeof d2);
    const char *file = write_sweep("ident.yaml", small_sweep);
    WkSweep *s1 = load(file), *s2 = load(file);
    assert_int_equal(run(s1, d1, 1, 0, 0), 0);
    assert_int_equal(run(s2, d2, 2, 0, 0), 0);
    for (size_t i = 0; i < s1->npoints; i++) {
        assert_int_equal(s1->points[i].status, WK_SWEEP_OK);
        assert_non_null(s1->points[i].sum);
        assert_non_null(s2->points[i].sum);
        assert_int_equal(s1->points[i].sum->n, s2->points[i].sum->n);
        assert_memory_equal(s1->points[i].sum->m, s2->points[i].sum->m, s1->points[i].sum->n * sizeof(WkMetric));
        snprintf(a, sizeof a, "%s/%s", d1, s1->points[i].trace);
        snprintf(b, sizeof b, "%s/%s", d2, s2->points[i].trace);
        assert_true(same_bytes(a, b));
        /* the summary groups as a reader sees them */
        WkTraceRead *ra = NULL, *rb = NULL;
        WkTraceMetric *ma = NULL, *mb = NULL;
        size_t na = 0, nb = 0;
        WkError err;
        wk_error_clear(&err);
        assert_int_equal(wk_trace_read_open(&ra, a, &err), 0);
        assert_int_equal(wk_trace_read_open(&rb, b, &err), 0);
        assert_int_equal(wk_trace_read_summary(ra, &ma, &na, &err), 0);
        assert_int_equal(wk_trace_read_summary(rb, &mb, &nb, &err), 0);
        assert_true(na > 10);
        assert_int_equal(na, nb);
        for (size_t k = 0; k < na; k++) {
            assert_string_equal(ma[k].name, mb[k].name);
            assert_memory_equal(&ma[k].value, &mb[k].value, sizeof(double));
        }
        free(ma);
        free(mb);
        wk_trace_read_close(ra);
        wk_trace_read_close(rb);
    }
    /* the two sweeps did differ between points: seeds and sizes matter */
    assert_true(wk_summary_get(s1->points[0].sum, "jct_mean_s")->value !=
                wk_summary_get(s1->points[1].sum, "jct_mean_s")->value);
    snprintf(a, sizeof a, "%s/sweep.h5", d1);
    snprintf(b, sizeof b, "%s/sweep.h5", d2);
    assert_true(same_bytes(a, b));
    WkSweepIndex *ia = NULL, *ib = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_sweep_index_read(&ia, a, &err), 0);
    assert_int_equal(wk_sweep_index_read(&ib, b, &err), 0);
    assert_int_equal(ia->nrows, 8);
    assert_int_equal(ia->nmetrics, ib->nmetrics);
    for (size_t i = 0; i < ia->nrows; i++) {
        assert_int_equal(ia->rows[i].id, (int64_t)i);
        assert_string_equal(ia->rows[i].scheduler, ib->rows[i].scheduler);
        assert_string_equal(ia->rows[i].axis[0], s1->axes[0].text[s1->points[i].pick[0]]);
        assert_memory_equal(ia->rows[i].metric, ib->rows[i].metric, ia->nmetrics * sizeof(double));
        const WkMetric *u = wk_summary_get(s1->points[i].sum, "utilization");
        for (size_t m = 0; m < ia->nmetrics; m++)
            if (strcmp(ia->metrics[m], "utilization") == 0)
                assert_true(ia->rows[i].metric[m] == u->value);
    }
    wk_sweep_index_free(ia);
    wk_sweep_index_free(ib);
    wk_sweep_free(s1);
    wk_sweep_free(s2);
}

static void test_failing_point_is_recorded_and_the_rest_run(void **state)
{
    (void)state;
    char d[256], ix[512];
    tmp("fail", d, sizeof d);
    WkSweep *s = load(write_sweep("fail.yaml", BASE "axes:\n  cluster.nodes: [2, 0, 4]\n"));
    assert_int_equal(run(s, d, 2, 0, 0), 1);
    assert_int_equal(s->points[0].status, WK_SWEEP_OK);
    assert_int_equal(s->points[1].status, WK_SWEEP_FAILED);
    assert_int_equal(s->points[2].status, WK_SWEEP_OK);
    assert_non_null(strstr(wk_sweep_point_error(&s->points[1]), "fail.yaml:8:"));
    assert_non_null(strstr(wk_sweep_point_error(&s->points[1]), "cluster.nodes"));
    WkSweepIndex *x = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_sweep_index_read(&x, tmp("fail/sweep.h5", ix, sizeof ix), &err), 0);
    assert_int_equal(x->rows[1].status, WK_SWEEP_FAILED);
    assert_string_equal(x->rows[1].trace, "");
    assert_non_null(strstr(x->rows[1].error, "cluster.nodes"));
    assert_true(isnan(x->rows[1].metric[0]));
    wk_sweep_index_free(x);
    wk_sweep_free(s);
}

static void test_shards_merge_into_the_single_process_index(void **state)
{
    (void)state;
    char whole[256], sh[256], out[512], ref[512], shard[3][512];
    tmp("whole", whole, sizeof whole);
    tmp("shards", sh, sizeof sh);
    const char *file = write_sweep("shard.yaml", small_sweep);
    WkSweep *s = load(file);
    run(s, whole, 2, 0, 0);
    wk_sweep_free(s);
    const char *paths[3];
    for (int i = 0; i < 3; i++) {
        s = load(file);
        run(s, sh, 1, i, 3);
        size_t ran = 0;
        for (size_t p = 0; p < s->npoints; p++)
            ran += s->points[p].status != WK_SWEEP_NOT_RUN;
        assert_int_equal(ran, i < 2 ? 3 : 2); /* ids 0,3,6 / 1,4,7 / 2,5 */
        wk_sweep_free(s);
        paths[i] = wk_sweep_index_path(sh, i, 3, shard[i], sizeof shard[i]);
    }
    size_t missing = 0, failed = 0;
    WkError err;
    wk_error_clear(&err);
    snprintf(out, sizeof out, "%s/sweep.h5", sh);
    assert_int_equal(wk_sweep_index_merge(paths, 2, out, &missing, &failed, &err), 0);
    assert_int_equal(missing, 2);
    assert_int_equal(wk_sweep_index_merge(paths, 3, out, &missing, &failed, &err), 0);
    assert_int_equal(missing, 0);
    assert_int_equal(failed, 0);
    snprintf(ref, sizeof ref, "%s/sweep.h5", whole);
    assert_true(same_bytes(out, ref));
    /* a shard twice is refused */
    const char *twice[2] = {paths[0], paths[0]};
    assert_int_equal(wk_sweep_index_merge(twice, 2, out, &missing, &failed, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "is in both"));
}

static void test_compare_pools_the_seeds_of_a_sweep_index(void **state)
{
    (void)state;
    char d[256], ix[512];
    tmp("cmp", d, sizeof d);
    WkSweep *s = load(write_sweep("cmp.yaml", small_sweep));
    run(s, d, 2, 0, 0);
    const char *paths[1] = {tmp("cmp/sweep.h5", ix, sizeof ix)};
    WkCompare *c = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_compare_load(&c, paths, 1, 1, &err), 0);
    assert_int_equal(c->ncols, 4); /* 2 node counts x 2 schedulers, 2 seeds each */
    assert_true(c->grouped);
    assert_int_equal(c->cols[1].nruns, 2);
    assert_string_equal(c->cols[1].scheduler, "sjf");
    assert_string_equal(c->cols[1].overrides, "cluster.nodes=2\n");
    const WkCompareRow *u = wk_compare_row(c, "utilization");
    assert_non_null(u);
    double mean = (wk_summary_get(s->points[2].sum, "utilization")->value +
                   wk_summary_get(s->points[3].sum, "utilization")->value) / 2;
    assert_true(fabs(u->cells[1].mean - mean) < 1e-12);
    assert_non_null(strstr(c->cols[1].paths[0], "p0002.h5"));
    wk_compare_free(c);
    wk_sweep_free(s);
}

static void load_fails(const char *text, int code, const char *where_part, const char *msg_part)
{
    WkSweep *s = NULL;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_sweep_load(&s, write_sweep("bad.yaml", text), &err);
    if (rc != code || !strstr(err.where, where_part) || !strstr(err.msg, msg_part))
        fail_msg("expected %d '%s' '%s', got %d '%s' '%s'", code, where_part, msg_part, rc, err.where, err.msg);
    assert_null(s);
}

static void test_bad_sweep_files_are_positioned_errors(void **state)
{
    (void)state;
    load_fails(BASE "schedulers: [fifo, nope]\n", WK_E_NOTFOUND, "bad.yaml:7:20", "unknown scheduler 'nope'");
    load_fails(BASE "axes: {seed: [1, 2]}\n", WK_E_INVAL, "bad.yaml:7:8", "seeds");
    load_fails(BASE "axes: {cluster.nodes: 4}\n", WK_E_INVAL, "bad.yaml:7:23", "a list of values or a range");
    load_fails(BASE "axes: {cluster.nodes: {from: 4, to: 1}}\n", WK_E_INVAL, "bad.yaml:7:23", "empty");
    load_fails(BASE "sedes: [1]\n", WK_E_INVAL, "bad.yaml:7:1", "unknown key 'sedes'");
    load_fails("schedulers: [fifo]\n", WK_E_INVAL, "bad.yaml:1:1", "base");
    load_fails("base: no-such-file.yaml\n", WK_E_IO, "no-such-file.yaml", "the base of");
    load_fails(BASE "seeds: [1, 1]\n", WK_E_INVAL, "bad.yaml:7:12", "twice");
}

static int setup(void **state)
{
    (void)state;
    return test_tmpdir_make(tmpdir, sizeof tmpdir, "sweep");
}

static int teardown(void **state)
{
    (void)state;
    return test_tmpdir_remove(tmpdir);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        srcroot = argv[1];
    (void)srcroot;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_product_order_and_labels),
        cmocka_unit_test(test_ranges_expand_to_values),
        cmocka_unit_test(test_one_and_two_threads_give_identical_results),
        cmocka_unit_test(test_failing_point_is_recorded_and_the_rest_run),
        cmocka_unit_test(test_shards_merge_into_the_single_process_index),
        cmocka_unit_test(test_compare_pools_the_seeds_of_a_sweep_index),
        cmocka_unit_test(test_bad_sweep_files_are_positioned_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
