/* SPDX-License-Identifier: Apache-2.0 */
/* paper_claims.h — one row per claim of the seed paper (§3.1, §3.2, §3.4,
 * Table 5.2, §4.1): published against simulated over seeds (mean ± 95 %
 * Student-t half-width), a verdict (supported, not supported, not testable)
 * with its reason, and the ablation (each mechanism off in turn). The rule
 * of the verdict is fixed and the same for every row (docs/reproducing-sci.md):
 * supported when the published number lies inside the simulated interval.
 * Nothing is fitted to a published value. */
#ifndef WK_PAPER_CLAIMS_H
#define WK_PAPER_CLAIMS_H

#include <stddef.h>

#include "analysis/report.h"
#include "sim/core/error.h"

/* The variants of the ablation, each a report over (baseline, that
 * variant's SCI run, its throttle run, the throttle without a response, the
 * throttle-free run). A mechanism off is off in the run and in SCI's
 * objective (its use_* switch, docs/sci.md). */
typedef enum WkClaimsVariant {
    WK_CLAIMS_ALL = 0,        /* SCI with cascade, outsourcing and division; throttle: division + rebalance */
    WK_CLAIMS_NO_CASCADE,     /* SCI without the cascade (throttle run as ALL) */
    WK_CLAIMS_NO_OUTSOURCING, /* SCI without outsourcing (throttle run as ALL) */
    WK_CLAIMS_NO_DIVISION,    /* SCI without division; throttle: rebalance only */
    WK_CLAIMS_NO_FEEDBACK,    /* SCI without its feedback loop (the mechanisms on; throttle run as ALL) */
    WK_CLAIMS_BLIND,          /* the mechanisms on, SCI's objective does not see them and no feedback */
    WK_CLAIMS_NO_REBALANCE,   /* throttle: division only (the SCI run is ALL's) */
    WK_CLAIMS_NO_RESPONSE,    /* throttle: neither (the SCI run is ALL's) */
    WK_CLAIMS_NV
} WkClaimsVariant;

/* One seed's inputs (borrowed). */
typedef struct WkClaimsSeed {
    const WkReport *rep[WK_CLAIMS_NV]; /* per variant; ALL is the report the seeds table shows */
    double tflops[WK_CLAIMS_NV];       /* tflops_per_gpu of the variant's SCI run (NaN: none) */
} WkClaimsSeed;

/* Verdicts. */
typedef enum WkClaimsVerdict { WK_CLAIMS_SUPPORTED = 0, WK_CLAIMS_NOT_SUPPORTED, WK_CLAIMS_NOT_TESTABLE } WkClaimsVerdict;

/** The verdict of a published number `pub` against the per-seed values
 * v[0..n) (NaNs left out): NOT_TESTABLE with fewer than two finite values
 * or a NaN published number, SUPPORTED when |pub − mean| ≤ the 95 %
 * half-width, else NOT_SUPPORTED. why (may be NULL) gets the reason. */
WkClaimsVerdict wk_claims_verdict(double pub, const double *v, size_t n, char *why, size_t nwhy);

/** The verdict's word ("supported", "not supported", "not testable"). */
const char *wk_claims_verdict_name(WkClaimsVerdict v);

/** The claims table and the ablation table of seeds[0..n), as aligned text
 * (markdown == 0) or Markdown tables. malloc'd, caller frees; NULL when out
 * of memory or n == 0. */
char *wk_claims_render(const WkClaimsSeed *seeds, size_t n, int markdown);

/** The claims table of the trace form (`wanka report paper-sci BASELINE.h5
 * SCI.h5 ...`: one seed, the report rep of those traces): each claim's value
 * where rep gives it (NaN rows print "—"), "needs runs" for the claims that
 * need an ablation run the report was not given (SCI with outsourcing off,
 * unless rep read a sci_no_outsourcing trace; SCI with the cascade off),
 * saying what to pass, and
 * the verdict of the run form's rule on one value (not testable: no
 * interval). No ablation table. Text (markdown == 0) or Markdown; malloc'd,
 * caller frees; NULL when rep is NULL or out of memory. */
char *wk_claims_render_traces(const WkReport *rep, int markdown);

/** The summary metric tflops_per_gpu of the trace at path into *out (NaN
 * when the summary lacks it). 0, or the trace reader's error naming the
 * file. */
int wk_claims_tflops(const char *path, double *out, WkError *err);

#endif
