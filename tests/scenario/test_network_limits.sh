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

# ---- 64 sites (the limit), with span: the summary holds them all ----
{
  echo 'name: net64'
  echo 'sites:'
  i=0
  while [ $i -lt 64 ]; do
    echo "  - {name: s$i, cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}}"; i=$((i + 1))
  done
  echo 'wan: {default: {bandwidth: 100Gbps, latency: 5ms}}'
  echo 'span: {sites: 2}'
  echo 'failures: {enabled: false}'
  echo 'workload:'
  echo '  source: inline'
  echo '  jobs:'
  echo '    - {gpus: 16, model: {base: llama3-8b, global_batch: 64}, iterations: 10}'
  echo '    - {gpus: 8, duration: 1h}'
} > net64.yaml
expect 0 "trace: out.h5" "$W" run net64.yaml -o out.h5
[ -s out.h5 ] && ok || bad "net64: no trace"
expect 0 '"site.s63.energy_cost":' "$W" run net64.yaml --json --no-trace
expect 0 '"spanned_completed":1,' "$W" run net64.yaml --json --no-trace
expect 0 'spanned_completed' "$W" compare out.h5 out.h5 --metrics all
rm -f out.h5
sed 's/^name: net64/name: net15/' net64.yaml | awk '!/name: s(1[5-9]|[2-6][0-9])[,}]/' > net15.yaml
expect 0 '"sites":15,' "$W" run net15.yaml --json --no-trace

# ---- network-wide sizes ----
cat > gpus.yaml <<'Y'
name: gpus
sites:
  - {name: a, cluster: {sku: H100-SXM-80G, nodes: 250000, gpus_per_node: 8}}
  - {name: b, cluster: {sku: H100-SXM-80G, nodes: 250001, gpus_per_node: 8}}
failures: {enabled: false}
workload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}
Y
refuse gpus.yaml "gpus.yaml:4:24: sites[1].cluster: the sites up to 'b' hold 4000008 GPUs together, more than 4000000"
expect 2 "gpus.yaml:4:24: sites[1].cluster: the sites up to 'b' hold 4000008 GPUs together, more than 4000000" \
  "$W" topo gpus.yaml
cat > jobs.yaml <<'Y'
name: jobs
sites:
  - {name: a, cluster: {nodes: 2, gpus_per_node: 8}}
  - {name: b, cluster: {nodes: 2, gpus_per_node: 8}}
workload: {source: synthetic, jobs: 2500001}
Y
refuse jobs.yaml "jobs.yaml:5:37: workload.jobs: 2500001 jobs x 2 sites is more than 5000000"

# ---- a WAN link given twice (in either order) ----
cat > dup.yaml <<'Y'
name: dup
sites:
  - {name: a, cluster: {nodes: 2, gpus_per_node: 8}}
  - {name: b, cluster: {nodes: 2, gpus_per_node: 8}}
wan:
  links:
    - {between: [a, b], bandwidth: 1Gbps}
    - {between: [b, a], bandwidth: 2Gbps}
workload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}
Y
refuse dup.yaml "dup.yaml:8:17: wan.links[1].between: the link between 'b' and 'a' is given twice (first at dup.yaml:7)"

echo "network-limits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
