/* SPDX-License-Identifier: Apache-2.0 */
/* fail_class.c — the failure class table (names, components, incident kind,
 * detection, default rates with their sources) and, per component kind, its
 * count on a cluster and what one failure takes down. No state, no draws. */
#include "models/fail/fail_class.h"

#include <assert.h>
#include <stdlib.h>

const char *const wk_fail_class_names[WK_FC_N + 2] = {
    [WK_FC_GPU] = "gpu",           [WK_FC_HBM] = "hbm",   [WK_FC_NVSWITCH] = "nvswitch",
    [WK_FC_NIC] = "nic",           [WK_FC_NODE] = "node", [WK_FC_LINK] = "link",
    [WK_FC_SWITCH] = "switch",     [WK_FC_SOFTWARE] = "software",
    [WK_FC_SDC] = "sdc",           [WK_FC_MAINT] = "maintenance",
    [WK_FC_N] = "event",           [WK_FC_N + 1] = NULL,
};

/* Llama 3 (Dubey et al., 2024, Table 5): 419 unexpected interruptions and 47
 * planned ones in 54 days on 16,384 H100 GPUs in 2,048 nodes. Per-component
 * mean time to failure = exposure / count, exposure in component-days
 * (wk_fail_class_mttf_days); each row gives the count and the components:
 *   link: network switch/cable 35 over the 49,152 cables of a 64-SU fabric;
 *   nvswitch, switch: counted in gpu and link there: off by default.
 * Repairs are log-normal with sigma 1 (Schroeder & Gibson, DSN'06); the
 * medians are choices. */
#define RECORD_DAYS 54.0
#define RECORD_GPUS 16384.0  /* also NICs: one per GPU */
#define RECORD_NODES 2048.0
#define RECORD_CABLES 49152.0

#define DOWN .kind = WK_INC_DOWN, .detect = WK_DETECT_HEALTH_CHECK /* hardware: down until repaired */
#define SOFT .kind = WK_INC_SOFT, .detect = WK_DETECT_TIMEOUT      /* the job restarts; nothing to repair */

static const WkFailClassInfo classes[] = {
    /* faulty GPU 148 + GPU SRAM 19 + GPU system processor 17 */
    [WK_FC_GPU] = {.component = WK_COMP_GPU, DOWN, .record_failures = 184, .record_components = RECORD_GPUS,
                   .repair_median_h = 8},
    [WK_FC_HBM] = {.component = WK_COMP_GPU, DOWN, .record_failures = 72, .record_components = RECORD_GPUS,
                   .repair_median_h = 8},
    [WK_FC_NVSWITCH] = {.component = WK_COMP_NODE, DOWN, .repair_median_h = 8},
    [WK_FC_NIC] = {.component = WK_COMP_NIC, DOWN, .record_failures = 7, .record_components = RECORD_GPUS,
                   .repair_median_h = 4},
    /* host maintenance 32 + thermal/sensor 6 + SSD 3 + PSU 3 + chassis 2 +
     * IO board 2 + CPU 2 + system memory 2 */
    [WK_FC_NODE] = {.component = WK_COMP_NODE, DOWN, .record_failures = 52, .record_components = RECORD_NODES,
                    .repair_median_h = 4},
    [WK_FC_LINK] = {.component = WK_COMP_LINK, DOWN, .record_failures = 35, .record_components = RECORD_CABLES,
                    .repair_median_h = 2},
    [WK_FC_SWITCH] = {.component = WK_COMP_SWITCH, DOWN, .repair_median_h = 4},
    /* software bug 54 + NCCL watchdog 7 + dependency 2: the job on the node restarts */
    [WK_FC_SOFTWARE] = {.component = WK_COMP_NODE, SOFT, .record_failures = 63, .record_components = RECORD_NODES},
    /* silent data corruption 6: the job on the GPU restarts */
    [WK_FC_SDC] = {.component = WK_COMP_GPU, SOFT, .record_failures = 6, .record_components = RECORD_GPUS},
    /* 47 planned */
    [WK_FC_MAINT] = {.component = WK_COMP_NODE, DOWN, .record_failures = 47, .record_components = RECORD_NODES,
                     .repair_median_h = 2},
};
_Static_assert(sizeof classes / sizeof classes[0] == WK_FC_N, "one row per failure class");

/* ---- what a failure takes down ---- */

/* Room in d for `gpus` GPUs and `links` links, the most a component can take
 * down (each down function asks first, then fills without checks). */
static int room(WkFailDown *d, uint64_t gpus, uint64_t links, WkError *err)
{
    if (gpus > UINT32_MAX || links > UINT32_MAX)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "failures: one failure takes down more than 2^32 parts");
    uint32_t *g = gpus > d->capgpus ? realloc(d->gpus, (size_t)gpus * sizeof *g) : d->gpus;
    if (g && gpus > d->capgpus)
        d->gpus = g, d->capgpus = (uint32_t)gpus;
    uint64_t *l = links > d->caplinks ? realloc(d->links, (size_t)links * sizeof *l) : d->links;
    if (l && links > d->caplinks)
        d->links = l, d->caplinks = (uint32_t)links;
    return (gpus && !g) || (links && !l) ? wk_error_nomem(err, "failures") : 0;
}

static uint32_t node_size(const WkCluster *c, uint32_t node)
{
    return c->node_first_gpu[node + 1] - c->node_first_gpu[node];
}

static int down_gpu(const WkCluster *c, uint64_t comp, WkFailDown *d, WkError *err)
{
    (void)c;
    int rc = room(d, 1, 0, err);
    if (rc == 0)
        d->gpus[d->ngpus++] = (uint32_t)comp;
    return rc;
}

static int down_nic(const WkCluster *c, uint64_t comp, WkFailDown *d, WkError *err)
{
    int rc = room(d, node_size(c, c->gpu_node[comp]), 0, err);
    if (rc == 0)
        d->ngpus = wk_cluster_nic_gpus(c, (uint32_t)comp, d->gpus);
    return rc;
}

static int down_node(const WkCluster *c, uint64_t comp, WkFailDown *d, WkError *err)
{
    int rc = room(d, node_size(c, (uint32_t)comp), 0, err);
    for (uint32_t g = c->node_first_gpu[comp]; rc == 0 && g < c->node_first_gpu[comp + 1]; g++)
        d->gpus[d->ngpus++] = g;
    return rc;
}

/* Cables: GPU g's NIC cable is component g; switch-to-switch cable i is
 * component gpus + i. */
static uint64_t count_links(const WkCluster *c)
{
    return c->fabric.spec.kind == WK_FABRIC_NONE ? 0 : c->gpus + wk_fabric_uplinks(&c->fabric);
}

static int down_link(const WkCluster *c, uint64_t comp, WkFailDown *d, WkError *err)
{
    if (comp < c->gpus)
        return down_nic(c, comp, d, err);
    int rc = room(d, 0, 1, err);
    if (rc == 0)
        d->links[d->nlinks++] = wk_fabric_uplink(&c->fabric, comp - c->gpus);
    return rc;
}

static uint64_t count_switches(const WkCluster *c)
{
    return wk_fabric_switches(&c->fabric);
}

/* A leaf cuts off the GPUs whose NICs hang below it; a spine or core takes
 * out the cables that end at it (at most one per port). */
static int down_switch(const WkCluster *c, uint64_t comp, WkFailDown *d, WkError *err)
{
    const WkFabric *f = &c->fabric;
    int leaf = comp < f->leaves;
    int rc = leaf ? room(d, c->gpus, 0, err) : room(d, 0, f->spec.radix, err);
    for (uint32_t g = 0; rc == 0 && leaf && g < c->gpus; g++)
        if (wk_cluster_leaf_of(c, g) == comp)
            d->gpus[d->ngpus++] = g;
    for (uint64_t i = 0; rc == 0 && !leaf && i < wk_fabric_uplinks(f); i++) {
        uint64_t l = wk_fabric_uplink(f, i);
        if (wk_fabric_link_upper(f, l) == (int64_t)comp || wk_fabric_link_lower(f, l) == (int64_t)comp) {
            assert(d->nlinks < d->caplinks);
            d->links[d->nlinks++] = l;
        }
    }
    return rc;
}

static uint64_t count_gpus(const WkCluster *c)
{
    return c->gpus;
}

static uint64_t count_nodes(const WkCluster *c)
{
    return c->nodes;
}

/* ---- the component table ---- */

typedef enum { PER_NONE = 0, PER_GPU, PER_NODE } Exposure;

typedef struct {
    WkScope scope;       /* incidents record the component under this scope */
    Exposure exposure;   /* a job depends on one component per GPU, per node, or none */
    uint64_t (*count)(const WkCluster *c);
    int (*down)(const WkCluster *c, uint64_t comp, WkFailDown *d, WkError *err);
} Component;

static const Component components[] = {
    [WK_COMP_GPU] = {WK_SCOPE_GPU, PER_GPU, count_gpus, down_gpu},
    [WK_COMP_NIC] = {WK_SCOPE_GPU, PER_GPU, count_gpus, down_nic},
    [WK_COMP_NODE] = {WK_SCOPE_NODE, PER_NODE, count_nodes, down_node},
    [WK_COMP_LINK] = {WK_SCOPE_FABRIC, PER_GPU, count_links, down_link},     /* a job uses its NIC cables */
    [WK_COMP_SWITCH] = {WK_SCOPE_FABRIC, PER_NONE, count_switches, down_switch}, /* re-routed or counted as NICs */
};
_Static_assert(sizeof components / sizeof components[0] == WK_COMP_N, "one row per component kind");

/* ---- the public face ---- */

const WkFailClassInfo *wk_fail_class_get(WkFailClass c)
{
    return &classes[c < WK_FC_N ? c : 0];
}

const char *wk_fail_class_name(WkFailClass c)
{
    return c < WK_FC_N ? wk_fail_class_names[c] : "?";
}

double wk_fail_class_mttf_days(const WkFailClassInfo *ci)
{
    return ci->record_failures > 0 ? ci->record_components * RECORD_DAYS / ci->record_failures : 0;
}

uint64_t wk_fail_class_count(const WkFailClassInfo *ci, const WkCluster *c)
{
    return components[ci->component].count(c);
}

double wk_fail_class_exposure(const WkFailClassInfo *ci, double gpus, double nodes)
{
    Exposure e = components[ci->component].exposure;
    return e == PER_GPU ? gpus : e == PER_NODE ? nodes : 0;
}

WkScope wk_fail_class_scope(const WkFailClassInfo *ci)
{
    return components[ci->component].scope;
}

int wk_fail_class_down(const WkFailClassInfo *ci, const WkCluster *c, uint64_t comp, WkFailDown *d, WkError *err)
{
    d->ngpus = 0;
    d->nlinks = 0;
    return components[ci->component].down(c, comp, d, err);
}

int wk_fail_class_mark_links(const WkFailDown *d, uint8_t *in_force, int delta, WkError *err)
{
    for (uint32_t i = 0; delta > 0 && i < d->nlinks; i++)
        if (in_force[d->links[i]] > UINT8_MAX - delta)
            return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                                "fabric link %llu has %d failures in force, the limit: check the MTBFs of "
                                "failures.classes link and switch",
                                (unsigned long long)d->links[i], UINT8_MAX);
    for (uint32_t i = 0; i < d->nlinks; i++)
        in_force[d->links[i]] = (uint8_t)(in_force[d->links[i]] + delta);
    return 0;
}

void wk_fail_class_down_fini(WkFailDown *d)
{
    free(d->gpus);
    free(d->links);
    *d = (WkFailDown){0};
}
