/* SPDX-License-Identifier: Apache-2.0 */
/* report_seeds.c — the seed paper's rows over several seeds (see
 * report_seeds.h): mean ± 95 % half-width per row, beside the published
 * value. */
#include "analysis/report_seeds.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/strbuf.h"

WkSeedStat wk_seed_stat(const double *v, size_t n)
{
    WkSeedStat s = {.mean = NAN, .ci95 = NAN, .n = 0};
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            sum += v[i];
            s.n++;
        }
    if (!s.n)
        return s;
    s.mean = sum / (double)s.n;
    if (s.n < 2)
        return s;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            ss += (v[i] - s.mean) * (v[i] - s.mean);
    double sd = sqrt(ss / (double)(s.n - 1));
    s.ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(s.n - 1)) * sd / sqrt((double)s.n);
    return s;
}

/* "12.3 ± 0.4" in the row's unit; "—" when missing. */
static void cell(char *buf, size_t len, WkSeedStat s, const char *unit, int sign)
{
    if (!isfinite(s.mean)) {
        snprintf(buf, len, "—");
        return;
    }
    const char *fmt = sign ? "%+.1f" : "%.1f";
    int k = snprintf(buf, len, fmt, s.mean);
    if (k > 0 && (size_t)k < len && isfinite(s.ci95))
        k += snprintf(buf + k, len - (size_t)k, " ± %.1f", s.ci95);
    if (k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, "%s", unit);
}

/* What one row of the seeds holds: a statistic per column. */
typedef struct {
    WkSeedStat base, value, change, diff;
} RowStats;

/* The statistic over the seeds of one double field (at byte offset off) of
 * row `row`. */
static WkSeedStat field_stat(WkReport *const *reps, size_t n, size_t row, size_t off, double *scratch)
{
    for (size_t i = 0; i < n; i++)
        memcpy(&scratch[i], (const char *)&reps[i]->rows[row] + off, sizeof(double));
    return wk_seed_stat(scratch, n);
}

static RowStats row_stats(WkReport *const *reps, size_t n, size_t row, double *scratch)
{
    return (RowStats){
        .base = field_stat(reps, n, row, offsetof(WkReportRow, sim_baseline), scratch),
        .value = field_stat(reps, n, row, offsetof(WkReportRow, sim_value), scratch),
        .change = field_stat(reps, n, row, offsetof(WkReportRow, sim_change), scratch),
        .diff = field_stat(reps, n, row, offsetof(WkReportRow, difference), scratch),
    };
}

static void published(char *buf, size_t len, const WkPaperSciRow *p)
{
    if (p->baseline_text)
        snprintf(buf, len, "%s → %s", p->baseline_text, p->value_text);
    else
        snprintf(buf, len, "%s", p->value_text);
}

/* Append s and spaces up to w characters (UTF-8 code points, so "±" and
 * "—" count once), then the separator. */
static void put(WkStrBuf *b, const char *s, int w, const char *sep)
{
    int n = 0;
    for (const char *c = s; *c; c++)
        n += ((unsigned char)*c & 0xC0) != 0x80;
    wk_strbuf_printf(b, "%s%*s%s", s, w > n ? w - n : 0, "", sep);
}

static const char *unit_of(WkPaperSciKind k) { return k == WK_PAPER_SCI_UTIL ? " pts" : " %"; }

/* A CSV number field (empty when missing). */
static void csv_num(WkStrBuf *b, double v)
{
    wk_strbuf_printf(b, ",");
    if (isfinite(v))
        wk_strbuf_printf(b, "%.17g", v);
}

/* CSV: one row per published row, each simulated column as mean, ci95, n. */
static char *render_csv(WkReport *const *reps, size_t n, double *scratch)
{
    WkStrBuf b = {0};
    static const char *const cols[] = {"simulated_baseline", "simulated_value", "simulated_change", "difference_pts"};
    wk_strbuf_printf(&b, "section,key,metric,published_baseline_text,published_value_text");
    for (size_t k = 0; k < 4; k++)
        wk_strbuf_printf(&b, ",%s_mean,%s_ci95,%s_n", cols[k], cols[k], cols[k]);
    wk_strbuf_printf(&b, "\r\n");
    for (size_t i = 0; i < reps[0]->nrows; i++) {
        const WkPaperSciRow *p = reps[0]->rows[i].paper;
        RowStats s = row_stats(reps, n, i, scratch);
        const WkSeedStat st[] = {s.base, s.value, s.change, s.diff};
        const char *texts[] = {p->section, p->key, p->label, p->baseline_text ? p->baseline_text : "", p->value_text};
        for (size_t k = 0; k < 5; k++) {
            wk_strbuf_printf(&b, "%s", k ? "," : "");
            wk_strbuf_csv_field(&b, texts[k]);
        }
        for (size_t k = 0; k < 4; k++) {
            csv_num(&b, st[k].mean);
            csv_num(&b, st[k].ci95);
            wk_strbuf_printf(&b, ",%zu", st[k].n);
        }
        wk_strbuf_printf(&b, "\r\n");
    }
    return wk_strbuf_take(&b);
}

char *wk_report_seeds_render(WkReport *const *reps, size_t n, const char *what, WkReportFormat fmt)
{
    if (n == 0 || fmt == WK_REPORT_JSON)
        return NULL;
    int markdown = fmt == WK_REPORT_MARKDOWN, latex = fmt == WK_REPORT_LATEX;
    double *scratch = malloc(n * sizeof *scratch);
    if (!scratch)
        return NULL;
    if (fmt == WK_REPORT_CSV) {
        char *csv = render_csv(reps, n, scratch);
        free(scratch);
        return csv;
    }
    WkStrBuf b = {0};
    const WkReport *r0 = reps[0];
    const char *sep = markdown ? " | " : "  ";
    if (latex) {
        wk_strbuf_printf(&b, "%% %s\n%% %s\n\\begin{tabular}{lllrrrrr}\n\\toprule\n"
                             "section & row & published & simulated baseline & simulated SCI & simulated change & "
                             "difference (pts) & seeds \\\\\n\\midrule\n",
                         what, wk_paper_sci_citation());
    } else {
        wk_strbuf_printf(&b, "%s%s\n%s\n\n", markdown ? "" : "", what, wk_paper_sci_citation());
    }
    if (markdown)
        wk_strbuf_printf(&b, "| section | row | published | simulated baseline | simulated SCI | simulated change |"
                             " difference (pts) | seeds |\n|---|---|---|---|---|---|---|---|\n");
    static const int w[] = {10, 44, 22, 18, 18, 18, 14};
    if (!markdown && !latex) {
        static const char *const head[] = {"section", "row", "published", "sim. baseline", "sim. SCI / value",
                                           "sim. change", "difference"};
        for (int k = 0; k < 7; k++)
            put(&b, head[k], w[k], sep);
        wk_strbuf_printf(&b, "seeds\n");
    }
    for (size_t i = 0; i < r0->nrows; i++) {
        const WkPaperSciRow *p = r0->rows[i].paper;
        RowStats s = row_stats(reps, n, i, scratch);
        char pub[96], cb[64], cv[64], cc[64], cd[64];
        published(pub, sizeof pub, p);
        int one = !p->baseline_text; /* §3.1, §3.4: one value per run */
        int dur = p->kind == WK_PAPER_SCI_DURATION || p->kind == WK_PAPER_SCI_REL;
        if (one || dur)
            snprintf(cb, sizeof cb, "—");
        else
            cell(cb, sizeof cb, s.base, " %", 0);
        if (dur)
            snprintf(cv, sizeof cv, "—");
        else
            cell(cv, sizeof cv, s.value, " %", p->kind == WK_PAPER_SCI_SPEED);
        if (one)
            snprintf(cc, sizeof cc, "—");
        else
            cell(cc, sizeof cc, s.change, unit_of(p->kind), 1);
        cell(cd, sizeof cd, s.diff, "", 1);
        size_t nseeds = one ? s.value.n : s.change.n;
        if (markdown) {
            wk_strbuf_printf(&b, "| %s | %s | %s | %s | %s | %s | %s | %zu |\n", p->section, p->label, pub, cb, cv, cc,
                             cd, nseeds);
        } else if (latex) {
            const char *cells[] = {p->section, p->label, pub, cb, cv, cc, cd};
            for (int k = 0; k < 7; k++) {
                wk_strbuf_latex(&b, cells[k]);
                wk_strbuf_printf(&b, " & ");
            }
            wk_strbuf_printf(&b, "%zu \\\\\n", nseeds);
        } else {
            const char *cells[] = {p->section, p->label, pub, cb, cv, cc, cd};
            for (int k = 0; k < 7; k++)
                put(&b, cells[k], w[k], sep);
            wk_strbuf_printf(&b, "%zu\n", nseeds);
        }
    }
    if (latex)
        wk_strbuf_printf(&b, "\\bottomrule\n\\end{tabular}\n%% ");
    else
        wk_strbuf_printf(&b, "\n");
    wk_strbuf_printf(&b, "mean ± 95 %% confidence half-width over the seeds (Student's t); the published column is the "
                         "paper's, nothing is fitted to it.\n");
    free(scratch);
    if (b.oom) {
        free(wk_strbuf_take(&b));
        return NULL;
    }
    return wk_strbuf_take(&b);
}
