/* SPDX-License-Identifier: Apache-2.0 */
/* conform.h — the broker conformance checks: what every broker (built-in
 * or plugin) must hold, each driven against a scripted network (conform.c:
 * a host whose sites' feasibility, free GPUs, waits, run times and costs
 * are drawn at random every round from a fixed seed). Used by the unit
 * tests on every built-in and by `wanka conformance --broker`. Never
 * prints; a check's verdict is a return value and a message. */
#ifndef WK_BROKER_CONFORM_H
#define WK_BROKER_CONFORM_H

#include <stddef.h>

#include "models/broker/broker.h"

/** Number of checks (0 .. n-1). */
size_t wk_broker_conform_count(void);

/** Short name of check i ("choice", ...) and one line on what it holds
 * (static storage). */
const char *wk_broker_conform_name(size_t i);
const char *wk_broker_conform_description(size_t i);

/** Run check i on broker b (borrowed). Returns 0 when it holds; 1 when it
 * does not, with why (naming the broker, the round and the sites) in
 * msg[0..n); a negative WK_E_* code (err filled) when the check could not
 * be run (out of memory). A broker's init failing is a failed check. */
int wk_broker_conform_run(size_t i, const WkBrokerOps *b, char *msg, size_t n, WkError *err);

#endif
