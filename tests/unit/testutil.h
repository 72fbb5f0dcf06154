/* SPDX-License-Identifier: Apache-2.0 */
/* testutil.h — helpers shared by the cmocka tests: run a scenario given as a
 * YAML string (one cluster or a network, models/network/sim.h), fetch a
 * summary metric. Header-only, static functions. */
#ifndef WK_TESTUTIL_H
#define WK_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/approx.h"

#include "sim/scenario/node.h"
#include "models/network/sim.h"
#include "models/run/run.h"
#include "sim/trace/summary.h"

typedef struct {
    WkDoc *doc;
    WkSim *sim;
    WkRun *run; /* the single run of sim (the test door's), NULL for a network */
    WkSummary sum;
} TestRun;

/* Prepare and execute the scenario text; fails the test on any error. */
static inline void test_run_yaml(TestRun *t, const char *yaml, const WkRunOpts *opts)
{
    WkError err;
    wk_error_clear(&err);
    memset(t, 0, sizeof *t);
    int rc = wk_doc_load_string(&t->doc, "test.yaml", yaml, strlen(yaml), &err);
    if (rc == 0)
        rc = wk_sim_prepare(&t->sim, t->doc, opts, &err);
    if (rc == 0) {
        t->run = wk_sim_run(t->sim);
        rc = wk_sim_execute(t->sim, &err);
    }
    if (rc == 0)
        rc = wk_sim_summary(t->sim, &t->sum, &err);
    if (rc != 0)
        fail_msg("run failed: %s: %s", err.where, err.msg);
}

static inline void test_run_free(TestRun *t)
{
    wk_sim_free(t->sim);
    wk_doc_free(t->doc);
    memset(t, 0, sizeof *t);
}

static inline double test_metric(const TestRun *t, const char *name)
{
    const WkMetric *m = wk_summary_get(&t->sum, name);
    if (!m)
        fail_msg("no metric %s", name);
    return m->value;
}

/* Prepare only; returns the code and fills err. */
static inline int test_prepare_yaml(const char *yaml, WkError *err)
{
    WkDoc *doc = NULL;
    WkSim *sim = NULL;
    wk_error_clear(err);
    int rc = wk_doc_load_string(&doc, "bad.yaml", yaml, strlen(yaml), err);
    if (rc == 0)
        rc = wk_sim_prepare(&sim, doc, NULL, err);
    wk_sim_free(sim);
    wk_doc_free(doc);
    return rc;
}

/* A fresh directory /tmp/wk-TAG-XXXXXX into buf (size n); 0 or -1. */
static inline int test_tmpdir_make(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "/tmp/wk-%s-XXXXXX", tag);
    return mkdtemp(buf) ? 0 : -1;
}

/* Remove the directory test_tmpdir_make made, with its files; 0 or -1. */
static inline int test_tmpdir_remove(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
