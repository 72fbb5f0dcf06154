#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_gpu_share.sh WANKA SRCDIR — GPU sharing on a small Alibaba pod list
# (tests/scenario/gpu-share.yaml, gpu-share-pods.csv; one node of 2 GPUs).
# Closed form under fifo with sharing: p0 and p1 (500 each) share GPU 0
# over [0, 100 s); p4 (a whole GPU) holds GPU 1 over [0, 40 s); p2 (300,
# from 10 s) finds no room, waits for GPU 1 and holds it over [40, 90 s);
# p3 (2 GPUs, from 20 s) starts at 100 s, ends at 130 s. GPU-time 250 s of
# 2 x 130 s; waits 0, 0, 0, 30, 80 s; useful work at the pods' shares
# 0.5 x 100 x 2 + 40 + 0.3 x 50 + 2 x 30 = 215 GPU-s of 260. Without sharing every pod takes a
# whole GPU: makespan 180 s, GPU-time 350 s of 360 s, waits 0, 0, 100, 90,
# 130 s. Every built-in policy completes every pod; the placement table
# records both tenants on GPU 0; a bad gpu_sharing value is a positioned
# error; on the shipped trace (where present) a 2,000-pod head on 48 GPUs
# with a node outage, a software failure and preemptive policies completes.
W=$1 SRC=$2
NAME=gpu-share
. "$SRC/tests/scenario/lib.sh"
S="$SRC/tests/scenario/gpu-share.yaml"

expect 0 '"makespan_s":130,' "$W" run "$S" -q --no-trace --json
expect 0 '"utilization":0.961538461538461' "$W" run "$S" -q --no-trace --json
expect 0 '"wait_mean_s":22,' "$W" run "$S" -q --no-trace --json
expect 0 '"util_effective":0.826923076923076' "$W" run "$S" -q --no-trace --json
expect 0 '"makespan_s":180,' "$W" run "$S" -q --no-trace --json --set workload.gpu_sharing=false
expect 0 '"utilization":0.972222222222222' "$W" run "$S" -q --no-trace --json --set workload.gpu_sharing=false
expect 0 '"wait_mean_s":64,' "$W" run "$S" -q --no-trace --json --set workload.gpu_sharing=false
for s in $("$W" list schedulers | awk '{print $1}'); do
  expect 0 '"jobs_completed":5,"jobs_rejected":0,"jobs_unfinished":0' "$W" run "$S" -q --no-trace --json --scheduler "$s"
done
sed 's/gpu_sharing: true/gpu_sharing: maybe/' "$S" > "$T/bad.yaml"
cp "$SRC/tests/scenario/gpu-share-pods.csv" "$T/"
expect 2 "bad.yaml:10:16: workload.gpu_sharing" "$W" run "$T/bad.yaml" -o "$T/bad.h5"
[ -e "$T/bad.h5" ] && bad "trace written for a bad gpu_sharing" || ok
# the placement table: jobs 0 and 1 (p0, p1) on node 0, GPU 0, over [0, 100 s)
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  "$W" run "$S" -q -o "$T/share.h5" >/dev/null 2>&1 || bad "run with a trace failed"
  got=$(/usr/bin/python3 -c 'import h5py, sys
p = h5py.File(sys.argv[1], "r")["placement"][()]
print(" ".join("%d:%d:%d:%d" % (r["job"], r["gpu"], r["start"] // 10**9, r["end"] // 10**9) for r in p))' "$T/share.h5")
  [ "$got" = "0:0:0:100 1:0:0:100 2:1:0:40 3:1:40:90 4:0:100:130" ] && ok || bad "placement: got '$got'"
fi
TR="$SRC/../shared/traces/openb_pod_list_default.csv"
if [ -r "$TR" ]; then
  head -2001 "$TR" > "$T/head.csv"
  printf 'cluster: {nodes: 6, gpus_per_node: 8}\nworkload: {source: alibaba, trace: head.csv, gpu_sharing: true}\nfailures:\n  enabled: false\n  incidents:\n    - {at: 2d, kind: down, node: 0, duration: 1d}\n    - {at: 5d, kind: software, gpu: 3}\n' > "$T/head.yaml"
  for s in $("$W" list schedulers | awk '{print $1}'); do
    expect 0 '"jobs_completed":1581,"jobs_rejected":0,"jobs_unfinished":0' "$W" run "$T/head.yaml" -q --no-trace --json --set "scheduler={name: $s, tick: 10m}"
  done
  expect 0 '"preemptions":7,' "$W" run "$T/head.yaml" -q --no-trace --json --set "scheduler={name: las, tick: 10m}"
fi

[ "$fail" = 0 ] || { echo "$pass passed, $fail failed"; exit 1; }
echo "$pass passed"
