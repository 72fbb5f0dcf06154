/* SPDX-License-Identifier: Apache-2.0 */
/* test_share_storage.c — `cluster.storage.sharing` against closed forms
 * (docs/models.md, "Storage nodes on the fabric"): one ring flow of job 0
 * (GPU 0 to GPU 1, on one leaf) and one checkpoint write of job 1 from
 * GPU 0's NIC to the storage node share GPU 0's NIC uplink, raised to 1.5 L
 * (L = 50 GB/s, the fabric's link rate and the rings' cap; the write's
 * other links: a leaf uplink of L, the storage side 400 GB/s).
 *   fair:     max-min on 1.5 L: the ring 0.75 L, the write 0.75 L;
 *   priority: the ring alone, at its cap L; the write 1.5 L - L = 0.5 L;
 *             the ring's job stalled: the write min(1.5 L, L) = L; the ring
 *             gone: L as well; two writes from that NIC: each 0.25 L, the
 *             pair solved in the storage network, and the one left 0.5 L,
 *             alone again (the closed form).
 * Dataset reads (a transfer with a demand cap) from one storage node of
 * B = 12.5 GB/s to NICs of 50 GB/s, under both: one read of demand 0.4 B
 * gets 0.4 B; two of 0.8 B get B / 2 each; demands 0.3 B and 0.9 B get
 * 0.3 B and 0.7 B (max-min with demands). */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/state/share.h"
#include "models/topo/cluster.h"

#define L 50e9

static const char *const yaml_fmt =
    "cluster:\n"
    "  sku: H100-SXM-80G\n"
    "  nodes: 8\n"
    "  gpus_per_node: 1\n"
    "  fabric: {kind: fat-tree, radix: 8, link_gbps: 400}\n"
    "  storage: {nodes: 1, nic_gbps: 3200%s}\n";

typedef struct {
    WkDoc *doc;
    WkCluster c;
    WkShare s;
    uint32_t *ring, nring, wr;
} Fix;

static void near(double got, double want, double tol)
{
    if (fabs(got - want) > tol)
        fail_msg("%.6g, want %.6g", got, want);
}

static int all(uint32_t job, void *user)
{
    (void)job;
    (void)user;
    return 1;
}

/* Set up the cluster (sharing: "" = the default), the ring and the write,
 * and solve. */
static void setup_fix(Fix *x, const char *sharing)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, yaml_fmt, sharing);
    WkError err;
    wk_error_clear(&err);
    *x = (Fix){0};
    assert_int_equal(wk_doc_load_string(&x->doc, "c.yaml", yaml, strlen(yaml), &err), 0);
    assert_int_equal(wk_cluster_parse(wk_node_get(x->doc->root, "cluster"), &x->c, &err), 0);
    assert_int_equal(wk_share_init(&x->s, &x->c, 3, &err), 0);
    WkLinkId path[WK_FABRIC_MAX_HOPS];
    int n = wk_cluster_path(&x->c, 0, 1, path);
    assert_int_equal(n, 2); /* up to the leaf, down to GPU 1's NIC */
    wk_share_set_link(&x->s, wk_fabric_physical(path[0]), 1.5 * L);
    uint32_t edge[2] = {0, 1}, gpu = 0;
    assert_int_equal(wk_share_add(&x->s, &x->c, 0, edge, 1, &x->ring, &x->nring, NULL, &err), 0);
    assert_int_equal(wk_share_xfer_add(&x->s, &x->c, 1, &gpu, 1, 0, 0, &x->wr, &err), 0);
    assert_int_equal(x->nring, 1);
    assert_int_equal(wk_share_xfer_flows(&x->s, x->wr), 1);
    uint32_t *jobs;
    size_t nj;
    int moved;
    assert_int_equal(wk_share_solve(&x->s, UINT32_MAX, all, NULL, &jobs, &nj, &err), 0);
    free(jobs);
    assert_int_equal(wk_share_store_solve(&x->s, &moved, &err), 0);
}

static void teardown_fix(Fix *x)
{
    free(x->ring);
    wk_share_fini(&x->s);
    wk_cluster_fini(&x->c);
    wk_doc_free(x->doc);
}

static double ring_rate(const Fix *x)
{
    return wk_share_min_rate(&x->s, x->ring, x->nring, INFINITY);
}

static double write_rate(const Fix *x)
{
    return wk_share_xfer_rate(&x->s, x->wr);
}

static void test_fair_halves_the_shared_link(void **state)
{
    (void)state;
    const char *const spell[] = {"", ", sharing: fair"};
    for (int i = 0; i < 2; i++) {
        Fix x;
        setup_fix(&x, spell[i]);
        assert_null(x.s.store);
        near(ring_rate(&x), 0.75 * L, 1e-6 * L);
        near(write_rate(&x), 0.75 * L, 1e-6 * L);
        teardown_fix(&x);
    }
}

static void test_priority_leaves_storage_what_the_ring_does_not_take(void **state)
{
    (void)state;
    Fix x;
    setup_fix(&x, ", sharing: priority");
    assert_non_null(x.s.store);
    near(ring_rate(&x), L, 1e-6 * L);
    near(write_rate(&x), 0.5 * L, 1e-6 * L);

    /* the ring's job stalls on a transfer of its own: its ring carries
     * nothing, the write is bounded by its leaf uplink (L) */
    WkError err;
    wk_error_clear(&err);
    int moved;
    wk_share_idle(&x.s, 0, x.ring, x.nring, 1);
    assert_int_equal(wk_share_store_solve(&x.s, &moved, &err), 0);
    assert_int_equal(moved, 1);
    near(write_rate(&x), L, 1e-6 * L);
    near(ring_rate(&x), L, 1e-6 * L); /* the rings do not move */
    wk_share_idle(&x.s, 0, x.ring, x.nring, 0);
    assert_int_equal(wk_share_store_solve(&x.s, &moved, &err), 0);
    assert_int_equal(moved, 1);
    near(write_rate(&x), 0.5 * L, 1e-6 * L);

    /* a second write from the same NIC (job 2): the two share what the
     * ring leaves, 0.25 L each; the first ends, the second has 0.5 L */
    uint32_t gpu = 0, wr2;
    assert_int_equal(wk_share_xfer_add(&x.s, &x.c, 2, &gpu, 1, 0, 0, &wr2, &err), 0);
    assert_int_equal(wk_share_store_solve(&x.s, &moved, &err), 0);
    assert_int_equal(moved, 1);
    near(write_rate(&x), 0.25 * L, 1e-6 * L);
    near(wk_share_xfer_rate(&x.s, wr2), 0.25 * L, 1e-6 * L);
    assert_int_equal(wk_flownet_count(x.s.store), 2);
    wk_share_xfer_remove(&x.s, wr2);
    assert_int_equal(wk_share_store_solve(&x.s, &moved, &err), 0);
    assert_int_equal(moved, 1);
    assert_int_equal(wk_flownet_count(x.s.store), 0);
    near(write_rate(&x), 0.5 * L, 1e-6 * L);

    /* nothing changed: nothing moves */
    assert_int_equal(wk_share_store_solve(&x.s, &moved, &err), 0);
    assert_int_equal(moved, 0);

    /* the ring goes: the write gets what its leaf uplink carries */
    wk_share_remove(&x.s, x.ring, x.nring);
    uint32_t *jobs;
    size_t nj;
    assert_int_equal(wk_share_solve(&x.s, UINT32_MAX, all, NULL, &jobs, &nj, &err), 0);
    free(jobs);
    assert_int_equal(wk_share_store_solve(&x.s, &moved, &err), 0);
    assert_int_equal(moved, 1);
    near(write_rate(&x), L, 1e-6 * L);
    teardown_fix(&x);
}

/* Rates of reads of demands d[0..n) (in units of B) from GPUs 0, 1, ... */
static void reads(const char *sharing, const double *d, const double *want, int n)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "cluster:\n  sku: H100-SXM-80G\n  nodes: 8\n  gpus_per_node: 1\n"
             "  fabric: {kind: fat-tree, radix: 8, link_gbps: 400}\n"
             "  storage: {nodes: 1, nic_gbps: 100, sharing: %s}\n",
             sharing);
    const double B = 12.5e9;
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc;
    WkCluster c;
    WkShare s;
    assert_int_equal(wk_doc_load_string(&doc, "c.yaml", yaml, strlen(yaml), &err), 0);
    assert_int_equal(wk_cluster_parse(wk_node_get(doc->root, "cluster"), &c, &err), 0);
    assert_int_equal(wk_share_init(&s, &c, 4, &err), 0);
    uint32_t tid[4];
    for (int i = 0; i < n; i++) {
        uint32_t gpu = (uint32_t)i;
        assert_int_equal(wk_share_xfer_add(&s, &c, (uint32_t)i, &gpu, 1, 1, d[i] * B, &tid[i], &err), 0);
    }
    uint32_t *jobs;
    size_t nj;
    int moved;
    assert_int_equal(wk_share_solve(&s, UINT32_MAX, all, NULL, &jobs, &nj, &err), 0);
    free(jobs);
    assert_int_equal(wk_share_store_solve(&s, &moved, &err), 0);
    for (int i = 0; i < n; i++)
        near(wk_share_xfer_rate(&s, tid[i]), want[i] * B, 1e-9 * B);
    wk_share_fini(&s);
    wk_cluster_fini(&c);
    wk_doc_free(doc);
}

static void test_reads_take_at_most_their_demand(void **state)
{
    (void)state;
    const char *const sharing[] = {"fair", "priority"};
    for (int k = 0; k < 2; k++) {
        reads(sharing[k], (const double[]){0.4}, (const double[]){0.4}, 1);
        reads(sharing[k], (const double[]){0.8, 0.8}, (const double[]){0.5, 0.5}, 2);
        reads(sharing[k], (const double[]){0.3, 0.9}, (const double[]){0.3, 0.7}, 2);
        reads(sharing[k], (const double[]){2, 2, 2}, (const double[]){1.0 / 3, 1.0 / 3, 1.0 / 3}, 3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_take_at_most_their_demand),
        cmocka_unit_test(test_fair_halves_the_shared_link),
        cmocka_unit_test(test_priority_leaves_storage_what_the_ring_does_not_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
