/* SPDX-License-Identifier: Apache-2.0 */
/* rng.c — named random streams on GSL (the one file that includes its RNG
 * headers). Generator: GSL's taus2, L'Ecuyer's maximally equidistributed
 * combined Tausworthe generator (Math. Comp. 1996; period 2^88), chosen over
 * mt19937 for speed: one draw costs ~3 ns instead of ~10 ns, which is most of
 * the difference between 13.7 and 16.5 M PHOLD events/s (docs/performance.md). */
#include "sim/core/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

struct WkRng {
    gsl_rng *g;
    char name[64];
};

static uint64_t splitmix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

uint64_t wk_rng_stream_seed(uint64_t seed, const char *name)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a 64 offset basis */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= UINT64_C(0x100000001b3);
    }
    return splitmix64(splitmix64(seed) ^ h);
}

int wk_rng_new(WkRng **out, uint64_t seed, const char *name, WkError *err)
{
    gsl_set_error_handler_off();
    WkRng *r = calloc(1, sizeof *r);
    if (!r)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "rng: out of memory");
    r->g = gsl_rng_alloc(gsl_rng_taus2);
    if (!r->g) {
        free(r);
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "rng: out of memory");
    }
    uint64_t s = wk_rng_stream_seed(seed, name);
    /* GSL seeds from an unsigned long of which taus2 uses 32 bits; fold the
     * 64-bit hash so both halves matter. */
    gsl_rng_set(r->g, (unsigned long)((s ^ (s >> 32)) & 0xffffffffu));
    strncpy(r->name, name, sizeof r->name - 1);
    *out = r;
    return 0;
}

void wk_rng_free(WkRng *r)
{
    if (!r)
        return;
    gsl_rng_free(r->g);
    free(r);
}

const char *wk_rng_name(const WkRng *r) { return r->name; }
double wk_rng_uniform(WkRng *r) { return gsl_rng_uniform(r->g); }
double wk_rng_uniform_pos(WkRng *r) { return gsl_rng_uniform_pos(r->g); }

uint64_t wk_rng_uint(WkRng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    if (n <= UINT32_MAX)
        return gsl_rng_uniform_int(r->g, (unsigned long)n);
    return (uint64_t)(gsl_rng_uniform(r->g) * (double)n) % n;
}

/* Inverse transform, -mean * ln U with U uniform on (0, 1): the same
 * distribution as gsl_ran_exponential (which uses log1p(-U)), cheaper. */
double wk_rng_exponential(WkRng *r, double mean) { return -mean * log(gsl_rng_uniform_pos(r->g)); }
double wk_rng_lognormal(WkRng *r, double mu, double sigma) { return gsl_ran_lognormal(r->g, mu, sigma); }
double wk_rng_weibull(WkRng *r, double lambda, double k) { return gsl_ran_weibull(r->g, lambda, k); }
double wk_rng_gaussian(WkRng *r, double mu, double sigma) { return mu + gsl_ran_gaussian(r->g, sigma); }

size_t wk_rng_discrete(WkRng *r, const double *w, size_t n)
{
    double tot = 0;
    for (size_t i = 0; i < n; i++)
        tot += w[i];
    double u = gsl_rng_uniform(r->g) * tot;
    for (size_t i = 0; i < n; i++) {
        if (u < w[i])
            return i;
        u -= w[i];
    }
    return n - 1;
}
