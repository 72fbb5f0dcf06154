#!/bin/sh
# test_price_csv.sh — the price and carbon CSV of `facility.prices` against
# hostile input (docs/limits.md): a UTF-8 byte-order mark is skipped as in
# the CSV trace; a NUL byte, hex, inf or nan values, a row past 73 years
# (with or without prices_repeat), a file over 64 MiB and a null budget_mw
# are errors naming file, line and column (or the key), exit 2, no trace.
# usage: test_price_csv.sh WANKA SRCROOT
set -u
W=$1
NAME=prices
. "$2/tests/scenario/lib.sh"
cd "$T" || exit 1

refuse() {
  expect 2 "$2" "$W" run "$1" -q -o "$T/out.h5"
  [ -e "$T/out.h5" ] && { bad "$1: a trace was written"; rm -f "$T/out.h5"; } || ok
  expect 2 "$2" "$W" validate "$1"
}
B='cluster: {sku: H100-SXM-80G, nodes: 1, power: {pue: 1}}
workload: {source: inline, jobs: [{gpus: 8, duration: 1h}]}'
# scen NAME CSV [EXTRA]: NAME.yaml reads CSV as its price series
scen() { printf '%s\nfacility: {prices: %s%s}\n' "$B" "$2" "${3:-}" > "$1.yaml"; }
H='time,price_per_mwh,gco2_per_kwh'

printf '\357\273\277%s\n0h,10,100\n1h,20,200\n' "$H" > bom.csv
scen bom bom.csv
expect 0 "energy cost" "$W" run bom.yaml --no-trace
printf '%s\n0h,10,100\n1h,20\0000,200\n' "$H" > nul.csv
scen nul nul.csv
refuse nul.yaml "nul.csv:3:6: row: a NUL byte"
printf '%s\n0h,0x10,100\n1h,20,200\n' "$H" > hex.csv
scen hex hex.csv
refuse hex.yaml "hex.csv:2:4: price_per_mwh: expected a number, got '0x10'"
printf '%s\n0h,10,inf\n1h,20,200\n' "$H" > inf.csv
scen inf inf.csv
refuse inf.yaml "inf.csv:2:7: gco2_per_kwh: expected a number, got 'inf'"
printf '%s\n0h,nan,1\n1h,20,200\n' "$H" > nan.csv
scen nan nan.csv
refuse nan.yaml "nan.csv:2:4: price_per_mwh: expected a number, got 'nan'"
# the last row far away: its end (one more step) would wrap
printf '%s\n0h,10,100\n1h,20,200\n2000000h,20,200\n' "$H" > far.csv
scen far far.csv
refuse far.yaml "far.csv:4:1: time: '2000000h' is past 2305843009213693951ns"
scen farr far.csv ', prices_repeat: true'
refuse farr.yaml "far.csv:4:1: time: '2000000h' is past"
# a sparse file over the limit is refused before it is read
printf '%s\n0h,10,100\n1h,20,200\n' "$H" > big.csv
truncate -s 65M big.csv
scen big big.csv
refuse big.yaml "big.yaml:3:20: facility.prices: big.csv: a price series larger than 64 MiB"
# a null budget is no budget given
printf '%s\nfacility: {budget_mw: ~}\n' "$B" > bnull.yaml
# null means not given (docs/scenario-syntax.md): the run has no budget
expect 0 '"power_capped_h":null' "$W" run bnull.yaml --json -q --no-trace
printf '%s\nfacility:\n  budget_mw:\n' "$B" > bnull2.yaml
expect 0 '"power_capped_h":null' "$W" run bnull2.yaml --json -q --no-trace
printf '%s\nfacility: {budget_mw: 1}\n' "$B" > bset.yaml
expect 0 '"power_capped_h":' "$W" run bset.yaml --json -q --no-trace
# rows less than a second apart: each row is an event, so refused at the row
printf '%s\n0ns,10,100\n1ns,20,200\n' "$H" > ns.csv
scen ns ns.csv ', prices_repeat: true'
refuse ns.yaml "ns.csv:3:1: time: rows less than 1 s apart"

echo "price-csv: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
