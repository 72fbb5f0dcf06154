/* SPDX-License-Identifier: Apache-2.0 */
/* test_fabric.c — the fat-tree fabric: k-ary closed-form counts and link
 * ids, DGX SuperPOD reference counts, hand-derived paths, path consistency
 * against an independent wiring decoder, switch port budgets, ECMP spread,
 * bisection, limit errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/topo/fabric.h"

#define BW 50e9 /* 400 Gb/s in bytes/s */

/* ---- helpers ------------------------------------------------------------ */

static WkFabricSpec fattree(uint32_t radix, int tiers, uint32_t nics)
{
    WkFabricSpec s = {
        .kind = WK_FABRIC_FATTREE,
        .tiers = tiers,
        .radix = radix,
        .link_bytes_per_s = BW,
        .link_latency_s = 1e-6,
        .nics = nics,
        .nics_present = nics,
        .rails = 1,
        .oversub = {1, 1},
    };
    return s;
}

static WkFabricSpec rail(uint32_t radix, int tiers, uint32_t rails, uint32_t nodes_per_pod, uint32_t pods)
{
    WkFabricSpec s = {
        .kind = WK_FABRIC_RAIL,
        .tiers = tiers,
        .radix = radix,
        .link_bytes_per_s = BW,
        .link_latency_s = 1e-6,
        .nics = pods * nodes_per_pod * rails,
        .nics_present = pods * nodes_per_pod * rails,
        .nics_per_pod = nodes_per_pod * rails,
        .rails = rails,
        .oversub = {1, 1},
    };
    return s;
}

/* A DGX SuperPOD of su scalable units: 32 nodes x 8 rails per SU, radix 64. */
static WkFabricSpec superpod(uint32_t su, int tiers)
{
    return rail(64, tiers, 8, 32, su);
}

static void build_ok(const WkFabricSpec *s, WkFabric *f)
{
    WkError err;
    wk_error_clear(&err);
    int rc = wk_fabric_build(s, f, &err);
    if (rc != 0)
        print_error("unexpected error %d: %s\n", rc, err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(err.code, 0);
}

/* Build expecting failure with code and every fragment of parts (NULL-ended)
 * in the message; where stays empty. */
static void build_fails(const WkFabricSpec *s, int code, const char *const *parts)
{
    WkFabric f;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_fabric_build(s, &f, &err);
    int ok = rc == code && err.code == code;
    for (const char *const *p = parts; *p; p++)
        ok = ok && strstr(err.msg, *p) != NULL;
    if (!ok)
        print_error("got rc %d msg '%s'\n", rc, err.msg);
    assert_int_equal(rc, code);
    assert_int_equal(err.code, code);
    assert_string_equal(err.where, "");
    for (const char *const *p = parts; *p; p++)
        assert_non_null(strstr(err.msg, *p));
    assert_int_equal(f.leaves, 0);
}

/* ---- an independent wiring decoder, from the documented numbering -------- */

typedef struct {
    int tier;      /* 0 NIC, 1 leaf, 2 spine, 3 core */
    uint64_t idx;
} Sw;

typedef struct {
    int dir;       /* 0 up, 1 down */
    Sw lo, hi;     /* lower and upper end */
} Hop;

static uint64_t t_leaf_of(const WkFabric *f, uint64_t nic)
{
    if (f->spec.kind == WK_FABRIC_FATTREE)
        return nic / f->leaf_down;
    uint64_t per = f->spec.nics_per_pod, rails = f->spec.rails;
    uint64_t pod = nic / per, node = nic % per / rails, r = nic % rails;
    return pod * f->leaves_per_pod + r * f->leaves_per_rail + node / f->leaf_down;
}

static Hop decode(const WkFabric *f, WkLinkId id)
{
    Hop h = {.dir = (int)(id % 2)};
    uint64_t p = id / 2;
    uint64_t nics = f->spec.nics, nleafup = (uint64_t)f->leaves * f->leaf_up;
    if (p < nics) {
        h.lo = (Sw){0, p};
        h.hi = (Sw){1, t_leaf_of(f, p)};
    } else if (p < nics + nleafup) {
        uint64_t q = p - nics, l = q / f->leaf_up, u = q % f->leaf_up;
        h.lo = (Sw){1, l};
        if (f->spec.tiers == 2) {
            h.hi = (Sw){2, (l * f->leaf_up + u) % f->spines};
        } else {
            uint64_t pod = l / f->leaves_per_pod, m = l % f->leaves_per_pod;
            h.hi = (Sw){2, pod * f->spines_per_pod + (m * f->leaf_up + u) % f->spines_per_pod};
        }
    } else {
        uint64_t q = p - nics - nleafup, s = q / f->spine_up, v = q % f->spine_up;
        assert_true(f->spec.tiers == 3);
        assert_true(s < f->spines);
        uint64_t pod = s / f->spines_per_pod, j = s % f->spines_per_pod;
        h.lo = (Sw){2, s};
        h.hi = (Sw){3, j * f->cores_per_group + (pod * f->spine_up + v) % f->cores_per_group};
    }
    return h;
}

static int same_sw(Sw a, Sw b)
{
    return a.tier == b.tier && a.idx == b.idx;
}

/* The path a→b climbs from NIC a, turns at one switch and descends to NIC b,
 * every link joining the switch the previous one reached; its length matches
 * the class. */
static void check_path(const WkFabric *f, uint32_t a, uint32_t b)
{
    WkLinkId p[WK_FABRIC_MAX_HOPS], q[WK_FABRIC_MAX_HOPS];
    int n = wk_fabric_path(f, a, b, p);
    static const int len_of[] = {0, 2, 4, 6};
    WkPathClass c = wk_fabric_class(f, a, b);
    int want = c == WK_PATH_CROSS_POD && f->spec.tiers == 2 ? 4 : len_of[c];
    if (n != want)
        print_error("%u->%u: class %s but %d links\n", a, b, wk_path_class_name(c), n);
    assert_int_equal(n, want);
    assert_int_equal(wk_fabric_path(f, a, b, q), n);
    assert_memory_equal(p, q, (size_t)n * sizeof *p);
    if (n == 0) {
        assert_int_equal(a, b);
        return;
    }
    uint64_t phys = (uint64_t)f->spec.nics + (uint64_t)f->leaves * f->leaf_up + (uint64_t)f->spines * f->spine_up;
    Hop h[WK_FABRIC_MAX_HOPS];
    for (int i = 0; i < n; i++) {
        assert_true(p[i] < 2 * phys);
        h[i] = decode(f, p[i]);
        assert_int_equal(h[i].dir, i < n / 2 ? 0 : 1);
    }
    assert_true(same_sw(h[0].lo, (Sw){0, a}));
    assert_true(same_sw(h[n - 1].lo, (Sw){0, b}));
    for (int i = 0; i + 1 < n / 2; i++)
        assert_true(same_sw(h[i].hi, h[i + 1].lo));
    assert_true(same_sw(h[n / 2 - 1].hi, h[n / 2].hi)); /* the turn */
    for (int i = n / 2; i + 1 < n; i++)
        assert_true(same_sw(h[i].lo, h[i + 1].hi));
}

static void check_all_pairs(const WkFabric *f)
{
    for (uint32_t a = 0; a < f->spec.nics; a++)
        for (uint32_t b = 0; b < f->spec.nics; b++)
            check_path(f, a, b);
}

/* Count, via the decoder, the ports every spine and core uses and check that
 * each leaf reaches every spine of its group and each spine every core of its
 * group, within the switch radix. */
static void check_port_budget(const WkFabric *f)
{
    uint32_t k = f->spec.radix;
    uint64_t nics = f->spec.nics, nleafup = (uint64_t)f->leaves * f->leaf_up;
    uint32_t *spine_down = calloc(f->spines, sizeof *spine_down);
    uint32_t *core_down = calloc(f->cores ? f->cores : 1, sizeof *core_down);
    uint32_t group = f->spec.tiers == 2 ? f->spines : f->spines_per_pod;
    unsigned char *seen = calloc((size_t)f->leaves * group, 1);
    assert_non_null(spine_down);
    assert_non_null(core_down);
    assert_non_null(seen);
    for (uint64_t p = nics; p < nics + nleafup; p++) {
        Hop h = decode(f, 2 * p);
        assert_true(h.hi.idx < f->spines);
        spine_down[h.hi.idx]++;
        uint64_t local = f->spec.tiers == 2 ? h.hi.idx : h.hi.idx % f->spines_per_pod;
        if (f->spec.tiers == 3)
            assert_int_equal(h.hi.idx / f->spines_per_pod, h.lo.idx / f->leaves_per_pod);
        seen[h.lo.idx * group + local] = 1;
    }
    for (uint64_t i = 0; i < (uint64_t)f->leaves * group; i++)
        assert_true(seen[i]);
    for (uint32_t s = 0; s < f->spines; s++)
        assert_true(spine_down[s] <= f->spine_down);
    free(seen);
    if (f->spec.tiers == 3) {
        uint32_t cpg = f->cores_per_group;
        seen = calloc((size_t)f->spines * cpg, 1);
        assert_non_null(seen);
        for (uint64_t p = nics + nleafup; p < nics + nleafup + (uint64_t)f->spines * f->spine_up; p++) {
            Hop h = decode(f, 2 * p);
            assert_true(h.hi.idx < f->cores);
            assert_int_equal(h.hi.idx / cpg, h.lo.idx % f->spines_per_pod); /* core group j */
            core_down[h.hi.idx]++;
            seen[h.lo.idx * cpg + h.hi.idx % cpg] = 1;
        }
        for (uint64_t i = 0; i < (uint64_t)f->spines * cpg; i++)
            assert_true(seen[i]);
        for (uint32_t c = 0; c < f->cores; c++)
            assert_true(core_down[c] <= k);
        free(seen);
    }
    free(spine_down);
    free(core_down);
}

/* ---- counts ------------------------------------------------------------- */

static void test_kary_fat_tree_counts_match_al_fares(void **state)
{
    (void)state;
    static const uint32_t ks[] = {4, 8, 16, 64};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        uint64_t k = ks[i];
        WkFabricSpec s = fattree((uint32_t)k, 3, (uint32_t)(k * k * k / 4));
        WkFabric f;
        build_ok(&s, &f);
        print_message("k=%llu: %u hosts, %u edge, %u aggregation, %u core, %u pods, %llu links, %llu optics\n",
                      (unsigned long long)k, s.nics, f.leaves, f.spines, f.cores, f.pods,
                      (unsigned long long)f.links, (unsigned long long)f.optics);
        assert_int_equal(f.leaf_down, k / 2);
        assert_int_equal(f.leaf_up, k / 2);
        assert_int_equal(f.spine_down, k / 2);
        assert_int_equal(f.spine_up, k / 2);
        assert_int_equal(f.pods, k);
        assert_int_equal(f.leaves, k * k / 2);
        assert_int_equal(f.spines, k * k / 2);
        assert_int_equal(f.cores, k * k / 4);
        assert_int_equal(f.links_nic_leaf, k * k * k / 4);
        assert_int_equal(f.links_leaf_spine, k * k * k / 4);
        assert_int_equal(f.links_spine_core, k * k * k / 4);
        assert_int_equal(f.links, 3 * k * k * k / 4);
        assert_int_equal(f.optics, 2 * f.links);
        assert_true(f.bisection_bytes_per_s == (double)(k * k * k / 4) * BW / 2);
    }
}

static void test_two_tiers_of_radix_64_reach_2048_endpoints(void **state)
{
    (void)state;
    WkFabric f;
    WkFabricSpec s = fattree(64, 2, 2048);
    build_ok(&s, &f);
    assert_int_equal(f.leaves, 64);
    assert_int_equal(f.spines, 32);
    assert_int_equal(f.cores, 0);
    assert_int_equal(f.spine_down, 64);
    assert_int_equal(f.spine_up, 0);
    assert_int_equal(f.links, 2048 + 2048);
    s.nics = s.nics_present = 2049;
    build_fails(&s, WK_E_RANGE, (const char *const[]){"at most 64 leaves", "2048 NICs", "65 leaves", NULL});
}

static void test_superpod_reference_counts(void **state)
{
    (void)state;
    static const struct {
        uint32_t su;
        int tiers;
        uint32_t leaves, spines, cores;
    } ref[] = {
        {4, 2, 32, 16, 0},       /* NVIDIA reference */
        {16, 3, 128, 128, 64},   /* NVIDIA reference */
        {40, 3, 320, 320, 160},  /* by this rule (10,240 GPUs) */
        {64, 3, 512, 512, 256},  /* NVIDIA reference */
    };
    for (size_t i = 0; i < sizeof ref / sizeof *ref; i++) {
        WkFabricSpec s = superpod(ref[i].su, ref[i].tiers);
        WkFabric f;
        build_ok(&s, &f);
        print_message("%u SU = %u GPUs, %d tiers: %u leaf, %u spine, %u core (%u spines/pod, %u cores/group); "
                      "links %llu NIC-leaf + %llu leaf-spine + %llu spine-core = %llu, optics %llu\n",
                      ref[i].su, s.nics, s.tiers, f.leaves, f.spines, f.cores, f.spines_per_pod, f.cores_per_group,
                      (unsigned long long)f.links_nic_leaf, (unsigned long long)f.links_leaf_spine,
                      (unsigned long long)f.links_spine_core, (unsigned long long)f.links,
                      (unsigned long long)f.optics);
        assert_int_equal(s.nics, ref[i].su * 256);
        assert_int_equal(f.pods, ref[i].su);
        assert_int_equal(f.leaves_per_rail, 1);
        assert_int_equal(f.leaves_per_pod, 8);
        assert_int_equal(f.leaves, ref[i].leaves);
        assert_int_equal(f.spines, ref[i].spines);
        assert_int_equal(f.cores, ref[i].cores);
        assert_int_equal(f.links_leaf_spine, (uint64_t)ref[i].leaves * 32);
        assert_int_equal(f.links_spine_core, ref[i].tiers == 3 ? (uint64_t)ref[i].spines * 32 : 0);
        assert_true(f.bisection_bytes_per_s == (double)s.nics * BW / 2);
    }
}

static void test_fewer_present_nics_count_fewer_links_not_fewer_switches(void **state)
{
    (void)state;
    WkFabricSpec s = superpod(4, 2);
    s.nics_present = 1000;
    WkFabric f;
    build_ok(&s, &f);
    assert_int_equal(f.leaves, 32);
    assert_int_equal(f.spines, 16);
    assert_int_equal(f.links_nic_leaf, 1000);
    assert_int_equal(f.links, 1000 + 1024);
    assert_int_equal(f.optics, 2 * (1000 + 1024));
    assert_true(f.bisection_bytes_per_s == 1000 * BW / 2);
    /* link ids still cover every NIC slot: 1,024 slots + 32 leaves x 32 uplinks */
    assert_int_equal(wk_fabric_link_ids(&f), 1024 + 1024);
    assert_int_equal(wk_fabric_uplinks(&f), 32 * 32);
    assert_int_equal(wk_fabric_switches(&f), 32 + 16);
    assert_int_equal(wk_fabric_spine_uplink(&f, 0, 0), wk_fabric_link_ids(&f)); /* 2 tiers: no spine uplinks */
}

static void test_rail_leaf_and_pod_of_follow_the_rail_rule(void **state)
{
    (void)state;
    /* radix 8: 4 down ports; 2 rails, 6 nodes per pod -> 2 leaves per rail,
     * 4 leaves per pod. NIC 21 = pod 1, i 9: node 4, rail 1 -> leaf 4+2+1 = 7. */
    WkFabricSpec s = rail(8, 3, 2, 6, 3);
    WkFabric f;
    build_ok(&s, &f);
    assert_int_equal(f.leaves_per_rail, 2);
    assert_int_equal(f.leaves_per_pod, 4);
    assert_int_equal(f.leaves, 12);
    assert_int_equal(wk_fabric_leaf_of(&f, 21), 7);
    assert_int_equal(wk_fabric_pod_of(&f, 21), 1);
    assert_int_equal(wk_fabric_leaf_of(&f, 0), 0);
    assert_int_equal(wk_fabric_leaf_of(&f, 1), 2);  /* rail 1 of pod 0 */
    assert_int_equal(wk_fabric_leaf_of(&f, 8), 1);  /* node 4, rail 0 */
    assert_int_equal(wk_fabric_leaf_of(&f, 35), 11);
    assert_int_equal(wk_fabric_pod_of(&f, 35), 2);
    assert_int_equal(wk_fabric_class(&f, 0, 2), WK_PATH_LEAF);      /* nodes 0 and 1, rail 0 */
    assert_int_equal(wk_fabric_class(&f, 0, 1), WK_PATH_POD);       /* another rail */
    assert_int_equal(wk_fabric_class(&f, 0, 12), WK_PATH_CROSS_POD);
    assert_int_equal(wk_fabric_class(&f, 5, 5), WK_PATH_LOCAL);
}

/* ---- paths -------------------------------------------------------------- */

static void test_forced_paths_match_hand_derived_link_ids(void **state)
{
    (void)state;
    /* radix 4 at 3:1 everywhere: 3 down + 1 up, so no equal-cost choice.
     * Fat-tree of 36 NICs: 12 leaves, pods of 3 leaves -> 4 pods, 1 spine per
     * pod, 1 core. Physical links: NICs [0,36), leaf l uplink 36+l, spine s
     * uplink 48+s. */
    WkFabricSpec s = fattree(4, 3, 36);
    s.oversub[0] = s.oversub[1] = 3;
    WkFabric f;
    build_ok(&s, &f);
    assert_int_equal(f.leaf_down, 3);
    assert_int_equal(f.leaf_up, 1);
    assert_int_equal(f.pods, 4);
    assert_int_equal(f.spines, 4);
    assert_int_equal(f.cores, 1);
    WkLinkId p[WK_FABRIC_MAX_HOPS];
    assert_int_equal(wk_fabric_path(&f, 7, 7, p), 0);
    assert_int_equal(wk_fabric_class(&f, 7, 7), WK_PATH_LOCAL);

    assert_int_equal(wk_fabric_class(&f, 0, 1), WK_PATH_LEAF);
    assert_int_equal(wk_fabric_path(&f, 0, 1, p), 2);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 3);

    assert_int_equal(wk_fabric_class(&f, 0, 4), WK_PATH_POD);
    assert_int_equal(wk_fabric_path(&f, 0, 4, p), 4);
    WkLinkId pod[] = {0, 2 * 36, 2 * 37 + 1, 2 * 4 + 1};
    assert_memory_equal(p, pod, sizeof pod);

    assert_int_equal(wk_fabric_class(&f, 0, 35), WK_PATH_CROSS_POD);
    assert_int_equal(wk_fabric_path(&f, 0, 35, p), 6);
    WkLinkId cross[] = {0, 2 * 36, 2 * 48, 2 * 51 + 1, 2 * 47 + 1, 2 * 35 + 1};
    assert_memory_equal(p, cross, sizeof cross);
}

static void test_ecmp_paths_match_hand_derivation_given_the_hashed_choice(void **state)
{
    (void)state;
    /* k = 8 fat-tree: 128 NICs, leaf l uplink u = link 128+4l+u goes to spine
     * u of its pod; spine s uplink v = 256+4s+v goes to core 4*(s%4)+v. NIC 0
     * (leaf 0, pod 0) to NIC 127 (leaf 31, pod 7) via spine j = u, core v:
     * down through pod 7's spine j uplink v and leaf 31's uplink j. */
    WkFabricSpec s = fattree(8, 3, 128);
    WkFabric f;
    build_ok(&s, &f);
    WkLinkId p[WK_FABRIC_MAX_HOPS];
    assert_int_equal(wk_fabric_path(&f, 0, 127, p), 6);
    assert_int_equal(p[0], 0);
    assert_true(p[1] >= 2 * 128 && p[1] < 2 * 132 && p[1] % 2 == 0);
    uint64_t j = p[1] / 2 - 128;
    assert_true(p[2] >= 2 * (256 + 4 * j) && p[2] < 2 * (256 + 4 * j + 4) && p[2] % 2 == 0);
    uint64_t v = p[2] / 2 - 256 - 4 * j;
    assert_int_equal(p[3], 2 * (256 + (7 * 4 + j) * 4 + v) + 1);
    assert_int_equal(p[4], 2 * (128 + 31 * 4 + j) + 1);
    assert_int_equal(p[5], 2 * 127 + 1);

    /* 2 tiers, rail: radix 8, 2 rails, 4 nodes per pod, 4 pods: 8 leaves, 4
     * spines, leaf l uplink u (link 32+4l+u) to spine u. NIC 13 is pod 1,
     * rail 1 -> leaf 3. */
    WkFabricSpec r = rail(8, 2, 2, 4, 4);
    build_ok(&r, &f);
    assert_int_equal(f.spines, 4);
    assert_int_equal(wk_fabric_leaf_of(&f, 13), 3);
    assert_int_equal(wk_fabric_class(&f, 0, 13), WK_PATH_CROSS_POD);
    assert_int_equal(wk_fabric_path(&f, 0, 13, p), 4);
    assert_int_equal(p[0], 0);
    assert_true(p[1] >= 2 * 32 && p[1] < 2 * 36 && p[1] % 2 == 0);
    assert_int_equal(p[2], p[1] + 2 * 12 + 1);
    assert_int_equal(p[3], 2 * 13 + 1);
}

static void test_every_path_is_consistent_and_repeatable_in_small_fabrics(void **state)
{
    (void)state;
    WkFabricSpec specs[] = {
        fattree(8, 3, 128),   /* k-ary, 4 spines per pod, 4 cores per group */
        fattree(8, 3, 100),   /* partial last pod */
        fattree(8, 2, 8),     /* 2 leaves on 1 spine: 4 parallel uplinks each */
        fattree(8, 2, 28),    /* 7 leaves, 4 spines */
        rail(8, 3, 2, 6, 5),  /* 4 leaves, 4 spines per pod; 3 cores per group (rotation) */
        rail(8, 2, 2, 4, 3),  /* 6 leaves, 3 spines for 4 uplinks (rotation) */
        rail(8, 3, 4, 3, 4),  /* half-empty leaves */
    };
    WkFabricSpec os = fattree(8, 3, 150);
    os.oversub[0] = 3; /* 6 down, 2 up */
    WkFabric f;
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        build_ok(&specs[i], &f);
        check_all_pairs(&f);
        check_port_budget(&f);
    }
    build_ok(&os, &f);
    assert_int_equal(f.leaf_down, 6);
    assert_int_equal(f.leaf_up, 2);
    check_all_pairs(&f);
    check_port_budget(&f);
}

static void test_wiring_stays_within_switch_radix_at_superpod_scale(void **state)
{
    (void)state;
    /* 40 SU: 20 cores per group, 32 uplinks per spine; "uplink v -> core
     * v % 20" would put 80 links on 12 of the 20 cores of radix 64. */
    static const uint32_t sus[] = {4, 16, 40, 64};
    for (size_t i = 0; i < sizeof sus / sizeof *sus; i++) {
        WkFabricSpec s = superpod(sus[i], sus[i] <= 4 ? 2 : 3);
        WkFabric f;
        build_ok(&s, &f);
        check_port_budget(&f);
        for (uint32_t a = 0; a < s.nics; a += 97)
            for (uint32_t b = 0; b < s.nics; b += 61)
                check_path(&f, a, b);
    }
}

static void test_different_pairs_spread_over_uplinks_and_cores(void **state)
{
    (void)state;
    WkFabricSpec s = superpod(16, 3);
    WkFabric f;
    build_ok(&s, &f);
    /* NIC 0 to every NIC of the other pods: 3840 flows over 32 leaf uplinks
     * and 32 spine uplinks; each should carry ~120. */
    uint32_t leaf_up[32] = {0}, spine_up[32] = {0};
    WkLinkId p[WK_FABRIC_MAX_HOPS];
    uint64_t leaf0 = s.nics, spine0 = s.nics + (uint64_t)f.leaves * f.leaf_up;
    for (uint32_t b = 256; b < s.nics; b++) {
        assert_int_equal(wk_fabric_path(&f, 0, b, p), 6);
        uint64_t u = p[1] / 2 - leaf0, sv = p[2] / 2 - spine0;
        assert_true(u < 32);
        leaf_up[u]++;
        spine_up[sv % 32]++;
    }
    for (int i = 0; i < 32; i++) {
        assert_in_range(leaf_up[i], 60, 180);
        assert_in_range(spine_up[i], 60, 180);
    }
    /* the reverse direction is a different pair and hashes independently */
    int differ = 0;
    WkLinkId q[WK_FABRIC_MAX_HOPS];
    for (uint32_t b = 256; b < 512; b++) {
        wk_fabric_path(&f, 0, b, p);
        wk_fabric_path(&f, 1, b, q); /* NIC 1: rail 1 of the same node */
        differ += p[1] - 2 * leaf0 != q[1] - 2 * (leaf0 + 32); /* compare uplink index */
    }
    assert_true(differ > 200);
}

static void test_port_split_is_exact_when_the_ratio_fits_the_radix(void **state)
{
    (void)state;
    static const struct {
        uint32_t k;
        double o;
        uint32_t down;
    } cases[] = {
        {64, 1, 32}, {64, 3, 48}, {12, 1.4, 7}, /* 12*1.4/2.4 is 6.999... in binary */
        {48, 1.4, 28}, {64, 2, 42},             /* 128/3: not exact, the spare port goes up */
        {8, 7, 7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        WkFabricSpec s = fattree(cases[i].k, 2, cases[i].k);
        s.oversub[0] = cases[i].o;
        WkFabric f;
        build_ok(&s, &f);
        assert_int_equal(f.leaf_down, cases[i].down);
        assert_int_equal(f.leaf_up, cases[i].k - cases[i].down);
    }
}

static void test_parallel_links_share_the_load_downward(void **state)
{
    (void)state;
    /* 4 SU: 32 uplinks per leaf onto 16 spines = 2 parallel links to each
     * spine. Flows into leaf 1 (rail 1 of pod 0) must use both links of each
     * pair, i.e. all 32 of leaf 1's uplinks downward. */
    WkFabricSpec s = superpod(4, 2);
    WkFabric f;
    build_ok(&s, &f);
    assert_int_equal(f.spines, 16);
    uint32_t used[32] = {0};
    WkLinkId p[WK_FABRIC_MAX_HOPS];
    for (uint32_t a = 0; a < s.nics; a += 8) /* rail 0 NICs, leaves of other pods and pod 0 */
        for (uint32_t node = 0; node < 32; node++) {
            uint32_t b = node * 8 + 1;
            assert_int_equal(wk_fabric_leaf_of(&f, b), 1);
            assert_int_equal(wk_fabric_path(&f, a, b, p), 4);
            uint64_t ub = p[2] / 2 - s.nics - 32;
            assert_true(ub < 32);
            used[ub]++;
        }
    for (int u = 0; u < 32; u++)
        assert_in_range(used[u], 128 / 2, 128 * 2); /* 4096 flows over 32 links: ~128 each */
}

static void test_path_class_names(void **state)
{
    (void)state;
    assert_string_equal(wk_path_class_name(WK_PATH_LOCAL), "local");
    assert_string_equal(wk_path_class_name(WK_PATH_LEAF), "leaf");
    assert_string_equal(wk_path_class_name(WK_PATH_POD), "pod");
    assert_string_equal(wk_path_class_name(WK_PATH_CROSS_POD), "cross-pod");
}

static void test_no_fabric_has_no_links(void **state)
{
    (void)state;
    WkFabricSpec s = {.kind = WK_FABRIC_NONE, .nics = 16};
    WkFabric f;
    build_ok(&s, &f);
    assert_int_equal(f.links, 0);
    assert_int_equal(wk_fabric_link_ids(&f), 0); /* NIC slots, but no cables */
    assert_int_equal(wk_fabric_uplinks(&f), 0);
    assert_int_equal(wk_fabric_switches(&f), 0);
    WkLinkId p[WK_FABRIC_MAX_HOPS];
    assert_int_equal(wk_fabric_class(&f, 0, 9), WK_PATH_LOCAL);
    assert_int_equal(wk_fabric_path(&f, 0, 9, p), 0);
}

/* ---- link ids ----------------------------------------------------------- */

static void test_link_ids_of_a_kary_fat_tree_match_the_closed_forms(void **state)
{
    (void)state;
    static const uint64_t ks[] = {4, 8, 16};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        uint64_t k = ks[i], hosts = k * k * k / 4;
        WkFabricSpec s = fattree((uint32_t)k, 3, (uint32_t)hosts);
        WkFabric f;
        build_ok(&s, &f);
        /* k^3/4 host cables, k^3/4 edge-aggregation, k^3/4 aggregation-core;
         * k^2/2 edge + k^2/2 aggregation + k^2/4 core switches */
        assert_int_equal(wk_fabric_link_ids(&f), 3 * hosts);
        assert_int_equal(wk_fabric_uplinks(&f), 2 * hosts);
        assert_int_equal(wk_fabric_switches(&f), 5 * k * k / 4);
        assert_int_equal(wk_fabric_nic_link(&f, (uint32_t)hosts - 1), hosts - 1);
        assert_int_equal(wk_fabric_uplink(&f, 0), hosts);
        assert_int_equal(wk_fabric_uplink(&f, 2 * hosts - 1), 3 * hosts - 1);
        assert_int_equal(wk_fabric_leaf_uplink(&f, 0, 0), hosts);
        assert_int_equal(wk_fabric_leaf_uplink(&f, f.leaves - 1, (uint32_t)k / 2 - 1), 2 * hosts - 1);
        assert_int_equal(wk_fabric_spine_uplink(&f, 0, 0), 2 * hosts);
        assert_int_equal(wk_fabric_spine_uplink(&f, f.spines - 1, (uint32_t)k / 2 - 1), 3 * hosts - 1);
        /* every id names the cable at its lower end; each aggregation switch
         * ends k/2 cables below and k/2 above, each core switch k (one per pod) */
        for (uint32_t l = 0; l < f.leaves; l++)
            for (uint32_t u = 0; u < f.leaf_up; u++)
                assert_int_equal(wk_fabric_link_lower(&f, wk_fabric_leaf_uplink(&f, l, u)), l);
        for (uint32_t sp = 0; sp < f.spines; sp++)
            for (uint32_t v = 0; v < f.spine_up; v++)
                assert_int_equal(wk_fabric_link_lower(&f, wk_fabric_spine_uplink(&f, sp, v)), f.leaves + sp);
        uint64_t nsw = wk_fabric_switches(&f);
        uint32_t *ends = calloc(nsw, sizeof *ends);
        assert_non_null(ends);
        for (uint64_t u = 0; u < wk_fabric_uplinks(&f); u++) {
            uint64_t l = wk_fabric_uplink(&f, u);
            ends[wk_fabric_link_upper(&f, l)]++;
            ends[wk_fabric_link_lower(&f, l)]++;
        }
        for (uint64_t sw = 0; sw < nsw; sw++)
            assert_int_equal(ends[sw], sw < f.leaves ? k / 2 : k);
        free(ends);
    }
}

static void test_paths_use_the_numbered_cables_and_the_leaf_class(void **state)
{
    (void)state;
    WkFabricSpec s = rail(8, 3, 2, 6, 3);
    WkFabric f;
    build_ok(&s, &f);
    for (uint32_t a = 0; a < s.nics; a++)
        for (uint32_t b = 0; b < s.nics; b++) {
            if (a == b)
                continue;
            WkPathClass c = wk_fabric_leaf_class(&f, wk_fabric_leaf_of(&f, a), wk_fabric_leaf_of(&f, b));
            assert_int_equal(c, wk_fabric_class(&f, a, b));
            WkLinkId p[WK_FABRIC_MAX_HOPS];
            int n = wk_fabric_path(&f, a, b, p);
            assert_int_equal(p[0], wk_fabric_directed(wk_fabric_nic_link(&f, a), 0));
            assert_int_equal(p[n - 1], wk_fabric_directed(wk_fabric_nic_link(&f, b), 1));
            for (int x = 1; x + 1 < n; x++) { /* switch-to-switch hops only in between */
                uint64_t ph = wk_fabric_physical(p[x]);
                assert_true(ph >= wk_fabric_uplink(&f, 0) && ph < wk_fabric_link_ids(&f));
                assert_int_equal(wk_fabric_directed(ph, x >= n / 2), p[x]);
            }
        }
}

/* ---- bisection ---------------------------------------------------------- */

static void test_three_to_one_leaf_oversubscription_cuts_bisection_by_three(void **state)
{
    (void)state;
    /* 2 tiers, 1536 NICs: 48 leaves of 32/32 vs 32 leaves of 48/16 */
    WkFabricSpec s = fattree(64, 2, 1536);
    WkFabric nb, o3;
    build_ok(&s, &nb);
    s.oversub[0] = 3;
    build_ok(&s, &o3);
    assert_int_equal(o3.leaf_down, 48);
    assert_int_equal(o3.leaf_up, 16);
    assert_int_equal(o3.leaves, 32);
    assert_true(nb.bisection_bytes_per_s == 1536 * BW / 2);
    assert_true(nb.bisection_bytes_per_s == 3 * o3.bisection_bytes_per_s);
    /* 3 tiers, 3072 NICs: 3 pods of 32x32 vs 2 pods of 32x48 */
    s = fattree(64, 3, 3072);
    build_ok(&s, &nb);
    s.oversub[0] = 3;
    build_ok(&s, &o3);
    assert_int_equal(nb.pods, 3);
    assert_int_equal(o3.pods, 2);
    assert_true(nb.bisection_bytes_per_s == 3072 * BW / 2);
    assert_true(nb.bisection_bytes_per_s == 3 * o3.bisection_bytes_per_s);
    /* 2:1 at the leaf halves it */
    s = fattree(60, 2, 1200);
    build_ok(&s, &nb);
    s.oversub[0] = 2;
    build_ok(&s, &o3);
    assert_int_equal(o3.leaf_down, 40);
    assert_true(nb.bisection_bytes_per_s == 2 * o3.bisection_bytes_per_s);
}

static void test_non_blocking_bisection_is_half_the_nics_in_two_and_three_tiers(void **state)
{
    (void)state;
    WkFabric f2, f3;
    WkFabricSpec s = fattree(64, 2, 2048);
    build_ok(&s, &f2);
    s.tiers = 3;
    build_ok(&s, &f3);
    assert_true(f2.bisection_bytes_per_s == 2048 * BW / 2);
    assert_true(f3.bisection_bytes_per_s == 2048 * BW / 2);
    /* spine oversubscription 3:1 in 3 tiers narrows the core cut */
    s = fattree(64, 3, 65536);
    s.oversub[1] = 3;
    build_ok(&s, &f3);
    assert_int_equal(f3.spine_down, 48);
    assert_true(f3.bisection_bytes_per_s == (double)f3.spines * 16 * BW / 2);
}

/* ---- errors ------------------------------------------------------------- */

static void test_limits_fail_with_messages_naming_the_numbers(void **state)
{
    (void)state;
    WkFabricSpec s = fattree(16, 3, 4096);
    build_fails(&s, WK_E_RANGE, (const char *const[]){"radix 16 with 3 tiers", "1024 NICs", "4096", NULL});
    s = fattree(2, 2, 4);
    build_fails(&s, WK_E_RANGE, (const char *const[]){"radix 2", "at least 4", NULL});
    s = superpod(40, 2);
    build_fails(&s, WK_E_RANGE,
                (const char *const[]){"2 tiers of radix 64", "at most 64 leaves", "320 leaves", "tiers: 3", NULL});
    s = superpod(65, 3);
    build_fails(&s, WK_E_RANGE, (const char *const[]){"radix 64 with 3 tiers", "16384 NICs", "65 pods", NULL});
    s = rail(16, 3, 8, 32, 2);
    build_fails(&s, WK_E_RANGE, (const char *const[]){"a pod needs 32 leaves", "only 8 down ports", NULL});
    s = fattree(63, 2, 64);
    build_fails(&s, WK_E_INVAL, (const char *const[]){"radix 63", "even", NULL});
    s = fattree(64, 4, 64);
    build_fails(&s, WK_E_INVAL, (const char *const[]){"2 or 3 tiers", "got 4", NULL});
    s = fattree(64, 1, 64);
    build_fails(&s, WK_E_INVAL, (const char *const[]){"got 1", NULL});
    s = fattree(4, 2, 4);
    s.oversub[0] = 0.1;
    build_fails(&s, WK_E_RANGE, (const char *const[]){"radix 4", "0 down", NULL});
    s.oversub[0] = 0;
    build_fails(&s, WK_E_INVAL, (const char *const[]){"leaf oversubscription", NULL});
    s = superpod(4, 2);
    s.nics = s.nics_present = s.nics - 8;
    build_fails(&s, WK_E_INVAL, (const char *const[]){"1016 NIC slots", "256-NIC pods", NULL});
    s = superpod(4, 2);
    s.nics_present = s.nics + 1;
    build_fails(&s, WK_E_INVAL, (const char *const[]){"1025 NICs present", NULL});
}

static void test_hundred_thousand_gpus_build(void **state)
{
    (void)state;
    WkFabric f;
    /* 32-node pods at radix 128 leave 56 of a spine's 64 down ports idle, and
     * a core reaches at most 128 pods: 32,768 GPUs, not 100,000. */
    WkFabricSpec s = rail(128, 3, 8, 32, 391);
    s.nics_present = 100000;
    build_fails(&s, WK_E_RANGE, (const char *const[]){"radix 128 with 3 tiers", "32768 NICs", "391 pods", NULL});
    /* 128-node pods (2 leaves per rail): 98 pods of 1,024 GPUs */
    s = rail(128, 3, 8, 128, 98);
    s.nics_present = 100000;
    build_ok(&s, &f);
    print_message("100k rail (128-node pods): %u pods, %u leaf, %u spine, %u core, %llu links, %llu optics\n", f.pods,
                  f.leaves, f.spines, f.cores, (unsigned long long)f.links, (unsigned long long)f.optics);
    assert_int_equal(f.leaves, 98 * 16);
    assert_int_equal(f.spines, 98 * 16);
    assert_int_equal(f.cores, 16 * 49);
    WkLinkId p[WK_FABRIC_MAX_HOPS];
    assert_int_equal(wk_fabric_path(&f, 0, 99999, p), 6);
    check_path(&f, 0, 99999);
    check_path(&f, 12345, 67890);
    s = fattree(128, 3, 100000);
    build_ok(&s, &f);
    print_message("100k fat-tree: %u pods, %u leaf, %u spine, %u core, %llu links, %llu optics\n", f.pods, f.leaves,
                  f.spines, f.cores, (unsigned long long)f.links, (unsigned long long)f.optics);
    assert_int_equal(f.leaves, 1563);
    assert_int_equal(f.pods, 25);
    check_path(&f, 0, 99999);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kary_fat_tree_counts_match_al_fares),
        cmocka_unit_test(test_two_tiers_of_radix_64_reach_2048_endpoints),
        cmocka_unit_test(test_superpod_reference_counts),
        cmocka_unit_test(test_fewer_present_nics_count_fewer_links_not_fewer_switches),
        cmocka_unit_test(test_rail_leaf_and_pod_of_follow_the_rail_rule),
        cmocka_unit_test(test_forced_paths_match_hand_derived_link_ids),
        cmocka_unit_test(test_ecmp_paths_match_hand_derivation_given_the_hashed_choice),
        cmocka_unit_test(test_every_path_is_consistent_and_repeatable_in_small_fabrics),
        cmocka_unit_test(test_wiring_stays_within_switch_radix_at_superpod_scale),
        cmocka_unit_test(test_different_pairs_spread_over_uplinks_and_cores),
        cmocka_unit_test(test_port_split_is_exact_when_the_ratio_fits_the_radix),
        cmocka_unit_test(test_parallel_links_share_the_load_downward),
        cmocka_unit_test(test_path_class_names),
        cmocka_unit_test(test_no_fabric_has_no_links),
        cmocka_unit_test(test_link_ids_of_a_kary_fat_tree_match_the_closed_forms),
        cmocka_unit_test(test_paths_use_the_numbered_cables_and_the_leaf_class),
        cmocka_unit_test(test_three_to_one_leaf_oversubscription_cuts_bisection_by_three),
        cmocka_unit_test(test_non_blocking_bisection_is_half_the_nics_in_two_and_three_tiers),
        cmocka_unit_test(test_limits_fail_with_messages_naming_the_numbers),
        cmocka_unit_test(test_hundred_thousand_gpus_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
