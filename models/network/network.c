/* SPDX-License-Identifier: Apache-2.0 */
/* network.c — a network of sites (`sites:`): each site is a run of its own
 * (cluster, facility, failures, scheduler), joined by WAN links; one global
 * queue whose broker (models/broker) chooses each job's site at its
 * submission. The sites advance in lockstep to every submission instant, so
 * the broker sees each site's state just before it; a job whose dataset
 * lives elsewhere reaches its site after the transfer. docs/brokers.md
 * describes the model, docs/scenarios.md the keys. Reporting of the network
 * (summary, trace) is in network_report.c. */
#include "models/network/network_impl.h"
#include "models/sched/sched.h"
#include "sim/core/dl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SITE_KEYS "name", "cluster", "facility", "scheduler", "plugins", "failures", "checkpoint", "recovery", \
                  "accepts", "data_share"
/* top-level keys a site inherits unless it sets its own */
static const char *const inherited[] = {"facility", "scheduler", "plugins", "failures", "checkpoint", "recovery", NULL};
/* top-level keys every site shares */
static const char *const shared[] = {"name", "description", "seed", "sim", "workload", "perf", "models", NULL};

/* ---- parsing ---- */

/* The site's document: a map of borrowed nodes (its own keys, then the
 * inherited and shared top-level ones); positions stay the file's. */
static int site_doc(NetSite *st, const WkDoc *doc, const WkNode *root, WkError *err)
{
    static const char *const own[] = {"cluster", "facility", "scheduler", "plugins", "failures", "checkpoint",
                                      "recovery", NULL};
    size_t k = 0;
    for (size_t i = 0; own[i]; i++) {
        const WkNode *v = wk_node_get(st->node, own[i]);
        int inh = 0;
        for (size_t j = 0; inherited[j]; j++)
            inh |= strcmp(inherited[j], own[i]) == 0;
        if (!v && inh)
            v = wk_node_get(root, own[i]);
        if (v)
            st->kids[k++] = (WkNode *)(uintptr_t)v;
    }
    for (size_t i = 0; shared[i]; i++) {
        const WkNode *v = wk_node_get(root, shared[i]);
        if (v)
            st->kids[k++] = (WkNode *)(uintptr_t)v;
    }
    if (!wk_node_get(st->node, "cluster"))
        return wk_node_error(st->node, WK_E_INVAL, err, "site '%s': missing key 'cluster'", st->name);
    st->root = (WkNode){.type = WK_NODE_MAP, .file = root->file, .line = st->node->line, .col = st->node->col,
                        .index = -1, .kids = st->kids, .nkids = k, .capkids = k};
    st->doc = *doc;
    st->doc.root = &st->root;
    return 0;
}

static int parse_accepts(NetSite *st, WkError *err)
{
    st->accepts_ai = st->accepts_hpc = 1;
    const WkNode *a = wk_node_get(st->node, "accepts");
    if (!a || a->type == WK_NODE_NULL)
        return 0;
    size_t n;
    const WkNode *const *items = wk_node_items(&a, &n);
    st->accepts_ai = st->accepts_hpc = 0;
    for (size_t i = 0; i < n; i++) {
        const WkNode *it = items[i];
        if (it->type == WK_NODE_SCALAR && strcmp(it->str, "ai") == 0)
            st->accepts_ai = 1;
        else if (it->type == WK_NODE_SCALAR && strcmp(it->str, "hpc") == 0)
            st->accepts_hpc = 1;
        else
            return wk_node_error(it, WK_E_INVAL, err, "expected 'ai' or 'hpc'");
    }
    if (n == 0)
        return wk_node_error(a, WK_E_INVAL, err, "a site must accept 'ai', 'hpc' or both");
    return 0;
}

/* Site names become metric names (site.NAME.jct_mean_s): short, plain. */
static int check_name(const NetSite *st, WkError *err)
{
    size_t len = strlen(st->name);
    int ok = len > 0 && len <= 24;
    for (size_t i = 0; ok && i < len; i++) {
        char c = st->name[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }
    if (!ok)
        return wk_node_error(wk_node_get(st->node, "name"), WK_E_INVAL, err,
                             "site name '%s': 1 to 24 letters, digits, '-' or '_'", st->name);
    return 0;
}

static int parse_sites(WkNet *n, const WkDoc *doc, const WkNode *root, WkError *err)
{
    static const char *const keys[] = {SITE_KEYS, NULL};
    const WkNode *sn = wk_node_get(root, "sites");
    if (sn->type != WK_NODE_SEQ || sn->nkids == 0)
        return wk_node_error(sn, WK_E_INVAL, err, "expected a list of sites (each a map with name and cluster)");
    if (sn->nkids > WK_NET_MAX_SITES)
        return wk_node_error(sn, WK_E_RANGE, err, "%zu sites, at most %d (docs/limits.md)", sn->nkids,
                             WK_NET_MAX_SITES);
    if (wk_node_get(root, "cluster"))
        return wk_node_error(wk_node_get(root, "cluster"), WK_E_INVAL, err,
                             "a scenario with 'sites' has no top-level 'cluster': give each site its own");
    n->n = (uint32_t)sn->nkids;
    if (!(n->s = calloc(n->n, sizeof *n->s)))
        return wk_error_nomem(err, "sites");
    int rc;
    for (uint32_t i = 0; i < n->n; i++) {
        NetSite *st = &n->s[i];
        st->node = sn->kids[i];
        if (st->node->type != WK_NODE_MAP)
            return wk_node_error(st->node, WK_E_INVAL, err, "expected a site: a map with name and cluster");
        if ((rc = wk_node_expect_keys(st->node, keys, err)) < 0 ||
            (rc = wk_node_str(st->node, "name", 1, &st->name, err)) < 0 ||
            (rc = wk_node_double(st->node, "data_share", 0, 0, 1e12, &st->data_share, err)) < 0 ||
            (rc = parse_accepts(st, err)) < 0)
            return rc;
        if ((rc = check_name(st, err)) < 0)
            return rc;
        if (!wk_node_get(st->node, "data_share"))
            st->data_share = -1; /* its GPUs, once known */
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(n->s[j].name, st->name) == 0)
                return wk_node_error(wk_node_get(st->node, "name"), WK_E_INVAL, err,
                                     "two sites named '%s'", st->name);
        if ((rc = site_doc(st, doc, root, err)) < 0)
            return rc;
    }
    return 0;
}

static int site_index(const WkNet *n, const WkNode *v, uint32_t *out, WkError *err)
{
    if (v->type == WK_NODE_SCALAR)
        for (uint32_t i = 0; i < n->n; i++)
            if (strcmp(n->s[i].name, v->str) == 0) {
                *out = i;
                return 0;
            }
    return wk_node_error(v, WK_E_INVAL, err, "unknown site '%s' (sites are named in 'sites:')",
                         v->type == WK_NODE_SCALAR ? v->str : "?");
}

/* One link's figures (a map with bandwidth, latency, cost_per_tb). */
static int parse_link(const WkNode *m, WkNetLink *l, WkError *err)
{
    double bps = 0, lat_s = 0;
    WkTime lat = 0;
    int rc;
    if ((rc = wk_node_rate(m, "bandwidth", 1, 1e3, 1e16, &bps, err)) < 0 ||
        (rc = wk_node_duration(m, "latency", 0, 0, WK_NS_PER_H, &lat, err)) < 0 ||
        (rc = wk_node_double(m, "cost_per_tb", 0, 0, 1e12, &l->cost_per_tb, err)) < 0)
        return rc;
    lat_s = wk_time_to_s(lat);
    l->bytes_per_s = bps / 8;
    l->latency_s = lat_s;
    l->set = 1;
    return 0;
}

static int parse_wan(WkNet *n, const WkNode *root, WkError *err)
{
    static const char *const keys[] = {"default", "links", NULL};
    static const char *const lkeys[] = {"bandwidth", "latency", "cost_per_tb", NULL};
    static const char *const linkkeys[] = {"between", "bandwidth", "latency", "cost_per_tb", NULL};
    if (!(n->link = calloc((size_t)n->n * n->n, sizeof *n->link)) ||
        !(n->link_free = calloc((size_t)n->n * n->n, sizeof *n->link_free)) ||
        !(n->link_from = calloc((size_t)n->n * n->n, sizeof *n->link_from)))
        return wk_error_nomem(err, "wan");
    const WkNode *w = wk_node_get(root, "wan");
    n->wan = w;
    if (!w || w->type == WK_NODE_NULL)
        return 0;
    int rc;
    if (w->type != WK_NODE_MAP)
        return wk_node_error(w, WK_E_INVAL, err, "expected a map with default and/or links");
    if ((rc = wk_node_expect_keys(w, keys, err)) < 0)
        return rc;
    const WkNode *d = wk_node_get(w, "default");
    WkNetLink def = {0};
    if (d && ((rc = wk_node_expect_keys(d, lkeys, err)) < 0 || (rc = parse_link(d, &def, err)) < 0))
        return rc;
    for (uint32_t i = 0; i < n->n * n->n; i++)
        n->link[i] = def;
    const WkNode *ln = wk_node_get(w, "links");
    if (ln && ln->type != WK_NODE_SEQ && ln->type != WK_NODE_NULL)
        return wk_node_error(ln, WK_E_INVAL, err, "expected a list of links");
    size_t nl = 0;
    const WkNode *const *items = ln ? wk_node_items(&ln, &nl) : NULL;
    for (size_t k = 0; k < nl; k++) {
        const WkNode *m = items[k];
        if (m->type != WK_NODE_MAP)
            return wk_node_error(m, WK_E_INVAL, err, "expected a link: a map with between, bandwidth, latency");
        if ((rc = wk_node_expect_keys(m, linkkeys, err)) < 0)
            return rc;
        const WkNode *b = wk_node_get(m, "between");
        if (!b)
            return wk_node_error(m, WK_E_INVAL, err, "missing key 'between' (a list of two site names)");
        if (b->type != WK_NODE_SEQ || b->nkids != 2)
            return wk_node_error(b, WK_E_INVAL, err, "expected a list of two site names");
        uint32_t a = 0, c = 0;
        WkNetLink l = {0};
        if ((rc = site_index(n, b->kids[0], &a, err)) < 0 || (rc = site_index(n, b->kids[1], &c, err)) < 0 ||
            (rc = parse_link(m, &l, err)) < 0)
            return rc;
        if (a == c)
            return wk_node_error(b, WK_E_INVAL, err, "a link joins two different sites");
        for (size_t q = 0; q < k; q++) { /* the same pair again (either order): which one holds? */
            const WkNode *pb = wk_node_get(items[q], "between");
            uint32_t pa = 0, pc = 0;
            if (site_index(n, pb->kids[0], &pa, err) == 0 && site_index(n, pb->kids[1], &pc, err) == 0 &&
                ((pa == a && pc == c) || (pa == c && pc == a)))
                return wk_node_error(b, WK_E_INVAL, err, "the link between '%s' and '%s' is given twice (first at %s:%ld)",
                                     n->s[a].name, n->s[c].name, pb->file ? pb->file : "?", pb->line);
        }
        n->link[a * n->n + c] = n->link[c * n->n + a] = l;
    }
    return 0;
}

/* The broker plugins of opts (relative to the working directory) and of
 * `broker: {plugin: FILE}` (relative to the scenario's folder, dir); *own
 * is the scenario's plugin's broker, or NULL. */
static int load_broker_plugins(WkNet *n, const WkNode *b, const char *dir, const WkRunOpts *o,
                               const WkBrokerOps **own, WkError *err)
{
    int rc = 0;
    *own = NULL;
    for (size_t i = 0; o && rc == 0 && i < o->nbroker_plugins; i++)
        rc = wk_broker_plugins_add(&n->plugins, o->broker_plugins[i], NULL, NULL, err);
    const char *rel = NULL;
    if (rc < 0 || !b || b->type != WK_NODE_MAP || (rc = wk_node_str(b, "plugin", 0, &rel, err)) < 0 || !rel)
        return rc;
    const WkNode *at = wk_node_get(b, "plugin");
    if (!rel[0])
        return wk_node_error(at, WK_E_INVAL, err, "expected a shared-object path");
    char *path = wk_dl_path(dir, rel);
    if (!path)
        return wk_error_nomem(err, "broker plugin path");
    rc = wk_broker_plugins_add(&n->plugins, path, at, own, err);
    free(path);
    return rc;
}

static int parse_broker(WkNet *n, const WkNode *root, const char *dir, const WkRunOpts *o, WkError *err)
{
    const WkNode *b = wk_node_get(root, "broker");
    const char *name = "least-loaded";
    const WkNode *where = b;
    const WkBrokerOps *own = NULL;
    int rc;
    if (b && b->type != WK_NODE_MAP && b->type != WK_NODE_SCALAR && b->type != WK_NODE_NULL)
        return wk_node_error(b, WK_E_INVAL, err, "expected a broker name or a map with 'name'");
    if ((rc = load_broker_plugins(n, b, dir, o, &own, err)) < 0)
        return rc;
    if (b && b->type == WK_NODE_MAP) {
        /* with a plugin, its broker is the default name */
        if (own)
            name = own->name;
        if ((rc = wk_node_str(b, "name", !own, &name, err)) < 0)
            return rc;
        where = wk_node_get(b, "name") ? wk_node_get(b, "name") : b;
        n->bparams = b;
    } else if (b && b->type == WK_NODE_SCALAR) {
        name = b->str;
    }
    if (o && o->broker) {
        name = o->broker;
        where = NULL;
    }
    return wk_broker_plugins_lookup(&n->plugins, name, where, &n->broker, err);
}

static int parse_data(WkNet *n, const WkNode *root, WkError *err)
{
    static const char *const keys[] = {"bytes_per_token", "job_bytes", NULL};
    /* Megatron-LM's indexed datasets store token ids as int32 when the
     * vocabulary exceeds 65,500 (megatron/core/datasets/indexed_dataset.py,
     * DType.optimal_dtype): 4 bytes per token for today's LLM vocabularies. */
    n->bytes_per_token = 4;
    n->job_bytes = 0;
    const WkNode *d = wk_node_get(root, "data");
    if (!d || d->type == WK_NODE_NULL)
        return 0;
    int rc;
    if ((rc = wk_node_expect_keys(d, keys, err)) < 0 ||
        (rc = wk_node_double(d, "bytes_per_token", 0, 0, 1e6, &n->bytes_per_token, err)) < 0 ||
        (rc = wk_node_double(d, "job_bytes", 0, 0, 1e18, &n->job_bytes, err)) < 0)
        return rc;
    return 0;
}

/* The network's size once site i is prepared (gpus: its sites' so far):
 * all sites together hold at most WK_CLUSTER_MAX_GPUS GPUs, as one
 * cluster, and each site keeps its own copy of the workload, so jobs x
 * sites is at most WK_NET_MAX_JOB_COPIES (checked at the first site,
 * before the others copy it). docs/limits.md. */
static int check_size(const WkNet *n, const WkNode *root, uint32_t i, uint64_t gpus, WkError *err)
{
    if (gpus > WK_CLUSTER_MAX_GPUS)
        return wk_node_error(wk_node_get(n->s[i].node, "cluster"), WK_E_RANGE, err,
                             "the sites up to '%s' hold %llu GPUs together, more than %lu, the limit of "
                             "a network (docs/limits.md)",
                             n->s[i].name, (unsigned long long)gpus, (unsigned long)WK_CLUSTER_MAX_GPUS);
    size_t nj = wk_run_workload(n->s[0].run)->n;
    if (i == 0 && (uint64_t)nj * n->n > WK_NET_MAX_JOB_COPIES) {
        const WkNode *wl = wk_node_get(root, "workload");
        const WkNode *at = wl && wk_node_get(wl, "jobs") ? wk_node_get(wl, "jobs") : wl ? wl : root;
        return wk_node_error(at, WK_E_RANGE, err,
                             "%zu jobs x %u sites is more than %d: each site holds the workload "
                             "(docs/limits.md)",
                             nj, n->n, WK_NET_MAX_JOB_COPIES);
    }
    return 0;
}

/* Everything after the top level: sites, WAN, broker, data, span. */
static int prepare(WkNet *n, const WkNode *root, WkError *err)
{
    int rc;
    if ((rc = parse_sites(n, n->doc, root, err)) < 0 || (rc = parse_wan(n, root, err)) < 0 ||
        (rc = parse_broker(n, root, n->doc->dir ? n->doc->dir : ".", &n->opts, err)) < 0 ||
        (rc = parse_data(n, root, err)) < 0)
        return rc;
    WkRunOpts so = n->opts;
    so.has_seed = 1;
    so.seed = n->seed;
    /* --scheduler (opts.scheduler) replaces every site's policy */
    uint64_t gpus = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        NetSite *st = &n->s[i];
        WkRunSite site = {.index = i, .salt = i + 1};
        if ((rc = wk_run_prepare_site(&st->run, &st->doc, &so, &site, err)) < 0)
            return rc;
        st->gpus = wk_run_gpus(st->run);
        if ((rc = check_size(n, root, i, gpus += st->gpus, err)) < 0)
            return rc;
        int lends = 1; /* a `lend` policy with `lend: false` rejects AI jobs: send them elsewhere */
        if (!so.scheduler && (rc = wk_sched_lend_accepts_ai(wk_node_get(&st->root, "scheduler"), &lends, err)) < 0)
            return rc;
        st->accepts_ai &= lends;
        if (st->data_share < 0)
            st->data_share = st->gpus;
    }
    /* the network's own view of the workload: the first site's copy */
    const WkWorkload *wl = wk_run_workload(n->s[0].run);
    size_t nj = wl->n;
    if (!(n->assign = malloc((nj ? nj : 1) * sizeof *n->assign)) ||
        !(n->delay = calloc(nj ? nj : 1, sizeof *n->delay)) || !(n->home = calloc(nj ? nj : 1, sizeof *n->home)) ||
        !(n->bytes = calloc(nj ? nj : 1, sizeof *n->bytes)))
        return wk_error_nomem(err, "network");
    for (size_t j = 0; j < nj; j++)
        n->assign[j] = -1;
    for (uint32_t i = 0; i < n->n; i++)
        wk_run_site_set_route(n->s[i].run, n->assign, n->delay);
    n->njobs = nj;
    if ((rc = wk_net_span_parse(n, root, err)) < 0)
        return rc;
    return wk_net_broker_open(n, err);
}

int wk_net_prepare(WkNet **out, const WkDoc *doc, const WkRunOpts *o, WkError *err)
{
    WkRunHead h;
    int rc = wk_run_head_parse(doc, o, &h, err);
    if (rc < 0)
        return rc;
    WkNet *n = calloc(1, sizeof *n);
    if (!n)
        return wk_error_nomem(err, "network");
    n->doc = doc;
    n->name = h.name;
    n->seed = h.seed;
    n->horizon = h.horizon;
    n->sample_interval = h.sample_interval;
    if (o)
        n->opts = *o;
    if ((rc = prepare(n, doc->root, err)) < 0) {
        wk_net_free(n);
        return rc;
    }
    *out = n;
    return 0;
}

void wk_net_free(WkNet *n)
{
    if (!n)
        return;
    wk_net_span_free(n);
    wk_net_wan_free(n);
    for (uint32_t i = 0; n->s && i < n->n; i++) {
        wk_run_free(n->s[i].run);
        free(n->s[i].out);
        free(n->s[i].plan);
    }
    free(n->s);
    free(n->link);
    free(n->link_free);
    free(n->assign);
    free(n->delay);
    free(n->home);
    free(n->bytes);
    free(n->bpriv);
    wk_broker_plugins_fini(&n->plugins); /* after the broker: its code lives there */
    free(n);
}

uint32_t wk_net_gpus(const WkNet *n)
{
    uint32_t g = 0;
    for (uint32_t i = 0; i < n->n; i++)
        g += n->s[i].gpus;
    return g;
}
