/* SPDX-License-Identifier: Apache-2.0 */
/* workload.c — the job array and the helpers every source uses to read a
 * job (kind, nodes, model) and resolve paths. The source registry and the
 * loader that dispatches to a source are in source.c, above the sources. */
#include "models/workload/workload.h"

#include <stdlib.h>
#include <string.h>

int wk_workload_push(WkWorkload *w, const WkJobSpec *job)
{
    if (w->n >= WK_WORKLOAD_MAX_JOBS)
        return WK_E_RANGE;
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 1024;
        WkJobSpec *n = realloc(w->jobs, nc * sizeof *n);
        if (!n)
            return WK_E_NOMEM;
        w->jobs = n;
        w->cap = nc;
    }
    w->jobs[w->n++] = *job;
    w->nhpc += job->kind == WK_JOB_HPC;
    return 0;
}

const char *wk_workload_kind_name(int kind) { return kind == WK_JOB_HPC ? "hpc" : "ai"; }

int wk_workload_read_kind(WkWorkload *w, const WkNode *map, WkJobSpec *js, WkError *err)
{
    const char *kind = NULL;
    int64_t nodes = 0;
    int rc = wk_node_str(map, "kind", 0, &kind, err);
    if (rc < 0)
        return rc;
    if (kind && strcmp(kind, "ai") != 0 && strcmp(kind, "hpc") != 0)
        return wk_node_error(wk_node_get(map, "kind"), WK_E_INVAL, err, "unknown job kind '%s' (known: ai, hpc)",
                             kind);
    js->kind = kind && strcmp(kind, "hpc") == 0 ? WK_JOB_HPC : WK_JOB_AI;
    if ((rc = wk_node_int(map, "nodes", 0, 1, WK_JOB_MAX_NODES, &nodes, err)) < 0)
        return rc;
    const WkNode *nn = wk_node_get(map, "nodes"), *gn = wk_node_get(map, "gpus");
    if (nodes > 0 && gn && gn->type != WK_NODE_NULL)
        return wk_node_error(nn, WK_E_INVAL, err, "give either 'nodes' or 'gpus', not both");
    if (nodes > 0 && !w->nodes_at)
        w->nodes_at = nn;
    js->nodes = (uint32_t)nodes;
    if (js->kind != WK_JOB_HPC)
        return 0;
    static const char *const ai_only[] = {"model", "iterations", "tokens"};
    for (size_t i = 0; i < sizeof ai_only / sizeof ai_only[0]; i++)
        if (wk_node_get(map, ai_only[i]))
            return wk_node_error(wk_node_get(map, ai_only[i]), WK_E_INVAL, err,
                                 "an hpc job has a fixed duration and no model; drop '%s' or use kind: ai",
                                 ai_only[i]);
    return 0;
}

int wk_workload_resolve_nodes(WkWorkload *w, uint32_t gpus_per_node, const char *file, WkError *err)
{
    for (size_t i = 0; i < w->n; i++) {
        WkJobSpec *js = &w->jobs[i];
        if (!js->nodes)
            continue;
        if (!gpus_per_node) {
            const char *msg = "the cluster's node groups differ in GPUs per node, so a node count "
                              "has no single GPU count; give 'gpus' instead";
            return w->nodes_at ? wk_node_error(w->nodes_at, WK_E_INVAL, err, "%s", msg)
                               : wk_error_set(err, WK_E_INVAL, file, 0, 0, "workload: job %zu: %s", i, msg);
        }
        uint64_t g = (uint64_t)js->nodes * gpus_per_node;
        if (g > WK_JOB_MAX_GPUS) {
            const char *fmt = "%u nodes x %u GPUs per node is more than %u GPUs";
            return w->nodes_at ? wk_node_error(w->nodes_at, WK_E_RANGE, err, fmt, js->nodes, gpus_per_node,
                                               (unsigned)WK_JOB_MAX_GPUS)
                               : wk_error_set(err, WK_E_RANGE, file, 0, 0, fmt, js->nodes, gpus_per_node,
                                              (unsigned)WK_JOB_MAX_GPUS);
        }
        js->gpus = (uint32_t)g;
    }
    return 0;
}

int wk_workload_read_model(WkWorkload *w, const WkNode *map, const WkWorkloadCtx *ctx, WkJobSpec *js,
                           WkError *err)
{
    const WkNode *mn = wk_node_get(map, "model");
    if (!mn || mn->type == WK_NODE_NULL) {
        if (wk_node_get(map, "iterations") || wk_node_get(map, "tokens"))
            return wk_node_error(map, WK_E_INVAL, err, "'iterations' and 'tokens' need a 'model'");
        return 0;
    }
    int has_it = wk_node_get(map, "iterations") != NULL, has_tok = wk_node_get(map, "tokens") != NULL;
    if (has_it == has_tok)
        return wk_node_error(mn, WK_E_INVAL, err, "a model job needs exactly one of 'iterations' or 'tokens'");
    int rc;
    double it = 0, tok = 0;
    if ((rc = wk_node_double(map, "iterations", 0, 1, 1e15, &it, err)) < 0 ||
        (rc = wk_node_double(map, "tokens", 0, 1, 1e18, &tok, err)) < 0)
        return rc;
    /* one spec per distinct model: a name shared by many jobs is parsed once */
    const char *key = mn->type == WK_NODE_SCALAR ? mn->str : NULL;
    size_t idx = w->nmodels;
    for (size_t i = 0; key && i < w->nmodels; i++)
        if (w->models[i].name && strcmp(w->models[i].name, key) == 0)
            idx = i;
    if (idx == w->nmodels) {
        WkModelSpec m;
        if ((rc = wk_model_parse(mn, ctx ? ctx->models_lib : NULL, &m, err)) < 0)
            return rc;
        if (key)
            m.name = key;
        if (w->nmodels == w->capmodels) {
            size_t nc = w->capmodels ? w->capmodels * 2 : 8;
            WkModelSpec *n = realloc(w->models, nc * sizeof *n);
            if (!n)
                return wk_error_set(err, WK_E_NOMEM, NULL, 0, 0, "workload: out of memory");
            w->models = n;
            w->capmodels = nc;
        }
        w->models[w->nmodels++] = m;
    }
    js->model = (uint32_t)idx + 1;
    js->iterations = it;
    js->tokens = tok;
    return 0;
}

int wk_workload_user(WkWorkload *w, const char *name, size_t len)
{
    if (len == 0 || len > WK_USER_NAME_MAX)
        return WK_E_INVAL;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return WK_E_INVAL;
    }
    /* the last user found first: trace rows of one user often follow each other */
    for (size_t k = 0; k < w->nusers; k++) {
        size_t i = (w->user_hint + k) % w->nusers;
        if (strncmp(w->users[i], name, len) == 0 && w->users[i][len] == '\0') {
            w->user_hint = i;
            return (int)i + 1;
        }
    }
    if (w->nusers >= WK_WORKLOAD_MAX_USERS)
        return WK_E_RANGE;
    if (w->nusers == w->capusers) {
        size_t nc = w->capusers ? w->capusers * 2 : 16;
        void *n = realloc(w->users, nc * sizeof *w->users);
        if (!n)
            return WK_E_NOMEM;
        w->users = n;
        w->capusers = nc;
    }
    memcpy(w->users[w->nusers], name, len);
    w->users[w->nusers][len] = '\0';
    w->user_hint = w->nusers;
    return (int)++w->nusers;
}

const char *wk_workload_user_error(int rc)
{
    switch (rc) {
    case WK_E_RANGE: return "more than 4096 distinct users in a workload (docs/limits.md)";
    case WK_E_NOMEM: return "out of memory";
    default: return "a user name is 1-30 letters, digits, '_' or '-'";
    }
}

void wk_workload_fini(WkWorkload *w)
{
    free(w->quota);
    free(w->users);
    free(w->models);
    free(w->jobs);
    memset(w, 0, sizeof *w);
}
