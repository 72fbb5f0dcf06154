/* SPDX-License-Identifier: Apache-2.0 */
/* alibaba.c — importer for the pod list of Alibaba's GPU cluster trace
 * (alibaba/clusterdata, cluster-trace-gpu-v2023, openb_pod_list_*.csv;
 * columns name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
 * pod_phase, creation_time, deletion_time, scheduled_time). Columns are
 * found by header name; num_gpu, gpu_milli, creation_time, scheduled_time
 * and deletion_time are required, others ignored. A pod is a job submitted
 * at creation_time that runs from scheduled_time to deletion_time (seconds);
 * a pod never scheduled (empty scheduled_time) and a pod asking for no GPU
 * are skipped. A fractional pod (num_gpu 1, gpu_milli 1 to 999) keeps its
 * share as the job's gpu_milli: with `gpu_sharing: true` the run packs such
 * jobs onto shared GPUs (docs/models.md, "GPU sharing"), without it each
 * takes one whole GPU. gpu_milli is the pod's share of the GPU's compute;
 * the pod list has no GPU-memory column, so memory shares are not checked,
 * and durations are the trace's (a share does not stretch them). Submit
 * times become seconds from the earliest creation. Errors are
 * "file:line:col: column: message" for a bad field, "file:line: message"
 * for a row. */
#include "models/workload/workload.h"

#include "models/workload/csv.h"

#include "sim/core/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE_BYTES (INT64_C(1) << 30) /* docs/limits.md */
#define MAX_SPAN_S (WK_WORKLOAD_MAX_TIME / WK_NS_PER_S)
enum { MAXF = 64 };

typedef WkCsvField Field;

enum { C_NGPU, C_MILLI, C_CREATE, C_SCHED, C_DELETE, NCOL };
static const char *const col_names[NCOL] = {"num_gpu", "gpu_milli", "creation_time", "scheduled_time", "deletion_time"};

typedef struct {
    const char *path;
    int col[NCOL];
    size_t ncols;
    int64_t t0;
    int64_t *ts;
    size_t tscap;
} Pods;

/* A non-negative integer of at most 18 digits; -1 when f is not one. */
static int64_t uint_field(const Field *f)
{
    if (f->len == 0 || f->len > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < f->len; i++) {
        if (f->p[i] < '0' || f->p[i] > '9')
            return -1;
        v = v * 10 + (f->p[i] - '0');
    }
    return v;
}

static int header(Pods *pd, const Field *f, size_t nf, long line, WkError *err)
{
    pd->ncols = nf;
    for (size_t i = 0; i < nf && i < MAXF; i++)
        for (int c = 0; c < NCOL; c++)
            if (f[i].len == strlen(col_names[c]) && memcmp(f[i].p, col_names[c], f[i].len) == 0)
                pd->col[c] = (int)i;
    for (int c = 0; c < NCOL; c++)
        if (pd->col[c] < 0)
            return wk_error_set(err, WK_E_INVAL, pd->path, line, 0,
                                "%s: missing column in the header (expected num_gpu, gpu_milli, creation_time, "
                                "scheduled_time, deletion_time)",
                                col_names[c]);
    return 0;
}

static int bad(const Pods *pd, long line, const Field *f, const Field *fd, const char *name, const char *what,
               WkError *err)
{
    return wk_error_set(err, WK_E_INVAL, pd->path, line, wk_csv_column(f[0].p, fd), "%s: %s, got '%.*s'", name, what,
                        (int)(fd->len > 40 ? 40 : fd->len), fd->p);
}

/* A pod row: its job, or nothing (*skip) for a pod that never ran on a GPU. */
static int row(Pods *pd, WkWorkload *out, const Field *f, size_t nf, long line, WkError *err)
{
    if (nf != pd->ncols)
        return wk_error_set(err, WK_E_INVAL, pd->path, line, 0, "row: expected %zu fields, got %zu", pd->ncols, nf);
    int64_t v[NCOL];
    for (int c = 0; c < NCOL; c++) {
        const Field *fd = &f[pd->col[c]];
        v[c] = uint_field(fd);
        if (c == C_SCHED && fd->len == 0)
            continue; /* never scheduled */
        if (v[c] < 0)
            return bad(pd, line, f, fd, col_names[c], "expected an integer >= 0", err);
    }
    if (v[C_NGPU] > (int64_t)WK_JOB_MAX_GPUS)
        return bad(pd, line, f, &f[pd->col[C_NGPU]], "num_gpu", "more GPUs than a job may ask for (4000000)", err);
    if (v[C_MILLI] > 1000)
        return bad(pd, line, f, &f[pd->col[C_MILLI]], "gpu_milli", "expected thousandths of a GPU, 0 to 1000", err);
    for (int c = C_CREATE; c < NCOL; c++)
        if (v[c] > MAX_SPAN_S)
            return bad(pd, line, f, &f[pd->col[c]], col_names[c], "expected seconds up to 2305843009 (73 years)", err);
    if (v[C_NGPU] == 0 || v[C_SCHED] < 0)
        return 0; /* a CPU pod, or one never scheduled */
    if (v[C_SCHED] < v[C_CREATE])
        return bad(pd, line, f, &f[pd->col[C_SCHED]], "scheduled_time", "before creation_time", err);
    if (v[C_DELETE] < v[C_SCHED])
        return bad(pd, line, f, &f[pd->col[C_DELETE]], "deletion_time", "before scheduled_time", err);
    WkJobSpec js = {.duration = (v[C_DELETE] - v[C_SCHED]) * WK_NS_PER_S, .gpus = (uint32_t)v[C_NGPU]};
    if (v[C_NGPU] == 1 && v[C_MILLI] > 0 && v[C_MILLI] < 1000)
        js.gpu_milli = (uint16_t)v[C_MILLI];
    if (js.duration < 1)
        js.duration = 1;
    if (out->n == pd->tscap) {
        pd->tscap = pd->tscap ? pd->tscap * 2 : 1024;
        int64_t *nts = realloc(pd->ts, pd->tscap * sizeof *nts);
        if (!nts)
            return wk_error_set(err, WK_E_NOMEM, pd->path, 0, 0, "out of memory");
        pd->ts = nts;
    }
    pd->ts[out->n] = v[C_CREATE];
    int rc = wk_workload_push(out, &js);
    if (rc < 0)
        return rc == WK_E_RANGE ? wk_error_set(err, rc, pd->path, line, 0,
                                               "row: more than %d jobs, the limit of a workload (docs/limits.md)",
                                               WK_WORKLOAD_MAX_JOBS)
                                : wk_error_set(err, WK_E_NOMEM, pd->path, 0, 0, "out of memory");
    if (v[C_CREATE] < pd->t0)
        pd->t0 = v[C_CREATE];
    return 0;
}

static int load(const WkNode *sec, const WkWorkloadCtx *ctx, WkWorkload *out, WkError *err)
{
    static const char *const known[] = {"source", "trace", "comm", "quotas", "gpu_sharing", "sku_speed", NULL};
    const char *rel = NULL;
    int rc = wk_node_expect_keys(sec, known, err);
    if (rc < 0 || (rc = wk_node_str(sec, "trace", 1, &rel, err)) < 0)
        return rc;
    char path[4096];
    if (!wk_file_resolve(ctx->base_dir, rel, path, sizeof path))
        return wk_node_error(wk_node_get(sec, "trace"), WK_E_RANGE, err, "path too long");
    char *buf = NULL;
    size_t len = 0;
    if ((rc = wk_file_read_regular(path, "a CSV trace", MAX_FILE_BYTES, &buf, &len, err)) < 0)
        return rc;
    Pods pd = {.path = path, .t0 = INT64_MAX};
    for (int c = 0; c < NCOL; c++)
        pd.col[c] = -1;
    Field f[MAXF];
    long line = 0;
    int have_header = 0;
    const char *p = buf + wk_file_bom_len(buf, len), *end = buf + len;
    while (p < end) {
        const char *le, *r = wk_file_next_line(&p, end, &le);
        line++;
        if (le == r)
            continue;
        size_t nf = wk_csv_split(r, le, ',', 0, f, MAXF);
        if (!have_header) {
            rc = header(&pd, f, nf, line, err);
            have_header = 1;
        }
        else
            rc = row(&pd, out, f, nf, line, err);
        if (rc < 0)
            goto fail;
    }
    if (!have_header) {
        rc = wk_error_set(err, WK_E_INVAL, path, 0, 0, "empty trace file (no header)");
        goto fail;
    }
    for (size_t i = 0; i < out->n; i++)
        out->jobs[i].submit = (pd.ts[i] - pd.t0) * WK_NS_PER_S;
    free(pd.ts);
    free(buf);
    return 0;
fail:
    free(pd.ts);
    free(buf);
    return rc;
}

const WkWorkloadSource wk_workload_alibaba = {
    .abi = WK_WORKLOAD_ABI,
    .name = "alibaba",
    .description = "Alibaba GPU cluster trace (clusterdata gpu-v2023), pod list CSV",
    .load = load,
};
