/* SPDX-License-Identifier: Apache-2.0 */
/* vision.h — vision models with an operator list: ResNet (bottleneck blocks,
 * He et al., CVPR'16; v1.5 stride placement) and ViT (Dosovitskiy et al.,
 * ICLR'21). From the shape keys (`arch`, `blocks`, `width`, `image`, `patch`,
 * `classes`, and layers/hidden/heads/ffn/class_tokens for ViT; its
 * implementation keys `attention`, `dropout`, `bias_fusion`) come the parameters, the
 * forward FLOPs per image, the activation bytes kept for the backward pass
 * and the operator-by-operator time of one training step on one GPU.
 * Equations and sources: docs/models.md, "Vision and recommendation jobs". */
#ifndef WK_WORKLOAD_VISION_H
#define WK_WORKLOAD_VISION_H

#include "models/workload/model.h"
#include "models/workload/ops.h"
#include "sim/scenario/node.h"

/** Read the vision shape keys of map n (NULL or a non-map: nothing to read;
 * ViT also `class_tokens` and `bias_fusion`, positioned WK_E_INVAL with
 * arch resnet) into m, keeping what m already holds (a base) for keys not given; then,
 * for arch resnet or vit, derive m->params and m->flops_per_sample from the
 * shape (they may not also be given: positioned WK_E_INVAL). Positioned
 * errors for bad values (blocks: a list of 4 counts; image not a multiple of
 * patch; ViT without layers/hidden/heads/ffn). Returns 0 or a negative code. */
int wk_vision_parse(const WkNode *n, WkModelSpec *m, WkError *err);

/** Derive params and flops_per_sample of m from its shape (arch resnet or
 * vit; no-op for generic). Presets call it once. */
void wk_vision_derive(WkModelSpec *m);

/** Time of one training step (forward and backward) of B images on one GPU
 * as the operator list of m's architecture (arch must not be generic),
 * booked into c->acc. *act_bytes gets the activation bytes per GPU kept for
 * the backward pass (BF16). */
double wk_vision_step_s(WkOpsCtx *c, const WkModelSpec *m, double B, double *act_bytes);

#endif
