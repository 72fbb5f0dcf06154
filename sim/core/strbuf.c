/* SPDX-License-Identifier: Apache-2.0 */
/* strbuf.c — growable printf-style string, and the JSON string and number
 * forms every JSON renderer shares. */
#include "sim/core/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wk_strbuf_printf(WkStrBuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 1024) + (size_t)k;
        char *np = realloc(b->p, nc);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
}

void wk_strbuf_json_string(WkStrBuf *b, const char *s)
{
    wk_strbuf_printf(b, "\"");
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            wk_strbuf_printf(b, "\\%c", ch);
        else if (ch == '\n')
            wk_strbuf_printf(b, "\\n");
        else if (ch < 0x20)
            wk_strbuf_printf(b, "\\u%04x", ch);
        else
            wk_strbuf_printf(b, "%c", ch);
    }
    wk_strbuf_printf(b, "\"");
}

void wk_strbuf_json_number(WkStrBuf *b, double v)
{
    if (!isfinite(v))
        wk_strbuf_printf(b, "null");
    else
        wk_strbuf_printf(b, "%.17g", v);
}

char *wk_strbuf_take(WkStrBuf *b)
{
    char *p = b->p;
    if (b->oom) {
        free(p);
        p = NULL;
    }
    memset(b, 0, sizeof *b);
    return p;
}
