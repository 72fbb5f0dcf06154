/* SPDX-License-Identifier: Apache-2.0 */
/* conform_impl.h — private to the conformance checks (conform.c) and their
 * guard (conform_guard.c): the guard's state and the calls the checks make
 * on it. Not for other code: the checks' interface is conform.h. */
#ifndef WK_RUN_CONFORM_IMPL_H
#define WK_RUN_CONFORM_IMPL_H

#include "models/sched/conform/conform.h"
#include "models/run/hooks.h"

enum { ST_FREE, ST_DOWN, ST_SPARE, NSTATE }; /* what a GPU no job holds is */

typedef struct Guard {
    WkSchedOps ops;       /* the forwarding copy the run calls */
    WkSchedHostOps base;  /* the run's own host table */
    WkSchedHostOps host;  /* the run's host table, with start and preempt observed */
    const WkSchedOps *inner;
    void *inner_priv;
    WkRun *run;
    unsigned inject;      /* stop a running job every `inject` releases; 0 = never */
    size_t releases, callbacks, incidents;
    uint32_t *owner;      /* [gpus] scratch */
    int bad;              /* a violation was seen */
    char msg[512];        /* the first one */
    WkTime *since;        /* [jobs] when the job got the GPUs it holds; -1 = none */
    uint32_t *held;       /* those GPUs, copied at its start: job j's at held + at[j] */
    size_t *at;           /* [jobs + 1] where job j's GPUs go in held (room for its request) */
    uint32_t *nheld;      /* [jobs] how many */
    uint32_t *holder;     /* [gpus] job holding it by those records, NONE = none */
    wk_u128 *busy_ns;     /* [gpus] time allocated to jobs */
    wk_u128 state_ns[NSTATE]; /* GPU-ns free, down, spare */
    uint32_t nstate[NSTATE];  /* GPUs in each at the last observation */
    WkTime last_t;        /* time of the last observation */
    int observed;         /* 0 until the first observation */
} Guard;

/** A guard for prepared run r, its books sized for r's GPUs and jobs
 * (stopping a running job every inject_every releases; 0 = never), or NULL
 * when out of memory. */
Guard *wk_conform_guard_new(WkRun *r, unsigned inject_every);

/** Put g in front of r's policy (callbacks) and in its context (host
 * table); the run owns g from now on (freed with the run). */
void wk_conform_guard_install(Guard *g, WkRun *r);

/** An observation at now: the GPU classes since the last one, the
 * allocations of jobs that no longer run closed, the classes from now on;
 * where names the event in a violation. */
void wk_conform_guard_observe(Guard *g, WkTime now, const char *where);

/** Job stops holding its GPUs at now: each was allocated since its start. */
void wk_conform_guard_close_hold(Guard *g, uint32_t job, WkTime now);

/** The mixed-memory check (conform_mixed.c) on the policy called name, with
 * the shared objects plugins[0..nplugins): model jobs that fit only the
 * larger of two GPU memory sizes (the smaller group listed first) run there
 * and every job completes. Returns as wk_conform_run. */
int wk_conform_check_mixed(const char *name, const char *const *plugins, size_t nplugins, char *msg, size_t n,
                           WkError *err);

#endif
