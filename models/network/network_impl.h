/* SPDX-License-Identifier: Apache-2.0 */
/* network_impl.h — the state of a network run (`sites:`), shared by
 * network.c (parsing, sites), network_exec.c (the broker's host and the
 * lockstep), network_span.c (jobs across sites) and network_report.c
 * (summary and trace). Each site is a WkRun driven through run.h only.
 * Private to models/network: others use sim.h. */
#ifndef WK_NETWORK_IMPL_H
#define WK_NETWORK_IMPL_H

#include "models/broker/broker.h"
#include "models/broker/plugin.h"
#include "models/facility/facility.h"
#include "models/run/run.h"
#include "models/topo/cluster.h"
#include "models/workload/perf.h"
#include "models/workload/workload.h"

/* Sites in one network at most (docs/limits.md). */
#define WK_NET_MAX_SITES WK_BROKER_MAX_SITES
/* Jobs x sites at most: each site holds its copy of the workload, so a
 * network holds as many jobs as one run at its limit (docs/limits.md). */
#define WK_NET_MAX_JOB_COPIES 5000000

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

/* Sites one job may span at most (docs/brokers.md, "Jobs across sites"). */
#define WK_NET_SPAN_MAX 8

/* A job that spans sites (`span:`): one part per site, data-parallel over
 * the WAN, started and stopped as a gang. */
typedef struct WkNetGang {
    uint32_t job;
    uint32_t k;                      /* sites */
    uint32_t site[WK_NET_SPAN_MAX];  /* the parts' sites; site[0] is the job's row in the trace */
    uint32_t part;                   /* GPUs of each part */
    double run_s;                    /* run time of the spanning job at nominal speed */
    double wan_bytes;                /* gradient bytes its ring moves over the WAN in all */
    int live;                        /* every part runs and progresses */
    int done;                        /* every part finished, or the job was given up */
    int given_up;                    /* a part was rejected by its site */
    WkTime first_go, hold_since, end;
    double hold_gpu_s;               /* GPU-seconds parts held their GPUs waiting for the others */
    /* its share of the WAN (network_wan.c) */
    const WkModelSpec *model;        /* borrowed from the workload (its parts' copies have none) */
    double iter_s;                   /* iteration time the parts' run time follows now */
    double bytes_iter;               /* gradient bytes per iteration over each ring link */
    double share;                    /* bytes/s its ring flow got at the last solve (0: none yet) */
    int in_seg;                      /* a traffic interval is open since seg_t0 at seg_rate */
    WkTime seg_t0;
    double seg_rate;
} WkNetGang;

/* An interval of constant traffic on a directed WAN link (network_wan.c). */
typedef struct WkNetWanSeg {
    uint32_t link; /* from * sites + to */
    WkTime t0, t1;
    double bytes_per_s;
} WkNetWanSeg;

/* A row of timeseries/wan: what a directed link carried over the bin
 * starting at time_ns (bytes per second, its mean over the bin). */
typedef struct WkNetWanRow {
    int64_t time_ns;
    int32_t from, to;
    double bytes_per_s;
    double capacity;
} WkNetWanRow;

/* Bins of timeseries/wan at most: past it, the bins widen. */
#define WK_NET_WAN_BINS 100000

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
    uint8_t *part;          /* owned, per job: WK_NET_PART | WK_NET_HELD (NULL: nothing spans) */
    double transfer_s;      /* their WAN transfer time, summed */
} NetSite;

typedef struct WkNet {
    const WkDoc *doc;       /* borrowed: the scenario */
    WkRunOpts opts;         /* as given (its arrays borrowed) */
    const char *name;       /* the scenario's (borrowed) */
    uint64_t seed;
    WkTime horizon;         /* sim.end, or WK_TIME_NEVER */
    WkTime sample_interval; /* the sites' (the trace's root says it) */
    int executed, finished, interrupted;
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
    size_t njobs;
    size_t unplaced;        /* jobs no site could run */
    double wan_bytes, wan_cost; /* moved over the WAN, and its cost */
    size_t transfers;
    WkTime end_t;
    /* jobs across sites (`span:`, network_span.c) */
    uint32_t span_max;      /* sites a job may span, 1: never */
    int span_faster;        /* also span when it finishes sooner than the broker's site */
    WkTime span_sync;       /* how often the network checks the gangs' parts */
    WkTime span_hold;       /* a gang not all running after this gives its GPUs back */
    WkNetGang *gang;        /* owned */
    size_t ngang, capgang, gangs_open;
    int32_t *gang_of;       /* owned, per job: its gang, -1 none (NULL: nothing spans) */
    double span_wan_bytes;
    size_t span_considered; /* jobs for which spanning was weighed */
    size_t span_retries;    /* gangs that gave their GPUs back after span.hold */
    size_t span_running;    /* parts of open gangs running at the last sync */
    uint32_t span_idle;     /* syncs in a row with no part of an open gang running */
    /* the WAN shared (network_wan.c) */
    WkTime *link_from;      /* owned, [from * n + to]: start of the link's current run of transfers */
    double *wan_left;       /* owned scratch, [from * n + to] */
    uint32_t *wan_users;    /* owned scratch */
    struct WkNetWanFlow *wflow; /* owned scratch */
    size_t capwflow;
    WkNetWanSeg *wseg;      /* owned: traffic intervals, for timeseries/wan */
    size_t nwseg, capwseg;
    size_t wan_rescales;    /* times a gang's share changed */
    int wan_nomem;          /* a traffic interval could not be kept: the trace fails */
} WkNet;

/** Read a network scenario (doc borrowed, must outlive it; opts copied,
 * their arrays borrowed): the top level, sites (each a run prepared by
 * wk_run_prepare_site), WAN, broker, data and span. 0 and a network the
 * caller frees (wk_net_free), or a negative code with a positioned error. */
int wk_net_prepare(WkNet **out, const WkDoc *doc, const WkRunOpts *opts, WkError *err);

/** Run every site in lockstep to the end (once), as wk_run_execute does a
 * run: stopped early on opts.interrupt (n->interrupted then). 0 or a
 * negative code. */
int wk_net_execute(WkNet *n, WkError *err);

/** The network's summary (after execute): its totals and `site.NAME.*`. */
int wk_net_summary(const WkNet *n, WkSummary *s, WkError *err);

/** Write the network's trace to path (atomically): the root attributes,
 * its tables with site columns, its summary. */
int wk_net_write_trace(const WkNet *n, const char *path, WkError *err);

/** GPU-time accounted over every site (as wk_run_account). */
void wk_net_account(const WkNet *n, WkRunAccount *a);

/** GPUs of every site. */
uint32_t wk_net_gpus(const WkNet *n);

/** Release the network and its sites' runs. NULL is a no-op. */
void wk_net_free(WkNet *n);

/** Open the broker (its private block, init with its parameters) and draw
 * each job's dataset home and size. 0 or a negative code. */
int wk_net_broker_open(WkNet *n, WkError *err);

/** The WAN link from site a to site b. */
static inline const WkNetLink *wk_net_link(const WkNet *n, uint32_t a, uint32_t b) { return &n->link[a * n->n + b]; }

/* ---- the sites' queues and the WAN (network_plan.c) ---- */

/** Site s's backlog: GPU-seconds left of the jobs sent there and not yet
 * finished, per GPU of the site, s (INFINITY when out of memory). */
double wk_net_plan_backlog_s(WkNet *n, uint32_t s);

/** When `need` GPUs would start at site s behind its queue, s from now
 * (the FIFO-reservation plan; INFINITY: never). */
double wk_net_plan_wait(WkNet *n, uint32_t s, int64_t need);

/** Duration of moving `bytes` of a dataset from `home` to site s if queued
 * now on their link, s (0 at home; INFINITY without a link). */
double wk_net_transfer_s(const WkNet *n, uint32_t home, uint32_t s, double bytes);

/** Queue `bytes` of job j's dataset from its home to site s (which must be
 * linked): the link's FIFO, the WAN totals; returns the delay before the
 * data are there (0 at home). */
WkTime wk_net_send_data(WkNet *n, uint32_t j, uint32_t s, double bytes);

/** Site s takes job j (or a part of it): counted, listed for its plan.
 * 0 or WK_E_NOMEM. */
int wk_net_site_take(WkNet *n, uint32_t s, uint32_t j, WkError *err);

/* ---- jobs across sites (network_span.c) ---- */

/** `span:` (top level of a network): parse and, when jobs may span, give
 * every site its part flags. 0 or a negative code, positioned. */
int wk_net_span_parse(WkNet *n, const WkNode *root, WkError *err);

/** Job j is submitted now and the broker chose site `chosen` (-1: none):
 * weigh spanning it over sites (docs/brokers.md) and, when that is chosen,
 * set up its parts and gang. *spanned is 1 then (the job is assigned), else
 * 0 and the caller assigns it as usual. 0 or a negative code. */
int wk_net_span_consider(WkNet *n, uint32_t j, int32_t chosen, int *spanned, WkError *err);

/** Every site has run to t (events at times <= t): let go the gangs whose
 * parts all run, hold the others, give GPUs back after span.hold, close
 * the finished ones. 0 or a negative code. */
int wk_net_span_sync(WkNet *n, WkTime t, WkError *err);

/** How far the sites may run before the next sync: span.sync while a part
 * of an open gang runs (a stopped part is noticed within it, span.hold
 * counted in it); else doubling after each idle sync, up to a day and to
 * half the shortest open gang's run time (a part can only start at a site
 * event, and letting the gang go is credited from the last part's start,
 * so a later sync loses nothing but that bound). */
WkTime wk_net_span_step(const WkNet *n);

/** Of job j in a network: its start (the first time all its parts ran),
 * end and state, wherever it ran (a gang's, or its site's). */
void wk_net_job_times(const WkNet *n, uint32_t j, WkTime *start, WkTime *end, uint8_t *state);

/** Free the span state. */
void wk_net_span_free(WkNet *n);

/* ---- the WAN shared (network_wan.c) ---- */

/** The rate (bytes/s) a new transfer on from→to starting at t gets: its
 * max-min share beside the running gangs' rings and the transfers in flight
 * on other links (the one on this link is over by then: transfers on a link
 * go one after another). The link's bandwidth when nothing else crosses the
 * WAN; never 0. */
double wk_net_wan_rate(WkNet *n, uint32_t from, uint32_t to, WkTime t);

/** The rate (bytes/s) a new gang's ring over site[0..k) would get now: its
 * max-min share beside the running gangs and the transfers in flight (the
 * slowest ring link's bandwidth when no gang runs). */
double wk_net_wan_ring_rate(WkNet *n, const uint32_t *site, uint32_t k, WkTime t);

/** Record that directed link `link` carried bytes_per_s over [t0, t1)
 * (nothing when empty). 0 or WK_E_NOMEM. */
int wk_net_wan_segment(WkNet *n, uint32_t link, WkTime t0, WkTime t1, double bytes_per_s, WkError *err);

/** Solve the WAN's max-min shares at t; a running gang whose share changed
 * gets its parts' time to go scaled to its iteration time at that share
 * (wk_run_site_gate); traffic intervals are opened and closed. Called after
 * every span sync. 0 or a negative code. */
int wk_net_wan_update(WkNet *n, WkTime t, WkError *err);

/** Close every open traffic interval at t_end (the end of the run). */
int wk_net_wan_finish(WkNet *n, WkTime t_end, WkError *err);

/** timeseries/wan's rows (owned by the caller; *out NULL when the WAN
 * carried nothing), bins of the sample interval (widened to at most
 * WK_NET_WAN_BINS), a row per directed link and bin it carried traffic in,
 * and a row of 0 in the bin after. Sorts the intervals. */
int wk_net_wan_rows(WkNet *n, WkTime t_end, WkNetWanRow **out, size_t *nrows, WkError *err);

/** Free the WAN sharing state. */
void wk_net_wan_free(WkNet *n);

#endif
