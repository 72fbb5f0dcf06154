/* SPDX-License-Identifier: Apache-2.0 */
/* test_stack.c — the training frameworks' mechanisms (`stack:`,
 * models/workload/stack.c) against closed forms: the exposed time of a
 * per-layer FSDP pipeline, the host-bound layer, per-layer FSDP
 * communication as perf_comm.c evaluates it, unfused operators' bytes and
 * kernels, the optimizer implementations, op-level selective checkpointing
 * and sharding over context-parallel ranks in the memory model, a model's
 * `reduce_dtype:` over the stack's, unpartitioned pipeline gradients,
 * torchtitan's context-parallel ring; megatron-core
 * (the default) and nemo leave every result as it was; an unknown stack is a
 * positioned error listing the known ones. */
#include "tests/unit/testutil.h"

#include <math.h>

#include "models/gpu/catalog.h"
#include "models/net/collective.h"
#include "models/workload/model.h"
#include "models/workload/perf.h"
#include "models/workload/perf_comm.h"
#include "models/workload/stack.h"
#include "models/workload/workload.h"

static WkDoc *keep[32];
static size_t nkeep;

static const WkNode *yaml_node(const char *text, const char *key)
{
    WkError err;
    WkDoc *d = NULL;
    wk_error_clear(&err);
    if (wk_doc_load_string(&d, "t.yaml", text, strlen(text), &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    keep[nkeep++] = d;
    return wk_node_get(d->root, key);
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < nkeep; i++)
        wk_doc_free(keep[i]);
    nkeep = 0;
    return 0;
}

static WkModelSpec model(const char *yaml)
{
    WkModelSpec m;
    WkError err;
    wk_error_clear(&err);
    if (wk_model_parse(yaml_node(yaml, "model"), NULL, &m, &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    return m;
}

static WkPerfEnv env_of(const char *sku, uint32_t gpus)
{
    return (WkPerfEnv){.sku = wk_catalog_find(sku), .speed = 1, .gpus = gpus, .nvlink_gpus = 8,
                       .nvlink_bw = 300e9, .net_bw = 25e9, .multi_domain = gpus > 8};
}

static WkPerfResult eval_ok(const WkModelSpec *m, const WkPerfEnv *env)
{
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    if (wk_perf_eval(m, env, &p, &r, &err) < 0)
        fail_msg("%s", err.msg);
    return r;
}

/* Two-stage pipeline of L layers: the first layer's communication and the
 * tail exposed, each later layer exposing what its communication exceeds
 * the previous layer's compute; without prefetch every layer's. */
static void test_fsdp_exposed_closed_form(void **state)
{
    (void)state;
    /* compute-bound: only the first gather and the last reduce-scatter */
    assert_float_equal(wk_stack_fsdp_exposed(4, 1.0, 0.5, 1, 0.5, 0.3), 0.8, 1e-12);
    /* communication-bound: (L - 1)(c - p) more */
    assert_float_equal(wk_stack_fsdp_exposed(4, 1.0, 2.0, 1, 2.0, 0.3), 2.0 + 3 * 1.0 + 0.3, 1e-12);
    /* no prefetch: every layer's communication exposed */
    assert_float_equal(wk_stack_fsdp_exposed(4, 1.0, 0.5, 0, 0.5, 0.3), 0.5 + 3 * 0.5 + 0.3, 1e-12);
    /* half a layer ahead: the other half on demand, the prefetched half hidden */
    assert_float_equal(wk_stack_fsdp_exposed(4, 1.0, 0.5, 0.5, 0.5, 0), 0.5 + 3 * 0.25, 1e-12);
    assert_float_equal(wk_stack_fsdp_exposed(4, 0.1, 0.5, 0.5, 0.5, 0), 0.5 + 3 * (0.25 + 0.15), 1e-12);
    /* and the whole pass = first + (L - 1) max(c, p) + p + tail */
    double L = 32, p = 0.02, c = 0.03, first = 0.01, tail = 0.004;
    assert_float_equal(wk_stack_fsdp_exposed(L, p, c, 1, first, tail) + L * p,
                       first + (L - 1) * fmax(c, p) + p + tail, 1e-12);
}

/* The GPU waits when the host issues a layer's kernels more slowly than the
 * GPU runs them; a CUDA graph replay is one launch. */
static void test_host_bound_layer_closed_form(void **state)
{
    (void)state;
    assert_float_equal(wk_stack_host_wait(1e-3, 200, 9.4e-6, 0), 200 * 9.4e-6 - 1e-3, 1e-15);
    assert_float_equal(wk_stack_host_wait(5e-3, 200, 9.4e-6, 0), 0, 0);
    assert_float_equal(wk_stack_host_wait(1e-3, 200, 9.4e-6, 1), 0, 0);
    assert_float_equal(wk_stack_host_wait(0, 200, 9.4e-6, 0), 200 * 9.4e-6, 1e-15);
    /* a tiny layer on an eager stack is host-bound, and the wait is part
     * of the iteration */
    WkModelSpec m = model("model: {layers: 2, hidden: 256, heads: 4, ffn: 1024, vocab: 1000, seq_len: 64,"
                          " micro_batch: 1, global_batch: 8, zero: 1, stack: composer}\n");
    WkPerfEnv env = env_of("H100-SXM-80G", 8);
    WkPerfResult r = eval_ok(&m, &env);
    assert_true(r.host_s > 0);
    assert_float_equal(r.iter_s, r.compute_s + r.host_s + r.bubble_s + r.tp_s + r.cp_s + r.pp_s + r.dp_s + r.ep_s +
                                     r.optim_s + r.interference_s + r.wan_s, 1e-12);
}

/* Per-layer FSDP communication as perf_comm.c evaluates it, inside one
 * NVLink domain (a gather and a reduce-scatter are one ring pass each). */
static void test_fsdp_layer_comm_matches_closed_form(void **state)
{
    (void)state;
    const WkGpuSku *sku = wk_catalog_find("H100-SXM-80G");
    const WkGpuEff *e = wk_catalog_eff(sku);
    WkModelSpec m = model("model: {base: llama3-8b, zero: 3, stack: composer}\n");
    WkPerfEnv env = env_of("H100-SXM-80G", 8);
    WkPerfParams p = wk_perf_defaults();
    double P = 2e8, R = 1e9, L = 32, fwd = 0.01, bwd = 0.02, rc = 0.005;
    WkCommIn in = {.m = &m, .env = &env, .p = &p, .e = e, .layers = L, .mb = 1, .dp = 8, .fwd_s = fwd,
                   .bwd_s = bwd, .rc_s = rc, .layer_params = P, .root_params = R, .shard = 8,
                   .sk = wk_stack_mech(WK_STACK_COMPOSER)};
    double bw = env.nvlink_bw * e->nvlink_eff, lat = e->ring_lat_s;
    double ag = wk_coll_reduce_scatter_s(2 * P, 8, bw, lat), rs = ag;
    double agr = wk_coll_reduce_scatter_s(2 * R, 8, bw, lat), rsr = agr;
    /* FSDP1 keeps the root for backward and gathers every layer again */
    double want = wk_stack_fsdp_exposed(L, fwd, ag, 1, agr + ag, 0) +
                  wk_stack_fsdp_exposed(L, bwd + rc, ag + rs, 1, ag, rs + rsr);
    double hidden = 0;
    assert_float_equal(wk_perf_fsdp_layer_s(&in, &hidden, NULL), want, 1e-12);
    assert_float_equal(hidden, agr + L * ag + L * (ag + rs) + rsr - want, 1e-12);
    /* torchtitan: FP32 reduce-scatters, the root gathered again and the
     * last block kept for backward, FSDP2's copies on HBM */
    in.sk = wk_stack_mech(WK_STACK_TORCHTITAN);
    double rs4 = wk_coll_reduce_scatter_s(4 * P, 8, bw, lat), rsr4 = wk_coll_reduce_scatter_s(4 * R, 8, bw, lat);
    double copies = ((2 * L - 1) * P * (4.0 / 8 + 4) + 2 * R * (4.0 / 8 + 4) + 6 * (L * P + R)) /
                    (sku->hbm_bw_bytes_per_s * e->mem_max);
    want = wk_stack_fsdp_exposed(L, fwd, ag, 1, agr + ag, 0) +
           wk_stack_fsdp_exposed(L, bwd + rc, ag + rs4, 1, agr, rs4 + rsr4) + copies;
    hidden = 0;
    assert_float_equal(wk_perf_fsdp_layer_s(&in, &hidden, NULL), want, 1e-12);
}

/* megatron-core is the default and nemo shares its mechanisms: results are
 * bit for bit those without the key (ZeRO-3 included). */
static void test_megatron_core_and_nemo_leave_results_unchanged(void **state)
{
    (void)state;
    const char *base[] = {"model: {base: llama3-8b, zero: 3, global_batch: 64%s}\n",
                          "model: {base: llama3-70b, recompute: selective%s}\n"};
    for (int i = 0; i < 2; i++) {
        char a[256], b[256], c[256];
        snprintf(a, sizeof a, base[i], "");
        snprintf(b, sizeof b, base[i], ", stack: megatron-core");
        snprintf(c, sizeof c, base[i], ", stack: nemo");
        WkModelSpec ma = model(a), mb = model(b), mc = model(c);
        WkPerfEnv env = env_of("H100-SXM-80G", 64);
        WkPerfResult ra = eval_ok(&ma, &env), rb = eval_ok(&mb, &env), rcn = eval_ok(&mc, &env);
        assert_true(ra.iter_s == rb.iter_s && ra.iter_s == rcn.iter_s);
        assert_true(ra.mem_bytes == rb.mem_bytes && ra.mem_bytes == rcn.mem_bytes);
        assert_true(ra.host_s == 0);
    }
}

static void test_unknown_stack_lists_the_known_ones(void **state)
{
    (void)state;
    WkModelSpec m;
    WkError err;
    wk_error_clear(&err);
    const WkNode *n = yaml_node("model: {base: llama3-8b,\n  stack: fsdp2}\n", "model");
    assert_int_equal(wk_model_parse(n, NULL, &m, &err), WK_E_INVAL);
    assert_non_null(strstr(err.where, "t.yaml:2:10"));
    assert_non_null(strstr(err.msg, "unknown stack 'fsdp2'"));
    assert_non_null(strstr(err.msg, "megatron-core, nemo, torchtitan, deepspeed, composer"));
    /* a null stack is not given (the default); a map is not a name */
    m = model("model: {base: llama3-8b, stack: ~}\n");
    assert_int_equal(m.stack, WK_STACK_MCORE);
    n = yaml_node("model: {base: llama3-8b, stack: {name: torchtitan}}\n", "model");
    wk_error_clear(&err);
    assert_int_equal(wk_model_parse(n, NULL, &m, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "expected a string"));
    /* every name round-trips */
    for (int s = 0; s < WK_STACK_N; s++)
        assert_int_equal(wk_stack_find(wk_stack_mech((WkStack)s)->name), s);
    assert_int_equal(wk_stack_find("Megatron-LM"), -1);
    /* reduce_dtype and pp_grad_partitioned: a wrong value is positioned */
    n = yaml_node("model: {base: llama3-8b, stack: composer,\n  reduce_dtype: fp64}\n", "model");
    wk_error_clear(&err);
    assert_int_equal(wk_model_parse(n, NULL, &m, &err), WK_E_INVAL);
    assert_non_null(strstr(err.where, "t.yaml:2:17"));
    assert_non_null(strstr(err.msg, "unknown value 'fp64' (known: bf16, fp32)"));
    n = yaml_node("model: {base: llama3-8b, pp_grad_partitioned: half}\n", "model");
    wk_error_clear(&err);
    assert_true(wk_model_parse(n, NULL, &m, &err) < 0);
    assert_non_null(strstr(err.msg, "pp_grad_partitioned"));
}

/* torchtitan's RMSNorm runs as six passes over the tensor and two kernels
 * on the row statistics: 36 B per element against the fused kernel's 4. */
static void test_eager_norm_moves_nine_times_the_bytes(void **state)
{
    (void)state;
    WkModelSpec a = model("model: {base: llama3-8b, seq_len: 2048, zero: 1, global_batch: 8}\n");
    WkModelSpec b = model("model: {base: llama3-8b, seq_len: 2048, zero: 1, global_batch: 8, stack: torchtitan}\n");
    WkPerfEnv env = env_of("A100-SXM-80G", 8);
    WkPerfResult ra = eval_ok(&a, &env), rb = eval_ok(&b, &env);
    assert_float_equal(rb.ops[WK_OP_NORM].memory_s / ra.ops[WK_OP_NORM].memory_s, 9, 1e-9);
    assert_float_equal(rb.ops[WK_OP_NORM].kernels / ra.ops[WK_OP_NORM].kernels, 8, 1e-9);
    assert_float_equal(rb.ops[WK_OP_XENT].memory_s / ra.ops[WK_OP_XENT].memory_s, 2, 1e-9);
    /* GEMMs untouched */
    assert_float_equal(rb.ops[WK_OP_GEMM].s, ra.ops[WK_OP_GEMM].s, 1e-12);
    /* compiled blocks fuse the norm, rotary and SwiGLU as the fused stacks
     * do; the loss outside the blocks stays eager */
    WkModelSpec c = model("model: {base: llama3-8b, seq_len: 2048, zero: 1, global_batch: 8, stack: torchtitan,"
                          " compile: true}\n");
    WkPerfResult rc = eval_ok(&c, &env);
    assert_float_equal(rc.ops[WK_OP_NORM].memory_s, ra.ops[WK_OP_NORM].memory_s, 1e-12);
    assert_float_equal(rc.ops[WK_OP_NORM].kernels, ra.ops[WK_OP_NORM].kernels, 0);
    assert_float_equal(rc.ops[WK_OP_ROTARY].memory_s, ra.ops[WK_OP_ROTARY].memory_s, 1e-12);
    assert_float_equal(rc.ops[WK_OP_ACT].memory_s, ra.ops[WK_OP_ACT].memory_s, 1e-12);
    assert_float_equal(rc.ops[WK_OP_XENT].memory_s, rb.ops[WK_OP_XENT].memory_s, 1e-12);
}

/* Composer runs PyTorch's native LayerNorm kernel, measured at 0.57 of the
 * triad rate: its norms take 1/0.57 of megatron-core's time on the same
 * bytes and kernels; nothing else moves. */
static void test_native_norm_runs_at_its_measured_rate(void **state)
{
    (void)state;
    WkModelSpec a = model("model: {base: llama3-8b, seq_len: 2048, zero: 1, global_batch: 8}\n");
    WkModelSpec b = model("model: {base: llama3-8b, seq_len: 2048, zero: 1, global_batch: 8, stack: composer}\n");
    WkPerfEnv env = env_of("H100-SXM-80G", 8);
    WkPerfResult ra = eval_ok(&a, &env), rb = eval_ok(&b, &env);
    assert_float_equal(rb.ops[WK_OP_NORM].memory_s * WK_NATIVE_NORM_EFF, ra.ops[WK_OP_NORM].memory_s, 1e-12);
    assert_float_equal(rb.ops[WK_OP_NORM].kernels, ra.ops[WK_OP_NORM].kernels, 0);
    assert_float_equal(rb.ops[WK_OP_RESIDUAL].s, ra.ops[WK_OP_RESIDUAL].s, 1e-12);
    assert_float_equal(WK_NATIVE_NORM_EFF, 0.57, 0);
}

/* Composer's DecoupledAdamW: eight passes (80 B per parameter) per tensor
 * from a Python loop; a small model is host-bound: (8 n + 1) operators. */
static void test_per_tensor_optimizer_host_bound(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {layers: 2, hidden: 256, heads: 4, ffn: 1024, vocab: 1000, seq_len: 64,"
                          " mlp: gelu, global_batch: 8, zero: 1, stack: composer}\n");
    WkPerfEnv env = env_of("H100-SXM-80G", 8);
    WkPerfResult r = eval_ok(&m, &env);
    double tensors = 2 * 6 + 3, per = WK_HOST_OP_PY_S + wk_catalog_eff(env.sku)->kernel_s;
    assert_float_equal(r.optim_s, (8 * tensors + 1) * per, 1e-15);
    /* a large one is bound by its bytes, 84 B per parameter, and its
     * (8 n + 1) kernels' launch gaps */
    WkModelSpec big = model("model: {base: llama3-8b, seq_len: 2048, zero: 1, global_batch: 8, stack: composer}\n");
    WkPerfResult rb = eval_ok(&big, &env);
    const WkGpuEff *e = wk_catalog_eff(env.sku);
    double P = big.params / 8, n = 32 * 9 + 3;
    assert_float_equal(rb.optim_s, 84 * P / (env.sku->hbm_bw_bytes_per_s * e->mem_max) + (8 * n + 1) * e->kernel_s,
                       1e-9);
}

/* Memory against torchtitan's published runs (docs/performance.md, Llama 2
 * on 64 A100 80 GB with FSDP2): 70B with selective op checkpointing ran at
 * local batch 1 and ran out of memory at 2. */
static void test_op_sac_memory_matches_published_llama2_70b(void **state)
{
    (void)state;
    const char *y = "model: {layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn: 28672, vocab: 32000,"
                    " seq_len: 4096, micro_batch: %d, global_batch: %d, zero: 3, recompute: selective,"
                    " stack: torchtitan}\n";
    char a[512], b[512];
    snprintf(a, sizeof a, y, 1, 64);
    snprintf(b, sizeof b, y, 2, 128);
    WkModelSpec m1 = model(a), m2 = model(b);
    WkPerfEnv env = env_of("A100-SXM-80G", 64);
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_perf_eval(&m2, &env, &p, &r, &err), WK_E_RANGE);
    assert_int_equal(wk_perf_eval(&m1, &env, &p, &r, &err), 0);
    /* the op policy keeps the input, the attention output and every other
     * matmul's output (q, v, w1, w2): 2 B each, per token and layer */
    double tok = 4096, h = 8192, kv = 1024, f = 28672;
    assert_float_equal(r.mem_act_bytes, 80 * 2 * tok * (h + h + h + kv + f + h), 1);
}

/* The model of YAML template y (one %s for extra keys) with stack
 * torchtitan (*tt) and with the default stack (*mc). */
static void torchtitan_and_default(const char *y, WkModelSpec *tt, WkModelSpec *mc)
{
    char a[256], b[256];
    snprintf(a, sizeof a, y, ", stack: torchtitan");
    snprintf(b, sizeof b, y, "");
    *tt = model(a);
    *mc = model(b);
}

/* ZeRO shards, and the gradients are reduced, over dp x cp: Llama 3.1 8B
 * at 256k tokens, FSDP 1 x CP 8 on 8 GPUs, ran (torchtitan
 * docs/performance.md) and is not refused, under either stack; with dp 1
 * the FSDP collectives still run over the 8 context-parallel ranks. */
static void test_shard_over_cp(void **state)
{
    (void)state;
    const char *y = "model: {base: llama3-8b, seq_len: 262144, cp: 8, micro_batch: 1, global_batch: 1,"
                    " zero: 3, recompute: full%s}\n";
    WkModelSpec mt, mm;
    torchtitan_and_default(y, &mt, &mm);
    WkPerfEnv env = env_of("H100-SXM-80G", 8);
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult r, rm;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_perf_eval(&mt, &env, &p, &r, &err), 0);
    assert_true(r.mem_state_bytes < 21.0 * 1024 * 1024 * 1024);
    assert_true(r.dp_s > 0); /* the per-layer all-gathers' exposed part */
    assert_int_equal(wk_perf_eval(&mm, &env, &p, &rm, &err), 0);
    assert_true(rm.mem_state_bytes < 21.0 * 1024 * 1024 * 1024);
    assert_true(rm.dp_s > 0);
    /* ZeRO-1 over dp x cp: the optimizer state of 8B parameters split 8 ways */
    const char *z1 = "model: {base: llama3-8b, seq_len: 65536, cp: 8, micro_batch: 1, global_batch: 1,"
                     " zero: 1, recompute: full%s}\n";
    torchtitan_and_default(z1, &mt, &mm);
    assert_int_equal(wk_perf_eval(&mm, &env, &p, &rm, &err), 0);
    double P = mm.params;
    assert_float_equal(rm.mem_state_bytes, 4 * P + 12 * P / 8, 1e-6 * P);
}

/* DeepSpeed ZeRO-3 gathers a bucket of 5e7 elements ahead: of a layer of
 * 2e8 parameters a quarter is prefetched, the rest fetched on demand. */
static void test_deepspeed_prefetch_bucket(void **state)
{
    (void)state;
    const WkGpuEff *e = wk_catalog_eff(wk_catalog_find("H100-SXM-80G"));
    WkModelSpec m = model("model: {base: llama3-8b, zero: 3, stack: deepspeed}\n");
    WkPerfEnv env = env_of("H100-SXM-80G", 8);
    WkPerfParams p = wk_perf_defaults();
    double P = 2e8, L = 32, fwd = 0.01, bwd = 0.02;
    WkCommIn in = {.m = &m, .env = &env, .p = &p, .e = e, .layers = L, .mb = 1, .dp = 8, .fwd_s = fwd,
                   .bwd_s = bwd, .layer_params = P, .root_params = 0, .shard = 8, .sk = wk_stack_mech(m.stack)};
    double ag = wk_coll_reduce_scatter_s(2 * P, 8, env.nvlink_bw * e->nvlink_eff, e->ring_lat_s);
    double want = wk_stack_fsdp_exposed(L, fwd, ag, 0.25, ag, 0) + wk_stack_fsdp_exposed(L, bwd, 2 * ag, 0.25, ag, ag);
    double hidden = 0;
    assert_float_equal(wk_perf_fsdp_layer_s(&in, &hidden, NULL), want, 1e-12);
    assert_float_equal(want, ag + 31 * 0.75 * ag + ag + 31 * 1.5 * ag + ag, 1e-12); /* f c < p: hidden */
}

/* `reduce_dtype: fp32` over composer's bf16 (Composer's FSDP
 * mixed_precision DEFAULT): the per-layer reduce-scatters move 4 B per
 * gradient element and the unsharded gradient buffer grows by 2 B per
 * layer parameter; every other setting is composer's, and `bf16` or no key
 * leave composer as it is. */
static void test_reduce_dtype_overrides_the_stack(void **state)
{
    (void)state;
    const WkGpuEff *e = wk_catalog_eff(wk_catalog_find("H100-SXM-80G"));
    WkModelSpec m4 = model("model: {base: llama3-8b, zero: 3, stack: composer, reduce_dtype: fp32}\n");
    WkModelSpec m2 = model("model: {base: llama3-8b, zero: 3, stack: composer, reduce_dtype: bf16}\n");
    WkModelSpec m0 = model("model: {base: llama3-8b, zero: 3, stack: composer}\n");
    assert_float_equal(m4.reduce_bytes, 4, 0);
    assert_float_equal(m0.reduce_bytes, 0, 0);
    WkStackMech sk = wk_stack_with_reduce(m4.stack, m4.reduce_bytes);
    const WkStackMech *c = wk_stack_mech(WK_STACK_COMPOSER);
    assert_float_equal(sk.reduce_bytes, 4, 0);
    assert_float_equal(wk_stack_with_reduce(m0.stack, m0.reduce_bytes).reduce_bytes, c->reduce_bytes, 0);
    assert_int_equal(sk.optim, c->optim);
    assert_int_equal(sk.attn_fa2, c->attn_fa2);
    assert_int_equal(sk.reshard_after_forward, c->reshard_after_forward);
    WkPerfEnv env = env_of("H100-SXM-80G", 8);
    WkPerfParams p = wk_perf_defaults();
    double P = 2e8, R = 1e9, L = 32, fwd = 0.01, bwd = 0.02;
    WkCommIn in = {.m = &m4, .env = &env, .p = &p, .e = e, .layers = L, .mb = 1, .dp = 8, .fwd_s = fwd,
                   .bwd_s = bwd, .layer_params = P, .root_params = R, .shard = 8, .sk = &sk};
    double bw = env.nvlink_bw * e->nvlink_eff, lat = e->ring_lat_s;
    double ag = wk_coll_reduce_scatter_s(2 * P, 8, bw, lat), agr = wk_coll_reduce_scatter_s(2 * R, 8, bw, lat);
    double rs4 = wk_coll_reduce_scatter_s(4 * P, 8, bw, lat), rsr4 = wk_coll_reduce_scatter_s(4 * R, 8, bw, lat);
    double want = wk_stack_fsdp_exposed(L, fwd, ag, 1, agr + ag, 0) +
                  wk_stack_fsdp_exposed(L, bwd, ag + rs4, 1, ag, rs4 + rsr4);
    double hidden = 0;
    assert_float_equal(wk_perf_fsdp_layer_s(&in, &hidden, NULL), want, 1e-12);
    /* memory: 2 B more per layer parameter, P = (N - 2 V h) / layers */
    WkPerfEnv ev = env_of("H100-SXM-80G", 8);
    WkPerfResult r4 = eval_ok(&m4, &ev), r2 = eval_ok(&m2, &ev), r0 = eval_ok(&m0, &ev);
    double lp = (m4.params - 2.0 * m4.vocab * m4.hidden) / m4.layers;
    assert_float_equal(r4.mem_state_bytes - r2.mem_state_bytes, 2 * lp, 1);
    assert_float_equal(r2.iter_s, r0.iter_s, 0);
    assert_true(r4.iter_s >= r2.iter_s);
}

/* `stack:` is read wherever a model is: through `base:` from `models:`,
 * and in a workload class; an unknown one there is positioned too. */
static void test_stack_in_library_and_workload_class(void **state)
{
    (void)state;
    WkDoc *d = NULL;
    WkError err;
    wk_error_clear(&err);
    const char *y = "models: {tt: {base: llama3-8b, stack: torchtitan}}\nmodel: {base: tt, zero: 3}\n";
    assert_int_equal(wk_doc_load_string(&d, "t.yaml", y, strlen(y), &err), 0);
    WkModelSpec m;
    assert_int_equal(wk_model_parse(wk_node_get(d->root, "model"), wk_node_get(d->root, "models"), &m, &err), 0);
    assert_int_equal(m.stack, WK_STACK_TORCHTITAN);
    wk_doc_free(d);
    const char *w1 = "workload: {source: synthetic, jobs: 4, gpus: [{gpus: 8, weight: 1, iterations: 10,"
                     " model: {base: llama3-8b, stack: composer}}]}\n";
    const char *w2 = "workload: {source: synthetic, jobs: 4, gpus: [{gpus: 8, weight: 1, iterations: 10,"
                     " model: {base: llama3-8b, stack: titan}}]}\n";
    WkWorkloadCtx ctx = {.base_dir = ".", .seed = 1};
    WkWorkload w;
    assert_int_equal(wk_doc_load_string(&d, "w.yaml", w1, strlen(w1), &err), 0);
    assert_int_equal(wk_workload_load(wk_node_get(d->root, "workload"), &ctx, &w, &err), 0);
    assert_true(w.nmodels >= 1);
    assert_int_equal(w.models[0].stack, WK_STACK_COMPOSER);
    wk_workload_fini(&w);
    wk_doc_free(d);
    assert_int_equal(wk_doc_load_string(&d, "w.yaml", w2, strlen(w2), &err), 0);
    assert_int_equal(wk_workload_load(wk_node_get(d->root, "workload"), &ctx, &w, &err), WK_E_INVAL);
    assert_non_null(strstr(err.where, "w.yaml:1:"));
    assert_non_null(strstr(err.msg, "unknown stack 'titan' (known: megatron-core"));
    wk_doc_free(d);
}

/* Across sites per-layer FSDP shards inside a site (hybrid sharding) and
 * adds the WAN leg: never faster than the same GPUs in one site. */
static void test_fsdp_across_sites_not_faster(void **state)
{
    (void)state;
    WkModelSpec m = model("model: {base: llama3-70b, zero: 3, tp: 1, pp: 1, recompute: full, global_batch: 256,"
                          " stack: torchtitan}\n");
    WkPerfEnv env = env_of("H100-SXM-80G", 256);
    WkPerfParams p = wk_perf_defaults();
    WkPerfWan w = {.sites = 2, .bw_bits_per_s = 400e9, .lat_s = 0.01};
    WkPerfResult one, two;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_perf_eval(&m, &env, &p, &one, &err), 0);
    assert_int_equal(wk_perf_eval_wan(&m, &env, &p, &w, &two, &err), 0);
    assert_true(two.iter_s > one.iter_s);
    assert_true(two.wan_s > 0);
}

/* torchtitan's tensor-parallel collectives block (no async TP by default):
 * its exposed TP time is megatron-core's with tp_overlap: none. */
static void test_torchtitan_tp_blocks(void **state)
{
    (void)state;
    WkModelSpec a = model("model: {base: llama3-70b, pp: 1, zero: 3, recompute: full, global_batch: 16,"
                          " stack: torchtitan}\n");
    WkModelSpec b = model("model: {base: llama3-70b, pp: 1, zero: 3, recompute: full, global_batch: 16,"
                          " tp_overlap: none}\n");
    WkModelSpec c = model("model: {base: llama3-70b, pp: 1, zero: 3, recompute: full, global_batch: 16}\n");
    WkPerfEnv env = env_of("H100-SXM-80G", 64);
    WkPerfResult ra = eval_ok(&a, &env), rb = eval_ok(&b, &env), rc = eval_ok(&c, &env);
    assert_true(ra.tp_s > 0);
    assert_float_equal(ra.tp_s, rb.tp_s, 1e-12 * rb.tp_s);
    assert_true(rc.tp_s < rb.tp_s);
}

/* `pp_grad_partitioned: false` (DeepSpeed's PipelineEngine before 0.5.4):
 * each of the 2 (mb + pp - 1) transfers of 1F1B is half forward, T h 2 / t
 * bytes, half backward, T h 2 bytes from every TP rank, each an α-β
 * point-to-point on the fabric; the default sends both partitioned. */
static void test_pp_grad_full_closed_form(void **state)
{
    (void)state;
    const char *base = "model: {base: gpt3-175b, tp: 8, pp: 8, global_batch: 64, micro_batch: 1, seq_len: 2048,"
                       " schedule: 1f1b, vp: 1,"
                       " stack: deepspeed";
    char y1[256], y2[256];
    snprintf(y1, sizeof y1, "%s}\n", base);
    snprintf(y2, sizeof y2, "%s, pp_grad_partitioned: false}\n", base);
    WkModelSpec a = model(y1), b = model(y2);
    assert_int_equal(a.pp_grad_full, 0);
    assert_int_equal(b.pp_grad_full, 1);
    WkPerfEnv env = env_of("A100-SXM-80G", 64);
    const WkGpuEff *e = wk_catalog_eff(env.sku);
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult ra = eval_ok(&a, &env), rb = eval_ok(&b, &env);
    double B = 2048.0 * a.hidden * 2 / 8, bw = env.net_bw * e->net_eff, lat = p.lat_inter_s;
    double n = 2.0 * (64 + 8 - 1);
    assert_float_equal(ra.pp_s, n * wk_coll_p2p_s(B, bw, lat), 1e-12 * ra.pp_s);
    assert_float_equal(rb.pp_s, n / 2 * (wk_coll_p2p_s(B, bw, lat) + wk_coll_p2p_s(8 * B, bw, lat)),
                       1e-12 * rb.pp_s);
    assert_true(rb.iter_s > ra.iter_s);
}

/* Llama 3 70B on 64 H100 80 GB with FSDP and CP 2 at 8,192 tokens: as
 * megatron-core it needs 100.3 GiB (state 16.4 sharded over dp x cp, and
 * the 83.8 GiB of activations that selective recomputation of the
 * attention core keeps; a Llama layer saves 33.53 s b h); with torchtitan's
 * op-level selective checkpointing it fits; without any checkpointing it
 * cannot (the saved activations alone are 83.8 GiB). */
static void test_fsdp_cp2_70b_fits_with_torchtitan(void **state)
{
    (void)state;
    const char *y = "model: {base: llama3-70b, tp: 1, pp: 1, cp: 2, zero: 3, micro_batch: 1, global_batch: 32,"
                    " recompute: %s%s}\n";
    char a[256], b[256], c[256];
    snprintf(a, sizeof a, y, "selective", "");
    snprintf(b, sizeof b, y, "selective", ", stack: torchtitan");
    snprintf(c, sizeof c, y, "none", ", stack: torchtitan");
    WkModelSpec ma = model(a), mb = model(b), mc = model(c);
    WkPerfEnv env = env_of("H100-SXM-80G", 64);
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult r;
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_perf_eval(&ma, &env, &p, &r, &err), WK_E_RANGE);
    assert_non_null(strstr(err.msg, "needs 100.3 GiB"));
    assert_int_equal(wk_perf_eval(&mb, &env, &p, &r, &err), 0);
    assert_true(r.mem_bytes < 70.0 * 1024 * 1024 * 1024);
    assert_int_equal(wk_perf_eval(&mc, &env, &p, &r, &err), WK_E_RANGE);
}

/* PyTorch's context_parallel ring (torchtitan): the bytes and kernels of
 * its merge and copies on the busiest rank, closed forms of stack.h. */
static void test_cp_ring_bytes_closed_form(void **state)
{
    (void)state;
    double k;
    assert_float_equal(wk_stack_cp_ring_bytes(8, 128, 0, &k), 46 * 8 - 26 + 52.0 * 7 / 128, 1e-12);
    assert_float_equal(k, 10 * 8 - 6, 0);
    assert_float_equal(wk_stack_cp_ring_bytes(8, 128, 1, &k), 60 * 8 + 24, 1e-12);
    assert_float_equal(k, 7 * 8 + 4, 0);
    assert_float_equal(wk_stack_cp_ring_bytes(1, 128, 1, &k), 0, 0);
    assert_float_equal(k, 0, 0);
}

/* Llama 3.1 8B at 65,536 tokens, CP 2, full recomputation on 8 H100
 * (torchtitan's Table 2 configuration): as torchtitan, each layer runs 2
 * SDPA calls per pass plus the ring's elementwise kernels, their HBM
 * bytes booked with attention; the exposed CP time is the last fp32 dK,
 * dV transfer of each layer (the K/V all-gathers and the other
 * transfers hide behind the SDPA calls). megatron-core keeps one kernel
 * per pass and three exposed all-gathers of the KV heads. */
static void test_torchtitan_cp_ring_matches_closed_form(void **state)
{
    (void)state;
    const char *y = "model: {base: llama3-8b, seq_len: 65536, cp: 2, micro_batch: 1, global_batch: 4,"
                    " zero: 3, recompute: full%s}\n";
    WkModelSpec mt, mm;
    torchtitan_and_default(y, &mt, &mm);
    WkPerfEnv env = env_of("H100-SXM-80G", 8);
    const WkGpuSku *sku = env.sku;
    const WkGpuEff *e = wk_catalog_eff(sku);
    WkPerfResult rt = eval_ok(&mt, &env), rm = eval_ok(&mm, &env);
    double L = 32, n = 2, T = 32768, h = 4096, kf, kb;
    double bf = wk_stack_cp_ring_bytes(n, 128, 0, &kf), bb = wk_stack_cp_ring_bytes(n, 128, 1, &kb);
    assert_float_equal(rt.ops[WK_OP_ATTN].kernels, L * (2 * (n + kf) + n + kb), 1e-9);
    assert_float_equal(rt.ops[WK_OP_ATTN].memory_s, L * (2 * bf + bb) * T * h / (sku->hbm_bw_bytes_per_s * e->mem_max),
                       1e-9);
    double bw = env.nvlink_bw * e->nvlink_eff;
    double dkv = wk_coll_p2p_s(T * 2 * h * 4, bw, e->ring_lat_s);
    assert_float_equal(rt.cp_s, L * dkv, 1e-12);
    /* megatron-core: the all-gather CP, one attention kernel per pass */
    assert_float_equal(rm.ops[WK_OP_ATTN].kernels, L * 3, 1e-9);
    double ag = wk_coll_all_gather_s(T * 2 * 1024 * 2 * n, (uint32_t)n, bw, e->ring_lat_s);
    assert_float_equal(rm.cp_s, L * 3 * ag, 1e-12);
}

/* FP8 current scaling with tensor and sequence parallelism: Transformer
 * Engine all-reduces each cast input's amax over the TP group, two per
 * layer and pass (forward, backward), exposed, one latency-bound in-node
 * all-reduce each; delayed scaling uses the previous step's amax history
 * and has none; torchtitan (torchao) is not modelled; a MoE layer has only
 * the attention's. */
static void test_fp8_current_amax_reductions_over_tp(void **state)
{
    (void)state;
    const char *y = "model: {base: llama3-8b, tp: 4, pp: 1, micro_batch: 1, global_batch: 32, recompute: %s,"
                    " tp_overlap: none, precision: fp8, fp8_scaling: %s%s}\n";
    char a[256], b[256], c[256], d[256];
    snprintf(a, sizeof a, y, "none", "current", "");
    snprintf(b, sizeof b, y, "none", "delayed", "");
    snprintf(c, sizeof c, y, "full", "current", "");
    snprintf(d, sizeof d, y, "none", "current", ", stack: torchtitan");
    WkModelSpec ma = model(a), mb = model(b), mc = model(c), md = model(d);
    WkPerfEnv env = env_of("H100-SXM-80G", 64);
    const WkGpuEff *e = wk_catalog_eff(env.sku);
    assert_float_equal(e->small_coll_s, 32768 / 0.82e9, 1e-12);
    WkPerfResult ra = eval_ok(&ma, &env), rb = eval_ok(&mb, &env), rc = eval_ok(&mc, &env);
    double n = 2 * 32; /* micro-batches per replica (32 / dp 16) x layers */
    assert_float_equal(ra.tp_s - rb.tp_s, n * 4 * e->small_coll_s, 1e-7);
    /* full recomputation casts the forward inputs again */
    snprintf(b, sizeof b, y, "full", "delayed", "");
    mb = model(b);
    rb = eval_ok(&mb, &env);
    assert_float_equal(rc.tp_s - rb.tp_s, n * 6 * e->small_coll_s, 1e-7);
    /* torchtitan: the same with delayed scaling */
    snprintf(b, sizeof b, y, "none", "delayed", ", stack: torchtitan");
    mb = model(b);
    WkPerfResult rd = eval_ok(&md, &env);
    rb = eval_ok(&mb, &env);
    assert_float_equal(rd.tp_s, rb.tp_s, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fsdp_exposed_closed_form),
        cmocka_unit_test(test_host_bound_layer_closed_form),
        cmocka_unit_test_teardown(test_fsdp_layer_comm_matches_closed_form, teardown),
        cmocka_unit_test_teardown(test_megatron_core_and_nemo_leave_results_unchanged, teardown),
        cmocka_unit_test_teardown(test_unknown_stack_lists_the_known_ones, teardown),
        cmocka_unit_test_teardown(test_eager_norm_moves_nine_times_the_bytes, teardown),
        cmocka_unit_test_teardown(test_native_norm_runs_at_its_measured_rate, teardown),
        cmocka_unit_test_teardown(test_per_tensor_optimizer_host_bound, teardown),
        cmocka_unit_test_teardown(test_op_sac_memory_matches_published_llama2_70b, teardown),
        cmocka_unit_test_teardown(test_shard_over_cp, teardown),
        cmocka_unit_test_teardown(test_fp8_current_amax_reductions_over_tp, teardown),
        cmocka_unit_test_teardown(test_deepspeed_prefetch_bucket, teardown),
        cmocka_unit_test_teardown(test_reduce_dtype_overrides_the_stack, teardown),
        cmocka_unit_test(test_stack_in_library_and_workload_class),
        cmocka_unit_test_teardown(test_fsdp_across_sites_not_faster, teardown),
        cmocka_unit_test_teardown(test_torchtitan_tp_blocks, teardown),
        cmocka_unit_test_teardown(test_pp_grad_full_closed_form, teardown),
        cmocka_unit_test_teardown(test_fsdp_cp2_70b_fits_with_torchtitan, teardown),
        cmocka_unit_test(test_cp_ring_bytes_closed_form),
        cmocka_unit_test_teardown(test_torchtitan_cp_ring_matches_closed_form, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
