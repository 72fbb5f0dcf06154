/* SPDX-License-Identifier: Apache-2.0 */
/* node_impl.h — tree-building primitives (node.c) and the YAML entry point
 * for one-line values (node_yaml.c) that `--set` (doc_set.c) parses with,
 * shared within sim/scenario (node*, doc_set, compose*). Not a public
 * interface: nothing outside sim/scenario includes it. */
#ifndef WK_NODE_IMPL_H
#define WK_NODE_IMPL_H

#include "sim/scenario/node.h"

#define WK_NODE_MAX_DEPTH 256 /* nesting limit: bad input never crashes */

/** A NUL-terminated copy of the n bytes at s (malloc'd), or NULL. */
char *wk_node_strndup(const char *s, size_t n);

/** "a mapping", "a string", ... for "expected X, got Y" messages. */
const char *wk_node_kind(const WkNode *n);

/** The NULL-terminated names (borrowed; NULL for none) joined by ", " into
 * buf (n bytes, cut to fit, always NUL-terminated). Returns buf. */
const char *wk_node_join(const char *const *names, char *buf, size_t n);

/** 1 when the len bytes at s are a sequence index (1 to 18 decimal
 * digits), else 0. */
int wk_node_is_index(const char *s, size_t len);


/** Parse len bytes of YAML text (need not be NUL-terminated) into a tree
 * (*root, owned by the caller; NULL for an empty stream) whose nodes name
 * `file` (borrowed). line > 0: every position is on that line, columns
 * counted from col at the text's first byte. *block: the root is a
 * block-style map or sequence. Errors as wk_doc_load_string; on failure
 * nothing is allocated. */
int wk_node_yaml_parse(const char *file, const char *text, size_t len, long line, long col, WkNode **root,
                       int *block, WkError *err);

#endif
