/* SPDX-License-Identifier: Apache-2.0 */
/* text.c — terminal, UTF-8 and CSV hygiene of untrusted text (text.h). */
#include "sim/core/text.h"

#include <stdint.h>
#include <string.h>

const char *volatile wk_text_callback = NULL;

const char *wk_text_callback_enter(const char *name)
{
    const char *prev = wk_text_callback;
    wk_text_callback = name;
    return prev;
}

void wk_text_callback_leave(const char *prev) { wk_text_callback = prev; }

/* Length of the valid UTF-8 character at s (at most left bytes), or 0 when
 * the bytes there are not one; *cp its code point. */
static size_t utf8_char(const unsigned char *s, size_t left, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1Fu, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0Fu, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (left < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

int wk_text_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_char(p + i, len - i, &cp);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

/* The escaped form of the character at s (k bytes, code point cp; k == 0:
 * the single invalid byte s[0]) into out (at least 16 bytes); its length. */
static size_t term_piece(const unsigned char *s, size_t k, uint32_t cp, char *out)
{
    static const char hex[] = "0123456789abcdef";
    if (!k) {
        out[0] = '\\', out[1] = 'x', out[2] = hex[s[0] >> 4], out[3] = hex[s[0] & 15];
        return 4;
    }
    if (cp < 0x20 || cp == 0x7F) {
        const char *e = cp == '\n' ? "\\n" : cp == '\t' ? "\\t" : cp == '\r' ? "\\r" : cp == 0x1B ? "\\e" : NULL;
        if (e) {
            memcpy(out, e, 2);
            return 2;
        }
        out[0] = '\\', out[1] = 'x', out[2] = hex[cp >> 4], out[3] = hex[cp & 15];
        return 4;
    }
    if (cp >= 0x80 && cp <= 0x9F) {
        memcpy(out, "\\u00", 4);
        out[4] = hex[cp >> 4], out[5] = hex[cp & 15];
        return 6;
    }
    memcpy(out, s, k);
    return k;
}

const char *wk_text_term(const char *s, char *buf, size_t n)
{
    if (!s)
        s = "(null)";
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), o = 0;
    uint32_t cp = 0;
    for (size_t i = 0; i < len;) {
        char piece[16];
        size_t k = utf8_char(p + i, len - i, &cp);
        size_t m = term_piece(p + i, k, cp, piece);
        if (o + m + 1 > n)
            break;
        memcpy(buf + o, piece, m);
        o += m;
        i += k ? k : 1;
    }
    buf[o] = '\0';
    return buf;
}

void wk_text_fputs_term(const char *s, FILE *f)
{
    if (!s)
        s = "(null)";
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    uint32_t cp = 0;
    for (size_t i = 0; i < len;) {
        char piece[16];
        size_t k = utf8_char(p + i, len - i, &cp);
        size_t m = term_piece(p + i, k, cp, piece);
        fwrite(piece, 1, m, f);
        i += k ? k : 1;
    }
}

void wk_text_fputs_lines(const char *s, FILE *f)
{
    if (!s)
        s = "(null)";
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    uint32_t cp = 0;
    for (size_t i = 0; i < len;) {
        if (p[i] == '\n') {
            fputc('\n', f);
            i++;
            continue;
        }
        char piece[16];
        size_t k = utf8_char(p + i, len - i, &cp);
        size_t m = term_piece(p + i, k, cp, piece);
        fwrite(piece, 1, m, f);
        i += k ? k : 1;
    }
}

const char *wk_text_utf8_fix(const char *s, char *buf, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), o = 0;
    uint32_t cp;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_char(p + i, len - i, &cp);
        if (k) {
            if (o + k + 1 > n)
                break;
            memcpy(buf + o, s + i, k);
            o += k;
            i += k;
            continue;
        }
        if (o + 3 + 1 > n)
            break;
        memcpy(buf + o, "\xEF\xBF\xBD", 3);
        o += 3;
        /* the maximal invalid sequence: this byte and the continuation bytes after it */
        i++;
        while (i < len && (p[i] & 0xC0) == 0x80)
            i++;
    }
    buf[o] = '\0';
    return buf;
}

int wk_text_csv_risky(const char *s)
{
    if (!s || !(s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r'))
        return 0;
    if (s[0] != '+' && s[0] != '-')
        return 1;
    /* a signed number ("-8", "+1.5e3", "-8 %", "-3 ± 2 %") is data, no formula: sign, digits with
     * at most one point, an exponent (e, its own sign, digits), then at most " ± number" and " %";
     * anything else ("-2+3", "-1-cmd|...") is a formula a spreadsheet would evaluate */
    const char *p = s + 1;
    for (int part = 0; part < 2; part++) {
        int digit = 0, point = 0;
        for (; (*p >= '0' && *p <= '9') || (*p == '.' && !point); p++) {
            point |= *p == '.';
            digit |= *p != '.';
        }
        if (!digit)
            return 1;
        if (*p == 'e' || *p == 'E') {
            p++;
            if (*p == '+' || *p == '-')
                p++;
            if (!(*p >= '0' && *p <= '9'))
                return 1;
            while (*p >= '0' && *p <= '9')
                p++;
        }
        if (part == 0 && strncmp(p, " \xc2\xb1 ", 4) == 0) /* " ± " */
            p += 4;
        else
            break;
    }
    if (*p == ' ')
        p++;
    if (*p == '%')
        p++;
    return *p != '\0';
}
