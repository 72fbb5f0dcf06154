/* SPDX-License-Identifier: Apache-2.0 */
/* cli_conform.c — `wanka conformance`: the checks of models/sched/conform/conform.h
 * on a scheduler plugin (or a built-in), or with --broker those of
 * models/broker/conform.h on a broker plugin (or a built-in), each in a
 * forked child so that a policy that crashes fails its check instead of
 * taking wanka down. A scheduler plugin is loaded and its init tried (in a
 * child too) before any check: a load or init failure is exit 2, like
 * `wanka run`; a broker plugin that cannot be loaded is exit 2 too. Each
 * child runs under a wall-clock limit (--timeout, WANKA_CONFORM_TIMEOUT,
 * default 10 s): an alarm in the child reports the callback that was
 * running (sim/core/text.h tracks it) and ends it; the parent kills a child
 * that outlives the limit by more than a grace period all the same. A
 * child that crashes (a stack overflow too: the handler has its own stack)
 * writes the callback it was in before it dies of the signal. */
#undef _POSIX_C_SOURCE
#define _XOPEN_SOURCE 700 /* sigaltstack, SA_ONSTACK */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "models/broker/conform.h"
#include "models/broker/plugin.h"
#include "models/sched/conform/conform.h"
#include "models/run/run.h"
#include "models/sched/plugin.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_common.h"
#include "sim/core/text.h"

const char wk_cli_conform_usage[] =
    "usage: wanka conformance PLUGIN.so|POLICY.py|NAME [--policy NAME] [--timeout S] [-v]\n"
    "       wanka conformance --broker PLUGIN.so|NAME [--timeout S] [-v]\n"
    "\n"
    "Run the scheduler conformance checks on the policy of a plugin (a shared\n"
    "object as `wanka run --plugin` loads it, or a Python policy FILE.py) or\n"
    "on a built-in policy NAME,\n"
    "and print pass or FAIL per check with the first violation found. Each\n"
    "check runs small built-in scenarios (plain jobs, inline jobs larger than\n"
    "the cluster, model jobs on a two-SKU fabric, failures) behind a guard that\n"
    "verifies the allocation after every callback. Each check runs in a child\n"
    "process: a policy that crashes fails that check (\"crashed (signal 11:\n"
    "Segmentation fault) in on_submit\", naming the callback; a stack overflow too).\n"
    "\n"
    "  --policy NAME   the policy to check (default: the plugin's one policy)\n"
    "  --broker X      check a broker instead: a plugin (a shared object as\n"
    "                  `wanka run --broker-plugin` loads it) or a built-in NAME,\n"
    "                  against a scripted network of random site states\n"
    "  --timeout S     wall-clock limit of each check (and of the policy's init)\n"
    "                  in seconds, 0 for none; default 10, or the environment's\n"
    "                  WANKA_CONFORM_TIMEOUT. A check past it fails with \"timed\n"
    "                  out after S s in CALLBACK\", naming the callback running\n"
    "  -v, --verbose   also print what each check holds\n"
    "\n"
    "Checks: allocation, outcome, determinism, conservation, incidents, keys;\n"
    "docs/writing-a-scheduler.md describes each. Broker checks: init, choice,\n"
    "sizes, determinism; docs/brokers.md describes them.\n"
    "\n"
    "exit status: 0 every check passed, 1 a check failed (or timed out), 2 the\n"
    "plugin cannot be loaded or its init fails, crashes or times out (the\n"
    "message names the file).\n"
    "\n"
    "example:\n"
    "  wanka conformance ./largest_first.so\n"
    "  wanka conformance fifo\n"
    "  wanka conformance --broker ./cheapest_idle.so\n";

/* What a child reports through its pipe. */
typedef struct Verdict {
    int status;      /* the child's exit status, or -1 */
    int sig;         /* the signal that ended it, or 0 */
    int timed_out;   /* it ran past the limit (msg says where when known) */
    char msg[1536];  /* what it wrote */
} Verdict;

/* The limit of each child in seconds (0: none), and what the child's alarm
 * handler writes: the prefix, then the callback running. */
static double limit_s = 10;
static int alarm_fd = -1;
static char alarm_prefix[64];
enum { TIMED_OUT = 4, ENDED = 5, GRACE_S = 2 };
/* The byte a child writes before its message once fn has returned: a child
 * that exits without it ended the process inside the policy (exit()). */
#define DONE_MARK '\006'
/* The byte a child that crashed writes before the callback it was in. */
#define CRASH_MARK '\025'

static void put_all(int fd, const char *s)
{
    size_t len = 0;
    while (s[len])
        len++;
    while (len) {
        ssize_t w = write(fd, s, len);
        if (w <= 0)
            return;
        s += w;
        len -= (size_t)w;
    }
}

/* In the child, at the limit: say where it was, end it (async-signal-safe). */
static void on_alarm(int sig)
{
    (void)sig;
    const char *cb = wk_text_callback;
    put_all(alarm_fd, alarm_prefix);
    put_all(alarm_fd, cb ? " in " : " (in the host, between callbacks)");
    if (cb)
        put_all(alarm_fd, cb);
    _exit(TIMED_OUT);
}

/* In the child, at a crash (SIGSEGV, a stack overflow too: the handler
 * runs on its own stack; SIGBUS, SIGFPE, SIGILL, SIGABRT): write
 * CRASH_MARK and the callback running, then die of the same signal, so the
 * parent sees the signal and can name the callback
 * (async-signal-safe). */
static void on_crash(int sig)
{
    const char *cb = wk_text_callback;
    char mark[2] = {CRASH_MARK, '\0'};
    put_all(alarm_fd, mark);
    if (cb)
        put_all(alarm_fd, cb);
    signal(sig, SIG_DFL);
    raise(sig); /* pending until the handler returns; a fault then repeats under SIG_DFL */
}

/* In the child: catch the crashes on an alternate stack (what a policy
 * that recurses without end leaves no room for on its own). */
static void arm_crash(int fd)
{
    static char altstack[1 << 16];
    alarm_fd = fd;
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) < 0)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

static void limit_text(char *buf, size_t n) { snprintf(buf, n, "timed out after %g s", limit_s); }

/* In the child: arm the limit. */
static void arm_limit(int fd)
{
    if (limit_s <= 0)
        return;
    alarm_fd = fd;
    limit_text(alarm_prefix, sizeof alarm_prefix);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {0};
    it.it_value.tv_sec = (time_t)limit_s;
    it.it_value.tv_usec = (suseconds_t)((limit_s - floor(limit_s)) * 1e6);
    if (!it.it_value.tv_sec && !it.it_value.tv_usec)
        it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run fn(arg, msg, n) in a child under the limit; its return value
 * (0..125) is the exit status and msg what it writes back. A child past
 * the limit has v->timed_out set. 0, or -1 when no child could run. */
static int in_child(int (*fn)(const void *arg, char *msg, size_t n), const void *arg, Verdict *v)
{
    int fd[2];
    memset(v, 0, sizeof *v);
    v->status = -1;
    fflush(stdout);
    fflush(stderr);
    if (pipe(fd) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        arm_crash(fd[1]);
        arm_limit(fd[1]);
        char msg[sizeof v->msg];
        msg[0] = '\0';
        int st = fn(arg, msg, sizeof msg);
        char mark = DONE_MARK;
        if (write(fd[1], &mark, 1) != 1)
            _exit(3);
        size_t len = strlen(msg), off = 0;
        while (off < len) {
            ssize_t w = write(fd[1], msg + off, len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        _exit(st);
    }
    close(fd[1]);
    size_t got = 0;
    double deadline = limit_s > 0 ? now_s() + limit_s + GRACE_S : 0;
    int killed = 0;
    for (;;) {
        if (deadline > 0 && !killed) { /* a child that blocks its alarm is killed past the grace */
            double left = deadline - now_s();
            struct pollfd pf = {.fd = fd[0], .events = POLLIN};
            int pr = left > 0 ? poll(&pf, 1, (int)ceil(left * 1000)) : 0;
            if (pr < 0 && errno == EINTR)
                continue;
            if (pr == 0) {
                kill(pid, SIGKILL);
                killed = 1;
                continue;
            }
        }
        ssize_t r = read(fd[0], v->msg + got, sizeof v->msg - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
        if (got == sizeof v->msg - 1)
            break;
    }
    v->msg[got] = '\0';
    close(fd[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (killed) {
        v->timed_out = 1;
        limit_text(v->msg, sizeof v->msg);
        size_t k = strlen(v->msg);
        snprintf(v->msg + k, sizeof v->msg - k, " (killed: it did not stop at its alarm)");
    } else if (WIFEXITED(ws)) {
        v->status = WEXITSTATUS(ws);
        v->timed_out = v->status == TIMED_OUT;
        if (!v->timed_out && (got == 0 || v->msg[0] != DONE_MARK)) { /* exit() inside the policy */
            snprintf(v->msg, sizeof v->msg, "ended the process (exit status %d) before the check finished", v->status);
            v->status = ENDED;
        } else if (!v->timed_out) {
            memmove(v->msg, v->msg + 1, got); /* the mark off; the NUL moves too */
        }
    } else if (WIFSIGNALED(ws)) {
        v->sig = WTERMSIG(ws);
        char *m = memchr(v->msg, CRASH_MARK, got); /* the callback it died in, or "" */
        if (m)
            memmove(v->msg, m + 1, strlen(m + 1) + 1);
        else
            v->msg[0] = '\0';
    }
    return 0;
}

typedef struct Target {
    const char *name;   /* the policy */
    const char *plugin; /* its shared object, or NULL for a built-in */
    size_t check;
} Target;

/* In the child: open the policy on a tiny scenario (init runs). */
static int probe_init(const void *arg, char *msg, size_t n)
{
    const Target *t = arg;
    char y[512];
    snprintf(y, sizeof y,
             "name: probe\ncluster: {nodes: 1, gpus_per_node: 8}\n"
             "workload: {source: inline, jobs: [{submit: 0, gpus: 1, duration: 1m}]}\n"
             "scheduler: \"%s\"\n",
             t->name);
    WkError err;
    wk_error_clear(&err);
    WkDoc *doc = NULL;
    WkRun *run = NULL;
    WkRunOpts o = {.plugins = t->plugin ? &t->plugin : NULL, .nplugins = t->plugin ? 1 : 0};
    int rc = wk_doc_load_string(&doc, "probe.yaml", y, strlen(y), &err);
    if (rc == 0)
        rc = wk_run_prepare(&run, doc, &o, &err);
    if (rc < 0)
        wk_error_format(&err, msg, n);
    wk_run_free(run);
    wk_doc_free(doc);
    return rc < 0 ? 2 : 0;
}

/* In the child: one check. Exit 0 pass, 1 fail, 3 could not run. */
static int one_check(const void *arg, char *msg, size_t n)
{
    const Target *t = arg;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_conform_run(t->check, t->name, t->plugin ? &t->plugin : NULL, t->plugin ? 1 : 0, msg, n, &err);
    if (rc < 0) {
        wk_error_format(&err, msg, n);
        return 3;
    }
    return rc ? 1 : 0;
}

static void signal_text(int sig, char *buf, size_t n)
{
    const char *s = strsignal(sig);
    snprintf(buf, n, "signal %d%s%s", sig, s ? ": " : "", s ? s : "");
}

/* A list of checks, each run by one in a child on arg after its index is
 * put in *check. */
typedef struct Suite {
    size_t count;
    const char *(*name)(size_t i);
    const char *(*description)(size_t i);
    int (*one)(const void *arg, char *msg, size_t n); /* exit 0 pass, 1 fail, 3 could not run */
    size_t *check;
    const void *arg;
} Suite;

/* Run every check of s in a child, print pass or FAIL per check and the
 * count. The exit status: 0 all passed, 1 else. */
static int run_suite(const Suite *s, int verbose)
{
    size_t pass = 0, fail = 0;
    int internal = 0;
    Verdict v;
    for (size_t i = 0; i < s->count; i++) {
        *s->check = i;
        const char *name = s->name(i);
        if (in_child(s->one, s->arg, &v) < 0) {
            fprintf(stderr, "wanka: conformance: cannot start a child process: %s\n", strerror(errno));
            internal = 1;
            break;
        }
        if (v.status == 0 && !v.sig) {
            pass++;
            if (verbose)
                printf("  pass  %-13s %s\n", name, s->description(i));
            else
                printf("  pass  %s\n", name);
            continue;
        }
        fail++;
        char safe[4 * sizeof v.msg]; /* the policy's own words: no control character reaches the terminal */
        wk_text_term(v.msg, safe, sizeof safe);
        if (v.timed_out) {
            printf("  FAIL  %-13s ", name);
            wk_text_fputs_term(v.msg, stdout);
            putchar('\n');
        } else if (v.sig) {
            char sig[128];
            signal_text(v.sig, sig, sizeof sig);
            printf("  FAIL  %-13s crashed (%s) %s%s\n", name, sig, v.msg[0] ? "in " : "(in the host, between callbacks)",
                   safe);
        } else if (v.status == 3) {
            printf("  FAIL  %-13s could not run: %s\n", name, safe);
            internal = 1;
        } else {
            printf("  FAIL  %-13s %s\n", name, v.msg[0] ? safe : "(no message)");
        }
        if (verbose)
            printf("        (holds: %s)\n", s->description(i));
    }
    printf("%zu passed, %zu failed\n", pass, fail);
    fflush(stdout);
    return fail || internal ? 1 : 0;
}

/* ---- brokers ---- */

typedef struct BrokerTarget {
    const WkBrokerOps *b;
    size_t check;
} BrokerTarget;

/* In the child: one broker check. Exit 0 pass, 1 fail, 3 could not run. */
static int broker_check(const void *arg, char *msg, size_t n)
{
    const BrokerTarget *t = arg;
    WkError err;
    wk_error_clear(&err);
    int rc = wk_broker_conform_run(t->check, t->b, msg, n, &err);
    if (rc < 0) {
        wk_error_format(&err, msg, n);
        return 3;
    }
    return rc ? 1 : 0;
}

/* `wanka conformance --broker WHAT`: a built-in's name, else a file. */
static int conform_broker(const char *what, int verbose)
{
    BrokerTarget t = {0};
    WkBrokerPlugins set = {0};
    WkError err;
    wk_error_clear(&err);
    const char *file = NULL;
    if (wk_broker_lookup(what, NULL, &t.b, NULL) < 0) { /* a file: load errors are exit 2 */
        if (wk_broker_plugins_add(&set, what, NULL, &t.b, &err) < 0)
            return wk_cli_common_report(&err);
        file = what;
    }
    char safe[4096];
    if (file) /* the name is 1-64 of [A-Za-z0-9._-] (plugin.c); the path is the user's bytes: escaped */
        printf("conformance of broker '%s' (plugin %s): %zu checks\n", t.b->name, wk_text_term(file, safe, sizeof safe),
               wk_broker_conform_count());
    else
        printf("conformance of built-in broker '%s': %zu checks\n", t.b->name, wk_broker_conform_count());
    Suite su = {wk_broker_conform_count(), wk_broker_conform_name, wk_broker_conform_description, broker_check,
                &t.check, &t};
    int status = run_suite(&su, verbose);
    wk_broker_plugins_fini(&set);
    return status;
}

enum { MAX_LIMIT_S = 86400 };

/* A limit in seconds: a number in [0, MAX_LIMIT_S]. 0, or -1. */
static int parse_limit(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || errno || !(x >= 0 && x <= MAX_LIMIT_S))
        return -1;
    *out = x;
    return 0;
}

int wk_cli_conform(int argc, char **argv)
{
    const char *what = NULL, *policy = NULL, *broker = NULL;
    int verbose = 0;
    limit_s = 10;
    const char *env = getenv("WANKA_CONFORM_TIMEOUT");
    if (env && env[0] && parse_limit(env, &limit_s) < 0)
        return wk_cli_common_usage_error("conformance", "WANKA_CONFORM_TIMEOUT '%s': not a number of seconds in [0, %d]",
                                         env, MAX_LIMIT_S);
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (wk_cli_common_is_opt(argv[i], "--policy", NULL)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--policy", NULL)))
                return wk_cli_common_usage_error("conformance", "--policy needs a name");
            policy = v;
        } else if (wk_cli_common_is_opt(argv[i], "--broker", NULL)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--broker", NULL)))
                return wk_cli_common_usage_error("conformance", "--broker needs a plugin or a broker name");
            broker = v;
        } else if (wk_cli_common_is_opt(argv[i], "--timeout", NULL)) {
            if (!(v = wk_cli_common_opt_value(argc, argv, &i, "--timeout", NULL)))
                return wk_cli_common_usage_error("conformance", "--timeout needs a number of seconds");
            if (parse_limit(v, &limit_s) < 0)
                return wk_cli_common_usage_error("conformance", "--timeout '%s': not a number of seconds in [0, %d]",
                                                 v, MAX_LIMIT_S);
        } else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else if (wk_cli_common_is_dash(argv[i])) {
            return wk_cli_common_usage_error("conformance", "unknown option '%s'", argv[i]);
        } else if (!what) {
            what = argv[i];
        } else {
            return wk_cli_common_usage_error("conformance", "unexpected argument '%s' (one plugin)", argv[i]);
        }
    }
    if (broker && (what || policy))
        return wk_cli_common_usage_error("conformance", "--broker checks one broker: no scheduler or --policy with it");
    if (broker)
        return conform_broker(broker, verbose);
    if (!what)
        return wk_cli_common_usage_error("conformance", "missing PLUGIN.so or a policy name");
    Target t = {.name = what};
    WkSchedPlugins set = {0};
    WkError err;
    wk_error_clear(&err);
    int is_builtin = 0;
    for (const WkSchedOps *const *p = wk_sched_registry(); *p; p++)
        is_builtin |= strcmp((*p)->name, what) == 0;
    if (!is_builtin) { /* a file: load it here first, so load errors are exit 2 */
        if (wk_sched_plugins_add(&set, what, NULL, &err) < 0)
            return wk_cli_common_report(&err);
        t.plugin = what;
        t.name = set.items[0].ops->name;
        if (policy && strcmp(policy, t.name) != 0) {
            wk_error_set(&err, WK_E_NOTFOUND, what, 0, 0, "scheduler plugin: its policy is '%s', not '%s'", t.name,
                         policy);
            wk_sched_plugins_fini(&set);
            return wk_cli_common_report(&err);
        }
    }
    Verdict v;
    char ppath[4096]; /* the plugin's path as printed: escaped */
    wk_text_term(t.plugin ? t.plugin : t.name, ppath, sizeof ppath);
    if (in_child(probe_init, &t, &v) < 0) {
        wk_sched_plugins_fini(&set);
        fprintf(stderr, "wanka: conformance: cannot start a child process: %s\n", strerror(errno));
        return 1;
    }
    if (v.sig || v.status != 0) {
        char sig[128];
        if (v.timed_out) {
            fprintf(stderr, "wanka: %s: scheduler plugin: init of policy '%s' %s\n", ppath,
                    t.name, v.msg);
        } else if (v.sig) {
            signal_text(v.sig, sig, sizeof sig);
            char safe[sizeof v.msg * 4];
            fprintf(stderr, "wanka: %s: scheduler plugin: init of policy '%s' crashed (%s)%s%s\n", ppath, t.name, sig,
                    v.msg[0] ? " in " : "", wk_text_term(v.msg, safe, sizeof safe));
        } else if (v.status == 2 && v.msg[0]) {
            fputs("wanka: ", stderr);
            wk_text_fputs_term(v.msg, stderr);
            fputc('\n', stderr);
        } else if (v.status == ENDED) { /* exit() in the policy */
            fprintf(stderr, "wanka: %s: scheduler plugin: init of policy '%s' %s\n", ppath,
                    t.name, v.msg);
        } else { /* ended otherwise: a sanitizer's report */
            fprintf(stderr, "wanka: %s: scheduler plugin: init of policy '%s' ended the process (exit status %d)\n",
                    ppath, t.name, v.status);
        }
        wk_sched_plugins_fini(&set);
        return 2;
    }
    if (t.plugin)
        printf("conformance of policy '%s' (plugin %s): %zu checks\n", t.name, ppath,
               wk_conform_count());
    else
        printf("conformance of built-in policy '%s': %zu checks\n", t.name, wk_conform_count());
    Suite su = {wk_conform_count(), wk_conform_name, wk_conform_description, one_check, &t.check, &t};
    int status = run_suite(&su, verbose);
    wk_sched_plugins_fini(&set);
    return status;
}
