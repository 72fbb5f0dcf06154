/* SPDX-License-Identifier: Apache-2.0 */
/* broker.h — brokers as the network driver and the built-ins see them: the
 * public interface (include/wanka/broker.h, installed for plugins:
 * WkBrokerOps, the wk_broker_* calls) plus the host side. Including both
 * here makes the compiler check that the public declarations agree with the
 * internal ones. Each wk_broker_* call forwards to a table of host
 * operations (WkBrokerHostOps) filled by the network driver
 * (models/network/network_exec.c) or a test's scripted host, so policies know
 * nothing of the run. The built-in brokers are in brokers.c, plugins in
 * plugin.c, the conformance checks in conform.c; docs/brokers.md describes
 * them and how to write one. */
#ifndef WK_BROKER_H
#define WK_BROKER_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/error.h"
#include "sim/core/time.h"
#include "sim/scenario/node.h"
#include "wanka/broker.h"

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
