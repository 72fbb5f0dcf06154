#!/bin/sh
# test_determinism.sh — the same scenario and seed give byte-identical
# summaries: twice in a row; in two builds (the sanitizer build and the
# normal one, when WK_OTHER_WANKA names the other's wanka); and after a
# --set round-trip through `wanka validate --resolved` (the resolved text,
# run without the overrides, gives the run with them). Scenarios cover
# synthetic arrivals, failures with their random streams, model jobs on a
# shared fabric and a scheduler with its own RNG.
# usage: test_determinism.sh WANKA SRCROOT
set -u
W=$1
SRC=$2
T=$(mktemp -d /tmp/wk-determinism-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# A second build to compare with (.ci/run gives the normal build's wanka to
# the sanitizer build's run of this test); without one that part is skipped.
OTHER=${WK_OTHER_WANKA:-}
if [ -n "$OTHER" ] && [ ! -x "$OTHER" ]; then
  bad "WK_OTHER_WANKA=$OTHER is not an executable"; OTHER=
fi
[ -z "$OTHER" ] && echo "note: WK_OTHER_WANKA not set: no comparison with a second build"

# A scenario with failures, checkpoints, model jobs and the sci scheduler.
cat > "$T/mixed.yaml" <<'YAML'
name: mixed
seed: 11
sim: {end: 20d, sample_interval: 1h}
cluster: {nodes: 32, gpus_per_node: 8, nodes_per_pod: 8, fabric: {kind: rail, radix: 64}}
failures:
  enabled: true
  nodes_per_rack: 4
  processes:
    - {kind: throttle, scope: gpu, mtbf: {dist: exponential, mean: 200d}, duration: 30m, clock: 0.7}
  incidents:
    - {at: 2d, kind: down, node: 3, duration: 8h}
checkpoint: {interval: young}
recovery: {mode: reschedule}
workload:
  source: synthetic
  jobs: 300
  interarrival: {dist: exponential, mean: 30m}
  duration: {dist: lognormal, median: 2h, sigma: 1}
  gpus:
    - {gpus: 8, weight: 2}
    - {gpus: 32, weight: 1, model: {base: llama3-8b, tp: 2}, iterations: 2000}
scheduler: {name: sci}
YAML

# same NAME A B: the two summaries are byte-identical
same() {
  if cmp -s "$2" "$3"; then ok; else
    bad "$1: summaries differ"; diff "$2" "$3" | head -n 6 | cut -c 1-300; fi
}

i=0
check() {
  s=$1; shift
  i=$((i + 1))
  run="$W run $s --json --no-trace -q"
  $run "$@" > "$T/a$i.json" 2> "$T/err" || { bad "$s $*: $(cat "$T/err")"; return; }
  $run "$@" > "$T/b$i.json" 2>&1
  same "$(basename "$s") $* twice" "$T/a$i.json" "$T/b$i.json"
  if [ -n "$OTHER" ]; then
    "$OTHER" run "$s" --json --no-trace -q "$@" > "$T/c$i.json" 2>&1
    same "$(basename "$s") $* in $W and $OTHER" "$T/a$i.json" "$T/c$i.json"
  fi
  # --set round-trip: validate --resolved, then run the resolved text alone
  sets=
  seed=
  while [ $# -gt 0 ]; do
    case "$1" in
      --set) sets="$sets --set $2"; shift 2 ;;
      --seed) seed="--seed $2"; shift 2 ;;
      *) shift ;;
    esac
  done
  # shellcheck disable=SC2086
  if "$W" validate "$s" --resolved $sets > "$T/r$i.yaml" 2> "$T/err"; then
    # shellcheck disable=SC2086
    "$W" run "$T/r$i.yaml" --json --no-trace -q $seed > "$T/d$i.json" 2>&1
    same "$(basename "$s")$sets via validate --resolved" "$T/a$i.json" "$T/d$i.json"
  else
    bad "validate --resolved $s$sets: $(cat "$T/err")"
  fi
}

check "$SRC/scenarios/synthetic-384.yaml"
check "$SRC/scenarios/synthetic-384.yaml" --seed 7 --set cluster.nodes=32 --set workload.jobs=1500
check "$SRC/scenarios/throttle-rack3.yaml" --set sim.end=2d
check "$SRC/scenarios/hetero-mix.yaml" --set sim.end=10d --set workload.jobs=2000
check "$T/mixed.yaml"
check "$T/mixed.yaml" --set recovery.mode=spares --set recovery.spare_nodes=2 --set scheduler.name=backfill

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
