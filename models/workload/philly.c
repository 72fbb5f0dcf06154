/* SPDX-License-Identifier: Apache-2.0 */
/* philly.c — importer for the Philly trace in its reduced CSV form
 * (columns timestamp, duration, num_gpus, gpu_time, cluster; see
 * ../shared/traces/README.md). Columns are found by header name, so their
 * order may vary; timestamp, duration and num_gpus are required, others are
 * ignored. A `user` column, else Philly's `cluster` (the virtual cluster, a
 * team), names each job's user (docs/metrics.md, "Slowdown and fairness"); an empty field is
 * no user. Submit times become seconds from the earliest submit. A UTF-8
 * byte-order mark and blank lines (before the header too) are skipped.
 * Errors are "file:line:col: column: message" for a bad field (dates must
 * exist, durations are plain decimal), "file:line: message" for a row. */
#include "models/workload/workload.h"

#include "models/workload/csv.h"

#include "sim/core/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILE_BYTES (INT64_C(1) << 30) /* docs/limits.md */
/* Longest duration and widest spread of submit times, in seconds. */
#define MAX_SPAN_S (WK_WORKLOAD_MAX_TIME / WK_NS_PER_S)

static int digits(const char *s, int n, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* "YYYY-MM-DD HH:MM:SS" (or with a 'T') → seconds since the epoch (UTC). */
static int parse_timestamp(const char *s, size_t len, int64_t *out)
{
    int64_t y, mo, d, h, mi, se;
    if (len != 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' ||
        s[16] != ':' || digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) ||
        digits(s + 11, 2, &h) || digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
        return -1;
    int64_t dmax = wk_csv_month_days(y, mo);
    if (mo < 1 || mo > 12 || d < 1 || d > dmax || h > 23 || mi > 59 || se > 60)
        return -1;
    *out = wk_csv_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return 0;
}

typedef WkCsvField Field;

/* 1 when s[0..len) is a plain decimal number: digits, a point, an exponent
 * and signs only (strtod alone would also take "0x10", "inf" and "nan"). */
static int decimal(const char *s, size_t len)
{
    int digit = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9')
            digit = 1;
        else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-')
            return 0;
    }
    return digit;
}

static int read_file(const char *path, char **buf, size_t *len, WkError *err)
{
    FILE *f = NULL;
    int64_t size = 0;
    WkError oerr;
    wk_error_clear(&oerr);
    int rc = wk_file_open_regular(&f, &size, path, "a CSV trace", &oerr);
    if (rc < 0)
        return wk_error_set(err, rc, path, 0, 0, "%s%s", strncmp(oerr.msg, "not a regular", 13) ? "cannot open trace: " : "",
                            oerr.msg);
    if (size > MAX_FILE_BYTES) {
        fclose(f);
        return wk_error_set(err, WK_E_RANGE, path, 0, 0, "trace file larger than 1 GiB (%lld bytes; docs/limits.md)",
                            (long long)size);
    }
    char *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cap - n < 65536) {
            cap = cap ? cap * 2 : 1 << 20;
            if ((int64_t)cap > MAX_FILE_BYTES) {
                free(b);
                fclose(f);
                return wk_error_set(err, WK_E_RANGE, path, 0, 0, "trace file larger than 1 GiB (docs/limits.md)");
            }
            char *nb = realloc(b, cap + 1);
            if (!nb) {
                free(b);
                fclose(f);
                return wk_error_set(err, WK_E_NOMEM, path, 0, 0, "out of memory reading the trace");
            }
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return wk_error_set(err, WK_E_IO, path, 0, 0, "read error");
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

enum { MAXF = 64 }; /* fields looked at in a row */

/* A trace being read: its columns and the submit times seen so far. */
typedef struct Trace {
    const char *path;
    int col_ts, col_dur, col_gpus;
    int col_user; /* `user`, else `cluster`; -1: none */
    const char *col_user_name;
    size_t ncols;
    int64_t t0, t1;   /* earliest and latest submit */
    long line0, line1; /* their lines */
    int64_t *ts;      /* submit seconds per job, before rebasing */
    size_t tscap;
} Trace;

/* The header row: where timestamp, duration and num_gpus are. */
static int header(Trace *tr, const Field *f, size_t nf, long line, WkError *err)
{
    tr->ncols = nf;
    for (size_t i = 0; i < nf && i < MAXF; i++) {
        if (wk_csv_is(&f[i], "timestamp")) tr->col_ts = (int)i;
        else if (wk_csv_is(&f[i], "duration")) tr->col_dur = (int)i;
        else if (wk_csv_is(&f[i], "num_gpus")) tr->col_gpus = (int)i;
        else if (wk_csv_is(&f[i], "cluster")) tr->col_user = (int)i;
    }
    for (size_t i = 0; i < nf && i < MAXF; i++) /* `user` wins over `cluster` wherever it is */
        if (wk_csv_is(&f[i], "user"))
            tr->col_user = (int)i;
    tr->col_user_name = tr->col_user >= 0 && wk_csv_is(&f[tr->col_user], "user") ? "user" : "cluster";
    const char *miss = tr->col_ts < 0 ? "timestamp" : tr->col_dur < 0 ? "duration" : tr->col_gpus < 0 ? "num_gpus" : NULL;
    if (miss)
        return wk_error_set(err, WK_E_INVAL, tr->path, line, 0,
                            "%s: missing column in the header (expected timestamp, duration, num_gpus)", miss);
    return 0;
}

/* The column (1-based, in bytes) of field fd of the row whose fields are f. */
static long column(const Field *f, const Field *fd) { return wk_csv_column(f[0].p, fd); }

/* A data row at line: its submit time (*t, seconds) and its job. */
static int row_job(const Trace *tr, const Field *f, size_t nf, long line, int64_t *t, WkJobSpec *js, WkError *err)
{
    if (nf != tr->ncols)
        return wk_error_set(err, WK_E_INVAL, tr->path, line, 0, "row: expected %zu fields, got %zu", tr->ncols, nf);
    const Field *fts = &f[tr->col_ts];
    if (parse_timestamp(fts->p, fts->len, t) < 0)
        return wk_error_set(err, WK_E_INVAL, tr->path, line, column(f, fts),
                            "timestamp: expected 'YYYY-MM-DD HH:MM:SS', a date that exists, got '%.*s'", (int)fts->len, fts->p);
    char tmp[64], *e;
    const Field *fd = &f[tr->col_dur];
    double dur = -1;
    if (fd->len > 0 && fd->len < sizeof tmp && decimal(fd->p, fd->len)) {
        memcpy(tmp, fd->p, fd->len);
        tmp[fd->len] = '\0';
        errno = 0;
        dur = strtod(tmp, &e);
        if (e != tmp + fd->len || errno) /* the whole field: a NUL byte does not end it */
            dur = -1;
    }
    if (!(dur >= 0 && dur <= (double)MAX_SPAN_S))
        return wk_error_set(err, WK_E_INVAL, tr->path, line, column(f, fd),
                            "duration: expected decimal seconds from 0 to %lld (73 years), got '%.*s'",
                            (long long)MAX_SPAN_S, (int)fd->len, fd->p);
    const Field *fg = &f[tr->col_gpus];
    long long g = 0;
    if (fg->len > 0 && fg->len < 12) {
        memcpy(tmp, fg->p, fg->len);
        tmp[fg->len] = '\0';
        errno = 0;
        g = strtoll(tmp, &e, 10);
        if (e != tmp + fg->len || errno)
            g = 0;
    }
    if (g < 1 || g > (long long)WK_JOB_MAX_GPUS)
        return wk_error_set(err, WK_E_INVAL, tr->path, line, column(f, fg),
                            "num_gpus: expected an integer between 1 and %u, got '%.*s'",
                            (unsigned)WK_JOB_MAX_GPUS, (int)fg->len, fg->p);
    *js = (WkJobSpec){.submit = 0, .duration = wk_time_from_s(dur), .gpus = (uint32_t)g};
    if (js->duration < 1)
        js->duration = 1;
    return 0;
}

/* The job's user from the row's user (or cluster) field, if any. */
static int row_user(const Trace *tr, const Field *f, long line, WkWorkload *out, WkJobSpec *js, WkError *err)
{
    if (tr->col_user < 0 || f[tr->col_user].len == 0)
        return 0;
    const Field *fu = &f[tr->col_user];
    int u = wk_workload_user(out, fu->p, fu->len);
    if (u < 0)
        return wk_error_set(err, u, tr->path, line, column(f, fu), "%s: %s, got '%.*s'", tr->col_user_name,
                            wk_workload_user_error(u),
                            (int)(fu->len > 40 ? 40 : fu->len), fu->p);
    js->user = (uint32_t)u;
    return 0;
}

/* Add the job of line to out, its submit time t to tr; the span of submit
 * times stays within 73 years. */
static int keep_job(Trace *tr, WkWorkload *out, int64_t t, const WkJobSpec *js, long line, WkError *err)
{
    if (out->n == tr->tscap) {
        tr->tscap = tr->tscap ? tr->tscap * 2 : 1024;
        int64_t *nts = realloc(tr->ts, tr->tscap * sizeof *nts);
        if (!nts)
            return wk_error_set(err, WK_E_NOMEM, tr->path, 0, 0, "out of memory");
        tr->ts = nts;
    }
    tr->ts[out->n] = t;
    int rc = wk_workload_push(out, js);
    if (rc < 0) {
        if (rc == WK_E_RANGE)
            return wk_error_set(err, rc, tr->path, line, 0, "row: more than %d jobs, the limit of a workload (docs/limits.md)",
                                WK_WORKLOAD_MAX_JOBS);
        return wk_error_set(err, WK_E_NOMEM, tr->path, 0, 0, "out of memory");
    }
    if (t < tr->t0) {
        tr->t0 = t;
        tr->line0 = line;
    }
    if (t > tr->t1) {
        tr->t1 = t;
        tr->line1 = line;
    }
    if (tr->t1 - tr->t0 > MAX_SPAN_S)
        return wk_error_set(err, WK_E_RANGE, tr->path, line, 0,
                            "timestamp: submit times span more than 73 years (line %ld to line %ld; docs/limits.md)",
                            tr->line0, tr->line1);
    return 0;
}

static int load(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err)
{
    static const char *const known[] = {"source", "trace", "comm", "quotas", NULL};
    int rc = wk_node_expect_keys(sec, known, err);
    const char *rel = NULL;
    if (rc < 0 || (rc = wk_node_str(sec, "trace", 1, &rel, err)) < 0)
        return rc;
    char path[4096];
    if (!wk_file_resolve(ctx->base_dir, rel, path, sizeof path))
        return wk_node_error(wk_node_get(sec, "trace"), WK_E_RANGE, err, "path too long");

    char *buf = NULL;
    size_t len = 0;
    if ((rc = read_file(path, &buf, &len, err)) < 0)
        return rc;

    Field f[MAXF];
    Trace tr = {.path = path, .col_ts = -1, .col_dur = -1, .col_gpus = -1, .col_user = -1, .t0 = INT64_MAX, .t1 = INT64_MIN};
    long line = 0;
    int have_header = 0;
    const char *p = buf, *end = buf + len;
    p += wk_file_bom_len(buf, len); /* a UTF-8 byte-order mark (spreadsheets write one) */
    while (p < end) {
        const char *le, *row = wk_file_next_line(&p, end, &le);
        line++;
        if (le == row)
            continue; /* blank line */
        size_t nf = wk_csv_split(row, le, ',', 0, f, MAXF);
        int64_t t = 0;
        WkJobSpec js;
        if (!have_header) {
            rc = header(&tr, f, nf, line, err);
            have_header = 1;
        }
        else if ((rc = row_job(&tr, f, nf, line, &t, &js, err)) == 0 && (rc = row_user(&tr, f, line, out, &js, err)) == 0)
            rc = keep_job(&tr, out, t, &js, line, err);
        if (rc < 0)
            goto fail;
    }
    if (!have_header) {
        rc = wk_error_set(err, WK_E_INVAL, path, 0, 0, "empty trace file (no header)");
        goto fail;
    }
    for (size_t i = 0; i < out->n; i++)
        out->jobs[i].submit = (tr.ts[i] - tr.t0) * WK_NS_PER_S;
    free(tr.ts);
    free(buf);
    return 0;
fail:
    free(tr.ts);
    free(buf);
    return rc;
}

const WkWorkloadSource wk_workload_philly = {
    .abi = WK_WORKLOAD_ABI,
    .name = "philly",
    .description = "Microsoft Philly trace, CSV with timestamp, duration, num_gpus columns",
    .load = load,
};
