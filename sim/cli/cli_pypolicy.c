/* SPDX-License-Identifier: Apache-2.0 */
/* cli_pypolicy.c — a scheduling policy written in Python (--plugin FILE.py):
 * the wanka executable cannot call Python, so it hands the whole command
 * line to python3 -m wanka, which loads libwanka.so with ctypes, installs
 * the loader of .py policies (models/sched/plugin.h) and runs the same
 * command in-process (python/wanka/__init__.py). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "wk_config.h"

static int ends_py(const char *s)
{
    size_t n = strlen(s);
    return n > 3 && strcmp(s + n - 3, ".py") == 0;
}

/* The Python policy argv gives (--plugin FILE.py; conformance FILE.py), or NULL. */
static const char *python_policy(int argc, char **argv)
{
    int conform = argc > 1 && strcmp(argv[1], "conformance") == 0;
    for (int i = 2; i < argc; i++) {
        if (conform && argv[i][0] != '-' && ends_py(argv[i]) && strcmp(argv[i - 1], "--broker-plugin") != 0)
            return argv[i];
        if (strcmp(argv[i], "--") == 0)
            return NULL;
        if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc && ends_py(argv[i + 1]))
            return argv[i + 1];
        if (strncmp(argv[i], "--plugin=", 9) == 0 && ends_py(argv[i] + 9))
            return argv[i] + 9;
    }
    return NULL;
}

/* buf = dir/name when it is readable, else NULL. */
static const char *readable(const char *dir, const char *name, char *buf, size_t n)
{
    if ((size_t)snprintf(buf, n, "%s/%s", dir, name) >= n)
        return NULL;
    return access(buf, R_OK) == 0 ? buf : NULL;
}

int wk_cli_py_reexec(int argc, char **argv)
{
    const char *py = python_policy(argc, argv);
    if (!py)
        return -1;
    /* the module: in the source tree, else where it was installed */
    const char *pydir = WK_PY_SOURCE_DIR;
    char buf[PATH_MAX + 64];
    if (!readable(pydir, "wanka/__init__.py", buf, sizeof buf))
        pydir = WK_PY_INSTALL_DIR;
    if (!readable(pydir, "wanka/__init__.py", buf, sizeof buf)) {
        fprintf(stderr, "wanka: %s: a Python policy needs the wanka Python module (looked in %s and %s)\n", py,
                WK_PY_SOURCE_DIR, WK_PY_INSTALL_DIR);
        return WK_CLI_EXIT_USAGE;
    }
    /* the library: beside this executable (a build tree), else installed */
    char self[PATH_MAX], lib[PATH_MAX + 64];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *libpath = NULL;
    if (len > 0) {
        self[len] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            libpath = readable(self, "libwanka.so", lib, sizeof lib);
        }
    }
    if (!libpath)
        libpath = readable(WK_LIB_INSTALL_DIR, "libwanka.so", lib, sizeof lib);
    if (!libpath) {
        fprintf(stderr, "wanka: %s: a Python policy needs libwanka.so (looked beside the wanka executable and in %s)\n",
                py, WK_LIB_INSTALL_DIR);
        return WK_CLI_EXIT_USAGE;
    }
    const char *old = getenv("PYTHONPATH");
    size_t n = strlen(pydir) + (old ? strlen(old) + 1 : 0) + 1;
    char *pp = malloc(n);
    char **av = malloc(((size_t)argc + 3) * sizeof *av);
    if (!pp || !av) {
        free(pp);
        free(av);
        fprintf(stderr, "wanka: %s: out of memory\n", py);
        return 1;
    }
    snprintf(pp, n, "%s%s%s", pydir, old && old[0] ? ":" : "", old && old[0] ? old : "");
    if (setenv("PYTHONPATH", pp, 1) != 0 || setenv("WANKA_LIB", libpath, 1) != 0) {
        fprintf(stderr, "wanka: %s: cannot set the environment: %s\n", py, strerror(errno));
        free(pp);
        free(av);
        return 1;
    }
    free(pp);
    av[0] = (char *)WK_PYTHON;
    av[1] = (char *)"-m";
    av[2] = (char *)"wanka";
    for (int i = 1; i < argc; i++)
        av[i + 2] = argv[i];
    av[argc + 2] = NULL;
    fflush(NULL);
    execv(WK_PYTHON, av);
    if (errno == ENOENT && !strchr(WK_PYTHON, '/'))
        execvp(WK_PYTHON, av);
    fprintf(stderr, "wanka: %s: a Python policy runs under %s, which cannot be started: %s\n", py, WK_PYTHON,
            strerror(errno));
    free(av);
    return WK_CLI_EXIT_USAGE;
}
