/* SPDX-License-Identifier: Apache-2.0 */
/* section.c — the table of top-level document keys (see section.h). */
#include "sim/scenario/section.h"

#include <string.h>

enum { S = WK_DOC_SCENARIO, P = WK_DOC_PERF, W = WK_DOC_SWEEP };

static const WkSection table[] = {
    {"name", S | P | W, "a short name, shown in summaries and traces"},
    {"description", S | P | W, "free text"},
    {"seed", S, "the run's seed: every random stream derives from it"},
    {"sim", S, "end of simulated time, time-series sample interval"},
    {"cluster", S | P, "GPU SKUs in node groups, pods, NVLink domains, fabric, power"},
    {"facility", S, "the site's power budget, what a run does at it, price and carbon series"},
    {"workload", S, "inline jobs, a synthetic generator or a trace importer"},
    {"scheduler", S, "a policy name, or a map with name and its options"},
    {"plugins", S, "shared objects of scheduling policies to load (paths relative to the scenario)"},
    {"perf", S | P, "choices of the performance model"},
    {"models", S | P, "named model specifications jobs refer to"},
    {"failures", S, "failure classes, random processes, scripted incidents"},
    {"checkpoint", S, "checkpoint interval and storage"},
    {"recovery", S, "what a job hit by a failure does"},
    {"mechanisms", S, "the seed paper's mechanisms switched on in a run (the §3.1 work outsourcing, the §3.2 cascade, the §3.3 division of labour)"},
    {"sites", S, "a network of sites, each with its own cluster (and facility, failures, scheduler)"},
    {"broker", S, "the policy that chooses each job's site in a network"},
    {"span", S, "in a network: jobs that may run data-parallel across sites, and when"},
    {"data", S, "datasets of a network's jobs: bytes per token, bytes of other jobs"},
    {"model", P, "the job's model: a preset name or a map"},
    {"gpus", P, "the job's GPU count"},
    {"wan", S | P, "a network's WAN links (bandwidth, latency, cost); in wanka perf, the WAN a job spans"},
    {"base", W, "the scenario every point starts from"},
    {"set", W, "overrides applied to every point"},
    {"schedulers", W, "an axis of scheduler names, or all"},
    {"seeds", W, "an axis of seeds: a list or {from, to}"},
    {"axes", W, "further axes: key paths and their values"},
    {NULL, 0, NULL},
};

const WkSection *wk_section_table(void) { return table; }

int wk_section_check(const WkNode *root, unsigned doc, WkError *err)
{
    const char *known[sizeof table / sizeof table[0]];
    size_t n = 0;
    for (const WkSection *s = table; s->key; s++)
        if (s->docs & doc)
            known[n++] = s->key;
    known[n] = NULL;
    return wk_node_expect_keys(root, known, err);
}

unsigned wk_section_kind(const WkNode *root)
{
    if (wk_node_get(root, "base"))
        return WK_DOC_SWEEP;
    if (wk_node_get(root, "model") || wk_node_get(root, "gpus"))
        return WK_DOC_PERF;
    return WK_DOC_SCENARIO;
}
