/* SPDX-License-Identifier: Apache-2.0 */
/* export_chrome.c — a trace as Chrome trace-event JSON (the "JSON Object
 * Format" of the Trace Event Format document, which Perfetto and
 * chrome://tracing read): jobs, incidents and recovery phases as complete
 * ("X") slices packed into lanes so that slices on one track never overlap,
 * detection as instant ("i") events, the time series as counters ("C"), and
 * "M" metadata naming every process and thread; with a placement table
 * (schema 1.6), a track per node with the job segments it held. Tables come
 * from export.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/export.h"
#include "analysis/export_impl.h"
#include "sim/core/strbuf.h"
#include "sim/trace/schema.h"

/* Processes (pids), in the order the viewer sorts them. */
enum { PID_CLUSTER = 1, PID_JOBS, PID_HARDWARE, PID_RECOVERY, PID_NODES };

/* ---- lanes: interval partitioning with a min-heap of lane end times -------------------------- */

typedef struct Lanes {
    int64_t *end;   /* heap of (end, lane) by end */
    uint32_t *lane;
    size_t n, cap;
    uint32_t nlanes;
} Lanes;

static void heap_swap(Lanes *h, size_t a, size_t b)
{
    int64_t e = h->end[a];
    uint32_t l = h->lane[a];
    h->end[a] = h->end[b], h->lane[a] = h->lane[b];
    h->end[b] = e, h->lane[b] = l;
}

static void heap_down(Lanes *h, size_t i)
{
    for (;;) {
        size_t m = i, a = 2 * i + 1, b = a + 1;
        if (a < h->n && (h->end[a] < h->end[m] || (h->end[a] == h->end[m] && h->lane[a] < h->lane[m])))
            m = a;
        if (b < h->n && (h->end[b] < h->end[m] || (h->end[b] == h->end[m] && h->lane[b] < h->lane[m])))
            m = b;
        if (m == i)
            return;
        heap_swap(h, i, m);
        i = m;
    }
}

static int heap_push(Lanes *h, int64_t end, uint32_t lane)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        int64_t *e = realloc(h->end, cap * sizeof *e);
        if (!e)
            return -1;
        h->end = e;
        uint32_t *l = realloc(h->lane, cap * sizeof *l);
        if (!l)
            return -1;
        h->lane = l;
        h->cap = cap;
    }
    size_t i = h->n++;
    h->end[i] = end;
    h->lane[i] = lane;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h->end[p] < h->end[i] || (h->end[p] == h->end[i] && h->lane[p] < h->lane[i]))
            break;
        heap_swap(h, i, p);
        i = p;
    }
    return 0;
}

/* The lane for an interval [start, end) given in start order: the lane
 * freed earliest if it is free by start, else a new one. -1: out of memory. */
static int64_t lane_take(Lanes *h, int64_t start, int64_t end)
{
    uint32_t lane;
    if (h->n > 0 && h->end[0] <= start) {
        lane = h->lane[0];
        h->end[0] = h->end[--h->n];
        h->lane[0] = h->lane[h->n];
        heap_down(h, 0);
    } else {
        lane = h->nlanes++;
    }
    return heap_push(h, end, lane) < 0 ? -1 : (int64_t)lane;
}

static void lanes_reset(Lanes *h)
{
    h->n = 0;
    h->nlanes = 0;
}

static void lanes_free(Lanes *h)
{
    free(h->end);
    free(h->lane);
}

/* ---- writing events --------------------------------------------------------------------- */

typedef struct Out {
    FILE *f;
    size_t events;
    size_t tracks;
} Out;

/* A timestamp or duration in µs from ns, exactly ("1234.567"). */
static void us(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%lld.%03d", (long long)(ns / 1000), (int)(ns % 1000));
}

static void sep(Out *o)
{
    fputs(o->events++ ? ",\n" : "\n", o->f);
}

/* A JSON string (names here are the schema's and wanka's own words). */
static void jstr(FILE *f, const char *s)
{
    WkStrBuf b = {0};
    wk_strbuf_json_string(&b, s);
    char *t = wk_strbuf_take(&b);
    fputs(t ? t : "\"\"", f);
    free(t);
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void meta_process(Out *o, int pid, const char *name)
{
    sep(o);
    fprintf(o->f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":", pid);
    jstr(o->f, name);
    fputs("}}", o->f);
    sep(o);
    fprintf(o->f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"sort_index\":%d}}",
            pid, pid);
}

static void meta_thread(Out *o, int pid, uint32_t tid, const char *name)
{
    sep(o);
    fprintf(o->f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":", pid, tid);
    jstr(o->f, name);
    fputs("}}", o->f);
    sep(o);
    fprintf(o->f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
            pid, tid, tid);
    o->tracks++;
}

/* The start of an "X" slice; the caller writes the args' members and closes with "}}". */
static void slice_open(Out *o, int pid, uint32_t tid, const char *name, const char *cat, int64_t ts, int64_t dur)
{
    sep(o);
    fputs("{\"name\":", o->f);
    jstr(o->f, name);
    fprintf(o->f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":", cat, pid, tid);
    us(o->f, ts);
    fputs(",\"dur\":", o->f);
    us(o->f, dur > 0 ? dur : 0);
    fputs(",\"args\":{", o->f);
}

/* ---- the run's tables ---------------------------------------------------------------------- */

typedef struct Run {
    ExTable jobs, inc, ts, place, nodes;
    int64_t t_end;        /* end of the run: the last sample, or the latest time seen */
    double gpus;          /* root attribute gpus */
    char *sites;          /* a network's root attribute sites, its commas made NULs (owned), or NULL */
    size_t nsites;        /* names in sites */
} Run;

/* Times the timeline accepts: -1 (did not happen) to 2^62 ns (146 years),
 * so that a time plus a duration (at most 2^61 ns) cannot overflow. */
#define TIME_MAX ((int64_t)1 << 62)
#define DUR_MAX ((int64_t)1 << 61)

/* Seconds as ns, 0 for NaN or negative, at most DUR_MAX. */
static int64_t ns_of(double s)
{
    if (!(s > 0))
        return 0;
    return s * 1e9 >= (double)DUR_MAX ? DUR_MAX : (int64_t)llround(s * 1e9);
}

/* Every value of column name of t is in [lo, hi]: else WK_E_INVAL naming it. */
static int check_range(WkTraceRead *r, const ExTable *t, const char *name, int64_t lo, int64_t hi, WkError *err)
{
    const ExCol *c = wk_ex_col(t, name);
    for (size_t i = 0; c && i < t->n; i++)
        if (c->i[i] < lo || c->i[i] > hi)
            return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s.%s row %zu: %lld is out of range (%lld to %lld)",
                                wk_trace_read_path(r), t->spec->path, name, i, (long long)c->i[i], (long long)lo,
                                (long long)hi);
    return 0;
}

/* Order of rows by (key, start): the key array may be NULL (start only). */
typedef struct SortCtx {
    const int64_t *key, *start;
} SortCtx;
static SortCtx sort_ctx;

static int by_key_start(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (sort_ctx.key && sort_ctx.key[i] != sort_ctx.key[j])
        return sort_ctx.key[i] < sort_ctx.key[j] ? -1 : 1;
    if (sort_ctx.start[i] != sort_ctx.start[j])
        return sort_ctx.start[i] < sort_ctx.start[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

static size_t *sorted_rows(size_t n, const int64_t *key, const int64_t *start)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_ctx = (SortCtx){key, start};
    qsort(idx, n, sizeof *idx, by_key_start);
    return idx;
}

/* ---- cluster: counters ----------------------------------------------------------------------- */

static void counters(Out *o, const Run *R)
{
    const ExCol *t = wk_ex_col(&R->ts, WK_SCHEMA_CLUSTER_TIME), *al = wk_ex_col(&R->ts, WK_SCHEMA_CLUSTER_ALLOCATED),
                *ru = wk_ex_col(&R->ts, WK_SCHEMA_CLUSTER_RUNNING), *qu = wk_ex_col(&R->ts, WK_SCHEMA_CLUSTER_QUEUED),
                *pw = wk_ex_col(&R->ts, WK_SCHEMA_CLUSTER_POWER);
    meta_process(o, PID_CLUSTER, "cluster");
    for (size_t i = 0; i < R->ts.n; i++) {
        sep(o);
        fprintf(o->f, "{\"name\":\"utilization\",\"ph\":\"C\",\"pid\":%d,\"ts\":", PID_CLUSTER);
        us(o->f, t->i[i]);
        fputs(",\"args\":{\"allocated_fraction\":", o->f);
        jnum(o->f, R->gpus > 0 ? (double)al->i[i] / R->gpus : NAN);
        fputs("}}", o->f);
        sep(o);
        fprintf(o->f, "{\"name\":\"power_mw\",\"ph\":\"C\",\"pid\":%d,\"ts\":", PID_CLUSTER);
        us(o->f, t->i[i]);
        fputs(",\"args\":{\"MW\":", o->f);
        jnum(o->f, pw->d[i] / 1e6);
        fputs("}}", o->f);
        sep(o);
        fprintf(o->f, "{\"name\":\"jobs\",\"ph\":\"C\",\"pid\":%d,\"ts\":", PID_CLUSTER);
        us(o->f, t->i[i]);
        fprintf(o->f, ",\"args\":{\"queued\":%lld,\"running\":%lld}}", (long long)qu->i[i], (long long)ru->i[i]);
    }
}

/* ---- jobs -------------------------------------------------------------------------------------- */

/* The jobs of site (all when site is NULL) as slices on process pid. */
static int jobs_of(Out *o, const Run *R, Lanes *h, const ExCol *site, int64_t which, int pid, const char *pname,
                   WkError *err)
{
    const ExTable *J = &R->jobs;
    const ExCol *id = wk_ex_col(J, WK_SCHEMA_JOB_ID), *sub = wk_ex_col(J, WK_SCHEMA_JOB_SUBMIT),
                *st = wk_ex_col(J, WK_SCHEMA_JOB_START), *en = wk_ex_col(J, WK_SCHEMA_JOB_END),
                *gp = wk_ex_col(J, WK_SCHEMA_JOB_GPUS), *gf = wk_ex_col(J, WK_SCHEMA_JOB_GPUS_FINAL),
                *stat = wk_ex_col(J, WK_SCHEMA_JOB_STATUS), *it = wk_ex_col(J, WK_SCHEMA_JOB_ITERATIONS),
                *itt = wk_ex_col(J, WK_SCHEMA_JOB_ITERATION_TIME), *tf = wk_ex_col(J, WK_SCHEMA_JOB_TFLOPS),
                *pc = wk_ex_col(J, WK_SCHEMA_JOB_PATH_CLASS), *ir = wk_ex_col(J, WK_SCHEMA_JOB_INTERRUPTIONS),
                *pr = wk_ex_col(J, WK_SCHEMA_JOB_PREEMPTIONS), *et = wk_ex_col(J, WK_SCHEMA_JOB_ETTR);
    size_t *idx = sorted_rows(J->n, NULL, st ? st->i : NULL);
    uint32_t *lane = malloc((J->n ? J->n : 1) * sizeof *lane);
    if (!idx || !lane) {
        free(idx);
        free(lane);
        return wk_error_nomem(err, "export");
    }
    meta_process(o, pid, pname);
    lanes_reset(h);
    for (size_t k = 0; k < J->n; k++) {
        size_t i = idx[k];
        lane[i] = UINT32_MAX;
        if (st->i[i] < 0 || (site && site->i[i] != which))
            continue;
        /* a job stopped (requeued or preempted) and not running at the end has
         * no end time in the trace: it gets an instant, not a slice */
        int64_t end = en->i[i] >= 0 ? en->i[i]
                                    : stat->i[i] == WK_SCHEMA_STATUS_RUNNING ? R->t_end : st->i[i];
        int64_t l = lane_take(h, st->i[i], end > st->i[i] ? end : st->i[i] + 1);
        if (l < 0) {
            free(idx);
            free(lane);
            return wk_error_nomem(err, "export");
        }
        lane[i] = (uint32_t)l;
    }
    for (uint32_t l = 0; l < h->nlanes; l++) {
        char name[32];
        snprintf(name, sizeof name, "jobs %u", l);
        meta_thread(o, pid, l, name);
    }
    for (size_t k = 0; k < J->n; k++) {
        size_t i = idx[k];
        if (lane[i] == UINT32_MAX)
            continue;
        char name[48];
        snprintf(name, sizeof name, "job %lld", (long long)id->i[i]);
        int open = en->i[i] < 0 && stat->i[i] != WK_SCHEMA_STATUS_RUNNING;
        if (open) {
            sep(o);
            fputs("{\"name\":", o->f);
            jstr(o->f, name);
            fprintf(o->f, ",\"cat\":\"job\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%u,\"ts\":", PID_JOBS,
                    lane[i]);
            us(o->f, st->i[i]);
            fputs(",\"args\":{", o->f);
        } else {
            int64_t end = en->i[i] >= 0 ? en->i[i] : R->t_end;
            slice_open(o, pid, lane[i], name, "job", st->i[i], end - st->i[i]);
        }
        fprintf(o->f, "\"id\":%lld,\"gpus\":%lld", (long long)id->i[i], (long long)gp->i[i]);
        if (gf)
            fprintf(o->f, ",\"gpus_final\":%lld", (long long)gf->i[i]);
        fputs(",\"status\":", o->f);
        jstr(o->f, wk_schema_job_status_names[stat->i[i]]);
        fputs(",\"model\":", o->f);
        fputs(isfinite(it->d[i]) ? "true" : "false", o->f);
        fputs(",\"path_class\":", o->f);
        jstr(o->f, wk_schema_path_class_names[pc->i[i]]);
        fputs(",\"wait_s\":", o->f);
        jnum(o->f, (double)(st->i[i] - sub->i[i]) / 1e9);
        fprintf(o->f, ",\"interruptions\":%lld,\"preemptions\":%lld", (long long)ir->i[i], (long long)pr->i[i]);
        fputs(",\"iterations\":", o->f);
        jnum(o->f, it->d[i]);
        fputs(",\"iteration_time_s\":", o->f);
        jnum(o->f, itt->d[i]);
        fputs(",\"tflops_per_gpu\":", o->f);
        jnum(o->f, tf->d[i]);
        fputs(",\"ettr\":", o->f);
        jnum(o->f, et->d[i]);
        fputs("}}", o->f);
    }
    free(idx);
    free(lane);
    return 0;
}

/* The jobs as slices on lanes: one process "jobs", or for a network's trace
 * (jobs.site and the root attribute sites) one process per site. */
static int jobs(Out *o, const Run *R, Lanes *h, WkError *err)
{
    const ExCol *site = R->nsites ? wk_ex_col(&R->jobs, WK_SCHEMA_SITE) : NULL;
    int rc = site ? 0 : jobs_of(o, R, h, NULL, 0, PID_JOBS, "jobs", err);
    const char *name = R->sites;
    for (size_t k = 0; site && rc == 0 && k < R->nsites; k++, name += strlen(name) + 1) {
        char pname[160];
        snprintf(pname, sizeof pname, "site %.100s: jobs", name);
        rc = jobs_of(o, R, h, site, (int64_t)k, PID_NODES + 1 + (int)k, pname, err);
    }
    return rc;
}

/* ---- incidents: hardware tracks and recovery phases --------------------------------------------- */

typedef struct IncCols {
    const ExCol *id, *cls, *kind, *comp, *st, *en, *hit, *lost, *det, *wait, *rst, *rec, *work, *clock;
} IncCols;

static void incident_args(FILE *f, const IncCols *c, size_t i)
{
    fprintf(f, "\"id\":%lld,\"class\":", (long long)c->id->i[i]);
    jstr(f, wk_schema_fail_class_names[c->cls->i[i]]);
    fputs(",\"kind\":", f);
    jstr(f, wk_schema_incident_kind_names[c->kind->i[i]]);
    fprintf(f, ",\"component\":%lld,\"jobs_hit\":%lld,\"gpus_lost\":%lld,\"repaired\":%s",
            (long long)c->comp->i[i], (long long)c->hit->i[i], (long long)c->lost->i[i],
            c->en->i[i] >= 0 ? "true" : "false");
    static const char *const keys[] = {"detection_s", "wait_s", "restart_s", "recovery_s", "lost_work_gpu_h",
                                       "clock"};
    const ExCol *cols[] = {c->det, c->wait, c->rst, c->rec, c->work, c->clock};
    for (size_t k = 0; k < 6; k++) {
        fprintf(f, ",\"%s\":", keys[k]);
        jnum(f, cols[k]->d[i]);
    }
}

/* Hardware track keys: a node, a pod, a component no node holds (a link, a
 * switch, an event of unknown scope), or a whole class. */
enum { KEY_NODE = 100, KEY_POD = 101, KEY_SHIFT = 40 };

/* The node incident i hit, or -1 when the layout does not place it. */
static int64_t node_of(const IncCols *c, size_t i, const WkExportLayout *L)
{
    if (!L)
        return -1;
    int64_t comp = c->comp->i[i];
    switch (L->class_scope[c->cls->i[i]]) {
    case WK_EXPORT_SCOPE_GPU: return comp >= 0 && comp < L->gpus ? (int64_t)L->gpu_node[comp] : -1;
    case WK_EXPORT_SCOPE_NODE: return comp >= 0 && comp < L->nodes ? comp : -1;
    default: return -1;
    }
}

static int64_t hw_key(const IncCols *c, size_t i, int64_t node, const WkExportLayout *L, WkExportLevel level)
{
    /* per class: everything at the coarsest level, components no node
     * holds (links, switches, events) already at the pod level */
    if (level == WK_EXPORT_LEVEL_CLASS || (node < 0 && level == WK_EXPORT_LEVEL_POD))
        return c->cls->i[i] << KEY_SHIFT;
    if (node < 0)
        return (c->cls->i[i] << KEY_SHIFT) + 1 + c->comp->i[i];
    if (level == WK_EXPORT_LEVEL_POD)
        return ((int64_t)KEY_POD << KEY_SHIFT) + L->node_pod[node];
    return ((int64_t)KEY_NODE << KEY_SHIFT) + node;
}

static void track_name(char *name, size_t len, const IncCols *c, size_t i, int64_t key)
{
    int64_t kind = key >> KEY_SHIFT, id = key & (((int64_t)1 << KEY_SHIFT) - 1);
    if (kind == KEY_NODE)
        snprintf(name, len, "node %lld", (long long)id);
    else if (kind == KEY_POD)
        snprintf(name, len, "pod %lld", (long long)id);
    else if (id == 0)
        snprintf(name, len, "%s (all)", wk_schema_fail_class_names[c->cls->i[i]]);
    else
        snprintf(name, len, "%s %lld", wk_schema_fail_class_names[c->cls->i[i]], (long long)c->comp->i[i]);
}

static size_t distinct_keys(const int64_t *key, const size_t *idx, size_t n)
{
    size_t d = 0;
    for (size_t k = 0; k < n; k++)
        d += k == 0 || key[idx[k]] != key[idx[k - 1]];
    return d;
}

static int hardware(Out *o, const Run *R, const IncCols *c, size_t max_tracks, const WkExportLayout *L,
                    Lanes *h, WkExportLevel *level, WkError *err)
{
    size_t n = R->inc.n, one = n ? n : 1;
    int64_t *key = malloc(one * sizeof *key), *end = malloc(one * sizeof *end), *node = malloc(one * sizeof *node);
    uint32_t *tid = malloc(one * sizeof *tid);
    size_t *idx = NULL;
    int rc = 0;
    if (!key || !end || !node || !tid) {
        rc = wk_error_nomem(err, "export");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        end[i] = c->en->i[i] >= 0 ? c->en->i[i] : R->t_end;
        node[i] = node_of(c, i, L);
    }
    /* the finest level whose tracks fit max_tracks (counted on the key order) */
    for (int lv = WK_EXPORT_LEVEL_NODE; lv <= WK_EXPORT_LEVEL_CLASS; lv++) {
        if (lv == WK_EXPORT_LEVEL_POD && !L)
            continue;
        for (size_t i = 0; i < n; i++)
            key[i] = hw_key(c, i, node[i], L, (WkExportLevel)lv);
        free(idx);
        if (!(idx = sorted_rows(n, key, c->st->i))) {
            rc = wk_error_nomem(err, "export");
            goto done;
        }
        *level = (WkExportLevel)lv;
        if (distinct_keys(key, idx, n) <= max_tracks)
            break;
    }
    meta_process(o, PID_HARDWARE, "hardware");
    /* lanes within each key; tids numbered across keys in order */
    uint32_t next_tid = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && key[idx[b]] == key[idx[a]])
            b++;
        lanes_reset(h);
        for (size_t k = a; k < b; k++) {
            size_t i = idx[k];
            int64_t l = lane_take(h, c->st->i[i], end[i] > c->st->i[i] ? end[i] : c->st->i[i] + 1);
            if (l < 0) {
                rc = wk_error_nomem(err, "export");
                goto done;
            }
            tid[i] = next_tid + (uint32_t)l;
        }
        for (uint32_t l = 0; l < h->nlanes; l++) {
            char name[96];
            track_name(name, sizeof name, c, idx[a], key[idx[a]]);
            if (h->nlanes > 1) {
                size_t len = strlen(name);
                snprintf(name + len, sizeof name - len, " #%u", l);
            }
            meta_thread(o, PID_HARDWARE, next_tid + l, name);
        }
        next_tid += h->nlanes;
        a = b;
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = idx[k];
        char name[64];
        snprintf(name, sizeof name, "%s %s", wk_schema_fail_class_names[c->cls->i[i]],
                 wk_schema_incident_kind_names[c->kind->i[i]]);
        slice_open(o, PID_HARDWARE, tid[i], name, "incident", c->st->i[i], end[i] - c->st->i[i]);
        incident_args(o->f, c, i);
        if (node[i] >= 0)
            fprintf(o->f, ",\"node\":%lld,\"pod\":%lu", (long long)node[i], (unsigned long)L->node_pod[node[i]]);
        fputs("}}", o->f);
        if (isfinite(c->det->d[i]) && c->hit->i[i] > 0) {
            int64_t t = c->st->i[i] + ns_of(c->det->d[i]);
            sep(o);
            fprintf(o->f, "{\"name\":\"detected\",\"cat\":\"detection\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,"
                          "\"tid\":%u,\"ts\":",
                    PID_HARDWARE, tid[i]);
            us(o->f, t < end[i] ? t : end[i]);
            fprintf(o->f, ",\"args\":{\"incident\":%lld,\"detection_s\":", (long long)c->id->i[i]);
            jnum(o->f, c->det->d[i]);
            fputs("}}", o->f);
        }
    }
done:
    free(key);
    free(end);
    free(node);
    free(tid);
    free(idx);
    return rc;
}

/* One phase of a recovery, nested in [*at, lim): advances *at. */
static void phase(Out *o, uint32_t tid, const char *name, double s, int64_t *at, int64_t lim, long long inc)
{
    if (!isfinite(s) || s <= 0 || *at >= lim)
        return;
    int64_t d = ns_of(s);
    if (*at + d > lim)
        d = lim - *at;
    slice_open(o, PID_RECOVERY, tid, name, "recovery", *at, d);
    fprintf(o->f, "\"incident\":%lld,\"%s_s\":", inc, name);
    jnum(o->f, s);
    fputs("}}", o->f);
    *at += d;
}

static int recovery(Out *o, const Run *R, const IncCols *c, Lanes *h, WkError *err)
{
    size_t n = R->inc.n;
    size_t *idx = sorted_rows(n, NULL, c->st->i);
    uint32_t *tid = malloc((n ? n : 1) * sizeof *tid);
    if (!idx || !tid) {
        free(idx);
        free(tid);
        return wk_error_nomem(err, "export");
    }
    lanes_reset(h);
    for (size_t k = 0; k < n; k++) {
        size_t i = idx[k];
        tid[i] = UINT32_MAX;
        if (c->hit->i[i] == 0 || !isfinite(c->rec->d[i]))
            continue;
        int64_t l = lane_take(h, c->st->i[i], c->st->i[i] + (ns_of(c->rec->d[i]) > 0 ? ns_of(c->rec->d[i]) : 1));
        if (l < 0) {
            free(idx);
            free(tid);
            return wk_error_nomem(err, "export");
        }
        tid[i] = (uint32_t)l;
    }
    meta_process(o, PID_RECOVERY, "recovery of jobs hit");
    for (uint32_t l = 0; l < h->nlanes; l++) {
        char name[32];
        snprintf(name, sizeof name, "recovery %u", l);
        meta_thread(o, PID_RECOVERY, l, name);
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = idx[k];
        if (tid[i] == UINT32_MAX)
            continue;
        int64_t t0 = c->st->i[i], lim = t0 + ns_of(c->rec->d[i]);
        char name[64];
        snprintf(name, sizeof name, "recovery (%s)", wk_schema_fail_class_names[c->cls->i[i]]);
        slice_open(o, PID_RECOVERY, tid[i], name, "recovery", t0, lim - t0);
        incident_args(o->f, c, i);
        fputs("}}", o->f);
        int64_t at = t0;
        long long inc = (long long)c->id->i[i];
        phase(o, tid[i], "detection", c->det->d[i], &at, lim, inc);
        phase(o, tid[i], "wait", c->wait->d[i], &at, lim, inc);
        phase(o, tid[i], "restart", c->rst->d[i], &at, lim, inc);
    }
    free(idx);
    free(tid);
    return 0;
}

/* ---- nodes: each node's job segments (placement, schema 1.6) ------------------------------------ */

static int node_tracks(Out *o, const Run *R, Lanes *h, WkError *err)
{
    const ExTable *P = &R->place;
    const ExCol *job = wk_ex_col(P, WK_SCHEMA_PL_JOB), *seg = wk_ex_col(P, WK_SCHEMA_PL_SEGMENT),
                *st = wk_ex_col(P, WK_SCHEMA_PL_START), *en = wk_ex_col(P, WK_SCHEMA_PL_END),
                *node = wk_ex_col(P, WK_SCHEMA_PL_NODE), *nn = wk_ex_col(P, WK_SCHEMA_PL_NODES),
                *gpu = wk_ex_col(P, WK_SCHEMA_PL_GPU), *gpus = wk_ex_col(P, WK_SCHEMA_PL_GPUS),
                *pod = wk_ex_col(&R->nodes, WK_SCHEMA_NODE_POD);
    size_t n = 0; /* slices: one per row and node (ranges checked at open) */
    for (size_t i = 0; i < P->n; i++)
        n += (size_t)nn->i[i];
    size_t *row = malloc((n ? n : 1) * sizeof *row), *idx = NULL;
    int64_t *key = malloc((n ? n : 1) * sizeof *key), *t0 = malloc((n ? n : 1) * sizeof *t0);
    uint32_t *tid = malloc((n ? n : 1) * sizeof *tid);
    for (size_t i = 0, k = 0; row && key && t0 && i < P->n; i++)
        for (int64_t d = 0; d < nn->i[i]; d++, k++)
            row[k] = i, key[k] = node->i[i] + d, t0[k] = st->i[i];
    if (!row || !key || !t0 || !tid || !(idx = sorted_rows(n, key, t0))) {
        free(row), free(key), free(t0), free(tid);
        return wk_error_nomem(err, "export");
    }
    meta_process(o, PID_NODES, "nodes");
    uint32_t next = 0;
    for (size_t a = 0, b; a < n; a = b) { /* the slices of node key[idx[a]]: lanes, then tracks */
        lanes_reset(h);
        for (b = a; b < n && key[idx[b]] == key[idx[a]]; b++) {
            size_t i = row[idx[b]];
            int64_t l = lane_take(h, st->i[i], en->i[i] > st->i[i] ? en->i[i] : st->i[i] + 1);
            if (l < 0) {
                free(row), free(key), free(t0), free(tid), free(idx);
                return wk_error_nomem(err, "export");
            }
            tid[idx[b]] = next + (uint32_t)l;
        }
        for (uint32_t l = 0; l < h->nlanes; l++) {
            char name[64];
            int w = snprintf(name, sizeof name, "node %lld (pod %lld)", (long long)key[idx[a]],
                             (long long)pod->i[key[idx[a]]]);
            if (l > 0 && w > 0 && (size_t)w < sizeof name)
                snprintf(name + w, sizeof name - (size_t)w, " %u", l + 1);
            meta_thread(o, PID_NODES, next + l, name);
        }
        next += h->nlanes;
    }
    for (size_t k = 0; k < n; k++) {
        size_t i = row[idx[k]];
        char name[48];
        snprintf(name, sizeof name, "job %lld", (long long)job->i[i]);
        slice_open(o, PID_NODES, tid[idx[k]], name, "placement", st->i[i], en->i[i] - st->i[i]);
        fprintf(o->f, "\"job\":%lld,\"segment\":%lld,\"node\":%lld,\"gpus\":\"%lld-%lld\"}}", (long long)job->i[i],
                (long long)seg->i[i], (long long)key[idx[k]], (long long)gpu->i[i],
                (long long)(gpu->i[i] + gpus->i[i] - 1));
    }
    free(row), free(key), free(t0), free(tid), free(idx);
    return 0;
}

/* ---- the file ------------------------------------------------------------------------------------ */

static int load(WkTraceRead *r, Run *R, WkError *err)
{
    int rc;
    if ((rc = wk_ex_table_load(r, &wk_ex_jobs, 0, &R->jobs, err)) < 0 ||
        (rc = wk_ex_table_load(r, &wk_ex_incidents, 1, &R->inc, err)) < 0 ||
        (rc = wk_ex_table_load(r, &wk_ex_timeseries, 0, &R->ts, err)) < 0 ||
        (rc = wk_ex_table_load(r, &wk_ex_placement, 1, &R->place, err)) < 0 ||
        (rc = wk_ex_table_load(r, &wk_ex_nodes, 1, &R->nodes, err)) < 0)
        return rc;
    static const struct {
        size_t table;
        const char *col;
        int64_t lo, hi;
    } ranges[] = {
        {0, WK_SCHEMA_JOB_SUBMIT, -1, TIME_MAX},   {0, WK_SCHEMA_JOB_START, -1, TIME_MAX},
        {0, WK_SCHEMA_JOB_END, -1, TIME_MAX},      {1, WK_SCHEMA_INC_START, 0, TIME_MAX},
        {1, WK_SCHEMA_INC_END, -1, TIME_MAX},      {1, WK_SCHEMA_INC_COMPONENT, 0, UINT32_MAX},
        {2, WK_SCHEMA_CLUSTER_TIME, 0, TIME_MAX},
    };
    const ExTable *tabs[] = {&R->jobs, &R->inc, &R->ts};
    for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++)
        if ((rc = check_range(r, tabs[ranges[k].table], ranges[k].col, ranges[k].lo, ranges[k].hi, err)) < 0)
            return rc;
    int64_t g = 0;
    WkError e2;
    wk_error_clear(&e2);
    R->gpus = wk_trace_read_attr_i64(r, WK_SCHEMA_ATTR_GPUS, &g, &e2) == 0 ? (double)g : NAN;
    if (wk_trace_read_attr_str_opt(r, WK_SCHEMA_ATTR_SITES, &R->sites, &e2) == 0 && R->sites && R->sites[0])
        for (char *c = R->sites; c; R->nsites++)
            if ((c = strchr(c, ',')) != NULL)
                *c++ = '\0';
    const ExCol *t = wk_ex_col(&R->ts, WK_SCHEMA_CLUSTER_TIME);
    R->t_end = 0;
    for (size_t i = 0; i < R->ts.n; i++)
        R->t_end = t->i[i] > R->t_end ? t->i[i] : R->t_end;
    const ExCol *js = wk_ex_col(&R->jobs, WK_SCHEMA_JOB_START), *je = wk_ex_col(&R->jobs, WK_SCHEMA_JOB_END);
    for (size_t i = 0; i < R->jobs.n; i++) {
        R->t_end = js->i[i] > R->t_end ? js->i[i] : R->t_end;
        R->t_end = je->i[i] > R->t_end ? je->i[i] : R->t_end;
    }
    return 0;
}

static void other_data(FILE *f, WkTraceRead *r, const Run *R)
{
    static const char *const keys[] = {WK_SCHEMA_ATTR_SCENARIO_NAME, WK_SCHEMA_ATTR_SCHEDULER,
                                       WK_SCHEMA_ATTR_GPU_SKU, WK_SCHEMA_ATTR_WANKA_VERSION};
    fputs("\"otherData\":{\"trace\":", f);
    jstr(f, wk_trace_read_path(r));
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        char *v = NULL;
        WkError e2;
        wk_error_clear(&e2);
        if (wk_trace_read_attr_str_opt(r, keys[k], &v, &e2) < 0)
            continue;
        fprintf(f, ",\"%s\":", keys[k]);
        jstr(f, v);
        free(v);
    }
    fputs(",\"end_us\":", f);
    us(f, R->t_end);
    fputs(",\"gpus\":", f);
    jnum(f, R->gpus);
    fputs("}", f);
}

int wk_export_chrome(const char *trace, const char *out, const WkExportOpts *opts, WkExportStats *st,
                     WkError *err)
{
    size_t max_tracks = opts && opts->max_tracks ? opts->max_tracks : WK_EXPORT_MAX_TRACKS_DEFAULT;
    WkExportStats s = {0};
    WkTraceRead *r = NULL;
    Run R = {0};
    ExOut file = {0};
    Lanes h = {0};
    int rc = wk_trace_read_open(&r, trace, err);
    if (rc == 0)
        rc = load(r, &R, err);
    if (rc == 0)
        rc = wk_ex_out_open(&file, out, trace, err);
    if (rc == 0) {
        Out o = {.f = file.f};
        fputs("{\"displayTimeUnit\":\"ms\",", o.f);
        other_data(o.f, r, &R);
        fputs(",\"traceEvents\":[", o.f);
        counters(&o, &R);
        rc = jobs(&o, &R, &h, err);
        if (rc == 0 && R.place.present && R.nodes.present) /* the reader checked their ranges at open */
            rc = node_tracks(&o, &R, &h, err);
        if (rc == 0 && R.inc.present) {
            IncCols c = {
                wk_ex_col(&R.inc, WK_SCHEMA_INC_ID),        wk_ex_col(&R.inc, WK_SCHEMA_INC_CLASS),
                wk_ex_col(&R.inc, WK_SCHEMA_INC_KIND),      wk_ex_col(&R.inc, WK_SCHEMA_INC_COMPONENT),
                wk_ex_col(&R.inc, WK_SCHEMA_INC_START),     wk_ex_col(&R.inc, WK_SCHEMA_INC_END),
                wk_ex_col(&R.inc, WK_SCHEMA_INC_JOBS_HIT),  wk_ex_col(&R.inc, WK_SCHEMA_INC_GPUS_LOST),
                wk_ex_col(&R.inc, WK_SCHEMA_INC_DETECTION), wk_ex_col(&R.inc, WK_SCHEMA_INC_WAIT),
                wk_ex_col(&R.inc, WK_SCHEMA_INC_RESTART),   wk_ex_col(&R.inc, WK_SCHEMA_INC_RECOVERY),
                wk_ex_col(&R.inc, WK_SCHEMA_INC_LOST_WORK), wk_ex_col(&R.inc, WK_SCHEMA_INC_CLOCK),
            };
            rc = hardware(&o, &R, &c, max_tracks, opts ? opts->layout : NULL, &h, &s.level, err);
            if (rc == 0)
                rc = recovery(&o, &R, &c, &h, err);
        }
        fputs("\n]}\n", o.f);
        s.events = o.events;
        s.tracks = o.tracks;
        int rc2 = wk_ex_out_close(&file, rc == 0, err);
        rc = rc < 0 ? rc : rc2;
    }
    lanes_free(&h);
    wk_ex_table_free(&R.jobs);
    wk_ex_table_free(&R.inc);
    wk_ex_table_free(&R.ts);
    wk_ex_table_free(&R.place);
    wk_ex_table_free(&R.nodes);
    free(R.sites);
    wk_trace_read_close(r);
    if (st)
        *st = s;
    return rc;
}
