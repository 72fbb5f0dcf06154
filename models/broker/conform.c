/* SPDX-License-Identifier: Apache-2.0 */
/* conform.c — the broker conformance checks (conform.h).
 *
 * Method: a scripted host answers every wk_broker_* call from a table of
 * site states that is drawn anew each round (a job's submission) from a
 * fixed seed: which sites can run the job (none, exactly one, or each with
 * probability 1/2), free GPUs, backlogs, waits, run times (INFINITY where
 * infeasible, as the network answers), transfers (0 at the data's home),
 * energy costs and CO2 (NaN at sites without a price series). After every
 * choose the check compares the answer with the table: -1 exactly when no
 * site is feasible, else an in-range feasible site. The host also checks
 * the broker's own calls: every site it asks about is < sites and every
 * job is the one being chosen for. */
#include "models/broker/conform.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/rng.h"
#include "sim/core/text.h"

enum { MAXS = WK_BROKER_MAX_SITES };

typedef struct Site {
    uint32_t gpus, free, job_gpus;
    int feasible, priced;
    double backlog, wait, run, transfer, price, co2;
    char name[16]; /* "site" and up to 10 digits */
} Site;

/* The scripted network: the state of the current round and what the
 * broker's calls did wrong. */
typedef struct Host {
    uint32_t n;
    Site s[MAXS];
    WkTime now;
    uint32_t job, home;
    int kind;
    char bad[256]; /* the first wrong call, "" when none */
} Host;

#define H(h) ((Host *)(uintptr_t)(h))

/* site (and job, when asked) are what a broker may ask about now. */
static int args_ok(const void *h, uint32_t job, int has_job, uint32_t site, const char *call)
{
    Host *x = H(h);
    if (site < x->n && (!has_job || job == x->job))
        return 1;
    if (!x->bad[0])
        snprintf(x->bad, sizeof x->bad, "called wk_broker_%s with site %u of %u sites and job %u (choosing for job %u)",
                 call, site, x->n, has_job ? job : x->job, x->job);
    return 0;
}

static uint32_t h_sites(const void *h) { return H(h)->n; }
static WkTime h_now(const void *h) { return H(h)->now; }
static uint64_t h_seed(const void *h) { (void)h; return 7; }
static uint32_t h_home(const void *h, uint32_t j) { return args_ok(h, j, 1, 0, "job_home") ? H(h)->home : 0; }
static int h_kind(const void *h, uint32_t j) { return args_ok(h, j, 1, 0, "job_kind") ? H(h)->kind : 0; }

static const char *h_name(const void *h, uint32_t s)
{
    return args_ok(h, 0, 0, s, "site_name") ? H(h)->s[s].name : "?";
}

static uint32_t h_gpus(const void *h, uint32_t s) { return args_ok(h, 0, 0, s, "site_gpus") ? H(h)->s[s].gpus : 0; }
static uint32_t h_free(const void *h, uint32_t s) { return args_ok(h, 0, 0, s, "site_free_gpus") ? H(h)->s[s].free : 0; }

static double h_backlog(const void *h, uint32_t s)
{
    return args_ok(h, 0, 0, s, "site_backlog_s") ? H(h)->s[s].backlog : NAN;
}

static double h_wait(const void *h, uint32_t j, uint32_t s) { return args_ok(h, j, 1, s, "wait_s") ? H(h)->s[s].wait : NAN; }

static uint32_t h_job_gpus(const void *h, uint32_t j, uint32_t s)
{
    return args_ok(h, j, 1, s, "job_gpus") ? H(h)->s[s].job_gpus : 0;
}

static int h_feasible(const void *h, uint32_t j, uint32_t s)
{
    return args_ok(h, j, 1, s, "feasible") ? H(h)->s[s].feasible : 0;
}

static double h_run(const void *h, uint32_t j, uint32_t s) { return args_ok(h, j, 1, s, "run_s") ? H(h)->s[s].run : NAN; }

static double h_transfer(const void *h, uint32_t j, uint32_t s)
{
    return args_ok(h, j, 1, s, "transfer_s") ? H(h)->s[s].transfer : NAN;
}

/* The energy of the job over [start, start + run): a price that varies over
 * the day, so the start matters; NaN without a price series. */
static double energy(const Site *st, double per_mwh, double start_s)
{
    if (!st->priced)
        return NAN;
    if (!isfinite(st->run) || !isfinite(start_s))
        return INFINITY;
    double mwh = st->job_gpus * 0.7e-3 * st->run / 3600;
    return mwh * per_mwh * (1 + 0.3 * sin(start_s / 86400 * 6.283185307179586));
}

static double h_cost(const void *h, uint32_t j, uint32_t s, double t)
{
    return args_ok(h, j, 1, s, "energy_cost") ? energy(&H(h)->s[s], H(h)->s[s].price, t) : NAN;
}

static double h_co2(const void *h, uint32_t j, uint32_t s, double t)
{
    return args_ok(h, j, 1, s, "energy_co2_kg") ? energy(&H(h)->s[s], H(h)->s[s].co2, t) : NAN;
}

static const WkBrokerHostOps host_ops = {
    .sites = h_sites, .site_name = h_name, .now = h_now, .seed = h_seed, .site_gpus = h_gpus,
    .site_free_gpus = h_free, .site_backlog_s = h_backlog, .wait_s = h_wait, .job_gpus = h_job_gpus,
    .feasible = h_feasible, .run_s = h_run, .transfer_s = h_transfer, .energy_cost = h_cost,
    .energy_co2_kg = h_co2, .job_home = h_home, .job_kind = h_kind,
};

/* ---- the states ---- */

/* How a round's feasible sites are drawn. */
typedef enum { DRAW_RANDOM, DRAW_NONE, DRAW_FIRST, DRAW_LAST, DRAW_ALL_ALIKE, DRAW_ALL_FULL } Draw;

/* A network of n sites: sizes and price series fixed for its life. */
static void host_init(Host *h, uint32_t n, WkRng *r)
{
    memset(h, 0, sizeof *h);
    h->n = n;
    for (uint32_t s = 0; s < n; s++) {
        Site *st = &h->s[s];
        st->gpus = 8 * (1 + (uint32_t)wk_rng_uint(r, 2560)); /* 8 .. 20,480 */
        st->priced = wk_rng_uniform(r) < 0.7;
        snprintf(st->name, sizeof st->name, "site%u", s);
    }
}

/* The state of the next round: job id, clock, and every site's answers. */
static void host_draw(Host *h, WkRng *r, uint32_t job, Draw how)
{
    h->job = job;
    h->bad[0] = '\0';
    if (wk_rng_uniform(r) >= 0.3) /* else several jobs at one instant */
        h->now += (WkTime)(wk_rng_exponential(r, 600) * 1e9);
    h->home = (uint32_t)wk_rng_uint(r, h->n);
    h->kind = wk_rng_uniform(r) < 0.2;
    double u = wk_rng_uniform(r);
    uint32_t only = (uint32_t)wk_rng_uint(r, h->n);
    if (how == DRAW_RANDOM && u < 0.15)
        how = DRAW_NONE;
    for (uint32_t s = 0; s < h->n; s++) {
        Site *st = &h->s[s];
        int f = wk_rng_uniform(r) < 0.5 || (u < 0.3 && s == only);
        if (how != DRAW_RANDOM)
            f = how == DRAW_ALL_ALIKE || how == DRAW_ALL_FULL || (how == DRAW_FIRST && s == 0) ||
                (how == DRAW_LAST && s == h->n - 1);
        else if (u < 0.3)
            f = s == only;
        st->feasible = f;
        st->job_gpus = 1 + (uint32_t)wk_rng_uint(r, st->gpus);
        st->free = (uint32_t)wk_rng_uint(r, (uint64_t)st->gpus + 1);
        st->backlog = wk_rng_uniform(r) < 0.3 ? 0 : wk_rng_exponential(r, 3600);
        st->wait = st->free >= st->job_gpus && st->backlog == 0 ? 0 : wk_rng_exponential(r, 3600);
        st->run = f ? 1 + wk_rng_exponential(r, 7200) : INFINITY;
        st->transfer = s == h->home ? 0 : wk_rng_exponential(r, 60);
        st->price = 20 + 180 * wk_rng_uniform(r);
        st->co2 = 50 + 700 * wk_rng_uniform(r);
        if (how == DRAW_ALL_ALIKE) { /* ties everywhere, and no prices */
            st->job_gpus = st->free = st->gpus = 8;
            st->backlog = st->wait = st->transfer = 0;
            st->run = 3600;
            st->priced = 0;
        } else if (how == DRAW_ALL_FULL) { /* no GPU free anywhere, long queues */
            st->free = 0;
            st->backlog = st->wait = 1e9;
        }
    }
}

/* ---- one broker instance on a host ---- */

typedef struct Inst {
    const WkBrokerOps *b;
    void *priv;
    WkBrokerCtx ctx;
} Inst;

static int failed(char *msg, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Record why the check failed (the first reason wins); returns 1. */
static int failed(char *msg, size_t n, const char *fmt, ...)
{
    if (n && !msg[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, n, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* Open b on h with params: 0, 1 (init failed: msg) or WK_E_NOMEM. */
static int inst_open(Inst *in, const WkBrokerOps *b, Host *h, const WkNode *params, char *msg, size_t n, WkError *err)
{
    in->b = b;
    in->ctx = (WkBrokerCtx){.ops = &host_ops, .host = h};
    if (!(in->priv = calloc(1, b->priv_size ? b->priv_size : 1)))
        return wk_error_nomem(err, "broker conformance");
    WkError e;
    wk_error_clear(&e);
    const char *prev = wk_text_callback_enter("init");
    int rc = b->init ? b->init(in->priv, params, &in->ctx, &e) : 0;
    wk_text_callback_leave(prev);
    if (rc < 0)
        return failed(msg, n, "broker '%s': init with %s failed (code %d): %s", b->name,
                      params ? "the common keys {" "name, plugin}" : "no parameters", rc, e.msg[0] ? e.msg : "no message");
    if (h->bad[0])
        return failed(msg, n, "broker '%s': init %s", b->name, h->bad);
    return 0;
}

static void inst_close(Inst *in)
{
    free(in->priv);
    in->priv = NULL;
}

/* Choose for the current round and hold the answer against h's state. */
static int choose_ok(Inst *in, Host *h, uint32_t round, int32_t *out, char *msg, size_t n)
{
    const char *prev = wk_text_callback_enter("choose");
    int32_t c = in->b->choose(in->priv, &in->ctx, h->job);
    wk_text_callback_leave(prev);
    *out = c;
    int any = 0;
    for (uint32_t s = 0; s < h->n; s++)
        any |= h->s[s].feasible;
    const char *nm = in->b->name;
    if (h->bad[0])
        return failed(msg, n, "broker '%s' %s (round %u, %u sites)", nm, h->bad, round, h->n);
    if (c < -1 || c >= (int32_t)h->n)
        return failed(msg, n, "broker '%s' chose site %d, not a site of %u nor -1 (round %u, job %u)", nm, c, h->n,
                      round, h->job);
    if (c == -1 && any)
        return failed(msg, n, "broker '%s' returned -1 for job %u though a site can run it (round %u, %u sites)", nm,
                      h->job, round, h->n);
    if (c >= 0 && !h->s[c].feasible)
        return failed(msg, n, "broker '%s' chose site %d for job %u, which cannot run it there (round %u, %u sites%s)",
                      nm, c, h->job, round, h->n, any ? "" : "; none can: -1 was due");
    return 0;
}

/* n sites, rounds of how: every choice held against the state. */
static int run_rounds(const WkBrokerOps *b, uint32_t nsites, uint32_t rounds, Draw how, char *msg, size_t n,
                      WkError *err)
{
    WkRng *r = NULL;
    Host *h = malloc(sizeof *h);
    int rc = h ? wk_rng_new(&r, 20261126, "conform.broker", err) : wk_error_nomem(err, "broker conformance");
    if (rc < 0) {
        free(h);
        return rc;
    }
    host_init(h, nsites, r);
    host_draw(h, r, 0, how);
    Inst in;
    rc = inst_open(&in, b, h, NULL, msg, n, err);
    for (uint32_t k = 0; rc == 0 && k < rounds; k++) {
        int32_t c;
        host_draw(h, r, k, how);
        rc = choose_ok(&in, h, k, &c, msg, n);
    }
    inst_close(&in);
    wk_rng_free(r);
    free(h);
    return rc;
}

/* ---- the checks ---- */

static int check_init(const WkBrokerOps *b, char *msg, size_t n, WkError *err)
{
    int rc = run_rounds(b, 3, 1, DRAW_RANDOM, msg, n, err);
    if (rc != 0 || !b->init)
        return rc;
    char y[256];
    snprintf(y, sizeof y, "name: \"%s\"\nplugin: broker.so\n", b->name);
    WkDoc *doc = NULL;
    WkError e;
    wk_error_clear(&e);
    if ((rc = wk_doc_load_string(&doc, "broker.yaml", y, strlen(y), &e)) < 0) {
        wk_doc_free(doc);
        return failed(msg, n, "broker '%s': its name is not a YAML string: %s", b->name, e.msg);
    }
    Host *h = calloc(1, sizeof *h);
    if (!h) {
        wk_doc_free(doc);
        return wk_error_nomem(err, "broker conformance");
    }
    h->n = 1;
    h->s[0] = (Site){.gpus = 8, .free = 8, .job_gpus = 8, .feasible = 1, .run = 60};
    Inst in;
    rc = inst_open(&in, b, h, doc->root, msg, n, err);
    inst_close(&in);
    free(h);
    wk_doc_free(doc);
    return rc;
}

static int check_choice(const WkBrokerOps *b, char *msg, size_t n, WkError *err)
{
    static const uint32_t sizes[] = {2, 3, 5, 8, 17, 40};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof sizes / sizeof *sizes; i++)
        rc = run_rounds(b, sizes[i], 400, DRAW_RANDOM, msg, n, err);
    return rc;
}

static int check_sizes(const WkBrokerOps *b, char *msg, size_t n, WkError *err)
{
    static const uint32_t sizes[] = {1, MAXS};
    static const Draw draws[] = {DRAW_RANDOM, DRAW_NONE, DRAW_FIRST, DRAW_LAST, DRAW_ALL_ALIKE, DRAW_ALL_FULL};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < 2; i++)
        for (size_t d = 0; rc == 0 && d < sizeof draws / sizeof *draws; d++)
            rc = run_rounds(b, sizes[i], 50, draws[d], msg, n, err);
    return rc;
}

/* Two instances fed the same states, turn about: the same choices. */
static int check_determinism(const WkBrokerOps *b, char *msg, size_t n, WkError *err)
{
    static const uint32_t sizes[] = {4, MAXS};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < 2; i++) {
        WkRng *r = NULL;
        Host *h = malloc(sizeof *h);
        rc = h ? wk_rng_new(&r, 20261127, "conform.broker", err) : wk_error_nomem(err, "broker conformance");
        if (rc < 0) {
            free(h);
            return rc;
        }
        host_init(h, sizes[i], r);
        host_draw(h, r, 0, DRAW_RANDOM);
        Inst a = {0}, c = {0};
        rc = inst_open(&a, b, h, NULL, msg, n, err);
        if (rc == 0)
            rc = inst_open(&c, b, h, NULL, msg, n, err);
        for (uint32_t k = 0; rc == 0 && k < 300; k++) {
            int32_t x, y;
            host_draw(h, r, k, DRAW_RANDOM);
            if ((rc = choose_ok(&a, h, k, &x, msg, n)) == 0 && (rc = choose_ok(&c, h, k, &y, msg, n)) == 0 && x != y)
                rc = failed(msg, n,
                            "broker '%s' is not deterministic: two instances given the same states chose sites %d "
                            "and %d for job %u (round %u, %u sites)",
                            b->name, x, y, h->job, k, h->n);
        }
        inst_close(&a);
        inst_close(&c);
        wk_rng_free(r);
        free(h);
    }
    return rc;
}

typedef struct Check {
    const char *name, *description;
    int (*run)(const WkBrokerOps *b, char *msg, size_t n, WkError *err);
} Check;

static const Check checks[] = {
    {"init", "init accepts no parameters (broker: NAME) and a map of the common keys {name, plugin}",
     check_init},
    {"choice", "-1 exactly when no site can run the job, else a feasible site < sites; calls only about "
               "sites < sites and the job being chosen for (2,400 random rounds, 2 to 40 sites)",
     check_choice},
    {"sizes", "the same with 1 and 64 sites: none, only the first or last feasible, all alike (ties, no "
              "prices), all full",
     check_sizes},
    {"determinism", "two instances given the same states choose the same sites (4 and 64 sites)", check_determinism},
};

size_t wk_broker_conform_count(void) { return sizeof checks / sizeof *checks; }
const char *wk_broker_conform_name(size_t i) { return i < wk_broker_conform_count() ? checks[i].name : NULL; }

const char *wk_broker_conform_description(size_t i)
{
    return i < wk_broker_conform_count() ? checks[i].description : NULL;
}

int wk_broker_conform_run(size_t i, const WkBrokerOps *b, char *msg, size_t n, WkError *err)
{
    if (n)
        msg[0] = '\0';
    if (i >= wk_broker_conform_count())
        return wk_error_set(err, WK_E_RANGE, NULL, 0, 0, "broker conformance: no check %zu", i);
    return checks[i].run(b, msg, n, err);
}
