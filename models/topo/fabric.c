/* SPDX-License-Identifier: Apache-2.0 */
/* fabric.c — folded-Clos fat-tree arithmetic: port splits, switch and link
 * counts, bisection, and per-pair ECMP paths computed in O(1) from the NIC
 * ids. Nothing per link is stored; this is not the bandwidth-sharing model. */
#include "models/topo/fabric.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* ---- wiring rules ----------------------------------------------------------
 *
 * Port split: a switch of radix k with down:up ratio o gives
 *   down = floor(k*o/(1+o)), up = k - down.
 * The ratio is exact when k*o/(1+o) is an integer (k = 64: o = 1 → 32/32,
 * o = 3 → 48/16); otherwise the leftover port goes up (k = 64, o = 2 → 42/22).
 * The leaf uses oversub[0]; the spine of a 3-tier fabric uses oversub[1]; a
 * 2-tier spine uses all k ports downward. A rail leaf whose pod fills only
 * part of its down ports wires ceil(used / o) uplinks instead
 * (trim_rail_uplinks), so the ratio holds on the ports in use.
 *
 * Leaves. Rail: NIC n is in pod n / nics_per_pod, node (n % nics_per_pod) /
 * rails of the pod, rail n % rails; each rail of a pod has
 * leaves_per_rail = ceil(nodes_per_pod / leaf_down) leaves, filled in node
 * order. Fat-tree: NIC n is on leaf n / leaf_down; in 3 tiers a pod is
 * spine_down leaves (so every spine of the pod reaches every leaf of it; the
 * last pod may be partial, its spines are built whole); 2 tiers are one pod.
 *
 * Leaf → spine. A group of L leaves sharing S spines (2 tiers: all leaves and
 * S = ceil(L*leaf_up / k); 3 tiers: a pod's leaves and
 * S = spines_per_pod = ceil(leaves_per_pod*leaf_up / spine_down)) is wired
 * round-robin over the group's uplinks: leaf l (index within the group) uplink
 * u goes to spine (l*leaf_up + u) % S of the group. When S divides leaf_up
 * this is the plain rule "uplink u → spine u % S" (every SuperPOD size that
 * is a power of two); when it does not, the rotation keeps every spine at
 * ceil(L*leaf_up / S) <= its down ports, which "u % S" would not. Every leaf
 * reaches every spine of its group iff S <= leaf_up, i.e. iff L <= the spine's
 * down ports.
 *
 * Spine → core (3 tiers). Spine index j (within its pod) of every pod connects
 * to core group j of cores_per_group = ceil(pods*spine_up / k) cores; spine j
 * of pod p uplink v goes to core j*cores_per_group + (p*spine_up + v) %
 * cores_per_group (the same rotation, so no core exceeds k ports; e.g. 40 SU
 * at radix 64 has 20 cores per group and 32 uplinks per spine). Every spine
 * reaches every core of its group iff pods <= k.
 *
 * Links and optics: NIC-leaf links = nics_present, leaf-spine = leaves*leaf_up,
 * spine-core = spines*spine_up (3 tiers). Optics = 2 per link, NIC-leaf links
 * included (one transceiver at each end; DAC copper runs are not modelled).
 *
 * Bisection (one direction) = min(nics_present, leaves*leaf_up,
 * spines*spine_up [3 tiers]) * link_bytes_per_s / 2: the narrowest tier cut in
 * half. Exact for full leaves and spines; a k:1 leaf split divides it by k
 * when the split is exact. */

/* splitmix64 finaliser: the ECMP hash. */
static uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Next equal-cost choice in [0, n) from the hash stream in *h (n >= 1). */
static uint32_t pick(uint64_t *h, uint32_t n)
{
    *h = mix64(*h);
    return (uint32_t)(((*h >> 32) * (uint64_t)n) >> 32);
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static WkLinkId up(uint64_t phys)
{
    return 2 * phys;
}

static WkLinkId down(uint64_t phys)
{
    return 2 * phys + 1;
}

/* Down ports of a switch of radix k at down:up ratio o; 0 if o is unusable. */
static uint32_t split_down(uint32_t k, double o)
{
    double d = floor((double)k * o / (1.0 + o) + 1e-9);
    if (!(d >= 0))
        return 0;
    return d >= k ? k : (uint32_t)d;
}

static int check_ratio(double o, const char *which, WkError *err)
{
    if (!isfinite(o) || o <= 0)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                            "%s oversubscription must be a positive down:up ratio (1 = non-blocking), got %g", which,
                            o);
    return 0;
}

static int check_split(uint32_t k, double o, uint32_t dn, const char *which, WkError *err)
{
    if (dn == 0 || dn >= k)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                            "%s oversubscription %g:1 at radix %u leaves %u down and %u up ports; a switch needs at "
                            "least one of each",
                            which, o, (unsigned)k, (unsigned)dn, (unsigned)(k - dn));
    return 0;
}

static int check_u32(uint64_t v, const char *what, WkError *err)
{
    if (v > UINT32_MAX)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "the fabric needs %llu %s, more than 2^32",
                            (unsigned long long)v, what);
    return 0;
}

static int check_spec(const WkFabricSpec *s, WkError *err)
{
    if (s->kind != WK_FABRIC_RAIL && s->kind != WK_FABRIC_FATTREE)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "unknown fabric kind %d", (int)s->kind);
    if (s->tiers != 2 && s->tiers != 3)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "a fabric has 2 or 3 tiers, got %d", s->tiers);
    if (s->radix < 4)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "radix %u is too small: a switch needs at least 4 ports",
                            (unsigned)s->radix);
    if (s->radix % 2)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "radix %u is odd: the radix must be even",
                            (unsigned)s->radix);
    if (!isfinite(s->link_bytes_per_s) || s->link_bytes_per_s <= 0)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "link bandwidth must be positive, got %g bytes/s",
                            s->link_bytes_per_s);
    if (!isfinite(s->link_latency_s) || s->link_latency_s < 0)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "link latency must be >= 0, got %g s", s->link_latency_s);
    if (s->nics == 0)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "a fabric needs at least one NIC slot");
    if (s->nics_present > s->nics)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%u NICs present but only %u NIC slots",
                            (unsigned)s->nics_present, (unsigned)s->nics);
    if (s->kind == WK_FABRIC_RAIL) {
        if (s->rails == 0 || s->nics_per_pod == 0 || s->nics_per_pod % s->rails)
            return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                                "a rail pod of %u NICs is not a whole number of %u-rail nodes",
                                (unsigned)s->nics_per_pod, (unsigned)s->rails);
        if (s->nics % s->nics_per_pod)
            return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                                "%u NIC slots is not a whole number of %u-NIC pods (pad the last pod)",
                                (unsigned)s->nics, (unsigned)s->nics_per_pod);
    }
    int rc;
    if ((rc = check_ratio(s->oversub[0], "leaf", err)) < 0)
        return rc;
    if (s->tiers == 3 && (rc = check_ratio(s->oversub[1], "spine", err)) < 0)
        return rc;
    return 0;
}

/* A rail leaf serves at most min(leaf_down, nodes_per_pod) NICs (one per node
 * of its pod and rail). Wire only the uplinks the ratio asks for on those
 * ports, ceil(used / o), so the configured oversubscription holds on the
 * ports in use: a 32-node SU on 64-port leaves at 2:1 gets 16 uplinks per
 * leaf, not 22. Non-blocking full leaves are unchanged. */
static void trim_rail_uplinks(WkFabric *f, uint32_t nodes_per_pod)
{
    uint32_t used = nodes_per_pod < f->leaf_down ? nodes_per_pod : f->leaf_down;
    uint32_t up = (uint32_t)ceil((double)used / f->spec.oversub[0] - 1e-9);
    if (up >= 1 && up < f->leaf_up)
        f->leaf_up = up;
}

static int build_two_tiers(WkFabric *f, WkError *err)
{
    const WkFabricSpec *s = &f->spec;
    uint32_t k = s->radix;
    uint64_t leaves;
    if (s->kind == WK_FABRIC_RAIL) {
        f->pods = s->nics / s->nics_per_pod;
        uint32_t nodes_per_pod = s->nics_per_pod / s->rails;
        f->leaves_per_rail = (uint32_t)ceil_div(nodes_per_pod, f->leaf_down);
        trim_rail_uplinks(f, nodes_per_pod);
        uint64_t lpp = (uint64_t)s->rails * f->leaves_per_rail;
        leaves = (uint64_t)f->pods * lpp;
        if (leaves > k)
            return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                                "2 tiers of radix %u hold at most %u leaves (%llu pods of %llu leaves = %llu NICs); "
                                "the cluster needs %llu leaves: use tiers: 3 or a larger radix",
                                (unsigned)k, (unsigned)k, (unsigned long long)(k / lpp), (unsigned long long)lpp,
                                (unsigned long long)(k / lpp * s->nics_per_pod), (unsigned long long)leaves);
        f->leaves_per_pod = (uint32_t)lpp;
    } else {
        leaves = ceil_div(s->nics, f->leaf_down);
        if (leaves > k)
            return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                                "2 tiers of radix %u hold at most %u leaves (%llu NICs at %u per leaf); the cluster "
                                "needs %llu leaves: use tiers: 3 or a larger radix",
                                (unsigned)k, (unsigned)k, (unsigned long long)k * f->leaf_down,
                                (unsigned)f->leaf_down, (unsigned long long)leaves);
        f->pods = 1;
        f->leaves_per_pod = (uint32_t)leaves;
    }
    f->leaves = (uint32_t)leaves;
    f->spines = (uint32_t)ceil_div(leaves * f->leaf_up, k); /* <= leaf_up since leaves <= k */
    f->spines_per_pod = 0;
    f->cores_per_group = 0;
    f->cores = 0;
    return 0;
}

static int build_three_tiers(WkFabric *f, WkError *err)
{
    const WkFabricSpec *s = &f->spec;
    uint32_t k = s->radix;
    uint64_t leaves, lpp, nics_per_pod;
    if (s->kind == WK_FABRIC_RAIL) {
        uint32_t nodes_per_pod = s->nics_per_pod / s->rails;
        f->leaves_per_rail = (uint32_t)ceil_div(nodes_per_pod, f->leaf_down);
        trim_rail_uplinks(f, nodes_per_pod);
        lpp = (uint64_t)s->rails * f->leaves_per_rail;
        if (lpp > f->spine_down)
            return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                                "a pod needs %llu leaves (%u rails x %u) but a spine has only %u down ports: use "
                                "smaller pods, fewer rails or a larger radix",
                                (unsigned long long)lpp, (unsigned)s->rails, (unsigned)f->leaves_per_rail,
                                (unsigned)f->spine_down);
        f->pods = s->nics / s->nics_per_pod;
        leaves = (uint64_t)f->pods * lpp;
        nics_per_pod = s->nics_per_pod;
    } else {
        lpp = f->spine_down;
        leaves = ceil_div(s->nics, f->leaf_down);
        f->pods = (uint32_t)ceil_div(leaves, lpp);
        nics_per_pod = lpp * f->leaf_down;
    }
    if (f->pods > k)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                            "radix %u with 3 tiers holds at most %llu NICs (%u pods of %llu), the cluster has %u "
                            "(%u pods): use a larger radix%s",
                            (unsigned)k, (unsigned long long)k * nics_per_pod, (unsigned)k,
                            (unsigned long long)nics_per_pod, (unsigned)s->nics, (unsigned)f->pods,
                            s->kind == WK_FABRIC_RAIL ? " or larger pods" : "");
    int rc;
    if ((rc = check_u32(leaves, "leaves", err)) < 0)
        return rc;
    f->leaves = (uint32_t)leaves;
    f->leaves_per_pod = (uint32_t)lpp;
    /* <= leaf_up since lpp <= spine_down; cores_per_group <= spine_up since pods <= k */
    f->spines_per_pod = (uint32_t)ceil_div(lpp * f->leaf_up, f->spine_down);
    f->cores_per_group = (uint32_t)ceil_div((uint64_t)f->pods * f->spine_up, k);
    uint64_t spines = (uint64_t)f->pods * f->spines_per_pod;
    uint64_t cores = (uint64_t)f->spines_per_pod * f->cores_per_group;
    if ((rc = check_u32(spines, "spines", err)) < 0 || (rc = check_u32(cores, "cores", err)) < 0)
        return rc;
    f->spines = (uint32_t)spines;
    f->cores = (uint32_t)cores;
    return 0;
}

int wk_fabric_build(const WkFabricSpec *spec, WkFabric *out, WkError *err)
{
    assert(spec && out);
    memset(out, 0, sizeof *out);
    out->spec = *spec;
    if (spec->kind == WK_FABRIC_NONE)
        return 0;
    int rc = check_spec(spec, err);
    if (rc < 0)
        goto fail;
    uint32_t k = spec->radix;
    out->leaf_down = split_down(k, spec->oversub[0]);
    if ((rc = check_split(k, spec->oversub[0], out->leaf_down, "leaf", err)) < 0)
        goto fail;
    out->leaf_up = k - out->leaf_down;
    if (spec->tiers == 3) {
        out->spine_down = split_down(k, spec->oversub[1]);
        if ((rc = check_split(k, spec->oversub[1], out->spine_down, "spine", err)) < 0)
            goto fail;
        out->spine_up = k - out->spine_down;
        rc = build_three_tiers(out, err);
    } else {
        out->spine_down = k;
        out->spine_up = 0;
        rc = build_two_tiers(out, err);
    }
    if (rc < 0)
        goto fail;

    out->links_nic_leaf = spec->nics_present;
    out->links_leaf_spine = (uint64_t)out->leaves * out->leaf_up;
    out->links_spine_core = (uint64_t)out->spines * out->spine_up;
    out->links = out->links_nic_leaf + out->links_leaf_spine + out->links_spine_core;
    out->optics = 2 * out->links;
    uint64_t cut = out->links_nic_leaf;
    if (out->links_leaf_spine < cut)
        cut = out->links_leaf_spine;
    if (spec->tiers == 3 && out->links_spine_core < cut)
        cut = out->links_spine_core;
    out->bisection_bytes_per_s = (double)cut * spec->link_bytes_per_s / 2;
    return 0;
fail:
    memset(out, 0, sizeof *out);
    out->spec = *spec;
    return rc;
}

uint32_t wk_fabric_leaf_of(const WkFabric *f, uint32_t nic)
{
    const WkFabricSpec *s = &f->spec;
    if (s->kind == WK_FABRIC_NONE)
        return 0;
    assert(nic < s->nics);
    if (s->kind == WK_FABRIC_FATTREE)
        return nic / f->leaf_down;
    uint32_t pod = nic / s->nics_per_pod, i = nic % s->nics_per_pod;
    uint32_t node = i / s->rails, rail = i % s->rails;
    return pod * f->leaves_per_pod + rail * f->leaves_per_rail + node / f->leaf_down;
}

uint32_t wk_fabric_pod_of(const WkFabric *f, uint32_t nic)
{
    const WkFabricSpec *s = &f->spec;
    if (s->kind == WK_FABRIC_NONE)
        return 0;
    assert(nic < s->nics);
    if (s->kind == WK_FABRIC_RAIL)
        return nic / s->nics_per_pod;
    return s->tiers == 2 ? 0 : nic / f->leaf_down / f->leaves_per_pod;
}

WkPathClass wk_fabric_class(const WkFabric *f, uint32_t a, uint32_t b)
{
    if (a == b || f->spec.kind == WK_FABRIC_NONE)
        return WK_PATH_LOCAL;
    return wk_fabric_leaf_class(f, wk_fabric_leaf_of(f, a), wk_fabric_leaf_of(f, b));
}

/* Uplink of a group member that reaches group switch `target` when member m's
 * uplink u goes to (m*nup + u) % ngroup: the first such u is
 * (target - m*nup) mod ngroup, further parallel ones every ngroup ports. */
static uint32_t uplink_to(uint64_t *h, uint32_t m, uint32_t nup, uint32_t ngroup, uint32_t target)
{
    uint32_t off = (uint32_t)(((uint64_t)m * nup) % ngroup);
    uint32_t u0 = (target + ngroup - off) % ngroup;
    uint32_t parallel = (nup - 1 - u0) / ngroup + 1;
    return parallel > 1 ? u0 + pick(h, parallel) * ngroup : u0;
}

int wk_fabric_path(const WkFabric *f, uint32_t a, uint32_t b, WkLinkId *out)
{
    return wk_fabric_path_salted(f, a, b, 0, out);
}

int wk_fabric_path_salted(const WkFabric *f, uint32_t a, uint32_t b, uint64_t salt, WkLinkId *out)
{
    const WkFabricSpec *s = &f->spec;
    WkPathClass c = wk_fabric_class(f, a, b);
    if (c == WK_PATH_LOCAL)
        return 0;
    uint32_t la = wk_fabric_leaf_of(f, a), lb = wk_fabric_leaf_of(f, b);
    out[0] = up(wk_fabric_nic_link(f, a));
    if (c == WK_PATH_LEAF) {
        out[1] = down(wk_fabric_nic_link(f, b));
        return 2;
    }
    uint64_t h = (((uint64_t)a << 32) | b) ^ (salt * UINT64_C(0x9e3779b97f4a7c15));
    uint32_t ua = pick(&h, f->leaf_up), ub;
    if (s->tiers == 2) {
        /* one group: all leaves, all spines */
        uint32_t spine = (uint32_t)(((uint64_t)la * f->leaf_up + ua) % f->spines);
        ub = uplink_to(&h, lb, f->leaf_up, f->spines, spine);
        out[1] = up(wk_fabric_leaf_uplink(f, la, ua));
        out[2] = down(wk_fabric_leaf_uplink(f, lb, ub));
        out[3] = down(wk_fabric_nic_link(f, b));
        return 4;
    }
    uint32_t lpp = f->leaves_per_pod, spp = f->spines_per_pod;
    uint32_t pa = la / lpp, pb = lb / lpp;
    uint32_t ma = la % lpp, mb = lb % lpp;
    uint32_t j = (uint32_t)(((uint64_t)ma * f->leaf_up + ua) % spp); /* spine index within the pod */
    out[1] = up(wk_fabric_leaf_uplink(f, la, ua));
    if (c == WK_PATH_POD) {
        ub = uplink_to(&h, mb, f->leaf_up, spp, j);
        out[2] = down(wk_fabric_leaf_uplink(f, lb, ub));
        out[3] = down(wk_fabric_nic_link(f, b));
        return 4;
    }
    uint32_t cpg = f->cores_per_group;
    uint32_t va = pick(&h, f->spine_up);
    uint32_t core = (uint32_t)(((uint64_t)pa * f->spine_up + va) % cpg); /* within group j */
    uint32_t vb = uplink_to(&h, pb, f->spine_up, cpg, core);
    ub = uplink_to(&h, mb, f->leaf_up, spp, j);
    uint32_t sa = pa * spp + j, sb = pb * spp + j; /* < spines */
    out[2] = up(wk_fabric_spine_uplink(f, sa, va));
    out[3] = down(wk_fabric_spine_uplink(f, sb, vb));
    out[4] = down(wk_fabric_leaf_uplink(f, lb, ub));
    out[5] = down(wk_fabric_nic_link(f, b));
    return 6;
}

int wk_fabric_path_top(const WkFabric *f, uint32_t a, uint64_t key, WkLinkId *out)
{
    uint32_t la = wk_fabric_leaf_of(f, a);
    out[0] = up(wk_fabric_nic_link(f, a));
    if (!f->leaf_up)
        return 1;
    uint64_t h = ((uint64_t)a << 32) ^ (key * UINT64_C(0x9e3779b97f4a7c15));
    uint32_t ua = pick(&h, f->leaf_up);
    out[1] = up(wk_fabric_leaf_uplink(f, la, ua));
    if (f->spec.tiers == 2 || !f->spine_up || !f->spines_per_pod)
        return 2;
    uint32_t lpp = f->leaves_per_pod, spp = f->spines_per_pod;
    uint32_t j = (uint32_t)(((uint64_t)(la % lpp) * f->leaf_up + ua) % spp);
    out[2] = up(wk_fabric_spine_uplink(f, la / lpp * spp + j, pick(&h, f->spine_up)));
    return 3;
}

const char *wk_path_class_name(WkPathClass c)
{
    switch (c) {
    case WK_PATH_LOCAL:
        return "local";
    case WK_PATH_LEAF:
        return "leaf";
    case WK_PATH_POD:
        return "pod";
    case WK_PATH_CROSS_POD:
        return "cross-pod";
    }
    return "unknown";
}

uint64_t wk_fabric_uplinks(const WkFabric *f)
{
    if (f->spec.kind == WK_FABRIC_NONE)
        return 0;
    return (uint64_t)f->leaves * f->leaf_up + (uint64_t)f->spines * f->spine_up;
}

uint64_t wk_fabric_link_ids(const WkFabric *f)
{
    return f->spec.kind == WK_FABRIC_NONE ? 0 : f->spec.nics + wk_fabric_uplinks(f);
}

uint64_t wk_fabric_nic_link(const WkFabric *f, uint32_t nic)
{
    (void)f;
    return nic;
}

uint64_t wk_fabric_uplink(const WkFabric *f, uint64_t i)
{
    return f->spec.nics + i;
}

uint64_t wk_fabric_leaf_uplink(const WkFabric *f, uint32_t leaf, uint32_t u)
{
    return wk_fabric_uplink(f, (uint64_t)leaf * f->leaf_up + u);
}

uint64_t wk_fabric_spine_uplink(const WkFabric *f, uint32_t spine, uint32_t v)
{
    return wk_fabric_uplink(f, (uint64_t)f->leaves * f->leaf_up + (uint64_t)spine * f->spine_up + v);
}

uint64_t wk_fabric_switches(const WkFabric *f)
{
    return f->spec.kind == WK_FABRIC_NONE ? 0 : (uint64_t)f->leaves + f->spines + f->cores;
}

int64_t wk_fabric_link_upper(const WkFabric *f, uint64_t phys)
{
    if (phys >= wk_fabric_link_ids(f))
        return -1;
    uint64_t leaf_base = wk_fabric_uplink(f, 0), spine_base = wk_fabric_spine_uplink(f, 0, 0);
    if (phys < leaf_base)
        return wk_fabric_leaf_of(f, (uint32_t)phys);
    if (phys < spine_base) {
        uint64_t l = (phys - leaf_base) / f->leaf_up, u = (phys - leaf_base) % f->leaf_up;
        if (f->spec.tiers == 2)
            return (int64_t)(f->leaves + (l * f->leaf_up + u) % f->spines);
        uint64_t p = l / f->leaves_per_pod, m = l % f->leaves_per_pod;
        return (int64_t)(f->leaves + p * f->spines_per_pod + (m * f->leaf_up + u) % f->spines_per_pod);
    }
    uint64_t sp = (phys - spine_base) / f->spine_up, v = (phys - spine_base) % f->spine_up;
    uint64_t p = sp / f->spines_per_pod, j = sp % f->spines_per_pod;
    return (int64_t)(f->leaves + f->spines + j * f->cores_per_group + (p * f->spine_up + v) % f->cores_per_group);
}

int64_t wk_fabric_link_lower(const WkFabric *f, uint64_t phys)
{
    uint64_t leaf_base = wk_fabric_uplink(f, 0), spine_base = wk_fabric_spine_uplink(f, 0, 0);
    if (phys >= wk_fabric_link_ids(f) || phys < leaf_base)
        return -1;
    if (phys < spine_base)
        return (int64_t)((phys - leaf_base) / f->leaf_up);
    return (int64_t)(f->leaves + (phys - spine_base) / f->spine_up);
}
