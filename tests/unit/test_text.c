/* SPDX-License-Identifier: Apache-2.0 */
/* test_text.c — untrusted text where it goes (sim/core/text.h): escaped for
 * a terminal, made valid UTF-8 for the trace and JSON, neutralised in a CSV
 * cell; and an export that runs out of disk space says so. */
#include "tests/unit/testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/export_impl.h"
#include "sim/core/strbuf.h"
#include "sim/core/text.h"

static void test_term_escapes_controls(void **state)
{
    (void)state;
    char buf[256];
    /* ESC, CR, BEL, DEL, a C1 CSI (U+009B), an invalid byte; UTF-8 kept */
    assert_string_equal(wk_text_term("a\x1b[31mb\rc\ad\x7f" "e\xc2\x9b" "f\xff" "caf\xc3\xa9", buf, sizeof buf),
                        "a\\e[31mb\\rc\\x07d\\x7fe\\u009bf\\xffcaf\xc3\xa9");
    assert_string_equal(wk_text_term("path\\name\n", buf, sizeof buf), "path\\name\\n");
    assert_string_equal(wk_text_term(NULL, buf, sizeof buf), "(null)");
    /* cut at a whole escape, always terminated */
    assert_string_equal(wk_text_term("ab\x1b", buf, 4), "ab");
    char small[2];
    assert_string_equal(wk_text_term("\xc3\xa9", small, sizeof small), "");
}

static void test_utf8(void **state)
{
    (void)state;
    assert_true(wk_text_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14));
    assert_false(wk_text_utf8_valid("caf\xe9", 4));         /* Latin-1 */
    assert_false(wk_text_utf8_valid("\xc0\xaf", 2));        /* overlong '/' */
    assert_false(wk_text_utf8_valid("\xed\xa0\x80", 3));    /* a surrogate */
    assert_false(wk_text_utf8_valid("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
    assert_false(wk_text_utf8_valid("\xe2\x82", 2));        /* cut short */
    char buf[64];
    assert_string_equal(wk_text_utf8_fix("caf\xe9.yaml", buf, sizeof buf), "caf\xef\xbf\xbd.yaml");
    assert_string_equal(wk_text_utf8_fix("a\xe2\x82" "b", buf, sizeof buf), "a\xef\xbf\xbd" "b");
    assert_string_equal(wk_text_utf8_fix("ok \xc3\xa9", buf, sizeof buf), "ok \xc3\xa9");
}

static char *csv(const char *s)
{
    WkStrBuf b = {0};
    wk_strbuf_csv_field(&b, s);
    char *t = wk_strbuf_take(&b);
    return t ? t : strdup("");
}

static void test_csv_formula(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
        {"+A1", "'+A1"},
        {"-2+cmd|' /C calc'!A0", "'-2+cmd|' /C calc'!A0"},
        {"-", "'-"},
        {"-8", "-8"},
        {"-8 %", "-8 %"},
        {"+1.5e3", "+1.5e3"},
        {"-3 \xc2\xb1 2 %", "-3 \xc2\xb1 2 %"},
        {"@SUM(A1)", "'@SUM(A1)"},
        {"\tx", "'\tx"},
        {"\rx", "\"'\rx\""},
        {"=a,b", "\"'=a,b\""},
        {"plain", "plain"},
        {"a=b", "a=b"},
        {"caf\xe9", "caf\xef\xbf\xbd"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = csv(cases[i].in);
        assert_string_equal(t, cases[i].out);
        free(t);
    }
    assert_true(wk_text_csv_risky("=1"));
    assert_false(wk_text_csv_risky("1"));
    assert_false(wk_text_csv_risky(""));
    /* signed numbers are data; anything a spreadsheet would compute is not */
    assert_false(wk_text_csv_risky("-8"));
    assert_false(wk_text_csv_risky("+1.5e3"));
    assert_false(wk_text_csv_risky("-8 %"));
    assert_false(wk_text_csv_risky("-3 \xc2\xb1 2 %"));
    assert_false(wk_text_csv_risky("-1.2e-05"));
    assert_true(wk_text_csv_risky("-2+3"));
    assert_true(wk_text_csv_risky("-1-1"));
    assert_true(wk_text_csv_risky("+1e"));
    assert_true(wk_text_csv_risky("-"));
    assert_true(wk_text_csv_risky("-1 %x"));
    assert_true(wk_text_csv_risky("@SUM(A1)"));
}

static void test_json_utf8(void **state)
{
    (void)state;
    WkStrBuf b = {0};
    wk_strbuf_json_string(&b, "caf\xe9 \"q\" \x1b\x7f \xc3\xa9");
    char *t = wk_strbuf_take(&b);
    assert_non_null(t);
    assert_string_equal(t, "\"caf\xef\xbf\xbd \\\"q\\\" \\u001b\\u007f \xc3\xa9\"");
    assert_true(wk_text_utf8_valid(t, strlen(t)));
    free(t);
}

/* An export's file system full: the message says so, naming the file. */
static void test_export_disk_full(void **state)
{
    (void)state;
    ExOut o = {0};
    o.f = fopen("/dev/full", "wb");
    if (!o.f)
        skip();
    o.path = strdup("run.json");
    assert_non_null(o.path);
    for (int i = 0; i < 100000; i++)
        fputs("0123456789", o.f);
    WkError err;
    wk_error_clear(&err);
    assert_int_equal(wk_ex_out_finish(&o, &err), WK_E_IO);
    char msg[512];
    wk_error_format(&err, msg, sizeof msg);
    assert_non_null(strstr(msg, "run.json: cannot write: no space left on device"));
    assert_null(o.f);
    assert_null(o.path);
}

/* The callback a policy is in, for the conformance time limit. */
static void test_callback_track(void **state)
{
    (void)state;
    assert_null(wk_text_callback);
    const char *a = wk_text_callback_enter("init");
    const char *b = wk_text_callback_enter("on_submit");
    assert_string_equal(wk_text_callback, "on_submit");
    wk_text_callback_leave(b);
    assert_string_equal(wk_text_callback, "init");
    wk_text_callback_leave(a);
    assert_null(wk_text_callback);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_term_escapes_controls), cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_csv_formula),           cmocka_unit_test(test_json_utf8),
        cmocka_unit_test(test_export_disk_full),      cmocka_unit_test(test_callback_track),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
