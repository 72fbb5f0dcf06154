/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read.c — the HDF5 trace reader's open and close (with the other
 * trace_read*.c files the reader, and with the writer the only files
 * including <hdf5.h>, through h5util.h): the file opened read-only under a
 * bound on the CPU time HDF5 may spend, then checked (trace_read_check.c).
 * HDF5's automatic error printing is off around every call. */
#include "sim/trace/trace_read_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- a bound on what the HDF5 library may spend opening a file ----------------- */

/* A crafted file can make the HDF5 library loop (found by fuzzing: a global
 * heap collection that H5HG_read never leaves while reading a string
 * attribute). Opening and checking a genuine trace takes milliseconds of
 * CPU, so a process that has spent WK_TRACE_OPEN_LIMIT_S seconds of CPU
 * time (user + system) inside open prints which file and exits with status
 * 2: a message instead of a hang. CPU time, not wall time: a loaded machine
 * cannot make a genuine open look like a loop, and SIGALRM stays the
 * caller's (libFuzzer's per-input timer is a SIGALRM interval timer, which
 * a wall-clock watch here used to take over). The profiling timer
 * (ITIMER_PROF, SIGPROF) is saved and restored around open.
 * WANKA_TRACE_OPEN_LIMIT (whole seconds, 1 to 3600) overrides the limit.
 * The handler may only use async-signal-safe calls. */
#define WK_TRACE_OPEN_LIMIT_S 20
static char watch_msg[1024];
static size_t watch_len;

static void watch_fire(int sig)
{
    (void)sig;
    ssize_t w = write(2, watch_msg, watch_len);
    (void)w;
    _exit(2);
}

typedef struct Watch {
    struct sigaction old;
    struct itimerval old_timer;
    int armed;
} Watch;

/* The limit in seconds: WK_TRACE_OPEN_LIMIT_S or WANKA_TRACE_OPEN_LIMIT. */
static unsigned watch_limit(void)
{
    unsigned limit = WK_TRACE_OPEN_LIMIT_S;
    const char *env = getenv("WANKA_TRACE_OPEN_LIMIT");
    if (env && env[0]) {
        char *end;
        long v = strtol(env, &end, 10);
        if (!*end && v >= 1 && v <= 3600)
            limit = (unsigned)v;
    }
    return limit;
}

static Watch watch_begin(const char *path)
{
    Watch w = {.armed = 0};
    unsigned limit = watch_limit();
    int n = snprintf(watch_msg, sizeof watch_msg,
                     "wanka: %s: the HDF5 library did not finish opening this file in %u s of CPU time; a damaged "
                     "or crafted trace can make it loop (not a wanka trace?)\n",
                     path, limit);
    watch_len = n < 0 ? 0 : (size_t)n < sizeof watch_msg ? (size_t)n : sizeof watch_msg - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = watch_fire;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, &w.old) == 0) {
        struct itimerval t = {.it_interval = {0, 0}, .it_value = {(time_t)limit, 0}};
        if (setitimer(ITIMER_PROF, &t, &w.old_timer) == 0)
            w.armed = 1;
        else
            sigaction(SIGPROF, &w.old, NULL);
    }
    return w;
}

static void watch_end(Watch *w)
{
    if (!w->armed)
        return;
    struct itimerval off = {.it_interval = {0, 0}, .it_value = {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    sigaction(SIGPROF, &w->old, NULL);
    if (w->old_timer.it_value.tv_sec || w->old_timer.it_value.tv_usec)
        setitimer(ITIMER_PROF, &w->old_timer, NULL);
}

static int open_checked(WkTraceRead **out, const char *path, WkError *err);

/* ---- the open tried first in a child process --------------------------------- */

/* HDF5 1.10 has a long tail of decoder bugs on crafted files (its CVE list;
 * three found here by the trace fuzzer, each now refused by a check of the
 * file's bytes, trace_read_ohdr.c): a NULL dereference or an over-read in
 * the library is not something a check of ours can rule out in general.
 * So the open and the whole check run first in a forked child with its
 * standard error closed: when the child ends normally (the file opened, or
 * was refused with an error), the open is repeated here and gives the same
 * result; when the child dies (a signal, or a sanitizer's exit), the file
 * is refused with a message naming it and the signal, and no HDF5 call is
 * made on it in this process. A CPU-time watch that fires in the child is
 * reported as it is in-process. WANKA_TRACE_PROBE=0 opens in-process only
 * (for debugging the library's behaviour on a file). Without fork (failure)
 * the open runs in-process. */
static int probe(const char *path, WkError *err)
{
    const char *env = getenv("WANKA_TRACE_PROBE");
    if (env && strcmp(env, "0") == 0)
        return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (devnull >= 0) {
            dup2(devnull, 2);
            dup2(devnull, 1);
        }
        WkTraceRead *r = NULL;
        WkError e;
        memset(&e, 0, sizeof e);
        if (open_checked(&r, path, &e) == 0)
            wk_trace_read_close(r);
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) /* the CPU-time watch fired */
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                            "%s: the HDF5 library did not finish opening this file in %u s of CPU time; a damaged "
                            "or crafted trace can make it loop (not a wanka trace?)",
                            path, watch_limit());
    if (WIFSIGNALED(status) &&
        (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGHUP))
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: interrupted while opening", path);
    if (WIFSIGNALED(status))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                            "%s: the HDF5 library crashed reading this file (signal %d, %s): a damaged or crafted "
                            "trace (not a wanka trace?)",
                            path, WTERMSIG(status), strsignal(WTERMSIG(status)));
    return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                        "%s: the HDF5 library failed reading this file (status %d): a damaged or crafted trace "
                        "(not a wanka trace?)",
                        path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int wk_trace_read_open(WkTraceRead **out, const char *path, WkError *err)
{
    no_exit_cleanup();
    if (!out || !path || !path[0])
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: no file name");
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISREG(st.st_mode)) {
        int rc = probe(path, err);
        if (rc < 0)
            return rc;
    }
    return open_checked(out, path, err);
}

/* The open itself: the file's kind, HDF5's open under the CPU-time watch,
 * the check (trace_read_check.c). */
static int open_checked(WkTraceRead **out, const char *path, WkError *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot open: %s", path, strerror(EISDIR));
    if (!S_ISREG(st.st_mode)) /* a FIFO would block the open below forever */
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: not a regular file (a trace is an HDF5 file)", path);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot open: %s", path, strerror(errno));
    fclose(fp);

    WkTraceRead *r = calloc(1, sizeof *r);
    size_t len = strlen(path);
    if (!r || !(r->path = malloc(len + 1))) {
        free(r);
        return wk_error_nomem(err, "trace");
    }
    memcpy(r->path, path, len + 1);
    r->file = H5I_INVALID_HID;
    r->bytes = (uint64_t)st.st_size;

    Watch watch = watch_begin(path);
    Quiet q = quiet_begin();
    int rc = 0;
#if H5_VERSION_GE(1, 12, 0)
    htri_t is_h5 = H5Fis_accessible(path, H5P_DEFAULT);
#else
    htri_t is_h5 = H5Fis_hdf5(path);
#endif
    if (is_h5 <= 0) {
        rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: not an HDF5 file (a wanka trace is HDF5)", path);
    } else {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
#if HAVE_FILE_LOCKING_PROP
            H5Pset_file_locking(fapl, 0, 1) < 0 ||
#endif
            (r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0)
            rc = wk_trace_read_io_fail(r, err, "cannot open");
        if (fapl >= 0)
            H5Pclose(fapl);
    }
    if (rc == 0)
        rc = wk_trace_read_check(r, err);
    quiet_end(q);
    watch_end(&watch);
    if (rc < 0) {
        wk_trace_read_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

void wk_trace_read_close(WkTraceRead *r)
{
    if (!r)
        return;
    if (r->file >= 0) {
        Quiet q = quiet_begin();
        H5Fclose(r->file);
        quiet_end(q);
    }
    free(r->metrics);
    free(r->path);
    free(r);
}

const char *wk_trace_read_path(const WkTraceRead *r)
{
    return r->path;
}

void wk_trace_read_version(const WkTraceRead *r, int *major, int *minor)
{
    if (major)
        *major = r->major;
    if (minor)
        *minor = r->minor;
}
