/* SPDX-License-Identifier: Apache-2.0 */
/* broker.h — the interface of a broker policy: in a network of sites
 * (`sites:`), every job enters one global queue and the broker chooses the
 * site that runs it; the site's own scheduler then places it. A broker sees
 * the network only through the wk_broker_* calls below, which forward to a
 * table of host operations (WkBrokerHostOps) filled by the network driver
 * (models/run/network.c), so policies know nothing of the run. The built-in
 * brokers are in brokers.c; docs/brokers.md describes them and how to write
 * one. */
#ifndef WK_BROKER_H
#define WK_BROKER_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/time.h"
#include "sim/scenario/node.h"

/* Bumped when WkBrokerOps or the wk_broker_* calls change incompatibly;
 * fields are only appended. */
#define WK_BROKER_ABI 1

/* Sites a network may hold at most (docs/limits.md). */
#define WK_BROKER_MAX_SITES 64

typedef struct WkBrokerCtx WkBrokerCtx;

typedef struct WkBrokerOps {
    int abi;                 /* WK_BROKER_ABI */
    const char *name;        /* `broker:` value */
    const char *description; /* shown by `wanka list brokers` */
    size_t priv_size;        /* bytes of zeroed private state given to every call */
    /* Optional: read the policy's own keys from params (the `broker:` map, or
     * NULL when `broker:` is a plain name). 0 or a negative WK_E_* with err. */
    int (*init)(void *priv, const WkNode *params, const WkBrokerCtx *ctx, WkError *err);
    /* Choose the site of a job at its submission: an index < wk_broker_sites
     * for which wk_broker_feasible is 1, or -1 when none is (the job is then
     * rejected by the network). Must not fail. */
    int32_t (*choose)(void *priv, const WkBrokerCtx *ctx, uint32_t job);
} WkBrokerOps;

/* What a host provides; every member is required; `host` is the pointer of
 * the context. Each member means what the wk_broker_* call of the same name
 * says. */
typedef struct WkBrokerHostOps {
    uint32_t (*sites)(const void *host);
    const char *(*site_name)(const void *host, uint32_t site);
    WkTime (*now)(const void *host);
    uint64_t (*seed)(const void *host);
    uint32_t (*site_gpus)(const void *host, uint32_t site);
    uint32_t (*site_free_gpus)(const void *host, uint32_t site);
    double (*site_backlog_s)(const void *host, uint32_t site);
    double (*wait_s)(const void *host, uint32_t job, uint32_t site);
    uint32_t (*job_gpus)(const void *host, uint32_t job, uint32_t site);
    int (*feasible)(const void *host, uint32_t job, uint32_t site);
    double (*run_s)(const void *host, uint32_t job, uint32_t site);
    double (*transfer_s)(const void *host, uint32_t job, uint32_t site);
    double (*energy_cost)(const void *host, uint32_t job, uint32_t site, double start_s);
    double (*energy_co2_kg)(const void *host, uint32_t job, uint32_t site, double start_s);
    uint32_t (*job_home)(const void *host, uint32_t job);
    int (*job_kind)(const void *host, uint32_t job);
} WkBrokerHostOps;

struct WkBrokerCtx {
    const WkBrokerHostOps *ops; /* borrowed, static in the host */
    void *host;
};

/** Sites in the network (>= 1). */
uint32_t wk_broker_sites(const WkBrokerCtx *ctx);
/** A site's name (borrowed, lives as long as the run). */
const char *wk_broker_site_name(const WkBrokerCtx *ctx, uint32_t site);
/** The current simulated time (the job's submission). */
WkTime wk_broker_now(const WkBrokerCtx *ctx);
/** The run's seed, for a policy that draws random numbers. */
uint64_t wk_broker_seed(const WkBrokerCtx *ctx);
/** GPUs of a site (accelerators of any SKU), and those free and usable now. */
uint32_t wk_broker_site_gpus(const WkBrokerCtx *ctx, uint32_t site);
uint32_t wk_broker_site_free_gpus(const WkBrokerCtx *ctx, uint32_t site);
/** The site's backlog: the work of its queued and running jobs, GPU-s of
 * nominal run time left, over its GPUs — the fluid estimate of how long a
 * job sent there now waits (docs/brokers.md). 0 when the site is idle. */
double wk_broker_site_backlog_s(const WkBrokerCtx *ctx, uint32_t site);
/** The job's estimated queue wait at the site, s: 0 when it fits in the
 * site's free GPUs and no job waits there, else the site's backlog. */
double wk_broker_wait_s(const WkBrokerCtx *ctx, uint32_t job, uint32_t site);
/** Devices the job asks for at the site (an hpc job's `nodes:` times the
 * site's GPUs per node; otherwise its `gpus:`). */
uint32_t wk_broker_job_gpus(const WkBrokerCtx *ctx, uint32_t job, uint32_t site);
/** The job's kind: 0 an AI job (training or plain), 1 an hpc job (`kind: hpc`). */
int wk_broker_job_kind(const WkBrokerCtx *ctx, uint32_t job);
/** 1 when the site can run the job: it has enough GPUs, the job's model fits
 * its SKU's memory (and the site has no CPU nodes), the site accepts the
 * job's kind (`accepts:`; an AI job not at a site whose `lend` policy says
 * `lend: false`), and a WAN link reaches it from the job's data home. */
int wk_broker_feasible(const WkBrokerCtx *ctx, uint32_t job, uint32_t site);
/** The job's nominal run time at the site, s (the site's performance model
 * for a model job; the stated duration for a plain job). INFINITY when
 * infeasible. */
double wk_broker_run_s(const WkBrokerCtx *ctx, uint32_t job, uint32_t site);
/** Time to move the job's dataset from its home site to `site` over the WAN,
 * s, queueing behind the transfers already on that link (0 at home). */
double wk_broker_transfer_s(const WkBrokerCtx *ctx, uint32_t job, uint32_t site);
/** Estimated energy cost (currency of the site's price series) and grid CO2
 * (kg) of running the job at the site from start_s seconds after now, at
 * full draw of its GPUs (PUE included) for wk_broker_run_s. NaN when the site
 * has no price series. */
double wk_broker_energy_cost(const WkBrokerCtx *ctx, uint32_t job, uint32_t site, double start_s);
double wk_broker_energy_co2_kg(const WkBrokerCtx *ctx, uint32_t job, uint32_t site, double start_s);
/** The site holding the job's dataset. */
uint32_t wk_broker_job_home(const WkBrokerCtx *ctx, uint32_t job);

/* The built-in brokers (brokers.c). */
extern const WkBrokerOps wk_broker_round_robin;
extern const WkBrokerOps wk_broker_least_loaded;
extern const WkBrokerOps wk_broker_fastest;
extern const WkBrokerOps wk_broker_cheapest;
extern const WkBrokerOps wk_broker_greenest;
extern const WkBrokerOps wk_broker_data;

/** NULL-terminated table of the built-in brokers. */
const WkBrokerOps *const *wk_broker_registry(void);

/** Look a broker up by name; an unknown name gives WK_E_INVAL positioned at
 * where (may be NULL) listing the known ones. */
int wk_broker_lookup(const char *name, const WkNode *where, const WkBrokerOps **out, WkError *err);

#endif
