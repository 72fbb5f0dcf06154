/* SPDX-License-Identifier: Apache-2.0 */
/* fail.c — failure and checkpoint settings: defaults (class rates and their
 * sources are in the class table, fail_class.c), parsing,
 * Young/Daly closed forms. */
#include "models/fail/fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const step_names[] = {"drain", "launch", "init", "load", "warmup"};

const char *wk_rec_step_name(WkRecStep st) { return st < WK_RSTEP_N ? step_names[st] : "?"; }

double wk_fail_restart_steps(const WkFailSpec *f, double bytes, uint32_t gpus, uint32_t nodes, int spare, double *out)
{
    double load;
    if (f->mode == WK_CKPT_MEMORY && f->memory_restore_speedup > 0)
        load = bytes / f->storage_bw / f->memory_restore_speedup; /* the older model, when the scenario gives it */
    else if (f->restore == WK_RESTORE_PEER)
        load = bytes / ((gpus ? gpus : 1) * f->peer_bw); /* every GPU pulls its shard from a peer at once */
    else if (f->restore == WK_RESTORE_LOCAL)
        load = bytes / ((nodes ? nodes : 1) * f->local_bw); /* every node reads its shard from its own disk */
    else
        load = bytes / f->storage_bw; /* the shared file system's bandwidth, whatever the job's size */
    out[WK_RSTEP_DRAIN] = spare ? 0 : wk_time_to_s(f->drain); /* a hot swap stops the job in the framework, not
                                                                 through the scheduler's kill */
    out[WK_RSTEP_LAUNCH] = wk_time_to_s(spare ? f->spare_launch : f->launch);
    out[WK_RSTEP_INIT] = f->init_s_per_gpu * gpus;
    out[WK_RSTEP_LOAD] = load;
    out[WK_RSTEP_WARMUP] = wk_time_to_s(f->warmup);
    double sum = 0;
    for (int k = 0; k < WK_RSTEP_N; k++)
        sum += out[k];
    return sum;
}

static const char *const kind_names[] = {"down", "throttle", "straggler", "software", NULL};
static const char *const scope_names[] = {"gpu", "node", "rack", "pod", NULL};

const char *wk_incident_kind_name(WkIncidentKind k) { return k <= WK_INC_SOFT ? kind_names[k] : "?"; }

void wk_fail_defaults(WkFailSpec *f)
{
    memset(f, 0, sizeof *f);
    for (int c = 0; c < WK_FC_N; c++) {
        const WkFailClassInfo *ci = wk_fail_class_get((WkFailClass)c);
        WkFailClassSpec *s = &f->cls[c];
        double mttf_d = wk_fail_class_mttf_days(ci);
        s->on = mttf_d > 0;
        s->ttf = (WkDist){.kind = WK_DIST_EXPONENTIAL, .a = mttf_d * 86400};
        s->repair = ci->repair_median_h > 0
                        ? (WkDist){.kind = WK_DIST_LOGNORMAL, .a = log(ci->repair_median_h * 3600), .b = 1.0}
                        : (WkDist){.kind = WK_DIST_CONSTANT, .a = 0};
    }
    f->nodes_per_rack = 4;                  /* 4 DGX-class nodes per rack: 32 GPUs (the seed paper's rack 3) */
    f->health_check = 5 * WK_NS_PER_MIN;   /* health checks every 5 min (Meta RSC, REFERENCES.md) */
    f->nccl_timeout = 10 * WK_NS_PER_MIN;  /* NCCL watchdog default timeout: 10 min (choice) */
    f->interval_rule = WK_CKPT_YOUNG;
    f->interval = 30 * WK_NS_PER_MIN;
    f->bytes_per_param = 14;               /* bf16 weights + fp32 master + Adam (REFERENCES.md) */
    f->plain_ckpt_bytes = 10e9;            /* a job without a model: 10 GB (choice) */
    f->storage_bw = 1e12;                  /* 1 TB/s parallel file system (choice) */
    f->host_bw = 25e9;                     /* PCIe Gen5 x16 ~ 25 GB/s to host memory per GPU (choice) */
    f->mode = WK_CKPT_REMOTE;
    f->memory_restore_speedup = 0;         /* by tier; given: the older "remote / speedup" (Gemini SOSP'23: 13x) */
    f->restore = WK_RESTORE_REMOTE;        /* mode memory: peer (set in the parse) */
    f->local_bw = 25e9;                    /* local NVMe per node: ~4 PCIe Gen4 drives x ~6.5 GB/s read (choice) */
    f->peer_bw = 25e9;                     /* peer host memory per GPU: the PCIe Gen5 x16 host-to-GPU copy bounds it
                                              (a 400G NIC carries 50 GB/s); Gemini (SOSP'23) restores from peers' CPU memory */
    /* the restart steps (docs/models.md, "Recovery time breakdown") */
    f->drain = 30 * WK_NS_PER_S;           /* Slurm KillWait default 30 s between SIGTERM and SIGKILL (slurm.conf(5)) */
    f->launch = 10 * WK_NS_PER_MIN;        /* relaunch through the scheduler: Meta RSC restart overhead 5–20 min
                                              (Kokolis et al., HPCA'25; REFERENCES.md) */
    f->spare_launch = 0;                   /* standby machines run the job's processes before they are needed
                                              (TrainMover, arXiv:2412.12636: ~20 s downtime in all at 1,024 GPUs) */
    f->init_s_per_gpu = 2.5e-3;            /* MegaScale (NSDI'24) §3.5: 2,048 GPUs initialise in < 5 s, > 10,000 in < 30 s */
    f->warmup = 20 * WK_NS_PER_S;          /* torch.compile from a warm cache: 5–20 s (Baseten docs, "Torch compile
                                              caching"); 30–40 s (pytorch-labs/gpt-fast#43) */
    f->recovery = WK_RECOVER_RESCHEDULE;
}

void wk_fail_fini(WkFailSpec *f)
{
    free(f->procs);
    free(f->scripted);
    f->procs = NULL;
    f->scripted = NULL;
}

static int parse_process(const WkNode *e, WkFailProcess *p, WkError *err)
{
    static const char *const known[] = {"kind", "scope", "mtbf", "duration", "clock", NULL};
    int kind = WK_INC_THROTTLE, scope = WK_SCOPE_GPU, rc;
    *p = (WkFailProcess){.clock = 0.7};
    if ((rc = wk_node_expect_keys(e, known, err)) < 0 || (rc = wk_node_enum(e, "kind", 1, kind_names, &kind, err)) < 0 ||
        (rc = wk_node_enum(e, "scope", 0, scope_names, &scope, err)) < 0 ||
        (rc = wk_dist_parse(e, "mtbf", 1, &p->ttf, err)) < 0 ||
        (rc = wk_dist_parse(e, "duration", 1, &p->duration, err)) < 0 ||
        (rc = wk_node_double(e, "clock", 0, 0.01, 1, &p->clock, err)) < 0)
        return rc;
    if (kind == WK_INC_SOFT)
        return wk_node_error(wk_node_get(e, "kind"), WK_E_INVAL, err,
                             "a process is down, throttle or straggler (software failures are the 'software' class)");
    p->kind = (WkIncidentKind)kind;
    p->scope = (WkScope)scope;
    return 0;
}

static int parse_scripted(const WkNode *e, uint32_t gpus, uint32_t nodes, uint32_t pods, uint32_t npr,
                          WkScripted *s, WkError *err)
{
    static const char *const known[] = {"at", "kind", "gpu", "node", "rack", "pod", "gpus", "duration", "clock", NULL};
    int kind = 0, rc;
    *s = (WkScripted){.clock = 0.7, .line = e->line, .col = e->col};
    WkTime dur = 0;
    int64_t ng = 0;
    if ((rc = wk_node_expect_keys(e, known, err)) < 0 || (rc = wk_node_duration(e, "at", 1, 0, WK_TIME_NEVER / 4, &s->at, err)) < 0 ||
        (rc = wk_node_enum(e, "kind", 1, kind_names, &kind, err)) < 0 ||
        (rc = wk_node_duration(e, "duration", kind != WK_INC_SOFT, 1, WK_TIME_NEVER / 4, &dur, err)) < 0 ||
        (rc = wk_node_double(e, "clock", 0, 0.01, 1, &s->clock, err)) < 0 ||
        (rc = wk_node_int(e, "gpus", 0, 1, UINT32_MAX, &ng, err)) < 0)
        return rc;
    s->kind = (WkIncidentKind)kind;
    s->duration = dur;
    s->gpus = (uint32_t)ng;
    static const char *const targets[] = {"gpu", "node", "rack", "pod"};
    const uint32_t limit[] = {gpus, nodes, (nodes + npr - 1) / npr, pods};
    int found = -1;
    for (int t = 0; t < 4; t++) {
        if (!wk_node_get(e, targets[t]))
            continue;
        if (found >= 0)
            return wk_node_error(wk_node_get(e, targets[t]), WK_E_INVAL, err,
                                 "give one target: gpu, node, rack or pod");
        found = t;
        int64_t idx = 0;
        if ((rc = wk_node_int(e, targets[t], 1, 0, INT64_MAX, &idx, err)) < 0)
            return rc;
        if ((uint64_t)idx >= limit[t])
            return wk_node_error(wk_node_get(e, targets[t]), WK_E_RANGE, err,
                                 "%s %lld does not exist (the cluster has %u %s%s, numbered from 0)", targets[t],
                                 (long long)idx, limit[t], targets[t], limit[t] == 1 ? "" : "s");
        s->index = (uint32_t)idx;
        s->scope = (WkScope)t;
    }
    if (found < 0)
        return wk_node_error(e, WK_E_INVAL, err, "an incident needs a target: gpu, node, rack or pod");
    return 0;
}

/* Young and Daly derive a job's interval from the rates of the random
 * failure classes that run. Without any (no `failures:` section,
 * `enabled: false`, every class off), a rule the scenario names is a
 * positioned error; the default rule then writes no checkpoints
 * (docs/scenarios.md). A fixed interval always holds. */
static int checkpoint_rule(WkFailSpec *f, const WkNode *fn, const WkNode *cn, WkError *err)
{
    if (f->interval_rule != WK_CKPT_YOUNG && f->interval_rule != WK_CKPT_DALY)
        return 0;
    int any = 0;
    for (int c = 0; c < WK_FC_N; c++)
        any |= f->enabled && f->cls[c].on;
    if (any)
        return 0;
    const WkNode *iv = cn && cn->type == WK_NODE_MAP ? wk_node_get(cn, "interval") : NULL;
    if (!iv) {
        f->interval_rule = WK_CKPT_NONE;
        return 0;
    }
    const char *why = !fn || fn->type == WK_NODE_NULL ? "there is no failures section"
                      : !f->enabled                   ? "failures.enabled is false"
                                                      : "every failure class is disabled";
    return wk_node_error(iv, WK_E_INVAL, err,
                         "interval %s derives the checkpoint interval from the rates of the random failures, "
                         "but none runs (%s): give the interval as a duration (e.g. 1h) or none",
                         f->interval_rule == WK_CKPT_YOUNG ? "young" : "daly", why);
}

/* The restart steps under `recovery:` (rn may be NULL). The older
 * `checkpoint.launch` is the whole fixed restart cost in one: given, it is
 * the relaunch and the hot spare's launch, and drain, init and warm-up are
 * 0 (a scenario that gives it keeps its old restart times); it cannot be
 * given with any step key. */
static int restart_steps(WkFailSpec *f, const WkNode *cn, const WkNode *rn, WkError *err)
{
    static const char *const steps[] = {"drain", "relaunch", "spare_launch", "init_per_gpu", "warmup", NULL};
    const WkNode *lump = cn && cn->type == WK_NODE_MAP ? wk_node_get(cn, "launch") : NULL;
    int rc;
    if (lump) {
        for (int k = 0; rn && steps[k]; k++)
            if (wk_node_get(rn, steps[k]))
                return wk_node_error(wk_node_get(rn, steps[k]), WK_E_INVAL, err,
                                     "cannot be given with checkpoint.launch (the whole restart cost in one): give "
                                     "the steps under recovery (drain, relaunch, spare_launch, init_per_gpu, "
                                     "warmup) and no checkpoint.launch");
        f->drain = 0;
        f->spare_launch = f->launch;   /* and a hot spare pays it too, as it always did */
        f->init_s_per_gpu = 0;
        f->warmup = 0;
        return 0;
    }
    if (!rn)
        return 0;
    WkTime per_gpu = (WkTime)(f->init_s_per_gpu * 1e9 + 0.5);
    if ((rc = wk_node_duration(rn, "drain", 0, 0, WK_NS_PER_DAY, &f->drain, err)) < 0 ||
        (rc = wk_node_duration(rn, "relaunch", 0, 0, WK_NS_PER_DAY, &f->launch, err)) < 0 ||
        (rc = wk_node_duration(rn, "spare_launch", 0, 0, WK_NS_PER_DAY, &f->spare_launch, err)) < 0 ||
        (rc = wk_node_duration(rn, "init_per_gpu", 0, 0, WK_NS_PER_MIN, &per_gpu, err)) < 0 ||
        (rc = wk_node_duration(rn, "warmup", 0, 0, WK_NS_PER_DAY, &f->warmup, err)) < 0)
        return rc;
    f->init_s_per_gpu = wk_time_to_s(per_gpu);
    return 0;
}

int wk_fail_parse(const WkNode *fn, const WkNode *cn, const WkNode *rn, uint32_t gpus, uint32_t nodes,
                  uint32_t pods, WkFailSpec *f, WkError *err)
{
    static const char *const fkeys[] = {"enabled", "classes", "processes", "incidents", "nodes_per_rack",
                                        "health_check", "nccl_timeout", "diurnal_amplitude", NULL};
    static const char *const ckeys[] = {"interval", "bytes_per_param", "plain_gb", "storage_gb_per_s",
                                        "host_gb_per_s", "mode", "memory_restore_speedup", "launch", "restore",
                                        "local_gb_per_s", "peer_gb_per_s", NULL};
    static const char *const rkeys[] = {"mode", "spare_nodes", "drain", "relaunch", "spare_launch", "init_per_gpu",
                                        "warmup", NULL};
    static const char *const tiers[] = {"remote", "local", "peer", NULL};
    static const char *const ckkeys[] = {"enabled", "mtbf", "repair", NULL};
    static const char *const modes[] = {"remote", "async", "memory", NULL};
    static const char *const rmodes[] = {"reschedule", "spares", "wait", NULL};
    wk_fail_defaults(f);
    int rc;
    if (fn && fn->type != WK_NODE_NULL) {
        int en = 1;
        int64_t npr = f->nodes_per_rack;
        if ((rc = wk_node_expect_keys(fn, fkeys, err)) < 0 || (rc = wk_node_bool(fn, "enabled", 0, &en, err)) < 0 ||
            (rc = wk_node_int(fn, "nodes_per_rack", 0, 1, 1 << 20, &npr, err)) < 0 ||
            (rc = wk_node_duration(fn, "health_check", 0, 0, WK_NS_PER_DAY, &f->health_check, err)) < 0 ||
            (rc = wk_node_duration(fn, "nccl_timeout", 0, 0, WK_NS_PER_DAY, &f->nccl_timeout, err)) < 0 ||
            (rc = wk_node_double(fn, "diurnal_amplitude", 0, 0, 0.5, &f->diurnal_amplitude, err)) < 0)
            return rc;
        f->enabled = en;
        f->nodes_per_rack = (uint32_t)npr;
        const WkNode *cl = wk_node_get(fn, "classes");
        if (cl && cl->type != WK_NODE_NULL) {
            const char *names[WK_FC_N + 1] = {NULL}; /* the classes, without the trace's "event" */
            for (int c = 0; c < WK_FC_N; c++)
                names[c] = wk_fail_class_names[c];
            if ((rc = wk_node_expect_keys(cl, names, err)) < 0)
                return rc;
            for (int c = 0; c < WK_FC_N; c++) {
                const WkNode *e = wk_node_get(cl, names[c]);
                if (!e || e->type == WK_NODE_NULL)
                    continue;
                int on = 1;
                if ((rc = wk_node_expect_keys(e, ckkeys, err)) < 0 || (rc = wk_node_bool(e, "enabled", 0, &on, err)) < 0 ||
                    (rc = wk_dist_parse(e, "mtbf", 0, &f->cls[c].ttf, err)) < 0 ||
                    (rc = wk_dist_parse(e, "repair", 0, &f->cls[c].repair, err)) < 0)
                    return rc;
                f->cls[c].on = on && wk_dist_mean_s(&f->cls[c].ttf) > 0;
            }
        }
        const WkNode *pl = wk_node_get(fn, "processes");
        if (pl && pl->type == WK_NODE_SEQ && pl->nkids) {
            f->procs = calloc(pl->nkids, sizeof *f->procs);
            if (!f->procs)
                return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "failures: out of memory");
            for (size_t i = 0; i < pl->nkids; i++, f->nprocs++)
                if ((rc = parse_process(pl->kids[i], &f->procs[i], err)) < 0)
                    return rc;
        } else if (pl && pl->type != WK_NODE_NULL && pl->type != WK_NODE_SEQ) {
            return wk_node_error(pl, WK_E_INVAL, err, "expected a list of processes");
        }
        const WkNode *il = wk_node_get(fn, "incidents");
        if (il && il->type == WK_NODE_SEQ && il->nkids) {
            f->scripted = calloc(il->nkids, sizeof *f->scripted);
            if (!f->scripted)
                return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "failures: out of memory");
            for (size_t i = 0; i < il->nkids; i++, f->nscripted++)
                if ((rc = parse_scripted(il->kids[i], gpus, nodes, pods, f->nodes_per_rack, &f->scripted[i], err)) < 0)
                    return rc;
        } else if (il && il->type != WK_NODE_NULL && il->type != WK_NODE_SEQ) {
            return wk_node_error(il, WK_E_INVAL, err, "expected a list of incidents");
        }
    }
    if (cn && cn->type != WK_NODE_NULL) {
        if ((rc = wk_node_expect_keys(cn, ckeys, err)) < 0)
            return rc;
        const WkNode *iv = wk_node_get(cn, "interval");
        if (iv && iv->type == WK_NODE_SCALAR && !iv->quoted &&
            (strcmp(iv->str, "young") == 0 || strcmp(iv->str, "daly") == 0 || strcmp(iv->str, "none") == 0)) {
            f->interval_rule = iv->str[0] == 'y' ? WK_CKPT_YOUNG : iv->str[0] == 'd' ? WK_CKPT_DALY : WK_CKPT_NONE;
        } else if (iv) {
            if ((rc = wk_node_duration(cn, "interval", 1, WK_NS_PER_S, 365 * WK_NS_PER_DAY, &f->interval, err)) < 0)
                return rc;
            f->interval_rule = WK_CKPT_FIXED;
        }
        double plain_gb = f->plain_ckpt_bytes / 1e9, sbw = f->storage_bw / 1e9, hbw = f->host_bw / 1e9;
        double lbw = f->local_bw / 1e9, pbw = f->peer_bw / 1e9;
        int mode = (int)f->mode, tier = -1;
        if ((rc = wk_node_double(cn, "bytes_per_param", 0, 0.01, 1000, &f->bytes_per_param, err)) < 0 ||
            (rc = wk_node_double(cn, "plain_gb", 0, 0, 1e9, &plain_gb, err)) < 0 ||
            (rc = wk_node_double(cn, "storage_gb_per_s", 0, 1e-3, 1e9, &sbw, err)) < 0 ||
            (rc = wk_node_double(cn, "host_gb_per_s", 0, 1e-3, 1e6, &hbw, err)) < 0 ||
            (rc = wk_node_enum(cn, "mode", 0, modes, &mode, err)) < 0 ||
            (rc = wk_node_double(cn, "memory_restore_speedup", 0, 1, 1e6, &f->memory_restore_speedup, err)) < 0 ||
            (rc = wk_node_duration(cn, "launch", 0, 0, WK_NS_PER_DAY, &f->launch, err)) < 0 ||
            (rc = wk_node_enum(cn, "restore", 0, tiers, &tier, err)) < 0 ||
            (rc = wk_node_double(cn, "local_gb_per_s", 0, 1e-3, 1e6, &lbw, err)) < 0 ||
            (rc = wk_node_double(cn, "peer_gb_per_s", 0, 1e-3, 1e6, &pbw, err)) < 0)
            return rc;
        f->local_bw = lbw * 1e9;
        f->peer_bw = pbw * 1e9;
        f->restore = tier >= 0 ? (WkRestoreTier)tier : mode == WK_CKPT_MEMORY ? WK_RESTORE_PEER : WK_RESTORE_REMOTE;
        f->plain_ckpt_bytes = plain_gb * 1e9;
        f->storage_bw = sbw * 1e9;
        f->host_bw = hbw * 1e9;
        f->mode = (WkCkptMode)mode;
    }
    if (rn && rn->type != WK_NODE_NULL) {
        int mode = 0;
        int64_t spares = 0;
        if ((rc = wk_node_expect_keys(rn, rkeys, err)) < 0 || (rc = wk_node_enum(rn, "mode", 0, rmodes, &mode, err)) < 0 ||
            (rc = wk_node_int(rn, "spare_nodes", 0, 0, nodes > 0 ? nodes - 1 : 0, &spares, err)) < 0)
            return rc;
        if ((rc = restart_steps(f, cn, rn, err)) < 0)
            return rc;
        f->recovery = (WkRecoveryMode)mode;
        f->spare_nodes = (uint32_t)spares;
        if (f->recovery == WK_RECOVER_SPARES && spares == 0)
            return wk_node_error(wk_node_get(rn, "mode"), WK_E_INVAL, err, "mode spares needs spare_nodes > 0");
    }
    else if ((rc = restart_steps(f, cn, NULL, err)) < 0)
        return rc;
    return checkpoint_rule(f, fn, cn, err);
}

double wk_ckpt_young_s(double delta, double mttf) { return sqrt(2 * delta * mttf); }

double wk_ckpt_daly_s(double delta, double mttf)
{
    if (delta >= 2 * mttf)
        return mttf;
    double x = delta / (2 * mttf);
    return sqrt(2 * delta * mttf) * (1 + sqrt(x) / 3 + x / 9) - delta;
}

double wk_ckpt_ettr_first_order(double tau, double delta, double restart, double mttf)
{
    return 1 - delta / tau - (tau / 2 + restart) / mttf;
}
