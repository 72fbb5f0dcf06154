/* SPDX-License-Identifier: Apache-2.0 */
/* fair.c — bounded slowdown, per-user figures, Jain's index and finish-time
 * fairness (definitions and sources: docs/metrics.md). */
#include "sim/trace/fair.h"

#include "sim/core/error.h"
#include "sim/trace/summary.h"

#include <math.h>
#include <stdlib.h>

double wk_fair_bsld(double submit_s, double start_s, double end_s, double tau_s)
{
    double run = end_s - start_s;
    double b = (end_s - submit_s) / (run > tau_s ? run : tau_s);
    return b > 1 ? b : 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int wk_fair_compute(const WkFairJob *jobs, size_t n, size_t nusers, double gpus_total, double tau_s,
                    WkFairUser *per_user, WkFairResult *res)
{
    *res = (WkFairResult){NAN, NAN, NAN, NAN, NAN};
    double *b = malloc((n ? n : 1) * sizeof *b);
    /* per user: sums of wait, bsld and ftf, and how many of each */
    double *acc = calloc(nusers ? nusers * 6 : 1, sizeof *acc);
    if (!b || !acc) {
        free(b);
        free(acc);
        return WK_E_NOMEM;
    }
    for (size_t u = 0; u < nusers; u++)
        per_user[u] = (WkFairUser){0, 0, 0, NAN, NAN, NAN};
    size_t nb = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        const WkFairJob *j = &jobs[i];
        WkFairUser *pu = j->user && j->user <= nusers ? &per_user[j->user - 1] : NULL;
        double *a = pu ? &acc[(j->user - 1) * 6] : NULL;
        if (pu) {
            pu->jobs++;
            pu->gpu_h += j->gpu_s / 3600;
            if (j->start_s >= 0) {
                a[0] += j->start_s - j->submit_s;
                a[1] += 1;
            }
        }
        if (!j->completed)
            continue;
        double x = wk_fair_bsld(j->submit_s, j->start_s, j->end_s, tau_s);
        b[nb++] = x;
        sum += x;
        if (!pu)
            continue;
        pu->completed++;
        a[2] += x;
        a[3] += 1;
        double run = j->end_s - j->start_s;
        if (run > 0 && gpus_total > 0) {
            double share = (double)j->gpus * (double)nusers / gpus_total;
            a[4] += (j->end_s - j->submit_s) / (run * (share > 1 ? share : 1));
            a[5] += 1;
        }
    }
    if (nb) {
        qsort(b, nb, sizeof *b, cmp_double);
        res->bsld_mean = sum / (double)nb;
        res->bsld_p99 = wk_quantile_sorted(b, nb, 0.99);
    }
    double js = 0, js2 = 0, fs = 0, fmax = NAN;
    size_t jm = 0, fm = 0;
    for (size_t u = 0; u < nusers; u++) {
        const double *a = &acc[u * 6];
        WkFairUser *pu = &per_user[u];
        if (a[1] > 0)
            pu->wait_mean_s = a[0] / a[1];
        if (a[3] > 0) {
            pu->bsld_mean = a[2] / a[3];
            js += pu->bsld_mean;
            js2 += pu->bsld_mean * pu->bsld_mean;
            jm++;
        }
        if (a[5] > 0) {
            pu->ftf = a[4] / a[5];
            fs += pu->ftf;
            fm++;
            if (!(pu->ftf <= fmax))
                fmax = pu->ftf;
        }
    }
    if (jm)
        res->jain = js * js / ((double)jm * js2);
    if (fm) {
        res->ftf_mean = fs / (double)fm;
        res->ftf_max = fmax;
    }
    free(b);
    free(acc);
    return 0;
}
