/* SPDX-License-Identifier: Apache-2.0 */
/* compose_copy.c — deep copies of WkNode trees and documents, and the pool
 * that keeps a document's file names after its text (one allocation, freed
 * by wk_doc_free). Includes and merging are compose.c; `put` is
 * compose_put.c. */
#include "sim/scenario/compose_impl.h"

#include <stdlib.h>
#include <string.h>

#include "sim/scenario/node_impl.h"

static char *dup_s(const char *s)
{
    return s ? wk_node_strndup(s, strlen(s)) : NULL;
}

WkNode *wk_compose_copy_node(const WkNode *n)
{
    WkNode *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *n;
    c->parent = NULL;
    c->kids = NULL;
    c->nkids = c->capkids = 0;
    c->key = NULL;
    c->str = NULL;
    if ((n->key && !(c->key = dup_s(n->key))) || (n->str && !(c->str = dup_s(n->str)))) {
        wk_node_free(c);
        return NULL;
    }
    if (n->nkids) {
        c->kids = malloc(n->nkids * sizeof *c->kids);
        if (!c->kids) {
            wk_node_free(c);
            return NULL;
        }
        c->capkids = n->nkids;
        for (size_t i = 0; i < n->nkids; i++) {
            WkNode *k = wk_compose_copy_node(n->kids[i]);
            if (!k) {
                wk_node_free(c);
                return NULL;
            }
            k->parent = c;
            c->kids[c->nkids++] = k;
        }
    }
    return c;
}

/* ---- file names kept with the text ------------------------------------------------ */

typedef struct Names {
    const char **v;
    size_t n, cap;
    int oom;
} Names;

static void collect(Names *nm, const WkNode *n)
{
    if (!n)
        return;
    if (n->file) {
        size_t i = 0;
        while (i < nm->n && strcmp(nm->v[i], n->file) != 0)
            i++;
        if (i == nm->n) {
            if (nm->n == nm->cap) {
                size_t nc = nm->cap ? nm->cap * 2 : 8;
                const char **nv = realloc(nm->v, nc * sizeof *nv);
                if (!nv) {
                    nm->oom = 1;
                    return;
                }
                nm->v = nv;
                nm->cap = nc;
            }
            nm->v[nm->n++] = n->file;
        }
    }
    for (size_t i = 0; i < n->nkids; i++)
        collect(nm, n->kids[i]);
}

static void remap(WkNode *n, const Names *nm, char *const *to)
{
    if (!n)
        return;
    if (n->file)
        for (size_t i = 0; i < nm->n; i++)
            if (strcmp(nm->v[i], n->file) == 0) {
                n->file = to[i];
                break;
            }
    for (size_t i = 0; i < n->nkids; i++)
        remap(n->kids[i], nm, to);
}

int wk_compose_copy_pool(WkDoc *doc, const char *text, size_t len)
{
    Names nm = {0};
    collect(&nm, doc->root);
    size_t total = len + 1;
    for (size_t i = 0; i < nm.n; i++)
        total += strlen(nm.v[i]) + 1;
    char *buf = nm.oom ? NULL : malloc(total);
    char **to = nm.oom ? NULL : calloc(nm.n ? nm.n : 1, sizeof *to);
    if (!buf || !to) {
        free(buf);
        free(to);
        free(nm.v);
        return WK_E_NOMEM;
    }
    if (len)
        memcpy(buf, text, len);
    buf[len] = '\0';
    char *p = buf + len + 1;
    for (size_t i = 0; i < nm.n; i++) {
        size_t l = strlen(nm.v[i]) + 1;
        memcpy(p, nm.v[i], l);
        to[i] = p;
        p += l;
    }
    remap(doc->root, &nm, to);
    free(doc->text);
    doc->text = buf;
    doc->text_len = len;
    free(to);
    free(nm.v);
    return 0;
}

int wk_compose_copy(WkDoc **out, const WkDoc *src, WkError *err)
{
    *out = NULL;
    WkDoc *d = calloc(1, sizeof *d);
    if (!d)
        return wk_error_nomem(err, "include");
    d->file = dup_s(src->file ? src->file : "<copy>");
    d->dir = dup_s(src->dir ? src->dir : ".");
    if (!d->file || !d->dir || (src->root && !(d->root = wk_compose_copy_node(src->root))) ||
        wk_compose_copy_pool(d, src->text ? src->text : "", src->text ? src->text_len : 0) < 0) {
        wk_doc_free(d);
        return wk_error_nomem(err, "include");
    }
    if (src->ninputs) {
        if (!(d->inputs = calloc(src->ninputs, sizeof *d->inputs))) {
            wk_doc_free(d);
            return wk_error_nomem(err, "include");
        }
        for (; d->ninputs < src->ninputs; d->ninputs++) {
            if (!(d->inputs[d->ninputs] = dup_s(src->inputs[d->ninputs]))) {
                wk_doc_free(d);
                return wk_error_nomem(err, "include");
            }
        }
    }
    *out = d;
    return 0;
}
