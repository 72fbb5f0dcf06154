/* SPDX-License-Identifier: Apache-2.0 */
/* sci_roles.c — the seed paper's §3.3 roles for `sci` (use_roles,
 * docs/sci.md, "Roles"): each job's speed on each node group (SKU) relative
 * to its best, from the performance model, and its role — compute-,
 * memory- or communication-bound — from how that speed follows the SKUs'
 * FLOP/s and HBM bandwidth. */
#include "models/sched/sci.h"

#include <math.h>
#include <stdlib.h>

#include "models/sched/sched.h"

WkSciRole wk_sci_role(double t_ratio, double flops_ratio, double bw_ratio)
{
    if (!isfinite(t_ratio) || t_ratio < 1e-9 || !(flops_ratio > 0) || !(bw_ratio > 0))
        return WK_SCI_ROLE_NONE;
    double lt = log(t_ratio);
    double dc = fabs(lt - log(flops_ratio)), dm = fabs(lt - log(bw_ratio)), dk = fabs(lt);
    if (dc <= dm && dc <= dk)
        return WK_SCI_ROLE_COMPUTE;
    return dm <= dk ? WK_SCI_ROLE_MEMORY : WK_SCI_ROLE_COMM;
}

const char *wk_sci_role_name(WkSciRole r)
{
    static const char *const n[WK_SCI_ROLE_N] = {"none", "compute", "memory", "communication"};
    return r < WK_SCI_ROLE_N ? n[r] : "none";
}

double wk_sci_speeds(const double *t, uint32_t n, float *speed, uint32_t *fast, uint32_t *slow)
{
    uint32_t f = UINT32_MAX, s = UINT32_MAX, known = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!(t[k] > 0) || !isfinite(t[k]))
            continue;
        known++;
        if (f == UINT32_MAX || t[k] < t[f])
            f = k;
        if (s == UINT32_MAX || t[k] > t[s])
            s = k;
    }
    for (uint32_t k = 0; k < n; k++)
        speed[k] = known && t[k] > 0 && isfinite(t[k]) ? (float)(t[f] / t[k]) : 1.0f;
    if (known < 2) {
        *fast = *slow = 0;
        return 1;
    }
    *fast = f, *slow = s;
    return t[s] / t[f];
}

void wk_sci_roles_free(WkSciRoles *r)
{
    for (size_t i = 0; i < r->capj; i++)
        free(r->speed[i]);
    free(r->speed);
    free(r->t);
    free(r->probe);
    *r = (WkSciRoles){0};
}

const float *wk_sci_roles_of(WkSciRoles *r, const WkSchedCtx *ctx, uint32_t job, WkSciStats *st)
{
    const WkCluster *c = wk_sched_cluster(ctx);
    uint32_t G = c->ngroups, n = wk_sched_job_gpus(ctx, job);
    if (G < 2)
        return NULL;
    if ((size_t)job >= r->capj) { /* the per-job arrays stay where they are: earlier results stay valid */
        size_t cap = r->capj ? r->capj : 64;
        while (cap <= job)
            cap *= 2;
        float **sp = realloc(r->speed, cap * sizeof *sp);
        if (!sp)
            return NULL; /* out of memory: no roles for it (the energy treats it as speed 1) */
        for (size_t i = r->capj; i < cap; i++)
            sp[i] = NULL;
        r->speed = sp, r->capj = cap;
    }
    if (r->speed[job])
        return r->speed[job];
    float *speed = malloc(G * sizeof *speed);
    if (!speed || (!r->t && !(r->t = malloc(G * sizeof *r->t)))) {
        free(speed);
        return NULL;
    }
    if (r->capprobe < n) {
        uint32_t *p = realloc(r->probe, (size_t)n * sizeof *p);
        if (!p) {
            free(speed);
            return NULL;
        }
        r->probe = p, r->capprobe = n;
    }
    /* its iteration time alone on the first n GPUs of each group (NaN when
     * the group has fewer, or the model cannot run there) */
    for (uint32_t k = 0; k < G; k++) {
        const WkNodeGroup *g = &c->groups[k];
        r->t[k] = NAN;
        if ((uint64_t)g->nodes * g->gpus_per_node < n)
            continue;
        for (uint32_t i = 0; i < n; i++)
            r->probe[i] = g->first_gpu + i;
        r->t[k] = wk_sched_job_iter_s_on(ctx, job, r->probe, n);
    }
    uint32_t f, s;
    double ratio = wk_sci_speeds(r->t, G, speed, &f, &s);
    WkSciRole role = f == s ? WK_SCI_ROLE_NONE
                            : wk_sci_role(ratio, c->groups[f].sku->bf16_flops / c->groups[s].sku->bf16_flops,
                                          c->groups[f].sku->hbm_bw_bytes_per_s / c->groups[s].sku->hbm_bw_bytes_per_s);
    st->roles[role]++;
    r->speed[job] = speed;
    return speed;
}
