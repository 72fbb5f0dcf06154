/* SPDX-License-Identifier: Apache-2.0 */
/* run.h — one simulation run on one cluster: read a scenario document into
 * a cluster, a workload and a scheduler, drive the job lifecycle on the
 * engine, account every GPU-second, report a summary and an HDF5 trace;
 * and the calls a network of sites (models/network) drives each site
 * through. The public face of models/run (layer wk_run); its parts are
 * mapped in docs/architecture.md. */
#ifndef WK_RUN_H
#define WK_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/engine.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/trace/summary.h"
#include "sim/trace/trace.h"
#include "models/state/types.h"

typedef struct WkRun WkRun;

/** Read and check the whole scenario (doc borrowed; must outlive the run):
 * cluster, workload (files are read, generators run), scheduler, sim section.
 * Returns 0 and a run the caller owns (wk_run_free), or a negative code with
 * a positioned error. Nothing is written anywhere. A network of sites
 * (`sites:`) is refused with WK_E_INVAL: models/network/sim.h prepares any
 * scenario, one cluster or a network. */
int wk_run_prepare(WkRun **out, const WkDoc *doc, const WkRunOpts *opts, WkError *err);

/** Simulate to the end (all jobs done or rejected, or `sim.end`). Once only.
 * When opts->interrupt turns non-zero the run stops before the next event and
 * returns 0 with wk_run_interrupted(r) == 1: summary and trace then describe
 * the run up to that moment (the trace's root attribute `complete` is 0). */
int wk_run_execute(WkRun *r, WkError *err);

/** 1 when wk_run_execute stopped early on opts->interrupt, else 0. */
int wk_run_interrupted(const WkRun *r);

/** Fill *s with the run's summary metrics (after execute). */
int wk_run_summary(const WkRun *r, WkSummary *s, WkError *err);

/** Write the HDF5 trace to path (atomically: temp file + rename). */
int wk_run_write_trace(const WkRun *r, const char *path, WkError *err);

/* What the root of a trace says of its run (wk_run_trace_write). */
typedef struct WkRunTraceRoot {
    const WkDoc *doc;        /* the scenario: its file and text */
    const char *const *sets; /* the --set overrides applied */
    size_t nsets;
    uint64_t seed;
    const char *name;        /* the scenario's */
    const char *scheduler;   /* the policy's (a network's: its broker's) */
    const char *skus;        /* the distinct GPU SKUs, comma-separated */
    uint32_t gpus;
    WkTime sample_interval;  /* ns */
    int complete;            /* 0: the run was stopped early */
} WkRunTraceRoot;

/* A trace's tables (written into t), and its summary (filled into *s). */
typedef int (*WkRunTraceTablesFn)(const void *user, WkTrace *t, WkError *err);
typedef int (*WkRunTraceSummaryFn)(const void *user, WkSummary *s, WkError *err);

/** Write an HDF5 trace to path (atomically: temp file + rename): the root
 * attributes of *root, the tables `tables` writes, then the summary
 * `summary` fills, as attributes of /summary (user passed to both). What
 * wk_run_write_trace does for a run; a network writes its own this way. */
int wk_run_trace_write(const char *path, const WkRunTraceRoot *root, WkRunTraceTablesFn tables,
                       WkRunTraceSummaryFn summary, const void *user, WkError *err);

/** Number of jobs in the workload. */
size_t wk_run_jobs(const WkRun *r);

/** GPUs of the run's cluster. */
uint32_t wk_run_gpus(const WkRun *r);

/** Scheduler name and scenario name (borrowed). */
const char *wk_run_scheduler(const WkRun *r);
const char *wk_run_name(const WkRun *r);

/** GPU-ns accounted as allocated (held by jobs, down GPUs of hung jobs
 * included), idle (neither held nor down) and down (not held) over [0, end],
 * and the end (ns). allocated + idle + down == gpus * end holds exactly (the
 * conservation test). The 128-bit values are split into 64-bit halves. */
typedef struct WkRunAccount {
    uint64_t alloc_hi, alloc_lo, idle_hi, idle_lo;
    int64_t end_ns;
    uint64_t down_hi, down_lo;
} WkRunAccount;
void wk_run_account(const WkRun *r, WkRunAccount *out);

/** Release everything. NULL is a no-op. */
void wk_run_free(WkRun *r);

/* A plugin as `wanka list` shows it. */
typedef struct WkPluginInfo {
    const char *name;        /* static storage */
    const char *description; /* static storage */
} WkPluginInfo;

/** Plugins of a kind ("schedulers", "brokers", "sources", "skus") into out[0..max).
 * Returns how many exist (may exceed max), or -1 for an unknown kind. */
long wk_run_plugins(const char *kind, WkPluginInfo *out, size_t max);

/* ---- a site of a network ----
 * A network of sites (models/network) runs one WkRun per site and drives it
 * only through the calls below: it decides which jobs come to the site and
 * when, reads the site's state between its steps, and holds or gives back
 * the parts of jobs that span sites. A single-cluster run never uses them. */

struct WkCluster;
struct WkWorkload;
struct WkFacilitySpec;
struct WkModelSpec;
struct WkPerfWan;

/* What the top level of a scenario says of every run: read by
 * wk_run_head_parse, for a run and for a network alike. */
typedef struct WkRunHead {
    const char *name;       /* `name:` (borrowed), "unnamed" without it */
    uint64_t seed;          /* opts' seed when it has one, else `seed:` (default 1) */
    WkTime horizon;         /* `sim.end`, or WK_TIME_NEVER */
    WkTime sample_interval; /* `sim.sample_interval`, ns (default 1 h) */
} WkRunHead;

/** Check the scenario's top level (doc borrowed; opts may be NULL): not
 * empty, only known sections, then name, seed, description and `sim:`.
 * 0 and *h filled, or a negative code with a positioned error. */
int wk_run_head_parse(const WkDoc *doc, const WkRunOpts *opts, WkRunHead *h, WkError *err);

/** Prepare one site of a network: as wk_run_prepare, but the job set's
 * feasibility is recorded per job (wk_run_site_can_run) instead of failing
 * on a job this site cannot run. site is copied (its arrays stay borrowed);
 * its assign and delay may be given later (wk_run_site_set_route). */
int wk_run_prepare_site(WkRun **out, const WkDoc *doc, const WkRunOpts *opts, const WkRunSite *site,
                        WkError *err);

/** The network's per-job arrays (borrowed; they must outlive the run):
 * each job's site and WAN delay (WkRunSite), before the run begins. */
void wk_run_site_set_route(WkRun *r, const int32_t *assign, const WkTime *delay);

/** The network's part flags of this site (borrowed, per job; WkRunSite.part),
 * before the run begins. */
void wk_run_site_set_parts(WkRun *r, uint8_t *part);

/** A site run in steps: begin (once; as the start of wk_run_execute),
 * advance to `until` (events at times <= until), then end at the network's
 * end time T (>= every event processed): accounting, budget and sleep up to
 * T, a last time-series row at T. Each returns 0 or a negative code. */
int wk_run_site_begin(WkRun *r, WkError *err);
int wk_run_site_advance(WkRun *r, WkTime until, WkError *err);
int wk_run_site_end(WkRun *r, WkTime t_end, WkError *err);

/* Where a site run stands between its steps. */
typedef struct WkRunSiteState {
    int finished;    /* every job here ended (or went elsewhere) */
    int interrupted; /* the last step stopped early on opts->interrupt */
    WkTime end_t;    /* when it finished (after wk_run_site_end: the network's end) */
    WkTime now;      /* its engine's clock */
} WkRunSiteState;

/** Where site run r stands now. */
WkRunSiteState wk_run_site_state(const WkRun *r);

/** The network checks its gangs at t (every site has run to t): the site's
 * clock moves to t, unless it has finished. */
void wk_run_site_clock(WkRun *r, WkTime t);

/* What the network sees of one job at a site. */
typedef struct WkRunSiteJob {
    int state;        /* WkJobState */
    WkTime start, end; /* ns; -1 until it happens */
    WkTime left_ns;   /* run time still to go at nominal speed (plain jobs and parts) */
    WkTime seg_start; /* when its current run segment makes progress (after restart cost) */
    uint32_t gpus;    /* GPUs it needs at this site (a part's; an elastic job's now) */
    int placed;       /* it holds a placement (running) */
    int stalled;      /* running but hit by a failure (hung) or waiting in place for repairs */
} WkRunSiteJob;

/** Job `job` at site run r (after wk_run_site_begin). */
WkRunSiteJob wk_run_site_job(const WkRun *r, uint32_t job);

/** GPUs free at the site now (in the pool: up and held by no job). */
uint32_t wk_run_free_gpus(const WkRun *r);

/** 1 when the site can run job `job` (its GPUs, memory, CPU nodes), else 0. */
int wk_run_site_can_run(const WkRun *r, uint32_t job);

/** The job's nominal run time on this run's cluster, s (what schedulers see
 * as wk_sched_job_estimate_s). */
double wk_run_job_estimate_s(WkRun *r, uint32_t job);

/** The run's cluster, workload and `facility:` (borrowed, read-only; the
 * workload is the site's own copy: its parts differ from other sites'). */
const struct WkCluster *wk_run_cluster(const WkRun *r);
const struct WkWorkload *wk_run_workload(const WkRun *r);
const struct WkFacilitySpec *wk_run_facility(const WkRun *r);

/** Facility W a busy GPU of the site adds over an idle one (its first GPU's
 * SKU, PUE included; 0 without GPUs). */
double wk_run_site_job_w_per_gpu(const WkRun *r);

/** The energy the site's jobs added over its idle draw, after the run
 * (every allocation segment: its GPUs at wk_run_site_job_w_per_gpu), added
 * to *kwh; its cost and CO2 (t) by the site's price series added to *cost
 * and *co2_t (NaN without prices). */
void wk_run_site_jobs_energy(const WkRun *r, double *kwh, double *cost, double *co2_t);

/** Iteration time (s) of a data-parallel part of model m on `gpus` GPUs of
 * the site, its ring stretched over the WAN as *wan says
 * (wk_perf_eval_wan). 0 or a negative code (the part does not split or fit). */
int wk_run_site_part_iter_s(const WkRun *r, const struct WkModelSpec *m, uint32_t gpus,
                            const struct WkPerfWan *wan, double *iter_s);

/** Make job `job` (not yet submitted) a part of a job spanning sites: a
 * plain job of `gpus` GPUs running `duration` ns at nominal speed, which
 * this site can run. */
void wk_run_site_make_part(WkRun *r, uint32_t job, uint32_t gpus, WkTime duration);

/** A part at time t (the site's clock first brought to t): settle its
 * progress, set its run time still to go to left_ns (< 0: keep it), hold it
 * (no progress; WK_NET_HELD in its part flags) or let it go at its speed,
 * and re-post its end. 0 or a negative code. */
int wk_run_site_gate(WkRun *r, uint32_t job, int held, WkTime left_ns, WkTime t, WkError *err);

/** Give a running part's GPUs back at t: the job is queued again at the
 * site and its scheduler told (as after an incident). 0 or a negative code. */
int wk_run_site_evict(WkRun *r, uint32_t job, WkTime t, WkError *err);

/* The tables of a run's trace, as rows in memory. */
typedef enum WkRunTable {
    WK_RUN_TABLE_JOBS = 0,  /* rows: WkRunJobRow (built by wk_run_job_row) */
    WK_RUN_TABLE_CLUSTER,   /* rows: WkSampleRow (timeseries/cluster) */
    WK_RUN_TABLE_FACILITY,  /* timeseries/facility */
    WK_RUN_TABLE_INCIDENTS, /* incidents */
} WkRunTable;

/* One row of the jobs table. */
typedef struct WkRunJobRow {
    uint32_t id;
    uint32_t gpus;       /* requested */
    uint32_t gpus_final; /* held at the end or when last stopped */
    int64_t submit_ns;
    int64_t start_ns;
    int64_t end_ns;
    int64_t duration_ns;
    double iterations;  /* model jobs: iterations to train; NaN otherwise */
    double iter_time_s; /* model jobs: mean iteration time over the run; NaN otherwise */
    double tflops;      /* model jobs: achieved model TFLOP/s per GPU; NaN otherwise */
    double ettr;        /* time making kept progress / time since first start */
    uint32_t interruptions;
    uint32_t preemptions;
    uint8_t status;     /* WkSchemaJobStatus */
    uint8_t path_class; /* WkSchemaPathClass */
    uint8_t kind;       /* WkSchemaJobKind */
} WkRunJobRow;

/* A run's rows of one table: every row type is 8-byte aligned and its size
 * a multiple of 8, so a column appended after it (a site) starts at `size`. */
typedef struct WkRunRows {
    const void *rows;           /* borrowed: n rows of `size` bytes (NULL for the jobs) */
    size_t n, size;
    const WkTraceField *fields; /* static: the table's columns, offsets into a row */
    size_t nfields;
} WkRunRows;

/** The rows and columns of a table of run r (after execute). */
WkRunRows wk_run_rows(const WkRun *r, WkRunTable table);

/** The jobs-table row of job `job` of run r (after execute). */
WkRunJobRow wk_run_job_row(const WkRun *r, uint32_t job);

/** Append the run's distinct GPU SKUs not yet in skus[0..*used) to it,
 * comma-separated in group order (skus NUL-terminated, cap bytes). */
void wk_run_skus(const WkRun *r, char *skus, size_t cap, size_t *used);

#endif
