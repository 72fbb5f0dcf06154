/* SPDX-License-Identifier: Apache-2.0 */
/* share_impl.h — what share.c (the rings) asks of share_store.c (the
 * storage transfers). Not a public interface. */
#ifndef WK_SHARE_IMPL_H
#define WK_SHARE_IMPL_H

#include "models/state/share.h"

/** `sharing: priority`: the storage network and its tables for c. 0 or
 * WK_E_NOMEM (wk_share_store_fini releases what was made). */
int wk_share_store_init(WkShare *s, const WkCluster *c, WkError *err);

/** Release the transfers, the storage network and its tables. */
void wk_share_store_fini(WkShare *s);

/** Under `priority`, ring flow `ring` of s->net changed rate, or is about
 * to be removed: the links it crosses that transfers in flight use are
 * re-read at the next wk_share_store_solve. No-op without transfers. */
void wk_share_store_ring_moved(WkShare *s, uint32_t ring);

#endif
