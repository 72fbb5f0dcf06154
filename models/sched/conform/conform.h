/* SPDX-License-Identifier: Apache-2.0 */
/* conform.h — the scheduler conformance checks: the invariants every
 * policy keeps, each run over small built-in scenarios with a guard between
 * the run and the policy (conform.c). Used by the conformance test suite on
 * every built-in (tests/conformance) and by `wanka conformance` on a plugin.
 * Never prints; a check's verdict is a return value and a message. */
#ifndef WK_RUN_CONFORM_H
#define WK_RUN_CONFORM_H

#include <stddef.h>

#include "models/sched/sched.h"
#include "sim/core/error.h"

/** Number of invariants (checks 0 .. n-1). */
size_t wk_conform_count(void);

/** Short name of check i ("no-double-allocation", ...) and one line on what
 * it holds (static storage). */
const char *wk_conform_name(size_t i);
const char *wk_conform_description(size_t i);

/** Run check i on the policy called name: found among the built-ins and the
 * policies of the shared objects plugins[0..nplugins) (loaded for each run,
 * as `wanka run --plugin` does). Returns 0 when it holds; 1 when it does
 * not, with why (naming the policy and scenario) in msg[0..n); a negative
 * WK_E_* code (err filled) when the check could not be done (out of
 * memory). A policy's own error (its init or a callback failing, a run
 * failing) is a failed check, not an error. */
int wk_conform_run(size_t i, const char *name, const char *const *plugins, size_t nplugins, char *msg, size_t n,
                   WkError *err);

#endif
