/* SPDX-License-Identifier: Apache-2.0 */
/* model.h — what a training job trains: an LLM (dense or MoE transformer with
 * its parallelism and schedule), a vision model or a recommendation model,
 * reduced to the quantities the performance model needs: parameters, FLOPs
 * per token or sample, bytes moved by each collective, memory per GPU.
 * Presets for well-known models carry their sources; a scenario may define
 * its own under `models:`. Equations: docs/models.md. */
#ifndef WK_WORKLOAD_MODEL_H
#define WK_WORKLOAD_MODEL_H

#include <stdint.h>

#include "models/workload/stack.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"

typedef enum WkModelKind {
    WK_MODEL_LLM = 0,
    WK_MODEL_VISION,
    WK_MODEL_RECSYS,
} WkModelKind;

/* Vision architectures with an operator list; generic: only params and
 * flops_per_sample are known (timed as one large GEMM, no activations). */
typedef enum WkVisionArch { WK_ARCH_GENERIC = 0, WK_ARCH_RESNET, WK_ARCH_VIT } WkVisionArch;

typedef enum WkRecompute { WK_RECOMPUTE_NONE = 0, WK_RECOMPUTE_SELECTIVE, WK_RECOMPUTE_FULL } WkRecompute;
typedef enum WkSchedule { WK_PP_1F1B = 0, WK_PP_INTERLEAVED } WkSchedule;
/* flash: the SKU's flash-attention kernel (the stack's, docs/models.md); unfused: the scores through
 * HBM; flash1: a FlashAttention-1-class kernel (flash-attn 1.x, the 2022 Triton FlashAttention) at its
 * measured rate (models/gpu/eff.h, fa1). */
typedef enum WkAttention { WK_ATTN_FLASH = 0, WK_ATTN_UNFUSED, WK_ATTN_FLASH1 } WkAttention;
/* Which tensor-parallel communication hides behind GEMMs: backward only
 * (Megatron's asynchronous data-gradient all-reduce/all-gather, the default),
 * none (exposed), or both passes (userbuffer overlap). */
typedef enum WkTpOverlap { WK_TP_OVERLAP_BWD = 0, WK_TP_OVERLAP_NONE, WK_TP_OVERLAP_FULL } WkTpOverlap;

typedef struct WkModelSpec {
    const char *name;       /* preset or `models:` key, borrowed */
    WkModelKind kind;
    /* transformer shape (LLM) */
    uint32_t layers, hidden, heads, kv_heads, ffn, vocab;
    int gated_mlp;          /* 1: SwiGLU (3 FFN matrices), 0: GELU (2) */
    uint32_t experts, top_k;/* MoE: experts per layer (0 = dense), experts per token */
    double params;          /* total parameters (derived for LLMs when the shape is given) */
    double active_params;   /* parameters a token passes through (MoE: top_k of the experts) */
    /* training set-up (LLM) */
    uint32_t seq_len;       /* tokens per sequence */
    uint32_t global_batch;  /* sequences per iteration (0 = micro_batch * dp * pp-bound default) */
    uint32_t micro_batch;   /* sequences per micro-batch */
    int fp8;                /* 1: FP8 GEMMs (peak from fp8_flops) */
    int fp16;               /* 1: FP16 mixed precision (the 16-bit tensor peak, as bf16, plus dynamic loss
                               scaling's unscale-and-check pass over the FP32 main gradients) */
    int fp8_current;        /* 1: FP8 current scaling: each cast tensor is read once more for its amax */
    WkRecompute recompute;
    uint32_t tp, pp, cp, ep;/* tensor, pipeline, context, expert parallel degrees */
    uint32_t etp;           /* expert tensor parallelism, dividing tp (MoE parallel folding); 0 = tp */
    WkSchedule schedule;
    uint32_t vp;            /* virtual stages per GPU (interleaved schedule) */
    uint32_t first_stage_layers, last_stage_layers; /* uneven pipeline split (0: even) */
    int zero;               /* ZeRO / distributed optimizer stage 0..3 */
    WkAttention attention;  /* flash (default), flash1 or unfused (scores in HBM) */
    int no_seq_parallel;    /* 1: no sequence parallelism with tp > 1 (norms etc. on all T tokens) */
    WkTpOverlap tp_overlap;
    int no_grad_overlap;    /* 1: the DP gradient reduction starts after the last backward */
    int dropout;            /* 1: dropout after attention and MLP (GPT-style) */
    int learned_pos;        /* 1: learned absolute positions (GPT); 0: rotary (Llama) */
    int parallel_block;     /* 1: attention and MLP in parallel on one norm (GPT-J, PaLM, MegaScale) */
    double moe_imbalance;   /* busiest expert's tokens / mean; 0 = 1 (balanced) */
    int elastic;            /* 1: after a failure it may restart at once on its surviving
                               GPUs with fewer DP replicas (elastic training) */
    int rebalance;          /* 1: slower DP replicas get fewer micro-batches (gradient
                               accumulation bridges slower nodes); 0: the slowest rank bounds */
    WkStack stack;          /* the training framework whose mechanisms apply (stack.h); megatron-core */
    int compiled;           /* 1: `compile: true`, torch.compile of each transformer block: Inductor fuses the
                               block's RMSNorm, rotary and SwiGLU into one kernel each (a stack that runs
                               them eagerly, torchtitan); the loss outside the blocks stays eager */
    int tied_embeddings;    /* 1: `tied_embeddings: true`, the output layer multiplies by the input embedding
                               table (GPT-2, MPT, Gemma): one vocab x hidden table in params, a copy of it
                               on the last stage under pp > 1 (Megatron's shared embedding) */
    int pp_grad_full;       /* 1: pipeline backward sends carry the full T h gradient from every TP
                               rank (`pp_grad_partitioned: false`); 0: partitioned, T h / tp */
    double reduce_bytes;    /* `reduce_dtype:` bytes per gradient element of the per-layer FSDP /
                               ZeRO-3 reduce-scatter (2 bf16, 4 fp32); 0: the stack's */
    /* vision / recommendation */
    double flops_per_sample;/* forward FLOPs per sample */
    uint32_t batch_per_gpu; /* samples per GPU per iteration */
    double embedding_bytes; /* recsys: embedding tables, sharded over all GPUs */
    double a2a_bytes_per_sample; /* recsys: embedding all-to-all bytes per sample (forward) */
    WkVisionArch arch;      /* vision: resnet (bottleneck blocks) or vit (encoder on layers/hidden/heads/ffn) */
    uint32_t blocks[4];     /* resnet: bottleneck blocks per stage (ResNet-50: 3, 4, 6, 3) */
    uint32_t width;         /* resnet: channels of the first stage's 3x3 convolutions (64) */
    uint32_t image;         /* input image side in pixels (224) */
    uint32_t patch;         /* vit: patch side in pixels (16) */
    uint32_t classes;       /* classifier outputs (1000) */
    uint32_t class_tokens;  /* vit: learned class tokens before the patches (0 = 1, the paper's; NeMo: 8) */
    int bias_unfused;       /* vit: linear biases as kernels of their own (`bias_fusion: false`), not in the
                               GEMM epilogue */
    /* input data */
    double read_bytes;      /* `dataset_bytes_per_sample`: training data read per sample (LLM: per token),
                               bytes, when read_bytes_set; else the kind's default (wk_model_read_bytes) */
    int read_bytes_set;
} WkModelSpec;

/** The built-in preset called name, or NULL (static storage). */
const WkModelSpec *wk_model_preset(const char *name);

/** Comma-separated preset names into buf. */
const char *wk_model_preset_names(char *buf, size_t n);

/** Read a model: a preset name (scalar), or a map with optional `base:` (a
 * preset or an entry of `library`, the scenario's `models:` map, may be NULL)
 * and fields overriding it. Derives params/active_params from the shape.
 * Positioned errors for unknown keys, bad values, inconsistent parallelism
 * (heads % tp, layers % (pp * vp), experts % ep), and an unknown `stack:`
 * (the message lists the known stacks). */
int wk_model_parse(const WkNode *n, const WkNode *library, WkModelSpec *out, WkError *err);

/** The parameters m's ranks store over all pipeline stages: params, plus
 * the last stage's copy of a tied embedding table when pp > 1 (Megatron's
 * shared embedding: the first and last stages each hold it and all-reduce
 * its gradients). */
double wk_model_stored_params(const WkModelSpec *m);

/** Model FLOPs per token for training (forward + backward, no recompute):
 * 6 * (active_params - vocab * hidden) + 12 * layers * hidden * seq_len
 * (REFERENCES.md; the input embedding is a lookup, so its parameters are
 * left out; with tied embeddings the one table is the output layer's, and
 * nothing is left out). For vision/recsys: 3 * flops_per_sample per sample. */
double wk_model_train_flops_per_token(const WkModelSpec *m);

/** Bytes of training data a job reads per sample (an LLM: per token), for
 * dataset reads from the storage nodes (docs/models.md, "Dataset reads"):
 * `dataset_bytes_per_sample` when given (0: none), else by kind: an LLM's
 * token ids as Megatron-LM's indexed dataset stores them (uint16, 2 bytes,
 * with a vocabulary under 65,500; else int32, 4 bytes); vision: 107,700
 * (the ImageNet-1k training archive, 138 GB over 1,281,167 JPEG images);
 * recsys: 160 (a Criteo Terabyte sample in DLRM's binary format, 40 int32).
 */
double wk_model_read_bytes(const WkModelSpec *m);

#endif
