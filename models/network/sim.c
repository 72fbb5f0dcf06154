/* SPDX-License-Identifier: Apache-2.0 */
/* sim.c — one scenario behind one handle: each call goes to the single run
 * (models/run) or to the network of sites (network.c). No simulation of
 * its own. */
#include "models/network/sim.h"
#include "models/network/network_impl.h"

#include <stdlib.h>

struct WkSim {
    WkRun *run; /* owned: a single cluster, or NULL */
    WkNet *net; /* owned: a network of sites (`sites:`), or NULL */
};

int wk_sim_prepare(WkSim **out, const WkDoc *doc, const WkRunOpts *opts, WkError *err)
{
    WkSim *s = calloc(1, sizeof *s);
    if (!s)
        return wk_error_nomem(err, "scenario");
    int network = doc->root && wk_node_get(doc->root, "sites");
    int rc = network ? wk_net_prepare(&s->net, doc, opts, err) : wk_run_prepare(&s->run, doc, opts, err);
    if (rc < 0) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int wk_sim_execute(WkSim *s, WkError *err) { return s->net ? wk_net_execute(s->net, err) : wk_run_execute(s->run, err); }
int wk_sim_interrupted(const WkSim *s) { return s->net ? s->net->interrupted : wk_run_interrupted(s->run); }

int wk_sim_summary(const WkSim *s, WkSummary *out, WkError *err)
{
    return s->net ? wk_net_summary(s->net, out, err) : wk_run_summary(s->run, out, err);
}

int wk_sim_write_trace(const WkSim *s, const char *path, WkError *err)
{
    return s->net ? wk_net_write_trace(s->net, path, err) : wk_run_write_trace(s->run, path, err);
}

size_t wk_sim_jobs(const WkSim *s) { return s->net ? s->net->njobs : wk_run_jobs(s->run); }
uint32_t wk_sim_gpus(const WkSim *s) { return s->net ? wk_net_gpus(s->net) : wk_run_gpus(s->run); }
uint32_t wk_sim_sites(const WkSim *s) { return s->net ? s->net->n : 0; }
const char *wk_sim_scheduler(const WkSim *s) { return s->net ? s->net->broker->name : wk_run_scheduler(s->run); }
const char *wk_sim_name(const WkSim *s) { return s->net ? s->net->name : wk_run_name(s->run); }

void wk_sim_account(const WkSim *s, WkRunAccount *out)
{
    if (s->net)
        wk_net_account(s->net, out);
    else
        wk_run_account(s->run, out);
}

WkRun *wk_sim_run(WkSim *s) { return s->run; }

void wk_sim_free(WkSim *s)
{
    if (!s)
        return;
    wk_net_free(s->net);
    wk_run_free(s->run);
    free(s);
}
