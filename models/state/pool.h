/* SPDX-License-Identifier: Apache-2.0 */
/* pool.h — the GPU pool of a run: who holds each GPU, which GPUs are free
 * and usable (a bitmap with per-node and per-pod counts), which nodes are
 * held out as hot spares, how many GPUs are down, and the health changes
 * that move GPUs in and out of the pool. The sole owner of that state: the
 * counts and the bitmap change only through these functions, so they cannot
 * drift apart. Placement strategies over the pool: models/state/place.c. */
#ifndef WK_POOL_H
#define WK_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "models/sched/sched.h"
#include "models/topo/cluster.h"
#include "sim/core/error.h"

#define WK_POOL_NONE UINT32_MAX /* owner of a GPU no job holds */

typedef struct WkPool {
    WkCluster *c;          /* borrowed: the run's cluster (health and clocks live there) */
    uint32_t *owner;       /* [gpus] job holding the GPU, WK_POOL_NONE = none */
    uint8_t *reserved;     /* [nodes] 1 = a hot spare held out of scheduling */
    uint32_t spares_free;  /* spare nodes in reserve now */
    uint64_t *freebits;    /* bit g set = GPU g free and usable */
    size_t free_hint;      /* no free GPU in words below this index */
    uint32_t nfree;        /* GPUs free and usable */
    uint32_t ndown;        /* GPUs down */
    uint32_t down_held;    /* of them, held by a (hung) job */
    uint32_t nslow;        /* GPUs whose own clock is below 1 (throttled, stragglers) */
    uint32_t *node_free;   /* [nodes] free usable GPUs per node */
    uint32_t *pod_free;    /* [pods] free usable GPUs per pod */
    uint32_t max_node;     /* GPUs of the largest node */
    uint32_t *by_free;     /* [max_node + 1] nodes with exactly k free usable GPUs */
    uint64_t *nodes_at;    /* [(max_node + 1) * node_words] bit nd of row k: node nd has exactly k free
                              usable GPUs (NULL when that would exceed 32 MiB: placement scans then) */
    size_t node_words;     /* 64-bit words per row of nodes_at */
    uint32_t idle_gpus;    /* GPUs of idle nodes (every GPU of the node free and usable) */
    uint32_t *node_block;  /* [nodes] leaf block: the leaf of the node's first NIC (its pod without a fabric) */
    uint32_t nblocks;      /* leaf blocks (ids < nblocks) */
    uint32_t *idle_in[2];  /* [nblocks], [pods]: GPUs of idle nodes per leaf block, per pod (as idle_gpus) */
    uint32_t *grp_first[2]; /* [nblocks + 1], [pods + 1]: a group's nodes are grp_nodes[k][first[g] .. first[g+1]) */
    uint32_t *grp_nodes[2]; /* [nodes] per level: the nodes of each leaf block, of each pod, in node order */
    uint32_t *grp_ids[2];  /* per level: the leaf blocks, the pods that have nodes, ascending */
    uint32_t ngrp_ids[2];
    uint8_t *node_mark;    /* [nodes] placement scratch: 0 between calls */
    uint32_t *scratch;     /* [2 * nodes + 2 * max(pods, nblocks) + 2] placement scratch */
    uint32_t rr_next;      /* round-robin placement: where the next search starts */
    uint32_t alloc;        /* GPUs allocated to jobs now */
    uint64_t gen;          /* changes so far of a GPU's free bit or health */
    uint64_t *node_gen;    /* [nodes] gen after the node's last such change (0 = none yet) */
    /* GPU sharing (workload.gpu_sharing; wk_pool_share_init): NULL without. A
     * shared GPU is held (owner, alloc) once, by its first tenant, while any
     * tenant is on it; the others chain behind the owner through share_next. */
    uint16_t *share_free;  /* [gpus] thousandths free on shared GPU g, WK_POOL_UNSHARED when g is not shared */
    int64_t *share_since;  /* [gpus] the caller's time when GPU g became shared */
    uint32_t *share_next;  /* [jobs] the next tenant of the job's shared GPU, WK_POOL_NONE = the last */
    uint32_t *shared;      /* [gpus] the shared GPUs now, nshared of them, in no order */
    uint32_t *shared_at;   /* [gpus] index of shared GPU g in shared */
    uint32_t nshared;
    uint32_t tenants;      /* jobs on shared GPUs now */
} WkPool;

#define WK_POOL_UNSHARED UINT16_MAX /* share_free of a GPU that is not shared */

/** The lowest-numbered node with exactly k free usable GPUs, or UINT32_MAX
 * when none has: a bitmap search, O(nodes / 64) at worst. */
uint32_t wk_pool_first_node_with(const WkPool *p, uint32_t k);

/** Set up p over c (borrowed, must outlive p): every GPU free, none owned,
 * no spares. Returns 0 or WK_E_NOMEM. On failure wk_pool_fini still works. */
int wk_pool_init(WkPool *p, WkCluster *c, WkError *err);

/** Release p's arrays. Safe on a zeroed or failed pool. */
void wk_pool_fini(WkPool *p);

/** 1 when GPU g exists, is free and usable. */
static inline int wk_pool_is_free(const WkPool *p, uint32_t g)
{
    return g < p->c->gpus && ((p->freebits[g >> 6] >> (g & 63)) & 1);
}

/** Take free GPU g out of the free pool / put GPU g back (the bitmap and the
 * node and pod counts move together; g's node gets a new node_gen). The
 * caller knows g's state. */
void wk_pool_take(WkPool *p, uint32_t g);
void wk_pool_give(WkPool *p, uint32_t g);

/** Hold job's GPUs gpus[0..n) and count them allocated: every one must be
 * free (else nothing is held and WK_E_INTERNAL, *bad = the first busy GPU).
 * Account the time up to now before (alloc changes). */
int wk_pool_hold(WkPool *p, uint32_t job, const uint32_t *gpus, uint32_t n, uint32_t *bad);

/** Release GPU g from its job and count it no longer allocated: it returns
 * to the free pool unless it is down. Account the time up to now before. */
void wk_pool_release(WkPool *p, uint32_t g);

/** wk_pool_release of gpus[0..n) in order (distinct GPUs held by one job),
 * the same state after as n calls, with each row of GPUs of one node
 * counted once. */
void wk_pool_release_all(WkPool *p, const uint32_t *gpus, uint32_t n);

/** Change GPU g's health and clock (models/topo/cluster.h state), keeping
 * the pool consistent: a GPU going down leaves the free pool, one coming back
 * rejoins it when no job holds it and its node is not a spare. g's node gets
 * a new node_gen. */
void wk_pool_set_health(WkPool *p, uint32_t g, WkGpuHealth h, float clock);

/** Turn GPU sharing on for a pool of a run of `jobs` jobs: no GPU shared
 * yet. Returns 0 or WK_E_NOMEM (wk_pool_fini still works). */
int wk_pool_share_init(WkPool *p, size_t jobs, WkError *err);

/** 1 when GPU g is shared now (sharing on, a tenant on it). */
static inline int wk_pool_is_shared(const WkPool *p, uint32_t g)
{
    return p->share_free && g < p->c->gpus && p->share_free[g] != WK_POOL_UNSHARED;
}

/** The shared GPU a job of `milli` thousandths would best fit: the one
 * with the least free thousandths that still hold milli, of those not down
 * (ties: the lowest GPU); WK_POOL_NONE when none has room or sharing is
 * off. O(shared GPUs). */
uint32_t wk_pool_share_fit(const WkPool *p, uint32_t milli);

/** GPU g, just held by its owner (wk_pool_hold) for a job of milli (1 to
 * 999) thousandths, becomes shared at time now, with 1000 - milli free. */
void wk_pool_share_open(WkPool *p, uint32_t g, uint32_t milli, int64_t now);

/** job joins shared GPU g (milli thousandths, at most its free ones) as a
 * tenant: g stays held by its owner and is not held again. */
void wk_pool_share_join(WkPool *p, uint32_t g, uint32_t job, uint32_t milli);

/** job (a tenant of shared GPU g, milli thousandths) leaves it. Returns 0
 * when other tenants stay (when job owned g, the next tenant owns it now);
 * 1 when job was the last: g is no longer shared, still held by job (the
 * caller releases it with wk_pool_release), *since = when it became shared. */
int wk_pool_share_leave(WkPool *p, uint32_t g, uint32_t job, uint32_t milli, int64_t *since);

/** The tenants of GPU g: the first is p->owner[g], then each next one after
 * job; WK_POOL_NONE after the last (at once when g is not shared). */
static inline uint32_t wk_pool_tenant_next(const WkPool *p, uint32_t g, uint32_t job)
{
    return wk_pool_is_shared(p, g) ? p->share_next[job] : WK_POOL_NONE;
}

/** GPUs of node nd. */
static inline uint32_t wk_pool_node_gpus(const WkPool *p, uint32_t nd)
{
    return p->c->node_first_gpu[nd + 1] - p->c->node_first_gpu[nd];
}

/** Place n GPUs with strategy how into out[0..n), optionally only GPUs with
 * allowed(g, user) != 0 (models/state/place.c). out lists the GPUs in rank
 * order: with WK_PLACE_EXCLUSIVE a job of max_node GPUs or more gets whole
 * idle nodes, node after node (so tensor-parallel groups that divide a node
 * stay inside it), the remainder best fit in one more node; a smaller job
 * goes into one node (best fit). Returns 0, WK_E_NOROOM when the GPUs are
 * not free in the required shape (out then unspecified), or WK_E_NOMEM. */
int wk_pool_place(WkPool *p, WkPlacement how, uint32_t n, uint32_t *out,
                  int (*allowed)(uint32_t gpu, void *user), void *user);

#endif
