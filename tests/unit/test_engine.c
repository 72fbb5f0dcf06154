/* SPDX-License-Identifier: Apache-2.0 */
/* test_engine.c — the engine's contract: (time, post order) dispatch,
 * token cancellation and supersession, run(until) semantics, handler errors,
 * determinism of a seeded run, and independence of named RNG streams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim/core/engine.h"

enum { KIND_REC = 3, KIND_FAIL = 7, KIND_MODEL = 9, MAX_REC = 4096 };

/* What a recording handler saw, in dispatch order. */
typedef struct {
    WkTime time[MAX_REC];
    uint32_t target[MAX_REC];
    uint32_t payload[MAX_REC];
    uint16_t kind[MAX_REC];
    size_t n;
    size_t fail_at;   /* KIND_FAIL: fail on this dispatch (1-based), 0 = never */
    int fail_fills;   /* KIND_FAIL: fill err before failing */
    size_t stop_at;   /* call wk_engine_stop on this dispatch, 0 = never */
} Rec;

static void record(Rec *r, WkEngine *eng, const WkEvent *ev)
{
    assert_true(r->n < MAX_REC);
    assert_int_equal(wk_engine_now(eng), ev->time);
    r->time[r->n] = ev->time;
    r->target[r->n] = ev->target;
    r->payload[r->n] = ev->payload;
    r->kind[r->n] = ev->kind;
    r->n++;
}

static int on_rec(WkEngine *eng, const WkEvent *ev, void *ctx, WkError *err)
{
    (void)err;
    Rec *r = ctx;
    record(r, eng, ev);
    if (r->stop_at && r->n == r->stop_at)
        wk_engine_stop(eng);
    return 0;
}

static int on_fail(WkEngine *eng, const WkEvent *ev, void *ctx, WkError *err)
{
    Rec *r = ctx;
    record(r, eng, ev);
    if (r->n != r->fail_at)
        return 0;
    if (r->fail_fills)
        return wk_error_set(err, WK_E_INVAL, "model.yaml", 4, 2, "bad thing at %u", ev->target);
    return WK_E_IO;
}

static WkEngine *new_engine(uint64_t seed, Rec *r)
{
    WkEngine *e = NULL;
    assert_int_equal(wk_engine_new(&e, seed, NULL), 0);
    assert_int_equal(wk_engine_on(e, KIND_REC, on_rec, r, NULL), 0);
    assert_int_equal(wk_engine_on(e, KIND_FAIL, on_fail, r, NULL), 0);
    return e;
}

static void test_same_time_events_dispatch_in_post_order(void **state)
{
    (void)state;
    Rec r = {0};
    WkEngine *e = new_engine(1, &r);
    for (uint32_t i = 0; i < 200; i++) /* one timestamp, posted 0..199 */
        assert_int_equal(wk_engine_post(e, 50, KIND_REC, 0, i, 0, 0), 0);
    assert_int_equal(wk_engine_post(e, 49, KIND_REC, 0, 1000, 0, 0), 0);
    assert_int_equal(wk_engine_post(e, 51, KIND_REC, 0, 2000, 0, 0), 0);
    assert_int_equal(wk_engine_run(e, WK_TIME_NEVER, NULL), 0);
    assert_int_equal(r.n, 202);
    assert_int_equal(r.payload[0], 1000);
    for (uint32_t i = 0; i < 200; i++)
        assert_int_equal(r.payload[1 + i], i);
    assert_int_equal(r.payload[201], 2000);
    assert_int_equal(wk_engine_events(e), 202);
    wk_engine_free(e);
}

static void test_cancelled_event_is_not_dispatched(void **state)
{
    (void)state;
    Rec r = {0};
    WkEngine *e = new_engine(1, &r);
    uint32_t tok;
    assert_int_equal(wk_engine_token_new(e, &tok, NULL), 0);
    assert_true(tok >= 1);
    assert_int_equal(wk_engine_pending(e, tok), 0);
    assert_int_equal(wk_engine_post(e, 10, KIND_REC, 1, 1, 0, tok), 0);
    assert_int_equal(wk_engine_post(e, 20, KIND_REC, 2, 2, 0, 0), 0);
    assert_int_equal(wk_engine_pending(e, tok), 1);
    wk_engine_cancel(e, tok);
    assert_int_equal(wk_engine_pending(e, tok), 0);
    assert_int_equal(wk_engine_queued(e), 2); /* lazy: the record stays queued */
    assert_int_equal(wk_engine_run(e, WK_TIME_NEVER, NULL), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.payload[0], 2);
    assert_int_equal(wk_engine_events(e), 1); /* cancelled ones are not counted */
    wk_engine_free(e);
}

static void test_repost_with_token_supersedes_earlier_event(void **state)
{
    (void)state;
    Rec r = {0};
    WkEngine *e = new_engine(1, &r);
    uint32_t a, b;
    assert_int_equal(wk_engine_token_new(e, &a, NULL), 0);
    assert_int_equal(wk_engine_token_new(e, &b, NULL), 0);
    assert_int_not_equal(a, b);
    /* Rescheduled later, and rescheduled earlier: only the last post fires. */
    assert_int_equal(wk_engine_post(e, 10, KIND_REC, 0, 11, 0, a), 0);
    assert_int_equal(wk_engine_post(e, 30, KIND_REC, 0, 12, 0, a), 0);
    assert_int_equal(wk_engine_post(e, 40, KIND_REC, 0, 21, 0, b), 0);
    assert_int_equal(wk_engine_post(e, 5, KIND_REC, 0, 22, 0, b), 0);
    assert_int_equal(wk_engine_run(e, WK_TIME_NEVER, NULL), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.payload[0], 22);
    assert_int_equal(r.time[0], 5);
    assert_int_equal(r.payload[1], 12);
    assert_int_equal(r.time[1], 30);
    /* Fired: no longer pending. */
    assert_int_equal(wk_engine_pending(e, a), 0);
    assert_int_equal(wk_engine_pending(e, b), 0);
    wk_engine_free(e);
}

static void test_post_rejects_past_time_bad_kind_and_unknown_token(void **state)
{
    (void)state;
    Rec r = {0};
    WkEngine *e = new_engine(1, &r);
    assert_int_equal(wk_engine_post(e, 100, KIND_REC, 0, 0, 0, 0), 0);
    assert_int_equal(wk_engine_run(e, WK_TIME_NEVER, NULL), 0);
    assert_int_equal(wk_engine_now(e), 100);
    assert_int_equal(wk_engine_post(e, 99, KIND_REC, 0, 0, 0, 0), WK_E_RANGE);
    assert_int_equal(wk_engine_post(e, 100, WK_ENGINE_MAX_KINDS, 0, 0, 0, 0), WK_E_RANGE);
    assert_int_equal(wk_engine_post(e, 100, KIND_REC, 0, 0, 0, 12345), WK_E_RANGE);
    assert_int_equal(wk_engine_on(e, WK_ENGINE_MAX_KINDS, on_rec, &r, NULL), WK_E_RANGE);
    assert_int_equal(wk_engine_queued(e), 0);
    assert_int_equal(wk_engine_post(e, 100, KIND_REC, 0, 0, 0, 0), 0); /* at now is fine */
    wk_engine_free(e);
}

static void test_run_until_keeps_later_events_and_sets_now(void **state)
{
    (void)state;
    Rec r = {0};
    WkEngine *e = new_engine(1, &r);
    uint32_t tok;
    assert_int_equal(wk_engine_token_new(e, &tok, NULL), 0);
    assert_int_equal(wk_engine_post(e, 10, KIND_REC, 0, 1, 0, 0), 0);
    assert_int_equal(wk_engine_post(e, 20, KIND_REC, 0, 2, 0, 0), 0);
    assert_int_equal(wk_engine_post(e, 30, KIND_REC, 0, 3, 0, tok), 0);
    assert_int_equal(wk_engine_run(e, 20, NULL), 0); /* events at until do run */
    assert_int_equal(r.n, 2);
    assert_int_equal(wk_engine_now(e), 20);
    assert_int_equal(wk_engine_queued(e), 1);
    assert_int_equal(wk_engine_pending(e, tok), 1); /* still owned by its token */
    assert_int_equal(wk_engine_run(e, 25, NULL), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(wk_engine_now(e), 25);
    assert_int_equal(wk_engine_pending(e, tok), 1);
    /* Cancel after the push-back: still cancellable. */
    assert_int_equal(wk_engine_post(e, 27, KIND_REC, 0, 4, 0, 0), 0);
    wk_engine_cancel(e, tok);
    assert_int_equal(wk_engine_run(e, 1000, NULL), 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.payload[2], 4);
    assert_int_equal(wk_engine_queued(e), 0);
    assert_int_equal(wk_engine_now(e), 27); /* queue ran dry before until */
    wk_engine_free(e);
}

static void test_stop_returns_after_the_current_event(void **state)
{
    (void)state;
    Rec r = {.stop_at = 2};
    WkEngine *e = new_engine(1, &r);
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(wk_engine_post(e, 10 * (i + 1), KIND_REC, 0, i, 0, 0), 0);
    assert_int_equal(wk_engine_run(e, WK_TIME_NEVER, NULL), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(wk_engine_now(e), 20);
    assert_int_equal(wk_engine_queued(e), 3);
    r.stop_at = 0;
    assert_int_equal(wk_engine_run(e, WK_TIME_NEVER, NULL), 0);
    assert_int_equal(r.n, 5);
    wk_engine_free(e);
}

static void test_handler_error_stops_run_and_propagates_code(void **state)
{
    (void)state;
    for (int fills = 0; fills <= 1; fills++) {
        Rec r = {.fail_at = 3, .fail_fills = fills};
        WkEngine *e = new_engine(1, &r);
        for (uint32_t i = 0; i < 6; i++)
            assert_int_equal(wk_engine_post(e, 10 * (i + 1), KIND_FAIL, i, i, 0, 0), 0);
        WkError err;
        wk_error_clear(&err);
        int rc = wk_engine_run(e, WK_TIME_NEVER, &err);
        int want = fills ? WK_E_INVAL : WK_E_IO;
        assert_int_equal(rc, want);
        assert_int_equal(err.code, want);
        if (fills) {
            assert_string_equal(err.where, "model.yaml:4:2");
            assert_string_equal(err.msg, "bad thing at 2");
        } else {
            assert_true(err.msg[0] != '\0'); /* the engine names the failure */
        }
        assert_int_equal(r.n, 3);               /* nothing after the failing event */
        assert_int_equal(wk_engine_events(e), 2); /* the failed one is not committed */
        assert_int_equal(wk_engine_now(e), 30);
        assert_int_equal(wk_engine_queued(e), 3);
        wk_engine_free(e);
    }
}

/* A small stochastic model: each event draws a delay, a target and a fan-out
 * from stream "model", sometimes reschedules or cancels a per-target token. */
typedef struct {
    Rec rec;
    WkRng *rng;
    uint32_t tok[8];
    uint64_t budget; /* events still allowed to spawn */
} Model;

static int on_model(WkEngine *eng, const WkEvent *ev, void *ctx, WkError *err)
{
    Model *m = ctx;
    record(&m->rec, eng, ev);
    if (m->budget == 0)
        return 0;
    m->budget--;
    uint64_t fan = 1 + wk_rng_uint(m->rng, 2);
    for (uint64_t k = 0; k < fan; k++) {
        WkTime at = wk_engine_now(eng) + (WkTime)wk_rng_exponential(m->rng, 1e6);
        uint32_t target = (uint32_t)wk_rng_uint(m->rng, 8);
        double u = wk_rng_uniform(m->rng);
        uint32_t tok = u < 0.3 ? m->tok[target] : 0;
        int rc = wk_engine_post(eng, at, KIND_MODEL, target, (uint32_t)wk_rng_uint(m->rng, 1000),
                                0, tok);
        if (rc < 0)
            return wk_error_set(err, rc, NULL, 0, 0, "post failed");
        if (u > 0.9)
            wk_engine_cancel(eng, m->tok[(target + 1) % 8]);
    }
    return 0;
}

static void run_model(uint64_t seed, Model *m)
{
    memset(m, 0, sizeof *m);
    m->budget = 1500;
    WkEngine *e = NULL;
    assert_int_equal(wk_engine_new(&e, seed, NULL), 0);
    assert_int_equal(wk_engine_on(e, KIND_MODEL, on_model, m, NULL), 0);
    assert_int_equal(wk_engine_rng(e, "model", &m->rng, NULL), 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(wk_engine_token_new(e, &m->tok[i], NULL), 0);
    for (uint32_t i = 0; i < 8; i++)
        assert_int_equal(wk_engine_post(e, i, KIND_MODEL, i, i, 0, m->tok[i]), 0);
    assert_int_equal(wk_engine_run(e, WK_TIME_NEVER, NULL), 0);
    assert_int_equal(wk_engine_events(e), m->rec.n);
    wk_engine_free(e);
}

static int same_sequence(const Rec *a, const Rec *b)
{
    return a->n == b->n && memcmp(a->time, b->time, a->n * sizeof a->time[0]) == 0 &&
           memcmp(a->target, b->target, a->n * sizeof a->target[0]) == 0 &&
           memcmp(a->payload, b->payload, a->n * sizeof a->payload[0]) == 0;
}

static void test_same_seed_gives_identical_event_sequence(void **state)
{
    (void)state;
    static Model a, b, c;
    run_model(42, &a);
    run_model(42, &b);
    run_model(43, &c);
    assert_true(a.rec.n > 1500);
    assert_true(same_sequence(&a.rec, &b.rec));
    assert_false(same_sequence(&a.rec, &c.rec)); /* the seed does matter */
    for (size_t i = 1; i < a.rec.n; i++)
        assert_true(a.rec.time[i] >= a.rec.time[i - 1]);
}

static void draw(WkRng *r, double *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = wk_rng_uniform(r);
}

static void test_new_stream_leaves_other_streams_draws_unchanged(void **state)
{
    (void)state;
    Rec r = {0};
    double alone[64], mixed[64], other[64];
    WkEngine *e1 = new_engine(7, &r), *e2 = new_engine(7, &r);
    WkRng *a1, *a2, *b2, *c2;
    assert_int_equal(wk_engine_rng(e1, "failures", &a1, NULL), 0);
    draw(a1, alone, 64);
    /* Engine 2 creates other streams before and after, and draws from them
     * in between: "failures" must not notice. */
    assert_int_equal(wk_engine_rng(e2, "arrivals", &b2, NULL), 0);
    draw(b2, other, 16);
    assert_int_equal(wk_engine_rng(e2, "failures", &a2, NULL), 0);
    for (int i = 0; i < 64; i += 8) {
        draw(a2, mixed + i, 8);
        draw(b2, other, 3);
    }
    assert_int_equal(wk_engine_rng(e2, "stragglers", &c2, NULL), 0);
    draw(c2, other, 5);
    assert_memory_equal(alone, mixed, sizeof alone);
    WkRng *again;
    assert_int_equal(wk_engine_rng(e2, "failures", &again, NULL), 0);
    assert_ptr_equal(again, a2); /* one stream per name and run */
    wk_engine_free(e1);
    wk_engine_free(e2);
}

static void test_stream_names_and_seeds_select_sequences(void **state)
{
    (void)state;
    Rec r = {0};
    double x[32], y[32], z[32], w[32];
    WkEngine *e1 = new_engine(7, &r), *e2 = new_engine(7, &r), *e3 = new_engine(8, &r);
    WkRng *s;
    assert_int_equal(wk_engine_rng(e1, "alpha", &s, NULL), 0);
    draw(s, x, 32);
    assert_int_equal(wk_engine_rng(e1, "beta", &s, NULL), 0);
    draw(s, y, 32);
    assert_int_equal(wk_engine_rng(e2, "alpha", &s, NULL), 0);
    draw(s, z, 32);
    assert_int_equal(wk_engine_rng(e3, "alpha", &s, NULL), 0);
    draw(s, w, 32);
    assert_memory_equal(x, z, sizeof x);  /* same (seed, name): same draws */
    assert_memory_not_equal(x, y, sizeof x); /* other name: other draws */
    assert_memory_not_equal(x, w, sizeof x); /* other seed: other draws */
    assert_int_equal(wk_engine_seed(e3), 8);
    wk_engine_free(e1);
    wk_engine_free(e2);
    wk_engine_free(e3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_time_events_dispatch_in_post_order),
        cmocka_unit_test(test_cancelled_event_is_not_dispatched),
        cmocka_unit_test(test_repost_with_token_supersedes_earlier_event),
        cmocka_unit_test(test_post_rejects_past_time_bad_kind_and_unknown_token),
        cmocka_unit_test(test_run_until_keeps_later_events_and_sets_now),
        cmocka_unit_test(test_stop_returns_after_the_current_event),
        cmocka_unit_test(test_handler_error_stops_run_and_propagates_code),
        cmocka_unit_test(test_same_seed_gives_identical_event_sequence),
        cmocka_unit_test(test_new_stream_leaves_other_streams_draws_unchanged),
        cmocka_unit_test(test_stream_names_and_seeds_select_sequences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
