#!/bin/sh
# test_mpi.sh — `mpirun -np 2 wanka sweep` (a dealer and a worker rank, dynamic work
# sharing, rank 0 gathering) gives the same index and traces, byte for
# byte, as a one-process sweep.   usage: test_mpi.sh WANKA SRCROOT
set -u
W=$1
SRC=$2
T=$(mktemp -d /tmp/wk-mpi-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
cat > "$T/sw.yaml" <<YAML
name: mpi-check
base: $SRC/scenarios/synthetic-384.yaml
set: {workload.jobs: 400}
schedulers: [fifo, sjf, backfill, las]
seeds: [1, 2, 3]
YAML
"$W" sweep "$T/sw.yaml" -j 1 -o "$T/one" -q > "$T/one.out" 2>&1 || { echo "FAIL: one-process sweep"; cat "$T/one.out"; exit 1; }
mpirun --allow-run-as-root --oversubscribe -np 2 "$W" sweep "$T/sw.yaml" -j 2 -o "$T/mpi" -q > "$T/mpi.out" 2>&1
st=$?
if [ $st = 0 ] && grep -q "MPI worker rank" "$T/mpi.out"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: mpirun sweep (status $st)"; cat "$T/mpi.out"; fi
for f in "$T"/one/*.h5; do
  if cmp -s "$f" "$T/mpi/$(basename "$f")"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $(basename "$f") differs between one process and MPI"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
