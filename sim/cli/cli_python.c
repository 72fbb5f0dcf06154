/* SPDX-License-Identifier: Apache-2.0 */
/* cli_python.c — the Python scripts of analysis/ run as a child of wanka:
 * `wanka plot` (plot.py, after wanka's own checked read of each trace),
 * `wanka analyze` (analyze.py, likewise) and the HTML report page (html_report.py) with the check of its --html name.
 * Used by the trace commands (cli_analysis.c) and by cli_paper.c. */
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

#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "sim/trace/trace_read.h"
#include "wk_config.h"

const char wk_cli_python_usage_plot[] =
    "usage: wanka plot TRACE.h5... -o OUT.png|OUT.svg --what WHAT [--top N] [--force]\n"
    "                  [--ci] [--baseline TRACE.h5] [--smooth DURATION]\n"
    "       wanka plot CURVE.json... -o OUT.png|OUT.svg --what scaling\n"
    "\n"
    "Draw one figure from one or more traces, runs overlaid and labelled\n"
    "scheduler/seed. WHAT is one of:\n"
    "  utilization   allocated GPUs / GPUs over time (days)\n"
    "  queue         jobs waiting over time\n"
    "  power         facility power (MW) over time\n"
    "  jct-cdf       CDF of the completion time of completed jobs (hours)\n"
    "  incidents     cumulative incidents over time (traces with an incidents table)\n"
    "  gantt         the cluster's nodes over time, grouped by pod and rack, each\n"
    "                job segment a bar on the nodes it held (traces of schema 1.6\n"
    "                on; older traces: as gantt-jobs; one panel per trace)\n"
    "  gantt-jobs    the N jobs with the most GPU-time (--top N, default 30) as bars\n"
    "                from start to end, as tall as their GPUs; incidents that\n"
    "                stopped jobs marked (one panel per trace)\n"
    "  fragmentation free GPUs, and those no waiting job can use, over time\n"
    "                (schema 1.6 on; one panel per trace)\n"
    "  heatmap       each pod's utilization over time (timeseries/pods; traces of\n"
    "                schema 1.2 on)\n"
    "  recovery      the incidents that stopped jobs, grouped by recovery (those\n"
    "                alike one bar, its count on top): detection, wait and restart\n"
    "                stacked, and the work lost (--top N longest)\n"
    "  scaling       throughput and scaling efficiency against GPUs, from the JSON\n"
    "                of `wanka perf JOB.yaml --scale N1,N2,... --json > CURVE.json`\n"
    "  wan           a network's WAN links: each link's traffic as a share of its\n"
    "                bandwidth over time (the --top N busiest; schema 1.5 on)\n"
    "  sites         a network's sites, a panel each: utilization and jobs waiting\n"
    "\n"
    "A sweep index (DIR/sweep.h5) stands for the traces of its points that ran.\n"
    "power also draws the facility budget and the electricity price (right axis)\n"
    "of traces with a `facility:` section. Legends sit beside the plot; runs\n"
    "overlaid get a line style each, so identical series stay visible.\n"
    "\n"
    "options:\n"
    "  -o OUT          the image (.png or .svg); an existing OUT is replaced only\n"
    "                  with --force\n"
    "  --top N         gantt-jobs, wan: the N largest; recovery: the N longest\n"
    "                  distinct recoveries (default 30)\n"
    "  --ci            (utilization, queue, power, jct-cdf) traces of one scenario,\n"
    "                  scheduler and --set overrides that differ in their seed only\n"
    "                  are one curve: their mean with its 95 % confidence band\n"
    "  --baseline T    (the same kinds) each trace's difference from trace T; for\n"
    "                  jct-cdf each percentile's completion time over that of T\n"
    "  --smooth D      (utilization, queue, power) a centred moving average over\n"
    "                  duration D, e.g. 6h or 2d\n"
    "\n"
    "Runs analysis/plot.py with python3 (set WANKA_PYTHON to choose another\n"
    "interpreter); it needs h5py and matplotlib, on Debian/Ubuntu installed with:\n"
    "  sudo apt-get install python3 python3-h5py python3-matplotlib\n"
    "\n"
    "exit status: 0 written, 2 bad arguments, missing file or a trace lacking the\n"
    "data to plot, 1 python3 or its packages missing.\n"
    "\n"
    "example:\n"
    "  wanka plot a1.h5 b1.h5 -o util.png --what utilization\n"
    "  wanka plot a1.h5 -o jct.svg --what jct-cdf\n"
    "  wanka plot a1.h5 -o gantt.png --what gantt\n"
    "  wanka plot a1.h5 -o top.png --what gantt-jobs --top 20\n"
    "  wanka perf j.yaml --scale 256,512,1024,2048 --json > curve.json\n"
    "  wanka plot curve.json -o scaling.png --what scaling\n"
    "  wanka plot fifo*.h5 sci*.h5 -o util.png --what utilization --ci --smooth 1d\n"
    "  wanka plot sci*.h5 -o jct.png --what jct-cdf --ci --baseline fifo1.h5\n";

const char wk_cli_python_usage_analyze[] =
    "usage: wanka analyze TRACE.h5 [--json] [--bins N] [--sweep TRACE.h5...]\n"
    "\n"
    "The seed paper's analyses (its sections 2.3 and 4.2) of one trace: the\n"
    "communication graph over nodes (degrees, clustering, communities against\n"
    "pods and racks; whole run and busiest day), the entropy of the cluster state\n"
    "over time, periodicity of utilization (autocorrelation, spectrum), per-GPU\n"
    "utilization spread at the busiest hour, and an Ising-style fit (order\n"
    "parameter m, susceptibility chi, couplings J by distance, fields h).\n"
    "With --sweep, m and chi of TRACE and every further trace against offered\n"
    "load (or cluster size) and whether chi peaks inside the sweep.\n"
    "\n"
    "options:\n"
    "  --json        one JSON object instead of the text report\n"
    "  --bins N      time bins of the spin configurations (default 400, 10..5000)\n"
    "  --sweep T...  further traces (e.g. a `wanka sweep` over arrival rates)\n"
    "\n"
    "The graph, spread, entropy and Ising sections need the placement table\n"
    "(schema 1.6). docs/analysis.md \"wanka analyze\" gives every equation.\n"
    "Runs analysis/analyze.py with python3 (WANKA_PYTHON chooses another); it\n"
    "needs numpy and h5py (Debian/Ubuntu: python3-h5py).\n"
    "\n"
    "exit status: 0 done, 2 bad arguments or a file that is not a readable\n"
    "wanka trace, 1 python3 or its packages missing.\n"
    "\n"
    "example:\n"
    "  wanka run scenarios/paper-sci-10k.yaml -o p.h5\n"
    "  wanka analyze p.h5\n"
    "  wanka analyze a.h5 --sweep b.h5 c.h5 --json > sweep.json\n";

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

/* SIGINT/SIGTERM/SIGHUP to wanka plot or report --html: passed on to the
 * python process, which ends; wanka then reports the signal. */
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
    if (plot_signal && WIFEXITED(st) && WEXITSTATUS(st) == 0) { /* it came after the output was complete */
        fprintf(stderr, "wanka %s: interrupted by %s after %s had written its output (complete, kept)\n", prog,
                wk_cli_common_signal_name(plot_signal), python);
        return 128 + plot_signal;
    }
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

/* Start `python script args...` as a child that ends with wanka: SIGINT,
 * SIGTERM and SIGHUP to wanka are passed on to it (plot_forward), and if wanka dies
 * without a chance to pass anything on (SIGKILL) the kernel sends it SIGTERM
 * (PR_SET_PDEATHSIG). Returns its pid, or -1 with errno from fork or exec. */
static pid_t plot_spawn(const char *python, char **args)
{
    int fds[2]; /* exec's errno comes back through it; closed on exec */
    if (pipe(fds) != 0)
        return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    int caught[3] = {0, 0, 0}; /* a signal ignored at start stays ignored, in the child too */
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
    sigaddset(&block, SIGHUP);
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
        {"power", "timeseries/cluster", "time"}, {"wan", "timeseries/wan", "bytes_per_s"},
        {"wan", "timeseries/wan", "time"}};
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

int wk_cli_python_run(const char *prog, const char *script_name, int argc, char **argv)
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
int wk_cli_python_plot(int argc, char **argv)
{
    if (argc == 0)
        return wk_cli_common_usage_error("plot", "missing TRACE.h5 -o OUT.png --what WHAT");
    int bad = plot_precheck(argc, argv);
    if (bad)
        return bad;
    return wk_cli_python_run("plot", "plot.py", argc, argv);
}

/* ---- analyze ---- */

/* Each trace named in args opened and the columns analyze.py reads read by
 * wanka's checked reader first (as plot_precheck), so a malformed or
 * truncated trace is "wanka: FILE: ..." and exit 2. A missing file is left
 * to analyze.py, which names it. Returns 0 or the exit status. */
static int analyze_precheck(int argc, char **argv)
{
    static const char *const cols[][2] = {
        {"timeseries/cluster", "time"}, {"timeseries/cluster", "allocated_gpus"}, {"jobs", "gpus"},
        {"jobs", "duration"}, {"jobs", "status"}, {"placement", "job"}, {"placement", "segment"},
        {"placement", "start"}, {"placement", "end"}, {"placement", "node"}, {"placement", "nodes"},
        {"placement", "gpu"}, {"placement", "gpus"}, {"nodes", "pod"}, {"nodes", "rack"}, {"nodes", "gpus"},
        {"incidents", "kind"}, {"incidents", "start"}, {"incidents", "end"}, {"incidents", "gpus_lost"}};
    int status = 0;
    for (int i = 0; i < argc && status == 0; i++) {
        if (wk_cli_common_is_opt(argv[i], "--bins", NULL)) {
            if (!strchr(argv[i], '='))
                i++; /* its value */
            continue;
        }
        if (wk_cli_common_is_dash(argv[i]) || access(argv[i], F_OK) != 0)
            continue; /* an option, or a missing file: analyze.py says so */
        WkError err;
        wk_error_clear(&err);
        WkTraceRead *r = NULL;
        int rc = wk_trace_read_open(&r, argv[i], &err);
        for (size_t k = 0; rc == 0 && k < sizeof cols / sizeof cols[0]; k++) {
            if (!wk_trace_read_has(r, cols[k][0]))
                continue;
            double *col = NULL;
            size_t n = 0;
            rc = wk_trace_read_column(r, cols[k][0], cols[k][1], &col, &n, &err);
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

/* Run `python3 analysis/analyze.py ARGS...` and pass its exit status through. */
int wk_cli_python_analyze(int argc, char **argv)
{
    if (argc == 0)
        return wk_cli_common_usage_error("analyze", "missing TRACE.h5");
    int bad = analyze_precheck(argc, argv);
    if (bad)
        return bad;
    return wk_cli_python_run("analyze", "analyze.py", argc, argv);
}

/* ---- the HTML report ---- */

int wk_cli_python_html_check(const char *html, int force)
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
    return wk_cli_common_refuse_existing("report", html, force);
}

int wk_cli_python_html(const char *html, const char *title, const char *tables, const char *const *figs,
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
    int status = wk_cli_python_run("report", "html_report.py", argc, argv);
    free(argv);
    unlink(tmp);
    return status;
}
