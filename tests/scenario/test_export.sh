#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_export.sh WANKA SRCDIR PYTHON3 — `wanka export`: a Chrome trace-event
# file that follows the format's rules and matches the trace
# (check_chrome_trace.py), the checker failing on files that break them, CSV
# files equal to the trace (check_export_csv.py), parquet refused, and bad
# input exiting 2 with no output file left behind.
W=$1 SRC=$2 PY=$3
NAME=export
. "$SRC/tests/scenario/lib.sh"
CHK="$SRC/tests/scenario/check_chrome_trace.py"

expect 0 "" "$W" run "$SRC/tests/scenario/export-failures.yaml" -q -o "$T/run.h5"

# ---- chrome ----
expect 0 "wrote $T/run.json" "$W" export "$T/run.h5" --format chrome -o "$T/run.json"
expect 0 "incident slices match the trace" "$PY" "$CHK" "$T/run.json" "$T/run.h5"
expect 0 "" "$PY" -m json.tool "$T/run.json"
# hardware tracks per node hit; per pod past --max-tracks; per class past it again
expect 0 "hardware per pod" "$W" export "$T/run.h5" -f chrome -o "$T/pod.json" --max-tracks 8
expect 0 "match the trace" "$PY" "$CHK" "$T/pod.json" "$T/run.h5"
expect 0 "hardware per failure class" "$W" export "$T/run.h5" -f chrome -o "$T/agg.json" --max-tracks 1
expect 0 "match the trace" "$PY" "$CHK" "$T/agg.json" "$T/run.h5"
# a scenario that cannot be rebuilt from the trace: a track per component, and a note
cp "$T/run.h5" "$T/noclu.h5"
"$PY" -c 'import h5py, sys, numpy as np; f = h5py.File(sys.argv[1], "r+"); s = b"include: [elsewhere.yaml]\n"; f.attrs["scenario"] = np.bytes_(s)' "$T/noclu.h5"
expect 0 "could not be rebuilt" "$W" export "$T/noclu.h5" -f chrome -o "$T/comp.json"
expect 0 "match the trace" "$PY" "$CHK" "$T/comp.json" "$T/noclu.h5"
"$PY" - "$T/run.json" "$T/pod.json" "$T/agg.json" "$T/comp.json" <<'EOF' && ok || bad "hardware tracks per node, pod, class, component"
import json, sys
def hw(p):
    ev = json.load(open(p))["traceEvents"]
    pid = [e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name" and e["args"]["name"] == "hardware"][0]
    return [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == pid]
node, pod, agg, comp = (hw(p) for p in sys.argv[1:])
# export-failures.yaml: GPU failures (placed on their node) and scripted events (unknown scope: per component)
assert any(n.startswith("node ") for n in node) and any(n.startswith("event 17") for n in node), node
assert not any(n.startswith(("pod", "gpu")) or "(all)" in n for n in node), node
assert any(n.startswith("pod ") for n in pod) and any(n.startswith("event (all)") for n in pod), pod
assert not any(n.startswith("node") for n in pod), pod
assert all("(all)" in n for n in agg) and len(agg) < len(node), agg
assert any(n.startswith("gpu ") for n in comp) and not any(n.startswith(("node", "pod")) for n in comp), comp
EOF
# the checker fails on what breaks the format's rules
"$PY" - "$T" <<'EOF'
import json, sys
base = {"traceEvents": [
    {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "p"}},
    {"name": "thread_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "t"}}]}
bad = {
    "no-end": [{"name": "a", "ph": "B", "pid": 1, "tid": 0, "ts": 1}],
    "end-first": [{"name": "a", "ph": "B", "pid": 1, "tid": 0, "ts": 5}, {"ph": "E", "pid": 1, "tid": 0, "ts": 4}],
    "e-alone": [{"ph": "E", "pid": 1, "tid": 0, "ts": 4}],
    "back": [{"name": "a", "ph": "B", "pid": 1, "tid": 0, "ts": 5}, {"ph": "E", "pid": 1, "tid": 0, "ts": 6},
             {"name": "b", "ph": "B", "pid": 1, "tid": 0, "ts": 3}, {"ph": "E", "pid": 1, "tid": 0, "ts": 7}],
    "overlap": [{"name": "a", "ph": "X", "pid": 1, "tid": 0, "ts": 0, "dur": 10},
                {"name": "b", "ph": "X", "pid": 1, "tid": 0, "ts": 5, "dur": 10}],
    "string-ts": [{"name": "a", "ph": "X", "pid": 1, "tid": 0, "ts": "5", "dur": 1}],
    "no-dur": [{"name": "a", "ph": "X", "pid": 1, "tid": 0, "ts": 5}],
    "unnamed-thread": [{"name": "a", "ph": "X", "pid": 1, "tid": 9, "ts": 5, "dur": 1}],
    "bad-scope": [{"name": "a", "ph": "i", "pid": 1, "tid": 0, "ts": 5, "s": "x"}],
}
for k, extra in bad.items():
    json.dump({"traceEvents": base["traceEvents"] + extra}, open("%s/bad-%s.json" % (sys.argv[1], k), "w"))
json.dump({"traceEvents": base["traceEvents"] + [
    {"name": "a", "ph": "B", "pid": 1, "tid": 0, "ts": 1}, {"ph": "E", "pid": 1, "tid": 0, "ts": 3},
    {"name": "a", "ph": "X", "pid": 1, "tid": 0, "ts": 4, "dur": 10},
    {"name": "b", "ph": "X", "pid": 1, "tid": 0, "ts": 5, "dur": 2}]}, open(sys.argv[1] + "/good.json", "w"))
EOF
expect 0 "follow the format's rules" "$PY" "$CHK" "$T/good.json"
for k in no-end end-first e-alone back overlap string-ts no-dur unnamed-thread bad-scope; do
  expect 1 "check_chrome_trace:" "$PY" "$CHK" "$T/bad-$k.json"
done
printf '{"traceEvents": [' > "$T/bad-json.json"
expect 1 "not valid JSON" "$PY" "$CHK" "$T/bad-json.json"

# ---- csv ----
expect 0 "wrote 7 files" "$W" export "$T/run.h5" --format csv -o "$T/csv"
# an earlier export is not replaced without --force; an empty folder is fine
expect 2 "csv: holds CSV files of an earlier export; give --force" "$W" export "$T/run.h5" --format csv -o "$T/csv"
expect 0 "wrote 7 files" "$W" export "$T/run.h5" --format csv -o "$T/csv" --force
mkdir "$T/empty-csv"
expect 0 "wrote 7 files" "$W" export "$T/run.h5" --format csv -o "$T/empty-csv"
expect 0 "match" "$PY" "$SRC/tests/scenario/check_export_csv.py" "$T/csv" "$T/run.h5"
[ -z "$(ls "$T/csv" | grep -v '\.csv$')" ] && ok || bad "csv: a temporary file left: $(ls "$T/csv")"
[ ! -e "$T/csv/users.csv" ] && ok || bad "csv: users.csv without users"
# jobs with users: users.csv, one row per user, the summary's user.NAME.* rows
cat >"$T/users.yaml" <<'EOF'
name: users3
cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}
workload:
  source: inline
  jobs:
    - {submit: 0, gpus: 4, duration: 100s, user: a}
    - {submit: 0, gpus: 8, duration: 50s, user: a}
    - {submit: 10s, gpus: 2, duration: 5s, user: b-2}
scheduler: fifo
EOF
expect 0 "" "$W" run "$T/users.yaml" -q -o "$T/users.h5"
expect 0 "wrote 8 files" "$W" export "$T/users.h5" --format csv -o "$T/ucsv"
expect 0 "match" "$PY" "$SRC/tests/scenario/check_export_csv.py" "$T/ucsv" "$T/users.h5"
printf 'user,jobs,completed,gpu_h,wait_mean_s,bsld_mean,ftf\r\na,2,2,0.22222222222222221,50,2,1.25\r\nb-2,1,1,0.0027777777777777779,140,14.5,29\r\n' >"$T/users.want"
cmp -s "$T/users.want" "$T/ucsv/users.csv" && ok || bad "users.csv: $(cat "$T/ucsv/users.csv")"

# ---- parquet, bad input: exit 2, nothing written, older files untouched ----
expect 2 "Debian 12 packages no Parquet C library" "$W" export "$T/run.h5" --format parquet -o "$T/p"
[ ! -e "$T/p" ] && ok || bad "parquet: something written"
expect 2 "unknown format 'xml'" "$W" export "$T/run.h5" --format xml -o "$T/x"
expect 2 "missing --format" "$W" export "$T/run.h5" -o "$T/x"
expect 2 "missing -o OUT" "$W" export "$T/run.h5" --format chrome
expect 2 "--max-tracks 'x'" "$W" export "$T/run.h5" --format chrome -o "$T/x" --max-tracks x
expect 2 "--max-tracks applies to --format chrome" "$W" export "$T/run.h5" --format csv -o "$T/x" --max-tracks 3
expect 2 "no-such.h5" "$W" export "$T/no-such.h5" --format chrome -o "$T/x.json"
printf 'not hdf5\n' > "$T/junk.h5"
expect 2 "junk.h5" "$W" export "$T/junk.h5" --format csv -o "$T/xcsv"
[ ! -e "$T/x.json" ] && [ ! -e "$T/xcsv" ] && ok || bad "bad input left an output"
echo old > "$T/keep.json"
expect 2 "no-dir/run.json" "$W" export "$T/run.h5" --format chrome -o "$T/no-dir/run.json"
chmod 0555 "$T/csv" 2>/dev/null
if [ "$(id -u)" != 0 ]; then
  expect 2 "cannot create" "$W" export "$T/run.h5" --format chrome -o "$T/csv/x.json"
fi
chmod 0755 "$T/csv"
# a trace that cannot be read leaves an older output as it was
expect 2 "keep.json: exists; give --force to replace it" "$W" export "$T/run.h5" --format chrome -o "$T/keep.json"
[ "$(cat "$T/keep.json")" = old ] && ok || bad "a refused export changed keep.json"
expect 2 "junk.h5" "$W" export "$T/junk.h5" --format chrome -o "$T/keep.json" --force
[ "$(cat "$T/keep.json")" = old ] && ok || bad "an older output was changed on error"
[ -z "$(ls "$T" | grep '\.tmp\.')" ] && ok || bad "a temporary file left: $(ls "$T")"
# a trace the schema does not describe: an enum value without a name, a missing table
cp "$T/run.h5" "$T/badenum.h5"
"$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r+")
a = f["jobs"][:]
a["status"][0] = 9
f["jobs"][...] = a
' "$T/badenum.h5"
expect 2 "badenum.h5: jobs/status: row 0: value 9 is none of the enum's values" "$W" export "$T/badenum.h5" --format csv -o "$T/be"
expect 2 "jobs/status: row 0: value 9 is none of" "$W" export "$T/badenum.h5" --format chrome -o "$T/be.json"
cp "$T/run.h5" "$T/far.h5"
"$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r+")
a = f["jobs"][:]
a["start"][0] = 2**63 - 1
f["jobs"][...] = a
' "$T/far.h5"
expect 2 "jobs.start row 0: 9223372036854775807 is out of range" "$W" export "$T/far.h5" --format chrome -o "$T/far.json"
expect 0 "wrote 7 files" "$W" export "$T/far.h5" --format csv -o "$T/farcsv"
grep -q "^0,[0-9]*,9223372036854775807," "$T/farcsv/jobs.csv" && ok || bad "csv: an int64 time not written exactly"
cp "$T/run.h5" "$T/nots.h5"
"$PY" -c 'import h5py, sys, numpy as np; f = h5py.File(sys.argv[1], "r+"); del f["timeseries/cluster"]' "$T/nots.h5"
expect 2 "no table 'timeseries/cluster'" "$W" export "$T/nots.h5" --format chrome -o "$T/nots.json"
[ ! -e "$T/be.json" ] && [ ! -e "$T/nots.json" ] && [ ! -e "$T/far.json" ] && [ -z "$(ls "$T/be" 2>/dev/null)" ] && ok || bad "a broken trace left an output"
printf 'x' > "$T/file"
expect 2 "not a directory" "$W" export "$T/run.h5" --format csv -o "$T/file"
expect 0 "wanka export run.h5 --format chrome -o run.json" "$W" export --help


# ---- compare and report --format: text is the default, byte for byte ----
expect 0 "" "$W" run "$SRC/tests/scenario/export-failures.yaml" -q -o "$T/fifo.h5" --scheduler fifo
"$W" compare "$T/fifo.h5" "$T/run.h5" > "$T/c-default.txt"
"$W" compare "$T/fifo.h5" "$T/run.h5" --format text > "$T/c-text.txt"
cmp -s "$T/c-default.txt" "$T/c-text.txt" && ok || bad "compare --format text differs from the default"
"$W" compare "$T/fifo.h5" "$T/run.h5" --markdown > "$T/c-md0.txt"
"$W" compare "$T/fifo.h5" "$T/run.h5" --format markdown > "$T/c-md.txt"
cmp -s "$T/c-md0.txt" "$T/c-md.txt" && ok || bad "compare --format markdown differs from --markdown"
expect 0 "Effective utilization" "$W" compare "$T/fifo.h5" "$T/run.h5" --format latex --metrics all
# the narrow default in tables, every metric in CSV and JSON; --metrics picks rows in order
"$W" compare "$T/fifo.h5" "$T/run.h5" > "$T/c-narrow.txt"
grep -q "^jct_mean_s " "$T/c-narrow.txt" && ! grep -q "^gpus " "$T/c-narrow.txt" && ok || bad "the default table is not the narrow set: $(cat "$T/c-narrow.txt")"
expect 0 "gpus," "$W" compare "$T/fifo.h5" "$T/run.h5" --format csv
expect 0 "gpus " "$W" compare "$T/fifo.h5" "$T/run.h5" --metrics all
[ "$("$W" compare "$T/fifo.h5" "$T/run.h5" --metrics gpus,jct_mean_s --csv | cut -d, -f1 | tr -d '\r' | tr '\n' ' ')" = "metric gpus jct_mean_s " ] \
  && ok || bad "--metrics gpus,jct_mean_s: other rows or order"
expect 2 "--metrics: no trace has the metric 'jct_p42_s'" "$W" compare "$T/fifo.h5" --metrics jct_p42_s
# --baseline: its column first, changes against it; added when not among the traces
expect 0 "relative to the first column, sci/1" "$W" compare "$T/fifo.h5" "$T/run.h5" --baseline "$T/run.h5"
expect 0 "relative to the first column, sci/1" "$W" compare "$T/fifo.h5" --baseline "$T/run.h5"
expect 2 "--baseline needs a trace" "$W" compare "$T/fifo.h5" --baseline=''
# a trace against itself: no change, never float noise
expect 0 "0.0 %" "$W" compare "$T/fifo.h5" "$T/fifo.h5" --no-group
expect 0 "\bottomrule" "$W" compare "$T/fifo.h5" "$T/run.h5" --format=latex
expect 0 "utilization," "$W" compare "$T/fifo.h5" "$T/run.h5" --format csv
expect 2 "unknown format 'html' (known: text, markdown, latex, csv, json)" "$W" compare "$T/run.h5" --format html
expect 2 "choose one of" "$W" compare "$T/run.h5" --format latex --json
"$W" report paper-sci "$T/fifo.h5" "$T/run.h5" > "$T/r-default.txt"
"$W" report paper-sci "$T/fifo.h5" "$T/run.h5" --format text > "$T/r-text.txt"
cmp -s "$T/r-default.txt" "$T/r-text.txt" && ok || bad "report --format text differs from the default"
expect 0 "\multicolumn{3}{c}{published}" "$W" report paper-sci "$T/fifo.h5" "$T/run.h5" --format latex
expect 0 "section,key,metric,kind," "$W" report paper-sci "$T/fifo.h5" "$T/run.h5" --format csv
expect 2 "run form: --format is text, markdown, latex or csv" "$W" report paper-sci --format html

echo "export: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
