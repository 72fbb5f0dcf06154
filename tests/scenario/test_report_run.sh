#!/bin/sh
# test_report_run.sh — `wanka report paper-sci` without traces runs the
# experiments itself: every run's trace is written, each row stands over
# the seeds asked for, and bad arguments exit 2 with a message.
# usage: test_report_run.sh WANKA SRCROOT
set -u
W=$1
SRC=$2
NAME=report-run
. "$SRC/tests/scenario/lib.sh"

Q="$SRC/scenarios/synthetic-384.yaml"
TR="$SRC/scenarios/throttle-rack3.yaml"
out=$("$W" report paper-sci "$Q" --throttle-scenario "$TR" --baseline fifo --seeds 3 -q -o "$T/runs" 2>&1)
st=$?
[ "$st" = 0 ] && ok || bad "run form exit $st: $out"
n=$(ls "$T"/runs/seed*/*.h5 2>/dev/null | wc -l)
[ "$n" = 15 ] && ok || bad "want 15 traces (3 seeds x 5 runs), found $n"
if /usr/bin/python3 -c "import matplotlib, h5py" 2>/dev/null; then
  [ -s "$T/runs/utilization.png" ] && ok || bad "no figure written"
fi
echo "$out" | grep -q "mean GPU utilization .* ± .* 3$" && ok || bad "utilization row not over 3 seeds: $out"
echo "$out" | grep -q "§3.4 .*throttled .*-8 %" && ok || bad "no §3.4 row: $out"
echo "$out" | grep -q "traditional: fifo" && ok || bad "heading lacks the baseline: $out"
expect 0 "| Table 5.2 | mean GPU utilization |" "$W" report paper-sci "$Q" --throttle-scenario "$TR" --seeds 2 -q --markdown -o "$T/md"
# --format latex and csv: a booktabs table; per simulated column mean, ci95 and n over the seeds
expect 0 "\\begin{tabular}{lllrrrrr}" "$W" report paper-sci "$Q" --throttle-scenario "$TR" --seeds 1 -q --format latex -o "$T/tex"
out=$("$W" report paper-sci "$Q" --throttle-scenario "$TR" --seeds 2 -q --format csv -o "$T/csv" 2>/dev/null)
[ "$(echo "$out" | wc -l)" = 11 ] && ok || bad "csv: want a header and 10 rows alone on stdout: $out"
echo "$out" | head -n 1 | grep -q "^section,key,metric,published_baseline_text,published_value_text,simulated_baseline_mean,simulated_baseline_ci95,simulated_baseline_n," && ok || bad "csv header: $out"
echo "$out" | grep -q "^Table 5.2,utilization,mean GPU utilization,72 %,91 %,[0-9.]*,[0-9.]*,2," && ok || bad "csv utilization row over 2 seeds: $out"
expect 2 "run form: --format is text, markdown, latex or csv" "$W" report paper-sci "$Q" --format json -o "$T/x"
# bad arguments: status 2, nothing run
expect 2 "--seeds wants a count" "$W" report paper-sci "$Q" --seeds 0 -o "$T/x"
expect 2 "unknown scheduler 'nope'" "$W" report paper-sci "$Q" --baseline nope -o "$T/x"
expect 2 "$T/missing.yaml" "$W" report paper-sci "$T/missing.yaml" -o "$T/x"
[ -e "$T/x" ] && bad "an output folder was made for bad arguments" || ok
# the trace form is unchanged
expect 2 "missing BASELINE.h5 SCI.h5" "$W" report paper-sci "$T/runs/seed1/baseline.h5"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
