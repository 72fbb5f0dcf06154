#!/bin/sh
# test_browser.sh (suite slow) — the report page of the shipped scenario in a
# real browser: `wanka report paper-sci --html` on scenarios/paper-sci-10k.yaml
# (2 seeds), rendered by Debian's headless Chromium. Checks: no console
# message or failed load while it renders; every <svg> figure laid out with a
# nonzero size (a probe script, added to a copy of the page only, writes each
# figure's getBoundingClientRect and any window.onerror into the DOM, read
# back with --dump-dom); the screenshot is not blank. Keeps the page and the
# screenshots in BUILDDIR: report-paper-sci.html, report-paper-sci.png
# (1280x4000, the top) and report-paper-sci-full.png (the whole page).
# usage: test_browser.sh WANKA SRCROOT PYTHON BUILDDIR
#   exit 77 = skipped: no chromium (apt-get install chromium, or
#   WANKA_SLOW_DEPS=1 scripts/bootstrap) or no h5py/matplotlib
set -u
W=$1
SRC=$2
PY=$3
OUT=$4
NAME=browser
. "$SRC/tests/scenario/lib.sh"

CHROME=""
for c in chromium chromium-browser; do
  command -v "$c" > /dev/null 2>&1 && { CHROME=$c; break; }
done
if [ -z "$CHROME" ]; then
  echo "skipped: no chromium on PATH (Debian: apt-get install --no-install-recommends chromium)"
  exit 77
fi
if ! "$PY" -c "import h5py, matplotlib" 2>/dev/null; then
  echo "skipped: $PY lacks h5py or matplotlib"
  exit 77
fi
# Chromium wants a writable home and runs without a session bus here
export HOME="$T/home"
mkdir -p "$HOME"
chrome() { "$CHROME" --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions \
  --user-data-dir="$T/profile" "$@"; }

PAGE="$OUT/report-paper-sci.html"
rm -f "$PAGE" "$OUT/report-paper-sci.png" "$OUT/report-paper-sci-full.png"
t0=$(date +%s.%N)
out=$("$W" report paper-sci --seeds 2 -q -o "$T/runs" --html "$PAGE" 2>&1)
st=$?
t1=$(date +%s.%N)
[ "$st" = 0 ] && ok || { bad "wanka report paper-sci --html: status $st: $out"; echo "$pass passed, $fail failed"; exit 1; }
echo "wanka report paper-sci --seeds 2 --html (10 runs + page): $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
t0=$(date +%s.%N)
"$W" report paper-sci "$T/runs/seed1/baseline.h5" "$T/runs/seed1/sci.h5" \
  --throttle "$T/runs/seed1/throttle-response.h5" --throttle-naive "$T/runs/seed1/throttle.h5" \
  --throttle-baseline "$T/runs/seed1/throttle-none.h5" --html "$T/traces.html" > /dev/null 2>&1 &&
  ok || bad "trace form --html failed"
t1=$(date +%s.%N)
echo "wanka report paper-sci TRACES --html (the page from seed 1's traces): $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
nsvg=$(grep -o "<svg" "$PAGE" | wc -l)
[ "$nsvg" = 8 ] && ok || bad "$PAGE: $nsvg figures, want 8"
echo "page: $PAGE, $(wc -c < "$PAGE") bytes, $nsvg figures"

# 1. the page as shipped: no console message, no failed load while rendering
chrome --enable-logging=stderr --v=0 --virtual-time-budget=5000 \
  --screenshot="$OUT/report-paper-sci.png" --window-size=1280,4000 "file://$PAGE" > "$T/log" 2>&1
[ -s "$OUT/report-paper-sci.png" ] && ok || bad "no screenshot: $(tail -5 "$T/log")"
if grep -E "CONSOLE|Uncaught|net::ERR|Failed to load|Refused to" "$T/log" > "$T/errors"; then
  bad "the browser reported: $(head -5 "$T/errors")"
else ok; fi

# 2. every figure laid out: a probe added to a copy of the page
sed 's|</body></html>|<script>\
window.__errors = [];\
window.onerror = function (m) { window.__errors.push(String(m)); };\
window.addEventListener("load", function () {\
  var r = [];\
  document.querySelectorAll("figure > svg").forEach(function (s) {\
    var b = s.getBoundingClientRect();\
    r.push(Math.round(b.width) + "x" + Math.round(b.height) + ":" + s.querySelectorAll("path, use, image").length);\
  });\
  document.body.setAttribute("data-figures", r.join(" "));\
  document.body.setAttribute("data-errors", window.__errors.join(" \| ") \|\| "none");\
  document.body.setAttribute("data-height", String(document.documentElement.scrollHeight));\
});\
</script></body></html>|' "$PAGE" > "$T/probe.html"
chrome --virtual-time-budget=5000 --dump-dom "file://$T/probe.html" > "$T/dom" 2> "$T/dom.log"
figs=$(sed -n 's/.*data-figures="\([^"]*\)".*/\1/p' "$T/dom" | head -1)
errs=$(sed -n 's/.*data-errors="\([^"]*\)".*/\1/p' "$T/dom" | head -1)
height=$(sed -n 's/.*data-height="\([0-9]*\)".*/\1/p' "$T/dom" | head -1)
echo "figures as laid out (width x height : drawn elements): $figs"
[ "$errs" = none ] && ok || bad "window.onerror: '$errs' $(tail -3 "$T/dom.log")"
n=0
for f in $figs; do
  n=$((n + 1))
  w=${f%%x*}; rest=${f#*x}; h=${rest%%:*}; e=${f##*:}
  [ "$w" -gt 100 ] && [ "$h" -gt 100 ] && [ "$e" -gt 10 ] && ok || bad "figure $n not drawn: $f"
done
[ "$n" = 8 ] && ok || bad "the browser laid out $n figures, want 8"

# 3. the whole page as one image, and neither screenshot blank
[ -n "$height" ] && [ "$height" -gt 4000 ] || height=4000
[ "$height" -gt 16000 ] && height=16000
chrome --virtual-time-budget=5000 --screenshot="$OUT/report-paper-sci-full.png" --window-size="1280,$height" \
  "file://$PAGE" > "$T/full.log" 2>&1
"$PY" - "$OUT/report-paper-sci.png" "$OUT/report-paper-sci-full.png" <<'PY' && ok || bad "a screenshot is blank"
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.image as mi
# the top 4000 pixels hold the tables (black on white): text, no colour needed;
# the whole page holds the figures too: colour
for k, p in enumerate(sys.argv[1:]):
    im = mi.imread(p)[..., :3]
    dark = (im.mean(axis=2) < 0.9).mean()
    colour = (im.std(axis=2) > 0.1).mean()
    print(f"{p}: {im.shape[1]}x{im.shape[0]}, {100 * dark:.1f} % non-white pixels, {100 * colour:.1f} % coloured")
    if dark < 0.02 or (k == 1 and colour < 0.005):
        sys.exit(1)
PY

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
