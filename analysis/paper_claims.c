/* SPDX-License-Identifier: Apache-2.0 */
/* paper_claims.c — the seed paper's claims, each with a verdict, and the
 * ablation of SCI's mechanisms (see paper_claims.h). */
#include "analysis/paper_claims.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_seeds.h"
#include "sim/core/strbuf.h"
#include "sim/trace/schema.h"
#include "sim/trace/trace_read.h"

const char *wk_claims_verdict_name(WkClaimsVerdict v)
{
    return v == WK_CLAIMS_SUPPORTED ? "supported" : v == WK_CLAIMS_NOT_SUPPORTED ? "not supported" : "not testable";
}

WkClaimsVerdict wk_claims_verdict(double pub, const double *v, size_t n, char *why, size_t nwhy)
{
    char dummy[8];
    if (!why) {
        why = dummy;
        nwhy = sizeof dummy;
    }
    WkSeedStat s = wk_seed_stat(v, n);
    if (isnan(pub)) {
        snprintf(why, nwhy, "the paper gives no number to compare");
        return WK_CLAIMS_NOT_TESTABLE;
    }
    if (s.n == 0) {
        snprintf(why, nwhy, "no seed gave a value (the notes of `wanka report paper-sci` on one seed's traces say why)");
        return WK_CLAIMS_NOT_TESTABLE;
    }
    if (s.n < 2 || !isfinite(s.ci95)) {
        snprintf(why, nwhy, "%zu seed%s with a value: no interval (run --seeds 2 or more)", s.n, s.n == 1 ? "" : "s");
        return WK_CLAIMS_NOT_TESTABLE;
    }
    int in = fabs(pub - s.mean) <= s.ci95;
    snprintf(why, nwhy, "the published %g lies %s the 95 %% interval [%.1f, %.1f]%s", pub, in ? "inside" : "outside",
             s.mean - s.ci95, s.mean + s.ci95,
             s.ci95 == 0 ? " (every seed gives the same value: the runs do not depend on the seed)" : "");
    return in ? WK_CLAIMS_SUPPORTED : WK_CLAIMS_NOT_SUPPORTED;
}

int wk_claims_tflops(const char *path, double *out, WkError *err)
{
    *out = NAN;
    WkTraceRead *r = NULL;
    WkTraceMetric *m = NULL;
    size_t nm = 0;
    int rc = wk_trace_read_open(&r, path, err);
    if (rc == 0)
        rc = wk_trace_read_summary(r, &m, &nm, err);
    const WkTraceMetric *t = rc == 0 ? wk_trace_read_metric(m, nm, WK_SCHEMA_M_TFLOPS_PER_GPU) : NULL;
    if (t)
        *out = t->value;
    free(m);
    wk_trace_read_close(r);
    return rc;
}

/* ---- per-seed values ---------------------------------------------------------------- */

/* What a claim or an ablation cell reads from one seed. */
typedef enum {
    F_SIM_VALUE = 0, /* row's sim_value */
    F_SIM_CHANGE,    /* row's sim_change */
    F_TFLOPS_GAIN,   /* tflops of ALL over NO_CASCADE, in % */
    F_TFLOPS,        /* the variant's tflops_per_gpu */
    F_NONE,          /* not testable: no value */
} Field;

static double seed_value(const WkClaimsSeed *s, WkClaimsVariant v, const char *key, Field f)
{
    if (f == F_TFLOPS_GAIN) {
        double on = s->tflops[WK_CLAIMS_ALL], off = s->tflops[WK_CLAIMS_NO_CASCADE];
        return isfinite(on) && isfinite(off) && off > 0 ? 100.0 * (on / off - 1.0) : NAN;
    }
    if (f == F_TFLOPS)
        return s->tflops[v];
    const WkReportRow *r = s->rep[v] && key ? wk_report_row(s->rep[v], key) : NULL;
    if (!r || f == F_NONE)
        return NAN;
    return f == F_SIM_VALUE ? r->sim_value : r->sim_change;
}

static WkSeedStat stat_of(const WkClaimsSeed *seeds, size_t n, WkClaimsVariant v, const char *key, Field f,
                          double *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = seed_value(&seeds[i], v, key, f);
    return wk_seed_stat(scratch, n);
}

static void cell(char *buf, size_t len, WkSeedStat s, const char *unit, int sign)
{
    if (!isfinite(s.mean)) {
        snprintf(buf, len, "—");
        return;
    }
    int k = snprintf(buf, len, sign ? "%+.1f" : "%.1f", s.mean);
    if (k > 0 && (size_t)k < len && isfinite(s.ci95))
        k += snprintf(buf + k, len - (size_t)k, " ± %.1f", s.ci95);
    if (k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, "%s", unit);
}

/* ---- the claims --------------------------------------------------------------------- */

typedef struct {
    const char *section, *claim, *published;
    double pub;
    WkClaimsVariant variant;
    const char *key; /* report row */
    Field field;
    const char *unit;
    int change;              /* a change: say whether its sign is the published one */
    WkClaimsVariant against; /* != variant: the same row of this variant is shown beside ("off: …") */
    const char *note;        /* what the simulated number is, or why there is none */
} Claim;

static const Claim claims[] = {
    {"§3.1", "per-GPU utilization std dev at peak, SCI with outsourcing", "4.2 %", 4.2, WK_CLAIMS_ALL, "util_std",
     F_SIM_VALUE, " %", 0, WK_CLAIMS_NO_OUTSOURCING, "util_gpu_std_peak of the SCI run with all mechanisms"},
    {"§3.1", "the same, theory (here: outsourcing off)", "15 %", 15, WK_CLAIMS_ALL, "util_std_predicted",
     F_SIM_VALUE, " %", 0, WK_CLAIMS_ALL,
     "the paper's 15 % is a prediction without the exchange; set beside the SCI run with outsourcing off (the "
     "first table's row, the same trace)"},
    {"§3.2", "communication efficiency, cascade on vs off", "+12 %", 12, WK_CLAIMS_ALL, NULL, F_TFLOPS_GAIN, " %",
     1, WK_CLAIMS_ALL,
     "the paper does not define communication efficiency; simulated: the change of tflops_per_gpu (model FLOP/s "
     "per GPU, which rises as collectives shorten), same seed, cascade on vs off"},
    {"§3.4", "training speed, 32 GPUs throttled, with the response", "-8 %", -8, WK_CLAIMS_ALL, "throttle",
     F_SIM_VALUE, " %", 0, WK_CLAIMS_NO_RESPONSE,
     "the throttled job's speed against the run without the incident; response: division and rebalancing"},
    {"§3.4", "the same, theory (here: no response)", "-25 %", -25, WK_CLAIMS_NO_RESPONSE, "throttle", F_SIM_VALUE,
     " %", 0, WK_CLAIMS_NO_RESPONSE, "the same job with neither division nor rebalancing"},
    {"Table 5.2", "mean GPU utilization", "72 % → 91 % (+19 pts)", 19, WK_CLAIMS_ALL, "utilization", F_SIM_CHANGE,
     " pts", 1, WK_CLAIMS_ALL, "SCI (all mechanisms) minus the traditional baseline, same seed"},
    {"Table 5.2", "task completion time (mean)", "100 % → 74 % (-26 %)", -26, WK_CLAIMS_ALL, "jct", F_SIM_CHANGE,
     " %", 1, WK_CLAIMS_ALL, "SCI (all mechanisms) against the traditional baseline, same seed"},
    {"Table 5.2", "energy (total, same period)", "100 % → 85 % (-15 %)", -15, WK_CLAIMS_ALL, "energy", F_SIM_CHANGE,
     " %", 1, WK_CLAIMS_ALL, "SCI (all mechanisms) against the traditional baseline, same seed"},
    {"Table 5.2", "energy per token (or sample) trained", "100 % → 85 % (-15 %)", -15, WK_CLAIMS_ALL,
     "energy_per_token", F_SIM_CHANGE, " %", 1, WK_CLAIMS_ALL,
     "the energy row read as energy for the same work: equal to it when both runs train the same tokens (every "
     "job finished by the horizon)"},
    {"Table 5.2", "fault recovery time (mean)", "minutes → seconds (-99 %)", -99, WK_CLAIMS_ALL, "recovery_mean",
     F_SIM_CHANGE, " %", 1, WK_CLAIMS_ALL, "SCI (all mechanisms) against the traditional baseline, same seed"},
    {"§4.1", "collective behaviour emerges above ~1,000 GPUs", "~1,000 GPUs", NAN, WK_CLAIMS_ALL, NULL, F_NONE, "",
     0, WK_CLAIMS_ALL,
     "needs an order parameter over a sweep of cluster sizes (the §4.2 Ising-style fit), which wanka does not "
     "compute; the report runs one cluster size"},
    {"§4.1", "and above ~10^6 interactions per second", "~10^6 /s", NAN, WK_CLAIMS_ALL, NULL, F_NONE, "", 0,
     WK_CLAIMS_ALL,
     "the paper does not define an interaction; wanka counts events, not GPU-to-GPU interactions, and has no "
     "order parameter to locate a threshold"},
};

/* The trace form (one baseline and one SCI trace, and the throttle traces):
 * per claim, the report row it reads there, or NULL when the claim needs an
 * ablation run of the run form the trace form cannot take (need[] says
 * which). */
static const char *const trace_key[sizeof claims / sizeof claims[0]] = {
    "util_std", "util_std_predicted", NULL, "throttle", "throttle_predicted", "utilization", "jct", "energy",
    "energy_per_token", "recovery_mean", NULL, NULL};
/* The trace a claim's row needs beyond the baseline and SCI traces (its
 * report role; NULL: none), and what to pass or run when it is missing. */
static const char *const need_role[sizeof claims / sizeof claims[0]] = {[1] = "sci_no_outsourcing"};
static const char *const need[sizeof claims / sizeof claims[0]] = {
    [1] = "SCI with outsourcing off: give --sci-no-outsourcing NO.h5 (the run form's sci-no-outsourcing.h5)",
    [2] = "SCI with the cascade off (the run form's sci-no-cascade.h5)"};

static int has_role(const WkReport *rep, const char *role)
{
    for (size_t i = 0; role && i < rep->ntraces; i++)
        if (strcmp(rep->traces[i].role, role) == 0)
            return 1;
    return 0;
}

static void put(WkStrBuf *b, const char *s, int w, const char *sep)
{
    int n = 0;
    for (const char *c = s; *c; c++)
        n += ((unsigned char)*c & 0xC0) != 0x80;
    wk_strbuf_printf(b, "%s%*s%s", s, w > n ? w - n : 0, "", sep);
}

/* The reason of claim c: the verdict's, then what the number is. */
static WkClaimsVerdict judge(const Claim *c, const WkClaimsSeed *seeds, size_t n, double *scratch, char *why,
                             size_t nwhy)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = seed_value(&seeds[i], c->variant, c->key, c->field);
    char v[320];
    WkClaimsVerdict verdict = c->field == F_NONE ? WK_CLAIMS_NOT_TESTABLE : wk_claims_verdict(c->pub, scratch, n, v,
                                                                                               sizeof v);
    if (c->field == F_NONE) {
        snprintf(why, nwhy, "%s", c->note);
        return verdict;
    }
    WkSeedStat s = wk_seed_stat(scratch, n);
    const char *dir = "";
    if (c->change && isfinite(s.ci95))
        dir = fabs(s.mean) <= s.ci95 ? "; the simulated effect is not distinguishable from zero"
              : (s.mean > 0) == (c->pub > 0) ? "; the simulated effect has the published sign"
                                             : "; the simulated effect has the opposite sign";
    char beside[96] = "";
    if (c->against != c->variant) {
        char cv[64];
        cell(cv, sizeof cv, stat_of(seeds, n, c->against, c->key, c->field, scratch), c->unit, 0);
        snprintf(beside, sizeof beside, "; %s: %s", c->against == WK_CLAIMS_NO_RESPONSE ? "no response"
                                                                                        : "outsourcing off", cv);
    }
    snprintf(why, nwhy, "%s%s%s. %s", v, dir, beside, c->note);
    return verdict;
}

static const int claim_w[] = {10, 58, 26, 18, 6};

static void claims_head(WkStrBuf *b, int markdown, const char *sep)
{
    if (markdown) {
        wk_strbuf_printf(b, "| section | claim | published | simulated | seeds | verdict | why |\n"
                            "|---|---|---|---|---|---|---|\n");
        return;
    }
    static const char *const head[] = {"section", "claim", "published", "simulated", "seeds"};
    for (int k = 0; k < 5; k++)
        put(b, head[k], claim_w[k], sep);
    wk_strbuf_printf(b, "verdict\n");
}

static void claims_row(WkStrBuf *b, int markdown, const char *sep, const Claim *c, const char *sim, const char *ns,
                       const char *verdict, const char *why)
{
    if (markdown) {
        wk_strbuf_printf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", c->section, c->claim, c->published, sim, ns,
                         verdict, why);
        return;
    }
    const char *cells[] = {c->section, c->claim, c->published, sim, ns};
    for (int k = 0; k < 5; k++)
        put(b, cells[k], claim_w[k], sep);
    wk_strbuf_printf(b, "%s\n%*s  why: %s\n", verdict, claim_w[0], "", why);
}

char *wk_claims_render_traces(const WkReport *rep, int markdown)
{
    if (!rep)
        return NULL;
    WkStrBuf b = {0};
    const char *sep = markdown ? " | " : "  ";
    wk_strbuf_printf(&b, "%sClaims: published vs simulated from these traces (one seed), with a verdict\n\n",
                     markdown ? "## " : "");
    claims_head(&b, markdown, sep);
    for (size_t i = 0; i < sizeof claims / sizeof claims[0]; i++) {
        const Claim *c = &claims[i];
        char why[1024], sim[64] = "—", v[320];
        const char *verdict, *ns = "0";
        if (c->field == F_NONE) {
            verdict = wk_claims_verdict_name(WK_CLAIMS_NOT_TESTABLE);
            snprintf(why, sizeof why, "%s", c->note);
        } else if (!trace_key[i] || (need_role[i] && !has_role(rep, need_role[i]))) {
            verdict = "needs runs";
            snprintf(why, sizeof why, "needs %s; `wanka report paper-sci --seeds N` runs it. %s", need[i], c->note);
        } else {
            const WkReportRow *r = wk_report_row(rep, trace_key[i]);
            double x = !r ? NAN : c->field == F_SIM_CHANGE ? r->sim_change : r->sim_value;
            WkSeedStat st = wk_seed_stat(&x, 1);
            cell(sim, sizeof sim, st, c->unit, c->change);
            ns = st.n ? "1" : "0";
            verdict = wk_claims_verdict_name(wk_claims_verdict(c->pub, &x, 1, v, sizeof v));
            snprintf(why, sizeof why, "%s. %s", v, c->note);
        }
        claims_row(&b, markdown, sep, c, sim, ns, verdict, why);
    }
    wk_strbuf_printf(&b, "\nverdict: as in the run form (docs/reproducing-sci.md); one pair of traces is one seed, "
                         "so no row has an interval. The ablation needs runs: `wanka report paper-sci --seeds N` "
                         "runs every variant.\n");
    if (b.oom) {
        free(wk_strbuf_take(&b));
        return NULL;
    }
    return wk_strbuf_take(&b);
}

static const char *const vname[WK_CLAIMS_NV] = {"all on",         "cascade off",   "outsourcing off",
                                                 "division off",   "feedback off",  "SCI blind",
                                                 "rebalance off",  "no response"};

char *wk_claims_render(const WkClaimsSeed *seeds, size_t n, int markdown)
{
    if (n == 0)
        return NULL;
    double *scratch = malloc(n * sizeof *scratch);
    if (!scratch)
        return NULL;
    WkStrBuf b = {0};
    const char *sep = markdown ? " | " : "  ";
    wk_strbuf_printf(&b, "%sClaims: published vs simulated (mean ± 95 %% half-width over %zu seed%s), with a "
                         "verdict\n\n",
                     markdown ? "## " : "", n, n == 1 ? "" : "s");
    claims_head(&b, markdown, sep);
    for (size_t i = 0; i < sizeof claims / sizeof claims[0]; i++) {
        const Claim *c = &claims[i];
        char why[1024], sim[64], ns[16];
        WkClaimsVerdict v = judge(c, seeds, n, scratch, why, sizeof why);
        WkSeedStat s = stat_of(seeds, n, c->variant, c->key, c->field, scratch);
        cell(sim, sizeof sim, s, c->unit, c->change);
        snprintf(ns, sizeof ns, "%zu", s.n);
        claims_row(&b, markdown, sep, c, sim, ns, wk_claims_verdict_name(v), why);
    }
    wk_strbuf_printf(&b, "\nverdict: supported when the published number lies inside the simulated 95 %% interval "
                         "(Student's t over the seeds), not supported when outside, not testable when the run "
                         "cannot give the number.\n\n");
    /* the ablation */
    wk_strbuf_printf(&b, "%sAblation: SCI with every mechanism, then each off in turn (mean ± 95 %% half-width)\n\n",
                     markdown ? "## " : "");
    static const char *const cols[] = {"variant", "utilization", "JCT vs baseline", "energy vs baseline",
                                       "util std at peak", "TFLOP/s per GPU", "§3.4 throttle"};
    static const int cw[] = {16, 16, 18, 18, 18, 16, 0};
    if (markdown)
        wk_strbuf_printf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n|---|---|---|---|---|---|---|\n", cols[0], cols[1],
                         cols[2], cols[3], cols[4], cols[5], cols[6]);
    else {
        for (int k = 0; k < 6; k++)
            put(&b, cols[k], cw[k], sep);
        wk_strbuf_printf(&b, "%s\n", cols[6]);
    }
    for (int v = 0; v < WK_CLAIMS_NV; v++) {
        int big = v <= WK_CLAIMS_BLIND,
            thr = v == WK_CLAIMS_ALL || v == WK_CLAIMS_NO_DIVISION || v >= WK_CLAIMS_NO_REBALANCE;
        char c[6][64];
        cell(c[0], sizeof c[0], big ? stat_of(seeds, n, v, "utilization", F_SIM_VALUE, scratch) : (WkSeedStat){NAN, NAN, 0},
             " %", 0);
        cell(c[1], sizeof c[1], big ? stat_of(seeds, n, v, "jct", F_SIM_CHANGE, scratch) : (WkSeedStat){NAN, NAN, 0},
             " %", 1);
        cell(c[2], sizeof c[2], big ? stat_of(seeds, n, v, "energy", F_SIM_CHANGE, scratch) : (WkSeedStat){NAN, NAN, 0},
             " %", 1);
        cell(c[3], sizeof c[3], big ? stat_of(seeds, n, v, "util_std", F_SIM_VALUE, scratch) : (WkSeedStat){NAN, NAN, 0},
             " %", 0);
        cell(c[4], sizeof c[4], big ? stat_of(seeds, n, v, NULL, F_TFLOPS, scratch) : (WkSeedStat){NAN, NAN, 0}, "", 0);
        cell(c[5], sizeof c[5], thr ? stat_of(seeds, n, v, "throttle", F_SIM_VALUE, scratch) : (WkSeedStat){NAN, NAN, 0},
             " %", 1);
        if (markdown) {
            wk_strbuf_printf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", vname[v], c[0], c[1], c[2], c[3], c[4], c[5]);
        } else {
            put(&b, vname[v], cw[0], sep);
            for (int k = 0; k < 5; k++)
                put(&b, c[k], cw[k + 1], sep);
            wk_strbuf_printf(&b, "%s\n", c[5]);
        }
    }
    wk_strbuf_printf(&b, "\n— where a variant does not change that run: cascade, outsourcing and SCI's feedback are "
                         "not part of the §3.4 response; rebalancing is a throttle-run response only. A mechanism off is "
                         "off in the run and in SCI's objective; SCI blind runs every mechanism with an objective that "
                         "does not see them. JCT and energy are against the traditional baseline of the same seed.\n");
    free(scratch);
    if (b.oom) {
        free(wk_strbuf_take(&b));
        return NULL;
    }
    return wk_strbuf_take(&b);
}
