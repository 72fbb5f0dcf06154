#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_hostile_round2.sh WANKA SRCDIR PYTHON3 [FAMILY...] — the hostile-input
# campaign on networks of sites, facility files, exports, the HTML report,
# plots, plugins, -o and concurrency (hostile_round2.py says what each case
# must hold). One line per mishandled case, then "family: N cases, M
# mishandled"; exit status 1 when any case is mishandled.
W=$1 SRC=$2 PY=$3
shift 3
command -v cc >/dev/null 2>&1 || { echo "hostile-round2: no C compiler (cc) for the test plugins"; exit 77; }
exec "$PY" "$SRC/tests/scenario/hostile_round2.py" "$W" "$SRC" "$PY" "$@"
