/* SPDX-License-Identifier: Apache-2.0 */
/* phold.c — the PHOLD benchmark (Fujimoto 1990) on the real engine: N logical
 * processes hold a fixed event population; each event, when processed,
 * schedules one new event. Measures committed events per second on one core. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/core/engine.h"

/* 1.0 PHOLD time unit = 1 s of simulated time. */
#define PHOLD_NS_PER_UNIT 1e9
#define PHOLD_KIND 0

typedef struct {
    const char *config;  /* preset name, "A", "B" or "custom" */
    uint32_t lps;        /* logical processes */
    uint32_t population; /* events per LP, constant for the whole run */
    double remote;       /* probability that an event goes to a random LP */
    double lookahead;    /* minimum delay, time units */
    double mean;         /* mean delay (lookahead + exponential part), time units */
    double end;          /* simulated end time, time units */
    uint64_t seed;       /* scenario seed of the engine */
} Params;

/* Handler context: everything the event handler reads, set up once. */
typedef struct {
    WkRng *rng;         /* the model's one stream, owned by the engine */
    double exp_mean_ns; /* mean of the exponential part, ns */
    double lookahead_ns;
    double remote;
    uint32_t lps;
} Model;

static void preset(Params *p, const char *name)
{
    p->config = name;
    p->lps = strcmp(name, "B") == 0 ? 16384 : 1024;
    p->population = 16;
    p->remote = 0.25;
    p->lookahead = 0.1;
    p->mean = 1.0;
    /* About 16.4k (A) / 262k (B) events per time unit: ~2 s per run. */
    p->end = strcmp(name, "B") == 0 ? 64.0 : 2000.0;
    p->seed = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: phold [options]\n"
            "  --config A|B      preset: A = 1024 LPs x 16 (default), B = 16384 LPs x 16\n"
            "  --lps N           logical processes\n"
            "  --population P    events per LP\n"
            "  --remote R        probability of sending to a uniformly random LP\n"
            "  --lookahead L     minimum delay (1.0 = 1 s of simulated time)\n"
            "  --mean M          mean delay, >= lookahead (delay = L + Exp(M - L))\n"
            "  --end T           simulated end time\n"
            "  --seed S          engine seed\n"
            "  --help            this text\n"
            "Prints one line of key=value pairs; exits 1 if the event population\n"
            "is not conserved, 2 on bad options.\n");
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

/* Parses argv into p. Returns 0, 1 for --help, or -1 on a bad option. */
static int parse_args(int argc, char **argv, Params *p)
{
    preset(p, "A");
    /* --config first, so explicit options override the preset wherever they are. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            if (strcmp(argv[i + 1], "A") && strcmp(argv[i + 1], "B")) {
                fprintf(stderr, "phold: unknown config '%s' (known: A, B)\n", argv[i + 1]);
                return -1;
            }
            preset(p, argv[i + 1]);
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0)
            return 1;
        if (i + 1 >= argc) {
            fprintf(stderr, "phold: '%s' is unknown or lacks a value\n", opt);
            return -1;
        }
        const char *val = argv[++i];
        uint64_t u = 0;
        int bad = 0;
        if (strcmp(opt, "--config") == 0)
            continue;
        if (strcmp(opt, "--lps") == 0)
            bad = parse_u64(val, &u) || u < 1 || u > UINT32_MAX || ((p->lps = (uint32_t)u), 0);
        else if (strcmp(opt, "--population") == 0)
            bad = parse_u64(val, &u) || u < 1 || u > UINT32_MAX ||
                  ((p->population = (uint32_t)u), 0);
        else if (strcmp(opt, "--remote") == 0)
            bad = parse_double(val, &p->remote) || !(p->remote >= 0 && p->remote <= 1);
        else if (strcmp(opt, "--lookahead") == 0)
            bad = parse_double(val, &p->lookahead) || !(p->lookahead >= 0);
        else if (strcmp(opt, "--mean") == 0)
            bad = parse_double(val, &p->mean) || !(p->mean > 0);
        else if (strcmp(opt, "--end") == 0)
            bad = parse_double(val, &p->end) || !(p->end > 0 && p->end < 9.2e9);
        else if (strcmp(opt, "--seed") == 0)
            bad = parse_u64(val, &p->seed);
        else {
            fprintf(stderr, "phold: unknown option '%s' (see --help)\n", opt);
            return -1;
        }
        if (bad) {
            fprintf(stderr, "phold: bad value '%s' for %s\n", val, opt);
            return -1;
        }
        p->config = "custom"; /* a preset value was overridden */
    }
    if (p->mean < p->lookahead) {
        fprintf(stderr, "phold: --mean (%g) must be >= --lookahead (%g)\n", p->mean, p->lookahead);
        return -1;
    }
    if ((uint64_t)p->lps * p->population > UINT32_MAX) {
        fprintf(stderr, "phold: lps x population is too large\n");
        return -1;
    }
    return 0;
}

/* Delay of one hop in ns: lookahead + Exp(mean - lookahead), rounded. */
static WkTime hop_ns(const Model *m)
{
    double d = m->lookahead_ns + wk_rng_exponential(m->rng, m->exp_mean_ns);
    return (WkTime)(d + 0.5);
}

/* The PHOLD event: pick a destination (self, or a random LP with probability
 * remote) and send it one event a hop later. */
static int on_phold(WkEngine *eng, const WkEvent *ev, void *ctx, WkError *err)
{
    const Model *m = ctx;
    WkTime at = ev->time + hop_ns(m); /* ev->time is now */
    uint32_t dst = ev->target;
    if (wk_rng_uniform(m->rng) < m->remote)
        dst = (uint32_t)wk_rng_uint(m->rng, m->lps);
    int rc = wk_engine_post(eng, at, PHOLD_KIND, dst, 0, 0, 0);
    if (rc < 0)
        return wk_error_set(err, rc, NULL, 0, 0, "phold: post failed");
    return 0;
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    Params p;
    int prc = parse_args(argc, argv, &p);
    if (prc != 0) {
        usage(prc > 0 ? stdout : stderr);
        return prc > 0 ? 0 : 2;
    }

    WkError err;
    wk_error_clear(&err);
    WkEngine *eng = NULL;
    Model m = {
        .exp_mean_ns = (p.mean - p.lookahead) * PHOLD_NS_PER_UNIT,
        .lookahead_ns = p.lookahead * PHOLD_NS_PER_UNIT,
        .remote = p.remote,
        .lps = p.lps,
    };
    int rc = wk_engine_new(&eng, p.seed, &err);
    if (rc == 0)
        rc = wk_engine_on(eng, PHOLD_KIND, on_phold, &m, &err);
    if (rc == 0)
        rc = wk_engine_rng(eng, "phold", &m.rng, &err);
    /* Initial population: each LP sends itself `population` events, one hop
     * after time 0. */
    for (uint32_t lp = 0; rc == 0 && lp < p.lps; lp++)
        for (uint32_t k = 0; rc == 0 && k < p.population; k++)
            rc = wk_engine_post(eng, hop_ns(&m), PHOLD_KIND, lp, 0, 0, 0);
    if (rc < 0)
        wk_error_set(&err, rc, NULL, 0, 0, "phold: setting up the initial events failed");

    WkTime end_ns = (WkTime)(p.end * PHOLD_NS_PER_UNIT + 0.5);
    /* Wall and cpu time of the run loop: on a shared machine the cpu time is
     * the steadier figure (it leaves out time spent waiting for a core). */
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (rc == 0)
        rc = wk_engine_run(eng, end_ns, &err);
    double secs = clock_s(CLOCK_MONOTONIC) - t0;
    double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc < 0) {
        char buf[WK_ERROR_MSG_MAX + WK_ERROR_WHERE_MAX + 8];
        fprintf(stderr, "phold: %s\n", wk_error_format(&err, buf, sizeof buf));
        wk_engine_free(eng);
        return 1;
    }

    uint64_t events = wk_engine_events(eng);
    uint64_t queued = wk_engine_queued(eng);
    uint64_t expect = (uint64_t)p.lps * p.population;
    int conserved = queued == expect && wk_engine_now(eng) == end_ns;
    printf("phold config=%s lps=%u population=%u remote=%g lookahead=%g mean=%g end=%g "
           "seed=%llu events=%llu wall_s=%.4f events_per_s=%.0f cpu_s=%.4f events_per_cpu_s=%.0f "
           "queued=%llu conserved=%s\n",
           p.config, p.lps, p.population, p.remote, p.lookahead, p.mean, p.end,
           (unsigned long long)p.seed, (unsigned long long)events, secs,
           secs > 0 ? (double)events / secs : 0.0, cpu, cpu > 0 ? (double)events / cpu : 0.0,
           (unsigned long long)queued,
           conserved ? "yes" : "no");
    if (!conserved) {
        fprintf(stderr, "phold: population not conserved: %llu queued, %llu expected, "
                "clock at %lld ns, end %lld ns\n", (unsigned long long)queued,
                (unsigned long long)expect, (long long)wk_engine_now(eng), (long long)end_ns);
        wk_engine_free(eng);
        return 1;
    }
    wk_engine_free(eng);
    return 0;
}
