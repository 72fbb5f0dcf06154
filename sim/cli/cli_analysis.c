/* SPDX-License-Identifier: Apache-2.0 */
/* cli_analysis.c — the commands that read traces: compare (summaries side
 * by side), report (the seed paper's tables) and plot (analysis/plot.py).
 * They run no simulation; analysis/ does the reading. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/report.h"
#include "sim/core/strbuf.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "sim/trace/trace_read.h"
#include "wk_config.h"

const char wk_cli_analysis_usage_compare[] =
    "usage: wanka compare TRACE.h5... [--format text|markdown|latex|csv|json] [--no-group]\n"
    "\n"
    "Print the summary metrics of several traces side by side: one row per\n"
    "metric (every summary attribute any trace has), one column per run labelled\n"
    "scheduler/seed, and the change of each run against the first (\"+3.2 %\").\n"
    "A metric a trace lacks, or that is undefined for it, shows \"—\" (JSON null,\n"
    "CSV empty), never 0.\n"
    "\n"
    "Traces of one configuration (same scenario_name, scheduler and --set\n"
    "overrides) with different seeds are pooled into one column \"scheduler (n seeds)\"\n"
    "showing mean ± 95 % confidence half-width (Student t, n-1 degrees of freedom);\n"
    "\"~\" after a change marks an interval that overlaps the first column's.\n"
    "Labels two columns share get the trace's file name in brackets.\n"
    "A sweep index (DIR/sweep.h5 of wanka sweep) stands for every point of the\n"
    "sweep that ran: wanka compare DIR/sweep.h5 pools each configuration's seeds.\n"
    "\n"
    "options:\n"
    "      --format F          text (the default: an aligned table), markdown (a\n"
    "                          GitHub table), latex (a booktabs tabular; notes as\n"
    "                          % comments; needs \\usepackage{booktabs}), csv\n"
    "                          (RFC 4180, one row per metric) or json (one object:\n"
    "                          values, ci95, n, rel_change, overlap)\n"
    "      --json, --csv, --markdown\n"
    "                          short for --format json, csv, markdown\n"
    "      --no-group          one column per trace, even for seeds of one configuration\n"
    "\n"
    "exit status: 0 success, 2 missing file, not a trace or unknown schema version.\n"
    "\n"
    "example:\n"
    "  wanka run scenarios/quickstart.yaml -q -o fifo.h5\n"
    "  wanka run scenarios/quickstart.yaml -q -o big.h5 --set cluster.nodes=64\n"
    "  wanka compare fifo.h5 big.h5\n"
    "  for s in 1 2 3; do wanka run scenarios/quickstart.yaml -q --seed $s -o a$s.h5; done\n"
    "  wanka compare a1.h5 a2.h5 a3.h5 b1.h5 b2.h5 b3.h5 --markdown\n"
    "  wanka compare a1.h5 a2.h5 a3.h5 b1.h5 b2.h5 b3.h5 --format latex > table.tex\n"
    "\n"
    "More in docs/analysis.md.\n";

const char wk_cli_analysis_usage_plot[] =
    "usage: wanka plot TRACE.h5... -o OUT.png|OUT.svg --what WHAT [--top N]\n"
    "       wanka plot CURVE.json... -o OUT.png|OUT.svg --what scaling\n"
    "\n"
    "Draw one figure from one or more traces, runs overlaid and labelled\n"
    "scheduler/seed. WHAT is one of:\n"
    "  utilization   allocated GPUs / GPUs over time (days)\n"
    "  queue         jobs waiting over time\n"
    "  power         facility power (MW) over time\n"
    "  jct-cdf       CDF of the completion time of completed jobs (hours)\n"
    "  incidents     cumulative incidents over time (traces with an incidents table)\n"
    "  gantt         the N jobs with the most GPU-time (--top N, default 30) as bars\n"
    "                from start to end, as tall as their GPUs; incidents that\n"
    "                stopped jobs marked (one panel per trace)\n"
    "  heatmap       each pod's utilization over time (timeseries/pods; traces of\n"
    "                schema 1.2 on)\n"
    "  recovery      per incident that stopped jobs: detection, wait and restart\n"
    "                stacked, and the work lost (--top N longest)\n"
    "  scaling       throughput and scaling efficiency against GPUs, from the JSON\n"
    "                of `wanka perf JOB.yaml --scale N1,N2,... --json > CURVE.json`\n"
    "\n"
    "Runs analysis/plot.py with python3 (set WANKA_PYTHON to choose another\n"
    "interpreter); it needs h5py and matplotlib: on Debian/Ubuntu\n"
    "  sudo apt-get install python3 python3-h5py python3-matplotlib\n"
    "\n"
    "exit status: 0 written, 2 bad arguments, missing file or a trace lacking the\n"
    "data to plot, 1 python3 or its packages missing.\n"
    "\n"
    "example:\n"
    "  wanka plot a1.h5 b1.h5 -o util.png --what utilization\n"
    "  wanka plot a1.h5 -o jct.svg --what jct-cdf\n"
    "  wanka plot a1.h5 -o gantt.png --what gantt --top 20\n"
    "  wanka perf j.yaml --scale 256,512,1024,2048 --json > curve.json\n"
    "  wanka plot curve.json -o scaling.png --what scaling\n";

const char wk_cli_analysis_usage_report[] =
    "usage: wanka report paper-sci [SCENARIO.yaml] [--seeds N] [--baseline POLICY]\n"
    "         [--throttle-scenario T.yaml] [-o DIR] [-j N]\n"
    "         [--format text|markdown|latex|csv] [--html FILE] [-q]\n"
    "       wanka report paper-sci BASELINE.h5 SCI.h5 [--throttle T.h5]\n"
    "         [--throttle-naive N.h5] [--throttle-baseline T0.h5]\n"
    "         [--format text|markdown|latex|csv|json] [--html FILE]\n"
    "\n"
    "Print the seed paper's tables (\"Emergence of Collective Intelligence in GPU\n"
    "Clusters\", SILICON 2026) in its layout with three columns: the published\n"
    "value, the value simulated from the traces, and their difference in\n"
    "percentage points. Nothing is adjusted; \"—\" marks what the traces lack.\n"
    "\n"
    "  Table 5.2  mean GPU utilization, task completion time, energy, fault\n"
    "             recovery time: SCI.h5 against BASELINE.h5 (a traditional scheduler)\n"
    "  §3.1       std dev of per-GPU utilization (summary util_gpu_std)\n"
    "  §3.4       training speed while a rack throttles, from throttle traces\n"
    "\n"
    "options:\n"
    "      --throttle T.h5           the throttle run with the cluster's response\n"
    "                                (e.g. models.X.rebalance=true); set beside the -8 %\n"
    "      --throttle-naive N.h5     the same throttle without a response; set beside\n"
    "                                the paper's predicted -25 %\n"
    "      --throttle-baseline T0.h5 the same scenario without the throttle: the\n"
    "                                reference speed (needed for §3.4)\n"
    "      --format F                text (the default), markdown (GitHub tables),\n"
    "                                latex (booktabs tabulars; titles and notes as\n"
    "                                % comments), csv (RFC 4180: one row per\n"
    "                                published row, numbers in the row's units) or\n"
    "                                json (one object)\n"
    "      --markdown, --json        short for --format markdown, json\n"
    "      --html FILE               also write an experiment report page: one\n"
    "                                self-contained HTML file (inline CSS and SVG, no\n"
    "                                script, nothing fetched) with the runs, the tables\n"
    "                                (with 95 % intervals over seeds in the run form),\n"
    "                                wanka compare of the baseline and SCI runs, eight\n"
    "                                figures (utilization, queue, power, JCT CDF,\n"
    "                                incidents, Gantt of the largest jobs, per-pod\n"
    "                                heatmap, recovery) and each scenario's text;\n"
    "                                needs python3 with h5py and matplotlib\n"
    "\n"
    "exit status: 0 success, 2 bad arguments, missing file, not a trace or unknown\n"
    "schema version, 1 internal error (or python3 or its packages missing for --html).\n"
    "\n"
    "example (docs/reproducing-sci.md):\n"
    "  wanka run scenarios/paper-sci-10k.yaml -q --scheduler fifo -o fifo.h5\n"
    "  wanka run scenarios/paper-sci-10k.yaml -q --scheduler sci -o sci.h5\n"
    "  wanka report paper-sci fifo.h5 sci.h5\n"
    "  wanka report paper-sci fifo.h5 sci.h5 --html report.html\n"
    "  wanka report paper-sci fifo.h5 sci.h5 --format latex > table52.tex\n"
    "\n"
    "Without traces, report runs the experiments itself: SCENARIO (default: the\n"
    "shipped scenarios/paper-sci-10k.yaml) under --baseline (default slurm, else\n"
    "backfill) and sci, and --throttle-scenario (default\n"
    "scenarios/throttle-rack3.yaml) without the throttle, as is and with\n"
    "rebalancing, for seeds 1..N (default 5) on -j threads (OpenMP); the traces\n"
    "go to DIR/seedK/ (default paper-sci-runs/), a figure of seed 1 to\n"
    "DIR/utilization.png, and every row prints as mean ±\n"
    "95 % confidence half-width over the seeds beside the published value.\n"
    "  wanka report paper-sci                    # the whole table, 5 seeds\n"
    "  wanka report paper-sci --seeds 10 --baseline backfill --markdown\n"
    "  wanka report paper-sci --seeds 3 --html report.html\n"
    "The run form takes --format text|markdown|latex|csv (CSV: each simulated\n"
    "column as mean, ci95 and n over the seeds); for JSON, report the traces it\n"
    "wrote: wanka report paper-sci DIR/seed1/baseline.h5 DIR/seed1/sci.h5 --json\n";

/* ---- compare ---- */

static const WkCliFormat compare_formats[] = {
    {"--json", WK_COMPARE_JSON},
    {"--csv", WK_COMPARE_CSV},
    {"--markdown", WK_COMPARE_MARKDOWN},
};
#define NCOMPARE_FORMATS (sizeof compare_formats / sizeof compare_formats[0])

/* --format NAME (the flags above stay as short forms) */
static const WkCliFormat compare_format_names[] = {
    {"text", WK_COMPARE_TEXT},       {"markdown", WK_COMPARE_MARKDOWN}, {"latex", WK_COMPARE_LATEX},
    {"csv", WK_COMPARE_CSV},         {"json", WK_COMPARE_JSON},
};
#define NCOMPARE_FORMAT_NAMES (sizeof compare_format_names / sizeof compare_format_names[0])

/* compare's arguments: the traces, grouping, the format. */
typedef struct {
    const char **paths; /* argv's trace paths (owned array, borrowed strings) */
    size_t n;
    int group, fmt, nfmt;
} CompareArgs;

/* Parse compare's argv into *c. Returns 0 or a usage error's exit status. */
static int compare_args(int argc, char **argv, CompareArgs *c)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (wk_cli_common_format(s, compare_formats, NCOMPARE_FORMATS, &c->fmt, &c->nfmt))
            continue;
        int st = wk_cli_common_format_opt("compare", argc, argv, &i, compare_format_names, NCOMPARE_FORMAT_NAMES,
                                          &c->fmt, &c->nfmt);
        if (st > 0)
            return st;
        if (st == 0)
            continue;
        if (strcmp(s, "--no-group") == 0)
            c->group = 0;
        else if (wk_cli_common_is_dash(s))
            return wk_cli_common_usage_error("compare", "unknown option '%s'", s);
        else
            c->paths[c->n++] = s;
    }
    if (c->nfmt > 1)
        return wk_cli_common_format_error("compare", compare_formats, NCOMPARE_FORMATS);
    if (c->n == 0)
        return wk_cli_common_usage_error("compare", "missing TRACE.h5 (give one or more traces)");
    return 0;
}

/* Load, render and print the traces. Returns the exit status. */
static int compare_traces(const CompareArgs *a)
{
    WkError err;
    wk_error_clear(&err);
    WkCompare *c = NULL;
    int rc = wk_compare_load(&c, a->paths, a->n, a->group, &err);
    int status = wk_cli_common_emit(rc, &err, rc == 0 ? wk_compare_render(c, (WkCompareFormat)a->fmt) : NULL);
    wk_compare_free(c);
    return status;
}

int wk_cli_analysis_compare(int argc, char **argv)
{
    CompareArgs c = {.group = 1, .fmt = WK_COMPARE_TEXT};
    if (!(c.paths = calloc((size_t)argc + 1, sizeof *c.paths)))
        return wk_cli_common_nomem();
    int status = compare_args(argc, argv, &c);
    if (status == 0)
        status = compare_traces(&c);
    free(c.paths);
    return status;
}

/* ---- report ---- */

static const WkCliFormat report_formats[] = {
    {"--json", WK_REPORT_JSON},
    {"--markdown", WK_REPORT_MARKDOWN},
};
#define NREPORT_FORMATS (sizeof report_formats / sizeof report_formats[0])

static const WkCliFormat report_format_names[] = {
    {"text", WK_REPORT_TEXT}, {"markdown", WK_REPORT_MARKDOWN}, {"latex", WK_REPORT_LATEX},
    {"csv", WK_REPORT_CSV},   {"json", WK_REPORT_JSON},
};
#define NREPORT_FORMAT_NAMES (sizeof report_format_names / sizeof report_format_names[0])

/* report's arguments: the report name, the traces, the format. */
typedef struct {
    const char *name;
    WkReportInputs in;
    const char *html; /* --html FILE, or NULL */
    int fmt, nfmt;
} ReportArgs;

/* The trace option at argv[*i] (--throttle, --throttle-naive,
 * --throttle-baseline) into its slot of *r: 0, -1 when argv[*i] is none of
 * them, or a usage error's exit status. */
static int report_trace_opt(int argc, char **argv, int *i, ReportArgs *r)
{
    const char *s = argv[*i], *v, *opt = NULL;
    const char **slot = NULL;
    if (wk_cli_common_is_opt(s, "--throttle", NULL))
        opt = "--throttle", slot = &r->in.throttle;
    else if (wk_cli_common_is_opt(s, "--throttle-naive", NULL))
        opt = "--throttle-naive", slot = &r->in.throttle_naive;
    else if (wk_cli_common_is_opt(s, "--throttle-baseline", NULL))
        opt = "--throttle-baseline", slot = &r->in.throttle_baseline;
    if (!slot)
        return -1;
    if (!(v = wk_cli_common_opt_value(argc, argv, i, opt, NULL)))
        return wk_cli_common_usage_error("report", "%s needs a trace file", s);
    *slot = v;
    return 0;
}

/* Parse report's argv into *r. Returns 0 or a usage error's exit status. */
static int report_args(int argc, char **argv, ReportArgs *r)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        int st = report_trace_opt(argc, argv, &i, r);
        if (st > 0)
            return st;
        if (st < 0 && (st = wk_cli_common_format_opt("report", argc, argv, &i, report_format_names,
                                                     NREPORT_FORMAT_NAMES, &r->fmt, &r->nfmt)) > 0)
            return st;
        if (st == 0 || wk_cli_common_format(s, report_formats, NREPORT_FORMATS, &r->fmt, &r->nfmt))
            continue;
        if (wk_cli_common_is_opt(s, "--html", NULL)) {
            if (!(r->html = wk_cli_common_opt_value(argc, argv, &i, "--html", NULL)) || !r->html[0])
                return wk_cli_common_usage_error("report", "--html needs a file name, e.g. --html report.html");
        } else if (wk_cli_common_is_dash(s)) {
            return wk_cli_common_usage_error("report", "unknown option '%s'", s);
        } else if (!r->name) {
            r->name = s;
        } else if (!r->in.baseline) {
            r->in.baseline = s;
        } else if (!r->in.sci) {
            r->in.sci = s;
        } else {
            return wk_cli_common_usage_error("report", "unexpected argument '%s'", s);
        }
    }
    if (r->nfmt > 1)
        return wk_cli_common_format_error("report", report_formats, NREPORT_FORMATS);
    if (!r->name)
        return wk_cli_common_usage_error("report", "missing the report name (known: paper-sci)");
    if (strcmp(r->name, "paper-sci") != 0)
        return wk_cli_common_usage_error("report", "unknown report '%s' (known: paper-sci)", r->name);
    if (!r->in.sci)
        return wk_cli_common_usage_error("report", "missing BASELINE.h5 SCI.h5 (two traces)");
    return r->html ? wk_cli_analysis_html_check(r->html) : 0;
}

/* The run form: `report paper-sci` whose arguments name no trace (.h5). */
static int run_form(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "paper-sci") != 0)
        return 0;
    for (int i = 1; i < argc; i++) {
        size_t l = strlen(argv[i]);
        if (l > 3 && strcmp(argv[i] + l - 3, ".h5") == 0)
            return 0;
        if (strcmp(argv[i], "--json") == 0 || strncmp(argv[i], "--throttle", 10) == 0)
            return strcmp(argv[i], "--throttle-scenario") == 0;
    }
    return 1;
}

/* --html of the trace form: the report's tables and the compare table of
 * the baseline and SCI traces, the figures of those two. */
static int report_html(const ReportArgs *r, const WkReport *rep)
{
    WkError err;
    wk_error_clear(&err);
    const char *runs[5], *figs[2] = {r->in.baseline, r->in.sci};
    const char *given[5] = {r->in.baseline, r->in.sci, r->in.throttle, r->in.throttle_naive,
                            r->in.throttle_baseline};
    size_t nruns = 0;
    for (size_t i = 0; i < 5; i++)
        if (given[i])
            runs[nruns++] = given[i];
    char *md = wk_report_render(rep, WK_REPORT_MARKDOWN);
    char *cmp = md ? wk_cli_analysis_compare_markdown(figs, 2, &err) : NULL;
    if (!md || !cmp) {
        free(md);
        return md ? wk_cli_common_report(&err) : wk_cli_common_nomem();
    }
    WkStrBuf b = {0};
    wk_strbuf_printf(&b, "%s\n## The baseline and SCI runs side by side (wanka compare)\n\n%s", md, cmp);
    free(md);
    free(cmp);
    char *tables = wk_strbuf_take(&b);
    if (!tables)
        return wk_cli_common_nomem();
    int status = wk_cli_analysis_html(r->html, "wanka report paper-sci", tables, figs, 2, runs, nruns);
    free(tables);
    if (status == 0 && r->fmt != WK_REPORT_JSON)
        printf("html: %s\n", r->html);
    return status;
}

int wk_cli_analysis_report(int argc, char **argv)
{
    if (run_form(argc, argv))
        return wk_cli_paper_run(argc - 1, argv + 1);
    ReportArgs r = {.fmt = WK_REPORT_TEXT};
    int status = report_args(argc, argv, &r);
    if (status)
        return status;
    WkError err;
    wk_error_clear(&err);
    WkReport *rep = NULL;
    int rc = wk_report_load(&rep, r.name, &r.in, &err);
    status = wk_cli_common_emit(rc, &err, rc == 0 ? wk_report_render(rep, (WkReportFormat)r.fmt) : NULL);
    if (status == 0 && r.html)
        status = report_html(&r, rep);
    wk_report_free(rep);
    return status;
}

/* ---- plot ---- */

/* An analysis script (plot.py, html_report.py): in the source tree, else
 * where it was installed. */
static const char *analysis_script(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", WK_ANALYSIS_DIR, name);
    if (access(buf, R_OK) == 0)
        return buf;
    snprintf(buf, n, "%s/%s", WK_ANALYSIS_INSTALL_DIR, name);
    if (access(buf, R_OK) == 0)
        return buf;
    return NULL;
}

/* The plot process while wanka waits for it, 0 otherwise, and the signal
 * wanka received meanwhile: a signal handler can reach nothing else. */
static volatile sig_atomic_t plot_child, plot_signal;

/* SIGINT/SIGTERM to wanka plot: passed on to the plot process, which ends;
 * wanka then reports the signal. */
static void plot_forward(int sig)
{
    plot_signal = sig;
    if (plot_child > 0)
        kill((pid_t)plot_child, sig);
}

/* Wait for the script process pid (python names it) and pass its exit
 * status through: 128 + the signal that killed it (or that wanka passed on
 * to it), 1 when waiting fails. */
static int python_wait(pid_t pid, const char *prog, const char *python)
{
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "wanka %s: waiting for %s: %s\n", prog, python, strerror(errno));
            return 1;
        }
    }
    plot_child = 0;
    if (plot_signal) {
        fprintf(stderr, "wanka %s: interrupted by %s; %s ended, nothing written\n", prog,
                wk_cli_common_signal_name(plot_signal), python);
        return 128 + plot_signal;
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) {
        fprintf(stderr, "wanka %s: %s killed by signal %d\n", prog, python, WTERMSIG(st));
        return 128 + WTERMSIG(st);
    }
    return 1;
}

/* Start `python script args...` as a child that ends with wanka: SIGINT and
 * SIGTERM to wanka are passed on to it (plot_forward), and if wanka dies
 * without a chance to pass anything on (SIGKILL) the kernel sends it SIGTERM
 * (PR_SET_PDEATHSIG). Returns its pid, or -1 with errno from fork or exec. */
static pid_t plot_spawn(const char *python, char **args)
{
    int fds[2]; /* exec's errno comes back through it; closed on exec */
    if (pipe(fds) != 0)
        return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    static const int sigs[] = {SIGINT, SIGTERM};
    int caught[2] = {0, 0}; /* a signal ignored at start stays ignored, in the child too */
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = plot_forward;
        sigemptyset(&sa.sa_mask);
        caught[i] = sigaction(sigs[i], &sa, NULL) == 0;
    }
    /* blocked until plot_child is set: a signal in between is passed on too */
    sigset_t block, was;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &was);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        sigprocmask(SIG_SETMASK, &was, NULL);
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            if (caught[i])
                signal(sigs[i], SIG_DFL);
        sigprocmask(SIG_SETMASK, &was, NULL);
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
            _exit(127); /* wanka is already gone */
        execvp(python, args);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    plot_child = pid;
    sigprocmask(SIG_SETMASK, &was, NULL);
    close(fds[1]);
    int e = 0;
    ssize_t got;
    while ((got = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (got == (ssize_t)sizeof e) { /* exec failed */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        plot_child = 0;
        errno = e;
        return -1;
    }
    return pid;
}

/* Before python reads them, each trace named in args is opened and the
 * columns --what reads are read by wanka's own checked reader, so a
 * malformed trace is a one-line "wanka: FILE: ..." and exit 2, never a
 * crash of the HDF5 library inside python. A table the trace lacks is left
 * to plot.py, which says what --what needs; `--what scaling` reads JSON and
 * is not checked here. Returns 0 or the exit status. */
static int plot_precheck(int argc, char **argv)
{
    static const char *const cols[][3] = {
        {"utilization", "timeseries/cluster", "allocated_gpus"}, {"queue", "timeseries/cluster", "queued_jobs"},
        {"power", "timeseries/cluster", "power"}, {"jct-cdf", "jobs", "end"}, {"jct-cdf", "jobs", "submit"},
        {"utilization", "timeseries/cluster", "time"}, {"queue", "timeseries/cluster", "time"},
        {"power", "timeseries/cluster", "time"}};
    const char *what = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v = wk_cli_common_opt_value(argc, argv, &i, "--what", NULL);
        if (v)
            what = v;
    }
    if (what && strcmp(what, "scaling") == 0)
        return 0; /* its inputs are `wanka perf --scale --json` files, not traces */
    int status = 0;
    for (int i = 0; i < argc && status == 0; i++) {
        if (wk_cli_common_is_opt(argv[i], "--what", NULL) || wk_cli_common_is_opt(argv[i], "--output", "-o")) {
            if (!strchr(argv[i], '='))
                i++; /* its value */
            continue;
        }
        if (wk_cli_common_is_dash(argv[i]) || access(argv[i], F_OK) != 0)
            continue; /* an option, or a missing file: plot.py says so */
        WkError err;
        wk_error_clear(&err);
        WkTraceRead *r = NULL;
        int rc = wk_trace_read_open(&r, argv[i], &err);
        for (size_t k = 0; rc == 0 && what && k < sizeof cols / sizeof cols[0]; k++) {
            if (strcmp(cols[k][0], what) != 0 || !wk_trace_read_has(r, cols[k][1]))
                continue;
            double *col = NULL;
            size_t n = 0;
            rc = wk_trace_read_column(r, cols[k][1], cols[k][2], &col, &n, &err);
            free(col);
        }
        wk_trace_read_close(r);
        if (rc < 0) {
            wk_cli_common_report(&err);
            status = 2;
        }
    }
    return status;
}

int wk_cli_analysis_python(const char *prog, const char *script_name, int argc, char **argv)
{
    char script[4096];
    if (!analysis_script(script_name, script, sizeof script)) {
        fprintf(stderr, "wanka %s: cannot find %s (looked in %s and %s)\n", prog, script_name, WK_ANALYSIS_DIR,
                WK_ANALYSIS_INSTALL_DIR);
        return 1;
    }
    const char *python = getenv("WANKA_PYTHON");
    if (!python || !python[0])
        python = WK_PYTHON;
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args)
        return wk_cli_common_nomem();
    args[0] = (char *)python;
    args[1] = script;
    for (int i = 0; i < argc; i++)
        args[i + 2] = argv[i];
    fflush(stdout);
    fflush(stderr);
    pid_t pid = plot_spawn(python, args);
    int e = errno;
    free(args);
    if (pid < 0) {
        fprintf(stderr,
                "wanka %s: cannot run %s: %s\n"
                "wanka %s: it needs python3 with h5py and matplotlib; on Debian/Ubuntu:\n"
                "  sudo apt-get install python3 python3-h5py python3-matplotlib\n",
                prog, python, strerror(e), prog);
        return 1;
    }
    return python_wait(pid, prog, python);
}

/* Run `python3 analysis/plot.py ARGS...` and pass its exit status through. */
int wk_cli_analysis_plot(int argc, char **argv)
{
    if (argc == 0)
        return wk_cli_common_usage_error("plot", "missing TRACE.h5 -o OUT.png --what WHAT");
    int bad = plot_precheck(argc, argv);
    if (bad)
        return bad;
    return wk_cli_analysis_python("plot", "plot.py", argc, argv);
}

/* ---- the HTML report ---- */

int wk_cli_analysis_html_check(const char *html)
{
    size_t n = strlen(html);
    if (n < 6 || (strcmp(html + n - 5, ".html") != 0 && strcmp(html + n - 4, ".htm") != 0))
        return wk_cli_common_usage_error("report", "--html %s: the page's name must end in .html", html);
    char dir[4096];
    const char *slash = strrchr(html, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash == html ? 1 : slash - html), html);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return wk_cli_common_usage_error("report", "--html %s: directory %s does not exist", html, dir);
    if (stat(html, &st) == 0 && S_ISDIR(st.st_mode))
        return wk_cli_common_usage_error("report", "--html %s: is a directory", html);
    return 0;
}

int wk_cli_analysis_html(const char *html, const char *title, const char *tables, const char *const *figs,
                         size_t nfigs, const char *const *runs, size_t nruns)
{
    const char *dir = getenv("TMPDIR");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/wanka-report-XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "wanka report: %s: cannot create a temporary file: %s\n", tmp, strerror(errno));
        return 1;
    }
    size_t len = strlen(tables);
    FILE *f = fdopen(fd, "w");
    int bad = !f || fwrite(tables, 1, len, f) != len;
    if (f ? fclose(f) != 0 : close(fd) != 0)
        bad = 1;
    if (bad) {
        fprintf(stderr, "wanka report: %s: cannot write: %s\n", tmp, strerror(errno));
        unlink(tmp);
        return 1;
    }
    int argc = 0;
    char **argv = calloc(nfigs + nruns + 10, sizeof *argv);
    if (!argv) {
        unlink(tmp);
        return wk_cli_common_nomem();
    }
    argv[argc++] = "--tables";
    argv[argc++] = tmp;
    argv[argc++] = "--title";
    argv[argc++] = (char *)title;
    argv[argc++] = "-o";
    argv[argc++] = (char *)html;
    argv[argc++] = "--figures";
    for (size_t i = 0; i < nfigs; i++)
        argv[argc++] = (char *)figs[i];
    argv[argc++] = "--runs";
    for (size_t i = 0; i < nruns; i++)
        argv[argc++] = (char *)runs[i];
    int status = wk_cli_analysis_python("report", "html_report.py", argc, argv);
    free(argv);
    unlink(tmp);
    return status;
}

char *wk_cli_analysis_compare_markdown(const char *const *paths, size_t n, WkError *err)
{
    WkCompare *c = NULL;
    char *text = NULL;
    if (wk_compare_load(&c, paths, n, 1, err) == 0 && !(text = wk_compare_render(c, WK_COMPARE_MARKDOWN)))
        wk_error_nomem(err, "compare");
    wk_compare_free(c);
    return text;
}
