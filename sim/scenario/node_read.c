/* SPDX-License-Identifier: Apache-2.0 */
/* node_read.c — the keyed readers: a map's value looked up by key, required
 * or not, and read as an integer, a double, a duration, a rate (through
 * node_as.c), a boolean, a string or one of a list of names; and
 * wk_node_seeds. Calls down into node_as.c and node.c, never the reverse. */
#include "sim/scenario/node_impl.h"

#include <stdlib.h>
#include <string.h>

/* The value of key in map for a typed reader: 0 with *out NULL when absent or
 * null and not required. */
static int lookup(const WkNode *map, const char *key, int required, const WkNode **out,
                  WkError *err)
{
    *out = NULL;
    if (map && map->type != WK_NODE_MAP && map->type != WK_NODE_NULL)
        return wk_node_error(map, WK_E_INVAL, err, "expected a mapping, got %s", wk_node_kind(map));
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

int wk_node_rate(const WkNode *map, const char *key, int required, double min, double max,
                 double *bits_per_s, WkError *err)
{
    const WkNode *v;
    int rc = lookup(map, key, required, &v, err);
    return rc < 0 || !v ? rc : wk_node_as_rate(v, min, max, bits_per_s, err);
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
        return wk_node_error(v, WK_E_INVAL, err, "expected true or false, got %s", wk_node_kind(v));
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
        return wk_node_error(v, WK_E_INVAL, err, "expected a string, got %s", wk_node_kind(v));
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
    wk_node_join(names, list, sizeof list);
    return wk_node_error(wk_node_get(map, key), WK_E_INVAL, err, "unknown value '%s' (known: %s)",
                         s, list);
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
    size_t count;
    const WkNode *const *items = wk_node_items(&n, &count);
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
