/* SPDX-License-Identifier: Apache-2.0 */
/* strbuf.h — a growable string built with printf-style appends, for the
 * renderers that format tables, JSON and reports into one malloc'd string
 * (the library formats; only main prints). */
#ifndef WK_STRBUF_H
#define WK_STRBUF_H

#include <stddef.h>

typedef struct WkStrBuf {
    char *p;      /* NUL-terminated text, owned; NULL while empty */
    size_t n;     /* length without the NUL */
    size_t cap;   /* bytes allocated */
    int oom;      /* an append failed: the text is incomplete */
} WkStrBuf;

/** Append formatted text. After an allocation failure appends are ignored
 * and oom is set. */
void wk_strbuf_printf(WkStrBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Hand the text to the caller (who frees it), or NULL after an allocation
 * failure (the buffer is released) or when nothing was appended. b is reset. */
char *wk_strbuf_take(WkStrBuf *b);

#endif
