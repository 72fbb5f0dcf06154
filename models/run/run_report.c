/* SPDX-License-Identifier: Apache-2.0 */
/* run_report.c — a finished run's summary metrics and its HDF5 trace. The
 * metric definitions are in docs/metrics.md; the trace layout in
 * docs/trace-format.md, its names and enum values in sim/trace/schema.h. */
#include "models/run/run_impl.h"
#include "models/broker/broker.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/fair.h"
#include "sim/trace/schema.h"
#include "sim/trace/trace.h"
#include "wk_config.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double u128_to_double(wk_u128 v) { return (double)v; }

/* Population std dev over GPUs of each GPU's allocated fraction of
 * [w0, w1), from the recorded allocation segments. NaN on an empty window. */
static double gpu_util_std(const WkRun *r, WkTime w0, WkTime w1)
{
    uint32_t G = r->cluster.gpus;
    if (w1 <= w0 || G == 0)
        return NAN;
    double *busy = calloc(G, sizeof *busy);
    if (!busy)
        return NAN;
    for (size_t i = 0; i < r->acct.nsegs; i++) {
        const WkAllocSeg *sg = &r->acct.segs[i];
        WkTime a = sg->from > w0 ? sg->from : w0, b = sg->to < w1 ? sg->to : w1;
        if (b <= a || !wk_seg_allocated(sg))
            continue;
        for (uint32_t k = 0; k < sg->n; k++)
            busy[sg->gpus[k]] += (double)(b - a);
    }
    double sum = 0, sum2 = 0, span = (double)(w1 - w0);
    for (uint32_t g = 0; g < G; g++) {
        double u = busy[g] / span;
        sum += u;
        sum2 += u * u;
    }
    free(busy);
    double mean = sum / G, var = sum2 / G - mean * mean;
    return sqrt(var > 0 ? var : 0);
}

/* The busiest day: the 24 h window (starting at a sample) with the most
 * allocated GPU-time in the time series. */
static void peak_window(const WkRun *r, WkTime *w0, WkTime *w1)
{
    const WkTime day = WK_NS_PER_DAY;
    *w0 = 0;
    *w1 = r->end_t < day ? r->end_t : day;
    double best = -1;
    for (size_t i = 0; i < r->acct.nsamples; i++) {
        WkTime a = r->acct.samples[i].time_ns, b = a + day;
        if (b > r->end_t)
            break;
        double tot = 0;
        for (size_t k = i; k + 1 < r->acct.nsamples && r->acct.samples[k].time_ns < b; k++) {
            WkTime t1 = r->acct.samples[k + 1].time_ns < b ? r->acct.samples[k + 1].time_ns : b;
            tot += (double)r->acct.samples[k].allocated_gpus * (double)(t1 - r->acct.samples[k].time_ns);
        }
        if (tot > best) {
            best = tot;
            *w0 = a;
            *w1 = b;
        }
    }
}

/* GPU-seconds a job has spent running and making progress (restart costs
 * and hung time excluded), with the open segment of a job still running. */
static double running_gpu_s(const WkRun *r, uint32_t j)
{
    const WkJobRt *rt = &r->rt[j];
    double a = rt->attained_gpu_s;
    if (rt->state == WK_JOB_RUNNING && !rt->hung && r->end_t > rt->seg_start)
        a += (double)r->wl.jobs[j].gpus * wk_time_to_s(r->end_t - rt->seg_start);
    return a;
}

/* Useful work of a job at nominal speed, GPU-s (docs/metrics.md): *made
 * gains all progress made (rolled back or not), *kept what stands at the
 * end. Model jobs: iterations x nominal iteration time x requested GPUs;
 * plain jobs: reference run time done x GPUs (x its share of the GPU, with
 * GPU sharing). The open segment of a running job counts. */
static void useful_work(const WkRun *r, uint32_t j, double *made, double *kept)
{
    const WkJobRt *rt = &r->rt[j];
    const WkJobSpec *js = &r->wl.jobs[j];
    if (rt->start < 0)
        return;
    int open = rt->state == WK_JOB_RUNNING && !rt->hung && r->end_t > rt->seg_start;
    double dt = open ? wk_time_to_s(r->end_t - rt->seg_start) : 0;
    if (!js->model) {
        double more = dt * rt->speed;
        double left = wk_time_to_s(rt->left_ns);
        more = more < left ? more : left;
        double share = wk_run_job_milli(r, j) ? wk_run_job_milli(r, j) / 1000.0 : 1; /* a GPU share's work */
        *made += (rt->work_gpu_s + more * js->gpus) * share;
        *kept += (wk_time_to_s(js->duration) - left + more) * js->gpus * share;
        return;
    }
    if (!isfinite(rt->nominal_iter_s))
        return;
    double iters = rt->iter_s > 0 ? dt / rt->iter_s : 0;
    if (iters > rt->work - rt->done)
        iters = rt->work - rt->done;
    double per = rt->nominal_iter_s * rt->gpus_req;
    *made += rt->work_gpu_s + iters * per;
    *kept += (rt->done + iters) * per;
}

/* Model jobs: tokens trained (progress settled to the end), achieved FLOP/s
 * over GPU-time running, tokens per joule, re-shares. */
static int model_rows(const WkRun *r, WkSummary *s)
{
    int rc = 0;
    double tokens = 0, flops = 0, gpu_s = 0;
    size_t model_jobs = 0;
    for (size_t i = 0; i < r->wl.n; i++) {
        const WkJobRt *rt = &r->rt[i];
        if (!r->wl.jobs[i].model || rt->start < 0)
            continue;
        model_jobs++;
        double done = rt->done;
        if (rt->state == WK_JOB_RUNNING && rt->iter_s > 0 && r->end_t > rt->seg_start)
            done += wk_time_to_s(r->end_t - rt->seg_start) / rt->iter_s;
        if (done > rt->work)
            done = rt->work;
        tokens += done * rt->samples_per_iter;
        flops += done * rt->flops_per_iter;
        gpu_s += running_gpu_s(r, (uint32_t)i);
    }
    rc |= wk_summary_add(s, WK_SCHEMA_M_MODEL_JOBS_STARTED, "model jobs started", "jobs", (double)model_jobs, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_TOKENS_TRAINED, "tokens (or samples) trained", "tokens", model_jobs ? tokens : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_TFLOPS_PER_GPU, "achieved model TFLOP/s per GPU (model jobs)", "TFLOP/s",
                         gpu_s > 0 ? flops / gpu_s / 1e12 : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_TOKENS_PER_JOULE, "tokens per joule (facility)", "tokens/J",
                         model_jobs && r->acct.energy_j > 0 ? tokens / r->acct.energy_j : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_FLOW_RESHARES, "job rate recomputations (fabric sharing)", "",
                         (double)r->share.reflows, 1);
    return rc;
}

/* HPC beside AI (only when the workload has hpc jobs): the hpc jobs' mean
 * wait and completion time, the GPU-hours each kind ran, and how often AI
 * jobs were preempted (at a lending site: taken back for hpc jobs). */
static int hpc_rows(const WkRun *r, WkSummary *s)
{
    if (!r->wl.nhpc)
        return 0;
    double wait = 0, jct = 0, hpc_s = 0, ai_s = 0, ai_pre = 0;
    size_t nw = 0, nj = 0;
    for (size_t i = 0; i < r->wl.n; i++) {
        const WkJobRt *rt = &r->rt[i];
        const WkJobSpec *js = &r->wl.jobs[i];
        if (js->kind != WK_JOB_HPC) {
            ai_s += running_gpu_s(r, (uint32_t)i);
            ai_pre += rt->preemptions;
            continue;
        }
        hpc_s += running_gpu_s(r, (uint32_t)i);
        if (rt->start >= 0) {
            wait += wk_time_to_s(rt->start - js->submit);
            nw++;
        }
        if (rt->state == WK_JOB_COMPLETED) {
            jct += wk_time_to_s(rt->end - js->submit);
            nj++;
        }
    }
    int rc = 0;
    rc |= wk_summary_add(s, WK_SCHEMA_M_HPC_JOBS, "hpc jobs in the workload", "jobs", (double)r->wl.nhpc, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_HPC_WAIT_MEAN, "hpc queue wait mean", "s", nw ? wait / (double)nw : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_HPC_JCT_MEAN, "hpc job completion time mean", "s",
                         nj ? jct / (double)nj : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_HPC_GPU_HOURS, "hpc jobs' running time", "GPU-h", hpc_s / 3600, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_AI_GPU_HOURS, "AI jobs' running time (served)", "GPU-h", ai_s / 3600, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_AI_PREEMPTIONS, "AI job preemptions (lend: taken back for hpc)", "", ai_pre,
                         1);
    return rc;
}

/* Reliability: incidents, interruptions, preemptions, shrinks, recovery
 * times, lost work, ETTR, goodput (given). *full turns non-zero when the
 * table is full. Returns 0 or WK_E_NOMEM. */
static int reliability_rows(const WkRun *r, WkSummary *s, double goodput, int *full, WkError *err)
{
    int rc = 0;
    double *rec = malloc((wk_run_fail(r)->nincidents ? wk_run_fail(r)->nincidents : 1) * sizeof *rec);
    if (!rec)
        return wk_error_nomem(err, "summary");
    size_t nrec = 0;
    double sum_rec = 0;
    for (size_t i = 0; i < wk_run_fail(r)->nincidents; i++)
        if (!isnan(wk_run_fail(r)->incidents[i].recovery_s)) {
            rec[nrec++] = wk_run_fail(r)->incidents[i].recovery_s;
            sum_rec += wk_run_fail(r)->incidents[i].recovery_s;
        }
    qsort(rec, nrec, sizeof *rec, cmp_double);
    double useful = 0, elapsed = 0;
    for (size_t i = 0; i < r->wl.n; i++) {
        const WkJobRt *rt = &r->rt[i];
        if (rt->start < 0)
            continue;
        WkTime until = rt->end >= 0 ? rt->end : r->end_t;
        double prog = rt->prog_s;
        if (rt->state == WK_JOB_RUNNING && !rt->hung && r->end_t > rt->seg_start)
            prog += wk_time_to_s(r->end_t - rt->seg_start);
        useful += prog;
        elapsed += wk_time_to_s(until - rt->start);
    }
    int failures = r->fail.enabled || r->fail.nscripted;
    rc |= wk_summary_add(s, WK_SCHEMA_M_INCIDENTS, "incidents (failures, slowdowns)", "", (double)wk_run_fail(r)->nincidents, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_INTERRUPTIONS, "job interruptions by failures", "", (double)wk_run_fail(r)->interruptions, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_PREEMPTIONS, "job preemptions by the scheduler", "", (double)r->preemptions, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_ELASTIC_SHRINKS, "elastic restarts on fewer GPUs", "", (double)wk_run_fail(r)->shrinks, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_RECOVERY_MEAN, "recovery time mean", "s", nrec ? sum_rec / (double)nrec : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_RECOVERY_P50, "recovery time p50", "s", wk_quantile_sorted(rec, nrec, 0.5), 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_RECOVERY_P99, "recovery time p99", "s", wk_quantile_sorted(rec, nrec, 0.99), 0);
    if (failures && wk_run_fail(r)->restarts) { /* the restart breakdown: mean per step over restarts after an incident */
        const WkRunFail *f = wk_run_fail(r);
        double n = (double)f->restarts;
        static const char *const names[WK_RSTEP_N] = {WK_SCHEMA_M_REC_DRAIN_MEAN, WK_SCHEMA_M_REC_LAUNCH_MEAN,
                                                      WK_SCHEMA_M_REC_INIT_MEAN, WK_SCHEMA_M_REC_LOAD_MEAN,
                                                      WK_SCHEMA_M_REC_WARMUP_MEAN};
        static const char *const what[WK_RSTEP_N] = {
            "recovery step: drain mean", "recovery step: launch (relaunch or hot spare) mean",
            "recovery step: communicator init mean", "recovery step: checkpoint load mean",
            "recovery step: warm-up mean"};
        rc |= wk_summary_add(s, WK_SCHEMA_M_REC_DETECT_MEAN, "recovery step: detection mean", "s", f->detect_sum / n, 0);
        for (int k = 0; k < WK_RSTEP_N; k++)
            rc |= wk_summary_add(s, names[k], what[k], "s", f->step_sum[k] / n, 0);
    }
    rc |= wk_summary_add(s, WK_SCHEMA_M_LOST_GPU_HOURS, "lost work (rolled back)", "GPU-h", failures ? wk_run_fail(r)->lost_gpu_s / 3600 : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_ETTR, "effective training time ratio", "fraction", elapsed > 0 ? useful / elapsed : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_GOODPUT, "goodput (work kept, at nominal speed / available)", "fraction",
                         goodput, 0);
    free(rec);
    *full |= rc;
    return 0;
}

/* Rows of the §3.1 work outsourcing: only when it is on (so other
 * summaries are unchanged). */
static int outsource_rows(const WkRun *r, WkSummary *s)
{
    int on = 0;
    WkOutsourceStats o = wk_outsource_stats(r, &on);
    if (!on)
        return 0;
    int rc = 0;
    rc |= wk_summary_add(s, WK_SCHEMA_M_OUTSOURCE_LENDS, "outsourcing: jobs grown onto idle nodes", "",
                         (double)o.lends, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_OUTSOURCE_RETURNS, "outsourcing: shrinks handing GPUs to a waiting job", "",
                         (double)o.returns, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_OUTSOURCE_GPU_HOURS, "outsourcing: GPU time lent beyond jobs' requests",
                         "GPU-h", o.borrowed_gpu_s / 3600, 0);
    return rc;
}

/* Rows of the clocks schedulers chose per job: only when one did, or with
 * `on_budget: policy` (so other summaries are unchanged). */
static int clock_rows(const WkRun *r, WkSummary *s)
{
    const WkRunBudget *b = wk_run_budget(r);
    if (!b->job_clock && !(r->fac.nbudget && r->fac.mode == WK_BUDGET_POLICY))
        return 0;
    size_t jobs = 0;
    double saved_j = b->pc_saved_j, cost = b->pc_cost, co2 = b->pc_co2_kg, lost = b->pc_lost_gpu_s;
    for (size_t i = 0; b->rate && i < r->wl.n; i++) {
        const WkClockRate *q = &b->rate[i];
        const WkJobRt *rt = &r->rt[i];
        jobs += q->ever;
        if (!q->on || rt->state != WK_JOB_RUNNING || rt->hung || r->end_t <= rt->seg_start)
            continue;
        /* the open segment of a running job counts, as in useful_work */
        double dt = wk_time_to_s(r->end_t - rt->seg_start);
        saved_j += q->saved_w * dt;
        lost += q->lost_gpus * dt;
        if (r->fac.ntariff)
            (void)wk_facility_charge(&r->fac, rt->seg_start, r->end_t, q->saved_w, &cost, &co2);
    }
    int priced = r->fac.ntariff > 0, rc = 0;
    rc |= wk_summary_add(s, WK_SCHEMA_M_CLOCKED_JOBS, "jobs that ran at a clock their scheduler chose", "jobs",
                         (double)jobs, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_CLOCK_SAVED_KWH, "energy the chosen clocks saved for the same work", "kWh",
                         saved_j / 3.6e6, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_CLOCK_SAVED_COST, "energy cost the chosen clocks saved", "currency",
                         priced ? cost : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_CLOCK_SAVED_CO2, "grid CO2 the chosen clocks saved", "t",
                         priced ? co2 / 1000 : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_CLOCK_LOST_GPU_H, "GPU-time the chosen clocks added to the jobs' run",
                         "GPU-h", lost / 3600, 0);
    return rc;
}

/* Users with rows of their own in the summary (the aggregates are over all). */
#define FAIR_USER_ROWS 64

/* Bounded slowdown; with users, their fairness rows and per-user rows
 * (docs/metrics.md, "Slowdown and fairness"). After every other row, so the
 * rows before them are those of a summary without these. Returns 0, 1 when
 * the summary is full, or WK_E_NOMEM. */
static int fair_rows(const WkRun *r, WkSummary *s)
{
    size_t n = r->wl.n, nu = r->wl.nusers;
    WkFairJob *jobs = malloc((n ? n : 1) * sizeof *jobs);
    WkFairUser *users = malloc((nu ? nu : 1) * sizeof *users);
    WkFairResult res;
    int rc = !jobs || !users ? WK_E_NOMEM : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const WkJobRt *rt = &r->rt[i];
        const WkJobSpec *js = &r->wl.jobs[i];
        jobs[i] = (WkFairJob){
            .submit_s = wk_time_to_s(js->submit),
            .start_s = rt->start >= 0 ? wk_time_to_s(rt->start) : -1,
            .end_s = rt->end >= 0 ? wk_time_to_s(rt->end) : -1,
            .gpu_s = rt->start >= 0 ? running_gpu_s(r, (uint32_t)i) : 0,
            .gpus = rt->gpus_req,
            .user = js->user,
            .completed = rt->state == WK_JOB_COMPLETED,
        };
    }
    if (rc == 0)
        rc = wk_fair_compute(jobs, n, nu, (double)r->cluster.gpus, WK_BSLD_TAU_S, users, &res);
    free(jobs);
    if (rc < 0) {
        free(users);
        return rc;
    }
    rc |= wk_summary_add(s, WK_SCHEMA_M_BSLD_MEAN, "bounded slowdown mean", "", res.bsld_mean, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_BSLD_P99, "bounded slowdown p99", "", res.bsld_p99, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_BSLD_TAU, "bounded slowdown threshold tau", "s", WK_BSLD_TAU_S, 0);
    if (nu) {
        rc |= wk_summary_add(s, WK_SCHEMA_M_USERS, "users", "users", (double)nu, 1);
        rc |= wk_summary_add(s, WK_SCHEMA_M_JAIN_USERS, "Jain's index over users' mean slowdown", "", res.jain, 0);
        rc |= wk_summary_add(s, WK_SCHEMA_M_FTF_MEAN, "finish-time fairness mean over users", "", res.ftf_mean, 0);
        rc |= wk_summary_add(s, WK_SCHEMA_M_FTF_MAX, "finish-time fairness max over users", "", res.ftf_max, 0);
    }
    for (size_t u = 0; u < nu && u < FAIR_USER_ROWS; u++) {
        const char *nm = r->wl.users[u];
        const WkFairUser *fu = &users[u];
        char name[64], label[96];
#define USER_ROW(suffix, what, units, v, isint)                                                                       \
    snprintf(name, sizeof name, "user.%s." suffix, nm);                                                              \
    snprintf(label, sizeof label, "user %s: " what, nm);                                                             \
    rc |= wk_summary_add(s, name, label, units, v, isint)
        USER_ROW("jobs", "jobs", "jobs", (double)fu->jobs, 1);
        USER_ROW("completed", "jobs completed", "jobs", (double)fu->completed, 1);
        USER_ROW("gpu_h", "GPU-hours running", "GPU-h", fu->gpu_h, 0);
        USER_ROW("wait_mean_s", "queue wait mean", "s", fu->wait_mean_s, 0);
        USER_ROW("bsld_mean", "bounded slowdown mean", "", fu->bsld_mean, 0);
        USER_ROW("ftf", "finish-time fairness", "", fu->ftf, 0);
#undef USER_ROW
    }
    free(users);
    return rc ? 1 : 0;
}

int wk_run_summary(const WkRun *r, WkSummary *s, WkError *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->scenario, sizeof s->scenario, "%s", r->name);
    snprintf(s->scheduler, sizeof s->scheduler, "%s", r->sched->name);
    s->seed = r->seed;
    size_t n = r->wl.n;
    double *jct = malloc((n ? n : 1) * sizeof *jct);
    double *wait = malloc((n ? n : 1) * sizeof *wait);
    if (!jct || !wait) {
        free(jct);
        free(wait);
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "summary: out of memory");
    }
    size_t nj = 0, nw = 0;
    double sum_jct = 0, sum_wait = 0;
    for (size_t i = 0; i < n; i++) {
        const WkJobRt *rt = &r->rt[i];
        if (rt->start >= 0) {
            wait[nw] = wk_time_to_s(rt->start - r->wl.jobs[i].submit);
            sum_wait += wait[nw++];
        }
        if (rt->state == WK_JOB_COMPLETED) {
            jct[nj] = wk_time_to_s(rt->end - r->wl.jobs[i].submit);
            sum_jct += jct[nj++];
        }
    }
    qsort(jct, nj, sizeof *jct, cmp_double);
    qsort(wait, nw, sizeof *wait, cmp_double);
    double avail = (double)r->cluster.gpus * wk_time_to_s(r->end_t);
    double util = avail > 0 ? u128_to_double(r->acct.alloc_ns) / 1e9 / avail : NAN;
    size_t unfinished = n - r->completed - r->rejected - r->elsewhere;

    int rc = 0;
    rc |= wk_summary_add(s, WK_SCHEMA_M_GPUS, "GPUs", "GPUs", r->cluster.gpus, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JOBS_SUBMITTED, "jobs in the workload", "jobs", (double)(n - r->elsewhere), 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JOBS_COMPLETED, "jobs completed", "jobs", (double)r->completed, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JOBS_REJECTED, "jobs rejected (never fit)", "jobs", (double)r->rejected, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JOBS_UNFINISHED, "jobs unfinished at the end", "jobs", (double)unfinished, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_UTILIZATION, "GPU utilization (allocated)", "fraction", util, 0);
    double made = 0, kept = 0;
    for (size_t i = 0; i < n; i++)
        useful_work(r, (uint32_t)i, &made, &kept);
    rc |= wk_summary_add(s, WK_SCHEMA_M_UTIL_EFFECTIVE, "GPU utilization (useful work at nominal speed)", "fraction",
                         avail > 0 ? made / avail : NAN, 0);
    WkTime pw0, pw1;
    peak_window(r, &pw0, &pw1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_UTIL_GPU_STD, "per-GPU utilization std dev (whole run)", "fraction",
                         gpu_util_std(r, 0, r->end_t), 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_UTIL_GPU_STD_PEAK, "per-GPU utilization std dev (busiest day)", "fraction",
                         gpu_util_std(r, pw0, pw1), 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JCT_MEAN, "job completion time mean", "s", nj ? sum_jct / (double)nj : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JCT_P50, "job completion time p50", "s", wk_quantile_sorted(jct, nj, 0.5), 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_JCT_P99, "job completion time p99", "s", wk_quantile_sorted(jct, nj, 0.99), 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_WAIT_MEAN, "queue wait mean", "s", nw ? sum_wait / (double)nw : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_WAIT_P99, "queue wait p99", "s", wk_quantile_sorted(wait, nw, 0.99), 0);
    double kwh = r->acct.energy_j / 3.6e6;
    rc |= wk_summary_add(s, WK_SCHEMA_M_ENERGY, "energy (facility, PUE included)", "kWh", kwh, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_MEAN_POWER, "mean power (facility)", "MW",
                         r->end_t > 0 ? r->acct.energy_j / wk_time_to_s(r->end_t) / 1e6 : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_ENERGY_PER_JOB, "energy per completed job", "kWh",
                         r->completed ? kwh / (double)r->completed : NAN, 0);
    int priced = r->fac.ntariff > 0, budget = r->fac.nbudget > 0;
    rc |= wk_summary_add(s, WK_SCHEMA_M_ENERGY_COST, "energy cost (facility.prices)", "currency",
                         priced ? r->acct.cost : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_CO2, "grid CO2 (facility.prices)", "t", priced ? r->acct.co2_kg / 1000 : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_POWER_CAPPED, "time the facility budget capped clocks", "h",
                         budget ? wk_run_budget(r)->capped_s / 3600 : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_BUDGET_REFUSALS, "starts refused by the facility budget", "",
                         budget ? (double)wk_run_budget(r)->held : NAN, 1);
    int sleeps = r->cluster.power.sleep_after > 0;
    rc |= wk_summary_add(s, WK_SCHEMA_M_SLEEP_SAVED, "energy saved by idle power-down", "kWh",
                         sleeps ? wk_run_sleep(r)->saved_j / 3.6e6 : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_WAKE_DELAYS, "job starts delayed by a waking node", "",
                         sleeps ? (double)wk_run_sleep(r)->delays : NAN, 1);
    rc |= wk_summary_add(s, WK_SCHEMA_M_WAKE_DELAY, "start delay added by waking nodes", "h",
                         sleeps ? wk_run_sleep(r)->delay_s / 3600 : NAN, 0);
    rc |= model_rows(r, s);
    int rr = reliability_rows(r, s, avail > 0 ? kept / avail : NAN, &rc, err);
    if (rr < 0) {
        free(jct);
        free(wait);
        return rr;
    }
    rc |= wk_summary_add(s, WK_SCHEMA_M_MAKESPAN, "makespan", "s", r->finished ? wk_time_to_s(r->end_t) : NAN, 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_SIMULATED, "simulated time", "s", wk_time_to_s(r->end_t), 0);
    rc |= wk_summary_add(s, WK_SCHEMA_M_EVENTS, "events processed", "events", (double)wk_engine_events(r->eng), 1);
    rc |= hpc_rows(r, s);
    rc |= clock_rows(r, s);
    rc |= outsource_rows(r, s);
    free(jct);
    free(wait);
    int fr = fair_rows(r, s);
    if (fr < 0)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "summary: out of memory");
    rc |= fr;
    if (rc)
        return wk_error_set(err, WK_E_INTERNAL, NULL, 0, 0, "summary: too many metrics");
    return 0;
}

/* ---- trace ---- */

/* The run's enums are stored as the schema's, value for value. */
_Static_assert((int)WK_PATH_CROSS_POD == (int)WK_SCHEMA_PATH_CROSS_POD, "path classes as in the schema");
_Static_assert((int)WK_FC_N == (int)WK_SCHEMA_CLASS_EVENT, "failure classes as in the schema");
_Static_assert((int)WK_FC_MAINT == (int)WK_SCHEMA_CLASS_MAINTENANCE, "failure classes as in the schema");
_Static_assert((int)WK_INC_SOFT == (int)WK_SCHEMA_KIND_SOFTWARE, "incident kinds as in the schema");
_Static_assert((int)WK_JOB_HPC == (int)WK_SCHEMA_JOBKIND_HPC, "job kinds as in the schema");

static uint8_t status_of(uint8_t state)
{
    switch (state) {
    case WK_JOB_COMPLETED: return WK_SCHEMA_STATUS_COMPLETED;
    case WK_JOB_REJECTED: return WK_SCHEMA_STATUS_REJECTED;
    case WK_JOB_QUEUED: return WK_SCHEMA_STATUS_QUEUED;
    case WK_JOB_RUNNING: return WK_SCHEMA_STATUS_RUNNING;
    default: return WK_SCHEMA_STATUS_NOT_SUBMITTED;
    }
}

const WkTraceField wk_report_job_fields[] = {
    {WK_SCHEMA_JOB_ID, WK_FT_U32, offsetof(WkRunJobRow, id), "", NULL},
    {WK_SCHEMA_JOB_SUBMIT, WK_FT_I64, offsetof(WkRunJobRow, submit_ns), "ns", NULL},
    {WK_SCHEMA_JOB_START, WK_FT_I64, offsetof(WkRunJobRow, start_ns), "ns", NULL},
    {WK_SCHEMA_JOB_END, WK_FT_I64, offsetof(WkRunJobRow, end_ns), "ns", NULL},
    {WK_SCHEMA_JOB_DURATION, WK_FT_I64, offsetof(WkRunJobRow, duration_ns), "ns", NULL},
    {WK_SCHEMA_JOB_GPUS, WK_FT_U32, offsetof(WkRunJobRow, gpus), "GPUs", NULL},
    {WK_SCHEMA_JOB_STATUS, WK_FT_ENUM8, offsetof(WkRunJobRow, status), "", wk_schema_job_status_names},
    {WK_SCHEMA_JOB_ITERATIONS, WK_FT_F64, offsetof(WkRunJobRow, iterations), "", NULL},
    {WK_SCHEMA_JOB_ITERATION_TIME, WK_FT_F64, offsetof(WkRunJobRow, iter_time_s), "s", NULL},
    {WK_SCHEMA_JOB_TFLOPS, WK_FT_F64, offsetof(WkRunJobRow, tflops), "TFLOP/s", NULL},
    {WK_SCHEMA_JOB_PATH_CLASS, WK_FT_ENUM8, offsetof(WkRunJobRow, path_class), "", wk_schema_path_class_names},
    {WK_SCHEMA_JOB_INTERRUPTIONS, WK_FT_U32, offsetof(WkRunJobRow, interruptions), "", NULL},
    {WK_SCHEMA_JOB_PREEMPTIONS, WK_FT_U32, offsetof(WkRunJobRow, preemptions), "", NULL},
    {WK_SCHEMA_JOB_ETTR, WK_FT_F64, offsetof(WkRunJobRow, ettr), "", NULL},
    {WK_SCHEMA_JOB_GPUS_FINAL, WK_FT_U32, offsetof(WkRunJobRow, gpus_final), "GPUs", NULL},
    {WK_SCHEMA_JOB_KIND, WK_FT_ENUM8, offsetof(WkRunJobRow, kind), "", wk_schema_job_kind_names},
};

const WkTraceField wk_report_sample_fields[] = {
    {WK_SCHEMA_CLUSTER_TIME, WK_FT_I64, offsetof(WkSampleRow, time_ns), "ns", NULL},
    {WK_SCHEMA_CLUSTER_ALLOCATED, WK_FT_U32, offsetof(WkSampleRow, allocated_gpus), "GPUs", NULL},
    {WK_SCHEMA_CLUSTER_RUNNING, WK_FT_U32, offsetof(WkSampleRow, running_jobs), "jobs", NULL},
    {WK_SCHEMA_CLUSTER_QUEUED, WK_FT_U32, offsetof(WkSampleRow, queued_jobs), "jobs", NULL},
    {WK_SCHEMA_CLUSTER_POWER, WK_FT_F64, offsetof(WkSampleRow, power_w), "W", NULL},
};

#define NF(a) (sizeof a / sizeof a[0])
const size_t wk_report_njob_fields = NF(wk_report_job_fields);
const size_t wk_report_nsample_fields = NF(wk_report_sample_fields);

/* The jobs table row of job i. */
WkRunJobRow wk_run_job_row(const WkRun *r, uint32_t i)
{
    const WkJobSpec *js = &r->wl.jobs[i];
    const WkJobRt *rt = &r->rt[i];
    double it = NAN, tf = NAN, iters = NAN;
    if (js->model && rt->start >= 0) {
        double done = rt->done;
        WkTime until = rt->end >= 0 ? rt->end : r->end_t;
        if (rt->state == WK_JOB_RUNNING && rt->iter_s > 0 && r->end_t > rt->seg_start)
            done += wk_time_to_s(r->end_t - rt->seg_start) / rt->iter_s;
        iters = rt->work;
        double gpu_s = running_gpu_s(r, i);
        if (done > 0) {
            it = wk_time_to_s(until - rt->start) / done;
            /* as the summary's tflops_per_gpu: FLOPs of the iterations kept
             * over the GPU-seconds making progress (queue, restart costs,
             * time hung or waiting for a repair excluded) */
            double kept = done < rt->work ? done : rt->work;
            tf = gpu_s > 0 ? kept * rt->flops_per_iter / gpu_s / 1e12 : NAN;
        }
    }
    /* The spec's count is the one the job holds: an elastic shrink
     * (fail_recover.c) lowers it in place; the request is kept in gpus_req. */
    WkRunJobRow row = {
        .id = (uint32_t)i,
        .gpus = rt->gpus_req,
        .gpus_final = js->gpus,
        .submit_ns = js->submit,
        .start_ns = rt->start,
        .end_ns = rt->end,
        .duration_ns = js->model ? (rt->end >= 0 ? rt->end - rt->start : -1) : js->duration,
        .iterations = iters,
        .iter_time_s = it,
        .tflops = tf,
        .status = status_of(rt->state),
        .path_class = rt->path_class == WK_JOB_NO_PATH ? WK_SCHEMA_PATH_NONE : rt->path_class,
        .interruptions = wk_run_fail(r)->job ? wk_run_fail(r)->job[i].interruptions : 0,
        .preemptions = rt->preemptions,
        .ettr = NAN,
        .kind = js->kind,
    };
    if (rt->start >= 0) {
        WkTime until = rt->end >= 0 ? rt->end : r->end_t;
        double prog = rt->prog_s;
        if (rt->state == WK_JOB_RUNNING && !rt->hung && r->end_t > rt->seg_start)
            prog += wk_time_to_s(r->end_t - rt->seg_start);
        if (until > rt->start)
            row.ettr = prog / wk_time_to_s(until - rt->start);
    }
    return row;
}

static int write_jobs(const WkRun *r, WkTrace *t, WkError *err)
{
    WkRunJobRow rows[256];
    WkTraceTable *tab = NULL;
    int rc = wk_trace_table_begin(t, WK_SCHEMA_JOBS, wk_report_job_fields, NF(wk_report_job_fields), sizeof(WkRunJobRow),
                                  "one row per job of the workload, in workload order", &tab, err);
    size_t k = 0;
    for (size_t i = 0; rc == 0 && i < r->wl.n; i++) {
        rows[k++] = wk_run_job_row(r, i);
        if (k == NF(rows) || i + 1 == r->wl.n) {
            rc = wk_trace_table_append(tab, rows, k, err);
            k = 0;
        }
    }
    if (rc == 0)
        rc = wk_trace_table_end(tab, err);
    return rc;
}

const WkTraceField wk_report_incident_fields[] = {
    {WK_SCHEMA_INC_ID, WK_FT_U32, offsetof(WkIncidentRow, id), "", NULL},
    {WK_SCHEMA_INC_CLASS, WK_FT_ENUM8, offsetof(WkIncidentRow, cls), "", wk_schema_fail_class_names},
    {WK_SCHEMA_INC_KIND, WK_FT_ENUM8, offsetof(WkIncidentRow, kind), "", wk_schema_incident_kind_names},
    {WK_SCHEMA_INC_COMPONENT, WK_FT_U32, offsetof(WkIncidentRow, component), "", NULL},
    {WK_SCHEMA_INC_START, WK_FT_I64, offsetof(WkIncidentRow, start_ns), "ns", NULL},
    {WK_SCHEMA_INC_END, WK_FT_I64, offsetof(WkIncidentRow, end_ns), "ns", NULL},
    {WK_SCHEMA_INC_JOBS_HIT, WK_FT_U32, offsetof(WkIncidentRow, jobs_hit), "jobs", NULL},
    {WK_SCHEMA_INC_GPUS_LOST, WK_FT_U32, offsetof(WkIncidentRow, gpus_lost), "GPUs", NULL},
    {WK_SCHEMA_INC_DETECTION, WK_FT_F64, offsetof(WkIncidentRow, detect_s), "s", NULL},
    {WK_SCHEMA_INC_WAIT, WK_FT_F64, offsetof(WkIncidentRow, wait_s), "s", NULL},
    {WK_SCHEMA_INC_RESTART, WK_FT_F64, offsetof(WkIncidentRow, restart_s), "s", NULL},
    {WK_SCHEMA_INC_RECOVERY, WK_FT_F64, offsetof(WkIncidentRow, recovery_s), "s", NULL},
    {WK_SCHEMA_INC_LOST_WORK, WK_FT_F64, offsetof(WkIncidentRow, lost_gpu_h), "GPU-h", NULL},
    {WK_SCHEMA_INC_CLOCK, WK_FT_F64, offsetof(WkIncidentRow, clock), "", NULL},
    {WK_SCHEMA_INC_DRAIN, WK_FT_F64, offsetof(WkIncidentRow, step_s[WK_RSTEP_DRAIN]), "s", NULL},
    {WK_SCHEMA_INC_LAUNCH, WK_FT_F64, offsetof(WkIncidentRow, step_s[WK_RSTEP_LAUNCH]), "s", NULL},
    {WK_SCHEMA_INC_INIT, WK_FT_F64, offsetof(WkIncidentRow, step_s[WK_RSTEP_INIT]), "s", NULL},
    {WK_SCHEMA_INC_LOAD, WK_FT_F64, offsetof(WkIncidentRow, step_s[WK_RSTEP_LOAD]), "s", NULL},
    {WK_SCHEMA_INC_WARMUP, WK_FT_F64, offsetof(WkIncidentRow, step_s[WK_RSTEP_WARMUP]), "s", NULL},
};
const size_t wk_report_nincident_fields = NF(wk_report_incident_fields);

const WkTraceField wk_report_facility_fields[] = {
    {WK_SCHEMA_FAC_TIME, WK_FT_I64, offsetof(WkFacilityRow, time_ns), "ns", NULL},
    {WK_SCHEMA_FAC_POWER, WK_FT_F64, offsetof(WkFacilityRow, power_w), "W", NULL},
    {WK_SCHEMA_FAC_BUDGET, WK_FT_F64, offsetof(WkFacilityRow, budget_w), "W", NULL},
    {WK_SCHEMA_FAC_CLOCK, WK_FT_F64, offsetof(WkFacilityRow, clock), "", NULL},
    {WK_SCHEMA_FAC_PRICE, WK_FT_F64, offsetof(WkFacilityRow, price_per_mwh), "per MWh", NULL},
    {WK_SCHEMA_FAC_CARBON, WK_FT_F64, offsetof(WkFacilityRow, gco2_per_kwh), "g/kWh", NULL},
};
const size_t wk_report_nfacility_fields = NF(wk_report_facility_fields);

static const WkTraceField pod_fields[] = {
    {WK_SCHEMA_PODS_TIME, WK_FT_I64, offsetof(WkPodRow, time_ns), "ns", NULL},
    {WK_SCHEMA_PODS_SPAN, WK_FT_I64, offsetof(WkPodRow, span_ns), "ns", NULL},
    {WK_SCHEMA_PODS_POD, WK_FT_U32, offsetof(WkPodRow, pod), "", NULL},
    {WK_SCHEMA_PODS_GPUS, WK_FT_U32, offsetof(WkPodRow, gpus), "GPUs", NULL},
    {WK_SCHEMA_PODS_ALLOCATED, WK_FT_F64, offsetof(WkPodRow, allocated), "GPUs", NULL},
};

/* timeseries/pods: each pod's mean allocation per time bin, from the
 * allocation record. */
static int write_pods(const WkRun *r, WkTrace *t, WkError *err)
{
    WkPodRow *rows = NULL;
    size_t n = 0;
    int rc = wk_account_pod_series(&r->acct, &r->cluster, r->end_t, r->sample_interval, &rows, &n, err);
    if (rc == 0)
        rc = wk_trace_table(t, WK_SCHEMA_PODS, pod_fields, NF(pod_fields), sizeof(WkPodRow), rows, n,
                            "each pod's GPUs held by jobs, averaged over time bins [time, time + span)", err);
    free(rows);
    return rc;
}

/* The `--set` assignments, one per line (malloc'd; NULL when out of memory). */
static char *overrides_text(const WkRunTraceRoot *root)
{
    size_t setlen = 1;
    for (size_t i = 0; i < root->nsets; i++)
        setlen += strlen(root->sets[i]) + 1;
    char *sets = calloc(1, setlen);
    for (size_t i = 0; sets && i < root->nsets; i++) {
        strcat(sets, root->sets[i]);
        strcat(sets, "\n");
    }
    return sets;
}

void wk_run_skus(const WkRun *r, char *skus, size_t cap, size_t *used)
{
    const WkCluster *c = &r->cluster;
    for (uint32_t g = 0; g < c->ngroups && *used < cap; g++) {
        int seen = 0;
        for (uint32_t h = 0; h < g; h++)
            seen |= c->groups[h].sku == c->groups[g].sku;
        const char *name = c->groups[g].sku->name;
        size_t len = strlen(name);
        for (const char *p = skus; !seen && (p = strstr(p, name)); p += len) /* already listed by another site */
            seen |= (p == skus || p[-1] == ',') && (p[len] == ',' || p[len] == '\0');
        if (!seen)
            *used += (size_t)snprintf(skus + *used, cap - *used, "%s%s", *used ? "," : "", name);
    }
}

static int write_root_attrs(const WkRunTraceRoot *root, WkTrace *t, const char *sets, WkError *err)
{
    const WkDoc *doc = root->doc;
    int rc;
    if ((rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_WANKA_VERSION, WK_VERSION, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCHEMA_VERSION, WK_SCHEMA_VERSION, err)) < 0 ||
        (rc = wk_trace_attr_i64(t, NULL, WK_SCHEMA_ATTR_SEED, (int64_t)root->seed, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCENARIO_NAME, root->name, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCENARIO_FILE, doc->file, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCENARIO, doc->text ? doc->text : "", err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_OVERRIDES, sets, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCHEDULER, root->scheduler, err)) < 0 ||
        (rc = wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_GPU_SKU, root->skus, err)) < 0 ||
        (rc = wk_trace_attr_i64(t, NULL, WK_SCHEMA_ATTR_GPUS, root->gpus, err)) < 0 ||
        (rc = wk_trace_attr_i64(t, NULL, WK_SCHEMA_ATTR_SAMPLE_INTERVAL, root->sample_interval, err)) < 0 ||
        (rc = wk_trace_attr_i64(t, NULL, WK_SCHEMA_ATTR_COMPLETE, root->complete, err)) < 0)
        return rc;
    return 0;
}

/* The tables of a single-site run. */
static int write_tables(const void *user, WkTrace *t, WkError *err)
{
    const WkRun *r = user;
    int rc;
    if ((rc = write_jobs(r, t, err)) < 0)
        return rc;
    if ((rc = wk_trace_table(t, WK_SCHEMA_CLUSTER, wk_report_sample_fields, NF(wk_report_sample_fields), sizeof(WkSampleRow),
                             r->acct.samples, r->acct.nsamples,
                             "cluster state sampled every sample_interval_ns and at the end of the run", err)) < 0)
        return rc;
    if ((rc = write_pods(r, t, err)) < 0 || (rc = wk_run_write_placement(r, t, err)) < 0)
        return rc;
    if ((r->fac.nbudget || r->fac.ntariff) &&
        (rc = wk_trace_table(t, WK_SCHEMA_FACILITY, wk_report_facility_fields, NF(wk_report_facility_fields), sizeof(WkFacilityRow),
                             wk_run_budget(r)->rows, wk_run_budget(r)->nrows,
                             "the facility after every change of allocation or budget and at every sample", err)) < 0)
        return rc;
    if ((rc = wk_trace_table(t, WK_SCHEMA_INCIDENTS, wk_report_incident_fields, NF(wk_report_incident_fields), sizeof(WkIncidentRow),
                             wk_run_fail(r)->incidents, wk_run_fail(r)->nincidents,
                             "one row per failure, slowdown or scripted incident, in time order", err)) < 0)
        return rc;
    return 0;
}

int wk_run_trace_write(const char *path, const WkRunTraceRoot *root, WkRunTraceTablesFn tables,
                       WkRunTraceSummaryFn summary, const void *user, WkError *err)
{
    WkTrace *t = NULL;
    int rc = wk_trace_open(&t, path, err);
    if (rc < 0)
        return rc;
    WkSummary s;
    char *sets = overrides_text(root);
    if (!sets) {
        rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "trace: out of memory");
        goto fail;
    }
    if ((rc = write_root_attrs(root, t, sets, err)) < 0 || (rc = tables(user, t, err)) < 0 ||
        (rc = summary(user, &s, err)) < 0)
        goto fail;
    for (size_t i = 0; i < s.n; i++) {
        if ((rc = wk_trace_attr_f64(t, WK_SCHEMA_SUMMARY, s.m[i].name, s.m[i].value, err)) < 0)
            goto fail;
    }
    free(sets);
    return wk_trace_close(t, err);
fail:
    free(sets);
    wk_trace_abort(t);
    return rc;
}

static int summary_of(const void *user, WkSummary *s, WkError *err) { return wk_run_summary(user, s, err); }

int wk_run_write_trace(const WkRun *r, const char *path, WkError *err)
{
    char skus[512];
    size_t used = 0;
    skus[0] = '\0';
    wk_run_skus(r, skus, sizeof skus, &used);
    WkRunTraceRoot root = {.doc = r->doc, .sets = r->opts.sets, .nsets = r->opts.nsets, .seed = r->seed,
                           .name = r->name, .scheduler = r->sched->name, .skus = skus, .gpus = r->cluster.gpus,
                           .sample_interval = r->sample_interval, .complete = !r->interrupted};
    return wk_run_trace_write(path, &root, write_tables, summary_of, r, err);
}

long wk_run_plugins(const char *kind, WkPluginInfo *out, size_t max)
{
    long n = 0;
    if (strcmp(kind, "schedulers") == 0) {
        for (const WkSchedOps *const *p = wk_sched_registry(); *p; p++, n++)
            if ((size_t)n < max)
                out[n] = (WkPluginInfo){(*p)->name, (*p)->description};
    } else if (strcmp(kind, "brokers") == 0) {
        for (const WkBrokerOps *const *p = wk_broker_registry(); *p; p++, n++)
            if ((size_t)n < max)
                out[n] = (WkPluginInfo){(*p)->name, (*p)->description};
    } else if (strcmp(kind, "sources") == 0) {
        for (const WkWorkloadSource *const *p = wk_workload_sources(); *p; p++, n++)
            if ((size_t)n < max)
                out[n] = (WkPluginInfo){(*p)->name, (*p)->description};
    } else if (strcmp(kind, "skus") == 0) {
        for (size_t i = 0; i < wk_catalog_count(); i++, n++)
            if ((size_t)n < max)
                out[n] = (WkPluginInfo){wk_catalog_at(i)->name, wk_catalog_at(i)->source};
    } else {
        return -1;
    }
    return n;
}
