/* SPDX-License-Identifier: Apache-2.0 */
/* cli.h — the wanka command table's entry shape and the commands each group
 * file defines. main.c holds the one table; the groups know nothing of it.
 * Not a library interface: only the wanka executable includes this. */
#ifndef WK_CLI_H
#define WK_CLI_H

#include <stddef.h>

#include "sim/core/error.h"

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

/** main.c: the whole command line (argv[0] the program, argv[1] the
 * command); returns the exit status. What the wanka executable's main runs,
 * and what python3 -m wanka calls in libwanka.so. */
int wk_cli_main(int argc, char **argv);

/** cli_pypolicy.c: when argv gives a Python policy (--plugin FILE.py or
 * --plugin=FILE.py), replace this process with python3 -m wanka and the same
 * arguments (PYTHONPATH and WANKA_LIB set so that it finds the wanka module
 * and libwanka.so; docs/writing-a-scheduler.md). Returns -1 when argv gives
 * none (the caller goes on), else only on failure: the exit status 2 after
 * a message naming the policy file. */
int wk_cli_py_reexec(int argc, char **argv);

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
int wk_cli_analysis_report(int argc, char **argv);
extern const char wk_cli_analysis_usage_compare[];
extern const char wk_cli_analysis_usage_report[];

/** cli_python.c: the Python scripts of analysis/ (plot, the HTML page). */
int wk_cli_python_plot(int argc, char **argv);
extern const char wk_cli_python_usage_plot[];
/** `wanka analyze TRACE.h5 [--json] [--bins N] [--sweep T...]`: checks each
 * trace with wanka's reader (a malformed one: exit 2 naming it), then runs
 * analysis/analyze.py and passes its exit status through (0, 2 bad input,
 * 1 python3 or numpy/h5py missing). */
int wk_cli_python_analyze(int argc, char **argv);
extern const char wk_cli_python_usage_analyze[];

/** Run analysis/<script> (the source tree's, else the installed one) with
 * $WANKA_PYTHON or the python3 found at build time and argv[0..argc) as its
 * arguments; prog ("plot", "report") names the command in messages. Returns
 * the script's exit status, 128 + a signal that killed it, or 1 when it
 * cannot be found or started (the message names the Debian packages). */
int wk_cli_python_run(const char *prog, const char *script, int argc, char **argv);

/** Check an --html FILE before any work: it ends in .html (or .htm), its
 * directory exists, it is not a directory, and without force it does not
 * exist yet (wk_cli_common_refuse_existing). Returns 0 or exit status 2
 * (printed: "wanka report: --html FILE: directory D does not exist"). */
int wk_cli_python_html_check(const char *html, int force);

/** Write the HTML report page `html` (`wanka report --html`) with
 * analysis/html_report.py: `tables` (Markdown, borrowed) goes through a
 * temporary file; figs[0..nfigs) are the traces drawn, runs[0..nruns) every
 * trace read (runs table, scenario texts). The page is written under a
 * temporary name and renamed. Returns the exit status (0 written, 2 bad
 * input with nothing written, 1 python or its packages missing). */
int wk_cli_python_html(const char *html, const char *title, const char *tables, const char *const *figs,
                       size_t nfigs, const char *const *runs, size_t nruns);

/** cli_export.c: a trace in other formats (Chrome trace-event JSON, CSV). */
int wk_cli_export_export(int argc, char **argv);
extern const char wk_cli_export_usage_export[];

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
