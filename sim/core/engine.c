/* SPDX-License-Identifier: Apache-2.0 */
/* engine.c — clock, dispatch table, cancellation tokens and RNG streams of a
 * run. Cancellation: each token remembers the seq of its one live event; an
 * event whose seq no longer matches its token's is stale and skipped at pop.
 * The seq thus serves as the token's generation counter. */
#include "sim/core/engine.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    WkHandler fn;
    void *ctx;
} Slot;

struct WkEngine {
    WkEvq *q;
    WkTime now;
    uint64_t seed;
    uint64_t next_seq; /* starts at 1: seq 0 means "no live event" */
    uint64_t events;
    int stop;
    Slot slots[WK_ENGINE_MAX_KINDS];
    uint64_t *tok_seq; /* tok_seq[t] = seq of token t's live event, 0 = none */
    uint32_t ntok, captok;
    WkRng **rngs;
    size_t nrng, caprng;
    WkProgressFn progress;
    void *progress_user;
    const volatile sig_atomic_t *intr; /* interrupt flag polled per event, or NULL */
    int interrupted;                   /* the last run stopped on it */
};

int wk_engine_new(WkEngine **out, uint64_t seed, WkError *err)
{
    WkEngine *e = calloc(1, sizeof *e);
    if (!e)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "engine: out of memory");
    int rc = wk_evq_new(&e->q, err);
    if (rc < 0) {
        free(e);
        return rc;
    }
    e->seed = seed;
    e->next_seq = 1;
    e->ntok = 1; /* token 0 is "not cancellable" */
    *out = e;
    return 0;
}

void wk_engine_free(WkEngine *e)
{
    if (!e)
        return;
    wk_evq_free(e->q);
    free(e->tok_seq);
    for (size_t i = 0; i < e->nrng; i++)
        wk_rng_free(e->rngs[i]);
    free(e->rngs);
    free(e);
}

int wk_engine_on(WkEngine *e, uint16_t kind, WkHandler fn, void *ctx, WkError *err)
{
    if (kind >= WK_ENGINE_MAX_KINDS)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                            "engine: event kind %u >= %d", (unsigned)kind, WK_ENGINE_MAX_KINDS);
    e->slots[kind].fn = fn;
    e->slots[kind].ctx = ctx;
    return 0;
}

int wk_engine_token_new(WkEngine *e, uint32_t *tok, WkError *err)
{
    if (e->ntok >= e->captok) {
        uint32_t nc = e->captok ? e->captok * 2 : 1024;
        uint64_t *n = realloc(e->tok_seq, (size_t)nc * sizeof *n);
        if (!n)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "engine: out of memory");
        memset(n + e->captok, 0, (size_t)(nc - e->captok) * sizeof *n);
        e->tok_seq = n;
        e->captok = nc;
    }
    *tok = e->ntok++;
    e->tok_seq[*tok] = 0;
    return 0;
}

int wk_engine_post(WkEngine *e, WkTime at, uint16_t kind, uint32_t target,
                   uint32_t payload, uint16_t aux, uint32_t token)
{
    if (at < e->now || kind >= WK_ENGINE_MAX_KINDS || token >= e->ntok)
        return WK_E_RANGE;
    WkEvent ev = {
        .time = at,
        .seq = e->next_seq,
        .target = target,
        .kind = kind,
        .aux = aux,
        .token = token,
        .payload = payload,
    };
    int rc = wk_evq_push(e->q, &ev);
    if (rc < 0)
        return rc;
    e->next_seq++;
    if (token)
        e->tok_seq[token] = ev.seq;
    return 0;
}

int wk_engine_post_e(WkEngine *e, WkTime at, uint16_t kind, uint32_t target,
                     uint32_t payload, uint16_t aux, uint32_t token, WkError *err)
{
    int rc = wk_engine_post(e, at, kind, target, payload, aux, token);
    if (rc == WK_E_NOMEM)
        return wk_error_nomem(err, "event queue");
    if (rc < 0)
        return wk_error_set(err, rc, NULL, 0, 0,
                            "engine: event of kind %u at %lld ns refused (now %lld ns, token %u)",
                            (unsigned)kind, (long long)at, (long long)e->now, (unsigned)token);
    return 0;
}

void wk_engine_cancel(WkEngine *e, uint32_t token)
{
    if (token && token < e->ntok)
        e->tok_seq[token] = 0;
}

int wk_engine_pending(const WkEngine *e, uint32_t token)
{
    return token && token < e->ntok && e->tok_seq[token] != 0;
}

WkTime wk_engine_now(const WkEngine *e) { return e->now; }
uint64_t wk_engine_seed(const WkEngine *e) { return e->seed; }
void wk_engine_stop(WkEngine *e) { e->stop = 1; }

void wk_engine_advance_clock(WkEngine *e, WkTime t)
{
    if (t <= e->now)
        return;
    WkTime next = wk_evq_peek_time(e->q); /* a cancelled record may be first: it only makes this stricter */
    if (next > t)
        e->now = t;
}
uint64_t wk_engine_events(const WkEngine *e) { return e->events; }
uint64_t wk_engine_queued(const WkEngine *e) { return wk_evq_size(e->q); }

void wk_engine_set_progress(WkEngine *e, WkProgressFn fn, void *user)
{
    e->progress = fn;
    e->progress_user = user;
}

void wk_engine_set_interrupt(WkEngine *e, const volatile sig_atomic_t *flag) { e->intr = flag; }
int wk_engine_interrupted(const WkEngine *e) { return e->interrupted; }

int wk_engine_run(WkEngine *e, WkTime until, WkError *err)
{
    WkEvent ev;
    e->stop = 0;
    e->interrupted = 0;
    while (!e->stop) {
        if (e->intr && *e->intr) {
            e->interrupted = 1;
            return 0;
        }
        if (!wk_evq_pop(e->q, &ev))
            return 0;
        if (ev.token) {
            if (e->tok_seq[ev.token] != ev.seq)
                continue; /* cancelled or superseded */
            e->tok_seq[ev.token] = 0;
        }
        if (ev.time > until) {
            /* Put it back untouched: its token still owns it. */
            if (ev.token)
                e->tok_seq[ev.token] = ev.seq;
            if (wk_evq_push(e->q, &ev) < 0)
                return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "engine: out of memory");
            if (until > e->now)
                e->now = until;
            return 0;
        }
        e->now = ev.time;
        const Slot *s = &e->slots[ev.kind];
        if (!s->fn)
            return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                                "engine: no handler for event kind %u", (unsigned)ev.kind);
        int rc = s->fn(e, &ev, s->ctx, err);
        if (rc < 0) {
            if (err && err->code == 0)
                wk_error_set(err, rc, NULL, 0, 0, "event handler failed (%s)", wk_error_code_name(rc));
            return rc;
        }
        e->events++;
        if (e->progress && (e->events & 0xffff) == 0)
            e->progress(e->progress_user, e->now, e->events);
    }
    return 0;
}

int wk_engine_rng(WkEngine *e, const char *name, WkRng **out, WkError *err)
{
    for (size_t i = 0; i < e->nrng; i++) {
        if (strcmp(wk_rng_name(e->rngs[i]), name) == 0) {
            *out = e->rngs[i];
            return 0;
        }
    }
    if (e->nrng == e->caprng) {
        size_t nc = e->caprng ? e->caprng * 2 : 8;
        WkRng **n = realloc(e->rngs, nc * sizeof *n);
        if (!n)
            return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "engine: out of memory");
        e->rngs = n;
        e->caprng = nc;
    }
    int rc = wk_rng_new(&e->rngs[e->nrng], e->seed, name, err);
    if (rc < 0)
        return rc;
    *out = e->rngs[e->nrng++];
    return 0;
}
