/* SPDX-License-Identifier: Apache-2.0 */
/* compose_impl.h — what the pieces of the compose module share: node copies
 * and the file-name pool of compose_copy.c. Not a public interface: only
 * sim/scenario/compose*.c include it. */
#ifndef WK_COMPOSE_IMPL_H
#define WK_COMPOSE_IMPL_H

#include "sim/scenario/compose.h"

/** Deep copy of n (borrowed) with parent NULL, or NULL when out of memory.
 * File names stay borrowed from n's document. */
WkNode *wk_compose_copy_node(const WkNode *n);

/** Give doc a new text (len bytes, copied) followed by every file name its
 * nodes use, and point the nodes at those copies. The old text is freed.
 * Returns 0 or WK_E_NOMEM (doc unchanged). */
int wk_compose_copy_pool(WkDoc *doc, const char *text, size_t len);

#endif
