#!/bin/sh
# test_hygiene.sh — untrusted names reach the terminal, the trace, the
# exports and the report only as text: a scenario named with a CSV formula,
# a TeX math span, a pipe and a terminal escape, read from a file whose name
# is not UTF-8. The summary and errors escape control characters; the
# trace's scenario_file is valid UTF-8 (U+FFFD); the Chrome export is valid
# JSON and the CSV valid UTF-8 with the formula neutralised; plot and
# report --html draw the name literally, one table cell; Ctrl-C during
# report --html is one line, status 130, no page and no temporary.
# usage: test_hygiene.sh WANKA SRCROOT PYTHON
set -u
W=$1
SRC=$2
PY=$3
NAME=hygiene
. "$SRC/tests/scenario/lib.sh"

ESC=$(printf '\033')
SC="$T/$(printf 'caf\351').yaml"
cat > "$SC" <<'Y'
name: "=cmd|x $\\nosuch$ \e[31mred"
cluster: {nodes: 1, gpus_per_node: 8}
workload:
  source: inline
  jobs:
    - {submit: 0, gpus: 8, duration: 10m}
    - {submit: 1m, gpus: 2, duration: 10m}
Y

# the terminal: the summary's name and an error's file name escaped
out=$("$W" run "$SC" -o "$T/a.h5" 2>&1) && ok || bad "run failed: $out"
case "$out" in *"$ESC"*) bad "raw ESC in the summary" ;; *) ok ;; esac
case "$out" in *'scenario =cmd|x $\nosuch$ \e[31mred'*) ok ;; *) bad "summary name not escaped: $out" ;; esac
out=$("$W" run "$T/no${ESC}]0;title${ESC}\\x.yaml" 2>&1); st=$?
[ "$st" = 2 ] && ok || bad "missing file: status $st"
case "$out" in *"$ESC"*) bad "raw ESC in an error" ;; *"no\\e]0;title\\e"*) ok ;; *) bad "error not escaped: $out" ;; esac
out=$("$W" run --frob "x${ESC}y" 2>&1)
case "$out" in *"$ESC"*) bad "raw ESC in a usage error" ;; *) ok ;; esac
# a price CSV field with an OSC title sequence and a BEL: escaped in the error
printf 'time,price_per_mwh,gco2_per_kwh\n0h,4\033]0;pwned\007,100\n' > "$T/p.csv"
printf 'name: p\ncluster: {nodes: 1, gpus_per_node: 8}\nfacility: {prices: p.csv}\nworkload:\n  source: inline\n  jobs:\n    - {submit: 0, gpus: 8, duration: 10m}\n' > "$T/p.yaml"
out=$("$W" run "$T/p.yaml" --no-trace -q 2>&1); st=$?
[ "$st" = 2 ] && ok || bad "bad price: status $st: $out"
case "$out" in *"$ESC"*) bad "raw ESC from a price field" ;; *"4\e]0;pwned\x07"*) ok ;; *) bad "price error not escaped: $out" ;; esac

# the exports: valid UTF-8 and JSON, a formula as text
expect 0 "wrote" "$W" export "$T/a.h5" --format chrome -o "$T/a.json"
"$PY" -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$T/a.json" \
  && ok || bad "chrome export: not valid UTF-8 JSON"
expect 0 "wrote" "$W" export "$T/a.h5" --format csv -o "$T/csv"
"$PY" -c 'import sys; [open(f, encoding="utf-8", errors="strict").read() for f in sys.argv[1:]]' "$T"/csv/*.csv \
  && ok || bad "csv export: not valid UTF-8"
grep -q "^scenario_name,'=cmd|x" "$T/csv/run.csv" && ok || bad "run.csv: formula not neutralised: $(cat "$T/csv/run.csv")"
grep -q "^scenario_file,.*caf$(printf '\357\277\275').yaml" "$T/csv/run.csv" && ok || bad "run.csv: scenario_file not U+FFFD"

if ! "$PY" -c "import h5py, matplotlib" 2>/dev/null; then
  echo "$pass passed, $fail failed (plot and report skipped: no h5py/matplotlib)"
  [ "$fail" = 0 ]; exit
fi
# figures and the page: the name drawn as it is, one cell
"$W" run "$SC" -q --scheduler sjf -o "$T/b.h5" >/dev/null 2>&1 || bad "second run failed"
expect 0 "" "$W" plot "$T/a.h5" -o "$T/q.png" --what queue
[ -s "$T/q.png" ] && ok || bad "no figure"
expect 0 "html: $T/r.html" "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/r.html"
grep -q '<td>=cmd|x \$\\nosuch\$ \\x1b\[31mred</td>' "$T/r.html" && ok || bad "runs table: name not one escaped cell"
grep -q '<td>=cmd|x \$\\nosuch\$  \[31mred</td>' "$T/r.html" && ok || bad "results table: name split or raw"
grep -q "$ESC" "$T/r.html" && bad "raw ESC in the page" || ok

# Ctrl-C while the page is made: one line, 130, nothing written
# (a background job starts with SIGINT ignored: exec'd with it restored)
"$PY" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
  "$W" report paper-sci "$T/a.h5" "$T/b.h5" --html "$T/int.html" >/dev/null 2>"$T/int.err" &
wp=$!
# Send the signal once wanka's python3 child is ready for it, not after a
# guessed delay: the child is a process that names $wp as its parent, runs
# python (comm), and has installed html_report.py's handlers (SIGTERM,
# signal 15, caught: bit 14 of SigCgt in /proc; the interpreter alone
# catches only SIGINT). Sent earlier, the signal could meet the child
# before exec or the interpreter before the script (a traceback); later,
# the page could already be written. Read from /proc: a minimal machine has
# no pgrep.
python_ready() {
  for st in /proc/[0-9]*/stat; do
    line=; read -r line < "$st" 2>/dev/null || continue
    set -- ${line##*) }
    [ $# -ge 2 ] && [ "${2:-}" = "$wp" ] || continue
    d=${st%/stat}
    comm=; read -r comm < "$d/comm" 2>/dev/null || continue
    case "$comm" in python*) ;; *) continue ;; esac
    cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "$d/status" 2>/dev/null)
    [ -n "$cgt" ] || continue
    low=${cgt#"${cgt%????????}"} # the last 8 hex digits: signals 1-32
    [ $((0x$low & 0x4000)) -ne 0 ] && return 0
  done
  return 1
}
n=0; while ! python_ready && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
[ $n -lt 3000 ] && ok || bad "Ctrl-C: wanka's python3 child did not get ready in 30 s"
kill -INT $wp; wait $wp; st=$?
sleep 0.3
[ "$st" = 130 ] && ok || bad "Ctrl-C: status $st, want 130: $(cat "$T/int.err")"
grep -q "Traceback" "$T/int.err" && bad "Ctrl-C: a traceback: $(cat "$T/int.err")" || ok
[ "$(wc -l < "$T/int.err")" -le 1 ] && ok || bad "Ctrl-C: more than one line: $(cat "$T/int.err")"
[ ! -e "$T/int.html" ] && ok || bad "Ctrl-C: a page was written"
ls "$T" | grep -q "int.html.tmp" && bad "Ctrl-C: temporary left: $(ls "$T")" || ok

# report text, validate --resolved and export's notes hold names of any bytes: escaped on the terminal
printf 'name: "r\\e[31m\\x9bx"\ncluster: {nodes: 2}\nworkload: {source: inline, jobs: [{submit: 0, gpus: 8, duration: 1h}]}\n' > "$T/re.yaml"
"$W" run "$T/re.yaml" -q -o "$T/re.h5" >/dev/null 2>&1 || bad "run re.yaml"
printf 'name: c1\ncluster: {nodes: 2}\nmodels:\n  "m\\x9bx": {base: llama3-8b}\nworkload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}\n' > "$T/key.yaml"
for cmd in "report paper-sci $T/re.h5 $T/re.h5" "validate $T/re.yaml --resolved" "compare $T/re.h5 $T/re.h5" \
           "validate $T/key.yaml --resolved"; do
  out=$("$W" $cmd 2>&1)
  if printf '%s' "$out" | LC_ALL=C grep -q "$(printf '[\033\233]')"; then bad "$cmd: raw control bytes in its output"; else ok; fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
