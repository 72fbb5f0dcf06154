/* SPDX-License-Identifier: Apache-2.0 */
/* share.h — the fabric share of a run: the flow network of every running
 * job's ring flows on the fabric's links (max-min fair, models/net/flow.h),
 * the links out of service, and after each change the set of jobs whose
 * share moved. Owns the flow network; the jobs' progress (models/run/
 * progress.c) re-rates the jobs it names. */
#ifndef WK_SHARE_H
#define WK_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "models/net/flow.h"
#include "models/topo/cluster.h"
#include "sim/core/error.h"

typedef struct WkShare {
    WkFlowNet *net;        /* NULL without a fabric */
    WkFlowNet *a2a;        /* the expert all-to-all phase: its own flows on the same links; NULL until one */
    uint8_t *link_down;    /* [physical links] failures in force on a link; NULL until failures start */
    uint64_t *dirty;       /* scratch bitmap over jobs: already listed in this round */
    uint64_t *flowing;     /* bitmap over jobs: has flows in the network (wk_share_flowing) */
    uint64_t *hit;         /* scratch bitmap over jobs: flows on a link (wk_share_link_jobs) */
    /* storage transfers (share_store.c): */
    struct WkShareXfer *xf;  /* transfers by id (slots; those not live are free) */
    uint32_t nxf;          /* slots */
    uint32_t nlive;        /* transfers in flight */
    WkFlowNet *store;      /* `sharing: priority`: the flows of 2+ transfers in flight, on what the rings leave; else NULL */
    uint32_t *uses;        /* priority: [flow links] flows of transfers in flight crossing each */
    uint32_t *cnt;         /* priority: scratch [flow links], zero between calls */
    uint32_t *touched;     /* priority: scratch, links of one transfer */
    uint64_t *idle;        /* priority: bitmap over jobs stalled on a transfer of their own (rings carry nothing) */
    uint32_t *rlinks;      /* priority: links whose capacity left to storage is to be re-read */
    uint8_t *rmark;        /* priority: [fabric directed links] on rlinks */
    size_t nrlinks;
    int alone_stale;       /* priority: the transfers' rates are to be re-read */
    uint64_t fabric_dl;    /* directed links of the fabric (the storage links follow) */
    struct WkShareJobLinks *jl; /* priority: [jobs] the links of each job's last transfer */
    uint64_t epoch;        /* priority: links set (down or back) so far */
    size_t njobs;
    uint64_t reflows;      /* rate recomputations of running jobs (summary) */
} WkShare;

/** Set up the share for c's fabric (none without one) and njobs jobs.
 * Returns 0 or WK_E_NOMEM. wk_share_fini works after a failure. */
int wk_share_init(WkShare *s, const WkCluster *c, size_t njobs, WkError *err);

/** Release the flow network and the tables. */
void wk_share_fini(WkShare *s);

/** Add the ring flows of job, edges[0..2 nedges) (pairs of GPUs: the rings
 * of models/state/eval.h, wk_eval_rings), each routed around links down
 * where another way exists (up to 16 salted ECMP choices). *flows (malloc'd,
 * caller frees) receives their ids; *moved (NULL: not counted) is
 * incremented per flow whose plain path crosses a link down (a2a.h,
 * wk_a2a_route). Returns 0 or WK_E_NOMEM. */
int wk_share_add(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *edges, uint32_t nedges,
                 uint32_t **flows, uint32_t *nflows, uint32_t *moved, WkError *err);

/** Mark job as having flows in the network (on != 0) or none. */
void wk_share_flowing(WkShare *s, uint32_t job, int on);

/** The next job >= from marked by wk_share_flowing, or UINT32_MAX: the jobs
 * with flows in index order, in O(jobs / 64) for a whole pass. */
uint32_t wk_share_next_flowing(const WkShare *s, uint32_t from);

/** Mark in s->hit each job with a flow (ring or all-to-all) on either
 * direction of physical link phys. O(flows on the link). */
void wk_share_link_jobs(WkShare *s, uint64_t phys);

/** Whether s->hit marks job; wk_share_hit_clear(s, job) unmarks it. */
int wk_share_hit(const WkShare *s, uint32_t job);
void wk_share_hit_clear(WkShare *s, uint32_t job);

/** Add the expert all-to-all flows of a job (a2a.h, wk_a2a_add, routed
 * around links down) to the all-to-all network s->a2a, created on first
 * use: every job's all-to-alls share the links there, apart from the rings
 * (the phases of an iteration do not overlap); *moved as wk_share_add's. Returns 0, WK_E_NOMEM, or
 * WK_E_INVAL (no fabric; or as wk_a2a_add). */
int wk_share_add_a2a(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *gpus, uint32_t n, uint32_t width,
                     uint32_t per, uint32_t ep, uint32_t etp, uint32_t **flows, uint32_t *nflows, uint32_t *moved,
                     WkError *err);

/** Remove all-to-all flows[0..n) (wk_share_add_a2a) from their network. */
void wk_share_remove_a2a(WkShare *s, const uint32_t *flows, uint32_t n);

/** The slowest rate of all-to-all flows[0..n), at most bw. */
double wk_share_min_rate_a2a(const WkShare *s, const uint32_t *flows, uint32_t n, double bw);

/** Start a transfer between job's GPUs gpus[0..n) and the storage nodes
 * (c->storage; none: a transfer without flows): one flow per (NIC,
 * storage node) pair of max(NICs, storage nodes) pairs, NIC i mod NICs to
 * storage node (i + job) mod nodes (the job's distinct NICs in id order),
 * so each NIC and each storage node carries a part; read = 0 towards
 * storage (a checkpoint write), 1 from it. Routed around links down where
 * one of 16 salted ECMP choices does; owned by job. demand > 0 caps the
 * transfer's rate there (each of its F flows at demand / F: a dataset read
 * never takes more than it consumes); <= 0: no cap.
 * `sharing: fair`: the flows join the ring network, where they share links
 * max-min with every job's rings (wk_share_solve rates them). `priority`:
 * they share max-min, among the transfers in flight alone, what the rings
 * leave (wk_share_store_solve rates them). *tid names the transfer until
 * wk_share_xfer_remove. Returns 0 or WK_E_NOMEM. */
int wk_share_xfer_add(WkShare *s, const WkCluster *c, uint32_t job, const uint32_t *gpus, uint32_t n, int read,
                      double demand, uint32_t *tid, WkError *err);

/** End transfer tid (its flows leave the network; tid may be reused). */
void wk_share_xfer_remove(WkShare *s, uint32_t tid);

/** Flows of transfer tid, and the rate of all of them: flows x the rate of
 * its slowest flow, bytes/s (+inf without flows), as last solved (`fair`:
 * wk_share_solve; `priority`: wk_share_store_solve, NaN before the first
 * since its start). */
uint32_t wk_share_xfer_flows(const WkShare *s, uint32_t tid);
double wk_share_xfer_rate(const WkShare *s, uint32_t tid);

/** Remove ring flows[0..n) from the network. */
void wk_share_remove(WkShare *s, const uint32_t *flows, uint32_t n);

/** Set the capacity (bytes/s) of both directions of fabric link phys in the
 * ring network (a link down or back). */
void wk_share_set_link(WkShare *s, uint64_t phys, double bw);

/** Under `priority`: mark job as stalled on a transfer of its own (on != 0:
 * its rings, ring flows rings[0..n), carry nothing and leave their links to
 * the storage flows) or moving again. No-op under `fair`. */
void wk_share_idle(WkShare *s, uint32_t job, const uint32_t *rings, uint32_t n, int on);

/** Under `priority`: re-rate the transfers in flight where the rings or
 * the transfers changed since the last call. Each link l gets the capacity
 * the rings leave, R_l = max(0, C_l - the rates of the ring flows on l of
 * jobs not stalled) (a storage link its own), and the transfers' flows
 * share it max-min. One transfer alone: its slowest flow's rate is
 * min over its links of R_l / n_l (n_l of its flows on l: the first level
 * of the water-filling), with no flow network; two or more: their flows
 * are solved in s->store. *moved = 1 when a transfer's rate changed, else
 * 0. Reads the rings' rates of the last wk_share_solve. No-op (*moved = 0)
 * under `fair`. Returns 0 or the solver's code. */
int wk_share_store_solve(WkShare *s, int *moved, WkError *err);

/** The slowest rate of flows[0..n), at most bw. */
double wk_share_min_rate(const WkShare *s, const uint32_t *flows, uint32_t n, double bw);

/** Re-solve the shares (rings and all-to-alls; under `priority` it notes the
 * links of ring flows whose rate changed for wk_share_store_solve), then list (in *jobs, malloc'd, caller frees) each
 * job other than except whose flows changed rate and for which
 * wants(job, user) != 0, once. Returns 0, WK_E_NOMEM or the solver's code. */
int wk_share_solve(WkShare *s, uint32_t except, int (*wants)(uint32_t job, void *user), void *user,
                   uint32_t **jobs, size_t *njobs, WkError *err);

#endif
