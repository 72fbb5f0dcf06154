/* SPDX-License-Identifier: Apache-2.0 */
/* cli_batch.c — the commands that run many scenarios at once: sweep (a
 * parameter sweep, optionally sharded or over MPI), sweep-merge (the shards'
 * indexes into one) and check (the regression gate). sim/batch does the work. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/batch/batch.h"
#include "sim/batch/check.h"
#include "sim/batch/sweep.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "sim/core/file.h"
#include "wk_config.h"

const char wk_cli_batch_usage_sweep[] =
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
    "Ctrl-C (SIGINT) or SIGTERM stops the running points at their next event and\n"
    "starts no new one: the traces of finished points stay, no temporary file\n"
    "and no index are left. Temporary traces of a killed sweep (pNNNN.h5.tmp.PID,\n"
    "the process gone) are removed by the next sweep into DIR.\n"
    "\n"
    "exit status: 0 every point ran, 1 a point failed, 2 bad sweep file or arguments,\n"
    "130 interrupted by SIGINT, 143 by SIGTERM.\n"
    "More in docs/batch.md.\n";

const char wk_cli_batch_usage_sweep_merge[] =
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

const char wk_cli_batch_usage_check[] =
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

/* ---- sweep ---- */

typedef struct {
    const char *file;  /* SWEEP.yaml */
    const char *dir;   /* -o DIR, or NULL: the file's base name */
    int quiet;
    WkSweepRunOpts o;  /* -j, --shard, --no-traces, --dry-run */
} SweepArgs;

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

/* Parse sweep's argv into *s. Returns 0 or a usage error's exit status. */
static int sweep_args(int argc, char **argv, SweepArgs *s)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        int st = wk_cli_common_threads_opt("sweep", argc, argv, &i, &s->o.threads);
        if (st > 0)
            return st;
        if (st == 0)
            continue;
        if (strncmp(a, "-j", 2) == 0 && a[2] >= '0' && a[2] <= '9') { /* -j4 */
            if ((st = wk_cli_common_threads("sweep", a + 2, &s->o.threads)) != 0)
                return st;
        } else if (wk_cli_common_is_opt(a, "--output", "-o")) {
            if (!(s->dir = wk_cli_common_opt_value(argc, argv, &i, "--output", "-o")))
                return wk_cli_common_usage_error("sweep", "%s needs a directory", a);
        } else if (wk_cli_common_is_opt(a, "--shard", NULL)) {
            v = wk_cli_common_opt_value(argc, argv, &i, "--shard", NULL);
            if (!v || parse_shard(v, &s->o.shard_i, &s->o.shard_n) < 0)
                return wk_cli_common_usage_error("sweep", "--shard: expected I/N with 0 <= I < N, got '%s'",
                                                 v ? v : "");
        } else if (strcmp(a, "--no-traces") == 0) {
            s->o.no_traces = 1;
        } else if (strcmp(a, "--dry-run") == 0) {
            s->o.dry_run = 1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            s->quiet = 1;
        } else if (wk_cli_common_is_dash(a)) {
            return wk_cli_common_usage_error("sweep", "unknown option '%s'", a);
        } else if (!s->file) {
            s->file = a;
        } else {
            return wk_cli_common_usage_error("sweep", "unexpected argument '%s' (one sweep file)", a);
        }
    }
    if (!s->file)
        return wk_cli_common_usage_error("sweep", "missing SWEEP.yaml");
    return 0;
}

/* What rank 0 prints after the sweep (rc its status, err its error): with
 * --dry-run each point, every failed point, and a summary line with the
 * index. Returns the exit status. */
static int sweep_summary(const WkSweep *s, const WkSweepRunOpts *o, int rc, const WkError *err, size_t failed,
                         double wall, int mpi_size)
{
    size_t ran = 0;
    for (size_t i = 0; i < s->npoints; i++) {
        const WkSweepPoint *p = &s->points[i];
        if (p->status == WK_SWEEP_NOT_RUN)
            continue;
        ran++;
        if (o->dry_run)
            printf("p%-6zu %-48s %s\n", p->id, p->label[0] ? p->label : "(base)",
                   p->status == WK_SWEEP_OK ? "ok" : "FAILED");
        if (p->status == WK_SWEEP_FAILED)
            fprintf(stderr, "wanka sweep: point %zu (%s) failed: %s\n", p->id, p->label[0] ? p->label : "base",
                    wk_sweep_point_error(p));
    }
    int status;
    if (rc < 0) {
        status = wk_cli_common_report(err);
    } else {
        int threads = o->threads ? o->threads : wk_batch_default_threads();
        printf("sweep %s: %zu point%s", s->name, ran, ran == 1 ? "" : "s");
        if (o->shard_n > 1)
            printf(" (shard %d/%d of %zu)", o->shard_i, o->shard_n, s->npoints);
        printf(", %zu ok, %zu failed, %d thread%s", ran - failed, failed, threads, threads == 1 ? "" : "s");
        if (mpi_size > 1)
            printf(" x %d MPI worker rank%s", mpi_size - 1, mpi_size - 1 == 1 ? "" : "s");
        printf(", %.2f s wall\n", wall);
        if (!o->dry_run) {
            char path[4096];
            wk_sweep_index_path(o->dir, o->shard_i, o->shard_n, path, sizeof path);
            printf("index: %s\n", path);
            if (o->shard_n <= 1)
                printf("compare: wanka compare %s\n", path);
        }
        status = failed ? 1 : 0;
    }
    if (fflush(stdout) != 0 && status == 0)
        status = 1;
    return status;
}

/* Run the sweep's points, across the MPI world when wanka runs under
 * mpirun with several ranks; rank 0 reports. Returns the exit status. */
static int sweep_execute(WkSweep *s, WkSweepRunOpts *o, WkCliProgress *prog)
{
    WkError err;
    wk_error_clear(&err);
    size_t failed = 0;
    int rc, mpi_rank = 0, mpi_size = 1, stopped = 0;
#if WK_HAVE_MPI
    if (wk_sweep_mpi_begin(&mpi_rank, &mpi_size) < 0) {
        fputs("wanka sweep: MPI could not start\n", stderr);
        return 1;
    }
    if (mpi_size > 1) {
        o->progress = NULL; /* ranks share the terminal: no progress line */
        rc = wk_sweep_run_mpi(s, o, &failed, &err);
    } else
#endif
    {
        volatile sig_atomic_t *stop = wk_cli_common_catch_interrupts();
        o->interrupt = stop;
        if (!o->dry_run)
            wk_cli_common_clean_stale_dir(o->dir);
        rc = wk_sweep_run_stoppable(s, o, &failed, &stopped, &err);
        if (rc == 0 && stopped) {
            wk_cli_common_progress_end(prog);
            size_t done = 0;
            for (size_t i = 0; i < s->npoints; i++)
                done += s->points[i].status == WK_SWEEP_OK;
            if (!o->dry_run)
                wk_cli_common_clean_own_dir(o->dir);
            fprintf(stderr, "wanka sweep: interrupted by %s: %zu point%s finished%s%s%s; no index written\n",
                    wk_cli_common_signal_name(*stop), done, done == 1 ? "" : "s",
                    o->dry_run || o->no_traces || !done ? "" : " (their traces are in ",
                    o->dry_run || o->no_traces || !done ? "" : o->dir, o->dry_run || o->no_traces || !done ? "" : ")");
            return 128 + *stop;
        }
    }
    wk_cli_common_progress_end(prog);
    int status;
    if (mpi_rank != 0) /* workers: rank 0 reports for the whole sweep */
        status = rc < 0 ? wk_cli_common_report(&err) : 0;
    else
        status = sweep_summary(s, o, rc, &err, failed, wk_cli_common_progress_elapsed(prog), mpi_size);
#if WK_HAVE_MPI
    wk_sweep_mpi_end();
#endif
    return status;
}

int wk_cli_batch_sweep(int argc, char **argv)
{
    SweepArgs a = {0};
    int status = sweep_args(argc, argv, &a);
    if (status)
        return status;
    WkError err;
    wk_error_clear(&err);
    WkSweep *s = NULL;
    char *defdir = NULL;
    if (wk_sweep_load(&s, a.file, &err) < 0)
        return wk_cli_common_report(&err);
    if (!a.dir && !(a.dir = defdir = wk_cli_common_dir_path(a.file))) {
        wk_sweep_free(s);
        return wk_cli_common_nomem();
    }
    a.o.dir = a.dir;
    WkCliProgress prog;
    wk_cli_common_progress_start(&prog, "sweep");
    if (wk_cli_common_progress_wanted(a.quiet)) {
        a.o.progress = wk_cli_common_progress_batch;
        a.o.progress_user = &prog;
    }
    status = sweep_execute(s, &a.o, &prog);
    wk_sweep_free(s);
    free(defdir);
    return status;
}

/* ---- sweep-merge ---- */

/* Merge the shard indexes in[0..n) into out and say so. Returns the exit
 * status: 1 when a point failed or no shard ran it. */
static int merge(const char *const *in, size_t n, const char *out)
{
    WkError err;
    wk_error_clear(&err);
    size_t missing = 0, failed = 0;
    if (wk_sweep_index_merge(in, n, out, &missing, &failed, &err) < 0)
        return wk_cli_common_report(&err);
    printf("merged %zu shard index%s into %s: %zu failed, %zu not run\n", n, n == 1 ? "" : "es", out, failed,
           missing);
    return failed || missing ? 1 : 0;
}

/* `wanka sweep-merge DIR`: DIR/sweep-shard-*-of-*.h5 into DIR/sweep.h5. */
static int merge_dir(const char *dir)
{
    char pat[4096], out[4096];
    glob_t g;
    snprintf(pat, sizeof pat, "%s/sweep-shard-*-of-*.h5", dir);
    snprintf(out, sizeof out, "%s/sweep.h5", dir);
    if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
        fprintf(stderr, "wanka sweep-merge: no shard indexes (sweep-shard-*-of-*.h5) in %s\n", dir);
        return 2;
    }
    int status = merge((const char *const *)g.gl_pathv, g.gl_pathc, out);
    globfree(&g);
    return status;
}

int wk_cli_batch_sweep_merge(int argc, char **argv)
{
    const char *out = NULL;
    const char **in = calloc((size_t)argc + 1, sizeof *in);
    size_t n = 0;
    int status = 0;
    struct stat st;
    if (!in)
        return wk_cli_common_nomem();
    for (int i = 0; i < argc && status == 0; i++) {
        if (wk_cli_common_is_opt(argv[i], "--output", "-o")) {
            if (!(out = wk_cli_common_opt_value(argc, argv, &i, "--output", "-o")))
                status = wk_cli_common_usage_error("sweep-merge", "-o needs a file name");
        } else if (wk_cli_common_is_dash(argv[i])) {
            status = wk_cli_common_usage_error("sweep-merge", "unknown option '%s'", argv[i]);
        } else {
            in[n++] = argv[i];
        }
    }
    if (status == 0 && !out && n == 1 && stat(in[0], &st) == 0 && S_ISDIR(st.st_mode))
        status = merge_dir(in[0]);
    else if (status == 0 && (!out || n == 0))
        status = wk_cli_common_usage_error("sweep-merge", "expected DIR, or -o OUT.h5 and the shard indexes");
    else if (status == 0)
        status = merge(in, n, out);
    free(in);
    return status;
}

/* ---- check ---- */

typedef struct {
    const char *file; /* BASELINE.yaml */
    int update, quiet, threads;
} CheckArgs;

/* Parse check's argv into *c. Returns 0 or a usage error's exit status. */
static int check_args(int argc, char **argv, CheckArgs *c)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int st = wk_cli_common_threads_opt("check", argc, argv, &i, &c->threads);
        if (st > 0)
            return st;
        if (st == 0)
            continue;
        if (strcmp(a, "--update") == 0)
            c->update = 1;
        else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
            c->quiet = 1;
        else if (wk_cli_common_is_dash(a))
            return wk_cli_common_usage_error("check", "unknown option '%s'", a);
        else if (!c->file)
            c->file = a;
        else
            return wk_cli_common_usage_error("check", "unexpected argument '%s' (one baseline file)", a);
    }
    if (!c->file)
        return wk_cli_common_usage_error("check", "missing BASELINE.yaml");
    return 0;
}

/* After the runs (rc their status): the table, the runs that failed, and
 * with --update the rewritten file. Returns the exit status. */
static int check_verdict(WkCheck *c, const CheckArgs *a, int rc, WkError *err)
{
    int status = 0;
    char *table = rc == 0 ? wk_check_table(c) : NULL;
    if (rc == 0 && !table)
        rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
    if (rc == 0) {
        fputs(table, stdout);
        for (size_t i = 0; i < c->n; i++)
            if (c->e[i].error[0])
                fprintf(stderr, "wanka check: %s: %s\n", c->e[i].label, c->e[i].error);
        status = c->nfail || c->nerror ? 1 : 0;
    }
    if (rc == 0 && a->update) {
        size_t changed = 0;
        wk_file_tmp_remove_on_signal(); /* from here a signal leaves the baseline as it was */
        rc = wk_check_update(c, &changed, err);
        if (rc == 0) {
            printf("updated %zu expected value%s in %s\n", changed, changed == 1 ? "" : "s", a->file);
            status = c->nerror ? 1 : 0;
        }
    }
    if (rc < 0)
        status = wk_cli_common_report(err);
    if (fflush(stdout) != 0 && status == 0)
        status = 1;
    free(table);
    return status;
}

int wk_cli_batch_check(int argc, char **argv)
{
    CheckArgs a = {0};
    int status = check_args(argc, argv, &a);
    if (status)
        return status;
    WkError err;
    wk_error_clear(&err);
    WkCheck *c = NULL;
    int rc = wk_check_load(&c, a.file, &err);
    if (rc < 0)
        return wk_cli_common_report(&err);
    WkCliProgress prog;
    wk_cli_common_progress_start(&prog, "check");
    rc = wk_check_run(c, a.threads, wk_cli_common_progress_wanted(a.quiet) ? wk_cli_common_progress_batch : NULL,
                      &prog, &err);
    wk_cli_common_progress_end(&prog);
    status = check_verdict(c, &a, rc, &err);
    wk_check_free(c);
    return status;
}
