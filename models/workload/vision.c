/* SPDX-License-Identifier: Apache-2.0 */
/* vision.c — ResNet and ViT as operator lists (see vision.h; equations and
 * sources in docs/models.md). One walk over the network serves three uses:
 * counting parameters and forward FLOPs per image, counting the activation
 * bytes kept for the backward pass, and timing every operator forward and
 * backward on a GPU's measured curves (ops.h). */
#include "models/workload/vision.h"

#define ELEM 2.0 /* BF16 activations (mixed precision) */

/* One pass over the network. c NULL: count only. */
typedef struct Walk {
    WkOpsCtx *c;
    double B;         /* images */
    double params;    /* learnable parameters */
    double flops;     /* forward FLOPs per image */
    double act;       /* activation bytes per image kept for backward */
    double t;         /* time of forward + backward for B images */
} Walk;

/* Convolution k x k from cin to cout channels with hw output positions per
 * image (hw_in input positions), as the implicit GEMM cuDNN runs: M = B*hw,
 * K = cin*k*k, N = cout; backward: its data- and weight-gradient GEMMs. No
 * bias (a batch norm follows). */
static void conv(Walk *w, double hw_in, double hw, double cin, double cout, double k)
{
    w->params += cin * k * k * cout;
    w->flops += 2 * hw * cin * k * k * cout;
    if (w->c) {
        double M = w->B * hw, K = cin * k * k, in = w->B * hw_in * cin;
        w->t += wk_ops_conv(w->c, M, K, cout, in, 0) + wk_ops_conv(w->c, M, K, cout, in, 1);
    }
}

/* Batch normalisation over e = hw * ch elements per image in training mode:
 * forward reads x for the batch statistics, reads it again and writes y
 * (3 x); backward reduces over x and dy, then reads both again and writes dx
 * (5 x). Keeps its input for backward. */
static void bn(Walk *w, double hw, double ch)
{
    double e = hw * ch;
    w->params += 2 * ch;
    w->act += e * ELEM;
    if (w->c) {
        double x = w->B * e * ELEM;
        w->t += wk_ops_mem(w->c, WK_OP_BATCHNORM, 3 * x, 6 * w->B * e) +
                wk_ops_mem(w->c, WK_OP_BATCHNORM, 5 * x, 8 * w->B * e);
    }
}

/* ReLU: forward reads and writes (2 x), backward reads dy and the kept
 * output, writes dx (3 x). Keeps its output (the next convolution's input). */
static void relu(Walk *w, double e)
{
    w->act += e * ELEM;
    if (w->c) {
        double x = w->B * e * ELEM;
        w->t += wk_ops_mem(w->c, WK_OP_ACT, 2 * x, w->B * e) + wk_ops_mem(w->c, WK_OP_ACT, 3 * x, w->B * e);
    }
}

/* Residual add: two reads and a write forward; the gradient passes to both
 * branches unchanged (no kernel). */
static void add(Walk *w, double e)
{
    if (w->c)
        w->t += wk_ops_mem(w->c, WK_OP_RESIDUAL, 3 * w->B * e * ELEM, w->B * e);
}

/* Pooling from ein to eout elements per image: forward reads ein and writes
 * eout; backward reads the eout gradient and writes the ein one. */
static void pool(Walk *w, double ein, double eout)
{
    if (w->c) {
        double x = w->B * (ein + eout) * ELEM;
        w->t += wk_ops_mem(w->c, WK_OP_POOL, x, w->B * ein) + wk_ops_mem(w->c, WK_OP_POOL, x, w->B * ein);
    }
}

/* Classifier on `in` features: a GEMM with bias, then softmax cross-entropy
 * in FP32 (20 bytes per logit as for the LLM output layer). */
static void head(Walk *w, double in, double classes)
{
    w->params += in * classes + classes;
    w->flops += 2 * in * classes;
    if (w->c) {
        w->t += wk_ops_gemm(w->c, w->B, in, classes, 1, 0) + wk_ops_gemm(w->c, w->B, in, classes, 1, 1);
        w->t += wk_ops_mem(w->c, WK_OP_XENT, 20 * w->B * classes, 8 * w->B * classes);
    }
}

static double half_up(double side) { return (double)(((uint64_t)side + 1) / 2); }

/* ResNet with bottleneck blocks; stride 2 on the 3x3 convolution of each
 * stage's first block (v1.5) and on its 1x1 projection shortcut. */
static void walk_resnet(Walk *w, const WkModelSpec *m)
{
    double side = half_up(m->image); /* stem: 7x7 stride 2 */
    double wd = m->width;
    w->act += 3.0 * m->image * m->image * ELEM; /* the input image (stem weight gradient) */
    conv(w, (double)m->image * m->image, side * side, 3, wd, 7);
    bn(w, side * side, wd);
    relu(w, side * side * wd);
    double in_side = half_up(side); /* 3x3 max pool, stride 2 */
    pool(w, side * side * wd, in_side * in_side * wd);
    double cin = wd;
    for (int s = 0; s < 4; s++) {
        double width = wd * (double)(1u << s), cout = 4 * width;
        for (uint32_t b = 0; b < m->blocks[s]; b++) {
            double out_side = (b == 0 && s > 0) ? half_up(in_side) : in_side;
            double hwi = in_side * in_side, hwo = out_side * out_side;
            conv(w, hwi, hwi, cin, width, 1);
            bn(w, hwi, width);
            relu(w, hwi * width);
            conv(w, hwi, hwo, width, width, 3);
            bn(w, hwo, width);
            relu(w, hwo * width);
            conv(w, hwo, hwo, width, cout, 1);
            bn(w, hwo, cout);
            if (b == 0) { /* projection shortcut */
                conv(w, hwi, hwo, cin, cout, 1);
                bn(w, hwo, cout);
            }
            add(w, hwo * cout);
            relu(w, hwo * cout);
            cin = cout;
            in_side = out_side;
        }
    }
    pool(w, in_side * in_side * cin, cin); /* global average pool */
    head(w, cin, m->classes);
}

/* The per-layer kernels a ViT layer adds to the transformer operator list
 * (ops.h) for one micro-batch of T tokens (forward, or backward with bwd):
 * - attention unfused (scores in HBM): the context's permute to [s, b, h]
 *   and its copy back (Megatron's CoreAttention `.contiguous()`: read and
 *   write T h);
 * - hidden dropout (`dropout`), fused with the bias and residual add
 *   (Megatron's bias_dropout_add): forward writes a 1-byte mask per element
 *   (the add itself is the residual operator), backward reads the gradient
 *   and the mask and writes the dropped gradient; two per layer;
 * - linear biases outside the GEMM epilogue (`bias_fusion: false`):
 *   forward adds the q/k/v bias and the MLP-up bias before GeLU (read and
 *   write each output); backward reduces each linear's output gradient over
 *   the tokens for its bias gradient (q/k/v 3h, projection h, MLP-up f,
 *   MLP-down h elements per token, read once). */
static double vit_layer_extra(WkOpsCtx *c, const WkModelSpec *m, double T, int bwd)
{
    double h = m->hidden, f = m->ffn, x = T * h * ELEM, t = 0;
    if (m->attention == WK_ATTN_UNFUSED)
        t += wk_ops_mem(c, WK_OP_ATTN, 2 * x, 0);
    if (m->dropout)
        for (int i = 0; i < 2; i++)
            t += wk_ops_mem(c, WK_OP_DROPOUT, bwd ? 2 * x + T * h : T * h, bwd ? T * h : 0);
    if (m->bias_unfused)
        t += bwd ? wk_ops_mem(c, WK_OP_GEMM, T * (3 * h + h + f + h) * ELEM, T * (5 * h + f))
                 : wk_ops_mem(c, WK_OP_GEMM, 2 * T * (3 * h + f) * ELEM, T * (3 * h + f));
    return t;
}

/* ViT: patch embedding (a GEMM over flattened patches), class tokens and
 * learned positions, pre-norm encoder layers (GELU MLP, non-causal
 * attention: flash, or unfused with the scores in HBM, `attention:
 * unfused`; hidden dropout with `dropout`, none on the attention
 * probabilities), final norm and the classifier on the class token. */
static void walk_vit(Walk *w, const WkModelSpec *m)
{
    double ct = m->class_tokens ? m->class_tokens : 1;
    double np = (double)(m->image / m->patch) * (m->image / m->patch), s = np + ct;
    double h = m->hidden, f = m->ffn, pin = 3.0 * m->patch * m->patch;
    w->params += pin * h + h + ct * h + s * h;                              /* patch projection, class tokens, positions */
    w->params += m->layers * (4 * h * h + 4 * h + 2 * h * f + f + h + 4 * h); /* qkv/o, MLP, biases, 2 norms */
    w->params += 2 * h;                                                     /* final norm */
    w->flops += 2 * np * pin * h;
    w->flops += m->layers * (24 * s * h * h + 4 * s * s * h); /* 12 h^2 MACs per token, QK^T and PV */
    /* activations per layer: Korthikanti et al. (MLSys'23) 34 s h bytes per
     * image without tensor parallelism; flash attention keeps no s^2 scores,
     * unfused attention keeps the BF16 probabilities (2 a s^2 bytes) */
    int flash = m->attention != WK_ATTN_UNFUSED;
    w->act += m->layers * (34 * s * h + (flash ? 0 : 2.0 * m->heads * s * s)) + np * pin * ELEM;
    if (w->c) {
        double T = w->B * s;
        WkOpsShape sh = {.T = T, .s = s, .b = w->B, .h = h, .heads = m->heads, .kv_heads = m->heads,
                         .ffn = f, .t = 1, .flash = flash, .noncausal = 1,
                         .flash1 = m->attention == WK_ATTN_FLASH1};
        w->t += wk_ops_gemm(w->c, w->B * np, pin, h, 1, 0) + wk_ops_gemm(w->c, w->B * np, pin, h, 1, 1);
        if (m->dropout) /* embedding dropout: read, write and mask; backward likewise */
            for (int i = 0; i < 2; i++)
                w->t += wk_ops_mem(w->c, WK_OP_DROPOUT, 2 * T * h * ELEM + T * h, T * h);
        w->c->mult = m->layers; /* every layer books the same operators */
        w->t += m->layers * (wk_ops_layer_fwd(w->c, &sh, 0) + wk_ops_layer_bwd(w->c, &sh) +
                             vit_layer_extra(w->c, m, T, 0) + vit_layer_extra(w->c, m, T, 1));
        w->c->mult = 1;
        w->t += wk_ops_mem(w->c, WK_OP_NORM, 3 * 2 * T * h * ELEM, 24 * T * h);
    }
    head(w, h, m->classes);
}

static void walk(Walk *w, const WkModelSpec *m)
{
    if (m->arch == WK_ARCH_RESNET)
        walk_resnet(w, m);
    else if (m->arch == WK_ARCH_VIT)
        walk_vit(w, m);
}

void wk_vision_derive(WkModelSpec *m)
{
    if (m->arch == WK_ARCH_GENERIC)
        return;
    Walk w = {.B = 1};
    walk(&w, m);
    m->params = w.params;
    m->active_params = w.params;
    m->flops_per_sample = w.flops;
}

double wk_vision_step_s(WkOpsCtx *c, const WkModelSpec *m, double B, double *act_bytes)
{
    Walk w = {.c = c, .B = B};
    double mult = c->mult;
    c->mult = 1;
    walk(&w, m);
    c->mult = mult;
    *act_bytes = w.act * B;
    return w.t;
}

static int u32_key(const WkNode *n, const char *key, int64_t min, int64_t max, uint32_t *out, WkError *err)
{
    int64_t v = *out;
    int rc = wk_node_int(n, key, 0, min, max, &v, err);
    *out = (uint32_t)v;
    return rc;
}

int wk_vision_parse(const WkNode *n, WkModelSpec *m, WkError *err)
{
    static const char *const arches[] = {"generic", "resnet", "vit", NULL};
    if (!n || n->type != WK_NODE_MAP)
        return 0;
    int arch = (int)m->arch, rc;
    if ((rc = wk_node_enum(n, "arch", 0, arches, &arch, err)) < 0 ||
        (rc = u32_key(n, "width", 1, 1 << 16, &m->width, err)) < 0 ||
        (rc = u32_key(n, "image", 1, 1 << 16, &m->image, err)) < 0 ||
        (rc = u32_key(n, "patch", 1, 1 << 16, &m->patch, err)) < 0 ||
        (rc = u32_key(n, "classes", 1, 1 << 24, &m->classes, err)) < 0 ||
        (rc = u32_key(n, "class_tokens", 1, 1 << 16, &m->class_tokens, err)) < 0)
        return rc;
    int bias_fusion = !m->bias_unfused;
    if ((rc = wk_node_bool(n, "bias_fusion", 0, &bias_fusion, err)) < 0)
        return rc;
    m->bias_unfused = !bias_fusion;
    const WkNode *bl = wk_node_get(n, "blocks");
    if (bl) {
        if (bl->type != WK_NODE_SEQ || bl->nkids != 4)
            return wk_node_error(bl, WK_E_INVAL, err, "blocks: a list of 4 block counts, one per stage (ResNet-50: [3, 4, 6, 3])");
        for (int i = 0; i < 4; i++) {
            int64_t v;
            if ((rc = wk_node_as_int(bl->kids[i], 1, 1024, &v, err)) < 0)
                return rc;
            m->blocks[i] = (uint32_t)v;
        }
    }
    m->arch = (WkVisionArch)arch;
    if (m->arch == WK_ARCH_GENERIC)
        return 0;
    if (m->kind != WK_MODEL_VISION)
        return wk_node_error(wk_node_get(n, "arch"), WK_E_INVAL, err, "arch applies to kind: vision only");
    static const char *const derived[] = {"params", "flops_per_sample", NULL};
    for (int i = 0; derived[i]; i++)
        if (wk_node_get(n, derived[i]))
            return wk_node_error(wk_node_get(n, derived[i]), WK_E_INVAL, err,
                                 "%s is derived from the %s shape; leave it out (or use arch: generic)", derived[i],
                                 arches[m->arch]);
    if (!m->image)
        m->image = 224;
    if (!m->classes)
        m->classes = 1000;
    if (m->arch == WK_ARCH_RESNET) {
        static const char *const vit_only[] = {"class_tokens", "bias_fusion", NULL};
        for (int i = 0; vit_only[i]; i++)
            if (wk_node_get(n, vit_only[i]))
                return wk_node_error(wk_node_get(n, vit_only[i]), WK_E_INVAL, err, "%s applies to arch: vit only",
                                     vit_only[i]);
        if (!m->width)
            m->width = 64;
        if (!m->blocks[0])
            return wk_node_error(n, WK_E_INVAL, err, "arch: resnet needs blocks (ResNet-50: [3, 4, 6, 3])");
    } else {
        const char *miss = !m->layers ? "layers" : !m->hidden ? "hidden" : !m->heads ? "heads" : !m->ffn ? "ffn" : NULL;
        if (miss)
            return wk_node_error(n, WK_E_INVAL, err, "arch: vit needs '%s' (ViT-L/16: layers 24, hidden 1024, heads 16, ffn 4096)", miss);
        if (!m->patch)
            m->patch = 16;
        if (m->image % m->patch)
            return wk_node_error(wk_node_get(n, "patch") ? wk_node_get(n, "patch") : n, WK_E_INVAL, err,
                                 "image %u is not a multiple of patch %u", m->image, m->patch);
        if (m->hidden % m->heads)
            return wk_node_error(wk_node_get(n, "heads") ? wk_node_get(n, "heads") : n, WK_E_INVAL, err,
                                 "hidden %u does not split over %u heads", m->hidden, m->heads);
    }
    wk_vision_derive(m);
    return 0;
}
