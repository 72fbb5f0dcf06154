#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_storage_fabric.sh WANKA SRCDIR — with `cluster.storage`, checkpoint
# writes are flows from a job's NICs to the storage nodes, sharing the
# fabric max-min: a write takes bytes / (flows x the slowest flow's rate).
# A plain 1 h job checkpointing 1000 GB every 10 min writes 5 times, so its
# makespan is 3600 s + 5 writes. Bad `storage:` values are refused at their
# position.
W=$1 SRC=$2
NAME=storage-fabric
. "$SRC/tests/scenario/lib.sh"

mk() { # mk FILE OVERSUB STORAGE JOBS
  cat > "$1" <<Y
name: storage-fabric
seed: 1
cluster:
  sku: H100-SXM-80G
  nodes: 4
  gpus_per_node: 8
  fabric: {kind: fat-tree, radix: 8, oversubscription: $2}
  $3
failures: {enabled: false}
checkpoint: {interval: 10min, mode: remote, plain_gb: 1000}
scheduler: fifo
workload:
  source: inline
  jobs:
$4
Y
}
makespan() { "$W" run "$1" --no-trace 2>&1 | awk '$1 == "makespan" {print $2}'; }
J32="    - {gpus: 32, duration: 1h, submit: 0s}"
J16="    - {gpus: 16, duration: 1h, submit: 0s}
    - {gpus: 16, duration: 1h, submit: 0s}"
S="storage: {nodes: 1, nic_gbps: 3200}" # one storage node of 400 GB/s
mk "$T/none.yaml" 1 "" "$J32"
mk "$T/s1.yaml" 1 "$S" "$J32"
mk "$T/s7.yaml" 7 "$S" "$J32"
mk "$T/two.yaml" 1 "$S" "$J16"
mk "$T/n7.yaml" 7 "" "$J32"
# without storage nodes: storage_gb_per_s (1 TB/s) whatever the taper: 1 s a write
m=$(makespan "$T/none.yaml"); [ "$m" = "3605.0000" ] && ok || bad "no storage: makespan $m, want 3605"
m=$(makespan "$T/n7.yaml"); [ "$m" = "3605.0000" ] && ok || bad "no storage, 7:1: makespan $m, want 3605"
# 1:1 (radix 8: 4 NICs and 4 uplinks a leaf): 32 NICs of 50 GB/s, 32 flows; the
# storage node's 400 GB/s is the bottleneck: 1000 / 400 = 2.5 s a write
m=$(makespan "$T/s1.yaml"); [ "$m" = "3612.5000" ] && ok || bad "storage 1:1: makespan $m, want 3612.5"
# 7:1 (7 NICs and 1 uplink a leaf): 7 flows share a leaf's 50 GB/s uplink,
# 50/7 GB/s each; a write of 1000/32 GB a flow takes (1000/32) / (50/7) = 4.375 s
m=$(makespan "$T/s7.yaml"); [ "$m" = "3621.8750" ] && ok || bad "storage 7:1: makespan $m, want 3621.875"
# two 16-GPU jobs checkpointing at once share the storage node: 200 GB/s each, 5 s a write
m=$(makespan "$T/two.yaml"); [ "$m" = "3625.0000" ] && ok || bad "two writers: makespan $m, want 3625"

# async: the write moves after the snapshot and does not stall; a snapshot
# takes 1000 GB / (32 GPUs x 25 GB/s host copy) = 1.25 s
sed 's/mode: remote/mode: async/' "$T/s7.yaml" > "$T/a7.yaml"
m=$(makespan "$T/a7.yaml"); [ "$m" = "3606.2500" ] && ok || bad "async: makespan $m, want 3606.25"
# a GPU down in the middle of a write (600 s + 2 s): the job stops, its write
# is dropped, it restarts and runs to the end
sed 's/failures: .*/failures: {incidents: [{at: 602s, kind: down, gpu: 3, duration: 10min}]}/' "$T/s7.yaml" > "$T/f7.yaml"
"$W" run "$T/f7.yaml" --no-trace > "$T/f7.out" 2>&1 && ok || bad "with failures: $(tail -2 "$T/f7.out")"
# two writers, one hit mid-write: its write is dropped with it, so the
# other's completion does not re-post it (it used to replace the hit job's
# detection event: the failure went unseen, no interruption, no rollback)
sed 's/failures: .*/failures: {incidents: [{at: 602s, kind: down, gpu: 3, duration: 10min}]}/' "$T/two.yaml" > "$T/f2.yaml"
"$W" run "$T/f2.yaml" --no-trace > "$T/f2.out" 2>&1
c=$(awk '$1 == "jobs" && $2 == "completed" {print $3}' "$T/f2.out")
i=$(awk '$1 == "job" && $2 == "interruptions" {print $5}' "$T/f2.out")
[ "$c" = 2 ] && [ "$i" = 1 ] && ok || bad "two writers, one hit: $c jobs completed, $i interruptions; want 2 and 1"

# a restart's checkpoint load (remote tier) is flows from the storage node to
# the job's NICs: a software failure at 700 s (after the write at 600 s) is
# recovered in detection 600 + drain 30 + launch 600 + init 0.08 + load +
# warm-up 20 s; the load of 1000 GB takes 2.5 s at 1:1 (the storage node's
# 400 GB/s; it was 1 s at storage_gb_per_s) and 4.375 s at 7:1 (7 flows
# share a leaf's 50 GB/s downlink). The job resumes at 700 + recovery with
# 3000 s of work left and 4 writes: 700 + 1252.58 + 3000 + 4 x 2.5 = 4962.58
# and 700 + 1254.455 + 3000 + 4 x 4.375 = 4971.955
F="failures: {incidents: [{at: 700s, kind: software, gpu: 3}]}"
sed "s/failures: .*/$F/" "$T/s1.yaml" > "$T/l1.yaml"
sed "s/failures: .*/$F/" "$T/s7.yaml" > "$T/l7.yaml"
for c in "l1 2.5000 4962.5800" "l7 4.3750 4971.9550"; do
  set -- $c
  "$W" run "$T/$1.yaml" --no-trace > "$T/$1.out" 2>&1
  l=$(awk '$1 == "recovery" && $3 == "checkpoint" && $4 == "load" {print $6}' "$T/$1.out")
  m=$(awk '$1 == "makespan" {print $2}' "$T/$1.out")
  [ "$l" = "$2" ] && [ "$m" = "$3" ] && ok || bad "$1: load $l s, makespan $m; want $2 and $3"
done
# a local restore tier does not read from the storage nodes
sed "s/mode: remote,/mode: remote, restore: local,/" "$T/l7.yaml" > "$T/r7.yaml"
"$W" run "$T/r7.yaml" --no-trace > "$T/r7.out" 2>&1
l=$(awk '$1 == "recovery" && $3 == "checkpoint" && $4 == "load" {print $6}' "$T/r7.out")
[ -n "$l" ] && [ "$l" != "4.3750" ] && ok || bad "local restore: load $l s, $(tail -1 "$T/r7.out")"

# bad sections: exit 2, positioned at the value, no output file
printf 'name: x\ncluster:\n  sku: H100-SXM-80G\n  nodes: 4\n  gpus_per_node: 8\n  storage: {nodes: 2}\nworkload:\n  source: inline\n  jobs: [{gpus: 8, duration: 1h}]\n' > "$T/b1.yaml"
expect 2 "b1.yaml:6:12: cluster.storage: storage nodes need a fabric" "$W" run "$T/b1.yaml" -q -o "$T/b1.h5"
[ ! -e "$T/b1.h5" ] && ok || bad "b1.h5 written"
sed 's/storage: .*/storage: {nodes: 0}/;s/gpus_per_node: 8/gpus_per_node: 8\n  fabric: {kind: fat-tree, radix: 8}/' "$T/b1.yaml" > "$T/b2.yaml"
expect 2 "b2.yaml:7:20: cluster.storage.nodes: must be between 1 and 65536" "$W" run "$T/b2.yaml" --no-trace
sed 's/nodes: 0/nodes: 1, speed: 3/' "$T/b2.yaml" > "$T/b3.yaml"
expect 2 "cluster.storage.speed: unknown key 'speed' (known: nodes, nic_gbps, nodes_per_leaf, sharing, dataset_reads)" "$W" run "$T/b3.yaml" --no-trace
sed 's/nodes: 0/nodes: 1, nodes_per_leaf: 5/' "$T/b2.yaml" > "$T/b4.yaml"
expect 2 "cluster.storage.nodes_per_leaf: must be between 1 and 4 (got 5)" "$W" run "$T/b4.yaml" --no-trace
sed 's/storage: .*/storage: 4/' "$T/b2.yaml" > "$T/b5.yaml"
expect 2 "b5.yaml:7:12: cluster.storage: expected a mapping" "$W" run "$T/b5.yaml" --no-trace
sed 's/nodes: 0/nodes: 1, nic_gbps: 0/' "$T/b2.yaml" > "$T/b6.yaml"
expect 2 "cluster.storage.nic_gbps: must be between" "$W" run "$T/b6.yaml" --no-trace

# `sharing:` is fair (the default) or priority; anything else is refused at
# its position, naming the choices
sed 's/nodes: 0/nodes: 1, sharing: strict/' "$T/b2.yaml" > "$T/b7.yaml"
expect 2 "b7.yaml:7:32: cluster.storage.sharing: unknown value 'strict' (known: fair, priority)" "$W" run "$T/b7.yaml" -q -o "$T/b7.h5"
[ ! -e "$T/b7.h5" ] && ok || bad "b7.h5 written"
sed 's/nodes: 0/nodes: 1, sharing: 3/' "$T/b2.yaml" > "$T/b8.yaml"
expect 2 "b8.yaml:7:32: cluster.storage.sharing:" "$W" run "$T/b8.yaml" --no-trace
# a job without rings writes the same under either (priority only orders
# storage behind the rings): 7:1 as above, 3621.875 s; `fair` spelt out is
# the default
sed 's/nic_gbps: 3200}/nic_gbps: 3200, sharing: priority}/' "$T/s7.yaml" > "$T/p7.yaml"
sed 's/nic_gbps: 3200}/nic_gbps: 3200, sharing: fair}/' "$T/s7.yaml" > "$T/q7.yaml"
m=$(makespan "$T/p7.yaml"); [ "$m" = "3621.8750" ] && ok || bad "priority 7:1: makespan $m, want 3621.875"
m=$(makespan "$T/q7.yaml"); [ "$m" = "3621.8750" ] && ok || bad "fair 7:1: makespan $m, want 3621.875"
# two writers at once under priority (no rings): solved together in the
# storage network, 200 GB/s each as under fair, 5 s a write
sed 's/nic_gbps: 3200}/nic_gbps: 3200, sharing: priority}/' "$T/two.yaml" > "$T/ptwo.yaml"
m=$(makespan "$T/ptwo.yaml"); [ "$m" = "3625.0000" ] && ok || bad "priority, two writers: makespan $m, want 3625"
# an async write under priority would wait behind its own job's rings: refused
sed 's/mode: remote/mode: async/' "$T/p7.yaml" > "$T/pa7.yaml"
expect 2 "pa7.yaml:8:48: cluster.storage.sharing: priority needs checkpoint.mode remote" "$W" run "$T/pa7.yaml" --no-trace
# a load under priority (the job stalled: its rings leave the links)
sed "s/failures: .*/$F/" "$T/p7.yaml" > "$T/pl7.yaml"
"$W" run "$T/pl7.yaml" --no-trace > "$T/pl7.out" 2>&1
l=$(awk '$1 == "recovery" && $3 == "checkpoint" && $4 == "load" {print $6}' "$T/pl7.out")
[ "$l" = "4.3750" ] && ok || bad "priority load: $l s, want 4.375"

# Re-timing under priority, a write starved and resumed. Five 1-GPU nodes
# (one NIC each, L = 400 Gb/s = 50 GB/s) on a radix-4 fat-tree at 3:1: leaf
# 0 holds nodes 0-2, leaf 1 nodes 3-4, each leaf one uplink of L. With
# `comm:` (S = 37.5 GB, T = 1 s) a plain job across nodes puts one ring on
# the fabric. Job A (1 GPU, 1 h, no ring) lands on node 3; job B (4 GPUs,
# 100 s, submitted at 610 s) on nodes 0-2 and 4: whatever its ring order,
# exactly one ring flow leaves node 4 up leaf 1's uplink, alone there at L.
# A's writes (1000 GB at progress 600, 1200, ... 3000 s) are one flow from
# node 3 up that uplink; the storage node (400 GB/s) is not the bottleneck.
# priority: A's first write starts at 600 s at L (the link is free): 500 GB
# by 610 s; B's ring then takes all of the uplink (R = 0: the write crawls
# at 1 B/s, 100 B in 100 s) until B ends at 710 s (its ring keeps L, B's
# speed 1); the rest, 500 GB - 100 B, takes 10 s - 2 ns: done at
# 719.999999998 s. A's 4 other writes are alone, 20 s each: A ends at
# 3600 + 119.999999998 + 80 = 3799.999999998 s, makespan 3800.0000, mean
# JCT (3799.999999998 + 100) / 2 = 1950.0000. Not re-timed at B's start
# the write would end at 620 s (makespan 3700); not at B's end it would
# crawl on.
cat > "$T/rt.yaml" <<Y
name: storage-retime
seed: 1
cluster:
  sku: H100-SXM-80G
  nodes: 5
  gpus_per_node: 1
  fabric: {kind: fat-tree, radix: 4, oversubscription: 3}
  storage: {nodes: 1, nic_gbps: 3200, sharing: priority}
failures: {enabled: false}
checkpoint: {interval: 10min, mode: remote, plain_gb: 1000}
scheduler: fifo
workload:
  source: inline
  comm: {allreduce_gb: 37.5, compute: 1s}
  jobs:
    - {gpus: 1, duration: 1h, submit: 0s}
    - {gpus: 4, duration: 100s, submit: 610s}
Y
jm() { "$W" run "$1" --no-trace 2>&1 | awk '$1 == "makespan" {m = $2} /^job completion time mean/ {j = $(NF-1)} END {print m, j}'; }
m=$(jm "$T/rt.yaml"); [ "$m" = "3800.0000 1950.0000" ] && ok || bad "priority re-timing: makespan, mean JCT $m; want 3800 1950"
# fair: the write and B's ring share the uplink max-min, L/2 each from 610
# s; the write is not re-timed by a change of the rings alone (docs/models.md)
# and ends at 620 s as posted: A ends at 3600 + 5 x 20 = 3700 s. B's ring at
# L/2 for those 10 s: D = 4 domains, one ring, A_c = 2 (3/4) 37.5 / 50 =
# 1.125 s, its speed (1 + 1.125) / (1 + 2 x 1.125) = 2.125/3.25; re-rated at
# the write's end: B ends at 620 + 100 - 10 x 2.125/3.25 = 713.461538 s,
# mean JCT (3700 + 103.461538) / 2 = 1901.7308
sed 's/, sharing: priority//' "$T/rt.yaml" > "$T/rf.yaml"
m=$(jm "$T/rf.yaml"); [ "$m" = "3700.0000 1901.7308" ] && ok || bad "fair, rings moved: makespan, mean JCT $m; want 3700 1901.7308"
# priority, the writer's own rings: A alone on 2 GPUs (nodes 3, 4: its ring
# 3 -> 4 -> 3 at L fills both NIC cables). Stalled on its write, its ring
# leaves them: 2 flows share the uplink, L/2 each, 20 s a write; A ends at
# 3600 + 5 x 20 = 3700 s. Were the stall not felt the write would crawl.
sed 's/gpus: 1, duration: 1h/gpus: 2, duration: 1h/;/gpus: 4,/d' "$T/rt.yaml" > "$T/ro.yaml"
m=$(jm "$T/ro.yaml"); [ "$m" = "3700.0000 3700.0000" ] && ok || bad "priority, own rings: makespan, mean JCT $m; want 3700 3700"

echo "storage-fabric: $pass passed, $fail failed"
[ "$fail" = 0 ]
