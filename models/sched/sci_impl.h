/* SPDX-License-Identifier: Apache-2.0 */
/* sci_impl.h — the `sci` annealer's state and the calls its files share
 * (sci_state.c, sci_propose.c, sci_anneal.c). Not a public interface: only
 * those files include it. */
#ifndef WK_SCHED_SCI_IMPL_H
#define WK_SCHED_SCI_IMPL_H

#include "models/sched/sci.h"

typedef struct {
    uint32_t n;            /* GPUs */
    double wait_term;      /* energy while unplaced: c_wait n wait_h */
    double rho;            /* placement-quality weight */
    const uint32_t *real;  /* running placement, NULL when queued */
    uint32_t *blk;         /* current block (capacity n) */
    double e;              /* energy of the current block while placed */
    uint32_t plpos, uppos; /* positions in placed[] / unplaced[], or NONE */
    uint32_t size_lo, size_hi; /* range of same-size items in bysize[] */
    uint8_t placed, pinned, moved;
    uint8_t fenced;        /* would outlast the blocked head's shadow time */
    double mem;            /* GPU memory it needs per GPU, bytes; 0 = fits any GPU */
    const float *speed;    /* use_roles: [node groups] relative speed, NULL = 1 */
} Item;

#define NONE UINT32_MAX
#define CLAIMED 3 /* GPU state while loading: a real placement holds it */

struct WkSciState {
    const WkCluster *c;
    WkSciParams p;
    double jeff[4];      /* the coupling per path class (wk_sci_coupling) */
    uint32_t G, nodes, pods, max_node;
    uint32_t *dom;       /* [G] NVLink domain of each GPU */
    uint32_t *leaf;      /* [G] leaf switch of each GPU's NIC; NULL without a fabric */
    uint32_t *want;      /* [nodes] scratch: GPUs to take per node, 0 outside emit */
    uint32_t *pod_first; /* [pods + 1] first node of each pod */
    uint8_t *gs;         /* [G] WK_SCI_FREE / USED / DOWN */
    uint32_t *node_used, *node_free, *pod_used, *pod_free;
    /* nodes by free GPUs: bucket k = bn[k * nodes .. k * nodes + blen[k]),
     * k >= 1 (bucket 0, no free GPU, is only a bitset: blen[0] = 0),
     * unordered; bpos[nd] = index of nd in its bucket */
    uint32_t *bn, *bpos, *blen;
    /* each bucket's members as a bitset over nodes (bwords words per
     * bucket), kept with the buckets, and which buckets changed since the
     * last sort: a load re-sorts only those, in node order, from the bits */
    uint64_t *bbits;
    uint32_t bwords;
    uint8_t *btouch;
    /* idle nodes (every GPU free), kept with the buckets: per pod the
     * nodes and their GPUs, and the cluster's count */
    uint32_t *pod_idle_n, *pod_idle_g, idle_nodes;
    double *hot_cap;     /* [pods] hot_threshold x GPUs of the pod */
    uint32_t free_total;
    uint32_t spare;      /* GPUs fenced jobs may still take (the head's extra), UINT32_MAX = no reservation */
    Item *it;
    uint32_t nit, capit;
    uint32_t *pool;      /* block storage of the items */
    size_t poolcap;
    uint32_t *placed, nplaced;     /* movable placed items */
    uint32_t *unplaced, nunplaced; /* queued items not placed */
    uint32_t *bysize;              /* item ids sorted by size, then id */
    uint32_t *sizecnt, sizecap;    /* scratch of the counting sort into bysize: [largest job + 2] */
    uint32_t *cand, candcap;       /* candidate block */
    uint32_t *sel, *cnt, nsel;     /* chosen nodes and GPUs taken from each */
    uint64_t *key;                 /* scratch: node << 32 | count, for sorting */
    uint32_t *order;               /* scratch, max(nodes, pods) */
    uint32_t *nodebuf;             /* scratch, max_node */
    double e;                      /* tracked energy */
    /* nodes whose GPU states (gs, counts) may differ from the last load's
     * gpu[]: flagged by the moves (a restored best configuration differs
     * from the load only where moves went), re-read by the next reload */
    uint8_t *dirty;                /* [nodes] */
    uint32_t *dlist, ndirty;       /* the flagged nodes */
    int stale;                     /* 1: no load yet, or a failed one: read every node */
    /* the best configuration seen at a sweep's end (rounds with migration) */
    struct {
        uint32_t *pool;
        size_t poolcap;
        uint8_t *gs;
        uint32_t *counts;  /* node_used, node_free, pod_used, pod_free */
        Item *it;
        uint32_t capit;
        uint32_t free_total, spare;
        double e;
    } best;
};

/* How a proposal chooses its nodes (wk_sci_propose). */
enum { PROP_PACK, PROP_POD, PROP_NODE, PROP_GROW };

/* --- sci_state.c --- */

/** GPUs of node nd. */
static inline uint32_t wk_sci_node_size(const WkSciState *s, uint32_t nd)
{
    return s->c->node_first_gpu[nd + 1] - s->c->node_first_gpu[nd];
}

/** Rebuild the nodes-by-free-GPUs buckets (nodes by id inside each), their
 * bitsets and the idle counts from node_free. O(nodes). */
void wk_sci_bucket_build(WkSciState *s);

/** The buckets back in node order, as wk_sci_bucket_build leaves them, when
 * the bitsets and idle counts are current (every node_free change went
 * through the buckets or node_reload): only the changed buckets are
 * rewritten, O(their nodes + nodes / 64). */
void wk_sci_bucket_sort(WkSciState *s);

/** GPUs b[0..n) (borrowed) go from free to used (take) or from used to
 * free (give). Returns the change of the occupancy terms of the energy. */
double wk_sci_take_all(WkSciState *s, const uint32_t *b, uint32_t n);
double wk_sci_give_all(WkSciState *s, const uint32_t *b, uint32_t n);

/** wk_sci_take_all / wk_sci_give_all without the energy change: the same
 * GPU states, counts and bucket order, for undoing a rejected move. */
void wk_sci_take_quiet(WkSciState *s, const uint32_t *b, uint32_t n);
void wk_sci_give_quiet(WkSciState *s, const uint32_t *b, uint32_t n);

/** 1 when item it has a real placement and block b (it->n GPUs) differs
 * from it. */
int wk_sci_differs(const Item *it, const uint32_t *b);

/** The energy of item it placed on block b (borrowed). */
double wk_sci_block_energy(const WkSciState *s, const Item *it, const uint32_t *b);

/** 1 when every GPU of block b (it->n GPUs) has the memory item it needs
 * (always when it->mem is 0: O(1) then). */
int wk_sci_fits(const WkSciState *s, const Item *it, const uint32_t *b);

/** Item i becomes placed / unplaced (the lists only). */
void wk_sci_mark_placed(WkSciState *s, uint32_t i);
void wk_sci_mark_unplaced(WkSciState *s, uint32_t i);

/* --- sci_propose.c --- */

/** A candidate block of n GPUs from the free pool into s->cand, chosen the
 * PROP_* way how (rng may be NULL for PROP_PACK, which draws nothing).
 * Returns 0, or WK_E_NOROOM when fewer than n GPUs are free (or n is 0). */
int wk_sci_propose(WkSciState *s, WkRng *rng, int how, uint32_t n);

/** A proposal kind drawn from rng (PROP_GROW only under local rules). */
int wk_sci_random_how(const WkSciState *s, WkRng *rng);

#endif
