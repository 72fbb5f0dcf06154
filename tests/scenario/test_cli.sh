#!/bin/sh
# test_cli.sh — the command line's contract: exit statuses (0 ok, 2 bad
# input), file:line:col errors, no trace left behind on error, atomic trace
# output, --set/--seed/--scheduler, help and listing.
# usage: test_cli.sh WANKA SRCROOT
set -u
W=$1
SRC=$2
NAME=cli
. "$SRC/tests/scenario/lib.sh"

Q="$SRC/scenarios/synthetic-384.yaml"
expect 0 "wanka 0." "$W" --version
expect 0 "usage: wanka COMMAND" "$W" --help
expect 0 "--set KEY.PATH=VALUE" "$W" help run
expect 0 "--set KEY.PATH=VALUE" "$W" run --help
expect 2 "unknown command 'frobnicate'" "$W" frobnicate
expect 2 "usage: wanka COMMAND" "$W"
expect 0 "fifo" "$W" list schedulers
expect 0 "philly" "$W" list sources
expect 0 "swf" "$W" list sources
expect 0 "alibaba" "$W" list sources
expect 0 "H100-SXM-80G" "$W" list skus
expect 2 "unknown kind" "$W" list gizmos
expect 0 "ok: scenario 'synthetic-384', 384 GPUs, 3000 jobs, scheduler fifo" "$W" validate "$Q"

# a good run writes the trace atomically under its final name only
cd "$T" || exit 1
expect 0 "GPU utilization" "$W" run "$Q"
[ -s "$T/synthetic-384.h5" ] && ok || bad "default trace synthetic-384.h5 missing"
# -q: no progress, and of the summary only the trace's name (--json still the summary)
out=$("$W" run "$Q" -q --force 2>&1)
[ "$out" = "trace: synthetic-384.h5" ] && ok || bad "run -q printed more than the trace's name: $(printf '%s' "$out" | head -3)"
out=$("$W" run "$Q" -q --no-trace 2>&1)
[ -z "$out" ] && ok || bad "run -q --no-trace printed: $(printf '%s' "$out" | head -3)"
expect 0 '"jobs_completed":3000' "$W" run "$Q" --json -q -o "$T/q.h5"
[ -s "$T/q.h5" ] && ok || bad "-o q.h5 missing"
ls "$T" | grep -q tmp && bad "temporary file left: $(ls "$T")" || ok
expect 0 '"seed":9' "$W" run "$Q" --json -q --no-trace --seed 9
expect 0 '"gpus":64' "$W" run "$Q" --json -q --no-trace --set cluster.nodes=8
a=$("$W" run "$Q" --json -q --no-trace); b=$("$W" run "$Q" --json -q --no-trace)
[ "$a" = "$b" ] && ok || bad "same seed, different summary bytes"

# bad input: status 2, file:line:col: key: message, and no trace file
cat > "$T/bad.yaml" <<'YAML'
cluster:
  nodes: 0
workload: {source: inline, jobs: []}
YAML
expect 2 "bad.yaml:2:10: cluster.nodes: must be" "$W" run "$T/bad.yaml" -o "$T/bad.h5"
[ -e "$T/bad.h5" ] && bad "trace written for a bad scenario" || ok
printf 'cluster: {nodes: 2}\nworkload: {source: inline, jobs: []}\ntypo_key: 3\n' > "$T/unk.yaml"
expect 2 "unk.yaml:3:1: typo_key: unknown key 'typo_key'" "$W" run "$T/unk.yaml" -o "$T/unk.h5"
[ -e "$T/unk.h5" ] && bad "trace written for an unknown key" || ok
printf 'cluster: {nodes: 2\nworkload: 1\n' > "$T/syntax.yaml"
expect 2 "syntax.yaml:" "$W" run "$T/syntax.yaml" -o "$T/syn.h5"
[ -e "$T/syn.h5" ] && bad "trace written for a syntax error" || ok
expect 2 "No such file" "$W" run "$T/missing.yaml"
expect 2 "--set:1:" "$W" run "$Q" --no-trace --set cluster.nodes=-3
expect 2 "unknown scheduler 'nope' (known: fifo" "$W" run "$Q" --no-trace --scheduler nope
expect 2 "--seed: expected a non-negative integer" "$W" run "$Q" --seed=-1
expect 2 "unknown option '--frob'" "$W" run "$Q" --frob
printf 'timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,a\n2017-10-09 07:01:55,oops,1,66.0,a\n' > "$T/bad.csv"
printf 'cluster: {nodes: 2}\nworkload: {source: philly, trace: bad.csv}\n' > "$T/csv.yaml"
expect 2 "bad.csv:3:21: duration:" "$W" run "$T/csv.yaml" -o "$T/csv.h5"
[ -e "$T/csv.h5" ] && bad "trace written for a corrupt CSV" || ok
expect 2 "bad.csv:3:21: duration:" "$W" validate "$T/csv.yaml"
# an SWF log with a bad field: positioned, exit 2, no trace
printf '; MaxProcs: 8\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n2 0 0 10 16 -1 -1 16 -1 -1 1 1 1 1 1 1 -1 -1\n' > "$T/bad.swf"
printf 'cluster: {nodes: 2}\nworkload: {source: swf, trace: bad.swf}\n' > "$T/swf.yaml"
expect 2 "bad.swf:3:10: field 5 (allocated processors): more than the header's MaxProcs 8" "$W" run "$T/swf.yaml" -o "$T/swf.h5"
[ -e "$T/swf.h5" ] && bad "trace written for a bad SWF log" || ok
# an Alibaba pod list with a pod deleted before it was scheduled
printf 'name,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\np0,1,500,0,100,10\np1,2,1000,5,4,6\n' > "$T/pods.csv"
printf 'cluster: {nodes: 2}\nworkload: {source: alibaba, trace: pods.csv}\n' > "$T/ali.yaml"
expect 2 "pods.csv:3:13: deletion_time: before scheduled_time" "$W" run "$T/ali.yaml" -o "$T/ali.h5"
[ -e "$T/ali.h5" ] && bad "trace written for a bad pod list" || ok
# a CSV trace through a mapping: a bad field names file:line:col, the column and the key; a
# mapping error names its scenario key; quotas naming a user no job has; exit 2, no trace
printf 'id|sub|el|n|who\n1|2024-01-01T00:00:00|01:00:00|8|ann\n2|2024-01-01T00:05:00|1:99:00|8|bob\n' > "$T/sacct.txt"
printf 'cluster: {nodes: 2}\nworkload: {source: csv, trace: sacct.txt, delimiter: "|", submit: {column: sub, unit: datetime, format: "%%Y-%%m-%%dT%%H:%%M:%%S"}, duration: {column: el, unit: hms}, gpus: n, user: who}\n' > "$T/map.yaml"
expect 2 "sacct.txt:3:23: column 'el' (duration): expected [D-]HH:MM:SS, got '1:99:00'" "$W" run "$T/map.yaml" -o "$T/map.h5"
[ -e "$T/map.h5" ] && bad "trace written for a bad mapped CSV" || ok
expect 2 "workload.gpus.unit: only submit, duration, start and end have a unit" "$W" validate "$T/map.yaml" --set 'workload.gpus={column: n, unit: s}'
sed -i 's/1:99:00/1:09:00/' "$T/sacct.txt"
expect 0 "2 jobs" "$W" validate "$T/map.yaml"
expect 2 "workload.quotas.cy: no job of this workload has user 'cy'" "$W" validate "$T/map.yaml" --set 'workload.quotas={ann: 8, cy: 8}'
expect 0 "csv " "$W" list sources
# the Philly row of docs/validation.md with its virtual clusters' quotas (where the trace is present)
if [ -r "$SRC/../shared/traces/philly.csv" ]; then
  expect 0 '"wait_mean_s":1460.49' "$W" run "$SRC/scenarios/philly.yaml" --set workload.quotas=gpu_time --json -q --no-trace
  expect 0 '"utilization":0.15041' "$W" run "$SRC/scenarios/philly.yaml" --set workload.quotas=gpu_time --json -q --no-trace
fi
# scenarios/alibaba.yaml's node groups are the trace's node list (model, GPUs per node, nodes)
NL="$SRC/../shared/traces/openb_node_list_gpu_node.csv"
if [ -r "$NL" ]; then
  want=$(awk -F, 'NR > 1 { n[$5 "-" $4 "gpu " $4]++ } END { for (k in n) print k, n[k] }' "$NL" | sort)
  got=$(sed -n 's/.*{name: \([^,]*\), sku: [^,]*, nodes: \([0-9]*\), gpus_per_node: \([0-9]*\)}.*/\1 \3 \2/p' "$SRC/scenarios/alibaba.yaml" | sort)
  [ "$want" = "$got" ] && ok || bad "alibaba.yaml groups differ from the node list: want '$want' got '$got'"
fi
# each of its groups is on its model's catalog SKU (G2 and G3, undisclosed, on the A100 stand-in),
# and every SKU it names is in the catalog (the scenario validates with its groups)
map='A10 A10-24G|G2 A100-SXM-80G|G3 A100-SXM-80G|P100 P100-PCIe-16G|T4 T4-16G|V100M16 V100-SXM2-16G|V100M32 V100-SXM2-32G'
got=$(sed -n 's/.*{name: \([^-,]*\)-[^,]*, sku: \([^,]*\),.*/\1 \2/p' "$SRC/scenarios/alibaba.yaml" | sort -u | paste -sd'|')
[ "$map" = "$got" ] && ok || bad "alibaba.yaml groups' SKUs: want '$map' got '$got'"
for sku in A10-24G P100-PCIe-16G T4-16G V100-SXM2-16G V100-SXM2-32G; do
  printf 'cluster: {nodes: 1, gpus_per_node: 1, sku: %s}\nworkload: {source: alibaba, trace: pods1.csv}\n' "$sku" > "$T/sku.yaml"
  printf 'name,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\np0,1,1000,0,100,0\n' > "$T/pods1.csv"
  expect 0 "1 jobs" "$W" validate "$T/sku.yaml"
done
# sku_speed: a pod's trace duration scales with the peak ratio to the first group's SKU by
# default (the second pod runs on the T4: 1000 s x 312/65 = 4800 s); with sku_speed: false
# it is wall time on any SKU (1000 s); a bad value is a positioned error; other sources refuse it
printf 'name,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\np0,1,1000,0,1000,0\np1,1,1000,0,1000,0\n' > "$T/pods2.csv"
printf 'cluster:\n  groups:\n    - {name: a, sku: A100-SXM-80G, nodes: 1, gpus_per_node: 1}\n    - {name: t, sku: T4-16G, nodes: 1, gpus_per_node: 1}\nworkload: {source: alibaba, trace: pods2.csv}\n' > "$T/het.yaml"
expect 0 '"makespan_s":4800,' "$W" run "$T/het.yaml" -q --no-trace --json
expect 0 '"makespan_s":1000,' "$W" run "$T/het.yaml" -q --no-trace --json --set workload.sku_speed=false
expect 0 '"makespan_s":4800,' "$W" run "$T/het.yaml" -q --no-trace --json --set workload.sku_speed=true
sed 's/trace: pods2.csv}/trace: pods2.csv, sku_speed: maybe}/' "$T/het.yaml" > "$T/het-bad.yaml"
expect 2 "het-bad.yaml:5:58: workload.sku_speed: expected true or false" "$W" run "$T/het-bad.yaml" -o "$T/het-bad.h5"
[ -e "$T/het-bad.h5" ] && bad "trace written for a bad sku_speed" || ok
printf 'cluster: {nodes: 1}\nworkload: {source: inline, jobs: [{gpus: 1, duration: 1h}], sku_speed: false}\n' > "$T/inl.yaml"
expect 2 "workload.sku_speed: unknown key" "$W" validate "$T/inl.yaml"
# facility: a negative budget, a bad price row, a price series shorter than sim.end; no trace
printf 'cluster: {nodes: 2}\nfacility: {budget_mw: -1}\nworkload: {source: inline, jobs: []}\n' > "$T/fneg.yaml"
expect 2 "fneg.yaml:2:23: facility.budget_mw: must be" "$W" run "$T/fneg.yaml" -o "$T/fneg.h5"
[ -e "$T/fneg.h5" ] && bad "trace written for a negative budget" || ok
printf 'time,price_per_mwh,gco2_per_kwh\n0h,80,300\n1h,x,300\n' > "$T/price.csv"
printf 'cluster: {nodes: 2}\nfacility: {prices: price.csv}\nworkload: {source: inline, jobs: []}\n' > "$T/fcsv.yaml"
expect 2 "price.csv:3:4: price_per_mwh: expected a number" "$W" run "$T/fcsv.yaml" -o "$T/fcsv.h5"
[ -e "$T/fcsv.h5" ] && bad "trace written for a bad price series" || ok
printf 'time,price_per_mwh,gco2_per_kwh\n0h,80,300\n1h,60,300\n' > "$T/price2.csv"
printf 'cluster: {nodes: 2}\nsim: {end: 5h}\nfacility: {prices: price2.csv}\nworkload: {source: inline, jobs: []}\n' > "$T/fshort.yaml"
expect 2 "fshort.yaml:3:20: facility.prices: price2.csv: the price series covers 2 h" "$W" run "$T/fshort.yaml" -o "$T/fshort.h5"

# topo: counts of the shipped SuperPOD build (REFERENCES.md rule: 8 leaves per SU)
expect 0 '"leaf_switches":320' "$W" topo "$SRC/scenarios/superpod-10k.yaml" --json
expect 0 "spine switches" "$W" topo "$SRC/scenarios/superpod-10k.yaml"
expect 0 '"gpus_Ascend-910B":1024' "$W" topo "$SRC/scenarios/hetero-mix.yaml" --json
expect 0 '"gpus":100000' "$W" topo "$SRC/scenarios/colossus-100k.yaml" --json
expect 2 "a larger radix" "$W" topo "$SRC/scenarios/superpod-10k.yaml" --set cluster.fabric.radix=16
expect 2 "unknown GPU SKU 'V100'" "$W" topo "$SRC/scenarios/synthetic-384.yaml" --set cluster.sku=V100
# oversubscription 2:1 at the leaf halves the bisection (256 → 128 TB/s)
expect 0 '"bisection_tb_per_s":128' "$W" topo "$SRC/scenarios/superpod-10k.yaml" --json --set cluster.fabric.oversubscription=2

# perf: one job's breakdown, JSON, scaling curve, and a refused configuration
printf 'model: llama3-70b\ngpus: 1024\n' > "$T/j70.yaml"
expect 0 "iteration time" "$W" perf "$T/j70.yaml"
expect 0 '"model":"llama3-70b","gpus":1024' "$W" perf "$T/j70.yaml" --json
expect 0 "scaling" "$W" perf "$T/j70.yaml" --scale 256,512,1024
printf 'model: {kind: recsys, params: 2.5e7, flops_per_sample: 1.0e8, batch_per_gpu: 4096, embedding_gb: 100, a2a_bytes_per_sample: 6656}\ngpus: 16\ncluster: {sku: A100-SXM-80G, nodes: 2}\n' > "$T/rec.yaml"
expect 0 "recommendation models are illustrative" "$W" perf "$T/rec.yaml"
expect 2 "GiB short" "$W" perf "$T/j70.yaml" --set 'model={base: llama3-70b, tp: 1, pp: 1, zero: 0}'
expect 2 "'model' is a scalar" "$W" perf "$T/j70.yaml" --set model.tp=1
expect 2 "not a multiple of tp x pp x cp" "$W" perf "$T/j70.yaml" --set gpus=100
expect 2 "unknown model 'llama9'" "$W" perf "$T/j70.yaml" --set model=llama9
expect 2 "--scale: expected GPU counts" "$W" perf "$T/j70.yaml" --scale 1x
# the breakdown is complete: its parts (context parallelism, optimizer and
# the overlap slowdown included) sum to the iteration time, in text and JSON
printf 'model: {base: llama3-8b, cp: 2}\ngpus: 64\n' > "$T/jcp.yaml"
expect 0 "context-parallel comm (exposed)" "$W" perf "$T/jcp.yaml"
cpj=$("$W" perf "$T/jcp.yaml" --json)
if printf '%s' "$cpj" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
parts = ["compute_s", "bubble_s", "tp_s", "cp_s", "pp_s", "dp_s", "ep_s", "optimizer_s", "interference_s"]
total = sum(r[k] for k in parts)
sys.exit(0 if r["cp_s"] > 0 and abs(total - r["iteration_s"]) <= 1e-6 * r["iteration_s"] else 1)'; then ok
else bad "perf --json: cp_s missing or the parts do not sum to iteration_s: $cpj"; fi
# perf across sites: the report, JSON, and positioned refusals of bad wan: values
printf 'model: llama3-70b\ngpus: 2048\nwan: {sites: 2, bandwidth: 400Gbps, latency: 10ms}\n' > "$T/jwan.yaml"
expect 0 "slowdown across sites" "$W" perf "$T/jwan.yaml"
expect 0 '"sites":2,"gpus_per_site":1024' "$W" perf "$T/jwan.yaml" --json
expect 2 "wan.sites: must be between 2" "$W" perf "$T/jwan.yaml" --set wan.sites=1
printf 'model: llama3-70b\ngpus: 2048\nwan: {sites: 1, bandwidth: 400Gbps, latency: 10ms}\n' > "$T/jwan1.yaml"
expect 2 "jwan1.yaml:3:14: wan.sites: must be between 2" "$W" perf "$T/jwan1.yaml"
expect 2 "wan.bandwidth: must be between 1 bit/s" "$W" perf "$T/jwan.yaml" --set wan.bandwidth=-400Gbps
expect 2 "wan.bandwidth: expected a rate" "$W" perf "$T/jwan.yaml" --set wan.bandwidth=fast
expect 2 "wan.latency: must be between 0s" "$W" perf "$T/jwan.yaml" --set wan.latency=-1ms
expect 2 "wan.sites: 2048 GPUs do not split over 3 sites" "$W" perf "$T/jwan.yaml" --set wan.sites=3
expect 2 "wan.hops: unknown key 'hops'" "$W" perf "$T/jwan.yaml" --set wan.hops=3
expect 2 "does not combine with wan" "$W" perf "$T/jwan.yaml" --scale 256,512
expect 0 "slowdown across sites" "$W" perf "$SRC/examples/perf-wan.yaml"
expect 0 "jobs run across sites                                        1" "$W" run "$SRC/examples/network-span.yaml" -o "$T/span.h5"
expect 2 "needs 'sites'" "$W" run "$Q" --set span.sites=2 -o "$T/nospan.h5"
[ -e "$T/nospan.h5" ] && bad "trace written for span without sites" || ok
printf 'cluster: {nodes: 8}\nworkload:\n  source: inline\n  jobs: [{gpus: 8, model: {base: llama3-70b, tp: 1, pp: 1}, iterations: 5}]\n' > "$T/mem.yaml"
expect 2 "GiB short" "$W" run "$T/mem.yaml" -o "$T/mem.h5"
[ -e "$T/mem.h5" ] && bad "trace written for a job that cannot fit" || ok

# every shipped scenario validates (philly and alibaba only where their traces are present);
# sweep files (sweep-*.yaml) check every point's scenario with --dry-run
for s in "$SRC"/scenarios/*.yaml; do
  case "$s" in *philly.yaml) [ -r "$SRC/../shared/traces/philly.csv" ] || continue ;; esac
  case "$s" in *alibaba.yaml) [ -r "$SRC/../shared/traces/openb_pod_list_default.csv" ] || continue ;; esac
  case "$s" in
    */sweep-*.yaml) expect 0 " 0 failed" "$W" sweep "$s" --dry-run ;;
    *) expect 0 ": ok: scenario" "$W" validate "$s" ;;
  esac
done

# -o never replaces what is not a regular file, nor the scenario itself
mkfifo "$T/fifo" && expect 2 "$T/fifo: not a regular file (a FIFO)" "$W" run "$Q" -q -o "$T/fifo"
[ -p "$T/fifo" ] && ok || bad "the FIFO was replaced"
# a device node of our own (root only), never the system's /dev/null: a
# regression must not destroy a real device
if mknod "$T/null" c 1 3 2>/dev/null; then
  expect 2 "$T/null: not a regular file (a device)" "$W" run "$Q" -q -o "$T/null"
  [ -c "$T/null" ] && ok || bad "the device node was replaced"
fi
mkdir "$T/dir" && expect 2 "$T/dir: not a regular file (a directory)" "$W" run "$Q" -q -o "$T/dir"
[ -z "$(ls "$T/dir")" ] && ok || bad "files left in the directory: $(ls "$T/dir")"
cp "$Q" "$T/self.yaml" && expect 2 "is the scenario itself" "$W" run "$T/self.yaml" -q -o "$T/self.yaml"
cmp -s "$Q" "$T/self.yaml" && ok || bad "the scenario was overwritten"

# an existing trace is refused (before the run, left as it was) unless --force
printf 'older\n' > "$T/exists.h5"
expect 2 "$T/exists.h5: exists; give --force to replace it" "$W" run "$Q" -q -o "$T/exists.h5"
[ "$(cat "$T/exists.h5")" = older ] && ok || bad "a refused run changed exists.h5"
expect 0 "trace: $T/exists.h5" "$W" run "$Q" -q --force -o "$T/exists.h5"
# ... the default name too: a second run of the same scenario is refused
mkdir "$T/twice" && cp "$Q" "$T/twice/q.yaml"
(cd "$T/twice" && "$W" run q.yaml -q >/dev/null 2>&1) && ok || bad "first run into twice/ failed"
expect 2 "q.h5: exists; give --force" sh -c 'cd "$1" && shift && exec "$@"' sh "$T/twice" "$W" run q.yaml -q
expect 2 "unknown option '--force'" "$W" validate "$Q" --force

# progress on a terminal: the percentage of sim.end and an ETA, on stderr;
# none with -q, none when stderr is not a terminal (script(1) gives a pty)
# (the first line comes after 1 s of wall time by default: the test asks for
# it at once with WANKA_PROGRESS_AFTER=0, so a fast machine cannot finish
# the run before it)
# (skipped where script(1) cannot open a pseudo-terminal: a chroot without
# /dev/pts)
P="$SRC/tests/bench/sci-100k.yaml"
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
  out=$(WANKA_PROGRESS_AFTER=0 script -qec "'$W' run '$P' --scheduler sci --no-trace >/dev/null" /dev/null 2>&1 | tr '\r' '\n')
  case "$out" in *"%, simulated day "*" of 30.0, "*" M events/s, ~"*" s left"*) ok ;;
    *) bad "no percentage/ETA progress line on a terminal: $out" ;; esac
  out=$(WANKA_PROGRESS_AFTER=0 script -qec "'$W' run '$P' --no-trace -q >/dev/null" /dev/null 2>&1)
  case "$out" in *"simulated day"*) bad "-q still shows progress: $out" ;; *) ok ;; esac
  out=$(WANKA_PROGRESS_AFTER=soon script -qec "'$W' run '$Q' --no-trace >/dev/null" /dev/null 2>&1)
  case "$out" in *"WANKA_PROGRESS_AFTER: not a number of seconds from 0 to 3600; using 1"*) ok ;;
    *) bad "no warning for a bad WANKA_PROGRESS_AFTER: $out" ;; esac
fi
out=$(WANKA_PROGRESS_AFTER=0 "$W" run "$P" --no-trace 2>&1 >/dev/null)
case "$out" in *"simulated day"*) bad "progress on a stderr that is not a terminal: $out" ;; *) ok ;; esac

# an unwritable trace path: status 2, message names it
expect 2 "/nonexistent-dir/x.h5" "$W" run "$Q" -q -o /nonexistent-dir/x.h5

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
