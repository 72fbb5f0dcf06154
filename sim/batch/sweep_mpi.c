/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_mpi.c — the MPI path of `wanka sweep`, built only with -Dmpi=enabled:
 * rank 0 deals points out and writes the index, the other ranks run them
 * with their OpenMP threads. The one-process run is sweep_run.c;
 * wk_sweep_run_mpi keeps the name its callers know. */
#include "sim/batch/sweep_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mpi.h>

/* ---- MPI: points dealt out dynamically, rank 0 gathers ----
 * Rank 0 is the dealer: a worker asks for work (sending the results of its
 * last batch), gets up to `threads` point ids (or none: stop), runs them
 * with its OpenMP threads and writes their traces; rank 0 records every
 * result and writes the index, which is the same bytes as a one-process
 * sweep's because the index depends only on the points' results. */

enum { TAG_ASK = 1, TAG_WORK = 2 };

typedef struct {
    uint64_t id;
    int32_t status;
    char error[WK_ERROR_WHERE_MAX + WK_ERROR_MSG_MAX + 4];
    WkSummary sum;
} MpiResult;

int wk_sweep_mpi_begin(int *rank, int *size)
{
    int provided = 0, inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

void wk_sweep_mpi_end(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin)
        MPI_Finalize();
}

/* Rank 0: answer every worker's ask with up to `batch` ids of the
 * selection, recording the results each ask brings, until all the workers
 * have been told to stop; then write the index. */
static int deal(WkSweep *s, const WkSweepRunOpts *o, int size, int batch, uint64_t *ids, size_t *failed,
                WkError *err)
{
    size_t *sel = NULL, nsel = 0, next = 0;
    int rc = wk_sweep_run_select(s, o, &sel, &nsel, err);
    if (rc < 0)
        return rc;
    int active = size - 1;
    MpiResult *in = calloc((size_t)batch, sizeof *in);
    while (active > 0 && in) {
        MPI_Status st;
        int bytes = 0;
        MPI_Probe(MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        MPI_Recv(in, bytes, MPI_BYTE, st.MPI_SOURCE, TAG_ASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < bytes / (int)sizeof *in; k++) {
            WkSweepPoint *p = &s->points[in[k].id];
            in[k].error[sizeof in[k].error - 1] = '\0';
            wk_sweep_point_set(p, in[k].status, in[k].error, o->dry_run ? NULL : &in[k].sum);
            if (p->status == WK_SWEEP_FAILED)
                (*failed)++;
        }
        int n = 0;
        while (n < batch && next < nsel)
            ids[n++] = sel[next++];
        MPI_Send(ids, n, MPI_UINT64_T, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        if (n == 0)
            active--;
    }
    free(in);
    rc = wk_sweep_run_index(s, o, sel, nsel, err);
    free(sel);
    return rc;
}

/* A worker rank: ask rank 0 for ids (sending the last batch's results), run
 * them, until it answers with none. */
static int work(WkSweep *s, const WkSweepRunOpts *o, int threads, int batch, MpiResult *res, uint64_t *ids,
                size_t *failed, WkError *err)
{
    int rc = 0;
    WkBatchJob *jobs = calloc((size_t)batch, sizeof *jobs);
    WkBatchPut *puts = calloc((size_t)batch * (s->naxes ? s->naxes : 1) + 1, sizeof *puts);
    char **traces = calloc((size_t)batch, sizeof *traces);
    int nres = 0;
    if (!jobs || !puts || !traces)
        rc = wk_error_nomem(err, "sweep"); /* still take part, asking for nothing, so the dealer ends */
    for (;;) {
        MPI_Send(res, nres * (int)sizeof *res, MPI_BYTE, 0, TAG_ASK, MPI_COMM_WORLD);
        MPI_Status st;
        int n = 0;
        MPI_Recv(ids, batch, MPI_UINT64_T, 0, TAG_WORK, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_UINT64_T, &n);
        if (n == 0)
            break;
        memset(jobs, 0, (size_t)batch * sizeof *jobs);
        for (int k = 0; k < n && rc == 0; k++)
            rc = wk_sweep_run_prepare(s, o, &s->points[ids[k]], &jobs[k], puts + (size_t)k * (s->naxes ? s->naxes : 1),
                                      &traces[k], err);
        if (rc == 0)
            wk_batch_run(jobs, (size_t)n, threads, NULL, NULL);
        for (int k = 0; k < n; k++) {
            WkSweepPoint *p = &s->points[ids[k]];
            if (rc == 0)
                wk_sweep_run_take(p, &jobs[k]);
            else {
                char buf[WK_ERROR_WHERE_MAX + WK_ERROR_MSG_MAX + 4];
                wk_sweep_point_set(p, WK_SWEEP_FAILED, wk_error_format(err, buf, sizeof buf), NULL);
            }
            res[k].id = ids[k];
            res[k].status = p->status;
            snprintf(res[k].error, sizeof res[k].error, "%s", wk_sweep_point_error(p));
            memset(&res[k].sum, 0, sizeof res[k].sum);
            if (p->sum) /* a point keeps only its metrics (wk_summary_dup_used) */
                memcpy(&res[k].sum, p->sum, wk_summary_used_size(p->sum));
            if (p->status == WK_SWEEP_FAILED)
                (*failed)++;
            free(traces[k]);
            traces[k] = NULL;
        }
        nres = n;
    }
    free(jobs);
    free(puts);
    free(traces);
    return rc;
}

int wk_sweep_run_mpi(WkSweep *s, const WkSweepRunOpts *o, size_t *failed, WkError *err)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *failed = 0;
    if (o->dry_run)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "--dry-run needs no MPI: run it as one process");
    if (rank == 0 && mkdir(o->dir, 0777) < 0 && errno != EEXIST)
        return wk_error_set(err, WK_E_IO, o->dir, 0, 0, "cannot create the output directory: %s", strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    int threads = o->threads ? o->threads : wk_batch_default_threads();
    int batch = threads > 0 ? threads : 1;
    MpiResult *res = calloc((size_t)batch, sizeof *res);
    uint64_t *ids = calloc((size_t)batch, sizeof *ids);
    if (!res || !ids) {
        free(res);
        free(ids);
        return wk_error_nomem(err, "sweep");
    }
    int rc = rank == 0 ? deal(s, o, size, batch, ids, failed, err)
                       : work(s, o, threads, batch, res, ids, failed, err);
    free(res);
    free(ids);
    return rc;
}
