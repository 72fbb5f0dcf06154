#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_comm_fabric.sh WANKA SRCDIR — plain jobs with a `comm:` profile put
# their all-reduce rings on the fabric: two of them side by side run slower
# on a 16:1 leaf-oversubscribed fat-tree than on a non-blocking one, by the
# iteration stretch (T + A L / bw) / (T + A); without `comm:` the taper
# changes nothing. Bad `comm:` values are refused at their position.
W=$1 SRC=$2
NAME=comm-fabric
. "$SRC/tests/scenario/lib.sh"

mk() { # mk FILE OVERSUB COMM
  cat > "$1" <<Y
name: comm-fabric
seed: 1
cluster:
  sku: H100-SXM-80G
  nodes: 64
  gpus_per_node: 8
  nodes_per_pod: 64
  fabric: {kind: fat-tree, radix: 64, oversubscription: $2}
failures: {enabled: false}
scheduler: fifo
workload:
  source: inline
  $3
  jobs:
    - {gpus: 256, duration: 1h, submit: 0s}
    - {gpus: 256, duration: 1h, submit: 0s}
Y
}
makespan() { "$W" run "$1" --no-trace 2>&1 | awk '$1 == "makespan" {print $2}'; }
for o in 1 16; do
  mk "$T/c$o.yaml" $o "comm: {allreduce_gb: 2, compute: 1s}"
  mk "$T/n$o.yaml" $o ""
done
c1=$(makespan "$T/c1.yaml") c16=$(makespan "$T/c16.yaml")
n1=$(makespan "$T/n1.yaml") n16=$(makespan "$T/n16.yaml")
[ "$n1" = "3600.0000" ] && [ "$n16" = "3600.0000" ] && ok || bad "without comm: makespan $n1 / $n16 s, want 3600"
# 16:1: a leaf has 60 NICs and 4 uplinks; the rings' leaf-crossing edges share them
awk -v a="$c1" -v b="$c16" 'BEGIN { exit !(a >= 3600 && b > a * 1.02) }' && ok ||
  bad "with comm: makespan 1:1 $c1 s, 16:1 $c16 s; want 16:1 slower by over 2 %"

# bad profiles: exit 2, positioned at the value, no output file
printf 'name: x\ncluster: {sku: H100-SXM-80G, nodes: 4, gpus_per_node: 8}\nworkload:\n  source: inline\n  comm: {allreduce_gb: 0, compute: 1s}\n  jobs: [{gpus: 8, duration: 1h}]\n' > "$T/b1.yaml"
expect 2 "b1.yaml:5:24: workload.comm.allreduce_gb: must be between" "$W" run "$T/b1.yaml" -q -o "$T/b1.h5"
[ ! -e "$T/b1.h5" ] && ok || bad "b1.h5 written"
sed 's/allreduce_gb: 0,/allreduce_gb: 1, size: 3,/' "$T/b1.yaml" > "$T/b2.yaml"
expect 2 "workload.comm.size: unknown key 'size' (known: allreduce_gb, compute)" "$W" run "$T/b2.yaml" --no-trace
sed 's/comm: .*/comm: {allreduce_gb: 1}/' "$T/b1.yaml" > "$T/b3.yaml"
expect 2 "compute" "$W" run "$T/b3.yaml" --no-trace
sed 's/comm: .*/comm: 5/' "$T/b1.yaml" > "$T/b4.yaml"
expect 2 "b4.yaml:5:9: workload.comm: expected a mapping" "$W" run "$T/b4.yaml" --no-trace

echo "comm-fabric: $pass passed, $fail failed"
[ "$fail" = 0 ]
