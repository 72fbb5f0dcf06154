/* SPDX-License-Identifier: Apache-2.0 */
/* cli.h — the wanka command table's entry shape and the commands each group
 * file defines. main.c holds the one table; the groups know nothing of it.
 * Not a library interface: only the wanka executable includes this. */
#ifndef WK_CLI_H
#define WK_CLI_H

/* A command: argv after the command name in, exit status out (0 ok, 1
 * internal error, 2 bad input or usage); it prints its own messages. */
typedef int (*WkCliFn)(int argc, char **argv);

typedef struct WkCliCommand {
    const char *name;    /* argv[1], e.g. "sweep-merge" */
    const char *args;    /* what follows the name in the command list, e.g. "DIR" */
    WkCliFn fn;          /* the command */
    const char *usage;   /* full help text, for `wanka help NAME` and NAME --help */
    const char *summary; /* one line for the command list of `wanka help` */
} WkCliCommand;

/* The commands, by group file. Each takes the arguments after its name
 * (argv borrowed for the call), prints its own output and messages, and
 * returns the exit status; it never exits. Each usage text is the
 * command's `wanka help NAME`, a static string. */

/** cli_run.c: scenarios one at a time. */
int wk_cli_run_run(int argc, char **argv);
int wk_cli_run_validate(int argc, char **argv);
int wk_cli_run_topo(int argc, char **argv);
int wk_cli_run_perf(int argc, char **argv);
int wk_cli_run_list(int argc, char **argv);
extern const char wk_cli_run_usage_run[];
extern const char wk_cli_run_usage_validate[];
extern const char wk_cli_run_usage_topo[];
extern const char wk_cli_run_usage_perf[];
extern const char wk_cli_run_usage_list[];

/* cli_conform.c */
int wk_cli_conform(int argc, char **argv);
extern const char wk_cli_conform_usage[];

/** cli_analysis.c: reading traces. */
int wk_cli_analysis_compare(int argc, char **argv);
int wk_cli_analysis_plot(int argc, char **argv);
int wk_cli_analysis_report(int argc, char **argv);
extern const char wk_cli_analysis_usage_compare[];
extern const char wk_cli_analysis_usage_plot[];
extern const char wk_cli_analysis_usage_report[];

/** cli_paper.c: `report paper-sci` without traces (argv after "paper-sci"):
 * runs the experiments over seeds, prints the rows as mean ± 95 % CI. */
int wk_cli_paper_run(int argc, char **argv);

/** cli_batch.c: many runs at once. */
int wk_cli_batch_sweep(int argc, char **argv);
int wk_cli_batch_sweep_merge(int argc, char **argv);
int wk_cli_batch_check(int argc, char **argv);
extern const char wk_cli_batch_usage_sweep[];
extern const char wk_cli_batch_usage_sweep_merge[];
extern const char wk_cli_batch_usage_check[];

#endif
