#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_calibration.sh WANKA SRCDIR — calibration files change `wanka perf`'s
# answer as docs/models.md "Calibration files" says, without PyTorch: a file
# that repeats the catalog's own H100 figures leaves the answer as it was; one
# that halves the GEMM rate slows the compute by less than 2x (the
# non-GEMM operators stay) and more than 1.5x; perf names the file and the
# values taken from it; a path is read relative to the naming file; bad files
# fail with status 2 naming the file, and no answer; under perf.gemm_shapes
# the file's figures stand for the shape-aware fit, and a switch that is not
# a boolean fails with status 2 naming the file and position. tools/calibrate/calfile.py
# (the tool's fits and writer, no torch) writes a file wanka reads.
W=$1 SRC=$2
NAME=calibration
. "$SRC/tests/scenario/lib.sh"
PY=/usr/bin/python3

mkdir "$T/cal" "$T/job"
job() { # job FILE CALIBRATION-LINE
  printf 'model: {base: llama3-8b, tp: 2, global_batch: 64}\ngpus: 8\ncluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8%s}\n' "$2" > "$1"
}
field() { sed -n "s/.*\"$1\": *\([0-9.e+-]*\).*/\1/p"; }
cal() { # cal FILE VALUES
  printf '{"format": "wanka-calibration/1", "sku": "H100-SXM-80G", "gpu": "hand-written", "date": "2026-11-28",\n "device": "cuda", "values": {%s}}\n' "$2" > "$1"
}

job "$T/job/none.yaml" ""
base=$("$W" perf "$T/job/none.yaml" --json)
c0=$(echo "$base" | field compute_s) i0=$(echo "$base" | field iteration_s)
case "$base" in *calibration*) bad "no file: the JSON names a calibration: $base" ;; *) ok ;; esac
"$W" perf "$T/job/none.yaml" | grep -q '^calibration' && bad "no file: a calibration line" || ok

# the catalog's own H100 figures (models/gpu/eff.c): the same answer
cal "$T/cal/same.json" '"gemm_bf16_tflops": 802, "gemm_bf16_tail_us": 4.6, "kernel_us": 2.4, "memory_tb_per_s": 2.97'
job "$T/job/same.yaml" ", calibration: ../cal/same.json"
same=$("$W" perf "$T/job/same.yaml" --json)
i1=$(echo "$same" | field iteration_s)
awk -v a="$i0" -v b="$i1" 'BEGIN { d = b / a - 1; exit !(a > 0 && d < 1e-6 && d > -1e-6) }' && ok ||
  bad "the catalog's own figures: iteration $i1 s, without a file $i0 s"
case "$same" in *'"from_file":["gemm_bf16_tflops","gemm_bf16_tail_us","memory_tb_per_s","kernel_us"]'*) ok ;;
  *) bad "JSON from_file: $same" ;; esac

# perf.gemm_shapes: the file's figures stand for the shape-aware fit; the
# catalog's own shape-aware H100 figures give the same answer as no file,
# and that answer differs from the flat fit's
printf 'perf: {gemm_shapes: true}\n' >> "$T/job/none.yaml"
is=$("$W" perf "$T/job/none.yaml" --json | field iteration_s)
cal "$T/cal/shapes.json" '"gemm_bf16_tflops": 828.3, "gemm_bf16_tail_us": 3.99, "kernel_us": 2.4, "memory_tb_per_s": 2.97'
job "$T/job/shapes.yaml" ", calibration: ../cal/shapes.json"
printf 'perf: {gemm_shapes: true}\n' >> "$T/job/shapes.yaml"
i3=$("$W" perf "$T/job/shapes.yaml" --json | field iteration_s)
awk -v a="$is" -v b="$i3" -v c="$i0" 'BEGIN { d = b / a - 1; exit !(a > 0 && d < 1e-6 && d > -1e-6 && a != c) }' && ok ||
  bad "gemm_shapes: the catalog's own shape-aware figures: iteration $i3 s, without a file $is s (flat $i0 s)"
job "$T/job/none.yaml" ""
# a switch that is not a boolean: status 2, the file and position named, no answer
job "$T/job/badsw.yaml" ""
printf 'perf: {sustained_clock: 2}\n' >> "$T/job/badsw.yaml"
out=$("$W" perf "$T/job/badsw.yaml" 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *badsw.yaml:4:*sustained_clock*) ok ;; *) bad "bad switch: $out" ;; esac ||
  bad "bad switch: status $rc: $out"

# half the GEMM rate, the same tail: GEMMs take 2x, the rest as before
cal "$T/cal/half.json" '"gemm_bf16_tflops": 401, "gemm_bf16_tail_us": 4.6, "kernel_us": 2.4'
job "$T/job/half.yaml" ", calibration: ../cal/half.json"
c2=$("$W" perf "$T/job/half.yaml" --json | field compute_s)
awk -v a="$c0" -v b="$c2" 'BEGIN { exit !(a > 0 && b > 1.5 * a && b < 2 * a) }' && ok ||
  bad "half the GEMM rate: compute $c2 s, catalog $c0 s; want 1.5x to 2x"
expect 0 "calibration of H100-SXM-80G: $T/job/../cal/half.json (hand-written, 2026-11-28" "$W" perf "$T/job/half.yaml"
expect 0 "from it: gemm_bf16_tflops, gemm_bf16_tail_us, kernel_us; the rest from the catalog" "$W" perf "$T/job/half.yaml"

# per SKU: a cluster.skus entry takes its own file; recorded-only values change nothing
cal "$T/cal/rec.json" '"gemm_bf16_sustained_tflops": 650'
printf 'model: {base: llama3-8b, tp: 2, global_batch: 64}\ngpus: 8\ncluster:\n  skus: [{name: mine, base: H100-SXM-80G, calibration: ../cal/rec.json}]\n  sku: mine\n  nodes: 1\n  gpus_per_node: 8\n' > "$T/job/sku.yaml"
i3=$("$W" perf "$T/job/sku.yaml" --json | field iteration_s)
[ "$i3" = "$i0" ] && ok || bad "recorded-only values: iteration $i3 s, want $i0 s"
expect 0 "calibration of mine: $T/job/../cal/rec.json" "$W" perf "$T/job/sku.yaml"
expect 0 "no value the model reads" "$W" perf "$T/job/sku.yaml"

# the eager dispatch cost: a host-bound job's step grows (closed form: unit/calib)
cal "$T/cal/disp.json" '"dispatch_us": 100'
for f in none disp; do
  c=""; [ $f = disp ] && c=", calibration: ../cal/disp.json"
  printf 'model: {layers: 2, hidden: 256, heads: 4, ffn: 1024, vocab: 1000, seq_len: 64, mlp: gelu, global_batch: 8, zero: 1, stack: composer}\ngpus: 8\ncluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8%s}\n' "$c" > "$T/job/tiny-$f.yaml"
done
i4=$("$W" perf "$T/job/tiny-none.yaml" --json | field iteration_s)
i5=$("$W" perf "$T/job/tiny-disp.yaml" --json | field iteration_s)
awk -v a="$i4" -v b="$i5" 'BEGIN { exit !(a > 0 && b > 5 * a) }' && ok || bad "dispatch_us 100: iteration $i5 s, default $i4 s"
expect 0 "from it: dispatch_us; the rest from the catalog" "$W" perf "$T/job/tiny-disp.yaml"

# bad files: status 2, the file named, nothing on stdout
job "$T/job/miss.yaml" ", calibration: ../cal/none.json"
expect 2 "cal/none.json" "$W" perf "$T/job/miss.yaml"
out=$("$W" perf "$T/job/miss.yaml" 2>/dev/null); [ -z "$out" ] && ok || bad "missing file: stdout '$out'"
cal "$T/cal/big.json" '"gemm_bf16_tflops": 4000'
job "$T/job/big.yaml" ", calibration: ../cal/big.json"
expect 2 "big.json:2:" "$W" perf "$T/job/big.yaml"
expect 2 "a measurement of another GPU?" "$W" perf "$T/job/big.yaml"

# the tool's writer (no torch): fit, write, read back
if "$PY" - "$SRC/tools/calibrate" "$T/cal/fit.json" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import calfile
# points on t = F / 700e12 + 5e-6: the fit returns them
pts = [(f, f / 700e12 + 5e-6) for f in (1e9, 1e10, 1e11, 1e12, 1e13)]
r, tau = calfile.fit_rate_tail(pts)
assert abs(r / 700e12 - 1) < 1e-9 and abs(tau / 5e-6 - 1) < 1e-6, (r, tau)
a, b = calfile.fit_alpha_beta([(s, 14 * 10e-6 + 1.75 * s / 300e9) for s in (16 << 20, 1 << 28, 1 << 30)], 14, 1.75)
assert abs(a / 10e-6 - 1) < 1e-6 and abs(b / 300e9 - 1) < 1e-9, (a, b)
assert calfile.sku_for("NVIDIA H100 80GB HBM3") == "H100-SXM-80G"
try:
    calfile.document("H100-SXM-80G", "cuda", {"nope": 1}, {})
    raise SystemExit("an unknown value was accepted")
except ValueError:
    pass
doc = calfile.document("H100-SXM-80G", "cuda", {"gemm_bf16_tflops": r / 1e12, "gemm_bf16_tail_us": tau * 1e6,
                       "kernel_us": 2.4, "idle_w": None}, {"gemm": [list(p) for p in pts]}, gpu="synthetic")
calfile.write(sys.argv[2], doc)
PYEOF
then ok; else bad "calfile.py"; fi
job "$T/job/fit.yaml" ", calibration: ../cal/fit.json"
expect 0 "from it: gemm_bf16_tflops, gemm_bf16_tail_us, kernel_us;" "$W" perf "$T/job/fit.yaml"

# -o may not name a calibration file the scenario reads (docs/limits.md:
# every input is protected, by device and inode): status 2, the file intact
sed 's|^  sku: H100-SXM-80G .*|  sku: H100-SXM-80G\n  calibration: ../cal/same.json|' "$SRC/scenarios/quickstart.yaml" > "$T/job/run.yaml"
grep -q 'calibration: ../cal/same.json' "$T/job/run.yaml" && ok || bad "the run scenario lacks its calibration line"
cp "$T/cal/same.json" "$T/cal/same.keep"
expect 2 "same.json" "$W" run "$T/job/run.yaml" -q -o "$T/cal/same.json"
cmp -s "$T/cal/same.json" "$T/cal/same.keep" && ok || bad "-o overwrote the calibration file"

echo "calibration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
