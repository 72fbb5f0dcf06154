/* SPDX-License-Identifier: Apache-2.0 */
/* node.c — typed, range-checked readers over a WkNode tree: integers, doubles,
 * booleans, strings, enums and durations, each error naming file:line:col and
 * the key path. Knows nothing of YAML syntax: node_yaml.c builds the tree. */
#include "sim/scenario/node_impl.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIGITS 40 /* significant digits kept by the decimal scanner */

/* ---- paths and errors --------------------------------------------------- */

typedef struct Out {
    char *buf;
    size_t n, used;
} Out;

static void put(Out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(Out *o, const char *fmt, ...)
{
    if (o->used + 1 >= o->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->buf + o->used, o->n - o->used, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->used += (size_t)k < o->n - o->used ? (size_t)k : o->n - o->used - 1;
}

static void put_path(Out *o, const WkNode *node)
{
    if (!node || !node->parent)
        return;
    put_path(o, node->parent);
    if (node->parent->type == WK_NODE_SEQ)
        put(o, "[%ld]", node->index);
    else if (node->key)
        put(o, "%s%s", o->used ? "." : "", node->key);
}

const char *wk_node_path(const WkNode *node, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    buf[0] = '\0';
    Out o = {buf, n, 0};
    put_path(&o, node);
    return buf;
}

static int node_verror(const WkNode *node, int code, WkError *err, const char *fmt, va_list ap)
{
    char path[WK_ERROR_MSG_MAX / 2], what[WK_ERROR_MSG_MAX];
    vsnprintf(what, sizeof what, fmt, ap);
    if (!node)
        return wk_error_set(err, code, NULL, 0, 0, "%s", what);
    wk_node_path(node, path, sizeof path);
    if (path[0])
        return wk_error_set(err, code, node->file, node->line, node->col, "%s: %s", path, what);
    return wk_error_set(err, code, node->file, node->line, node->col, "%s", what);
}

int wk_node_error(const WkNode *node, int code, WkError *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = node_verror(node, code, err, fmt, ap);
    va_end(ap);
    return rc;
}

/* "a mapping", "a string", ... for "expected X, got Y" messages. */
static const char *kind(const WkNode *n)
{
    switch (n->type) {
    case WK_NODE_NULL: return "null";
    case WK_NODE_MAP: return "a mapping";
    case WK_NODE_SEQ: return "a sequence";
    default: return n->quoted ? "a string" : "a scalar";
    }
}

/* ---- maps --------------------------------------------------------------- */

const WkNode *wk_node_get(const WkNode *map, const char *key)
{
    if (!map || map->type != WK_NODE_MAP || !key)
        return NULL;
    for (size_t i = 0; i < map->nkids; i++)
        if (map->kids[i]->key && strcmp(map->kids[i]->key, key) == 0)
            return map->kids[i];
    return NULL;
}

int wk_node_expect_keys(const WkNode *map, const char *const *known, WkError *err)
{
    if (!map || map->type == WK_NODE_NULL)
        return 0;
    if (map->type != WK_NODE_MAP)
        return wk_node_error(map, WK_E_INVAL, err, "expected a mapping, got %s", kind(map));
    for (size_t i = 0; i < map->nkids; i++) {
        const WkNode *kid = map->kids[i];
        int ok = 0;
        for (size_t j = 0; known && known[j]; j++)
            if (strcmp(known[j], kid->key) == 0) {
                ok = 1;
                break;
            }
        if (ok)
            continue;
        char path[WK_ERROR_MSG_MAX / 2], list[WK_ERROR_MSG_MAX / 2];
        Out o = {list, sizeof list, 0};
        list[0] = '\0';
        for (size_t j = 0; known && known[j]; j++)
            put(&o, "%s%s", j ? ", " : "", known[j]);
        wk_node_path(kid, path, sizeof path);
        return wk_error_set(err, WK_E_INVAL, kid->file, kid->key_line, kid->key_col,
                            "%s: unknown key '%s' (%s%s)", path, kid->key,
                            list[0] ? "known: " : "no keys are allowed here", list);
    }
    return 0;
}

/* The value of key in map for a typed reader: 0 with *out NULL when absent or
 * null and not required. */
static int lookup(const WkNode *map, const char *key, int required, const WkNode **out,
                  WkError *err)
{
    *out = NULL;
    if (map && map->type != WK_NODE_MAP && map->type != WK_NODE_NULL)
        return wk_node_error(map, WK_E_INVAL, err, "expected a mapping, got %s", kind(map));
    const WkNode *v = wk_node_get(map, key);
    if (v && v->type != WK_NODE_NULL) {
        *out = v;
        return 0;
    }
    if (!required)
        return 0;
    if (v)
        return wk_node_error(v, WK_E_INVAL, err, "a value is required (got null)");
    char path[WK_ERROR_MSG_MAX / 2];
    wk_node_path(map, path, sizeof path);
    if (!map)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: missing required key", key);
    return wk_error_set(err, WK_E_INVAL, map->file, map->line, map->col,
                        "%s%s%s: missing required key", path, path[0] ? "." : "", key);
}

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
        return wk_node_error(n, WK_E_INVAL, err, "expected %s, got %s", what, kind(n));
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
        return wk_node_error(n, WK_E_INVAL, err, "%s, got %s", expected, kind(n));
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

/* ---- keyed readers ------------------------------------------------------ */

int wk_node_int(const WkNode *map, const char *key, int required, int64_t min, int64_t max,
                int64_t *out, WkError *err)
{
    const WkNode *v;
    int rc = lookup(map, key, required, &v, err);
    return rc < 0 || !v ? rc : wk_node_as_int(v, min, max, out, err);
}

int wk_node_double(const WkNode *map, const char *key, int required, double min, double max,
                   double *out, WkError *err)
{
    const WkNode *v;
    int rc = lookup(map, key, required, &v, err);
    return rc < 0 || !v ? rc : wk_node_as_double(v, min, max, out, err);
}

int wk_node_duration(const WkNode *map, const char *key, int required, WkTime min, WkTime max,
                     WkTime *out, WkError *err)
{
    const WkNode *v;
    int rc = lookup(map, key, required, &v, err);
    return rc < 0 || !v ? rc : wk_node_as_duration(v, min, max, out, err);
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b)
            return 0;
    }
    return *a == *b;
}

int wk_node_bool(const WkNode *map, const char *key, int required, int *out, WkError *err)
{
    static const char *const yes[] = {"true", "yes", "on"};
    static const char *const no[] = {"false", "no", "off"};
    const WkNode *v;
    int rc = lookup(map, key, required, &v, err);
    if (rc < 0 || !v)
        return rc;
    if (v->type != WK_NODE_SCALAR || v->quoted)
        return wk_node_error(v, WK_E_INVAL, err, "expected true or false, got %s", kind(v));
    for (int i = 0; i < 3; i++) {
        if (ieq(v->str, yes[i])) {
            *out = 1;
            return 0;
        }
        if (ieq(v->str, no[i])) {
            *out = 0;
            return 0;
        }
    }
    return wk_node_error(v, WK_E_INVAL, err, "expected true or false, got '%s'", v->str);
}

int wk_node_str(const WkNode *map, const char *key, int required, const char **out, WkError *err)
{
    const WkNode *v;
    int rc = lookup(map, key, required, &v, err);
    if (rc < 0 || !v)
        return rc;
    if (v->type != WK_NODE_SCALAR)
        return wk_node_error(v, WK_E_INVAL, err, "expected a string, got %s", kind(v));
    *out = v->str;
    return 0;
}

int wk_node_enum(const WkNode *map, const char *key, int required, const char *const *names,
                 int *out, WkError *err)
{
    const char *s = NULL;
    int rc = wk_node_str(map, key, required, &s, err);
    if (rc < 0 || !s)
        return rc;
    for (int i = 0; names && names[i]; i++)
        if (strcmp(names[i], s) == 0) {
            *out = i;
            return 0;
        }
    char list[WK_ERROR_MSG_MAX / 2];
    Out o = {list, sizeof list, 0};
    list[0] = '\0';
    for (int i = 0; names && names[i]; i++)
        put(&o, "%s%s", i ? ", " : "", names[i]);
    return wk_node_error(wk_node_get(map, key), WK_E_INVAL, err, "unknown value '%s' (known: %s)",
                         s, list);
}

char *wk_node_strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

int wk_node_is_index(const char *s, size_t len)
{
    if (len == 0 || len > 18)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

int wk_node_push(WkNode *parent, WkNode *kid)
{
    if (parent->nkids == parent->capkids) {
        size_t nc = parent->capkids ? parent->capkids * 2 : 4;
        WkNode **nk = realloc(parent->kids, nc * sizeof *nk);
        if (!nk)
            return WK_E_NOMEM;
        parent->kids = nk;
        parent->capkids = nc;
    }
    parent->kids[parent->nkids++] = kid;
    kid->parent = parent;
    return 0;
}

void wk_node_free(WkNode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        wk_node_free(n->kids[i]);
    free(n->kids);
    free(n->key);
    free(n->str);
    free(n);
}

int wk_node_seeds(const WkNode *n, size_t max, int unique, uint64_t **out, size_t *nout, WkError *err)
{
    *out = NULL;
    *nout = 0;
    int64_t v;
    int rc;
    if (n->type == WK_NODE_MAP) {
        static const char *const keys[] = {"from", "to", NULL};
        int64_t a = 0, b = 0;
        if ((rc = wk_node_expect_keys(n, keys, err)) < 0 ||
            (rc = wk_node_int(n, "from", 1, 0, INT64_MAX, &a, err)) < 0 ||
            (rc = wk_node_int(n, "to", 1, a, INT64_MAX, &b, err)) < 0)
            return rc;
        if ((uint64_t)(b - a) >= max)
            return wk_node_error(n, WK_E_RANGE, err, "more than %zu seeds", max);
        if (!(*out = calloc((size_t)(b - a + 1), sizeof **out)))
            return wk_error_nomem(err, "seeds");
        for (int64_t x = a; x <= b; x++)
            (*out)[(*nout)++] = (uint64_t)x;
        return 0;
    }
    const WkNode *const *items = (const WkNode *const *)&n;
    size_t count = 1;
    if (n->type == WK_NODE_SEQ) {
        items = (const WkNode *const *)n->kids;
        count = n->nkids;
    }
    if (count == 0 || n->type == WK_NODE_NULL)
        return wk_node_error(n, WK_E_INVAL, err, "expected a seed, a list of seeds or {from, to}");
    if (count > max)
        return wk_node_error(n, WK_E_RANGE, err, "more than %zu seeds", max);
    if (!(*out = calloc(count, sizeof **out)))
        return wk_error_nomem(err, "seeds");
    for (size_t i = 0; i < count; i++) {
        if ((rc = wk_node_as_int(items[i], 0, INT64_MAX, &v, err)) < 0)
            return rc;
        for (size_t k = 0; unique && k < *nout; k++)
            if ((*out)[k] == (uint64_t)v)
                return wk_node_error(items[i], WK_E_INVAL, err, "seed %lld is listed twice", (long long)v);
        (*out)[(*nout)++] = (uint64_t)v;
    }
    return 0;
}
