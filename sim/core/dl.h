/* SPDX-License-Identifier: Apache-2.0 */
/* dl.h — loading a plugin's shared object and finding its entry symbol
 * (dlopen, dlsym), for every kind of plugin (schedulers, brokers). What
 * the entry returns and how it is checked is the kind's business. */
#ifndef WK_DL_H
#define WK_DL_H

#include <stddef.h>

#include "sim/core/error.h"

/** Load the shared object at path (a path without '/' is taken as ./path:
 * files only, never a search of the library path) with RTLD_NOW |
 * RTLD_LOCAL, so a symbol wanka does not export fails here, and find
 * symbol in it. Returns 0 with *handle (close it with wk_dl_close) and
 * *sym; else why[0..n) says what went wrong and the return is WK_E_IO
 * (cannot load: dlerror's text), WK_E_NOTFOUND (no such symbol; the object
 * is closed again) or WK_E_NOMEM. Nothing runs but the object's
 * constructors. */
int wk_dl_open(const char *path, const char *symbol, void **handle, void **sym, char *why, size_t n);

/** Close a handle of wk_dl_open. NULL is a no-op. */
void wk_dl_close(void *handle);

/** A plugin's init failed with rc, err holding its own error (or none):
 * say which file it came from. An error positioned in the scenario (a
 * parameter) stays there with " (WHAT of KIND PATH)" appended; otherwise
 * it is placed at path as "KIND: init of WHAT failed: MSG" (or "(code N,
 * no message)"). kind: e.g. "scheduler plugin"; what: e.g. "policy 'x'".
 * Returns the error's code (rc when err is NULL). */
int wk_dl_init_failed(WkError *err, int rc, const char *path, const char *kind, const char *what);

/** rel joined to dir ("dir/rel"), or rel itself when it is absolute; dir
 * NULL or "" is ".". Returns a string the caller frees, NULL when out of
 * memory. */
char *wk_dl_path(const char *dir, const char *rel);

#endif
