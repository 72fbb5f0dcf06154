/* SPDX-License-Identifier: Apache-2.0 */
/* cli_paper.c — `wanka report paper-sci` without traces: run the paper's
 * experiments itself over several seeds on OpenMP threads (wk_batch_run),
 * write their traces, read each seed's traces back as a report and print
 * every row as mean ± 95 % CI beside the published value
 * (analysis/report_seeds.h). The trace form stays in cli_analysis.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/paper_claims.h"
#include "analysis/report_seeds.h"
#include "models/sched/sched.h"
#include "sim/core/strbuf.h"
#include "sim/batch/batch.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "sim/core/text.h"
#include "wk_config.h"

/* The runs of one seed: the traditional baseline; SCI with every mechanism
 * of the paper (§3.1 outsourcing, §3.2 cascade, §3.3 division) in the run
 * and in its objective, with its feedback loop (§5.1), with each off in
 * turn, and with the mechanisms on but unseen by the objective (blind); the
 * throttle with the §3.4 response (division and rebalancing), with each off
 * in turn, with neither, and without the incident. */
enum { R_BASE, R_SCI, R_SCI_NC, R_SCI_NO, R_SCI_ND, R_SCI_NF, R_SCI_BL, R_THR, R_THR_ND, R_THR_NR, R_NAIVE, R_NONE,
       R_N };
static const char *const run_file[R_N] = {
    "baseline.h5",        "sci.h5",          "sci-no-cascade.h5",     "sci-no-outsourcing.h5",
    "sci-no-division.h5", "sci-no-feedback.h5", "sci-blind.h5",       "throttle-response.h5",
    "throttle-no-division.h5", "throttle-no-rebalance.h5", "throttle.h5", "throttle-none.h5"};

/* The value of `mechanisms:` for each SCI run, and of the throttle runs
 * that use division (defaults of docs/scenarios.md). */
#define ALL_MECH "v: {cascade: {}, outsourcing: {}, division: {}}\n"
static const char *const mech_yaml[R_N] = {
    [R_SCI] = ALL_MECH,
    [R_SCI_NC] = "v: {outsourcing: {}, division: {}}\n",
    [R_SCI_NO] = "v: {cascade: {}, division: {}}\n",
    [R_SCI_ND] = "v: {cascade: {}, outsourcing: {}}\n",
    [R_SCI_NF] = ALL_MECH,
    [R_SCI_BL] = ALL_MECH,
    [R_THR] = "v: {division: {}}\n",
    [R_THR_NR] = "v: {division: {}}\n",
};

/* The value of `scheduler:` for each SCI run: the mechanisms of the run in
 * SCI's objective (division with §3.3's roles), and its feedback loop
 * (docs/sci.md). */
#define SCI_USE(o, c, d, f)                                                                                           \
    "v: {name: sci, use_outsourcing: " #o ", use_cascade: " #c ", use_division: " #d ", use_roles: " #d            \
    ", feedback: " #f "}\n"
static const char *const sched_yaml[R_N] = {
    [R_SCI] = SCI_USE(true, true, true, true),     [R_SCI_NC] = SCI_USE(true, false, true, true),
    [R_SCI_NO] = SCI_USE(false, true, true, true), [R_SCI_ND] = SCI_USE(true, true, false, true),
    [R_SCI_NF] = SCI_USE(true, true, true, false), [R_SCI_BL] = "v: {name: sci}\n",
};

typedef struct {
    const char *scenario, *throttle, *baseline, *out, *html;
    int seeds, threads, format, quiet, force; /* format: WkReportFormat */
} PaperArgs;

static int parse(int argc, char **argv, PaperArgs *a)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        static const char *const names[] = {"--baseline", "--throttle-scenario", "--out", "--html", "--seeds"};
        const char **slots[] = {&a->baseline, &a->throttle, &a->out, &a->html, NULL};
        int opt = -1, tst;
        for (int k = 0; k < 5 && opt < 0; k++)
            if (wk_cli_common_is_opt(s, names[k], k == 2 ? "-o" : NULL))
                opt = k;
        const char **slot = opt >= 0 ? slots[opt] : NULL;
        if (opt >= 0) {
            const char *v = wk_cli_common_opt_value(argc, argv, &i, names[opt], opt == 2 ? "-o" : NULL);
            if (!v || !v[0])
                return wk_cli_common_usage_error("report", "%s needs a value", s);
            if (slot) {
                *slot = v;
                continue;
            }
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1000)
                return wk_cli_common_usage_error("report", "--seeds wants a count from 1 to 1000, not '%s'", v);
            a->seeds = (int)n;
        } else if ((tst = wk_cli_common_threads_opt("report", argc, argv, &i, &a->threads)) >= 0) {
            if (tst > 0)
                return tst;
        } else if (wk_cli_common_is_opt(s, "--markdown", NULL)) {
            a->format = WK_REPORT_MARKDOWN;
        } else if (wk_cli_common_is_opt(s, "--format", NULL)) {
            const char *v = wk_cli_common_opt_value(argc, argv, &i, "--format", NULL);
            static const char *const fmts[] = {[WK_REPORT_TEXT] = "text", [WK_REPORT_MARKDOWN] = "markdown",
                                                [WK_REPORT_LATEX] = "latex", [WK_REPORT_CSV] = "csv"};
            int f = -1;
            for (int k = 0; v && k < (int)(sizeof fmts / sizeof fmts[0]); k++)
                if (fmts[k] && strcmp(v, fmts[k]) == 0)
                    f = k;
            if (f < 0)
                return wk_cli_common_usage_error("report", "run form: --format is text, markdown, latex or csv (JSON: "
                                                           "report the traces it writes, DIR/seed1/baseline.h5 "
                                                           "DIR/seed1/sci.h5 --json)");
            a->format = f;
        } else if (wk_cli_common_is_opt(s, "--quiet", "-q")) {
            a->quiet = 1;
        } else if (strcmp(s, "--force") == 0) {
            a->force = 1;
        } else if (wk_cli_common_is_dash(s)) {
            return wk_cli_common_usage_error("report", "unknown option '%s' (run form: [SCENARIO.yaml] --seeds N "
                                                       "--baseline POLICY --out DIR --format F --html FILE)", s);
        } else if (!a->scenario) {
            a->scenario = s;
        } else {
            return wk_cli_common_usage_error("report", "unexpected argument '%s'", s);
        }
    }
    return 0;
}

/* --html of the run form: the seeds' tables (mean ± CI), the compare table
 * of every seed's baseline and SCI runs (pooled: mean ± CI), the figures of
 * seed 1's baseline and SCI runs and the scenarios of seed 1's five runs. */
static int paper_html(const PaperArgs *a, WkReport *const *reps, const WkClaimsSeed *claims, char **paths,
                      const char *what)
{
    WkError err;
    wk_error_clear(&err);
    size_t n = (size_t)a->seeds;
    const char **cmp = calloc(2 * n, sizeof *cmp);
    if (!cmp)
        return wk_cli_common_nomem();
    for (size_t s = 0; s < n; s++) {
        cmp[s] = paths[s * R_N + R_BASE];
        cmp[n + s] = paths[s * R_N + R_SCI];
    }
    char *seeds = wk_report_seeds_render(reps, n, what, 1);
    char *ctext = seeds ? wk_claims_render(claims, n, 1) : NULL;
    char *table = ctext ? wk_cli_common_compare_markdown(cmp, 2 * n, &err) : NULL;
    free(cmp);
    if (!seeds || !ctext || !table) {
        free(seeds);
        free(ctext);
        return seeds ? wk_cli_common_report(&err) : wk_cli_common_nomem();
    }
    WkStrBuf b = {0};
    wk_strbuf_printf(&b, "%s\n%s\n## Every metric, %s against sci over %d seed%s (wanka compare)\n\n%s", seeds,
                     ctext, a->baseline, a->seeds, a->seeds == 1 ? "" : "s", table);
    free(seeds);
    free(ctext);
    free(table);
    char *tables = wk_strbuf_take(&b);
    if (!tables)
        return wk_cli_common_nomem();
    const char *figs[2] = {paths[R_BASE], paths[R_SCI]}, *runs[R_N];
    for (int k = 0; k < R_N; k++)
        runs[k] = paths[k];
    int status = wk_cli_python_html(a->html, "wanka report paper-sci", tables, figs, 2, runs, R_N);
    free(tables);
    if (status == 0)
        printf("html: %s\n", a->html);
    return status;
}

static int known_policy(const char *name)
{
    for (const WkSchedOps *const *o = wk_sched_registry(); *o; o++)
        if (strcmp((*o)->name, name) == 0)
            return 1;
    return 0;
}

/* A one-key document whose value node is the put's value. */
static int value_doc(WkDoc **d, const char *yaml, WkError *err)
{
    return wk_doc_load_string(d, "report", yaml, strlen(yaml), err);
}

int wk_cli_paper_run(int argc, char **argv)
{
    PaperArgs a = {.scenario = NULL, .seeds = 5, .out = "paper-sci-runs"};
    int st = parse(argc, argv, &a);
    if (st)
        return st;
    if (!a.scenario)
        a.scenario = WK_SOURCE_SCENARIOS "/paper-sci-10k.yaml";
    if (!a.throttle)
        a.throttle = WK_SOURCE_SCENARIOS "/throttle-rack3.yaml";
    if (!a.baseline)
        a.baseline = known_policy("slurm") ? "slurm" : "backfill";
    if (!known_policy(a.baseline))
        return wk_cli_common_usage_error("report", "--baseline: unknown scheduler '%s' (wanka list schedulers)",
                                         a.baseline);
    if (a.html && (st = wk_cli_python_html_check(a.html, a.force)) != 0)
        return st;
    WkError err;
    wk_error_clear(&err);
    WkDoc *paper = NULL, *thr = NULL, *empty = NULL, *yes = NULL, *mech[R_N] = {0}, *sched[R_N] = {0};
    WkBatchJob *jobs = NULL;
    WkReport **reps = NULL;
    WkClaimsSeed *claims = NULL;
    char **paths = NULL;
    size_t njobs = (size_t)a.seeds * R_N;
    int status = 2, rc;
    if ((rc = wk_doc_load_file(&paper, a.scenario, &err)) < 0 || (rc = wk_doc_load_file(&thr, a.throttle, &err)) < 0 ||
        (rc = value_doc(&empty, "v: []\n", &err)) < 0 || (rc = value_doc(&yes, "v: true\n", &err)) < 0) {
        status = wk_cli_common_report(&err);
        goto done;
    }
    for (int k = 0; k < R_N; k++)
        if ((mech_yaml[k] && (rc = value_doc(&mech[k], mech_yaml[k], &err)) < 0) ||
            (sched_yaml[k] && (rc = value_doc(&sched[k], sched_yaml[k], &err)) < 0)) {
            status = wk_cli_common_report(&err);
            goto done;
        }
    if (mkdir(a.out, 0777) < 0 && errno != EEXIST) {
        fprintf(stderr, "wanka report: %s: %s\n", a.out, strerror(errno));
        goto done;
    }
    jobs = calloc(njobs, sizeof *jobs);
    paths = calloc(njobs, sizeof *paths);
    reps = calloc((size_t)a.seeds * (1 + WK_CLAIMS_NV), sizeof *reps);
    claims = calloc((size_t)a.seeds, sizeof *claims);
    if (!jobs || !paths || !reps || !claims) {
        status = wk_cli_common_nomem();
        goto done;
    }
    WkBatchPut no_incidents = {"failures.incidents", wk_node_get(empty->root, "v")};
    WkBatchPut rebalance = {"models.job.rebalance", wk_node_get(yes->root, "v")};
    WkBatchPut puts[R_N][3];
    size_t nputs[R_N] = {0};
    for (int k = 0; k < R_N; k++) {
        if (mech[k])
            puts[k][nputs[k]++] = (WkBatchPut){"mechanisms", wk_node_get(mech[k]->root, "v")};
        if (sched[k])
            puts[k][nputs[k]++] = (WkBatchPut){"scheduler", wk_node_get(sched[k]->root, "v")};
        if (k == R_THR || k == R_THR_ND)
            puts[k][nputs[k]++] = rebalance;
        if (k == R_NONE)
            puts[k][nputs[k]++] = no_incidents;
    }
    for (int s = 0; s < a.seeds; s++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/seed%d", a.out, s + 1);
        if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
            fprintf(stderr, "wanka report: %s: %s\n", dir, strerror(errno));
            goto done;
        }
        for (int k = 0; k < R_N; k++) {
            WkBatchJob *j = &jobs[(size_t)s * R_N + (size_t)k];
            size_t len = strlen(dir) + strlen(run_file[k]) + 2;
            if (!(paths[(size_t)s * R_N + (size_t)k] = malloc(len))) {
                status = wk_cli_common_nomem();
                goto done;
            }
            snprintf(paths[(size_t)s * R_N + (size_t)k], len, "%s/%s", dir, run_file[k]);
            j->base = k < R_THR ? paper : thr;
            j->opts.has_seed = 1;
            j->opts.seed = (uint64_t)(s + 1);
            j->opts.scheduler = k == R_BASE ? a.baseline : k < R_THR ? "sci" : NULL;
            j->puts = nputs[k] ? puts[k] : NULL;
            j->nputs = nputs[k];
            j->trace = paths[(size_t)s * R_N + (size_t)k];
        }
    }
    WkCliProgress prog;
    wk_cli_common_progress_start(&prog, "report");
    int threads = a.threads ? a.threads : wk_batch_default_threads();
    if (!a.quiet)
        fprintf(stderr, "wanka report: %zu runs (%d seeds: %s and sci with every mechanism, each off and blind on %s, "
                        "five throttle runs of %s) on %d thread%s\n",
                njobs, a.seeds, a.baseline, a.scenario, a.throttle, threads, threads == 1 ? "" : "s");
    size_t failed = wk_batch_run(jobs, njobs, threads,
                                 wk_cli_common_progress_wanted(a.quiet) ? wk_cli_common_progress_batch : NULL, &prog);
    wk_cli_common_progress_end(&prog);
    double wall = wk_cli_common_progress_elapsed(&prog);
    if (failed) {
        for (size_t i = 0; i < njobs; i++)
            if (jobs[i].rc < 0)
                fprintf(stderr, "wanka report: run %s failed: %s%s%s\n", paths[i], jobs[i].err.where,
                        jobs[i].err.where[0] ? ": " : "", jobs[i].err.msg);
        status = 1;
        goto done;
    }
    /* reps[0..seeds): the main table (every mechanism on); then per seed
     * the ablation's variants (WkClaimsVariant) */
    static const int var_sci[WK_CLAIMS_NV] = {R_SCI, R_SCI_NC, R_SCI_NO, R_SCI_ND, R_SCI_NF, R_SCI_BL, R_SCI, R_SCI};
    static const int var_thr[WK_CLAIMS_NV] = {R_THR, R_THR, R_THR, R_THR_ND, R_THR, R_THR, R_THR_NR, R_NAIVE};
    for (int s = 0; s < a.seeds; s++) {
        char **p = &paths[(size_t)s * R_N];
        for (int v = 0; v < WK_CLAIMS_NV; v++) {
            WkReport **slot = v == 0 ? &reps[s] : &reps[(size_t)a.seeds + (size_t)s * WK_CLAIMS_NV + (size_t)v];
            WkReportInputs in = {.baseline = p[R_BASE], .sci = p[var_sci[v]], .throttle = p[var_thr[v]],
                                 .throttle_naive = p[R_NAIVE], .throttle_baseline = p[R_NONE],
                                 .sci_no_outsourcing = p[R_SCI_NO]};
            if ((rc = wk_report_load(slot, "paper-sci", &in, &err)) < 0 ||
                (rc = wk_claims_tflops(p[var_sci[v]], &claims[s].tflops[v], &err)) < 0) {
                status = wk_cli_common_report(&err);
                goto done;
            }
            claims[s].rep[v] = *slot;
        }
    }
    char what[1024];
    snprintf(what, sizeof what, "paper-sci: %s (traditional: %s) vs sci with cascade, outsourcing, division and feedback, seeds "
             "1..%d; §3.4 from %s (response: division and rebalancing); traces in %s/ "
             "(%.1f s wall, %d thread%s)", a.scenario, a.baseline, a.seeds, a.throttle, a.out, wall, threads,
             threads == 1 ? "" : "s");
    char *text = wk_report_seeds_render(reps, (size_t)a.seeds, what, (WkReportFormat)a.format);
    int with_claims = a.format == WK_REPORT_TEXT || a.format == WK_REPORT_MARKDOWN;
    char *ctext = with_claims ? wk_claims_render(claims, (size_t)a.seeds, a.format == WK_REPORT_MARKDOWN) : NULL;
    if (!text || (with_claims && !ctext)) {
        free(text);
        free(ctext);
        status = wk_cli_common_nomem();
        goto done;
    }
    wk_text_fputs_lines(text, stdout);
    if (ctext) {
        fputs("\n", stdout);
        wk_text_fputs_lines(ctext, stdout);
    }
    free(text);
    free(ctext);
    status = fflush(stdout) ? 1 : 0;
    /* a figure of seed 1: utilization of the baseline and sci over time */
    char png[4096];
    snprintf(png, sizeof png, "%s/utilization.png", a.out);
    /* --force: the report's own name in its own folder is replaced */
    char *pargv[] = {paths[R_BASE], paths[R_SCI], "-o", png, "--what", "utilization", "--force"};
    if (wk_cli_python_plot(7, pargv) == 0) /* LaTeX and CSV keep stdout to the table alone */
        fprintf(a.format == WK_REPORT_LATEX || a.format == WK_REPORT_CSV ? stderr : stdout, "figure: %s\n", png);
    else
        fprintf(stderr, "wanka report: no figure (wanka plot failed; the table above stands)\n");
    if (status == 0 && a.html)
        status = paper_html(&a, reps, claims, paths, what);
done:
    for (size_t s = 0; reps && s < (size_t)a.seeds * (1 + WK_CLAIMS_NV); s++)
        wk_report_free(reps[s]);
    for (int k = 0; k < R_N; k++) {
        wk_doc_free(mech[k]);
        wk_doc_free(sched[k]);
    }
    free(claims);
    for (size_t i = 0; paths && i < njobs; i++)
        free(paths[i]);
    free(paths);
    free(reps);
    free(jobs);
    wk_doc_free(paper);
    wk_doc_free(thr);
    wk_doc_free(empty);
    wk_doc_free(yes);
    return status;
}
