/* SPDX-License-Identifier: Apache-2.0 */
/* ops.c — the operator list of a transformer layer, timed operator by
 * operator on a SKU's measured curves (see ops.h; equations and sources in
 * docs/models.md). Communication and overlap live in perf.c. */
#include "models/workload/ops.h"

#include "models/gpu/dvfs.h"
#include "models/gpu/power.h"
#include "models/workload/stack.h"

#include <stddef.h>

#define ELEM 2.0 /* activations are BF16 (also in FP8 training: only GEMM inputs are cast) */

static const char *const names[WK_OP_NKIND] = {
    "gemm", "attention", "softmax", "norm", "activation", "dropout", "residual",
    "rotary", "moe-route", "cross-entropy", "embedding", "fp8-cast", "optimizer", "batchnorm", "pooling",
};

const char *wk_ops_name(WkOpKind k) { return k < WK_OP_NKIND ? names[k] : "?"; }

/* Book one operator: the compute part (matrix FLOPs at tc already timed, or
 * vector FLOPs), the memory part, and the kernel overhead. Returns its time. */
static double book(WkOpsCtx *c, WkOpKind k, double tc, double tm, double kernels)
{
    double to = kernels * c->e->kernel_s / c->speed; /* a throttled GPU runs its front end slower too */
    double t = (tc > tm ? tc : tm) + to;
    if (c->acc) {
        WkOpStat *a = &c->acc[k];
        a->s += c->mult * t;
        a->overhead_s += c->mult * to;
        if (tc > tm)
            a->compute_s += c->mult * tc;
        else
            a->memory_s += c->mult * tm;
        a->kernels += c->mult * kernels;
    }
    return t;
}

/* A memory-bound operator moving `bytes` with `vflops` vector FLOPs. */
static double memop(WkOpsCtx *c, WkOpKind k, double bytes, double vflops)
{
    double nk = 1;
    if (c->op_bytes) { /* run unfused: more passes and kernels (stack.h) */
        bytes *= c->op_bytes[k];
        nk = c->op_kernels[k];
    }
    double tm = bytes / (c->hbm * c->e->mem_max);
    if (k == WK_OP_NORM && c->norm_eff > 0)
        tm /= c->norm_eff;
    double tc = vflops / (c->e->vec_flops * c->speed);
    return book(c, k, tc, tm, nk);
}

/* GEMM (M x K) . (K x N), n of them in one kernel (a strided batch or a
 * grouped GEMM: one launch, so the curve's fixed tail is paid once, on the
 * kernel's n F FLOPs); FP8 casts its M x K input (read BF16, write FP8 and
 * its transpose), under current scaling after a first read of it for its
 * amax. */
static double gemm(WkOpsCtx *c, double M, double K, double N, double n)
{
    int fp8 = c->peak_fp8 > 0;
    double in = fp8 ? 1 : ELEM;
    double clk = fp8 && c->e->fp8_max > 0 ? c->fp8_clk : c->gemm_clk, peak = fp8 ? c->peak_fp8 : c->peak;
    double tc = c->shapes ? wk_eff_gemm_mnk_s(c->e, M, N, K, n, peak, fp8)
                          : wk_eff_gemm_s(c->e, n * 2 * M * K * N, peak, fp8);
    tc *= clk > 0 ? clk : 1;
    double tm = n * (in * (M * K + K * N) + ELEM * M * N) / (c->hbm * c->e->mem_max);
    double t = book(c, WK_OP_GEMM, tc, tm, 1);
    if (fp8)
        t += memop(c, WK_OP_CAST, n * M * K * (ELEM + 2 + (c->fp8_current ? ELEM : 0)), 0);
    return t;
}

/* Forward GEMM and its two backward GEMMs (data gradient M x N . N x K,
 * weight gradient K x M . M x N). */
static double gemm_fb(WkOpsCtx *c, double M, double K, double N, double n, int bwd)
{
    if (!bwd)
        return gemm(c, M, K, N, n);
    return gemm(c, M, N, K, n) + gemm(c, K, M, N, n);
}

/* The attention core. Flash: 4 T s h / t FLOPs forward, halved by causal
 * masking, 2.5x that backward (recomputing the scores), at the measured
 * flash-attention efficiency (causal: its key-length curve, eff.c); it reads q, k, v and writes o. Unfused: the
 * two batched GEMMs (no causal skip), softmax and dropout over b a/t s^2 scores. */
static double ring_attention(WkOpsCtx *c, const WkOpsShape *sh, int bwd);

/* One flash-attention kernel of f FLOPs over keys of length s at the
 * attention clock: a FlashAttention-1-class kernel from its measured table
 * (flash1; a stage SKU without one in a mixed job takes its own flash
 * kernel, docs/limits.md), else the SKU's flash curve. */
static double flash_s(const WkOpsCtx *c, const WkOpsShape *sh, double f, double s, int causal, int bwd)
{
    double clk = c->attn_clk > 0 ? c->attn_clk : 1;
    double t = sh->flash1 && sh->heads > 0 ? wk_eff_attn_fa1_s(c->e, f, c->peak, s, causal, sh->h / sh->heads) : -1;
    return (t >= 0 ? t : wk_eff_attn_s(c->e, f, c->peak, s, causal, bwd)) * clk;
}

static double attention(WkOpsCtx *c, const WkOpsShape *sh, int bwd)
{
    double hq = sh->h / sh->t, hkv = hq * sh->kv_heads / sh->heads;
    double qkvo = sh->T * (2 * hq + 2 * hkv) * ELEM;
    if (sh->flash && sh->cp_ring > 1 && !sh->noncausal)
        return ring_attention(c, sh, bwd);
    if (sh->flash) {
        double f = 4 * sh->T * sh->s * hq * (sh->noncausal ? 1 : 0.5) * (bwd ? 2.5 : 1);
        double tc = flash_s(c, sh, f, sh->s, !sh->noncausal, bwd);
        return book(c, WK_OP_ATTN, tc, (bwd ? 2 : 1) * qkvo / (c->hbm * c->e->mem_max), 1);
    }
    double hd = sh->h / sh->heads, nb = sh->b * sh->heads / sh->t; /* batched heads */
    double q = sh->T * sh->b > 0 ? sh->T / sh->b : 0;                /* queries per sequence */
    double scores = nb * q * sh->s * ELEM;
    double t = 0, k = bwd ? 2 : 1;
    WkOpsCtx cc = *c;
    cc.peak_fp8 = 0; /* the batched attention GEMMs stay BF16 */
    t += k * gemm(&cc, q, hd, sh->s, nb); /* Q K^T (x2 backward: both operands) */
    t += memop(c, WK_OP_SOFTMAX, (bwd ? 3 : 2) * scores, 0);
    if (sh->dropout)
        t += memop(c, WK_OP_DROPOUT, 2.5 * scores, 0);
    t += k * gemm(&cc, q, sh->s, hd, nb); /* P V */
    return t;
}

/* Causal flash attention as PyTorch's context_parallel ring over n ranks
 * (round-robin load balance: a rank's T tokens are two chunks of T/2): one
 * SDPA call on its own q, k, v (causal, key length T), then n - 1 calls
 * without a mask, all its queries against half the received keys (or half
 * its queries against all of them): 4 T (T/2) h/t FLOPs each, 2.5x
 * backward. The outputs' fp32 merge and the K/V and dK/dV copies are
 * memory-bound passes (stack.c, wk_stack_cp_ring_bytes) booked with the
 * attention. */
static double ring_attention(WkOpsCtx *c, const WkOpsShape *sh, int bwd)
{
    double n = sh->cp_ring, T = sh->T, hq = sh->h / sh->t, hkv = hq * sh->kv_heads / sh->heads;
    double k = bwd ? 2.5 : 1, io = bwd ? 2 : 1, bw = c->hbm * c->e->mem_max;
    double f0 = 4 * T * T * hq * 0.5 * k, f1 = 4 * T * (T / 2) * hq * k;
    double t = book(c, WK_OP_ATTN, flash_s(c, sh, f0, T, 1, bwd), io * T * (2 * hq + 2 * hkv) * ELEM / bw, 1);
    t += book(c, WK_OP_ATTN, (n - 1) * flash_s(c, sh, f1, T, 0, bwd), (n - 1) * io * T * (2 * hq + hkv) * ELEM / bw,
              n - 1);
    double nk, bytes = wk_stack_cp_ring_bytes(n, sh->h / sh->heads, bwd, &nk) * T * hq;
    return t + book(c, WK_OP_ATTN, 0, bytes / bw, nk);
}

/* Memory-bound operators on the residual stream (T/t tokens with sequence
 * parallelism): norm (read, write), dropout (read, write, mask), residual
 * add (two reads, one write). Backward moves about twice the bytes. */
static double stream_ops(WkOpsCtx *c, const WkOpsShape *sh, int bwd)
{
    double Ts = sh->sp && sh->t > 1 ? sh->T / sh->t : sh->T;
    double x = Ts * sh->h * ELEM, k = bwd ? 2 : 1;
    double t = memop(c, WK_OP_NORM, k * 2 * x, 8 * Ts * sh->h);
    if (sh->dropout)
        t += memop(c, WK_OP_DROPOUT, k * 2.5 * x, 0);
    t += memop(c, WK_OP_RESIDUAL, k * 3 * x, Ts * sh->h);
    return t;
}

/* Megatron-Core's MoE layer around the expert GEMMs (core_v0.11.0,
 * transformer/moe/: TopKRouter with the auxiliary load-balancing loss,
 * MoEAlltoAllTokenDispatcher, moe_utils' unfused permute / unpermute, the
 * default moe_permute_fusion = False; dropless, the default capacity
 * factor None), counted from its source (docs/models.md, "MoE layer"):
 * torch operators launched per layer, views excluded, forward and
 * backward, the sort by local expert adding its own when a rank holds more
 * than one expert; and the rows of h elements its memory-bound operators
 * move (ops.h). */
double wk_ops_moe_kernels(int bwd, double local)
{
    return bwd ? WK_MOE_KERNELS_BWD + (local > 1 ? WK_MOE_SORT_KERNELS_BWD : 0)
               : WK_MOE_KERNELS_FWD + (local > 1 ? WK_MOE_SORT_KERNELS_FWD : 0);
}

double wk_ops_moe_syncs(double local) { return WK_MOE_SYNCS + (local > 1 ? WK_MOE_SORT_SYNCS : 0); }

double wk_ops_moe_rows(int bwd, double Ts, double X, double R, double local)
{
    /* forward: permute's index_select reads and writes X rows (2X);
     * unpermute multiplies by the probabilities (2X), zeroes the Ts output
     * rows and scatter_adds X rows into them (read, read-modify-write: 3X).
     * backward: scatter_add's gather (2X), the product's two gradients
     * (grad x probs 2X; grad x tokens 3X, summed over h X), index_select's
     * zeros and index_add (Ts + 3X). sort_chunks_by_idxs (cat) reads and
     * writes the R received rows, sorting and unsorting (4R), each way. */
    double sort = local > 1 ? 4 * R : 0;
    return (bwd ? 11 * X + Ts : 7 * X + Ts) + sort;
}

/* That layer's operators on one rank for one micro-batch, booked as
 * WK_OP_MOE: memory-bound at HBM speed plus their launches. Returns its time. */
static double moe_layer(WkOpsCtx *c, const WkOpsShape *sh, double R, double local, int bwd)
{
    double Ts = sh->sp && sh->t > 1 ? sh->T / sh->t : sh->T, X = Ts * sh->top_k;
    double bytes = wk_ops_moe_rows(bwd, Ts, X, R, local) * sh->h * ELEM;
    double nk = wk_ops_moe_kernels(bwd, local);
    if (c->op_bytes) {
        bytes *= c->op_bytes[WK_OP_MOE];
        nk *= c->op_kernels[WK_OP_MOE];
    }
    double tm = bytes / (c->hbm * c->e->mem_max);
    return book(c, WK_OP_MOE, 0, tm, nk);
}

/* The MLP: dense, or routed to experts (router, permute, grouped GEMMs whose
 * per-expert size sets their efficiency, with the busiest expert bounding).
 * Experts split over etp ranks; with etp < t (MoE parallel folding) a rank
 * routes its T etp / t tokens and holds whole-width experts of its EP group.
 * The router runs on the rank's sequence-parallel share of the tokens. */
static double mlp(WkOpsCtx *c, const WkOpsShape *sh, int bwd)
{
    double te = sh->experts > 0 && sh->etp > 0 ? sh->etp : sh->t;
    double up = (sh->gated ? 2.0 : 1.0) * sh->ffn / te, f = sh->ffn / te;
    double M = sh->T, n = 1, t = 0;
    if (sh->experts > 0) {
        double local = sh->experts / sh->ep, Tm = sh->T * te / sh->t;
        double Ts = sh->sp && sh->t > 1 ? sh->T / sh->t : sh->T;
        M = Tm * sh->top_k * sh->imbalance * sh->ep / sh->experts; /* tokens per local expert */
        n = local;
        t += gemm_fb(c, Ts, sh->h, sh->experts, 1, bwd); /* router */
        t += moe_layer(c, sh, n * M, local, bwd);
    }
    t += gemm_fb(c, M, sh->h, up, n, bwd);
    double a = n * M * f * ELEM;
    t += memop(c, WK_OP_ACT, (bwd ? 2 : 1) * (sh->gated ? 3 : 2) * a, (sh->gated ? 6 : 10) * n * M * f);
    t += gemm_fb(c, M, f, sh->h, n, bwd);
    return t;
}

/* The parallel block (GPT-J, PaLM; MegaScale §3.1): y = x + attn(norm x) +
 * mlp(norm x). One norm; the two branches' dropouts; one residual add of
 * three inputs (three reads, one write); the q/k/v and MLP-up GEMMs share
 * their input and run fused, as do the output and MLP-down GEMMs (their
 * outputs are summed). Dense MLPs only. */
static double parallel_layer(WkOpsCtx *c, const WkOpsShape *sh, int bwd)
{
    double hq = sh->h / sh->t, hkv = hq * sh->kv_heads / sh->heads;
    double up = (sh->gated ? 2.0 : 1.0) * sh->ffn / sh->t, f = sh->ffn / sh->t;
    double Ts = sh->sp && sh->t > 1 ? sh->T / sh->t : sh->T;
    double x = Ts * sh->h * ELEM, k = bwd ? 2 : 1;
    double t = memop(c, WK_OP_NORM, k * 2 * x, 8 * Ts * sh->h);
    if (sh->dropout)
        t += 2 * memop(c, WK_OP_DROPOUT, k * 2.5 * x, 0);
    t += memop(c, WK_OP_RESIDUAL, k * 4 * x, 2 * Ts * sh->h);
    t += gemm_fb(c, sh->T, sh->h, hq + 2 * hkv + up, 1, bwd);
    if (sh->rotary)
        t += memop(c, WK_OP_ROTARY, k * 2 * sh->T * (hq + hkv) * ELEM, 4 * sh->T * (hq + hkv));
    t += attention(c, sh, bwd);
    double a = sh->T * f * ELEM;
    t += memop(c, WK_OP_ACT, k * (sh->gated ? 3 : 2) * a, (sh->gated ? 6 : 10) * sh->T * f);
    t += gemm_fb(c, sh->T, hq + f, sh->h, 1, bwd);
    return t;
}

static double layer(WkOpsCtx *c, const WkOpsShape *sh, int bwd)
{
    if (sh->parallel && !(sh->experts > 0))
        return parallel_layer(c, sh, bwd);
    double hq = sh->h / sh->t, hkv = hq * sh->kv_heads / sh->heads;
    double t = stream_ops(c, sh, bwd); /* input norm + (previous) residual, dropout */
    t += gemm_fb(c, sh->T, sh->h, hq + 2 * hkv, 1, bwd);
    if (sh->rotary)
        t += memop(c, WK_OP_ROTARY, (bwd ? 2 : 1) * 2 * sh->T * (hq + hkv) * ELEM, 4 * sh->T * (hq + hkv));
    t += attention(c, sh, bwd);
    t += gemm_fb(c, sh->T, hq, sh->h, 1, bwd);
    t += stream_ops(c, sh, bwd); /* post-attention residual, dropout, norm */
    t += mlp(c, sh, bwd);
    return t;
}

double wk_ops_layer_fwd(WkOpsCtx *c, const WkOpsShape *sh, int attn_only)
{
    return attn_only ? attention(c, sh, 0) : layer(c, sh, 0);
}

double wk_ops_layer_bwd(WkOpsCtx *c, const WkOpsShape *sh) { return layer(c, sh, 1); }

double wk_ops_head(WkOpsCtx *c, const WkOpsShape *sh)
{
    double Ts = sh->sp && sh->t > 1 ? sh->T / sh->t : sh->T;
    double logits = sh->T * sh->vocab / sh->t;
    double t = memop(c, WK_OP_NORM, 3 * 2 * Ts * sh->h * ELEM, 24 * Ts * sh->h);
    t += gemm_fb(c, sh->T, sh->h, sh->vocab / sh->t, 1, 0) + gemm_fb(c, sh->T, sh->h, sh->vocab / sh->t, 1, 1);
    /* vocab-parallel cross-entropy in FP32: upcast, max, exp-sum, loss
     * (14 bytes per logit) and its gradient (6 bytes per logit) */
    t += memop(c, WK_OP_XENT, 20 * logits, 8 * logits);
    return t;
}

double wk_ops_embed(WkOpsCtx *c, const WkOpsShape *sh)
{
    double x = sh->T * sh->h;
    return memop(c, WK_OP_EMBED, 2 * x * ELEM, 0) + memop(c, WK_OP_EMBED, x * (ELEM + 8), x);
}

double wk_ops_gemm(WkOpsCtx *c, double M, double K, double N, double n, int bwd)
{
    return gemm_fb(c, M, K, N, n, bwd);
}

double wk_ops_conv(WkOpsCtx *c, double M, double K, double N, double in, int bwd)
{
    double bw = c->hbm * c->e->mem_max;
    double x = in * ELEM, w = K * N * ELEM, y = M * N * ELEM;
    double tc = c->shapes ? wk_eff_gemm_mnk_s(c->e, M, N, K, 1, c->peak, 0)
                          : wk_eff_gemm_s(c->e, 2 * M * K * N, c->peak, 0);
    tc *= c->gemm_clk > 0 ? c->gemm_clk : 1;
    if (!bwd)
        return book(c, WK_OP_GEMM, tc, (x + w + y) / bw, 1);
    /* data gradient: dy and W in, dx out; weight gradient: x and dy in, dW out */
    return book(c, WK_OP_GEMM, tc, (y + w + x) / bw, 1) + book(c, WK_OP_GEMM, tc, (x + y + w) / bw, 1);
}

double wk_ops_mem(WkOpsCtx *c, WkOpKind k, double bytes, double vflops) { return memop(c, k, bytes, vflops); }

double wk_ops_optimizer(WkOpsCtx *c, double params)
{
    /* Adam: read FP32 master, m, v, gradient (16 B), write master, m, v and the
     * BF16 weight (14 B); gradient norm reads the gradient again (4 B) */
    WkOpsCtx cc = *c;
    double t = memop(&cc, WK_OP_OPTIM, 30 * params, 12 * params) + memop(&cc, WK_OP_OPTIM, 4 * params, 2 * params);
    return t;
}

void wk_ops_layer_mix(WkOpsCtx *t, const void *sh)
{
    wk_ops_layer_fwd(t, sh, 0);
    wk_ops_layer_bwd(t, sh);
}

double wk_ops_sustain_of(WkOpsCtx *c, WkSustainMix mix, const void *arg, const WkGpuSku *sku, double cap_clock)
{
    WkOpStat acc[WK_OP_NKIND] = {{0}};
    WkOpsCtx t = *c;
    t.gemm_clk = t.fp8_clk = t.attn_clk = 1;
    t.mult = 1;
    t.acc = acc;
    mix(&t, arg);
    return wk_ops_sustain_mix(c, acc, sku, cap_clock);
}

double wk_ops_sustain(WkOpsCtx *c, const WkOpsShape *sh, const WkGpuSku *sku, double cap_clock)
{
    return wk_ops_sustain_of(c, wk_ops_layer_mix, sh, sku, cap_clock);
}

double wk_ops_sustain_mix(WkOpsCtx *c, const WkOpStat acc[WK_OP_NKIND], const WkGpuSku *sku, double cap_clock)
{
    double comp = 0, rest = 0;
    for (int k = 0; k < WK_OP_NKIND; k++) {
        comp += acc[k].compute_s;
        rest += acc[k].memory_s + acc[k].overhead_s;
    }
    double act = comp + rest > 0 ? (comp + wk_power_defaults().memory_activity * rest) / (comp + rest) : 1;
    double f = wk_dvfs_sustained_clock(sku, act);
    double cap = cap_clock > 0 && cap_clock < 1 ? cap_clock : 1;
    double run = f < cap ? f : cap; /* the lower of the two limits */
    /* c's peaks carry cap already: what is left is measured clock / (run / cap) */
    c->gemm_clk = c->e->gemm_at > 0 ? c->e->gemm_at * cap / run : 1;
    c->fp8_clk = c->e->fp8_at > 0 ? c->e->fp8_at * cap / run : 1;
    c->attn_clk = c->e->attn_at > 0 ? c->e->attn_at * cap / run : 1;
    return run;
}

double wk_ops_compute(WkOpsCtx *c, WkOpKind k, double flops, double peak)
{
    return book(c, k, flops / peak * (c->gemm_clk > 0 ? c->gemm_clk : 1), 0, 0);
}

void wk_ops_add(WkOpStat *dst, const WkOpStat *src, double k)
{
    for (int i = 0; i < WK_OP_NKIND; i++) {
        dst[i].s += k * src[i].s;
        dst[i].compute_s += k * src[i].compute_s;
        dst[i].memory_s += k * src[i].memory_s;
        dst[i].overhead_s += k * src[i].overhead_s;
        dst[i].kernels += k * src[i].kernels;
    }
}
