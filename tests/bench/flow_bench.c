/* SPDX-License-Identifier: Apache-2.0 */
/* flow_bench.c — incremental max-min flow solving at 100k-GPU scale: ~30,000
 * flows of 4-6 directed links over ~600,000 link ids, grouped in clusters of
 * shared links as jobs on a fat-tree are; then timed add/remove + solve steps.
 * Prints steps per second and flows re-rated per step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/net/flow.h"

typedef struct {
    uint64_t nlinks;    /* link ids */
    uint32_t flows;     /* flows kept alive */
    uint32_t cluster;   /* links per cluster (one job's share of the fabric) */
    uint32_t shared;    /* of which leaf/spine uplinks all its flows share */
    uint32_t steps;     /* timed steps */
    uint64_t seed;
} Params;

static uint64_t rnd(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A path of 4-6 distinct links inside a random cluster: the first and last
 * (NIC to leaf, leaf to NIC) from the cluster's private links, the middle
 * ones (leaf/spine up- and downlinks) from its few shared links, so each
 * cluster is one connected component, as one job's collective traffic is. */
static size_t random_path(const Params *p, uint64_t *s, WkLinkId *out)
{
    uint64_t nclusters = p->nlinks / p->cluster;
    uint64_t base = (rnd(s) % nclusters) * p->cluster;
    size_t len = 4 + (size_t)(rnd(s) % 3);
    for (size_t i = 0; i < len; i++) {
        int dup;
        do {
            uint64_t priv = p->cluster - p->shared;
            uint64_t off = (i == 0 || i == len - 1) ? rnd(s) % priv : priv + rnd(s) % p->shared;
            out[i] = base + off;
            dup = 0;
            for (size_t j = 0; j < i; j++)
                dup |= out[j] == out[i];
        } while (dup);
    }
    return len;
}

static int add_random(WkFlowNet *n, const Params *p, uint64_t *s, uint32_t *id)
{
    WkLinkId path[8];
    size_t len = random_path(p, s, path);
    double cap = rnd(s) % 4 == 0 ? 25e9 : 0.0; /* a quarter capped by their NIC */
    WkError err;
    wk_error_clear(&err);
    int rc = wk_flownet_add(n, path, len, cap, (uint32_t)(rnd(s) % 1000), id, &err);
    if (rc)
        fprintf(stderr, "flow_bench: %s\n", err.msg);
    return rc;
}

int main(int argc, char **argv)
{
    Params p = {.nlinks = 600000, .flows = 30000, .cluster = 600, .shared = 16, .steps = 10000,
                .seed = 1};
    for (int i = 1; i + 1 < argc; i += 2) {
        unsigned long long v = strtoull(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--links") == 0)
            p.nlinks = v;
        else if (strcmp(argv[i], "--flows") == 0)
            p.flows = (uint32_t)v;
        else if (strcmp(argv[i], "--cluster") == 0)
            p.cluster = (uint32_t)v;
        else if (strcmp(argv[i], "--shared") == 0)
            p.shared = (uint32_t)v;
        else if (strcmp(argv[i], "--steps") == 0)
            p.steps = (uint32_t)v;
        else if (strcmp(argv[i], "--seed") == 0)
            p.seed = v;
        else {
            fprintf(stderr, "usage: flow_bench [--links N] [--flows N] [--cluster N] "
                            "[--shared N] [--steps N] [--seed N]\n");
            return 2;
        }
    }
    if (p.shared < 4 || p.cluster < p.shared + 2 || p.nlinks < p.cluster || p.flows == 0) {
        fprintf(stderr, "flow_bench: need shared >= 4, cluster >= shared + 2, links >= cluster, "
                        "flows > 0\n");
        return 2;
    }

    uint64_t s = p.seed * UINT64_C(0x9e3779b97f4a7c15) + 1;
    WkFlowNet *n = NULL;
    WkError err;
    wk_error_clear(&err);
    uint32_t *ids = malloc((size_t)p.flows * sizeof *ids);
    if (!ids || wk_flownet_new(&n, p.nlinks, 50e9, &err)) {
        fprintf(stderr, "flow_bench: out of memory\n");
        free(ids);
        return 1;
    }

    double t0 = now_s();
    for (uint32_t i = 0; i < p.flows; i++)
        if (add_random(n, &p, &s, &ids[i]))
            return 1;
    if (wk_flownet_solve(n, &err))
        return 1;
    double t_full = now_s() - t0;
    uint64_t r_full = wk_flownet_rerated(n);

    uint64_t r0 = wk_flownet_rerated(n), changed = 0;
    t0 = now_s();
    for (uint32_t k = 0; k < p.steps; k++) {
        uint32_t i = (uint32_t)(rnd(&s) % p.flows);
        wk_flownet_remove(n, ids[i]);
        if (add_random(n, &p, &s, &ids[i]) || wk_flownet_solve(n, &err))
            return 1;
        const uint32_t *ch;
        changed += wk_flownet_changed(n, &ch);
    }
    double t_steps = now_s() - t0;
    uint64_t rerated = wk_flownet_rerated(n) - r0;

    printf("flow: %llu links, %u flows, clusters of %u links (%u shared)\n",
           (unsigned long long)p.nlinks, p.flows, p.cluster, p.shared);
    printf("  build + first solve: %.3f ms (%llu flows rated)\n", 1e3 * t_full,
           (unsigned long long)r_full);
    printf("  %u remove+add+solve steps: %.3f s, %.0f steps/s, %.1f us/step\n", p.steps, t_steps,
           p.steps / t_steps, 1e6 * t_steps / p.steps);
    printf("  re-rated per step: %.1f flows (of %zu), rate changes per step: %.1f\n",
           (double)rerated / p.steps, wk_flownet_count(n), (double)changed / p.steps);
    wk_flownet_free(n);
    free(ids);
    return 0;
}
