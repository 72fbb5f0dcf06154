/* SPDX-License-Identifier: Apache-2.0 */
/* plugin.c — policies from shared objects (plugin.h): dlopen, the exported
 * table, its checks, and the built-ins-plus-plugins lookup table. */
#include "models/sched/plugin.h"

#include "sim/core/dl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error about the plugin at path: positioned at the scenario's entry when
 * there is one (the message then names the file), else at path itself. */
static int plugin_error(const char *path, const WkNode *at, int code, WkError *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int plugin_error(const char *path, const WkNode *at, int code, WkError *err, const char *fmt, ...)
{
    char msg[WK_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at)
        return wk_node_error(at, code, err, "scheduler plugin %s: %s", path, msg);
    return wk_error_set(err, code, path, 0, 0, "scheduler plugin: %s", msg);
}

static int is_builtin_name(const char *name)
{
    for (const WkSchedOps *const *p = wk_sched_registry(); *p; p++)
        if (strcmp((*p)->name, name) == 0)
            return 1;
    return 0;
}

/* 1 when a policy name is 1-64 of [A-Za-z0-9._-]: it goes into a
 * scenario's `scheduler:`, a trace and a terminal as it is. */
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

/* The table's fields: NULL when they will do, else what is missing. */
static const char *missing_field(const WkSchedOps *ops)
{
    if (!ops->name || !ops->name[0])
        return "name";
    if (!ops->init)
        return "init";
    if (!ops->on_submit)
        return "on_submit";
    if (!ops->on_release)
        return "on_release";
    if (!ops->queued)
        return "queued";
    return NULL;
}

static int rebuild_table(WkSchedPlugins *set, WkError *err)
{
    size_t nb = 0;
    for (const WkSchedOps *const *p = wk_sched_registry(); *p; p++)
        nb++;
    const WkSchedOps **t = malloc((nb + set->n + 1) * sizeof *t);
    if (!t)
        return wk_error_nomem(err, "scheduler table");
    for (size_t i = 0; i < nb; i++)
        t[i] = wk_sched_registry()[i];
    for (size_t i = 0; i < set->n; i++)
        t[nb + i] = set->items[i].ops;
    t[nb + set->n] = NULL;
    free(set->table);
    set->table = t;
    return 0;
}

static WkSchedSourceLoader source_loader;

void wk_sched_plugins_set_source_loader(WkSchedSourceLoader fn) { source_loader = fn; }

/* 1 when path names a Python policy (ends in ".py"). */
static int is_python(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".py") == 0;
}

/* The table of a policy written in Python, from the source loader. */
static int python_table(const char *path, const WkNode *at, const WkSchedOps **ops, WkError *err)
{
    char why[WK_ERROR_MSG_MAX / 2] = "";
    if (!source_loader)
        return plugin_error(path, at, WK_E_INVAL, err,
                            "a Python policy is run by python3 -m wanka: give it with `wanka run --plugin FILE.py` "
                            "(see docs/writing-a-scheduler.md)");
    if (!(*ops = source_loader(path, why, sizeof why)))
        return plugin_error(path, at, WK_E_INVAL, err, "%s", why[0] ? why : "the Python policy did not load");
    return 0;
}

int wk_sched_plugins_add(WkSchedPlugins *set, const char *path, const WkNode *at, WkError *err)
{
    void *h = NULL, *sym;
    char why[WK_ERROR_MSG_MAX / 2];
    const WkSchedOps *ops = NULL;
    int rc = is_python(path) ? python_table(path, at, &ops, err) : 1;
    if (rc < 0)
        return rc;
    if (rc == 0)
        goto check;
    rc = wk_dl_open(path, WK_SCHED_PLUGIN_SYMBOL, &h, &sym, why, sizeof why);
    if (rc == WK_E_NOTFOUND)
        return plugin_error(path, at, WK_E_NOTFOUND, err,
                            "no symbol '" WK_SCHED_PLUGIN_SYMBOL "' (a policy exports "
                            "const WkSchedOps *" WK_SCHED_PLUGIN_SYMBOL "(void); see docs/writing-a-scheduler.md)");
    if (rc == WK_E_IO)
        return plugin_error(path, at, WK_E_IO, err, "cannot load: %s", why);
    if (rc < 0)
        return wk_error_nomem(err, "plugin path");
    WkSchedPluginFn fn;
    memcpy(&fn, &sym, sizeof fn); /* POSIX: a function's address comes back as void * */
    ops = fn();
check:;
    const char *miss = NULL;
    if (!ops)
        rc = plugin_error(path, at, WK_E_INVAL, err, WK_SCHED_PLUGIN_SYMBOL "() returned NULL");
    else if (ops->abi != WK_SCHED_ABI)
        rc = plugin_error(path, at, WK_E_INVAL, err, "ABI %d, this wanka speaks ABI %d: rebuild it against this wanka's wanka/sched.h",
                          ops->abi, WK_SCHED_ABI);
    else if ((miss = missing_field(ops)))
        rc = plugin_error(path, at, WK_E_INVAL, err, "its WkSchedOps has no %s", miss);
    else if (!name_ok(ops->name))
        rc = plugin_error(path, at, WK_E_INVAL, err,
                          "its policy name is not 1-64 letters, digits, '-', '_' or '.' (a name is written into "
                          "scenarios and traces)");
    else if (is_builtin_name(ops->name))
        rc = plugin_error(path, at, WK_E_INVAL, err, "policy '%s' has the name of a built-in scheduler", ops->name);
    for (size_t i = 0; rc == 0 && i < set->n; i++) {
        if (set->items[i].ops == ops) { /* the same object again: one entry */
            wk_dl_close(h);
            return 0;
        }
        if (strcmp(set->items[i].ops->name, ops->name) == 0)
            rc = plugin_error(path, at, WK_E_INVAL, err, "policy '%s' is also the name of plugin %s", ops->name,
                              set->items[i].path);
    }
    if (rc < 0) {
        wk_dl_close(h);
        return rc;
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 4;
        WkSchedPlugin *it = realloc(set->items, cap * sizeof *it);
        if (!it) {
            wk_dl_close(h);
            return wk_error_nomem(err, "scheduler plugins");
        }
        set->items = it;
        set->cap = cap;
    }
    char *p = malloc(strlen(path) + 1);
    if (!p) {
        wk_dl_close(h);
        return wk_error_nomem(err, "scheduler plugins");
    }
    memcpy(p, path, strlen(path) + 1);
    set->items[set->n++] = (WkSchedPlugin){.path = p, .handle = h, .ops = ops};
    if ((rc = rebuild_table(set, err)) < 0) {
        set->n--;
        free(p);
        wk_dl_close(h);
    }
    return rc;
}

int wk_sched_plugins_add_list(WkSchedPlugins *set, const WkNode *pl, const char *dir, WkError *err)
{
    if (!pl || pl->type == WK_NODE_NULL)
        return 0;
    if (pl->type != WK_NODE_SEQ)
        return wk_node_error(pl, WK_E_INVAL, err, "expected a list of shared-object paths");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < pl->nkids; i++) {
        const WkNode *it = pl->kids[i];
        if (it->type != WK_NODE_SCALAR || !it->str[0])
            return wk_node_error(it, WK_E_INVAL, err, "expected a shared-object path");
        char *path = wk_dl_path(dir, it->str);
        if (!path)
            return wk_error_nomem(err, "plugin path");
        rc = wk_sched_plugins_add(set, path, it, err);
        free(path);
    }
    return rc;
}

const WkSchedOps *const *wk_sched_plugins_table(const WkSchedPlugins *set)
{
    return set && set->table ? set->table : wk_sched_registry();
}

void wk_sched_plugins_fini(WkSchedPlugins *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++) {
        wk_dl_close(set->items[i].handle);
        free(set->items[i].path);
    }
    free(set->items);
    free(set->table);
    *set = (WkSchedPlugins){0};
}
