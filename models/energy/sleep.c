/* SPDX-License-Identifier: Apache-2.0 */
/* sleep.c — idle nodes power down and wake for the next job (see sleep.h). */
#include "models/energy/energy_impl.h"

#include <stdlib.h>

/* 1 when no job holds a GPU of node. */
static int node_unheld(const WkRun *r, uint32_t node)
{
    const WkCluster *c = &r->cluster;
    for (uint32_t g = c->node_first_gpu[node]; g < c->node_first_gpu[node + 1]; g++)
        if (r->pool.owner[g] != WK_POOL_NONE)
            return 0;
    return 1;
}

/* Sum over node's GPUs of their draw now (not held: idle or asleep), W. */
static double node_draw(const WkRun *r, uint32_t node)
{
    const WkCluster *c = &r->cluster;
    double w = 0;
    for (uint32_t g = c->node_first_gpu[node]; g < c->node_first_gpu[node + 1]; g++)
        w += wk_account_gpu_draw(c, g, 0);
    return w;
}

/* Put node to sleep (asleep 1) or wake it (0), accounted up to now first. */
static void set_asleep(WkRun *r, WkRunSleep *sl, uint32_t node, int asleep, WkTime now)
{
    WkCluster *c = &r->cluster;
    wk_run_account_to(r, now);
    double before = node_draw(r, node);
    c->node_asleep[node] = (uint8_t)asleep;
    double after = node_draw(r, node);
    r->acct.gpu_power_w += after - before;
    if (asleep)
        sl->since[node] = now;
    else /* it slept since `since`, drawing `before` instead of `after` */
        sl->saved_j += (after - before) * c->power.pue * wk_time_to_s(now - sl->since[node]);
}

static int post_sleep(WkRun *r, WkRunSleep *sl, uint32_t node, WkTime now, WkError *err)
{
    return wk_engine_post_e(r->eng, now + r->cluster.power.sleep_after, WK_EV_SLEEP, node, sl->gen[node], 0, 0, err);
}

static int on_sleep(WkEngine *e, const WkEvent *ev, void *ctx, WkError *err)
{
    (void)err;
    WkRunSleep *sl = ctx;
    WkRun *r = sl->r;
    uint32_t node = ev->target;
    if (ev->payload == sl->gen[node] && !r->cluster.node_asleep[node] && node_unheld(r, node)) {
        WkTime now = wk_engine_now(e);
        set_asleep(r, sl, node, 1, now);
        wk_run_resample(r, now);
    }
    return 0;
}

int wk_sleep_start(WkRun *r, WkRunSleep *sl, WkError *err)
{
    WkCluster *c = &r->cluster;
    if (c->power.sleep_after <= 0)
        return 0;
    c->node_asleep = calloc(c->nodes, 1);
    sl->gen = calloc(c->nodes, sizeof *sl->gen);
    sl->since = calloc(c->nodes, sizeof *sl->since);
    if (!c->node_asleep || !sl->gen || !sl->since)
        return wk_error_nomem(err, "idle power-down");
    int rc = wk_engine_on(r->eng, WK_EV_SLEEP, on_sleep, sl, err);
    for (uint32_t n = 0; n < c->nodes && rc == 0; n++)
        rc = post_sleep(r, sl, n, 0, err);
    return rc;
}

WkTime wk_sleep_wake(WkRun *r, WkRunSleep *sl, const uint32_t *gpus, uint32_t n, WkTime now)
{
    WkCluster *c = &r->cluster;
    if (!c->node_asleep)
        return 0;
    int woke = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t node = c->gpu_node[gpus[i]];
        sl->gen[node]++; /* a pending sleep of this node is void */
        if (c->node_asleep[node]) {
            set_asleep(r, sl, node, 0, now);
            woke = 1;
        }
    }
    return woke ? c->power.wake_latency : 0;
}

void wk_sleep_delayed(WkRunSleep *sl, WkTime extra)
{
    if (extra > 0) {
        sl->delays++;
        sl->delay_s += wk_time_to_s(extra);
    }
}

int wk_sleep_released(WkRun *r, WkRunSleep *sl, const uint32_t *gpus, uint32_t n, WkTime now, WkError *err)
{
    const WkCluster *c = &r->cluster;
    if (!c->node_asleep)
        return 0;
    int rc = 0;
    uint32_t last = UINT32_MAX;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        uint32_t node = c->gpu_node[gpus[i]];
        if (node != last && node_unheld(r, node))
            rc = post_sleep(r, sl, node, now, err);
        last = node;
    }
    return rc;
}

void wk_sleep_finish(WkRun *r, WkRunSleep *sl, WkTime end)
{
    WkCluster *c = &r->cluster;
    for (uint32_t n = 0; c->node_asleep && n < c->nodes; n++)
        if (c->node_asleep[n]) {
            double asleep = node_draw(r, n);
            c->node_asleep[n] = 0;
            double awake = node_draw(r, n);
            c->node_asleep[n] = 1;
            sl->saved_j += (awake - asleep) * c->power.pue * wk_time_to_s(end - sl->since[n]);
        }
}

void wk_sleep_fini(WkRunSleep *s)
{
    free(s->gen);
    free(s->since);
}
