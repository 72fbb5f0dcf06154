/* SPDX-License-Identifier: Apache-2.0 */
/* csvmap.c — `source: csv`, any CSV job trace through a mapping written in
 * the scenario: which header column is the submit time, the run time (a
 * duration column, or an end column less a start column or the submit),
 * the GPUs, and optionally the user, kind and priority, each with its unit
 * (s, ms, us, min, h; `datetime` with a strftime-like format for times;
 * `hms`, Slurm's [D-]HH:MM:SS, for durations). The delimiter is one
 * character; fields may be quoted. Rows with no GPU or an empty time may be
 * skipped (`skip:`). Submit times become seconds from the earliest submit.
 * Errors: the mapping's at its YAML key; the trace's as
 * "file:line:col: column 'NAME' (key): message" (docs/scenarios.md,
 * `source: csv`; docs/limits.md). */
#include "models/workload/workload.h"

#include "models/workload/csv.h"
#include "sim/core/file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE_BYTES (INT64_C(1) << 30) /* docs/limits.md */
#define MAX_SPAN_S (WK_WORKLOAD_MAX_TIME / WK_NS_PER_S)
#define MAX_TIME_S 1e12 /* a time's distance from its zero (1970 for dates), about 31,700 years */
enum { MAXF = 256 }; /* columns of a row looked at */

/* The job fields a mapping may name, in the order of the section's keys. */
enum { K_SUBMIT, K_DURATION, K_START, K_END, K_GPUS, K_USER, K_KIND, K_PRIORITY, NKEY };
static const char *const key_names[NKEY] = {"submit", "duration", "start", "end", "gpus", "user", "kind", "priority"};

/* Units of a time or duration column; U_DATETIME only for times, U_HMS only
 * for a duration. */
enum { U_S, U_MS, U_US, U_MIN, U_H, U_DATETIME, U_HMS };
static const char *const unit_names[] = {"s", "ms", "us", "min", "h", "datetime", "hms", NULL};
static const double unit_s[] = {1, 1e-3, 1e-6, 60, 3600, 1, 1};

typedef struct {
    const char *column; /* header name, NULL: not mapped */
    int unit;
    const char *format; /* datetime format */
    const WkNode *at;   /* the key, for mapping errors */
    int idx;            /* column index in the header */
} Map;

typedef struct {
    const char *path;
    char delim;
    int skip_no_gpus, skip_missing;
    Map m[NKEY];
    size_t ncols;
    double t0; /* earliest submit, s */
    double *ts;
    size_t tscap;
} Csv;

/* ---- the mapping ---- */

static int read_map(Csv *c, const WkNode *sec, int k, WkError *err)
{
    Map *m = &c->m[k];
    const WkNode *n = wk_node_get(sec, key_names[k]);
    m->at = n;
    m->idx = -1;
    m->unit = U_S;
    m->format = "%Y-%m-%d %H:%M:%S";
    if (!n || n->type == WK_NODE_NULL)
        return 0;
    if (n->type == WK_NODE_SCALAR) {
        m->column = n->str;
        return 0;
    }
    if (n->type != WK_NODE_MAP)
        return wk_node_error(n, WK_E_INVAL, err, "expected a column name or a map {column, unit, format}");
    static const char *const known[] = {"column", "unit", "format", NULL};
    int rc;
    if ((rc = wk_node_expect_keys(n, known, err)) < 0 || (rc = wk_node_str(n, "column", 1, &m->column, err)) < 0 ||
        (rc = wk_node_enum(n, "unit", 0, unit_names, &m->unit, err)) < 0 ||
        (rc = wk_node_str(n, "format", 0, &m->format, err)) < 0)
        return rc;
    const WkNode *un = wk_node_get(n, "unit"), *fn = wk_node_get(n, "format");
    int is_time = k == K_SUBMIT || k == K_START || k == K_END;
    if (un && k != K_DURATION && !is_time)
        return wk_node_error(un, WK_E_INVAL, err, "only submit, duration, start and end have a unit");
    if (m->unit == U_DATETIME && !is_time)
        return wk_node_error(un, WK_E_INVAL, err, "a duration has no date: use s, ms, us, min, h or hms");
    if (m->unit == U_HMS && is_time)
        return wk_node_error(un, WK_E_INVAL, err, "hms is for durations: a time is datetime, s, ms, us, min or h");
    if (fn && m->unit != U_DATETIME)
        return wk_node_error(fn, WK_E_INVAL, err, "'format' goes with unit: datetime");
    if (fn) { /* every % is one of the known conversions */
        for (const char *p = m->format; *p; p++)
            if (*p == '%' && (!p[1] || !strchr("YmdHMSf%", p[1])))
                return wk_node_error(fn, WK_E_INVAL, err,
                                     "unknown conversion '%%%c' (known: %%Y %%m %%d %%H %%M %%S %%f %%%%)",
                                     p[1] ? p[1] : ' ');
            else if (*p == '%')
                p++;
    }
    return 0;
}

static int read_mapping(Csv *c, const WkNode *sec, WkError *err)
{
    static const char *const known[] = {"source", "trace", "comm", "quotas", "delimiter", "skip", "submit", "duration",
                                        "start", "end", "gpus", "user", "kind", "priority", NULL};
    int rc = wk_node_expect_keys(sec, known, err);
    for (int k = 0; k < NKEY && rc == 0; k++)
        rc = read_map(c, sec, k, err);
    if (rc < 0)
        return rc;
    if (!c->m[K_SUBMIT].column)
        return wk_node_error(sec, WK_E_INVAL, err, "missing required key 'submit' (the submit time's column)");
    if (!c->m[K_GPUS].column)
        return wk_node_error(sec, WK_E_INVAL, err, "missing required key 'gpus' (the GPU count's column)");
    if (!!c->m[K_DURATION].column == !!c->m[K_END].column)
        return wk_node_error(c->m[K_DURATION].column ? c->m[K_END].at : sec, WK_E_INVAL, err,
                             "give either 'duration' or 'end' (with an optional 'start'), not %s",
                             c->m[K_DURATION].column ? "both" : "neither");
    if (c->m[K_START].column && !c->m[K_END].column)
        return wk_node_error(c->m[K_START].at, WK_E_INVAL, err, "'start' goes with 'end' (run time = end - start)");
    const char *d = ",";
    if ((rc = wk_node_str(sec, "delimiter", 0, &d, err)) < 0)
        return rc;
    if (strcmp(d, "\\t") == 0 || strcmp(d, "tab") == 0)
        d = "\t";
    if (strlen(d) != 1 || strchr("\"\r\n", d[0]))
        return wk_node_error(wk_node_get(sec, "delimiter"), WK_E_INVAL, err,
                             "expected one character (',', ';', '|', or tab), got '%s'", d);
    c->delim = d[0];
    const WkNode *sk = wk_node_get(sec, "skip");
    size_t nsk = 0;
    const WkNode *const *items = sk && sk->type != WK_NODE_NULL ? wk_node_items(&sk, &nsk) : NULL;
    for (size_t i = 0; i < nsk; i++) {
        const WkNode *it = items[i];
        if (it->type == WK_NODE_SCALAR && strcmp(it->str, "no_gpus") == 0)
            c->skip_no_gpus = 1;
        else if (it->type == WK_NODE_SCALAR && strcmp(it->str, "missing") == 0)
            c->skip_missing = 1;
        else
            return wk_node_error(it, WK_E_INVAL, err, "expected no_gpus or missing, got '%s'",
                                 it->type == WK_NODE_SCALAR ? it->str : "a collection");
    }
    return 0;
}

/* The header: every mapped column found by name. */
static int header(Csv *c, const WkCsvField *f, size_t nf, long line, WkError *err)
{
    c->ncols = nf;
    if (nf > MAXF)
        return wk_error_set(err, WK_E_RANGE, c->path, line, 0, "header: %zu columns, more than %d (docs/limits.md)",
                            nf, MAXF);
    for (int k = 0; k < NKEY; k++) {
        Map *m = &c->m[k];
        if (!m->column)
            continue;
        m->idx = wk_csv_find(f, nf, m->column);
        if (m->idx < 0) {
            char have[200] = "";
            size_t used = 0;
            for (size_t i = 0; i < nf && used + 1 < sizeof have; i++)
                used += (size_t)snprintf(have + used, sizeof have - used, "%s%.*s", i ? ", " : "",
                                         (int)(f[i].len > 40 ? 40 : f[i].len), f[i].p);
            return wk_error_set(err, WK_E_INVAL, c->path, line, 0,
                                "%s: column '%s' is not in the header (columns: %s)", key_names[k], m->column, have);
        }
    }
    return 0;
}

/* ---- fields ---- */

/* A plain decimal number (digits, one point, an exponent): strtod alone
 * would also take "0x10", "inf" and "nan". 0 when it is not one. */
static int number(const WkCsvField *fd, double *out)
{
    char tmp[64], *e;
    int digit = 0;
    if (fd->len == 0 || fd->len >= sizeof tmp)
        return 0;
    for (size_t i = 0; i < fd->len; i++) {
        char ch = fd->p[i];
        if (ch >= '0' && ch <= '9')
            digit = 1;
        else if (!strchr(".eE+-", ch))
            return 0;
    }
    memcpy(tmp, fd->p, fd->len);
    tmp[fd->len] = '\0';
    errno = 0;
    *out = strtod(tmp, &e);
    return digit && e == tmp + fd->len && !errno && isfinite(*out);
}

/* n digits (1..max, at least min) from s at *i into *v. */
static int take_digits(const char *s, size_t len, size_t *i, int min, int max, int64_t *v)
{
    int got = 0;
    *v = 0;
    while (*i < len && got < max && s[*i] >= '0' && s[*i] <= '9') {
        *v = *v * 10 + (s[*i] - '0');
        (*i)++;
        got++;
    }
    return got >= min ? 0 : -1;
}

/* A date and time in format (%Y %m %d %H %M %S %f %% and literal bytes) →
 * seconds since the epoch, read as UTC (only differences matter). */
static int datetime(const char *fmt, const WkCsvField *fd, double *out)
{
    int64_t y = 1970, mo = 1, d = 1, h = 0, mi = 0, se = 0, v;
    double frac = 0;
    size_t i = 0;
    const char *s = fd->p;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%' || p[1] == '%') {
            if (i >= fd->len || s[i] != *p)
                return -1;
            i++;
            p += *p == '%';
            continue;
        }
        char conv = *++p;
        if (conv == 'f') { /* fraction digits, at least one */
            double scale = 0.1;
            size_t i0 = i;
            while (i < fd->len && s[i] >= '0' && s[i] <= '9') {
                frac += (s[i] - '0') * scale;
                scale /= 10;
                i++;
            }
            if (i == i0)
                return -1;
            continue;
        }
        if (take_digits(s, fd->len, &i, conv == 'Y' ? 4 : 1, conv == 'Y' ? 4 : 2, &v) < 0)
            return -1;
        switch (conv) {
        case 'Y': y = v; break;
        case 'm': mo = v; break;
        case 'd': d = v; break;
        case 'H': h = v; break;
        case 'M': mi = v; break;
        default: se = v; break;
        }
    }
    if (i != fd->len || mo < 1 || mo > 12 || d < 1 || d > wk_csv_month_days(y, mo) || h > 23 || mi > 59 || se > 60)
        return -1;
    *out = (double)(wk_csv_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) + frac;
    return 0;
}

/* [D-]HH:MM:SS, also MM:SS or SS (Slurm's Elapsed) → seconds. */
static int hms(const WkCsvField *fd, double *out)
{
    int64_t part[4], days = 0;
    int n = 0;
    size_t i = 0;
    const char *dash = memchr(fd->p, '-', fd->len);
    if (dash) {
        if (take_digits(fd->p, (size_t)(dash - fd->p), &i, 1, 6, &days) < 0 || fd->p + i != dash)
            return -1;
        i++;
    }
    for (;;) {
        if (n == 3 || take_digits(fd->p, fd->len, &i, 1, 2, &part[n]) < 0)
            return -1;
        n++;
        if (i == fd->len)
            break;
        if (fd->p[i++] != ':')
            return -1;
    }
    if (dash && n != 3)
        return -1;
    double s = 0;
    for (int k = 0; k < n; k++) {
        if (k > 0 && part[k] > 59)
            return -1;
        s = s * 60 + (double)part[k];
    }
    *out = s + (double)days * 86400;
    return 0;
}

static int bad(const Csv *c, const char *row, long line, int k, const WkCsvField *fd, const char *what, WkError *err)
{
    return wk_error_set(err, WK_E_INVAL, c->path, line, wk_csv_column(row, fd), "column '%s' (%s): %s, got '%.*s'",
                        c->m[k].column, key_names[k], what, (int)(fd->len > 40 ? 40 : fd->len), fd->p);
}

/* A time or duration field in seconds. */
static int seconds(const Csv *c, const char *row, long line, int k, const WkCsvField *fd, double *out, WkError *err)
{
    const Map *m = &c->m[k];
    int ok;
    if (m->unit == U_DATETIME)
        ok = datetime(m->format, fd, out) == 0;
    else if (m->unit == U_HMS)
        ok = hms(fd, out) == 0;
    else {
        ok = number(fd, out);
        *out *= unit_s[m->unit];
    }
    if (ok && k == K_DURATION && *out < 0)
        return bad(c, row, line, k, fd, "a negative duration", err);
    if (ok && fabs(*out) <= (k == K_DURATION ? (double)MAX_SPAN_S : MAX_TIME_S))
        return 0;
    char what[96];
    if (m->unit == U_DATETIME)
        snprintf(what, sizeof what, "expected a date and time as '%s' (a date that exists)", m->format);
    else if (m->unit == U_HMS)
        snprintf(what, sizeof what, "expected [D-]HH:MM:SS");
    else
        snprintf(what, sizeof what, "expected a decimal number of %s (%s)", unit_names[m->unit],
                 k == K_DURATION ? "0 to 73 years" : "within 1e12 s of 0");
    return bad(c, row, line, k, fd, what, err);
}

/* ---- rows ---- */

/* The row's job into out; a row skipped by `skip:` adds nothing. */
static int row_job(Csv *c, WkWorkload *out, const char *row, const WkCsvField *f, size_t nf, long line, WkError *err)
{
    if (nf == 0)
        return wk_error_set(err, WK_E_INVAL, c->path, line, 0, "row: a quoted field is not closed, or text follows its closing quote");
    if (nf != c->ncols)
        return wk_error_set(err, WK_E_INVAL, c->path, line, 0, "row: expected %zu fields, got %zu", c->ncols, nf);
    const WkCsvField *fg = &f[c->m[K_GPUS].idx];
    double g = -1;
    if (!number(fg, &g) || g != floor(g) || g < 0 || g > (double)WK_JOB_MAX_GPUS)
        return bad(c, row, line, K_GPUS, fg, "expected an integer from 0 to 4000000", err);
    if (g == 0) {
        if (c->skip_no_gpus)
            return 0;
        return bad(c, row, line, K_GPUS, fg, "a job with no GPU (add 'skip: [no_gpus]' to skip such rows)", err);
    }
    static const int timed[] = {K_SUBMIT, K_DURATION, K_START, K_END};
    double t[NKEY] = {0};
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++) { /* an empty time skips the row first */
        int k = timed[i];
        if (c->m[k].idx >= 0 && f[c->m[k].idx].len == 0) {
            if (c->skip_missing)
                return 0;
            return bad(c, row, line, k, &f[c->m[k].idx], "empty (add 'skip: [missing]' to skip such rows)", err);
        }
    }
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++) {
        int k = timed[i];
        int rc = c->m[k].idx < 0 ? 0 : seconds(c, row, line, k, &f[c->m[k].idx], &t[k], err);
        if (rc < 0)
            return rc;
    }
    double run = t[K_DURATION];
    if (c->m[K_END].idx >= 0) {
        int from = c->m[K_START].idx >= 0 ? K_START : K_SUBMIT;
        run = t[K_END] - t[from];
        if (run < 0)
            return bad(c, row, line, K_END, &f[c->m[K_END].idx],
                       from == K_START ? "before the start" : "before the submit time", err);
    }
    if (c->m[K_START].idx >= 0 && t[K_START] < t[K_SUBMIT])
        return bad(c, row, line, K_START, &f[c->m[K_START].idx], "before the submit time", err);
    if (run > (double)MAX_SPAN_S)
        return bad(c, row, line, c->m[K_END].idx >= 0 ? K_END : K_DURATION,
                   &f[c->m[c->m[K_END].idx >= 0 ? K_END : K_DURATION].idx], "a run time over 73 years", err);
    WkJobSpec js = {.duration = wk_time_from_s(run), .gpus = (uint32_t)g};
    if (js.duration < 1)
        js.duration = 1;
    if (c->m[K_USER].idx >= 0 && f[c->m[K_USER].idx].len > 0) {
        const WkCsvField *fu = &f[c->m[K_USER].idx];
        int u = wk_workload_user(out, fu->p, fu->len);
        if (u < 0)
            return u == WK_E_NOMEM ? wk_error_nomem(err, "trace users")
                                   : bad(c, row, line, K_USER, fu, wk_workload_user_error(u), err);
        js.user = (uint32_t)u;
    }
    if (c->m[K_KIND].idx >= 0) {
        const WkCsvField *fk = &f[c->m[K_KIND].idx];
        if (wk_csv_is(fk, "hpc"))
            js.kind = WK_JOB_HPC;
        else if (!wk_csv_is(fk, "ai") && fk->len)
            return bad(c, row, line, K_KIND, fk, "expected ai, hpc or empty (ai)", err);
    }
    if (c->m[K_PRIORITY].idx >= 0 && f[c->m[K_PRIORITY].idx].len > 0) {
        const WkCsvField *fp = &f[c->m[K_PRIORITY].idx];
        double pr = 0;
        if (!number(fp, &pr) || pr != floor(pr) || fabs(pr) > 1e9)
            return bad(c, row, line, K_PRIORITY, fp, "expected an integer from -1000000000 to 1000000000", err);
        js.priority = (int32_t)pr;
    }
    if (out->n == c->tscap) {
        c->tscap = c->tscap ? c->tscap * 2 : 1024;
        double *nts = realloc(c->ts, c->tscap * sizeof *nts);
        if (!nts)
            return wk_error_nomem(err, "trace submit times");
        c->ts = nts;
    }
    c->ts[out->n] = t[K_SUBMIT];
    int rc = wk_workload_push(out, &js);
    if (rc < 0)
        return rc == WK_E_RANGE ? wk_error_set(err, rc, c->path, line, 0,
                                               "row: more than %d jobs, the limit of a workload (docs/limits.md)",
                                               WK_WORKLOAD_MAX_JOBS)
                                : wk_error_nomem(err, "trace jobs");
    if (t[K_SUBMIT] < c->t0)
        c->t0 = t[K_SUBMIT];
    return 0;
}

static int load(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err)
{
    Csv c = {.t0 = INFINITY};
    const char *rel = NULL;
    int rc = read_mapping(&c, sec, err);
    if (rc < 0 || (rc = wk_node_str(sec, "trace", 1, &rel, err)) < 0)
        return rc;
    char path[4096];
    if (!wk_file_resolve(ctx->base_dir, rel, path, sizeof path))
        return wk_node_error(wk_node_get(sec, "trace"), WK_E_RANGE, err, "path too long");
    c.path = path;
    char *buf = NULL;
    size_t len = 0;
    if ((rc = wk_file_read_regular(path, "a CSV trace", MAX_FILE_BYTES, &buf, &len, err)) < 0)
        return rc;
    WkCsvField *f = malloc(MAXF * sizeof *f);
    if (!f) {
        free(buf);
        return wk_error_nomem(err, "trace row");
    }
    long line = 0;
    int have_header = 0;
    const char *p = buf + wk_file_bom_len(buf, len), *end = buf + len;
    while (p < end) {
        const char *le, *r = wk_file_next_line(&p, end, &le);
        line++;
        if (le == r)
            continue; /* blank line */
        size_t nf = wk_csv_split(r, le, c.delim, 1, f, MAXF);
        if (!have_header) {
            rc = nf ? header(&c, f, nf, line, err)
                    : wk_error_set(err, WK_E_INVAL, path, line, 0, "header: a quoted name is not closed");
            have_header = 1;
        } else
            rc = row_job(&c, out, r, f, nf, line, err);
        if (rc < 0)
            goto done;
    }
    if (!have_header)
        rc = wk_error_set(err, WK_E_INVAL, path, 0, 0, "empty trace file (no header)");
    else if (out->n == 0)
        rc = wk_error_set(err, WK_E_INVAL, path, 0, 0, "no job in the trace (%ld lines)", line);
    for (size_t i = 0; rc == 0 && i < out->n; i++) {
        double s = c.ts[i] - c.t0;
        if (s > (double)MAX_SPAN_S) {
            rc = wk_error_set(err, WK_E_RANGE, path, 0, 0,
                              "%s: submit times span more than 73 years (docs/limits.md)", c.m[K_SUBMIT].column);
            break;
        }
        out->jobs[i].submit = wk_time_from_s(s);
    }
done:
    free(f);
    free(c.ts);
    free(buf);
    return rc;
}

const WkWorkloadSource wk_workload_csv = {
    .abi = WK_WORKLOAD_ABI,
    .name = "csv",
    .description = "any CSV job trace, its columns mapped in the scenario (submit, duration or end, gpus, user)",
    .load = load,
};
