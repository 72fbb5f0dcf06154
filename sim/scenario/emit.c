/* SPDX-License-Identifier: Apache-2.0 */
/* emit.c — write a WkNode tree as YAML text (block documents, flow values)
 * that the scenario parser reads back to the same tree. Plain scalars stay
 * plain where that is unambiguous; everything else is double-quoted. */
#include "sim/scenario/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Buf {
    char *s;
    size_t len, cap;
    int oom;
} Buf;

static void put_n(Buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void put_s(Buf *b, const char *s)
{
    put_n(b, s, strlen(s));
}

static void put_indent(Buf *b, int indent)
{
    for (int i = 0; i < indent; i++)
        put_n(b, " ", 1);
}

static char *finish(Buf *b)
{
    if (!b->oom && !b->s)
        put_n(b, "", 0);
    if (b->oom) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

/* A Unicode line break libyaml honours: NEL, LINE and PARAGRAPH SEPARATOR. */
static int unicode_break(const unsigned char *p)
{
    return (p[0] == 0xc2 && p[1] == 0x85) || (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9));
}

static int is_null_word(const char *s)
{
    return !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int flow_indicator(char c)
{
    return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

/* 1 when s, written plain, reads back as exactly s (flow: inside [] or {}). */
static int plain_ok(const char *s, int flow)
{
    size_t n = strlen(s);
    if (n == 0 || n > 1000 || is_null_word(s))
        return 0;
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] == ' ' || u[0] == '\t' || u[n - 1] == ' ' || u[n - 1] == '\t')
        return 0;
    if (strchr("-?:,[]{}#&*!|>'\"%@`", s[0])) {
        /* "-1", "-x", ":a", "?b": an indicator followed by a safe character starts a plain scalar */
        if (!(s[0] == '-' || s[0] == '?' || s[0] == ':') || n < 2 || s[1] == ' ' || s[1] == '\t' ||
            (flow && (flow_indicator(s[1]) || s[0] == '?')))
            return 0;
    }
    if (!strncmp(s, "---", 3) || !strncmp(s, "...", 3))
        return 0;
    if (n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        if (c < 0x20 || c == 0x7f)
            return 0;
        if (unicode_break(u + i))
            return 0;
        if (c == ':' && (flow || i + 1 == n || u[i + 1] == ' '))
            return 0; /* in flow, any ':' is quoted: libyaml versions differ on "a:b" there */
        if (c == '#' && i > 0 && (u[i - 1] == ' ' || u[i - 1] == '\t'))
            return 0;
        if (flow && flow_indicator((char)c))
            return 0;
    }
    return 1;
}

static void put_quoted(Buf *b, const char *s)
{
    put_n(b, "\"", 1);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; u[i]; i++) {
        unsigned char c = u[i];
        char esc[8];
        switch (c) {
        case '"': put_s(b, "\\\""); continue;
        case '\\': put_s(b, "\\\\"); continue;
        case '\n': put_s(b, "\\n"); continue;
        case '\t': put_s(b, "\\t"); continue;
        case '\r': put_s(b, "\\r"); continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof esc, "\\x%02x", c);
            put_s(b, esc);
        } else if (c == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f) { /* C1 controls, NEL */
            snprintf(esc, sizeof esc, "\\x%02x", u[i + 1]);
            put_s(b, esc);
            i++;
        } else if (c == 0xe2 && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9)) {
            put_s(b, u[i + 2] == 0xa8 ? "\\L" : "\\P");
            i += 2;
        } else if (c == 0xef && u[i + 1] == 0xbb && u[i + 2] == 0xbf) { /* BOM */
            put_s(b, "\\uFEFF");
            i += 2;
        } else {
            put_n(b, (const char *)u + i, 1);
        }
    }
    put_n(b, "\"", 1);
}

/* A scalar value: plain when it was plain and stays so, else quoted. */
static void put_scalar(Buf *b, const WkNode *n, int flow)
{
    if (!n || n->type == WK_NODE_NULL || !n->str) {
        put_s(b, "~");
        return;
    }
    if (!n->quoted && plain_ok(n->str, flow))
        put_s(b, n->str);
    else
        put_quoted(b, n->str);
}

static void put_key(Buf *b, const char *key, int flow)
{
    if (plain_ok(key, flow) && !strchr(key, '#'))
        put_s(b, key);
    else
        put_quoted(b, key);
}

/* ---- flow ---------------------------------------------------------------------- */

static void flow(Buf *b, const WkNode *n)
{
    if (!n || n->type == WK_NODE_NULL || n->type == WK_NODE_SCALAR) {
        put_scalar(b, n, 1);
        return;
    }
    int map = n->type == WK_NODE_MAP;
    put_s(b, map ? "{" : "[");
    for (size_t i = 0; i < n->nkids; i++) {
        if (i)
            put_s(b, ", ");
        if (map) {
            put_key(b, n->kids[i]->key, 1);
            put_s(b, ": ");
        }
        flow(b, n->kids[i]);
    }
    put_s(b, map ? "}" : "]");
}

char *wk_emit_flow(const WkNode *value)
{
    Buf b = {0};
    flow(&b, value);
    return finish(&b);
}

/* ---- block --------------------------------------------------------------------- */

static int is_block(const WkNode *n)
{
    return n && (n->type == WK_NODE_MAP || n->type == WK_NODE_SEQ) && n->nkids > 0;
}

/* A scalar, null or empty collection after "key: " or "- ". */
static void leaf(Buf *b, const WkNode *n)
{
    if (n && n->type == WK_NODE_MAP)
        put_s(b, "{}");
    else if (n && n->type == WK_NODE_SEQ)
        put_s(b, "[]");
    else
        put_scalar(b, n, 0);
    put_s(b, "\n");
}

static void block_seq(Buf *b, const WkNode *seq, int indent, int first_inline);

/* Entries of a non-empty map at indent; the first one continues the current
 * line when first_inline (a map as a sequence item). */
static void block_map(Buf *b, const WkNode *map, int indent, int first_inline)
{
    for (size_t i = 0; i < map->nkids; i++) {
        const WkNode *v = map->kids[i];
        if (i > 0 || !first_inline)
            put_indent(b, indent);
        put_key(b, v->key, 0);
        if (!is_block(v)) {
            put_s(b, ": ");
            leaf(b, v);
        } else {
            put_s(b, ":\n");
            if (v->type == WK_NODE_MAP)
                block_map(b, v, indent + 2, 0);
            else
                block_seq(b, v, indent + 2, 0);
        }
    }
}

static void block_seq(Buf *b, const WkNode *seq, int indent, int first_inline)
{
    for (size_t i = 0; i < seq->nkids; i++) {
        const WkNode *v = seq->kids[i];
        if (i > 0 || !first_inline)
            put_indent(b, indent);
        put_s(b, "- ");
        if (!is_block(v))
            leaf(b, v);
        else if (v->type == WK_NODE_MAP)
            block_map(b, v, indent + 2, 1);
        else
            block_seq(b, v, indent + 2, 1);
    }
}

char *wk_emit_yaml(const WkNode *root)
{
    Buf b = {0};
    if (!root)
        return finish(&b);
    if (!is_block(root))
        leaf(&b, root);
    else if (root->type == WK_NODE_MAP)
        block_map(&b, root, 0, 0);
    else
        block_seq(&b, root, 0, 0);
    return finish(&b);
}
