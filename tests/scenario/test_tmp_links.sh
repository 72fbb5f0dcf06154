#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_tmp_links.sh WANKA SRCDIR PYTHON3 — every file wanka writes goes
# through a temporary "<out>.tmp.<pid>" created exclusively and never through
# a link: a symbolic link or FIFO planted at that name (the pid is known:
# `exec` keeps the shell's) makes the command fail with status 2 and a clear
# message, the link's target is untouched, and no output appears. Covers the
# trace (`run`), `export` (chrome and csv), `check --update`, `plot` and
# `report --html` (the Python writers, run the same way).
W=$1 SRC=$2 PY=$3
NAME=tmp-links
. "$SRC/tests/scenario/lib.sh"

printf 'cluster: {nodes: 2}\nworkload: {source: inline, jobs: [{submit: 0, gpus: 8, duration: 1h}]}\n' > "$T/s.yaml"
expect 0 "" "$W" run "$T/s.yaml" -q -o "$T/ok.h5"
printf 'precious\n' > "$T/victim"

# planted CMD...: run CMD (its output named by $OUT) with a symlink to the
# victim at "$OUT.tmp.<its pid>", then a FIFO there; both must be refused.
planted() {
  for kind in link fifo; do
    rm -f "$OUT" "$OUT".tmp.*
    out=$(sh -c 'o=$1; k=$2; shift 2
                 if [ "$k" = link ]; then ln -s "$(dirname "$o")/victim" "$o.tmp.$$"; else mkfifo "$o.tmp.$$"; fi
                 exec "$@"' sh "$OUT" "$kind" "$@" 2>&1)
    st=$?
    if [ "$st" = 0 ]; then bad "$kind at $OUT.tmp.PID: $* → status 0: $out"; continue; fi
    case "$out" in *"already exists"*) ;; *) bad "$kind: $* → message lacks 'already exists': $out"; continue ;; esac
    if [ "$(cat "$T/victim")" != precious ]; then bad "$kind: $* wrote through the link"; printf 'precious\n' > "$T/victim"; continue; fi
    if [ -e "$OUT" ] || [ -L "$OUT" ]; then bad "$kind: $* left $OUT"; continue; fi
    ok
  done
}

OUT="$T/t.h5"; planted "$W" run "$T/s.yaml" -q -o "$OUT"
OUT="$T/t.json"; planted "$W" export "$T/ok.h5" --format chrome -o "$OUT"
OUT="$T/jobs.csv"; planted "$W" export "$T/ok.h5" --format csv -o "$T"
OUT="$T/t.svg"; planted "$PY" "$SRC/analysis/plot.py" "$T/ok.h5" --what utilization -o "$OUT"
printf 'scenarios:\n  - scenario: s.yaml\n    metrics:\n      jobs_completed: 7\n' > "$T/base.yaml"
cp "$T/base.yaml" "$T/base.orig"
OUT="$T/base.yaml"
for kind in link fifo; do
  out=$(sh -c 'o=$1; k=$2; shift 2
               if [ "$k" = link ]; then ln -s "$(dirname "$o")/victim" "$o.tmp.$$"; else mkfifo "$o.tmp.$$"; fi
               exec "$@"' sh "$OUT" "$kind" "$W" check "$OUT" -q --update 2>&1)
  st=$?
  if [ "$st" = 0 ]; then bad "$kind: check --update → status 0: $out"
  elif [ "$(cat "$T/victim")" != precious ]; then bad "$kind: check --update wrote through the link"; printf 'precious\n' > "$T/victim"
  elif ! cmp -s "$T/base.yaml" "$T/base.orig"; then bad "$kind: check --update changed the baseline: $out"
  else case "$out" in *"already exists"*) ok ;; *) bad "$kind: check --update → message lacks 'already exists': $out" ;; esac
  fi
  rm -f "$OUT".tmp.*
done
expect 0 "updated 1 expected value" "$W" check "$T/base.yaml" -q --update

printf '| a |\n|---|\n| 1 |\n' > "$T/tables.md"
OUT="$T/t.html"; planted "$PY" "$SRC/analysis/html_report.py" --tables "$T/tables.md" --title t --figures "$T/ok.h5" -o "$OUT"

echo "tmp-links: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
