/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_file.c — the scratch file of a fuzz target: a real temporary file
 * (in $TMPDIR, else /tmp) removed at exit. Not a memfd reached as
 * /proc/self/fd/N: HDF5 1.10 cannot open that path, so every trace input
 * stopped at open and the trace target tested nothing. */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* mkstemps */
#endif
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int scratch_fd = -1;
static char scratch_path[256];
static char scratch_tmp[256]; /* the temporary file to remove at exit, if any */

static void scratch_remove(void)
{
    if (scratch_tmp[0])
        unlink(scratch_tmp);
}

static int scratch_open(const char *suffix)
{
    const char *dir = getenv("TMPDIR");
    snprintf(scratch_tmp, sizeof scratch_tmp, "%s/wanka-fuzz-XXXXXX%s", dir && dir[0] ? dir : "/tmp", suffix);
    scratch_fd = mkstemps(scratch_tmp, (int)strlen(suffix));
    if (scratch_fd < 0) {
        scratch_tmp[0] = '\0';
        return -1;
    }
    snprintf(scratch_path, sizeof scratch_path, "%s", scratch_tmp);
    atexit(scratch_remove);
    return 0;
}

const char *wk_fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    if (scratch_fd < 0 && scratch_open(suffix ? suffix : "") < 0)
        return NULL;
    if (ftruncate(scratch_fd, 0) != 0)
        return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(scratch_fd, data + done, size - done, (off_t)done);
        if (w <= 0)
            return NULL;
        done += (size_t)w;
    }
    return scratch_path;
}

static char scratch_dir[256];       /* the target's scratch directory, if made */
static char scratch_names[8][64];   /* files written in it, removed at exit */
static int scratch_nnames;

static void scratch_dir_remove(void)
{
    char p[1024];
    for (int i = 0; i < scratch_nnames; i++) {
        snprintf(p, sizeof p, "%s/%s", scratch_dir, scratch_names[i]);
        unlink(p);
    }
    rmdir(scratch_dir);
}

const char *wk_fuzz_dir(void)
{
    if (!scratch_dir[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(scratch_dir, sizeof scratch_dir, "%s/wanka-fuzzd-XXXXXX", dir && dir[0] ? dir : "/tmp");
        if (!mkdtemp(scratch_dir)) {
            scratch_dir[0] = '\0';
            return NULL;
        }
        atexit(scratch_dir_remove);
    }
    return scratch_dir;
}

int wk_fuzz_dir_file(const char *name, const uint8_t *data, size_t size)
{
    if (!wk_fuzz_dir() || strlen(name) >= sizeof scratch_names[0])
        return -1;
    int known = 0;
    for (int i = 0; i < scratch_nnames; i++)
        known |= strcmp(scratch_names[i], name) == 0;
    if (!known) {
        if (scratch_nnames == (int)(sizeof scratch_names / sizeof scratch_names[0]))
            return -1;
        snprintf(scratch_names[scratch_nnames++], sizeof scratch_names[0], "%s", name);
    }
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", scratch_dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    int rc = fclose(f);
    return (w == size && rc == 0) ? 0 : -1;
}
