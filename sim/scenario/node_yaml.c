/* SPDX-License-Identifier: Apache-2.0 */
/* node_yaml.c — builds a WkNode tree from YAML with libyaml's event API. The
 * one file that includes <yaml.h>; it accepts plain data only (no anchors,
 * aliases, tags, several documents, non-scalar or duplicate keys). The
 * typed readers live in node.c, `--set` overrides in doc_set.c. */
#include "sim/scenario/node_impl.h"
#include "sim/core/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

#define MAX_FILE_BYTES ((size_t)64 << 20) /* larger scenarios are refused */
#define MAX_DEPTH WK_NODE_MAX_DEPTH

/* Index of a large open mapping's keys, so duplicate checks stay O(1). */
typedef struct KeySet {
    size_t *slot;  /* kid index + 1, 0 = empty; cap is a power of two */
    size_t cap;
    size_t filled; /* kids[0 .. filled) are in the set */
} KeySet;

/* Tree-building state while events stream in. */
typedef struct Build {
    const char *file;  /* borrowed name stored in each node */
    const unsigned char *text;
    size_t len;
    long line_fixed;   /* > 0: every node is on this line (a --set value) */
    long col_base;     /* with line_fixed: column of the value's first byte */
    WkNode *root;
    WkNode *cur;       /* innermost open map or sequence, NULL at top level */
    int root_block;    /* the root is a block-style map or sequence */
    char *key;         /* pending map key waiting for its value */
    long key_line, key_col;
    int depth;         /* open maps and sequences */
    int ndocs;
    KeySet sets[MAX_DEPTH]; /* sets[d]: keys of the open mapping at depth d */
} Build;

static char *dup_n(const char *s, size_t n)
{
    return wk_node_strndup(s, n);
}

static char *dup_s(const char *s)
{
    return dup_n(s, strlen(s));
}

static void mark_pos(const Build *b, yaml_mark_t m, long *line, long *col)
{
    if (b->line_fixed > 0) {
        *line = b->line_fixed; /* columns count bytes of the one-line assignment */
        *col = b->col_base + (long)m.index;
    } else {
        *line = (long)m.line + 1;
        *col = (long)m.column + 1;
    }
}

/* Error at a libyaml mark, message prefixed with "path: " when path is non-empty. */
static int mark_error(const Build *b, int code, yaml_mark_t m, const char *path, WkError *err,
                      const char *what)
{
    long line, col;
    mark_pos(b, m, &line, &col);
    if (path && path[0])
        return wk_error_set(err, code, b->file, line, col, "%s: %s", path, what);
    return wk_error_set(err, code, b->file, line, col, "%s", what);
}

/* Line and column (1-based, in bytes) of a byte offset in the text. */
static void offset_pos(const Build *b, size_t off, long *line, long *col)
{
    long l = 1, c = 1;
    for (size_t i = 0; i < off && i < b->len; i++) {
        if (b->text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    if (b->line_fixed > 0) {
        *line = b->line_fixed;
        *col = b->col_base + c - 1;
    } else {
        *line = l;
        *col = c;
    }
}

static int syntax_error(const Build *b, const yaml_parser_t *p, WkError *err)
{
    long line, col;
    const char *problem = p->problem ? p->problem : "unknown error";
    switch (p->error) {
    case YAML_MEMORY_ERROR:
        return wk_error_set(err, WK_E_NOMEM, b->file, 0, 0, "YAML parser: out of memory");
    case YAML_READER_ERROR:
        offset_pos(b, p->problem_offset, &line, &col);
        if (p->problem_value >= 0)
            return wk_error_set(err, WK_E_INVAL, b->file, line, col,
                                "YAML encoding error: %s (byte 0x%02x)", problem,
                                (unsigned)p->problem_value & 0xffu);
        return wk_error_set(err, WK_E_INVAL, b->file, line, col, "YAML encoding error: %s",
                            problem);
    default:
        mark_pos(b, p->problem_mark, &line, &col);
        if (p->context && b->line_fixed <= 0)
            return wk_error_set(err, WK_E_INVAL, b->file, line, col,
                                "YAML syntax error: %s (%s at line %ld)", problem, p->context,
                                (long)p->context_mark.line + 1);
        if (p->context)
            return wk_error_set(err, WK_E_INVAL, b->file, line, col, "YAML syntax error: %s (%s)",
                                problem, p->context);
        return wk_error_set(err, WK_E_INVAL, b->file, line, col, "YAML syntax error: %s",
                            problem);
    }
}

/* Path of the value the next event becomes (the pending key's path in a map). */
static const char *next_path(const Build *b, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!b->cur)
        return buf;
    wk_node_path(b->cur, buf, n);
    size_t used = strlen(buf);
    if (b->cur->type == WK_NODE_MAP && b->key)
        snprintf(buf + used, n - used, "%s%s", used ? "." : "", b->key);
    else if (b->cur->type == WK_NODE_SEQ)
        snprintf(buf + used, n - used, "[%zu]", b->cur->nkids);
    return buf;
}

static int refuse_anchor_tag(const Build *b, yaml_mark_t m, const yaml_char_t *anchor,
                             const yaml_char_t *tag, WkError *err)
{
    char path[WK_ERROR_MSG_MAX / 2], what[WK_ERROR_MSG_MAX / 2];
    if (anchor)
        snprintf(what, sizeof what, "anchors and aliases are not supported (found anchor '&%.100s')",
                 (const char *)anchor);
    else if (tag && !strncmp((const char *)tag, "tag:yaml.org,2002:", 18))
        snprintf(what, sizeof what, "explicit tags are not supported (found tag '!!%.100s')",
                 (const char *)tag + 18); /* show "!!int" as written, not its expansion */
    else if (tag)
        snprintf(what, sizeof what, "explicit tags are not supported (found tag '%.100s')",
                 (const char *)tag);
    else
        return 0;
    return mark_error(b, WK_E_INVAL, m, next_path(b, path, sizeof path), err, what);
}

static WkNode *new_node(const Build *b, WkNodeType type, yaml_mark_t m)
{
    WkNode *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->type = type;
    n->file = b->file;
    mark_pos(b, m, &n->line, &n->col);
    n->index = -1;
    return n;
}

/* Attach a freshly made node where the stream puts it; takes ownership of n
 * (freed on failure). */
static int attach(Build *b, WkNode *n, WkError *err)
{
    if (!b->cur) {
        b->root = n;
        return 0;
    }
    if (b->cur->type == WK_NODE_MAP) {
        n->key = b->key;
        n->key_line = b->key_line;
        n->key_col = b->key_col;
        b->key = NULL;
    } else {
        n->index = (long)b->cur->nkids;
    }
    if (wk_node_push(b->cur, n) < 0) {
        wk_node_free(n);
        return wk_error_set(err, WK_E_NOMEM, b->file, 0, 0, "YAML: out of memory");
    }
    return 0;
}

static int is_null_text(const char *s, size_t len)
{
    return len == 0 || (len == 1 && s[0] == '~') ||
           (len == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) ||
                         !memcmp(s, "NULL", 4)));
}

static uint64_t hash_key(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void set_insert(KeySet *set, const WkNode *map, size_t kid)
{
    size_t mask = set->cap - 1;
    for (size_t i = (size_t)hash_key(map->kids[kid]->key) & mask;; i = (i + 1) & mask)
        if (!set->slot[i]) {
            set->slot[i] = kid + 1;
            return;
        }
}

/* The earlier entry of map with this key, or NULL. Small maps are scanned;
 * larger ones get a hash set (WK_E_NOMEM when it cannot be allocated). */
static int find_key(KeySet *set, const WkNode *map, const char *key, const WkNode **out)
{
    *out = NULL;
    if (map->nkids < 32) {
        for (size_t i = 0; i < map->nkids; i++)
            if (strcmp(map->kids[i]->key, key) == 0)
                *out = map->kids[i];
        return 0;
    }
    if (map->nkids * 2 >= set->cap) {
        size_t nc = set->cap ? set->cap * 2 : 128;
        size_t *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return WK_E_NOMEM;
        free(set->slot);
        set->slot = ns;
        set->cap = nc;
        set->filled = 0;
    }
    for (; set->filled < map->nkids; set->filled++)
        set_insert(set, map, set->filled);
    size_t mask = set->cap - 1;
    for (size_t i = (size_t)hash_key(key) & mask; set->slot[i]; i = (i + 1) & mask)
        if (strcmp(map->kids[set->slot[i] - 1]->key, key) == 0) {
            *out = map->kids[set->slot[i] - 1];
            return 0;
        }
    return 0;
}

static void close_set(KeySet *set)
{
    free(set->slot);
    memset(set, 0, sizeof *set);
}

static int on_key(Build *b, const yaml_event_t *ev, WkError *err)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    char path[WK_ERROR_MSG_MAX / 2], what[WK_ERROR_MSG_MAX / 2];
    wk_node_path(b->cur, path, sizeof path);
    if (len == 0)
        return mark_error(b, WK_E_INVAL, ev->start_mark, path, err, "empty key");
    if (memchr(s, '\0', len))
        return mark_error(b, WK_E_INVAL, ev->start_mark, path, err,
                          "keys must not contain NUL characters");
    const WkNode *first;
    if (find_key(&b->sets[b->depth - 1], b->cur, s, &first) < 0)
        return wk_error_set(err, WK_E_NOMEM, b->file, 0, 0, "YAML: out of memory");
    if (first) {
        size_t used = strlen(path);
        snprintf(path + used, sizeof path - used, "%s%s", used ? "." : "", s);
        snprintf(what, sizeof what, "duplicate key (first at line %ld)", first->key_line);
        return mark_error(b, WK_E_INVAL, ev->start_mark, path, err, what);
    }
    b->key = dup_n(s, len);
    if (!b->key)
        return wk_error_set(err, WK_E_NOMEM, b->file, 0, 0, "YAML: out of memory");
    mark_pos(b, ev->start_mark, &b->key_line, &b->key_col);
    return 0;
}

static int on_scalar(Build *b, const yaml_event_t *ev, WkError *err)
{
    int rc = refuse_anchor_tag(b, ev->start_mark, ev->data.scalar.anchor, ev->data.scalar.tag, err);
    if (rc < 0)
        return rc;
    if (b->cur && b->cur->type == WK_NODE_MAP && !b->key)
        return on_key(b, ev, err);

    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    char path[WK_ERROR_MSG_MAX / 2];
    if (memchr(s, '\0', len))
        return mark_error(b, WK_E_INVAL, ev->start_mark, next_path(b, path, sizeof path), err,
                          "strings must not contain NUL characters");
    WkNode *n = new_node(b, plain && is_null_text(s, len) ? WK_NODE_NULL : WK_NODE_SCALAR,
                         ev->start_mark);
    if (!n)
        return wk_error_set(err, WK_E_NOMEM, b->file, 0, 0, "YAML: out of memory");
    if (n->type == WK_NODE_SCALAR) {
        n->quoted = !plain;
        n->str = dup_n(s, len);
        if (!n->str) {
            wk_node_free(n);
            return wk_error_set(err, WK_E_NOMEM, b->file, 0, 0, "YAML: out of memory");
        }
    }
    return attach(b, n, err);
}

static int on_start(Build *b, const yaml_event_t *ev, WkError *err)
{
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    const yaml_char_t *anchor = is_map ? ev->data.mapping_start.anchor
                                       : ev->data.sequence_start.anchor;
    const yaml_char_t *tag = is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
    char path[WK_ERROR_MSG_MAX / 2];
    int rc = refuse_anchor_tag(b, ev->start_mark, anchor, tag, err);
    if (rc < 0)
        return rc;
    if (b->cur && b->cur->type == WK_NODE_MAP && !b->key) {
        wk_node_path(b->cur, path, sizeof path);
        return mark_error(b, WK_E_INVAL, ev->start_mark, path, err,
                          is_map ? "keys must be scalars (found a mapping as a key)"
                                 : "keys must be scalars (found a sequence as a key)");
    }
    if (b->depth >= MAX_DEPTH)
        return mark_error(b, WK_E_INVAL, ev->start_mark, next_path(b, path, sizeof path), err,
                          "nested too deeply (more than 256 levels)");
    WkNode *n = new_node(b, is_map ? WK_NODE_MAP : WK_NODE_SEQ, ev->start_mark);
    if (!n)
        return wk_error_set(err, WK_E_NOMEM, b->file, 0, 0, "YAML: out of memory");
    if (!b->cur)
        b->root_block = is_map ? ev->data.mapping_start.style == YAML_BLOCK_MAPPING_STYLE
                               : ev->data.sequence_start.style == YAML_BLOCK_SEQUENCE_STYLE;
    rc = attach(b, n, err);
    if (rc < 0)
        return rc;
    b->cur = n;
    b->depth++;
    return 0;
}

static int on_event(Build *b, const yaml_event_t *ev, WkError *err)
{
    char path[WK_ERROR_MSG_MAX / 2], what[WK_ERROR_MSG_MAX / 2];
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++b->ndocs > 1)
            return mark_error(b, WK_E_INVAL, ev->start_mark, NULL, err,
                              "several YAML documents in one input are not supported "
                              "(a second document starts here)");
        return 0;
    case YAML_ALIAS_EVENT:
        snprintf(what, sizeof what, "anchors and aliases are not supported (found alias '*%.100s')",
                 (const char *)ev->data.alias.anchor);
        if (b->cur && b->cur->type == WK_NODE_MAP && !b->key)
            wk_node_path(b->cur, path, sizeof path);
        else
            next_path(b, path, sizeof path);
        return mark_error(b, WK_E_INVAL, ev->start_mark, path, err, what);
    case YAML_SCALAR_EVENT:
        return on_scalar(b, ev, err);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        return on_start(b, ev, err);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        b->cur = b->cur ? b->cur->parent : NULL;
        if (b->depth > 0)
            close_set(&b->sets[--b->depth]);
        return 0;
    default:
        return 0;
    }
}

/* Parse text into a tree; *root = NULL for an empty stream. The text need not
 * be NUL-terminated. On failure nothing is allocated. */
static int parse_tree(Build *b, WkError *err)
{
    yaml_parser_t p;
    int rc = 0;
    if (!yaml_parser_initialize(&p))
        return wk_error_set(err, WK_E_NOMEM, b->file, 0, 0, "YAML parser: out of memory");
    yaml_parser_set_input_string(&p, b->text, b->len);
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            rc = syntax_error(b, &p, err);
            break;
        }
        rc = on_event(b, &ev, err);
        int done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (rc < 0 || done)
            break;
    }
    yaml_parser_delete(&p);
    free(b->key);
    b->key = NULL;
    for (int d = 0; d < MAX_DEPTH; d++)
        close_set(&b->sets[d]);
    if (rc < 0) {
        wk_node_free(b->root);
        b->root = NULL;
    }
    return rc;
}

int wk_node_yaml_parse(const char *file, const char *text, size_t len, long line, long col, WkNode **root,
                       int *block, WkError *err)
{
    Build b = {.file = file, .text = (const unsigned char *)text, .len = len, .line_fixed = line, .col_base = col};
    int rc = parse_tree(&b, err);
    *root = b.root;
    *block = b.root_block;
    return rc;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return dup_s(".");
    if (slash == path)
        return dup_s("/");
    return dup_n(path, (size_t)(slash - path));
}

/* A scenario is UTF-8 (YAML allows UTF-16 and UTF-32, which libyaml would
 * decode from a byte-order mark; the trace stores the text as UTF-8): text
 * starting with a UTF-16 or UTF-32 byte-order mark, or with a NUL byte in
 * its first two (UTF-16 or UTF-32 without a mark), is refused by name. */
static int check_utf8_bom(const char *file, const unsigned char *t, size_t len, WkError *err)
{
    const char *enc = NULL;
    if (len >= 4 && ((t[0] == 0 && t[1] == 0 && t[2] == 0xFE && t[3] == 0xFF) ||
                     (t[0] == 0xFF && t[1] == 0xFE && t[2] == 0 && t[3] == 0)))
        enc = "UTF-32 (byte-order mark)";
    else if (len >= 2 && ((t[0] == 0xFE && t[1] == 0xFF) || (t[0] == 0xFF && t[1] == 0xFE)))
        enc = "UTF-16 (byte-order mark)";
    else if ((len >= 1 && t[0] == 0) || (len >= 2 && t[1] == 0))
        enc = "UTF-16 or UTF-32 (NUL bytes)";
    if (!enc)
        return 0;
    return wk_error_set(err, WK_E_INVAL, file, 1, 1,
                        "the file is encoded as %s; a scenario must be UTF-8 (convert it, e.g. iconv -t UTF-8)", enc);
}

/* Build a document around text (taken: freed on failure too). */
static int load(WkDoc **out, const char *name, char *text, size_t len, WkError *err)
{
    WkDoc *doc = calloc(1, sizeof *doc);
    if (!doc) {
        free(text);
        return wk_error_set(err, WK_E_NOMEM, name, 0, 0, "out of memory");
    }
    doc->text = text;
    doc->text_len = len;
    doc->file = dup_s(name);
    doc->dir = dir_of(name);
    if (!doc->file || !doc->dir) {
        wk_doc_free(doc);
        return wk_error_set(err, WK_E_NOMEM, name, 0, 0, "out of memory");
    }
    int rc = check_utf8_bom(doc->file, (const unsigned char *)text, len, err);
    if (rc < 0) {
        wk_doc_free(doc);
        return rc;
    }
    Build b = {.file = doc->file, .text = (const unsigned char *)text, .len = len};
    rc = parse_tree(&b, err);
    if (rc < 0) {
        wk_doc_free(doc);
        return rc;
    }
    if (b.root && b.root->type == WK_NODE_NULL) { /* "---" alone, or just "~" */
        wk_node_free(b.root);
        b.root = NULL;
    }
    doc->root = b.root;
    *out = doc;
    return 0;
}

int wk_doc_load_string(WkDoc **out, const char *name, const char *text, size_t len, WkError *err)
{
    *out = NULL;
    if (!name)
        name = "<string>";
    if (!text && len > 0)
        return wk_error_set(err, WK_E_INVAL, name, 0, 0, "no text given");
    if (len > MAX_FILE_BYTES)
        return wk_error_set(err, WK_E_RANGE, name, 0, 0,
                            "document is larger than 64 MiB (%zu bytes)", len);
    char *copy = dup_n(text ? text : "", len);
    if (!copy)
        return wk_error_set(err, WK_E_NOMEM, name, 0, 0, "out of memory");
    return load(out, name, copy, len, err);
}

int wk_doc_load_file(WkDoc **out, const char *path, WkError *err)
{
    *out = NULL;
    FILE *f = NULL;
    int64_t size = 0;
    int rc = wk_file_open_regular(&f, &size, path, "a scenario", err);
    if (rc < 0)
        return rc;
    if ((uint64_t)size > MAX_FILE_BYTES) {
        fclose(f);
        return wk_error_set(err, WK_E_RANGE, path, 0, 0, "file is larger than 64 MiB (%lld bytes)", (long long)size);
    }
    size_t len = 0, cap = 0;
    char *text = NULL;
    for (;;) {
        if (cap - len < 4096) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nt = realloc(text, nc + 1);
            if (!nt) {
                free(text);
                fclose(f);
                return wk_error_set(err, WK_E_NOMEM, path, 0, 0, "out of memory");
            }
            text = nt;
            cap = nc;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (len > MAX_FILE_BYTES) {
            free(text);
            fclose(f);
            return wk_error_set(err, WK_E_RANGE, path, 0, 0, "file is larger than 64 MiB");
        }
        if (got == 0)
            break;
    }
    int read_errno = ferror(f) ? errno : 0;
    fclose(f);
    if (read_errno || !text) {
        free(text);
        return wk_error_set(err, WK_E_IO, path, 0, 0, "%s",
                            strerror(read_errno ? read_errno : EIO));
    }
    text[len] = '\0';
    return load(out, path, text, len, err);
}

void wk_doc_free(WkDoc *doc)
{
    if (!doc)
        return;
    wk_node_free(doc->root);
    for (size_t i = 0; i < doc->ninputs; i++)
        free(doc->inputs[i]);
    free(doc->inputs);
    free(doc->file);
    free(doc->text);
    free(doc->dir);
    free(doc);
}
