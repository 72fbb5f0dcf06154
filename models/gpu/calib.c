/* SPDX-License-Identifier: Apache-2.0 */
/* calib.c — reading a calibration file (calib.h; format in docs/models.md
 * "Calibration files") and laying its values over a SKU's curves. */
#include "models/gpu/calib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALIB_FORMAT "wanka-calibration/1"
/* A measured throughput may exceed the catalog's peak a little (a boost clock
 * above the one the peak is specified at); more than this is a file for
 * another SKU. */
#define CALIB_MAX_OVER_PEAK 1.25

static const char *const keys[WK_CALIB_NVALUES] = {
    [WK_CALIB_GEMM_BF16_TFLOPS] = "gemm_bf16_tflops",
    [WK_CALIB_GEMM_BF16_TAIL_US] = "gemm_bf16_tail_us",
    [WK_CALIB_GEMM_FP8_TFLOPS] = "gemm_fp8_tflops",
    [WK_CALIB_GEMM_FP8_TAIL_US] = "gemm_fp8_tail_us",
    [WK_CALIB_ATTN_FWD_TFLOPS] = "attn_fwd_tflops",
    [WK_CALIB_ATTN_BWD_TFLOPS] = "attn_bwd_tflops",
    [WK_CALIB_MEMORY_TB_PER_S] = "memory_tb_per_s",
    [WK_CALIB_KERNEL_US] = "kernel_us",
    [WK_CALIB_ALLREDUCE_BUSBW] = "allreduce_busbw_gb_per_s",
    [WK_CALIB_ALLREDUCE_STEP_US] = "allreduce_step_us",
    [WK_CALIB_POWER_LIMIT_W] = "power_limit_w",
    [WK_CALIB_IDLE_W] = "idle_w",
    [WK_CALIB_DISPATCH_US] = "dispatch_us",
    [WK_CALIB_SUSTAINED_CLOCK_MHZ] = "sustained_clock_mhz",
    [WK_CALIB_SUSTAINED_POWER_W] = "sustained_power_w",
    [WK_CALIB_ALLREDUCE_SMALL_US] = "allreduce_small_us",
    [WK_CALIB_GEMM_BF16_SUSTAINED_TFLOPS] = "gemm_bf16_sustained_tflops",
};

const char *wk_calib_key(int v) { return v >= 0 && v < WK_CALIB_NVALUES ? keys[v] : ""; }

void wk_calib_free(WkGpuCalib *list)
{
    while (list) {
        WkGpuCalib *n = list->next;
        free(list->file);
        free(list->sku);
        free(list->gpu);
        free(list->date);
        free(list->driver);
        free(list->cuda);
        free(list->torch);
        free(list->device);
        free(list);
        list = n;
    }
}

static char *dup_or_empty(const char *s)
{
    s = s ? s : "";
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The path `path` names, relative to the directory of the file it is written in. */
static char *resolve(const WkNode *path)
{
    const char *p = path->str, *f = path->file, *slash = f ? strrchr(f, '/') : NULL;
    size_t dl = p[0] == '/' || !slash ? 0 : (size_t)(slash - f) + 1, pl = strlen(p);
    char *out = malloc(dl + pl + 1);
    if (!out)
        return NULL;
    memcpy(out, f, dl);
    memcpy(out + dl, p, pl + 1);
    return out;
}

/* The upper bound of value v for sku and what it is, for the error message. */
static double upper(int v, const WkGpuSku *sku, const char **what)
{
    switch (v) {
    case WK_CALIB_GEMM_BF16_TFLOPS:
    case WK_CALIB_GEMM_BF16_SUSTAINED_TFLOPS:
    case WK_CALIB_ATTN_FWD_TFLOPS:
    case WK_CALIB_ATTN_BWD_TFLOPS:
        *what = "BF16 peak (TFLOP/s)";
        return sku->bf16_flops / 1e12;
    case WK_CALIB_GEMM_FP8_TFLOPS:
        *what = "FP8 peak (TFLOP/s)";
        return sku->fp8_flops / 1e12;
    case WK_CALIB_MEMORY_TB_PER_S:
        *what = "HBM bandwidth (TB/s)";
        return sku->hbm_bw_bytes_per_s / 1e12;
    case WK_CALIB_ALLREDUCE_BUSBW:
        *what = "link rate per direction (GB/s)";
        return sku->link_bw_bytes_per_s / 2e9;
    default:
        *what = NULL;
        return 0;
    }
}

/* Read `values:` into rec, checking each against sku. */
static int read_values(const WkNode *vals, const WkGpuSku *sku, WkGpuCalib *rec, WkError *err)
{
    const char *known[WK_CALIB_NVALUES + 1];
    for (int v = 0; v < WK_CALIB_NVALUES; v++)
        known[v] = keys[v];
    known[WK_CALIB_NVALUES] = NULL;
    int rc = wk_node_expect_keys(vals, known, err);
    if (rc < 0)
        return rc;
    for (int v = 0; v < WK_CALIB_NVALUES; v++) {
        const WkNode *n = wk_node_get(vals, keys[v]);
        if (!n || n->type == WK_NODE_NULL)
            continue;
        double x = 0;
        if ((rc = wk_node_double(vals, keys[v], 1, 0, 1e9, &x, err)) < 0)
            return rc;
        const char *what = NULL;
        double top = upper(v, sku, &what);
        if (what && top <= 0)
            return wk_node_error(n, WK_E_INVAL, err, "SKU '%s' has no %s: remove %s or name another SKU", sku->name,
                                 what, keys[v]);
        if (what && x > CALIB_MAX_OVER_PEAK * top)
            return wk_node_error(n, WK_E_RANGE, err,
                                 "%g is more than %.2fx the %s %g of SKU '%s': a measurement of another GPU?", x,
                                 CALIB_MAX_OVER_PEAK, what, top, sku->name);
        if (what && !(x > 0))
            return wk_node_error(n, WK_E_RANGE, err, "expected a throughput > 0, got %g", x);
        rec->value[v] = x;
        rec->used |= 1u << v;
    }
    double limit = (rec->used & (1u << WK_CALIB_POWER_LIMIT_W)) ? rec->value[WK_CALIB_POWER_LIMIT_W] : sku->tdp_w;
    if ((rec->used & (1u << WK_CALIB_POWER_LIMIT_W)) && !(limit > 0))
        return wk_node_error(wk_node_get(vals, "power_limit_w"), WK_E_RANGE, err, "expected a power limit > 0 W");
    if ((rec->used & (1u << WK_CALIB_IDLE_W)) && rec->value[WK_CALIB_IDLE_W] > limit)
        return wk_node_error(wk_node_get(vals, "idle_w"), WK_E_RANGE, err,
                             "idle power %g W exceeds the power limit %g W of SKU '%s'", rec->value[WK_CALIB_IDLE_W],
                             limit, sku->name);
    double idle = (rec->used & (1u << WK_CALIB_IDLE_W))          ? rec->value[WK_CALIB_IDLE_W]
                  : (rec->used & (1u << WK_CALIB_POWER_LIMIT_W)) ? WK_GPU_IDLE_FRACTION * limit
                                                                 : sku->idle_w;
    if ((rec->used & (1u << WK_CALIB_SUSTAINED_POWER_W)) && !(rec->value[WK_CALIB_SUSTAINED_POWER_W] > idle))
        return wk_node_error(wk_node_get(vals, "sustained_power_w"), WK_E_RANGE, err,
                             "sustained power %g W under GEMM load is not above the idle power %g W of SKU '%s'",
                             rec->value[WK_CALIB_SUSTAINED_POWER_W], idle, sku->name);
    if ((rec->used & (1u << WK_CALIB_SUSTAINED_CLOCK_MHZ)) && !(rec->value[WK_CALIB_SUSTAINED_CLOCK_MHZ] > 0))
        return wk_node_error(wk_node_get(vals, "sustained_clock_mhz"), WK_E_RANGE, err,
                             "expected a clock > 0 MHz, got %g", rec->value[WK_CALIB_SUSTAINED_CLOCK_MHZ]);
    return 0;
}

/* The SKU's curves with rec's values over them (docs/models.md, "Calibration files"). */
static void lay_over(WkGpuCalib *rec, const WkGpuSku *sku)
{
    WkGpuEff *e = &rec->eff;
    const double *x = rec->value;
    unsigned u = rec->used;
#define HAS(v) (u & (1u << (v)))
    const WkGpuEff *base = sku->eff ? sku->eff : wk_eff_find(sku->name);
    *e = base ? *base : *wk_eff_nearest(sku->bf16_flops);
    e->sku = rec->sku;
    e->source = rec->file;
    if (HAS(WK_CALIB_KERNEL_US))
        e->kernel_s = x[WK_CALIB_KERNEL_US] * 1e-6;
    /* the tool times eager operators as the host issues them, launch
     * included: the whole host cost of a Python-issued operator */
    if (HAS(WK_CALIB_DISPATCH_US))
        e->host_op_s = x[WK_CALIB_DISPATCH_US] * 1e-6;
    /* a calibration file's kernel figures come from short runs: taken at
     * the top clock (docs/models.md, "Sustained clocks"; used only under
     * perf.sustained_clock); its GEMM figures stand for the flat and the
     * shape-aware fit (perf.gemm_shapes) alike */
    if (HAS(WK_CALIB_GEMM_BF16_TFLOPS)) {
        e->mat_max = e->mat_max_q = x[WK_CALIB_GEMM_BF16_TFLOPS] * 1e12 / sku->bf16_flops;
        e->gemm_at = 1;
    }
    if (HAS(WK_CALIB_GEMM_BF16_TAIL_US)) {
        double tail = x[WK_CALIB_GEMM_BF16_TAIL_US] * 1e-6 - e->kernel_s;
        e->mat_half_flops = (tail > 0 ? tail : 0) * e->mat_max * sku->bf16_flops;
        e->mat_half_q = (tail > 0 ? tail : 0) * e->mat_max_q * sku->bf16_flops;
    }
    if (HAS(WK_CALIB_GEMM_FP8_TFLOPS)) {
        e->fp8_max = e->fp8_max_q = x[WK_CALIB_GEMM_FP8_TFLOPS] * 1e12 / sku->fp8_flops;
        e->fp8_at = 1;
    }
    if (HAS(WK_CALIB_GEMM_FP8_TAIL_US) && sku->fp8_flops > 0) {
        double tail = x[WK_CALIB_GEMM_FP8_TAIL_US] * 1e-6 - e->kernel_s;
        e->fp8_half_flops = (tail > 0 ? tail : 0) * e->fp8_max * sku->fp8_flops;
        e->fp8_half_q = (tail > 0 ? tail : 0) * e->fp8_max_q * sku->fp8_flops;
    }
    if (HAS(WK_CALIB_ATTN_FWD_TFLOPS))
        e->attn_fwd = x[WK_CALIB_ATTN_FWD_TFLOPS] * 1e12 / sku->bf16_flops;
    if (HAS(WK_CALIB_ATTN_BWD_TFLOPS))
        e->attn_bwd = x[WK_CALIB_ATTN_BWD_TFLOPS] * 1e12 / sku->bf16_flops;
    if (HAS(WK_CALIB_ATTN_FWD_TFLOPS) || HAS(WK_CALIB_ATTN_BWD_TFLOPS))
        e->attn_at = 1;
    if (HAS(WK_CALIB_MEMORY_TB_PER_S))
        e->mem_max = x[WK_CALIB_MEMORY_TB_PER_S] * 1e12 / sku->hbm_bw_bytes_per_s;
    if (HAS(WK_CALIB_ALLREDUCE_BUSBW))
        e->nvlink_eff = x[WK_CALIB_ALLREDUCE_BUSBW] * 1e9 / (sku->link_bw_bytes_per_s / 2);
    if (HAS(WK_CALIB_ALLREDUCE_STEP_US))
        e->ring_lat_s = x[WK_CALIB_ALLREDUCE_STEP_US] * 1e-6;
    if (HAS(WK_CALIB_ALLREDUCE_SMALL_US))
        e->small_coll_s = x[WK_CALIB_ALLREDUCE_SMALL_US] * 1e-6;
    e->measured = 1;
    e->borrowed = NULL;
#undef HAS
}

int wk_calib_apply(WkGpuCalib **list, WkGpuSku *sku, const WkNode *path, WkError *err)
{
    static const char *const known[] = {"format", "sku",   "gpu",    "date",   "driver", "cuda",
                                        "torch",  "device", "values", "detail", NULL};
    if (!path || path->type != WK_NODE_SCALAR || !path->str[0])
        return wk_node_error(path, WK_E_INVAL, err, "expected the path of a calibration file");
    char *file = resolve(path);
    if (!file)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "calibration: out of memory");
    WkDoc *doc = NULL;
    WkError le;
    wk_error_clear(&le);
    int rc = wk_doc_load_file(&doc, file, &le);
    if (rc < 0) {
        free(file);
        if (rc == WK_E_IO) {
            char m[600];
            return wk_node_error(path, rc, err, "calibration file: %s", wk_error_format(&le, m, sizeof m));
        }
        if (err)
            *err = le;
        return rc;
    }
    WkGpuCalib *rec = calloc(1, sizeof *rec);
    const WkNode *root = doc->root;
    const char *fmt = NULL, *s[7] = {0};
    static const char *const skeys[7] = {"sku", "gpu", "date", "driver", "cuda", "torch", "device"};
    if (!rec) {
        rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "calibration: out of memory");
        goto fail;
    }
    rec->file = file;
    file = NULL;
    if (!root) {
        rc = wk_error_set(err, WK_E_INVAL, rec->file, 0, 0, "empty calibration file: expected format: %s",
                          CALIB_FORMAT);
        goto fail;
    }
    if ((rc = wk_node_expect_keys(root, known, err)) < 0 || (rc = wk_node_str(root, "format", 1, &fmt, err)) < 0)
        goto fail;
    if (strcmp(fmt, CALIB_FORMAT) != 0) {
        rc = wk_node_error(wk_node_get(root, "format"), WK_E_INVAL, err, "unknown format '%s' (this wanka reads %s)",
                           fmt, CALIB_FORMAT);
        goto fail;
    }
    for (int i = 0; i < 7; i++)
        if ((rc = wk_node_str(root, skeys[i], i == 0 || i == 6, &s[i], err)) < 0)
            goto fail;
    const WkNode *vals = wk_node_get(root, "values");
    if (!vals || vals->type != WK_NODE_MAP) {
        rc = vals ? wk_node_error(vals, WK_E_INVAL, err, "expected a mapping of measured values")
                  : wk_node_error(root, WK_E_INVAL, err, "missing required key 'values'");
        goto fail;
    }
    if ((rc = read_values(vals, sku, rec, err)) < 0)
        goto fail;
    rec->sku = dup_or_empty(sku->name);
    rec->gpu = dup_or_empty(s[1]);
    rec->date = dup_or_empty(s[2]);
    rec->driver = dup_or_empty(s[3]);
    rec->cuda = dup_or_empty(s[4]);
    rec->torch = dup_or_empty(s[5]);
    rec->device = dup_or_empty(s[6]);
    if (!rec->sku || !rec->gpu || !rec->date || !rec->driver || !rec->cuda || !rec->torch || !rec->device) {
        rc = wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "calibration: out of memory");
        goto fail;
    }
    lay_over(rec, sku);
    if (rec->used & (1u << WK_CALIB_POWER_LIMIT_W))
        sku->tdp_w = rec->value[WK_CALIB_POWER_LIMIT_W];
    if (rec->used & (1u << WK_CALIB_IDLE_W))
        sku->idle_w = rec->value[WK_CALIB_IDLE_W];
    else if (rec->used & (1u << WK_CALIB_POWER_LIMIT_W))
        sku->idle_w = WK_GPU_IDLE_FRACTION * sku->tdp_w;
    sku->eff = &rec->eff;
    sku->calib = rec;
    rec->next = *list;
    *list = rec;
    wk_doc_free(doc);
    return 0;
fail:
    free(file);
    wk_calib_free(rec);
    wk_doc_free(doc);
    return rc;
}

int wk_calib_file_sku(const WkNode *path, char *out, size_t n, WkError *err)
{
    if (!path || path->type != WK_NODE_SCALAR || !path->str[0])
        return wk_node_error(path, WK_E_INVAL, err, "expected the path of a calibration file");
    char *file = resolve(path);
    if (!file)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "calibration: out of memory");
    WkDoc *doc = NULL;
    WkError le;
    wk_error_clear(&le);
    const char *s = NULL;
    int rc = wk_doc_load_file(&doc, file, &le);
    free(file);
    if (rc < 0) {
        char m[600];
        if (rc == WK_E_IO)
            return wk_node_error(path, rc, err, "calibration file: %s", wk_error_format(&le, m, sizeof m));
        if (err)
            *err = le;
        return rc;
    }
    if (!doc->root)
        rc = wk_error_set(err, WK_E_INVAL, doc->file, 0, 0, "empty calibration file: expected format: %s",
                          CALIB_FORMAT);
    else if ((rc = wk_node_str(doc->root, "sku", 1, &s, err)) == 0)
        snprintf(out, n, "%s", s);
    wk_doc_free(doc);
    return rc;
}

const char *wk_calib_describe(const WkGpuSku *sku, char *buf, size_t n)
{
    const WkGpuCalib *r = sku->calib;
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    if (!r || !n)
        return buf;
#define PUT(...)                                                                                                       \
    do {                                                                                                               \
        if (used < n)                                                                                                  \
            used += (size_t)snprintf(buf + used, n - used, __VA_ARGS__);                                               \
    } while (0)
    PUT("calibration of %s: %s (%s, %s, driver %s, CUDA %s, PyTorch %s, device %s)", sku->name, r->file,
        r->gpu[0] ? r->gpu : "GPU not named", r->date[0] ? r->date : "undated", r->driver[0] ? r->driver : "-",
        r->cuda[0] ? r->cuda : "-", r->torch[0] ? r->torch : "-", r->device);
    int any = 0;
    for (int v = 0; v < WK_CALIB_NUSED; v++)
        if (r->used & (1u << v)) {
            PUT("%s%s", any ? ", " : "; from it: ", keys[v]);
            any = 1;
        }
    if (!any)
        PUT("; no value the model reads");
    PUT("; the rest from the catalog");
#undef PUT
    return buf;
}
