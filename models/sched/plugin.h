/* SPDX-License-Identifier: Apache-2.0 */
/* plugin.h — scheduling policies loaded from shared objects: dlopen, the
 * exported table (WK_SCHED_PLUGIN_SYMBOL of wanka/sched.h), its ABI and
 * fields checked, and the lookup table of built-ins plus loaded plugins.
 * A set is owned by whoever runs the policies (a run, `wanka list`,
 * `wanka conformance`) and closed after every instance of them. Loading
 * runs no policy code but the exported function; init runs at
 * wk_sched_host_open. */
#ifndef WK_SCHED_PLUGIN_H
#define WK_SCHED_PLUGIN_H

#include <stddef.h>

#include "models/sched/sched.h"

typedef struct WkSchedPlugin {
    char *path;            /* as given (owned) */
    void *handle;          /* from dlopen (owned) */
    const WkSchedOps *ops; /* the shared object's table (borrowed from it) */
} WkSchedPlugin;

/* Loaded plugins and the table that names them. Zero-initialise. */
typedef struct WkSchedPlugins {
    WkSchedPlugin *items; /* owned */
    size_t n, cap;
    const WkSchedOps **table; /* owned: built-ins, then plugins, NULL-terminated */
} WkSchedPlugins;

/** Load the shared object at path into set: dlopen it (RTLD_NOW, so a
 * symbol wanka does not export fails here), call its WK_SCHED_PLUGIN_SYMBOL
 * function, check the table: abi == WK_SCHED_ABI, a name, init, on_submit,
 * on_release and queued present, the name not taken by a built-in or by
 * another plugin of the set (the same table loaded twice counts once).
 * Errors name path: WK_E_IO (dlopen failed: its dlerror text), WK_E_NOTFOUND
 * (no such symbol), WK_E_INVAL (NULL table, ABI mismatch with both numbers,
 * missing field, name clash). at (may be NULL) positions the error in the
 * scenario (its `plugins:` entry); otherwise where is path. On error the
 * set is unchanged. */
int wk_sched_plugins_add(WkSchedPlugins *set, const char *path, const WkNode *at, WkError *err);

/* Loads a policy written in another language (a path ending in ".py"):
 * returns its table (alive until the process ends; the same table for the
 * same file), or NULL with a one-line reason in why[0..n) naming what went
 * wrong (the file and line where known). */
typedef const WkSchedOps *(*WkSchedSourceLoader)(const char *path, char *why, size_t n);

/** Install the loader wk_sched_plugins_add uses for paths ending in ".py"
 * (NULL: none, the default in the wanka executable: such a path is refused
 * with WK_E_INVAL naming it and `wanka run --plugin FILE.py`). Called by
 * python/wanka (python3 -m wanka) through libwanka.so before any run; not
 * thread-safe, set it once before loading. The table it returns is checked
 * as a shared object's is; its handle is NULL. */
void wk_sched_plugins_set_source_loader(WkSchedSourceLoader fn);

/** Add the shared objects of a scenario's `plugins:` list (a sequence of
 * paths; NULL or null: none) to set, each path relative to dir (absolute
 * paths as they are). Errors are positioned at the list or its entry and
 * name the file (see wk_sched_plugins_add). */
int wk_sched_plugins_add_list(WkSchedPlugins *set, const WkNode *list, const char *dir, WkError *err);

/** The lookup table of set (built-ins first; NULL-terminated), for
 * wk_sched_host_lookup. Borrowed: valid until the next add or fini. */
const WkSchedOps *const *wk_sched_plugins_table(const WkSchedPlugins *set);

/** dlclose every plugin of set and free it; every instance of their
 * policies must be closed before. set may be NULL. */
void wk_sched_plugins_fini(WkSchedPlugins *set);

#endif
