/* SPDX-License-Identifier: Apache-2.0 */
/* file.c — see file.h: inputs are opened with O_NONBLOCK (a FIFO without a
 * writer does not wait), checked with fstat, and only then read. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* fdopen, O_CLOEXEC */
#endif
#include "sim/core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *wk_file_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket" : "not a file";
}

int wk_file_open_regular(FILE **out, int64_t *size, const char *path, const char *what, WkError *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return wk_error_set(err, WK_E_IO, path, 0, 0, "%s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return wk_error_set(err, WK_E_IO, path, 0, 0, "%s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return wk_error_set(err, WK_E_IO, path, 0, 0, "not a regular file (%s); %s is read only from a regular file",
                            wk_file_kind((unsigned)st.st_mode), what);
    }
    int fl = fcntl(fd, F_GETFL);
    FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return wk_error_set(err, WK_E_IO, path, 0, 0, "%s", strerror(e));
    }
    if (size)
        *size = (int64_t)st.st_size;
    *out = f;
    return 0;
}

int wk_file_read_regular(const char *path, const char *what, int64_t max, char **buf, size_t *len, WkError *err)
{
    FILE *f = NULL;
    int64_t size = 0;
    *buf = NULL;
    *len = 0;
    int rc = wk_file_open_regular(&f, &size, path, what, err);
    if (rc < 0)
        return rc;
    if (size > max) {
        fclose(f);
        return wk_error_set(err, WK_E_RANGE, path, 0, 0, "%s larger than %lld MiB (%lld bytes; docs/limits.md)", what,
                            (long long)(max >> 20), (long long)size);
    }
    /* one byte more than the limit tells a file that grew past it */
    size_t cap = (size_t)size + 1;
    char *b = malloc(cap + 1);
    if (!b) {
        fclose(f);
        return wk_error_set(err, WK_E_NOMEM, path, 0, 0, "out of memory reading %s", what);
    }
    size_t n = 0, got;
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if ((int64_t)n > max) {
            free(b);
            fclose(f);
            return wk_error_set(err, WK_E_RANGE, path, 0, 0, "%s larger than %lld MiB (docs/limits.md)", what,
                                (long long)(max >> 20));
        }
        if (n == cap) { /* it grew: on, up to one byte past the limit */
            size_t nc = (int64_t)(2 * cap) > max ? (size_t)max + 1 : 2 * cap;
            char *nb = realloc(b, nc + 1);
            if (!nb) {
                free(b);
                fclose(f);
                return wk_error_set(err, WK_E_NOMEM, path, 0, 0, "out of memory reading %s", what);
            }
            b = nb;
            cap = nc;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return wk_error_set(err, WK_E_IO, path, 0, 0, "cannot read %s", what);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

size_t wk_file_bom_len(const char *p, size_t len)
{
    return len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

const char *wk_file_resolve(const char *base_dir, const char *path, char *buf, size_t n)
{
    int len;
    if (path[0] == '/' || !base_dir || !base_dir[0] || strcmp(base_dir, ".") == 0)
        len = snprintf(buf, n, "%s", path);
    else
        len = snprintf(buf, n, "%s/%s", base_dir, path);
    return (len < 0 || (size_t)len >= n) ? NULL : buf;
}

int wk_file_create_tmp(const char *path, char *tmp, size_t cap, WkError *err)
{
    int n = snprintf(tmp, cap, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= cap)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "%s: the path is too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0)
        return fd;
    int e = errno;
    if (e == EEXIST || e == ELOOP)
        return wk_error_set(err, WK_E_IO, NULL, 0, 0,
                            "%s: cannot create: its temporary %s already exists (not made by this run; a "
                            "link there is never followed): remove it", path, tmp);
    return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot create: %s", path, strerror(e));
}
