#!/bin/sh
# test_plugin.sh — scheduler plugins: the example policy (largest-first,
# built from examples/ as a shared module against the public header) loads
# with --plugin and with a scenario's plugins: list, orders jobs as it says,
# is listed, and passes `wanka conformance`; broken plugins (tests/plugin/
# bad_plugins.c) are refused with exit 2 and a message naming the file; a
# plugin that breaks the contract fails conformance with exit 1.
# usage: test_plugin.sh WANKA SRCROOT PLUGINDIR
set -u
W=$1
SRC=$2
P=$3
NAME=plugin
. "$SRC/tests/scenario/lib.sh"
ulimit -c 0 2>/dev/null # the crashing test plugins leave no core files

LF="$P/largest_first.so"

# Four jobs on one 8-GPU node: while the first (8 GPUs) runs, 2-, 8- and
# 4-GPU jobs arrive. fifo starts the 2 at 10m, the 8 waits to 20m and blocks
# the 4 to 30m: makespan 40m. largest-first starts the 8 at 10m, then the 4
# and the 2 together at 20m: makespan 30m.
cat > "$T/order.yaml" <<'Y'
name: order
cluster: {nodes: 1, gpus_per_node: 8}
workload:
  source: inline
  jobs:
    - {submit: 0, gpus: 8, duration: 10m}
    - {submit: 1m, gpus: 2, duration: 10m}
    - {submit: 1m, gpus: 8, duration: 10m}
    - {submit: 1m, gpus: 4, duration: 10m}
Y
expect 0 '"makespan_s":2400' "$W" run "$T/order.yaml" --no-trace --json -q
expect 0 '"makespan_s":1800' "$W" run "$T/order.yaml" --no-trace --json -q --plugin "$LF" --scheduler largest-first
expect 0 '"scheduler":"largest-first"' "$W" run "$T/order.yaml" --no-trace --json -q --plugin "$LF" --scheduler largest-first
# a policy option it reads (skip) and one it refuses
expect 0 '"makespan_s":1800' "$W" run "$T/order.yaml" --no-trace --json -q --plugin "$LF" \
  --set 'scheduler={name: largest-first, skip: true}'
expect 2 "unknown key 'frob'" "$W" run "$T/order.yaml" --no-trace -q --plugin "$LF" \
  --set 'scheduler={name: largest-first, frob: 1}'
expect 2 "(policy 'largest-first' of scheduler plugin $LF)" "$W" run "$T/order.yaml" --no-trace -q --plugin "$LF" \
  --set 'scheduler={name: largest-first, skip: maybe}'
# without the plugin the name is unknown
expect 2 "unknown scheduler 'largest-first'" "$W" run "$T/order.yaml" --no-trace -q --scheduler largest-first

# plugins: in the scenario, relative to the scenario's folder, run from elsewhere
mkdir -p "$T/sc/lib" "$T/elsewhere"
cp "$LF" "$T/sc/lib/lf.so"
{ cat "$T/order.yaml"; echo "plugins: [lib/lf.so]"; echo "scheduler: largest-first"; } > "$T/sc/with.yaml"
(cd "$T/elsewhere" && expect 0 '"makespan_s":1800' "$W" run ../sc/with.yaml --no-trace --json -q
 echo "$pass $fail" > "$T/counts")
read sp sf < "$T/counts"; pass=$sp; fail=$sf
expect 0 "scheduler largest-first" "$W" validate "$T/sc/with.yaml"
# the same object twice (scenario and --plugin) is one policy
expect 0 '"makespan_s":1800' "$W" run "$T/sc/with.yaml" --no-trace --json -q --plugin "$T/sc/lib/lf.so"
# a missing file in plugins: is positioned in the scenario and named
{ cat "$T/order.yaml"; echo "plugins: [lib/missing.so]"; } > "$T/sc/missing.yaml"
expect 2 "$T/nowhere.so: scheduler plugin: cannot load" "$W" validate "$T/sc/with.yaml" --plugin "$T/nowhere.so"
expect 2 "missing.yaml:10:11: plugins[0]: scheduler plugin $T/sc/lib/missing.so: cannot load" "$W" validate "$T/sc/missing.yaml"
expect 2 "lib/missing.so" "$W" run "$T/sc/missing.yaml" -q -o "$T/sc/missing.h5"
[ ! -e "$T/sc/missing.h5" ] && ok || bad "a trace was left behind by a failed plugin load"
{ cat "$T/order.yaml"; echo "plugins: lib/lf.so"; } > "$T/sc/notlist.yaml"
expect 2 "expected a list of shared-object paths" "$W" validate "$T/sc/notlist.yaml"

# a sweep whose base scenario lists plugins: loads them for every point
printf 'base: with.yaml\nseeds: [1, 2]\n' > "$T/sc/sweep.yaml"
expect 0 "2 points, 2 ok, 0 failed" "$W" sweep "$T/sc/sweep.yaml" -o "$T/sweep-out" -q -j 2
# and its policy is a value of the schedulers: axis, beside built-ins
printf 'base: with.yaml\nschedulers: [fifo, largest-first]\n' > "$T/sc/sweep2.yaml"
printf 'base: with.yaml\nschedulers: [largest-first, nope]\n' > "$T/sc/sweep3.yaml"
expect 0 "2 points, 2 ok, 0 failed" "$W" sweep "$T/sc/sweep2.yaml" -o "$T/sweep2-out" -q -j 2
expect 0 '"name":"makespan_s","values":[2400,1800]' "$W" compare "$T/sweep2-out/sweep.h5" --json
expect 2 "unknown scheduler 'nope' (known: fifo," "$W" validate "$T/sc/sweep3.yaml"

# listing
expect 0 "largest-first" "$W" list schedulers --plugin "$LF"
expect 0 "(plugin $LF)" "$W" list schedulers --plugin "$LF"
expect 0 "fifo" "$W" list schedulers --plugin "$LF"
expect 2 "--plugin goes with: list schedulers" "$W" list skus --plugin "$LF"

# conformance: the example passes every check; a contract breaker fails
expect 0 "conformance PLUGIN.so" "$W" help
expect 0 "usage: wanka conformance PLUGIN.so|POLICY.py|NAME" "$W" help conformance
expect 2 "missing PLUGIN.so or a policy name" "$W" conformance
expect 0 "7 passed, 0 failed" "$W" conformance "$LF"
expect 0 "pass  conservation" "$W" conformance "$LF"
expect 0 "7 passed, 0 failed" "$W" conformance fifo
expect 1 "FAIL  outcome" "$W" conformance "$P/bad_reject.so"
expect 1 "rejected (test plugin) but it fits" "$W" conformance "$P/bad_reject.so"
expect 2 "its policy is 'largest-first', not 'x'" "$W" conformance "$LF" --policy x

# load errors: exit 2, the file named, for run, validate, list and conformance
echo "not an ELF file" > "$T/text.so"
for cmd in run validate; do
  expect 2 "$T/nowhere.so: scheduler plugin: cannot load" "$W" $cmd "$T/order.yaml" -q --no-trace --plugin "$T/nowhere.so"
  expect 2 "No such file" "$W" $cmd "$T/order.yaml" -q --no-trace --plugin "$T/nowhere.so"
done
expect 2 "$T/text.so: scheduler plugin: cannot load" "$W" run "$T/order.yaml" -q --no-trace --plugin "$T/text.so"
expect 2 "$T/text.so: scheduler plugin: cannot load" "$W" conformance "$T/text.so"
expect 2 "$T/nowhere.so" "$W" list schedulers --plugin "$T/nowhere.so"
expect 2 "ABI 99, this wanka speaks ABI 1" "$W" run "$T/order.yaml" -q --no-trace --plugin "$P/bad_abi.so"
expect 2 "$P/bad_abi.so: scheduler plugin: ABI 99" "$W" conformance "$P/bad_abi.so"
expect 2 "$P/bad_nosym.so: scheduler plugin: no symbol 'wk_sched_plugin'" "$W" run "$T/order.yaml" -q --no-trace --plugin "$P/bad_nosym.so"
expect 2 "$P/bad_noname.so: scheduler plugin: its WkSchedOps has no name" "$W" conformance "$P/bad_noname.so"
expect 2 "its WkSchedOps has no on_release" "$W" run "$T/order.yaml" -q --no-trace --plugin "$P/bad_nocallback.so"
expect 2 "wk_sched_plugin() returned NULL" "$W" list schedulers --plugin "$P/bad_nullops.so"
expect 2 "policy 'fifo' has the name of a built-in scheduler" "$W" run "$T/order.yaml" -q --no-trace --plugin "$P/bad_clash.so"
cp "$LF" "$T/lf2.so"
expect 2 "policy 'largest-first' is also the name of plugin $LF" "$W" list schedulers --plugin "$LF" --plugin "$T/lf2.so"
# init returning an error: run and conformance say so, naming the file
expect 2 "$P/bad_initerr.so: scheduler plugin: init of policy 'bad-initerr' failed: this policy refuses to start" \
  "$W" run "$T/order.yaml" -q -o "$T/initerr.h5" --plugin "$P/bad_initerr.so" --scheduler bad-initerr
[ ! -e "$T/initerr.h5" ] && ok || bad "a trace was left behind by a failing init"
expect 2 "init of policy 'bad-initerr' failed" "$W" conformance "$P/bad_initerr.so"
# init crashing: conformance tries init in a child and reports it (under
# AddressSanitizer, let the segfault be a signal rather than its report)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0"
export ASAN_OPTIONS
expect 2 "$P/bad_crash.so: scheduler plugin: init of policy 'bad-crash' crashed (signal 11: Segmentation fault) in init" "$W" conformance "$P/bad_crash.so"
# a callback crashing during the checks: each check's child dies, each is a
# FAIL naming the signal, and conformance itself finishes with exit 1
expect 1 "FAIL  allocation    crashed (signal 11: Segmentation fault) in on_submit" "$W" conformance "$P/bad_crashrun.so"
expect 1 "0 passed, 7 failed" "$W" conformance "$P/bad_crashrun.so"
# a policy that never returns: each check has a wall-clock limit
# (--timeout, WANKA_CONFORM_TIMEOUT); the message names the callback that
# was running. Looping in init is exit 2 like a failing init; looping in a
# callback fails each check that gets there, and conformance finishes.
expect 2 "$P/bad_loopinit.so: scheduler plugin: init of policy 'bad-loopinit' timed out after 0.3 s in init" \
  "$W" conformance "$P/bad_loopinit.so" --timeout 0.3
expect 1 "FAIL  allocation    timed out after 0.3 s in on_submit" "$W" conformance "$P/bad_loopsubmit.so" --timeout 0.3
expect 1 "0 passed, 7 failed" env WANKA_CONFORM_TIMEOUT=0.3 "$W" conformance "$P/bad_loopsubmit.so"
expect 2 "--timeout 'soon': not a number of seconds" "$W" conformance fifo --timeout soon
expect 2 "--timeout '-1': not a number of seconds" "$W" conformance fifo --timeout -1
expect 2 "WANKA_CONFORM_TIMEOUT 'x': not a number" env WANKA_CONFORM_TIMEOUT=x "$W" conformance fifo
expect 0 "7 passed, 0 failed" "$W" conformance fifo --timeout 0
# a policy that ends the process (exit(0)) is no pass: init is exit 2, a
# callback fails each check that reaches it
expect 2 "init of policy 'bad-exitinit' ended the process (exit status 0) before the check finished" \
  "$W" conformance "$P/bad_exitinit.so"
expect 1 "FAIL  allocation    ended the process (exit status 0) before the check finished" "$W" conformance "$P/bad_exitsubmit.so"
# a FIFO as a plugin: refused at once, never a dlopen blocked on it
mkfifo "$T/fifo.so"
expect 2 "fifo.so: scheduler plugin: cannot load: not a regular file (a FIFO)" "$W" conformance "$T/fifo.so"
# a policy name that is not letters, digits, - _ . (here an escape sequence): refused at load
expect 2 "bad_escname.so: scheduler plugin: its policy name is not 1-64 letters" "$W" conformance "$P/bad_escname.so"
# a policy that starts a job twice: the run stops naming the job's state
expect 1 "scheduler bad-dblstart: start of job 0, which is already running (only a waiting job can be started)" \
  "$W" run "$T/order.yaml" -q --no-trace --plugin "$P/bad_dblstart.so" --scheduler bad-dblstart
# `wanka run` loads the policy into its own process (docs/writing-a-scheduler.md):
# a crashing init ends it by the signal, with no trace written
sh -c 'ulimit -c 0; exec "$@" >/dev/null 2>&1' sh "$W" run "$T/order.yaml" -q -o "$T/crash.h5" \
  --plugin "$P/bad_crash.so" --scheduler bad-crash 2>/dev/null
st=$?
[ "$st" -gt 128 ] && ok || bad "run with a crashing init: status $st, want death by signal"
[ ! -e "$T/crash.h5" ] && ok || bad "a trace was left behind by a crashing init"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
