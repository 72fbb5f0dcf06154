/* SPDX-License-Identifier: Apache-2.0 */
/* fail.h — failures, slowdowns and checkpoint/recovery settings of a run:
 * per component class a time-to-failure distribution (per component) and a
 * repair-time distribution, with defaults from the class table
 * (fail_class.h: Llama 3's 54-day record, REFERENCES.md); random slowdown/outage processes over GPUs, nodes, racks
 * or pods (thermal throttling, stragglers, cooling loss); a scripted incident
 * list; checkpointing (interval fixed or Young/Daly, size, storage
 * bandwidth, remote/async/in-memory) and the recovery pipeline (detection,
 * restart overhead, spares). Parsing and closed forms only: the run driver
 * (models/recovery/) applies them. Equations and sources: docs/models.md. */
#ifndef WK_FAIL_H
#define WK_FAIL_H

#include <stdint.h>

#include "models/fail/fail_class.h"
#include "sim/scenario/dist.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/core/time.h"

typedef struct WkFailClassSpec {
    int on;          /* 1: the process runs */
    WkDist ttf;      /* time to failure of ONE component */
    WkDist repair;   /* time to repair */
} WkFailClassSpec;

/* A random slowdown or outage process over units of a scope. */
typedef struct WkFailProcess {
    WkIncidentKind kind; /* THROTTLE, STRAGGLER or DOWN */
    WkScope scope;
    WkDist ttf;          /* time between events of ONE unit */
    WkDist duration;     /* how long the effect lasts */
    double clock;        /* clock factor while throttled */
} WkFailProcess;

/* One scripted incident. */
typedef struct WkScripted {
    WkTime at;
    WkIncidentKind kind;
    WkScope scope;
    uint32_t index;    /* which GPU/node/rack/pod */
    uint32_t gpus;     /* 0 = all GPUs of the unit, else the first `gpus` of them */
    WkTime duration;   /* repair time (DOWN) or effect time (THROTTLE/STRAGGLER) */
    double clock;
    long line, col;    /* position in the scenario, for errors found later */
} WkScripted;

typedef enum WkCkptMode { WK_CKPT_REMOTE = 0, WK_CKPT_ASYNC, WK_CKPT_MEMORY } WkCkptMode;
typedef enum WkCkptInterval { WK_CKPT_FIXED = 0, WK_CKPT_YOUNG, WK_CKPT_DALY, WK_CKPT_NONE } WkCkptInterval;
typedef enum WkRecoveryMode { WK_RECOVER_RESCHEDULE = 0, WK_RECOVER_SPARES, WK_RECOVER_WAIT } WkRecoveryMode;
/* Where a restart loads its checkpoint from. */
typedef enum WkRestoreTier { WK_RESTORE_REMOTE = 0, WK_RESTORE_LOCAL, WK_RESTORE_PEER } WkRestoreTier;

/* The steps of a restart after detection, in order (docs/models.md,
 * "Recovery time breakdown"). */
typedef enum WkRecStep {
    WK_RSTEP_DRAIN = 0, /* stop the hung job's processes */
    WK_RSTEP_LAUNCH,    /* scheduling, placement, process start (hot spare: its start only) */
    WK_RSTEP_INIT,      /* communicator initialisation, per GPU */
    WK_RSTEP_LOAD,      /* checkpoint load from its tier */
    WK_RSTEP_WARMUP,    /* first iterations slower (compile, caches) */
    WK_RSTEP_N
} WkRecStep;

typedef struct WkFailSpec {
    int enabled;                  /* 0: no failure processes, no checkpoint stalls */
    WkFailClassSpec cls[WK_FC_N];
    WkFailProcess *procs;         /* owned */
    uint32_t nprocs;
    WkScripted *scripted;         /* owned, in file order */
    uint32_t nscripted;
    uint32_t nodes_per_rack;      /* rack = consecutive nodes (default 4: 32 GPUs of 8-GPU nodes) */
    WkTime health_check;          /* hardware faults are detected within this period (uniform) */
    WkTime nccl_timeout;          /* software hangs and SDC are detected after this */
    /* checkpointing */
    WkCkptInterval interval_rule;
    WkTime interval;              /* WK_CKPT_FIXED */
    double bytes_per_param;       /* checkpoint size per parameter */
    double plain_ckpt_bytes;      /* checkpoint size of a job without a model */
    double storage_bw;            /* bytes/s of the shared parallel file system */
    double host_bw;               /* bytes/s per GPU to host memory (async/in-memory snapshot) */
    WkCkptMode mode;
    double memory_restore_speedup;/* given: in-memory restore = remote / this (older model); 0: by tier */
    WkRestoreTier restore;        /* tier a restart loads from */
    double local_bw;              /* bytes/s per node from local disk */
    double peer_bw;               /* bytes/s per GPU from a peer's host memory */
    /* recovery: the restart steps after detection */
    WkTime drain;                 /* the scheduler stops the hung job (not on a hot swap) */
    WkTime launch;                /* relaunch through the scheduler: placement and process start */
    WkTime spare_launch;          /* process start on a hot spare (the job keeps its other nodes) */
    double init_s_per_gpu;        /* communicator initialisation, s per GPU of the job */
    WkTime warmup;                /* slower first iterations */
    WkRecoveryMode recovery;
    uint32_t spare_nodes;         /* hot spares held out of scheduling */
    double diurnal_amplitude;     /* 0 = off; else peak-to-trough clock loss over a day */
} WkFailSpec;

/** Defaults (enabled = 0): per class the table's rate and log-normal repair
 * (fail_class.c), Young intervals, 14 bytes/parameter, ... */
void wk_fail_defaults(WkFailSpec *f);

/** Read `failures:`, `checkpoint:` and `recovery:` (any may be NULL) into f.
 * A present `failures:` section enables the processes (`enabled: false` turns
 * them off). Positioned errors: negative or zero rates, shapes <= 0, unknown
 * classes or kinds, scripted targets out of range (given the cluster's
 * gpus/nodes/pods passed in). The caller owns f's arrays (wk_fail_fini). */
int wk_fail_parse(const WkNode *failures, const WkNode *checkpoint, const WkNode *recovery, uint32_t gpus,
                  uint32_t nodes, uint32_t pods, WkFailSpec *f, WkError *err);

void wk_fail_fini(WkFailSpec *f);

/** Name of an incident kind ("down", "throttle", ...); classes: fail_class.h. */
const char *wk_incident_kind_name(WkIncidentKind k);

/** Restart cost of a job of `gpus` GPUs on `nodes` nodes whose checkpoint
 * is `bytes`, by step (out[WK_RSTEP_N], seconds); `spare`: restarted on a
 * hot spare (no drain through the scheduler; its launch step is
 * spare_launch, not launch). Returns the sum. */
double wk_fail_restart_steps(const WkFailSpec *f, double bytes, uint32_t gpus, uint32_t nodes, int spare, double *out);

/** Name of a restart step ("drain", "launch", "init", "load", "warmup"). */
const char *wk_rec_step_name(WkRecStep s);

/** Young (1974): tau = sqrt(2 * delta * M). */
double wk_ckpt_young_s(double delta_s, double mttf_s);

/** Daly (2006): tau = sqrt(2 delta M) [1 + sqrt(delta/2M)/3 + (delta/2M)/9] - delta
 * for delta < 2M, else M. */
double wk_ckpt_daly_s(double delta_s, double mttf_s);

/** First-order effective training time ratio of one long job with interval
 * tau, checkpoint cost delta, restart R and MTTF M:
 * 1 - delta/tau - (tau/2 + R)/M (REFERENCES.md, Young's derivation). */
double wk_ckpt_ettr_first_order(double tau_s, double delta_s, double restart_s, double mttf_s);

#endif
