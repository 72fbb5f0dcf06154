#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_wan_share.sh WANKA SRCDIR PYTHON3 — WAN links are shared: two jobs
# across the same three sites (their gradient rings on the same directed
# links) each get half of every link, so each runs as `wanka perf` predicts
# at half the bandwidth; alone, one runs at the whole bandwidth. The trace's
# timeseries/wan never exceeds a link's capacity, the rings' links carry
# equal traffic, and `plot --what wan` draws it.
W=$1 SRC=$2 PY=$3
NAME=wan-share
. "$SRC/tests/scenario/lib.sh"

# jobs of 1,029 GPUs (3 x 343: only a 3-site ring) on sites of 1,024: each
# must span all three, and two fit side by side
cat > "$T/two.yaml" <<'Y'
name: wan-share
seed: 1
sites:
  - {name: a, cluster: {sku: H100-SXM-80G, nodes: 128, gpus_per_node: 8}}
  - {name: b, cluster: {sku: H100-SXM-80G, nodes: 128, gpus_per_node: 8}}
  - {name: c, cluster: {sku: H100-SXM-80G, nodes: 128, gpus_per_node: 8}}
wan:
  default: {bandwidth: 100Gbps, latency: 5ms}
span: {sites: 3, sync: 1s}
broker: least-loaded
failures: {enabled: false}
sim: {sample_interval: 1m}
workload:
  source: inline
  jobs:
    - {gpus: 1029, model: {base: llama3-8b, global_batch: 2058}, iterations: 200, submit: 0s}
    - {gpus: 1029, model: {base: llama3-8b, global_batch: 2058}, iterations: 200, submit: 0s}
Y
sed '$d' "$T/two.yaml" > "$T/one.yaml"
for bw in 100Gbps 50Gbps; do
  printf 'model: {base: llama3-8b, global_batch: 2058}\ngpus: 1029\ncluster: {sku: H100-SXM-80G, nodes: 129, gpus_per_node: 8}\nwan: {sites: 3, bandwidth: %s, latency: 5ms}\n' $bw > "$T/p$bw.yaml"
done
expect 0 "" "$W" run "$T/one.yaml" -q -o "$T/one.h5"
expect 0 "" "$W" run "$T/two.yaml" -q -o "$T/two.h5"
full=$("$W" perf "$T/p100Gbps.yaml" --json) || bad "perf at 100 Gbps"
half=$("$W" perf "$T/p50Gbps.yaml" --json) || bad "perf at 50 Gbps"

out=$("$PY" - "$T" "$full" "$half" <<'P' 2>&1
import json, sys
import h5py
d, full, half = sys.argv[1], json.loads(sys.argv[2])["iteration_s"] * 200, json.loads(sys.argv[3])["iteration_s"] * 200
bad = []
def jobs(p):
    with h5py.File(p, "r") as f:
        j = f["jobs"][:]
        w = f["timeseries/wan"][:] if "timeseries/wan" in f else None
    return [(r["end"] - r["start"]) / 1e9 for r in j], j, w
one, _, _ = jobs(f"{d}/one.h5")
two, j2, w = jobs(f"{d}/two.h5")
# sync granularity (1 s) and the datasets' transfers (under 1 s) aside
if abs(one[0] - full) > 0.005 * full:
    bad.append(f"alone: {one[0]:.1f} s, perf at the whole bandwidth {full:.1f} s")
for k, t in enumerate(two):
    if abs(t - half) > 0.005 * half:
        bad.append(f"job {k} beside another: {t:.1f} s, perf at half the bandwidth {half:.1f} s")
if abs(j2[0]["start"] - j2[1]["start"]) > 2e9:
    bad.append("the two jobs did not run side by side")
if w is None or len(w) == 0:
    bad.append("no timeseries/wan")
else:
    if (w["bytes_per_s"] > w["capacity"] * (1 + 1e-9)).any():
        bad.append("a link carried more than its capacity")
    ring = {}
    for r in w:
        if r["bytes_per_s"] > 1e9:
            ring.setdefault((int(r["from"]), int(r["to"])), []).append(float(r["bytes_per_s"]))
    means = sorted(max(v) for v in ring.values())
    if len(means) != 3 or means[-1] - means[0] > 1e-6 * means[-1]:
        bad.append(f"the ring's three links should carry equal traffic: {ring.keys()} {means}")
print("OK" if not bad else "; ".join(bad))
P
)
[ "$out" = OK ] && ok || bad "$out"
expect 0 "" "$W" plot "$T/two.h5" -o "$T/wan.png" --what wan
[ -s "$T/wan.png" ] && ok || bad "plot --what wan wrote nothing"
printf 'cluster: {nodes: 2}\nworkload: {source: inline, jobs: [{submit: 0, gpus: 8, duration: 1h}]}\n' > "$T/c.yaml"
expect 0 "" "$W" run "$T/c.yaml" -q -o "$T/c.h5"
expect 2 "lacks the dataset 'timeseries/wan'" "$W" plot "$T/c.h5" -o "$T/x.png" --what wan
echo "wan-share: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
