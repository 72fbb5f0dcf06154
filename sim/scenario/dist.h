/* SPDX-License-Identifier: Apache-2.0 */
/* dist.h — probability distributions of durations as scenario values:
 * a plain duration is a constant; a map {dist: exponential|lognormal|weibull|
 * uniform|constant, ...} picks a family. Draws go through a named stream. */
#ifndef WK_DIST_H
#define WK_DIST_H

#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/core/rng.h"
#include "sim/core/time.h"

typedef enum WkDistKind {
    WK_DIST_CONSTANT = 0, /* a = value (s) */
    WK_DIST_EXPONENTIAL,  /* a = mean (s) */
    WK_DIST_LOGNORMAL,    /* a = mu, b = sigma of ln(X/1 s) */
    WK_DIST_WEIBULL,      /* a = scale (s), b = shape */
    WK_DIST_UNIFORM,      /* a = min (s), b = max (s) */
} WkDistKind;

typedef struct WkDist {
    WkDistKind kind;
    double a, b;
} WkDist;

/** Read the distribution under `key` of `map`. Accepted forms:
 *   key: 90s                                   constant
 *   key: {dist: constant, value: 90s}
 *   key: {dist: exponential, mean: 1h}
 *   key: {dist: lognormal, median: 30m, sigma: 1.5}   (or mean: instead of median:)
 *   key: {dist: weibull, scale: 2h, shape: 0.7}
 *   key: {dist: uniform, min: 1m, max: 1h}
 * Durations must be > 0 (uniform min may be 0), sigma and shape > 0.
 * Absent and !required: returns 0 and leaves *out unchanged. Errors are
 * positioned (file:line:col, key path). Returns 0 or WK_E_INVAL/WK_E_RANGE. */
int wk_dist_parse(const WkNode *map, const char *key, int required, WkDist *out, WkError *err);

/** Mean of the distribution in seconds. */
double wk_dist_mean_s(const WkDist *d);

/** One draw, in ns, rounded to nearest, clamped to [0, 2^62]. */
WkTime wk_dist_draw(const WkDist *d, WkRng *r);

#endif
