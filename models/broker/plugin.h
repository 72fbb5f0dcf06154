/* SPDX-License-Identifier: Apache-2.0 */
/* plugin.h — brokers loaded from shared objects: dlopen, the exported
 * table (WK_BROKER_PLUGIN_SYMBOL of wanka/broker.h), its ABI and fields
 * checked, and the lookup of a broker by name among the built-ins and the
 * loaded plugins. A set is owned by whoever runs the brokers (a network
 * run, `wanka list`, `wanka conformance`) and closed after every instance
 * of them. Loading runs no broker code but the exported function. */
#ifndef WK_BROKER_PLUGIN_H
#define WK_BROKER_PLUGIN_H

#include <stddef.h>

#include "models/broker/broker.h"

typedef struct WkBrokerPlugin {
    char *path;             /* as given (owned) */
    void *handle;           /* from dlopen (owned) */
    const WkBrokerOps *ops; /* the shared object's table (borrowed from it) */
} WkBrokerPlugin;

/* Loaded broker plugins. Zero-initialise. */
typedef struct WkBrokerPlugins {
    WkBrokerPlugin *items; /* owned */
    size_t n;
} WkBrokerPlugins;

/** Load the shared object at path into set: dlopen it (RTLD_NOW: a symbol
 * wanka does not export fails here), call its WK_BROKER_PLUGIN_SYMBOL
 * function, check the table: abi == WK_BROKER_ABI, a name and choose
 * present, the name not taken by a built-in or by another plugin of the set
 * (the same table loaded twice counts once). Errors name path: WK_E_IO
 * (dlopen failed: its dlerror text), WK_E_NOTFOUND (no such symbol),
 * WK_E_INVAL (NULL table, ABI mismatch with both numbers, missing field,
 * a name of other characters or length, name clash). at (may be NULL) positions the error in the scenario (its
 * `plugin:` key); otherwise where is path. On success *out (out may be NULL)
 * is the plugin's broker; on error the set is unchanged. */
int wk_broker_plugins_add(WkBrokerPlugins *set, const char *path, const WkNode *at, const WkBrokerOps **out,
                          WkError *err);

/** Look a broker up by name among the built-ins and set's plugins (set may
 * be NULL). An unknown name gives WK_E_INVAL positioned at where (may be
 * NULL) listing the known ones. */
int wk_broker_plugins_lookup(const WkBrokerPlugins *set, const char *name, const WkNode *where,
                             const WkBrokerOps **out, WkError *err);

/** The file a broker was loaded from (borrowed), or NULL for a built-in or
 * a broker not in set. */
const char *wk_broker_plugins_path(const WkBrokerPlugins *set, const WkBrokerOps *ops);

/** dlclose every plugin of set and free it; every instance of their
 * brokers must be closed before. set may be NULL. */
void wk_broker_plugins_fini(WkBrokerPlugins *set);

#endif
