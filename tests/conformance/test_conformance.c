/* SPDX-License-Identifier: Apache-2.0 */
/* test_conformance.c — the contract every registered scheduling policy keeps,
 * one cmocka group per entry of wk_sched_registry(): no GPU double-allocated,
 * whole gangs, every job completed or rejected with a reason, determinism,
 * exact GPU-second conservation, incident-hit jobs restarted.
 *
 * Method (guard.c): after wk_run_prepare the test interposes a guard between
 * the run and the policy (it swaps the instance's ops and private state
 * through models/run/hooks.h, the tests' door). The guard forwards every
 * callback and, after each one returns — that is, after every scheduling
 * decision — checks the whole allocation state: each running job holds
 * exactly its request of distinct, in-range GPUs, no GPU belongs to two jobs,
 * none of them is in the free pool, the allocated count and the free bitmap
 * agree with the run's counters, and the policy's queued() equals the run's
 * waiting jobs. Every few releases the guard also stops a running job itself
 * and hands it to on_incident, as the failure model does, so the re-queue
 * path is exercised without depending on the failure model.
 *
 * The guard also keeps its own GPU-time books: it sits in the context's host
 * table too, so it sees every start (with its GPUs) and preemption, and at
 * each observation it closes the allocation of a job that no longer runs.
 * Each GPU's busy time is the sum of those intervals; every other GPU is
 * classed free, down or a held-out spare at each observation, and must be
 * exactly one of them. */
#include "tests/conformance/guard.h"

#include <math.h>

/* ---- scenarios ---- */

/* Synthetic, near saturation, gang sizes from 1 GPU to the whole cluster and
 * several priorities: queues build up and preemptive policies preempt. */
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
    "    - {gpus: 64, weight: 0.5, priority: 3}\n";

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
    "    - {gpus: 48, weight: 0.5, priority: 3}\n";

typedef struct {
    const char *const *text;
    int plain;    /* only jobs of fixed duration: allocated GPU-time >= their work */
    int exact;    /* no failures or checkpoint stalls: an unstopped job runs exactly its duration */
    int rejected; /* jobs larger than the cluster; -1 = any count is possible (GPUs down at submit) */
    int failures; /* GPUs go down */
} Scenario;

static const Scenario scenarios[] = {
    {&mix, 1, 1, 0, 0},
    {&inline_jobs, 1, 1, 2, 0},
    {&models, 0, 0, 0, 0},
    {&failing, 1, 0, -1, 1},
};
#define NSCEN (sizeof scenarios / sizeof *scenarios)

/* Options that exercise a policy's own machinery (preemption, ticks);
 * a policy not listed runs with its defaults. */
static const char *policy_opts(const char *name)
{
    static const struct {
        const char *name, *opts;
    } t[] = {
        {"priority", "preempt: true, preemption_cost: 2m"},
        {"sjf", "placement: spread"},
        {"backfill", NULL},
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

/* The scenario text with `scheduler:` for policy appended (malloc'd). */
static char *with_policy(const char *scenario, const WkSchedOps *ops)
{
    const char *o = policy_opts(ops->name);
    size_t n = strlen(scenario) + 256;
    char *s = malloc(n);
    assert_non_null(s);
    if (o)
        snprintf(s, n, "%sscheduler: {name: %s, %s}\n", scenario, ops->name, o);
    else
        snprintf(s, n, "%sscheduler: %s\n", scenario, ops->name);
    return s;
}

static void run_policy(Guarded *t, const WkSchedOps *ops, const char *scenario, unsigned inject,
                       const WkRunOpts *opts)
{
    char *y = with_policy(scenario, ops);
    run_guarded(t, y, inject, opts);
    free(y);
}

static double metric(const WkSummary *s, const char *name)
{
    const WkMetric *m = wk_summary_get(s, name);
    if (!m)
        fail_msg("no metric %s", name);
    return m->value;
}

/* Plain jobs: allocated GPU-time >= the jobs' work. Without failures it is
 * the work plus the restart cost of every preempted job (work is kept), and
 * a job never stopped runs exactly its duration; with failures, rolled-back
 * work, hangs and checkpoint stalls add to it. */
static void check_plain_work(const WkSchedOps *ops, const WkRun *r, wk_u128 alloc, int exact)
{
    wk_u128 work = 0;
    int stopped = 0;
    for (size_t j = 0; j < wk_run_hooks_workload(r)->n; j++) {
        const WkJobSpec *js = &wk_run_hooks_workload(r)->jobs[j];
        WkRunJobView rtv = wk_run_hooks_job(r, (uint32_t)j);
        const WkRunJobView *rt = &rtv;
        if (rt->state != WK_JOB_COMPLETED)
            continue;
        work += (wk_u128)js->gpus * (wk_u128)js->duration;
        stopped |= rt->preemptions > 0 || rt->interruptions > 0;
        if (exact && rt->preemptions == 0 && rt->end - rt->start != js->duration)
            fail_msg("%s: job %zu ran %lld ns for a %lld ns job", ops->name, j, (long long)(rt->end - rt->start),
                     (long long)js->duration);
    }
    if (exact && !stopped)
        assert_true(alloc == work);
    else
        assert_true(alloc >= work);
}

/* ---- tests (state: the policy under test) ---- */

static void test_no_gpu_is_double_allocated_and_gangs_are_whole(void **state)
{
    const WkSchedOps *ops = *state;
    for (size_t s = 0; s < NSCEN; s++) {
        Guarded t;
        run_policy(&t, ops, *scenarios[s].text, 4, NULL);
        if (t.guard->bad)
            fail_msg("%s on scenario %zu: %s", ops->name, s, t.guard->msg);
        assert_true(t.guard->callbacks > wk_run_hooks_workload(t.run)->n); /* every submit and release was checked */
        guarded_free(&t);
    }
}

static void test_every_job_completes_or_is_rejected_with_a_reason(void **state)
{
    const WkSchedOps *ops = *state;
    for (size_t s = 0; s < NSCEN; s++) {
        Guarded t;
        run_policy(&t, ops, *scenarios[s].text, 0, NULL);
        const WkRun *r = t.run;
        size_t rejected = 0;
        for (size_t j = 0; j < wk_run_hooks_workload(r)->n; j++) {
            WkRunJobView rtv = wk_run_hooks_job(r, (uint32_t)j);
            const WkRunJobView *rt = &rtv;
            int too_big = wk_run_hooks_workload(r)->jobs[j].gpus > wk_run_hooks_cluster(r)->gpus;
            if (too_big && rt->state != WK_JOB_REJECTED)
                fail_msg("%s: job %zu (%u GPUs of %u) not rejected", ops->name, j, wk_run_hooks_workload(r)->jobs[j].gpus,
                         wk_run_hooks_cluster(r)->gpus);
            if (rt->state == WK_JOB_REJECTED) {
                if (!too_big && scenarios[s].rejected >= 0)
                    fail_msg("%s on scenario %zu: job %zu rejected (%s) but it fits", ops->name, s, j,
                             rt->reject_reason ? rt->reject_reason : "no reason");
                assert_non_null(rt->reject_reason);
                assert_true(strlen(rt->reject_reason) > 0);
                rejected++;
            } else if (rt->state != WK_JOB_COMPLETED) {
                fail_msg("%s on scenario %zu: job %zu ends in state %d", ops->name, s, j, rt->state);
            }
        }
        assert_int_equal((int)metric(&t.sum, "jobs_rejected"), (int)rejected);
        assert_int_equal((int)metric(&t.sum, "jobs_unfinished"), 0);
        assert_false(isnan(metric(&t.sum, "makespan_s")));
        if (scenarios[s].rejected >= 0)
            assert_int_equal((int)rejected, scenarios[s].rejected);
        guarded_free(&t);
    }
}

static void test_same_seed_gives_identical_summary(void **state)
{
    const WkSchedOps *ops = *state;
    const char *const which[] = {mix, models, failing};
    for (size_t s = 0; s < 3; s++) {
        Guarded a, b;
        run_policy(&a, ops, which[s], 5, NULL);
        run_policy(&b, ops, which[s], 5, NULL);
        char *ja = wk_summary_json(&a.sum), *jb = wk_summary_json(&b.sum);
        assert_non_null(ja);
        assert_non_null(jb);
        assert_string_equal(ja, jb);
        free(ja);
        free(jb);
        guarded_free(&a);
        guarded_free(&b);
    }
    /* and the seed matters */
    Guarded a, c;
    WkRunOpts o = {.has_seed = 1, .seed = 12};
    run_policy(&a, ops, mix, 5, NULL);
    run_policy(&c, ops, mix, 5, &o);
    char *ja = wk_summary_json(&a.sum), *jc = wk_summary_json(&c.sum);
    assert_string_not_equal(ja, jc);
    free(ja);
    free(jc);
    guarded_free(&a);
    guarded_free(&c);
}

/* The guard's books: every GPU-ns of the run is busy (per GPU, from the
 * allocations it saw), free, down or a spare, and the busy and idle totals
 * equal the run's own integrals. Down GPUs are counted apart from free ones
 * from the first observation after they fail (a scheduling event). */
static void test_gpu_seconds_are_conserved_exactly(void **state)
{
    const WkSchedOps *ops = *state;
    for (size_t s = 0; s < NSCEN; s++) {
        for (unsigned inject = 0; inject <= 4; inject += 4) {
            Guarded t;
            run_policy(&t, ops, *scenarios[s].text, inject, NULL);
            const WkRun *r = t.run;
            const Guard *g = t.guard;
            if (g->bad)
                fail_msg("%s on scenario %zu: %s", ops->name, s, g->msg);
            WkRunAccount a;
            wk_run_account(r, &a);
            assert_true(a.end_ns > 0);
            assert_int_equal(g->last_t, a.end_ns);
            wk_u128 busy = 0;
            for (uint32_t i = 0; i < wk_run_hooks_cluster(r)->gpus; i++)
                busy += g->busy_ns[i];
            wk_u128 idle = g->state_ns[ST_FREE] + g->state_ns[ST_DOWN] + g->state_ns[ST_SPARE];
            if (busy + idle != (wk_u128)wk_run_hooks_cluster(r)->gpus * (wk_u128)a.end_ns)
                fail_msg("%s on scenario %zu: busy + free + down + spare GPU-ns is not GPUs x end", ops->name, s);
            if (busy != (((wk_u128)a.alloc_hi << 64) | a.alloc_lo))
                fail_msg("%s on scenario %zu: busy GPU-ns differ from the run's allocated GPU-ns", ops->name, s);
            /* the run splits idle from down at the instant of a failure; the
             * guard sees health only at scheduler calls, so only the sum of
             * the two is exact */
            wk_u128 run_idle = (((wk_u128)a.idle_hi << 64) | a.idle_lo) + (((wk_u128)a.down_hi << 64) | a.down_lo);
            if (idle != run_idle)
                fail_msg("%s on scenario %zu: free + down + spare GPU-ns differ from the run's idle + down", ops->name,
                         s);
            if (scenarios[s].failures && a.down_hi == 0 && a.down_lo == 0)
                fail_msg("%s on scenario %zu: failures but no down GPU-time in the run's books", ops->name, s);
            if (scenarios[s].failures)
                assert_true(g->state_ns[ST_DOWN] > 0);
            else
                assert_true(g->state_ns[ST_DOWN] == 0 && g->state_ns[ST_SPARE] == 0);
            if (scenarios[s].plain) /* model jobs' run time follows the fabric: no closed form */
                check_plain_work(ops, r, busy, scenarios[s].exact);
            guarded_free(&t);
        }
    }
}

static void test_jobs_hit_by_incidents_restart_and_finish(void **state)
{
    const WkSchedOps *ops = *state;
    Guarded t;
    run_policy(&t, ops, mix, 2, NULL);
    if (t.guard->bad)
        fail_msg("%s: %s", ops->name, t.guard->msg);
    assert_true(t.guard->incidents > 20);
    assert_int_equal((int)wk_run_hooks_counts(t.run).completed + (int)wk_run_hooks_counts(t.run).rejected, (int)wk_run_hooks_workload(t.run)->n);
    guarded_free(&t);
}

static void test_common_keys_accepted_and_unknown_keys_refused(void **state)
{
    const WkSchedOps *ops = *state;
    char y[2048];
    WkError err;
    snprintf(y, sizeof y, "%sscheduler: {name: %s, bogus_key: 1}\n", inline_jobs, ops->name);
    assert_true(test_prepare_yaml(y, &err) < 0);
    if (!strstr(err.msg, "bogus_key"))
        fail_msg("%s: error '%s' does not name the key", ops->name, err.msg);
    snprintf(y, sizeof y, "%sscheduler: {name: %s, placement: spread, preemption_cost: 1m, tick: 10m}\n",
             inline_jobs, ops->name);
    if (test_prepare_yaml(y, &err) < 0)
        fail_msg("%s: refuses the common keys: %s: %s", ops->name, err.where, err.msg);
}

int main(void)
{
    int failed = 0;
    for (const WkSchedOps *const *p = wk_sched_registry(); *p; p++) {
        void *ops = (void *)*p;
        print_message("policy %s\n", (*p)->name);
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_prestate(test_no_gpu_is_double_allocated_and_gangs_are_whole, ops),
            cmocka_unit_test_prestate(test_every_job_completes_or_is_rejected_with_a_reason, ops),
            cmocka_unit_test_prestate(test_same_seed_gives_identical_summary, ops),
            cmocka_unit_test_prestate(test_gpu_seconds_are_conserved_exactly, ops),
            cmocka_unit_test_prestate(test_jobs_hit_by_incidents_restart_and_finish, ops),
            cmocka_unit_test_prestate(test_common_keys_accepted_and_unknown_keys_refused, ops),
        };
        failed += cmocka_run_group_tests_name((*p)->name, tests, NULL, NULL);
    }
    return failed;
}
