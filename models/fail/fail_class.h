/* SPDX-License-Identifier: Apache-2.0 */
/* fail_class.h — the component failure classes as one table: per class its
 * name (in scenarios and traces), what one component is and what its failure
 * takes down, the incident it makes, how a job it hits notices, and the
 * default rate with its source; per component kind the cluster-dependent
 * answers (how many there are, which GPUs and links one takes down). Not the
 * run: models/recovery/ applies them.
 *
 * To add a failure class:
 *  1. a WK_FC_* value just before WK_FC_N (its random stream is
 *     "fail.<name>", so no other class draws a different number);
 *  2. its name in wk_fail_class_names and its row in the class table
 *     (fail_class.c): component, kind, detection, default rate and source,
 *     repair median; the docs/models.md table for users;
 *  3. only when its component is a new kind: a WK_COMP_* value and its row in
 *     the component table (incident scope, job exposure, a count function and
 *     a function filling WkFailDown). */
#ifndef WK_FAIL_CLASS_H
#define WK_FAIL_CLASS_H

#include <stdint.h>

#include "models/topo/cluster.h"
#include "sim/core/error.h"

typedef enum WkFailClass {
    WK_FC_GPU = 0,   /* GPU (incl. SRAM, system processor, NVLink port): the GPU goes down */
    WK_FC_HBM,       /* HBM: the GPU goes down */
    WK_FC_NVSWITCH,  /* NVSwitch / NVLink domain: the node goes down */
    WK_FC_NIC,       /* NIC: its GPUs lose the fabric (down) */
    WK_FC_NODE,      /* host: PSU, CPU, memory, SSD, chassis, ...: the node goes down */
    WK_FC_LINK,      /* a cable: NIC-leaf (its GPUs down) or switch-switch (re-routed) */
    WK_FC_SWITCH,    /* leaf (its NICs cut off), spine or core (re-routed) */
    WK_FC_SOFTWARE,  /* software bug / NCCL hang: the job on a node restarts, no repair */
    WK_FC_SDC,       /* silent data corruption: the job on a GPU restarts, no repair */
    WK_FC_MAINT,     /* planned host maintenance: the node is drained */
    WK_FC_N
} WkFailClass;

typedef enum WkIncidentKind {
    WK_INC_DOWN = 0,   /* components unusable until repaired */
    WK_INC_THROTTLE,   /* GPUs run at a clock factor < 1 for a duration */
    WK_INC_STRAGGLER,  /* same effect, attributed to a slow node/GPU */
    WK_INC_SOFT,       /* the job restarts; hardware is fine */
} WkIncidentKind;

typedef enum WkScope {
    WK_SCOPE_GPU = 0,
    WK_SCOPE_NODE,
    WK_SCOPE_RACK,
    WK_SCOPE_POD,
    WK_SCOPE_FABRIC = 255, /* incidents only: a fabric link or switch */
} WkScope;

/* What one component of a class is, and what its failure takes down. */
typedef enum WkFailComponent {
    WK_COMP_GPU = 0, /* a GPU: it goes down */
    WK_COMP_NIC,     /* a GPU's NIC (one per GPU): the GPUs sending through it go down */
    WK_COMP_NODE,    /* a node: its GPUs go down */
    WK_COMP_LINK,    /* a cable: one NIC cable per GPU (its NIC's GPUs go down), then the
                        switch-to-switch cables (out of service, flows re-routed) */
    WK_COMP_SWITCH,  /* a switch, fabric numbering: a leaf cuts its NICs' GPUs off (down);
                        a spine or core takes its cables out of service */
    WK_COMP_N
} WkFailComponent;

/* How a job hit by a failure notices. */
typedef enum WkFailDetect {
    WK_DETECT_HEALTH_CHECK = 0, /* uniform in [0, health_check] after the failure */
    WK_DETECT_TIMEOUT,          /* nccl_timeout after the failure */
} WkFailDetect;

/* One row of the class table. */
typedef struct WkFailClassInfo {
    WkFailComponent component; /* what one component is; what its failure takes down */
    WkIncidentKind kind;       /* WK_INC_DOWN: down until repaired; WK_INC_SOFT: the job
                                  restarts, nothing to repair */
    WkFailDetect detect;       /* how a job it hits notices */
    double record_failures;    /* default rate: failures in Llama 3's 54-day record (0: off) */
    double record_components;  /* ... among this many components */
    double repair_median_h;    /* default log-normal (sigma 1) repair median, h; 0: none */
} WkFailClassInfo;

/* What one component failure takes down. The caller zeroes it before the
 * first use, may reuse it, and frees it with wk_fail_class_down_fini. */
typedef struct WkFailDown {
    uint32_t *gpus;            /* GPUs down (cut off the fabric counts as down) */
    uint32_t ngpus, capgpus;
    uint64_t *links;           /* physical fabric links out of service */
    uint32_t nlinks, caplinks;
} WkFailDown;

/** Class names, the table's name column: as written under failures.classes
 * and as the trace's incidents.class enum, where WK_FC_N is "event" (a
 * random process or scripted incident); NULL-terminated. */
extern const char *const wk_fail_class_names[WK_FC_N + 2];

/** The row of class c (c < WK_FC_N); a static row, never NULL. */
const WkFailClassInfo *wk_fail_class_get(WkFailClass c);

/** Name of a class ("gpu", "hbm", ...), "?" out of range. */
const char *wk_fail_class_name(WkFailClass c);

/** Default time to failure of one component, days, from the row's record;
 * 0 for a class off by default. */
double wk_fail_class_mttf_days(const WkFailClassInfo *ci);

/** Components of the row's kind on cluster c: its failure process runs over
 * [0, count); 0 when the cluster has none (no fabric: no cables, no switches). */
uint64_t wk_fail_class_count(const WkFailClassInfo *ci, const WkCluster *c);

/** Components of the row's kind a job on `gpus` GPUs over `nodes` nodes
 * depends on (its MTTF is 1 / sum of these over their MTBF). */
double wk_fail_class_exposure(const WkFailClassInfo *ci, double gpus, double nodes);

/** Scope its incidents record the component under: WK_SCOPE_GPU, _NODE or
 * _FABRIC (the component index is then a link or switch number). */
WkScope wk_fail_class_scope(const WkFailClassInfo *ci);

/** Fill d (emptied first, grown as needed) with what a failure of component
 * comp (< wk_fail_class_count) takes down on c: GPUs, or fabric links. A
 * component takes GPUs or links, not both. Returns 0, or WK_E_NOMEM with err
 * filled (d then holds part of the answer and is still freed by fini). */
int wk_fail_class_down(const WkFailClassInfo *ci, const WkCluster *c, uint64_t comp, WkFailDown *d, WkError *err);

/** Count d's links into (delta +1, a failure) or out of (-1, its repair)
 * in_force, the number of failures in force per physical link id (an entry
 * per wk_fabric_link_ids). Returns 0, or WK_E_RANGE naming the link when one
 * would pass 255 failures in force; in_force is then unchanged. */
int wk_fail_class_mark_links(const WkFailDown *d, uint8_t *in_force, int delta, WkError *err);

/** Free d's lists; d is zeroed and may be reused. */
void wk_fail_class_down_fini(WkFailDown *d);

#endif
