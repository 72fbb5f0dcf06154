/* SPDX-License-Identifier: Apache-2.0 */
/* cli_run.c — the commands that take one scenario or job file: run,
 * validate, topo, perf, and list (the plugins a scenario can name). Each
 * reaches the models through models/run/run.h; list loads scheduler
 * and broker plugins itself (models/sched/plugin.h, models/broker/plugin.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/state/eval.h"
#include "models/network/sim.h"
#include "models/run/run.h"
#include "models/broker/plugin.h"
#include "models/sched/plugin.h"
#include "models/workload/workload.h"
#include "sim/core/dl.h"
#include "sim/core/file.h"
#include "sim/core/text.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "sim/cli/cli_eval.h"
#include "sim/scenario/compose.h"
#include "sim/scenario/emit.h"
#include "sim/scenario/section.h"
#include "sim/trace/summary.h"

const char wk_cli_run_usage_run[] =
    "usage: wanka run SCENARIO.yaml [options]\n"
    "\n"
    "Simulate the scenario, print its summary table and write an HDF5 trace.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE       trace path (default: the scenario's base name\n"
    "                          with .h5, in the current directory)\n"
    "      --force             replace the trace if the file exists already\n"
    "                          (without it, an existing trace is refused)\n"
    "      --no-trace          do not write a trace\n"
    "      --keep-partial      on SIGINT/SIGTERM, write the run so far to\n"
    "                          TRACE.partial.h5 (root attribute complete = 0)\n"
    "      --seed N            override the scenario's seed (non-negative integer)\n"
    "      --scheduler NAME    override the scenario's scheduler (see: wanka list schedulers);\n"
    "                          in a network of sites (`sites:`), every site's\n"
    "                          scheduler\n"
    "      --broker NAME       a network's broker: the policy choosing each job's\n"
    "                          site (see: wanka list brokers; docs/brokers.md)\n"
    "      --plugin FILE.so    load a scheduling policy from a shared object (as the\n"
    "                          scenario's plugins: list does); repeatable. Its policy\n"
    "                          is then a scheduler name like the built-ins; see\n"
    "                          docs/writing-a-scheduler.md and wanka conformance.\n"
    "      --plugin FILE.py    a policy written in Python (a wanka.Policy class): the\n"
    "                          command then runs under python3 -m wanka\n"
    "      --broker-plugin FILE.so\n"
    "                          load a broker from a shared object (as the scenario's\n"
    "                          broker: {plugin: ...} does); repeatable. Its broker is\n"
    "                          then a broker name like the built-ins; see docs/brokers.md\n"
    "      --set KEY.PATH=VALUE\n"
    "                          override one scenario value; repeatable.\n"
    "                          e.g. --set cluster.nodes=64 --set workload.jobs=500\n"
    "      --json              print the summary as one JSON object\n"
    "  -q, --quiet             no progress output, and of the summary table only the\n"
    "                          trace's name (--json still prints the summary)\n"
    "\n"
    "Progress (the percentage of sim.end simulated, events/s and the estimated\n"
    "wall time left) goes to stderr, at most four lines a second, for runs\n"
    "longer than a second (WANKA_PROGRESS_AFTER=SECONDS, 0 to 3600, sets when the\n"
    "first line comes) when stderr is a terminal and -q is not given. An existing\n"
    "trace is refused unless --force is given. The trace is written under a temporary name and renamed\n"
    "when complete; on error no trace is left behind.\n"
    "Ctrl-C (SIGINT) or SIGTERM stops the run at the next event; no trace is\n"
    "written unless --keep-partial is given, and an existing trace is kept.\n"
    "\n"
    "exit status: 0 success, 2 bad scenario or arguments, 1 internal error,\n"
    "130 interrupted by SIGINT, 143 by SIGTERM.\n"
    "\n"
    "example:\n"
    "  wanka run scenarios/quickstart.yaml --seed 7 -o q7.h5\n"
    "  wanka run scenarios/philly.yaml --set workload.trace=/data/philly.csv\n"
    "  wanka run scenarios/quickstart.yaml --plugin ./largest_first.so --scheduler largest-first\n"
    "  wanka run scenarios/national-network.yaml --broker fastest-finish\n";

const char wk_cli_run_usage_validate[] =
    "usage: wanka validate SCENARIO.yaml [--resolved] [--seed N] [--scheduler NAME] [--broker NAME] [--plugin FILE.so]...\n"
    "                      [--broker-plugin FILE.so]... [--set KEY.PATH=VALUE]...\n"
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

const char wk_cli_run_usage_topo[] =
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

const char wk_cli_run_usage_perf[] =
    "usage: wanka perf JOB.yaml [--json] [--ops] [--scale N1,N2,...] [--set KEY.PATH=VALUE]...\n"
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
    "wan: {sites: S, bandwidth: 400Gbps, latency: 10ms} spreads the job's GPUs\n"
    "evenly over S >= 2 sites built like the cluster, with data parallelism over\n"
    "WAN links (bandwidth per site pair and direction, one-way latency, optional\n"
    "efficiency, default 0.96): prints the iteration time in one site and across\n"
    "the sites, the exposed WAN time, the slowdown and the WAN traffic per link.\n"
    "GPUs must be a multiple of S x tp x pp x cp; the cluster holds one site.\n"
    "\n"
    "  --scale N1,N2,...  the scaling curve: DP grows at fixed TP/PP/CP, the\n"
    "                     micro-batches per replica fixed (weak scaling); the\n"
    "                     efficiency is throughput per GPU against the first size\n"
    "  --ops              also the operator breakdown of the bounding stage: time\n"
    "                     per operator kind (GEMM, attention, norm, ...) and which\n"
    "                     bound dominates it (compute, memory, kernel overhead)\n"
    "\n"
    "example:\n"
    "  echo 'model: llama3-70b' > j.yaml; echo 'gpus: 1024' >> j.yaml\n"
    "  wanka perf j.yaml\n"
    "  wanka perf j.yaml --scale 256,512,1024,2048,4096\n"
    "  wanka perf j.yaml --set model.recompute=full --set model.micro_batch=2\n"
    "  wanka perf examples/perf-wan.yaml --set wan.bandwidth=800Gbps\n";

const char wk_cli_run_usage_list[] =
    "usage: wanka list schedulers|brokers|sources|skus [--plugin FILE.so]... [--broker-plugin FILE.so]...\n"
    "\n"
    "  schedulers  scheduling policies for `scheduler:` or --scheduler; with\n"
    "              --plugin, also the policies of those shared objects\n"
    "  brokers     policies choosing each job's site in a network (`broker:`);\n"
    "              with --broker-plugin, also the brokers of those shared objects\n"
    "  sources     workload sources for `workload.source`\n"
    "  skus        built-in GPU SKUs for `cluster.sku`, with their sources\n";

/* The body of a scenario command, given its parsed arguments. */
typedef int (*ScenarioBody)(WkCliArgs *a, void *ctx);

/* Parse argv for cmd (own: its own options, into ctx), then run body on
 * the arguments. Returns the exit status. */
static int scenario_command(const char *cmd, int argc, char **argv, WkCliOwnFn own, void *ctx,
                            ScenarioBody body)
{
    WkCliArgs a = {0};
    int status = wk_cli_common_parse(cmd, argc, argv, own, ctx, &a);
    if (status == 0)
        status = body(&a, ctx);
    wk_cli_common_args_fini(&a);
    return status;
}

/* ---- run ---- */

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

/* A run stopped by signal sig: no trace (an existing one is left as it was),
 * or with --keep-partial the run so far under TRACE.partial.h5. Exit 128 + sig. */
static int run_interrupted(const WkCliArgs *a, const WkSim *run, int sig)
{
    WkRunAccount acc;
    wk_sim_account(run, &acc);
    double days = wk_time_to_s(acc.end_ns) / 86400.0;
    if (!a->keep_partial || a->no_trace) {
        fprintf(stderr, "wanka: interrupted by %s at simulated day %.2f; no trace written%s\n",
                wk_cli_common_signal_name(sig), days,
                a->no_trace ? "" : " (--keep-partial keeps the run so far)");
        return 128 + sig;
    }
    char *def = a->output ? NULL : wk_cli_common_trace_path(a->scenario);
    char *path = partial_trace_path(a->output ? a->output : def ? def : "wanka");
    WkError err;
    wk_error_clear(&err);
    int rc = path ? wk_sim_write_trace(run, path, &err) : wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
    if (rc < 0)
        wk_cli_common_report(&err);
    fprintf(stderr, "wanka: interrupted by %s at simulated day %.2f; %s%s\n", wk_cli_common_signal_name(sig),
            days, rc < 0 ? "the partial trace could not be written" : "partial trace (complete = 0): ",
            rc < 0 ? "" : path);
    free(path);
    free(def);
    return 128 + sig;
}

/* A finished run (rc its status so far): the trace, then the summary on
 * stdout, and with prog the wall time on stderr. Returns the exit status. */
static int run_output(const WkCliArgs *a, const WkSim *run, int rc, WkError *err, const WkCliProgress *prog)
{
    WkSummary sum;
    const char *path = a->output;
    char *def = NULL, *text = NULL;
    if (rc == 0)
        rc = wk_sim_summary(run, &sum, err);
    if (rc == 0 && !a->no_trace) {
        if (!path && !(path = def = wk_cli_common_trace_path(a->scenario)))
            rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
        else
            rc = wk_sim_write_trace(run, path, err);
    }
    if (rc == 0) {
        text = a->json ? wk_summary_json(&sum) : wk_summary_table(&sum);
        if (!text) {
            rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
        } else {
            if (a->json || !a->quiet) /* -q: the trace's name alone (wanka compare TRACE shows its summary) */
                wk_text_fputs_lines(text, stdout);
            if (!a->json && !a->no_trace) {
                fputs("trace: ", stdout);
                wk_text_fputs_term(path, stdout);
                putchar('\n');
            }
            if (prog)
                fprintf(stderr, "wanka: %.3f s wall\n", wk_cli_common_progress_elapsed(prog));
        }
    }
    int status = rc == 0 ? 0 : wk_cli_common_report(err);
    if (rc == 0 && fflush(stdout) != 0)
        status = 1;
    free(text);
    free(def);
    return status;
}

/* 1 when path and st name the same file (st from a successful stat). */
static int same_file(const char *path, const struct stat *st)
{
    struct stat in;
    return path && stat(path, &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino;
}

/* The trace path may not destroy what is there, nor fail after the run: an
 * existing path that is not a regular file (FIFO, device, socket,
 * directory), a path ending in '/', one whose directory does not exist, or
 * the scenario itself is refused before anything runs or is created.
 * Then temporary files of killed runs at the path (and its .partial.h5)
 * are removed. Returns 0 or 2. */
static int check_output(const WkCliArgs *a)
{
    if (a->no_trace)
        return 0;
    const char *path = a->output, *scen = a->scenario;
    char *def = NULL;
    if (!path) {
        if (!scen)
            return 0;
        if (!(path = def = wk_cli_common_trace_path(scen)))
            return wk_cli_common_nomem();
    }
    struct stat o, dir;
    int status = 0;
    size_t len = strlen(path);
    const char *slash = strrchr(path, '/');
    char *parent = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
    if (len && path[len - 1] == '/') {
        fprintf(stderr, "wanka: %s: names a directory; the trace is written only to a new or regular file\n", path);
        status = 2;
    } else if (stat(path, &o) == 0) {
        if (!S_ISREG(o.st_mode)) {
            fprintf(stderr, "wanka: %s: not a regular file (%s); the trace is written only to a new or regular file\n",
                    path, wk_file_kind((unsigned)o.st_mode));
            status = 2;
        } else if (same_file(scen, &o)) {
            fprintf(stderr, "wanka: %s: is the scenario itself; choose another -o\n", path);
            status = 2;
        }
    } else if (slash && (!parent || stat(parent, &dir) != 0 || !S_ISDIR(dir.st_mode))) {
        fprintf(stderr, "wanka: %s: cannot create: %s is not an existing directory\n", path, parent ? parent : "its directory");
        status = 2;
    }
    if (status == 0 && a->keep_partial && scen) {
        char *partial = partial_trace_path(path);
        struct stat ps;
        if (partial && stat(scen, &ps) == 0 && same_file(partial, &ps)) {
            fprintf(stderr, "wanka: %s: is the scenario itself (the partial trace of --keep-partial); choose another -o\n",
                    partial);
            status = 2;
        }
        free(partial);
    }
    if (status == 0) {
        char *partial = partial_trace_path(path);
        wk_cli_common_clean_stale(path);
        if (partial)
            wk_cli_common_clean_stale(partial);
        free(partial);
    }
    free(parent);
    free(def);
    return status;
}

/* One file the scenario reads besides itself: its path as opened and what
 * names it (the key and its position, or the option). */
typedef struct {
    char path[4096];
    char what[256];
} RunInput;

typedef struct {
    RunInput *v;
    size_t n, cap;
} RunInputs;

static int inputs_add(RunInputs *l, const char *path, const char *what)
{
    if (!path)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        RunInput *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    snprintf(l->v[l->n].path, sizeof l->v[l->n].path, "%s", path);
    snprintf(l->v[l->n].what, sizeof l->v[l->n].what, "%s", what);
    l->n++;
    return 0;
}

/* A file named by the scalar node v (resolved against dir; plugin: as a
 * shared object is), named "KEY at FILE:LINE:COL". */
static int inputs_add_node(RunInputs *l, const WkDoc *doc, const WkNode *v, int plugin)
{
    if (!v || v->type != WK_NODE_SCALAR || !v->str[0])
        return 0;
    char key[160], what[256], path[4096];
    snprintf(what, sizeof what, "%s at %s:%ld:%ld", wk_node_path(v, key, sizeof key), v->file ? v->file : "?",
             v->line, v->col);
    const char *dir = doc->dir ? doc->dir : ".";
    if (plugin) {
        char *p = wk_dl_path(dir, v->str);
        int rc = p ? inputs_add(l, p, what) : -1;
        free(p);
        return rc;
    }
    return inputs_add(l, wk_file_resolve(dir, v->str, path, sizeof path), what);
}

/* A calibration file named by the scalar node v, resolved against the
 * folder of the file that names it (models/gpu/calib.c), or a list of them. */
static int inputs_add_calib(RunInputs *l, const WkNode *v)
{
    if (v && v->type == WK_NODE_SEQ) {
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < v->nkids; i++)
            rc = inputs_add_calib(l, v->kids[i]);
        return rc;
    }
    if (!v || v->type != WK_NODE_SCALAR || !v->str[0])
        return 0;
    char key[160], what[256], dir[4096], path[4096];
    snprintf(what, sizeof what, "%s at %s:%ld:%ld", wk_node_path(v, key, sizeof key), v->file ? v->file : "?",
             v->line, v->col);
    const char *slash = v->file ? strrchr(v->file, '/') : NULL;
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - v->file == 0 ? 1 : slash - v->file), v->file);
    else
        snprintf(dir, sizeof dir, ".");
    return inputs_add(l, wk_file_resolve(dir, v->str, path, sizeof path), what);
}

/* The files of one scope (the top level or a site): facility.prices, the
 * calibration files of cluster and of each cluster.skus entry, and the
 * scheduler plugins. */
static int inputs_scope(RunInputs *l, const WkDoc *doc, const WkNode *scope)
{
    const WkNode *fac = wk_node_get(scope, "facility");
    int rc = fac && fac->type == WK_NODE_MAP ? inputs_add_node(l, doc, wk_node_get(fac, "prices"), 0) : 0;
    const WkNode *cl = wk_node_get(scope, "cluster");
    if (rc == 0 && cl && cl->type == WK_NODE_MAP) {
        rc = inputs_add_calib(l, wk_node_get(cl, "calibration"));
        const WkNode *skus = wk_node_get(cl, "skus");
        for (size_t i = 0; rc == 0 && skus && skus->type == WK_NODE_SEQ && i < skus->nkids; i++)
            if (skus->kids[i]->type == WK_NODE_MAP)
                rc = inputs_add_calib(l, wk_node_get(skus->kids[i], "calibration"));
    }
    const WkNode *pl = wk_node_get(scope, "plugins");
    for (size_t i = 0; rc == 0 && pl && pl->type == WK_NODE_SEQ && i < pl->nkids; i++)
        rc = inputs_add_node(l, doc, pl->kids[i], 1);
    return rc;
}

/* Every file the scenario reads besides itself: the include: files, the
 * workload's CSV trace, the price series, calibration files and plugins of
 * the top level and of each site, the broker's plugin, and --plugin, --broker-plugin. */
static int run_inputs(const WkCliArgs *a, const WkDoc *doc, RunInputs *l)
{
    int rc = 0;
    char what[4200];
    for (size_t i = 0; rc == 0 && i < doc->ninputs; i++) {
        snprintf(what, sizeof what, "included as %s", doc->inputs[i]);
        rc = inputs_add(l, doc->inputs[i], what);
    }
    const WkNode *root = doc->root;
    const WkNode *wl = root ? wk_node_get(root, "workload") : NULL;
    const WkNode *tr = wl && wl->type == WK_NODE_MAP ? wk_node_get(wl, "trace") : NULL;
    char csv[4096];
    if (rc == 0 && tr && tr->type == WK_NODE_SCALAR && wk_file_resolve(doc->dir, tr->str, csv, sizeof csv)) {
        snprintf(what, sizeof what, "the workload's trace %s", csv);
        rc = inputs_add(l, csv, what);
    }
    if (rc == 0 && root)
        rc = inputs_scope(l, doc, root);
    const WkNode *sites = root ? wk_node_get(root, "sites") : NULL;
    for (size_t i = 0; rc == 0 && sites && sites->type == WK_NODE_SEQ && i < sites->nkids; i++)
        if (sites->kids[i]->type == WK_NODE_MAP)
            rc = inputs_scope(l, doc, sites->kids[i]);
    const WkNode *b = root ? wk_node_get(root, "broker") : NULL;
    if (rc == 0 && b && b->type == WK_NODE_MAP)
        rc = inputs_add_node(l, doc, wk_node_get(b, "plugin"), 1);
    for (size_t i = 0; rc == 0 && i < a->nplugins; i++)
        rc = inputs_add(l, a->plugins[i], "--plugin");
    for (size_t i = 0; rc == 0 && i < a->nbroker_plugins; i++)
        rc = inputs_add(l, a->broker_plugins[i], "--broker-plugin");
    return rc;
}

/* The trace (and with --keep-partial its .partial.h5) may not be one of the
 * scenario's other inputs (run_inputs), compared by device and inode.
 * Returns 0 or 2 after a message (1 when out of memory). */
static int check_inputs(const WkCliArgs *a, const WkDoc *doc)
{
    if (a->no_trace)
        return 0;
    char *def = a->output ? NULL : wk_cli_common_trace_path(a->scenario);
    const char *path = a->output ? a->output : def;
    char *partial = path && a->keep_partial ? partial_trace_path(path) : NULL;
    const char *outs[2] = {path, partial};
    RunInputs in = {0};
    int status = run_inputs(a, doc, &in) < 0 ? wk_cli_common_nomem() : 0;
    for (int k = 0; k < 2 && status == 0; k++) {
        struct stat o;
        if (!outs[k] || stat(outs[k], &o) != 0)
            continue; /* a new file cannot be an input */
        for (size_t i = 0; i < in.n && status == 0; i++) {
            if (!same_file(in.v[i].path, &o))
                continue;
            if (strncmp(in.v[i].what, "the workload's trace ", 21) == 0)
                fprintf(stderr, "wanka: %s: is %s; choose another -o\n", outs[k], in.v[i].what);
            else
                fprintf(stderr, "wanka: %s: is an input of the scenario (%s); choose another -o\n", outs[k],
                        in.v[i].what);
            status = 2;
        }
    }
    free(in.v);
    free(partial);
    free(def);
    return status;
}

/* An existing trace is not replaced without --force (after check_inputs,
 * whose message is the more specific). Returns 0 or an exit status. */
static int check_existing(const WkCliArgs *a)
{
    if (a->no_trace)
        return 0;
    char *def = a->output ? NULL : wk_cli_common_trace_path(a->scenario);
    if (!a->output && !def)
        return wk_cli_common_nomem();
    int status = wk_cli_common_refuse_existing("run", a->output ? a->output : def, a->force);
    free(def);
    return status;
}

static int run_body(WkCliArgs *a, void *ctx)
{
    (void)ctx;
    int bad = check_output(a);
    if (bad)
        return bad;
    volatile sig_atomic_t *stop = wk_cli_common_catch_interrupts();
    a->ro.interrupt = stop;
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkSim *run = NULL;
    WkCliProgress prog;
    wk_cli_common_progress_start(&prog, NULL);
    int progress = wk_cli_common_progress_wanted(a->quiet);
    if (progress) {
        a->ro.progress = wk_cli_common_progress_run;
        a->ro.progress_user = &prog;
    }
    int rc = wk_cli_common_load(a, &doc, 0, &err);
    if (rc == 0 && ((bad = check_inputs(a, doc)) != 0 || (bad = check_existing(a)) != 0)) {
        wk_doc_free(doc);
        return bad;
    }
    WkRunHead head;
    WkError herr;
    if (rc == 0 && progress && wk_run_head_parse(doc, &a->ro, &head, &herr) == 0)
        prog.end = head.horizon; /* the percentage and ETA of the progress line */
    if (rc == 0)
        rc = wk_sim_prepare(&run, doc, &a->ro, &err);
    if (rc == 0)
        rc = wk_sim_execute(run, &err);
    wk_cli_common_progress_end(&prog);
    int status;
    if (rc == 0 && wk_sim_interrupted(run)) {
        status = run_interrupted(a, run, *stop);
    } else {
        status = run_output(a, run, rc, &err, progress ? &prog : NULL);
        if (*stop && status == 0) { /* the signal came after the last event */
            fprintf(stderr, "wanka: %s received after the run had finished; its output is complete\n",
                    wk_cli_common_signal_name(*stop));
            status = 128 + *stop;
        }
    }
    wk_sim_free(run);
    wk_doc_free(doc);
    return status;
}

int wk_cli_run_run(int argc, char **argv) { return scenario_command("run", argc, argv, NULL, NULL, run_body); }

/* ---- validate ---- */

/* validate's own option: --resolved (ctx: an int set to 1). */
static int validate_own(void *ctx, int argc, char **argv, int *i)
{
    (void)argc;
    if (strcmp(argv[*i], "--resolved") != 0)
        return -1;
    *(int *)ctx = 1;
    return 0;
}

static int validate_body(WkCliArgs *a, void *ctx)
{
    int resolved = *(int *)ctx;
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkSim *run = NULL;
    int rc = wk_compose_load_file(&doc, a->scenario, &err);
    if (rc == 0 && !resolved && a->nsets == 0 && wk_section_kind(doc->root) == WK_DOC_SWEEP) {
        wk_doc_free(doc);
        return wk_cli_common_validate_sweep(a->scenario);
    }
    wk_doc_free(doc);
    doc = NULL;
    rc = wk_cli_common_load(a, &doc, 0, &err);
    if (rc == 0 && resolved) {
        char *yaml = wk_emit_yaml(doc->root);
        if (!yaml)
            rc = wk_error_set(&err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
        else
            wk_text_fputs_lines(yaml, stdout); /* keys of any bytes: no terminal control reaches it */
        free(yaml);
    }
    if (rc == 0)
        rc = wk_sim_prepare(&run, doc, &a->ro, &err);
    int status = 0;
    if (rc == 0 && !resolved && wk_sim_sites(run))
        printf("%s: ok: scenario '%s', %u sites, %u GPUs, %zu jobs, broker %s\n", a->scenario, wk_sim_name(run),
               (unsigned)wk_sim_sites(run), (unsigned)wk_sim_gpus(run), wk_sim_jobs(run), wk_sim_scheduler(run));
    else if (rc == 0 && !resolved)
        printf("%s: ok: scenario '%s', %u GPUs, %zu jobs, scheduler %s\n", a->scenario, wk_sim_name(run),
               (unsigned)wk_sim_gpus(run), wk_sim_jobs(run), wk_sim_scheduler(run));
    else if (rc != 0)
        status = wk_cli_common_report(&err);
    if (rc == 0 && fflush(stdout) != 0)
        status = 1;
    wk_sim_free(run);
    wk_doc_free(doc);
    return status;
}

int wk_cli_run_validate(int argc, char **argv)
{
    int resolved = 0;
    return scenario_command("validate", argc, argv, validate_own, &resolved, validate_body);
}

/* ---- topo ---- */

static int topo_body(WkCliArgs *a, void *ctx)
{
    (void)ctx;
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkSummary sum;
    char *text = NULL;
    int rc = wk_cli_common_load(a, &doc, 1, &err);
    if (rc == 0)
        rc = wk_cli_topology(doc, &sum, &err);
    if (rc == 0)
        text = a->json ? wk_summary_json(&sum) : wk_summary_table(&sum);
    int status = wk_cli_common_emit(rc, &err, text);
    wk_doc_free(doc);
    return status;
}

int wk_cli_run_topo(int argc, char **argv) { return scenario_command("topo", argc, argv, NULL, NULL, topo_body); }

/* ---- perf ---- */

typedef struct {
    uint32_t gpus[64]; /* --scale N1,N2,...: the curve's sizes */
    size_t n;
    int ops;           /* --ops: the operator breakdown */
} PerfScale;

/* perf's own option: --scale N1,N2,... (ctx: a PerfScale). */
static int perf_own(void *ctx, int argc, char **argv, int *i)
{
    PerfScale *s = ctx;
    if (wk_cli_common_is_opt(argv[*i], "--ops", NULL)) {
        s->ops = 1;
        return 0;
    }
    if (!wk_cli_common_is_opt(argv[*i], "--scale", NULL))
        return -1;
    const char *v = wk_cli_common_opt_value(argc, argv, i, "--scale", NULL);
    if (!v)
        return wk_cli_common_usage_error("perf", "--scale needs a list of GPU counts, e.g. 512,1024,2048");
    for (const char *p = v; *p;) {
        char *end;
        errno = 0;
        unsigned long x = strtoul(p, &end, 10);
        if (end == p || errno || x == 0 || x > 4000000 || s->n == 64 || (*end && *end != ','))
            return wk_cli_common_usage_error("perf", "--scale: expected GPU counts like 512,1024,2048, got '%s'", v);
        s->gpus[s->n++] = (uint32_t)x;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int perf_body(WkCliArgs *a, void *ctx)
{
    const PerfScale *s = ctx;
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    char *text = NULL;
    int rc = wk_cli_common_load(a, &doc, 0, &err);
    if (rc == 0)
        rc = wk_cli_perf(doc, s->gpus, s->n, (a->json ? WK_CLI_PERF_JSON : 0u) | (s->ops ? WK_CLI_PERF_OPS : 0u),
                         &text, &err);
    int status = wk_cli_common_emit(rc, &err, text);
    wk_doc_free(doc);
    return status;
}

int wk_cli_run_perf(int argc, char **argv)
{
    PerfScale scale = {.n = 0};
    return scenario_command("perf", argc, argv, perf_own, &scale, perf_body);
}

/* ---- list ---- */

/* `list brokers`: the built-ins, then the plugins of set with their files. */
static void list_brokers(const WkBrokerPlugins *set)
{
    for (const WkBrokerOps *const *p = wk_broker_registry(); *p; p++)
        printf("%-14s %s\n", (*p)->name, (*p)->description);
    for (size_t k = 0; k < set->n; k++) {
        const WkBrokerOps *b = set->items[k].ops;
        char d1[4096], d2[4096], d3[4096];
        printf("%-14s %s (plugin %s)\n", wk_text_term(b->name, d3, sizeof d3),
               wk_text_term(b->description ? b->description : "", d1, sizeof d1),
               wk_text_term(set->items[k].path, d2, sizeof d2)); /* a plugin's words: escaped */
    }
}

/* `list schedulers`: the built-ins, then the plugins of set with their files. */
static void list_schedulers(const WkSchedPlugins *set)
{
    for (const WkSchedOps *const *p = wk_sched_plugins_table(set); *p; p++) {
        const char *from = NULL;
        for (size_t k = 0; k < set->n; k++)
            if (set->items[k].ops == *p)
                from = set->items[k].path;
        if (from) {
            char d1[4096], d2[4096], d3[4096];
            printf("%-14s %s (plugin %s)\n", wk_text_term((*p)->name, d3, sizeof d3),
                   wk_text_term((*p)->description ? (*p)->description : "", d1, sizeof d1),
                   wk_text_term(from, d2, sizeof d2)); /* a plugin's words: escaped */
        } else {
            printf("%-14s %s\n", (*p)->name, (*p)->description);
        }
    }
}

/* Take a --plugin or --broker-plugin option of list at argv[*i]: 0 taken
 * (loaded into set or bset), -1 not one of them, else an exit status. */
static int list_plugin_opt(int argc, char **argv, int *i, WkSchedPlugins *set, WkBrokerPlugins *bset)
{
    int broker = wk_cli_common_is_opt(argv[*i], "--broker-plugin", NULL);
    if (!broker && !wk_cli_common_is_opt(argv[*i], "--plugin", NULL))
        return -1;
    const char *opt = broker ? "--broker-plugin" : "--plugin";
    const char *v = wk_cli_common_opt_value(argc, argv, i, opt, NULL);
    if (!v)
        return wk_cli_common_usage_error("list", "%s needs a shared-object path", opt);
    WkError err;
    wk_error_clear(&err);
    int rc = broker ? wk_broker_plugins_add(bset, v, NULL, NULL, &err) : wk_sched_plugins_add(set, v, NULL, &err);
    return rc < 0 ? wk_cli_common_report(&err) : 0;
}

int wk_cli_run_list(int argc, char **argv)
{
    const char *kind = NULL;
    WkSchedPlugins set = {0};
    WkBrokerPlugins bset = {0};
    int status = 0;
    for (int i = 0; i < argc && status == 0; i++) {
        int st = list_plugin_opt(argc, argv, &i, &set, &bset);
        if (st >= 0)
            status = st;
        else if (wk_cli_common_is_dash(argv[i]))
            status = wk_cli_common_usage_error("list", "unknown option '%s'", argv[i]);
        else if (!kind)
            kind = argv[i];
        else
            status = wk_cli_common_usage_error("list", "expected one of: schedulers, brokers, sources, skus");
    }
    if (status == 0 && !kind)
        status = wk_cli_common_usage_error("list", "expected one of: schedulers, brokers, sources, skus");
    if (status == 0 && set.n && strcmp(kind, "schedulers") != 0)
        status = wk_cli_common_usage_error("list", "--plugin goes with: list schedulers");
    if (status == 0 && bset.n && strcmp(kind, "brokers") != 0)
        status = wk_cli_common_usage_error("list", "--broker-plugin goes with: list brokers");
    if (status == 0 && strcmp(kind, "schedulers") == 0) {
        list_schedulers(&set);
    } else if (status == 0 && strcmp(kind, "brokers") == 0) {
        list_brokers(&bset);
    } else if (status == 0) {
        WkPluginInfo info[64];
        long n = wk_run_plugins(kind, info, 64);
        if (n < 0)
            status = wk_cli_common_usage_error("list", "unknown kind '%s' (known: schedulers, brokers, sources, skus)", kind);
        for (long i = 0; i < n && i < 64; i++)
            printf("%-14s %s\n", info[i].name, info[i].description);
    }
    wk_sched_plugins_fini(&set);
    wk_broker_plugins_fini(&bset);
    return status;
}
