/* SPDX-License-Identifier: Apache-2.0 */
/* emit.h — WkNode trees written back as YAML: block style for whole
 * documents (`wanka validate --resolved`, resolved scenarios in traces) and
 * one-line flow style for single values (sweep parameters, overrides). The
 * output re-parses (node_yaml.c) to the same tree. Knows no libyaml. */
#ifndef WK_EMIT_H
#define WK_EMIT_H

#include "sim/scenario/node.h"

/** The tree under root (borrowed) as a block-style YAML document: maps as
 * "key: value" lines, sequences as "- item" lines, two spaces per level,
 * empty collections as {} and [], null as ~. A scalar is written plain when
 * it was plain and reads back as the same plain text, else double-quoted
 * with escapes, so parsing the result gives the same types, keys and
 * strings; a plain scalar that cannot be written plain (a folded multi-line
 * plain value holding a line break, text that reads as null) comes back
 * quoted. root NULL gives "". Returns malloc'd text (caller frees), or NULL
 * when out of memory. */
char *wk_emit_yaml(const WkNode *root);

/** One value (borrowed) in flow style on one line: "64", "\"a b\"",
 * "[1, 2]", "{size: 32, spares: 2}", "~". Re-parses (as a `--set` value too)
 * to the same tree. Returns malloc'd text (caller frees), or NULL when out
 * of memory. */
char *wk_emit_flow(const WkNode *value);

#endif
