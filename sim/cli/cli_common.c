/* SPDX-License-Identifier: Apache-2.0 */
/* cli_common.c — what the wanka command groups share: usage and error
 * messages, option parsing, scenario loading (sweep files included),
 * progress lines, SIGINT/SIGTERM, default output paths and the Markdown
 * compare table of the HTML reports. No command here. */
#include "sim/cli/cli_common.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "sim/batch/sweep.h"
#include "sim/scenario/compose.h"
#include "sim/scenario/section.h"
#include "sim/core/text.h"

/* ---- messages ---- */

int wk_cli_common_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "wanka%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    wk_text_fputs_term(msg, stderr); /* it quotes arguments: no control character reaches the terminal */
    fprintf(stderr, "\n(see: wanka help%s%s)\n", cmd ? " " : "", cmd ? cmd : "");
    return WK_CLI_EXIT_USAGE;
}

int wk_cli_common_report(const WkError *err)
{
    char buf[WK_ERROR_WHERE_MAX + WK_ERROR_MSG_MAX + 8];
    fputs("wanka: ", stderr);
    wk_text_fputs_term(wk_error_format(err, buf, sizeof buf), stderr); /* names from input files, escaped */
    fputc('\n', stderr);
    return wk_error_exit_status(err->code);
}

int wk_cli_common_nomem(void)
{
    fputs("wanka: out of memory\n", stderr);
    return 1;
}

int wk_cli_common_emit(int rc, WkError *err, char *text)
{
    if (rc == 0 && !text)
        rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "out of memory");
    int status = rc == 0 ? 0 : wk_cli_common_report(err);
    if (text)
        wk_text_fputs_lines(text, stdout); /* names from a scenario or trace: no terminal control reaches it */
    if (rc == 0 && fflush(stdout) != 0)
        status = 1;
    free(text);
    return status;
}

/* ---- options ---- */

int wk_cli_common_is_opt(const char *a, const char *name, const char *shortname)
{
    size_t l = strlen(name);
    return strcmp(a, name) == 0 || (shortname && strcmp(a, shortname) == 0) ||
           (strncmp(a, name, l) == 0 && a[l] == '=');
}

const char *wk_cli_common_opt_value(int argc, char **argv, int *i, const char *name,
                                    const char *shortname)
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

int wk_cli_common_is_dash(const char *a) { return a[0] == '-' && a[1] != '\0'; }

int wk_cli_common_threads(const char *cmd, const char *v, int *threads)
{
    char *end;
    long t = strtol(v, &end, 10);
    if (!*v || *end || t < 1 || t > 4096)
        return wk_cli_common_usage_error(cmd, "-j: expected a number of threads (1 to 4096), got '%s'", v);
    *threads = (int)t;
    return 0;
}

int wk_cli_common_threads_opt(const char *cmd, int argc, char **argv, int *i, int *threads)
{
    const char *a = argv[*i], *v;
    if (!wk_cli_common_is_opt(a, "--threads", "-j"))
        return -1;
    if (!(v = wk_cli_common_opt_value(argc, argv, i, "--threads", "-j")))
        return wk_cli_common_usage_error(cmd, "%s needs a number of threads", a);
    return wk_cli_common_threads(cmd, v, threads);
}

int wk_cli_common_format(const char *a, const WkCliFormat *fmts, size_t n, int *fmt, int *nfmt)
{
    for (size_t k = 0; k < n; k++) {
        if (strcmp(a, fmts[k].flag) == 0) {
            *fmt = fmts[k].value;
            ++*nfmt;
            return 1;
        }
    }
    return 0;
}

int wk_cli_common_format_error(const char *cmd, const WkCliFormat *fmts, size_t n)
{
    char list[256] = "";
    size_t l = 0;
    for (size_t k = 0; k < n && l < sizeof list; k++)
        l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", fmts[k].flag);
    return wk_cli_common_usage_error(cmd, "choose one of %s", list);
}

int wk_cli_common_format_opt(const char *cmd, int argc, char **argv, int *i, const WkCliFormat *names, size_t n,
                             int *fmt, int *nfmt)
{
    if (!wk_cli_common_is_opt(argv[*i], "--format", NULL))
        return -1;
    char list[256] = "";
    size_t l = 0;
    for (size_t k = 0; k < n && l < sizeof list; k++)
        l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", names[k].flag);
    const char *v = wk_cli_common_opt_value(argc, argv, i, "--format", NULL);
    if (!v)
        return wk_cli_common_usage_error(cmd, "--format needs a value (%s)", list);
    for (size_t k = 0; k < n; k++)
        if (strcmp(v, names[k].flag) == 0) {
            *fmt = names[k].value;
            ++*nfmt;
            return 0;
        }
    return wk_cli_common_usage_error(cmd, "unknown format '%s' (known: %s)", v, list);
}

/* --seed's value: a non-negative integer. */
static int seed_value(const char *cmd, const char *v, WkRunOpts *ro)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-')
        return wk_cli_common_usage_error(cmd, "--seed: expected a non-negative integer, got '%s'", v);
    ro->has_seed = 1;
    ro->seed = x;
    return 0;
}

/* The options run, validate, topo and perf share, and the scenario. */
static int parse_shared(const char *cmd, int argc, char **argv, WkCliArgs *a)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        const char *v;
        int st;
        if (wk_cli_common_is_opt(s, "--output", "-o")) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--output", "-o")))
                return wk_cli_common_usage_error(cmd, "%s needs a file name", s);
            a->output = v;
        } else if (strcmp(s, "--keep-partial") == 0 && strcmp(cmd, "run") == 0) {
            a->keep_partial = 1;
        } else if (strcmp(s, "--force") == 0 && strcmp(cmd, "run") == 0) {
            a->force = 1;
        } else if (strcmp(s, "--no-trace") == 0) {
            a->no_trace = 1;
        } else if (strcmp(s, "--json") == 0) {
            a->json = 1;
        } else if (strcmp(s, "--quiet") == 0 || strcmp(s, "-q") == 0) {
            a->quiet = 1;
        } else if (wk_cli_common_is_opt(s, "--seed", NULL)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--seed", NULL)))
                return wk_cli_common_usage_error(cmd, "%s needs a value", s);
            if ((st = seed_value(cmd, v, &a->ro)) != 0)
                return st;
        } else if (wk_cli_common_is_opt(s, "--scheduler", NULL)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--scheduler", NULL)))
                return wk_cli_common_usage_error(cmd, "%s needs a name", s);
            a->ro.scheduler = v;
        } else if (wk_cli_common_is_opt(s, "--broker", NULL)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--broker", NULL)))
                return wk_cli_common_usage_error(cmd, "%s needs a name", s);
            a->ro.broker = v;
        } else if (wk_cli_common_is_opt(s, "--plugin", NULL) &&
                   (strcmp(cmd, "run") == 0 || strcmp(cmd, "validate") == 0)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--plugin", NULL)))
                return wk_cli_common_usage_error(cmd, "%s needs a shared-object path", s);
            a->plugins[a->nplugins++] = v;
        } else if (wk_cli_common_is_opt(s, "--broker-plugin", NULL) &&
                   (strcmp(cmd, "run") == 0 || strcmp(cmd, "validate") == 0)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--broker-plugin", NULL)))
                return wk_cli_common_usage_error(cmd, "%s needs a shared-object path", s);
            a->broker_plugins[a->nbroker_plugins++] = v;
        } else if (wk_cli_common_is_opt(s, "--set", NULL)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--set", NULL)))
                return wk_cli_common_usage_error(cmd, "%s needs KEY.PATH=VALUE", s);
            a->sets[a->nsets++] = v;
        } else if (wk_cli_common_is_dash(s)) {
            return wk_cli_common_usage_error(cmd, "unknown option '%s'", s);
        } else if (!a->scenario) {
            a->scenario = s;
        } else {
            return wk_cli_common_usage_error(cmd, "unexpected argument '%s' (one scenario per run)", s);
        }
    }
    if (!a->scenario)
        return wk_cli_common_usage_error(cmd, "missing SCENARIO.yaml");
    a->ro.sets = a->sets;
    a->ro.nsets = a->nsets;
    a->ro.plugins = a->plugins;
    a->ro.nplugins = a->nplugins;
    a->ro.broker_plugins = a->broker_plugins;
    a->ro.nbroker_plugins = a->nbroker_plugins;
    return 0;
}

int wk_cli_common_parse(const char *cmd, int argc, char **argv, WkCliOwnFn own, void *ctx,
                        WkCliArgs *a)
{
    a->sets = calloc((size_t)argc + 1, sizeof *a->sets);
    a->plugins = calloc((size_t)argc + 1, sizeof *a->plugins);
    a->broker_plugins = calloc((size_t)argc + 1, sizeof *a->broker_plugins);
    a->rest = calloc((size_t)argc + 1, sizeof *a->rest);
    if (!a->sets || !a->plugins || !a->broker_plugins || !a->rest)
        return wk_cli_common_nomem();
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        int st = own ? own(ctx, argc, argv, &i) : -1;
        if (st > 0)
            return st;
        if (st < 0)
            a->rest[nrest++] = argv[i];
    }
    return parse_shared(cmd, nrest, a->rest, a);
}

void wk_cli_common_args_fini(WkCliArgs *a)
{
    free(a->sets);
    free(a->plugins);
    free(a->broker_plugins);
    free(a->rest);
    a->sets = NULL;
    a->plugins = NULL;
    a->broker_plugins = NULL;
    a->rest = NULL;
}

/* ---- existing outputs ---- */

int wk_cli_common_refuse_existing(const char *cmd, const char *path, int force)
{
    struct stat st;
    if (force || !path || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    fprintf(stderr, "wanka%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    wk_text_fputs_term(path, stderr); /* a path of any bytes: escaped */
    fputs(": exists; give --force to replace it, or choose another output\n", stderr);
    return WK_CLI_EXIT_USAGE;
}

/* ---- scenarios ---- */

int wk_cli_common_load(const WkCliArgs *a, WkDoc **doc, int base_of_sweep, WkError *err)
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

int wk_cli_common_validate_sweep(const char *path)
{
    WkError err;
    wk_error_clear(&err);
    WkSweep *sw = NULL;
    size_t failed = 0;
    WkSweepRunOpts o = {.dry_run = 1, .threads = 1};
    int rc = wk_sweep_load(&sw, path, &err);
    if (rc == 0)
        rc = wk_sweep_run(sw, &o, &failed, &err);
    int status = 0;
    if (rc < 0) {
        status = wk_cli_common_report(&err);
    } else if (failed) {
        for (size_t i = 0; i < sw->npoints; i++)
            if (sw->points[i].status != WK_SWEEP_OK)
                fprintf(stderr, "wanka: %s: point p%04zu (%s): %s\n", path, sw->points[i].id,
                        sw->points[i].label, wk_sweep_point_error(&sw->points[i]));
        status = 2;
    } else {
        const char *base = "unnamed";
        wk_node_str(sw->base->root, "name", 0, &base, NULL);
        printf("%s: ok: sweep '%s', %zu points over scenario '%s', each checked\n", path, sw->name,
               sw->npoints, base);
    }
    wk_sweep_free(sw);
    return status;
}

/* ---- progress on stderr ---- */

void wk_cli_common_progress_start(WkCliProgress *p, const char *what)
{
    memset(p, 0, sizeof *p);
    p->what = what;
    p->after_s = 1.0;
    const char *env = getenv("WANKA_PROGRESS_AFTER");
    if (env && *env) {
        char *endp;
        double v = strtod(env, &endp);
        if (*endp == '\0' && v >= 0 && v <= 3600)
            p->after_s = v;
        else
            fprintf(stderr, "wanka: WANKA_PROGRESS_AFTER: not a number of seconds from 0 to 3600; using 1\n");
    }
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

int wk_cli_common_progress_wanted(int quiet) { return !quiet && isatty(STDERR_FILENO); }

double wk_cli_common_progress_elapsed(const WkCliProgress *p)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - p->t0.tv_sec) + (double)(t.tv_nsec - p->t0.tv_nsec) / 1e9;
}

void wk_cli_common_progress_run(void *user, WkTime now, uint64_t events)
{
    WkCliProgress *p = user;
    double el = wk_cli_common_progress_elapsed(p);
    if (el <= 0 || el < p->after_s || (p->shown && el - p->last_s < 0.25))
        return;
    /* the rate over the interval since the last line, not since start-up */
    double rate = p->last_s > 0 ? (double)(events - p->last_events) / (el - p->last_s) : (double)events / el;
    p->shown = 1;
    p->last_s = el;
    p->last_events = events;
    double day = wk_time_to_s(now) / 86400.0;
    if (p->end > 0 && p->end != WK_TIME_NEVER && now > 0) {
        double f = (double)now / (double)p->end;
        f = f > 1.0 ? 1.0 : f;
        fprintf(stderr, "\rwanka: %5.1f %%, simulated day %.1f of %.1f, %.2f M events/s, ~%.0f s left   ",
                100.0 * f, day, wk_time_to_s(p->end) / 86400.0, rate / 1e6, el * (1.0 - f) / f);
    } else {
        fprintf(stderr, "\rwanka: simulated %.2f days, %.2f M events, %.2f M events/s   ", day, (double)events / 1e6,
                rate / 1e6);
    }
    fflush(stderr);
}

void wk_cli_common_progress_batch(void *user, size_t done, size_t failed, size_t total)
{
    WkCliProgress *p = user;
    double el = wk_cli_common_progress_elapsed(p);
    if (done < total && el - p->last_s < 0.25)
        return;
    p->last_s = el;
    p->shown = 1;
    double left = done ? el / (double)done * (double)(total - done) : 0;
    fprintf(stderr, "\rwanka %s: %zu/%zu %s, %zu failed, %.0f s elapsed, ~%.0f s left   ", p->what, done,
            total, strcmp(p->what, "check") == 0 ? "runs" : "points", failed, el, left);
    fflush(stderr);
}

void wk_cli_common_progress_end(const WkCliProgress *p)
{
    if (p->shown)
        fprintf(stderr, "\r%*s\r", 78, "");
}

/* ---- SIGINT / SIGTERM ---- */

/* The signal that asked the run to stop, 0 until then. The one file-scope
 * variable of wanka: a signal handler can reach nothing else. */
static volatile sig_atomic_t interrupt_signal;

static void on_interrupt(int sig) { interrupt_signal = sig; }

volatile sig_atomic_t *wk_cli_common_catch_interrupts(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
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
    return &interrupt_signal;
}

const char *wk_cli_common_signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGINT";
}

/* ---- default output paths ---- */

/* path's base name less .yaml or .yml, with suffix appended (malloc'd). */
static char *base_with(const char *path, const char *suffix)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t l = strlen(base), ls = strlen(suffix);
    if (l > 5 && strcmp(base + l - 5, ".yaml") == 0)
        l -= 5;
    else if (l > 4 && strcmp(base + l - 4, ".yml") == 0)
        l -= 4;
    char *p = malloc(l + ls + 1);
    if (p) {
        memcpy(p, base, l);
        memcpy(p + l, suffix, ls + 1);
    }
    return p;
}

char *wk_cli_common_trace_path(const char *path) { return base_with(path, ".h5"); }

char *wk_cli_common_dir_path(const char *path) { return base_with(path, ""); }

/* ---- temporary files of killed runs ---- */

/* The pid of a name "<base>.tmp.<pid>" (base NULL: any base), else 0. */
static long stale_pid(const char *name, const char *base)
{
    const char *t = strstr(name, ".tmp.");
    while (t && strstr(t + 1, ".tmp."))
        t = strstr(t + 1, ".tmp.");
    if (!t || t == name || (base && ((size_t)(t - name) != strlen(base) || strncmp(name, base, strlen(base)) != 0)))
        return 0;
    const char *d = t + 5;
    long pid = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9' || pid > 99999999)
            return 0;
        pid = pid * 10 + (*d - '0');
    }
    return d == t + 5 ? 0 : pid;
}

/* Remove, in dir, the regular files "<base>.tmp.<pid>" (base NULL: any)
 * whose process no longer runs (own: this process's instead); a note for
 * each stale one on stderr. */
static size_t clean_tmp(const char *dir, const char *base, int own)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = stale_pid(e->d_name, base);
        if (pid <= 0 || (own && pid != (long)getpid()))
            continue;
        if (!own && (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH))
            continue; /* not ours to judge, or its process still runs (EPERM: another user's) */
        char path[4096];
        struct stat st;
        int here = strcmp(dir, ".") == 0;
        if ((size_t)snprintf(path, sizeof path, "%s%s%s", here ? "" : dir, here ? "" : "/", e->d_name) >= sizeof path ||
            lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (unlink(path) == 0) {
            if (!own)
                fprintf(stderr, "wanka: removed %s, left by process %ld that no longer runs\n", path, pid);
            n++;
        }
    }
    closedir(d);
    return n;
}

size_t wk_cli_common_clean_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if ((size_t)(slash - path) >= sizeof dir)
        return 0;
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    const char *base = slash ? slash + 1 : path;
    return base[0] ? clean_tmp(dir, base, 0) : 0;
}

size_t wk_cli_common_clean_stale_dir(const char *dir) { return clean_tmp(dir, NULL, 0); }

size_t wk_cli_common_clean_own_dir(const char *dir) { return clean_tmp(dir, NULL, 1); }

/* ---- the compare table ---- */

char *wk_cli_common_compare_markdown(const char *const *paths, size_t n, WkError *err)
{
    WkCompare *c = NULL;
    char *text = NULL;
    if (wk_compare_load(&c, paths, n, 1, err) == 0 && !(text = wk_compare_render(c, WK_COMPARE_MARKDOWN)))
        wk_error_nomem(err, "compare");
    wk_compare_free(c);
    return text;
}
