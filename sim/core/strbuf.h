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

/** Append s as a JSON string: quoted, with '"' and '\\' escaped, newline as
 * \n and the other control characters (and DEL) as \u00XX; valid UTF-8
 * as it is, each invalid sequence as U+FFFD, so the text is always valid
 * JSON. s is borrowed; NULL appends "". */
void wk_strbuf_json_string(WkStrBuf *b, const char *s);

/** Append v as a JSON number with 17 significant digits (equal values give
 * identical text), or null when v is NaN or infinite. */
void wk_strbuf_json_number(WkStrBuf *b, double v);

/** Append s as one CSV field (RFC 4180): as it is, or in double quotes
 * with each '"' doubled when it holds a comma, quote, CR or LF. A field a
 * spreadsheet would read as a formula (first character = + - @, tab or CR;
 * not a signed number: wk_text_csv_risky) gets a single quote first; invalid UTF-8 is replaced by U+FFFD. NULL
 * appends nothing. */
void wk_strbuf_csv_field(WkStrBuf *b, const char *s);

/** Append s as LaTeX text: \ { } _ % & # $ ~ ^ escaped, and the few
 * non-ASCII signs the reports print in forms any LaTeX reads (— as ---,
 * − as $-$, ± as $\pm$, § as \S{}, · as $\cdot$, → as $\to$, ↓ as
 * $\downarrow$, … as \ldots{}, τ as $\tau$); other UTF-8 as it is.
 * NULL appends nothing. */
void wk_strbuf_latex(WkStrBuf *b, const char *s);

/** Hand the text to the caller (who frees it), or NULL after an allocation
 * failure (the buffer is released) or when nothing was appended. b is reset. */
char *wk_strbuf_take(WkStrBuf *b);

#endif
