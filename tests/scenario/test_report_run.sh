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
[ "$n" = 36 ] && ok || bad "want 36 traces (3 seeds x 12 runs), found $n"
for f in sci-no-cascade sci-no-outsourcing sci-no-division sci-no-feedback sci-blind throttle-no-division throttle-no-rebalance; do
  [ -s "$T/runs/seed1/$f.h5" ] && ok || bad "no ablation trace $f.h5"
done
# the trace form on seed 1's traces: the claims its traces give (one seed: not testable, with the
# value), "needs runs" for the two that need an ablation run; none in csv
S1="$T/runs/seed1"
tf=$("$W" report paper-sci "$S1/baseline.h5" "$S1/sci.h5" --throttle "$S1/throttle-response.h5" \
     --throttle-naive "$S1/throttle.h5" --throttle-baseline "$S1/throttle-none.h5" 2>&1)
echo "$tf" | grep -q "^Claims: published vs simulated from these traces (one seed)" && ok || bad "trace form: no claims: $tf"
[ "$(echo "$tf" | grep -c '  needs runs$')" = 2 ] && ok || bad "trace form: want 2 'needs runs': $tf"
[ "$(echo "$tf" | grep -c '  not testable$')" = 10 ] && ok || bad "trace form: want 10 'not testable': $tf"
echo "$tf" | grep -qE "^Table 5.2 +task completion time \(mean\) .* [-+][0-9.]+ % +1 +not testable$" && ok \
  || bad "trace form: the JCT row lacks its one-seed value: $tf"
echo "$tf" | grep -qE "^§3.2 .* — +0 +needs runs$" && ok || bad "trace form: §3.2 is not 'needs runs': $tf"
tm=$("$W" report paper-sci "$S1/baseline.h5" "$S1/sci.h5" --markdown 2>&1)
echo "$tm" | grep -q "^| §3.1 | the same, theory (here: outsourcing off) | 15 % | — | 0 | needs runs |" && ok \
  || bad "trace form markdown: no 'needs runs' row: $tm"
"$W" report paper-sci "$S1/baseline.h5" "$S1/sci.h5" --format csv 2>&1 | grep -q "Claims:" && bad "csv has claims" || ok
# with the run without outsourcing, §3.1's predicted row is its value in both tables (seed 1's ablation trace)
tn=$("$W" report paper-sci "$S1/baseline.h5" "$S1/sci.h5" --sci-no-outsourcing "$S1/sci-no-outsourcing.h5" 2>&1)
[ "$(echo "$tn" | grep -c '  needs runs$')" = 1 ] && ok || bad "trace form with --sci-no-outsourcing: want 1 'needs runs': $tn"
p1=$(echo "$tn" | sed -n 's/^the same, predicted by theory .*outsourcing off.* 15 % (predicted) *\([0-9.]* %\).*/\1/p')
p2=$(echo "$tn" | sed -n 's/^§3.1 *the same, theory (here: outsourcing off) *15 % *\([0-9.]* %\) .*/\1/p')
[ -n "$p1" ] && [ "$p1" = "$p2" ] && ok || bad "§3.1 predicted: first table '$p1', claims '$p2': $tn"
tw=$("$W" report paper-sci "$S1/baseline.h5" "$S1/sci.h5" 2>&1)
echo "$tw" | grep -q "^the same, predicted by theory .*needs runs: give --sci-no-outsourcing NO.h5 .* 15 % (predicted) *— " \
  && ok || bad "without --sci-no-outsourcing the first table's predicted row does not say what to pass: $tw"
# every claim has a row with a verdict (12 claims), and the ablation has its eight variants
nv=$(echo "$out" | grep -cE "  (supported|not supported|not testable)$")
[ "$nv" = 12 ] && ok || bad "want 12 claims with a verdict, found $nv: $out"
for c in "§3.1 .*SCI with outsourcing" "§3.1 .*outsourcing off" "§3.2 .*cascade on vs off" "§3.4 .*with the response" \
         "§3.4 .*no response" "Table 5.2 .*mean GPU utilization .*+19 pts" "Table 5.2 .*task completion" \
         "Table 5.2 .*energy .total" "Table 5.2 .*energy per token" "Table 5.2 .*fault recovery time .mean. .*-99" \
         "§4.1 .*1,000 GPUs .*not testable" "§4.1 .*interactions per second .*not testable"; do
  echo "$out" | grep -qE "^$c" && ok || bad "no claim row '$c'"
done
nw=$(echo "$out" | grep -c "^ *why: ")
[ "$nw" = 12 ] && ok || bad "want a reason under each of the 12 claims, found $nw"
for v in "all on" "cascade off" "outsourcing off" "division off" "feedback off" "SCI blind" "rebalance off" "no response"; do
  echo "$out" | grep -q "^$v  " && ok || bad "no ablation row '$v'"
done
echo "$out" | grep -q "traditional: fifo) vs sci with cascade, outsourcing, division and feedback" && ok || bad "heading lacks the mechanisms: $out"
if /usr/bin/python3 -c "import matplotlib, h5py" 2>/dev/null; then
  [ -s "$T/runs/utilization.png" ] && ok || bad "no figure written"
fi
echo "$out" | grep -q "mean GPU utilization .* ± .* 3$" && ok || bad "utilization row not over 3 seeds: $out"
echo "$out" | grep -q "§3.4 .*throttled .*-8 %" && ok || bad "no §3.4 row: $out"
echo "$out" | grep -q "traditional: fifo" && ok || bad "heading lacks the baseline: $out"
md=$("$W" report paper-sci "$Q" --throttle-scenario "$TR" --seeds 2 -q --markdown -o "$T/md" 2>&1)
echo "$md" | grep -q "| Table 5.2 | mean GPU utilization |" && ok || bad "markdown: no Table 5.2 row: $md"
[ "$(echo "$md" | grep -cE '\| (supported|not supported|not testable) \|')" = 12 ] && ok || bad "markdown: want 12 verdicts: $md"
echo "$md" | grep -q "^| division off | " && ok || bad "markdown: no ablation: $md"
for v in "feedback off" "SCI blind"; do
  echo "$md" | grep -q "^| $v | [0-9]" && ok || bad "markdown: no ablation row '$v': $md"
done
# the HTML form shows the same claims, verdicts and ablation
if /usr/bin/python3 -c "import matplotlib, h5py" 2>/dev/null; then
  "$W" report paper-sci "$Q" --throttle-scenario "$TR" --seeds 2 -q -o "$T/md" --html "$T/r.html" >/dev/null 2>&1 \
    && ok || bad "--html run form failed"
  for c in "Claims: published vs simulated" "Ablation: SCI with every mechanism" "communication efficiency, cascade on vs off" \
           "and above ~10^6 interactions per second" "rebalance off"; do
    grep -qF "$c" "$T/r.html" && ok || bad "html lacks '$c'"
  done
  hv=$(grep -oE "<td>(supported|not supported|not testable)</td>" "$T/r.html" | wc -l)
  [ "$hv" = 12 ] && ok || bad "html: want 12 verdicts, found $hv"
fi
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
