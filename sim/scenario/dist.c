/* SPDX-License-Identifier: Apache-2.0 */
/* dist.c — parsing and drawing duration distributions. */
#include "sim/scenario/dist.h"

#include <math.h>

#define MAX_S 1e9 /* about 31 years: larger durations are surely a typo */

int wk_dist_parse(const WkNode *map, const char *key, int required, WkDist *out, WkError *err)
{
    static const char *const kinds[] = {"constant", "exponential", "lognormal", "weibull", "uniform", NULL};
    const WkNode *n = wk_node_get(map, key);
    if (!n || n->type == WK_NODE_NULL) {
        if (required)
            return wk_node_error(map, WK_E_INVAL, err, "missing required key '%s'", key);
        return 0;
    }
    const WkTime lo = 1, hi = wk_time_from_s(MAX_S);
    WkTime t = 0, t2 = 0;
    int rc;
    if (n->type == WK_NODE_SCALAR) {
        if ((rc = wk_node_as_duration(n, lo, hi, &t, err)) < 0)
            return rc;
        *out = (WkDist){.kind = WK_DIST_CONSTANT, .a = wk_time_to_s(t)};
        return 0;
    }
    int kind = 0;
    if ((rc = wk_node_enum(n, "dist", 1, kinds, &kind, err)) < 0)
        return rc;
    WkDist d = {.kind = (WkDistKind)kind};
    switch (d.kind) {
    case WK_DIST_CONSTANT: {
        static const char *const k[] = {"dist", "value", NULL};
        if ((rc = wk_node_expect_keys(n, k, err)) < 0 || (rc = wk_node_duration(n, "value", 1, lo, hi, &t, err)) < 0)
            return rc;
        d.a = wk_time_to_s(t);
        break;
    }
    case WK_DIST_EXPONENTIAL: {
        static const char *const k[] = {"dist", "mean", NULL};
        if ((rc = wk_node_expect_keys(n, k, err)) < 0 || (rc = wk_node_duration(n, "mean", 1, lo, hi, &t, err)) < 0)
            return rc;
        d.a = wk_time_to_s(t);
        break;
    }
    case WK_DIST_LOGNORMAL: {
        static const char *const k[] = {"dist", "median", "mean", "sigma", NULL};
        double sigma = 0;
        if ((rc = wk_node_expect_keys(n, k, err)) < 0 ||
            (rc = wk_node_double(n, "sigma", 1, 1e-9, 10, &sigma, err)) < 0)
            return rc;
        int has_median = wk_node_get(n, "median") != NULL, has_mean = wk_node_get(n, "mean") != NULL;
        if (has_median == has_mean)
            return wk_node_error(n, WK_E_INVAL, err, "lognormal needs exactly one of 'median' or 'mean'");
        if ((rc = wk_node_duration(n, has_median ? "median" : "mean", 1, lo, hi, &t, err)) < 0)
            return rc;
        /* median = e^mu; mean = e^(mu + sigma^2/2) */
        d.a = log(wk_time_to_s(t)) - (has_mean ? sigma * sigma / 2 : 0);
        d.b = sigma;
        break;
    }
    case WK_DIST_WEIBULL: {
        static const char *const k[] = {"dist", "scale", "shape", NULL};
        if ((rc = wk_node_expect_keys(n, k, err)) < 0 || (rc = wk_node_duration(n, "scale", 1, lo, hi, &t, err)) < 0 ||
            (rc = wk_node_double(n, "shape", 1, 1e-3, 100, &d.b, err)) < 0)
            return rc;
        d.a = wk_time_to_s(t);
        break;
    }
    case WK_DIST_UNIFORM: {
        static const char *const k[] = {"dist", "min", "max", NULL};
        if ((rc = wk_node_expect_keys(n, k, err)) < 0 || (rc = wk_node_duration(n, "min", 1, 0, hi, &t, err)) < 0 ||
            (rc = wk_node_duration(n, "max", 1, lo, hi, &t2, err)) < 0)
            return rc;
        if (t2 < t)
            return wk_node_error(wk_node_get(n, "max"), WK_E_RANGE, err, "max must be >= min");
        d.a = wk_time_to_s(t);
        d.b = wk_time_to_s(t2);
        break;
    }
    }
    *out = d;
    return 0;
}

double wk_dist_mean_s(const WkDist *d)
{
    switch (d->kind) {
    case WK_DIST_CONSTANT: return d->a;
    case WK_DIST_EXPONENTIAL: return d->a;
    case WK_DIST_LOGNORMAL: return exp(d->a + d->b * d->b / 2);
    case WK_DIST_WEIBULL: return d->a * tgamma(1 + 1 / d->b);
    case WK_DIST_UNIFORM: return (d->a + d->b) / 2;
    }
    return 0;
}

WkTime wk_dist_draw(const WkDist *d, WkRng *r)
{
    double s = 0;
    switch (d->kind) {
    case WK_DIST_CONSTANT: s = d->a; break;
    case WK_DIST_EXPONENTIAL: s = wk_rng_exponential(r, d->a); break;
    case WK_DIST_LOGNORMAL: s = wk_rng_lognormal(r, d->a, d->b); break;
    case WK_DIST_WEIBULL: s = wk_rng_weibull(r, d->a, d->b); break;
    case WK_DIST_UNIFORM: s = d->a + (d->b - d->a) * wk_rng_uniform(r); break;
    }
    if (!(s > 0))
        return 0;
    if (s > 4.6e9) /* 2^62 ns */
        s = 4.6e9;
    return wk_time_from_s(s);
}
