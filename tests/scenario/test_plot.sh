#!/bin/sh
# test_plot.sh — `wanka plot` end to end: a PNG for every --what the traces
# support (PNG magic bytes, more than 10 kB), an SVG, and status 2 with a
# clear message for a missing file, a trace lacking the data, bad arguments.
# gantt, heatmap, recovery (quickstart with scripted failures) and scaling
# (the JSON of `wanka perf --scale`) likewise.
# usage: test_plot.sh WANKA SRCROOT PYTHON   (exit 77 = skipped: no h5py/matplotlib)
set -u
W=$1
SRC=$2
PY=$3
NAME=plot
. "$SRC/tests/scenario/lib.sh"

# is_png FILE: PNG signature 89 50 4e 47 0d 0a 1a 0a and more than 10 kB
is_png() {
  sig=$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')
  size=$(wc -c < "$1" 2>/dev/null || echo 0)
  if [ "$sig" != "89504e470d0a1a0a" ]; then bad "$1: not a PNG (signature '$sig')"; return; fi
  if [ "$size" -le 10240 ]; then bad "$1: only $size bytes"; return; fi
  ok
}

Q="$SRC/scenarios/synthetic-384.yaml"
"$W" run "$Q" -q --seed 1 -o "$T/a.h5" >/dev/null || { echo "run failed"; exit 1; }
"$W" run "$Q" -q --seed 2 --set cluster.nodes=40 -o "$T/b.h5" >/dev/null || { echo "run failed"; exit 1; }

# Skip when the interpreter wanka runs lacks the packages (wanka says which).
out=$("$W" plot "$T/a.h5" -o "$T/probe.png" --what utilization 2>&1); st=$?
if [ "$st" = 1 ] && { echo "$out" | grep -q -e "cannot import" -e "cannot run"; }; then
  echo "skipped: $out"
  exit 77
fi

for what in utilization queue power jct-cdf; do
  expect 0 "" "$W" plot "$T/a.h5" "$T/b.h5" -o "$T/$what.png" --what "$what"
  is_png "$T/$what.png"
done
# incidents: a PNG when the traces have an incidents table, else status 2 saying so
out=$("$W" plot "$T/a.h5" -o "$T/incidents.png" --what incidents 2>&1); st=$?
if [ "$st" = 0 ]; then
  is_png "$T/incidents.png"
else
  case "$st:$out" in 2:*"no 'incidents' table"*) ok ;; *) bad "incidents → status $st: $out" ;; esac
  [ -e "$T/incidents.png" ] && bad "incidents.png written although the plot failed" || ok
fi
# ... and from a run with scripted incidents, a PNG (a hand-made table in
# another layout is no trace: the open's schema check refuses it)
"$W" run "$Q" -q --seed 3 --set 'failures={enabled: false, incidents: [{at: 2h, kind: down, node: 3, duration: 8h}, {at: 1d, kind: software, gpu: 100}]}' \
  -o "$T/inc.h5" >/dev/null || bad "could not write a trace with incidents"
expect 0 "" "$W" plot "$T/inc.h5" -o "$T/inc.png" --what incidents
is_png "$T/inc.png"

expect 0 "" "$W" plot "$T/a.h5" -o "$T/u.svg" --what utilization
# one network's trace: a line (a curve) per site, named in the SVG's legend
cat > "$T/net.yaml" <<'EOF2'
name: net
sites:
  - {name: alpha, cluster: {nodes: 2, gpus_per_node: 8}}
  - {name: beta, cluster: {nodes: 4, gpus_per_node: 8}}
workload: {source: synthetic, jobs: 40, interarrival: {dist: exponential, mean: 10m},
           duration: {dist: lognormal, median: 1h, sigma: 1}, gpus: [{gpus: 8, weight: 1}]}
EOF2
expect 0 "" "$W" run "$T/net.yaml" -q -o "$T/net.h5"
for what in utilization jct-cdf; do
  expect 0 "" "$W" plot "$T/net.h5" -o "$T/net-$what.svg" --what "$what"
  for site in alpha beta; do
    grep -q "$site" "$T/net-$what.svg" && ok || bad "net-$what.svg: no line of site $site"
  done
done
grep -q "<svg" "$T/u.svg" 2>/dev/null && ok || bad "u.svg is not an SVG"

# gantt, heatmap, recovery: per-run panels; quickstart with scripted incidents
F='failures={enabled: false, incidents: [{at: 2h, kind: down, node: 3, duration: 8h}, {at: 1d, kind: down, node: 10, duration: 4h}, {at: 2d, kind: software, gpu: 100}]}'
"$W" run "$Q" -q --seed 3 --set "$F" -o "$T/f.h5" >/dev/null || { echo "run with failures failed"; exit 1; }
for what in gantt gantt-jobs fragmentation heatmap recovery; do
  expect 0 "" "$W" plot "$T/f.h5" "$T/a.h5" -o "$T/$what.png" --what "$what"
  is_png "$T/$what.png"
done
expect 0 "" "$W" plot "$T/f.h5" -o "$T/heatmap.svg" --what heatmap
grep -q "<svg" "$T/heatmap.svg" 2>/dev/null && ok || bad "heatmap.svg is not an SVG"
# gantt-jobs --top 3: the three jobs with the most GPU-time (gpus x (end - start)),
# by the labels the SVG keeps as comments ("<!-- #id · G GPUs -->")
expect 0 "" "$W" plot "$T/a.h5" -o "$T/g3.svg" --what gantt-jobs --top 3
got=$(sed -n 's/.*<!-- *#\([0-9]*\) · [0-9]* GPUs.*-->.*/\1/p' "$T/g3.svg" | sort -n | tr '\n' ' ')
want=$("$PY" -c "
import sys, h5py, numpy as np
j = h5py.File(sys.argv[1], 'r')['jobs'][:]
w = j['gpus'].astype(float) * (j['end'] - j['start'])
print(' '.join(str(int(i)) for i in sorted(j['id'][np.argsort(-w, kind='stable')[:3]])), end=' ')" "$T/a.h5")
[ "$got" = "$want" ] && ok || bad "gantt-jobs --top 3 shows jobs '$got', want the three largest '$want'"
expect 2 "--top 0: expected a count" "$W" plot "$T/a.h5" -o "$T/x.png" --what gantt --top 0
# recovery of a run without incidents still draws (a note says none stopped a job)
expect 0 "" "$W" plot "$T/a.h5" -o "$T/rec0.png" --what recovery
# heatmap: the per-pod utilization it draws integrates to summary.utilization (schema 1.2 table)
"$PY" - "$T/f.h5" <<'PY' && ok || bad "timeseries/pods does not integrate to utilization"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
p = f["timeseries/pods"][:]
u = (p["allocated"] * p["span"]).sum() / (f.attrs["gpus"] * f["summary"].attrs["simulated_s"] * 1e9)
sys.exit(0 if abs(u - f["summary"].attrs["utilization"]) < 1e-9 else 1)
PY
# scaling: from the JSON of wanka perf --scale, two curves overlaid
printf 'model: llama3-70b\ngpus: 1024\n' > "$T/j70.yaml"
"$W" perf "$T/j70.yaml" --scale 256,512,1024,2048 --json > "$T/s70.json" || bad "perf --scale --json failed"
printf 'model: llama3-8b\ngpus: 64\n' > "$T/j8.yaml"
"$W" perf "$T/j8.yaml" --scale 64,128,256,512 --json > "$T/s8.json" || bad "perf --scale --json failed"
expect 0 "" "$W" plot "$T/s70.json" "$T/s8.json" -o "$T/scaling.png" --what scaling
is_png "$T/scaling.png"
expect 2 "$T/a.h5: not the JSON of \`wanka perf --scale" "$W" plot "$T/a.h5" -o "$T/x.png" --what scaling
printf '[{"gpus": 8}]\n' > "$T/bad.json"
expect 2 "$T/bad.json: element 0 lacks the numbers" "$W" plot "$T/bad.json" -o "$T/x.png" --what scaling
"$W" perf "$T/j70.yaml" --json > "$T/one.json"
expect 2 "$T/one.json: expected the non-empty JSON array" "$W" plot "$T/one.json" -o "$T/x.png" --what scaling
# each new plot on a trace lacking its table: status 2 naming the trace and the table, nothing written
cp "$T/f.h5" "$T/nopods.h5"
"$PY" -c "import h5py, sys; f = h5py.File(sys.argv[1], 'a'); del f['timeseries/pods']; del f['incidents']; del f['jobs']; f.close()" "$T/nopods.h5" ||
  bad "could not remove tables"
expect 2 "$T/nopods.h5: the trace lacks the dataset 'timeseries/pods' needed by --what heatmap" \
  "$W" plot "$T/nopods.h5" -o "$T/z.png" --what heatmap
expect 2 "$T/nopods.h5: no 'incidents' table" "$W" plot "$T/f.h5" "$T/nopods.h5" -o "$T/z.png" --what recovery
expect 2 "$T/nopods.h5: the trace lacks the dataset 'jobs' needed by --what gantt" \
  "$W" plot "$T/nopods.h5" -o "$T/z.png" --what gantt
[ -e "$T/z.png" ] && bad "z.png written although the trace lacks the data" || ok

# bad input: status 2 and a message naming the problem
expect 2 "$T/none.h5: no such file" "$W" plot "$T/none.h5" -o "$T/x.png" --what queue
expect 2 "must end in .png or .svg" "$W" plot "$T/a.h5" -o "$T/x.jpg" --what queue
expect 2 "invalid choice: 'frob'" "$W" plot "$T/a.h5" -o "$T/x.png" --what frob
expect 2 "missing TRACE.h5" "$W" plot
"$PY" -c "import h5py, sys; f = h5py.File(sys.argv[1], 'a'); del f['timeseries/cluster']; f.close()" "$T/inc.h5" ||
  bad "could not remove timeseries/cluster"
expect 2 "lacks the dataset 'timeseries/cluster'" "$W" plot "$T/a.h5" "$T/inc.h5" -o "$T/y.png" --what power
[ -e "$T/y.png" ] && bad "y.png written although a trace lacks the data" || ok
printf 'not a trace\n' > "$T/text.h5"
expect 2 "wanka: $T/text.h5: not an HDF5 file" "$W" plot "$T/text.h5" -o "$T/x.png" --what queue
# malformed traces: one line "wanka: FILE: ...", status 2, no traceback, no image
"$PY" - "$T/a.h5" "$T" <<'PY' || bad "could not write the malformed traces"
import shutil, sys, h5py, numpy as np
src, d = sys.argv[1], sys.argv[2]
def copy(name):
    shutil.copy(src, f"{d}/{name}.h5")
    return h5py.File(f"{d}/{name}.h5", "a")
with copy("group") as f:          # timeseries/cluster a group, not a table
    del f["timeseries/cluster"]; f.create_group("timeseries/cluster")
with copy("strcol") as f:         # jobs.submit a string column
    del f["jobs"]; f.create_dataset("jobs", data=np.zeros(5, dtype=[("submit", "S8"), ("end", "<i8")]))
with copy("nocol") as f:          # jobs without the end column (and no placement naming its jobs)
    del f["jobs"]; f.create_dataset("jobs", data=np.zeros(5, dtype=[("submit", "<i8")]))
    del f["placement"]
with copy("matrix") as f:         # timeseries/cluster a 2-D array of numbers
    del f["timeseries/cluster"]; f.create_dataset("timeseries/cluster", data=np.zeros((3, 3)))
with copy("gpus") as f:           # root attribute gpus a string
    f.attrs["gpus"] = "many"
PY
malformed() {
  out=$("$W" plot "$T/$1.h5" -o "$T/m.png" --what "$2" 2>&1); st=$?
  [ "$st" = 2 ] && ok || bad "$1.h5 --what $2: status $st, want 2: $out"
  case "$out" in "wanka: $T/$1.h5: "*"$3"*) ok ;; *) bad "$1.h5 --what $2: not one line naming the file with '$3': $out" ;; esac
  [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && ok || bad "$1.h5 --what $2: more than one line: $out"
  case "$out" in *Traceback*) bad "$1.h5: a Python traceback: $out" ;; *) ok ;; esac
  [ -e "$T/m.png" ] && { bad "$1.h5: an image was written"; rm -f "$T/m.png"; } || ok
}
malformed group utilization "timeseries/cluster"
malformed matrix queue "timeseries/cluster"
malformed strcol jct-cdf "jobs/submit"
malformed nocol jct-cdf "'end'"
malformed gpus utilization "gpus: attribute"

# SIGTERM to wanka plot ends its python (here a stand-in that sleeps); after
# SIGKILL the kernel ends it (PR_SET_PDEATHSIG)
cat > "$T/fakepy" <<'SH'
#!/bin/sh
echo $$ > "$PLOT_PID_FILE"
exec sleep 60
SH
chmod +x "$T/fakepy"
alive() { [ -r /proc/$1/status ] && ! grep -q '^State:.*Z' /proc/$1/status; }
for sig in TERM KILL; do
  rm -f "$T/pid"
  PLOT_PID_FILE=$T/pid WANKA_PYTHON=$T/fakepy "$W" plot "$T/a.h5" -o "$T/s.png" --what queue 2>"$T/sig.err" &
  wp=$!
  n=0; while [ ! -s "$T/pid" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
  cp=$(cat "$T/pid" 2>/dev/null)
  kill -$sig $wp; wait $wp; st=$?
  sleep 0.5
  if [ -z "$cp" ]; then bad "SIG$sig: the plot process never started"; continue; fi
  alive "$cp" && { bad "SIG$sig: wanka plot's child $cp still runs"; kill "$cp"; } || ok
  if [ $sig = TERM ]; then
    [ "$st" = 143 ] && ok || bad "SIGTERM: status $st, want 143"
    grep -q "interrupted by SIGTERM" "$T/sig.err" && ok || bad "SIGTERM: no message: $(cat "$T/sig.err")"
  fi
done

expect 0 "--what WHAT" "$W" help plot
expect 0 "jct-cdf" "$W" plot --help

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
