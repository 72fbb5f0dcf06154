/* SPDX-License-Identifier: Apache-2.0 */
/* file.h — opening an input file safely: only a regular file is read (a
 * FIFO, terminal or device as a scenario, include or CSV trace would block
 * forever or never end), and the check is made without blocking; an
 * input's relative path resolved against the scenario's directory; and the
 * temporary an output is written through, never following a planted link. */
#ifndef WK_FILE_H
#define WK_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/core/error.h"

/** Open path for reading (binary) without blocking on a FIFO, and refuse
 * anything that is not a regular file before a byte is read. On success
 * returns 0, *out an open stream the caller closes, *size the file's size
 * in bytes (size may be NULL). Errors, positioned at path: WK_E_IO with
 * strerror when it cannot be opened or examined, and "not a regular
 * file (a FIFO); WHAT is read only from a regular file" (what: e.g. "a
 * scenario"). *out is NULL on error. */
int wk_file_open_regular(FILE **out, int64_t *size, const char *path, const char *what, WkError *err);

/** Read the regular file at path whole (opened as wk_file_open_regular
 * does, what naming it in messages) into *buf (malloc'd, NUL-terminated,
 * caller frees) and *len. A file of more than max bytes (also one that
 * grows past it while read) is refused before it is read whole: WK_E_RANGE
 * "WHAT larger than N MiB". Errors name path; WK_E_NOMEM, WK_E_IO. */
int wk_file_read_regular(const char *path, const char *what, int64_t max, char **buf, size_t *len, WkError *err);

/** Bytes of a UTF-8 byte-order mark at the start of p[0..len): 3 or 0.
 * Every CSV reader skips it (spreadsheets write one). */
size_t wk_file_bom_len(const char *p, size_t len);

/** A short name for the kind of file of a stat mode: "a directory", "a
 * FIFO", "a device", "a socket", "a regular file" or "not a file". */
const char *wk_file_kind(unsigned mode);

/** Resolve `path` against base_dir (absolute paths are kept; a NULL, empty
 * or "." base_dir keeps path as it is) into buf of n bytes. Returns buf, or
 * NULL when it does not fit. path and base_dir are borrowed. */
const char *wk_file_resolve(const char *base_dir, const char *path, char *buf, size_t n);

/** Create the temporary through which an output `path` is written (then
 * renamed over it): "<path>.tmp.<pid>", the name sim/cli's clean-up of a
 * killed run's leftovers knows, opened O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|
 * O_CLOEXEC with mode 0666 (the umask applies). A file, symbolic link or
 * FIFO already at that name is never opened, followed or truncated: the
 * call fails instead. tmp (cap bytes) receives the name. Returns the open
 * descriptor (the caller closes it and removes tmp on any later error), or
 * a negative WK_E_IO (WK_E_RANGE when the name does not fit) with a
 * message naming path. The name is remembered (up to 16 at a time) for
 * wk_file_tmp_remove_on_signal until wk_file_tmp_done or
 * wk_file_commit_tmp forgets it. */
int wk_file_create_tmp(const char *path, char *tmp, size_t cap, WkError *err);

/** The next line of a text held in [*p, end) (end > *p): returns its
 * start, sets *line_end to just past its last byte (a CR before the LF is
 * not part of it) and moves *p past its LF (to end + 1 on the last line
 * without one). The CSV readers' line splitting. */
const char *wk_file_next_line(const char **p, const char *end, const char **line_end);

/** Forget tmp (a name wk_file_create_tmp made): call it once the temporary
 * has been renamed or removed. A name not remembered is ignored. */
void wk_file_tmp_done(const char *tmp);

/** Finish an output written through its temporary: fsync fd (the caller
 * has flushed any stdio buffer and closes fd afterwards), rename tmp over
 * path, and forget tmp. Returns 0, or WK_E_IO naming path with the system's
 * reason (ENOSPC: "No space left on device"); on error tmp is removed. */
int wk_file_commit_tmp(int fd, const char *tmp, const char *path, WkError *err);

/** Remember dir, a folder this process has just created for its output,
 * for wk_file_tmp_remove_on_signal's handler: after the temporaries it
 * removes dir with rmdir (so only when empty). One folder at a time: 0, or
 * -1 when another is remembered or the name is longer than 4095 bytes (then
 * it is not removed on a signal). dir is copied. */
int wk_file_dir_track(const char *dir);

/** Forget dir (remembered by wk_file_dir_track): call it once the output is
 * complete in it, or the folder has been removed. Another name is
 * ignored. */
void wk_file_dir_done(const char *dir);

/** Install handlers for SIGINT, SIGTERM and SIGHUP (those not ignored at
 * start) that remove every remembered temporary (and the remembered folder
 * when it is then empty), print "wanka: interrupted
 * by SIGINT; no output written" and exit with 128 + the signal. For the
 * commands that write their output in one go (export, check --update),
 * where stopping at once is right; `run` stops at its next event instead. */
void wk_file_tmp_remove_on_signal(void);

#endif
