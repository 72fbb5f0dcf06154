/* SPDX-License-Identifier: Apache-2.0 */
/* perf.c — iteration time and memory of a training job (see perf.h and
 * docs/models.md for every equation and its source). */
#include "models/workload/perf.h"

#include <math.h>
#include <stdio.h>

#include "models/net/collective.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

WkPerfParams wk_perf_defaults(void)
{
    return (WkPerfParams){.gemm_eff = 0.75, .dp_overlap = 0.8, .lat_intra_s = 2e-6, .lat_inter_s = 8e-6};
}

int wk_perf_parse(const WkNode *sec, WkPerfParams *out, WkError *err)
{
    static const char *const known[] = {"gemm_efficiency", "dp_overlap", "latency_intra", "latency_inter", NULL};
    WkPerfParams p = wk_perf_defaults();
    if (sec && sec->type != WK_NODE_NULL) {
        WkTime li = (WkTime)(p.lat_intra_s * 1e9), le = (WkTime)(p.lat_inter_s * 1e9);
        int rc = wk_node_expect_keys(sec, known, err);
        if (rc < 0 || (rc = wk_node_double(sec, "gemm_efficiency", 0, 0.01, 1, &p.gemm_eff, err)) < 0 ||
            (rc = wk_node_double(sec, "dp_overlap", 0, 0, 1, &p.dp_overlap, err)) < 0 ||
            (rc = wk_node_duration(sec, "latency_intra", 0, 0, WK_NS_PER_S, &li, err)) < 0 ||
            (rc = wk_node_duration(sec, "latency_inter", 0, 0, WK_NS_PER_S, &le, err)) < 0)
            return rc;
        p.lat_intra_s = wk_time_to_s(li);
        p.lat_inter_s = wk_time_to_s(le);
    }
    *out = p;
    return 0;
}

/* Roofline time of an (M x K) x (K x N) GEMM (Williams et al., CACM 2009):
 * the larger of its compute time at gemm_eff of peak and its HBM traffic
 * time (read both operands, write the result once). */
static double gemm_s(double M, double K, double N, double peak, double hbm, double elem)
{
    double t_flop = 2 * M * K * N / peak;
    double t_mem = elem * (M * K + K * N + M * N) / hbm;
    return t_flop > t_mem ? t_flop : t_mem;
}

static double min2(double a, double b) { return a < b ? a : b; }

/* All-reduce over n ranks the way NCCL picks: the faster of ring and tree. */
static double allreduce_s(double bytes, uint32_t n, double bw, double lat)
{
    return min2(wk_coll_allreduce_ring_s(bytes, n, bw, lat), wk_coll_allreduce_tree_s(bytes, n, bw, lat));
}

static int check_memory(const WkModelSpec *m, const WkPerfEnv *env, WkPerfResult *r, WkError *err)
{
    double cap = env->sku->hbm_bytes;
    if (r->mem_bytes <= cap)
        return 0;
    return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                        "model %s needs %.1f GiB per GPU (weights+gradients+optimizer %.1f, activations %.1f) but "
                        "%s has %.1f GiB: %.1f GiB short (more tp/pp, ZeRO, recomputation or a smaller micro-batch)",
                        m->name, r->mem_bytes / GIB, r->mem_state_bytes / GIB, r->mem_act_bytes / GIB,
                        env->sku->name, cap / GIB, (r->mem_bytes - cap) / GIB);
}

/* Bytes per parameter of training state (bf16 weights 2 + bf16 gradients 2 +
 * fp32 master weights 4 + Adam moments 8), sharded by ZeRO stage over dp. */
static double state_bytes(double params, int zero, double dp)
{
    double w = 2 * params, g = 2 * params, o = 12 * params;
    if (zero >= 1)
        o /= dp;
    if (zero >= 2)
        g /= dp;
    if (zero >= 3)
        w /= dp;
    return w + g + o;
}

static int eval_llm(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, WkPerfResult *r,
                    WkError *err)
{
    uint32_t per_replica = m->tp * m->pp * m->cp;
    if (env->gpus % per_replica)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%u GPUs are not a multiple of tp x pp x cp = %u", env->gpus,
                            per_replica);
    uint32_t dp = env->gpus / per_replica;
    if (m->ep > 1 && dp % m->ep)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "ep = %u does not divide the data-parallel degree %u", m->ep,
                            dp);
    uint32_t gb = m->global_batch ? m->global_batch : dp * m->micro_batch * 4 * m->pp;
    if (gb % (dp * m->micro_batch))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                            "global batch %u does not split into dp %u x micro-batch %u (need a multiple of %u)", gb,
                            dp, m->micro_batch, dp * m->micro_batch);
    double mb = gb / (dp * m->micro_batch); /* micro-batches per replica */
    double elem = m->fp8 ? 1 : 2;
    double peak_nom = m->fp8 && env->sku->fp8_flops > 0 ? env->sku->fp8_flops : env->sku->bf16_flops;
    double peak = peak_nom * env->speed * p->gemm_eff;
    double hbm = env->sku->hbm_bw_bytes_per_s * env->speed;
    double t = m->tp, h = m->hidden, s = m->seq_len, kv = m->kv_heads;
    double T = (double)m->micro_batch * s / m->cp; /* tokens of a micro-batch on one rank */
    double Mmlp = m->experts ? T * m->top_k : T;

    /* forward time of one layer for one micro-batch */
    double qkv = gemm_s(T, h, (h + 2 * h * kv / m->heads) / t, peak, hbm, elem);
    double o = gemm_s(T, h / t, h, peak, hbm, elem);
    double up = gemm_s(Mmlp, h, (m->gated_mlp ? 2.0 : 1.0) * m->ffn / t, peak, hbm, elem);
    double down = gemm_s(Mmlp, m->ffn / t, h, peak, hbm, elem);
    double attn = 4 * T * s * h / t / peak; /* QK^T and AV, flash-attention: compute-bound */
    double f = qkv + o + up + down + attn;
    double b = 2 * f;
    double rc = m->recompute == WK_RECOMPUTE_FULL ? f : m->recompute == WK_RECOMPUTE_SELECTIVE ? attn : 0;
    double layers = ceil((double)m->layers / m->pp); /* the bounding stage */
    double head = 3 * gemm_s(T, h, m->vocab / t, peak, hbm, elem); /* output layer, fwd + bwd */
    double t_mb = layers * (f + b + rc) + head;

    r->dp = dp;
    r->micro_batches = (uint32_t)mb;
    r->compute_s = mb * t_mb;
    r->bubble_s = (m->pp - 1) / (double)m->vp * t_mb;

    double bw_tp = env->tp_cross ? env->net_bw : env->nvlink_bw;
    double lat_tp = env->tp_cross ? p->lat_inter_s : p->lat_intra_s;
    if (m->tp > 1) {
        double ar = wk_coll_allreduce_ring_s(T * h * elem, m->tp, bw_tp, lat_tp);
        double n_ar = 4 + (m->recompute == WK_RECOMPUTE_FULL ? 2 : 0);
        r->tp_s = mb * layers * n_ar * ar;
    }
    if (m->pp > 1) {
        double bw = env->multi_domain ? env->net_bw : env->nvlink_bw;
        double lat = env->multi_domain ? p->lat_inter_s : p->lat_intra_s;
        r->pp_s = 2 * (m->pp - 1) * wk_coll_p2p_s(T * h * elem, bw, lat);
    }
    /* data parallel: gradients of this rank's parameters, bf16 */
    double expert_params = m->experts ? (double)m->layers * m->experts * (m->gated_mlp ? 3.0 : 2.0) * h * m->ffn : 0;
    double dense_params = m->params - expert_params;
    double local = dense_params / (m->tp * m->pp) + expert_params / ((double)m->tp * m->pp * m->ep);
    if (dp > 1) {
        uint32_t n_intra = 1;
        if (m->tp < env->nvlink_gpus) {
            n_intra = env->nvlink_gpus / m->tp;
            if (n_intra > dp)
                n_intra = dp;
            while (dp % n_intra)
                n_intra--;
        }
        uint32_t n_inter = dp / n_intra;
        double bytes = 2 * local * (m->zero >= 3 ? 1.5 : 1.0);
        double t_dp;
        if (n_inter <= 1)
            t_dp = allreduce_s(bytes, n_intra, env->nvlink_bw, p->lat_intra_s);
        else {
            double intra = n_intra > 1 ? wk_coll_reduce_scatter_s(bytes, n_intra, env->nvlink_bw, p->lat_intra_s) +
                                             wk_coll_all_gather_s(bytes, n_intra, env->nvlink_bw, p->lat_intra_s)
                                       : 0;
            t_dp = intra + allreduce_s(bytes / n_intra, n_inter, env->net_bw, p->lat_inter_s);
        }
        double hidden = min2(p->dp_overlap * t_dp, mb * layers * b);
        r->dp_s = t_dp - hidden;
    }
    if (m->ep > 1 && m->experts) {
        int local_ep = (double)m->ep * m->tp <= env->nvlink_gpus;
        double bw = local_ep ? env->nvlink_bw : env->net_bw;
        double lat = local_ep ? p->lat_intra_s : p->lat_inter_s;
        double a2a = wk_coll_all_to_all_s(T * m->top_k * h * elem, m->ep, bw, lat);
        r->ep_s = mb * layers * 4 * a2a;
    }
    r->iter_s = r->compute_s + r->bubble_s + r->tp_s + r->pp_s + r->dp_s + r->ep_s;
    r->samples_per_iter = (double)gb * s;
    r->model_flops_per_iter = wk_model_train_flops_per_token(m) * r->samples_per_iter;
    r->tflops_per_gpu = r->model_flops_per_iter / r->iter_s / env->gpus / 1e12;
    r->mfu = r->model_flops_per_iter / r->iter_s / env->gpus / peak_nom;

    /* memory: training state, and activations after Korthikanti et al. (2022)
     * with sequence parallelism, 34*s*b*h/t bytes per layer and micro-batch;
     * their 5*a*s^2*b attention-score term is dropped because flash attention
     * (Dao et al., NeurIPS'22) never stores the scores, which also makes
     * selective recomputation free in memory terms; full recomputation keeps
     * only the layer input, 2*s*b*h/t. The first stage holds min(m, pp)
     * micro-batches in flight (x (1 + (pp-1)/(pp*vp)) when interleaved). */
    r->mem_state_bytes = state_bytes(local, m->zero, dp);
    double sbh = (double)m->micro_batch * s / m->cp * h;
    double per_layer = m->recompute == WK_RECOMPUTE_FULL ? 2 * sbh / t : 34 * sbh / t;
    double inflight = min2(mb, m->pp);
    if (m->schedule == WK_PP_INTERLEAVED && m->pp > 1)
        inflight *= 1 + (m->pp - 1) / ((double)m->pp * m->vp);
    r->mem_act_bytes = per_layer * layers * inflight;
    r->mem_bytes = r->mem_state_bytes + r->mem_act_bytes;
    return check_memory(m, env, r, err);
}

/* Vision and recommendation jobs: data parallel over all GPUs. */
static int eval_dp(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, WkPerfResult *r, WkError *err)
{
    double peak_nom = env->sku->bf16_flops;
    double peak = peak_nom * env->speed * p->gemm_eff;
    double B = m->batch_per_gpu;
    uint32_t n = env->gpus;
    r->dp = n;
    r->micro_batches = 1;
    r->compute_s = 3 * m->flops_per_sample * B / peak;
    double bytes = 2 * m->params;
    double t_dp = 0;
    if (n > 1) {
        uint32_t n_intra = env->nvlink_gpus < n ? env->nvlink_gpus : n;
        while (n % n_intra)
            n_intra--;
        uint32_t n_inter = n / n_intra;
        t_dp = n_inter <= 1 ? allreduce_s(bytes, n_intra, env->nvlink_bw, p->lat_intra_s)
                            : wk_coll_reduce_scatter_s(bytes, n_intra, env->nvlink_bw, p->lat_intra_s) +
                                  wk_coll_all_gather_s(bytes, n_intra, env->nvlink_bw, p->lat_intra_s) +
                                  allreduce_s(bytes / n_intra, n_inter, env->net_bw, p->lat_inter_s);
    }
    r->dp_s = t_dp - min2(p->dp_overlap * t_dp, r->compute_s * 2 / 3);
    if (m->kind == WK_MODEL_RECSYS && n > 1) {
        double bw = env->multi_domain ? env->net_bw : env->nvlink_bw;
        double lat = env->multi_domain ? p->lat_inter_s : p->lat_intra_s;
        r->ep_s = 2 * wk_coll_all_to_all_s(B * m->a2a_bytes_per_sample, n, bw, lat); /* forward + backward */
    }
    r->iter_s = r->compute_s + r->dp_s + r->ep_s;
    r->samples_per_iter = B * n;
    r->model_flops_per_iter = 3 * m->flops_per_sample * r->samples_per_iter;
    r->tflops_per_gpu = r->model_flops_per_iter / r->iter_s / n / 1e12;
    r->mfu = r->model_flops_per_iter / r->iter_s / n / peak_nom;
    r->mem_state_bytes = 16 * m->params + m->embedding_bytes / n;
    r->mem_act_bytes = 0; /* not modelled for these kinds */
    r->mem_bytes = r->mem_state_bytes;
    return check_memory(m, env, r, err);
}

int wk_perf_eval(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, WkPerfResult *out, WkError *err)
{
    *out = (WkPerfResult){0};
    if (env->gpus == 0 || !(env->speed > 0) || !(env->net_bw > 0) || !(env->nvlink_bw > 0))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "perf: empty placement or zero bandwidth");
    return m->kind == WK_MODEL_LLM ? eval_llm(m, env, p, out, err) : eval_dp(m, env, p, out, err);
}
