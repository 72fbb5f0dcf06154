/* SPDX-License-Identifier: Apache-2.0 */
/* wanka/broker.h — the broker interface, as installed for brokers built
 * outside wanka's tree (pkg-config wanka-sched) and used by the built-ins.
 * In a network of sites (`sites:`) every job enters one global queue and a
 * broker chooses the site that runs it; the site's own scheduler then
 * places it. A broker is a const WkBrokerOps with a private state block the
 * framework allocates; it sees the network only through the wk_broker_*
 * calls below. A shared object that carries one exports
 *     const WkBrokerOps *wk_broker_plugin(void);
 * (WK_BROKER_PLUGIN_SYMBOL) and is loaded with `wanka run --broker-plugin
 * FILE.so` or a scenario's `broker: {plugin: FILE.so}`. The functions
 * declared here are exported by the wanka executable. Self-contained:
 * standard headers, wanka/error.h and wanka/node.h only.
 * Guide: docs/brokers.md ("Broker plugins"). */
#ifndef WANKA_BROKER_H
#define WANKA_BROKER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "node.h"

/* ABI of WkBrokerOps. Fields are only ever appended to WkBrokerOps; the
 * number goes up when a field is added, removed or changes meaning, or a
 * function below changes its signature or meaning; a function added below
 * leaves it unchanged, since brokers built before it never call it. wanka
 * refuses a broker whose abi differs from the number it was built with. */
#define WK_BROKER_ABI 1

/* Sites a network may hold at most (docs/limits.md): a broker may size
 * per-site arrays by it. */
#define WK_BROKER_MAX_SITES 64

/* Keys every broker accepts in its `broker:` map (the network reads them):
 * name, and plugin (the shared object it comes from). Put this first in a
 * broker's known-keys list. */
#define WK_BROKER_COMMON_KEYS "name", "plugin"

typedef struct WkBrokerCtx WkBrokerCtx;

typedef struct WkBrokerOps {
    int abi;                 /* WK_BROKER_ABI; fields are only appended */
    const char *name;        /* `broker:` value: 1-64 of [A-Za-z0-9._-] */
    const char *description; /* shown by `wanka list brokers` */
    size_t priv_size;        /* bytes of zeroed private state given to every call */
    /* Optional: read the policy's own keys from params (the `broker:` map, or
     * NULL when `broker:` is a plain name). 0 or a negative WK_E_* with err.
     * Without init, a `broker:` map may hold only the common keys. */
    int (*init)(void *priv, const WkNode *params, const WkBrokerCtx *ctx, WkError *err);
    /* Choose the site of a job at its submission: an index < wk_broker_sites
     * for which wk_broker_feasible is 1, or -1 exactly when none is (the job
     * is then rejected by the network). Must not fail; the same calls
     * answering the same must give the same choice (runs are reproducible). */
    int32_t (*choose)(void *priv, const WkBrokerCtx *ctx, uint32_t job);
} WkBrokerOps;

/* The symbol a plugin exports: a function returning its table (static
 * storage, alive while the shared object is loaded). */
#define WK_BROKER_PLUGIN_SYMBOL "wk_broker_plugin"
typedef const WkBrokerOps *(*WkBrokerPluginFn)(void);

/* --- what a broker may ask (the wanka executable implements these) ---
 * job is the job being chosen for; site < wk_broker_sites(ctx). */

/** Sites in the network (1 .. WK_BROKER_MAX_SITES). */
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
/** The job's estimated queue wait at the site, s: when it would start
 * behind the site's running and waiting jobs (a plan, docs/brokers.md);
 * 0 when it fits in the site's free GPUs and no job waits there. */
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
 * (kg) of running the job at the site from start_s seconds after now: the
 * energy its GPUs add over their idle draw (busy − idle, PUE included) for
 * wk_broker_run_s. NaN when the site has no price series. */
double wk_broker_energy_cost(const WkBrokerCtx *ctx, uint32_t job, uint32_t site, double start_s);
double wk_broker_energy_co2_kg(const WkBrokerCtx *ctx, uint32_t job, uint32_t site, double start_s);
/** The site holding the job's dataset. */
uint32_t wk_broker_job_home(const WkBrokerCtx *ctx, uint32_t job);

#endif
