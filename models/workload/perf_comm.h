/* SPDX-License-Identifier: Apache-2.0 */
/* perf_comm.h — the communication of a training iteration and how much of
 * it hides behind compute: TP (exposed or overlapped), PP point-to-point
 * (interleaving's extra transfers), DP gradient buckets overlapping the
 * backward pass, EP all-to-all; and the compute lost to communication
 * kernels sharing SMs. Internal to perf.c; equations in docs/models.md. */
#ifndef WK_WORKLOAD_PERF_COMM_H
#define WK_WORKLOAD_PERF_COMM_H

#include "models/workload/perf.h"

/* The WAN leg of a hierarchical DP reduction across sites. */
typedef struct WkWanLeg {
    uint32_t sites;      /* > 1 */
    double bw;           /* bytes/s of a link between two sites, per direction, at its efficiency */
    double lat;          /* one-way latency, s */
    double nic_bw;       /* bytes/s of one rank's NIC at its efficiency */
    double ranks;        /* ranks of a site, each sending its shard through the link */
} WkWanLeg;

/** The WAN leg of a DP collective moving `site_bytes` (this collective's
 * share of the site's gradients, summed over its ranks' shards) across the
 * sites: a ring over the sites, (sites - 1)/sites x site_bytes through each
 * link and 2 x that for an all-reduce (half = 0), limited by the link or by
 * a rank's NIC, plus a one-way latency per ring step. */
double wk_perf_wan_s(const WkWanLeg *w, double site_bytes, int half);

/* Per micro-batch and per layer figures the communication model needs. */
typedef struct WkCommIn {
    const WkModelSpec *m;
    const WkPerfEnv *env;
    const WkPerfParams *p;
    const WkGpuEff *e;
    double T;             /* tokens of a micro-batch on one rank */
    double layers;        /* layers of the bounding stage */
    double mb;            /* micro-batches per replica */
    uint32_t dp;          /* ranks the gradients are reduced over: dp x cp */
    double gemm_fwd_s, gemm_bwd_s; /* GEMM time of one layer, one micro-batch */
    double attn_fwd_s, attn_bwd_s; /* attention kernels' compute time of one layer, one micro-batch */
    double fwd_s, bwd_s;  /* one layer, one micro-batch */
    double bubble_s;
    double local_params;  /* parameters held by one rank (before ZeRO) */
    double exp_frac;      /* the expert parameters' share of local_params (reduced over expert-DP ranks) */
    const WkWanLeg *wan;  /* NULL: one site; else dp / wan->sites DP ranks per site */
    const WkStackMech *sk;/* the framework's mechanisms (stack.h); NULL: megatron-core's */
    double rc_s;          /* recomputation of one layer, one micro-batch (in its backward) */
    double layer_params;  /* parameters of one layer on one rank (before ZeRO) */
    double root_params;   /* parameters outside the layers on one rank: embedding and output layer */
    uint32_t shard;       /* ranks ZeRO shards over: dp x cp, per site for ZeRO-3 across sites */
    double site_grad_bytes; /* the gradients of the whole model (2 B per parameter), with a WAN */
} WkCommIn;

/** The exposed cost of compressing one rank's `bytes` of gradients by
 * env->grad_ratio r and decompressing what it receives: memory-bound
 * passes reading and writing 2 x bytes + 2 x bytes / r at the SKU's HBM
 * bandwidth (docs/models.md, "Gradient compression"). 0 when r <= 1. */
double wk_perf_compress_s(const WkPerfEnv *env, double bytes);

/** The exposed per-layer FSDP / ZeRO-3 communication of one micro-batch
 * (stack.h, WK_FSDP_PER_LAYER): forward all-gathers each layer's bf16
 * parameters (the root's and the first layer's exposed, the rest behind
 * the previous layer's compute as far as the prefetch reaches); backward
 * all-gathers them again when resharded and reduce-scatters each layer's
 * gradients in the stack's reduction dtype on the same communicator, the
 * last layer's and the root's reduce-scatter exposed; FSDP2 adds its
 * copy-in / copy-out passes on HBM. *hidden receives the overlapped
 * communication time, *hidden_bwd (may be NULL) its backward part. With
 * a WAN leg the gathers run over the site's shard ranks (hybrid sharding). */
double wk_perf_fsdp_layer_s(const WkCommIn *in, double *hidden, double *hidden_bwd);

/** The interference weight of a collective that moves bw bytes/s per GPU
 * (its bus bandwidth): bw over the SKU's NVLink bus bandwidth
 * env->nvlink_bw x e->nvlink_eff, at most 1 (1 when that is not > 0).
 * The compute a hidden collective slows is e->overlap_slowdown (measured
 * over NVLink) x its hidden time x this weight: the lost compute goes with
 * the bytes moved, not with the time overlapped (docs/models.md,
 * "SM interference"). */
double wk_perf_interf_ratio(const WkGpuEff *e, const WkPerfEnv *env, double bw);

/** Fill r->tp_s, cp_s, pp_s, dp_s, ep_s, wan_s (exposed) and r->interference_s:
 * e->overlap_slowdown x the hidden communication time, each collective's
 * weighted by wk_perf_interf_ratio of the bandwidth it runs at (a
 * hierarchical one phase by phase). */
void wk_perf_comm(const WkCommIn *in, WkPerfResult *r);

/** The all-reduce of `bytes` over n ranks of one NVLink domain on env's SKU:
 * the faster of ring (step latency e->ring_lat_s; NCCL's tree is a chain
 * inside a node) and NVLink SHARP (e->nvls_lat_s) at the measured
 * efficiencies. */
double wk_perf_allreduce_intra_s(const WkGpuEff *e, const WkPerfEnv *env, double bytes, uint32_t n);

#endif
