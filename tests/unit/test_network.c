/* SPDX-License-Identifier: Apache-2.0 */
/* test_network.c — networks of sites and their brokers: each built-in
 * broker against a scripted host (its choice in closed form), and whole
 * network runs: GPU-time conserved over all sites, jobs sent only where
 * they fit, a job no site can run rejected, the WAN transfer delaying a
 * remote start by bytes / bandwidth + latency, positioned errors. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/broker/broker.h"
#include "models/state/eval.h"
#include "models/topo/cluster.h"
#include "models/workload/model.h"
#include "models/workload/perf.h"

/* ---- a scripted host ---- */

enum { NS = 4 };
typedef struct {
    uint32_t n;
    uint32_t gpus[NS], free[NS];
    int feasible[NS];
    double backlog[NS], wait[NS], run[NS], transfer[NS], cost[NS], co2[NS];
    uint32_t home;
} Fake;

#define F(h) ((const Fake *)(h))
static uint32_t f_sites(const void *h) { return F(h)->n; }
static const char *f_name(const void *h, uint32_t s) { (void)h; static const char *const nm[] = {"a", "b", "c", "d"}; return nm[s]; }
static WkTime f_now(const void *h) { (void)h; return 0; }
static uint64_t f_seed(const void *h) { (void)h; return 1; }
static uint32_t f_gpus(const void *h, uint32_t s) { return F(h)->gpus[s]; }
static uint32_t f_free(const void *h, uint32_t s) { return F(h)->free[s]; }
static double f_backlog(const void *h, uint32_t s) { return F(h)->backlog[s]; }
static double f_wait(const void *h, uint32_t j, uint32_t s) { (void)j; return F(h)->wait[s]; }
static uint32_t f_job_gpus(const void *h, uint32_t j, uint32_t s) { (void)h; (void)j; (void)s; return 8; }
static int f_job_kind(const void *h, uint32_t j) { (void)h; (void)j; return 0; }
static int f_feasible(const void *h, uint32_t j, uint32_t s) { (void)j; return F(h)->feasible[s]; }
static double f_run(const void *h, uint32_t j, uint32_t s) { (void)j; return F(h)->run[s]; }
static double f_transfer(const void *h, uint32_t j, uint32_t s) { (void)j; return F(h)->transfer[s]; }
static double f_cost(const void *h, uint32_t j, uint32_t s, double t) { (void)j; (void)t; return F(h)->cost[s]; }
static double f_co2(const void *h, uint32_t j, uint32_t s, double t) { (void)j; (void)t; return F(h)->co2[s]; }
static uint32_t f_home(const void *h, uint32_t j) { (void)j; return F(h)->home; }

static const WkBrokerHostOps fake_ops = {
    f_sites, f_name, f_now, f_seed, f_gpus, f_free, f_backlog, f_wait, f_job_gpus, f_feasible, f_run,
    f_transfer, f_cost, f_co2, f_home, f_job_kind,
};

/* Three feasible sites, all alike and idle; tests change what they need. */
static Fake fake3(void)
{
    Fake f = {.n = 3};
    for (uint32_t s = 0; s < 3; s++) {
        f.gpus[s] = f.free[s] = 100;
        f.feasible[s] = 1;
        f.run[s] = 3600;
        f.cost[s] = f.co2[s] = 10;
    }
    return f;
}

static int32_t choose(const WkBrokerOps *b, Fake *f, const WkNode *params)
{
    WkBrokerCtx ctx = {&fake_ops, f};
    char priv[1024] = {0};
    assert_true(b->priv_size <= sizeof priv);
    WkError err;
    wk_error_clear(&err);
    if (b->init)
        assert_int_equal(b->init(priv, params, &ctx, &err), 0);
    return b->choose(priv, &ctx, 0);
}

static void test_broker_round_robin_shares_by_gpus(void **state)
{
    (void)state;
    Fake f = fake3();
    f.gpus[1] = 200; /* weights 1 : 2 : 1 */
    WkBrokerCtx ctx = {&fake_ops, &f};
    char priv[1024] = {0};
    unsigned count[3] = {0};
    for (int i = 0; i < 400; i++) {
        int32_t s = wk_broker_round_robin.choose(priv, &ctx, 0);
        assert_true(s >= 0 && s < 3);
        count[s]++;
    }
    assert_int_equal(count[0], 100);
    assert_int_equal(count[1], 200);
    assert_int_equal(count[2], 100);
    f.feasible[1] = 0; /* an infeasible site is never chosen */
    for (int i = 0; i < 50; i++)
        assert_int_not_equal(wk_broker_round_robin.choose(priv, &ctx, 0), 1);
}

static void test_broker_none_feasible_gives_minus_one(void **state)
{
    (void)state;
    for (const WkBrokerOps *const *b = wk_broker_registry(); *b; b++) {
        Fake f = fake3();
        f.feasible[0] = f.feasible[1] = f.feasible[2] = 0;
        assert_int_equal(choose(*b, &f, NULL), -1);
        f.feasible[2] = 1; /* the only feasible site */
        assert_int_equal(choose(*b, &f, NULL), 2);
    }
}

static void test_broker_least_loaded_takes_smallest_backlog(void **state)
{
    (void)state;
    Fake f = fake3();
    f.backlog[0] = 500, f.backlog[1] = 20, f.backlog[2] = 90;
    assert_int_equal(choose(&wk_broker_least_loaded, &f, NULL), 1);
    f.backlog[1] = f.backlog[2] = 0; /* idle: the one with more free GPUs */
    f.free[1] = 10;
    assert_int_equal(choose(&wk_broker_least_loaded, &f, NULL), 2);
}

static void test_broker_fastest_finish_weighs_wait_transfer_and_run(void **state)
{
    (void)state;
    Fake f = fake3();
    /* finish = max(transfer, wait) + run */
    f.wait[0] = 1000, f.run[0] = 3600;                    /* 4600 */
    f.wait[1] = 20, f.transfer[1] = 50, f.run[1] = 4000;  /* 4050 */
    f.wait[2] = 0, f.transfer[2] = 300, f.run[2] = 3700;  /* 4000: the earliest */
    assert_int_equal(choose(&wk_broker_fastest, &f, NULL), 2);
    f.transfer[2] = 400; /* 4100: now site 1 */
    assert_int_equal(choose(&wk_broker_fastest, &f, NULL), 1);
}

static void test_broker_energy_price_within_slack(void **state)
{
    (void)state;
    Fake f = fake3();
    f.cost[0] = 5, f.run[0] = 3600 + 10 * 3600.0; /* cheapest, finishes 10 h after the others */
    f.cost[1] = 9;
    f.cost[2] = 7; /* the cheapest of those within the default 6 h */
    assert_int_equal(choose(&wk_broker_cheapest, &f, NULL), 2);
    WkDoc *doc = NULL;
    WkError err;
    const char *y = "name: energy-price\nslack: 12h\n";
    assert_int_equal(wk_doc_load_string(&doc, "b.yaml", y, strlen(y), &err), 0);
    assert_int_equal(choose(&wk_broker_cheapest, &f, doc->root), 0);
    wk_doc_free(doc);
    f.co2[0] = 1, f.co2[1] = 3, f.co2[2] = 2;
    assert_int_equal(choose(&wk_broker_greenest, &f, NULL), 2);
}

static void test_broker_data_locality_prefers_home(void **state)
{
    (void)state;
    Fake f = fake3();
    f.home = 1;
    f.transfer[0] = f.transfer[2] = 600; /* others: the dataset must cross the WAN */
    assert_int_equal(choose(&wk_broker_data, &f, NULL), 1);
    f.wait[1] = 3600; /* home is busy an hour: moving the data is quicker */
    assert_int_equal(choose(&wk_broker_data, &f, NULL), 0);
}

static void test_broker_lookup_names_known(void **state)
{
    (void)state;
    const WkBrokerOps *b = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_broker_lookup("fastest-finish", NULL, &b, &err), 0);
    assert_ptr_equal(b, &wk_broker_fastest);
    assert_int_equal(wk_broker_lookup("nope", NULL, &b, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "least-loaded"));
}

/* ---- whole networks ---- */

#define SITE(name, nodes, extra)                                                                         \
    "  - name: " name "\n"                                                                              \
    "    cluster: {sku: H100-SXM-80G, nodes: " #nodes ", gpus_per_node: 8, nodes_per_pod: 8,\n"        \
    "              fabric: {kind: rail, tiers: 2, radix: 64, link_gbps: 400, rails: 8}}\n" extra

static const char *const two_sites =
    "name: net\nseed: 3\n"
    "sites:\n" SITE("a", 4, "") SITE("b", 16, "")
    "wan: {default: {bandwidth: 100Gbps, latency: 10ms}}\n"
    "workload:\n  source: synthetic\n  jobs: 200\n  interarrival: {dist: exponential, mean: 10m}\n"
    "  duration: {dist: lognormal, median: 1h, sigma: 1.0}\n"
    "  gpus:\n    - {gpus: 8, weight: 0.7}\n    - {gpus: 64, weight: 0.3}\n"
    "scheduler: backfill\n";

/* allocated + idle + down = GPUs x end over all sites, exactly */
static void assert_gpu_time_conserved(const TestRun *t)
{
    WkRunAccount a;
    wk_sim_account(t->sim, &a);
    __uint128_t alloc = ((__uint128_t)a.alloc_hi << 64) | a.alloc_lo;
    __uint128_t idle = ((__uint128_t)a.idle_hi << 64) | a.idle_lo;
    __uint128_t down = ((__uint128_t)a.down_hi << 64) | a.down_lo;
    assert_true(alloc + idle + down == (__uint128_t)wk_sim_gpus(t->sim) * (__uint128_t)a.end_ns);
}

static void test_network_conserves_gpu_time(void **state)
{
    (void)state;
    for (const WkBrokerOps *const *b = wk_broker_registry(); *b; b++) {
        WkRunOpts o = {.broker = (*b)->name};
        TestRun t;
        test_run_yaml(&t, two_sites, &o);
        assert_gpu_time_conserved(&t);
        assert_int_equal(wk_sim_gpus(t.sim), 160);
        assert_int_equal(wk_sim_sites(t.sim), 2);
        assert_float_equal(test_metric(&t, "jobs_completed"), 200, 0);
        assert_float_equal(test_metric(&t, "site.a.jobs") + test_metric(&t, "site.b.jobs"), 200, 0);
        assert_float_equal(test_metric(&t, "site.a.jobs_completed") + test_metric(&t, "site.b.jobs_completed"), 200,
                           0);
        /* 64-GPU jobs fit only site b (32 GPUs at a): a got only 8-GPU jobs */
        assert_true(test_metric(&t, "site.a.jobs") < 200 * 0.9);
        test_run_free(&t);
    }
}

static void test_network_rejects_job_no_site_fits(void **state)
{
    (void)state;
    const char *y = "name: net\nsites:\n" SITE("a", 1, "") SITE("b", 2, "")
                    "workload:\n  source: inline\n  jobs:\n    - {gpus: 8, duration: 1h}\n"
                    "    - {gpus: 64, duration: 1h}\n";
    TestRun t;
    test_run_yaml(&t, y, NULL);
    assert_float_equal(test_metric(&t, "jobs_completed"), 1, 0);
    assert_float_equal(test_metric(&t, "jobs_rejected"), 1, 0);
    assert_float_equal(test_metric(&t, "jobs_unfinished"), 0, 0);
    test_run_free(&t);
}

/* Site a holds every dataset but runs no AI job: the model job goes to b
 * after its tokens (x 4 bytes) cross the 10 Gb/s link, 25 ms one way. */
static void test_network_transfer_delays_remote_start(void **state)
{
    (void)state;
    const char *y = "name: net\nsites:\n" SITE("a", 2, "    accepts: [hpc]\n    data_share: 1\n")
                    SITE("b", 2, "    data_share: 0\n")
                    "wan: {links: [{between: [a, b], bandwidth: 10Gbps, latency: 25ms, cost_per_tb: 4}]}\n"
                    "broker: fastest-finish\n"
                    "workload:\n  source: inline\n  jobs:\n"
                    "    - {gpus: 16, model: llama3-8b, tokens: 1.0e10}\n";
    TestRun t;
    test_run_yaml(&t, y, NULL);
    double bytes = 1.0e10 * 4, xfer = bytes / (10e9 / 8) + 0.025;
    assert_float_equal(test_metric(&t, "site.b.jobs"), 1, 0);
    assert_float_equal(test_metric(&t, "wan_tb"), bytes / 1e12, 1e-12);
    assert_float_equal(test_metric(&t, "wan_cost"), bytes / 1e12 * 4, 1e-9);
    assert_float_equal(test_metric(&t, "transfer_mean_s"), xfer, 1e-6);
    assert_float_equal(test_metric(&t, "wait_mean_s"), xfer, 1e-6); /* the queue wait counts from submission */
    test_run_free(&t);
}

/* A network of one site (no failures: a site draws its own failure
 * streams) is the single-cluster run: every metric both summaries have is
 * equal. */
static void test_network_of_one_site_is_the_cluster_run(void **state)
{
    (void)state;
    const char *body = "workload:\n  source: synthetic\n  jobs: 300\n  interarrival: {dist: exponential, mean: 5m}\n"
                       "  duration: {dist: lognormal, median: 1h, sigma: 1.0}\n"
                       "  gpus:\n    - {gpus: 8, weight: 0.6}\n    - {gpus: 32, weight: 0.2, model: llama3-8b, iterations: 200}\n"
                       "    - {gpus: 64, weight: 0.2}\n"
                       "scheduler: backfill\nfailures: {enabled: false}\n";
    const char *cl = "{sku: H100-SXM-80G, nodes: 16, gpus_per_node: 8, nodes_per_pod: 8,\n"
                     "  fabric: {kind: rail, tiers: 2, radix: 64, link_gbps: 400, rails: 8}}\n";
    char one[2048], net[2048];
    snprintf(one, sizeof one, "name: x\nseed: 9\ncluster: %s%s", cl, body);
    snprintf(net, sizeof net, "name: x\nseed: 9\nsites:\n  - name: only\n    cluster: %s%s", cl, body);
    TestRun a, b;
    test_run_yaml(&a, one, NULL);
    test_run_yaml(&b, net, NULL);
    size_t same = 0;
    for (size_t i = 0; i < a.sum.n; i++) {
        const WkMetric *m = wk_summary_get(&b.sum, a.sum.m[i].name);
        if (!m)
            continue;
        double x = a.sum.m[i].value, y = m->value;
        if (isnan(x) && isnan(y))
            continue;
        if (fabs(x - y) > 1e-12 * fmax(1, fabs(x)))
            fail_msg("%s: %.17g (cluster) vs %.17g (network of one site)", a.sum.m[i].name, x, y);
        same++;
    }
    assert_true(same >= 25);
    assert_float_equal(test_metric(&b, "jobs_completed"), 300, 0);
    test_run_free(&a);
    test_run_free(&b);
}

static void expect_error(const char *yaml, const char *needle, long line)
{
    WkError err;
    int rc = test_prepare_yaml(yaml, &err);
    assert_true(rc < 0);
    if (!strstr(err.msg, needle))
        fail_msg("expected '%s' in: %s: %s", needle, err.where, err.msg);
    if (line > 0) {
        char pos[32];
        snprintf(pos, sizeof pos, ":%ld:", line);
        if (!strstr(err.where, pos))
            fail_msg("expected line %ld in '%s' (%s)", line, err.where, err.msg);
    }
}

static void test_network_bad_input_is_positioned(void **state)
{
    (void)state;
    const char *wl = "workload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}\n";
    char y[2048];
    snprintf(y, sizeof y, "sites:\n" SITE("a", 1, "") SITE("b", 1, "") "wan: {links: [{between: [a, c], bandwidth: 1Gbps}]}\n%s",
             wl);
    expect_error(y, "unknown site 'c'", 8);
    snprintf(y, sizeof y, "sites:\n" SITE("a", 1, "") SITE("a", 1, "") "%s", wl);
    expect_error(y, "two sites named 'a'", 5);
    snprintf(y, sizeof y, "sites:\n" SITE("a", 1, "") "wan: {default: {gbps: -5}}\n%s", wl);
    expect_error(y, "bandwidth", 5);
    snprintf(y, sizeof y, "sites:\n" SITE("a", 1, "    accepts: [ai, gpu]\n") "%s", wl);
    expect_error(y, "accepts", 5);
    snprintf(y, sizeof y, "sites:\n" SITE("a", 1, "") "broker: cheapest\n%s", wl);
    expect_error(y, "unknown broker 'cheapest'", 5);
    snprintf(y, sizeof y, "sites:\n" SITE("a", 1, "") "broker: {name: least-loaded, slack: 1h}\n%s", wl);
    expect_error(y, "slack", 5);
    snprintf(y, sizeof y, "cluster: {sku: H100-SXM-80G, nodes: 1}\nsites:\n" SITE("a", 1, "") "%s", wl);
    expect_error(y, "no top-level 'cluster'", 1);
    snprintf(y, sizeof y, "sites:\n  - {name: a}\n%s", wl);
    expect_error(y, "missing key 'cluster'", 2);
    snprintf(y, sizeof y, "sites:\n" SITE("a b", 1, "") "%s", wl);
    expect_error(y, "site name", 2);
}


/* ---- jobs across sites (`span:`) ---- */

#define H100_8 "{sku: H100-SXM-80G, nodes: 8, gpus_per_node: 8, nodes_per_pod: 8,\n" \
               "  fabric: {kind: rail, tiers: 2, radix: 64, link_gbps: 400, rails: 8}}"

/* Iteration time of llama3-8b on 2 x 64 GPUs of H100_8 sites over one
 * 400 Gb/s, 5 ms link: the performance model's spanning job. */
static double span_iter_s(void)
{
    const char *y = "cluster: " H100_8 "\nmodel: {base: llama3-8b}\n";
    WkDoc *d = NULL;
    WkError err;
    wk_error_clear(&err);
    WkCluster c;
    WkModelSpec m;
    WkPerfParams pp;
    if (wk_doc_load_string(&d, "t.yaml", y, strlen(y), &err) < 0 ||
        wk_cluster_parse(wk_node_get(d->root, "cluster"), &c, &err) < 0 ||
        wk_model_parse(wk_node_get(d->root, "model"), NULL, &m, &err) < 0 || wk_perf_parse(NULL, &pp, &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    WkPerfWan wan = {.sites = 2, .bw_bits_per_s = 400e9, .lat_s = 0.005};
    WkPerfResult res;
    uint8_t pc;
    if (wk_eval_job_wan(&c, &m, NULL, 64, &pp, &wan, &res, NULL, &pc, &err) < 0)
        fail_msg("%s", err.msg);
    wk_cluster_fini(&c);
    wk_doc_free(d);
    return res.iter_s;
}

static const char *span_net(char *buf, size_t size, const char *span, const char *jobs, const char *site_a)
{
    snprintf(buf, size,
             "name: span\nseed: 1\nsites:\n  - name: a\n    cluster: " H100_8 "\n%s  - name: b\n    cluster: " H100_8 "\n"
             "wan: {default: {bandwidth: 400Gbps, latency: 5ms, cost_per_tb: 2}}\n%s"
             "data: {bytes_per_token: 0}\nfailures: {enabled: false}\ncheckpoint: {interval: none}\n"
             "workload:\n  source: inline\n  jobs:\n%s",
             site_a, span, jobs);
    return buf;
}

/* A job larger than any site runs over two: its run time is the spanning
 * job's iterations x iteration time; without `span:` it is rejected. */
static void test_span_runs_a_job_no_site_fits(void **state)
{
    (void)state;
    char y[4096];
    const char *job = "    - {gpus: 128, model: llama3-8b, iterations: 2000}\n";
    TestRun t;
    test_run_yaml(&t, span_net(y, sizeof y, "span: {sites: 2}\n", job, ""), NULL);
    double run = 2000 * span_iter_s();
    assert_float_equal(test_metric(&t, "spanned_jobs"), 1, 0);
    assert_float_equal(test_metric(&t, "jobs_completed"), 1, 0);
    assert_float_equal(test_metric(&t, "jct_mean_s"), run, 1e-6);
    assert_float_equal(test_metric(&t, "wait_mean_s"), 0, 0);
    assert_float_equal(test_metric(&t, "span_hold_gpu_h"), 0, 0);
    /* each site's part ran the whole time, and both parts ended together */
    assert_float_equal(test_metric(&t, "site.a.jct_mean_s"), test_metric(&t, "site.b.jct_mean_s"), 0);
    test_run_free(&t);
    test_run_yaml(&t, span_net(y, sizeof y, "", job, ""), NULL);
    assert_float_equal(test_metric(&t, "jobs_rejected"), 1, 0);
    assert_int_equal(wk_summary_get(&t.sum, "spanned_jobs") == NULL, 1);
    test_run_free(&t);
}

/* Site a is busy for 2 h: the spanning job is reserved for then at both
 * sites (no part holds GPUs waiting), its wait is the 2 h less its 10 min
 * submission, its GPU-time is conserved. */
static void test_span_reserves_the_common_start(void **state)
{
    (void)state;
    char y[4096];
    const char *jobs = "    - {gpus: 32, duration: 2h}\n"
                       "    - {gpus: 128, model: llama3-8b, iterations: 2000, submit: 10m}\n";
    TestRun t;
    test_run_yaml(&t, span_net(y, sizeof y, "span: {sites: 2}\n", jobs, ""), NULL);
    assert_float_equal(test_metric(&t, "spanned_completed"), 1, 0);
    assert_float_equal(test_metric(&t, "span_hold_gpu_h"), 0, 0);
    assert_float_equal(test_metric(&t, "wait_mean_s"), (7200.0 - 600) / 2, 1e-6);
    assert_float_equal(test_metric(&t, "makespan_s"), 7200 + 2000 * span_iter_s(), 1e-6);
    assert_gpu_time_conserved(&t);
    test_run_free(&t);
}

/* The gang waits 40 days behind a job that fills site a, after the last
 * submission, with no part running meanwhile: the network keeps stepping
 * (ever longer syncs) until the reserved start, then lets both parts go. */
static void test_span_waits_long_behind_a_full_site(void **state)
{
    (void)state;
    char y[4096];
    const char *jobs = "    - {gpus: 64, duration: 40d}\n"
                       "    - {gpus: 128, model: llama3-8b, iterations: 2000, submit: 1m}\n";
    TestRun t;
    test_run_yaml(&t, span_net(y, sizeof y, "span: {sites: 2}\n", jobs, ""), NULL);
    assert_float_equal(test_metric(&t, "jobs_completed"), 2, 0);
    assert_float_equal(test_metric(&t, "spanned_completed"), 1, 0);
    assert_float_equal(test_metric(&t, "makespan_s"), 40 * 86400.0 + 2000 * span_iter_s(), 1e-6);
    assert_float_equal(test_metric(&t, "span_hold_gpu_h"), 0, 0);
    test_run_free(&t);
}

/* A node of site a fails an hour in, for 2 h: a's part goes back to the
 * queue (56 GPUs left, it needs 64) and rolls back to its start (failures
 * off: no checkpoints are taken), b's part holds and is rolled back with
 * it; the job resumes when a is repaired and both parts end together, the
 * outage and the lost hour later than without it (plus restart costs). */
static void test_span_failure_holds_and_rolls_back_the_gang(void **state)
{
    (void)state;
    char y[4096];
    const char *job = "    - {gpus: 128, model: llama3-8b, iterations: 20000}\n";
    const char *down = "    failures: {enabled: false, incidents: [{at: 1h, kind: down, node: 0, duration: 2h}]}\n";
    TestRun t;
    test_run_yaml(&t, span_net(y, sizeof y, "span: {sites: 2}\n", job, down), NULL);
    double run = 20000 * span_iter_s();
    assert_true(run > 3 * 3600); /* the failure falls inside the run */
    assert_float_equal(test_metric(&t, "jobs_completed"), 1, 0);
    assert_true(test_metric(&t, "jct_mean_s") >= run + 3 * 3600);
    assert_true(test_metric(&t, "jct_mean_s") <= run + 3 * 3600 + 15 * 60);
    assert_float_equal(test_metric(&t, "site.a.jct_mean_s"), test_metric(&t, "site.b.jct_mean_s"), 0);
    assert_true(test_metric(&t, "span_hold_gpu_h") > 0); /* b held while a waited for its repair */
    assert_gpu_time_conserved(&t);
    test_run_free(&t);
}

/* `when: faster`: a 32-GPU job finds every site with 16 GPUs free for the
 * next 10 h; over two sites it starts now. `too-big` keeps it in one site. */
static void test_span_faster_spans_when_it_finishes_sooner(void **state)
{
    (void)state;
    char y[4096];
    const char *jobs = "    - {gpus: 48, duration: 10h}\n    - {gpus: 48, duration: 10h}\n"
                       "    - {gpus: 32, model: llama3-8b, iterations: 500, submit: 1m}\n";
    TestRun t;
    test_run_yaml(&t, span_net(y, sizeof y, "span: {sites: 2, when: faster}\n", jobs, ""), NULL);
    assert_float_equal(test_metric(&t, "spanned_jobs"), 1, 0);
    assert_float_equal(test_metric(&t, "jobs_completed"), 3, 0);
    test_run_free(&t);
    test_run_yaml(&t, span_net(y, sizeof y, "span: {sites: 2}\n", jobs, ""), NULL);
    assert_float_equal(test_metric(&t, "spanned_jobs"), 0, 0);
    assert_float_equal(test_metric(&t, "span_considered"), 0, 0);
    assert_float_equal(test_metric(&t, "jobs_completed"), 3, 0);
    test_run_free(&t);
}

static void test_span_bad_input_is_positioned(void **state)
{
    (void)state;
    char y[4096];
    const char *job = "    - {gpus: 8, duration: 1h}\n";
    expect_error(span_net(y, sizeof y, "span: {sites: 3}\n", job, ""), "the network has 2 sites", 11);
    expect_error(span_net(y, sizeof y, "span: {sites: 2, when: always}\n", job, ""), "expected too-big", 11);
    expect_error(span_net(y, sizeof y, "span: {sites: 2, every: 1m}\n", job, ""), "every", 11);
    expect_error(span_net(y, sizeof y, "span: {sync: 0s}\n", job, ""), "sync", 11);
    expect_error(span_net(y, sizeof y, "span: 2\n", job, ""), "expected a map", 11);
    expect_error("name: x\ncluster: {sku: H100-SXM-80G, nodes: 1}\nspan: {sites: 2}\n"
                 "workload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}\n",
                 "needs 'sites'", 3);
}

/* A network is prepared through models/network/sim.h: wk_run_prepare, the
 * single-cluster run, refuses it at the `sites` key instead of running it. */
static void test_run_prepare_refuses_a_network(void **state)
{
    (void)state;
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_doc_load_string(&doc, "net.yaml", two_sites, strlen(two_sites), &err), 0);
    assert_int_equal(wk_run_prepare(&run, doc, NULL, &err), WK_E_INVAL);
    assert_null(run);
    assert_non_null(strstr(err.msg, "wk_sim_prepare"));
    assert_non_null(strstr(err.where, "net.yaml:"));
    wk_doc_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broker_round_robin_shares_by_gpus),
        cmocka_unit_test(test_broker_none_feasible_gives_minus_one),
        cmocka_unit_test(test_broker_least_loaded_takes_smallest_backlog),
        cmocka_unit_test(test_broker_fastest_finish_weighs_wait_transfer_and_run),
        cmocka_unit_test(test_broker_energy_price_within_slack),
        cmocka_unit_test(test_broker_data_locality_prefers_home),
        cmocka_unit_test(test_broker_lookup_names_known),
        cmocka_unit_test(test_network_conserves_gpu_time),
        cmocka_unit_test(test_network_rejects_job_no_site_fits),
        cmocka_unit_test(test_network_of_one_site_is_the_cluster_run),
        cmocka_unit_test(test_network_transfer_delays_remote_start),
        cmocka_unit_test(test_network_bad_input_is_positioned),
        cmocka_unit_test(test_span_runs_a_job_no_site_fits),
        cmocka_unit_test(test_span_reserves_the_common_start),
        cmocka_unit_test(test_span_waits_long_behind_a_full_site),
        cmocka_unit_test(test_span_failure_holds_and_rolls_back_the_gang),
        cmocka_unit_test(test_span_faster_spans_when_it_finishes_sooner),
        cmocka_unit_test(test_span_bad_input_is_positioned),
        cmocka_unit_test(test_run_prepare_refuses_a_network),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
