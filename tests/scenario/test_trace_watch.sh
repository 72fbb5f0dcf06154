#!/bin/sh
# test_trace_watch.sh — a trace the HDF5 library loops on (found by fuzzing:
# a crafted global heap read while checking a string attribute) ends with
# status 2 and a message naming the file, not a hang; a FIFO given as a
# trace is refused without blocking. The loops are in variable-length
# string reads, which wanka refuses by type unless WANKA_TRACE_VLEN=1 says
# the file is trusted: refused at once by default, and ended by the open
# watch when trusted.
# usage: test_trace_watch.sh WANKA SRCROOT
set -u
W=$1
SRC=$2
NAME=trace-watch
. "$SRC/tests/scenario/lib.sh"

H="$SRC/tests/fuzz/hang-trace-attr.h5"
H2="$SRC/tests/fuzz/hang-trace-open-2.h5"
for h in "$H" "$H2"; do
  WANKA_TRACE_OPEN_LIMIT=1 expect 2 "$h: schema_version: attribute is a variable-length string" timeout 60 "$W" compare "$h"
done
export WANKA_TRACE_VLEN=1
WANKA_TRACE_OPEN_LIMIT=1 expect 2 "$H: the HDF5 library did not finish opening this file in 1 s" timeout 60 "$W" compare "$H"
WANKA_TRACE_OPEN_LIMIT=1 expect 2 "$H: the HDF5 library did not finish" timeout 60 "$W" report paper-sci "$H" "$H"
# a second loop found by the trace fuzzer (20 s of CPU in the release build)
WANKA_TRACE_OPEN_LIMIT=1 expect 2 "$H2: the HDF5 library did not finish opening this file in 1 s" timeout 60 "$W" compare "$H2"
unset WANKA_TRACE_VLEN
mkfifo "$T/fifo" && expect 2 "$T/fifo: not a regular file" timeout 60 "$W" compare "$T/fifo"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
