/* SPDX-License-Identifier: Apache-2.0 */
/* trace_read_place.c — the reader's check of the placement and nodes tables
 * (schema 1.6, docs/trace-format.md "What a reader checks"): every node
 * range lies within the nodes table, every GPU range within each of its
 * nodes, times and job ids in range. Runs at open after the type checks. */
#include "sim/trace/trace_read_impl.h"

#include <stdlib.h>

#include "sim/trace/schema.h"

enum { PL_JOB, PL_SEG, PL_START, PL_END, PL_NODE, PL_NODES, PL_GPU, PL_GPUS, PL_N };
static const char *const pl_cols[PL_N] = {WK_SCHEMA_PL_JOB,  WK_SCHEMA_PL_SEGMENT, WK_SCHEMA_PL_START,
                                          WK_SCHEMA_PL_END,  WK_SCHEMA_PL_NODE,    WK_SCHEMA_PL_NODES,
                                          WK_SCHEMA_PL_GPU,  WK_SCHEMA_PL_GPUS};

/* The nodes table: node = row index, gpus >= 1, first_gpu the running sum.
 * *gpus (malloc'd, caller frees) gets each node's GPUs, *n the rows. */
static int check_nodes(WkTraceRead *r, int64_t **gpus, size_t *n, WkError *err)
{
    int64_t *node = NULL, *first = NULL;
    size_t n1 = 0, n2 = 0;
    *gpus = NULL;
    *n = 0;
    int rc = wk_trace_read_column_i64(r, WK_SCHEMA_NODES, WK_SCHEMA_NODE_NODE, &node, n, err);
    if (rc == 0)
        rc = wk_trace_read_column_i64(r, WK_SCHEMA_NODES, WK_SCHEMA_NODE_GPUS, gpus, &n1, err);
    if (rc == 0)
        rc = wk_trace_read_column_i64(r, WK_SCHEMA_NODES, WK_SCHEMA_NODE_FIRST_GPU, &first, &n2, err);
    int64_t sum = 0;
    for (size_t i = 0; rc == 0 && i < *n; i++) {
        const char *bad = node[i] != (int64_t)i                ? WK_SCHEMA_NODE_NODE
                          : (*gpus)[i] < 1                     ? WK_SCHEMA_NODE_GPUS
                          : first[i] != sum                    ? WK_SCHEMA_NODE_FIRST_GPU
                                                               : NULL;
        if (bad)
            rc = wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                              "%s: %s/%s: row %zu: node %lld with %lld GPUs from GPU %lld: nodes are rows in "
                              "order, each of at least one GPU, numbered on from the one before",
                              r->path, WK_SCHEMA_NODES, bad, i, (long long)node[i], (long long)(*gpus)[i],
                              (long long)first[i]);
        sum += (*gpus)[i];
    }
    free(node);
    free(first);
    if (rc < 0) {
        free(*gpus);
        *gpus = NULL;
    }
    return rc;
}

/* Fewest GPUs of a node in [lo, hi) from a min segment tree t over m leaves. */
static int64_t range_min(const int64_t *t, size_t m, size_t lo, size_t hi)
{
    int64_t best = INT64_MAX;
    for (lo += m, hi += m; lo < hi; lo >>= 1, hi >>= 1) {
        if (lo & 1)
            best = t[lo] < best ? t[lo] : best, lo++;
        if (hi & 1)
            --hi, best = t[hi] < best ? t[hi] : best;
    }
    return best;
}

/* Check one placement row i against the nodes (t: their GPUs, a min tree
 * over m leaves, nn nodes) and the jobs (nj rows; -1 when absent). */
static int check_row(WkTraceRead *r, int64_t *const v[PL_N], size_t i, const int64_t *t, size_t m, size_t nn,
                     long long nj, WkError *err)
{
    long long job = v[PL_JOB][i], node = v[PL_NODE][i], nodes = v[PL_NODES][i], gpu = v[PL_GPU][i],
              gpus = v[PL_GPUS][i];
    if (nj >= 0 && job >= nj)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s/%s: row %zu: job %lld is not in jobs (%lld rows)",
                            r->path, WK_SCHEMA_PLACEMENT, WK_SCHEMA_PL_JOB, i, job, nj);
    if (v[PL_START][i] < 0 || v[PL_END][i] < v[PL_START][i])
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s/%s: row %zu: [%lld, %lld) is not a time span",
                            r->path, WK_SCHEMA_PLACEMENT, WK_SCHEMA_PL_END, i, (long long)v[PL_START][i],
                            (long long)v[PL_END][i]);
    if (nodes < 1 || (unsigned long long)node >= nn || (unsigned long long)nodes > nn - (unsigned long long)node)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                            "%s: %s/%s: row %zu: nodes %lld .. %lld are not among the %zu rows of %s", r->path,
                            WK_SCHEMA_PLACEMENT, WK_SCHEMA_PL_NODES, i, node, node + nodes - 1, nn, WK_SCHEMA_NODES);
    int64_t least = range_min(t, m, (size_t)node, (size_t)(node + nodes));
    if (gpus < 1 || gpu > least || gpus > least - gpu)
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0,
                            "%s: %s/%s: row %zu: GPUs %lld .. %lld of each node are not on nodes %lld .. %lld "
                            "(the smallest has %lld GPUs)",
                            r->path, WK_SCHEMA_PLACEMENT, WK_SCHEMA_PL_GPUS, i, gpu, gpu + gpus - 1, node,
                            node + nodes - 1, (long long)least);
    return 0;
}

/* Rows of the table at path (a 1-D table: checked before), -1 when absent or unreadable. */
static long long table_rows(WkTraceRead *r, const char *path)
{
    if (!wk_trace_read_has(r, path))
        return -1;
    hid_t dset = H5Dopen2(r->file, path, H5P_DEFAULT);
    hid_t space = dset >= 0 ? H5Dget_space(dset) : H5I_INVALID_HID;
    hsize_t dims[1] = {0};
    long long n = space >= 0 && H5Sget_simple_extent_dims(space, dims, NULL) == 1 ? (long long)dims[0] : -1;
    if (space >= 0)
        H5Sclose(space);
    if (dset >= 0)
        H5Dclose(dset);
    return n;
}

int wk_trace_read_check_placement(WkTraceRead *r, WkError *err)
{
    if (r->schema != &wk_schema_trace || !wk_trace_read_has(r, WK_SCHEMA_PLACEMENT))
        return 0;
    if (!wk_trace_read_has(r, WK_SCHEMA_NODES))
        return wk_error_set(err, WK_E_INVAL, NULL, 0, 0, "%s: %s: the table is there without the table %s", r->path,
                            WK_SCHEMA_PLACEMENT, WK_SCHEMA_NODES);
    int64_t *ng = NULL, *v[PL_N] = {0}, *t = NULL;
    size_t nn = 0, n = 0;
    int rc = check_nodes(r, &ng, &nn, err);
    for (int c = 0; rc == 0 && c < PL_N; c++) {
        size_t k = 0;
        rc = wk_trace_read_column_i64(r, WK_SCHEMA_PLACEMENT, pl_cols[c], &v[c], &k, err);
        n = k;
    }
    long long nj = rc == 0 ? table_rows(r, WK_SCHEMA_JOBS) : -1;
    size_t m = 1;
    while (rc == 0 && m < nn)
        m <<= 1;
    if (rc == 0 && n && !(t = malloc(2 * m * sizeof *t)))
        rc = wk_error_nomem(err, "placement check");
    if (rc == 0 && t) {
        for (size_t i = 0; i < m; i++)
            t[m + i] = i < nn ? ng[i] : INT64_MAX;
        for (size_t i = m - 1; i >= 1; i--)
            t[i] = t[2 * i] < t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = check_row(r, v, i, t, m, nn, nj, err);
    free(t);
    free(ng);
    for (int c = 0; c < PL_N; c++)
        free(v[c]);
    return rc;
}
