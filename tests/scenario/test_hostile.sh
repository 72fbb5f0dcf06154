#!/bin/sh
# test_hostile.sh — the command line against hostile input and interruptions:
# every bad scenario or CSV exits 2 with a positioned message within a time
# limit (no crash, no hang) and writes no trace; a 10-million-row CSV is
# refused at the job limit (docs/limits.md); SIGINT/SIGTERM stop a run (exit
# 130/143) leaving no trace, or TRACE.partial.h5 with --keep-partial, and an
# existing trace untouched; a full disk (file-size rlimit) exits 2 and keeps
# the old trace.
# usage: test_hostile.sh WANKA SRCROOT
set -u
W=$1
SRC=$2
T=$(mktemp -d /tmp/wk-hostile-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
cd "$T" || exit 1

# Sanitizer builds are several times slower: give them more time.
slow=1
grep -q __asan_init "$W" 2>/dev/null && slow=5

# expect STATUS PATTERN CMD...: status and a fixed string in stdout+stderr,
# within 20 s (x slow); a timeout (status 124) is a hang.
expect() {
  want=$1 pat=$2; shift 2
  out=$(timeout -k 5 $((20 * slow)) "$@" 2>&1); st=$?
  if [ "$st" != "$want" ]; then bad "$* → status $st, want $want: $(echo "$out" | head -c 600)"; return; fi
  case "$out" in *"$pat"*) ok ;; *) bad "$* → output lacks '$pat': $(echo "$out" | head -c 600)" ;; esac
}

# refuse NAME PATTERN: scenario file NAME is refused by run (no trace) and validate
refuse() {
  expect 2 "$2" "$W" run "$1" -q -o "$T/out.h5"
  [ -e "$T/out.h5" ] && { bad "$1: a trace was written"; rm -f "$T/out.h5"; } || ok
  expect 2 "$2" "$W" validate "$1"
}

C='cluster: {nodes: 2, gpus_per_node: 8}'

# ---- scenarios ----
: > empty.yaml
refuse empty.yaml "empty.yaml: empty scenario"
printf '%s\nname: \303\050\n' "$C" > utf8.yaml
refuse utf8.yaml "utf8.yaml:2:"
printf '\200\201: 1\n' > utf8key.yaml
refuse utf8key.yaml "UTF-8"
{
  echo 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
  prev=a
  for c in b c d e f g h i; do
    echo "$c: &$c [*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev]"; prev=$c
  done
} > bomb.yaml
refuse bomb.yaml "anchors and aliases are not supported"
awk 'BEGIN { printf "a: "; for (i = 0; i < 100000; i++) printf "["; print "" }' > deep.yaml
refuse deep.yaml "nested too deeply"
awk 'BEGIN { for (i = 0; i < 400; i++) printf "%*sk:\n", 2 * i, "" }' > deepmap.yaml
refuse deepmap.yaml "nested too deeply"
printf '%s\n%s\n' "$C" "$C" > dup.yaml
refuse dup.yaml "dup.yaml:2:1: cluster: duplicate key (first at line 1)"
printf 'cluster: {nodes: 1e30}\nworkload: {source: inline, jobs: []}\n' > gpus.yaml
refuse gpus.yaml "gpus.yaml:1:18: cluster.nodes: must be between 1 and 4000000 (got 1e30)"
printf '%s\nworkload: {source: inline, jobs: [{gpus: 1, duration: 9223372036854775808ns}]}\n' "$C" > ns.yaml
refuse ns.yaml "workload.jobs[0].duration: must be between"
printf 'sim: {end: 106752d}\n%s\nworkload: {source: inline, jobs: []}\n' "$C" > end.yaml
refuse end.yaml "sim.end: must be between"
printf 'cluster: {nodes: 2, power: {pue: .nan}}\nworkload: {source: inline, jobs: []}\n' > nan.yaml
refuse nan.yaml "cluster.power.pue: expected a number, got '.nan'"
printf 'cluster: {nodes: 2, power: {pue: 1e999}}\nworkload: {source: inline, jobs: []}\n' > inf.yaml
refuse inf.yaml "cluster.power.pue"
printf '%s\nworkload: {source: inline, jobs: [{gpus: 1, duration: -5s}]}\n' "$C" > neg.yaml
refuse neg.yaml "workload.jobs[0].duration: must be between"
printf '%s\nworkload: {source: synthetic, jobs: 5000001}\n' "$C" > jobs.yaml
refuse jobs.yaml "workload.jobs: must be between 1 and 5000000"
# networks of sites (docs/scenarios.md): a link to an unknown site, a price
# series that does not cover the run at one site, a site of no name, a bad rate
S='  - {name: a, cluster: {nodes: 2, gpus_per_node: 8}}'
J='workload: {source: inline, jobs: [{gpus: 8, duration: 30h}]}'
printf 'sites:\n%s\nwan: {links: [{between: [a, z], bandwidth: 1Gbps}]}\n%s\n' "$S" "$J" > net-link.yaml
refuse net-link.yaml "net-link.yaml:3:29: wan.links[0].between[1]: unknown site 'z'"
printf 'time,price_per_mwh,gco2_per_kwh\n0h,50,300\n1h,60,300\n' > short.csv
printf 'sites:\n  - {name: a, cluster: {nodes: 2, gpus_per_node: 8}, facility: {prices: short.csv}}\n%s\n' "$J" > net-prices.yaml
expect 2 "net-prices.yaml:2:73: sites[0].facility.prices: short.csv: the price series covers" "$W" run net-prices.yaml -q -o "$T/out.h5"
[ -e "$T/out.h5" ] && { bad "net-prices: a trace was written"; rm -f "$T/out.h5"; } || ok
printf 'sites:\n  - {cluster: {nodes: 2}}\n%s\n' "$J" > net-name.yaml
refuse net-name.yaml "net-name.yaml:2:5: sites[0].name: missing required key"
printf 'sites:\n%s\nwan: {default: {bandwidth: fast}}\n%s\n' "$S" "$J" > net-rate.yaml
refuse net-rate.yaml "net-rate.yaml:3:28: wan.default.bandwidth: expected a rate"
head -c 100000 /dev/urandom > random.yaml
out=$(timeout $((20 * slow)) "$W" validate random.yaml 2>&1); st=$?
[ "$st" = 2 ] && ok || bad "random bytes: status $st: $(echo "$out" | head -c 300)"
# a run past 146 simulated years stops with a range error, not an overflow
{ echo 'cluster: {nodes: 1, gpus_per_node: 1}'; printf 'workload: {source: inline, jobs: ['
  for i in 1 2 3; do printf '{gpus: 1, duration: 2305843009213693951ns},'; done; echo ']}'; } > long.yaml
expect 2 "146 years of simulated time, the limit" "$W" run long.yaml -q -o "$T/out.h5"
[ -e "$T/out.h5" ] && bad "trace written for a run past the time limit" || ok

# 80,000 SKU overrides (6.5 MB): linear, a few seconds (a lookup by scanning
# the catalog made this quadratic: 20,000 took 9 s, 80,000 over two minutes); the
# last entries override one defined earlier and build on another
awk 'BEGIN { print "cluster:\n  nodes: 2\n  sku: S1\n  skus:"
  for (i = 0; i < 80000; i++) printf "    - {name: S%d, base: H100-SXM-80G, bf16_tflops: %d, tdp_w: 700}\n", i, 900 + i % 100
  print "    - {name: S1, bf16_tflops: 1234}\n    - {name: T, base: S79999}"
  print "workload: {source: inline, jobs: []}" }' > skus.yaml
expect 0 "skus.yaml: ok" "$W" validate skus.yaml
out=$("$W" topo skus.yaml --set cluster.sku=S1 2>&1)
case "$out" in *S1*) ok ;; *) bad "80,000 SKUs: topo does not show S1: $(echo "$out" | head -c 300)" ;; esac

# a 118-byte sweep of 200,000 points: points are expanded and run one per
# thread, each keeping only its outcome (about 200 bytes), so a dry run
# fits in 1 GiB of address space (it took 31 KB per point: 6 GB)
printf 'base: {cluster: {nodes: 1}, workload: {source: inline, jobs: [{gpus: 1, duration: 1h}]}}\nseeds: {from: 1, to: 200000}\n' > lazy.yaml
if [ "$slow" = 1 ]; then
  out=$( (ulimit -v 1048576; exec timeout 120 "$W" sweep lazy.yaml --dry-run -q -j 2 -o lazy) 2>&1 | tail -n 1); st=$?
  case "$out" in *"200000 points, 200000 ok, 0 failed"*) ok ;; *) bad "200,000-point sweep in 1 GiB: $out" ;; esac
fi

# ---- the Philly CSV importer ----
printf 'cluster: {nodes: 2}\nworkload: {source: philly, trace: t.csv}\n' > csv.yaml
printf 'timestamp,num_gpus\n2017-10-09 07:01:55,1\n' > t.csv
expect 2 "t.csv:1: duration: missing column" "$W" validate csv.yaml
printf 'timestamp,duration,num_gpus\n2017-10-09 07:01:55,60,eight\n' > t.csv
expect 2 "t.csv:2:24: num_gpus: expected an integer" "$W" validate csv.yaml
printf 'timestamp,duration,num_gpus\n2017-10-09 07:01:55,60\n' > t.csv
expect 2 "t.csv:2: row: expected 3 fields, got 2" "$W" validate csv.yaml
printf 'timestamp,duration,num_gpus\n0001-01-01 00:00:00,60,1\n2017-10-09 07:01:55,60,1\n' > t.csv
expect 2 "submit times span more than 73 years" "$W" validate csv.yaml

# 10 million rows (250 MB): refused at the 5,000,001st job, quickly and
# without reading past the limit into the run.
awk 'BEGIN { print "timestamp,duration,num_gpus"; for (i = 0; i < 10000000; i++) print "2017-10-09 07:01:55,60,1" }' > t.csv
expect 2 "t.csv:5000002: row: more than 5000000 jobs, the limit of a workload" "$W" validate csv.yaml
rm -f t.csv

# ---- SIGINT / SIGTERM ----
Q=$SRC/scenarios/synthetic-384.yaml
# about 6 s of work in a release build (a sanitizer build does less in longer)
BIG="--set workload.jobs=$((4000000 / slow)) --set cluster.nodes=2000 --set cluster.fabric.radix=128 --set workload.interarrival.mean=1s"
echo "an older trace" > old.h5
cp old.h5 old.copy
# interrupt INTERVAL SIGNAL STATUS PATTERN ARGS...: signal the run after INTERVAL s
# (--foreground: only wanka gets the signal; without it timeout signals the
# process group too, and a second signal has its default effect by design).
# The signal arrives while the 4-million-job workload is still being
# prepared (not interruptible; 4 s of CPU, over 30 s on a loaded machine):
# a hang is what outlasts 120 s.
interrupt() {
  secs=$1 sig=$2 want=$3 pat=$4; shift 4
  out=$(timeout --foreground -k $((120 * slow)) --preserve-status -s "$sig" "$secs" "$W" run "$Q" $BIG -q --force -o old.h5 "$@" 2>&1); st=$?
  [ "$st" = "$want" ] && ok || bad "$sig: status $st, want $want: $out"
  case "$out" in *"$pat"*) ok ;; *) bad "$sig: output lacks '$pat': $out" ;; esac
  cmp -s old.h5 old.copy && ok || bad "$sig: the existing trace old.h5 was changed"
  ls | grep -q '\.tmp\.' && bad "$sig: temporary file left: $(ls)" || ok
}
interrupt 1.5 INT 130 "interrupted by SIGINT at simulated day"
[ -e old.partial.h5 ] && bad "partial trace written without --keep-partial" || ok
interrupt 1.5 TERM 143 "interrupted by SIGTERM at simulated day"
interrupt 1.5 INT 130 "partial trace (complete = 0): old.partial.h5" --keep-partial
[ -s old.partial.h5 ] && ok || bad "--keep-partial: old.partial.h5 missing"
if [ -s old.partial.h5 ] && /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
  c=$(/usr/bin/python3 -c 'import h5py, sys; print(int(h5py.File(sys.argv[1], "r").attrs["complete"]))' old.partial.h5)
  [ "$c" = 0 ] && ok || bad "old.partial.h5: complete = $c, want 0"
fi
expect 0 "utilization" "$W" compare old.partial.h5

# ---- a full disk: a file-size limit stands in for it ----
"$W" run "$Q" -q -o full.h5 > /dev/null 2>&1 || bad "cannot write the reference trace"
cp full.h5 full.copy
out=$( (ulimit -f 64; trap '' XFSZ; exec "$W" run "$Q" -q --force -o full.h5) 2>&1); st=$?
[ "$st" = 2 ] && ok || bad "full disk: status $st, want 2 (a crash at exit would be 134/139): $out"
case "$out" in *"full.h5"*"File too large"*) ok ;; *) bad "full disk: message lacks the path and the reason: $out" ;; esac
cmp -s full.h5 full.copy && ok || bad "full disk: the old trace was changed"
ls | grep -q '\.tmp\.' && bad "full disk: temporary file left: $(ls)" || ok

# ---- outputs: never onto an input, nothing left behind ----
"$W" run "$Q" -q --force -o full.h5 > /dev/null 2>&1 || bad "cannot write the reference trace (2)"
cp full.h5 full.copy
# a full disk while --keep-partial writes the run so far: no half-written
# TRACE.partial.h5, no temporary file
t0=$(date +%s)
out=$( (ulimit -f 64; trap '' XFSZ; exec timeout --foreground -k $((120 * slow)) --preserve-status -s INT 1.5 "$W" run "$Q" $BIG -q --force -o full.h5 --keep-partial) 2>&1); st=$?
echo "full disk + --keep-partial: $(( $(date +%s) - t0 )) s"
[ "$st" = 130 ] && ok || bad "full disk + --keep-partial: status $st, want 130: $out"
case "$out" in *"full.partial.h5"*"File too large"*"could not be written"*) ok ;; *) bad "full disk + --keep-partial: message: $out" ;; esac
[ -e full.partial.h5 ] && bad "full disk + --keep-partial: a half-written full.partial.h5 was left" || ok
cmp -s full.h5 full.copy && ok || bad "full disk + --keep-partial: the old trace was changed"
ls | grep -q '\.tmp\.' && bad "full disk + --keep-partial: temporary file left: $(ls)" || ok
rm -f full.h5 full.copy

mkdir outdir
expect 2 "outdir: not a regular file (a directory)" "$W" run "$Q" -q -o outdir
expect 2 "outdir/: names a directory" "$W" run "$Q" -q -o outdir/
expect 2 "nodir/x.h5: cannot create: nodir is not an existing directory" "$W" run "$Q" -q -o nodir/x.h5
[ -z "$(ls -A outdir)" ] && ok || bad "-o a directory: something was created in it: $(ls -A outdir)"
ls | grep -q '\.tmp\.' && bad "-o a directory: temporary file left: $(ls)" || ok
# -o onto an included file or the CSV trace is refused, both kept
printf 'name: top\ninclude: inc.yaml\n' > top.yaml
cp "$Q" inc.yaml
cp inc.yaml inc.copy
expect 2 "inc.yaml: is an input of the scenario (included as inc.yaml)" "$W" run top.yaml -q -o inc.yaml
cmp -s inc.yaml inc.copy && ok || bad "-o the included file: it was changed"
printf 'timestamp,duration,num_gpus\n2017-10-09 07:01:55,60,1\n' > t.csv
cp t.csv t.copy
expect 2 "is the workload's trace" "$W" run csv.yaml -q -o t.csv
expect 2 "is the workload's trace" "$W" run csv.yaml -q -o ./t.csv --keep-partial
cmp -s t.csv t.copy && ok || bad "-o the CSV trace: it was changed"
# a SIGKILLed run leaves TRACE.tmp.PID (its process gone); the next run
# writing there removes it
sh -c 'exit 0' &
kp=$!
wait $kp
echo "half a trace" > killed.h5.tmp.$kp
expect 0 "removed killed.h5.tmp.$kp, left by process $kp that no longer runs" "$W" run "$Q" -q -o killed.h5
ls | grep -q '\.tmp\.' && bad "SIGKILL: temporary file still there: $(ls)" || ok
# a live process's temporary file is not touched
sleep 30 &
lp=$!
echo x > killed.h5.tmp.$lp
expect 0 "trace: killed.h5" "$W" run "$Q" -q --force -o killed.h5
[ -e killed.h5.tmp.$lp ] && ok || bad "the temporary file of a live process was removed"
kill $lp; rm -f killed.h5.tmp.$lp killed.h5

# ---- inputs that are not regular files, or not UTF-8 ----
mkfifo fifo.yaml
expect 2 "fifo.yaml: not a regular file (a FIFO)" "$W" validate fifo.yaml
expect 2 "fifo.yaml: not a regular file (a FIFO)" "$W" run fifo.yaml -q -o "$T/out.h5"
printf 'include: fifo.yaml\n%s\nworkload: {source: inline, jobs: []}\n' "$C" > incfifo.yaml
expect 2 "not a regular file (a FIFO); a scenario is read only from a regular file (included from incfifo.yaml:1:10)" "$W" validate incfifo.yaml
rm -f t.csv; mkfifo t.csv
expect 2 "t.csv: not a regular file (a FIFO); a CSV trace is read only from a regular file" "$W" validate csv.yaml
rm -f t.csv fifo.yaml
printf '%s\nworkload: {source: inline, jobs: []}\n' "$C" | iconv -f UTF-8 -t UTF-16 > u16.yaml
refuse u16.yaml "u16.yaml:1:1: the file is encoded as UTF-16 (byte-order mark); a scenario must be UTF-8"
printf '\357\273\277timestamp,duration,num_gpus\n\n2017-10-09 07:01:55,60,1\n' > t.csv
expect 0 "1 jobs" "$W" validate csv.yaml
printf 'timestamp,duration,num_gpus\n2017-02-29 07:01:55,60,1\n' > t.csv
expect 2 "t.csv:2:1: timestamp: expected 'YYYY-MM-DD HH:MM:SS', a date that exists" "$W" validate csv.yaml
printf 'timestamp,duration,num_gpus\n2017-02-28 07:01:55,0x10,1\n' > t.csv
expect 2 "t.csv:2:21: duration: expected decimal seconds" "$W" validate csv.yaml

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
