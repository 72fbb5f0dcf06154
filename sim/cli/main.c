/* SPDX-License-Identifier: Apache-2.0 */
/* main.c — the wanka command line: the table of commands, dispatch by name,
 * --version, and the help generated from the table. The commands themselves
 * live in one file per group (cli_run.c, cli_analysis.c, cli_batch.c). */
#include <stdio.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "wk_config.h"

static int cmd_help(int argc, char **argv);

/* Every command, in the order `wanka help` lists them. */
static const WkCliCommand table[] = {
    {"run", "SCENARIO.yaml", wk_cli_run_run, wk_cli_run_usage_run,
     "simulate a scenario; print a summary, write a trace"},
    {"validate", "SCENARIO.yaml", wk_cli_run_validate, wk_cli_run_usage_validate,
     "check a scenario without running it"},
    {"topo", "SCENARIO.yaml", wk_cli_run_topo, wk_cli_run_usage_topo,
     "describe the scenario's cluster: GPUs, switches, links, power"},
    {"perf", "JOB.yaml", wk_cli_run_perf, wk_cli_run_usage_perf,
     "iteration time, throughput, MFU and memory of one training job"},
    {"list", "KIND", wk_cli_run_list, wk_cli_run_usage_list,
     "list schedulers, sources (workload) or skus (GPUs)"},
    {"conformance", "PLUGIN.so", wk_cli_conform, wk_cli_conform_usage,
     "check a scheduler or broker plugin (or a built-in) against its contract"},
    {"compare", "A.h5 B.h5 ...", wk_cli_analysis_compare, wk_cli_analysis_usage_compare,
     "summary metrics of several traces side by side"},
    {"export", "TRACE.h5 -o OUT", wk_cli_export_export, wk_cli_export_usage_export,
     "a trace as a Chrome/Perfetto timeline (JSON) or CSV files"},
    {"plot", "TRACE.h5... -o F", wk_cli_python_plot, wk_cli_python_usage_plot,
     "draw utilization, queue, power, JCT CDF, incidents, WAN links..."},
    {"analyze", "TRACE.h5", wk_cli_python_analyze, wk_cli_python_usage_analyze,
     "comm. graph, state entropy, periodicity, Ising fit (paper 2.3, 4.2)"},
    {"sweep", "SWEEP.yaml", wk_cli_batch_sweep, wk_cli_batch_usage_sweep,
     "run a parameter sweep in parallel; traces and an index"},
    {"sweep-merge", "DIR", wk_cli_batch_sweep_merge, wk_cli_batch_usage_sweep_merge,
     "merge the indexes of a sharded sweep"},
    {"check", "BASELINE.yaml", wk_cli_batch_check, wk_cli_batch_usage_check,
     "regression gate: run scenarios, compare metrics to expected"},
    {"report", "paper-sci B.h5 S.h5", wk_cli_analysis_report, wk_cli_analysis_usage_report,
     "the seed paper's tables: published vs simulated"},
    {"help", "[COMMAND]", cmd_help, NULL /* generated: help_usage */, "show help for a command"},
};
#define NCOMMANDS (sizeof table / sizeof table[0])

static const char usage_head[] =
    "usage: wanka COMMAND [ARGS]\n"
    "\n"
    "wanka simulates GPU training clusters (thousands to 100k GPUs) event by\n"
    "event: jobs arrive, a scheduler places them, GPUs fill and drain, and the\n"
    "run reports utilization, completion times and queue waits, and writes an\n"
    "HDF5 trace for later analysis.\n"
    "\n"
    "commands:\n";

static const char usage_tail[] =
    "\n"
    "options:\n"
    "  --version               print the version\n"
    "  -h, --help              this help\n"
    "\n"
    "Start with:  wanka run scenarios/quickstart.yaml\n"
    "Scenario keys are documented in docs/scenarios.md.\n";

/* `wanka --help`: the introduction, each command with its summary, options. */
static void main_usage(FILE *f)
{
    fputs(usage_head, f);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char synopsis[64];
        snprintf(synopsis, sizeof synopsis, "%s %s", table[i].name, table[i].args);
        fprintf(f, "  %-22s  %s\n", synopsis, table[i].summary);
    }
    fputs(usage_tail, f);
}

/* `wanka help --help`: the commands help knows, from the table. */
static void help_usage(void)
{
    fputs("usage: wanka help [", stdout);
    for (size_t i = 0, n = 0; i < NCOMMANDS; i++)
        if (table[i].fn != cmd_help)
            printf("%s%s", n++ ? "|" : "", table[i].name);
    fputs("]\n", stdout);
}

static const WkCliCommand *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

/* "unknown command 'x' (known: run, ...)" as a usage error of cmd (NULL: wanka). */
static int unknown_command(const char *cmd, const char *name)
{
    char known[512] = "";
    size_t l = 0;
    for (size_t i = 0; i < NCOMMANDS && l < sizeof known; i++)
        l += (size_t)snprintf(known + l, sizeof known - l, "%s%s", i ? ", " : "", table[i].name);
    return wk_cli_common_usage_error(cmd, "unknown command '%s' (known: %s)", name, known);
}

/* `wanka help [COMMAND]`: the overview, or that command's usage. */
static int cmd_help(int argc, char **argv)
{
    if (argc == 0) {
        main_usage(stdout);
        return 0;
    }
    const WkCliCommand *c = find(argv[0]);
    if (!c)
        return unknown_command("help", argv[0]);
    if (c->usage)
        fputs(c->usage, stdout);
    else
        help_usage();
    return 0;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

int wk_cli_main(int argc, char **argv)
{
    if (argc < 2) {
        main_usage(stderr);
        return WK_CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("wanka %s\n", WK_VERSION);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return cmd_help(0, NULL);
    /* CMD ... --help shows CMD's usage (help's own arguments are commands) */
    if (strcmp(cmd, "help") != 0 && wants_help(argc - 2, argv + 2))
        return cmd_help(1, &argv[1]);
    const WkCliCommand *c = find(cmd);
    if (!c)
        return unknown_command(NULL, cmd);
    return c->fn(argc - 2, argv + 2);
}
