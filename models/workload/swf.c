/* SPDX-License-Identifier: Apache-2.0 */
/* swf.c — importer for the Standard Workload Format of the Parallel
 * Workloads Archive (Feitelson et al., JPDC 2014; the format's definition at
 * www.cs.huji.ac.il/labs/parallel/workload/swf.html): one job a line, 18
 * whitespace-separated numbers, -1 for a value not known; `;` lines are
 * comments, and the header's `; Key: value` lines describe the log.
 *
 * All 18 fields are read and checked (docs/scenarios.md, `source: swf`);
 * a job is its submit time (field 2), run time (4) and processors
 * (allocated, 5, else requested, 8), divided by `procs_per_gpu` and rounded
 * up; the user (12) names its user. A job whose run time or processor count
 * is not known (-1) is skipped, as it never ran. The header's MaxProcs,
 * MaxNodes, UnixStartTime, MaxJobs and MaxRecords must be integers (-1:
 * not known); a job
 * using more processors than MaxProcs is an error. Submit times become
 * seconds from the earliest submit. Errors are "file:line:col: field N
 * (name): message" for a bad field, "file:line: message" for a row. */
#include "models/workload/workload.h"

#include "sim/core/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE_BYTES (INT64_C(1) << 30) /* docs/limits.md */
#define MAX_SPAN_S (WK_WORKLOAD_MAX_TIME / WK_NS_PER_S)
#define NFIELDS 18

/* The 18 fields, in order; 'i' an integer, 'd' a decimal (times, memory). */
static const struct {
    const char *name;
    char type;
} fields[NFIELDS] = {
    {"job number", 'i'},        {"submit time", 'd'},     {"wait time", 'd'},
    {"run time", 'd'},          {"allocated processors", 'i'}, {"average CPU time", 'd'},
    {"used memory", 'd'},       {"requested processors", 'i'}, {"requested time", 'd'},
    {"requested memory", 'd'},  {"status", 'i'},          {"user ID", 'i'},
    {"group ID", 'i'},          {"executable number", 'i'}, {"queue number", 'i'},
    {"partition number", 'i'},  {"preceding job number", 'i'}, {"think time", 'd'},
};

/* The header keys read as integers; -1 when absent. */
enum { H_MAXPROCS, H_MAXNODES, H_START, H_MAXJOBS, H_MAXRECORDS, NHDR };
static const char *const hdr_names[NHDR] = {"MaxProcs", "MaxNodes", "UnixStartTime", "MaxJobs", "MaxRecords"};

typedef struct {
    const char *p;
    size_t len;
} Tok;

typedef struct {
    const char *path;
    int64_t procs_per_gpu;
    int64_t hdr[NHDR];
    long hdr_line[NHDR];
    int64_t t0, t1;
    long line0, line1;
    int64_t *ts;
    size_t tscap;
    size_t skipped;
} Swf;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Parse tok as an integer (-1 or >= 0, at most 18 digits). */
static int parse_int(const Tok *t, int64_t *out)
{
    if (t->len == 2 && t->p[0] == '-' && t->p[1] == '1') {
        *out = -1;
        return 0;
    }
    if (t->len == 0 || t->len > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < t->len; i++) {
        if (t->p[i] < '0' || t->p[i] > '9')
            return -1;
        v = v * 10 + (t->p[i] - '0');
    }
    *out = v;
    return 0;
}

/* Parse tok as a plain decimal (digits, one point, an exponent): -1 or >= 0. */
static int parse_dec(const Tok *t, double *out)
{
    char tmp[64], *e;
    if (t->len == 0 || t->len >= sizeof tmp)
        return -1;
    int digit = 0;
    for (size_t i = 0; i < t->len; i++) {
        char c = t->p[i];
        if (c >= '0' && c <= '9')
            digit = 1;
        else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-')
            return -1;
    }
    if (!digit)
        return -1;
    memcpy(tmp, t->p, t->len);
    tmp[t->len] = '\0';
    errno = 0;
    double v = strtod(tmp, &e);
    if (e != tmp + t->len || errno || !(v >= 0 || v == -1))
        return -1;
    *out = v;
    return 0;
}

/* A comment line (its text after ';'): `Key: value` for a known key sets it. */
static int comment(Swf *s, const char *p, const char *end, const char *row, long line, WkError *err)
{
    while (p < end && is_space(*p))
        p++;
    const char *k = p;
    while (p < end && *p != ':' && !is_space(*p))
        p++;
    size_t klen = (size_t)(p - k);
    while (p < end && is_space(*p))
        p++;
    if (p == end || *p != ':')
        return 0; /* free text */
    p++;
    for (int h = 0; h < NHDR; h++) {
        if (strlen(hdr_names[h]) != klen || memcmp(hdr_names[h], k, klen) != 0)
            continue;
        while (p < end && is_space(*p))
            p++;
        const char *v = p;
        while (p < end && !is_space(*p))
            p++;
        Tok t = {v, (size_t)(p - v)};
        int64_t x = -1;
        const char *q = p;
        while (q < end && is_space(*q))
            q++;
        if (parse_int(&t, &x) < 0 || q != end)
            return wk_error_set(err, WK_E_INVAL, s->path, line, (long)(v - row) + 1,
                                "header %s: expected an integer >= 0 (-1: not known), got '%.*s'", hdr_names[h],
                                (int)((size_t)(end - v) > 40 ? 40 : (size_t)(end - v)), v);
        s->hdr[h] = x;
        s->hdr_line[h] = line;
    }
    return 0;
}

static int field_error(const Swf *s, long line, const char *row, const Tok *t, int i, const char *what, WkError *err)
{
    return wk_error_set(err, WK_E_INVAL, s->path, line, (long)(t->p - row) + 1, "field %d (%s): %s, got '%.*s'", i + 1,
                        fields[i].name, what, (int)(t->len > 40 ? 40 : t->len), t->p);
}

/* A job line: check all 18 fields; add the job unless it never ran. */
static int job_line(Swf *s, WkWorkload *out, const char *row, const char *end, long line, WkError *err)
{
    Tok t[NFIELDS];
    size_t n = 0;
    for (const char *p = row; p < end;) {
        while (p < end && is_space(*p))
            p++;
        if (p == end)
            break;
        const char *b = p;
        while (p < end && !is_space(*p))
            p++;
        if (n < NFIELDS)
            t[n] = (Tok){b, (size_t)(p - b)};
        n++;
    }
    if (n != NFIELDS)
        return wk_error_set(err, WK_E_INVAL, s->path, line, 0, "row: expected 18 fields, got %zu", n);
    int64_t iv[NFIELDS] = {0};
    double dv[NFIELDS] = {0};
    for (int i = 0; i < NFIELDS; i++) {
        if (fields[i].type == 'i') {
            if (parse_int(&t[i], &iv[i]) < 0)
                return field_error(s, line, row, &t[i], i, "expected an integer, -1 if not known", err);
            dv[i] = (double)iv[i];
        }
        else if (parse_dec(&t[i], &dv[i]) < 0)
            return field_error(s, line, row, &t[i], i, "expected a decimal number >= 0, -1 if not known", err);
    }
    if (iv[10] > 5)
        return field_error(s, line, row, &t[10], 10, "expected -1 or 0 to 5", err);
    if (dv[1] < 0 || dv[1] > (double)MAX_SPAN_S)
        return field_error(s, line, row, &t[1], 1, "expected seconds from 0 to 2305843009 (73 years)", err);
    if (dv[3] > (double)MAX_SPAN_S)
        return field_error(s, line, row, &t[3], 3, "expected seconds up to 2305843009 (73 years)", err);
    int pf = iv[4] >= 0 ? 4 : 7; /* allocated, else requested */
    int64_t procs = iv[pf];
    if (s->hdr[H_MAXPROCS] >= 0 && procs > s->hdr[H_MAXPROCS]) {
        char what[96];
        snprintf(what, sizeof what, "more than the header's MaxProcs %lld (line %ld)", (long long)s->hdr[H_MAXPROCS],
                 s->hdr_line[H_MAXPROCS]);
        return field_error(s, line, row, &t[pf], pf, what, err);
    }
    if (dv[3] < 0 || procs <= 0) { /* never ran (or used no processor) */
        s->skipped++;
        return 0;
    }
    int64_t gpus = (procs + s->procs_per_gpu - 1) / s->procs_per_gpu;
    if (gpus > (int64_t)WK_JOB_MAX_GPUS)
        return field_error(s, line, row, &t[pf], pf, "more GPUs than a job may ask for (4000000; docs/limits.md)", err);
    WkJobSpec js = {.duration = wk_time_from_s(dv[3]), .gpus = (uint32_t)gpus};
    if (js.duration < 1)
        js.duration = 1;
    if (iv[11] >= 0) {
        char name[32];
        int len = snprintf(name, sizeof name, "u%lld", (long long)iv[11]);
        int u = len > 0 && len <= WK_USER_NAME_MAX ? wk_workload_user(out, name, (size_t)len) : WK_E_INVAL;
        if (u < 0)
            return wk_error_set(err, u, s->path, line, (long)(t[11].p - row) + 1, "field 12 (user ID): %s, got '%.*s'",
                                wk_workload_user_error(u), (int)(t[11].len > 40 ? 40 : t[11].len), t[11].p);
        js.user = (uint32_t)u;
    }
    int64_t ts = (int64_t)dv[1];
    if (out->n == s->tscap) {
        s->tscap = s->tscap ? s->tscap * 2 : 1024;
        int64_t *nts = realloc(s->ts, s->tscap * sizeof *nts);
        if (!nts)
            return wk_error_set(err, WK_E_NOMEM, s->path, 0, 0, "out of memory");
        s->ts = nts;
    }
    s->ts[out->n] = ts;
    int rc = wk_workload_push(out, &js);
    if (rc < 0)
        return rc == WK_E_RANGE ? wk_error_set(err, rc, s->path, line, 0,
                                               "row: more than %d jobs, the limit of a workload (docs/limits.md)",
                                               WK_WORKLOAD_MAX_JOBS)
                                : wk_error_set(err, WK_E_NOMEM, s->path, 0, 0, "out of memory");
    if (ts < s->t0) {
        s->t0 = ts;
        s->line0 = line;
    }
    if (ts > s->t1) {
        s->t1 = ts;
        s->line1 = line;
    }
    if (s->t1 - s->t0 > MAX_SPAN_S)
        return wk_error_set(err, WK_E_RANGE, s->path, line, 0,
                            "field 2 (submit time): submit times span more than 73 years (line %ld to line %ld; "
                            "docs/limits.md)",
                            s->line0, s->line1);
    return 0;
}

static int load(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err)
{
    static const char *const known[] = {"source", "trace", "procs_per_gpu", "comm", "quotas", NULL};
    const char *rel = NULL;
    Swf s = {.procs_per_gpu = 1, .t0 = INT64_MAX, .t1 = INT64_MIN};
    int rc = wk_node_expect_keys(sec, known, err);
    if (rc < 0 || (rc = wk_node_str(sec, "trace", 1, &rel, err)) < 0 ||
        (rc = wk_node_int(sec, "procs_per_gpu", 0, 1, 1000000, &s.procs_per_gpu, err)) < 0)
        return rc;
    char path[4096];
    if (!wk_file_resolve(ctx->base_dir, rel, path, sizeof path))
        return wk_node_error(wk_node_get(sec, "trace"), WK_E_RANGE, err, "path too long");
    s.path = path;
    for (int h = 0; h < NHDR; h++)
        s.hdr[h] = -1;

    char *buf = NULL;
    size_t len = 0;
    if ((rc = wk_file_read_regular(path, "an SWF trace", MAX_FILE_BYTES, &buf, &len, err)) < 0)
        return rc;
    long line = 0, records = 0;
    const char *p = buf + wk_file_bom_len(buf, len), *end = buf + len;
    while (p < end) {
        const char *le, *row = wk_file_next_line(&p, end, &le);
        line++;
        const char *q = row;
        while (q < le && is_space(*q))
            q++;
        if (q == le)
            continue; /* blank line */
        if (*q == ';')
            rc = comment(&s, q + 1, le, row, line, err);
        else {
            records++;
            rc = job_line(&s, out, row, le, line, err);
        }
        if (rc < 0)
            goto fail;
    }
    if (out->n == 0) {
        rc = wk_error_set(err, WK_E_INVAL, path, 0, 0, "no job that ran (%ld records, %zu skipped for a run time or "
                                                       "processor count of -1)",
                          records, s.skipped);
        goto fail;
    }
    for (size_t i = 0; i < out->n; i++)
        out->jobs[i].submit = (s.ts[i] - s.t0) * WK_NS_PER_S;
    free(s.ts);
    free(buf);
    return 0;
fail:
    free(s.ts);
    free(buf);
    return rc;
}

const WkWorkloadSource wk_workload_swf = {
    .abi = WK_WORKLOAD_ABI,
    .name = "swf",
    .description = "Standard Workload Format (Parallel Workloads Archive), 18 fields a line",
    .load = load,
};
