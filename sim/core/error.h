/* SPDX-License-Identifier: Apache-2.0 */
/* error.h — wanka's error convention: functions that can fail return 0 or a
 * negative WK_E_* code and fill an optional WkError with where (file:line:col)
 * and a message. The library never prints and never exits; only main does. */
#ifndef WK_ERROR_H
#define WK_ERROR_H

#include "wanka/error.h"

/** Format err as "where: msg" (or "msg" when where is empty) into buf of
 * size n. Returns buf. */
const char *wk_error_format(const WkError *err, char *buf, size_t n);

/** Short name of a code: "out of memory", "invalid input", ... */
const char *wk_error_code_name(int code);

/** Exit status for a code: 2 for the user's input (INVAL, IO, RANGE,
 * NOTFOUND), 1 for internal errors and out of memory, 0 for WK_OK. */
int wk_error_exit_status(int code);

#endif
