#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_export_sci10k.sh WANKA SRCDIR PYTHON3 — (slow suite) the Chrome export
# of scenarios/paper-sci-10k.yaml (3,000 jobs, six months, ~900 incidents)
# takes under 2 s and passes check_chrome_trace.py against the trace; prints
# the time and the file's size.
W=$1 SRC=$2 PY=$3
NAME=export-sci10k
. "$SRC/tests/scenario/lib.sh"

expect 0 "" "$W" run "$SRC/scenarios/paper-sci-10k.yaml" -q -o "$T/sci10k.h5"
t0=$(date +%s%N)
expect 0 "wrote" "$W" export "$T/sci10k.h5" --format chrome -o "$T/sci10k.json"
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
size=$(wc -c < "$T/sci10k.json")
echo "export of paper-sci-10k: $ms ms, $size bytes"
[ "$ms" -lt 2000 ] && ok || bad "export took $ms ms (limit 2000)"
expect 0 "match the trace" "$PY" "$SRC/tests/scenario/check_chrome_trace.py" "$T/sci10k.json" "$T/sci10k.h5"
expect 0 "" "$PY" -m json.tool "$T/sci10k.json"

echo "export-sci10k: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
