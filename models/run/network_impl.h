/* SPDX-License-Identifier: Apache-2.0 */
/* network_impl.h — the state of a network run (`sites:`), shared by
 * network.c (parsing, sites), network_exec.c (the broker's host and the
 * lockstep) and network_report.c (summary and trace). Private to
 * models/run. */
#ifndef WK_NETWORK_IMPL_H
#define WK_NETWORK_IMPL_H

#include "models/broker/broker.h"
#include "models/broker/plugin.h"
#include "models/run/run_impl.h"

/* Sites in one network at most (docs/limits.md). */
#define WK_NET_MAX_SITES WK_BROKER_MAX_SITES

/* A WAN link between two sites (symmetric). */
typedef struct WkNetLink {
    double bytes_per_s; /* 0: no link */
    double latency_s;   /* one way */
    double cost_per_tb; /* transfer cost, currency per TB (10^12 bytes) */
    int set;
} WkNetLink;

/* A job's expected end and the GPUs it frees then. */
typedef struct WkNetEnd {
    WkTime t;
    uint32_t gpus;
} WkNetEnd;

typedef struct NetSite {
    const char *name;       /* borrowed from the scenario */
    const WkNode *node;     /* its map in `sites:` */
    WkDoc doc;              /* the site's document: borrowed text, file and dir */
    WkNode root;            /* a map of borrowed nodes */
    WkNode *kids[16];
    WkRun *run;             /* owned */
    uint32_t gpus;
    int accepts_ai, accepts_hpc;
    double data_share;      /* weight of the site as a dataset's home */
    double job_w_per_gpu;   /* facility W a busy GPU adds over an idle one (PUE included) */
    uint32_t *out;          /* owned: jobs sent here and not yet finished */
    size_t nout, capout;
    double queued_gpu_s;    /* backlog at the last refresh: GPU-s left of its jobs */
    WkTime refreshed;       /* when the backlog and plan were last refreshed (-1: stale) */
    WkNetEnd *plan;         /* owned: ends of running and planned jobs after the queue, by time */
    size_t nplan, capplan;
    WkTime plan_t;          /* when the last queued job would start (FIFO reservations) */
    int64_t plan_free;      /* GPUs free then */
    size_t assigned;        /* jobs the broker sent here */
    double transfer_s;      /* their WAN transfer time, summed */
} NetSite;

struct WkNet {
    NetSite *s;
    uint32_t n;
    WkNetLink *link;        /* owned, [from * n + to] */
    WkTime *link_free;      /* owned, [from * n + to]: when the link's queued transfers are done */
    const WkNode *wan;
    const WkBrokerOps *broker;
    WkBrokerPlugins plugins; /* owned: broker plugins loaded, closed after the broker */
    const WkNode *bparams;
    void *bpriv;            /* owned */
    WkBrokerCtx ctx;
    int32_t *assign;        /* owned, per job: its site, -1 none */
    WkTime *delay;          /* owned, per job: transfer time to its site */
    uint32_t *home;         /* owned, per job: the site holding its dataset */
    double *bytes;          /* owned, per job: its dataset, bytes */
    double bytes_per_token, job_bytes;
    WkTime now;             /* the broker's clock */
    uint64_t seed;
    size_t njobs;
    size_t unplaced;        /* jobs no site could run */
    double wan_bytes, wan_cost; /* moved over the WAN, and its cost */
    size_t transfers;
    WkTime end_t;
};

typedef struct WkNet WkNet;

/** Open the broker (its private block, init with its parameters) and draw
 * each job's dataset home and size. 0 or a negative code. */
int wk_net_broker_open(WkNet *n, WkRun *r, WkError *err);

#endif
