#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_ep_fabric.sh WANKA SRCDIR — a MoE job whose expert groups span nodes
# (Mixtral 8x7B, tp 8, ep 8: each GPU exchanges tokens with its peers on 7
# other nodes) puts its all-to-all on the fabric: on a fat-tree of 4 nodes
# per leaf at 1:1 and 7.5 at 16:1 (4 uplinks for 60 NICs), the taper cuts
# its all-to-all's bandwidth: the exposed all-to-all takes over 1.5x as long
# and the iteration over 1.2x (Megatron-Core's dispatcher sends T/tp top_k
# rows per rank across the fabric, docs/models.md "MoE layer"; when the
# all-to-all carried tp x those rows the iteration took over 1.6x).
# `wanka perf` and the run agree; a job whose experts stay in the node
# does not move.
W=$1 SRC=$2
NAME=ep-fabric
. "$SRC/tests/scenario/lib.sh"

perf() { # perf OVERSUB EP
  printf 'model: {base: mixtral-8x7b, tp: 8, ep: %s, global_batch: 256}\ngpus: 128\ncluster: {sku: H100-SXM-80G, nodes: 16, gpus_per_node: 8, nodes_per_pod: 16, fabric: {kind: fat-tree, radix: 64, oversubscription: %s}}\n' "$2" "$1" > "$T/p.yaml"
  "$W" perf "$T/p.yaml" --json | sed -n "s/.*\"${3:-iteration_s}\": *\([0-9.e+-]*\).*/\1/p"
}
a1=$(perf 1 8) a16=$(perf 16 8) l1=$(perf 1 1) l16=$(perf 16 1)
e1=$(perf 1 8 ep_s) e16=$(perf 16 8 ep_s)
awk -v a="$a1" -v b="$a16" 'BEGIN { exit !(a > 0 && b > 1.2 * a) }' && ok ||
  bad "cross-node EP: iteration 1:1 $a1 s, 16:1 $a16 s; want over 1.2x"
awk -v a="$e1" -v b="$e16" 'BEGIN { exit !(a > 0 && b > 1.5 * a) }' && ok ||
  bad "cross-node EP: all-to-all 1:1 $e1 s, 16:1 $e16 s; want over 1.5x"
# ep 1: no all-to-all; the rings alone feel the taper little
awk -v a="$l1" -v b="$l16" 'BEGIN { exit !(a > 0 && b < 1.3 * a) }' && ok ||
  bad "no EP: iteration 1:1 $l1 s, 16:1 $l16 s; want under 1.3x"

# the run: the job alone runs 100 iterations at perf's iteration time
cat > "$T/r.yaml" <<Y
name: ep-fabric
seed: 1
cluster: {sku: H100-SXM-80G, nodes: 16, gpus_per_node: 8, nodes_per_pod: 16, fabric: {kind: fat-tree, radix: 64, oversubscription: 16}}
failures: {enabled: false}
scheduler: fifo
workload:
  source: inline
  jobs:
    - {gpus: 128, model: {base: mixtral-8x7b, tp: 8, ep: 8, global_batch: 256}, iterations: 100, submit: 0s}
Y
m=$("$W" run "$T/r.yaml" --no-trace 2>&1 | awk '$1 == "makespan" {print $2}')
awk -v m="$m" -v a="$a16" 'BEGIN { d = m - 100 * a; exit !(d < 0.01 && d > -0.01) }' && ok ||
  bad "run at 16:1: makespan $m s, perf x 100 = $a16 x 100"

echo "ep-fabric: $pass passed, $fail failed"
[ "$fail" = 0 ]
