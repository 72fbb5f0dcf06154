/* SPDX-License-Identifier: Apache-2.0 */
/* compare_render.c — rendering a `wanka compare` result (analysis/compare.h)
 * as an aligned text table, Markdown, LaTeX (booktabs), JSON or CSV. Formats into strings only;
 * loading and the statistics live in compare.c. */
#include "analysis/compare.h"
#include "sim/core/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rendering: numbers ------------------------------------------------------------------ */

#define CELL_MAX 256 /* bytes of one table cell: a label (192) and room */

/* printf format for a value, as wanka run's table: integers plain, very large
 * or small magnitudes in %g, the rest with four decimals. */
static const char *num_format(double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return "%.0f";
    if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-3))
        return "%.4g";
    return "%.4f";
}

/* "1234.5678", "0.48 ± 0.01", "—"; "(n=2)" when only some of the runs have it. */
static void value_text(const WkCompareCell *cell, size_t nruns, char *buf, size_t n)
{
    if (isnan(cell->mean)) {
        snprintf(buf, n, "—");
        return;
    }
    /* mean and half-width share a format: an integral mean of runs that
     * differ takes the half-width's ("2.0000 ± 2.4841", not "2 ± 2.4841") */
    const char *f = num_format(cell->mean);
    if (!isnan(cell->half) && strcmp(f, "%.0f") == 0)
        f = num_format(cell->half);
    char m[48], h[48] = "";
    snprintf(m, sizeof m, f, cell->mean);
    if (!isnan(cell->half))
        snprintf(h, sizeof h, f, cell->half);
    char partial[32] = "";
    if (nruns > 1 && cell->n < nruns)
        snprintf(partial, sizeof partial, " (n=%zu)", cell->n);
    if (h[0])
        snprintf(buf, n, "%s ± %s%s", m, h, partial);
    else
        snprintf(buf, n, "%s%s", m, partial);
}

/* "+3.2 %", "-0.012 %", "0.0 %", "—"; " ~" when the intervals overlap. */
static void change_text(const WkCompareCell *cell, char *buf, size_t n)
{
    if (isnan(cell->change)) {
        snprintf(buf, n, "—");
        return;
    }
    double pct = 100.0 * cell->change;
    const char *ov = cell->overlap == 1 ? " ~" : "";
    if (pct == 0)
        snprintf(buf, n, "0.0 %%%s", ov);
    else if (fabs(pct) < 0.05)
        snprintf(buf, n, "%+.2g %%%s", pct, ov);
    else
        snprintf(buf, n, "%+.1f %%%s", pct, ov);
}

/* Display width of UTF-8 text: one column per code point. */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* ---- rendering: the table grid (text and Markdown) ---------------------------------------- */

typedef struct Grid {
    size_t nr, nc; /* rows incl. the header, columns incl. the metric name */
    char (*cell)[CELL_MAX];
} Grid;

/* Columns: metric, then per configuration its value and (from the second on) its change. */
static int grid_build(const WkCompare *c, Grid *g)
{
    g->nr = c->nrows + 1;
    g->nc = 1 + c->ncols + (c->ncols - 1);
    g->cell = calloc(g->nr * g->nc, sizeof *g->cell);
    if (!g->cell)
        return -1;
    snprintf(g->cell[0], CELL_MAX, "metric");
    for (size_t k = 0, x = 1; k < c->ncols; k++) {
        snprintf(g->cell[x++], CELL_MAX, "%s", c->cols[k].label);
        if (k > 0)
            snprintf(g->cell[x++], CELL_MAX, "change");
    }
    for (size_t r = 0; r < c->nrows; r++) {
        char(*line)[CELL_MAX] = &g->cell[(r + 1) * g->nc];
        snprintf(line[0], CELL_MAX, "%s", c->rows[r].name);
        for (size_t k = 0, x = 1; k < c->ncols; k++) {
            value_text(&c->rows[r].cells[k], c->cols[k].nruns, line[x++], CELL_MAX);
            if (k > 0)
                change_text(&c->rows[r].cells[k], line[x++], CELL_MAX);
        }
    }
    return 0;
}

static void pad(WkStrBuf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        wk_strbuf_printf(b, " ");
}

static void footnotes(WkStrBuf *b, const WkCompare *c, const char *bullet)
{
    if (c->ncols > 1)
        wk_strbuf_printf(b, "%schange: relative to the first column, %s\n", bullet, c->cols[0].label);
    if (!c->grouped)
        return;
    wk_strbuf_printf(b, "%smean ± 95 %% confidence half-width over seeds (Student t, n-1 degrees of freedom)\n",
            bullet);
    if (c->ncols > 1)
        wk_strbuf_printf(b, "%s~ : the interval overlaps the first column's (the difference is not clear at this level)\n",
                bullet);
    for (size_t k = 0; k < c->ncols; k++) {
        const WkCompareColumn *col = &c->cols[k];
        if (col->nruns < 2)
            continue;
        wk_strbuf_printf(b, "%s%s: seeds", bullet, col->label);
        for (size_t j = 0; j < col->nruns; j++)
            wk_strbuf_printf(b, "%s %lld", j ? "," : "", col->seeds[j]);
        wk_strbuf_printf(b, "\n");
    }
}

static void render_text(WkStrBuf *b, const WkCompare *c, const Grid *g)
{
    size_t *w = calloc(g->nc, sizeof *w);
    if (!w) {
        b->oom = 1;
        return;
    }
    for (size_t r = 0; r < g->nr; r++)
        for (size_t x = 0; x < g->nc; x++) {
            size_t l = width(g->cell[r * g->nc + x]);
            w[x] = l > w[x] ? l : w[x];
        }
    for (size_t r = 0; r < g->nr; r++) {
        for (size_t x = 0; x < g->nc; x++) {
            const char *s = g->cell[r * g->nc + x];
            size_t l = width(s);
            if (x == 0) {
                wk_strbuf_printf(b, "%s", s);
                pad(b, w[0] - l);
            } else {
                pad(b, 2 + w[x] - l);
                wk_strbuf_printf(b, "%s", s);
            }
        }
        wk_strbuf_printf(b, "\n");
    }
    free(w);
    footnotes(b, c, "");
}

/* Markdown cell text: '|' escaped. */
static void md_cell(WkStrBuf *b, const char *s)
{
    for (; *s; s++)
        wk_strbuf_printf(b, *s == '|' ? "\\|" : "%c", *s);
}

static void render_markdown(WkStrBuf *b, const WkCompare *c, const Grid *g)
{
    for (size_t r = 0; r < g->nr; r++) {
        wk_strbuf_printf(b, "|");
        for (size_t x = 0; x < g->nc; x++) {
            wk_strbuf_printf(b, " ");
            md_cell(b, g->cell[r * g->nc + x]);
            wk_strbuf_printf(b, " |");
        }
        wk_strbuf_printf(b, "\n");
        if (r == 0) {
            wk_strbuf_printf(b, "|");
            for (size_t x = 0; x < g->nc; x++)
                wk_strbuf_printf(b, x == 0 ? " --- |" : " ---: |");
            wk_strbuf_printf(b, "\n");
        }
    }
    wk_strbuf_printf(b, "\n");
    footnotes(b, c, "- ");
}

/* Names and units of the metrics a paper table shows most; others are
 * written from their key (underscores as spaces, the unit from its suffix). */
static const struct {
    const char *key, *name;
} latex_names[] = {
    {"utilization", "Utilization"},     {"util_effective", "Effective utilization"},
    {"jct_mean_s", "JCT mean (s)"},     {"jct_p50_s", "JCT p50 (s)"},
    {"jct_p99_s", "JCT p99 (s)"},       {"wait_mean_s", "Queue wait mean (s)"},
    {"wait_p99_s", "Queue wait p99 (s)"}, {"makespan_s", "Makespan (s)"},
    {"energy_kwh", "Energy (kWh)"},     {"mean_power_mw", "Mean power (MW)"},
    {"goodput", "Goodput"},             {"ettr", "ETTR"},
    {"co2_t", "CO$_2$ (t)"},            {"tflops_per_gpu", "TFLOP/s per GPU"},
    {"lost_gpu_hours", "Lost GPU-hours"}, {"tokens_per_joule", "Tokens per joule"},
};

static const struct {
    const char *suffix, *unit;
} latex_units[] = {
    {"_s", "s"}, {"_h", "h"}, {"_kwh", "kWh"}, {"_mw", "MW"}, {"_w", "W"}, {"_t", "t"}, {"_gpu_hours", "GPU-h"},
};

/* A metric's name with its unit: "JCT p99 (s)", else "recovery mean (s)". */
static void latex_metric(WkStrBuf *b, const char *key)
{
    for (size_t k = 0; k < sizeof latex_names / sizeof latex_names[0]; k++)
        if (strcmp(key, latex_names[k].key) == 0) {
            wk_strbuf_printf(b, "%s", latex_names[k].name);
            return;
        }
    char name[CELL_MAX];
    snprintf(name, sizeof name, "%s", key);
    const char *unit = NULL;
    size_t l = strlen(name);
    for (size_t k = 0; k < sizeof latex_units / sizeof latex_units[0] && !unit; k++) {
        size_t sl = strlen(latex_units[k].suffix);
        if (l > sl && strcmp(name + l - sl, latex_units[k].suffix) == 0) {
            unit = latex_units[k].unit;
            if (strcmp(latex_units[k].suffix, "_gpu_hours") != 0)
                name[l - sl] = '\0';
        }
    }
    for (char *p = name; *p; p++)
        if (*p == '_')
            *p = ' ';
    wk_strbuf_latex(b, name);
    if (unit && strcmp(unit, "GPU-h") != 0)
        wk_strbuf_printf(b, " (%s)", unit);
}

/* 1 when s (inside a cell starting at begin) starts a number: a digit, or a
 * sign before one, at the start or after a space or '('. */
static int number_start(const char *begin, const char *s)
{
    int digit = isdigit((unsigned char)s[0]) || ((s[0] == '+' || s[0] == '-') && isdigit((unsigned char)s[1]));
    return digit && (s == begin || s[-1] == ' ' || s[-1] == '(');
}

/* A value cell: text escaped, and a number in exponent form ("1.546e+07")
 * as scientific notation ("$1.546 \times 10^{7}$"). */
static void latex_value(WkStrBuf *b, const char *cell)
{
    char text[CELL_MAX];
    for (const char *s = cell; *s;) {
        if (number_start(cell, s)) {
            char *end;
            (void)strtod(s, &end);
            const char *e = s;
            while (e < end && *e != 'e' && *e != 'E')
                e++;
            if (e < end)
                wk_strbuf_printf(b, "$%.*s \\times 10^{%d}$", (int)(e - s), s, atoi(e + 1));
            else
                wk_strbuf_printf(b, "%.*s", (int)(end - s), s);
            s = end;
            continue;
        }
        size_t n = 0;
        while (s[n] && !number_start(cell, s + n) && n + 1 < sizeof text)
            n++;
        memcpy(text, s, n);
        text[n] = '\0';
        wk_strbuf_latex(b, text);
        s += n;
    }
}

/* LaTeX: a booktabs tabular (\\usepackage{booktabs}); metrics by name with
 * their units, labels escaped, large and small values in scientific
 * notation; the footnotes as comment lines after it, so the table pastes
 * into a paper as it is. */
static void render_latex(WkStrBuf *b, const WkCompare *c, const Grid *g)
{
    wk_strbuf_printf(b, "\\begin{tabular}{l");
    for (size_t x = 1; x < g->nc; x++)
        wk_strbuf_printf(b, "r");
    wk_strbuf_printf(b, "}\n\\toprule\n");
    for (size_t r = 0; r < g->nr; r++) {
        for (size_t x = 0; x < g->nc; x++) {
            wk_strbuf_printf(b, "%s", x ? " & " : "");
            if (r > 0 && x == 0)
                latex_metric(b, c->rows[r - 1].name);
            else if (r > 0)
                latex_value(b, g->cell[r * g->nc + x]);
            else
                wk_strbuf_latex(b, g->cell[r * g->nc + x]);
        }
        wk_strbuf_printf(b, " \\\\\n");
        if (r == 0)
            wk_strbuf_printf(b, "\\midrule\n");
    }
    wk_strbuf_printf(b, "\\bottomrule\n\\end{tabular}\n");
    footnotes(b, c, "% ");
}

/* ---- rendering: JSON and CSV ---------------------------------------------------------------- */

typedef enum CellField { F_MEAN, F_HALF, F_N, F_CHANGE, F_OVERLAP } CellField;

static void json_cells(WkStrBuf *b, const WkCompare *c, const WkCompareRow *row, const char *key, CellField f)
{
    wk_strbuf_printf(b, ",\"%s\":[", key);
    for (size_t k = 0; k < c->ncols; k++) {
        const WkCompareCell *cell = &row->cells[k];
        wk_strbuf_printf(b, "%s", k ? "," : "");
        switch (f) {
        case F_MEAN: wk_strbuf_json_number(b, cell->mean); break;
        case F_HALF: wk_strbuf_json_number(b, cell->half); break;
        case F_N: wk_strbuf_printf(b, "%zu", cell->n); break;
        case F_CHANGE: wk_strbuf_json_number(b, cell->change); break;
        case F_OVERLAP: wk_strbuf_printf(b, "%s", cell->overlap < 0 ? "null" : cell->overlap ? "true" : "false"); break;
        }
    }
    wk_strbuf_printf(b, "]");
}

static void render_json(WkStrBuf *b, const WkCompare *c)
{
    wk_strbuf_printf(b, "{\"grouped\":%s,\"columns\":[", c->grouped ? "true" : "false");
    for (size_t k = 0; k < c->ncols; k++) {
        const WkCompareColumn *col = &c->cols[k];
        wk_strbuf_printf(b, "%s{\"label\":", k ? "," : "");
        wk_strbuf_json_string(b, col->label);
        wk_strbuf_printf(b, ",\"scenario\":");
        wk_strbuf_json_string(b, col->scenario);
        wk_strbuf_printf(b, ",\"scheduler\":");
        wk_strbuf_json_string(b, col->scheduler);
        wk_strbuf_printf(b, ",\"overrides\":");
        wk_strbuf_json_string(b, col->overrides);
        wk_strbuf_printf(b, ",\"seeds\":[");
        for (size_t j = 0; j < col->nruns; j++) {
            if (col->seeds[j] >= 0)
                wk_strbuf_printf(b, "%s%lld", j ? "," : "", col->seeds[j]);
            else
                wk_strbuf_printf(b, "%snull", j ? "," : "");
        }
        wk_strbuf_printf(b, "],\"files\":[");
        for (size_t j = 0; j < col->nruns; j++) {
            wk_strbuf_printf(b, "%s", j ? "," : "");
            wk_strbuf_json_string(b, col->paths[j]);
        }
        wk_strbuf_printf(b, "]}");
    }
    wk_strbuf_printf(b, "],\"metrics\":[");
    for (size_t r = 0; r < c->nrows; r++) {
        const WkCompareRow *row = &c->rows[r];
        wk_strbuf_printf(b, "%s{\"name\":", r ? "," : "");
        wk_strbuf_json_string(b, row->name);
        json_cells(b, c, row, "values", F_MEAN);
        json_cells(b, c, row, "ci95", F_HALF);
        json_cells(b, c, row, "n", F_N);
        json_cells(b, c, row, "rel_change", F_CHANGE);
        json_cells(b, c, row, "overlap", F_OVERLAP);
        wk_strbuf_printf(b, "}");
    }
    wk_strbuf_printf(b, "]}\n");
}

static void csv_num(WkStrBuf *b, double v)
{
    if (!isnan(v) && !isinf(v))
        wk_strbuf_printf(b, "%.17g", v);
}

static void csv_header(WkStrBuf *b, const char *label, const char *suffix)
{
    char h[sizeof ((WkCompareColumn *)0)->label + 16];
    snprintf(h, sizeof h, "%s%s", label, suffix);
    wk_strbuf_printf(b, ",");
    wk_strbuf_csv_field(b, h);
}

/* metric, then per column: value [, ci95] and from the second on rel_change [, overlap]. */
static void render_csv(WkStrBuf *b, const WkCompare *c)
{
    wk_strbuf_printf(b, "metric");
    for (size_t k = 0; k < c->ncols; k++) {
        csv_header(b, c->cols[k].label, "");
        if (c->grouped)
            csv_header(b, c->cols[k].label, " ci95");
        if (k > 0)
            csv_header(b, c->cols[k].label, " rel_change");
        if (k > 0 && c->grouped)
            csv_header(b, c->cols[k].label, " overlap");
    }
    wk_strbuf_printf(b, "\r\n");
    for (size_t r = 0; r < c->nrows; r++) {
        const WkCompareRow *row = &c->rows[r];
        wk_strbuf_csv_field(b, row->name);
        for (size_t k = 0; k < c->ncols; k++) {
            const WkCompareCell *cell = &row->cells[k];
            wk_strbuf_printf(b, ",");
            csv_num(b, cell->mean);
            if (c->grouped) {
                wk_strbuf_printf(b, ",");
                csv_num(b, cell->half);
            }
            if (k > 0) {
                wk_strbuf_printf(b, ",");
                csv_num(b, cell->change);
            }
            if (k > 0 && c->grouped)
                wk_strbuf_printf(b, ",%s", cell->overlap < 0 ? "" : cell->overlap ? "yes" : "no");
        }
        wk_strbuf_printf(b, "\r\n");
    }
}

char *wk_compare_render(const WkCompare *c, WkCompareFormat fmt)
{
    if (!c)
        return NULL;
    WkStrBuf b = {0};
    Grid g = {0};
    switch (fmt) {
    case WK_COMPARE_JSON:
        render_json(&b, c);
        break;
    case WK_COMPARE_CSV:
        render_csv(&b, c);
        break;
    case WK_COMPARE_MARKDOWN:
    case WK_COMPARE_LATEX:
    case WK_COMPARE_TEXT:
    default:
        if (grid_build(c, &g) < 0) {
            b.oom = 1;
            break;
        }
        if (fmt == WK_COMPARE_MARKDOWN)
            render_markdown(&b, c, &g);
        else if (fmt == WK_COMPARE_LATEX)
            render_latex(&b, c, &g);
        else
            render_text(&b, c, &g);
        free(g.cell);
        break;
    }
    return wk_strbuf_take(&b);
}
