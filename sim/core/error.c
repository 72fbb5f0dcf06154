/* SPDX-License-Identifier: Apache-2.0 */
/* error.c — filling and formatting WkError. */
#include "sim/core/error.h"

#include <stdio.h>
#include <string.h>

void wk_error_clear(WkError *err)
{
    if (!err)
        return;
    err->code = 0;
    err->where[0] = '\0';
    err->msg[0] = '\0';
}

int wk_error_vset(WkError *err, int code, const char *file, long line, long col,
                  const char *fmt, va_list ap)
{
    if (!err || err->code != 0)
        return code;
    err->code = code;
    err->where[0] = '\0';
    if (file) {
        if (line > 0 && col > 0)
            snprintf(err->where, sizeof err->where, "%s:%ld:%ld", file, line, col);
        else if (line > 0)
            snprintf(err->where, sizeof err->where, "%s:%ld", file, line);
        else
            snprintf(err->where, sizeof err->where, "%s", file);
    }
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

int wk_error_set(WkError *err, int code, const char *file, long line, long col,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = wk_error_vset(err, code, file, line, col, fmt, ap);
    va_end(ap);
    return rc;
}

const char *wk_error_format(const WkError *err, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    if (!err || err->code == 0)
        snprintf(buf, n, "no error");
    else if (err->where[0])
        snprintf(buf, n, "%s: %s", err->where, err->msg);
    else
        snprintf(buf, n, "%s", err->msg);
    return buf;
}

int wk_error_nomem(WkError *err, const char *what)
{
    return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "%s: out of memory", what ? what : "wanka");
}

const char *wk_error_code_name(int code)
{
    switch (code) {
    case WK_OK: return "ok";
    case WK_E_NOMEM: return "out of memory";
    case WK_E_INVAL: return "invalid input";
    case WK_E_IO: return "input/output error";
    case WK_E_RANGE: return "value out of range";
    case WK_E_NOTFOUND: return "not found";
    case WK_E_INTERNAL: return "internal error";
    case WK_E_NOROOM: return "no room";
    default: return "unknown error";
    }
}

int wk_error_exit_status(int code)
{
    switch (code) {
    case WK_OK: return 0;
    case WK_E_INVAL:
    case WK_E_IO:
    case WK_E_RANGE:
    case WK_E_NOTFOUND: return 2;
    default: return 1;
    }
}
