/* SPDX-License-Identifier: Apache-2.0 */
/* planted.c — an upward call on purpose: the layer test (check_deps.py
 * --extra) treats this object as a file of models/state and must report its
 * call into the driver (models/run/lifecycle.c). Never linked into wanka. */
#include <stdint.h>

#include "sim/core/error.h"

struct WkRun;
int wk_lifecycle_begin(struct WkRun *r, uint32_t job, const uint32_t *gpus, uint32_t n, WkError *err);
int wk_planted_upward(struct WkRun *r);

int wk_planted_upward(struct WkRun *r) { return wk_lifecycle_begin(r, 0, NULL, 0, NULL); }
