#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_dataset_reads.sh WANKA SRCDIR — with `cluster.storage.dataset_reads`,
# a model job reads its training data from the storage nodes while it
# computes, a flow capped at its demand R; an allocation a < R stretches
# its iteration to max(T, bytes per iteration / a) (docs/models.md,
# "Dataset reads"). ResNet-50 on one 8-GPU node (no rings) does 2,048
# samples an iteration; at 1e8 bytes a sample an iteration reads 204.8 GB,
# far above what its compute needs, so a lone job on one storage node of
# 800 Gb/s (100 GB/s) takes 1000 x 204.8 / 100 = 2048 s, and two such jobs
# sharing it 50 GB/s each, 4096 s, under `fair` and `priority` alike. At
# the default 107,700 bytes an image the read is far below the storage
# node: no stall, the job's time is the one without reads. Bad values are
# refused at their position.
W=$1 SRC=$2
NAME=dataset-reads
. "$SRC/tests/scenario/lib.sh"

mk() { # mk FILE STORAGE MODEL NJOBS
  {
    cat <<Y
name: dataset-reads
seed: 1
cluster:
  sku: H100-SXM-80G
  nodes: 4
  gpus_per_node: 8
  fabric: {kind: fat-tree, radix: 8}
  $2
failures: {enabled: false}
scheduler: fifo
models:
  heavy: {base: resnet50, dataset_bytes_per_sample: 1.0e8}
workload:
  source: inline
  jobs:
Y
    i=0
    while [ $i -lt "$4" ]; do
      echo "    - {gpus: 8, model: $3, iterations: 1000, submit: 0s}"
      i=$((i + 1))
    done
  } > "$1"
}
jct() { "$W" run "$1" --no-trace 2>&1 | awk '/^job completion time mean/ {print $(NF-1)}'; }
S="storage: {nodes: 1, nic_gbps: 800, dataset_reads: true}"
P="storage: {nodes: 1, nic_gbps: 800, dataset_reads: true, sharing: priority}"
mk "$T/one.yaml" "$S" heavy 1
mk "$T/two.yaml" "$S" heavy 2
mk "$T/pone.yaml" "$P" heavy 1
mk "$T/ptwo.yaml" "$P" heavy 2
mk "$T/off.yaml" "storage: {nodes: 1, nic_gbps: 800}" heavy 2
mk "$T/none.yaml" "" heavy 2
mk "$T/light.yaml" "$S" resnet50 2
mk "$T/light0.yaml" "" resnet50 2
for c in "one 2048.0000" "two 4096.0000" "pone 2048.0000" "ptwo 4096.0000"; do
  set -- $c
  m=$(jct "$T/$1.yaml"); [ "$m" = "$2" ] && ok || bad "$1: job time $m s, want $2"
done
# off (the default) or no storage: no reads, the compute time alone
a=$(jct "$T/off.yaml"); b=$(jct "$T/none.yaml")
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "4096.0000" ] && ok || bad "reads off: $a s, without storage $b s"
# the default bytes an image: below the storage node's rate, no stall
a=$(jct "$T/light.yaml"); b=$(jct "$T/light0.yaml")
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "light reads: $a s, without $b s"

# a job stalled on a blocking transfer of its own consumes no input: its
# read pauses and resumes after. One heavy job with remote checkpoints of
# C = 1000 B x 25,557,032 parameters (ResNet-50 as the model derives it;
# tests/unit/test_perf.c) = 25.557032 GB, a software failure at 700 s. The
# restart's load comes from the storage node in the read's direction: alone
# it takes C / 100 GB/s = 0.25557032 s (with the read flowing, 16 flows
# would share the node's 100 GB/s: 0.5111 s). The job: 600 s read-bound
# (292.96875 iterations of 2.048 s), a write of 0.25557 s (towards the
# storage node, beside nothing), runs to 700 s, rolls back to 292.96875;
# recovery detection 600 + drain 30 + launch 600 + init 8 x 2.5 ms + load
# 0.25557032 + warm-up 20 = 1250.27557 s; then 707.03125 iterations at
# 2.048 s (the read resumed after the load) = 1448 s and 2 writes: JCT
# 700 + 1250.27557 + 1448 + 2 x 0.25557 = 3398.7867 s, fair and priority.
for sh in fair priority; do
  sed "s/failures: .*/failures: {incidents: [{at: 700s, kind: software, gpu: 3}]}\ncheckpoint: {interval: 10min, mode: remote, bytes_per_param: 1000}/;s/dataset_reads: true/dataset_reads: true, sharing: $sh/" "$T/one.yaml" > "$T/st-$sh.yaml"
  "$W" run "$T/st-$sh.yaml" --no-trace > "$T/st-$sh.out" 2>&1
  l=$(awk '$1 == "recovery" && $3 == "checkpoint" && $4 == "load" {print $6}' "$T/st-$sh.out")
  m=$(awk '/^job completion time mean/ {print $(NF-1)}' "$T/st-$sh.out")
  [ "$l" = "0.2556" ] && [ "$m" = "3398.7867" ] && ok || bad "$sh, read paused by a stall: load $l s, JCT $m s; want 0.2556 and 3398.7867"
done

# bad values: exit 2, positioned at the value, naming the key, no output file
for v in "-1|must be between 0 and 1e+09 (got -1)" "2.0e9|must be between 0 and 1e+09 (got 2.0e9)" \
         "lots|expected a number, got 'lots'"; do
  val=${v%%|*} msg=${v#*|}
  sed "s/dataset_bytes_per_sample: 1.0e8/dataset_bytes_per_sample: $val/" "$T/one.yaml" > "$T/b.yaml"
  expect 2 "b.yaml:12:53: models.heavy.dataset_bytes_per_sample: $msg" "$W" run "$T/b.yaml" -q -o "$T/b.h5"
  [ ! -e "$T/b.h5" ] && ok || bad "b.h5 written for $val"
done
sed "s/dataset_reads: true/dataset_reads: 1.5/" "$T/one.yaml" > "$T/c.yaml"
expect 2 "c.yaml:8:53: cluster.storage.dataset_reads: expected true or false" "$W" run "$T/c.yaml" -q -o "$T/c.h5"
[ ! -e "$T/c.h5" ] && ok || bad "c.h5 written"

echo "dataset-reads: $pass passed, $fail failed"
[ "$fail" = 0 ]
