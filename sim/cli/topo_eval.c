/* SPDX-License-Identifier: Apache-2.0 */
/* topo_eval.c — `wanka topo`: a scenario's cluster as summary rows (counts,
 * fabric, bisection bandwidth, power), without simulating anything. */
#include <stdio.h>
#include <string.h>

#include "models/topo/cluster.h"
#include "sim/cli/cli_eval.h"
#include "sim/scenario/section.h"


/* A network (`sites:`): each site's headline rows, NAME.KEY, and the
 * totals. */
static int network_topology(const WkDoc *doc, const char *name, WkSummary *s, WkError *err)
{
    const WkNode *sn = wk_node_get(doc->root, "sites");
    if (sn->type != WK_NODE_SEQ || sn->nkids == 0)
        return wk_node_error(sn, WK_E_INVAL, err, "expected a list of sites (each a map with name and cluster)");
    snprintf(s->scenario, sizeof s->scenario, "%s", name);
    snprintf(s->title, sizeof s->title, "network of scenario %s: %zu sites", name, sn->nkids);
    double gpus = 0, peak = 0, idle = 0;
    int rc = 0, bad = 0;
    for (size_t i = 0; i < sn->nkids && rc == 0; i++) {
        const WkNode *site = sn->kids[i];
        const char *sname = "?";
        WkCluster c;
        if ((rc = wk_node_str(site, "name", 1, &sname, err)) < 0 ||
            (rc = wk_cluster_parse(wk_node_get(site, "cluster"), &c, err)) < 0)
            break;
        double pw = wk_cluster_power_at(&c, c.power.busy_activity), iw = wk_cluster_power_at(&c, 0), pf = 0;
        for (uint32_t g = 0; g < c.ngroups; g++)
            pf += (double)c.groups[g].nodes * c.groups[g].gpus_per_node * c.groups[g].sku->bf16_flops;
        char key[48], label[64], skus[40] = "";
        size_t used = 0;
        for (uint32_t g = 0; g < c.ngroups && used < sizeof skus; g++) {
            int seen = 0;
            for (uint32_t h = 0; h < g; h++)
                seen |= c.groups[h].sku == c.groups[g].sku;
            if (!seen)
                used += (size_t)snprintf(skus + used, sizeof skus - used, "%s%s", used ? "+" : "", c.groups[g].sku->name);
        }
        snprintf(key, sizeof key, "%.24s.gpus", sname);
        snprintf(label, sizeof label, "%.24s: GPUs (%.30s)", sname, skus);
        bad |= wk_summary_add(s, key, label, "GPUs", c.gpus, 1);
        snprintf(key, sizeof key, "%.24s.peak_bf16_pflops", sname);
        snprintf(label, sizeof label, "%.24s: peak dense BF16", sname);
        bad |= wk_summary_add(s, key, label, "PFLOP/s", pf / 1e15, 0);
        snprintf(key, sizeof key, "%.24s.bisection_tb_per_s", sname);
        snprintf(label, sizeof label, "%.24s: bisection bandwidth", sname);
        bad |= wk_summary_add(s, key, label, "TB/s", c.fabric.bisection_bytes_per_s / 1e12, 0);
        snprintf(key, sizeof key, "%.24s.peak_power_mw", sname);
        snprintf(label, sizeof label, "%.24s: peak power (PUE incl.)", sname);
        bad |= wk_summary_add(s, key, label, "MW", pw / 1e6, 0);
        gpus += c.gpus;
        peak += pw;
        idle += iw;
        wk_cluster_fini(&c);
        if (gpus > WK_CLUSTER_MAX_GPUS) /* as a run refuses it (models/network/network.c) */
            rc = wk_node_error(wk_node_get(site, "cluster"), WK_E_RANGE, err,
                               "the sites up to '%s' hold %.0f GPUs together, more than %lu, the limit of a "
                               "network (docs/limits.md)", sname, gpus, (unsigned long)WK_CLUSTER_MAX_GPUS);
    }
    if (rc < 0)
        return rc;
    bad |= wk_summary_add(s, "gpus", "GPUs (all sites)", "GPUs", gpus, 1);
    bad |= wk_summary_add(s, "peak_power_mw", "peak power (all sites, PUE incl.)", "MW", peak / 1e6, 0);
    bad |= wk_summary_add(s, "idle_power_mw", "idle power (all sites, PUE incl.)", "MW", idle / 1e6, 0);
    return bad ? wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "topo: too many summary rows") : 0;
}

int wk_cli_topology(const WkDoc *doc, WkSummary *s, WkError *err)
{
    memset(s, 0, sizeof *s);
    if (!doc->root)
        return wk_error_set(err, WK_E_INVAL, doc->file, 0, 0, "empty scenario: expected a mapping with a cluster");
    int rc = wk_section_check(doc->root, WK_DOC_SCENARIO, err);
    if (rc < 0)
        return rc;
    const char *name = "unnamed";
    if ((rc = wk_node_str(doc->root, "name", 0, &name, err)) < 0)
        return rc;
    if (wk_node_get(doc->root, "sites"))
        return network_topology(doc, name, s, err);
    WkCluster c;
    if ((rc = wk_cluster_parse(wk_node_get(doc->root, "cluster"), &c, err)) < 0)
        return rc;
    const WkFabric *f = &c.fabric;
    static const char *const kinds[] = {"none", "rail-optimized fat-tree", "fat-tree"};
    snprintf(s->scenario, sizeof s->scenario, "%s", name);
    if (f->spec.kind == WK_FABRIC_NONE)
        snprintf(s->title, sizeof s->title, "cluster of scenario %s: no inter-node fabric", name);
    else
        snprintf(s->title, sizeof s->title, "cluster of scenario %s: %s, %d tiers, radix %u, %.0f Gb/s links",
                 name, kinds[f->spec.kind], f->spec.tiers, f->spec.radix, f->spec.link_bytes_per_s * 8 / 1e9);

    rc |= wk_summary_add(s, "gpus", "GPUs", "GPUs", c.gpus, 1);
    /* GPUs by SKU, in order of first appearance */
    for (uint32_t g = 0; g < c.ngroups; g++) {
        int seen = 0;
        for (uint32_t h = 0; h < g; h++)
            seen |= c.groups[h].sku == c.groups[g].sku;
        if (seen)
            continue;
        double n = 0;
        for (uint32_t h = g; h < c.ngroups; h++)
            if (c.groups[h].sku == c.groups[g].sku)
                n += (double)c.groups[h].nodes * c.groups[h].gpus_per_node;
        char key[48], label[64];
        snprintf(key, sizeof key, "gpus_%s", c.groups[g].sku->name);
        snprintf(label, sizeof label, "  %s", c.groups[g].sku->name);
        rc |= wk_summary_add(s, key, label, "GPUs", n, 1);
    }
    double domains = 0, peak_flops = 0;
    for (uint32_t g = 0; g < c.ngroups; g++) {
        double gg = (double)c.groups[g].nodes * c.groups[g].gpus_per_node;
        domains += (double)(((uint64_t)c.groups[g].nodes * c.groups[g].gpus_per_node + c.groups[g].nvlink_gpus - 1) /
                            c.groups[g].nvlink_gpus);
        peak_flops += gg * c.groups[g].sku->bf16_flops;
    }
    rc |= wk_summary_add(s, "node_groups", "node groups", "", c.ngroups, 1);
    rc |= wk_summary_add(s, "nodes", "nodes", "", c.nodes, 1);
    rc |= wk_summary_add(s, "pods", "pods (scalable units)", "", c.pods, 1);
    rc |= wk_summary_add(s, "nvlink_domains", "NVLink domains", "", domains, 1);
    rc |= wk_summary_add(s, "peak_bf16_pflops", "peak dense BF16", "PFLOP/s", peak_flops / 1e15, 0);
    rc |= wk_summary_add(s, "nics", "NICs (cabled)", "", f->spec.nics_present, 1);
    rc |= wk_summary_add(s, "leaf_switches", "leaf switches", "", f->leaves, 1);
    rc |= wk_summary_add(s, "spine_switches", "spine switches", "", f->spines, 1);
    rc |= wk_summary_add(s, "core_switches", "core switches", "", f->cores, 1);
    rc |= wk_summary_add(s, "links_nic_leaf", "links NIC-leaf", "", (double)f->links_nic_leaf, 1);
    rc |= wk_summary_add(s, "links_leaf_spine", "links leaf-spine", "", (double)f->links_leaf_spine, 1);
    rc |= wk_summary_add(s, "links_spine_core", "links spine-core", "", (double)f->links_spine_core, 1);
    rc |= wk_summary_add(s, "links", "links total", "", (double)f->links, 1);
    rc |= wk_summary_add(s, "optics", "optical modules", "", (double)f->optics, 1);
    rc |= wk_summary_add(s, "bisection_tb_per_s", "bisection bandwidth (one direction)", "TB/s",
                         f->bisection_bytes_per_s / 1e12, 0);
    rc |= wk_summary_add(s, "network_power_kw", "network power (switches + optics)", "kW",
                         wk_cluster_network_w(&c) / 1e3, 0);
    rc |= wk_summary_add(s, "peak_power_mw", "peak power (all GPUs busy, PUE incl.)", "MW",
                         wk_cluster_power_at(&c, c.power.busy_activity) / 1e6, 0);
    rc |= wk_summary_add(s, "idle_power_mw", "idle power (PUE incl.)", "MW", wk_cluster_power_at(&c, 0) / 1e6, 0);
    rc |= wk_summary_add(s, "pue", "PUE", "", c.power.pue, 0);
    wk_cluster_fini(&c);
    return rc ? wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "topo: too many summary rows") : 0;
}
