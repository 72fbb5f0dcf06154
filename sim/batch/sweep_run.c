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
        for (size_t m = 0; p->status == WK_SWEEP_OK && p->sum && m < p->sum->n; m++) {
            size_t k = 0;
            while (k < ix->nmetrics && strcmp(ix->metrics[k], p->sum->m[m].name) != 0)
                k++;
            if (k == ix->nmetrics && k < mcap) {
                ix->metrics[k] = (char *)p->sum->m[m].name;
                ix->units[k] = (char *)p->sum->m[m].units;
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
    int ok = p->status == WK_SWEEP_OK && p->sum;
    r->id = (int64_t)p->id;
    r->status = (uint8_t)p->status;
    r->seed = p->has_seed ? (int64_t)p->seed : ok ? (int64_t)p->sum->seed : -1;
    r->scheduler = (char *)(p->scheduler ? p->scheduler : ok ? p->sum->scheduler : "");
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
    r->error = (char *)wk_sweep_point_error(p);
    for (size_t m = 0; m < ix->nmetrics; m++) {
        const WkMetric *mm = ok ? wk_summary_get(p->sum, ix->metrics[m]) : NULL;
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

const char *wk_sweep_point_error(const WkSweepPoint *p) { return p->error ? p->error : ""; }

void wk_sweep_point_set(WkSweepPoint *p, int status, const char *error, const WkSummary *sum)
{
    static const char oom[] = "out of memory keeping the point's outcome";
    free(p->error);
    free(p->sum);
    p->error = NULL;
    p->sum = NULL;
    p->status = status;
    if (status == WK_SWEEP_OK && sum) {
        if (!(p->sum = wk_summary_dup_used(sum))) { /* its metrics only: a sweep keeps one per point */
            p->status = WK_SWEEP_FAILED;
            error = oom;
        }
    }
    if (error && error[0])
        p->error = strdup(error);
}

void wk_sweep_run_take(WkSweepPoint *p, const WkBatchJob *j)
{
    char buf[WK_ERROR_WHERE_MAX + WK_ERROR_MSG_MAX + 4];
    buf[0] = '\0';
    if (j->rc != 0)
        wk_error_format(&j->err, buf, sizeof buf);
    int status = j->interrupted ? WK_SWEEP_NOT_RUN : j->rc == 0 ? WK_SWEEP_OK : WK_SWEEP_FAILED;
    wk_sweep_point_set(p, status, buf, status == WK_SWEEP_OK && !j->prepare_only ? &j->sum : NULL);
}

/* wk_batch_run_each's view of a sweep run: job i is point sel[i]. */
typedef struct {
    WkSweep *s;
    const WkSweepRunOpts *o;
    const size_t *sel;
} Each;

static int each_make(void *user, size_t i, WkBatchJob *j)
{
    const Each *c = user;
    const WkSweep *s = c->s;
    WkBatchPut *pp = calloc(s->naxes ? s->naxes : 1, sizeof *pp);
    if (!pp)
        return wk_error_nomem(&j->err, "sweep");
    char *trace = NULL;
    int rc = wk_sweep_run_prepare(s, c->o, &s->points[c->sel[i]], j, pp, &trace, &j->err);
    j->opts.interrupt = c->o->interrupt;
    if (rc < 0) {
        free(pp);
        free(trace);
        j->puts = NULL;
        j->trace = NULL;
    }
    return rc;
}

static void each_take(void *user, size_t i, const WkBatchJob *j)
{
    const Each *c = user;
    wk_sweep_run_take(&c->s->points[c->sel[i]], j);
    free((void *)j->puts);
    free((void *)j->trace);
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
    if (rc < 0)
        goto done;
    /* each point's job is made when a thread takes it and dropped when it
     * ends: memory holds one job per thread, not one per point */
    Each ctx = {.s = s, .o = o, .sel = sel};
    *failed = wk_batch_run_each(nsel, o->threads, each_make, each_take, &ctx, o->progress, o->progress_user);
    int stopped = 0;
    for (size_t i = 0; i < nsel; i++)
        stopped |= s->points[sel[i]].status == WK_SWEEP_NOT_RUN;
    if (interrupted)
        *interrupted = stopped;
    if (!o->dry_run && !stopped)
        rc = wk_sweep_run_index(s, o, sel, nsel, err);
done:
    free(sel);
    return rc;
}
