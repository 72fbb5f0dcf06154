/* SPDX-License-Identifier: Apache-2.0 */
/* plugin.c — brokers from shared objects (plugin.h): the exported table,
 * its checks, and the lookup among built-ins and plugins. */
#include "models/broker/plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/dl.h"

/* An error about the plugin at path: positioned at the scenario's key when
 * there is one (the message then names the file), else at path itself. */
static int broker_error(const char *path, const WkNode *at, int code, WkError *err, const char *msg)
{
    if (at)
        return wk_node_error(at, code, err, "broker plugin %s: %s", path, msg);
    return wk_error_set(err, code, path, 0, 0, "broker plugin: %s", msg);
}

/* 1 when a broker name is 1-64 of [A-Za-z0-9._-]: it goes into a
 * scenario's `broker:`, a trace and a terminal as it is. */
static int name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              c == '.'))
            return 0;
    }
    return 1;
}

/* What the table lacks or gets wrong, as a message into why; 0 when it will do. */
static int check_table(const WkBrokerOps *ops, const WkBrokerPlugins *set, char *why, size_t n)
{
    const WkBrokerOps *builtin = NULL;
    if (!ops)
        snprintf(why, n, WK_BROKER_PLUGIN_SYMBOL "() returned NULL");
    else if (ops->abi != WK_BROKER_ABI)
        snprintf(why, n, "ABI %d, this wanka speaks ABI %d: rebuild it against this wanka's wanka/broker.h", ops->abi,
                 WK_BROKER_ABI);
    else if (!ops->name || !ops->name[0])
        snprintf(why, n, "its WkBrokerOps has no name");
    else if (!ops->choose)
        snprintf(why, n, "its WkBrokerOps has no choose");
    else if (!name_ok(ops->name))
        snprintf(why, n, "its broker name is not 1-64 letters, digits, '-', '_' or '.' (a name is written into "
                         "scenarios and traces)");
    else if (wk_broker_lookup(ops->name, NULL, &builtin, NULL) == 0)
        snprintf(why, n, "broker '%s' has the name of a built-in broker", ops->name);
    else
        for (size_t i = 0; i < set->n; i++)
            if (set->items[i].ops != ops && strcmp(set->items[i].ops->name, ops->name) == 0) {
                snprintf(why, n, "broker '%s' is also the name of plugin %s", ops->name, set->items[i].path);
                break;
            }
    return why[0] ? WK_E_INVAL : 0;
}

int wk_broker_plugins_add(WkBrokerPlugins *set, const char *path, const WkNode *at, const WkBrokerOps **out,
                          WkError *err)
{
    void *h, *sym;
    char why[WK_ERROR_MSG_MAX / 2], msg[WK_ERROR_MSG_MAX / 2 + 16];
    int rc = wk_dl_open(path, WK_BROKER_PLUGIN_SYMBOL, &h, &sym, why, sizeof why);
    if (rc == WK_E_NOTFOUND)
        return broker_error(path, at, rc, err,
                            "no symbol '" WK_BROKER_PLUGIN_SYMBOL "' (a broker exports const WkBrokerOps *"
                            WK_BROKER_PLUGIN_SYMBOL "(void); see docs/brokers.md)");
    if (rc == WK_E_IO) {
        snprintf(msg, sizeof msg, "cannot load: %s", why);
        return broker_error(path, at, rc, err, msg);
    }
    if (rc < 0)
        return wk_error_nomem(err, "broker plugin path");
    WkBrokerPluginFn fn;
    memcpy(&fn, &sym, sizeof fn); /* POSIX: a function's address comes back as void * */
    const WkBrokerOps *ops = fn();
    why[0] = '\0';
    if ((rc = check_table(ops, set, why, sizeof why)) < 0) {
        wk_dl_close(h);
        return broker_error(path, at, rc, err, why);
    }
    if (out)
        *out = ops;
    if (wk_broker_plugins_path(set, ops)) { /* the same object again: one entry */
        wk_dl_close(h);
        return 0;
    }
    WkBrokerPlugin *it = realloc(set->items, (set->n + 1) * sizeof *it);
    char *p = malloc(strlen(path) + 1);
    if (it)
        set->items = it;
    if (!it || !p) {
        free(p);
        wk_dl_close(h);
        return wk_error_nomem(err, "broker plugins");
    }
    memcpy(p, path, strlen(path) + 1);
    set->items[set->n++] = (WkBrokerPlugin){.path = p, .handle = h, .ops = ops};
    return 0;
}

int wk_broker_plugins_lookup(const WkBrokerPlugins *set, const char *name, const WkNode *where,
                             const WkBrokerOps **out, WkError *err)
{
    for (size_t i = 0; set && i < set->n; i++)
        if (strcmp(set->items[i].ops->name, name) == 0) {
            *out = set->items[i].ops;
            return 0;
        }
    WkError inner;
    wk_error_clear(&inner);
    int rc = wk_broker_lookup(name, where, out, &inner);
    if (rc == 0 || !set || set->n == 0) {
        if (rc < 0 && err && !err->code)
            *err = inner;
        return rc;
    }
    /* "unknown broker 'x' (known: a, b)": the plugins' names join the list */
    size_t len = strlen(inner.msg);
    if (len && inner.msg[len - 1] == ')')
        inner.msg[--len] = '\0';
    for (size_t i = 0; i < set->n && len < sizeof inner.msg; i++)
        len += (size_t)snprintf(inner.msg + len, sizeof inner.msg - len, ", %s", set->items[i].ops->name);
    if (len < sizeof inner.msg)
        snprintf(inner.msg + len, sizeof inner.msg - len, ")");
    if (err && !err->code)
        *err = inner;
    return rc;
}

const char *wk_broker_plugins_path(const WkBrokerPlugins *set, const WkBrokerOps *ops)
{
    for (size_t i = 0; set && i < set->n; i++)
        if (set->items[i].ops == ops)
            return set->items[i].path;
    return NULL;
}

void wk_broker_plugins_fini(WkBrokerPlugins *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++) {
        wk_dl_close(set->items[i].handle);
        free(set->items[i].path);
    }
    free(set->items);
    *set = (WkBrokerPlugins){0};
}
