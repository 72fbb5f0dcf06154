/* SPDX-License-Identifier: Apache-2.0 */
/* doc_set.c — `--set key.path=value` overrides applied to a WkDoc: the path
 * walked from the root map, the value parsed as one line of flow YAML.
 * Knows no YAML syntax itself: node_yaml.c parses the value. */
#include "sim/scenario/node_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SET_FILE "--set" /* file name of nodes made by wk_doc_set */

static int set_error(int code, long n, long col, const char *assignment, WkError *err,
                     const char *what)
{
    return wk_error_set(err, code, SET_FILE, n, col, "--set '%s': %s", assignment, what);
}

/* Put value in place of parent->kids[i] (or append when i == nkids) under
 * key (klen bytes; NULL in a sequence). Takes value: freed on failure. */
static int place(WkNode *parent, size_t i, WkNode *value, const char *key, size_t klen,
                 long key_line, long key_col)
{
    if (key) {
        value->key = wk_node_strndup(key, klen);
        if (!value->key) {
            wk_node_free(value);
            return WK_E_NOMEM;
        }
        value->key_line = key_line;
        value->key_col = key_col;
    }
    value->index = parent->type == WK_NODE_SEQ ? (long)i : -1;
    if (i == parent->nkids) {
        if (wk_node_push(parent, value) < 0) {
            wk_node_free(value);
            return WK_E_NOMEM;
        }
        return 0;
    }
    wk_node_free(parent->kids[i]);
    parent->kids[i] = value;
    value->parent = parent;
    return 0;
}

static int parse_value(const char *value, long n, long vcol, const char *assignment,
                       WkNode **out, WkError *err)
{
    WkError local;
    wk_error_clear(&local);
    WkNode *root = NULL;
    int block = 0;
    int rc = wk_node_yaml_parse(SET_FILE, value, strlen(value), n, vcol, &root, &block, &local);
    if (rc < 0) {
        long line = 0, col = 0;
        if (sscanf(local.where, SET_FILE ":%ld:%ld", &line, &col) != 2)
            line = n, col = vcol;
        return set_error(rc, line, col, assignment, err, local.msg);
    }
    if (root && block) {
        wk_node_free(root);
        return set_error(WK_E_INVAL, n, vcol, assignment, err,
                         "the value must be a scalar or a flow collection ([a, b] or {k: v}); "
                         "quote it to pass a string");
    }
    if (!root) { /* "k=" or a value that is only a comment */
        root = calloc(1, sizeof *root);
        if (!root)
            return WK_E_NOMEM;
        root->type = WK_NODE_NULL;
        root->file = SET_FILE;
        root->line = n > 0 ? n : 1; /* where the parser puts the value's start */
        root->col = n > 0 ? vcol : 1;
        root->index = -1;
    }
    *out = root;
    return 0;
}

static int set_nomem(WkError *err)
{
    return wk_error_set(err, WK_E_NOMEM, SET_FILE, 0, 0, "--set: out of memory");
}

/* The path's shape, checked before anything is touched: not too deep, no
 * empty segment. */
static int check_path(const char *assignment, const char *k0, const char *k1, long n, WkError *err)
{
    size_t nseg = 1;
    for (const char *p = k0; p < k1; p++)
        nseg += *p == '.';
    if (nseg > WK_NODE_MAX_DEPTH)
        return set_error(WK_E_INVAL, n, 1, assignment, err, "key path is too deep");
    for (const char *s = k0; s <= k1;) {
        const char *e = memchr(s, '.', (size_t)(k1 - s));
        if (!e)
            e = k1;
        if (e == s)
            return set_error(WK_E_INVAL, n, (long)(s - assignment) + 1, assignment, err,
                             "empty key segment in the path");
        s = e + 1;
    }
    return 0;
}

/* An empty document (or a null root) becomes a mapping to set into. */
static int ensure_root(WkDoc *doc, long n, long vcol)
{
    if (doc->root && doc->root->type != WK_NODE_NULL)
        return 0;
    if (!doc->root) {
        doc->root = calloc(1, sizeof *doc->root);
        if (!doc->root)
            return WK_E_NOMEM;
        doc->root->file = SET_FILE;
        doc->root->line = n;
        doc->root->col = vcol;
        doc->root->index = -1;
    }
    doc->root->type = WK_NODE_MAP;
    return 0;
}

/* Where the segment s (len bytes, at column scol) leads from cur: *i is the
 * kid's index, cur->nkids for a new map entry. A scalar on the way, a bad or
 * out-of-range sequence index is an error. */
static int find_slot(WkNode *cur, const char *s, size_t len, long scol, const char *assignment, long n,
                     size_t *i, WkError *err)
{
    char seg[64], what[WK_ERROR_MSG_MAX / 2], path[WK_ERROR_MSG_MAX / 4];
    snprintf(seg, sizeof seg, "%.*s", (int)(len < 60 ? len : 60), s);
    if (cur->type == WK_NODE_NULL)
        cur->type = WK_NODE_MAP; /* "key:" with no value becomes a mapping */
    if (cur->type == WK_NODE_SCALAR) {
        wk_node_path(cur, path, sizeof path);
        snprintf(what, sizeof what, "'%s' is a scalar (at %s:%ld:%ld), not a mapping",
                 path[0] ? path : "(root)",
                 cur->file ? cur->file : "?", cur->line, cur->col);
        return set_error(WK_E_INVAL, n, scol, assignment, err, what);
    }
    *i = cur->nkids;
    if (cur->type == WK_NODE_SEQ) {
        wk_node_path(cur, path, sizeof path);
        if (!wk_node_is_index(s, len)) {
            snprintf(what, sizeof what, "'%s' is a sequence: expected an index, got '%s'",
                     path[0] ? path : "(root)", seg);
            return set_error(WK_E_INVAL, n, scol, assignment, err, what);
        }
        *i = (size_t)strtoull(seg, NULL, 10);
        if (*i >= cur->nkids) {
            snprintf(what, sizeof what, "index %zu is out of range for '%s' (%zu item%s)", *i,
                     path[0] ? path : "(root)", cur->nkids, cur->nkids == 1 ? "" : "s");
            return set_error(WK_E_INVAL, n, scol, assignment, err, what);
        }
    } else {
        for (size_t j = 0; j < cur->nkids; j++)
            if (strlen(cur->kids[j]->key) == len && !memcmp(cur->kids[j]->key, s, len)) {
                *i = j;
                break;
            }
    }
    return 0;
}

int wk_doc_set(WkDoc *doc, const char *assignment, long n, WkError *err)
{
    if (!doc || !assignment)
        return wk_error_set(err, WK_E_INVAL, SET_FILE, n, 0, "--set: nothing to apply");
    const char *eq = strchr(assignment, '=');
    const char *k0 = assignment, *k1 = eq ? eq : assignment;
    while (k0 < k1 && (*k0 == ' ' || *k0 == '\t'))
        k0++;
    while (k1 > k0 && (k1[-1] == ' ' || k1[-1] == '\t'))
        k1--;
    if (!eq || k0 == k1)
        return set_error(WK_E_INVAL, n, 1, assignment, err, "expected key.path=value");
    long vcol = (long)(eq - assignment) + 2;
    int rc = check_path(assignment, k0, k1, n, err);
    if (rc < 0)
        return rc;

    WkNode *value = NULL;
    rc = parse_value(eq + 1, n, vcol, assignment, &value, err);
    if (rc < 0)
        return rc == WK_E_NOMEM ? set_nomem(err) : rc;
    if (ensure_root(doc, n, vcol) < 0) {
        wk_node_free(value);
        return set_nomem(err);
    }
    WkNode *cur = doc->root;
    for (const char *s = k0; s <= k1;) {
        const char *e = memchr(s, '.', (size_t)(k1 - s));
        if (!e)
            e = k1;
        size_t len = (size_t)(e - s), i;
        long scol = (long)(s - assignment) + 1;
        if ((rc = find_slot(cur, s, len, scol, assignment, n, &i, err)) < 0) {
            wk_node_free(value);
            return rc;
        }
        const char *key = cur->type == WK_NODE_MAP ? s : NULL;
        if (e == k1)
            return place(cur, i, value, key, len, n, scol) < 0 ? set_nomem(err) : 0;
        if (i == cur->nkids) { /* a new intermediate mapping */
            WkNode *m = calloc(1, sizeof *m);
            if (!m || place(cur, i, m, key, len, n, scol) < 0) {
                wk_node_free(value);
                return set_nomem(err);
            }
            m->type = WK_NODE_MAP;
            m->file = SET_FILE;
            m->line = n;
            m->col = vcol;
        }
        cur = cur->kids[i];
        s = e + 1;
    }
    wk_node_free(value); /* not reached: the last segment returns */
    return WK_E_INTERNAL;
}
