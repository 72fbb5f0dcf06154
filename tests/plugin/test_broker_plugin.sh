#!/bin/sh
# test_broker_plugin.sh — broker plugins: the example broker (cheapest-idle,
# built from examples/ as a shared module against the public header) loads
# with --broker-plugin and with a scenario's broker: {plugin: ...}, sends
# jobs where it says in a two-site network, is listed, and passes `wanka
# conformance --broker`; broken brokers (tests/plugin/bad_brokers.c) are
# refused with exit 2 and a message naming the file; a broker that breaks
# the contract fails conformance with exit 1 and stops a run naming the file.
# usage: test_broker_plugin.sh WANKA SRCROOT PLUGINDIR
set -u
W=$1
SRC=$2
P=$3
NAME=broker-plugin
. "$SRC/tests/scenario/lib.sh"
ulimit -c 0 2>/dev/null # the crashing test plugin leaves no core files

CI="$P/cheapest_idle.so"

# Two idle 8-GPU sites, one dear and one cheap; three 8-GPU jobs of 1 h at
# 0, 1m and 2m. energy-price sends all three to the cheap site (within its
# 6 h slack): they run one after another, makespan 3 h. cheapest-idle
# sends the first to the cheap site (both start it now), the second to the
# dear one (the only site where it starts now), the third to the smaller
# backlog (cheap: 58 min left against 59): makespan 2 h.
mkdir -p "$T/sc/lib" "$T/elsewhere"
printf 'time,price_per_mwh,gco2_per_kwh\n0h,200,500\n1h,200,500\n' > "$T/sc/dear.csv"
printf 'time,price_per_mwh,gco2_per_kwh\n0h,40,100\n1h,40,100\n' > "$T/sc/cheap.csv"
cat > "$T/sc/net.yaml" <<'Y'
name: two-sites
sites:
  - name: dear
    cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}
    facility: {prices: dear.csv, prices_repeat: true}
  - name: cheap
    cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}
    facility: {prices: cheap.csv, prices_repeat: true}
wan: {default: {bandwidth: 100Gbps, latency: 10ms}}
workload:
  source: inline
  jobs:
    - {submit: 0, gpus: 8, duration: 1h}
    - {submit: 1m, gpus: 8, duration: 1h}
    - {submit: 2m, gpus: 8, duration: 1h}
scheduler: fifo
broker: energy-price
Y
N="$T/sc/net.yaml"
expect 0 '"makespan_s":10800' "$W" run "$N" --no-trace --json -q
expect 0 '"site.cheap.jobs":3' "$W" run "$N" --no-trace --json -q
expect 0 '"makespan_s":7200' "$W" run "$N" --no-trace --json -q --broker-plugin "$CI" --broker cheapest-idle
expect 0 '"site.dear.jobs":1' "$W" run "$N" --no-trace --json -q --broker-plugin "$CI" --broker cheapest-idle
expect 0 '"scheduler":"cheapest-idle"' "$W" run "$N" --no-trace --json -q --broker-plugin "$CI" --broker cheapest-idle
# loaded but not named: the scenario's broker runs
expect 0 '"makespan_s":10800' "$W" run "$N" --no-trace --json -q --broker-plugin "$CI"
# without the plugin the name is unknown; with it, it joins the known names
expect 2 "unknown broker 'cheapest-idle'" "$W" run "$N" --no-trace -q --broker cheapest-idle
expect 2 "unknown broker 'nope' (known: round-robin, least-loaded, fastest-finish, energy-price, low-carbon, data-locality, cheapest-idle)" \
  "$W" validate "$N" --broker-plugin "$CI" --broker nope
# its own key: max_transfer: 0 still starts now (no dataset moves here); a key it refuses
expect 0 '"makespan_s":7200' "$W" run "$N" --no-trace --json -q --broker-plugin "$CI" \
  --set 'broker={name: cheapest-idle, max_transfer: 0}'
expect 2 "unknown key 'frob'" "$W" run "$N" --no-trace -q --broker-plugin "$CI" \
  --set 'broker={name: cheapest-idle, frob: 1}'
expect 2 "(broker 'cheapest-idle' of broker plugin $CI)" "$W" run "$N" --no-trace -q --broker-plugin "$CI" \
  --set 'broker={name: cheapest-idle, max_transfer: soon}'

# broker: {plugin: ...} in the scenario, relative to the scenario's folder,
# run from elsewhere; the plugin's broker is the default name
cp "$CI" "$T/sc/lib/ci.so"
sed 's|^broker: energy-price$|broker: {plugin: lib/ci.so}|' "$N" > "$T/sc/with.yaml"
sed 's|^broker: energy-price$|broker: {plugin: lib/ci.so, max_transfer: 10m}|' "$N" > "$T/sc/withkey.yaml"
(cd "$T/elsewhere" && expect 0 '"makespan_s":7200' "$W" run ../sc/with.yaml --no-trace --json -q
 echo "$pass $fail" > "$T/counts")
read sp sf < "$T/counts"; pass=$sp; fail=$sf
expect 0 "broker cheapest-idle" "$W" validate "$T/sc/with.yaml"
expect 0 '"makespan_s":7200' "$W" run "$T/sc/withkey.yaml" --no-trace --json -q
# the map's keys are the named broker's: energy-price has no max_transfer
expect 2 "withkey.yaml:17:29: broker.max_transfer: unknown key 'max_transfer'" "$W" validate "$T/sc/withkey.yaml" \
  --broker energy-price
# the same object twice (scenario and --broker-plugin) is one broker
expect 0 '"makespan_s":7200' "$W" run "$T/sc/with.yaml" --no-trace --json -q --broker-plugin "$T/sc/lib/ci.so"
# --broker names a built-in over the scenario's plugin
expect 0 '"makespan_s":10800' "$W" run "$T/sc/with.yaml" --no-trace --json -q --broker energy-price
# a missing file in the scenario is positioned there and named
sed 's|^broker: energy-price$|broker: {name: cheapest-idle, plugin: lib/missing.so}|' "$N" > "$T/sc/missing.yaml"
expect 2 "missing.yaml:17:39: broker.plugin: broker plugin $T/sc/lib/missing.so: cannot load" "$W" validate "$T/sc/missing.yaml"
expect 2 "lib/missing.so" "$W" run "$T/sc/missing.yaml" -q -o "$T/sc/missing.h5"
[ ! -e "$T/sc/missing.h5" ] && ok || bad "a trace was left behind by a failed broker plugin load"
sed 's|^broker: energy-price$|broker: {plugin: ""}|' "$N" > "$T/sc/empty.yaml"
expect 2 "expected a shared-object path" "$W" validate "$T/sc/empty.yaml"
sed 's|^broker: energy-price$|broker: {slack: 1h}|' "$N" > "$T/sc/noname.yaml"
expect 2 "name" "$W" validate "$T/sc/noname.yaml"

# listing
expect 0 "cheapest-idle" "$W" list brokers --broker-plugin "$CI"
expect 0 "(plugin $CI)" "$W" list brokers --broker-plugin "$CI"
expect 0 "least-loaded" "$W" list brokers --broker-plugin "$CI"
expect 2 "--broker-plugin goes with: list brokers" "$W" list skus --broker-plugin "$CI"

# conformance: the example and every built-in pass; contract breakers fail
expect 0 "conformance --broker PLUGIN.so|NAME" "$W" help conformance
expect 0 "4 passed, 0 failed" "$W" conformance --broker "$CI"
expect 0 "conformance of broker 'cheapest-idle' (plugin $CI)" "$W" conformance --broker "$CI"
for b in round-robin least-loaded fastest-finish energy-price low-carbon data-locality; do
  expect 0 "4 passed, 0 failed" "$W" conformance --broker "$b"
done
expect 1 "FAIL  choice" "$W" conformance --broker "$P/bad_broker_infeasible.so"
expect 1 "broker 'bad-infeasible' chose site 0 for job" "$W" conformance --broker "$P/bad_broker_infeasible.so"
expect 1 "FAIL  init" "$W" conformance --broker "$P/bad_broker_initerr.so"
expect 2 "--broker checks one broker" "$W" conformance --broker "$CI" fifo
# a run stops at the broker's first bad choice, naming its file: the dear
# site has 4 GPUs, too few for the first job
sed 's|^    cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 8}$|    cluster: {sku: H100-SXM-80G, nodes: 1, gpus_per_node: 4}|' "$N" \
  | sed '/name: cheap/,$ s|gpus_per_node: 4|gpus_per_node: 8|' > "$T/sc/small.yaml"
expect 0 "2 sites, 12 GPUs" "$W" validate "$T/sc/small.yaml"
expect 1 "$P/bad_broker_infeasible.so: broker plugin: broker 'bad-infeasible' chose site 0 for job 0" \
  "$W" run "$T/sc/small.yaml" -q -o "$T/small.h5" --broker-plugin "$P/bad_broker_infeasible.so" --broker bad-infeasible
[ ! -e "$T/small.h5" ] && ok || bad "a trace was left behind by a broker's bad choice"

# load errors: exit 2, the file named, for run, validate, list and conformance
echo "not an ELF file" > "$T/text.so"
for cmd in run validate; do
  expect 2 "$T/nowhere.so: broker plugin: cannot load" "$W" $cmd "$N" -q --no-trace --broker-plugin "$T/nowhere.so"
done
expect 2 "$T/text.so: broker plugin: cannot load" "$W" conformance --broker "$T/text.so"
expect 2 "$T/nowhere.so" "$W" list brokers --broker-plugin "$T/nowhere.so"
expect 2 "$P/bad_broker_abi.so: broker plugin: ABI 99, this wanka speaks ABI 1" "$W" run "$N" -q --no-trace \
  --broker-plugin "$P/bad_broker_abi.so"
expect 2 "$P/bad_broker_abi.so: broker plugin: ABI 99" "$W" conformance --broker "$P/bad_broker_abi.so"
expect 2 "$P/bad_broker_nosym.so: broker plugin: no symbol 'wk_broker_plugin'" "$W" validate "$N" \
  --broker-plugin "$P/bad_broker_nosym.so"
expect 2 "$P/bad_broker_nochoose.so: broker plugin: its WkBrokerOps has no choose" "$W" list brokers \
  --broker-plugin "$P/bad_broker_nochoose.so"
expect 2 "broker 'least-loaded' has the name of a built-in broker" "$W" run "$N" -q --no-trace \
  --broker-plugin "$P/bad_broker_clash.so"
# a broker name that is not letters, digits, - _ . (here an escape
# sequence): refused at load, by conformance, list and run alike
for cmd in "conformance --broker" "list brokers --broker-plugin"; do
  expect 2 "bad_broker_escname.so: broker plugin: its broker name is not 1-64 letters" $W $cmd "$P/bad_broker_escname.so"
done
expect 2 "bad_broker_escname.so: broker plugin: its broker name is not 1-64 letters" "$W" run "$N" -q --no-trace \
  --broker-plugin "$P/bad_broker_escname.so"
# a plugin's path is printed escaped: no control character of it reaches the terminal
ESCP=$(printf '%s/e\033[2Jx.so' "$T")
cp "$CI" "$ESCP"
expect 0 'e\e[2Jx.so): 4 checks' "$W" conformance --broker "$ESCP"
out=$("$W" conformance --broker "$ESCP" 2>&1)
case "$out" in *"$(printf '\033')"*) bad "conformance printed an escape byte of the plugin's path" ;; *) ok ;; esac
rm -f "$ESCP"
cp "$CI" "$T/ci2.so"
expect 2 "broker 'cheapest-idle' is also the name of plugin $CI" "$W" list brokers --broker-plugin "$CI" \
  --broker-plugin "$T/ci2.so"
# init returning an error: the run says so, naming the file, and leaves no trace
expect 2 "$P/bad_broker_initerr.so: broker plugin: init of broker 'bad-initerr' failed: this broker refuses to start" \
  "$W" run "$N" -q -o "$T/initerr.h5" --broker-plugin "$P/bad_broker_initerr.so" --broker bad-initerr
[ ! -e "$T/initerr.h5" ] && ok || bad "a trace was left behind by a failing broker init"
# choose crashing from job 3 on: each check that gets there dies in its
# child and is a FAIL naming the signal; init (one job) passes
ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0"
export ASAN_OPTIONS
expect 1 "FAIL  choice        crashed (signal 11" "$W" conformance --broker "$P/bad_broker_crash.so"
expect 1 "1 passed, 3 failed" "$W" conformance --broker "$P/bad_broker_crash.so"
# a choose that recurses without end (a stack overflow) fails the same way,
# the crash named with the callback it happened in
expect 1 "FAIL  choice        crashed (signal 11: Segmentation fault) in choose" "$W" conformance --broker \
  "$P/bad_broker_recurse.so"
expect 1 "1 passed, 3 failed" "$W" conformance --broker "$P/bad_broker_recurse.so"
# choose looping from job 3 on: each check that gets there times out and
# names the callback; init (one job) passes
expect 1 "FAIL  choice        timed out after 0.3 s in choose" "$W" conformance --broker "$P/bad_broker_loop.so" \
  --timeout 0.3
expect 1 "1 passed, 3 failed" "$W" conformance --broker "$P/bad_broker_loop.so" --timeout 0.3
# a negative choice other than -1 (no site): conformance fails it, a run
# stops with an error naming the broker, its file and the callback
expect 1 "chose site -7, not a site of" "$W" conformance --broker "$P/bad_broker_minus7.so"
expect 1 "$P/bad_broker_minus7.so: broker plugin: broker 'bad-minus7': choose returned -7 for job 0" \
  "$W" run "$N" -q -o "$T/minus7.h5" --broker-plugin "$P/bad_broker_minus7.so" --broker bad-minus7
[ ! -e "$T/minus7.h5" ] && ok || bad "a trace was left behind by a broker's bad choice"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
