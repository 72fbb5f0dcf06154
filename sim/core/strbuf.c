/* SPDX-License-Identifier: Apache-2.0 */
/* strbuf.c — growable printf-style string, and the JSON string and number
 * forms every JSON renderer shares. */
#include "sim/core/strbuf.h"
#include "sim/core/text.h"

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

/* s itself when it is valid UTF-8, else a copy (*owned, to free) with each
 * invalid sequence replaced by U+FFFD; NULL when out of memory. */
static const char *utf8_or_fixed(const char *s, char **owned)
{
    size_t len = strlen(s);
    *owned = NULL;
    if (wk_text_utf8_valid(s, len))
        return s;
    if (!(*owned = malloc(3 * len + 1)))
        return NULL;
    return wk_text_utf8_fix(s, *owned, 3 * len + 1);
}

void wk_strbuf_json_string(WkStrBuf *b, const char *s)
{
    char *owned = NULL;
    if (s && !(s = utf8_or_fixed(s, &owned)))
        s = "\xEF\xBF\xBD"; /* out of memory: the replacement character alone */
    wk_strbuf_printf(b, "\"");
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            wk_strbuf_printf(b, "\\%c", ch);
        else if (ch == '\n')
            wk_strbuf_printf(b, "\\n");
        else if (ch < 0x20 || ch == 0x7F)
            wk_strbuf_printf(b, "\\u%04x", ch);
        else
            wk_strbuf_printf(b, "%c", ch);
    }
    wk_strbuf_printf(b, "\"");
    free(owned);
}

void wk_strbuf_json_number(WkStrBuf *b, double v)
{
    if (!isfinite(v))
        wk_strbuf_printf(b, "null");
    else
        wk_strbuf_printf(b, "%.17g", v);
}

void wk_strbuf_csv_field(WkStrBuf *b, const char *s)
{
    if (!s)
        return;
    char *owned = NULL;
    if (!(s = utf8_or_fixed(s, &owned)))
        s = "\xEF\xBF\xBD";
    const char *lead = wk_text_csv_risky(s) ? "'" : ""; /* a formula is read as text */
    if (!strpbrk(s, ",\"\r\n")) {
        wk_strbuf_printf(b, "%s%s", lead, s);
    } else {
        wk_strbuf_printf(b, "\"%s", lead);
        for (const char *p = s; *p; p++)
            wk_strbuf_printf(b, *p == '"' ? "\"\"" : "%c", *p);
        wk_strbuf_printf(b, "\"");
    }
    free(owned);
}

void wk_strbuf_latex(WkStrBuf *b, const char *s)
{
    static const struct {
        const char *utf8, *tex;
    } signs[] = {
        {"\u2014", "---"},          {"\u2212", "$-$"},   {"\u00b1", "$\\pm$"},     {"\u00a7", "\\S{}"},
        {"\u00b7", "$\\cdot$"},     {"\u2192", "$\\to$"}, {"\u2193", "$\\downarrow$"}, {"\u2026", "\\ldots{}"},
        {"\u03c4", "$\\tau$"},
    };
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch >= 0x80) {
            size_t k = 0, nk = sizeof signs / sizeof signs[0];
            for (; k < nk; k++)
                if (strncmp(s, signs[k].utf8, strlen(signs[k].utf8)) == 0)
                    break;
            if (k < nk) {
                wk_strbuf_printf(b, "%s", signs[k].tex);
                s += strlen(signs[k].utf8) - 1;
                continue;
            }
            wk_strbuf_printf(b, "%c", ch);
        } else if (strchr("_%&#${}", ch)) {
            wk_strbuf_printf(b, "\\%c", ch);
        } else if (ch == '\\') {
            wk_strbuf_printf(b, "\\textbackslash{}");
        } else if (ch == '~') {
            wk_strbuf_printf(b, "\\textasciitilde{}");
        } else if (ch == '^') {
            wk_strbuf_printf(b, "\\textasciicircum{}");
        } else {
            wk_strbuf_printf(b, "%c", ch);
        }
    }
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
