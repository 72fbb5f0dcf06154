/* SPDX-License-Identifier: Apache-2.0 */
/* sci.h — internals of the `sci` policy (models/sched/sci.c) shared with its
 * tests: the annealer's energy and state, the per-run statistics, and the
 * "local rules" cascade model. Not a plugin interface; the policy itself is
 * the wk_sched_sci symbol declared in sched.h. Equations: docs/sci.md. */
#ifndef WK_SCHED_SCI_H
#define WK_SCHED_SCI_H

#include <stddef.h>
#include <stdint.h>

#include "models/topo/cluster.h"
#include "sim/core/error.h"
#include "wanka/sched.h"
#include "sim/core/rng.h"

/* Inputs of the cascade model (docs/sci.md#cascade). Units in names. */
typedef struct WkSciCascadeParams {
    double proc_s;        /* message processing time of one relay (receive, update, forward) */
    double lat_nvlink_s;  /* one message inside an NVLink domain */
    double lat_fabric_s;  /* one message between NICs on the same leaf */
    double switch_s;      /* each further switch on a fabric path (switch + cable) */
    double period_s;      /* relays forward on a period (gossip); 0 = at once */
} WkSciCascadeParams;

/* Outcome: time for a load change at GPU 0 to be known by every GPU of its
 * NVLink domain, its leaf group, its pod and the whole cluster, s. */
typedef struct WkSciCascade {
    double nvlink_s, leaf_s, pod_s, cluster_s;
    uint32_t fan[4]; /* units to reach per level: GPUs per domain, domains per
                        leaf group, leaf groups per pod, pods */
} WkSciCascade;

/* Every parameter of the policy; YAML keys and defaults in docs/sci.md. */
typedef struct WkSciParams {
    double j[4];           /* coupling per WkPathClass of consecutive ranks (NVLink, leaf, pod, cross-pod) */
    double h_load;         /* reward per allocated GPU */
    double h_throttle;     /* per GPU x (1 - slowest clock of the block) x rho */
    double h_hot;          /* per GPU above hot_threshold x pod size in a pod */
    double hot_threshold;  /* fraction of a pod's GPUs */
    double c_wait;         /* per GPU-hour of queue wait of an unplaced job */
    double c_node, c_pod;  /* per partially used node / pod */
    double c_migrate;      /* per GPU-hour of restart cost of a migrated job */
    double migrate_cost_s; /* restart cost of a migration (preemption_cost), s */
    double tau_s;          /* remaining-time scale of rho = R / (R + tau), s */
    double t0, alpha, t_min; /* geometric schedule: T_k = t0 alpha^k per sweep, down to t_min */
    uint32_t moves;        /* move budget per invocation */
    uint32_t window;       /* waiting jobs in play per round at most (the first that fit); 0 = all */
    int64_t budget_us;     /* optional CPU-time budget per invocation, µs; 0 = off (breaks determinism) */
    int migrate;           /* running jobs may move (preempt + restart) */
    int reserve;           /* a blocked head holds an EASY-style reservation */
    int local_rules;       /* proposals grow from one node outward; decision latency recorded */
    WkSciCascadeParams cascade;
    int whole_nodes;       /* node-granular blocks (the scenario's `placement:` is exclusive) */
    int order_short;       /* queue order: 0 arrival (FIFO), 1 smallest estimated GPU-time first */
    double starve_s;       /* order_short: a job waiting this long goes ahead in arrival order, s */
    /* The paper's mechanisms as the objective sees them (docs/sci.md,
     * "The mechanisms in the objective"); every switch 0 by default, and
     * with all four 0 the energy is the one above, bit for bit. */
    int use_outsourcing;   /* idle whole nodes (what outsourcing lends) earn h_lend per GPU */
    int use_cascade;       /* fabric couplings as with gradients compressed by `compression` */
    int use_division;      /* the throttle term loses 1 - mean clock (layers split by speed), not 1 - min */
    int feedback;          /* c_wait scaled by the observed stretch of completed jobs */
    int use_roles;         /* §3.3 roles: a block loses 1 - the job's speed on its slowest SKU (relative to its
                              best), so jobs go where their bound is relatively best */
    double h_lend;         /* use_outsourcing: per GPU of an idle node */
    double compression;    /* use_cascade: gradient compression ratio, >= 1 */
    double feedback_max;   /* feedback: the scale of c_wait stays in [1, feedback_max] */
    double feedback_weight;/* feedback: weight of each completed job in the moving average, (0, 1] */
} WkSciParams;

/** Fill p with the defaults of docs/sci.md. */
void wk_sci_defaults(WkSciParams *p);

/** The coupling sci uses for path class cls (WkPathClass) under p: p->j[cls],
 * or with use_cascade J_nvlink - (J_nvlink - J_cls) / compression for the
 * fabric classes (gradients compressed by that ratio cross the fabric that
 * much lighter, so a boundary there costs that much less; docs/sci.md). */
double wk_sci_coupling(const WkSciParams *p, int cls);

/** The fraction of a block's work lost to slow GPUs, from clocks
 * clock[0..n) (n >= 1): 1 - min (the slowest rank bounds the job), or with
 * use_division 1 - mean (layers split by each GPU's speed, micro-batches by
 * each replica's). */
double wk_sci_clock_loss(const WkSciParams *p, const float *clock, const uint32_t *gpus, uint32_t n);

/** The feedback's scale of c_wait from the moving average of observed
 * stretch (JCT / estimated run time) of completed jobs: the average
 * clamped to [1, feedback_max]; 1 while feedback is off or before any job
 * completed (avg <= 0 or NaN). */
double wk_sci_feedback_scale(const WkSciParams *p, double avg);

/** The cascade times of a cluster (docs/sci.md#cascade): a relay tree along
 * the switch hierarchy, each level covered by doubling rounds. Returns 0 or
 * WK_E_INVAL for negative times. */
int wk_sci_cascade(const WkCluster *c, const WkSciCascadeParams *p, WkSciCascade *out, WkError *err);

/* --- the annealer, usable without a run (tests) --- */

enum { WK_SCI_FREE = 0, WK_SCI_USED = 1, WK_SCI_DOWN = 2 }; /* GPU states */

/* One job in play. */
typedef struct WkSciJob {
    uint32_t gpus;         /* GPUs it needs */
    double wait_s;         /* time waited in the queue (unplaced jobs) */
    double rho;            /* weight of its placement quality, in [0, 1] */
    const uint32_t *real;  /* its running placement (borrowed), NULL when queued */
    double mem;            /* GPU memory it needs per GPU, bytes (wk_sched_job_mem_need): blocks go only
                              where every GPU has as much; 0 = any GPU */
    const float *speed;    /* use_roles: [node groups] its speed on each group relative to its best, in
                              (0, 1] (borrowed); NULL = 1 everywhere */
} WkSciJob;

/* §3.3's roles (docs/sci.md, "Roles"): how a job's iteration time follows
 * the SKUs. */
typedef enum WkSciRole {
    WK_SCI_ROLE_NONE = 0,  /* one SKU, or no model to ask */
    WK_SCI_ROLE_COMPUTE,   /* its time follows the SKUs' BF16 FLOP/s */
    WK_SCI_ROLE_MEMORY,    /* ... their HBM bandwidth */
    WK_SCI_ROLE_COMM,      /* ... neither: it does not speed up on a faster GPU (collectives) */
    WK_SCI_ROLE_N
} WkSciRole;

/** The role of a job that takes t_ratio (>= 1) times as long on its slowest
 * SKU as on its fastest, where the fastest has flops_ratio times the FLOP/s
 * and bw_ratio times the HBM bandwidth of the slowest: the one of ln F,
 * ln M and 0 (communication: no dependence on the GPU) nearest ln t_ratio;
 * ties go to compute, then memory. NONE for a ratio not finite or < 1e-9. */
WkSciRole wk_sci_role(double t_ratio, double flops_ratio, double bw_ratio);

/** Its name ("compute", "memory", "communication", "none"). */
const char *wk_sci_role_name(WkSciRole r);

/** speed[k] = min over k of t[k] / t[k] for t[0..n) (the iteration time on
 * each node group; NaN or <= 0: not known, speed 1). Returns the index of
 * the fastest known group and of the slowest in *fast, *slow (both 0 when
 * fewer than two are known) and the ratio t_slow / t_fast (1 then). */
double wk_sci_speeds(const double *t, uint32_t n, float *speed, uint32_t *fast, uint32_t *slow);

typedef struct WkSciState WkSciState;

typedef struct WkSciAnnealStats {
    uint32_t moves, accepted;
    double e_before, e_after; /* e_after is tracked incrementally */
} WkSciAnnealStats;

/** New annealer state for cluster c (borrowed; must outlive the state) and
 * parameters p (copied). Returns 0 or WK_E_NOMEM. Free with wk_sci_state_free. */
int wk_sci_state_new(WkSciState **out, const WkCluster *c, const WkSciParams *p, WkError *err);
void wk_sci_state_free(WkSciState *s);

/** Replace the parameters (e.g. migration allowed or not for one call). */
void wk_sci_state_params(WkSciState *s, const WkSciParams *p);

/** Load a configuration: gpu[g] is WK_SCI_FREE / USED / DOWN (borrowed,
 * copied); jobs[i] with `real` are placed there (those GPUs must be USED,
 * and no GPU in two real placements), the others start unplaced; no
 * reservation. Returns 0, WK_E_NOMEM, or WK_E_INVAL for a bad real
 * placement. After an error the state is unusable until a load succeeds. */
int wk_sci_state_load(WkSciState *s, const uint8_t *gpu, const WkSciJob *jobs, uint32_t njobs, WkError *err);

/** wk_sci_state_load for a gpu[] that differs from the one of the previous
 * successful load only on the GPUs of nodes changed[0..nchanged) (node ids,
 * borrowed; repeats allowed): only those nodes and the ones the previous
 * configuration's moves touched are re-read, O(their GPUs + nodes + jobs)
 * instead of O(GPUs). The result is that of wk_sci_state_load, bit for bit.
 * Before any load, and after a failed one, it reads all of gpu[]. */
int wk_sci_state_reload(WkSciState *s, const uint8_t *gpu, const uint32_t *changed, uint32_t nchanged,
                        const WkSciJob *jobs, uint32_t njobs, WkError *err);

/** The energy H of the current configuration, recomputed from scratch. */
double wk_sci_energy(const WkSciState *s);

/** The tracked energy H: after a load it is wk_sci_energy's value bit for
 * bit; moves, pins and set_block keep it up to date incrementally. O(1). */
double wk_sci_state_energy(const WkSciState *s);

/** Put job i on gpus[0..n) in that rank order (free GPUs, or its own), or
 * unplace it (gpus NULL; not for a job with a real placement). Returns 0 or
 * WK_E_INVAL. For tests and brute force. */
int wk_sci_set_block(WkSciState *s, uint32_t i, const uint32_t *gpus);

/** Place unplaced job i with the pack proposal and pin it (it may move but
 * never return to the queue). Returns 0 or WK_E_NOROOM when it does not fit. */
int wk_sci_pin(WkSciState *s, uint32_t i);

/** Head reservation: jobs marked with wk_sci_fence may only be placed while
 * their GPUs fit in `spare` (UINT32_MAX = no reservation, the default after
 * a load); placing one uses its GPUs up, unplacing gives them back. */
void wk_sci_reserve(WkSciState *s, uint32_t spare);
void wk_sci_fence(WkSciState *s, uint32_t i);

/** Free GPUs in the current configuration. */
uint32_t wk_sci_free(const WkSciState *s);

/** Anneal: Metropolis moves (place, exchange, unplace, move, swap) under the
 * geometric schedule within the move budget, then a zero-temperature pass
 * sending moved running jobs home when that is lower; with running jobs in
 * play the best sweep end is kept. rng is borrowed. st->e_after is the
 * energy of the final configuration. Returns 0. */
int wk_sci_anneal(WkSciState *s, WkRng *rng, WkSciAnnealStats *st);

/** Job i's current block (borrowed until the next change), NULL when unplaced. */
const uint32_t *wk_sci_block(const WkSciState *s, uint32_t i);

/** 1 when job i has a real placement and its block differs from it. */
int wk_sci_moved(const WkSciState *s, uint32_t i);

/** Widest path class between consecutive ranks of a block (WkPathClass). */
int wk_sci_block_scope(const WkSciState *s, const uint32_t *gpus, uint32_t n);

/* --- the policy's statistics over a run --- */

typedef struct WkSciStats {
    uint64_t invocations;   /* scheduling rounds (calls from the framework) */
    uint64_t annealed;      /* calls that ran the annealer */
    uint64_t settled;       /* of them, calls with the short schedule (one sweep at t_min): the whole queue
                               fit at its pinned blocks and nothing could move */
    uint64_t moves, accepted;
    uint32_t max_moves;     /* most moves in one call */
    size_t max_queue;       /* longest queue seen */
    uint64_t windowed;      /* rounds in which more jobs fit than `window` let in */
    size_t max_in_play;     /* most waiting jobs in play in one round */
    uint64_t commits;       /* calls whose result was applied */
    uint64_t starts, migrations;
    uint64_t refused;       /* migrations the framework would not stop (a hit job not yet detected) */
    uint64_t blocked;       /* planned starts skipped because a refused job still held their GPUs */
    uint64_t safety_starts; /* queue heads started by the fallback pass (0 when the annealer did its job) */
    uint64_t uphill;        /* annealed calls whose end energy exceeded the start energy (not applied) */
    double energy_drop;     /* sum over calls of E(start) - E(applied) */
    double latency_sum_s, latency_max_s; /* local rules: cascade time of each start's scope */
    uint64_t latency_n;
    WkSciCascade cascade;   /* of this cluster, with the run's cascade parameters */
    uint64_t roles[WK_SCI_ROLE_N]; /* use_roles: jobs by role (each counted once) */
    uint64_t observed;      /* feedback: completed jobs whose stretch was observed */
    double stretch_avg;     /* feedback: their moving average (0 before the first) */
    double wait_scale;      /* feedback: the scale of c_wait now (1 while off) */
} WkSciStats;

/* The per-job speeds of use_roles, computed once per job (a policy's cache). */
typedef struct WkSciRoles {
    float **speed;       /* [job] its [node groups] speeds once computed, else NULL */
    size_t capj;
    double *t;           /* [node groups] scratch: iteration times */
    uint32_t *probe;     /* scratch: a probe block */
    uint32_t capprobe;
} WkSciRoles;

/** Job's speed on each node group relative to its best (wk_sci_speeds of its
 * iteration time alone on the first GPUs of each group, from the
 * performance model: wk_sched_job_iter_s_on), computed on the first call
 * and cached in r (valid until wk_sci_roles_free, whatever later calls
 * do); its role counted in st->roles then. NULL (speed 1 everywhere) with
 * one node group or when out of memory; every speed 1 for a job the model
 * cannot time on two groups. */
const float *wk_sci_roles_of(WkSciRoles *r, const WkSchedCtx *ctx, uint32_t job, WkSciStats *st);
void wk_sci_roles_free(WkSciRoles *r);

/** The statistics of a policy instance (priv of a run using `sci`). */
const WkSciStats *wk_sci_stats(const void *priv);

#endif
