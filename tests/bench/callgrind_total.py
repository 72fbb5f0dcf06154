# SPDX-License-Identifier: Apache-2.0
"""One command under `valgrind --tool=callgrind`: its instruction total.

Shared by the benchmark checks of this folder (scale_check.py,
perf_sweep_check.py, sci_ratio_check.py): instruction counts are stable from
run to run, unlike time on a shared machine."""
import os
import re
import subprocess
import sys
import tempfile


def instructions(argv, label):
    """Run argv under callgrind; return (instructions executed, stdout).
    Exits with a message naming label when the command fails or callgrind
    wrote no total."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + list(argv),
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"{label}: wanka failed ({p.returncode}): {p.stderr[-2000:]}")
        with open(out) as f:
            for line in f:
                m = re.match(r"(summary|totals):\s+(\d+)", line)
                if m:
                    return int(m.group(2)), p.stdout
    sys.exit(f"{label}: no instruction total")
