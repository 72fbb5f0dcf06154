/* SPDX-License-Identifier: Apache-2.0 */
/* facility.c — the `facility:` section: budget steps, the budget mode, and
 * the price and carbon CSV (see facility.h; format in docs/scenarios.md). */
#include "models/facility/facility.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/file.h"

#define MAX_LINE 4096

/* One budget step {at, mw} (or the scalar budget_mw at 0). */
static int read_step(const WkNode *n, WkBudgetStep *out, WkError *err)
{
    static const char *const known[] = {"at", "mw", NULL};
    double mw = 0;
    WkTime at = 0;
    int rc = wk_node_expect_keys(n, known, err);
    if (rc < 0 || (rc = wk_node_duration(n, "at", 1, 0, WK_TIME_NEVER - 1, &at, err)) < 0 ||
        (rc = wk_node_double(n, "mw", 1, 0, 1e6, &mw, err)) < 0)
        return rc;
    *out = (WkBudgetStep){.at = at, .w = mw * 1e6, .where = wk_node_get(n, "mw")};
    return 0;
}

static int parse_budget(const WkNode *sec, WkFacilitySpec *f, WkError *err)
{
    const WkNode *mw = wk_node_get(sec, "budget_mw"), *steps = wk_node_get(sec, "budget");
    /* null means not given (docs/scenario-syntax.md): no budget from it */
    if (mw && mw->type == WK_NODE_NULL)
        mw = NULL;
    if (steps && steps->type == WK_NODE_NULL)
        steps = NULL;
    if (mw && steps)
        return wk_node_error(steps, WK_E_INVAL, err, "give either 'budget_mw' or 'budget', not both");
    if (mw) {
        double v = 0;
        int rc = wk_node_double(sec, "budget_mw", 1, 0, 1e6, &v, err);
        if (rc < 0)
            return rc;
        if (!(f->budget = malloc(sizeof *f->budget)))
            return wk_error_nomem(err, "facility budget");
        f->budget[0] = (WkBudgetStep){.at = 0, .w = v * 1e6, .where = mw};
        f->nbudget = 1;
        return 0;
    }
    if (!steps)
        return 0;
    if (steps->type != WK_NODE_SEQ || steps->nkids == 0)
        return wk_node_error(steps, WK_E_INVAL, err, "expected a list of {at, mw} steps, the first at 0");
    if (!(f->budget = calloc(steps->nkids, sizeof *f->budget)))
        return wk_error_nomem(err, "facility budget");
    for (size_t i = 0; i < steps->nkids; i++) {
        int rc = read_step(steps->kids[i], &f->budget[i], err);
        if (rc < 0)
            return rc;
        const WkNode *at = wk_node_get(steps->kids[i], "at");
        if (i == 0 && f->budget[0].at != 0)
            return wk_node_error(at, WK_E_INVAL, err, "the first budget step must be at 0");
        if (i > 0 && f->budget[i].at <= f->budget[i - 1].at)
            return wk_node_error(at, WK_E_INVAL, err, "budget steps must be in increasing time");
        f->nbudget = i + 1;
    }
    return 0;
}

/* A number field of the CSV; error at line:col of the file. */
static int csv_number(const char *path, long line, const char *row, const char *p, size_t len, const char *what,
                      double *out, WkError *err)
{
    char tmp[64], *e;
    long col = (long)(p - row) + 1;
    if (len == 0 || len >= sizeof tmp)
        return wk_error_set(err, WK_E_INVAL, path, line, col, "%s: expected a number", what);
    memcpy(tmp, p, len);
    tmp[len] = '\0';
    /* plain decimal only: strtod would also take 0x10, inf and nan */
    int plain = strspn(tmp, "0123456789.eE+-") == len && strpbrk(tmp, "0123456789") != NULL;
    errno = 0;
    double v = strtod(tmp, &e);
    if (!plain || *e != '\0' || errno || !isfinite(v))
        return wk_error_set(err, WK_E_INVAL, path, line, col, "%s: expected a number, got '%s'", what, tmp);
    if (v < 0)
        return wk_error_set(err, WK_E_RANGE, path, line, col, "%s: %g is negative", what, v);
    *out = v;
    return 0;
}

/* One data row "time,price_per_mwh,gco2_per_kwh" at line. */
static int csv_row(const char *path, long line, char *row, WkTariffRow *out, WkError *err)
{
    char *f[3];
    size_t len[3], nf = 0;
    for (char *p = row;; p++) {
        if (nf < 3)
            f[nf] = p;
        char *e = p + strcspn(p, ",");
        if (nf < 3)
            len[nf] = (size_t)(e - p);
        nf++;
        if (*e != ',')
            break;
        p = e;
    }
    if (nf != 3)
        return wk_error_set(err, WK_E_INVAL, path, line, 0, "row: expected 3 fields (time, price_per_mwh, gco2_per_kwh), got %zu", nf);
    char t[64];
    if (len[0] == 0 || len[0] >= sizeof t)
        return wk_error_set(err, WK_E_INVAL, path, line, 1, "time: expected a duration such as 0h or 90min");
    memcpy(t, f[0], len[0]);
    t[len[0]] = '\0';
    if (wk_parse_duration(t, &out->at) < 0 || out->at < 0)
        return wk_error_set(err, WK_E_INVAL, path, line, 1, "time: expected a duration such as 0h or 90min, got '%s'", t);
    if (out->at > WK_FACILITY_MAX_AT) /* the series' end (one more step) and its repeats stay within WkTime */
        return wk_error_set(err, WK_E_RANGE, path, line, 1, "time: '%s' is past %lldns, about 73 years (docs/limits.md)",
                            t, (long long)WK_FACILITY_MAX_AT);
    int rc = csv_number(path, line, row, f[1], len[1], "price_per_mwh", &out->price_per_mwh, err);
    return rc < 0 ? rc : csv_number(path, line, row, f[2], len[2], "gco2_per_kwh", &out->gco2_per_kwh, err);
}

static int add_row(WkFacilitySpec *f, size_t *cap, const WkTariffRow *row, const char *path, long line, WkError *err)
{
    if (f->ntariff == 0 && row->at != 0)
        return wk_error_set(err, WK_E_INVAL, path, line, 1, "time: the first row must be at 0");
    if (f->ntariff > 0 && row->at <= f->tariff[f->ntariff - 1].at)
        return wk_error_set(err, WK_E_INVAL, path, line, 1, "time: rows must be in increasing time");
    /* a row is a price change, an event of the run: rows a nanosecond apart
     * (repeated over months) would be billions of events */
    if (f->ntariff > 0 && row->at - f->tariff[f->ntariff - 1].at < WK_NS_PER_S)
        return wk_error_set(err, WK_E_RANGE, path, line, 1,
                            "time: rows less than 1 s apart (a price holds at least a second; docs/limits.md)");
    if (f->ntariff == WK_FACILITY_MAX_TARIFF)
        return wk_error_set(err, WK_E_RANGE, path, line, 0, "more than %d rows (docs/limits.md)", WK_FACILITY_MAX_TARIFF);
    if (f->ntariff == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        WkTariffRow *n = realloc(f->tariff, nc * sizeof *n);
        if (!n)
            return wk_error_nomem(err, "price series");
        f->tariff = n;
        *cap = nc;
    }
    f->tariff[f->ntariff++] = *row;
    return 0;
}

/* The price series in buf[0..len) (a file's text, NUL-terminated). */
static int read_tariff(const char *buf, size_t len, const char *path, WkFacilitySpec *f, WkError *err)
{
    char row[MAX_LINE];
    long line = 0;
    int header = 0, rc = 0;
    size_t cap = 0;
    const char *p = buf + wk_file_bom_len(buf, len), *end = buf + len;
    while (rc == 0 && p < end) {
        const char *le, *start = wk_file_next_line(&p, end, &le);
        line++;
        size_t n = (size_t)(le - start);
        const char *nul = memchr(start, '\0', n);
        if (nul)
            return wk_error_set(err, WK_E_INVAL, path, line, (long)(nul - start) + 1, "row: a NUL byte");
        if (n >= sizeof row)
            return wk_error_set(err, WK_E_RANGE, path, line, 0, "row: longer than %d bytes", MAX_LINE - 1);
        memcpy(row, start, n);
        row[n] = '\0';
        if (row[0] == '#' || row[0] == '\0')
            continue;
        if (!header) {
            header = 1;
            if (strcmp(row, "time,price_per_mwh,gco2_per_kwh") != 0)
                rc = wk_error_set(err, WK_E_INVAL, path, line, 1,
                                  "header: expected 'time,price_per_mwh,gco2_per_kwh', got '%.64s'", row);
            continue;
        }
        WkTariffRow tr;
        if ((rc = csv_row(path, line, row, &tr, err)) == 0)
            rc = add_row(f, &cap, &tr, path, line, err);
    }
    if (rc == 0 && f->ntariff < 2)
        rc = wk_error_set(err, WK_E_INVAL, path, line, 0, "a price series needs at least two rows (its step is the last spacing)");
    if (rc == 0) /* the last row holds for one more step of the series' last spacing (rows <= 2^61 ns: no overflow) */
        f->tariff_end = 2 * f->tariff[f->ntariff - 1].at - f->tariff[f->ntariff - 2].at;
    return rc;
}

static int parse_prices(const WkNode *sec, const char *base_dir, WkFacilitySpec *f, WkError *err)
{
    const char *rel = NULL;
    int rc = wk_node_str(sec, "prices", 0, &rel, err);
    if (rc < 0 || (rc = wk_node_bool(sec, "prices_repeat", 0, &f->tariff_repeat, err)) < 0 || !rel)
        return rc;
    f->prices = wk_node_get(sec, "prices");
    char path[4096];
    if (!wk_file_resolve(base_dir, rel, path, sizeof path))
        return wk_node_error(f->prices, WK_E_RANGE, err, "path too long");
    char *buf = NULL;
    size_t len = 0;
    WkError oerr;
    wk_error_clear(&oerr);
    if ((rc = wk_file_read_regular(path, "a price series", WK_FACILITY_MAX_BYTES, &buf, &len, &oerr)) < 0)
        return wk_node_error(f->prices, rc, err, "%s: %s", rel, oerr.msg);
    rc = read_tariff(buf, len, path, f, err);
    free(buf);
    return rc;
}

int wk_facility_parse(const WkNode *sec, const char *base_dir, WkFacilitySpec *out, WkError *err)
{
    static const char *const known[] = {"budget_mw", "budget", "on_budget", "prices", "prices_repeat", NULL};
    static const char *const modes[] = {"cap", "hold", "policy", NULL};
    memset(out, 0, sizeof *out);
    if (!sec || sec->type == WK_NODE_NULL)
        return 0;
    int mode = WK_BUDGET_CAP;
    int rc = wk_node_expect_keys(sec, known, err);
    if (rc < 0 || (rc = parse_budget(sec, out, err)) < 0 ||
        (rc = wk_node_enum(sec, "on_budget", 0, modes, &mode, err)) < 0 ||
        (rc = parse_prices(sec, base_dir, out, err)) < 0) {
        wk_facility_fini(out);
        return rc;
    }
    out->mode = mode;
    return 0;
}

size_t wk_facility_budget_step(const WkFacilitySpec *f, WkTime t)
{
    size_t i = 0;
    while (i + 1 < f->nbudget && f->budget[i + 1].at <= t)
        i++;
    return i;
}

/* Index of the row in force at t (t within [0, tariff_end)). */
static size_t row_at(const WkFacilitySpec *f, WkTime t)
{
    size_t lo = 0, hi = f->ntariff;
    while (hi - lo > 1) {
        size_t m = (lo + hi) / 2;
        if (f->tariff[m].at <= t)
            lo = m;
        else
            hi = m;
    }
    return lo;
}

const WkTariffRow *wk_facility_tariff_at(const WkFacilitySpec *f, WkTime t)
{
    if (!f->ntariff || t < 0)
        return NULL;
    if (f->tariff_repeat)
        t %= f->tariff_end;
    return t < f->tariff_end ? &f->tariff[row_at(f, t)] : NULL;
}

double wk_facility_price_mean(const WkFacilitySpec *f)
{
    if (!f->ntariff)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < f->ntariff; i++) {
        WkTime to = i + 1 < f->ntariff ? f->tariff[i + 1].at : f->tariff_end;
        sum += f->tariff[i].price_per_mwh * wk_time_to_s(to - f->tariff[i].at);
    }
    return sum / wk_time_to_s(f->tariff_end);
}

int wk_facility_charge(const WkFacilitySpec *f, WkTime t0, WkTime t1, double power_w, double *cost, double *co2_kg)
{
    while (t0 < t1) {
        const WkTariffRow *r = wk_facility_tariff_at(f, t0);
        if (!r)
            return WK_E_RANGE;
        size_t i = (size_t)(r - f->tariff);
        WkTime base = f->tariff_repeat ? t0 - t0 % f->tariff_end : 0;
        WkTime next = base + (i + 1 < f->ntariff ? f->tariff[i + 1].at : f->tariff_end);
        WkTime to = next < t1 ? next : t1;
        double kwh = power_w * wk_time_to_s(to - t0) / 3.6e6;
        *cost += kwh / 1000 * r->price_per_mwh;
        *co2_kg += kwh * r->gco2_per_kwh / 1000;
        t0 = to;
    }
    return 0;
}

void wk_facility_fini(WkFacilitySpec *f)
{
    free(f->budget);
    free(f->tariff);
    memset(f, 0, sizeof *f);
}
