/* SPDX-License-Identifier: Apache-2.0 */
/* test_trace.c — the HDF5 trace writer: traces are written with wk_trace_*
 * and read back independently with the HDF5 C API (values, types, chunking,
 * attributes, enum names), plus the temp-file/rename/abort guarantees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "sim/trace/schema.h"
#include "sim/trace/trace.h"
#include "sim/trace/trace_read.h"
#include "tests/unit/trace_fixture.h"

/* ---- fixtures and helpers -------------------------------------------------- */

static void join(char *out, size_t n, const TraceDir *d, const char *name)
{
    snprintf(out, n, "%s/%s", d->path, name);
}

static void tmp_name(char *out, size_t n, const char *path)
{
    snprintf(out, n, "%s.tmp.%ld", path, (long)getpid());
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int count_entries(const TraceDir *d)
{
    DIR *dir = opendir(d->path);
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(dir);
    return n;
}

static hid_t open_ro(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

/* A scalar string attribute of obj; must be fixed-length UTF-8 (the reader
 * refuses variable-length ones). The caller frees the result. */
static char *read_str_attr(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t ft = H5Aget_type(a);
    assert_int_equal(H5Tget_class(ft), H5T_STRING);
    assert_true(H5Tis_variable_str(ft) == 0);
    assert_int_equal(H5Tget_cset(ft), H5T_CSET_UTF8);
    size_t size = H5Tget_size(ft);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, size + 1);
    H5Tset_strpad(mt, H5T_STR_NULLTERM);
    H5Tset_cset(mt, H5T_CSET_UTF8);
    char *copy = calloc(1, size + 1);
    assert_non_null(copy);
    assert_true(H5Aread(a, mt, copy) >= 0);
    H5Tclose(mt);
    H5Tclose(ft);
    H5Aclose(a);
    return copy;
}

static void assert_str_attr(hid_t obj, const char *name, const char *want)
{
    char *v = read_str_attr(obj, name);
    assert_string_equal(v, want);
    free(v);
}

static int64_t read_i64_attr(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t ft = H5Aget_type(a);
    assert_true(H5Tequal(ft, H5T_STD_I64LE) > 0);
    int64_t v = 0;
    assert_true(H5Aread(a, H5T_NATIVE_INT64, &v) >= 0);
    H5Tclose(ft);
    H5Aclose(a);
    return v;
}

static double read_f64_attr(hid_t obj, const char *name)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t ft = H5Aget_type(a);
    assert_true(H5Tequal(ft, H5T_IEEE_F64LE) > 0);
    double v = 0;
    assert_true(H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0);
    H5Tclose(ft);
    H5Aclose(a);
    return v;
}

static hsize_t dataset_rows(hid_t ds)
{
    hid_t sp = H5Dget_space(ds);
    assert_int_equal(H5Sget_simple_extent_ndims(sp), 1);
    hsize_t dims = 0, maxdims = 0;
    H5Sget_simple_extent_dims(sp, &dims, &maxdims);
    assert_true(maxdims == H5S_UNLIMITED);
    H5Sclose(sp);
    return dims;
}

/* Chunked, chunk of at most 4096 rows and 1 MiB, shuffle+deflate when built in. */
static void assert_chunked_compressed(hid_t ds)
{
    hid_t dcpl = H5Dget_create_plist(ds);
    assert_int_equal(H5Pget_layout(dcpl), H5D_CHUNKED);
    hsize_t chunk = 0;
    assert_int_equal(H5Pget_chunk(dcpl, 1, &chunk), 1);
    hid_t ft = H5Dget_type(ds);
    assert_true(chunk >= 1 && chunk <= 4096);
    assert_true(chunk * H5Tget_size(ft) <= (1u << 20));
    H5Tclose(ft);
    int nf = H5Pget_nfilters(dcpl);
    int deflate = 0, shuffle = 0;
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0, cd[8];
        size_t ncd = 8;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
        if (id == H5Z_FILTER_DEFLATE) {
            deflate = 1;
            assert_int_equal(cd[0], 4);
        }
        if (id == H5Z_FILTER_SHUFFLE)
            shuffle = 1;
    }
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
        assert_true(deflate);
    if (H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0)
        assert_true(shuffle);
    H5Pclose(dcpl);
}

/* The file type of member `name` of a dataset's compound type equals want. */
static void assert_member_type(hid_t ds, const char *name, hid_t want)
{
    hid_t ft = H5Dget_type(ds);
    int idx = H5Tget_member_index(ft, name);
    assert_true(idx >= 0);
    hid_t mt = H5Tget_member_type(ft, (unsigned)idx);
    assert_true(H5Tequal(mt, want) > 0);
    H5Tclose(mt);
    H5Tclose(ft);
}

/* ---- the rows used by the tests -------------------------------------------- */

typedef struct JobRow {
    int64_t id;
    uint8_t state; /* enum: queued, running, done */
    int32_t gpus;
    double runtime_s;
    uint32_t restarts;
} JobRow;

static const char *const job_states[] = {"queued", "running", "done", NULL};

static const WkTraceField job_fields[] = {
    {.name = "id", .type = WK_FT_I64, .offset = offsetof(JobRow, id), .units = ""},
    {.name = "state", .type = WK_FT_ENUM8, .offset = offsetof(JobRow, state), .units = "",
     .enum_names = job_states},
    {.name = "gpus", .type = WK_FT_I32, .offset = offsetof(JobRow, gpus), .units = "GPUs"},
    {.name = "runtime_s", .type = WK_FT_F64, .offset = offsetof(JobRow, runtime_s), .units = "s"},
    {.name = "restarts", .type = WK_FT_U32, .offset = offsetof(JobRow, restarts), .units = NULL},
};
#define NJOB_FIELDS (sizeof job_fields / sizeof job_fields[0])

static JobRow job_row(size_t i)
{
    return (JobRow){
        .id = (int64_t)i * 1000003 - 5000000000LL,
        .state = (uint8_t)(i % 3),
        .gpus = (int32_t)(i % 97) - 10,
        .runtime_s = (double)i * 0.25 + 1e-3,
        .restarts = 4000000000u - (uint32_t)i,
    };
}

typedef struct ClusterRow {
    double util;
    int64_t t_ns;
} ClusterRow;

static const WkTraceField cluster_fields[] = {
    {.name = "t_ns", .type = WK_FT_I64, .offset = offsetof(ClusterRow, t_ns), .units = "ns"},
    {.name = "util", .type = WK_FT_F64, .offset = offsetof(ClusterRow, util), .units = "1"},
};

#define NJOBS 10000
#define NCLUSTER 5000

static void write_cluster_table(WkTrace *t, const char *path)
{
    ClusterRow *rows = malloc(NCLUSTER * sizeof *rows);
    assert_non_null(rows);
    for (size_t i = 0; i < NCLUSTER; i++)
        rows[i] = (ClusterRow){.t_ns = (int64_t)i * 60000000000LL, .util = (double)i / NCLUSTER};
    WkError err = {0};
    assert_int_equal(wk_trace_table(t, path, cluster_fields, 2, sizeof(ClusterRow), rows, NCLUSTER,
                                    "cluster state per minute", &err), 0);
    free(rows);
}

/* A trace with a generation number as root attribute, for replace tests. */
static void write_generation(const char *path, int64_t gen)
{
    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    assert_int_equal(wk_trace_attr_i64(t, NULL, "generation", gen, &err), 0);
    assert_int_equal(wk_trace_close(t, &err), 0);
}

static int64_t read_generation(const char *path)
{
    hid_t f = open_ro(path);
    int64_t g = read_i64_attr(f, "generation");
    H5Fclose(f);
    return g;
}

/* ---- tests ------------------------------------------------------------------- */

static void test_trace_roundtrip_preserves_attrs_tables_and_values(void **state)
{
    TraceDir *d = *state;
    char path[256], tmp[300];
    join(path, sizeof path, d, "run.h5");
    tmp_name(tmp, sizeof tmp, path);

    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    assert_true(exists(tmp));
    assert_false(exists(path));

    const char *scenario = "name: 万卡 quickstart\ncluster: {gpus: 10240}\n";
    assert_int_equal(wk_trace_attr_str(t, NULL, "scenario", scenario, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, "", "version", "0.0.0", &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, "version", "0.1.0", &err), 0); /* replaced */
    assert_int_equal(wk_trace_attr_i64(t, NULL, "seed", -42, &err), 0);
    assert_int_equal(wk_trace_attr_f64(t, NULL, "pue", 1.125, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, "meta/run", "host", "ci", &err), 0); /* new groups */

    /* Jobs: uneven appends crossing chunk boundaries. */
    WkTraceTable *jobs = NULL;
    assert_int_equal(wk_trace_table_begin(t, "jobs", job_fields, NJOB_FIELDS, sizeof(JobRow),
                                          "one row per finished job", &jobs, &err), 0);
    assert_non_null(jobs);
    JobRow *rows = malloc(NJOBS * sizeof *rows);
    assert_non_null(rows);
    for (size_t i = 0; i < NJOBS; i++)
        rows[i] = job_row(i);
    const size_t batches[] = {1, 0, 4094, 1, 1, 3000, 2903};
    size_t done = 0;
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        assert_int_equal(wk_trace_table_append(jobs, rows + done, batches[b], &err), 0);
        done += batches[b];
    }
    assert_int_equal(done, NJOBS);
    assert_int_equal(wk_trace_table_append(jobs, NULL, 0, &err), 0);

    write_cluster_table(t, "/timeseries//cluster/");
    assert_int_equal(wk_trace_attr_str(t, "timeseries", "note", "per minute", &err), 0);

    WkTraceTable *inc = NULL;
    assert_int_equal(wk_trace_table_begin(t, "incidents", job_fields, NJOB_FIELDS, sizeof(JobRow),
                                          "no incidents in this run", &inc, &err), 0);
    assert_int_equal(wk_trace_table_end(inc, &err), 0);
    /* jobs stays open: close must finish it. */
    assert_false(exists(path));
    assert_int_equal(wk_trace_close(t, &err), 0);
    assert_int_equal(err.code, 0);
    assert_true(exists(path));
    assert_false(exists(tmp));
    assert_int_equal(count_entries(d), 1);

    /* Read back with the plain HDF5 C API. */
    hid_t f = open_ro(path);
    assert_str_attr(f, "scenario", scenario);
    assert_str_attr(f, "version", "0.1.0");
    assert_int_equal(read_i64_attr(f, "seed"), -42);
    assert_true(read_f64_attr(f, "pue") == 1.125);
    hid_t g = H5Gopen2(f, "meta/run", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_str_attr(g, "host", "ci");
    H5Gclose(g);
    g = H5Gopen2(f, "timeseries", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_str_attr(g, "note", "per minute");
    H5Gclose(g);

    hid_t ds = H5Dopen2(f, "jobs", H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_int_equal(dataset_rows(ds), NJOBS);
    assert_chunked_compressed(ds);
    assert_str_attr(ds, "description", "one row per finished job");
    assert_str_attr(ds, "gpus_units", "GPUs");
    assert_str_attr(ds, "runtime_s_units", "s");
    assert_int_equal(H5Aexists(ds, "id_units"), 0);
    assert_int_equal(H5Aexists(ds, "restarts_units"), 0);
    assert_member_type(ds, "id", H5T_STD_I64LE);
    assert_member_type(ds, "gpus", H5T_STD_I32LE);
    assert_member_type(ds, "restarts", H5T_STD_U32LE);
    assert_member_type(ds, "runtime_s", H5T_IEEE_F64LE);

    /* The enum column: HDF5 enum over little-endian u8 with the given names. */
    hid_t ft = H5Dget_type(ds);
    assert_int_equal(H5Tget_nmembers(ft), NJOB_FIELDS);
    hid_t et = H5Tget_member_type(ft, (unsigned)H5Tget_member_index(ft, "state"));
    assert_int_equal(H5Tget_class(et), H5T_ENUM);
    assert_int_equal(H5Tget_nmembers(et), 3);
    hid_t super = H5Tget_super(et);
    assert_true(H5Tequal(super, H5T_STD_U8LE) > 0);
    for (unsigned i = 0; i < 3; i++) {
        char *nm = H5Tget_member_name(et, i);
        uint8_t v = 255;
        H5Tget_member_value(et, i, &v);
        assert_string_equal(nm, job_states[v]);
        H5free_memory(nm);
    }
    H5Tclose(super);
    H5Tclose(ft);

    /* Read into a differently laid-out struct: members are matched by name. */
    typedef struct Back {
        double runtime_s;
        uint32_t restarts;
        int32_t gpus;
        int64_t id;
        uint8_t state;
    } Back;
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(Back));
    hid_t st = H5Tenum_create(H5T_NATIVE_UINT8);
    for (uint8_t v = 0; v < 3; v++)
        H5Tenum_insert(st, job_states[v], &v);
    H5Tinsert(mt, "runtime_s", offsetof(Back, runtime_s), H5T_NATIVE_DOUBLE);
    H5Tinsert(mt, "restarts", offsetof(Back, restarts), H5T_NATIVE_UINT32);
    H5Tinsert(mt, "gpus", offsetof(Back, gpus), H5T_NATIVE_INT32);
    H5Tinsert(mt, "id", offsetof(Back, id), H5T_NATIVE_INT64);
    H5Tinsert(mt, "state", offsetof(Back, state), st);
    Back *back = calloc(NJOBS, sizeof *back);
    assert_non_null(back);
    assert_true(H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
    for (size_t i = 0; i < NJOBS; i++) {
        JobRow w = job_row(i);
        assert_int_equal(back[i].id, w.id);
        assert_int_equal(back[i].state, w.state);
        assert_int_equal(back[i].gpus, w.gpus);
        assert_true(back[i].runtime_s == w.runtime_s);
        assert_int_equal(back[i].restarts, w.restarts);
    }
    free(back);
    H5Tclose(st);
    H5Tclose(mt);
    H5Dclose(ds);

    ds = H5Dopen2(f, "timeseries/cluster", H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_int_equal(dataset_rows(ds), NCLUSTER);
    assert_chunked_compressed(ds);
    assert_str_attr(ds, "description", "cluster state per minute");
    assert_str_attr(ds, "t_ns_units", "ns");
    assert_str_attr(ds, "util_units", "1");
    ClusterRow *cb = calloc(NCLUSTER, sizeof *cb);
    assert_non_null(cb);
    mt = H5Tcreate(H5T_COMPOUND, sizeof(ClusterRow));
    H5Tinsert(mt, "t_ns", offsetof(ClusterRow, t_ns), H5T_NATIVE_INT64);
    H5Tinsert(mt, "util", offsetof(ClusterRow, util), H5T_NATIVE_DOUBLE);
    assert_true(H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, cb) >= 0);
    for (size_t i = 0; i < NCLUSTER; i++) {
        assert_int_equal(cb[i].t_ns, (int64_t)i * 60000000000LL);
        assert_true(cb[i].util == (double)i / NCLUSTER);
    }
    free(cb);
    H5Tclose(mt);
    H5Dclose(ds);

    ds = H5Dopen2(f, "incidents", H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_int_equal(dataset_rows(ds), 0);
    assert_str_attr(ds, "description", "no incidents in this run");
    H5Dclose(ds);
    H5Fclose(f);

    free(rows);
    assert_int_equal(unlink(path), 0);
}

static void test_trace_zero_row_table_is_valid_empty_dataset(void **state)
{
    TraceDir *d = *state;
    char path[256];
    join(path, sizeof path, d, "empty.h5");
    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    assert_int_equal(wk_trace_table(t, "a/b/none", cluster_fields, 2, sizeof(ClusterRow), NULL, 0,
                                    NULL, &err), 0);
    assert_int_equal(wk_trace_close(t, &err), 0);

    hid_t f = open_ro(path);
    hid_t ds = H5Dopen2(f, "a/b/none", H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_int_equal(dataset_rows(ds), 0);
    assert_chunked_compressed(ds);
    assert_int_equal(H5Aexists(ds, "description"), 0); /* NULL description: none */
    assert_str_attr(ds, "t_ns_units", "ns");
    H5Dclose(ds);
    H5Fclose(f);
    assert_int_equal(unlink(path), 0);
}

static void test_trace_abort_leaves_no_file(void **state)
{
    TraceDir *d = *state;
    char path[256], tmp[300];
    join(path, sizeof path, d, "aborted.h5");
    tmp_name(tmp, sizeof tmp, path);
    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    write_cluster_table(t, "cluster");
    WkTraceTable *jobs = NULL;
    assert_int_equal(wk_trace_table_begin(t, "jobs", job_fields, NJOB_FIELDS, sizeof(JobRow), "j",
                                          &jobs, &err), 0);
    JobRow r = job_row(7);
    assert_int_equal(wk_trace_table_append(jobs, &r, 1, &err), 0);
    assert_true(exists(tmp));
    wk_trace_abort(t); /* with a table still open */
    assert_false(exists(tmp));
    assert_false(exists(path));
    assert_int_equal(count_entries(d), 0);
    wk_trace_abort(NULL);
}

static void test_trace_close_replaces_existing_file_only_at_close(void **state)
{
    TraceDir *d = *state;
    char path[256];
    join(path, sizeof path, d, "replace.h5");
    write_generation(path, 1);
    assert_int_equal(read_generation(path), 1);

    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    assert_int_equal(wk_trace_attr_i64(t, NULL, "generation", 2, &err), 0);
    write_cluster_table(t, "cluster");
    assert_int_equal(read_generation(path), 1); /* old content until close */
    assert_int_equal(wk_trace_close(t, &err), 0);
    assert_int_equal(read_generation(path), 2);

    /* An aborted rewrite leaves the old file alone. */
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    assert_int_equal(wk_trace_attr_i64(t, NULL, "generation", 3, &err), 0);
    wk_trace_abort(t);
    assert_int_equal(read_generation(path), 2);
    assert_int_equal(count_entries(d), 1);
    assert_int_equal(unlink(path), 0);
}

static void test_trace_open_in_missing_directory_fails_naming_path(void **state)
{
    TraceDir *d = *state;
    char path[256];
    join(path, sizeof path, d, "no/such/dir/run.h5");
    WkTrace *t = (WkTrace *)(uintptr_t)1;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), WK_E_IO);
    assert_null(t);
    assert_int_equal(err.code, WK_E_IO);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "cannot create"));
    assert_non_null(strstr(err.msg, strerror(ENOENT)));
    assert_int_equal(count_entries(d), 0);
}

static void test_trace_failed_rename_removes_temp_and_keeps_target(void **state)
{
    TraceDir *d = *state;
    char path[256], inner[300];
    join(path, sizeof path, d, "target");
    assert_int_equal(mkdir(path, 0700), 0); /* rename(file, non-empty dir) fails */
    snprintf(inner, sizeof inner, "%s/keep", path);
    FILE *fp = fopen(inner, "w");
    assert_non_null(fp);
    fclose(fp);

    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    write_cluster_table(t, "cluster");
    assert_int_equal(wk_trace_close(t, &err), WK_E_IO);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "cannot rename"));
    assert_true(exists(inner));
    assert_int_equal(count_entries(d), 1); /* only the directory: no temp file */
    assert_int_equal(unlink(inner), 0);
    assert_int_equal(rmdir(path), 0);
}

static void test_trace_rejects_bad_tables_without_spoiling_the_file(void **state)
{
    TraceDir *d = *state;
    char path[256];
    join(path, sizeof path, d, "bad.h5");
    WkTrace *t = NULL;
    WkError err = {0};
    WkTraceTable *tab = NULL;
    assert_int_equal(wk_trace_open(&t, path, &err), 0);

    /* A field past the end of the row. */
    size_t short_row = offsetof(JobRow, restarts) + 2;
    assert_int_equal(wk_trace_table_begin(t, "x", job_fields, NJOB_FIELDS, short_row, "", &tab, &err),
                     WK_E_INVAL);
    assert_null(tab);
    assert_non_null(strstr(err.msg, "restarts"));
    /* The same name twice. */
    WkTraceField dup[2] = {cluster_fields[0], cluster_fields[0]};
    dup[1].offset = offsetof(ClusterRow, util);
    wk_error_clear(&err);
    assert_int_equal(wk_trace_table(t, "x", dup, 2, sizeof(ClusterRow), NULL, 0, "", &err), WK_E_INVAL);
    /* An enum without names. */
    WkTraceField noenum = job_fields[1];
    noenum.enum_names = NULL;
    wk_error_clear(&err);
    assert_int_equal(wk_trace_table(t, "x", &noenum, 1, sizeof(JobRow), NULL, 0, "", &err), WK_E_INVAL);
    /* A table twice, and a table under a table. */
    wk_error_clear(&err);
    write_cluster_table(t, "cluster");
    assert_int_equal(wk_trace_table(t, "cluster", cluster_fields, 2, sizeof(ClusterRow), NULL, 0, "",
                                    &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "already exists"));
    wk_error_clear(&err);
    assert_int_equal(wk_trace_table(t, "cluster/sub", cluster_fields, 2, sizeof(ClusterRow), NULL, 0,
                                    "", &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "not a group"));

    /* The trace is still good. */
    wk_error_clear(&err);
    assert_int_equal(wk_trace_attr_str(t, "cluster", "note", "attrs on a table work too", &err), 0);
    assert_int_equal(wk_trace_close(t, &err), 0);
    hid_t f = open_ro(path);
    hid_t ds = H5Dopen2(f, "cluster", H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_int_equal(dataset_rows(ds), NCLUSTER);
    assert_str_attr(ds, "note", "attrs on a table work too");
    H5Dclose(ds);
    assert_true(H5Lexists(f, "x", H5P_DEFAULT) == 0);
    H5Fclose(f);
    assert_int_equal(unlink(path), 0);
}

/* A write failure (file size limit standing in for a full disk) is WK_E_IO
 * naming the path, and leaves neither the temp file nor a final file. */
static void test_trace_write_failure_leaves_no_file(void **state)
{
    TraceDir *d = *state;
    char path[256];
    join(path, sizeof path, d, "full.h5");
    enum { N = 100000 };
    JobRow *rows = malloc(N * sizeof *rows);
    assert_non_null(rows);
    uint64_t x = 88172645463325252ull; /* xorshift64: incompressible rows */
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        rows[i] = job_row(i);
        rows[i].id = (int64_t)x;
        rows[i].runtime_s = (double)(x >> 11);
    }
    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    WkTraceTable *tab = NULL;
    assert_int_equal(wk_trace_table_begin(t, "jobs", job_fields, NJOB_FIELDS, sizeof(JobRow), "j",
                                          &tab, &err), 0);

    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    struct rlimit lim = {.rlim_cur = 256 * 1024, .rlim_max = old.rlim_max};
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int append_rc = wk_trace_table_append(tab, rows, N, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_sig);

    assert_int_equal(append_rc, WK_E_IO);
    assert_int_equal(err.code, WK_E_IO);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "jobs"));
    assert_non_null(strstr(err.msg, strerror(EFBIG)));
    /* The trace stays failed, even with room again, and close publishes nothing. */
    WkError later = {0};
    assert_int_equal(wk_trace_table_append(tab, rows, 1, &later), WK_E_IO);
    assert_int_equal(wk_trace_attr_i64(t, NULL, "seed", 1, &later), WK_E_IO);
    assert_int_equal(wk_trace_close(t, &later), WK_E_IO);
    assert_non_null(strstr(later.msg, "earlier write"));
    assert_int_equal(count_entries(d), 0);
    free(rows);
}

/* Same calls → same bytes: no timestamps in the file. */
static void test_trace_same_input_gives_identical_files(void **state)
{
    TraceDir *d = *state;
    char path[2][256];
    unsigned char *bytes[2];
    long size[2];
    for (int k = 0; k < 2; k++) {
        join(path[k], sizeof path[k], d, k ? "b.h5" : "a.h5");
        WkTrace *t = NULL;
        WkError err = {0};
        assert_int_equal(wk_trace_open(&t, path[k], &err), 0);
        assert_int_equal(wk_trace_attr_i64(t, NULL, "seed", 7, &err), 0);
        write_cluster_table(t, "timeseries/cluster");
        assert_int_equal(wk_trace_close(t, &err), 0);
        FILE *fp = fopen(path[k], "rb");
        assert_non_null(fp);
        fseek(fp, 0, SEEK_END);
        size[k] = ftell(fp);
        rewind(fp);
        bytes[k] = malloc((size_t)size[k]);
        assert_non_null(bytes[k]);
        assert_int_equal(fread(bytes[k], 1, (size_t)size[k], fp), (size_t)size[k]);
        fclose(fp);
    }
    assert_int_equal(size[0], size[1]);
    assert_memory_equal(bytes[0], bytes[1], (size_t)size[0]);
    for (int k = 0; k < 2; k++) {
        free(bytes[k]);
        assert_int_equal(unlink(path[k]), 0);
    }
}

/* A string attribute past the 64 KiB of an object-header message (a long
 * scenario) is written fixed-length and read back whole. */
static void test_trace_string_attribute_past_64k_roundtrips(void **state)
{
    TraceDir *d = *state;
    const char *path = trace_fixture_file(d, "long.h5");
    size_t n = 200000;
    char *text = malloc(n + 1);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)('a' + i % 26);
    text[n] = '\0';
    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCHEMA_VERSION, WK_SCHEMA_VERSION, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCENARIO, text, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_OVERRIDES, "", &err), 0);
    assert_int_equal(wk_trace_close(t, &err), 0);
    WkTraceRead *r = NULL;
    assert_int_equal(wk_trace_read_open(&r, path, &err), 0);
    char *got = NULL;
    assert_int_equal(wk_trace_read_attr_str(r, WK_SCHEMA_ATTR_SCENARIO, &got, &err), 0);
    assert_string_equal(got, text);
    free(got);
    assert_int_equal(wk_trace_read_attr_str(r, WK_SCHEMA_ATTR_OVERRIDES, &got, &err), 0);
    assert_string_equal(got, "");
    free(got);
    wk_trace_read_close(r);
    free(text);
}

/* Add a variable-length UTF-8 string attribute to the root of a file. */
static void add_vlen_attr(const char *path, const char *name, const char *value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t st = H5Tcopy(H5T_C_S1);
    assert_true(H5Tset_size(st, H5T_VARIABLE) >= 0);
    hid_t sp = H5Screate(H5S_SCALAR);
    if (H5Aexists(f, name) > 0)
        assert_true(H5Adelete(f, name) >= 0);
    hid_t a = H5Acreate2(f, name, st, sp, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, st, &value) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(st);
    H5Fclose(f);
}

/* HDF5 1.10 overflows a buffer reading a crafted variable-length string, so
 * the reader refuses one by its type, before reading, at open (a schema
 * attribute) and on request (any other); WANKA_TRACE_VLEN=1 reads them. */
static void test_trace_reader_refuses_variable_length_strings_unless_trusted(void **state)
{
    TraceDir *d = *state;
    const char *path = trace_fixture_file(d, "vlen.h5");
    WkTrace *t = NULL;
    WkError err = {0};
    assert_int_equal(wk_trace_open(&t, path, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCHEMA_VERSION, WK_SCHEMA_VERSION, &err), 0);
    assert_int_equal(wk_trace_close(t, &err), 0);
    add_vlen_attr(path, "note", "kept");
    unsetenv("WANKA_TRACE_VLEN");
    WkTraceRead *r = NULL;
    assert_int_equal(wk_trace_read_open(&r, path, &err), 0); /* not a schema attribute: read on request */
    char *got = NULL;
    assert_int_equal(wk_trace_read_attr_str(r, "note", &got, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "note: attribute is a variable-length string"));
    assert_null(got);
    wk_trace_read_close(r);

    const char *path2 = trace_fixture_file(d, "vlen2.h5");
    wk_error_clear(&err);
    assert_int_equal(wk_trace_open(&t, path2, &err), 0);
    assert_int_equal(wk_trace_attr_str(t, NULL, WK_SCHEMA_ATTR_SCHEMA_VERSION, WK_SCHEMA_VERSION, &err), 0);
    assert_int_equal(wk_trace_close(t, &err), 0);
    add_vlen_attr(path2, WK_SCHEMA_ATTR_SCHEDULER, "fifo");
    assert_int_equal(wk_trace_read_open(&r, path2, &err), WK_E_INVAL);
    assert_non_null(strstr(err.msg, "scheduler: attribute is a variable-length string"));
    assert_non_null(strstr(err.msg, path2));

    setenv("WANKA_TRACE_VLEN", "1", 1);
    wk_error_clear(&err);
    assert_int_equal(wk_trace_read_open(&r, path2, &err), 0);
    wk_trace_read_close(r);
    assert_int_equal(wk_trace_read_open(&r, path, &err), 0);
    assert_int_equal(wk_trace_read_attr_str(r, "note", &got, &err), 0);
    assert_string_equal(got, "kept");
    free(got);
    wk_trace_read_close(r);
    unsetenv("WANKA_TRACE_VLEN");
}

/* Every test gets its own temporary directory of traces. */
#define TEST(f) cmocka_unit_test_setup_teardown(f, trace_fixture_setup, trace_fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_trace_roundtrip_preserves_attrs_tables_and_values),
        TEST(test_trace_zero_row_table_is_valid_empty_dataset),
        TEST(test_trace_abort_leaves_no_file),
        TEST(test_trace_close_replaces_existing_file_only_at_close),
        TEST(test_trace_open_in_missing_directory_fails_naming_path),
        TEST(test_trace_failed_rename_removes_temp_and_keeps_target),
        TEST(test_trace_rejects_bad_tables_without_spoiling_the_file),
        TEST(test_trace_write_failure_leaves_no_file),
        TEST(test_trace_same_input_gives_identical_files),
        TEST(test_trace_string_attribute_past_64k_roundtrips),
        TEST(test_trace_reader_refuses_variable_length_strings_unless_trusted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
