/* SPDX-License-Identifier: Apache-2.0 */
/* summary.c — rendering summaries; quantiles through GSL statistics. */
#include "sim/trace/summary.h"

#include "sim/core/strbuf.h"
#include "sim/core/text.h"

#include <math.h>
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

size_t wk_summary_used_size(const WkSummary *s)
{
    return offsetof(WkSummary, m) + s->n * sizeof s->m[0];
}

WkSummary *wk_summary_dup_used(const WkSummary *s)
{
    size_t n = wk_summary_used_size(s);
    WkSummary *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

const WkMetric *wk_summary_get(const WkSummary *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->m[i].name, name) == 0)
            return &s->m[i];
    return NULL;
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
    WkStrBuf b = {0};
    size_t wl = 6, wv = 5;
    char v[64];
    for (size_t i = 0; i < s->n; i++) {
        size_t l = strlen(s->m[i].label);
        wl = l > wl ? l : wl;
        value_text(&s->m[i], v, sizeof v);
        wv = strlen(v) > wv ? strlen(v) : wv;
    }
    /* names come from input files: control characters are escaped, never sent to a terminal */
    char e1[4 * sizeof s->title], e2[4 * sizeof s->scenario], e3[4 * sizeof s->scheduler];
    if (s->title[0])
        wk_strbuf_printf(&b, "%s\n", wk_text_term(s->title, e1, sizeof e1));
    else
        wk_strbuf_printf(&b, "scenario %s  scheduler %s  seed %llu\n", wk_text_term(s->scenario, e2, sizeof e2),
                         wk_text_term(s->scheduler, e3, sizeof e3), (unsigned long long)s->seed);
    wk_strbuf_printf(&b, "%-*s  %*s  %s\n", (int)wl, "metric", (int)wv, "value", "units");
    for (size_t i = 0; i < s->n; i++) {
        value_text(&s->m[i], v, sizeof v);
        /* "—" is 3 bytes but one column wide */
        int pad = (int)wv + (isnan(s->m[i].value) ? 2 : 0);
        wk_strbuf_printf(&b, "%-*s  %*s  %s\n", (int)wl, s->m[i].label, pad, v, s->m[i].units);
    }
    return wk_strbuf_take(&b);
}

char *wk_summary_json(const WkSummary *s)
{
    WkStrBuf b = {0};
    wk_strbuf_printf(&b, "{\"scenario\":");
    wk_strbuf_json_string(&b, s->scenario);
    wk_strbuf_printf(&b, ",\"scheduler\":");
    wk_strbuf_json_string(&b, s->scheduler);
    wk_strbuf_printf(&b, ",\"seed\":%llu,\"metrics\":{", (unsigned long long)s->seed);
    for (size_t i = 0; i < s->n; i++) {
        wk_strbuf_printf(&b, "%s", i ? "," : "");
        wk_strbuf_json_string(&b, s->m[i].name);
        wk_strbuf_printf(&b, ":");
        if (s->m[i].is_int && isfinite(s->m[i].value))
            wk_strbuf_printf(&b, "%.0f", s->m[i].value);
        else
            wk_strbuf_json_number(&b, s->m[i].value);
    }
    wk_strbuf_printf(&b, "},\"units\":{");
    for (size_t i = 0; i < s->n; i++) {
        wk_strbuf_printf(&b, "%s", i ? "," : "");
        wk_strbuf_json_string(&b, s->m[i].name);
        wk_strbuf_printf(&b, ":");
        wk_strbuf_json_string(&b, s->m[i].units);
    }
    wk_strbuf_printf(&b, "}}\n");
    return wk_strbuf_take(&b);
}

double wk_quantile_sorted(const double *x, size_t n, double q)
{
    if (n == 0)
        return NAN;
    return gsl_stats_quantile_from_sorted_data(x, 1, n, q);
}
