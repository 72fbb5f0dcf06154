/* SPDX-License-Identifier: Apache-2.0 */
/* collective.c — alpha-beta (Hockney) cost of collectives: a bandwidth term
 * (bytes over link bandwidth, scaled by the algorithm's traffic factor) plus a
 * latency term (steps times per-step latency). Pure arithmetic, no state. */
#include "models/net/collective.h"

#include <math.h>

/* Bytes / bandwidth, guarded: nothing to send costs nothing, a link with no
 * bandwidth never finishes. */
static double xfer_s(double bytes, double bw)
{
    if (!(bytes > 0))
        return 0.0;
    if (!(bw > 0))
        return HUGE_VAL;
    return bytes / bw;
}

/* ceil(log2 n) for n >= 1. */
static uint32_t ceil_log2(uint32_t n)
{
    uint32_t k = 0;
    while (k < 32 && (UINT64_C(1) << k) < n)
        k++;
    return k;
}

/* (n-1)/n * S/B + (n-1) * a: one ring pass (reduce-scatter or all-gather). */
static double ring_pass_s(double bytes, uint32_t n, double bw, double lat)
{
    if (n <= 1 || !(bytes > 0))
        return 0.0;
    double steps = (double)(n - 1);
    return steps / (double)n * xfer_s(bytes, bw) + steps * lat;
}

double wk_coll_allreduce_ring_s(double bytes, uint32_t n, double bw, double lat)
{
    if (n <= 1 || !(bytes > 0))
        return 0.0;
    double steps = (double)(n - 1);
    return 2.0 * steps / (double)n * xfer_s(bytes, bw) + 2.0 * steps * lat;
}

double wk_coll_allreduce_tree_s(double bytes, uint32_t n, double bw, double lat)
{
    if (n <= 1 || !(bytes > 0))
        return 0.0;
    return 2.0 * xfer_s(bytes, bw) + 2.0 * (double)ceil_log2(n) * lat;
}

double wk_coll_allreduce_s(WkCollAlgo algo, double bytes, uint32_t n, double bw, double lat)
{
    if (algo == WK_COLL_TREE)
        return wk_coll_allreduce_tree_s(bytes, n, bw, lat);
    return wk_coll_allreduce_ring_s(bytes, n, bw, lat);
}

double wk_coll_reduce_scatter_s(double bytes, uint32_t n, double bw, double lat)
{
    return ring_pass_s(bytes, n, bw, lat);
}

double wk_coll_all_gather_s(double bytes, uint32_t n, double bw, double lat)
{
    return ring_pass_s(bytes, n, bw, lat);
}

double wk_coll_all_to_all_s(double bytes, uint32_t n, double bw, double lat)
{
    return ring_pass_s(bytes, n, bw, lat);
}

double wk_coll_p2p_s(double bytes, double bw, double lat)
{
    if (!(bytes > 0))
        return 0.0;
    return xfer_s(bytes, bw) + lat;
}

double wk_coll_allreduce_hier_s(double bytes, uint32_t n_intra, double bw_intra, double lat_intra,
                                uint32_t n_inter, double bw_inter, double lat_inter)
{
    if (!(bytes > 0))
        return 0.0;
    double per_node = n_intra > 1 ? bytes / (double)n_intra : bytes;
    return wk_coll_reduce_scatter_s(bytes, n_intra, bw_intra, lat_intra) +
           wk_coll_allreduce_ring_s(per_node, n_inter, bw_inter, lat_inter) +
           wk_coll_all_gather_s(bytes, n_intra, bw_intra, lat_intra);
}

double wk_coll_allreduce_nvls_s(double bytes, uint32_t n, double algbw, double lat)
{
    if (n <= 1 || !(bytes > 0))
        return 0.0;
    return xfer_s(bytes, algbw) + 2.0 * lat;
}

double wk_coll_allreduce_best_s(double bytes, uint32_t n, double bw, double lat, double algbw_nvls)
{
    double r = wk_coll_allreduce_ring_s(bytes, n, bw, lat), t = wk_coll_allreduce_tree_s(bytes, n, bw, lat);
    double best = r < t ? r : t;
    if (algbw_nvls > 0) {
        double v = wk_coll_allreduce_nvls_s(bytes, n, algbw_nvls, lat);
        best = v < best ? v : best;
    }
    return best;
}

double wk_coll_busbw_allreduce(double bytes, uint32_t n, double t)
{
    if (n <= 1 || !(bytes > 0) || !(t > 0))
        return 0.0;
    double algbw = bytes / t;
    return algbw * 2.0 * (double)(n - 1) / (double)n;
}
