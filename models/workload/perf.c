/* SPDX-License-Identifier: Apache-2.0 */
/* perf.c — iteration time and memory of a training job (see perf.h and
 * docs/models.md for every equation and its source). */
#include "models/workload/perf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/net/collective.h"
#include "models/workload/perf_clock.h"
#include "models/workload/perf_comm.h"
#include "models/workload/stack.h"
#include "models/workload/vision.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

WkPerfParams wk_perf_defaults(void)
{
    return (WkPerfParams){.gemm_eff = 0, .dp_overlap = 1, .lat_intra_s = 0, .lat_inter_s = 8e-6, .gemm_shapes = 0,
                          .sustained_clock = 1};
}

int wk_perf_parse(const WkNode *sec, WkPerfParams *out, WkError *err)
{
    static const char *const known[] = {"gemm_efficiency", "dp_overlap",      "latency_intra", "latency_inter",
                                        "gemm_shapes",     "sustained_clock", NULL};
    WkPerfParams p = wk_perf_defaults();
    if (sec && sec->type != WK_NODE_NULL) {
        WkTime li = (WkTime)(p.lat_intra_s * 1e9), le = (WkTime)(p.lat_inter_s * 1e9);
        int rc = wk_node_expect_keys(sec, known, err);
        if (rc < 0 || (rc = wk_node_double(sec, "gemm_efficiency", 0, 0, 1, &p.gemm_eff, err)) < 0 ||
            (rc = wk_node_double(sec, "dp_overlap", 0, 0, 1, &p.dp_overlap, err)) < 0 ||
            (rc = wk_node_duration(sec, "latency_intra", 0, 0, WK_NS_PER_S, &li, err)) < 0 ||
            (rc = wk_node_duration(sec, "latency_inter", 0, 0, WK_NS_PER_S, &le, err)) < 0 ||
            (rc = wk_node_bool(sec, "gemm_shapes", 0, &p.gemm_shapes, err)) < 0 ||
            (rc = wk_node_bool(sec, "sustained_clock", 0, &p.sustained_clock, err)) < 0)
            return rc;
        p.lat_intra_s = wk_time_to_s(li);
        p.lat_inter_s = wk_time_to_s(le);
    }
    *out = p;
    return 0;
}

static double min2(double a, double b) { return a < b ? a : b; }

/* All-reduce over n ranks the way NCCL picks: the faster of ring and tree. */
static double allreduce_s(double bytes, uint32_t n, double bw, double lat)
{
    return min2(wk_coll_allreduce_ring_s(bytes, n, bw, lat), wk_coll_allreduce_tree_s(bytes, n, bw, lat));
}

static int check_memory(const WkModelSpec *m, const WkPerfEnv *env, WkPerfResult *r, WkError *err)
{
    const WkGpuSku *sku = env->mem_sku ? env->mem_sku : env->sku;
    double cap = sku->hbm_bytes;
    r->mem_cap_bytes = cap;
    if (r->mem_bytes <= cap)
        return 0;
    return wk_error_set(err, WK_E_RANGE, NULL, 0, 0,
                        "model %s needs %.1f GiB per GPU (weights+gradients+optimizer %.1f, activations %.1f) but "
                        "%s has %.1f GiB: %.1f GiB short (more tp/pp, ZeRO, recomputation or a smaller micro-batch)",
                        m->name, r->mem_bytes / GIB, r->mem_state_bytes / GIB, r->mem_act_bytes / GIB,
                        sku->name, cap / GIB, (r->mem_bytes - cap) / GIB);
}

/* Bytes per parameter of training state (bf16 weights 2 + bf16 gradients 2 +
 * fp32 master weights 4 + Adam moments 8), sharded by ZeRO stage over dp x cp. */
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

/* The SKU's curves (the shape-aware GEMM fit under gemm_shapes), with
 * gemm_efficiency overriding the measured maximum and latency_intra (> 0)
 * the measured collective step latencies. */
static WkGpuEff sku_eff(const WkPerfEnv *env, const WkPerfParams *p)
{
    WkGpuEff e = p->gemm_shapes ? wk_eff_shaped(wk_catalog_eff(env->sku)) : *wk_catalog_eff(env->sku);
    if (p->gemm_eff > 0) {
        e.fp8_max *= p->gemm_eff / e.mat_max;
        e.mat_max = p->gemm_eff;
    }
    if (p->lat_intra_s > 0)
        e.ring_lat_s = e.nvls_lat_s = p->lat_intra_s;
    return e;
}

static WkOpsShape llm_shape(const WkModelSpec *m)
{
    return (WkOpsShape){
        .T = (double)m->micro_batch * m->seq_len / m->cp, .s = m->seq_len, .b = m->micro_batch,
        .h = m->hidden, .heads = m->heads, .kv_heads = m->kv_heads, .ffn = m->ffn, .vocab = m->vocab,
        .t = m->tp, .gated = m->gated_mlp, .rotary = !m->learned_pos, .dropout = m->dropout, .fp8 = m->fp8,
        .flash = m->attention != WK_ATTN_UNFUSED, .flash1 = m->attention == WK_ATTN_FLASH1, .sp = !m->no_seq_parallel,
        .experts = m->experts, .top_k = m->top_k, .ep = m->ep, .etp = m->etp ? m->etp : m->tp,
        .imbalance = m->moe_imbalance > 1 ? m->moe_imbalance : 1, .parallel = m->parallel_block,
        .cp_ring = wk_stack_mech(m->stack)->cp_ring ? m->cp : 0,
    };
}

/* Recomputation of one layer for one micro-batch, booked into x: full
 * repeats the forward, selective the attention core; under a stack with
 * op-level selective checkpointing (torchtitan's "op" policy: the outputs
 * of every other matmul and of the attention kernel are saved) the forward
 * f but the attention core and half the matmuls (and their FP8 casts). */
static double recompute_s(const WkModelSpec *m, const WkStackMech *sk, WkOpsCtx *c, const WkOpsShape *sh,
                          const WkOpStat *f, WkOpStat *x)
{
    if (m->recompute == WK_RECOMPUTE_FULL)
        return wk_ops_layer_fwd(c, sh, 0);
    if (m->recompute != WK_RECOMPUTE_SELECTIVE)
        return 0;
    if (!sk->sac_op)
        return wk_ops_layer_fwd(c, sh, 1);
    double t = 0;
    for (int k = 0; k < WK_OP_NKIND; k++) {
        double share = k == WK_OP_ATTN ? 0 : k == WK_OP_GEMM || k == WK_OP_CAST ? 0.5 : 1;
        if (x) {
            x[k].s += share * f[k].s;
            x[k].compute_s += share * f[k].compute_s;
            x[k].memory_s += share * f[k].memory_s;
            x[k].overhead_s += share * f[k].overhead_s;
            x[k].kernels += share * f[k].kernels;
        }
        t += share * f[k].s;
    }
    return t;
}

static double kernels_of(const WkOpStat *a)
{
    double k = 0;
    for (int i = 0; i < WK_OP_NKIND; i++)
        k += a[i].kernels;
    return k;
}

/* Host dispatch (stack.h): a layer's forward issues its kernels from
 * Python, its backward from the autograd engine (recomputation from Python
 * again), each at its per-operator cost plus a launch; where the host is
 * slower than the GPU the GPU waits. A MoE layer's host synchronisations
 * (ops.h) each leave the GPU idle while the host issues the next operator
 * from Python, in the forward and in a full recomputation of it. *wf and
 * *wb: the waits of the forward and of the backward with its recomputation;
 * *sync: the synchronisations' part of them. */
static void host_waits(const WkModelSpec *m, const WkStackMech *sk, const WkGpuEff *e, const WkOpStat *f,
                       const WkOpStat *b, const WkOpStat *x, double tf, double tb, double rc, double *wf,
                       double *wb, double *sync)
{
    *wf = *wb = *sync = 0;
    if (!sk->host_model)
        return;
    double py = wk_stack_py_op_s(e), cpp = WK_HOST_OP_CPP_S + e->kernel_s;
    *wf = wk_stack_host_wait(tf, kernels_of(f), py, sk->cuda_graphs);
    double hb = wk_stack_host_wait(0, kernels_of(b), cpp, sk->cuda_graphs) +
                wk_stack_host_wait(0, kernels_of(x), py, sk->cuda_graphs);
    *wb = hb > tb + rc ? hb - (tb + rc) : 0;
    if (m->kind == WK_MODEL_LLM && m->experts) {
        double one = wk_ops_moe_syncs((double)m->experts / (m->ep ? m->ep : 1)) * py;
        *wf += one;
        *wb += m->recompute == WK_RECOMPUTE_FULL ? one : 0;
        *sync = one * (m->recompute == WK_RECOMPUTE_FULL ? 2 : 1);
    }
}

/* Compute of the bounding (last) pipeline stage for one micro-batch, from
 * the operator list: its layers forward, backward and recomputed, the
 * output layer (and the embedding when pp = 1). Fills `in` with the per
 * layer figures the communication model needs and r->ops per micro-batch;
 * *wait_s receives the stage's host-dispatch wait (in the returned time),
 * *sync_s the MoE synchronisations' part of it. */
static double stage_mb_s(const WkModelSpec *m, WkOpsCtx *c, const WkOpsShape *sh, double *layers, WkCommIn *in,
                         WkPerfResult *r, double *wait_s, double *sync_s)
{
    WkStackMech skm = wk_stack_with_reduce(m->stack, m->reduce_bytes);
    const WkStackMech *sk = &skm;
    WkOpStat f[WK_OP_NKIND] = {{0}}, b[WK_OP_NKIND] = {{0}}, x[WK_OP_NKIND] = {{0}}, hd[WK_OP_NKIND] = {{0}};
    c->mult = 1;
    c->acc = f;
    double tf = wk_ops_layer_fwd(c, sh, 0);
    c->acc = b;
    double tb = wk_ops_layer_bwd(c, sh);
    c->acc = x;
    double rc = recompute_s(m, sk, c, sh, f, x);
    c->acc = hd;
    double head = wk_ops_head(c, sh) + (m->pp == 1 ? wk_ops_embed(c, sh) : 0);
    double wf, wb, sync;
    host_waits(m, sk, c->e, f, b, x, tf, tb, rc, &wf, &wb, &sync);
    double per = tf + tb + rc + wf + wb, with_head = 1;
    if (m->first_stage_layers && m->pp > 1) {
        /* an uneven split: the slowest of the first stage, a middle one and
         * the last (which also runs the output layer) bounds the pipeline */
        double first = m->first_stage_layers, last = m->last_stage_layers;
        double mid = m->pp > 2 ? ceil((m->layers - first - last) / (double)(m->pp - 2)) : 0;
        double tl = last * per + head, tm = mid * per, tf1 = first * per;
        *layers = last;
        if (tm > tl || tf1 > tl) {
            *layers = tm >= tf1 ? mid : first;
            with_head = 0;
        }
    }
    wk_ops_add(r->ops, f, *layers);
    wk_ops_add(r->ops, b, *layers);
    wk_ops_add(r->ops, x, *layers);
    wk_ops_add(r->ops, hd, with_head);
    in->gemm_fwd_s = f[WK_OP_GEMM].s;
    in->gemm_bwd_s = b[WK_OP_GEMM].s;
    in->attn_fwd_s = f[WK_OP_ATTN].compute_s;
    in->attn_bwd_s = b[WK_OP_ATTN].compute_s;
    in->fwd_s = tf + wf;
    in->bwd_s = tb + wb;
    in->rc_s = rc;
    *wait_s = *layers * (wf + wb);
    *sync_s = *layers * sync;
    return *layers * per + with_head * head;
}

/* Clock factor of the SM side (tensor and vector peaks, kernel launch
 * overhead): the throttle factor times the DVFS cap clock. HBM bandwidth
 * keeps the memory clock, which a power cap or SM clock lock does not lower
 * (docs/models.md, "Clocks and power caps"). */
static double sm_speed(const WkPerfEnv *env)
{
    return env->cap_clock > 0 ? env->speed * env->cap_clock : env->speed;
}

/* The WAN leg of a job spanning w->sites sites (NULL in one site): the link
 * at its efficiency, each rank's NIC at the fabric's. */
static const WkWanLeg *wan_leg(const WkPerfEnv *env, const WkGpuEff *e, const WkPerfWan *w, WkWanLeg *leg)
{
    if (!w || w->sites <= 1)
        return NULL;
    *leg = (WkWanLeg){.sites = w->sites, .bw = w->bw_bits_per_s / 8 * (w->eff > 0 ? w->eff : WK_PERF_WAN_EFF),
                      .lat = w->lat_s, .nic_bw = env->net_bw * e->net_eff, .ranks = (double)env->gpus / w->sites};
    return leg;
}

/* The operator context of env's bounding rank (SKU, clocks) for model m,
 * with p's opt-in GEMM shapes and sustained clocks. */
static WkOpsCtx ops_ctx(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, const WkGpuEff *e,
                        double *clock_mhz)
{
    double sm = sm_speed(env);
    WkOpsCtx c = {.e = e, .peak = env->sku->bf16_flops * sm,
                  .peak_fp8 = m->fp8 && env->sku->fp8_flops > 0 ? env->sku->fp8_flops * sm : 0,
                  .hbm = env->sku->hbm_bw_bytes_per_s * env->speed, .speed = sm, .fp8_current = m->fp8_current,
                  .shapes = p->gemm_shapes};
    if (p->sustained_clock) {
        WkOpsShape sh = llm_shape(m);
        double run = wk_perf_sustain(&c, &sh, env->sku, env->cap_clock); /* the clock the power limit leaves (ops.h) */
        if (clock_mhz)
            *clock_mhz = wk_perf_run_mhz(env->sku, run);
    }
    return c;
}

/* Unfused operators of an eager stack (stack.h): RMSNorm taken for SwiGLU
 * models (the Llama family), LayerNorm otherwise; a stack on PyTorch's
 * native norm kernels moves the norms' bytes at their measured rate. */
static void eager_ctx(const WkModelSpec *m, const WkStackMech *sk, WkOpsCtx *c, double *bytes, double *kernels)
{
    if (sk->native_norm)
        c->norm_eff = WK_NATIVE_NORM_EFF;
    if (!sk->eager_ops)
        return;
    /* compiled blocks (compile: true) fuse the block's norm, rotary and
     * SwiGLU; the cross-entropy outside the blocks stays eager */
    int in_block = !m->compiled;
    wk_stack_eager_ops(in_block && m->gated_mlp, in_block && !m->learned_pos, in_block && m->gated_mlp, bytes, kernels);
    c->op_bytes = bytes;
    c->op_kernels = kernels;
}

void wk_perf_stage_costs(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, const WkPerfStage *st,
                         double *layer_s, double *head_s)
{
    *layer_s = *head_s = 0;
    if (m->kind != WK_MODEL_LLM)
        return;
    WkPerfEnv se = *env;
    se.sku = st->sku;
    se.speed = st->speed;
    WkGpuEff e = sku_eff(&se, p);
    WkStackMech skm = wk_stack_with_reduce(m->stack, m->reduce_bytes);
    const WkStackMech *sk = &skm;
    wk_stack_attn(sk, se.sku->name, se.sku->bf16_flops, &e.attn_fwd, &e.attn_bwd);
    WkOpsCtx c = ops_ctx(m, &se, p, &e, NULL);
    WkOpsShape sh = llm_shape(m);
    double eb[WK_OP_NKIND], ek[WK_OP_NKIND];
    eager_ctx(m, sk, &c, eb, ek);
    WkOpStat f[WK_OP_NKIND] = {{0}}, b[WK_OP_NKIND] = {{0}}, x[WK_OP_NKIND] = {{0}};
    c.mult = 1;
    c.acc = f;
    double tf = wk_ops_layer_fwd(&c, &sh, 0);
    c.acc = b;
    double tb = wk_ops_layer_bwd(&c, &sh);
    c.acc = x;
    double rc = recompute_s(m, sk, &c, &sh, f, x), wf, wb, sync;
    host_waits(m, sk, &e, f, b, x, tf, tb, rc, &wf, &wb, &sync);
    c.acc = NULL;
    *layer_s = tf + tb + rc + wf + wb;
    *head_s = wk_ops_head(&c, &sh) + (m->pp == 1 ? wk_ops_embed(&c, &sh) : 0);
}

/* Stages each at its own SKU and clock (env->stages): per micro-batch, the
 * slowest stage's compute in *max_s, the sum over the stages in *sum_s, and
 * the most layers a stage holds in *most. */
static void stage_times(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, double *max_s,
                        double *sum_s, uint32_t *most)
{
    *max_s = *sum_s = 0;
    *most = 0;
    for (uint32_t k = 0; k < m->pp; k++) {
        double ls, hs;
        wk_perf_stage_costs(m, env, p, &env->stages[k], &ls, &hs);
        double t = env->stages[k].layers * ls + (k + 1 == m->pp ? hs : 0);
        *max_s = t > *max_s ? t : *max_s;
        *sum_s += t;
        *most = env->stages[k].layers > *most ? env->stages[k].layers : *most;
    }
}

/* Bytes one layer keeps for backward per micro-batch under op-level
 * selective checkpointing (torchtitan's "op" policy): the layer input, the
 * attention kernel's output and the outputs of every other matmul in the
 * order q, k, v, o, w1, w3, w2 (the 1st, 3rd, ... are saved), all BF16,
 * for tok tokens on this rank. */
static double sac_op_bytes(const WkModelSpec *m, double tok)
{
    double t = m->tp, h = m->hidden / t, kv = h * m->kv_heads / m->heads, f = m->ffn / t;
    double out[7] = {h, kv, kv, h, f, f, h};
    int n = m->gated_mlp ? 7 : 6;
    if (!m->gated_mlp)
        out[5] = h; /* GELU: q, k, v, o, up, down */
    double saved = 0;
    for (int i = 0; i < n; i += 2)
        saved += out[i];
    return 2 * tok * (m->hidden / t + h + saved); /* input (sequence-parallel over t), attention out */
}

/* Bytes one transformer layer keeps for its backward pass per micro-batch
 * of tok tokens on this rank (the sequence after context parallelism,
 * before tensor/sequence parallelism), without recomputation: what
 * Megatron-Core with Transformer Engine saves (docs/models.md, "Memory per
 * GPU"). BF16 tensors of tok rows: each norm's input and output (the output
 * is the next linear's input: QKV and fc1, one shared norm under a parallel
 * block), flash attention's Q (h wide), K and V (h x kv_heads/heads each),
 * its output O (also the output projection's input) and its FP32
 * log-sum-exp (one per head), fc1's output (ffn wide, 2 x ffn gated) and the
 * activation's output (ffn, fc2's input); 1-byte dropout masks after
 * attention and after the MLP when the model has dropout. Tensor
 * parallelism splits the heads and ffn; sequence parallelism also splits
 * the h-wide tensors outside attention and the masks, which are otherwise
 * whole on every rank. For a GPT layer (4h GeLU MLP, dropout, MHA) it is
 * Korthikanti et al.'s 34*s*b*h/t plus the log-sum-exp. */
static double layer_act_bytes(const WkModelSpec *m, double tok)
{
    double t = m->tp, h = m->hidden, f = m->ffn, a = m->heads;
    double g = m->heads ? (double)m->kv_heads / m->heads : 1;
    double norms = m->parallel_block ? 1 : 2;
    double rep = 2 * tok * h * 2 * norms + (m->dropout ? 2 * tok * h : 0); /* norm inputs and outputs, masks */
    double attn = 2 * tok * h * (1 + 2 * g + 1) + (m->attention != WK_ATTN_UNFUSED ? 4 * tok * a : 0);
    double mlp = 2 * tok * f * ((m->gated_mlp ? 2 : 1) + 1) / t;
    if (m->experts) {
        /* a rank's experts receive its tok/t tokens' top_k copies (x the
         * imbalance), gathered over the etp ranks, and keep per row the
         * dispatched input (fc1's), fc1's output and the activation's, at
         * the expert width f/etp */
        double etp = m->etp ? m->etp : m->tp;
        double k = (m->top_k ? m->top_k : 1) * (m->moe_imbalance > 1 ? m->moe_imbalance : 1);
        mlp = 2 * (tok / t) * k * etp * (h + f / etp * ((m->gated_mlp ? 2 : 1) + 1));
    }
    /* unfused attention without recomputation keeps its s x s scores:
     * the softmax output (2 B), with dropout also its mask (1 B) and output
     * (2 B): Korthikanti et al.'s 5 a s^2 b, over t; keys span the whole
     * sequence under context parallelism */
    double scores = m->attention == WK_ATTN_UNFUSED && m->recompute == WK_RECOMPUTE_NONE
                        ? (m->dropout ? 5 : 2) * tok * m->seq_len * a / t
                        : 0;
    return (m->no_seq_parallel ? rep : rep / t) + attn / t + mlp + scores;
}

/* Micro-batches whose activations pipeline rank r (0 = first) holds at its
 * peak, in units of its whole stage: Megatron-Core's schedules.py
 * (get_pp_rank_microbatches) runs pp - r - 1 forwards before the first
 * backward under 1F1B, and 2 (pp - r - 1) + (vp - 1) pp model-chunk
 * forwards interleaved (micro-batch groups of pp, the default), one more
 * before the first backward, all of them when that reaches mb x vp. */
static double inflight_mb(const WkModelSpec *m, double mb, uint32_t r)
{
    double pp = m->pp;
    if (m->schedule == WK_PP_INTERLEAVED && m->pp > 1) {
        double vp = m->vp, chunks = 2 * (pp - r - 1) + (vp - 1) * pp + 1;
        return min2(chunks, mb * vp) / vp;
    }
    return min2(mb, pp - r);
}

/* FSDP / ZeRO-3 buffers on top of the sharded state: the unsharded BF16
 * parameters of the computing layer and of those prefetched, one layer's
 * unsharded gradient (computed in BF16, copied to the reduction dtype)
 * and the root's (embedding and output layer) unsharded parameters. */
static double fsdp_buffers(const WkStackMech *sk, double layer_params, double root)
{
    double ahead = sk->prefetch_elems > 0 ? (layer_params > 0 ? ceil(sk->prefetch_elems / layer_params) : 1)
                                          : ceil(sk->prefetch);
    if (ahead > 1 && sk->prefetch_elems > 0)
        ahead = 1;
    return 2 * layer_params * (1 + ahead) + (2 + sk->reduce_bytes) * layer_params + 2 * root;
}

/* The optimizer step as the stack implements it (stack.h): a fused
 * multi-tensor Adam (ops.c); torch's foreach AdamW or a Python loop over
 * the tensors (Composer's DecoupledAdamW): eight elementwise passes over
 * the FP32 parameter, moments and gradient (exp_avg mul 8 B and add 12,
 * exp_avg_sq mul 8 and addcmul 12, sqrt 8, div 8, add eps 8, addcdiv 16:
 * 80 B per parameter), one kernel per pass (foreach) or per pass and
 * tensor, plus the gradient norm; each op issued from Python, the GPU
 * waiting where the host is slower. */
static double optimizer_s(const WkStackMech *sk, WkOpsCtx *c, double params, double tensors)
{
    if (sk->optim == WK_OPTIM_FUSED)
        return wk_ops_optimizer(c, params);
    static const double pass[8] = {8, 12, 8, 12, 8, 8, 8, 16}; /* mul+add, mul+addcmul, sqrt, div, add, addcdiv */
    double n = sk->optim == WK_OPTIM_PER_TENSOR ? tensors : 1, t = 0;
    WkOpsCtx cc = *c;
    cc.op_bytes = cc.op_kernels = NULL;
    cc.mult = c->mult * n;
    for (int i = 0; i < 8; i++)
        t += n * wk_ops_mem(&cc, WK_OP_OPTIM, pass[i] * params / n, 2 * params / n);
    cc.mult = c->mult;
    t += wk_ops_mem(&cc, WK_OP_OPTIM, 4 * params, 2 * params);
    double host = (8 * n + 1) * wk_stack_py_op_s(c->e);
    return host > t ? host : t;
}

static int eval_llm(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, const WkPerfWan *w,
                    WkPerfResult *r, WkError *err)
{
    int f16 = env->sku->fp16_only; /* no BF16 (nor FP8); else FP8 needs its tensor cores (TE refuses without) */
    if ((f16 && !m->fp16) || (m->fp8 && !(env->sku->fp8_flops > 0)))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s has no %s tensor cores: the model needs precision: %s "
                            "(it has %s)", env->sku->name, f16 ? "BF16 or FP8" : "FP8", f16 ? "fp16" : "bf16",
                            m->fp8 ? "fp8" : "bf16");
    uint32_t per_replica = m->tp * m->pp * m->cp;
    if (env->gpus % per_replica)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%u GPUs are not a multiple of tp x pp x cp = %u", env->gpus,
                            per_replica);
    uint32_t dp = env->gpus / per_replica;
    uint32_t etp = m->etp ? m->etp : m->tp; /* experts fold over dp x cp x tp/etp ranks */
    if (m->ep > 1 && (dp * m->cp * (m->tp / etp)) % m->ep)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "ep = %u does not divide the %u ranks experts fold over "
                            "(dp %u x cp %u x tp/etp %u)", m->ep, dp * m->cp * (m->tp / etp), dp, m->cp, m->tp / etp);
    uint32_t gb = m->global_batch ? m->global_batch : dp * m->micro_batch * 4 * m->pp;
    if (gb % (dp * m->micro_batch))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                            "global batch %u does not split into dp %u x micro-batch %u (need a multiple of %u)", gb,
                            dp, m->micro_batch, dp * m->micro_batch);
    double mb = gb / (dp * m->micro_batch); /* micro-batches per replica */
    double peak_nom = m->fp8 && env->sku->fp8_flops > 0 ? env->sku->fp8_flops : env->sku->bf16_flops;
    WkGpuEff e = sku_eff(env, p);
    WkStackMech skm = wk_stack_with_reduce(m->stack, m->reduce_bytes);
    const WkStackMech *sk = &skm;
    wk_stack_attn(sk, env->sku->name, env->sku->bf16_flops, &e.attn_fwd, &e.attn_bwd);
    r->sm_clock_mhz = 0;
    WkOpsCtx c = ops_ctx(m, env, p, &e, &r->sm_clock_mhz);
    double eb[WK_OP_NKIND], ek[WK_OP_NKIND];
    eager_ctx(m, sk, &c, eb, ek);
    WkOpsShape sh = llm_shape(m);
    double layers = ceil((double)m->layers / m->pp); /* the bounding stage */
    WkWanLeg leg;
    /* The context-parallel ranks hold the same weights and see different
     * tokens: the gradients are summed, and ZeRO shards, over dp x cp
     * (Megatron-Core's DDP and distributed optimizer on the data-parallel
     * group with context parallelism; torchtitan's dp_shard_cp mesh;
     * docs/models.md, "Communication and overlap"). ZeRO-3 across sites
     * shards inside a site (hybrid sharding). */
    uint32_t red = dp * m->cp;
    WkCommIn in = {.m = m, .env = env, .p = p, .e = &e, .T = sh.T, .layers = layers, .mb = mb, .dp = red,
                   .wan = wan_leg(env, &e, w, &leg), .site_grad_bytes = 2 * m->params, .sk = sk};
    uint32_t shard_dp = in.wan && m->zero >= 3 ? red / in.wan->sites : red;
    in.shard = shard_dp;
    double wait_mb, sync_mb;
    double t_mb = stage_mb_s(m, &c, &sh, &layers, &in, r, &wait_mb, &sync_mb);
    in.layers = layers; /* the bounding stage's */
    wk_ops_add(r->ops, r->ops, mb - 1); /* the per-micro-batch sums, mb times */

    r->dp = dp;
    r->micro_batches = (uint32_t)mb;
    r->compute_s = mb * (t_mb - wait_mb);
    r->host_s = mb * wait_mb;
    r->bubble_s = (m->pp - 1) / (double)m->vp * t_mb;
    double state_scale = 1; /* the stage holding the most layers, against an even split */
    if (env->stages && m->pp > 1) {
        /* stages unlike (docs/models.md, "Division of labour"): the
         * slowest stage sets the steady state, fill and drain take every
         * stage's time once: (mb - 1) t_max + sum t_k, as mb t_max plus a
         * bubble of (sum - t_max) / vp */
        double tmax, tsum;
        uint32_t most;
        stage_times(m, env, p, &tmax, &tsum, &most);
        r->compute_s = mb * tmax;
        r->bubble_s = (tsum - tmax) / m->vp;
        state_scale = most / ((double)m->layers / m->pp);
        layers = most;
    }
    in.bubble_s = r->bubble_s;

    double expert_params = m->experts ? (double)m->layers * m->experts * (m->gated_mlp ? 3.0 : 2.0) * m->hidden * m->ffn : 0;
    double dense_params = wk_model_stored_params(m) - expert_params;
    double local_dense = dense_params / (m->tp * m->pp), local_exp = expert_params / ((double)etp * m->pp * m->ep);
    double local = local_dense + local_exp;
    /* expert parameters shard over the expert-data-parallel ranks, the
     * tp x cp x dp ranks of a stage over etp x ep (Megatron-Core's
     * distributed optimizer puts the MoE parameter groups on
     * get_expert_data_parallel_group); dense ones over dp x cp */
    double shard_edp = (double)shard_dp * m->tp / ((double)etp * (m->ep ? m->ep : 1));
    if (shard_edp < 1)
        shard_edp = 1;
    double opt_local = m->zero >= 1 ? local_dense / shard_dp + local_exp / shard_edp : local;
    double root = (double)m->vocab * m->hidden * (m->tied_embeddings && m->pp == 1 ? 1 : 2) /
                  ((double)m->tp * m->pp); /* embedding and output layer (one table, tied on one stage) */
    in.local_params = local;
    in.exp_frac = local > 0 ? local_exp / local : 0;
    in.root_params = root;
    in.layer_params = (local > root ? local - root : 0) / ((double)m->layers / m->pp);
    wk_perf_comm(&in, r);
    c.mult = 1;
    c.acc = r->ops;
    double tensors = layers * (m->gated_mlp ? 9 : 6) + 3; /* weights of a layer, plus embedding, final norm, output */
    r->optim_s = optimizer_s(sk, &c, opt_local, tensors);
    if (m->fp16) /* dynamic loss scaling: unscale the FP32 main gradients and check them for inf/NaN (one
                    multi-tensor pass, read and write 4 B each) before the step */
        r->optim_s += wk_ops_mem(&c, WK_OP_OPTIM, 8 * opt_local, opt_local);

    /* a host-bound pass idles the GPU between kernels; the layers' exposed collectives (tp, cp, ep; ZeRO-3's
     * per-layer ones) run in that time, so they absorb the wait (a layer takes max(host, GPU busy);
     * docs/models.md, "Host dispatch"); the MoE synchronisations idle the GPU after them and stay */
    double bound = r->host_s - mb * sync_mb, lcomm = r->tp_s + r->cp_s + r->ep_s + (m->zero >= 3 ? r->dp_s : 0);
    r->host_s -= min2(bound > 0 ? bound : 0, lcomm);
    r->iter_s = r->compute_s + r->host_s + r->bubble_s + r->tp_s + r->cp_s + r->pp_s + r->dp_s + r->ep_s +
                r->optim_s + r->interference_s + r->wan_s;
    r->samples_per_iter = (double)gb * m->seq_len;
    r->model_flops_per_iter = wk_model_train_flops_per_token(m) * r->samples_per_iter;
    r->tflops_per_gpu = r->model_flops_per_iter / r->iter_s / env->gpus / 1e12;
    r->mfu = r->model_flops_per_iter / r->iter_s / env->gpus / peak_nom;

    /* memory: training state, and the activations each layer saves for
     * backward (layer_act_bytes; Korthikanti et al.'s 34*s*b*h/t for a GPT
     * layer, their 5*a*s^2*b score term absent: flash attention, Dao et
     * al., NeurIPS'22, never stores the scores, which also makes selective
     * recomputation free in memory terms); full recomputation keeps only
     * the layer input, 2*s*b*h/t. Each pipeline rank holds inflight_mb
     * micro-batches of its layers; the most any rank holds counts. */
    double t = m->tp, s = m->seq_len, h = m->hidden;
    r->mem_state_bytes = state_bytes(local_dense * state_scale, m->zero, shard_dp) +
                         state_bytes(local_exp * state_scale, m->zero, shard_edp);
    double sbh = (double)m->micro_batch * s / m->cp * h;
    double per_layer = m->recompute == WK_RECOMPUTE_FULL ? 2 * sbh / t : layer_act_bytes(m, sbh / h);
    if (m->recompute == WK_RECOMPUTE_SELECTIVE && sk->sac_op)
        per_layer = sac_op_bytes(m, sbh / h);
    if (m->zero >= 3 && sk->fsdp == WK_FSDP_PER_LAYER)
        r->mem_state_bytes += fsdp_buffers(sk, in.layer_params, root);
    double held = layers * inflight_mb(m, mb, 0); /* an even split: the first rank */
    if (m->pp > 1 && (env->stages || m->first_stage_layers)) {
        held = 0;
        for (uint32_t k = 0; k < m->pp; k++) {
            double lk = env->stages ? env->stages[k].layers
                        : k == 0 ? m->first_stage_layers
                        : k + 1 == m->pp ? m->last_stage_layers
                        : ceil((m->layers - m->first_stage_layers - m->last_stage_layers) / (double)(m->pp - 2));
            held = fmax(held, lk * inflight_mb(m, mb, k));
        }
    }
    r->mem_act_bytes = per_layer * held;
    r->mem_bytes = r->mem_state_bytes + r->mem_act_bytes;
    return check_memory(m, env, r, err);
}

/* The gradient all-reduce of a data-parallel job over n GPUs of one site:
 * inside the NVLink domain, else hierarchical over the fabric. */
static double ddp_site_s(const WkPerfEnv *env, const WkPerfParams *p, const WkGpuEff *e, double bytes, uint32_t n,
                         double *eq)
{
    *eq = 0;
    if (n <= 1)
        return 0;
    double bwi = env->nvlink_bw * e->nvlink_eff, bwx = env->net_bw * e->net_eff;
    uint32_t n_intra = env->nvlink_gpus < n ? env->nvlink_gpus : n;
    while (n % n_intra)
        n_intra--;
    uint32_t n_inter = n / n_intra;
    if (n_inter <= 1)
        return *eq = wk_perf_allreduce_intra_s(e, env, bytes, n_intra);
    double intra = wk_coll_reduce_scatter_s(bytes, n_intra, bwi, e->ring_lat_s) +
                   wk_coll_all_gather_s(bytes, n_intra, bwi, e->ring_lat_s);
    double x = allreduce_s(bytes / n_intra, n_inter, bwx, p->lat_inter_s);
    *eq = intra + x * wk_perf_interf_ratio(e, env, bwx);
    return intra + x;
}

/* Gradient buckets overlap the backward pass (2/3 of the compute); the
 * last bucket (25 MB, PyTorch DDP's default) stays exposed. The hidden part
 * of a reduction of t seconds. */
static double ddp_hidden_s(const WkPerfParams *p, double t, double bytes, double compute_s)
{
    double last = t * min2(1, 25e6 / bytes);
    return p->dp_overlap * min2(t - last, compute_s * 2 / 3);
}

/* One step's compute of B samples of a data-parallel model on c: the
 * operator list of a ResNet or ViT (vision.c), else one GEMM of 3 x the
 * forward FLOPs at `peak` (an upper bound on speed); a recommendation model
 * adds its pooled embedding rows: forward reads the rows and writes the
 * pooled vectors (2 x), backward reads their gradient and updates the rows
 * (read-modify-write, 3 x); the exchanged vectors are kept (2 x, into
 * *act). */
static double dp_compute(WkOpsCtx *c, const WkModelSpec *m, double B, double peak, double *act)
{
    double t;
    *act = 0;
    if (m->kind == WK_MODEL_VISION && m->arch != WK_ARCH_GENERIC)
        t = wk_vision_step_s(c, m, B, act);
    else
        t = wk_ops_compute(c, WK_OP_GEMM, 3 * m->flops_per_sample * B, peak);
    if (m->kind == WK_MODEL_RECSYS && m->a2a_bytes_per_sample > 0) {
        double x = B * m->a2a_bytes_per_sample;
        t += wk_ops_mem(c, WK_OP_EMBED, 2 * x, 0) + wk_ops_mem(c, WK_OP_EMBED, 3 * x, x / 2);
        *act += 2 * x;
    }
    return t;
}

/* What dp_compute reads besides its context: the sustained clock's key. */
typedef struct DpStep {
    WkModelSpec m;
    double B, peak;
} DpStep;
_Static_assert(sizeof(DpStep) <= 320, "DpStep outgrew the sustained-clock cache key (perf_clock.c SUSTAIN_ID_MAX)");

static void dp_mix(WkOpsCtx *t, const void *arg)
{
    const DpStep *st = arg;
    double act;
    dp_compute(t, &st->m, st->B, st->peak, &act);
}

/* Vision and recommendation jobs: data parallel over all GPUs. Compute:
 * the operator list of a ResNet or ViT (vision.c); a generic model is one
 * large GEMM of 3 x its forward FLOPs (an upper bound on speed). A
 * recommendation model adds its embedding lookups (memory-bound) and the
 * embedding all-to-all. */
static int eval_dp(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, const WkPerfWan *w,
                   WkPerfResult *r, WkError *err)
{
    double peak_nom = env->sku->bf16_flops;
    WkGpuEff e = sku_eff(env, p);
    double sm = sm_speed(env);
    double peak = peak_nom * sm * e.mat_max;
    double bwi = env->nvlink_bw * e.nvlink_eff, bwx = env->net_bw * e.net_eff;
    double B = m->batch_per_gpu;
    uint32_t n = env->gpus;
    WkOpsCtx c = {.e = &e, .peak = peak_nom * sm, .hbm = env->sku->hbm_bw_bytes_per_s * env->speed,
                  .speed = sm, .shapes = p->gemm_shapes, .mult = 1};
    double act = 0;
    r->dp = n;
    r->micro_batches = 1;
    if (p->sustained_clock) { /* the clock the power limit leaves for the step's operator mix (ops.h) */
        DpStep st;
        memset(&st, 0, sizeof st); /* a cache key: no stray padding */
        st.m = *m, st.B = B, st.peak = peak;
        double run = wk_perf_sustain_mix(&c, 1, &st, sizeof st, dp_mix, &st, env->sku, env->cap_clock);
        r->sm_clock_mhz = wk_perf_run_mhz(env->sku, run);
    }
    c.acc = r->ops;
    r->compute_s = dp_compute(&c, m, B, peak, &act);
    if (m->kind == WK_MODEL_VISION && m->arch != WK_ARCH_GENERIC)
        r->optim_s = wk_ops_optimizer(&c, m->params);
    double bytes = 2 * m->params;
    WkWanLeg leg;
    const WkWanLeg *wl = wan_leg(env, &e, w, &leg);
    double eq;
    double t_dp = ddp_site_s(env, p, &e, bytes, wl ? n / wl->sites : n, &eq);
    double hidden = ddp_hidden_s(p, t_dp, bytes, r->compute_s), t = t_dp;
    r->dp_s = t_dp - hidden;
    if (wl) { /* the WAN leg between the site's reduce-scatter and all-gather */
        double tw = wk_perf_wan_s(wl, bytes, 0), rank_bw = min2(wl->bw / wl->ranks, wl->nic_bw);
        t = t_dp + tw;
        eq += tw * wk_perf_interf_ratio(&e, env, rank_bw);
        hidden = ddp_hidden_s(p, t, bytes, r->compute_s);
        r->wan_s = t - hidden - r->dp_s;
    }
    /* weighted by the reduction's bytes/s against NVLink's (perf_comm.h) */
    r->interference_s = hidden * (t > 0 ? eq / t : 1) * e.overlap_slowdown;
    if (m->kind == WK_MODEL_RECSYS && n > 1) {
        double bw = env->multi_domain ? bwx : bwi;
        double lat = env->multi_domain ? p->lat_inter_s : e.ring_lat_s;
        r->ep_s = 2 * wk_coll_all_to_all_s(B * m->a2a_bytes_per_sample, n, bw, lat); /* forward + backward */
    }
    r->iter_s = r->compute_s + r->dp_s + r->ep_s + r->optim_s + r->interference_s + r->wan_s;
    r->samples_per_iter = B * n;
    r->model_flops_per_iter = 3 * m->flops_per_sample * r->samples_per_iter;
    r->tflops_per_gpu = r->model_flops_per_iter / r->iter_s / n / 1e12;
    r->mfu = r->model_flops_per_iter / r->iter_s / n / peak_nom;
    r->mem_state_bytes = 16 * m->params + m->embedding_bytes / n;
    r->mem_act_bytes = act;
    r->mem_bytes = r->mem_state_bytes + r->mem_act_bytes;
    return check_memory(m, env, r, err);
}

static int eval_any(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, const WkPerfWan *w,
                    WkPerfResult *out, WkError *err)
{
    *out = (WkPerfResult){0};
    if (env->gpus == 0 || !(env->speed > 0) || !(env->net_bw > 0) || !(env->nvlink_bw > 0))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "perf: empty placement or zero bandwidth");
    if (m->attention == WK_ATTN_FLASH1 && !wk_catalog_eff(env->sku)->fa1) /* measured: eff.c FA1_* */
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "attention: flash1 has no measurement on %s (the "
                            "A100, H100 and H200 have one; docs/limits.md)", env->sku->name);
    return m->kind == WK_MODEL_LLM ? eval_llm(m, env, p, w, out, err) : eval_dp(m, env, p, w, out, err);
}

int wk_perf_eval(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, WkPerfResult *out, WkError *err)
{
    return eval_any(m, env, p, NULL, out, err);
}

/* Whether the job splits evenly over w->sites sites, each holding whole DP
 * replicas and a full set of experts. */
static int check_sites(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfWan *w, WkError *err)
{
    uint32_t s = w->sites;
    if (!(w->bw_bits_per_s > 0) || !(w->lat_s >= 0) || !(w->eff >= 0 && w->eff <= 1))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "WAN link: bandwidth must be > 0, latency >= 0 and "
                            "efficiency in (0, 1] (got %g bit/s, %g s, %g)", w->bw_bits_per_s, w->lat_s, w->eff);
    if (m->kind == WK_MODEL_RECSYS)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "a recommendation model cannot span sites: its embedding "
                            "all-to-all would cross the WAN");
    uint32_t per = m->kind == WK_MODEL_LLM ? m->tp * m->pp * m->cp : 1;
    if (env->gpus % ((uint64_t)s * per))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%u GPUs do not split over %u sites in whole DP replicas: "
                            "need a multiple of sites x tp x pp x cp = %llu", env->gpus, s,
                            (unsigned long long)s * per);
    uint32_t etp = m->etp ? m->etp : m->tp, dps = env->gpus / per / s;
    if (m->kind == WK_MODEL_LLM && m->ep > 1 && (dps * m->cp * (m->tp / etp)) % m->ep)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "ep = %u does not divide the %u ranks experts fold over in "
                            "one site (dp per site %u x cp %u x tp/etp %u)", m->ep, dps * m->cp * (m->tp / etp), dps,
                            m->cp, m->tp / etp);
    return 0;
}

int wk_perf_eval_wan(const WkModelSpec *m, const WkPerfEnv *env, const WkPerfParams *p, const WkPerfWan *wan,
                     WkPerfResult *out, WkError *err)
{
    if (!wan || wan->sites <= 1)
        return eval_any(m, env, p, NULL, out, err);
    *out = (WkPerfResult){0};
    int rc = check_sites(m, env, wan, err);
    return rc < 0 ? rc : eval_any(m, env, p, wan, out, err);
}

double wk_perf_wan_bytes(const WkModelSpec *m, uint32_t sites)
{
    return sites <= 1 ? 0 : 2.0 * (sites - 1) / sites * 2 * m->params;
}

int wk_perf_ops_text(const WkPerfResult *r, WkStrBuf *b)
{
    double total = 0;
    for (int k = 0; k < WK_OP_NKIND; k++)
        total += r->ops[k].s;
    wk_strbuf_printf(b, "operators (bounding stage, per iteration; compute %.4f s of which kernels below)\n", r->compute_s);
    wk_strbuf_printf(b, "%-14s %12s %7s %12s  %-8s %9s %9s %9s\n", "kind", "time_s", "share", "kernels", "bound",
                     "compute", "memory", "overhead");
    for (int k = 0; k < WK_OP_NKIND; k++) {
        const WkOpStat *o = &r->ops[k];
        if (!(o->s > 0))
            continue;
        const char *bound = o->overhead_s > o->compute_s && o->overhead_s > o->memory_s ? "overhead"
                            : o->compute_s >= o->memory_s                               ? "compute"
                                                                                        : "memory";
        wk_strbuf_printf(b, "%-14s %12.5f %6.1f%% %12.0f  %-8s %8.1f%% %8.1f%% %8.1f%%\n", wk_ops_name((WkOpKind)k),
                         o->s, 100 * o->s / (total > 0 ? total : 1), o->kernels, bound, 100 * o->compute_s / o->s,
                         100 * o->memory_s / o->s, 100 * o->overhead_s / o->s);
    }
    wk_strbuf_printf(b, "%-14s %12.5f\n", "total", total);
    wk_strbuf_printf(b, "%-34s %12.5f s\n", "optimizer step (in total above)", r->optim_s);
    wk_strbuf_printf(b, "%-34s %12.5f s\n", "SM interference of overlapped comm", r->interference_s);
    return b->oom ? WK_E_NOMEM : 0;
}
