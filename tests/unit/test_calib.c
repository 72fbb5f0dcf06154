/* SPDX-License-Identifier: Apache-2.0 */
/* test_calib.c — calibration files (models/gpu/calib.c, docs/models.md
 * "Calibration files"): each value sets the curve or catalog field it is
 * documented to set and nothing else; `cluster.calibration` picks the SKU
 * the file names, `cluster.skus[].calibration` the entry's; relative paths
 * are read from the naming file's directory; bad files get positioned
 * errors and leave the catalog as it was. */
#include "tests/unit/testutil.h"

#include <math.h>
#include <unistd.h>

#include "models/gpu/calib.h"
#include "models/gpu/catalog.h"
#include "models/gpu/dvfs.h"
#include "models/topo/cluster.h"
#include "models/workload/model.h"
#include "models/workload/perf.h"
#include "models/workload/stack.h"

static char dir[64];

/* a within tol of b (absolute), else fail naming both */
#define assert_double_equal(a, b, tol)                                                                                 \
    do {                                                                                                               \
        double a_ = (a), b_ = (b);                                                                                     \
        if (!(fabs(a_ - b_) <= (tol)))                                                                                 \
            fail_msg("%s = %.17g, want %.17g", #a, a_, b_);                                                            \
    } while (0)

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/wk-calib-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Write dir/name with text. */
static void put(const char *name, const char *text)
{
    char p[160];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Parse the cluster section of yaml (as the file dir/s.yaml); returns the code. */
static int cluster(const char *yaml, WkCluster *c, WkDoc **doc, WkError *err)
{
    char name[160];
    snprintf(name, sizeof name, "%s/s.yaml", dir);
    put("s.yaml", yaml);
    wk_error_clear(err);
    int rc = wk_doc_load_file(doc, name, err);
    if (rc == 0)
        rc = wk_cluster_parse(wk_node_get((*doc)->root, "cluster"), c, err);
    return rc;
}

#define H100_FILE                                                                                                      \
    "{\"format\": \"wanka-calibration/1\", \"sku\": \"H100-SXM-80G\", \"gpu\": \"NVIDIA H100 80GB HBM3\",\n"          \
    " \"date\": \"2026-11-28\", \"driver\": \"550.54.15\", \"cuda\": \"12.4\", \"torch\": \"2.5.1\",\n"               \
    " \"device\": \"cuda\",\n"                                                                                         \
    " \"values\": {\"gemm_bf16_tflops\": 700, \"gemm_bf16_tail_us\": 6.0, \"gemm_fp8_tflops\": 1200,\n"               \
    "   \"gemm_fp8_tail_us\": 8.0, \"attn_fwd_tflops\": 500, \"attn_bwd_tflops\": 400, \"memory_tb_per_s\": 3.0,\n"    \
    "   \"kernel_us\": 3.0, \"allreduce_busbw_gb_per_s\": 360, \"allreduce_step_us\": 10.0,\n"                          \
    "   \"allreduce_small_us\": 25.0,\n"                                                                              \
    "   \"power_limit_w\": 650, \"idle_w\": 70, \"dispatch_us\": 20, \"sustained_clock_mhz\": 1700,\n"                 \
    "   \"sustained_power_w\": 640, \"gemm_bf16_sustained_tflops\": 650},\n"                                          \
    " \"detail\": {\"gemm\": [{\"m\": 4096, \"n\": 4096, \"k\": 4096, \"tflops\": 700}]}}\n"

static void test_every_value_sets_its_documented_field(void **state)
{
    (void)state;
    put("h100.json", H100_FILE);
    WkCluster c;
    WkDoc *doc = NULL;
    WkError err;
    int rc = cluster("cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: h100.json}\n", &c, &doc,
                     &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.msg);
    const WkGpuSku *s = c.groups[0].sku;
    const WkGpuEff *e = wk_catalog_eff(s), *b = wk_eff_find("H100-SXM-80G");
    assert_non_null(s->calib);
    assert_true(e != b);
    assert_double_equal(e->mat_max, 700e12 / 989e12, 1e-12);
    assert_double_equal(e->kernel_s, 3e-6, 1e-15);
    /* the tail includes the launch gap, as in eff.c */
    assert_double_equal(e->mat_half_flops, 3e-6 * 700e12, 1);
    assert_double_equal(e->fp8_max, 1200e12 / 1979e12, 1e-12);
    assert_double_equal(e->fp8_half_flops, 5e-6 * 1200e12, 1);
    assert_double_equal(e->attn_fwd, 500 / 989.0, 1e-12);
    assert_double_equal(e->attn_bwd, 400 / 989.0, 1e-12);
    assert_double_equal(e->mem_max, 3.0 / 3.35, 1e-12);
    assert_double_equal(e->nvlink_eff, 360 / 450.0, 1e-12);
    assert_double_equal(e->ring_lat_s, 10e-6, 1e-15);
    assert_double_equal(e->small_coll_s, 25e-6, 1e-15);
    assert_double_equal(s->tdp_w, 650, 0);
    assert_double_equal(s->idle_w, 70, 0);
    /* what the file does not give stays the catalog's */
    assert_double_equal(e->nvls_algbw_eff, b->nvls_algbw_eff, 0);
    assert_double_equal(e->nvls_lat_s, b->nvls_lat_s, 0);
    assert_double_equal(e->net_eff, b->net_eff, 0);
    assert_double_equal(e->overlap_slowdown, b->overlap_slowdown, 0);
    assert_double_equal(e->vec_flops, b->vec_flops, 0);
    assert_double_equal(s->bf16_flops, 989e12, 0);
    /* other SKUs are untouched */
    const WkGpuSku *a = wk_catalog_lookup(&c.catalog, "H200-SXM");
    assert_null(a->calib);
    assert_ptr_equal(wk_catalog_eff(a), wk_eff_find("H200-SXM"));
    char line[1024];
    wk_calib_describe(s, line, sizeof line);
    print_message("%s\n", line);
    assert_non_null(strstr(line, "h100.json"));
    assert_non_null(strstr(line, "NVIDIA H100 80GB HBM3"));
    assert_non_null(strstr(line, "gemm_bf16_tflops, gemm_bf16_tail_us"));
    assert_double_equal(e->host_op_s, 20e-6, 1e-15);
    assert_non_null(strstr(line, "dispatch_us, sustained_clock_mhz, sustained_power_w"));
    assert_null(strstr(line, "gemm_bf16_sustained_tflops")); /* recorded, not read by the model */
    wk_cluster_fini(&c);
    wk_doc_free(doc);
}

/* `wanka perf`'s iteration of a tiny Composer job (per-tensor optimizer,
 * host-bound) on 8 GPUs of the cluster in yaml. */
static WkPerfResult tiny_job(const char *yaml, double *kernel_s)
{
    WkCluster c;
    WkDoc *doc = NULL, *md = NULL;
    WkError err;
    if (cluster(yaml, &c, &doc, &err))
        fail_msg("%s: %s", err.where, err.msg);
    static const char mtext[] = "model: {layers: 2, hidden: 256, heads: 4, ffn: 1024, vocab: 1000, seq_len: 64,"
                                " mlp: gelu, global_batch: 8, zero: 1, stack: composer}\n";
    WkModelSpec m;
    wk_error_clear(&err);
    if (wk_doc_load_string(&md, "m.yaml", mtext, strlen(mtext), &err) < 0 ||
        wk_model_parse(wk_node_get(md->root, "model"), NULL, &m, &err) < 0)
        fail_msg("%s: %s", err.where, err.msg);
    WkPerfEnv env = {.sku = c.groups[0].sku, .speed = 1, .gpus = 8, .nvlink_gpus = 8, .nvlink_bw = 900e9,
                     .net_bw = 50e9};
    WkPerfParams p = wk_perf_defaults();
    WkPerfResult r;
    if (wk_perf_eval(&m, &env, &p, &r, &err) < 0)
        fail_msg("%s", err.msg);
    *kernel_s = wk_catalog_eff(env.sku)->kernel_s;
    wk_doc_free(md);
    wk_cluster_fini(&c);
    wk_doc_free(doc);
    return r;
}

#define DISPATCH_FILE(us)                                                                                              \
    "{\"format\": \"wanka-calibration/1\", \"sku\": \"H100-SXM-80G\", \"device\": \"cuda\", \"values\": "        \
    "{\"dispatch_us\": " us "}}\n"
#define H100_8 "cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: d.json}\n"

/* dispatch_us replaces the host cost of a Python-issued operator
 * (WK_HOST_OP_PY_S + launch gap, stack.h): the same figure changes
 * nothing; a dearer one adds, while the forward pass stays host-bound,
 * d x (L mb k_f) to the forward's host wait (k_f kernels a layer) and
 * d x (8 n + 1) to the per-tensor optimizer step (n tensors) — and nothing
 * else. */
static void test_dispatch_cost_changes_the_step_as_the_equation_says(void **state)
{
    (void)state;
    double ks;
    WkPerfResult r0 = tiny_job("cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n", &ks);
    assert_true(r0.host_s > 0); /* host-bound already at the default */
    char same[32];
    snprintf(same, sizeof same, "%.17g", (WK_HOST_OP_PY_S + ks) * 1e6);
    char text[256];
    snprintf(text, sizeof text, DISPATCH_FILE("%s"), same);
    put("d.json", text);
    double k2;
    WkPerfResult rs = tiny_job(H100_8, &k2);
    assert_double_equal(rs.iter_s, r0.iter_s, 1e-15);
    double d[3] = {100e-6, 300e-6, 500e-6}, tensors = 2 * 6 + 3, kf = 0;
    WkPerfResult r[3];
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, DISPATCH_FILE("%g"), d[i] * 1e6);
        put("d.json", text);
        r[i] = tiny_job(H100_8, &k2);
        assert_double_equal(r[i].optim_s, (8 * tensors + 1) * d[i], 1e-15);
    }
    for (int i = 1; i < 3; i++) {
        double dd = d[i] - d[0], dhost = r[i].host_s - r[0].host_s;
        double k = dhost / (2 * r[i].micro_batches * dd); /* 2 layers */
        assert_double_equal(k, round(k), 1e-6);            /* a whole number of kernels */
        if (i == 1)
            kf = k;
        assert_double_equal(k, kf, 1e-6);                  /* the same k_f at every cost: linear */
        assert_true(kf >= 5);
        assert_double_equal(r[i].iter_s - r[0].iter_s, (2 * r[i].micro_batches * kf + 8 * tensors + 1) * dd, 1e-12);
        assert_double_equal(r[i].compute_s, r[0].compute_s, 0);
        assert_double_equal(r[i].dp_s, r[0].dp_s, 0);
    }
}

/* sustained_clock_mhz and sustained_power_w feed perf.sustained_clock:
 * a GEMM loop at the TDP and the DVFS row's clock changes nothing; another
 * clock at the TDP is the sustained clock of a GEMM-only mix; a loop below
 * the TDP has activity a = (P - idle) / ((tdp - idle) g(f)). */
static void test_sustained_clock_and_power_feed_the_dvfs_model(void **state)
{
    (void)state;
    static const struct {
        const char *values;
        double want; /* clock factor of an activity-1 mix; < 0: compute it from the power */
    } cases[] = {
        {"{\"sustained_clock_mhz\": 1741}", 1741.0 / 1980},
        {"{\"sustained_clock_mhz\": 1741, \"sustained_power_w\": 700}", 1741.0 / 1980},
        {"{\"sustained_clock_mhz\": 1500}", 1500.0 / 1980},
        {"{\"sustained_clock_mhz\": 1500, \"sustained_power_w\": 600}", -1},
        {"{\"sustained_clock_mhz\": 2100}", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "{\"format\": \"wanka-calibration/1\", \"sku\": \"H100-SXM-80G\", \"device\": \"cuda\", "
                 "\"values\": %s}\n",
                 cases[i].values);
        put("s.json", text);
        WkCluster c;
        WkDoc *doc = NULL;
        WkError err;
        if (cluster("cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: s.json}\n", &c, &doc, &err))
            fail_msg("%s: %s", err.where, err.msg);
        const WkGpuSku *s = c.groups[0].sku;
        const WkDvfs *dv = wk_dvfs_of(s);
        double want = cases[i].want;
        if (want < 0) {
            double a = (600 - s->idle_w) / ((s->tdp_w - s->idle_w) * wk_dvfs_power_frac(dv, 1500.0 / 1980));
            want = wk_dvfs_clock_for(dv, 1 / a, wk_dvfs_floor(s));
            assert_true(want > 1500.0 / 1980); /* below the TDP the loop had headroom */
        }
        assert_double_equal(wk_dvfs_sustained_clock(s, 1), want, 1e-9);
        wk_cluster_fini(&c);
        wk_doc_free(doc);
    }
}

static void test_power_limit_alone_resets_idle_to_the_default_fraction(void **state)
{
    (void)state;
    put("p.yaml", "format: wanka-calibration/1\nsku: A100-SXM-80G\ndevice: cuda\nvalues: {power_limit_w: 300}\n");
    WkCluster c;
    WkDoc *doc = NULL;
    WkError err;
    int rc = cluster("cluster: {sku: A100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: [p.yaml]}\n", &c, &doc,
                     &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.msg);
    assert_double_equal(c.groups[0].sku->tdp_w, 300, 0);
    assert_double_equal(c.groups[0].sku->idle_w, 300 * WK_GPU_IDLE_FRACTION, 1e-9);
    /* the curves are the A100's */
    assert_double_equal(wk_catalog_eff(c.groups[0].sku)->mat_max, wk_eff_find("A100-SXM-80G")->mat_max, 0);
    wk_cluster_fini(&c);
    wk_doc_free(doc);
}


static void test_sku_entry_takes_the_file_whatever_sku_it_names(void **state)
{
    (void)state;
    put("h100.json", H100_FILE);
    WkCluster c;
    WkDoc *doc = NULL;
    WkError err;
    int rc = cluster("cluster:\n  skus: [{name: mine, base: H100-SXM-80G, calibration: h100.json}]\n"
                     "  groups:\n    - {sku: mine, nodes: 1, gpus_per_node: 8}\n"
                     "    - {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n",
                     &c, &doc, &err);
    if (rc)
        fail_msg("%s: %s", err.where, err.msg);
    assert_non_null(c.groups[0].sku->calib);
    assert_double_equal(wk_catalog_eff(c.groups[0].sku)->mat_max, 700e12 / 989e12, 1e-12);
    assert_null(c.groups[1].sku->calib);
    assert_ptr_equal(wk_catalog_eff(c.groups[1].sku), wk_eff_find("H100-SXM-80G"));
    wk_cluster_fini(&c);
    wk_doc_free(doc);
}

/* A bad file: status code, and where/msg contain the given pieces. */
static void bad(const char *file_text, const char *cluster_yaml, int code, const char *where, const char *msg)
{
    put("bad.json", file_text);
    WkCluster c;
    WkDoc *doc = NULL;
    WkError err;
    int rc = cluster(cluster_yaml, &c, &doc, &err);
    print_message("%s: %s\n", err.where, err.msg);
    assert_int_equal(rc, code);
    assert_int_equal(wk_error_exit_status(rc), 2);
    if (!strstr(err.where, where))
        fail_msg("where '%s' lacks '%s'", err.where, where);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
    wk_doc_free(doc);
}

#define H100_CLUSTER "cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: bad.json}\n"
#define HEAD "{\"format\": \"wanka-calibration/1\", \"sku\": \"H100-SXM-80G\", \"device\": \"cuda\",\n"

static void test_bad_files_get_positioned_errors(void **state)
{
    (void)state;
    bad(HEAD " \"values\": {\"kernel_usec\": 3}}\n", H100_CLUSTER, WK_E_INVAL, "bad.json:2:", "unknown key 'kernel_usec'");
    bad(HEAD " \"values\": {\"gemm_bf16_tflops\": 2000}}\n", H100_CLUSTER, WK_E_RANGE, "bad.json:2:",
        "of SKU 'H100-SXM-80G'");
    bad(HEAD " \"values\": {\"gemm_bf16_tflops\": 0}}\n", H100_CLUSTER, WK_E_RANGE, "bad.json:2:", "> 0");
    bad(HEAD " \"values\": {\"kernel_us\": -1}}\n", H100_CLUSTER, WK_E_RANGE, "bad.json:2:", "kernel_us");
    bad(HEAD " \"values\": {\"idle_w\": 800}}\n", H100_CLUSTER, WK_E_RANGE, "bad.json:2:", "exceeds the power limit");
    bad(HEAD " \"values\": {\"sustained_power_w\": 50}}\n", H100_CLUSTER, WK_E_RANGE, "bad.json:2:",
        "not above the idle power");
    bad(HEAD " \"values\": {\"sustained_clock_mhz\": 0}}\n", H100_CLUSTER, WK_E_RANGE, "bad.json:2:", "clock > 0");
    bad(HEAD " \"values\": {\"kernel_us\": 3}\n", H100_CLUSTER, WK_E_INVAL, "bad.json", "YAML");
    bad(HEAD " \"novalues\": 1}\n", H100_CLUSTER, WK_E_INVAL, "bad.json:2:", "unknown key 'novalues'");
    bad(HEAD " \"detail\": 1}\n", H100_CLUSTER, WK_E_INVAL, "bad.json", "values");
    bad("{\"format\": \"wanka-calibration/9\", \"sku\": \"H100-SXM-80G\", \"device\": \"cuda\", \"values\": {}}\n",
        H100_CLUSTER, WK_E_INVAL, "bad.json:1:12", "unknown format");
    bad("{\"format\": \"wanka-calibration/1\", \"sku\": \"B999\", \"device\": \"cuda\", \"values\": {}}\n", H100_CLUSTER,
        WK_E_NOTFOUND, "s.yaml:1:", "names SKU 'B999'");
    bad("{\"format\": \"wanka-calibration/1\", \"sku\": \"A100-SXM-80G\", \"device\": \"cuda\", \"values\": "
        "{\"gemm_fp8_tflops\": 10}}\n",
        "cluster: {sku: A100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: bad.json}\n", WK_E_INVAL, "bad.json:1:",
        "has no FP8 peak");
    bad(HEAD " \"values\": {}}\n", "cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: none.json}\n",
        WK_E_IO, "s.yaml:1:", "none.json");
    bad(HEAD " \"values\": {}}\n", "cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: {a: 1}}\n",
        WK_E_INVAL, "s.yaml:1:", "path of a calibration file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_value_sets_its_documented_field),
        cmocka_unit_test(test_power_limit_alone_resets_idle_to_the_default_fraction),
        cmocka_unit_test(test_sku_entry_takes_the_file_whatever_sku_it_names),
        cmocka_unit_test(test_bad_files_get_positioned_errors),
        cmocka_unit_test(test_dispatch_cost_changes_the_step_as_the_equation_says),
        cmocka_unit_test(test_sustained_clock_and_power_feed_the_dvfs_model),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
