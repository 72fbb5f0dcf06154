#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# perf_sweep_same.sh BEFORE AFTER — `wanka perf` of two binaries over a set
# of sweeps (repeated and distinct sizes, text and --json, LLM with and
# without an all-to-all across nodes, vision, WAN, --ops, a given cluster,
# an error): fails on the first output or exit status that differs.
# The check behind docs/performance.md, "wanka perf sweeps".
set -u
before=$1 after=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'model: llama3-405b\ngpus: 16384\n' >"$tmp/405.yaml"
printf 'model: llama3-70b\ngpus: 1024\n' >"$tmp/70.yaml"
printf 'model: {base: llama3-405b, tp: 4, pp: 8}\ngpus: 16384\nperf: {dp_overlap: 0.5}\n' >"$tmp/405b.yaml"
printf 'model: mixtral-8x7b\ngpus: 512\n' >"$tmp/moe.yaml"
printf 'model: resnet50\ngpus: 256\n' >"$tmp/vis.yaml"
printf 'model: gpt3-175b\ngpus: 1024\ncluster: {sku: A100-SXM-80G, nodes: 256, gpus_per_node: 8, fabric: {kind: fat-tree, radix: 32, link_gbps: 200, oversubscription: 2}}\n' >"$tmp/given.yaml"
printf 'model: llama3-70b\ngpus: 2048\nwan: {sites: 2, bandwidth: 400Gbps, latency: 10ms}\n' >"$tmp/wan.yaml"
r16=16384,16384,16384,16384,16384
fail=0
n=0
while IFS='|' read -r job args; do
    [ -n "$job" ] || continue
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$before" perf "$tmp/$job" $args >"$tmp/b.out" 2>"$tmp/b.err"
    sb=$?
    # shellcheck disable=SC2086
    "$after" perf "$tmp/$job" $args >"$tmp/a.out" 2>"$tmp/a.err"
    sa=$?
    if [ $sb -ne $sa ] || ! cmp -s "$tmp/b.out" "$tmp/a.out" || ! cmp -s "$tmp/b.err" "$tmp/a.err"; then
        echo "DIFFERS: perf $job $args (status $sb vs $sa)"
        diff "$tmp/b.out" "$tmp/a.out" | head -20
        diff "$tmp/b.err" "$tmp/a.err" | head -5
        fail=1
    fi
done <<LIST
405.yaml|
405.yaml|--json
405.yaml|--scale $r16
405.yaml|--scale $r16 --json
405.yaml|--scale 2048,4096,8192,16384,8192,16384,2048
405.yaml|--scale 16384,2048,16384,128,16384 --json
405b.yaml|--scale 16384,16384,8192
405b.yaml|--scale 16384,16384 --set model.rebalance=true --json
405.yaml|--scale 16384,1000
405.yaml|--ops
70.yaml|--scale 64,128,256,512,1024,1024,512
70.yaml|--scale 64,128,256,512,1024 --json --set model.rebalance=true
70.yaml|--scale 8,8,16,1024
moe.yaml|
moe.yaml|--scale 16,64,512,512,256,512
moe.yaml|--scale 512,512,512 --json
vis.yaml|--scale 8,64,256,256
vis.yaml|--scale 8,64,256,1000000
vis.yaml|--json
given.yaml|
given.yaml|--scale 512,1024,1024,2048 --json
given.yaml|--scale 64,128,1024,512
wan.yaml|
wan.yaml|--json
LIST
echo "$n sweeps compared"
exit $fail
