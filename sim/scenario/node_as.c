/* SPDX-License-Identifier: Apache-2.0 */
/* node_as.c — a scalar node read as an integer, a double, a duration or a rate,
 * range-checked, each error naming file:line:col and the key path; and
 * wk_parse_duration, wk_parse_rate. The keyed readers (wk_node_int, ...) that call these
 * are node_read.c. */
#include "sim/scenario/node_impl.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIGITS 40 /* significant digits kept by the decimal scanner */

/* ---- numbers ------------------------------------------------------------ */

/* A decimal number as written: value = digits × 10^exp, sign apart. */
typedef struct Dec {
    int neg;
    char dig[MAX_DIGITS + 1]; /* significant digits, no leading zeros */
    int ndig;
    long exp;
    int dropped;     /* non-zero digits beyond MAX_DIGITS were dropped */
    int has_point;   /* written with '.' or an exponent */
    const char *end; /* first byte after the number */
} Dec;

/* Scan [+-] digits[_digits] [. digits] [e[+-]digits] at s. Returns 0, or -1
 * when s does not start with a number. */
static int scan_dec(const char *s, Dec *d)
{
    memset(d, 0, sizeof *d);
    const char *p = s;
    if (*p == '+' || *p == '-')
        d->neg = *p++ == '-';
    int seen = 0, frac = 0;
    for (;; p++) {
        if (*p == '_' && seen && p[1] >= '0' && p[1] <= '9')
            continue;
        if (*p == '.' && !frac) {
            frac = 1;
            d->has_point = 1;
            continue;
        }
        if (*p < '0' || *p > '9')
            break;
        seen = 1;
        if (d->ndig == 0 && *p == '0') {
            if (frac)
                d->exp--;
            continue;
        }
        if (d->ndig < MAX_DIGITS) {
            d->dig[d->ndig++] = *p;
            if (frac)
                d->exp--;
        } else {
            d->dropped |= *p != '0';
            if (!frac)
                d->exp++;
        }
    }
    if (!seen)
        return -1;
    if ((*p == 'e' || *p == 'E') &&
        ((p[1] >= '0' && p[1] <= '9') ||
         ((p[1] == '+' || p[1] == '-') && p[2] >= '0' && p[2] <= '9'))) {
        p++;
        int eneg = 0;
        if (*p == '+' || *p == '-')
            eneg = *p++ == '-';
        long e = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if (e < 1000000)
                e = e * 10 + (*p - '0');
        d->exp += eneg ? -e : e;
        d->has_point = 1;
    }
    d->end = p;
    return 0;
}

/* Exact integer value of d: 0, WK_E_INVAL (not an integer) or WK_E_RANGE. */
static int dec_to_int(const Dec *d, int64_t *out)
{
    if (d->ndig == 0) {
        *out = 0;
        return 0;
    }
    long ip = d->ndig + d->exp; /* digits before the decimal point */
    if (ip > 19)
        return WK_E_RANGE;
    if (d->dropped || ip <= 0)
        return WK_E_INVAL;
    for (long i = ip; i < d->ndig; i++)
        if (d->dig[i] != '0')
            return WK_E_INVAL;
    uint64_t u = 0;
    for (long i = 0; i < ip; i++) {
        int digit = i < d->ndig ? d->dig[i] - '0' : 0;
        if (u > (UINT64_MAX - (uint64_t)digit) / 10)
            return WK_E_RANGE;
        u = u * 10 + (uint64_t)digit;
    }
    if (d->neg) {
        if (u > (uint64_t)INT64_MAX + 1)
            return WK_E_RANGE;
        *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
    } else {
        if (u > (uint64_t)INT64_MAX)
            return WK_E_RANGE;
        *out = (int64_t)u;
    }
    return 0;
}

/* Range messages: "must be between A and B", "at least A", "at most B". */
static int range_error(const WkNode *n, WkError *err, int lo_open, int hi_open, const char *lo,
                       const char *hi, const char *got)
{
    if (lo_open && hi_open)
        return wk_node_error(n, WK_E_RANGE, err, "out of range (got %s)", got);
    if (hi_open)
        return wk_node_error(n, WK_E_RANGE, err, "must be at least %s (got %s)", lo, got);
    if (lo_open)
        return wk_node_error(n, WK_E_RANGE, err, "must be at most %s (got %s)", hi, got);
    return wk_node_error(n, WK_E_RANGE, err, "must be between %s and %s (got %s)", lo, hi, got);
}

/* A number-shaped scalar: NULL node, wrong kind or quoted text give errors. */
static int want_number(const WkNode *n, const char *what, WkError *err)
{
    if (!n)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "missing value");
    if (n->type == WK_NODE_SCALAR && n->quoted)
        return wk_node_error(n, WK_E_INVAL, err, "expected a number, got a string (\"%s\")",
                             n->str);
    if (n->type != WK_NODE_SCALAR)
        return wk_node_error(n, WK_E_INVAL, err, "expected %s, got %s", what, wk_node_kind(n));
    return 0;
}

int wk_node_as_int(const WkNode *n, int64_t min, int64_t max, int64_t *out, WkError *err)
{
    int rc = want_number(n, "an integer", err);
    if (rc < 0)
        return rc;
    Dec d;
    int64_t v = 0;
    rc = scan_dec(n->str, &d) < 0 || *d.end ? WK_E_INVAL : dec_to_int(&d, &v);
    if (rc == WK_E_INVAL)
        return wk_node_error(n, WK_E_INVAL, err, "expected an integer, got '%s'", n->str);
    if (rc == 0 && v >= min && v <= max) {
        *out = v;
        return 0;
    }
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, "%" PRId64, min);
    snprintf(hi, sizeof hi, "%" PRId64, max);
    return range_error(n, err, min == INT64_MIN, max == INT64_MAX, lo, hi, n->str);
}

int wk_node_as_double(const WkNode *n, double min, double max, double *out, WkError *err)
{
    int rc = want_number(n, "a number", err);
    if (rc < 0)
        return rc;
    Dec d;
    char clean[512];
    size_t len = strlen(n->str);
    if (scan_dec(n->str, &d) < 0 || *d.end || len >= sizeof clean)
        return wk_node_error(n, WK_E_INVAL, err, "expected a number, got '%s'", n->str);
    size_t k = 0;
    for (const char *p = n->str; *p; p++)
        if (*p != '_')
            clean[k++] = *p;
    clean[k] = '\0';
    char *end;
    double v = strtod(clean, &end);
    if (*end)
        return wk_node_error(n, WK_E_INVAL, err, "expected a number, got '%s'", n->str);
    if (isfinite(v) && v >= min && v <= max) {
        *out = v;
        return 0;
    }
    char lo[40], hi[40];
    snprintf(lo, sizeof lo, "%g", min);
    snprintf(hi, sizeof hi, "%g", max);
    return range_error(n, err, min <= -DBL_MAX, max >= DBL_MAX, lo, hi, n->str);
}

/* ---- durations ---------------------------------------------------------- */

static const struct {
    const char *name;
    int64_t ns;
} units[] = {
    {"ns", 1},
    {"us", WK_NS_PER_US},
    {"ms", WK_NS_PER_MS},
    {"s", WK_NS_PER_S},
    {"m", WK_NS_PER_MIN},
    {"min", WK_NS_PER_MIN},
    {"h", WK_NS_PER_H},
    {"d", WK_NS_PER_DAY},
    {"w", 7 * WK_NS_PER_DAY},
};

/* Parse "1.5h" etc.; *has_unit tells whether a suffix was written. */
static int parse_duration(const char *s, WkTime *out, int *has_unit)
{
    Dec d;
    *has_unit = 0;
    if (!s || scan_dec(s, &d) < 0)
        return WK_E_INVAL;
    const char *u = d.end;
    while (*u == ' ')
        u++;
    int64_t unit = WK_NS_PER_S;
    if (*u) {
        size_t i, nu = sizeof units / sizeof units[0];
        for (i = 0; i < nu && strcmp(units[i].name, u) != 0; i++)
            ;
        if (i == nu)
            return WK_E_INVAL;
        unit = units[i].ns;
        *has_unit = 1;
    } else if (u != d.end) {
        return WK_E_INVAL; /* trailing blanks */
    }
    if (d.ndig == 0) {
        *out = 0;
        return 0;
    }
    /* Integer part exactly, fraction through a double rounded to the ns. */
    long ip = d.ndig + d.exp;
    if (ip > 19)
        return WK_E_RANGE;
    uint64_t whole = 0;
    for (long i = 0; i < ip; i++)
        whole = whole * 10 + (uint64_t)(i < d.ndig ? d.dig[i] - '0' : 0);
    char frac[2 * MAX_DIGITS + 8] = "0.";
    size_t k = 2;
    if (ip < -MAX_DIGITS)
        ip = -MAX_DIGITS; /* below 1e-40: rounds to 0 ns either way */
    for (long i = ip; i < d.ndig; i++)
        frac[k++] = i < 0 ? '0' : d.dig[i];
    frac[k] = '\0';
    double f = strtod(frac, NULL);
    if (whole > (uint64_t)(INT64_MAX / unit))
        return WK_E_RANGE;
    int64_t ns = (int64_t)whole * unit;
    int64_t part = (int64_t)llround(f * (double)unit);
    if (ns > INT64_MAX - part)
        return WK_E_RANGE;
    ns += part;
    *out = d.neg ? -ns : ns;
    return 0;
}

int wk_parse_duration(const char *s, WkTime *out)
{
    int has_unit;
    WkTime v;
    int rc = parse_duration(s, &v, &has_unit);
    if (rc == 0)
        *out = v;
    return rc;
}

/* Shortest exact spelling of a duration: "0s", "90s", "2d", "1500ms". */
static void fmt_duration(WkTime t, char *buf, size_t n)
{
    static const struct {
        const char *name;
        int64_t ns;
    } big[] = {{"d", WK_NS_PER_DAY}, {"h", WK_NS_PER_H}, {"min", WK_NS_PER_MIN},
               {"s", WK_NS_PER_S}, {"ms", WK_NS_PER_MS}, {"us", WK_NS_PER_US}};
    if (t == 0) {
        snprintf(buf, n, "0s");
        return;
    }
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        if (t % big[i].ns == 0) {
            snprintf(buf, n, "%" PRId64 "%s", t / big[i].ns, big[i].name);
            return;
        }
    snprintf(buf, n, "%" PRId64 "ns", t);
}

int wk_node_as_duration(const WkNode *n, WkTime min, WkTime max, WkTime *out, WkError *err)
{
    static const char expected[] =
        "expected a duration (seconds, or a number with unit ns, us, ms, s, m, min, h, d, w)";
    if (!n)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "missing value");
    if (n->type != WK_NODE_SCALAR)
        return wk_node_error(n, WK_E_INVAL, err, "%s, got %s", expected, wk_node_kind(n));
    WkTime v = 0;
    int has_unit = 0;
    int rc = parse_duration(n->str, &v, &has_unit);
    if (rc == WK_E_INVAL)
        return wk_node_error(n, WK_E_INVAL, err, "%s, got '%s'", expected, n->str);
    /* "90s" is text either way; a quoted bare "90" is a string, not a number. */
    if (n->quoted && !has_unit)
        return wk_node_error(n, WK_E_INVAL, err, "expected a number, got a string (\"%s\")",
                             n->str);
    if (rc == 0 && v >= min && v <= max) {
        *out = v;
        return 0;
    }
    char lo[40], hi[40];
    fmt_duration(min, lo, sizeof lo);
    fmt_duration(max, hi, sizeof hi);
    return range_error(n, err, min <= -INT64_MAX, max == INT64_MAX, lo, hi, n->str);
}

/* ---- rates -------------------------------------------------------------- */

static const struct {
    const char *name;
    double bits; /* bits per second of one unit */
} rates[] = {
    {"bps", 1},     {"kbps", 1e3},  {"Mbps", 1e6},  {"Gbps", 1e9},   {"Tbps", 1e12},
    {"b/s", 1},     {"kb/s", 1e3},  {"Mb/s", 1e6},  {"Gb/s", 1e9},   {"Tb/s", 1e12},
    {"B/s", 8},     {"kB/s", 8e3},  {"MB/s", 8e6},  {"GB/s", 8e9},   {"TB/s", 8e12},
};

/* Parse "400Gbps" etc. into bits per second; *has_unit tells whether a
 * unit was written. */
static int parse_rate(const char *s, double *out, int *has_unit)
{
    Dec d;
    char num[128];
    *has_unit = 0;
    if (!s || scan_dec(s, &d) < 0 || (size_t)(d.end - s) >= sizeof num)
        return WK_E_INVAL;
    size_t k = 0;
    for (const char *p = s; p < d.end; p++)
        if (*p != '_')
            num[k++] = *p;
    num[k] = '\0';
    double v = strtod(num, NULL), unit = 1;
    const char *u = d.end;
    while (*u == ' ')
        u++;
    if (*u) {
        size_t i, nu = sizeof rates / sizeof rates[0];
        for (i = 0; i < nu && strcmp(rates[i].name, u) != 0; i++)
            ;
        if (i == nu)
            return WK_E_INVAL;
        unit = rates[i].bits;
        *has_unit = 1;
    } else if (u != d.end) {
        return WK_E_INVAL; /* trailing blanks */
    }
    *out = v * unit;
    return isfinite(*out) ? 0 : WK_E_RANGE;
}

int wk_parse_rate(const char *s, double *bits_per_s)
{
    int has_unit;
    double v;
    int rc = parse_rate(s, &v, &has_unit);
    if (rc == 0)
        *bits_per_s = v;
    return rc;
}

int wk_node_as_rate(const WkNode *n, double min, double max, double *bits_per_s, WkError *err)
{
    static const char expected[] =
        "expected a rate (bits per second, or a number with unit bps, kbps, Mbps, Gbps, Tbps, Gb/s, GB/s, ...)";
    if (!n)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "missing value");
    if (n->type != WK_NODE_SCALAR)
        return wk_node_error(n, WK_E_INVAL, err, "%s, got %s", expected, wk_node_kind(n));
    double v = 0;
    int has_unit = 0;
    int rc = parse_rate(n->str, &v, &has_unit);
    if (rc == WK_E_INVAL)
        return wk_node_error(n, WK_E_INVAL, err, "%s, got '%s'", expected, n->str);
    if (n->quoted && !has_unit)
        return wk_node_error(n, WK_E_INVAL, err, "expected a number, got a string (\"%s\")", n->str);
    if (rc == 0 && v >= min && v <= max) {
        *bits_per_s = v;
        return 0;
    }
    char lo[40], hi[40];
    snprintf(lo, sizeof lo, "%g bit/s", min);
    snprintf(hi, sizeof hi, "%g bit/s", max);
    return range_error(n, err, min <= -DBL_MAX, max >= DBL_MAX, lo, hi, n->str);
}
