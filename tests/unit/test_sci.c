/* SPDX-License-Identifier: Apache-2.0 */
/* test_sci.c — the `sci` annealer against independent expectations: its
 * energy falls on a fixed state and its incremental bookkeeping matches a
 * recomputation; on a tiny instance it never beats the brute-force optimum of
 * the same energy and reaches it; runs are deterministic; the move budget
 * holds at 10,240 GPUs with ~1,000 queued jobs; backfill, reservation,
 * rejection, migration off throttled GPUs and failure restarts; the
 * cascade-time model is ordered and scales with the topology. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/run/hooks.h"
#include "models/sched/sci.h"
#include "models/sched/sci_impl.h"

/* ---- helpers ---- */

typedef struct {
    WkDoc *doc;
    WkCluster c;
} TestCluster;

static void cluster_yaml(TestCluster *t, const char *yaml)
{
    WkError err;
    wk_error_clear(&err);
    memset(t, 0, sizeof *t);
    if (wk_doc_load_string(&t->doc, "c.yaml", yaml, strlen(yaml), &err) < 0 ||
        wk_cluster_parse(wk_node_get(t->doc->root, "cluster"), &t->c, &err) < 0)
        fail_msg("cluster: %s: %s", err.where, err.msg);
}

static void cluster_free(TestCluster *t)
{
    wk_cluster_fini(&t->c);
    wk_doc_free(t->doc);
}

static const WkSciStats *stats_of(const TestRun *t)
{
    assert_string_equal(wk_run_scheduler(t->run), "sci");
    return wk_sci_stats(wk_run_hooks_sched(t->run)->priv);
}

/* ---- the energy on fixed states ---- */

static void test_sci_annealing_lowers_the_energy_of_a_fixed_state(void **state)
{
    (void)state;
    /* 4 pods x 4 nodes x 8 GPUs on a rail fabric. A running 16-GPU job is
     * scattered one GPU per node (15 cross-node boundaries, 12 of them across
     * pods) and may migrate; three jobs wait. */
    TestCluster tc;
    cluster_yaml(&tc, "cluster: {nodes: 16, gpus_per_node: 8, nodes_per_pod: 4,\n"
                      "          fabric: {kind: rail, tiers: 3, radix: 16, link_gbps: 200}}\n");
    const WkCluster *c = &tc.c;
    WkSciParams p;
    wk_sci_defaults(&p);
    p.migrate = 1;
    WkSciState *st;
    WkError err;
    assert_int_equal(wk_sci_state_new(&st, c, &p, &err), 0);
    uint8_t *gs = calloc(c->gpus, 1);
    uint32_t scattered[16];
    for (uint32_t k = 0; k < 16; k++) {
        scattered[k] = k * 8 + (k % 8);
        gs[scattered[k]] = WK_SCI_USED;
    }
    WkSciJob jobs[] = {
        {.gpus = 16, .rho = 1, .real = scattered},
        {.gpus = 32, .rho = 1, .wait_s = 3600},
        {.gpus = 8, .rho = 1, .wait_s = 600},
        {.gpus = 4, .rho = 0.5, .wait_s = 60},
    };
    assert_int_equal(wk_sci_state_load(st, gs, jobs, 4, &err), 0);
    double e0 = wk_sci_energy(st);
    WkRng *rng;
    assert_int_equal(wk_rng_new(&rng, 11, "test.sci", &err), 0);
    WkSciAnnealStats as;
    assert_int_equal(wk_sci_anneal(st, rng, &as), 0);
    print_message("fixed state: E %.3f -> %.3f in %u moves (%u accepted)\n", e0, as.e_after, as.moves,
                  as.accepted);
    assert_float_equal(as.e_before, e0, 1e-9);
    /* placing the 44 waiting GPUs alone is worth at least h_load per GPU */
    assert_true(as.e_after < e0 - 44 * p.h_load);
    /* the tracked energy is the energy of the final configuration */
    assert_float_equal(as.e_after, wk_sci_energy(st), 1e-6);
    for (uint32_t i = 1; i < 4; i++)
        assert_non_null(wk_sci_block(st, i));
    /* and the scattered job was gathered: at most one boundary leaves a pod */
    const uint32_t *b = wk_sci_block(st, 0);
    assert_true(wk_sci_moved(st, 0));
    uint32_t cross = 0;
    for (uint32_t k = 1; k < 16; k++)
        cross += wk_cluster_pod_of(c, b[k]) != wk_cluster_pod_of(c, b[k - 1]);
    assert_true(cross <= 1);
    /* two running jobs on one GPU are refused, not loaded */
    WkSciJob twice[] = {{.gpus = 16, .rho = 1, .real = scattered}, {.gpus = 16, .rho = 1, .real = scattered}};
    assert_int_equal(wk_sci_state_load(st, gs, twice, 2, &err), WK_E_INVAL);
    wk_rng_free(rng);
    free(gs);
    wk_sci_state_free(st);
    cluster_free(&tc);
}

/* Brute force over every assignment of 8 GPUs to {free, job 0, 1, 2} with
 * each job on exactly its size or not placed; blocks in ascending GPU order,
 * the rank order of sci's state space. */
static double brute_force(WkSciState *st, const WkSciJob *jobs, uint32_t nj, uint32_t G)
{
    double best = INFINITY;
    uint32_t total = 1;
    for (uint32_t g = 0; g < G; g++)
        total *= nj + 1;
    for (uint32_t code = 0; code < total; code++) {
        uint32_t lab[16], cnt[4] = {0}, x = code;
        for (uint32_t g = 0; g < G; g++) {
            lab[g] = x % (nj + 1);
            x /= nj + 1;
            cnt[lab[g]]++;
        }
        int ok = 1;
        for (uint32_t j = 0; j < nj; j++)
            ok &= cnt[j + 1] == 0 || cnt[j + 1] == jobs[j].gpus;
        if (!ok)
            continue;
        for (uint32_t j = 0; j < nj; j++)
            wk_sci_set_block(st, j, NULL);
        for (uint32_t j = 0; j < nj; j++) {
            if (!cnt[j + 1])
                continue;
            uint32_t b[16], k = 0;
            for (uint32_t g = 0; g < G; g++)
                if (lab[g] == j + 1)
                    b[k++] = g;
            assert_int_equal(wk_sci_set_block(st, j, b), 0);
        }
        double e = wk_sci_energy(st);
        if (e < best)
            best = e;
    }
    return best;
}

static void test_sci_never_beats_brute_force_optimum_and_can_match_it(void **state)
{
    (void)state;
    /* 2 nodes x 4 GPUs, each node its own pod; GPU 1 throttled to half clock.
     * Jobs of 3, 2 and 4 GPUs: all three cannot run at once. */
    TestCluster tc;
    cluster_yaml(&tc, "cluster: {nodes: 2, gpus_per_node: 4, nodes_per_pod: 1}\n");
    wk_cluster_set_state(&tc.c, 1, WK_GPU_THROTTLED, 0.5f);
    WkSciParams p;
    wk_sci_defaults(&p);
    const WkSciJob jobs[] = {
        {.gpus = 3, .rho = 1, .wait_s = 3600},
        {.gpus = 2, .rho = 0.8, .wait_s = 7200},
        {.gpus = 4, .rho = 1, .wait_s = 1800},
    };
    uint8_t gs[8] = {0};
    WkSciState *st;
    WkError err;
    assert_int_equal(wk_sci_state_new(&st, &tc.c, &p, &err), 0);
    assert_int_equal(wk_sci_state_load(st, gs, jobs, 3, &err), 0);
    double best = brute_force(st, jobs, 3, 8);
    int matched = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        WkRng *rng;
        assert_int_equal(wk_sci_state_load(st, gs, jobs, 3, &err), 0);
        assert_int_equal(wk_rng_new(&rng, seed, "test.sci", &err), 0);
        WkSciAnnealStats as;
        wk_sci_anneal(st, rng, &as);
        wk_rng_free(rng);
        double e = wk_sci_energy(st);
        assert_float_equal(as.e_after, e, 1e-9);
        assert_true(e >= best - 1e-9);
        matched += fabs(e - best) < 1e-9;
    }
    print_message("brute-force optimum %.4f; annealer matched it in %d of 20 seeds\n", best, matched);
    assert_true(matched >= 10);
    wk_sci_state_free(st);
    cluster_free(&tc);
}

/* A reload that re-reads only the changed nodes (and those the last round's
 * moves touched) gives the state a full load gives, bit for bit: the same
 * energy, and the same annealing from the same seed. */
static void test_sci_reload_of_changed_nodes_equals_a_full_load(void **state)
{
    (void)state;
    TestCluster tc;
    cluster_yaml(&tc, "cluster: {nodes: 16, gpus_per_node: 8, nodes_per_pod: 4,\n"
                      "          fabric: {kind: rail, tiers: 3, radix: 16, link_gbps: 200}}\n");
    const WkCluster *c = &tc.c;
    WkSciParams p;
    wk_sci_defaults(&p);
    p.migrate = 1;
    WkSciState *inc, *full;
    WkError err;
    assert_int_equal(wk_sci_state_new(&inc, c, &p, &err), 0);
    assert_int_equal(wk_sci_state_new(&full, c, &p, &err), 0);
    uint8_t *gs = calloc(c->gpus, 1);
    uint32_t run[8];
    for (uint32_t k = 0; k < 8; k++) { /* a running job scattered over 8 nodes */
        run[k] = k * 16 + 3;
        gs[run[k]] = WK_SCI_USED;
    }
    gs[40] = WK_SCI_DOWN;
    WkSciJob jobs[] = {
        {.gpus = 8, .rho = 1, .real = run},
        {.gpus = 16, .rho = 1, .wait_s = 3600},
        {.gpus = 4, .rho = 0.5, .wait_s = 60},
    };
    WkRng *r1, *r2;
    WkSciAnnealStats as;
    assert_int_equal(wk_sci_state_reload(inc, gs, NULL, 0, jobs, 3, &err), 0);
    assert_int_equal(wk_rng_new(&r1, 3, "test.sci", &err), 0);
    assert_int_equal(wk_sci_anneal(inc, r1, &as), 0); /* the moves leave the state off gs */
    assert_true(as.accepted > 0);
    /* between rounds: nodes 0, 9 and 15 change (a job ends, one starts, a GPU goes down) */
    gs[3] = WK_SCI_FREE;
    for (uint32_t g = 72; g < 80; g++)
        gs[g] = WK_SCI_USED;
    gs[120] = WK_SCI_DOWN;
    const uint32_t changed[] = {0, 9, 15, 9};
    WkSciJob next[] = {
        {.gpus = 7, .rho = 1, .real = run + 1},
        {.gpus = 32, .rho = 1, .wait_s = 7200},
        {.gpus = 2, .rho = 1, .wait_s = 10},
    };
    assert_int_equal(wk_sci_state_reload(inc, gs, changed, 4, next, 3, &err), 0);
    assert_int_equal(wk_sci_state_load(full, gs, next, 3, &err), 0);
    double ei = wk_sci_energy(inc), ef = wk_sci_energy(full);
    assert_memory_equal(&ei, &ef, sizeof ei);
    assert_int_equal(wk_sci_free(inc), wk_sci_free(full));
    WkSciAnnealStats a1, a2;
    wk_rng_free(r1);
    assert_int_equal(wk_rng_new(&r1, 5, "test.sci", &err), 0);
    assert_int_equal(wk_rng_new(&r2, 5, "test.sci", &err), 0);
    assert_int_equal(wk_sci_anneal(inc, r1, &a1), 0);
    assert_int_equal(wk_sci_anneal(full, r2, &a2), 0);
    assert_memory_equal(&a1.e_after, &a2.e_after, sizeof a1.e_after);
    assert_int_equal(a1.accepted, a2.accepted);
    for (uint32_t i = 0; i < 3; i++) {
        const uint32_t *bi = wk_sci_block(inc, i), *bf = wk_sci_block(full, i);
        assert_true((bi == NULL) == (bf == NULL));
        if (bi)
            assert_memory_equal(bi, bf, next[i].gpus * sizeof *bi);
    }
    wk_rng_free(r1);
    wk_rng_free(r2);
    free(gs);
    wk_sci_state_free(inc);
    wk_sci_state_free(full);
    cluster_free(&tc);
}

/* Blocks flip GPU by GPU whatever their rank order: a node given back
 * reversed, and a block whose first eight ranks start and end on one
 * node's first and last GPU with another node's GPU between them, leave
 * the same GPU states, per-node counts and bucket sizes as a full load of the
 * freed pool (a whole-node shortcut that trusted the ends would free the
 * wrong GPU). */
static void test_sci_gives_back_blocks_in_any_rank_order(void **state)
{
    (void)state;
    TestCluster tc;
    cluster_yaml(&tc, "cluster: {nodes: 4, gpus_per_node: 8, nodes_per_pod: 2,\n"
                      "          fabric: {kind: rail, tiers: 3, radix: 16, link_gbps: 200}}\n");
    const WkCluster *c = &tc.c;
    WkSciParams p;
    wk_sci_defaults(&p);
    p.migrate = 1;
    uint32_t a[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    uint32_t b[16] = {8, 9, 10, 11, 12, 13, 17, 15, 14, 16, 18, 19, 20, 21, 22, 23};
    uint8_t gs[32] = {0};
    for (uint32_t g = 0; g < 24; g++)
        gs[g] = WK_SCI_USED;
    WkSciJob jobs[] = {{.gpus = 8, .rho = 1, .real = a}, {.gpus = 16, .rho = 1, .real = b}};
    WkSciState *st, *ref;
    WkError err;
    assert_int_equal(wk_sci_state_new(&st, c, &p, &err), 0);
    assert_int_equal(wk_sci_state_new(&ref, c, &p, &err), 0);
    assert_int_equal(wk_sci_state_load(st, gs, jobs, 2, &err), 0);
    for (uint32_t j = 2; j-- > 0;) { /* give back b, then a */
        wk_sci_give_all(st, jobs[j].real, jobs[j].gpus);
        for (uint32_t k = 0; k < jobs[j].gpus; k++)
            gs[jobs[j].real[k]] = WK_SCI_FREE;
        assert_int_equal(wk_sci_state_load(ref, gs, NULL, 0, &err), 0);
        assert_memory_equal(st->gs, gs, sizeof gs);
        assert_memory_equal(st->node_free, ref->node_free, c->nodes * sizeof *st->node_free);
        assert_memory_equal(st->pod_free, ref->pod_free, st->pods * sizeof *st->pod_free);
        assert_int_equal(wk_sci_free(st), wk_sci_free(ref));
        assert_memory_equal(st->blen, ref->blen, (st->max_node + 1) * sizeof *st->blen);
    }
    wk_sci_state_free(st);
    wk_sci_state_free(ref);
    cluster_free(&tc);
}

/* Many rounds of random changes: after each, the incremental reload (its
 * buckets re-sorted from their bitsets, the node terms summed over the
 * nodes with free GPUs only) equals a full load bit for bit, with and
 * without outsourcing (which gives idle nodes a term), and both anneal the
 * same way from the same seed. */
static void test_sci_reload_rounds_equal_full_loads(void **state)
{
    (void)state;
    TestCluster tc;
    cluster_yaml(&tc, "cluster: {nodes: 24, gpus_per_node: 8, nodes_per_pod: 6,\n"
                      "          fabric: {kind: rail, tiers: 3, radix: 16, link_gbps: 200}}\n");
    const WkCluster *c = &tc.c;
    for (int outsource = 0; outsource < 2; outsource++) {
        WkSciParams p;
        wk_sci_defaults(&p);
        p.use_outsourcing = outsource;
        WkSciState *inc, *full;
        WkError err;
        assert_int_equal(wk_sci_state_new(&inc, c, &p, &err), 0);
        assert_int_equal(wk_sci_state_new(&full, c, &p, &err), 0);
        uint8_t *gs = calloc(c->gpus, 1);
        WkRng *chg;
        assert_int_equal(wk_rng_new(&chg, 11, "test.sci.chg", &err), 0);
        for (int round = 0; round < 40; round++) {
            uint32_t changed[6], nch = 0;
            for (int k = 0; round && k < 6; k++) { /* some nodes change between rounds */
                uint32_t nd = wk_rng_uint(chg, c->nodes), g0 = c->node_first_gpu[nd];
                for (uint32_t g = g0; g < c->node_first_gpu[nd + 1]; g++)
                    gs[g] = wk_rng_uniform(chg) < 0.5 ? WK_SCI_USED : wk_rng_uniform(chg) < 0.1 ? WK_SCI_DOWN : WK_SCI_FREE;
                changed[nch++] = nd;
            }
            WkSciJob jobs[] = {
                {.gpus = 1 + round % 13, .rho = 1, .wait_s = 600},
                {.gpus = 8 + round % 5, .rho = 0.5, .wait_s = 3600},
            };
            assert_int_equal(wk_sci_state_reload(inc, gs, round ? changed : NULL, nch, jobs, 2, &err), 0);
            assert_int_equal(wk_sci_state_load(full, gs, jobs, 2, &err), 0);
            double ei = wk_sci_state_energy(inc), ef = wk_sci_state_energy(full), er = wk_sci_energy(full);
            assert_memory_equal(&ei, &ef, sizeof ei);
            assert_memory_equal(&ef, &er, sizeof ef);
            WkRng *r1, *r2;
            WkSciAnnealStats a1, a2;
            assert_int_equal(wk_rng_new(&r1, (uint64_t)round + 1, "test.sci", &err), 0);
            assert_int_equal(wk_rng_new(&r2, (uint64_t)round + 1, "test.sci", &err), 0);
            assert_int_equal(wk_sci_anneal(inc, r1, &a1), 0);
            assert_int_equal(wk_sci_anneal(full, r2, &a2), 0);
            assert_memory_equal(&a1.e_after, &a2.e_after, sizeof a1.e_after);
            assert_int_equal(a1.accepted, a2.accepted);
            for (uint32_t i = 0; i < 2; i++) {
                const uint32_t *bi = wk_sci_block(inc, i), *bf = wk_sci_block(full, i);
                assert_true((bi == NULL) == (bf == NULL));
                if (bi)
                    assert_memory_equal(bi, bf, jobs[i].gpus * sizeof *bi);
            }
            wk_rng_free(r1);
            wk_rng_free(r2);
        }
        wk_rng_free(chg);
        free(gs);
        wk_sci_state_free(inc);
        wk_sci_state_free(full);
    }
    cluster_free(&tc);
}

/* ---- whole runs ---- */

static const char *const mixed =
    "seed: 5\n"
    "cluster: {nodes: 32, gpus_per_node: 8, nodes_per_pod: 8,\n"
    "          fabric: {kind: rail, tiers: 3, radix: 16, link_gbps: 200}}\n"
    "workload:\n"
    "  source: synthetic\n"
    "  jobs: 400\n"
    "  interarrival: {dist: exponential, mean: 3m}\n"
    "  duration: {dist: lognormal, median: 1h, sigma: 1.2}\n"
    "  gpus: [{gpus: 1, weight: 3}, {gpus: 8, weight: 3}, {gpus: 32, weight: 2}, {gpus: 128, weight: 1}]\n"
    "scheduler: {name: sci, tick: 30m}\n";

static void test_sci_lowers_its_energy_in_the_rounds_it_applies(void **state)
{
    (void)state;
    TestRun t;
    test_run_yaml(&t, mixed, NULL);
    const WkSciStats *s = stats_of(&t);
    print_message("rounds %llu, annealed %llu, applied %llu, moves %llu, energy drop %.1f\n",
                  (unsigned long long)s->invocations, (unsigned long long)s->annealed,
                  (unsigned long long)s->commits, (unsigned long long)s->moves, s->energy_drop);
    assert_int_equal((int)test_metric(&t, "jobs_completed"), 400);
    assert_true(s->commits > 0 && s->moves > 0);
    assert_true(s->energy_drop > 0);
    assert_int_equal(s->safety_starts, 0); /* the annealer, not the fallback, started every head */
    test_run_free(&t);
}

/* A round in which the whole queue fits at its pinned blocks and no running
 * job may move anneals one sweep at the final temperature (nothing waits,
 * nothing moves); a round with a job left waiting runs the whole schedule. */
static void test_sci_anneals_briefly_when_nothing_waits_and_nothing_moves(void **state)
{
    (void)state;
    /* 256 GPUs, jobs of at most 16 GPUs an hour apart that run 10 minutes:
     * no job ever waits */
    const char *idle = "seed: 4\n"
                       "cluster: {nodes: 32, gpus_per_node: 8, nodes_per_pod: 8,\n"
                       "          fabric: {kind: rail, tiers: 3, radix: 16, link_gbps: 200}}\n"
                       "workload:\n"
                       "  source: synthetic\n"
                       "  jobs: 50\n"
                       "  interarrival: {dist: constant, value: 1h}\n"
                       "  duration: 10m\n"
                       "  gpus: [{gpus: 4, weight: 1}, {gpus: 16, weight: 1}]\n"
                       "scheduler: sci\n";
    TestRun t;
    test_run_yaml(&t, idle, NULL);
    const WkSciStats *s = stats_of(&t);
    assert_int_equal((int)test_metric(&t, "jobs_completed"), 50);
    assert_int_equal(s->settled, 50); /* one round per submission, each settled */
    assert_int_equal(s->annealed, 50);
    assert_int_equal(s->max_moves, 16); /* one sweep of SWEEP_MIN moves, not 21 of them */
    assert_int_equal(s->starts, 50);
    assert_int_equal(s->safety_starts, 0);
    test_run_free(&t);
    /* the mixed workload queues jobs: those rounds anneal */
    test_run_yaml(&t, mixed, NULL);
    s = stats_of(&t);
    assert_true(s->annealed > s->settled && s->max_moves > 16);
    test_run_free(&t);
}

static void test_sci_same_seed_gives_identical_summary_and_moves(void **state)
{
    (void)state;
    TestRun a, b, c;
    test_run_yaml(&a, mixed, NULL);
    test_run_yaml(&b, mixed, NULL);
    WkRunOpts o = {.has_seed = 1, .seed = 6};
    test_run_yaml(&c, mixed, &o);
    char *ja = wk_summary_json(&a.sum), *jb = wk_summary_json(&b.sum), *jc = wk_summary_json(&c.sum);
    assert_string_equal(ja, jb);
    assert_string_not_equal(ja, jc);
    const WkSciStats *sa = stats_of(&a), *sb = stats_of(&b);
    assert_true(sa->moves == sb->moves && sa->accepted == sb->accepted && sa->starts == sb->starts);
    assert_float_equal(sa->energy_drop, sb->energy_drop, 0);
    free(ja);
    free(jb);
    free(jc);
    test_run_free(&a);
    test_run_free(&b);
    test_run_free(&c);
}

static void test_sci_10k_gpus_with_1000_queued_jobs_stays_within_move_budget(void **state)
{
    (void)state;
    /* 10,240 GPUs; 1,200 jobs submitted one per second ask for ~13x the
     * cluster, so about a thousand wait at once. */
    const char *yaml = "seed: 3\n"
                       "cluster: {nodes: 1280, gpus_per_node: 8, nodes_per_pod: 32,\n"
                       "          fabric: {kind: rail, tiers: 3, radix: 64, link_gbps: 200}}\n"
                       "workload:\n"
                       "  source: synthetic\n"
                       "  jobs: 1200\n"
                       "  interarrival: {dist: exponential, mean: 1s}\n"
                       "  duration: {dist: lognormal, median: 1h, sigma: 0.5}\n"
                       "  gpus: [{gpus: 8, weight: 5}, {gpus: 64, weight: 3}, {gpus: 256, weight: 1.5},\n"
                       "         {gpus: 1024, weight: 0.5}]\n"
                       "sim: {sample_interval: 1d}\n"
                       "scheduler: {name: sci, moves: 400}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    const WkSciStats *s = stats_of(&t);
    print_message("longest queue %zu, rounds %llu, annealed %llu, moves %llu (max %u per round)\n", s->max_queue,
                  (unsigned long long)s->invocations, (unsigned long long)s->annealed,
                  (unsigned long long)s->moves, s->max_moves);
    assert_true(s->max_queue >= 900);
    assert_true(s->max_moves <= 400);
    assert_true(s->moves <= s->annealed * 400);
    assert_true(s->annealed <= s->invocations);
    assert_int_equal((int)test_metric(&t, "jobs_completed"), 1200);
    test_run_free(&t);
}

static void test_sci_backfills_behind_a_blocked_head_and_starts_it_on_release(void **state)
{
    (void)state;
    /* 16 GPUs. Job0 takes 12 for 10 s; job1 needs 8 and waits for job0;
     * job2 (1 GPU, 1 s) fits beside them and ends before job0 frees its
     * GPUs, so it runs at once; job1 starts the instant job0 ends. */
    const char *yaml = "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 12, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 8, duration: 5s}\n"
                       "    - {submit: 2s, gpus: 1, duration: 1s}\n"
                       "scheduler: sci\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 0).start, 0);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 2 * WK_NS_PER_S);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 10 * WK_NS_PER_S);
    test_run_free(&t);
}

/* 16 GPUs held by job 0 for 100 s while 35 jobs that fit 16 GPUs (20 of 4,
 * 10 of 8, 5 of 16) arrive; at its release all 35 fit at once. */
static void run_window(TestRun *t, const char *window)
{
    char yaml[4096];
    int k = snprintf(yaml, sizeof yaml,
                     "cluster: {nodes: 2, gpus_per_node: 8}\n"
                     "workload:\n  source: inline\n  jobs:\n    - {submit: 0, gpus: 16, duration: 100s}\n");
    for (int i = 1; i <= 35; i++)
        k += snprintf(yaml + k, sizeof yaml - (size_t)k, "    - {submit: %ds, gpus: %d, duration: 10s}\n", i,
                      i <= 20 ? 4 : i <= 30 ? 8 : 16);
    snprintf(yaml + k, sizeof yaml - (size_t)k, "scheduler: {name: sci, window: %s}\n", window);
    test_run_yaml(t, yaml, NULL);
    assert_int_equal((int)test_metric(t, "jobs_completed"), 36);
}

static void test_sci_window_caps_the_waiting_jobs_in_play_and_changes_nothing_below_it(void **state)
{
    (void)state;
    TestRun all, cut, wide;
    run_window(&all, "0");
    run_window(&cut, "10");
    run_window(&wide, "64");
    /* while job 0 holds every GPU no round loads a job; at its release all 35 fit */
    assert_int_equal(stats_of(&all)->max_in_play, 35);
    assert_int_equal(stats_of(&all)->windowed, 0);
    assert_int_equal(stats_of(&cut)->max_in_play, 10);
    assert_true(stats_of(&cut)->windowed >= 1);
    /* a window the round never reaches decides exactly as no window */
    assert_int_equal(stats_of(&wide)->windowed, 0);
    for (uint32_t j = 0; j < 36; j++)
        assert_int_equal(wk_run_hooks_job(wide.run, j).start, wk_run_hooks_job(all.run, j).start);
    test_run_free(&all);
    test_run_free(&cut);
    test_run_free(&wide);
}

static void test_sci_short_order_starts_the_smallest_gpu_time_first_until_starvation(void **state)
{
    (void)state;
    /* 16 GPUs held by job0 until 10 s; job1 (16 GPUs, 100 s) and job2 (16
     * GPUs, 5 s) wait. Arrival order starts job1 first; order: short starts
     * job2 first (80 against 1,600 GPU-seconds); with starve: 5s job1 has
     * waited 9 s at 10 s and goes first again. */
    const char *base = "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload:\n  source: inline\n  jobs:\n"
                       "    - {submit: 0, gpus: 16, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 16, duration: 100s}\n"
                       "    - {submit: 2s, gpus: 16, duration: 5s}\n";
    static const char *const sched[] = {"sci", "{name: sci, order: short}", "{name: sci, order: short, starve: 5s}"};
    static const int first[] = {1, 2, 1};
    for (int k = 0; k < 3; k++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml, "%sscheduler: %s\n", base, sched[k]);
        TestRun t;
        test_run_yaml(&t, yaml, NULL);
        int other = 3 - first[k];
        assert_int_equal(wk_run_hooks_job(t.run, (uint32_t)first[k]).start, 10 * WK_NS_PER_S);
        assert_true(wk_run_hooks_job(t.run, (uint32_t)other).start > 10 * WK_NS_PER_S);
        test_run_free(&t);
    }
}

static void test_sci_reservation_keeps_a_long_job_from_delaying_the_head(void **state)
{
    (void)state;
    /* The head (job1) needs all 16 GPUs at 10 s; job2 (1 GPU, 100 s) would
     * hold one of them. With the reservation it waits for job1; without, it
     * runs at once and job1 waits until it ends. */
    const char *base = "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 12, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 16, duration: 5s}\n"
                       "    - {submit: 2s, gpus: 1, duration: 100s}\n";
    char yaml[1024];
    TestRun t;
    snprintf(yaml, sizeof yaml, "%sscheduler: sci\n", base);
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 10 * WK_NS_PER_S);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 15 * WK_NS_PER_S);
    test_run_free(&t);
    snprintf(yaml, sizeof yaml, "%sscheduler: {name: sci, reserve: false}\n", base);
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 2).start, 2 * WK_NS_PER_S);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 102 * WK_NS_PER_S);
    test_run_free(&t);
}

static void test_sci_rejects_a_job_larger_than_the_cluster_at_submit(void **state)
{
    (void)state;
    const char *yaml = "cluster: {nodes: 1, gpus_per_node: 8}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 0, gpus: 16, duration: 10s}\n"
                       "    - {submit: 1s, gpus: 8, duration: 5s}\n"
                       "scheduler: sci\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal((int)test_metric(&t, "jobs_rejected"), 1);
    assert_int_equal(wk_run_hooks_job(t.run, 0).state, WK_JOB_REJECTED);
    assert_non_null(wk_run_hooks_job(t.run, 0).reject_reason);
    assert_int_equal(wk_run_hooks_job(t.run, 1).start, 1 * WK_NS_PER_S);
    test_run_free(&t);
}

/* One 8-GPU, 10-hour job on node 0 of two (node 1 runs at clock 0.95 from
 * the start, so node 0 is the better one); node 0's GPUs throttle to 0.5 at
 * 1 h; the scheduler ticks every 30 min. */
static uint32_t node_after_throttle(const char *extra, size_t *preemptions)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "cluster: {nodes: 2, gpus_per_node: 8}\n"
             "failures:\n"
             "  enabled: false\n"
             "  incidents:\n"
             "    - {at: 0, kind: throttle, node: 1, clock: 0.95, duration: 100h}\n"
             "    - {at: 1h, kind: throttle, node: 0, clock: 0.5, duration: 100h}\n"
             "sim: {end: 2h}\n"
             "workload:\n"
             "  source: inline\n"
             "  jobs:\n"
             "    - {submit: 1s, gpus: 8, duration: 10h}\n"
             "scheduler: {name: sci, tick: 30m%s}\n",
             extra);
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    assert_int_equal(wk_run_hooks_job(t.run, 0).state, WK_JOB_RUNNING);
    uint32_t node = wk_cluster_node_of(wk_run_hooks_cluster(t.run), wk_run_hooks_job(t.run, 0).gpus[0]);
    *preemptions = wk_run_hooks_job(t.run, 0).preemptions;
    test_run_free(&t);
    return node;
}

static void test_sci_migrates_a_long_job_off_throttled_gpus_only_when_allowed(void **state)
{
    (void)state;
    size_t pre;
    assert_int_equal(node_after_throttle(", migrate: true", &pre), 1);
    assert_int_equal(pre, 1);
    assert_int_equal(node_after_throttle("", &pre), 0);
    assert_int_equal(pre, 0);
}

static void test_sci_restarts_a_job_hit_by_a_failure_on_healthy_gpus(void **state)
{
    (void)state;
    /* The 8-GPU job starts on node 0 (node 1 runs at clock 0.95); GPU 3
     * fails at 1 h under it; after detection it restarts on node 1, the only
     * node with 8 usable GPUs. */
    const char *yaml = "cluster: {nodes: 2, gpus_per_node: 8}\n"
                       "failures:\n"
                       "  enabled: false\n"
                       "  incidents:\n"
                       "    - {at: 0, kind: throttle, node: 1, clock: 0.95, duration: 100h}\n"
                       "    - {at: 1h, kind: down, gpu: 3, duration: 100h}\n"
                       "sim: {end: 3h}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 1s, gpus: 8, duration: 10h}\n"
                       "scheduler: sci\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    WkRunJobView rtv = wk_run_hooks_job(t.run, 0);
    const WkRunJobView *rt = &rtv;
    assert_int_equal(rt->state, WK_JOB_RUNNING);
    assert_int_equal(rt->interruptions, 1);
    for (uint32_t k = 0; k < 8; k++)
        assert_int_equal(wk_cluster_node_of(wk_run_hooks_cluster(t.run), rt->gpus[k]), 1);
    test_run_free(&t);
}

static void test_sci_with_migration_under_failures_finishes_every_job(void **state)
{
    (void)state;
    /* Node outages, software faults and throttled GPUs every few hours on
     * 256 GPUs while sci may migrate on a 10-minute tick: hit jobs come back
     * through on_incident, running jobs move, and every job finishes. */
    const char *yaml = "seed: 9\n"
                       "cluster: {nodes: 32, gpus_per_node: 8, nodes_per_pod: 8,\n"
                       "          fabric: {kind: rail, tiers: 3, radix: 16, link_gbps: 200}}\n"
                       "failures:\n"
                       "  classes: {software: {mtbf: 2d}}\n"
                       "  processes:\n"
                       "    - {kind: down, scope: node, mtbf: 20h, duration: 1h}\n"
                       "    - {kind: throttle, scope: gpu, mtbf: 4h, duration: 3h, clock: 0.6}\n"
                       "workload:\n"
                       "  source: synthetic\n"
                       "  jobs: 300\n"
                       "  interarrival: {dist: exponential, mean: 8m}\n"
                       "  duration: {dist: lognormal, median: 2h, sigma: 1.0}\n"
                       "  gpus: [{gpus: 1, weight: 3}, {gpus: 8, weight: 3}, {gpus: 32, weight: 2}, {gpus: 64, weight: 1}]\n"
                       "scheduler: {name: sci, tick: 10m, migrate: true}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    const WkSciStats *s = stats_of(&t);
    print_message("interruptions %.0f, migrations %llu (%llu refused, %llu starts skipped), preemptions %.0f\n",
                  test_metric(&t, "interruptions"), (unsigned long long)s->migrations,
                  (unsigned long long)s->refused, (unsigned long long)s->blocked, test_metric(&t, "preemptions"));
    assert_int_equal((int)test_metric(&t, "jobs_completed"), 300);
    assert_true(test_metric(&t, "interruptions") > 0);
    assert_true(s->migrations > 0);
    assert_float_equal(test_metric(&t, "preemptions"), (double)s->migrations, 0);
    test_run_free(&t);
}

static void test_sci_leaves_a_hung_job_in_place_when_its_migration_is_refused(void **state)
{
    (void)state;
    /* Nodes 1, 3, 4 run at clock 0.9 from the start, so the two 8-GPU jobs
     * A and X take nodes 0 and 2. At 1 h node 0 throttles to 0.5 and a
     * software fault hangs A there (detected after 30 min); at 1h01 a GPU
     * of node 2 fails under X. When X is detected sci restarts it on a
     * 0.9 node and plans to move A to the other one — but the framework
     * will not stop a hung job: the move is refused and A stays until its
     * own fault is detected, then restarts off node 0. */
    const char *yaml = "cluster: {nodes: 5, gpus_per_node: 8}\n"
                       "failures:\n"
                       "  enabled: false\n"
                       "  nccl_timeout: 30m\n"
                       "  health_check: 1m\n"
                       "  incidents:\n"
                       "    - {at: 0, kind: throttle, node: 1, clock: 0.9, duration: 100h}\n"
                       "    - {at: 0, kind: throttle, node: 3, clock: 0.9, duration: 100h}\n"
                       "    - {at: 0, kind: throttle, node: 4, clock: 0.9, duration: 100h}\n"
                       "    - {at: 1h, kind: throttle, node: 0, clock: 0.5, duration: 100h}\n"
                       "    - {at: 1h, kind: software, node: 0}\n"
                       "    - {at: 61m, kind: down, gpu: 16, duration: 100h}\n"
                       "sim: {end: 3h}\n"
                       "workload:\n"
                       "  source: inline\n"
                       "  jobs:\n"
                       "    - {submit: 1s, gpus: 8, duration: 10h}\n"
                       "    - {submit: 1s, gpus: 8, duration: 10h}\n"
                       "scheduler: {name: sci, migrate: true}\n";
    TestRun t;
    test_run_yaml(&t, yaml, NULL);
    const WkSciStats *s = stats_of(&t);
    const WkCluster *c = wk_run_hooks_cluster(t.run);
    print_message("refused %llu, migrations %llu, interruptions %.0f\n", (unsigned long long)s->refused,
                  (unsigned long long)s->migrations, test_metric(&t, "interruptions"));
    assert_true(s->refused >= 1);
    assert_int_equal(s->migrations, 0);
    assert_int_equal((int)test_metric(&t, "interruptions"), 2);
    for (int j = 0; j < 2; j++) {
        assert_int_equal(wk_run_hooks_job(t.run, j).state, WK_JOB_RUNNING);
        uint32_t nd = wk_cluster_node_of(c, wk_run_hooks_job(t.run, j).gpus[0]);
        assert_true(nd == 1 || nd == 3 || nd == 4);
    }
    test_run_free(&t);
}

/* ---- the cascade model ---- */

static WkSciCascade cascade_of(const char *yaml)
{
    TestCluster tc;
    cluster_yaml(&tc, yaml);
    WkSciParams p;
    wk_sci_defaults(&p);
    WkSciCascade out;
    WkError err;
    assert_int_equal(wk_sci_cascade(&tc.c, &p.cascade, &out, &err), 0);
    cluster_free(&tc);
    return out;
}

static void test_sci_cascade_times_are_ordered_and_scale_with_the_topology(void **state)
{
    (void)state;
    /* paper-sci-10k's cluster; the same with half the pods; that with
     * radix-32 switches (a leaf serves 16 nodes: two leaf groups per pod);
     * NVL72-sized NVLink domains. */
    WkSciCascade a = cascade_of("cluster: {sku: A100-SXM-80G, nodes: 1280, gpus_per_node: 8, nodes_per_pod: 32,\n"
                                "  fabric: {kind: rail, tiers: 3, radix: 64, link_gbps: 200}}\n");
    WkSciCascade b = cascade_of("cluster: {sku: A100-SXM-80G, nodes: 640, gpus_per_node: 8, nodes_per_pod: 32,\n"
                                "  fabric: {kind: rail, tiers: 3, radix: 64, link_gbps: 200}}\n");
    WkSciCascade l = cascade_of("cluster: {sku: A100-SXM-80G, nodes: 640, gpus_per_node: 8, nodes_per_pod: 32,\n"
                                "  fabric: {kind: rail, tiers: 3, radix: 32, link_gbps: 200}}\n");
    WkSciCascade d = cascade_of("cluster: {sku: H100-SXM-80G, nodes: 1296, gpus_per_node: 4, nvlink_domain: 72,\n"
                                "  nodes_per_pod: 36, fabric: {kind: rail, tiers: 3, radix: 64, link_gbps: 400}}\n");
    print_message("cascade 10k: NVLink %.0f us, leaf %.0f us, pod %.0f us, cluster %.0f us (fan-out %u/%u/%u/%u)\n",
                  a.nvlink_s * 1e6, a.leaf_s * 1e6, a.pod_s * 1e6, a.cluster_s * 1e6, a.fan[0], a.fan[1], a.fan[2],
                  a.fan[3]);
    print_message("5k: cluster %.0f us; radix 32: pod %.0f us; NVL72: NVLink %.0f us\n", b.cluster_s * 1e6,
                  l.pod_s * 1e6, d.nvlink_s * 1e6);
    assert_true(a.nvlink_s > 0);
    assert_true(a.nvlink_s < a.leaf_s && a.leaf_s <= a.pod_s && a.pod_s < a.cluster_s);
    assert_int_equal(a.fan[0], 8);
    assert_int_equal(a.fan[3], 40);
    /* twice the pods: one more doubling round across pods, nothing else */
    assert_float_equal(b.nvlink_s, a.nvlink_s, 1e-15);
    assert_float_equal(b.pod_s, a.pod_s, 1e-15);
    assert_true(a.cluster_s > b.cluster_s);
    /* smaller leaves: a pod spans more leaf groups, so reaching it takes longer */
    assert_true(l.fan[1] < b.fan[1] && l.fan[2] == 2 && l.pod_s > b.pod_s);
    /* a 72-GPU NVLink domain takes more rounds than an 8-GPU one */
    assert_true(d.nvlink_s > a.nvlink_s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sci_annealing_lowers_the_energy_of_a_fixed_state),
        cmocka_unit_test(test_sci_never_beats_brute_force_optimum_and_can_match_it),
        cmocka_unit_test(test_sci_lowers_its_energy_in_the_rounds_it_applies),
        cmocka_unit_test(test_sci_same_seed_gives_identical_summary_and_moves),
        cmocka_unit_test(test_sci_10k_gpus_with_1000_queued_jobs_stays_within_move_budget),
        cmocka_unit_test(test_sci_backfills_behind_a_blocked_head_and_starts_it_on_release),
        cmocka_unit_test(test_sci_reservation_keeps_a_long_job_from_delaying_the_head),
        cmocka_unit_test(test_sci_short_order_starts_the_smallest_gpu_time_first_until_starvation),
        cmocka_unit_test(test_sci_rejects_a_job_larger_than_the_cluster_at_submit),
        cmocka_unit_test(test_sci_window_caps_the_waiting_jobs_in_play_and_changes_nothing_below_it),
        cmocka_unit_test(test_sci_migrates_a_long_job_off_throttled_gpus_only_when_allowed),
        cmocka_unit_test(test_sci_restarts_a_job_hit_by_a_failure_on_healthy_gpus),
        cmocka_unit_test(test_sci_with_migration_under_failures_finishes_every_job),
        cmocka_unit_test(test_sci_leaves_a_hung_job_in_place_when_its_migration_is_refused),
        cmocka_unit_test(test_sci_cascade_times_are_ordered_and_scale_with_the_topology),
        cmocka_unit_test(test_sci_reload_of_changed_nodes_equals_a_full_load),
        cmocka_unit_test(test_sci_reload_rounds_equal_full_loads),
        cmocka_unit_test(test_sci_gives_back_blocks_in_any_rank_order),
        cmocka_unit_test(test_sci_anneals_briefly_when_nothing_waits_and_nothing_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
