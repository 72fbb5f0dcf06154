/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_writer.c — libFuzzer target for what the writers make of names:
 * arbitrary bytes (any byte but NUL: invalid UTF-8, control characters,
 * quotes, commas, line breaks) become the strings a trace carries — the
 * scenario's name, file name and text, a network's site names, the trace's
 * own file name — of a small run simulated and written as a trace (the
 * writer in sim/trace), then exported as Chrome JSON and as CSV files
 * (analysis/export.c, export_chrome.c); each string also goes through
 * wk_strbuf_json_string and wk_strbuf_csv_field alone. The input is split
 * at NUL bytes: part 0 the scenario name, 1 its file name, 2 its text, 3
 * the trace's file name, 4 and 5 (when part 4 is there) the names of the
 * two sites of a network run instead of a single cluster.
 *
 * Checked (abort on failure):
 * - every JSON text written is valid JSON (RFC 8259) in valid UTF-8 (no
 *   raw control character in a string, every escape known, no overlong
 *   form, surrogate or code point past U+10FFFF);
 * - every CSV file written is well formed (RFC 4180: quotes only around a
 *   whole field, doubled inside; each record with the header's number of
 *   fields; records end in CRLF);
 * - with WK_FUZZ_CHECK_CSV_UTF8=1, every CSV byte sequence is valid UTF-8;
 * - with WK_FUZZ_CHECK_CSV_NEUTRAL=1 (formula neutralisation: a text cell
 *   a spreadsheet would read as a formula), no text cell of run.csv or
 *   summary.csv begins with = + - @, a tab or a carriage return.
 * tests/fuzz/run turns both on (the exports promise them, docs/analysis.md).
 * WK_FUZZ_SKIP_JSON_UTF8=1 accepts invalid UTF-8 inside JSON strings (the
 * rest of the JSON check stays), to fuzz past that finding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/export.h"
#include "models/network/sim.h"
#include "sim/core/strbuf.h"
#include "sim/scenario/node.h"
#include "tests/fuzz/fuzz.h"

#define NPARTS 6

static void check(int rc, const WkError *err)
{
    if (rc > 0 || (rc < 0 && (err->code != rc || !err->msg[0])))
        abort();
}

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] == '1';
}

/* ---- UTF-8 and JSON ---------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned cp, min;
    if ((c & 0xE0) == 0xC0) {
        len = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

static int utf8_valid(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t l = utf8_len(p + i, n - i);
        if (!l)
            return 0;
        i += l;
    }
    return 1;
}

static int json_utf8 = 1; /* check UTF-8 inside JSON strings (WK_FUZZ_SKIP_JSON_UTF8) */

typedef struct J {
    const unsigned char *p;
    size_t n, i;
    int depth;
} J;

static void ws(J *j)
{
    while (j->i < j->n && strchr(" \t\r\n", j->p[j->i]) && j->p[j->i])
        j->i++;
}

static int lit(J *j, const char *s)
{
    size_t l = strlen(s);
    if (j->n - j->i < l || memcmp(j->p + j->i, s, l) != 0)
        return 0;
    j->i += l;
    return 1;
}

static int hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int jstring(J *j)
{
    if (j->i >= j->n || j->p[j->i] != '"')
        return 0;
    j->i++;
    while (j->i < j->n) {
        unsigned char c = j->p[j->i];
        if (c == '"') {
            j->i++;
            return 1;
        }
        if (c < 0x20)
            return 0; /* a raw control character */
        if (c == '\\') {
            if (++j->i >= j->n)
                return 0;
            c = j->p[j->i];
            if (c == 'u') {
                if (j->n - j->i < 5 || !hex(j->p[j->i + 1]) || !hex(j->p[j->i + 2]) || !hex(j->p[j->i + 3]) ||
                    !hex(j->p[j->i + 4]))
                    return 0;
                j->i += 5;
            } else if (strchr("\"\\/bfnrt", c) && c) {
                j->i++;
            } else {
                return 0;
            }
            continue;
        }
        size_t l = json_utf8 ? utf8_len(j->p + j->i, j->n - j->i) : 1;
        if (!l)
            return 0; /* invalid UTF-8 */
        j->i += l;
    }
    return 0;
}

static int jnumber(J *j)
{
    size_t s = j->i;
    if (j->i < j->n && j->p[j->i] == '-')
        j->i++;
    if (j->i >= j->n)
        return 0;
    if (j->p[j->i] == '0') {
        j->i++;
    } else if (j->p[j->i] >= '1' && j->p[j->i] <= '9') {
        while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9')
            j->i++;
    } else {
        return 0;
    }
    if (j->i < j->n && j->p[j->i] == '.') {
        size_t d = ++j->i;
        while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9')
            j->i++;
        if (j->i == d)
            return 0;
    }
    if (j->i < j->n && (j->p[j->i] == 'e' || j->p[j->i] == 'E')) {
        j->i++;
        if (j->i < j->n && (j->p[j->i] == '+' || j->p[j->i] == '-'))
            j->i++;
        size_t d = j->i;
        while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9')
            j->i++;
        if (j->i == d)
            return 0;
    }
    return j->i > s;
}

static int jvalue(J *j);

static int jcontainer(J *j, unsigned char open, unsigned char close, int keyed)
{
    if (++j->depth > 64)
        return 0;
    j->i++; /* open */
    (void)open;
    ws(j);
    if (j->i < j->n && j->p[j->i] == close) {
        j->i++;
        j->depth--;
        return 1;
    }
    for (;;) {
        ws(j);
        if (keyed) {
            if (!jstring(j))
                return 0;
            ws(j);
            if (!lit(j, ":"))
                return 0;
            ws(j);
        }
        if (!jvalue(j))
            return 0;
        ws(j);
        if (lit(j, ","))
            continue;
        if (j->i < j->n && j->p[j->i] == close) {
            j->i++;
            j->depth--;
            return 1;
        }
        return 0;
    }
}

static int jvalue(J *j)
{
    ws(j);
    if (j->i >= j->n)
        return 0;
    switch (j->p[j->i]) {
    case '{':
        return jcontainer(j, '{', '}', 1);
    case '[':
        return jcontainer(j, '[', ']', 0);
    case '"':
        return jstring(j);
    case 't':
        return lit(j, "true");
    case 'f':
        return lit(j, "false");
    case 'n':
        return lit(j, "null");
    default:
        return jnumber(j);
    }
}

/* 1 when text[0..n) is one JSON value in valid UTF-8, else 0. */
static int json_valid(const char *text, size_t n)
{
    J j = {(const unsigned char *)text, n, 0, 0};
    if (!jvalue(&j))
        return 0;
    ws(&j);
    return j.i == n;
}

/* ---- CSV --------------------------------------------------------------------------------- */

/* A text cell a spreadsheet would take for a formula: it begins with
 * = + - @ tab or CR, except a signed number as docs/analysis.md allows
 * ("-8", "+1.5e3", "-8 %", "-3 ± 2 %": digits, . e E + - space % ±, at
 * least one digit), which is data. */
static int formula_start(const char *cell)
{
    if (!cell[0] || !strchr("=+-@\t\r", cell[0]))
        return 0;
    if (cell[0] != '+' && cell[0] != '-')
        return 1;
    int digit = 0;
    for (const unsigned char *p = (const unsigned char *)cell + 1; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digit = 1;
        else if (p[0] == 0xc2 && p[1] == 0xb1)
            p++;
        else if (!strchr(".eE+- %", *p))
            return 1;
    }
    return !digit;
}

/* Check the CSV text (RFC 4180, CRLF); with `neutral`, the cells of the
 * columns in text_cols (a bit per column, first 32) of each data record
 * must not begin a formula. Returns 1 if well formed. */
static int csv_valid(const char *t, size_t n, unsigned text_cols, int neutral)
{
    size_t i = 0, fields_header = 0, record = 0;
    static char cell[1 << 16];
    while (i < n) {
        size_t fields = 0;
        for (;;) {
            size_t cl = 0;
            if (t[i] == '"') {
                i++;
                for (;;) {
                    if (i >= n)
                        return 0;
                    if (t[i] == '"') {
                        if (i + 1 < n && t[i + 1] == '"') {
                            i += 2;
                            if (cl < sizeof cell - 1)
                                cell[cl++] = '"';
                            continue;
                        }
                        i++;
                        break;
                    }
                    if (cl < sizeof cell - 1)
                        cell[cl++] = t[i];
                    i++;
                }
            } else {
                while (i < n && t[i] != ',' && t[i] != '\r' && t[i] != '\n') {
                    if (t[i] == '"')
                        return 0; /* a quote inside an unquoted field */
                    if (cl < sizeof cell - 1)
                        cell[cl++] = t[i];
                    i++;
                }
            }
            cell[cl] = '\0';
            if (neutral && record > 0 && fields < 32 && (text_cols >> fields & 1u) && formula_start(cell))
                return 0;
            fields++;
            if (i < n && t[i] == ',') {
                i++;
                continue;
            }
            if (n - i >= 2 && t[i] == '\r' && t[i + 1] == '\n') {
                i += 2;
                break;
            }
            return 0; /* a record must end in CRLF */
        }
        if (record == 0)
            fields_header = fields;
        else if (fields != fields_header)
            return 0;
        record++;
    }
    return 1;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    for (;;) {
        if (!b)
            break;
        size_t got = fread(b + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        char *nb = realloc(b, cap * 2);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    fclose(f);
    if (!b)
        abort();
    *n = len;
    return b;
}

/* The exported CSV file dir/name, if written: checked as above; text_cols
 * marks its text columns (formula neutralisation). */
static void check_csv_file(const char *dir, const char *name, unsigned text_cols)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    size_t n = 0;
    char *t = slurp(p, &n);
    if (!t)
        return;
    if (!csv_valid(t, n, text_cols, env_on("WK_FUZZ_CHECK_CSV_NEUTRAL")))
        abort();
    if (env_on("WK_FUZZ_CHECK_CSV_UTF8") && !utf8_valid((const unsigned char *)t, n))
        abort();
    free(t);
    unlink(p);
}

/* ---- the strings alone ------------------------------------------------------------------- */

static void strings_alone(char *const *part)
{
    for (int k = 0; k < NPARTS; k++) {
        if (!part[k])
            continue;
        WkStrBuf b = {0};
        wk_strbuf_json_string(&b, part[k]);
        char *s = wk_strbuf_take(&b);
        if (!s || !json_valid(s, strlen(s)))
            abort();
        free(s);
        wk_strbuf_printf(&b, "x,");
        wk_strbuf_csv_field(&b, part[k]);
        wk_strbuf_printf(&b, "\r\n");
        s = wk_strbuf_take(&b);
        if (!s || !csv_valid(s, strlen(s), 0, 0))
            abort();
        free(s);
    }
}

/* ---- a run, its trace and the exports ---------------------------------------------------- */

static const char single[] = "name: x\n"
                             "cluster: {nodes: 2, gpus_per_node: 4, nodes_per_pod: 1}\n"
                             "failures: {incidents: [{at: 10m, kind: down, node: 1, duration: 20m}]}\n"
                             "workload: {source: inline, jobs: [{gpus: 4, duration: 1h}, {gpus: 8, duration: 30m}]}\n";
static const char network[] = "name: x\n"
                              "sites: [{name: a, cluster: {nodes: 1, gpus_per_node: 8}},\n"
                              "        {name: b, cluster: {nodes: 1, gpus_per_node: 8}}]\n"
                              "workload: {source: inline, jobs: [{gpus: 8, duration: 1h}, {gpus: 8, duration: 2h}]}\n";

/* Replace the text of scalar node n (when there) with s (copied). */
static void set_str(const WkNode *cn, const char *s)
{
    WkNode *n = (WkNode *)cn;
    if (!n || !s)
        return;
    char *c = strdup(s);
    if (!c)
        abort();
    free(n->str);
    n->str = c;
}

static void run_and_export(char *const *part)
{
    int net = part[4] != NULL;
    const char *yaml = net ? network : single;
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    if (wk_doc_load_string(&doc, "fuzz.yaml", yaml, strlen(yaml), &err) != 0)
        abort();
    set_str(wk_node_get(doc->root, "name"), part[0]);
    if (net) {
        const WkNode *sites = wk_node_get(doc->root, "sites");
        set_str(wk_node_get(sites->kids[0], "name"), part[4]);
        set_str(wk_node_get(sites->kids[1], "name"), part[5]);
    }
    /* the file name and text the trace records (the nodes keep the
     * original file name, which stays alive until the doc is freed) */
    char *file0 = doc->file, *text0 = doc->text;
    size_t len0 = doc->text_len;
    if (part[1])
        doc->file = part[1];
    if (part[2]) {
        doc->text = part[2];
        doc->text_len = strlen(part[2]);
    }
    WkSim *sim = NULL;
    int rc = wk_sim_prepare(&sim, doc, &(WkRunOpts){0}, &err);
    check(rc, &err);
    if (rc == 0) {
        rc = wk_sim_execute(sim, &err);
        check(rc, &err);
    }
    char name[160], trace[4096], out[4200];
    size_t k = 0;
    for (const char *s = part[3] ? part[3] : "t"; *s && k < 100; s++)
        name[k++] = *s == '/' ? '_' : *s;
    name[k] = '\0';
    if (k == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        snprintf(name, sizeof name, "t");
    snprintf(trace, sizeof trace, "%s/%s.h5", wk_fuzz_dir(), name);
    if (rc == 0) {
        rc = wk_sim_write_trace(sim, trace, &err);
        check(rc, &err);
    }
    if (rc == 0) {
        snprintf(out, sizeof out, "%s.json", trace);
        wk_error_clear(&err);
        rc = wk_export_chrome(trace, out, &(WkExportOpts){.max_tracks = 4}, NULL, &err);
        check(rc, &err);
        size_t n = 0;
        char *t = slurp(out, &n);
        if (rc == 0 && (!t || !json_valid(t, n)))
            abort(); /* the Chrome export is not valid UTF-8 JSON */
        free(t);
        unlink(out);
        snprintf(out, sizeof out, "%s.csv", trace);
        wk_error_clear(&err);
        rc = wk_export_csv(trace, out, NULL, &err);
        check(rc, &err);
        /* text columns: run.csv's value, summary.csv's metric name */
        check_csv_file(out, "run.csv", 1u << 1);
        check_csv_file(out, "summary.csv", 1u << 0);
        check_csv_file(out, "jobs.csv", 0);
        check_csv_file(out, "incidents.csv", 0);
        check_csv_file(out, "timeseries.csv", 0);
        rmdir(out);
        unlink(trace);
    }
    wk_sim_free(sim);
    doc->file = file0;
    doc->text = text0;
    doc->text_len = len0;
    wk_doc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    json_utf8 = !env_on("WK_FUZZ_SKIP_JSON_UTF8");
    char *buf = malloc(size + 1);
    if (!buf)
        abort();
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *part[NPARTS] = {0};
    char *p = buf;
    for (int k = 0; k < NPARTS && p <= buf + size; k++) {
        part[k] = p;
        p += strlen(p) + 1;
    }
    strings_alone(part);
    run_and_export(part);
    free(buf);
    return 0;
}
