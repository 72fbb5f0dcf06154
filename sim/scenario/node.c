/* SPDX-License-Identifier: Apache-2.0 */
/* node.c — the WkNode tree: paths, positioned errors, map lookups and key
 * checks, node building and freeing. The keyed readers are node_read.c and
 * the scalar conversions node_as.c, both above this file; it knows nothing
 * of YAML syntax: node_yaml.c builds the tree. */
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

const char *wk_node_join(const char *const *names, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    Out o = {buf, n, 0};
    buf[0] = '\0';
    for (size_t i = 0; names && names[i]; i++)
        put(&o, "%s%s", i ? ", " : "", names[i]);
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
        wk_node_join(known, list, sizeof list);
        wk_node_path(kid, path, sizeof path);
        return wk_error_set(err, WK_E_INVAL, kid->file, kid->key_line, kid->key_col,
                            "%s: unknown key '%s' (%s%s)", path, kid->key,
                            list[0] ? "known: " : "no keys are allowed here", list);
    }
    return 0;
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
