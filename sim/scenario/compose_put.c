/* SPDX-License-Identifier: Apache-2.0 */
/* compose_put.c — put a copy of a value at a dotted key path in a document,
 * creating the mappings on the way. The `--set` text form is doc_set.c;
 * includes and merging are compose.c. */
#include "sim/scenario/compose_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/emit.h"
#include "sim/scenario/node_impl.h"

/* A new empty map node positioned at `at`. */
static WkNode *new_map(const WkNode *at)
{
    WkNode *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->type = WK_NODE_MAP;
    m->file = at->file;
    m->line = at->line;
    m->col = at->col;
    m->index = -1;
    return m;
}

/* Every segment of path is non-empty. */
static int check_path(const char *path, const WkNode *value, WkError *err)
{
    size_t plen = path ? strlen(path) : 0;
    if (plen == 0)
        return wk_node_error(value, WK_E_INVAL, err, "empty key path");
    for (const char *s = path;;) {
        const char *e = strchr(s, '.');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == 0)
            return wk_node_error(value, WK_E_INVAL, err, "key path '%s' has an empty segment", path);
        if (!e)
            break;
        s = e + 1;
    }
    return 0;
}

/* The kid of cur that segment s (len bytes) of path names: *i its index,
 * cur->nkids for a key a map does not have yet. A null node becomes a map;
 * a scalar, or a sequence without that index, is an error at value. */
static int find_slot(WkNode *cur, const char *path, const char *s, size_t len, const WkNode *value, size_t *i,
                     WkError *err)
{
    char seg[128];
    snprintf(seg, sizeof seg, "%.*s", (int)(len < 120 ? len : 120), s);
    if (cur->type == WK_NODE_NULL)
        cur->type = WK_NODE_MAP;
    char where[WK_ERROR_MSG_MAX / 4];
    wk_node_path(cur, where, sizeof where);
    if (cur->type == WK_NODE_SCALAR)
        return wk_node_error(value, WK_E_INVAL, err, "cannot set '%s': '%s' is a scalar (at %s:%ld:%ld), not a mapping",
                             path, where[0] ? where : "(root)", cur->file ? cur->file : "?", cur->line, cur->col);
    *i = cur->nkids;
    if (cur->type == WK_NODE_SEQ) {
        if (!wk_node_is_index(s, len) || (*i = (size_t)strtoull(seg, NULL, 10)) >= cur->nkids)
            return wk_node_error(value, WK_E_INVAL, err,
                                 "cannot set '%s': '%s' is a sequence of %zu item%s: '%s' is not an index in it",
                                 path, where[0] ? where : "(root)", cur->nkids, cur->nkids == 1 ? "" : "s", seg);
    } else {
        for (size_t j = 0; j < cur->nkids; j++)
            if (strlen(cur->kids[j]->key) == len && !memcmp(cur->kids[j]->key, s, len)) {
                *i = j;
                break;
            }
    }
    return 0;
}

/* Put `put` at index i of cur (replacing a kid, or appended when i is
 * cur->nkids), keyed by the segment s (len bytes) in a map. Takes put and
 * v, the value being put (put itself or a later descendant): on failure
 * both are freed. */
static int attach(WkNode *cur, size_t i, WkNode *put, WkNode *v, const char *s, size_t len, const WkNode *value,
                  WkError *err)
{
    free(put->key);
    put->key = NULL;
    if (cur->type == WK_NODE_MAP && !(put->key = wk_node_strndup(s, len)))
        goto fail;
    if (cur->type == WK_NODE_MAP) {
        put->key_line = value->line;
        put->key_col = value->col;
    }
    put->index = cur->type == WK_NODE_SEQ ? (long)i : -1;
    if (i < cur->nkids) {
        put->parent = cur;
        wk_node_free(cur->kids[i]);
        cur->kids[i] = put;
    } else if (wk_node_push(cur, put) < 0) {
        goto fail;
    }
    return 0;
fail:
    if (put != v)
        wk_node_free(put);
    wk_node_free(v);
    return wk_error_nomem(err, "include");
}

int wk_compose_put(WkDoc *doc, const char *path, const WkNode *value, WkError *err)
{
    int rc = check_path(path, value, err);
    if (rc < 0)
        return rc;
    WkNode *v = wk_compose_copy_node(value);
    if (!v)
        return wk_error_nomem(err, "include");
    if (!doc->root) {
        if (!(doc->root = new_map(value))) {
            wk_node_free(v);
            return wk_error_nomem(err, "include");
        }
    } else if (doc->root->type == WK_NODE_NULL) {
        doc->root->type = WK_NODE_MAP;
    }
    WkNode *cur = doc->root;
    for (const char *s = path;;) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s), i;
        if ((rc = find_slot(cur, path, s, len, value, &i, err)) < 0) {
            wk_node_free(v);
            return rc;
        }
        WkNode *put = e ? NULL : v;
        if (!put && i < cur->nkids) {
            cur = cur->kids[i];
            s = e + 1;
            continue;
        }
        if (!put && !(put = new_map(value))) {
            wk_node_free(v);
            return wk_error_nomem(err, "include");
        }
        if ((rc = attach(cur, i, put, v, s, len, value, err)) < 0)
            return rc;
        if (put == v)
            return 0;
        cur = put;
        s = e + 1;
    }
}

int wk_compose_put_all(WkDoc *doc, const WkNode *set, char ***sets, size_t *n, WkError *err)
{
    *sets = NULL;
    *n = 0;
    if (!set || set->type == WK_NODE_NULL)
        return 0;
    if (set->type != WK_NODE_MAP)
        return wk_node_error(set, WK_E_INVAL, err, "expected a mapping of key.path: value");
    if (!(*sets = calloc(set->nkids ? set->nkids : 1, sizeof **sets)))
        return wk_error_nomem(err, "set");
    for (size_t i = 0; i < set->nkids; i++) {
        const WkNode *kv = set->kids[i];
        char *text = wk_emit_flow(kv);
        size_t l = text ? strlen(kv->key) + strlen(text) + 2 : 0;
        if (!text || !((*sets)[*n] = malloc(l))) {
            free(text);
            return wk_error_nomem(err, "set");
        }
        snprintf((*sets)[(*n)++], l, "%s=%s", kv->key, text);
        free(text);
        int rc = wk_compose_put(doc, kv->key, kv, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}
