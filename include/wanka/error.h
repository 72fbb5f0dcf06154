/* SPDX-License-Identifier: Apache-2.0 */
/* wanka/error.h — wanka's error convention, public part (installed with
 * wanka/sched.h): functions that can fail return 0 or a negative WK_E_* code
 * and fill an optional WkError with where (file:line:col) and a message.
 * Self-contained: standard headers only. */
#ifndef WANKA_ERROR_H
#define WANKA_ERROR_H

#include <stdarg.h>
#include <stddef.h>

enum {
    WK_OK = 0,
    WK_E_NOMEM = -1,    /* allocation failed */
    WK_E_INVAL = -2,    /* bad input: scenario, option, CSV; user's to fix */
    WK_E_IO = -3,       /* file missing, unreadable, unwritable, disk full */
    WK_E_RANGE = -4,    /* a size or value outside its allowed range */
    WK_E_NOTFOUND = -5, /* a named thing (scheduler, SKU, stream) is unknown */
    WK_E_INTERNAL = -6, /* a broken invariant: a bug in wanka */
    WK_E_NOROOM = -7,   /* not an error of input: a request does not fit now
                           (fewer free GPUs than asked); callers decide */
};

#define WK_ERROR_WHERE_MAX 512
#define WK_ERROR_MSG_MAX 1024

typedef struct WkError {
    int code;                      /* WK_E_*, 0 when no error is recorded */
    char where[WK_ERROR_WHERE_MAX]; /* "file:line:col" or "file:line" or "" */
    char msg[WK_ERROR_MSG_MAX];     /* "key: what is wrong" */
} WkError;

/** Clear err (code 0, empty strings). err may be NULL. */
void wk_error_clear(WkError *err);

/** Record an error and return code (so callers can `return wk_error_set(...)`).
 * file may be NULL (then where is empty); line/col <= 0 are omitted from where.
 * The first error recorded wins: a later call on an err whose code is already
 * non-zero changes nothing and still returns code. err may be NULL. */
int wk_error_set(WkError *err, int code, const char *file, long line, long col,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/** Record WK_E_NOMEM with the message "WHAT: out of memory" and return it.
 * what names the structure that could not grow ("trace", "sweep index"). */
int wk_error_nomem(WkError *err, const char *what);

/** Like wk_error_set with a va_list. */
int wk_error_vset(WkError *err, int code, const char *file, long line, long col,
                  const char *fmt, va_list ap);

#endif
