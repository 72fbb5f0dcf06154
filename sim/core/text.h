/* SPDX-License-Identifier: Apache-2.0 */
/* text.h — making untrusted text safe where it goes: a terminal (control
 * characters and invalid UTF-8 escaped, so a name or a CSV field cannot move
 * the cursor, retitle the window or hide a line), a UTF-8 store (invalid
 * bytes replaced), a CSV cell (a leading formula character neutralised).
 * Also the name of the plugin callback now running, for a time limit that
 * reports where a policy looped. */
#ifndef WK_TEXT_H
#define WK_TEXT_H

#include <stddef.h>
#include <stdio.h>

/** Copy s into buf (n bytes, n > 0; always terminated, cut at a whole
 * character) with every byte a terminal would act on escaped: C0 controls
 * and DEL as \n, \t, \r, \e or \xHH, C1 controls (U+0080..U+009F) as \u0080
 * style escapes, bytes of invalid UTF-8 as \xHH. Printable ASCII (a
 * backslash too) and valid UTF-8 otherwise stay as they are. s NULL is
 * written as "(null)". Returns buf. */
const char *wk_text_term(const char *s, char *buf, size_t n);

/** Write s to f as wk_text_term escapes it, of any length. s NULL: "(null)". */
void wk_text_fputs_term(const char *s, FILE *f);

/** As wk_text_fputs_term, but newlines are written as they are: a text of
 * many lines (a report, a resolved scenario) with names from a scenario. */
void wk_text_fputs_lines(const char *s, FILE *f);

/** 1 when s (len bytes) is valid UTF-8 (no overlong forms, no surrogates,
 * nothing above U+10FFFF), else 0. */
int wk_text_utf8_valid(const char *s, size_t len);

/** Copy s into buf (n bytes, n > 0; always terminated, cut at a whole
 * character) with each maximal invalid UTF-8 sequence replaced by U+FFFD
 * (EF BF BD). Returns buf. */
const char *wk_text_utf8_fix(const char *s, char *buf, size_t n);

/** 1 when a CSV cell holding s would be read as a formula by a spreadsheet
 * (it begins with '=', '+', '-', '@', a tab or a carriage return), else 0;
 * such a cell is written with a single quote first (the OWASP advice). A
 * signed number ("-8", "+1.5e3", "-8 %", "-3 ± 2 %": a sign, then digits
 * and only . e E + - space % ±) is data and not risky. */
int wk_text_csv_risky(const char *s);

/** The plugin callback now running in this process ("init", "on_submit",
 * ...), or NULL outside any: set by the hosts of scheduler and broker
 * policies around each call. Read from a signal handler, so a plain pointer
 * to static storage. */
extern const char *volatile wk_text_callback;

/** Enter callback name (static storage); returns the one it replaces, to be
 * restored with wk_text_callback_leave. */
const char *wk_text_callback_enter(const char *name);
void wk_text_callback_leave(const char *prev);

#endif
