/* SPDX-License-Identifier: Apache-2.0 */
/* evq.h — the pending-event set: small fixed-size records popped in strict
 * (time, seq) order. It knows nothing of handlers or cancellation; the engine
 * (sim/core/engine.h) assigns seq and skips cancelled events lazily at pop. */
#ifndef WK_EVQ_H
#define WK_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/time.h"

/* One pending event: 32 bytes. */
typedef struct WkEvent {
    WkTime time;      /* ns: when it fires */
    uint64_t seq;     /* unique, monotone push counter: tie-break and generation */
    uint32_t target;  /* entity index; its meaning belongs to the kind */
    uint16_t kind;    /* handler index in the engine's dispatch table */
    uint16_t aux;     /* small payload, kind-defined */
    uint32_t token;   /* cancellation token (engine), 0 = not cancellable */
    uint32_t payload; /* payload, kind-defined */
} WkEvent;

typedef struct WkEvq WkEvq;

/** Allocate an empty queue. Returns 0 or WK_E_NOMEM (err filled). The caller
 * owns *out and releases it with wk_evq_free. */
int wk_evq_new(WkEvq **out, WkError *err);

/** Release q and every event still in it. NULL is a no-op. */
void wk_evq_free(WkEvq *q);

/** Insert a copy of *ev. ev->time must be >= the time of the last event popped
 * (the engine guarantees it); ev->seq must differ from every seq in the queue.
 * Pushing back the event just popped is allowed. Returns 0, or WK_E_NOMEM
 * (the queue is unchanged). */
int wk_evq_push(WkEvq *q, const WkEvent *ev);

/** Remove the event with the least (time, seq) into *out. Returns 1 when an
 * event was popped, 0 when the queue is empty (*out untouched). */
int wk_evq_pop(WkEvq *q, WkEvent *out);

/** Time of the least event, or WK_TIME_NEVER when empty. Does not remove it. */
WkTime wk_evq_peek_time(WkEvq *q);

/** Number of events in the queue. */
size_t wk_evq_size(const WkEvq *q);

#endif
