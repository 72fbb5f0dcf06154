/* SPDX-License-Identifier: Apache-2.0 */
/* h5util.h — internal to sim/trace's two HDF5 adapters, the writer (trace.c,
 * trace_attr.c, trace_table.c, through trace_impl.h) and the reader
 * (trace_read*.c, through trace_read_impl.h), the only files that may
 * include it: HDF5's automatic error printing switched off around a call,
 * the library's exit-time cleanup turned off, and a feature test of the
 * HDF5 version. */
#ifndef WK_H5UTIL_H
#define WK_H5UTIL_H

#include <hdf5.h>

/* H5Pset_file_locking exists from 1.10.7 on the 1.10 branch and from 1.12.1. */
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
#define HAVE_FILE_LOCKING_PROP 1
#else
#define HAVE_FILE_LOCKING_PROP 0
#endif

/* The caller's automatic error handler, saved by quiet_begin. */
typedef struct Quiet {
    H5E_auto2_t func;
    void *data;
} Quiet;

/* Switch HDF5's automatic error printing off, remembering the caller's. */
static inline Quiet quiet_begin(void)
{
    Quiet q = {NULL, NULL};
    if (H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data) < 0) {
        q.func = NULL;
        q.data = NULL;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return q;
}

/* Restore the handler quiet_begin saved. */
static inline void quiet_end(Quiet q)
{
    H5Eset_auto2(H5E_DEFAULT, q.func, q.data);
}

/* HDF5 1.10 crashes at exit (H5_term_library) after a failed H5Fclose,
 * HDFFV-11052, and a file-size limit (RLIMIT_FSIZE) makes even a close
 * diverted to a sink fail, since a memfd obeys that limit too. Every file
 * wanka opens it also closes, so the library's exit-time cleanup is not
 * needed: turn it off before the library starts (after that the call
 * changes nothing). */
static inline void no_exit_cleanup(void)
{
    (void)H5dont_atexit();
}

#endif
