/* SPDX-License-Identifier: Apache-2.0 */
/* perf_comm.c — communication of a training iteration and its overlap with
 * compute (see perf_comm.h). Collective times use the alpha-beta models of
 * models/net/collective.c at the measured per-transport efficiency. */
#include "models/workload/perf_comm.h"

#include <math.h>

#include "models/net/collective.h"

/* Megatron-Core's DDP bucket: 40 M parameters (DistributedDataParallelConfig
 * bucket_size default, max(40e6, 1e6 x dp)); the last one stays exposed. */
#define BUCKET_PARAMS 40e6

static double max2(double a, double b) { return a > b ? a : b; }
static double min2(double a, double b) { return a < b ? a : b; }

double wk_perf_allreduce_intra_s(const WkGpuEff *e, const WkPerfEnv *env, double bytes, uint32_t n)
{
    /* NCCL's tree is a chain inside a node (its double binary tree spans
     * nodes), so no log n latency advantage here: ring, or NVLink SHARP */
    double t = wk_coll_allreduce_ring_s(bytes, n, env->nvlink_bw * e->nvlink_eff, e->ring_lat_s);
    if (e->nvls_algbw_eff > 0 && n > 1) {
        /* NVLink SHARP has its own measured step latency */
        double v = wk_coll_allreduce_nvls_s(bytes, n, env->nvlink_bw * e->nvls_algbw_eff, e->nvls_lat_s);
        t = v < t ? v : t;
    }
    return t;
}

double wk_perf_compress_s(const WkPerfEnv *env, double bytes)
{
    if (!(env->grad_ratio > 1) || !env->sku || !(env->sku->hbm_bw_bytes_per_s > 0))
        return 0;
    return (2 * bytes + 2 * bytes / env->grad_ratio) / env->sku->hbm_bw_bytes_per_s;
}

/* DP peers inside one NVLink domain, and the domains they span. */
static void dp_split(const WkPerfEnv *env, uint32_t tp, uint32_t dp, uint32_t *n_intra, uint32_t *n_inter)
{
    uint32_t ni = 1;
    if (tp < env->nvlink_gpus) {
        ni = env->nvlink_gpus / tp;
        if (ni > dp)
            ni = dp;
        while (dp % ni)
            ni--;
    }
    *n_intra = ni;
    *n_inter = dp / ni;
}

double wk_perf_wan_s(const WkWanLeg *w, double site_bytes, int half)
{
    double steps = half ? w->sites - 1.0 : 2.0 * (w->sites - 1);
    double link = site_bytes / w->bw, nic = site_bytes / w->ranks / w->nic_bw;
    return steps / w->sites * max2(link, nic) + steps * w->lat;
}

double wk_perf_interf_ratio(const WkGpuEff *e, const WkPerfEnv *env, double bw)
{
    double ref = env->nvlink_bw * e->nvlink_eff;
    if (!(ref > 0) || !(bw < ref))
        return 1;
    return bw > 0 ? bw / ref : 0;
}

/* Hierarchical reduction of `bytes` among n ranks `stride` apart: one ring
 * pass (reduce-scatter or all-gather) when half, else the all-reduce;
 * inside the domain, then on the fabric over the domains. *eq (may be
 * NULL) receives its NVLink-equivalent time for the interference: the
 * fabric phase weighted by wk_perf_interf_ratio of its bandwidth. */
static double group_coll_s(const WkCommIn *in, double bytes, int half, uint32_t n, uint32_t stride, double *eq)
{
    const WkPerfEnv *env = in->env;
    const WkGpuEff *e = in->e;
    uint32_t ni, nx;
    dp_split(env, stride, n, &ni, &nx);
    double bwi = env->nvlink_bw * e->nvlink_eff, bwx = env->net_bw * e->net_eff;
    double li = e->ring_lat_s, lx = in->p->lat_inter_s;
    double t, x = 0;
    if (nx <= 1) {
        t = half ? wk_coll_reduce_scatter_s(bytes, ni, bwi, li) : wk_perf_allreduce_intra_s(e, env, bytes, ni);
    } else {
        double intra = wk_coll_reduce_scatter_s(bytes, ni, bwi, li);
        if (half) {
            x = wk_coll_reduce_scatter_s(bytes / ni, nx, bwx, lx);
            t = intra + x;
        } else {
            double tree = wk_coll_allreduce_tree_s(bytes / ni, nx, bwx, lx);
            x = min2(tree, wk_coll_allreduce_ring_s(bytes / ni, nx, bwx, lx));
            t = 2 * intra + x;
        }
    }
    if (eq)
        *eq = t - x + x * wk_perf_interf_ratio(e, env, bwx);
    return t;
}

/* The DP reduction of `bytes` per rank among the DP ranks of one site
 * (group_coll_s): the dense parameters' share over dp x cp ranks tp apart,
 * the experts' share (in->exp_frac) over the expert-data-parallel ranks,
 * dp x cp x tp / (etp x ep) of them etp x ep apart in the stage
 * (Megatron-Core reduces and shards MoE parameters on
 * get_expert_data_parallel_group), one after the other on the same
 * links. *eq as group_coll_s's, summed. */
static double site_coll_s(const WkCommIn *in, double bytes, int half, double *eq)
{
    const WkModelSpec *m = in->m;
    uint32_t n = in->wan ? in->dp / in->wan->sites : in->dp;
    double f = in->exp_frac;
    if (!(f > 0) || m->ep <= 1)
        return group_coll_s(in, bytes, half, n, m->tp, eq);
    uint32_t es = (m->etp ? m->etp : m->tp) * m->ep, ne = (uint32_t)((uint64_t)n * m->tp / es);
    double eqx = 0;
    double t = group_coll_s(in, (1 - f) * bytes, half, n, m->tp, eq) +
               group_coll_s(in, f * bytes, half, ne ? ne : 1, es, eq ? &eqx : NULL);
    if (eq)
        *eq += eqx;
    return t;
}

/* The per-GPU bytes/s of a WAN leg: a rank's shard through its NIC or its
 * share of the site link, whichever is slower. */
static double wan_rank_bw(const WkWanLeg *w)
{
    return min2(w->bw / w->ranks, w->nic_bw);
}

/* The DP reduction of `bytes` per rank: inside the site, and with wan (and
 * sites) also its WAN leg, between the site's reduce-scatter and all-gather
 * (hierarchical all-reduce, docs/models.md). *eq (may be NULL): its
 * NVLink-equivalent time, as site_coll_s. */
static double dp_coll_eq_s(const WkCommIn *in, double bytes, int half, int wan, double *eq)
{
    double t = site_coll_s(in, bytes, half, eq);
    if (wan && in->wan) {
        double w = wk_perf_wan_s(in->wan, bytes / (2 * in->local_params) * in->site_grad_bytes, half);
        t += w;
        if (eq)
            *eq += w * wk_perf_interf_ratio(in->e, in->env, wan_rank_bw(in->wan));
    }
    return t;
}

static double dp_coll_s(const WkCommIn *in, double bytes, int half, int wan)
{
    return dp_coll_eq_s(in, bytes, half, wan, NULL);
}

/* The interference weight of hiding a DP reduction of `bytes`: its
 * NVLink-equivalent time over its time (1 inside one NVLink domain). */
static double dp_weight(const WkCommIn *in, double bytes, int half, int wan)
{
    double eq = 0, t = dp_coll_eq_s(in, bytes, half, wan, &eq);
    return t > 0 ? eq / t : 1;
}

/* DP: gradients (2 B per parameter) reduced in buckets as the last
 * micro-batch's backward produces them; with a distributed optimizer the
 * parameter all-gather overlaps the next forward. The window is that pass on
 * the stage plus half the bubble (warm-up or cool-down). ZeRO-3 (FSDP) keeps
 * no full copy of the weights: every micro-batch all-gathers them before its
 * forward and again before its backward and reduce-scatters its gradients,
 * prefetched behind that micro-batch's pass (zero3_comm), inside the site
 * (hybrid sharding across sites). *hb1 receives one micro-batch's hidden
 * backward part. */
static double zero3_comm(const WkCommIn *in, double bytes, double bucket, double ov, double *hidden, double *hb1)
{
    double ag = dp_coll_s(in, bytes, 1, 0), first = dp_coll_s(in, bucket, 1, 0); /* all-gather = reduce-scatter */
    double hf = ov * min2(max2(ag - first, 0), in->layers * in->fwd_s);
    double hb = ov * min2(max2(2 * ag - 2 * first, 0), in->layers * in->bwd_s);
    *hidden += in->mb * (hf + hb);
    *hb1 = hb;
    return in->mb * (3 * ag - hf - hb);
}

/* A ZeRO-3 collective over the ranks the stack shards over. */
static WkCommIn shard_group(const WkCommIn *in)
{
    WkCommIn g = *in;
    if (in->shard > 0) { /* the shard group is already the site's ranks across sites */
        g.dp = in->shard;
        g.wan = NULL;
    }
    return g;
}

static double shard_coll_s(const WkCommIn *in, double bytes)
{
    WkCommIn g = shard_group(in);
    return dp_coll_s(&g, bytes, 1, 0);
}

double wk_perf_fsdp_layer_s(const WkCommIn *in, double *hidden, double *hidden_bwd)
{
    const WkStackMech *sk = in->sk ? in->sk : wk_stack_mech(WK_STACK_MCORE);
    const WkGpuEff *e = in->e;
    double L = in->layers, P = in->layer_params, R = in->root_params;
    double n = in->shard > 0 ? in->shard : in->dp;
    double ov = in->m->no_grad_overlap ? 0 : in->p->dp_overlap;
    double ag = shard_coll_s(in, 2 * P), rs = shard_coll_s(in, sk->reduce_bytes * P);
    double ag_root = shard_coll_s(in, 2 * R), rs_root = shard_coll_s(in, sk->reduce_bytes * R);
    /* DeepSpeed gathers a fixed bucket of elements ahead, not whole layers */
    double pf = sk->prefetch_elems > 0 ? (P > 0 ? sk->prefetch_elems / P : 1) : sk->prefetch;
    pf *= ov;
    double cf = ag, pfw = in->fwd_s;
    double fwd = wk_stack_fsdp_exposed(L, pfw, cf, pf, ag_root + ag, 0);
    /* backward starts at the output layer (the root, gathered again where
     * it was resharded) and the last layer (not gathered again where the
     * stack keeps it after forward) */
    int re = sk->reshard_after_forward != 0;
    double again = re && !sk->keep_last ? ag : 0, again_root = re && sk->root_reshard ? ag_root : 0;
    double cb = (re ? ag : 0) + rs, pbw = in->bwd_s + in->rc_s;
    double bwd = wk_stack_fsdp_exposed(L, pbw, cb, pf, again_root + again, rs + rs_root);
    double total_b = again_root + again + (L - 1) * cb + rs + rs_root, total = ag_root + L * cf + total_b;
    double exposed = fwd + bwd;
    if (exposed > total)
        exposed = total;
    *hidden += total - exposed;
    if (hidden_bwd)
        *hidden_bwd = total_b > bwd ? total_b - bwd : 0;
    if (sk->fsdp2_copies) {
        /* all-gather copy-in (the shard into the flat input, read and
         * write), copy-out (the gathered bf16 parameters into the
         * unsharded ones, read and write) and the reduce-scatter copy-in
         * (gradients read in bf16, written in the reduction dtype): on HBM,
         * in the compute stream */
        double gl = L + (re ? L - (sk->keep_last != 0) : 0), gr = 1 + (again_root > 0);
        double gather = 2 * 2 / n + 2 * 2, scatter = 2 + sk->reduce_bytes;
        double bytes = gather * (gl * P + gr * R) + scatter * (L * P + R);
        exposed += bytes / (in->env->sku->hbm_bw_bytes_per_s * in->env->speed * e->mem_max);
    }
    return exposed;
}

/* ZeRO-2 keeps only its shard of the gradients, so every micro-batch
 * reduce-scatters what its backward produced, not only the last (DeepSpeed
 * engine.allreduce_gradients: "ZeRO stage >= 2 communicates during non
 * gradient accumulation boundaries as well"; FSDP SHARD_GRAD_OP outside
 * no_sync). The mb - 1 earlier reductions, red seconds each, hide (share ov)
 * behind the compute that follows them until the next backward, one
 * micro-batch's forward, backward and recomputation of the stage's layers.
 * Returns their exposed time and adds their hidden time, weighted by w
 * (dp_weight), to *hidden; 0 unless ZeRO-2 with mb > 1. */
static double zero2_earlier(const WkCommIn *in, double red, double ov, double w, double *hidden)
{
    if (in->m->zero != 2 || in->mb <= 1)
        return 0;
    double period = in->layers * (in->fwd_s + in->bwd_s + in->rc_s);
    double h = ov * min2(red, period);
    *hidden += (in->mb - 1) * h * w;
    return (in->mb - 1) * (red - h);
}

/* Exposed DP time; wan: with the WAN legs. Across sites ZeRO-3 all-reduces
 * its gradient shards over the WAN once per iteration, in buckets behind
 * what the last backward pass leaves of its window. *hidden receives the
 * NVLink-equivalent time of what overlap hides (dp_weight). */
static double dp_exposed(const WkCommIn *in, int wan, double *hidden)
{
    const WkModelSpec *m = in->m;
    double bytes = 2 * in->local_params;
    double bucket = 2 * min2(BUCKET_PARAMS, in->local_params);
    double win_b = in->layers * in->bwd_s + in->bubble_s / 2, win_f = in->layers * in->fwd_s + in->bubble_s / 2;
    double ov = m->no_grad_overlap ? 0 : in->p->dp_overlap;
    double exposed = 0;
    const WkStackMech *sk = in->sk ? in->sk : wk_stack_mech(WK_STACK_MCORE);
    if (sk->pp_grad_after && m->pp > 1)
        ov = 0; /* DeepSpeed's pipeline reduces gradients after the schedule */
    if (m->zero >= 3) {
        double hb1;
        if (sk->fsdp == WK_FSDP_PER_LAYER) {
            double h1 = 0;
            WkCommIn g = shard_group(in);
            exposed = in->mb * wk_perf_fsdp_layer_s(in, &h1, &hb1);
            *hidden += in->mb * h1 * dp_weight(&g, 2 * in->layer_params, 1, 0);
        } else {
            double hz = 0;
            exposed = zero3_comm(in, bytes, bucket, ov, &hz, &hb1);
            *hidden += hz * dp_weight(in, bytes, 1, 0);
        }
        if (wan && in->wan) {
            double w = wk_perf_wan_s(in->wan, in->site_grad_bytes, 0);
            double wb = wk_perf_wan_s(in->wan, bucket / bytes * in->site_grad_bytes, 0);
            double h = ov * min2(max2(w - wb, 0), max2(win_b - hb1, 0));
            exposed += w - h;
            *hidden += h * wk_perf_interf_ratio(in->e, in->env, wan_rank_bw(in->wan));
        }
    } else if (in->env->grad_ratio > 1 && in->dp > 1) {
        /* compressed gradients (ZeRO 0-2): the reduction moves bytes / ratio;
         * with ZeRO 1-2 the parameter all-gather stays uncompressed */
        double r = in->env->grad_ratio, cb = bytes / r, cbk = bucket / r;
        double red = dp_coll_s(in, cb, m->zero >= 1, wan);
        double hb = ov * min2(max2(red - dp_coll_s(in, cbk, m->zero >= 1, wan), 0), win_b);
        double wr = dp_weight(in, cb, m->zero >= 1, wan);
        exposed = red - hb;
        *hidden += hb * wr;
        if (m->zero >= 1) {
            double ag = dp_coll_s(in, bytes, 1, wan);
            double hf = ov * min2(max2(ag - dp_coll_s(in, bucket, 1, wan), 0), win_f);
            exposed += ag - hf;
            *hidden += hf * dp_weight(in, bytes, 1, wan);
        }
        double enc = wk_perf_compress_s(in->env, bytes);
        exposed += enc;
        if (m->zero == 2 && in->mb > 1) /* every micro-batch encodes and reduces its gradients */
            exposed += zero2_earlier(in, red, ov, wr, hidden) + (in->mb - 1) * enc;
    } else if (m->zero >= 1) {
        double rs = dp_coll_s(in, bytes, 1, wan), ag = rs;
        double hb = ov * min2(max2(rs - dp_coll_s(in, bucket, 1, wan), 0), win_b);
        double hf = ov * min2(max2(ag - dp_coll_s(in, bucket, 1, wan), 0), win_f);
        double w = dp_weight(in, bytes, 1, wan);
        exposed = rs + ag - hb - hf;
        *hidden += (hb + hf) * w;
        exposed += zero2_earlier(in, rs, ov, w, hidden);
    } else {
        double ar = dp_coll_s(in, bytes, 0, wan);
        double hb = ov * min2(max2(ar - dp_coll_s(in, bucket, 0, wan), 0), win_b);
        exposed = ar - hb;
        *hidden += hb * dp_weight(in, bytes, 0, wan);
    }
    return exposed;
}

/* r->dp_s: the exposed DP time inside the sites; r->wan_s: what the WAN
 * legs add to it (sites > 1). The hidden time is that of the full
 * reduction. */
static void dp_comm(const WkCommIn *in, WkPerfResult *r, double *hidden)
{
    double h = 0;
    r->dp_s = dp_exposed(in, 0, &h);
    if (in->wan) {
        h = 0;
        r->wan_s = dp_exposed(in, 1, &h) - r->dp_s;
    }
    *hidden += h;
}

/* FP8 current scaling under sequence parallelism (Transformer Engine,
 * _customize_quantizers_float8_current_scaling in its Linear,
 * LayerNormLinear and LayerNormMLP): a column-parallel GEMM's input is
 * cast to FP8 before its all-gather and a row-parallel GEMM's output
 * gradient before the backward all-gather, each with one scale for the
 * whole gathered tensor, so its amax is all-reduced (MAX) over the TP group
 * first, and the cast waits for it. Per layer and micro-batch: forward
 * the QKV and fc1 inputs, backward the projection's and fc2's output
 * gradients, again the forward two under full recomputation; a MoE layer
 * only the attention's (its experts' inputs come from the dispatcher).
 * Each is a latency-bound in-node all-reduce (small_coll_s), exposed. */
static double tp_amax_s(const WkCommIn *in)
{
    const WkModelSpec *m = in->m;
    if (!m->fp8 || !m->fp8_current || m->no_seq_parallel || m->tp <= 1 || in->env->tp_cross)
        return 0;
    if (!(in->sk && in->sk->amax_tp) || !(in->e->small_coll_s > 0))
        return 0;
    double per_pass = m->experts ? 1 : 2;
    double passes = 2 + (m->recompute == WK_RECOMPUTE_FULL);
    return per_pass * passes * in->e->small_coll_s;
}

/* TP: with sequence parallelism an all-gather and a reduce-scatter around
 * each of attention and MLP (the volume of two all-reduces per pass), else
 * two all-reduces; backward the same, and full recomputation repeats the
 * forward ones. Backward communication hides behind the weight-gradient
 * GEMMs (half the backward GEMM time) unless tp_overlap is none; `full`
 * also hides the forward behind the forward GEMMs. */
static void tp_comm(const WkCommIn *in, WkPerfResult *r, double *hidden)
{
    const WkModelSpec *m = in->m;
    const WkPerfEnv *env = in->env;
    if (m->tp <= 1)
        return;
    double elem = 2, bytes = in->T * m->hidden * elem;
    double ar;
    if (env->tp_cross)
        ar = wk_coll_allreduce_ring_s(bytes, m->tp, env->net_bw * in->e->net_eff, in->p->lat_inter_s);
    else if (m->no_seq_parallel)
        ar = wk_perf_allreduce_intra_s(in->e, env, bytes, m->tp);
    else /* all-gather + reduce-scatter: no NVLink SHARP */
        ar = wk_coll_allreduce_ring_s(bytes, m->tp, env->nvlink_bw * in->e->nvlink_eff, in->e->ring_lat_s);
    /* two all-reduces (or their all-gather/reduce-scatter pairs) per layer in
     * forward and two in backward (Korthikanti et al. 2022): equal volumes;
     * experts folded to etp < tp exchange only over etp ranks (none at 1) */
    double mlp = ar;
    uint32_t etp = m->etp ? m->etp : m->tp;
    if (m->experts && etp < m->tp)
        mlp = etp > 1 ? wk_coll_allreduce_ring_s(bytes * etp / m->tp, etp, env->nvlink_bw * in->e->nvlink_eff,
                                                 in->e->ring_lat_s)
                      : 0;
    if (m->parallel_block && !m->experts)
        mlp = 0; /* one all-gather before both branches, one reduce-scatter after their sum */
    double fwd = ar + mlp;
    double bwd = fwd, rc = m->recompute == WK_RECOMPUTE_FULL ? fwd : 0;
    double hb = 0, hf = 0;
    int blocking = in->sk && in->sk->tp_blocking; /* torchtitan: synchronous DTensor collectives */
    if (m->tp_overlap != WK_TP_OVERLAP_NONE && !blocking)
        hb = min2(bwd, in->gemm_bwd_s / 2);
    if (m->tp_overlap == WK_TP_OVERLAP_FULL && !blocking)
        hf = min2(fwd, in->gemm_fwd_s) * (1 + (rc > 0));
    double n = in->mb * in->layers;
    r->tp_s = n * (max2(fwd + bwd + rc - hb - hf, 0) + tp_amax_s(in)); /* all hidden: no rounding residue */
    double w = env->tp_cross ? wk_perf_interf_ratio(in->e, env, env->net_bw * in->e->net_eff) : 1;
    *hidden += n * (hb + hf) * w;
}

/* PP: each micro-batch sends its activations forward and their gradients
 * back, T h / t bytes per rank (scatter-gather over the TP ranks' NICs,
 * Narayanan et al. SC'21 §4.1), once per model chunk (x vp interleaved);
 * with pp_grad_full the gradients go back whole, T h from every TP rank
 * (DeepSpeed's PipelineEngine before 0.5.4: is_grad_partitioned False).
 * 1F1B blocks on every transfer; the interleaved schedule overlaps the
 * steady state, leaving the warm-up and cool-down transfers exposed. */
static void pp_comm(const WkCommIn *in, WkPerfResult *r)
{
    const WkModelSpec *m = in->m;
    const WkPerfEnv *env = in->env;
    if (m->pp <= 1)
        return;
    double bytes = in->T * m->hidden * 2 / m->tp;
    double bw = env->multi_domain ? env->net_bw * in->e->net_eff : env->nvlink_bw * in->e->nvlink_eff;
    double lat = env->multi_domain ? in->p->lat_inter_s : in->e->ring_lat_s;
    double p2p = wk_coll_p2p_s(bytes, bw, lat);
    double n = m->schedule == WK_PP_INTERLEAVED ? 2.0 * (m->pp - 1) * m->vp : 2.0 * (in->mb + m->pp - 1);
    r->pp_s = m->pp_grad_full ? n / 2 * (p2p + wk_coll_p2p_s(bytes * m->tp, bw, lat)) : n * p2p;
}

/* EP, as Megatron-Core's all-to-all dispatcher runs it (core_v0.11.0,
 * MoEAlltoAllTokenDispatcher; docs/models.md, "MoE layer"): a rank sends
 * the top_k copies of its sequence-parallel T / tp tokens (x imbalance) in
 * the dispatch all-to-all over its EP group, and with expert tensor
 * parallelism etp > 1 all-gathers the received rows over the etp ranks
 * (gather_from_sequence_parallel_region on the expert-TP group); the
 * combine reduce-scatters them back and all-to-alls; backward repeats
 * both. All exposed. The forward's small collectives of the per-expert
 * token counts (an all-gather over ep x etp, the auxiliary loss's
 * all-reduce over tp x cp) are left out: latency-bound, below the sizes the
 * per-step latency was fitted on (docs/models.md, "MoE layer"). The EP
 * group (ep x etp ranks) stays in the NVLink domain when it fits (MoE
 * parallel folding). */
static void ep_comm(const WkCommIn *in, WkPerfResult *r)
{
    const WkModelSpec *m = in->m;
    const WkPerfEnv *env = in->env;
    if (m->ep <= 1 || !m->experts)
        return;
    uint32_t etp = m->etp ? m->etp : m->tp;
    int local = (double)m->ep * etp <= env->nvlink_gpus;
    double net = env->ep_bw > 0 ? env->ep_bw : env->net_bw;
    double bw = local ? env->nvlink_bw * in->e->nvlink_eff : net * in->e->net_eff;
    double lat = local ? in->e->ring_lat_s : in->p->lat_inter_s;
    double nvbw = env->nvlink_bw * in->e->nvlink_eff, nvlat = in->e->ring_lat_s;
    double imb = m->moe_imbalance > 1 ? m->moe_imbalance : 1;
    double rows = in->T / m->tp * m->top_k * imb, row = m->hidden * 2.0;
    double a2a = wk_coll_all_to_all_s(rows * row, m->ep, bw, lat);
    double ag = wk_coll_all_gather_s(rows * etp * row, etp, nvbw, nvlat); /* 0 for etp 1 */
    r->ep_s = in->mb * in->layers * 4 * (a2a + ag);
}

/* CP (all-gather based, as Llama 3 describes): each layer all-gathers the
 * K and V of its T tokens over the cp ranks forward (again when fully
 * recomputed) and reduce-scatters their gradients backward; exposed.
 * Under a stack with cp_ring (PyTorch's context_parallel, rotate method
 * "allgather"): K and V at all query heads (torchtitan repeats the KV
 * heads before SDPA), bf16, all-gathered once per pass, issued before the
 * first of the n SDPA calls and waited for before the second; backward
 * gathers them again the same way and sends the fp32 dK, dV of T tokens
 * to the next rank after each of its n calls (permute_tensor), each
 * waited for after the next call, the last after the loop. Each call
 * takes 1/n of the layer's attention kernel time (equal FLOPs). */
static void cp_comm(const WkCommIn *in, WkPerfResult *r, double *hidden)
{
    const WkModelSpec *m = in->m;
    const WkPerfEnv *env = in->env;
    if (m->cp <= 1)
        return;
    int ring = in->sk && in->sk->cp_ring;
    double heads = ring ? m->heads : m->kv_heads;
    double kv = in->T * 2.0 * m->hidden * heads / m->heads / m->tp * 2;
    int local = (double)m->cp * m->tp <= env->nvlink_gpus;
    double bw = local ? env->nvlink_bw * in->e->nvlink_eff : env->net_bw * in->e->net_eff;
    double lat = local ? in->e->ring_lat_s : in->p->lat_inter_s;
    double ag = wk_coll_all_gather_s(kv * m->cp, m->cp, bw, lat);
    double n = 2 + (m->recompute == WK_RECOMPUTE_FULL);
    if (!ring) {
        r->cp_s = in->mb * in->layers * n * ag;
        return;
    }
    double c = m->cp, af = in->attn_fwd_s / c, ab = in->attn_bwd_s / c;
    double dkv = wk_coll_p2p_s(kv * 2, bw, lat); /* fp32 */
    double passes = n - 1;                       /* forward, and the full recomputation's */
    double fwd = max2(ag - af, 0), bwd = max2(ag - ab, 0) + (c - 1) * max2(dkv - ab, 0) + dkv;
    double exposed = passes * fwd + bwd, total = passes * ag + ag + c * dkv;
    r->cp_s = in->mb * in->layers * exposed;
    *hidden += in->mb * in->layers * (total - exposed) * wk_perf_interf_ratio(in->e, env, bw);
}

void wk_perf_comm(const WkCommIn *in, WkPerfResult *r)
{
    double hidden = 0;
    tp_comm(in, r, &hidden);
    cp_comm(in, r, &hidden);
    pp_comm(in, r);
    ep_comm(in, r);
    if (in->dp > 1)
        dp_comm(in, r, &hidden);
    /* compute runs slower while a communication kernel overlaps it: the
     * measured slowdown at NVLink rates (eff.c) for the overlapped time,
     * each collective weighted by its bytes/s against NVLink's */
    r->interference_s = hidden * in->e->overlap_slowdown;
}
