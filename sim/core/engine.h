/* SPDX-License-Identifier: Apache-2.0 */
/* engine.h — the discrete-event engine: a clock, the pending-event queue,
 * dispatch by event kind, O(1) lazy cancellation through tokens, and the
 * named RNG streams of one run. All state of a run hangs off a WkEngine, so
 * replications can run side by side in one process. */
#ifndef WK_ENGINE_H
#define WK_ENGINE_H

#include <signal.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/evq.h"
#include "sim/core/rng.h"
#include "sim/core/time.h"

#define WK_ENGINE_MAX_KINDS 64

typedef struct WkEngine WkEngine;

/** An event handler. ev is borrowed for the call. ctx is the pointer given at
 * registration. Returns 0, or a negative WK_E_* code that stops the run
 * (the handler fills err, the engine's error record, with details). */
typedef int (*WkHandler)(WkEngine *eng, const WkEvent *ev, void *ctx, WkError *err);

/** Progress hook: called from wk_engine_run every 2^16 committed events. */
typedef void (*WkProgressFn)(void *user, WkTime now, uint64_t events);

/** Create an engine at time 0 for scenario seed `seed`. The caller owns *out
 * (wk_engine_free). Returns 0 or WK_E_NOMEM. */
int wk_engine_new(WkEngine **out, uint64_t seed, WkError *err);

/** Release the engine, its queue and its RNG streams. NULL is a no-op. */
void wk_engine_free(WkEngine *e);

/** Register fn (with ctx, borrowed) as the handler of `kind` (< WK_ENGINE_MAX_KINDS).
 * Returns 0 or WK_E_RANGE. */
int wk_engine_on(WkEngine *e, uint16_t kind, WkHandler fn, void *ctx, WkError *err);

/** A new cancellation token (>= 1). A token names at most one live event: posting
 * an event with a token supersedes the token's previous event. Returns 0 and
 * sets *tok, or WK_E_NOMEM. */
int wk_engine_token_new(WkEngine *e, uint32_t *tok, WkError *err);

/** Schedule an event at absolute time `at` (>= now). kind must have a handler.
 * token 0 = not cancellable; otherwise the token's previous pending event, if
 * any, is cancelled. Returns 0, WK_E_RANGE (at < now, bad kind/token) or
 * WK_E_NOMEM. */
int wk_engine_post(WkEngine *e, WkTime at, uint16_t kind, uint32_t target,
                   uint32_t payload, uint16_t aux, uint32_t token);

/** wk_engine_post that also records its failure in err with the engine's
 * real code: WK_E_NOMEM ("event queue: out of memory") or WK_E_RANGE
 * (naming the kind and the times). Returns 0 or that code. */
int wk_engine_post_e(WkEngine *e, WkTime at, uint16_t kind, uint32_t target,
                     uint32_t payload, uint16_t aux, uint32_t token, WkError *err);

/** Cancel the token's pending event, if any: O(1); the record is skipped when
 * it reaches the head of the queue. */
void wk_engine_cancel(WkEngine *e, uint32_t token);

/** 1 when the token has a pending (not cancelled, not yet fired) event. */
int wk_engine_pending(const WkEngine *e, uint32_t token);

/** Current simulated time (ns). */
WkTime wk_engine_now(const WkEngine *e);

/** Scenario seed the engine was created with. */
uint64_t wk_engine_seed(const WkEngine *e);

/** Process events in (time, seq) order while their time is <= until. Returns 0
 * when the queue is empty, `until` is reached (now is then set to until if the
 * queue still holds later events) or wk_engine_stop was called; or the negative
 * code of the first failing handler (err filled). */
int wk_engine_run(WkEngine *e, WkTime until, WkError *err);

/** Move the clock forward to t when no event is pending before or at t
 * (a caller acting at t between runs, as a network's sync); never back,
 * never past a pending event. */
void wk_engine_advance_clock(WkEngine *e, WkTime t);

/** Ask wk_engine_run to return after the current event. */
void wk_engine_stop(WkEngine *e);

/** Events dispatched so far (cancelled ones excluded). */
uint64_t wk_engine_events(const WkEngine *e);

/** Events pending in the queue, cancelled ones included. */
uint64_t wk_engine_queued(const WkEngine *e);

/** The named stream of this run, created on first use and owned by the engine.
 * Returns 0 and sets *out, or WK_E_NOMEM. */
int wk_engine_rng(WkEngine *e, const char *name, WkRng **out, WkError *err);

/** Install a progress hook (NULL to remove). user is borrowed. */
void wk_engine_set_progress(WkEngine *e, WkProgressFn fn, void *user);

/** Poll *flag (borrowed, must outlive the engine; NULL removes it) before
 * each event: once it is non-zero, wk_engine_run returns 0 before the next
 * event, as after wk_engine_stop, and wk_engine_interrupted turns 1. Meant for
 * a flag that a SIGINT/SIGTERM handler sets (sim/cli/cli_common.c). */
void wk_engine_set_interrupt(WkEngine *e, const volatile sig_atomic_t *flag);

/** 1 when the last wk_engine_run returned because the interrupt flag was set. */
int wk_engine_interrupted(const WkEngine *e);

#endif
