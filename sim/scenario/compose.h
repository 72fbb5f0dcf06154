/* SPDX-License-Identifier: Apache-2.0 */
/* compose.h — scenario composition over WkDoc trees: `include:` of other
 * YAML files with a deep merge, deep copies of documents (one per sweep
 * point), and setting a copied value at a key path. Syntax is node_yaml.c's
 * business; this module only moves nodes, which keep the file:line:col they
 * were read at, so an error in an included file names that file. */
#ifndef WK_COMPOSE_H
#define WK_COMPOSE_H

#include "sim/core/error.h"
#include "sim/scenario/node.h"

#define WK_COMPOSE_MAX_DEPTH 16 /* include levels below the top file */
#define WK_COMPOSE_MAX_FILES 1000 /* files read through include: in one composition (counting repeats) */
#define WK_COMPOSE_MAX_BYTES (64u << 20) /* their text, summed (the size limit of one scenario) */

/** Load a scenario file and resolve its includes (wk_compose_resolve).
 * Returns 0 and a document the caller owns (wk_doc_free), or the error of
 * wk_doc_load_file / wk_compose_resolve. */
int wk_compose_load_file(WkDoc **out, const char *path, WkError *err);

/** Resolve `include:` at the top of doc (borrowed, changed in place). The
 * value is a path or a list of paths, each relative to the directory of the
 * file that names it (doc->dir for the top). Included files are resolved the
 * same way first, then merged in order into one tree, then doc's own keys on
 * top: maps merge key by key (a later value wins; a map over a map merges
 * deeper), any other value (scalar, sequence, null) replaces the earlier one
 * whole. The `include` key is removed. With includes, doc->text becomes the
 * resolved document as YAML (a comment line, then wk_emit_yaml), so a trace
 * records what ran, and doc->inputs lists the files read (each as opened,
 * repeats kept), so a caller can refuse to write over one; without, the
 * document is untouched. Errors (WK_E_INVAL
 * unless said): an include value that is not a non-empty string or a list of
 * them, an included file that is missing (WK_E_IO), not YAML or not a
 * mapping (positioned in that file, with "(included from FILE:LINE:COL)"),
 * a cycle ("include cycle: a.yaml -> b.yaml -> a.yaml") or more than
 * WK_COMPOSE_MAX_DEPTH levels, positioned at the include item. On error doc
 * is unchanged. */
int wk_compose_resolve(WkDoc *doc, WkError *err);

/** A deep copy of src (borrowed): tree, positions, text, file, dir and inputs; the
 * copy owns everything it points to. Returns 0 or WK_E_NOMEM. */
int wk_compose_copy(WkDoc **out, const WkDoc *src, WkError *err);

/** A new document whose root is a copy of node (borrowed; e.g. a scenario
 * written inline in a sweep file), named `name` in messages, resolving
 * relative paths against dir; its text is wk_emit_yaml of the copy. Then
 * wk_compose_resolve. Returns 0 or that function's errors. */
int wk_compose_doc_from_node(WkDoc **out, const WkNode *node, const char *name, const char *dir,
                             WkError *err);

/** Put a copy of value (borrowed) at the dotted key path in doc, like
 * wk_doc_set: a numeric segment indexes an existing sequence item, missing
 * map entries are created, the old value is replaced. The copy keeps value's
 * positions, so errors about it name where it was written; it borrows
 * value's file name, so value's document must outlive doc. Returns 0, or
 * WK_E_INVAL positioned at value when the path is empty, has an empty
 * segment, goes through a scalar or indexes past a sequence's end. */
int wk_compose_put(WkDoc *doc, const char *path, const WkNode *value, WkError *err);

/** Apply a `set:` mapping (key.path: value, borrowed; NULL or null: nothing)
 * to doc with wk_compose_put, in order, and give each entry as the text
 * "key.path=value" (value as one-line flow YAML) in (*sets)[0..*n), a
 * malloc'd array of malloc'd strings the caller frees, also after an error.
 * A set that is not a mapping gives WK_E_INVAL positioned at it. */
int wk_compose_put_all(WkDoc *doc, const WkNode *set, char ***sets, size_t *n, WkError *err);

/** 1 when trees a and b have the same shape, keys, scalar text and quoting
 * (positions ignored), else 0. */
int wk_compose_equal(const WkNode *a, const WkNode *b);

#endif
