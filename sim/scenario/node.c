/* SPDX-License-Identifier: Apache-2.0 */
/* node.c — the WkNode tree: paths, positioned errors, map lookups, the
 * keyed readers (booleans, strings, enums; numbers and durations through
 * node_as.c), node building and freeing. Knows nothing of YAML syntax:
 * node_yaml.c builds the tree. */
#include "sim/scenario/node_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *wk_node_kind(const WkNode *n)
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
        return wk_node_error(map, WK_E_INVAL, err, "expected a mapping, got %s", wk_node_kind(map));
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

const WkNode *const *wk_node_items(const WkNode *const *np, size_t *count)
{
    if ((*np)->type == WK_NODE_SEQ) {
        *count = (*np)->nkids;
        return (const WkNode *const *)(*np)->kids;
    }
    *count = 1;
    return np;
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
