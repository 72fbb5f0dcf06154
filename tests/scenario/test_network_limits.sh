#!/bin/sh
# test_network_limits.sh — a network of sites (`sites:`) at the limits of
# docs/limits.md: times past the limit of simulated time (a 1 kbit/s WAN)
# are never wrapped, 64 sites with `span` run to their summary, the
# network-wide GPU and jobs × sites limits and a WAN link given twice are
# positioned errors (exit 2, no trace).
# usage: test_network_limits.sh WANKA SRCROOT
set -u
W=$1
NAME=netlim
. "$2/tests/scenario/lib.sh"
cd "$T" || exit 1

# refuse NAME PATTERN: run exits 2 with PATTERN and writes no trace; validate too
refuse() {
  expect 2 "$2" "$W" run "$1" -q -o "$T/out.h5"
  [ -e "$T/out.h5" ] && { bad "$1: a trace was written"; rm -f "$T/out.h5"; } || ok
  expect 2 "$2" "$W" validate "$1"
}

# ---- time: a 1 kbit/s WAN ----
# a job across two sites whose gradient ring over 1 kbit/s would end past
# 146 years is no plan: rejected (no single site holds it), never an event
# at a wrapped (negative) time
cat > span1k.yaml <<'Y'
name: span1k
sites:
  - {name: north, cluster: {sku: H100-SXM-80G, nodes: 2, gpus_per_node: 8}}
  - {name: south, cluster: {sku: H100-SXM-80G, nodes: 2, gpus_per_node: 8}}
wan:
  links:
    - {between: [north, south], bandwidth: 1kbps, latency: 5ms}
span: {sites: 2}
broker: fastest-finish
failures: {enabled: false}
workload:
  source: inline
  jobs:
    - {gpus: 32, model: {base: llama3-8b, global_batch: 64}, iterations: 3000000, submit: 1h}
    - {gpus: 8, duration: 3h}
Y
expect 0 "jobs rejected (no site or never fit)                         1" "$W" run span1k.yaml -o out.h5
rm -f out.h5
# a dataset whose transfer over 1 kbit/s ends past the limit: the job
# waits there, and the run stops at the limit with its message
cat > xfer1k.yaml <<'Y'
name: xfer1k
sites:
  - {name: north, data_share: 0, cluster: {sku: H100-SXM-80G, nodes: 2, gpus_per_node: 8}}
  - {name: south, data_share: 1, cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}}
wan:
  links:
    - {between: [north, south], bandwidth: 1kbps, latency: 1h}
data: {job_bytes: 1e17}
failures: {enabled: false}
workload:
  source: inline
  jobs:
    - {gpus: 16, duration: 3h}
Y
expect 2 "reached the longest simulated time" "$W" run xfer1k.yaml -q -o out.h5
[ -e out.h5 ] && bad "xfer1k: a trace was written" || ok
expect 0 "jobs unfinished at the end                                   1" "$W" run xfer1k.yaml --no-trace --set sim.end=1000d

echo "network-limits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
