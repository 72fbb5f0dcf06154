/* SPDX-License-Identifier: Apache-2.0 */
/* main.c — the wanka command line: argument parsing, help, progress, printing
 * and exit statuses (0 ok, 1 internal error, 2 bad input or usage). The one
 * place that prints. It reaches the models only through sim/run.h. */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/report.h"
#include "sim/batch/check.h"
#include "sim/scenario/compose.h"
#include "sim/scenario/emit.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"
#include "sim/scenario/section.h"
#include "models/run/run.h"
#include "sim/trace/summary.h"
#include "sim/batch/sweep.h"
#include "wk_config.h"

#define EXIT_USAGE 2

static const char *const usage_main =
    "usage: wanka COMMAND [ARGS]\n"
    "\n"
    "wanka simulates GPU training clusters (thousands to 100k GPUs) event by\n"
    "event: jobs arrive, a scheduler places them, GPUs fill and drain, and the\n"
    "run reports utilization, completion times and queue waits, and writes an\n"
    "HDF5 trace for later analysis.\n"
    "\n"
    "commands:\n"
    "  run SCENARIO.yaml       simulate a scenario; print a summary, write a trace\n"
    "  validate SCENARIO.yaml  check a scenario without running it\n"
    "  topo SCENARIO.yaml      describe the scenario's cluster: GPUs, switches, links, power\n"
    "  perf JOB.yaml           iteration time, throughput, MFU and memory of one training job\n"
    "  list KIND               list schedulers, sources (workload) or skus (GPUs)\n"
    "  compare A.h5 B.h5 ...   summary metrics of several traces side by side\n"
    "  plot TRACE.h5... -o F   draw utilization, queue, power, JCT CDF or incidents\n"
    "  sweep SWEEP.yaml        run a parameter sweep in parallel; traces and an index\n"
    "  sweep-merge DIR         merge the indexes of a sharded sweep\n"
    "  check BASELINE.yaml     regression gate: run scenarios, compare metrics to expected\n"
    "  report paper-sci B.h5 S.h5  the seed paper's tables: published vs simulated\n"
    "  help [COMMAND]          show help for a command\n"
    "\n"
    "options:\n"
    "  --version               print the version\n"
    "  -h, --help              this help\n"
    "\n"
    "Start with:  wanka run scenarios/quickstart.yaml\n"
    "Scenario keys are documented in docs/scenarios.md.\n";

static const char *const usage_run =
    "usage: wanka run SCENARIO.yaml [options]\n"
    "\n"
    "Simulate the scenario, print its summary table and write an HDF5 trace.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE       trace path (default: the scenario's base name\n"
    "                          with .h5, in the current directory)\n"
    "      --no-trace          do not write a trace\n"
    "      --keep-partial      on SIGINT/SIGTERM, write the run so far to\n"
    "                          TRACE.partial.h5 (root attribute complete = 0)\n"
    "      --seed N            override the scenario's seed (non-negative integer)\n"
    "      --scheduler NAME    override the scenario's scheduler (see: wanka list schedulers)\n"
    "      --set KEY.PATH=VALUE\n"
    "                          override one scenario value; repeatable.\n"
    "                          e.g. --set cluster.nodes=64 --set workload.jobs=500\n"
    "      --json              print the summary as one JSON object\n"
    "  -q, --quiet             no progress output\n"
    "\n"
    "Progress (simulated time, events/s) goes to stderr for runs longer than a\n"
    "second when stderr is a terminal. The trace is written under a temporary\n"
    "name and renamed when complete; on error no trace is left behind.\n"
    "Ctrl-C (SIGINT) or SIGTERM stops the run at the next event; no trace is\n"
    "written unless --keep-partial is given, and an existing trace is kept.\n"
    "\n"
    "exit status: 0 success, 2 bad scenario or arguments, 1 internal error,\n"
    "130 interrupted by SIGINT, 143 by SIGTERM.\n"
    "\n"
    "example:\n"
    "  wanka run scenarios/quickstart.yaml --seed 7 -o q7.h5\n"
    "  wanka run scenarios/philly.yaml --set workload.trace=/data/philly.csv\n";

static const char *const usage_validate =
    "usage: wanka validate SCENARIO.yaml [--resolved] [--seed N] [--scheduler NAME] [--set KEY.PATH=VALUE]...\n"
    "\n"
    "Read and check the whole scenario as `wanka run` would (unknown keys,\n"
    "types, ranges, trace files, workload rows) without simulating. Prints\n"
    "what the scenario describes, or the first error as FILE:LINE:COL: KEY: MESSAGE.\n"
    "\n"
    "      --resolved          print the scenario as it will run, as YAML: its\n"
    "                          include: files merged in and the --set overrides\n"
    "                          applied (stdout holds only the YAML; it is still checked)\n"
    "\n"
    "exit status: 0 valid, 2 invalid, 1 internal error.\n";

static const char *const usage_topo =
    "usage: wanka topo SCENARIO.yaml [--json] [--set KEY.PATH=VALUE]...\n"
    "\n"
    "Build the scenario's cluster and print what it holds, without simulating:\n"
    "GPUs by SKU, nodes, pods, NVLink domains, leaf/spine/core switches, links\n"
    "per tier, optical modules, bisection bandwidth, network, peak and idle power.\n"
    "Only the `cluster:` section is read.\n"
    "\n"
    "example:\n"
    "  wanka topo scenarios/superpod-10k.yaml\n"
    "  wanka topo scenarios/superpod-10k.yaml --set cluster.fabric.oversubscription=2 --json\n";

static const char *const usage_perf =
    "usage: wanka perf JOB.yaml [--json] [--scale N1,N2,...] [--set KEY.PATH=VALUE]...\n"
    "\n"
    "What will this job do on this cluster? Evaluates the performance model for\n"
    "one training job placed on the first GPUs of the cluster (its ring flows\n"
    "share the fabric) and prints the iteration time with its breakdown\n"
    "(compute, pipeline bubble, exposed TP/PP/DP/EP communication), tokens/s,\n"
    "achieved TFLOP/s per GPU, MFU and memory per GPU. Answers in milliseconds.\n"
    "\n"
    "JOB.yaml keys: model (a preset or a map), gpus, and optionally cluster\n"
    "(default: H100 nodes on a 400G rail-optimized fat-tree sized to the job),\n"
    "perf (model choices), models (named specs). Presets: llama3-8b, llama3-70b,\n"
    "llama3-405b, gpt3-175b, mixtral-8x7b, resnet50, vit-l16.\n"
    "\n"
    "  --scale N1,N2,...  the scaling curve: DP grows at fixed TP/PP/CP, the\n"
    "                     micro-batches per replica fixed (weak scaling); the\n"
    "                     efficiency is throughput per GPU against the first size\n"
    "\n"
    "example:\n"
    "  echo 'model: llama3-70b' > j.yaml; echo 'gpus: 1024' >> j.yaml\n"
    "  wanka perf j.yaml\n"
    "  wanka perf j.yaml --scale 256,512,1024,2048,4096\n"
    "  wanka perf j.yaml --set model.recompute=full --set model.micro_batch=2\n";

static const char *const usage_list =
    "usage: wanka list schedulers|sources|skus\n"
    "\n"
    "  schedulers  scheduling policies for `scheduler:` or --scheduler\n"
    "  sources     workload sources for `workload.source`\n"
    "  skus        built-in GPU SKUs for `cluster.sku`, with their sources\n";

static const char *const usage_compare =
    "usage: wanka compare TRACE.h5... [--json|--csv|--markdown] [--no-group]\n"
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
    "      --json              one JSON object (values, ci95, n, rel_change, overlap)\n"
    "      --csv               CSV, one row per metric\n"
    "      --markdown          a Markdown table\n"
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
    "\n"
    "More in docs/analysis.md.\n";

static const char *const usage_plot =
    "usage: wanka plot TRACE.h5... -o OUT.png|OUT.svg --what WHAT\n"
    "\n"
    "Draw one figure from one or more traces, runs overlaid and labelled\n"
    "scheduler/seed. WHAT is one of:\n"
    "  utilization   allocated GPUs / GPUs over time (days)\n"
    "  queue         jobs waiting over time\n"
    "  power         facility power (MW) over time\n"
    "  jct-cdf       CDF of the completion time of completed jobs (hours)\n"
    "  incidents     cumulative incidents over time (traces with an incidents table)\n"
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
    "  wanka plot a1.h5 -o jct.svg --what jct-cdf\n";

static const char *const usage_report =
    "usage: wanka report paper-sci BASELINE.h5 SCI.h5 [--throttle T.h5]\n"
    "         [--throttle-naive N.h5] [--throttle-baseline T0.h5] [--markdown|--json]\n"
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
    "      --markdown                Markdown tables\n"
    "      --json                    one JSON object\n"
    "\n"
    "exit status: 0 success, 2 bad arguments, missing file, not a trace or unknown\n"
    "schema version, 1 internal error.\n"
    "\n"
    "example (docs/reproducing-sci.md):\n"
    "  wanka run scenarios/paper-sci-10k.yaml -q --scheduler fifo -o fifo.h5\n"
    "  wanka run scenarios/paper-sci-10k.yaml -q --scheduler sci -o sci.h5\n"
    "  wanka report paper-sci fifo.h5 sci.h5\n";

static const char *const usage_sweep =
    "usage: wanka sweep SWEEP.yaml [-j THREADS] [-o DIR] [--shard I/N] [--no-traces] [--dry-run] [-q]\n"
    "\n"
    "Run every point of a parameter sweep: a base scenario crossed with lists of\n"
    "schedulers, seeds and values of any key path. Points run in parallel, each\n"
    "with its own copy of the scenario, engine and random streams, so the\n"
    "results are the same for any thread count. Writes one trace per point\n"
    "(DIR/p0000.h5, ...) and DIR/sweep.h5, an index with each point's\n"
    "parameters, trace, status and summary metrics. A point that fails is\n"
    "reported with its error and the others go on.\n"
    "\n"
    "SWEEP.yaml:\n"
    "  base: scenarios/paper-sci-10k.yaml   # or an inline scenario mapping\n"
    "  set: {sim.end: 30d}                  # optional: applied to every point\n"
    "  schedulers: [fifo, backfill]         # or all\n"
    "  seeds: {from: 1, to: 5}              # or [1, 2, 3]\n"
    "  axes:                                # optional: key path -> list or range\n"
    "    cluster.nodes: [640, 1280]\n"
    "    checkpoint.interval: {from: 30m, to: 2h, step: 30m}\n"
    "\n"
    "options:\n"
    "  -j, --threads N         run N points at a time (default: all cores)\n"
    "  -o, --output DIR        output directory (default: the sweep file's base name)\n"
    "      --shard I/N         run only the points with id = I (mod N), 0 <= I < N, and\n"
    "                          write DIR/sweep-shard-I-of-N.h5 (merge with wanka sweep-merge)\n"
    "      --no-traces         write only the index\n"
    "      --dry-run           list the points and check each one's scenario; run nothing\n"
    "  -q, --quiet             no progress line\n"
    "\n"
    "A progress line goes to stderr when it is a terminal. Compare the results\n"
    "with: wanka compare DIR/sweep.h5 (seeds of one configuration pooled).\n"
    "\n"
    "exit status: 0 every point ran, 1 a point failed, 2 bad sweep file or arguments.\n"
    "More in docs/batch.md.\n";

static const char *const usage_sweep_merge =
    "usage: wanka sweep-merge DIR\n"
    "       wanka sweep-merge -o OUT.h5 SHARD.h5...\n"
    "\n"
    "Merge the indexes of a sharded sweep (wanka sweep --shard I/N) into one\n"
    "index, as a single `wanka sweep` would have written it. With DIR, merges\n"
    "DIR/sweep-shard-*-of-*.h5 into DIR/sweep.h5. Points no shard ran are listed\n"
    "as not_run. Shards of different sweeps are refused.\n"
    "\n"
    "exit status: 0 merged and complete, 1 a point failed or is missing,\n"
    "2 bad arguments or a file that is not a shard index of the same sweep.\n";

static const char *const usage_check =
    "usage: wanka check BASELINE.yaml [--update] [-j THREADS] [-q]\n"
    "\n"
    "Regression gate: run the baseline's scenarios (each with its scheduler,\n"
    "seeds and overrides; in parallel) and compare the mean over the seeds of\n"
    "each listed summary metric with its expected value. Prints a table\n"
    "(scenario, metric, expected, got, tolerance, PASS/FAIL).\n"
    "\n"
    "BASELINE.yaml:\n"
    "  tolerance: {rel: 1e-9}          # default for metrics that give none\n"
    "  scenarios:\n"
    "    - scenario: ../scenarios/quickstart.yaml   # relative to this file, or inline\n"
    "      scheduler: fifo\n"
    "      seeds: [1, 2]\n"
    "      set: {workload.jobs: 300}\n"
    "      metrics:\n"
    "        utilization: {expected: 0.7312, rel: 0.01}   # or abs: 0.005\n"
    "        jobs_completed: 300                         # default tolerance\n"
    "\n"
    "options:\n"
    "      --update            rewrite the expected values with the values got (only\n"
    "                          those numbers change in the file; comments stay);\n"
    "                          review the diff and commit it with the change that caused it\n"
    "  -j, --threads N         runs at a time (default: all cores)\n"
    "  -q, --quiet             no progress line\n"
    "\n"
    "exit status: 0 all PASS (or updated), 1 a FAIL or a run that failed,\n"
    "2 bad baseline file or arguments. More in docs/batch.md.\n";

static const char *const usage_help = "usage: wanka help [run|validate|topo|list|compare|plot|report|sweep|sweep-merge|check]\n";

typedef struct {
    const char *scenario;
    const char *output;
    int no_trace, json, quiet;
    int keep_partial; /* run: --keep-partial */
    WkRunOpts ro;
    const char **sets;
    size_t nsets;
} Args;

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "wanka%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see: wanka help%s%s)\n", cmd ? " " : "", cmd ? cmd : "");
    return EXIT_USAGE;
}

/* Value of an option given as "--opt value" or "--opt=value". */
static const char *opt_value(int argc, char **argv, int *i, const char *name, const char *shortname)
{
    const char *a = argv[*i];
    size_t l = strlen(name);
    if (strncmp(a, name, l) == 0 && a[l] == '=')
        return a + l + 1;
    if (strcmp(a, name) == 0 || (shortname && strcmp(a, shortname) == 0)) {
        if (*i + 1 < argc)
            return argv[++*i];
        return NULL;
    }
    return NULL;
}

static int is_opt(const char *a, const char *name, const char *shortname)
{
    size_t l = strlen(name);
    return strcmp(a, name) == 0 || (shortname && strcmp(a, shortname) == 0) ||
           (strncmp(a, name, l) == 0 && a[l] == '=');
}

static int parse_args(const char *cmd, int argc, char **argv, Args *a)
{
    a->sets = calloc((size_t)argc + 1, sizeof *a->sets);
    if (!a->sets)
        return 1;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        const char *v;
        if (is_opt(s, "--output", "-o")) {
            if (!(v = opt_value(argc, argv, &i, "--output", "-o")))
                return usage_error(cmd, "%s needs a file name", s);
            a->output = v;
        } else if (strcmp(s, "--keep-partial") == 0 && cmd && strcmp(cmd, "run") == 0) {
            a->keep_partial = 1;
        } else if (strcmp(s, "--no-trace") == 0) {
            a->no_trace = 1;
        } else if (strcmp(s, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(s, "--quiet") == 0 || strcmp(s, "-q") == 0) {
            a->quiet = 1;
        } else if (is_opt(s, "--seed", NULL)) {
            if (!(v = opt_value(argc, argv, &i, "--seed", NULL)))
                return usage_error(cmd, "%s needs a value", s);
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (!*v || *end || errno || v[0] == '-')
                return usage_error(cmd, "--seed: expected a non-negative integer, got '%s'", v);
            a->ro.has_seed = 1;
            a->ro.seed = x;
        } else if (is_opt(s, "--scheduler", NULL)) {
            if (!(v = opt_value(argc, argv, &i, "--scheduler", NULL)))
                return usage_error(cmd, "%s needs a name", s);
            a->ro.scheduler = v;
        } else if (is_opt(s, "--set", NULL)) {
            if (!(v = opt_value(argc, argv, &i, "--set", NULL)))
                return usage_error(cmd, "%s needs KEY.PATH=VALUE", s);
            a->sets[a->nsets++] = v;
        } else if (s[0] == '-' && s[1] != '\0') {
            return usage_error(cmd, "unknown option '%s'", s);
        } else if (!a->scenario) {
            a->scenario = s;
        } else {
            return usage_error(cmd, "unexpected argument '%s' (one scenario per run)", s);
        }
    }
    if (!a->scenario)
        return usage_error(cmd, "%s", "missing SCENARIO.yaml");
    a->ro.sets = a->sets;
    a->ro.nsets = a->nsets;
    return 0;
}

static int report(const WkError *err)
{
    char buf[WK_ERROR_WHERE_MAX + WK_ERROR_MSG_MAX + 8];
    fprintf(stderr, "wanka: %s\n", wk_error_format(err, buf, sizeof buf));
    return wk_error_exit_status(err->code);
}

/* The scenario with its includes resolved (sim/compose.h), then the --set
 * overrides. A sweep file (top-level `base:`) is no scenario: `wanka run`
 * refuses it with the command that runs it; with base_of_sweep set (topo),
 * its base scenario, `set:` applied, stands in for it. */
static int load_doc(const Args *a, WkDoc **doc, int base_of_sweep, WkError *err)
{
    int rc = wk_compose_load_file(doc, a->scenario, err);
    if (rc == 0 && wk_section_kind((*doc)->root) == WK_DOC_SWEEP) {
        wk_doc_free(*doc);
        *doc = NULL;
        if (!base_of_sweep)
            return wk_error_set(err, WK_E_INVAL, a->scenario, 0, 0,
                                "a sweep file (it has base:), not a scenario: run it with "
                                "`wanka sweep %s`, check it with `wanka validate %s`",
                                a->scenario, a->scenario);
        WkSweep *sw = NULL;
        if ((rc = wk_sweep_load(&sw, a->scenario, err)) < 0)
            return rc;
        *doc = sw->base;
        sw->base = NULL;
        wk_sweep_free(sw);
    }
    for (size_t i = 0; rc == 0 && i < a->nsets; i++)
        rc = wk_doc_set(*doc, a->sets[i], (long)i + 1, err);
    return rc;
}

static int load(const Args *a, WkDoc **doc, WkError *err) { return load_doc(a, doc, 0, err); }

/* `wanka validate SWEEP.yaml`: expand the points and check each one's
 * scenario (the sweep's --dry-run, quietly). */
static int validate_sweep(const Args *a)
{
    WkError err;
    wk_error_clear(&err);
    WkSweep *sw = NULL;
    size_t failed = 0;
    WkSweepRunOpts o = {.dry_run = 1, .threads = 1};
    int rc = wk_sweep_load(&sw, a->scenario, &err);
    if (rc == 0)
        rc = wk_sweep_run(sw, &o, &failed, &err);
    int status = 0;
    if (rc < 0) {
        status = report(&err);
    } else if (failed) {
        for (size_t i = 0; i < sw->npoints; i++)
            if (sw->points[i].status != WK_SWEEP_OK)
                fprintf(stderr, "wanka: %s: point p%04zu (%s): %s\n", a->scenario, sw->points[i].id,
                        sw->points[i].label, sw->points[i].error);
        status = 2;
    } else {
        const char *base = "unnamed";
        wk_node_str(sw->base->root, "name", 0, &base, NULL);
        printf("%s: ok: sweep '%s', %zu points over scenario '%s', each checked\n", a->scenario, sw->name,
               sw->npoints, base);
    }
    wk_sweep_free(sw);
    return status;
}

/* ---- progress on stderr ---- */

typedef struct {
    struct timespec t0;  /* program start */
    double last_s;       /* wall seconds at the last line printed */
    uint64_t last_events;
    int shown;
} Progress;

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void on_progress(void *user, WkTime now, uint64_t events)
{
    Progress *p = user;
    double el = since(&p->t0);
    if (el < 1.0 || el - p->last_s < 0.25)
        return;
    /* the rate over the interval since the last line, not since start-up */
    double rate = p->last_s > 0 ? (double)(events - p->last_events) / (el - p->last_s) : (double)events / el;
    p->shown = 1;
    p->last_s = el;
    p->last_events = events;
    fprintf(stderr, "\rwanka: simulated %.2f days, %.2f M events, %.2f M events/s   ",
            wk_time_to_s(now) / 86400.0, (double)events / 1e6, rate / 1e6);
    fflush(stderr);
}

static char *default_trace_path(const char *scenario)
{
    const char *base = strrchr(scenario, '/');
    base = base ? base + 1 : scenario;
    size_t l = strlen(base);
    if (l > 5 && strcmp(base + l - 5, ".yaml") == 0)
        l -= 5;
    else if (l > 4 && strcmp(base + l - 4, ".yml") == 0)
        l -= 4;
    char *p = malloc(l + 4);
    if (p) {
        memcpy(p, base, l);
        memcpy(p + l, ".h5", 4);
    }
    return p;
}

/* ---- SIGINT / SIGTERM during a run ---- */

/* The signal that asked the run to stop, 0 until then. The one file-scope
 * variable of wanka: a signal handler can reach nothing else. */
static volatile sig_atomic_t interrupt_signal;

static void on_interrupt(int sig) { interrupt_signal = sig; }

/* Catch SIGINT and SIGTERM for the run (the engine polls the flag before each
 * event). A second signal gets the default action (SA_RESETHAND). A signal
 * ignored at start (a background job of a non-interactive shell) stays ignored. */
static void catch_interrupts(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

static const char *interrupt_name(int sig) { return sig == SIGTERM ? "SIGTERM" : "SIGINT"; }

/* "x.h5" -> "x.partial.h5", "x" -> "x.partial.h5" (malloc'd; NULL when out of memory). */
static char *partial_trace_path(const char *path)
{
    size_t l = strlen(path);
    if (l > 3 && strcmp(path + l - 3, ".h5") == 0)
        l -= 3;
    char *p = malloc(l + sizeof ".partial.h5");
    if (p) {
        memcpy(p, path, l);
        memcpy(p + l, ".partial.h5", sizeof ".partial.h5");
    }
    return p;
}

/* A run stopped by a signal: no trace (an existing one is left as it was), or
 * with --keep-partial the run so far under TRACE.partial.h5. Exit 128 + signal. */
static int run_interrupted(const Args *a, const WkRun *run)
{
    int sig = interrupt_signal;
    WkRunAccount acc;
    wk_run_account(run, &acc);
    double days = wk_time_to_s(acc.end_ns) / 86400.0;
    if (!a->keep_partial || a->no_trace) {
        fprintf(stderr, "wanka: interrupted by %s at simulated day %.2f; no trace written%s\n",
                interrupt_name(sig), days, a->no_trace ? "" : " (--keep-partial keeps the run so far)");
        return 128 + sig;
    }
    char *def = a->output ? NULL : default_trace_path(a->scenario);
    char *path = partial_trace_path(a->output ? a->output : def ? def : "wanka");
    WkError err;
    wk_error_clear(&err);
    int rc = path ? wk_run_write_trace(run, path, &err) : wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
    if (rc < 0)
        report(&err);
    fprintf(stderr, "wanka: interrupted by %s at simulated day %.2f; %s%s\n", interrupt_name(sig), days,
            rc < 0 ? "the partial trace could not be written" : "partial trace (complete = 0): ",
            rc < 0 ? "" : path);
    free(path);
    free(def);
    return 128 + sig;
}

static int cmd_run(int argc, char **argv)
{
    Args a = {0};
    int st = parse_args("run", argc, argv, &a);
    if (st) {
        free(a.sets);
        return st;
    }
    catch_interrupts();
    a.ro.interrupt = &interrupt_signal;
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    char *out = NULL, *text = NULL;
    Progress prog = {0};
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    if (!a.quiet && isatty(STDERR_FILENO)) {
        a.ro.progress = on_progress;
        a.ro.progress_user = &prog;
    }
    int rc = load(&a, &doc, &err);
    if (rc == 0)
        rc = wk_run_prepare(&run, doc, &a.ro, &err);
    if (rc == 0)
        rc = wk_run_execute(run, &err);
    if (prog.shown)
        fprintf(stderr, "\r%*s\r", 78, "");
    if (rc == 0 && wk_run_interrupted(run)) {
        st = run_interrupted(&a, run);
        wk_run_free(run);
        wk_doc_free(doc);
        free(a.sets);
        return st;
    }
    WkSummary sum;
    if (rc == 0)
        rc = wk_run_summary(run, &sum, &err);
    if (rc == 0 && !a.no_trace) {
        out = a.output ? NULL : default_trace_path(a.scenario);
        if (!a.output && !out)
            rc = wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
        else
            rc = wk_run_write_trace(run, a.output ? a.output : out, &err);
    }
    if (rc == 0) {
        text = a.json ? wk_summary_json(&sum) : wk_summary_table(&sum);
        if (!text) {
            rc = wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
        } else {
            fputs(text, stdout);
            if (!a.json && !a.no_trace)
                printf("trace: %s\n", a.output ? a.output : out);
            if (!a.quiet && isatty(STDERR_FILENO))
                fprintf(stderr, "wanka: %.3f s wall\n", since(&prog.t0));
        }
    }
    int status = rc == 0 ? 0 : report(&err);
    if (rc == 0 && fflush(stdout) != 0)
        status = 1;
    if (interrupt_signal && status == 0) { /* the signal came after the last event */
        fprintf(stderr, "wanka: %s received after the run had finished; its output is complete\n",
                interrupt_name(interrupt_signal));
        status = 128 + interrupt_signal;
    }
    free(text);
    free(out);
    wk_run_free(run);
    wk_doc_free(doc);
    free(a.sets);
    return status;
}

static int cmd_validate(int argc, char **argv)
{
    /* --resolved is validate's own option; the rest is shared with run */
    int resolved = 0, nrest = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return 1;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--resolved") == 0)
            resolved = 1;
        else
            rest[nrest++] = argv[i];
    }
    Args a = {0};
    int st = parse_args("validate", nrest, rest, &a);
    if (st) {
        free(a.sets);
        free(rest);
        return st;
    }
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    int rc = wk_compose_load_file(&doc, a.scenario, &err);
    if (rc == 0 && !resolved && a.nsets == 0 && wk_section_kind(doc->root) == WK_DOC_SWEEP) {
        wk_doc_free(doc);
        free(a.sets);
        free(rest);
        return validate_sweep(&a);
    }
    wk_doc_free(doc);
    doc = NULL;
    rc = load(&a, &doc, &err);
    if (rc == 0 && resolved) {
        char *yaml = wk_emit_yaml(doc->root);
        if (!yaml)
            rc = wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
        else
            fputs(yaml, stdout);
        free(yaml);
    }
    if (rc == 0)
        rc = wk_run_prepare(&run, doc, &a.ro, &err);
    int status = 0;
    if (rc == 0 && !resolved)
        printf("%s: ok: scenario '%s', %u GPUs, %zu jobs, scheduler %s\n", a.scenario, wk_run_name(run),
               (unsigned)wk_run_gpus(run), wk_run_jobs(run), wk_run_scheduler(run));
    else if (rc != 0)
        status = report(&err);
    if (rc == 0 && fflush(stdout) != 0)
        status = 1;
    wk_run_free(run);
    wk_doc_free(doc);
    free(a.sets);
    free(rest);
    return status;
}

static int cmd_topo(int argc, char **argv)
{
    Args a = {0};
    int st = parse_args("topo", argc, argv, &a);
    if (st) {
        free(a.sets);
        return st;
    }
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkSummary sum;
    char *text = NULL;
    int rc = load_doc(&a, &doc, 1, &err);
    if (rc == 0)
        rc = wk_run_topology(doc, &sum, &err);
    if (rc == 0 && !(text = a.json ? wk_summary_json(&sum) : wk_summary_table(&sum)))
        rc = wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
    int status = rc == 0 ? 0 : report(&err);
    if (text)
        fputs(text, stdout);
    free(text);
    wk_doc_free(doc);
    free(a.sets);
    return status;
}

static int cmd_perf(int argc, char **argv)
{
    /* --scale is perf's own option; the rest is shared with run */
    uint32_t scale[64];
    size_t nscale = 0;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    if (!rest)
        return 1;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        if (strncmp(argv[i], "--scale=", 8) == 0)
            v = argv[i] + 8;
        else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc)
            v = argv[++i];
        else if (strcmp(argv[i], "--scale") == 0) {
            free(rest);
            return usage_error("perf", "%s", "--scale needs a list of GPU counts, e.g. 512,1024,2048");
        }
        if (!v) {
            rest[nrest++] = argv[i];
            continue;
        }
        for (const char *p = v; *p;) {
            char *end;
            errno = 0;
            unsigned long x = strtoul(p, &end, 10);
            if (end == p || errno || x == 0 || x > 4000000 || nscale == 64 || (*end && *end != ',')) {
                free(rest);
                return usage_error("perf", "--scale: expected GPU counts like 512,1024,2048, got '%s'", v);
            }
            scale[nscale++] = (uint32_t)x;
            p = *end ? end + 1 : end;
        }
    }
    Args a = {0};
    int st = parse_args("perf", nrest, rest, &a);
    if (st) {
        free(a.sets);
        free(rest);
        return st;
    }
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    char *text = NULL;
    int rc = load(&a, &doc, &err);
    if (rc == 0)
        rc = wk_run_perf(doc, scale, nscale, a.json, &text, &err);
    int status = rc == 0 ? 0 : report(&err);
    if (text)
        fputs(text, stdout);
    free(text);
    wk_doc_free(doc);
    free(a.sets);
    free(rest);
    return status;
}

static int cmd_list(int argc, char **argv)
{
    if (argc != 1)
        return usage_error("list", "%s", "expected one of: schedulers, sources, skus");
    WkPluginInfo info[64];
    long n = wk_run_plugins(argv[0], info, 64);
    if (n < 0)
        return usage_error("list", "unknown kind '%s' (known: schedulers, sources, skus)", argv[0]);
    for (long i = 0; i < n && i < 64; i++)
        printf("%-14s %s\n", info[i].name, info[i].description);
    return 0;
}

static int cmd_compare(int argc, char **argv)
{
    WkCompareFormat fmt = WK_COMPARE_TEXT;
    int group = 1, nfmt = 0;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!paths) {
        fputs("wanka: out of memory\n", stderr);
        return 1;
    }
    size_t n = 0;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--json") == 0) {
            fmt = WK_COMPARE_JSON;
            nfmt++;
        } else if (strcmp(s, "--csv") == 0) {
            fmt = WK_COMPARE_CSV;
            nfmt++;
        } else if (strcmp(s, "--markdown") == 0) {
            fmt = WK_COMPARE_MARKDOWN;
            nfmt++;
        } else if (strcmp(s, "--no-group") == 0) {
            group = 0;
        } else if (s[0] == '-' && s[1] != '\0') {
            free(paths);
            return usage_error("compare", "unknown option '%s'", s);
        } else {
            paths[n++] = s;
        }
    }
    if (nfmt > 1) {
        free(paths);
        return usage_error("compare", "%s", "choose one of --json, --csv, --markdown");
    }
    if (n == 0) {
        free(paths);
        return usage_error("compare", "%s", "missing TRACE.h5 (give one or more traces)");
    }
    WkError err;
    wk_error_clear(&err);
    WkCompare *c = NULL;
    char *text = NULL;
    int rc = wk_compare_load(&c, paths, n, group, &err);
    if (rc == 0 && !(text = wk_compare_render(c, fmt)))
        rc = wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
    int status = rc == 0 ? 0 : report(&err);
    if (text)
        fputs(text, stdout);
    if (rc == 0 && fflush(stdout) != 0)
        status = 1;
    free(text);
    wk_compare_free(c);
    free(paths);
    return status;
}

static int cmd_report(int argc, char **argv)
{
    WkReportFormat fmt = WK_REPORT_TEXT;
    WkReportInputs in = {0};
    const char *name = NULL;
    int nfmt = 0;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i], *v, *opt = NULL;
        const char **slot = NULL;
        if (is_opt(s, "--throttle", NULL))
            opt = "--throttle", slot = &in.throttle;
        else if (is_opt(s, "--throttle-naive", NULL))
            opt = "--throttle-naive", slot = &in.throttle_naive;
        else if (is_opt(s, "--throttle-baseline", NULL))
            opt = "--throttle-baseline", slot = &in.throttle_baseline;
        if (slot) {
            if (!(v = opt_value(argc, argv, &i, opt, NULL)))
                return usage_error("report", "%s needs a trace file", s);
            *slot = v;
        } else if (strcmp(s, "--json") == 0) {
            fmt = WK_REPORT_JSON;
            nfmt++;
        } else if (strcmp(s, "--markdown") == 0) {
            fmt = WK_REPORT_MARKDOWN;
            nfmt++;
        } else if (s[0] == '-' && s[1] != '\0') {
            return usage_error("report", "unknown option '%s'", s);
        } else if (!name) {
            name = s;
        } else if (!in.baseline) {
            in.baseline = s;
        } else if (!in.sci) {
            in.sci = s;
        } else {
            return usage_error("report", "unexpected argument '%s'", s);
        }
    }
    if (nfmt > 1)
        return usage_error("report", "%s", "choose one of --json, --markdown");
    if (!name)
        return usage_error("report", "%s", "missing the report name (known: paper-sci)");
    if (strcmp(name, "paper-sci") != 0)
        return usage_error("report", "unknown report '%s' (known: paper-sci)", name);
    if (!in.sci)
        return usage_error("report", "%s", "missing BASELINE.h5 SCI.h5 (two traces)");
    WkError err;
    wk_error_clear(&err);
    WkReport *r = NULL;
    char *text = NULL;
    int rc = wk_report_load(&r, name, &in, &err);
    if (rc == 0 && !(text = wk_report_render(r, fmt)))
        rc = wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
    int status = rc == 0 ? 0 : report(&err);
    if (text)
        fputs(text, stdout);
    if (rc == 0 && fflush(stdout) != 0)
        status = 1;
    free(text);
    wk_report_free(r);
    return status;
}

/* ---- sweep ---- */

typedef struct {
    struct timespec t0;
    double last_s;
    int shown;
    const char *what; /* "sweep: ... points" or "check: ... runs" */
} SweepProgress;

static void on_sweep_progress(void *user, size_t done, size_t failed, size_t total)
{
    SweepProgress *p = user;
    double el = since(&p->t0);
    if (done < total && el - p->last_s < 0.25)
        return;
    p->last_s = el;
    p->shown = 1;
    double left = done ? el / (double)done * (double)(total - done) : 0;
    fprintf(stderr, "\rwanka %s: %zu/%zu %s, %zu failed, %.0f s elapsed, ~%.0f s left   ",
            p->what ? p->what : "sweep", done, total, p->what && !strcmp(p->what, "check") ? "runs" : "points",
            failed, el, left);
    fflush(stderr);
}

/* "I/N" with 0 <= I < N. */
static int parse_shard(const char *v, int *i, int *n)
{
    char *end;
    errno = 0;
    long a = strtol(v, &end, 10);
    if (end == v || *end != '/' || errno)
        return -1;
    const char *w = end + 1;
    long b = strtol(w, &end, 10);
    if (end == w || *end || errno || b < 1 || b > 1000000 || a < 0 || a >= b)
        return -1;
    *i = (int)a;
    *n = (int)b;
    return 0;
}

static char *sweep_default_dir(const char *file)
{
    char *p = default_trace_path(file); /* base name with .h5 */
    if (p)
        p[strlen(p) - 3] = '\0';
    return p;
}

static int cmd_sweep(int argc, char **argv)
{
    WkSweepRunOpts o = {0};
    const char *file = NULL, *dir = NULL;
    int quiet = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (is_opt(a, "--threads", "-j")) {
            if (!(v = opt_value(argc, argv, &i, "--threads", "-j")))
                return usage_error("sweep", "%s needs a number of threads", a);
            char *end;
            long t = strtol(v, &end, 10);
            if (!*v || *end || t < 1 || t > 4096)
                return usage_error("sweep", "-j: expected a number of threads (1 to 4096), got '%s'", v);
            o.threads = (int)t;
        } else if (strncmp(a, "-j", 2) == 0 && a[2] >= '0' && a[2] <= '9') {
            char *end;
            long t = strtol(a + 2, &end, 10);
            if (*end || t < 1 || t > 4096)
                return usage_error("sweep", "-j: expected a number of threads (1 to 4096), got '%s'", a + 2);
            o.threads = (int)t;
        } else if (is_opt(a, "--output", "-o")) {
            if (!(dir = opt_value(argc, argv, &i, "--output", "-o")))
                return usage_error("sweep", "%s needs a directory", a);
        } else if (is_opt(a, "--shard", NULL)) {
            if (!(v = opt_value(argc, argv, &i, "--shard", NULL)) || parse_shard(v, &o.shard_i, &o.shard_n) < 0)
                return usage_error("sweep", "--shard: expected I/N with 0 <= I < N, got '%s'", v ? v : "");
        } else if (strcmp(a, "--no-traces") == 0) {
            o.no_traces = 1;
        } else if (strcmp(a, "--dry-run") == 0) {
            o.dry_run = 1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("sweep", "unknown option '%s'", a);
        } else if (!file) {
            file = a;
        } else {
            return usage_error("sweep", "unexpected argument '%s' (one sweep file)", a);
        }
    }
    if (!file)
        return usage_error("sweep", "%s", "missing SWEEP.yaml");
    WkError err;
    wk_error_clear(&err);
    WkSweep *s = NULL;
    char *defdir = NULL;
    int rc = wk_sweep_load(&s, file, &err);
    if (rc < 0)
        return report(&err);
    if (!dir && !(dir = defdir = sweep_default_dir(file))) {
        wk_sweep_free(s);
        fputs("wanka: out of memory\n", stderr);
        return 1;
    }
    o.dir = dir;
    SweepProgress prog = {0};
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    if (!quiet && isatty(STDERR_FILENO)) {
        o.progress = on_sweep_progress;
        o.progress_user = &prog;
    }
    size_t failed = 0;
    int mpi_rank = 0, mpi_size = 1;
#if WK_HAVE_MPI
    if (wk_sweep_mpi_begin(&mpi_rank, &mpi_size) < 0) {
        fputs("wanka sweep: MPI could not start\n", stderr);
        wk_sweep_free(s);
        free(defdir);
        return 1;
    }
    if (mpi_size > 1) {
        o.progress = NULL; /* ranks share the terminal: no progress line */
        rc = wk_sweep_run_mpi(s, &o, &failed, &err);
    } else
#endif
        rc = wk_sweep_run(s, &o, &failed, &err);
    if (prog.shown)
        fprintf(stderr, "\r%*s\r", 78, "");
    if (mpi_rank != 0) { /* workers: rank 0 reports for the whole sweep */
        int st = rc < 0 ? report(&err) : 0;
#if WK_HAVE_MPI
        wk_sweep_mpi_end();
#endif
        wk_sweep_free(s);
        free(defdir);
        return st;
    }
    double wall = since(&prog.t0);
    int status = 0;
    size_t ran = 0;
    for (size_t i = 0; i < s->npoints; i++) {
        const WkSweepPoint *p = &s->points[i];
        if (p->status == WK_SWEEP_NOT_RUN)
            continue;
        ran++;
        if (o.dry_run)
            printf("p%-6zu %-48s %s\n", p->id, p->label[0] ? p->label : "(base)",
                   p->status == WK_SWEEP_OK ? "ok" : "FAILED");
        if (p->status == WK_SWEEP_FAILED)
            fprintf(stderr, "wanka sweep: point %zu (%s) failed: %s\n", p->id, p->label[0] ? p->label : "base",
                    p->error);
    }
    if (rc < 0) {
        status = report(&err);
    } else {
        int threads = o.threads ? o.threads : wk_batch_default_threads();
        printf("sweep %s: %zu point%s", s->name, ran, ran == 1 ? "" : "s");
        if (o.shard_n > 1)
            printf(" (shard %d/%d of %zu)", o.shard_i, o.shard_n, s->npoints);
        printf(", %zu ok, %zu failed, %d thread%s", ran - failed, failed, threads, threads == 1 ? "" : "s");
        if (mpi_size > 1)
            printf(" x %d MPI worker rank%s", mpi_size - 1, mpi_size - 1 == 1 ? "" : "s");
        printf(", %.2f s wall\n", wall);
        if (!o.dry_run) {
            char path[4096];
            wk_sweep_index_path(dir, o.shard_i, o.shard_n, path, sizeof path);
            printf("index: %s\n", path);
            if (o.shard_n <= 1)
                printf("compare: wanka compare %s\n", path);
        }
        status = failed ? 1 : 0;
    }
    if (fflush(stdout) != 0 && status == 0)
        status = 1;
#if WK_HAVE_MPI
    wk_sweep_mpi_end();
#endif
    wk_sweep_free(s);
    free(defdir);
    return status;
}

static int cmd_sweep_merge(int argc, char **argv)
{
    const char *out = NULL;
    const char **in = calloc((size_t)argc + 1, sizeof *in);
    size_t n = 0;
    glob_t g;
    int globbed = 0;
    char outbuf[4096];
    if (!in)
        return 1;
    for (int i = 0; i < argc; i++) {
        if (is_opt(argv[i], "--output", "-o")) {
            if (!(out = opt_value(argc, argv, &i, "--output", "-o"))) {
                free(in);
                return usage_error("sweep-merge", "%s", "-o needs a file name");
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(in);
            return usage_error("sweep-merge", "unknown option '%s'", argv[i]);
        } else {
            in[n++] = argv[i];
        }
    }
    struct stat st;
    if (!out && n == 1 && stat(in[0], &st) == 0 && S_ISDIR(st.st_mode)) {
        char pat[4096];
        snprintf(pat, sizeof pat, "%s/sweep-shard-*-of-*.h5", in[0]);
        snprintf(outbuf, sizeof outbuf, "%s/sweep.h5", in[0]);
        out = outbuf;
        if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
            fprintf(stderr, "wanka sweep-merge: no shard indexes (sweep-shard-*-of-*.h5) in %s\n", in[0]);
            free(in);
            return 2;
        }
        globbed = 1;
        free(in);
        in = calloc(g.gl_pathc + 1, sizeof *in);
        if (!in) {
            globfree(&g);
            return 1;
        }
        for (n = 0; n < g.gl_pathc; n++)
            in[n] = g.gl_pathv[n];
    }
    if (!out || n == 0) {
        free(in);
        if (globbed)
            globfree(&g);
        return usage_error("sweep-merge", "%s", "expected DIR, or -o OUT.h5 and the shard indexes");
    }
    WkError err;
    wk_error_clear(&err);
    size_t missing = 0, failed = 0;
    int rc = wk_sweep_index_merge(in, n, out, &missing, &failed, &err);
    int status = 0;
    if (rc < 0) {
        status = report(&err);
    } else {
        printf("merged %zu shard index%s into %s: %zu failed, %zu not run\n", n, n == 1 ? "" : "es", out, failed,
               missing);
        status = failed || missing ? 1 : 0;
    }
    free(in);
    if (globbed)
        globfree(&g);
    return status;
}

static int cmd_check(int argc, char **argv)
{
    const char *file = NULL;
    int update = 0, quiet = 0, threads = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--update") == 0) {
            update = 1;
        } else if (is_opt(a, "--threads", "-j")) {
            char *end;
            if (!(v = opt_value(argc, argv, &i, "--threads", "-j")))
                return usage_error("check", "%s needs a number of threads", a);
            long t = strtol(v, &end, 10);
            if (!*v || *end || t < 1 || t > 4096)
                return usage_error("check", "-j: expected a number of threads (1 to 4096), got '%s'", v);
            threads = (int)t;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("check", "unknown option '%s'", a);
        } else if (!file) {
            file = a;
        } else {
            return usage_error("check", "unexpected argument '%s' (one baseline file)", a);
        }
    }
    if (!file)
        return usage_error("check", "%s", "missing BASELINE.yaml");
    WkError err;
    wk_error_clear(&err);
    WkCheck *c = NULL;
    int rc = wk_check_load(&c, file, &err);
    if (rc < 0)
        return report(&err);
    SweepProgress prog = {.what = "check"};
    clock_gettime(CLOCK_MONOTONIC, &prog.t0);
    rc = wk_check_run(c, threads, !quiet && isatty(STDERR_FILENO) ? on_sweep_progress : NULL, &prog, &err);
    if (prog.shown)
        fprintf(stderr, "\r%*s\r", 78, "");
    int status = 0;
    char *table = rc == 0 ? wk_check_table(c) : NULL;
    if (rc == 0 && !table)
        rc = wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
    if (rc == 0) {
        fputs(table, stdout);
        for (size_t i = 0; i < c->n; i++)
            if (c->e[i].error[0])
                fprintf(stderr, "wanka check: %s: %s\n", c->e[i].label, c->e[i].error);
        status = c->nfail || c->nerror ? 1 : 0;
    }
    if (rc == 0 && update) {
        size_t changed = 0;
        rc = wk_check_update(c, &changed, &err);
        if (rc == 0) {
            printf("updated %zu expected value%s in %s\n", changed, changed == 1 ? "" : "s", file);
            status = c->nerror ? 1 : 0;
        }
    }
    if (rc < 0)
        status = report(&err);
    if (fflush(stdout) != 0 && status == 0)
        status = 1;
    free(table);
    wk_check_free(c);
    return status;
}

/* The plot script: in the source tree, else where it was installed. */
static const char *plot_script(char *buf, size_t n)
{
    snprintf(buf, n, "%s/plot.py", WK_ANALYSIS_DIR);
    if (access(buf, R_OK) == 0)
        return buf;
    snprintf(buf, n, "%s/plot.py", WK_ANALYSIS_INSTALL_DIR);
    if (access(buf, R_OK) == 0)
        return buf;
    return NULL;
}

extern char **environ;

/* Run `python3 analysis/plot.py ARGS...` and pass its exit status through. */
static int cmd_plot(int argc, char **argv)
{
    if (argc == 0)
        return usage_error("plot", "%s", "missing TRACE.h5 -o OUT.png --what WHAT");
    char script[4096];
    if (!plot_script(script, sizeof script)) {
        fprintf(stderr, "wanka plot: cannot find plot.py (looked in %s and %s)\n", WK_ANALYSIS_DIR,
                WK_ANALYSIS_INSTALL_DIR);
        return 1;
    }
    const char *python = getenv("WANKA_PYTHON");
    if (!python || !python[0])
        python = WK_PYTHON;
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) {
        fputs("wanka: out of memory\n", stderr);
        return 1;
    }
    args[0] = (char *)python;
    args[1] = script;
    for (int i = 0; i < argc; i++)
        args[i + 2] = argv[i];
    fflush(stdout);
    pid_t pid;
    int e = posix_spawnp(&pid, python, NULL, NULL, args, environ);
    free(args);
    if (e != 0) {
        fprintf(stderr,
                "wanka plot: cannot run %s: %s\n"
                "wanka plot: it needs python3 with h5py and matplotlib; on Debian/Ubuntu:\n"
                "  sudo apt-get install python3 python3-h5py python3-matplotlib\n",
                python, strerror(e));
        return 1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "wanka plot: waiting for %s: %s\n", python, strerror(errno));
            return 1;
        }
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) {
        fprintf(stderr, "wanka plot: %s killed by signal %d\n", python, WTERMSIG(st));
        return 128 + WTERMSIG(st);
    }
    return 1;
}

static int cmd_help(int argc, char **argv)
{
    if (argc == 0) {
        fputs(usage_main, stdout);
        return 0;
    }
    const char *c = argv[0];
    if (strcmp(c, "run") == 0) fputs(usage_run, stdout);
    else if (strcmp(c, "validate") == 0) fputs(usage_validate, stdout);
    else if (strcmp(c, "list") == 0) fputs(usage_list, stdout);
    else if (strcmp(c, "topo") == 0) fputs(usage_topo, stdout);
    else if (strcmp(c, "perf") == 0) fputs(usage_perf, stdout);
    else if (strcmp(c, "compare") == 0) fputs(usage_compare, stdout);
    else if (strcmp(c, "plot") == 0) fputs(usage_plot, stdout);
    else if (strcmp(c, "sweep") == 0) fputs(usage_sweep, stdout);
    else if (strcmp(c, "sweep-merge") == 0) fputs(usage_sweep_merge, stdout);
    else if (strcmp(c, "check") == 0) fputs(usage_check, stdout);
    else if (strcmp(c, "report") == 0) fputs(usage_report, stdout);
    else if (strcmp(c, "help") == 0) fputs(usage_help, stdout);
    else return usage_error("help", "unknown command '%s' (known: run, validate, topo, list, compare, plot, report, sweep, sweep-merge, check, help)", c);
    return 0;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("wanka %s\n", WK_VERSION);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return cmd_help(0, NULL);
    if (strcmp(cmd, "help") == 0)
        return cmd_help(argc - 2, argv + 2);
    if (wants_help(argc - 2, argv + 2))
        return cmd_help(1, &argv[1]);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(argc - 2, argv + 2);
    if (strcmp(cmd, "list") == 0)
        return cmd_list(argc - 2, argv + 2);
    if (strcmp(cmd, "topo") == 0)
        return cmd_topo(argc - 2, argv + 2);
    if (strcmp(cmd, "perf") == 0)
        return cmd_perf(argc - 2, argv + 2);
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(argc - 2, argv + 2);
    if (strcmp(cmd, "plot") == 0)
        return cmd_plot(argc - 2, argv + 2);
    if (strcmp(cmd, "sweep") == 0)
        return cmd_sweep(argc - 2, argv + 2);
    if (strcmp(cmd, "sweep-merge") == 0)
        return cmd_sweep_merge(argc - 2, argv + 2);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 2, argv + 2);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 2, argv + 2);
    return usage_error(NULL, "unknown command '%s' (known: run, validate, topo, list, compare, plot, report, sweep, sweep-merge, check, help)", cmd);
}
