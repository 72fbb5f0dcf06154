/* SPDX-License-Identifier: Apache-2.0 */
/* wanka/node.h — what a plugin (a scheduler, wanka/sched.h; a broker,
 * wanka/broker.h) reads its parameters with: the scenario's YAML tree as an
 * opaque WkNode and the wk_node_* readers, exported by the wanka executable.
 * Installed with them. Self-contained: standard headers and wanka/error.h. */
#ifndef WANKA_NODE_H
#define WANKA_NODE_H

#include <stdint.h>

#include "error.h"

/* Simulated time: int64 nanoseconds since the start of the run. */
typedef int64_t WkTime;

/* A node of the scenario's YAML tree (opaque here): the map a policy reads
 * its parameters from (`scheduler:`, `broker:`), with the readers below. */
typedef struct WkNode WkNode;

/* --- reading parameters (the map given to a policy's init) --- */

/** Child of a map by key, or NULL (also when map is NULL or not a map). */
const WkNode *wk_node_get(const WkNode *map, const char *key);

/** Check that map is a map and that every key is in the NULL-terminated
 * list `known` (start it with the keys every policy of its kind accepts:
 * WK_SCHED_COMMON_KEYS, WK_BROKER_COMMON_KEYS); another key gives
 * WK_E_INVAL "unknown key 'k' (known: ...)" at the key's position. */
int wk_node_expect_keys(const WkNode *map, const char *const *known, WkError *err);

/* Typed readers: each looks up `key` in `map`. An absent key (or a null
 * value) returns 0 leaving *out unchanged if !required, else WK_E_INVAL
 * "missing required key". A wrong type or out-of-range value gives
 * WK_E_INVAL / WK_E_RANGE positioned at the value, naming the key path. */
int wk_node_int(const WkNode *map, const char *key, int required, int64_t min, int64_t max,
                int64_t *out, WkError *err);
int wk_node_double(const WkNode *map, const char *key, int required, double min, double max,
                   double *out, WkError *err);
int wk_node_bool(const WkNode *map, const char *key, int required, int *out, WkError *err);
/** *out borrows the scalar text (lives as long as the scenario). */
int wk_node_str(const WkNode *map, const char *key, int required, const char **out, WkError *err);
/** A duration: seconds, or a number with a unit (ns, us, ms, s, m, h, d, w). */
int wk_node_duration(const WkNode *map, const char *key, int required, WkTime min, WkTime max,
                     WkTime *out, WkError *err);

#endif
