/* SPDX-License-Identifier: Apache-2.0 */
/* cluster.c — parsing the cluster section, laying out node groups into pods
 * and NVLink domains, mapping GPUs to fabric NICs, per-GPU state, power. */
#include "models/topo/cluster.h"

#include <stdlib.h>
#include <string.h>

static int parse_group(const WkNode *g, const WkGpuCatalog *cat, WkNodeGroup *out, int shorthand, WkError *err)
{
    static const char *const known[] = {"name",        "sku",         "nodes",     "gpus_per_node",
                                        "nvlink_domain", "power_cap_w", "clock_mhz", NULL};
    int rc;
    if (!shorthand && (rc = wk_node_expect_keys(g, known, err)) < 0)
        return rc;
    const char *sku = "H100-SXM-80G", *name = NULL;
    int64_t nodes = 0, gpn = 8, nvl = 0;
    if ((rc = wk_node_str(g, "sku", 0, &sku, err)) < 0 || (rc = wk_node_str(g, "name", 0, &name, err)) < 0 ||
        (rc = wk_node_int(g, "nodes", 1, 1, WK_CLUSTER_MAX_GPUS, &nodes, err)) < 0 ||
        (rc = wk_node_int(g, "gpus_per_node", 0, 1, 1024, &gpn, err)) < 0 ||
        (rc = wk_node_int(g, "nvlink_domain", 0, 1, 1 << 20, &nvl, err)) < 0)
        return rc;
    double cap_w = 0, clock_mhz = 0;
    if (!shorthand && ((rc = wk_node_double(g, "power_cap_w", 0, 1, 1e5, &cap_w, err)) < 0 ||
                       (rc = wk_node_double(g, "clock_mhz", 0, 1, 1e5, &clock_mhz, err)) < 0))
        return rc;
    const WkGpuSku *s = wk_catalog_lookup(cat, sku);
    if (!s) {
        char names[1024];
        const WkNode *n = wk_node_get(g, "sku");
        return wk_node_error(n ? n : g, WK_E_NOTFOUND, err, "unknown GPU SKU '%s' (known: %s)", sku,
                             wk_catalog_list(cat, names, sizeof names));
    }
    if (s->cpu) { /* a CPU node is one device (catalog.h) */
        const WkNode *gk = wk_node_get(g, "gpus_per_node");
        if (gk && gpn != 1)
            return wk_node_error(gk, WK_E_RANGE, err, "SKU %s is a CPU node, one device per node: gpus_per_node "
                                 "must be 1 (or left out)", s->name);
        gpn = 1;
    }
    if ((uint64_t)nodes * (uint64_t)gpn > WK_CLUSTER_MAX_GPUS)
        return wk_node_error(wk_node_get(g, "nodes"), WK_E_RANGE, err,
                             "%lld nodes x %lld GPUs is more than %u GPUs", (long long)nodes, (long long)gpn,
                             (unsigned)WK_CLUSTER_MAX_GPUS);
    if (nvl == 0)
        nvl = gpn;
    if (nvl % gpn != 0)
        return wk_node_error(wk_node_get(g, "nvlink_domain"), WK_E_RANGE, err,
                             "an NVLink domain of %lld GPUs is not a whole number of %lld-GPU nodes", (long long)nvl,
                             (long long)gpn);
    memset(out, 0, sizeof *out);
    out->name = name ? name : s->name;
    out->sku = s;
    out->nodes = (uint32_t)nodes;
    out->gpus_per_node = (uint32_t)gpn;
    out->nvlink_gpus = (uint32_t)nvl;
    out->cap_w = cap_w;
    out->clock_mhz = clock_mhz;
    return 0;
}

/* The node of a group's cap key (or of cluster.power's) for errors. */
static const WkNode *cap_key(const WkNode *sec, uint32_t gi, const char *gkey, const char *pkey)
{
    const WkNode *groups = wk_node_get(sec, "groups");
    const WkNode *n = groups && groups->type == WK_NODE_SEQ ? wk_node_get(groups->kids[gi], gkey) : NULL;
    return n ? n : wk_node_get(wk_node_get(sec, "power"), pkey);
}

/* Each group's cap and clock lock (its own keys, else cluster.power's),
 * checked against its SKU's settable range, and the clock a busy GPU runs
 * at under them (models/gpu/dvfs.h). */
static int resolve_caps(const WkNode *sec, WkCluster *c, WkError *err)
{
    c->site_clock = 1.0;
    for (uint32_t i = 0; i < c->ngroups; i++) {
        WkNodeGroup *g = &c->groups[i];
        const WkDvfs *d = wk_dvfs_of(g->sku);
        g->dvfs = d;
        g->floor_clock = wk_dvfs_floor(g->sku);
        if (g->cap_w == 0)
            g->cap_w = c->power.cap_w;
        if (g->clock_mhz == 0)
            g->clock_mhz = c->power.clock_mhz;
        if (g->cap_w > 0 && (g->cap_w < d->cap_min_w || g->cap_w > g->sku->tdp_w))
            return wk_node_error(cap_key(sec, i, "power_cap_w", "cap_w"), WK_E_RANGE, err,
                                 "a power cap of %g W is outside the %g-%g W that %s accepts (%s)", g->cap_w,
                                 d->cap_min_w, g->sku->tdp_w, g->sku->name, d->source);
        if (g->clock_mhz > 0 && (g->clock_mhz < d->min_mhz || g->clock_mhz > d->max_mhz))
            return wk_node_error(cap_key(sec, i, "clock_mhz", "clock_mhz"), WK_E_RANGE, err,
                                 "a clock of %g MHz is outside the %g-%g MHz of %s (%s)", g->clock_mhz, d->min_mhz,
                                 d->max_mhz, g->sku->name, d->source);
        double f = g->cap_w > 0 ? wk_dvfs_cap_clock(g->sku, g->cap_w, c->power.busy_activity) : 1.0;
        double lock = g->clock_mhz > 0 ? g->clock_mhz / d->max_mhz : 1.0;
        g->cap_clock = lock < f ? lock : f;
        if (g->clock_mhz > 0 && lock < g->floor_clock)
            g->floor_clock = lock; /* a locked clock is what it is, below the cap floor or not */
        c->capped |= g->cap_clock < 1;
    }
    return 0;
}

static int parse_fabric(const WkNode *sec, WkCluster *c, WkError *err)
{
    static const char *const known[] = {"kind", "tiers", "radix", "link_gbps", "rails", "oversubscription", NULL};
    static const char *const kinds[] = {"none", "rail", "fat-tree", NULL};
    static const char *const osk[] = {"leaf", "spine", NULL};
    WkFabricSpec sp = {.kind = WK_FABRIC_NONE};
    if (!sec || sec->type == WK_NODE_NULL) {
        memset(&c->fabric, 0, sizeof c->fabric);
        c->fabric.spec = sp;
        return 0;
    }
    int rc = wk_node_expect_keys(sec, known, err);
    int kind = 1;
    int64_t tiers = 0, radix = 64, rails = c->rails;
    double gbps = 400, os_leaf = 1, os_spine = 1;
    if (rc < 0 || (rc = wk_node_enum(sec, "kind", 0, kinds, &kind, err)) < 0 ||
        (rc = wk_node_int(sec, "tiers", 0, 2, 3, &tiers, err)) < 0 ||
        (rc = wk_node_int(sec, "radix", 0, 4, 4096, &radix, err)) < 0 ||
        (rc = wk_node_double(sec, "link_gbps", 0, 1e-3, 1e6, &gbps, err)) < 0 ||
        (rc = wk_node_int(sec, "rails", 0, 1, 1024, &rails, err)) < 0)
        return rc;
    const WkNode *os = wk_node_get(sec, "oversubscription");
    if (os && os->type == WK_NODE_SCALAR) {
        if ((rc = wk_node_as_double(os, 1, 64, &os_leaf, err)) < 0)
            return rc;
    } else if (os && os->type == WK_NODE_MAP) {
        if ((rc = wk_node_expect_keys(os, osk, err)) < 0 ||
            (rc = wk_node_double(os, "leaf", 0, 1, 64, &os_leaf, err)) < 0 ||
            (rc = wk_node_double(os, "spine", 0, 1, 64, &os_spine, err)) < 0)
            return rc;
    } else if (os && os->type != WK_NODE_NULL) {
        return wk_node_error(os, WK_E_INVAL, err, "expected a ratio or {leaf: R, spine: R}");
    }
    if (radix % 2)
        return wk_node_error(wk_node_get(sec, "radix"), WK_E_RANGE, err, "the radix must be even (got %lld)",
                             (long long)radix);
    c->rails = (uint32_t)rails;
    sp.kind = (WkFabricKind)kind;
    sp.radix = (uint32_t)radix;
    sp.link_bytes_per_s = gbps * 1e9 / 8;
    sp.rails = c->rails;
    sp.oversub[0] = os_leaf;
    sp.oversub[1] = os_spine;
    uint64_t present = 0;
    for (uint32_t g = 0; g < c->ngroups; g++) {
        uint32_t per = c->groups[g].gpus_per_node < c->rails ? c->groups[g].gpus_per_node : c->rails;
        present += (uint64_t)c->groups[g].nodes * per;
    }
    uint64_t slots = sp.kind == WK_FABRIC_RAIL ? (uint64_t)c->pods * c->nodes_per_pod * c->rails
                                               : (uint64_t)c->nodes * c->rails;
    if (slots > UINT32_MAX)
        return wk_node_error(sec, WK_E_RANGE, err, "%llu NIC slots is more than 2^32", (unsigned long long)slots);
    sp.nics = (uint32_t)slots;
    sp.nics_present = (uint32_t)present;
    sp.nics_per_pod = c->nodes_per_pod * c->rails;
    if (sp.kind == WK_FABRIC_NONE) {
        memset(&c->fabric, 0, sizeof c->fabric);
        c->fabric.spec = sp;
        return 0;
    }
    /* tiers: as asked, or the fewest that hold the cluster */
    WkError tmp;
    for (int t = tiers ? (int)tiers : 2; t <= (tiers ? (int)tiers : 3); t++) {
        sp.tiers = t;
        wk_error_clear(&tmp);
        rc = wk_fabric_build(&sp, &c->fabric, &tmp);
        if (rc == 0)
            return 0;
    }
    const WkNode *at = wk_node_get(sec, tiers ? "tiers" : "radix");
    return wk_node_error(at ? at : sec, rc, err, "%s", tmp.msg);
}

/* The NIC of a GPU from the layout and the fabric's kind (gpu_nic's entries). */
static uint32_t nic_of(const WkCluster *c, uint32_t gpu)
{
    uint32_t node = c->gpu_node[gpu];
    uint32_t local = gpu - c->node_first_gpu[node];
    if (c->fabric.spec.kind != WK_FABRIC_RAIL)
        return node * c->rails + local % c->rails;
    const WkNodeGroup *g = &c->groups[c->node_group[node]];
    uint32_t pod = c->node_pod[node];
    uint32_t node_in_pod = (node - g->first_node) % c->nodes_per_pod;
    return (pod * c->nodes_per_pod + node_in_pod) * c->rails + local % c->rails;
}

static int layout(WkCluster *c, WkError *err)
{
    uint64_t gpus = 0, nodes = 0, pods = 0, domains = 0;
    for (uint32_t g = 0; g < c->ngroups; g++) {
        WkNodeGroup *grp = &c->groups[g];
        grp->first_node = (uint32_t)nodes;
        grp->first_gpu = (uint32_t)gpus;
        grp->first_pod = (uint32_t)pods;
        grp->first_domain = (uint32_t)domains;
        grp->pods = (grp->nodes + c->nodes_per_pod - 1) / c->nodes_per_pod;
        uint64_t ggpus = (uint64_t)grp->nodes * grp->gpus_per_node;
        domains += (ggpus + grp->nvlink_gpus - 1) / grp->nvlink_gpus;
        nodes += grp->nodes;
        gpus += ggpus;
        pods += grp->pods;
    }
    if (gpus > WK_CLUSTER_MAX_GPUS)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "cluster: %llu GPUs is more than %u",
                            (unsigned long long)gpus, (unsigned)WK_CLUSTER_MAX_GPUS);
    c->gpus = (uint32_t)gpus;
    c->nodes = (uint32_t)nodes;
    c->pods = (uint32_t)pods;
    c->sku = c->groups[0].sku;
    c->gpus_per_node = c->groups[0].gpus_per_node;
    c->gpu_node = malloc((size_t)gpus * sizeof *c->gpu_node);
    c->node_first_gpu = malloc(((size_t)nodes + 1) * sizeof *c->node_first_gpu);
    c->node_pod = malloc((size_t)nodes * sizeof *c->node_pod);
    c->node_group = malloc((size_t)nodes * sizeof *c->node_group);
    c->gpu_domain = malloc((size_t)gpus * sizeof *c->gpu_domain);
    c->gpu_nic = malloc((size_t)gpus * sizeof *c->gpu_nic);
    c->health = calloc((size_t)gpus, sizeof *c->health);
    c->clock = malloc((size_t)gpus * sizeof *c->clock);
    if (!c->gpu_node || !c->node_first_gpu || !c->node_pod || !c->node_group || !c->gpu_domain || !c->gpu_nic ||
        !c->health || !c->clock)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "cluster: out of memory");
    uint32_t n = 0, gpu = 0;
    for (uint32_t g = 0; g < c->ngroups; g++) {
        const WkNodeGroup *grp = &c->groups[g];
        for (uint32_t k = 0; k < grp->nodes; k++, n++) {
            c->node_first_gpu[n] = gpu;
            c->node_pod[n] = grp->first_pod + k / c->nodes_per_pod;
            c->node_group[n] = (uint16_t)g;
            for (uint32_t i = 0; i < grp->gpus_per_node; i++, gpu++) {
                c->gpu_node[gpu] = n;
                c->gpu_domain[gpu] = grp->first_domain + (gpu - grp->first_gpu) / grp->nvlink_gpus;
            }
        }
    }
    c->node_first_gpu[n] = gpu;
    for (uint32_t i = 0; i < c->gpus; i++)
        c->clock[i] = 1.0f;
    return 0;
}

int wk_cluster_parse(const WkNode *sec, WkCluster *out, WkError *err)
{
    static const char *const known[] = {"sku", "nodes", "gpus_per_node", "nvlink_domain", "groups", "nodes_per_pod",
                                        "skus", "calibration", "fabric", "power", "storage", NULL};
    memset(out, 0, sizeof *out);
    if (!sec)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "cluster: missing required section");
    int rc = wk_node_expect_keys(sec, known, err);
    if (rc < 0)
        return rc;
    int64_t npp = 32; /* 32 nodes per SU: DGX SuperPOD reference (REFERENCES.md) */
    if ((rc = wk_node_int(sec, "nodes_per_pod", 0, 1, WK_CLUSTER_MAX_GPUS, &npp, err)) < 0)
        return rc;
    out->nodes_per_pod = (uint32_t)npp;
    if ((rc = wk_catalog_init(&out->catalog, err)) < 0 ||
        (rc = wk_catalog_apply(&out->catalog, wk_node_get(sec, "skus"), err)) < 0 ||
        (rc = wk_catalog_calibrate(&out->catalog, wk_node_get(sec, "calibration"), err)) < 0)
        goto fail;

    const WkNode *groups = wk_node_get(sec, "groups");
    if (groups && groups->type != WK_NODE_NULL) {
        static const char *const shorthand[] = {"sku", "nodes", "gpus_per_node", "nvlink_domain"};
        for (size_t i = 0; i < 4; i++) {
            const WkNode *k = wk_node_get(sec, shorthand[i]);
            if (k) {
                rc = wk_node_error(k, WK_E_INVAL, err, "give either 'groups' or the single-group keys, not both");
                goto fail;
            }
        }
        if (groups->type != WK_NODE_SEQ || groups->nkids == 0 || groups->nkids > WK_CLUSTER_MAX_GROUPS) {
            rc = wk_node_error(groups, WK_E_INVAL, err, "expected a list of 1 to %d node groups", WK_CLUSTER_MAX_GROUPS);
            goto fail;
        }
        out->ngroups = (uint32_t)groups->nkids;
        out->groups = calloc(out->ngroups, sizeof *out->groups);
        if (!out->groups) {
            rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "cluster: out of memory");
            goto fail;
        }
        for (uint32_t g = 0; g < out->ngroups; g++)
            if ((rc = parse_group(groups->kids[g], &out->catalog, &out->groups[g], 0, err)) < 0)
                goto fail;
    } else {
        out->ngroups = 1;
        out->groups = calloc(1, sizeof *out->groups);
        if (!out->groups) {
            rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "cluster: out of memory");
            goto fail;
        }
        if ((rc = parse_group(sec, &out->catalog, &out->groups[0], 1, err)) < 0)
            goto fail;
    }
    out->rails = 0;
    for (uint32_t g = 0; g < out->ngroups; g++)
        if (out->groups[g].gpus_per_node > out->rails)
            out->rails = out->groups[g].gpus_per_node;
    if ((rc = layout(out, err)) < 0 || (rc = parse_fabric(wk_node_get(sec, "fabric"), out, err)) < 0)
        goto fail;
    for (uint32_t i = 0; i < out->gpus; i++) /* rails and the fabric's kind known now */
        out->gpu_nic[i] = nic_of(out, i);
    if ((rc = wk_storage_parse(wk_node_get(sec, "storage"), out, err)) < 0 ||
        (rc = wk_power_parse(wk_node_get(sec, "power"), &out->power, err)) < 0 ||
        (rc = resolve_caps(sec, out, err)) < 0)
        goto fail;
    if (!(out->gpu_act = malloc((size_t)out->gpus * sizeof *out->gpu_act))) {
        rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "cluster: out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < out->gpus; i++)
        out->gpu_act[i] = out->power.busy_activity;
    return 0;
fail:
    wk_cluster_fini(out);
    return rc;
}

void wk_cluster_fini(WkCluster *c)
{
    wk_catalog_fini(&c->catalog);
    free(c->groups);
    free(c->gpu_node);
    free(c->node_first_gpu);
    free(c->node_pod);
    free(c->node_group);
    free(c->gpu_domain);
    free(c->gpu_nic);
    free(c->health);
    free(c->clock);
    free(c->node_asleep);
    free(c->gpu_act);
    memset(c, 0, sizeof *c);
}

uint32_t wk_cluster_nic_gpus(const WkCluster *c, uint32_t gpu, uint32_t *out)
{
    uint32_t node = c->gpu_node[gpu], first = c->node_first_gpu[node], k = 0;
    for (uint32_t x = first; x < c->node_first_gpu[node + 1]; x++)
        if ((x - first) % c->rails == (gpu - first) % c->rails)
            out[k++] = x;
    return k;
}

uint32_t wk_cluster_leaf_of(const WkCluster *c, uint32_t gpu)
{
    return wk_fabric_leaf_of(&c->fabric, wk_cluster_nic_of(c, gpu));
}

WkPathClass wk_cluster_path_class(const WkCluster *c, uint32_t a, uint32_t b)
{
    if (wk_cluster_nvlink_domain(c, a) == wk_cluster_nvlink_domain(c, b))
        return WK_PATH_LOCAL;
    if (c->fabric.spec.kind == WK_FABRIC_NONE)
        return wk_cluster_pod_of(c, a) == wk_cluster_pod_of(c, b) ? WK_PATH_POD : WK_PATH_CROSS_POD;
    return wk_fabric_class(&c->fabric, wk_cluster_nic_of(c, a), wk_cluster_nic_of(c, b));
}

int wk_cluster_path(const WkCluster *c, uint32_t a, uint32_t b, WkLinkId *out)
{
    return wk_cluster_path_salted(c, a, b, 0, out);
}

int wk_cluster_path_salted(const WkCluster *c, uint32_t a, uint32_t b, uint64_t salt, WkLinkId *out)
{
    if (c->fabric.spec.kind == WK_FABRIC_NONE || wk_cluster_nvlink_domain(c, a) == wk_cluster_nvlink_domain(c, b))
        return 0;
    return wk_fabric_path_salted(&c->fabric, wk_cluster_nic_of(c, a), wk_cluster_nic_of(c, b), salt, out);
}

void wk_cluster_set_state(WkCluster *c, uint32_t gpu, WkGpuHealth health, float clock)
{
    c->health[gpu] = (uint8_t)health;
    c->clock[gpu] = health == WK_GPU_UP ? 1.0f : clock;
}

double wk_cluster_network_w(const WkCluster *c)
{
    const WkFabric *f = &c->fabric;
    if (f->spec.kind == WK_FABRIC_NONE)
        return 0;
    double ports = (double)wk_fabric_switches(f) * f->spec.radix;
    return ports * c->power.switch_port_w + (double)f->optics * c->power.optic_w;
}

double wk_cluster_power_at(const WkCluster *c, double activity)
{
    double w = 0;
    for (uint32_t g = 0; g < c->gpus; g++)
        w += wk_power_gpu_w(wk_cluster_sku_of(c, g), (WkGpuHealth)c->health[g], c->clock[g], activity);
    return (w + wk_cluster_network_w(c)) * c->power.pue;
}
