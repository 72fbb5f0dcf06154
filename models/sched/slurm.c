/* SPDX-License-Identifier: Apache-2.0 */
/* slurm.c — a Slurm-like baseline: jobs ordered by a multifactor priority
 * (age and job size, Slurm's priority/multifactor, recalculated every
 * calc_period), started by EASY backfilling (sched/backfill: the head holds a
 * reservation no later job may delay), on whole nodes chosen topology-aware
 * (the tightest leaf switch, then pod, as topology/tree; node-granular
 * placement always). Not modelled: fair-share (the workload names no user or
 * account), QOS, partitions, preemption. Sources in docs/schedulers.md. */
#include "models/sched/queue.h"

typedef struct {
    WkQueuePolicy base;  /* first: the shared callbacks see a WkQueuePolicy */
    WkEasy easy;         /* backfill scratch */
    double w_age;        /* PriorityWeightAge */
    double w_size;       /* PriorityWeightJobSize */
    double max_age_s;    /* PriorityMaxAge, s: the age factor is 1 from there on */
    int favor_small;     /* PriorityFavorSmall: the size factor falls with size */
    WkTime calc_ns;      /* PriorityCalcPeriod, ns */
    WkTime last_calc;    /* when the priorities were last recalculated */
} Slurm;
WK_QUEUE_POLICY_FIRST(Slurm);

static double key(const void *priv, const WkSchedCtx *ctx, uint32_t job);
static double key_item(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x, uint32_t gpus);
static int settled(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x);
static int place_job(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t n, uint32_t *out);
static int pass(void *priv, WkSchedCtx *ctx, WkError *err);

static const char *const known[] = {WK_SCHED_COMMON_KEYS, "weight_age", "weight_size", "max_age",
                                    "favor_small", "calc_period", NULL};
static const WkQueueRules rules = {
    .name = "slurm", .keys = known, .key = key, .rekey = {.key = key_item, .settled = settled}, .place = place_job, .pass = pass, .track = 1, .easy = 1};

static int init(void *priv, const WkNode *params, const WkSchedCtx *ctx, WkError *err)
{
    Slurm *s = priv;
    (void)ctx;
    s->w_age = 1000;
    s->w_size = 1000;
    s->max_age_s = 7 * 86400.0;
    s->calc_ns = 5 * WK_NS_PER_MIN;
    int rc = wk_queue_policy_init(&s->base, &rules, params, err);
    WkTime max_age = (WkTime)(s->max_age_s * 1e9);
    if (rc < 0 || !params)
        return rc;
    if ((rc = wk_node_double(params, "weight_age", 0, 0, 1e9, &s->w_age, err)) < 0 ||
        (rc = wk_node_double(params, "weight_size", 0, 0, 1e9, &s->w_size, err)) < 0 ||
        (rc = wk_node_duration(params, "max_age", 0, WK_NS_PER_S, 365 * WK_NS_PER_DAY, &max_age, err)) < 0 ||
        (rc = wk_node_bool(params, "favor_small", 0, &s->favor_small, err)) < 0 ||
        (rc = wk_node_duration(params, "calc_period", 0, 0, 365 * WK_NS_PER_DAY, &s->calc_ns, err)) < 0)
        return rc;
    s->max_age_s = wk_time_to_s(max_age);
    return 0;
}

/** The priority at `now` of a job submitted at `submit` asking for `gpus`:
 * w_age x age factor + w_size x job-size factor. */
static double priority(const Slurm *s, const WkSchedCtx *ctx, WkTime submit, uint32_t gpus)
{
    double age = wk_time_to_s(wk_sched_now(ctx) - submit) / s->max_age_s;
    double size = (double)gpus / wk_sched_cluster(ctx)->gpus;
    return s->w_age * (age < 0 ? 0 : age > 1 ? 1 : age) + s->w_size * (s->favor_small ? 1 - size : size);
}

/* Higher priority first; ties by submit time and job id (the queue's). */
static double key(const void *priv, const WkSchedCtx *ctx, uint32_t job)
{
    return -priority(priv, ctx, wk_sched_job_submit(ctx, job), wk_sched_job_gpus(ctx, job));
}

/* The same key from a queued job's item and GPU count (the recalculation). */
static double key_item(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x, uint32_t gpus)
{
    return -priority(priv, ctx, x->submit, gpus);
}

/* 1 when the job's age factor is at its cap, as priority() computes it: its
 * key no longer changes, and it is the smallest key of its GPU count. */
static int settled(const void *priv, const WkSchedCtx *ctx, const WkQueueItem *x)
{
    const Slurm *s = priv;
    return wk_time_to_s(wk_sched_now(ctx) - x->submit) / s->max_age_s >= 1;
}

/* Whole nodes under the tightest leaf switch, else pod (WK_PLACE_EXCLUSIVE),
 * whatever the scenario's `placement:`. */
static int place_job(void *priv, const WkSchedCtx *ctx, uint32_t job, uint32_t n, uint32_t *out)
{
    (void)priv;
    (void)n;
    return wk_sched_place_job(ctx, job, WK_PLACE_EXCLUSIVE, out, NULL, NULL);
}

/* Recalculate the priorities when calc_period has passed, then backfill. */
static int pass(void *priv, WkSchedCtx *ctx, WkError *err)
{
    Slurm *s = priv;
    WkTime now = wk_sched_now(ctx);
    if (now - s->last_calc >= s->calc_ns) {
        int rc = wk_queue_rekey(&s->base, ctx, err);
        if (rc < 0)
            return rc;
        s->last_calc = now;
    }
    return wk_queue_easy_pass(&s->base, &s->easy, ctx, err);
}

static void fini(void *priv)
{
    Slurm *s = priv;
    wk_queue_policy_fini(&s->base);
    wk_queue_easy_fini(&s->easy);
}

const WkSchedOps wk_sched_slurm = {
    .abi = WK_SCHED_ABI,
    .name = "slurm",
    .description = "Slurm-like baseline: multifactor priority (age, job size), EASY backfill with the "
                   "head's reservation, whole nodes under the tightest leaf switch or pod",
    .priv_size = sizeof(Slurm),
    .init = init,
    .on_submit = wk_queue_on_submit_if_fits,
    .fini = fini,
    WK_QUEUE_POLICY_OPS,
};
