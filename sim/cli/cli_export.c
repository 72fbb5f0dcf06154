/* SPDX-License-Identifier: Apache-2.0 */
/* cli_export.c — `wanka export`: a trace as a Chrome trace-event timeline
 * (Perfetto, chrome://tracing) or as CSV files, through analysis/export.h;
 * `--format parquet` is refused with the reason (docs/analysis.md). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/export.h"
#include "models/fail/fail_class.h"
#include "models/topo/cluster.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "sim/core/file.h"
#include "sim/core/text.h"
#include "sim/scenario/node.h"
#include "sim/trace/trace_read.h"

const char wk_cli_export_usage_export[] =
    "usage: wanka export TRACE.h5 --format chrome|csv -o OUT [--max-tracks N] [--force] [-q]\n"
    "\n"
    "Write a trace in a format other tools open.\n"
    "\n"
    "  chrome   Chrome trace-event JSON (OUT: a file, e.g. run.json) that\n"
    "           Perfetto (ui.perfetto.dev: Open trace file) and chrome://tracing\n"
    "           load: the cluster's utilization, power and queue as counters,\n"
    "           every job as a slice (args: GPUs, status, model figures) on\n"
    "           lanes of the \"jobs\" process, incidents on a track per node\n"
    "           hit (\"node 17\"; links, switches and events per component),\n"
    "           detection as an instant, and each recovery's detection, wait\n"
    "           and restart phases. Times in microseconds.\n"
    "  csv      one CSV file per table in the folder OUT (created if missing):\n"
    "           jobs.csv, incidents.csv, timeseries.csv (and timeseries_sites.csv of a\n"
    "           network), summary.csv, run.csv;\n"
    "           a header row, units in the column names (submit_ns, power_w),\n"
    "           enums as names, RFC 4180 quoting, CRLF line ends.\n"
    "  parquet  not available: no Parquet C library is packaged for Debian 12\n"
    "           (docs/analysis.md); use csv, or analysis/wanka_trace.py and\n"
    "           pandas' to_parquet.\n"
    "\n"
    "options:\n"
    "  -f, --format F          chrome or csv (required)\n"
    "  -o, --output OUT        the file (chrome) or folder (csv) to write (required)\n"
    "      --max-tracks N      chrome: hardware tracks at most (default 256): past\n"
    "                          it, one track per pod (links, switches and events\n"
    "                          per failure class), past it again all per class\n"
    "      --force             replace an earlier export (chrome: the file OUT;\n"
    "                          csv: a folder OUT holding .csv files)\n"
    "  -q, --quiet             no closing line on stderr\n"
    "\n"
    "An existing OUT is refused unless --force is given. Each file is written\n"
    "under a temporary name and renamed when complete: on error nothing is left\n"
    "under OUT's names and older files are untouched.\n"
    "\n"
    "exit status: 0 written, 2 bad arguments, missing file, not a trace, an\n"
    "unknown schema version or an output that cannot be written; 1 internal error.\n"
    "\n"
    "example:\n"
    "  wanka run scenarios/quickstart.yaml -q -o run.h5\n"
    "  wanka export run.h5 --format chrome -o run.json\n"
    "  wanka export run.h5 --format csv -o run-csv\n"
    "\n"
    "More in docs/analysis.md.\n";

typedef struct ExportArgs {
    const char *trace, *format, *output;
    size_t max_tracks;
    int quiet, force;
} ExportArgs;

static int export_args(int argc, char **argv, ExportArgs *a)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i], *v;
        if (wk_cli_common_is_opt(s, "--format", "-f")) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--format", "-f")))
                return wk_cli_common_usage_error("export", "--format needs a value (chrome, csv)");
            a->format = v;
        } else if (wk_cli_common_is_opt(s, "--output", "-o")) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--output", "-o")))
                return wk_cli_common_usage_error("export", "--output needs a file or folder");
            a->output = v;
        } else if (wk_cli_common_is_opt(s, "--max-tracks", NULL)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--max-tracks", NULL)))
                return wk_cli_common_usage_error("export", "--max-tracks needs a number");
            char *end = NULL;
            errno = 0;
            unsigned long long n = strtoull(v, &end, 10);
            if (errno || !end || *end || end == v || v[0] == '-' || n < 1 || n > 1000000)
                return wk_cli_common_usage_error("export", "--max-tracks '%s': give a whole number from 1 to 1000000",
                                                 v);
            a->max_tracks = (size_t)n;
        } else if (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0) {
            a->quiet = 1;
        } else if (strcmp(s, "--force") == 0) {
            a->force = 1;
        } else if (wk_cli_common_is_dash(s)) {
            return wk_cli_common_usage_error("export", "unknown option '%s'", s);
        } else if (!a->trace) {
            a->trace = s;
        } else {
            return wk_cli_common_usage_error("export", "unexpected argument '%s' (one trace at a time)", s);
        }
    }
    if (!a->trace)
        return wk_cli_common_usage_error("export", "missing TRACE.h5");
    if (!a->format)
        return wk_cli_common_usage_error("export", "missing --format (chrome, csv)");
    if (strcmp(a->format, "parquet") == 0)
        return wk_cli_common_usage_error("export",
                                         "--format parquet is not available: Debian 12 packages no Parquet C "
                                         "library (docs/analysis.md); use --format csv, or pandas' to_parquet on "
                                         "analysis/wanka_trace.py's tables");
    if (strcmp(a->format, "chrome") != 0 && strcmp(a->format, "csv") != 0)
        return wk_cli_common_usage_error("export", "unknown format '%s' (known: chrome, csv)", a->format);
    if (!a->output)
        return wk_cli_common_usage_error("export", "missing -o OUT (the %s to write)",
                                         strcmp(a->format, "csv") == 0 ? "folder" : "file");
    if (a->max_tracks && strcmp(a->format, "chrome") != 0)
        return wk_cli_common_usage_error("export", "--max-tracks applies to --format chrome only");
    return 0;
}

/* The cluster of the run, rebuilt from the scenario text and the --set
 * overrides the trace holds, into *c and *L (which borrows c's arrays). 0, or
 * an error (a scenario with include: cannot be rebuilt from its text alone):
 * the export then falls back to a track per component. 1 for a network's
 * trace (root attribute sites): its sites' clusters are not rebuilt, its jobs
 * go on a process per site and its hardware on a track per component. */
static int layout_of(const char *trace, WkCluster *c, WkExportLayout *L, WkError *err)
{
    WkTraceRead *r = NULL;
    WkDoc *doc = NULL;
    char *text = NULL, *sets = NULL, *file = NULL, *sites = NULL;
    int rc = wk_trace_read_open(&r, trace, err);
    if (rc == 0 && wk_trace_read_attr_str_opt(r, WK_SCHEMA_ATTR_SITES, &sites, err) == 0 && sites[0]) {
        free(sites);
        wk_trace_read_close(r);
        return 1;
    }
    free(sites);
    if (rc == 0)
        rc = wk_trace_read_attr_str(r, WK_SCHEMA_ATTR_SCENARIO, &text, err);
    if (rc == 0)
        rc = wk_trace_read_attr_str_opt(r, WK_SCHEMA_ATTR_OVERRIDES, &sets, err);
    if (rc == 0)
        rc = wk_trace_read_attr_str_opt(r, WK_SCHEMA_ATTR_SCENARIO_FILE, &file, err);
    if (rc == 0)
        rc = wk_doc_load_string(&doc, file[0] ? file : "scenario", text, strlen(text), err);
    long k = 0;
    for (char *line = sets; rc == 0 && line && *line; k++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (*line)
            rc = wk_doc_set(doc, line, k + 1, err);
        line = nl ? nl + 1 : line + strlen(line);
    }
    if (rc == 0)
        rc = wk_cluster_parse(doc->root ? wk_node_get(doc->root, "cluster") : NULL, c, err);
    if (rc == 0) {
        *L = (WkExportLayout){.gpus = c->gpus, .nodes = c->nodes, .gpu_node = c->gpu_node, .node_pod = c->node_pod};
        for (int cls = 0; cls < WK_SCHEMA_CLASS_EVENT && cls < WK_FC_N; cls++) {
            WkScope sc = wk_fail_class_scope(wk_fail_class_get((WkFailClass)cls));
            L->class_scope[cls] = sc == WK_SCOPE_GPU    ? WK_EXPORT_SCOPE_GPU
                                  : sc == WK_SCOPE_NODE ? WK_EXPORT_SCOPE_NODE
                                                        : WK_EXPORT_SCOPE_OTHER;
        }
    }
    wk_doc_free(doc);
    free(text);
    free(sets);
    free(file);
    wk_trace_read_close(r);
    return rc;
}

static const char *const level_text[] = {
    [WK_EXPORT_LEVEL_NODE] = "",
    [WK_EXPORT_LEVEL_POD] = " (hardware per pod: a track per node would need more than --max-tracks)",
    [WK_EXPORT_LEVEL_CLASS] = " (hardware per failure class: a track per pod would need more than --max-tracks)",
};

/* The Chrome export, with the cluster's layout when it can be rebuilt. */
static int export_chrome(const ExportArgs *a, WkError *err)
{
    WkCluster c;
    memset(&c, 0, sizeof c);
    WkExportLayout L;
    WkError lerr;
    wk_error_clear(&lerr);
    int got = layout_of(a->trace, &c, &L, &lerr), have = got == 0;
    if (got < 0 && !a->quiet) {
        fputs("wanka export: note: a hardware track per component, not per node: the cluster could not be rebuilt "
              "from the trace's scenario (", stderr);
        wk_text_fputs_term(lerr.msg, stderr); /* it may hold a path or name of any bytes */
        fputs(")\n", stderr);
    }
    WkExportOpts o = {.max_tracks = a->max_tracks, .layout = have ? &L : NULL};
    WkExportStats st = {0};
    int rc = wk_export_chrome(a->trace, a->output, &o, &st, err);
    char safe[4 * 4096];
    if (rc == 0 && !a->quiet)
        fprintf(stderr, "wrote %s: %zu events on %zu tracks%s\n", wk_text_term(a->output, safe, sizeof safe), st.events,
                st.tracks,
                level_text[st.level]);
    wk_cluster_fini(&c);
    return rc;
}

/* 1 when path names a regular file that is the same file as other. */
static int same_file(const char *path, const char *other)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat(other, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* An earlier export is not replaced without --force: chrome, an existing
 * regular file OUT; csv, a folder OUT holding a .csv file. The trace itself
 * as OUT (or inside it) is left to the export's own message. Returns 0 or 2. */
static int refuse_existing(const ExportArgs *a)
{
    if (a->force)
        return 0;
    if (strcmp(a->format, "chrome") == 0)
        return same_file(a->output, a->trace) ? 0 : wk_cli_common_refuse_existing("export", a->output, 0);
    DIR *d = opendir(a->output);
    int found = 0;
    char path[8192];
    for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".csv") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", a->output, e->d_name);
        found = !same_file(path, a->trace);
    }
    if (d)
        closedir(d);
    if (!found)
        return 0;
    char safe[4 * 4096];
    fprintf(stderr, "wanka export: %s: holds CSV files of an earlier export; give --force to replace them, or "
                    "choose another output\n", wk_text_term(a->output, safe, sizeof safe));
    return WK_CLI_EXIT_USAGE;
}

int wk_cli_export_export(int argc, char **argv)
{
    ExportArgs a = {0};
    int status = export_args(argc, argv, &a);
    if (status == 0)
        status = refuse_existing(&a);
    if (status)
        return status;
    WkError err;
    wk_error_clear(&err);
    wk_file_tmp_remove_on_signal(); /* Ctrl-C leaves no half-written temporary */
    int rc;
    char safe[4 * 4096];
    if (strcmp(a.format, "chrome") == 0) {
        rc = export_chrome(&a, &err);
    } else {
        WkExportStats st = {0};
        rc = wk_export_csv(a.trace, a.output, &st, &err);
        if (rc == 0 && !a.quiet)
            fprintf(stderr, "wrote %zu files, %zu rows, to %s/\n", st.files, st.rows,
                    wk_text_term(a.output, safe, sizeof safe));
    }
    return rc < 0 ? wk_cli_common_report(&err) : 0;
}
