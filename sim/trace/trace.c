/* SPDX-License-Identifier: Apache-2.0 */
/* trace.c — the HDF5 trace writer's file (with trace_attr.c and
 * trace_table.c the writer, and with the reader the only files including
 * <hdf5.h>, through h5util.h): written to "<path>.tmp.<pid>", its open
 * tables finished and the file renamed by close. HDF5's automatic error
 * printing is off around every call. */
#include "sim/trace/trace_impl.h"
#include "sim/core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- open / close ------------------------------------------------------------ */

static void trace_free(WkTrace *t)
{
    if (t->tmp_fd >= 0)
        close(t->tmp_fd);
    free(t->path);
    free(t->tmp_path);
    free(t);
}

/* 1 when the file HDF5 has open is the one wk_file_create_tmp created
 * exclusively (same device and inode as t->tmp_fd). */
static int same_file(WkTrace *t)
{
    void *handle = NULL;
    struct stat a, b;
    if (H5Fget_vfd_handle(t->file, H5P_DEFAULT, &handle) < 0 || !handle)
        return 0;
    return fstat(*(int *)handle, &a) == 0 && fstat(t->tmp_fd, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino; /* the sec2 driver's handle is its descriptor */
}

int wk_trace_open(WkTrace **out, const char *path, WkError *err)
{
    no_exit_cleanup();
    if (!out || !path || !path[0])
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: no output path");
    *out = NULL;
    WkTrace *t = calloc(1, sizeof *t);
    if (!t)
        return wk_error_nomem(err, "trace");
    t->file = H5I_INVALID_HID;
    t->gcpl = H5I_INVALID_HID;
    t->tmp_fd = -1;
    size_t len = strlen(path);
    size_t tmp_cap = len + 32;
    t->path = malloc(len + 1);
    t->tmp_path = malloc(tmp_cap);
    if (!t->path || !t->tmp_path) {
        trace_free(t);
        return wk_error_nomem(err, "trace");
    }
    memcpy(t->path, path, len + 1);
    /* Create the file ourselves first: a clean errno for the message, and
     * O_EXCL|O_NOFOLLOW so we never clobber, follow (or later remove) a file
     * we did not make. */
    int fd = wk_file_create_tmp(path, t->tmp_path, tmp_cap, err);
    if (fd < 0) {
        trace_free(t);
        return fd;
    }
    t->tmp_fd = fd;
    /* HDF5 opens by name: give it the name of our descriptor
     * (/proc/self/fd/N names that very file, whatever happens to tmp_path
     * meanwhile), else tmp_path; either way same_file checks it below. */
    char byfd[64];
    const char *h5name = t->tmp_path;
    struct stat mine, via;
    snprintf(byfd, sizeof byfd, "/proc/self/fd/%d", fd);
    if (fstat(fd, &mine) == 0 && stat(byfd, &via) == 0 && via.st_dev == mine.st_dev && via.st_ino == mine.st_ino)
        h5name = byfd;

    Quiet q = quiet_begin();
    int rc = 0;
    /* sec2 (wk_trace_divert relies on it), strong close, and file locking
     * where the file system supports it without failing where it doesn't. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = H5Pcreate(H5P_FILE_CREATE);
    /* The 1.8 file format: an attribute (the scenario's text) may pass the
     * 64 KiB of an object-header message and go to dense storage. Its
     * object headers would carry times: none, so equal runs give equal bytes. */
    if (fapl < 0 || fcpl < 0 || H5Pset_fapl_sec2(fapl) < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 || H5Pset_obj_track_times(fcpl, 0) < 0 ||
#if HAVE_FILE_LOCKING_PROP
        H5Pset_file_locking(fapl, 1, 1) < 0 ||
#endif
        (t->file = H5Fcreate(h5name, H5F_ACC_TRUNC, fcpl, fapl)) < 0 ||
        (t->gcpl = H5Pcreate(H5P_GROUP_CREATE)) < 0 || H5Pset_obj_track_times(t->gcpl, 0) < 0)
        rc = wk_trace_io_fail(t, err, "cannot create");
    if (rc == 0 && !same_file(t))
        rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot create: its temporary %s was replaced while it "
                          "was being opened (another process in this directory?)", path, t->tmp_path);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (rc < 0) {
        if (t->gcpl >= 0)
            H5Pclose(t->gcpl);
        if (t->file >= 0)
            H5Fclose(t->file);
        unlink(t->tmp_path);
        wk_file_tmp_done(t->tmp_path);
        trace_free(t);
    } else {
        *out = t;
    }
    quiet_end(q);
    return rc;
}

/* Write the file to disk before the rename makes it visible (through the
 * descriptor that created it: the same file, never a name). */
static int sync_file(int fd)
{
    return fsync(fd) != 0 ? -errno : 0;
}

int wk_trace_close(WkTrace *t, WkError *err)
{
    if (!t)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "trace: close without a trace");
    Quiet q = quiet_begin();
    int rc = 0;
    while (t->tables) {
        int r = wk_trace_table_finish(t->tables, err);
        if (r < 0 && rc == 0)
            rc = r;
    }
    if (rc == 0 && t->failed)
        rc = wk_trace_failed_earlier(t, err, "cannot close", t->tmp_path);
    if (rc == 0 && H5Fflush(t->file, H5F_SCOPE_LOCAL) < 0)
        rc = wk_trace_io_fail(t, err, "cannot flush");
    if (rc == 0) {
        ssize_t nopen = H5Fget_obj_count(t->file, H5F_OBJ_DATASET | H5F_OBJ_GROUP |
                                                      H5F_OBJ_DATATYPE | H5F_OBJ_ATTR);
        if (nopen != 0)
            rc = wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0,
                              "%s: %zd HDF5 objects still open at close", t->path, nopen);
    }
    if (rc < 0)
        wk_trace_divert(t);
    H5Pclose(t->gcpl);
    if (H5Fclose(t->file) < 0 && rc == 0)
        rc = wk_trace_io_fail(t, err, "cannot close");
    if (rc == 0) {
        int e = sync_file(t->tmp_fd);
        if (e < 0)
            rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot sync %s: %s", t->path,
                              t->tmp_path, strerror(-e));
    }
    struct stat named, mine;
    if (rc == 0 && (lstat(t->tmp_path, &named) != 0 || fstat(t->tmp_fd, &mine) != 0 ||
                    named.st_dev != mine.st_dev || named.st_ino != mine.st_ino)) {
        rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: its temporary %s was removed or replaced during the "
                          "run (another process in this directory?); nothing written", t->path, t->tmp_path);
        wk_file_tmp_done(t->tmp_path);
        quiet_end(q);
        trace_free(t);
        return rc;
    }
    if (rc == 0 && rename(t->tmp_path, t->path) != 0) {
        int e = errno;
        rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot rename %s to it: %s", t->path,
                          t->tmp_path, strerror(e));
    }
    if (rc < 0)
        unlink(t->tmp_path);
    wk_file_tmp_done(t->tmp_path);
    quiet_end(q);
    trace_free(t);
    return rc;
}

void wk_trace_abort(WkTrace *t)
{
    if (!t)
        return;
    Quiet q = quiet_begin();
    t->failed = true; /* nothing more is written: tables are dropped, not flushed */
    wk_trace_divert(t);
    while (t->tables)
        wk_trace_table_finish(t->tables, NULL);
    H5Pclose(t->gcpl);
    H5Fclose(t->file);
    unlink(t->tmp_path);
    wk_file_tmp_done(t->tmp_path);
    quiet_end(q);
    trace_free(t);
}
