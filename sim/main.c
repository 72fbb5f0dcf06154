/* SPDX-License-Identifier: Apache-2.0 */
/* main.c — the wanka command line: argument parsing, help, progress, printing
 * and exit statuses (0 ok, 1 internal error, 2 bad input or usage). The one
 * place that prints. It reaches the models only through sim/run.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/error.h"
#include "sim/node.h"
#include "sim/run.h"
#include "sim/summary.h"
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
    "  list KIND               list schedulers, sources (workload) or skus (GPUs)\n"
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
    "\n"
    "exit status: 0 success, 2 bad scenario or arguments, 1 internal error.\n"
    "\n"
    "example:\n"
    "  wanka run scenarios/quickstart.yaml --seed 7 -o q7.h5\n"
    "  wanka run scenarios/philly.yaml --set workload.trace=/data/philly.csv\n";

static const char *const usage_validate =
    "usage: wanka validate SCENARIO.yaml [--seed N] [--scheduler NAME] [--set KEY.PATH=VALUE]...\n"
    "\n"
    "Read and check the whole scenario as `wanka run` would (unknown keys,\n"
    "types, ranges, trace files, workload rows) without simulating. Prints\n"
    "what the scenario describes, or the first error as FILE:LINE:COL: KEY: MESSAGE.\n"
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

static const char *const usage_list =
    "usage: wanka list schedulers|sources|skus\n"
    "\n"
    "  schedulers  scheduling policies for `scheduler:` or --scheduler\n"
    "  sources     workload sources for `workload.source`\n"
    "  skus        built-in GPU SKUs for `cluster.sku`, with their sources\n";

static const char *const usage_help = "usage: wanka help [run|validate|topo|list]\n";

typedef struct {
    const char *scenario;
    const char *output;
    int no_trace, json, quiet;
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

static int load(const Args *a, WkDoc **doc, WkError *err)
{
    int rc = wk_doc_load_file(doc, a->scenario, err);
    for (size_t i = 0; rc == 0 && i < a->nsets; i++)
        rc = wk_doc_set(*doc, a->sets[i], (long)i + 1, err);
    return rc;
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

static int cmd_run(int argc, char **argv)
{
    Args a = {0};
    int st = parse_args("run", argc, argv, &a);
    if (st) {
        free(a.sets);
        return st;
    }
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
    free(text);
    free(out);
    wk_run_free(run);
    wk_doc_free(doc);
    free(a.sets);
    return status;
}

static int cmd_validate(int argc, char **argv)
{
    Args a = {0};
    int st = parse_args("validate", argc, argv, &a);
    if (st) {
        free(a.sets);
        return st;
    }
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    int rc = load(&a, &doc, &err);
    if (rc == 0)
        rc = wk_run_prepare(&run, doc, &a.ro, &err);
    int status = 0;
    if (rc == 0)
        printf("%s: ok: scenario '%s', %u GPUs, %zu jobs, scheduler %s\n", a.scenario, wk_run_name(run),
               (unsigned)wk_run_gpus(run), wk_run_jobs(run), wk_run_scheduler(run));
    else
        status = report(&err);
    wk_run_free(run);
    wk_doc_free(doc);
    free(a.sets);
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
    int rc = load(&a, &doc, &err);
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
    else if (strcmp(c, "help") == 0) fputs(usage_help, stdout);
    else return usage_error("help", "unknown command '%s' (known: run, validate, topo, list, help)", c);
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
    return usage_error(NULL, "unknown command '%s' (known: run, validate, topo, list, help)", cmd);
}
