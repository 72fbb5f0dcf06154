/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz.h — what the fuzz targets share: the libFuzzer entry points, and a
 * path that holds given bytes (a temporary file), for the readers that take
 * a file name. */
#ifndef WK_FUZZ_H
#define WK_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Replace the contents of the target's scratch file with data[0..size) and
 * return its path (static storage, the same path on every call; the suffix
 * is kept, e.g. ".h5"). Returns NULL when the file cannot be written. */
const char *wk_fuzz_file(const uint8_t *data, size_t size, const char *suffix);

/** The target's scratch directory (made on first use in $TMPDIR, else /tmp,
 * removed with its files at exit), or NULL when it cannot be made. */
const char *wk_fuzz_dir(void);

/** Write data[0..size) as the file `name` (no slash; at most 8 distinct
 * names) in wk_fuzz_dir(), replacing it. Returns 0, or -1 on any failure. */
int wk_fuzz_dir_file(const char *name, const uint8_t *data, size_t size);

#endif
