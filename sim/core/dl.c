/* SPDX-License-Identifier: Apache-2.0 */
/* dl.c — a plugin's shared object: dlopen, its entry symbol, paths (dl.h). */
#include "sim/core/dl.h"
#include "sim/core/file.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int wk_dl_open(const char *path, const char *symbol, void **handle, void **sym, char *why, size_t n)
{
    *handle = *sym = NULL;
    if (n)
        why[0] = '\0';
    char *dup = NULL;
    if (!strchr(path, '/')) {
        if (!(dup = wk_dl_path(".", path))) {
            snprintf(why, n, "out of memory");
            return WK_E_NOMEM;
        }
    }
    struct stat st; /* a FIFO or device would block dlopen's read forever: only a regular file is opened */
    if (stat(dup ? dup : path, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(dup);
        snprintf(why, n, "not a regular file (%s); a plugin is loaded only from a regular file",
                 wk_file_kind((unsigned)st.st_mode));
        return WK_E_IO;
    }
    dlerror();
    void *h = dlopen(dup ? dup : path, RTLD_NOW | RTLD_LOCAL);
    free(dup);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, n, "%s", e ? e : "dlopen failed");
        return WK_E_IO;
    }
    dlerror();
    void *s = dlsym(h, symbol);
    const char *e = dlerror();
    if (e || !s) {
        snprintf(why, n, "%s", e ? e : "no such symbol");
        dlclose(h);
        return WK_E_NOTFOUND;
    }
    *handle = h;
    *sym = s;
    return 0;
}

void wk_dl_close(void *handle)
{
    if (handle)
        dlclose(handle);
}

int wk_dl_init_failed(WkError *err, int rc, const char *path, const char *kind, const char *what)
{
    if (!err)
        return rc;
    WkError inner = *err;
    wk_error_clear(err);
    if (!inner.code)
        return wk_error_set(err, rc, path, 0, 0, "%s: init of %s failed (code %d, no message)", kind, what, rc);
    if (inner.where[0]) { /* positioned in the scenario (a parameter): keep it there */
        *err = inner;
        size_t len = strlen(err->msg);
        snprintf(err->msg + len, sizeof err->msg - len, " (%s of %s %s)", what, kind, path);
        return inner.code;
    }
    return wk_error_set(err, inner.code, path, 0, 0, "%s: init of %s failed: %s", kind, what, inner.msg);
}

char *wk_dl_path(const char *dir, const char *rel)
{
    if (!dir || !dir[0])
        dir = ".";
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (!p)
        return NULL;
    if (rel[0] == '/')
        snprintf(p, n, "%s", rel);
    else
        snprintf(p, n, "%s/%s", dir, rel);
    return p;
}
