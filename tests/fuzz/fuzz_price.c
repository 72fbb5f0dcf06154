/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_price.c — libFuzzer target for the price and carbon series of
 * `facility: {prices: FILE}` (models/facility): arbitrary bytes become the
 * CSV file, read by wk_facility_parse with and without prices_repeat. Any
 * input must end in 0 or a WK_E_* error with a message — never a crash, a
 * hang or unbounded memory. A series that is read must hold what the
 * readers after it rely on: at least two rows, the first at 0, times
 * increasing and the series' end after its last row, prices and
 * intensities finite and not negative; the row in force is found for every
 * time the series covers, and the cost of a draw over the series (or three
 * of its spans, repeated) is finite, not negative and not NaN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/facility/facility.h"
#include "sim/scenario/node.h"
#include "tests/fuzz/fuzz.h"

static void check(int rc, const WkError *err)
{
    if (rc > 0 || (rc < 0 && (err->code != rc || !err->msg[0])))
        abort();
}

/* The invariants of a series that was read (see the file's comment). */
static void check_series(const WkFacilitySpec *f)
{
    if (f->ntariff < 2 || !f->tariff || f->tariff[0].at != 0 || f->ntariff > WK_FACILITY_MAX_TARIFF)
        abort();
    for (size_t i = 0; i < f->ntariff; i++) {
        const WkTariffRow *r = &f->tariff[i];
        if (!isfinite(r->price_per_mwh) || r->price_per_mwh < 0 || !isfinite(r->gco2_per_kwh) ||
            r->gco2_per_kwh < 0 || (i > 0 && r->at <= f->tariff[i - 1].at))
            abort();
    }
    WkTime last = f->tariff[f->ntariff - 1].at;
    if (f->tariff_end <= last)
        abort();
    /* the row in force: at each row's start, just before the next, and at
     * the series' last covered instant */
    for (size_t i = 0; i < f->ntariff; i += 1 + f->ntariff / 64) {
        WkTime to = i + 1 < f->ntariff ? f->tariff[i + 1].at : f->tariff_end;
        if (wk_facility_tariff_at(f, f->tariff[i].at) != &f->tariff[i] || wk_facility_tariff_at(f, to - 1) != &f->tariff[i])
            abort();
    }
    if (wk_facility_tariff_at(f, -1) != NULL)
        abort();
    if (!f->tariff_repeat && wk_facility_tariff_at(f, f->tariff_end) != NULL)
        abort();
    double mean = wk_facility_price_mean(f);
    if (isnan(mean) || mean < 0)
        abort();
    /* a 10 kW draw over the series (three spans of it when it repeats) */
    double cost = 0, co2 = 0;
    WkTime end = f->tariff_end;
    if (f->tariff_repeat && end <= INT64_MAX / 3)
        end *= 3;
    if (wk_facility_charge(f, 0, end, 1e4, &cost, &co2) != 0 || isnan(cost) || isnan(co2) || cost < 0 || co2 < 0)
        abort();
    if (!f->tariff_repeat && wk_facility_charge(f, 0, f->tariff_end + 1, 1e4, &cost, &co2) != WK_E_RANGE)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = wk_fuzz_file(data, size, ".csv");
    if (!path)
        abort(); /* the harness itself failed: not a finding in wanka */
    for (int repeat = 0; repeat < 2; repeat++) {
        char yaml[512];
        int len = snprintf(yaml, sizeof yaml, "facility: {budget_mw: 1, prices: \"%s\", prices_repeat: %s}\n", path,
                           repeat ? "true" : "false");
        WkError err;
        wk_error_clear(&err);
        WkDoc *doc = NULL;
        if (len < 0 || (size_t)len >= sizeof yaml || wk_doc_load_string(&doc, "fuzz.yaml", yaml, (size_t)len, &err) != 0)
            abort();
        WkFacilitySpec f;
        int rc = wk_facility_parse(wk_node_get(doc->root, "facility"), "/", &f, &err);
        check(rc, &err);
        if (rc == 0) {
            if (f.tariff_repeat != repeat)
                abort();
            check_series(&f);
        }
        wk_facility_fini(&f);
        wk_doc_free(doc);
    }
    return 0;
}
