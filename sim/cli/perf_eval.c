/* SPDX-License-Identifier: Apache-2.0 */
/* perf_eval.c — `wanka perf`: one job's iteration time, its breakdown,
 * throughput, MFU and memory on a cluster; or its scaling curve. The job is
 * placed on the first GPUs and its ring flows share the fabric (so ECMP
 * collisions and oversubscription show), with no other job running. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/gpu/calib.h"
#include "models/net/flow.h"
#include "models/state/eval.h"
#include "sim/cli/cli_eval.h"
#include "sim/scenario/section.h"
#include "sim/core/strbuf.h"

static const char *class_name(uint8_t c)
{
    return c == WK_JOB_NO_PATH ? "none" : wk_path_class_name((WkPathClass)c);
}

/* The calibration file behind sku, as a JSON member (nothing when none). */
static void calib_json(WkStrBuf *b, const WkGpuSku *sku)
{
    const WkGpuCalib *r = sku->calib;
    if (!r)
        return;
    wk_strbuf_printf(b, ",\"calibration\":{\"file\":");
    wk_strbuf_json_string(b, r->file);
    wk_strbuf_printf(b, ",\"gpu\":");
    wk_strbuf_json_string(b, r->gpu);
    wk_strbuf_printf(b, ",\"date\":");
    wk_strbuf_json_string(b, r->date);
    wk_strbuf_printf(b, ",\"device\":");
    wk_strbuf_json_string(b, r->device);
    wk_strbuf_printf(b, ",\"from_file\":[");
    for (int v = 0, k = 0; v < WK_CALIB_NUSED; v++)
        if (r->used & (1u << v)) {
            wk_strbuf_printf(b, "%s\"%s\"", k++ ? "," : "", wk_calib_key(v));
        }
    wk_strbuf_printf(b, "]}");
}

/* Text: one line per calibrated SKU of c's node groups saying which numbers came from its file. */
static void calib_text(WkStrBuf *b, const WkCluster *c)
{
    for (uint32_t g = 0; g < c->ngroups; g++) {
        int seen = 0;
        for (uint32_t h = 0; h < g; h++)
            seen |= c->groups[h].sku == c->groups[g].sku;
        if (!seen && c->groups[g].sku->calib) {
            char line[1024];
            wk_strbuf_printf(b, "%s\n", wk_calib_describe(c->groups[g].sku, line, sizeof line));
        }
    }
}

/* One job of `gpus` GPUs: its breakdown as text or one JSON object. */
static int report_one(WkStrBuf *b, const WkCluster *c, const WkModelSpec *m, const WkPerfParams *pp, int64_t gpus,
                      const WkNode *gn, unsigned flags, WkError *err)
{
    int rc, json = (flags & WK_CLI_PERF_JSON) != 0;
    WkPerfResult r;
    uint8_t pc;
    WkError e;
    wk_error_clear(&e);
    if ((rc = wk_eval_job(c, m, NULL, (uint32_t)gpus, pp, &r, &pc, &e)) < 0) {
        return wk_node_error(gn, rc, err, "%s", e.msg);
    }
    const char *per = m->kind == WK_MODEL_LLM ? "tokens" : "samples";
    if (json) {
        wk_strbuf_printf(b, "{\"model\":\"%s\",\"gpus\":%lld,\"sku\":\"%s\",\"dp\":%u,\"micro_batches\":%u,"
               "\"iteration_s\":%.9g,\"compute_s\":%.9g,\"bubble_s\":%.9g,\"tp_s\":%.9g,\"cp_s\":%.9g,"
               "\"pp_s\":%.9g,\"dp_s\":%.9g,\"ep_s\":%.9g,\"optimizer_s\":%.9g,\"interference_s\":%.9g,"
               "\"%s_per_s\":%.9g,\"tflops_per_gpu\":%.9g,\"mfu\":%.9g,"
               "\"memory_gib\":%.9g,\"memory_state_gib\":%.9g,\"memory_activations_gib\":%.9g,"
               "\"memory_capacity_gib\":%.9g,\"path_class\":\"%s\",\"params\":%.9g",
           m->name, (long long)gpus, c->groups[0].sku->name, r.dp, r.micro_batches, r.iter_s, r.compute_s,
           r.bubble_s, r.tp_s, r.cp_s, r.pp_s, r.dp_s, r.ep_s, r.optim_s, r.interference_s, per,
           r.samples_per_iter / r.iter_s, r.tflops_per_gpu,
           r.mfu, r.mem_bytes / 1073741824.0, r.mem_state_bytes / 1073741824.0,
           r.mem_act_bytes / 1073741824.0, r.mem_cap_bytes / 1073741824.0, class_name(pc), m->params);
        if (m->kind == WK_MODEL_LLM && (m->stack != WK_STACK_MCORE || r.host_s > 0))
            wk_strbuf_printf(b, ",\"stack\":\"%s\",\"host_s\":%.9g", wk_stack_mech(m->stack)->name, r.host_s);
        if (r.sm_clock_mhz > 0)
            wk_strbuf_printf(b, ",\"sm_clock_mhz\":%.9g", r.sm_clock_mhz);
        calib_json(b, c->groups[0].sku);
        wk_strbuf_printf(b, "}\n");
    } else {
        wk_strbuf_printf(b, "model %s (%.3g B parameters) on %lld x %s: dp %u, %u micro-batches per replica\n", m->name,
           m->params / 1e9, (long long)gpus, c->groups[0].sku->name, r.dp, r.micro_batches);
        wk_strbuf_printf(b, "%-34s %12.4f s\n", "iteration time", r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  compute (bounding stage)", r.compute_s, 100 * r.compute_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  pipeline bubble", r.bubble_s, 100 * r.bubble_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  tensor-parallel comm (exposed)", r.tp_s, 100 * r.tp_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  context-parallel comm (exposed)", r.cp_s, 100 * r.cp_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  pipeline comm (exposed)", r.pp_s, 100 * r.pp_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  data-parallel comm (exposed)", r.dp_s, 100 * r.dp_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  expert/all-to-all comm (exposed)", r.ep_s, 100 * r.ep_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  optimizer step", r.optim_s, 100 * r.optim_s / r.iter_s);
        if (m->kind == WK_MODEL_LLM && (m->stack != WK_STACK_MCORE || r.host_s > 0))
            wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%  (stack %s)\n", "  host dispatch wait", r.host_s,
                             100 * r.host_s / r.iter_s, wk_stack_mech(m->stack)->name);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  overlap slowdown of compute", r.interference_s,
                         100 * r.interference_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4g %s/s\n", "throughput", r.samples_per_iter / r.iter_s, per);
        wk_strbuf_printf(b, "%-34s %12.1f TFLOP/s\n", "achieved per GPU (model FLOPs)", r.tflops_per_gpu);
        wk_strbuf_printf(b, "%-34s %12.1f %%\n", "MFU", 100 * r.mfu);
        wk_strbuf_printf(b, "%-34s %12.1f GiB (state %.1f, activations %.1f) of %.1f\n", "memory per GPU",
           r.mem_bytes / 1073741824.0, r.mem_state_bytes / 1073741824.0, r.mem_act_bytes / 1073741824.0,
           r.mem_cap_bytes / 1073741824.0);
        wk_strbuf_printf(b, "%-34s %12s\n", "widest path class", class_name(pc));
        if (r.sm_clock_mhz > 0)
            wk_strbuf_printf(b, "%-34s %12.0f MHz (GEMMs and attention at the board power limit; "
                                "perf.sustained_clock)\n", "SM clock", r.sm_clock_mhz);
        if (m->attention == WK_ATTN_FLASH1)
            wk_strbuf_printf(b, "%-34s %12s FlashAttention-1's measured rate (docs/models.md, \"Flash attention\")\n",
                             "attention kernel", "flash1:");
        if (m->kind == WK_MODEL_RECSYS)
            wk_strbuf_printf(b, "note: recommendation models are illustrative: no published throughput validates "
                                "them (docs/validation.md)\n");
        if (flags & WK_CLI_PERF_OPS)
            return wk_perf_ops_text(&r, b);
    }
    return 0;
}

/* `wan:` — the job spans sites built like the cluster: sites, bandwidth,
 * latency (required), efficiency (optional). Positioned errors. */
static int wan_parse(const WkNode *wn, WkPerfWan *w, WkError *err)
{
    static const char *const known[] = {"sites", "bandwidth", "latency", "efficiency", NULL};
    int64_t sites = 0;
    WkTime lat = 0;
    *w = (WkPerfWan){0};
    int rc = wk_node_expect_keys(wn, known, err);
    if (rc < 0 || (rc = wk_node_int(wn, "sites", 1, 2, 4096, &sites, err)) < 0 ||
        (rc = wk_node_rate(wn, "bandwidth", 1, 1, 1e18, &w->bw_bits_per_s, err)) < 0 ||
        (rc = wk_node_duration(wn, "latency", 1, 0, WK_NS_PER_H, &lat, err)) < 0 ||
        (rc = wk_node_double(wn, "efficiency", 0, 1e-6, 1, &w->eff, err)) < 0)
        return rc;
    w->sites = (uint32_t)sites;
    w->lat_s = wk_time_to_s(lat);
    if (w->eff == 0)
        w->eff = WK_PERF_WAN_EFF;
    return 0;
}

/* A job of `gpus` GPUs over w->sites sites: the one-site reference, the
 * spanning job, the exposed WAN time and the slowdown; text or JSON. */
static int report_wan(WkStrBuf *b, const WkCluster *c, const WkModelSpec *m, const WkPerfParams *pp, int64_t gpus,
                      const WkPerfWan *w, const WkNode *wn, unsigned flags, WkError *err)
{
    WkPerfResult one, span;
    uint8_t pc;
    WkError e;
    wk_error_clear(&e);
    uint32_t per_site = (uint32_t)(gpus / w->sites);
    int rc = wk_eval_job_wan(c, m, NULL, per_site, pp, w, &span, &one, &pc, &e);
    if (rc < 0)
        return wk_node_error(wn, rc, err, "%s", e.msg);
    const char *per = m->kind == WK_MODEL_LLM ? "tokens" : "samples", *sku = c->groups[0].sku->name;
    double bytes = wk_perf_wan_bytes(m, w->sites), slow = span.iter_s / one.iter_s, gib = 1073741824.0;
    if (flags & WK_CLI_PERF_JSON) {
        wk_strbuf_printf(b, "{\"model\":\"%s\",\"gpus\":%lld,\"sites\":%u,\"gpus_per_site\":%u,\"sku\":\"%s\","
               "\"wan_bandwidth_bits_per_s\":%.9g,\"wan_latency_s\":%.9g,\"wan_efficiency\":%.9g,\"dp\":%u,"
               "\"dp_per_site\":%u,\"micro_batches\":%u,\"single_site_iteration_s\":%.9g,\"iteration_s\":%.9g,"
               "\"wan_s\":%.9g,\"dp_s\":%.9g,\"slowdown\":%.9g,\"wan_bytes_per_link\":%.9g,"
               "\"single_site_%s_per_s\":%.9g,\"%s_per_s\":%.9g,\"single_site_tflops_per_gpu\":%.9g,"
               "\"tflops_per_gpu\":%.9g,\"mfu\":%.9g,\"memory_gib\":%.9g,\"path_class\":\"%s\",\"params\":%.9g}\n",
               m->name, (long long)gpus, w->sites, per_site, sku, w->bw_bits_per_s, w->lat_s, w->eff, span.dp,
               span.dp / w->sites, span.micro_batches, one.iter_s, span.iter_s, span.wan_s, span.dp_s, slow, bytes,
               per, one.samples_per_iter / one.iter_s, per, span.samples_per_iter / span.iter_s, one.tflops_per_gpu,
               span.tflops_per_gpu, span.mfu, span.mem_bytes / gib, class_name(pc), m->params);
        return 0;
    }
    wk_strbuf_printf(b, "model %s (%.3g B parameters) on %u sites x %u x %s, WAN %g Gbit/s per link at %.0f %%, %g ms one way\n",
       m->name, m->params / 1e9, w->sites, per_site, sku, w->bw_bits_per_s / 1e9, 100 * w->eff, w->lat_s * 1e3);
    wk_strbuf_printf(b, "dp %u (%u per site), %u micro-batches per replica\n", span.dp, span.dp / w->sites,
       span.micro_batches);
    wk_strbuf_printf(b, "%-34s %12.4f s\n", "iteration time, one site", one.iter_s);
    wk_strbuf_printf(b, "%-34s %12.4f s\n", "iteration time, across sites", span.iter_s);
    wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  WAN gradient reduction (exposed)", span.wan_s, 100 * span.wan_s / span.iter_s);
    wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  data-parallel in sites (exposed)", span.dp_s, 100 * span.dp_s / span.iter_s);
    wk_strbuf_printf(b, "%-34s %12.3f x\n", "slowdown across sites", slow);
    wk_strbuf_printf(b, "%-34s %12.1f GB per direction (%.3f s at the link rate)\n", "WAN traffic per link, iteration",
       bytes / 1e9, bytes * 8 / (w->bw_bits_per_s * w->eff));
    wk_strbuf_printf(b, "%-34s %12.4g / %.4g %s/s\n", "throughput, one site / across", one.samples_per_iter / one.iter_s,
       span.samples_per_iter / span.iter_s, per);
    wk_strbuf_printf(b, "%-34s %12.1f / %.1f TFLOP/s\n", "achieved per GPU, one site / across", one.tflops_per_gpu,
       span.tflops_per_gpu);
    wk_strbuf_printf(b, "%-34s %12.1f GiB of %.1f\n", "memory per GPU, across sites", span.mem_bytes / gib,
       span.mem_cap_bytes / gib);
    return 0;
}

/* The weak-scaling curve over scale[0 .. nscale), as a table or a JSON array. */
static int report_scaling(WkStrBuf *b, const WkCluster *c, const WkModelSpec *m, const WkPerfParams *pp, int64_t gpus,
                          const WkNode *gn, const uint32_t *scale, size_t nscale, int json, WkError *err)
{
    int rc;
    /* weak scaling: micro-batches per replica of the base job held fixed */
    WkPerfResult base;
    uint8_t pc;
    WkError e;
    wk_error_clear(&e);
    if (m->kind == WK_MODEL_LLM) {
        uint32_t per = m->tp * m->pp * m->cp;
        if (gpus % per || !m->global_batch) {
            return wk_node_error(gn, WK_E_INVAL, err, "--scale needs gpus divisible by tp*pp*cp = %u and a global batch",
                               per);
        }
    }
    uint32_t mb0 = m->kind == WK_MODEL_LLM ? m->global_batch / (uint32_t)(gpus / (m->tp * m->pp * m->cp)) : 0;
    double tput0 = 0;
    uint32_t g0 = 0;
    WkEvalSweep *sw = NULL; /* the points share ring and flow storage, and repeated sizes their network */
    if ((rc = wk_eval_sweep_new(&sw, c, err)) < 0)
        return rc;
    if (json)
        wk_strbuf_printf(b, "[");
    else
        wk_strbuf_printf(b, "%-8s %6s %12s %14s %10s %7s %10s\n", "gpus", "dp", "iteration_s", "throughput/s", "TFLOP/s", "MFU",
           "scaling");
    for (size_t i = 0; i < nscale; i++) {
        WkModelSpec ms = *m;
        if (m->kind == WK_MODEL_LLM) {
            uint32_t per = m->tp * m->pp * m->cp;
            if (scale[i] % per) {
                wk_eval_sweep_free(sw);
                return wk_error_set(err, WK_E_INVAL, "--scale", 0, 0, "%u GPUs are not a multiple of tp*pp*cp = %u",
                                  scale[i], per);
            }
            ms.global_batch = mb0 * (scale[i] / per);
        }
        if ((rc = wk_eval_sweep_job(sw, &ms, NULL, scale[i], pp, NULL, &base, NULL, &pc, &e)) < 0) {
            wk_eval_sweep_free(sw);
            return wk_error_set(err, rc, "--scale", 0, 0, "%u GPUs: %s", scale[i], e.msg);
        }
        double tput = base.samples_per_iter / base.iter_s;
        if (i == 0) {
            tput0 = tput;
            g0 = scale[i];
        }
        double eff = (tput / scale[i]) / (tput0 / g0);
        if (json)
            wk_strbuf_printf(b, "%s{\"gpus\":%u,\"dp\":%u,\"iteration_s\":%.9g,\"throughput_per_s\":%.9g,"
                   "\"tflops_per_gpu\":%.9g,\"mfu\":%.9g,\"scaling_efficiency\":%.9g}",
               i ? "," : "", scale[i], base.dp, base.iter_s, tput, base.tflops_per_gpu, base.mfu, eff);
        else
            wk_strbuf_printf(b, "%-8u %6u %12.4f %14.4g %10.1f %6.1f%% %9.1f%%\n", scale[i], base.dp, base.iter_s, tput,
               base.tflops_per_gpu, 100 * base.mfu, 100 * eff);
    }
    wk_eval_sweep_free(sw);
    if (json)
        wk_strbuf_printf(b, "]\n");
    return 0;
}

int wk_cli_perf(const WkDoc *doc, const uint32_t *scale, size_t nscale, unsigned flags, char **text, WkError *err)
{
    const WkNode *root = doc->root;
    WkStrBuf b = {0};
    *text = NULL;
    if (!root)
        return wk_error_set(err, WK_E_INVAL, doc->file, 0, 0, "empty job file: expected model: and gpus:");
    int rc = wk_section_check(root, WK_DOC_PERF, err);
    if (rc < 0)
        return rc;
    int64_t gpus = 0;
    uint32_t maxg = 0;
    const WkNode *wn = wk_node_get(root, "wan");
    WkPerfWan wan = {0};
    if ((rc = wk_node_int(root, "gpus", 1, 1, WK_CLUSTER_MAX_GPUS, &gpus, err)) < 0 ||
        (wn && (rc = wan_parse(wn, &wan, err)) < 0))
        return rc;
    if (wn && nscale)
        return wk_node_error(wn, WK_E_INVAL, err, "--scale does not combine with wan: (one site's scaling curve)");
    maxg = (uint32_t)(wn ? gpus / wan.sites : gpus);
    for (size_t i = 0; i < nscale; i++)
        maxg = scale[i] > maxg ? scale[i] : maxg;
    WkModelSpec m;
    WkPerfParams pp;
    if ((rc = wk_perf_parse(wk_node_get(root, "perf"), &pp, err)) < 0 ||
        (rc = wk_model_parse(wk_node_get(root, "model"), wk_node_get(root, "models"), &m, err)) < 0)
        return rc;
    uint32_t per = m.kind == WK_MODEL_LLM ? m.tp * m.pp * m.cp : 1;
    if (wn && gpus % ((int64_t)wan.sites * per))
        return wk_node_error(wk_node_get(wn, "sites"), WK_E_INVAL, err,
                             "%lld GPUs do not split over %u sites in whole replicas: need a multiple of sites x tp x "
                             "pp x cp = %lld", (long long)gpus, wan.sites, (long long)wan.sites * per);
    /* the cluster: given, or H100 nodes with a 400G rail fabric sized to fit */
    WkDoc *dflt = NULL;
    const WkNode *cn = wk_node_get(root, "cluster");
    if (!cn) {
        char y[256];
        uint32_t nodes = (maxg + 7) / 8;
        snprintf(y, sizeof y, "cluster: {sku: H100-SXM-80G, nodes: %u, gpus_per_node: 8, nodes_per_pod: %u, "
                              "fabric: {kind: rail, radix: %u, link_gbps: 400}}\n",
                 nodes, nodes > 8192 ? 128u : 32u, nodes > 8192 ? 128u : 64u);
        if ((rc = wk_doc_load_string(&dflt, "(default cluster)", y, strlen(y), err)) < 0)
            return rc;
        cn = wk_node_get(dflt->root, "cluster");
    }
    WkCluster c;
    if ((rc = wk_cluster_parse(cn, &c, err)) < 0) {
        wk_doc_free(dflt);
        return rc;
    }
    if (maxg > c.gpus) {
        rc = wk_node_error(wk_node_get(root, "gpus"), WK_E_RANGE, err, "the job needs %u GPUs%s, the cluster has %u",
                           maxg, wn ? " per site" : "", c.gpus);
        goto done;
    }
    const WkNode *gn = wk_node_get(root, "gpus");
    if (!(flags & WK_CLI_PERF_JSON))
        calib_text(&b, &c);
    rc = wn           ? report_wan(&b, &c, &m, &pp, gpus, &wan, wn, flags, err)
         : nscale == 0 ? report_one(&b, &c, &m, &pp, gpus, gn, flags, err)
                       : report_scaling(&b, &c, &m, &pp, gpus, gn, scale, nscale, (flags & WK_CLI_PERF_JSON) != 0, err);
    if (rc < 0)
        goto done;
    *text = wk_strbuf_take(&b);
    rc = *text ? 0 : wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "perf: out of memory");
done:
    free(b.p);
    wk_cluster_fini(&c);
    wk_doc_free(dflt);
    return rc;
}
