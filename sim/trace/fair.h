/* SPDX-License-Identifier: Apache-2.0 */
/* fair.h — scheduling metrics from a run's job times (docs/metrics.md,
 * "Slowdown and fairness"): bounded slowdown, and over the jobs' users their
 * own figures, Jain's fairness index and finish-time fairness. Pure
 * arithmetic on arrays: the run (models/run/run_report.c) fills them. */
#ifndef WK_FAIR_H
#define WK_FAIR_H

#include <stddef.h>
#include <stdint.h>

/* τ of the bounded slowdown: jobs shorter than this count as this long
 * (Feitelson et al. 1997, JSSPP; 10 s, the threshold used there). */
#define WK_BSLD_TAU_S 10.0

typedef struct WkFairJob {
    double submit_s, start_s, end_s; /* start_s < 0: never started; end_s used only when completed */
    double gpu_s;                    /* GPU-seconds it ran making progress */
    uint32_t gpus;                   /* GPUs it asked for */
    uint32_t user;                   /* 0: none; k: user k - 1 */
    int completed;
} WkFairJob;

typedef struct WkFairUser {
    size_t jobs, completed;
    double gpu_h;       /* Σ gpu_s / 3600 */
    double wait_mean_s; /* start − submit over its started jobs; NaN: none */
    double bsld_mean;   /* over its completed jobs; NaN: none */
    double ftf;         /* mean finish-time fairness ρ over its completed jobs that ran; NaN: none */
} WkFairUser;

typedef struct WkFairResult {
    double bsld_mean, bsld_p99; /* over completed jobs; NaN: none */
    double jain;                /* Jain's index over users' bsld_mean; NaN: no user completed a job */
    double ftf_mean, ftf_max;   /* over users' ftf; NaN: none defined */
} WkFairResult;

/** Bounded slowdown of one completed job: max(1, (end − submit) /
 * max(end − start, tau_s)). */
double wk_fair_bsld(double submit_s, double start_s, double end_s, double tau_s);

/** Compute res over jobs[0..n) on a cluster of gpus_total GPUs, and per
 * user[0..nusers) (every jobs[i].user ≤ nusers; per_user may be NULL when
 * nusers is 0). A job's finish-time fairness is ρ = (end − submit) /
 * ((end − start) · max(1, gpus · nusers / gpus_total)). Returns 0, or
 * WK_E_NOMEM (res then all NaN). */
int wk_fair_compute(const WkFairJob *jobs, size_t n, size_t nusers, double gpus_total, double tau_s,
                    WkFairUser *per_user, WkFairResult *res);

#endif
