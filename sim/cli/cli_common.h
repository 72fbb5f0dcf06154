/* SPDX-License-Identifier: Apache-2.0 */
/* cli_common.h — what the command groups of the wanka executable share:
 * option parsing, error and usage messages, scenario loading (sweep files
 * included), progress lines, SIGINT/SIGTERM, default output paths and the
 * Markdown compare table of the HTML reports. Only the executable uses it;
 * the layers below never print. */
#ifndef WK_CLI_COMMON_H
#define WK_CLI_COMMON_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "models/run/run.h"
#include "sim/core/error.h"
#include "sim/scenario/node.h"

#define WK_CLI_EXIT_USAGE 2

/* ---- messages ---- */

/** Print "wanka CMD: MESSAGE" and "(see: wanka help CMD)" to stderr (cmd
 * NULL: "wanka: ..." and "wanka help"), the message's control characters
 * escaped (wk_text_term). Returns WK_CLI_EXIT_USAGE. */
int wk_cli_common_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Print err as "wanka: WHERE: MESSAGE" to stderr, its control characters
 * escaped (wk_text_term). Returns its exit status (wk_error_exit_status). */
int wk_cli_common_report(const WkError *err);

/** Print "wanka: out of memory" to stderr. Returns 1. */
int wk_cli_common_nomem(void);

/** Finish a command whose output is one text (taken, freed here): rc < 0
 * reports err; rc 0 with text NULL is out of memory; text, if any, goes to
 * stdout. Returns the exit status, 1 when stdout cannot be written. */
int wk_cli_common_emit(int rc, WkError *err, char *text);

/* ---- options ---- */

/** 1 when a is the option name, shortname (may be NULL) or "name=value". */
int wk_cli_common_is_opt(const char *a, const char *name, const char *shortname);

/** The value of the option at argv[*i], given as "name value", "shortname
 * value" or "name=value"; *i moves past a separate value. NULL when the
 * value is missing. Borrowed from argv. */
const char *wk_cli_common_opt_value(int argc, char **argv, int *i, const char *name,
                                    const char *shortname);

/** 1 when a looks like an option ("-x", "--x"; "-" alone is a file name). */
int wk_cli_common_is_dash(const char *a);

/** Parse v as a thread count, 1 to 4096, into *threads. Returns 0, or
 * prints a usage error for cmd and returns WK_CLI_EXIT_USAGE. */
int wk_cli_common_threads(const char *cmd, const char *v, int *threads);

/** When argv[*i] is -j/--threads: its value into *threads as
 * wk_cli_common_threads does, 0 or WK_CLI_EXIT_USAGE. -1 when argv[*i] is
 * another argument. */
int wk_cli_common_threads_opt(const char *cmd, int argc, char **argv, int *i, int *threads);

/* An output format flag of a command: "--json" and its value. */
typedef struct WkCliFormat {
    const char *flag;
    int value;
} WkCliFormat;

/** When a is one of the n flags of fmts: *fmt gets its value, *nfmt counts
 * it, returns 1. Otherwise 0. */
int wk_cli_common_format(const char *a, const WkCliFormat *fmts, size_t n, int *fmt, int *nfmt);

/** More than one format flag given: "choose one of --json, --csv, ..." for
 * cmd. Returns WK_CLI_EXIT_USAGE. */
int wk_cli_common_format_error(const char *cmd, const WkCliFormat *fmts, size_t n);

/** When argv[*i] is --format (as "--format NAME" or "--format=NAME"): the
 * value of the entry of names (flag = the NAME, e.g. "latex") into *fmt,
 * counted in *nfmt, *i moved past a separate value; returns 0. A missing or
 * unknown NAME prints a usage error for cmd listing the names and returns
 * WK_CLI_EXIT_USAGE. -1 when argv[*i] is not --format. */
int wk_cli_common_format_opt(const char *cmd, int argc, char **argv, int *i, const WkCliFormat *names, size_t n,
                             int *fmt, int *nfmt);

/* The arguments of the commands that take one scenario (run, validate,
 * topo, perf). Zero-initialise, parse, and release with _args_fini. */
typedef struct WkCliArgs {
    const char *scenario;  /* the one positional argument */
    const char *output;    /* -o, --output */
    int no_trace, json, quiet;
    int keep_partial;      /* --keep-partial (run only) */
    int force;             /* --force (run only): replace an existing trace */
    WkRunOpts ro;          /* --seed, --scheduler, --broker, --plugin, --broker-plugin, --set */
    const char **sets;     /* --set values, in order (owned array) */
    size_t nsets;
    const char **plugins;  /* --plugin paths (run, validate), in order (owned array) */
    size_t nplugins;
    const char **broker_plugins; /* --broker-plugin paths (run, validate), in order (owned array) */
    size_t nbroker_plugins;
    char **rest;           /* argv less the command's own options (owned array) */
} WkCliArgs;

/* A command's own options, taken out before the shared ones are parsed:
 * returns 0 when it took argv[*i] (moving *i past a value), -1 when
 * argv[*i] is not its own, or an exit status after printing a usage error. */
typedef int (*WkCliOwnFn)(void *ctx, int argc, char **argv, int *i);

/** Parse argv for cmd into *a: first own (may be NULL) takes the command's
 * own options, then the shared ones and the scenario are read from the
 * rest. Strings stay borrowed from argv. Returns 0, or an exit status
 * after printing the error. Call wk_cli_common_args_fini either way. */
int wk_cli_common_parse(const char *cmd, int argc, char **argv, WkCliOwnFn own, void *ctx,
                        WkCliArgs *a);

/** Release what wk_cli_common_parse allocated. */
void wk_cli_common_args_fini(WkCliArgs *a);

/* ---- existing outputs ---- */

/** An output that is there already is not replaced silently: when path
 * names an existing regular file (or a link to one) and force is 0, print
 * "wanka CMD: PATH: exists; give --force to replace it, or choose another
 * output" and return WK_CLI_EXIT_USAGE. Returns 0 when path is NULL,
 * absent, not a regular file (the command's own checks name those), or
 * force is set. Call it after the command's more specific checks (an output
 * that is one of its inputs). */
int wk_cli_common_refuse_existing(const char *cmd, const char *path, int force);

/* ---- scenarios ---- */

/** Load a->scenario with its includes resolved, then the --set overrides
 * (*doc owned by the caller, wk_doc_free). A sweep file (top-level base:)
 * is refused with the commands that take it; with base_of_sweep set, its
 * base scenario, its set: applied, stands in for it. Returns 0 or a
 * negative WK_E_* code with err filled. */
int wk_cli_common_load(const WkCliArgs *a, WkDoc **doc, int base_of_sweep, WkError *err);

/** `wanka validate SWEEP.yaml`: expand the sweep's points and check each
 * one's scenario (a quiet --dry-run), printing the verdict. Returns the
 * exit status: 0 all valid, 2 a point or the file is invalid, 1 internal. */
int wk_cli_common_validate_sweep(const char *path);

/* ---- progress on stderr ---- */

typedef struct WkCliProgress {
    struct timespec t0;   /* when the command started */
    double last_s;        /* wall seconds at the last line printed */
    uint64_t last_events; /* a run's events at the last line */
    int shown;            /* a line is on the terminal */
    const char *what;     /* batch progress: "sweep" (points) or "check" (runs) */
    WkTime end;           /* a run's `sim.end` (0 or WK_TIME_NEVER: unknown) */
    double after_s;       /* a run's first line after this many wall seconds */
} WkCliProgress;

/** Start the clock of *p (what: see WkCliProgress). A run's first line
 * comes after 1 s of wall time, or after WANKA_PROGRESS_AFTER seconds when
 * that is a number from 0 to 3600 (another value: a warning on stderr and
 * 1 s). */
void wk_cli_common_progress_start(WkCliProgress *p, const char *what);

/** 1 when progress lines are wanted: not quiet and stderr a terminal. */
int wk_cli_common_progress_wanted(int quiet);

/** Wall seconds since wk_cli_common_progress_start. */
double wk_cli_common_progress_elapsed(const WkCliProgress *p);

/** A run's progress line (a WkProgressFn; user is a WkCliProgress): after
 * p->after_s (the first second by default), at most every 0.25 s wall, "\rwanka: P %, simulated day
 * D of E, R M events/s, ~S s left" when p->end is known (the ETA from the
 * wall time so far and the fraction of simulated time done), else the
 * simulated days, events and rate. */
void wk_cli_common_progress_run(void *user, WkTime now, uint64_t events);

/** A sweep's or check's progress line (a WkBatchProgressFn; user is a
 * WkCliProgress). */
void wk_cli_common_progress_batch(void *user, size_t done, size_t failed, size_t total);

/** Erase the progress line, if one was shown. */
void wk_cli_common_progress_end(const WkCliProgress *p);

/* ---- SIGINT / SIGTERM ---- */

/** Catch SIGINT and SIGTERM for a run: the handler stores the signal in the
 * flag returned (0 until then), which the engine polls before each event.
 * A second signal gets the default action; a signal ignored at start stays
 * ignored. */
volatile sig_atomic_t *wk_cli_common_catch_interrupts(void);

/** "SIGTERM" or "SIGINT". */
const char *wk_cli_common_signal_name(int sig);

/* ---- temporary files of killed runs ---- */

/** A run or sweep killed by SIGKILL (or a crash) leaves its trace under the
 * temporary name "<path>.tmp.<pid>". Remove the regular files
 * "<base of path>.tmp.<pid>" beside path whose process <pid> no longer runs
 * (a live process, or one of another user, is left alone), printing
 * "wanka: removed FILE, left by process PID that no longer runs" for each.
 * Returns how many were removed. */
size_t wk_cli_common_clean_stale(const char *path);

/** The same for every "*.tmp.<pid>" in directory dir (a sweep's output
 * directory). Returns how many were removed. */
size_t wk_cli_common_clean_stale_dir(const char *dir);

/** Remove this process's own temporary files "*.tmp.<getpid()>" in dir
 * (after an interrupted sweep), silently. Returns how many were removed. */
size_t wk_cli_common_clean_own_dir(const char *dir);

/* ---- default output paths ---- */

/** The base name of path without .yaml/.yml, plus ".h5" (malloc'd; NULL
 * when out of memory): a run's default trace. */
char *wk_cli_common_trace_path(const char *path);

/** The base name of path without .yaml/.yml (malloc'd; NULL when out of
 * memory): a sweep's default output directory. */
char *wk_cli_common_dir_path(const char *path);

/* ---- the compare table ---- */

/** The `wanka compare --markdown` table of paths[0..n) (seeds pooled), or
 * NULL with err filled (missing file, not a trace, out of memory);
 * malloc'd, caller frees. */
char *wk_cli_common_compare_markdown(const char *const *paths, size_t n, WkError *err);

#endif
