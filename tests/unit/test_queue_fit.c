/* SPDX-License-Identifier: Apache-2.0 */
/* test_queue_fit.c — the per-GPU-count list of waiting jobs (WkFitList,
 * models/sched/queue_fit.c): queue order, deletion with tombstones and
 * compaction, "the first job after x within an estimate" against a plain
 * scan of a reference array, and rekeying. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/sched/queue.h"

#define S(x) ((WkTime)(x) * WK_NS_PER_S)

static void test_fit_list_finds_the_first_job_after_another_within_an_estimate(void **state)
{
    (void)state;
    WkFitList l = {0};
    /* jobs 1..5 in arrival order with estimates 50, 10, 80, 5, INFINITY */
    const double rem[] = {50, 10, 80, 5, INFINITY};
    for (uint32_t j = 1; j <= 5; j++)
        assert_int_equal(wk_fit_push(&l, &(WkQueueItem){.submit = S(j), .job = j}, rem[j - 1]), 0);
    assert_int_equal(wk_fit_next(&l, NULL, 20)->job, 2);
    const WkQueueItem *x = wk_fit_next(&l, NULL, 20);
    WkQueueItem after = *x;
    assert_int_equal(wk_fit_next(&l, &after, 20)->job, 4);
    assert_int_equal(wk_fit_next(&l, &after, 60)->job, 4);
    assert_int_equal(wk_fit_next(&l, &after, 100)->job, 3);
    assert_null(wk_fit_next(&l, &after, 4));
    /* INFINITY admits every job, an unknown estimate included */
    after.job = 4, after.submit = S(4);
    assert_int_equal(wk_fit_next(&l, &after, INFINITY)->job, 5);
    /* a deleted job is never found again; a job put back is found at its place */
    assert_int_equal(wk_fit_del(&l, &(WkQueueItem){.submit = S(2), .job = 2}), 1);
    assert_int_equal(wk_fit_del(&l, &(WkQueueItem){.submit = S(2), .job = 2}), 0);
    assert_int_equal(wk_fit_next(&l, NULL, 20)->job, 4);
    assert_int_equal(wk_fit_push(&l, &(WkQueueItem){.submit = S(2), .job = 2}, 10), 0);
    assert_int_equal(wk_fit_next(&l, NULL, 20)->job, 2);
    assert_int_equal(l.live, 5);
    wk_fit_fini(&l);
}

/* The reference: live items in an array kept sorted, scanned in full. */
static const WkQueueItem *scan(const WkQueueItem *ref, const double *rem, size_t n, const WkQueueItem *after,
                               double within)
{
    for (size_t i = 0; i < n; i++)
        if ((!after || wk_queue_before(after, &ref[i])) && rem[i] <= within)
            return &ref[i];
    return NULL;
}

static void test_fit_list_agrees_with_a_full_scan_under_random_pushes_and_deletes(void **state)
{
    (void)state;
    WkFitList l = {0};
    enum { MAXN = 600 };
    WkQueueItem ref[MAXN];
    double rem[MAXN];
    size_t n = 0;
    uint64_t r = 12345;
    uint32_t next_job = 0;
    for (int step = 0; step < 20000; step++) {
        r = r * 6364136223846793005u + 1442695040888963407u;
        uint32_t u = (uint32_t)(r >> 33);
        if (n < MAXN && (u % 3 != 0 || n == 0)) {
            /* mostly at the back; one in eight with a smaller key (to the middle) */
            WkQueueItem x = {.key = u % 8 == 0 ? -(double)(u % 5) : 0, .submit = S(next_job), .job = next_job};
            double e = (double)(u % 1000);
            next_job++;
            assert_int_equal(wk_fit_push(&l, &x, e), 0);
            size_t at = n;
            while (at > 0 && wk_queue_before(&x, &ref[at - 1]))
                at--;
            memmove(ref + at + 1, ref + at, (n - at) * sizeof *ref);
            memmove(rem + at + 1, rem + at, (n - at) * sizeof *rem);
            ref[at] = x, rem[at] = e, n++;
        } else {
            size_t at = u % n;
            assert_int_equal(wk_fit_del(&l, &ref[at]), 1);
            memmove(ref + at, ref + at + 1, (n - at - 1) * sizeof *ref);
            memmove(rem + at, rem + at + 1, (n - at - 1) * sizeof *rem);
            n--;
        }
        assert_int_equal(l.live, n);
        assert_true(l.n <= 2 * n + 33); /* tombstones never outnumber the live jobs for long */
        double within = (double)((u >> 7) % 1100);
        const WkQueueItem *after = n && (u & 1) ? &ref[(u >> 3) % n] : NULL;
        const WkQueueItem *want = scan(ref, rem, n, after, within), *got = wk_fit_next(&l, after, within);
        if (!want)
            assert_null(got);
        else
            assert_int_equal(got->job, want->job);
    }
    wk_fit_fini(&l);
}

static double key_by_id_desc(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x, uint32_t gpus)
{
    (void)priv;
    (void)ctx;
    (void)gpus;
    return -(double)x->job;
}

static void test_fit_list_rekey_restores_the_order_with_the_estimates(void **state)
{
    (void)state;
    WkFitList l = {0};
    for (uint32_t j = 0; j < 40; j++)
        assert_int_equal(wk_fit_push(&l, &(WkQueueItem){.submit = S(j), .job = j}, j == 7 ? 1 : 100), 0);
    assert_int_equal(wk_fit_del(&l, &(WkQueueItem){.submit = S(3), .job = 3}), 1);
    /* new keys reverse the order: job 39 first; job 7 keeps its estimate */
    assert_int_equal(wk_fit_rekey(&l, &(WkFitKey){.key = key_by_id_desc}, NULL, NULL, 1), 0);
    assert_int_equal(l.live, 39);
    assert_int_equal(wk_fit_next(&l, NULL, INFINITY)->job, 39);
    assert_int_equal(wk_fit_next(&l, NULL, 1)->job, 7);
    WkQueueItem after = *wk_fit_next(&l, NULL, 1);
    assert_int_equal(wk_fit_next(&l, &after, INFINITY)->job, 6);
    assert_int_equal(wk_fit_del(&l, &(WkQueueItem){.key = -3, .submit = S(3), .job = 3}), 0);
    wk_fit_fini(&l);
}

/* Jobs 0..19 of one GPU count, key = -(age in s, capped at 10): jobs that
 * waited 10 s or more are settled and come first. */
static WkTime now_s;
static int rekeyed;

static double capped_age(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x, uint32_t gpus)
{
    (void)priv, (void)ctx, (void)gpus;
    rekeyed++;
    double age = (double)(now_s - x->submit) / 1e9;
    return -(age > 10 ? 10 : age);
}

static int capped(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x)
{
    (void)priv, (void)ctx;
    return now_s - x->submit >= S(10);
}

static void test_fit_list_rekey_stops_at_the_settled_jobs(void **state)
{
    (void)state;
    WkFitList l = {0};
    const WkFitKey k = {.key = capped_age, .settled = capped};
    for (uint32_t j = 0; j < 20; j++) {
        now_s = S(j);
        assert_int_equal(wk_fit_push(&l, &(WkQueueItem){.key = 0, .submit = S(j), .job = j}, 1), 0);
    }
    now_s = S(25); /* jobs 0..15 settle: all 20 keys are computed once */
    rekeyed = 0;
    assert_int_equal(wk_fit_rekey(&l, &k, NULL, NULL, 1), 0);
    assert_int_equal(rekeyed, 20);
    now_s = S(26); /* job 16 settles; 17..19 age; the back stops at job 15 */
    rekeyed = 0;
    assert_int_equal(wk_fit_rekey(&l, &k, NULL, NULL, 1), 0);
    assert_int_equal(rekeyed, 5);
    for (size_t i = 0; i < l.n; i++) {
        assert_int_equal(l.it[i].job, i); /* settled (oldest) first, then by age */
        assert_true(l.it[i].key == capped_age(NULL, NULL, &l.it[i], 1));
    }
    wk_fit_fini(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_list_finds_the_first_job_after_another_within_an_estimate),
        cmocka_unit_test(test_fit_list_agrees_with_a_full_scan_under_random_pushes_and_deletes),
        cmocka_unit_test(test_fit_list_rekey_restores_the_order_with_the_estimates),
        cmocka_unit_test(test_fit_list_rekey_stops_at_the_settled_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
