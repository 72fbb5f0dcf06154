/* SPDX-License-Identifier: Apache-2.0 */
/* stack.h — the training software a model job runs on (`stack:`), as the
 * set of execution mechanisms the performance model distinguishes: how
 * ZeRO-3 / FSDP gathers and reduces parameters, the gradient reduction
 * dtype, host dispatch (eager or CUDA graphs), fused or unfused operators,
 * the optimizer implementation and the activation-checkpointing variant.
 * No stack carries an efficiency factor: each setting is a documented
 * default of that framework (docs/models.md, "Software stacks"). */
#ifndef WK_WORKLOAD_STACK_H
#define WK_WORKLOAD_STACK_H

#include <stddef.h>

#include "models/workload/ops.h"

typedef enum WkStack {
    WK_STACK_MCORE = 0, /* Megatron-Core (Megatron-LM): the default */
    WK_STACK_NEMO,      /* NeMo 2 / Megatron-Bridge: trains through Megatron-Core */
    WK_STACK_TORCHTITAN,/* torchtitan: FSDP2 (fully_shard), eager PyTorch */
    WK_STACK_DEEPSPEED, /* DeepSpeed ZeRO / Megatron-DeepSpeed pipeline engine */
    WK_STACK_COMPOSER,  /* MosaicML Composer / llm-foundry: FSDP1 (FULL_SHARD) */
    WK_STACK_N
} WkStack;

/* How the optimizer step is implemented. */
typedef enum WkOptimImpl {
    WK_OPTIM_FUSED = 0, /* one fused multi-tensor kernel reads and writes each state once */
    WK_OPTIM_FOREACH,   /* torch._foreach_* ops: each elementwise step a pass over all tensors */
    WK_OPTIM_PER_TENSOR /* a Python loop over the tensors, one kernel per op and tensor */
} WkOptimImpl;

/* How a ZeRO-3 / FSDP job gathers and reduces its parameters. */
typedef enum WkFsdpImpl {
    WK_FSDP_MCORE = 0, /* Megatron-Core's model: whole-stage collectives per micro-batch,
                          prefetched behind that micro-batch's pass (perf_comm.c) */
    WK_FSDP_PER_LAYER  /* PyTorch FSDP / DeepSpeed ZeRO-3: one all-gather per layer (unit) in
                          forward and backward, one reduce-scatter per layer in backward */
} WkFsdpImpl;

typedef struct WkStackMech {
    const char *name;         /* the `stack:` value */
    WkFsdpImpl fsdp;          /* ZeRO-3 (zero: 3) execution */
    double prefetch;          /* layers' worth of parameters gathered ahead of the one computing (per-layer FSDP) */
    double prefetch_elems;    /* > 0: parameters gathered ahead instead (a bucket of elements), per rank */
    int reshard_after_forward;/* 1: a layer's parameters are freed after forward and gathered again in backward */
    int keep_last;            /* 1: except the last layer's (backward needs it first) */
    int root_reshard;         /* 1: the root's (embedding, output layer) are freed and gathered again too */
    double reduce_bytes;      /* bytes per gradient element the data-parallel reduction moves */
    int fsdp2_copies;         /* 1: FSDP2's all-gather copy-in / copy-out and reduce-scatter copy-in passes */
    int pp_grad_after;        /* 1: with pp > 1 the DP gradient reduction runs after the whole schedule */
    int tp_blocking;          /* 1: tensor-parallel collectives block (no overlap with GEMMs, whatever tp_overlap) */
    int host_model;           /* 1: host dispatch is modelled (the GPU waits when the host is slower) */
    int cuda_graphs;          /* 1: a layer's kernels replay as one graph (no per-kernel host cost) */
    int eager_ops;            /* 1: RMSNorm, rotary, SwiGLU and cross-entropy run unfused (eager PyTorch) */
    WkOptimImpl optim;
    int attn_fa2;             /* 1: attention runs FlashAttention-2 (PyTorch SDPA's flash backend, the
                                 flash-attn package), not the Hopper kernels of the SKU's figure */
    int sac_op;               /* 1: `recompute: selective` is op-level selective checkpointing
                                 (torchtitan: every other matmul output saved, the rest recomputed) */
    int cp_ring;              /* 1: cp > 1 runs PyTorch's experimental context_parallel: causal attention as a
                                 ring of cp SDPA calls on round-robin load-balanced chunks, their outputs
                                 merged in fp32 by log-sum-exp, K and V all-gathered once per layer, dK and dV
                                 passed around the ring in fp32 (stack.c, perf_comm.c); 0: the all-gather CP
                                 Llama 3 describes, attention one kernel */
    int amax_tp;              /* 1: FP8 current scaling reduces the amax of each sequence-parallel GEMM input
                                 (forward) and output gradient (backward) over the tensor-parallel group before
                                 casting (Transformer Engine); 0: not modelled (torchtitan's torchao) */
    int native_norm;          /* 1: the norms are PyTorch's native LayerNorm/RMSNorm kernels, whose HBM rate is
                                 WK_NATIVE_NORM_EFF of the triad's; 0: the SKU's triad rate */
} WkStackMech;

/* PyTorch's native LayerNorm, forward + backward, as a fraction of the
 * triad-rate time of the bytes the model books for it (read and write
 * forward, twice that backward): torch.nn.LayerNorm, FP32, 4,096 rows of
 * 4,096-16,384, L2 flushed per call (Liger-Kernel
 * benchmark/data/all_benchmark_data.csv at ead96b6, provider
 * "huggingface"): A100-SXM4-80GB 1.621 ms at 16,384 (0.574), H100 80GB
 * HBM3 0.951 ms (0.571); forward alone 0.61 / 0.59, backward 0.56 / 0.56
 * (docs/models.md, "Software stacks"). */
#define WK_NATIVE_NORM_EFF 0.57

/** The mechanism settings of stack s (static storage); s out of range: megatron-core's. */
const WkStackMech *wk_stack_mech(WkStack s);

/** The settings of stack s (as wk_stack_mech) with the gradient-reduction
 * dtype a model states: reduce_bytes > 0 (the model's `reduce_dtype:`, 2
 * for bf16, 4 for fp32) replaces s's reduce_bytes, 0 keeps it. */
WkStackMech wk_stack_with_reduce(WkStack s, double reduce_bytes);

/** The stack called `name`, or -1. */
int wk_stack_find(const char *name);

/** Comma-separated stack names into buf (for error messages). Returns buf. */
const char *wk_stack_names(char *buf, size_t n);

/* Host cost per operator, seconds: from Python in forward (interpreter,
 * binding, dispatcher, autograd recording), from the autograd engine (C++)
 * in backward; cudaLaunchKernel is paid by both (docs/models.md). */
#define WK_HOST_OP_PY_S 6.8e-6
#define WK_HOST_OP_CPP_S 1.0e-6

/** Host cost of one operator issued from Python on a GPU with curves e:
 * e->host_op_s where a calibration file measured it (dispatch_us, launch
 * included), else WK_HOST_OP_PY_S + e->kernel_s. */
double wk_stack_py_op_s(const WkGpuEff *e);

/** The per-kind byte and kernel multipliers of eager (unfused) operators
 * against the fused ones ops.c books, for a model with RMSNorm when
 * `rmsnorm` (a LayerNorm runs as one native kernel either way), rotary
 * embeddings when `rotary` and SwiGLU when `gated`. Fills bytes[k] and
 * kernels[k] for every kind (1 where the operator is not affected). */
void wk_stack_eager_ops(int rmsnorm, int rotary, int gated, double bytes[WK_OP_NKIND],
                        double kernels[WK_OP_NKIND]);

/* FlashAttention-2 on H100, causal, head dim 128, forward + backward:
 * 327.9 TFLOP/s (Azure AI-benchmarking-guide, NDv5 results; docs/models.md). */
#define WK_FA2_HOPPER_FLOPS 327.9e12

/** Where stack sk runs FlashAttention-2 on a Hopper SKU (name H100* or
 * H200*: the catalog's attention figure there is FlashAttention-3's), set
 * *fwd and *bwd to the measured FlashAttention-2 rate as a fraction of the
 * SKU's BF16 peak `bf16_flops`; else leave them. */
void wk_stack_attn(const WkStackMech *sk, const char *sku, double bf16_flops, double *fwd, double *bwd);

/** HBM bytes per element of one rank's attention output (its T tokens x
 * h/t, where the K and V the ring handles have as many heads as the
 * queries) that PyTorch's context_parallel ring (cp_ring) moves outside
 * its SDPA kernels in one layer's forward (bwd = 0) or backward (bwd = 1)
 * on the busiest rank (the last, whose every later step uses all its
 * queries), over n > 1 ranks, head dim d; *kernels receives the number of
 * those elementwise kernels. Forward: K, V made contiguous and
 * concatenated for the rotation, each step's output cast to fp32 and
 * merged by log-sum-exp, the result cast back:
 *   46 n - 26 + 52 (n - 1) / d bytes, 10 n - 6 kernels;
 * backward: fp32 zeros for dQ, dK, dV, K and V made contiguous and
 * concatenated, the fp32 accumulation of each step's bf16 gradients (dK,
 * dV on their first half, then concatenated), dK and dV concatenated for
 * the ring every step, dQ, dK and dV cast back:
 *   60 n + 24 bytes, 7 n + 4 kernels (docs/models.md). n <= 1: 0, 0. */
double wk_stack_cp_ring_bytes(double n, double d, int bwd, double *kernels);

/** Exposed communication of one pass over L layers with per-layer compute
 * p and per-layer communication c on a stream of its own, `prefetch`
 * layers' worth of parameters gathered ahead (0 < f = min(prefetch, 1)):
 * the pipeline of two stages takes first + (L - 1) * max(c_f, p) + p
 * where the prefetched part f c hides behind the previous layer's
 * compute and the rest (1 - f) c is fetched on demand; `first` is the
 * exposed communication before the first layer and `tail` the
 * communication after the last (the last reduce-scatter). Returns the
 * time beyond L * p. */
double wk_stack_fsdp_exposed(double L, double p, double c, double prefetch, double first, double tail);

/** Host-bound time of a pass: the GPU runs `gpu_s` and the host issues
 * `kernels` operators at `per_op_s` each (plus nothing for a CUDA graph
 * replay, graphs = 1); the pass takes the larger. Returns max - gpu_s. */
double wk_stack_host_wait(double gpu_s, double kernels, double per_op_s, int graphs);

#endif
