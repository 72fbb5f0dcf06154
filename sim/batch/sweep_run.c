/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_run.c — run a loaded sweep's points (the shard's) through
 * sim/batch.h with OpenMP threads and write the index through
 * sim/sweep_index.h. Loading and expanding the points is sweep.c; the MPI
 * path is sweep_mpi.c. */
#include "sim/batch/sweep_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *wk_sweep_index_path(const char *dir, int shard_i, int shard_n, char *buf, size_t n)
{
    if (shard_n > 1)
        snprintf(buf, n, "%s/sweep-shard-%d-of-%d.h5", dir, shard_i, shard_n);
    else
        snprintf(buf, n, "%s/sweep.h5", dir);
    return buf;
}

int wk_sweep_run_select(const WkSweep *s, const WkSweepRunOpts *o, size_t **out, size_t *nout, WkError *err)
{
    int shard_n = o->shard_n > 1 ? o->shard_n : 1;
    size_t *sel = calloc(s->npoints ? s->npoints : 1, sizeof *sel);
    size_t nsel = 0;
    *out = sel;
    *nout = 0;
    if (!sel)
        return wk_error_nomem(err, "sweep");
    for (size_t id = 0; id < s->npoints; id++)
        if (id % (size_t)shard_n == (size_t)o->shard_i)
            sel[nsel++] = id;
    *nout = nsel;
    return 0;
}

/* The metric names (and units) of the points run ok, in first-seen order. */
static void index_metrics(WkSweepIndex *ix, const WkSweep *s, const size_t *sel, size_t nsel, size_t mcap)
{
    for (size_t i = 0; i < nsel; i++) {
        const WkSweepPoint *p = &s->points[sel[i]];
        for (size_t m = 0; p->status == WK_SWEEP_OK && m < p->sum.n; m++) {
            size_t k = 0;
            while (k < ix->nmetrics && strcmp(ix->metrics[k], p->sum.m[m].name) != 0)
                k++;
            if (k == ix->nmetrics && k < mcap) {
                ix->metrics[k] = (char *)p->sum.m[m].name;
                ix->units[k] = (char *)p->sum.m[m].units;
                ix->nmetrics++;
            }
        }
    }
}

/* Fill the index row r of point p (its arrays owned by the row). */
static int index_row(WkSweepRow *r, const WkSweepIndex *ix, const WkSweep *s, const WkSweepRunOpts *o,
                     const WkSweepPoint *p, WkError *err)
{
    static char blank[] = "";
    int ok = p->status == WK_SWEEP_OK;
    r->id = (int64_t)p->id;
    r->status = (uint8_t)p->status;
    r->seed = p->has_seed ? (int64_t)p->seed : ok ? (int64_t)p->sum.seed : -1;
    r->scheduler = (char *)(p->scheduler ? p->scheduler : ok ? p->sum.scheduler : "");
    r->axis = calloc(s->naxes ? s->naxes : 1, sizeof *r->axis);
    r->metric = calloc(ix->nmetrics ? ix->nmetrics : 1, sizeof *r->metric);
    size_t olen = 1;
    for (size_t k = 0; k < p->nsets; k++)
        olen += strlen(p->sets[k]) + 1;
    r->overrides = calloc(1, olen);
    if (!r->axis || !r->metric || !r->overrides)
        return wk_error_nomem(err, "sweep");
    for (size_t k = 0; k < p->nsets; k++) {
        strcat(r->overrides, p->sets[k]);
        strcat(r->overrides, "\n");
    }
    for (size_t a = 0; a < s->naxes; a++)
        r->axis[a] = s->axes[a].text[p->pick[a]];
    r->trace = ok && !o->no_traces ? (char *)p->trace : blank;
    r->error = (char *)p->error;
    for (size_t m = 0; m < ix->nmetrics; m++) {
        const WkMetric *mm = ok ? wk_summary_get(&p->sum, ix->metrics[m]) : NULL;
        r->metric[m] = mm ? mm->value : NAN;
    }
    return 0;
}

int wk_sweep_run_index(const WkSweep *s, const WkSweepRunOpts *o, const size_t *sel, size_t nsel, WkError *err)
{
    WkSweepIndex ix;
    memset(&ix, 0, sizeof ix);
    char shard[48] = "";
    if (o->shard_n > 1)
        snprintf(shard, sizeof shard, "%d/%d", o->shard_i, o->shard_n);
    const char *scen = NULL;
    if (s->base->root)
        wk_node_str(s->base->root, "name", 0, &scen, NULL);
    ix.sweep_name = s->name;
    ix.sweep_file = s->file;
    ix.sweep_text = s->spec->text ? s->spec->text : "";
    ix.sweep_id = (char *)s->id;
    ix.scenario_name = (char *)(scen ? scen : "unnamed");
    ix.shard = shard;
    ix.npoints = (int64_t)s->npoints;
    ix.naxes = s->naxes;
    int rc = 0;
    size_t mcap = WK_SUMMARY_MAX;
    ix.axes = calloc(s->naxes ? s->naxes : 1, sizeof *ix.axes);
    ix.metrics = calloc(mcap, sizeof *ix.metrics);
    ix.units = calloc(mcap, sizeof *ix.units);
    ix.rows = calloc(nsel ? nsel : 1, sizeof *ix.rows);
    if (!ix.axes || !ix.metrics || !ix.units || !ix.rows) {
        rc = wk_error_nomem(err, "sweep");
        goto done;
    }
    for (size_t a = 0; a < s->naxes; a++)
        ix.axes[a] = s->axes[a].path;
    index_metrics(&ix, s, sel, nsel, mcap);
    for (size_t i = 0; i < nsel && rc == 0; i++)
        rc = index_row(&ix.rows[ix.nrows++], &ix, s, o, &s->points[sel[i]], err);
    char path[4096];
    if (rc == 0)
        rc = wk_sweep_index_write(&ix, wk_sweep_index_path(o->dir, o->shard_i, o->shard_n, path, sizeof path), err);
done:
    for (size_t i = 0; i < ix.nrows; i++) {
        free(ix.rows[i].axis);
        free(ix.rows[i].metric);
        free(ix.rows[i].overrides);
    }
    free(ix.rows);
    free(ix.axes);
    free(ix.metrics);
    free(ix.units);
    return rc;
}

int wk_sweep_run_prepare(const WkSweep *s, const WkSweepRunOpts *o, const WkSweepPoint *p, WkBatchJob *j,
                         WkBatchPut *pp, char **trace, WkError *err)
{
    for (size_t a = 0; a < s->naxes; a++)
        pp[a] = (WkBatchPut){s->axes[a].path, s->axes[a].values[p->pick[a]]};
    j->base = s->base;
    j->puts = pp;
    j->nputs = s->naxes;
    j->opts.has_seed = p->has_seed;
    j->opts.seed = p->seed;
    j->opts.scheduler = p->scheduler;
    j->opts.sets = (const char *const *)p->sets;
    j->opts.nsets = p->nsets;
    j->prepare_only = o->dry_run;
    *trace = NULL;
    if (!o->dry_run && !o->no_traces) {
        size_t l = strlen(o->dir) + strlen(p->trace) + 2;
        if (!(*trace = malloc(l)))
            return wk_error_nomem(err, "sweep");
        snprintf(*trace, l, "%s/%s", o->dir, p->trace);
        j->trace = *trace;
    }
    return 0;
}

void wk_sweep_run_take(WkSweepPoint *p, const WkBatchJob *j)
{
    p->status = j->interrupted ? WK_SWEEP_NOT_RUN : j->rc == 0 ? WK_SWEEP_OK : WK_SWEEP_FAILED;
    p->error[0] = '\0';
    if (j->rc != 0)
        wk_error_format(&j->err, p->error, sizeof p->error);
    p->sum = j->sum;
}

int wk_sweep_run(WkSweep *s, const WkSweepRunOpts *o, size_t *failed, WkError *err)
{
    return wk_sweep_run_stoppable(s, o, failed, NULL, err);
}

int wk_sweep_run_stoppable(WkSweep *s, const WkSweepRunOpts *o, size_t *failed, int *interrupted, WkError *err)
{
    *failed = 0;
    if (interrupted)
        *interrupted = 0;
    int shard_n = o->shard_n > 1 ? o->shard_n : 1;
    if (o->shard_i < 0 || o->shard_i >= shard_n)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "--shard %d/%d: expected I/N with 0 <= I < N", o->shard_i,
                            o->shard_n);
    if (!o->dry_run && mkdir(o->dir, 0777) < 0 && errno != EEXIST)
        return wk_error_set(err, WK_E_IO, o->dir, 0, 0, "cannot create the output directory: %s", strerror(errno));
    size_t *sel = NULL, nsel = 0;
    int rc = wk_sweep_run_select(s, o, &sel, &nsel, err);
    WkBatchJob *jobs = calloc(s->npoints ? s->npoints : 1, sizeof *jobs);
    WkBatchPut *puts = calloc(s->npoints * (s->naxes ? s->naxes : 1) + 1, sizeof *puts);
    char **traces = calloc(s->npoints ? s->npoints : 1, sizeof *traces);
    if (rc < 0)
        goto done;
    if (!jobs || !puts || !traces) {
        rc = wk_error_nomem(err, "sweep");
        goto done;
    }
    for (size_t i = 0; i < nsel; i++)
        if ((rc = wk_sweep_run_prepare(s, o, &s->points[sel[i]], &jobs[i], puts + i * (s->naxes ? s->naxes : 1),
                                       &traces[i], err)) < 0)
            goto done;
    for (size_t i = 0; i < nsel; i++)
        jobs[i].opts.interrupt = o->interrupt;
    *failed = wk_batch_run(jobs, nsel, o->threads, o->progress, o->progress_user);
    int stopped = 0;
    for (size_t i = 0; i < nsel; i++) {
        wk_sweep_run_take(&s->points[sel[i]], &jobs[i]);
        stopped |= jobs[i].interrupted;
    }
    if (interrupted)
        *interrupted = stopped;
    if (!o->dry_run && !stopped)
        rc = wk_sweep_run_index(s, o, sel, nsel, err);
done:
    for (size_t i = 0; traces && i < nsel; i++)
        free(traces[i]);
    free(traces);
    free(puts);
    free(jobs);
    free(sel);
    return rc;
}
