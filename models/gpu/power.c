/* SPDX-License-Identifier: Apache-2.0 */
/* power.c — power model parameters and the per-GPU power equation. */
#include "models/gpu/power.h"

WkPowerSpec wk_power_defaults(void)
{
    return (WkPowerSpec){
        .pue = 1.2,           /* liquid-cooled AI sites 1.1–1.2 (REFERENCES.md); industry average 1.56 */
        .switch_port_w = 12,  /* assumption: ~750 W per 64-port 400G switch without optics; no cited figure yet */
        .optic_w = 10,        /* 400G optical modules draw ~8–12 W (REFERENCES.md) */
        .busy_activity = 1.0, /* TDP-bound; a DGX H100 drew ~76 % of its rating in training (arXiv 2506.14551) */
        .compute_share = 1.0, /* a plain job is taken clock-bound: the upper bound of its slowdown (docs/models.md) */
        .wake_latency = 5 * WK_NS_PER_MIN, /* a choice: server boot takes minutes; published Slurm
                                              configurations give ResumeTimeout 150-600 s */
        /* memory-bound LLM decode on an H200 (same die and 700 W limit as the
         * H100) draws 137-300 W (Ma, Afzal, Eitzinger, Wellein, arXiv
         * 2605.11999): the upper end over H100 idle 87.5 W is
         * (300 - 87.5) / (700 - 87.5) = 0.35 of the dynamic range */
        .memory_activity = 0.35,
        .other_activity = 0.35, /* a choice: collectives are copy kernels streaming HBM, taken as memory-bound */
    };
}

int wk_power_parse(const WkNode *sec, WkPowerSpec *out, WkError *err)
{
    static const char *const known[] = {"pue",         "switch_port_w", "optic_w",      "busy_activity", "cap_w",
                                        "clock_mhz",   "compute_share", "sleep_after",  "wake_latency",
                                        "sleep_w",     "model_activity", "memory_activity", "other_activity", NULL};
    WkPowerSpec p = wk_power_defaults();
    if (sec && sec->type != WK_NODE_NULL) {
        int rc = wk_node_expect_keys(sec, known, err);
        if (rc < 0 || (rc = wk_node_double(sec, "pue", 0, 1.0, 10.0, &p.pue, err)) < 0 ||
            (rc = wk_node_double(sec, "switch_port_w", 0, 0, 1e4, &p.switch_port_w, err)) < 0 ||
            (rc = wk_node_double(sec, "optic_w", 0, 0, 1e3, &p.optic_w, err)) < 0 ||
            (rc = wk_node_double(sec, "busy_activity", 0, 1e-6, 1.0, &p.busy_activity, err)) < 0 ||
            (rc = wk_node_double(sec, "cap_w", 0, 1, 1e5, &p.cap_w, err)) < 0 ||
            (rc = wk_node_double(sec, "clock_mhz", 0, 1, 1e5, &p.clock_mhz, err)) < 0 ||
            (rc = wk_node_double(sec, "compute_share", 0, 0, 1.0, &p.compute_share, err)) < 0 ||
            (rc = wk_node_duration(sec, "sleep_after", 0, 1, WK_TIME_NEVER / 4, &p.sleep_after, err)) < 0 ||
            (rc = wk_node_duration(sec, "wake_latency", 0, 0, WK_TIME_NEVER / 4, &p.wake_latency, err)) < 0 ||
            (rc = wk_node_double(sec, "sleep_w", 0, 0, 1e4, &p.sleep_w, err)) < 0 ||
            (rc = wk_node_bool(sec, "model_activity", 0, &p.model_activity, err)) < 0 ||
            (rc = wk_node_double(sec, "memory_activity", 0, 0, 1.0, &p.memory_activity, err)) < 0 ||
            (rc = wk_node_double(sec, "other_activity", 0, 0, 1.0, &p.other_activity, err)) < 0)
            return rc;
    }
    *out = p;
    return 0;
}

double wk_power_gpu_w(const WkGpuSku *sku, WkGpuHealth health, double clock, double activity)
{
    if (health == WK_GPU_DOWN)
        return 0;
    return sku->idle_w + (sku->tdp_w - sku->idle_w) * activity * clock;
}

double wk_power_split_activity(double busy, double compute_s, double memory_s, double iter_s, double mem_act,
                               double other_act)
{
    if (!(iter_s > 0) || !(compute_s + memory_s > 0))
        return busy;
    double rest = iter_s - compute_s - memory_s;
    double a = (compute_s + memory_s * mem_act + (rest > 0 ? rest : 0) * other_act) / iter_s;
    return busy * (a < 1 ? a : 1);
}
