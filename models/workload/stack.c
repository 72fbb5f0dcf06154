/* SPDX-License-Identifier: Apache-2.0 */
/* stack.c — the training frameworks' execution mechanisms (see stack.h;
 * every setting with its source in docs/models.md, "Software stacks"). */
#include "models/workload/stack.h"

#include <stdio.h>
#include <string.h>

/* Each row is a framework's documented default; nothing here is fitted. */
static const WkStackMech stacks[WK_STACK_N] = {
    /* Megatron-Core: DistributedDataParallelConfig grad_reduce_in_fp32 =
     * False (bf16 reduction); FusedAdam (multi-tensor apply); Transformer
     * Engine's fused norm, rotary, bias-SwiGLU and the fused vocab-parallel
     * cross-entropy; CUDA graphs off unless enabled. */
    [WK_STACK_MCORE] = {.name = "megatron-core", .fsdp = WK_FSDP_MCORE, .prefetch = 1, .reshard_after_forward = 1,
                        .reduce_bytes = 2, .host_model = 1, .optim = WK_OPTIM_FUSED, .amax_tp = 1},
    /* NeMo 2 / Megatron-Bridge build their models from Megatron-Core: its
     * mechanisms, unchanged. */
    [WK_STACK_NEMO] = {.name = "nemo", .fsdp = WK_FSDP_MCORE, .prefetch = 1, .reshard_after_forward = 1,
                       .reduce_bytes = 2, .host_model = 1, .optim = WK_OPTIM_FUSED, .amax_tp = 1},
    /* torchtitan: fully_shard per transformer block (FSDP2), implicit
     * prefetch of the next block in forward and backward,
     * fsdp_reshard_after_forward "default" (resharded, but the last block
     * kept for backward and the root resharded too), MixedPrecisionPolicy
     * param bf16 / reduce float32 (mixed_precision_reduce = "float32"),
     * FSDP over the dp_shard x cp mesh, compile = False (eager), its
     * RMSNorm, complex-multiply rotary, silu(w1 x) * w3 x and
     * F.cross_entropy on float32 logits; tensor parallelism through DTensor
     * plans whose collectives block (enable_async_tensor_parallel = False);
     * scaled_dot_product_attention's flash backend (FlashAttention-2);
     * optimizer implementation "fused"; selective_ac_option "op";
     * context parallelism through torch's experimental context_parallel
     * (round-robin load balance, rotate method "allgather", torch
     * 1963fc8 / torchtitan 9dec370 of its published runs). */
    [WK_STACK_TORCHTITAN] = {.name = "torchtitan", .fsdp = WK_FSDP_PER_LAYER, .prefetch = 1,
                             .reshard_after_forward = 1, .reduce_bytes = 4, .fsdp2_copies = 1,
                             .keep_last = 1, .root_reshard = 1, .tp_blocking = 1,
                             .host_model = 1, .eager_ops = 1, .optim = WK_OPTIM_FUSED, .attn_fa2 = 1, .sac_op = 1,
                             .cp_ring = 1},
    /* DeepSpeed: ZeRO-3 gathers per module with stage3_prefetch_bucket_size
     * 5e7 elements ahead, releases
     * parameters after use, reduces in the gradients' dtype (bf16); its
     * PipelineEngine's TrainSchedule reduces gradients after the last
     * micro-batch (ReduceGrads); FusedAdam; Megatron-DeepSpeed keeps
     * Megatron's fused kernels. */
    [WK_STACK_DEEPSPEED] = {.name = "deepspeed", .fsdp = WK_FSDP_PER_LAYER, .prefetch = 1, .prefetch_elems = 5e7,
                            .reshard_after_forward = 1, .reduce_bytes = 2, .pp_grad_after = 1, .host_model = 1,
                            .optim = WK_OPTIM_FUSED, .amax_tp = 1},
    /* Composer / llm-foundry: FSDP1 FULL_SHARD (resharded after forward;
     * FSDP1 keeps the root's parameters for backward),
     * forward_prefetch False (the next all-gather issued as the host runs
     * ahead), backward_prefetch BACKWARD_POST with limit 1,
     * limit_all_gathers True, mixed_precision PURE in llm-foundry's yamls
     * (bf16 reduction), flat parameters (no copy-out), eager; MPT's
     * low-precision LayerNorm is one native kernel (F.layer_norm in bf16,
     * at its measured rate: native_norm), GELU one kernel, ALiBi
     * inside the attention kernel, fused_crossentropy; DecoupledAdamW (a
     * Python loop over the tensors). */
    [WK_STACK_COMPOSER] = {.name = "composer", .fsdp = WK_FSDP_PER_LAYER, .prefetch = 1, .reshard_after_forward = 1,
                           .reduce_bytes = 2, .host_model = 1, .optim = WK_OPTIM_PER_TENSOR, .attn_fa2 = 1,
                           .native_norm = 1, .amax_tp = 1},
};

const WkStackMech *wk_stack_mech(WkStack s)
{
    return (unsigned)s < WK_STACK_N ? &stacks[s] : &stacks[WK_STACK_MCORE];
}

WkStackMech wk_stack_with_reduce(WkStack s, double reduce_bytes)
{
    WkStackMech m = *wk_stack_mech(s);
    if (reduce_bytes > 0)
        m.reduce_bytes = reduce_bytes;
    return m;
}

int wk_stack_find(const char *name)
{
    for (int i = 0; i < WK_STACK_N; i++)
        if (strcmp(stacks[i].name, name) == 0)
            return i;
    return -1;
}

const char *wk_stack_names(char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (int i = 0; i < WK_STACK_N && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", stacks[i].name);
    return buf;
}

void wk_stack_eager_ops(int rmsnorm, int rotary, int gated, double bytes[WK_OP_NKIND], double kernels[WK_OP_NKIND])
{
    for (int k = 0; k < WK_OP_NKIND; k++)
        bytes[k] = kernels[k] = 1;
    if (rmsnorm) {
        /* x.float() 2+4, pow 4+4, mean 4, x * rsqrt 4+4, type_as 4+2,
         * * weight 2+2 = 36 B per element against the fused kernel's 2+2;
         * six passes over the tensor plus the eps add and rsqrt on the row
         * statistics: eight kernels */
        bytes[WK_OP_NORM] = 36.0 / 4;
        kernels[WK_OP_NORM] = 8;
    }
    if (rotary) {
        /* per q and k: .float() 2+4, complex multiply 4+4, type_as 4+2 =
         * 20 B per element against 2+2, three kernels each */
        bytes[WK_OP_ROTARY] = 20.0 / 4;
        kernels[WK_OP_ROTARY] = 6;
    }
    if (gated) {
        /* silu(a) 2+2 then * b 2+2+2 = 10 B per output element against the
         * fused kernel's 2+2+2 = 6, two kernels */
        bytes[WK_OP_ACT] = 10.0 / 6;
        kernels[WK_OP_ACT] = 2;
    }
    /* cross-entropy on float32 logits: upcast 2+4, log_softmax two reads
     * and a write 4+4+4, the NLL gradient written dense 4, log_softmax
     * backward 4+4+4, cast back 4+2 = 40 B per logit against the fused
     * vocab-parallel kernel's 20; six kernels */
    bytes[WK_OP_XENT] = 40.0 / 20;
    kernels[WK_OP_XENT] = 6;
}

void wk_stack_attn(const WkStackMech *sk, const char *sku, double bf16_flops, double *fwd, double *bwd)
{
    if (!sk->attn_fa2 || !sku || !(bf16_flops > 0) || (strncmp(sku, "H100", 4) != 0 && strncmp(sku, "H200", 4) != 0))
        return;
    /* one figure for forward and backward together: the split is not published */
    *fwd = *bwd = WK_FA2_HOPPER_FLOPS / bf16_flops;
}

double wk_stack_cp_ring_bytes(double n, double d, int bwd, double *kernels)
{
    if (!(n > 1)) {
        *kernels = 0;
        return 0;
    }
    if (bwd) {
        /* zeros dq, dk, dv fp32 (12); k, v contiguous (8); cat k, v for the
         * next step (8 (n - 1)); step 0: dk, dv, dq += bf16 into fp32 (30);
         * later steps: dk, dv += on their first half (5 each) and cat (8
         * each), dq += (10): 36 (n - 1); cat dk, dv fp32 for the ring every
         * step (16 n); dq, dk, dv back to bf16 (18) */
        *kernels = 3 + 2 + (n - 1) + 3 + 5 * (n - 1) + n + 2;
        return 12 + 8 + 8 * (n - 1) + 30 + 36 * (n - 1) + 16 * n + 18;
    }
    /* k, v contiguous (8); cat k, v for the rotation (8 (n - 1)); each
     * step's output to fp32 (6 n); each merge out - sigmoid(lse_b - lse) *
     * (out - out_b): three passes over fp32 out (32), and on the log-sum-exp
     * (one per d output elements) lse - logsigmoid(lse - lse_b) with the
     * sigmoid's argument (52); the result back to bf16 (6) */
    *kernels = 2 + (n - 1) + n + 8 * (n - 1) + 1;
    return 8 + 8 * (n - 1) + 6 * n + 32 * (n - 1) + 52 * (n - 1) / d + 6;
}

double wk_stack_fsdp_exposed(double L, double p, double c, double prefetch, double first, double tail)
{
    if (!(L >= 1))
        return 0;
    double f = prefetch < 0 ? 0 : prefetch > 1 ? 1 : prefetch;
    double ahead = f * c - p;
    double per = (1 - f) * c + (ahead > 0 ? ahead : 0);
    return first + (L - 1) * per + tail;
}

double wk_stack_host_wait(double gpu_s, double kernels, double per_op_s, int graphs)
{
    double host = graphs ? per_op_s : kernels * per_op_s;
    return host > gpu_s ? host - gpu_s : 0;
}

double wk_stack_py_op_s(const WkGpuEff *e)
{
    return e->host_op_s > 0 ? e->host_op_s : WK_HOST_OP_PY_S + e->kernel_s;
}
