/* SPDX-License-Identifier: Apache-2.0 */
/* flow_impl.h — the flow network's data structures, shared by flow.c
 * (links, flows, memory) and flow_solve.c (the water-filling solver). Not
 * a public interface: only models/net/flow*.c include it. */
#ifndef WK_FLOW_IMPL_H
#define WK_FLOW_IMPL_H

#include "models/net/flow.h"

/* ---- data structures --------------------------------------------------------
 *
 * Links are dense (ids 0 .. nlinks-1). Each (flow, link) incidence is a node
 * in one pool; a node is on two intrusive lists: its link's doubly linked list
 * of flows (lnext/lprev, O(1) unlink on remove) and its flow's singly linked
 * path (fnext). Free nodes and free flow ids are recycled through free lists,
 * and the solver's scratch arrays are grown by add, so solve never allocates
 * and the steady state allocates nothing.
 *
 * Dirty links form an intrusive stack through Link.dnext. solve() takes each
 * dirty link not yet visited, collects its connected component by BFS over
 * link -> flows -> links, and water-fills that component alone:
 *
 *   - every link of the component gets rem = capacity and cnt = number of its
 *     unfrozen flows; its fair share is rem / cnt;
 *   - an indexed binary heap orders links by (share, link id); capped flows
 *     are sorted by (cap, flow id);
 *   - repeatedly take the smaller of the next cap and the smallest share: a
 *     cap freezes its flow at the cap, a link freezes all its unfrozen flows
 *     at its share; a frozen flow subtracts its rate from every link it
 *     crosses (rem -= x, cnt -= 1) and those links' shares are re-keyed.
 *     Capped flows that share one cap (the runs' rings) are put in id
 *     order by radix sort.
 *
 * A component that is one flow alone on its links (no link twice; the
 * runs' rings on a rail fabric mostly are) skips the heap: its rate is the
 * smaller of its cap and its links' capacities, the value water-filling
 * gives it.
 *
 * Shares never fall below the current water level (clamped: the exact value
 * can only rise, rounding may not take it down). The values depend only on
 * the component's links, capacities, paths and caps, not on flow ids, the
 * order flows were added or which other components exist: links freeze in
 * (share, link id) order, and flows frozen in one step subtract the same x,
 * so an incremental solve is bit-identical to a solve from scratch. */

#define NONE UINT32_MAX
#define DEAD UINT32_MAX /* Flow.len of a free flow id */

typedef struct {
    double cap;     /* bytes/s, >= 0 (may be +inf) */
    uint32_t head;  /* first incidence node of its flow list, or NONE */
    uint32_t seen;  /* solve stamp when visited by the current solve */
    uint32_t loc;   /* index in the component scratch when seen */
    uint32_t dnext; /* next dirty link (nlinks = end of stack), NONE = clean */
} Link;

typedef struct {
    uint32_t link;  /* directed link id */
    uint32_t flow;  /* flow id */
    uint32_t lnext; /* next node on the link's list, or NONE */
    uint32_t lprev; /* previous node on the link's list, or NONE */
    uint32_t fnext; /* next node of the flow's path (or of the free list) */
    uint32_t loc;   /* the link's component index, set by the BFS */
} Inc;

typedef struct {
    double cap;     /* rate cap, bytes/s; +inf = none */
    double rate;    /* last solved rate, bytes/s */
    uint32_t owner; /* caller's tag */
    uint32_t first; /* first path node; next free id when free */
    uint32_t len;   /* path length; DEAD when the id is free */
    uint32_t seen;  /* solve stamp when in the current component */
    uint32_t frozen; /* solve stamp when frozen in the current solve */
} Flow;

typedef struct {
    double rem;    /* capacity not yet taken by frozen flows, bytes/s */
    double key;    /* fair share rem / cnt, clamped to the water level */
    uint32_t link; /* directed link id (heap tie-break) */
    uint32_t cnt;  /* unfrozen flows (incidences) crossing it */
    uint32_t pos;  /* heap position, NONE when not in the heap */
} CompLink;

struct WkFlowNet {
    uint32_t nlinks;
    Link *links;         /* [nlinks] */
    uint32_t dirty;      /* top of the dirty stack, nlinks = empty */

    Flow *flows;         /* [flow_cap] */
    uint32_t flow_cap;   /* slots allocated */
    uint32_t flow_hw;    /* ids ever handed out: [0, flow_hw) */
    uint32_t flow_free;  /* free-list head, NONE = empty */
    size_t live;         /* flows in the network */

    Inc *inc;            /* [inc_cap] */
    uint32_t inc_cap;
    uint32_t inc_hw;     /* nodes ever used */
    uint32_t inc_free;   /* free-list head */
    size_t inc_live;     /* nodes on paths */

    uint32_t *pending;   /* flows without links to rate at the next solve */
    size_t npending, pending_cap;

    /* solver scratch, sized by add: flows side [flow_cap], links side [comp_cap] */
    uint32_t *cflow;     /* component flows */
    uint32_t *ccapped;   /* component flows with a cap, sorted by (cap, id) */
    uint32_t *changed;   /* flows whose rate changed in the last solve */
    size_t nchanged;
    CompLink *cl;        /* component links */
    uint32_t *heap;      /* component link indices, min-heap by (key, link) */
    uint32_t comp_cap;
    uint32_t stamp;      /* current solve stamp, never 0 */

    uint64_t solves, rerated;
};

/* A flow id that names a flow in the network (not free, not past the
 * ids ever handed out). */
static inline int live_id(const WkFlowNet *n, uint32_t id)
{
    return id < n->flow_hw && n->flows[id].len != DEAD;
}

#endif
