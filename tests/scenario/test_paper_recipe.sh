#!/bin/sh
# test_paper_recipe.sh — the recipe of docs/reproducing-sci.md (six runs
# with --seed 1, SCI with the paper's mechanisms and with outsourcing off,
# the throttle with the §3.4 response, and `report paper-sci` on their traces) gives the same
# simulated values as the one-command form's seed 1, with the same
# traditional baseline (slurm) on both paths.
# usage: test_paper_recipe.sh WANKA SRCROOT
set -u
W=$1
SRC=$2
NAME=paper-recipe
. "$SRC/tests/scenario/lib.sh"

Q="$SRC/scenarios/synthetic-384.yaml"
TR="$SRC/scenarios/throttle-rack3.yaml"
cd "$T" || exit 1
"$W" report paper-sci "$Q" --throttle-scenario "$TR" --seeds 1 -q --format csv -o runs >one.csv 2>one.err \
  && ok || bad "one-command form failed: $(cat one.err)"
head=$("$W" report paper-sci "$Q" --throttle-scenario "$TR" --seeds 1 -q -o runs-text 2>&1 | head -n 1)
case "$head" in *"(traditional: slurm)"*) ok ;; *) bad "one-command baseline is not slurm: $head" ;; esac
# the recipe, as docs/reproducing-sci.md writes it (but on the small scenario)
SCI='scheduler={name: sci, use_outsourcing: true, use_cascade: true, use_division: true, use_roles: true, feedback: true}'
SCI_NO='scheduler={name: sci, use_outsourcing: false, use_cascade: true, use_division: true, use_roles: true, feedback: true}'
"$W" run "$Q" -q --seed 1 --scheduler slurm -o slurm.h5 >/dev/null &&
"$W" run "$Q" -q --seed 1 --set "$SCI" --set 'mechanisms={cascade: {}, outsourcing: {}, division: {}}' -o sci.h5 >/dev/null &&
"$W" run "$Q" -q --seed 1 --set "$SCI_NO" --set 'mechanisms={cascade: {}, division: {}}' -o sci-no-outsourcing.h5 >/dev/null &&
"$W" run "$TR" -q --seed 1 --set 'failures.incidents=[]' -o throttle-none.h5 >/dev/null &&
"$W" run "$TR" -q --seed 1 -o throttle.h5 >/dev/null &&
"$W" run "$TR" -q --seed 1 --set 'models.job.rebalance=true' --set 'mechanisms={division: {}}' -o throttle-response.h5 >/dev/null &&
"$W" report paper-sci slurm.h5 sci.h5 --throttle throttle-response.h5 --throttle-naive throttle.h5 \
    --throttle-baseline throttle-none.h5 --sci-no-outsourcing sci-no-outsourcing.h5 --format csv >recipe.csv 2>recipe.err \
  && ok || bad "recipe failed: $(cat recipe.err)"
# the docs name the same commands (a drift between docs and test fails here)
D="$SRC/docs/reproducing-sci.md"
for c in "--seed 1 --scheduler slurm -o slurm.h5" \
         "--seed 1 --set '$SCI' --set 'mechanisms={cascade: {}, outsourcing: {}, division: {}}' -o sci.h5" \
         "--seed 1 --set 'models.job.rebalance=true' --set 'mechanisms={division: {}}' -o throttle-response.h5" \
         "--seed 1 --set '$SCI_NO' --set 'mechanisms={cascade: {}, division: {}}' -o sci-no-outsourcing.h5" \
         "wanka report paper-sci slurm.h5 sci.h5" "--throttle throttle-response.h5 --throttle-naive throttle.h5" \
         "--sci-no-outsourcing sci-no-outsourcing.h5"; do
  grep -qF -e "$c" "$D" && ok || bad "docs/reproducing-sci.md lacks: $c"
done
[ -r "$D" ] && ok || bad "no $D"
grep -q -e "--scheduler fifo" "$D" && bad "docs/reproducing-sci.md still runs fifo as the baseline" || ok
out=$(python3 - one.csv recipe.csv <<'PY'
import csv, sys
one = {r["key"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
rec = {r["key"]: r for r in csv.DictReader(open(sys.argv[2], newline=""))}
bad = []
if not one or set(one) != set(rec):
    bad.append("rows differ: %s vs %s" % (sorted(one), sorted(rec)))
n = 0
for k in rec:
    for a, b in (("simulated_baseline_mean", "simulated_baseline"), ("simulated_value_mean", "simulated_value"),
                 ("simulated_change_mean", "simulated_change")):
        x, y = one.get(k, {}).get(a, ""), rec[k][b]
        if x != y:
            bad.append("%s %s: one-command %r, recipe %r" % (k, b, x, y))
        n += x != ""
print("; ".join(bad) if bad else "same %d values" % n)
PY
)
case "$out" in "same "*) ok ;; *) bad "$out" ;; esac
case "$out" in "same 0 values") bad "no value compared" ;; *) ok ;; esac

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
