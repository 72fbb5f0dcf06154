/* SPDX-License-Identifier: Apache-2.0 */
/* synthetic.c — a generated job stream: renewal arrivals (Poisson with the
 * default exponential inter-arrival), durations from any distribution
 * (log-normal by default), GPU counts from a weighted table. Arrivals,
 * durations and sizes draw from three separate named streams, so changing
 * the size mix leaves the arrival times unchanged. A mix entry may be
 * `kind: hpc`: given `nodes:` (or `gpus:`) and its own `duration:`, or the
 * default HPC node counts and run times below, drawn from the streams
 * "workload.hpc_nodes" and "workload.duration". */
#include "models/workload/workload.h"

#include "sim/scenario/dist.h"

enum { MAXMIX = 64 };

/* Default node counts of an hpc mix entry without `nodes:`/`gpus:`: powers
 * of two from 1 to 256 nodes, most jobs small and most node-hours in the
 * large ones. A stated modelling choice (docs/scenarios.md, "HPC jobs"):
 * the shape of published analyses of leadership machines' logs (many
 * small jobs, a long tail of large ones), not a fit to one log. */
static const uint32_t hpc_nodes[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
static const double hpc_weights[] = {30, 15, 15, 12, 10, 8, 5, 3, 2};
/* Default run time of an hpc entry without `duration:`: log-normal, median
 * 1 h, sigma 1.0 (mean 1.65 h, p99 about 10 h, under the 24 h wall-clock
 * limits of most batch queues); a stated choice. */
static const WkDist hpc_duration = {.kind = WK_DIST_LOGNORMAL, .a = 8.188689124818317 /* ln 3600 */, .b = 1.0};

/* The GPU-count mix: a scalar (every job the same) or [{gpus, weight}, ...]. */
typedef struct Mix {
    uint32_t sizes[MAXMIX];
    double weights[MAXMIX];
    WkJobSpec proto[MAXMIX]; /* model, kind and node fields of each mix entry */
    WkDist dur[MAXMIX];      /* the entry's own `duration:` (has_dur) */
    uint8_t has_dur[MAXMIX];
    uint8_t hpc_table[MAXMIX]; /* 1: node count from the default HPC table */
    size_t n;
} Mix;

/* One mix entry's kind, size and duration into m's slot i. */
static int read_entry(const WkNode *e, WkWorkload *out, Mix *m, size_t i, WkError *err)
{
    int64_t g = 0;
    int rc;
    if ((rc = wk_workload_read_kind(out, e, &m->proto[i], err)) < 0)
        return rc;
    int hpc = m->proto[i].kind == WK_JOB_HPC;
    const WkNode *gn = wk_node_get(e, "gpus");
    int sized = m->proto[i].nodes || (gn && gn->type != WK_NODE_NULL);
    if (!m->proto[i].nodes && (rc = wk_node_int(e, "gpus", !hpc, 1, WK_JOB_MAX_GPUS, &g, err)) < 0)
        return rc;
    m->sizes[i] = (uint32_t)g;
    m->hpc_table[i] = hpc && !sized;
    if (m->hpc_table[i] && !out->nodes_at)
        out->nodes_at = e;
    if (wk_node_get(e, "duration") && m->proto[i].model)
        return wk_node_error(wk_node_get(e, "duration"), WK_E_INVAL, err,
                             "a model job's duration follows from its iterations; drop 'duration'");
    m->dur[i] = hpc_duration;
    if ((rc = wk_dist_parse(e, "duration", 0, &m->dur[i], err)) < 0)
        return rc;
    m->has_dur[i] = hpc || wk_node_get(e, "duration") != NULL;
    return 0;
}

/* `gpus:` of the section into m (left as it is when absent or null). */
static int read_mix(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, Mix *m, WkError *err)
{
    static const char *const mix_keys[] = {"gpus",       "weight", "model", "iterations", "tokens", "priority",
                                           "deferrable", "kind",   "nodes", "duration",   NULL};
    int rc;
    const WkNode *mix = wk_node_get(sec, "gpus");
    if (mix && mix->type == WK_NODE_SCALAR) {
        int64_t g = 0;
        if ((rc = wk_node_as_int(mix, 1, WK_JOB_MAX_GPUS, &g, err)) < 0)
            return rc;
        m->sizes[0] = (uint32_t)g;
    } else if (mix && mix->type == WK_NODE_SEQ) {
        if (mix->nkids == 0 || mix->nkids > MAXMIX)
            return wk_node_error(mix, WK_E_RANGE, err, "needs 1 to %d entries", MAXMIX);
        double tot = 0;
        for (size_t i = 0; i < mix->nkids; i++) {
            const WkNode *e = mix->kids[i];
            if ((rc = wk_node_expect_keys(e, mix_keys, err)) < 0 || (rc = read_entry(e, out, m, i, err)) < 0 ||
                (rc = wk_node_double(e, "weight", 1, 0, 1e12, &m->weights[i], err)) < 0)
                return rc;
            tot += m->weights[i];
            if ((rc = wk_workload_read_model(out, e, ctx, &m->proto[i], err)) < 0)
                return rc;
            int64_t prio = 0;
            if ((rc = wk_node_int(e, "priority", 0, -1000000, 1000000, &prio, err)) < 0)
                return rc;
            m->proto[i].priority = (int32_t)prio;
            if ((rc = wk_node_bool(e, "deferrable", 0, &m->proto[i].deferrable, err)) < 0)
                return rc;
        }
        if (!(tot > 0))
            return wk_node_error(mix, WK_E_RANGE, err, "weights must not all be zero");
        m->n = mix->nkids;
    } else if (mix && mix->type != WK_NODE_NULL) {
        return wk_node_error(mix, WK_E_INVAL, err, "expected a GPU count or a list of {gpus, weight}");
    }
    return 0;
}

/* 1 when some entry draws its node count from the default HPC table. */
static int uses_table(const Mix *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->hpc_table[i])
            return 1;
    return 0;
}

static int load(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err)
{
    static const char *const known[] = {"source", "jobs", "interarrival", "duration", "gpus", "comm", "quotas", NULL};
    int rc = wk_node_expect_keys(sec, known, err);
    if (rc < 0)
        return rc;
    int64_t njobs = 0;
    WkDist arr = {.kind = WK_DIST_EXPONENTIAL, .a = 60};
    WkDist dur = {.kind = WK_DIST_LOGNORMAL, .a = 7.0, .b = 1.5}; /* median e^7 ~ 18 min */
    if ((rc = wk_node_int(sec, "jobs", 1, 1, WK_WORKLOAD_MAX_JOBS, &njobs, err)) < 0 ||
        (rc = wk_dist_parse(sec, "interarrival", 0, &arr, err)) < 0 ||
        (rc = wk_dist_parse(sec, "duration", 0, &dur, err)) < 0)
        return rc;

    Mix m = {.sizes = {1}, .weights = {1}, .n = 1};
    if ((rc = read_mix(sec, ctx, out, &m, err)) < 0)
        return rc;

    WkRng *ra = NULL, *rd = NULL, *rg = NULL, *rh = NULL;
    if ((rc = wk_rng_new(&ra, ctx->seed, "workload.arrival", err)) < 0 ||
        (rc = wk_rng_new(&rd, ctx->seed, "workload.duration", err)) < 0 ||
        (rc = wk_rng_new(&rg, ctx->seed, "workload.gpus", err)) < 0 ||
        (uses_table(&m) && (rc = wk_rng_new(&rh, ctx->seed, "workload.hpc_nodes", err)) < 0))
        goto done;
    WkTime t = 0;
    for (int64_t i = 0; i < njobs; i++) {
        size_t k = m.n > 1 ? wk_rng_discrete(rg, m.weights, m.n) : 0;
        WkJobSpec js = m.proto[k];
        js.submit = t;
        /* one draw for every job, so streams stay aligned */
        js.duration = wk_dist_draw(m.has_dur[k] ? &m.dur[k] : &dur, rd);
        if (js.duration < 1)
            js.duration = 1;
        js.gpus = m.sizes[k];
        if (m.hpc_table[k])
            js.nodes = hpc_nodes[wk_rng_discrete(rh, hpc_weights, sizeof hpc_weights / sizeof hpc_weights[0])];
        if ((rc = wk_workload_push(out, &js)) < 0) {
            rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "workload: out of memory");
            goto done;
        }
        t += wk_dist_draw(&arr, ra); /* a draw is at most 2^62 ns: no overflow */
        if (t > WK_WORKLOAD_MAX_TIME && i + 1 < njobs) {
            rc = wk_node_error(wk_node_get(sec, "jobs"), WK_E_RANGE, err,
                               "job %lld would be submitted after %.0f years, the limit of simulated "
                               "time (docs/limits.md): fewer jobs or a shorter interarrival",
                               (long long)i + 1, wk_time_to_s(WK_WORKLOAD_MAX_TIME) / (365.25 * 86400));
            goto done;
        }
    }
    rc = 0;
done:
    wk_rng_free(ra);
    wk_rng_free(rd);
    wk_rng_free(rg);
    wk_rng_free(rh);
    return rc;
}

const WkWorkloadSource wk_workload_synthetic = {
    .abi = WK_WORKLOAD_ABI,
    .name = "synthetic",
    .description = "generated jobs: Poisson arrivals, log-normal durations, a GPU-count (and model, kind) mix",
    .load = load,
};
