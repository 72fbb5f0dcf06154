/* SPDX-License-Identifier: Apache-2.0 */
/* report_render.c — rendering a `wanka report` (analysis/report.h) as aligned
 * text, Markdown, LaTeX (booktabs), CSV or JSON, in the paper's table layout: published, simulated,
 * difference. Formats into strings only; the numbers come from report.c. */
#include "analysis/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/strbuf.h"

/* ---- cell texts ------------------------------------------------------------------------ */

#define CELL_MAX 256
#define DASH "—"

static void pct(char *buf, double v)
{
    if (isnan(v))
        snprintf(buf, CELL_MAX, DASH);
    else
        snprintf(buf, CELL_MAX, "%.1f %%", v);
}

static void signed_pct(char *buf, double v)
{
    if (isnan(v))
        snprintf(buf, CELL_MAX, DASH);
    else
        snprintf(buf, CELL_MAX, "%+.1f %%", v);
}

static void pts(char *buf, double v)
{
    if (isnan(v))
        snprintf(buf, CELL_MAX, DASH);
    else
        snprintf(buf, CELL_MAX, "%+.1f pts", v);
}

/* "12.3 s", "13.1 min", "2.5 h" */
static void duration(char *buf, double s)
{
    if (isnan(s))
        snprintf(buf, CELL_MAX, DASH);
    else if (fabs(s) < 120)
        snprintf(buf, CELL_MAX, "%.1f s", s);
    else if (fabs(s) < 7200)
        snprintf(buf, CELL_MAX, "%.1f min", s / 60);
    else
        snprintf(buf, CELL_MAX, "%.1f h", s / 3600);
}

static void published_change(char *buf, const WkPaperSciRow *p)
{
    if (isnan(p->change))
        snprintf(buf, CELL_MAX, DASH);
    else if (p->kind == WK_PAPER_SCI_UTIL)
        snprintf(buf, CELL_MAX, "%+g pts", p->change);
    else
        snprintf(buf, CELL_MAX, "%+g %%", p->change);
}

static void sim_level(char *buf, const WkReportRow *r, double v)
{
    switch (r->paper->kind) {
    case WK_PAPER_SCI_DURATION: duration(buf, v); break;
    case WK_PAPER_SCI_SPEED: signed_pct(buf, v); break;
    default: pct(buf, v); break;
    }
}

static void sim_change(char *buf, const WkReportRow *r)
{
    if (r->paper->kind == WK_PAPER_SCI_UTIL)
        pts(buf, r->sim_change);
    else
        signed_pct(buf, r->sim_change);
}

/* ---- grids ------------------------------------------------------------------------------ */

typedef struct Grid {
    size_t nr, nc;            /* rows incl. the header */
    char (*cell)[CELL_MAX];
    const char *group[8];     /* text: a label over the column it starts at (NULL: none) */
    size_t left;              /* Markdown: the first `left` columns are left-aligned (text) */
} Grid;

static char *at(Grid *g, size_t r, size_t c)
{
    return g->cell[r * g->nc + c];
}

static int grid_init(Grid *g, size_t nr, size_t nc)
{
    memset(g, 0, sizeof *g);
    g->nr = nr;
    g->nc = nc;
    g->cell = calloc(nr * nc, sizeof *g->cell);
    return g->cell ? 0 : -1;
}

/* Display width of UTF-8 text: one column per code point (the CJK-free cells). */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void pad(WkStrBuf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        wk_strbuf_printf(b, " ");
}

static void grid_text(WkStrBuf *b, Grid *g)
{
    size_t w[8] = {0};
    for (size_t r = 0; r < g->nr; r++)
        for (size_t c = 0; c < g->nc && c < 8; c++) {
            size_t l = width(at(g, r, c));
            w[c] = l > w[c] ? l : w[c];
        }
    for (size_t c = 0; c < g->nc; c++) {
        size_t l = g->group[c] ? width(g->group[c]) : 0;
        if (g->group[c] && l > w[c] && (c + 1 == g->nc || g->group[c + 1]))
            w[c] = l; /* a one-column group as wide as its label */
    }
    int groups = 0;
    for (size_t c = 0; c < g->nc; c++)
        groups |= g->group[c] != NULL;
    if (groups) {
        size_t col = 0, want = 0;
        for (size_t c = 0; c < g->nc; c++) {
            if (g->group[c]) {
                pad(b, want > col ? want - col : 1);
                col = want > col ? want : col + 1;
                wk_strbuf_printf(b, "%s", g->group[c]);
                col += width(g->group[c]);
            }
            want += w[c] + 2;
        }
        wk_strbuf_printf(b, "\n");
    }
    for (size_t r = 0; r < g->nr; r++) {
        for (size_t c = 0; c < g->nc; c++) {
            const char *s = at(g, r, c);
            wk_strbuf_printf(b, "%s", s);
            if (c + 1 < g->nc)
                pad(b, w[c] - width(s) + 2);
        }
        wk_strbuf_printf(b, "\n");
    }
}

/* A pipe-table cell: '|' escaped, a line break or other control character
 * (which would end the row) as a space. */
static void md_cell(WkStrBuf *b, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            wk_strbuf_printf(b, "\\|");
        else
            wk_strbuf_printf(b, "%c", (unsigned char)*s < 0x20 ? ' ' : *s);
}

/* Markdown: a group label prefixes the header of each column it spans. */
static void grid_markdown(WkStrBuf *b, Grid *g)
{
    const char *grp = NULL;
    for (size_t r = 0; r < g->nr; r++) {
        wk_strbuf_printf(b, "|");
        for (size_t c = 0; c < g->nc; c++) {
            wk_strbuf_printf(b, " ");
            if (r == 0 && g->group[c])
                grp = g->group[c];
            if (r == 0 && grp && c > 0 && strcmp(grp, at(g, 0, c)) != 0) {
                md_cell(b, grp);
                wk_strbuf_printf(b, ": ");
            }
            md_cell(b, at(g, r, c));
            wk_strbuf_printf(b, " |");
        }
        wk_strbuf_printf(b, "\n");
        if (r == 0) {
            wk_strbuf_printf(b, "|");
            for (size_t c = 0; c < g->nc; c++)
                wk_strbuf_printf(b, c < g->left ? " --- |" : " ---: |");
            wk_strbuf_printf(b, "\n");
        }
    }
}

/* LaTeX: a booktabs tabular; group labels as a \\multicolumn row over their
 * columns with \\cmidrule under each. */
static void grid_latex(WkStrBuf *b, Grid *g)
{
    wk_strbuf_printf(b, "\\begin{tabular}{");
    for (size_t c = 0; c < g->nc; c++)
        wk_strbuf_printf(b, c < g->left ? "l" : "r");
    wk_strbuf_printf(b, "}\n\\toprule\n");
    int groups = 0;
    for (size_t c = 0; c < g->nc; c++)
        groups |= g->group[c] != NULL;
    if (groups) {
        char rules[256] = "";
        size_t rl = 0;
        for (size_t c = 0; c < g->nc;) {
            if (!g->group[c]) {
                wk_strbuf_printf(b, "%s", c ? " & " : "");
                c++;
                continue;
            }
            size_t span = 1;
            while (c + span < g->nc && !g->group[c + span])
                span++;
            wk_strbuf_printf(b, "%s\\multicolumn{%zu}{c}{", c ? " & " : "", span);
            wk_strbuf_latex(b, g->group[c]);
            wk_strbuf_printf(b, "}");
            if (rl < sizeof rules)
                rl += (size_t)snprintf(rules + rl, sizeof rules - rl, "\\cmidrule(lr){%zu-%zu}", c + 1, c + span);
            c += span;
        }
        wk_strbuf_printf(b, " \\\\\n%s\n", rules);
    }
    for (size_t r = 0; r < g->nr; r++) {
        for (size_t c = 0; c < g->nc; c++) {
            wk_strbuf_printf(b, "%s", c ? " & " : "");
            wk_strbuf_latex(b, at(g, r, c));
        }
        wk_strbuf_printf(b, " \\\\\n");
        if (r == 0)
            wk_strbuf_printf(b, "\\midrule\n");
    }
    wk_strbuf_printf(b, "\\bottomrule\n\\end{tabular}\n");
}

/* ---- the sections --------------------------------------------------------------------- */

static size_t count_section(const WkReport *R, const char *section)
{
    size_t n = 0;
    for (size_t i = 0; i < R->nrows; i++)
        n += strcmp(R->rows[i].paper->section, section) == 0;
    return n;
}

static const WkReportTrace *trace_of(const WkReport *R, const char *role)
{
    for (size_t i = 0; i < R->ntraces; i++)
        if (strcmp(R->traces[i].role, role) == 0)
            return &R->traces[i];
    return NULL;
}

static int grid_table52(const WkReport *R, Grid *g)
{
    if (grid_init(g, count_section(R, "Table 5.2") + 1, 8) < 0)
        return -1;
    static const char *const head[8] = {"metric", "traditional", "SCI", "change", "baseline", "SCI",
                                        "change", "of the change"};
    for (size_t c = 0; c < 8; c++)
        snprintf(at(g, 0, c), CELL_MAX, "%s", head[c]);
    g->left = 1;
    g->group[1] = "published";
    g->group[4] = "simulated";
    g->group[7] = "difference";
    size_t r = 1;
    for (size_t i = 0; i < R->nrows; i++) {
        const WkReportRow *row = &R->rows[i];
        const WkPaperSciRow *p = row->paper;
        if (strcmp(p->section, "Table 5.2") != 0)
            continue;
        snprintf(at(g, r, 0), CELL_MAX, "%s", p->label);
        snprintf(at(g, r, 1), CELL_MAX, "%s", p->baseline_text ? p->baseline_text : DASH);
        snprintf(at(g, r, 2), CELL_MAX, "%s", p->value_text);
        published_change(at(g, r, 3), p);
        sim_level(at(g, r, 4), row, row->sim_baseline);
        sim_level(at(g, r, 5), row, row->sim_value);
        sim_change(at(g, r, 6), row);
        pts(at(g, r, 7), row->difference);
        r++;
    }
    return 0;
}

static int grid_single(const WkReport *R, const char *section, Grid *g)
{
    if (grid_init(g, count_section(R, section) + 1, 5) < 0)
        return -1;
    static const char *const head[5] = {"metric", "simulated from", "published", "simulated", "difference"};
    g->left = 2;
    for (size_t c = 0; c < 5; c++)
        snprintf(at(g, 0, c), CELL_MAX, "%s", head[c]);
    size_t r = 1;
    for (size_t i = 0; i < R->nrows; i++) {
        const WkReportRow *row = &R->rows[i];
        if (strcmp(row->paper->section, section) != 0)
            continue;
        snprintf(at(g, r, 0), CELL_MAX, "%s", row->paper->label);
        snprintf(at(g, r, 1), CELL_MAX, "%s", row->source[0] ? row->source : "(no trace given)");
        snprintf(at(g, r, 2), CELL_MAX, "%s", row->paper->value_text);
        sim_level(at(g, r, 3), row, row->sim_value);
        pts(at(g, r, 4), row->difference);
        r++;
    }
    return 0;
}

typedef struct Section {
    const char *name;  /* paper_sci.h section */
    const char *title; /* printed above the table */
} Section;

static const Section sections[] = {
    {"Table 5.2", "Table 5.2 — SCI scheduler vs a traditional scheduler"},
    {"§3.1", "§3.1 — Self-organized load balancing: spread of utilization over GPUs"},
    {"§3.4", "§3.4 — Fault response: 32 GPUs of one rack throttled"},
};

/* A LaTeX comment line: "% " and text (escaping is not needed in comments). */
static void tex_comment(WkStrBuf *b, const char *s)
{
    wk_strbuf_printf(b, "%% %s\n", s);
}

static void render_grid(WkStrBuf *b, Grid *g, WkReportFormat fmt)
{
    if (fmt == WK_REPORT_MARKDOWN)
        grid_markdown(b, g);
    else if (fmt == WK_REPORT_LATEX)
        grid_latex(b, g);
    else
        grid_text(b, g);
}

/* LaTeX: the heading lines and notes as % comments, each table a tabular
 * after a comment with its title. */
static void render_latex(WkStrBuf *b, const WkReport *R)
{
    tex_comment(b, "wanka report paper-sci");
    wk_strbuf_printf(b, "%% paper: %s\n", wk_paper_sci_citation());
    tex_comment(b, "published: as printed in the paper; simulated: computed from the traces; difference: "
                   "simulated - published, in percentage points");
    for (size_t i = 0; i < R->ntraces; i++) {
        const WkReportTrace *t = &R->traces[i];
        wk_strbuf_printf(b, "%% %s: %s, scenario %s\n", t->role, t->label, t->scenario[0] ? t->scenario : "?");
    }
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        Grid g;
        int rc = s == 0 ? grid_table52(R, &g) : grid_single(R, sections[s].name, &g);
        if (rc < 0) {
            b->oom = 1;
            return;
        }
        wk_strbuf_printf(b, "\n%% %s\n", sections[s].title);
        render_grid(b, &g, WK_REPORT_LATEX);
        free(g.cell);
    }
    for (size_t i = 0; i < R->nnotes; i++)
        wk_strbuf_printf(b, "%s%% - %s\n", i ? "" : "\n", R->notes[i]);
}

static void render_tables(WkStrBuf *b, const WkReport *R, int markdown)
{
    wk_strbuf_printf(b, markdown ? "## wanka report paper-sci\n\n" : "wanka report paper-sci\n");
    wk_strbuf_printf(b, "%s%s\n", markdown ? "Paper: " : "paper: ", wk_paper_sci_citation());
    wk_strbuf_printf(b, "%spublished: as printed in the paper; simulated: computed from the traces; difference: "
               "simulated − published, in percentage points\n\n",
            markdown ? "\n" : "");
    Grid tg;
    if (grid_init(&tg, R->ntraces + 1, 4) < 0) {
        b->oom = 1;
        return;
    }
    static const char *const th[4] = {"trace", "run", "scenario", "overrides"};
    tg.left = 4;
    for (size_t c = 0; c < 4; c++)
        snprintf(at(&tg, 0, c), CELL_MAX, "%s", th[c]);
    for (size_t i = 0; i < R->ntraces; i++) {
        const WkReportTrace *t = &R->traces[i];
        snprintf(at(&tg, i + 1, 0), CELL_MAX, "%s", t->role);
        snprintf(at(&tg, i + 1, 1), CELL_MAX, "%s", t->label);
        snprintf(at(&tg, i + 1, 2), CELL_MAX, "%s", t->scenario[0] ? t->scenario : "?");
        char *o = at(&tg, i + 1, 3);
        snprintf(o, CELL_MAX, "%s", t->overrides[0] ? t->overrides : "-");
        size_t l = strlen(o);
        while (l > 0 && o[l - 1] == '\n')
            o[--l] = '\0';
        for (char *q = o; *q; q++)
            if (*q == '\n')
                *q = ' ';
    }
    if (markdown)
        grid_markdown(b, &tg);
    else
        grid_text(b, &tg);
    free(tg.cell);
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        Grid g;
        int rc = s == 0 ? grid_table52(R, &g) : grid_single(R, sections[s].name, &g);
        if (rc < 0) {
            b->oom = 1;
            return;
        }
        if (markdown)
            wk_strbuf_printf(b, "\n### %s\n\n", sections[s].title);
        else
            wk_strbuf_printf(b, "\n%s\n", sections[s].title);
        if (s == 0) {
            const WkReportTrace *tb = trace_of(R, "baseline"), *ts = trace_of(R, "sci");
            wk_strbuf_printf(b, "baseline (traditional): %s; SCI: %s\n%s", tb ? tb->label : "?",
                    ts ? ts->label : "?", markdown ? "\n" : "");
        }
        if (markdown)
            grid_markdown(b, &g);
        else
            grid_text(b, &g);
        free(g.cell);
    }
    if (R->nnotes) {
        wk_strbuf_printf(b, markdown ? "\nNotes:\n\n" : "\nnotes\n");
        for (size_t i = 0; i < R->nnotes; i++)
            wk_strbuf_printf(b, "- %s\n", R->notes[i]);
    }
}

/* ---- JSON ------------------------------------------------------------------------------- */

static const char *kind_name(WkPaperSciKind k)
{
    switch (k) {
    case WK_PAPER_SCI_UTIL: return "utilization";
    case WK_PAPER_SCI_REL: return "relative";
    case WK_PAPER_SCI_DURATION: return "duration";
    case WK_PAPER_SCI_SPREAD: return "spread";
    case WK_PAPER_SCI_SPEED: return "speed";
    }
    return "?";
}

static void render_json(WkStrBuf *b, const WkReport *R)
{
    wk_strbuf_printf(b, "{\"report\":\"paper-sci\",\"paper\":");
    wk_strbuf_json_string(b, wk_paper_sci_citation());
    wk_strbuf_printf(b, ",\"traces\":{");
    for (size_t i = 0; i < R->ntraces; i++) {
        const WkReportTrace *t = &R->traces[i];
        wk_strbuf_printf(b, "%s\"%s\":{\"label\":", i ? "," : "", t->role);
        wk_strbuf_json_string(b, t->label);
        wk_strbuf_printf(b, ",\"path\":");
        wk_strbuf_json_string(b, t->path);
        wk_strbuf_printf(b, ",\"scenario\":");
        wk_strbuf_json_string(b, t->scenario);
        wk_strbuf_printf(b, ",\"scheduler\":");
        wk_strbuf_json_string(b, t->scheduler);
        wk_strbuf_printf(b, ",\"overrides\":");
        wk_strbuf_json_string(b, t->overrides);
        wk_strbuf_printf(b, "}");
    }
    wk_strbuf_printf(b, "},\"rows\":[");
    for (size_t i = 0; i < R->nrows; i++) {
        const WkReportRow *r = &R->rows[i];
        const WkPaperSciRow *p = r->paper;
        wk_strbuf_printf(b, "%s{\"key\":", i ? "," : "");
        wk_strbuf_json_string(b, p->key);
        wk_strbuf_printf(b, ",\"section\":");
        wk_strbuf_json_string(b, p->section);
        wk_strbuf_printf(b, ",\"label\":");
        wk_strbuf_json_string(b, p->label);
        wk_strbuf_printf(b, ",\"kind\":\"%s\",\"published\":{\"baseline\":", kind_name(p->kind));
        wk_strbuf_json_number(b, p->baseline);
        wk_strbuf_printf(b, ",\"value\":");
        wk_strbuf_json_number(b, p->value);
        wk_strbuf_printf(b, ",\"change\":");
        wk_strbuf_json_number(b, p->change);
        wk_strbuf_printf(b, ",\"baseline_text\":");
        if (p->baseline_text)
            wk_strbuf_json_string(b, p->baseline_text);
        else
            wk_strbuf_printf(b, "null");
        wk_strbuf_printf(b, ",\"value_text\":");
        wk_strbuf_json_string(b, p->value_text);
        wk_strbuf_printf(b, ",\"original\":");
        wk_strbuf_json_string(b, p->original);
        wk_strbuf_printf(b, "},\"simulated\":{\"baseline\":");
        wk_strbuf_json_number(b, r->sim_baseline);
        wk_strbuf_printf(b, ",\"value\":");
        wk_strbuf_json_number(b, r->sim_value);
        wk_strbuf_printf(b, ",\"change\":");
        wk_strbuf_json_number(b, r->sim_change);
        wk_strbuf_printf(b, ",\"raw_baseline\":");
        wk_strbuf_json_number(b, r->raw_baseline);
        wk_strbuf_printf(b, ",\"raw_value\":");
        wk_strbuf_json_number(b, r->raw_value);
        wk_strbuf_printf(b, ",\"source\":");
        wk_strbuf_json_string(b, r->source);
        wk_strbuf_printf(b, "},\"difference\":");
        wk_strbuf_json_number(b, r->difference);
        wk_strbuf_printf(b, "}");
    }
    wk_strbuf_printf(b, "],\"notes\":[");
    for (size_t i = 0; i < R->nnotes; i++) {
        wk_strbuf_printf(b, "%s", i ? "," : "");
        wk_strbuf_json_string(b, R->notes[i]);
    }
    wk_strbuf_printf(b, "]}\n");
}

/* ---- CSV: one row per published row, numbers in the row's units ---------------------------- */

static void csv_num(WkStrBuf *b, double v)
{
    wk_strbuf_printf(b, ",");
    if (isfinite(v))
        wk_strbuf_printf(b, "%.17g", v);
}

static void csv_text(WkStrBuf *b, const char *s)
{
    wk_strbuf_printf(b, ",");
    wk_strbuf_csv_field(b, s);
}

static void render_csv(WkStrBuf *b, const WkReport *R)
{
    wk_strbuf_printf(b, "section,key,metric,kind,published_baseline,published_value,published_change,"
                        "published_baseline_text,published_value_text,simulated_baseline,simulated_value,"
                        "simulated_change,difference_pts,simulated_from\r\n");
    for (size_t i = 0; i < R->nrows; i++) {
        const WkReportRow *r = &R->rows[i];
        const WkPaperSciRow *p = r->paper;
        wk_strbuf_csv_field(b, p->section);
        csv_text(b, p->key);
        csv_text(b, p->label);
        csv_text(b, kind_name(p->kind));
        csv_num(b, p->baseline);
        csv_num(b, p->value);
        csv_num(b, p->change);
        csv_text(b, p->baseline_text ? p->baseline_text : "");
        csv_text(b, p->value_text);
        csv_num(b, r->sim_baseline);
        csv_num(b, r->sim_value);
        csv_num(b, r->sim_change);
        csv_num(b, r->difference);
        csv_text(b, r->source);
        wk_strbuf_printf(b, "\r\n");
    }
}

char *wk_report_render(const WkReport *r, WkReportFormat fmt)
{
    if (!r)
        return NULL;
    WkStrBuf b = {0};
    if (fmt == WK_REPORT_JSON)
        render_json(&b, r);
    else if (fmt == WK_REPORT_CSV)
        render_csv(&b, r);
    else if (fmt == WK_REPORT_LATEX)
        render_latex(&b, r);
    else
        render_tables(&b, r, fmt == WK_REPORT_MARKDOWN);
    return wk_strbuf_take(&b);
}
