/* SPDX-License-Identifier: Apache-2.0 */
/* collective.h — cost models of collective operations (latency + bandwidth
 * terms, Hockney's alpha-beta model): ring, tree and hierarchical
 * all-reduce, reduce-scatter, all-gather, all-to-all, point-to-point. Times
 * in seconds for S bytes per rank over n ranks on links of bandwidth B
 * (bytes/s per direction) and per-step latency a (s). Equations and sources
 * in docs/models.md. Pure functions. */
#ifndef WK_NET_COLLECTIVE_H
#define WK_NET_COLLECTIVE_H

#include <stdint.h>

typedef enum WkCollAlgo {
    WK_COLL_RING = 0,
    WK_COLL_TREE,  /* double binary tree (NCCL) */
} WkCollAlgo;

/** Ring all-reduce: 2(n-1)/n * S/B + 2(n-1) * a. 0 for n <= 1. */
double wk_coll_allreduce_ring_s(double bytes, uint32_t n, double bw, double lat);

/** Tree all-reduce (double binary tree, pipelined): 2 * S/B + 2 * ceil(log2 n) * a. 0 for n <= 1. */
double wk_coll_allreduce_tree_s(double bytes, uint32_t n, double bw, double lat);

/** All-reduce with the given algorithm. */
double wk_coll_allreduce_s(WkCollAlgo algo, double bytes, uint32_t n, double bw, double lat);

/** Ring reduce-scatter or all-gather of S bytes total per rank: (n-1)/n * S/B + (n-1) * a. */
double wk_coll_reduce_scatter_s(double bytes, uint32_t n, double bw, double lat);
double wk_coll_all_gather_s(double bytes, uint32_t n, double bw, double lat);

/** All-to-all, each rank sending S bytes in total (S/n to each peer): (n-1)/n * S/B + (n-1) * a. */
double wk_coll_all_to_all_s(double bytes, uint32_t n, double bw, double lat);

/** Point-to-point send of S bytes: S/B + a. */
double wk_coll_p2p_s(double bytes, double bw, double lat);

/** Hierarchical all-reduce over n_intra ranks per node (bandwidth bw_intra,
 * latency lat_intra) and n_inter nodes (bw_inter per rank's NIC, lat_inter):
 * intra-node reduce-scatter of S, inter-node ring all-reduce of S/n_intra,
 * intra-node all-gather of S. */
double wk_coll_allreduce_hier_s(double bytes, uint32_t n_intra, double bw_intra, double lat_intra,
                                uint32_t n_inter, double bw_inter, double lat_inter);

/** NVLink SHARP all-reduce inside one NVSwitch domain: the switch reduces,
 * so each rank sends and receives S once at the measured algorithm
 * bandwidth: S / algbw + 2 * a. 0 for n <= 1. */
double wk_coll_allreduce_nvls_s(double bytes, uint32_t n, double algbw, double lat);

/** The all-reduce NCCL would pick: the fastest of ring, tree and (algbw_nvls
 * > 0) NVLink SHARP. bw is the effective per-direction bandwidth. */
double wk_coll_allreduce_best_s(double bytes, uint32_t n, double bw, double lat, double algbw_nvls);

/** NCCL bus bandwidth of an all-reduce: algbw * 2(n-1)/n, where algbw = S / t. */
double wk_coll_busbw_allreduce(double bytes, uint32_t n, double t);

#endif
