/* SPDX-License-Identifier: Apache-2.0 */
/* flow.h — flow-level bandwidth sharing on the fabric's directed links:
 * flows (a path of directed links, optionally a rate cap) share each link's
 * capacity max-min fairly, computed by progressive filling (water-filling).
 * After flows are added or removed, wk_flownet_solve recomputes rates only
 * for the connected component of links and flows touched since the last
 * solve; flows elsewhere keep their rates. Equations in docs/models.md. */
#ifndef WK_NET_FLOW_H
#define WK_NET_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "models/topo/fabric.h"
#include "sim/core/error.h"

typedef struct WkFlowNet WkFlowNet;

/** A network of nlinks directed links (ids 0 .. nlinks-1, e.g. 2 * the
 * fabric's physical links), each of capacity default_bw (bytes/s). Returns 0
 * or WK_E_NOMEM; the caller owns *out (wk_flownet_free). */
int wk_flownet_new(WkFlowNet **out, uint64_t nlinks, double default_bw, WkError *err);

/** Release the network. NULL is a no-op. */
void wk_flownet_free(WkFlowNet *n);

/** Make room for `flows` more flows over `incs` (flow, link) pairs in all,
 * so that adding them (and solving) allocates nothing: the storage of a net
 * emptied by wk_flownet_remove is reused, so a caller that empties and
 * refills one net (a sweep of configurations) grows it at most once.
 * Returns 0, WK_E_RANGE (counts over 2^32 - 2) or WK_E_NOMEM; the net is
 * unchanged in what it holds either way. */
int wk_flownet_reserve(WkFlowNet *n, size_t flows, size_t incs, WkError *err);

/** Remove every flow, keeping the storage (and the links' capacities): the
 * net then hands out flow ids 0, 1, 2, ... as a new one does, and solves
 * the same, bit for bit. O(flows ever added since the last clear + their
 * path nodes + dirty links). */
void wk_flownet_clear(WkFlowNet *n);

/** Set one link's capacity (bytes/s, >= 0; 0 = failed link). Marks it dirty. */
void wk_flownet_set_capacity(WkFlowNet *n, WkLinkId link, double bw);

/** Capacity of a link. */
double wk_flownet_capacity(const WkFlowNet *n, WkLinkId link);

/** Add a flow over links[0..nlinks) (copied; a link may not repeat) with a
 * rate cap (bytes/s; <= 0 = no cap) and an owner tag (e.g. a job id). Its
 * rate is 0 until the next solve. Returns 0 and *id, or WK_E_NOMEM /
 * WK_E_RANGE (link id out of range). A flow with no links gets rate = cap
 * (or +inf without cap) at the next solve. */
int wk_flownet_add(WkFlowNet *n, const WkLinkId *links, size_t nlinks, double cap, uint32_t owner,
                   uint32_t *id, WkError *err);

/** Remove a flow (its id may be reused by a later add). */
void wk_flownet_remove(WkFlowNet *n, uint32_t id);

/** Recompute max-min fair rates for the component touched since the last
 * solve (links whose flows or capacity changed, and everything connected to
 * them through shared links). Returns 0 or WK_E_NOMEM. */
int wk_flownet_solve(WkFlowNet *n, WkError *err);

/** Current rate of a flow, bytes/s. */
double wk_flownet_rate(const WkFlowNet *n, uint32_t id);

/** Owner tag of a flow. */
uint32_t wk_flownet_owner(const WkFlowNet *n, uint32_t id);

/** Call fn(owner, user) for each flow crossing link (in the link's list
 * order; an owner once per flow of it). O(flows on the link). */
void wk_flownet_link_owners(const WkFlowNet *n, WkLinkId link, void (*fn)(uint32_t owner, void *user), void *user);

/** Whether any flow crosses link (0 for a link out of range). O(1). */
int wk_flownet_link_used(const WkFlowNet *n, WkLinkId link);

/** The sum of the rates (last solved) of the flows crossing link whose
 * owner counts (counts NULL: every flow; else counts(owner, user) != 0).
 * O(flows on the link); 0 for a link out of range. */
double wk_flownet_link_load(const WkFlowNet *n, WkLinkId link, int (*counts)(uint32_t owner, const void *user),
                            const void *user);

/** The links of flow id in path order into out[0..max): returns the path's
 * length (which may exceed max: then only max are written); 0 for an id
 * not in the network. */
size_t wk_flownet_path(const WkFlowNet *n, uint32_t id, WkLinkId *out, size_t max);

/** Flows whose rate changed in the last solve: *ids borrowed until the next
 * call that modifies n; returns the count. */
size_t wk_flownet_changed(const WkFlowNet *n, const uint32_t **ids);

/** Counters: solves done, and flows re-rated in total (a measure of work). */
uint64_t wk_flownet_solves(const WkFlowNet *n);
uint64_t wk_flownet_rerated(const WkFlowNet *n);

/** Flows currently in the network. */
size_t wk_flownet_count(const WkFlowNet *n);

#endif
