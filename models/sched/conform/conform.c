/* SPDX-License-Identifier: Apache-2.0 */
/* conform.c — the scheduler conformance checks (conform.h).
 *
 * Method: after wk_run_prepare a guard is put between the run and the policy
 * (it swaps the instance's ops and private state through hooks.h). The guard
 * forwards every callback and, after each one returns — that is, after every
 * scheduling decision — checks the whole allocation state: each running job
 * holds exactly its request of distinct, in-range GPUs, no GPU belongs to
 * two jobs, none of them is in the free pool, the allocated count and the
 * free bitmap agree with the run's counters, and the policy's queued()
 * equals the run's waiting jobs. Every few releases the guard also stops a
 * running job itself and hands it to on_incident, as the failure model
 * does, so the re-queue path is exercised without depending on the failure
 * model.
 *
 * The guard also keeps its own GPU-time books: it sits in the context's host
 * table too, so it sees every start (with its GPUs) and preemption, and at
 * each observation it closes the allocation of a job that no longer runs.
 * Each GPU's busy time is the sum of those intervals; every other GPU is
 * classed free, down or a held-out spare at each observation, and must be
 * exactly one of them. */
#include "models/sched/conform/conform_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/summary.h"

/* ---- one check's state ---- */

typedef struct Check {
    const char *name; /* the policy */
    const char *const *plugins;
    size_t nplugins;
    char *msg;        /* the verdict's reason */
    size_t n;
    WkError *err;
} Check;

static int failed(Check *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Record why the check failed (the first reason wins); returns 1. */
static int failed(Check *c, const char *fmt, ...)
{
    if (c->n && !c->msg[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg, c->n, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* A scenario run behind a guard. */
typedef struct Guarded {
    WkDoc *doc;
    WkRun *run;
    Guard *guard; /* owned by the run once installed */
    WkSummary sum;
} Guarded;

static void guarded_free(Guarded *t)
{
    wk_run_free(t->run);
    wk_doc_free(t->doc);
    memset(t, 0, sizeof *t);
}

/* Load yaml, prepare it with c's plugins (opts: seed), put a guard in front
 * of its policy (stopping a running job every inject_every releases; 0 =
 * never), run it and read its summary. 0, 1 (failed: c->msg), or a negative
 * code; free t with guarded_free either way. */
static int run_guarded(Check *c, Guarded *t, const char *yaml, unsigned inject_every, const WkRunOpts *opts)
{
    WkError e;
    wk_error_clear(&e);
    memset(t, 0, sizeof *t);
    WkRunOpts o = opts ? *opts : (WkRunOpts){0};
    o.plugins = c->plugins;
    o.nplugins = c->nplugins;
    int rc = wk_doc_load_string(&t->doc, "conformance.yaml", yaml, strlen(yaml), &e);
    if (rc == WK_E_NOMEM)
        return wk_error_nomem(c->err, "conformance scenario");
    if (rc < 0 || (rc = wk_run_prepare(&t->run, t->doc, &o, &e)) < 0)
        return failed(c, "%s: prepare failed: %s%s%s", c->name, e.where, e.where[0] ? ": " : "", e.msg);
    WkRun *r = t->run;
    Guard *g = wk_conform_guard_new(r, inject_every);
    if (!g)
        return wk_error_nomem(c->err, "conformance guard");
    wk_conform_guard_install(g, r);
    t->guard = g;
    rc = wk_run_execute(r, &e);
    if (rc == 0) { /* the books close at the end of the run */
        wk_conform_guard_observe(g, wk_run_hooks_end(r), "end");
        for (uint32_t j = 0; j < wk_run_hooks_workload(r)->n; j++)
            if (g->since[j] >= 0)
                wk_conform_guard_close_hold(g, j, wk_run_hooks_end(r));
        rc = wk_run_summary(r, &t->sum, &e);
    }
    if (rc != 0)
        return failed(c, "%s: run failed: %s%s%s%s%s", c->name, e.where, e.where[0] ? ": " : "", e.msg,
                      g->bad ? "; first violation: " : "", g->bad ? g->msg : "");
    return 0;
}

/* ---- scenarios ---- */

/* Synthetic, near saturation, gang sizes from 1 GPU to the whole cluster,
 * several priorities and hpc jobs of whole nodes (never preempted): queues
 * build up and preemptive policies preempt. */
static const char *const mix =
    "name: mix\n"
    "seed: 11\n"
    "cluster: {nodes: 8, gpus_per_node: 8}\n"
    "workload:\n"
    "  source: synthetic\n"
    "  jobs: 250\n"
    "  interarrival: {dist: exponential, mean: 6m}\n"
    "  duration: {dist: lognormal, median: 20m, sigma: 1.3}\n"
    "  gpus:\n"
    "    - {gpus: 1, weight: 4}\n"
    "    - {gpus: 2, weight: 2, priority: 1}\n"
    "    - {gpus: 8, weight: 2, priority: 2}\n"
    "    - {gpus: 24, weight: 1}\n"
    "    - {gpus: 64, weight: 0.5, priority: 3}\n"
    "    - {kind: hpc, nodes: 2, weight: 1, duration: {dist: lognormal, median: 20m, sigma: 1}}\n";

/* Inline, with simultaneous submits, priorities, and two jobs larger than
 * the cluster (one by a single GPU). */
static const char *const inline_jobs =
    "name: inline\n"
    "cluster: {nodes: 2, gpus_per_node: 8}\n"
    "workload:\n"
    "  source: inline\n"
    "  jobs:\n"
    "    - {submit: 0, gpus: 12, duration: 10m}\n"
    "    - {submit: 1m, gpus: 40, duration: 1m}\n"
    "    - {submit: 1m, gpus: 8, duration: 5m, priority: 2}\n"
    "    - {submit: 2m, gpus: 1, duration: 30s}\n"
    "    - {submit: 2m, gpus: 16, duration: 20m, priority: 1}\n"
    "    - {submit: 3m, gpus: 4, duration: 2h, priority: -1}\n"
    "    - {submit: 3m, gpus: 2, duration: 1m, priority: 5}\n"
    "    - {submit: 10m, gpus: 17, duration: 1s}\n"
    "    - {submit: 30m, gpus: 16, duration: 1h}\n"
    "    - {submit: 30m, gpus: 3, duration: 7m}\n";

/* Model jobs on a small two-SKU cluster with a rail-optimized fabric, so
 * placement changes iteration times and flows share links. */
static const char *const models =
    "name: models\n"
    "seed: 5\n"
    "cluster:\n"
    "  nodes_per_pod: 4\n"
    "  groups:\n"
    "    - {name: a100, sku: A100-SXM-80G, nodes: 4}\n"
    "    - {name: h100, sku: H100-SXM-80G, nodes: 4}\n"
    "  fabric: {kind: rail, radix: 16, link_gbps: 400}\n"
    "workload:\n"
    "  source: synthetic\n"
    "  jobs: 60\n"
    "  interarrival: {dist: exponential, mean: 2m}\n"
    "  duration: {dist: lognormal, median: 10m, sigma: 1}\n"
    "  gpus:\n"
    "    - {gpus: 16, weight: 2, model: {base: llama3-8b, tp: 2, global_batch: 64}, iterations: 300}\n"
    "    - {gpus: 8, weight: 2, model: resnet50, iterations: 2000, priority: 1}\n"
    "    - {gpus: 32, weight: 1, model: vit-l16, iterations: 500}\n"
    "    - {gpus: 4, weight: 2}\n"
    "    - {gpus: 64, weight: 0.3, model: {base: llama3-8b, tp: 2, global_batch: 128}, iterations: 100, "
    "priority: 2}\n";

/* The mix again, with failures: random GPU and node faults, a scripted node
 * outage, a software hang and a throttled node, checkpoints every 30 min. */
static const char *const failing =
    "name: failing\n"
    "seed: 3\n"
    "cluster: {nodes: 8, gpus_per_node: 8}\n"
    "failures:\n"
    "  health_check: 5m\n"
    "  nccl_timeout: 10m\n"
    "  classes:\n"
    "    gpu: {mtbf: {dist: exponential, mean: 20d}, repair: {dist: lognormal, median: 2h, sigma: 1}}\n"
    "    node: {mtbf: {dist: exponential, mean: 10d}, repair: {dist: lognormal, median: 3h, sigma: 1}}\n"
    "  incidents:\n"
    "    - {at: 2h, kind: down, node: 3, duration: 3h}\n"
    "    - {at: 5h, kind: software, gpu: 10}\n"
    "    - {at: 9h, kind: throttle, node: 5, clock: 0.5, duration: 2h}\n"
    "checkpoint: {interval: 30m}\n"
    "workload:\n"
    "  source: synthetic\n"
    "  jobs: 200\n"
    "  interarrival: {dist: exponential, mean: 6m}\n"
    "  duration: {dist: lognormal, median: 20m, sigma: 1.3}\n"
    "  gpus:\n"
    "    - {gpus: 1, weight: 4}\n"
    "    - {gpus: 2, weight: 2, priority: 1}\n"
    "    - {gpus: 8, weight: 2, priority: 2}\n"
    "    - {gpus: 24, weight: 1}\n"
    "    - {gpus: 48, weight: 0.5, priority: 3}\n"
    "    - {kind: hpc, nodes: 2, weight: 1, duration: {dist: lognormal, median: 20m, sigma: 1}}\n";

typedef struct {
    const char *const *text;
    const char *name;
    int plain;    /* only jobs of fixed duration: allocated GPU-time >= their work */
    int exact;    /* no failures or checkpoint stalls: an unstopped job runs exactly its duration */
    int rejected; /* jobs larger than the cluster; -1 = any count is possible (GPUs down at submit) */
    int failures; /* GPUs go down */
} Scenario;

static const Scenario scenarios[] = {
    {&mix, "mix", 1, 1, 0, 0},
    {&inline_jobs, "inline", 1, 1, 2, 0},
    {&models, "models", 0, 0, 0, 0},
    {&failing, "failing", 1, 0, -1, 1},
};
#define NSCEN (sizeof scenarios / sizeof *scenarios)

/* Options that exercise a built-in policy's own machinery (preemption,
 * ticks); a policy not listed (every plugin) runs with its defaults. */
static const char *policy_opts(const char *name)
{
    static const struct {
        const char *name, *opts;
    } t[] = {
        {"priority", "preempt: true, preemption_cost: 2m"},
        {"sjf", "placement: spread"},
        {"las", "tick: 5m, preemption_cost: 2m, queues: 3, thresholds: [1800, 36000]"},
        {"topo", "tick: 1h"},
        {"hetero", "span: true"},
        {"slurm", "placement: first-fit, max_age: 1h, calc_period: 1m, weight_size: 2000"},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(t[i].name, name) == 0)
            return t[i].opts;
    return NULL;
}

/* Run the policy on scenario text behind a guard (see run_guarded). */
static int run_policy(Check *c, Guarded *t, const char *scenario, unsigned inject, const WkRunOpts *opts)
{
    const char *o = policy_opts(c->name);
    size_t n = strlen(scenario) + strlen(c->name) + (o ? strlen(o) : 0) + 64;
    char *y = malloc(n);
    if (!y)
        return wk_error_nomem(c->err, "conformance scenario");
    if (o)
        snprintf(y, n, "%sscheduler: {name: \"%s\", %s}\n", scenario, c->name, o);
    else
        snprintf(y, n, "%sscheduler: \"%s\"\n", scenario, c->name);
    int rc = run_guarded(c, t, y, inject, opts);
    free(y);
    return rc;
}

static double metric(const WkSummary *s, const char *name)
{
    const WkMetric *m = wk_summary_get(s, name);
    return m ? m->value : NAN;
}

/* Plain jobs: allocated GPU-time >= the jobs' work. Without failures it is
 * the work plus the restart cost of every preempted job (work is kept), and
 * a job never stopped runs exactly its duration; with failures, rolled-back
 * work, hangs and checkpoint stalls add to it. */
static int check_plain_work(Check *c, const char *scen, const WkRun *r, wk_u128 alloc, int exact)
{
    wk_u128 work = 0;
    int stopped = 0;
    const WkWorkload *wl = wk_run_hooks_workload(r);
    for (size_t j = 0; j < wl->n; j++) {
        const WkJobSpec *js = &wl->jobs[j];
        WkRunJobView rt = wk_run_hooks_job(r, (uint32_t)j);
        if (rt.state != WK_JOB_COMPLETED)
            continue;
        work += (wk_u128)js->gpus * (wk_u128)js->duration;
        stopped |= rt.preemptions > 0 || rt.interruptions > 0;
        if (exact && rt.preemptions == 0 && rt.end - rt.start != js->duration)
            return failed(c, "%s on %s: job %zu ran %lld ns for a %lld ns job", c->name, scen, j,
                          (long long)(rt.end - rt.start), (long long)js->duration);
    }
    if (exact && !stopped && alloc != work)
        return failed(c, "%s on %s: allocated GPU-time differs from the jobs' work, and no job was stopped", c->name,
                      scen);
    if (alloc < work)
        return failed(c, "%s on %s: allocated GPU-time is less than the jobs' work", c->name, scen);
    return 0;
}

/* ---- the checks ---- */

static int check_allocation(Check *c)
{
    for (size_t s = 0; s < NSCEN; s++) {
        Guarded t;
        int rc = run_policy(c, &t, *scenarios[s].text, 4, NULL);
        if (rc == 0 && t.guard->bad)
            rc = failed(c, "%s on %s: %s", c->name, scenarios[s].name, t.guard->msg);
        if (rc == 0 && t.guard->callbacks <= wk_run_hooks_workload(t.run)->n)
            rc = failed(c, "%s on %s: only %zu callbacks for %zu jobs", c->name, scenarios[s].name,
                        t.guard->callbacks, wk_run_hooks_workload(t.run)->n);
        guarded_free(&t);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_outcome_one(Check *c, const Scenario *sc, Guarded *t)
{
    const WkRun *r = t->run;
    const WkWorkload *wl = wk_run_hooks_workload(r);
    size_t rejected = 0;
    for (size_t j = 0; j < wl->n; j++) {
        WkRunJobView rt = wk_run_hooks_job(r, (uint32_t)j);
        int too_big = wl->jobs[j].gpus > wk_run_hooks_cluster(r)->gpus;
        if (too_big && rt.state != WK_JOB_REJECTED)
            return failed(c, "%s on %s: job %zu (%u GPUs of %u) not rejected", c->name, sc->name, j, wl->jobs[j].gpus,
                          wk_run_hooks_cluster(r)->gpus);
        if (rt.state == WK_JOB_REJECTED) {
            if (!too_big && sc->rejected >= 0)
                return failed(c, "%s on %s: job %zu rejected (%s) but it fits", c->name, sc->name, j,
                              rt.reject_reason ? rt.reject_reason : "no reason");
            if (!rt.reject_reason || !rt.reject_reason[0])
                return failed(c, "%s on %s: job %zu rejected without a reason", c->name, sc->name, j);
            rejected++;
        } else if (rt.state != WK_JOB_COMPLETED) {
            return failed(c, "%s on %s: job %zu ends %s", c->name, sc->name, j,
                          rt.state == WK_JOB_QUEUED ? "waiting (never started)" : "unfinished");
        }
    }
    if (metric(&t->sum, "jobs_rejected") != (double)rejected)
        return failed(c, "%s on %s: the summary counts %g rejected jobs, %zu were", c->name, sc->name,
                      metric(&t->sum, "jobs_rejected"), rejected);
    if (metric(&t->sum, "jobs_unfinished") != 0)
        return failed(c, "%s on %s: %g jobs unfinished", c->name, sc->name, metric(&t->sum, "jobs_unfinished"));
    if (isnan(metric(&t->sum, "makespan_s")))
        return failed(c, "%s on %s: no makespan", c->name, sc->name);
    if (sc->rejected >= 0 && (int)rejected != sc->rejected)
        return failed(c, "%s on %s: %zu jobs rejected, %d expected", c->name, sc->name, rejected, sc->rejected);
    return 0;
}

static int check_outcome(Check *c)
{
    for (size_t s = 0; s < NSCEN; s++) {
        Guarded t;
        int rc = run_policy(c, &t, *scenarios[s].text, 0, NULL);
        if (rc == 0)
            rc = check_outcome_one(c, &scenarios[s], &t);
        guarded_free(&t);
        if (rc)
            return rc;
    }
    return 0;
}

/* Two runs' summaries as JSON are equal (want 1) or differ (want 0). */
static int compare_runs(Check *c, const char *scen, const char *name, const WkRunOpts *ob, int want_equal)
{
    Guarded a, b;
    int rc = run_policy(c, &a, scen, 5, NULL);
    if (rc) {
        guarded_free(&a);
        return rc;
    }
    rc = run_policy(c, &b, scen, 5, ob);
    if (rc == 0) {
        char *ja = wk_summary_json(&a.sum), *jb = wk_summary_json(&b.sum);
        if (!ja || !jb)
            rc = wk_error_nomem(c->err, "summary");
        else if ((strcmp(ja, jb) == 0) != want_equal)
            rc = want_equal ? failed(c, "%s on %s: two runs with the same seed differ", c->name, name)
                            : failed(c, "%s on %s: runs with seeds 11 and 12 give the same summary", c->name, name);
        free(ja);
        free(jb);
    }
    guarded_free(&a);
    guarded_free(&b);
    return rc;
}

static int check_determinism(Check *c)
{
    const Scenario *which[] = {&scenarios[0], &scenarios[2], &scenarios[3]};
    for (size_t s = 0; s < 3; s++) {
        int rc = compare_runs(c, *which[s]->text, which[s]->name, NULL, 1);
        if (rc)
            return rc;
    }
    WkRunOpts o = {.has_seed = 1, .seed = 12}; /* and the seed matters */
    return compare_runs(c, mix, "mix", &o, 0);
}

/* The guard's books against the run's, for one run. */
static int check_books(Check *c, const Scenario *sc, Guarded *t)
{
    const WkRun *r = t->run;
    const Guard *g = t->guard;
    if (g->bad)
        return failed(c, "%s on %s: %s", c->name, sc->name, g->msg);
    WkRunAccount a;
    wk_run_account(r, &a);
    if (a.end_ns <= 0 || g->last_t != a.end_ns)
        return failed(c, "%s on %s: the guard's books end at %lld ns, the run at %lld ns", c->name, sc->name,
                      (long long)g->last_t, (long long)a.end_ns);
    uint32_t G = wk_run_hooks_cluster(r)->gpus;
    wk_u128 busy = 0;
    for (uint32_t i = 0; i < G; i++)
        busy += g->busy_ns[i];
    wk_u128 idle = g->state_ns[ST_FREE] + g->state_ns[ST_DOWN] + g->state_ns[ST_SPARE];
    if (busy + idle != (wk_u128)G * (wk_u128)a.end_ns)
        return failed(c, "%s on %s: busy + free + down + spare GPU-ns is not GPUs x end", c->name, sc->name);
    if (busy != (((wk_u128)a.alloc_hi << 64) | a.alloc_lo))
        return failed(c, "%s on %s: busy GPU-ns differ from the run's allocated GPU-ns", c->name, sc->name);
    /* the run splits idle from down at the instant of a failure; the guard
     * sees health only at scheduler calls, so only the sum of the two is
     * exact */
    wk_u128 run_idle = (((wk_u128)a.idle_hi << 64) | a.idle_lo) + (((wk_u128)a.down_hi << 64) | a.down_lo);
    if (idle != run_idle)
        return failed(c, "%s on %s: free + down + spare GPU-ns differ from the run's idle + down", c->name, sc->name);
    if (sc->failures && ((a.down_hi == 0 && a.down_lo == 0) || g->state_ns[ST_DOWN] == 0))
        return failed(c, "%s on %s: failures but no down GPU-time in the books", c->name, sc->name);
    if (!sc->failures && (g->state_ns[ST_DOWN] != 0 || g->state_ns[ST_SPARE] != 0))
        return failed(c, "%s on %s: down or spare GPU-time without failures", c->name, sc->name);
    if (sc->plain) /* model jobs' run time follows the fabric: no closed form */
        return check_plain_work(c, sc->name, r, busy, sc->exact);
    return 0;
}

static int check_conservation(Check *c)
{
    for (size_t s = 0; s < NSCEN; s++)
        for (unsigned inject = 0; inject <= 4; inject += 4) {
            Guarded t;
            int rc = run_policy(c, &t, *scenarios[s].text, inject, NULL);
            if (rc == 0)
                rc = check_books(c, &scenarios[s], &t);
            guarded_free(&t);
            if (rc)
                return rc;
        }
    return 0;
}

static int check_incidents(Check *c)
{
    Guarded t;
    int rc = run_policy(c, &t, mix, 2, NULL);
    if (rc == 0 && t.guard->bad)
        rc = failed(c, "%s: %s", c->name, t.guard->msg);
    if (rc == 0 && t.guard->incidents <= 20)
        rc = failed(c, "%s: only %zu incidents injected (the check needs more than 20)", c->name, t.guard->incidents);
    if (rc == 0) {
        WkRunCounts k = wk_run_hooks_counts(t.run);
        if (k.completed + k.rejected != wk_run_hooks_workload(t.run)->n)
            rc = failed(c, "%s: %zu of %zu jobs completed or rejected after incidents", c->name,
                        k.completed + k.rejected, wk_run_hooks_workload(t.run)->n);
    }
    guarded_free(&t);
    return rc;
}

/* Prepare yaml with c's plugins: 0 or the error in *e. */
static int prepare_only(Check *c, const char *yaml, WkError *e)
{
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    WkRunOpts o = {.plugins = c->plugins, .nplugins = c->nplugins};
    wk_error_clear(e);
    int rc = wk_doc_load_string(&doc, "conformance.yaml", yaml, strlen(yaml), e);
    if (rc == 0)
        rc = wk_run_prepare(&run, doc, &o, e);
    wk_run_free(run);
    wk_doc_free(doc);
    return rc;
}

static int check_keys(Check *c)
{
    char y[2048];
    WkError e;
    snprintf(y, sizeof y, "%sscheduler: {name: \"%s\", bogus_key: 1}\n", inline_jobs, c->name);
    int rc = prepare_only(c, y, &e);
    if (rc == WK_E_NOMEM)
        return wk_error_nomem(c->err, "conformance scenario");
    if (rc == 0)
        return failed(c, "%s: accepts an unknown key (bogus_key) in its scheduler: map", c->name);
    if (!strstr(e.msg, "bogus_key"))
        return failed(c, "%s: the error '%s' does not name the unknown key", c->name, e.msg);
    snprintf(y, sizeof y, "%sscheduler: {name: \"%s\", placement: spread, preemption_cost: 1m, tick: 10m}\n",
             inline_jobs, c->name);
    if ((rc = prepare_only(c, y, &e)) == WK_E_NOMEM)
        return wk_error_nomem(c->err, "conformance scenario");
    if (rc < 0)
        return failed(c, "%s: refuses the common keys: %s: %s", c->name, e.where, e.msg);
    return 0;
}

static int check_mixed(Check *c)
{
    return wk_conform_check_mixed(c->name, c->plugins, c->nplugins, c->msg, c->n, c->err);
}

static const struct {
    const char *name, *what;
    int (*run)(Check *c);
} checks[] = {
    {"allocation", "after every callback: no GPU held twice, gangs whole, node-granular shape under the "
                   "default placement, queued() = waiting jobs",
     check_allocation},
    {"outcome", "every job completes, or is rejected with a reason only when it cannot fit", check_outcome},
    {"determinism", "the same seed gives an identical summary; another seed a different one", check_determinism},
    {"conservation", "GPU-time: busy + free + down + spare = GPUs x makespan exactly, busy = the run's "
                     "allocated time, a job runs exactly its duration unless stopped",
     check_conservation},
    {"incidents", "jobs stopped by injected incidents (on_incident) restart and finish", check_incidents},
    {"keys", "the common scheduler keys are accepted, an unknown key is refused by name", check_keys},
    {"mixed-memory", "on two GPU memory sizes (the smaller first), a job that fits only the larger group runs "
                     "there, never on the smaller; every job completes",
     check_mixed},
};
#define NCHECKS (sizeof checks / sizeof *checks)

size_t wk_conform_count(void) { return NCHECKS; }
const char *wk_conform_name(size_t i) { return i < NCHECKS ? checks[i].name : NULL; }
const char *wk_conform_description(size_t i) { return i < NCHECKS ? checks[i].what : NULL; }

int wk_conform_run(size_t i, const char *name, const char *const *plugins, size_t nplugins, char *msg, size_t n,
                   WkError *err)
{
    if (i >= NCHECKS)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "conformance check %zu of %zu", i, NCHECKS);
    if (n)
        msg[0] = '\0';
    Check c = {.name = name, .plugins = plugins, .nplugins = nplugins, .msg = msg, .n = n, .err = err};
    return checks[i].run(&c);
}
