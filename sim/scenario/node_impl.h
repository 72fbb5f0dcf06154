/* SPDX-License-Identifier: Apache-2.0 */
/* node_impl.h — what the pieces of the node module share: tree-building
 * primitives (node.c), the YAML entry point for one-line values
 * (node_yaml.c) that `--set` (doc_set.c) parses with. Not a public
 * interface: only sim/scenario/node*.c and doc_set.c include it. */
#ifndef WK_NODE_IMPL_H
#define WK_NODE_IMPL_H

#include "sim/scenario/node.h"

#define WK_NODE_MAX_DEPTH 256 /* nesting limit: bad input never crashes */

/** A NUL-terminated copy of the n bytes at s (malloc'd), or NULL. */
char *wk_node_strndup(const char *s, size_t n);

/** Append kid to parent's kids and set kid->parent (the caller sets key or
 * index). Returns 0 or WK_E_NOMEM (kid untouched). */
int wk_node_push(WkNode *parent, WkNode *kid);

/** Parse len bytes of YAML text (need not be NUL-terminated) into a tree
 * (*root, owned by the caller; NULL for an empty stream) whose nodes name
 * `file` (borrowed). line > 0: every position is on that line, columns
 * counted from col at the text's first byte. *block: the root is a
 * block-style map or sequence. Errors as wk_doc_load_string; on failure
 * nothing is allocated. */
int wk_node_yaml_parse(const char *file, const char *text, size_t len, long line, long col, WkNode **root,
                       int *block, WkError *err);

#endif
