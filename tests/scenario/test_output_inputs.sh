#!/bin/sh
# test_output_inputs.sh — `wanka run -o PATH` never replaces an input of the
# scenario (docs/limits.md): PATH naming (by device and inode, so also
# through another name) a price series of the top level or of a site, a
# scheduler plugin of `plugins:` (top level or a site's), the broker's
# plugin, a --plugin or --broker-plugin file, an include: file or the
# workload's CSV trace is refused with exit 2 before the run, and the file
# is left as it was.
# usage: test_output_inputs.sh WANKA SRCROOT
set -u
W=$1 PY=${3:-}
NAME=outin
. "$2/tests/scenario/lib.sh"
cd "$T" || exit 1

# kept FILE PATTERN ARGS...: run -o FILE exits 2 with PATTERN, FILE unchanged
kept() {
  f=$1 pat=$2; shift 2
  cp "$f" "$f.orig"
  expect 2 "$pat" "$W" run "$@" -q -o "$f"
  cmp -s "$f" "$f.orig" && ok || bad "$f was changed by run $*"
}
printf 'time,price_per_mwh,gco2_per_kwh\n0h,10,100\n1h,20,200\n' > p.csv
printf 'time,price_per_mwh,gco2_per_kwh\n0h,30,100\n1h,40,200\n' > q.csv
echo 'not a shared object' > sched.so
echo 'not a shared object' > broker.so
echo 'not a shared object' > site.so
J='workload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}'
printf 'cluster: {nodes: 1, gpus_per_node: 8}\nfacility: {prices: p.csv, prices_repeat: true}\nplugins: [sched.so]\n%s\n' "$J" > one.yaml
kept p.csv "p.csv: is an input of the scenario (facility.prices at one.yaml:2:20); choose another -o" one.yaml
ln p.csv p-link.csv
kept p-link.csv "p-link.csv: is an input of the scenario (facility.prices at one.yaml:2:20)" one.yaml
kept sched.so "sched.so: is an input of the scenario (plugins[0] at one.yaml:3:11)" one.yaml
printf 'cluster: {nodes: 1, gpus_per_node: 8}\n%s\n' "$J" > plain.yaml
kept sched.so "sched.so: is an input of the scenario (--plugin)" plain.yaml --plugin sched.so
kept broker.so "broker.so: is an input of the scenario (--broker-plugin)" plain.yaml --broker-plugin ./broker.so
cat > net.yaml <<Y
sites:
  - {name: a, cluster: {nodes: 1, gpus_per_node: 8}, facility: {prices: q.csv}}
  - {name: b, cluster: {nodes: 1, gpus_per_node: 8}, plugins: [site.so]}
facility: {prices: p.csv, prices_repeat: true}
broker: {plugin: broker.so}
$J
Y
kept q.csv "q.csv: is an input of the scenario (sites[0].facility.prices at net.yaml:2:73)" net.yaml
kept site.so "site.so: is an input of the scenario (sites[1].plugins[0] at net.yaml:3:64)" net.yaml
kept p.csv "p.csv: is an input of the scenario (facility.prices at net.yaml:4:20)" net.yaml
kept broker.so "broker.so: is an input of the scenario (broker.plugin at net.yaml:5:18)" net.yaml
# --keep-partial: the partial trace's name is checked too
cp p.csv x.partial.h5
expect 2 "x.partial.h5: is an input of the scenario" "$W" run plain.yaml -q -o x.h5 --keep-partial --plugin x.partial.h5
# the partial trace's name is the scenario itself
cp plain.yaml y.partial.h5
expect 2 "y.partial.h5: is the scenario itself" "$W" run y.partial.h5 -q -o y.h5 --keep-partial
cmp -s plain.yaml y.partial.h5 && ok || bad "--keep-partial changed the scenario"
# an output that is no input still runs
expect 0 "" "$W" run plain.yaml -q -o out.h5
# export and plot never write over the trace they read
cp out.h5 t.json
expect 2 "t.json: is the trace being exported" "$W" export t.json --format chrome -o t.json
cmp -s out.h5 t.json && ok || bad "export chrome changed its input"
mkdir -p cd && cp out.h5 cd/jobs.csv
expect 2 "jobs.csv: is the trace being exported" "$W" export cd/jobs.csv --format csv -o cd
cmp -s out.h5 cd/jobs.csv && ok || bad "export csv changed its input"
if [ -n "${PY:-}" ]; then
  cp out.h5 t.svg
  expect 2 "t.svg: is an input" "$W" plot t.svg -o t.svg --what utilization
  cmp -s out.h5 t.svg && ok || bad "plot changed its input"
fi

echo "output-inputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
