/* SPDX-License-Identifier: Apache-2.0 */
/* network_report.c — a network run's summary (the network's totals and
 * each site's headline metrics, `site.NAME.*`) and its trace tables: jobs
 * and incidents with a site column, the network's timeseries/cluster (the
 * sites' rows summed as step functions), timeseries/sites (every site's
 * rows), timeseries/facility with a site column. docs/metrics.md and
 * docs/trace-format.md define them. */
#include "models/network/network_impl.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/schema.h"
#include "sim/trace/trace.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void wk_net_account(const WkNet *n, WkRunAccount *a)
{
    __extension__ typedef unsigned __int128 U128;
    U128 alloc = 0, idle = 0, down = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        WkRunAccount ac;
        wk_run_account(n->s[i].run, &ac);
        alloc += (U128)ac.alloc_hi << 64 | ac.alloc_lo;
        idle += (U128)ac.idle_hi << 64 | ac.idle_lo;
        down += (U128)ac.down_hi << 64 | ac.down_lo;
    }
    *a = (WkRunAccount){.alloc_hi = (uint64_t)(alloc >> 64), .alloc_lo = (uint64_t)alloc,
                        .idle_hi = (uint64_t)(idle >> 64), .idle_lo = (uint64_t)idle,
                        .down_hi = (uint64_t)(down >> 64), .down_lo = (uint64_t)down, .end_ns = n->end_t};
}

/* Metrics summed over the sites (NaN when no site defines them). */
static const char *const summed[] = {
    WK_SCHEMA_M_JOBS_COMPLETED, WK_SCHEMA_M_ENERGY, WK_SCHEMA_M_ENERGY_COST, WK_SCHEMA_M_CO2,
    WK_SCHEMA_M_POWER_CAPPED, WK_SCHEMA_M_BUDGET_REFUSALS, WK_SCHEMA_M_SLEEP_SAVED, WK_SCHEMA_M_WAKE_DELAYS,
    WK_SCHEMA_M_WAKE_DELAY, WK_SCHEMA_M_MODEL_JOBS_STARTED, WK_SCHEMA_M_TOKENS_TRAINED, WK_SCHEMA_M_FLOW_RESHARES,
    WK_SCHEMA_M_INCIDENTS, WK_SCHEMA_M_INTERRUPTIONS, WK_SCHEMA_M_PREEMPTIONS, WK_SCHEMA_M_ELASTIC_SHRINKS,
    WK_SCHEMA_M_LOST_GPU_HOURS, WK_SCHEMA_M_EVENTS, NULL};
/* Metrics averaged over the sites weighted by their GPUs (all sites span
 * the same time, so this is the network's fraction). */
static const char *const by_gpu[] = {WK_SCHEMA_M_UTILIZATION, WK_SCHEMA_M_UTIL_EFFECTIVE, WK_SCHEMA_M_ETTR,
                                     WK_SCHEMA_M_GOODPUT, NULL};

static double site_metric(const WkSummary *s, const char *name)
{
    const WkMetric *m = wk_summary_get(s, name);
    return m ? m->value : NAN;
}

static double total(const WkSummary *ss, uint32_t n, const char *name, const double *w)
{
    double sum = 0, wsum = 0;
    int any = 0;
    for (uint32_t i = 0; i < n; i++) {
        double v = site_metric(&ss[i], name);
        if (isnan(v))
            continue;
        any = 1;
        sum += (w ? w[i] : 1) * v;
        wsum += w ? w[i] : 1;
    }
    return !any ? NAN : w ? (wsum > 0 ? sum / wsum : NAN) : sum;
}

static int label_of(const WkSummary *s, const char *name, const char **label, const char **units, int *is_int)
{
    const WkMetric *m = wk_summary_get(s, name);
    if (!m)
        return -1;
    *label = m->label;
    *units = m->units;
    *is_int = m->is_int;
    return 0;
}

/* JCT and wait over every job, wherever it ran. */
static int job_times(const WkNet *n, WkSummary *s)
{
    size_t nj = n->njobs;
    double *jct = malloc((nj ? nj : 1) * sizeof *jct), *wait = malloc((nj ? nj : 1) * sizeof *wait);
    if (!jct || !wait) {
        free(jct);
        free(wait);
        return -1;
    }
    size_t a = 0, b = 0;
    double sj = 0, sw = 0;
    for (size_t j = 0; j < nj; j++) {
        if (n->assign[j] < 0)
            continue;
        WkTime submit = wk_run_workload(n->s[n->assign[j]].run)->jobs[j].submit, start, end;
        uint8_t state;
        wk_net_job_times(n, (uint32_t)j, &start, &end, &state);
        if (start >= 0)
            sw += wait[b++] = wk_time_to_s(start - submit);
        if (state == WK_JOB_COMPLETED)
            sj += jct[a++] = wk_time_to_s(end - submit);
    }
    qsort(jct, a, sizeof *jct, cmp_double);
    qsort(wait, b, sizeof *wait, cmp_double);
    int rc = 0;
    rc |= wk_summary_add(s, WK_SCHEMA_M_JCT_MEAN, "job completion time mean", "s", a ? sj / (double)a : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JCT_P50, "job completion time p50", "s", wk_quantile_sorted(jct, a, 0.5), 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JCT_P99, "job completion time p99", "s", wk_quantile_sorted(jct, a, 0.99), 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_WAIT_MEAN, "queue wait mean (after any WAN transfer)", "s",
                         b ? sw / (double)b : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_WAIT_P99, "queue wait p99", "s", wk_quantile_sorted(wait, b, 0.99), 0);
    free(jct);
    free(wait);
    return rc;
}

/* HPC beside AI, over the network: the hpc jobs' mean wait and JCT from
 * the sites that ran them, GPU-hours and AI preemptions summed. */
static int hpc_rows(const WkNet *n, const WkSummary *ss, WkSummary *s)
{
    const WkWorkload *wl = wk_run_workload(n->s[0].run);
    if (!wl->nhpc)
        return 0;
    double wait = 0, jct = 0;
    size_t nw = 0, nj = 0;
    for (size_t j = 0; j < n->njobs; j++) {
        if (wl->jobs[j].kind != WK_JOB_HPC || n->assign[j] < 0)
            continue;
        WkRunSiteJob v = wk_run_site_job(n->s[n->assign[j]].run, (uint32_t)j);
        if (v.start >= 0) {
            wait += wk_time_to_s(v.start - wl->jobs[j].submit);
            nw++;
        }
        if (v.state == WK_JOB_COMPLETED) {
            jct += wk_time_to_s(v.end - wl->jobs[j].submit);
            nj++;
        }
    }
    int rc = 0;
    rc |= wk_summary_add(s, WK_SCHEMA_M_HPC_JOBS, "hpc jobs in the workload", "jobs", (double)wl->nhpc, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_HPC_WAIT_MEAN, "hpc queue wait mean", "s", nw ? wait / (double)nw : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_HPC_JCT_MEAN, "hpc job completion time mean", "s",
                         nj ? jct / (double)nj : NAN, 0);
    static const char *const sums[] = {WK_SCHEMA_M_HPC_GPU_HOURS, WK_SCHEMA_M_AI_GPU_HOURS, WK_SCHEMA_M_AI_PREEMPTIONS,
                                       NULL};
    for (size_t k = 0; sums[k]; k++) {
        const char *label, *units;
        int is_int;
        if (label_of(&ss[0], sums[k], &label, &units, &is_int) == 0)
            rc |= wk_summary_add(s, sums[k], label, units, total(ss, n->n, sums[k], NULL), is_int);
    }
    return rc;
}

/* Jobs across sites (`span:`): how many, what holding their GPUs for the
 * gang cost, and the gradients their rings moved over the WAN. */
static int span_rows(const WkNet *n, WkSummary *s)
{
    size_t done = 0, given_up = 0;
    double hold = 0;
    for (size_t g = 0; g < n->ngang; g++) {
        done += n->gang[g].done && !n->gang[g].given_up;
        given_up += n->gang[g].given_up;
        hold += n->gang[g].hold_gpu_s;
    }
    int rc = 0;
    rc |= wk_summary_add(s, "span_considered", "jobs weighed for running across sites", "jobs",
                         (double)n->span_considered, 1);
    rc |= wk_summary_add(s, "spanned_jobs", "jobs run across sites", "jobs", (double)n->ngang, 1);
    rc |= wk_summary_add(s, "spanned_completed", "jobs across sites completed", "jobs", (double)done, 1);
    rc |= wk_summary_add(s, "spanned_given_up", "jobs across sites given up (a site refused a part)", "jobs",
                         (double)given_up, 1);
    rc |= wk_summary_add(s, "span_retries", "times a gang gave its GPUs back after span.hold", "times",
                         (double)n->span_retries, 1);
    rc |= wk_summary_add(s, "span_hold_gpu_h", "GPU-hours parts held waiting for their gang", "GPU-h", hold / 3600,
                         0);
    rc |= wk_summary_add(s, "span_wan_tb", "gradients moved over the WAN by jobs across sites", "TB",
                         n->span_wan_bytes / 1e12, 0);
    return rc;
}

/* The rows site_rows adds per site (2 and `per`'s 6) and the network's own
 * (about 60, `span` included) fit a summary at the limit of sites. */
_Static_assert(WK_NET_MAX_SITES * 8 + 128 <= WK_SUMMARY_MAX, "a summary holds a network at its limit of sites");

/* Each site's headline metrics, named site.NAME.METRIC. */
static int site_rows(const WkNet *n, const WkSummary *ss, WkSummary *s)
{
    static const char *const per[] = {WK_SCHEMA_M_JOBS_COMPLETED, WK_SCHEMA_M_UTILIZATION, WK_SCHEMA_M_JCT_MEAN,
                                      WK_SCHEMA_M_WAIT_MEAN, WK_SCHEMA_M_ENERGY, WK_SCHEMA_M_ENERGY_COST, NULL};
    int rc = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        const NetSite *st = &n->s[i];
        char name[48], label[64];
        snprintf(name, sizeof name, "site.%s.gpus", st->name);
        snprintf(label, sizeof label, "%.24s: GPUs", st->name);
        rc |= wk_summary_add(s, name, label, "GPUs", (double)st->gpus, 1);
        snprintf(name, sizeof name, "site.%s.jobs", st->name);
        snprintf(label, sizeof label, "%.24s: jobs sent there", st->name);
        rc |= wk_summary_add(s, name, label, "jobs", (double)st->assigned, 1);
        for (size_t k = 0; per[k]; k++) {
            const WkMetric *m = wk_summary_get(&ss[i], per[k]);
            if (!m)
                continue;
            snprintf(name, sizeof name, "site.%s.%s", st->name, per[k]);
            snprintf(label, sizeof label, "%.24s: %.37s", st->name, m->label);
            rc |= wk_summary_add(s, name, label, m->units, m->value, m->is_int);
        }
    }
    return rc;
}

int wk_net_summary(const WkNet *n, WkSummary *s, WkError *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->scenario, sizeof s->scenario, "%s", n->name);
    snprintf(s->scheduler, sizeof s->scheduler, "%s", n->broker->name);
    s->seed = n->seed;
    /* the table's header names the broker: each site has its own scheduler */
    snprintf(s->title, sizeof s->title, "scenario %.100s  broker %.31s  seed %llu", n->name, n->broker->name,
             (unsigned long long)n->seed);
    WkSummary *ss = calloc(n->n, sizeof *ss);
    double *w = calloc(n->n, sizeof *w);
    if (!ss || !w) {
        free(ss);
        free(w);
        return wk_error_nomem(err, "summary");
    }
    int rc = 0;
    for (uint32_t i = 0; i < n->n && rc == 0; i++) {
        rc = wk_run_summary(n->s[i].run, &ss[i], err);
        w[i] = n->s[i].gpus;
    }
    if (rc < 0) {
        free(ss);
        free(w);
        return rc;
    }
    double completed = total(ss, n->n, WK_SCHEMA_M_JOBS_COMPLETED, NULL);
    double rejected = total(ss, n->n, WK_SCHEMA_M_JOBS_REJECTED, NULL) + (double)n->unplaced;
    for (size_t g = 0; g < n->ngang; g++) { /* a job across sites counts once */
        const WkNetGang *gg = &n->gang[g];
        for (uint32_t q = 0; q < gg->k; q++)
            completed -= wk_run_site_job(n->s[gg->site[q]].run, gg->job).state == WK_JOB_COMPLETED;
        completed += gg->done && !gg->given_up;
    }
    double T = wk_time_to_s(n->end_t);
    int bad = 0;
    bad |= wk_summary_add(s, WK_SCHEMA_M_GPUS, "GPUs (all sites)", "GPUs", wk_net_gpus(n), 1);
    bad |= wk_summary_add(s, "sites", "sites", "", n->n, 1);
    bad |= wk_summary_add(s, WK_SCHEMA_M_JOBS_SUBMITTED, "jobs in the workload", "jobs", (double)n->njobs, 1);
    bad |= wk_summary_add(s, WK_SCHEMA_M_JOBS_REJECTED, "jobs rejected (no site or never fit)", "jobs", rejected, 1);
    bad |= wk_summary_add(s, WK_SCHEMA_M_JOBS_UNFINISHED, "jobs unfinished at the end", "jobs",
                          (double)n->njobs - completed - rejected, 1);
    for (size_t k = 0; summed[k]; k++) {
        const char *label, *units;
        int is_int;
        double v = strcmp(summed[k], WK_SCHEMA_M_JOBS_COMPLETED) == 0 ? completed : total(ss, n->n, summed[k], NULL);
        if (label_of(&ss[0], summed[k], &label, &units, &is_int) == 0)
            bad |= wk_summary_add(s, summed[k], label, units, v, is_int);
    }
    for (size_t k = 0; by_gpu[k]; k++) {
        const char *label, *units;
        int is_int;
        if (label_of(&ss[0], by_gpu[k], &label, &units, &is_int) == 0)
            bad |= wk_summary_add(s, by_gpu[k], label, units, total(ss, n->n, by_gpu[k], w), is_int);
    }
    bad |= job_times(n, s);
    bad |= hpc_rows(n, ss, s);
    double kwh = total(ss, n->n, WK_SCHEMA_M_ENERGY, NULL);
    bad |= wk_summary_add(s, WK_SCHEMA_M_MEAN_POWER, "mean power (all facilities)", "MW",
                          T > 0 ? kwh * 3.6e6 / T / 1e6 : NAN, 0);
    bad |= wk_summary_add(s, WK_SCHEMA_M_ENERGY_PER_JOB, "energy per completed job", "kWh",
                          completed > 0 ? kwh / completed : NAN, 0);
    double tokens = total(ss, n->n, WK_SCHEMA_M_TOKENS_TRAINED, NULL);
    bad |= wk_summary_add(s, WK_SCHEMA_M_TOKENS_PER_JOULE, "tokens trained per joule (all facilities)", "tokens/J",
                          kwh > 0 && !isnan(tokens) ? tokens / (kwh * 3.6e6) : NAN, 0);
    double jk = 0, jc = 0, jt = 0;
    for (uint32_t i = 0; i < n->n; i++) /* what a broker's choices change */
        wk_run_site_jobs_energy(n->s[i].run, &jk, &jc, &jt);
    bad |= wk_summary_add(s, "jobs_energy_kwh", "energy the jobs added over idle (PUE included)", "kWh", jk, 0);
    bad |= wk_summary_add(s, "jobs_energy_cost", "cost of the energy the jobs added", "currency", jc, 0);
    bad |= wk_summary_add(s, "jobs_co2_t", "grid CO2 of the energy the jobs added", "t", jt, 0);
    bad |= wk_summary_add(s, "wan_tb", "datasets moved over the WAN", "TB", n->wan_bytes / 1e12, 0);
    bad |= wk_summary_add(s, "wan_transfers", "jobs whose dataset crossed the WAN", "jobs", (double)n->transfers, 1);
    bad |= wk_summary_add(s, "wan_cost", "WAN transfer cost (wan links' cost_per_tb)", "currency", n->wan_cost, 0);
    double xfer = 0;
    for (uint32_t i = 0; i < n->n; i++)
        xfer += n->s[i].transfer_s;
    bad |= wk_summary_add(s, "transfer_mean_s", "WAN transfer time per moved job, mean", "s",
                          n->transfers ? xfer / (double)n->transfers : NAN, 0);
    if (n->span_max >= 2)
        bad |= span_rows(n, s);
    bad |= wk_summary_add(s, WK_SCHEMA_M_MAKESPAN, "makespan", "s", n->finished ? T : NAN, 0);
    bad |= wk_summary_add(s, WK_SCHEMA_M_SIMULATED, "simulated time", "s", T, 0);
    bad |= site_rows(n, ss, s);
    free(ss);
    free(w);
    if (bad)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "summary: too many metrics (%u sites)", n->n);
    return 0;
}

/* ---- trace ---- */

#define NF(a) (sizeof a / sizeof a[0])
#define MAXF 32

/* A column list: base's columns, then a site column at site_off. */
static size_t with_site(WkTraceField *out, const WkTraceField *base, size_t nbase, size_t site_off)
{
    memcpy(out, base, nbase * sizeof *base);
    out[nbase] = (WkTraceField){WK_SCHEMA_SITE, WK_FT_I32, site_off, "", NULL};
    return nbase + 1;
}

typedef struct {
    WkRunJobRow job;
    int32_t site;
} NetJobRow;

static int write_jobs(const WkNet *n, WkTrace *t, WkError *err)
{
    WkRunRows base = wk_run_rows(n->s[0].run, WK_RUN_TABLE_JOBS);
    WkTraceField f[MAXF];
    size_t nf = with_site(f, base.fields, base.nfields, offsetof(NetJobRow, site));
    WkTraceTable *tab = NULL;
    NetJobRow rows[256];
    int rc = wk_trace_table_begin(t, WK_SCHEMA_JOBS, f, nf, sizeof(NetJobRow),
                                  "one row per job of the workload, in workload order; site: where it ran (-1: none)",
                                  &tab, err);
    size_t k = 0;
    for (size_t j = 0; rc == 0 && j < n->njobs; j++) {
        int32_t s = n->assign[j];
        rows[k++] = (NetJobRow){wk_run_job_row(n->s[s < 0 ? 0 : s].run, (uint32_t)j), s};
        if (n->gang_of && n->gang_of[j] >= 0) { /* across sites: the gang's GPUs and times, at its first site */
            const WkNetGang *g = &n->gang[n->gang_of[j]];
            WkRunJobRow *row = &rows[k - 1].job;
            WkTime start, end;
            uint8_t state;
            wk_net_job_times(n, (uint32_t)j, &start, &end, &state);
            row->gpus = row->gpus_final = g->part * g->k;
            row->start_ns = start;
            row->end_ns = end;
            row->status = state == WK_JOB_COMPLETED ? WK_SCHEMA_STATUS_COMPLETED
                          : state == WK_JOB_REJECTED ? WK_SCHEMA_STATUS_REJECTED
                          : state == WK_JOB_RUNNING  ? WK_SCHEMA_STATUS_RUNNING
                                                     : WK_SCHEMA_STATUS_QUEUED;
        }
        if (s < 0) /* never sent anywhere: rejected by the network, or never submitted */
            rows[k - 1].job.status = wk_run_site_job(n->s[0].run, (uint32_t)j).state == WK_JOB_PENDING
                                         ? WK_SCHEMA_STATUS_NOT_SUBMITTED
                                         : WK_SCHEMA_STATUS_REJECTED;
        if (k == NF(rows) || j + 1 == n->njobs) {
            rc = wk_trace_table_append(tab, rows, k, err);
            k = 0;
        }
    }
    return rc == 0 ? wk_trace_table_end(tab, err) : rc;
}

/* A table of every site's rows of `table`, site after site, each row
 * followed by its site: a run's rows are 8-byte aligned with a size that is
 * a multiple of 8 (run.h), so the site sits right after the row and the
 * row with it pads to a multiple of 8. */
static int write_by_site(const WkNet *n, WkTrace *t, const char *path, WkRunTable table, const char *desc,
                         WkError *err)
{
    WkRunRows base = wk_run_rows(n->s[0].run, table);
    size_t item_size = base.size; /* the site column sits right after the row */
    size_t row_size = (item_size + sizeof(int32_t) + 7) / 8 * 8;
    WkTraceField f[MAXF];
    size_t nf = with_site(f, base.fields, base.nfields, item_size);
    WkTraceTable *tab = NULL;
    enum { CHUNK = 256 };
    unsigned char *rows = calloc(CHUNK, row_size);
    if (!rows)
        return wk_error_nomem(err, path);
    int rc = wk_trace_table_begin(t, path, f, nf, row_size, desc, &tab, err);
    for (uint32_t s = 0; rc == 0 && s < n->n; s++) {
        WkRunRows rr = wk_run_rows(n->s[s].run, table);
        const unsigned char *it = rr.rows;
        size_t k = 0;
        int32_t site = (int32_t)s;
        for (size_t i = 0; rc == 0 && i < rr.n; i++) {
            memcpy(rows + k * row_size, it + i * item_size, item_size);
            memcpy(rows + k * row_size + item_size, &site, sizeof site);
            if (++k == CHUNK || i + 1 == rr.n) {
                rc = wk_trace_table_append(tab, rows, k, err);
                k = 0;
            }
        }
    }
    free(rows);
    return rc == 0 ? wk_trace_table_end(tab, err) : rc;
}

static int write_incidents(const WkNet *n, WkTrace *t, WkError *err)
{
    return write_by_site(n, t, WK_SCHEMA_INCIDENTS, WK_RUN_TABLE_INCIDENTS,
                         "one row per failure, slowdown or scripted incident, site by site in time order", err);
}

/* timeseries/sites: every site's rows with its index. */
static int write_site_series(const WkNet *n, WkTrace *t, WkError *err)
{
    return write_by_site(n, t, WK_SCHEMA_SITES_SERIES, WK_RUN_TABLE_CLUSTER,
                         "each site's state, as timeseries/cluster of a single-site run, site by site", err);
}

/* timeseries/cluster of the network: at every time any site has a row, the
 * sum of each site's latest row (a site's state holds until its next row). */
static int write_total_series(const WkNet *n, WkTrace *t, WkError *err)
{
    WkRunRows sr[WK_NET_MAX_SITES];
    size_t *at = calloc(n->n, sizeof *at), cap = 0;
    for (uint32_t s = 0; s < n->n; s++) {
        sr[s] = wk_run_rows(n->s[s].run, WK_RUN_TABLE_CLUSTER);
        cap += sr[s].n;
    }
    WkSampleRow *rows = malloc((cap ? cap : 1) * sizeof *rows);
    if (!at || !rows) {
        free(at);
        free(rows);
        return wk_error_nomem(err, "timeseries/cluster");
    }
    size_t k = 0;
    for (;;) {
        int64_t next = INT64_MAX;
        for (uint32_t s = 0; s < n->n; s++) {
            const WkSampleRow *a = sr[s].rows;
            if (at[s] < sr[s].n && a[at[s]].time_ns < next)
                next = a[at[s]].time_ns;
        }
        if (next == INT64_MAX)
            break;
        WkSampleRow row = {.time_ns = next};
        for (uint32_t s = 0; s < n->n; s++) {
            const WkSampleRow *a = sr[s].rows;
            while (at[s] < sr[s].n && a[at[s]].time_ns <= next)
                at[s]++;
            if (at[s] == 0)
                continue;
            const WkSampleRow *p = &a[at[s] - 1];
            row.allocated_gpus += p->allocated_gpus;
            row.running_jobs += p->running_jobs;
            row.queued_jobs += p->queued_jobs;
            row.power_w += p->power_w;
        }
        rows[k++] = row;
    }
    int rc = wk_trace_table(t, WK_SCHEMA_CLUSTER, sr[0].fields, sr[0].nfields, sizeof(WkSampleRow), rows, k,
                            "the network: every site's latest row summed, at every time a site has a row", err);
    free(at);
    free(rows);
    return rc;
}

static int write_facility(const WkNet *n, WkTrace *t, WkError *err)
{
    int any = 0;
    for (uint32_t s = 0; s < n->n; s++) {
        const WkFacilitySpec *f = wk_run_facility(n->s[s].run);
        any |= f->nbudget || f->ntariff;
    }
    if (!any)
        return 0;
    return write_by_site(n, t, WK_SCHEMA_FACILITY, WK_RUN_TABLE_FACILITY,
                         "each site's facility (sites with a facility section), site by site", err);
}

/* timeseries/wan: what each directed WAN link carried, per bin (only when
 * the WAN carried anything). */
static int write_wan_series(const WkNet *cn, WkTrace *t, WkError *err)
{
    WkNet *n = (WkNet *)cn; /* the rows sort its intervals in place: nothing a reader sees */
    if (n->wan_nomem)
        return wk_error_nomem(err, "timeseries/wan");
    WkNetWanRow *rows = NULL;
    size_t k = 0;
    int rc = wk_net_wan_rows(n, n->end_t, &rows, &k, err);
    if (rc < 0 || !k)
        return rc;
    static const WkTraceField f[] = {
        {WK_SCHEMA_WAN_TIME, WK_FT_I64, offsetof(WkNetWanRow, time_ns), "ns", NULL},
        {WK_SCHEMA_WAN_FROM, WK_FT_I32, offsetof(WkNetWanRow, from), "", NULL},
        {WK_SCHEMA_WAN_TO, WK_FT_I32, offsetof(WkNetWanRow, to), "", NULL},
        {WK_SCHEMA_WAN_BYTES, WK_FT_F64, offsetof(WkNetWanRow, bytes_per_s), "bytes/s", NULL},
        {WK_SCHEMA_WAN_CAPACITY, WK_FT_F64, offsetof(WkNetWanRow, capacity), "bytes/s", NULL},
    };
    rc = wk_trace_table(t, WK_SCHEMA_WAN_SERIES, f, NF(f), sizeof(WkNetWanRow), rows, k,
                        "each directed WAN link's mean traffic per bin (datasets and the rings of jobs across "
                        "sites, max-min shared), with a row of 0 after a bin it carried traffic in; from/to: "
                        "indices into the root attribute sites",
                        err);
    free(rows);
    return rc;
}

/* The network's tables (after the root attributes, before the summary). */
static int write_tables(const void *user, WkTrace *t, WkError *err)
{
    const WkNet *n = user;
    char names[WK_NET_MAX_SITES * 33];
    size_t used = 0;
    names[0] = '\0';
    for (uint32_t s = 0; s < n->n; s++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", s ? "," : "", n->s[s].name);
    int rc;
    if ((rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SITES, names, err)) < 0 ||
        (rc = write_jobs(n, t, err)) < 0 || (rc = write_total_series(n, t, err)) < 0 ||
        (rc = write_site_series(n, t, err)) < 0 || (rc = write_facility(n, t, err)) < 0 ||
        (rc = write_incidents(n, t, err)) < 0 || (rc = write_wan_series(n, t, err)) < 0)
        return rc;
    return 0;
}

static int summary_of(const void *user, WkSummary *s, WkError *err) { return wk_net_summary(user, s, err); }

int wk_net_write_trace(const WkNet *n, const char *path, WkError *err)
{
    char skus[512];
    size_t used = 0;
    skus[0] = '\0';
    for (uint32_t i = 0; i < n->n; i++)
        wk_run_skus(n->s[i].run, skus, sizeof skus, &used);
    WkRunTraceRoot root = {.doc = n->doc, .sets = n->opts.sets, .nsets = n->opts.nsets, .seed = n->seed,
                           .name = n->name, .scheduler = n->broker->name, .skus = skus, .gpus = wk_net_gpus(n),
                           .sample_interval = n->sample_interval, .complete = !n->interrupted};
    return wk_run_trace_write(path, &root, write_tables, summary_of, n, err);
}
