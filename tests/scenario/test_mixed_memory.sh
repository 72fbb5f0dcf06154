#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_mixed_memory.sh WANKA SRCDIR — tests/scenario/mixed-memory.yaml (two
# GPU memory sizes, the small group first; model jobs that fit only the
# large one) under every built-in policy: the run completes every job
# (exit 0; a placement where a job does not fit would stop it with an
# error naming the policy). The pre-run check refuses a job only when no
# group holds it, naming the job and the largest GPU memory. Which GPUs
# the large jobs held: tests/unit/test_mixed_sku.c.
W=$1 SRC=$2
NAME=mixed-memory
. "$SRC/tests/scenario/lib.sh"
S="$SRC/tests/scenario/mixed-memory.yaml"

for s in $("$W" list schedulers | awk '{print $1}'); do
  expect 0 '"jobs_completed":7,"jobs_rejected":0,"jobs_unfinished":0' "$W" run "$S" -q --no-trace --json --scheduler "$s"
done
# llama3-70b with tp 8 on 8 GPUs needs 152.4 GiB per GPU: no group holds it
sed 's/- {submit: 5m, gpus: 2, duration: 5m}/- {submit: 5m, gpus: 8, model: {base: llama3-70b, tp: 8, pp: 1}, iterations: 5}/' \
  "$S" > "$T/none.yaml"
expect 2 "job 6 (model llama3-70b on 8 GPUs): no node group holds it" "$W" run "$T/none.yaml" -q --no-trace
expect 2 "H200-SXM has 140.4 GiB" "$W" validate "$T/none.yaml"
expect 2 "(the largest GPU memory of the cluster, group 'big')" "$W" validate "$T/none.yaml"

# `wanka perf` states the memory the check compared with: a job over both
# groups of a cluster whose first group is the large one is held to the
# small group's 37.3 GiB (not the first group's)
cat > "$T/perf.yaml" <<'EOF'
model: {base: llama3-8b, tp: 4, pp: 1, global_batch: 64, recompute: full}
gpus: 16
cluster:
  skus:
    - {name: A100-SXM-40G, base: A100-SXM-80G, hbm_gb: 40}
  groups:
    - {sku: A100-SXM-80G, nodes: 1, gpus_per_node: 8}
    - {sku: A100-SXM-40G, nodes: 1, gpus_per_node: 8}
EOF
expect 0 "activations 0.5) of 37.3" "$W" perf "$T/perf.yaml"
expect 0 '"memory_capacity_gib":37.2529' "$W" perf "$T/perf.yaml" --json

[ "$fail" = 0 ] || { echo "$pass passed, $fail failed"; exit 1; }
echo "$pass passed"
