#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_calibrate_tiny.sh WANKA SRCDIR — tools/calibrate on the CPU: a
# `--device cpu --tiny` run writes a calibration file that `wanka perf`
# reads and names (device cpu). Needs PyTorch (Debian's python3-torch);
# without it the test is skipped (status 77).
W=$1 SRC=$2
NAME=calibrate-tiny
PY=/usr/bin/python3
"$PY" -c 'import torch' 2>/dev/null || { echo "calibrate-tiny: PyTorch is not installed: skipped"; exit 77; }
. "$SRC/tests/scenario/lib.sh"

"$PY" "$SRC/tools/calibrate/calibrate.py" --device cpu --tiny --out "$T/tiny.json" 2> "$T/err" && ok ||
  bad "calibrate.py: $(cat "$T/err")"
"$PY" - "$T/tiny.json" <<'PYEOF' && ok || bad "the file's keys"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "wanka-calibration/1" and d["device"] == "cpu" and d["torch"], d
for k in ("gemm_bf16_tflops", "memory_tb_per_s", "kernel_us", "attn_fwd_tflops", "attn_bwd_tflops"):
    assert d["values"][k] > 0, k
for k in ("gemm_bf16", "memory", "attention", "launch", "sustained"):
    assert k in d["detail"], k
PYEOF
printf 'model: {base: llama3-8b, tp: 2, global_batch: 64}\ngpus: 8\ncluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8, calibration: tiny.json}\n' > "$T/p.yaml"
expect 0 "device cpu); from it: gemm_bf16_tflops" "$W" perf "$T/p.yaml"
# a CPU is far slower than an H100: the answer moves, the way the file says
printf 'model: {base: llama3-8b, tp: 2, global_batch: 64}\ngpus: 8\ncluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}\n' > "$T/q.yaml"
a=$("$W" perf "$T/q.yaml" --json | sed -n 's/.*"compute_s": *\([0-9.e+-]*\).*/\1/p')
b=$("$W" perf "$T/p.yaml" --json | sed -n 's/.*"compute_s": *\([0-9.e+-]*\).*/\1/p')
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && b > 100 * a) }' && ok || bad "compute with the CPU file $b s, catalog $a s"

echo "calibrate-tiny: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
