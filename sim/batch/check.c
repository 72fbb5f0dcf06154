/* SPDX-License-Identifier: Apache-2.0 */
/* check.c — read a baseline, run its scenarios through sim/batch/batch.h, judge
 * each metric against its expected value and tolerance, render the table,
 * and rewrite expected values in place in the baseline's text. */
#include "sim/batch/check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/scenario/compose.h"
#include "sim/scenario/emit.h"
#include "sim/core/file.h"
#include "sim/core/strbuf.h"

static char *dup_s(const char *s)
{
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

/* The shortest "%.*g" text that reads back as x; "~" for NaN. */
static void fmt_num(double x, char *buf, size_t n)
{
    if (isnan(x)) {
        snprintf(buf, n, "~");
        return;
    }
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

/* ---- loading ------------------------------------------------------------------------- */

/* abs:/rel: of a tolerance map into *a, *r (NaN when absent). */
static int read_tol(const WkNode *map, double *a, double *r, WkError *err)
{
    int rc;
    *a = *r = NAN;
    if ((rc = wk_node_double(map, "abs", 0, 0, 1e300, a, err)) < 0 || (rc = wk_node_double(map, "rel", 0, 0, 1e300, r, err)) < 0)
        return rc;
    return 0;
}

static int load_metric(WkCheckMetric *m, const WkNode *v, WkError *err)
{
    static const char *const keys[] = {"expected", "abs", "rel", NULL};
    int rc;
    m->name = v->key;
    m->abs_tol = m->rel_tol = NAN;
    m->value = v;
    if (v->type == WK_NODE_MAP) {
        if ((rc = wk_node_expect_keys(v, keys, err)) < 0 || (rc = read_tol(v, &m->abs_tol, &m->rel_tol, err)) < 0)
            return rc;
        m->value = wk_node_get(v, "expected");
        if (!m->value)
            return wk_node_error(v, WK_E_INVAL, err, "missing required key 'expected' (a number, or ~ for undefined)");
    }
    if (m->value->type == WK_NODE_NULL) {
        m->expected = NAN;
        return 0;
    }
    return wk_node_as_double(m->value, -1e300, 1e300, &m->expected, err);
}

static int load_entry(WkCheck *c, WkCheckEntry *e, const WkNode *n, WkError *err)
{
    static const char *const keys[] = {"name", "scenario", "scheduler", "seeds", "set", "metrics", NULL};
    int rc = wk_node_expect_keys(n, keys, err);
    if (rc < 0)
        return rc;
    if (n->type != WK_NODE_MAP)
        return wk_node_error(n, WK_E_INVAL, err, "expected a mapping with scenario: and metrics:");
    const WkNode *sc = wk_node_get(n, "scenario");
    if (!sc || sc->type == WK_NODE_NULL)
        return wk_node_error(n, WK_E_INVAL, err, "missing required key 'scenario' (a file or an inline scenario)");
    if (sc->type == WK_NODE_SCALAR) {
        size_t l = strlen(c->spec->dir) + strlen(sc->str) + 2;
        char *p = malloc(l);
        if (!p)
            return wk_error_nomem(err, "check");
        if (sc->str[0] == '/' || strcmp(c->spec->dir, ".") == 0)
            snprintf(p, l, "%s", sc->str);
        else
            snprintf(p, l, "%s/%s", c->spec->dir, sc->str);
        WkError sub;
        wk_error_clear(&sub);
        rc = wk_compose_load_file(&e->doc, p, &sub);
        free(p);
        if (rc < 0)
            return wk_error_set(err, sub.code, sub.where[0] ? sub.where : NULL, 0, 0, "%s (scenario of %s:%ld:%ld)",
                                sub.msg, sc->file, sc->line, sc->col);
    } else if (sc->type == WK_NODE_MAP) {
        if ((rc = wk_compose_doc_from_node(&e->doc, sc, c->spec->file, c->spec->dir, err)) < 0)
            return rc;
    } else {
        return wk_node_error(sc, WK_E_INVAL, err, "expected a scenario file name or an inline scenario mapping");
    }
    const char *name = NULL;
    if ((rc = wk_node_str(n, "name", 0, &name, err)) < 0 || (rc = wk_node_str(n, "scheduler", 0, &e->scheduler, err)) < 0)
        return rc;
    const WkNode *v;
    if ((v = wk_node_get(n, "seeds")) && v->type != WK_NODE_NULL && (rc = wk_node_seeds(v, 10000, 0, &e->seeds, &e->nseeds, err)) < 0)
        return rc;
    if ((rc = wk_compose_put_all(e->doc, wk_node_get(n, "set"), &e->sets, &e->nsets, err)) < 0)
        return rc;
    const char *scen = NULL;
    if (e->doc->root)
        wk_node_str(e->doc->root, "name", 0, &scen, NULL);
    char label[256];
    if (name)
        snprintf(label, sizeof label, "%s", name);
    else
        snprintf(label, sizeof label, "%s/%s", scen ? scen : "unnamed", e->scheduler ? e->scheduler : "default");
    if (!(e->label = dup_s(label)))
        return wk_error_nomem(err, "check");
    const WkNode *ms = wk_node_get(n, "metrics");
    if (!ms || ms->type != WK_NODE_MAP || ms->nkids == 0)
        return wk_node_error(ms ? ms : n, WK_E_INVAL, err, "metrics: expected a mapping of metric: {expected, abs|rel}");
    if (!(e->metrics = calloc(ms->nkids, sizeof *e->metrics)))
        return wk_error_nomem(err, "check");
    for (size_t i = 0; i < ms->nkids; i++) {
        if ((rc = load_metric(&e->metrics[i], ms->kids[i], err)) < 0)
            return rc;
        e->nmetrics++;
    }
    return 0;
}

int wk_check_load(WkCheck **out, const char *path, WkError *err)
{
    static const char *const keys[] = {"description", "tolerance", "scenarios", NULL};
    *out = NULL;
    WkCheck *c = calloc(1, sizeof *c);
    if (!c)
        return wk_error_nomem(err, "check");
    c->abs_tol = c->rel_tol = NAN;
    int rc = 0;
    if (!(c->file = dup_s(path))) {
        rc = wk_error_nomem(err, "check");
        goto fail;
    }
    if ((rc = wk_doc_load_file(&c->spec, path, err)) < 0)
        goto fail;
    const WkNode *root = c->spec->root;
    if (!root) {
        rc = wk_error_set(err, WK_E_INVAL, path, 0, 0, "empty baseline: expected scenarios:");
        goto fail;
    }
    if ((rc = wk_node_expect_keys(root, keys, err)) < 0)
        goto fail;
    const WkNode *tol = wk_node_get(root, "tolerance");
    if (tol && tol->type != WK_NODE_NULL) {
        static const char *const tk[] = {"abs", "rel", NULL};
        if ((rc = wk_node_expect_keys(tol, tk, err)) < 0 || (rc = read_tol(tol, &c->abs_tol, &c->rel_tol, err)) < 0)
            goto fail;
    }
    const WkNode *list = wk_node_get(root, "scenarios");
    if (!list || list->type != WK_NODE_SEQ || list->nkids == 0) {
        rc = wk_node_error(list ? list : root, WK_E_INVAL, err, "scenarios: expected a list of scenarios to check");
        goto fail;
    }
    if (!(c->e = calloc(list->nkids, sizeof *c->e))) {
        rc = wk_error_nomem(err, "check");
        goto fail;
    }
    for (size_t i = 0; i < list->nkids; i++) {
        c->n++;
        if ((rc = load_entry(c, &c->e[i], list->kids[i], err)) < 0)
            goto fail;
    }
    *out = c;
    return 0;
fail:
    wk_check_free(c);
    return rc;
}

void wk_check_free(WkCheck *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        WkCheckEntry *e = &c->e[i];
        free(e->label);
        wk_doc_free(e->doc);
        free(e->seeds);
        for (size_t k = 0; k < e->nsets; k++)
            free(e->sets[k]);
        free(e->sets);
        free(e->metrics);
    }
    free(c->e);
    wk_doc_free(c->spec);
    free(c->file);
    free(c);
}

/* ---- running -------------------------------------------------------------------------- */

static void judge(const WkCheck *c, WkCheckMetric *m)
{
    double a = !isnan(m->abs_tol) ? m->abs_tol : isnan(m->rel_tol) && !isnan(c->abs_tol) ? c->abs_tol : NAN;
    double r = !isnan(m->rel_tol) ? m->rel_tol : isnan(m->abs_tol) && !isnan(c->rel_tol) ? c->rel_tol : NAN;
    m->abs_tol = a;
    m->rel_tol = r;
    m->tol = 0;
    if (!isnan(a))
        m->tol = a;
    if (!isnan(r) && !isnan(m->expected) && r * fabs(m->expected) > m->tol)
        m->tol = r * fabs(m->expected);
    if (m->why[0])
        m->pass = 0;
    else if (isnan(m->expected) || isnan(m->got))
        m->pass = isnan(m->expected) && isnan(m->got);
    else
        m->pass = fabs(m->got - m->expected) <= m->tol;
}

int wk_check_run(WkCheck *c, int threads, WkBatchProgressFn progress, void *user, WkError *err)
{
    size_t njobs = 0;
    for (size_t i = 0; i < c->n; i++)
        njobs += c->e[i].nseeds ? c->e[i].nseeds : 1;
    WkBatchJob *jobs = calloc(njobs ? njobs : 1, sizeof *jobs);
    if (!jobs)
        return wk_error_nomem(err, "check");
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        WkCheckEntry *e = &c->e[i];
        size_t ns = e->nseeds ? e->nseeds : 1;
        for (size_t s = 0; s < ns; s++, k++) {
            jobs[k].base = e->doc;
            jobs[k].opts.scheduler = e->scheduler;
            jobs[k].opts.has_seed = e->nseeds > 0;
            jobs[k].opts.seed = e->nseeds ? e->seeds[s] : 0;
            jobs[k].opts.sets = (const char *const *)e->sets;
            jobs[k].opts.nsets = e->nsets;
        }
    }
    wk_batch_run(jobs, njobs, threads, progress, user);
    c->nfail = c->nerror = 0;
    k = 0;
    for (size_t i = 0; i < c->n; i++) {
        WkCheckEntry *e = &c->e[i];
        size_t ns = e->nseeds ? e->nseeds : 1;
        const WkBatchJob *j = &jobs[k];
        e->error[0] = '\0';
        for (size_t s = 0; s < ns; s++)
            if (j[s].rc != 0 && !e->error[0])
                wk_error_format(&j[s].err, e->error, sizeof e->error);
        c->nerror += e->error[0] != '\0';
        for (size_t m = 0; m < e->nmetrics; m++) {
            WkCheckMetric *cm = &e->metrics[m];
            double sum = 0;
            size_t cnt = 0;
            cm->why[0] = '\0';
            cm->got = NAN;
            for (size_t s = 0; s < ns && !e->error[0]; s++) {
                const WkMetric *wm = wk_summary_get(&j[s].sum, cm->name);
                if (!wm) {
                    snprintf(cm->why, sizeof cm->why, "no metric '%.100s' in the summary", cm->name);
                    break;
                }
                if (!isnan(wm->value)) {
                    sum += wm->value;
                    cnt++;
                }
            }
            if (e->error[0])
                snprintf(cm->why, sizeof cm->why, "the run failed");
            else if (cnt)
                cm->got = sum / (double)cnt;
            judge(c, cm);
            c->nfail += !cm->pass;
        }
        k += ns;
    }
    free(jobs);
    return 0;
}

/* ---- the table ------------------------------------------------------------------------- */

char *wk_check_table(const WkCheck *c)
{
    WkStrBuf b = {0};
    size_t wl = 8, wm = 6;
    for (size_t i = 0; i < c->n; i++) {
        size_t l = strlen(c->e[i].label);
        wl = l > wl ? l : wl;
        for (size_t m = 0; m < c->e[i].nmetrics; m++) {
            l = strlen(c->e[i].metrics[m].name);
            wm = l > wm ? l : wm;
        }
    }
    wk_strbuf_printf(&b, "%-*s  %-*s  %22s  %22s  %22s  %s\n", (int)wl, "scenario", (int)wm, "metric", "expected", "got",
                     "tolerance", "result");
    for (size_t i = 0; i < c->n; i++) {
        const WkCheckEntry *e = &c->e[i];
        for (size_t m = 0; m < e->nmetrics; m++) {
            const WkCheckMetric *cm = &e->metrics[m];
            char ex[32], got[32], tol[48], rt[32];
            fmt_num(cm->expected, ex, sizeof ex);
            fmt_num(cm->got, got, sizeof got);
            if (!isnan(cm->rel_tol) && isnan(cm->abs_tol)) {
                fmt_num(cm->rel_tol, rt, sizeof rt);
                snprintf(tol, sizeof tol, "rel %s", rt);
            } else if (!isnan(cm->rel_tol)) {
                fmt_num(cm->tol, rt, sizeof rt);
                snprintf(tol, sizeof tol, "±%s", rt);
            } else {
                fmt_num(cm->tol, rt, sizeof rt);
                snprintf(tol, sizeof tol, "abs %s", rt);
            }
            wk_strbuf_printf(&b, "%-*s  %-*s  %22s  %22s  %22s  %s%s%s\n", (int)wl, e->label, (int)wm, cm->name, ex,
                             got, tol, cm->pass ? "PASS" : "FAIL", cm->why[0] ? ": " : "", cm->why);
        }
    }
    size_t total = 0;
    for (size_t i = 0; i < c->n; i++)
        total += c->e[i].nmetrics;
    wk_strbuf_printf(&b, "%zu of %zu checks passed", total - c->nfail, total);
    if (c->nfail)
        wk_strbuf_printf(&b, ", %zu FAILED", c->nfail);
    wk_strbuf_printf(&b, "\n");
    return wk_strbuf_take(&b);
}

/* ---- --update ---------------------------------------------------------------------------- */

typedef struct Edit {
    size_t off, len; /* bytes of the old value in the text */
    char text[40];   /* the new value */
} Edit;

static int cmp_edit(const void *a, const void *b)
{
    const Edit *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* Byte offset of 1-based (line, column in characters) in text. */
static size_t offset_of(const char *text, size_t len, long line, long col)
{
    size_t i = 0;
    for (long l = 1; l < line && i < len; i++)
        if (text[i] == '\n')
            l++;
    for (long c = 1; c < col && i < len && text[i] != '\n'; c++) {
        i++;
        while (i < len && ((unsigned char)text[i] & 0xc0) == 0x80)
            i++;
    }
    return i;
}

static int old_value(const WkDoc *d, const WkNode *v, size_t *off, size_t *len, WkError *err)
{
    const char *t = d->text;
    size_t n = d->text_len;
    *off = offset_of(t, n, v->line, v->col);
    *len = 0;
    if (v->type == WK_NODE_SCALAR && !v->quoted) {
        size_t l = strlen(v->str);
        if (*off + l <= n && memcmp(t + *off, v->str, l) == 0) {
            *len = l;
            return 0;
        }
    } else if (v->type == WK_NODE_NULL) {
        static const char *const words[] = {"null", "Null", "NULL", "~", NULL};
        for (int w = 0; words[w]; w++) {
            size_t l = strlen(words[w]);
            if (*off + l <= n && memcmp(t + *off, words[w], l) == 0) {
                *len = l;
                return 0;
            }
        }
        if (*off >= n || t[*off] == '\n' || t[*off] == ' ' || t[*off] == '\r' || t[*off] == '#' ||
            t[*off] == ',' || t[*off] == '}')
            return 0; /* an empty value: insert */
    }
    return wk_node_error(v, WK_E_INVAL, err, "cannot update this expected value: write it as a plain number or ~");
}

int wk_check_update(const WkCheck *c, size_t *changed, WkError *err)
{
    *changed = 0;
    size_t total = 0;
    for (size_t i = 0; i < c->n; i++)
        total += c->e[i].nmetrics;
    Edit *ed = calloc(total ? total : 1, sizeof *ed);
    if (!ed)
        return wk_error_nomem(err, "check");
    size_t ne = 0;
    int rc = 0;
    for (size_t i = 0; i < c->n && rc == 0; i++) {
        const WkCheckEntry *e = &c->e[i];
        if (e->error[0])
            continue;
        for (size_t m = 0; m < e->nmetrics && rc == 0; m++) {
            const WkCheckMetric *cm = &e->metrics[m];
            if (cm->why[0] || (isnan(cm->got) && isnan(cm->expected)) || cm->got == cm->expected)
                continue;
            Edit *x = &ed[ne];
            if ((rc = old_value(c->spec, cm->value, &x->off, &x->len, err)) < 0)
                break;
            fmt_num(cm->got, x->text, sizeof x->text);
            if (x->len == 0 && x->off > 0 && c->spec->text[x->off - 1] == ':') {
                memmove(x->text + 1, x->text, strlen(x->text) + 1);
                x->text[0] = ' ';
            }
            ne++;
        }
    }
    char tmp[4200];
    char *out = NULL;
    FILE *f = NULL;
    if (rc < 0 || ne == 0)
        goto done;
    qsort(ed, ne, sizeof *ed, cmp_edit);
    size_t cap = c->spec->text_len + ne * 48 + 1, used = 0, from = 0;
    if (!(out = malloc(cap))) {
        rc = wk_error_nomem(err, "check");
        goto done;
    }
    for (size_t i = 0; i < ne; i++) {
        memcpy(out + used, c->spec->text + from, ed[i].off - from);
        used += ed[i].off - from;
        size_t l = strlen(ed[i].text);
        memcpy(out + used, ed[i].text, l);
        used += l;
        from = ed[i].off + ed[i].len;
    }
    memcpy(out + used, c->spec->text + from, c->spec->text_len - from);
    used += c->spec->text_len - from;
    /* the result must still read as a baseline before it replaces the file */
    WkDoc *check = NULL;
    if ((rc = wk_doc_load_string(&check, c->file, out, used, err)) < 0) {
        rc = wk_error_set(err, WK_E_INTERNAL, c->file, 0, 0, "--update produced text that does not parse; file left as it was");
        goto done;
    }
    wk_doc_free(check);
    int fd = wk_file_create_tmp(c->file, tmp, sizeof tmp, err); /* never follows a planted link */
    if (fd < 0) {
        rc = fd;
        goto done;
    }
    if (!(f = fdopen(fd, "wb")) || fwrite(out, 1, used, f) != used || fflush(f) != 0) {
        if (!f)
            close(fd);
        rc = wk_error_set(err, WK_E_IO, tmp, 0, 0, "cannot write: %s", strerror(errno));
        if (f)
            fclose(f);
        f = NULL;
        unlink(tmp);
        wk_file_tmp_done(tmp);
        goto done;
    }
    rc = wk_file_commit_tmp(fileno(f), tmp, c->file, err); /* fsync, rename; tmp removed on error */
    if (fclose(f) != 0 && rc == 0)
        rc = wk_error_set(err, WK_E_IO, c->file, 0, 0, "cannot replace: %s", strerror(errno));
    if (rc < 0) {
        f = NULL;
        goto done;
    }
    f = NULL;
    *changed = ne;
done:
    free(out);
    free(ed);
    return rc;
}
