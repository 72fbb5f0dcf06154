/* SPDX-License-Identifier: Apache-2.0 */
/* sweep.c — read a sweep file and expand its cross product of points. A
 * point's scenario is the base document plus its axis values put at their
 * key paths; its trace records them as overrides. Running the points is
 * sweep_run.c (OpenMP) and sweep_mpi.c (MPI). */
#include "sim/batch/sweep.h"
#include "sim/scenario/section.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/compose.h"
#include "sim/scenario/emit.h"

static char *dup_s(const char *s)
{
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

static char *join(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir || strcmp(dir, ".") == 0)
        return dup_s(rel);
    size_t a = strlen(dir), b = strlen(rel);
    char *p = malloc(a + b + 2);
    if (p)
        snprintf(p, a + b + 2, "%s/%s", dir, rel);
    return p;
}

/* "key.path=value" (malloc'd) with value in flow YAML. */
static char *assignment(const char *path, const char *value)
{
    size_t n = strlen(path) + strlen(value) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s=%s", path, value);
    return p;
}

/* ---- generated values ---------------------------------------------------------------- */

/* Append a plain scalar `text` positioned at `at` to s->gen's root. */
static const WkNode *gen_scalar(WkSweep *s, const WkNode *at, const char *text)
{
    WkNode *root = s->gen->root;
    WkNode *n = calloc(1, sizeof *n);
    if (!n || !(n->str = dup_s(text))) {
        free(n);
        return NULL;
    }
    n->type = WK_NODE_SCALAR;
    n->file = at->file;
    n->line = at->line;
    n->col = at->col;
    n->index = (long)root->nkids;
    if (wk_node_push(root, n) < 0) {
        wk_node_free(n);
        return NULL;
    }
    return n;
}

/* The shortest "%.*g" text that reads back as x. */
static void fmt_double(double x, char *buf, size_t n)
{
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(buf, n, "%.0f", x);
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

/* Values of a {from, to, step} range: integers, else numbers, else durations. */
static int expand_range(WkSweep *s, const WkNode *range, WkSweepAxis *ax, WkError *err)
{
    static const char *const keys[] = {"from", "to", "step", NULL};
    int rc = wk_node_expect_keys(range, keys, err);
    if (rc < 0)
        return rc;
    const WkNode *from = wk_node_get(range, "from"), *to = wk_node_get(range, "to"),
                 *step = wk_node_get(range, "step");
    if (!from || !to || from->type != WK_NODE_SCALAR || to->type != WK_NODE_SCALAR)
        return wk_node_error(range, WK_E_INVAL, err, "a range needs from: and to: values");
    WkError t;
    wk_error_clear(&t);
    int64_t a, b, d = 1;
    double x, y, dx = 1;
    WkTime ta = 0, tb = 0, td = 1; /* set when kind == 2 */
    int kind;
    if (wk_node_as_int(from, INT64_MIN / 4, INT64_MAX / 4, &a, &t) == 0 &&
        wk_node_as_int(to, INT64_MIN / 4, INT64_MAX / 4, &b, &t) == 0 &&
        (!step || wk_node_as_int(step, INT64_MIN / 4, INT64_MAX / 4, &d, &t) == 0))
        kind = 0;
    else if (wk_error_clear(&t), wk_node_as_double(from, -1e300, 1e300, &x, &t) == 0 &&
             wk_node_as_double(to, -1e300, 1e300, &y, &t) == 0 &&
             (!step || wk_node_as_double(step, -1e300, 1e300, &dx, &t) == 0))
        kind = 1;
    else if (step && wk_node_as_duration(from, 0, WK_TIME_NEVER / 2, &ta, err) == 0 &&
             wk_node_as_duration(to, 0, WK_TIME_NEVER / 2, &tb, err) == 0 &&
             wk_node_as_duration(step, 1, WK_TIME_NEVER / 2, &td, err) == 0)
        kind = 2;
    else
        return err && err->code ? err->code
                                : wk_node_error(range, WK_E_INVAL, err,
                                                "a range is numbers {from, to, step} or durations with a step");
    double count;
    if (kind == 0)
        count = d == 0 ? -1 : (double)((b - a) / d) + 1;
    else if (kind == 1)
        count = dx == 0 ? -1 : floor((y - x) / dx * (1 + 1e-12) + 1e-12) + 1;
    else
        count = (double)((tb - ta) / td) + 1;
    if (kind == 2 && tb < ta)
        count = 0;
    if (count < 1)
        return wk_node_error(range, WK_E_INVAL, err, "the range is empty (from, to and step do not meet)");
    if (count > WK_SWEEP_MAX_POINTS)
        return wk_node_error(range, WK_E_RANGE, err, "the range has more than %d values", WK_SWEEP_MAX_POINTS);
    size_t n = (size_t)count;
    ax->values = calloc(n, sizeof *ax->values);
    if (!ax->values)
        return wk_error_nomem(err, "sweep");
    for (size_t i = 0; i < n; i++) {
        char text[64];
        if (kind == 0)
            snprintf(text, sizeof text, "%lld", (long long)(a + (int64_t)i * d));
        else if (kind == 1)
            fmt_double(x + (double)i * dx, text, sizeof text);
        else if ((ta + (WkTime)i * td) % 1000000000 == 0)
            snprintf(text, sizeof text, "%llds", (long long)((ta + (WkTime)i * td) / 1000000000));
        else
            snprintf(text, sizeof text, "%lldns", (long long)(ta + (WkTime)i * td));
        if (!(ax->values[i] = gen_scalar(s, range, text)))
            return wk_error_nomem(err, "sweep");
        ax->n++;
    }
    return 0;
}

/* ---- the sweep file --------------------------------------------------------------------- */

static int parse_schedulers(WkSweep *s, const WkNode *n, WkError *err)
{
    /* the built-ins and the base scenario's plugins (loaded by wk_sweep_load) */
    const WkSchedOps *const *table = wk_sched_plugins_table(&s->plugins);
    size_t known = 0;
    while (table[known])
        known++;
    char list[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < known && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", table[i]->name);
    if (n->type == WK_NODE_SCALAR && strcmp(n->str, "all") == 0) {
        s->scheds = calloc(known, sizeof *s->scheds);
        if (!s->scheds)
            return wk_error_nomem(err, "sweep");
        for (size_t i = 0; i < known; i++)
            s->scheds[s->nsched++] = table[i]->name;
        return 0;
    }
    size_t count;
    const WkNode *const *items = wk_node_items(&n, &count);
    if (count == 0 || n->type == WK_NODE_MAP || n->type == WK_NODE_NULL)
        return wk_node_error(n, WK_E_INVAL, err, "expected a scheduler name, a list of them, or all");
    s->scheds = calloc(count, sizeof *s->scheds);
    if (!s->scheds)
        return wk_error_nomem(err, "sweep");
    for (size_t i = 0; i < count; i++) {
        const WkNode *it = items[i];
        if (it->type != WK_NODE_SCALAR)
            return wk_node_error(it, WK_E_INVAL, err, "expected a scheduler name");
        const char *name = NULL;
        for (size_t k = 0; k < known && !name; k++)
            if (strcmp(table[k]->name, it->str) == 0)
                name = table[k]->name;
        if (!name)
            return wk_node_error(it, WK_E_NOTFOUND, err, "unknown scheduler '%s' (known: %s)", it->str, list);
        for (size_t k = 0; k < s->nsched; k++)
            if (s->scheds[k] == name)
                return wk_node_error(it, WK_E_INVAL, err, "scheduler '%s' is listed twice", name);
        s->scheds[s->nsched++] = name;
    }
    return 0;
}

static int parse_axes(WkSweep *s, const WkNode *n, WkError *err)
{
    if (n->type != WK_NODE_MAP)
        return wk_node_error(n, WK_E_INVAL, err, "expected a mapping of key.path: [values] or {from, to, step}");
    s->axes = calloc(n->nkids ? n->nkids : 1, sizeof *s->axes);
    if (!s->axes)
        return wk_error_nomem(err, "sweep");
    for (size_t i = 0; i < n->nkids; i++) {
        const WkNode *v = n->kids[i];
        WkSweepAxis *ax = &s->axes[s->naxes++];
        if (!(ax->path = dup_s(v->key)))
            return wk_error_nomem(err, "sweep");
        if (!strcmp(v->key, "seed") || !strcmp(v->key, "scheduler"))
            return wk_error_set(err, WK_E_INVAL, v->file, v->key_line, v->key_col,
                                "axes.%s: use the sweep's %ss: key for this axis", v->key, v->key);
        if (strstr(v->key, "..") || v->key[0] == '.' || v->key[strlen(v->key) - 1] == '.')
            return wk_error_set(err, WK_E_INVAL, v->file, v->key_line, v->key_col,
                                "axes: '%s' is not a key path (an empty segment)", v->key);
        int rc;
        if (v->type == WK_NODE_SEQ && v->nkids > 0) {
            ax->values = calloc(v->nkids, sizeof *ax->values);
            if (!ax->values)
                return wk_error_nomem(err, "sweep");
            for (size_t k = 0; k < v->nkids; k++)
                ax->values[ax->n++] = v->kids[k];
        } else if (v->type == WK_NODE_MAP) {
            if ((rc = expand_range(s, v, ax, err)) < 0)
                return rc;
        } else {
            return wk_node_error(v, WK_E_INVAL, err, "expected a list of values or a range {from, to, step}");
        }
        ax->text = calloc(ax->n, sizeof *ax->text);
        if (!ax->text)
            return wk_error_nomem(err, "sweep");
        for (size_t k = 0; k < ax->n; k++)
            if (!(ax->text[k] = wk_emit_flow(ax->values[k])))
                return wk_error_nomem(err, "sweep");
    }
    return 0;
}

/* Expand the cross product: axes outermost (in file order), then scheduler, then seed. */
static int expand(WkSweep *s, WkError *err)
{
    double total = 1;
    size_t nsc = s->nsched ? s->nsched : 1, nse = s->nseeds ? s->nseeds : 1;
    for (size_t a = 0; a < s->naxes; a++)
        total *= (double)s->axes[a].n;
    total *= (double)nsc * (double)nse;
    if (total > WK_SWEEP_MAX_POINTS)
        return wk_error_set(err, WK_E_RANGE, s->spec->file, 0, 0, "the sweep has %.0f points (at most %d)", total,
                            WK_SWEEP_MAX_POINTS);
    s->npoints = (size_t)total;
    s->points = calloc(s->npoints, sizeof *s->points);
    if (!s->points)
        return wk_error_nomem(err, "sweep");
    int width = 4;
    for (size_t x = s->npoints; x >= 10000; x /= 10)
        width++;
    for (size_t id = 0; id < s->npoints; id++) {
        WkSweepPoint *p = &s->points[id];
        p->id = id;
        size_t rest = id;
        if (s->nseeds) {
            p->has_seed = 1;
            p->seed = s->seeds[rest % nse];
        }
        rest /= nse;
        if (s->nsched)
            p->scheduler = s->scheds[rest % nsc];
        rest /= nsc;
        p->pick = calloc(s->naxes ? s->naxes : 1, sizeof *p->pick);
        p->sets = calloc(s->nfixed + s->naxes + 1, sizeof *p->sets);
        if (!p->pick || !p->sets)
            return wk_error_nomem(err, "sweep");
        for (size_t a = s->naxes; a-- > 0;) {
            p->pick[a] = rest % s->axes[a].n;
            rest /= s->axes[a].n;
        }
        for (size_t f = 0; f < s->nfixed; f++)
            if (!(p->sets[p->nsets++] = dup_s(s->fixed[f])))
                return wk_error_nomem(err, "sweep");
        size_t len = 64;
        for (size_t a = 0; a < s->naxes; a++) {
            if (!(p->sets[p->nsets++] = assignment(s->axes[a].path, s->axes[a].text[p->pick[a]])))
                return wk_error_nomem(err, "sweep");
            len += strlen(p->sets[p->nsets - 1]) + 1;
        }
        if (!(p->label = malloc(len + 64)))
            return wk_error_nomem(err, "sweep");
        size_t used = 0;
        p->label[0] = '\0';
        for (size_t a = 0; a < s->naxes; a++)
            used += (size_t)snprintf(p->label + used, len + 64 - used, "%s ", p->sets[s->nfixed + a]);
        if (p->scheduler)
            used += (size_t)snprintf(p->label + used, len + 64 - used, "scheduler=%s ", p->scheduler);
        if (p->has_seed)
            used += (size_t)snprintf(p->label + used, len + 64 - used, "seed=%llu ", (unsigned long long)p->seed);
        if (used)
            p->label[used - 1] = '\0';
        char num[32];
        int nd = snprintf(num, sizeof num, "%zu", id);
        snprintf(p->trace, sizeof p->trace, "p%.*s%s.h5", nd < width ? width - nd : 0, "0000000000", num);
        p->status = WK_SWEEP_NOT_RUN;
    }
    return 0;
}

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
    return h;
}

/* The fingerprint of the sweep and base texts into s->id. */
static void fingerprint(WkSweep *s)
{
    uint64_t h = fnv(UINT64_C(1469598103934665603), s->spec->text, s->spec->text_len);
    h = fnv(h, "", 1);
    h = fnv(h, s->base->text ? s->base->text : "", s->base->text ? s->base->text_len : 0);
    snprintf(s->id, sizeof s->id, "%016llx", (unsigned long long)h);
}

/* `name:` (and a checked `description:`), else the file's base name
 * without .yaml or .yml. */
static int set_name(WkSweep *s, const WkNode *root, const char *path, WkError *err)
{
    const char *name = NULL, *desc = NULL;
    int rc;
    if ((rc = wk_node_str(root, "name", 0, &name, err)) < 0 || (rc = wk_node_str(root, "description", 0, &desc, err)) < 0)
        return rc;
    if (!name) {
        const char *b = strrchr(path, '/');
        b = b ? b + 1 : path;
        size_t l = strlen(b);
        if (l > 5 && !strcmp(b + l - 5, ".yaml"))
            l -= 5;
        else if (l > 4 && !strcmp(b + l - 4, ".yml"))
            l -= 4;
        s->name = malloc(l + 1);
        if (s->name) {
            memcpy(s->name, b, l);
            s->name[l] = '\0';
        }
    } else {
        s->name = dup_s(name);
    }
    if (!s->name)
        return wk_error_nomem(err, "sweep");
    return 0;
}

/* `base:`: a scenario file relative to the sweep file, or an inline scenario. */
static int load_base(WkSweep *s, const WkNode *root, WkError *err)
{
    const WkNode *base = wk_node_get(root, "base");
    if (!base || base->type == WK_NODE_NULL)
        return wk_node_error(root, WK_E_INVAL, err, "base: missing required key (a scenario file or an inline scenario)");
    if (base->type == WK_NODE_MAP)
        return wk_compose_doc_from_node(&s->base, base, s->spec->file, s->spec->dir, err);
    if (base->type != WK_NODE_SCALAR)
        return wk_node_error(base, WK_E_INVAL, err, "expected a scenario file name or an inline scenario mapping");
    char *bp = join(s->spec->dir, base->str);
    if (!bp)
        return wk_error_nomem(err, "sweep");
    WkError sub;
    wk_error_clear(&sub);
    int rc = wk_compose_load_file(&s->base, bp, &sub);
    free(bp);
    if (rc < 0) {
        char at[64 + WK_ERROR_WHERE_MAX];
        snprintf(at, sizeof at, "%s:%ld:%ld", base->file, base->line, base->col);
        return wk_error_set(err, sub.code, sub.where[0] ? sub.where : NULL, 0, 0, "%s (the base of %s)", sub.msg, at);
    }
    return 0;
}

int wk_sweep_load(WkSweep **out, const char *path, WkError *err)
{
    *out = NULL;
    WkSweep *s = calloc(1, sizeof *s);
    if (!s)
        return wk_error_nomem(err, "sweep");
    if (!(s->file = dup_s(path))) {
        free(s);
        return wk_error_nomem(err, "sweep");
    }
    int rc = wk_doc_load_file(&s->spec, path, err);
    if (rc < 0)
        goto fail;
    const WkNode *root = s->spec->root;
    if (!root) {
        rc = wk_error_set(err, WK_E_INVAL, path, 0, 0, "empty sweep file: expected base: and the axes");
        goto fail;
    }
    if ((rc = wk_section_check(root, WK_DOC_SWEEP, err)) < 0)
        goto fail;
    s->gen = calloc(1, sizeof *s->gen);
    if (!s->gen || !(s->gen->root = calloc(1, sizeof *s->gen->root))) {
        rc = wk_error_nomem(err, "sweep");
        goto fail;
    }
    s->gen->root->type = WK_NODE_SEQ;
    s->gen->root->index = -1;
    if ((rc = set_name(s, root, path, err)) < 0 || (rc = load_base(s, root, err)) < 0)
        goto fail;
    if ((rc = wk_compose_put_all(s->base, wk_node_get(root, "set"), &s->fixed, &s->nfixed, err)) < 0)
        goto fail;
    if ((rc = wk_sched_plugins_add_list(&s->plugins, wk_node_get(s->base->root, "plugins"), s->base->dir, err)) < 0)
        goto fail;
    const WkNode *n;
    if ((n = wk_node_get(root, "schedulers")) && (rc = parse_schedulers(s, n, err)) < 0)
        goto fail;
    if ((n = wk_node_get(root, "seeds")) && (rc = wk_node_seeds(n, WK_SWEEP_MAX_POINTS, 1, &s->seeds, &s->nseeds, err)) < 0)
        goto fail;
    if ((n = wk_node_get(root, "axes")) && n->type != WK_NODE_NULL && (rc = parse_axes(s, n, err)) < 0)
        goto fail;
    if ((rc = expand(s, err)) < 0)
        goto fail;
    fingerprint(s);
    *out = s;
    return 0;
fail:
    wk_sweep_free(s);
    return rc;
}

void wk_sweep_free(WkSweep *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->npoints; i++) {
        WkSweepPoint *p = &s->points[i];
        for (size_t k = 0; k < p->nsets; k++)
            free(p->sets[k]);
        free(p->sets);
        free(p->pick);
        free(p->label);
        free(p->error);
        free(p->sum);
    }
    free(s->points);
    for (size_t a = 0; a < s->naxes; a++) {
        for (size_t k = 0; s->axes[a].text && k < s->axes[a].n; k++)
            free(s->axes[a].text[k]);
        free(s->axes[a].text);
        free(s->axes[a].values);
        free(s->axes[a].path);
    }
    free(s->axes);
    for (size_t f = 0; f < s->nfixed; f++)
        free(s->fixed[f]);
    free(s->fixed);
    free(s->scheds);
    wk_sched_plugins_fini(&s->plugins); /* after scheds: it borrowed their names */
    free(s->seeds);
    free(s->name);
    free(s->file);
    wk_doc_free(s->base);
    wk_doc_free(s->gen);
    wk_doc_free(s->spec);
    free(s);
}
