/* SPDX-License-Identifier: Apache-2.0 */
/* guard.h — the conformance suite's guard: it sits between a run and its
 * policy (callbacks) and between the policy and the run (the context's host
 * table), checks the allocation after every scheduling decision and keeps
 * its own GPU-time books. Test-only: it reads the run's internals. */
#ifndef WK_TEST_GUARD_H
#define WK_TEST_GUARD_H

#include "tests/unit/testutil.h"

#include "models/run/hooks.h"

enum { ST_FREE, ST_DOWN, ST_SPARE, NSTATE }; /* what a GPU no job holds is */

typedef struct Guard {
    WkSchedOps ops;      /* the forwarding copy the run calls */
    WkSchedHostOps base;  /* the run's own host table */
    WkSchedHostOps host; /* the run's host table, with start and preempt observed */
    const WkSchedOps *inner;
    void *inner_priv;
    WkRun *run;
    unsigned inject;   /* stop a running job every `inject` releases; 0 = never */
    size_t releases, callbacks, incidents;
    uint32_t *owner;   /* [gpus] scratch */
    int bad;           /* a violation was seen */
    char msg[256];     /* the first one */
    /* GPU-time as the guard sees it */
    WkTime *since;     /* [jobs] when the job got the GPUs it holds; -1 = none */
    uint32_t *held;    /* those GPUs, copied at its start: job j's at held + at[j] */
    size_t *at;        /* [jobs] where job j's GPUs go in held (room for its request) */
    uint32_t *nheld;   /* [jobs] how many */
    uint32_t *holder;  /* [gpus] job holding it by those records, UINT32_MAX = none */
    wk_u128 *busy_ns;  /* [gpus] time allocated to jobs */
    wk_u128 state_ns[NSTATE];  /* GPU-ns free, down, spare */
    uint32_t nstate[NSTATE];   /* GPUs in each at the last observation */
    WkTime last_t;     /* time of the last observation */
    int observed;      /* 0 until the first observation */
} Guard;

/* A scenario run behind a guard. */
typedef struct {
    WkDoc *doc;
    WkRun *run;
    Guard *guard; /* owned by the run once installed */
    WkSummary sum;
} Guarded;

/** Load the scenario text, prepare it, put a guard in front of its policy
 * (stopping a running job every inject_every releases; 0 = never), run it
 * and read its summary into t; fails the test on any error. Free with
 * guarded_free. */
void run_guarded(Guarded *t, const char *yaml, unsigned inject_every, const WkRunOpts *opts);

/** Release what run_guarded made (the guard goes with the run). */
void guarded_free(Guarded *t);

#endif
