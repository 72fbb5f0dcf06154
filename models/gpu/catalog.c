/* SPDX-License-Identifier: Apache-2.0 */
/* catalog.c — the built-in GPU SKU table (and one CPU node, catalog.h). Idle power is taken as 12.5 % of
 * TDP, the middle of the 10–15 % range in ../shared/REFERENCES.md, for every
 * SKU (a modelling choice, documented in docs/models.md). */
#include "models/gpu/catalog.h"

#include "models/gpu/calib.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define T 1e12
#define GB 1e9
#define MIB (1024.0 * 1024.0) /* device memory: the total the driver reports (docs/models.md) */
#define IDLE_FRACTION WK_GPU_IDLE_FRACTION

static const WkGpuSku skus[] = {
    {
        .name = "A100-SXM-80G",
        .bf16_flops = 312 * T, .fp8_flops = 0,
        .hbm_bytes = 81920 * MIB, .hbm_bw_bytes_per_s = 2.0e12, /* nvidia-smi total, A100-SXM4-80GB */
        .link_bw_bytes_per_s = 600 * GB, /* NVLink3, bidirectional */
        .tdp_w = 400, .idle_w = 400 * IDLE_FRACTION,
        .source = "NVIDIA A100 datasheet (2021): 312 TFLOP/s BF16 dense, 80 GB HBM2e 2.0 TB/s, NVLink 600 GB/s, 400 W",
    },
    {
        .name = "H100-SXM-80G",
        .bf16_flops = 989 * T, .fp8_flops = 1979 * T,
        .hbm_bytes = 81559 * MIB, .hbm_bw_bytes_per_s = 3.35e12, /* nvidia-smi total, H100 80GB HBM3 */
        .link_bw_bytes_per_s = 900 * GB, /* NVLink4, bidirectional */
        .tdp_w = 700, .idle_w = 700 * IDLE_FRACTION,
        .source = "NVIDIA H100 datasheet (2023): 989 TFLOP/s BF16 dense, 1979 FP8, 80 GB HBM3 3.35 TB/s, NVLink 900 GB/s, 700 W",
    },
    {
        .name = "H200-SXM",
        .bf16_flops = 989 * T, .fp8_flops = 1979 * T,
        .hbm_bytes = 143771 * MIB, .hbm_bw_bytes_per_s = 4.8e12, /* nvidia-smi total, H200 */
        .link_bw_bytes_per_s = 900 * GB,
        .tdp_w = 700, .idle_w = 700 * IDLE_FRACTION,
        .source = "NVIDIA H200 datasheet (2024): 989 TFLOP/s BF16 dense, 141 GB HBM3e 4.8 TB/s, 700 W",
    },
    {
        .name = "MI300X",
        .bf16_flops = 1307 * T, .fp8_flops = 2615 * T,
        .hbm_bytes = 196592 * MIB, .hbm_bw_bytes_per_s = 5.3e12, /* rocminfo pool, 201,310,208 KiB */
        .link_bw_bytes_per_s = 896 * GB, /* 7 Infinity Fabric links x 128 GB/s */
        .tdp_w = 750, .idle_w = 750 * IDLE_FRACTION,
        .source = "AMD Instinct MI300X datasheet (2023): 1307 TFLOP/s BF16 dense, 2615 FP8, 192 GB HBM3 5.3 TB/s, 750 W",
    },
    {
        .name = "Ascend-910B",
        .bf16_flops = 320 * T, .fp8_flops = 0,
        .hbm_bytes = 64 * GB, .hbm_bw_bytes_per_s = 1.6e12,
        .link_bw_bytes_per_s = 392 * GB, /* HCCS */
        .tdp_w = 400, .idle_w = 400 * IDLE_FRACTION,
        .source = "Huawei Ascend 910B vendor figures: ~320 TFLOP/s FP16, 64 GB HBM2e ~1.6 TB/s, HCCS 392 GB/s, ~400 W",
    },
    {
        /* A CPU node of a CPU supercomputer: two EPYC 9654 sockets (catalog.h,
         * "A CPU SKU"). FP64 = 2 sockets x 96 cores x 2.40 GHz base x 16
         * FLOP/cycle (two 256-bit FMA pipes; Zen 4 runs AVX-512 on a 256-bit
         * data path) = 7.37 TFLOP/s; DRAM bandwidth = 2 x 12 channels x
         * DDR5-4800 x 8 bytes = 921.6 GB/s; 768 GB = one 32 GB DIMM per
         * channel (a configuration choice); socket link = 4 Infinity Fabric
         * links x16 at 32 Gbps = 256 GB/s each way; TDP = 2 x 360 W (the
         * sockets; DIMMs and NIC not counted); idle as every SKU. */
        .name = "EPYC-9654-2S",
        .bf16_flops = 7.3728 * T, .fp8_flops = 0, .fp64_flops = 7.3728 * T,
        .hbm_bytes = 768 * GB, .hbm_bw_bytes_per_s = 921.6 * GB,
        .link_bw_bytes_per_s = 512 * GB, /* bidirectional, as the GPUs' */
        .tdp_w = 720, .idle_w = 720 * IDLE_FRACTION,
        .cpu = 1,
        .source = "AMD EPYC 9004 series specifications (2022): EPYC 9654 96 cores, 2.40 GHz base, 12 x DDR5-4800, "
                  "4 x Infinity Fabric links 32 Gbps, AVX-512 on a 256-bit data path, 360 W default TDP; a CPU node "
                  "of 2 sockets: 7.37 TFLOP/s FP64, 921.6 GB/s DRAM, 720 W",
    },
    {
        /* Volta (2017): no BF16; bf16_flops holds the FP16 tensor-core peak,
         * 80 SMs x 8 tensor cores x 64 FMA x 2 x 1530 MHz = 125.3 TFLOP/s
         * (NVIDIA Tesla V100 GPU Architecture whitepaper, 2017, Table 1:
         * SXM2, 80 SMs, 640 tensor cores, GPU boost clock 1530 MHz); the
         * rest from the datasheet. The SXM3 module of DGX-2 is the same GPU
         * (its clock and power limit are not in the datasheet: docs/models.md). */
        .name = "V100-SXM2-32G",
        .bf16_flops = 125 * T, .fp8_flops = 0, .fp64_flops = 7.8 * T,
        .hbm_bytes = 32510 * MIB, .hbm_bw_bytes_per_s = 900 * GB, /* nvidia-smi total, V100-SXM2-32GB */
        .link_bw_bytes_per_s = 300 * GB, /* NVLink 2: 6 links x 50 GB/s, bidirectional */
        .tdp_w = 300, .idle_w = 300 * IDLE_FRACTION,
        .fp16_only = 1,
        .source = "NVIDIA Tesla V100 datasheet (2020, SXM2): 125 TFLOP/s FP16 tensor (no BF16), 15.7 FP32, 7.8 FP64, "
                  "32 GB HBM2 900 GB/s, NVLink 300 GB/s, 300 W; V100 whitepaper: 80 SMs, boost 1530 MHz",
    },
    {
        /* The 16 GB V100 SXM2: the same GPU, clock and power as
         * V100-SXM2-32G (one datasheet covers both); only the memory differs. */
        .name = "V100-SXM2-16G",
        .bf16_flops = 125 * T, .fp8_flops = 0, .fp64_flops = 7.8 * T,
        .hbm_bytes = 16160 * MIB, .hbm_bw_bytes_per_s = 900 * GB, /* nvidia-smi total, V100-SXM2-16GB */
        .link_bw_bytes_per_s = 300 * GB, /* NVLink 2: 6 links x 50 GB/s, bidirectional */
        .tdp_w = 300, .idle_w = 300 * IDLE_FRACTION,
        .fp16_only = 1,
        .source = "NVIDIA Tesla V100 datasheet (2020, SXM2): 125 TFLOP/s FP16 tensor (no BF16), 15.7 FP32, 7.8 FP64, "
                  "16 GB HBM2 900 GB/s, NVLink 300 GB/s, 300 W",
    },
    {
        /* Pascal (2016): no tensor cores. bf16_flops holds the FP16 peak of
         * the CUDA cores (two FP16 operations per FP32 lane): 56 SMs x 64
         * lanes x 2 x 2 FLOP x 1303 MHz = 18.7 TFLOP/s. The PCIe card, not
         * the SXM2 module (21.2 TFLOP/s FP16, 300 W, NVLink): see
         * docs/models.md for why. */
        .name = "P100-PCIe-16G",
        .bf16_flops = 18.7 * T, .fp8_flops = 0, .fp64_flops = 4.7 * T,
        .hbm_bytes = 16 * GB, .hbm_bw_bytes_per_s = 732 * GB,
        .link_bw_bytes_per_s = 32 * GB, /* PCIe Gen3 x16, bidirectional */
        .tdp_w = 250, .idle_w = 250 * IDLE_FRACTION,
        .fp16_only = 1,
        .source = "NVIDIA Tesla P100 datasheet (2016, PCIe): 18.7 TFLOP/s FP16 (no tensor cores, no BF16), "
                  "9.3 FP32, 4.7 FP64, 16 GB HBM2 732 GB/s, PCIe Gen3 32 GB/s, 250 W",
    },
    {
        /* Turing (2018): FP16 tensor cores, no BF16; bf16_flops holds the
         * FP16 tensor peak, 40 SMs x 8 tensor cores x 64 FMA x 2 x 1590 MHz
         * = 65 TFLOP/s. A PCIe card only. */
        .name = "T4-16G",
        .bf16_flops = 65 * T, .fp8_flops = 0, .fp64_flops = 0,
        .hbm_bytes = 15360 * MIB, .hbm_bw_bytes_per_s = 320 * GB, /* GDDR6; nvidia-smi total, T4 */
        .link_bw_bytes_per_s = 32 * GB, /* PCIe Gen3 x16, bidirectional */
        .tdp_w = 70, .idle_w = 70 * IDLE_FRACTION,
        .fp16_only = 1,
        .source = "NVIDIA T4 datasheet (2019): 65 TFLOP/s FP16 tensor (mixed precision; no BF16), 8.1 FP32, "
                  "16 GB GDDR6 320 GB/s, PCIe Gen3 x16 32 GB/s, 70 W",
    },
    {
        /* Ampere GA102 (2021): BF16 tensor cores, 125 TFLOP/s dense (250
         * with sparsity) = 72 SMs x 1024 FLOP x 1695 MHz. A PCIe card only. */
        .name = "A10-24G",
        .bf16_flops = 125 * T, .fp8_flops = 0, .fp64_flops = 0,
        .hbm_bytes = 23028 * MIB, .hbm_bw_bytes_per_s = 600 * GB, /* GDDR6; nvidia-smi total, A10 */
        .link_bw_bytes_per_s = 64 * GB, /* PCIe Gen4 x16, bidirectional */
        .tdp_w = 150, .idle_w = 150 * IDLE_FRACTION,
        .source = "NVIDIA A10 datasheet (2021): 125 TFLOP/s BF16/FP16 dense (250 sparse), 31.2 FP32, "
                  "24 GB GDDR6 600 GB/s, PCIe Gen4 64 GB/s, 150 W",
    },
};

#define NSKU (sizeof skus / sizeof skus[0])

const WkGpuSku *wk_catalog_find(const char *name)
{
    for (size_t i = 0; i < NSKU; i++)
        if (strcmp(skus[i].name, name) == 0)
            return &skus[i];
    return NULL;
}

size_t wk_catalog_count(void) { return NSKU; }

const WkGpuSku *wk_catalog_at(size_t i) { return i < NSKU ? &skus[i] : NULL; }

/* FNV-1a of a name. */
static size_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

/* The slot holding name, or the empty slot where it would go. */
static size_t slot_of(const WkGpuCatalog *c, const char *name)
{
    size_t mask = c->nslot - 1, i = name_hash(name) & mask;
    while (c->slot[i] && strcmp(c->skus[c->slot[i] - 1].name, name) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Rebuild the hash with at least 2 x want slots. Returns 0 or -1 (out of memory, c unchanged). */
static int rehash(WkGpuCatalog *c, size_t want)
{
    size_t ns = 16;
    while (ns < 2 * want)
        ns *= 2;
    size_t *sl = calloc(ns, sizeof *sl);
    if (!sl)
        return -1;
    free(c->slot);
    c->slot = sl;
    c->nslot = ns;
    for (size_t i = 0; i < c->n; i++)
        c->slot[slot_of(c, c->skus[i].name)] = i + 1;
    return 0;
}

int wk_catalog_init(WkGpuCatalog *c, WkError *err)
{
    c->skus = malloc(sizeof skus);
    c->slot = NULL;
    c->nslot = 0;
    c->calib = NULL;
    if (!c->skus)
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "catalog: out of memory");
    memcpy(c->skus, skus, sizeof skus);
    c->n = c->cap = NSKU;
    if (rehash(c, NSKU) < 0) {
        wk_catalog_fini(c);
        return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "catalog: out of memory");
    }
    for (size_t i = 0; i < NSKU; i++)
        c->skus[i].eff = wk_eff_find(skus[i].name);
    return 0;
}

const WkGpuEff *wk_catalog_eff(const WkGpuSku *sku)
{
    if (sku->eff)
        return sku->eff;
    const WkGpuEff *e = wk_eff_find(sku->name);
    return e ? e : wk_eff_nearest(sku->bf16_flops);
}

void wk_catalog_fini(WkGpuCatalog *c)
{
    free(c->skus);
    free(c->slot);
    wk_calib_free(c->calib);
    c->calib = NULL;
    c->skus = NULL;
    c->slot = NULL;
    c->n = c->cap = c->nslot = 0;
}

const WkGpuSku *wk_catalog_lookup(const WkGpuCatalog *c, const char *name)
{
    if (!c->nslot) { /* not from wk_catalog_init: a plain scan */
        for (size_t i = 0; i < c->n; i++)
            if (strcmp(c->skus[i].name, name) == 0)
                return &c->skus[i];
        return NULL;
    }
    size_t i = c->slot[slot_of(c, name)];
    return i ? &c->skus[i - 1] : NULL;
}

const char *wk_catalog_list(const WkGpuCatalog *c, char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < c->n && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", c->skus[i].name);
    return buf;
}

/* One numeric field: key, scale from YAML units to SI, where in the struct. */
typedef struct {
    const char *key;
    double scale;
    size_t offset;
    int required_new; /* required when defining a SKU from scratch */
} Field;

static const Field fields[] = {
    {"bf16_tflops", 1e12, offsetof(WkGpuSku, bf16_flops), 1},
    {"fp8_tflops", 1e12, offsetof(WkGpuSku, fp8_flops), 0},
    {"hbm_gb", 1e9, offsetof(WkGpuSku, hbm_bytes), 1},
    {"hbm_tb_per_s", 1e12, offsetof(WkGpuSku, hbm_bw_bytes_per_s), 1},
    {"link_gb_per_s", 1e9, offsetof(WkGpuSku, link_bw_bytes_per_s), 1},
    {"tdp_w", 1, offsetof(WkGpuSku, tdp_w), 1},
    {"idle_w", 1, offsetof(WkGpuSku, idle_w), 0},
    {"fp64_tflops", 1e12, offsetof(WkGpuSku, fp64_flops), 0},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

int wk_catalog_apply(WkGpuCatalog *c, const WkNode *seq, WkError *err)
{
    static const char *const known[] = {"name",   "base",        "source",        "bf16_tflops", "fp8_tflops",
                                        "hbm_gb", "hbm_tb_per_s", "link_gb_per_s", "tdp_w",       "idle_w",
                                        "fp64_tflops", "cpu",     "calibration", NULL};
    if (!seq || seq->type == WK_NODE_NULL)
        return 0;
    if (seq->type != WK_NODE_SEQ)
        return wk_node_error(seq, WK_E_INVAL, err, "expected a list of SKUs");
    for (size_t i = 0; i < seq->nkids; i++) {
        const WkNode *e = seq->kids[i];
        const char *name = NULL, *base = NULL, *source = NULL;
        int rc = wk_node_expect_keys(e, known, err);
        if (rc < 0 || (rc = wk_node_str(e, "name", 1, &name, err)) < 0 ||
            (rc = wk_node_str(e, "base", 0, &base, err)) < 0 || (rc = wk_node_str(e, "source", 0, &source, err)) < 0)
            return rc;
        WkGpuSku *target = (WkGpuSku *)wk_catalog_lookup(c, name);
        WkGpuSku sku = {0};
        int is_new = target == NULL;
        if (!is_new && base)
            return wk_node_error(wk_node_get(e, "base"), WK_E_INVAL, err,
                                 "'%s' is already a SKU: override its fields without 'base'", name);
        if (base) {
            const WkGpuSku *b = wk_catalog_lookup(c, base);
            if (!b) {
                char names[512];
                return wk_node_error(wk_node_get(e, "base"), WK_E_NOTFOUND, err, "unknown base SKU '%s' (known: %s)",
                                     base, wk_catalog_list(c, names, sizeof names));
            }
            sku = *b;
        } else if (!is_new) {
            sku = *target;
        }
        sku.name = name;
        sku.source = source ? source : is_new ? "defined in the scenario" : sku.source;
        for (size_t f = 0; f < NFIELDS; f++) {
            double v = 0;
            const WkNode *fn = wk_node_get(e, fields[f].key);
            if (!fn) {
                if (is_new && !base && fields[f].required_new)
                    return wk_node_error(e, WK_E_INVAL, err, "new SKU '%s' needs '%s' (or 'base: SKU' to start from)",
                                         name, fields[f].key);
                continue;
            }
            if ((rc = wk_node_double(e, fields[f].key, 1, fields[f].required_new ? 0.001 : 0, 1e6, &v, err)) < 0)
                return rc;
            *(double *)((char *)&sku + fields[f].offset) = v * fields[f].scale;
        }
        if (is_new && !base)
            sku.eff = wk_eff_nearest(sku.bf16_flops);
        if ((rc = wk_node_bool(e, "cpu", 0, &sku.cpu, err)) < 0)
            return rc;
        if (wk_node_get(e, "tdp_w") && !wk_node_get(e, "idle_w"))
            sku.idle_w = IDLE_FRACTION * sku.tdp_w;
        if (sku.idle_w > sku.tdp_w)
            return wk_node_error(wk_node_get(e, "idle_w") ? wk_node_get(e, "idle_w") : e, WK_E_RANGE, err,
                                 "idle power %.0f W exceeds TDP %.0f W", sku.idle_w, sku.tdp_w);
        if (wk_node_get(e, "calibration") && (rc = wk_calib_apply(&c->calib, &sku, wk_node_get(e, "calibration"), err)) < 0)
            return rc;
        if (is_new) {
            if (c->n == c->cap) {
                size_t nc = c->cap ? 2 * c->cap : 16;
                WkGpuSku *n = realloc(c->skus, nc * sizeof *n);
                if (!n)
                    return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "catalog: out of memory");
                c->skus = n;
                c->cap = nc;
            }
            if (c->nslot && 2 * (c->n + 1) > c->nslot && rehash(c, c->n + 1) < 0)
                return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "catalog: out of memory");
            c->skus[c->n++] = sku;
            if (c->nslot)
                c->slot[slot_of(c, name)] = c->n;
        } else {
            *target = sku;
        }
    }
    return 0;
}

int wk_catalog_calibrate(WkGpuCatalog *c, const WkNode *val, WkError *err)
{
    if (!val || val->type == WK_NODE_NULL)
        return 0;
    size_t count = 0;
    const WkNode *const *items = wk_node_items((const WkNode *const *)&val, &count);
    for (size_t i = 0; i < count; i++) {
        char name[256];
        int rc = wk_calib_file_sku(items[i], name, sizeof name, err);
        if (rc < 0)
            return rc;
        WkGpuSku *sku = (WkGpuSku *)wk_catalog_lookup(c, name);
        if (!sku) {
            char names[512];
            return wk_node_error(items[i], WK_E_NOTFOUND, err,
                                 "the calibration file names SKU '%s', which is not in the catalog (known: %s)", name,
                                 wk_catalog_list(c, names, sizeof names));
        }
        if ((rc = wk_calib_apply(&c->calib, sku, items[i], err)) < 0)
            return rc;
    }
    return 0;
}
