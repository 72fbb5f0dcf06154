#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every shipped scenario passes `wanka validate`, `wanka topo` and `wanka run`;
# every shipped sweep passes `wanka validate` and `wanka topo` (its base),
# and `wanka run` refuses it with exit 2, naming `wanka sweep`.
# Usage: test_folder.sh WANKA SOURCE_ROOT
set -u
wanka=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
check() { # what, command...
  what=$1; shift
  if ! "$@" > "$tmp/out" 2> "$tmp/err"; then
    echo "FAIL: $what: exit $?"; cat "$tmp/err"; fail=$((fail + 1))
  fi
  n=$((n + 1))
}
for s in "$root"/scenarios/*.yaml; do
  check "validate $s" "$wanka" validate "$s"
  check "topo $s" "$wanka" topo "$s"
  check "run $s" "$wanka" run "$s" -q --force -o "$tmp/t.h5"
done
for s in "$root"/scenarios/sweeps/*.yaml; do
  check "validate $s" "$wanka" validate "$s"
  check "topo $s" "$wanka" topo "$s"
  "$wanka" run "$s" -q --no-trace > /dev/null 2> "$tmp/err"
  st=$?
  if [ "$st" != 2 ] || ! grep -q "wanka sweep" "$tmp/err"; then
    echo "FAIL: run $s: exit $st, expected 2 naming wanka sweep"; cat "$tmp/err"; fail=$((fail + 1))
  fi
  n=$((n + 1))
done
echo "$n checks, $fail failed"
[ "$fail" = 0 ]
