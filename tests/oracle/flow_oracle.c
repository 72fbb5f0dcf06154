/* SPDX-License-Identifier: Apache-2.0 */
/* flow_oracle.c — one instance of the fabric's max-min sharing, written out
 * for an outside solver to re-solve (tests/oracle/simgrid_flows.py).
 *
 * Builds a fat-tree with wk_fabric_build, draws flows between NICs (fixed
 * seed; patterns below), routes each with wk_fabric_path, and solves them
 * with the flow network incrementally as a run does: half the flows added
 * and solved, link capacities changed, the rest added and solved, a share
 * removed and solved, as many added and solved again. Then prints every directed link the
 * surviving flows cross with its capacity, and every flow with its cap, its
 * path and the rate wanka solved. It also re-solves the survivors from
 * scratch in a fresh network and exits 1 (after the full output, so the
 * outside comparison still runs) unless the rates are bit-identical
 * (flow_impl.h promises that).
 *
 * Usage: flow_oracle [--kind fattree|rail] [--tiers 2|3] [--radix K]
 *   [--nics N] [--rails R --nodes-per-pod M --pods P] [--oversub LEAF,SPINE]
 *   [--flows F] [--pattern uniform|incast|crosspod|rings] [--seed S]
 *   [--capped FRAC] [--degraded FRAC] [--failed N] [--churn FRAC]
 * Output (one record a line, numbers %.17g):
 *   fabric <kind> tiers <t> radix <k> nics <n> leaves <l> spines <s> cores <c>
 *   link <directed id> <capacity bytes/s>
 *   flow <id> <cap bytes/s, 0 = none> <rate bytes/s> <src nic> <dst nic> <hops> <link ids...>
 * Exit 0, 1 (the incremental and scratch solves differ), 2 (bad arguments or
 * a fabric the builder refuses). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/flow.h"
#include "models/topo/fabric.h"

#define BW 50e9 /* bytes/s per link and direction: 400 Gb/s */

typedef struct {
    uint32_t src, dst, nl;
    WkLinkId links[WK_FABRIC_MAX_HOPS];
    double cap; /* 0 = none */
    uint32_t id;
    int live;
} Fl;

typedef struct {
    const char *pattern;
    uint32_t flows, failed;
    double capped, degraded, churn;
    uint64_t seed;
    uint32_t ring_start, ring_stride; /* the ring being drawn (rings) */
} Params;

static uint64_t rnd(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static double unif(uint64_t *s) /* [0, 1) */
{
    return (double)(rnd(s) >> 11) * 0x1.0p-53;
}

static uint32_t below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(rnd(s) % n);
}

static int usage(const char *msg)
{
    fprintf(stderr, "flow_oracle: %s\n", msg);
    return 2;
}

/* Draw a flow's endpoints by pattern. k counts flows drawn so far (rings). */
static void endpoints(const WkFabric *f, Params *p, uint64_t *s, uint32_t k, uint32_t *a, uint32_t *b)
{
    uint32_t n = f->spec.nics_present;
    if (strcmp(p->pattern, "incast") == 0) { /* a few hot receivers */
        *b = below(s, n < 4 ? n : 4) * (n / 4 ? n / 4 : 1) % n;
        do
            *a = below(s, n);
        while (*a == *b);
    } else if (strcmp(p->pattern, "crosspod") == 0 && f->pods > 1) {
        do {
            *a = below(s, n);
            *b = below(s, n);
        } while (wk_fabric_pod_of(f, *a) == wk_fabric_pod_of(f, *b));
    } else if (strcmp(p->pattern, "rings") == 0) {
        /* rings of 8 NICs: a job's ring all-reduce; ring r starts at a random
         * NIC and steps by a random stride, so rings overlap on uplinks */
        if (k % 8 == 0) {
            p->ring_start = below(s, n);
            p->ring_stride = 1 + below(s, n - 1);
        }
        uint32_t i = k % 8;
        *a = (uint32_t)((p->ring_start + (uint64_t)i * p->ring_stride) % n);
        *b = (uint32_t)((p->ring_start + (uint64_t)((i + 1) % 8) * p->ring_stride) % n);
        if (*a == *b)
            *b = (*a + 1) % n;
    } else {
        *a = below(s, n);
        do
            *b = below(s, n);
        while (*b == *a);
    }
}

static int add(WkFlowNet *net, Fl *fl, WkError *err)
{
    int rc = wk_flownet_add(net, fl->links, fl->nl, fl->cap, 0, &fl->id, err);
    fl->live = rc == 0;
    return rc;
}

static void draw(const WkFabric *f, Params *p, uint64_t *s, uint32_t k, Fl *fl)
{
    endpoints(f, p, s, k, &fl->src, &fl->dst);
    fl->nl = (uint32_t)wk_fabric_path(f, fl->src, fl->dst, fl->links);
    fl->cap = unif(s) < p->capped ? BW * (0.05 + 0.95 * unif(s)) : 0.0;
    fl->live = 0;
}

int main(int argc, char **argv)
{
    WkFabricSpec spec = {.kind = WK_FABRIC_FATTREE, .tiers = 3, .radix = 8, .link_bytes_per_s = BW,
                         .link_latency_s = 1e-6, .nics = 128, .rails = 1, .oversub = {1, 1}};
    uint32_t nodes_per_pod = 0, pods = 0;
    Params p = {.pattern = "uniform", .flows = 200, .seed = 1};
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage("every option takes a value");
        const char *k = argv[i], *v = argv[i + 1];
        if (strcmp(k, "--kind") == 0) {
            if (strcmp(v, "fattree") == 0)
                spec.kind = WK_FABRIC_FATTREE;
            else if (strcmp(v, "rail") == 0)
                spec.kind = WK_FABRIC_RAIL;
            else
                return usage("--kind is fattree or rail");
        } else if (strcmp(k, "--tiers") == 0)
            spec.tiers = atoi(v);
        else if (strcmp(k, "--radix") == 0)
            spec.radix = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(k, "--nics") == 0)
            spec.nics = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(k, "--rails") == 0)
            spec.rails = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(k, "--nodes-per-pod") == 0)
            nodes_per_pod = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(k, "--pods") == 0)
            pods = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(k, "--oversub") == 0) {
            if (sscanf(v, "%lf,%lf", &spec.oversub[0], &spec.oversub[1]) != 2)
                return usage("--oversub takes LEAF,SPINE");
        } else if (strcmp(k, "--flows") == 0)
            p.flows = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(k, "--pattern") == 0)
            p.pattern = v;
        else if (strcmp(k, "--seed") == 0)
            p.seed = strtoull(v, NULL, 10);
        else if (strcmp(k, "--capped") == 0)
            p.capped = atof(v);
        else if (strcmp(k, "--degraded") == 0)
            p.degraded = atof(v);
        else if (strcmp(k, "--failed") == 0)
            p.failed = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(k, "--churn") == 0)
            p.churn = atof(v);
        else
            return usage("unknown option");
    }
    if (spec.kind == WK_FABRIC_RAIL) {
        spec.nics_per_pod = nodes_per_pod * spec.rails;
        spec.nics = spec.nics_per_pod * pods;
    }
    spec.nics_present = spec.nics;
    if (p.flows == 0 || spec.nics < 2)
        return usage("need at least one flow and two NICs");

    WkError err;
    wk_error_clear(&err);
    WkFabric fab;
    if (wk_fabric_build(&spec, &fab, &err) < 0) {
        fprintf(stderr, "flow_oracle: %s\n", err.msg);
        return 2;
    }
    uint64_t nlinks = 2 * wk_fabric_link_ids(&fab);
    uint64_t s = p.seed * UINT64_C(0x9e3779b97f4a7c15) + 1;
    uint32_t nrep = (uint32_t)(p.churn * p.flows);
    uint32_t total = p.flows + nrep;
    Fl *fl = calloc(total, sizeof *fl);
    double *cap = malloc(nlinks * sizeof *cap);
    WkFlowNet *net = NULL, *fresh = NULL;
    int rc = 1;
    if (!fl || !cap || wk_flownet_new(&net, nlinks, BW, &err) < 0)
        goto out;
    for (uint64_t l = 0; l < nlinks; l++)
        cap[l] = BW;

    /* 1. half the flows, solved at the fabric's uniform capacity */
    uint32_t half = p.flows / 2;
    for (uint32_t i = 0; i < half; i++) {
        draw(&fab, &p, &s, i, &fl[i]);
        if (add(net, &fl[i], &err) < 0)
            goto out;
    }
    if (wk_flownet_solve(net, &err) < 0)
        goto out;
    /* 2. degrade links (a fraction to 10-100 %) and fail some uplinks (0),
     * then the other half */
    for (uint64_t l = 0; l < nlinks; l++)
        if (p.degraded > 0 && unif(&s) < p.degraded) {
            cap[l] = BW * (0.1 + 0.9 * unif(&s));
            wk_flownet_set_capacity(net, l, cap[l]);
        }
    for (uint32_t i = 0; i < p.failed && half > 0; i++) {
        const Fl *g = &fl[below(&s, half)];
        if (g->nl < 3)
            continue;
        WkLinkId l = g->links[1 + below(&s, g->nl - 2)]; /* not the NIC links */
        cap[l] = 0.0;
        wk_flownet_set_capacity(net, l, 0.0);
    }
    for (uint32_t i = half; i < p.flows; i++) {
        draw(&fab, &p, &s, i, &fl[i]);
        if (add(net, &fl[i], &err) < 0)
            goto out;
    }
    if (wk_flownet_solve(net, &err) < 0)
        goto out;
    /* 3. churn: remove nrep random flows, solve, add nrep new ones */
    for (uint32_t i = 0; i < nrep; i++) {
        Fl *g = &fl[below(&s, p.flows)];
        if (g->live) {
            wk_flownet_remove(net, g->id);
            g->live = 0;
        }
    }
    if (wk_flownet_solve(net, &err) < 0)
        goto out;
    for (uint32_t i = p.flows; i < total; i++) {
        draw(&fab, &p, &s, i, &fl[i]);
        if (add(net, &fl[i], &err) < 0)
            goto out;
    }
    if (wk_flownet_solve(net, &err) < 0)
        goto out;

    /* The survivors from scratch: bit-identical rates. */
    if (wk_flownet_new(&fresh, nlinks, BW, &err) < 0)
        goto out;
    for (uint64_t l = 0; l < nlinks; l++)
        if (cap[l] != BW)
            wk_flownet_set_capacity(fresh, l, cap[l]);
    uint32_t *fid = malloc((size_t)total * sizeof *fid);
    if (!fid)
        goto out;
    for (uint32_t i = 0; i < total; i++)
        if (fl[i].live && wk_flownet_add(fresh, fl[i].links, fl[i].nl, fl[i].cap, 0, &fid[i], &err) < 0) {
            free(fid);
            goto out;
        }
    if (wk_flownet_solve(fresh, &err) < 0) {
        free(fid);
        goto out;
    }
    rc = 0;
    for (uint32_t i = 0; i < total; i++)
        if (fl[i].live && wk_flownet_rate(net, fl[i].id) != wk_flownet_rate(fresh, fid[i])) {
            fprintf(stderr, "flow_oracle: flow %u: incremental rate %.17g, from scratch %.17g\n", i,
                    wk_flownet_rate(net, fl[i].id), wk_flownet_rate(fresh, fid[i]));
            rc = 1;
        }
    free(fid);

    printf("fabric %s tiers %d radix %u nics %u leaves %u spines %u cores %u\n",
           spec.kind == WK_FABRIC_RAIL ? "rail" : "fattree", spec.tiers, (unsigned)spec.radix,
           (unsigned)spec.nics, (unsigned)fab.leaves, (unsigned)fab.spines, (unsigned)fab.cores);
    unsigned char *used = calloc(nlinks, 1);
    if (!used) {
        rc = 1;
        goto out;
    }
    for (uint32_t i = 0; i < total; i++)
        for (uint32_t h = 0; fl[i].live && h < fl[i].nl; h++)
            used[fl[i].links[h]] = 1;
    for (uint64_t l = 0; l < nlinks; l++)
        if (used[l])
            printf("link %llu %.17g\n", (unsigned long long)l, wk_flownet_capacity(net, l));
    free(used);
    for (uint32_t i = 0; i < total; i++) {
        if (!fl[i].live)
            continue;
        printf("flow %u %.17g %.17g %u %u %u", i, fl[i].cap, wk_flownet_rate(net, fl[i].id), fl[i].src,
               fl[i].dst, fl[i].nl);
        for (uint32_t h = 0; h < fl[i].nl; h++)
            printf(" %llu", (unsigned long long)fl[i].links[h]);
        printf("\n");
    }
out:
    if (rc && err.msg[0])
        fprintf(stderr, "flow_oracle: %s\n", err.msg);
    wk_flownet_free(fresh);
    wk_flownet_free(net);
    free(cap);
    free(fl);
    return rc;
}
