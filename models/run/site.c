/* SPDX-License-Identifier: Apache-2.0 */
/* site.c — a run as one site of a network: the calls of run.h's "site of a
 * network" section through which models/network reads a site's state and
 * holds or gives back the parts of jobs spanning sites. No network logic
 * here: each call is a view of, or one step on, this run's own state. */
#include "models/run/run_impl.h"

#include <math.h>
#include <stdalign.h>

/* a column appended after any row starts at the row's size (run.h) */
_Static_assert(alignof(WkRunJobRow) == 8 && sizeof(WkRunJobRow) % 8 == 0, "jobs rows 8-byte aligned");
_Static_assert(alignof(WkSampleRow) == 8 && sizeof(WkSampleRow) % 8 == 0, "sample rows 8-byte aligned");
_Static_assert(alignof(WkFacilityRow) == 8 && sizeof(WkFacilityRow) % 8 == 0, "facility rows 8-byte aligned");
_Static_assert(alignof(WkIncidentRow) == 8 && sizeof(WkIncidentRow) % 8 == 0, "incident rows 8-byte aligned");

void wk_run_site_set_route(WkRun *r, const int32_t *assign, const WkTime *delay)
{
    r->site.assign = assign;
    r->site.delay = delay;
}

void wk_run_site_set_parts(WkRun *r, uint8_t *part) { r->site.part = part; }

WkRunSiteState wk_run_site_state(const WkRun *r)
{
    return (WkRunSiteState){.finished = r->finished, .interrupted = r->interrupted, .end_t = r->end_t,
                            .now = r->eng ? wk_engine_now(r->eng) : 0};
}

void wk_run_site_clock(WkRun *r, WkTime t)
{
    if (!r->finished)
        wk_engine_advance_clock(r->eng, t);
}

WkRunSiteJob wk_run_site_job(const WkRun *r, uint32_t job)
{
    const WkJobRt *rt = &r->rt[job];
    return (WkRunSiteJob){.state = rt->state, .start = rt->start, .end = rt->end, .left_ns = rt->left_ns,
                          .seg_start = rt->seg_start, .gpus = r->wl.jobs[job].gpus, .placed = rt->gpus != NULL,
                          .stalled = rt->hung || rt->waiting};
}

uint32_t wk_run_free_gpus(const WkRun *r) { return r->pool.nfree; }
int wk_run_site_can_run(const WkRun *r, uint32_t job) { return r->site.ok[job]; }
const WkCluster *wk_run_cluster(const WkRun *r) { return &r->cluster; }
const WkWorkload *wk_run_workload(const WkRun *r) { return &r->wl; }
const WkFacilitySpec *wk_run_facility(const WkRun *r) { return &r->fac; }

double wk_run_site_job_w_per_gpu(const WkRun *r)
{
    const WkCluster *c = &r->cluster;
    return c->gpus ? (wk_account_gpu_draw(c, 0, 1) - wk_account_gpu_draw(c, 0, 0)) * c->power.pue : 0;
}

void wk_run_site_jobs_energy(const WkRun *r, double *kwh, double *cost, double *co2_t)
{
    const WkAccount *a = &r->acct;
    const WkFacilitySpec *f = &r->fac;
    double per_gpu = wk_run_site_job_w_per_gpu(r), j = 0, c = 0, kg = 0;
    for (size_t i = 0; i < a->nsegs; i++) {
        const WkAllocSeg *g = &a->segs[i];
        if (!wk_seg_allocated(g))
            continue;
        double w = (double)g->n * per_gpu;
        j += w * wk_time_to_s(g->to - g->from);
        double ci = 0, ki = 0;
        if (f->ntariff && wk_facility_charge(f, g->from, g->to, w, &ci, &ki) == 0) {
            c += ci;
            kg += ki;
        }
    }
    *kwh += j / 3.6e6;
    *cost += f->ntariff ? c : NAN;
    *co2_t += f->ntariff ? kg / 1000 : NAN;
}

int wk_run_site_part_iter_s(const WkRun *r, const WkModelSpec *m, uint32_t gpus, const WkPerfWan *wan,
                            double *iter_s)
{
    WkPerfResult res;
    uint8_t pc;
    WkError e;
    wk_error_clear(&e);
    int rc = wk_eval_job_wan(&r->cluster, m, NULL, gpus, &r->perf, wan, &res, NULL, &pc, &e);
    if (rc == 0)
        *iter_s = res.iter_s;
    return rc;
}

void wk_run_site_make_part(WkRun *r, uint32_t job, uint32_t gpus, WkTime duration)
{
    WkJobSpec *js = &r->wl.jobs[job];
    WkJobRt *rt = &r->rt[job];
    js->gpus = gpus;
    js->model = 0;
    js->duration = duration;
    rt->left_ns = duration;
    wk_recovery_set_left(wk_run_fail(r), job, duration); /* its checkpoints restore the part, not the job */
    rt->gpus_req = gpus;
    rt->est_s = 0;
    r->site.ok[job] = 1;
}

int wk_run_site_gate(WkRun *r, uint32_t job, int held, WkTime left_ns, WkTime t, WkError *err)
{
    wk_run_site_clock(r, t);
    return wk_progress_gate(r, job, held, left_ns, t, err);
}

int wk_run_site_evict(WkRun *r, uint32_t job, WkTime t, WkError *err)
{
    int rc = wk_lifecycle_requeue(r, job, err);
    if (rc == 0)
        rc = wk_sched_host_incident(&r->si, &job, 1, err);
    if (rc == 0)
        wk_run_resample(r, t);
    return rc;
}

WkRunRows wk_run_rows(const WkRun *r, WkRunTable table)
{
    switch (table) {
    case WK_RUN_TABLE_CLUSTER:
        return (WkRunRows){r->acct.samples, r->acct.nsamples, sizeof(WkSampleRow), wk_report_sample_fields,
                           wk_report_nsample_fields};
    case WK_RUN_TABLE_FACILITY:
        return (WkRunRows){wk_run_budget(r)->rows, wk_run_budget(r)->nrows, sizeof(WkFacilityRow), wk_report_facility_fields,
                           wk_report_nfacility_fields};
    case WK_RUN_TABLE_INCIDENTS:
        return (WkRunRows){wk_run_fail(r)->incidents, wk_run_fail(r)->nincidents, sizeof(WkIncidentRow), wk_report_incident_fields,
                           wk_report_nincident_fields};
    default:
        return (WkRunRows){NULL, r->wl.n, sizeof(WkRunJobRow), wk_report_job_fields, wk_report_njob_fields};
    }
}
