/* SPDX-License-Identifier: Apache-2.0 */
/* compose.c — `include:` with a deep merge on WkNode trees, and documents
 * made from a node. Nodes borrow their file name from a document; copies
 * and the name pool are compose_copy.c, `put` at a key path is
 * compose_put.c. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sim/scenario/compose_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/emit.h"
#include "sim/scenario/node_impl.h"

/* ---- nodes ---------------------------------------------------------------------- */

static char *dup_s(const char *s)
{
    return s ? wk_node_strndup(s, strlen(s)) : NULL;
}

int wk_compose_equal(const WkNode *a, const WkNode *b)
{
    if (!a || !b)
        return a == b;
    if (a->type != b->type || a->nkids != b->nkids)
        return 0;
    if ((a->key || b->key) && (!a->key || !b->key || strcmp(a->key, b->key) != 0))
        return 0;
    if (a->type == WK_NODE_SCALAR && (strcmp(a->str, b->str) != 0 || !a->quoted != !b->quoted))
        return 0;
    for (size_t i = 0; i < a->nkids; i++)
        if (!wk_compose_equal(a->kids[i], b->kids[i]))
            return 0;
    return 1;
}

/* Merge src into dst, both maps; takes src (its kids move into dst). */
static void merge_map(WkNode *dst, WkNode *src, int *oom)
{
    for (size_t i = 0; i < src->nkids; i++) {
        WkNode *s = src->kids[i];
        src->kids[i] = NULL;
        WkNode *d = NULL;
        size_t j = 0;
        for (; j < dst->nkids; j++)
            if (strcmp(dst->kids[j]->key, s->key) == 0) {
                d = dst->kids[j];
                break;
            }
        if (d && d->type == WK_NODE_MAP && s->type == WK_NODE_MAP) {
            merge_map(d, s, oom);
        } else if (d) {
            wk_node_free(d);
            s->parent = dst;
            s->index = -1;
            dst->kids[j] = s;
        } else if (wk_node_push(dst, s) < 0) {
            wk_node_free(s);
            *oom = 1;
        } else {
            s->index = -1; /* dst is a map */
        }
    }
    src->nkids = 0;
    wk_node_free(src);
}

/* ---- includes ------------------------------------------------------------------------ */

typedef struct Ctx {
    WkDoc **keep;                         /* included documents, freed at the end */
    size_t nkeep, capkeep;
    char *chain[WK_COMPOSE_MAX_DEPTH + 2]; /* canonical paths of the files being resolved */
    const char *shown[WK_COMPOSE_MAX_DEPTH + 2]; /* their names as given */
    int depth;                             /* entries in chain */
    size_t bytes;                          /* text of the included files read so far */
    char list[512];                        /* "a.yaml, b.yaml": the files included */
} Ctx;

/* Drop "." segments and "x/.." pairs from path in place, lexically (so
 * "scenarios/lib/../base.yaml" reads "scenarios/base.yaml" in messages). */
static void tidy(char *path)
{
    char *seg[256];
    size_t n = 0, keep_up = 0;
    int abs = path[0] == '/';
    char *copy = dup_s(path);
    if (!copy)
        return;
    for (char *save = NULL, *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (strcmp(t, ".") == 0)
            continue;
        if (strcmp(t, "..") == 0 && n > keep_up) {
            n--;
            continue;
        }
        if (n == 256) { /* absurdly deep: leave the path as given */
            free(copy);
            return;
        }
        if (strcmp(t, "..") == 0 && !abs)
            keep_up = n + 1; /* a leading ".." stays */
        seg[n++] = t;
    }
    char *p = path;
    if (abs)
        *p++ = '/';
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(seg[i]);
        memmove(p, seg[i], l);
        p += l;
        if (i + 1 < n)
            *p++ = '/';
    }
    if (p == path)
        *p++ = '.';
    *p = '\0';
    free(copy);
}

static char *join(const char *dir, const char *rel)
{
    char *p;
    if (rel[0] == '/' || !dir || !dir[0] || strcmp(dir, ".") == 0) {
        p = dup_s(rel);
    } else {
        size_t a = strlen(dir), b = strlen(rel);
        p = malloc(a + b + 2);
        if (p) {
            memcpy(p, dir, a);
            p[a] = '/';
            memcpy(p + a + 1, rel, b + 1);
        }
    }
    if (p)
        tidy(p);
    return p;
}

/* Append " (included from FILE:LINE:COL)" to an error from an included file. */
static int from_include(WkError *err, const WkError *sub, const WkNode *item)
{
    char where[64 + WK_ERROR_WHERE_MAX];
    snprintf(where, sizeof where, "%s:%ld:%ld", item->file ? item->file : "?", item->line, item->col);
    if (sub->where[0])
        return wk_error_set(err, sub->code, sub->where, 0, 0, "%s (included from %s)", sub->msg, where);
    return wk_error_set(err, sub->code, NULL, 0, 0, "%s (included from %s)", sub->msg, where);
}

static int resolve_tree(Ctx *c, const WkDoc *doc, WkNode **out, WkError *err);

/* Load, check and resolve the file named by include item `item` of doc. */
static int include_one(Ctx *c, const WkDoc *doc, const WkNode *item, WkNode **out, WkError *err)
{
    *out = NULL;
    char *full = join(doc->dir, item->str);
    if (!full)
        return wk_error_nomem(err, "include");
    if (c->depth > WK_COMPOSE_MAX_DEPTH) {
        free(full);
        return wk_node_error(item, WK_E_INVAL, err, "includes nested more than %d levels deep (at '%s')",
                             WK_COMPOSE_MAX_DEPTH, item->str);
    }
    char *real = realpath(full, NULL);
    if (!real) {
        int e = errno;
        int rc = wk_node_error(item, e == ENOMEM ? WK_E_NOMEM : WK_E_IO, err, "cannot read '%s': %s", full,
                               strerror(e));
        free(full);
        return rc;
    }
    for (int i = 0; i < c->depth; i++) {
        if (!c->chain[i] || strcmp(c->chain[i], real) != 0)
            continue;
        char cyc[WK_ERROR_MSG_MAX / 2];
        size_t used = 0;
        cyc[0] = '\0';
        for (int k = i; k < c->depth && used < sizeof cyc; k++)
            used += (size_t)snprintf(cyc + used, sizeof cyc - used, "%s -> ", c->shown[k]);
        if (used < sizeof cyc)
            snprintf(cyc + used, sizeof cyc - used, "%s", full);
        free(real);
        free(full);
        return wk_node_error(item, WK_E_INVAL, err, "include cycle: %s", cyc);
    }
    if (c->nkeep >= WK_COMPOSE_MAX_FILES) {
        free(real);
        free(full);
        return wk_node_error(item, WK_E_INVAL, err,
                             "more than %d files read through include: (repeats count; an include bomb?) at '%s'",
                             WK_COMPOSE_MAX_FILES, item->str);
    }
    WkDoc *sub = NULL;
    WkError suberr;
    wk_error_clear(&suberr);
    int rc = wk_doc_load_file(&sub, full, &suberr);
    free(full);
    if (rc < 0) {
        free(real);
        return from_include(err, &suberr, item);
    }
    c->bytes += sub->text_len;
    if (c->bytes > WK_COMPOSE_MAX_BYTES) {
        free(real);
        wk_doc_free(sub);
        return wk_node_error(item, WK_E_INVAL, err, "included files exceed %u MiB together (at '%s')",
                             WK_COMPOSE_MAX_BYTES >> 20, item->str);
    }
    if (c->nkeep == c->capkeep) {
        size_t nc = c->capkeep ? c->capkeep * 2 : 8;
        WkDoc **nk = realloc(c->keep, nc * sizeof *nk);
        if (!nk) {
            free(real);
            wk_doc_free(sub);
            return wk_error_nomem(err, "include");
        }
        c->keep = nk;
        c->capkeep = nc;
    }
    c->keep[c->nkeep++] = sub;
    size_t used = strlen(c->list);
    if (used + 8 < sizeof c->list)
        snprintf(c->list + used, sizeof c->list - used, "%s%s", used ? ", " : "", sub->file);
    if (!sub->root) { /* an empty file adds nothing */
        free(real);
        return 0;
    }
    if (sub->root->type != WK_NODE_MAP) {
        free(real);
        wk_error_clear(&suberr);
        wk_node_error(sub->root, WK_E_INVAL, &suberr, "an included file must hold a mapping");
        return from_include(err, &suberr, item);
    }
    c->chain[c->depth] = real;
    c->shown[c->depth] = sub->file;
    c->depth++;
    rc = resolve_tree(c, sub, out, err);
    c->depth--;
    free(real);
    return rc;
}

/* The merged tree of doc (a map root) with its includes, as a new tree. */
static int resolve_tree(Ctx *c, const WkDoc *doc, WkNode **out, WkError *err)
{
    *out = NULL;
    const WkNode *root = doc->root;
    const WkNode *inc = wk_node_get(root, "include");
    const WkNode *const *items = NULL;
    size_t nitems = 0;
    if (inc && inc->type == WK_NODE_SCALAR) {
        items = (const WkNode *const *)&inc;
        nitems = 1;
    } else if (inc && inc->type == WK_NODE_SEQ) {
        items = (const WkNode *const *)inc->kids;
        nitems = inc->nkids;
    } else if (inc) {
        return wk_node_error(inc, WK_E_INVAL, err, "expected a file name or a list of file names");
    }
    for (size_t i = 0; i < nitems; i++)
        if (items[i]->type != WK_NODE_SCALAR || !items[i]->str[0])
            return wk_node_error(items[i], WK_E_INVAL, err, "expected a file name (a non-empty string)");
    WkNode *acc = NULL;
    int rc = 0, oom = 0;
    for (size_t i = 0; i < nitems && rc == 0; i++) {
        WkNode *t = NULL;
        rc = include_one(c, doc, items[i], &t, err);
        if (rc < 0 || !t)
            continue;
        if (!acc)
            acc = t;
        else
            merge_map(acc, t, &oom);
    }
    if (rc < 0) {
        wk_node_free(acc);
        return rc;
    }
    WkNode *own = wk_compose_copy_node(root);
    if (!own) {
        wk_node_free(acc);
        return wk_error_nomem(err, "include");
    }
    for (size_t i = 0; i < own->nkids; i++) {
        if (strcmp(own->kids[i]->key, "include") != 0)
            continue;
        wk_node_free(own->kids[i]);
        memmove(own->kids + i, own->kids + i + 1, (own->nkids - i - 1) * sizeof *own->kids);
        own->nkids--;
        break;
    }
    if (acc) {
        /* the including file's position stands for the whole */
        acc->file = own->file;
        acc->line = own->line;
        acc->col = own->col;
        merge_map(acc, own, &oom);
    } else {
        acc = own;
    }
    if (oom) {
        wk_node_free(acc);
        return wk_error_nomem(err, "include");
    }
    *out = acc;
    return 0;
}

/* The names of the files c read (c->keep), as a new array of c->nkeep
 * malloc'd strings; NULL when out of memory (or nothing was read). */
static char **input_names(const Ctx *c)
{
    char **in = c->nkeep ? calloc(c->nkeep, sizeof *in) : NULL;
    for (size_t i = 0; in && i < c->nkeep; i++) {
        if (!(in[i] = dup_s(c->keep[i]->file))) {
            for (size_t k = 0; k < i; k++)
                free(in[k]);
            free(in);
            in = NULL;
        }
    }
    return in;
}

int wk_compose_resolve(WkDoc *doc, WkError *err)
{
    if (!doc || !doc->root || doc->root->type != WK_NODE_MAP || !wk_node_get(doc->root, "include"))
        return 0;
    Ctx c;
    memset(&c, 0, sizeof c);
    c.chain[0] = realpath(doc->file, NULL); /* NULL for a document not read from a file */
    c.shown[0] = doc->file;
    c.depth = 1;
    WkNode *tree = NULL;
    int rc = resolve_tree(&c, doc, &tree, err);
    char *yaml = NULL, *text = NULL;
    if (rc == 0) {
        yaml = wk_emit_yaml(tree);
        size_t n = yaml ? strlen(doc->file) + strlen(c.list) + strlen(yaml) + 96 : 0;
        text = yaml ? malloc(n) : NULL;
        if (!text) {
            rc = wk_error_nomem(err, "include");
        } else {
            snprintf(text, n, "# %s with its includes (%s) merged by wanka\n%s", doc->file, c.list, yaml);
            char **in = input_names(&c);
            WkNode *old = doc->root;
            doc->root = tree;
            if ((c.nkeep && !in) || wk_compose_copy_pool(doc, text, strlen(text)) < 0) {
                doc->root = old;
                for (size_t i = 0; in && i < c.nkeep; i++)
                    free(in[i]);
                free(in);
                rc = wk_error_nomem(err, "include");
            } else {
                wk_node_free(old);
                tree = NULL;
                for (size_t i = 0; i < doc->ninputs; i++) /* a document resolves once; be safe */
                    free(doc->inputs[i]);
                free(doc->inputs);
                doc->inputs = in;
                doc->ninputs = c.nkeep;
            }
        }
    }
    wk_node_free(tree);
    free(yaml);
    free(text);
    free(c.chain[0]);
    for (size_t i = 0; i < c.nkeep; i++)
        wk_doc_free(c.keep[i]);
    free(c.keep);
    return rc;
}

int wk_compose_load_file(WkDoc **out, const char *path, WkError *err)
{
    int rc = wk_doc_load_file(out, path, err);
    if (rc == 0 && (rc = wk_compose_resolve(*out, err)) < 0) {
        wk_doc_free(*out);
        *out = NULL;
    }
    return rc;
}

/* ---- documents from a node ------------------------------------------------------------- */

int wk_compose_doc_from_node(WkDoc **out, const WkNode *node, const char *name, const char *dir,
                             WkError *err)
{
    *out = NULL;
    WkDoc *d = calloc(1, sizeof *d);
    if (!d)
        return wk_error_nomem(err, "include");
    char *yaml = NULL;
    d->file = dup_s(name ? name : "<inline>");
    d->dir = dup_s(dir ? dir : ".");
    if (!d->file || !d->dir || (node && !(d->root = wk_compose_copy_node(node))) || !(yaml = wk_emit_yaml(d->root)) ||
        wk_compose_copy_pool(d, yaml, strlen(yaml)) < 0) {
        free(yaml);
        wk_doc_free(d);
        return wk_error_nomem(err, "include");
    }
    free(yaml);
    if (d->root) {
        free(d->root->key);
        d->root->key = NULL;
        d->root->index = -1;
        if (d->root->type == WK_NODE_NULL) {
            wk_node_free(d->root);
            d->root = NULL;
        }
    }
    int rc = wk_compose_resolve(d, err);
    if (rc < 0) {
        wk_doc_free(d);
        return rc;
    }
    *out = d;
    return 0;
}
