/* SPDX-License-Identifier: Apache-2.0 */
/* file.c — see file.h: inputs are opened with O_NONBLOCK (a FIFO without a
 * writer does not wait), checked with fstat, and only then read. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* fdopen, O_CLOEXEC */
#endif
#include "sim/core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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

const char *wk_file_next_line(const char **p, const char *end, const char **line_end)
{
    const char *start = *p, *eol = memchr(start, '\n', (size_t)(end - start));
    if (!eol)
        eol = end;
    const char *le = eol;
    if (le > start && le[-1] == '\r')
        le--;
    *line_end = le;
    *p = eol + 1;
    return start;
}

static void tmp_track(const char *tmp);

int wk_file_create_tmp(const char *path, char *tmp, size_t cap, WkError *err)
{
    int n = snprintf(tmp, cap, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= cap)
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "%s: the path is too long", path);
    /* no signal between the file's creation and its being remembered, so
     * wk_file_tmp_remove_on_signal's handler never misses it */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    int e = errno;
    if (fd >= 0)
        tmp_track(tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd >= 0)
        return fd;
    if (e == EEXIST || e == ELOOP)
        return wk_error_set(err, WK_E_IO, NULL, 0, 0,
                            "%s: cannot create: its temporary %s already exists (not made by this run; a "
                            "link there is never followed): remove it", path, tmp);
    return wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot create: %s", path, strerror(e));
}

/* ---- temporaries removed on a signal --------------------------------------------------------- */

/* The temporaries this process has open, so that a signal handler can
 * remove them: a handler can reach only file-scope state. A slot is
 * claimed by writing its name first and setting `used` last, so the
 * handler never reads a half-written name. Slots are few because a
 * command writes at most a handful of files at a time (export writes two). */
#define WK_TMP_SLOTS 16
#define WK_TMP_NAME 4096
static char tmp_names[WK_TMP_SLOTS][WK_TMP_NAME];
static volatile sig_atomic_t tmp_used[WK_TMP_SLOTS];

static void tmp_track(const char *tmp)
{
    size_t l = strlen(tmp);
    if (l >= WK_TMP_NAME)
        return;
    for (int i = 0; i < WK_TMP_SLOTS; i++)
        if (!tmp_used[i]) {
            memcpy(tmp_names[i], tmp, l + 1);
            tmp_used[i] = 1;
            return;
        }
}

void wk_file_tmp_done(const char *tmp)
{
    for (int i = 0; i < WK_TMP_SLOTS; i++)
        if (tmp_used[i] && strcmp(tmp_names[i], tmp) == 0)
            tmp_used[i] = 0;
}

/* The folder this process created for its output (export --format csv),
 * removed with the temporaries: one at a time, claimed as a slot is. */
static char made_dir[WK_TMP_NAME];
static volatile sig_atomic_t made_dir_used;

int wk_file_dir_track(const char *dir)
{
    size_t l = strlen(dir);
    if (l >= WK_TMP_NAME || made_dir_used)
        return -1;
    memcpy(made_dir, dir, l + 1);
    made_dir_used = 1;
    return 0;
}

void wk_file_dir_done(const char *dir)
{
    if (made_dir_used && strcmp(made_dir, dir) == 0)
        made_dir_used = 0;
}

static void on_fatal_signal(int sig)
{
    for (int i = 0; i < WK_TMP_SLOTS; i++)
        if (tmp_used[i])
            unlink(tmp_names[i]);
    if (made_dir_used)
        rmdir(made_dir); /* only when empty: nothing but the temporaries just removed was in it */
    static const char msg_int[] = "wanka: interrupted by SIGINT; no output written\n";
    static const char msg_term[] = "wanka: interrupted by SIGTERM; no output written\n";
    static const char msg_hup[] = "wanka: interrupted by SIGHUP; no output written\n";
    static const char msg_other[] = "wanka: interrupted by a signal; no output written\n";
    const char *m = sig == SIGINT ? msg_int : sig == SIGTERM ? msg_term : sig == SIGHUP ? msg_hup : msg_other;
    size_t n = sig == SIGINT ? sizeof msg_int : sig == SIGTERM ? sizeof msg_term : sig == SIGHUP ? sizeof msg_hup
                                                                                                 : sizeof msg_other;
    ssize_t w = write(STDERR_FILENO, m, n - 1);
    (void)w;
    _exit(128 + sig);
}

void wk_file_tmp_remove_on_signal(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* started with the signal ignored (nohup): keep it so */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int wk_file_commit_tmp(int fd, const char *tmp, const char *path, WkError *err)
{
    int rc = 0;
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) /* EINVAL: a file that cannot sync (a pipe) */
        rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
    if (rename(tmp, path) != 0 && rc == 0)
        rc = wk_error_set(err, WK_E_IO, NULL, 0, 0, "%s: cannot write: %s", path, strerror(errno));
    if (rc < 0)
        unlink(tmp);
    wk_file_tmp_done(tmp);
    return rc;
}
