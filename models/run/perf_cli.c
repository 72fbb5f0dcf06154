/* SPDX-License-Identifier: Apache-2.0 */
/* perf_cli.c — `wanka perf`: one job's iteration time, its breakdown,
 * throughput, MFU and memory on a cluster; or its scaling curve. The job is
 * placed on the first GPUs and its ring flows share the fabric (so ECMP
 * collisions and oversubscription show), with no other job running. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/flow.h"
#include "models/run/eval.h"
#include "models/run/run.h"
#include "sim/scenario/section.h"
#include "sim/core/strbuf.h"

static const char *class_name(uint8_t c)
{
    return c == WK_JOB_NO_PATH ? "none" : wk_path_class_name((WkPathClass)c);
}

/* One job of `gpus` GPUs: its breakdown as text or one JSON object. */
static int report_one(WkStrBuf *b, const WkCluster *c, const WkModelSpec *m, const WkPerfParams *pp, int64_t gpus,
                      const WkNode *gn, unsigned flags, WkError *err)
{
    int rc, json = (flags & WK_RUN_PERF_JSON) != 0;
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
               "\"iteration_s\":%.9g,\"compute_s\":%.9g,\"bubble_s\":%.9g,\"tp_s\":%.9g,\"pp_s\":%.9g,"
               "\"dp_s\":%.9g,\"ep_s\":%.9g,\"%s_per_s\":%.9g,\"tflops_per_gpu\":%.9g,\"mfu\":%.9g,"
               "\"memory_gib\":%.9g,\"memory_state_gib\":%.9g,\"memory_activations_gib\":%.9g,"
               "\"path_class\":\"%s\",\"params\":%.9g}\n",
           m->name, (long long)gpus, c->groups[0].sku->name, r.dp, r.micro_batches, r.iter_s, r.compute_s,
           r.bubble_s, r.tp_s, r.pp_s, r.dp_s, r.ep_s, per, r.samples_per_iter / r.iter_s, r.tflops_per_gpu,
           r.mfu, r.mem_bytes / 1073741824.0, r.mem_state_bytes / 1073741824.0,
           r.mem_act_bytes / 1073741824.0, class_name(pc), m->params);
    } else {
        wk_strbuf_printf(b, "model %s (%.3g B parameters) on %lld x %s: dp %u, %u micro-batches per replica\n", m->name,
           m->params / 1e9, (long long)gpus, c->groups[0].sku->name, r.dp, r.micro_batches);
        wk_strbuf_printf(b, "%-34s %12.4f s\n", "iteration time", r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  compute (bounding stage)", r.compute_s, 100 * r.compute_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  pipeline bubble", r.bubble_s, 100 * r.bubble_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  tensor-parallel comm (exposed)", r.tp_s, 100 * r.tp_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  pipeline comm (exposed)", r.pp_s, 100 * r.pp_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  data-parallel comm (exposed)", r.dp_s, 100 * r.dp_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4f s  %5.1f %%\n", "  expert/all-to-all comm (exposed)", r.ep_s, 100 * r.ep_s / r.iter_s);
        wk_strbuf_printf(b, "%-34s %12.4g %s/s\n", "throughput", r.samples_per_iter / r.iter_s, per);
        wk_strbuf_printf(b, "%-34s %12.1f TFLOP/s\n", "achieved per GPU (model FLOPs)", r.tflops_per_gpu);
        wk_strbuf_printf(b, "%-34s %12.1f %%\n", "MFU", 100 * r.mfu);
        wk_strbuf_printf(b, "%-34s %12.1f GiB (state %.1f, activations %.1f) of %.1f\n", "memory per GPU",
           r.mem_bytes / 1073741824.0, r.mem_state_bytes / 1073741824.0, r.mem_act_bytes / 1073741824.0,
           c->groups[0].sku->hbm_bytes / 1073741824.0);
        wk_strbuf_printf(b, "%-34s %12s\n", "widest path class", class_name(pc));
        if (flags & WK_RUN_PERF_OPS)
            return wk_perf_ops_text(&r, b);
    }
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
                return wk_error_set(err, WK_E_INVAL, "--scale", 0, 0, "%u GPUs are not a multiple of tp*pp*cp = %u",
                                  scale[i], per);
            }
            ms.global_batch = mb0 * (scale[i] / per);
        }
        if ((rc = wk_eval_job(c, &ms, NULL, scale[i], pp, &base, &pc, &e)) < 0) {
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
    if (json)
        wk_strbuf_printf(b, "]\n");
    return 0;
}

int wk_run_perf(const WkDoc *doc, const uint32_t *scale, size_t nscale, unsigned flags, char **text, WkError *err)
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
    if ((rc = wk_node_int(root, "gpus", 1, 1, WK_CLUSTER_MAX_GPUS, &gpus, err)) < 0)
        return rc;
    maxg = (uint32_t)gpus;
    for (size_t i = 0; i < nscale; i++)
        maxg = scale[i] > maxg ? scale[i] : maxg;
    WkModelSpec m;
    WkPerfParams pp;
    if ((rc = wk_perf_parse(wk_node_get(root, "perf"), &pp, err)) < 0 ||
        (rc = wk_model_parse(wk_node_get(root, "model"), wk_node_get(root, "models"), &m, err)) < 0)
        return rc;
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
        rc = wk_node_error(wk_node_get(root, "gpus"), WK_E_RANGE, err, "the job needs %u GPUs, the cluster has %u",
                           maxg, c.gpus);
        goto done;
    }
    const WkNode *gn = wk_node_get(root, "gpus");
    rc = nscale == 0 ? report_one(&b, &c, &m, &pp, gpus, gn, flags, err)
                     : report_scaling(&b, &c, &m, &pp, gpus, gn, scale, nscale, (flags & WK_RUN_PERF_JSON) != 0, err);
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
