#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_pc_build_tree.sh BUILD SRC — the build folder's wanka-sched.pc: with
# PKG_CONFIG_PATH=BUILD (the one line README.md and scripts/bootstrap give),
# `pkg-config --cflags wanka-sched` names SRC/include and the example policy
# and broker compile with those flags alone. 77 (skipped) without pkg-config or cc.
B=$1 SRC=$2
for tool in pkg-config cc; do
  command -v $tool >/dev/null 2>&1 || { echo "skipped: no $tool"; exit 77; }
done
export PKG_CONFIG_PATH="$B"
flags=$(pkg-config --cflags wanka-sched) || { echo "FAIL: pkg-config wanka-sched with PKG_CONFIG_PATH=$B"; exit 1; }
case " $flags " in *" -I$SRC/include "*) ;; *) echo "FAIL: cflags '$flags' do not name $SRC/include"; exit 1 ;; esac
for c in examples/sched-largest-first/largest_first.c examples/broker-cheapest-idle/cheapest_idle.c; do
  cc -std=c11 -fsyntax-only $flags "$SRC/$c" || { echo "FAIL: $c does not compile with '$flags'"; exit 1; }
done
echo "pc-build-tree: pkg-config wanka-sched works on the build folder"
