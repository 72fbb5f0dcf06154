/* SPDX-License-Identifier: Apache-2.0 */
/* rng.h — named, independent random streams. Each stochastic process draws
 * from its own stream, seeded from (scenario seed, stream name) through a
 * hash, so adding a stream never changes the numbers another one draws.
 * Only rng.c includes GSL's RNG headers. */
#ifndef WK_RNG_H
#define WK_RNG_H

#include <stdint.h>

#include "sim/core/error.h"

typedef struct WkRng WkRng;

/** The 64-bit seed of stream `name` under scenario seed `seed`: a hash of both
 * (FNV-1a of the name, mixed with the seed by splitmix64). Pure function. */
uint64_t wk_rng_stream_seed(uint64_t seed, const char *name);

/** Create the stream `name` for scenario seed `seed`. Returns 0 or
 * WK_E_NOMEM. The caller owns *out (wk_rng_free). name is copied. */
int wk_rng_new(WkRng **out, uint64_t seed, const char *name, WkError *err);

/** Release a stream. NULL is a no-op. */
void wk_rng_free(WkRng *r);

/** Name the stream was created with (borrowed). */
const char *wk_rng_name(const WkRng *r);

/** Uniform double in [0, 1). */
double wk_rng_uniform(WkRng *r);

/** Uniform double in (0, 1). */
double wk_rng_uniform_pos(WkRng *r);

/** Uniform integer in [0, n); n must be >= 1. */
uint64_t wk_rng_uint(WkRng *r, uint64_t n);

/** Exponential variate with the given mean (> 0). */
double wk_rng_exponential(WkRng *r, double mean);

/** Log-normal variate: exp(N(mu, sigma^2)); the median is exp(mu). */
double wk_rng_lognormal(WkRng *r, double mu, double sigma);

/** Weibull variate with scale lambda > 0 and shape k > 0. */
double wk_rng_weibull(WkRng *r, double lambda, double k);

/** Normal variate N(mu, sigma^2). */
double wk_rng_gaussian(WkRng *r, double mu, double sigma);

/** Index drawn from a discrete distribution with non-negative weights w[0..n)
 * (not all zero). Linear in n: meant for short tables. */
size_t wk_rng_discrete(WkRng *r, const double *w, size_t n);

#endif
