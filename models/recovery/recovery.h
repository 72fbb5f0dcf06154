/* SPDX-License-Identifier: Apache-2.0 */
/* recovery.h — failures hitting a run's jobs, checkpoints, detection,
 * restarts, hot spares, waiting in place and elastic shrink and grow, as
 * one subsystem the driver attaches (wk_recovery). Its state block is a
 * WkRunFail (wk_run_sub), which owns the incidents table and a per-job
 * table of checkpoints and pending incidents. It calls only down into
 * models/state; a restart through the queue is a request to the driver
 * (wk_run_request_requeue). Models: docs/models.md, "Failures". */
#ifndef WK_RECOVERY_H
#define WK_RECOVERY_H

#include "models/state/state.h"

/* Limit of the incidents table (docs/limits.md): past it the run fails with
 * WK_E_RANGE rather than grow without bound. */
#define WK_RUN_MAX_INCIDENTS 10000000

/* One row of the incidents table. */
typedef struct WkIncidentRow {
    uint32_t id;
    uint8_t cls;        /* WkFailClass, or WK_FC_N for a process/scripted event */
    uint8_t kind;       /* WkIncidentKind */
    uint8_t scope;      /* WkScope of the component, or 255 for a link/switch */
    uint32_t component; /* its index in that class or scope */
    int64_t start_ns, end_ns; /* failure; repair or effect end (-1 none) */
    uint32_t jobs_hit, gpus_lost;
    double detect_s, wait_s, restart_s, recovery_s, lost_gpu_h;
    double clock;       /* throttles */
    double step_s[WK_RSTEP_N]; /* restart_s of the last job restarted, by step (NaN: none yet) */
} WkIncidentRow;

/* What recovery keeps per job. */
typedef struct WkFailJob {
    uint32_t interruptions;    /* times hit by a failure */
    uint32_t ckpt_tok;         /* token of its checkpoint events */
    uint8_t in_ckpt;           /* a checkpoint write is in flight */
    uint8_t on_shrunk;         /* 1: listed in WkRunFail.shrunk */
    double ckpt_done, snap_done;      /* model jobs: iterations at the last checkpoint / snapshot */
    WkTime ckpt_left, snap_left;      /* plain jobs: run time left at the last checkpoint / snapshot */
    double ckpt_prog_s, snap_prog_s;  /* prog_s at the last checkpoint / snapshot */
    double tau_s;              /* checkpoint interval of this job, s (0 = none) */
    uint32_t incident;         /* 1 + the incident that stopped it last, 0 = none pending */
    WkTime fail_t, detect_t;   /* of the pending incident */
    double steps[WK_RSTEP_N];  /* restart cost it pays at its next start, by step, s */
} WkFailJob;

/* A checkpoint write, or a restart's checkpoint load, on flows to or from
 * the storage nodes (cluster.storage). */
typedef struct WkStoreXfer {
    uint32_t job;
    uint32_t read;             /* 1: a restart's load (from storage), 0: a write */
    uint32_t inc;              /* a load: 1 + the incident whose restart it is, 0 = none */
    double est_s;              /* a load: its step time at storage_gb_per_s, as first charged */
    WkTime tail;               /* a load: the restart's steps after it (warm-up) */
    uint32_t tid;              /* its transfer in the fabric share (wk_share_xfer_add) */
    double left;               /* bytes still to move at t */
    double rate;               /* bytes/s of all its flows since t */
    WkTime from;               /* bytes move from then on (after an async snapshot) */
    WkTime t;                  /* when left and rate were last set */
} WkStoreXfer;

/* The failure state of a run: streams, incidents, checkpoint writers,
 * recovery counters, the per-job table and the jobs waiting for repairs. */
typedef struct WkRunFail {
    WkRun *r;               /* the run it belongs to (borrowed) */
    WkFailJob *job;         /* owned: [jobs], from start */
    WkRng *fail_rng[WK_FC_N];/* one stream per failure class ("fail.gpu", ...) */
    WkRng *detect_rng;      /* detection delays ("fail.detect") */
    WkRng **proc_rng;       /* owned: one stream per random process ("fail.process.N") */
    WkIncidentRow *incidents; /* owned: the incidents table */
    size_t nincidents, capincidents;
    uint32_t ckpt_active;   /* jobs writing a checkpoint to shared storage now */
    uint64_t interruptions; /* job interruptions by failures */
    uint64_t shrinks;       /* elastic restarts on fewer GPUs */
    double lost_gpu_s;      /* GPU-seconds of work rolled back */
    uint64_t restarts;      /* restarts after an incident (the breakdown's count) */
    double detect_sum;      /* their detection delays, s */
    double step_sum[WK_RSTEP_N]; /* their restart steps, s */
    uint32_t *waitlist;     /* owned: jobs waiting in place for repairs (room for every job) */
    size_t nwait;
    uint32_t *shrunk;       /* owned: elastic jobs that shrank and may grow back (room for every job) */
    size_t nshrunk;
    WkStoreXfer *xfer;      /* owned: checkpoint writes on flows to storage nodes now */
    size_t nxfer, capxfer;
} WkRunFail;

/** The recovery subsystem: init (the failures, checkpoint and recovery
 * sections, after the cluster), start (streams, spares, first events),
 * started (checkpoint events armed, recovery time recorded), stopping
 * (checkpoint events dropped), freed (elastic jobs grow back). */
extern const WkRunSubsysOps wk_recovery;

/** Job's entry of recovery's per-job table (f->job must exist: after
 * start). */
static inline const WkFailJob *wk_recovery_job(const WkRunFail *f, uint32_t job) { return &f->job[job]; }

/** A plain job's run time still to go became `left` ns (a part of a job
 * spanning sites is made from it): its last checkpoint and snapshot are
 * set there, so a failure never restores past the part's own start. */
void wk_recovery_set_left(WkRunFail *f, uint32_t job, WkTime left);

#endif
