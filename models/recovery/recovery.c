/* SPDX-License-Identifier: Apache-2.0 */
/* recovery.c — the recovery subsystem as a run's driver attaches it
 * (wk_recovery, recovery.h): its set-up (sections, streams, spares, the
 * first events), the event handlers by kind, repairs, and the hooks that
 * arm and drop checkpoints and let shrunk elastic jobs grow back. */
#include <stdio.h>
#include <stdlib.h>

#include "models/recovery/fail_impl.h"

#define NONE WK_RUNFAIL_NONE

/* An incident is repaired: its GPUs or links come back, the spare pool
 * refills, waiting jobs restart, shrunk elastic jobs grow back, then the
 * policy sees the freed GPUs. */
static int on_repair(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    WkRunFail *f = ctx;
    WkRun *r = f->r;
    WkIncidentRow *row = &f->incidents[ev->target];
    WkTime now = wk_engine_now(e);
    row->end_ns = now;
    int rc = 0;
    if (row->cls < WK_FC_N) {
        WkFailClass c = (WkFailClass)row->cls;
        WkFailDown d = {0};
        rc = wk_fail_class_down(wk_fail_class_get(c), &r->cluster, row->component, &d, err);
        if (rc == 0 && d.nlinks) {
            rc = wk_runfail_set_links(r, f, &d, -1, err);
        } else if (rc == 0) {
            wk_runfail_up_gpus(r, d.gpus, d.ngpus);
            if (d.ngpus)
                wk_runfail_spares_refill(r, r->cluster.gpu_node[d.gpus[0]]);
        }
        wk_fail_class_down_fini(&d);
        if (rc == 0 && ev->payload)
            rc = wk_runfail_next_class_event(r, f, c, row->component, now, err); /* renewal: the next failure of this component */
    } else {
        uint32_t lo, hi;
        wk_runfail_unit_range(r, (WkScope)row->scope, row->component, &lo, &hi);
        uint32_t *gl = malloc((size_t)(hi - lo) * sizeof *gl);
        if (!gl)
            return wk_error_nomem(err, "repaired GPUs");
        for (uint32_t g = lo; g < hi; g++)
            gl[g - lo] = g;
        wk_runfail_up_gpus(r, gl, hi - lo);
        free(gl);
    }
    if (rc == 0)
        rc = wk_runfail_wake_waiting(r, f, err);
    if (rc == 0)
        rc = wk_runfail_grow_elastic(r, f, err);
    if (rc == 0)
        rc = wk_sched_host_release(&r->si, err);
    return rc;
}

/* ---- set-up ---- */

static int runfail_parse(WkRun *r, const WkNode *root, WkError *err)
{
    int rc = wk_fail_parse(wk_node_get(root, "failures"), wk_node_get(root, "checkpoint"), wk_node_get(root, "recovery"),
                           r->cluster.gpus, r->cluster.nodes, r->cluster.pods, &r->fail, err);
    if (rc < 0 || !r->cluster.storage.nodes || !r->cluster.storage.priority || r->fail.mode != WK_CKPT_ASYNC)
        return rc;
    /* an async write runs beside its own job's rings, which under strict
     * priority take its NICs: it would wait for the job to end */
    const WkNode *at = wk_node_get(wk_node_get(wk_node_get(root, "cluster"), "storage"), "sharing");
    return wk_node_error(at, WK_E_INVAL, err, "priority needs checkpoint.mode remote (or memory): an async write "
                         "would wait behind its own job's rings");
}

/* The failure model's event handlers, by event kind. */
static const struct {
    uint16_t kind;
    WkHandler fn;
} handlers[] = {
    {WK_EV_FAIL, wk_runfail_on_fail},
    {WK_EV_REPAIR, on_repair},
    {WK_EV_DETECT, wk_runfail_on_detect},
    {WK_EV_CKPT, wk_runfail_on_ckpt},
    {WK_EV_CKPT_DONE, wk_runfail_on_ckpt_done},
    {WK_EV_EFFECT_END, wk_runfail_on_effect_end},
    {WK_EV_PROC, wk_runfail_on_proc},
    {WK_EV_SCRIPT, wk_runfail_on_script},
    {WK_EV_DIURNAL, wk_runfail_on_diurnal},
};

/* Handlers and named random streams: "fail.detect", "fail.<class>",
 * "fail.process.<n>". */
static int open_streams(WkRun *r, WkRunFail *f, WkError *err)
{
    WkEngine *e = r->eng;
    int rc;
    for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
        if ((rc = wk_engine_on(e, handlers[i].kind, handlers[i].fn, f, err)) < 0)
            return rc;
    if ((rc = wk_engine_rng(e, "fail.detect", &f->detect_rng, err)) < 0)
        return rc;
    for (int cl = 0; cl < WK_FC_N; cl++) {
        char name[48];
        snprintf(name, sizeof name, "fail.%s", wk_fail_class_name((WkFailClass)cl));
        if ((rc = wk_engine_rng(e, name, &f->fail_rng[cl], err)) < 0)
            return rc;
    }
    if (r->fail.nprocs && !(f->proc_rng = calloc(r->fail.nprocs, sizeof *f->proc_rng)))
        return wk_error_nomem(err, "failure process streams");
    for (uint32_t p = 0; p < r->fail.nprocs; p++) {
        char name[48];
        snprintf(name, sizeof name, "fail.process.%u", p);
        if ((rc = wk_engine_rng(e, name, &f->proc_rng[p], err)) < 0)
            return rc;
    }
    return 0;
}

/* The first failure of every class that is on: one aggregated Poisson
 * stream, or one renewal process per component. */
static int first_class_events(WkRun *r, WkRunFail *f, WkError *err)
{
    int rc;
    for (int cl = 0; cl < WK_FC_N; cl++) {
        const WkFailClassSpec *s = &r->fail.cls[cl];
        uint64_t n = wk_runfail_class_count(r, (WkFailClass)cl);
        if (!s->on || n == 0)
            continue;
        if (s->ttf.kind == WK_DIST_EXPONENTIAL) {
            if ((rc = wk_runfail_next_class_event(r, f, (WkFailClass)cl, NONE, 0, err)) < 0)
                return rc;
        } else {
            for (uint64_t k = 0; k < n; k++) /* a renewal process per component */
                if ((rc = wk_runfail_next_class_event(r, f, (WkFailClass)cl, (uint32_t)k, 0, err)) < 0)
                    return rc;
        }
    }
    return 0;
}

/* The first event of every random process: aggregated, or per unit. */
static int first_process_events(WkRun *r, WkRunFail *f, WkError *err)
{
    WkEngine *e = r->eng;
    int rc;
    for (uint32_t p = 0; p < r->fail.nprocs; p++) {
        const WkFailProcess *pr = &r->fail.procs[p];
        WkRng *g = f->proc_rng[p];
        uint64_t nu = wk_runfail_units(r, pr->scope);
        if (pr->ttf.kind == WK_DIST_EXPONENTIAL) {
            WkTime at = wk_time_from_s(wk_rng_exponential(g, pr->ttf.a / (double)nu));
            if ((rc = wk_engine_post_e(e, at, WK_EV_PROC, p, NONE, 0, 0, err)) < 0)
                return rc;
        } else {
            for (uint64_t u = 0; u < nu; u++)
                if ((rc = wk_engine_post_e(e, wk_dist_draw(&pr->ttf, g), WK_EV_PROC, p, (uint32_t)u, 0, 0, err)) < 0)
                    return rc;
        }
    }
    return 0;
}

static int runfail_start(WkRun *r, WkRunFail *f, WkError *err)
{
    uint64_t nl = wk_fabric_link_ids(&r->cluster.fabric);
    if (nl && !(r->share.link_down = calloc(nl, 1)))
        return wk_error_nomem(err, "links down");
    wk_runfail_spares_reserve(r);
    int rc = open_streams(r, f, err);
    if (rc < 0)
        return rc;
    r->diurnal = 1;
    /* scripted incidents run even when the random processes are off */
    for (uint32_t i = 0; i < r->fail.nscripted; i++)
        if ((rc = wk_engine_post_e(r->eng, r->fail.scripted[i].at, WK_EV_SCRIPT, i, 0, 0, 0, err)) < 0)
            return rc;
    if (!r->fail.enabled)
        return 0;
    if ((rc = first_class_events(r, f, err)) < 0 || (rc = first_process_events(r, f, err)) < 0)
        return rc;
    if (r->fail.diurnal_amplitude > 0)
        return wk_engine_post_e(r->eng, 0, WK_EV_DIURNAL, 0, 0, 0, 0, err);
    return 0;
}

/* ---- the subsystem's slots ---- */

static int rec_init(WkRun *r, const WkNode *root, void **st, WkError *err)
{
    WkRunFail *f = calloc(1, sizeof *f);
    if (!f)
        return wk_error_nomem(err, "failures");
    f->r = r;
    *st = f;
    return runfail_parse(r, root, err);
}

static int rec_start(WkRun *r, void *st, WkError *err)
{
    WkRunFail *f = st;
    size_t n = r->wl.n;
    if (!(f->job = calloc(n ? n : 1, sizeof *f->job)))
        return wk_error_nomem(err, "failures");
    for (size_t i = 0; i < n; i++)
        f->job[i].ckpt_left = r->wl.jobs[i].duration;
    return runfail_start(r, f, err);
}

static int rec_started(WkRun *r, void *st, uint32_t job, WkError *err)
{
    return wk_runfail_job_started(r, st, job, err);
}

static void rec_stopping(WkRun *r, void *st, uint32_t job, WkStopWhy why)
{
    (void)why;
    wk_runfail_job_stopped(r, st, job);
}

static int rec_freed(WkRun *r, void *st, WkError *err)
{
    WkRunFail *f = st;
    return f->nshrunk ? wk_runfail_grow_elastic(r, f, err) : 0;
}

/* Under `sharing: priority` a transfer in flight feels the rings of a job
 * that started or stopped at once. */
static int rec_changed(WkRun *r, void *st, WkError *err)
{
    return wk_runfail_store_settle(r, st, err);
}

static void rec_fini(void *st)
{
    WkRunFail *f = st;
    if (!f)
        return;
    free(f->xfer); /* their transfers go with the fabric share */
    free(f->incidents);
    free(f->waitlist);
    free(f->shrunk);
    free(f->proc_rng);
    free(f->job);
    free(f);
}

const WkRunSubsysOps wk_recovery = {
    .name = "recovery",
    .init = rec_init,
    .start = rec_start,
    .started = rec_started,
    .stopping = rec_stopping,
    .changed = rec_changed,
    .freed = rec_freed,
    .fini = rec_fini,
};

void wk_recovery_set_left(WkRunFail *f, uint32_t job, WkTime left)
{
    f->job[job].ckpt_left = f->job[job].snap_left = left;
}
