#!/bin/sh
# test_html.sh — `wanka report paper-sci ... --html`: one self-contained page
# (nothing fetched: no http(s) or protocol-relative src/href, no script, no
# stylesheet link), eight inline SVG figures, the scenario text HTML-escaped,
# tables with 95 % intervals in the run form; written whole or not at all.
# usage: test_html.sh WANKA SRCROOT PYTHON   (exit 77 = skipped: no h5py/matplotlib)
set -u
W=$1
SRC=$2
PY=$3
NAME=html
. "$SRC/tests/scenario/lib.sh"

if ! "$PY" -c "import h5py, matplotlib" 2>/dev/null; then
  echo "skipped: $PY lacks h5py or matplotlib"
  exit 77
fi

# synthetic-384 (the small fixed-duration mix) with a hostile comment (it must come out escaped) and
# scripted failures (so the incident figures have data)
{
  printf '# <script>alert("x")</script> & <b>bold</b>\n'
  cat "$SRC/scenarios/synthetic-384.yaml"
  printf 'failures:\n  enabled: false\n  incidents:\n'
  printf '    - {at: 2h, kind: down, node: 3, duration: 8h}\n    - {at: 1d, kind: software, gpu: 100}\n'
} > "$T/q.yaml"
"$W" run "$T/q.yaml" -q --seed 1 -o "$T/a.h5" >/dev/null || { echo "run failed"; exit 1; }
"$W" run "$T/q.yaml" -q --seed 1 --scheduler sci -o "$T/b.h5" >/dev/null || { echo "run failed"; exit 1; }

# self_contained FILE NSVG: the checks every page passes
self_contained() {
  f=$1
  [ -s "$f" ] && ok || { bad "$f: missing or empty"; return; }
  head -c 15 "$f" | grep -q "<!DOCTYPE html>" && ok || bad "$f: no <!DOCTYPE html>"
  n=$(grep -o "<svg" "$f" | wc -l)
  [ "$n" = "$2" ] && ok || bad "$f: $n <svg> figures, want $2"
  if grep -Eiq "(src|href)[[:space:]]*=[[:space:]]*[\"']?[[:space:]]*(https?:)?//" "$f"; then
    bad "$f: fetches something: $(grep -Eio "(src|href)[[:space:]]*=[[:space:]]*[\"']?[[:space:]]*(https?:)?//[^ ]*" "$f" | head -3)"
  else ok; fi
  grep -Eiq "<script|<link|<iframe|<img[^>]*src=\"[^d]|@import|url\([\"']?https?:" "$f" &&
    bad "$f: has a script, link, iframe, external image or import" || ok
  grep -q "figcaption>Figure 7: Each pod" "$f" && ok || bad "$f: no per-pod heatmap figure"
  grep -q "figcaption>Figure 6: The nodes of the cluster over time" "$f" && ok || bad "$f: no Gantt figure"
}

# trace form
expect 0 "html: $T/r.html" "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/r.html"
self_contained "$T/r.html" 8
grep -q '# &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;' "$T/r.html" &&
  ok || bad "scenario text not HTML-escaped"
grep -q "<td>fifo/1 \[a.h5\]</td>" "$T/r.html" && ok || bad "runs table lacks fifo/1 [a.h5]"
grep -q "<h4>Table 5.2 — SCI scheduler vs a traditional scheduler</h4>" "$T/r.html" && ok || bad "no Table 5.2"
grep -q "<td>jct_mean_s</td>" "$T/r.html" && ok || bad "no compare table (summary metrics)"
ls "$T" | grep -q "tmp" && bad "temporary files left: $(ls "$T")" || ok
# the same traces give the same page
"$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/r2.html" >/dev/null 2>&1
cmp -s "$T/r.html" "$T/r2.html" && ok || bad "two pages of the same traces differ"
# an old page is refused without --force, and with it replaced whole
printf 'old\n' > "$T/old.html"
expect 2 "old.html: exists; give --force to replace it" "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/old.html"
[ "$(cat "$T/old.html")" = old ] && ok || bad "a refused --html changed old.html"
expect 0 "" "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/old.html" --markdown --force
cmp -s "$T/r.html" "$T/old.html" && ok || bad "old.html not replaced by the page"

# run form: seeds pooled, the rows with 95 % half-widths in the page
out=$("$W" report paper-sci "$T/q.yaml" --throttle-scenario "$SRC/scenarios/throttle-rack3.yaml" --baseline fifo \
  --seeds 2 -q -o "$T/runs" --html "$T/run.html" 2>&1) && ok || bad "run form --html: $out"
self_contained "$T/run.html" 8
grep -Eq "<td[^>]*>[0-9.+-]+ ± [0-9.]+ %</td>" "$T/run.html" && ok || bad "run form: no ± interval in a table"
grep -q "fifo (2 seeds)" "$T/run.html" && ok || bad "run form: compare columns not pooled over 2 seeds"

# bad input: status 2, a message naming the file, no page
expect 2 "--html $T/none/r.html: directory $T/none does not exist" \
  "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/none/r.html"
expect 2 "the page's name must end in .html" "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/r.txt"
expect 2 "$T/missing.h5" "$W" report paper-sci "$T/a.h5" "$T/missing.h5" --html "$T/m.html"
[ -e "$T/m.html" ] && bad "m.html written for a missing trace" || ok
expect 2 "--html needs a file name" "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html
expect 2 "directory $T/none does not exist" "$W" report paper-sci "$T/q.yaml" --seeds 1 -o "$T/x" --html "$T/none/r.html"
[ -e "$T/x" ] && bad "the run form ran although --html cannot be written" || ok
# python missing: status 1 naming the packages, no page
WANKA_PYTHON=/nonexistent/python3 "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/p.html" > "$T/p.out" 2>&1
st=$?
[ "$st" = 1 ] && grep -q "python3-matplotlib" "$T/p.out" && ok || bad "no python: status $st: $(cat "$T/p.out")"
[ -e "$T/p.html" ] && bad "p.html written without python" || ok
expect 0 "--html FILE" "$W" help report

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
