/* SPDX-License-Identifier: Apache-2.0 */
/* summary.c — rendering summaries; quantiles through GSL statistics. */
#include "sim/summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

int wk_summary_add(WkSummary *s, const char *name, const char *label, const char *units, double value,
                   int is_int)
{
    if (s->n >= WK_SUMMARY_MAX)
        return WK_E_RANGE;
    WkMetric *m = &s->m[s->n++];
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->label, sizeof m->label, "%s", label);
    snprintf(m->units, sizeof m->units, "%s", units ? units : "");
    m->value = value;
    m->is_int = is_int;
    return 0;
}

const WkMetric *wk_summary_get(const WkSummary *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->m[i].name, name) == 0)
            return &s->m[i];
    return NULL;
}

typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} Buf;

static void bprintf(Buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 1024) + (size_t)k;
        char *np = realloc(b->p, nc);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
}

static char *finish(Buf *b)
{
    if (b->oom) {
        free(b->p);
        return NULL;
    }
    return b->p;
}

static void value_text(const WkMetric *m, char *buf, size_t n)
{
    if (isnan(m->value))
        snprintf(buf, n, "—");
    else if (m->is_int)
        snprintf(buf, n, "%.0f", m->value);
    else if (m->value != 0 && (fabs(m->value) >= 1e7 || fabs(m->value) < 1e-3))
        snprintf(buf, n, "%.4g", m->value);
    else
        snprintf(buf, n, "%.4f", m->value);
}

char *wk_summary_table(const WkSummary *s)
{
    Buf b = {0};
    size_t wl = 6, wv = 5;
    char v[64];
    for (size_t i = 0; i < s->n; i++) {
        size_t l = strlen(s->m[i].label);
        wl = l > wl ? l : wl;
        value_text(&s->m[i], v, sizeof v);
        wv = strlen(v) > wv ? strlen(v) : wv;
    }
    if (s->title[0])
        bprintf(&b, "%s\n", s->title);
    else
        bprintf(&b, "scenario %s  scheduler %s  seed %llu\n", s->scenario, s->scheduler,
                (unsigned long long)s->seed);
    bprintf(&b, "%-*s  %*s  %s\n", (int)wl, "metric", (int)wv, "value", "units");
    for (size_t i = 0; i < s->n; i++) {
        value_text(&s->m[i], v, sizeof v);
        /* "—" is 3 bytes but one column wide */
        int pad = (int)wv + (isnan(s->m[i].value) ? 2 : 0);
        bprintf(&b, "%-*s  %*s  %s\n", (int)wl, s->m[i].label, pad, v, s->m[i].units);
    }
    return finish(&b);
}

static void json_str(Buf *b, const char *s)
{
    bprintf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            bprintf(b, "\\%c", c);
        else if (c < 0x20)
            bprintf(b, "\\u%04x", c);
        else
            bprintf(b, "%c", c);
    }
    bprintf(b, "\"");
}

char *wk_summary_json(const WkSummary *s)
{
    Buf b = {0};
    bprintf(&b, "{\"scenario\":");
    json_str(&b, s->scenario);
    bprintf(&b, ",\"scheduler\":");
    json_str(&b, s->scheduler);
    bprintf(&b, ",\"seed\":%llu,\"metrics\":{", (unsigned long long)s->seed);
    for (size_t i = 0; i < s->n; i++) {
        bprintf(&b, "%s", i ? "," : "");
        json_str(&b, s->m[i].name);
        if (isnan(s->m[i].value) || isinf(s->m[i].value))
            bprintf(&b, ":null");
        else if (s->m[i].is_int)
            bprintf(&b, ":%.0f", s->m[i].value);
        else
            bprintf(&b, ":%.17g", s->m[i].value);
    }
    bprintf(&b, "},\"units\":{");
    for (size_t i = 0; i < s->n; i++) {
        bprintf(&b, "%s", i ? "," : "");
        json_str(&b, s->m[i].name);
        bprintf(&b, ":");
        json_str(&b, s->m[i].units);
    }
    bprintf(&b, "}}\n");
    return finish(&b);
}

double wk_quantile_sorted(const double *x, size_t n, double q)
{
    if (n == 0)
        return NAN;
    return gsl_stats_quantile_from_sorted_data(x, 1, n, q);
}
